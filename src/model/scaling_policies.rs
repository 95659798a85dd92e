//! Scale-out regions from TOSCA YAML `tosca.policies.Scaling` policies
//! (and their subtypes), one region per policy, named after it.
//!
//! In: the lowered topology with its policies and groups. Out: the
//! [`ScalingRegion`]s that `plan::scale_out` turns into plans, and the
//! diagnostics of the policies' `selection` metadata.
//!
//! TOSCA YAML says which nodes scale, not what else a new instance needs,
//! so the region is derived from the topology:
//! - the policy's target nodes and the members of its target groups;
//! - every node hosted on, deployed on or attached to a region node,
//!   transitively (the software stack of a new server scales with it, and
//!   so does the storage attached to it);
//! - every relationship out of a region node, and every ConnectsTo into
//!   one (a client of the scaled node is connected to the new instance).
//!
//! The nodes at the other end of relationships that leave the region are
//! its border: the plan selects an existing instance of each. The strategy
//! comes from the policy's `selection` metadata, written like OpenTOSCA's
//! tags (`FirstInstance[db], WorkloadBased(load)[server]`); a border node
//! without one is selected with `FirstInstance`, with a warning that says
//! how to choose another.

use std::collections::BTreeSet;

use super::regions::{list_items, parse_selection};
use super::{NodeId, Policy, PolicyTarget, RelId, RelKind, ScalingRegion, Selection, Topology};
use crate::diagnostics::{Diagnostic, Diagnostics, codes};

/// The policy type whose policies (and subtypes') define regions.
const SCALING: &str = "tosca.policies.Scaling";
/// The metadata key that gives the border nodes' selection strategies.
const SELECTION_KEY: &str = "selection";

/// One region per Scaling policy, in declaration order.
pub fn regions_from_policies(topology: &Topology) -> (Vec<ScalingRegion>, Diagnostics) {
    let mut diags = Diagnostics::new();
    let regions = topology
        .policies
        .iter()
        .filter(|p| p.is_a(SCALING))
        .filter_map(|p| region(topology, p, &mut diags))
        .collect();
    (regions, diags)
}

fn region(topology: &Topology, policy: &Policy, diags: &mut Diagnostics) -> Option<ScalingRegion> {
    let name = &policy.name;
    let mut inside: BTreeSet<NodeId> = BTreeSet::new();
    for target in &policy.targets {
        match *target {
            PolicyTarget::Node(n) => {
                inside.insert(n);
            }
            PolicyTarget::Group(g) => inside.extend(topology.groups[g].members.iter().copied()),
        }
    }
    if inside.is_empty() {
        diags.push(
            Diagnostic::error(
                codes::REGION_INVALID,
                format!(
                    "scaling policy `{name}` has no target nodes, so there is nothing to scale out"
                ),
            )
            .at_opt(policy.origin.clone())
            .hint("name the nodes or groups that scale in `targets`"),
        );
        return None;
    }
    // What lives on a region node scales with it.
    let mut frontier: Vec<NodeId> = inside.iter().copied().collect();
    while let Some(n) = frontier.pop() {
        for &r in topology.incoming(n) {
            let rel = topology.relationship(r);
            let carried = matches!(
                rel.kind,
                RelKind::HostedOn | RelKind::DeployedOn | RelKind::AttachesTo
            );
            if carried && inside.insert(rel.source) {
                frontier.push(rel.source);
            }
        }
    }
    let mut relationships: BTreeSet<RelId> = BTreeSet::new();
    let mut border: BTreeSet<NodeId> = BTreeSet::new();
    for &n in &inside {
        for &r in topology.outgoing(n) {
            relationships.insert(r);
            let target = topology.relationship(r).target;
            if !inside.contains(&target) {
                border.insert(target);
            }
        }
        for &r in topology.incoming(n) {
            let rel = topology.relationship(r);
            if rel.kind == RelKind::ConnectsTo && !inside.contains(&rel.source) {
                relationships.insert(r);
                border.insert(rel.source);
            }
        }
    }
    let before = diags.error_count();
    let mut selections = chosen(topology, policy, &inside, &border, diags);
    if diags.error_count() > before {
        return None;
    }
    for &n in &border {
        if selections.iter().any(|s| s.node == n) {
            continue;
        }
        let id = &topology.node(n).id;
        diags.push(
            Diagnostic::warning(
                codes::W_REGION_DEFAULT_SELECTION,
                format!(
                    "scaling policy `{name}` reaches `{id}` outside its region; its first instance is used (FirstInstance)"
                ),
            )
            .at_opt(policy.origin.clone())
            .hint(format!(
                "choose the instance with the policy's metadata, e.g. `{SELECTION_KEY}: \"UserProvided[{id}]\"` or `\"WorkloadBased(<property>)[{id}]\"`"
            )),
        );
        selections.push(Selection {
            node: n,
            strategy: "FirstInstance".into(),
            argument: None,
        });
    }
    selections.sort_by_key(|s| s.node);
    Some(ScalingRegion {
        name: name.clone(),
        nodes: inside.into_iter().collect(),
        relationships: relationships.into_iter().collect(),
        selections,
        origin: policy.origin.clone(),
    })
}

/// The strategies the policy's `selection` metadata gives.
fn chosen(
    topology: &Topology,
    policy: &Policy,
    inside: &BTreeSet<NodeId>,
    border: &BTreeSet<NodeId>,
    diags: &mut Diagnostics,
) -> Vec<Selection> {
    let name = &policy.name;
    let mut selections: Vec<Selection> = Vec::new();
    let Some((_, value, at)) = policy.metadata.iter().find(|(k, _, _)| k == SELECTION_KEY) else {
        return selections;
    };
    let error = |message: String| Diagnostic::error(codes::REGION_INVALID, message).at(at.clone());
    for item in list_items(value) {
        let Some((strategy, argument, node)) = parse_selection(item) else {
            diags.push(
                error(format!(
                    "scaling policy `{name}`: `{item}` is not of the form `Strategy[node]` or `Strategy(argument)[node]`"
                ))
                .hint("e.g. `FirstInstance[db], WorkloadBased(load)[server]`"),
            );
            continue;
        };
        let Some(n) = topology.node_by_id(&node) else {
            diags.push(error(format!(
                "scaling policy `{name}` selects `{node}`, which is not a node template"
            )));
            continue;
        };
        if inside.contains(&n) {
            diags.push(error(format!(
                "scaling policy `{name}` selects `{node}`, which is inside the region it scales out"
            )));
        } else if !border.contains(&n) {
            let reached: Vec<&str> = border
                .iter()
                .map(|&b| topology.node(b).id.as_str())
                .collect();
            diags.push(
                error(format!(
                    "scaling policy `{name}` selects `{node}`, but no relationship of its region leads there"
                ))
                .hint(if reached.is_empty() {
                    "the region reaches no node outside it; remove the selection".to_string()
                } else {
                    format!("the region reaches {}", reached.join(", "))
                }),
            );
        } else if selections.iter().any(|s| s.node == n) {
            diags.push(error(format!(
                "scaling policy `{name}` gives `{node}` more than one selection strategy"
            )));
        } else {
            selections.push(Selection {
                node: n,
                strategy,
                argument,
            });
        }
    }
    selections
}
