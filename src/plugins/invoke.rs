//! Building an [`Invocation`] of a node operation with bound inputs and
//! outputs stored into properties: shared by every plugin that calls
//! operations.

use super::params::bind_inputs;
use super::steps::{Binding, Invocation, PropertyRef, Step};
use crate::model::{Name, NodeId, Operation, TemplateRef, Topology};

/// A call to describe: whose operation, in whose context.
pub(crate) struct Call<'a> {
    /// The node whose operation is invoked (for host operations, the host).
    pub target: NodeId,
    /// The node being provisioned: inputs are matched on it and its stack.
    pub context: NodeId,
    /// Interface name.
    pub interface: &'a Name,
    /// The operation.
    pub operation: &'a Operation,
    /// Explicit input bindings; they win over matching by name.
    pub inputs: &'a [(Name, Binding)],
    /// Explicit output targets; other outputs go to a same-named property.
    pub outputs: &'a [(Name, PropertyRef)],
}

/// An invocation of a call. Each output not mapped explicitly is stored
/// into the property of the same name of the context node, else of the
/// target. Binding notes are appended to `notes`.
pub(crate) fn node_operation(topology: &Topology, call: Call, notes: &mut Vec<String>) -> Step {
    let operation = call.operation;
    let bound = bind_inputs(topology, call.context, operation, call.inputs);
    notes.extend(
        bound
            .notes
            .into_iter()
            .map(|n| format!("{}: {n}", operation.name)),
    );
    let mut out: Vec<(Name, PropertyRef)> =
        Vec::with_capacity(call.outputs.len() + operation.outputs.len());
    out.extend_from_slice(call.outputs);
    for o in &operation.outputs {
        if out.iter().any(|(n, _)| n == &o.name) {
            continue;
        }
        // A YAML attribute mapping: `<output>: [SELF | <node>, <attribute>]`.
        if let Some(crate::model::Value::List(parts)) = &o.value {
            let entity = parts.first().and_then(|p| p.as_str()).unwrap_or_default();
            let attr = parts.get(1).and_then(|p| p.as_str()).unwrap_or_default();
            let node = match entity {
                "SELF" => Some(call.context),
                name => topology.node_by_id(name),
            };
            if let Some(n) = node
                && topology.node(n).properties.contains_key(attr)
            {
                out.push((
                    o.name.clone(),
                    PropertyRef {
                        template: TemplateRef::Node(n),
                        name: attr.into(),
                    },
                ));
            }
            continue;
        }
        let holder = [call.context, call.target]
            .into_iter()
            .find(|&n| topology.node(n).properties.contains_key(&*o.name));
        if let Some(n) = holder {
            out.push((
                o.name.clone(),
                PropertyRef {
                    template: TemplateRef::Node(n),
                    name: o.name.clone(),
                },
            ));
        }
    }
    Step::Invoke(Box::new(Invocation {
        target: TemplateRef::Node(call.target),
        interface: call.interface.clone(),
        operation: operation.name.clone(),
        inputs: bound.inputs,
        outputs: out,
    }))
}

/// A node's own operation, inputs matched by name.
pub(crate) fn own_operation(
    topology: &Topology,
    node: NodeId,
    interface: &Name,
    operation: &Operation,
    notes: &mut Vec<String>,
) -> Step {
    node_operation(
        topology,
        Call {
            target: node,
            context: node,
            interface,
            operation,
            inputs: &[],
            outputs: &[],
        },
        notes,
    )
}
