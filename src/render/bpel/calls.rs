//! What every management-bus call of a plan shares, built once: the
//! plan's correlation id, the CSAR id, the service instance, the service
//! template's QName and the reply address are the same in every
//! `invokeOperationAsync` of a side (the plan's own service instance, or a
//! transformation's target). The process fills one request of each shape
//! it needs before its activities run and never writes it again (parallel
//! branches read it without a race); a call copies it into its
//! activity's variable `call` and sets only what is its own.
//!
//! The shapes differ in the elements a copy cannot add later (WS-BPEL 2.0
//! copies replace content, they do not insert): `NodeInstanceID` (node
//! operations only), `NodeTemplateID` or `RelationshipTemplateID`, and
//! `Params` (only where the call has inputs: an empty one is no valid
//! request).
//!
//! In: the plan's invocations. Out: the shapes' variables, declared and
//! filled.

use std::collections::BTreeMap;

use super::writer::W;
use crate::error::Result;
use crate::model::{TemplateRef, Topology};
use crate::names::xml_escape;
use crate::plugins::ConcretePlan;
use crate::plugins::steps::Invocation;
use crate::render::side::side;

/// The shape of a call's request: the side it goes to, the kind of
/// template it names, and whether it carries parameters.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) struct Shape {
    /// The call goes to a transformation's target side.
    target: bool,
    /// It runs an operation of a relationship template (no node instance).
    relationship: bool,
    /// It has inputs (a `Params` element).
    params: bool,
}

impl Shape {
    /// The shape of invocation `inv`.
    pub(crate) fn of(topology: &Topology, inv: &Invocation) -> Shape {
        let target = topology
            .target
            .as_deref()
            .is_some_and(|t| t.contains(inv.target));
        Shape {
            target,
            relationship: matches!(inv.target, TemplateRef::Relationship(_)),
            params: !inv.inputs.is_empty(),
        }
    }

    /// The process variable holding this shape's shared request: a
    /// camelCase name ending in `Call`, a family no template, state or
    /// failure variable is in (theirs are `inst_`, `prop_`, `state_`,
    /// `failed_` names).
    pub(crate) fn variable(self) -> &'static str {
        match (self.target, self.relationship, self.params) {
            (false, false, false) => "nodeCall",
            (false, false, true) => "nodeCallWithParams",
            (false, true, false) => "relationshipCall",
            (false, true, true) => "relationshipCallWithParams",
            (true, false, false) => "targetNodeCall",
            (true, false, true) => "targetNodeCallWithParams",
            (true, true, false) => "targetRelationshipCall",
            (true, true, true) => "targetRelationshipCallWithParams",
        }
    }

    /// The element that names the called template.
    pub(crate) fn template_element(self) -> &'static str {
        if self.relationship {
            "RelationshipTemplateID"
        } else {
            "NodeTemplateID"
        }
    }
}

/// The shapes of the calls of `plan` (steps and compensation), in a fixed
/// order, each with the template of one of its calls (its side names the
/// shape's CSAR, service template and service instance).
pub(crate) type Shapes = BTreeMap<Shape, TemplateRef>;

/// The [`Shapes`] of `plan`.
pub(crate) fn shapes(topology: &Topology, plan: &ConcretePlan) -> Shapes {
    let mut shapes = Shapes::new();
    let calls = plan
        .bodies
        .iter()
        .flat_map(|b| b.steps.iter().chain(&b.compensation))
        .filter_map(|s| s.invocation());
    for inv in calls {
        shapes.entry(Shape::of(topology, inv)).or_insert(inv.target);
    }
    shapes
}

/// Declare the variable of each shape.
pub(crate) fn declare(w: &mut W, shapes: &Shapes) -> Result<()> {
    for s in shapes.keys() {
        w.put("call-variable", 4, &[("name", s.variable())])?;
    }
    Ok(())
}

/// The assign that fills the shared request of each shape (nothing
/// without calls): after the service instances are known, before the
/// activities.
pub(crate) fn prepare(w: &mut W, topology: &Topology, shapes: &Shapes) -> Result<()> {
    if shapes.is_empty() {
        return Ok(());
    }
    w.put("calls", 4, &[])?;
    for (&s, &called) in shapes {
        let side = side(topology, called);
        w.put(
            "call",
            4,
            &[
                ("name", s.variable()),
                (
                    "node_instance_element",
                    if s.relationship {
                        ""
                    } else {
                        "<NodeInstanceID/>"
                    },
                ),
                ("st_namespace", &xml_escape(side.namespace)),
                ("st_id", &xml_escape(side.service_template)),
                ("template_kind", s.template_element()),
                ("params", if s.params { "<Params/>" } else { "" }),
                ("csar", side.csar),
                ("si_url", side.service_instance_url),
            ],
        )?;
    }
    w.put("calls-end", 4, &[])
}
