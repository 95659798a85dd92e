//! Transformation plans (issue 19, item 2): from a running instance of A to
//! one of B. The corpus pair `MyTinyToDo-DockerEngine-Test_w1-wip1` →
//! `MultiMyTinyToDo-DockerEngine-Test_w1-wip1` (two more containers on the
//! kept engine) and the YAML pair `tests/features/transform-yaml-a` → `-b`
//! (a database replaced, the application reconnected): what is kept,
//! terminated and provisioned, the order, the CLI, snapshots.

use std::path::{Path, PathBuf};

use toscanini::diagnostics::SourceMap;
use toscanini::plan::ActivityKind;
use toscanini::plugins::{ConcretePlan, Registry};

use crate::support::{id_pairs as set, plan_edges as edges, repo, shared, toscanini as run};

fn corpus(name: &str) -> PathBuf {
    shared().join("corpus/xml").join(format!("{name}.csar"))
}

fn mytinytodo() -> (PathBuf, PathBuf) {
    (
        corpus("opentosca-test__MyTinyToDo-DockerEngine-Test_w1-wip1"),
        corpus("opentosca-test__MultiMyTinyToDo-DockerEngine-Test_w1-wip1"),
    )
}

fn yaml_pair() -> (PathBuf, PathBuf) {
    (
        repo().join("tests/features/transform-yaml-a"),
        repo().join("tests/features/transform-yaml-b"),
    )
}

/// The transformation from `a` to `b`, completed, with its report.
fn transform(a: &Path, b: &Path) -> (toscanini::Loaded, toscanini::Transformation, ConcretePlan) {
    let mut sources = SourceMap::new();
    let options = toscanini::Options::default();
    let la = toscanini::load(a, &options, &mut sources).unwrap();
    let lb = toscanini::load(b, &options, &mut sources).unwrap();
    let (registry, _) = Registry::standard(&[], &mut sources).unwrap();
    let b_csar = b.file_name().unwrap().to_str().unwrap();
    let t = toscanini::transformation(&la.topology, &lb.topology, b_csar, &options).unwrap();
    let own = std::sync::Arc::new(t.topology.clone());
    let (plan, d) =
        toscanini::plugins::complete(&own, t.plan.clone(), &registry, &options.complete);
    let mut plan = plan.unwrap_or_else(|| panic!("{d:?}"));
    plan.own_topology = Some(own);
    (la, t, plan)
}

/// The report lines that start with `what`, by template id.
fn reported(t: &toscanini::Transformation, what: &str) -> Vec<String> {
    t.report
        .iter()
        .filter(|l| l.starts_with(what))
        .map(|l| l.split('`').nth(1).unwrap().to_string())
        .collect()
}

#[test]
fn mytinytodo_to_multi_adds_two_containers_on_the_kept_engine() {
    let (a, b) = mytinytodo();
    let (_, t, plan) = transform(&a, &b);
    assert_eq!(
        reported(&t, "kept"),
        [
            "DockerEngine_w1_0",
            "MyTinyToDoDockerContainer_w1_0",
            "con_HostedOn_0"
        ]
    );
    assert!(reported(&t, "terminated").is_empty());
    assert_eq!(
        reported(&t, "provisioned"),
        [
            "MyTinyToDoDockerContainer_w1_1",
            "MyTinyToDoDockerContainer_w1_2",
            "con_HostedOn_1",
            "con_HostedOn_2"
        ]
    );
    // The kept engine and container are migrated into B's service
    // instance in build order; the new containers go on the engine.
    assert_eq!(
        edges(&plan.plan),
        set(&[
            ("DockerEngine_w1_0_migrate", "con_HostedOn_0_migrate"),
            (
                "con_HostedOn_0_migrate",
                "MyTinyToDoDockerContainer_w1_0_migrate"
            ),
            ("DockerEngine_w1_0_migrate", "con_HostedOn_1_provision"),
            ("DockerEngine_w1_0_migrate", "con_HostedOn_2_provision"),
            (
                "con_HostedOn_1_provision",
                "MyTinyToDoDockerContainer_w1_1_provision"
            ),
            (
                "con_HostedOn_2_provision",
                "MyTinyToDoDockerContainer_w1_2_provision"
            ),
        ])
    );
    // Every activity is on B's side, under B's ids; migrations invoke nothing.
    let merged = plan.topology(&t.topology);
    for (a, body) in plan.plan.activities.iter().zip(&plan.bodies) {
        assert!(merged.is_target(a.template), "{}", a.id);
        if a.kind == ActivityKind::Migrate {
            assert!(
                body.steps.iter().all(|s| s.invocation().is_none()),
                "{}",
                a.id
            );
        }
    }
    let engine = merged.node_by_id("DockerEngine_w1_0_new").unwrap();
    assert_eq!(
        merged.api_id(toscanini::model::TemplateRef::Node(engine)),
        "DockerEngine_w1_0"
    );
    let target = merged.target.as_deref().unwrap();
    assert_eq!(
        target.csar,
        "opentosca-test__MultiMyTinyToDo-DockerEngine-Test_w1-wip1.csar"
    );
    assert_eq!(
        toscanini::plan::naming::plan_name(plan.topology(&t.topology), &plan.plan.kind),
        "MyTinyToDo-DockerEngine-Test_w1-wip1_transformTo_MultiMyTinyToDo-DockerEngine-Test_w1-wip1"
    );
    assert!(t.warnings.is_empty());
}

#[test]
fn a_replaced_database_is_terminated_before_the_application_is_reconnected() {
    let (a, b) = yaml_pair();
    let (_, t, plan) = transform(&a, &b);
    assert_eq!(reported(&t, "kept"), ["server", "app", "app_host"]);
    assert_eq!(
        reported(&t, "terminated"),
        ["db", "db_host", "app_database"]
    );
    assert_eq!(
        reported(&t, "provisioned"),
        ["newdb", "newdb_host", "app_database"]
    );
    let e = edges(&plan.plan);
    // Termination order among what goes; build order among what comes.
    assert!(e.contains(&("app_database_terminate".into(), "db_terminate".into())));
    assert!(e.contains(&("db_host_terminate".into(), "db_terminate".into())));
    assert!(e.contains(&("newdb_provision".into(), "newdb_host_provision".into())));
    assert!(e.contains(&(
        "newdb_provision".into(),
        "app_database_new_provision".into()
    )));
    // The kept application is detached before it is attached again, the
    // server likewise; nothing else joins the two parts.
    assert!(e.contains(&(
        "app_database_terminate".into(),
        "app_database_new_provision".into()
    )));
    assert!(e.contains(&("db_host_terminate".into(), "newdb_host_provision".into())));
    assert!(!e.contains(&("db_terminate".into(), "newdb_provision".into())));
    // Kept nodes are migrated (B's copies, known by B's ids), before what
    // is attached to them.
    assert!(e.contains(&("app_migrate".into(), "app_database_new_provision".into())));
    let merged = plan.topology(&t.topology);
    for a in &plan.plan.activities {
        let template = merged.api_id(a.template).to_string();
        if ["server", "app", "app_host"].contains(&template.as_str()) {
            assert_eq!(a.kind, ActivityKind::Migrate, "{}", a.id);
            assert!(merged.is_target(a.template), "{}", a.id);
        }
    }
}

#[test]
fn the_cli_previews_explains_and_writes_the_transformation() {
    let (a, b) = yaml_pair();
    let (a, b) = (a.to_str().unwrap(), b.to_str().unwrap());
    let r = run(&repo(), &["graph", a, "--plan", "transformation"]);
    assert_eq!(r.code, 2, "{}", r.stderr);
    assert!(r.stderr.contains("--transform-to"));
    let r = run(
        &repo(),
        &["graph", a, "--plan", "transformation", "--transform-to", b],
    );
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(r.stdout.contains("reconnect app"));
    let dir = crate::support::temp_dir("transformation-cli");
    let out = dir.join("out.csar");
    let r = run(
        &repo(),
        &[
            "plan",
            a,
            "--plans",
            "build",
            "--transform-to",
            b,
            "--explain",
            "-o",
            out.to_str().unwrap(),
        ],
    );
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(r.stdout.contains("kept        node `server`"));
    assert!(r.stdout.contains("terminated  node `db`"));
    assert!(r.stdout.contains("provisioned node `newdb`"));
    assert!(!r.stderr.contains("warning["), "{}", r.stderr);
    // `export` writes the transformation plan as a deployment unit.
    let unit = dir.join("unit");
    let e = run(
        &repo(),
        &[
            "export",
            a,
            "--plan",
            "transformation",
            "--transform-to",
            b,
            "--lang",
            "bpmn",
            "--out",
            unit.to_str().unwrap(),
        ],
    );
    assert_eq!(e.code, 0, "{}", e.stderr);
    let bpmn = std::fs::read_to_string(unit.join("shop-a_bpmnTransformTo_shop-b.bpmn")).unwrap();
    assert!(bpmn.contains("create target service instance"));
    assert!(bpmn.contains("/transform-yaml-b.csar/servicetemplates/%257B%257Dshop-b"));
    let e = run(
        &repo(),
        &[
            "export",
            a,
            "--plan",
            "transformation",
            "--out",
            unit.to_str().unwrap(),
        ],
    );
    assert_eq!(e.code, 2, "{}", e.stderr);
    assert!(e.stderr.contains("--transform-to"));
    assert!(
        r.stderr
            .contains("transformation shop-a_transformTo_shop-b")
    );
}

/// Snapshots: the BPEL process, the BPMN process and the DOT graph of both
/// transformations, and the corpus service template with the plan in it.
#[test]
fn transformation_snapshots() {
    for (label, (a, b)) in [("mytinytodo", mytinytodo()), ("yaml", yaml_pair())] {
        let (loaded, t, plan) = transform(&a, &b);
        let topology = plan.topology(&t.topology);
        let bpel = toscanini::compile::render(&plan, topology, toscanini::Language::Bpel).unwrap();
        let process = bpel
            .files
            .iter()
            .find(|f| f.name.ends_with(".bpel"))
            .unwrap();
        insta::assert_snapshot!(
            format!("{label}__process.bpel"),
            String::from_utf8(process.data.clone()).unwrap()
        );
        insta::assert_snapshot!(
            format!("{label}__bpmn"),
            crate::bpmn::bpmn(&loaded, &plan).text
        );
        insta::assert_snapshot!(
            format!("{label}__graph.dot"),
            toscanini::dot::plan_dot(&plan, topology)
        );
        if label == "mytinytodo" {
            let (changes, _) = toscanini::compile::changes(&loaded, &[bpel]).unwrap();
            let definitions = String::from_utf8(changes.put[&loaded.entry].clone()).unwrap();
            insta::assert_snapshot!(format!("{label}__definitions"), definitions);
        }
    }
}
