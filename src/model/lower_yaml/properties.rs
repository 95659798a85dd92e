//! Property and attribute values of node templates (1.3 §3.6.10–3.6.12).
//!
//! In: the definitions along a template's type ancestry and its
//! assignments. Out: the template's instance properties: the type's
//! defaults overlaid by assignments, then the attributes that are not
//! properties (plans keep both as instance data, 1.3 §2.19).

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
        // One map, sized for every name the type and the template give
        // (usually each once): the properties, then the attributes
        // ([`Lowerer::attributes`]). A map grown by doubling was copied
        // again at its size by `Topology::new`.
        let room = defs
            .iter()
            .map(|d| d.def.properties.len() + d.def.attributes.len())
            .sum::<usize>()
            + assigned.len()
            + attributes.len();
        let mut out = crate::model::Properties::with_capacity(room);
        for d in defs {
            for p in &d.def.properties {
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
        // Every property the type declares, and nothing else yet.
        let declared = out.len();
        let is_property = |out: &crate::model::Properties, name: &str| {
            out.get_index_of(name).is_some_and(|i| i < declared)
        };
        for (k, v) in assigned {
            if !is_property(&out, &k.text) && !unit.builtin {
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
        self.attributes(
            &mut out,
            defs,
            attributes.iter().map(|(k, v)| (k, v, unit)),
            this,
        );
        out
    }

    /// Add to `out`, which holds a template's properties, its attributes
    /// that are not properties: the type's defaults (along `defs`), then
    /// the template's `assigned` values. An attribute named as a property
    /// reflects it: its value replaces the property's. In the one map,
    /// after the properties: a map of attributes appended to them was a
    /// rehash of every template's values.
    pub(super) fn attributes(
        &mut self,
        out: &mut crate::model::Properties,
        defs: &[Def<'a>],
        assigned: impl IntoIterator<Item = (&'a ast::Spanned, &'a Node, Unit<'a>)>,
        this: This,
    ) {
        let properties = out.len();
        for d in defs {
            for a in &d.def.attributes {
                if out
                    .get_index_of(a.name.text.as_str())
                    .is_some_and(|i| i < properties)
                {
                    continue;
                }
                let v = a.default.as_ref().map(|v| self.value(v, d.unit, this));
                let name = self.names.get(&a.name.text);
                let slot = out.entry(name).or_insert(Value::Null);
                if let Some(v) = v {
                    *slot = v;
                }
            }
        }
        for (k, v, u) in assigned {
            let v = self.value(v, u, this);
            out.insert(self.names.get(&k.text), v);
        }
    }
}
