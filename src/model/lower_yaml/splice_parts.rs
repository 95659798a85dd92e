//! The parts of a topology around its templates after a substitution
//! (see `splice`): scaling regions, workflows, groups, policies and the
//! topology's own substitution mappings, their nodes renumbered.
//!
//! In: the old parts and where each template went ([`Maps`]). Out: the
//! parts of the spliced topology; what cannot follow is a diagnostic.

use foldhash::HashMap;

use super::Lowerer;
use super::splice_values::{Maps, Sub};
use super::substitute::Inlined;
use crate::diagnostics::{Diagnostic, codes};
use crate::model::{
    Group, NodeId, Policy, PolicyTarget, RelId, ScalingRegion, StepTarget, Substitution, Workflow,
};

impl<'a> Lowerer<'a> {
    /// Scaling regions: a substituted node in a region is its templates;
    /// a region that selects one cannot (warning, the selection dropped).
    pub(super) fn spliced_regions(
        &mut self,
        regions: Vec<ScalingRegion>,
        inlined: &[Inlined<'a>],
        subs: &[Sub],
        maps: &Maps,
    ) -> Vec<ScalingRegion> {
        let by_node: HashMap<NodeId, usize> = inlined
            .iter()
            .enumerate()
            .map(|(k, s)| (s.node, k))
            .collect();
        let mut out = Vec::new();
        for mut r in regions {
            let mut nodes = Vec::new();
            let mut rels = region_relationships(&r.relationships, maps);
            for n in &r.nodes {
                match by_node.get(n) {
                    Some(&k) => {
                        nodes.extend(&maps.inner[k]);
                        rels.extend(&maps.inner_rels[k]);
                    }
                    None => nodes.extend(maps.outer[n.0 as usize]),
                }
            }
            r.selections.retain_mut(|s| match maps.outer[s.node.0 as usize] {
                Some(n) => {
                    s.node = n;
                    true
                }
                None => {
                    self.diags.push(
                        Diagnostic::warning(
                            codes::W_SUBSTITUTION,
                            format!(
                                "scale-out plan `{}` selects an instance of the substituted node `{}`, which is no instance of its own now; the selection is dropped",
                                r.name, subs[by_node[&s.node]].id
                            ),
                        )
                        .at_opt(r.origin.clone()),
                    );
                    false
                }
            });
            r.nodes = nodes;
            r.relationships = rels;
            out.push(r);
        }
        for (k, s) in inlined.iter().enumerate() {
            for r in &s.topology.regions {
                let mut r = r.clone();
                r.name = format!("{}_{}", subs[k].id, r.name);
                r.nodes = r
                    .nodes
                    .iter()
                    .map(|n| maps.inner[k][n.0 as usize])
                    .collect();
                r.relationships = r
                    .relationships
                    .iter()
                    .map(|x| maps.inner_rels[k][x.0 as usize])
                    .collect();
                for sel in &mut r.selections {
                    sel.node = maps.inner[k][sel.node.0 as usize];
                }
                out.push(r);
            }
        }
        out
    }

    /// The topology's workflows; a step on a substituted node, or on a
    /// relationship the substitution dropped, is an error.
    pub(super) fn spliced_workflows(
        &mut self,
        mut workflows: Vec<Workflow>,
        subs: &[Sub],
        maps: &Maps,
        by_node: &HashMap<NodeId, usize>,
    ) -> Vec<Workflow> {
        for w in &mut workflows {
            for step in &mut w.steps {
                let new = match step.target {
                    StepTarget::Node(n) => maps.outer[n.0 as usize].map(StepTarget::Node),
                    StepTarget::Relationship(r) => {
                        maps.outer_rels[r.0 as usize].map(StepTarget::Relationship)
                    }
                    StepTarget::Group(g) => Some(StepTarget::Group(g)),
                };
                // A step on a relationship runs on its copies too.
                if let StepTarget::Relationship(r) = step.target {
                    step.copies = maps.outer_copies[r.0 as usize].clone();
                }
                match new {
                    Some(t) => step.target = t,
                    None => {
                        let what = match step.target {
                            StepTarget::Node(n) => {
                                format!("the substituted node `{}`", subs[by_node[&n]].id)
                            }
                            _ => "a relationship the substitution dropped".to_string(),
                        };
                        self.diags.push(
                            Diagnostic::error(
                                codes::SUBSTITUTION,
                                format!(
                                    "step `{}` of workflow `{}` targets {what}, whose operations no template has now",
                                    step.name, w.name
                                ),
                            )
                            .at_opt(step.origin.clone())
                            .hint("target the templates of the substituting topology in a workflow of that template, or drop the node's `substitute` directive"),
                        );
                    }
                }
            }
        }
        workflows
    }
}

/// The outer relationships `rels` of a scaling region, renumbered; a
/// relationship's copies (2.0 §15.5.2, `relationship_copies.rs`) scale
/// with it, after it.
fn region_relationships(rels: &[RelId], maps: &Maps) -> Vec<RelId> {
    rels.iter()
        .flat_map(|x| {
            let copies = &maps.outer_copies[x.0 as usize];
            maps.outer_rels[x.0 as usize]
                .into_iter()
                .chain(copies.iter().copied())
        })
        .collect()
}

/// Each substituted node → its substitution's index.
fn substituted(inlined: &[Inlined]) -> HashMap<NodeId, usize> {
    inlined
        .iter()
        .enumerate()
        .map(|(k, s)| (s.node, k))
        .collect()
}

/// Groups: a substituted member is its templates; the substituting
/// topologies' groups come after, `<node>_`-named.
pub(super) fn spliced_groups(
    groups: Vec<Group>,
    inlined: &[Inlined],
    subs: &[Sub],
    maps: &Maps,
) -> Vec<Group> {
    let by_node = substituted(inlined);
    let mut out: Vec<Group> = groups
        .into_iter()
        .map(|mut g| {
            g.members = g
                .members
                .iter()
                .flat_map(|m| match by_node.get(m) {
                    Some(&k) => maps.inner[k].clone(),
                    None => maps.outer[m.0 as usize].into_iter().collect(),
                })
                .collect();
            g
        })
        .collect();
    for (k, s) in inlined.iter().enumerate() {
        for g in &s.topology.groups {
            let mut g = g.clone();
            g.name = format!("{}_{}", subs[k].id, g.name);
            g.members = g
                .members
                .iter()
                .map(|m| maps.inner[k][m.0 as usize])
                .collect();
            out.push(g);
        }
    }
    out
}

/// Policies: a substituted target is its templates; the substituting
/// topologies' policies come after, `<node>_`-named, their group targets
/// moved past the groups before theirs.
pub(super) fn spliced_policies(
    policies: Vec<Policy>,
    groups_before: usize,
    inlined: &[Inlined],
    subs: &[Sub],
    maps: &Maps,
) -> Vec<Policy> {
    let by_node = substituted(inlined);
    let mut out: Vec<Policy> = policies
        .into_iter()
        .map(|mut p| {
            p.targets = p
                .targets
                .iter()
                .flat_map(|t| match t {
                    PolicyTarget::Node(n) => match by_node.get(n) {
                        Some(&k) => maps.inner[k]
                            .iter()
                            .map(|&n| PolicyTarget::Node(n))
                            .collect(),
                        None => maps.outer[n.0 as usize]
                            .map(PolicyTarget::Node)
                            .into_iter()
                            .collect::<Vec<_>>(),
                    },
                    PolicyTarget::Group(g) => vec![PolicyTarget::Group(*g)],
                })
                .collect();
            p
        })
        .collect();
    let mut group_base = groups_before;
    for (k, s) in inlined.iter().enumerate() {
        for p in &s.topology.policies {
            let mut p = p.clone();
            p.name = format!("{}_{}", subs[k].id, p.name);
            p.targets = p
                .targets
                .iter()
                .map(|t| match t {
                    PolicyTarget::Node(n) => PolicyTarget::Node(maps.inner[k][n.0 as usize]),
                    PolicyTarget::Group(g) => PolicyTarget::Group(group_base + g),
                })
                .collect();
            out.push(p);
        }
        group_base += s.topology.groups.len();
    }
    out
}

/// The topology's own substitution mappings, their templates renamed; a
/// mapping onto a substituted node goes on to the template its
/// substituting topology maps the same name to.
pub(super) fn spliced_substitution(
    mut s: Substitution,
    inlined: &[Inlined],
    maps: &Maps,
    by_node: &HashMap<NodeId, usize>,
) -> Substitution {
    for (list, requirements) in [(&mut s.requirements, true), (&mut s.capabilities, false)] {
        list.retain_mut(|(_, node, inner)| match by_node.get(node) {
            None => match maps.outer[node.0 as usize] {
                Some(n) => {
                    *node = n;
                    true
                }
                None => false,
            },
            Some(&k) => {
                let m = inlined[k].topology.substitution.as_ref();
                let found = m.and_then(|m| {
                    let l = if requirements {
                        &m.requirements
                    } else {
                        &m.capabilities
                    };
                    l.iter().find(|(n, _, _)| n == inner).cloned()
                });
                match found {
                    Some((_, n, name)) => {
                        *node = maps.inner[k][n.0 as usize];
                        *inner = name;
                        true
                    }
                    None => false,
                }
            }
        });
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_region_s_relationship_brings_its_copies_and_a_dropped_one_goes() {
        let maps = Maps {
            outer: Vec::new(),
            inner: Vec::new(),
            // 0 stays (now 0, copied as 1 and 2), 1 is dropped, 2 is now 3.
            outer_rels: vec![Some(RelId(0)), None, Some(RelId(3))],
            outer_copies: vec![vec![RelId(1), RelId(2)], Vec::new(), Vec::new()],
            inner_rels: Vec::new(),
        };
        let rels = region_relationships(&[RelId(0), RelId(1), RelId(2)], &maps);
        assert_eq!(rels, [RelId(0), RelId(1), RelId(2), RelId(3)]);
        assert_eq!(region_relationships(&[RelId(2)], &maps), [RelId(3)]);
    }
}
