//! Groups and policies of the topology (1.3 §3.6.21–3.6.22).
//!
//! In: their ASTs and the lowered node templates. Out: model [`Group`]s
//! and [`Policy`]s with their type ancestry, members and targets; an
//! unknown member or target is an error.

use super::{Lowerer, This, Unit};
use crate::diagnostics::{Diagnostic, codes};
use crate::model::{Group, Policy, PolicyTarget, Topology};
use crate::yaml::ast::{self, TypeKind};

impl<'a> Lowerer<'a> {
    /// The topology's groups (1.3 §3.6.21) and their node members.
    pub(super) fn groups(&mut self, t: &mut Topology, topo: &'a ast::Topology, unit: Unit<'a>) {
        for g in &topo.groups {
            let types = self.type_names(TypeKind::Group, g.type_name.as_ref(), unit, "group type");
            let mut members = Vec::new();
            for m in &g.members {
                match t.node_by_id(&m.text) {
                    Some(n) => members.push(n),
                    None => self.push_once(
                        Diagnostic::error(
                            codes::DANGLING_REFERENCE,
                            format!(
                                "group `{}` has member `{}`, which is not a node template",
                                g.name.text, m.text
                            ),
                        )
                        .at(Self::at(unit, m.span)),
                    ),
                }
            }
            let properties = g
                .properties
                .iter()
                .map(|(k, v)| (k.text.clone(), self.value(v, unit, This::Nothing)))
                .collect();
            t.groups.push(Group {
                name: g.name.text.clone(),
                types,
                members,
                properties,
                origin: Some(Self::at(unit, g.name.span)),
            });
        }
    }

    /// The topology's policies (1.3 §3.6.22), targeting node templates or
    /// groups; a name that comes twice is an error.
    pub(super) fn policies(&mut self, t: &mut Topology, topo: &'a ast::Topology, unit: Unit<'a>) {
        let mut policy_names = foldhash::HashSet::default();
        for p in &topo.policies {
            // A list of one-entry maps (the usual form) does not stop a
            // name from coming twice; plans are named after policies.
            if !policy_names.insert(p.name.text.as_str()) {
                self.push_once(
                    Diagnostic::error(
                        codes::DUPLICATE_TEMPLATE,
                        format!("policy `{}` is defined more than once", p.name.text),
                    )
                    .at(Self::at(unit, p.name.span))
                    .hint("give every policy of the topology a name of its own"),
                );
                continue;
            }
            let types =
                self.type_names(TypeKind::Policy, p.type_name.as_ref(), unit, "policy type");
            let mut targets = Vec::new();
            for tg in &p.targets {
                if let Some(n) = t.node_by_id(&tg.text) {
                    targets.push(PolicyTarget::Node(n));
                } else if let Some(g) = t.groups.iter().position(|g| g.name == tg.text) {
                    targets.push(PolicyTarget::Group(g));
                } else {
                    self.push_once(
                        Diagnostic::error(
                            codes::DANGLING_REFERENCE,
                            format!("policy `{}` targets `{}`, which is neither a node template nor a group", p.name.text, tg.text),
                        )
                        .at(Self::at(unit, tg.span)),
                    );
                }
            }
            let properties = p
                .properties
                .iter()
                .map(|(k, v)| (k.text.clone(), self.value(v, unit, This::Nothing)))
                .collect();
            let metadata = p
                .metadata
                .iter()
                .map(|(k, v)| (k.text.clone(), v.text.clone(), Self::at(unit, v.span)))
                .collect();
            t.policies.push(Policy {
                name: p.name.text.clone(),
                types,
                targets,
                properties,
                metadata,
                origin: Some(Self::at(unit, p.name.span)),
            });
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::lower_text;
    use crate::diagnostics::codes;
    use crate::model::PolicyTarget;

    #[test]
    fn groups_and_policies_point_at_templates() {
        let (t, d) = lower_text(
            "tosca_definitions_version: tosca_simple_yaml_1_3\n\
             topology_template:\n  node_templates:\n    a: {type: tosca.nodes.Root}\n  \
             groups:\n    g: {type: tosca.groups.Root, members: [a, ghost]}\n  \
             policies:\n    - p: {type: tosca.policies.Root, targets: [g, a]}\n    \
             - p: {type: tosca.policies.Root}\n",
        );
        let t = t.unwrap();
        assert_eq!(t.groups[0].members.len(), 1);
        assert_eq!(t.policies.len(), 1);
        assert!(matches!(
            t.policies[0].targets[..],
            [PolicyTarget::Group(0), PolicyTarget::Node(_)]
        ));
        assert!(
            d.iter().any(
                |d| d.code == codes::DANGLING_REFERENCE && d.message.contains("member `ghost`")
            )
        );
        assert!(d.iter().any(|d| d.code == codes::DUPLICATE_TEMPLATE));
    }
}
