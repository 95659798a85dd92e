//! The templates that may fulfil a dangling requirement, indexed once
//! per topology so that a requirement looks only at the templates that
//! can fit it (`fulfil.rs`): a topology has many templates of few types,
//! and scanning every template per requirement made fulfilment grow with
//! the square of the topology.
//!
//! In: the lowered templates with their type keys, in node id order.
//! Out: [`Candidates`]: the templates grouped by type key, and which of
//! those types derive from a node type, offer a capability of a type
//! (or derived from it), or offer a capability of a name.

use foldhash::{HashMap, HashMapExt};
use std::sync::Arc;

use super::Lowerer;
use crate::model::NodeId;
use crate::yaml::ast::{self, TypeKind};

/// The topology's templates by type, and the types by what they offer.
pub(super) struct Candidates {
    /// Which index of the lowering this is (the entry's topology, a
    /// substituting one): what is worked out from it is kept under it.
    pub(super) generation: u64,
    /// Each type key of the templates, in the order of its first
    /// template, with its templates in node id order.
    types: Vec<(Arc<str>, Vec<NodeId>)>,
    /// Node type key → the types (indices into `types`) that are it or
    /// derive from it.
    by_ancestor: HashMap<String, Vec<usize>>,
    /// Capability type definition → the types that offer a capability
    /// of that type or one derived from it (definitions, not keys: a
    /// requirement's capability type is matched by its definition, see
    /// `Lowerer::matching`).
    by_capability_type: HashMap<*const ast::TypeDef, Vec<usize>>,
    /// Capability name → the types that offer a capability of that name.
    by_capability_name: HashMap<String, Vec<usize>>,
}

impl Candidates {
    /// The type key and templates of type number `t`.
    pub(super) fn of_type(&self, t: usize) -> (&str, &[NodeId]) {
        let (key, ids) = &self.types[t];
        (key, ids)
    }

    /// The types that are node type `key` or derive from it.
    pub(super) fn derived_from(&self, key: &str) -> &[usize] {
        self.by_ancestor.get(key).map_or(&[], Vec::as_slice)
    }

    /// The types that offer a capability of the type `def` defines, or of
    /// one derived from it.
    pub(super) fn offering_type(&self, def: &ast::TypeDef) -> &[usize] {
        self.by_capability_type
            .get(&(def as *const ast::TypeDef))
            .map_or(&[], Vec::as_slice)
    }

    /// The types that offer a capability named `name`.
    pub(super) fn offering_name(&self, name: &str) -> &[usize] {
        self.by_capability_name.get(name).map_or(&[], Vec::as_slice)
    }
}

impl<'a> Lowerer<'a> {
    /// Index the templates `asts` (in node id order, with their type
    /// keys). Each type's ancestry and capabilities are looked up once.
    pub(super) fn candidates(&mut self, asts: &[(&'a ast::NodeTemplate, Arc<str>)]) -> Candidates {
        let mut index: HashMap<Arc<str>, usize> = HashMap::new();
        let mut types: Vec<(Arc<str>, Vec<NodeId>)> = Vec::new();
        for (i, (_, key)) in asts.iter().enumerate() {
            let t = *index.entry(Arc::clone(key)).or_insert_with(|| {
                types.push((Arc::clone(key), Vec::new()));
                types.len() - 1
            });
            types[t].1.push(NodeId(i as u32));
        }
        self.candidate_indexes += 1;
        let mut c = Candidates {
            generation: self.candidate_indexes,
            types,
            by_ancestor: HashMap::new(),
            by_capability_type: HashMap::new(),
            by_capability_name: HashMap::new(),
        };
        for t in 0..c.types.len() {
            let key = Arc::clone(&c.types[t].0);
            for ancestor in self.chain(TypeKind::Node, &key).unwrap_or_default() {
                add(c.by_ancestor.entry(ancestor).or_default(), t);
            }
            for offered in self.offered(&key).iter() {
                for def in &offered.lineage {
                    add(
                        c.by_capability_type
                            .entry(*def as *const ast::TypeDef)
                            .or_default(),
                        t,
                    );
                }
                add(
                    c.by_capability_name
                        .entry(offered.name.clone())
                        .or_default(),
                    t,
                );
            }
        }
        c
    }
}

/// How many of the templates of `types` are neither `source` nor `taken`:
/// counted per type, not per template.
pub(super) fn left(index: &Candidates, types: &[usize], source: NodeId, taken: &[NodeId]) -> usize {
    let all: usize = types.iter().map(|&t| index.of_type(t).1.len()).sum();
    // The skipped templates that are among the fitting ones, each once.
    let out = skipped(source, taken);
    let left_out = out.iter().filter(|&&id| of_types(index, types, id)).count();
    all - left_out
}

/// Whether template `id` is of one of `types`.
pub(super) fn of_types(index: &Candidates, types: &[usize], id: NodeId) -> bool {
    types
        .iter()
        .any(|&t| index.of_type(t).1.binary_search(&id).is_ok())
}

/// `source` and `taken`, sorted, each once.
pub(super) fn skipped(source: NodeId, taken: &[NodeId]) -> Vec<NodeId> {
    let mut out: Vec<NodeId> = taken.to_vec();
    out.push(source);
    out.sort_unstable();
    out.dedup();
    out
}

/// Add type `t` to a list of types once (types come in ascending order).
fn add(list: &mut Vec<usize>, t: usize) {
    if list.last() != Some(&t) {
        list.push(t);
    }
}

#[cfg(test)]
mod tests {
    use super::super::lower_text;
    use crate::diagnostics::codes;

    #[test]
    fn requirements_get_the_first_fitting_templates_in_declaration_order() {
        // Two types interleaved: what the index finds per type is merged
        // back into declaration order, and counted without the taken ones.
        let mut text = String::from(
            "tosca_definitions_version: tosca_2_0\nimports:\n  - profile: org.oasis-open.simple:1.3\nservice_template:\n  node_templates:\n",
        );
        for i in 0..3 {
            text.push_str(&format!(
                "    db{i}: {{type: tosca.nodes.Database}}\n    c{i}: {{type: tosca.nodes.Compute}}\n"
            ));
        }
        text.push_str(
            "    app:\n      type: tosca.nodes.Root\n      requirements:\n        \
             - dependency: {node: tosca.nodes.Root, count: 2}\n        \
             - dependency: {capability: tosca.capabilities.Endpoint.Database}\n        \
             - dependency: {capability: host}\n",
        );
        let (t, d) = lower_text(&text);
        let t = t.unwrap();
        let targets: Vec<&str> = t
            .relationships
            .iter()
            .filter(|r| t.node(r.source).id == "app")
            .map(|r| t.node(r.target).id.as_str())
            .collect();
        // By node type, by capability type, by capability name; the
        // templates the requirement has already are passed over.
        assert_eq!(targets, ["db0", "c0", "db1", "c1"], "{d:?}");
        let said: Vec<&str> = d
            .iter()
            .filter(|d| d.code == codes::W_DANGLING_REQUIREMENT)
            .map(|d| d.message.as_str())
            .collect();
        assert_eq!(
            said,
            [
                "requirement `dependency` of `app` names no node template: it is fulfilled by `db0`, the first of the 6 templates of the topology that fit (`db0`, `c0`, `db1`, `c1`, `db2`, 1 more)",
                "requirement `dependency` of `app` names no node template: it is fulfilled by `c0`, the first of the 5 templates of the topology that fit (`c0`, `db1`, `c1`, `db2`, `c2`)",
                "requirement `dependency` of `app` names no node template: it is fulfilled by `db1`, the first of the 2 templates of the topology that fit (`db1`, `db2`)",
                "requirement `dependency` of `app` names no node template: it is fulfilled by `c1`, the first of the 2 templates of the topology that fit (`c1`, `c2`)",
            ]
        );
    }
}
