//! The test plugin: a test operation of a node (the interface
//! `http://opentosca.org/interfaces/tests`), followed by a check of what
//! it reported. A test's `Result` output that says it failed
//! ([`TEST_FAILED`]) fails the plan there, in the activity named after the
//! test (`<node>_test_<operation>`); a test whose script fails is a fault
//! of the management bus, which fails the plan too.
//!
//! In: a test activity. Out: the calls and checks. The outputs are kept
//! in properties that only the test plan's topology has
//! ([`with_results`]): the plan reads them, and never writes them into
//! the instance's properties.

use super::api::{Body, Context, Outcome, Plugin, Role};
use super::invoke::{Call, node_operation};
use super::steps::{Otherwise, PropertyRef, Step};
use crate::model::{Condition, Name, NodeId, TemplateRef, Topology, Value};
use crate::plan::features::{TEST_FAILED, TEST_RESULT, result_property, tests};
use crate::plan::{Activity, ActivityKind};

/// The built-in test plugin.
pub(super) struct Tests;

impl Plugin for Tests {
    fn id(&self) -> &str {
        "tests"
    }
    fn priority(&self) -> i32 {
        0
    }
    fn role(&self) -> Role {
        Role::Feature
    }
    fn summary(&self) -> String {
        "nodes with the tests interface: run every test operation; a Result saying it failed fails the plan"
            .into()
    }
    fn origin(&self) -> String {
        "built-in".into()
    }

    fn handle(&self, cx: &Context, activity: &Activity) -> Outcome {
        let (TemplateRef::Node(n), ActivityKind::Test(test)) = (activity.template, &activity.kind)
        else {
            return Outcome::NotApplicable;
        };
        let t = cx.topology;
        let ops: Vec<_> = tests(t, n)
            .into_iter()
            .filter(|(_, o)| o.name == *test)
            .collect();
        if ops.is_empty() {
            return Outcome::Declined(format!(
                "the node has no implemented test operation `{test}`"
            ));
        }
        let mut body = Body::default();
        for (iface, op) in ops {
            let outputs: Vec<(Name, PropertyRef)> = op
                .outputs
                .iter()
                .map(|o| (o.name.clone(), result_ref(n, &op.name, &o.name)))
                .collect();
            let call = Call {
                target: n,
                context: n,
                interface: &iface.name,
                operation: op,
                inputs: &[],
                outputs: &outputs,
            };
            body.steps.push(node_operation(t, call, &mut body.notes));
            if op.outputs.iter().any(|o| &*o.name == TEST_RESULT) {
                body.steps.push(Step::Check {
                    template: activity.template,
                    condition: vec![passed(&result_property(&op.name, TEST_RESULT))],
                    otherwise: Otherwise::Fail,
                });
                body.notes.push(format!(
                    "test `{}`: fails the plan when its {TEST_RESULT} is one of {}",
                    op.name,
                    TEST_FAILED.join(", ")
                ));
            } else {
                body.notes.push(format!(
                    "test `{}` has no {TEST_RESULT} output: it fails only when the operation does",
                    op.name
                ));
            }
        }
        Outcome::Handled(body)
    }
}

/// Where output `output` of test `operation` of node `n` is kept.
fn result_ref(n: NodeId, operation: &str, output: &str) -> PropertyRef {
    PropertyRef {
        template: TemplateRef::Node(n),
        name: result_property(operation, output).into(),
    }
}

/// The test passed: its result is none of the words of failure.
fn passed(property: &str) -> Condition {
    Condition::Not(vec![Condition::Assert {
        attribute: property.to_string(),
        constraints: vec![(
            "valid_values".into(),
            Value::List(
                TEST_FAILED
                    .iter()
                    .map(|w| Value::Scalar(w.to_string()))
                    .collect(),
            ),
        )],
    }])
}

/// The topology of a test plan: every tested node has a property per
/// output of its test operations and of its test policies' operations
/// (and per output they expect), empty until the test reports it.
pub(crate) fn with_results(topology: &Topology) -> Topology {
    let mut t = topology.clone();
    let nodes: Vec<NodeId> = topology.node_ids().collect();
    for n in nodes {
        let names: Vec<String> = tests(topology, n)
            .iter()
            .flat_map(|(_, op)| {
                op.outputs
                    .iter()
                    .map(|o| result_property(&op.name, &o.name))
            })
            .chain(super::test_policies::result_properties(topology, n))
            .collect();
        let props = t.properties_mut(TemplateRef::Node(n));
        for name in names {
            props
                .entry(Name::from(name.as_str()))
                .or_insert_with(|| Value::Scalar(String::new()));
        }
    }
    t
}

/// The plan outputs of a test plan: each test's result, named as
/// OpenTOSCA names them (`Tests-<node>-<operation>-result`).
pub(crate) fn result_outputs(topology: &Topology) -> Vec<(String, super::steps::Binding)> {
    let mut out = Vec::new();
    for n in topology.node_ids() {
        for (_, op) in tests(topology, n) {
            if op.outputs.iter().any(|o| &*o.name == TEST_RESULT) {
                out.push((
                    format!("Tests-{}-{}-result", topology.node(n).id, op.name),
                    super::steps::Binding::Property(result_ref(n, &op.name, TEST_RESULT)),
                ));
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_result_passes_unless_it_says_it_failed() {
        let Condition::Not(inner) = passed("t_Result") else {
            panic!("a negation")
        };
        let Condition::Assert {
            attribute,
            constraints,
        } = &inner[0]
        else {
            panic!("an assertion")
        };
        assert_eq!(attribute, "t_Result");
        assert_eq!(constraints[0].0, "valid_values");
    }
}
