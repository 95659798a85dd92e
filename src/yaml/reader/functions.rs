//! Function definitions (2.0 §6.6, §10.4): the `functions` section's
//! custom functions and the argument counts their signatures accept.
//! Argument and result schemas and implementations are not read: the
//! plans do not evaluate custom functions, they pass calls on as written.
//!
//! In: the YAML node of the section. Out: [`FunctionDef`]s; a function
//! without signatures is an error (E0303), unknown keys warnings (W0304).

use super::Reader;
use crate::diagnostics::{Diagnostic, codes};
use crate::yaml::ast::{FunctionDef, Signature};
use crate::yaml::node::{Kind, Node};

impl Reader<'_> {
    pub(super) fn functions(&mut self, node: &Node) -> Vec<FunctionDef> {
        let mut out = Vec::new();
        for (name, def) in self.entries(node, "functions", &[]) {
            let what = format!("function `{}`", name.text);
            let mut signatures = Vec::new();
            let mut given = false;
            for (k, v) in self.entries(def, &what, &["signatures", "description", "metadata"]) {
                if k.text != "signatures" {
                    continue;
                }
                given = true;
                let items: Vec<&Node> = match &v.kind {
                    Kind::Seq(items) => items.iter().collect(),
                    // The keyname table says "map of signature definitions".
                    Kind::Map(entries) => entries.iter().map(|(_, s)| s).collect(),
                    _ => {
                        self.wrong_kind(v, "signatures", "a list");
                        continue;
                    }
                };
                for s in items {
                    signatures.push(self.signature(s, &what));
                }
            }
            if !given || signatures.is_empty() {
                self.diags.push(
                    Diagnostic::error(codes::YAML_MISSING_KEY, format!("{what} has no signature"))
                        .at(self.source.location(name.span))
                        .hint("give it `signatures:` with at least one signature (2.0 §10.4)"),
                );
            }
            out.push(FunctionDef { name, signatures });
        }
        out
    }

    fn signature(&mut self, node: &Node, what: &str) -> Signature {
        let mut s = Signature::default();
        let keys = [
            "arguments",
            "optional_arguments",
            "variadic",
            "result",
            "implementation",
        ];
        for (k, v) in self.entries(node, &format!("a signature of {what}"), &keys) {
            match k.text.as_str() {
                "arguments" | "optional_arguments" => {
                    let n = match &v.kind {
                        Kind::Seq(items) => items.len(),
                        Kind::Null => 0,
                        _ => {
                            self.wrong_kind(v, &k.text, "a list");
                            0
                        }
                    };
                    if k.text == "arguments" {
                        s.arguments = n;
                    } else {
                        s.optional = n;
                    }
                }
                "variadic" => s.variadic = v.as_str() == Some("true"),
                _ => {}
            }
        }
        s
    }
}
