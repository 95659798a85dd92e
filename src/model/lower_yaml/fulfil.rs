//! Dangling requirements fulfilled inside the topology. A requirement
//! that names a node type rather than a template (1.3 §3.8.2: "a Node Type
//! name that the provider will use to select a type-compatible node
//! template") or, in TOSCA 2.0, names no node at all (§8.5: the processor
//! fulfils dangling requirements, the service's own node representations
//! being candidates), or in 1.x names none but has a node_filter (which
//! then selects among the templates offering its capability), is given a
//! template of the topology when one fits;
//! only where none does is the target left to the orchestrator
//! (delegated, `requirements.rs`).
//!
//! In: the requirement (its node type and capability, from the
//! assignment or the definition), the source and the topology's templates
//! (indexed by type in `candidates.rs`).
//! Out: the chosen template, with a warning where several fit.

use super::allocation::Allocated;
use super::candidates::{Candidates, left};
use super::node_filter::{Candidate, Verdict};
use super::{Lowerer, Unit};
use crate::diagnostics::{Diagnostic, Location, codes};
use crate::model::NodeId;
use crate::yaml::ast::{self, TypeKind};
use crate::yaml::node::Node;

/// What a dangling requirement asks of its target.
pub(super) struct Wanted<'s, 'a> {
    /// The source template's name and node.
    pub(super) source: (&'s str, NodeId),
    /// The requirement's name.
    pub(super) requirement: &'s str,
    /// The node type the target must be of (or derive from), if named.
    pub(super) node_type: Option<String>,
    /// The capability the target must offer, if named.
    pub(super) capability: Option<(&'a ast::Spanned, Unit<'a>)>,
    /// What it allocates of that capability (2.0 §8.5.5): a candidate
    /// must have room for it.
    pub(super) allocation: &'a [(ast::Spanned, Node)],
    /// The node filters a candidate must pass (`node_filter.rs`): those
    /// of the requirement definition along the node type's ancestry, then
    /// the assignment's (each "in addition", 2.0 §8.4, §8.5).
    pub(super) filters: Vec<(&'a Node, Unit<'a>)>,
    /// How the warnings name those filters ([`filters_named`]).
    pub(super) filters_named: &'static str,
}

/// The templates a dangling requirement may be fulfilled by.
pub(super) struct Pool<'t, 'a> {
    /// The templates lowered, with their type keys, in node id order.
    pub(super) asts: &'t [(&'a ast::NodeTemplate, std::sync::Arc<str>)],
    /// The same templates by type.
    pub(super) index: &'t Candidates,
    /// The lowered templates, in node id order: node filters read their
    /// property values.
    pub(super) nodes: &'t [crate::model::NodeTemplate],
}

/// The templates that fit, in node id order: the first [`SHOWN`], and how
/// many in all.
type Fitting = (Vec<NodeId>, usize);

impl<'a> Lowerer<'a> {
    /// The first template, in declaration order, that fits `wanted` and is
    /// neither the source nor already a target of the same requirement of
    /// the source (so three dangling `service` requirements take three
    /// servers). `Err` when none is chosen: none fits, nothing is asked
    /// (any template would do), the source has a node_filter of its own,
    /// or the requirement's node_filter decides none (with what to say of
    /// it). `taken` are the templates the requirement has already.
    pub(super) fn fulfil(
        &mut self,
        wanted: &Wanted<'_, 'a>,
        origin: &Location,
        pool: &Pool<'_, 'a>,
        taken: &[NodeId],
        allocated: &Allocated<'_>,
    ) -> Result<NodeId, Option<String>> {
        let (asts, index) = (pool.asts, pool.index);
        let (source_name, source) = wanted.source;
        // A node_filter of the node applies to every requirement; those
        // are not evaluated, so such a node's targets stay open.
        let filtered = asts
            .get(source.0 as usize)
            .is_some_and(|(n, _)| n.node_filter.is_some());
        if filtered || (wanted.node_type.is_none() && wanted.capability.is_none()) {
            return Err(None);
        }
        let source_type = asts.get(source.0 as usize).map(|(_, k)| &**k);
        let types = self.fitting_types(wanted, index, source_type);
        // A capability that takes relationships from outside the topology
        // only (§8.3.3) is passed over, as a template already taken is.
        let outside_only = self.outside_only(wanted, asts);
        let taken: std::borrow::Cow<'_, [NodeId]> = if outside_only.is_empty() {
            taken.into()
        } else {
            [taken, &outside_only].concat().into()
        };
        let (first, count) = self.fitting(wanted, pool, (&types, &taken), allocated)?;
        let &chosen = first.first().ok_or(None)?;
        if count > 1 {
            // A few names: a warning per requirement must not grow with the topology.
            let mut names: Vec<String> = first
                .iter()
                .map(|id| format!("`{}`", asts[id.0 as usize].0.name.text))
                .collect();
            if count > SHOWN {
                names.push(format!("{} more", count - SHOWN));
            }
            self.diags.push(
                Diagnostic::warning(
                    codes::W_DANGLING_REQUIREMENT,
                    format!(
                        "requirement `{}` of `{source_name}` names no node template: it is fulfilled by {}, the first of the {count} templates of the topology that fit ({})",
                        wanted.requirement,
                        names[0],
                        names.join(", ")
                    ),
                )
                .at(origin.clone())
                .hint("name the node template in the requirement to choose another"),
            );
        }
        Ok(chosen)
    }

    /// The templates whose capability that would fulfil `wanted` has the
    /// directives `[external]` only (few: the set is that of the templates
    /// that say so).
    fn outside_only(
        &mut self,
        wanted: &Wanted<'_, 'a>,
        asts: &[(&'a ast::NodeTemplate, std::sync::Arc<str>)],
    ) -> Vec<NodeId> {
        let Some((c, unit)) = wanted.capability else {
            return Vec::new();
        };
        let mut marked: Vec<(NodeId, String)> =
            self.external_capabilities.iter().cloned().collect();
        marked.sort_unstable();
        marked
            .into_iter()
            .filter(|(id, name)| {
                asts.get(id.0 as usize)
                    .and_then(|(_, key)| self.matching(key, c, unit))
                    .is_some_and(|m| m.name == *name)
            })
            .map(|(id, _)| id)
            .collect()
    }

    /// The templates of `types` that fit `wanted` (room, filters), in
    /// node id order, passing over its source and `taken`: the first
    /// [`SHOWN`] and how many. `Err` as [`Lowerer::fulfil`] gives it.
    fn fitting(
        &mut self,
        wanted: &Wanted<'_, 'a>,
        pool: &Pool<'_, 'a>,
        (types, taken): (&[usize], &[NodeId]),
        allocated: &Allocated<'_>,
    ) -> Result<Fitting, Option<String>> {
        let (asts, index, source) = (pool.asts, pool.index, wanted.source.1);
        let room_asked = wanted.capability.is_some() && !wanted.allocation.is_empty();
        let per_template = room_asked || !wanted.filters.is_empty();
        let shared = match wanted.filters.is_empty() {
            false => self.shared_verdicts(wanted, pool, types),
            true => None,
        };
        if let Some(shared) = shared.as_ref().filter(|_| room_asked) {
            // Room among the candidates the filters do not reject.
            self.with_room_passing(wanted, pool, (types, taken), allocated, shared)
        } else if let Some(shared) = shared {
            // The filters' verdicts on every candidate, shared by the
            // requirements that carry the same filters.
            let left = left(index, types, source, taken);
            shared.choose(pool, wanted, (taken, left))
        } else if room_asked && wanted.filters.is_empty() {
            // The candidates with room, kept up to date across the
            // requirements that allocate alike.
            Ok(self.with_room(wanted, pool, (types, taken), allocated))
        } else if per_template {
            // Room and filters depend on the template: each one is looked at.
            let mut ids: Vec<NodeId> = types
                .iter()
                .flat_map(|&t| index.of_type(t).1)
                .copied()
                .filter(|&id| id != source && !taken.contains(&id))
                .collect();
            ids.sort_unstable();
            ids.retain(|&id| {
                self.has_room_in(id, &asts[id.0 as usize].1, wanted, allocated.amount)
            });
            self.filtered(wanted, pool, ids)
        } else {
            Ok(first_of(types, index, taken, source))
        }
    }

    /// Template `id` as the filters of `wanted` see it: its name, type,
    /// values, the source's values and the capability that would fulfil
    /// the requirement.
    pub(super) fn candidate<'p>(
        &mut self,
        wanted: &Wanted<'p, 'a>,
        pool: &Pool<'p, 'a>,
        id: NodeId,
    ) -> Candidate<'p> {
        let (n, key) = &pool.asts[id.0 as usize];
        let capability = wanted
            .capability
            .and_then(|(c, u)| self.matching(key, c, u))
            .map(|c| c.name);
        let source = wanted.source.1;
        Candidate {
            id,
            name: &n.name.text,
            key,
            properties: &pool.nodes[id.0 as usize].properties,
            source: (wanted.source.0, &pool.nodes[source.0 as usize].properties),
            capability,
        }
    }

    /// The templates `ids` (fitting, in node id order) that pass the
    /// requirement's node_filter, if it has one. `Err` with what to say
    /// where none passes, or where whether the first would is known only
    /// when the plans run.
    fn filtered(
        &mut self,
        wanted: &Wanted<'_, 'a>,
        pool: &Pool<'_, 'a>,
        ids: Vec<NodeId>,
    ) -> Result<Fitting, Option<String>> {
        if wanted.filters.is_empty() {
            let count = ids.len();
            return Ok((ids.into_iter().take(SHOWN).collect(), count));
        }
        if ids.is_empty() {
            return Err(None);
        }
        let mut passing: Vec<NodeId> = Vec::new();
        for &id in &ids {
            let candidate = self.candidate(wanted, pool, id);
            match self.passes_all(&wanted.filters, &candidate) {
                Verdict::Pass => passing.push(id),
                Verdict::Fail => {}
                // The first that fits may be one it does not know.
                Verdict::Unknown(why) if passing.is_empty() => {
                    return Err(Some(unknown(pool, wanted, id, &why)));
                }
                Verdict::Unknown(_) => {}
            }
        }
        if passing.is_empty() {
            return Err(Some(none_passes(wanted)));
        }
        let count = passing.len();
        passing.truncate(SHOWN);
        Ok((passing, count))
    }

    /// The types (numbers in `index`, ascending) whose templates fit
    /// `wanted`: only those the index lists for its node type, else for its
    /// capability, are looked at.
    fn fitting_types(
        &mut self,
        wanted: &Wanted<'_, 'a>,
        index: &Candidates,
        source_type: Option<&str>,
    ) -> Vec<usize> {
        let listed: &[usize] = match (&wanted.node_type, wanted.capability) {
            (Some(t), _) => index.derived_from(t),
            // As `Lowerer::matching` does: a capability type by its
            // definition, else a capability name.
            (None, Some((c, unit))) => match self.resolve(TypeKind::Capability, &c.text, unit) {
                Some(key) => match self.lineage(&key).first() {
                    Some(def) => index.offering_type(def),
                    None => &[],
                },
                None => index.offering_name(&c.text),
            },
            (None, None) => &[],
        };
        listed
            .iter()
            .copied()
            .filter(|&t| self.fits(index.of_type(t).0, wanted, source_type))
            .collect()
    }

    /// Whether the capability template `id` (of type `key`) offers has
    /// room for what `wanted` allocates (nothing allocated: room).
    pub(super) fn has_room_in(
        &mut self,
        id: NodeId,
        key: &str,
        wanted: &Wanted<'_, 'a>,
        used: &dyn Fn(NodeId, &str) -> f64,
    ) -> bool {
        let Some((c, unit)) = wanted.capability.filter(|_| !wanted.allocation.is_empty()) else {
            return true;
        };
        match self.matching(key, c, unit) {
            Some(c) => self.has_room(id, &c.name, wanted.allocation, used),
            None => true,
        }
    }

    /// Whether templates of node type `key` fit: of the named node type or
    /// one derived from it, offering the named capability.
    fn fits(&mut self, key: &str, wanted: &Wanted<'_, 'a>, source_type: Option<&str>) -> bool {
        if let Some(t) = &wanted.node_type {
            let chain = self.chain(TypeKind::Node, key).unwrap_or_default();
            if !chain.iter().any(|k| k == t) {
                return false;
            }
        }
        let Some((c, unit)) = wanted.capability else {
            return true;
        };
        match self.matching(key, c, unit) {
            // Its valid_source_node_types must let the source in.
            Some(c) => source_type.is_none_or(|s| self.refuses(&c, s, None).is_none()),
            None => false,
        }
    }
}

/// What to say where whether candidate `id` passes is not known: `why`.
pub(super) fn unknown(
    pool: &Pool<'_, '_>,
    wanted: &Wanted<'_, '_>,
    id: NodeId,
    why: &str,
) -> String {
    format!(
        "{} is not evaluated on `{}` when the plans are made: {why}",
        wanted.filters_named, pool.asts[id.0 as usize].0.name.text
    )
}

/// What to say where no candidate passes.
pub(super) fn none_passes(wanted: &Wanted<'_, '_>) -> String {
    format!(
        "no template of the topology that fits passes {}",
        wanted.filters_named
    )
}

/// How a warning names the node filters of a requirement: its own
/// (`assigned`), its definition's (`defined`), or both.
pub(super) fn filters_named(defined: bool, assigned: bool) -> &'static str {
    match (defined, assigned) {
        (true, true) => "its node_filter together with that of its definition",
        (true, false) => "the node_filter of its definition",
        _ => "its node_filter",
    }
}

/// How many template names a W0411 warning shows.
pub(super) const SHOWN: usize = 5;

/// The first [`SHOWN`] of the sorted templates `ids` that are not among
/// the sorted `out`, and how many of all `len` of them are not: `has`
/// says whether one of `out` is among `ids`.
pub(super) fn first_not_out<'i>(
    ids: impl Iterator<Item = &'i NodeId>,
    len: usize,
    out: &[NodeId],
    has: impl Fn(&NodeId) -> bool,
) -> (Vec<NodeId>, usize) {
    let first = ids
        .filter(|id| out.binary_search(id).is_err())
        .take(SHOWN)
        .copied()
        .collect();
    (first, len - out.iter().filter(|id| has(id)).count())
}

/// The first [`SHOWN`] templates, in node id order, of the fitting
/// `types` that are neither `source` nor `taken`, and how many there are
/// in all: counted per type, not per template.
fn first_of(
    types: &[usize],
    index: &Candidates,
    taken: &[NodeId],
    source: NodeId,
) -> (Vec<NodeId>, usize) {
    let skipped = |id: &NodeId| *id == source || taken.contains(id);
    // Each type's first templates hold the first SHOWN of all, however
    // many of them are skipped.
    let enough = SHOWN + 1 + taken.len();
    let mut first: Vec<NodeId> = types
        .iter()
        .flat_map(|&t| index.of_type(t).1.iter().take(enough))
        .copied()
        .filter(|id| !skipped(id))
        .collect();
    first.sort_unstable();
    first.truncate(SHOWN);
    (first, left(index, types, source, taken))
}

#[cfg(test)]
mod tests {
    use super::super::lower_text;
    use crate::diagnostics::codes;

    use super::super::TEST_V13 as V13;
    const V20: &str = "tosca_definitions_version: tosca_2_0\nimports:\n  - profile: org.oasis-open.simple:1.3\nservice_template:\n  node_templates:\n";

    use super::super::targets_of as target_of;

    #[test]
    fn a_node_type_is_fulfilled_by_a_template_of_that_type() {
        let (t, d) = lower_text(&format!(
            "{V13}    server: {{type: tosca.nodes.Compute}}\n    \
             app:\n      type: tosca.nodes.SoftwareComponent\n      \
             requirements: [{{host: tosca.nodes.Compute}}]\n"
        ));
        let t = t.unwrap();
        assert_eq!(target_of(&t, "app"), ["server"]);
        assert!(t.node_by_id("app_host_target").is_none());
        assert!(
            !d.iter()
                .any(|d| d.message.contains("asks for a node of type")),
            "{d:?}"
        );
    }

    #[test]
    fn several_dangling_requirements_take_distinct_templates_in_order() {
        let (t, d) = lower_text(&format!(
            "{V20}    s1: {{type: tosca.nodes.Compute}}\n    \
             s2: {{type: tosca.nodes.Compute}}\n    \
             app:\n      type: tosca.nodes.Root\n      \
             requirements:\n        - dependency: {{node: tosca.nodes.Compute}}\n        \
             - dependency: {{node: tosca.nodes.Compute}}\n"
        ));
        let t = t.unwrap();
        assert_eq!(target_of(&t, "app"), ["s1", "s2"]);
        // The first had two to choose from: said; the second had one.
        let said: Vec<&str> = d
            .iter()
            .filter(|d| d.code == codes::W_DANGLING_REQUIREMENT)
            .map(|d| d.message.as_str())
            .collect();
        assert_eq!(said.len(), 1, "{said:?}");
        assert!(said[0].contains("fulfilled by `s1`, the first of the 2 templates"));
    }

    #[test]
    fn a_2_0_unassigned_mandatory_requirement_is_fulfilled_from_the_topology() {
        let (t, _) = lower_text(&format!(
            "{V20}    server: {{type: tosca.nodes.Compute}}\n    \
             app: {{type: tosca.nodes.SoftwareComponent}}\n"
        ));
        assert_eq!(target_of(&t.unwrap(), "app"), ["server"]);
    }

    #[test]
    fn no_fitting_template_or_a_node_filter_leaves_it_to_the_orchestrator() {
        let (t, _) = lower_text(&format!(
            "{V13}    db: {{type: tosca.nodes.Database}}\n    \
             app:\n      type: tosca.nodes.SoftwareComponent\n      \
             requirements: [{{host: tosca.nodes.Compute}}]\n"
        ));
        assert_eq!(target_of(&t.unwrap(), "app"), ["app_host_target"]);
        let (t, _) = lower_text(&format!(
            "{V13}    server: {{type: tosca.nodes.Compute}}\n    \
             app:\n      type: tosca.nodes.SoftwareComponent\n      \
             node_filter: {{properties: [{{num_cpus: {{equal: 2}}}}]}}\n      \
             requirements: [{{host: tosca.nodes.Compute}}]\n"
        ));
        assert_eq!(target_of(&t.unwrap(), "app"), ["app_host_target"]);
    }

    #[test]
    fn an_unassigned_requirement_is_filtered_by_its_definition() {
        let (t, d) = lower_text(
            "tosca_definitions_version: tosca_2_0\nimports:\n  - profile: org.oasis-open.simple:2.0\n\
             node_types:\n  App:\n    derived_from: tosca.nodes.Root\n    requirements:\n      \
             - host:\n          capability: tosca.capabilities.Compute\n          count_range: [1, 1]\n          \
             node_filter: {$equal: [{$get_property: [SELF, TARGET, tag]}, b]}\n\
             service_template:\n  node_templates:\n    \
             a: {type: tosca.nodes.Compute, properties: {tag: a}}\n    \
             b: {type: tosca.nodes.Compute, properties: {tag: b}}\n    \
             app: {type: App}\n    \
             other: {type: App, requirements: [{host: {node_filter: {$equal: [1, 2]}}}]}\n",
        );
        let t = t.unwrap();
        assert_eq!(target_of(&t, "app"), ["b"]);
        assert_eq!(target_of(&t, "other"), ["other_host_target"]);
        assert!(d.iter().any(|d| d.message.contains(
            "(no template of the topology that fits passes its node_filter together with that of its definition)"
        )), "{d:?}");
        // Unassigned, and no template passes: the warning says why.
        let (_, d) = lower_text(
            "tosca_definitions_version: tosca_2_0\nimports:\n  - profile: org.oasis-open.simple:2.0\n\
             node_types:\n  App:\n    derived_from: tosca.nodes.Root\n    requirements:\n      \
             - host:\n          capability: tosca.capabilities.Compute\n          count_range: [1, 1]\n          \
             node_filter: {$equal: [{$get_property: [SELF, TARGET, tag]}, c]}\n\
             service_template:\n  node_templates:\n    \
             a: {type: tosca.nodes.Compute, properties: {tag: a}}\n    \
             app: {type: App}\n",
        );
        assert!(d.iter().any(|d| d.message.contains(
            "does not assign its required requirement `host` (no template of the topology that fits passes the node_filter of its definition)"
        )), "{d:?}");
    }

    #[test]
    fn a_count_takes_that_many_templates_and_an_optional_one_may_stay_open() {
        let (t, d) = lower_text(&format!(
            "{V20}    s1: {{type: tosca.nodes.Compute}}\n    \
             s2: {{type: tosca.nodes.Compute}}\n    \
             app:\n      type: tosca.nodes.Root\n      \
             requirements:\n        - dependency: {{node: tosca.nodes.Compute, count: 2}}\n        \
             - dependency: {{node: tosca.nodes.Compute, optional: true}}\n"
        ));
        let t = t.unwrap();
        assert_eq!(target_of(&t, "app"), ["s1", "s2"]);
        assert!(d.iter().any(|d| {
            d.code == codes::W_DANGLING_REQUIREMENT
                && d.message
                    .contains("optional requirement `dependency` of `app` is left unfulfilled")
        }));
    }

    #[test]
    fn a_count_on_a_named_template_makes_one_relationship() {
        let (t, d) = lower_text(&format!(
            "{V20}    s1: {{type: tosca.nodes.Compute}}\n    \
             app:\n      type: tosca.nodes.Root\n      \
             requirements:\n        - dependency: {{node: s1, count: 3}}\n"
        ));
        assert_eq!(target_of(&t.unwrap(), "app"), ["s1"]);
        assert!(d.iter().any(|d| {
            d.message
                .contains("asks for 3 relationships to node template `s1`")
        }));
    }

    #[test]
    fn a_capability_that_refuses_the_source_type_is_no_candidate() {
        let (t, d) = lower_text(
            "tosca_definitions_version: tosca_2_0\nimports:\n  - profile: org.oasis-open.simple:2.0\n\
             capability_types:\n  Socket: {valid_source_node_types: [Lamp]}\n\
             node_types:\n  Panel:\n    derived_from: tosca.nodes.Root\n    capabilities: {socket: Socket}\n  \
             Open:\n    derived_from: tosca.nodes.Root\n    capabilities:\n      socket: {type: Socket, valid_source_node_types: [Heater]}\n  \
             Heater:\n    derived_from: tosca.nodes.Root\n    requirements: [{power: {capability: Socket}}]\n\
             service_template:\n  node_templates:\n    panel: {type: Panel}\n    open: {type: Open}\n    \
             heater: {type: Heater, requirements: [{power: {capability: Socket}}]}\n",
        );
        assert!(!d.has_errors(), "{d:?}");
        assert_eq!(target_of(&t.unwrap(), "heater"), ["open"]);
    }

    #[test]
    fn a_capability_for_outside_nodes_only_is_no_candidate() {
        let (t, d) = lower_text(
            r#"tosca_definitions_version: tosca_2_0
imports:
  - profile: org.oasis-open.simple:2.0
node_types:
  Shelf:
    derived_from: tosca.nodes.Root
    capabilities: {slot: tosca.capabilities.Endpoint}
service_template:
  node_templates:
    outside: {type: Shelf, capabilities: {slot: {directives: [external]}}}
    inside: {type: Shelf}
    picker:
      type: tosca.nodes.Root
      requirements: [{dependency: {node: Shelf, capability: slot}}]
"#,
        );
        assert!(!d.has_errors(), "{d:?}");
        assert_eq!(target_of(&t.unwrap(), "picker"), ["inside"]);
    }
}
