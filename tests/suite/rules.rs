//! The TOSCA YAML 1.3 §7.2 weaving rules, checked on generated plans (used
//! for the specification's examples and the corpus).

use std::collections::BTreeSet;

use petgraph::graph::{DiGraph, NodeIndex};
use petgraph::visit::Dfs;

use toscanini::model::{TemplateRef, Topology};
use toscanini::plugins::ConcretePlan;

/// Edges as pairs of activity ids.
pub fn edge_ids(plan: &ConcretePlan) -> BTreeSet<(String, String)> {
    crate::support::plan_edges(&plan.plan)
}

/// `reach[a][b]`: a path from activity `a` to activity `b` (a search from
/// each activity with petgraph: O(n·(n + e)) rather than Floyd–Warshall's
/// O(n³)).
pub fn reachability(plan: &ConcretePlan) -> Vec<Vec<bool>> {
    let n = plan.plan.activities.len();
    let mut graph: DiGraph<(), ()> = DiGraph::with_capacity(n, plan.plan.edges.len());
    for _ in 0..n {
        graph.add_node(());
    }
    for e in &plan.plan.edges {
        graph.add_edge(NodeIndex::new(e.from), NodeIndex::new(e.to), ());
    }
    let mut reach = vec![vec![false; n]; n];
    let mut dfs = Dfs::empty(&graph);
    for (start, row) in reach.iter_mut().enumerate() {
        dfs.reset(&graph);
        dfs.move_to(NodeIndex::new(start));
        // The search yields `start` first; it reaches itself only through
        // a cycle, which a plan does not have.
        dfs.next(&graph);
        while let Some(x) = dfs.next(&graph) {
            row[x.index()] = true;
        }
    }
    reach
}

pub fn operations(plan: &ConcretePlan, i: usize) -> Vec<String> {
    plan.bodies[i]
        .steps
        .iter()
        .filter_map(|s| s.invocation())
        .map(|inv| inv.operation.to_string())
        .collect()
}

/// The §7.2 rules on a declarative build plan and its termination plan.
pub fn check_declarative(
    name: &str,
    t: &Topology,
    build: &ConcretePlan,
    termination: &ConcretePlan,
) {
    let reach = reachability(build);
    let at = |r: TemplateRef| build.plan.activity_of(r).unwrap();
    for r in t.relationship_ids() {
        let rel = t.relationship(r);
        let (s, tg, ra) = (
            at(TemplateRef::Node(rel.source)),
            at(TemplateRef::Node(rel.target)),
            at(TemplateRef::Relationship(r)),
        );
        assert!(
            reach[tg][s],
            "{name}: {} relationship `{}`: target `{}` is not started before source `{}` is created",
            rel.kind,
            rel.id,
            t.node(rel.target).id,
            t.node(rel.source).id
        );
        assert!(
            reach[s][ra] && reach[tg][ra],
            "{name}: `{}` runs before its ends",
            rel.id
        );
    }
    // §7.2.3.1: one activity at a time on a host.
    for a in t.node_ids() {
        for b in t.node_ids() {
            let (ha, hb) = (t.bottom_host(a), t.bottom_host(b));
            if a < b && ha == hb && ha != a && hb != b {
                let (ia, ib) = (at(TemplateRef::Node(a)), at(TemplateRef::Node(b)));
                assert!(
                    reach[ia][ib] || reach[ib][ia],
                    "{name}: `{}` and `{}` share host `{}` but may run at once",
                    t.node(a).id,
                    t.node(b).id,
                    t.node(ha).id
                );
            }
        }
    }
    // Per node: create → pre_configure → configure → post_configure → start.
    let rank = |op: &str| match op {
        "create" => Some(0),
        "pre_configure_source" | "pre_configure_target" => Some(1),
        "configure" => Some(2),
        "post_configure_source" | "post_configure_target" => Some(3),
        "start" => Some(4),
        _ => None,
    };
    for (i, a) in build.plan.activities.iter().enumerate() {
        let ops = operations(build, i);
        match a.template {
            TemplateRef::Node(_) => {
                let ranks: Vec<i32> = ops.iter().filter_map(|o| rank(o)).collect();
                assert!(
                    ranks.windows(2).all(|w| w[0] <= w[1]),
                    "{name}: `{}` runs {ops:?} out of order",
                    a.id
                );
                assert!(
                    !ops.iter().any(|o| o.starts_with("add_")),
                    "{name}: {}",
                    a.id
                );
            }
            TemplateRef::Relationship(_) => assert!(
                ops.iter().all(|o| o == "add_target" || o == "add_source"),
                "{name}: relationship activity `{}` runs {ops:?}",
                a.id
            ),
        }
    }
    for (i, a) in termination.plan.activities.iter().enumerate() {
        let ops = operations(termination, i);
        let allowed: &[&str] = match a.template {
            TemplateRef::Node(_) => &["stop", "delete"],
            TemplateRef::Relationship(_) => &["remove_target", "remove_source"],
        };
        assert!(
            ops.iter().all(|o| allowed.contains(&o.as_str())),
            "{name}: `{}` runs {ops:?} in the termination plan",
            a.id
        );
        let pos = |o: &str| ops.iter().position(|x| x == o);
        if let (Some(s), Some(d)) = (pos("stop"), pos("delete")) {
            assert!(s < d, "{name}: `{}` deletes before it stops", a.id);
        }
    }
    // Uninstall mirrors install.
    let mirrored: BTreeSet<(String, String)> = edge_ids(build)
        .into_iter()
        .map(|(a, b)| {
            (
                b.replace("_provision", "_terminate"),
                a.replace("_provision", "_terminate"),
            )
        })
        .collect();
    assert_eq!(edge_ids(termination), mirrored, "{name}: termination");
}
