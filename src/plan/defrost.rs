//! The defrost plan (OpenTOSCA `BPELDefrostProcessBuilder`, anchor §2): the
//! build plan in which every freezable node that can restore its state
//! gets it back after it is started, before anything that depends on it
//! starts (its activity ends only once the state is back, and the build
//! order puts its dependants after it).
//!
//! In: the build plan and the topology. Out: the defrost plan. Unlike
//! OpenTOSCA, the nodes hosted on a defrosted node are provisioned as in
//! the build plan (OpenTOSCA skips them, leaving them without instances).

use super::build::finish;
use super::features::defrostable;
use super::{AbstractPlan, Activity, ActivityKind, PlanKind};
use crate::diagnostics::Diagnostic;
use crate::model::{TemplateRef, Topology};

/// Derive the defrost plan from the build plan.
pub fn defrost_plan(build: &AbstractPlan, topology: &Topology) -> Result<AbstractPlan, Diagnostic> {
    let activities = build
        .activities
        .iter()
        .map(|a| match a.template {
            TemplateRef::Node(n) if defrostable(topology, n).is_ok() => Activity {
                id: a
                    .id
                    .strip_suffix("_provision")
                    .map(|s| format!("{s}_defrost"))
                    .unwrap_or_else(|| format!("{}_defrost", a.id)),
                template: a.template,
                kind: ActivityKind::Defrost,
            },
            _ => a.clone(),
        })
        .collect();
    finish(PlanKind::Defrost, activities, build.edges.clone(), topology)
}
