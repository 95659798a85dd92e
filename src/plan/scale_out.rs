//! Scale-out plans (seed 004; anchor-opentosca.md §2): provision one more
//! instance of a region. First each border node's instance is picked by its
//! selection strategy (strategic selection), then the instances below it
//! are found by following relationship instances down its hosting and
//! dependency paths (recursive selection); then the region's templates are
//! provisioned in build order, the relationships that cross the border
//! after the selections they need.

use std::collections::{BTreeSet, HashMap, HashSet};

use super::build::finish;
use super::{AbstractPlan, Activity, ActivityKind, Edge, PlanKind, Reason, Strategy};
use crate::diagnostics::{Diagnostic, Diagnostics, codes};
use crate::model::{NodeId, RelId, RelKind, ScalingRegion, TemplateRef, Topology};
use crate::names::{Unique, ncname};

/// Derive the scale-out plan of `region`.
pub fn scale_out_plan(
    topology: &Topology,
    region: &ScalingRegion,
) -> Result<AbstractPlan, Diagnostics> {
    let mut diags = Diagnostics::new();
    let inside: HashSet<NodeId> = region.nodes.iter().copied().collect();
    let selected: HashSet<NodeId> = region.selections.iter().map(|s| s.node).collect();
    let error = |message: String| {
        Diagnostic::error(codes::REGION_INVALID, message).at_opt(region.origin.clone())
    };
    let name = &region.name;
    let mut seen = HashSet::new();
    for s in &region.selections {
        let id = &topology.node(s.node).id;
        if inside.contains(&s.node) {
            diags.push(error(format!(
                "scaling plan `{name}` selects `{id}`, which is inside the region it provisions"
            )));
        }
        if !seen.insert(s.node) {
            diags.push(error(format!(
                "scaling plan `{name}` gives `{id}` more than one selection strategy"
            )));
        }
    }
    // Every relationship that crosses the border must end at a node whose
    // instance is selected (OpenTOSCA computes this and ignores it).
    for &r in &region.relationships {
        let rel = topology.relationship(r);
        let (s_in, t_in) = (inside.contains(&rel.source), inside.contains(&rel.target));
        let outside = match (s_in, t_in) {
            (true, true) => continue,
            (true, false) => rel.target,
            (false, true) => rel.source,
            (false, false) => {
                diags.push(error(format!(
                    "scaling plan `{name}` lists relationship `{}`, but neither `{}` nor `{}` is in the region",
                    rel.id,
                    topology.node(rel.source).id,
                    topology.node(rel.target).id
                )));
                continue;
            }
        };
        if !selected.contains(&outside) {
            diags.push(
                error(format!(
                    "relationship `{}` of scaling plan `{name}` crosses the region's border to `{}`, which has no selection strategy",
                    rel.id,
                    topology.node(outside).id
                ))
                .hint(format!("add a strategy for it, e.g. FirstInstance[{}], or put it into the region", topology.node(outside).id)),
            );
        }
    }
    // A new instance must be placed: its outgoing hosting and dependency
    // relationships have to be part of the region.
    let listed: HashSet<RelId> = region.relationships.iter().copied().collect();
    for &n in &region.nodes {
        for &r in topology.outgoing(n) {
            let rel = topology.relationship(r);
            if rel.kind.is_infrastructure() && !listed.contains(&r) {
                diags.push(error(format!(
                    "`{}` is in scaling plan `{name}`, but its {} relationship `{}` to `{}` is not",
                    topology.node(n).id,
                    rel.kind,
                    rel.id,
                    topology.node(rel.target).id
                )));
            }
        }
    }
    if diags.has_errors() {
        return Err(diags);
    }

    let mut unique = Unique::new();
    let mut activities: Vec<Activity> = Vec::new();
    let mut edges: BTreeSet<Edge> = BTreeSet::new();
    // Strategic selections, then recursive ones down every infrastructure path.
    let mut leaves_of: HashMap<NodeId, Vec<usize>> = HashMap::new();
    let mut followed: HashSet<RelId> = HashSet::new();
    for s in &region.selections {
        let sel = activities.len();
        activities.push(Activity {
            id: unique.name(format!("{}_select", ncname(&topology.node(s.node).id))),
            template: TemplateRef::Node(s.node),
            kind: ActivityKind::StrategicSelection(Box::new(Strategy {
                strategy: s.strategy.clone(),
                argument: s.argument.clone(),
            })),
        });
        let mut leaves = Vec::new();
        let mut frontier = vec![(s.node, sel)];
        while let Some((n, from)) = frontier.pop() {
            let mut descended = false;
            for &r in topology.outgoing(n) {
                let rel = topology.relationship(r);
                if !rel.kind.is_infrastructure()
                    || selected.contains(&rel.target)
                    || inside.contains(&rel.target)
                {
                    continue;
                }
                if !followed.insert(r) {
                    continue;
                }
                let a = activities.len();
                activities.push(Activity {
                    id: unique.name(format!("{}_follow", ncname(&rel.id))),
                    template: TemplateRef::Relationship(r),
                    kind: ActivityKind::RecursiveSelection,
                });
                edges.insert(Edge {
                    from,
                    to: a,
                    reason: Reason::Selection,
                });
                frontier.push((rel.target, a));
                descended = true;
            }
            if !descended {
                leaves.push(from);
            }
        }
        leaves_of.insert(s.node, leaves);
    }
    // The region, in build order. Its activities by template, so that
    // ordering stays linear in the region's size.
    let mut provision: HashMap<TemplateRef, usize> = HashMap::new();
    for &n in &region.nodes {
        provision.insert(TemplateRef::Node(n), activities.len());
        activities.push(Activity {
            id: unique.name(format!("{}_provision", ncname(&topology.node(n).id))),
            template: TemplateRef::Node(n),
            kind: ActivityKind::Provision,
        });
    }
    for &r in &region.relationships {
        provision.insert(TemplateRef::Relationship(r), activities.len());
        activities.push(Activity {
            id: unique.name(format!(
                "{}_provision",
                ncname(&topology.relationship(r).id)
            )),
            template: TemplateRef::Relationship(r),
            kind: ActivityKind::Provision,
        });
    }
    for &r in &region.relationships {
        let rel = topology.relationship(r);
        let reason = Reason::Relationship(r);
        let ra = provision[&TemplateRef::Relationship(r)];
        let end = |n: NodeId| {
            if inside.contains(&n) {
                vec![provision[&TemplateRef::Node(n)]]
            } else {
                leaves_of.get(&n).cloned().unwrap_or_default()
            }
        };
        let sources = end(rel.source);
        let targets = end(rel.target);
        match rel.kind {
            RelKind::ConnectsTo => {
                for a in sources.into_iter().chain(targets) {
                    edges.insert(Edge {
                        from: a,
                        to: ra,
                        reason,
                    });
                }
            }
            _ => {
                for t in targets {
                    edges.insert(Edge {
                        from: t,
                        to: ra,
                        reason,
                    });
                }
                if inside.contains(&rel.source) {
                    for s in sources {
                        edges.insert(Edge {
                            from: ra,
                            to: s,
                            reason,
                        });
                    }
                } else {
                    for s in sources {
                        edges.insert(Edge {
                            from: s,
                            to: ra,
                            reason,
                        });
                    }
                }
            }
        }
    }
    finish(
        PlanKind::ScaleOut(name.clone()),
        activities,
        edges.into_iter().collect(),
        topology,
    )
    .map_err(Diagnostics::from)
}
