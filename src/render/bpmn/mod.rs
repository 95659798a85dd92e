//! The BPMN 2.0 backend, for Camunda 7 and Operaton (and any engine that
//! runs the Camunda extensions it uses: the Connect `http-connector` and
//! Groovy scripts, both shipped with their distributions).
//!
//! In: a [`ConcretePlan`] and the topology (for names). Out: a
//! [`RenderedPlan`] holding one `.bpmn` file: an executable process with
//! diagram interchange.
//!
//! Shape of the process: start, initialise the variables, create (build)
//! or find (other plans) the service instance, then one expanded
//! subprocess `plan_activities` holding the plan graph. Every activity is
//! a collapsed subprocess whose id is the activity id (its steps are in a
//! diagram of its own, one click away in a modeler); a fork is a parallel
//! gateway after an activity with several successors, a join one before an
//! activity with several predecessors, and nothing else is added, so the
//! process is exactly as parallel as the plan graph. Termination
//! activities loop over the live instances of their template, with the
//! instance's variables local to each turn.
//!
//! Failures: a failing call throws the BPMN error `ToscaniniFailure`; the
//! activity's error event subprocess marks the instance ERROR, the error
//! boundary event of the activity leads to an error end event, the event
//! subprocess of `plan_activities` compensates the finished activities
//! (e.g. `terminateVM` after `createVM`), and the boundary event of
//! `plan_activities` records the failure on the service instance and ends
//! the process in the error end event `plan_failed`.

mod expr;
pub mod graph;
pub mod layout;
mod names;
pub mod scripts;
mod steps;
pub mod xml;

use std::collections::HashMap;

use self::expr::{Part, concat, literal, var};
use self::graph::{Adjacency, Kind, Plane, Repeat, Script, Sub, Value};
use self::names::{Names, word};
use self::scripts::{PropertyFiles, Shared, Used};
use self::steps::Chain;
use super::templates::Templates;
use super::{Language, PlanFile, PlanParameter, RenderedPlan, plan_name, plan_namespace};
use crate::error::Result;
use crate::model::{TemplateRef, Topology};
use crate::plan::ids::Unique;
use crate::plan::{PlanKind, ncname};
use crate::plugins::ConcretePlan;
use crate::plugins::complete::{
    CORRELATION_ID, CSAR_ENTRYPOINT, INSTANCE_DATA_API_URL, SERVICE_INSTANCE_URL,
};
use crate::plugins::steps::Binding;

/// Input with the management bus REST endpoint (`…/ManagementBus/v1/invoker`).
pub const BUS_URL_INPUT: &str = "ManagementBusURL";

/// Error thrown by a failing call (HTTP status, bus fault).
pub const ERROR_FAILURE: &str = "ToscaniniFailure";
/// Error an activity ends with when it failed.
pub const ERROR_ACTIVITY: &str = "ToscaniniActivityFailed";
/// Error the plan ends with when it failed.
pub const ERROR_PLAN: &str = "ToscaniniPlanFailed";

/// Error element ids.
const ERR_FAILURE: &str = "toscanini_failure";
const ERR_ACTIVITY: &str = "toscanini_activityFailed";
const ERR_PLAN: &str = "toscanini_planFailed";

/// What the step renderers share.
pub(crate) struct Ctx<'a> {
    topology: &'a Topology,
    names: Names,
    inputs: HashMap<String, String>,
    bus: String,
    vars: Unique,
    properties: PropertyFiles,
}

impl Ctx<'_> {
    /// The variable of a plan input.
    fn input(&self, name: &str) -> String {
        self.inputs
            .get(name)
            .cloned()
            .unwrap_or_else(|| ncname(name))
    }

    /// The Groovy expression of a binding.
    fn expr(&self, b: &Binding) -> String {
        expr::expr(b, self.topology, &self.names, &|n| self.input(n))
    }

    /// A variable of one element (poll loops, instance lists): a JUEL
    /// identifier, unique in the plan.
    fn poll_var(&mut self, element: &str, what: &str) -> String {
        self.vars.name(format!("{}_{what}", word(element)))
    }
}

/// The name of a BPMN plan: `<service template>_bpmn<Kind suffix>` (as
/// OpenTOSCA's BPMN generator named them), so that it never clashes with
/// the BPEL plan of the same kind in the same CSAR.
pub fn bpmn_plan_name(topology: &Topology, kind: &PlanKind) -> String {
    let base = plan_name(topology, kind);
    let suffix = kind.suffix();
    let stem = &base[..base.len() - suffix.len()];
    let mut chars = suffix.chars();
    let first = chars.next().map(|c| c.to_ascii_uppercase()).unwrap_or('_');
    format!("{stem}bpmn{first}{}", chars.as_str())
}

/// Render a concrete plan as a BPMN process.
pub fn render(
    plan: &ConcretePlan,
    topology: &Topology,
    templates: &Templates,
) -> Result<RenderedPlan> {
    let kind = &plan.plan.kind;
    let name = bpmn_plan_name(topology, kind);
    let namespace = plan_namespace(topology, kind);
    // Plan inputs become process variables of the same (NCName) name.
    let mut unique = Unique::new();
    let mut inputs = HashMap::new();
    let mut parameters = Vec::new();
    for i in &plan.inputs {
        let v = unique.name(ncname(i));
        inputs.insert(i.clone(), v.clone());
        parameters.push(PlanParameter {
            name: v,
            required: true,
        });
    }
    let bus = unique.name(BUS_URL_INPUT.to_string());
    parameters.push(PlanParameter {
        name: bus.clone(),
        required: true,
    });
    let taken: Vec<String> = parameters.iter().map(|p| p.name.clone()).collect();
    let names = Names::new(topology, plan, &taken);
    let mut vars = Unique::new();
    for t in &taken {
        vars.name(t.clone());
    }
    let mut cx = Ctx {
        topology,
        names,
        inputs,
        bus,
        vars,
        properties: PropertyFiles::default(),
    };

    let mut process = Plane::new("plan");
    let start = process.add("plan_start", "plan requested", Kind::Start(None));
    let mut main = Chain::new(&mut process, start);
    main.then(
        "plan_init".into(),
        "initialise variables".into(),
        inline_script(init_script(&cx, plan, &parameters)),
    );
    let (start_state, end_state) = match kind {
        PlanKind::Build => (Some("CREATING"), Some("CREATED")),
        PlanKind::Termination => (Some("DELETING"), Some("DELETED")),
        _ => (None, None),
    };
    if *kind == PlanKind::Build {
        main.then(
            "plan_createServiceInstance".into(),
            "create service instance".into(),
            Kind::Http(Box::new(graph::Http {
                method: "POST",
                url: concat(&[Part::Var(&cx.input(INSTANCE_DATA_API_URL))]),
                content_type: Some("application/xml"),
                accept: "application/xml",
                payload: Some(Value::Groovy(format!(
                    "'<api:correlationID xmlns:api=\"http://opentosca.org/api\">' + x({}) + '</api:correlationID>'",
                    var(&cx.input(CORRELATION_ID))
                ))),
                outputs: vec![
                    steps::status_check(),
                    ("serviceInstanceURL".into(), Value::Shared(Shared::InstanceUrl)),
                    ("serviceInstanceID".into(), Value::Shared(Shared::InstanceId)),
                ],
            })),
        );
    }
    if let Some(s) = start_state {
        main.then(
            "plan_serviceInstanceStarting".into(),
            format!("service instance {s}"),
            service_state(s),
        );
    }
    let activities = activities_subprocess(&mut cx, plan);
    let act = main.then(
        "plan_activities".into(),
        format!("{} activities", kind.slug()),
        Kind::Sub(Box::new(activities)),
    );
    if let Some(s) = end_state {
        main.then(
            "plan_serviceInstanceDone".into(),
            format!("service instance {s}"),
            service_state(s),
        );
    }
    main.then(
        "plan_outputs".into(),
        "set outputs".into(),
        inline_script(outputs_script(&cx, plan)),
    );
    main.then("plan_end".into(), "plan done".into(), Kind::End(None));
    // The failure path.
    let catch = process.add(
        "plan_catch",
        "plan failed",
        Kind::Boundary {
            host: act,
            error: true,
        },
    );
    let mut fail = Chain::new(&mut process, catch);
    fail.then(
        "plan_recordFailure".into(),
        "service instance ERROR".into(),
        Kind::Http(Box::new(graph::Http {
            method: "PUT",
            url: Value::Text("${serviceInstanceURL}/state".into()),
            content_type: Some("text/plain"),
            accept: "application/json",
            payload: Some(steps::text("ERROR")),
            outputs: vec![("httpStatus".into(), Value::Text("${statusCode}".into()))],
        })),
    );
    fail.then(
        "plan_failed".into(),
        "plan failed".into(),
        Kind::End(Some(ERR_PLAN)),
    );

    let diagrams = layout::layout(&name, &process);
    let title = format!("{} plan of {}", kind.slug(), topology.service_template.id);
    let st = &topology.service_template;
    let mut used = Used::default();
    let bpmn = xml::write(
        templates,
        &mut used,
        &cx.properties,
        &xml::Document {
            title: &title,
            service_template: &format!("{{{}}}{}", st.namespace, st.id),
            process: &name,
            namespace: &namespace,
            errors: &[
                (ERR_FAILURE, ERROR_FAILURE),
                (ERR_ACTIVITY, ERROR_ACTIVITY),
                (ERR_PLAN, ERROR_PLAN),
            ],
            inputs: &parameters,
            plane: &process,
            diagrams: &diagrams,
        },
    )?;
    let mut outputs = vec![CORRELATION_ID.to_string()];
    if *kind == PlanKind::Build {
        outputs.push("instanceId".into());
    }
    let mut out_unique = Unique::new();
    for o in &outputs {
        out_unique.name(o.clone());
    }
    for (n, _) in &plan.outputs {
        outputs.push(out_unique.name(ncname(n)));
    }
    Ok(RenderedPlan {
        name: name.clone(),
        kind: kind.clone(),
        language: Language::Bpmn,
        files: std::iter::once(PlanFile {
            name: format!("{name}.bpmn"),
            data: bpmn.into_bytes(),
        })
        .chain(
            used.files(&cx.properties, &cx.bus)
                .into_iter()
                .map(|(name, text)| PlanFile {
                    name,
                    data: text.into_bytes(),
                }),
        )
        .collect(),
        inputs: parameters,
        outputs,
    })
}

fn service_state(state: &str) -> Kind {
    Kind::Http(Box::new(graph::Http {
        method: "PUT",
        url: Value::Text("${serviceInstanceURL}/state".into()),
        content_type: Some("text/plain"),
        accept: "application/json",
        payload: Some(steps::text(state)),
        outputs: vec![steps::status_check()],
    }))
}

/// A script task with an inline script.
fn inline_script(body: String) -> Kind {
    Kind::Script(Box::new(Script {
        script: Value::Groovy(body),
        locals: Vec::new(),
    }))
}

/// The variables a plan starts with: plan inputs the caller left out
/// (empty, as `v()` reads them), fixed ones, instance variables, and the
/// property variables (modelled values or inputs for new instances; empty
/// where the plan reads them from the instance data).
fn init_script(cx: &Ctx, plan: &ConcretePlan, inputs: &[PlanParameter]) -> String {
    let mut s = String::new();
    if !inputs.is_empty() {
        let names: Vec<String> = inputs.iter().map(|p| literal(&p.name)).collect();
        s.push_str(&format!(
            "[{}].each {{ n -> if (binding.variables.get(n) == null) execution.setVariable(n, '') }}\n",
            names.join(", ")
        ));
    }
    let set = |s: &mut String, name: &str, value: String| {
        s.push_str(&format!(
            "execution.setVariable({}, {value})\n",
            literal(name)
        ));
    };
    let entry = var(&cx.input(CSAR_ENTRYPOINT));
    set(&mut s, "csarID", format!("last({entry})"));
    set(&mut s, "httpStatus", "0".into());
    if plan.plan.kind == PlanKind::Build {
        for v in [
            "serviceTemplateURL",
            "serviceInstanceURL",
            "serviceInstanceID",
        ] {
            set(&mut s, v, "''".into());
        }
        set(
            &mut s,
            "serviceTemplateURL",
            format!(
                "{}.replaceAll('/instances/?$', '')",
                var(&cx.input(INSTANCE_DATA_API_URL))
            ),
        );
    } else {
        let si = var(&cx.input(SERVICE_INSTANCE_URL));
        set(
            &mut s,
            "serviceInstanceURL",
            format!("{si}.replaceAll('/+$', '')"),
        );
        set(&mut s, "serviceInstanceID", format!("last({si})"));
        set(
            &mut s,
            "serviceTemplateURL",
            format!("{si}.replaceAll('/instances/[^/]+/?$', '')"),
        );
    }
    let fresh = plan.plan.kind == PlanKind::Build;
    let topology = cx.topology;
    for &t in &cx.names.templates {
        set(&mut s, cx.names.url(t), "''".into());
        set(&mut s, cx.names.id(t), "''".into());
        for ((_, v), value) in cx
            .names
            .props_of(topology, t)
            .zip(topology.properties(t).values())
        {
            let e = if fresh {
                match (value.as_input(), value.literal()) {
                    (Some(i), _) => var(&cx.input(i)),
                    (None, Some(l)) => literal(&l),
                    (None, None) => {
                        cx.expr(&crate::plugins::params::value_binding(topology, t, value))
                    }
                }
            } else {
                "''".into()
            };
            set(&mut s, v, e);
        }
    }
    s
}

/// The plan outputs as process variables.
fn outputs_script(cx: &Ctx, plan: &ConcretePlan) -> String {
    let mut s = format!(
        "execution.setVariable('CorrelationID', {})\n",
        var(&cx.input(CORRELATION_ID))
    );
    let mut out_unique = Unique::new();
    out_unique.name("CorrelationID".into());
    if plan.plan.kind == PlanKind::Build {
        out_unique.name("instanceId".into());
        s.push_str("execution.setVariable('instanceId', v('serviceInstanceURL'))\n");
    }
    for (n, b) in &plan.outputs {
        s.push_str(&format!(
            "execution.setVariable({}, {})\n",
            literal(&out_unique.name(ncname(n))),
            cx.expr(b)
        ));
    }
    s
}

/// `plan_activities`: the plan graph, with gateways where it forks and joins.
fn activities_subprocess(cx: &mut Ctx, plan: &ConcretePlan) -> Sub {
    let p = &plan.plan;
    let mut plane = Plane::new("plan_activities");
    let start = plane.add("plan_activitiesStart", "", Kind::Start(None));
    let n = p.activities.len();
    let graph = Adjacency::new(n, p.edges.iter().map(|e| (e.from, e.to)));
    let sources: Vec<usize> = (0..n).filter(|&i| graph.incoming(i).is_empty()).collect();
    let sinks: Vec<usize> = (0..n).filter(|&i| graph.outgoing(i).is_empty()).collect();
    // Activities, each with its error boundary event and compensation handler.
    let mut node = Vec::with_capacity(n);
    for (i, a) in p.activities.iter().enumerate() {
        let sub = activity(cx, plan, i);
        let label = format!("{} {}", cx.topology.template_id(a.template), a.kind.name());
        let empty = sub.plane.nodes.len() <= 2;
        let host = plane.add(a.id.clone(), label, Kind::Sub(Box::new(sub)));
        node.push(host);
        if !empty {
            // Any error ends the activity: mark its instance ERROR (a
            // termination activity does that per instance, inside its loop)
            // and throw the activity error.
            let catch = plane.add(
                format!("{}_catch", a.id),
                "",
                Kind::Boundary { host, error: true },
            );
            let mut chain = Chain::new(&mut plane, catch);
            if !plan.bodies[i].per_instance {
                chain.then(
                    format!("{}_markError", a.id),
                    "instance ERROR".into(),
                    steps::mark_error(cx, a.template),
                );
            }
            chain.then(
                format!("{}_failed", a.id),
                String::new(),
                Kind::End(Some(ERR_ACTIVITY)),
            );
        }
        let comp = &plan.bodies[i].compensation;
        if !comp.is_empty() {
            let b = plane.add(
                format!("{}_compensation", a.id),
                "",
                Kind::Boundary { host, error: false },
            );
            let mut undo = Plane::new(format!("{}_undo", a.id));
            let s = undo.add(format!("{}_undoStart", a.id), "", Kind::Start(None));
            let mut chain = Chain::new(&mut undo, s);
            for (k, step) in comp.iter().enumerate() {
                steps::step(cx, &mut chain, step, &format!("{}_c{}", a.id, k + 1));
            }
            chain.then(format!("{}_undoEnd", a.id), String::new(), Kind::End(None));
            let h = plane.add(
                format!("{}_undo", a.id),
                format!("undo {}", cx.topology.template_id(a.template)),
                Kind::Sub(Box::new(Sub {
                    plane: undo,
                    expanded: false,
                    repeat: Repeat::Compensation,
                    locals: Vec::new(),
                    outputs: Vec::new(),
                })),
            );
            plane.associate(format!("{}_undoLink", a.id), b, h);
        }
    }
    // Where control enters and leaves each activity: gateways only where
    // the graph forks or joins.
    let mut entry = node.clone();
    let mut exit = node.clone();
    for i in 0..n {
        if graph.incoming(i).len() > 1 {
            let j = plane.add(format!("{}_join", p.activities[i].id), "", Kind::And);
            plane.connect(j, node[i]);
            entry[i] = j;
        }
        if graph.outgoing(i).len() > 1 {
            let f = plane.add(format!("{}_fork", p.activities[i].id), "", Kind::And);
            plane.connect(node[i], f);
            exit[i] = f;
        }
    }
    let end = plane.add("plan_activitiesEnd", "", Kind::End(None));
    if n == 0 {
        plane.connect(start, end);
    }
    // Start: straight into the single source, or a fork into all of them.
    let from_start = if sources.len() > 1 {
        let f = plane.add("plan_fork", "", Kind::And);
        plane.connect(start, f);
        f
    } else {
        start
    };
    for &i in &sources {
        plane.connect(from_start, entry[i]);
    }
    for e in &p.edges {
        plane.connect(exit[e.from], entry[e.to]);
    }
    let to_end = if sinks.len() > 1 {
        let j = plane.add("plan_join", "", Kind::And);
        plane.connect(j, end);
        j
    } else {
        end
    };
    for &i in &sinks {
        plane.connect(exit[i], to_end);
    }
    // Failure of any activity: compensate the finished ones, fail the plan.
    let mut on_failure = Plane::new("plan_onFailure");
    let s = on_failure.add(
        "plan_onFailureStart",
        "activity failed",
        Kind::Start(Some(ERR_ACTIVITY)),
    );
    let mut chain = Chain::new(&mut on_failure, s);
    chain.then(
        "plan_undo".into(),
        "undo finished activities".into(),
        Kind::Compensate,
    );
    chain.then(
        "plan_abort".into(),
        String::new(),
        Kind::End(Some(ERR_PLAN)),
    );
    plane.add(
        "plan_onFailure",
        "on failure",
        Kind::Sub(Box::new(Sub {
            plane: on_failure,
            expanded: true,
            repeat: Repeat::OnError,
            locals: Vec::new(),
            outputs: Vec::new(),
        })),
    );
    Sub {
        plane,
        expanded: true,
        repeat: Repeat::Once,
        locals: Vec::new(),
        outputs: Vec::new(),
    }
}

/// One activity: its steps in a collapsed subprocess (its id is the
/// activity id); termination activities loop over the live instances.
fn activity(cx: &mut Ctx, plan: &ConcretePlan, i: usize) -> Sub {
    let a = &plan.plan.activities[i];
    let body = &plan.bodies[i];
    let mut plane = Plane::new(a.id.clone());
    let start = plane.add(format!("{}_start", a.id), "", Kind::Start(None));
    if body.per_instance {
        each_instance(cx, &mut plane, start, &a.id, a.template, body);
    } else {
        let mut chain = Chain::new(&mut plane, start);
        for (k, step) in body.steps.iter().enumerate() {
            steps::step(cx, &mut chain, step, &format!("{}_s{}", a.id, k + 1));
        }
        chain.then(format!("{}_end", a.id), String::new(), Kind::End(None));
    }
    Sub {
        plane,
        expanded: false,
        repeat: Repeat::Once,
        locals: Vec::new(),
        outputs: Vec::new(),
    }
}

/// The error event subprocess of a loop turn: mark the turn's instance
/// ERROR and end the activity with the activity error. (It runs inside the
/// turn, where the instance's variables are.)
fn on_error(cx: &Ctx, plane: &mut Plane, prefix: &str, t: TemplateRef) {
    let mut p = Plane::new(format!("{prefix}_onError"));
    let s = p.add(
        format!("{prefix}_errorStart"),
        "call failed",
        Kind::Start(Some(ERR_FAILURE)),
    );
    let mut chain = Chain::new(&mut p, s);
    chain.then(
        format!("{prefix}_markError"),
        "instance ERROR".into(),
        steps::mark_error(cx, t),
    );
    chain.then(
        format!("{prefix}_abort"),
        String::new(),
        Kind::End(Some(ERR_ACTIVITY)),
    );
    plane.add(
        format!("{prefix}_onError"),
        "on error",
        Kind::Sub(Box::new(Sub {
            plane: p,
            expanded: true,
            repeat: Repeat::OnError,
            locals: Vec::new(),
            outputs: Vec::new(),
        })),
    );
}

/// A termination activity: list the live instances, then run the steps
/// once per instance (a loop that checks before the first turn), with the
/// instance variables local to each turn so parallel branches never share
/// them.
fn each_instance(
    cx: &mut Ctx,
    plane: &mut Plane,
    start: usize,
    a: &str,
    subject: TemplateRef,
    body: &crate::plugins::ActivityBody,
) {
    let t = cx.topology;
    let ids = cx.poll_var(a, "ids");
    let count = cx.poll_var(a, "count");
    let index = cx.poll_var(a, "index");
    let path = steps::instances_path(cx, subject);
    let mut chain = Chain::new(plane, start);
    chain.then(
        format!("{a}_list"),
        format!("list instances of {}", t.template_id(subject)),
        Kind::Http(Box::new(graph::Http {
            method: "GET",
            url: concat(&[
                Part::Var("serviceTemplateURL"),
                Part::Lit(&format!("{path}?serviceInstanceId=")),
                Part::Var("serviceInstanceID"),
            ]),
            content_type: None,
            accept: "application/json",
            payload: None,
            outputs: vec![
                steps::status_check(),
                (ids.clone(), Value::Shared(Shared::InstanceIds)),
                (count.clone(), Value::Shared(Shared::InstanceCount)),
                (index.clone(), Value::Groovy("0".into())),
            ],
        })),
    );
    let any = chain.then(format!("{a}_any"), "any?".into(), Kind::Xor(None));
    let none = chain
        .plane
        .add(format!("{a}_none"), "none", Kind::End(None));
    chain
        .plane
        .connect_if(any, none, Some(format!("${{{count} == 0}}")), "none");
    chain.default_next();
    let next = chain.then(format!("{a}_next"), String::new(), Kind::Xor(None));
    // One turn: locals for the instance and everything read below it.
    let current = format!("{}.split(',')[{} as int]", var(&ids), var(&index));
    let mut locals = vec![
        (
            cx.names.id(subject).to_string(),
            Value::Groovy(current.clone()),
        ),
        (
            cx.names.url(subject).to_string(),
            Value::Groovy(format!(
                "{} + {} + '/' + {current}",
                var("serviceTemplateURL"),
                literal(&path)
            )),
        ),
    ];
    let empty = || Value::Text("${''}".into());
    let mut local_templates = vec![subject];
    for s in &body.steps {
        if let crate::plugins::steps::Step::FollowRelationship { to, .. } = s {
            local_templates.push(TemplateRef::Node(*to));
        }
    }
    for (k, &lt) in local_templates.iter().enumerate() {
        if k > 0 {
            locals.push((cx.names.url(lt).to_string(), empty()));
            locals.push((cx.names.id(lt).to_string(), empty()));
        }
        for (_, v) in cx.names.props_of(t, lt) {
            locals.push((v.to_string(), empty()));
        }
    }
    locals.dedup_by(|x, y| x.0 == y.0);
    let mut turn = Plane::new(format!("{a}_each"));
    let ts = turn.add(format!("{a}_turnStart"), "", Kind::Start(None));
    let mut inner = Chain::new(&mut turn, ts);
    if let Some(kind) = steps::load_properties(cx, subject) {
        inner.then(
            format!("{a}_load"),
            format!("load properties of {}", t.template_id(subject)),
            kind,
        );
    }
    for (k, step) in body.steps.iter().enumerate() {
        steps::step(cx, &mut inner, step, &format!("{a}_s{}", k + 1));
    }
    inner.then(format!("{a}_turnEnd"), String::new(), Kind::End(None));
    on_error(cx, &mut turn, &format!("{a}_turn"), subject);
    let each = chain.then(
        format!("{a}_each"),
        format!("each instance of {}", t.template_id(subject)),
        Kind::Sub(Box::new(Sub {
            plane: turn,
            expanded: false,
            repeat: Repeat::Once,
            locals,
            outputs: vec![(
                index.clone(),
                Value::Groovy(format!("({} as int) + 1", var(&index))),
            )],
        })),
    );
    let _ = each;
    let more = chain.then(format!("{a}_more"), "more?".into(), Kind::Xor(None));
    chain
        .plane
        .connect_if(more, next, Some(format!("${{{index} < {count}}}")), "next");
    chain.default_next();
    chain.then(format!("{a}_end"), String::new(), Kind::End(None));
}
