//! The BPMN 2.0 backend, for Camunda 7 and Operaton (and any engine that
//! runs the Camunda extensions it uses: the Connect `http-connector` and
//! Groovy scripts, both shipped with their distributions).
//!
//! In: a [`ConcretePlan`] and the topology (for names). Out: a
//! [`RenderedPlan`] holding the `.bpmn` file (an executable process with
//! diagram interchange) and the shared Groovy scripts it references as
//! deployment resources ([`scripts`]).
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
//! error boundary event of the activity marks the instance ERROR (in a
//! termination activity, an error event subprocess in each loop turn does,
//! where the instance's variables are) and ends in an error end event; the
//! event subprocess of `plan_activities` compensates the finished
//! activities (e.g. `terminateVM` after `createVM`), and the boundary event
//! of `plan_activities` records the failure on the service instance and
//! ends the process in the error end event `plan_failed`.
//!
//! Imperative workflows: a step's filter is a script (or, when it reads
//! the state, a GET of the instance state) that computes whether the
//! instance meets it, and an exclusive gateway that ends the activity (in
//! a termination-style activity, the turn of that instance) where it does
//! not; a precondition throws `ToscaniniFailure` where it does not hold,
//! which fails the plan as above. `on_failure` routing is [`routing`]: a
//! routed activity catches its own failure, and the activities on the
//! paths not taken are skipped (by the token where no paths join, by
//! gateways inside the activities where they do).
//!
//! The model's text (ids, labels, values) lives in one [`graph::Text`] per
//! plan; nodes refer to it by range, so building a plan of tens of
//! thousands of elements does not allocate per element. The steps of the
//! activities and their compensation handlers are not in the model up
//! front: they are [`graph::Kind::Deferred`], built when the writer reaches
//! them (in a text of their own, reused) and dropped once written, so that
//! memory holds the plan graph and one activity, not every step of a
//! 100k-node plan.

pub(crate) mod bases;
mod condition;
mod expr;
pub(crate) mod graph;
mod init;
pub(crate) mod layout;
pub(crate) mod routing;
pub(crate) mod scripts;
mod steps;
pub(crate) mod xml;

use std::collections::HashMap;
use std::fmt::Write as _;

use self::expr::{Part, concat, push_literal, push_var};
use self::graph::{Adjacency, Kind, Plane, Repeat, Script, Str, Sub, Text, Value};
use self::init::{Init, set_variable};
use self::routing::{Exit, Routing};
use self::scripts::{PropertyFiles, Shared, Used};
use self::steps::{Chain, Prefix};
use super::output::{PlanOutput, Written};
use super::templates::Templates;
use super::{Language, PlanParameter, RenderedPlan};
use crate::error::Result;
use crate::model::{TemplateRef, Topology};
use crate::names::Unique;
use crate::names::ncname;
use crate::plan::naming::{plan_name, plan_namespace};
use crate::plan::{PlanKind, Reason};
use crate::plugins::ConcretePlan;
use crate::plugins::complete::{CORRELATION_ID, INSTANCE_DATA_API_URL};
use crate::plugins::steps::Binding;
use crate::render::vars::{Vars, outside_families, word};
use bases::Bases;

/// Input with the management bus REST endpoint (`…/ManagementBus/v1/invoker`).
pub(crate) const BUS_URL_INPUT: &str = "ManagementBusURL";

/// Error thrown by a failing call (HTTP status, bus fault).
pub(crate) const ERROR_FAILURE: &str = "ToscaniniFailure";
/// Error an activity ends with when it failed.
pub(crate) const ERROR_ACTIVITY: &str = "ToscaniniActivityFailed";
/// Error the plan ends with when it failed.
pub(crate) const ERROR_PLAN: &str = "ToscaniniPlanFailed";

/// The ids of the reusable processes, their elements and diagrams
/// (`templates/bpmn/library.bpmn`, `library-diagrams.bpmn`), read from the
/// templates so that they cannot drift apart: no element of the plan may
/// have one.
pub fn library_ids() -> &'static [String] {
    static IDS: std::sync::OnceLock<Vec<String>> = std::sync::OnceLock::new();
    IDS.get_or_init(|| {
        ["bpmn/library.bpmn", "bpmn/library-diagrams.bpmn"]
            .iter()
            .flat_map(|t| Templates::raw(t).split(" id=\"").skip(1))
            .filter_map(|rest| rest.split('"').next())
            .map(String::from)
            .collect()
    })
}

/// Error element ids.
const ERR_FAILURE: &str = "toscanini_failure";
const ERR_ACTIVITY: &str = "toscanini_activityFailed";
const ERR_PLAN: &str = "toscanini_planFailed";

/// Variables every plan sets before its activities run.
pub(crate) const FIXED: [&str; 6] = [
    "csarID",
    "serviceTemplateURL",
    "serviceInstanceURL",
    "serviceInstanceID",
    PLAN_INSTANCE_URL,
    "httpStatus",
];

/// The variable holding the URL of the plan's own instance at the
/// container: `{serviceTemplateURL}/buildplans/<plan>/instances/<CorrelationID>`
/// for a build plan, `{serviceInstanceURL}/managementplans/<plan>/instances/<CorrelationID>`
/// for the others (as the OpenTOSCA plan builder computes it).
pub(crate) const PLAN_INSTANCE_URL: &str = "planInstanceURL";

/// What the step renderers share.
pub(crate) struct Ctx<'a> {
    topology: &'a Topology,
    names: Vars,
    inputs: HashMap<String, String>,
    bus: String,
    vars: Unique,
    properties: PropertyFiles,
    /// The text of the model: ids, labels, values.
    text: Text,
    /// The prefix of the plan's own element ids ([`bases`]).
    plan: &'a str,
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
        let mut out = String::new();
        expr::expr(&mut out, b, self.topology, &self.names, &|n| self.input(n));
        out
    }

    /// A variable of one element (poll loops, instance lists): a JUEL
    /// identifier, unique in the plan.
    fn poll_var(&mut self, element: Prefix, what: &str) -> String {
        let mut base = String::with_capacity(element.base.len() + 16);
        let _ = write!(base, "{element}");
        let mut base = word(&base);
        base.push('_');
        base.push_str(what);
        self.vars.name(outside_families(base))
    }

    /// The id of one of the plan's own elements.
    fn plan_id(&mut self, suffix: &str) -> Str {
        let plan = self.plan;
        self.text.fmt(format_args!("{plan}{suffix}"))
    }

    /// An id or label made of a prefix and a suffix.
    fn id(&mut self, prefix: impl std::fmt::Display, suffix: &str) -> Str {
        self.text.fmt(format_args!("{prefix}{suffix}"))
    }
}

/// The name of a BPMN plan: `<service template>_bpmn<Kind suffix>` (as
/// OpenTOSCA's BPMN generator named them), so that it never clashes with
/// the BPEL plan of the same kind in the same CSAR.
pub(crate) fn bpmn_plan_name(topology: &Topology, kind: &PlanKind) -> String {
    let base = plan_name(topology, kind);
    let suffix = kind.suffix();
    let stem = &base[..base.len() - suffix.len()];
    let mut chars = suffix.chars();
    let first = chars.next().map(|c| c.to_ascii_uppercase()).unwrap_or('_');
    format!("{stem}bpmn{first}{}", chars.as_str())
}

/// The prefixes of a plan's ids ([`bases`]): its activities' ids and the
/// ids the process has once (named after the plan `name`).
fn plan_bases(plan: &ConcretePlan, name: &str) -> Bases {
    let fixed = [
        name.to_string(),
        format!("{name}_definitions"),
        format!("{name}_diagram"),
        format!("{name}_plane"),
        ERR_FAILURE.to_string(),
        ERR_ACTIVITY.to_string(),
        ERR_PLAN.to_string(),
    ]
    .into_iter()
    .chain(library_ids().iter().cloned())
    .collect::<Vec<_>>();
    let fixed: Vec<&str> = fixed.iter().map(String::as_str).collect();
    Bases::new(plan.plan.activities.iter().map(|a| a.id.as_str()), &fixed)
}

/// The id of each activity's subprocess in the plan's BPMN process, in
/// the order of the activities: the activity id, or where that id could
/// meet another element's, the prefix it is drawn under ([`bases`]).
pub(crate) fn activity_ids(plan: &ConcretePlan, topology: &Topology) -> Vec<String> {
    let mut bases = plan_bases(plan, &bpmn_plan_name(topology, &plan.plan.kind));
    let activities = plan.plan.activities.iter().enumerate();
    activities
        .map(|(k, a)| bases.renamed.remove(&k).unwrap_or_else(|| a.id.clone()))
        .collect()
}

/// Render a concrete plan as a BPMN process.
pub(crate) fn render(
    plan: &ConcretePlan,
    topology: &Topology,
    templates: &Templates,
) -> Result<RenderedPlan> {
    render_into(plan, topology, templates, PlanOutput::files())
}

/// Render a concrete plan into `output` (its files kept, or packed into
/// the archive as they are written): the process first, then the shared
/// scripts it uses.
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
    let name = bpmn_plan_name(topology, kind);
    let namespace = plan_namespace(topology, kind);
    // Where an activity's ids could meet another's or the plan's, it is
    // drawn under a prefix of its own, as if that were its id.
    let bases = plan_bases(plan, &name);
    let renamed;
    let plan = if bases.renamed.is_empty() {
        plan
    } else {
        let mut copy = plan.clone();
        for (&k, base) in &bases.renamed {
            copy.plan.activities[k].id.clone_from(base);
        }
        renamed = copy;
        &renamed
    };
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
    let taken: Vec<&str> = FIXED
        .into_iter()
        .chain(parameters.iter().map(|p| p.name.as_str()))
        .collect();
    let names = Vars::new(topology, plan, taken.iter().copied());
    // The variables of elements (poll loops, routing) are named apart
    // from the templates', never as one of theirs (vars::outside_families).
    let mut vars = Unique::new();
    for t in taken {
        vars.name(t.to_string());
    }
    let mut cx = Ctx {
        topology,
        names,
        inputs,
        bus,
        vars,
        properties: PropertyFiles::default(),
        text: Text::default(),
        plan: &bases.plan,
    };

    let mut process = Plane::new(cx.plan_id(""));
    let (id, label) = (cx.plan_id("_start"), cx.text.add("plan requested"));
    let start = process.add(id, label, Kind::Start(None));
    let mut main = Chain::new(&mut process, start);
    let routing = Routing::new(&plan.plan, |a| cx.poll_var(Prefix::of(a), "outcome"));
    let init = Init::new(&cx, plan, &name, &parameters, &routing);
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
        main.then(id, label, script);
    }
    let kind_running = plan_state(&mut cx.text, "RUNNING");
    let (id, label) = (cx.plan_id("_planRunning"), cx.text.add("plan RUNNING"));
    main.then(id, label, kind_running);
    let (start_state, end_state) = match kind {
        PlanKind::Build | PlanKind::Defrost => (Some("CREATING"), Some("CREATED")),
        PlanKind::Termination | PlanKind::Freeze => (Some("DELETING"), Some("DELETED")),
        _ => (None, None),
    };
    if kind.creates_service_instance() {
        let api = cx.input(INSTANCE_DATA_API_URL);
        let correlation = cx.input(CORRELATION_ID);
        let prefix = cx.plan;
        let text = &mut cx.text;
        let http = graph::Http {
            method: "POST",
            url: concat(text, &[Part::Var(&api)]),
            content_type: Some("application/xml"),
            accept: "application/xml",
            payload: Some(steps::groovy(text, |o| {
                o.push_str("'<api:correlationID xmlns:api=\"http://opentosca.org/api\">' + x(");
                push_var(o, &correlation);
                o.push_str(") + '</api:correlationID>'");
            })),
            outputs: vec![
                steps::status_check(text),
                (
                    text.add("serviceInstanceURL"),
                    Value::Shared(Shared::InstanceUrl),
                ),
                (
                    text.add("serviceInstanceID"),
                    Value::Shared(Shared::InstanceId),
                ),
            ],
        };
        let (id, label) = (
            text.fmt(format_args!("{prefix}_createServiceInstance")),
            text.add("create service instance"),
        );
        main.then(id, label, Kind::Http(Box::new(http)));
    }
    if let Some(s) = start_state {
        let kind = service_state(&mut cx.text, s);
        let id = cx.plan_id("_serviceInstanceStarting");
        let label = cx.id("service instance ", s);
        main.then(id, label, kind);
    }
    let activities = activities_subprocess(&mut cx, plan, &routing);
    let (id, label) = (cx.plan_id("_activities"), cx.id(kind.slug(), " activities"));
    let act = main.then(id, label, Kind::Sub(Box::new(activities)));
    if let Some(s) = end_state {
        let kind = service_state(&mut cx.text, s);
        let id = cx.plan_id("_serviceInstanceDone");
        let label = cx.id("service instance ", s);
        main.then(id, label, kind);
    }
    let outputs = outputs_script(&mut cx, plan);
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
    let failure = failure_subprocess(&mut cx);
    let (id, label) = (cx.plan_id("_failure"), cx.text.add("plan failed"));
    process.add(id, label, Kind::Sub(Box::new(failure)));

    // The activities are built as they are written, in a text of their own.
    let mut text = std::mem::take(&mut cx.text);
    text.shrink_to_fit();
    process.shrink_to_fit();
    let mut properties = std::mem::take(&mut cx.properties);
    let diagrams = layout::layout(&text, &name, &process)?;
    let title = format!("{} plan of {}", kind.slug(), topology.service_template.id);
    let st = &topology.service_template;
    let mut used = Used::default();
    // The scripts of the reusable processes, which every plan carries (it
    // sets its plan instance's state through one).
    for s in [
        Shared::Check,
        Shared::Invocation,
        Shared::Location,
        Shared::Pending,
    ] {
        used.mark(s, &properties);
    }
    output.start(&format!("{name}.bpmn"))?;
    xml::write(
        templates,
        &mut used,
        &mut properties,
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
            text: &text,
            plane: &process,
            diagrams: &diagrams,
        },
        &mut Activities {
            cx: &mut cx,
            plan,
            routing: &routing,
            init: &init,
        },
        &mut output,
    )?;
    output.end()?;
    drop(diagrams);
    cx.properties = properties;
    for (file, text) in used.files(&cx.properties) {
        output.file(&file, text.as_bytes())?;
    }
    let (files, packed) = match output.finish()? {
        Written::Files(files) => (files, None),
        Written::Packed(packed) => (Vec::new(), Some(packed)),
    };
    let mut outputs = vec![CORRELATION_ID.to_string()];
    if kind.creates_service_instance() {
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
        files,
        packed,
        inputs: parameters,
        outputs,
    })
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
    let url = Value::Text(text.add("${serviceInstanceURL}/state"));
    let record = steps::record_state(text, url, "ERROR");
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
    let url = Value::Text(text.fmt(format_args!("${{{PLAN_INSTANCE_URL}}}/state")));
    let failed = steps::record_state(text, url, "FAILED");
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
    steps::state_call(text, url, state)
}

/// A task that sets the state of the service instance.
fn service_state(text: &mut Text, state: &str) -> Kind {
    let url = text.add("serviceInstanceURL");
    steps::state_call(text, url, state)
}

/// A script task with an inline script.
fn inline_script(text: &mut Text, body: &str) -> Kind {
    Kind::Script(Box::new(Script {
        script: Value::Groovy(text.add(body)),
        locals: Vec::new(),
    }))
}

/// The plan outputs as process variables.
fn outputs_script(cx: &mut Ctx, plan: &ConcretePlan) -> Kind {
    let mut s = String::new();
    let correlation = cx.input(CORRELATION_ID);
    set_variable(&mut s, "CorrelationID", &|o| push_var(o, &correlation));
    let mut out_unique = Unique::new();
    out_unique.name("CorrelationID".into());
    if plan.plan.kind.creates_service_instance() {
        out_unique.name("instanceId".into());
        set_variable(&mut s, "instanceId", &|o| push_var(o, "serviceInstanceURL"));
    }
    for (n, b) in &plan.outputs {
        let name = out_unique.name(ncname(n));
        let e = cx.expr(b);
        set_variable(&mut s, &name, &|o| o.push_str(&e));
    }
    inline_script(&mut cx.text, &s)
}

/// `plan_activities`: the plan graph, with gateways where it forks and joins.
///
/// With `on_failure` routing drawn by token ([`routing`]), an activity may
/// also leave by its failure (the error boundary event of a routed
/// activity) or be skipped (its marker `<activity>_skipped`), and every
/// edge takes the token of each exit of its source to its target, which
/// it enters on the exit where the edge holds and skips on the others.
fn activities_subprocess(cx: &mut Ctx, plan: &ConcretePlan, routing: &Routing) -> Sub {
    let p = &plan.plan;
    let mut plane = Plane::new(cx.plan_id("_activities"));
    let id = cx.plan_id("_activitiesStart");
    let start = plane.add(id, Str::default(), Kind::Start(None));
    let n = p.activities.len();
    let graph = Adjacency::new(n, p.edges.iter().map(|e| (e.from, e.to)));
    let sources: Vec<usize> = (0..n).filter(|&i| graph.incoming(i).is_empty()).collect();
    let sinks: Vec<usize> = (0..n).filter(|&i| graph.outgoing(i).is_empty()).collect();
    // Drawn by token: routed or skippable, in a region without joins.
    let by_token: Vec<bool> = (0..n)
        .map(|i| (routing.routed[i] || routing.skippable[i]) && !routing.inside[i])
        .collect();
    // Activities, each with its error boundary event and compensation handler.
    let mut node = Vec::with_capacity(n);
    let mut caught: Vec<Option<usize>> = vec![None; n];
    for (i, a) in p.activities.iter().enumerate() {
        let empty = is_empty(cx, plan, i);
        let id = cx.text.add(&a.id);
        let label = cx.text.fmt(format_args!(
            "{} {}",
            cx.topology.template_id(a.template),
            a.kind.name()
        ));
        let host = plane.add(id, label, Kind::Deferred(Later::Activity.key(i)));
        node.push(host);
        if routing.routed[i] && routing.inside[i] {
            // It catches its failure itself (in `<activity>_try`).
        } else if routing.routed[i] {
            // Its failure is caught and routed (`on_failure`) instead of
            // failing the plan; as in the BPEL plan, a routed activity
            // does not mark its instance ERROR (a termination activity
            // still does so per instance, inside its loop).
            let (id, label) = (cx.id(&a.id, "_catch"), cx.text.add("failed"));
            let catch = plane.add(
                id,
                label,
                Kind::Boundary {
                    host: graph::small(host),
                    error: true,
                    routes: true,
                    code: None,
                    message: None,
                },
            );
            caught[i] = Some(catch);
        } else if !empty {
            // Any error ends the activity: mark its instance ERROR (a
            // termination activity does that per instance, inside its loop)
            // and throw the activity error.
            let id = cx.id(&a.id, "_catch");
            let catch = plane.add(
                id,
                Str::default(),
                Kind::Boundary {
                    host: graph::small(host),
                    error: true,
                    routes: false,
                    code: None,
                    message: None,
                },
            );
            let mut chain = Chain::new(&mut plane, catch);
            if !plan.bodies[i].per_instance {
                let kind = steps::mark_error(cx, a.template);
                let (id, label) = (cx.id(&a.id, "_markError"), cx.text.add("instance ERROR"));
                chain.then(id, label, kind);
            }
            let id = cx.id(&a.id, "_failed");
            chain.then(id, Str::default(), Kind::End(Some(ERR_ACTIVITY)));
        }
        let comp = &plan.bodies[i].compensation;
        if !comp.is_empty() {
            let id = cx.id(&a.id, "_compensation");
            let b = plane.add(
                id,
                Str::default(),
                Kind::Boundary {
                    host: graph::small(host),
                    error: false,
                    routes: false,
                    code: None,
                    message: None,
                },
            );
            let (id, label) = (
                cx.id(&a.id, "_undo"),
                cx.id("undo ", cx.topology.template_id(a.template)),
            );
            let h = plane.add(id, label, Kind::Deferred(Later::Undo.key(i)));
            let link = cx.id(&a.id, "_undoLink");
            plane.associate(link, b, h);
        }
    }
    // Where control enters each activity (its join or itself) and leaves
    // it (its fork or itself): gateways only where the graph forks or
    // joins. Drawn by token, an activity also has a failure exit (its
    // boundary event, or a fork after it) and a skip exit (its marker, or
    // a fork after it), each leaving by one flow per edge, and it is
    // skipped where `skip_in` is (its marker, or a merge before it when
    // its one edge in is dead on two exits of its source).
    let mut entry = node.clone();
    let mut exit = node.clone();
    let mut exit_failed: Vec<Option<usize>> = caught.clone();
    let mut exit_skipped: Vec<Option<usize>> = vec![None; n];
    let mut skip_in: Vec<Option<usize>> = vec![None; n];
    let mut finished: Vec<Option<usize>> = vec![None; n];
    for i in 0..n {
        let a = &p.activities[i].id;
        let (ins, outs) = (graph.incoming(i).len(), graph.outgoing(i).len());
        if ins > 1 {
            let id = cx.id(a, "_join");
            let j = plane.add(id, Str::default(), Kind::And);
            plane.connect(j, node[i]);
            entry[i] = j;
        }
        if outs > 1 {
            let id = cx.id(a, "_fork");
            let f = plane.add(id, Str::default(), Kind::And);
            plane.connect(node[i], f);
            exit[i] = f;
        }
        if !by_token[i] {
            continue;
        }
        if routing.skippable[i] {
            let (id, label) = (cx.id(a, "_skipped"), cx.text.add("skipped"));
            let kind = if outs == 0 {
                Kind::End(None)
            } else {
                Kind::Marker
            };
            let marker = plane.add(id, label, kind);
            // Its one edge in (no joins in a region drawn by token) is dead
            // on every exit of its source but one.
            let e = &p.edges[graph.incoming(i)[0] as usize];
            skip_in[i] = Some(if routing.exits(e.from).count() > 2 {
                let id = cx.id(a, "_skipMerge");
                let m = plane.add(id, Str::default(), Kind::Xor(None));
                plane.connect(m, marker);
                m
            } else {
                marker
            });
            if outs > 1 {
                let id = cx.id(a, "_skipFork");
                let f = plane.add(id, Str::default(), Kind::And);
                plane.connect(marker, f);
                exit_skipped[i] = Some(f);
            } else if outs == 1 {
                exit_skipped[i] = Some(marker);
            } else {
                // A last activity that may be skipped ends in an end event
                // of its own either way (a join of the ends would wait for
                // the way not taken).
                let (id, label) = (cx.id(a, "_finished"), cx.text.add("done"));
                finished[i] = Some(plane.add(id, label, Kind::End(None)));
            }
        }
        if let Some(catch) = caught[i]
            && outs > 1
        {
            let id = cx.id(a, "_failFork");
            let f = plane.add(id, Str::default(), Kind::And);
            plane.connect(catch, f);
            exit_failed[i] = Some(f);
        }
    }
    let exit_of = |i: usize, x: Exit| -> usize {
        match x {
            Exit::Succeeded => exit[i],
            Exit::Failed => exit_failed[i].expect("a routed activity has a failure exit"),
            Exit::Skipped => exit_skipped[i].expect("a skippable activity has a skip exit"),
        }
    };
    // The end: the last activities that always end normally join there.
    let joined: Vec<usize> = sinks
        .iter()
        .copied()
        .filter(|&i| finished[i].is_none())
        .collect();
    let end = (n == 0 || !joined.is_empty()).then(|| {
        plane.add(
            cx.plan_id("_activitiesEnd"),
            Str::default(),
            Kind::End(None),
        )
    });
    if n == 0
        && let Some(end) = end
    {
        plane.connect(start, end);
    }
    // Start: straight into the single source, or a fork into all of them.
    let from_start = if sources.len() > 1 {
        let f = plane.add(cx.plan_id("_fork"), Str::default(), Kind::And);
        plane.connect(start, f);
        f
    } else {
        start
    };
    for &i in &sources {
        plane.connect(from_start, entry[i]);
    }
    for (k, e) in p.edges.iter().enumerate() {
        let (a, b) = (e.from, e.to);
        if !(routing.conditional[k] && by_token[b]) {
            let label = if e.reason == Reason::OnFailure {
                "on failure"
            } else {
                ""
            };
            plane.connect_if(exit[a], entry[b], None, label);
            continue;
        }
        let live = Routing::live(e);
        let skip = skip_in[b].expect("a skippable activity has a skip entry");
        for x in routing.exits(a) {
            if x == live {
                plane.connect(exit_of(a, x), node[b]);
            } else {
                plane.connect(exit_of(a, x), skip);
            }
        }
    }
    let to_end = match end {
        Some(end) if joined.len() > 1 => {
            let j = plane.add(cx.plan_id("_join"), Str::default(), Kind::And);
            plane.connect(j, end);
            Some(j)
        }
        end => end,
    };
    for &i in &sinks {
        if let Some(to) = finished[i].or(to_end) {
            plane.connect(exit[i], to);
        }
    }
    // Failure of any activity: compensate the finished ones, fail the plan.
    let prefix = cx.plan;
    let text = &mut cx.text;
    let mut on_failure = Plane::new(text.fmt(format_args!("{prefix}_onFailure")));
    let (id, label) = (
        text.fmt(format_args!("{prefix}_onFailureStart")),
        text.add("activity failed"),
    );
    let s = on_failure.add(id, label, Kind::Start(Some(ERR_ACTIVITY)));
    let mut chain = Chain::new(&mut on_failure, s);
    let (id, label) = (
        text.fmt(format_args!("{prefix}_undo")),
        text.add("undo finished activities"),
    );
    chain.then(id, label, Kind::Compensate);
    let id = text.fmt(format_args!("{prefix}_abort"));
    chain.then(id, Str::default(), Kind::End(Some(ERR_PLAN)));
    let (id, label) = (
        text.fmt(format_args!("{prefix}_onFailure")),
        text.add("on failure"),
    );
    plane.add(
        id,
        label,
        Kind::Sub(Box::new(Sub {
            plane: on_failure,
            expanded: true,
            repeat: Repeat::OnError,
            locals: Vec::new(),
            outputs: Vec::new(),
            logged: false,
        })),
    );
    Sub {
        plane,
        expanded: true,
        repeat: Repeat::Once,
        locals: Vec::new(),
        outputs: Vec::new(),
        logged: false,
    }
}

/// The parts of a plan built when the writer reaches them
/// ([`Kind::Deferred`]): per activity, its steps and its compensation
/// handler.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Later {
    Activity,
    Undo,
}

impl Later {
    /// The key of this part of activity `i`.
    fn key(self, i: usize) -> usize {
        2 * i + self as usize
    }

    /// The part and activity of a key.
    fn of(key: usize) -> (Later, usize) {
        let part = if key.is_multiple_of(2) {
            Later::Activity
        } else {
            Later::Undo
        };
        (part, key / 2)
    }
}

/// Builds the activities and compensation handlers of a plan as the
/// writer reaches them, each in the text it is given.
struct Activities<'c, 'a> {
    cx: &'c mut Ctx<'a>,
    plan: &'c ConcretePlan,
    routing: &'c Routing,
    init: &'c Init,
}

impl graph::Deferred for Activities<'_, '_> {
    fn script(&mut self, key: usize, out: &mut String) {
        self.init.write(key, self.cx, self.plan, self.routing, out);
    }

    fn build(
        &mut self,
        key: usize,
        text: &mut Text,
        properties: &mut PropertyFiles,
    ) -> Result<Sub> {
        let (part, i) = Later::of(key);
        let cx = &mut *self.cx;
        std::mem::swap(&mut cx.text, text);
        std::mem::swap(&mut cx.properties, properties);
        // The emptiness predicted for the activity, where it proved wrong.
        let (built, mismatch) = match part {
            Later::Activity => {
                let (sub, empty) = activity(cx, self.plan, i, self.routing);
                let expected = is_empty(cx, self.plan, i);
                (sub, (empty != expected).then_some(expected))
            }
            Later::Undo => (undo(cx, self.plan, i), None),
        };
        std::mem::swap(&mut cx.text, text);
        std::mem::swap(&mut cx.properties, properties);
        match mismatch {
            None => Ok(built),
            Some(empty) => Err(crate::error::Error::Internal(format!(
                "BPMN: activity {} was expected to be {}empty",
                self.plan.plan.activities[i].id,
                if empty { "" } else { "not " }
            ))),
        }
    }
}

/// Whether activity `i` has no steps (nothing in it can fail), known
/// before it is built.
fn is_empty(cx: &Ctx, plan: &ConcretePlan, i: usize) -> bool {
    let body = &plan.bodies[i];
    !body.per_instance && body.steps.iter().all(|s| steps::draws_nothing(cx, s))
}

/// The compensation handler of activity `i`: its compensation steps.
fn undo(cx: &mut Ctx, plan: &ConcretePlan, i: usize) -> Sub {
    let a = &plan.plan.activities[i];
    let mut undo = Plane::new(cx.id(&a.id, "_undo"));
    let s = undo.add(
        cx.id(&a.id, "_undoStart"),
        Str::default(),
        Kind::Start(None),
    );
    let mut chain = Chain::new(&mut undo, s);
    for (k, step) in plan.bodies[i].compensation.iter().enumerate() {
        steps::step(cx, &mut chain, step, Prefix::step(&a.id, "_c", k + 1));
    }
    let id = cx.id(&a.id, "_undoEnd");
    chain.then(id, Str::default(), Kind::End(None));
    Sub {
        plane: undo,
        expanded: false,
        repeat: Repeat::Compensation,
        locals: Vec::new(),
        outputs: Vec::new(),
        logged: false,
    }
}

/// One activity: its steps in a collapsed subprocess (its id is the
/// activity id); termination activities loop over the live instances.
/// Also whether it has no steps (nothing in it can fail).
///
/// In a region of `on_failure` routing drawn inside the activities, one
/// that may be skipped starts with a gateway that skips it unless every
/// edge into it holds; one that is routed runs its steps in a subprocess
/// `<activity>_try` whose error boundary event stores the error's code and
/// ends the activity normally; one whose outcome its successors read sets
/// its outcome variable when it ends.
fn activity(cx: &mut Ctx, plan: &ConcretePlan, i: usize, routing: &Routing) -> (Sub, bool) {
    let a = &plan.plan.activities[i];
    let body = &plan.bodies[i];
    let mut plane = Plane::new(cx.text.add(&a.id));
    let id = cx.id(&a.id, "_start");
    let start = plane.add(id, Str::default(), Kind::Start(None));
    let inside = routing.inside[i];
    // Skipped unless every edge in holds.
    let gate = (inside && routing.skippable[i]).then(|| {
        let (id, label) = (cx.id(&a.id, "_gate"), cx.text.add("run?"));
        let gate = plane.add(id, label, Kind::Xor(None));
        plane.connect(start, gate);
        let (id, label) = (cx.id(&a.id, "_skipped"), cx.text.add("skipped"));
        let skipped = plane.add(id, label, Kind::End(None));
        let live = routing.live_condition(&plan.plan, i);
        let to_skip = if routing.runs_without_failures[i] {
            // The default runs it: the way of a run without failures.
            let c = cx.text.fmt(format_args!("${{!({live})}}"));
            plane.connect_if(gate, skipped, Some(c), "skip")
        } else {
            plane.connect_if(gate, skipped, None, "skip")
        };
        (gate, to_skip, live)
    });
    let first = gate.as_ref().map_or(start, |g| g.0);
    let routed = inside && routing.routed[i];
    // The steps: in the activity, or in its `_try` subprocess.
    let mut tried = routed.then(|| Plane::new(cx.id(&a.id, "_try")));
    let (steps_plane, steps_start) = match tried.as_mut() {
        Some(t) => {
            let id = cx.id(&a.id, "_tryStart");
            let s = t.add(id, Str::default(), Kind::Start(None));
            (t, s)
        }
        None => (&mut plane, first),
    };
    let before = steps_plane.nodes.len();
    if body.per_instance {
        each_instance(cx, steps_plane, steps_start, &a.id, a.template, body);
    } else {
        let mut chain = Chain::new(steps_plane, steps_start);
        for (k, step) in body.steps.iter().enumerate() {
            steps::step(cx, &mut chain, step, Prefix::step(&a.id, "_s", k + 1));
        }
        let id = cx.id(&a.id, "_end");
        chain.then(id, Str::default(), Kind::End(None));
    }
    // Only the end event added: no steps.
    let empty = steps_plane.nodes.len() - before <= 1;
    if let Some(tried) = tried {
        // Its failure is caught and routed (`on_failure`): the boundary
        // event stores the error's code as its outcome, and the activity
        // ends normally either way. As in the BPEL plan, a routed activity
        // does not mark its instance ERROR (a termination activity still
        // does so per instance, inside its loop).
        let v = routing.outcome[i]
            .as_deref()
            .expect("a routed activity has successors that read its outcome");
        let (id, label) = (cx.id(&a.id, "_try"), cx.text.add("steps"));
        let host = plane.add(
            id,
            label,
            Kind::Sub(Box::new(Sub {
                plane: tried,
                expanded: true,
                repeat: Repeat::Once,
                locals: Vec::new(),
                outputs: Vec::new(),
                logged: false,
            })),
        );
        plane.connect(first, host);
        let (id, label) = (cx.id(&a.id, "_done"), cx.text.add("succeeded"));
        let done = plane.add(id, label, Kind::End(None));
        plane.connect(host, done);
        let (id, label) = (cx.id(&a.id, "_catch"), cx.text.add("failed"));
        let code = Some(cx.text.add(v));
        let catch = plane.add(
            id,
            label,
            Kind::Boundary {
                host: graph::small(host),
                error: true,
                routes: false,
                code,
                message: None,
            },
        );
        let (id, label) = (cx.id(&a.id, "_caught"), cx.text.add("failure routed"));
        let caught = plane.add(id, label, Kind::End(None));
        plane.connect(catch, caught);
    }
    if let Some((gate, to_skip, live)) = gate {
        // The flow into the steps: the default, or taken where every edge holds.
        let run = plane
            .flows
            .iter()
            .position(|f| f.from() == gate && f.name.is_empty())
            .expect("the gateway leads into the steps");
        plane.flows[run].name = "run";
        let default = if routing.runs_without_failures[i] {
            run
        } else {
            plane.flows[run].condition = Some(cx.text.fmt(format_args!("${{{live}}}")));
            to_skip
        };
        steps::set_default(&mut plane, gate, default);
    }
    let mut outputs = Vec::new();
    if let (Some(v), Some(value)) = (
        routing.outcome[i].as_deref(),
        routing.outcome_value(&plan.plan, i),
    ) {
        outputs.push((cx.text.add(v), Value::Text(cx.text.add(&value))));
    }
    let sub = Sub {
        plane,
        expanded: false,
        repeat: Repeat::Once,
        locals: Vec::new(),
        outputs,
        logged: true,
    };
    (sub, empty)
}

/// The error event subprocess of a loop turn: mark the turn's instance
/// ERROR and end the activity with the activity error. (It runs inside the
/// turn, where the instance's variables are.)
fn on_error(cx: &mut Ctx, plane: &mut Plane, prefix: &str, t: TemplateRef) {
    let mut p = Plane::new(cx.id(prefix, "_onError"));
    let (id, label) = (cx.id(prefix, "_errorStart"), cx.text.add("call failed"));
    let s = p.add(id, label, Kind::Start(Some(ERR_FAILURE)));
    let mut chain = Chain::new(&mut p, s);
    let kind = steps::mark_error(cx, t);
    let (id, label) = (cx.id(prefix, "_markError"), cx.text.add("instance ERROR"));
    chain.then(id, label, kind);
    let id = cx.id(prefix, "_abort");
    chain.then(id, Str::default(), Kind::End(Some(ERR_ACTIVITY)));
    let (id, label) = (cx.id(prefix, "_onError"), cx.text.add("on error"));
    plane.add(
        id,
        label,
        Kind::Sub(Box::new(Sub {
            plane: p,
            expanded: true,
            repeat: Repeat::OnError,
            locals: Vec::new(),
            outputs: Vec::new(),
            logged: false,
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
    let ids = cx.poll_var(Prefix::of(a), "ids");
    let count = cx.poll_var(Prefix::of(a), "count");
    let index = cx.poll_var(Prefix::of(a), "index");
    let mut chain = Chain::new(plane, start);
    let Ctx { names, text, .. } = &mut *cx;
    let path = &crate::render::instances_path(t, subject);
    let list = graph::Http {
        method: "GET",
        url: concat(
            text,
            &[
                Part::Var("serviceTemplateURL"),
                Part::Lit(path),
                Part::Lit("?serviceInstanceId="),
                Part::Var("serviceInstanceID"),
            ],
        ),
        content_type: None,
        accept: "application/json",
        payload: None,
        outputs: vec![
            steps::status_check(text),
            (text.add(&ids), Value::Shared(Shared::InstanceIds)),
            (text.add(&count), Value::Shared(Shared::InstanceCount)),
            (text.add(&index), Value::Groovy(text.add("0"))),
        ],
    };
    let (id, label) = (
        text.fmt(format_args!("{a}_list")),
        text.fmt(format_args!("list instances of {}", t.template_id(subject))),
    );
    chain.then(id, label, Kind::Http(Box::new(list)));
    let split = (text.fmt(format_args!("{a}_any")), text.add("any?"));
    let end = (text.fmt(format_args!("{a}_none")), text.add("none"));
    let condition = text.fmt(format_args!("${{{count} == 0}}"));
    chain.end_if(split, end, condition, "none");
    let id = text.fmt(format_args!("{a}_next"));
    let next = chain.then(id, Str::default(), Kind::Xor(None));
    // One turn: locals for the instance and everything read below it.
    let current = |o: &mut String| {
        push_var(o, &ids);
        o.push_str(".split(',')[");
        push_var(o, &index);
        o.push_str(" as int]");
    };
    let mut locals = vec![
        (text.add(names.id(subject)), steps::groovy(text, current)),
        (
            text.add(names.url(subject)),
            steps::groovy(text, |o| {
                push_var(o, "serviceTemplateURL");
                o.push_str(" + ");
                push_literal(o, path);
                o.push_str(" + '/' + ");
                current(o);
            }),
        ),
    ];
    let mut local_templates = vec![subject];
    for s in &body.steps {
        if let crate::plugins::steps::Step::FollowRelationship { to, .. } = s {
            local_templates.push(TemplateRef::Node(*to));
        }
    }
    let empty = text.add("${''}");
    let mut last: Option<&str> = None;
    for (k, &lt) in local_templates.iter().enumerate() {
        let mut vars: Vec<&str> = Vec::new();
        if k > 0 {
            vars.push(names.url(lt));
            vars.push(names.id(lt));
        }
        vars.extend(names.props_of(t, lt).map(|(_, v)| v));
        for v in vars {
            // Consecutive repeats once (a template followed twice in a row).
            if last != Some(v) {
                locals.push((text.add(v), Value::Text(empty)));
                last = Some(v);
            }
        }
    }
    let mut turn = Plane::new(text.fmt(format_args!("{a}_each")));
    let id = text.fmt(format_args!("{a}_turnStart"));
    let ts = turn.add(id, Str::default(), Kind::Start(None));
    let mut inner = Chain::new(&mut turn, ts);
    if let Some(kind) = steps::load_properties(cx, subject) {
        let (id, label) = (
            cx.id(a, "_load"),
            cx.id("load properties of ", t.template_id(subject)),
        );
        inner.then(id, label, kind);
    }
    for (k, step) in body.steps.iter().enumerate() {
        steps::step(cx, &mut inner, step, Prefix::step(a, "_s", k + 1));
    }
    let id = cx.id(a, "_turnEnd");
    inner.then(id, Str::default(), Kind::End(None));
    let turn_prefix = format!("{a}_turn");
    on_error(cx, &mut turn, &turn_prefix, subject);
    let text = &mut cx.text;
    let outputs = vec![(
        text.add(&index),
        steps::groovy(text, |o| {
            o.push('(');
            push_var(o, &index);
            o.push_str(" as int) + 1");
        }),
    )];
    let (id, label) = (
        text.fmt(format_args!("{a}_each")),
        text.fmt(format_args!("each instance of {}", t.template_id(subject))),
    );
    chain.then(
        id,
        label,
        Kind::Sub(Box::new(Sub {
            plane: turn,
            expanded: false,
            repeat: Repeat::Once,
            locals,
            outputs,
            logged: false,
        })),
    );
    let (id, label) = (text.fmt(format_args!("{a}_more")), text.add("more?"));
    let more = chain.then(id, label, Kind::Xor(None));
    let condition = text.fmt(format_args!("${{{index} < {count}}}"));
    chain.plane.connect_if(more, next, Some(condition), "next");
    chain.default_next();
    let id = text.fmt(format_args!("{a}_end"));
    chain.then(id, Str::default(), Kind::End(None));
}

#[cfg(test)]
mod library_tests {
    #[test]
    fn library_ids_are_read_from_the_templates() {
        let ids = super::library_ids();
        for id in [
            "toscanini_invoke",
            "toscanini_invoke_f10",
            "toscanini_callFailed",
            "toscanini_state_put",
            "toscanini_state_plane",
        ] {
            assert!(ids.iter().any(|i| i == id), "{id}");
        }
        assert_eq!(ids.len(), 38);
    }
}
