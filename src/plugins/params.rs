//! Binding operation inputs to values: by exact name on the node and down
//! its hosting stack (ConnectsTo is never followed), then through the
//! address/login aliases, and otherwise as a plan input of the same name.
//! Every binding that is not an exact match on the node itself is recorded
//! as a note, so `--explain` shows where each value comes from.

use super::conventions::aliases;
use super::steps::{Binding, PropertyRef};
use crate::model::{Name, NodeId, Operation, RelId, TemplateRef, Topology, Value};

/// The result of binding an operation's inputs.
#[derive(Debug, Default)]
pub(crate) struct Bound {
    /// Inputs with their bindings, in the operation's order.
    pub inputs: Vec<(Name, Binding)>,
    /// Where non-obvious bindings came from.
    pub notes: Vec<String>,
}

/// Find a property named `name` on `node` or below it (the stack below is
/// walked only when `node` has none: most inputs are the node's own).
pub(crate) fn find_property(topology: &Topology, node: NodeId, name: &Name) -> Option<PropertyRef> {
    let holds = |n: NodeId| topology.node(n).properties.contains_key(&**name);
    let holder = match holds(node) {
        true => node,
        false => topology.stack_below(node).into_iter().find(|&n| holds(n))?,
    };
    Some(PropertyRef {
        template: TemplateRef::Node(holder),
        name: name.clone(),
    })
}

/// Bind `name` in the context of `node`: exact name on the node and its
/// stack, then (for required inputs) aliases. Returns the binding and, for
/// anything but an exact match on `node`, a note.
pub(crate) fn bind_on_node(
    topology: &Topology,
    node: NodeId,
    name: &Name,
    required: bool,
) -> Option<(Binding, Option<String>)> {
    if let Some(p) = find_property(topology, node, name) {
        let note = (p.template != TemplateRef::Node(node)).then(|| {
            format!(
                "input `{name}` ← property `{name}` of `{}`",
                topology.template_id(p.template)
            )
        });
        return Some((Binding::Property(p), note));
    }
    // Aliases stand in only where a value is needed: an optional input
    // bound to a look-alike property would pass a wrong value silently.
    if !required {
        return None;
    }
    for alias in aliases(name) {
        if let Some(p) = find_property(topology, node, &Name::from(alias)) {
            let note = format!(
                "input `{name}` ← property `{alias}` of `{}` (alias)",
                topology.template_id(p.template)
            );
            return Some((Binding::Property(p), Some(note)));
        }
    }
    None
}

/// Bind all inputs of `operation` in the context of `node`; `explicit`
/// bindings (from a plugin) win. Unbound required inputs become plan
/// inputs; unbound optional ones are left out.
pub(crate) fn bind_inputs(
    topology: &Topology,
    node: NodeId,
    operation: &Operation,
    explicit: &[(Name, Binding)],
) -> Bound {
    let mut bound = Bound::default();
    bound
        .inputs
        .reserve_exact(explicit.len() + operation.inputs.len());
    for (name, b) in explicit {
        bound.inputs.push((name.clone(), b.clone()));
    }
    for p in &operation.inputs {
        if explicit.iter().any(|(n, _)| *n == p.name) {
            continue;
        }
        if let Some(v) = &p.value {
            bound.inputs.push((
                p.name.clone(),
                value_binding(topology, TemplateRef::Node(node), v),
            ));
            continue;
        }
        match bind_on_node(topology, node, &p.name, p.required) {
            Some((b, note)) => {
                bound.inputs.push((p.name.clone(), b));
                bound.notes.extend(note);
            }
            None if p.required => {
                bound
                    .notes
                    .push(format!("input `{}` ← plan input `{}`", p.name, p.name));
                bound
                    .inputs
                    .push((p.name.clone(), Binding::Input(p.name.clone())));
            }
            None => bound
                .notes
                .push(format!("optional input `{}` left unset", p.name)),
        }
    }
    bound
}

/// Bind the inputs of an operation run for a relationship (`connectTo`):
/// relationship properties first; a `SOURCE_`/`TARGET_` prefix picks that
/// end; otherwise the other end's stack, then the executing end's own.
pub(crate) fn bind_relationship_inputs(
    topology: &Topology,
    rel: RelId,
    executing: NodeId,
    operation: &Operation,
) -> Bound {
    let r = topology.relationship(rel);
    let other = if executing == r.source {
        r.target
    } else {
        r.source
    };
    let mut bound = Bound::default();
    bound.inputs.reserve_exact(operation.inputs.len());
    for p in &operation.inputs {
        if r.properties.contains_key(&*p.name) {
            bound.inputs.push((
                p.name.clone(),
                Binding::Property(PropertyRef {
                    template: TemplateRef::Relationship(rel),
                    name: p.name.clone(),
                }),
            ));
            continue;
        }
        let (lookup, order): (Name, Vec<NodeId>) = if let Some(n) = p.name.strip_prefix("SOURCE_") {
            (n.into(), vec![r.source])
        } else if let Some(n) = p.name.strip_prefix("TARGET_") {
            (n.into(), vec![r.target])
        } else {
            (p.name.clone(), vec![other, executing])
        };
        let found = order
            .iter()
            .find_map(|&n| bind_on_node(topology, n, &lookup, p.required));
        match found {
            Some((b, _)) => {
                if let Binding::Property(pr) = &b
                    && pr.template != TemplateRef::Node(executing)
                {
                    bound.notes.push(format!(
                        "input `{}` ← property `{}` of `{}`",
                        p.name,
                        pr.name,
                        topology.template_id(pr.template)
                    ));
                }
                bound.inputs.push((p.name.clone(), b));
            }
            None if p.required => {
                bound
                    .notes
                    .push(format!("input `{}` ← plan input `{}`", p.name, p.name));
                bound
                    .inputs
                    .push((p.name.clone(), Binding::Input(p.name.clone())));
            }
            None => bound
                .notes
                .push(format!("optional input `{}` left unset", p.name)),
        }
    }
    bound
}

/// The binding for a value written in the topology, evaluated in the
/// context of `template` (for `SELF`, `HOST`, `SOURCE`, `TARGET`).
pub(crate) fn value_binding(topology: &Topology, template: TemplateRef, value: &Value) -> Binding {
    match value {
        Value::Call(c) => match (c.function.as_str(), c.args.as_slice()) {
            ("get_input", [Value::Scalar(name)]) => Binding::Input(name.as_str().into()),
            // `[entity, property, nested keys...]`: the YAML front end has
            // already resolved requirement and capability hops.
            ("get_property" | "get_attribute", [entity, prop, ..])
            | ("get_operation_output", [entity, _, _, prop]) => {
                let prop: Name = prop.as_str().unwrap_or_default().into();
                match entity_of(topology, template, entity.as_str().unwrap_or_default()) {
                    Some(t) if topology.properties(t).contains_key(&*prop) => {
                        Binding::Property(PropertyRef {
                            template: t,
                            name: prop,
                        })
                    }
                    _ => Binding::Literal(String::new()),
                }
            }
            // `[entity, artifact]` (the YAML front end has warned about
            // other forms and left them as written): the artifact's file
            // as the container serves it, where the node has the artifact.
            ("get_artifact", [Value::Scalar(entity), Value::Scalar(name)]) => {
                let file = match (entity.as_str(), template) {
                    ("SOURCE" | "TARGET", _) | ("SELF", TemplateRef::Relationship(_)) => None,
                    _ => match entity_of(topology, template, entity) {
                        Some(TemplateRef::Node(n)) => topology
                            .node(n)
                            .artifact(name)
                            .and_then(|a| a.files.first()),
                        _ => None,
                    },
                };
                match file {
                    Some(f) => Binding::artifact(f),
                    None => Binding::Literal(value.to_json().to_string()),
                }
            }
            ("concat", parts) => Binding::Concat(
                parts
                    .iter()
                    .map(|p| value_binding(topology, template, p))
                    .collect(),
            ),
            (name, args) if crate::model::evaluated_at_run_time(name, args) => {
                let args = match (name, args) {
                    // `join: [[a, b, ...], separator]`: the list in place,
                    // then the separator (empty when left out).
                    ("join", [Value::List(items), rest @ ..]) => {
                        let empty = Value::Scalar(String::new());
                        items
                            .iter()
                            .chain(rest.first().or(Some(&empty)))
                            .map(|p| value_binding(topology, template, p))
                            .collect()
                    }
                    // `valid_values: [v, [a, b, ...]]`, `has_entry: [[a, b,
                    // ...], v]`: the value, then the list's items.
                    ("valid_values", [v, Value::List(items)])
                    | ("has_entry", [Value::List(items), v]) => std::iter::once(v)
                        .chain(items)
                        .map(|p| value_binding(topology, template, p))
                        .collect(),
                    _ => args
                        .iter()
                        .map(|p| value_binding(topology, template, p))
                        .collect(),
                };
                Binding::Function(name.to_string(), args)
            }
            _ => Binding::Literal(value.to_json().to_string()),
        },
        other => Binding::Literal(other.literal().unwrap_or_default()),
    }
}

/// The template a function's first argument names.
pub(crate) fn entity_of(
    topology: &Topology,
    template: TemplateRef,
    entity: &str,
) -> Option<TemplateRef> {
    match (entity, template) {
        ("SELF", t) => Some(t),
        ("SOURCE", TemplateRef::Relationship(r)) => {
            Some(TemplateRef::Node(topology.relationship(r).source))
        }
        ("TARGET", TemplateRef::Relationship(r)) => {
            Some(TemplateRef::Node(topology.relationship(r).target))
        }
        ("HOST", TemplateRef::Node(n)) => topology.host(n).map(TemplateRef::Node),
        (name, _) => topology.node_by_id(name).map(TemplateRef::Node),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `app` (with `port`) is hosted on `vm` (with `port` and `ip`).
    fn topology() -> Topology {
        let yaml = "tosca_definitions_version: tosca_simple_yaml_1_3\n\
            node_types:\n  Vm:\n    derived_from: tosca.nodes.Compute\n    \
            properties: {port: {type: integer}, ip: {type: string}}\n  \
            App:\n    derived_from: tosca.nodes.SoftwareComponent\n    \
            properties: {port: {type: integer}}\n\
            topology_template:\n  node_templates:\n    \
            vm:\n      type: Vm\n      properties: {port: 22, ip: 10.0.0.1}\n    \
            app:\n      type: App\n      properties: {port: 80}\n      \
            requirements: [{host: vm}]\n";
        crate::model::lower_yaml::topology_of(yaml)
    }

    #[test]
    fn a_property_is_the_nodes_own_before_one_below_it() {
        let t = topology();
        let (app, vm) = (t.node_by_id("app").unwrap(), t.node_by_id("vm").unwrap());
        let found = |name: &str| find_property(&t, app, &Name::from(name)).map(|p| p.template);
        assert_eq!(found("port"), Some(TemplateRef::Node(app)));
        assert_eq!(found("ip"), Some(TemplateRef::Node(vm)));
        assert_eq!(found("none"), None);
    }
}
