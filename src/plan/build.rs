//! The build plan: one provisioning activity per node and relationship
//! template, ordered by the relationships (see [`OrderingStyle`]).

use foldhash::HashMap;

use super::order;
use super::rules::{OrderingRules, OrderingStyle, UnknownOrdering};
use super::{AbstractPlan, Activity, ActivityKind, Edge, PlanKind, Reason};
use crate::diagnostics::{Diagnostic, codes};
use crate::model::{NodeId, RelId, RelKind, TemplateRef, Topology};
use crate::names::{Unique, ncname};

/// Derive the build plan of `topology`.
pub fn build_plan(topology: &Topology, rules: &OrderingRules) -> Result<AbstractPlan, Diagnostic> {
    let mut unique = Unique::new();
    let mut activities = Vec::with_capacity(topology.nodes.len() + topology.relationships.len());
    for n in topology.node_ids() {
        activities.push(Activity {
            id: unique.name(format!("{}_provision", ncname(&topology.node(n).id))),
            template: TemplateRef::Node(n),
            kind: ActivityKind::Provision,
        });
    }
    for r in topology.relationship_ids() {
        activities.push(Activity {
            id: unique.name(format!(
                "{}_provision",
                ncname(&topology.relationship(r).id)
            )),
            template: TemplateRef::Relationship(r),
            kind: ActivityKind::Provision,
        });
    }
    let node_at = |n: NodeId| n.0 as usize;
    let rel_at = |r: RelId| topology.nodes.len() + r.0 as usize;
    // Collected, then sorted once: the same set in the same order as a
    // BTreeSet's, without a tree insert per edge.
    let mut edges = Vec::with_capacity(3 * topology.relationships.len());
    for r in topology.relationship_ids() {
        let rel = topology.relationship(r);
        let (s, t, ra) = (node_at(rel.source), node_at(rel.target), rel_at(r));
        let reason = Reason::Relationship(r);
        let after_both = matches!(rel.kind, RelKind::ConnectsTo)
            || (rel.kind == RelKind::Other && rules.unknown == UnknownOrdering::Ignore);
        let pairs = match (rules.style, after_both) {
            // The relationship runs after both ends: an unknown kind with no
            // order between the ends, or OpenTOSCA's ConnectsTo.
            (_, true) if rel.kind == RelKind::Other || rules.style == OrderingStyle::OpenTosca => {
                vec![(s, ra), (t, ra)]
            }
            (OrderingStyle::OpenTosca, _) => vec![(t, ra), (ra, s)],
            // 1.3 §7.2.2: the target is started before the source is
            // created. §7.2 does not cover AttachesTo (nor RoutesTo, which
            // derives from ConnectsTo); it is ordered the same way, so that
            // Configure operations woven into the source's configure step
            // find the target up (digest-yaml §11.4 R5).
            (OrderingStyle::SimpleProfile, _) => vec![(t, s), (s, ra), (t, ra)],
        };
        for (from, to) in pairs {
            edges.push(Edge { from, to, reason });
        }
    }
    sort_unique(&mut edges);
    // Sorted once for both orders the same-host rule makes.
    let by_id = by_id(&activities);
    if rules.same_host_serial {
        let ids: Vec<&str> = activities.iter().map(|a| a.id.as_str()).collect();
        let order = order::topological_order_by(&ids, &by_id, &edges)
            .map_err(|cycle| cycle_error(topology, &activities, &cycle, &PlanKind::Build))?;
        let mut last_on_host: HashMap<NodeId, usize> = HashMap::default();
        for i in order {
            for host in hosts_of(topology, &activities[i]) {
                if let Some(prev) = last_on_host.insert(host, i) {
                    edges.push(Edge {
                        from: prev,
                        to: i,
                        reason: Reason::SameHost(host),
                    });
                }
            }
        }
        sort_unique(&mut edges);
    }
    finish_by(PlanKind::Build, activities, edges, topology, &by_id)
}

/// Sort `edges` and drop repeats, as a set would hold them.
fn sort_unique(edges: &mut Vec<Edge>) {
    edges.sort_unstable();
    edges.dedup();
}

/// The hosts an activity runs operations on, for the same-host rule: a
/// hosted node's bottom host (a host itself is not serialised with what
/// it hosts: those already wait for it); a relationship that implements
/// operations its own activity runs (YAML `add_target`, `remove_source`,
/// ...), the bottom hosts of both ends.
fn hosts_of(topology: &Topology, activity: &Activity) -> Vec<NodeId> {
    match activity.template {
        TemplateRef::Node(n) => {
            let host = topology.bottom_host(n);
            if host == n { Vec::new() } else { vec![host] }
        }
        TemplateRef::Relationship(r) => {
            let rel = topology.relationship(r);
            // pre/post_configure run inside the ends' own activities.
            let implemented = rel
                .interfaces
                .iter()
                .flat_map(|i| &i.operations)
                .filter(|o| {
                    !o.name.starts_with("pre_configure_") && !o.name.starts_with("post_configure_")
                })
                .any(|o| o.implementation.is_some());
            if !implemented {
                return Vec::new();
            }
            let mut hosts = vec![topology.bottom_host(rel.source)];
            let t = topology.bottom_host(rel.target);
            if !hosts.contains(&t) {
                hosts.push(t);
            }
            hosts
        }
    }
}

/// Reorder activities topologically (ties by id), remap and sort edges.
pub(super) fn finish(
    kind: PlanKind,
    activities: Vec<Activity>,
    edges: Vec<Edge>,
    topology: &Topology,
) -> Result<AbstractPlan, Diagnostic> {
    let by_id = by_id(&activities);
    finish_by(kind, activities, edges, topology, &by_id)
}

/// The indices of `activities` ordered by id.
fn by_id(activities: &[Activity]) -> Vec<usize> {
    let ids: Vec<&str> = activities.iter().map(|a| a.id.as_str()).collect();
    order::by_id(&ids)
}

/// [`finish`], with the activities already sorted by id.
fn finish_by(
    kind: PlanKind,
    activities: Vec<Activity>,
    edges: Vec<Edge>,
    topology: &Topology,
    by_id: &[usize],
) -> Result<AbstractPlan, Diagnostic> {
    let ids: Vec<&str> = activities.iter().map(|a| a.id.as_str()).collect();
    let order = order::topological_order_by(&ids, by_id, &edges)
        .map_err(|cycle| cycle_error(topology, &activities, &cycle, &kind))?;
    let mut position = vec![0; activities.len()];
    for (pos, &i) in order.iter().enumerate() {
        position[i] = pos;
    }
    let mut slots: Vec<Option<Activity>> = activities.into_iter().map(Some).collect();
    let activities: Vec<Activity> = order.iter().map(|&i| slots[i].take().unwrap()).collect();
    let mut edges: Vec<Edge> = edges
        .into_iter()
        .map(|e| Edge {
            from: position[e.from],
            to: position[e.to],
            reason: e.reason,
        })
        .collect();
    edges.sort();
    edges.dedup_by(|a, b| a.from == b.from && a.to == b.to);
    Ok(AbstractPlan {
        kind,
        activities,
        edges,
    })
}

/// The error for a cycle: names every template on it and what links them.
pub(super) fn cycle_error(
    topology: &Topology,
    activities: &[Activity],
    cycle: &[Edge],
    kind: &PlanKind,
) -> Diagnostic {
    let name = |i: usize| topology.template_id(activities[i].template).to_string();
    let mut path: Vec<String> = cycle
        .iter()
        .map(|e| format!("`{}`", name(e.from)))
        .collect();
    if let Some(first) = cycle.first() {
        path.push(format!("`{}`", name(first.from)));
    }
    let mut d = Diagnostic::error(
        codes::PLAN_CYCLE,
        format!(
            "the {} plan cannot be ordered: {}",
            kind.slug(),
            path.join(" → ")
        ),
    );
    let mut located = false;
    for e in cycle {
        let why = match e.reason {
            Reason::Relationship(r) => {
                let rel = topology.relationship(r);
                if !located {
                    d = d.at_opt(rel.origin.clone());
                    located = true;
                }
                format!(
                    "{} relationship `{}` from `{}` to `{}`",
                    rel.kind,
                    rel.id,
                    topology.node(rel.source).id,
                    topology.node(rel.target).id
                )
            }
            Reason::SameHost(h) => format!("both run on host `{}`", topology.node(h).id),
            Reason::Selection => "selection before provisioning".to_string(),
            Reason::Step => "the workflow runs them in this order".to_string(),
            Reason::OnFailure => "the workflow runs the second if the first fails".to_string(),
            Reason::Reconnect(n) => format!(
                "the first detaches `{}`, the second attaches it",
                topology.node(n).id
            ),
        };
        d = d.note(format!("`{}` before `{}`: {why}", name(e.from), name(e.to)));
    }
    d.hint("a template cannot (indirectly) be hosted on or depend on itself; remove or reverse one of these relationships")
}
