//! Entity keywords and hops of function calls (1.3 §4.4–4.6, 2.0
//! §10.2.1), resolved once every relationship is known.
//!
//! In: the topology, which node each requirement leads to, and the static
//! capability values. Out: calls whose first argument names a node
//! template (`SELF`, `SOURCE`, `TARGET`, `HOST` and requirement hops
//! replaced), or the capability property value they read.

use foldhash::HashMap;
use std::sync::Arc;

use indexmap::IndexMap;

use crate::model::{Interface, NodeId, TemplateRef, Topology, Value};

/// The node each requirement of each node leads to.
pub(super) type ByRequirement<'a> = HashMap<(NodeId, &'a str), NodeId>;

/// What the hops of calls read besides the templates.
pub(super) struct Hops<'x, 'a> {
    /// The node each requirement leads to.
    pub(super) by_requirement: &'x ByRequirement<'a>,
    /// Static capability property values.
    pub(super) caps: &'x HashMap<(NodeId, String), IndexMap<String, Value>>,
    /// Capability names of each node.
    pub(super) cap_names: &'x super::CapabilityNames,
    /// The capability of its target each relationship reaches, by RelId.
    pub(super) reached: &'x [Option<String>],
}

/// Resolve entity keywords and requirement/capability hops in every value
/// of the topology (see the module docs).
pub(super) fn resolve_entities(t: &mut Topology, hops: &Hops<'_, '_>) {
    // Resolution reads the topology's structure and property names, never
    // property values: each value is taken out, resolved against the
    // topology and put back. Only values with entity calls change, and
    // interfaces shared by a type stay shared unless one of their values
    // does (a copy of the topology, and of every template's interfaces,
    // was most of the memory of loading a large topology).
    let resolve =
        |t: &Topology, ctx: TemplateRef, v: &mut Value| resolve_value(t, Some(ctx), v, hops);
    let templates: Vec<TemplateRef> = t
        .node_ids()
        .map(TemplateRef::Node)
        .chain(t.relationship_ids().map(TemplateRef::Relationship))
        .collect();
    for ctx in templates {
        for j in 0..t.properties(ctx).len() {
            if has_entity_call(&t.properties(ctx)[j]) {
                let mut v = std::mem::replace(&mut t.properties_mut(ctx)[j], Value::Null);
                resolve(t, ctx, &mut v);
                t.properties_mut(ctx)[j] = v;
            }
        }
        let own = match ctx {
            TemplateRef::Node(n) => &t.node(n).interfaces,
            TemplateRef::Relationship(r) => &t.relationship(r).interfaces,
        };
        if let Some(ifaces) = resolve_interfaces(t, ctx, own, &resolve) {
            match ctx {
                TemplateRef::Node(n) => t.nodes[n.0 as usize].interfaces = ifaces,
                TemplateRef::Relationship(r) => t.relationships[r.0 as usize].interfaces = ifaces,
            }
        }
    }
}

/// The interfaces with their parameter values resolved, if any of them
/// has an entity call (else they stay as they are, shared).
fn resolve_interfaces(
    t: &Topology,
    ctx: TemplateRef,
    interfaces: &Arc<Vec<Interface>>,
    resolve: &dyn Fn(&Topology, TemplateRef, &mut Value),
) -> Option<Arc<Vec<Interface>>> {
    let params = |i: &Interface| {
        i.operations
            .iter()
            .flat_map(|o| o.inputs.iter().chain(&o.outputs))
            .filter_map(|p| p.value.as_ref())
            .any(has_entity_call)
    };
    if !interfaces.iter().any(params) {
        return None;
    }
    let mut ifaces = (**interfaces).clone();
    for iface in &mut ifaces {
        for op in &mut iface.operations {
            for p in op.inputs.iter_mut().chain(op.outputs.iter_mut()) {
                if let Some(v) = &mut p.value {
                    resolve(t, ctx, v);
                }
            }
        }
    }
    Some(Arc::new(ifaces))
}

/// Whether `v` has a call that names an entity (`get_property`,
/// `get_attribute`, `get_operation_output`) in a way that only the
/// template's context resolves: what [`resolve_value`] changes.
fn has_entity_call(v: &Value) -> bool {
    match v {
        Value::Call(c) => {
            (is_entity_fn(&c.function) && !is_plain_self(&c.function, &c.args))
                || c.args.iter().any(has_entity_call)
        }
        Value::List(l) => l.iter().any(has_entity_call),
        Value::Map(m) => m.values().any(has_entity_call),
        _ => false,
    }
}

/// Resolve one value in the context of `ctx` (see [`resolve_entities`]).
pub(super) fn resolve_value(
    t: &Topology,
    ctx: Option<TemplateRef>,
    v: &mut Value,
    hops: &Hops<'_, '_>,
) {
    match v {
        Value::Call(c) => {
            let crate::model::Call { function, args } = &mut **c;
            for a in args.iter_mut() {
                resolve_value(t, ctx, a, hops);
            }
            if !is_entity_fn(function) || is_plain_self(function, args) {
                return;
            }
            if let Some(through) = incoming(t, ctx, args, hops.reached) {
                *args = through;
            }
            tosca2_path(args);
            let Some(entity) = args.first().and_then(Value::as_str).map(str::to_string) else {
                return;
            };
            let Some(n) = entity_node(t, ctx, &entity, args) else {
                return;
            };
            if function == "get_operation_output" {
                args[0] = Value::Scalar(t.node(n).id.clone());
                return;
            }
            match hop(
                t,
                n,
                function,
                args,
                hops.by_requirement,
                hops.caps,
                hops.cap_names,
            ) {
                Some(Hopped::Value(value)) => *v = value,
                Some(Hopped::Args(new_args)) => *args = new_args,
                None => args[0] = Value::Scalar(t.node(n).id.clone()),
            }
        }
        Value::List(l) => l.iter_mut().for_each(|a| resolve_value(t, ctx, a, hops)),
        Value::Map(m) => m.values_mut().for_each(|a| resolve_value(t, ctx, a, hops)),
        _ => {}
    }
}

/// Whether `function` reads a value of an entity.
fn is_entity_fn(function: &str) -> bool {
    matches!(
        function,
        "get_property" | "get_attribute" | "get_operation_output"
    )
}

/// Whether a call names its own template, source or target and the value
/// directly (`[SELF, p]`, `[SOURCE, p]`, `[TARGET, p]`; no requirement or
/// capability between them): it means the same in every template that has
/// it, and the plugins read it in the context of the template whose
/// operation runs (`plugins::params::entity_of`). Left as it is, the
/// interfaces a type gives its templates stay shared instead of copied
/// per template (a hundred thousand copies were 64 MB).
fn is_plain_self(function: &str, args: &[Value]) -> bool {
    let plain = match function {
        "get_operation_output" => args.len() == 4,
        _ => args.len() == 2,
    };
    plain
        && matches!(
            args.first().and_then(Value::as_str),
            Some("SELF" | "SOURCE" | "TARGET")
        )
}

/// The node an entity keyword or name stands for in the context `ctx`:
/// `HOST` is the first node down the hosting chain that has the property
/// (`args[1]`), or the direct host.
fn entity_node(
    t: &Topology,
    ctx: Option<TemplateRef>,
    entity: &str,
    args: &[Value],
) -> Option<NodeId> {
    match (entity, ctx) {
        ("SELF", Some(TemplateRef::Node(n))) => Some(n),
        ("SELF", _) => None,
        ("SOURCE", Some(TemplateRef::Relationship(r))) => Some(t.relationship(r).source),
        ("TARGET", Some(TemplateRef::Relationship(r))) => Some(t.relationship(r).target),
        ("HOST", Some(TemplateRef::Node(n))) => {
            let prop = args.get(1).and_then(Value::as_str).unwrap_or_default();
            let mut cur = t.host(n);
            let first = cur;
            let mut steps = 0;
            while let Some(h) = cur {
                if t.node(h).properties.contains_key(prop) || steps > t.nodes.len() {
                    break;
                }
                cur = t.host(h);
                steps += 1;
            }
            cur.or(first)
        }
        (name, _) => t.node_by_id(name),
    }
}

/// What a requirement or capability hop makes of a call.
#[derive(Debug, PartialEq)]
enum Hopped {
    /// The call is a static capability property: this value.
    Value(Value),
    /// The call's new arguments: the node reached, then the rest.
    Args(Vec<Value>),
}

/// A requirement or capability name between the entity (node `n`) and the
/// property: `[E, requirement, p, ...]` reads `p` of the requirement's
/// target (or, for `get_property`, of a capability of it when the target
/// has no such property), `[E, capability, p]` the capability's property.
/// `None` when `args[1]` is neither.
fn hop(
    t: &Topology,
    n: NodeId,
    function: &str,
    args: &[Value],
    by_requirement: &ByRequirement<'_>,
    caps: &HashMap<(NodeId, String), IndexMap<String, Value>>,
    cap_names: &super::CapabilityNames,
) -> Option<Hopped> {
    if args.len() < 3 {
        return None;
    }
    let hop = args[1].as_str()?.to_string();
    if let Some(&target) = by_requirement.get(&(n, hop.as_str())) {
        let prop = args[2].clone();
        let target_prop = prop.as_str().unwrap_or_default().to_string();
        // The target's capability property, if it has none itself.
        if !t.node(target).properties.contains_key(target_prop.as_str())
            && function == "get_property"
            && let Some(value) = cap_names
                .get(&target)
                .into_iter()
                .flat_map(|v| v.iter())
                .find_map(|c| {
                    caps.get(&(target, c.clone()))
                        .and_then(|m| m.get(&target_prop))
                })
        {
            return Some(Hopped::Value(value.clone()));
        }
        let mut new_args = vec![Value::Scalar(t.node(target).id.clone()), prop];
        new_args.extend(args[3..].iter().cloned());
        return Some(Hopped::Args(new_args));
    }
    if cap_names.get(&n).is_some_and(|names| names.contains(&hop)) {
        let prop = args[2].as_str().unwrap_or_default().to_string();
        if let Some(value) = caps.get(&(n, hop)).and_then(|m| m.get(&prop)) {
            return Some(Hopped::Value(value.clone()));
        }
        let mut new_args = vec![Value::Scalar(t.node(n).id.clone())];
        new_args.extend(args[2..].iter().cloned());
        return Some(Hopped::Args(new_args));
    }
    None
}

/// A TOSCA 2.0 path through an incoming relationship of a capability
/// (the Standard's §10.3 `<cap_context>`): `[E, CAPABILITY, c,
/// RELATIONSHIP, i, SOURCE|TARGET, …]` from a node, `[SELF, CAPABILITY,
/// RELATIONSHIP, i, SOURCE|TARGET, …]` from a relationship (its target's
/// capability). The incoming relationships of the capability are taken in
/// the order the topology has them (the Standard leaves the order to the
/// processor); the result names the node reached, then the rest of the
/// path. `None` for any other call, or where the relationship is not
/// there (the call then reads as written).
fn incoming(
    t: &Topology,
    ctx: Option<TemplateRef>,
    args: &[Value],
    reached: &[Option<String>],
) -> Option<Vec<Value>> {
    let word = |i: usize| args.get(i).and_then(Value::as_str);
    let (node, capability, at) = match (word(1), word(2), ctx) {
        (Some("CAPABILITY"), Some("RELATIONSHIP"), Some(TemplateRef::Relationship(r)))
            if word(0) == Some("SELF") =>
        {
            let c = reached.get(r.0 as usize)?.clone()?;
            (t.relationship(r).target, c, 3)
        }
        (Some("CAPABILITY"), Some(c), _) if word(3) == Some("RELATIONSHIP") => {
            let n = entity_node(t, ctx, word(0)?, args)?;
            (n, c.to_string(), 4)
        }
        _ => return None,
    };
    let index: usize = word(at)?.parse().ok()?;
    let end = word(at + 1)?;
    let r = t
        .incoming(node)
        .iter()
        .filter(|r| reached.get(r.0 as usize).and_then(Option::as_deref) == Some(&*capability))
        .nth(index)?;
    let reached_node = match end {
        "SOURCE" => t.relationship(*r).source,
        "TARGET" => node,
        _ => return None,
    };
    let mut out = vec![Value::Scalar(t.node(reached_node).id.clone())];
    out.extend(args[at + 2..].iter().cloned());
    Some(out)
}

/// Rewrite a TOSCA 2.0 path (2.0 §10.2.1) into the 1.x argument form the
/// hops above understand: `[SELF, TARGET, p]` → `[TARGET, p]`,
/// `[E, RELATIONSHIP, r, (index,) TARGET, (CAPABILITY, c,) p]` → `[E, r, p]`,
/// `[E, CAPABILITY, c, p]` → `[E, c, p]`.
fn tosca2_path(args: &mut Vec<Value>) {
    let word = |args: &[Value], i: usize| args.get(i).and_then(Value::as_str).map(str::to_string);
    if word(args, 0).as_deref() == Some("SELF")
        && matches!(word(args, 1).as_deref(), Some("SOURCE" | "TARGET"))
    {
        args.remove(0);
    }
    if word(args, 1).as_deref() == Some("RELATIONSHIP") && args.len() > 3 {
        let mut k = 3;
        if word(args, k).is_some_and(|s| s == "ALL" || s.parse::<u64>().is_ok()) {
            k += 1;
        }
        if word(args, k).as_deref() == Some("TARGET") {
            k += 1;
        }
        if word(args, k).as_deref() == Some("CAPABILITY") {
            k += 2;
        }
        let mut new = vec![args[0].clone(), args[2].clone()];
        new.extend(args[k.min(args.len())..].iter().cloned());
        *args = new;
    }
    if word(args, 1).as_deref() == Some("CAPABILITY") && args.len() >= 4 {
        args.remove(1);
    }
}

#[cfg(test)]
mod tests {
    use super::super::lower_text;
    use super::*;

    #[test]
    fn only_a_template_s_own_values_stay_unresolved() {
        let args =
            |a: &[&str]| -> Vec<Value> { a.iter().map(|s| Value::Scalar(s.to_string())).collect() };
        assert!(is_plain_self("get_property", &args(&["SELF", "port"])));
        assert!(is_plain_self("get_attribute", &args(&["TARGET", "ip"])));
        assert!(is_plain_self(
            "get_operation_output",
            &args(&["SELF", "Standard", "create", "id"])
        ));
        // A hop through a requirement or capability, and HOST (the first
        // host down the chain that has the property), need the topology.
        assert!(!is_plain_self(
            "get_property",
            &args(&["SELF", "database", "port"])
        ));
        assert!(!is_plain_self("get_property", &args(&["HOST", "ip"])));
        assert!(!is_plain_self("get_property", &args(&["db", "port"])));
    }

    #[test]
    fn reads_tosca_2_paths() {
        let s = |v: &[&str]| {
            v.iter()
                .map(|x| Value::Scalar(x.to_string()))
                .collect::<Vec<_>>()
        };
        let mut a = s(&[
            "SELF",
            "RELATIONSHIP",
            "db",
            "0",
            "TARGET",
            "CAPABILITY",
            "endpoint",
            "port",
        ]);
        tosca2_path(&mut a);
        assert_eq!(a, s(&["SELF", "db", "port"]));
        let mut b = s(&["SELF", "TARGET", "name"]);
        tosca2_path(&mut b);
        assert_eq!(b, s(&["TARGET", "name"]));
        let mut c = s(&["SELF", "CAPABILITY", "host", "num_cpus"]);
        tosca2_path(&mut c);
        assert_eq!(c, s(&["SELF", "host", "num_cpus"]));
    }

    #[test]
    fn host_and_requirement_hops_name_the_node_reached() {
        let (t, _) = lower_text(
            "tosca_definitions_version: tosca_simple_yaml_1_3\n\
             topology_template:\n  node_templates:\n    \
             vm: {type: tosca.nodes.Compute}\n    \
             db: {type: tosca.nodes.Root}\n    \
             app:\n      type: tosca.nodes.SoftwareComponent\n      \
             properties:\n        \
             ip: {get_attribute: [HOST, private_address]}\n        \
             peer: {get_attribute: [SELF, dependency, state]}\n      \
             requirements: [{host: vm}, {dependency: db}]\n",
        );
        let t = t.unwrap();
        let app = t.node(t.node_by_id("app").unwrap());
        let call = |f: &str, a: &[&str]| {
            Value::call(
                f.to_string(),
                a.iter().map(|x| Value::Scalar(x.to_string())).collect(),
            )
        };
        assert_eq!(
            app.properties.get("ip"),
            Some(&call("get_attribute", &["vm", "private_address"]))
        );
        assert_eq!(
            app.properties.get("peer"),
            Some(&call("get_attribute", &["db", "state"]))
        );
    }

    /// The Standard's path through an incoming relationship of a
    /// capability (§10.3 `<cap_context>`) reaches the relationship's source.
    #[test]
    fn a_path_through_an_incoming_relationship_reaches_its_source() {
        let (t, d) = lower_text(
            "tosca_definitions_version: tosca_2_0\nimports:\n  - profile: org.oasis-open.simple:2.0\n\
             capability_types:\n  Feature: {}\n\
             node_types:\n  Right:\n    capabilities:\n      feature: {type: Feature}\n      other: {type: Feature}\n  \
             Left:\n    properties:\n      name: {type: string}\n    \
             requirements:\n      - uses: {capability: feature}\n\
             service_template:\n  node_templates:\n    right:\n      type: Right\n      \
             properties:\n        first: {$get_property: [SELF, CAPABILITY, feature, RELATIONSHIP, 1, SOURCE, name]}\n    \
             a: {type: Left, properties: {name: A}, requirements: [{uses: right}]}\n    \
             b: {type: Left, properties: {name: B}, requirements: [{uses: right}]}\n",
        );
        let t = t.unwrap();
        assert!(!d.has_errors(), "{d:?}");
        let right = t.node_by_id("right").unwrap();
        let v = t.properties(crate::model::TemplateRef::Node(right))["first"]
            .to_json()
            .to_string();
        assert!(v.contains("\"b\"") && v.contains("name"), "{v}");
    }
}
