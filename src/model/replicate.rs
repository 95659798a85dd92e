//! Node templates with a `count` (TOSCA 2.0 §7.2 and chapter 14): the
//! further node representations as templates of their own, so the build
//! plan creates them in parallel, each with its own instance variables.
//!
//! In: a topology and, per node template, how many representations it
//! asks for. Out: the topology with, for a node `n` of count k, the
//! templates `n_1` … `n_{k-1}` beside `n` (each `$node_index` in their
//! values is their index; `n`'s is 0) and a copy of each relationship of
//! `n`'s own requirements for each; a relationship to `n` reaches `n`, the
//! first representation. [`Topology::replicas`] maps every copy to the
//! template it represents: the container knows them by that template's
//! id, and the plans that act on existing instances reach them through it.

use foldhash::{HashMap, HashMapExt, HashSet};
use std::sync::Arc;

use super::{NodeId, RelId, TemplateRef, Topology, Value};

/// The function the lowering leaves in the values of a template with a
/// count: each representation's index is put in its place here.
pub const NODE_INDEX: &str = "node_index";

/// Which representation of its target a relationship reaches (2.0
/// §8.5.2 `node: [template, index]`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Index {
    /// That one.
    Fixed(u32),
    /// The one with its source's index (`$node_index`).
    Same,
    /// For the source's representation i, the i-th (allocations, §14.3.5).
    Table(Vec<u32>),
}

impl Index {
    /// The target's index for a source of index `source`.
    pub fn of(&self, source: u32) -> u32 {
        match self {
            Index::Fixed(k) => *k,
            Index::Same => source,
            Index::Table(t) => t.get(source as usize).copied().unwrap_or(0),
        }
    }
}

/// Replicate the nodes of `counts` (node, number of representations ≥ 2);
/// the relationships of `indexed` (and their copies) reach the
/// representation of their target their index names (one that does not
/// exist: the target itself; lowering reports it).
pub fn replicate(topology: &mut Topology, counts: &[(NodeId, u32)], indexed: &[(RelId, Index)]) {
    // Nothing to do, and rebuilding the topology is a tenth of lowering a
    // large one.
    if counts.is_empty() && indexed.is_empty() {
        return;
    }
    let mut nodes = topology.nodes.clone();
    let mut relationships = topology.relationships.clone();
    let mut taken: HashSet<String> = nodes
        .iter()
        .map(|n| n.id.clone())
        .chain(relationships.iter().map(|r| r.id.clone()))
        .collect();
    let mut fresh = |base: &str, i: u32| {
        let mut id = format!("{base}_{i}");
        while !taken.insert(id.clone()) {
            id.push('_');
        }
        id
    };
    let mut replicas = HashMap::new();
    // Each representation by template and index, and each relationship
    // copy by the relationship it copies and its source's index.
    let mut reps: HashMap<(NodeId, u32), NodeId> = HashMap::new();
    let mut copies: HashMap<RelId, Vec<(RelId, u32)>> = HashMap::new();
    for &(n, count) in counts {
        let own: Vec<RelId> = topology.outgoing(n).to_vec();
        for i in 1..count {
            let copy = NodeId(nodes.len() as u32);
            reps.insert((n, i), copy);
            let mut node = topology.node(n).clone();
            node.id = fresh(&topology.node(n).id, i);
            with_index(&mut node, i);
            nodes.push(node);
            replicas.insert(TemplateRef::Node(copy), TemplateRef::Node(n));
            for &r in &own {
                let mut rel = topology.relationship(r).clone();
                rel.id = fresh(&rel.id, i);
                rel.source = copy;
                copies
                    .entry(r)
                    .or_default()
                    .push((RelId(relationships.len() as u32), i));
                replicas.insert(
                    TemplateRef::Relationship(RelId(relationships.len() as u32)),
                    TemplateRef::Relationship(r),
                );
                relationships.push(rel);
            }
        }
        with_index(&mut nodes[n.0 as usize], 0);
    }
    let rep = |t: NodeId, i: u32| {
        if i == 0 {
            Some(t)
        } else {
            reps.get(&(t, i)).copied()
        }
    };
    for (r, index) in indexed {
        let r = *r;
        let target = topology.relationship(r).target;
        let ends = std::iter::once((r, 0)).chain(copies.get(&r).into_iter().flatten().copied());
        for (rel, i) in ends {
            if let Some(t) = rep(target, index.of(i)) {
                relationships[rel.0 as usize].target = t;
            }
        }
    }
    topology.replace_templates(nodes, relationships);
    topology.replicas.extend(replicas);
}

/// Put `index` in place of `$node_index` in a node's property values and
/// operation inputs.
fn with_index(node: &mut super::NodeTemplate, index: u32) {
    let index = Value::Scalar(index.to_string());
    for v in node.properties.values_mut() {
        put_index(v, &index);
    }
    let uses = node
        .interfaces
        .iter()
        .flat_map(|i| &i.operations)
        .flat_map(|o| &o.inputs)
        .filter_map(|p| p.value.as_ref())
        .any(has_index);
    if uses {
        let mut interfaces = (*node.interfaces).clone();
        for p in interfaces
            .iter_mut()
            .flat_map(|i| &mut i.operations)
            .flat_map(|o| &mut o.inputs)
        {
            if let Some(v) = &mut p.value {
                put_index(v, &index);
            }
        }
        node.interfaces = Arc::new(interfaces);
    }
}

fn put_index(v: &mut Value, index: &Value) {
    match v {
        Value::Call(c) if c.function == NODE_INDEX && c.args.is_empty() => *v = index.clone(),
        Value::Call(c) => c.args.iter_mut().for_each(|a| put_index(a, index)),
        Value::List(items) => items.iter_mut().for_each(|a| put_index(a, index)),
        Value::Map(m) => m.values_mut().for_each(|a| put_index(a, index)),
        Value::Null | Value::Scalar(_) => {}
    }
}

fn has_index(v: &Value) -> bool {
    match v {
        Value::Call(c) => c.function == NODE_INDEX || c.args.iter().any(has_index),
        Value::List(items) => items.iter().any(has_index),
        Value::Map(m) => m.values().any(has_index),
        Value::Null | Value::Scalar(_) => false,
    }
}
