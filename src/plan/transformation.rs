//! The transformation plan (OpenTOSCA `BPELTransformationProcessBuilder`,
//! anchor §2): turn a running instance of service template A into one of
//! B. On the merged topology ([`crate::model::merge`]: A's templates, then
//! those only B has): what only A has is terminated in termination order;
//! what only B has is provisioned in build order, like a scale-out region
//! whose border is the common nodes it stands on or connects to (their
//! instances selected first, `FirstInstance`, and the instances below them
//! followed); common templates are left alone.
//!
//! In: the merged topology, the templates to terminate and to provision,
//! and the plan's kind. Out: the plan. Unlike OpenTOSCA, which links every
//! sink of one part to every source of the next, the two parts meet only
//! where they touch the same common node: what is detached from it is
//! terminated before what is attached to it is provisioned (so a common
//! node is reconnected, never connected twice); everything else runs in
//! parallel.

use std::collections::{BTreeSet, HashMap, HashSet};

use super::build::finish;
use super::restrict::restrict;
use super::{
    AbstractPlan, ActivityKind, Edge, OrderingRules, PlanKind, Reason, build_plan, scale_out_plan,
    termination_plan,
};
use crate::diagnostics::Diagnostics;
use crate::model::{NodeId, ScalingRegion, Selection, TemplateRef, Topology};

/// Derive the transformation plan on `merged`.
pub fn transformation_plan(
    merged: &Topology,
    terminate: &HashSet<TemplateRef>,
    provision: &HashSet<TemplateRef>,
    kind: PlanKind,
    rules: &OrderingRules,
) -> Result<AbstractPlan, Diagnostics> {
    let build = build_plan(merged, rules)?;
    let termination = termination_plan(&build, merged)?;
    let (mut activities, mut edges) = restrict(termination.activities, &termination.edges, |a| {
        terminate.contains(&a.template)
    });
    let region = region(merged, provision);
    let offset = activities.len();
    if !region.nodes.is_empty() || !region.relationships.is_empty() {
        let added = scale_out_plan(merged, &region)?;
        activities.extend(added.activities);
        edges.extend(added.edges.into_iter().map(|e| Edge {
            from: offset + e.from,
            to: offset + e.to,
            reason: e.reason,
        }));
    }
    // Where both parts touch a common node: detach before attach.
    let common = |n: NodeId| {
        let t = TemplateRef::Node(n);
        !terminate.contains(&t) && !provision.contains(&t)
    };
    let touches = |i: usize| -> Vec<NodeId> {
        match activities[i].template {
            TemplateRef::Relationship(r) => {
                let rel = merged.relationship(r);
                [rel.source, rel.target]
                    .into_iter()
                    .filter(|&n| common(n))
                    .collect()
            }
            TemplateRef::Node(_) => Vec::new(),
        }
    };
    let mut detaching: HashMap<NodeId, Vec<usize>> = HashMap::new();
    for t in 0..offset {
        for n in touches(t) {
            detaching.entry(n).or_default().push(t);
        }
    }
    let mut glue = BTreeSet::new();
    let provisions =
        (offset..activities.len()).filter(|&p| activities[p].kind == ActivityKind::Provision);
    for p in provisions {
        for n in touches(p) {
            for &t in detaching.get(&n).into_iter().flatten() {
                glue.insert(Edge {
                    from: t,
                    to: p,
                    reason: Reason::Reconnect(n),
                });
            }
        }
    }
    edges.extend(glue);
    // Ids stay as their parts made them: `<template>_terminate`,
    // `<template>_provision`, `<node>_select`, `<rel>_follow`.
    let mut seen = HashSet::new();
    for a in &mut activities {
        while !seen.insert(a.id.clone()) {
            a.id.push('_');
        }
    }
    finish(kind, activities, edges, merged).map_err(Diagnostics::from)
}

/// The templates to provision as a region: its border is every common node
/// a relationship of it reaches, selected as `FirstInstance`.
fn region(merged: &Topology, provision: &HashSet<TemplateRef>) -> ScalingRegion {
    let mut nodes: Vec<NodeId> = Vec::new();
    let mut relationships = Vec::new();
    let mut border: BTreeSet<NodeId> = BTreeSet::new();
    for t in merged.node_ids() {
        if provision.contains(&TemplateRef::Node(t)) {
            nodes.push(t);
        }
    }
    for r in merged.relationship_ids() {
        if !provision.contains(&TemplateRef::Relationship(r)) {
            continue;
        }
        relationships.push(r);
        let rel = merged.relationship(r);
        for n in [rel.source, rel.target] {
            if !provision.contains(&TemplateRef::Node(n)) {
                border.insert(n);
            }
        }
    }
    ScalingRegion {
        name: "transformation".into(),
        nodes,
        relationships,
        selections: border
            .into_iter()
            .map(|node| Selection {
                node,
                strategy: "FirstInstance".into(),
                argument: None,
            })
            .collect(),
        origin: None,
    }
}
