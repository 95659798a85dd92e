//! The state plugin: saving and restoring the state of a node through its
//! state interface (`http://opentosca.org/interfaces/state`). A freeze or
//! backup activity calls `freeze` with the state-storage input; a defrost
//! activity calls `defrost` (OpenTOSCA matches its inputs over the node's
//! hosting stack, as every operation call here does).
//!
//! In: a freeze, defrost or backup activity. Out: the call that saves or
//! restores the state; the termination or provisioning that goes with a
//! freeze or defrost is added by completion from the plugins that
//! terminate and provision the node.
//!
//! Where the state goes: the plan input `StoreStateServiceEndpoint` is a
//! base URL, and each node's state goes below it under the node template's
//! id (`<endpoint>/<node id>`), so that two freezable nodes never write one
//! place and a defrost finds each node's state under the same name. A
//! `defrost` with a `StoreStateServiceEndpoint` input is given the same URL.

use super::api::{Body, Context, Outcome, Plugin, Role};
use super::invoke::{Call, node_operation};
use super::steps::Binding;
use crate::csar::path::percent_encode;
use crate::model::{Name, NodeId, TemplateRef, Topology};
use crate::plan::features::{STATE_STORE_INPUT, defrostable, saves_state};
use crate::plan::{Activity, ActivityKind};

/// The built-in state plugin.
pub(super) struct State;

impl Plugin for State {
    fn id(&self) -> &str {
        "state"
    }
    fn priority(&self) -> i32 {
        0
    }
    fn role(&self) -> Role {
        Role::Feature
    }
    fn summary(&self) -> String {
        "nodes with the state interface: freeze (save the state to <StoreStateServiceEndpoint>/<node>) and defrost"
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
        let found = match activity.kind {
            ActivityKind::Freeze | ActivityKind::Backup => saves_state(t, n),
            ActivityKind::Defrost => defrostable(t, n),
            _ => return Outcome::NotApplicable,
        };
        let (iface, op) = match found {
            Ok(found) => found,
            Err(why) => return Outcome::Declined(why),
        };
        let explicit: Vec<(Name, Binding)> = op
            .inputs
            .iter()
            .filter(|p| &*p.name == STATE_STORE_INPUT)
            .map(|p| (p.name.clone(), state_location(t, n)))
            .collect();
        let mut body = Body::default();
        let call = Call {
            target: n,
            context: n,
            interface: &iface.name,
            operation: op,
            inputs: &explicit,
            outputs: &[],
        };
        body.steps.push(node_operation(t, call, &mut body.notes));
        if !explicit.is_empty() {
            body.notes.push(format!(
                "the state of `{}` is at plan input `{STATE_STORE_INPUT}` + `/{}`",
                t.node(n).id,
                percent_encode(&t.node(n).id)
            ));
        }
        Outcome::Handled(body)
    }
}

/// Where the state of node `n` is kept: below the plan input, under the
/// node template's id.
pub(crate) fn state_location(topology: &Topology, n: NodeId) -> Binding {
    Binding::Concat(vec![
        Binding::Input(STATE_STORE_INPUT.into()),
        Binding::Literal(format!("/{}", percent_encode(&topology.node(n).id))),
    ])
}
