//! Capabilities of node templates (1.3 §3.8.3): their names and static
//! property values, which entity calls read through a capability hop
//! (`get_property: [SELF, endpoint, port]`).
//!
//! In: a node template and the definitions along its type's ancestry.
//! Out: `capability_names` and `capability_values` of the [`Lowerer`],
//! read by `entities.rs`; a capability the type does not define is kept,
//! with a warning.

use std::rc::Rc;
use std::sync::Arc;

use indexmap::IndexMap;

use super::requirements::PendingRel;
use super::{Def, Lowerer, OfferedCapability, This, Unit};
use crate::diagnostics::{Diagnostic, codes};
use crate::model::{NodeId, NodeTemplate, Value};
use crate::yaml::ast::{self, TypeKind};

/// What a node type gives each of its templates' capabilities: their
/// names, in definition order, and the key of the type of each that names
/// one (`None` where that type does not resolve). The same for every
/// template of the type: made once per type, it saves a dozen strings and
/// type lookups per template.
pub(super) struct TypeCapabilities {
    names: Arc<[String]>,
    typed: IndexMap<String, Option<String>>,
}

impl<'a> Lowerer<'a> {
    /// The capabilities node type `key` (defined by `defs`) gives.
    fn type_capabilities(&mut self, key: &str, defs: &[Def<'a>]) -> Rc<TypeCapabilities> {
        if let Some(known) = self.node_capabilities.get(key) {
            return known.clone();
        }
        let mut names: Vec<String> = Vec::new();
        let mut types: IndexMap<String, (String, Unit<'a>)> = IndexMap::new();
        for d in defs {
            for (cname, ctype) in &d.def.capabilities {
                if !names.contains(&cname.text) {
                    names.push(cname.text.clone());
                }
                if let Some(t) = ctype {
                    types.insert(cname.text.clone(), (t.text.clone(), d.unit));
                }
            }
        }
        let typed = types
            .into_iter()
            .map(|(cname, (ctype, cunit))| {
                let key = self.resolve(TypeKind::Capability, &ctype, cunit);
                (cname, key)
            })
            .collect();
        let made = Rc::new(TypeCapabilities {
            names: self.shared_names(names),
            typed,
        });
        self.node_capabilities.insert(key.to_string(), made.clone());
        made
    }

    /// `names` as the list shared by every node that has them.
    fn shared_names(&mut self, names: Vec<String>) -> Arc<[String]> {
        match self.capability_name_lists.get(names.as_slice()) {
            Some(known) => known.clone(),
            None => {
                let list: Arc<[String]> = Arc::from(names);
                self.capability_name_lists.insert(list.clone());
                list
            }
        }
    }

    /// Record the capabilities of node template `n` of type `key`,
    /// numbered `id`.
    pub(super) fn capabilities(
        &mut self,
        key: &str,
        defs: &[Def<'a>],
        n: &'a ast::NodeTemplate,
        id: NodeId,
        unit: Unit<'a>,
        this: This,
    ) {
        let name = &n.name.text;
        let of_type = self.type_capabilities(key, defs);
        for (cname, ck) in &of_type.typed {
            let mut values: IndexMap<String, Value> = IndexMap::new();
            if let Some(ck) = ck {
                for d in self.defs(TypeKind::Capability, ck).iter() {
                    for p in &d.def.properties {
                        if let Some(v) = p.default.as_ref().or(p.value.as_ref()) {
                            let v = self.value(v, d.unit, this);
                            values.insert(p.name.text.clone(), v);
                        }
                    }
                }
            }
            // Most capabilities have no values: an entry for each would be
            // a map per capability of every template, freed after lowering
            // among the topology's allocations (memory not given back).
            if !values.is_empty() {
                self.capability_values.insert((id, cname.clone()), values);
            }
        }
        // The template's own names, where it assigns a capability its type
        // does not define.
        let mut extra: Vec<String> = Vec::new();
        for c in &n.capabilities {
            // Relationships from outside the topology only: none of its
            // nodes' may reach it (`requirement_directives.rs`).
            if !c.directives.is_empty() && c.directives.iter().all(|d| d.text == "external") {
                self.external_capabilities.insert((id, c.name.text.clone()));
            }
            if !of_type.names.contains(&c.name.text) && !extra.contains(&c.name.text) {
                self.diags.push(
                    Diagnostic::warning(
                        codes::W_YAML_LENIENT,
                        format!("node template `{name}` assigns capability `{}`, which its type does not define", c.name.text),
                    )
                    .at(Self::at(unit, c.name.span)),
                );
                extra.push(c.name.text.clone());
            }
            // A capability's values are checked against its type; its
            // required properties are not asked for: a node offers its
            // capabilities whether its template writes them or not.
            if let Some(Some(ck)) = of_type.typed.get(&c.name.text) {
                let cdefs = self.defs(TypeKind::Capability, ck);
                let assigned: Vec<_> = c.properties.iter().map(|(k, v)| (k, v, unit)).collect();
                let owner = format!("{name}.{}", c.name.text);
                let at = (unit, Self::at(unit, c.name.span));
                self.check_properties(&cdefs, &assigned, &owner, at, false);
            }
            let values: Vec<(String, Value)> = c
                .properties
                .iter()
                .chain(&c.attributes)
                .map(|(k, v)| (k.text.clone(), self.value(v, unit, this)))
                .collect();
            let slot = self
                .capability_values
                .entry((id, c.name.text.clone()))
                .or_default();
            slot.extend(values);
        }
        let names = if extra.is_empty() {
            of_type.names.clone()
        } else {
            let mut names = of_type.names.to_vec();
            names.extend(extra);
            self.shared_names(names)
        };
        self.capability_names.insert(id, names);
    }
}

impl<'a> Lowerer<'a> {
    /// E0402: relationship `p` reaches capability `cap` of `target`,
    /// which takes relationships from outside the topology only.
    fn external_only(
        &mut self,
        p: &PendingRel<'a>,
        target: NodeId,
        cap: &str,
        nodes: &[NodeTemplate],
    ) {
        self.diags.push(
            Diagnostic::error(
                codes::DANGLING_REFERENCE,
                format!(
                    "requirement `{}` of `{}` targets capability `{cap}` of `{}`, which takes relationships from nodes outside the topology only (`directives: [external]`)",
                    p.requirement,
                    nodes[p.source.0 as usize].id,
                    nodes[target.0 as usize].id
                ),
            )
            .at(p.origin.clone())
            .hint("target another node, or add `internal` to the capability's directives"),
        );
    }

    /// Whether node template `target` offers the capability a pending
    /// relationship's requirement asks for: one of that capability type
    /// (or a type derived from it), or one of that name where it names no
    /// type. An error where it does not (1.3 §3.7.3, 2.0 §8.5.1; the
    /// example of 2.0 §6.7.3 is invalid for this reason).
    pub(super) fn check_fulfils(
        &mut self,
        p: &PendingRel<'a>,
        (target, target_type): (NodeId, &str),
        source_type: Option<&str>,
        nodes: &[NodeTemplate],
    ) {
        let Some((wanted, unit)) = p.capability else {
            return;
        };
        if let Some(c) = self.matching(target_type, wanted, unit) {
            if self
                .external_capabilities
                .contains(&(target, c.name.clone()))
            {
                self.external_only(p, target, &c.name, nodes);
                return;
            }
            let rel_type = p.type_key.as_ref().map(|(k, _)| k.as_str());
            if let Some(why) = source_type.and_then(|s| self.refuses(&c, s, rel_type)) {
                let v2 = unit.file.version.is_v2();
                let message = format!(
                    "requirement `{}` of `{}` targets capability `{}` of `{}`, which {why}",
                    p.requirement,
                    nodes[p.source.0 as usize].id,
                    c.name,
                    nodes[target.0 as usize].id
                );
                let d = if v2 {
                    Diagnostic::error(codes::DANGLING_REFERENCE, message)
                } else {
                    Diagnostic::warning(codes::W_DANGLING_REQUIREMENT, message)
                };
                self.diags.push(
                    d.at(p.origin.clone())
                        .hint("target a node whose capability accepts it, or widen the capability's valid_source_node_types / valid_relationship_types"),
                );
            }
            return;
        }
        let offered = self.offered(target_type);
        let target_node = &nodes[target.0 as usize];
        let has = if offered.is_empty() {
            "offers no capability".to_string()
        } else {
            let list: Vec<String> = offered
                .iter()
                .map(|c| match &c.type_key {
                    Some(t) => format!("`{}` ({t})", c.name),
                    None => format!("`{}`", c.name),
                })
                .collect();
            format!("offers {}", list.join(", "))
        };
        // TOSCA 2.0 says such a template is invalid; in 1.x tosca-parser
        // accepts it, and real templates rely on that (a Docker container
        // hosted on a Compute node): a warning there.
        let v2 = unit.file.version.is_v2();
        let make = if v2 {
            |m: String| Diagnostic::error(codes::DANGLING_REFERENCE, m)
        } else {
            |m: String| Diagnostic::warning(codes::W_DANGLING_REQUIREMENT, m)
        };
        self.diags.push(
            make(
                format!(
                    "requirement `{}` of `{}` asks for a capability `{}`, which its target `{}` does not offer",
                    p.requirement,
                    nodes[p.source.0 as usize].id,
                    wanted.text,
                    target_node.id
                ),
            )
            .at(p.origin.clone())
            .note(format!("`{}` {has}", target_node.id))
            .hint("target a node whose type has a capability of that type (or one derived from it); types of two versions of a profile are different types"),
        );
    }
}

impl<'a> Lowerer<'a> {
    /// The capability of node type `target_type` that `wanted` asks for:
    /// one of that capability type (or a type derived from it), or one of
    /// that name where it names no type.
    pub(super) fn matching(
        &mut self,
        target_type: &str,
        wanted: &ast::Spanned,
        unit: Unit<'a>,
    ) -> Option<OfferedCapability<'a>> {
        let offered = self.offered(target_type);
        match self.resolve(TypeKind::Capability, &wanted.text, unit) {
            Some(key) => {
                let wanted_def = self.lineage(&key).first().copied();
                offered
                    .iter()
                    .find(|c| {
                        wanted_def.is_some_and(|w| c.lineage.iter().any(|d| std::ptr::eq(*d, w)))
                    })
                    .cloned()
            }
            None => offered.iter().find(|c| c.name == wanted.text).cloned(),
        }
    }

    /// Why capability `c` refuses a relationship from a node of type
    /// `source_type` (of relationship type `rel_type`): its
    /// `valid_source_node_types` or `valid_relationship_types` (2.0 §8.1,
    /// 1.3 `valid_source_types`) leave them out; `None` when it accepts.
    pub(super) fn refuses(
        &mut self,
        c: &OfferedCapability<'a>,
        source_type: &str,
        rel_type: Option<&str>,
    ) -> Option<String> {
        let derives = |l: &mut Self, kind, key: &str, from: &[String]| {
            let chain = l.chain(kind, key).unwrap_or_default();
            from.iter().any(|f| chain.contains(f))
        };
        if !c.sources.is_empty() && !derives(self, TypeKind::Node, source_type, &c.sources) {
            return Some(format!(
                "accepts relationships from nodes of {} only, not of `{source_type}`",
                listed(&c.sources)
            ));
        }
        match rel_type {
            Some(r)
                if !c.relationships.is_empty()
                    && !derives(self, TypeKind::Relationship, r, &c.relationships) =>
            {
                Some(format!(
                    "accepts relationships of {} only, not `{r}`",
                    listed(&c.relationships)
                ))
            }
            _ => None,
        }
    }

    /// The capabilities node type `key` defines along its ancestry, with
    /// their types: found once per node type (a large topology has many
    /// templates of few types).
    pub(super) fn offered(&mut self, key: &str) -> Rc<[OfferedCapability<'a>]> {
        if let Some(known) = self.capability_types.get(key) {
            return known.clone();
        }
        let mut typed: IndexMap<String, Option<(String, Unit<'a>)>> = IndexMap::new();
        for d in self.defs(TypeKind::Node, key).iter() {
            for (cname, ctype) in &d.def.capabilities {
                let slot = typed.entry(cname.text.clone()).or_default();
                if let Some(t) = ctype {
                    *slot = Some((t.text.clone(), d.unit));
                }
            }
        }
        let mut offered = Vec::with_capacity(typed.len());
        for (name, ty) in typed {
            let type_key = ty.and_then(|(t, u)| self.resolve(TypeKind::Capability, &t, u));
            let lineage = match &type_key {
                Some(k) => self.lineage(k),
                None => Vec::new(),
            };
            let (sources, relationships) = self.limits(key, &name, type_key.as_deref());
            offered.push(OfferedCapability {
                name,
                type_key,
                lineage,
                sources,
                relationships,
            });
        }
        let offered: Rc<[OfferedCapability<'a>]> = Rc::from(offered);
        self.capability_types
            .insert(key.to_string(), offered.clone());
        offered
    }

    /// The valid source node types and relationship types of capability
    /// `name` of node type `node_key` (resolved keys): the nearest node
    /// type definition that lists them, else the nearest capability type.
    fn limits(
        &mut self,
        node_key: &str,
        name: &str,
        type_key: Option<&str>,
    ) -> (Vec<String>, Vec<String>) {
        let mut lists: Vec<(Vec<&'a ast::Spanned>, Vec<&'a ast::Spanned>, Unit<'a>)> = Vec::new();
        for d in self.defs(TypeKind::Node, node_key).iter().rev() {
            if let Some(l) = d.def.capability_limits.iter().find(|l| l.name == name) {
                lists.push((
                    l.sources.iter().collect(),
                    l.relationships.iter().collect(),
                    d.unit,
                ));
            }
        }
        if let Some(k) = type_key {
            for d in self.defs(TypeKind::Capability, k).iter().rev() {
                lists.push((
                    d.def.valid_sources.iter().collect(),
                    d.def.valid_relationships.iter().collect(),
                    d.unit,
                ));
            }
        }
        let sources = lists
            .iter()
            .find(|l| !l.0.is_empty())
            .map(|l| (l.0.clone(), l.2));
        let relationships = lists
            .iter()
            .find(|l| !l.1.is_empty())
            .map(|l| (l.1.clone(), l.2));
        let sources = self.resolve_all(TypeKind::Node, sources);
        let relationships = self.resolve_all(TypeKind::Relationship, relationships);
        (sources, relationships)
    }

    /// The keys of type names written in `unit` (a name that resolves to
    /// nothing is kept as written: it matches no type).
    fn resolve_all(
        &mut self,
        kind: TypeKind,
        names: Option<(Vec<&'a ast::Spanned>, Unit<'a>)>,
    ) -> Vec<String> {
        let Some((names, unit)) = names else {
            return Vec::new();
        };
        names
            .iter()
            .map(|t| {
                self.resolve(kind, &t.text, unit)
                    .unwrap_or_else(|| t.text.clone())
            })
            .collect()
    }

    /// The definitions of capability type `key` and its ancestors, nearest
    /// first.
    pub(super) fn lineage(&mut self, key: &str) -> Vec<&'a ast::TypeDef> {
        self.defs(TypeKind::Capability, key)
            .iter()
            .rev()
            .map(|d| d.def)
            .collect()
    }
}

/// Type names for a message: `a`, `b`.
fn listed(names: &[String]) -> String {
    let quoted: Vec<String> = names.iter().map(|n| format!("`{n}`")).collect();
    quoted.join(", ")
}

#[cfg(test)]
mod tests {
    use super::super::lower_text;
    use crate::diagnostics::codes;
    use crate::model::Value;

    #[test]
    fn capability_properties_are_read_through_a_hop() {
        let (t, d) = lower_text(
            "tosca_definitions_version: tosca_simple_yaml_1_3\n\
             topology_template:\n  node_templates:\n    \
             web:\n      type: tosca.nodes.WebServer\n      \
             capabilities:\n        data_endpoint: {properties: {port: 8080}}\n        \
             extra: {properties: {x: 1}}\n      \
             properties:\n        p: {get_property: [SELF, data_endpoint, port]}\n      \
             requirements: [{host: vm}]\n    \
             vm: {type: tosca.nodes.Compute}\n",
        );
        let t = t.unwrap();
        let web = t.node(t.node_by_id("web").unwrap());
        assert_eq!(web.properties.get("p"), Some(&Value::Scalar("8080".into())));
        assert!(
            d.iter().any(|d| d.code == codes::W_YAML_LENIENT
                && d.message.contains("assigns capability `extra`"))
        );
    }
}
