//! `get_operation_output` (TOSCA 1.3 §4.6): the operation it names gets an
//! output of that name, stored into an attribute of its node, wherever the
//! call is written: a node's or a relationship's property, an operation
//! input, an output of the topology.

use toscanini::diagnostics::SourceMap;

use crate::support::temp_dir;

/// The outputs of `node`'s `Standard.create` after loading `yaml`.
fn create_outputs(yaml: &str, node: &str) -> Vec<String> {
    let dir = temp_dir("operation-outputs");
    let file = dir.join("service.yaml");
    std::fs::write(&file, yaml).unwrap();
    let mut sources = SourceMap::new();
    let loaded = toscanini::load(&file, &toscanini::Options::default(), &mut sources).unwrap();
    let t = &loaded.topology;
    let n = t.node(t.node_by_id(node).unwrap());
    let create = n
        .interfaces
        .iter()
        .flat_map(|i| &i.operations)
        .find(|o| &*o.name == "create")
        .unwrap();
    create.outputs.iter().map(|p| p.name.to_string()).collect()
}

const HEAD: &str = "tosca_definitions_version: tosca_simple_yaml_1_3
relationship_types:
  Uses:
    derived_from: tosca.relationships.DependsOn
    properties:
      token:
        type: string
        required: false
topology_template:
  node_templates:
    a:
      type: tosca.nodes.Root
      interfaces:
        Standard:
          create: create.sh
    b:
      type: tosca.nodes.Root
      requirements:
        - dependency:
            node: a
            relationship: uses_a
  relationship_templates:
    uses_a:
      type: Uses
";

#[test]
fn a_call_in_a_relationship_property_declares_the_output() {
    let yaml = format!(
        "{HEAD}      properties:\n        token: {{ get_operation_output: [a, Standard, create, token] }}\n"
    );
    assert_eq!(create_outputs(&yaml, "a"), ["token"]);
    // Without the call, no output.
    assert!(create_outputs(HEAD, "a").is_empty());
}
