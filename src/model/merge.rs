//! Joining two topologies for a transformation plan: the source topology
//! with the templates only the target has added to it.
//!
//! In: the source topology A, the target B, which of B's nodes are A's
//! (kept), and which of B's templates to add. Out: the merged topology —
//! A's service template and templates first (so A's templates keep their
//! indexes and ids, which name their instances), then the added ones, with
//! their types imported into A's type table — and where each added
//! template went.

use std::collections::{HashMap, HashSet};

use super::{NodeId, RelId, Topology, TypeId, TypeTable};

/// The merged topology and where B's templates are in it.
pub(crate) struct Merged {
    /// A's templates, then B's added ones.
    pub topology: Topology,
    /// Every B node (kept or added) → its node in the merged topology.
    pub nodes: HashMap<NodeId, NodeId>,
    /// Every added B relationship → its relationship in the merged topology.
    pub relationships: HashMap<RelId, RelId>,
}

/// Merge: `kept` maps B nodes to the A nodes they are; `add_nodes` and
/// `add_relationships` are B's templates to add. An added template whose
/// id A uses already gets `_new` (and a number) appended.
pub(crate) fn merge(
    a: &Topology,
    b: &Topology,
    kept: &HashMap<NodeId, NodeId>,
    add_nodes: &[NodeId],
    add_relationships: &[RelId],
) -> Merged {
    let mut types = a.types.clone();
    let mut taken: HashSet<String> = a
        .nodes
        .iter()
        .map(|n| n.id.clone())
        .chain(a.relationships.iter().map(|r| r.id.clone()))
        .collect();
    let mut fresh_id = |id: &str| {
        let mut candidate = id.to_string();
        let mut k = 1;
        while !taken.insert(candidate.clone()) {
            candidate = if k == 1 {
                format!("{id}_new")
            } else {
                format!("{id}_new{k}")
            };
            k += 1;
        }
        candidate
    };
    let mut nodes = a.nodes.clone();
    let mut node_map: HashMap<NodeId, NodeId> = kept.clone();
    for &n in add_nodes {
        let mut node = b.node(n).clone();
        node.id = fresh_id(&node.id);
        node.type_id = import(&mut types, &b.types, node.type_id);
        node_map.insert(n, NodeId(nodes.len() as u32));
        nodes.push(node);
    }
    let mut relationships = a.relationships.clone();
    let mut rel_map = HashMap::new();
    for &r in add_relationships {
        let mut rel = b.relationship(r).clone();
        rel.id = fresh_id(&rel.id);
        rel.type_id = import(&mut types, &b.types, rel.type_id);
        rel.source = node_map[&rel.source];
        rel.target = node_map[&rel.target];
        rel_map.insert(r, RelId(relationships.len() as u32));
        relationships.push(rel);
    }
    let mut topology = Topology::new(
        a.dialect.clone(),
        a.service_template.clone(),
        types,
        nodes,
        relationships,
    );
    topology.inputs = a.inputs.clone();
    for (k, v) in &b.inputs {
        topology
            .inputs
            .entry(k.clone())
            .or_insert_with(|| v.clone());
    }
    topology.policies = a.policies.clone();
    Merged {
        topology,
        nodes: node_map,
        relationships: rel_map,
    }
}

/// Import type `id` of `from` (and its ancestors) into `into`; a type of
/// the same kind and name there is taken as it is.
fn import(into: &mut TypeTable, from: &TypeTable, id: TypeId) -> TypeId {
    let def = from.get(id);
    if let Some(existing) = into.lookup(def.kind, &def.name) {
        return existing;
    }
    let parent = def.parent.map(|p| import(into, from, p));
    let mut def = def.clone();
    def.parent = parent;
    into.add(def)
}
