//! Deterministic topological order (Kahn's algorithm, ready activities taken
//! by smallest id) and cycle extraction.

use std::cmp::Reverse;
use std::collections::BinaryHeap;

use super::Edge;

/// Order `ids.len()` activities so that every edge goes forward; among
/// activities that are ready at the same time the smallest id comes first.
/// On a cycle, returns the edges of one cycle in order.
pub fn topological_order<S: AsRef<str>>(
    ids: &[S],
    edges: &[Edge],
) -> Result<Vec<usize>, Vec<Edge>> {
    topological_order_by(ids, &by_id(ids), edges)
}

/// [`topological_order`], with the activities already sorted by id
/// ([`by_id`]): a plan ordered twice sorts its ids once.
pub(crate) fn topological_order_by<S: AsRef<str>>(
    ids: &[S],
    by_id: &[usize],
    edges: &[Edge],
) -> Result<Vec<usize>, Vec<Edge>> {
    let n = ids.len();
    // The heap holds ranks (positions in `by_id`), not ids: comparing the
    // strings in the heap chased two pointers per comparison.
    let mut rank = vec![0; n];
    for (r, &i) in by_id.iter().enumerate() {
        rank[i] = r;
    }
    let mut indegree = vec![0usize; n];
    let next = Successors::new(n, edges);
    for e in edges {
        indegree[e.to] += 1;
    }
    let mut ready: BinaryHeap<Reverse<usize>> = (0..n)
        .filter(|&i| indegree[i] == 0)
        .map(|i| Reverse(rank[i]))
        .collect();
    let mut order = Vec::with_capacity(n);
    while let Some(Reverse(r)) = ready.pop() {
        let i = by_id[r];
        order.push(i);
        for &j in next.of(i) {
            indegree[j] -= 1;
            if indegree[j] == 0 {
                ready.push(Reverse(rank[j]));
            }
        }
    }
    if order.len() == n {
        return Ok(order);
    }
    Err(find_cycle(ids, edges, &indegree))
}

/// The indices of `ids` ordered by (id, index).
pub(crate) fn by_id<S: AsRef<str>>(ids: &[S]) -> Vec<usize> {
    let mut by_id: Vec<usize> = (0..ids.len()).collect();
    by_id.sort_unstable_by(|&a, &b| ids[a].as_ref().cmp(ids[b].as_ref()).then(a.cmp(&b)));
    by_id
}

/// The successors of every activity, in the order of the edges, in one
/// vector (a vector per activity was an allocation per activity, twice
/// per plan).
struct Successors {
    /// Where the successors of each activity start in `to`, and, last,
    /// the end.
    start: Vec<usize>,
    to: Vec<usize>,
}

impl Successors {
    fn new(n: usize, edges: &[Edge]) -> Successors {
        let mut start = vec![0; n + 1];
        for e in edges {
            start[e.from + 1] += 1;
        }
        for i in 0..n {
            start[i + 1] += start[i];
        }
        let mut fill = start.clone();
        let mut to = vec![0; edges.len()];
        for e in edges {
            to[fill[e.from]] = e.to;
            fill[e.from] += 1;
        }
        Successors { start, to }
    }

    fn of(&self, i: usize) -> &[usize] {
        &self.to[self.start[i]..self.start[i + 1]]
    }
}

/// Every activity left with a positive in-degree has a predecessor that is
/// also left, so walking predecessors must revisit one: that is a cycle.
fn find_cycle<S: AsRef<str>>(ids: &[S], edges: &[Edge], indegree: &[usize]) -> Vec<Edge> {
    let left = |i: usize| indegree[i] > 0;
    let mut incoming: Vec<Vec<&Edge>> = vec![Vec::new(); ids.len()];
    for e in edges {
        if left(e.from) && left(e.to) {
            incoming[e.to].push(e);
        }
    }
    for list in &mut incoming {
        list.sort_by(|a, b| ids[a.from].as_ref().cmp(ids[b.from].as_ref()));
    }
    let start = (0..ids.len())
        .filter(|&i| left(i))
        .min_by(|&a, &b| ids[a].as_ref().cmp(ids[b].as_ref()))
        .expect("a cycle leaves activities behind");
    let mut path: Vec<&Edge> = Vec::new();
    let mut visited = vec![usize::MAX; ids.len()];
    let mut cur = start;
    loop {
        if visited[cur] != usize::MAX {
            let mut cycle: Vec<Edge> = path[visited[cur]..].iter().map(|e| **e).collect();
            cycle.reverse();
            return cycle;
        }
        visited[cur] = path.len();
        let e = incoming[cur][0];
        path.push(e);
        cur = e.from;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::plan::Reason;

    fn edge(from: usize, to: usize) -> Edge {
        Edge {
            from,
            to,
            reason: Reason::Selection,
        }
    }

    #[test]
    fn breaks_ties_by_id() {
        let ids: Vec<String> = ["c", "a", "b"].map(String::from).to_vec();
        assert_eq!(topological_order(&ids, &[]).unwrap(), vec![1, 2, 0]);
        assert_eq!(
            topological_order(&ids, &[edge(0, 1)]).unwrap(),
            vec![2, 0, 1]
        );
    }

    #[test]
    fn equal_ids_are_taken_by_index() {
        let ids: Vec<String> = ["b", "a", "b", "a"].map(String::from).to_vec();
        assert_eq!(topological_order(&ids, &[]).unwrap(), vec![1, 3, 0, 2]);
        assert_eq!(by_id(&ids), vec![1, 3, 0, 2]);
    }

    #[test]
    fn successors_keep_the_order_of_the_edges() {
        let next = Successors::new(3, &[edge(2, 0), edge(0, 2), edge(2, 1), edge(0, 1)]);
        assert_eq!(next.of(0), [2, 1]);
        assert_eq!(next.of(1), [] as [usize; 0]);
        assert_eq!(next.of(2), [0, 1]);
    }

    #[test]
    fn reports_a_cycle_in_order() {
        let ids: Vec<String> = ["a", "b", "c", "d"].map(String::from).to_vec();
        let cycle =
            topological_order(&ids, &[edge(0, 1), edge(1, 2), edge(2, 1), edge(2, 3)]).unwrap_err();
        let pairs: Vec<(usize, usize)> = cycle.iter().map(|e| (e.from, e.to)).collect();
        assert_eq!(pairs, vec![(1, 2), (2, 1)]);
    }
}
