//! Artifacts that name a directory or a URL (issue 18 item 3): a directory
//! is kept in the output CSAR and uploaded as one (`dir/`); a URL stays a
//! URL, never read as a path, and goes to the management bus as it is.
//! `get_artifact` (issue 18 item 1) gives an operation an artifact's
//! location the same way, in both plan languages.

use toscanini::compile::{Output, Request, compile};
use toscanini::diagnostics::{Diagnostics, SourceMap};

use crate::support::temp_dir;

const SERVICE: &str = r#"tosca_definitions_version: tosca_simple_yaml_1_3
metadata:
  template_name: artifacts
  template_version: "1.0"
node_types:
  VM:
    derived_from: tosca.nodes.Compute
    interfaces:
      Admin:
        type: tosca.interfaces.Root
        operations:
          transferFile: transfer.sh
topology_template:
  node_templates:
    vm:
      type: VM
      interfaces:
        Standard:
          create: create.sh
    app:
      type: tosca.nodes.SoftwareComponent
      artifacts:
        libs:
          type: tosca.artifacts.File
          file: scripts/lib
        remote:
          type: tosca.artifacts.File
          file: https://example.com/dist/app.tar.gz
        config:
          type: tosca.artifacts.File
          file: scripts/install.sh
          deploy_path: /etc/app/install.sh
      interfaces:
        Standard:
          create:
            implementation:
              primary: scripts/install.sh
              dependencies: [ scripts/lib, https://example.com/dep.sh ]
      requirements:
        - host: vm
"#;

#[test]
fn a_directory_is_kept_and_a_url_stays_a_url() {
    let dir = temp_dir("artifacts");
    for (path, text) in [
        ("service.yaml", SERVICE),
        ("create.sh", "true\n"),
        ("transfer.sh", "true\n"),
        ("scripts/install.sh", "true\n"),
        ("scripts/lib/a.sh", "echo a\n"),
        ("scripts/lib/sub/b.sh", "echo b\n"),
    ] {
        let p = dir.join(path);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, text).unwrap();
    }
    let mut request = Request::new(dir.join("service.yaml"));
    request.output = Output::Memory;
    let mut sources = SourceMap::new();
    let mut warnings = Vec::new();
    let mut report = |d: &Diagnostics, _: &SourceMap| {
        warnings.extend(d.iter().map(|d| d.message.clone()));
    };
    let compiled = compile(&request, &mut sources, &mut report).unwrap();
    // Nothing is missing: the directory is found, the URLs are not paths.
    assert!(
        !warnings.iter().any(|w| w.contains("is not in the CSAR")),
        "{warnings:#?}"
    );
    let csar = open(compiled.csar.unwrap());
    for kept in [
        "scripts/lib/a.sh",
        "scripts/lib/sub/b.sh",
        "scripts/install.sh",
    ] {
        assert!(csar.contains(kept), "{kept} not in the output CSAR");
    }
    // The build plan uploads the directory as one and passes the URL on.
    let build = compiled
        .archives
        .iter()
        .find(|p| p.kind == toscanini::plan::PlanKind::Build)
        .unwrap();
    let plan = open(build.archive().unwrap());
    let bpel = plan.names().find(|n| n.ends_with(".bpel")).unwrap();
    let text = String::from_utf8_lossy(plan.get(bpel).unwrap()).into_owned();
    assert!(
        text.contains("~/artifacts/scripts/lib/"),
        "directory target"
    );
    assert!(text.contains("/scripts/lib/"), "directory source");
    assert!(
        text.contains("https://example.com/dist/app.tar.gz"),
        "URL source"
    );
    assert!(text.contains("~/artifacts/app.tar.gz"), "URL target");
    // An artifact's deploy_path is where its file goes.
    assert!(text.contains("'/etc/app/install.sh'"), "deploy_path target");
    assert!(
        !text.contains("~/artifacts/scripts/install.sh"),
        "deploy_path target"
    );
}

/// A service with `get_artifact` calls of a node's own artifact (`SELF`),
/// its host's (`HOST`, a URL) and another template's, and `node_index`, in
/// TOSCA `version` (`$` says whether calls are written with it).
fn artifact_calls(version: &str, dollar: &str) -> String {
    let profile = if dollar.is_empty() {
        ""
    } else {
        "imports:\n- profile: org.oasis-open.simple:2.0\n"
    };
    let index = if dollar.is_empty() {
        String::new()
    } else {
        "\n              index: $node_index".to_string()
    };
    let topology = if dollar.is_empty() {
        "topology_template"
    } else {
        "service_template"
    };
    format!(
        r#"tosca_definitions_version: {version}
{profile}node_types:
  Web:
    derived_from: tosca.nodes.SoftwareComponent
    interfaces:
      Standard:
        type: tosca.interfaces.node.lifecycle.Standard
        operations:
          create:
            implementation: scripts/install.sh
            inputs:
              own: {{ {dollar}get_artifact: [ SELF, zip ] }}
              image: {{ {dollar}get_artifact: [ HOST, image ] }}
              dump: {{ {dollar}get_artifact: [ db, dump ] }}{index}
{topology}:
  node_templates:
    vm:
      type: tosca.nodes.Compute
      artifacts:
        image:
          type: tosca.artifacts.Deployment.Image.VM
          file: https://example.org/images/vm.qcow2
    db:
      type: tosca.nodes.SoftwareComponent
      artifacts:
        dump:
          type: tosca.artifacts.File
          file: scripts/dump.sql
      requirements:
      - host: vm
    web:
      type: Web
      artifacts:
        zip:
          type: tosca.artifacts.File
          file: scripts/web.zip
      requirements:
      - host: vm
"#
    )
}

#[test]
fn get_artifact_gives_the_operation_the_artifacts_url_in_both_languages() {
    for (version, dollar) in [("tosca_simple_yaml_1_3", ""), ("tosca_2_0", "$")] {
        let dir = temp_dir("get-artifact");
        for (path, text) in [
            ("service.yaml", artifact_calls(version, dollar).as_str()),
            ("scripts/install.sh", "true\n"),
            ("scripts/dump.sql", "x\n"),
            ("scripts/web.zip", "z\n"),
        ] {
            let p = dir.join(path);
            std::fs::create_dir_all(p.parent().unwrap()).unwrap();
            std::fs::write(p, text).unwrap();
        }
        let mut request = Request::new(dir.join("service.yaml"));
        request.output = Output::Memory;
        request.languages = vec![toscanini::Language::Bpel, toscanini::Language::Bpmn];
        let mut sources = SourceMap::new();
        let mut messages = Vec::new();
        let mut report = |d: &Diagnostics, _: &SourceMap| {
            messages.extend(d.iter().map(|d| format!("{}: {}", d.code, d.message)));
        };
        let compiled = compile(&request, &mut sources, &mut report).unwrap();
        // Every form is resolved: nothing passed on as written.
        assert!(
            !messages
                .iter()
                .any(|m| m.starts_with("W0311") || m.starts_with("E0410")),
            "{version}: {messages:#?}"
        );
        let plan_text = |language: toscanini::Language, ext: &str| {
            let build = compiled
                .archives
                .iter()
                .find(|p| p.kind == toscanini::plan::PlanKind::Build && p.language == language)
                .unwrap();
            let plan = open(build.archive().unwrap());
            let name = plan.names().find(|n| n.ends_with(ext)).unwrap().to_string();
            String::from_utf8_lossy(plan.get(&name).unwrap()).into_owned()
        };
        let bpel = plan_text(toscanini::Language::Bpel, ".bpel");
        let bpmn = plan_text(toscanini::Language::Bpmn, ".bpmn");
        for file in ["scripts/web.zip", "scripts/dump.sql"] {
            assert!(
                bpel.contains(&format!("concat($csarEntrypoint, '/Content/{file}')")),
                "{version}: BPEL URL of {file}"
            );
            assert!(
                passes_any(&bpmn, &format!("${{csarEntrypoint}}/Content/{file}")),
                "{version}: BPMN URL of {file}"
            );
        }
        // The host's artifact is a URL, passed on as it is.
        assert!(
            bpel.contains("'https://example.org/images/vm.qcow2'"),
            "{version}"
        );
        assert!(
            passes(&bpmn, "param:image", "https://example.org/images/vm.qcow2"),
            "{version}"
        );
        if !dollar.is_empty() {
            // One instance of `web`: its index is 0.
            assert!(passes(&bpmn, "param:index", "0"), "{version}");
        }
    }
}

fn open(bytes: Vec<u8>) -> toscanini::Csar {
    let path = std::path::Path::new("out.csar");
    toscanini::Csar::from_zip_bytes(path, bytes, &toscanini::Limits::default()).unwrap()
}

/// Whether a BPMN plan passes `target` the JUEL text `juel` into a call:
/// in a call activity's mapping, or in a line of the `steps` of a call of
/// `toscanini_run` (where `${x}` is written `$(x)`).
fn passes(bpmn: &str, target: &str, juel: &str) -> bool {
    let steps = juel.replace("${", "$(").replace('}', ")");
    bpmn.contains(&format!("sourceExpression=\"{juel}\" target=\"{target}\""))
        || bpmn.contains(&format!(" {target}={steps} "))
        || bpmn.contains(&format!(" {target}={steps}&#10;"))
        || bpmn.contains(&format!(" {target}={steps}\""))
}

/// Whether a BPMN plan passes the JUEL text `juel` into a call, as any variable.
fn passes_any(bpmn: &str, juel: &str) -> bool {
    if bpmn.contains(&format!("sourceExpression=\"{juel}\"")) {
        return true;
    }
    // In the steps of a call of toscanini_run, a variable is read by the
    // number the call passes it as (`source="csarEntrypoint" target="v:3"`).
    let var = juel[2..].split('}').next().unwrap();
    bpmn.split("<callActivity ").any(|call| {
        let call = call.split("</callActivity>").next().unwrap();
        let passed = format!("source=\"{var}\" target=\"v:");
        call.split(&passed).skip(1).any(|rest| {
            let number = rest.split('"').next().unwrap();
            let steps = juel
                .replace(&format!("${{{var}}}"), &format!("$({number})"))
                .replace("${", "$(")
                .replace('}', ")");
            [" ", "&#10;", "\""]
                .iter()
                .any(|end| call.contains(&format!("={steps}{end}")))
        })
    })
}
