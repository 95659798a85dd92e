//! Artifacts that name a directory or a URL (issue 18 item 3): a directory
//! is kept in the output CSAR and uploaded as one (`dir/`); a URL stays a
//! URL, never read as a path, and goes to the management bus as it is.

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
}

fn open(bytes: Vec<u8>) -> toscanini::Csar {
    let path = std::path::Path::new("out.csar");
    toscanini::Csar::from_zip_bytes(path, bytes, &toscanini::Limits::default()).unwrap()
}
