//! Names in plans stay distinct where the topology's names meet: template
//! variables (`web-1` and `web_1`), a poll loop's variable and a
//! template's property, the failure flags and links of BPEL, and the BPMN
//! ids of activities whose names spell each other's elements.

use std::collections::BTreeSet;

use toscanini::plan::PlanKind;

use crate::bpmn::bpmn;

#[test]
fn variables_of_templates_whose_names_collide_get_distinct_names() {
    // `web-1` and `web_1` are both `web_1` as a variable name; the one the
    // plan touches second gets a suffix, in both languages.
    let dir = crate::support::temp_dir("colliding-names");
    let file = dir.join("collide.yaml");
    std::fs::write(
        &file,
        "tosca_definitions_version: tosca_simple_yaml_1_3\n\
         topology_template:\n\
        \x20 node_templates:\n\
        \x20   web-1:\n\
        \x20     type: tosca.nodes.Compute\n\
        \x20   web_1:\n\
        \x20     type: tosca.nodes.Compute\n",
    )
    .unwrap();
    let (loaded, plans) = crate::support::all_plans(&file);
    let build = &plans[0];
    let b = bpmn(&loaded, build);
    for var in [
        "inst_web_1_url",
        "inst_web_1_url_2",
        "inst_web_1_id",
        "inst_web_1_id_2",
    ] {
        assert!(
            b.text.contains(&format!("setv('{var}', '')")),
            "BPMN: {var}"
        );
    }
    let process = crate::support::main_file(build, &loaded.topology, toscanini::Language::Bpel);
    for var in ["inst_web_1_url", "inst_web_1_url_2"] {
        assert!(
            process.contains(&format!("<variable name=\"{var}\" type=\"xsd:string\"/>")),
            "BPEL: {var}"
        );
    }
}

#[test]
fn a_poll_variable_never_takes_the_name_of_a_property_variable() {
    // The poll loop of `prop_a`'s create operation is named after its
    // element, `prop_a_provision_s3`; the property `provision_s3_location`
    // of `a` is `prop_a_provision_s3_location` too. Were they one variable,
    // the location the bus answers with would overwrite `a`'s property.
    let dir = crate::support::temp_dir("poll-names");
    let file = dir.join("poll.yaml");
    std::fs::write(
        &file,
        "tosca_definitions_version: tosca_simple_yaml_1_3\n\
         node_types:\n\
        \x20 example.App:\n\
        \x20   derived_from: tosca.nodes.Root\n\
        \x20   properties:\n\
        \x20     provision_s3_location:\n\
        \x20       type: string\n\
        \x20       default: here\n\
        \x20   interfaces:\n\
        \x20     Standard:\n\
        \x20       create: create.sh\n\
         topology_template:\n\
        \x20 node_templates:\n\
        \x20   a:\n\
        \x20     type: example.App\n\
        \x20   prop_a:\n\
        \x20     type: example.App\n",
    )
    .unwrap();
    std::fs::write(dir.join("create.sh"), "#!/bin/sh\n").unwrap();
    let (loaded, plans) = crate::support::all_plans(&file);
    let b = bpmn(&loaded, &plans[0]);
    // The property keeps its name and value; the poll loop's location
    // is stored in, and polled from, a variable of its own.
    assert!(
        b.text
            .contains("setv('prop_a_provision_s3_location', 'here')")
    );
    // The location the bus answers with is a variable of the called
    // process (templates/bpmn/library.bpmn), which the call does not pass
    // out: nothing but the initialisation writes the property.
    assert!(b.text.contains("calledElement=\"toscanini_invoke\""));
    for writer in [
        "target=\"prop_a_provision_s3_location\"",
        "<camunda:outputParameter name=\"prop_a_provision_s3_location\">",
    ] {
        assert!(!b.text.contains(writer), "{writer}");
    }
}

#[test]
fn failure_flags_of_steps_whose_names_collide_are_distinct_in_bpel() {
    // Steps `x-1` and `x_1` both route their failures; their BPEL flags
    // would both be `failed_x_1`: one variable declared twice, and one
    // step's failure taken for the other's.
    let step = |name: &str, to: &str| {
        let routed = if to.is_empty() {
            String::new()
        } else {
            format!("\x20         on_failure: [{to}]\n")
        };
        step(name, &routed)
    };
    let (loaded, plan) = workflow(
        "failure-flags",
        "twins",
        &[
            step("x-1", "r1"),
            step("x_1", "r2"),
            step("r1", ""),
            step("r2", ""),
        ],
    );
    let plan = &plan;
    let process = crate::support::main_file(plan, &loaded.topology, toscanini::Language::Bpel);
    for var in ["failed_x_1", "failed_x_1_2"] {
        let declaration = format!("<variable name=\"{var}\" type=\"xsd:string\"/>");
        assert_eq!(process.matches(&declaration).count(), 1, "{var}");
    }
}

#[test]
fn step_names_that_spell_other_ids_get_prefixes_of_their_own() {
    // `a_s1` is also the id of `a`'s first step, and `plan_init` that of
    // the plan's first script; `plan` would own the plan's flows
    // (`plan_f1`, ...). Only the prefixes that could meet change.
    let step = |name: &str, next: &str| step(name, &format!("\x20         on_success: [{next}]\n"));
    let (loaded, plan) = workflow(
        "spelled-ids",
        "spelled",
        &[
            step("a", "a_s1"),
            step("a_s1", "plan"),
            step("plan", "plan_init"),
            step("plan_init", "b"),
            step("b", ""),
        ],
    );
    // Not `workflow_bpmn`: its checks take the activity ids for the
    // subprocess ids, which two of them are not here.
    let plan = &plan;
    let b = bpmn(&loaded, plan);
    let mut seen = BTreeSet::new();
    for (at, _) in b.text.match_indices(" id=\"") {
        let rest = &b.text[at + 5..];
        let id = &rest[..rest.find('"').unwrap()];
        assert!(seen.insert(id), "two elements have the id `{id}`");
    }
    for id in [
        // `a` and `plan` are drawn as `a_` and `plan__`, the plan's own
        // elements under `plan_`; the others keep their ids.
        // (Each activity is one call, its error path in the process it
        // calls.)
        "a_",
        "a_s1",
        "plan__",
        "plan_init",
        "b",
        "plan__start",
        "plan__init",
        "plan__activities",
    ] {
        assert!(seen.contains(id), "no element `{id}`");
    }
    // The graph's JSON names the subprocess each activity is drawn as.
    let json = toscanini::dot::plan_json(plan, &loaded.topology);
    let drawn: Vec<(&str, &str)> = json["activities"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| (a["id"].as_str().unwrap(), a["bpmn"].as_str().unwrap()))
        .collect();
    assert_eq!(
        drawn,
        [
            ("a", "a_"),
            ("a_s1", "a_s1"),
            ("plan", "plan__"),
            ("plan_init", "plan_init"),
            ("b", "b"),
        ]
    );
    for (_, id) in &drawn {
        assert!(b.text.contains(&format!("<callActivity id=\"{id}\" ")));
    }
    // The plan's start is still the one that returns at once.
    assert!(b.text.contains(
        "<startEvent id=\"plan__start\" name=\"plan requested\" camunda:asyncAfter=\"true\">"
    ));
    assert_eq!(b.text.matches("camunda:asyncAfter").count(), 1);
}

#[test]
fn links_between_activities_whose_names_collide_are_distinct_in_bpel() {
    // `web-1` and `web_1` on one server: the links out of both are named
    // `web_1` as an NCName of `[A-Za-z0-9_]`. One link with two sources
    // is not BPEL; the second gets a suffix.
    let dir = crate::support::temp_dir("link-names");
    let file = dir.join("links.yaml");
    std::fs::write(
        &file,
        "tosca_definitions_version: tosca_simple_yaml_1_3\n\
         topology_template:\n\
        \x20 node_templates:\n\
        \x20   server:\n\
        \x20     type: tosca.nodes.Compute\n\
        \x20   web-1:\n\
        \x20     type: tosca.nodes.WebServer\n\
        \x20     requirements:\n\
        \x20       - host: server\n\
        \x20   web_1:\n\
        \x20     type: tosca.nodes.WebServer\n\
        \x20     requirements:\n\
        \x20       - host: server\n",
    )
    .unwrap();
    let (loaded, plans) = crate::support::all_plans(&file);
    let process = crate::support::main_file(&plans[0], &loaded.topology, toscanini::Language::Bpel);
    let mut declared = BTreeSet::new();
    let open = "<link name=\"";
    for (at, _) in process.match_indices(open) {
        let rest = &process[at + open.len()..];
        let name = &rest[..rest.find('"').unwrap()];
        assert!(declared.insert(name), "link `{name}` declared twice");
    }
    // The links out of `web-1` and `web_1` (each to its HostedOn's
    // activity): both named after `web_1`, one of them numbered.
    for name in ["web_1", "web_1_2"] {
        assert!(declared.contains(name), "no link `{name}`");
        // One source and one target each.
        for end in ["source", "target"] {
            let uses = format!("<{end} linkName=\"{name}\"");
            assert_eq!(process.matches(&uses).count(), 1, "{end} of {name}");
        }
    }
}

/// Step `name` of a workflow of [`workflow`], on its one node, and `more`.
fn step(name: &str, more: &str) -> String {
    format!(
        "\x20       {name}:\n\
         \x20         target: node\n\
         \x20         activities:\n\
         \x20           - call_operation: Custom.a\n{more}"
    )
}

/// The plan of workflow `name` with `steps` ([`step`]) on a topology of
/// one node with one custom operation.
fn workflow(
    label: &str,
    name: &str,
    steps: &[String],
) -> (toscanini::Loaded, toscanini::plugins::ConcretePlan) {
    let dir = crate::support::temp_dir(label);
    let file = dir.join("workflow.yaml");
    std::fs::create_dir_all(dir.join("scripts")).unwrap();
    std::fs::write(dir.join("scripts/a.sh"), "#!/bin/sh\n").unwrap();
    std::fs::write(
        &file,
        format!(
            "tosca_definitions_version: tosca_simple_yaml_1_3\n\
             node_types:\n\
            \x20 example.Node:\n\
            \x20   derived_from: tosca.nodes.Root\n\
            \x20   interfaces:\n\
            \x20     Custom:\n\
            \x20       operations:\n\
            \x20         a: scripts/a.sh\n\
             topology_template:\n\
            \x20 node_templates:\n\
            \x20   node:\n\
            \x20     type: example.Node\n\
            \x20 workflows:\n\
            \x20   {name}:\n\
            \x20     steps:\n{}",
            steps.concat()
        ),
    )
    .unwrap();
    let (loaded, plans) = crate::support::all_plans(&file);
    let plan = plans
        .into_iter()
        .find(|p| p.plan.kind == PlanKind::Workflow(name.into()))
        .unwrap();
    (loaded, plan)
}
