//! The termination plan: the build plan's activities and edges reversed
//! (what was created last is removed first).

use super::build::finish;
use super::{AbstractPlan, Activity, ActivityKind, Edge, PlanKind};
use crate::diagnostics::Diagnostic;
use crate::model::Topology;

/// Derive the termination plan from the build plan.
pub fn termination_plan(
    build: &AbstractPlan,
    topology: &Topology,
) -> Result<AbstractPlan, Diagnostic> {
    let activities = build
        .activities
        .iter()
        .map(|a| Activity {
            id: a
                .id
                .strip_suffix("_provision")
                .map(|s| format!("{s}_terminate"))
                .unwrap_or_else(|| format!("{}_terminate", a.id)),
            template: a.template,
            kind: ActivityKind::Terminate,
        })
        .collect();
    let edges = build
        .edges
        .iter()
        .map(|e| Edge {
            from: e.to,
            to: e.from,
            reason: e.reason,
        })
        .collect();
    finish(PlanKind::Termination, activities, edges, topology)
}
