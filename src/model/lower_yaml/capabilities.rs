//! Capabilities of node templates (1.3 §3.8.3): their names and static
//! property values, which entity calls read through a capability hop
//! (`get_property: [SELF, endpoint, port]`).
//!
//! In: a node template and the definitions along its type's ancestry.
//! Out: `capability_names` and `capability_values` of the [`Lowerer`],
//! read by `entities.rs`; a capability the type does not define is kept,
//! with a warning.

use indexmap::IndexMap;

use super::{Def, Lowerer, This, Unit};
use crate::diagnostics::{Diagnostic, codes};
use crate::model::{NodeId, Value};
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
            self.capability_values.insert((id, cname.clone()), values);
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
        self.capability_names.insert(id, cap_names);
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
