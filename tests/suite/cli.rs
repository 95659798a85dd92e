//! The command line: exit codes, output placement, export, previews.

use crate::support::{repo, temp_dir, toscanini};

#[test]
fn usage_errors_exit_2() {
    let run = toscanini(&repo(), &["plan"]);
    assert_eq!(run.code, 2, "{}", run.stderr);
    let run = toscanini(
        &repo(),
        &["graph", "samples/mytinytodo-docker", "--plan", "everything"],
    );
    assert_eq!(run.code, 2);
    assert_eq!(
        run.stderr,
        "error: unknown plan `everything`; plans are `build`, `termination`, `scale-out:NAME`, `workflow:NAME` (a TOSCA YAML imperative workflow), `freeze`, `defrost`, `backup`, `test` and `update`\n"
    );
    let run = toscanini(
        &repo(),
        &[
            "graph",
            "samples/mytinytodo-docker",
            "--plan",
            "scale-out:nope",
        ],
    );
    assert_eq!(run.code, 2);
    assert_eq!(
        run.stderr,
        "error: there is no scaling plan `nope` (the service template declares `scale-out:scaleout_dockercontainer`)\n"
    );
}

#[test]
fn a_missing_input_is_an_io_error() {
    let run = toscanini(&repo(), &["plan", "no/such.csar"]);
    assert_eq!(run.code, 3);
    assert_eq!(
        run.stderr,
        "error: cannot open `no/such.csar`: No such file or directory (os error 2)\n"
    );
}

#[test]
fn plan_writes_beside_the_input_and_never_over_it() {
    let dir = temp_dir("cli-plan");
    let input = dir.join("app.csar");
    let sample = repo().join("tests/cases/valid-minimal/input");
    // Make a zip of the sample with the library's own writer.
    let csar = toscanini::Csar::open(&sample, &Default::default()).unwrap();
    let bytes = toscanini::compile::archive_bytes(&csar, &Default::default()).unwrap();
    std::fs::write(&input, &bytes).unwrap();
    let run = toscanini(&dir, &["plan", "app.csar", "--quiet"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(dir.join("app.planned.csar").is_file());
    assert_eq!(
        std::fs::read(&input).unwrap(),
        bytes,
        "the input was modified"
    );
    let run = toscanini(&dir, &["plan", "app.csar", "-o", "app.csar"]);
    assert_eq!(run.code, 1);
    assert!(
        run.stderr.starts_with(
            "error[E0701]: the output `app.csar` is the input; refusing to overwrite it"
        ),
        "{}",
        run.stderr
    );
    let run = toscanini(&dir, &["plan", "app.csar", "--in-place", "--quiet"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert_eq!(
        std::fs::read(&input).unwrap(),
        std::fs::read(dir.join("app.planned.csar")).unwrap()
    );
    let leftovers: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .filter(|n| n.to_string_lossy().ends_with(".tmp"))
        .collect();
    assert!(leftovers.is_empty(), "temporary files left: {leftovers:?}");
}

#[test]
fn export_writes_an_ode_deployment_directory() {
    let dir = temp_dir("cli-export");
    let out = dir.join("unit");
    let run = toscanini(
        &repo(),
        &[
            "export",
            "samples/mytinytodo-docker",
            "--plan",
            "termination",
            "--out",
            out.to_str().unwrap(),
        ],
    );
    assert_eq!(run.code, 0, "{}", run.stderr);
    let mut files: Vec<String> = std::fs::read_dir(&out)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    files.sort();
    assert_eq!(
        files,
        [
            "MyTinyToDo-DockerEngine-Test_w1-wip1_terminationPlan.bpel",
            "MyTinyToDo-DockerEngine-Test_w1-wip1_terminationPlan.wsdl",
            "MyTinyToDo-DockerEngine-Test_w1-wip1_terminationPlan_call.bpel",
            "call.endpoint",
            "deploy.xml",
            "invoke.xsl",
            "invoker.wsdl",
            "invoker.xsd"
        ]
    );
    let again = toscanini(
        &repo(),
        &[
            "export",
            "samples/mytinytodo-docker",
            "--plan",
            "termination",
            "--out",
            out.to_str().unwrap(),
        ],
    );
    assert_eq!(
        again.code, 2,
        "export must not write into a non-empty directory"
    );
}

#[test]
fn graph_json_uses_the_bpel_scope_names() {
    let run = toscanini(
        &repo(),
        &[
            "graph",
            "samples/tomcat-openstack",
            "--plan",
            "build",
            "--format",
            "json",
        ],
    );
    assert_eq!(run.code, 0, "{}", run.stderr);
    let v: serde_json::Value = serde_json::from_str(&run.stdout).unwrap();
    assert_eq!(v["plan"], "build");
    let first = &v["activities"][0];
    assert_eq!(first["id"], "OpenStack-Liberty-12_provision");
    assert_eq!(first["template"], "OpenStack-Liberty-12");
    assert_eq!(first["kind"], "provision");
    let vm = v["activities"]
        .as_array()
        .unwrap()
        .iter()
        .find(|a| a["template"] == "Ubuntu-14_04-VM")
        .unwrap();
    assert_eq!(
        vm["operations"],
        serde_json::json!([
            "CloudProviderInterface/createVM",
            "OperatingSystemInterface/waitForAvailability"
        ])
    );
    assert!(v["edges"].as_array().unwrap().contains(&serde_json::json!([
        "con_31_provision",
        "Tomcat8_provision"
    ])));
    let topo = toscanini(
        &repo(),
        &["graph", "samples/tomcat-openstack", "--topology"],
    );
    assert!(
        topo.stdout.contains(
            "\"Tomcat8\" -> \"Ubuntu-14_04-VM\" [label=\"HostedOn con_31\", style=solid];"
        ),
        "{}",
        topo.stdout
    );
}

/// A relationship template named like a node template (`db`).
const SAME_NAME: &str = "tosca_definitions_version: tosca_simple_yaml_1_3
topology_template:
  node_templates:
    app:
      type: tosca.nodes.SoftwareComponent
      requirements:
        - dependency:
            node: db
            relationship: db
      interfaces:
        Standard:
          create: create.sh
    db:
      type: tosca.nodes.SoftwareComponent
      interfaces:
        Standard:
          create: create.sh
  relationship_templates:
    db:
      type: tosca.relationships.DependsOn
      interfaces:
        Configure:
          add_target: add.sh
";

#[test]
fn graph_says_whether_a_template_is_a_node_or_a_relationship() {
    let dir = temp_dir("same-name");
    std::fs::write(dir.join("service.yaml"), SAME_NAME).unwrap();
    std::fs::write(dir.join("create.sh"), "").unwrap();
    std::fs::write(dir.join("add.sh"), "").unwrap();
    let run = toscanini(&dir, &["graph", "service.yaml", "--format", "json"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let v: serde_json::Value = serde_json::from_str(&run.stdout).unwrap();
    let db: Vec<(String, String)> = v["activities"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|a| a["template"] == "db")
        .map(|a| {
            let s = |k: &str| a[k].as_str().unwrap().to_string();
            (s("id"), s("template_kind"))
        })
        .collect();
    assert_eq!(
        db,
        [
            ("db_provision".to_string(), "node".to_string()),
            ("db_provision_2".to_string(), "relationship".to_string())
        ]
    );
    // DOT: two graph nodes with their own ids, the relationship's grey.
    let dot = toscanini(&dir, &["graph", "service.yaml"]);
    for line in [
        "\"db_provision\" [label=\"db\\nprovision\\ncreate\", fillcolor=white];",
        "\"db_provision_2\" [label=\"db\\nprovision\\nadd_target\", fillcolor=lightgrey];",
    ] {
        assert!(dot.stdout.contains(line), "{line}\n{}", dot.stdout);
    }
}

#[test]
fn the_same_warning_on_many_templates_is_printed_once_unless_verbose() {
    // 40 bare Compute nodes: each is delegated (W0313).
    let mut yaml = String::from(
        "tosca_definitions_version: tosca_simple_yaml_1_3\nmetadata:\n  template_name: bare\n  template_version: 1.0.0\ntopology_template:\n  node_templates:\n",
    );
    for i in 0..40 {
        yaml.push_str(&format!("    vm_{i}:\n      type: tosca.nodes.Compute\n"));
    }
    let dir = temp_dir("bare-compute");
    std::fs::write(dir.join("bare.yaml"), yaml).unwrap();
    let plan = |extra: &[&str]| {
        let mut args = vec!["plan", "bare.yaml", "-o", "out.csar", "--quiet"];
        args.extend(extra);
        let run = toscanini(&dir, &args);
        assert_eq!(run.code, 0, "{}", run.stderr);
        run.stderr
    };
    let grouped = plan(&[]);
    assert_eq!(grouped.matches("warning[W0313]").count(), 1, "{grouped}");
    assert!(grouped.contains("node template `vm_0` (type `tosca.nodes.Compute`)"));
    assert!(
        grouped.contains(
            "= note: the same for 39 more: `vm_1`, `vm_2`, `vm_3`, `vm_4`, `vm_5`, … (--verbose lists every one)\n"
        ),
        "{grouped}"
    );
    assert!(grouped.ends_with("\n40 warnings\n"), "{grouped}");
    let verbose = plan(&["--verbose"]);
    assert_eq!(verbose.matches("warning[W0313]").count(), 40);
    assert!(!verbose.contains("the same for"));
    // JSON is data: one line per diagnostic.
    let json = plan(&["--message-format", "json"]);
    assert_eq!(json.lines().filter(|l| l.contains("W0313")).count(), 40);
}

#[test]
fn interfaces_are_what_their_types_say_not_their_names() {
    // tests/cases/yaml-normative-names: `tool`'s interface `Standard` is of
    // a type of its own, so the lifecycle plugin does not run its `create`;
    // `setup`'s `Setup` derives from Configure, so the configure plugin
    // reads it.
    let dir = repo().join("tests/cases/yaml-normative-names/input");
    let out = temp_dir("normative-names");
    let out = out.join("out.csar");
    let run = toscanini(
        &dir,
        &[
            "plan",
            "service.yaml",
            "-o",
            out.to_str().unwrap(),
            "--explain",
            "--quiet",
        ],
    );
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(
        run.stdout
            .contains("tool_provision (provision `tool`): handled by no-op"),
        "{}",
        run.stdout
    );
    assert!(
        run.stdout
            .contains("setup_provision (provision `setup`): handled by configure\n      note      `add_target` has no implementation: a no-op"),
        "{}",
        run.stdout
    );
}

#[test]
fn explain_names_the_plugin_of_every_activity() {
    let dir = temp_dir("cli-explain");
    let out = dir.join("o.csar");
    let run = toscanini(
        &repo(),
        &[
            "plan",
            "samples/tomcat-openstack",
            "-o",
            out.to_str().unwrap(),
            "--explain",
            "--quiet",
        ],
    );
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(run.stdout.contains("  Ubuntu-14_04-VM_provision (provision `Ubuntu-14_04-VM`): handled by vm-on-cloud-provider\n"), "{}", run.stdout);
    assert!(
        run.stdout
            .contains("  Tomcat8_provision (provision `Tomcat8`): handled by lifecycle\n")
    );
    assert!(
        run.stdout
            .contains("      declined  existing: the node is neither running nor abstract\n")
    );
    // The reasons of a declarative plugin's matcher, made only when read.
    for reason in [
        "      declined  existing-vm: the node has none of `OperatingSystemInterface/waitForAvailability`\n",
        "      declined  relationship-configure: the relationship has none of `*/pre_configure_source`, `*/pre_configure_target`, `*/post_configure_source` and 5 more\n",
    ] {
        assert!(run.stdout.contains(reason), "{reason}{}", run.stdout);
    }
}

#[test]
fn plugins_are_listed_and_checked() {
    let run = toscanini(&repo(), &["plugins", "list"]);
    assert_eq!(run.code, 0);
    for id in [
        "existing",
        "vm-on-cloud-provider",
        "docker-container",
        "platform",
        "lifecycle",
        "connects-to",
        "nothing-to-do",
    ] {
        assert!(
            run.stdout.lines().any(|l| l.starts_with(id)),
            "{id} missing:\n{}",
            run.stdout
        );
    }
    let dir = temp_dir("cli-plugin");
    std::fs::write(
        dir.join("bad.yaml"),
        "plugin: x\ndescription: y\nmatch:\n  tipe: Foo\nbuild:\n  - nothing: z\n",
    )
    .unwrap();
    let run = toscanini(&dir, &["plugins", "check", "bad.yaml"]);
    assert_eq!(run.code, 1);
    assert_eq!(
        run.stderr,
        "error[E0602]: unknown key `tipe` in `match` (expected one of: type, host_type, has_operation, host_has_operation, has_lifecycle, has_host, kind, artifact_type)\n --> bad.yaml:4:3\n  |\n4 |   tipe: Foo\n  |   ^^^^\n  = hint: see plugins/README.md for the plugin file format\n\n1 error\n"
    );
}

#[test]
fn a_closed_output_pipe_is_not_a_crash() {
    // `toscanini graph … | head -1`: the reader goes away first.
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_toscanini"))
        .args(["graph", "samples/tomcat-openstack", "--plan", "build"])
        .current_dir(repo())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    drop(child.stdout.take());
    let out = child.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    assert!(!stderr.contains("panicked"), "{stderr}");
}

#[test]
fn bpmn_plans_are_exported_and_written_beside_bpel() {
    let dir = temp_dir("cli-bpmn");
    let out = dir.join("unit");
    let run = toscanini(
        &repo(),
        &[
            "export",
            "samples/mytinytodo-docker",
            "--plan",
            "build",
            "--lang",
            "bpmn",
            "--out",
            out.to_str().unwrap(),
        ],
    );
    assert_eq!(run.code, 0, "{}", run.stderr);
    let mut files: Vec<String> = std::fs::read_dir(&out)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    files.sort();
    // The process and the shared scripts it references (deployment resources).
    assert!(files.contains(&"MyTinyToDo-DockerEngine-Test_w1-wip1_bpmnBuildPlan.bpmn".into()));
    assert!(files.contains(&"check.groovy".into()), "{files:?}");
    assert!(
        files
            .iter()
            .all(|f| f.ends_with(".groovy") || f.ends_with(".bpmn")),
        "{files:?}"
    );
    let run = toscanini(
        &repo(),
        &[
            "export",
            "samples/mytinytodo-docker",
            "--plan",
            "build",
            "--lang",
            "all",
            "--out",
            dir.join("both").to_str().unwrap(),
        ],
    );
    assert_eq!(run.code, 2, "export writes one plan");
    let csar = dir.join("all.csar");
    let run = toscanini(
        &repo(),
        &[
            "plan",
            "samples/mytinytodo-docker",
            "--lang",
            "all",
            "-o",
            csar.to_str().unwrap(),
        ],
    );
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(run.stderr.contains(
        "compiled `MyTinyToDo-DockerEngine-Test_w1-wip1`: 2 node templates, 1 relationship template\n"
    ));
    assert!(run.stderr.contains("_bpmnBuildPlan (3 activities, BPMN)"));
    assert!(run.stderr.contains("_buildPlan (3 activities, BPEL)"));
    let mut archive = zip::ZipArchive::new(std::fs::File::open(&csar).unwrap()).unwrap();
    let mut plans: Vec<String> = (0..archive.len())
        .map(|i| archive.by_index(i).unwrap().name().unwrap().to_string())
        .filter(|n| n.contains("/plans/"))
        .filter_map(|n| n.rsplit('/').next().map(str::to_string))
        .collect();
    plans.sort();
    // Build, termination and the sample's scale-out plan, in both languages.
    assert_eq!(
        plans,
        [
            "MyTinyToDo-DockerEngine-Test_w1-wip1_bpmnBuildPlan.zip",
            "MyTinyToDo-DockerEngine-Test_w1-wip1_bpmnScalingPlan_scaleout_dockercontainer.zip",
            "MyTinyToDo-DockerEngine-Test_w1-wip1_bpmnTerminationPlan.zip",
            "MyTinyToDo-DockerEngine-Test_w1-wip1_buildPlan.zip",
            "MyTinyToDo-DockerEngine-Test_w1-wip1_scalingPlan_scaleout_dockercontainer.zip",
            "MyTinyToDo-DockerEngine-Test_w1-wip1_terminationPlan.zip",
        ]
    );
    // The process written into a spooled plan archive (activity diagrams
    // set aside in a spool file) is the one written to memory for export.
    let name = "MyTinyToDo-DockerEngine-Test_w1-wip1_bpmnBuildPlan";
    let entry = (0..archive.len())
        .map(|i| archive.by_index(i).unwrap().name().unwrap().to_string())
        .find(|n| n.ends_with(&format!("/{name}.zip")))
        .unwrap();
    let mut inner = Vec::new();
    std::io::Read::read_to_end(&mut archive.by_name(&entry).unwrap(), &mut inner).unwrap();
    let mut inner = zip::ZipArchive::new(std::io::Cursor::new(inner)).unwrap();
    let mut packed = Vec::new();
    std::io::Read::read_to_end(
        &mut inner.by_name(&format!("{name}.bpmn")).unwrap(),
        &mut packed,
    )
    .unwrap();
    let exported = std::fs::read(out.join(format!("{name}.bpmn"))).unwrap();
    assert!(
        packed == exported,
        "the packed BPMN differs from the exported one"
    );
}

#[test]
fn graph_svg_uses_graphviz_or_says_it_is_missing() {
    // Without Graphviz on the PATH: a clear message and exit code 3.
    let empty = temp_dir("cli-no-dot");
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_toscanini"))
        .args(["graph", "samples/mytinytodo-docker", "--format", "svg"])
        .current_dir(repo())
        .env("PATH", &*empty)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(3));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.starts_with("error: --format svg needs Graphviz (install the `graphviz` package"),
        "{stderr}"
    );
    // With Graphviz (CI installs it): an SVG.
    let has_dot = std::process::Command::new("dot")
        .arg("-V")
        .output()
        .is_ok_and(|o| o.status.success());
    if has_dot {
        let run = toscanini(
            &repo(),
            &["graph", "samples/mytinytodo-docker", "--format", "svg"],
        );
        assert_eq!(run.code, 0, "{}", run.stderr);
        assert!(run.stdout.contains("<svg"), "{}", run.stdout);
        assert!(run.stdout.contains("DockerEngine_w1_0_provision"));
    }
}

#[test]
fn message_format_json_prints_one_object_per_line() {
    let cases = repo().join("tests/cases");
    let dir = temp_dir("cli-json");
    let out = dir.join("out.csar");
    let out = out.to_str().unwrap();
    let json = ["--message-format", "json"];
    let run = toscanini(
        &cases,
        &[&["plan", "depends-on-cycle/input", "-o", out][..], &json].concat(),
    );
    assert_eq!(run.code, 1);
    assert_eq!(run.stdout, "");
    assert_eq!(
        run.stderr,
        concat!(
            r#"{"code":"E0501","severity":"error","#,
            r#""message":"the build plan cannot be ordered: `app_on_server` → `app` → `server_needs_app` → `server` → `app_on_server`","#,
            r#""file":"Definitions/app.tosca","line":36,"column":35,"#,
            r#""hint":"a template cannot (indirectly) be hosted on or depend on itself; remove or reverse one of these relationships"}"#,
            "\n"
        )
    );
    // A problem with the archive as a whole: a file, no line or column.
    let run = toscanini(
        &cases,
        &[
            "--message-format",
            "json",
            "plan",
            "no-meta-two-definitions/input",
            "-o",
            out,
        ],
    );
    assert_eq!(run.code, 1);
    assert_eq!(
        run.stderr,
        concat!(
            r#"{"code":"E0106","severity":"error","#,
            r#""message":"the archive has no TOSCA-Metadata/TOSCA.meta and there are 2 candidates (Definitions/app.tosca, Definitions/other.tosca)","#,
            r#""file":"no-meta-two-definitions/input","line":null,"column":null,"#,
            r#""hint":"add `Entry-Definitions: <path>` to TOSCA-Metadata/TOSCA.meta"}"#,
            "\n"
        )
    );
    // A failure that is not a diagnostic has the same shape, without a code.
    let run = toscanini(&repo(), &[&["plan", "no/such.csar"][..], &json].concat());
    assert_eq!(run.code, 3);
    assert_eq!(
        run.stderr,
        concat!(
            r#"{"code":null,"severity":"error","#,
            r#""message":"cannot open `no/such.csar`: No such file or directory (os error 2)","#,
            r#""file":null,"line":null,"column":null,"hint":null}"#,
            "\n"
        )
    );
    assert!(!std::path::Path::new(out).exists());
}

#[test]
fn inputs_given_when_the_plans_are_made_replace_their_plan_inputs() {
    let dir = temp_dir("cli-input");
    let out = dir.join("unit");
    let export = |extra: &[&str]| {
        let mut args = vec![
            "export",
            "samples/mytinytodo-docker",
            "--plan",
            "build",
            "--out",
            out.to_str().unwrap(),
        ];
        args.extend(extra);
        toscanini(&repo(), &args)
    };
    // OpenTOSCA's `get_input: DockerEngineURL`: a build plan input, or
    // the value given.
    let run = export(&["--input", "DockerEngineURL=tcp://10.0.0.1:2375"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let name = "MyTinyToDo-DockerEngine-Test_w1-wip1_buildPlan";
    let wsdl = std::fs::read_to_string(out.join(format!("{name}.wsdl"))).unwrap();
    let bpel = std::fs::read_to_string(out.join(format!("{name}.bpel"))).unwrap();
    assert!(!wsdl.contains("DockerEngineURL"), "still a plan input");
    assert!(wsdl.contains("ApplicationPort"), "an input not given stays");
    assert!(bpel.contains("'tcp://10.0.0.1:2375'"));
    assert!(bpel.contains(
        "with inputs given when the plans were made: DockerEngineURL = tcp://10.0.0.1:2375;"
    ));
    // A name no property reads is an error where it was given.
    std::fs::remove_dir_all(&out).unwrap();
    let run = export(&["--input", "DockerEngineUrl=x"]);
    assert_eq!(run.code, 1);
    assert!(run.stderr.starts_with(
        "error[E0318]: --input gives `DockerEngineUrl`, which no property of the topology reads (`get_input: DockerEngineUrl`)\n --> --input:1:1\n"
    ), "{}", run.stderr);
    assert!(!out.exists(), "a failed run writes nothing");
}
