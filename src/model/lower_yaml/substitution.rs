//! Substitution mappings (1.3 §3.8.13): the topology as an implementation
//! of a node type.
//!
//! In: the `substitution_mappings` AST and the lowered topology. Out: a
//! model [`Substitution`] whose requirements and capabilities point at
//! node templates; a mapping to an unknown template is an error. A 2.0
//! requirement mapped to a selectable node (§15.5.3) is valid and adds
//! nothing: the plans only register that node. The counts of 2.0
//! requirement mappings are checked against the node type's
//! `count_range` (§15.5.4).

use foldhash::{HashMap, HashMapExt, HashSet, HashSetExt};

use super::{Lowerer, Unit};
use crate::diagnostics::{Diagnostic, codes};
use crate::model::{Substitution, Topology};
use crate::yaml::ast::{self, MappingCount, TypeKind};

impl<'a> Lowerer<'a> {
    pub(super) fn substitution(
        &mut self,
        t: &Topology,
        (s, topo): (&'a ast::Substitution, &'a ast::Topology),
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
        if unit.file.version.is_v2() {
            self.check_mapping_counts(&out.node_type, s, topo, unit);
        }
        Some(out)
    }

    /// 2.0 §15.5.4: the mappings of a requirement take, together, no
    /// more of the substituted node's assignments than the upper bound of
    /// the requirement's `count_range` in `node_type` (rule 3; an
    /// `UNBOUNDED` mapping takes what remains, so it adds nothing), map no
    /// more of them onto mandatory requirements of the substituting
    /// template than its lower bound guarantees (rule 2), and none follows
    /// one with count `UNBOUNDED` (§15.5). One error per requirement.
    fn check_mapping_counts(
        &mut self,
        node_type: &str,
        s: &ast::Substitution,
        topo: &'a ast::Topology,
        unit: Unit<'a>,
    ) {
        let bounds = self.count_ranges(node_type);
        let mut taken: HashMap<&str, (u64, u64)> = HashMap::new();
        let mut unbounded: HashSet<&str> = HashSet::new();
        let mut reported: HashSet<&str> = HashSet::new();
        let mut targets = s.requirements.iter();
        for (name, count, n_targets) in &s.requirement_counts {
            let n = name.text.as_str();
            let these: Vec<_> = targets.by_ref().take(*n_targets).collect();
            if reported.contains(n) {
                continue;
            }
            let k = match count {
                MappingCount::Uncounted => 1,
                MappingCount::Exactly(k) => *k,
                MappingCount::Unbounded => 0,
            };
            // The same assignments mapped to several targets (§15.5.2)
            // count once.
            let mandatory = these.iter().any(|(_, t)| self.is_mandatory(t, topo, unit));
            let (total, onto_mandatory) = taken.entry(n).or_default();
            *total += k;
            if mandatory {
                *onto_mandatory += k.max(1);
            }
            let (min, max) = bounds.get(n).copied().unwrap_or((0, None));
            let why = if unbounded.contains(n) {
                format!(
                    "substitution maps requirement `{n}` again after a mapping with count UNBOUNDED, which takes every remaining assignment"
                )
            } else if max.is_some_and(|m| *total > m) {
                format!(
                    "substitution maps {total} assignments of requirement `{n}` of node type `{node_type}`, whose `count_range` allows at most {}",
                    max.unwrap_or_default()
                )
            } else if *onto_mandatory > min {
                format!(
                    "substitution maps {onto_mandatory} assignments of requirement `{n}` of node type `{node_type}` onto mandatory requirements of its templates, but its `count_range` guarantees only {min}"
                )
            } else {
                if *count == MappingCount::Unbounded {
                    unbounded.insert(n);
                }
                continue;
            };
            reported.insert(n);
            self.diags.push(
                Diagnostic::error(codes::SUBSTITUTION, why)
                    .at(Self::at(unit, name.span))
                    .hint("the mappings of a requirement take the substituted node's assignments in order: together no more than its `count_range` allows, onto mandatory requirements no more than its lower bound, an UNBOUNDED one last (TOSCA 2.0 §15.5, §15.5.4)"),
            );
        }
    }

    /// The `count_range` of each requirement of node type `key`: lower
    /// bound and upper bound (`None`: unbounded), the nearest definition's
    /// (2.0 default: `[0, UNBOUNDED]`).
    pub(super) fn count_ranges(&mut self, key: &str) -> HashMap<&'a str, (u64, Option<u64>)> {
        let mut out = HashMap::new();
        for d in self.defs(TypeKind::Node, key).iter() {
            for r in &d.def.requirements {
                if r.min.is_some() || r.max.is_some() {
                    out.insert(r.name.text.as_str(), (r.min.unwrap_or(0), r.max));
                } else {
                    out.entry(r.name.text.as_str()).or_insert((0, None));
                }
            }
        }
        out
    }

    /// Whether a mapping target `[node, requirement]` is a mandatory
    /// requirement of that template: its definition's lower bound is one
    /// or more, or the template assigns it without `optional: true`.
    pub(super) fn is_mandatory(
        &mut self,
        target: &[ast::Spanned],
        topo: &'a ast::Topology,
        unit: Unit<'a>,
    ) -> bool {
        let [node, req, ..] = target else {
            return false;
        };
        let Some(n) = topo
            .node_templates
            .iter()
            .find(|n| n.name.text == node.text)
        else {
            return false;
        };
        if n.requirements
            .iter()
            .any(|a| a.name.text == req.text && !a.optional)
        {
            return true;
        }
        let Some(key) = n
            .type_name
            .as_ref()
            .and_then(|t| self.resolve(TypeKind::Node, &t.text, unit))
        else {
            return false;
        };
        self.count_ranges(&key)
            .get(req.text.as_str())
            .is_some_and(|(min, _)| *min >= 1)
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
