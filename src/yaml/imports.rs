//! Loading a TOSCA YAML service template and every file it imports.
//!
//! In: the CSAR and the entry definitions. Out: the parsed files and the
//! *units* to compile — a file together with the namespace scope it was
//! imported under (`namespace_prefix` in 1.x, `namespace` in 2.0; scopes
//! nest, so `mongodb:database:Database` names a type of a file that
//! `mongodb` imports as `database`).
//!
//! Relative imports resolve against the importing file; in 2.0 a path
//! with a leading `/` starts at the root of the CSAR (§6.8.2.2). A single `.yaml`
//! given on the command line may import files outside its directory; they
//! are read on demand. Nothing is ever fetched: a URL or a repository
//! import is an error that names it (E0306). The Simple Profile types are
//! built in (see [`super::normative`]): 1.x files get them implicitly, 2.0
//! files through a Simple Profile `profile` import or the `tosca:` prefix.
//! As tosca-parser does, a relative import that is not found beside the
//! importing file is looked up in the directories above it (a warning).

use foldhash::HashMap;
use std::path::PathBuf;
use std::sync::Arc;

use super::ast::{File, Import, Spanned};
use super::import_paths::{Root, absolute, relative};
use super::node::{self, LoadLimits};
use super::profiles::Catalog;
use super::reader;
use super::version::{Detected, Version, detect};
use crate::csar::{Csar, Origin};
use crate::diagnostics::{Diagnostic, Diagnostics, Location, SourceFile, SourceMap, Span, codes};

/// A file to compile under a namespace scope.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Unit {
    /// Index into [`Loaded::files`].
    pub file: usize,
    /// Namespace prefixes, outermost first (empty: the global scope).
    pub scope: Vec<String>,
}

/// The files of a service template.
#[derive(Debug, Default)]
pub(crate) struct Loaded {
    /// Parsed files; the entry is first.
    pub files: Vec<File>,
    /// Files with their scopes, in load order (the entry first).
    pub units: Vec<Unit>,
    /// The layout of the entry, for writing plans into it (made from
    /// this parse, so that the write-back need not parse it again).
    pub outline: Option<super::outline::Outline>,
}

/// Whether a 2.0 `profile` import names the Simple Profile (built in).
pub(crate) fn is_simple_profile(name: &str) -> bool {
    let n = name.to_ascii_lowercase();
    n.contains("simple") && (n.contains("oasis") || n.starts_with("tosca"))
}

/// Import names that stand for the normative types themselves.
fn is_normative_alias(name: &str) -> bool {
    matches!(detect(name), Detected::Supported(_))
}

/// Load `entry` and its imports, then each of `others` (TOSCA.meta
/// `Other-Definitions`, where 2.0 §17.2 says substituting templates are
/// found) and its imports, after them: they are not compiled, only
/// searched for substituting templates. `profiles` are the directories
/// of the profile catalog ([`Catalog`]).
pub(crate) fn load(
    csar: &mut Csar,
    entry: &str,
    others: &[String],
    max_depth: usize,
    profiles: &[PathBuf],
    sources: &mut SourceMap,
) -> (Loaded, Diagnostics) {
    let catalog = Catalog::new(profiles, csar.limits());
    let mut l = Loader {
        csar,
        catalog,
        sources,
        diags: Diagnostics::new(),
        loaded: Loaded::default(),
        archive_of: Vec::new(),
        by_path: HashMap::default(),
        imported: HashMap::default(),
        limits: LoadLimits {
            max_depth,
            ..LoadLimits::default()
        },
    };
    let root = l.root();
    let Some(first) = l.file(INPUT, entry, None, None) else {
        return (l.loaded, l.diags);
    };
    let mut queue = vec![(first, Vec::<String>::new())];
    let mut seen: Vec<(usize, Vec<String>)> = Vec::new();
    // Roots in order: the entry's closure first, then each other's.
    let mut roots = others.iter().rev().map(String::as_str).collect::<Vec<_>>();
    loop {
        if queue.is_empty() {
            let Some(other) = roots.pop() else { break };
            if let Some(f) = l.file(INPUT, other, None, None) {
                queue.push((f, Vec::new()));
            }
            continue;
        }
        let Some((file, scope)) = queue.pop() else {
            break;
        };
        if seen.contains(&(file, scope.clone())) {
            continue;
        }
        seen.push((file, scope.clone()));
        l.loaded.units.push(Unit {
            file,
            scope: scope.clone(),
        });
        let children = l.imports_of(file, &scope, &root);
        // Depth-first in file order: the queue pops from the back.
        for c in children.into_iter().rev() {
            queue.push(c);
        }
    }
    (l.loaded, l.diags)
}

/// The archive of the input: files of the profile catalog are in
/// archives of their own, numbered from 1 (catalog directory `k` is `k + 1`).
const INPUT: usize = 0;

struct Loader<'a> {
    csar: &'a mut Csar,
    catalog: Catalog,
    sources: &'a mut SourceMap,
    diags: Diagnostics,
    loaded: Loaded,
    /// The archive each file of `loaded.files` is in, and its name there.
    archive_of: Vec<(usize, String)>,
    /// Files by archive and name, once parsed (`None`: could not be).
    by_path: HashMap<(usize, String), Option<usize>>,
    /// The imports of each file, once found (see `Loader::imported`).
    imported: HashMap<usize, Vec<(usize, Option<String>)>>,
    limits: LoadLimits,
}

impl Loader<'_> {
    /// The files that `file` (compiled under `scope`) imports, loaded,
    /// with the scopes they are compiled under, in file order.
    fn imports_of(
        &mut self,
        file: usize,
        scope: &[String],
        root: &Root,
    ) -> Vec<(usize, Vec<String>)> {
        let v2 = self.loaded.files[file].version.is_v2();
        let mut children = Vec::new();
        for (child, prefix) in self.imported(file, root) {
            // A file is compiled under the scope of the file that imports
            // it: a prefix qualifies every type the prefixed file makes
            // visible, those of its own unprefixed imports included (1.3
            // §3.2.1), and prefixes nest (2.0 `mongodb:database:Database`;
            // a 1.x file prefixed inside a prefixed file alike).
            let own: Vec<String> = prefix.into_iter().collect();
            let nested: Vec<String> = scope.iter().chain(&own).cloned().collect();
            // In 1.x a file's types also stay where its own import puts
            // them (tosca-parser reads an unprefixed import of a prefixed
            // file into the global scope, and real templates rely on it).
            if !v2 && nested != own {
                children.push((child, own));
            }
            children.push((child, nested));
        }
        children
    }

    /// The files `file` imports, loaded, each with the prefix it is
    /// imported under: found once per file, however many scopes the file
    /// is compiled under, so that what finding them reports is reported once.
    fn imported(&mut self, file: usize, root: &Root) -> Vec<(usize, Option<String>)> {
        if let Some(known) = self.imported.get(&file) {
            return known.clone();
        }
        let imports = self.loaded.files[file].imports.clone();
        let source = self.loaded.files[file].source.clone();
        let version = self.loaded.files[file].version;
        let (archive, name_in_archive) = self.archive_of[file].clone();
        let mut found = Vec::new();
        for imp in &imports {
            let prefix = imp.prefix.as_ref().map(|p| p.text.clone());
            if let Some(profile) = &imp.profile {
                if let Some(child) = self.profile(profile, &source, version) {
                    found.push((child, prefix));
                }
                continue;
            }
            let Some(target) = self.importable(imp, file) else {
                continue;
            };
            // Names in a catalog directory are names in its archive.
            let from = match archive {
                INPUT => source.name().to_string(),
                _ => name_in_archive.clone(),
            };
            let catalog_root = Root::archive();
            let within = if archive == INPUT {
                root
            } else {
                &catalog_root
            };
            let located = if version.is_v2() && target.text.starts_with('/') {
                self.find_from_root(archive, within, &target.text, target.span, &source)
            } else {
                self.find(archive, within, &from, &target.text, target.span, &source)
            };
            let Some(path) = located else {
                continue;
            };
            let at = Some(source.location(target.span));
            if let Some(child) = self.file(archive, &path, at, Some(version)) {
                found.push((child, prefix));
            }
        }
        self.imported.insert(file, found.clone());
        found
    }

    /// The file of the catalog that declares the imported `profile`,
    /// loaded; `None` for the Simple Profile (built in) and for a profile
    /// the catalog does not have (an error).
    fn profile(
        &mut self,
        profile: &Spanned,
        source: &Arc<SourceFile>,
        version: Version,
    ) -> Option<usize> {
        if is_simple_profile(&profile.text) {
            return None;
        }
        let at = source.location(profile.span);
        match self
            .catalog
            .find(&profile.text, &mut self.diags, self.sources)
        {
            Ok((k, name)) => self.file(k + 1, &name, Some(at), Some(version)),
            Err(d) => {
                self.diags.push(d.at(at));
                None
            }
        }
    }

    /// Entry `name` of `archive`, read if need be; whether it exists.
    fn exists(&mut self, archive: usize, name: &str) -> bool {
        match archive {
            INPUT => self.csar.load_on_demand(name).is_some(),
            k => self.catalog.archive(k - 1).get(name).is_some(),
        }
    }

    /// The file name an import of `file` names, or `None` when there is
    /// nothing to load: the normative types, or an import refused with an
    /// error (the reserved prefix `tosca`, no file, a repository or a URL:
    /// toscanini never uses the network). Profiles are [`Loader::profile`]'s.
    fn importable<'i>(&mut self, imp: &'i Import, file: usize) -> Option<&'i Spanned> {
        let source = self.loaded.files[file].source.clone();
        let at = |span: Span| source.location(span);
        if let Some(p) = &imp.prefix
            && p.text == "tosca"
        {
            self.diags.push(
                Diagnostic::error(
                    codes::YAML_IMPORT,
                    "the namespace prefix `tosca` is reserved for the TOSCA types",
                )
                .at(at(p.span))
                .hint("choose another prefix"),
            );
            return None;
        }
        let Some(target) = &imp.file else {
            self.diags.push(
                Diagnostic::error(codes::YAML_MISSING_KEY, "the import names no file")
                    .at(at(imp.span))
                    .hint("an import needs `file` (1.x) or `url` (2.0)"),
            );
            return None;
        };
        if let Some(repo) = &imp.repository {
            let url = self.loaded.files[file]
                .repositories
                .iter()
                .find(|(n, _)| n.text == repo.text)
                .and_then(|(_, u)| u.clone());
            self.diags.push(
                Diagnostic::error(
                    codes::YAML_IMPORT,
                    format!(
                        "`{}` is imported from the repository `{}`{}, and toscanini never uses the network",
                        target.text,
                        repo.text,
                        url.map(|u| format!(" ({u})")).unwrap_or_default()
                    ),
                )
                .at(at(repo.span))
                .hint("copy the file into the CSAR and import it by a relative path"),
            );
            return None;
        }
        if target.text.contains("://") {
            self.diags.push(
                Diagnostic::error(
                    codes::YAML_IMPORT,
                    format!(
                        "`{}` is a URL, and toscanini never uses the network",
                        target.text
                    ),
                )
                .at(at(target.span))
                .hint("copy the file into the CSAR and import it by a relative path"),
            );
            return None;
        }
        if is_normative_alias(&target.text) {
            return None; // the normative types are built in
        }
        Some(target)
    }

    fn root(&self) -> Root {
        match self.csar.origin {
            Origin::File => Root::beside(&self.csar.path),
            _ => Root::archive(),
        }
    }

    /// The CSAR name of `reference` as imported from `from`, or a
    /// diagnostic. Looks beside `from`, then (with a warning) in the
    /// directories above it.
    fn find(
        &mut self,
        archive: usize,
        root: &Root,
        from: &str,
        reference: &str,
        span: Span,
        source: &crate::diagnostics::SourceFile,
    ) -> Option<String> {
        let reference = reference.replace('\\', "/");
        if reference.starts_with('/') {
            self.diags.push(
                Diagnostic::error(
                    codes::YAML_IMPORT,
                    format!("`{reference}` is an absolute path; imports are relative to the importing file"),
                )
                .at(source.location(span)),
            );
            return None;
        }
        let mut dir = absolute(root, from);
        dir.pop();
        let first = relative(root, &dir, &reference);
        match &first {
            Some(name) if self.exists(archive, name) => return Some(name.clone()),
            None => {
                self.diags.push(
                    Diagnostic::error(
                        codes::YAML_IMPORT,
                        match archive {
                            INPUT => format!("the import `{reference}` leaves the CSAR"),
                            _ => format!("the import `{reference}` leaves the profile's directory"),
                        },
                    )
                    .at(source.location(span))
                    .hint("imports must name files inside the archive (a profile's: inside its directory)"),
                );
                return None;
            }
            _ => {}
        }
        // tosca-parser also resolves against the directories above.
        let mut up = dir.clone();
        let floor = root
            .segments
            .len()
            .saturating_sub(if root.may_escape { 3 } else { 0 });
        while up.len() > floor {
            up.pop();
            if let Some(name) = relative(root, &up, &reference)
                && self.exists(archive, &name)
            {
                self.diags.push(
                    Diagnostic::warning(
                        codes::W_YAML_LENIENT,
                        format!(
                            "`{reference}` is not beside `{from}`; using `{name}` found in a directory above"
                        ),
                    )
                    .at(source.location(span))
                    .hint("imports are relative to the importing file; write the path from there"),
                );
                return Some(name);
            }
        }
        // The same, once the CSAR was cut below the directory the path
        // starts from (a single file written back as a CSAR).
        let segments: Vec<&str> = reference
            .split('/')
            .filter(|s| !s.is_empty() && *s != ".")
            .collect();
        for skip in 1..segments.len() {
            let name = segments[skip..].join("/");
            if !name.starts_with("..") && self.exists(archive, &name) {
                self.diags.push(
                    Diagnostic::warning(
                        codes::W_YAML_LENIENT,
                        format!("`{reference}` is not beside `{from}`; using `{name}` found at the root of the CSAR"),
                    )
                    .at(source.location(span))
                    .hint("imports are relative to the importing file; write the path from there"),
                );
                return Some(name);
            }
        }
        self.diags.push(
            Diagnostic::error(
                codes::YAML_IMPORT,
                format!(
                    "the imported file `{}` is not in the CSAR",
                    first.unwrap_or_default()
                ),
            )
            .at(source.location(span))
            .hint(format!(
                "the import `{reference}` is resolved relative to `{from}`"
            )),
        );
        None
    }

    /// A 2.0 import path with a leading `/`: it starts at the root of the
    /// repository, which for a file in a CSAR is the CSAR (2.0 §6.8.2.2);
    /// for a single file given on the command line, its directory; for a
    /// profile's file, the profile's directory.
    fn find_from_root(
        &mut self,
        archive: usize,
        root: &Root,
        reference: &str,
        span: Span,
        source: &crate::diagnostics::SourceFile,
    ) -> Option<String> {
        let name = relative(root, &root.segments, reference.trim_start_matches('/'));
        if let Some(name) = name
            && self.exists(archive, &name)
        {
            return Some(name);
        }
        self.diags.push(
            Diagnostic::error(
                codes::YAML_IMPORT,
                match archive {
                    INPUT => format!("the imported file `{reference}` is not in the CSAR"),
                    _ => format!("the imported file `{reference}` is not in the profile's directory"),
                },
            )
            .at(source.location(span))
            .hint("a path that starts with `/` is read from the root of the CSAR (TOSCA 2.0 §6.8.2.2)"),
        );
        None
    }

    /// Parse a file of `archive` once; `None` if it cannot be read
    /// (diagnosed).
    fn file(
        &mut self,
        archive: usize,
        name: &str,
        imported_at: Option<Location>,
        importer: Option<Version>,
    ) -> Option<usize> {
        let key = (archive, name.to_string());
        if let Some(known) = self.by_path.get(&key) {
            return *known;
        }
        let result = self.parse(archive, name, imported_at, importer);
        if let Some(i) = result {
            self.archive_of.resize(i + 1, (INPUT, String::new()));
            self.archive_of[i] = (archive, name.to_string());
            self.check_profile(i);
        }
        self.by_path.insert(key, result);
        result
    }

    /// A file that declares a profile defines no service template (2.0
    /// §6.7.1); one that does is read all the same (Puccini's examples
    /// have such files), with a warning.
    fn check_profile(&mut self, i: usize) {
        let file = &self.loaded.files[i];
        let (Some(profile), Some(_)) = (&file.profile, &file.topology) else {
            return;
        };
        self.diags.push(
            Diagnostic::warning(
                codes::W_YAML_LENIENT,
                format!(
                    "`{}` declares the profile `{}` and also a service template, which TOSCA 2.0 §6.7.1 forbids; both are read",
                    file.source.name(),
                    profile.text
                ),
            )
            .at(file
                .source
                .key_location("service_template")
                .or_else(|| file.source.key_location("topology_template"))
                .unwrap_or_else(|| file.source.location(Span::new(0, 0))))
            .hint("keep the profile's types in a file of their own, imported by the service template, or drop `profile`"),
        );
    }

    fn parse(
        &mut self,
        archive: usize,
        name: &str,
        imported_at: Option<Location>,
        importer: Option<Version>,
    ) -> Option<usize> {
        let source = match archive {
            INPUT => self.csar.source(name),
            k => self.catalog.source(k - 1, name),
        };
        let source = match source {
            Ok(s) => self.sources.add(s),
            Err(d) => {
                self.diags.push(d.at_opt(imported_at));
                return None;
            }
        };
        let root = match node::parse(&source, self.limits) {
            Ok(n) => n,
            Err(d) => {
                self.diags.push(d);
                return None;
            }
        };
        if archive == INPUT && self.loaded.files.is_empty() && self.loaded.outline.is_none() {
            self.loaded.outline = Some(super::outline::Outline::of(source.clone(), &root));
        }
        let version_node = root.get("tosca_definitions_version");
        // Imported type files without a version occur (even in the 1.3
        // text's own examples): read them with the importer's grammar.
        if version_node.is_none()
            && root.as_map().is_some()
            && let Some(v) = importer
        {
            self.diags.push(
                Diagnostic::warning(
                    codes::W_YAML_LENIENT,
                    format!("`{name}` has no `tosca_definitions_version`; read as `{v}`, like the file that imports it"),
                )
                .at(source.location(Span::new(0, 0)))
                .hint("every TOSCA file should start with its tosca_definitions_version"),
            );
            let file = reader::read(&source, root, v, &mut self.diags);
            self.loaded.files.push(file);
            return Some(self.loaded.files.len() - 1);
        }
        let Some(vnode) = version_node else {
            let unfurl = root
                .get("apiVersion")
                .and_then(|v| v.as_str())
                .is_some_and(|v| v.contains("unfurl"));
            let d = if unfurl {
                Diagnostic::error(
                    codes::YAML_DIALECT,
                    format!("`{name}` is an unfurl ensemble, not a TOSCA service template"),
                )
                .at(source.location(root.get("apiVersion").map(|n| n.span).unwrap_or_default()))
                .hint("toscanini reads TOSCA YAML (tosca_simple_yaml_1_0 … 1_3, tosca_2_0); compile the service template the ensemble wraps, if it is plain TOSCA")
            } else if root.as_map().is_none() {
                Diagnostic::error(
                    codes::YAML_WRONG_KIND,
                    format!(
                        "`{name}` is not a TOSCA file: its document is {}",
                        root.kind_name()
                    ),
                )
                .at(source.location(Span::new(root.span.start, root.span.start + 1)))
            } else {
                Diagnostic::error(
                    codes::YAML_MISSING_KEY,
                    format!("`{name}` has no `tosca_definitions_version`"),
                )
                .at(source.location(Span::new(0, 1)))
                .hint("a TOSCA file starts with `tosca_definitions_version: tosca_simple_yaml_1_3` (or tosca_2_0)")
            };
            self.diags.push(d);
            return None;
        };
        let text = vnode.as_str().unwrap_or_default();
        let version = match detect(text) {
            Detected::Supported(v) => v,
            Detected::Lenient(v, why) => {
                self.diags.push(
                    Diagnostic::warning(codes::W_YAML_LENIENT, why)
                        .at(source.location(vnode.span))
                        .hint(format!("write `{v}`")),
                );
                v
            }
            Detected::Unsupported(why) => {
                self.diags.push(
                    Diagnostic::error(codes::YAML_DIALECT, why)
                        .at(source.location(vnode.span))
                        .hint("the README lists the dialects toscanini reads"),
                );
                return None;
            }
            Detected::Unknown => {
                self.diags.push(
                    Diagnostic::error(
                        codes::YAML_VERSION,
                        format!("`{text}` is not a TOSCA version toscanini knows"),
                    )
                    .at(source.location(vnode.span))
                    .hint(format!(
                        "supported: {}, {}, {}, {}, {}",
                        Version::V1_0,
                        Version::V1_1,
                        Version::V1_2,
                        Version::V1_3,
                        Version::V2_0
                    )),
                );
                return None;
            }
        };
        let file = reader::read(&source, root, version, &mut self.diags);
        self.loaded.files.push(file);
        Some(self.loaded.files.len() - 1)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn knows_the_simple_profile() {
        assert!(is_simple_profile("org.oasis-open.simple:2.0"));
        assert!(is_simple_profile("org.oasis-open.tosca.simple:2.0"));
        assert!(!is_simple_profile("io.kubernetes:1.30"));
    }

    fn load_files(files: &[(&str, &str)]) -> (Loaded, Diagnostics) {
        let mut csar = Csar::from_entries(
            "t",
            files
                .iter()
                .map(|(n, t)| (n.to_string(), t.as_bytes().to_vec())),
        );
        let mut sources = SourceMap::default();
        load(&mut csar, files[0].0, &[], 8, &[], &mut sources)
    }

    #[test]
    fn a_2_0_path_with_a_leading_slash_starts_at_the_csar_root() {
        let v2 = "tosca_definitions_version: tosca_2_0\n";
        let (loaded, d) = load_files(&[
            (
                "defs/main.yaml",
                &format!("{v2}imports: [{{url: /lib/b.yaml}}]\n"),
            ),
            ("lib/b.yaml", v2),
        ]);
        assert!(!d.has_errors(), "{d:?}");
        assert_eq!(
            loaded.files[loaded.units[1].file].source.name(),
            "lib/b.yaml"
        );
        let (_, d) = load_files(&[
            (
                "main.yaml",
                &format!("{v2}imports: [{{url: /lib/none.yaml}}]\n"),
            ),
            ("lib/b.yaml", v2),
        ]);
        assert!(
            format!("{d:?}").contains("`/lib/none.yaml` is not in the CSAR"),
            "{d:?}"
        );
        // 1.x defines no such path: it stays an error.
        let v13 = "tosca_definitions_version: tosca_simple_yaml_1_3\n";
        let (_, d) = load_files(&[
            ("main.yaml", &format!("{v13}imports: [/lib/b.yaml]\n")),
            ("lib/b.yaml", v13),
        ]);
        assert!(format!("{d:?}").contains("is an absolute path"), "{d:?}");
    }

    #[test]
    fn imports_load_depth_first_with_their_prefixes() {
        let head = "tosca_definitions_version: tosca_simple_yaml_1_3\n";
        let (loaded, d) = load_files(&[
            (
                "main.yaml",
                &format!(
                    "{head}imports:\n  - file: lib/a.yaml\n    namespace_prefix: a\n  - b.yaml\n"
                ),
            ),
            ("lib/a.yaml", &format!("{head}imports: [../b.yaml]\n")),
            ("b.yaml", head),
        ]);
        assert!(!d.has_errors(), "{d:?}");
        let units: Vec<(&str, Vec<String>)> = loaded
            .units
            .iter()
            .map(|u| (loaded.files[u.file].source.name(), u.scope.clone()))
            .collect();
        assert_eq!(
            units,
            [
                ("main.yaml", vec![]),
                ("lib/a.yaml", vec!["a".to_string()]),
                // b.yaml is made visible by a.yaml, so under `a` too
                // (1.3 §3.2.1), and where its own import puts it.
                ("b.yaml", vec![]),
                ("b.yaml", vec!["a".to_string()]),
            ]
        );
    }

    #[test]
    fn a_file_imported_under_several_scopes_is_looked_for_once() {
        // a.yaml is compiled under two prefixes; its import of a file found
        // only in the directory above is reported once.
        let head = "tosca_definitions_version: tosca_simple_yaml_1_3\n";
        let (loaded, d) = load_files(&[
            (
                "main.yaml",
                &format!(
                    "{head}imports:\n  - file: lib/a.yaml\n    namespace_prefix: p\n  - file: lib/a.yaml\n    namespace_prefix: q\n"
                ),
            ),
            ("lib/a.yaml", &format!("{head}imports: [c.yaml]\n")),
            ("c.yaml", head),
        ]);
        assert_eq!(d.warning_count(), 1, "{d:?}");
        let scopes: Vec<Vec<String>> = loaded
            .units
            .iter()
            .filter(|u| loaded.files[u.file].source.name() == "c.yaml")
            .map(|u| u.scope.clone())
            .collect();
        assert_eq!(
            scopes,
            [vec![], vec!["p".to_string()], vec!["q".to_string()]]
        );
    }

    #[test]
    fn imports_that_need_the_network_or_a_reserved_prefix_are_refused() {
        let (loaded, d) = load_files(&[(
            "main.yaml",
            "tosca_definitions_version: tosca_simple_yaml_1_3\n\
             repositories: {r: {url: 'https://example.org'}}\n\
             imports:\n  - https://example.org/x.yaml\n  - {file: y.yaml, repository: r}\n  \
             - {file: z.yaml, namespace_prefix: tosca}\n  - {namespace_prefix: n}\n",
        )]);
        assert_eq!(loaded.files.len(), 1);
        let m: Vec<&str> = d.iter().map(|d| d.message.as_str()).collect();
        assert_eq!(m.len(), 4, "{m:?}");
        assert!(m[0].contains("is a URL"), "{m:?}");
        assert!(
            m[1].contains("from the repository `r` (https://example.org)"),
            "{m:?}"
        );
        assert!(m[2].contains("prefix `tosca` is reserved"), "{m:?}");
        assert_eq!(m[3], "the import names no file");
    }
}
