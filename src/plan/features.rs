//! Management features of a topology (anchor-opentosca.md §2): which nodes
//! can save and restore their state, and which carry tests. The plans of
//! these features are made only where some node supports them; where one
//! is asked for and none does, [`missing`] says what is missing.
//!
//! In: a topology and a node. Out: whether the node supports a feature,
//! with the operations that carry it out, or why it does not.

use crate::diagnostics::Severity;
use crate::model::{Interface, NodeId, Operation, Topology};

use super::PlanKind;

/// The state interface: `freeze` saves a node's state, `defrost` restores it.
pub(crate) const STATE_INTERFACE: &str = "http://opentosca.org/interfaces/state";
/// The interface whose operations are tests.
pub(crate) const TESTS_INTERFACE: &str = "http://opentosca.org/interfaces/tests";
/// The operation that saves a node's state.
pub(crate) const FREEZE: &str = "freeze";
/// The operation that restores a node's state.
pub(crate) const DEFROST: &str = "defrost";
/// The input of `freeze` that says where the state goes.
pub(crate) const STATE_STORE_INPUT: &str = "StoreStateServiceEndpoint";
/// The interface of a node whose software can be updated in place
/// (OpenTOSCA's name, matched as the last segment of the interface name).
pub(crate) const UPDATE_INTERFACE: &str = "UpdateManagementInterface";
/// The operation that updates a node.
pub(crate) const UPDATE: &str = "update";
/// Policy: the node holds state worth keeping.
pub(crate) const STATEFUL: &str = "StatefulComponent";
/// Policy: the node's state can be saved and restored.
pub(crate) const FREEZABLE: &str = "FreezableComponent";

/// Whether `interface` is the state interface (a trailing `/` aside).
fn is_state(interface: &Interface) -> bool {
    interface.name.trim_end_matches('/') == STATE_INTERFACE
}

/// Whether `interface` holds tests: OpenTOSCA's `…/interfaces/tests` (the
/// corpus) or `…/interfaces/test` (the plan builder's spelling).
pub(crate) fn is_tests(interface: &Interface) -> bool {
    let name = interface.name.trim_end_matches('/');
    name == TESTS_INTERFACE || name == "http://opentosca.org/interfaces/test"
}

/// An operation of the node's state interface.
pub(crate) fn state_operation<'t>(
    topology: &'t Topology,
    n: NodeId,
    name: &str,
) -> Option<(&'t Interface, &'t Operation)> {
    topology
        .node(n)
        .interfaces
        .iter()
        .filter(|i| is_state(i))
        .find_map(|i| i.operation(name).map(|o| (i, o)))
}

/// Whether a policy of type `local` applies to the node. Policy types are
/// matched by local name: OpenTOSCA's freeze and update plans disagree on
/// their namespace (`…/management/features/policytypes` and
/// `…/policytypes`, anchor §8), and the corpus uses both.
pub(crate) fn has_policy(topology: &Topology, n: NodeId, local: &str) -> bool {
    topology.policies.iter().any(|p| {
        p.targets.contains(&crate::model::PolicyTarget::Node(n)) && p.has_type_named(local)
    })
}

/// The node's `freeze`, if it can save its state: implemented, with the
/// state-storage input.
pub(crate) fn saves_state(
    topology: &Topology,
    n: NodeId,
) -> Result<(&Interface, &Operation), String> {
    let id = &topology.node(n).id;
    let Some((i, o)) = state_operation(topology, n, FREEZE) else {
        return Err(format!(
            "`{id}` has no operation `{FREEZE}` of interface `{STATE_INTERFACE}`"
        ));
    };
    if !o.inputs.iter().any(|p| &*p.name == STATE_STORE_INPUT) {
        return Err(format!(
            "the `{FREEZE}` operation of `{id}` has no input `{STATE_STORE_INPUT}` to say where the state goes"
        ));
    }
    if o.implementation.is_none() {
        return Err(format!(
            "the `{FREEZE}` operation of `{id}` has no implementation artifact"
        ));
    }
    Ok((i, o))
}

/// Whether a freeze plan saves the node's state before terminating it:
/// it is declared freezable and can save its state.
pub(crate) fn freezable(topology: &Topology, n: NodeId) -> Result<(), String> {
    if !has_policy(topology, n, FREEZABLE) {
        return Err(format!(
            "`{}` has no {FREEZABLE} policy",
            topology.node(n).id
        ));
    }
    saves_state(topology, n).map(|_| ())
}

/// The node's `defrost`, if a defrost plan gives it its state back: it is
/// freezable, and `defrost` is implemented.
pub(crate) fn defrostable(
    topology: &Topology,
    n: NodeId,
) -> Result<(&Interface, &Operation), String> {
    freezable(topology, n)?;
    match state_operation(topology, n, DEFROST) {
        Some((i, o)) if o.implementation.is_some() => Ok((i, o)),
        Some(_) => Err(format!(
            "the `{DEFROST}` operation of `{}` has no implementation artifact",
            topology.node(n).id
        )),
        None => Err(format!(
            "`{}` has no operation `{DEFROST}` of interface `{STATE_INTERFACE}`",
            topology.node(n).id
        )),
    }
}

/// The node's `update`, if it can be updated in place.
pub(crate) fn update_operation(
    topology: &Topology,
    n: NodeId,
) -> Result<(&Interface, &Operation), String> {
    let id = &topology.node(n).id;
    let found = topology
        .node(n)
        .interfaces
        .iter()
        .filter(|i| i.name.trim_end_matches('/').rsplit('/').next() == Some(UPDATE_INTERFACE))
        .find_map(|i| i.operation(UPDATE).map(|o| (i, o)));
    match found {
        Some((i, o)) if o.implementation.is_some() => Ok((i, o)),
        Some(_) => Err(format!(
            "the `{UPDATE}` operation of `{id}` has no implementation artifact"
        )),
        None => Err(format!(
            "`{id}` has no operation `{UPDATE}` of an interface `{UPDATE_INTERFACE}`"
        )),
    }
}

/// The nodes that sit on `n`: hosted on it, deployed on it or depending
/// on it, directly or through others (ConnectsTo does not count), nearest
/// first.
pub(crate) fn above(topology: &Topology, n: NodeId) -> Vec<NodeId> {
    let mut out = Vec::new();
    let mut seen = vec![false; topology.nodes.len()];
    seen[n.0 as usize] = true;
    let mut frontier = vec![n];
    while !frontier.is_empty() {
        let mut next = Vec::new();
        for cur in frontier {
            for &r in topology.incoming(cur) {
                let rel = topology.relationship(r);
                if rel.kind.is_infrastructure()
                    && !std::mem::replace(&mut seen[rel.source.0 as usize], true)
                {
                    out.push(rel.source);
                    next.push(rel.source);
                }
            }
        }
        frontier = next;
    }
    out
}

/// The nodes an update plan updates: those that can be updated and do not
/// sit on another such node (which updates them with what it stops and
/// starts: OpenTOSCA updates the bottom-most updatable node).
pub(crate) fn updated(topology: &Topology) -> Vec<NodeId> {
    let updatable: Vec<NodeId> = topology
        .node_ids()
        .filter(|&n| update_operation(topology, n).is_ok())
        .collect();
    let mut on_another = vec![false; topology.nodes.len()];
    for &u in &updatable {
        for a in above(topology, u) {
            on_another[a.0 as usize] = true;
        }
    }
    updatable
        .into_iter()
        .filter(|u| !on_another[u.0 as usize])
        .collect()
}

/// The node's implemented test operations, in declaration order.
pub(crate) fn tests(topology: &Topology, n: NodeId) -> Vec<(&Interface, &Operation)> {
    topology
        .node(n)
        .interfaces
        .iter()
        .filter(|i| is_tests(i))
        .flat_map(|i| i.operations.iter().map(move |o| (i, o)))
        .filter(|(_, o)| o.implementation.is_some())
        .collect()
}

/// The output of a test operation that says whether it passed.
pub(crate) const TEST_RESULT: &str = "Result";
/// What a test's `Result` must not be: the words the corpus's test
/// scripts (and common usage) print when a test fails. Anything else
/// passes: the management bus reports a test whose script fails as a
/// fault, which fails the plan anyway.
pub(crate) const TEST_FAILED: [&str; 6] =
    ["FAILED", "failed", "FAILURE", "false", "ERROR", "error"];

/// The property a test plan keeps the output `output` of test operation
/// `operation` in (a test plan's topology has one per test output).
pub(crate) fn result_property(operation: &str, output: &str) -> String {
    format!("{operation}_{output}")
}

/// Whether the node takes part in a plan of `kind` (freeze: frozen rather
/// than only terminated; defrost: defrosted; backup: backed up; test: tested).
pub(crate) fn supports(topology: &Topology, n: NodeId, kind: &PlanKind) -> bool {
    match kind {
        PlanKind::Freeze => freezable(topology, n).is_ok(),
        PlanKind::Defrost => defrostable(topology, n).is_ok(),
        PlanKind::Backup => saves_state(topology, n).is_ok(),
        // A test policy counts where it can run, and where it is malformed
        // (E0513): the plan is made, so the error is reported rather than
        // the test missing silently. One left out (W0512) does not count.
        PlanKind::Test => {
            !tests(topology, n).is_empty()
                || super::test_policies::policy_tests(topology, n)
                    .iter()
                    .any(|t| match t {
                        Ok(_) => true,
                        Err(d) => d.severity == Severity::Error,
                    })
        }
        PlanKind::Update => update_operation(topology, n).is_ok(),
        _ => true,
    }
}

/// Whether the topology supports a plan of `kind` (some node does).
pub(crate) fn supported(topology: &Topology, kind: &PlanKind) -> bool {
    topology.node_ids().any(|n| supports(topology, n, kind))
}

/// Why no plan of `kind` can be made: what such a plan needs, and, for the
/// nodes that come closest, what they lack.
pub(crate) fn missing(topology: &Topology, kind: &PlanKind) -> String {
    let needs = match kind {
        PlanKind::Freeze => format!(
            "a freeze plan needs a node with the {FREEZABLE} policy whose type has an implemented operation `{FREEZE}` with input `{STATE_STORE_INPUT}` in interface `{STATE_INTERFACE}`"
        ),
        PlanKind::Defrost => format!(
            "a defrost plan needs a freezable node (the {FREEZABLE} policy, `{FREEZE}` with input `{STATE_STORE_INPUT}`) whose type also implements `{DEFROST}` in interface `{STATE_INTERFACE}`"
        ),
        PlanKind::Backup => format!(
            "a backup plan needs a node whose type has an implemented operation `{FREEZE}` with input `{STATE_STORE_INPUT}` in interface `{STATE_INTERFACE}`"
        ),
        PlanKind::Test => format!(
            "a test plan needs a node whose type has an implemented operation in interface `{TESTS_INTERFACE}`, or a node with a {} policy that names an implemented operation of its type",
            super::test_policies::OPERATION_TEST
        ),
        PlanKind::Update => format!(
            "an update plan needs a node whose type has an implemented operation `{UPDATE}` in an interface `{UPDATE_INTERFACE}`"
        ),
        other => return format!("the {} plan needs nothing special", other.slug()),
    };
    // The nodes that come closest: those with a policy or an interface of
    // the feature, and what each lacks.
    let mut near: Vec<String> = Vec::new();
    for n in topology.node_ids() {
        let node = topology.node(n);
        let relevant = match kind {
            PlanKind::Test => {
                node.interfaces.iter().any(is_tests)
                    || !super::test_policies::policy_tests(topology, n).is_empty()
                    || !super::test_policies::container_tests(topology, n).is_empty()
            }
            PlanKind::Update => node
                .interfaces
                .iter()
                .any(|i| i.name.ends_with(UPDATE_INTERFACE)),
            _ => {
                has_policy(topology, n, FREEZABLE)
                    || has_policy(topology, n, STATEFUL)
                    || node.interfaces.iter().any(is_state)
            }
        };
        if !relevant {
            continue;
        }
        let why = match kind {
            PlanKind::Freeze => freezable(topology, n).err(),
            PlanKind::Defrost => defrostable(topology, n).err(),
            PlanKind::Backup => saves_state(topology, n).err(),
            PlanKind::Update => update_operation(topology, n).err(),
            _ => {
                if node.interfaces.iter().any(is_tests) {
                    near.push(format!(
                        "the test operations of `{}` have no implementation artifacts",
                        node.id
                    ));
                }
                // Why each test policy cannot run: the diagnostic's message.
                near.extend(
                    super::test_policies::policy_tests(topology, n)
                        .into_iter()
                        .filter_map(|t| t.err().map(|d| d.message)),
                );
                near.extend(
                    super::test_policies::container_tests(topology, n)
                        .into_iter()
                        .map(|(p, kind)| {
                            format!(
                                "test policy `{}` of `{}` is of type {kind}, which the OpenTOSCA container runs, not a plan",
                                p.name, node.id
                            )
                        }),
                );
                None
            }
        };
        near.extend(why);
    }
    if near.is_empty() {
        format!("{needs}, and no node has the policy or the interface")
    } else {
        format!("{needs}; {}", near.join("; "))
    }
}
