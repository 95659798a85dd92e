//! Property and attribute values of node templates (1.3 §3.6.10–3.6.12).
//!
//! In: the definitions along a template's type ancestry and its
//! assignments. Out: the template's instance properties: the type's
//! defaults overlaid by assignments, then the attributes that are not
//! properties (plans keep both as instance data, 1.3 §2.19).

use foldhash::{HashSet, HashSetExt};

use super::{Def, Lowerer, This, Unit};
use crate::diagnostics::{Diagnostic, codes};
use crate::model::Value;
use crate::yaml::ast;
use crate::yaml::node::Node;

impl<'a> Lowerer<'a> {
    /// Property values (type defaults overlaid by assignments), then the
    /// attributes that are not properties.
    pub(super) fn properties(
        &mut self,
        defs: &[Def<'a>],
        assigned: &'a [(ast::Spanned, Node)],
        attributes: &'a [(ast::Spanned, Node)],
        unit: Unit<'a>,
        this: This,
        owner: &str,
    ) -> crate::model::Properties {
        let mut out = crate::model::Properties::new();
        let mut declared: HashSet<String> = HashSet::new();
        for d in defs {
            for p in &d.def.properties {
                declared.insert(p.name.text.clone());
                let v = p
                    .value
                    .as_ref()
                    .or(p.default.as_ref())
                    .map(|v| self.value(v, d.unit, this));
                match (out.get(p.name.text.as_str()), v) {
                    (_, Some(v)) => {
                        out.insert(self.names.get(&p.name.text), v);
                    }
                    (None, None) => {
                        out.insert(self.names.get(&p.name.text), Value::Null);
                    }
                    _ => {}
                }
            }
        }
        for (k, v) in assigned {
            if !declared.contains(&k.text) && !unit.builtin {
                self.diags.push(
                    Diagnostic::warning(
                        codes::W_YAML_LENIENT,
                        format!("`{owner}` assigns property `{}`, which its type does not define; it is kept", k.text),
                    )
                    .at(Self::at(unit, k.span)),
                );
            }
            let v = self.value(v, unit, this);
            out.insert(self.names.get(&k.text), v);
        }
        let mut attrs = crate::model::Properties::new();
        for d in defs {
            for a in &d.def.attributes {
                if out.contains_key(a.name.text.as_str()) {
                    continue;
                }
                let v = a.default.as_ref().map(|v| self.value(v, d.unit, this));
                let name = self.names.get(&a.name.text);
                let slot = attrs.entry(name).or_insert(Value::Null);
                if let Some(v) = v {
                    *slot = v;
                }
            }
        }
        for (k, v) in attributes {
            let v = self.value(v, unit, this);
            assign_attribute(&mut out, &mut attrs, self.names.get(&k.text), v);
        }
        out.extend(attrs);
        out
    }
}

/// Attribute `name`'s value `v` among a template's `properties` (an
/// attribute of a property's name reflects the property) or else its
/// `attributes` (which follow the properties).
pub(super) fn assign_attribute(
    properties: &mut crate::model::Properties,
    attributes: &mut crate::model::Properties,
    name: crate::model::Name,
    v: Value,
) {
    if properties.contains_key(&name) {
        properties.insert(name, v);
    } else {
        attributes.insert(name, v);
    }
}
