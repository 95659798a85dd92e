//! Plugins as data: a plugin file teaches toscanini a node type without
//! recompiling; operation plugins carry out Ansible operations; the
//! relationship-configure plugin runs a relationship's own operations; the
//! shipped files cover the corpus; errors in operation plugins are exact.

use std::path::{Path, PathBuf};

use toscanini::diagnostics::SourceMap;
use toscanini::plan::PlanKind;
use toscanini::plugins::steps::{Binding, Step};
use toscanini::plugins::{ConcretePlan, Registry};

use crate::support::{corpus_xml, repo, temp_dir, toscanini};

fn plans(path: &Path, plugin_dirs: &[PathBuf]) -> (toscanini::Loaded, Vec<ConcretePlan>) {
    let mut sources = SourceMap::new();
    let options = toscanini::Options::default();
    let loaded = toscanini::load(path, &options, &mut sources).unwrap();
    let (registry, _) = Registry::standard(plugin_dirs, &mut sources).unwrap();
    let (plans, _) = toscanini::derive(
        &loaded.topology,
        &[PlanKind::Build, PlanKind::Termination],
        &registry,
        &options,
    )
    .unwrap();
    (loaded, plans)
}

/// `target:operation` of every invocation of one activity, in order.
fn calls(loaded: &toscanini::Loaded, plan: &ConcretePlan, activity: &str) -> Vec<String> {
    let t = &loaded.topology;
    let i = plan
        .plan
        .activities
        .iter()
        .position(|a| a.id == activity)
        .unwrap_or_else(|| panic!("no activity {activity}"));
    plan.bodies[i]
        .steps
        .iter()
        .filter_map(Step::invocation)
        .map(|inv| format!("{}:{}", t.template_id(inv.target), inv.operation))
        .collect()
}

fn input<'a>(plan: &'a ConcretePlan, operation: &str, name: &str) -> &'a Binding {
    plan.bodies
        .iter()
        .flat_map(|b| b.steps.iter().filter_map(Step::invocation))
        .filter(|inv| &*inv.operation == operation)
        .flat_map(|inv| inv.inputs.iter())
        .find(|(n, _)| &**n == name)
        .map(|(_, b)| b)
        .unwrap_or_else(|| panic!("no input {name} of {operation}"))
}

#[test]
fn a_plugin_file_teaches_a_new_node_type_without_recompiling() {
    let sample = repo().join("samples/static-website");
    // Nothing built in knows the type: the node is unhandled.
    let dir = temp_dir("plugins-website");
    let out = dir.join("out.csar");
    let without = toscanini(
        &repo(),
        &[
            "plan",
            "samples/static-website",
            "-o",
            out.to_str().unwrap(),
        ],
    );
    assert_eq!(without.code, 1, "{}", without.stderr);
    assert!(without.stderr.contains(
        "error[E0601]: no plugin can provision node template `website` (type `{http://example.org/tosca/website}StaticWebsite`) in the build plan"
    ));
    assert!(without.stderr.contains(
        "= note: nothing-to-do: the node has deployment artifacts (`site`) but no operation that deploys them"
    ));
    // The example plugin is a file read at run time, not part of the binary.
    assert!(
        !toscanini::plugins::declarative::EMBEDDED
            .iter()
            .any(|(name, _)| name.contains("static-website"))
    );
    let with = toscanini(
        &repo(),
        &[
            "plan",
            "samples/static-website",
            "-o",
            out.to_str().unwrap(),
            "--plugins",
            "plugins/examples",
        ],
    );
    assert_eq!(with.code, 0, "{}", with.stderr);
    assert!(out.is_file());

    let (loaded, plans) = plans(&sample, &[repo().join("plugins/examples")]);
    let (build, termination) = (&plans[0], &plans[1]);
    assert_eq!(
        calls(&loaded, build, "website_provision"),
        ["server:transferFile", "server:runScript"]
    );
    assert_eq!(
        calls(&loaded, termination, "website_terminate"),
        ["server:runScript"]
    );
    assert_eq!(
        input(build, "transferFile", "SourceURLorLocalPath"),
        &Binding::ArtifactUrl("files/site.zip".into())
    );
    let i = build
        .plan
        .activities
        .iter()
        .position(|a| a.id == "website_provision")
        .unwrap();
    assert_eq!(build.decisions[i].plugin.as_deref(), Some("static-website"));
}

#[test]
fn ansible_operations_run_the_playbook_on_the_host() {
    let csar = corpus_xml()
        .into_iter()
        .find(|p| p.to_string_lossy().contains("FlinkApp"))
        .expect("the FlinkApp CSAR of the corpus");
    let (loaded, plans) = plans(&csar, &[]);
    let build = &plans[0];
    assert_eq!(
        calls(&loaded, build, "Flink_Simple_provision"),
        ["Ubuntu-14_04-VM:transferFile", "Ubuntu-14_04-VM:runScript"]
    );
    let i = build
        .plan
        .activities
        .iter()
        .position(|a| a.id == "Flink_Simple_provision")
        .unwrap();
    assert!(
        build.decisions[i].notes.contains(
            &"`install` of `Flink_Simple` is carried out by plugin `ansible`".to_string()
        )
    );
    let Binding::Concat(script) = input(build, "runScript", "Script") else {
        panic!("the script is built from parts");
    };
    let text: String = script
        .iter()
        .map(|b| match b {
            Binding::Literal(s) => s.clone(),
            Binding::Concat(_) => "<variables>".into(),
            other => format!("<{other:?}>"),
        })
        .collect();
    assert!(
        text.ends_with(
            "cd ~/FlinkApp_ServiceTemplate/ansible && unzip -o -q Flink_Simple4OpenTOSCA.zip && ansible-playbook --connection=local -i localhost, base.yml <variables>"
        ),
        "{text}"
    );
}

#[test]
fn relationship_operations_run_on_their_ends_in_configure_order() {
    let (loaded, plans) = plans(&repo().join("tests/plugins/relationship-configure"), &[]);
    let (build, termination) = (&plans[0], &plans[1]);
    assert_eq!(
        calls(&loaded, build, "worker_uses_queue_provision"),
        [
            "worker_uses_queue:post_configure_source",
            "worker_uses_queue:add_source"
        ]
    );
    assert_eq!(
        calls(&loaded, termination, "worker_uses_queue_terminate"),
        ["worker_uses_queue:remove_target"]
    );
    // post_configure_source runs on the source: its input comes from the
    // target; add_source runs on the target: its input from the source.
    let owner = |b: &Binding| match b {
        Binding::Property(p) => loaded.topology.template_id(p.template).to_string(),
        other => panic!("{other:?}"),
    };
    assert_eq!(
        owner(input(build, "post_configure_source", "QueueURL")),
        "queue"
    );
    assert_eq!(owner(input(build, "add_source", "ClientName")), "worker");
}

#[test]
fn the_shipped_plugin_files_cover_the_corpus() {
    // Every node of the XML corpus without lifecycle operations is handled
    // by a shipped plugin file, or needs nothing (already running, or no
    // operations at all).
    let shipped: Vec<String> = {
        let mut sources = SourceMap::new();
        let (registry, _) = Registry::standard(&[], &mut sources).unwrap();
        registry
            .plugins()
            .iter()
            .filter(|p| p.origin().starts_with("plugins/"))
            .map(|p| p.id().to_string())
            .collect()
    };
    let mut by_plugin = std::collections::BTreeMap::<String, usize>::new();
    for csar in corpus_xml() {
        let mut sources = SourceMap::new();
        let options = toscanini::Options::default();
        let Ok(loaded) = toscanini::load(&csar, &options, &mut sources) else {
            continue; // rejected inputs: see corpus.rs
        };
        let (registry, _) = Registry::standard(&[], &mut sources).unwrap();
        let (plans, _) =
            toscanini::derive(&loaded.topology, &[PlanKind::Build], &registry, &options).unwrap();
        let build = &plans[0];
        for (a, d) in build.plan.activities.iter().zip(&build.decisions) {
            let toscanini::model::TemplateRef::Node(_) = a.template else {
                continue;
            };
            let plugin = d.plugin.as_deref().unwrap_or_default().to_string();
            if plugin == "lifecycle" {
                continue;
            }
            assert!(
                shipped.contains(&plugin)
                    || ["existing", "nothing-to-do"].contains(&plugin.as_str()),
                "{}: `{}` is handled by `{plugin}`",
                csar.display(),
                a.id
            );
            *by_plugin.entry(plugin).or_default() += 1;
        }
    }
    // The type plugins the corpus needs are all at work.
    for id in ["vm-on-cloud-provider", "docker-container", "platform"] {
        assert!(
            by_plugin.get(id).copied().unwrap_or(0) > 0,
            "{id}: {by_plugin:?}"
        );
    }
}

#[test]
fn operation_plugin_mistakes_are_exact_diagnostics() {
    let dir = temp_dir("plugins-operation-errors");
    let check = |file: &str, text: &str| {
        std::fs::write(dir.join(file), text).unwrap();
        let run = toscanini(&dir, &["plugins", "check", file]);
        assert_eq!(run.code, 1, "{}", run.stdout);
        run.stderr
    };
    assert_eq!(
        check(
            "a.yaml",
            "plugin: a\ndescription: b\nmatch:\n  type: X\nbuild:\n  - invoke: operation\n"
        ),
        "error[E0602]: `invoke: operation` (the operation being carried out) belongs in the `run` steps of an operation plugin\n --> a.yaml:6:13\n  |\n6 |   - invoke: operation\n  |             ^^^^^^^^^\n  = hint: see plugins/README.md for the plugin file format\n\n1 error\n"
    );
    assert_eq!(
        check(
            "b.yaml",
            "plugin: b\ndescription: c\napplies_to: operation\nmatch:\n  type: X\nrun:\n  - invoke: I/op\n    inputs:\n      A: {implementation: jar}\n"
        ),
        "error[E0602]: `implementation` is `url`, `file` or `path`, not `jar`\n --> b.yaml:9:27\n  |\n9 |       A: {implementation: jar}\n  |                           ^^^\n  = hint: see plugins/README.md for the plugin file format\n\nerror[E0602]: operation plugin `b` needs `match.artifact_type`\n --> b.yaml:1:1\n  |\n1 | plugin: b\n  | ^^^^^^^^^\n  = hint: see plugins/README.md for the plugin file format\n\n2 errors\n"
    );
    assert_eq!(
        check(
            "c.yaml",
            "plugin: c\ndescription: d\nmatch:\n  type: X\nbuild:\n  - state: CREATED\n    on: host\n"
        ),
        "error[E0602]: `on` has no effect in a `state` step\n --> c.yaml:7:5\n  |\n7 |     on: host\n  |     ^^\n  = hint: see plugins/README.md for the plugin file format\n\n1 error\n"
    );
}
