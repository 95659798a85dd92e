//! Attributes the topology's function calls read, once it is complete.
//!
//! In: the lowered [`Topology`]. Out: the same topology with
//! `get_operation_output` targets declared (an operation output stored
//! into an attribute of its node), attributes of delegated nodes turned
//! into plan inputs, and warnings for calls that read what no node has.

use std::collections::BTreeSet;
use std::sync::Arc;

use super::{Lowerer, Unit};
use crate::diagnostics::{Diagnostic, Location, codes};
use crate::model::{InputDef, NodeId, Parameter, Topology, Value};
use crate::yaml::ast;

impl<'a> Lowerer<'a> {
    /// `get_operation_output` (1.3 §4.6) reads what an operation returned:
    /// the operation gets an output of that name, stored into an attribute
    /// of the same name of its node, which the call then reads.
    pub(super) fn operation_outputs(&mut self, t: &mut Topology) {
        let mut wanted: BTreeSet<(String, String, String, String)> = BTreeSet::new();
        let mut visit = |v: &Value| {
            walk(v, &mut |call, args| {
                if call == "get_operation_output"
                    && let [
                        Value::Scalar(e),
                        Value::Scalar(i),
                        Value::Scalar(o),
                        Value::Scalar(out),
                    ] = args
                {
                    wanted.insert((e.clone(), i.clone(), o.clone(), out.clone()));
                }
            })
        };
        values(t, &mut visit);
        for (entity, iface, op, out) in wanted {
            let Some(n) = t.node_by_id(&entity) else {
                continue;
            };
            let node = &mut t.nodes[n.0 as usize];
            let mut ifaces = (*node.interfaces).clone();
            let found = ifaces
                .iter_mut()
                .filter(|i| {
                    *i.name == *iface || i.interface_type.as_deref() == Some(iface.as_str())
                })
                .find_map(|i| i.operations.iter_mut().find(|o| *o.name == *op));
            match found {
                Some(o) => {
                    if !o.outputs.iter().any(|p| *p.name == *out) {
                        o.outputs.push(Parameter {
                            name: out.as_str().into(),
                            required: false,
                            value: None,
                        });
                    }
                    node.interfaces = Arc::new(ifaces);
                    node.properties.entry(out.into()).or_insert(Value::Null);
                }
                None => self.diags.push(
                    Diagnostic::warning(
                        codes::W_IGNORED,
                        format!(
                            "`get_operation_output` reads `{out}` of `{iface}.{op}`, which `{entity}` does not have; the value is empty"
                        ),
                    )
                    .at_opt(node.origin.clone()),
                ),
            }
        }
    }

    /// Attributes of delegated nodes that the topology reads become plan
    /// inputs: whoever supplies the node supplies them.
    pub(super) fn delegated_attributes(&mut self, t: &mut Topology) {
        let mut wanted: BTreeSet<(NodeId, String)> = BTreeSet::new();
        let mut visit = |v: &Value| {
            walk(v, &mut |call, args| {
                if matches!(call, "get_attribute" | "get_property")
                    && let [Value::Scalar(e), Value::Scalar(p), ..] = args
                    && let Some(n) = t.node_by_id(e)
                    && t.node(n).is_abstract
                {
                    wanted.insert((n, p.clone()));
                }
            })
        };
        values(t, &mut visit);
        for (n, attr) in wanted {
            let node_id = t.node(n).id.clone();
            let slot = t.nodes[n.0 as usize]
                .properties
                .entry(attr.as_str().into())
                .or_insert(Value::Null);
            if !slot.is_empty() {
                continue;
            }
            let input = format!("{node_id}_{attr}");
            *slot = Value::input(input.clone());
            t.inputs.entry(input.clone()).or_insert(InputDef {
                given: false,
                name: input,
                type_name: Some("string".into()),
                default: None,
                required: true,
            });
        }
    }

    /// Function calls that read a property or attribute a (provisioned)
    /// node does not have: plans can only pass an empty value. The nodes
    /// `substituted` are passed over: their substitutions give what is
    /// read of them.
    pub(super) fn warn_unknown_attributes(
        &mut self,
        t: &Topology,
        topo: &ast::Topology,
        unit: Unit<'a>,
        substituted: &[NodeId],
    ) {
        let mut seen: BTreeSet<(String, String)> = BTreeSet::new();
        let mut found: Vec<(String, String, Option<Location>)> = Vec::new();
        let mut check = |v: &Value, origin: &Option<Location>| {
            walk(v, &mut |call, args| {
                if matches!(call, "get_attribute" | "get_property")
                    && let [Value::Scalar(e), Value::Scalar(p), ..] = args
                    && let Some(n) = t.node_by_id(e)
                    && !t.node(n).is_abstract
                    && !substituted.contains(&n)
                    && !t.node(n).properties.contains_key(p.as_str())
                    && seen.insert((e.clone(), p.clone()))
                {
                    found.push((e.clone(), p.clone(), origin.clone()));
                }
            })
        };
        for n in &t.nodes {
            n.properties.values().for_each(|v| check(v, &n.origin));
            for i in n.interfaces.iter() {
                for o in &i.operations {
                    o.inputs
                        .iter()
                        .filter_map(|p| p.value.as_ref())
                        .for_each(|v| check(v, &n.origin));
                }
            }
        }
        for r in &t.relationships {
            r.properties.values().for_each(|v| check(v, &r.origin));
            for i in r.interfaces.iter() {
                for o in &i.operations {
                    o.inputs
                        .iter()
                        .filter_map(|p| p.value.as_ref())
                        .for_each(|v| check(v, &r.origin));
                }
            }
        }
        for o in &t.outputs {
            let at = topo.outputs.iter().find(|(n, _)| n.text == o.name);
            check(&o.value, &at.map(|(n, _)| Self::at(unit, n.span)));
        }
        for (node, prop, origin) in found {
            self.diags.push(
                Diagnostic::warning(
                    codes::W_IGNORED,
                    format!(
                        "`{node}` has no property or attribute `{prop}` that plans can read; the value passed for it is empty"
                    ),
                )
                .at_opt(origin.or_else(|| Some(Location::file(t.service_template.file.clone()))))
                .hint("declare the attribute in the node type, or read it from the node that has it"),
            );
        }
    }
}

/// Call `f` for every function call in `v` (outermost first).
fn walk(v: &Value, f: &mut dyn FnMut(&str, &[Value])) {
    match v {
        Value::Call(c) => {
            f(&c.function, &c.args);
            c.args.iter().for_each(|a| walk(a, f));
        }
        Value::List(l) => l.iter().for_each(|a| walk(a, f)),
        Value::Map(m) => m.values().for_each(|a| walk(a, f)),
        _ => {}
    }
}

/// Visit every value a function call may stand in: the properties and
/// operation inputs of the node and relationship templates, and the
/// topology's outputs.
fn values(t: &Topology, visit: &mut impl FnMut(&Value)) {
    fn inputs(i: &crate::model::Interface) -> impl Iterator<Item = &Value> {
        i.operations
            .iter()
            .flat_map(|o| &o.inputs)
            .filter_map(|p| p.value.as_ref())
    }
    for n in &t.nodes {
        n.properties.values().for_each(&mut *visit);
        n.interfaces.iter().flat_map(inputs).for_each(&mut *visit);
    }
    for r in &t.relationships {
        r.properties.values().for_each(&mut *visit);
        r.interfaces.iter().flat_map(inputs).for_each(&mut *visit);
    }
    t.outputs.iter().for_each(|o| visit(&o.value));
}
