//! Artifact definitions (1.3 §3.6.7): `artifacts` of types and node
//! templates, in the short (a file name) and the extended notation.
//!
//! In: the YAML node of that section. Out: its AST; keys TOSCA does not
//! define there are warnings (W0304), values of the wrong kind errors
//! (E0302).

use super::Reader;
use crate::yaml::ast::{ArtifactDef, Spanned};
use crate::yaml::node::{Kind, Node};

impl<'a> Reader<'a> {
    pub(super) fn artifacts(&mut self, node: &Node) -> Vec<ArtifactDef> {
        let mut out = Vec::new();
        for (name, v) in self.entries_or_list(node, "artifacts") {
            out.push(self.artifact(name, v));
        }
        out
    }

    pub(super) fn artifact(&mut self, name: Spanned, node: &Node) -> ArtifactDef {
        let mut a = ArtifactDef {
            name,
            type_name: None,
            file: None,
            repository: None,
            deploy_path: None,
            span: node.span,
        };
        match &node.kind {
            Kind::Scalar { text, .. } => a.file = Some(Spanned::new(text.clone(), node.span)),
            Kind::Map(_) => {
                let what = format!("artifact `{}`", a.name.text);
                for (k, v) in self.entries(
                    node,
                    &what,
                    &[
                        "type",
                        "file",
                        "repository",
                        "description",
                        "deploy_path",
                        "artifact_version",
                        "checksum",
                        "checksum_algorithm",
                        "properties",
                        "metadata",
                        "mime_type",
                    ],
                ) {
                    match k.text.as_str() {
                        "type" => a.type_name = self.string(v, "type"),
                        "file" => a.file = self.string(v, "file"),
                        "repository" => a.repository = self.string(v, "repository"),
                        "deploy_path" => a.deploy_path = self.string(v, "deploy_path"),
                        "checksum" => self.ignored(
                            k.span,
                            format!("the `checksum` of artifact `{}` is not verified: the file is uploaded as the CSAR holds it", a.name.text),
                            "check the file when the CSAR is built",
                        ),
                        "properties" if v.as_map().is_some_and(|m| !m.is_empty()) => self.ignored(
                            k.span,
                            format!("the `properties` of artifact `{}` are not given to the operations: the plans pass an artifact as the location of its file", a.name.text),
                            "give the values as operation inputs",
                        ),
                        _ => {}
                    }
                }
            }
            _ => self.wrong_kind(node, "an artifact", "a file name or a map"),
        }
        a
    }
}
