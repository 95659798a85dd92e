//! What the management-bus calls of a plan share, built once: the plan's
//! correlation id, the CSAR id, the service instance, the service
//! template's QName and the reply address are the same in every
//! `invokeOperationAsync` of a side (the plan's own service instance, or a
//! transformation's target), and calls of one operation on templates of
//! one type name the same interface and operation and pass the same
//! parameter names. The process fills one request of each shape it needs
//! before its activities run and never writes it again (parallel branches
//! read it without a race); a call copies it into its activity's variable
//! `call` and sets only what is its own.
//!
//! An operation called often enough (with the same parameter names) has a
//! shape of its own, holding interface, operation and parameter names: a
//! call sets its node instance, template, message id and the parameters'
//! values. The other calls share a shape per side and kind and set their
//! interface, operation and `Params` too (a shape of their own would take
//! more bytes than it saves).
//!
//! Shapes must differ where a copy cannot change a request later (WS-BPEL
//! 2.0 copies replace content, they do not insert): `NodeInstanceID` (node
//! operations only), `NodeTemplateID` or `RelationshipTemplateID`, and
//! `Params` (none without inputs: an empty `Params` is no valid request).
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
    /// It has inputs (a `Params` element).
    params: bool,
    /// The operation, where the shape is one operation's.
    operation: Option<Operation>,
}

/// An operation as a request names it.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
struct Operation {
    interface: Arc<str>,
    name: Arc<str>,
    /// The names of its inputs, in order.
    params: Vec<Arc<str>>,
}

impl Key {
    /// The key of `inv`'s own operation.
    fn of(topology: &Topology, inv: &Invocation) -> Key {
        Key {
            target: on_target(topology, inv.target),
            relationship: matches!(inv.target, TemplateRef::Relationship(_)),
            params: !inv.inputs.is_empty(),
            operation: Some(Operation {
                interface: inv.interface.clone(),
                name: inv.operation.clone(),
                params: inv.inputs.iter().map(|(n, _)| n.clone()).collect(),
            }),
        }
    }

    /// The key of the shape shared by calls of any operation.
    fn any_operation(&self) -> Key {
        Key {
            operation: None,
            ..self.clone()
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

/// The shape of a call's request.
pub(crate) struct CallShape<'a> {
    /// The variable holding it.
    pub(crate) variable: &'a str,
    /// It names the call's interface, operation and parameters.
    pub(crate) operation: bool,
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
    /// `nodeCall` or `relationshipCall` (`targetNodeCall`, … on a
    /// transformation's target side), followed by `_<operation>` for an
    /// operation's shape or `WithParams` for calls with inputs, made
    /// unique: camelCase names with `Call`, a family no template, state or
    /// failure variable is in (theirs are `inst_`, `prop_`, `state_`,
    /// `failed_` names).
    pub(crate) fn new(topology: &Topology, plan: &ConcretePlan) -> Calls {
        let calls: Vec<&Invocation> = plan
            .bodies
            .iter()
            .flat_map(|b| b.steps.iter().chain(&b.compensation))
            .filter_map(|s| s.invocation())
            .collect();
        let mut count: BTreeMap<Key, usize> = BTreeMap::new();
        for inv in &calls {
            *count.entry(Key::of(topology, inv)).or_default() += 1;
        }
        let st = &topology.service_template;
        let st_len = st.namespace.len() + st.id.len();
        let mut shapes = Vec::new();
        let mut index = BTreeMap::new();
        let mut unique = Unique::new();
        for inv in calls {
            let own = Key::of(topology, inv);
            let key = if pays(&own, count[&own], st_len) {
                own
            } else {
                own.any_operation()
            };
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

    /// The shape of invocation `inv`'s request.
    pub(crate) fn shape(&self, topology: &Topology, inv: &Invocation) -> Result<CallShape<'_>> {
        let own = Key::of(topology, inv);
        let found = match self.index.get(&own) {
            Some(&i) => Some((i, true)),
            None => self.index.get(&own.any_operation()).map(|&i| (i, false)),
        };
        let (i, operation) = found.ok_or_else(|| {
            Error::Internal(format!(
                "no shared request for the call of {}",
                inv.operation
            ))
        })?;
        Ok(CallShape {
            variable: &self.shapes[i].variable,
            operation,
        })
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
            let (operation, params) = match &s.key.operation {
                Some(op) => (
                    format!(
                        "<InterfaceName>{}</InterfaceName><OperationName>{}</OperationName>",
                        xml_escape(&op.interface),
                        xml_escape(&op.name)
                    ),
                    format!("<Params>{}</Params>", params(&op.params)),
                ),
                None => (
                    "<InterfaceName/><OperationName/>".to_string(),
                    "<Params/>".to_string(),
                ),
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
                    ("params", if s.key.params { &params } else { "" }),
                    ("csar", side.csar),
                    ("si_url", side.service_instance_url),
                ],
            )?;
        }
        w.put("calls-end", 4, &[])
    }
}

/// Whether an operation called `calls` times is worth a shape of its own
/// (bytes, estimated from the fragments: the shape once, against its
/// interface, operation and `Params` written in every call); `st_len`,
/// the length of the service template's QName, is written in the shape.
fn pays(key: &Key, calls: usize, st_len: usize) -> bool {
    let Some(op) = &key.operation else {
        return false;
    };
    let names: usize = op.params.iter().map(|p| p.len() + 35).sum();
    let own = op.interface.len() + op.name.len() + names;
    // Two copies, and one of the Params literal where it has inputs.
    let per_call = 110 + own + if op.params.is_empty() { 0 } else { 120 };
    // The literal, four copies into it, its declaration.
    let shape = 800 + st_len + own;
    calls > 1 && calls * per_call > shape
}

/// The variable name a shape starts from.
fn variable(key: &Key) -> String {
    let mut name = match (key.target, key.relationship) {
        (false, false) => "nodeCall".to_string(),
        (false, true) => "relationshipCall".to_string(),
        (true, false) => "targetNodeCall".to_string(),
        (true, true) => "targetRelationshipCall".to_string(),
    };
    match &key.operation {
        Some(op) => {
            name.push('_');
            name.push_str(&word(&op.name));
        }
        None if key.params => name.push_str("WithParams"),
        None => {}
    }
    name
}

/// The `Param` elements of inputs `names`, values empty.
pub(crate) fn params(names: &[Arc<str>]) -> String {
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
