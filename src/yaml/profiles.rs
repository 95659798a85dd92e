//! The catalog of TOSCA 2.0 profiles (§6.7): the files an `imports` entry
//! `profile: NAME` resolves to. A profile is a TOSCA file that declares
//! `profile: NAME`; the catalog is every such file in the directories
//! given with `--profiles` (read recursively, `.yaml` and `.yml`), several
//! versions side by side (`org.base:v1`, `org.base:v2`: a version is part
//! of the name, §6.7.3). The Simple Profile is built in and needs no
//! catalog ([`super::imports::is_simple_profile`]).
//!
//! In: the catalog directories, opened as archives (each under the input's
//! limits) only when some file imports a profile. Out: for a profile
//! name, the archive and the file that declares it, or a diagnostic that
//! says which names the catalog has.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::Arc;

use super::node::{self, LoadLimits};
use crate::csar::{Csar, Limits};
use crate::diagnostics::{Diagnostic, Diagnostics, SourceFile, SourceMap, Span, codes};

/// The profile directories, and what they declare once read.
pub(crate) struct Catalog {
    dirs: Vec<PathBuf>,
    limits: Limits,
    /// The directories opened as archives, in the order given.
    archives: Vec<Csar>,
    /// Profile name → (archive index, file name in it).
    names: BTreeMap<String, (usize, String)>,
    /// Whether the directories were read.
    read: bool,
}

impl Catalog {
    /// A catalog of the profile files in `dirs`, read on first use.
    pub(crate) fn new(dirs: &[PathBuf], limits: &Limits) -> Catalog {
        Catalog {
            dirs: dirs.to_vec(),
            limits: limits.clone(),
            archives: Vec::new(),
            names: BTreeMap::new(),
            read: false,
        }
    }

    /// The archive of catalog directory `i`.
    pub(crate) fn archive(&mut self, i: usize) -> &mut Csar {
        &mut self.archives[i]
    }

    /// How a file of archive `i` is named in diagnostics: its path.
    pub(crate) fn display_name(&self, i: usize, name: &str) -> String {
        format!("{}/{name}", self.dirs[i].display())
    }

    /// The file of archive `i` named `name` as a source, named by its path.
    pub(crate) fn source(&self, i: usize, name: &str) -> Result<SourceFile, Diagnostic> {
        let text = self.archives[i].source(name)?;
        Ok(SourceFile::new(
            self.display_name(i, name),
            text.text().to_string(),
        ))
    }

    /// Where profile `name` is declared: (archive index, file name), or
    /// the error that says it is not in the catalog. Problems of the
    /// catalog itself (unreadable directories and files, a name declared
    /// twice) go to `diags` the first time.
    pub(crate) fn find(
        &mut self,
        name: &str,
        diags: &mut Diagnostics,
        sources: &mut SourceMap,
    ) -> Result<(usize, String), Diagnostic> {
        if !self.read {
            self.read = true;
            self.read_dirs(diags, sources);
        }
        if let Some(found) = self.names.get(name) {
            return Ok(found.clone());
        }
        Err(self.missing(name))
    }

    /// Open every directory and note the profile each file declares.
    fn read_dirs(&mut self, diags: &mut Diagnostics, sources: &mut SourceMap) {
        for i in 0..self.dirs.len() {
            let dir = self.dirs[i].clone();
            let csar = match Csar::open(&dir, &self.limits) {
                Ok(c) => c,
                Err(e) => {
                    diags.push(
                        Diagnostic::error(
                            codes::YAML_PROFILE,
                            format!("the profile directory `{}` cannot be read: {e}", dir.display()),
                        )
                        .hint("--profiles names a directory of TOSCA files that declare `profile: NAME`"),
                    );
                    // An empty archive keeps the indices of the others.
                    Csar::from_entries(dir, std::iter::empty())
                }
            };
            self.archives.push(csar);
            let files: Vec<String> = self.archives[i]
                .names()
                .filter(|n| n.ends_with(".yaml") || n.ends_with(".yml"))
                .map(str::to_string)
                .collect();
            for file in files {
                if let Some((name, at)) = self.declared(i, &file) {
                    self.note(name, at, i, file, diags, sources);
                }
            }
        }
    }

    /// The profile name file `file` of archive `i` declares, if any, and
    /// the file with the name's span. A file that is not YAML is no
    /// profile (a catalog may hold others).
    fn declared(&self, i: usize, file: &str) -> Option<(String, (SourceFile, Span))> {
        let source = Arc::new(self.source(i, file).ok()?);
        let root = node::parse(&source, LoadLimits::default()).ok()?;
        let value = root.get("profile")?;
        let name = value.as_str()?.to_string();
        let span = value.span;
        let file = Arc::try_unwrap(source)
            .ok()
            .or_else(|| self.source(i, file).ok())?;
        Some((name, (file, span)))
    }

    /// Note that `file` of archive `i` declares `name`; a name declared
    /// twice is an error naming both files (the first is kept).
    fn note(
        &mut self,
        name: String,
        (source, span): (SourceFile, Span),
        i: usize,
        file: String,
        diags: &mut Diagnostics,
        sources: &mut SourceMap,
    ) {
        if let Some((j, first)) = self.names.get(&name) {
            let at = sources.add(source).location(span);
            diags.push(
                Diagnostic::error(
                    codes::YAML_PROFILE,
                    format!(
                        "the profile `{name}` is declared twice in the catalog: by `{}` and by `{}`",
                        self.display_name(*j, first),
                        self.display_name(i, &file)
                    ),
                )
                .at(at)
                .hint(format!(
                    "give each version its own name (`{name}` is used from `{}`)",
                    self.display_name(*j, first)
                )),
            );
            return;
        }
        self.names.insert(name, (i, file));
    }

    /// The error for a profile the catalog does not have: the versions of
    /// it that it has, or else every name it has.
    fn missing(&self, name: &str) -> Diagnostic {
        let base = name.rsplit_once(':').map_or(name, |(b, _)| b);
        let versions: Vec<&str> = self
            .names
            .keys()
            .filter(|n| n.rsplit_once(':').map_or(n.as_str(), |(b, _)| b) == base)
            .map(String::as_str)
            .collect();
        let mut d = Diagnostic::error(
            codes::YAML_IMPORT,
            format!("the profile `{name}` is not in the catalog"),
        );
        d = if !versions.is_empty() {
            d.note(format!("the catalog has {}", quoted(&versions)))
        } else if self.names.is_empty() {
            d.note(if self.dirs.is_empty() {
                "no profile directory was given; the TOSCA Simple Profile is built in".to_string()
            } else {
                "the profile directories declare no profile".to_string()
            })
        } else {
            let all: Vec<&str> = self.names.keys().map(String::as_str).collect();
            d.note(format!("the catalog has {}", quoted(&all)))
        };
        d.hint("`--profiles DIR` adds a directory of profile files, each declaring `profile: NAME`; toscanini never downloads profiles")
    }
}

/// `a`, `b` and `c`, each in backquotes.
fn quoted(names: &[&str]) -> String {
    let q: Vec<String> = names.iter().map(|n| format!("`{n}`")).collect();
    match q.split_last() {
        Some((last, [])) => last.clone(),
        Some((last, rest)) => format!("{} and {last}", rest.join(", ")),
        None => String::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn catalog(files: &[(&str, &str)]) -> (tempdir::Dir, Catalog) {
        let dir = tempdir::Dir::new();
        for (name, text) in files {
            let path = dir.path().join(name);
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(path, text).unwrap();
        }
        let c = Catalog::new(&[dir.path().to_path_buf()], &Limits::default());
        (dir, c)
    }

    #[test]
    fn finds_each_version_by_its_name() {
        let (_d, mut c) = catalog(&[
            (
                "base/v1.yaml",
                "tosca_definitions_version: tosca_2_0\nprofile: org.base:v1\n",
            ),
            (
                "base/v2.yaml",
                "tosca_definitions_version: tosca_2_0\nprofile: org.base:v2\n",
            ),
            ("other.yaml", "tosca_definitions_version: tosca_2_0\n"),
            ("notes.txt", "profile: not-a-profile\n"),
        ]);
        let (mut diags, mut sources) = (Diagnostics::new(), SourceMap::new());
        let mut find = |n: &str| c.find(n, &mut diags, &mut sources);
        assert_eq!(find("org.base:v2").unwrap().1, "base/v2.yaml");
        assert_eq!(find("org.base:v1").unwrap().1, "base/v1.yaml");
        let missing = find("org.base:v3").unwrap_err();
        assert_eq!(
            missing.message,
            "the profile `org.base:v3` is not in the catalog"
        );
        assert!(diags.is_empty());
    }

    #[test]
    fn a_name_declared_twice_is_an_error() {
        let (_d, mut c) = catalog(&[("a.yaml", "profile: p\n"), ("b.yaml", "profile: p\n")]);
        let (mut diags, mut sources) = (Diagnostics::new(), SourceMap::new());
        assert_eq!(c.find("p", &mut diags, &mut sources).unwrap().1, "a.yaml");
        assert_eq!(diags.len(), 1);
    }

    #[test]
    fn names_are_listed_with_and() {
        assert_eq!(quoted(&["a"]), "`a`");
        assert_eq!(quoted(&["a", "b", "c"]), "`a`, `b` and `c`");
    }

    /// A directory removed when dropped.
    mod tempdir {
        pub(super) struct Dir(std::path::PathBuf);
        impl Dir {
            pub(super) fn new() -> Dir {
                use std::sync::atomic::{AtomicUsize, Ordering};
                static N: AtomicUsize = AtomicUsize::new(0);
                let p = std::env::temp_dir().join(format!(
                    "toscanini-profiles-{}-{}",
                    std::process::id(),
                    N.fetch_add(1, Ordering::Relaxed)
                ));
                std::fs::create_dir_all(&p).unwrap();
                Dir(p)
            }
            pub(super) fn path(&self) -> &std::path::Path {
                &self.0
            }
        }
        impl Drop for Dir {
            fn drop(&mut self) {
                let _ = std::fs::remove_dir_all(&self.0);
            }
        }
    }
}
