//! One activity of a BPMN plan, built when the writer reaches it
//! ([`Kind::Deferred`]): its steps in a collapsed subprocess whose id is
//! the activity id (termination activities loop over the live instances:
//! [`super::per_instance`]), and its compensation handler. Where the steps
//! are all calls, the activity (or handler) is instead one call of
//! `toscanini_run` or `toscanini_each` ([`super::program`]); where there
//! are none, a task that does nothing ([`Built`]).
//!
//! In a region of `on_failure` routing drawn inside the activities, one
//! that may be skipped starts with a gateway that skips it unless every
//! edge into it holds; one that is routed runs its steps in a subprocess
//! `<activity>_try` whose error boundary event stores the error's code and
//! ends the activity normally; one whose outcome its successors read sets
//! its outcome variable when it ends.
//!
//! In: the plan, its routing, the [`Ctx`]. Out: the subprocess of an
//! activity or of its compensation handler.

use super::chain::{Chain, Prefix, set_default};
use super::ctx::Ctx;
use super::graph::{self, Built, FlowLog, Kind, Plane, Repeat, Str, Sub, Text, Value};
use super::init::Init;
use super::per_instance::{compact_each, each_instance, on_error, turn_steps};
use super::program;
use super::routing::Routing;
use super::scripts::PropertyFiles;
use super::steps;
use crate::error::Result;
use crate::model::TemplateRef;
use crate::plugins::ConcretePlan;

/// The parts of a plan built when the writer reaches them
/// ([`Kind::Deferred`]): per activity, its steps and its compensation
/// handler.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Later {
    /// The activity's steps.
    Activity,
    /// Its compensation handler.
    Undo,
}

impl Later {
    /// The key of this part of activity `i`.
    pub(crate) fn key(self, i: usize) -> usize {
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
pub(crate) struct Activities<'c, 'a> {
    /// The context the plan was built in.
    pub(crate) cx: &'c mut Ctx<'a>,
    /// The plan.
    pub(crate) plan: &'c ConcretePlan,
    /// Its routing of `on_failure`.
    pub(crate) routing: &'c Routing,
    /// Its initialisation scripts.
    pub(crate) init: &'c Init,
}

impl graph::Deferred for Activities<'_, '_> {
    fn script(&mut self, key: usize, out: &mut String) {
        self.init.write(key, self.cx, self.routing, out);
    }

    fn build(
        &mut self,
        key: usize,
        text: &mut Text,
        properties: &mut PropertyFiles,
    ) -> Result<Built> {
        let (part, i) = Later::of(key);
        let each = self.per_instance_call(i);
        let cx = &mut *self.cx;
        std::mem::swap(&mut cx.text, text);
        std::mem::swap(&mut cx.properties, properties);
        let built = match part {
            Later::Activity if each => each_activity(cx, self.plan, i),
            Later::Activity => once_activity(cx, self.plan, i, self.routing),
            Later::Undo => {
                let sub = undo(cx, self.plan, i);
                compacted(cx, sub, None)
            }
        };
        std::mem::swap(&mut cx.text, text);
        std::mem::swap(&mut cx.properties, properties);
        Ok(built)
    }
}

impl Activities<'_, '_> {
    /// Whether activity `i` runs per instance and could be one call of
    /// `toscanini_each`: not routed, not skipped, no outcome to set.
    fn per_instance_call(&self, i: usize) -> bool {
        self.plan.bodies[i].per_instance
            && !self.routing.inside[i]
            && self.routing.outcome[i].is_none()
    }
}

/// Per-instance activity `i` outside any routing: one call of
/// `toscanini_each` where the steps of a turn are all calls, else the loop
/// over the instances in a subprocess, whose failure (a turn's marks its
/// instance) fails the plan's activities.
fn each_activity(cx: &mut Ctx, plan: &ConcretePlan, i: usize) -> Built {
    let a = &plan.plan.activities[i];
    let body = &plan.bodies[i];
    let steps = turn_steps(cx, &a.id, a.template, body);
    // A call of toscanini_each cannot hand a turn's variables back.
    let compact = if turn_outputs(cx, plan, i).is_empty() {
        compact_each(cx, a.template, body, &steps)
    } else {
        None
    };
    match compact {
        Some(call) => Built::Call {
            call,
            repeat: Repeat::Once,
        },
        None => {
            let mut sub = per_instance_activity(cx, plan, i, steps);
            on_error(cx, &mut sub.plane, &a.id, None);
            Built::Sub(sub)
        }
    }
}

/// Any other activity `i`: a task where it has no steps, one call of
/// `toscanini_run` where they are all calls, else a subprocess. Unless
/// its failure is routed, a failure marks its instance ERROR (a
/// per-instance activity's turn does so for its own) and fails the
/// plan's activities.
fn once_activity(cx: &mut Ctx, plan: &ConcretePlan, i: usize, routing: &Routing) -> Built {
    let a = &plan.plan.activities[i];
    let (sub, empty) = activity(cx, plan, i, routing);
    let fails = !empty && !routing.routed[i];
    let mark = (fails && !plan.bodies[i].per_instance).then_some(a.template);
    if empty && sub.outputs.is_empty() && is_plain(&sub.plane) {
        return Built::Nothing { logged: sub.logged };
    }
    match compacted(cx, sub, mark) {
        Built::Sub(mut sub) if fails => {
            on_error(cx, &mut sub.plane, &a.id, mark);
            Built::Sub(sub)
        }
        built => built,
    }
}

/// `sub` as one call of `toscanini_run` where its steps are all calls
/// ([`program::compact`]), marking the instance of `mark` ERROR on a
/// failure; else as it is.
fn compacted(cx: &mut Ctx, sub: Sub, mark: Option<TemplateRef>) -> Built {
    if !sub.locals.is_empty() || !sub.outputs.is_empty() {
        return Built::Sub(sub);
    }
    let url = mark.map(|t| cx.names.url(t));
    match program::compact(&sub.plane, &mut cx.text, url, &[]) {
        Some(call) => Built::Call {
            call,
            repeat: sub.repeat,
        },
        None => Built::Sub(sub),
    }
}

/// Whether a plane is a start event followed by an end event.
fn is_plain(plane: &Plane) -> bool {
    plane.nodes.len() == 2
        && matches!(plane.nodes[0].kind, Kind::Start(None))
        && matches!(plane.nodes[1].kind, Kind::End(None))
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
/// activity id). Also whether it has no steps (nothing in it can fail).
fn activity(cx: &mut Ctx, plan: &ConcretePlan, i: usize, routing: &Routing) -> (Sub, bool) {
    let a = &plan.plan.activities[i];
    let mut plane = Plane::new(cx.text.add(&a.id));
    let id = cx.id(&a.id, "_start");
    let start = plane.add(id, Str::default(), Kind::Start(None));
    let inside = routing.inside[i];
    let gate =
        (inside && routing.skippable[i]).then(|| gate(cx, plan, i, routing, &mut plane, start));
    let first = gate.as_ref().map_or(start, |g| g.split);
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
    let empty = add_steps(cx, plan, i, steps_plane, steps_start);
    // An activity that does nothing writes no log entries, as its BPEL
    // `<empty>` does not.
    let logged = !plan.bodies[i].does_nothing();
    if let Some(tried) = tried {
        catch_routed(cx, plan, i, routing, &mut plane, tried, first);
    }
    if let Some(gate) = gate {
        open_gate(cx, i, routing, &mut plane, gate, logged);
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
        logged,
    };
    (sub, empty)
}

/// A per-instance activity outside any routing as [`activity`] builds it,
/// the steps of its turn built already.
fn per_instance_activity(cx: &mut Ctx, plan: &ConcretePlan, i: usize, steps: Plane) -> Sub {
    let a = &plan.plan.activities[i];
    let mut plane = Plane::new(cx.text.add(&a.id));
    let id = cx.id(&a.id, "_start");
    let start = plane.add(id, Str::default(), Kind::Start(None));
    let body = &plan.bodies[i];
    let outputs = turn_outputs(cx, plan, i);
    each_instance(
        cx, &mut plane, start, &a.id, a.template, body, steps, outputs,
    );
    Sub {
        plane,
        expanded: false,
        repeat: Repeat::Once,
        locals: Vec::new(),
        outputs: Vec::new(),
        logged: true,
    }
}

/// The plan outputs the turns of activity `i` set, with the expressions
/// of their values in a turn ([`crate::render::collected`]).
fn turn_outputs(cx: &Ctx, plan: &ConcretePlan, i: usize) -> Vec<(String, String)> {
    let names = crate::render::collected::output_names(cx.topology, plan);
    let collected = crate::render::collected::collected_outputs(plan);
    plan.outputs
        .iter()
        .zip(names)
        .zip(collected)
        .filter(|(_, by)| *by == Some(i))
        .map(|(((_, b), name), _)| (name, cx.expr(b)))
        .collect()
}

/// The gateway that skips an activity unless every edge into it holds.
struct Gate {
    /// The exclusive split.
    split: usize,
    /// Its flow to the end event `_skipped`.
    to_skip: usize,
    /// The JUEL condition under which every edge in holds.
    live: String,
}

/// Add the gateway of activity `i` after `start`, with its way to the end
/// event `_skipped`; the way into the steps follows from the split.
fn gate(
    cx: &mut Ctx,
    plan: &ConcretePlan,
    i: usize,
    routing: &Routing,
    plane: &mut Plane,
    start: usize,
) -> Gate {
    let a = &plan.plan.activities[i];
    let (id, label) = (cx.id(&a.id, "_gate"), cx.text.add("run?"));
    let split = plane.add(id, label, Kind::Xor(None));
    plane.connect(start, split);
    let (id, label) = (cx.id(&a.id, "_skipped"), cx.text.add("skipped"));
    let skipped = plane.add(id, label, Kind::End(None));
    let live = routing.live_condition(&plan.plan, i);
    let to_skip = if routing.runs_without_failures[i] {
        // The default runs it: the way of a run without failures.
        let c = cx.text.fmt(format_args!("${{!({live})}}"));
        plane.connect_if(split, skipped, Some(c), "skip")
    } else {
        plane.connect_if(split, skipped, None, "skip")
    };
    Gate {
        split,
        to_skip,
        live,
    }
}

/// Label the flow from the gateway into the steps (it logs the start of an
/// activity that is `logged`), and choose the gateway's default: that
/// flow, or, where it is taken only when every edge holds, the way to
/// `_skipped`.
fn open_gate(
    cx: &mut Ctx,
    i: usize,
    routing: &Routing,
    plane: &mut Plane,
    gate: Gate,
    logged: bool,
) {
    let run = plane
        .flows
        .iter()
        .position(|f| f.from() == gate.split && f.name.is_empty())
        .expect("the gateway leads into the steps");
    plane.flows[run].name = "run";
    if logged {
        plane.flows[run].log = FlowLog::Started;
    }
    let default = if routing.runs_without_failures[i] {
        run
    } else {
        let live = &gate.live;
        plane.flows[run].condition = Some(cx.text.fmt(format_args!("${{{live}}}")));
        gate.to_skip
    };
    set_default(plane, gate.split, default);
}

/// The steps of activity `i`, after node `start` of `plane`: once, or per
/// instance. Whether it has none (only the end event added).
fn add_steps(cx: &mut Ctx, plan: &ConcretePlan, i: usize, plane: &mut Plane, start: usize) -> bool {
    let a = &plan.plan.activities[i];
    let body = &plan.bodies[i];
    let before = plane.nodes.len();
    if body.per_instance {
        let steps = turn_steps(cx, &a.id, a.template, body);
        let outputs = turn_outputs(cx, plan, i);
        each_instance(cx, plane, start, &a.id, a.template, body, steps, outputs);
    } else {
        let mut chain = Chain::new(plane, start);
        for (k, step) in body.steps.iter().enumerate() {
            steps::step(cx, &mut chain, step, Prefix::step(&a.id, "_s", k + 1));
        }
        let id = cx.id(&a.id, "_end");
        chain.then(id, Str::default(), Kind::End(None));
    }
    plane.nodes.len() - before <= 1
}

/// A routed activity's steps (`tried`) in the subprocess `_try` after
/// node `first`: its failure is caught and routed (`on_failure`), the
/// boundary event storing the error's code as its outcome, and the
/// activity ends normally either way. As in the BPEL plan, a routed
/// activity does not mark its instance ERROR (a termination activity still
/// does so per instance, inside its loop).
fn catch_routed(
    cx: &mut Ctx,
    plan: &ConcretePlan,
    i: usize,
    routing: &Routing,
    plane: &mut Plane,
    tried: Plane,
    first: usize,
) {
    let a = &plan.plan.activities[i];
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
    let routed = plane.connect(catch, caught);
    // The activity's end is logged `cancelled`, as its BPEL scope's is.
    plane.flows[routed].log = FlowLog::Failed;
}
