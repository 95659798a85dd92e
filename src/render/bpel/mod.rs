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

use serde::Serialize;

use self::names::Names;
use self::xpath::{condition, expr, literal, reads_state, url_path};
use super::templates::{Templates, indent, xml_escape};
use super::{Language, PlanFile, PlanParameter, RenderedPlan, plan_name, plan_namespace};
use crate::error::Result;
use crate::model::{TemplateRef, Topology};
use crate::plan::ids::Unique;
use crate::plan::{PlanKind, Reason, ncname};
use crate::plugins::steps::{Invocation, Otherwise, Step, Strategy};
use crate::plugins::{ActivityBody, ConcretePlan};

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
    templates: &'a Templates,
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
        templates,
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
    let mut scopes = String::new();
    for (i, (targets, sources)) in targets.iter().zip(sources).enumerate() {
        let failure = failures[i].clone();
        scopes.push_str(&indent(
            &activity(&cx, plan, i, targets, sources, failure)?,
            6,
        ));
    }
    if plan.plan.activities.is_empty() {
        scopes.push_str("      <bpel:empty name=\"nothingToDo\"/>\n");
    }
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
        scopes: &scopes,
        outputs: &outputs,
        inputs: parameters.iter().map(|p| p.name.as_str()).collect(),
    };
    let bpel = templates.render("bpel/process.bpel", &process)?;
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

/// One activity as a `<scope>` with its links.
fn activity(
    cx: &Ctx,
    plan: &ConcretePlan,
    i: usize,
    targets: &[&str],
    sources: Vec<Source>,
    failure: Option<String>,
) -> Result<String> {
    let a = &plan.plan.activities[i];
    let body = &plan.bodies[i];
    let join = (targets.len() > 1).then(|| {
        targets
            .iter()
            .map(|t| format!("${t}"))
            .collect::<Vec<_>>()
            .join(" and ")
    });
    let steps = if body.per_instance {
        each_instance(cx, a.template, &a.id, body)?
    } else {
        steps(cx, &body.steps, &a.id, "s", a.template)?
    };
    let compensation = steps_opt(cx, &body.compensation, &a.id, a.template)?;
    #[derive(Serialize)]
    struct Scope<'a> {
        name: &'a str,
        targets: &'a [&'a str],
        join: Option<String>,
        sources: Vec<Source>,
        failure_var: Option<String>,
        per_instance: bool,
        error_url: Option<&'a str>,
        compensation: String,
        body: String,
    }
    cx.templates.render(
        "bpel/scope.bpel",
        &Scope {
            name: &a.id,
            targets,
            join,
            sources,
            failure_var: failure,
            per_instance: body.per_instance,
            error_url: (!body.per_instance).then(|| cx.names.url(a.template)),
            compensation: indent(&compensation, 6),
            body: indent(&steps, 4),
        },
    )
}

#[derive(Serialize)]
struct Source {
    name: String,
    condition: Option<String>,
}

fn steps_opt(cx: &Ctx, steps: &[Step], prefix: &str, subject: TemplateRef) -> Result<String> {
    if steps.is_empty() {
        return Ok(String::new());
    }
    self::steps(cx, steps, prefix, "c", subject)
}

/// Render steps in order; names are `<prefix>_<tag><n>`.
fn steps(
    cx: &Ctx,
    steps: &[Step],
    prefix: &str,
    tag: &str,
    subject: TemplateRef,
) -> Result<String> {
    let mut out = String::new();
    for (k, step) in steps.iter().enumerate() {
        let name = format!("{prefix}_{tag}{}", k + 1);
        // A filter: the rest runs only on instances that meet it.
        if let Step::Check {
            template,
            condition: c,
            otherwise: Otherwise::Skip,
        } = step
        {
            let rest = self::steps(cx, &steps[k + 1..], &name, "s", subject)?;
            out.push_str(&check(cx, *template, c, &name, Some(&rest))?);
            break;
        }
        out.push_str(&self::step(cx, step, &name, subject)?);
    }
    if out.is_empty() {
        out.push_str(&format!("<bpel:empty name=\"{prefix}_{tag}0\"/>\n"));
    }
    Ok(out)
}

#[derive(Serialize)]
struct Prop<'a> {
    name: &'a str,
    var: &'a str,
}

fn step(cx: &Ctx, step: &Step, name: &str, subject: TemplateRef) -> Result<String> {
    let t = cx.topology;
    let tpl = cx.templates;
    match step {
        Step::CreateNodeInstance(n) => {
            let r = TemplateRef::Node(*n);
            tpl.render(
                "bpel/steps/create-node-instance.bpel",
                &serde_json::json!({
                    "name": name,
                    "path": xml_escape(&url_path(&t.node(*n).id)),
                    "url": cx.names.url(r),
                    "id": cx.names.id(r),
                }),
            )
        }
        Step::CreateRelationshipInstance(rel) => {
            let r = TemplateRef::Relationship(*rel);
            let rt = t.relationship(*rel);
            tpl.render(
                "bpel/steps/create-relationship-instance.bpel",
                &serde_json::json!({
                    "name": name,
                    "path": xml_escape(&url_path(&rt.id)),
                    "url": cx.names.url(r),
                    "id": cx.names.id(r),
                    "source_id": cx.names.id(TemplateRef::Node(rt.source)),
                    "target_id": cx.names.id(TemplateRef::Node(rt.target)),
                }),
            )
        }
        Step::SetState(r, state) => tpl.render(
            "bpel/steps/set-state.bpel",
            &serde_json::json!({ "name": name, "state": state, "url": cx.names.url(*r) }),
        ),
        Step::StoreProperties(n) => {
            let r = TemplateRef::Node(*n);
            let props: Vec<Prop> = cx
                .names
                .props_of(t, r)
                .map(|(p, v)| Prop { name: p, var: v })
                .filter(|p| is_xml_name(p.name))
                .collect();
            if props.is_empty() {
                return Ok(String::new());
            }
            let (ns, root) = t.node(*n).properties_element.clone().unwrap_or_default();
            let root = if root.is_empty() {
                "Properties".to_string()
            } else {
                root
            };
            tpl.render(
                "bpel/steps/store-properties.bpel",
                &serde_json::json!({ "name": name, "ns": ns, "root": root, "props": props, "url": cx.names.url(r) }),
            )
        }
        Step::FollowRelationship { rel, from, to } => {
            let load = load_properties(cx, TemplateRef::Node(*to), &format!("{name}_load"))?;
            tpl.render(
                "bpel/steps/follow-relationship.bpel",
                &serde_json::json!({
                    "name": name,
                    "path": xml_escape(&url_path(&t.relationship(*rel).id)),
                    "from_id": cx.names.id(TemplateRef::Node(*from)),
                    "to_id": cx.names.id(TemplateRef::Node(*to)),
                    "to_url": cx.names.url(TemplateRef::Node(*to)),
                    "to_path": xml_escape(&url_path(&t.node(*to).id)),
                    "load": load,
                }),
            )
        }
        Step::Invoke(inv) => invoke(cx, inv, name, subject),
        Step::Check {
            template,
            condition: c,
            otherwise: Otherwise::Fail,
        } => check(cx, *template, c, name, None),
        Step::Check { template, .. } => {
            // Only reached when the filter is the last step.
            check(cx, *template, &[], name, Some(""))
        }
        Step::SelectInstance(n, strategy) => {
            let r = TemplateRef::Node(*n);
            let load = indent(&load_properties(cx, r, &format!("{name}_load"))?, 4);
            let (kind, input, property) = match strategy {
                Strategy::FirstInstance => ("FirstInstance", String::new(), String::new()),
                Strategy::UserProvided(i) => ("UserProvided", cx.input(i), String::new()),
                Strategy::WorkloadBased(p) => (
                    "WorkloadBased",
                    String::new(),
                    xml_escape(&p.replace('\'', "")),
                ),
            };
            tpl.render(
                "bpel/steps/select-instance.bpel",
                &serde_json::json!({
                    "name": name,
                    "strategy": kind,
                    "input": input,
                    "property": property,
                    "path": xml_escape(&url_path(&t.node(*n).id)),
                    "id": cx.names.id(r),
                    "url": cx.names.url(r),
                    "load": load,
                }),
            )
        }
    }
}

/// A condition on the current instance of `template`: with `rest`, the
/// rest of the steps run only where it holds; without, the plan fails
/// where it does not.
fn check(
    cx: &Ctx,
    template: TemplateRef,
    conditions: &[crate::model::Condition],
    name: &str,
    rest: Option<&str>,
) -> Result<String> {
    let expr = text(&condition(conditions, template, cx.topology, &cx.names));
    cx.templates.render(
        "bpel/steps/check.bpel",
        &serde_json::json!({
            "name": name,
            "url": cx.names.url(template),
            "reads_state": reads_state(conditions),
            "condition": expr,
            "skip": rest.is_some(),
            "rest": indent(rest.unwrap_or(""), 6),
        }),
    )
}

fn is_xml_name(s: &str) -> bool {
    !s.is_empty() && ncname(s) == s
}

fn load_properties(cx: &Ctx, r: TemplateRef, name: &str) -> Result<String> {
    let props: Vec<Prop> = cx
        .names
        .props_of(cx.topology, r)
        .map(|(p, v)| Prop { name: p, var: v })
        .collect();
    if props.is_empty() {
        return Ok(String::new());
    }
    let props: Vec<serde_json::Value> = props
        .iter()
        .map(|p| serde_json::json!({ "name": xml_escape(&p.name.replace('\'', "")), "var": p.var }))
        .collect();
    cx.templates.render(
        "bpel/steps/load-properties.bpel",
        &serde_json::json!({ "name": name, "url": cx.names.url(r), "props": props }),
    )
}

fn invoke(cx: &Ctx, inv: &Invocation, name: &str, subject: TemplateRef) -> Result<String> {
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
    let params: Vec<serde_json::Value> = inv
        .inputs
        .iter()
        .map(|(n, b)| serde_json::json!({ "name": n, "expr": cx.expr(b) }))
        .collect();
    let outputs: Vec<serde_json::Value> = inv
        .outputs
        .iter()
        .map(|(o, p)| {
            let param = format!(
                "$invokeResponse.invokeResponse//*[local-name()='Param'][*[local-name()='key'] = {}]",
                literal(o)
            );
            serde_json::json!({ "param": text(&param), "var": cx.names.prop(t, p) })
        })
        .collect();
    let message_id = text(&format!(
        "concat($correlationID, ':', {}, ':', ${})",
        literal(name),
        cx.names.id(subject)
    ));
    let st = &t.service_template;
    cx.templates.render(
        "bpel/steps/invoke.bpel",
        &serde_json::json!({
            "name": name,
            "st_namespace": st.namespace,
            "st_id": st.id,
            "template_kind": kind,
            "template": template,
            "node_instance": node_instance,
            "interface": inv.interface,
            "operation": inv.operation,
            "params": params,
            "message_id": message_id,
            "outputs": outputs,
        }),
    )
}

/// A termination activity: the steps once per live instance, with the
/// variables of the instance (and of the instances found below it) local to
/// each iteration, so parallel branches never share them.
fn each_instance(
    cx: &Ctx,
    subject: TemplateRef,
    prefix: &str,
    body: &ActivityBody,
) -> Result<String> {
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
    let mut locals: Vec<String> = Vec::new();
    let add = |r: TemplateRef, locals: &mut Vec<String>| {
        locals.push(cx.names.url(r).to_string());
        locals.push(cx.names.id(r).to_string());
        locals.extend(cx.names.props_of(t, r).map(|(_, v)| v.to_string()));
    };
    add(subject, &mut locals);
    for s in &body.steps {
        if let Step::FollowRelationship { to, .. } = s {
            add(TemplateRef::Node(*to), &mut locals);
        }
    }
    locals.dedup();
    let mut inner = load_properties(cx, subject, &format!("{prefix}_load"))?;
    inner.push_str(&steps(cx, &body.steps, prefix, "s", subject)?);
    cx.templates.render(
        "bpel/steps/each-instance.bpel",
        &serde_json::json!({
            "name": prefix,
            "collection": collection,
            "element": element,
            "path": xml_escape(&path),
            "locals": locals,
            "id": cx.names.id(subject),
            "url": cx.names.url(subject),
            "body": indent(&inner, 6),
        }),
    )
}
