//! The WS-BPEL 2.0 backend, for Apache ODE and the OpenTOSCA container.
//!
//! A plan becomes one process: receive the request, initialise variables,
//! create (or find) the service instance, run every activity as a `<scope>`
//! in one `<flow>` whose `<links>` are the plan's edges (independent
//! branches stay parallel), set the final state and call the caller back.
//! Operations are invoked through the management bus by a second process
//! of the package, `<plan>_call` (`bpel/call.bpel`): a call is one
//! request-response invoke of it, which sends `invokeOperationAsync`, waits
//! for the callback correlated on `MessageID` and answers with the result
//! or a fault, so no call spells that out again. Instance data goes
//! through the container's REST API with ODE's BPEL4RESTLight extension.
//! The archive holds the processes, the plan's WSDL, `deploy.xml`,
//! `call.endpoint` and one copy of the invoker WSDL and XSD.

mod activity;
mod calls;
mod ctx;
mod documents;
mod globals;
// Names the shared template variables must keep clear of (render::plan_vars).
pub(super) use self::ctx::{BUS_URL_INPUT, FIXED};
mod init;
mod links;
mod relationship_request;
mod steps;
mod writer;
mod xpath;

use serde::Serialize;

use self::activity::activity;
use self::ctx::Ctx;
use self::init::initial_values;
use self::links::Adjacency;
// The templates' tests check that every fragment file is listed.
#[cfg(test)]
pub(crate) use self::writer::FRAGMENTS;
use self::writer::{MARKERS, W, fragments, laid_out, split_skeleton, text};
use self::xpath::literal;
use super::collected::output_names;
use super::output::{CHUNK, PlanOutput, Written};
use super::rendered::{Language, Layout, RenderedPlan};
use super::templates::Templates;
use super::vars::{Vars, in_document};
use crate::error::Result;
use crate::model::Topology;
use crate::names::ncname;
use crate::plan::PlanKind;
use crate::plan::naming::{plan_name, plan_namespace};
use crate::plugins::ConcretePlan;

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
    layout: Layout,
    names: &Vars,
) -> Result<RenderedPlan> {
    render_into(
        plan,
        topology,
        templates,
        layout,
        names,
        PlanOutput::files(),
    )
}

/// Render a concrete plan into `output` (its files kept, or packed into
/// the archive as they are written).
pub(crate) fn render_into(
    plan: &ConcretePlan,
    topology: &Topology,
    templates: &Templates,
    layout: Layout,
    names: &Vars,
    mut output: PlanOutput,
) -> Result<RenderedPlan> {
    // A plan completed against a topology of its own (a test plan's) is
    // rendered with it.
    let topology = plan.topology(topology);
    let kind = &plan.plan.kind;
    let name = plan_name(topology, kind);
    let namespace = plan_namespace(topology, kind);
    let operation = operation(kind);
    let (cx, parameters) = Ctx::new(topology, plan, names);
    let failures = links::failures(plan);
    let outputs = outputs(&cx, plan);
    let (start_state, end_state) = match kind {
        PlanKind::Build | PlanKind::Defrost => (Some("CREATING"), Some("CREATED")),
        PlanKind::Termination | PlanKind::Freeze => (Some("DELETING"), Some("DELETED")),
        PlanKind::Transformation(_) => (Some("MIGRATING"), Some("MIGRATED")),
        _ => (None, None),
    };
    let target = topology.target.as_deref().map(|t| Target {
        csar: text(&literal(&t.csar)),
        path: text(&literal(&crate::render::side::target_path(t))),
    });
    let st = &topology.service_template;
    let process = Process {
        title: format!("{} plan of {}", kind.slug(), st.id),
        service_template: &super::made_from(topology),
        name: &name,
        namespace: &namespace,
        operation: &operation,
        variables: MARKERS[0],
        skips: failures.iter().any(Option::is_some),
        init: MARKERS[1],
        calls: MARKERS[2],
        bus_calls: cx.calls.any(),
        creates_service_instance: kind.creates_service_instance(),
        start_state,
        end_state,
        target,
        links: MARKERS[3],
        scopes: MARKERS[4],
        outputs: &outputs,
        inputs: parameters.iter().map(|p| p.name.as_str()).collect(),
    };
    // The skeleton is rendered around markers; the lists that grow with
    // the topology (variables, their initial values, links, activities)
    // are written between its parts, handed on to the output in chunks.
    let skeleton = templates.render("bpel/process.bpel", &process)?;
    let parts: Vec<String> = split_skeleton(&skeleton)?
        .into_iter()
        .map(|part| laid_out(part, layout))
        .collect();
    output.start(&format!("{name}.bpel"))?;
    write_body(&cx, plan, &parts, &failures, layout, &mut output)?;
    output.end()?;
    let wsdl = templates.render("bpel/plan.wsdl", &process)?;
    let deploy = templates.render("bpel/deploy.xml", &process)?;
    output.file(&format!("{name}.wsdl"), wsdl.as_bytes())?;
    output.file("deploy.xml", deploy.as_bytes())?;
    output.file(
        "invoker.wsdl",
        Templates::raw("bpel/invoker.wsdl").as_bytes(),
    )?;
    output.file("invoker.xsd", Templates::raw("bpel/invoker.xsd").as_bytes())?;
    if cx.calls.any() {
        let values: Vec<usize> = (1..=cx.calls.most_params()).collect();
        let xsl = templates.render("bpel/invoke.xsl", &Invoke { values })?;
        output.file("invoke.xsl", xsl.as_bytes())?;
        let call = templates.render("bpel/call.bpel", &process)?;
        output.file(&format!("{name}_call.bpel"), call.as_bytes())?;
        output.file(
            "call.endpoint",
            Templates::raw("bpel/call.endpoint").as_bytes(),
        )?;
    }
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

/// What `bpel/invoke.xsl` is rendered with: the numbers of the values
/// its callers pass (1 to the most inputs of an operation).
#[derive(Serialize)]
struct Invoke {
    values: Vec<usize>,
}

/// What the process templates (`bpel/process.bpel`, `plan.wsdl`,
/// `deploy.xml`) are rendered with.
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
    /// Where the requests the calls and relationship instances share are
    /// filled.
    calls: &'a str,
    /// The plan calls operations through the management bus (through its
    /// call process, `bpel/call.bpel`).
    bus_calls: bool,
    creates_service_instance: bool,
    start_state: Option<&'a str>,
    end_state: Option<&'a str>,
    /// A transformation's target: its service instance is created.
    target: Option<Target>,
    links: &'a str,
    scopes: &'a str,
    outputs: &'a [Output],
    inputs: Vec<&'a str>,
}

/// A transformation's target, as XPath string literals (XML-escaped).
#[derive(Serialize)]
struct Target {
    /// The target's CSAR id.
    csar: String,
    /// Its service template's path below the container's `/csars`.
    path: String,
}

/// The outputs of a plan: the correlation id, the service instance where
/// the plan creates it, then the plan's outputs (NCNames, unique).
fn outputs(cx: &Ctx, plan: &ConcretePlan) -> Vec<Output> {
    let mut outputs = vec![Output {
        name: "CorrelationID".into(),
        expr: "$correlationID".into(),
    }];
    if plan.plan.kind.creates_service_instance() {
        outputs.push(Output {
            name: "instanceId".into(),
            expr: "$serviceInstanceURL".into(),
        });
    } else if cx.topology.target.is_some() {
        // A transformation answers with the instance it made.
        outputs.push(Output {
            name: "instanceId".into(),
            expr: "$targetServiceInstanceURL".into(),
        });
    }
    let names = output_names(cx.topology, plan);
    for (((_, b), name), collected) in plan.outputs.iter().zip(names).zip(&cx.collected) {
        let expr = match collected {
            Some((_, var)) => format!("${var}"),
            None => cx.value(b),
        };
        outputs.push(Output { name, expr });
    }
    outputs
}

/// The process body between the parts of the skeleton: the variables,
/// their initial values, the links and the activities.
fn write_body(
    cx: &Ctx,
    plan: &ConcretePlan,
    parts: &[String],
    failures: &[Option<String>],
    layout: Layout,
    output: &mut PlanOutput,
) -> Result<()> {
    let edges = Adjacency::new(plan);
    let mut w = W {
        out: String::with_capacity(CHUNK + CHUNK / 4),
        fr: fragments()?,
        layout,
    };
    w.part(parts, 0);
    let templates = cx.names.templates().iter();
    let process = templates.filter(|&&t| cx.process.contains(t));
    for v in FIXED
        .iter()
        .copied()
        .chain(process.flat_map(|&t| {
            // An id the plan never reads is never set either; properties
            // in the template's document have no variables of their own.
            let unread = (!cx.names.id_read(t)).then(|| cx.names.id(t));
            let (url, id) = (cx.names.url(t), cx.names.id(t));
            let props = cx
                .names
                .props_of(cx.topology, t)
                .filter(move |(p, _)| !in_document(t, p))
                .map(|(_, v)| v);
            [url, id]
                .into_iter()
                .filter(move |&v| Some(v) != unread)
                .chain(props)
        }))
        .chain(failures.iter().flatten().map(String::as_str))
        .chain(cx.collected.iter().flatten().map(|(_, v)| v.as_str()))
        .chain(cx.states.values().map(String::as_str))
    {
        w.put("variable", 4, &[("name", v)])?;
        w.flush_if_full(output)?;
    }
    cx.calls.declare(&mut w)?;
    cx.documents.declare(&mut w)?;
    for &t in cx.names.templates() {
        if let Some(doc) = cx
            .names
            .document(cx.topology, t)
            .filter(|_| cx.process.contains(t))
        {
            w.put("document-variable", 4, &[("name", doc)])?;
            w.flush_if_full(output)?;
        }
    }
    let relationship_requests = relationship_request::Sides::new(cx.topology, plan);
    relationship_requests.declare(&mut w)?;
    w.part(parts, 1);
    initial_values(cx, plan, failures, &mut w, output)?;
    w.part(parts, 2);
    cx.calls.prepare(&mut w, cx.topology)?;
    cx.documents.prepare(&mut w)?;
    init::document_values(cx, plan, &mut w)?;
    relationship_requests.prepare(&mut w, cx.topology)?;
    w.part(parts, 3);
    if !plan.plan.edges.is_empty() {
        w.put("links", 6, &[])?;
        for e in 0..plan.plan.edges.len() {
            let link = edges.link_name(plan, e);
            w.put("link", 6, &[("name", &link)])?;
            w.flush_if_full(output)?;
        }
        w.put("links-end", 6, &[])?;
    }
    w.part(parts, 4);
    for i in 0..plan.plan.activities.len() {
        activity(cx, &mut w, 6, plan, i, &edges, failures)?;
        w.flush_if_full(output)?;
    }
    if plan.plan.activities.is_empty() {
        w.put("empty", 6, &[("name", "nothingToDo")])?;
    }
    w.part(parts, 5);
    output.write(&mut w.out)
}
