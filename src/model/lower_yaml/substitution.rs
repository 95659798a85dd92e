//! Substitution mappings (1.3 §3.8.13): the topology as an implementation
//! of a node type.
//!
//! In: the `substitution_mappings` AST and the lowered topology. Out: a
//! model [`Substitution`] whose requirements and capabilities point at
//! node templates; a mapping to an unknown template is an error. A 2.0
//! requirement mapped to a selectable node (§15.5.3) is valid and adds
//! nothing: the plans only register that node.

use super::{Lowerer, Unit};
use crate::diagnostics::{Diagnostic, codes};
use crate::model::{Substitution, Topology};
use crate::yaml::ast::{self, TypeKind};

impl<'a> Lowerer<'a> {
    pub(super) fn substitution(
        &mut self,
        t: &Topology,
        s: &'a ast::Substitution,
        unit: Unit<'a>,
    ) -> Option<Substitution> {
        let node_type = match &s.node_type {
            Some(nt) => self
                .resolve(TypeKind::Node, &nt.text, unit)
                .unwrap_or_else(|| nt.text.clone()),
            None => {
                self.push_once(
                    Diagnostic::error(
                        codes::YAML_MISSING_KEY,
                        "`substitution_mappings` has no `node_type`",
                    )
                    .at(Self::at(unit, s.span)),
                );
                return None;
            }
        };
        let mut out = Substitution {
            node_type,
            requirements: Vec::new(),
            capabilities: Vec::new(),
            interfaces: s
                .interfaces
                .iter()
                .map(|(o, w)| (o.text.clone(), w.text.clone()))
                .collect(),
        };
        for (list, into, what) in [
            (&s.requirements, &mut out.requirements, "requirement"),
            (&s.capabilities, &mut out.capabilities, "capability"),
        ] {
            for (name, target) in list {
                match target.as_slice() {
                    [n, inner, ..] => match t.node_by_id(&n.text) {
                        Some(id) => into.push((name.text.clone(), id, inner.text.clone())),
                        None => self.push_once(
                            Diagnostic::error(
                                codes::DANGLING_REFERENCE,
                                format!("substitution {what} `{}` maps to `{}`, which is not a node template", name.text, n.text),
                            )
                            .at(Self::at(unit, n.span)),
                        ),
                    },
                    // 2.0 §15.5: `<requirement>: <selectable node>` makes the
                    // selected node the substituted node's target. The plans
                    // register a selected node without provisioning it,
                    // whatever maps onto it: there is nothing to keep.
                    [n] if what == "requirement"
                        && t.node_by_id(&n.text).is_some_and(|id| t.node(id).running) => {}
                    _ => self.push_once(
                        Diagnostic::warning(
                            codes::W_IGNORED,
                            format!("substitution {what} `{}` is not of the form [node, {what}]; it is ignored", name.text),
                        )
                        .at(Self::at(unit, name.span))
                        .hint(if what == "requirement" {
                            "map it to a node template's requirement, `[ <node>, <requirement> ]`, or to a node template with the `select` directive (TOSCA 2.0 §15.5)"
                        } else {
                            "map it to a node template's capability, `[ <node>, <capability> ]`"
                        }),
                    ),
                }
            }
        }
        Some(out)
    }
}

#[cfg(test)]
mod tests {
    use super::super::lower_text;
    use crate::diagnostics::codes;

    fn ignored(target: &str) -> Vec<String> {
        let (t, d) = lower_text(&format!(
            "tosca_definitions_version: tosca_2_0\n\
             node_types: {{Client: {{}}, Compute: {{}}}}\n\
             service_template:\n  substitution_mappings:\n    node_type: Client\n    \
             requirements:\n    - host: {target}\n  \
             node_templates:\n    compute: {{type: Compute, directives: [select]}}\n    \
             other: {{type: Compute}}\n"
        ));
        assert!(t.is_some() && !d.has_errors(), "{d:?}");
        d.iter()
            .filter(|d| d.code == codes::W_IGNORED)
            .map(|d| d.message.clone())
            .collect()
    }

    #[test]
    fn a_requirement_mapped_to_a_selectable_node_is_valid() {
        assert!(ignored("compute").is_empty());
        let not_selectable = ignored("other");
        assert_eq!(
            not_selectable,
            [
                "substitution requirement `host` is not of the form [node, requirement]; it is ignored"
            ]
        );
    }
}
