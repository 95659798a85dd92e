//! Requirement assignments of node templates (1.3 §3.8.2): a list of
//! one-key maps, `name: target` or `name: {node, capability,
//! relationship, node_filter, ...}`; the relationship is a name or
//! written inline. A malformed item is an error that says how to fix it.
//!
//! In: the YAML node of that section. Out: its AST; keys TOSCA does not
//! define there are warnings (W0304), values of the wrong kind errors
//! (E0302).

use super::{Reader, describe};
use crate::diagnostics::{Diagnostic, codes};
use crate::yaml::ast::{RelationshipAssignment, RequirementAssignment, Spanned};
use crate::yaml::node::{Kind, Node};

impl<'a> Reader<'a> {
    /// The `requirements` of node template `owner`: a list of one-key maps.
    pub(super) fn requirement_assignments(
        &mut self,
        node: &Node,
        owner: &str,
    ) -> Vec<RequirementAssignment> {
        let items = match &node.kind {
            Kind::Null => return Vec::new(),
            Kind::Seq(items) => items,
            _ => {
                self.wrong_kind(node, &format!("`requirements` of {owner}"), "a list");
                return Vec::new();
            }
        };
        // At its size: collected, it started at four assignments (of half
        // a kilobyte each) for the one or two a template has.
        let mut out = Vec::with_capacity(items.len());
        out.extend(
            items
                .iter()
                .filter_map(|item| self.requirement_assignment(item, owner)),
        );
        out
    }

    /// One list item of `requirements`: `name: target` or `name: {node,
    /// capability, relationship, ...}`; anything else is reported.
    fn requirement_assignment(
        &mut self,
        item: &Node,
        owner: &str,
    ) -> Option<RequirementAssignment> {
        let (k, v) = match item.as_map() {
            Some([(k, v)]) if k.as_str().is_some() => (k, v),
            Some(m) if m.len() > 1 => {
                let keys: Vec<&str> = m.iter().filter_map(|(k, _)| k.as_str()).collect();
                self.diags.push(
                    Diagnostic::error(
                        codes::YAML_WRONG_KIND,
                        format!(
                            "a requirement assignment of {owner} is a map with one key (the requirement name), but this one has {}: {}",
                            keys.len(),
                            keys.iter().map(|k| format!("`{k}`")).collect::<Vec<_>>().join(", ")
                        ),
                    )
                    .at(self.source.location(item.span))
                    .hint("indent the keys that belong to the requirement under its name"),
                );
                return None;
            }
            _ => {
                let mut d = Diagnostic::error(
                    codes::YAML_WRONG_KIND,
                    format!(
                        "a requirement assignment of {owner} must be a map with one key, but it is {}",
                        describe(item)
                    ),
                )
                .at(self.source.location(item.span));
                if item.as_str().is_some_and(|s| s.contains(':')) {
                    d = d.hint("put a space after the colon: `- name: target`");
                }
                self.diags.push(d);
                return None;
            }
        };
        let name = Spanned::new(k.as_str().unwrap_or_default(), k.span);
        let mut r = RequirementAssignment {
            name,
            node: None,
            capability: None,
            relationship: None,
            node_filter: None,
            count: None,
            count_input: None,
            node_index: None,
            optional: false,
            allocation: Vec::new(),
            directives: Vec::new(),
            span: item.span,
        };
        let what = format!("requirement `{}` of {owner}", r.name.text);
        match &v.kind {
            Kind::Scalar { text, .. } => r.node = Some(Spanned::new(text.clone(), v.span)),
            Kind::Null => {}
            Kind::Map(_) => {
                for (rk, rv) in self.entries(
                    v,
                    &what,
                    &[
                        "node",
                        "capability",
                        "relationship",
                        "node_filter",
                        "occurrences",
                        "count",
                        "description",
                        "directives",
                        "optional",
                        "allocation",
                        // The Standard's §14.3 examples spell it so.
                        "allocations",
                        "metadata",
                    ],
                ) {
                    match rk.text.as_str() {
                        "node" if rv.as_seq().is_some() => self.indexed_node(&mut r, rv, &what),
                        "node" => r.node = self.string(rv, "node"),
                        "capability" => r.capability = self.string(rv, "capability"),
                        "node_filter" => r.node_filter = Some(rv.clone()),
                        "count" => match rv.as_str().and_then(|c| c.parse::<u64>().ok()) {
                            Some(c) => r.count = Some(c),
                            None => match input_call(rv) {
                                Some(i) => r.count_input = Some(i),
                                None => self.wrong_kind(
                                    rv,
                                    &what,
                                    "a non-negative integer or an input (`count`)",
                                ),
                            },
                        },
                        "optional" => r.optional = rv.as_str() == Some("true"),
                        "directives" => r.directives = self.scope_directives(rv, &what),
                        // csd07 §8.5.3 writes the property assignments
                        // themselves; a `properties:` map around them is
                        // read the same.
                        "allocation" | "allocations" => {
                            if rk.text == "allocations" {
                                self.diags.push(
                                    Diagnostic::warning(
                                        codes::W_YAML_LENIENT,
                                        "`allocations` is read as `allocation`, the keyname TOSCA 2.0 defines (§8.5.5; the examples of §14.3 write `allocations`)",
                                    )
                                    .at(self.source.location(rk.span)),
                                );
                            }
                            let inner = match rv.get("properties") {
                                Some(p) if rv.as_map().is_some_and(|m| m.len() == 1) => p,
                                _ => rv,
                            };
                            r.allocation = self.assignments(inner, "allocation")
                        }
                        "relationship" => r.relationship = self.relationship_assignment(rv),
                        "occurrences" => self.assignment_occurrences(rv, &what),
                        _ => {}
                    }
                }
            }
            // The short form of `node: [template, index]` (2.0 §14.3).
            Kind::Seq(_) => self.indexed_node(&mut r, v, &what),
        }
        Some(r)
    }

    /// A 1.3 requirement assignment's `occurrences` (§3.7.2.2): how many
    /// relationships it makes. It names one target, and the plans make one
    /// relationship: a lower bound above one cannot be met.
    fn assignment_occurrences(&mut self, v: &Node, what: &str) {
        let Some([low, _]) = v.as_seq() else {
            return self.wrong_kind(v, what, "a range `[min, max]` (`occurrences`)");
        };
        let Some(min) = low.as_str().and_then(|m| m.parse::<u64>().ok()) else {
            return self.wrong_kind(
                low,
                what,
                "a non-negative integer (the lower bound of `occurrences`)",
            );
        };
        if min > 1 {
            self.ignored(
                low.span,
                format!("{what} asks for at least {min} relationships (`occurrences`), but an assignment names one target: the plans make one relationship"),
                "assign the requirement once per target",
            );
        }
    }

    /// A requirement's or a capability's `directives` (2.0 §8.5.3,
    /// §8.3.3): `internal` and `external`, where the target is looked for
    /// (where relationships may come from) and in which order.
    pub(super) fn scope_directives(&mut self, v: &Node, what: &str) -> Vec<Spanned> {
        let mut out = self.string_list(v, "directives");
        out.retain(|d| {
            let known = matches!(d.text.as_str(), "internal" | "external");
            if !known {
                self.diags.push(
                    Diagnostic::error(
                        codes::YAML_WRONG_KIND,
                        format!("the directives of {what} may be `internal` and `external`, not `{}`", d.text),
                    )
                    .at(self.source.location(d.span))
                    .hint("`internal`: this topology's nodes; `external`: nodes from outside it, which the orchestrator supplies"),
                );
            }
            known
        });
        out
    }

    /// `[template, index]`: a representation of a template with a
    /// `count`, the index a number or `$node_index` (the source's own).
    fn indexed_node(&mut self, r: &mut RequirementAssignment, v: &Node, what: &str) {
        use crate::yaml::ast::NodeIndex as Index;
        let items = v.as_seq().unwrap_or_default();
        let index = |n: &Node| match n.as_str() {
            Some("$node_index") => Some(Index::Same),
            Some(t) => t.parse().ok().map(Index::Fixed),
            None => match n.as_map() {
                Some([(k, _)]) if k.as_str() == Some("$node_index") => Some(Index::Same),
                _ => None,
            },
        };
        match items {
            [name, i]
                if name.as_str().is_some()
                    && let Some(x) = index(i) =>
            {
                r.node = self.string(name, "node");
                r.node_index = Some((x, i.span));
            }
            _ => self.wrong_kind(
                v,
                what,
                "a node template name, `[template, index]` or a map",
            ),
        }
    }

    /// The `relationship` of a requirement assignment: a relationship
    /// template or type name, or an inline relationship.
    fn relationship_assignment(&mut self, rv: &Node) -> Option<RelationshipAssignment> {
        match &rv.kind {
            Kind::Scalar { text, .. } => Some(RelationshipAssignment::Name(Spanned::new(
                text.clone(),
                rv.span,
            ))),
            Kind::Map(_) => {
                let mut type_name = None;
                let mut properties = Vec::new();
                let mut interfaces = Vec::new();
                let mut attributes = Vec::new();
                for (ik, iv) in self.entries(
                    rv,
                    "relationship",
                    &[
                        "type",
                        "properties",
                        "attributes",
                        "interfaces",
                        "description",
                        "metadata",
                    ],
                ) {
                    match ik.text.as_str() {
                        "type" => type_name = self.string(iv, "type"),
                        "properties" => properties = self.assignments(iv, "properties"),
                        "attributes" => attributes = self.assignments(iv, "attributes"),
                        "interfaces" => interfaces = self.interfaces(iv),
                        _ => {}
                    }
                }
                Some(RelationshipAssignment::Inline {
                    type_name,
                    properties,
                    attributes,
                    interfaces,
                    span: rv.span,
                })
            }
            Kind::Null => None,
            Kind::Seq(_) => {
                self.wrong_kind(rv, "relationship", "a name or a map");
                None
            }
        }
    }
}

/// The input a `{ $get_input: name }` (or 1.x `get_input`) call reads.
fn input_call(v: &Node) -> Option<Spanned> {
    let arg = crate::yaml::functions::input_argument(v)?;
    Some(Spanned::new(arg.as_str()?, arg.span))
}

#[cfg(test)]
mod tests {
    use super::super::read_text;
    use crate::diagnostics::codes;
    use crate::yaml::ast::RelationshipAssignment;

    fn requirements(
        yaml: &str,
    ) -> (
        Vec<crate::yaml::ast::RequirementAssignment>,
        crate::diagnostics::Diagnostics,
    ) {
        let (file, d) = read_text(&format!(
            "topology_template:\n  node_templates:\n    a:\n      type: T\n      requirements:\n{yaml}"
        ));
        (
            file.topology.unwrap().node_templates.remove(0).requirements,
            d,
        )
    }

    #[test]
    fn reads_the_short_and_the_extended_notation() {
        let (r, d) = requirements(
            "        - host: vm\n        \
             - db: {node: mysql, capability: Endpoint, relationship: {type: ConnectsTo, properties: {user: x}}}\n        \
             - dep: {node_filter: {}, relationship: uses}\n",
        );
        assert!(d.is_empty(), "{d:?}");
        assert_eq!(r.len(), 3);
        assert_eq!(r[0].node.as_ref().unwrap().text, "vm");
        assert_eq!(r[1].capability.as_ref().unwrap().text, "Endpoint");
        let Some(RelationshipAssignment::Inline {
            type_name,
            properties,
            ..
        }) = &r[1].relationship
        else {
            panic!("an inline relationship")
        };
        assert_eq!(type_name.as_ref().unwrap().text, "ConnectsTo");
        assert_eq!(properties.len(), 1);
        assert!(r[2].node_filter.is_some());
        assert!(
            matches!(&r[2].relationship, Some(RelationshipAssignment::Name(n)) if n.text == "uses")
        );
    }

    #[test]
    fn a_malformed_item_is_rejected_with_a_fix() {
        let (r, d) = requirements("        - host:vm\n        - a: x\n          b: y\n");
        assert!(r.is_empty());
        let errors: Vec<_> = d
            .iter()
            .filter(|d| d.code == codes::YAML_WRONG_KIND)
            .collect();
        assert_eq!(errors.len(), 2);
        assert_eq!(
            errors[0].hint.as_deref(),
            Some("put a space after the colon: `- name: target`")
        );
        assert!(
            errors[1].message.contains("this one has 2: `a`, `b`"),
            "{}",
            errors[1].message
        );
    }

    #[test]
    fn allocations_is_read_as_allocation_with_a_warning() {
        let (r, d) = requirements("        - uses: {node: b, allocations: {slots: 1}}\n");
        assert_eq!(r[0].allocation.len(), 1);
        assert!(d.iter().any(|d| {
            d.code == codes::W_YAML_LENIENT
                && d.message
                    .starts_with("`allocations` is read as `allocation`")
        }));
    }
}
