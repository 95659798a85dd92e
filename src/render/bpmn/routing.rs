//! `on_failure` routing of imperative workflows, with the semantics of the
//! BPEL backend: a routed activity catches its own failure; each edge out
//! of it holds if it succeeded (an `on_failure` edge: if it failed); an
//! activity runs only when all its incoming edges hold, and one that does
//! not run makes all its outgoing edges fail (dead-path elimination).
//!
//! The activities that a failure can skip, and the routed activities
//! before them, form regions (connected by the edges that may fail). A
//! region is drawn one of two ways.
//!
//! * **By token**, where no activity of the region has two incoming
//!   edges: every activity has up to three exits, its normal outgoing flow
//!   (succeeded), the error boundary event of a routed activity (failed)
//!   and its skip marker `<activity>_skipped` (skipped); an edge is live
//!   on one exit of its source and dead on the others, and its target is
//!   entered by the live exit and skipped by the dead ones. The engine
//!   decides by the flow the token takes; no variable is read, and every
//!   path ends in an end event without passing a join.
//! * **Inside the activities**, where an activity of the region has
//!   several incoming edges: its join needs one token per edge, live or
//!   dead. A merge of a succeeded and a failed exit before a parallel join
//!   is sound BPMN, but engines with dead-path elimination (bpmn-engine)
//!   pass the untaken exit's discard through the merge into the join, and
//!   its join then fires early or waits for ever. So every activity of the
//!   region ends normally whatever happens to it: a routed one runs its
//!   steps in a subprocess `<activity>_try` whose error boundary event
//!   stores the error's code and ends the activity; one that may be
//!   skipped starts with an exclusive gateway that reads the outcome
//!   variables of its predecessors. The graph between the activities is
//!   the plain one (forks and joins only). An engine that cannot evaluate
//!   the gateways' JUEL takes their default flows, which are the path of a
//!   run in which nothing fails.
//!
//! Everything here depends on the plan graph only; plans without
//! `on_failure` edges have no routing at all.

use super::graph::Adjacency;
use crate::plan::{AbstractPlan, Edge, Reason};

/// An exit of an activity (regions drawn by token).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Exit {
    /// It ran and succeeded.
    Succeeded,
    /// It failed and its failure is routed.
    Failed,
    /// It did not run.
    Skipped,
}

/// The routing of one plan.
pub(crate) struct Routing {
    /// Per activity: it has `on_failure` edges; it catches its failure.
    pub routed: Vec<bool>,
    /// Per activity: an edge into it may be dead, so it may be skipped.
    pub skippable: Vec<bool>,
    /// Per activity: routed or skippable, in a region drawn inside the
    /// activities (it always ends normally, and decides from variables).
    pub inside: Vec<bool>,
    /// Per activity: it runs when no activity fails (the default flow of
    /// its gateway, so that an engine that cannot evaluate the condition
    /// takes the path of a run without failures).
    pub runs_without_failures: Vec<bool>,
    /// Per activity: the variable that records how it ended (`ok`, the
    /// error code of its failure, or empty when it did not run), read by
    /// the gateways of its successors (regions drawn inside the activities).
    pub outcome: Vec<Option<String>>,
    /// Per edge: it may be dead (its source may fail or be skipped).
    pub conditional: Vec<bool>,
}

impl Routing {
    /// The routing of `plan`; `var` names the outcome variable of an
    /// activity (called once per activity that needs one, in order).
    pub(crate) fn new(plan: &AbstractPlan, mut var: impl FnMut(&str) -> String) -> Routing {
        let n = plan.activities.len();
        let graph = Adjacency::new(n, plan.edges.iter().map(|e| (e.from, e.to)));
        let mut routed = vec![false; n];
        for e in &plan.edges {
            routed[e.from] |= e.reason == Reason::OnFailure;
        }
        let any = routed.iter().any(|&r| r);
        let mut skippable = vec![false; n];
        let mut runs = vec![true; n];
        let mut conditional = vec![false; plan.edges.len()];
        // Regions: activities connected by conditional edges (union-find).
        let mut region: Vec<usize> = (0..n).collect();
        fn find(region: &mut [usize], mut i: usize) -> usize {
            while region[i] != i {
                region[i] = region[region[i]];
                i = region[i];
            }
            i
        }
        if any {
            // Activities are in a topological order: every edge goes from
            // a lower index to a higher one.
            for i in 0..n {
                for &k in graph.incoming(i) {
                    let k = k as usize;
                    let e = &plan.edges[k];
                    debug_assert!(e.from < i, "plan activities are topologically ordered");
                    conditional[k] = routed[e.from] || skippable[e.from];
                    skippable[i] |= conditional[k];
                    runs[i] &= runs[e.from] && e.reason != Reason::OnFailure;
                    if conditional[k] {
                        let (a, b) = (find(&mut region, e.from), find(&mut region, i));
                        region[a] = b;
                    }
                }
            }
        }
        // A region with a join is drawn inside its activities.
        let mut joins = vec![false; n];
        for (i, _) in skippable.iter().enumerate().filter(|(_, s)| **s) {
            if graph.incoming(i).len() > 1 {
                let r = find(&mut region, i);
                joins[r] = true;
            }
        }
        let inside: Vec<bool> = (0..n)
            .map(|i| (routed[i] || skippable[i]) && joins[find(&mut region, i)])
            .collect();
        let mut outcome = vec![None; n];
        for (k, e) in plan.edges.iter().enumerate() {
            if conditional[k] && inside[e.to] && outcome[e.from].is_none() {
                outcome[e.from] = Some(var(&plan.activities[e.from].id));
            }
        }
        Routing {
            routed,
            skippable,
            inside,
            runs_without_failures: runs,
            outcome,
            conditional,
        }
    }

    /// The exits of activity `i` (regions drawn by token), succeeded first.
    pub(crate) fn exits(&self, i: usize) -> impl Iterator<Item = Exit> + use<> {
        [
            Some(Exit::Succeeded),
            self.routed[i].then_some(Exit::Failed),
            self.skippable[i].then_some(Exit::Skipped),
        ]
        .into_iter()
        .flatten()
    }

    /// The exit on which an edge is live.
    pub(crate) fn live(e: &Edge) -> Exit {
        if e.reason == Reason::OnFailure {
            Exit::Failed
        } else {
            Exit::Succeeded
        }
    }

    /// The JUEL condition (without `${}`) that every edge into activity
    /// `i` (skippable, drawn inside) holds: a conditional edge from a
    /// source that succeeded (`ok`) or, for `on_failure`, failed (a caught
    /// error's code); other edges hold whenever their token arrives.
    pub(crate) fn live_condition(&self, plan: &AbstractPlan, i: usize) -> String {
        let mut terms: Vec<String> = Vec::new();
        for (k, e) in plan.edges.iter().enumerate() {
            if e.to != i || !self.conditional[k] {
                continue;
            }
            let v = self.outcome[e.from].as_deref().expect(
                "the source of a conditional edge in a region drawn inside has an outcome variable",
            );
            terms.push(match Self::live(e) {
                Exit::Failed => format!("{v} != '' && {v} != 'ok'"),
                _ => format!("{v} == 'ok'"),
            });
        }
        terms.join(" && ")
    }

    /// The JUEL expression (with `${}`) of activity `i`'s outcome when it
    /// ends normally (regions drawn inside): `ok`, or the error code its
    /// error event subprocess stored, or empty if it was skipped.
    pub(crate) fn outcome_value(&self, plan: &AbstractPlan, i: usize) -> Option<String> {
        let v = self.outcome[i].as_deref()?;
        let ran = if self.routed[i] {
            format!("({v} == '' ? 'ok' : {v})")
        } else {
            "'ok'".to_string()
        };
        Some(if self.skippable[i] {
            format!("${{({}) ? {ran} : ''}}", self.live_condition(plan, i))
        } else {
            format!("${{{ran}}}")
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{NodeId, TemplateRef};
    use crate::plan::{Activity, ActivityKind, PlanKind};

    fn plan(ids: &[&str], edges: &[(usize, usize, Reason)]) -> AbstractPlan {
        AbstractPlan {
            kind: PlanKind::Workflow("w".into()),
            activities: ids
                .iter()
                .map(|id| Activity {
                    id: id.to_string(),
                    template: TemplateRef::Node(NodeId(0)),
                    kind: ActivityKind::Provision,
                })
                .collect(),
            edges: edges
                .iter()
                .map(|&(from, to, reason)| Edge { from, to, reason })
                .collect(),
        }
    }

    #[test]
    fn no_on_failure_no_routing() {
        let p = plan(
            &["a", "b", "c"],
            &[(0, 2, Reason::Step), (1, 2, Reason::Step)],
        );
        let r = Routing::new(&p, |_| unreachable!());
        assert!(r.routed.iter().all(|&x| !x));
        assert!(r.skippable.iter().all(|&s| !s));
        assert!(r.conditional.iter().all(|&c| !c));
    }

    #[test]
    fn dead_paths_reach_what_follows_a_routed_activity() {
        // notify → shutdown, backup; shutdown → restart; backup → restart;
        // backup -(on_failure)→ admins (the Puccini workflow example).
        let p = plan(
            &["notify", "shutdown", "backup", "admins", "restart"],
            &[
                (0, 1, Reason::Step),
                (0, 2, Reason::Step),
                (1, 4, Reason::Step),
                (2, 3, Reason::OnFailure),
                (2, 4, Reason::Step),
            ],
        );
        let r = Routing::new(&p, |a| format!("{a}_outcome"));
        assert!(r.routed.iter().any(|&x| x));
        assert_eq!(r.routed, [false, false, true, false, false]);
        assert_eq!(r.skippable, [false, false, false, true, true]);
        assert_eq!(r.conditional, [false, false, false, true, true]);
        assert_eq!(r.runs_without_failures, [true, true, true, false, true]);
        // restart joins: the region (backup, admins, restart) is drawn inside.
        assert_eq!(r.inside, [false, false, true, true, true]);
        assert_eq!(
            r.outcome,
            [None, None, Some("backup_outcome".into()), None, None]
        );
        assert_eq!(r.live_condition(&p, 4), "backup_outcome == 'ok'");
        assert_eq!(
            r.live_condition(&p, 3),
            "backup_outcome != '' && backup_outcome != 'ok'"
        );
        assert_eq!(
            r.outcome_value(&p, 2).unwrap(),
            "${(backup_outcome == '' ? 'ok' : backup_outcome)}"
        );
    }

    #[test]
    fn a_region_without_joins_is_routed_by_token() {
        // a -(on_failure)→ b → c; a → d.
        let p = plan(
            &["a", "b", "c", "d"],
            &[
                (0, 1, Reason::OnFailure),
                (0, 3, Reason::Step),
                (1, 2, Reason::Step),
            ],
        );
        let r = Routing::new(&p, |_| unreachable!());
        assert_eq!(r.skippable, [false, true, true, true]);
        assert_eq!(r.inside, [false; 4]);
        assert_eq!(r.outcome, [None, None, None, None]);
        assert_eq!(
            r.exits(0).collect::<Vec<_>>(),
            [Exit::Succeeded, Exit::Failed]
        );
        assert_eq!(
            r.exits(1).collect::<Vec<_>>(),
            [Exit::Succeeded, Exit::Skipped]
        );
        assert_eq!(r.runs_without_failures, [true, false, false, true]);
    }

    #[test]
    fn a_gate_after_two_failure_routes_reads_both_outcomes() {
        // a -(on_failure)→ c, b → c: c runs if a failed and b succeeded;
        // b is routed too (b -(on_failure)→ d).
        let p = plan(
            &["a", "b", "c", "d"],
            &[
                (0, 2, Reason::OnFailure),
                (1, 2, Reason::Step),
                (1, 3, Reason::OnFailure),
            ],
        );
        let r = Routing::new(&p, |a| format!("{a}_outcome"));
        assert_eq!(r.inside, [true; 4]);
        assert_eq!(
            r.live_condition(&p, 2),
            "a_outcome != '' && a_outcome != 'ok' && b_outcome == 'ok'"
        );
        assert_eq!(r.outcome_value(&p, 2), None, "nothing reads c's outcome");
        assert_eq!(r.runs_without_failures, [true, true, false, false]);
    }
}
