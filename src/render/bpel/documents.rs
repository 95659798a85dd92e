//! The properties documents a plan PUTs to node instances, shaped once.
//! Nodes of one type store documents of one shape: the same root element
//! in the same namespace, the same property elements in the same order.
//! The process fills one empty document of each shape before its
//! activities run and never writes it again (parallel branches read it
//! without a race); a store has `properties.xsl` copy it with the values
//! of its node's property variables in, one argument per property
//! instead of a copy per property into a document built anew.
//!
//! In: the plan's `StoreProperties` steps. Out: the shapes' variables,
//! declared and filled, and the shape and values of each store.

use std::collections::BTreeMap;

use super::writer::W;
use crate::error::Result;
use crate::model::{NodeId, TemplateRef, Topology};
use crate::names::{Unique, ncname, xml_escape};
use crate::plugins::ConcretePlan;
use crate::plugins::steps::Step;
use crate::render::vars::{Vars, word};

/// What makes two stores' documents differ.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
struct Key<'a> {
    namespace: &'a str,
    root: &'a str,
    /// The stored properties, in declaration order.
    properties: Vec<&'a str>,
}

/// The root element of a document whose template names none.
const DEFAULT_ROOT: &str = "Properties";

/// What node `n`'s store writes: its document's shape and the variable
/// of each stored property (in the shape's order). `None` where no
/// property can be an XML element.
fn store_of<'a>(
    topology: &'a Topology,
    names: &'a Vars,
    n: NodeId,
) -> Option<(Key<'a>, Vec<&'a str>)> {
    let (properties, variables): (Vec<&str>, Vec<&str>) = names
        .props_of(topology, TemplateRef::Node(n))
        .filter(|(p, _)| is_xml_name(p))
        .unzip();
    if properties.is_empty() {
        return None;
    }
    let (namespace, root) = match &topology.node(n).properties_element {
        Some((ns, root)) if !root.is_empty() => (ns.as_str(), root.as_str()),
        Some((ns, _)) => (ns.as_str(), DEFAULT_ROOT),
        None => ("", DEFAULT_ROOT),
    };
    let key = Key {
        namespace,
        root,
        properties,
    };
    Some((key, variables))
}

/// What a shape's variable is named after: the root element of node
/// `n`'s properties document where its template names one (TOSCA 1.0:
/// `VirtualMachineProperties`), else the last segment of its type's name
/// (YAML: `Compute` of `tosca.nodes.Compute`).
fn shape_name(topology: &Topology, n: NodeId) -> &str {
    let node = topology.node(n);
    match &node.properties_element {
        Some((_, root)) if !root.is_empty() => root,
        _ => {
            let name = topology.types.get(node.type_id).name.unversioned();
            name.rsplit('.').next().unwrap_or(name)
        }
    }
}

/// A property name that can be an element's local name.
fn is_xml_name(s: &str) -> bool {
    !s.is_empty() && ncname(s) == s
}

/// The document shapes of a plan's stores, in the order of their first
/// stores.
pub(crate) struct Documents<'a> {
    /// Each shape and its variable.
    shapes: Vec<(Key<'a>, String)>,
    /// Each shape's index in `shapes`.
    index: BTreeMap<Key<'a>, usize>,
}

/// A store: the variable of its shape's document and those of the values.
pub(crate) struct Store<'a> {
    pub(crate) document: &'a str,
    pub(crate) values: Vec<&'a str>,
}

impl<'a> Documents<'a> {
    /// The shapes of the stores of `plan`. A shape's variable is
    /// `properties_<name>` ([`shape_name`] of its first store), made
    /// unique: a family no template (`inst_`, `prop_`), state, call or
    /// failure variable is in.
    pub(crate) fn new(
        topology: &'a Topology,
        names: &'a Vars,
        plan: &ConcretePlan,
    ) -> Documents<'a> {
        let mut shapes = Vec::new();
        let mut index = BTreeMap::new();
        let mut unique = Unique::new();
        let stored = plan
            .bodies
            .iter()
            .flat_map(|b| b.steps.iter().chain(&b.compensation))
            .filter_map(|s| match s {
                Step::StoreProperties(n) => Some(*n),
                _ => None,
            });
        for n in stored {
            let Some((key, _)) = store_of(topology, names, n) else {
                continue;
            };
            if index.contains_key(&key) {
                continue;
            }
            index.insert(key.clone(), shapes.len());
            let variable = unique.name(format!("properties_{}", word(shape_name(topology, n))));
            shapes.push((key, variable));
        }
        Documents { shapes, index }
    }

    /// What node `n`'s store writes (`None` where it stores nothing).
    pub(crate) fn store(
        &self,
        topology: &'a Topology,
        names: &'a Vars,
        n: NodeId,
    ) -> Option<Store<'_>> {
        let (key, values) = store_of(topology, names, n)?;
        let i = *self.index.get(&key)?;
        Some(Store {
            document: &self.shapes[i].1,
            values,
        })
    }

    /// The most properties a document has (`properties.xsl` takes that
    /// many values).
    pub(crate) fn most_values(&self) -> usize {
        self.shapes
            .iter()
            .map(|(k, _)| k.properties.len())
            .max()
            .unwrap_or(0)
    }

    /// Whether the plan stores any properties.
    pub(crate) fn any(&self) -> bool {
        !self.shapes.is_empty()
    }

    /// Declare the variable of each shape.
    pub(crate) fn declare(&self, w: &mut W) -> Result<()> {
        for (_, variable) in &self.shapes {
            w.put("document-variable", 4, &[("name", variable)])?;
        }
        Ok(())
    }

    /// The assign that fills each shape's empty document (nothing without
    /// stores).
    pub(crate) fn prepare(&self, w: &mut W) -> Result<()> {
        if self.shapes.is_empty() {
            return Ok(());
        }
        w.put("documents", 4, &[])?;
        for (key, variable) in &self.shapes {
            w.put(
                "document",
                4,
                &[("name", variable), ("literal", &empty_document(key))],
            )?;
        }
        w.put("documents-end", 4, &[])
    }
}

/// A shape's document with empty property elements: in the default
/// namespace when it has none, else with prefix `p`.
fn empty_document(key: &Key) -> String {
    let (open, prefix) = if key.namespace.is_empty() {
        (format!("<{} xmlns=\"\">", key.root), "")
    } else {
        (
            format!("<p:{} xmlns:p=\"{}\">", key.root, xml_escape(key.namespace)),
            "p:",
        )
    };
    let mut out = open;
    for p in &key.properties {
        out.push_str(&format!("<{prefix}{p}/>"));
    }
    out.push_str(&format!("</{prefix}{}>", key.root));
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key<'a>(namespace: &'a str, properties: &[&'a str]) -> Key<'a> {
        Key {
            namespace,
            root: "P",
            properties: properties.to_vec(),
        }
    }

    #[test]
    fn an_empty_document_has_an_element_per_property_in_its_namespace() {
        assert_eq!(
            empty_document(&key("urn:a&b", &["ip", "port"])),
            "<p:P xmlns:p=\"urn:a&amp;b\"><p:ip/><p:port/></p:P>"
        );
        assert_eq!(empty_document(&key("", &["ip"])), "<P xmlns=\"\"><ip/></P>");
    }

    #[test]
    fn only_names_an_element_can_have_are_stored() {
        assert!(is_xml_name("VMIP"));
        assert!(!is_xml_name("a b"));
        assert!(!is_xml_name("1st"));
        assert!(!is_xml_name(""));
    }
}
