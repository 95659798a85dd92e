//! Which template a requirement's node_filter chooses, as `graph
//! --topology` shows it (the diagnostics of the same inputs are the
//! snapshots of tests/cases/yaml-*node-filter*).

use crate::support::{repo, toscanini};

/// The `source -> target` edges of the topology of case `case`.
fn edges(case: &str) -> Vec<String> {
    let dir = repo().join("tests/cases").join(case).join("input");
    let run = toscanini(&dir, &["graph", "service.yaml", "--topology"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    run.stdout
        .lines()
        .filter_map(|l| l.trim().split_once(" [label=\"").map(|(e, _)| e))
        .filter(|e| e.contains(" -> "))
        .map(|e| e.replace('"', ""))
        .collect()
}

#[test]
fn a_1_3_pattern_chooses_the_first_template_whose_value_matches() {
    assert_eq!(
        edges("yaml-node-filter-pattern"),
        ["app -> rhel", "web -> ubuntu", "look -> look_host_target"]
    );
}

#[test]
fn a_2_0_matches_chooses_the_first_template_whose_value_matches() {
    assert_eq!(
        edges("yaml-2-0-node-filter-matches"),
        ["app -> jammy", "part -> focal", "echo -> echo_host_target"]
    );
}

#[test]
fn a_1_3_requirement_definition_filters_in_addition_to_the_assignment() {
    assert_eq!(
        edges("yaml-requirement-definition-node-filter"),
        ["plain -> big", "app -> bigger", "tiny -> tiny_host_target"]
    );
}

#[test]
fn a_2_0_requirement_definition_and_its_refinement_filter_in_addition() {
    assert_eq!(
        edges("yaml-2-0-requirement-definition-node-filter"),
        [
            "plain -> big",
            "app -> bigger",
            "penguin -> tux",
            "tiny -> tiny_host_target"
        ]
    );
}

#[test]
fn a_1_3_filter_without_a_node_type_chooses_among_the_capability_offerers() {
    assert_eq!(
        edges("yaml-node-filter-capability"),
        [
            "client -> v2",
            "pinned -> v1",
            "nothing -> nothing_backend_target",
            "open -> open_backend_target"
        ]
    );
}

#[test]
fn a_2_0_named_template_is_kept_where_it_passes_or_is_undecided_and_an_optional_one_dropped() {
    assert_eq!(
        edges("yaml-2-0-node-filter-named-template"),
        ["app -> big", "later -> big"]
    );
}

#[test]
fn a_1_3_named_template_is_kept_whatever_its_filters_say() {
    assert_eq!(
        edges("yaml-node-filter-named-template"),
        [
            "plain -> big",
            "low -> small",
            "own -> big",
            "later -> chosen"
        ]
    );
}
