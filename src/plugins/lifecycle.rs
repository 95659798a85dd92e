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
        if ops.is_empty() && !unimplemented.is_empty() {
            return nothing_implemented(cx, n, activity, &unimplemented);
        }
        let mut body = Body::default();
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
        let provision = activity.kind == ActivityKind::Provision;
        if provision {
            upload_artifacts(cx.topology, n, &mut body);
        }
        run_operations(cx.topology, n, activity, &ops, &mut body);
        if provision {
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

/// The outcome when none of the operations the activity needs is
/// implemented (`unimplemented` names them): provisioning is declined;
/// termination only marks the instance deleted, with a warning in TOSCA
/// 1.0 (in YAML an unimplemented operation is a no-op, 1.3 §5.8.1).
fn nothing_implemented(
    cx: &Context,
    n: NodeId,
    activity: &Activity,
    unimplemented: &[String],
) -> Outcome {
    let node = cx.topology.node(n);
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
    // deleted (the host's termination removes what runs on it).
    let mut body = Body::default();
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
        .hint(
            "add implementation artifacts for these operations, or remove them from the node type",
        ),
    );
    body.notes
        .push(format!("{why}; the instance is only marked deleted"));
    Outcome::Handled(body)
}

/// The steps of the implemented lifecycle operations `ops`, each between
/// the states it moves the node through; when provisioning, the
/// relationships' Configure operations are woven around `configure` (YAML:
/// pre_configure before it, post_configure after it, or before `start`
/// when there is no `configure`).
fn run_operations(
    topology: &Topology,
    n: NodeId,
    activity: &Activity,
    ops: &[(&Interface, &Operation)],
    body: &mut Body,
) {
    let (mut pre, mut post) = if activity.kind == ActivityKind::Provision {
        (
            Some(woven(topology, n, Phase::Pre, &mut body.notes)),
            Some(woven(topology, n, Phase::Post, &mut body.notes)),
        )
    } else {
        (None, None)
    };
    for (iface, op) in ops {
        if matches!(&*op.name, "configure" | "start") {
            body.steps.extend(pre.take().unwrap_or_default());
        }
        if &*op.name == "start" {
            body.steps.extend(post.take().unwrap_or_default());
        }
        let (before, after) = states(&op.name);
        body.steps.push(Step::SetState(activity.template, before));
        let step = own_operation(topology, n, &iface.name, op, &mut body.notes);
        body.steps.push(step);
        body.steps.push(Step::SetState(activity.template, after));
        if &*op.name == "configure" {
            body.steps.extend(post.take().unwrap_or_default());
        }
    }
    body.steps.extend(pre.take().unwrap_or_default());
    body.steps.extend(post.take().unwrap_or_default());
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
    let files: Vec<(&str, &str, Option<&str>)> = node
        .artifacts
        .iter()
        .flat_map(|a| {
            // A deploy_path is the one file's: an artifact of several
            // (none in YAML) keeps the default places.
            let at = a.deploy_path.as_deref().filter(|_| a.files.len() == 1);
            a.files
                .iter()
                .map(move |f| (a.name.as_str(), f.as_str(), at))
        })
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
                    files.iter().map(|(a, _, _)| format!("`{a}`")).collect::<Vec<_>>().join(", ")
                ),
            )
            .at_opt(node.origin.clone())
            .hint("host the node on a VM or container whose type offers transferFile, or upload the files in an install script"),
        );
        return;
    };
    let dir = &topology.service_template.id;
    for (_, file, at) in files {
        let target = match at {
            Some(at) => at.to_string(),
            None => format!("~/{dir}/{}", target_path(file)),
        };
        let explicit = vec![
            (Name::from("TargetAbsolutePath"), Binding::Literal(target)),
            (Name::from("SourceURLorLocalPath"), Binding::artifact(file)),
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

/// Where an uploaded artifact goes below the service template's directory:
/// a CSAR file or directory (`dir/`) at its path, a URL's file at its name
/// (`https://host/a/app.tar.gz`: `app.tar.gz`).
fn target_path(file: &str) -> &str {
    match file.split_once("://") {
        Some((_, rest)) => rest
            .trim_end_matches('/')
            .rsplit('/')
            .next()
            .unwrap_or(rest),
        None => file,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::plan::{AbstractPlan, PlanKind};
    use crate::plugins::api::PluginOptions;

    #[test]
    fn uploads_go_to_the_path_or_the_url_file_name() {
        assert_eq!(target_path("files/app.war"), "files/app.war");
        assert_eq!(target_path("scripts/lib/"), "scripts/lib/");
        assert_eq!(
            target_path("https://example.com/a/app.tar.gz"),
            "app.tar.gz"
        );
        assert_eq!(target_path("https://example.com/"), "example.com");
    }

    /// `db` implements create and start; `app` (hosted on it, connected to
    /// it with a pre_configure_source script) implements configure; `old`
    /// implements nothing of its lifecycle.
    fn topology() -> Topology {
        let yaml = "tosca_definitions_version: tosca_simple_yaml_1_3\n\
            topology_template:\n  node_templates:\n    \
            db:\n      type: tosca.nodes.Compute\n      \
            interfaces: {Standard: {create: c.sh, start: s.sh}}\n    \
            app:\n      type: tosca.nodes.SoftwareComponent\n      \
            interfaces: {Standard: {configure: conf.sh}}\n      \
            requirements:\n        - host: db\n        \
            - dependency:\n            node: db\n            \
            relationship:\n              type: tosca.relationships.ConnectsTo\n              \
            interfaces: {Configure: {pre_configure_source: pre.sh}}\n    \
            old:\n      type: tosca.nodes.SoftwareComponent\n      \
            interfaces: {Standard: {stop: {description: manual}}}\n      \
            requirements: [{host: db}]\n";
        crate::model::lower_yaml::topology_of(yaml)
    }

    fn handle(t: &Topology, node: &str, kind: ActivityKind) -> Outcome {
        let plan = AbstractPlan {
            kind: PlanKind::Build,
            activities: Vec::new(),
            edges: Vec::new(),
        };
        let options = PluginOptions::default();
        let cx = Context {
            topology: t,
            plan: &plan,
            options: &options,
            reasons: true,
        };
        let activity = Activity {
            id: "a".into(),
            template: TemplateRef::Node(t.node_by_id(node).unwrap()),
            kind,
        };
        Lifecycle.handle(&cx, &activity)
    }

    fn operations_of(body: &Body) -> Vec<String> {
        body.steps
            .iter()
            .filter_map(|s| match s {
                Step::Invoke(i) => Some(i.operation.to_string()),
                _ => None,
            })
            .collect()
    }

    #[test]
    fn relationship_configure_operations_run_before_configure() {
        let t = topology();
        let Outcome::Handled(body) = handle(&t, "app", ActivityKind::Provision) else {
            panic!("handled")
        };
        assert_eq!(operations_of(&body), ["pre_configure_source", "configure"]);
    }

    #[test]
    fn states_surround_each_operation_and_compensation_undoes_it() {
        let t = topology();
        let Outcome::Handled(body) = handle(&t, "db", ActivityKind::Provision) else {
            panic!("handled")
        };
        assert_eq!(operations_of(&body), ["create", "start"]);
        assert!(
            matches!(body.steps[0], Step::SetState(_, "CREATING")),
            "{:?}",
            body.steps[0]
        );
        assert!(
            body.compensation.is_empty(),
            "db implements no termination operation"
        );
    }

    #[test]
    fn an_unimplemented_yaml_termination_is_a_no_op() {
        let t = topology();
        let Outcome::Handled(body) = handle(&t, "old", ActivityKind::Terminate) else {
            panic!("handled")
        };
        assert!(body.steps.is_empty());
        assert!(body.warnings.is_empty());
        assert!(
            body.notes[0]
                .contains("`Standard/stop`, `Standard/delete` have no implementation artifact"),
            "{:?}",
            body.notes
        );
        assert!(matches!(
            handle(&t, "old", ActivityKind::Provision),
            Outcome::Declined(_)
        ));
    }
}
