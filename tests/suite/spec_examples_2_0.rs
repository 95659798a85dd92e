//! The examples of TOSCA Version 2.0 (csd07) that are complete TOSCA files
//! (tests/spec-examples-2.0/<name>/example.yaml and the files it imports,
//! written by extract.py there). Each is a test of its own
//! (`spec_examples_2_0::<name>`):
//!
//! - an example that `tests/spec-examples-2.0/unsupported.txt` lists must
//!   fail (exit code 1) with exactly the error codes listed there; the
//!   line says why (`invalid`: the text says so; `incomplete`: the text
//!   does not define what it uses; `unsupported`: toscanini does not do
//!   what it needs);
//! - every other one compiles with `toscanini plan --lang all` (BPEL and
//!   BPMN; `--profiles profiles` where the example has profile files), and its plans follow the 1.3 §7.2 rules that the 1.3 examples
//!   are held to (tests/suite/rules.rs), in a topological order.
//!
//! Either way nothing may panic, and the exit code, the exact diagnostics
//! and (for a compiled example) the edges of every plan are a reviewed
//! snapshot.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use libtest_mimic::Trial;
use toscanini::plan::PlanKind;

use crate::rules::{check_declarative, edge_ids};
use crate::support::{repo, sorted_dir, temp_dir, toscanini};

/// Fewer would mean examples went missing from tests/spec-examples-2.0.
const AT_LEAST: usize = 26;

/// Why an example is expected to fail.
const KINDS: [&str; 3] = ["invalid", "incomplete", "unsupported"];

fn root() -> PathBuf {
    repo().join("tests/spec-examples-2.0")
}

fn examples() -> Vec<PathBuf> {
    sorted_dir(&root())
        .into_iter()
        .filter(|p| p.join("example.yaml").is_file())
        .collect()
}

/// unsupported.txt: `<name> <kind> <codes, comma-separated> <reason>`
/// per line; `#` starts a comment line.
fn expectations() -> BTreeMap<String, Vec<String>> {
    let text = std::fs::read_to_string(root().join("unsupported.txt")).unwrap();
    let mut out = BTreeMap::new();
    for line in text.lines() {
        if line.trim().is_empty() || line.starts_with('#') {
            continue;
        }
        let fields: Vec<&str> = line.split_whitespace().collect();
        assert!(
            fields.len() >= 4 && KINDS.contains(&fields[1]),
            "unsupported.txt: `{line}` is not `<name> <kind> <codes> <reason>`"
        );
        let mut codes: Vec<String> = fields[2].split(',').map(str::to_string).collect();
        codes.sort();
        assert!(
            out.insert(fields[0].to_string(), codes).is_none(),
            "unsupported.txt: {} twice",
            fields[0]
        );
    }
    out
}

/// One test per example, and one that they (and their expectations) are there.
pub fn trials() -> Vec<Trial> {
    let examples = examples();
    let expected = expectations();
    let names: Vec<String> = examples.iter().map(|p| name_of(p)).collect();
    let listed: Vec<String> = expected.keys().cloned().collect();
    let mut trials = vec![Trial::test("spec_examples_2_0::all_there", move || {
        if names.len() < AT_LEAST {
            return Err(format!(
                "only {} examples, expected at least {AT_LEAST}",
                names.len()
            )
            .into());
        }
        match listed.iter().find(|l| !names.contains(l)) {
            Some(l) => Err(format!("unsupported.txt lists `{l}`, which is no example").into()),
            None => Ok(()),
        }
    })];
    trials.extend(examples.into_iter().map(|dir| {
        let name = name_of(&dir);
        let codes = expected.get(&name).cloned();
        Trial::test(format!("spec_examples_2_0::{name}"), move || {
            check(&dir, &name, codes.as_deref());
            Ok(())
        })
    }));
    trials
}

fn name_of(dir: &Path) -> String {
    dir.file_name().unwrap().to_string_lossy().into_owned()
}

/// Compile one example with the CLI, check it against its expectation,
/// and compare what it printed (and its plans) with the snapshot.
fn check(dir: &Path, name: &str, expected: Option<&[String]>) {
    let out_dir = temp_dir(name);
    let out = out_dir.join("out.csar");
    let out = out.to_str().unwrap();
    let mut plan = vec!["plan", "example.yaml", "-o", out, "--quiet"];
    plan.extend(["--lang", "all"]);
    // The profiles an example imports by name are its catalog (§6.7.3).
    if dir.join("profiles").is_dir() {
        plan.extend(["--profiles", "profiles"]);
    }
    let run = toscanini(dir, &plan);
    assert!(
        !run.stderr.contains("panicked"),
        "{name}: toscanini panicked:\n{}",
        run.stderr
    );
    let mut text = format!("exit code: {}\n{}", run.code, run.stderr);
    match expected {
        Some(codes) => {
            assert_eq!(run.code, 1, "{name} should fail:\n{}", run.stderr);
            let json = toscanini(dir, &[&plan[..], &["--message-format", "json"]].concat());
            assert_eq!(error_codes(&json.stderr), codes, "{name}: the error codes");
        }
        None => {
            assert_eq!(run.code, 0, "{name} should compile:\n{}", run.stderr);
            text.push_str(&plan_edges(&dir.join("example.yaml"), name));
        }
    }
    insta::with_settings!({
        snapshot_suffix => name,
        description => format!("tests/spec-examples-2.0/{name}"),
        prepend_module_to_snapshot => false,
    }, {
        insta::assert_snapshot!("suite__spec_examples_2_0", text);
    });
}

/// The codes of the errors among JSON diagnostics, sorted.
fn error_codes(stderr: &str) -> Vec<String> {
    let mut codes: Vec<String> = stderr
        .lines()
        .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
        .filter(|d| d["severity"] == "error")
        .map(|d| d["code"].as_str().unwrap_or("none").to_string())
        .collect();
    codes.sort();
    codes
}

/// The §7.2 rules (declarative plans), every plan in a topological
/// order, and the edges of every plan as text.
fn plan_edges(path: &Path, name: &str) -> String {
    let (loaded, plans) = crate::support::all_plans(path);
    let t = loaded.topology;
    let of = |kind: PlanKind| plans.iter().find(|p| p.plan.kind == kind).unwrap();
    if t.workflow("deploy").is_none() && t.workflow("undeploy").is_none() {
        check_declarative(name, &t, of(PlanKind::Build), of(PlanKind::Termination));
    }
    let mut text = String::from("--- plan edges\n");
    for p in &plans {
        for e in &p.plan.edges {
            assert!(e.from < e.to, "{name}: {} is out of order", p.plan.kind);
        }
        text.push_str(&format!("{}\n", p.plan.kind));
        for (a, b) in edge_ids(p) {
            text.push_str(&format!("  {a} -> {b}\n"));
        }
    }
    text
}
