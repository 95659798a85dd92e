//! The connectsTo plugin (seed 004, "ConnectTo Operational Semantics"): for
//! a ConnectsTo relationship from A to B, run `connectTo` on B, then on A,
//! if they have it. Interfaces named `…/connections/source[/Type]` apply
//! only on the source end (and only towards a target of that type),
//! `…/connections/target[/Type]` only on the target end. `connectTo` is
//! wrapped in the node's lifecycle `stop`/`start` unless it is declared in
//! the `…/connections/nonInterruptive` interface (OpenTOSCA's reading;
//! [`NonInterruptive::Literal`] gives the seed's literal one).

use super::api::{Body, Context, NonInterruptive, Outcome, Plugin, Role};
use super::conventions::{
    CONNECT_TO, CONNECTIONS_SOURCE, CONNECTIONS_TARGET, NON_INTERRUPTIVE, is_lifecycle,
};
use super::invoke::own_operation;
use super::params::bind_relationship_inputs;
use super::steps::{Invocation, Step};
use crate::model::{Interface, NodeId, Operation, RelId, RelKind, TemplateRef, Topology};
use crate::plan::{Activity, ActivityKind};

/// The built-in connectsTo plugin.
pub(super) struct ConnectsTo;

impl Plugin for ConnectsTo {
    fn id(&self) -> &str {
        "connects-to"
    }
    fn priority(&self) -> i32 {
        0
    }
    fn role(&self) -> Role {
        Role::Type
    }
    fn summary(&self) -> String {
        "ConnectsTo relationships (and subtypes): connectTo on the target, then on the source"
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
        let rel = t.relationship(r);
        if rel.kind != RelKind::ConnectsTo {
            return Outcome::Declined(format!(
                "handles ConnectsTo relationships only, this is {}",
                rel.kind
            ));
        }
        let ends = [(rel.target, false), (rel.source, true)];
        let chosen: Vec<(NodeId, &Interface, &Operation, Vec<String>)> = ends
            .iter()
            .filter_map(|&(n, is_source)| {
                let peer = if is_source { rel.target } else { rel.source };
                pick(t, n, peer, is_source).map(|(i, o, notes)| (n, i, o, notes))
            })
            .collect();
        if chosen.is_empty() {
            return Outcome::Declined(
                "neither end offers a connectTo operation for this connection".into(),
            );
        }
        if activity.kind == ActivityKind::Terminate {
            return Outcome::Handled(Body::nothing(
                "connectTo has no inverse in the OpenTOSCA conventions; nothing is disconnected",
            ));
        }
        if activity.kind != ActivityKind::Provision {
            return Outcome::NotApplicable;
        }
        let mut body = Body::default();
        for (n, iface, op, notes) in chosen {
            body.notes.extend(notes);
            let wrap = match cx.options.non_interruptive {
                NonInterruptive::OpenTosca => &*iface.name != NON_INTERRUPTIVE,
                NonInterruptive::Literal => &*iface.name == NON_INTERRUPTIVE,
            };
            let lifecycle = |name: &str| {
                t.node(n)
                    .interfaces
                    .iter()
                    .filter(|i| is_lifecycle(i))
                    .find_map(|i| {
                        i.operation(name)
                            .filter(|o| o.implementation.is_some())
                            .map(|o| (i, o))
                    })
            };
            let stop_start = match (wrap, lifecycle("stop"), lifecycle("start")) {
                (true, Some(stop), Some(start)) => Some((stop, start)),
                _ => None,
            };
            if let Some(((si, so), _)) = stop_start {
                body.steps
                    .push(own_operation(t, n, &si.name, so, &mut body.notes));
            }
            body.steps
                .push(connect(t, r, n, iface, op, &mut body.notes));
            if let Some((_, (ti, to))) = stop_start {
                body.steps
                    .push(own_operation(t, n, &ti.name, to, &mut body.notes));
                body.notes.push(format!(
                    "connectTo on `{}` is wrapped in stop/start",
                    t.node(n).id
                ));
            }
        }
        Outcome::Handled(body)
    }
}

fn connect(
    t: &Topology,
    r: RelId,
    n: NodeId,
    iface: &Interface,
    op: &Operation,
    notes: &mut Vec<String>,
) -> Step {
    let bound = bind_relationship_inputs(t, r, n, op);
    notes.extend(
        bound
            .notes
            .into_iter()
            .map(|x| format!("connectTo on `{}`: {x}", t.node(n).id)),
    );
    Step::Invoke(Box::new(Invocation {
        target: TemplateRef::Node(n),
        interface: iface.name.clone(),
        operation: op.name.clone(),
        inputs: bound.inputs,
        outputs: Vec::new(),
    }))
}

/// The `connectTo` operation that node `n` runs for this connection, if any.
fn pick(
    t: &Topology,
    n: NodeId,
    peer: NodeId,
    is_source: bool,
) -> Option<(&Interface, &Operation, Vec<String>)> {
    let peer_names: Vec<String> = t
        .types
        .ancestry(t.node(peer).type_id)
        .into_iter()
        .map(|ty| t.types.get(ty).name.unversioned().to_string())
        .collect();
    let applicable: Vec<(&Interface, &Operation, bool)> = t
        .node(n)
        .interfaces
        .iter()
        .filter_map(|i| i.operation(CONNECT_TO).map(|o| (i, o)))
        .filter_map(|(i, o)| {
            let (own, other) = if is_source {
                (CONNECTIONS_SOURCE, CONNECTIONS_TARGET)
            } else {
                (CONNECTIONS_TARGET, CONNECTIONS_SOURCE)
            };
            let name = i.name.trim_end_matches('/');
            if name == other || name.starts_with(&format!("{other}/")) {
                return None;
            }
            if name == own {
                return Some((i, o, true));
            }
            if let Some(ty) = name.strip_prefix(&format!("{own}/")) {
                return peer_names.iter().any(|p| p == ty).then_some((i, o, true));
            }
            // Not the naming convention: applies in both roles. An interface
            // whose last segment names the peer type is the better match.
            let segment = name.rsplit('/').next().unwrap_or("").to_ascii_lowercase();
            let names_peer = !segment.is_empty()
                && peer_names
                    .iter()
                    .any(|p| p.to_ascii_lowercase().contains(&segment));
            Some((i, o, names_peer))
        })
        .collect();
    let best = applicable
        .iter()
        .find(|(_, _, preferred)| *preferred)
        .or_else(|| applicable.first())?;
    let mut notes = Vec::new();
    if applicable.len() > 1 {
        notes.push(format!(
            "`{}` has {} connectTo operations; `{}` is used for `{}`",
            t.node(n).id,
            applicable.len(),
            best.0.name,
            t.node(peer).id
        ));
    }
    Some((best.0, best.1, notes))
}
