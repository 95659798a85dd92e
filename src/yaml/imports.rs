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

use std::collections::HashMap;
use std::path::{Component, Path};

use super::ast::{File, Import, Spanned};
use super::node::{self, LoadLimits};
use super::reader;
use super::version::{Detected, Version, detect};
use crate::csar::{Csar, Origin};
use crate::diagnostics::{Diagnostic, Diagnostics, Location, SourceMap, Span, codes};

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

/// Load `entry` and its imports.
pub(crate) fn load(
    csar: &mut Csar,
    entry: &str,
    max_depth: usize,
    sources: &mut SourceMap,
) -> (Loaded, Diagnostics) {
    let mut l = Loader {
        csar,
        sources,
        diags: Diagnostics::new(),
        loaded: Loaded::default(),
        by_path: HashMap::new(),
        imported: HashMap::new(),
        limits: LoadLimits {
            max_depth,
            ..LoadLimits::default()
        },
    };
    let root = l.root();
    let Some(first) = l.file(entry, None, None) else {
        return (l.loaded, l.diags);
    };
    let mut queue = vec![(first, Vec::<String>::new())];
    let mut seen: Vec<(usize, Vec<String>)> = Vec::new();
    while let Some((file, scope)) = queue.pop() {
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

struct Loader<'a> {
    csar: &'a mut Csar,
    sources: &'a mut SourceMap,
    diags: Diagnostics,
    loaded: Loaded,
    by_path: HashMap<String, Option<usize>>,
    /// The imports of each file, once found (see `Loader::imported`).
    imported: HashMap<usize, Vec<(usize, Option<String>)>>,
    limits: LoadLimits,
}

/// Where the CSAR root is, as path segments, for resolving `..` lexically;
/// empty (and no escaping) for archives and directories.
struct Root {
    segments: Vec<String>,
    may_escape: bool,
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
        let from = self.loaded.files[file].source.name().to_string();
        let source = self.loaded.files[file].source.clone();
        let version = self.loaded.files[file].version;
        let mut found = Vec::new();
        for imp in &imports {
            let Some(target) = self.importable(imp, file) else {
                continue;
            };
            let Some(path) = self.find(root, &from, &target.text, target.span, &source, version)
            else {
                continue;
            };
            let at = Some(source.location(target.span));
            if let Some(child) = self.file(&path, at, Some(version)) {
                found.push((child, imp.prefix.as_ref().map(|p| p.text.clone())));
            }
        }
        self.imported.insert(file, found.clone());
        found
    }

    /// The file name an import of `file` names, or `None` when there is
    /// nothing to load: a profile (the Simple Profile is built in, another
    /// one is an error), the normative types, or an import refused with an
    /// error (the reserved prefix `tosca`, no file, a repository or a URL:
    /// toscanini never uses the network).
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
        if let Some(profile) = &imp.profile {
            if !is_simple_profile(&profile.text) {
                self.diags.push(
                    Diagnostic::error(
                        codes::YAML_IMPORT,
                        format!("the profile `{}` is not available", profile.text),
                    )
                    .at(at(profile.span))
                    .hint("toscanini has the TOSCA Simple Profile built in and never downloads profiles; import the profile's files by relative path"),
                );
            }
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
        if !matches!(self.csar.origin, Origin::File) {
            return Root {
                segments: Vec::new(),
                may_escape: false,
            };
        }
        let dir = self.csar.path.parent().unwrap_or(Path::new("."));
        let abs = std::path::absolute(dir).unwrap_or_else(|_| dir.to_path_buf());
        let mut segments: Vec<String> = Vec::new();
        for c in abs.components() {
            match c {
                Component::Normal(s) => segments.push(s.to_string_lossy().into_owned()),
                Component::ParentDir => {
                    segments.pop();
                }
                _ => {}
            }
        }
        Root {
            segments,
            may_escape: true,
        }
    }

    /// The CSAR name of `reference` as imported from `from`, or a
    /// diagnostic. Looks beside `from`, then (with a warning) in the
    /// directories above it.
    fn find(
        &mut self,
        root: &Root,
        from: &str,
        reference: &str,
        span: Span,
        source: &crate::diagnostics::SourceFile,
        version: Version,
    ) -> Option<String> {
        let reference = reference.replace('\\', "/");
        if reference.starts_with('/') && version.is_v2() {
            return self.find_from_root(root, &reference, span, source);
        }
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
            Some(name) if self.csar.load_on_demand(name).is_some() => return Some(name.clone()),
            None => {
                self.diags.push(
                    Diagnostic::error(
                        codes::YAML_IMPORT,
                        format!("the import `{reference}` leaves the CSAR"),
                    )
                    .at(source.location(span))
                    .hint("imports must name files inside the archive"),
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
                && self.csar.load_on_demand(&name).is_some()
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
            if !name.starts_with("..") && self.csar.load_on_demand(&name).is_some() {
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
    /// for a single file given on the command line, its directory.
    fn find_from_root(
        &mut self,
        root: &Root,
        reference: &str,
        span: Span,
        source: &crate::diagnostics::SourceFile,
    ) -> Option<String> {
        let name = relative(root, &root.segments, reference.trim_start_matches('/'));
        if let Some(name) = name
            && self.csar.load_on_demand(&name).is_some()
        {
            return Some(name);
        }
        self.diags.push(
            Diagnostic::error(
                codes::YAML_IMPORT,
                format!("the imported file `{reference}` is not in the CSAR"),
            )
            .at(source.location(span))
            .hint("a path that starts with `/` is read from the root of the CSAR (TOSCA 2.0 §6.8.2.2)"),
        );
        None
    }

    /// Parse a file once; `None` if it cannot be read (diagnosed).
    fn file(
        &mut self,
        name: &str,
        imported_at: Option<Location>,
        importer: Option<Version>,
    ) -> Option<usize> {
        if let Some(known) = self.by_path.get(name) {
            return *known;
        }
        let result = self.parse(name, imported_at, importer);
        self.by_path.insert(name.to_string(), result);
        result
    }

    fn parse(
        &mut self,
        name: &str,
        imported_at: Option<Location>,
        importer: Option<Version>,
    ) -> Option<usize> {
        let source = match self.csar.source(name) {
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

/// The absolute segments of a CSAR name (which may start with `../` for
/// a single-file input).
fn absolute(root: &Root, name: &str) -> Vec<String> {
    let mut out = root.segments.clone();
    for seg in name.split('/') {
        match seg {
            "" | "." => {}
            ".." => {
                out.pop();
            }
            s => out.push(s.to_string()),
        }
    }
    out
}

/// `reference` joined to the absolute directory `dir`, as a CSAR name;
/// `None` if it leaves the CSAR and may not.
fn relative(root: &Root, dir: &[String], reference: &str) -> Option<String> {
    let mut abs = dir.to_vec();
    for seg in reference.split('/') {
        match seg {
            "" | "." => {}
            ".." => {
                abs.pop()?;
            }
            s => abs.push(s.to_string()),
        }
    }
    let common = root
        .segments
        .iter()
        .zip(&abs)
        .take_while(|(a, b)| a == b)
        .count();
    let ups = root.segments.len() - common;
    if ups > 0 && !root.may_escape {
        return None;
    }
    let mut parts: Vec<String> = vec!["..".to_string(); ups];
    parts.extend(abs[common..].iter().cloned());
    if parts.is_empty() {
        return None;
    }
    Some(parts.join("/"))
}

/// Check the CSAR metadata a YAML CSAR carries (1.3 §6.2–§6.3, 2.0 §6):
/// the versions in TOSCA.meta, `Other-Definitions` (usable only as
/// substitution templates, so not compiled), and, without TOSCA.meta, the
/// entry's `template_name` and `template_version` metadata.
pub(crate) fn check_meta(csar: &Csar, loaded: &Loaded, sources: &mut SourceMap) -> Diagnostics {
    let mut diags = Diagnostics::new();
    if matches!(csar.origin, Origin::File) {
        return diags;
    }
    let (meta, _) = csar.meta(sources);
    let file = sources.get(crate::csar::META_PATH).cloned();
    let Some(meta) = meta else {
        let Some(entry) = loaded.files.first() else {
            return diags;
        };
        let missing: Vec<&str> = ["template_name", "template_version"]
            .into_iter()
            .filter(|k| entry.metadata(k).is_none())
            .collect();
        if !missing.is_empty() {
            diags.push(
                Diagnostic::warning(
                    codes::W_META_VERSION,
                    format!(
                        "the CSAR has no TOSCA-Metadata/TOSCA.meta, and its entry `{}` has no {} metadata",
                        entry.source.name(),
                        missing.iter().map(|m| format!("`{m}`")).collect::<Vec<_>>().join(" and ")
                    ),
                )
                .at(entry
                    .source
                    .key_location("metadata")
                    .unwrap_or_else(|| entry.source.location(Span::new(0, 0))))
                .hint("a CSAR without TOSCA.meta names itself by the entry's metadata (TOSCA 1.3 §6.3)"),
            );
        }
        return diags;
    };
    let at = |span: Span| file.as_ref().map(|f| f.location(span));
    let v2 = loaded.files.first().is_some_and(|f| f.version.is_v2());
    match meta
        .get("TOSCA-Meta-File-Version")
        .or(meta.get("TOSCA-Meta-Version"))
    {
        Some(e) if !matches!(e.value.as_str(), "1.0" | "1.1") => diags.push(
            Diagnostic::warning(
                codes::W_META_VERSION,
                format!("TOSCA-Meta-File-Version `{}` is not 1.0 or 1.1", e.value),
            )
            .at_opt(at(e.span)),
        ),
        None if !v2 => diags.push(
            Diagnostic::warning(
                codes::W_META_VERSION,
                "TOSCA.meta has no TOSCA-Meta-File-Version",
            )
            .at_opt(file.as_ref().map(|f| f.location(Span::new(0, 0))))
            .hint("block 0 starts with `TOSCA-Meta-File-Version: 1.1`"),
        ),
        _ => {}
    }
    match meta.get("CSAR-Version") {
        Some(e) if !matches!(e.value.as_str(), "1.0" | "1.1" | "2.0") => diags.push(
            Diagnostic::warning(
                codes::W_META_VERSION,
                format!("CSAR-Version `{}` is not 1.1 (TOSCA 1.3) or 2.0", e.value),
            )
            .at_opt(at(e.span)),
        ),
        None => diags.push(
            Diagnostic::warning(codes::W_META_VERSION, "TOSCA.meta has no CSAR-Version")
                .at_opt(file.as_ref().map(|f| f.location(Span::new(0, 0)))),
        ),
        _ => {}
    }
    if let Some(e) = meta.get("Other-Definitions") {
        for other in meta.other_definitions() {
            let known = crate::csar::path::normalize(&other)
                .ok()
                .is_some_and(|n| csar.contains(&n));
            if !known {
                diags.push(
                    Diagnostic::warning(
                        codes::W_META_VERSION,
                        format!("Other-Definitions names `{other}`, which is not in the CSAR"),
                    )
                    .at_opt(at(e.span)),
                );
            }
        }
    }
    diags
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn resolves_lexically_inside_and_outside_the_root() {
        let inside = Root {
            segments: vec![],
            may_escape: false,
        };
        assert_eq!(
            relative(&inside, &["a".into()], "../b/c.yaml").as_deref(),
            Some("b/c.yaml")
        );
        assert_eq!(relative(&inside, &[], "../c.yaml"), None);
        let file = Root {
            segments: vec!["x".into(), "data".into()],
            may_escape: true,
        };
        let dir = absolute(&file, "custom/t.yaml");
        assert_eq!(dir, ["x", "data", "custom", "t.yaml"]);
        assert_eq!(
            relative(&file, &["x".into()], "data/custom/e.yaml").as_deref(),
            Some("custom/e.yaml")
        );
        assert_eq!(
            relative(&file, &["x".into(), "data".into()], "../other/e.yaml").as_deref(),
            Some("../other/e.yaml")
        );
    }

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
        load(&mut csar, files[0].0, 8, &mut sources)
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
