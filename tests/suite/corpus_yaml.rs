//! Every YAML item of the corpus (../shared/corpus/yaml, listed in
//! manifest.json) either compiles into all its plans, following the 1.3
//! §7.2 rules, or is rejected with exactly the expected error codes (the
//! README's "Corpus" section says why for each).

use std::path::PathBuf;

use toscanini::diagnostics::{Severity, SourceMap};
use toscanini::plan::PlanKind;
use toscanini::plugins::Registry;

use crate::rules::check_declarative;
use crate::support::shared;

/// Corpus items that are rejected, with the (sorted, distinct) codes of
/// their errors.
pub const REJECTED: &[(&str, &[&str])] = &[
    // NFV profiles (tosca-parser, heat-translator, ARIA)
    (
        "tosca-parser/samples/tests/data/policies/test_tosca_nfv_multiple_policies.yaml",
        &["E0310"],
    ),
    (
        "heat-translator/samples/tests/data/autoscaling/tosca_cluster_autoscaling.yaml",
        &["E0308", "E0310"],
    ),
    (
        "heat-translator/samples/tests/data/autoscaling/tosca_autoscaling.yaml",
        &["E0308", "E0310"],
    ),
    (
        "heat-translator/samples/tests/data/monitoring/tosca_monitoring_scaling.yaml",
        &["E0308", "E0310"],
    ),
    (
        "heat-translator/samples/tests/data/nfv/test_tosca_nfv_autoscaling.yaml",
        &["E0310"],
    ),
    (
        "ariatosca/tests/resources/service-templates/tosca-simple-1.0/node-cellar/node-cellar.yaml",
        &["E0310"],
    ),
    // ETSI SOL001 type files that are not YAML 1.2 (flow lines at column 0)
    (
        "heat-translator/samples/tests/data/etsi_nfv/tosca_nfv_vnf_vdu_cp_vl_blockstorage_with_scaling.yaml",
        &["E0301"],
    ),
    (
        "heat-translator/samples/tests/data/etsi_nfv/tosca_nfv_vdu_cp_vl_with_mixed_scaling.yaml",
        &["E0301"],
    ),
    (
        "heat-translator/samples/tests/data/etsi_nfv/tosca_nfv_vdu_affinity_with_unsupported_targets.yaml",
        &["E0301"],
    ),
    (
        "tosca-parser/samples/tests/data/CSAR/csar_multiple_deployment_flavour.zip",
        &["E0301", "E0302"],
    ),
    // Invalid TOSCA
    (
        "xopera-opera/tests/integration/notify/service.yaml",
        &["E0410"],
    ),
    ("puccini/examples/tour/interfaces.yaml", &["E0403"]),
    // Profiles of other processors
    ("puccini/examples/online-boutique/service.yaml", &["E0306"]),
    (
        "ariatosca/examples/clearwater/clearwater-single-existing.yaml",
        &["E0306"],
    ),
    // unfurl
    (
        "unfurl/docs/examples/quickstart_service_template.yaml",
        &["E0303"],
    ),
    ("unfurl/docs/examples/service-template.yaml", &["E0310"]),
    ("unfurl/tests/examples/mock-helm-ensemble.yaml", &["E0310"]),
    (
        "unfurl/tests/examples/test-workflow-ensemble.yaml",
        &["E0310"],
    ),
    (
        "unfurl/tests/examples/import/spec/service_template.yaml",
        &["E0310"],
    ),
    // Alien4Cloud DSL (Alien4Cloud, Yorc)
    ("yorc/tasks/collector/testdata/bigTopology.yaml", &["E0310"]),
    ("yorc/deployments/testdata/test_topology.yml", &["E0310"]),
    (
        "yorc/helper/provutil/testdata/BastionRelationship.yaml",
        &["E0310"],
    ),
    (
        "yorc/deployments/testdata/get_op_output_real.yaml",
        &["E0310"],
    ),
    ("yorc/deployments/testdata/cyclic_workflow.yaml", &["E0310"]),
    (
        "yorc/prov/hostspool/testdata/topology_hp_compute.yaml",
        &["E0310"],
    ),
    (
        "yorc/deployments/testdata/test_topology_substitution.yml",
        &["E0310"],
    ),
    (
        "alien4cloud-csar-public-library/org/alien4cloud/alien4cloud/topologies/a4c_ha/type.yml",
        &["E0310"],
    ),
    (
        "alien4cloud-csar-public-library/org/alien4cloud/alien4cloud/topologies/load_tests_a4c/types.yml",
        &["E0310"],
    ),
    (
        "alien4cloud-csar-public-library/org/alien4cloud/spark/topologies/cluster/types.yml",
        &["E0310"],
    ),
    (
        "alien4cloud-samples/topology-petclinic/types.yml",
        &["E0310"],
    ),
    (
        "alien4cloud-samples/topology-nodecellar/nodecellar-template.yml",
        &["E0310"],
    ),
    (
        "alien4cloud-samples/org/alien4cloud/doc/kube/topology/07-nodecellar-mongo-autoscalling/tosca.yaml",
        &["E0310"],
    ),
    (
        "alien4cloud-samples/topology-kubernetes/topology-kubernetes.yaml",
        &["E0310"],
    ),
];

/// The YAML items of the corpus, as `<source>/<entry>`, in manifest order.
pub fn corpus_yaml() -> Vec<(String, PathBuf)> {
    let dir = shared().join("corpus");
    let manifest: serde_json::Value =
        serde_json::from_slice(&std::fs::read(dir.join("manifest.json")).unwrap()).unwrap();
    manifest["yaml"]
        .as_array()
        .unwrap()
        .iter()
        .map(|y| {
            let name = format!(
                "{}/{}",
                y["source"].as_str().unwrap(),
                y["entry"].as_str().unwrap()
            );
            let path = dir.join("yaml").join(&name);
            (name, path)
        })
        .collect()
}

#[test]
fn every_yaml_item_compiles_in_order_or_is_rejected_as_expected() {
    let items = corpus_yaml();
    assert_eq!(items.len(), 72);
    let mut compiled = 0;
    for (name, path) in items {
        let expected = REJECTED.iter().find(|(n, _)| *n == name).map(|(_, c)| *c);
        let mut sources = SourceMap::new();
        let options = toscanini::Options::default();
        let loaded = match toscanini::load(&path, &options, &mut sources) {
            Ok(l) => l,
            Err(toscanini::error::Error::Input(d)) => {
                let mut codes: Vec<&str> = d
                    .iter()
                    .filter(|d| d.severity == Severity::Error)
                    .map(|d| d.code)
                    .collect();
                codes.sort();
                codes.dedup();
                assert_eq!(
                    Some(codes.as_slice()),
                    expected,
                    "{name} was rejected unexpectedly: {d:?}"
                );
                continue;
            }
            Err(e) => panic!("{name}: {e}"),
        };
        assert!(expected.is_none(), "{name} should be rejected");
        let (registry, _) = Registry::standard(&[], &mut sources).unwrap();
        let t = &loaded.topology;
        let kinds = toscanini::all_plans(t);
        let (plans, _) = toscanini::derive(t, &kinds, &registry, &options)
            .unwrap_or_else(|e| panic!("{name}: {e:?}"));
        let build = plans
            .iter()
            .find(|p| p.plan.kind == PlanKind::Build)
            .unwrap();
        let termination = plans
            .iter()
            .find(|p| p.plan.kind == PlanKind::Termination)
            .unwrap();
        if t.workflow("deploy").is_none() && t.workflow("undeploy").is_none() {
            check_declarative(&name, t, build, termination);
        }
        compiled += 1;
    }
    assert_eq!(
        compiled,
        72 - REJECTED.len(),
        "the README's corpus section lists the rejected items"
    );
}
