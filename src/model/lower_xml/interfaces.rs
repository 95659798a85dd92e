//! Interfaces and their implementations (TOSCA 1.0 §5.2, §6.2, §7, §9):
//! the operations every template of a type shares.
//!
//! In: a node or relationship type id. Out: the interfaces merged along
//! the type's ancestry with implementation artifacts bound to operations
//! (an artifact naming no interface or operation implements them all), the
//! deployment artifacts of the implementations, and the property keys of
//! the type; computed once per node type.

use std::sync::Arc;

use super::Lowerer;
use super::index::Found;
use crate::model::{Artifact, Implementation, Interface, Operation, Parameter, TypeId, TypeKind};
use crate::xml::ast;

impl<'a> Lowerer<'a> {
    /// Effective interfaces, deployment artifacts of the chosen
    /// implementation, and Winery property keys of a node type.
    pub(super) fn node_type_facts(
        &mut self,
        type_id: TypeId,
    ) -> (Arc<Vec<Interface>>, Vec<Artifact>, Vec<String>) {
        if let Some(f) = self.node_interfaces.get(&type_id) {
            return f.clone();
        }
        let ancestry = self.types.ancestry(type_id);
        let mut interfaces: Vec<Interface> = Vec::new();
        let mut keys: Vec<String> = Vec::new();
        for &t in ancestry.iter().rev() {
            let name = self.types.get(t).name.clone();
            let Some(f) = self
                .index
                .node_types
                .get(&(name.namespace, name.name))
                .copied()
            else {
                continue;
            };
            merge_interfaces(&mut interfaces, &f.item.interfaces);
            for k in &f.item.property_keys {
                if !keys.contains(k) {
                    keys.push(k.clone());
                }
            }
        }
        let impls = self.implementations(&ancestry, TypeKind::Node);
        let artifacts = self.bind_implementations(&mut interfaces, &impls);
        let mut das: Vec<Artifact> = Vec::new();
        for i in &impls {
            for da in self.deployment_artifacts(&i.item.deployment_artifacts, i.doc) {
                if !das.iter().any(|d| d.name == da.name) {
                    das.push(da);
                }
            }
        }
        let facts = (Arc::new(interfaces), das, keys);
        let _ = artifacts;
        self.node_interfaces.insert(type_id, facts.clone());
        facts
    }

    /// Non-abstract implementations of the type and its ancestors, nearest
    /// type first; among one type's implementations, those with more
    /// artifacts first, then by name. An operation is implemented by the
    /// first of them that has an artifact for it, so a subtype's
    /// implementation of some operations does not hide its parent's
    /// implementation of the others.
    pub(super) fn implementations(
        &self,
        ancestry: &[TypeId],
        kind: TypeKind,
    ) -> Vec<Found<'a, ast::TypeImplementation>> {
        let mut out = Vec::new();
        for &t in ancestry {
            let name = self.types.get(t).name.clone();
            let k = (name.namespace, name.name);
            let list = match kind {
                TypeKind::Node => self.index.node_impls.get(&k),
                TypeKind::Relationship => self.index.relationship_impls.get(&k),
            };
            if let Some(list) = list {
                let mut usable: Vec<_> = list
                    .iter()
                    .copied()
                    .filter(|f| !f.item.is_abstract)
                    .collect();
                usable.sort_by_key(|f| std::cmp::Reverse(f.item.implementation_artifacts.len()));
                out.extend(usable);
            }
        }
        out
    }

    /// Attach to every operation the first implementation artifact (in
    /// implementation order) that implements it.
    fn bind_implementations(
        &mut self,
        interfaces: &mut [Interface],
        impls: &[Found<'a, ast::TypeImplementation>],
    ) -> usize {
        let mut bound = 0;
        for iface in interfaces.iter_mut() {
            for op in iface.operations.iter_mut() {
                'impls: for imp in impls {
                    for ia in &imp.item.implementation_artifacts {
                        let iface_ok = ia
                            .interface_name
                            .as_deref()
                            .is_none_or(|n| n == &*iface.name);
                        let op_ok = ia.operation_name.as_deref().is_none_or(|n| n == &*op.name);
                        if iface_ok && op_ok {
                            op.implementation = Some(Arc::new(Implementation {
                                primary: self.artifact(
                                    ia.name.clone(),
                                    &ia.artifact_type,
                                    ia.artifact_ref.as_ref(),
                                    imp.doc,
                                ),
                                dependencies: Vec::new(),
                            }));
                            bound += 1;
                            break 'impls;
                        }
                    }
                }
            }
        }
        bound
    }

    pub(super) fn relationship_interfaces(
        &mut self,
        type_id: TypeId,
    ) -> (Arc<Vec<Interface>>, Arc<Vec<Interface>>) {
        let ancestry = self.types.ancestry(type_id);
        let mut source: Vec<Interface> = Vec::new();
        let mut target: Vec<Interface> = Vec::new();
        for &t in ancestry.iter().rev() {
            let name = self.types.get(t).name.clone();
            if let Some(f) = self
                .index
                .relationship_types
                .get(&(name.namespace, name.name))
                .copied()
            {
                merge_interfaces(&mut source, &f.item.source_interfaces);
                merge_interfaces(&mut target, &f.item.target_interfaces);
            }
        }
        let impls = self.implementations(&ancestry, TypeKind::Relationship);
        self.bind_implementations(&mut source, &impls);
        self.bind_implementations(&mut target, &impls);
        (Arc::new(source), Arc::new(target))
    }
}

/// Merge `more` into `into`: same-named interfaces merge, a redefined
/// operation replaces the inherited one (TOSCA 1.0 derivation rules).
fn merge_interfaces(into: &mut Vec<Interface>, more: &[ast::Interface]) {
    for i in more {
        let ops: Vec<Operation> = i
            .operations
            .iter()
            .map(|o| Operation {
                name: o.name.as_str().into(),
                inputs: o.inputs.iter().map(param).collect(),
                outputs: o.outputs.iter().map(param).collect(),
                implementation: None,
            })
            .collect();
        match into.iter_mut().find(|x| *x.name == *i.name) {
            Some(existing) => {
                for op in ops {
                    match existing.operations.iter_mut().find(|o| o.name == op.name) {
                        Some(slot) => *slot = op,
                        None => existing.operations.push(op),
                    }
                }
            }
            None => into.push(Interface {
                name: i.name.as_str().into(),
                interface_type: None,
                lineage: Vec::new(),
                operations: ops,
            }),
        }
    }
}

fn param(p: &ast::Parameter) -> Parameter {
    Parameter {
        name: p.name.as_str().into(),
        required: p.required,
        value: None,
    }
}
