//! The `select` directive (TOSCA 2.0 §7.2): `tests/features/select-existing`,
//! a database another deployment made and an application on it. The build
//! plan takes the existing instance's URL as a plan input, reads its
//! properties and checks its node_filter before anything reads them, and
//! registers the node as a reference to it; the node's requirements are
//! ignored; termination runs nothing on it. (CI runs both plans in
//! Operaton, with a database the filter allows and one it does not.)

use toscanini::model::{Condition, TemplateRef, Value};
use toscanini::plan::PlanKind;
use toscanini::plugins::ConcretePlan;
use toscanini::plugins::steps::Step;

use crate::support::{all_plans, repo};

fn plans() -> (toscanini::Loaded, Vec<ConcretePlan>) {
    all_plans(&repo().join("tests/features/select-existing"))
}

fn plan(plans: &[ConcretePlan], kind: PlanKind) -> &ConcretePlan {
    plans.iter().find(|p| p.plan.kind == kind).unwrap()
}

fn steps<'p>(p: &'p ConcretePlan, id: &str) -> &'p [Step] {
    let k = p.plan.activities.iter().position(|a| a.id == id).unwrap();
    &p.bodies[k].steps
}

#[test]
fn the_build_plan_reads_and_checks_the_existing_node_before_registering_it() {
    let (loaded, plans) = plans();
    let t = &loaded.topology;
    let db = t.node_by_id("db").unwrap();
    let build = plan(&plans, PlanKind::Build);
    assert!(
        build.inputs.iter().any(|i| i == "db_InstanceURL"),
        "{:?}",
        build.inputs
    );
    let r = TemplateRef::Node(db);
    assert_eq!(
        steps(build, "db_provision"),
        [
            Step::CreateNodeInstance(db),
            Step::UseExisting(db),
            Step::StoreProperties(db),
            Step::SetState(r, "STARTED"),
        ]
    );
    let existing = t.node(db).selection.as_deref().unwrap();
    let version = Condition::Assert {
        attribute: "version".into(),
        constraints: vec![("greater_or_equal".into(), Value::Scalar("5".into()))],
    };
    let edition = |e: &str| {
        Condition::And(vec![Condition::Assert {
            attribute: "edition".into(),
            constraints: vec![("equal".into(), Value::Scalar(e.into()))],
        }])
    };
    assert_eq!(
        existing.filter,
        [
            version,
            Condition::Or(vec![edition("enterprise"), edition("community")])
        ]
    );
    // The application waits for the reference (its DependsOn), which the
    // selected node's own requirements do not add to.
    assert!(t.outgoing(db).is_empty());
    let edges = crate::support::plan_edges(&build.plan);
    assert!(
        edges.contains(&("db_provision".into(), "app_provision".into())),
        "{edges:?}"
    );
}

#[test]
fn termination_runs_nothing_on_the_existing_node() {
    let (loaded, plans) = plans();
    let db = loaded.topology.node_by_id("db").unwrap();
    let termination = plan(&plans, PlanKind::Termination);
    // The reference is marked deleted; no operation, no request on the
    // existing instance.
    assert_eq!(
        steps(termination, "db_terminate"),
        [Step::SetState(TemplateRef::Node(db), "DELETED")]
    );
}

#[test]
fn both_languages_fail_the_plan_without_the_input_or_where_the_filter_does_not_hold() {
    let dir = crate::support::temp_dir("select-existing");
    for lang in ["bpel", "bpmn"] {
        let out = dir.join(lang);
        let run = crate::support::toscanini(
            &repo(),
            &[
                "export",
                "tests/features/select-existing",
                "--lang",
                lang,
                "--plan",
                "build",
                "--out",
                out.to_str().unwrap(),
            ],
        );
        assert_eq!(run.code, 0, "{}", run.stderr);
        let text: String = crate::support::sorted_dir(&out)
            .iter()
            .filter(|p| p.extension().is_some_and(|e| e == lang))
            .map(|p| std::fs::read_to_string(p).unwrap())
            .collect();
        let expected: &[&str] = if lang == "bpel" {
            &[
                "<copy><from>string($input.payload/tns:db_InstanceURL)</from><to variable=\"existingURL\"/></copy>",
                "<rest:GET uri=\"$bpelvar[existingURL]/properties\" response=\"response\"/>",
                "<copy><from>string(($response//*:version)[1])</from><to>$prop_db/*:version</to></copy>",
                "<condition>not(((number(string($prop_db/*:version)) &gt;= number('5')) and (((string($prop_db/*:edition) = 'enterprise')) or ((string($prop_db/*:edition) = 'community')))))</condition>",
                "<throw faultName=\"tns:NodeFilterNotMet\"/>",
            ]
        } else {
            &[
                "fail('db_provision_s2: db has the select directive: give plan input db_InstanceURL (the URL of the instance to use)')",
                "<camunda:in source=\"db_InstanceURL\" target=\"url\"/>",
                "fail('db_provision_s2: the instance given as db_InstanceURL does not pass the node_filter of db')",
            ]
        };
        for e in expected {
            assert!(text.contains(e), "{lang}: no {e}");
        }
    }
}
