//! Nodes that exist before the plan runs: OpenTOSCA's `State=Running`
//! convention, and abstract TOSCA 1.0 node types without implementations
//! (e.g. an `OperatingSystem` given by `instanceRef`). They are registered
//! in the instance data, never provisioned, and never terminated.

use super::api::{Body, Context, Outcome, Plugin, Role};
use crate::model::TemplateRef;
use crate::plan::{Activity, ActivityKind};

/// The built-in plugin for existing nodes.
pub(super) struct Existing;

impl Plugin for Existing {
    fn id(&self) -> &str {
        "existing"
    }
    fn priority(&self) -> i32 {
        1000
    }
    fn role(&self) -> Role {
        Role::Type
    }
    fn summary(&self) -> String {
        "nodes that already run (property State=Running) or are abstract: registered only".into()
    }
    fn origin(&self) -> String {
        "built-in".into()
    }

    fn handle(&self, cx: &Context, activity: &Activity) -> Outcome {
        let TemplateRef::Node(n) = activity.template else {
            return Outcome::NotApplicable;
        };
        let node = cx.topology.node(n);
        let implemented = node.implements_any();
        let why = if node.running {
            "it is already running (State=Running)"
        } else if node.is_abstract && !implemented {
            "its type is abstract and has no implementation"
        } else {
            return Outcome::Declined("the node is neither running nor abstract".into());
        };
        Outcome::Handled(Body::nothing(match activity.kind {
            ActivityKind::Terminate => {
                format!("not terminated: {why}, so the plans never created it")
            }
            _ => format!("registered, not provisioned: {why}"),
        }))
    }
}
