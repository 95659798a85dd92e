//! The target side of a transformation's merged topology.
//!
//! In a merged topology ([`super::merge`]) the source's templates come
//! first and every template of the target follows; the target's live in
//! the target's service instance, under its CSAR and service template, and
//! are known to the container by their ids there.

use foldhash::HashMap;

use super::{NodeId, RelId, TemplateRef};

/// Which templates of a merged topology are the target's, where the
/// container has them, and which of them are the source's, migrated.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Target {
    /// The target's CSAR as the container names it (`MultiApp.csar`).
    pub csar: String,
    /// The target service template's namespace.
    pub namespace: String,
    /// The target service template's id.
    pub service_template: String,
    /// The first of the target's nodes: they run to the end.
    pub first_node: u32,
    /// The first of the target's relationships.
    pub first_relationship: u32,
    /// Target templates renamed in the merged topology → their own ids.
    pub renamed: HashMap<TemplateRef, String>,
    /// Each target node that is a source node kept → that source node.
    pub migrated_nodes: HashMap<NodeId, NodeId>,
    /// Each target relationship that is a source relationship kept → it.
    pub migrated_relationships: HashMap<RelId, RelId>,
}

impl Target {
    /// Whether `t` is one of the target's templates.
    pub fn contains(&self, t: TemplateRef) -> bool {
        match t {
            TemplateRef::Node(n) => n.0 >= self.first_node,
            TemplateRef::Relationship(r) => r.0 >= self.first_relationship,
        }
    }

    /// The source template a target template is, when it is kept.
    pub fn migrated_from(&self, t: TemplateRef) -> Option<TemplateRef> {
        match t {
            TemplateRef::Node(n) => self.migrated_nodes.get(&n).map(|&a| TemplateRef::Node(a)),
            TemplateRef::Relationship(r) => self
                .migrated_relationships
                .get(&r)
                .map(|&a| TemplateRef::Relationship(a)),
        }
    }

    /// The service template's QName, `{namespace}id`.
    pub fn qname(&self) -> String {
        format!("{{{}}}{}", self.namespace, self.service_template)
    }
}
