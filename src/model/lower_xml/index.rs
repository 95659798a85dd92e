//! The QName index of every definition the documents hold: node and
//! relationship types, their implementations, artifact and policy templates.
//!
//! In: the parsed documents (imported ones, and on demand the archive's
//! other documents as a fallback). Out: definitions by (namespace, local
//! name), each with the document it is in; a type defined twice
//! differently is reported where it is defined.

use foldhash::HashMap;

use crate::diagnostics::{Diagnostic, Diagnostics, codes};
use crate::xml::ast::{self, Definitions, QRef};

pub(super) type Key = (String, String);

pub(super) fn key(q: &QRef) -> Key {
    (q.ns.clone(), q.local.clone())
}

/// Where a definition was found.
pub(super) struct Found<'a, T> {
    pub(super) item: &'a T,
    pub(super) doc: &'a Definitions,
    /// Found only in a document that is not imported.
    pub(super) fallback: bool,
}

impl<T> Clone for Found<'_, T> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<T> Copy for Found<'_, T> {}

#[derive(Default)]
pub(super) struct Index<'a> {
    pub(super) node_types: HashMap<Key, Found<'a, ast::NodeType>>,
    pub(super) relationship_types: HashMap<Key, Found<'a, ast::RelationshipType>>,
    pub(super) node_impls: HashMap<Key, Vec<Found<'a, ast::TypeImplementation>>>,
    pub(super) relationship_impls: HashMap<Key, Vec<Found<'a, ast::TypeImplementation>>>,
    pub(super) artifact_templates: HashMap<Key, Found<'a, ast::ArtifactTemplate>>,
    pub(super) policy_templates: HashMap<Key, Found<'a, ast::PolicyTemplate>>,
}

impl<'a> Index<'a> {
    pub(super) fn build(docs: &'a [Definitions], fallback: bool, diags: &mut Diagnostics) -> Self {
        let mut i = Index::default();
        i.add(docs, fallback, diags);
        i
    }

    pub(super) fn add(&mut self, docs: &'a [Definitions], fallback: bool, diags: &mut Diagnostics) {
        for doc in docs {
            for t in &doc.node_types {
                insert(&mut self.node_types, &t.header, t, doc, fallback, diags);
            }
            for t in &doc.relationship_types {
                insert(
                    &mut self.relationship_types,
                    &t.header,
                    t,
                    doc,
                    fallback,
                    diags,
                );
            }
            for (list, map) in [
                (&doc.node_type_implementations, &mut self.node_impls),
                (
                    &doc.relationship_type_implementations,
                    &mut self.relationship_impls,
                ),
            ] {
                for imp in list {
                    let entry = map.entry(key(&imp.implements)).or_default();
                    let dup = entry
                        .iter()
                        .any(|f| f.item.name == imp.name && f.item.namespace == imp.namespace);
                    if !dup {
                        entry.push(Found {
                            item: imp,
                            doc,
                            fallback,
                        });
                    }
                }
            }
            for a in &doc.artifact_templates {
                self.artifact_templates
                    .entry((a.namespace.clone(), a.id.clone()))
                    .or_insert(Found {
                        item: a,
                        doc,
                        fallback,
                    });
            }
            for p in &doc.policy_templates {
                self.policy_templates
                    .entry((p.namespace.clone(), p.id.clone()))
                    .or_insert(Found {
                        item: p,
                        doc,
                        fallback,
                    });
            }
        }
        for list in self
            .node_impls
            .values_mut()
            .chain(self.relationship_impls.values_mut())
        {
            list.sort_by(|a, b| {
                (&a.item.namespace, &a.item.name).cmp(&(&b.item.namespace, &b.item.name))
            });
        }
    }

    /// Whether some type reference of the service template (or of the types
    /// it reaches) cannot be resolved in this index.
    pub(super) fn has_unresolved(&self, st: &ast::ServiceTemplate, doc: &Definitions) -> bool {
        let tns = &doc.target_namespace;
        let node_ok = |q: &QRef| {
            self.node_types.contains_key(&key(q))
                || (q.unprefixed
                    && self
                        .node_types
                        .contains_key(&(tns.clone(), q.local.clone())))
        };
        let rel_ok = |q: &QRef| {
            self.relationship_types.contains_key(&key(q))
                || (q.unprefixed
                    && self
                        .relationship_types
                        .contains_key(&(tns.clone(), q.local.clone())))
        };
        let policy_ok = |p: &ast::Policy| {
            p.policy_ref
                .as_ref()
                .is_none_or(|q| self.policy_templates.contains_key(&key(q)))
        };
        st.node_templates.iter().any(|n| !node_ok(&n.node_type))
            || st
                .node_templates
                .iter()
                .any(|n| !n.policies.iter().all(policy_ok))
            || st
                .relationship_templates
                .iter()
                .any(|r| !rel_ok(&r.relationship_type))
            || self.node_types.values().any(|f| {
                f.item
                    .header
                    .derived_from
                    .as_ref()
                    .is_some_and(|d| !self.node_types.contains_key(&key(d)))
            })
    }
}

fn insert<'a, T>(
    map: &mut HashMap<Key, Found<'a, T>>,
    header: &ast::TypeHeader,
    item: &'a T,
    doc: &'a Definitions,
    fallback: bool,
    diags: &mut Diagnostics,
) {
    let k = (header.namespace.clone(), header.name.clone());
    if let Some(prev) = map.get(&k) {
        if prev.doc.source.name() != doc.source.name() && !fallback {
            let a = text_of(prev.doc, type_span(prev.doc, &k));
            let b = text_of(doc, header.span);
            if normalize_ws(&a) != normalize_ws(&b) {
                diags.push(
                    Diagnostic::error(
                        codes::DUPLICATE_DEFINITION,
                        format!(
                            "type `{{{}}}{}` is defined twice, differently",
                            header.namespace, header.name
                        ),
                    )
                    .at(doc.source.location(header.span))
                    .note(format!(
                        "the other definition is in `{}`",
                        prev.doc.source.name()
                    ))
                    .hint("keep one definition; the first one found is used"),
                );
            }
        }
        return;
    }
    map.insert(
        k,
        Found {
            item,
            doc,
            fallback,
        },
    );
}

fn type_span(doc: &Definitions, k: &Key) -> crate::diagnostics::Span {
    doc.node_types
        .iter()
        .map(|t| &t.header)
        .chain(doc.relationship_types.iter().map(|t| &t.header))
        .find(|h| h.namespace == k.0 && h.name == k.1)
        .map(|h| h.span)
        .unwrap_or_default()
}

fn text_of(doc: &Definitions, span: crate::diagnostics::Span) -> String {
    doc.source
        .text()
        .get(span.start..span.end)
        .unwrap_or("")
        .to_string()
}

fn normalize_ws(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}
