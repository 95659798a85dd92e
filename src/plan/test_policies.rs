//! Test policies (OpenTOSCA's policy types of
//! `http://opentosca.org/policytypes/annotations/tests`, anchor §2): a
//! `ManagementOperationTest` on a node is a test the test plan runs, an
//! operation of the node's type invoked with fixed inputs; the other test
//! policy types are checks the container runs itself after a deployment.
//!
//! In: a topology and a node. Out: the node's operation tests, each read
//! from its policy's properties (`InterfaceName`, `OperationName`,
//! `TestInputParameters`, `ResolveInputParameters` and toscanini's
//! `ExpectedOutputParameters`), or the diagnostic that says why it cannot
//! run: a warning when the test is left out (no such operation), an error
//! when a property is malformed.

use crate::diagnostics::{Diagnostic, codes};
use crate::model::{Interface, NodeId, Operation, Policy, PolicyTarget, Topology, Value};

/// The policy type of a test the test plan runs.
pub(crate) const OPERATION_TEST: &str = "ManagementOperationTest";
/// The test policy types the OpenTOSCA container runs itself after a
/// deployment (HTTP requests, TCP connects, SQL logins): no plan step.
pub(crate) const CONTAINER_TESTS: [&str; 5] = [
    "HttpTest",
    "HttpsTest",
    "TcpPingTest",
    "PortBindingTest",
    "SqlConnectionTest",
];
/// The property naming the interface of the tested operation.
const INTERFACE: &str = "InterfaceName";
/// The property naming the tested operation.
const OPERATION: &str = "OperationName";
/// The property with fixed input values (a JSON object).
pub(crate) const INPUTS: &str = "TestInputParameters";
/// The property naming the node whose properties supply the other inputs.
const RESOLVE: &str = "ResolveInputParameters";
/// toscanini's extension: the outputs the test expects (a JSON object).
pub(crate) const EXPECTED: &str = "ExpectedOutputParameters";

/// One operation test, as its policy describes it.
#[derive(Debug)]
pub(crate) struct PolicyTest<'t> {
    /// The policy (its name names the test).
    pub policy: &'t Policy,
    /// The interface of the tested operation.
    pub interface: &'t Interface,
    /// The tested operation.
    pub operation: &'t Operation,
    /// Fixed input values; they win over inputs matched by name.
    pub inputs: Vec<(String, String)>,
    /// The outputs the test expects, with their values.
    pub expected: Vec<(String, String)>,
    /// The node whose properties (and its stack's) supply the other inputs.
    pub resolve: Option<NodeId>,
}

/// The policies that target node `n`.
fn policies_of(topology: &Topology, n: NodeId) -> impl Iterator<Item = &Policy> {
    topology
        .policies
        .iter()
        .filter(move |p| p.targets.contains(&PolicyTarget::Node(n)))
}

/// The node's operation tests, in policy order; those that cannot run
/// as their diagnostic (a warning: left out; an error: malformed).
pub(crate) fn policy_tests(
    topology: &Topology,
    n: NodeId,
) -> Vec<Result<PolicyTest<'_>, Diagnostic>> {
    policies_of(topology, n)
        .filter(|p| p.has_type_named(OPERATION_TEST))
        .map(|p| read(topology, n, p))
        .collect()
}

/// The node's operation tests that run.
pub(crate) fn runnable(topology: &Topology, n: NodeId) -> Vec<PolicyTest<'_>> {
    policy_tests(topology, n)
        .into_iter()
        .filter_map(Result::ok)
        .collect()
}

/// The container-run test policies on node `n`: policy and its type's
/// local name.
pub(crate) fn container_tests(topology: &Topology, n: NodeId) -> Vec<(&Policy, &'static str)> {
    policies_of(topology, n)
        .filter_map(|p| {
            CONTAINER_TESTS
                .iter()
                .find(|t| p.has_type_named(t))
                .map(|t| (p, *t))
        })
        .collect()
}

/// One `ManagementOperationTest` policy read.
fn read<'t>(
    topology: &'t Topology,
    n: NodeId,
    policy: &'t Policy,
) -> Result<PolicyTest<'t>, Diagnostic> {
    let node = topology.node(n);
    let text = |key: &str| {
        policy
            .properties
            .get(key)
            .and_then(Value::literal)
            .map(|s| s.trim().to_string())
            .filter(|s| !s.is_empty())
    };
    let left_out = |why: String| {
        Diagnostic::warning(
            codes::W_TEST_LEFT_OUT,
            format!(
                "the test plan leaves out test policy `{}` of `{}`: {why}",
                policy.name, node.id
            ),
        )
        .at_opt(policy.origin.clone())
    };
    let (Some(iface), Some(op)) = (text(INTERFACE), text(OPERATION)) else {
        return Err(left_out("it names no operation to invoke".to_string())
            .hint(format!(
                "give the policy (its policy template) the properties {INTERFACE} and {OPERATION}: an interface and operation of the node's type"
            )));
    };
    let found = node
        .interfaces
        .iter()
        .find(|i| i.name.trim_end_matches('/') == iface.trim_end_matches('/'))
        .and_then(|i| i.operation(&op).map(|o| (i, o)));
    let Some((interface, operation)) = found else {
        let known: Vec<String> = node
            .interfaces
            .iter()
            .map(|i| {
                let ops: Vec<String> = i
                    .operations
                    .iter()
                    .map(|o| format!("`{}`", o.name))
                    .collect();
                format!("`{}` ({})", i.name, ops.join(", "))
            })
            .collect();
        return Err(left_out(format!(
            "the type of `{}` has no operation `{op}` in interface `{iface}`",
            node.id
        ))
        .note(if known.is_empty() {
            "the type has no operations".to_string()
        } else {
            format!("its interfaces: {}", known.join("; "))
        })
        .hint(format!(
            "set {INTERFACE} and {OPERATION} to an interface and operation of the node's type"
        )));
    };
    if operation.implementation.is_none() {
        return Err(left_out(format!(
            "operation `{op}` of interface `{iface}` has no implementation artifact"
        ))
        .hint("give the operation an implementation artifact in the type's implementation"));
    }
    let inputs = object(policy, &node.id, INPUTS)?;
    let expected = object(policy, &node.id, EXPECTED)?;
    let resolve = match text(RESOLVE) {
        None => None,
        Some(id) => Some(topology.node_by_id(&id).ok_or_else(|| {
            Diagnostic::error(
                codes::TEST_POLICY_INVALID,
                format!(
                    "test policy `{}` of `{}`: {RESOLVE} names `{id}`, which is no node template",
                    policy.name, node.id
                ),
            )
            .at_opt(policy.origin.clone())
            .hint(format!(
                "set {RESOLVE} to the id of the node template whose properties supply the inputs, or leave it out"
            ))
        })?),
    };
    Ok(PolicyTest {
        policy,
        interface,
        operation,
        inputs,
        expected,
        resolve,
    })
}

/// A property that holds a JSON object of strings (as text, or in YAML as
/// a map of scalars); absent or empty is no entries.
fn object(policy: &Policy, node: &str, key: &str) -> Result<Vec<(String, String)>, Diagnostic> {
    let bad = |what: String| {
        Diagnostic::error(
            codes::TEST_POLICY_INVALID,
            format!(
                "test policy `{}` of `{node}`: {key} is {what}, not a JSON object of strings",
                policy.name
            ),
        )
        .at_opt(policy.origin.clone())
        .hint("write it as a JSON object whose values are strings, e.g. {\"name\": \"value\"}")
    };
    match policy.properties.get(key) {
        None | Some(Value::Null) => Ok(Vec::new()),
        Some(Value::Map(m)) => m
            .iter()
            .map(|(k, v)| match v {
                Value::Scalar(s) => Ok((k.clone(), s.clone())),
                _ => Err(bad(format!("a map whose entry `{k}` is not a string"))),
            })
            .collect(),
        Some(Value::Scalar(s)) if s.trim().is_empty() => Ok(Vec::new()),
        Some(Value::Scalar(s)) => match serde_json::from_str::<serde_json::Value>(s) {
            Ok(serde_json::Value::Object(o)) => o
                .into_iter()
                .map(|(k, v)| match v {
                    serde_json::Value::String(s) => Ok((k, s)),
                    other => Err(bad(format!("an object whose entry `{k}` is {other}"))),
                })
                .collect(),
            Ok(other) => Err(bad(format!("`{other}`"))),
            Err(e) => Err(bad(format!("not JSON ({e})"))),
        },
        Some(_) => Err(bad("a list or a function".to_string())),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use indexmap::IndexMap;

    fn policy(key: &str, value: Value) -> Policy {
        Policy {
            name: "t".into(),
            types: vec![OPERATION_TEST.into()],
            targets: Vec::new(),
            properties: IndexMap::from([(key.to_string(), value)]),
            metadata: Vec::new(),
            origin: None,
        }
    }

    #[test]
    fn objects_of_strings_are_read_and_anything_else_is_an_error() {
        let n = "app";
        let ok = policy(INPUTS, Value::Scalar(r#"{"a": "1", "b": "x"}"#.into()));
        assert_eq!(
            object(&ok, n, INPUTS).unwrap(),
            [("a".to_string(), "1".to_string()), ("b".into(), "x".into())]
        );
        for (text, what) in [
            (r#"{"a": 1}"#, "an object whose entry `a` is 1"),
            ("[1]", "`[1]`"),
            ("{a", "not JSON"),
        ] {
            let p = policy(EXPECTED, Value::Scalar(text.into()));
            let d = object(&p, n, EXPECTED).unwrap_err();
            assert_eq!(d.code, codes::TEST_POLICY_INVALID);
            assert!(d.message.contains(what), "{}", d.message);
        }
        assert!(
            object(&policy(INPUTS, Value::Null), n, INPUTS)
                .unwrap()
                .is_empty()
        );
        // In YAML the object may be written as a map of strings.
        let map = |v: Value| Value::Map(Box::new(IndexMap::from([("a".to_string(), v)])));
        let yaml = policy(INPUTS, map(Value::Scalar("1".into())));
        assert_eq!(
            object(&yaml, n, INPUTS).unwrap(),
            [("a".to_string(), "1".to_string())]
        );
        let nested = policy(INPUTS, map(Value::List(Vec::new())));
        let d = object(&nested, n, INPUTS).unwrap_err();
        assert!(
            d.message.contains("a map whose entry `a` is not a string"),
            "{}",
            d.message
        );
    }
}
