//! What a write-back needs of a Definitions document ([`super::rewrite`]),
//! taken from the parse the loader made, so that a large document is not
//! parsed a second time: its service templates with the parts a write-back
//! edits, and the ids the document gives its elements.
//!
//! In: the loader's parse of a document. Out: the [`Outline`], or none
//! where an earlier run put plans into the document (removing them needs
//! the whole parse).

use std::hash::BuildHasher as _;

use super::dom::{Document, ElemId, Element};
use super::names::{TOSCA, TOSCANINI};

/// A Definitions document cut down to what a write-back edits, and the
/// ids of all its elements.
#[derive(Clone, Debug)]
pub(crate) struct Outline {
    /// The root and its service templates, each with its children; of
    /// those, `Plans` and `BoundaryDefinitions` keep their descendants.
    pub(crate) doc: Document,
    /// The hashes of the `id` attributes of every element, sorted: whether
    /// a plan id may be taken already.
    ids: Vec<u64>,
}

impl Outline {
    /// The outline of `doc`; `None` where it has no service template, or
    /// an element with an attribute in toscanini's namespace (the marks of
    /// an earlier run).
    pub(crate) fn of(doc: &Document) -> Option<Outline> {
        let templates: Vec<ElemId> = doc.children(0, TOSCA, "ServiceTemplate").collect();
        if templates.is_empty() {
            return None;
        }
        // One pass over every attribute: the marks, and the ids.
        let mut ids = Vec::new();
        for a in doc.elements.iter().flat_map(|e| &e.attrs) {
            match a.ns.as_deref() {
                Some(TOSCANINI) => return None,
                None if &*a.local == "id" => ids.push(id_hash(&a.value)),
                _ => {}
            }
        }
        ids.sort_unstable();
        ids.dedup();
        let mut cut = Cut {
            from: doc,
            elements: Vec::new(),
        };
        let root = cut.shallow(0, None);
        for st in templates {
            let copy = cut.shallow(st, Some(root));
            cut.elements[root].children.push(copy);
            for &child in &doc.get(st).children {
                let whole = is_tosca(doc.get(child), "Plans")
                    || is_tosca(doc.get(child), "BoundaryDefinitions");
                let c = if whole {
                    cut.deep(child, copy)
                } else {
                    cut.shallow(child, Some(copy))
                };
                cut.elements[copy].children.push(c);
            }
        }
        Some(Outline {
            doc: Document {
                elements: cut.elements,
                source: doc.source.clone(),
            },
            ids,
        })
    }

    /// Whether an element of the document may have `id`: certainly not
    /// when this says no (two ids may share a hash).
    pub(crate) fn may_have_id(&self, id: &str) -> bool {
        self.ids.binary_search(&id_hash(id)).is_ok()
    }
}

fn is_tosca(e: &Element, local: &str) -> bool {
    e.ns.as_deref() == Some(TOSCA) && &*e.local == local
}

fn id_hash(id: &str) -> u64 {
    foldhash::fast::FixedState::with_seed(0).hash_one(id)
}

/// The elements of an outline being copied out of a document.
struct Cut<'d> {
    from: &'d Document,
    elements: Vec<Element>,
}

impl Cut<'_> {
    /// A copy of element `id` without its children, under `parent`.
    fn shallow(&mut self, id: ElemId, parent: Option<ElemId>) -> ElemId {
        let mut e = self.from.get(id).clone_without_children();
        e.parent = parent;
        self.elements.push(e);
        self.elements.len() - 1
    }

    /// A copy of element `id` and all its descendants, under `parent`.
    fn deep(&mut self, id: ElemId, parent: ElemId) -> ElemId {
        let copy = self.shallow(id, Some(parent));
        for &child in &self.from.get(id).children {
            let c = self.deep(child, copy);
            self.elements[copy].children.push(c);
        }
        copy
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use super::*;
    use crate::diagnostics::SourceFile;

    fn parse(text: &str) -> Document {
        Document::parse(Arc::new(SourceFile::new("d.tosca", text.to_string())), 64).unwrap()
    }

    const DOC: &str = r#"<Definitions xmlns="http://docs.oasis-open.org/tosca/ns/2011/12" id="d">
  <NodeType name="T"/>
  <ServiceTemplate id="st">
    <BoundaryDefinitions><Interfaces><Interface name="i"/></Interfaces></BoundaryDefinitions>
    <TopologyTemplate><NodeTemplate id="n" type="T"/></TopologyTemplate>
    <Plans><Plan id="p"/></Plans>
  </ServiceTemplate>
</Definitions>"#;

    #[test]
    fn keeps_what_a_write_back_edits_and_no_topology() {
        let doc = parse(DOC);
        let outline = Outline::of(&doc).expect("an outline");
        let d = &outline.doc;
        let names: Vec<&str> = d.elements.iter().map(|e| &*e.local).collect();
        assert_eq!(
            names,
            [
                "Definitions",
                "ServiceTemplate",
                "BoundaryDefinitions",
                "Interfaces",
                "Interface",
                "TopologyTemplate",
                "Plans",
                "Plan"
            ]
        );
        let st = d.child(0, TOSCA, "ServiceTemplate").unwrap();
        let topology = d.child(st, TOSCA, "TopologyTemplate").unwrap();
        assert!(d.get(topology).children.is_empty());
        let whole = doc.child(
            doc.child(0, TOSCA, "ServiceTemplate").unwrap(),
            TOSCA,
            "TopologyTemplate",
        );
        assert_eq!(d.get(topology).span, doc.get(whole.unwrap()).span);
        assert_eq!(d.get(topology).parent, Some(st));
        assert_eq!(d.raw_name(st), "ServiceTemplate");
    }

    #[test]
    fn knows_every_id_of_the_document() {
        let outline = Outline::of(&parse(DOC)).unwrap();
        for id in ["d", "st", "n", "p"] {
            assert!(outline.may_have_id(id), "{id}");
        }
        assert!(!outline.may_have_id("st_buildPlan"));
    }

    #[test]
    fn none_for_a_document_an_earlier_run_wrote_into() {
        let marked = DOC.replace(
            "<Plan id=\"p\"/>",
            "<Plan id=\"p\" xmlns:t=\"urn:toscanini\" t:generated=\"build\"/>",
        );
        assert!(Outline::of(&parse(&marked)).is_none());
        let types = r#"<Definitions xmlns="http://docs.oasis-open.org/tosca/ns/2011/12" id="d"><NodeType name="T"/></Definitions>"#;
        assert!(Outline::of(&parse(types)).is_none());
    }
}
