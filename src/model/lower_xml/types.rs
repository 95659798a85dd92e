//! Node and relationship types (TOSCA 1.0 §5, §7): finding a type by
//! QName and turning it, with its `DerivedFrom` ancestry, into model
//! types.
//!
//! In: a QName and the document that writes it. Out: a [`TypeId`]; an
//! unknown type (E0401, with a suggestion), a cycle (E0403) and the
//! lenient lookups (a document nobody imports, an unprefixed name in the
//! target namespace) are reported.

use super::Lowerer;
use super::index::{Found, Key, key};
use crate::diagnostics::{Diagnostic, Location, codes};
use crate::model::{RelKind, TypeDef, TypeId, TypeKind, TypeName};
use crate::xml::ast::{self, Definitions, QRef};
use crate::xml::names::{BASE_TYPES, NORMATIVE_TYPES};

impl<'a> Lowerer<'a> {
    /// A type was found only in `doc`, which no document imports; the
    /// warning points at the reference `at` that needed it.
    fn warn_fallback(&mut self, doc: &Definitions, what: String, at: Location) {
        if self.warned_fallback.insert(doc.source.name().to_string()) {
            self.diags.push(
                Diagnostic::warning(
                    codes::W_XML_NOT_IMPORTED,
                    format!(
                        "{what} is defined in `{}`, which no document imports",
                        doc.source.name()
                    ),
                )
                .at(at)
                .hint("add an <Import> for it; it was used anyway"),
            );
        }
    }

    /// Resolve a type QName written in `doc`, with the lenient rules.
    pub(super) fn find_node_type(
        &mut self,
        q: &QRef,
        doc: &Definitions,
    ) -> Option<Found<'a, ast::NodeType>> {
        let found = self.index.node_types.get(&key(q)).copied().or_else(|| {
            self.lenient(q, doc)
                .and_then(|k| self.index.node_types.get(&k).copied())
        });
        if let Some(f) = found
            && f.fallback
        {
            self.warn_fallback(
                f.doc,
                format!("node type `{}`", q.local),
                doc.source.location(q.span),
            );
        }
        found
    }

    pub(super) fn find_relationship_type(
        &mut self,
        q: &QRef,
        doc: &Definitions,
    ) -> Option<Found<'a, ast::RelationshipType>> {
        let found = self
            .index
            .relationship_types
            .get(&key(q))
            .copied()
            .or_else(|| {
                self.lenient(q, doc)
                    .and_then(|k| self.index.relationship_types.get(&k).copied())
            });
        if let Some(f) = found
            && f.fallback
        {
            self.warn_fallback(
                f.doc,
                format!("relationship type `{}`", q.local),
                doc.source.location(q.span),
            );
        }
        found
    }

    /// For an unprefixed QName that took the default namespace: the same
    /// local name in the document's target namespace (with a warning).
    pub(super) fn lenient(&mut self, q: &QRef, doc: &Definitions) -> Option<Key> {
        if !q.unprefixed || q.ns == doc.target_namespace {
            return None;
        }
        let k = (doc.target_namespace.clone(), q.local.clone());
        let exists = self.index.node_types.contains_key(&k)
            || self.index.relationship_types.contains_key(&k);
        if exists {
            self.diags.push(
                Diagnostic::warning(
                    codes::W_XML_UNPREFIXED,
                    format!(
                        "`{}` has no prefix, so it names a type in `{}`; using `{{{}}}{}` instead",
                        q.local,
                        if q.ns.is_empty() {
                            "no namespace"
                        } else {
                            &q.ns
                        },
                        doc.target_namespace,
                        q.local
                    ),
                )
                .at(doc.source.location(q.span))
                .hint("write the QName with a prefix bound to the type's namespace"),
            );
            Some(k)
        } else {
            None
        }
    }

    pub(super) fn unknown_type(&mut self, what: &str, q: &QRef, doc: &Definitions) {
        self.diags.push(
            Diagnostic::error(
                codes::UNKNOWN_TYPE,
                format!(
                    "{what} `{{{}}}{}` is not defined in the CSAR",
                    q.ns, q.local
                ),
            )
            .at(doc.source.location(q.span))
            .hint(self.similar_type_hint(q)),
        );
    }

    /// Point at a type with the same local name in another namespace, the
    /// usual cause (a namespace typo in the defining document).
    fn similar_type_hint(&self, q: &QRef) -> String {
        let mut elsewhere: Vec<String> = self
            .index
            .node_types
            .iter()
            .map(|(k, f)| (k, f.doc))
            .chain(
                self.index
                    .relationship_types
                    .iter()
                    .map(|(k, f)| (k, f.doc)),
            )
            .filter(|(k, _)| k.1 == q.local && k.0 != q.ns)
            .map(|(k, d)| format!("`{{{}}}{}` in `{}`", k.0, k.1, d.source.name()))
            .collect();
        elsewhere.sort();
        match elsewhere.first() {
            Some(e) => format!(
                "a type of that name exists in another namespace: {e}; fix the namespace of the reference or of the definition"
            ),
            None => "import the Definitions document that defines it, or fix the namespace prefix"
                .to_string(),
        }
    }

    /// The type id of a node type and all its ancestors (added on first use).
    pub(super) fn node_type(&mut self, f: Found<'a, ast::NodeType>) -> Option<TypeId> {
        self.type_with_ancestors(TypeKind::Node, f.doc, &f.item.header)
    }

    pub(super) fn relationship_type(
        &mut self,
        f: Found<'a, ast::RelationshipType>,
    ) -> Option<TypeId> {
        self.type_with_ancestors(TypeKind::Relationship, f.doc, &f.item.header)
    }

    fn type_with_ancestors(
        &mut self,
        kind: TypeKind,
        doc: &'a Definitions,
        header: &'a ast::TypeHeader,
    ) -> Option<TypeId> {
        let k = (header.namespace.clone(), header.name.clone());
        if let Some(cached) = self.type_cache.get(&(kind, k.clone())) {
            return *cached;
        }
        // Walk the chain first to detect cycles and unknown parents.
        let mut chain: Vec<(&'a Definitions, &'a ast::TypeHeader)> = vec![(doc, header)];
        loop {
            let (cur_doc, cur) = *chain.last().unwrap();
            let Some(parent) = &cur.derived_from else {
                break;
            };
            let next = match kind {
                TypeKind::Node => self
                    .find_node_type(parent, cur_doc)
                    .map(|f| (f.doc, &f.item.header)),
                TypeKind::Relationship => self
                    .find_relationship_type(parent, cur_doc)
                    .map(|f| (f.doc, &f.item.header)),
            };
            let Some((pdoc, pheader)) = next else {
                let what = match kind {
                    TypeKind::Node => "the parent node type",
                    TypeKind::Relationship => "the parent relationship type",
                };
                self.unknown_type(what, parent, cur_doc);
                self.type_cache.insert((kind, k), None);
                return None;
            };
            if chain
                .iter()
                .any(|(_, h)| h.name == pheader.name && h.namespace == pheader.namespace)
            {
                let names: Vec<String> = chain
                    .iter()
                    .map(|(_, h)| h.name.clone())
                    .chain(std::iter::once(pheader.name.clone()))
                    .collect();
                self.diags.push(
                    Diagnostic::error(
                        codes::CYCLIC_DERIVATION,
                        format!(
                            "type `{}` derives from itself: {}",
                            header.name,
                            names.join(" → ")
                        ),
                    )
                    .at(doc.source.location(header.span))
                    .hint("remove one of the DerivedFrom elements on the cycle"),
                );
                self.type_cache.insert((kind, k), None);
                return None;
            }
            if self
                .type_cache
                .contains_key(&(kind, (pheader.namespace.clone(), pheader.name.clone())))
            {
                chain.push((pdoc, pheader));
                break;
            }
            chain.push((pdoc, pheader));
        }
        // Add from the root down so parents exist.
        let mut parent: Option<TypeId> = None;
        for (cdoc, h) in chain.into_iter().rev() {
            let ck = (h.namespace.clone(), h.name.clone());
            if let Some(Some(id)) = self.type_cache.get(&(kind, ck.clone())) {
                parent = Some(*id);
                continue;
            }
            let id = self.types.add(TypeDef {
                name: TypeName::new(&h.namespace, &h.name),
                kind,
                parent,
                is_abstract: h.is_abstract,
                origin: Some(cdoc.source.location(h.span)),
            });
            self.type_cache.insert((kind, ck), Some(id));
            parent = Some(id);
        }
        parent
    }

    pub(super) fn classify(&self, type_id: TypeId) -> RelKind {
        for t in self.types.ancestry(type_id) {
            let n = &self.types.get(t).name;
            let known = n.namespace == BASE_TYPES
                || n.namespace == NORMATIVE_TYPES
                || n.name.starts_with("tosca.relationships.");
            if !known {
                continue;
            }
            let local = n.name.rsplit('.').next().unwrap_or(&n.name);
            match local {
                "HostedOn" => return RelKind::HostedOn,
                "DependsOn" => return RelKind::DependsOn,
                "DeployedOn" => return RelKind::DeployedOn,
                "ConnectsTo" => return RelKind::ConnectsTo,
                "AttachesTo" => return RelKind::AttachesTo,
                _ => {}
            }
        }
        RelKind::Other
    }
}
