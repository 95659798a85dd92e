//! Ranking: the layer (column) of every node of the grid.
//!
//! In: a [`Plane`] and its [`Roles`]. Out: [`Ranks`]. Loops are broken
//! first: a depth-first search from the nodes of the grid, in plane
//! order, finds the back edges. The other flows between nodes of the grid
//! are the forward edges (a flow out of an error event that routes a
//! failure counts as leaving its host); a node's layer is the longest
//! path of forward edges to it, so every forward edge goes right.

use std::collections::VecDeque;

use super::index::{IntMap, IntSet, NONE};
use super::roles::Roles;
use crate::render::bpmn::graph::{Adjacency, Plane};

/// An edge that skips more layers than this does not pass through cells
/// of the layers in between: it drops into a lane below the grid. Passing
/// through every layer would cost a cell and two waypoints per layer, and
/// in a deep plan (a long DependsOn chain) edges skipping hundreds of
/// layers would make the diagram quadratic in the plan's size.
pub(crate) const MAX_PASS: usize = 3;

/// The layers of a plane's grid.
pub(crate) struct Ranks {
    /// Back edges, as (from, to): the flows that close a loop.
    pub(crate) back: IntSet<(usize, usize)>,
    /// Forward edges, as (from, to), one per flow between nodes of the
    /// grid that is no back edge, in flow order.
    pub(crate) forward: Vec<(usize, usize)>,
    /// Per flow: the first forward edge with its ends ([`NONE`] for a
    /// flow that is none).
    pub(crate) flow_forward: Vec<usize>,
    /// The forward edges into and out of every node (needed up to the
    /// ordering).
    pub(crate) fwd: Adjacency,
    /// Per node: its layer (0 outside the grid).
    pub(crate) layer: Vec<usize>,
    /// How many layers the grid has.
    pub(crate) layers: usize,
}

impl Ranks {
    /// How many layers forward edge `(f, t)` skips.
    pub(crate) fn skipped(&self, (f, t): (usize, usize)) -> usize {
        self.layer[t] - self.layer[f] - 1
    }

    /// The cells between layers that forward edge `(f, t)` passes through
    /// (none for a long edge, which takes a lane instead).
    pub(crate) fn passes(&self, e: (usize, usize)) -> usize {
        let skipped = self.skipped(e);
        if skipped > MAX_PASS { 0 } else { skipped }
    }
}

/// Rank the nodes of the grid of `plane`.
pub(crate) fn rank(plane: &Plane, roles: &Roles) -> Ranks {
    let n = plane.nodes.len();
    let back = back_edges(plane, roles);
    let (forward, flow_forward) = forward_edges(plane, roles, &back);
    let fwd = Adjacency::new(n, forward.iter().copied());
    let layer = longest_paths(n, &roles.grid, &forward, &fwd);
    let layers = roles
        .grid
        .iter()
        .map(|&i| layer[i])
        .max()
        .map_or(0, |m| m + 1);
    Ranks {
        back,
        forward,
        flow_forward,
        fwd,
        layer,
        layers,
    }
}

/// Back edges: found by a depth-first search from the nodes of the grid.
/// A stack entry is a node and the position in its outgoing flows where
/// the search goes on.
fn back_edges(plane: &Plane, roles: &Roles) -> IntSet<(usize, usize)> {
    let adj = plane.adjacency();
    let mut back: IntSet<(usize, usize)> = IntSet::default();
    let mut state = vec![0u8; plane.nodes.len()]; // 0 new, 1 on stack, 2 done
    let mut stack: Vec<(usize, usize)> = Vec::new();
    for &root in &roles.grid {
        if state[root] != 0 {
            continue;
        }
        stack.push((root, 0));
        state[root] = 1;
        while let Some((node, pos)) = stack.pop() {
            let out = adj.outgoing(node);
            let next = (pos..out.len()).find(|&j| roles.in_grid[plane.flows[out[j] as usize].to()]);
            if let Some(j) = next {
                stack.push((node, j + 1));
                let t = plane.flows[out[j] as usize].to();
                match state[t] {
                    1 => {
                        back.insert((node, t));
                    }
                    0 => {
                        state[t] = 1;
                        stack.push((t, 0));
                    }
                    _ => {}
                }
            } else {
                state[node] = 2;
            }
        }
    }
    back
}

/// Forward edges, and for every flow the first forward edge with its ends.
fn forward_edges(
    plane: &Plane,
    roles: &Roles,
    back: &IntSet<(usize, usize)>,
) -> (Vec<(usize, usize)>, Vec<usize>) {
    let mut forward: Vec<(usize, usize)> = Vec::with_capacity(plane.flows.len());
    let mut flow_forward: Vec<usize> = vec![NONE; plane.flows.len()];
    let mut first_forward: IntMap<(usize, usize), usize> = IntMap::default();
    first_forward.reserve(plane.flows.len());
    for (k, f) in plane.flows.iter().enumerate() {
        // A flow out of an error event that routes a failure leaves its host.
        let pair = (roles.source(f.from()), f.to());
        if roles.in_grid[pair.0] && roles.in_grid[f.to()] && !back.contains(&pair) {
            let next = forward.len();
            flow_forward[k] = *first_forward.entry(pair).or_insert(next);
            forward.push(pair);
        }
    }
    (forward, flow_forward)
}

/// Layers: the longest path to every node, in a topological order of the
/// forward edges.
fn longest_paths(
    n: usize,
    grid: &[usize],
    forward: &[(usize, usize)],
    fwd: &Adjacency,
) -> Vec<usize> {
    let mut layer = vec![0usize; n];
    let mut indeg: Vec<usize> = (0..n).map(|i| fwd.incoming(i).len()).collect();
    let mut ready: VecDeque<usize> = grid.iter().copied().filter(|&i| indeg[i] == 0).collect();
    while let Some(v) = ready.pop_front() {
        for &k in fwd.outgoing(v) {
            let t = forward[k as usize].1;
            let l = layer[v] + 1;
            if layer[t] < l {
                layer[t] = l;
            }
            indeg[t] -= 1;
            if indeg[t] == 0 {
                ready.push_back(t);
            }
        }
    }
    layer
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::render::bpmn::layout::tests::{boundary, chain, diamond, plane, task};

    fn ranks_of(p: &Plane) -> Ranks {
        rank(p, &Roles::of(p))
    }

    #[test]
    fn a_chain_takes_one_layer_per_node() {
        let (_, p) = chain(4);
        let r = ranks_of(&p);
        assert_eq!(r.layer, [0, 1, 2, 3]);
        assert_eq!(r.layers, 4);
        assert_eq!(r.forward, [(0, 1), (1, 2), (2, 3)]);
        assert!(r.back.is_empty());
    }

    #[test]
    fn a_diamond_puts_its_branches_in_one_layer() {
        let (_, p) = diamond();
        let r = ranks_of(&p);
        assert_eq!(r.layer, [0, 1, 1, 2]);
        assert_eq!(r.layers, 3);
    }

    #[test]
    fn a_long_edge_skips_layers_and_a_loop_is_a_back_edge() {
        // 0 -> 1 -> 2 -> 3, 0 -> 3 (skips two layers), 3 -> 1 (a loop).
        let (_, mut p) = chain(4);
        let long = p.connect(0, 3);
        let back = p.connect(3, 1);
        let r = ranks_of(&p);
        assert_eq!(r.layer, [0, 1, 2, 3]);
        assert_eq!(r.skipped((0, 3)), 2);
        assert_eq!(r.passes((0, 3)), 2);
        assert_eq!(r.flow_forward[long], 3);
        assert_eq!(r.flow_forward[back], NONE);
        assert!(r.back.contains(&(3, 1)));
    }

    #[test]
    fn an_edge_skipping_more_than_max_pass_layers_passes_no_cell() {
        let (_, mut p) = chain(MAX_PASS + 3);
        let last = MAX_PASS + 2;
        p.connect(0, last);
        let r = ranks_of(&p);
        assert_eq!(r.skipped((0, last)), MAX_PASS + 1);
        assert_eq!(r.passes((0, last)), 0);
    }

    #[test]
    fn a_routed_failure_leaves_from_the_host_of_its_event() {
        // s -> a; a's routing error event -> m: m follows a.
        let (mut text, mut p) = plane();
        let s = task(&mut text, &mut p, "s");
        let a = task(&mut text, &mut p, "a");
        let b = boundary(&mut text, &mut p, a, true);
        let m = task(&mut text, &mut p, "m");
        p.connect(s, a);
        let f = p.connect(b, m);
        let r = ranks_of(&p);
        assert_eq!((r.layer[a], r.layer[m]), (1, 2));
        assert_eq!(r.forward[r.flow_forward[f]], (a, m));
    }
}
