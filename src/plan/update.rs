//! The update plan (OpenTOSCA `BPELUpdateProcessBuilder`, anchor §2): the
//! updatable nodes are updated in place (`UpdateManagementInterface`
//! `update`), with what sits on them stopped before and started after.
//!
//! In: the build and termination plans and the topology. Out: the update
//! plan. The nodes updated are the bottom-most updatable ones
//! ([`updated`]); every node that sits on one (hosted, deployed or
//! depending, transitively) is stopped top-down, as in termination (an
//! [`ActivityKind::Stop`], which saves a freezable node's state first),
//! then the node is updated, then they are started bottom-up, as in build
//! (an [`ActivityKind::Start`], which restores the state). Unlike
//! OpenTOSCA, which terminates and provisions them anew, their instances
//! stay: the update changes what runs below them, not them.

use foldhash::HashMap;

use super::build::finish;
use super::features::{above, updated};
use super::restrict::restrict;
use super::{AbstractPlan, Activity, ActivityKind, Edge, PlanKind, Reason};
use crate::diagnostics::Diagnostic;
use crate::model::{NodeId, TemplateRef, Topology};
use crate::names::ncname;

/// Derive the update plan.
pub fn update_plan(
    build: &AbstractPlan,
    termination: &AbstractPlan,
    topology: &Topology,
) -> Result<AbstractPlan, Diagnostic> {
    let targets = updated(topology);
    let mut sitting = vec![false; topology.nodes.len()];
    for &u in &targets {
        for a in above(topology, u) {
            sitting[a.0 as usize] = true;
        }
    }
    let sits = |a: &Activity| matches!(a.template, TemplateRef::Node(n) if sitting[n.0 as usize]);
    let (stops, stop_edges) = restrict(termination.activities.clone(), &termination.edges, sits);
    let (starts, start_edges) = restrict(build.activities.clone(), &build.edges, sits);
    let mut activities: Vec<Activity> = Vec::new();
    let mut edges: Vec<Edge> = Vec::new();
    // Each phase's activities, by node.
    let mut phase = |list: Vec<Activity>, inner: Vec<Edge>, kind: ActivityKind, suffix: &str| {
        let offset = activities.len();
        let mut at = HashMap::default();
        for (i, a) in list.into_iter().enumerate() {
            if let TemplateRef::Node(n) = a.template {
                at.insert(n, offset + i);
            }
            activities.push(Activity {
                id: format!("{}_{suffix}", ncname(&topology.node(node_of(&a)).id)),
                template: a.template,
                kind: kind.clone(),
            });
        }
        edges.extend(inner.into_iter().map(|e| Edge {
            from: offset + e.from,
            to: offset + e.to,
            reason: e.reason,
        }));
        at
    };
    let stop_at = phase(stops, stop_edges, ActivityKind::Stop, "stop");
    let start_at = phase(starts, start_edges, ActivityKind::Start, "start");
    // What sits right on an updated node is stopped before the update and
    // started after it; what sits higher is ordered through it.
    for u in targets {
        let update = activities.len();
        activities.push(Activity {
            id: format!("{}_update", ncname(&topology.node(u).id)),
            template: TemplateRef::Node(u),
            kind: ActivityKind::Update,
        });
        for &r in topology.incoming(u) {
            let rel = topology.relationship(r);
            if !rel.kind.is_infrastructure() {
                continue;
            }
            let reason = Reason::Relationship(r);
            edges.push(Edge {
                from: stop_at[&rel.source],
                to: update,
                reason,
            });
            edges.push(Edge {
                from: update,
                to: start_at[&rel.source],
                reason,
            });
        }
    }
    finish(PlanKind::Update, activities, edges, topology)
}

fn node_of(a: &Activity) -> NodeId {
    match a.template {
        TemplateRef::Node(n) => n,
        TemplateRef::Relationship(_) => unreachable!("only nodes are stopped and started"),
    }
}
