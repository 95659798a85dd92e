//! Building an [`Invocation`] of a node operation with bound inputs and
//! outputs stored into properties: shared by every plugin that calls
//! operations.

use super::params::bind_inputs;
use super::steps::{Binding, Invocation, PropertyRef, Step};
use crate::model::{NodeId, Operation, TemplateRef, Topology};

/// An invocation of `interface/operation` of node `target`, with inputs
/// bound in the context of node `context` (the node being provisioned),
/// `explicit` bindings first. Each output is stored into the property of
/// the same name of `context`, else of `target`, unless `outputs` maps it.
pub fn node_operation(
    topology: &Topology,
    target: NodeId,
    context: NodeId,
    interface: &str,
    operation: &Operation,
    explicit: &[(String, Binding)],
    outputs: &[(String, PropertyRef)],
    notes: &mut Vec<String>,
) -> Step {
    let bound = bind_inputs(topology, context, operation, explicit);
    notes.extend(
        bound
            .notes
            .into_iter()
            .map(|n| format!("{}: {n}", operation.name)),
    );
    let mut out: Vec<(String, PropertyRef)> = outputs.to_vec();
    for o in &operation.outputs {
        if out.iter().any(|(n, _)| n == &o.name) {
            continue;
        }
        let holder = [context, target]
            .into_iter()
            .find(|&n| topology.node(n).properties.contains_key(&o.name));
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
    Step::Invoke(Invocation {
        target: TemplateRef::Node(target),
        interface: interface.to_string(),
        operation: operation.name.clone(),
        inputs: bound.inputs,
        outputs: out,
    })
}
