//! The library's façade is what the command runs: `compile` in memory gives
//! the very CSAR `toscanini plan` writes, warnings reach the caller as the
//! stages find them, and a broken input comes back as its diagnostics.

use toscanini::Language;
use toscanini::compile::{Output, Request, compile};
use toscanini::diagnostics::{Diagnostics, Severity, SourceMap};
use toscanini::error::Error;

use crate::support::{corpus_xml, repo, temp_dir, toscanini};

fn request(input: &std::path::Path) -> Request {
    let mut r = Request::new(input);
    r.languages = vec![Language::Bpel, Language::Bpmn];
    r.output = Output::Memory;
    r
}

#[test]
fn compile_in_memory_gives_the_csar_the_command_writes() {
    let dir = temp_dir("compile-same");
    let mut inputs = corpus_xml();
    inputs.push(repo().join("samples/shop-scale-out-yaml"));
    for input in inputs {
        let mut sources = SourceMap::new();
        let mut warnings = 0;
        let mut report = |d: &Diagnostics, _: &SourceMap| warnings += d.len();
        let compiled = compile(&request(&input), &mut sources, &mut report);
        let out = dir.join("out.csar");
        let run = toscanini(
            &repo(),
            &[
                "plan",
                input.to_str().unwrap(),
                "-o",
                out.to_str().unwrap(),
                "--lang",
                "all",
            ],
        );
        let compiled = match compiled {
            Ok(c) => c,
            Err(Error::Input(d)) => {
                // Rejected: by the command too, with the same errors.
                assert_eq!(run.code, 1, "{}", input.display());
                for e in d.iter().filter(|d| d.severity == Severity::Error) {
                    assert!(
                        run.stderr.contains(&format!("error[{}]", e.code)),
                        "{}: {}",
                        input.display(),
                        e.code
                    );
                }
                continue;
            }
            Err(e) => panic!("{}: {e}", input.display()),
        };
        assert_eq!(run.code, 0, "{}: {}", input.display(), run.stderr);
        let written = std::fs::read(&out).unwrap();
        assert!(
            compiled.csar.as_deref() == Some(written.as_slice()),
            "{}: the library's CSAR differs from the command's",
            input.display()
        );
        // Every plan of the summary is in it, and the command printed the
        // same warnings the library reported.
        assert_eq!(compiled.plans.len(), compiled.archives.len());
        assert!(!compiled.plans.is_empty(), "{}", input.display());
        assert_eq!(
            run.stderr.matches("warning[").count(),
            warnings,
            "{}: {}",
            input.display(),
            run.stderr
        );
    }
}

#[test]
fn an_input_with_errors_comes_back_as_its_diagnostics() {
    let dir = temp_dir("compile-broken");
    let input = dir.join("broken.yaml");
    std::fs::write(
        &input,
        "tosca_definitions_version: tosca_simple_yaml_1_3\ntopology_template:\n  node_templates:\n    a:\n      type: NoSuchType\n",
    )
    .unwrap();
    let mut sources = SourceMap::new();
    let mut report = |_: &Diagnostics, _: &SourceMap| {};
    match compile(&request(&input), &mut sources, &mut report) {
        Err(Error::Input(d)) => {
            let errors: Vec<_> = d.iter().filter(|d| d.severity == Severity::Error).collect();
            assert_eq!(errors.len(), 1, "{d:?}");
            assert!(
                errors[0].message.contains("NoSuchType"),
                "{}",
                errors[0].message
            );
        }
        other => panic!("expected the input's diagnostics, got {other:?}"),
    }
}
