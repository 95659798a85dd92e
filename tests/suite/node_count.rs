//! Node template `count` (TOSCA 2.0 §7.2, chapter 14): the fixture
//! `tests/features/node-count` (three sites of one template connected to a
//! VPN). The build plan creates every representation, in parallel, each
//! with its own `$node_index`, under the template's id; the plans that act
//! on existing instances reach them all through the template.

use toscanini::model::TemplateRef;
use toscanini::plan::PlanKind;
use toscanini::plugins::ConcretePlan;

use crate::support::{all_plans, all_plans_with, id_pairs as set, plan_edges as edges, repo};

fn plans() -> (toscanini::Loaded, Vec<ConcretePlan>) {
    all_plans(&repo().join("tests/features/node-count"))
}

fn plan(plans: &[ConcretePlan], kind: PlanKind) -> &ConcretePlan {
    plans.iter().find(|p| p.plan.kind == kind).unwrap()
}

#[test]
fn the_build_plan_creates_every_representation_in_parallel() {
    let (loaded, plans) = plans();
    let t = &loaded.topology;
    let build = plan(&plans, PlanKind::Build);
    assert_eq!(
        edges(&build.plan),
        set(&[
            ("sdwan_provision", "site_provision"),
            ("sdwan_provision", "site_1_provision"),
            ("sdwan_provision", "site_2_provision"),
            ("sdwan_provision", "site_vpn_provision"),
            ("sdwan_provision", "site_vpn_1_provision"),
            ("sdwan_provision", "site_vpn_2_provision"),
            ("site_provision", "site_vpn_provision"),
            ("site_1_provision", "site_vpn_1_provision"),
            ("site_2_provision", "site_vpn_2_provision"),
        ])
    );
    // The container knows every representation as `site`, each with its
    // index.
    for (id, index) in [("site", "0"), ("site_1", "1"), ("site_2", "2")] {
        let n = t.node_by_id(id).unwrap();
        assert_eq!(t.api_id(TemplateRef::Node(n)), "site");
        assert_eq!(t.node(n).properties["number"].as_str(), Some(index), "{id}");
    }
}

#[test]
fn plans_on_existing_instances_reach_the_representations_through_the_template() {
    let (_, plans) = plans();
    let termination = plan(&plans, PlanKind::Termination);
    let ids: Vec<&str> = termination
        .plan
        .activities
        .iter()
        .map(|a| a.id.as_str())
        .collect();
    assert_eq!(
        ids,
        ["site_vpn_terminate", "site_terminate", "sdwan_terminate"]
    );
    assert!(termination.bodies.iter().all(|b| b.per_instance));
}

/// `tests/features/count-pairs` (2.0 §14.3): sites hosted on the router of
/// their own index (`[vpe, $node_index]`, matched pairs), and a monitor
/// with `count: 2` on a requirement to the two routers (one to many).
#[test]
fn relationships_between_counted_templates_reach_the_representations_they_name() {
    let (_, plans) = all_plans(&repo().join("tests/features/count-pairs"));
    let build = plan(&plans, PlanKind::Build);
    assert_eq!(
        edges(&build.plan),
        set(&[
            ("vpe_provision", "site_provision"),
            ("vpe_provision", "site_router_provision"),
            ("site_provision", "site_router_provision"),
            ("vpe_1_provision", "site_1_provision"),
            ("vpe_1_provision", "site_router_1_provision"),
            ("site_1_provision", "site_router_1_provision"),
            ("vpe_provision", "monitor_provision"),
            ("vpe_1_provision", "monitor_provision"),
            ("vpe_provision", "monitor_watches_provision"),
            ("vpe_1_provision", "monitor_watches_2_provision"),
            ("monitor_provision", "monitor_watches_provision"),
            ("monitor_provision", "monitor_watches_2_provision"),
        ])
    );
}

/// `tests/features/count-input`: the count of `worker` is input `workers`.
fn workers(given: &[(&str, &str)]) -> (toscanini::Loaded, Vec<ConcretePlan>) {
    let options = toscanini::Options {
        inputs: given
            .iter()
            .map(|(n, v)| (n.to_string(), v.to_string()))
            .collect(),
        ..toscanini::Options::default()
    };
    all_plans_with(&repo().join("tests/features/count-input"), &options)
}

#[test]
fn a_count_from_an_input_is_the_value_given_when_the_plans_are_made() {
    let provisioned = |plans: &[ConcretePlan]| -> Vec<String> {
        let build = plan(plans, PlanKind::Build);
        let mut ids: Vec<String> = build
            .plan
            .activities
            .iter()
            .map(|a| a.id.clone())
            .filter(|id| id.starts_with("worker") && !id.contains("queue"))
            .collect();
        ids.sort();
        ids
    };
    // The default (W0412 says so), then the value given.
    let (loaded, plans) = workers(&[]);
    assert_eq!(
        provisioned(&plans),
        ["worker_1_provision", "worker_provision"]
    );
    assert!(
        loaded
            .warnings
            .iter()
            .any(|d| d.code == "W0412" && d.message.contains("they create its default, 2"))
    );
    let (loaded, plans) = workers(&[("workers", "3"), ("prefix", "w")]);
    assert_eq!(
        provisioned(&plans),
        [
            "worker_1_provision",
            "worker_2_provision",
            "worker_provision"
        ]
    );
    assert!(
        !loaded.warnings.iter().any(|d| d.code == "W0412"),
        "{:?}",
        loaded.warnings
    );
    // Every representation's name from the given prefix, and neither
    // input asked for by the plans.
    let t = &loaded.topology;
    let name = t.node(t.node_by_id("worker_2").unwrap()).properties["worker_name"].to_json();
    assert_eq!(name.to_string(), r#"{"concat":["w","-","2"]}"#);
    for p in &plans {
        assert!(
            p.inputs.iter().all(|i| i != "workers" && i != "prefix"),
            "{:?}",
            p.inputs
        );
    }
}
