//! Lowering imperative workflows (1.3 §3.8.7, §7.3): every name a workflow
//! uses is resolved here, and one it cannot resolve — a step, a target
//! node or group, a requirement, an operation, an inlined workflow — is a
//! diagnostic (E0503) at the name.

use foldhash::HashMap;

use super::{Lowerer, This, Unit};
use crate::diagnostics::{Diagnostic, codes};
use crate::model::{
    Condition, InputDef, Precondition, StepTarget, TemplateRef, Topology, Value, Workflow,
    WorkflowActivity, WorkflowStep,
};
use crate::yaml::ast::{self, TypeKind};
use crate::yaml::node::{Kind, Node};

/// Metadata key that marks the workflows toscanini wrote back (their
/// plans are regenerated, never compiled as user workflows).
pub(super) const GENERATED: &str = "toscanini_generated";

pub(super) fn lower<'a>(
    l: &mut Lowerer<'a>,
    t: &Topology,
    topo: &'a ast::Topology,
    unit: Unit<'a>,
) -> Vec<Workflow> {
    // Only workflows with steps are compiled; their indexes are stable.
    let compiled: Vec<&'a ast::Workflow> = topo
        .workflows
        .iter()
        .filter(|w| {
            if w.metadata.iter().any(|(k, _)| k == GENERATED) {
                return false;
            }
            if w.implementation.is_some() {
                l.diags.push(
                    Diagnostic::warning(
                        codes::W_IGNORED,
                        format!(
                            "workflow `{}` is implemented in an external workflow language; toscanini does not compile it{}",
                            w.name.text,
                            if matches!(w.name.text.as_str(), "deploy" | "undeploy") {
                                ", and generates the declarative plan instead"
                            } else {
                                ""
                            }
                        ),
                    )
                    .at(Lowerer::at(unit, w.name.span)),
                );
                return false;
            }
            true
        })
        .collect();
    let index: HashMap<&str, usize> = compiled
        .iter()
        .enumerate()
        .map(|(i, w)| (w.name.text.as_str(), i))
        .collect();
    let mut out = Vec::new();
    for w in &compiled {
        out.push(workflow(l, t, w, unit, &index));
    }
    // Preconditions that no plan checks: a deploy's (nothing exists yet)
    // and an inlined workflow's (1.3 §7.3.5 makes them per-instance
    // filters, which toscanini does not do).
    for (i, w) in compiled.iter().enumerate() {
        if w.preconditions.is_empty() {
            continue;
        }
        let inlined = out.iter().any(|o| {
            o.steps
                .iter()
                .flat_map(|s| &s.activities)
                .any(|a| *a == WorkflowActivity::Inline(i))
        });
        let message = if w.name.text == "deploy" {
            Some(
                "the preconditions of workflow `deploy` are not checked: nothing exists before deploy"
                    .to_string(),
            )
        } else if inlined {
            Some(format!(
                "the preconditions of workflow `{}` are not checked where another workflow inlines it (its own plan checks them)",
                w.name.text
            ))
        } else {
            None
        };
        if let Some(message) = message {
            l.diags.push(
                Diagnostic::warning(codes::W_IGNORED, message).at(Lowerer::at(unit, w.name.span)),
            );
        }
    }
    out
}

fn invalid<'a>(
    l: &mut Lowerer<'a>,
    unit: Unit<'a>,
    span: crate::diagnostics::Span,
    message: String,
    hint: &str,
) {
    l.push_once(
        Diagnostic::error(codes::WORKFLOW_INVALID, message)
            .at(Lowerer::at(unit, span))
            .hint(hint.to_string()),
    );
}

fn workflow<'a>(
    l: &mut Lowerer<'a>,
    t: &Topology,
    w: &'a ast::Workflow,
    unit: Unit<'a>,
    index: &HashMap<&str, usize>,
) -> Workflow {
    let steps_by_name: HashMap<&str, usize> = w
        .steps
        .iter()
        .enumerate()
        .map(|(i, s)| (s.name.text.as_str(), i))
        .collect();
    let inputs = w
        .inputs
        .iter()
        .map(|i| {
            let default = i
                .default
                .as_ref()
                .or(i.value.as_ref())
                .map(|d| l.value(d, unit, This::Nothing));
            InputDef {
                given: false,
                name: i.name.text.clone(),
                type_name: i.type_name.clone(),
                required: i.required && default.is_none(),
                default,
            }
        })
        .collect();
    let preconditions = preconditions(l, t, w, unit);
    // Indexes are by declaration; steps dropped here would shift them,
    // but then an error has been reported and no plan is made.
    let steps = w
        .steps
        .iter()
        .filter_map(|s| step(l, t, w, s, unit, index, &steps_by_name))
        .collect();
    Workflow {
        name: w.name.text.clone(),
        inputs,
        preconditions,
        steps,
        origin: Some(Lowerer::at(unit, w.name.span)),
    }
}

/// The preconditions of workflow `w`; one without a valid target is
/// reported and left out.
fn preconditions<'a>(
    l: &mut Lowerer<'a>,
    t: &Topology,
    w: &'a ast::Workflow,
    unit: Unit<'a>,
) -> Vec<Precondition> {
    let name = &w.name.text;
    let mut preconditions = Vec::new();
    for p in &w.preconditions {
        let Some(target) = &p.target else {
            invalid(
                l,
                unit,
                p.span,
                format!("a precondition of workflow `{name}` has no `target`"),
                "a precondition names the node template or group it checks",
            );
            continue;
        };
        let Some(tr) = template(l, t, unit, target, p.target_relationship.as_ref(), name) else {
            continue;
        };
        let condition = p
            .condition
            .as_ref()
            .map(|c| conditions(l, c, unit))
            .unwrap_or_default();
        preconditions.push(Precondition {
            target: tr,
            condition,
        });
    }
    preconditions
}

/// One step of workflow `w`, or `None` (reported) when its target is
/// missing or unknown.
fn step<'a>(
    l: &mut Lowerer<'a>,
    t: &Topology,
    w: &'a ast::Workflow,
    s: &'a ast::WorkflowStep,
    unit: Unit<'a>,
    index: &HashMap<&str, usize>,
    steps_by_name: &HashMap<&str, usize>,
) -> Option<WorkflowStep> {
    let name = &w.name.text;
    let on_success = step_refs(l, name, s, &s.on_success, "on_success", unit, steps_by_name);
    let on_failure = step_refs(l, name, s, &s.on_failure, "on_failure", unit, steps_by_name);
    let Some(target) = &s.target else {
        invalid(
            l,
            unit,
            s.name.span,
            format!(
                "step `{}` of workflow `{name}` has no `target`",
                s.name.text
            ),
            "a step names the node template or group its activities act on",
        );
        return None;
    };
    let target = if let Some(g) = t.groups.iter().position(|g| g.name == target.text)
        && s.target_relationship.is_none()
    {
        StepTarget::Group(g)
    } else {
        match template(l, t, unit, target, s.target_relationship.as_ref(), name)? {
            TemplateRef::Node(n) => StepTarget::Node(n),
            TemplateRef::Relationship(r) => StepTarget::Relationship(r),
        }
    };
    let mut activities = Vec::new();
    for a in &s.activities {
        if let Some(act) = activity(l, t, a, target, unit, index, name) {
            activities.push(act);
        }
    }
    let filter = s
        .filter
        .as_ref()
        .map(|f| conditions(l, f, unit))
        .unwrap_or_default();
    Some(WorkflowStep {
        name: s.name.text.clone(),
        target,
        copies: Vec::new(),
        activities,
        filter,
        on_success,
        on_failure,
        origin: Some(Lowerer::at(unit, s.name.span)),
    })
}

/// The indexes of the steps `list` names (in `on_success` or
/// `on_failure`, as `key` says); an unknown name is reported.
fn step_refs<'a>(
    l: &mut Lowerer<'a>,
    workflow: &str,
    s: &ast::WorkflowStep,
    list: &[ast::Spanned],
    key: &str,
    unit: Unit<'a>,
    steps_by_name: &HashMap<&str, usize>,
) -> Vec<usize> {
    let mut out = Vec::new();
    for n in list {
        match steps_by_name.get(n.text.as_str()) {
            Some(&i) => out.push(i),
            None => invalid(
                l,
                unit,
                n.span,
                format!(
                    "step `{}` of workflow `{workflow}` names `{}` in `{key}`, but the workflow has no such step",
                    s.name.text, n.text
                ),
                "on_success and on_failure list step names of the same workflow",
            ),
        }
    }
    out
}

/// A node (or, with `target_relationship`, one of its relationships).
fn template<'a>(
    l: &mut Lowerer<'a>,
    t: &Topology,
    unit: Unit<'a>,
    target: &ast::Spanned,
    relationship: Option<&ast::Spanned>,
    workflow: &str,
) -> Option<TemplateRef> {
    let Some(n) = t.node_by_id(&target.text) else {
        // A template that failed to lower has been reported already.
        if l.node_names.contains(&target.text) {
            return None;
        }
        let hint = match super::types::nearest(&target.text, &l.node_names) {
            Some(n) => format!("did you mean `{n}`?"),
            None => {
                "a step or precondition targets a node template or group of the topology".into()
            }
        };
        invalid(
            l,
            unit,
            target.span,
            format!(
                "workflow `{workflow}` targets `{}`, which is not a node template{}",
                target.text,
                if relationship.is_none() {
                    " or group"
                } else {
                    ""
                }
            ),
            &hint,
        );
        return None;
    };
    let Some(req) = relationship else {
        return Some(TemplateRef::Node(n));
    };
    match l
        .rel_by_requirement
        .get(&(n, req.text.as_str()))
        .and_then(|v| v.first())
    {
        Some(&r) => Some(TemplateRef::Relationship(r)),
        None => {
            invalid(
                l,
                unit,
                req.span,
                format!(
                    "workflow `{workflow}` targets requirement `{}` of `{}`, which has no such relationship",
                    req.text, target.text
                ),
                "target_relationship names a requirement of the target node",
            );
            None
        }
    }
}

fn activity<'a>(
    l: &mut Lowerer<'a>,
    t: &Topology,
    a: &'a ast::WorkflowActivity,
    target: StepTarget,
    unit: Unit<'a>,
    index: &HashMap<&str, usize>,
    workflow: &str,
) -> Option<WorkflowActivity> {
    let arg = &a.argument.text;
    match a.kind {
        ast::ActivityKind::SetState => Some(WorkflowActivity::SetState(arg.clone())),
        ast::ActivityKind::Delegate => {
            let normalized = match arg.as_str() {
                "deploy" | "install" => "deploy",
                "undeploy" | "uninstall" => "undeploy",
                _ => {
                    invalid(
                        l,
                        unit,
                        a.argument.span,
                        format!(
                            "workflow `{workflow}` delegates `{arg}`, but only the declarative workflows `deploy` and `undeploy` can be delegated"
                        ),
                        "use `inline` to run another imperative workflow",
                    );
                    return None;
                }
            };
            if normalized != arg {
                l.diags.push(
                    Diagnostic::warning(
                        codes::W_YAML_LENIENT,
                        format!("`{arg}` is read as the normative workflow `{normalized}`"),
                    )
                    .at(Lowerer::at(unit, a.argument.span)),
                );
            }
            Some(WorkflowActivity::Delegate(normalized.to_string()))
        }
        ast::ActivityKind::Inline => match index.get(arg.as_str()) {
            Some(&i) => Some(WorkflowActivity::Inline(i)),
            None => {
                invalid(
                    l,
                    unit,
                    a.argument.span,
                    format!(
                        "workflow `{workflow}` inlines `{arg}`, which is not a workflow with steps"
                    ),
                    "inline names another workflow of the topology",
                );
                None
            }
        },
        ast::ActivityKind::CallOperation => {
            let (iface, op) = operation(l, t, target, &a.argument, unit)?;
            let ctx = match target {
                StepTarget::Node(n) => This::Node(&t.node(n).id),
                StepTarget::Relationship(_) => This::Relationship,
                StepTarget::Group(_) => This::Nothing,
            };
            let inputs: Vec<(String, Value)> = a
                .inputs
                .iter()
                .map(|(k, v)| (k.text.clone(), l.value(v, unit, ctx)))
                .collect();
            let _ = workflow;
            Some(WorkflowActivity::CallOperation {
                interface: iface,
                operation: op,
                inputs,
            })
        }
    }
}

/// Find `interface.operation` on the target: by interface name, or by the
/// interface's type name (examples write the full type name).
fn operation<'a>(
    l: &mut Lowerer<'a>,
    t: &Topology,
    target: StepTarget,
    written: &ast::Spanned,
    unit: Unit<'a>,
) -> Option<(String, String)> {
    let text = written.text.as_str();
    let at = Lowerer::at(unit, written.span);
    let nodes: Vec<(String, std::sync::Arc<Vec<crate::model::Interface>>)> = match target {
        StepTarget::Node(n) => vec![(t.node(n).id.clone(), t.node(n).interfaces.clone())],
        StepTarget::Relationship(r) => vec![(
            t.relationship(r).id.clone(),
            t.relationship(r).interfaces.clone(),
        )],
        StepTarget::Group(g) => t.groups[g]
            .members
            .iter()
            .map(|&m| (t.node(m).id.clone(), t.node(m).interfaces.clone()))
            .collect(),
    };
    let Some((iface_text, op)) = text.rsplit_once('.') else {
        l.push_once(
            Diagnostic::error(
                codes::WORKFLOW_INVALID,
                format!("`call_operation: {text}` does not name `<interface>.<operation>`"),
            )
            .at(at)
            .hint("write e.g. `Standard.create`"),
        );
        return None;
    };
    let as_type = l.resolve(TypeKind::Interface, iface_text, unit);
    let mut found: Option<String> = None;
    for (node, ifaces) in &nodes {
        let hit = ifaces.iter().find(|i| {
            &*i.name == iface_text
                || (as_type.is_some() && i.interface_type.is_some() && {
                    let it = i.interface_type.clone().unwrap_or_default();
                    let want = as_type.clone().unwrap_or_default();
                    it == want
                        || l.chain(TypeKind::Interface, &it)
                            .is_some_and(|c| c.contains(&want))
                })
        });
        match hit {
            Some(i) if i.operation(op).is_some() => found = Some(i.name.to_string()),
            _ => {
                let offered: Vec<String> = ifaces
                    .iter()
                    .flat_map(|i| {
                        i.operations
                            .iter()
                            .map(move |o| format!("{}.{}", i.name, o.name))
                    })
                    .collect();
                l.push_once(
                    Diagnostic::error(
                        codes::WORKFLOW_INVALID,
                        format!("`call_operation: {text}`: `{node}` has no operation `{op}` in an interface `{iface_text}`"),
                    )
                    .at(at.clone())
                    .hint(if offered.is_empty() {
                        "the target has no operations".to_string()
                    } else {
                        format!("its operations: {}", offered.join(", "))
                    }),
                );
                return None;
            }
        }
    }
    found.map(|i| (i, op.to_string()))
}

/// Constraint operators (1.3 §3.6.3) conditions may use (and the plans
/// evaluate: `render::*::condition`).
pub(super) const CONSTRAINTS: [&str; 11] = [
    "equal",
    "greater_than",
    "greater_or_equal",
    "less_than",
    "less_or_equal",
    "in_range",
    "valid_values",
    "length",
    "min_length",
    "max_length",
    "pattern",
];

/// Condition clauses (1.3 §3.6.25): `and`, `or`, `not`, `assert`, and
/// direct assertions `<attribute>: [<constraint>, ...]`.
fn conditions<'a>(l: &mut Lowerer<'a>, node: &Node, unit: Unit<'a>) -> Vec<Condition> {
    let items: Vec<&Node> = match &node.kind {
        Kind::Seq(s) => s.iter().collect(),
        Kind::Null => Vec::new(),
        _ => vec![node],
    };
    let mut out = Vec::new();
    for item in items {
        let Some(entries) = item.as_map() else {
            l.push_once(
                Diagnostic::error(
                    codes::WORKFLOW_INVALID,
                    format!(
                        "a condition clause must be a map, but it is {}",
                        item.kind_name()
                    ),
                )
                .at(Lowerer::at(unit, item.span)),
            );
            continue;
        };
        for (k, v) in entries {
            let key = k.as_str().unwrap_or_default();
            match key {
                "and" | "assert" => out.push(Condition::And(conditions(l, v, unit))),
                "or" => out.push(Condition::Or(conditions(l, v, unit))),
                "not" => out.push(Condition::Not(conditions(l, v, unit))),
                attribute => {
                    let constraints: Vec<&Node> = match &v.kind {
                        Kind::Seq(s) => s.iter().collect(),
                        _ => vec![v],
                    };
                    let mut list = Vec::new();
                    for c in constraints {
                        match c.as_map() {
                            Some([(op_node, operand)]) => {
                                let op = op_node.as_str().unwrap_or_default();
                                if !CONSTRAINTS.contains(&op) && op != "equals" {
                                    l.push_once(
                                        Diagnostic::error(
                                            codes::WORKFLOW_INVALID,
                                            format!("`{op}` is not a TOSCA constraint operator"),
                                        )
                                        .at(Lowerer::at(unit, op_node.span))
                                        .hint(format!("use one of {}", CONSTRAINTS.join(", "))),
                                    );
                                    continue;
                                }
                                let op = if op == "equals" {
                                    l.diags.push(
                                        Diagnostic::warning(
                                            codes::W_YAML_LENIENT,
                                            "`equals` is not a TOSCA constraint; read as `equal`",
                                        )
                                        .at(Lowerer::at(unit, c.span)),
                                    );
                                    "equal"
                                } else {
                                    op
                                };
                                let operand = l.value(operand, unit, This::Nothing);
                                list.push((op.to_string(), operand));
                            }
                            // A bare value means `equal`.
                            _ => {
                                let operand = l.value(c, unit, This::Nothing);
                                list.push(("equal".to_string(), operand));
                            }
                        }
                    }
                    out.push(Condition::Assert {
                        attribute: attribute.to_string(),
                        constraints: list,
                    });
                }
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::super::lower_text;
    use crate::diagnostics::codes;

    #[test]
    fn steps_link_by_name_and_an_unknown_name_is_reported() {
        let (t, d) = lower_text(
            "tosca_definitions_version: tosca_simple_yaml_1_3\n\
             topology_template:\n  node_templates:\n    a: {type: tosca.nodes.Root}\n  \
             workflows:\n    run:\n      steps:\n        \
             one:\n          target: a\n          activities: [{set_state: started}]\n          \
             on_success: [two, three]\n        \
             two:\n          target: a\n          activities: [{set_state: configured}]\n        \
             lost:\n          activities: [{set_state: configured}]\n",
        );
        let w = &t.unwrap().workflows[0];
        assert_eq!(w.steps.len(), 2, "the step without target is dropped");
        assert_eq!(w.steps[0].on_success, vec![1]);
        let messages: Vec<&str> = d
            .iter()
            .filter(|d| d.code == codes::WORKFLOW_INVALID)
            .map(|d| d.message.as_str())
            .collect();
        assert!(
            messages
                .iter()
                .any(|m| m.contains("names `three` in `on_success`")),
            "{messages:?}"
        );
        assert!(
            messages
                .iter()
                .any(|m| m.contains("step `lost` of workflow `run` has no `target`")),
            "{messages:?}"
        );
    }
}
