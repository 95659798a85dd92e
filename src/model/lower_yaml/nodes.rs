//! Node templates (1.3 §3.8.3) without their requirements.
//!
//! In: the topology's node template ASTs. Out: numbered model
//! [`NodeTemplate`]s with properties, interfaces and deployment artifacts
//! (the artifacts no operation implements); a template without a usable
//! type is reported and left out. Also the delegated nodes that stand in
//! for dangling requirement targets.

use foldhash::{HashMap, HashMapExt, HashSet, HashSetExt};
use std::collections::BTreeSet;
use std::sync::Arc;

use indexmap::IndexMap;

use super::interfaces::IfaceB;
use super::topology::Nodes;
use super::{Def, Lowerer, OfType, This, Unit};
use crate::diagnostics::{Diagnostic, codes};
use crate::model::{Artifact, NodeId, NodeTemplate, TypeId};
use crate::yaml::ast::{self, TypeKind};

impl<'a> Lowerer<'a> {
    /// Lower the node templates, numbering them in order; one whose type
    /// is missing or broken is reported and left out.
    pub(super) fn node_templates(
        &mut self,
        templates: &[&'a ast::NodeTemplate],
        unit: Unit<'a>,
    ) -> Nodes<'a> {
        // Room for every template: a NodeTemplate is large, and growing
        // the vector copied the ones made so far again and again.
        let mut out = Nodes {
            nodes: Vec::with_capacity(templates.len()),
            ids: HashMap::with_capacity(templates.len()),
            failed: BTreeSet::new(),
            asts: Vec::with_capacity(templates.len()),
        };
        // Each type key once, shared by its templates.
        let mut keys: HashSet<Arc<str>> = HashSet::new();
        for n in templates {
            let Some(type_name) = &n.type_name else {
                self.push_once(
                    Diagnostic::error(
                        codes::YAML_MISSING_KEY,
                        format!("node template `{}` has no `type`", n.name.text),
                    )
                    .at(Self::at(unit, n.name.span))
                    .hint("every node template names its node type with `type:`"),
                );
                out.failed.insert(n.name.text.clone());
                continue;
            };
            let Some(key) = self.resolve_or_report(TypeKind::Node, type_name, unit, "node type")
            else {
                out.failed.insert(n.name.text.clone());
                continue;
            };
            let Some(type_id) = self.type_id(TypeKind::Node, &key) else {
                out.failed.insert(n.name.text.clone());
                continue;
            };
            let id = NodeId(out.nodes.len() as u32);
            out.ids.insert(n.name.text.clone(), id);
            let node = self.node_template(n, &key, type_id, unit, id);
            out.nodes.push(node);
            let key = match keys.get(key.as_str()) {
                Some(k) => Arc::clone(k),
                None => {
                    let k: Arc<str> = Arc::from(key);
                    keys.insert(Arc::clone(&k));
                    k
                }
            };
            out.asts.push((n, key));
        }
        out
    }

    /// Everything of one node template except its relationships.
    fn node_template(
        &mut self,
        n: &'a ast::NodeTemplate,
        key: &str,
        type_id: TypeId,
        unit: Unit<'a>,
        id: NodeId,
    ) -> NodeTemplate {
        let name = n.name.text.clone();
        let this = This::Node(&name);
        let defs = self.defs(TypeKind::Node, key);
        let owner = format!("`{name}`");
        // The type's alone: made once (with the diagnostics of the type's
        // definitions, which are reported once anyway) and shared. Not for
        // a template of several instances, whose `$node_index` differs.
        let of_type = n.interfaces.is_empty() && n.artifacts.is_empty() && !n.multiple;
        let shared = of_type
            .then(|| {
                self.type_interfaces
                    .get(&(TypeKind::Node, key.to_string()))
                    .cloned()
            })
            .flatten();
        // Artifacts: the type's, then the template's.
        let artifacts = match shared {
            Some(_) => IndexMap::new(),
            None => self.template_artifacts(&defs, n, unit, &owner),
        };
        let properties = self.properties(&defs, &n.properties, &n.attributes, unit, this, &name);
        let selection = self.existing_node(n, &properties, unit);
        // A selected node's properties are the existing node's (§7.2).
        if selection.is_none() {
            let assigned: Vec<_> = n.properties.iter().map(|(k, v)| (k, v, unit)).collect();
            let at = (unit, Self::at(unit, n.name.span));
            self.check_properties(&defs, &assigned, &name, at, true);
        }
        self.capabilities(key, &defs, n, id, unit, this);
        let (interfaces, deployment) = match shared {
            Some(shared) => shared,
            None => {
                let made = self.interfaces(&defs, n, unit, this, &artifacts, &owner);
                if of_type {
                    self.type_interfaces
                        .insert((TypeKind::Node, key.to_string()), made.clone());
                }
                made
            }
        };
        let directives: Vec<&str> = n.directives.iter().map(|d| d.text.as_str()).collect();
        NodeTemplate {
            id: name.clone(),
            name: name.clone(),
            type_id,
            properties,
            properties_element: None,
            interfaces,
            artifacts: deployment,
            running: selection.is_some(),
            selection,
            is_abstract: directives
                .iter()
                .any(|d| matches!(*d, "substitute" | "substitutable")),
            origin: Some(Self::at(unit, n.name.span)),
        }
    }

    /// The artifacts of the type's ancestry, then the template's (a
    /// later one of the same name wins).
    fn template_artifacts(
        &mut self,
        defs: &[Def<'a>],
        n: &'a ast::NodeTemplate,
        unit: Unit<'a>,
        owner: &str,
    ) -> IndexMap<String, Artifact> {
        let mut artifacts: IndexMap<String, Artifact> = IndexMap::new();
        for d in defs {
            for a in &d.def.artifacts {
                let art = self.artifact_def(a, d.unit, owner);
                artifacts.insert(a.name.text.clone(), art);
            }
        }
        for a in &n.artifacts {
            let art = self.artifact_def(a, unit, owner);
            artifacts.insert(a.name.text.clone(), art);
        }
        artifacts
    }

    /// The interfaces of a node template (along its type, then its own
    /// assignments) and its deployment artifacts: those no operation
    /// implements.
    pub(super) fn interfaces(
        &mut self,
        defs: &[Def<'a>],
        n: &'a ast::NodeTemplate,
        unit: Unit<'a>,
        this: This,
        artifacts: &IndexMap<String, Artifact>,
        owner: &str,
    ) -> OfType {
        let mut list: Vec<IfaceB> = Vec::new();
        for d in defs {
            for i in &d.def.interfaces {
                self.merge_interface(&mut list, i, d.unit, this, artifacts, owner);
            }
        }
        for i in &n.interfaces {
            self.merge_interface(&mut list, i, unit, this, artifacts, owner);
        }
        let interfaces = self.finish_interfaces(list);
        let used: HashSet<&str> = interfaces
            .iter()
            .flat_map(|i| &i.operations)
            .filter_map(|o| o.implementation.as_ref())
            .flat_map(|imp| std::iter::once(&imp.primary).chain(&imp.dependencies))
            .map(|a| a.name.as_str())
            .collect();
        let deployment: Vec<Artifact> = artifacts
            .values()
            .filter(|a| !used.contains(a.name.as_str()))
            .cloned()
            .collect();
        (Arc::new(interfaces), deployment)
    }

    /// A delegated node for a dangling requirement: its type's defaults.
    pub(super) fn synthetic_node(
        &mut self,
        id: &str,
        key: &str,
        type_id: TypeId,
        nid: NodeId,
    ) -> NodeTemplate {
        let defs = self.defs(TypeKind::Node, key);
        let this = This::Node(id);
        let properties = self.properties(&defs, &[], &[], self.units[self.entry], this, id);
        let mut list: Vec<IfaceB> = Vec::new();
        for d in defs.iter() {
            for i in &d.def.interfaces {
                self.merge_interface(&mut list, i, d.unit, this, &IndexMap::new(), id);
            }
        }
        self.capability_names.insert(nid, Arc::from(Vec::new()));
        NodeTemplate {
            id: id.to_string(),
            name: id.to_string(),
            type_id,
            properties,
            properties_element: None,
            interfaces: Arc::new(self.finish_interfaces(list)),
            artifacts: Vec::new(),
            running: false,
            selection: None,
            is_abstract: true,
            origin: None,
        }
    }
}
