//! The examples of chapters 2, 7 and 11 of TOSCA Simple Profile 1.3
//! (tests/spec-examples/, with the OASIS notice): every one compiles, and
//! its plans follow the 1.3 §7.2 rules:
//!
//! - per node create → configure → start, and stop → delete;
//! - for every relationship, the target's activity before the source's,
//!   and both before the relationship's own (add_target/add_source);
//! - Configure operations: pre_configure_X before X's configure,
//!   post_configure_X after it and before its start;
//! - nodes on the same host never run in parallel (§7.2.3.1);
//! - termination mirrors the build plan.
//!
//! The edges of every plan are a reviewed snapshot. Each example is a test
//! of its own (`spec_examples::<file>`); the key examples assert their
//! edges explicitly in `spec_key_examples` (the `suite` binary).

use std::path::{Path, PathBuf};

use libtest_mimic::Trial;
use toscanini::plan::PlanKind;

use crate::rules::{check_declarative, edge_ids};
use crate::support::{repo, sorted_dir};

/// Fewer would mean examples went missing from tests/spec-examples.
const AT_LEAST: usize = 55;

fn examples() -> Vec<PathBuf> {
    sorted_dir(&repo().join("tests/spec-examples"))
        .into_iter()
        .filter(|p| p.extension().is_some_and(|e| e == "yaml"))
        .collect()
}

/// One test per example, and one that they are all there.
pub fn trials() -> Vec<Trial> {
    let examples = examples();
    let count = examples.len();
    let mut trials = vec![Trial::test("spec_examples::all_there", move || {
        if count >= AT_LEAST {
            Ok(())
        } else {
            Err(format!("only {count} examples, expected at least {AT_LEAST}").into())
        }
    })];
    trials.extend(examples.into_iter().map(|path| {
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        Trial::test(format!("spec_examples::{name}"), move || {
            check(&path, &name);
            Ok(())
        })
    }));
    trials
}

/// Compile one example: the §7.2 rules (declarative plans), every plan in
/// a topological order, and its edges as the snapshot has them.
fn check(path: &Path, name: &str) {
    let (loaded, plans) = crate::support::all_plans(path);
    let t = loaded.topology;
    let build = plans
        .iter()
        .find(|p| p.plan.kind == PlanKind::Build)
        .unwrap();
    let termination = plans
        .iter()
        .find(|p| p.plan.kind == PlanKind::Termination)
        .unwrap();
    if t.workflow("deploy").is_none() && t.workflow("undeploy").is_none() {
        check_declarative(name, &t, build, termination);
    }
    // Every plan is acyclic and listed in a topological order.
    for p in &plans {
        for e in &p.plan.edges {
            assert!(e.from < e.to, "{name}: {} is out of order", p.plan.kind);
        }
    }
    let mut text = String::new();
    for p in &plans {
        text.push_str(&format!("{}\n", p.plan.kind));
        for (a, b) in edge_ids(p) {
            text.push_str(&format!("  {a} -> {b}\n"));
        }
    }
    // The snapshots keep the names they had when the examples ran in the
    // `suite` binary (module path `suite::spec_examples`).
    insta::with_settings!({ prepend_module_to_snapshot => false }, {
        insta::assert_snapshot!(format!("suite__spec_examples__spec-example-edges__{name}"), text);
    });
}
