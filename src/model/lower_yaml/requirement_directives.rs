//! A requirement assignment's `directives` (2.0 §8.5.3): whether a target
//! that the assignment does not name is looked for among the templates
//! of the topology (`internal`), left to the orchestrator, which supplies
//! a node from outside (`external`: a delegated node), and in which order.
//! Without directives: the topology first, then the orchestrator.
//!
//! In: the assignment. Out: where its target may come from; W0412 where
//! `external` comes before `internal` (toscanini cannot look outside, so
//! the plans leave the target to the orchestrator and never fall back to
//! the topology) and where a named template contradicts `external`.

use super::{Lowerer, Unit};
use crate::diagnostics::{Diagnostic, Location, codes};
use crate::yaml::ast;

/// Where an assignment's target may come from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Scope {
    /// Look for it among the topology's templates.
    pub(super) internal: bool,
    /// Else leave it to the orchestrator.
    pub(super) external: bool,
}

impl<'a> Lowerer<'a> {
    /// Where the target of assignment `a` of node `name` may come from.
    pub(super) fn requirement_scope(
        &mut self,
        a: &'a ast::RequirementAssignment,
        name: &str,
        unit: Unit<'a>,
    ) -> Scope {
        let Some(first) = a.directives.first() else {
            return Scope {
                internal: true,
                external: true,
            };
        };
        let has = |d: &str| a.directives.iter().any(|x| x.text == d);
        if first.text == "external" && has("internal") {
            self.push_once(
                Diagnostic::warning(
                    codes::W_IGNORED,
                    format!(
                        "requirement `{}` of `{name}` looks outside the topology first (`external`): the orchestrator supplies its target, and the plans do not fall back to a template of the topology (`internal`)",
                        a.name.text
                    ),
                )
                .at(Self::at(unit, first.span))
                .hint("put `internal` first to have a template of the topology taken where one fits"),
            );
            return Scope {
                internal: false,
                external: true,
            };
        }
        Scope {
            internal: has("internal"),
            external: has("external"),
        }
    }

    /// W0412 where assignment `a` names template `target` of the topology
    /// but its directives say `external` only.
    pub(super) fn named_despite_directives(
        &mut self,
        a: &'a ast::RequirementAssignment,
        name: &str,
        target: &str,
        unit: Unit<'a>,
    ) {
        let Some(first) = a.directives.first() else {
            return;
        };
        if a.directives.iter().any(|d| d.text == "internal") {
            return;
        }
        self.push_once(
            Diagnostic::warning(
                codes::W_IGNORED,
                format!(
                    "requirement `{}` of `{name}` names node template `{target}` of the topology, though its directives say `external`: the template is its target",
                    a.name.text
                ),
            )
            .at(Self::at(unit, first.span))
            .hint("name a node type (or only a filter) to leave the target to the orchestrator, or drop the directives"),
        );
    }

    /// E0402: assignment `a` of node `name` looks for its target in the
    /// topology only (`internal`), and no template fits it.
    pub(super) fn internal_unfulfilled(
        &mut self,
        name: &str,
        a: &ast::RequirementAssignment,
        origin: &Location,
        note: Option<String>,
    ) {
        self.diags.push(
            Diagnostic::error(
                codes::DANGLING_REFERENCE,
                format!(
                    "requirement `{}` of `{name}` is to be fulfilled inside the topology (`directives: [internal]`), and no template of it fits{}",
                    a.name.text,
                    note.map(|n| format!(" ({n})")).unwrap_or_default()
                ),
            )
            .at(origin.clone())
            .hint("add a template that fits, or `external` to the directives for the orchestrator to supply the target"),
        );
    }
}

#[cfg(test)]
mod tests {
    use super::super::lower_text;

    /// The target of `app`'s requirement with `directives`.
    fn target(directives: &str) -> String {
        let (t, d) = lower_text(&format!(
            "tosca_definitions_version: tosca_2_0\nimports:\n  - profile: org.oasis-open.simple:2.0\n\
             node_types:\n  Store:\n    derived_from: tosca.nodes.Root\n\
             service_template:\n  node_templates:\n    store: {{type: Store}}\n    \
             app:\n      type: tosca.nodes.Root\n      \
             requirements: [{{dependency: {{node: Store{directives}}}}}]\n"
        ));
        assert!(!d.has_errors(), "{d:?}");
        let t = t.unwrap();
        let r = &t.relationships[0];
        t.node(r.target).id.clone()
    }

    #[test]
    fn the_topology_first_unless_the_directives_say_outside() {
        assert_eq!(target(""), "store");
        assert_eq!(target(", directives: [internal, external]"), "store");
        assert_eq!(target(", directives: [internal]"), "store");
        assert_eq!(target(", directives: [external]"), "app_dependency_target");
        assert_eq!(
            target(", directives: [external, internal]"),
            "app_dependency_target"
        );
    }
}
