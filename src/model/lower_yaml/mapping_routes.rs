//! Which requirement mapping each relationship of a substituted node's
//! requirement takes (TOSCA 2.0 §15.5, §15.5.4), and what the node's
//! relationships must give the mappings.
//!
//! §15.5: several mappings of a requirement each take one of the node's
//! assignments of it ("each requirement assignment is mapped separately
//! (in the order they appear in the list)"), a mapping keyed `[name,
//! count]` that many, one with count `UNBOUNDED` all that remain; a single
//! mapping of a name takes them all. §15.5.4: where the mappings are more
//! than the lower bound of the node type's `count_range`, "the
//! orchestrator must first perform those mappings that map requirements
//! onto non-optional requirements". The node's relationships of the
//! requirement come in the order its assignments are written.
//!
//! The `count_range` checks of `substitution.rs` hold for any node that
//! keeps to its type; what the node template being substituted actually
//! has must still give them what they need:
//! - a mapping onto a mandatory requirement of the substituting template
//!   must get a relationship: that requirement is dangling there (rule 1)
//!   and fulfilled by what the node passes on, so one that gets none is
//!   E0413;
//! - a relationship beyond what the mappings take maps onto nothing.
//!   §15.5.4 allows that ("the total number of requirement mappings is
//!   allowed to be smaller", its example maps one of three), so it is
//!   dropped with W0414 (and with it its ordering), not an error.
//!
//! A mapping to several targets (§15.5.2) gives its relationship to each
//! of them (`relationship_copies.rs` makes the copies).
//!
//! In: the substituting template's mapping AST and the node's
//! relationships. Out: per relationship its mapping, and the diagnostics.

use super::splice_values::Sub;
use super::substitute::Inlined;
use super::{Lowerer, Unit};
use crate::diagnostics::{Diagnostic, codes};
use crate::model::{NodeId, RelationshipTemplate};
use crate::yaml::ast::{self, MappingCount, Spanned};

/// One target of a requirement mapping as written: the mapping's name and
/// `[node, requirement]` (or `[selectable node]`).
pub(super) type Target<'m> = &'m (Spanned, Vec<Spanned>);

/// One requirement mapping of a name, as written.
pub(super) struct Route<'m> {
    /// Its name as written (where it is).
    pub(super) name: &'m Spanned,
    /// How many assignments it takes.
    count: MappingCount,
    /// Its targets: `[node, requirement]` or `[selectable node]`.
    pub(super) targets: &'m [(Spanned, Vec<Spanned>)],
    /// Whether one of them is a mandatory requirement.
    mandatory: bool,
}

impl<'a> Lowerer<'a> {
    /// The mappings of requirement `req` in `s`'s substitution mapping, in
    /// the order written.
    pub(super) fn routes(&mut self, s: &Inlined<'a>, req: &str) -> Vec<Route<'a>> {
        let m: &'a ast::Substitution = s.mapping;
        let mut out = Vec::new();
        let mut at = 0;
        for (name, count, n) in &m.requirement_counts {
            let targets =
                &m.requirements[at.min(m.requirements.len())..(at + n).min(m.requirements.len())];
            at += n;
            if name.text != req {
                continue;
            }
            let mandatory = match s.unit.file.topology.as_ref() {
                Some(topo) => targets
                    .iter()
                    .any(|(_, t)| self.is_mandatory(t, topo, s.unit)),
                None => false,
            };
            out.push(Route {
                name,
                count: *count,
                targets,
                mandatory,
            });
        }
        out
    }

    /// Which of `routes` each of `relationships` relationships of
    /// requirement `req` of substituted node `s` takes (`None`: beyond
    /// what they take).
    pub(super) fn distributed(
        &mut self,
        s: &Inlined<'a>,
        req: &str,
        routes: &[Route<'a>],
        relationships: usize,
    ) -> Vec<Option<usize>> {
        let min = self
            .count_ranges(&s.type_key)
            .get(req)
            .map_or(0, |(min, _)| *min);
        let takes: Vec<(MappingCount, bool)> =
            routes.iter().map(|r| (r.count, r.mandatory)).collect();
        distribute(&takes, min, relationships)
    }

    /// 2.0: every mapping onto a mandatory requirement of substituted
    /// node `s` (`sub`) gets one of the node's relationships (E0413).
    pub(super) fn check_routes(&mut self, s: &Inlined<'a>, sub: &Sub) {
        if !s.unit.file.version.is_v2() {
            return;
        }
        let mut names: Vec<&'a str> = s
            .mapping
            .requirement_counts
            .iter()
            .map(|(n, _, _)| n.text.as_str())
            .collect();
        names.sort_unstable();
        names.dedup();
        for req in names {
            let routes = self.routes(s, req);
            let had = self
                .rel_by_requirement
                .get(&(s.node, req))
                .map_or(0, Vec::len);
            let taken = self.distributed(s, req, &routes, had);
            for (i, r) in routes.iter().enumerate() {
                if r.mandatory && !taken.contains(&Some(i)) {
                    self.push_unfed(s.unit, sub, r, (req, had));
                }
            }
        }
    }

    /// E0413: mapping `r` of requirement `req` is onto a mandatory
    /// requirement and gets none of the node's `had` relationships.
    fn push_unfed(&mut self, unit: Unit<'a>, sub: &Sub, r: &Route<'a>, (req, had): (&str, usize)) {
        let target = r
            .targets
            .iter()
            .find_map(|(_, t)| match t.as_slice() {
                [n, q, ..] => Some(format!("requirement `{}` of `{}`", q.text, n.text)),
                _ => None,
            })
            .unwrap_or_else(|| "a mandatory requirement".into());
        let mut d = Diagnostic::error(
            codes::SUBSTITUTION,
            format!(
                "the mapping of requirement `{req}` onto {target}, which is mandatory, gets no relationship from node template `{}`, which has {had} of requirement `{req}`: nothing fulfils it (TOSCA 2.0 §15.5.4: a mapped requirement is dangling in the substituting template, and the substituted node's relationships fulfil it)",
                sub.id
            ),
        )
        .at(Self::at(unit, r.name.span))
        .hint(format!(
            "give `{}` one more `{req}` assignment, or make the mapped requirement optional (`optional: true`, or a `count_range` from 0)",
            sub.id
        ));
        if let Some(origin) = &sub.origin {
            d = d.note(format!("`{}` is here: {origin}", sub.id));
        }
        self.push_once(d);
    }

    /// W0414: relationship `r`, the `index`th of requirement `req` of
    /// substituted node `s`, is past the `taken` its mappings take.
    pub(super) fn push_beyond(
        &mut self,
        (s, sub): (&Inlined<'a>, &Sub),
        req: &str,
        (index, taken): (usize, usize),
        r: &RelationshipTemplate,
    ) {
        let file = s.unit.file.source.name();
        let last = self
            .routes(s, req)
            .last()
            .map_or(s.mapping.span, |r| r.name.span);
        self.diags.push(
            Diagnostic::warning(
                codes::W_SUBSTITUTION,
                format!(
                    "relationship `{}` is number {} of requirement `{req}` of `{}`, and the mappings of `{req}` in `{file}` take {taken} (TOSCA 2.0 §15.5): it maps onto no requirement of the substituting templates and is dropped, and with it its ordering",
                    r.id,
                    index + 1,
                    sub.id
                ),
            )
            .at_opt(r.origin.clone())
            .note(format!("its last mapping is here: {}", Lowerer::at(s.unit, last)))
            .hint(format!(
                "map `{req}` once more (or key a mapping `[ {req}, <count> ]` or `[ {req}, UNBOUNDED ]`) to keep it"
            )),
        );
    }

    /// The templates (in the substituting topology) that the `index`th
    /// relationship of requirement `req` of substituted node `s` starts
    /// at now, one per target of its mapping in the order written (2.0
    /// §15.5.2: a mapping may list several), each with the target as
    /// written: `None` for a target that is a selectable node or names no
    /// template; `Err(taken)` where the mappings take only `taken`. No
    /// mapping of `req` at all: empty.
    pub(super) fn routed_sources(
        &mut self,
        s: &Inlined<'a>,
        req: &str,
        index: usize,
    ) -> Result<Vec<(Target<'a>, Option<NodeId>)>, usize> {
        let routes = self.routes(s, req);
        if routes.is_empty() {
            return Ok(Vec::new());
        }
        let had = self
            .rel_by_requirement
            .get(&(s.node, req))
            .map_or(0, Vec::len);
        let taken = self.distributed(s, req, &routes, had.max(index + 1));
        let Some(i) = taken.get(index).copied().flatten() else {
            return Err(taken.iter().flatten().count());
        };
        Ok(routes[i]
            .targets
            .iter()
            .map(|target| match target.1.as_slice() {
                [n, _, ..] => (target, s.topology.node_by_id(&n.text)),
                _ => (target, None),
            })
            .collect())
    }
}

/// For each of `relationships` relationships in order, the mapping of
/// `takes` (each: how many it takes, whether it is onto a mandatory
/// requirement) it goes to, `None` past what they take; `min` is the
/// lower bound of the substituted node type's `count_range`.
fn distribute(
    takes: &[(MappingCount, bool)],
    min: u64,
    relationships: usize,
) -> Vec<Option<usize>> {
    // The only mapping of a name, by name alone, takes every assignment.
    if let [(MappingCount::Uncounted, _)] = takes {
        return vec![Some(0); relationships];
    }
    let mappings: Option<u64> = takes.iter().try_fold(0u64, |sum, (c, _)| match c {
        MappingCount::Uncounted => Some(sum.saturating_add(1)),
        MappingCount::Exactly(k) => Some(sum.saturating_add(*k)),
        MappingCount::Unbounded => None,
    });
    let mut order: Vec<usize> = (0..takes.len()).collect();
    // §15.5.4: onto mandatory requirements first, where not all are performed.
    if mappings.is_none_or(|m| m > min) {
        order.sort_by_key(|&i| !takes[i].1);
    }
    let mut out = Vec::with_capacity(relationships);
    for i in order {
        let k = match takes[i].0 {
            MappingCount::Uncounted => 1,
            MappingCount::Exactly(k) => usize::try_from(k).unwrap_or(usize::MAX),
            MappingCount::Unbounded => usize::MAX,
        };
        let room = relationships - out.len();
        out.extend(std::iter::repeat_n(Some(i), k.min(room)));
    }
    out.resize(relationships, None);
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use MappingCount::{Exactly, Unbounded, Uncounted};

    #[test]
    fn a_single_mapping_of_a_name_takes_every_relationship() {
        assert_eq!(distribute(&[(Uncounted, true)], 1, 3), [Some(0); 3]);
        assert_eq!(
            distribute(&[(Exactly(2), false)], 0, 3),
            [Some(0), Some(0), None]
        );
    }

    #[test]
    fn several_mappings_take_one_each_in_order_and_a_count_that_many() {
        let takes = [(Uncounted, false), (Exactly(2), false), (Uncounted, false)];
        assert_eq!(
            distribute(&takes, 0, 5),
            [Some(0), Some(1), Some(1), Some(2), None]
        );
        assert_eq!(distribute(&takes, 0, 2), [Some(0), Some(1)]);
        let unbounded = [(Uncounted, false), (Unbounded, false)];
        assert_eq!(distribute(&unbounded, 0, 3), [Some(0), Some(1), Some(1)]);
    }

    #[test]
    fn mappings_onto_mandatory_requirements_come_first_where_not_all_are_performed() {
        // Three mappings, a lower bound of one: the mandatory one first.
        let takes = [(Uncounted, false), (Uncounted, false), (Uncounted, true)];
        assert_eq!(distribute(&takes, 1, 1), [Some(2)]);
        assert_eq!(distribute(&takes, 1, 3), [Some(2), Some(0), Some(1)]);
        // As many mappings as the lower bound: in the order written.
        assert_eq!(distribute(&takes, 3, 3), [Some(0), Some(1), Some(2)]);
    }
}
