//! The test-policy plugin: the test a `ManagementOperationTest` policy of
//! a node describes (`plan::test_policies`): its operation invoked on the
//! node with the policy's fixed inputs, the other inputs matched on the
//! node its `ResolveInputParameters` names (and that node's stack), then a
//! check of the outputs its `ExpectedOutputParameters` expects. A value
//! that differs fails the plan there, in the activity named after the
//! test; an invocation that fails is a fault of the management bus, which
//! fails the plan there too.
//!
//! In: a test-policy activity. Out: the call and the check; warnings about
//! the test policies of the topology ([`diagnostics`]).

use std::collections::BTreeSet;

use super::api::{Body, Context, Outcome, Plugin, Role};
use super::invoke::{Call, node_operation};
use super::steps::{Binding, Otherwise, PropertyRef, Step};
use crate::diagnostics::{Diagnostic, codes};
use crate::model::{Condition, Name, NodeId, TemplateRef, Topology, Value};
use crate::plan::features::result_property;
use crate::plan::test_policies::{
    EXPECTED, OPERATION_TEST, PolicyTest, container_tests, policy_tests, runnable,
};
use crate::plan::{Activity, ActivityKind};

/// The built-in test-policy plugin.
pub(super) struct TestPolicies;

impl Plugin for TestPolicies {
    fn id(&self) -> &str {
        "test-policies"
    }
    fn priority(&self) -> i32 {
        0
    }
    fn role(&self) -> Role {
        Role::Feature
    }
    fn summary(&self) -> String {
        format!(
            "{OPERATION_TEST} policies: invoke the operation they name with their inputs; an output other than the {EXPECTED} fails the plan"
        )
    }
    fn origin(&self) -> String {
        "built-in".into()
    }

    fn handle(&self, cx: &Context, activity: &Activity) -> Outcome {
        let (TemplateRef::Node(n), ActivityKind::TestPolicy(name)) =
            (activity.template, &activity.kind)
        else {
            return Outcome::NotApplicable;
        };
        let t = cx.topology;
        let Some(test) = runnable(t, n)
            .into_iter()
            .find(|p| *p.policy.name == **name)
        else {
            return Outcome::Declined(format!(
                "the node has no {OPERATION_TEST} policy `{name}` that can run"
            ));
        };
        let mut body = Body::default();
        let context = input_context(t, n, &test, &mut body);
        let inputs: Vec<(Name, Binding)> = test
            .inputs
            .iter()
            .map(|(k, v)| (Name::from(k.as_str()), Binding::Literal(v.clone())))
            .collect();
        let key = &test.policy.name;
        let outputs: Vec<(Name, PropertyRef)> = output_names(&test)
            .into_iter()
            .map(|o| (Name::from(o.as_str()), result_ref(n, key, &o)))
            .collect();
        let call = Call {
            target: n,
            context,
            interface: &test.interface.name,
            operation: test.operation,
            inputs: &inputs,
            outputs: &outputs,
        };
        body.steps.push(node_operation(t, call, &mut body.notes));
        body.notes.push(format!(
            "test policy `{key}`: `{}` of `{}`, {} fixed input(s)",
            test.operation.name,
            test.interface.name,
            test.inputs.len()
        ));
        if test.expected.is_empty() {
            body.notes.push(format!(
                "test policy `{key}` expects no outputs: it fails only when the operation does"
            ));
        } else {
            body.steps.push(Step::Check {
                template: activity.template,
                condition: test
                    .expected
                    .iter()
                    .map(|(o, v)| Condition::Assert {
                        attribute: result_property(key, o),
                        constraints: vec![("equal".into(), Value::Scalar(v.clone()))],
                    })
                    .collect(),
                otherwise: Otherwise::Fail,
            });
            body.notes.push(format!(
                "test policy `{key}`: fails the plan unless {}",
                test.expected
                    .iter()
                    .map(|(o, v)| format!("{o} is `{v}`"))
                    .collect::<Vec<_>>()
                    .join(" and ")
            ));
        }
        Outcome::Handled(body)
    }
}

/// The node whose properties (and its stack's) supply the inputs the
/// policy does not fix: the one `ResolveInputParameters` names where the
/// plan can read it (the tested node or a node below it: a test runs on
/// each instance of the tested node, and reaches the instances under it),
/// else the tested node, with a warning.
fn input_context(t: &Topology, n: NodeId, test: &PolicyTest, body: &mut Body) -> NodeId {
    let Some(r) = test.resolve else {
        return n;
    };
    if r == n || t.stack_below(n).contains(&r) {
        if r != n {
            body.notes.push(format!(
                "test policy `{}`: inputs matched on `{}` and its stack",
                test.policy.name,
                t.node(r).id
            ));
        }
        return r;
    }
    let node = t.node(n);
    body.warnings.push(
        Diagnostic::warning(
            codes::W_IGNORED,
            format!(
                "test policy `{}` of `{}` resolves its inputs on `{}`, which the test plan cannot read: it is not below `{}` in its hosting stack; the inputs are matched on `{}` and its stack",
                test.policy.name,
                node.id,
                t.node(r).id,
                node.id,
                node.id
            ),
        )
        .at_opt(test.policy.origin.clone())
        .hint("name the tested node or a node it is hosted on, or give the inputs in TestInputParameters"),
    );
    body.notes.push(format!(
        "test policy `{}`: ResolveInputParameters `{}` ignored (not in the stack)",
        test.policy.name,
        t.node(r).id
    ));
    n
}

/// The outputs a test keeps: those its operation declares and those it
/// expects, once each.
fn output_names(test: &PolicyTest) -> Vec<String> {
    let mut seen = BTreeSet::new();
    test.operation
        .outputs
        .iter()
        .map(|o| o.name.to_string())
        .chain(test.expected.iter().map(|(o, _)| o.clone()))
        .filter(|o| seen.insert(o.clone()))
        .collect()
}

/// Where output `output` of the test of policy `policy` on node `n` is kept.
fn result_ref(n: NodeId, policy: &str, output: &str) -> PropertyRef {
    PropertyRef {
        template: TemplateRef::Node(n),
        name: result_property(policy, output).into(),
    }
}

/// The result properties of node `n`'s test policies (the test plan's
/// topology has them, empty until a test reports).
pub(super) fn result_properties(topology: &Topology, n: NodeId) -> Vec<String> {
    runnable(topology, n)
        .iter()
        .flat_map(|t| {
            output_names(t)
                .into_iter()
                .map(|o| result_property(&t.policy.name, &o))
        })
        .collect()
}

/// What a test plan says about the topology's test policies: those it
/// leaves out (W0512) or cannot read (E0513), and those the container
/// runs instead (W0514): one per node and type, at the node's first
/// policy of the type, worded alike but for the node so that the text
/// output prints it once for many nodes (`diagnostics::group`).
pub(crate) fn diagnostics(topology: &Topology) -> Vec<Diagnostic> {
    let mut out = Vec::new();
    for n in topology.node_ids() {
        out.extend(
            policy_tests(topology, n)
                .into_iter()
                .filter_map(Result::err),
        );
        let mut seen = BTreeSet::new();
        for (policy, kind) in container_tests(topology, n) {
            if !seen.insert(kind) {
                continue;
            }
            out.push(
                Diagnostic::warning(
                    codes::W_TEST_BY_CONTAINER,
                    format!(
                        "`{}` has a test policy of type {kind}, which the OpenTOSCA container runs after a deployment: the test plan does not run it",
                        topology.node(n).id
                    ),
                )
                .at_opt(policy.origin.clone())
                .hint(format!(
                    "to test this in the plan, add a {OPERATION_TEST} policy that invokes a test operation of the node's type"
                )),
            );
        }
    }
    out
}
