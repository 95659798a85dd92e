//! The update plugin: the activities of an update plan. `update` of the
//! node's `UpdateManagementInterface` on the node updated; on each node
//! that sits on it, lifecycle `stop` before (a freezable node's state
//! saved first, through `freeze`) and lifecycle `start` after (its state
//! restored after, through `defrost`), with the instance states around
//! them. A node without `stop` keeps running through the update, with
//! warning W0510: nothing silent.
//!
//! In: an update, stop or start activity. Out: its steps.

use super::api::{Body, Context, Outcome, Plugin, Role};
use super::conventions::{is_lifecycle, states};
use super::invoke::{Call, node_operation, own_operation};
use super::state::state_location;
use super::steps::{Binding, Step};
use crate::diagnostics::{Diagnostic, codes};
use crate::model::{Interface, Name, NodeId, Operation, TemplateRef, Topology};
use crate::plan::features::{
    STATE_STORE_INPUT, defrostable, freezable, saves_state, update_operation,
};
use crate::plan::{Activity, ActivityKind};

/// The built-in update plugin.
pub(super) struct Update;

impl Plugin for Update {
    fn id(&self) -> &str {
        "update"
    }
    fn priority(&self) -> i32 {
        0
    }
    fn role(&self) -> Role {
        Role::Feature
    }
    fn summary(&self) -> String {
        "update plans: UpdateManagementInterface update; what sits on the node stopped (frozen) before, started (defrosted) after"
            .into()
    }
    fn origin(&self) -> String {
        "built-in".into()
    }

    fn handle(&self, cx: &Context, activity: &Activity) -> Outcome {
        let TemplateRef::Node(n) = activity.template else {
            return Outcome::NotApplicable;
        };
        let t = cx.topology;
        match activity.kind {
            ActivityKind::Update => match update_operation(t, n) {
                Ok((iface, op)) => {
                    let mut body = Body::default();
                    body.steps
                        .push(own_operation(t, n, &iface.name, op, &mut body.notes));
                    Outcome::Handled(body)
                }
                Err(why) => Outcome::Declined(why),
            },
            ActivityKind::Stop => Outcome::Handled(stop(t, n, activity.template)),
            ActivityKind::Start => Outcome::Handled(start(t, n, activity.template)),
            _ => Outcome::NotApplicable,
        }
    }
}

/// Save the state of a freezable node, then stop it.
fn stop(t: &Topology, n: NodeId, template: TemplateRef) -> Body {
    let mut body = Body::default();
    if freezable(t, n).is_ok()
        && let Ok((iface, op)) = saves_state(t, n)
    {
        let explicit = [(Name::from(STATE_STORE_INPUT), state_location(t, n))];
        body.steps
            .push(call(t, n, iface, op, &explicit, &mut body.notes));
        body.notes
            .push("freezable: its state is saved before it is stopped".into());
    }
    match lifecycle(t, n, "stop") {
        Some((iface, op)) => body
            .steps
            .extend(around(t, n, template, iface, op, &mut body.notes)),
        None => {
            let node = t.node(n);
            body.warnings.push(
                Diagnostic::warning(
                    codes::W_NOT_STOPPED,
                    format!(
                        "the update plan cannot stop `{}`, which sits on a node it updates: it has no implemented lifecycle `stop`, so it keeps running through the update",
                        node.id
                    ),
                )
                .at_opt(node.origin.clone())
                .hint("give its type implemented `stop` and `start` operations"),
            );
            body.notes.push("no lifecycle `stop`: keeps running".into());
        }
    }
    body
}

/// Start a node again, then give a defrostable node its state back.
fn start(t: &Topology, n: NodeId, template: TemplateRef) -> Body {
    let mut body = Body::default();
    match (lifecycle(t, n, "stop"), lifecycle(t, n, "start")) {
        (Some(_), Some((iface, op))) => {
            body.steps
                .extend(around(t, n, template, iface, op, &mut body.notes))
        }
        (None, _) => body.notes.push("was not stopped: nothing to start".into()),
        (Some(_), None) => {
            // Stopped, and no `start` to undo it: only the state says so.
            body.notes
                .push("no lifecycle `start`: marked started after the update".into());
            body.steps
                .push(Step::SetState(template, super::steps::state::STARTED));
        }
    }
    if let Ok((iface, op)) = defrostable(t, n) {
        body.steps.push(call(t, n, iface, op, &[], &mut body.notes));
        body.notes
            .push("freezable: its state is restored after it is started".into());
    }
    body
}

/// An operation of the node with the states before and after it.
fn around(
    t: &Topology,
    n: NodeId,
    template: TemplateRef,
    iface: &Interface,
    op: &Operation,
    notes: &mut Vec<String>,
) -> Vec<Step> {
    let (before, after) = states(&op.name);
    vec![
        Step::SetState(template, before),
        own_operation(t, n, &iface.name, op, notes),
        Step::SetState(template, after),
    ]
}

fn call(
    t: &Topology,
    n: NodeId,
    iface: &Interface,
    op: &Operation,
    explicit: &[(Name, Binding)],
    notes: &mut Vec<String>,
) -> Step {
    let call = Call {
        target: n,
        context: n,
        interface: &iface.name,
        operation: op,
        inputs: explicit,
        outputs: &[],
    };
    node_operation(t, call, notes)
}

/// The node's implemented lifecycle operation `name`, from the first
/// lifecycle interface that has it.
fn lifecycle<'t>(t: &'t Topology, n: NodeId, name: &str) -> Option<(&'t Interface, &'t Operation)> {
    t.node(n)
        .interfaces
        .iter()
        .filter(|i| is_lifecycle(i))
        .find_map(|i| i.operation(name).map(|o| (i, o)))
        .filter(|(_, o)| o.implementation.is_some())
}
