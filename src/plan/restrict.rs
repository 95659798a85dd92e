//! A plan's order restricted to some of its activities: an activity kept
//! comes after another kept one when a path of the full plan leads from
//! that one to it, whatever it passes through. Plans that act on a few
//! templates (backup, test) keep the order of the plan they come from.
//!
//! In: activities, edges over them, and which to keep. Out: the kept
//! activities and the edges between them (indexes into the kept list).

use std::collections::BTreeSet;

use super::{Activity, Edge};

/// Keep the activities for which `keep` holds; an edge joins two kept
/// activities where a path joined them (its reason is the path's first
/// edge's).
pub(super) fn restrict(
    activities: Vec<Activity>,
    edges: &[Edge],
    keep: impl Fn(&Activity) -> bool,
) -> (Vec<Activity>, Vec<Edge>) {
    let kept: Vec<bool> = activities.iter().map(&keep).collect();
    let mut out: Vec<Vec<&Edge>> = vec![Vec::new(); activities.len()];
    for e in edges {
        out[e.from].push(e);
    }
    // New indexes of the kept activities.
    let mut index = vec![usize::MAX; activities.len()];
    let mut next = 0;
    for (i, k) in kept.iter().enumerate() {
        if *k {
            index[i] = next;
            next += 1;
        }
    }
    let mut result = BTreeSet::new();
    for start in (0..activities.len()).filter(|&i| kept[i]) {
        // Depth-first through dropped activities only.
        let mut seen = vec![false; activities.len()];
        let mut stack: Vec<(usize, &Edge)> = out[start].iter().map(|e| (e.to, *e)).collect();
        while let Some((at, first)) = stack.pop() {
            if std::mem::replace(&mut seen[at], true) {
                continue;
            }
            if kept[at] {
                result.insert(Edge {
                    from: index[start],
                    to: index[at],
                    reason: first.reason,
                });
                continue;
            }
            stack.extend(out[at].iter().map(|e| (e.to, first)));
        }
    }
    let activities = activities
        .into_iter()
        .zip(kept)
        .filter_map(|(a, k)| k.then_some(a))
        .collect();
    (activities, result.into_iter().collect())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{NodeId, TemplateRef};
    use crate::plan::{ActivityKind, Reason};

    fn activity(i: u32) -> Activity {
        Activity {
            id: format!("a{i}"),
            template: TemplateRef::Node(NodeId(i)),
            kind: ActivityKind::Provision,
        }
    }

    fn edge(from: usize, to: usize) -> Edge {
        Edge {
            from,
            to,
            reason: Reason::Step,
        }
    }

    #[test]
    fn keeps_order_through_dropped_activities() {
        // a0 → a1 → a2 → a3, a1 dropped and a3 dropped: a0 → a2 only.
        let acts = (0..4).map(activity).collect();
        let (kept, edges) = restrict(acts, &[edge(0, 1), edge(1, 2), edge(2, 3)], |a| {
            a.id == "a0" || a.id == "a2"
        });
        assert_eq!(kept.len(), 2);
        assert_eq!(
            edges.iter().map(|e| (e.from, e.to)).collect::<Vec<_>>(),
            vec![(0, 1)]
        );
    }

    #[test]
    fn unrelated_activities_stay_parallel() {
        let acts = (0..3).map(activity).collect();
        let (_, edges) = restrict(acts, &[edge(0, 1)], |a| a.id != "a1");
        assert!(edges.is_empty());
    }
}
