//! The Configure interface of TOSCA YAML relationships (1.3 §5.8.5): where
//! its operations run in the plans.
//!
//! - `pre_configure_source` / `pre_configure_target` run in the provisioning
//!   of that end, right before its `configure`; `post_configure_*` right
//!   after it ([`woven`], used by the lifecycle and no-op plugins). Since
//!   the target is started before the source is created (§7.2.2), the
//!   target side cannot see the source's attributes (§7.2.3.3).
//! - `add_target` (on the source) and `add_source` (on the target) run in
//!   the relationship's own activity, which the plans order after both ends
//!   are started; `remove_target` and `remove_source` in its termination,
//!   which runs before either end is stopped (uninstall mirrors install).
//!
//! Unimplemented operations are no-ops (§5.8.1) and only noted.

use super::api::{Body, Context, Outcome, Plugin, Role};
use super::params::{bind_on_node, value_binding};
use super::steps::{Binding, Invocation, PropertyRef, Step};
use crate::model::{
    Dialect, Name, NodeId, Operation, RELATIONSHIP_CONFIGURE, RelId, TemplateRef, Topology,
};
use crate::plan::{Activity, ActivityKind};

/// The implemented Configure operation `op` of `rel`, with its interface name.
fn configure_op<'a>(t: &'a Topology, rel: RelId, op: &str) -> Option<(&'a Name, &'a Operation)> {
    t.relationship(rel)
        .interfaces
        .iter()
        .filter(|i| i.is_a(RELATIONSHIP_CONFIGURE))
        .find_map(|i| i.operation(op).map(|o| (&i.name, o)))
}

/// Whether a relationship declares a Configure operation named `op` without
/// implementing it.
fn declared_only(t: &Topology, rel: RelId, op: &str) -> bool {
    configure_op(t, rel, op).is_some_and(|(_, o)| o.implementation.is_none())
}

/// Which half of a node's configure a step belongs to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Phase {
    /// `pre_configure_*`: before the node's `configure`.
    Pre,
    /// `post_configure_*`: after it.
    Post,
}

/// The relationship operations that run inside `node`'s configure phase:
/// for every relationship it is the source of, `<phase>_configure_source`,
/// then for every one it is the target of, `<phase>_configure_target`.
pub(crate) fn woven(
    t: &Topology,
    node: NodeId,
    phase: Phase,
    notes: &mut Vec<String>,
) -> Vec<Step> {
    let prefix = match phase {
        Phase::Pre => "pre_configure",
        Phase::Post => "post_configure",
    };
    let mut steps = Vec::new();
    let sides = [
        (t.outgoing(node), "source", true),
        (t.incoming(node), "target", false),
    ];
    for (rels, side, is_source) in sides {
        for &r in rels {
            let op = format!("{prefix}_{side}");
            match configure_op(t, r, &op) {
                Some((iface, o)) if o.implementation.is_some() => {
                    let executing = if is_source {
                        t.relationship(r).source
                    } else {
                        t.relationship(r).target
                    };
                    steps.push(invoke_relationship(t, r, executing, iface, o, notes));
                    notes.push(format!(
                        "`{op}` of relationship `{}` runs here, {} `configure`",
                        t.relationship(r).id,
                        if phase == Phase::Pre {
                            "before"
                        } else {
                            "after"
                        }
                    ));
                }
                _ => {}
            }
        }
    }
    steps
}

/// An invocation of a relationship operation, executed on `executing`'s side.
pub(crate) fn invoke_relationship(
    t: &Topology,
    rel: RelId,
    executing: NodeId,
    interface: &Name,
    op: &Operation,
    notes: &mut Vec<String>,
) -> Step {
    let r = t.relationship(rel);
    let other = if executing == r.source {
        r.target
    } else {
        r.source
    };
    let mut inputs = Vec::new();
    for p in &op.inputs {
        if let Some(v) = &p.value {
            inputs.push((
                p.name.clone(),
                value_binding(t, TemplateRef::Relationship(rel), v),
            ));
            continue;
        }
        if r.properties.contains_key(&*p.name) {
            inputs.push((
                p.name.clone(),
                Binding::Property(PropertyRef {
                    template: TemplateRef::Relationship(rel),
                    name: p.name.clone(),
                }),
            ));
            continue;
        }
        match [executing, other]
            .iter()
            .find_map(|&n| bind_on_node(t, n, &p.name, p.required))
        {
            Some((b, note)) => {
                notes.extend(note.map(|n| format!("{}: {n}", op.name)));
                inputs.push((p.name.clone(), b));
            }
            None if p.required => {
                notes.push(format!(
                    "{}: input `{}` ← plan input `{}`",
                    op.name, p.name, p.name
                ));
                inputs.push((p.name.clone(), Binding::Input(p.name.clone())));
            }
            None => notes.push(format!(
                "{}: optional input `{}` left unset",
                op.name, p.name
            )),
        }
    }
    // Outputs mapped onto attributes (`[SOURCE, attr]`) are stored there.
    let outputs = op
        .outputs
        .iter()
        .filter_map(|o| {
            let crate::model::Value::List(parts) = o.value.as_ref()? else {
                return None;
            };
            let entity = parts.first()?.as_str()?;
            let attr = parts.get(1)?.as_str()?;
            let template = match entity {
                "SOURCE" => TemplateRef::Node(r.source),
                "TARGET" => TemplateRef::Node(r.target),
                "SELF" => TemplateRef::Relationship(rel),
                name => TemplateRef::Node(t.node_by_id(name)?),
            };
            t.properties(template).contains_key(attr).then(|| {
                (
                    o.name.clone(),
                    PropertyRef {
                        template,
                        name: attr.into(),
                    },
                )
            })
        })
        .collect();
    Step::Invoke(Box::new(Invocation {
        target: TemplateRef::Relationship(rel),
        interface: interface.clone(),
        operation: op.name.clone(),
        inputs,
        outputs,
    }))
}

/// The built-in plugin for the activities of YAML relationships.
pub(crate) struct Configure;

impl Plugin for Configure {
    fn id(&self) -> &str {
        "configure"
    }
    fn priority(&self) -> i32 {
        10
    }
    fn role(&self) -> Role {
        Role::Lifecycle
    }
    fn summary(&self) -> String {
        "TOSCA YAML relationships: add_target/add_source once both ends run, remove_target/remove_source before they stop"
            .into()
    }
    fn origin(&self) -> String {
        "built-in".into()
    }

    fn handle(&self, cx: &Context, activity: &Activity) -> Outcome {
        let TemplateRef::Relationship(r) = activity.template else {
            return Outcome::NotApplicable;
        };
        let t = cx.topology;
        if !matches!(t.dialect, Dialect::Yaml(_)) {
            return Outcome::NotApplicable;
        }
        let rel = t.relationship(r);
        let ops: &[(&str, bool)] = match activity.kind {
            ActivityKind::Provision => &[("add_target", true), ("add_source", false)],
            ActivityKind::Terminate => &[("remove_target", true), ("remove_source", false)],
            _ => return Outcome::Declined("runs only provisioning and termination".into()),
        };
        let mut body = Body::default();
        for &(name, on_source) in ops {
            match configure_op(t, r, name) {
                Some((iface, o)) if o.implementation.is_some() => {
                    let executing = if on_source { rel.source } else { rel.target };
                    body.steps.push(invoke_relationship(
                        t,
                        r,
                        executing,
                        iface,
                        o,
                        &mut body.notes,
                    ));
                    body.notes.push(format!(
                        "`{name}` runs on the {} `{}`",
                        if on_source { "source" } else { "target" },
                        t.node(executing).id
                    ));
                }
                _ if declared_only(t, r, name) => {
                    body.notes
                        .push(format!("`{name}` has no implementation: a no-op"));
                }
                _ => {}
            }
        }
        if body.steps.is_empty() {
            body.notes.push(format!(
                "{} relationship: nothing to run at this point",
                rel.kind
            ));
        }
        Outcome::Handled(body)
    }
}
