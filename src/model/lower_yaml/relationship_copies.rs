//! The copies of a substituted node's relationship whose requirement
//! mapping lists several targets (TOSCA 2.0 §15.5.2, "Mapping a
//! Requirement Multiple Times": the mapping must "replicate" the node's
//! requirement onto each target requirement, every one of them fulfilled
//! by the relationship's target).
//!
//! The plans order a template by its relationships, so each target gets
//! a relationship of its own: the relationship keeps its id and starts at
//! the template of the first target that names one; each further target
//! gets a copy `<relationship>_<k>` (`k`: the target's place in the
//! mapping, from 1, so a name says which target it serves) with the
//! original's type, properties and interfaces. Every substituting
//! template is then provisioned after the relationship's target and
//! terminated before it. A target that is a selectable node (§15.5.3)
//! gets none (W0414), as a mapping to it alone does not (`splice.rs`).
//!
//! What names the original and must cover the copies is in
//! `splice_parts.rs`: a scaling region holds the copies too, and a
//! workflow step on the relationship runs on each copy as well, beside it.
//! Groups, policies and substitution mappings name nodes only.
//!
//! In: the spliced relationship and its mapping's targets. Out: the
//! copies; a name the topology has already is E0413.

use foldhash::HashSet;

use super::Lowerer;
use super::mapping_routes::Target;
use super::splice_values::Sub;
use super::substitute::Inlined;
use crate::diagnostics::{Diagnostic, codes};
use crate::model::{NodeId, RelationshipTemplate};

/// The id of the copy of relationship `id` for the target at `place`
/// (from 0) of its requirement mapping.
pub(super) fn copy_id(id: &str, place: usize) -> String {
    format!("{id}_{}", place + 1)
}

/// A copy of `r` (already spliced) for the target at `place` of its
/// mapping, starting at `source`.
pub(super) fn copy_for(
    r: &RelationshipTemplate,
    place: usize,
    source: NodeId,
) -> RelationshipTemplate {
    let mut c = r.clone();
    c.id = copy_id(&r.id, place);
    c.name = c.id.clone();
    c.source = source;
    c
}

impl<'a> Lowerer<'a> {
    /// The copy `c` of a relationship of substituted node `sub` takes its
    /// name; one the topology has already is an error.
    pub(super) fn claim_copy(
        &mut self,
        taken: &mut HashSet<String>,
        c: &RelationshipTemplate,
        sub: &Sub,
    ) {
        if taken.insert(c.id.clone()) {
            return;
        }
        self.diags.push(
            Diagnostic::error(
                codes::SUBSTITUTION,
                format!(
                    "substituting `{}` copies a relationship for a further target of its requirement mapping (TOSCA 2.0 §15.5.2) as `{}`, a name the topology has already",
                    sub.id, c.id
                ),
            )
            .at_opt(c.origin.clone())
            .hint("a relationship's copy for target k of its mapping is named `<relationship>_<k>`; rename the template or relationship of that name"),
        );
    }

    /// W0414: `target`, one of several of the mapping of requirement
    /// `req` that relationship `r` of substituted node `s` takes, names
    /// no template of the substituting topology (a selectable node,
    /// §15.5.3): it gets no copy of `r`.
    pub(super) fn push_uncopied(
        &mut self,
        (s, sub): (&Inlined<'a>, &Sub),
        req: &str,
        target: Target<'a>,
        r: &RelationshipTemplate,
    ) {
        let file = s.unit.file.source.name();
        let written: Vec<&str> = target.1.iter().map(|t| t.text.as_str()).collect();
        let span = target.1.first().map_or(target.0.span, |t| t.span);
        self.diags.push(
            Diagnostic::warning(
                codes::W_SUBSTITUTION,
                format!(
                    "relationship `{}` uses requirement `{req}` of `{}`, which `{file}` maps to several targets (TOSCA 2.0 §15.5.2); target `[ {} ]` names no node template with a requirement (a selectable node, §15.5.3), whose fulfilment the plans do not take: it gets no copy of the relationship, and no ordering from it",
                    r.id,
                    sub.id,
                    written.join(", ")
                ),
            )
            .at_opt(r.origin.clone())
            .note(format!("the target is here: {}", Lowerer::at(s.unit, span)))
            .hint("map the requirement to `[ <node>, <requirement> ]` of a node template to order that template after the relationship's target"),
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{RelKind, TypeId};

    fn rel() -> RelationshipTemplate {
        RelationshipTemplate {
            id: "client_host".into(),
            name: "client_host".into(),
            type_id: TypeId(0),
            kind: RelKind::HostedOn,
            source: NodeId(1),
            target: NodeId(0),
            properties: Default::default(),
            interfaces: Default::default(),
            source_interfaces: Default::default(),
            target_interfaces: Default::default(),
            origin: None,
        }
    }

    #[test]
    fn a_copy_is_named_by_its_target_s_place_and_starts_at_its_template() {
        let c = copy_for(&rel(), 1, NodeId(2));
        assert_eq!(
            (c.id.as_str(), c.name.as_str()),
            ("client_host_2", "client_host_2")
        );
        assert_eq!((c.source, c.target), (NodeId(2), NodeId(0)));
        assert_eq!(c.kind, RelKind::HostedOn);
        assert_eq!(copy_id("r", 0), "r_1");
    }
}
