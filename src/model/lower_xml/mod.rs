//! Lowering TOSCA 1.0 XML into the [`Topology`] model.
//!
//! Resolves every QName across the imported documents (with a lenient
//! fallback to documents nobody imports, and to the target namespace for
//! unprefixed names), walks `DerivedFrom` chains (cycles are errors), merges
//! interfaces along the ancestry, binds implementation artifacts to
//! operations (TOSCA 1.0 §2.5 rules: no names = all operations), and
//! resolves relationship ends that name requirements or capabilities to
//! their node templates.
//!
//! One concept per file: `index` (QNames), `types`, `interfaces`,
//! `artifacts`, `properties`, `nodes`, `relationships`, `outputs`;
//! `topology` picks the service template and lowers its parts in order.

mod artifacts;
pub(crate) mod given;
mod index;
mod interfaces;
mod nodes;
mod outputs;
mod properties;
mod relationships;
mod topology;
mod types;

use foldhash::HashMap;
use std::collections::BTreeSet;
use std::sync::Arc;

use self::index::{Index, Key};
use self::topology::find_service_template;
use super::{Artifact, Interface, Topology, TypeId, TypeKind, TypeTable};
use crate::csar::Csar;
use crate::diagnostics::Diagnostics;
use crate::xml::ast::Definitions;

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
        type_cache: HashMap::default(),
        warned_fallback: BTreeSet::new(),
        node_interfaces: HashMap::default(),
        names: super::Names::default(),
    };
    let topology = l.service_template(st, st_doc);
    (Some(topology), l.diags)
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

impl<'a> Lowerer<'a> {}

/// Lower one Definitions document given as text (unit tests of the
/// parts): `body` goes inside `<Definitions>`, whose target namespace is
/// `http://example.org/types` (prefix `ex`; `bt` is ToscaBaseTypes).
#[cfg(test)]
fn lower_text(body: &str) -> (Option<Topology>, Diagnostics) {
    let text = format!(
        "<Definitions xmlns=\"http://docs.oasis-open.org/tosca/ns/2011/12\" \
         xmlns:bt=\"http://docs.oasis-open.org/tosca/ns/2011/12/ToscaBaseTypes\" \
         xmlns:ex=\"http://example.org/types\" id=\"T\" \
         targetNamespace=\"http://example.org/types\">{body}</Definitions>"
    );
    let source = Arc::new(crate::diagnostics::SourceFile::new(
        "Definitions/t.tosca",
        text,
    ));
    let (doc, diags) = crate::xml::definitions::read(source, 64);
    assert!(!diags.has_errors(), "{diags:?}");
    let csar = Csar::from_entries("test", []);
    lower(
        &[doc.unwrap()],
        &mut Vec::new,
        &csar,
        &XmlOptions::default(),
    )
}
