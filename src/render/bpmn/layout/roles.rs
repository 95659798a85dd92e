//! Roles: which nodes of a plane are laid out in the grid, which hang
//! below a host, and which go to the band below the grid.
//!
//! In: a [`Plane`]. Out: [`Roles`]. A boundary event hangs on the bottom
//! edge of its host, and so does the chain of nodes that follows it
//! (along the first flow, or else the association, out of each node,
//! until a node that already hangs); an error event that routes a failure
//! on into the graph (`on_failure`) hangs alone, its flows leaving as if
//! from its host. Event subprocesses go to the band. Everything else is
//! in the grid.

use super::index::NONE;
use crate::render::bpmn::graph::{Kind, Plane, Repeat};

/// Where every node of a plane goes.
pub(crate) struct Roles {
    /// Boundary events with their hosts, as (host, event), by host (the
    /// events of one host in plane order).
    pub(crate) boundaries: Vec<(usize, usize)>,
    /// Per node: for a boundary event whose flows go on into the grid,
    /// its host; [`NONE`] otherwise.
    pub(crate) routes_from: Vec<usize>,
    /// Per node: whether it hangs below a host.
    pub(crate) hanging: Vec<bool>,
    /// The nodes of the band, in plane order.
    pub(crate) band: Vec<usize>,
    /// The chain of `boundaries[j]` is `chains[chain_start[j]..chain_start[j + 1]]`.
    pub(crate) chains: Vec<usize>,
    /// See `chains`.
    pub(crate) chain_start: Vec<usize>,
    /// Per node: whether it is laid out in the grid.
    pub(crate) in_grid: Vec<bool>,
    /// The nodes of the grid, in plane order.
    pub(crate) grid: Vec<usize>,
}

impl Roles {
    /// The roles of the nodes of `plane`.
    pub(crate) fn of(plane: &Plane) -> Roles {
        let n = plane.nodes.len();
        let mut boundaries: Vec<(usize, usize)> = Vec::new();
        let mut routes_from: Vec<usize> = vec![NONE; n];
        let mut hanging = vec![false; n];
        let mut in_band = vec![false; n];
        let mut band: Vec<usize> = Vec::new();
        for (i, node) in plane.nodes.iter().enumerate() {
            match &node.kind {
                Kind::Boundary { host, routes, .. } => {
                    boundaries.push((*host as usize, i));
                    hanging[i] = true;
                    if *routes {
                        routes_from[i] = *host as usize;
                    }
                }
                Kind::Sub(s) if s.repeat == Repeat::OnError => {
                    band.push(i);
                    in_band[i] = true;
                }
                _ => {}
            }
        }
        boundaries.sort_by_key(|&(host, _)| host);
        let (chains, chain_start) = chains(plane, &boundaries, &routes_from, &mut hanging);
        let in_grid: Vec<bool> = (0..n).map(|i| !hanging[i] && !in_band[i]).collect();
        let grid: Vec<usize> = (0..n).filter(|&i| in_grid[i]).collect();
        Roles {
            boundaries,
            routes_from,
            hanging,
            band,
            chains,
            chain_start,
            in_grid,
            grid,
        }
    }

    /// Where the flows out of node `i` leave, for the grid: the host of a
    /// boundary event that routes a failure on, the node itself otherwise.
    pub(crate) fn source(&self, i: usize) -> usize {
        if self.routes_from[i] == NONE {
            i
        } else {
            self.routes_from[i]
        }
    }

    /// Whether node `i` is a boundary event that routes a failure on.
    pub(crate) fn routes(&self, i: usize) -> bool {
        self.routes_from[i] != NONE
    }

    /// Give back what routing does not read (all but `routes_from` and
    /// `hanging`): the working memory of a large plane is at its peak while
    /// its edges are routed.
    pub(crate) fn keep_for_routing(&mut self) {
        self.boundaries = Vec::new();
        self.band = Vec::new();
        self.chains = Vec::new();
        self.chain_start = Vec::new();
        self.in_grid = Vec::new();
        self.grid = Vec::new();
    }

    /// The chain that hangs from `boundaries[j]`.
    pub(crate) fn chain(&self, j: usize) -> &[usize] {
        &self.chains[self.chain_start[j]..self.chain_start[j + 1]]
    }
}

/// The chains of the boundary events (everything reachable from one that
/// does not route a failure on), marked `hanging`: all chains in one
/// vector, and where each starts (one more entry than boundaries).
fn chains(
    plane: &Plane,
    boundaries: &[(usize, usize)],
    routes_from: &[usize],
    hanging: &mut [bool],
) -> (Vec<usize>, Vec<usize>) {
    let adj = plane.adjacency();
    let mut first_assoc: Vec<usize> = vec![NONE; plane.nodes.len()];
    for a in &plane.associations {
        if first_assoc[a.from] == NONE {
            first_assoc[a.from] = a.to;
        }
    }
    let mut chains: Vec<usize> = Vec::new();
    let mut chain_start: Vec<usize> = Vec::with_capacity(boundaries.len() + 1);
    chain_start.push(0);
    for &(_, b) in boundaries {
        if routes_from[b] == NONE {
            let mut cur = b;
            loop {
                let next = match adj.outgoing(cur).first() {
                    Some(&f) => plane.flows[f as usize].to(),
                    None => first_assoc[cur],
                };
                if next == NONE || hanging[next] {
                    break;
                }
                hanging[next] = true;
                chains.push(next);
                cur = next;
            }
        }
        chain_start.push(chains.len());
    }
    (chains, chain_start)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::render::bpmn::layout::tests::{boundary, plane, task};

    #[test]
    fn a_boundary_event_and_its_chain_hang_below_the_host() {
        // s -> a -> e; a's error event -> m -> x (an end).
        let (mut text, mut p) = plane();
        let s = p.add(text.add("s"), Default::default(), Kind::Start(None));
        let a = task(&mut text, &mut p, "a");
        let e = p.add(text.add("e"), Default::default(), Kind::End(None));
        let b = boundary(&mut text, &mut p, a, false);
        let m = task(&mut text, &mut p, "m");
        let x = p.add(text.add("x"), Default::default(), Kind::End(None));
        p.connect(s, a);
        p.connect(a, e);
        p.connect(b, m);
        p.connect(m, x);
        let r = Roles::of(&p);
        assert_eq!(r.boundaries, [(a, b)]);
        assert_eq!(r.chain(0), [m, x]);
        assert_eq!(r.grid, [s, a, e]);
        assert!(r.hanging[b] && !r.routes(b));
        assert_eq!(r.source(b), b);
    }

    #[test]
    fn a_routing_boundary_event_hangs_alone_and_leaves_from_its_host() {
        // s -> a -> e; a's routing error event -> m (in the grid).
        let (mut text, mut p) = plane();
        let s = p.add(text.add("s"), Default::default(), Kind::Start(None));
        let a = task(&mut text, &mut p, "a");
        let e = p.add(text.add("e"), Default::default(), Kind::End(None));
        let b = boundary(&mut text, &mut p, a, true);
        let m = task(&mut text, &mut p, "m");
        p.connect(s, a);
        p.connect(a, e);
        p.connect(b, m);
        let r = Roles::of(&p);
        assert!(r.chain(0).is_empty());
        assert_eq!(r.grid, [s, a, e, m]);
        assert!(r.routes(b));
        assert_eq!(r.source(b), a);
    }
}
