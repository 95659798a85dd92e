//! The process of a BPMN plan: start, initialise the variables, create
//! (build) or find (other plans) the service instance, set the states of
//! the plan and service instances, the activities ([`super::activities`]),
//! the outputs, and the end; a failure of the activities fails the plan
//! through the error event subprocess `_failure`.
//!
//! In: the plan and its [`Ctx`]. Out: the process's plane, with the
//! routing of `on_failure` and the initialisation scripts, which the
//! activities and scripts built later need.

use super::activities;
use super::calls;
use super::chain::{Chain, Prefix};
use super::ctx::{Ctx, PLAN_INSTANCE_URL};
use super::errors::{ERR_FAILURE, ERR_PLAN};
use super::expr::concat;
use super::graph::{self, Kind, Plane, Repeat, Script, Str, Sub, Text, Value};
use super::groovy::{Part, push_var};
use super::init::{Init, set_variable};
use super::routing::Routing;
use super::scripts::Shared;
use crate::plan::PlanKind;
use crate::plugins::ConcretePlan;
use crate::plugins::complete::{CORRELATION_ID, INSTANCE_DATA_API_URL};
use crate::render::collected::{collected_outputs, output_names};
use crate::render::rendered::PlanParameter;
use crate::render::side::TARGET_VARS;

/// The process of a plan, and what building its activities needs.
pub(crate) struct Process {
    /// The process.
    pub(crate) plane: Plane,
    /// The routing of `on_failure`.
    pub(crate) routing: Routing,
    /// The initialisation scripts.
    pub(crate) init: Init,
}

/// The process of `plan` (named `name`, with `parameters`).
pub(crate) fn build(
    cx: &mut Ctx,
    plan: &ConcretePlan,
    name: &str,
    parameters: &[PlanParameter],
) -> Process {
    let kind = &plan.plan.kind;
    // Its few flows are `plan_process_f<n>`: the short `plan_f<n>` go to the
    // many of the plan graph (`plan_activities`).
    let mut process = Plane::new(cx.plan_id("_process"));
    let (id, label) = (cx.plan_id("_start"), cx.text.add("plan requested"));
    let start = process.add(id, label, Kind::Start(None));
    let mut main = Chain::new(&mut process, start);
    let routing = Routing::new(&plan.plan, |a| cx.poll_var(Prefix::of(a), "outcome"));
    let init = Init::new(cx, plan, name, parameters, &routing);
    init_scripts(cx, &mut main, &init);
    let kind_running = plan_state(&mut cx.text, "RUNNING");
    let (id, label) = (cx.plan_id("_planRunning"), cx.text.add("plan RUNNING"));
    main.then(id, label, kind_running);
    let (start_state, end_state) = match kind {
        PlanKind::Build | PlanKind::Defrost => (Some("CREATING"), Some("CREATED")),
        PlanKind::Termination | PlanKind::Freeze => (Some("DELETING"), Some("DELETED")),
        PlanKind::Transformation(_) => (Some("MIGRATING"), Some("MIGRATED")),
        _ => (None, None),
    };
    if kind.creates_service_instance() {
        create_service_instance(cx, &mut main, None);
    }
    let target = cx.topology.target.is_some();
    if target {
        create_service_instance(cx, &mut main, Some("target"));
        let url = cx.text.add(TARGET_VARS[2]);
        let kind = calls::state_call(&mut cx.text, url, "CREATING");
        let id = cx.plan_id("_targetServiceInstanceStarting");
        let label = cx.text.add("target service instance CREATING");
        main.then(id, label, kind);
    }
    if let Some(s) = start_state {
        let kind = service_state(&mut cx.text, s);
        let id = cx.plan_id("_serviceInstanceStarting");
        let label = cx.id("service instance ", s);
        main.then(id, label, kind);
    }
    let activities = activities::subprocess(cx, plan, &routing);
    let (id, label) = (cx.plan_id("_activities"), cx.id(kind.slug(), " activities"));
    let act = main.then(id, label, Kind::Sub(Box::new(activities)));
    if target {
        let url = cx.text.add(TARGET_VARS[2]);
        let kind = calls::state_call(&mut cx.text, url, "CREATED");
        let id = cx.plan_id("_targetServiceInstanceDone");
        let label = cx.text.add("target service instance CREATED");
        main.then(id, label, kind);
    }
    if let Some(s) = end_state {
        let kind = service_state(&mut cx.text, s);
        let id = cx.plan_id("_serviceInstanceDone");
        let label = cx.id("service instance ", s);
        main.then(id, label, kind);
    }
    let outputs = outputs_script(cx, plan);
    let (id, label) = (cx.plan_id("_outputs"), cx.text.add("set outputs"));
    main.then(id, label, outputs);
    let finished = plan_state(&mut cx.text, "FINISHED");
    let (id, label) = (cx.plan_id("_planFinished"), cx.text.add("plan FINISHED"));
    main.then(id, label, finished);
    let (id, label) = (cx.plan_id("_end"), cx.text.add("plan done"));
    main.then(id, label, Kind::End(None));
    // A failed activity has failed the activities (after compensating the
    // finished ones): fail the plan as a failed call of its own fails it.
    let (id, label) = (cx.plan_id("_catch"), cx.text.add("activities failed"));
    let catch = process.add(
        id,
        label,
        Kind::Boundary {
            host: graph::small(act),
            error: true,
            routes: false,
            code: None,
            message: None,
        },
    );
    let id = cx.plan_id("_rethrow");
    let rethrow = process.add(id, Str::default(), Kind::End(Some(ERR_FAILURE)));
    process.connect(catch, rethrow);
    let failure = failure_subprocess(cx);
    let (id, label) = (cx.plan_id("_failure"), cx.text.add("plan failed"));
    process.add(id, label, Kind::Sub(Box::new(failure)));
    Process {
        plane: process,
        routing,
        init,
    }
}

/// The chain of initialisation scripts, written when the writer reaches
/// them ([`Value::Later`]).
fn init_scripts(cx: &mut Ctx, chain: &mut Chain, init: &Init) {
    for k in 0..init.scripts() {
        let script = Kind::Script(Box::new(Script {
            script: Value::Later(graph::small(k)),
            locals: Vec::new(),
        }));
        let (id, label) = match k {
            0 => (cx.plan_id("_init"), cx.text.add("initialise variables")),
            k => (
                cx.plan_id(&format!("_init_{}", k + 1)),
                cx.text
                    .fmt(format_args!("initialise variables ({})", k + 1)),
            ),
        };
        chain.then(id, label, script);
    }
}

/// The POST to the instance API that creates the service instance: the
/// plan's own (`None`), or a transformation's target's (`Some("target")`).
fn create_service_instance(cx: &mut Ctx, main: &mut Chain, target: Option<&str>) {
    let api = cx.input(INSTANCE_DATA_API_URL);
    let correlation = cx.input(CORRELATION_ID);
    let prefix = cx.plan;
    let text = &mut cx.text;
    let (url, instance_url, instance_id) = match target {
        None => (
            concat(text, &[Part::Var(&api)]),
            "serviceInstanceURL",
            "serviceInstanceID",
        ),
        Some(_) => (
            concat(text, &[Part::Var(TARGET_VARS[1]), Part::Lit("/instances")]),
            TARGET_VARS[2],
            TARGET_VARS[3],
        ),
    };
    let http = graph::Http {
        method: "POST",
        url,
        content_type: Some("application/xml"),
        accept: "application/xml",
        payload: Some(calls::groovy(text, |o| {
            o.push_str("'<api:correlationID xmlns:api=\"http://opentosca.org/api\">' + x(");
            push_var(o, &correlation);
            o.push_str(") + '</api:correlationID>'");
        })),
        outputs: vec![
            calls::status_check(text),
            (text.add(instance_url), Value::Shared(Shared::InstanceUrl)),
            (text.add(instance_id), Value::Shared(Shared::InstanceId)),
        ],
    };
    let (id, label) = match target {
        None => (
            text.fmt(format_args!("{prefix}_createServiceInstance")),
            text.add("create service instance"),
        ),
        Some(_) => (
            text.fmt(format_args!("{prefix}_createTargetServiceInstance")),
            text.add("create target service instance"),
        ),
    };
    main.then(id, label, Kind::Http(Box::new(http)));
}

/// The error event subprocess of the process: whatever failed (a call of
/// the plan's own, or an activity, after the finished ones were
/// compensated: `_rethrow`), record the failure on the service instance
/// where there is one, set the plan instance FAILED, and end in the plan's
/// error.
fn failure_subprocess(cx: &mut Ctx) -> Sub {
    let prefix = cx.plan;
    let text = &mut cx.text;
    let mut plane = Plane::new(text.fmt(format_args!("{prefix}_failure")));
    let (id, label) = (
        text.fmt(format_args!("{prefix}_failureStart")),
        text.add("plan failed"),
    );
    let (code, message) = (text.add("failedCode"), text.add("failureMessage"));
    let start = plane.add(
        id,
        label,
        Kind::ErrorStart {
            error: Some(ERR_FAILURE),
            code: Some(code),
            message: Some(message),
        },
    );
    let mut fail = Chain::new(&mut plane, start);
    let (id, label) = (
        text.fmt(format_args!("{prefix}_instanceKnown")),
        text.add("service instance?"),
    );
    let split = fail.then(id, label, Kind::Xor(None));
    let record = calls::record_state(text, "serviceInstanceURL", "ERROR");
    let (id, label) = (
        text.fmt(format_args!("{prefix}_recordFailure")),
        text.add("service instance ERROR"),
    );
    // Recording is the default: the failure of a build plan that has no
    // service instance yet is the one case without.
    fail.default_next();
    fail.then(id, label, record);
    let id = text.fmt(format_args!("{prefix}_instanceMerge"));
    let merge = fail.then(id, Str::default(), Kind::Xor(None));
    let unknown = text.add("${empty serviceInstanceURL}");
    fail.plane.connect_if(split, merge, Some(unknown), "none");
    let (id, label) = (
        text.fmt(format_args!("{prefix}_planFailed")),
        text.add("plan FAILED"),
    );
    let failed = calls::record_state(text, PLAN_INSTANCE_URL, "FAILED");
    fail.then(id, label, failed);
    let (id, label) = (
        text.fmt(format_args!("{prefix}_failed")),
        text.add("plan failed"),
    );
    fail.then(id, label, Kind::End(Some(ERR_PLAN)));
    Sub {
        plane,
        expanded: true,
        repeat: Repeat::OnError,
        locals: Vec::new(),
        outputs: Vec::new(),
        logged: false,
    }
}

/// A task that sets the state of the plan's instance (a call of
/// `toscanini_state`; the failure path records it instead).
fn plan_state(text: &mut Text, state: &str) -> Kind {
    let url = text.add(PLAN_INSTANCE_URL);
    calls::state_call(text, url, state)
}

/// A task that sets the state of the service instance.
fn service_state(text: &mut Text, state: &str) -> Kind {
    let url = text.add("serviceInstanceURL");
    calls::state_call(text, url, state)
}

/// A script task with an inline script.
fn inline_script(text: &mut Text, body: &str) -> Kind {
    Kind::Script(Box::new(Script {
        script: Value::Groovy(text.add(body)),
        locals: Vec::new(),
    }))
}

/// The plan outputs as process variables. One an activity's turns set
/// ([`crate::render::collected`]) keeps the value the last turn left.
fn outputs_script(cx: &mut Ctx, plan: &ConcretePlan) -> Kind {
    let mut s = String::new();
    let correlation = cx.input(CORRELATION_ID);
    set_variable(&mut s, "CorrelationID", &|o| push_var(o, &correlation));
    if plan.plan.kind.creates_service_instance() {
        set_variable(&mut s, "instanceId", &|o| push_var(o, "serviceInstanceURL"));
    } else if cx.topology.target.is_some() {
        // A transformation answers with the instance it made.
        set_variable(&mut s, "instanceId", &|o| push_var(o, TARGET_VARS[2]));
    }
    let collected = collected_outputs(plan);
    for (((_, b), name), by) in plan
        .outputs
        .iter()
        .zip(output_names(cx.topology, plan))
        .zip(collected)
    {
        let e = match by {
            Some(_) => {
                let mut e = String::new();
                push_var(&mut e, &name);
                e
            }
            None => cx.expr(b),
        };
        set_variable(&mut s, &name, &|o| o.push_str(&e));
    }
    inline_script(&mut cx.text, &s)
}
