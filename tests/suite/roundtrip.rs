//! Writing plans back: every other entry is byte-identical, the output is
//! the same from run to run, and running on the output replaces the plans
//! instead of adding more.

use toscanini::csar::{Csar, Limits};
use toscanini::diagnostics::SourceMap;
use toscanini::plan::PlanKind;
use toscanini::plugins::Registry;
use toscanini::render::templates::Templates;

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
    let templates = Templates::embedded().unwrap();
    let rendered: Vec<_> = plans
        .iter()
        .map(|p| toscanini::render::bpel::render(p, &loaded.topology, &templates).unwrap())
        .collect();
    let (changes, _) = toscanini::writeback::changes(&loaded, &rendered).unwrap();
    Some(toscanini::csar::write::archive_bytes(&loaded.csar, &changes).unwrap())
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
