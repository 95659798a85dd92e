//! Helpers shared by the test modules.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::atomic::{AtomicUsize, Ordering};

/// The repository root.
pub fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// `../shared` beside the repository (the corpus and the validators). The
/// tests need it: a missing corpus is a failure, not a skip.
pub fn shared() -> PathBuf {
    let p = repo().join("../shared");
    assert!(
        p.join("corpus").is_dir(),
        "the corpus is expected at {}",
        p.display()
    );
    p
}

/// Sorted entries of a directory.
pub fn sorted_dir(dir: &Path) -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.unwrap().path())
        .collect();
    v.sort();
    v
}

/// A fresh empty directory for one test, removed when the test is done
/// with it (also when it fails: what an assertion needs is in its message).
pub fn temp_dir(label: &str) -> TempDir {
    static N: AtomicUsize = AtomicUsize::new(0);
    let d = std::env::temp_dir().join(format!(
        "toscanini-test-{}-{}-{label}",
        std::process::id(),
        N.fetch_add(1, Ordering::SeqCst)
    ));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    TempDir(d)
}

/// A test's directory, removed with everything in it when dropped.
pub struct TempDir(PathBuf);

impl std::ops::Deref for TempDir {
    type Target = PathBuf;
    fn deref(&self) -> &PathBuf {
        &self.0
    }
}

impl AsRef<Path> for TempDir {
    fn as_ref(&self) -> &Path {
        &self.0
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// The result of running the binary.
pub struct Run {
    pub code: i32,
    pub stdout: String,
    pub stderr: String,
}

/// Run the `toscanini` binary in `cwd`.
pub fn toscanini(cwd: &Path, args: &[&str]) -> Run {
    let out = Command::new(env!("CARGO_BIN_EXE_toscanini"))
        .args(args)
        .current_dir(cwd)
        .output()
        .expect("run toscanini");
    Run {
        code: out.status.code().unwrap_or(-1),
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    }
}

/// The corpus CSARs.
pub fn corpus_xml() -> Vec<PathBuf> {
    sorted_dir(&shared().join("corpus/xml"))
        .into_iter()
        .filter(|p| p.extension().is_some_and(|e| e == "csar"))
        .collect()
}

/// Load `path` (any input toscanini takes) and derive every plan it has,
/// with the default options; panics with the diagnostics on failure.
pub fn all_plans(path: &Path) -> (toscanini::Loaded, Vec<toscanini::plugins::ConcretePlan>) {
    all_plans_with(path, &toscanini::Options::default())
}

/// [`all_plans`] with `options`.
pub fn all_plans_with(
    path: &Path,
    options: &toscanini::Options,
) -> (toscanini::Loaded, Vec<toscanini::plugins::ConcretePlan>) {
    let mut sources = toscanini::diagnostics::SourceMap::new();
    let loaded = toscanini::load(path, options, &mut sources)
        .unwrap_or_else(|e| panic!("{}: {e:?}", path.display()));
    let (registry, _) = toscanini::plugins::Registry::standard(&[], &mut sources).unwrap();
    let kinds = toscanini::all_plans(&loaded.topology);
    let (plans, _) = toscanini::derive(&loaded.topology, &kinds, &registry, options)
        .unwrap_or_else(|e| panic!("{}: {e:?}", path.display()));
    (loaded, plans)
}

/// The text of the main file of `plan` in `language` (the BPEL process,
/// the BPMN model), rendered with the default layout.
pub fn main_file(
    plan: &toscanini::plugins::ConcretePlan,
    topology: &toscanini::model::Topology,
    language: toscanini::Language,
) -> String {
    let r = toscanini::compile::render(plan, topology, language).unwrap();
    String::from_utf8(r.files[0].data.clone()).unwrap()
}

/// The edges of an abstract plan as pairs of activity ids.
pub fn plan_edges(
    p: &toscanini::plan::AbstractPlan,
) -> std::collections::BTreeSet<(String, String)> {
    p.edges
        .iter()
        .map(|e| {
            (
                p.activities[e.from].id.clone(),
                p.activities[e.to].id.clone(),
            )
        })
        .collect()
}

/// Pairs of ids, as [`plan_edges`] gives them.
pub fn id_pairs(pairs: &[(&str, &str)]) -> std::collections::BTreeSet<(String, String)> {
    pairs
        .iter()
        .map(|(a, b)| (a.to_string(), b.to_string()))
        .collect()
}
