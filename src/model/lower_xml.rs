//! Lowering TOSCA 1.0 XML into the [`Topology`] model.
//!
//! Resolves every QName across the imported documents (with a lenient
//! fallback to documents nobody imports, and to the target namespace for
//! unprefixed names), walks `DerivedFrom` chains (cycles are errors), merges
//! interfaces along the ancestry, binds implementation artifacts to
//! operations (TOSCA 1.0 §2.5 rules: no names = all operations), and
//! resolves relationship ends that name requirements or capabilities to
//! their node templates.

use std::collections::{BTreeSet, HashMap};
use std::sync::Arc;

use indexmap::IndexMap;

use super::{
    Artifact, Dialect, Implementation, Interface, NodeId, NodeTemplate, Operation, OutputDef,
    Parameter, Policy, PolicyTarget, RelKind, RelationshipTemplate, ServiceTemplateInfo, Topology,
    TypeDef, TypeId, TypeKind, TypeName, TypeTable, Value,
};
use crate::csar::{Csar, path};
use crate::diagnostics::{Diagnostic, Diagnostics, Location, codes};
use crate::xml::ast::{self, Definitions, QRef};
use crate::xml::names::{BASE_TYPES, NORMATIVE_TYPES};

/// Which service template to compile, when the entry document has several.
#[derive(Clone, Debug, Default)]
pub(crate) struct XmlOptions {
    /// Service template id; the first one of the entry document if `None`.
    pub service_template: Option<String>,
}

/// Lower the documents (entry first) into a topology. `fallback` is called
/// at most once, when a reference cannot be resolved in the imported
/// documents, and returns the archive's other documents.
pub(crate) fn lower(
    docs: &[Definitions],
    fallback: &mut dyn FnMut() -> Vec<Definitions>,
    csar: &Csar,
    options: &XmlOptions,
) -> (Option<Topology>, Diagnostics) {
    let mut diags = Diagnostics::new();
    let extra;
    let mut index = Index::build(docs, false, &mut diags);
    // Find the service template first: nothing else matters without one.
    let Some((st, st_doc)) = find_service_template(docs, options, &mut diags) else {
        return (None, diags);
    };
    if index.has_unresolved(st, st_doc) {
        extra = fallback();
        index.add(&extra, true, &mut diags);
    }
    let mut l = Lowerer {
        index,
        csar,
        diags,
        types: TypeTable::new(),
        type_cache: HashMap::new(),
        warned_fallback: BTreeSet::new(),
        node_interfaces: HashMap::new(),
        names: super::Names::default(),
    };
    let topology = l.service_template(st, st_doc);
    (Some(topology), l.diags)
}

fn find_service_template<'a>(
    docs: &'a [Definitions],
    options: &XmlOptions,
    diags: &mut Diagnostics,
) -> Option<(&'a ast::ServiceTemplate, &'a Definitions)> {
    let entry = docs.first()?;
    let all: Vec<(&ast::ServiceTemplate, &Definitions)> = docs
        .iter()
        .flat_map(|d| d.service_templates.iter().map(move |s| (s, d)))
        .collect();
    let found = match &options.service_template {
        Some(want) => all.iter().find(|(s, _)| &s.id == want).copied(),
        None => entry
            .service_templates
            .first()
            .map(|s| (s, entry))
            .or_else(|| all.first().copied()),
    };
    if found.is_none() {
        let message = match &options.service_template {
            Some(want) => format!(
                "there is no service template `{want}` (found: {})",
                if all.is_empty() {
                    "none".to_string()
                } else {
                    all.iter()
                        .map(|(s, _)| format!("`{}`", s.id))
                        .collect::<Vec<_>>()
                        .join(", ")
                }
            ),
            None => format!(
                "the entry definitions `{}` contain no service template",
                entry.source.name()
            ),
        };
        diags.push(
            Diagnostic::error(codes::NO_SERVICE_TEMPLATE, message)
                .at(Location::file(entry.source.name()))
                .hint(
                    "a CSAR to compile must contain a <ServiceTemplate> with a <TopologyTemplate>",
                ),
        );
    }
    found
}

type Key = (String, String);

fn key(q: &QRef) -> Key {
    (q.ns.clone(), q.local.clone())
}

/// Where a definition was found.
struct Found<'a, T> {
    item: &'a T,
    doc: &'a Definitions,
    /// Found only in a document that is not imported.
    fallback: bool,
}

impl<T> Clone for Found<'_, T> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<T> Copy for Found<'_, T> {}

#[derive(Default)]
struct Index<'a> {
    node_types: HashMap<Key, Found<'a, ast::NodeType>>,
    relationship_types: HashMap<Key, Found<'a, ast::RelationshipType>>,
    node_impls: HashMap<Key, Vec<Found<'a, ast::TypeImplementation>>>,
    relationship_impls: HashMap<Key, Vec<Found<'a, ast::TypeImplementation>>>,
    artifact_templates: HashMap<Key, Found<'a, ast::ArtifactTemplate>>,
}

impl<'a> Index<'a> {
    fn build(docs: &'a [Definitions], fallback: bool, diags: &mut Diagnostics) -> Self {
        let mut i = Index::default();
        i.add(docs, fallback, diags);
        i
    }

    fn add(&mut self, docs: &'a [Definitions], fallback: bool, diags: &mut Diagnostics) {
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
    fn has_unresolved(&self, st: &ast::ServiceTemplate, doc: &Definitions) -> bool {
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
        st.node_templates.iter().any(|n| !node_ok(&n.node_type))
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

/// What every template of a node type shares: effective interfaces (with
/// implementations), deployment artifacts of the implementations, and the
/// property keys of Winery's property definitions.
type TypeFacts = (Arc<Vec<Interface>>, Vec<Artifact>, Vec<String>);

struct Lowerer<'a> {
    index: Index<'a>,
    csar: &'a Csar,
    diags: Diagnostics,
    types: TypeTable,
    type_cache: HashMap<(TypeKind, Key), Option<TypeId>>,
    warned_fallback: BTreeSet<String>,
    node_interfaces: HashMap<TypeId, TypeFacts>,
    names: super::Names,
}

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
    fn find_node_type(&mut self, q: &QRef, doc: &Definitions) -> Option<Found<'a, ast::NodeType>> {
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

    fn find_relationship_type(
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
    fn lenient(&mut self, q: &QRef, doc: &Definitions) -> Option<Key> {
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

    fn unknown_type(&mut self, what: &str, q: &QRef, doc: &Definitions) {
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
    fn node_type(&mut self, f: Found<'a, ast::NodeType>) -> Option<TypeId> {
        self.type_with_ancestors(TypeKind::Node, f.doc, &f.item.header)
    }

    fn relationship_type(&mut self, f: Found<'a, ast::RelationshipType>) -> Option<TypeId> {
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

    /// Effective interfaces, deployment artifacts of the chosen
    /// implementation, and Winery property keys of a node type.
    fn node_type_facts(
        &mut self,
        type_id: TypeId,
    ) -> (Arc<Vec<Interface>>, Vec<Artifact>, Vec<String>) {
        if let Some(f) = self.node_interfaces.get(&type_id) {
            return f.clone();
        }
        let ancestry = self.types.ancestry(type_id);
        let mut interfaces: Vec<Interface> = Vec::new();
        let mut keys: Vec<String> = Vec::new();
        for &t in ancestry.iter().rev() {
            let name = self.types.get(t).name.clone();
            let Some(f) = self
                .index
                .node_types
                .get(&(name.namespace, name.name))
                .copied()
            else {
                continue;
            };
            merge_interfaces(&mut interfaces, &f.item.interfaces);
            for k in &f.item.property_keys {
                if !keys.contains(k) {
                    keys.push(k.clone());
                }
            }
        }
        let impls = self.implementations(&ancestry, TypeKind::Node);
        let artifacts = self.bind_implementations(&mut interfaces, &impls);
        let mut das: Vec<Artifact> = Vec::new();
        for i in &impls {
            for da in self.deployment_artifacts(&i.item.deployment_artifacts, i.doc) {
                if !das.iter().any(|d| d.name == da.name) {
                    das.push(da);
                }
            }
        }
        let facts = (Arc::new(interfaces), das, keys);
        let _ = artifacts;
        self.node_interfaces.insert(type_id, facts.clone());
        facts
    }

    /// Non-abstract implementations of the type and its ancestors, nearest
    /// type first; among one type's implementations, those with more
    /// artifacts first, then by name. An operation is implemented by the
    /// first of them that has an artifact for it, so a subtype's
    /// implementation of some operations does not hide its parent's
    /// implementation of the others.
    fn implementations(
        &self,
        ancestry: &[TypeId],
        kind: TypeKind,
    ) -> Vec<Found<'a, ast::TypeImplementation>> {
        let mut out = Vec::new();
        for &t in ancestry {
            let name = self.types.get(t).name.clone();
            let k = (name.namespace, name.name);
            let list = match kind {
                TypeKind::Node => self.index.node_impls.get(&k),
                TypeKind::Relationship => self.index.relationship_impls.get(&k),
            };
            if let Some(list) = list {
                let mut usable: Vec<_> = list
                    .iter()
                    .copied()
                    .filter(|f| !f.item.is_abstract)
                    .collect();
                usable.sort_by_key(|f| std::cmp::Reverse(f.item.implementation_artifacts.len()));
                out.extend(usable);
            }
        }
        out
    }

    /// Attach to every operation the first implementation artifact (in
    /// implementation order) that implements it.
    fn bind_implementations(
        &mut self,
        interfaces: &mut [Interface],
        impls: &[Found<'a, ast::TypeImplementation>],
    ) -> usize {
        let mut bound = 0;
        for iface in interfaces.iter_mut() {
            for op in iface.operations.iter_mut() {
                'impls: for imp in impls {
                    for ia in &imp.item.implementation_artifacts {
                        let iface_ok = ia
                            .interface_name
                            .as_deref()
                            .is_none_or(|n| n == &*iface.name);
                        let op_ok = ia.operation_name.as_deref().is_none_or(|n| n == &*op.name);
                        if iface_ok && op_ok {
                            op.implementation = Some(Arc::new(Implementation {
                                primary: self.artifact(
                                    ia.name.clone(),
                                    &ia.artifact_type,
                                    ia.artifact_ref.as_ref(),
                                    imp.doc,
                                ),
                                dependencies: Vec::new(),
                            }));
                            bound += 1;
                            break 'impls;
                        }
                    }
                }
            }
        }
        bound
    }

    fn artifact(
        &mut self,
        name: Option<String>,
        artifact_type: &QRef,
        artifact_ref: Option<&QRef>,
        _doc: &Definitions,
    ) -> Artifact {
        let mut files = Vec::new();
        let mut properties = IndexMap::new();
        let mut display = name;
        if let Some(r) = artifact_ref {
            if let Some(t) = self.index.artifact_templates.get(&key(r)).copied() {
                display = display.or_else(|| Some(t.item.id.clone()));
                for reference in &t.item.references {
                    files.push(self.csar_path(reference));
                }
                for v in t.item.properties.iter().flat_map(|p| &p.values) {
                    properties.insert(v.name.clone(), v.value.clone());
                }
            } else {
                display = display.or_else(|| Some(r.local.clone()));
            }
        }
        Artifact {
            name: display.unwrap_or_else(|| artifact_type.local.clone()),
            artifact_type: TypeName::new(&artifact_type.ns, &artifact_type.local),
            files,
            properties,
        }
    }

    /// An artifact reference as the path of an entry in the CSAR: Winery
    /// references are URL-encoded once more than the entry names.
    fn csar_path(&self, reference: &str) -> String {
        if reference.contains("://") {
            return reference.to_string();
        }
        let decoded = path::percent_decode(reference);
        let candidates = [decoded.clone(), reference.to_string()];
        for c in &candidates {
            if let Ok(n) = path::normalize(c)
                && (self.csar.contains(&n)
                    || self.csar.names().any(|e| e.starts_with(&format!("{n}/"))))
            {
                return n;
            }
        }
        path::normalize(&decoded).unwrap_or(decoded)
    }

    fn deployment_artifacts(
        &mut self,
        das: &[ast::DeploymentArtifact],
        doc: &Definitions,
    ) -> Vec<Artifact> {
        das.iter()
            .map(|da| {
                let mut a = self.artifact(
                    Some(da.name.clone()),
                    &da.artifact_type,
                    da.artifact_ref.as_ref(),
                    doc,
                );
                a.name = da.name.clone();
                a
            })
            .collect()
    }

    fn relationship_interfaces(
        &mut self,
        type_id: TypeId,
    ) -> (Arc<Vec<Interface>>, Arc<Vec<Interface>>) {
        let ancestry = self.types.ancestry(type_id);
        let mut source: Vec<Interface> = Vec::new();
        let mut target: Vec<Interface> = Vec::new();
        for &t in ancestry.iter().rev() {
            let name = self.types.get(t).name.clone();
            if let Some(f) = self
                .index
                .relationship_types
                .get(&(name.namespace, name.name))
                .copied()
            {
                merge_interfaces(&mut source, &f.item.source_interfaces);
                merge_interfaces(&mut target, &f.item.target_interfaces);
            }
        }
        let impls = self.implementations(&ancestry, TypeKind::Relationship);
        self.bind_implementations(&mut source, &impls);
        self.bind_implementations(&mut target, &impls);
        (Arc::new(source), Arc::new(target))
    }

    fn classify(&self, type_id: TypeId) -> RelKind {
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

    fn properties(
        &mut self,
        doc: Option<&ast::PropertiesDoc>,
        keys: &[String],
    ) -> super::Properties {
        let mut out = super::Properties::new();
        if let Some(doc) = doc {
            for v in &doc.values {
                out.insert(self.names.get(&v.name), property_value(&v.value));
            }
        }
        for k in keys {
            if !out.contains_key(k.as_str()) {
                out.insert(self.names.get(k), Value::Scalar(String::new()));
            }
        }
        out
    }

    fn service_template(&mut self, st: &'a ast::ServiceTemplate, doc: &'a Definitions) -> Topology {
        let mut nodes: Vec<NodeTemplate> = Vec::new();
        let mut ids: HashMap<String, NodeId> = HashMap::new();
        let mut seen_ids: HashMap<String, crate::diagnostics::Span> = HashMap::new();
        // Templates that failed to lower: relationships to them are skipped
        // without a second, cascading error.
        let mut failed: BTreeSet<String> = BTreeSet::new();
        let mut policies: Vec<Policy> = Vec::new();
        for n in &st.node_templates {
            if let Some(prev) = seen_ids.insert(n.id.clone(), n.span) {
                self.duplicate_id(doc, &n.id, n.span, prev);
                continue;
            }
            let found = self.find_node_type(&n.node_type, doc);
            if found.is_none() {
                self.unknown_type("node type", &n.node_type, doc);
            }
            let Some(type_id) = found.and_then(|f| self.node_type(f)) else {
                failed.insert(n.id.clone());
                failed.extend(
                    n.requirements
                        .iter()
                        .chain(&n.capabilities)
                        .map(|rc| rc.id.clone()),
                );
                continue;
            };
            let (interfaces, impl_das, keys) = self.node_type_facts(type_id);
            let properties = self.properties(n.properties.as_ref(), &keys);
            let running = properties
                .get("State")
                .and_then(Value::as_str)
                .is_some_and(|s| s.eq_ignore_ascii_case("running"));
            let mut artifacts = impl_das;
            for da in self.deployment_artifacts(&n.deployment_artifacts, doc) {
                artifacts.retain(|a| a.name != da.name);
                artifacts.push(da);
            }
            let id = NodeId(nodes.len() as u32);
            ids.insert(n.id.clone(), id);
            policies.extend(node_policies(n, id, doc));
            for rc in n.requirements.iter().chain(&n.capabilities) {
                if let Some(prev) = seen_ids.insert(rc.id.clone(), rc.span) {
                    self.duplicate_id(doc, &rc.id, rc.span, prev);
                }
                ids.entry(rc.id.clone()).or_insert(id);
            }
            nodes.push(NodeTemplate {
                id: n.id.clone(),
                name: n.name.clone(),
                type_id,
                properties,
                properties_element: n
                    .properties
                    .as_ref()
                    .map(|p| (p.ns.clone().unwrap_or_default(), p.local.clone())),
                interfaces,
                artifacts,
                running,
                is_abstract: self.types.get(type_id).is_abstract,
                origin: Some(doc.source.location(n.span)),
            });
        }
        let mut relationships = Vec::new();
        for r in &st.relationship_templates {
            if let Some(prev) = seen_ids.insert(r.id.clone(), r.span) {
                self.duplicate_id(doc, &r.id, r.span, prev);
                continue;
            }
            let Some(found) = self.find_relationship_type(&r.relationship_type, doc) else {
                self.unknown_type("relationship type", &r.relationship_type, doc);
                continue;
            };
            let Some(type_id) = self.relationship_type(found) else {
                continue;
            };
            if failed.contains(&r.source.0) || failed.contains(&r.target.0) {
                continue;
            }
            let source = self.end(&ids, r, &r.source, "source", doc);
            let target = self.end(&ids, r, &r.target, "target", doc);
            let (Some(source), Some(target)) = (source, target) else {
                continue;
            };
            let kind = self.classify(type_id);
            if kind == RelKind::Other {
                self.diags.push(
                    Diagnostic::warning(
                        codes::W_UNKNOWN_RELATIONSHIP_KIND,
                        format!(
                            "relationship `{}` has type `{}`, which derives from none of HostedOn, DependsOn, DeployedOn, ConnectsTo; it is ordered like DependsOn (target before source)",
                            r.id,
                            self.types.get(type_id).name
                        ),
                    )
                    .at(doc.source.location(r.span))
                    .hint("derive the relationship type from a ToscaBaseTypes type, or choose the ordering with --unknown-relationships"),
                );
            }
            let (source_interfaces, target_interfaces) = self.relationship_interfaces(type_id);
            relationships.push(RelationshipTemplate {
                id: r.id.clone(),
                name: r.name.clone(),
                type_id,
                kind,
                source,
                target,
                properties: self.properties(r.properties.as_ref(), &[]),
                interfaces: Arc::new(Vec::new()),
                source_interfaces,
                target_interfaces,
                origin: Some(doc.source.location(r.span)),
            });
        }
        let info = ServiceTemplateInfo {
            id: st.id.clone(),
            namespace: st.namespace.clone(),
            file: doc.source.name().to_string(),
        };
        let types = std::mem::take(&mut self.types);
        let mut topology = Topology::new(Dialect::Xml, info, types, nodes, relationships);
        topology.outputs = self.outputs(st, doc, &topology);
        topology.policies = policies;
        let tags: Vec<(String, String, Location)> = st
            .tags
            .iter()
            .map(|t| (t.name.clone(), t.value.clone(), doc.source.location(t.span)))
            .collect();
        let (regions, d) = super::parse_scaling_tags(&topology, &tags);
        self.diags.extend(d);
        topology.regions = regions;
        topology
    }

    fn duplicate_id(
        &mut self,
        doc: &Definitions,
        id: &str,
        span: crate::diagnostics::Span,
        prev: crate::diagnostics::Span,
    ) {
        let (line, _) = doc.source.line_col(prev.start);
        self.diags.push(
            Diagnostic::error(
                codes::XML_DUPLICATE_ID,
                format!("the id `{id}` is used twice"),
            )
            .at(doc.source.location(span))
            .note(format!("first used on line {line}"))
            .hint("ids of templates, requirements and capabilities must be unique in a document"),
        );
    }

    fn end(
        &mut self,
        ids: &HashMap<String, NodeId>,
        r: &ast::RelationshipTemplate,
        end: &(String, crate::diagnostics::Span),
        which: &str,
        doc: &Definitions,
    ) -> Option<NodeId> {
        match ids.get(&end.0) {
            Some(&n) => Some(n),
            None => {
                self.diags.push(
                    Diagnostic::error(
                        codes::DANGLING_REFERENCE,
                        format!(
                            "relationship `{}` has {which} `{}`, which is not a node template, requirement or capability of the topology",
                            r.id, end.0
                        ),
                    )
                    .at(doc.source.location(end.1))
                    .hint(format!("`ref` must be the id of a node template (or of one of its {})", if which == "source" { "requirements" } else { "capabilities" })),
                );
                None
            }
        }
    }

    /// Build plan outputs from the boundary property mappings.
    fn outputs(
        &mut self,
        st: &ast::ServiceTemplate,
        doc: &Definitions,
        topology: &Topology,
    ) -> Vec<OutputDef> {
        let Some(b) = &st.boundary else {
            return Vec::new();
        };
        let mut out = Vec::new();
        for m in &b.property_mappings {
            let name = last_xpath_step(&m.service_template_property);
            if name.is_empty() {
                continue;
            }
            let loc = doc.source.location(b.span);
            let value = match parse_property_ref(&m.target_object, &m.target_property) {
                Ok(v) => v,
                Err(why) => {
                    self.diags.push(
                        Diagnostic::warning(
                            codes::W_IGNORED,
                            format!(
                                "boundary property mapping `{name}` is not a plan output: {why}"
                            ),
                        )
                        .at(loc),
                    );
                    continue;
                }
            };
            if let Some(why) = missing_property(topology, &value) {
                self.diags.push(
                    Diagnostic::warning(
                        codes::W_IGNORED,
                        format!("boundary property mapping `{name}` is not a plan output: {why}"),
                    )
                    .at(loc)
                    .hint("targetPropertyRef must name a property of the target node template"),
                );
                continue;
            }
            out.push(OutputDef { name, value });
        }
        out
    }
}

/// A boundary `targetPropertyRef`: an XPath to a property of
/// `target_object`, or OpenTOSCA's `concat('text', Node.Properties.Prop, ...)`.
fn parse_property_ref(target_object: &str, target_property: &str) -> Result<Value, String> {
    let get = |node: &str, prop: &str| {
        Value::call(
            "get_property",
            vec![
                Value::Scalar(node.to_string()),
                Value::Scalar(prop.to_string()),
            ],
        )
    };
    let expr = target_property.trim();
    let Some(inner) = expr
        .strip_prefix("concat(")
        .and_then(|r| r.strip_suffix(')'))
    else {
        let prop = last_xpath_step(expr);
        if prop.is_empty() {
            return Err(format!("`{expr}` names no property"));
        }
        return Ok(get(target_object, &prop));
    };
    let mut args = Vec::new();
    for part in split_args(inner) {
        let part = part.trim();
        if let Some(lit) = part
            .strip_prefix('\'')
            .and_then(|p| p.strip_suffix('\''))
            .or_else(|| part.strip_prefix('"').and_then(|p| p.strip_suffix('"')))
        {
            args.push(Value::Scalar(lit.to_string()));
        } else if let Some((node, prop)) = part.split_once(".Properties.") {
            args.push(get(node, prop));
        } else {
            return Err(format!(
                "`{part}` in `{expr}` is neither a 'text' nor Node.Properties.Name"
            ));
        }
    }
    Ok(Value::call("concat", args))
}

/// Split on commas outside quotes.
fn split_args(s: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut quote: Option<char> = None;
    let mut start = 0;
    for (i, c) in s.char_indices() {
        match (quote, c) {
            (Some(q), c) if c == q => quote = None,
            (None, '\'' | '"') => quote = Some(c),
            (None, ',') => {
                out.push(&s[start..i]);
                start = i + 1;
            }
            _ => {}
        }
    }
    out.push(&s[start..]);
    out
}

/// The first `get_property` in `value` that names a missing node or property.
fn missing_property(topology: &Topology, value: &Value) -> Option<String> {
    match value {
        Value::Call(c) if c.function == "get_property" => {
            let args = &c.args;
            let node = args.first().and_then(Value::as_str).unwrap_or_default();
            let prop = args.get(1).and_then(Value::as_str).unwrap_or_default();
            match topology.node_by_id(node) {
                None => Some(format!("`{node}` is not a node template")),
                Some(n) if !topology.node(n).properties.contains_key(prop) => {
                    Some(format!("node template `{node}` has no property `{prop}`"))
                }
                Some(_) => None,
            }
        }
        Value::Call(c) => c.args.iter().find_map(|a| missing_property(topology, a)),
        _ => None,
    }
}

/// Merge `more` into `into`: same-named interfaces merge, a redefined
/// operation replaces the inherited one (TOSCA 1.0 derivation rules).
fn merge_interfaces(into: &mut Vec<Interface>, more: &[ast::Interface]) {
    for i in more {
        let ops: Vec<Operation> = i
            .operations
            .iter()
            .map(|o| Operation {
                name: o.name.as_str().into(),
                inputs: o.inputs.iter().map(param).collect(),
                outputs: o.outputs.iter().map(param).collect(),
                implementation: None,
            })
            .collect();
        match into.iter_mut().find(|x| *x.name == *i.name) {
            Some(existing) => {
                for op in ops {
                    match existing.operations.iter_mut().find(|o| o.name == op.name) {
                        Some(slot) => *slot = op,
                        None => existing.operations.push(op),
                    }
                }
            }
            None => into.push(Interface {
                name: i.name.as_str().into(),
                interface_type: None,
                lineage: Vec::new(),
                operations: ops,
            }),
        }
    }
}

fn param(p: &ast::Parameter) -> Parameter {
    Parameter {
        name: p.name.as_str().into(),
        required: p.required,
        value: None,
    }
}

/// A TOSCA 1.0 property text: `get_input: X` is OpenTOSCA's input convention.
fn property_value(text: &str) -> Value {
    match text.strip_prefix("get_input:") {
        Some(name) if !name.trim().is_empty() => Value::input(name.trim()),
        _ => Value::Scalar(text.to_string()),
    }
}

/// The element name of the last step of a simple XPath (`/a:X/b:Y`,
/// `/*[local-name()='X']/*[local-name()='Y']`).
fn last_xpath_step(xpath: &str) -> String {
    let step = xpath
        .trim()
        .trim_end_matches('/')
        .rsplit('/')
        .next()
        .unwrap_or("");
    if let Some(i) = step.find("local-name()=") {
        let rest = &step[i + "local-name()=".len()..];
        let rest = rest.trim_start_matches(['\'', '"']);
        return rest.split(['\'', '"']).next().unwrap_or("").to_string();
    }
    step.rsplit(':').next().unwrap_or("").to_string()
}

/// The policies of a node template, as the model keeps them: typed by
/// their QName (`{ns}local`; TOSCA 1.0 policy types are not resolved, the
/// plans that read policies match their local names).
fn node_policies(n: &ast::NodeTemplate, id: NodeId, doc: &Definitions) -> Vec<Policy> {
    n.policies
        .iter()
        .filter_map(|p| {
            let t = p.policy_type.as_ref()?;
            Some(Policy {
                name: p.name.clone().unwrap_or_default(),
                types: vec![format!("{{{}}}{}", t.ns, t.local)],
                targets: vec![PolicyTarget::Node(id)],
                properties: IndexMap::new(),
                metadata: Vec::new(),
                origin: Some(doc.source.location(t.span)),
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_the_last_step_of_property_refs() {
        assert_eq!(
            last_xpath_step("/*[local-name()='SmartService']/*[local-name()='VMIP']"),
            "VMIP"
        );
        assert_eq!(last_xpath_step("/ex:ShopOut/ex:Endpoint"), "Endpoint");
        assert_eq!(last_xpath_step("/Props/Port"), "Port");
    }

    #[test]
    fn reads_concat_property_refs() {
        let v = parse_property_ref(
            "VM",
            "concat('http://', VM.Properties.VMIP, ':', App.Properties.Port)",
        )
        .unwrap();
        let Value::Call(c) = v else { panic!() };
        let crate::model::Call { function, args } = *c;
        assert_eq!(function, "concat");
        assert_eq!(args.len(), 4);
        assert_eq!(args[0], Value::Scalar("http://".into()));
        assert!(parse_property_ref("VM", "concat(foo)").is_err());
    }

    #[test]
    fn reads_opentosca_input_convention() {
        assert_eq!(property_value("get_input: Port"), Value::input("Port"));
        assert_eq!(property_value("80"), Value::Scalar("80".into()));
    }
}
