//! Plugins as data: YAML files that match node or relationship types and
//! list the steps to run. The files in `plugins/` are embedded in the
//! binary; `--plugins DIR` adds more (a file with the id of an embedded
//! plugin replaces it). The format is documented in plugins/README.md.

mod engine;
pub mod parse;
pub mod spec;

use std::path::Path;
use std::sync::Arc;

pub use engine::Declarative;

use crate::diagnostics::{Diagnostic, Diagnostics, SourceFile, SourceMap, codes};
use crate::error::{Error, Result};

/// The plugin files shipped with toscanini, embedded at build time.
pub const EMBEDDED: &[(&str, &str)] = &[
    (
        "plugins/ansible.yaml",
        include_str!("../../../plugins/ansible.yaml"),
    ),
    (
        "plugins/cloud-provider.yaml",
        include_str!("../../../plugins/cloud-provider.yaml"),
    ),
    (
        "plugins/container-pattern.yaml",
        include_str!("../../../plugins/container-pattern.yaml"),
    ),
    (
        "plugins/docker-container.yaml",
        include_str!("../../../plugins/docker-container.yaml"),
    ),
    (
        "plugins/existing-vm.yaml",
        include_str!("../../../plugins/existing-vm.yaml"),
    ),
    (
        "plugins/relationship-configure.yaml",
        include_str!("../../../plugins/relationship-configure.yaml"),
    ),
    (
        "plugins/ubuntu-vm.yaml",
        include_str!("../../../plugins/ubuntu-vm.yaml"),
    ),
];

/// Parse one plugin file's text.
pub fn load_text(
    name: &str,
    text: &str,
    sources: &mut SourceMap,
) -> (Option<Declarative>, Diagnostics) {
    let source: Arc<SourceFile> = sources.add(SourceFile::new(name, text));
    let (spec, diags) = parse::parse(source);
    (spec.map(|spec| Declarative { spec }), diags)
}

/// The embedded plugins followed by those in `dirs` (sorted by file name).
/// Later plugins with the same id replace earlier ones.
pub fn load_all(
    dirs: &[std::path::PathBuf],
    sources: &mut SourceMap,
) -> Result<(Vec<Declarative>, Diagnostics)> {
    let mut diags = Diagnostics::new();
    let mut out: Vec<Declarative> = Vec::new();
    let push = |p: Declarative, out: &mut Vec<Declarative>| {
        out.retain(|q| q.spec.id != p.spec.id);
        out.push(p);
    };
    for (name, text) in EMBEDDED {
        let (p, d) = load_text(name, text, sources);
        diags.extend(d);
        if let Some(p) = p {
            push(p, &mut out);
        }
    }
    for dir in dirs {
        for file in plugin_files(dir)? {
            let text = std::fs::read(&file).map_err(|e| Error::io("cannot read", &file, e))?;
            let name = file.display().to_string();
            let Ok(text) = String::from_utf8(text) else {
                diags.push(Diagnostic::error(
                    codes::PLUGIN_INVALID,
                    format!("plugin file `{name}` is not UTF-8"),
                ));
                continue;
            };
            let (p, d) = load_text(&name, &text, sources);
            diags.extend(d);
            if let Some(p) = p {
                push(p, &mut out);
            }
        }
    }
    if diags.has_errors() {
        return Err(Error::Input(diags));
    }
    Ok((out, diags))
}

/// `*.yaml` and `*.yml` files directly in `dir`, sorted.
fn plugin_files(dir: &Path) -> Result<Vec<std::path::PathBuf>> {
    let mut files = Vec::new();
    for entry in walkdir::WalkDir::new(dir).max_depth(1).sort_by_file_name() {
        let entry = entry.map_err(|e| {
            let io = e
                .into_io_error()
                .unwrap_or_else(|| std::io::Error::other("cannot list directory"));
            Error::io("cannot read", dir, io)
        })?;
        let p = entry.path();
        if entry.file_type().is_file()
            && matches!(p.extension().and_then(|e| e.to_str()), Some("yaml" | "yml"))
        {
            files.push(p.to_path_buf());
        }
    }
    Ok(files)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_shipped_plugin_is_embedded_and_valid() {
        let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("plugins");
        let on_disk: Vec<String> = plugin_files(&dir)
            .unwrap()
            .iter()
            .map(|p| format!("plugins/{}", p.file_name().unwrap().to_string_lossy()))
            .collect();
        let embedded: Vec<String> = EMBEDDED.iter().map(|(n, _)| n.to_string()).collect();
        assert_eq!(on_disk, embedded, "plugins/ and EMBEDDED differ");
        let mut sources = SourceMap::new();
        for (name, text) in EMBEDDED {
            let (p, d) = load_text(name, text, &mut sources);
            assert!(p.is_some() && d.is_empty(), "{name}: {d:?}");
        }
    }
}
