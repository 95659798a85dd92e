//! Delegated nodes (1.3 §7.2.1.1): node templates the orchestrator
//! supplies instead of the plans provisioning them.
//!
//! In: node templates and the dangling requirements' [`Synthetic`] nodes.
//! Out: delegated target nodes added to the topology, infrastructure
//! templates that implement nothing marked abstract, and the warnings
//! that say why each node is delegated and which relationship operations
//! cannot be woven around it.

use super::Lowerer;
use super::requirements::Synthetic;
use super::topology::Nodes;
use crate::diagnostics::{Diagnostic, codes};
use crate::model::{NodeId, NodeTemplate, RELATIONSHIP_CONFIGURE, Topology, TypeTable};
use crate::yaml::ast::TypeKind;

impl<'a> Lowerer<'a> {
    /// Add the delegated nodes of dangling requirements, each with a
    /// warning that says what the orchestrator supplies.
    pub(super) fn delegated_targets(&mut self, synthetic: &[Synthetic], nodes: &mut Nodes<'a>) {
        for s in synthetic {
            let id = NodeId(nodes.nodes.len() as u32);
            let Some(type_id) = self.type_id(TypeKind::Node, &s.type_key) else {
                continue;
            };
            let mut node = self.synthetic_node(&s.id, &s.type_key, type_id, id);
            node.origin = Some(s.origin.clone());
            node.is_abstract = true;
            self.diags.push(
                Diagnostic::warning(codes::W_YAML_DELEGATED, s.why.clone())
                    .at(s.origin.clone())
                    .hint("name a node template as the requirement's target if the plans should provision it"),
            );
            nodes.ids.insert(s.id.clone(), id);
            nodes.nodes.push(node);
        }
    }

    /// Delegated nodes: abstract ones, and the infrastructure the
    /// orchestrator provides (a plain Compute, storage, networks) when
    /// nothing of it is implemented.
    pub(super) fn mark_provided(&self, templates: &mut [NodeTemplate]) {
        for node in templates {
            let implemented = node.implements_any();
            if !implemented && provided(&self.types, node) && !node.running {
                node.is_abstract = true;
            }
        }
    }

    /// 1.3 §7.2.1.1: a delegated node is a black box from initial to
    /// started; Configure operations that need its intermediate states
    /// (pre/post_configure on its side) cannot be woven.
    pub(super) fn check_weaving(&mut self, t: &Topology) {
        for r in &t.relationships {
            for (side, node, ops) in [
                (
                    "source",
                    r.source,
                    ["pre_configure_source", "post_configure_source"],
                ),
                (
                    "target",
                    r.target,
                    ["pre_configure_target", "post_configure_target"],
                ),
            ] {
                let n = t.node(node);
                if !n.is_abstract {
                    continue;
                }
                for op in ops {
                    let implemented = r
                        .interfaces
                        .iter()
                        .filter(|i| i.is_a(RELATIONSHIP_CONFIGURE))
                        .filter_map(|i| i.operation(op))
                        .any(|o| o.implementation.is_some());
                    if implemented {
                        self.diags.push(
                            Diagnostic::warning(
                                codes::W_YAML_WEAVING,
                                format!(
                                    "relationship `{}` implements `{op}`, which belongs to the configure step of its {side} `{}`; `{}` is delegated and has no configure step the plans reach, so `{op}` runs right after it is registered",
                                    r.id, n.id, n.id
                                ),
                            )
                            .at_opt(r.origin.clone())
                            .hint("TOSCA 1.3 §7.2.1.1 says such weaving should fail; move the script to add_target/add_source (run once both ends are started), or give the node an implementation"),
                        );
                    }
                }
            }
        }
    }

    /// Say, for every node template the plans do not provision, why and
    /// what the plans expect instead.
    pub(super) fn warn_delegated(&mut self, t: &Topology, base: usize) {
        for node in t.nodes.iter().take(base) {
            if (!node.is_abstract && !node.running) || self.substitution_failed.contains(&node.id) {
                continue;
            }
            if let Some(existing) = &node.selection {
                self.diags.push(
                    Diagnostic::warning(
                        codes::W_YAML_DELEGATED,
                        format!(
                            "node template `{}` (type `{}`) has the `select` directive: the plans use an existing node, the instance whose URL plan input `{}` gives; they read its properties{}, and register this node as a reference to it, started",
                            node.id,
                            t.types.get(node.type_id).name,
                            existing.input,
                            if existing.filter.is_empty() { "" } else { ", check them against its node_filter" },
                        ),
                    )
                    .at_opt(node.origin.clone())
                    .hint(format!("run the plan with `{}` set to the URL of a started instance of `{}` (the container's instance API)", existing.input, node.id)),
                );
                continue;
            }
            let inputs: Vec<String> = node
                .properties
                .iter()
                .filter_map(|(k, v)| {
                    v.as_input()
                        .filter(|i| *i == format!("{}_{k}", node.id))
                        .map(|i| format!("`{k}` from plan input `{i}`"))
                })
                .collect();
            let implemented = node.implements_any();
            // Only the directive makes an implemented node, or one of a
            // type the orchestrator does not provide, abstract.
            let implement = "give the node implementations (e.g. `Standard.create`) if the plans should provision it";
            let (why, hint) = if implemented || !provided(&t.types, node) {
                (
                    "has the `substitute` directive, and no service template loaded with this one substitutes it (TOSCA 2.0 §15: none has `substitution_mappings` whose `node_type` is its type or derived from it)",
                    "import a file whose service template has `substitution_mappings` with `node_type` naming the node's type (or a type derived from it), or drop the directive (and give the node implementations) if the plans should provision it",
                )
            } else {
                (
                    "implements no operation and is infrastructure the orchestrator provides",
                    implement,
                )
            };
            self.diags.push(
                Diagnostic::warning(
                    codes::W_YAML_DELEGATED,
                    format!(
                        "node template `{}` (type `{}`) {why}: it is delegated (TOSCA 1.3 §7.2.1.1); the plans register it as started without provisioning it{}",
                        node.id,
                        t.types.get(node.type_id).name,
                        if inputs.is_empty() { String::new() } else { format!(", taking {}", inputs.join(", ")) }
                    ),
                )
                .at_opt(node.origin.clone())
                .hint(hint),
            );
        }
    }
}

/// Whether the node's type is infrastructure the orchestrator provides
/// when nothing of it is implemented.
pub(super) fn provided(types: &TypeTable, node: &NodeTemplate) -> bool {
    types
        .ancestry(node.type_id)
        .iter()
        .any(|&t| ORCHESTRATOR_PROVIDED.contains(&types.get(t).name.name.as_str()))
}

/// Normative node types whose templates, when they implement nothing, the
/// orchestrator provides (1.3 §7.2.2.4.1 treats a plain Compute so).
const ORCHESTRATOR_PROVIDED: [&str; 5] = [
    "tosca.nodes.Abstract.Compute",
    "tosca.nodes.Abstract.Storage",
    "tosca.nodes.network.Network",
    "tosca.nodes.network.Port",
    "tosca.nodes.LoadBalancer",
];

#[cfg(test)]
mod tests {
    use super::super::lower_text;
    use crate::diagnostics::codes;

    #[test]
    fn a_plain_compute_is_delegated_an_implemented_one_is_not() {
        let (t, d) = lower_text(
            "tosca_definitions_version: tosca_simple_yaml_1_3\n\
             topology_template:\n  node_templates:\n    \
             plain: {type: tosca.nodes.Compute}\n    \
             made:\n      type: tosca.nodes.Compute\n      \
             interfaces: {Standard: {create: create.sh}}\n",
        );
        let t = t.unwrap();
        assert!(t.node(t.node_by_id("plain").unwrap()).is_abstract);
        assert!(!t.node(t.node_by_id("made").unwrap()).is_abstract);
        assert!(
            d.iter()
                .any(|d| d.code == codes::W_YAML_DELEGATED && d.message.contains("`plain`"))
        );
    }
}
