//! Plans from imperative workflows (TOSCA YAML 1.3 §7.3; the model is
//! [`crate::model::Workflow`]).
//!
//! In: a topology and one of its workflows. Out: an [`AbstractPlan`].
//!
//! A step becomes one activity per target (a group target: one per member,
//! in parallel) running its activities in order ([`ActivityKind::Step`]).
//! A step is split where it delegates (`delegate: deploy` is the node's
//! declarative provisioning, [`ActivityKind::Provision`]; `undeploy` its
//! termination) and where it inlines another workflow, whose steps are
//! spliced in between (§7.3.4). `on_success` gives [`Reason::Step`] edges
//! (a step with several predecessors waits for all, §7.3.1.1), `on_failure`
//! [`Reason::OnFailure`] edges, and the workflow's preconditions become
//! checks that run before its first steps.
//!
//! When a workflow is the `deploy` of a build plan, nothing exists yet:
//! each node the workflow touches is registered before its first steps,
//! and each relationship between them once both ends are. Every other
//! workflow works on the instances that exist: each activity runs once per
//! instance of its target.

use foldhash::HashMap;
use std::collections::BTreeSet;
use std::ops::Range;

use petgraph::graph::{DiGraph, NodeIndex};
use petgraph::visit::Dfs;

use super::build::finish;
use super::{AbstractPlan, Activity, ActivityKind, Edge, PlanKind, Reason};
use crate::diagnostics::{Diagnostic, codes};
use crate::model::{NodeId, RelKind, StepTarget, TemplateRef, Topology, WorkflowActivity};
use crate::names::{Unique, ncname};

/// What an activity of a workflow plan does: some activities of a step, or
/// a precondition check.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct StepActivity {
    /// Index into `Topology::workflows`.
    pub workflow: usize,
    /// Index of the step in that workflow.
    pub step: usize,
    /// The step's activities run here (empty for a step without activities).
    pub activities: Range<usize>,
    /// Check this precondition of the workflow instead.
    pub precondition: Option<usize>,
    /// Templates whose instances are registered first (deploy workflows).
    pub register: Vec<TemplateRef>,
    /// Run once per existing instance of the target, rather than on the
    /// instance the plan creates.
    pub existing: bool,
}

struct Builder<'t> {
    topology: &'t Topology,
    kind: PlanKind,
    activities: Vec<Activity>,
    edges: BTreeSet<Edge>,
    unique: Unique,
    stack: Vec<usize>,
}

/// Heads and tails of a piece of the graph.
type Ends = (Vec<usize>, Vec<usize>);

fn invalid(topology: &Topology, wf: usize, message: String) -> Diagnostic {
    Diagnostic::error(codes::WORKFLOW_INVALID, message)
        .at_opt(topology.workflows[wf].origin.clone())
}

/// The plan of workflow `wf` as a plan of kind `kind` (the build plan for a
/// `deploy` workflow, the termination plan for `undeploy`).
pub fn workflow_plan(
    topology: &Topology,
    wf: usize,
    kind: PlanKind,
) -> Result<AbstractPlan, Diagnostic> {
    let mut b = Builder {
        topology,
        kind: kind.clone(),
        activities: Vec::new(),
        edges: BTreeSet::new(),
        unique: Unique::new(),
        stack: Vec::new(),
    };
    let (heads, _) = b.workflow(wf, "")?;
    // Preconditions: checked before the first steps run (only the plan's
    // own workflow; nothing exists yet before a deploy).
    if kind != PlanKind::Build {
        for (i, p) in topology.workflows[wf].preconditions.iter().enumerate() {
            let a = b.push(
                format!("precondition_{}", i + 1),
                p.target,
                ActivityKind::Step(Box::new(StepActivity {
                    workflow: wf,
                    step: 0,
                    activities: 0..0,
                    precondition: Some(i),
                    register: Vec::new(),
                    existing: true,
                })),
            );
            for &h in &heads {
                b.edge(a, h, Reason::Step);
            }
        }
    }
    if kind == PlanKind::Build {
        b.registration()?;
    }
    let Builder {
        activities, edges, ..
    } = b;
    finish(kind, activities, edges.into_iter().collect(), topology)
}

impl Builder<'_> {
    fn push(&mut self, base: String, template: TemplateRef, kind: ActivityKind) -> usize {
        self.activities.push(Activity {
            id: self.unique.name(ncname(&base)),
            template,
            kind,
        });
        self.activities.len() - 1
    }

    fn edge(&mut self, from: usize, to: usize, reason: Reason) {
        if from != to {
            self.edges.insert(Edge { from, to, reason });
        }
    }

    fn connect(&mut self, from: &[usize], to: &[usize], reason: Reason) {
        for &f in from {
            for &t in to {
                self.edge(f, t, reason);
            }
        }
    }

    /// Expand a workflow; returns the heads of its initial steps and the
    /// tails of its final ones.
    fn workflow(&mut self, wf: usize, prefix: &str) -> Result<Ends, Diagnostic> {
        let t = self.topology;
        if let Some(at) = self.stack.iter().position(|&w| w == wf) {
            let mut names: Vec<&str> = self.stack[at..]
                .iter()
                .map(|&w| t.workflows[w].name.as_str())
                .collect();
            names.push(&t.workflows[wf].name);
            return Err(invalid(
                t,
                wf,
                format!(
                    "workflow `{}` inlines itself: {}",
                    t.workflows[wf].name,
                    names.join(" → ")
                ),
            )
            .hint("an inlined workflow must not inline the workflow that inlines it"));
        }
        self.stack.push(wf);
        let w = &t.workflows[wf];
        let mut ends: Vec<Ends> = Vec::with_capacity(w.steps.len());
        for (i, _) in w.steps.iter().enumerate() {
            ends.push(self.step(wf, i, prefix)?);
        }
        for (i, s) in w.steps.iter().enumerate() {
            for &j in &s.on_success {
                let (from, to) = (ends[i].1.clone(), ends[j].0.clone());
                self.connect(&from, &to, Reason::Step);
            }
            if !s.on_failure.is_empty() && ends[i].1.len() != 1 {
                return Err(invalid(
                    t,
                    wf,
                    format!(
                        "step `{}` of workflow `{}` has `on_failure`, but it runs as {} activities (it inlines a workflow, delegates, or targets a group)",
                        s.name,
                        w.name,
                        ends[i].1.len()
                    ),
                )
                .at_opt(s.origin.clone())
                .hint("toscanini routes failures of steps that run as one activity; move the rest into a step of its own"));
            }
            for &j in &s.on_failure {
                let (from, to) = (ends[i].1.clone(), ends[j].0.clone());
                self.connect(&from, &to, Reason::OnFailure);
            }
        }
        let initial = w.initial_steps();
        let heads: Vec<usize> = initial.iter().flat_map(|&i| ends[i].0.clone()).collect();
        let tails: Vec<usize> = (0..w.steps.len())
            .filter(|&i| w.steps[i].on_success.is_empty() && w.steps[i].on_failure.is_empty())
            .flat_map(|i| ends[i].1.clone())
            .collect();
        self.stack.pop();
        Ok((heads, tails))
    }

    /// One step: its segments in sequence.
    fn step(&mut self, wf: usize, i: usize, prefix: &str) -> Result<Ends, Diagnostic> {
        let t = self.topology;
        let s = &t.workflows[wf].steps[i];
        let targets: Vec<TemplateRef> = match s.target {
            StepTarget::Node(n) => vec![TemplateRef::Node(n)],
            StepTarget::Relationship(r) => std::iter::once(r)
                .chain(s.copies.iter().copied())
                .map(TemplateRef::Relationship)
                .collect(),
            StepTarget::Group(g) => t.groups[g]
                .members
                .iter()
                .map(|&m| TemplateRef::Node(m))
                .collect(),
        };
        let base = format!("{prefix}{}", s.name);
        // Split at inlined workflows.
        let mut segments: Vec<Result<Range<usize>, usize>> = Vec::new();
        let mut start = 0;
        for (k, a) in s.activities.iter().enumerate() {
            if let WorkflowActivity::Inline(w) = a {
                if start < k {
                    segments.push(Ok(start..k));
                }
                segments.push(Err(*w));
                start = k + 1;
            }
        }
        if start < s.activities.len() || segments.is_empty() {
            segments.push(Ok(start..s.activities.len()));
        }
        let mut result: Option<Ends> = None;
        for seg in segments {
            let ends = match seg {
                Err(w) => {
                    let inner = format!("{base}_{}_", t.workflows[w].name);
                    self.workflow(w, &inner)?
                }
                Ok(range) => {
                    let mut heads = Vec::new();
                    let mut tails = Vec::new();
                    for &target in &targets {
                        let (h, tl) =
                            self.chain(wf, i, range.clone(), target, &base, targets.len() > 1)?;
                        heads.extend(h);
                        tails.extend(tl);
                    }
                    (heads, tails)
                }
            };
            result = Some(match result {
                None => ends,
                Some((h, tails)) => {
                    self.connect(&tails, &ends.0, Reason::Step);
                    (h, ends.1)
                }
            });
        }
        Ok(result.unwrap_or_default())
    }

    /// The activities `range` of a step on one target, split where they delegate.
    fn chain(
        &mut self,
        wf: usize,
        step: usize,
        range: Range<usize>,
        target: TemplateRef,
        base: &str,
        per_member: bool,
    ) -> Result<Ends, Diagnostic> {
        let t = self.topology;
        let s = &t.workflows[wf].steps[step];
        let name = if per_member {
            format!("{base}_{}", t.template_id(target))
        } else {
            base.to_string()
        };
        let existing = self.kind != PlanKind::Build;
        let mut parts: Vec<usize> = Vec::new();
        let mut run = range.start;
        let flush = |b: &mut Self, from: usize, to: usize, parts: &mut Vec<usize>| {
            let a = b.push(
                name.clone(),
                target,
                ActivityKind::Step(Box::new(StepActivity {
                    workflow: wf,
                    step,
                    activities: from..to,
                    precondition: None,
                    register: Vec::new(),
                    existing,
                })),
            );
            parts.push(a);
        };
        for k in range.clone() {
            if let WorkflowActivity::Delegate(what) = &s.activities[k] {
                let TemplateRef::Node(_) = target else {
                    return Err(invalid(
                        t,
                        wf,
                        format!("step `{}` delegates `{what}` on a relationship; only nodes can be delegated", s.name),
                    )
                    .at_opt(s.origin.clone()));
                };
                if run < k {
                    flush(self, run, k, &mut parts);
                }
                let kind = if what == "undeploy" {
                    ActivityKind::Terminate
                } else {
                    ActivityKind::Provision
                };
                let suffix = if what == "undeploy" {
                    "undeploy"
                } else {
                    "deploy"
                };
                let a = self.push(format!("{name}_{suffix}"), target, kind);
                parts.push(a);
                run = k + 1;
            }
        }
        if run < range.end || parts.is_empty() {
            flush(self, run, range.end, &mut parts);
        }
        for w in parts.windows(2) {
            self.edge(w[0], w[1], Reason::Step);
        }
        Ok((
            parts.first().copied().into_iter().collect(),
            parts.last().copied().into_iter().collect(),
        ))
    }

    /// Build plans from a deploy workflow: instances must exist before the
    /// workflow acts on them. A node the workflow deploys by delegation is
    /// registered by its provisioning; every other node it touches gets a
    /// registration activity before its first steps (steps that are
    /// parallel stay parallel), and every relationship between registered
    /// nodes gets one once both ends exist.
    fn registration(&mut self) -> Result<(), Diagnostic> {
        let t = self.topology;
        let (wf, step) = match self.activities.iter().find_map(|a| match &a.kind {
            ActivityKind::Step(s) => Some((s.workflow, s.step)),
            _ => None,
        }) {
            Some(x) => x,
            None => (self.stack.first().copied().unwrap_or(0), 0),
        };
        // Registrations added below only lead out of new activities, so
        // they change no path between the activities already here.
        let graph = precedence_graph(self.activities.len(), &self.edges);
        let register = |b: &mut Self, base: String, template: TemplateRef| {
            b.push(
                base,
                template,
                ActivityKind::Step(Box::new(StepActivity {
                    workflow: wf,
                    step,
                    activities: 0..0,
                    precondition: None,
                    register: vec![template],
                    existing: false,
                })),
            )
        };
        // Where each node's instance comes from.
        let mut entry: HashMap<NodeId, usize> = HashMap::default();
        let mut provisioned: BTreeSet<NodeId> = BTreeSet::new();
        for node in t.node_ids() {
            let touching: Vec<usize> = (0..self.activities.len())
                .filter(|&i| self.activities[i].template == TemplateRef::Node(node))
                .collect();
            if touching.is_empty() {
                continue;
            }
            if let Some(&p) = touching
                .iter()
                .find(|&&i| self.activities[i].kind == ActivityKind::Provision)
            {
                entry.insert(node, p);
                provisioned.insert(node);
                continue;
            }
            let firsts = firsts(&graph, &touching);
            let r = register(
                self,
                format!("register_{}", t.node(node).id),
                TemplateRef::Node(node),
            );
            for f in firsts {
                self.edge(r, f, Reason::Step);
            }
            entry.insert(node, r);
        }
        for r in t.relationship_ids() {
            let rel = t.relationship(r);
            let (Some(&es), Some(&et)) = (entry.get(&rel.source), entry.get(&rel.target)) else {
                if provisioned.contains(&rel.source) && rel.kind != RelKind::ConnectsTo {
                    return Err(Diagnostic::error(
                        codes::WORKFLOW_INVALID,
                        format!(
                            "the deploy workflow delegates the deployment of `{}`, which needs `{}` (relationship `{}`), but the workflow never deploys `{}`",
                            t.node(rel.source).id,
                            t.node(rel.target).id,
                            rel.id,
                            t.node(rel.target).id
                        ),
                    )
                    .at_opt(rel.origin.clone())
                    .hint("add a step for the target before the one that delegates"));
                }
                continue;
            };
            if provisioned.contains(&rel.source) && rel.kind != RelKind::ConnectsTo {
                // The source's provisioning registers it: the target first.
                self.edge(et, es, Reason::Relationship(r));
                continue;
            }
            let a = register(
                self,
                format!("register_{}", rel.id),
                TemplateRef::Relationship(r),
            );
            self.edge(es, a, Reason::Relationship(r));
            self.edge(et, a, Reason::Relationship(r));
        }
        Ok(())
    }
}

/// The edges over `n` activities as a petgraph graph (node `i` is activity `i`).
fn precedence_graph(n: usize, edges: &BTreeSet<Edge>) -> DiGraph<(), ()> {
    let mut graph = DiGraph::with_capacity(n, edges.len());
    for _ in 0..n {
        graph.add_node(());
    }
    for e in edges {
        graph.add_edge(NodeIndex::new(e.from), NodeIndex::new(e.to), ());
    }
    graph
}

/// The activities of `group` that no other activity of `group` precedes,
/// directly or through others: where the group's work starts. A search
/// from each member, in O(n + e) memory (a reachability matrix would be
/// n²); a search stops once every other member is known to be preceded.
fn firsts(graph: &DiGraph<(), ()>, group: &[usize]) -> Vec<usize> {
    let n = graph.node_count();
    let mut member = vec![false; n];
    for &a in group {
        member[a] = true;
    }
    let mut preceded = vec![false; n];
    let mut open = group.len(); // members not known to be preceded
    let mut dfs = Dfs::empty(graph);
    for &b in group {
        // A search from `b` never marks `b` itself: it has nothing to
        // learn once `b` is the only member left open.
        let own = usize::from(!preceded[b]);
        if open == own {
            continue;
        }
        dfs.reset(graph);
        dfs.move_to(NodeIndex::new(b));
        while let Some(x) = dfs.next(graph) {
            let x = x.index();
            if x != b && member[x] && !preceded[x] {
                preceded[x] = true;
                open -= 1;
                if open == own {
                    break;
                }
            }
        }
    }
    group.iter().copied().filter(|&a| !preceded[a]).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn graph(n: usize, pairs: &[(usize, usize)]) -> DiGraph<(), ()> {
        let edges = pairs
            .iter()
            .map(|&(from, to)| Edge {
                from,
                to,
                reason: Reason::Step,
            })
            .collect();
        precedence_graph(n, &edges)
    }

    #[test]
    fn firsts_are_the_members_no_other_member_precedes() {
        // 0 → 1 → 2 → 3, and 4 on its own: of {1, 3, 4}, 3 waits for 1
        // through 2, which is not in the group.
        let g = graph(5, &[(0, 1), (1, 2), (2, 3)]);
        assert_eq!(firsts(&g, &[3, 1, 4]), vec![1, 4]);
        assert_eq!(firsts(&g, &[3]), vec![3]);
        // Parallel members are all first.
        let g = graph(3, &[(0, 1), (0, 2)]);
        assert_eq!(firsts(&g, &[1, 2]), vec![1, 2]);
        // A diamond inside the group: only its top is first, whichever
        // member is searched first.
        let g = graph(4, &[(0, 1), (0, 2), (1, 3), (2, 3)]);
        assert_eq!(firsts(&g, &[3, 2, 1, 0]), vec![0]);
        assert_eq!(firsts(&g, &[1, 2, 3]), vec![1, 2]);
    }
}
