//! TOSCA YAML nodes whose provisioning is not the plan's own work.
//!
//! - *Delegated* nodes (1.3 §7.2.1.1: abstract nodes — `substitute`,
//!   `select`, a plain Compute with nothing implemented — and the targets of
//!   dangling requirements) are a black box from initial to started. An
//!   OpenTOSCA container cannot create a resource nobody describes, so the
//!   plan's delegate step is: register the instance, mark it started, and
//!   take the attributes other templates read from it from plan inputs
//!   (`<node>_<attribute>`, see `model::lower_yaml`) — whoever calls the
//!   plan supplies the existing resource. Termination marks it deleted and
//!   leaves the resource to whoever supplied it. Lowering warns (W0313) for
//!   every delegated node, so this is never silent.
//! - *No-op* nodes implement no lifecycle operation (every operation is a
//!   no-op, 1.3 §5.8.1) but are hosted on something: nothing runs for them
//!   except the relationship operations woven into their configure phase.

use super::api::{Body, Context, Outcome, Plugin, Role};
use super::configure::{Phase, woven};
use super::conventions::{BUILD_OPERATIONS, is_lifecycle};
use super::steps::Step;
use crate::diagnostics::{Diagnostic, codes};
use crate::model::{Dialect, TemplateRef};
use crate::plan::{Activity, ActivityKind};

/// The built-in plugin for delegated YAML nodes.
pub(super) struct Delegate;

impl Plugin for Delegate {
    fn id(&self) -> &str {
        "delegate"
    }
    fn priority(&self) -> i32 {
        1100
    }
    fn role(&self) -> Role {
        Role::Type
    }
    fn summary(&self) -> String {
        "TOSCA YAML nodes the orchestrator supplies (abstract, selected, dangling requirements): registered as started, attributes from plan inputs"
            .into()
    }
    fn origin(&self) -> String {
        "built-in".into()
    }

    fn handle(&self, cx: &Context, activity: &Activity) -> Outcome {
        let TemplateRef::Node(n) = activity.template else {
            return Outcome::NotApplicable;
        };
        if !matches!(cx.topology.dialect, Dialect::Yaml(_)) {
            return Outcome::NotApplicable;
        }
        let node = cx.topology.node(n);
        if !node.is_abstract && !node.running {
            return Outcome::Declined("the node is not delegated to the orchestrator".into());
        }
        let inputs: Vec<String> = node
            .properties
            .values()
            .filter_map(|v| v.as_input())
            .map(|i| format!("`{i}`"))
            .collect();
        let mut body = Body::nothing(match (&activity.kind, &node.selection) {
            (ActivityKind::Terminate, Some(_)) => {
                "selected: the reference is marked deleted; the existing node is left as it is"
                    .to_string()
            }
            (ActivityKind::Terminate, None) => {
                "delegated: marked deleted; whoever supplied the resource removes it".to_string()
            }
            (_, Some(existing)) => format!(
                "selected (TOSCA 2.0 §7.2): registered as a reference to the existing instance plan input `{}` names, with its properties, once they pass the node_filter",
                existing.input
            ),
            _ => format!(
                "delegated (TOSCA 1.3 §7.2.1.1): registered and marked started, not provisioned{}",
                if inputs.is_empty() {
                    String::new()
                } else {
                    format!("; its values come from plan inputs {}", inputs.join(", "))
                }
            ),
        });
        // Configure operations of its relationships (lowering warns, W0314).
        if activity.kind == ActivityKind::Provision {
            let mut steps = Vec::new();
            if node.selection.is_some() {
                steps.push(Step::UseExisting(n));
            }
            steps.extend(woven(cx.topology, n, Phase::Pre, &mut body.notes));
            steps.extend(woven(cx.topology, n, Phase::Post, &mut body.notes));
            body.steps = steps;
        }
        Outcome::Handled(body)
    }
}

/// The built-in plugin for YAML nodes whose lifecycle is all no-ops.
pub(super) struct NoOp;

impl Plugin for NoOp {
    fn id(&self) -> &str {
        "no-op"
    }
    fn priority(&self) -> i32 {
        -500
    }
    fn role(&self) -> Role {
        Role::Lifecycle
    }
    fn summary(&self) -> String {
        "TOSCA YAML nodes that implement no lifecycle operation (all no-ops): only relationship operations run"
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
        if !matches!(t.dialect, Dialect::Yaml(_)) {
            return Outcome::NotApplicable;
        }
        let node = t.node(n);
        let implemented = node
            .interfaces
            .iter()
            .filter(|i| is_lifecycle(i))
            .flat_map(|i| &i.operations)
            .any(|o| BUILD_OPERATIONS.contains(&&*o.name) && o.implementation.is_some());
        if implemented && activity.kind == ActivityKind::Provision {
            return Outcome::Declined("the node implements lifecycle operations".into());
        }
        let mut body = Body::nothing(
            "no lifecycle operation is implemented: each is a no-op (TOSCA 1.3 §5.8.1)",
        );
        if activity.kind == ActivityKind::Provision {
            let mut notes = Vec::new();
            let mut steps = woven(t, n, Phase::Pre, &mut notes);
            steps.extend(woven(t, n, Phase::Post, &mut notes));
            body.steps = steps;
            body.notes.extend(notes);
            if !node.artifacts.is_empty() {
                let names: Vec<String> = node
                    .artifacts
                    .iter()
                    .map(|a| format!("`{}`", a.name))
                    .collect();
                body.warnings.push(
                    Diagnostic::warning(
                        codes::W_ARTIFACT_NOT_UPLOADED,
                        format!(
                            "the deployment artifacts of `{}` ({}) are not deployed: no operation of the node deploys them",
                            node.id,
                            names.join(", ")
                        ),
                    )
                    .at_opt(node.origin.clone())
                    .hint("name the artifact as the implementation of `create` so that the plan deploys it"),
                );
            }
        }
        Outcome::Handled(body)
    }
}
