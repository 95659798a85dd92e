//! Every corpus CSAR compiles to build and termination plans whose order is
//! exactly what the rules say (seed 004, anchor-opentosca.md §2):
//! HostedOn/DependsOn/DeployedOn from S to T give T → R → S, ConnectsTo
//! gives S → R and T → R, termination reverses every edge, and there is no
//! other edge (independent branches stay parallel). CSARs that cannot be
//! compiled fail with the expected diagnostic codes.

use std::collections::BTreeSet;

use toscanini::diagnostics::SourceMap;
use toscanini::model::{RelKind, TemplateRef, Topology};
use toscanini::plan::{AbstractPlan, PlanKind};
use toscanini::plugins::Registry;

use crate::support::corpus_xml;

/// Corpus CSARs that are rejected, with the codes of their errors (README
/// "Corpus" lists why).
const REJECTED: &[(&str, &[&str])] = &[(
    "opentosca-public__PetClinic_EDMM-w1.csar",
    &["E0401", "E0401"],
)];

fn expected_build_edges(t: &Topology, plan: &AbstractPlan) -> BTreeSet<(String, String)> {
    let act = |r: TemplateRef| plan.activities[plan.activity_of(r).unwrap()].id.clone();
    let mut edges = BTreeSet::new();
    for r in t.relationship_ids() {
        let rel = t.relationship(r);
        let (s, tg, ra) = (
            act(TemplateRef::Node(rel.source)),
            act(TemplateRef::Node(rel.target)),
            act(TemplateRef::Relationship(r)),
        );
        match rel.kind {
            RelKind::ConnectsTo => {
                edges.insert((s, ra.clone()));
                edges.insert((tg, ra));
            }
            _ => {
                edges.insert((tg, ra.clone()));
                edges.insert((ra, s));
            }
        }
    }
    edges
}

fn edges(plan: &AbstractPlan) -> BTreeSet<(String, String)> {
    plan.edges
        .iter()
        .map(|e| {
            (
                plan.activities[e.from].id.clone(),
                plan.activities[e.to].id.clone(),
            )
        })
        .collect()
}

#[test]
fn every_corpus_csar_is_planned_in_the_right_order() {
    let mut compiled = 0;
    for csar in corpus_xml() {
        let name = csar.file_name().unwrap().to_string_lossy().into_owned();
        let mut sources = SourceMap::new();
        let options = toscanini::Options::default();
        let expected_errors = REJECTED.iter().find(|(n, _)| *n == name).map(|(_, c)| *c);
        let loaded = match toscanini::load(&csar, &options, &mut sources) {
            Ok(l) => l,
            Err(toscanini::error::Error::Input(d)) => {
                let codes: Vec<&str> = d
                    .iter()
                    .filter(|d| d.severity == toscanini::diagnostics::Severity::Error)
                    .map(|d| d.code)
                    .collect();
                assert_eq!(
                    Some(codes.as_slice()),
                    expected_errors,
                    "{name} was rejected unexpectedly: {d:?}"
                );
                continue;
            }
            Err(e) => panic!("{name}: {e}"),
        };
        assert!(expected_errors.is_none(), "{name} should be rejected");
        let (registry, _) = Registry::standard(&[], &mut sources).unwrap();
        let (plans, _) = toscanini::derive(
            &loaded.topology,
            &[PlanKind::Build, PlanKind::Termination],
            &registry,
            &options,
        )
        .unwrap_or_else(|e| panic!("{name}: {e:?}"));
        let t = &loaded.topology;
        let (build, termination) = (&plans[0].plan, &plans[1].plan);
        // One activity per template, in both plans.
        let templates = t.nodes.len() + t.relationships.len();
        assert_eq!(build.activities.len(), templates, "{name}");
        assert_eq!(termination.activities.len(), templates, "{name}");
        // Exactly the rule edges, and their reversal for termination.
        let want = expected_build_edges(t, build);
        assert_eq!(edges(build), want, "{name}: build edges");
        let reversed: BTreeSet<(String, String)> = want
            .iter()
            .map(|(a, b)| {
                (
                    b.replace("_provision", "_terminate"),
                    a.replace("_provision", "_terminate"),
                )
            })
            .collect();
        assert_eq!(edges(termination), reversed, "{name}: termination edges");
        // Activities are listed in a topological order.
        for p in [build, termination] {
            for e in &p.edges {
                assert!(
                    e.from < e.to,
                    "{name}: {} is listed after {}",
                    p.activities[e.from].id,
                    p.activities[e.to].id
                );
            }
        }
        compiled += 1;
    }
    assert_eq!(compiled, 29, "the corpus has 30 CSARs, one is rejected");
}

#[test]
fn running_nodes_are_registered_not_provisioned() {
    let csar = corpus_xml()
        .into_iter()
        .find(|p| p.ends_with("opentosca-test__MyTinyToDo-DockerEngine-Test_w1-wip1.csar"))
        .unwrap();
    let mut sources = SourceMap::new();
    let options = toscanini::Options::default();
    let loaded = toscanini::load(&csar, &options, &mut sources).unwrap();
    let (registry, _) = Registry::standard(&[], &mut sources).unwrap();
    let (plans, _) =
        toscanini::derive(&loaded.topology, &[PlanKind::Build], &registry, &options).unwrap();
    let engine = plans[0]
        .plan
        .activities
        .iter()
        .position(|a| a.id == "DockerEngine_w1_0_provision")
        .unwrap();
    assert_eq!(
        plans[0].decisions[engine].plugin.as_deref(),
        Some("existing")
    );
    assert!(
        plans[0].bodies[engine]
            .steps
            .iter()
            .all(|s| s.invocation().is_none())
    );
}
