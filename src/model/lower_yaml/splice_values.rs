//! The values of a substitution (see `splice`): what the substituting
//! topology's inputs are given, what its outputs give back, and the
//! rewriting of values that read substituted nodes or inner inputs.
//!
//! In: a substituted node and its [`Inlined`] topology. Out: a [`Sub`]
//! and, through [`Values`], the values of the spliced topology; also
//! [`Maps`], where each template went.

use foldhash::{HashMap, HashMapExt, HashSet};
use std::sync::Arc;

use indexmap::IndexMap;

use super::Lowerer;
use super::keyed_attributes::RelationshipAttribute;
use super::substitute::Inlined;
use crate::diagnostics::{Diagnostic, Location, codes};
use crate::model::{InputDef, Interface, NodeId, NodeTemplate, RelId, RelationshipTemplate, Value};
use crate::yaml::ast::MappedProperty;
use crate::yaml::node::{Kind, Node};

/// How deep values that read substituted nodes may lead into one another.
const MAX_DEPTH: usize = 16;

/// What rewriting the values needs to know of each substitution.
pub(super) struct Sub {
    /// The substituted node's id.
    pub(super) id: String,
    /// Its property values as written in the substituted topology.
    pub(super) properties: IndexMap<String, Value>,
    /// Inner node name → new name.
    pub(super) names: HashMap<String, String>,
    /// Declared inner input → its value (in the outer topology's terms).
    pub(super) given: HashMap<String, Value>,
    /// Attribute → the inner output value that gives it (inner terms).
    pub(super) attributes: HashMap<String, Value>,
    /// Attributes of the node's relationships that outputs give (2.0
    /// §15.3, `keyed_attributes.rs`).
    pub(super) relationship_attributes: Vec<RelationshipAttribute>,
    /// Inner inputs that were not declared (delegated nodes' attributes).
    pub(super) made_inputs: IndexMap<String, InputDef>,
    /// Where the node is.
    pub(super) origin: Option<Location>,
}

/// The rewriting of values: references to substituted nodes and inputs.
pub(super) struct Values<'s> {
    pub(super) subs: &'s [Sub],
    pub(super) by_id: HashMap<&'s str, usize>,
    /// Plan inputs made for attributes nothing gives, and the warnings.
    pub(super) new_inputs: IndexMap<String, InputDef>,
    pub(super) warnings: Vec<Diagnostic>,
    pub(super) warned: HashSet<String>,
}

impl Values<'_> {
    /// `v` in the outer topology: calls that read a substituted node read
    /// what stands for it.
    pub(super) fn outer(&mut self, v: &mut Value, depth: usize) {
        match v {
            Value::Call(c) => {
                for a in c.args.iter_mut() {
                    self.outer(a, depth);
                }
                let reads = matches!(
                    c.function.as_str(),
                    "get_property" | "get_attribute" | "get_operation_output"
                );
                let Some(&k) = c
                    .args
                    .first()
                    .and_then(Value::as_str)
                    .filter(|_| reads)
                    .and_then(|e| self.by_id.get(e))
                else {
                    return;
                };
                let name = c.args.get(1).and_then(Value::as_str).unwrap_or_default();
                let sub = &self.subs[k];
                let found = match (c.function.as_str(), c.args.len()) {
                    _ if depth >= MAX_DEPTH => None,
                    ("get_property", 2) => {
                        sub.properties.get(name).filter(|p| !p.is_empty()).cloned()
                    }
                    // An attribute no output gives may be a property
                    // (1.3 §4.5.1: properties are attributes too).
                    ("get_attribute", 2) => match sub.attributes.get(name) {
                        Some(o) => {
                            let mut o = o.clone();
                            self.inner(k, &mut o, depth + 1);
                            Some(o)
                        }
                        None => sub.properties.get(name).filter(|p| !p.is_empty()).cloned(),
                    },
                    _ => None,
                };
                *v = match found {
                    Some(mut f) => {
                        self.outer(&mut f, depth + 1);
                        f
                    }
                    None => self.plan_input(k, name),
                };
            }
            Value::List(l) => l.iter_mut().for_each(|a| self.outer(a, depth)),
            Value::Map(m) => m.values_mut().for_each(|a| self.outer(a, depth)),
            _ => {}
        }
    }

    /// A plan input `<node>_<name>` for a value of substituted node `k`
    /// that nothing in its substituting topology gives.
    fn plan_input(&mut self, k: usize, name: &str) -> Value {
        let sub = &self.subs[k];
        let input = format!("{}_{name}", sub.id);
        if self.warned.insert(input.clone()) {
            self.warnings.push(
                Diagnostic::warning(
                    codes::W_SUBSTITUTION,
                    format!(
                        "`{name}` of the substituted node `{}` is given by no output of its substituting template; the plans take it from plan input `{input}`",
                        sub.id
                    ),
                )
                .at_opt(sub.origin.clone())
                .hint("map the attribute to an output in the substituting template's `substitution_mappings` (`attributes: {<attribute>: <output>}`), or give it an output of the attribute's name"),
            );
        }
        self.new_inputs.entry(input.clone()).or_insert(InputDef {
            given: false,
            name: input.clone(),
            type_name: Some("string".into()),
            default: None,
            required: true,
        });
        Value::input(input)
    }

    /// `v` in substituting topology `k`: its inputs take the substituted
    /// node's values, its templates their new names.
    pub(super) fn inner(&mut self, k: usize, v: &mut Value, depth: usize) {
        match v {
            Value::Call(c) => {
                for a in c.args.iter_mut() {
                    self.inner(k, a, depth);
                }
                let sub = &self.subs[k];
                if let Some(input) = v.as_input() {
                    if let Some(given) = sub.given.get(input) {
                        let mut given = given.clone();
                        self.outer(&mut given, depth + 1);
                        *v = given;
                    } else if sub.made_inputs.contains_key(input) {
                        *v = Value::input(format!("{}_{input}", sub.id));
                    }
                    return;
                }
                let Value::Call(c) = v else { return };
                if matches!(
                    c.function.as_str(),
                    "get_property" | "get_attribute" | "get_operation_output"
                ) && let Some(Value::Scalar(e)) = c.args.first_mut()
                    && let Some(new) = sub.names.get(e.as_str())
                {
                    *e = new.clone();
                }
            }
            Value::List(l) => l.iter_mut().for_each(|a| self.inner(k, a, depth)),
            Value::Map(m) => m.values_mut().for_each(|a| self.inner(k, a, depth)),
            _ => {}
        }
    }
}

/// Apply `f` to every value of the interfaces (copied only if shared).
pub(super) fn interface_values(
    interfaces: &mut Arc<Vec<Interface>>,
    f: &mut dyn FnMut(&mut Value),
) {
    let has_values = interfaces
        .iter()
        .flat_map(|i| &i.operations)
        .flat_map(|o| &o.inputs)
        .any(|p| p.value.is_some());
    if !has_values {
        return;
    }
    for i in Arc::make_mut(interfaces) {
        for o in &mut i.operations {
            for p in &mut o.inputs {
                if let Some(v) = &mut p.value {
                    f(v);
                }
            }
        }
    }
}

/// Where the templates of the old topology went.
pub(super) struct Maps {
    /// Outer node → new node (none for a substituted one).
    pub(super) outer: Vec<Option<NodeId>>,
    /// Per substitution: inner node → new node.
    pub(super) inner: Vec<Vec<NodeId>>,
    /// Outer relationship → new relationship (none when dropped).
    pub(super) outer_rels: Vec<Option<RelId>>,
    /// Outer relationship → its copies for the further targets of its
    /// requirement mapping (2.0 §15.5.2, `relationship_copies.rs`).
    pub(super) outer_copies: Vec<Vec<RelId>>,
    /// Per substitution: inner relationship → new relationship.
    pub(super) inner_rels: Vec<Vec<RelId>>,
}

/// The input a property mapping names: `input` or `[ input ]`.
fn input_name(mapped: &Node) -> Option<&str> {
    match &mapped.kind {
        Kind::Seq(items) if items.len() == 1 => items[0].as_str(),
        _ => mapped.as_str(),
    }
}

impl<'a> Lowerer<'a> {
    /// The inputs the keyed mappings (§15.2) give, into `given` (the
    /// keyed attribute mappings, §15.3, are `keyed_attributes.rs`'s).
    fn keyed_inputs(
        &mut self,
        s: &Inlined<'a>,
        node: &NodeTemplate,
        relationships: &[RelationshipTemplate],
        given: &mut HashMap<String, Value>,
    ) {
        for (m, mapped) in &s.mapping.keyed_properties {
            let Some(input) = input_name(mapped) else {
                continue;
            };
            match self.keyed_value(s, m, relationships) {
                Some(v) => {
                    given.insert(input.to_string(), v);
                }
                None => self.push_once(
                    Diagnostic::warning(
                        codes::W_SUBSTITUTION,
                        format!(
                            "input `{input}` of `{}` is mapped to {}, which node template `{}` gives no value: the input keeps its default",
                            s.unit.file.source.name(),
                            m.describe("property"),
                            node.id
                        ),
                    )
                    .at(Self::at(s.unit, mapped.span))
                    .hint("assign the value on the substituted node, or give the input a default"),
                ),
            }
        }
    }

    /// The value a keyed mapping reads on the substituted node: its
    /// capability's property (assigned, else the type's default), or the
    /// property of the relationship(s) of its requirement (`ALL`: a list).
    fn keyed_value(
        &self,
        s: &Inlined<'a>,
        m: &MappedProperty,
        relationships: &[RelationshipTemplate],
    ) -> Option<Value> {
        match m {
            MappedProperty::Capability {
                capability,
                property,
            } => self
                .capability_values
                .get(&(s.node, capability.text.clone()))
                .and_then(|values| values.get(&property.text))
                .filter(|v| !v.is_empty())
                .cloned(),
            MappedProperty::Relationship {
                requirement,
                index,
                property,
            } => {
                let rels = self
                    .rel_by_requirement
                    .get(&(s.node, requirement.text.as_str()))?;
                let value = |r: &crate::model::RelId| {
                    relationships[r.0 as usize]
                        .properties
                        .get(property.text.as_str())
                        .cloned()
                };
                match index.as_ref().map(|i| i.text.as_str()) {
                    Some("ALL") => Some(Value::List(rels.iter().filter_map(value).collect())),
                    i => {
                        let k: usize = i.map_or(Some(0), |t| t.parse().ok())?;
                        rels.get(k).and_then(value)
                    }
                }
            }
        }
    }

    /// What rewriting needs of substitution `s` of node `node`; a required
    /// input that gets no value is an error.
    pub(super) fn sub(
        &mut self,
        s: &Inlined<'a>,
        node: &NodeTemplate,
        relationships: &[RelationshipTemplate],
    ) -> Sub {
        let mut given: HashMap<String, Value> = HashMap::new();
        let value_of = |p: &str| node.properties.get(p).filter(|v| !v.is_empty()).cloned();
        for (prop, mapped) in &s.mapping.properties {
            if let (Some(input), Some(v)) = (input_name(mapped), value_of(&prop.text)) {
                given.insert(input.to_string(), v);
            }
        }
        self.keyed_inputs(s, node, relationships, &mut given);
        for i in s.declared {
            let name = &i.name.text;
            if given.contains_key(name) {
                continue;
            }
            if let Some(v) = value_of(name) {
                given.insert(name.clone(), v);
                continue;
            }
            match s.topology.inputs.get(name.as_str()) {
                Some(def) if def.default.is_some() => {
                    given.insert(name.clone(), def.default.clone().unwrap_or(Value::Null));
                }
                Some(def) if def.required => self.diags.push(
                    Diagnostic::error(
                        codes::SUBSTITUTION,
                        format!(
                            "input `{name}` of `{}`, which substitutes node template `{}`, gets no value: the node has no property `{name}` with a value and no property is mapped to it",
                            s.unit.file.source.name(),
                            node.id
                        ),
                    )
                    .at_opt(node.origin.clone())
                    .note(format!("`{name}` is declared here: {}", super::Lowerer::at(s.unit, i.name.span)))
                    .hint(format!("give the node a property value for `{name}`, map one to it in `substitution_mappings` (`properties: {{<property>: {name}}}`), or give the input a default")),
                ),
                _ => {
                    given.insert(name.clone(), Value::Null);
                }
            }
        }
        let mut attributes: HashMap<String, Value> = HashMap::new();
        let outputs: HashMap<&str, &Value> = s
            .topology
            .outputs
            .iter()
            .map(|o| (o.name.as_str(), &o.value))
            .collect();
        for (attr, output) in &s.mapping.attributes {
            if let Some(v) = output.as_str().and_then(|o| outputs.get(o)) {
                attributes.insert(attr.text.clone(), (*v).clone());
            }
        }
        // Keyed ones after the node's own, before the outputs' names.
        let relationship_attributes = self.keyed_attributes(s, node, &outputs, &mut attributes);
        for (name, v) in &outputs {
            attributes
                .entry(name.to_string())
                .or_insert_with(|| (*v).clone());
        }
        let declared: HashSet<&str> = s.declared.iter().map(|i| i.name.text.as_str()).collect();
        Sub {
            id: node.id.clone(),
            properties: node
                .properties
                .iter()
                .map(|(k, v)| (k.to_string(), v.clone()))
                .collect(),
            names: s
                .topology
                .nodes
                .iter()
                .map(|n| (n.id.clone(), format!("{}_{}", node.id, n.id)))
                .collect(),
            given,
            attributes,
            relationship_attributes,
            made_inputs: s
                .topology
                .inputs
                .iter()
                .filter(|(k, _)| !declared.contains(k.as_str()))
                .map(|(k, v)| (k.clone(), v.clone()))
                .collect(),
            origin: node.origin.clone(),
        }
    }
}
