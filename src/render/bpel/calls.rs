//! What the management-bus calls of a plan share, built once: the plan's
//! correlation id, the CSAR id, the service instance, the service
//! template's QName and the bus address given to the plan are the same in
//! every call (`tns:call`: a request `invokeOperationAsync` and the
//! address, which the call process of `call.bpel` sends on) of a side
//! (the plan's own service instance, or a transformation's target), and
//! calls of one operation on templates of one type name the same
//! interface and operation and pass the same parameter names. The process fills one request of each shape (an
//! operation, with its parameter names, on a side) before its activities
//! run and never writes it again (parallel branches read it without a
//! race); a call has `invoke.xsl` copy it with what is its own: node
//! instance, template, message id and the parameters' values.
//!
//! In: the plan's invocations. Out: the shapes' variables, declared and
//! filled, and the shape of each call.

use std::collections::BTreeMap;
use std::sync::Arc;

use super::writer::W;
use crate::error::{Error, Result};
use crate::model::{TemplateRef, Topology};
use crate::names::{Unique, xml_escape};
use crate::plugins::ConcretePlan;
use crate::plugins::steps::Invocation;
use crate::render::side::{on_target, side};
use crate::render::vars::word;

/// What makes two calls' shared requests differ.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
struct Key {
    /// The call goes to a transformation's target side.
    target: bool,
    /// It runs an operation of a relationship template (no node instance).
    relationship: bool,
    interface: Arc<str>,
    operation: Arc<str>,
    /// The names of its inputs, in order.
    params: Vec<Arc<str>>,
}

impl Key {
    /// The key of `inv`'s operation.
    fn of(topology: &Topology, inv: &Invocation) -> Key {
        Key {
            target: on_target(topology, inv.target),
            relationship: matches!(inv.target, TemplateRef::Relationship(_)),
            interface: inv.interface.clone(),
            operation: inv.operation.clone(),
            params: inv.inputs.iter().map(|(n, _)| n.clone()).collect(),
        }
    }
}

/// One shape: what makes it differ, its process variable and the
/// template of one of its calls (whose side names the shape's CSAR,
/// service template and instance).
struct Shape {
    key: Key,
    variable: String,
    called: TemplateRef,
}

/// The shapes of a plan's calls (steps and compensation), in the order
/// of their first calls.
pub(crate) struct Calls {
    shapes: Vec<Shape>,
    /// Each shape's index in `shapes`.
    index: BTreeMap<Key, usize>,
}

impl Calls {
    /// The shapes of the calls of `plan`. A shape's variable is
    /// `nodeCall_<operation>` or `relationshipCall_<operation>`
    /// (`targetNodeCall_…` on a transformation's target side), made
    /// unique: camelCase names with `Call`, a family no template, state or
    /// failure variable is in (theirs are `inst_`, `prop_`, `state_`,
    /// `failed_` names).
    pub(crate) fn new(topology: &Topology, plan: &ConcretePlan) -> Calls {
        let mut shapes = Vec::new();
        let mut index = BTreeMap::new();
        let mut unique = Unique::new();
        let calls = plan
            .bodies
            .iter()
            .flat_map(|b| b.steps.iter().chain(&b.compensation))
            .filter_map(|s| s.invocation());
        for inv in calls {
            let key = Key::of(topology, inv);
            if index.contains_key(&key) {
                continue;
            }
            index.insert(key.clone(), shapes.len());
            shapes.push(Shape {
                variable: unique.name(variable(&key)),
                key,
                called: inv.target,
            });
        }
        Calls { shapes, index }
    }

    /// The variable of invocation `inv`'s shape.
    pub(crate) fn shape(&self, topology: &Topology, inv: &Invocation) -> Result<&str> {
        let i = self.index.get(&Key::of(topology, inv)).ok_or_else(|| {
            Error::Internal(format!(
                "no shared request for the call of {}",
                inv.operation
            ))
        })?;
        Ok(&self.shapes[*i].variable)
    }

    /// The most inputs a call passes (`invoke.xsl` takes that many values).
    pub(crate) fn most_params(&self) -> usize {
        self.shapes
            .iter()
            .map(|s| s.key.params.len())
            .max()
            .unwrap_or(0)
    }

    /// Whether the plan makes any call.
    pub(crate) fn any(&self) -> bool {
        !self.shapes.is_empty()
    }

    /// Declare the variable of each shape.
    pub(crate) fn declare(&self, w: &mut W) -> Result<()> {
        for s in &self.shapes {
            w.put("call-variable", 4, &[("name", &s.variable)])?;
        }
        Ok(())
    }

    /// The assign that fills the shared request of each shape (nothing
    /// without calls): after the service instances are known, before the
    /// activities.
    pub(crate) fn prepare(&self, w: &mut W, topology: &Topology) -> Result<()> {
        if self.shapes.is_empty() {
            return Ok(());
        }
        w.put("calls", 4, &[])?;
        for s in &self.shapes {
            let side = side(topology, s.called);
            let operation = format!(
                "<InterfaceName>{}</InterfaceName><OperationName>{}</OperationName>",
                xml_escape(&s.key.interface),
                xml_escape(&s.key.operation)
            );
            // No Params without inputs: an empty one is no valid request.
            let params = if s.key.params.is_empty() {
                String::new()
            } else {
                format!("<Params>{}</Params>", params(&s.key.params))
            };
            w.put(
                "call",
                4,
                &[
                    ("name", &s.variable),
                    (
                        "node_instance_element",
                        if s.key.relationship {
                            ""
                        } else {
                            "<NodeInstanceID/>"
                        },
                    ),
                    ("st_namespace", &xml_escape(side.namespace)),
                    ("st_id", &xml_escape(side.service_template)),
                    ("template_kind", template_element(s.called)),
                    ("operation_elements", &operation),
                    ("params", &params),
                    ("csar", side.csar),
                    ("si_url", side.service_instance_url),
                    ("bus", super::BUS_URL_INPUT),
                ],
            )?;
        }
        w.put("calls-end", 4, &[])
    }
}

/// The variable name a shape starts from.
fn variable(key: &Key) -> String {
    let mut name = match (key.target, key.relationship) {
        (false, false) => "nodeCall".to_string(),
        (false, true) => "relationshipCall".to_string(),
        (true, false) => "targetNodeCall".to_string(),
        (true, true) => "targetRelationshipCall".to_string(),
    };
    name.push('_');
    name.push_str(&word(&key.operation));
    name
}

/// The `Param` elements of inputs `names`, values empty.
fn params(names: &[Arc<str>]) -> String {
    let mut out = String::new();
    for n in names {
        out.push_str("<Param><key>");
        out.push_str(&xml_escape(n));
        out.push_str("</key><value/></Param>");
    }
    out
}

/// The element of a request that names the called template.
pub(crate) fn template_element(called: TemplateRef) -> &'static str {
    match called {
        TemplateRef::Node(_) => "NodeTemplateID",
        TemplateRef::Relationship(_) => "RelationshipTemplateID",
    }
}
