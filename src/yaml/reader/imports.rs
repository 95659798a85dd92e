//! The `imports` section (1.3 §3.6.8, 2.0 §6.6): a list of file names or
//! of import definitions (`file`/`url`, `repository`, `namespace_prefix`,
//! 2.0 `profile`).
//!
//! In: the YAML node of that section. Out: its AST; keys TOSCA does not
//! define there are warnings (W0304), values of the wrong kind errors
//! (E0302).

use super::Reader;
use crate::yaml::ast::{Import, Spanned};
use crate::yaml::node::{Kind, Node};

impl<'a> Reader<'a> {
    pub(super) fn imports(&mut self, node: &Node) -> Vec<Import> {
        let Some(items) = node.as_seq() else {
            if !node.is_null() {
                self.wrong_kind(node, "imports", "a list");
            }
            return Vec::new();
        };
        let mut out = Vec::new();
        for item in items {
            let mut imp = Import {
                file: None,
                profile: None,
                repository: None,
                prefix: None,
                span: item.span,
            };
            match &item.kind {
                Kind::Scalar { text, .. } => imp.file = Some(Spanned::new(text.clone(), item.span)),
                Kind::Map(m) => {
                    let long = m.iter().any(|(k, _)| {
                        matches!(
                            k.as_str(),
                            Some(
                                "file"
                                    | "url"
                                    | "profile"
                                    | "repository"
                                    | "namespace_prefix"
                                    | "namespace"
                                    | "namespace_uri"
                            )
                        )
                    });
                    // 1.0 also allows `- name: uri` and `- name: {file: …}`.
                    let body = if !long && m.len() == 1 { &m[0].1 } else { item };
                    match &body.kind {
                        Kind::Scalar { text, .. } => {
                            imp.file = Some(Spanned::new(text.clone(), body.span))
                        }
                        Kind::Map(_) => {
                            for (k, v) in self.entries(
                                body,
                                "an import",
                                &[
                                    "file",
                                    "url",
                                    "profile",
                                    "repository",
                                    "namespace_prefix",
                                    "namespace",
                                    "namespace_uri",
                                    "description",
                                    "metadata",
                                ],
                            ) {
                                match k.text.as_str() {
                                    "file" | "url" => imp.file = self.string(v, &k.text),
                                    "profile" => imp.profile = self.string(v, "profile"),
                                    "repository" => imp.repository = self.string(v, "repository"),
                                    "namespace_prefix" => imp.prefix = self.string(v, &k.text),
                                    // 2.0: `namespace` is the prefix; 1.x has
                                    // only the deprecated `namespace_uri`.
                                    "namespace" if self.version.is_v2() => {
                                        imp.prefix = self.string(v, &k.text)
                                    }
                                    _ => {}
                                }
                            }
                        }
                        _ => self.wrong_kind(body, "an import", "a file name or a map"),
                    }
                }
                _ => self.wrong_kind(item, "an import", "a file name or a map"),
            }
            out.push(imp);
        }
        out
    }
}
