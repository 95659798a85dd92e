//! Broken and hostile inputs under tests/cases/: each case is a directory
//! with `input/` (an unpacked CSAR) or `input.csar`, and the exact text
//! toscanini prints is a snapshot. A failing case must leave no output.

use crate::support::{repo, sorted_dir, temp_dir, toscanini};

#[test]
fn every_case_gives_its_exact_diagnostics() {
    let cases = repo().join("tests/cases");
    for case in sorted_dir(&cases) {
        let name = case.file_name().unwrap().to_string_lossy().into_owned();
        let input = if case.join("input").is_dir() {
            "input"
        } else {
            "input.csar"
        };
        let out_dir = temp_dir(&name);
        let out = out_dir.join("out.csar");
        let run = toscanini(
            &case,
            &["plan", input, "-o", out.to_str().unwrap(), "--quiet"],
        );
        if run.code != 0 {
            assert!(!out.exists(), "{name}: a failed run left an output file");
        }
        let text = format!(
            "exit code: {}\n{}",
            run.code,
            run.stderr.replace(out_dir.to_str().unwrap(), "<tmp>")
        );
        insta::with_settings!({ snapshot_suffix => name.clone(), description => format!("tests/cases/{name}") }, {
            insta::assert_snapshot!("case", text);
        });
    }
}
