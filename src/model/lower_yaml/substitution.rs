//! Substitution mappings (1.3 §3.8.13): the topology as an implementation
//! of a node type.
//!
//! In: the `substitution_mappings` AST and the lowered topology. Out: a
//! model [`Substitution`] whose requirements and capabilities point at
//! node templates; a mapping to an unknown template is an error.

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
                    _ => self.push_once(
                        Diagnostic::warning(
                            codes::W_IGNORED,
                            format!("substitution {what} `{}` is not of the form [node, {what}]; it is ignored", name.text),
                        )
                        .at(Self::at(unit, name.span)),
                    ),
                }
            }
        }
        Some(out)
    }
}
