//! `substitution_mappings` (1.3 §3.8.13, 2.0 §15): the node type the
//! topology implements, and how its requirements, capabilities and
//! operations map onto the topology's templates and workflows. A 2.0
//! requirement mapped to a list of targets (§15.5.2) is one mapping per
//! target, under the same name.
//!
//! In: the YAML node of that section. Out: its AST; keys TOSCA does not
//! define there are warnings (W0304), values of the wrong kind errors
//! (E0302).

use super::Reader;
use crate::diagnostics::Span;
use crate::yaml::ast::{MappedProperty, MappingCount, Spanned, Substitution};
use crate::yaml::node::{Kind, Node};

impl<'a> Reader<'a> {
    pub(super) fn substitution(&mut self, node: &Node) -> Substitution {
        let mut s = Substitution {
            node_type: None,
            requirements: Vec::new(),
            requirement_counts: Vec::new(),
            capabilities: Vec::new(),
            properties: Vec::new(),
            keyed_properties: Vec::new(),
            attributes: Vec::new(),
            keyed_attributes: Vec::new(),
            filter: None,
            interfaces: Vec::new(),
            span: node.span,
        };
        for (k, v) in self.entries(
            node,
            "substitution_mappings",
            &[
                "node_type",
                "substitution_filter",
                "node",
                "properties",
                "attributes",
                "capabilities",
                "requirements",
                "interfaces",
            ],
        ) {
            match k.text.as_str() {
                "node_type" => s.node_type = self.string(v, "node_type"),
                "requirements" | "capabilities" => {
                    let mut list = Vec::new();
                    let entries = if k.text == "requirements" {
                        self.requirement_mappings(v)
                    } else {
                        let plain = self.entries_or_list(v, &k.text);
                        plain
                            .into_iter()
                            .map(|(n, v)| (n, v, MappingCount::Uncounted))
                            .collect()
                    };
                    for (name, mv, count) in entries {
                        if k.text == "requirements" {
                            let targets = list_of_lists(mv).map_or(1, <[Node]>::len);
                            s.requirement_counts.push((name.clone(), count, targets));
                        }
                        // 2.0 §15.5.2: one requirement mapped to a list of
                        // targets is that many mappings of the same name.
                        if let Some(targets) =
                            list_of_lists(mv).filter(|_| k.text == "requirements")
                        {
                            for t in targets {
                                list.push((name.clone(), self.string_list(t, &k.text)));
                            }
                            continue;
                        }
                        let target = match &mv.kind {
                            Kind::Seq(_) => self.string_list(mv, &k.text),
                            Kind::Map(_) => Vec::new(),
                            _ => self.string_list(mv, &k.text),
                        };
                        list.push((name, target));
                    }
                    if k.text == "requirements" {
                        s.requirements = list;
                    } else {
                        s.capabilities = list;
                    }
                }
                "properties" => {
                    (s.properties, s.keyed_properties) = self.property_mappings(v, "properties")
                }
                "attributes" => {
                    (s.attributes, s.keyed_attributes) = self.property_mappings(v, "attributes")
                }
                "substitution_filter" => s.filter = Some(v.clone()),
                // 1.3: `<interface>: {<operation>: <workflow>}` (older texts:
                // `<operation>: <workflow>`); 2.0 drafts map lists. Only the
                // workflow names are kept.
                "interfaces" => {
                    for (name, wv) in self.entries(v, "interfaces", &[]) {
                        match &wv.kind {
                            Kind::Scalar { text, .. } => s
                                .interfaces
                                .push((name, Spanned::new(text.clone(), wv.span))),
                            Kind::Map(_) => {
                                for (op, w) in self.entries(wv, "interfaces", &[]) {
                                    if let Some(w) = w.as_str() {
                                        let key = Spanned::new(
                                            format!("{}.{}", name.text, op.text),
                                            op.span,
                                        );
                                        s.interfaces.push((key, Spanned::new(w, w_span(wv, &op))));
                                    }
                                }
                            }
                            _ => {}
                        }
                    }
                }
                _ => {}
            }
        }
        s
    }
}

/// Property or attribute mappings: by name, and keyed.
type PropertyMappings = (Vec<(Spanned, Node)>, Vec<(MappedProperty, Node)>);

impl Reader<'_> {
    /// Property or attribute mappings: by name, or keyed by a capability
    /// or a relationship (a list key, 2.0 §15.2); another key is E0302.
    fn property_mappings(&mut self, node: &Node, what: &str) -> PropertyMappings {
        let (mut named, mut keyed) = (Vec::new(), Vec::new());
        let Some(entries) = node.as_map() else {
            if !matches!(node.kind, Kind::Null) {
                self.wrong_kind(node, what, "a map");
            }
            return (named, keyed);
        };
        for (k, v) in entries {
            if let Some(name) = k.as_str() {
                named.push((Spanned::new(name, k.span), v.clone()));
                continue;
            }
            match mapped_property(k) {
                Some(m) => keyed.push((m, v.clone())),
                None => self.wrong_kind(
                    k,
                    &format!("a key in {what}"),
                    "a name, [CAPABILITY, <capability>, <name>] or [RELATIONSHIP, <requirement>, <index>, <name>]",
                ),
            }
        }
        (named, keyed)
    }
}

/// A `[CAPABILITY, …]` or `[RELATIONSHIP, …]` key.
fn mapped_property(key: &Node) -> Option<MappedProperty> {
    let Kind::Seq(items) = &key.kind else {
        return None;
    };
    let s = |n: &Node| n.as_str().map(|t| Spanned::new(t, n.span));
    match items.as_slice() {
        [kw, c, p] if kw.as_str() == Some("CAPABILITY") => Some(MappedProperty::Capability {
            capability: s(c)?,
            property: s(p)?,
        }),
        [kw, r, p] if kw.as_str() == Some("RELATIONSHIP") => Some(MappedProperty::Relationship {
            requirement: s(r)?,
            index: None,
            property: s(p)?,
        }),
        [kw, r, i, p] if kw.as_str() == Some("RELATIONSHIP") => {
            Some(MappedProperty::Relationship {
                requirement: s(r)?,
                index: Some(s(i)?),
                property: s(p)?,
            })
        }
        _ => None,
    }
}

/// The items of a non-empty list whose items are all lists.
fn list_of_lists(node: &Node) -> Option<&[Node]> {
    match &node.kind {
        Kind::Seq(items)
            if !items.is_empty() && items.iter().all(|i| matches!(i.kind, Kind::Seq(_))) =>
        {
            Some(items)
        }
        _ => None,
    }
}

/// The span of the value of `key` in the map `node`.
fn w_span(node: &Node, key: &Spanned) -> Span {
    node.as_map()
        .and_then(|m| m.iter().find(|(k, _)| k.span == key.span))
        .map(|(_, v)| v.span)
        .unwrap_or(key.span)
}

#[cfg(test)]
mod tests {
    use super::super::read_text;

    #[test]
    fn a_requirement_mapped_to_a_list_of_targets_is_a_mapping_per_target() {
        let (file, d) = read_text(
            "service_template:\n  \
             substitution_mappings:\n    \
             node_type: Client\n    \
             requirements:\n    \
             - host:\n      - [ software1, host ]\n      - [ software2, host ]\n    \
             - service: [ software1, service ]\n",
        );
        assert!(!d.has_errors(), "{d:?}");
        let s = file.topology.unwrap().substitution.unwrap();
        let mapped: Vec<(String, Vec<String>)> = s
            .requirements
            .iter()
            .map(|(n, t)| (n.text.clone(), t.iter().map(|s| s.text.clone()).collect()))
            .collect();
        let pair = |n: &str, a: &str, b: &str| (n.to_string(), vec![a.to_string(), b.to_string()]);
        assert_eq!(
            mapped,
            [
                pair("host", "software1", "host"),
                pair("host", "software2", "host"),
                pair("service", "software1", "service"),
            ]
        );
    }

    #[test]
    fn a_counted_mapping_maps_its_name_and_a_bad_count_is_an_error() {
        let text = |count: &str| {
            format!(
                "service_template:\n  substitution_mappings:\n    node_type: Client\n    \
                 requirements:\n    - [ service, {count} ]: [ software, service ]\n"
            )
        };
        for count in ["2", "UNBOUNDED"] {
            let (file, d) = read_text(&text(count));
            assert!(!d.has_errors(), "{d:?}");
            let s = file.topology.unwrap().substitution.unwrap();
            assert_eq!(s.requirements[0].0.text, "service");
            assert_eq!(s.requirements[0].1[1].text, "service");
        }
        let (file, d) = read_text(&text("two"));
        assert!(
            file.topology
                .unwrap()
                .substitution
                .unwrap()
                .requirements
                .is_empty()
        );
        let errors: Vec<_> = d.iter().map(|d| (d.code, d.message.clone())).collect();
        assert_eq!(
            errors,
            [(
                crate::diagnostics::codes::YAML_WRONG_KIND,
                "a requirement mapping with a count must be keyed `[ <name>, <count> ]`, but the key is `[ service, two ]`".to_string()
            )]
        );
    }
}
