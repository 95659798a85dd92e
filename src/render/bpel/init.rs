//! The initial values of a BPEL plan's variables: the fixed ones from
//! the request, the templates' (modelled values or plan inputs for the
//! instances the plan provisions, empty for those it reads), the
//! failure flags of `on_failure` routing and the instance states.
//!
//! In: the plan and its [`Ctx`]. Out: the `<assign>` copies, written.

use super::ctx::Ctx;
use super::writer::{W, text};
use super::xpath::{child, literal};
use crate::error::Result;
use crate::model::{TemplateMap, TemplateRef, Value};
use crate::plugins::ConcretePlan;
use crate::render::output::PlanOutput;
use crate::render::vars::in_document;

/// Initial values of the fixed and property variables, and the failure
/// flags of `on_failure` routing. Properties of new instances start with
/// their modelled value or plan input; plans that work on existing
/// instances load them from the instance data instead.
pub(crate) fn initial_values(
    cx: &Ctx,
    plan: &ConcretePlan,
    failures: &[Option<String>],
    w: &mut W,
    output: &mut PlanOutput,
) -> Result<()> {
    let input = |n: &str| format!("string($input.payload/tns:{})", cx.input(n));
    let mut init = |w: &mut W, var: &str, expr: &str| -> Result<()> {
        w.put("init", 6, &[("var", var), ("expr", expr)])?;
        w.flush_if_full(output)
    };
    init(
        w,
        "correlationID",
        &input(crate::plugins::complete::CORRELATION_ID),
    )?;
    init(
        w,
        "instanceDataAPIUrl",
        &input(crate::plugins::complete::INSTANCE_DATA_API_URL),
    )?;
    init(
        w,
        "csarEntrypoint",
        &input(crate::plugins::complete::CSAR_ENTRYPOINT),
    )?;
    // The container serves the CSAR at `…/csars/<CsarID>`: the bus needs
    // that id with every call.
    init(
        w,
        "csarID",
        &format!(
            "replace(replace({}, '/+$', ''), '^.*/', '')",
            input(crate::plugins::complete::CSAR_ENTRYPOINT)
        ),
    )?;
    for var in [
        "serviceTemplateURL",
        "serviceInstanceURL",
        "serviceInstanceID",
    ] {
        init(w, var, "''")?;
    }
    // Templates whose instances the plan creates start from their modelled values; the
    // others (existing instances) are read from the instance data.
    let topology = cx.topology;
    let mut fresh = crate::model::TemplateMap::new(topology);
    for t in plan.plan.activities.iter().flat_map(|a| a.creates()) {
        fresh.insert(t, ());
    }
    let mut seen = crate::model::TemplateMap::new(topology);
    let targets = plan
        .bodies
        .iter()
        .flat_map(|b| b.steps.iter())
        .filter_map(|s| s.invocation())
        .map(|i| i.target);
    for t in plan
        .plan
        .activities
        .iter()
        .map(|a| a.template)
        .chain(targets)
    {
        if seen.insert(t, ()).is_some() || !cx.process.contains(t) {
            continue;
        }
        init(w, cx.names.url(t), "''")?;
        if cx.names.id_read(t) {
            init(w, cx.names.id(t), "''")?;
        }
        for ((p, var), value) in cx
            .names
            .props_of(topology, t)
            .zip(topology.properties(t).values())
        {
            if in_document(t, p) {
                continue;
            }
            // A value computed from other properties is set with the
            // documents (`document_values`), which it may read.
            let e = if fresh.contains(t) && !computed(value) {
                fresh_value(cx, t, value)
            } else {
                "''".into()
            };
            init(w, var, &e)?;
        }
    }
    for flag in failures.iter().flatten() {
        init(w, flag, "'false'")?;
    }
    for (_, var) in cx.collected.iter().flatten() {
        init(w, var, "''")?;
    }
    for (state, var) in &cx.states {
        init(w, var, &text(&literal(state)))?;
    }
    Ok(())
}

/// Whether a modelled value is computed from other values (a function),
/// rather than a plan input or a literal.
fn computed(value: &Value) -> bool {
    value.as_input().is_none() && value.literal().is_none()
}

/// The modelled value of a property of a template the plan provisions:
/// its plan input, its literal, or the expression of its function.
fn fresh_value(cx: &Ctx, t: TemplateRef, value: &Value) -> String {
    let input = |n: &str| format!("string($input.payload/tns:{})", cx.input(n));
    match (value.as_input(), value.literal()) {
        (Some(i), _) => input(i),
        (None, Some(l)) => text(&literal(&l)),
        (None, None) => cx.value(&crate::plugins::params::value_binding(
            cx.topology,
            t,
            value,
        )),
    }
}

/// The modelled values of the properties in the documents of the
/// templates whose instances the plan creates, set once every document
/// is (a value may be another template's property), then the computed
/// values of their other properties, which may read the documents. An
/// empty value is the empty document's already.
pub(crate) fn document_values(cx: &Ctx, plan: &ConcretePlan, w: &mut W) -> Result<()> {
    let topology = cx.topology;
    let mut created: Vec<TemplateRef> = Vec::new();
    let mut seen = TemplateMap::new(topology);
    for t in plan.plan.activities.iter().flat_map(|a| a.creates()) {
        if seen.insert(t, ()).is_none() && cx.process.contains(t) {
            created.push(t);
        }
    }
    let mut any = false;
    let mut open = |w: &mut W| -> Result<()> {
        if !any {
            w.put("document-values", 4, &[])?;
            any = true;
        }
        Ok(())
    };
    for &t in &created {
        let Some(doc) = cx.names.document(topology, t) else {
            continue;
        };
        for (p, value) in topology.properties(t) {
            if !in_document(t, p) || value.literal().is_some_and(|l| l.is_empty()) {
                continue;
            }
            open(w)?;
            let element = format!("${doc}/{}", text(&child(p)));
            let expr = fresh_value(cx, t, value);
            w.put("init-element", 6, &[("element", &element), ("expr", &expr)])?;
        }
    }
    for &t in &created {
        let props = cx.names.props_of(topology, t);
        for ((p, var), value) in props.zip(topology.properties(t).values()) {
            if in_document(t, p) || !computed(value) {
                continue;
            }
            open(w)?;
            let expr = fresh_value(cx, t, value);
            w.put("init", 6, &[("var", var), ("expr", &expr)])?;
        }
    }
    if any {
        w.put("document-values-end", 4, &[])?;
    }
    Ok(())
}
