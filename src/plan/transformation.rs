//! The transformation plan (OpenTOSCA `BPELTransformationProcessBuilder`,
//! anchor §2): turn a running instance of service template A into one of
//! B. On the merged topology ([`crate::model::merge`]: A's templates, then
//! all of B's): what only A has is terminated in termination order, in
//! A's service instance; B's templates come in build order, in B's new
//! service instance: those only B has are provisioned, those A has too are
//! migrated (their instance registered in B with the A instance's
//! properties and state; nothing runs on them).
//!
//! In: the merged topology, the templates to terminate and the plan's
//! kind. Out: the plan. Unlike OpenTOSCA, which links every sink of one
//! part to every source of the next, the two parts meet only where they
//! touch the same kept node: what is detached from it in A is terminated
//! before what is attached to it in B is provisioned (so a kept node is
//! reconnected, never connected twice); everything else runs in parallel.

use foldhash::{HashMap, HashSet};
use std::collections::BTreeSet;

use super::build::finish;
use super::restrict::restrict;
use super::{
    AbstractPlan, ActivityKind, Edge, OrderingRules, PlanKind, Reason, build_plan, termination_plan,
};
use crate::diagnostics::Diagnostics;
use crate::model::{NodeId, TemplateRef, Topology};

/// Derive the transformation plan on `merged`, whose `target` says which
/// templates are B's (without one, nothing is: the plan only terminates).
pub fn transformation_plan(
    merged: &Topology,
    terminate: &HashSet<TemplateRef>,
    kind: PlanKind,
    rules: &OrderingRules,
) -> Result<AbstractPlan, Diagnostics> {
    let migrated_from = |t: TemplateRef| {
        merged
            .target
            .as_deref()
            .and_then(|target| target.migrated_from(t))
    };
    let build = build_plan(merged, rules)?;
    let termination = termination_plan(&build, merged)?;
    let (mut activities, mut edges) = restrict(termination.activities, &termination.edges, |a| {
        terminate.contains(&a.template)
    });
    let offset = activities.len();
    let (mut b_part, b_edges) = restrict(build.activities, &build.edges, |a| {
        merged.is_target(a.template)
    });
    for a in &mut b_part {
        if migrated_from(a.template).is_some() {
            a.kind = ActivityKind::Migrate;
            // Named as B names the template: A's has no activity here.
            a.id = format!("{}_migrate", merged.api_id(a.template));
        }
    }
    activities.extend(b_part);
    edges.extend(b_edges.into_iter().map(|e| Edge {
        from: offset + e.from,
        to: offset + e.to,
        reason: e.reason,
    }));
    // Where both parts touch a kept node: detach (in A) before attach (in B).
    let kept_of = |n: NodeId| -> Option<NodeId> {
        if merged.is_target(TemplateRef::Node(n)) {
            match migrated_from(TemplateRef::Node(n)) {
                Some(TemplateRef::Node(a)) => Some(a),
                _ => None,
            }
        } else {
            (!terminate.contains(&TemplateRef::Node(n))).then_some(n)
        }
    };
    let touches = |i: usize| -> Vec<NodeId> {
        match activities[i].template {
            TemplateRef::Relationship(r) => {
                let rel = merged.relationship(r);
                [rel.source, rel.target]
                    .into_iter()
                    .filter_map(kept_of)
                    .collect()
            }
            TemplateRef::Node(_) => Vec::new(),
        }
    };
    let mut detaching: HashMap<NodeId, Vec<usize>> = HashMap::default();
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
    // `<template>_provision`, `<template>_migrate`.
    let mut seen = HashSet::default();
    for a in &mut activities {
        while !seen.insert(a.id.clone()) {
            a.id.push('_');
        }
    }
    finish(kind, activities, edges, merged).map_err(Diagnostics::from)
}
