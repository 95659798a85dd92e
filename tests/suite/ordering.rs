//! Ordering rules on small hand-written topologies: relationship ends that
//! name requirements and capabilities, relationship subtypes found through
//! DerivedFrom, unknown relationship kinds, and parallel branches.

use std::collections::BTreeSet;

use toscanini::Csar;
use toscanini::diagnostics::SourceMap;
use toscanini::plan::PlanKind;
use toscanini::plugins::Registry;

const META: &str = "TOSCA-Meta-Version: 1.0\nCSAR-Version: 1.0\nCreated-By: tests\nEntry-Definitions: Definitions/t.tosca\n";

/// A Definitions document with base types, a lifecycle node type `N` and
/// the given relationship types and topology.
fn definitions(types: &str, topology: &str) -> String {
    format!(
        r#"<Definitions xmlns="http://docs.oasis-open.org/tosca/ns/2011/12"
 xmlns:bt="http://docs.oasis-open.org/tosca/ns/2011/12/ToscaBaseTypes" xmlns:ex="urn:ex" id="t" targetNamespace="urn:ex">
  <RelationshipType name="HostedOn" targetNamespace="http://docs.oasis-open.org/tosca/ns/2011/12/ToscaBaseTypes"/>
  <RelationshipType name="DependsOn" targetNamespace="http://docs.oasis-open.org/tosca/ns/2011/12/ToscaBaseTypes"/>
  <RelationshipType name="ConnectsTo" targetNamespace="http://docs.oasis-open.org/tosca/ns/2011/12/ToscaBaseTypes"/>
  <NodeType name="N"/>
  {types}
  <ServiceTemplate id="st"><TopologyTemplate>{topology}</TopologyTemplate></ServiceTemplate>
</Definitions>"#
    )
}

/// Build-plan edges as (from template, to template) pairs.
fn build_edges(
    defs: &str,
) -> (
    BTreeSet<(String, String)>,
    toscanini::diagnostics::Diagnostics,
) {
    let csar = Csar::from_entries(
        "t.csar",
        [
            (
                "TOSCA-Metadata/TOSCA.meta".to_string(),
                META.as_bytes().to_vec(),
            ),
            ("Definitions/t.tosca".to_string(), defs.as_bytes().to_vec()),
        ],
    );
    let mut sources = SourceMap::new();
    let options = toscanini::Options::default();
    let loaded =
        toscanini::load_csar(csar, &options, &mut sources).unwrap_or_else(|e| panic!("{e:?}"));
    let (registry, _) = Registry::standard(&[], &mut sources).unwrap();
    let (plans, _) =
        toscanini::derive(&loaded.topology, &[PlanKind::Build], &registry, &options).unwrap();
    let p = &plans[0].plan;
    let t = &loaded.topology;
    let edges = p
        .edges
        .iter()
        .map(|e| {
            (
                t.template_id(p.activities[e.from].template).to_string(),
                t.template_id(p.activities[e.to].template).to_string(),
            )
        })
        .collect();
    (edges, loaded.warnings)
}

fn set(pairs: &[(&str, &str)]) -> BTreeSet<(String, String)> {
    pairs
        .iter()
        .map(|(a, b)| (a.to_string(), b.to_string()))
        .collect()
}

#[test]
fn requirement_and_capability_ends_resolve_to_their_nodes() {
    let topo = r#"
      <NodeTemplate id="db" type="ex:N"><Capabilities><Capability id="db_endpoint" name="e" type="ex:C"/></Capabilities></NodeTemplate>
      <NodeTemplate id="app" type="ex:N"><Requirements><Requirement id="app_db" name="db" type="ex:R"/></Requirements></NodeTemplate>
      <RelationshipTemplate id="r" type="bt:ConnectsTo"><SourceElement ref="app_db"/><TargetElement ref="db_endpoint"/></RelationshipTemplate>"#;
    let (edges, _) = build_edges(&definitions("", topo));
    assert_eq!(edges, set(&[("app", "r"), ("db", "r")]));
}

#[test]
fn subtypes_of_base_relationships_order_like_them() {
    let types = r#"
      <RelationshipType name="RunsOn"><DerivedFrom typeRef="bt:HostedOn"/></RelationshipType>
      <RelationshipType name="TalksTo"><DerivedFrom typeRef="ex:Channel"/></RelationshipType>
      <RelationshipType name="Channel"><DerivedFrom typeRef="bt:ConnectsTo"/></RelationshipType>"#;
    let topo = r#"
      <NodeTemplate id="vm" type="ex:N"/><NodeTemplate id="app" type="ex:N"/><NodeTemplate id="db" type="ex:N"/>
      <RelationshipTemplate id="h" type="ex:RunsOn"><SourceElement ref="app"/><TargetElement ref="vm"/></RelationshipTemplate>
      <RelationshipTemplate id="c" type="ex:TalksTo"><SourceElement ref="app"/><TargetElement ref="db"/></RelationshipTemplate>"#;
    let (edges, _) = build_edges(&definitions(types, topo));
    assert_eq!(
        edges,
        set(&[("vm", "h"), ("h", "app"), ("app", "c"), ("db", "c")])
    );
}

#[test]
fn unknown_relationship_kinds_order_like_depends_on_with_a_warning() {
    let types = r#"<RelationshipType name="Uses"/>"#;
    let topo = r#"
      <NodeTemplate id="a" type="ex:N"/><NodeTemplate id="b" type="ex:N"/>
      <RelationshipTemplate id="u" type="ex:Uses"><SourceElement ref="a"/><TargetElement ref="b"/></RelationshipTemplate>"#;
    let (edges, warnings) = build_edges(&definitions(types, topo));
    assert_eq!(edges, set(&[("b", "u"), ("u", "a")]));
    assert_eq!(
        warnings.iter().map(|d| d.code).collect::<Vec<_>>(),
        ["W0406"]
    );
}

#[test]
fn independent_stacks_stay_parallel() {
    let topo = r#"
      <NodeTemplate id="vm1" type="ex:N"/><NodeTemplate id="vm2" type="ex:N"/>
      <NodeTemplate id="a" type="ex:N"/><NodeTemplate id="b" type="ex:N"/>
      <RelationshipTemplate id="ha" type="bt:HostedOn"><SourceElement ref="a"/><TargetElement ref="vm1"/></RelationshipTemplate>
      <RelationshipTemplate id="hb" type="bt:HostedOn"><SourceElement ref="b"/><TargetElement ref="vm2"/></RelationshipTemplate>
      <RelationshipTemplate id="d" type="bt:DependsOn"><SourceElement ref="b"/><TargetElement ref="a"/></RelationshipTemplate>"#;
    let (edges, _) = build_edges(&definitions("", topo));
    // vm1 and vm2 have no path between them: both start at once.
    assert_eq!(
        edges,
        set(&[
            ("vm1", "ha"),
            ("ha", "a"),
            ("vm2", "hb"),
            ("hb", "b"),
            ("a", "d"),
            ("d", "b")
        ])
    );
}
