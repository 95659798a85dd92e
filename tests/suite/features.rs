//! Management-feature plans (issue 19): freeze, defrost, backup, test and
//! update. Their order on a corpus CSAR (`MyTinyToDo-MySql_OpenStack-w2`,
//! the one with a freezable database), on `tests/features/stateful-stack`
//! (two freezable stores on each other, a stateful cache that is not
//! freezable, tests on three nodes), on `tests/features/update-stack` (a
//! runtime updated in place under an application, a freezable store and a
//! front end that cannot be stopped) and on `tests/features/test-policies`
//! and `yaml-test-policies` (OpenTOSCA's test policies, with fixed,
//! resolved and expected values; `test-policies-inline` the XML ones
//! written inside the policies, as Winery writes them); the steps the plugins emit; where the
//! plans are made and the error where they cannot be; snapshots of the
//! plans in both languages.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use toscanini::diagnostics::SourceMap;
use toscanini::plan::{ActivityKind, PlanKind};
use toscanini::plugins::steps::{Binding, Otherwise, Step};
use toscanini::plugins::{ConcretePlan, Registry};

use crate::support::{
    corpus_xml, id_pairs as set, plan_edges as edges, repo, shared, toscanini as run,
};

const W2: &str = "opentosca-public__MyTinyToDo-MySql_OpenStack-w2";

fn corpus(name: &str) -> PathBuf {
    shared().join("corpus/xml").join(format!("{name}.csar"))
}

fn stack() -> PathBuf {
    repo().join("tests/features/stateful-stack")
}

fn test_policies() -> PathBuf {
    repo().join("tests/features/test-policies")
}

fn update_stack() -> PathBuf {
    repo().join("tests/features/update-stack")
}

/// The plans of `kinds` for `path`, with their diagnostics.
fn derive(
    path: &Path,
    kinds: &[PlanKind],
) -> (
    toscanini::Loaded,
    toscanini::error::Result<(Vec<ConcretePlan>, toscanini::diagnostics::Diagnostics)>,
) {
    let mut sources = SourceMap::new();
    let options = toscanini::Options::default();
    let loaded = toscanini::load(path, &options, &mut sources).unwrap();
    let (registry, _) = Registry::standard(&[], &mut sources).unwrap();
    let plans = toscanini::derive(&loaded.topology, kinds, &registry, &options);
    (loaded, plans)
}

fn plan(path: &Path, kind: PlanKind) -> (toscanini::Loaded, ConcretePlan) {
    let (loaded, plans) = derive(path, &[kind]);
    let (mut plans, _) = plans.unwrap();
    (loaded, plans.remove(0))
}

/// The edges of `p` with activity ids renamed by `rename`.
fn renamed(
    p: &toscanini::plan::AbstractPlan,
    rename: &dyn Fn(&str) -> String,
) -> BTreeSet<(String, String)> {
    edges(p)
        .into_iter()
        .map(|(a, b)| (rename(&a), rename(&b)))
        .collect()
}

fn steps<'p>(p: &'p ConcretePlan, id: &str) -> &'p [Step] {
    let i = p
        .plan
        .activities
        .iter()
        .position(|a| a.id == id)
        .unwrap_or_else(|| panic!("no activity {id}"));
    &p.bodies[i].steps
}

/// The operations an activity invokes, in order.
fn operations(p: &ConcretePlan, id: &str) -> Vec<String> {
    steps(p, id)
        .iter()
        .filter_map(Step::invocation)
        .map(|i| i.operation.to_string())
        .collect()
}

#[test]
fn freeze_saves_state_then_terminates_in_termination_order() {
    let (_, term) = plan(&corpus(W2), PlanKind::Termination);
    let (_, freeze) = plan(&corpus(W2), PlanKind::Freeze);
    // The termination order, the database frozen instead of only terminated.
    let rename = |id: &str| id.replace("MySQL-DB_terminate", "MySQL-DB_freeze");
    assert_eq!(edges(&freeze.plan), renamed(&term.plan, &rename));
    for a in &freeze.plan.activities {
        let want = if a.id == "MySQL-DB_freeze" {
            ActivityKind::Freeze
        } else {
            ActivityKind::Terminate
        };
        assert_eq!(a.kind, want, "{}", a.id);
    }
    // The state is saved first, below the state-storage input, then the
    // instance is deleted; once per instance.
    let db = steps(&freeze, "MySQL-DB_freeze");
    let Some(Step::Invoke(inv)) = db.first() else {
        panic!("freeze first: {db:?}")
    };
    assert_eq!(&*inv.interface, "http://opentosca.org/interfaces/state");
    assert_eq!(&*inv.operation, "freeze");
    let (_, location) = inv
        .inputs
        .iter()
        .find(|(n, _)| &**n == "StoreStateServiceEndpoint")
        .unwrap();
    assert_eq!(
        location,
        &Binding::Concat(vec![
            Binding::Input("StoreStateServiceEndpoint".into()),
            Binding::Literal("/MySQL-DB".into()),
        ])
    );
    assert!(matches!(db.last(), Some(Step::SetState(_, "DELETED"))));
    assert!(
        freeze
            .inputs
            .iter()
            .any(|i| i == "StoreStateServiceEndpoint")
    );
    // Everything else terminates as in the termination plan.
    assert_eq!(
        operations(&freeze, "Ubuntu-VM_18.04-w1_terminate"),
        operations(&term, "Ubuntu-VM_18.04-w1_terminate")
    );
}

#[test]
fn defrost_restores_state_after_the_lifecycle_and_before_dependants() {
    let (_, build) = plan(&corpus(W2), PlanKind::Build);
    let (_, defrost) = plan(&corpus(W2), PlanKind::Defrost);
    let rename = |id: &str| id.replace("MySQL-DB_provision", "MySQL-DB_defrost");
    assert_eq!(edges(&defrost.plan), renamed(&build.plan, &rename));
    let e = edges(&defrost.plan);
    // After the DBMS it is hosted on, before the connection that needs it.
    assert!(e.contains(&("con_HostedOn_3_provision".into(), "MySQL-DB_defrost".into())));
    assert!(e.contains(&(
        "MySQL-DB_defrost".into(),
        "con_ConnectsTo_0_provision".into()
    )));
    // Its lifecycle, then its state back, then it counts as started.
    assert_eq!(
        operations(&defrost, "MySQL-DB_defrost"),
        ["transferFile", "install", "configure", "defrost"]
    );
    let db = steps(&defrost, "MySQL-DB_defrost");
    assert!(matches!(db.first(), Some(Step::CreateNodeInstance(_))));
    assert!(matches!(db.last(), Some(Step::SetState(_, "STARTED"))));
}

#[test]
fn stacked_freezable_stores_freeze_top_down_and_defrost_bottom_up() {
    let (_, freeze) = plan(&stack(), PlanKind::Freeze);
    let e = edges(&freeze.plan);
    assert!(e.contains(&("db_freeze".into(), "db_on_dbms_terminate".into())));
    assert!(e.contains(&("db_on_dbms_terminate".into(), "dbms_freeze".into())));
    assert!(e.contains(&("app_to_db_terminate".into(), "db_freeze".into())));
    // Each store's state has a place of its own.
    let location = |id: &str| {
        steps(&freeze, id)
            .iter()
            .filter_map(Step::invocation)
            .find(|i| &*i.operation == "freeze")
            .and_then(|i| {
                i.inputs
                    .iter()
                    .find(|(n, _)| &**n == "StoreStateServiceEndpoint")
            })
            .map(|(_, b)| b.clone())
            .unwrap()
    };
    assert_ne!(location("db_freeze"), location("dbms_freeze"));
    // The cache is stateful but not freezable: terminated, with a warning.
    let cache = freeze
        .plan
        .activities
        .iter()
        .find(|a| a.id == "cache_terminate")
        .unwrap();
    assert_eq!(cache.kind, ActivityKind::Terminate);
    let (_, plans) = derive(&stack(), &[PlanKind::Freeze]);
    let (_, warnings) = plans.unwrap();
    let codes: Vec<&str> = warnings.iter().map(|d| d.code).collect();
    assert_eq!(codes, ["W0509"]);

    let (_, defrost) = plan(&stack(), PlanKind::Defrost);
    let e = edges(&defrost.plan);
    assert!(e.contains(&("dbms_defrost".into(), "db_on_dbms_provision".into())));
    assert!(e.contains(&("db_on_dbms_provision".into(), "db_defrost".into())));
    assert!(e.contains(&("db_defrost".into(), "app_to_db_provision".into())));
    assert_eq!(
        operations(&defrost, "dbms_defrost"),
        ["install", "start", "defrost"]
    );
    assert_eq!(
        operations(&defrost, "cache_provision"),
        ["install", "start"]
    );
}

#[test]
fn backup_is_top_down_and_terminates_nothing() {
    let (_, backup) = plan(&stack(), PlanKind::Backup);
    // Every node that can save its state, the cache included; ordered as
    // their termination, through the relationship left out.
    let ids: Vec<&str> = backup
        .plan
        .activities
        .iter()
        .map(|a| a.id.as_str())
        .collect();
    assert_eq!(ids, ["cache_backup", "db_backup", "dbms_backup"]);
    assert_eq!(edges(&backup.plan), set(&[("db_backup", "dbms_backup")]));
    for (a, body) in backup.plan.activities.iter().zip(&backup.bodies) {
        assert!(body.per_instance, "{}", a.id);
        assert_eq!(operations(&backup, &a.id), ["freeze"]);
        assert!(
            !body
                .steps
                .iter()
                .any(|s| matches!(s, Step::SetState(..) | Step::CreateNodeInstance(_))),
            "{}: a backup changes no instance",
            a.id
        );
    }
    let (_, w2) = plan(&corpus(W2), PlanKind::Backup);
    let ids: Vec<&str> = w2.plan.activities.iter().map(|a| a.id.as_str()).collect();
    assert_eq!(ids, ["MySQL-DB_backup"]);
}

#[test]
fn tests_run_bottom_up_and_a_failed_result_fails_the_plan() {
    let (_, test) = plan(&stack(), PlanKind::Test);
    // One activity per test, named after it.
    assert_eq!(
        edges(&test.plan),
        set(&[
            ("server_test_testPortBinding", "cache_test_testConnection"),
            ("server_test_testPortBinding", "dbms_test_testConnection"),
            ("dbms_test_testConnection", "db_test_testConnection"),
        ])
    );
    // The test, then the check of its Result, in the activity named after it.
    let db = steps(&test, "db_test_testConnection");
    let [Step::Invoke(inv), Step::Check { otherwise, .. }] = db else {
        panic!("a test and its check: {db:?}")
    };
    assert_eq!(&*inv.operation, "testConnection");
    assert_eq!(&*inv.outputs[0].1.name, "testConnection_Result");
    assert_eq!(*otherwise, Otherwise::Fail);
    // The results are the plan's outputs, named as OpenTOSCA names them.
    let outputs: Vec<&str> = test.outputs.iter().map(|(n, _)| n.as_str()).collect();
    assert_eq!(
        outputs,
        [
            "Tests-server-testPortBinding-result",
            "Tests-dbms-testConnection-result",
            "Tests-db-testConnection-result",
            "Tests-cache-testConnection-result",
        ]
    );
    // On the corpus: the VM before the database it hosts (through the DBMS).
    let path = corpus("opentosca-public__MySQL-DB-ServiceTemplate");
    let (_, p) = plan(&path, PlanKind::Test);
    assert_eq!(
        edges(&p.plan),
        set(&[(
            "ubuntuVM_test_testPortBinding",
            "mySQLDb_test_testConnection"
        )])
    );
}

#[test]
fn feature_plans_are_made_only_where_the_topology_supports_them() {
    let mut made: Vec<(String, String)> = Vec::new();
    for path in corpus_xml() {
        let mut sources = SourceMap::new();
        let Ok(loaded) = toscanini::load(&path, &toscanini::Options::default(), &mut sources)
        else {
            continue;
        };
        for k in toscanini::all_plans(&loaded.topology) {
            if PlanKind::features().contains(&k) {
                let name = path.file_stem().unwrap().to_string_lossy();
                let name = name.split_once("__").unwrap().1.to_string();
                made.push((k.slug(), name));
            }
        }
    }
    let of = |kind: &str| -> Vec<&str> {
        made.iter()
            .filter(|(k, _)| k == kind)
            .map(|(_, n)| n.as_str())
            .collect()
    };
    assert_eq!(of("freeze"), ["MyTinyToDo-MySql_OpenStack-w2"]);
    assert_eq!(of("defrost"), ["MyTinyToDo-MySql_OpenStack-w2"]);
    assert_eq!(
        of("backup"),
        [
            "Java_Web_Application__MySQL",
            "MySQL-DB-ServiceTemplate",
            "MyTinyToDo-MySql_OpenStack-w2",
            "MyTinyToDo_AbstractOS_OpenStack",
            "PolicyAware_MyTinyTodo_MySql_OpenStack",
        ]
    );
    assert_eq!(of("test").len(), 10);
    assert!(
        of("update").is_empty(),
        "no corpus CSAR has UpdateManagementInterface"
    );

    // Asked for where it cannot be made: an error naming what is missing.
    // (MySQL-DB here is freezable by policy, but its type has no freeze.)
    let path = corpus("opentosca-example__MyTinyToDo-MySql_Docker-w1");
    let (_, plans) = derive(&path, &[PlanKind::Freeze]);
    let Err(toscanini::error::Error::Input(d)) = plans else {
        panic!("an error")
    };
    let d = d.iter().next().unwrap();
    assert_eq!(d.code, "E0508");
    assert!(
        d.message.contains(
            "`MySQL-DB` has no operation `freeze` of interface `http://opentosca.org/interfaces/state`"
        ),
        "{}",
        d.message
    );
    let dir = crate::support::temp_dir("features-cli");
    let out = dir.join("out.csar");
    let r = run(
        &repo(),
        &[
            "plan",
            path.to_str().unwrap(),
            "--plans",
            "build,freeze",
            "-o",
            out.to_str().unwrap(),
        ],
    );
    assert_eq!(r.code, 1);
    assert!(
        r.stderr
            .contains("error[E0508]: no freeze plan can be made")
    );
    assert!(!out.exists(), "nothing is written");
}

#[test]
fn update_stops_what_sits_on_the_node_updates_it_and_starts_it_again() {
    let (_, update) = plan(&update_stack(), PlanKind::Update);
    // Top-down stop, the update, bottom-up start; the client beside the
    // runtime (only connected to the application) is left alone.
    assert_eq!(
        edges(&update.plan),
        set(&[
            ("web_stop", "app_stop"),
            ("app_stop", "runtime_update"),
            ("store_stop", "runtime_update"),
            ("runtime_update", "app_start"),
            ("runtime_update", "store_start"),
            ("app_start", "web_start"),
        ])
    );
    assert!(
        !update
            .plan
            .activities
            .iter()
            .any(|a| a.id.starts_with("client") || a.id.starts_with("server"))
    );
    // The freezable store saves its state before it stops and gets it
    // back once started; the instances stay (no registration, no DELETED).
    let states = |id: &str| -> Vec<String> {
        steps(&update, id)
            .iter()
            .map(|s| match s {
                Step::Invoke(i) => i.operation.to_string(),
                Step::SetState(_, st) => st.to_string(),
                other => format!("{other:?}"),
            })
            .collect()
    };
    assert_eq!(
        states("store_stop"),
        ["freeze", "STOPPING", "stop", "STOPPED"]
    );
    assert_eq!(
        states("store_start"),
        ["STARTING", "start", "STARTED", "defrost"]
    );
    assert_eq!(states("app_stop"), ["STOPPING", "stop", "STOPPED"]);
    // The front end cannot be stopped: it keeps running, with a warning.
    assert!(states("web_stop").is_empty() && states("web_start").is_empty());
    let (_, plans) = derive(&update_stack(), &[PlanKind::Update]);
    let (_, warnings) = plans.unwrap();
    let codes: Vec<&str> = warnings.iter().map(|d| d.code).collect();
    assert_eq!(codes, ["W0510"]);
    // The version to update to is the plan's input.
    let [Step::Invoke(inv)] = steps(&update, "runtime_update") else {
        panic!("one call")
    };
    assert_eq!(&*inv.operation, "update");
    assert_eq!(inv.inputs[0].1, Binding::Input("Version".into()));
    assert!(update.inputs.iter().any(|i| i == "Version"));
    assert!(update.bodies.iter().all(|b| b.per_instance));
    // None of the corpus CSARs can be updated.
    let (_, plans) = derive(&corpus(W2), &[PlanKind::Update]);
    assert!(matches!(plans, Err(toscanini::error::Error::Input(_))));
}

#[test]
fn yaml_topologies_get_test_plans_beside_their_workflows() {
    let path = repo().join("tests/features/yaml-tests");
    let (_, test) = plan(&path, PlanKind::Test);
    let ids: Vec<&str> = test.plan.activities.iter().map(|a| a.id.as_str()).collect();
    assert_eq!(ids, ["app_test_check"]);
    assert!(matches!(
        steps(&test, "app_test_check"),
        [Step::Invoke(_), Step::Check { .. }]
    ));
    // An imperative workflow named `test` keeps the name the test plan
    // would be written back under: `all` leaves the test plan out, and
    // asking for both is an error.
    let dir = crate::support::temp_dir("features-yaml");
    for f in ["service.yaml", "check.sh"] {
        let text = std::fs::read_to_string(path.join(f)).unwrap();
        std::fs::write(dir.join(f), text.replace("    smoke:", "    test:")).unwrap();
    }
    let mut sources = SourceMap::new();
    let options = toscanini::Options::default();
    let loaded = toscanini::load(&dir.join("service.yaml"), &options, &mut sources).unwrap();
    let kinds = toscanini::all_plans(&loaded.topology);
    assert!(kinds.contains(&PlanKind::Workflow("test".into())));
    assert!(!kinds.contains(&PlanKind::Test));
    let (_, plans) = derive(
        &dir.join("service.yaml"),
        &[PlanKind::Workflow("test".into()), PlanKind::Test],
    );
    let Err(toscanini::error::Error::Input(d)) = plans else {
        panic!("an error")
    };
    assert_eq!(d.iter().next().unwrap().code, "E0507");
}

/// The inputs an invocation binds, by name.
fn input<'p>(p: &'p ConcretePlan, id: &str, name: &str) -> &'p Binding {
    let inv = steps(p, id)
        .iter()
        .find_map(Step::invocation)
        .unwrap_or_else(|| panic!("{id} invokes nothing"));
    &inv.inputs
        .iter()
        .find(|(n, _)| &**n == name)
        .unwrap_or_else(|| panic!("{id}: no input {name}: {:?}", inv.inputs))
        .1
}

#[test]
fn test_policies_invoke_their_operation_and_check_what_they_expect() {
    for (path, version, ping) in [
        (test_policies(), "app_test_version", "db_test_ping"),
        (
            repo().join("tests/features/yaml-test-policies/service.yaml"),
            "app_test_appVersion",
            "db_test_dbPing",
        ),
    ] {
        let what = path.display().to_string();
        // No type has the tests interface: the policies make the test plan.
        let mut sources = SourceMap::new();
        let loaded = toscanini::load(&path, &toscanini::Options::default(), &mut sources).unwrap();
        assert!(toscanini::all_plans(&loaded.topology).contains(&PlanKind::Test));
        let (_, plans) = derive(&path, &[PlanKind::Test]);
        let (mut plans, diags) = plans.unwrap();
        let test = plans.remove(0);
        // One activity per test policy, named after it, bottom-up.
        assert_eq!(edges(&test.plan), set(&[(ping, version)]), "{what}");
        assert!(
            test.plan
                .activities
                .iter()
                .all(|a| matches!(a.kind, ActivityKind::TestPolicy(_))),
            "{what}"
        );
        // The fixed input wins over the operation's own value (YAML `no`).
        assert_eq!(
            input(&test, version, "Verbose"),
            &Binding::Literal("yes".into()),
            "{what}"
        );
        // The expected output is checked after the call; a mismatch fails
        // the plan in the test's activity.
        let [
            Step::Invoke(inv),
            Step::Check {
                condition,
                otherwise,
                ..
            },
        ] = steps(&test, version)
        else {
            panic!(
                "{what}: the call and its check: {:?}",
                steps(&test, version)
            )
        };
        assert_eq!(&*inv.operation, "version");
        let kept = &inv
            .outputs
            .iter()
            .find(|(o, _)| &**o == "Version")
            .unwrap()
            .1;
        assert_eq!(*otherwise, Otherwise::Fail);
        let [
            toscanini::model::Condition::Assert {
                attribute,
                constraints,
            },
        ] = condition.as_slice()
        else {
            panic!("{what}: one assertion: {condition:?}")
        };
        assert_eq!(attribute, &*kept.name, "{what}");
        assert_eq!(constraints[0].0, "equal");
        assert_eq!(constraints[0].1.as_str(), Some("Version-of-app"));
        // The other inputs come from the resolved node's properties (the
        // server below the database); a test without expectations has no
        // check.
        let Binding::Property(port) = input(&test, ping, "Port") else {
            panic!("{what}: Port from a property")
        };
        assert_eq!(loaded.topology.template_id(port.template), "server");
        assert!(
            !steps(&test, ping)
                .iter()
                .any(|s| matches!(s, Step::Check { .. })),
            "{what}"
        );
        // The container's own tests are reported, once per node and type.
        let by_container: Vec<&str> = diags
            .iter()
            .filter(|d| d.code == "W0514")
            .map(|d| d.message.as_str())
            .collect();
        let expected: &[&str] = if what.ends_with("service.yaml") {
            &[
                "`app` has a test policy of type HttpTest, which the OpenTOSCA container runs after a deployment: the test plan does not run it",
            ]
        } else {
            &[
                "`server` has a test policy of type TcpPingTest, which the OpenTOSCA container runs after a deployment: the test plan does not run it",
                "`app` has a test policy of type HttpTest, which the OpenTOSCA container runs after a deployment: the test plan does not run it",
            ]
        };
        assert_eq!(by_container, expected, "{what}");
    }
    // The fixed input of the XML policy template.
    let (_, test) = plan(&test_policies(), PlanKind::Test);
    assert_eq!(
        input(&test, "db_test_ping", "DBName"),
        &Binding::Literal("todo".into())
    );
}

/// Test policies whose properties are written inside the `Policy` (the
/// shapes Winery writes) make the same test plan, in both languages and with
/// the same diagnostics, as those whose `policyRef` names a `PolicyTemplate`.
/// (Before inline properties were read, the inline fixture had no test plan:
/// E0508, both policies left out with W0512.)
#[test]
fn inline_test_policies_make_the_plan_policy_templates_make() {
    let inline = repo().join("tests/features/test-policies-inline");
    let rendered = |path: &Path| {
        let (loaded, plans) = derive(path, &[PlanKind::Test]);
        let (plans, diags) = plans.unwrap();
        let p = &plans[0];
        let bpel = toscanini::compile::render(p, &loaded.topology, toscanini::Language::Bpel)
            .unwrap()
            .files
            .into_iter()
            .map(|f| (f.name, f.data))
            .collect::<Vec<_>>();
        let messages: Vec<String> = diags
            .iter()
            .map(|d| format!("{}: {}", d.code, d.message))
            .collect();
        (bpel, crate::bpmn::bpmn(&loaded, p).text, messages)
    };
    let (bpel, bpmn, messages) = rendered(&inline);
    assert!(
        !messages.iter().any(|m| m.starts_with("W0512")),
        "{messages:?}"
    );
    assert_eq!(rendered(&test_policies()), (bpel, bpmn, messages));
}

#[test]
fn feature_plans_preview_as_dot_and_json() {
    for kind in ["freeze", "defrost", "backup", "test", "update"] {
        let input = if kind == "update" {
            "tests/features/update-stack"
        } else {
            "tests/features/stateful-stack"
        };
        let r = run(&repo(), &["graph", input, "--plan", kind]);
        assert_eq!(r.code, 0, "{kind}: {}", r.stderr);
        assert!(r.stdout.starts_with(&format!("digraph \"{kind}\"")));
        let r = run(
            &repo(),
            &["graph", input, "--plan", kind, "--format", "json"],
        );
        assert_eq!(r.code, 0, "{kind}: {}", r.stderr);
        let json: serde_json::Value = serde_json::from_str(&r.stdout).unwrap();
        assert!(!json["activities"].as_array().unwrap().is_empty());
    }
}

/// Snapshots of the feature plans of the corpus CSAR and of the fixtures: the
/// BPEL process, its WSDL and deploy.xml, the BPMN process, the DOT graph;
/// and the corpus service template with the BPEL plans written back.
#[test]
fn feature_plan_snapshots() {
    for (label, path) in [
        ("w2", corpus(W2)),
        ("stateful-stack", stack()),
        ("update-stack", update_stack()),
        ("test-policies", test_policies()),
    ] {
        let kinds: Vec<PlanKind> = {
            let mut sources = SourceMap::new();
            let options = toscanini::Options::default();
            let loaded = toscanini::load(&path, &options, &mut sources).unwrap();
            toscanini::all_plans(&loaded.topology)
                .into_iter()
                .filter(|k| PlanKind::features().contains(k))
                .collect()
        };
        let (loaded, plans) = derive(&path, &kinds);
        let (plans, _) = plans.unwrap();
        let mut rendered = Vec::new();
        for p in &plans {
            let kind = p.plan.kind.slug();
            let bpel =
                toscanini::compile::render(p, &loaded.topology, toscanini::Language::Bpel).unwrap();
            // The shipped files, and the call process, which differs
            // between plans only in their names (the samples' snapshots
            // show it), are left out.
            for f in bpel.files.iter().filter(|f| {
                !f.name.starts_with("invoker.")
                    && f.name != "call.endpoint"
                    && !f.name.ends_with("_call.bpel")
            }) {
                // The plan's own files (named after it) as `process.<ext>`,
                // the stylesheets and deploy.xml by their names.
                let name = match f.name.rsplit_once('.') {
                    Some((stem, ext)) if stem == bpel.name => format!("process.{ext}"),
                    _ => f.name.clone(),
                };
                insta::assert_snapshot!(
                    format!("{label}__{kind}__{name}"),
                    String::from_utf8(f.data.clone()).unwrap()
                );
            }
            let bpmn = crate::bpmn::bpmn(&loaded, p);
            insta::assert_snapshot!(format!("{label}__{kind}__bpmn"), bpmn.text);
            insta::assert_snapshot!(
                format!("{label}__{kind}__graph.dot"),
                toscanini::dot::plan_dot(p, &loaded.topology)
            );
            rendered.push(bpel);
        }
        let (changes, _) = toscanini::compile::changes(&loaded, &rendered).unwrap();
        let definitions = String::from_utf8(changes.put[&loaded.entry].clone()).unwrap();
        insta::assert_snapshot!(format!("{label}__definitions"), definitions);
    }
}
