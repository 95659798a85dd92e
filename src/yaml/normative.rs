//! The built-in types: the normative types of the Simple Profile 1.3
//! (chapter 5, and the network types of chapter 8) and, below them, the
//! non-normative types of chapter 9 that the specification's examples use.
//! 1.x service templates import them implicitly (1.3 §3.1.2); 2.0 ones get
//! them through a Simple Profile `profile` import or the `tosca:` prefix.
//!
//! In: nothing (the files are embedded). Out: parsed [`File`]s and the
//! shorthand names of 1.3 (`Compute`, `tosca:Compute`, and the 2.0
//! community profile's `Lifecycle.Standard`) mapped to full names.

use std::sync::{Arc, OnceLock};

use super::ast::{File, TypeKind};
use super::node::{LoadLimits, parse};
use super::reader::read;
use super::version::Version;
use crate::diagnostics::{Diagnostics, SourceFile};

const SIMPLE_PROFILE: &str = include_str!("normative/simple_profile.yaml");
const EXAMPLES: &str = include_str!("normative/examples.yaml");

/// Name of the built-in normative types file in diagnostics.
pub(crate) const SIMPLE_PROFILE_NAME: &str = "<built-in tosca_simple_yaml_1_3 normative types>";
/// Name of the built-in non-normative types file in diagnostics.
pub(crate) const EXAMPLES_NAME: &str = "<built-in tosca_simple_yaml_1_3 non-normative types>";

/// The built-in files: normative types first, then the non-normative ones.
pub(crate) fn files() -> &'static [File] {
    static FILES: OnceLock<Vec<File>> = OnceLock::new();
    FILES.get_or_init(|| {
        [
            (SIMPLE_PROFILE_NAME, SIMPLE_PROFILE),
            (EXAMPLES_NAME, EXAMPLES),
        ]
        .iter()
        .map(|(name, text)| {
            let source = Arc::new(SourceFile::new(*name, *text));
            let root = parse(&source, LoadLimits::default())
                .unwrap_or_else(|d| panic!("built-in types: {}", d.one_line()));
            let mut diags = Diagnostics::new();
            let file = read(&source, root, Version::V1_3, &mut diags);
            assert!(diags.is_empty(), "built-in types: {diags:?}");
            file
        })
        .collect()
    })
}

/// Whether a built-in file is the normative one (not chapter 9's examples).
pub(crate) fn is_normative(file: &File) -> bool {
    file.source.name() == SIMPLE_PROFILE_NAME
}

/// The full names a shorthand may stand for, in the order to try them:
/// `Compute` is `tosca.nodes.Compute` as a node type and
/// `tosca.capabilities.Compute` as a capability type.
pub(crate) fn expansions(kind: TypeKind, name: &str) -> Vec<String> {
    let name = name.strip_prefix("tosca:").unwrap_or(name).trim();
    let prefixes: &[&str] = match kind {
        TypeKind::Node => &[
            "tosca.nodes.",
            "tosca.nodes.Storage.",
            "tosca.nodes.network.",
        ],
        TypeKind::Relationship => &["tosca.relationships.", "tosca.relationships.network."],
        TypeKind::Capability => &["tosca.capabilities.", "tosca.capabilities.network."],
        TypeKind::Interface => &[
            "tosca.interfaces.node.lifecycle.",
            "tosca.interfaces.relationship.",
        ],
        TypeKind::Artifact => &[
            "tosca.artifacts.",
            "tosca.artifacts.Implementation.",
            "tosca.artifacts.Deployment.",
            "tosca.artifacts.template.",
        ],
        TypeKind::Data => &["tosca.datatypes.", "tosca.datatypes.network."],
        TypeKind::Group => &["tosca.groups."],
        TypeKind::Policy => &["tosca.policies."],
    };
    let mut out: Vec<String> = prefixes.iter().map(|p| format!("{p}{name}")).collect();
    match (kind, name) {
        (TypeKind::Node, "AbstractStorage") => out.push("tosca.nodes.Abstract.Storage".into()),
        // Simple Profile 1.0 named them without `Storage.`.
        (TypeKind::Node, "tosca.nodes.BlockStorage" | "tosca.nodes.ObjectStorage") => {
            out.push(name.replace("tosca.nodes.", "tosca.nodes.Storage."))
        }
        // The 2.0 community Simple Profile drops the `tosca.` prefixes.
        (TypeKind::Interface, "Lifecycle.Standard") => {
            out.push("tosca.interfaces.node.lifecycle.Standard".into())
        }
        (TypeKind::Interface, "Relationship.Configure") => {
            out.push("tosca.interfaces.relationship.Configure".into())
        }
        (TypeKind::Relationship, n) if n.starts_with("Relationship.") => out.push(format!(
            "tosca.relationships.{}",
            &n["Relationship.".len()..]
        )),
        _ => {}
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn built_in_types_parse_cleanly() {
        let files = files();
        assert!(
            files[0]
                .types
                .iter()
                .any(|t| t.name.text == "tosca.nodes.Compute")
        );
        assert!(
            files[1]
                .types
                .iter()
                .any(|t| t.name.text == "tosca.nodes.WebApplication.WordPress")
        );
    }

    #[test]
    fn expands_shorthands_per_kind() {
        assert!(expansions(TypeKind::Node, "Compute").contains(&"tosca.nodes.Compute".into()));
        assert!(
            expansions(TypeKind::Capability, "tosca:Compute")
                .contains(&"tosca.capabilities.Compute".into())
        );
        assert!(
            expansions(TypeKind::Node, "BlockStorage")
                .contains(&"tosca.nodes.Storage.BlockStorage".into())
        );
    }
}
