//! The test plan (OpenTOSCA `BPELTestManagementProcessBuilder`, anchor §2):
//! every node with test operations runs them, bottom-up (a node after the
//! nodes it is hosted on or depends on, as in the build plan), so that a
//! failing platform is reported before what runs on it.
//!
//! In: the build plan and the topology. Out: the test plan: one
//! [`ActivityKind::Test`] per node with implemented test operations,
//! ordered as their provisioning activities are.

use super::build::finish;
use super::features::tests;
use super::restrict::restrict;
use super::{AbstractPlan, Activity, ActivityKind, PlanKind};
use crate::diagnostics::Diagnostic;
use crate::model::{TemplateRef, Topology};

/// Derive the test plan from the build plan.
pub fn test_plan(build: &AbstractPlan, topology: &Topology) -> Result<AbstractPlan, Diagnostic> {
    let tested =
        |a: &Activity| matches!(a.template, TemplateRef::Node(n) if !tests(topology, n).is_empty());
    let (kept, edges) = restrict(build.activities.clone(), &build.edges, tested);
    let activities = kept
        .into_iter()
        .map(|a| Activity {
            id: a
                .id
                .strip_suffix("_provision")
                .map(|s| format!("{s}_test"))
                .unwrap_or_else(|| format!("{}_test", a.id)),
            template: a.template,
            kind: ActivityKind::Test,
        })
        .collect();
    finish(PlanKind::Test, activities, edges, topology)
}
