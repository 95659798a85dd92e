//! Joining two topologies for a transformation plan: the source topology
//! and the target's templates beside it.
//!
//! In: the source topology A, the target B, which of B's templates are A's
//! (kept), and B's CSAR name. Out: the merged topology — A's service
//! template and templates first (so A's templates keep their indexes and
//! ids, which name their instances), then every template of B, with their
//! types imported into A's type table, and a [`Target`] saying which
//! templates are B's, their ids in B, and which are A's kept — and where
//! each of B's templates went.

use foldhash::{HashMap, HashSet};

use super::{NodeId, RelId, Target, TemplateRef, Topology, TypeId, TypeTable};

/// The merged topology and where B's templates are in it.
pub(crate) struct Merged {
    /// A's templates, then B's.
    pub topology: Topology,
    /// Every B node → its node in the merged topology.
    pub nodes: HashMap<NodeId, NodeId>,
    /// Every B relationship → its relationship in the merged topology.
    pub relationships: HashMap<RelId, RelId>,
}

/// Merge: `kept` and `kept_relationships` map B templates to the A
/// templates they are. A B template whose id A uses already gets `_new`
/// (and a number) appended in the merged topology; the container still
/// knows it by its own id ([`Topology::api_id`]).
pub(crate) fn merge(
    a: &Topology,
    b: &Topology,
    b_csar: &str,
    kept: &HashMap<NodeId, NodeId>,
    kept_relationships: &HashMap<RelId, RelId>,
) -> Merged {
    let mut types = a.types.clone();
    let mut taken: HashSet<String> = a
        .nodes
        .iter()
        .map(|n| n.id.clone())
        .chain(a.relationships.iter().map(|r| r.id.clone()))
        .collect();
    let mut renamed = HashMap::default();
    let mut fresh_id = |id: &str, at: TemplateRef| {
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
        if candidate != id {
            renamed.insert(at, id.to_string());
        }
        candidate
    };
    let mut nodes = a.nodes.clone();
    let mut node_map: HashMap<NodeId, NodeId> = HashMap::default();
    for n in b.node_ids() {
        let at = NodeId(nodes.len() as u32);
        let mut node = b.node(n).clone();
        node.id = fresh_id(&node.id, TemplateRef::Node(at));
        node.type_id = import(&mut types, &b.types, node.type_id);
        node_map.insert(n, at);
        nodes.push(node);
    }
    let mut relationships = a.relationships.clone();
    let mut rel_map = HashMap::default();
    for r in b.relationship_ids() {
        let at = RelId(relationships.len() as u32);
        let mut rel = b.relationship(r).clone();
        rel.id = fresh_id(&rel.id, TemplateRef::Relationship(at));
        rel.type_id = import(&mut types, &b.types, rel.type_id);
        rel.source = node_map[&rel.source];
        rel.target = node_map[&rel.target];
        rel_map.insert(r, at);
        relationships.push(rel);
    }
    let target = Target {
        csar: b_csar.to_string(),
        namespace: b.service_template.namespace.clone(),
        service_template: b.service_template.id.clone(),
        first_node: a.nodes.len() as u32,
        first_relationship: a.relationships.len() as u32,
        renamed,
        migrated_nodes: kept.iter().map(|(nb, &na)| (node_map[nb], na)).collect(),
        migrated_relationships: kept_relationships
            .iter()
            .map(|(rb, &ra)| (rel_map[rb], ra))
            .collect(),
    };
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
    topology.target = Some(Box::new(target));
    Merged {
        topology,
        nodes: node_map,
        relationships: rel_map,
    }
}

/// Import type `id` of `from` (and its ancestors) into `into`; a type of
/// the same kind and name there is taken as it is.
pub(crate) fn import(into: &mut TypeTable, from: &TypeTable, id: TypeId) -> TypeId {
    let def = from.get(id);
    if let Some(existing) = into.lookup(def.kind, &def.name) {
        return existing;
    }
    let parent = def.parent.map(|p| import(into, from, p));
    let mut def = def.clone();
    def.parent = parent;
    into.add(def)
}
