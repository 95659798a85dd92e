//! The properties documents of a plan's node templates. A node's
//! properties whose names an element can have are the elements of one
//! document variable (`prop_<template>`, [`Vars::document`]): the
//! process sets it once from an empty document of its shape, operations'
//! outputs write its elements, a store PUTs it as it is, and a load from
//! an instance GETs it whole.
//!
//! Nodes of one type have documents of one shape: the same root element
//! in the same namespace, the same property elements in the same order.
//! The process fills one empty document of each shape before its
//! activities run (`properties_<shape>`, never written again, so parallel
//! branches read it without a race) and copies it into the document of
//! each template it declares.
//!
//! In: the templates the process declares. Out: the shapes' variables,
//! declared and filled, and the templates' documents set from them.

use std::collections::BTreeMap;

use super::writer::W;
use crate::error::Result;
use crate::model::{TemplateMap, TemplateRef, Topology};
use crate::names::{Unique, xml_escape};
use crate::render::vars::{Vars, in_document, word};

/// What makes two templates' documents differ.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
struct Key<'a> {
    namespace: &'a str,
    root: &'a str,
    /// The properties in the document, in declaration order.
    properties: Vec<&'a str>,
}

/// The root element of a document whose template names none.
const DEFAULT_ROOT: &str = "Properties";

/// The shape of node template `t`'s document (`None`: it has none).
fn key_of<'a>(topology: &'a Topology, t: TemplateRef) -> Option<Key<'a>> {
    let TemplateRef::Node(n) = t else {
        return None;
    };
    let properties: Vec<&str> = topology
        .properties(t)
        .keys()
        .map(|p| &**p)
        .filter(|p| in_document(t, p))
        .collect();
    if properties.is_empty() {
        return None;
    }
    let (namespace, root) = match &topology.node(n).properties_element {
        Some((ns, root)) if !root.is_empty() => (ns.as_str(), root.as_str()),
        Some((ns, _)) => (ns.as_str(), DEFAULT_ROOT),
        None => ("", DEFAULT_ROOT),
    };
    Some(Key {
        namespace,
        root,
        properties,
    })
}

/// What a shape's variable is named after: the root element of node
/// template `t`'s properties document where it names one (TOSCA 1.0:
/// `VirtualMachineProperties`), else the last segment of its type's name
/// (YAML: `Compute` of `tosca.nodes.Compute`).
fn shape_name(topology: &Topology, t: TemplateRef) -> &str {
    let TemplateRef::Node(n) = t else {
        return DEFAULT_ROOT;
    };
    let node = topology.node(n);
    match &node.properties_element {
        Some((_, root)) if !root.is_empty() => root,
        _ => {
            let name = topology.types.get(node.type_id).name.unversioned();
            name.rsplit('.').next().unwrap_or(name)
        }
    }
}

/// The document shapes of a plan's templates.
pub(crate) struct Documents<'a> {
    /// Each shape and its variable, in the order of their first templates.
    shapes: Vec<(Key<'a>, String)>,
    /// Each shape's index in `shapes`.
    index: BTreeMap<Key<'a>, usize>,
    /// Each process-level template's document and its shape's index.
    templates: Vec<(&'a str, usize)>,
}

impl<'a> Documents<'a> {
    /// The shapes of the documents the process declares (`process`) and
    /// of those a load merges into (`merged`). A shape's variable is
    /// `properties_<name>` ([`shape_name`] of its first template), made
    /// unique: a family no template (`inst_`, `prop_`), state, call or
    /// failure variable is in.
    pub(crate) fn new(
        topology: &'a Topology,
        names: &'a Vars,
        process: &TemplateMap<()>,
        merged: &TemplateMap<()>,
    ) -> Documents<'a> {
        let mut shapes = Vec::new();
        let mut index = BTreeMap::new();
        let mut templates = Vec::new();
        let mut unique = Unique::new();
        for &t in names.templates() {
            if !process.contains(t) && !merged.contains(t) {
                continue;
            }
            let (Some(key), Some(doc)) = (key_of(topology, t), names.document(topology, t)) else {
                continue;
            };
            let i = *index.entry(key.clone()).or_insert_with(|| {
                let variable = unique.name(format!("properties_{}", word(shape_name(topology, t))));
                shapes.push((key, variable));
                shapes.len() - 1
            });
            if process.contains(t) {
                templates.push((doc, i));
            }
        }
        Documents {
            shapes,
            index,
            templates,
        }
    }

    /// The variable of the empty document of template `t`'s shape (one of
    /// the process's or of a merged one).
    pub(crate) fn shape(&self, topology: &'a Topology, t: TemplateRef) -> Option<&str> {
        let i = *self.index.get(&key_of(topology, t)?)?;
        Some(&self.shapes[i].1)
    }

    /// Declare the variable of each shape.
    pub(crate) fn declare(&self, w: &mut W) -> Result<()> {
        for (_, variable) in &self.shapes {
            w.put("document-variable", 4, &[("name", variable)])?;
        }
        Ok(())
    }

    /// The assign that fills each shape's empty document and sets each
    /// template's document from its shape's (nothing without documents).
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
        for (doc, i) in &self.templates {
            w.put(
                "template-document",
                4,
                &[("name", doc), ("shape", &self.shapes[*i].1)],
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
}
