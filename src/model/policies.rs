//! Groups, policies and substitution mappings of a YAML topology, kept as
//! data for the plans that need them (scale-out plans read Scaling
//! policies; nothing in the build and termination plans depends on them).

use indexmap::IndexMap;

use super::{NodeId, Value};
use crate::diagnostics::Location;

/// A group of node templates.
#[derive(Clone, Debug, PartialEq)]
pub struct Group {
    /// Name.
    pub name: String,
    /// Its type and the type's ancestors, nearest first.
    pub types: Vec<String>,
    /// Members.
    pub members: Vec<NodeId>,
    /// Property values.
    pub properties: IndexMap<String, Value>,
    /// Where it is defined.
    pub origin: Option<Location>,
}

/// What a policy applies to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PolicyTarget {
    /// A node template.
    Node(NodeId),
    /// A group (index into `Topology::groups`).
    Group(usize),
}

/// A policy.
#[derive(Clone, Debug, PartialEq)]
pub struct Policy {
    /// Name.
    pub name: String,
    /// Its type and the type's ancestors, nearest first.
    pub types: Vec<String>,
    /// Targets.
    pub targets: Vec<PolicyTarget>,
    /// Property values.
    pub properties: IndexMap<String, Value>,
    /// `metadata` entries with scalar values: key, value, where the value is.
    pub metadata: Vec<(String, String, Location)>,
    /// Where it is defined.
    pub origin: Option<Location>,
}

impl Policy {
    /// Whether the policy's type is or derives from `name`
    /// (e.g. `tosca.policies.Scaling`).
    pub fn is_a(&self, name: &str) -> bool {
        self.types.iter().any(|t| t == name)
    }

    /// Whether the policy's type (or an ancestor) has the local name
    /// `local`: `{ns}Local`, `a.b.Local` and `Local` all do. OpenTOSCA's
    /// plans disagree on the namespaces of their policy types (anchor §8),
    /// so the plans that read them match local names.
    pub fn has_type_named(&self, local: &str) -> bool {
        self.types.iter().any(|t| local_name(t) == local)
    }
}

/// `{ns}Local`, `a.b.Local` and `Local` all have the local name `Local`.
fn local_name(type_name: &str) -> &str {
    let after_ns = type_name.rsplit('}').next().unwrap_or(type_name);
    if type_name.contains('}') {
        after_ns
    } else {
        after_ns.rsplit('.').next().unwrap_or(after_ns)
    }
}

/// How the topology substitutes for a node type (1.3 §3.8.13).
#[derive(Clone, Debug, PartialEq)]
pub struct Substitution {
    /// The node type it implements.
    pub node_type: String,
    /// Requirements exported: name, node and requirement inside.
    pub requirements: Vec<(String, NodeId, String)>,
    /// Capabilities exported: name, node and capability inside.
    pub capabilities: Vec<(String, NodeId, String)>,
    /// Operations of the node type implemented by workflows.
    pub interfaces: Vec<(String, String)>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn policy_types_match_by_local_name() {
        assert_eq!(
            local_name("{http://opentosca.org/policytypes}FreezableComponent"),
            "FreezableComponent"
        );
        assert_eq!(local_name("tosca.policies.Stateful"), "Stateful");
        assert_eq!(local_name("StatefulComponent"), "StatefulComponent");
    }
}
