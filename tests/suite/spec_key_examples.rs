//! The key examples of TOSCA Simple Profile 1.3 (tests/spec-examples/)
//! assert their edges and operations explicitly; every example is compiled
//! and checked against the §7.2 rules in `spec_examples` (the `per_case`
//! binary).

use std::collections::BTreeSet;

use toscanini::model::{RelKind, TemplateRef, Topology};
use toscanini::plan::{ActivityKind, PlanKind};
use toscanini::plugins::ConcretePlan;

use crate::rules::{edge_ids, operations, reachability};
use crate::support::repo;

fn set(pairs: &[(&str, &str)]) -> BTreeSet<(String, String)> {
    pairs
        .iter()
        .map(|(a, b)| (a.to_string(), b.to_string()))
        .collect()
}

fn plan<'a>(plans: &'a [ConcretePlan], kind: &PlanKind) -> &'a ConcretePlan {
    plans.iter().find(|p| &p.plan.kind == kind).unwrap()
}

/// Compile an example into every plan it has.
fn example(name: &str) -> (Topology, Vec<ConcretePlan>) {
    let (loaded, plans) = crate::support::all_plans(&repo().join("tests/spec-examples").join(name));
    (loaded.topology, plans)
}

#[test]
fn two_tier_application_orders_each_stack_and_the_connection() {
    // §2.5: wordpress → apache → web_server; wordpress_db → mysql → db_server;
    // wordpress ConnectsTo wordpress_db (target started before source created).
    let (_, plans) = example("2.5.yaml");
    let edges = edge_ids(plan(&plans, &PlanKind::Build));
    for (a, b) in [
        ("web_server_provision", "apache_provision"),
        ("apache_provision", "wordpress_provision"),
        ("db_server_provision", "mysql_provision"),
        ("mysql_provision", "wordpress_db_provision"),
        ("wordpress_db_provision", "wordpress_provision"),
        (
            "wordpress_provision",
            "wordpress_database_endpoint_provision",
        ),
        (
            "wordpress_db_provision",
            "wordpress_database_endpoint_provision",
        ),
    ] {
        assert!(edges.contains(&(a.into(), b.into())), "missing {a} -> {b}");
    }
    // The two servers are independent: nothing orders them.
    assert!(
        !edges
            .iter()
            .any(|(a, b)| a == "web_server_provision" && b == "db_server_provision")
    );
}

#[test]
fn a_custom_relationship_script_runs_before_the_source_configure() {
    // §2.6: pre_configure_source of wp_db_connection runs in wordpress's
    // provisioning, between create and configure.
    let (_, plans) = example("2.6.yaml");
    let build = plan(&plans, &PlanKind::Build);
    let i = build
        .plan
        .activities
        .iter()
        .position(|a| a.id == "wordpress_provision")
        .unwrap();
    assert_eq!(operations(build, i), ["pre_configure_source"]);
    let edges = edge_ids(build);
    assert!(edges.contains(&(
        "wordpress_db_provision".into(),
        "wordpress_provision".into()
    )));
    assert!(edges.contains(&(
        "wordpress_provision".into(),
        "wp_db_connection_provision".into()
    )));
}

#[test]
fn generic_dependencies_order_target_first() {
    // §2.8: my_app depends on some_service.
    let (_, plans) = example("2.8.yaml");
    assert_eq!(
        edge_ids(plan(&plans, &PlanKind::Build)),
        set(&[
            ("some_service_provision", "my_app_dependency_provision"),
            ("some_service_provision", "my_app_provision"),
            ("my_app_provision", "my_app_dependency_provision"),
        ])
    );
    assert_eq!(
        edge_ids(plan(&plans, &PlanKind::Termination)),
        set(&[
            ("my_app_dependency_terminate", "some_service_terminate"),
            ("my_app_dependency_terminate", "my_app_terminate"),
            ("my_app_terminate", "some_service_terminate"),
        ])
    );
}

#[test]
fn dangling_requirements_become_delegated_nodes() {
    // §2.9.1: the host is only a node_filter: the orchestrator supplies it.
    let (t, plans) = example("2.9.1.yaml");
    let host = t.node_by_id("mysql_host_target").expect("a delegated host");
    assert!(t.node(host).is_abstract);
    let build = plan(&plans, &PlanKind::Build);
    let i = build.plan.activity_of(TemplateRef::Node(host)).unwrap();
    assert_eq!(build.decisions[i].plugin.as_deref(), Some("delegate"));
    assert!(edge_ids(build).contains(&(
        "mysql_host_target_provision".into(),
        "mysql_provision".into()
    )));
}

#[test]
fn attached_storage_is_ready_before_its_server() {
    // §11.1.4: my_server —AttachesTo→ my_storage.
    let (t, plans) = example("11.1.4.3.yaml");
    let rel = t
        .relationships
        .iter()
        .find(|r| r.kind == RelKind::AttachesTo)
        .unwrap();
    let edges = edge_ids(plan(&plans, &PlanKind::Build));
    let (s, tg) = (&t.node(rel.source).id, &t.node(rel.target).id);
    assert!(edges.contains(&(format!("{tg}_provision"), format!("{s}_provision"))));
    assert!(edges.contains(&(format!("{s}_provision"), format!("{}_provision", rel.id))));
}

#[test]
fn nodes_on_one_host_run_one_after_the_other() {
    // §11.1.15: WordPress, Apache, MySQL DBMS and database on one server.
    let (t, plans) = example("11.1.15.3.yaml");
    let build = plan(&plans, &PlanKind::Build);
    let same_host: Vec<_> = build
        .plan
        .edges
        .iter()
        .filter(|e| matches!(e.reason, toscanini::plan::Reason::SameHost(_)))
        .collect();
    assert!(!same_host.is_empty());
    let reach = reachability(build);
    let on_server: Vec<usize> = t
        .node_ids()
        .filter(|&n| {
            t.bottom_host(n) == t.node_by_id("server").unwrap() && t.node(n).id != "server"
        })
        .map(|n| build.plan.activity_of(TemplateRef::Node(n)).unwrap())
        .collect();
    assert_eq!(on_server.len(), 4);
    for &a in &on_server {
        for &b in &on_server {
            assert!(a == b || reach[a][b] || reach[b][a]);
        }
    }
}

#[test]
fn the_elk_example_weaves_configure_operations_on_both_sides() {
    // §11.1.17: logstash's pre_configure_source (to elasticsearch) and the
    // pre_configure_target scripts of collectd and rsyslog on logstash.
    let (_, plans) = example("11.1.17.3.1.yaml");
    let build = plan(&plans, &PlanKind::Build);
    let i = build
        .plan
        .activities
        .iter()
        .position(|a| a.id == "logstash_provision")
        .unwrap();
    assert_eq!(
        operations(build, i),
        [
            "create",
            "pre_configure_source",
            "pre_configure_target",
            "pre_configure_target",
            "configure",
            "start"
        ]
    );
}

#[test]
fn an_imperative_deploy_replaces_the_build_plan() {
    // §7.3.2.2: compute first (delegated), then mysql and tomcat create in
    // parallel although they share a host (the workflow says so); tomcat
    // starts after both. Instances are registered before the steps that
    // act on them, relationship instances once both ends exist.
    let (_, plans) = example("7.3.2.2.yaml");
    let build = plan(&plans, &PlanKind::Build);
    let edges = edge_ids(build);
    assert_eq!(
        edges,
        set(&[
            ("compute_install_deploy", "mysql_install"),
            ("compute_install_deploy", "tomcat_install"),
            ("mysql_install", "tomcat_starting"),
            ("tomcat_install", "tomcat_starting"),
            ("register_mysql", "mysql_install"),
            ("register_tomcat", "tomcat_install"),
            ("compute_install_deploy", "register_mysql_host"),
            ("register_mysql", "register_mysql_host"),
            ("compute_install_deploy", "register_tomcat_host"),
            ("register_tomcat", "register_tomcat_host"),
        ])
    );
    let i = build
        .plan
        .activities
        .iter()
        .position(|a| a.id == "compute_install_deploy")
        .unwrap();
    assert_eq!(build.plan.activities[i].kind, ActivityKind::Provision);
    // The termination plan is still the declarative one, reversed.
    let termination = plan(&plans, &PlanKind::Termination);
    assert!(
        termination
            .plan
            .activities
            .iter()
            .all(|a| a.kind == ActivityKind::Terminate)
    );
}

#[test]
fn inlined_workflows_are_spliced_into_the_step() {
    // §7.3.4.2: G sets the state, runs inlined_wf (A..F), sets it again.
    let (_, plans) = example("7.3.4.2.yaml");
    let main = plan(&plans, &PlanKind::Workflow("main_workflow".into()));
    let edges = edge_ids(main);
    for (a, b) in [
        ("G", "G_inlined_wf_A"),
        ("G", "G_inlined_wf_E"),
        ("G_inlined_wf_A", "G_inlined_wf_B"),
        ("G_inlined_wf_A", "G_inlined_wf_C"),
        ("G_inlined_wf_E", "G_inlined_wf_C"),
        ("G_inlined_wf_B", "G_inlined_wf_D"),
        ("G_inlined_wf_C", "G_inlined_wf_D"),
        ("G_inlined_wf_D", "G_2"),
        ("G_inlined_wf_F", "G_2"),
    ] {
        assert!(
            edges.contains(&(a.into(), b.into())),
            "missing {a} -> {b} in {edges:?}"
        );
    }
}

#[test]
fn on_failure_routes_to_the_rollback_step() {
    // §7.3.7.1.
    let (_, plans) = example("7.3.7.1.yaml");
    let backup = plan(&plans, &PlanKind::Workflow("backup".into()));
    let e = &backup.plan.edges[0];
    assert_eq!(backup.plan.edges.len(), 1);
    assert_eq!(e.reason, toscanini::plan::Reason::OnFailure);
    assert_eq!(backup.plan.activities[e.from].id, "backup_step");
    assert_eq!(backup.plan.activities[e.to].id, "rollback_step");
}

#[test]
fn preconditions_and_filters_are_checked() {
    // §7.3.5: two preconditions before the step, and its filter.
    let (_, plans) = example("7.3.5.yaml");
    let backup = plan(&plans, &PlanKind::Workflow("backup".into()));
    let edges = edge_ids(backup);
    assert_eq!(
        edges,
        set(&[
            ("precondition_1", "backup_step"),
            ("precondition_2", "backup_step")
        ])
    );
    let step = backup
        .plan
        .activities
        .iter()
        .position(|a| a.id == "backup_step")
        .unwrap();
    assert!(matches!(
        backup.bodies[step].steps[0],
        toscanini::plugins::steps::Step::Check { .. }
    ));
}
