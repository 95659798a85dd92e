//! The WS-BPEL 2.0 backend, for Apache ODE and the OpenTOSCA container.
//!
//! A plan becomes one process: receive the request, initialise variables,
//! create (or find) the service instance, run every activity as a `<scope>`
//! in one `<flow>` whose `<links>` are the plan's edges (independent
//! branches stay parallel), set the final state and call the caller back.
//! Operations are invoked through the management bus
//! (`invokeOperationAsync`, callback correlated on `MessageID`); instance
//! data goes through the container's REST API with ODE's BPEL4RESTLight
//! extension. The archive holds the process, its WSDL, `deploy.xml` and one
//! copy of the invoker WSDL and XSD.

mod names;
mod xpath;

use std::collections::HashMap;
use std::sync::OnceLock;

use serde::Serialize;

use self::names::Names;
use self::xpath::{condition, expr, literal, reads_state, url_path};
use super::fragment::Fragments;
use super::templates::{Templates, xml_escape};
use super::{Language, PlanFile, PlanParameter, RenderedPlan, plan_name, plan_namespace};
use crate::error::Result;
use crate::model::{TemplateRef, Topology};
use crate::plan::ids::Unique;
use crate::plan::{PlanKind, Reason, ncname};
use crate::plugins::steps::{Invocation, Otherwise, Step, Strategy};
use crate::plugins::{ActivityBody, ConcretePlan};

/// Where the skeleton's `{{ scopes }}` goes; replaced by the activities.
const SCOPES_MARKER: &str = "<!--toscanini:activities-->";

/// Optional input that overrides the management bus endpoint at run time.
pub const BUS_URL_INPUT: &str = "ManagementBusInvokerURL";

/// Escape text for element content (XPath expressions).
fn text(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
}

/// The operation of a plan's port type.
pub fn operation(kind: &PlanKind) -> String {
    match kind {
        PlanKind::Build => "initiate".into(),
        PlanKind::Termination => "terminate".into(),
        PlanKind::ScaleOut(_) => "scale-out".into(),
        PlanKind::Workflow(n) => ncname(n),
    }
}

struct Ctx<'a> {
    topology: &'a Topology,
    names: Names,
    inputs: HashMap<String, String>,
}

impl Ctx<'_> {
    fn input(&self, name: &str) -> String {
        self.inputs
            .get(name)
            .cloned()
            .unwrap_or_else(|| ncname(name))
    }

    fn expr(&self, b: &crate::plugins::steps::Binding) -> String {
        text(&expr(b, self.topology, &self.names, &|n| self.input(n)))
    }
}

#[derive(Serialize)]
struct Copy {
    var: String,
    expr: String,
}

#[derive(Serialize)]
struct Output {
    name: String,
    expr: String,
}

/// Render a concrete plan as a BPEL deployment unit.
pub fn render(
    plan: &ConcretePlan,
    topology: &Topology,
    templates: &Templates,
) -> Result<RenderedPlan> {
    let kind = &plan.plan.kind;
    let name = plan_name(topology, kind);
    let namespace = plan_namespace(topology, kind);
    let operation = operation(kind);
    // Plan inputs become elements of the request message: NCNames, unique.
    let mut unique = Unique::new();
    let mut inputs = HashMap::new();
    let mut parameters = Vec::new();
    for i in &plan.inputs {
        let element = unique.name(ncname(i));
        inputs.insert(i.clone(), element.clone());
        parameters.push(PlanParameter {
            name: element,
            required: true,
        });
    }
    let bus = unique.name(BUS_URL_INPUT.to_string());
    parameters.push(PlanParameter {
        name: bus,
        required: false,
    });
    let cx = Ctx {
        topology,
        names: Names::new(topology, plan),
        inputs,
    };

    let mut init = initial_values(&cx, plan);
    // `on_failure` (imperative workflows): a flag per activity whose
    // failure is routed; its links test it.
    let mut variables = cx.names.declared.clone();
    let mut routed = vec![false; plan.plan.activities.len()];
    for e in &plan.plan.edges {
        routed[e.from] |= e.reason == Reason::OnFailure;
    }
    for (i, a) in plan.plan.activities.iter().enumerate() {
        if routed[i] {
            let var = failure_var(&a.id);
            variables.push(var.clone());
            init.push(Copy {
                var,
                expr: "'false'".into(),
            });
        }
    }
    let skips = plan
        .plan
        .edges
        .iter()
        .any(|e| e.reason == Reason::OnFailure);
    let links: Vec<String> = plan
        .plan
        .edges
        .iter()
        .map(|e| {
            link_name(
                &plan.plan.activities[e.from].id,
                &plan.plan.activities[e.to].id,
            )
        })
        .collect();
    // Links of each activity, found once (not by scanning every edge per
    // activity, which made rendering quadratic). The links out of an
    // activity whose failure is routed (`on_failure`) test its flag.
    let failures: Vec<Option<String>> = plan
        .plan
        .activities
        .iter()
        .zip(&routed)
        .map(|(a, &r)| r.then(|| failure_var(&a.id)))
        .collect();
    let mut targets = vec![Vec::new(); plan.plan.activities.len()];
    let mut sources: Vec<Vec<Source>> = (0..plan.plan.activities.len())
        .map(|_| Vec::new())
        .collect();
    for (e, name) in plan.plan.edges.iter().zip(&links) {
        targets[e.to].push(name.as_str());
        let condition = failures[e.from].as_ref().map(|f| {
            if e.reason == Reason::OnFailure {
                format!("${f} = 'true'")
            } else {
                format!("${f} != 'true'")
            }
        });
        sources[e.from].push(Source {
            name: name.clone(),
            condition,
        });
    }
    // The activities are written straight into the process text, between
    // the halves of the skeleton (rendered around a marker).
    let mut w = W {
        out: String::new(),
        fr: fragments()?,
    };
    for (i, (targets, sources)) in targets.iter().zip(&sources).enumerate() {
        let links = Links {
            targets,
            sources,
            failure: failures[i].as_deref(),
        };
        activity(&cx, &mut w, 6, plan, i, links)?;
    }
    if plan.plan.activities.is_empty() {
        w.put("empty", 6, &[("name", "nothingToDo")])?;
    }
    let scopes = SCOPES_MARKER;
    let mut outputs = vec![Output {
        name: "CorrelationID".into(),
        expr: "$correlationID".into(),
    }];
    if *kind == PlanKind::Build {
        outputs.push(Output {
            name: "instanceId".into(),
            expr: "$serviceInstanceURL".into(),
        });
    }
    let mut out_unique = Unique::new();
    for o in &outputs {
        out_unique.name(o.name.clone());
    }
    for (n, b) in &plan.outputs {
        outputs.push(Output {
            name: out_unique.name(ncname(n)),
            expr: cx.expr(b),
        });
    }
    let (start_state, end_state) = match kind {
        PlanKind::Build => (Some("CREATING"), Some("CREATED")),
        PlanKind::Termination => (Some("DELETING"), Some("DELETED")),
        _ => (None, None),
    };
    #[derive(Serialize)]
    struct Process<'a> {
        title: String,
        service_template: &'a str,
        name: &'a str,
        namespace: &'a str,
        operation: &'a str,
        variables: &'a [String],
        skips: bool,
        init: &'a [Copy],
        creates_service_instance: bool,
        start_state: Option<&'a str>,
        end_state: Option<&'a str>,
        links: &'a [String],
        scopes: &'a str,
        outputs: &'a [Output],
        inputs: Vec<&'a str>,
    }
    let st = &topology.service_template;
    let process = Process {
        title: format!("{} plan of {}", kind.slug(), st.id),
        service_template: &format!("{{{}}}{}", st.namespace, st.id),
        name: &name,
        namespace: &namespace,
        operation: &operation,
        variables: &variables,
        skips,
        init: &init,
        creates_service_instance: *kind == PlanKind::Build,
        start_state,
        end_state,
        links: &links,
        scopes,
        outputs: &outputs,
        inputs: parameters.iter().map(|p| p.name.as_str()).collect(),
    };
    let skeleton = templates.render("bpel/process.bpel", &process)?;
    let Some((head, tail)) = skeleton.split_once(SCOPES_MARKER) else {
        return Err(crate::error::Error::Internal(
            "bpel/process.bpel has no place for the activities".into(),
        ));
    };
    let mut bpel = String::with_capacity(head.len() + w.out.len() + tail.len());
    bpel.push_str(head);
    bpel.push_str(&w.out);
    bpel.push_str(tail);
    drop(w);
    let wsdl = templates.render("bpel/plan.wsdl", &process)?;
    let deploy = templates.render("bpel/deploy.xml", &process)?;
    let files = vec![
        PlanFile {
            name: format!("{name}.bpel"),
            data: bpel.into_bytes(),
        },
        PlanFile {
            name: format!("{name}.wsdl"),
            data: wsdl.into_bytes(),
        },
        PlanFile {
            name: "deploy.xml".into(),
            data: deploy.into_bytes(),
        },
        PlanFile {
            name: "invoker.wsdl".into(),
            data: Templates::raw("bpel/invoker.wsdl").as_bytes().to_vec(),
        },
        PlanFile {
            name: "invoker.xsd".into(),
            data: Templates::raw("bpel/invoker.xsd").as_bytes().to_vec(),
        },
    ];
    Ok(RenderedPlan {
        name,
        kind: kind.clone(),
        language: Language::Bpel,
        files,
        inputs: parameters,
        outputs: outputs.into_iter().map(|o| o.name).collect(),
    })
}

/// The variable that records that an activity failed (`on_failure`).
fn failure_var(activity: &str) -> String {
    let word: String = activity
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '_' })
        .collect();
    format!("failed_{word}")
}

/// Link names: `<from>_to_<to>` with only `[A-Za-z0-9_]`, so that `$link`
/// in a join condition cannot be read as `$variable.part` or a subtraction.
fn link_name(from: &str, to: &str) -> String {
    let word = |s: &str| -> String {
        s.chars()
            .map(|c| if c.is_ascii_alphanumeric() { c } else { '_' })
            .collect()
    };
    format!("{}_to_{}", word(from), word(to))
}

/// Initial values of the fixed and property variables. Properties of new
/// instances start with their modelled value or plan input; plans that work
/// on existing instances load them from the instance data instead.
fn initial_values(cx: &Ctx, plan: &ConcretePlan) -> Vec<Copy> {
    let input = |n: &str| format!("string($input.payload/tns:{})", cx.input(n));
    let mut init = vec![
        Copy {
            var: "correlationID".into(),
            expr: input(crate::plugins::complete::CORRELATION_ID),
        },
        Copy {
            var: "instanceDataAPIUrl".into(),
            expr: input(crate::plugins::complete::INSTANCE_DATA_API_URL),
        },
        Copy {
            var: "csarEntrypoint".into(),
            expr: input(crate::plugins::complete::CSAR_ENTRYPOINT),
        },
        // The container serves the CSAR at `…/csars/<CsarID>`: the bus
        // needs that id with every call.
        Copy {
            var: "csarID".into(),
            expr: format!(
                "replace(replace({}, '/+$', ''), '^.*/', '')",
                input(crate::plugins::complete::CSAR_ENTRYPOINT)
            ),
        },
        Copy {
            var: "serviceTemplateURL".into(),
            expr: "''".into(),
        },
        Copy {
            var: "serviceInstanceURL".into(),
            expr: "''".into(),
        },
        Copy {
            var: "serviceInstanceID".into(),
            expr: "''".into(),
        },
    ];
    // Templates the plan provisions start from their modelled values; the
    // others (existing instances) are read from the instance data.
    let fresh: std::collections::HashSet<TemplateRef> = plan
        .plan
        .activities
        .iter()
        .filter(|a| a.kind == crate::plan::ActivityKind::Provision)
        .map(|a| a.template)
        .collect();
    let topology = cx.topology;
    let mut seen = std::collections::HashSet::new();
    let mut templates: Vec<TemplateRef> = plan.plan.activities.iter().map(|a| a.template).collect();
    templates.extend(
        plan.bodies
            .iter()
            .flat_map(|b| b.steps.iter())
            .filter_map(|s| s.invocation())
            .map(|i| i.target),
    );
    for t in templates {
        if !seen.insert(t) {
            continue;
        }
        init.push(Copy {
            var: cx.names.url(t).to_string(),
            expr: "''".into(),
        });
        init.push(Copy {
            var: cx.names.id(t).to_string(),
            expr: "''".into(),
        });
        for ((prop, var), value) in cx
            .names
            .props_of(topology, t)
            .zip(topology.properties(t).values())
        {
            let _ = prop;
            let e = if fresh.contains(&t) {
                match (value.as_input(), value.literal()) {
                    (Some(i), _) => input(i),
                    (None, Some(l)) => text(&literal(&l)),
                    (None, None) => {
                        cx.expr(&crate::plugins::params::value_binding(topology, t, value))
                    }
                }
            } else {
                "''".into()
            };
            init.push(Copy {
                var: var.to_string(),
                expr: e,
            });
        }
    }
    init
}

/// The BPEL fragments (templates/bpel/fragments), parsed once.
fn fragments() -> Result<&'static Fragments> {
    static PARSED: OnceLock<std::result::Result<Fragments, String>> = OnceLock::new();
    PARSED
        .get_or_init(|| Fragments::parse(FRAGMENTS).map_err(|e| e.to_string()))
        .as_ref()
        .map_err(|e| crate::error::Error::Internal(e.clone()))
}

/// The fragment files of this backend, embedded at build time.
pub const FRAGMENTS: &[(&str, &str)] = &[
    (
        "bpel/fragments/check.bpel",
        include_str!("../../../templates/bpel/fragments/check.bpel"),
    ),
    (
        "bpel/fragments/each-instance.bpel",
        include_str!("../../../templates/bpel/fragments/each-instance.bpel"),
    ),
    (
        "bpel/fragments/instances.bpel",
        include_str!("../../../templates/bpel/fragments/instances.bpel"),
    ),
    (
        "bpel/fragments/invoke.bpel",
        include_str!("../../../templates/bpel/fragments/invoke.bpel"),
    ),
    (
        "bpel/fragments/scope.bpel",
        include_str!("../../../templates/bpel/fragments/scope.bpel"),
    ),
    (
        "bpel/fragments/select-instance.bpel",
        include_str!("../../../templates/bpel/fragments/select-instance.bpel"),
    ),
];

/// Output of the process body: fragments written at an indentation.
struct W<'a> {
    out: String,
    fr: &'a Fragments,
}

impl W<'_> {
    fn put(&mut self, section: &str, indent: usize, values: &[(&str, &str)]) -> Result<()> {
        self.fr.write(&mut self.out, section, indent, values)
    }
}

/// One activity as a `<scope>` with its links.
fn activity(
    cx: &Ctx,
    w: &mut W,
    ind: usize,
    plan: &ConcretePlan,
    i: usize,
    links: Links,
) -> Result<()> {
    let Links {
        targets,
        sources,
        failure,
    } = links;
    let a = &plan.plan.activities[i];
    let body = &plan.bodies[i];
    let name = a.id.as_str();
    w.put("scope", ind, &[("name", name)])?;
    if !targets.is_empty() {
        w.put("targets", ind, &[])?;
        if targets.len() > 1 {
            let join = targets
                .iter()
                .map(|t| format!("${t}"))
                .collect::<Vec<_>>()
                .join(" and ");
            w.put("join", ind, &[("join", &join)])?;
        }
        for t in targets {
            w.put("target", ind, &[("link", t)])?;
        }
        w.put("targets-end", ind, &[])?;
    }
    if !sources.is_empty() {
        w.put("sources", ind, &[])?;
        for s in sources {
            match &s.condition {
                Some(c) => w.put("source-when", ind, &[("link", &s.name), ("condition", c)])?,
                None => w.put("source", ind, &[("link", &s.name)])?,
            }
        }
        w.put("sources-end", ind, &[])?;
    }
    w.put("variables", ind, &[])?;
    if body.per_instance {
        w.put("variable-instance-list", ind, &[])?;
    }
    w.put("variables-end", ind, &[])?;
    w.put("faults", ind, &[("name", name)])?;
    if !body.per_instance {
        let url = cx.names.url(a.template);
        w.put("mark-error", ind, &[("name", name), ("url", url)])?;
    }
    w.put("faults-end", ind, &[("name", name)])?;
    if !body.compensation.is_empty() {
        w.put("undo", ind, &[("name", name)])?;
        steps(cx, w, ind + 6, &body.compensation, name, "c", a.template)?;
        w.put("undo-end", ind, &[])?;
    }
    let (open, close, inner) = match failure {
        Some(_) => ("try", "try-end", ind + 6),
        None => ("steps", "steps-end", ind + 4),
    };
    w.put(
        open,
        ind,
        &[("name", name), ("flag", failure.unwrap_or(""))],
    )?;
    if body.per_instance {
        each_instance(cx, w, inner, a.template, name, body)?;
    } else {
        steps(cx, w, inner, &body.steps, name, "s", a.template)?;
    }
    w.put(close, ind, &[])?;
    w.put("scope-end", ind, &[])
}

struct Source {
    name: String,
    condition: Option<String>,
}

/// The links of one activity, and its failure flag if its failure is routed.
struct Links<'a> {
    targets: &'a [&'a str],
    sources: &'a [Source],
    failure: Option<&'a str>,
}

/// Steps in order; names are `<prefix>_<tag><n>`. Nothing to do is an
/// `<empty>` (a sequence may not be empty).
fn steps(
    cx: &Ctx,
    w: &mut W,
    ind: usize,
    steps: &[Step],
    prefix: &str,
    tag: &str,
    subject: TemplateRef,
) -> Result<()> {
    let before = w.out.len();
    for (k, step) in steps.iter().enumerate() {
        let name = format!("{prefix}_{tag}{}", k + 1);
        // A filter: the rest runs only on instances that meet it.
        if let Step::Check {
            template,
            condition: c,
            otherwise: Otherwise::Skip,
        } = step
        {
            check(
                cx,
                w,
                ind,
                *template,
                c,
                &name,
                Some(&steps[k + 1..]),
                subject,
            )?;
            break;
        }
        self::step(cx, w, ind, step, &name, subject)?;
    }
    if w.out.len() == before {
        let name = format!("{prefix}_{tag}0");
        w.put("empty", ind, &[("name", &name)])?;
    }
    Ok(())
}

fn step(
    cx: &Ctx,
    w: &mut W,
    ind: usize,
    step: &Step,
    name: &str,
    subject: TemplateRef,
) -> Result<()> {
    let t = cx.topology;
    match step {
        Step::CreateNodeInstance(n) => {
            let r = TemplateRef::Node(*n);
            let path = xml_escape(&url_path(&t.node(*n).id));
            w.put(
                "create-node-instance",
                ind,
                &[
                    ("name", name),
                    ("path", &path),
                    ("url", cx.names.url(r)),
                    ("id", cx.names.id(r)),
                ],
            )
        }
        Step::CreateRelationshipInstance(rel) => {
            let r = TemplateRef::Relationship(*rel);
            let rt = t.relationship(*rel);
            let path = xml_escape(&url_path(&rt.id));
            w.put(
                "create-relationship-instance",
                ind,
                &[
                    ("name", name),
                    ("path", &path),
                    ("url", cx.names.url(r)),
                    ("id", cx.names.id(r)),
                    ("source_id", cx.names.id(TemplateRef::Node(rt.source))),
                    ("target_id", cx.names.id(TemplateRef::Node(rt.target))),
                ],
            )
        }
        Step::SetState(r, state) => w.put(
            "set-state",
            ind,
            &[("name", name), ("state", state), ("url", cx.names.url(*r))],
        ),
        Step::StoreProperties(n) => {
            let r = TemplateRef::Node(*n);
            let props: Vec<(&str, &str)> = cx
                .names
                .props_of(t, r)
                .filter(|(p, _)| is_xml_name(p))
                .collect();
            if props.is_empty() {
                return Ok(());
            }
            let (ns, root) = t.node(*n).properties_element.clone().unwrap_or_default();
            let root = if root.is_empty() {
                "Properties".to_string()
            } else {
                root
            };
            let (xmlns, prefix, literal) = if ns.is_empty() {
                let inner: String = props.iter().map(|(p, _)| format!("<{p}/>")).collect();
                (
                    String::new(),
                    "",
                    format!("<{root} xmlns=\"\">{inner}</{root}>"),
                )
            } else {
                let inner: String = props.iter().map(|(p, _)| format!("<p:{p}/>")).collect();
                (
                    format!(" xmlns:p=\"{}\"", xml_escape(&ns)),
                    "p:",
                    format!("<p:{root}>{inner}</p:{root}>"),
                )
            };
            w.put(
                "store-properties",
                ind,
                &[("name", name), ("xmlns", &xmlns), ("literal", &literal)],
            )?;
            for (p, v) in &props {
                w.put(
                    "store-property",
                    ind,
                    &[("var", v), ("prefix", prefix), ("property", p)],
                )?;
            }
            w.put("store-properties-end", ind, &[("url", cx.names.url(r))])
        }
        Step::FollowRelationship { rel, from, to } => {
            let path = xml_escape(&url_path(&t.relationship(*rel).id));
            let to_path = xml_escape(&url_path(&t.node(*to).id));
            let to_ref = TemplateRef::Node(*to);
            w.put(
                "follow-relationship",
                ind,
                &[
                    ("name", name),
                    ("path", &path),
                    ("from_id", cx.names.id(TemplateRef::Node(*from))),
                    ("to_id", cx.names.id(to_ref)),
                    ("to_url", cx.names.url(to_ref)),
                    ("to_path", &to_path),
                ],
            )?;
            load_properties(cx, w, ind, to_ref, &format!("{name}_load"))
        }
        Step::Invoke(inv) => invoke(cx, w, ind, inv, name, subject),
        Step::Check {
            template,
            condition: c,
            otherwise: Otherwise::Fail,
        } => check(cx, w, ind, *template, c, name, None, subject),
        // Only reached when the filter is the last step: nothing follows.
        Step::Check { template, .. } => check(cx, w, ind, *template, &[], name, Some(&[]), subject),
        Step::SelectInstance(n, strategy) => {
            let r = TemplateRef::Node(*n);
            let path = xml_escape(&url_path(&t.node(*n).id));
            w.put("select", ind, &[("name", name)])?;
            match strategy {
                Strategy::UserProvided(i) => {
                    let input = cx.input(i);
                    w.put("select-given", ind, &[("name", name), ("input", &input)])?;
                }
                Strategy::FirstInstance => {
                    w.put("select-list", ind, &[("path", &path)])?;
                    w.put("select-first", ind, &[("name", name)])?;
                }
                Strategy::WorkloadBased(p) => {
                    let property = xml_escape(&p.replace('\'', ""));
                    w.put("select-list", ind, &[("path", &path)])?;
                    w.put(
                        "select-lowest",
                        ind,
                        &[("name", name), ("path", &path), ("property", &property)],
                    )?;
                }
            }
            w.put(
                "select-chosen",
                ind,
                &[
                    ("name", name),
                    ("path", &path),
                    ("id", cx.names.id(r)),
                    ("url", cx.names.url(r)),
                ],
            )?;
            load_properties(cx, w, ind + 4, r, &format!("{name}_load"))?;
            w.put("select-end", ind, &[])
        }
    }
}

/// A condition on the current instance of `template`: with `rest`, the
/// rest of the steps run only where it holds; without, the plan fails
/// where it does not.
#[allow(clippy::too_many_arguments)]
fn check(
    cx: &Ctx,
    w: &mut W,
    ind: usize,
    template: TemplateRef,
    conditions: &[crate::model::Condition],
    name: &str,
    rest: Option<&[Step]>,
    subject: TemplateRef,
) -> Result<()> {
    let expr = text(&condition(conditions, template, cx.topology, &cx.names));
    let url = cx.names.url(template);
    w.put("check", ind, &[("name", name)])?;
    if reads_state(conditions) {
        w.put("check-read-state", ind, &[("name", name), ("url", url)])?;
    }
    match rest {
        Some(rest) => {
            w.put("check-filter", ind, &[("name", name), ("condition", &expr)])?;
            steps(cx, w, ind + 6, rest, name, "s", subject)?;
            w.put("check-filter-end", ind, &[])?;
        }
        None => w.put(
            "check-precondition",
            ind,
            &[("name", name), ("condition", &expr)],
        )?,
    }
    w.put("check-end", ind, &[])
}

fn is_xml_name(s: &str) -> bool {
    !s.is_empty() && ncname(s) == s
}

fn load_properties(cx: &Ctx, w: &mut W, ind: usize, r: TemplateRef, name: &str) -> Result<()> {
    let mut props = cx.names.props_of(cx.topology, r).peekable();
    if props.peek().is_none() {
        return Ok(());
    }
    w.put(
        "load-properties",
        ind,
        &[("url", cx.names.url(r)), ("name", name)],
    )?;
    for (p, v) in props {
        let property = xml_escape(&p.replace('\'', ""));
        w.put("load-property", ind, &[("property", &property), ("var", v)])?;
    }
    w.put("load-properties-end", ind, &[])
}

fn invoke(
    cx: &Ctx,
    w: &mut W,
    ind: usize,
    inv: &Invocation,
    name: &str,
    subject: TemplateRef,
) -> Result<()> {
    let t = cx.topology;
    let (kind, template, node_instance) = match inv.target {
        TemplateRef::Node(n) => (
            "NodeTemplateID",
            t.node(n).id.as_str(),
            Some(cx.names.url(inv.target)),
        ),
        TemplateRef::Relationship(r) => (
            "RelationshipTemplateID",
            t.relationship(r).id.as_str(),
            None,
        ),
    };
    let mut params = String::new();
    if !inv.inputs.is_empty() {
        params.push_str("<invs:Params>");
        for (n, _) in &inv.inputs {
            params.push_str("<invs:Param><invs:key>");
            params.push_str(&xml_escape(n));
            params.push_str("</invs:key><invs:value/></invs:Param>");
        }
        params.push_str("</invs:Params>");
    }
    let message_id = text(&format!(
        "concat($correlationID, ':', {}, ':', ${})",
        literal(name),
        cx.names.id(subject)
    ));
    let st = &t.service_template;
    w.put(
        "invoke",
        ind,
        &[
            ("name", name),
            (
                "node_instance_element",
                if node_instance.is_some() {
                    "<invs:NodeInstanceID/>"
                } else {
                    ""
                },
            ),
            ("st_namespace", &xml_escape(&st.namespace)),
            ("st_id", &xml_escape(&st.id)),
            ("template_kind", kind),
            ("template", &xml_escape(template)),
            ("interface", &xml_escape(&inv.interface)),
            ("operation", &xml_escape(&inv.operation)),
            ("params", &params),
        ],
    )?;
    if let Some(url) = node_instance {
        w.put("invoke-node-instance", ind, &[("url", url)])?;
    }
    w.put("invoke-reply", ind, &[("message_id", &message_id)])?;
    for (k, (_, b)) in inv.inputs.iter().enumerate() {
        let expr = cx.expr(b);
        let index = (k + 1).to_string();
        w.put("invoke-param", ind, &[("expr", &expr), ("index", &index)])?;
    }
    w.put("invoke-call", ind, &[("name", name)])?;
    for (k, (o, p)) in inv.outputs.iter().enumerate() {
        let param = text(&format!(
            "$invokeResponse.invokeResponse//*[local-name()='Param'][*[local-name()='key'] = {}]",
            literal(o)
        ));
        let index = (k + 1).to_string();
        w.put(
            "invoke-output",
            ind,
            &[
                ("name", name),
                ("index", &index),
                ("param", &param),
                ("var", cx.names.prop(t, p)),
            ],
        )?;
    }
    w.put("invoke-end", ind, &[])
}

/// A termination activity: the steps once per live instance, with the
/// variables of the instance (and of the instances found below it) local to
/// each iteration, so parallel branches never share them.
fn each_instance(
    cx: &Ctx,
    w: &mut W,
    ind: usize,
    subject: TemplateRef,
    prefix: &str,
    body: &ActivityBody,
) -> Result<()> {
    let t = cx.topology;
    let (collection, element, path) = match subject {
        TemplateRef::Node(n) => (
            "nodetemplates",
            "NodeTemplateInstance",
            url_path(&t.node(n).id),
        ),
        TemplateRef::Relationship(r) => (
            "relationshiptemplates",
            "RelationshipTemplateInstance",
            url_path(&t.relationship(r).id),
        ),
    };
    let path = xml_escape(&path);
    let mut locals: Vec<&str> = Vec::new();
    let followed = body.steps.iter().filter_map(|s| match s {
        Step::FollowRelationship { to, .. } => Some(TemplateRef::Node(*to)),
        _ => None,
    });
    for r in std::iter::once(subject).chain(followed) {
        locals.push(cx.names.url(r));
        locals.push(cx.names.id(r));
        locals.extend(cx.names.props_of(t, r).map(|(_, v)| v));
    }
    locals.dedup();
    let url = cx.names.url(subject);
    let id = cx.names.id(subject);
    let values = [
        ("name", prefix),
        ("collection", collection),
        ("element", element),
        ("path", path.as_str()),
        ("url", url),
        ("id", id),
    ];
    w.put("each-instance", ind, &values)?;
    for v in locals {
        w.put("each-instance-local", ind, &[("var", v)])?;
    }
    w.put("each-instance-body", ind, &values)?;
    load_properties(cx, w, ind + 6, subject, &format!("{prefix}_load"))?;
    steps(cx, w, ind + 6, &body.steps, prefix, "s", subject)?;
    w.put("each-instance-end", ind, &[])
}
