//! Reading the TOSCA YAML grammar: a parsed [`Node`] tree becomes an
//! [`ast::File`](crate::yaml::ast::File). Every key is checked against the keys TOSCA defines at
//! that place (unknown ones are warnings, W0304, since they change no
//! meaning we use); values of the wrong YAML kind are errors that name the
//! key (E0302). Both interface grammars (1.3 `operations:` and the older
//! form with operations directly under the interface) are read, as are
//! 1.x `topology_template` and 2.0 `service_template`.
//!
//! In: the parsed document and its version. Out: the AST and diagnostics.
//!
//! One file per TOSCA section: `imports`, `types`, `interfaces`,
//! `artifacts`, `topology` (with relationship templates, outputs, groups
//! and policies), `node_templates`, `requirements`, `substitution`,
//! `workflows`, `functions`; the key and value helpers they share are here.

mod artifacts;
mod copies;
mod functions;
mod imports;
mod interfaces;
mod node_templates;
mod requirements;
mod substitution;
mod topology;
mod types;
mod workflows;

use std::sync::Arc;

use super::ast::*;
use super::node::{Kind, Node};
use super::version::Version;
use crate::diagnostics::{Diagnostic, Diagnostics, SourceFile, Span, codes};

const TOP_KEYS: &[&str] = &[
    "tosca_definitions_version",
    "namespace",
    "metadata",
    "description",
    "dsl_definitions",
    "repositories",
    "imports",
    "artifact_types",
    "data_types",
    "capability_types",
    "interface_types",
    "relationship_types",
    "node_types",
    "group_types",
    "policy_types",
    "topology_template",
    "service_template",
    "template_name",
    "template_author",
    "template_version",
    "profile",
    "functions",
];

/// Read a document.
pub(crate) fn read(
    source: &Arc<SourceFile>,
    root: Node,
    version: Version,
    diags: &mut Diagnostics,
) -> File {
    let mut r = Reader {
        source,
        diags,
        version,
    };
    let null = Node {
        kind: Kind::Null,
        span: Span::default(),
    };
    let mut file = File::new(source.clone(), null, version);
    for (k, v) in r.entries(&root, "the file", TOP_KEYS) {
        match k.text.as_str() {
            "namespace" => file.namespace = r.string(v, "namespace"),
            "profile" => file.profile = r.string(v, "profile"),
            "metadata" => file.metadata.extend(r.string_map(v, "metadata")),
            "template_name" | "template_author" | "template_version" => {
                if let Some(s) = r.string(v, &k.text) {
                    file.metadata.push((k.text.clone(), s.text));
                }
            }
            "repositories" => {
                for (name, value) in r.entries(v, "repositories", &[]) {
                    let url = match &value.kind {
                        Kind::Scalar { text, .. } => Some(text.clone()),
                        Kind::Map(_) => value.get("url").and_then(Node::as_str).map(str::to_string),
                        _ => None,
                    };
                    file.repositories.push((name, url));
                }
            }
            "imports" => file.imports = r.imports(v),
            "functions" => file.functions = r.functions(v),
            "topology_template" | "service_template" => {
                let mut t = r.topology(v);
                t.key_span = Span::new(k.span.start, v.span.end.max(k.span.end));
                file.topology = Some(t);
            }
            section => {
                if let Some(kind) = TypeKind::ALL.iter().find(|t| t.section() == section) {
                    for (name, def) in r.entries(v, section, &[]) {
                        file.types.push(r.type_def(*kind, name, def));
                    }
                }
            }
        }
    }
    file.root = root;
    file
}

struct Reader<'a> {
    source: &'a Arc<SourceFile>,
    diags: &'a mut Diagnostics,
    version: Version,
}

impl<'a> Reader<'a> {
    fn wrong_kind(&mut self, node: &Node, key: &str, expected: &str) {
        self.diags.push(
            Diagnostic::error(
                codes::YAML_WRONG_KIND,
                // `key` is a key (`node`) or already says what it is
                // (requirement `uses` of node template `left`).
                format!(
                    "{} must be {expected}, but it is {}",
                    if key.contains('`') {
                        key.to_string()
                    } else {
                        format!("`{key}`")
                    },
                    describe(node)
                ),
            )
            .at(self.source.location(node.span)),
        );
    }

    /// The entries of a map (null is empty); keys not in `known` (if it is
    /// not empty) are warned about.
    fn entries<'n>(
        &mut self,
        node: &'n Node,
        what: &str,
        known: &[&str],
    ) -> Vec<(Spanned, &'n Node)> {
        let items = match &node.kind {
            Kind::Null => return Vec::new(),
            Kind::Map(m) => m,
            _ => {
                self.wrong_kind(node, what, "a map");
                return Vec::new();
            }
        };
        let mut out = Vec::with_capacity(items.len());
        for (k, v) in items {
            let Some(key) = k.as_str() else {
                self.wrong_kind(k, &format!("a key in {what}"), "a string");
                continue;
            };
            if !known.is_empty() && !known.contains(&key) {
                self.unknown_key(k, key, what);
            }
            out.push((Spanned::new(key, k.span), v));
        }
        out
    }

    fn unknown_key(&mut self, k: &Node, key: &str, what: &str) {
        let mut d = Diagnostic::warning(
            codes::W_YAML_UNKNOWN_KEY,
            format!("`{key}` is not a TOSCA keyname in {what}; it is ignored"),
        )
        .at(self.source.location(k.span));
        // `node_templates` beside `service_template` instead of in it (a
        // slip that even the 2.0 text makes, §14.1) drops the templates.
        if what == "the file" && key != "description" && topology::TOPOLOGY_KEYS.contains(&key) {
            let section = if self.version.is_v2() {
                "service_template"
            } else {
                "topology_template"
            };
            d = d.hint(format!(
                "`{key}` belongs in `{section}`: indent it under that key"
            ));
        }
        self.diags.push(d);
    }

    /// Entries of a map or of a list of single-key maps (1.x writes
    /// policies and some imports that way).
    fn entries_or_list<'n>(&mut self, node: &'n Node, what: &str) -> Vec<(Spanned, &'n Node)> {
        self.named_entries(node, what, false)
            .into_iter()
            .map(|(k, v, _)| (k, v))
            .collect()
    }

    /// [`Reader::entries_or_list`] for the requirement mappings of a
    /// substitution, where a list as the key is TOSCA 2.0's `[name, count]`
    /// form (§15.5): the mapping of `name`, with the count, which says how
    /// many of the substituted node's assignments it takes (checked
    /// against the node type's `count_range` when lowered).
    fn requirement_mappings<'n>(
        &mut self,
        node: &'n Node,
    ) -> Vec<(Spanned, &'n Node, MappingCount)> {
        self.named_entries(node, "requirements", true)
    }

    fn named_entries<'n>(
        &mut self,
        node: &'n Node,
        what: &str,
        counted_keys: bool,
    ) -> Vec<(Spanned, &'n Node, MappingCount)> {
        let Kind::Seq(items) = &node.kind else {
            return self
                .entries(node, what, &[])
                .into_iter()
                .map(|(k, v)| (k, v, MappingCount::Uncounted))
                .collect();
        };
        let mut out = Vec::new();
        for item in items {
            match item.as_map() {
                Some([(k, v)]) if k.as_str().is_some() => out.push((
                    Spanned::new(k.as_str().unwrap_or_default(), k.span),
                    v,
                    MappingCount::Uncounted,
                )),
                Some([(k, v)]) if counted_keys && matches!(k.kind, Kind::Seq(_)) => {
                    match counted_name(k) {
                        Some((name, count)) => out.push((name, v, count)),
                        None => self.diags.push(
                            Diagnostic::error(
                                codes::YAML_WRONG_KIND,
                                format!(
                                    "a requirement mapping with a count must be keyed `[ <name>, <count> ]`, but the key is {}",
                                    describe_list(k)
                                ),
                            )
                            .at(self.source.location(k.span))
                            .hint("the count is a non-negative integer or UNBOUNDED (TOSCA 2.0 §15.5)"),
                        ),
                    }
                }
                // `- [ a, b ]: …` is one key, but not a name.
                Some([(k, _)]) => self.diags.push(
                    Diagnostic::error(
                        codes::YAML_WRONG_KIND,
                        format!(
                            "the key of an entry of `{what}` must be a name, but it is {}",
                            describe(k)
                        ),
                    )
                    .at(self.source.location(k.span)),
                ),
                _ => self.wrong_kind(item, &format!("an entry of {what}"), "a map with one key"),
            }
        }
        out
    }

    /// W0412 at `at`: a keyname the plans read but do not honour, what
    /// they do instead (`message`) and what the user may do (`hint`).
    fn ignored(&mut self, at: Span, message: String, hint: &str) {
        self.diags.push(
            Diagnostic::warning(codes::W_IGNORED, message)
                .at(self.source.location(at))
                .hint(hint),
        );
    }

    fn string(&mut self, node: &Node, key: &str) -> Option<Spanned> {
        match &node.kind {
            Kind::Scalar { text, .. } => Some(Spanned::new(text.clone(), node.span)),
            Kind::Null => None,
            _ => {
                self.wrong_kind(node, key, "a string");
                None
            }
        }
    }

    fn string_map(&mut self, node: &Node, key: &str) -> Vec<(String, String)> {
        let mut out = Vec::new();
        for (k, v) in self.entries(node, key, &[]) {
            match &v.kind {
                Kind::Scalar { text, .. } => out.push((k.text, text.clone())),
                Kind::Null => out.push((k.text, String::new())),
                _ => {}
            }
        }
        out
    }

    /// Like [`Self::string_map`], keeping where each key and value is.
    fn spanned_string_map(&mut self, node: &Node, key: &str) -> Vec<(Spanned, Spanned)> {
        let mut out = Vec::new();
        for (k, v) in self.entries(node, key, &[]) {
            if let Kind::Scalar { text, .. } = &v.kind {
                out.push((k, Spanned::new(text.clone(), v.span)));
            }
        }
        out
    }

    fn string_list(&mut self, node: &Node, key: &str) -> Vec<Spanned> {
        match &node.kind {
            Kind::Null => Vec::new(),
            Kind::Scalar { text, .. } => vec![Spanned::new(text.clone(), node.span)],
            Kind::Seq(items) => items.iter().filter_map(|i| self.string(i, key)).collect(),
            _ => {
                self.wrong_kind(node, key, "a list of strings");
                Vec::new()
            }
        }
    }

    fn assignments(&mut self, node: &Node, key: &str) -> Vec<(Spanned, Node)> {
        self.entries(node, key, &[])
            .into_iter()
            .map(|(k, v)| (k, v.clone()))
            .collect()
    }
}

/// The name and count of a `[name, count]` key, if it has that form: a name and a
/// non-negative integer or `UNBOUNDED`.
fn counted_name(key: &Node) -> Option<(Spanned, MappingCount)> {
    let Kind::Seq(items) = &key.kind else {
        return None;
    };
    let [name, count] = items.as_slice() else {
        return None;
    };
    let count = match count.as_str()? {
        "UNBOUNDED" => MappingCount::Unbounded,
        n => MappingCount::Exactly(n.parse::<u64>().ok()?),
    };
    Some((Spanned::new(name.as_str()?, name.span), count))
}

/// A list key for messages: its items, when they are short scalars.
fn describe_list(node: &Node) -> String {
    match &node.kind {
        Kind::Seq(items) if items.iter().all(|i| i.as_str().is_some()) => {
            let texts: Vec<String> = items
                .iter()
                .filter_map(|i| i.as_str())
                .map(String::from)
                .collect();
            format!("`[ {} ]`", texts.join(", "))
        }
        _ => describe(node),
    }
}

/// A node for messages: its kind, and a short scalar in quotes.
pub(crate) fn describe(node: &Node) -> String {
    match &node.kind {
        Kind::Scalar { text, .. } if text.chars().count() <= 40 => format!("the scalar `{text}`"),
        _ => node.kind_name().to_string(),
    }
}

/// Read a TOSCA 1.3 document given as text (unit tests of the parts).
#[cfg(test)]
fn read_text(text: &str) -> (File, Diagnostics) {
    let source = Arc::new(SourceFile::new("t.yaml", text));
    let root = super::node::parse(&source, super::node::LoadLimits::default())
        .unwrap_or_else(|d| panic!("{}", d.one_line()));
    let mut diags = Diagnostics::new();
    let file = read(&source, root, Version::V1_3, &mut diags);
    (file, diags)
}
