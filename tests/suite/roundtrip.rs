//! Writing plans back: every other entry is byte-identical, the output is
//! the same from run to run, and running on the output replaces the plans
//! instead of adding more.

use toscanini::diagnostics::SourceMap;
use toscanini::plan::PlanKind;
use toscanini::plugins::Registry;
use toscanini::{Csar, Limits};

use crate::support::{corpus_xml, temp_dir};

/// Compile `path` and return the bytes of the output CSAR.
fn planned(path: &std::path::Path) -> Option<Vec<u8>> {
    let mut sources = SourceMap::new();
    let options = toscanini::Options::default();
    let loaded = toscanini::load(path, &options, &mut sources).ok()?;
    let (registry, _) = Registry::standard(&[], &mut sources).unwrap();
    let (plans, _) = toscanini::derive(
        &loaded.topology,
        &[PlanKind::Build, PlanKind::Termination],
        &registry,
        &options,
    )
    .unwrap();
    let rendered: Vec<_> = plans
        .iter()
        .map(|p| {
            toscanini::compile::render(p, &loaded.topology, toscanini::Language::Bpel).unwrap()
        })
        .collect();
    let (changes, _) = toscanini::compile::changes(&loaded, &rendered).unwrap();
    Some(toscanini::compile::archive_bytes(&loaded.csar, &changes).unwrap())
}

#[test]
fn plans_go_into_the_csar_and_everything_else_stays() {
    let dir = temp_dir("roundtrip");
    let mut checked = 0;
    for input in corpus_xml() {
        let name = input.file_name().unwrap().to_string_lossy().into_owned();
        let Some(first) = planned(&input) else {
            continue;
        };
        assert_eq!(
            planned(&input).unwrap(),
            first,
            "{name}: output differs between runs"
        );
        let out = dir.join(&name);
        std::fs::write(&out, &first).unwrap();
        let before = Csar::open(&input, &Limits::default()).unwrap();
        let after = Csar::open(&out, &Limits::default()).unwrap();
        let mut sources = SourceMap::new();
        let entry = before.entry_definitions(&mut sources).unwrap();
        let mut added: Vec<&str> = Vec::new();
        for n in after.names() {
            match before.get(n) {
                Some(bytes) if n != entry => {
                    assert_eq!(after.get(n).unwrap(), bytes, "{name}: `{n}` changed")
                }
                Some(_) => {}
                None => added.push(n),
            }
        }
        assert!(
            before.names().all(|n| after.contains(n)),
            "{name}: an entry was lost"
        );
        assert_eq!(
            added.len(),
            2,
            "{name}: expected two plan archives, got {added:?}"
        );
        for plan in &added {
            assert!(
                plan.starts_with("servicetemplates/") && plan.ends_with("Plan.zip"),
                "{name}: {plan}"
            );
        }
        // The entry definitions name both plans and bind them.
        let text = String::from_utf8(after.get(&entry).unwrap().to_vec()).unwrap();
        assert_eq!(
            text.matches("toscanini:generated=\"build\"").count(),
            1,
            "{name}"
        );
        assert_eq!(
            text.matches("toscanini:generated=\"termination\"").count(),
            1,
            "{name}"
        );
        // Planning the output again replaces the plans: same bytes.
        assert_eq!(
            planned(&out).unwrap(),
            first,
            "{name}: a second run changed the output"
        );
        checked += 1;
    }
    assert_eq!(checked, 29);
}

#[test]
fn a_killed_run_leaves_the_old_output_or_the_new_one_never_a_part() {
    // The largest corpus CSAR takes long enough that kills land in every
    // phase: reading, rendering, writing the temporary file, renaming.
    let input = corpus_xml()
        .into_iter()
        .max_by_key(|p| std::fs::metadata(p).map(|m| m.len()).unwrap_or(0))
        .unwrap();
    let dir = temp_dir("killed");
    let out = dir.join("out.csar");
    let bin = env!("CARGO_BIN_EXE_toscanini");
    let run = |out: &std::path::Path| {
        std::process::Command::new(bin)
            .arg("plan")
            .arg(&input)
            .arg("-o")
            .arg(out)
            .arg("--quiet")
            .stderr(std::process::Stdio::null())
            .spawn()
            .unwrap()
    };
    // The complete output, from an undisturbed run.
    let full_path = dir.join("full.csar");
    let started = std::time::Instant::now();
    assert!(run(&full_path).wait().unwrap().success());
    let took = started.elapsed().as_millis() as u64;
    let full = std::fs::read(&full_path).unwrap();
    let mut finished = 0;
    // Twenty kills spread over one run's duration, and a bit beyond.
    for delay_ms in (0..=took + took / 4)
        .step_by((took / 20).max(1) as usize)
        .take(25)
    {
        std::fs::write(&out, b"the previous output").unwrap();
        let mut child = run(&out);
        std::thread::sleep(std::time::Duration::from_millis(delay_ms));
        let _ = child.kill();
        let status = child.wait().unwrap();
        finished += usize::from(status.success());
        let now = std::fs::read(&out).unwrap();
        assert!(
            now == b"the previous output" || now == full,
            "killed after {delay_ms} ms: the output is neither the old file nor the new one ({} bytes)",
            now.len()
        );
    }
    assert!(
        finished < 25,
        "no run was interrupted; the test proves nothing"
    );
}

/// Compile a YAML input into all its plans and return the output bytes.
fn planned_yaml(path: &std::path::Path) -> Vec<u8> {
    let (loaded, plans) = crate::support::all_plans(path);
    let rendered: Vec<_> = plans
        .iter()
        .map(|p| {
            toscanini::compile::render(p, &loaded.topology, toscanini::Language::Bpel).unwrap()
        })
        .collect();
    let (changes, _) = toscanini::compile::changes(&loaded, &rendered).unwrap();
    toscanini::compile::archive_bytes(&loaded.csar, &changes).unwrap()
}

/// What must not change when plans are written back: the templates, their
/// relationships and kinds, and the build order.
fn fingerprint(path: &std::path::Path) -> String {
    let mut sources = SourceMap::new();
    let options = toscanini::Options::default();
    let loaded = toscanini::load(path, &options, &mut sources).unwrap();
    let t = &loaded.topology;
    let mut out = String::new();
    for n in &t.nodes {
        out.push_str(&format!("node {} {}\n", n.id, t.types.get(n.type_id).name));
    }
    for r in &t.relationships {
        out.push_str(&format!(
            "rel {} {} {} -> {}\n",
            r.id,
            r.kind,
            t.node(r.source).id,
            t.node(r.target).id
        ));
    }
    for w in &t.workflows {
        out.push_str(&format!("workflow {} {} steps\n", w.name, w.steps.len()));
    }
    let (registry, _) = Registry::standard(&[], &mut sources).unwrap();
    let (plans, _) = toscanini::derive(t, &[PlanKind::Build], &registry, &options).unwrap();
    for e in &plans[0].plan.edges {
        out.push_str(&format!(
            "edge {} -> {}\n",
            plans[0].plan.activities[e.from].id, plans[0].plan.activities[e.to].id
        ));
    }
    out
}

#[test]
fn yaml_plans_become_workflows_and_the_text_stays_as_written() {
    let corpus = crate::support::shared().join("corpus/yaml");
    let dir = temp_dir("roundtrip-yaml");
    let inputs = [
        crate::support::repo().join("samples/attribute-mapping-yaml"),
        corpus.join("tosca-parser/samples/tests/data/CSAR/csar_elk.csar"),
        corpus.join("tosca-parser/samples/tests/data/CSAR/csar_wordpress.zip"),
        corpus.join("tosca-parser/samples/tests/data/tosca_elk.yaml"),
        corpus.join("puccini/examples/tour/workflows.yaml"),
        corpus.join("puccini/examples/tour/namespaces.yaml"),
        crate::support::repo().join("tests/spec-examples/7.3.4.1.yaml"),
    ];
    for input in inputs {
        let name = input.file_name().unwrap().to_string_lossy().into_owned();
        let first = planned_yaml(&input);
        assert_eq!(
            planned_yaml(&input),
            first,
            "{name}: output differs between runs"
        );
        let out = dir.join(format!("{name}.csar"));
        std::fs::write(&out, &first).unwrap();
        // A second run on the output replaces the plans: the same bytes.
        assert_eq!(
            planned_yaml(&out),
            first,
            "{name}: a second run changed the output"
        );
        // The output describes the same topology and order.
        assert_eq!(
            fingerprint(&out),
            fingerprint(&input),
            "{name}: topology changed"
        );
        let before = Csar::open(&input, &Limits::default()).unwrap();
        let after = Csar::open(&out, &Limits::default()).unwrap();
        let mut sources = SourceMap::new();
        let entry = before.entry_definitions(&mut sources).unwrap();
        let new_entry = after.entry_definitions(&mut sources).unwrap();
        // Single files move under a common root; everything else keeps its name.
        let prefix = new_entry.strip_suffix(&entry).unwrap_or_else(|| {
            panic!("{name}: entry `{entry}` became `{new_entry}`");
        });
        for n in before.names() {
            let moved = if n.starts_with("../") {
                continue; // checked through the topology fingerprint
            } else {
                format!("{prefix}{n}")
            };
            let bytes = after
                .get(&moved)
                .unwrap_or_else(|| panic!("{name}: `{n}` lost"));
            if n != entry {
                assert_eq!(bytes, before.get(n).unwrap(), "{name}: `{n}` changed");
            }
        }
        // The entry is the user's text plus the workflows, nothing else.
        let original = String::from_utf8(before.get(&entry).unwrap().to_vec()).unwrap();
        let written = String::from_utf8(after.get(&new_entry).unwrap().to_vec()).unwrap();
        let stripped = toscanini::compile::user_text(&entry, &written).unwrap();
        let mut lines: Vec<&str> = stripped.split_inclusive('\n').collect();
        if *stripped != original
            && let Some(i) = lines.iter().position(|l| l.trim() == "workflows:")
        {
            lines.remove(i);
        }
        assert_eq!(
            lines.concat(),
            original,
            "{name}: the service template text changed beyond the inserted workflows"
        );
        let plans: Vec<&str> = after.names().filter(|n| n.starts_with("plans/")).collect();
        assert!(plans.len() >= 2, "{name}: {plans:?}");
        // Before TOSCA 1.3 a workflow cannot name its implementation: the
        // plans are in the CSAR, unreferenced.
        let referenced = !original.contains("tosca_simple_yaml_1_0");
        assert_eq!(
            written.matches("toscanini_generated:").count(),
            if referenced { plans.len() } else { 0 },
            "{name}"
        );
    }
}

/// The plans written into a YAML input (BPEL, every plan) and the
/// write-back's diagnostics, as one-line texts.
fn written_back(input: &std::path::Path) -> (crate::support::TempDir, Csar, Vec<String>) {
    let (loaded, plans) = crate::support::all_plans(input);
    let rendered: Vec<_> = plans
        .iter()
        .map(|p| {
            toscanini::compile::render(p, &loaded.topology, toscanini::Language::Bpel).unwrap()
        })
        .collect();
    let (changes, diags) = toscanini::compile::changes(&loaded, &rendered).unwrap();
    let bytes = toscanini::compile::archive_bytes(&loaded.csar, &changes).unwrap();
    let dir = temp_dir("writeback-versions");
    let out = dir.join("out.csar");
    std::fs::write(&out, bytes).unwrap();
    let lines = diags.iter().map(|d| d.one_line()).collect();
    let csar = Csar::open(&out, &Limits::default()).unwrap();
    (dir, csar, lines)
}

#[test]
fn yaml_before_1_3_keeps_its_text_and_the_plans_beside_it() {
    let cases = crate::support::repo().join("tests/cases");
    // TOSCA 1.0 has no workflows; those of 1.1 and 1.2 are steps only.
    for (case, version, plans) in [
        (
            "yaml-writeback-1-0",
            "`tosca_simple_yaml_1_0` has no workflows",
            2,
        ),
        (
            "yaml-writeback-1-1",
            "workflows of `tosca_simple_yaml_1_1` are steps only",
            3,
        ),
        (
            "yaml-writeback-1-2",
            "workflows of `tosca_simple_yaml_1_2` are steps only",
            3,
        ),
    ] {
        let input = cases.join(case).join("input");
        let original = std::fs::read_to_string(input.join("service.yaml")).unwrap();
        let (_dir, after, diags) = written_back(&input);
        let written = String::from_utf8(after.get("service.yaml").unwrap().to_vec()).unwrap();
        // The user's text exactly, less what an earlier run added (1.2).
        let expected = match original.find("    deploy:\n") {
            Some(i) => original[..i].to_string(),
            None => original.clone(),
        };
        assert_eq!(written, expected, "{case}");
        let archives: Vec<&str> = after.names().filter(|n| n.starts_with("plans/")).collect();
        assert_eq!(archives.len(), plans, "{case}: {archives:?}");
        assert_eq!(diags.len(), 1, "{case}: {diags:?}");
        assert!(
            diags[0].starts_with("warning[W0703]: ")
                && diags[0].contains(version)
                && diags[0].ends_with(&format!(
                    "so the service template cannot reference the plans: the {plans} plan archives are in the CSAR under `plans/`, but `service.yaml` does not name them (service.yaml:1:1)"
                )),
            "{case}: {}",
            diags[0]
        );
    }
}

#[test]
fn yaml_1_0_write_back_warning_exact_text() {
    let input = crate::support::repo().join("tests/cases/yaml-writeback-1-0/input");
    let (_dir, _, diags) = written_back(&input);
    assert_eq!(
        diags,
        [
            "warning[W0703]: `tosca_simple_yaml_1_0` has no workflows, so the service template cannot reference the plans: the 2 plan archives are in the CSAR under `plans/`, but `service.yaml` does not name them (service.yaml:1:1)"
        ]
    );
}
