//! Broken and hostile inputs under tests/cases/: each case is a directory
//! with `input/` (an unpacked CSAR) or `input.csar`, and the exact text
//! toscanini prints is a snapshot. A failing case must leave no output.
//! Each case is a test of its own (`cases::<directory>`), so that one
//! failure does not hide the others.

use std::path::{Path, PathBuf};

use libtest_mimic::Trial;

use crate::support::{repo, sorted_dir, temp_dir, toscanini};

/// One test per directory of tests/cases.
pub fn trials() -> Vec<Trial> {
    sorted_dir(&repo().join("tests/cases"))
        .into_iter()
        .map(|case: PathBuf| {
            let name = case.file_name().unwrap().to_string_lossy().into_owned();
            Trial::test(format!("cases::{name}"), move || {
                check(&case, &name);
                Ok(())
            })
        })
        .collect()
}

/// Run `plan` on one case and compare exit code and stderr with its snapshot.
fn check(case: &Path, name: &str) {
    let input = if case.join("input").is_dir() {
        "input"
    } else {
        "input.csar"
    };
    let out_dir = temp_dir(name);
    let out = out_dir.join("out.csar");
    // Extra options (limits, mostly), one per line.
    let extra = std::fs::read_to_string(case.join("args")).unwrap_or_default();
    let mut args = vec!["plan", input, "-o", out.to_str().unwrap(), "--quiet"];
    args.extend(extra.lines().filter(|l| !l.is_empty()));
    let before = fingerprint(&case.join(input));
    let run = toscanini(case, &args);
    assert!(
        !run.stderr.contains("panicked"),
        "{name}: toscanini panicked:\n{}",
        run.stderr
    );
    assert_eq!(
        before,
        fingerprint(&case.join(input)),
        "{name}: the input changed"
    );
    if run.code != 0 {
        assert!(!out.exists(), "{name}: a failed run left an output file");
        assert!(
            std::fs::read_dir(&out_dir).unwrap().next().is_none(),
            "{name}: a failed run left files behind"
        );
    }
    let text = format!(
        "exit code: {}\n{}",
        run.code,
        run.stderr.replace(out_dir.to_str().unwrap(), "<tmp>")
    );
    // The snapshots keep the names they had when the cases ran in the
    // `suite` binary (module path `suite::cases`).
    insta::with_settings!({
        snapshot_suffix => name,
        description => format!("tests/cases/{name}"),
        prepend_module_to_snapshot => false,
    }, {
        insta::assert_snapshot!("suite__cases__case", text);
    });
}

/// Every file under `path` (symbolic links as their target text), with
/// its bytes: equal fingerprints mean an untouched input.
fn fingerprint(path: &std::path::Path) -> Vec<(String, Vec<u8>)> {
    let mut out = Vec::new();
    for entry in walkdir::WalkDir::new(path).sort_by_file_name() {
        let entry = entry.unwrap();
        let p = entry.path();
        let name = p.strip_prefix(path).unwrap().display().to_string();
        if entry.path_is_symlink() {
            let target = std::fs::read_link(p).unwrap();
            out.push((name, target.display().to_string().into_bytes()));
        } else if entry.file_type().is_file() {
            out.push((name, std::fs::read(p).unwrap()));
        }
    }
    out
}
