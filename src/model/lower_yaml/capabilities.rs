//! Capabilities of node templates (1.3 §3.8.3): their names and static
//! property values, which entity calls read through a capability hop
//! (`get_property: [SELF, endpoint, port]`).
//!
//! In: a node template and the definitions along its type's ancestry.
//! Out: `capability_names` and `capability_values` of the [`Lowerer`],
//! read by `entities.rs`; a capability the type does not define is kept,
//! with a warning.

use std::sync::Arc;

use indexmap::IndexMap;

use super::requirements::PendingRel;
use super::{Def, Lowerer, OfferedCapability, This, Unit};
use crate::diagnostics::{Diagnostic, codes};
use crate::model::{NodeId, NodeTemplate, Value};
use crate::yaml::ast::{self, TypeKind};

impl<'a> Lowerer<'a> {
    /// Record the capabilities of node template `n`, numbered `id`.
    pub(super) fn capabilities(
        &mut self,
        defs: &[Def<'a>],
        n: &'a ast::NodeTemplate,
        id: NodeId,
        unit: Unit<'a>,
        this: This,
    ) {
        let name = &n.name.text;
        let mut cap_names: Vec<String> = Vec::new();
        let mut cap_types: IndexMap<String, (String, Unit<'a>)> = IndexMap::new();
        for d in defs {
            for (cname, ctype) in &d.def.capabilities {
                if !cap_names.contains(&cname.text) {
                    cap_names.push(cname.text.clone());
                }
                if let Some(t) = ctype {
                    cap_types.insert(cname.text.clone(), (t.text.clone(), d.unit));
                }
            }
        }
        for (cname, (ctype, cunit)) in &cap_types {
            let mut values: IndexMap<String, Value> = IndexMap::new();
            if let Some(ck) = self.resolve(TypeKind::Capability, ctype, *cunit) {
                for d in self.defs(TypeKind::Capability, &ck) {
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
        for c in &n.capabilities {
            if !cap_names.contains(&c.name.text) {
                self.diags.push(
                    Diagnostic::warning(
                        codes::W_YAML_LENIENT,
                        format!("node template `{name}` assigns capability `{}`, which its type does not define", c.name.text),
                    )
                    .at(Self::at(unit, c.name.span)),
                );
                cap_names.push(c.name.text.clone());
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
        let shared = match self.capability_name_lists.get(cap_names.as_slice()) {
            Some(known) => known.clone(),
            None => {
                let list: Arc<[String]> = Arc::from(cap_names);
                self.capability_name_lists.insert(list.clone());
                list
            }
        };
        self.capability_names.insert(id, shared);
    }
}

impl<'a> Lowerer<'a> {
    /// Whether node template `target` offers the capability a pending
    /// relationship's requirement asks for: one of that capability type
    /// (or a type derived from it), or one of that name where it names no
    /// type. An error where it does not (1.3 §3.7.3, 2.0 §8.5.1; the
    /// example of 2.0 §6.7.3 is invalid for this reason).
    pub(super) fn check_fulfils(
        &mut self,
        p: &PendingRel<'a>,
        target: NodeId,
        target_type: &str,
        nodes: &[NodeTemplate],
    ) {
        let Some((wanted, unit)) = p.capability else {
            return;
        };
        if self.offers(target_type, wanted, unit) {
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
    /// Whether node type `target_type` offers capability `wanted`: one of
    /// that capability type (or a type derived from it), or one of that
    /// name where it names no type.
    pub(super) fn offers(
        &mut self,
        target_type: &str,
        wanted: &ast::Spanned,
        unit: Unit<'a>,
    ) -> bool {
        let offered = self.offered(target_type);
        match self.resolve(TypeKind::Capability, &wanted.text, unit) {
            Some(key) => {
                let wanted_def = self.lineage(&key).first().copied();
                offered.iter().any(|c| {
                    wanted_def.is_some_and(|w| c.lineage.iter().any(|d| std::ptr::eq(*d, w)))
                })
            }
            None => offered.iter().any(|c| c.name == wanted.text),
        }
    }

    /// The capabilities node type `key` defines along its ancestry, with
    /// their types: found once per node type (a large topology has many
    /// templates of few types).
    pub(super) fn offered(&mut self, key: &str) -> Vec<OfferedCapability<'a>> {
        if let Some(known) = self.capability_types.get(key) {
            return known.clone();
        }
        let mut typed: IndexMap<String, Option<(String, Unit<'a>)>> = IndexMap::new();
        for d in self.defs(TypeKind::Node, key) {
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
            offered.push(OfferedCapability {
                name,
                type_key,
                lineage,
            });
        }
        self.capability_types
            .insert(key.to_string(), offered.clone());
        offered
    }

    /// The definitions of capability type `key` and its ancestors, nearest
    /// first.
    pub(super) fn lineage(&mut self, key: &str) -> Vec<&'a ast::TypeDef> {
        let mut defs: Vec<&'a ast::TypeDef> = self
            .defs(TypeKind::Capability, key)
            .into_iter()
            .map(|d| d.def)
            .collect();
        defs.reverse();
        defs
    }
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
