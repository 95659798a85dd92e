//! Substitution (TOSCA 1.3 §2.10, 2.0 chapter 15): a node realised by the
//! topology of another service template of the CSAR, whose activities
//! take the node's place in the plans.

use std::path::{Path, PathBuf};

use toscanini::model::{Topology, Value};
use toscanini::plugins::ConcretePlan;

use crate::rules::{check_declarative, reachability};
use crate::support::{all_plans, repo, shared};

fn system_yaml() -> PathBuf {
    shared().join("corpus/yaml/tosca-parser/samples/tests/data/topology_template/system.yaml")
}

fn build_and_termination(path: &Path) -> (Topology, ConcretePlan, ConcretePlan) {
    let (loaded, plans) = all_plans(path);
    let mut build = None;
    let mut termination = None;
    for p in plans {
        match p.plan.kind {
            toscanini::plan::PlanKind::Build => build = Some(p),
            toscanini::plan::PlanKind::Termination => termination = Some(p),
            _ => {}
        }
    }
    (loaded.topology, build.unwrap(), termination.unwrap())
}

/// Whether activity `a` comes before activity `b` in `plan`.
fn before(plan: &ConcretePlan, a: &str, b: &str) -> bool {
    let index = |id: &str| {
        plan.plan
            .activities
            .iter()
            .position(|x| x.id == id)
            .unwrap_or_else(|| panic!("no activity {id}"))
    };
    reachability(plan)[index(a)][index(b)]
}

fn ids(plan: &ConcretePlan) -> Vec<&str> {
    plan.plan.activities.iter().map(|a| a.id.as_str()).collect()
}

#[test]
fn tosca_parser_system_yaml_is_made_of_its_subsystems() {
    let (t, build, termination) = build_and_termination(&system_yaml());
    check_declarative("system.yaml", &t, &build, &termination);
    let names: Vec<&str> = t.nodes.iter().map(|n| n.id.as_str()).collect();
    // The four abstract subsystem nodes are gone, their templates are in
    // their places; `db` inside each transaction subsystem is substituted
    // too (one level down), the queuing subsystem's own `tran_app` (of the
    // type the file substitutes) is not: that would be a cycle.
    for gone in ["mq", "trans1", "trans2", "dbsys", "trans1_db", "trans2_db"] {
        assert!(!names.contains(&gone), "{gone} in {names:?}");
    }
    for there in [
        "mq_tran_app",
        "mq_server",
        "trans1_app",
        "trans1_websrv",
        "trans1_db_db_app",
        "trans2_db_dbms",
        "dbsys_db_app",
        "server",
    ] {
        assert!(names.contains(&there), "{there} missing from {names:?}");
    }
    // The mappings: mq's receivers are the transaction subsystems' apps
    // (message_receiver → app), which must be started before mq's
    // tran_app connects to them; dbsys's database_endpoint is its db_app,
    // which trans1's app (database_endpoint → app.database) connects to.
    assert!(before(
        &build,
        "trans1_app_provision",
        "mq_tran_app_provision"
    ));
    assert!(before(
        &build,
        "trans2_app_provision",
        "mq_tran_app_provision"
    ));
    assert!(before(
        &build,
        "dbsys_db_app_provision",
        "trans1_app_provision"
    ));
    assert!(before(
        &build,
        "trans1_db_db_app_provision",
        "trans1_app_provision"
    ));
    assert!(before(
        &build,
        "mq_server_provision",
        "mq_tran_app_provision"
    ));
    assert!(before(
        &termination,
        "mq_tran_app_terminate",
        "trans1_app_terminate"
    ));
    assert!(!ids(&build).iter().any(|a| a.starts_with("mq_provision")));
    // The node's property values are the substituting topology's inputs:
    // mq's server_ip (from the system's input) reaches mq's tran_app; an
    // input without one keeps its default.
    let node = |id: &str| &t.nodes[t.node_by_id(id).unwrap().0 as usize];
    assert_eq!(
        node("mq_tran_app").properties["server_ip"],
        Value::input("mq_server_ip")
    );
    assert_eq!(
        node("dbsys_db_app").properties["user"],
        Value::Scalar("test".into())
    );
}

#[test]
fn a_2_0_node_with_the_substitute_directive_is_its_substituting_topology() {
    let path = repo().join("tests/features/substitute-2-0");
    let (t, build, termination) = build_and_termination(&path);
    check_declarative("substitute-2-0", &t, &build, &termination);
    assert_eq!(
        ids(&build),
        [
            "db_vm_provision",
            "db_dbms_provision",
            "db_dbms_host_provision",
            "db_sql_provision",
            "app_provision",
            "app_database_provision",
            "db_sql_host_provision"
        ]
    );
    assert!(before(&build, "db_sql_provision", "app_provision"));
    let node = |id: &str| &t.nodes[t.node_by_id(id).unwrap().0 as usize];
    // `name` → input `database_name` (the mapping), from the service's input.
    assert_eq!(node("db_sql").properties["name"], Value::input("db_name"));
    // An unmapped input keeps its default.
    let size = node("db_vm")
        .operation("Standard", "create")
        .unwrap()
        .inputs
        .iter()
        .find(|p| &*p.name == "size")
        .and_then(|p| p.value.clone());
    assert_eq!(size, Some(Value::Scalar("small".into())));
    // `get_attribute: [db, url]` reads the output the mapping names.
    let url = node("app")
        .operation("Standard", "create")
        .unwrap()
        .inputs
        .iter()
        .find(|p| &*p.name == "db_url")
        .and_then(|p| p.value.clone());
    assert_eq!(
        url,
        Some(Value::call(
            "concat",
            vec![
                Value::Scalar("sql://".into()),
                Value::call(
                    "get_property",
                    vec![Value::Scalar("db_sql".into()), Value::Scalar("name".into())]
                )
            ]
        ))
    );
}

#[test]
fn substituting_templates_are_found_in_other_definitions_too() {
    // 2.0 §17.2: TOSCA.meta's Other-Definitions name the files where
    // substituting templates are; the entry need not import them.
    let from = repo().join("tests/features/substitute-2-0");
    let dir = crate::support::temp_dir("substitution-other-definitions");
    for entry in std::fs::read_dir(&from).unwrap() {
        let entry = entry.unwrap();
        if entry.file_type().unwrap().is_file() {
            std::fs::copy(entry.path(), dir.join(entry.file_name())).unwrap();
        }
    }
    std::fs::create_dir_all(dir.join("scripts")).unwrap();
    for s in ["app", "db", "dbms", "vm"] {
        let f = format!("scripts/{s}.sh");
        std::fs::copy(from.join(&f), dir.join(&f)).unwrap();
    }
    let service = std::fs::read_to_string(from.join("service.yaml")).unwrap();
    let service = service.replace("  - url: database.yaml\n", "");
    assert_ne!(
        service,
        std::fs::read_to_string(from.join("service.yaml")).unwrap()
    );
    std::fs::write(dir.join("service.yaml"), service).unwrap();
    std::fs::create_dir_all(dir.join("TOSCA-Metadata")).unwrap();
    let meta = std::fs::read_to_string(from.join("TOSCA-Metadata/TOSCA.meta")).unwrap();
    // Without the import nor Other-Definitions, nothing substitutes `db`.
    std::fs::write(dir.join("TOSCA-Metadata/TOSCA.meta"), &meta).unwrap();
    let (t, _, _) = build_and_termination(&dir);
    assert!(
        t.node_by_id("db")
            .is_some_and(|n| t.nodes[n.0 as usize].is_abstract)
    );
    std::fs::write(
        dir.join("TOSCA-Metadata/TOSCA.meta"),
        format!("{meta}Other-Definitions: database.yaml\n"),
    )
    .unwrap();
    let (t, build, _) = build_and_termination(&dir);
    assert!(t.node_by_id("db").is_none());
    assert!(before(&build, "db_sql_provision", "app_provision"));
}

/// 2.0 §15.2's keyed property mappings: `[CAPABILITY, endpoint, port]`
/// reads the substituted node's capability property, `[RELATIONSHIP,
/// user, 0, client]` the property of the relationship of its requirement.
#[test]
fn keyed_property_mappings_read_the_capability_and_the_relationship() {
    let (t, _, _) = build_and_termination(&repo().join("tests/features/substitute-keyed"));
    let sql = t.node(t.node_by_id("db_sql").unwrap());
    assert_eq!(sql.properties["port"], Value::Scalar("6000".into()));
    assert_eq!(sql.properties["client"], Value::Scalar("shop".into()));
}

#[test]
fn the_relationships_of_a_requirement_are_distributed_over_its_mappings() {
    // 2.0 §15.5: each assignment is mapped separately, in order; the
    // third, which no mapping takes, is dropped (the case's snapshot
    // has the warning).
    let path = repo().join("tests/cases/yaml-2-0-substitute-requirement-routes/input");
    let (t, build, termination) = build_and_termination(&path);
    check_declarative("substitute-requirement-routes", &t, &build, &termination);
    let ends: Vec<(&str, &str)> = t
        .relationships
        .iter()
        .map(|r| (t.node(r.source).id.as_str(), t.node(r.target).id.as_str()))
        .collect();
    assert_eq!(
        ends,
        [
            ("client_software1", "server1"),
            ("client_software2", "server2")
        ]
    );
    assert!(before(
        &build,
        "server2_provision",
        "client_software2_provision"
    ));
}

#[test]
fn a_requirement_mapped_to_several_targets_orders_each_after_the_host() {
    // 2.0 §15.5.2: client's one `host` requirement is mapped to software1's
    // and software2's; each gets a relationship to compute (the original
    // and its copy), so both come after compute in the build plan and
    // before it in the termination plan.
    let path = repo().join("tests/cases/yaml-2-0-substitute-mapped-twice/input");
    let (t, build, termination) = build_and_termination(&path);
    check_declarative("substitute-mapped-twice", &t, &build, &termination);
    let ends: Vec<(&str, &str, &str)> = t
        .relationships
        .iter()
        .map(|r| {
            let end = |n| t.node(n).id.as_str();
            (r.id.as_str(), end(r.source), end(r.target))
        })
        .collect();
    assert_eq!(
        ends,
        [
            ("client_host", "client_software1", "compute"),
            ("client_host_2", "client_software2", "compute")
        ]
    );
    assert_eq!(t.relationships[0].type_id, t.relationships[1].type_id);
    for software in ["client_software1", "client_software2"] {
        let (provision, terminate) = (
            format!("{software}_provision"),
            format!("{software}_terminate"),
        );
        assert!(before(&build, "compute_provision", &provision));
        assert!(before(&termination, &terminate, "compute_terminate"));
    }
}

#[test]
fn a_step_on_a_relationship_mapped_to_several_targets_runs_on_each_copy() {
    // 2.0 §15.5.2: `attach` targets client's `host` relationship, which
    // the mapping to two targets copies; the step runs on the original
    // and on the copy, side by side.
    let path = repo().join("tests/cases/yaml-2-0-substitute-mapped-twice-workflow-step/input");
    let (loaded, plans) = all_plans(&path);
    let rehost = plans
        .iter()
        .find(|p| p.plan.kind == toscanini::plan::PlanKind::Workflow("rehost".into()))
        .expect("the rehost workflow's plan");
    assert_eq!(ids(rehost), ["attach_client_host", "attach_client_host_2"]);
    let templates: Vec<&str> = rehost
        .plan
        .activities
        .iter()
        .map(|a| loaded.topology.template_id(a.template))
        .collect();
    assert_eq!(templates, ["client_host", "client_host_2"]);
    assert!(!before(
        rehost,
        "attach_client_host",
        "attach_client_host_2"
    ));
    assert!(!before(
        rehost,
        "attach_client_host_2",
        "attach_client_host"
    ));
}

#[test]
fn keyed_attribute_mappings_give_capability_and_relationship_attributes() {
    // 2.0 §15.3: `[CAPABILITY, endpoint, address]` gives app's read of
    // db's endpoint address, `[RELATIONSHIP, user, 0, token]` the read of
    // the relationship's own token in its Configure operation.
    let path = repo().join("tests/cases/yaml-2-0-substitute-keyed-attributes/input");
    let (t, build, termination) = build_and_termination(&path);
    check_declarative("substitute-keyed-attributes", &t, &build, &termination);
    let address = Value::call(
        "get_attribute",
        vec![
            Value::Scalar("db_sql".into()),
            Value::Scalar("public_address".into()),
        ],
    );
    let app = &t.nodes[t.node_by_id("app").unwrap().0 as usize];
    let input = |inputs: &[toscanini::model::Parameter], name: &str| {
        inputs
            .iter()
            .find(|p| &*p.name == name)
            .and_then(|p| p.value.clone())
    };
    let create = app.operation("Standard", "create").unwrap();
    assert_eq!(input(&create.inputs, "ADDRESS"), Some(address.clone()));
    let user = t
        .relationships
        .iter()
        .find(|r| r.id == "db_user")
        .expect("db's user relationship");
    assert_eq!(t.node(user.source).id, "db_sql");
    let configure = user
        .interfaces
        .iter()
        .flat_map(|i| &i.operations)
        .find(|o| &*o.name == "post_configure_source")
        .expect("post_configure_source");
    assert_eq!(
        input(&configure.inputs, "TOKEN"),
        Some(Value::call(
            "concat",
            vec![Value::Scalar("token-".into()), address]
        ))
    );
}
