//! Interfaces and operations (1.3 §3.6.19–3.6.20) merged along a
//! template's ancestry.
//!
//! In: interface definitions and assignments of types, requirement
//! definitions and templates, in override order. Out: model
//! [`Interface`]s: each operation's inputs are the interface's overlaid by
//! the operation's; a later implementation replaces an earlier one.

use std::sync::Arc;

use indexmap::IndexMap;

use super::{Lowerer, This, Unit};
use crate::model::{Artifact, Implementation, Interface, Operation, Parameter, Value};
use crate::yaml::ast::{self, TypeKind};

impl<'a> Lowerer<'a> {
    /// Operations and inputs an interface type declares, along its ancestry.
    fn interface_type_ops(&mut self, key: &str, into: &mut IfaceB) {
        for d in self.defs(TypeKind::Interface, key).iter() {
            for p in &d.def.inputs {
                let b = self.param(p, d.unit, This::Nothing);
                into.inputs.entry(p.name.text.clone()).or_insert(b);
            }
            for op in &d.def.operations {
                into.ops.entry(op.name.text.clone()).or_default();
            }
        }
    }

    fn param(&mut self, p: &ast::Parameter, unit: Unit<'a>, this: This) -> ParamB {
        let value = p
            .value
            .as_ref()
            .or(p.default.as_ref())
            .filter(|n| !n.is_null() || !p.definition)
            .map(|n| self.value(n, unit, this));
        ParamB {
            required: value.is_none() && p.required,
            value,
        }
    }

    /// Merge an interface definition or assignment into `list`.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn merge_interface(
        &mut self,
        list: &mut Vec<IfaceB>,
        iface: &'a ast::Interface,
        unit: Unit<'a>,
        this: This,
        artifacts: &IndexMap<String, Artifact>,
        owner: &str,
    ) {
        let key = &iface.name.text;
        let declared_type = iface
            .type_name
            .as_ref()
            .and_then(|t| self.resolve_or_report(TypeKind::Interface, t, unit, "interface type"));
        let mut slot = list.iter().position(|i| &i.name == key);
        if slot.is_none() {
            // Examples key interfaces by their type name (`tosca.interfaces.node.lifecycle.Standard:`).
            if let Some(as_type) = self.resolve(TypeKind::Interface, key, unit) {
                slot = list.iter().position(|i| {
                    i.type_key.as_ref().is_some_and(|t| {
                        t == &as_type
                            || self
                                .chain(TypeKind::Interface, t)
                                .is_some_and(|c| c.contains(&as_type))
                    })
                });
                if slot.is_none() && declared_type.is_none() {
                    let mut b = IfaceB {
                        name: key.clone(),
                        type_key: Some(as_type.clone()),
                        ..IfaceB::default()
                    };
                    self.interface_type_ops(&as_type, &mut b);
                    list.push(b);
                    slot = Some(list.len() - 1);
                }
            }
        }
        let i = match slot {
            Some(i) => i,
            None => {
                list.push(IfaceB {
                    name: key.clone(),
                    ..IfaceB::default()
                });
                list.len() - 1
            }
        };
        if let Some(t) = declared_type {
            let mut b = std::mem::take(&mut list[i]);
            b.type_key = Some(t.clone());
            self.interface_type_ops(&t, &mut b);
            list[i] = b;
        }
        for p in &iface.inputs {
            let b = self.param(p, unit, this);
            let slot = list[i].inputs.entry(p.name.text.clone()).or_default();
            merge_param(slot, b);
        }
        for op in &iface.operations {
            let owner_op = format!("operation `{}.{}` of {owner}", list[i].name, op.name.text);
            let implementation = op
                .implementation
                .as_ref()
                .and_then(|imp| self.implementation(imp, unit, artifacts, &owner_op));
            let inputs: Vec<(String, ParamB)> = op
                .inputs
                .iter()
                .map(|p| (p.name.text.clone(), self.param(p, unit, this)))
                .collect();
            let outputs: Vec<(String, Value)> = op
                .outputs
                .iter()
                .map(|(n, v)| (n.text.clone(), self.value(v, unit, this)))
                .collect();
            let slot = list[i].ops.entry(op.name.text.clone()).or_default();
            if implementation.is_some() {
                slot.implementation = implementation;
            }
            for (n, b) in inputs {
                merge_param(slot.inputs.entry(n).or_default(), b);
            }
            for (n, v) in outputs {
                slot.outputs.insert(n, v);
            }
        }
    }

    pub(super) fn finish_interfaces(&mut self, list: Vec<IfaceB>) -> Vec<Interface> {
        list.into_iter()
            .map(|i| Interface {
                name: i.name.into(),
                // What the interface is, whatever its name (`Standard`).
                lineage: i
                    .type_key
                    .as_ref()
                    .and_then(|k| self.chain(TypeKind::Interface, k))
                    .unwrap_or_default(),
                interface_type: i.type_key,
                operations: i
                    .ops
                    .into_iter()
                    .map(|(name, op)| {
                        let mut inputs: IndexMap<String, ParamB> = i.inputs.clone();
                        for (n, p) in op.inputs {
                            merge_param(inputs.entry(n).or_default(), p);
                        }
                        Operation {
                            name: name.into(),
                            inputs: inputs
                                .into_iter()
                                .map(|(name, p)| Parameter {
                                    name: name.into(),
                                    required: p.required,
                                    value: p.value,
                                })
                                .collect(),
                            outputs: op
                                .outputs
                                .into_iter()
                                .map(|(name, v)| Parameter {
                                    name: name.into(),
                                    required: false,
                                    value: Some(v),
                                })
                                .collect(),
                            implementation: op.implementation.map(Arc::new),
                        }
                    })
                    .collect(),
            })
            .collect()
    }
}

/// An interface while it is merged.
#[derive(Clone, Debug, Default)]
pub(super) struct IfaceB {
    name: String,
    type_key: Option<String>,
    inputs: IndexMap<String, ParamB>,
    ops: IndexMap<String, OpB>,
}

#[derive(Clone, Debug, Default)]
struct ParamB {
    value: Option<Value>,
    required: bool,
}

#[derive(Clone, Debug, Default)]
struct OpB {
    implementation: Option<Implementation>,
    inputs: IndexMap<String, ParamB>,
    outputs: IndexMap<String, Value>,
}

fn merge_param(slot: &mut ParamB, new: ParamB) {
    if new.value.is_some() {
        slot.value = new.value;
        slot.required = false;
    } else if slot.value.is_none() {
        slot.required = new.required;
    }
}
