//! What a running instance of service template A and service template B
//! have in common, for a transformation from A to B (OpenTOSCA's maximal
//! common subgraph, anchor §2): a node of A *is* a node of B when both
//! have the same type, the same deployment artifacts and the same property
//! names, and stand on the same (common) nodes: every HostedOn, DependsOn
//! and DeployedOn relationship out of one has a counterpart of the same
//! type out of the other, to the counterpart of its target. A relationship
//! is common when its type and both ends are. (The property `State` does
//! not count: it is OpenTOSCA's mark of a node that runs already.)
//!
//! In: topologies A and B. Out: the common node and relationship pairs;
//! everything else is A's only (to terminate) or B's only (to provision).
//! Unlike OpenTOSCA, a template is matched to the one of the same id
//! first, and ids decide between equal candidates (deterministic).

use foldhash::HashMap;
use std::collections::BTreeSet;

use crate::model::{NodeId, RelId, Topology, TypeName};

/// The common templates: (A's, B's).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct Matching {
    /// Common nodes.
    pub nodes: Vec<(NodeId, NodeId)>,
    /// Common relationships.
    pub relationships: Vec<(RelId, RelId)>,
}

/// What makes two nodes the same, their stacks aside.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Signature {
    node_type: TypeName,
    artifacts: BTreeSet<(String, String, Vec<String>)>,
    properties: BTreeSet<String>,
}

fn signature(t: &Topology, n: NodeId) -> Signature {
    let node = t.node(n);
    Signature {
        node_type: t.types.get(node.type_id).name.clone(),
        artifacts: node
            .artifacts
            .iter()
            .map(|a| {
                (
                    a.name.clone(),
                    format!("{{{}}}{}", a.artifact_type.namespace, a.artifact_type.name),
                    a.files.clone(),
                )
            })
            .collect(),
        // `State` is OpenTOSCA's marker of a node that runs already
        // (`State=Running`), not a property of what runs.
        properties: node
            .properties
            .keys()
            .filter(|k| &***k != "State")
            .map(|k| k.to_string())
            .collect(),
    }
}

/// The node's outgoing hosting and dependency relationships: type and target.
fn stands_on(t: &Topology, n: NodeId) -> Vec<(TypeName, NodeId)> {
    t.outgoing(n)
        .iter()
        .map(|&r| t.relationship(r))
        .filter(|r| r.kind.is_infrastructure())
        .map(|r| (t.types.get(r.type_id).name.clone(), r.target))
        .collect()
}

/// The common templates of `a` and `b`.
pub(crate) fn matching(a: &Topology, b: &Topology) -> Matching {
    let sig_a: Vec<Signature> = a.node_ids().map(|n| signature(a, n)).collect();
    let sig_b: Vec<Signature> = b.node_ids().map(|n| signature(b, n)).collect();
    let mut a_of: HashMap<NodeId, NodeId> = HashMap::default(); // B → A
    let mut taken: HashMap<NodeId, NodeId> = HashMap::default(); // A → B
    // Nodes are matched from the bottom of their stacks up: a node once
    // every node it stands on is decided. Passes until nothing changes.
    loop {
        let mut changed = false;
        for nb in b.node_ids() {
            if a_of.contains_key(&nb) {
                continue;
            }
            let below_b = stands_on(b, nb);
            if below_b.iter().any(|(_, tb)| !a_of.contains_key(tb)) {
                continue;
            }
            let fits = |na: NodeId| {
                if taken.contains_key(&na) || sig_a[na.0 as usize] != sig_b[nb.0 as usize] {
                    return false;
                }
                let mut below_a = stands_on(a, na);
                let mut want: Vec<(TypeName, NodeId)> = below_b
                    .iter()
                    .map(|(ty, tb)| (ty.clone(), a_of[tb]))
                    .collect();
                below_a.sort();
                want.sort();
                below_a == want
            };
            let same_id = a.node_by_id(&b.node(nb).id).filter(|&na| fits(na));
            let chosen = same_id.or_else(|| {
                a.node_ids()
                    .filter(|&na| fits(na))
                    .min_by(|x, y| a.node(*x).id.cmp(&a.node(*y).id))
            });
            if let Some(na) = chosen {
                a_of.insert(nb, na);
                taken.insert(na, nb);
                changed = true;
            }
        }
        if !changed {
            break;
        }
    }
    let mut nodes: Vec<(NodeId, NodeId)> = a_of.iter().map(|(&nb, &na)| (na, nb)).collect();
    nodes.sort();
    // Relationships between common nodes, of the same type.
    let mut relationships = Vec::new();
    let mut rel_taken = vec![false; a.relationships.len()];
    for rb in b.relationship_ids() {
        let rel_b = b.relationship(rb);
        let (Some(&s), Some(&t)) = (a_of.get(&rel_b.source), a_of.get(&rel_b.target)) else {
            continue;
        };
        let ty = &b.types.get(rel_b.type_id).name;
        let found = a
            .outgoing(s)
            .iter()
            .copied()
            .filter(|&ra| !rel_taken[ra.0 as usize])
            .filter(|&ra| {
                let rel_a = a.relationship(ra);
                rel_a.target == t && &a.types.get(rel_a.type_id).name == ty
            })
            .min_by_key(|&ra| {
                (
                    a.relationship(ra).id != rel_b.id,
                    a.relationship(ra).id.clone(),
                )
            });
        if let Some(ra) = found {
            rel_taken[ra.0 as usize] = true;
            relationships.push((ra, rb));
        }
    }
    relationships.sort();
    Matching {
        nodes,
        relationships,
    }
}
