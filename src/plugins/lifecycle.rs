//! The lifecycle plugin: type-agnostic, it runs a node's lifecycle
//! interface: `install`/`create`, `configure`, `start` in build plans and
//! `stop`, `uninstall`/`delete` in termination plans (seed 004), setting
//! the instance state around each call. Deployment artifacts are uploaded
//! first through the nearest host that offers `transferFile`.

use super::api::{Body, Context, Outcome, Plugin, Role};
use super::configure::{Phase, woven};
use super::conventions::{BUILD_OPERATIONS, TERMINATION_OPERATIONS, is_lifecycle, states};
use super::invoke::{Call, node_operation, own_operation};
use super::steps::{Binding, Step};
use crate::diagnostics::{Diagnostic, codes};
use crate::model::{Dialect, Interface, Name, NodeId, Operation, TemplateRef, Topology};
use crate::plan::{Activity, ActivityKind};

/// The built-in lifecycle plugin.
pub(super) struct Lifecycle;

impl Plugin for Lifecycle {
    fn id(&self) -> &str {
        "lifecycle"
    }
    fn priority(&self) -> i32 {
        0
    }
    fn role(&self) -> Role {
        Role::Lifecycle
    }
    fn summary(&self) -> String {
        "nodes with a lifecycle interface: install/create, configure, start; stop, uninstall/delete"
            .into()
    }
    fn origin(&self) -> String {
        "built-in".into()
    }

    fn handle(&self, cx: &Context, activity: &Activity) -> Outcome {
        let TemplateRef::Node(n) = activity.template else {
            return Outcome::NotApplicable;
        };
        let node = cx.topology.node(n);
        let lifecycle: Vec<&Interface> =
            node.interfaces.iter().filter(|i| is_lifecycle(i)).collect();
        if lifecycle.is_empty() {
            return Outcome::Declined("the node type has no lifecycle interface".into());
        }
        let names: &[&str] = match activity.kind {
            ActivityKind::Provision => &BUILD_OPERATIONS,
            ActivityKind::Terminate => &TERMINATION_OPERATIONS,
            _ => return Outcome::NotApplicable,
        };
        let ops = operations(&lifecycle, names);
        if ops.is_empty() && activity.kind == ActivityKind::Provision {
            return Outcome::Declined(format!(
                "the lifecycle interface has none of the operations {}",
                names.join(", ")
            ));
        }
        let (ops, unimplemented): (Vec<_>, Vec<_>) = ops
            .into_iter()
            .partition(|(_, o)| o.implementation.is_some());
        let unimplemented: Vec<String> = unimplemented
            .iter()
            .map(|(i, o)| format!("`{}/{}`", i.name, o.name))
            .collect();
        let mut body = Body::default();
        if ops.is_empty() && !unimplemented.is_empty() {
            let why = format!(
                "{} {} no implementation artifact, so the management bus cannot run {}",
                unimplemented.join(", "),
                if unimplemented.len() == 1 {
                    "has"
                } else {
                    "have"
                },
                if unimplemented.len() == 1 {
                    "it"
                } else {
                    "them"
                }
            );
            if activity.kind == ActivityKind::Provision {
                return Outcome::Declined(why);
            }
            // Nothing implements the way down: the instance is only marked
            // deleted (the host's termination removes what runs on it). In
            // TOSCA YAML an unimplemented operation is a no-op (1.3 §5.8.1).
            if matches!(cx.topology.dialect, Dialect::Yaml(_)) {
                body.notes.push(format!(
                    "{why}; they are no-ops, the instance is only marked deleted"
                ));
                return Outcome::Handled(body);
            }
            body.warnings.push(
                Diagnostic::warning(
                    codes::W_NO_IMPLEMENTATION,
                    format!("`{}` cannot be stopped or uninstalled: {why}", node.id),
                )
                .at_opt(node.origin.clone())
                .hint("add implementation artifacts for these operations, or remove them from the node type"),
            );
            body.notes
                .push(format!("{why}; the instance is only marked deleted"));
            return Outcome::Handled(body);
        }
        if !unimplemented.is_empty() {
            // TOSCA: an operation without implementation is a no-op.
            body.notes.push(format!(
                "skipped (no implementation artifact): {}",
                unimplemented.join(", ")
            ));
        }
        if ops.is_empty() {
            body.notes
                .push("the lifecycle interface has no termination operations".into());
            return Outcome::Handled(body);
        }
        if activity.kind == ActivityKind::Provision {
            upload_artifacts(cx.topology, n, &mut body);
        }
        // Relationship Configure operations around `configure` (YAML).
        let provision = activity.kind == ActivityKind::Provision;
        let (mut pre, mut post) = if provision {
            (
                Some(woven(cx.topology, n, Phase::Pre, &mut body.notes)),
                Some(woven(cx.topology, n, Phase::Post, &mut body.notes)),
            )
        } else {
            (None, None)
        };
        for (iface, op) in &ops {
            if matches!(&*op.name, "configure" | "start") {
                body.steps.extend(pre.take().unwrap_or_default());
            }
            if &*op.name == "start" {
                body.steps.extend(post.take().unwrap_or_default());
            }
            let (before, after) = states(&op.name);
            body.steps.push(Step::SetState(activity.template, before));
            let step = own_operation(cx.topology, n, &iface.name, op, &mut body.notes);
            body.steps.push(step);
            body.steps.push(Step::SetState(activity.template, after));
            if &*op.name == "configure" {
                body.steps.extend(post.take().unwrap_or_default());
            }
        }
        body.steps.extend(pre.take().unwrap_or_default());
        body.steps.extend(post.take().unwrap_or_default());
        if activity.kind == ActivityKind::Provision {
            for (iface, op) in operations(&lifecycle, &TERMINATION_OPERATIONS) {
                if op.implementation.is_some() {
                    let step = own_operation(cx.topology, n, &iface.name, op, &mut Vec::new());
                    body.compensation.push(step);
                }
            }
        }
        Outcome::Handled(body)
    }
}

/// The operations named in `names` (in that order), each from the first
/// lifecycle interface that has it.
fn operations<'a>(
    interfaces: &[&'a Interface],
    names: &[&str],
) -> Vec<(&'a Interface, &'a Operation)> {
    names
        .iter()
        .filter_map(|name| {
            interfaces
                .iter()
                .find_map(|i| i.operation(name).map(|o| (*i, o)))
        })
        .collect()
}

/// Upload the node's deployment artifacts through the nearest node below it
/// that offers `transferFile` (a VM's or a container's management interface).
fn upload_artifacts(topology: &Topology, n: NodeId, body: &mut Body) {
    let node = topology.node(n);
    let files: Vec<(&str, &str)> = node
        .artifacts
        .iter()
        .flat_map(|a| a.files.iter().map(move |f| (a.name.as_str(), f.as_str())))
        .filter(|(_, f)| !f.contains("://"))
        .collect();
    if files.is_empty() {
        return;
    }
    let host = topology.stack_below(n).into_iter().find_map(|h| {
        topology
            .node(h)
            .find_operation("transferFile")
            .map(|(i, o)| (h, i, o))
    });
    let Some((h, iface, op)) = host else {
        body.warnings.push(
            Diagnostic::warning(
                codes::W_ARTIFACT_NOT_UPLOADED,
                format!(
                    "the deployment artifacts of `{}` ({}) are not uploaded: no node below it offers `transferFile`",
                    node.id,
                    files.iter().map(|(a, _)| format!("`{a}`")).collect::<Vec<_>>().join(", ")
                ),
            )
            .at_opt(node.origin.clone())
            .hint("host the node on a VM or container whose type offers transferFile, or upload the files in an install script"),
        );
        return;
    };
    let dir = &topology.service_template.id;
    for (_, file) in files {
        let explicit = vec![
            (
                Name::from("TargetAbsolutePath"),
                Binding::Literal(format!("~/{dir}/{file}")),
            ),
            (
                Name::from("SourceURLorLocalPath"),
                Binding::ArtifactUrl(file.to_string()),
            ),
        ];
        let call = Call {
            target: h,
            context: h,
            interface: &iface.name,
            operation: op,
            inputs: &explicit,
            outputs: &[],
        };
        let step = node_operation(topology, call, &mut body.notes);
        body.notes.push(format!(
            "uploads `{file}` with `{}` of `{}`",
            op.name,
            topology.node(h).id
        ));
        body.steps.push(step);
    }
}
