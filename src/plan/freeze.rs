//! The freeze plan (OpenTOSCA `BPELFreezeProcessBuilder`, anchor §2): the
//! termination plan in which every freezable node saves its state first.
//!
//! In: the termination plan and the topology. Out: the freeze plan: the
//! same activities and edges, a freezable node's activity a
//! [`ActivityKind::Freeze`] (save the state, then terminate), every other
//! one a termination. Unlike OpenTOSCA, a node that is stateful but not
//! freezable is terminated like the rest (OpenTOSCA leaves it running on a
//! host it terminates); the caller warns about it.

use super::build::finish;
use super::features::freezable;
use super::{AbstractPlan, Activity, ActivityKind, PlanKind};
use crate::diagnostics::Diagnostic;
use crate::model::{TemplateRef, Topology};

/// Derive the freeze plan from the termination plan.
pub fn freeze_plan(
    termination: &AbstractPlan,
    topology: &Topology,
) -> Result<AbstractPlan, Diagnostic> {
    let activities = termination
        .activities
        .iter()
        .map(|a| match a.template {
            TemplateRef::Node(n) if freezable(topology, n).is_ok() => Activity {
                id: a
                    .id
                    .strip_suffix("_terminate")
                    .map(|s| format!("{s}_freeze"))
                    .unwrap_or_else(|| format!("{}_freeze", a.id)),
                template: a.template,
                kind: ActivityKind::Freeze,
            },
            _ => a.clone(),
        })
        .collect();
    finish(
        PlanKind::Freeze,
        activities,
        termination.edges.clone(),
        topology,
    )
}
