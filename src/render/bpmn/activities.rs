//! `plan_activities`: the plan graph as an expanded subprocess, with
//! gateways where it forks and joins. Every activity is a collapsed
//! subprocess whose id is the activity id, built later
//! ([`super::activity`]); a fork is a parallel gateway after an activity
//! with several successors, a join one before an activity with several
//! predecessors, and nothing else is added, so the process is exactly as
//! parallel as the plan graph.
//!
//! Failures: an activity that fails marks its instance ERROR and throws
//! the activity error itself (its own error path, or that of the process
//! it calls: [`super::activity`]), so the plan graph carries none; the
//! event subprocess `_onFailure` compensates the finished activities and
//! fails the plan.
//!
//! With `on_failure` routing drawn by token ([`super::routing`]), an
//! activity may also leave by its failure (the error boundary event of a
//! routed activity) or be skipped (its marker `<activity>_skipped`), and
//! every edge takes the token of each exit of its source to its target,
//! which it enters on the exit where the edge holds and skips on the
//! others.
//!
//! In: the plan, its [`Routing`] and the [`Ctx`]. Out: the subprocess.

use super::activity::Later;
use super::chain::Chain;
use super::ctx::Ctx;
use super::errors::{ERR_ACTIVITY, ERR_PLAN};
use super::graph::{self, Adjacency, Kind, Plane, Repeat, Str, Sub};
use super::routing::{Exit, Routing};
use crate::plan::{AbstractPlan, Reason};
use crate::plugins::ConcretePlan;

/// `plan_activities`: the plan graph, with gateways where it forks and joins.
pub(crate) fn subprocess(cx: &mut Ctx, plan: &ConcretePlan, routing: &Routing) -> Sub {
    let p = &plan.plan;
    // Its flows, a few per activity, are `plan_f<n>` (see [`super::process`]).
    let mut plane = Plane::new(cx.plan_id(""));
    let id = cx.plan_id("_activitiesStart");
    let start = plane.add(id, Str::default(), Kind::Start(None));
    let n = p.activities.len();
    let graph = Adjacency::new(n, p.edges.iter().map(|e| (e.from, e.to)));
    // Activities, each with its error boundary event and compensation handler.
    let mut node = Vec::with_capacity(n);
    let mut caught: Vec<Option<usize>> = Vec::with_capacity(n);
    for i in 0..n {
        let (host, catch) = add_activity(cx, plan, routing, &mut plane, i);
        node.push(host);
        caught.push(catch);
    }
    let mut drawn = Drawn::new(node, caught);
    drawn.gateways(cx, p, routing, &graph, &mut plane);
    drawn.connect(cx, p, routing, &graph, &mut plane, start);
    let on_failure = on_failure(cx);
    let prefix = cx.plan;
    let text = &mut cx.text;
    let (id, label) = (
        text.fmt(format_args!("{prefix}_onFailure")),
        text.add("on failure"),
    );
    plane.add(id, label, Kind::Sub(Box::new(on_failure)));
    Sub {
        plane,
        expanded: true,
        repeat: Repeat::Once,
        locals: Vec::new(),
        outputs: Vec::new(),
        logged: false,
    }
}

/// Whether activity `i` is drawn by token: routed or skippable, in a
/// region without joins.
fn by_token(routing: &Routing, i: usize) -> bool {
    (routing.routed[i] || routing.skippable[i]) && !routing.inside[i]
}

/// Add activity `i` (built later: [`Kind::Deferred`]) with its
/// compensation handler and, where its failure is routed, the error
/// boundary event that catches it. Returns its node and that event.
fn add_activity(
    cx: &mut Ctx,
    plan: &ConcretePlan,
    routing: &Routing,
    plane: &mut Plane,
    i: usize,
) -> (usize, Option<usize>) {
    let a = &plan.plan.activities[i];
    let id = cx.text.add(&a.id);
    let label = cx.text.fmt(format_args!(
        "{} {}",
        cx.topology.template_id(a.template),
        a.kind.name()
    ));
    let host = plane.add(id, label, Kind::Deferred(Later::Activity.key(i)));
    let mut caught = None;
    if routing.routed[i] && routing.inside[i] {
        // It catches its failure itself (in `<activity>_try`).
    } else if routing.routed[i] {
        // Its failure is caught and routed (`on_failure`) instead of
        // failing the plan; as in the BPEL plan, a routed activity
        // does not mark its instance ERROR (a termination activity
        // still does so per instance, inside its loop).
        let (id, label) = (cx.id(&a.id, "_catch"), cx.text.add("failed"));
        let catch = plane.add(id, label, error_boundary(host, true));
        caught = Some(catch);
    }
    // Any other failure is the activity's to handle: it marks its
    // instance ERROR and throws the activity error ([`super::activity`]).
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
    (host, caught)
}

/// An error boundary event on `host`; `routes`: it routes the failure on
/// into the plan graph.
fn error_boundary(host: usize, routes: bool) -> Kind {
    Kind::Boundary {
        host: graph::small(host),
        error: true,
        routes,
        code: None,
        message: None,
    }
}

/// Where control enters each activity (its join or itself) and leaves it
/// (its fork or itself): gateways only where the graph forks or joins.
/// Drawn by token, an activity also has a failure exit (its boundary
/// event, or a fork after it) and a skip exit (its marker, or a fork after
/// it), each leaving by one flow per edge, and it is skipped where
/// `skip_in` is (its marker, or a merge before it when its one edge in is
/// dead on two exits of its source).
struct Drawn {
    /// The node of each activity.
    node: Vec<usize>,
    /// The boundary event that catches a routed activity's failure.
    caught: Vec<Option<usize>>,
    entry: Vec<usize>,
    exit: Vec<usize>,
    exit_failed: Vec<Option<usize>>,
    exit_skipped: Vec<Option<usize>>,
    skip_in: Vec<Option<usize>>,
    /// The end event of a last activity that may be skipped.
    finished: Vec<Option<usize>>,
}

impl Drawn {
    fn new(node: Vec<usize>, caught: Vec<Option<usize>>) -> Drawn {
        let n = node.len();
        Drawn {
            entry: node.clone(),
            exit: node.clone(),
            exit_failed: caught.clone(),
            exit_skipped: vec![None; n],
            skip_in: vec![None; n],
            finished: vec![None; n],
            node,
            caught,
        }
    }

    /// Add the joins, forks, skip markers and failure forks.
    fn gateways(
        &mut self,
        cx: &mut Ctx,
        p: &AbstractPlan,
        routing: &Routing,
        graph: &Adjacency,
        plane: &mut Plane,
    ) {
        for i in 0..self.node.len() {
            let a = &p.activities[i].id;
            let (ins, outs) = (graph.incoming(i).len(), graph.outgoing(i).len());
            if ins > 1 {
                let id = cx.id(a, "_join");
                let j = plane.add(id, Str::default(), Kind::And);
                plane.connect(j, self.node[i]);
                self.entry[i] = j;
            }
            if outs > 1 {
                let id = cx.id(a, "_fork");
                let f = plane.add(id, Str::default(), Kind::And);
                plane.connect(self.node[i], f);
                self.exit[i] = f;
            }
            if !by_token(routing, i) {
                continue;
            }
            if routing.skippable[i] {
                self.skip(cx, p, routing, graph, plane, i);
            }
            if let Some(catch) = self.caught[i]
                && outs > 1
            {
                let id = cx.id(a, "_failFork");
                let f = plane.add(id, Str::default(), Kind::And);
                plane.connect(catch, f);
                self.exit_failed[i] = Some(f);
            }
        }
    }

    /// The skip marker of activity `i`, where it is entered and left.
    fn skip(
        &mut self,
        cx: &mut Ctx,
        p: &AbstractPlan,
        routing: &Routing,
        graph: &Adjacency,
        plane: &mut Plane,
        i: usize,
    ) {
        let a = &p.activities[i].id;
        let outs = graph.outgoing(i).len();
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
        self.skip_in[i] = Some(if routing.exits(e.from).count() > 2 {
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
            self.exit_skipped[i] = Some(f);
        } else if outs == 1 {
            self.exit_skipped[i] = Some(marker);
        } else {
            // A last activity that may be skipped ends in an end event
            // of its own either way (a join of the ends would wait for
            // the way not taken).
            let (id, label) = (cx.id(a, "_finished"), cx.text.add("done"));
            self.finished[i] = Some(plane.add(id, label, Kind::End(None)));
        }
    }

    /// Where exit `x` of activity `i` leaves.
    fn exit_of(&self, i: usize, x: Exit) -> usize {
        match x {
            Exit::Succeeded => self.exit[i],
            Exit::Failed => self.exit_failed[i].expect("a routed activity has a failure exit"),
            Exit::Skipped => self.exit_skipped[i].expect("a skippable activity has a skip exit"),
        }
    }

    /// The flows: from `start` into the sources (through a fork if there
    /// are several), along the edges, and from the last activities that
    /// always end normally to the end (through a join if there are
    /// several).
    fn connect(
        &self,
        cx: &mut Ctx,
        p: &AbstractPlan,
        routing: &Routing,
        graph: &Adjacency,
        plane: &mut Plane,
        start: usize,
    ) {
        let n = self.node.len();
        let sources: Vec<usize> = (0..n).filter(|&i| graph.incoming(i).is_empty()).collect();
        let sinks: Vec<usize> = (0..n).filter(|&i| graph.outgoing(i).is_empty()).collect();
        // The end: the last activities that always end normally join there.
        let joined: Vec<usize> = sinks
            .iter()
            .copied()
            .filter(|&i| self.finished[i].is_none())
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
            plane.connect(from_start, self.entry[i]);
        }
        self.edges(p, routing, plane);
        let to_end = match end {
            Some(end) if joined.len() > 1 => {
                let j = plane.add(cx.plan_id("_join"), Str::default(), Kind::And);
                plane.connect(j, end);
                Some(j)
            }
            end => end,
        };
        for &i in &sinks {
            if let Some(to) = self.finished[i].or(to_end) {
                plane.connect(self.exit[i], to);
            }
        }
    }

    /// The flows of the plan's edges: exit to entry, or, into an activity
    /// drawn by token, one flow per exit of the source, into the activity
    /// on the exit where the edge holds and into its skip on the others.
    fn edges(&self, p: &AbstractPlan, routing: &Routing, plane: &mut Plane) {
        for (k, e) in p.edges.iter().enumerate() {
            let (a, b) = (e.from, e.to);
            if !(routing.conditional[k] && by_token(routing, b)) {
                let label = if e.reason == Reason::OnFailure {
                    "on failure"
                } else {
                    ""
                };
                plane.connect_if(self.exit[a], self.entry[b], None, label);
                continue;
            }
            let live = Routing::live(e);
            let skip = self.skip_in[b].expect("a skippable activity has a skip entry");
            for x in routing.exits(a) {
                if x == live {
                    plane.connect(self.exit_of(a, x), self.node[b]);
                } else {
                    plane.connect(self.exit_of(a, x), skip);
                }
            }
        }
    }
}

/// The event subprocess of `plan_activities`: on the failure of any
/// activity, compensate the finished ones and fail the plan.
fn on_failure(cx: &mut Ctx) -> Sub {
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
    Sub {
        plane: on_failure,
        expanded: true,
        repeat: Repeat::OnError,
        locals: Vec::new(),
        outputs: Vec::new(),
        logged: false,
    }
}
