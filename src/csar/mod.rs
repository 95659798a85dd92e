//! Stage 1: the archive. A CSAR is read from a `.csar`/`.zip` file, an
//! unpacked directory, or a single YAML file, into memory, with limits
//! against hostile input and no entry able to name a file outside the root.
//!
//! In: a path. Out: a [`Csar`] (entries by name, TOSCA.meta, the entry
//! definitions) or diagnostics. [`write`](mod@write) puts generated plans back.

pub(crate) mod limits;
pub(crate) mod meta;
pub(crate) mod path;
mod read;
pub(crate) mod write;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

pub use limits::Limits;
pub(crate) use meta::{META_PATH, ToscaMeta};

use crate::diagnostics::{Diagnostic, Diagnostics, Location, SourceFile, SourceMap, codes};
use crate::error::Result;

/// What kind of input a CSAR was read from.
#[derive(Clone, Debug)]
pub enum Origin {
    /// A zip archive; its bytes are kept so that unchanged entries can be
    /// copied into the output without recompression.
    Zip(Arc<[u8]>),
    /// An unpacked CSAR directory.
    Directory,
    /// A single service-template file; the CSAR root is its directory, and
    /// files it imports from elsewhere are loaded on demand.
    File,
}

/// An opened CSAR: every entry in memory, by normalised name.
#[derive(Clone, Debug)]
pub struct Csar {
    /// The path that was opened.
    pub path: PathBuf,
    /// What it was.
    pub origin: Origin,
    /// File entries by name (sorted, so iteration is deterministic).
    entries: BTreeMap<String, Content>,
    /// The limits it was read with (applied again to files loaded later).
    limits: Limits,
}

/// The content of an entry: text where it is UTF-8, so that the source
/// file read from it shares it (a 100k-node Definitions document is 50 MB),
/// bytes otherwise.
#[derive(Clone, Debug)]
pub(crate) enum Content {
    /// Valid UTF-8.
    Text(Arc<str>),
    /// Anything else.
    Bytes(Arc<[u8]>),
}

impl Content {
    /// The content of an entry read into `bytes`.
    pub(crate) fn new(bytes: Vec<u8>) -> Content {
        match String::from_utf8(bytes) {
            Ok(text) => Content::Text(Arc::from(text)),
            Err(e) => Content::Bytes(Arc::from(e.into_bytes().into_boxed_slice())),
        }
    }

    /// Its bytes.
    pub(crate) fn bytes(&self) -> &[u8] {
        match self {
            Content::Text(t) => t.as_bytes(),
            Content::Bytes(b) => b,
        }
    }
}

impl Csar {
    /// Open `path` as a zip archive, a directory or a single YAML file.
    pub fn open(path: &Path, limits: &Limits) -> Result<Csar> {
        read::open(path, limits)
    }

    /// Read a zip archive held in memory, under `limits` (fuzzing, tests);
    /// `path` names it in diagnostics.
    pub fn from_zip_bytes(path: &Path, bytes: Vec<u8>, limits: &Limits) -> Result<Csar> {
        read::open_zip(path, bytes, limits)
    }

    /// Build a CSAR from in-memory entries (tests, the benchmark generator).
    pub fn from_entries(
        path: impl Into<PathBuf>,
        entries: impl IntoIterator<Item = (String, Vec<u8>)>,
    ) -> Csar {
        Csar {
            path: path.into(),
            origin: Origin::Directory,
            entries: entries
                .into_iter()
                .map(|(k, v)| (k, Content::new(v)))
                .collect(),
            limits: Limits::default(),
        }
    }

    /// Names of all file entries, sorted.
    pub fn names(&self) -> impl Iterator<Item = &str> {
        self.entries.keys().map(String::as_str)
    }

    /// The bytes of an entry.
    pub fn get(&self, name: &str) -> Option<&[u8]> {
        self.entries.get(name).map(Content::bytes)
    }

    /// Whether an entry exists.
    pub fn contains(&self, name: &str) -> bool {
        self.entries.contains_key(name)
    }

    /// For a single-file input: load a file next to (or below, or above)
    /// the service template on demand, as relative imports need.
    /// `name` is relative to the CSAR root and may start with `../`.
    pub fn load_on_demand(&mut self, name: &str) -> Option<&[u8]> {
        if !self.entries.contains_key(name) && matches!(self.origin, Origin::File) {
            let base = self.path.parent().unwrap_or(Path::new("."));
            let bytes = read::read_limited_file(&base.join(name), &self.limits).ok()?;
            self.entries.insert(name.to_string(), Content::new(bytes));
        }
        self.get(name)
    }

    /// The limits it was read with.
    pub(crate) fn limits(&self) -> &Limits {
        &self.limits
    }

    /// Whether `dir` is a directory of the archive: some entry lies below
    /// it. For a single-file input its files are read from beside the file,
    /// as [`Csar::load_on_demand`] reads one (each under the size limit, at
    /// most the entry limit of them), so that the output CSAR keeps the
    /// directory.
    pub(crate) fn load_dir_on_demand(&mut self, dir: &str) -> bool {
        let prefix = format!("{}/", dir.trim_end_matches('/'));
        let below = |entries: &BTreeMap<String, Content>| {
            entries
                .range(prefix.clone()..)
                .next()
                .is_some_and(|(k, _)| k.starts_with(&prefix))
        };
        if below(&self.entries) {
            return true;
        }
        if !matches!(self.origin, Origin::File) {
            return false;
        }
        let base = self.path.parent().unwrap_or(Path::new(".")).to_path_buf();
        let files = walkdir::WalkDir::new(base.join(dir))
            .sort_by_file_name()
            .into_iter()
            .filter_map(|e| e.ok())
            .filter(|e| e.file_type().is_file())
            .take(self.limits.max_entries);
        for file in files {
            let Ok(rel) = file.path().strip_prefix(&base) else {
                continue;
            };
            let name: Vec<String> = rel
                .components()
                .map(|c| c.as_os_str().to_string_lossy().into_owned())
                .collect();
            if let Ok(bytes) = read::read_limited_file(file.path(), &self.limits) {
                self.entries.insert(name.join("/"), Content::new(bytes));
            }
        }
        below(&self.entries)
    }

    /// The text of an entry as a [`SourceFile`]; invalid UTF-8 is a
    /// diagnostic. A UTF-8 byte order mark is dropped.
    pub fn source(&self, name: &str) -> Result<SourceFile, Diagnostic> {
        let content = self.entries.get(name).ok_or_else(|| {
            Diagnostic::error(
                codes::META_ENTRY_MISSING,
                format!("`{name}` is not in the archive"),
            )
        })?;
        if let Content::Text(text) = content
            && !text.starts_with('\u{feff}')
        {
            return Ok(SourceFile::shared(name, text.clone()));
        }
        let bytes = content.bytes();
        let bytes = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes);
        match std::str::from_utf8(bytes) {
            Ok(text) => Ok(SourceFile::new(name, text)),
            Err(e) => {
                let prefix = String::from_utf8_lossy(&bytes[..e.valid_up_to()]);
                let line = prefix.matches('\n').count() as u32 + 1;
                Err(Diagnostic::error(
                    codes::CSAR_NOT_UTF8,
                    format!(
                        "`{name}` is not valid UTF-8 (invalid byte at offset {})",
                        e.valid_up_to()
                    ),
                )
                .at(Location {
                    file: name.to_string(),
                    line,
                    column: 1,
                    length: 0,
                })
                .hint("save the file as UTF-8"))
            }
        }
    }

    /// Parse TOSCA-Metadata/TOSCA.meta if present.
    pub fn meta(&self, sources: &mut SourceMap) -> (Option<ToscaMeta>, Diagnostics) {
        if !self.contains(META_PATH) {
            return (None, Diagnostics::new());
        }
        match self.source(META_PATH) {
            Ok(file) => {
                let file = sources.add(file);
                let (meta, diags) = ToscaMeta::parse(&file);
                (Some(meta), diags)
            }
            Err(d) => (None, d.into()),
        }
    }

    /// Find the entry definitions: TOSCA.meta's `Entry-Definitions`, else the
    /// single definitions file at the root or in `Definitions/`.
    pub fn entry_definitions(&self, sources: &mut SourceMap) -> Result<String, Diagnostics> {
        if let Origin::File = self.origin {
            let name = self
                .path
                .file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_default();
            return Ok(name);
        }
        let (meta, mut diags) = self.meta(sources);
        if diags.has_errors() {
            return Err(diags);
        }
        if let Some(meta) = &meta
            && let Some(entry) = meta.entry_definitions()
        {
            let file = sources.get(META_PATH).cloned();
            let loc = file.as_ref().map(|f| f.location(entry.span));
            return match path::normalize(&entry.value) {
                Err(why) => {
                    diags.push(
                        Diagnostic::error(
                            codes::CSAR_PATH_ESCAPE,
                            format!("Entry-Definitions `{}` {why}", entry.value),
                        )
                        .at_opt(loc)
                        .hint("Entry-Definitions is a path relative to the CSAR root"),
                    );
                    Err(diags)
                }
                Ok(name) if self.contains(&name) => Ok(name),
                Ok(name) => {
                    diags.push(
                        Diagnostic::error(
                            codes::META_ENTRY_MISSING,
                            format!(
                                "Entry-Definitions names `{name}`, which is not in the archive"
                            ),
                        )
                        .at_opt(loc)
                        .hint(self.nearby_hint()),
                    );
                    Err(diags)
                }
            };
        }
        // No Entry-Definitions: the single definitions document (TOSCA 1.0:
        // Definitions/; Simple Profile 1.3 §6.3: a YAML file at the root).
        let candidates: Vec<&str> = self
            .names()
            .filter(|n| {
                let top = !n.contains('/');
                let defs = n.starts_with("Definitions/") && n.matches('/').count() == 1;
                (defs && (n.ends_with(".tosca") || n.ends_with(".xml")))
                    || (top && (n.ends_with(".yaml") || n.ends_with(".yml")))
            })
            .collect();
        let top_yaml: Vec<&str> = candidates
            .iter()
            .copied()
            .filter(|n| !n.contains('/'))
            .collect();
        let chosen = if top_yaml.len() == 1 {
            Some(top_yaml[0])
        } else if candidates.len() == 1 {
            Some(candidates[0])
        } else {
            None
        };
        match chosen {
            Some(c) => Ok(c.to_string()),
            None => {
                let why = if candidates.is_empty() {
                    "and no definitions file was found at the root or in `Definitions/`".to_string()
                } else {
                    format!(
                        "and there are {} candidates ({})",
                        candidates.len(),
                        candidates.join(", ")
                    )
                };
                let what = if meta.is_some() {
                    "TOSCA.meta has no Entry-Definitions"
                } else {
                    "the archive has no TOSCA-Metadata/TOSCA.meta"
                };
                diags.push(
                    Diagnostic::error(codes::META_NO_ENTRY, format!("{what} {why}"))
                        .at(Location::file(self.path.display().to_string()))
                        .hint("add `Entry-Definitions: <path>` to TOSCA-Metadata/TOSCA.meta"),
                );
                Err(diags)
            }
        }
    }

    fn nearby_hint(&self) -> String {
        let defs: Vec<&str> = self
            .names()
            .filter(|n| n.ends_with(".tosca") || n.ends_with(".yaml") || n.ends_with(".yml"))
            .take(3)
            .collect();
        if defs.is_empty() {
            "the archive contains no definitions file".to_string()
        } else {
            format!("definitions files in the archive: {}", defs.join(", "))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_entries_are_shared_with_their_source_files_and_bytes_kept() {
        let csar = Csar::from_entries(
            "t",
            [
                ("plain.yaml".to_string(), b"a: 1\n".to_vec()),
                ("bom.yaml".to_string(), b"\xEF\xBB\xBFb: 2\n".to_vec()),
                ("binary.bin".to_string(), vec![0xff, 0xfe, 0x00]),
            ],
        );
        // The bytes of every entry are kept as they were.
        assert_eq!(csar.get("bom.yaml"), Some(&b"\xEF\xBB\xBFb: 2\n"[..]));
        assert_eq!(csar.get("binary.bin"), Some(&[0xff, 0xfe, 0x00][..]));
        // A text entry's source file is the entry itself, not a copy.
        let Some(Content::Text(text)) = csar.entries.get("plain.yaml") else {
            panic!("a UTF-8 entry is kept as text");
        };
        let source = csar.source("plain.yaml").unwrap();
        assert_eq!(source.text(), "a: 1\n");
        assert_eq!(source.text().as_ptr(), text.as_ptr());
        // A byte order mark is dropped from the source file only.
        assert_eq!(csar.source("bom.yaml").unwrap().text(), "b: 2\n");
        // Other bytes are no source file.
        let e = csar.source("binary.bin").unwrap_err();
        assert_eq!(e.code, codes::CSAR_NOT_UTF8);
    }
}
