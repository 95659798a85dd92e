//! The path arithmetic of imports: where the root of the CSAR is, and a
//! reference joined to a directory as a CSAR name, lexically (`..` pops a
//! segment; nothing is looked up on disk).
//!
//! In: the input's path and the names of files. Out: CSAR names, which
//! start with `../` only for a single file given on the command line,
//! whose imports may leave its directory.

use std::path::{Component, Path};

/// Where the CSAR root is, as path segments, for resolving `..` lexically;
/// empty (and no escaping) for archives and directories.
pub(super) struct Root {
    pub(super) segments: Vec<String>,
    pub(super) may_escape: bool,
}

impl Root {
    /// The root of an archive or directory: names may not leave it.
    pub(super) fn archive() -> Root {
        Root {
            segments: Vec::new(),
            may_escape: false,
        }
    }

    /// The root for a single file `path`: its directory, which its
    /// imports may leave.
    pub(super) fn beside(path: &Path) -> Root {
        let dir = path.parent().unwrap_or(Path::new("."));
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
}

/// The absolute segments of a CSAR name (which may start with `../` for
/// a single-file input).
pub(super) fn absolute(root: &Root, name: &str) -> Vec<String> {
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
pub(super) fn relative(root: &Root, dir: &[String], reference: &str) -> Option<String> {
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn resolves_lexically_inside_and_outside_the_root() {
        let inside = Root::archive();
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
}
