//! Every YAML item of the corpus (../shared/corpus/yaml, listed in
//! manifest.json) either compiles into all its plans, following the 1.3
//! §7.2 rules, or is rejected with exactly the expected error codes (the
//! README's "Corpus" section says why for each).

use std::path::PathBuf;

use toscanini::diagnostics::{Severity, SourceMap};
use toscanini::plan::PlanKind;
use toscanini::plugins::Registry;

use crate::rules::check_declarative;
use crate::support::shared;

/// Corpus items that are rejected, with the (sorted, distinct) codes of
/// their errors: tests/corpus-yaml-rejected.txt (also read by .ci/run).
fn rejected() -> Vec<(String, Vec<String>)> {
    include_str!("../corpus-yaml-rejected.txt")
        .lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
        .map(|l| {
            let (item, codes) = l.split_once(' ').unwrap();
            (
                item.to_string(),
                codes.trim().split(',').map(str::to_string).collect(),
            )
        })
        .collect()
}

/// The YAML items of the corpus, as `<source>/<entry>`, in manifest order.
pub fn corpus_yaml() -> Vec<(String, PathBuf)> {
    let dir = shared().join("corpus");
    let manifest: serde_json::Value =
        serde_json::from_slice(&std::fs::read(dir.join("manifest.json")).unwrap()).unwrap();
    manifest["yaml"]
        .as_array()
        .unwrap()
        .iter()
        .map(|y| {
            let name = format!(
                "{}/{}",
                y["source"].as_str().unwrap(),
                y["entry"].as_str().unwrap()
            );
            let path = dir.join("yaml").join(&name);
            (name, path)
        })
        .collect()
}

#[test]
fn every_yaml_item_compiles_in_order_or_is_rejected_as_expected() {
    let items = corpus_yaml();
    assert_eq!(items.len(), 72);
    let rejected = rejected();
    let mut compiled = 0;
    for (name, path) in items {
        let expected = rejected
            .iter()
            .find(|(n, _)| *n == name)
            .map(|(_, c)| c.iter().map(String::as_str).collect::<Vec<_>>());
        let mut sources = SourceMap::new();
        let options = toscanini::Options::default();
        let loaded = match toscanini::load(&path, &options, &mut sources) {
            Ok(l) => l,
            Err(toscanini::error::Error::Input(d)) => {
                let mut codes: Vec<&str> = d
                    .iter()
                    .filter(|d| d.severity == Severity::Error)
                    .map(|d| d.code)
                    .collect();
                codes.sort();
                codes.dedup();
                assert_eq!(
                    Some(codes),
                    expected,
                    "{name} was rejected unexpectedly: {d:?}"
                );
                continue;
            }
            Err(e) => panic!("{name}: {e}"),
        };
        assert!(expected.is_none(), "{name} should be rejected");
        let (registry, _) = Registry::standard(&[], &mut sources).unwrap();
        let t = &loaded.topology;
        let kinds = toscanini::all_plans(t);
        let (plans, _) = toscanini::derive(t, &kinds, &registry, &options)
            .unwrap_or_else(|e| panic!("{name}: {e:?}"));
        let build = plans
            .iter()
            .find(|p| p.plan.kind == PlanKind::Build)
            .unwrap();
        let termination = plans
            .iter()
            .find(|p| p.plan.kind == PlanKind::Termination)
            .unwrap();
        if t.workflow("deploy").is_none() && t.workflow("undeploy").is_none() {
            check_declarative(&name, t, build, termination);
        }
        compiled += 1;
    }
    assert_eq!(
        compiled,
        72 - rejected.len(),
        "the README's corpus section lists the rejected items"
    );
}
