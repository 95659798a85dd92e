//! Lanes: where the long forward edges run, below the grid.
//!
//! In: [`Ranks`]. Out: [`Lanes`]. An edge that skips more than
//! [`MAX_PASS`] layers runs in a lane instead of through cells of the
//! layers it skips; lanes are reused by edges whose column ranges do not
//! overlap (interval partitioning, in order of the first column), so a
//! deep plan needs few of them.

use std::cmp::Reverse;
use std::collections::BinaryHeap;

use super::index::IntMap;
use super::ranking::{MAX_PASS, Ranks};

/// Vertical distance between lanes.
const LANE_GAP: i64 = 10;

/// The lanes of the long edges.
pub(crate) struct Lanes {
    /// The lane of each long forward edge, by edge index.
    pub(crate) of: IntMap<usize, i64>,
    /// How many lanes there are.
    pub(crate) count: i64,
}

impl Lanes {
    /// The lanes of the long forward edges of `ranks`.
    pub(crate) fn of(ranks: &Ranks) -> Lanes {
        let mut long: Vec<(usize, usize, usize)> = Vec::new(); // first column, last column, edge
        for (k, &e) in ranks.forward.iter().enumerate() {
            if ranks.skipped(e) > MAX_PASS {
                long.push((ranks.layer[e.0], ranks.layer[e.1], k));
            }
        }
        long.sort_unstable();
        let mut of: IntMap<usize, i64> = IntMap::default();
        let mut free: BinaryHeap<Reverse<(usize, i64)>> = BinaryHeap::new(); // last column, lane
        let mut count = 0i64;
        for &(first, last, k) in &long {
            let lane = match free.peek() {
                Some(&Reverse((end, lane))) if end < first => {
                    free.pop();
                    lane
                }
                _ => {
                    count += 1;
                    count - 1
                }
            };
            free.push(Reverse((last, lane)));
            of.insert(k, lane);
        }
        Lanes { of, count }
    }

    /// The y of `lane`, below a grid whose lowest shape ends at `grid_bottom`.
    pub(crate) fn y(grid_bottom: i64, lane: i64) -> i64 {
        grid_bottom + 20 + lane * LANE_GAP
    }

    /// The top of the band of event subprocesses, below the lanes.
    pub(crate) fn band_y(&self, grid_bottom: i64) -> i64 {
        grid_bottom + 40 + self.count * LANE_GAP
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::render::bpmn::layout::ranking::rank;
    use crate::render::bpmn::layout::roles::Roles;
    use crate::render::bpmn::layout::tests::chain;

    #[test]
    fn long_edges_share_a_lane_where_their_columns_do_not_overlap() {
        // A chain of 12; 0 -> 5 and 6 -> 11 share lane 0, 1 -> 7 takes lane 1.
        let (_, mut p) = chain(12);
        p.connect(0, 5);
        p.connect(6, 11);
        p.connect(1, 7);
        p.connect(0, 2); // short: passes a cell, no lane
        let ranks = rank(&p, &Roles::of(&p));
        let lanes = Lanes::of(&ranks);
        assert_eq!(lanes.count, 2);
        let lane = |e| {
            lanes
                .of
                .get(&ranks.forward.iter().position(|f| *f == e).unwrap())
        };
        assert_eq!(lane((0, 5)), Some(&0));
        assert_eq!(lane((6, 11)), Some(&0));
        assert_eq!(lane((1, 7)), Some(&1));
        assert_eq!(lane((0, 2)), None);
        assert_eq!(Lanes::y(100, 1), 130);
        assert_eq!(lanes.band_y(100), 160);
    }
}
