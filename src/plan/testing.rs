//! The test plan (OpenTOSCA `BPELTestManagementProcessBuilder`, anchor §2):
//! every test operation of every node runs, bottom-up (a node's tests
//! after those of the nodes it is hosted on or depends on, as in the build
//! plan), so that a failing platform is reported before what runs on it.
//!
//! In: the build plan and the topology. Out: the test plan: one
//! [`ActivityKind::Test`] per implemented test operation, named
//! `<node>_test_<operation>`, and one [`ActivityKind::TestPolicy`] per
//! `ManagementOperationTest` policy that can run, named
//! `<node>_test_<policy>` (made unique), so that a failure names the test;
//! the tests of one node run in parallel, after the tests of the nodes
//! below it.

use super::build::finish;
use super::features::tests;
use super::restrict::restrict;
use super::test_policies::runnable;
use super::{AbstractPlan, Activity, ActivityKind, Edge, PlanKind};
use crate::diagnostics::Diagnostic;
use crate::model::{TemplateRef, Topology};
use crate::names::{Unique, ncname};

/// Derive the test plan from the build plan.
pub fn test_plan(build: &AbstractPlan, topology: &Topology) -> Result<AbstractPlan, Diagnostic> {
    let tested = |a: &Activity| {
        matches!(a.template, TemplateRef::Node(n)
            if !tests(topology, n).is_empty() || !runnable(topology, n).is_empty())
    };
    let (kept, node_edges) = restrict(build.activities.clone(), &build.edges, tested);
    // Each node's activity becomes one per test; `of[k]` are those of node k.
    let mut activities = Vec::new();
    let mut of: Vec<Vec<usize>> = Vec::with_capacity(kept.len());
    let mut ids = Unique::new();
    for a in kept {
        let TemplateRef::Node(n) = a.template else {
            unreachable!("only nodes have tests")
        };
        let base = a.id.strip_suffix("_provision").unwrap_or(&a.id).to_string();
        let mut mine = Vec::new();
        for (_, op) in tests(topology, n) {
            mine.push(activities.len());
            activities.push(Activity {
                id: ids.name(format!("{base}_test_{}", ncname(&op.name))),
                template: a.template,
                kind: ActivityKind::Test(op.name.clone()),
            });
        }
        for t in runnable(topology, n) {
            mine.push(activities.len());
            activities.push(Activity {
                id: ids.name(format!("{base}_test_{}", ncname(&t.policy.name))),
                template: a.template,
                kind: ActivityKind::TestPolicy(t.policy.name.as_str().into()),
            });
        }
        of.push(mine);
    }
    let mut edges = Vec::new();
    for e in node_edges {
        for &from in &of[e.from] {
            for &to in &of[e.to] {
                edges.push(Edge {
                    from,
                    to,
                    reason: e.reason,
                });
            }
        }
    }
    finish(PlanKind::Test, activities, edges, topology)
}
