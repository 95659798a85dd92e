//! The links of a BPEL plan's `<flow>`: the edges into and out of every
//! activity, their link names, and the failure flags (`on_failure`) that
//! the links out of a routed activity test.
//!
//! In: a concrete plan. Out: [`Adjacency`] and the flags.

use foldhash::{HashMap, HashMapExt};

use crate::names::Unique;
use crate::plan::{Activity, Reason};
use crate::plugins::ConcretePlan;
use crate::render::vars::word;

/// `on_failure` (imperative workflows): a flag per activity whose failure
/// is routed, which its links test. Failure flags (`failed_…`) are a
/// family of their own: unique among themselves, they can meet no fixed or
/// template variable.
pub(crate) fn failures(plan: &ConcretePlan) -> Vec<Option<String>> {
    let mut flags = Unique::new();
    let mut routed = vec![false; plan.plan.activities.len()];
    for e in &plan.plan.edges {
        routed[e.from] |= e.reason == Reason::OnFailure;
    }
    plan.plan
        .activities
        .iter()
        .zip(&routed)
        .map(|(a, &r)| r.then(|| flags.name(failure_var(&a.id))))
        .collect()
}

/// The variable that records that an activity failed (`on_failure`).
fn failure_var(activity: &str) -> String {
    let word: String = activity
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '_' })
        .collect();
    format!("failed_{word}")
}

/// The name of the links out of activity `from`: its id with only
/// `[A-Za-z0-9_]`, so that `$link` in a join condition cannot be read as
/// `$variable.part` or a subtraction; where every activity of the plan is
/// of one kind (`vm_provision`, `app_provision`) without the kind, which
/// says nothing there (`vm`). A join condition then reads as what it
/// waits for (`$db and $app`); the second and later links out of an
/// activity get a number (`cloud_2`), as [`Unique`] numbers a name
/// handed out again.
fn link_base(from: &Activity, one_kind: bool) -> String {
    let id = from.id.as_str();
    let short = id
        .strip_suffix(from.kind.name())
        .and_then(|s| s.strip_suffix('_'));
    match short {
        Some(short) if one_kind && !short.is_empty() => word(short),
        _ => word(id),
    }
}

/// The name of a link: its source's [`link_base`], numbered from 2 by
/// its place among the links out of it (`rank`, from 0).
fn link_name(from: &Activity, one_kind: bool, rank: u32) -> String {
    let base = link_base(from, one_kind);
    match rank {
        0 => base,
        r => format!("{base}_{}", r + 1),
    }
}

/// The edges into and out of every activity (indexes into the plan's
/// edges, grouped by activity), built once: scanning every edge per
/// activity made rendering quadratic.
pub(crate) struct Adjacency {
    into: Vec<usize>,
    into_start: Vec<usize>,
    out_of: Vec<usize>,
    out_start: Vec<usize>,
    /// Each edge's place among the edges out of its source.
    rank: Vec<u32>,
    /// Whether every activity of the plan is of one kind.
    one_kind: bool,
    /// Edges whose link name another edge had first (`web-1` and `web_1`
    /// are both `web_1`): their names with a suffix. Names are made again
    /// where they are written rather than held, as a plan of a large
    /// topology has a hundred thousand of them.
    renamed: HashMap<usize, String>,
}

impl Adjacency {
    /// The edges of `plan`, by activity.
    pub(crate) fn new(plan: &ConcretePlan) -> Adjacency {
        let n = plan.plan.activities.len();
        let group = |key: &dyn Fn(&crate::plan::Edge) -> usize| {
            let mut order: Vec<usize> = (0..plan.plan.edges.len()).collect();
            // Stable: edges keep their plan order within an activity.
            order.sort_by_key(|&e| key(&plan.plan.edges[e]));
            let mut start = vec![0; n + 1];
            for &e in &order {
                start[key(&plan.plan.edges[e]) + 1] += 1;
            }
            for i in 0..n {
                start[i + 1] += start[i];
            }
            (order, start)
        };
        let (into, into_start) = group(&|e| e.to);
        let (out_of, out_start) = group(&|e| e.from);
        let mut rank = vec![0; plan.plan.edges.len()];
        for i in 0..n {
            for (r, &e) in out_of[out_start[i]..out_start[i + 1]].iter().enumerate() {
                rank[e] = r as u32;
            }
        }
        let kinds = &mut plan.plan.activities.iter().map(|a| a.kind.name());
        let one_kind = kinds.next().is_none_or(|first| kinds.all(|k| k == first));
        let mut unique = Unique::new();
        let mut renamed = HashMap::new();
        for (k, e) in plan.plan.edges.iter().enumerate() {
            let name = link_name(&plan.plan.activities[e.from], one_kind, rank[k]);
            // A name handed out again is longer: it has a suffix.
            let len = name.len();
            let given = unique.name(name);
            if given.len() != len {
                renamed.insert(k, given);
            }
        }
        Adjacency {
            into,
            into_start,
            out_of,
            out_start,
            rank,
            one_kind,
            renamed,
        }
    }

    /// The edges into activity `i`.
    pub(crate) fn into(&self, i: usize) -> &[usize] {
        &self.into[self.into_start[i]..self.into_start[i + 1]]
    }

    /// The edges out of activity `i`.
    pub(crate) fn out_of(&self, i: usize) -> &[usize] {
        &self.out_of[self.out_start[i]..self.out_start[i + 1]]
    }

    /// The name of the link of edge `k`.
    pub(crate) fn link_name(&self, plan: &ConcretePlan, k: usize) -> String {
        if let Some(name) = self.renamed.get(&k) {
            return name.clone();
        }
        let e = &plan.plan.edges[k];
        link_name(&plan.plan.activities[e.from], self.one_kind, self.rank[k])
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{NodeId, TemplateRef};
    use crate::plan::ActivityKind;

    fn activity(id: &str, kind: ActivityKind) -> Activity {
        Activity {
            id: id.into(),
            template: TemplateRef::Node(NodeId(0)),
            kind,
        }
    }

    #[test]
    fn a_link_is_named_after_its_source() {
        let vm = activity("vm-1_provision", ActivityKind::Provision);
        assert_eq!(link_name(&vm, true, 0), "vm_1");
        assert_eq!(link_name(&vm, true, 2), "vm_1_3");
        // Activities of several kinds: the whole id.
        assert_eq!(link_name(&vm, false, 0), "vm_1_provision");
        // An id that does not end with its kind (a workflow's step).
        let step = activity("deploy_a", ActivityKind::Provision);
        assert_eq!(link_name(&step, true, 1), "deploy_a_2");
    }
}
