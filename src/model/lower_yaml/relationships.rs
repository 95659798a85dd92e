//! Relationship templates (1.3 §3.8.4) made from the pending
//! relationships of requirements.
//!
//! In: [`PendingRel`]s, once every node (delegated targets included) is
//! numbered. Out: model [`RelationshipTemplate`]s with their ordering kind
//! (from the type's ancestry), properties and interfaces, which node each
//! requirement leads to, and a warning for unused relationship templates.

use std::collections::BTreeSet;
use std::sync::Arc;

use foldhash::HashMapExt;
use indexmap::IndexMap;

use super::entities::ByRequirement;
use super::interfaces::IfaceB;
use super::requirements::{PendingRel, TargetRef, Wiring};
use super::topology::Nodes;
use super::{Def, Lowerer, This, Unit};
use crate::diagnostics::{Diagnostic, codes};
use crate::model::{
    Interface, NodeId, NodeTemplate, Properties, RelKind, RelationshipTemplate, Value,
};
use crate::yaml::ast::{self, TypeKind};

impl<'a> Lowerer<'a> {
    /// Make the pending relationships, now that every node (delegated
    /// targets included, numbered from `base`) exists; also which node
    /// each requirement leads to, for the hops of entity calls.
    pub(super) fn relationships(
        &mut self,
        wiring: Wiring<'a>,
        nodes: &Nodes<'a>,
        base: usize,
    ) -> (Vec<RelationshipTemplate>, ByRequirement<'a>) {
        // Room for every pending one (a few are dropped): growing the
        // vectors copied every template made so far, again and again.
        let n = wiring.pending.len();
        let mut relationships: Vec<RelationshipTemplate> = Vec::with_capacity(n);
        self.rel_capability.reserve(n);
        self.rel_reached.reserve(n);
        let mut by_requirement = ByRequirement::new();
        let mut used = super::allocation::Used::new();
        for p in wiring.pending {
            let target = match p.target {
                TargetRef::Node(t) => t,
                TargetRef::Synthetic(s) => match nodes.ids.get(&wiring.synthetic[s].id) {
                    Some(&t) if t.0 as usize >= base => t,
                    _ => continue,
                },
            };
            by_requirement
                .entry((p.source, p.requirement))
                .or_insert(target);
            let key = (p.source, p.requirement);
            if let TargetRef::Node(_) = p.target
                && let Some((_, target_type)) = nodes.asts.get(target.0 as usize)
            {
                let source_type = nodes.asts.get(p.source.0 as usize).map(|(_, k)| &**k);
                self.check_fulfils(&p, (target, target_type), source_type, &nodes.nodes);
            }
            // The capability of the target the relationship reaches: what
            // it allocates on, and what a path through incoming
            // relationships reads.
            let reached = match (p.capability, nodes.asts.get(target.0 as usize)) {
                (Some((wanted, unit)), Some((_, target_type))) => {
                    self.matching(target_type, wanted, unit)
                }
                _ => None,
            };
            if !p.allocation.0.is_empty()
                && let Some(c) = &reached
            {
                let requirement = (p.requirement, p.source);
                // Between templates with several representations, each
                // representation allocates on its own target's.
                if self.representations(&nodes.nodes[p.source.0 as usize].id) > 1
                    || self.representations(&nodes.nodes[target.0 as usize].id) > 1
                {
                    self.defer_allocation(&p, target, c, &nodes.nodes);
                } else {
                    self.allocate(
                        requirement,
                        p.allocation,
                        (target, c),
                        &nodes.nodes,
                        &mut used,
                    );
                }
            }
            let capability = p.capability.map(|(c, u)| (c.text.clone(), u));
            if let Some(rel) = self.relationship(p, target, &nodes.nodes) {
                self.rel_capability.push(capability);
                self.rel_reached.push(reached.map(|c| c.name));
                self.rel_by_requirement
                    .entry(key)
                    .or_default()
                    .push(crate::model::RelId(relationships.len() as u32));
                relationships.push(rel);
            }
        }
        (relationships, by_requirement)
    }

    /// Relationship templates no requirement names relate nothing.
    pub(super) fn warn_unused_templates(
        &mut self,
        topo: &'a ast::Topology,
        used: &BTreeSet<String>,
        unit: Unit<'a>,
    ) {
        for r in &topo.relationship_templates {
            if !used.contains(&r.name.text) {
                self.diags.push(
                    Diagnostic::warning(
                        codes::W_IGNORED,
                        format!(
                            "relationship template `{}` is not used by any requirement, so it relates nothing",
                            r.name.text
                        ),
                    )
                    .at(Self::at(unit, r.name.span))
                    .hint("name it in a requirement assignment: `relationship: <template>`"),
                );
            }
        }
    }

    /// The relationship template of a pending relationship to `target`:
    /// its type (Root, with a warning, if none is named) and ordering
    /// kind, properties and interfaces.
    pub(super) fn relationship(
        &mut self,
        p: PendingRel<'a>,
        target: NodeId,
        nodes: &[NodeTemplate],
    ) -> Option<RelationshipTemplate> {
        let key = match &p.type_key {
            Some((k, _)) => k.clone(),
            None => {
                self.diags.push(
                    Diagnostic::warning(
                        codes::W_UNKNOWN_RELATIONSHIP_KIND,
                        format!(
                            "requirement `{}` of `{}` names no relationship type; it is ordered like DependsOn (`{}` first)",
                            p.requirement, nodes[p.source.0 as usize].id, nodes[target.0 as usize].id
                        ),
                    )
                    .at(p.origin.clone())
                    .hint("give the requirement a `relationship` (e.g. tosca.relationships.DependsOn or ConnectsTo), or choose the ordering with --unknown-relationships"),
                );
                self.placeholder_type(TypeKind::Relationship, "tosca.relationships.Root")?
            }
        };
        let type_id = self.type_id(TypeKind::Relationship, &key)?;
        let kind = self.relationship_kind(&p, &key);
        let defs = self.defs(TypeKind::Relationship, &key);
        let properties = self.relationship_properties(&defs, &p);
        let at = (p.allocation.1, p.origin.clone());
        self.check_properties(&defs, &p.properties, &p.id, at, true);
        let interfaces = self.relationship_interfaces(&defs, &p, &key);
        Some(RelationshipTemplate {
            id: p.id.clone(),
            name: p.id,
            type_id,
            kind,
            source: p.source,
            target,
            properties,
            interfaces,
            source_interfaces: Arc::new(Vec::new()),
            target_interfaces: Arc::new(Vec::new()),
            origin: Some(p.origin),
        })
    }

    /// The ordering kind of relationship type `key`; a named type that
    /// derives from no normative one is ordered like DependsOn, with a
    /// warning.
    fn relationship_kind(&mut self, p: &PendingRel<'a>, key: &str) -> RelKind {
        let chain = self.chain(TypeKind::Relationship, key).unwrap_or_default();
        let kind = classify_kind(&chain);
        if kind == RelKind::Other && p.type_key.is_some() {
            self.diags.push(
                Diagnostic::warning(
                    codes::W_UNKNOWN_RELATIONSHIP_KIND,
                    format!(
                        "relationship `{}` has type `{key}`, which derives from none of the normative tosca.relationships.HostedOn, DependsOn, ConnectsTo and AttachesTo; it is ordered like DependsOn (target first)",
                        p.id
                    ),
                )
                .at(p.origin.clone())
                .hint("derive the relationship type from a normative one, or choose the ordering with --unknown-relationships"),
            );
        }
        kind
    }

    /// Property values: the type's defaults, overlaid by the assignment's
    /// or template's, then the attributes: the type's defaults overlaid by
    /// the template's assignments.
    fn relationship_properties(&mut self, defs: &[Def<'a>], p: &PendingRel<'a>) -> Properties {
        let this = This::Relationship;
        let mut properties = Properties::new();
        for d in defs {
            for pd in &d.def.properties {
                let v = pd
                    .value
                    .as_ref()
                    .or(pd.default.as_ref())
                    .map(|v| self.value(v, d.unit, this));
                let name = self.names.get(&pd.name.text);
                match v {
                    Some(v) => {
                        properties.insert(name, v);
                    }
                    None => {
                        properties.entry(name).or_insert(Value::Null);
                    }
                }
            }
        }
        for (k, v, u) in &p.properties {
            let v = self.value(v, *u, this);
            properties.insert(self.names.get(&k.text), v);
        }
        // Attributes after the properties, as a node's.
        self.attributes(&mut properties, defs, p.attributes.iter().copied(), this);
        properties
    }

    /// The interfaces of the type, then of the requirement definition and
    /// the assignment. Those of the type alone are made once and shared,
    /// as for nodes.
    fn relationship_interfaces(
        &mut self,
        defs: &[Def<'a>],
        p: &PendingRel<'a>,
        key: &str,
    ) -> Arc<Vec<Interface>> {
        let of_type = p.interfaces.is_empty();
        if of_type
            && let Some((shared, _)) = self
                .type_interfaces
                .get(&(TypeKind::Relationship, key.to_string()))
        {
            return shared.clone();
        }
        let owner = format!("relationship `{}`", p.id);
        let this = This::Relationship;
        let mut list: Vec<IfaceB> = Vec::new();
        for d in defs {
            for i in &d.def.interfaces {
                self.merge_interface(&mut list, i, d.unit, this, &IndexMap::new(), &owner);
            }
        }
        for (i, u) in &p.interfaces {
            self.merge_interface(&mut list, i, *u, this, &IndexMap::new(), &owner);
        }
        let made = Arc::new(self.finish_interfaces(list));
        if of_type {
            self.type_interfaces.insert(
                (TypeKind::Relationship, key.to_string()),
                (made.clone(), Vec::new()),
            );
        }
        made
    }
}

/// The ordering kind of a relationship type from its ancestry.
fn classify_kind(chain: &[String]) -> RelKind {
    for t in chain {
        match t.as_str() {
            "tosca.relationships.HostedOn" => return RelKind::HostedOn,
            "tosca.relationships.DependsOn" => return RelKind::DependsOn,
            "tosca.relationships.ConnectsTo" => return RelKind::ConnectsTo,
            "tosca.relationships.AttachesTo" => return RelKind::AttachesTo,
            _ => {}
        }
    }
    RelKind::Other
}

#[cfg(test)]
mod tests {
    use super::super::lower_text;
    use super::*;
    use crate::diagnostics::codes;

    #[test]
    fn classifies_by_ancestry() {
        let chain = |v: &[&str]| v.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        assert_eq!(
            classify_kind(&chain(&[
                "my.Rel",
                "tosca.relationships.RoutesTo",
                "tosca.relationships.ConnectsTo"
            ])),
            RelKind::ConnectsTo
        );
        assert_eq!(
            classify_kind(&chain(&[
                "tosca.relationships.network.BindsTo",
                "tosca.relationships.DependsOn"
            ])),
            RelKind::DependsOn
        );
        assert_eq!(
            classify_kind(&chain(&["tosca.relationships.Root"])),
            RelKind::Other
        );
    }

    #[test]
    fn a_template_gives_its_attributes_over_the_type_defaults() {
        let (t, d) = lower_text(
            "tosca_definitions_version: tosca_simple_yaml_1_3\n\
             relationship_types:\n  Link:\n    derived_from: tosca.relationships.DependsOn\n    \
             attributes: {weight: {type: integer, default: 1}, cost: {type: integer, default: 2}}\n\
             topology_template:\n  node_templates:\n    \
             db: {type: tosca.nodes.Root}\n    \
             app:\n      type: tosca.nodes.Root\n      \
             requirements: [{dependency: {node: db, relationship: link}}]\n  \
             relationship_templates:\n    \
             link: {type: Link, attributes: {weight: 7}}\n",
        );
        assert!(!d.has_errors(), "{d:?}");
        let t = t.unwrap();
        let r = &t.relationships[0];
        assert_eq!(r.properties["weight"].as_str(), Some("7"));
        assert_eq!(r.properties["cost"].as_str(), Some("2"));
    }

    #[test]
    fn a_template_gives_its_name_and_properties_and_an_unused_one_is_reported() {
        let (t, d) = lower_text(
            "tosca_definitions_version: tosca_simple_yaml_1_3\n\
             topology_template:\n  node_templates:\n    \
             db: {type: tosca.nodes.Root}\n    \
             app:\n      type: tosca.nodes.Root\n      \
             requirements: [{dependency: {node: db, relationship: link}}]\n  \
             relationship_templates:\n    \
             link:\n      type: tosca.relationships.ConnectsTo\n      properties: {credential: secret}\n    \
             spare: {type: tosca.relationships.DependsOn}\n",
        );
        let t = t.unwrap();
        let r = &t.relationships[0];
        assert_eq!(r.id, "link");
        assert_eq!(r.kind, RelKind::ConnectsTo);
        assert_eq!(
            r.properties.get("credential"),
            Some(&Value::Scalar("secret".into()))
        );
        assert!(d.iter().any(|d| {
            d.code == codes::W_IGNORED
                && d.message
                    .contains("relationship template `spare` is not used")
        }));
    }
}
