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

mod xpath;

use std::collections::HashMap;
use std::sync::OnceLock;

use serde::Serialize;

use self::xpath::{condition, expr, literal};
use super::fragment::Fragments;
use super::output::{CHUNK, PlanOutput, Written};
use super::templates::Templates;
use super::{Language, PlanParameter, RenderedPlan};
use crate::error::Result;
use crate::model::{Condition, TemplateRef, Topology};
use crate::names::Unique;
use crate::names::ncname;
use crate::names::xml_escape;
use crate::plan::naming::{plan_name, plan_namespace};
use crate::plan::{PlanKind, Reason};
use crate::plugins::steps::{Invocation, Otherwise, Step, Strategy};
use crate::plugins::{ActivityBody, ConcretePlan};
use crate::render::url_path;
use crate::render::vars::Vars;

/// Process variables that every plan has.
pub(crate) const FIXED: [&str; 7] = [
    "correlationID",
    "instanceDataAPIUrl",
    "csarEntrypoint",
    "csarID",
    "serviceTemplateURL",
    "serviceInstanceURL",
    "serviceInstanceID",
];

/// Where the lists of the skeleton go: variables, their initial values,
/// links, activities (in this order in the text).
const MARKERS: [&str; 4] = [
    "<!--toscanini:variables-->",
    "<!--toscanini:init-->",
    "<!--toscanini:links-->",
    "<!--toscanini:activities-->",
];

/// Optional input that overrides the management bus endpoint at run time.
pub(crate) const BUS_URL_INPUT: &str = "ManagementBusInvokerURL";

/// Escape text for element content (XPath expressions).
fn text(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    crate::names::escape::push_xml_text(&mut out, s);
    out
}

/// The operation of a plan's port type.
pub(crate) fn operation(kind: &PlanKind) -> String {
    match kind {
        PlanKind::Build => "initiate".into(),
        PlanKind::Termination => "terminate".into(),
        PlanKind::ScaleOut(_) => "scale-out".into(),
        PlanKind::Workflow(n) => ncname(n),
        PlanKind::Freeze
        | PlanKind::Defrost
        | PlanKind::Backup
        | PlanKind::Test
        | PlanKind::Update => kind.slug(),
        PlanKind::Transformation(_) => "transform".into(),
    }
}

struct Ctx<'a> {
    topology: &'a Topology,
    names: Vars,
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
struct Output {
    name: String,
    expr: String,
}

/// Render a concrete plan as a BPEL deployment unit.
pub(crate) fn render(
    plan: &ConcretePlan,
    topology: &Topology,
    templates: &Templates,
) -> Result<RenderedPlan> {
    render_into(plan, topology, templates, PlanOutput::files())
}

/// Render a concrete plan into `output` (its files kept, or packed into
/// the archive as they are written).
pub(crate) fn render_into(
    plan: &ConcretePlan,
    topology: &Topology,
    templates: &Templates,
    mut output: PlanOutput,
) -> Result<RenderedPlan> {
    // A plan completed against a topology of its own (a test plan's) is
    // rendered with it.
    let topology = plan.topology(topology);
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
        names: Vars::new(topology, plan, FIXED),
        inputs,
    };
    // Failure flags (`failed_…`) are a family of their own: unique among
    // themselves, they can meet no fixed or template variable.
    let mut flags = Unique::new();

    // `on_failure` (imperative workflows): a flag per activity whose
    // failure is routed; its links test it.
    let mut routed = vec![false; plan.plan.activities.len()];
    for e in &plan.plan.edges {
        routed[e.from] |= e.reason == Reason::OnFailure;
    }
    let failures: Vec<Option<String>> = plan
        .plan
        .activities
        .iter()
        .zip(&routed)
        .map(|(a, &r)| r.then(|| flags.name(failure_var(&a.id))))
        .collect();
    let skips = routed.iter().any(|&r| r);
    let edges = Adjacency::new(plan);
    let mut outputs = vec![Output {
        name: "CorrelationID".into(),
        expr: "$correlationID".into(),
    }];
    if kind.creates_service_instance() {
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
        PlanKind::Build | PlanKind::Defrost => (Some("CREATING"), Some("CREATED")),
        PlanKind::Termination | PlanKind::Freeze => (Some("DELETING"), Some("DELETED")),
        _ => (None, None),
    };
    #[derive(Serialize)]
    struct Process<'a> {
        title: String,
        service_template: &'a str,
        name: &'a str,
        namespace: &'a str,
        operation: &'a str,
        variables: &'a str,
        skips: bool,
        init: &'a str,
        creates_service_instance: bool,
        start_state: Option<&'a str>,
        end_state: Option<&'a str>,
        links: &'a str,
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
        variables: MARKERS[0],
        skips,
        init: MARKERS[1],
        creates_service_instance: kind.creates_service_instance(),
        start_state,
        end_state,
        links: MARKERS[2],
        scopes: MARKERS[3],
        outputs: &outputs,
        inputs: parameters.iter().map(|p| p.name.as_str()).collect(),
    };
    // The skeleton is rendered around markers; the lists that grow with
    // the topology (variables, their initial values, links, activities)
    // are written between its parts, handed on to the output in chunks.
    let skeleton = templates.render("bpel/process.bpel", &process)?;
    let mut parts = Vec::with_capacity(MARKERS.len() + 1);
    let mut rest = skeleton.as_str();
    for marker in MARKERS {
        let Some((before, after)) = rest.split_once(marker) else {
            return Err(crate::error::Error::Internal(format!(
                "bpel/process.bpel lacks the place of {marker}"
            )));
        };
        parts.push(before);
        rest = after;
    }
    parts.push(rest);
    output.start(&format!("{name}.bpel"))?;
    let mut w = W {
        out: String::with_capacity(CHUNK + CHUNK / 4),
        fr: fragments()?,
    };
    w.out.push_str(parts[0]);
    for v in FIXED
        .iter()
        .copied()
        .chain(cx.names.variables())
        .chain(failures.iter().flatten().map(String::as_str))
    {
        w.put("variable", 4, &[("name", v)])?;
        w.flush_if_full(&mut output)?;
    }
    w.out.push_str(parts[1]);
    initial_values(&cx, plan, &failures, &mut w, &mut output)?;
    w.out.push_str(parts[2]);
    if !plan.plan.edges.is_empty() {
        w.put("links", 6, &[])?;
        for e in 0..plan.plan.edges.len() {
            let link = edges.link_name(plan, e);
            w.put("link", 6, &[("name", &link)])?;
            w.flush_if_full(&mut output)?;
        }
        w.put("links-end", 6, &[])?;
    }
    w.out.push_str(parts[3]);
    for i in 0..plan.plan.activities.len() {
        activity(&cx, &mut w, 6, plan, i, &edges, &failures)?;
        w.flush_if_full(&mut output)?;
    }
    if plan.plan.activities.is_empty() {
        w.put("empty", 6, &[("name", "nothingToDo")])?;
    }
    w.out.push_str(parts[4]);
    output.write(&mut w.out)?;
    output.end()?;
    drop(w);
    let wsdl = templates.render("bpel/plan.wsdl", &process)?;
    let deploy = templates.render("bpel/deploy.xml", &process)?;
    output.file(&format!("{name}.wsdl"), wsdl.as_bytes())?;
    output.file("deploy.xml", deploy.as_bytes())?;
    output.file(
        "invoker.wsdl",
        Templates::raw("bpel/invoker.wsdl").as_bytes(),
    )?;
    output.file("invoker.xsd", Templates::raw("bpel/invoker.xsd").as_bytes())?;
    let (files, packed) = match output.finish()? {
        Written::Files(files) => (files, None),
        Written::Packed(packed) => (Vec::new(), Some(packed)),
    };
    Ok(RenderedPlan {
        name,
        kind: kind.clone(),
        language: Language::Bpel,
        files,
        packed,
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

/// An id as a URL path segment, escaped for XML.
fn path_text(id: &str) -> String {
    xml_escape(&url_path(id)).into_owned()
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

/// Initial values of the fixed and property variables, and the failure
/// flags of `on_failure` routing. Properties of new instances start with
/// their modelled value or plan input; plans that work on existing
/// instances load them from the instance data instead.
fn initial_values(
    cx: &Ctx,
    plan: &ConcretePlan,
    failures: &[Option<String>],
    w: &mut W,
    output: &mut PlanOutput,
) -> Result<()> {
    let input = |n: &str| format!("string($input.payload/tns:{})", cx.input(n));
    let mut init = |w: &mut W, var: &str, expr: &str| -> Result<()> {
        w.put("init", 6, &[("var", var), ("expr", expr)])?;
        w.flush_if_full(output)
    };
    init(
        w,
        "correlationID",
        &input(crate::plugins::complete::CORRELATION_ID),
    )?;
    init(
        w,
        "instanceDataAPIUrl",
        &input(crate::plugins::complete::INSTANCE_DATA_API_URL),
    )?;
    init(
        w,
        "csarEntrypoint",
        &input(crate::plugins::complete::CSAR_ENTRYPOINT),
    )?;
    // The container serves the CSAR at `…/csars/<CsarID>`: the bus needs
    // that id with every call.
    init(
        w,
        "csarID",
        &format!(
            "replace(replace({}, '/+$', ''), '^.*/', '')",
            input(crate::plugins::complete::CSAR_ENTRYPOINT)
        ),
    )?;
    for var in [
        "serviceTemplateURL",
        "serviceInstanceURL",
        "serviceInstanceID",
    ] {
        init(w, var, "''")?;
    }
    // Templates the plan provisions start from their modelled values; the
    // others (existing instances) are read from the instance data.
    let topology = cx.topology;
    let mut fresh = crate::model::TemplateMap::new(topology);
    for a in &plan.plan.activities {
        if a.kind.provisions() {
            fresh.insert(a.template, ());
        }
    }
    let mut seen = crate::model::TemplateMap::new(topology);
    let targets = plan
        .bodies
        .iter()
        .flat_map(|b| b.steps.iter())
        .filter_map(|s| s.invocation())
        .map(|i| i.target);
    for t in plan
        .plan
        .activities
        .iter()
        .map(|a| a.template)
        .chain(targets)
    {
        if seen.insert(t, ()).is_some() {
            continue;
        }
        init(w, cx.names.url(t), "''")?;
        init(w, cx.names.id(t), "''")?;
        for ((_, var), value) in cx
            .names
            .props_of(topology, t)
            .zip(topology.properties(t).values())
        {
            let e = if fresh.contains(t) {
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
            init(w, var, &e)?;
        }
    }
    for flag in failures.iter().flatten() {
        init(w, flag, "'false'")?;
    }
    Ok(())
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
pub(crate) const FRAGMENTS: &[(&str, &str)] = &[
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

    /// Hand the text on once a chunk has collected.
    fn flush_if_full(&mut self, output: &mut PlanOutput) -> Result<()> {
        if self.out.len() >= CHUNK {
            output.write(&mut self.out)?;
        }
        Ok(())
    }
}

/// The edges into and out of every activity (indexes into the plan's
/// edges, grouped by activity), built once: scanning every edge per
/// activity made rendering quadratic.
struct Adjacency {
    into: Vec<usize>,
    into_start: Vec<usize>,
    out_of: Vec<usize>,
    out_start: Vec<usize>,
    /// Edges whose link name another edge had first (`web-1` and `web_1`
    /// are both `web_1`): their names with a suffix. Names are made again
    /// where they are written rather than held, as a plan of a large
    /// topology has a hundred thousand of them.
    renamed: HashMap<usize, String>,
}

impl Adjacency {
    fn new(plan: &ConcretePlan) -> Adjacency {
        let n = plan.plan.activities.len();
        let group = |key: &dyn Fn(&crate::plan::Edge) -> usize| {
            let mut order: Vec<usize> = (0..plan.plan.edges.len()).collect();
            // Stable: edges keep their plan order within an activity.
            order.sort_by_key(|&e| key(&plan.plan.edges[e]));
            let mut start = vec![0; n + 1];
            for &e in &order {
                start[key(&plan.plan.edges[e]) + 1] += 1;
            }
            for i in 0..n {
                start[i + 1] += start[i];
            }
            (order, start)
        };
        let (into, into_start) = group(&|e| e.to);
        let (out_of, out_start) = group(&|e| e.from);
        let mut unique = Unique::new();
        let mut renamed = HashMap::new();
        for (k, e) in plan.plan.edges.iter().enumerate() {
            let name = link_name(
                &plan.plan.activities[e.from].id,
                &plan.plan.activities[e.to].id,
            );
            // A name handed out again is longer: it has a suffix.
            let len = name.len();
            let given = unique.name(name);
            if given.len() != len {
                renamed.insert(k, given);
            }
        }
        Adjacency {
            into,
            into_start,
            out_of,
            out_start,
            renamed,
        }
    }

    fn into(&self, i: usize) -> &[usize] {
        &self.into[self.into_start[i]..self.into_start[i + 1]]
    }

    fn out_of(&self, i: usize) -> &[usize] {
        &self.out_of[self.out_start[i]..self.out_start[i + 1]]
    }

    /// The name of the link of edge `k`.
    fn link_name(&self, plan: &ConcretePlan, k: usize) -> String {
        if let Some(name) = self.renamed.get(&k) {
            return name.clone();
        }
        let e = &plan.plan.edges[k];
        link_name(
            &plan.plan.activities[e.from].id,
            &plan.plan.activities[e.to].id,
        )
    }
}

/// One activity as a `<scope>` with its links.
fn activity(
    cx: &Ctx,
    w: &mut W,
    ind: usize,
    plan: &ConcretePlan,
    i: usize,
    edges: &Adjacency,
    failures: &[Option<String>],
) -> Result<()> {
    let failure = failures[i].as_deref();
    let a = &plan.plan.activities[i];
    let body = &plan.bodies[i];
    let name = a.id.as_str();
    w.put("scope", ind, &[("name", name)])?;
    let targets: Vec<String> = edges
        .into(i)
        .iter()
        .map(|&e| edges.link_name(plan, e))
        .collect();
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
        for t in &targets {
            w.put("target", ind, &[("link", t)])?;
        }
        w.put("targets-end", ind, &[])?;
    }
    let sources = edges.out_of(i);
    if !sources.is_empty() {
        w.put("sources", ind, &[])?;
        for &k in sources {
            let link = edges.link_name(plan, k);
            let e = &plan.plan.edges[k];
            // The links out of an activity whose failure is routed test
            // its flag.
            match failure {
                Some(f) => {
                    let condition = if e.reason == Reason::OnFailure {
                        format!("${f} = 'true'")
                    } else {
                        format!("${f} != 'true'")
                    };
                    w.put(
                        "source-when",
                        ind,
                        &[("link", &link), ("condition", &condition)],
                    )?
                }
                None => w.put("source", ind, &[("link", &link)])?,
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
    // The plan instance's log says when the activity starts and ends.
    let log = |w: &mut W, event: &str, what: &str| {
        w.put(
            "log",
            inner,
            &[("name", name), ("event", event), ("what", what)],
        )
    };
    log(w, "Started", "started")?;
    if body.per_instance {
        each_instance(cx, w, inner, a.template, name, body)?;
    } else {
        steps(cx, w, inner, &body.steps, name, "s", a.template)?;
    }
    log(w, "Finished", "finished")?;
    w.put(close, ind, &[])?;
    w.put("scope-end", ind, &[])
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
            let path = path_text(&t.node(*n).id);
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
            let path = path_text(&rt.id);
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
            let path = path_text(&t.relationship(*rel).id);
            let to_path = path_text(&t.node(*to).id);
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
            let path = path_text(&t.node(*n).id);
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
                    let property = xml_escape(&p.replace('\'', "")).into_owned();
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
    if Condition::reads_state(conditions) {
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
        let property = xml_escape(&p.replace('\'', "")).into_owned();
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
        ("path", path.as_ref()),
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
