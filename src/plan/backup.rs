//! The backup plan (OpenTOSCA `BPELBackupManagementProcessBuilder`, anchor
//! §2): every node that can save its state does, top-down (a node before
//! the nodes it is hosted on or depends on, as in the termination plan),
//! and nothing is terminated.
//!
//! In: the termination plan and the topology. Out: the backup plan: one
//! [`ActivityKind::Backup`] per node that saves its state, ordered as
//! their termination activities are.

use super::build::finish;
use super::features::saves_state;
use super::restrict::restrict;
use super::{AbstractPlan, Activity, ActivityKind, PlanKind};
use crate::diagnostics::Diagnostic;
use crate::model::{TemplateRef, Topology};

/// Derive the backup plan from the termination plan.
pub fn backup_plan(
    termination: &AbstractPlan,
    topology: &Topology,
) -> Result<AbstractPlan, Diagnostic> {
    let saves = |a: &Activity| matches!(a.template, TemplateRef::Node(n) if saves_state(topology, n).is_ok());
    let (kept, edges) = restrict(termination.activities.clone(), &termination.edges, saves);
    let activities = kept
        .into_iter()
        .map(|a| Activity {
            id: a
                .id
                .strip_suffix("_terminate")
                .map(|s| format!("{s}_backup"))
                .unwrap_or_else(|| format!("{}_backup", a.id)),
            template: a.template,
            kind: ActivityKind::Backup,
        })
        .collect();
    finish(PlanKind::Backup, activities, edges, topology)
}
