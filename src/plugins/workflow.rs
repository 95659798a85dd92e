//! The workflow plugin: the steps of imperative workflows (TOSCA YAML 1.3
//! §7.3) in language-neutral steps. `set_state` sets the instance state
//! (custom states are kept, upper-cased like the normative ones);
//! `call_operation` invokes the operation with the workflow's inputs over
//! the operation's own (an unimplemented operation is a no-op, §5.8.1);
//! a step's `filter` skips the rest on instances that fail it; a workflow
//! precondition fails the plan when it does not hold. Delegated and inlined
//! activities never reach this plugin: `plan::workflow` turns them into
//! provisioning and termination activities and spliced steps.

use std::collections::BTreeSet;
use std::sync::{Mutex, OnceLock};

use super::api::{Body, Context, Outcome, Plugin, Role};
use super::configure::invoke_relationship;
use super::invoke::{Call, node_operation};
use super::params::value_binding;
use super::steps::{Binding, Otherwise, Step, state};
use crate::model::{Name, TemplateRef, Topology, Value, WorkflowActivity};
use crate::plan::{Activity, ActivityKind};

/// A state name as the instance API keeps it: the normative ones as the
/// other plugins write them, custom ones upper-cased and interned (steps
/// hold `&'static str`; a run sees a handful of names).
pub(crate) fn state_name(s: &str) -> &'static str {
    use state::*;
    let upper = s.trim().to_ascii_uppercase();
    for known in [
        CREATING,
        CREATED,
        CONFIGURING,
        CONFIGURED,
        STARTING,
        STARTED,
        STOPPING,
        STOPPED,
        DELETING,
        DELETED,
        ERROR,
    ] {
        if known == upper {
            return known;
        }
    }
    static NAMES: OnceLock<Mutex<BTreeSet<&'static str>>> = OnceLock::new();
    let mut names = NAMES
        .get_or_init(|| Mutex::new(BTreeSet::new()))
        .lock()
        .unwrap_or_else(|e| e.into_inner());
    if let Some(n) = names.get(upper.as_str()) {
        return n;
    }
    let leaked: &'static str = Box::leak(upper.into_boxed_str());
    names.insert(leaked);
    leaked
}

/// The built-in workflow plugin.
pub(crate) struct Workflow;

impl Plugin for Workflow {
    fn id(&self) -> &str {
        "workflow"
    }
    fn priority(&self) -> i32 {
        2000
    }
    fn role(&self) -> Role {
        Role::Lifecycle
    }
    fn summary(&self) -> String {
        "steps of imperative workflows: set_state, call_operation, filters and preconditions".into()
    }
    fn origin(&self) -> String {
        "built-in".into()
    }

    fn handle(&self, cx: &Context, activity: &Activity) -> Outcome {
        let ActivityKind::Step(s) = &activity.kind else {
            return Outcome::NotApplicable;
        };
        let t = cx.topology;
        let w = &t.workflows[s.workflow];
        let mut body = Body::default();
        for r in &s.register {
            match *r {
                TemplateRef::Node(n) => body.steps.push(Step::CreateNodeInstance(n)),
                TemplateRef::Relationship(r) => {
                    body.steps.push(Step::CreateRelationshipInstance(r))
                }
            }
            body.notes
                .push(format!("registers the instance of `{}`", t.template_id(*r)));
        }
        if let Some(p) = s.precondition {
            body.steps.push(Step::Check {
                template: activity.template,
                condition: w.preconditions[p].condition.clone(),
                otherwise: Otherwise::Fail,
            });
            body.notes.push(format!(
                "precondition {} of workflow `{}`: every instance must meet it",
                p + 1,
                w.name
            ));
            return Outcome::Handled(body);
        }
        let step = &w.steps[s.step];
        if !step.filter.is_empty() && !s.activities.is_empty() {
            body.steps.push(Step::Check {
                template: activity.template,
                condition: step.filter.clone(),
                otherwise: Otherwise::Skip,
            });
            body.notes
                .push("the step's filter skips instances that do not meet it".into());
        }
        for a in &step.activities[s.activities.clone()] {
            match a {
                WorkflowActivity::SetState(x) => {
                    body.steps
                        .push(Step::SetState(activity.template, state_name(x)));
                }
                WorkflowActivity::CallOperation {
                    interface,
                    operation,
                    inputs,
                } => match call_operation(
                    t,
                    activity.template,
                    interface,
                    operation,
                    inputs,
                    &mut body.notes,
                ) {
                    Ok(Some(step)) => body.steps.push(step),
                    Ok(None) => {}
                    Err(why) => return Outcome::Declined(why),
                },
                WorkflowActivity::Delegate(_) | WorkflowActivity::Inline(_) => {}
            }
        }
        if !s.existing
            && let TemplateRef::Node(n) = activity.template
        {
            body.steps.push(Step::StoreProperties(n));
        }
        if body.steps.is_empty() {
            body.notes.push("the step has no activities here".into());
        }
        Outcome::Handled(body)
    }
}

/// The step of a `call_operation` activity on `template`: the operation
/// invoked with the activity's inputs over its own. `Ok(None)` (with a
/// note) when it has no implementation, a no-op; `Err` when the template
/// has no such operation.
fn call_operation(
    t: &Topology,
    template: TemplateRef,
    interface: &str,
    operation: &str,
    inputs: &[(String, Value)],
    notes: &mut Vec<String>,
) -> Result<Option<Step>, String> {
    let given: Vec<(Name, Binding)> = inputs
        .iter()
        .map(|(k, v)| (k.as_str().into(), value_binding(t, template, v)))
        .collect();
    let op = match template {
        TemplateRef::Node(n) => t.node(n).operation(interface, operation),
        TemplateRef::Relationship(r) => t
            .relationship(r)
            .interfaces
            .iter()
            .find(|i| *i.name == *interface)
            .and_then(|i| i.operation(operation)),
    };
    let Some(op) = op else {
        return Err(format!(
            "`{interface}.{operation}` is not an operation of `{}`",
            t.template_id(template)
        ));
    };
    if op.implementation.is_none() {
        notes.push(format!(
            "`{interface}.{operation}` has no implementation: a no-op"
        ));
        return Ok(None);
    }
    let interface: Name = interface.into();
    Ok(Some(match template {
        TemplateRef::Node(n) => node_operation(
            t,
            Call {
                target: n,
                context: n,
                interface: &interface,
                operation: op,
                inputs: &given,
                outputs: &[],
            },
            notes,
        ),
        TemplateRef::Relationship(r) => {
            let source = t.relationship(r).source;
            let mut step = invoke_relationship(t, r, source, &interface, op, notes);
            if let Step::Invoke(inv) = &mut step {
                for (k, b) in &given {
                    match inv.inputs.iter_mut().find(|(n, _)| n == k) {
                        Some(slot) => slot.1 = b.clone(),
                        None => inv.inputs.push((k.clone(), b.clone())),
                    }
                }
            }
            step
        }
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn topology() -> Topology {
        let yaml = "tosca_definitions_version: tosca_simple_yaml_1_3\n\
            topology_template:\n  node_templates:\n    \
            app:\n      type: tosca.nodes.Root\n      \
            interfaces: {Standard: {start: s.sh, stop: {description: manual}}}\n";
        crate::model::lower_yaml::topology_of(yaml)
    }

    #[test]
    fn a_call_invokes_an_implemented_operation_with_the_given_inputs() {
        let t = topology();
        let app = TemplateRef::Node(t.node_by_id("app").unwrap());
        let mut notes = Vec::new();
        let inputs = [("speed".to_string(), Value::Scalar("fast".into()))];
        let Ok(Some(Step::Invoke(inv))) =
            call_operation(&t, app, "Standard", "start", &inputs, &mut notes)
        else {
            panic!("an invocation")
        };
        assert_eq!(&*inv.operation, "start");
        assert!(
            inv.inputs.iter().any(|(n, _)| &**n == "speed"),
            "{:?}",
            inv.inputs
        );
    }

    #[test]
    fn an_unimplemented_call_is_a_no_op_and_an_unknown_one_declined() {
        let t = topology();
        let app = TemplateRef::Node(t.node_by_id("app").unwrap());
        let mut notes = Vec::new();
        assert!(matches!(
            call_operation(&t, app, "Standard", "stop", &[], &mut notes),
            Ok(None)
        ));
        assert_eq!(notes, ["`Standard.stop` has no implementation: a no-op"]);
        let Err(why) = call_operation(&t, app, "Standard", "jump", &[], &mut notes) else {
            panic!("declined")
        };
        assert_eq!(why, "`Standard.jump` is not an operation of `app`");
    }
}
