//! Allocation between templates with several representations (TOSCA 2.0
//! §14.3.5–14.3.6, random pairs and many-to-many): each representation of
//! the source allocates on a representation of the target that still has
//! room, a different one for each relationship of one requirement, so
//! that `target-count: 1` pairs them off.
//!
//! In: the relationships whose allocation waited for the counts (recorded
//! while relationships are made), and the counts. Out: for each, the
//! representation of the target each source representation reaches (a
//! [`Index::Table`] for `model::replicate`); an error where a source
//! representation finds no target with room.

use foldhash::{HashMap, HashMapExt};
use indexmap::IndexMap;

use super::requirements::PendingRel;
use super::{Lowerer, OfferedCapability};
use crate::diagnostics::{Diagnostic, Location, codes};
use crate::model::replicate::Index;
use crate::model::{NodeId, NodeTemplate, RelId, Topology};

/// A relationship whose allocation is decided per representation.
pub(super) struct Pending {
    /// The relationship's id.
    rel: String,
    /// The requirement, and the source and target templates' ids.
    requirement: String,
    source: String,
    target: String,
    /// The capability it allocates on.
    capability: String,
    /// Property, amount taken, and the capability's value (`None`:
    /// known only when the plans run, so no limit here).
    takes: Vec<(String, f64, Option<f64>)>,
    /// Where the requirement is.
    at: Location,
}

impl<'a> Lowerer<'a> {
    /// Record relationship `p` to allocate on capability `c` of `target`
    /// once the counts are known; what is wrong with the allocation in
    /// itself (no amount, no such property, more than one capability
    /// holds) is reported now.
    pub(super) fn defer_allocation(
        &mut self,
        p: &PendingRel<'a>,
        target: NodeId,
        c: &OfferedCapability<'a>,
        nodes: &[NodeTemplate],
    ) {
        let mut alone = super::allocation::Used::new();
        self.allocate(
            (p.requirement, p.source),
            p.allocation,
            (target, c),
            nodes,
            &mut alone,
        );
        let takes = p
            .allocation
            .0
            .iter()
            .filter_map(|(prop, v)| {
                let amount = super::allocation::amount_of(v)?;
                Some((
                    prop.text.clone(),
                    amount,
                    self.capacity(target, &c.name, &prop.text),
                ))
            })
            .collect();
        self.rep_allocations.push(Pending {
            rel: p.id.clone(),
            requirement: p.requirement.to_string(),
            source: nodes[p.source.0 as usize].id.clone(),
            target: nodes[target.0 as usize].id.clone(),
            capability: c.name.clone(),
            takes,
            at: p.origin.clone(),
        });
    }

    /// The representation of its target each source representation of
    /// the recorded relationships reaches (see the module docs).
    pub(super) fn allocation_tables(
        &mut self,
        topology: &Topology,
        by_id: &HashMap<&str, RelId>,
        count_of: &dyn Fn(NodeId) -> u32,
    ) -> Vec<(RelId, Index)> {
        let pending = std::mem::take(&mut self.rep_allocations);
        // What each target representation has given: (target, index,
        // capability, property).
        let mut used: HashMap<(String, u32, String, String), f64> = HashMap::new();
        let mut out = Vec::new();
        // The relationships of one requirement of one source template, in
        // order: each of a source representation's reaches another target.
        let mut groups: IndexMap<(&str, &str), Vec<&Pending>> = IndexMap::new();
        for p in &pending {
            groups
                .entry((p.source.as_str(), p.requirement.as_str()))
                .or_default()
                .push(p);
        }
        for ((source, _), group) in groups {
            let ids: Vec<Option<RelId>> = group
                .iter()
                .map(|p| by_id.get(p.rel.as_str()).copied())
                .collect();
            let (Some(source), Some(first)) = (topology.node_by_id(source), ids[0]) else {
                continue;
            };
            let target = topology.relationship(first).target;
            let (s, t) = (count_of(source), count_of(target));
            let mut tables = vec![Vec::new(); group.len()];
            'representations: for i in 0..s {
                let mut taken: Vec<u32> = Vec::new();
                for (g, p) in group.iter().enumerate() {
                    let fits = |r: u32| {
                        p.takes.iter().all(|(prop, amount, capacity)| {
                            let key = (p.target.clone(), r, p.capability.clone(), prop.clone());
                            capacity.is_none_or(|c| used.get(&key).unwrap_or(&0.0) + amount <= c)
                        })
                    };
                    let Some(r) = (0..t).find(|r| !taken.contains(r) && fits(*r)) else {
                        self.no_room(p, i, t);
                        tables.clear();
                        break 'representations;
                    };
                    for (prop, amount, _) in &p.takes {
                        *used
                            .entry((p.target.clone(), r, p.capability.clone(), prop.clone()))
                            .or_default() += amount;
                    }
                    taken.push(r);
                    tables[g].push(r);
                }
            }
            for (id, table) in ids.into_iter().zip(tables) {
                if let Some(id) = id {
                    out.push((id, Index::Table(table)));
                }
            }
        }
        out
    }

    fn no_room(&mut self, p: &Pending, i: u32, t: u32) {
        let takes: Vec<String> = p
            .takes
            .iter()
            .map(|(prop, amount, capacity)| match capacity {
                Some(c) => format!("`{prop}` {amount} of {c}"),
                None => format!("`{prop}` {amount}"),
            })
            .collect();
        self.diags.push(
            Diagnostic::error(
                codes::DANGLING_REFERENCE,
                format!(
                    "requirement `{}` of `{}` (representation {i}) finds none of the {t} representations of `{}` with room on capability `{}` for its allocation ({})",
                    p.requirement,
                    p.source,
                    p.target,
                    p.capability,
                    takes.join(", ")
                ),
            )
            .at(p.at.clone())
            .hint("each representation of the target takes allocations up to its capability's values (TOSCA 2.0 §14.3.5): give the target a larger `count`, or allocate less"),
        );
    }
}

#[cfg(test)]
mod tests {
    use super::super::lower_text;
    use crate::model::RelId;

    /// `left` (count `lc`) uses `right` (count `rc`, room for one each)
    /// with `count` relationships per representation.
    fn pairs(rc: u32, lc: u32, count: u32) -> (Vec<String>, Vec<String>) {
        pairs_with(rc, lc, count, "allocation")
    }

    fn pairs_with(rc: u32, lc: u32, count: u32, key: &str) -> (Vec<String>, Vec<String>) {
        let (t, d) = lower_text(&format!(
            "tosca_definitions_version: tosca_2_0\nimports:\n  - profile: org.oasis-open.simple:2.0\n\
             capability_types:\n  Feature:\n    properties:\n      slots: {{type: integer}}\n\
             node_types:\n  Right:\n    capabilities:\n      feature: {{type: Feature}}\n  \
             Left:\n    requirements:\n      - uses: {{capability: Feature, count_range: [0, UNBOUNDED]}}\n\
             service_template:\n  node_templates:\n    right:\n      type: Right\n      count: {rc}\n      \
             capabilities: {{feature: {{properties: {{slots: 1}}}}}}\n    left:\n      type: Left\n      \
             count: {lc}\n      requirements:\n        - uses: {{node: right, count: {count}, {key}: {{slots: 1}}}}\n"
        ));
        let messages = d.iter().map(|d| d.message.clone()).collect();
        let Some(t) = t else {
            return (Vec::new(), messages);
        };
        let mut pairs: Vec<String> = t
            .relationship_ids()
            .map(|r: RelId| {
                let rel = t.relationship(r);
                format!("{}->{}", t.node(rel.source).id, t.node(rel.target).id)
            })
            .collect();
        pairs.sort();
        (pairs, messages)
    }

    #[test]
    fn each_representation_allocates_on_a_target_with_room() {
        // Random pairs (§14.3.5): one each.
        let (p, _) = pairs(3, 3, 1);
        assert_eq!(p, ["left->right", "left_1->right_1", "left_2->right_2"]);
        // A 1:2 pattern (§14.3.6): two each, never shared.
        let (p, _) = pairs(4, 2, 2);
        assert_eq!(
            p,
            [
                "left->right",
                "left->right_1",
                "left_1->right_2",
                "left_1->right_3"
            ]
        );
    }

    #[test]
    fn a_representation_with_no_target_left_is_an_error() {
        let (_, m) = pairs(3, 4, 1);
        assert!(m.iter().any(|m| m
            == "requirement `uses` of `left` (representation 3) finds none of the 3 representations of `right` with room on capability `feature` for its allocation (`slots` 1 of 1)"), "{m:?}");
    }

    #[test]
    fn allocations_as_the_standard_s_examples_spell_it_allocates_too() {
        let (p, _) = pairs_with(2, 2, 1, "allocations");
        assert_eq!(p, ["left->right", "left_1->right_1"]);
    }
}
