//! Routing: the waypoints of every flow and association of a plane.
//!
//! In: the [`Plane`], its [`Roles`], [`Ranks`] and [`Lanes`], and the
//! [`Placing`] of its nodes. Out: [`Points`]. A forward edge leaves the
//! right of its source and enters the left of its target, turning in the
//! gaps between columns to pass through its pass cells, or down to its
//! lane and back up if it is long; a loop returns below everything on its
//! row between its ends; a flow of a tail runs down or right to the node
//! it hangs over; out of an error event that routes a failure, a flow
//! starts just below the event (inside the host's cell), as if from the
//! host's column; an association runs from the bottom of its event into
//! the top of its handler.

use super::geometry::{Bounds, narrow};
use super::index::IntMap;
use super::index::NONE;
use super::lanes::Lanes;
use super::placing::{GAP_X, Placing};
use super::ranking::Ranks;
use super::roles::Roles;
use crate::render::bpmn::graph::{Flow, Plane};

/// How far below the shapes of its row a loop returns.
const LOOP_DROP: i64 = 25;

/// Waypoints, kept in 32 bits (`wide` if one did not fit), and where
/// each edge's end; or, `counting`, only how many there would be.
#[derive(Default)]
pub(crate) struct Points {
    /// The waypoints of all edges, one after the other.
    pub(crate) v: Vec<(i32, i32)>,
    /// Where each edge's waypoints end in `v`.
    pub(crate) ends: Vec<u32>,
    /// Whether a waypoint did not fit in 32 bits.
    pub(crate) wide: bool,
    counting: bool,
    len: usize,
}

impl Points {
    fn push(&mut self, (x, y): (i64, i64)) {
        if self.counting {
            self.len += 1;
            return;
        }
        let p = (narrow(x, &mut self.wide), narrow(y, &mut self.wide));
        self.v.push(p);
    }

    fn extend<const N: usize>(&mut self, points: [(i64, i64); N]) {
        for p in points {
            self.push(p);
        }
    }

    /// The edge being routed ends here.
    fn close(&mut self) {
        if !self.counting {
            self.ends
                .push(u32::try_from(self.v.len()).unwrap_or(u32::MAX));
        }
    }
}

/// What routing reads.
pub(crate) struct Router<'r> {
    /// The plane.
    pub(crate) plane: &'r Plane,
    /// Its roles.
    pub(crate) roles: &'r Roles,
    /// Its ranks.
    pub(crate) ranks: &'r Ranks,
    /// Its lanes.
    pub(crate) lanes: &'r Lanes,
    /// Where its nodes are.
    pub(crate) placing: &'r Placing,
}

/// The shapes of each row (by centre line) with the widest of them, by x,
/// to find the lowest in a range quickly.
type Rows = IntMap<i64, (i64, Vec<usize>)>;

impl Router<'_> {
    /// Route every flow, then every association. Routed twice: counted,
    /// then stored in a vector of that size (the waypoints are the largest
    /// vector of a large plane's layout, and one grown by doubling would be
    /// up to twice their size at the peak).
    pub(crate) fn route(&self) -> Points {
        let rows = self.rows();
        let mut count = Points {
            counting: true,
            ..Points::default()
        };
        self.route_into(&rows, &mut count);
        let mut points = Points {
            v: Vec::with_capacity(count.len),
            ends: Vec::with_capacity(self.plane.flows.len() + self.plane.associations.len()),
            ..Points::default()
        };
        self.route_into(&rows, &mut points);
        points
    }

    /// The rows loops need (none if there are no loops).
    fn rows(&self) -> Rows {
        let at = &self.placing.at;
        let mut rows = Rows::default(); // widest shape, shapes
        if !self.ranks.back.is_empty() {
            for (i, b) in at.iter().enumerate() {
                let row = rows.entry(b.cy()).or_default();
                row.0 = row.0.max(b.w);
                row.1.push(i);
            }
            for (_, r) in rows.values_mut() {
                r.sort_by_key(|&i| (at[i].x, i));
            }
        }
        rows
    }

    fn route_into(&self, rows: &Rows, points: &mut Points) {
        let at = &self.placing.at;
        for (fi, f) in self.plane.flows.iter().enumerate() {
            self.flow(rows, fi, f, points);
            points.close();
        }
        for a in &self.plane.associations {
            let (s, t) = (at[a.from], at[a.to]);
            let x = s.cx().clamp(t.x + 1, t.right() - 1);
            points.extend([(s.cx(), s.bottom()), (x, t.y)]);
            points.close();
        }
    }

    /// The waypoints of flow `fi`.
    fn flow(&self, rows: &Rows, fi: usize, f: &Flow, points: &mut Points) {
        let at = &self.placing.at;
        let (from, to) = (f.from(), f.to());
        let (s, t) = (at[from], at[to]);
        let routes = self.roles.routes(from);
        let forward_edge = self.ranks.flow_forward[fi];
        let lane = if forward_edge == NONE {
            None
        } else {
            self.lanes.of.get(&forward_edge)
        };
        if self.roles.hanging[from] && !routes {
            if t.y > s.bottom() && t.x <= s.cx() && s.cx() <= t.right() {
                // Straight down into the node below.
                points.extend([(s.cx(), s.bottom()), (s.cx(), t.y)]);
            } else if t.cy() == s.cy() {
                points.extend([(s.right(), s.cy()), (t.x, t.cy())]);
            } else {
                points.extend([(s.cx(), s.bottom()), (s.cx(), t.cy()), (t.x, t.cy())]);
            }
        } else if let Some(&lane) = lane {
            self.through_lane(from, to, lane, points);
        } else if forward_edge != NONE {
            self.through_passes(from, to, forward_edge, points);
        } else if self.ranks.back.contains(&(from, to)) {
            let y = loop_y(rows, at, &s, &t);
            points.extend([
                (s.cx(), s.bottom()),
                (s.cx(), y),
                (t.cx(), y),
                (t.cx(), t.bottom()),
            ]);
        } else {
            // Into a node that hangs or sits in the band: straight.
            points.extend([(s.right(), s.cy()), (t.x, t.cy())]);
        }
    }

    /// Where a flow out of node `from` starts: the right of its source,
    /// or, out of an error event that routes a failure, just below the
    /// event (inside the host's cell). Its first waypoints go to `points`;
    /// returns its y.
    fn start(&self, from: usize, points: &mut Points) -> i64 {
        let s = self.placing.at[from];
        if self.roles.routes(from) {
            let start_y = s.bottom() + 10;
            points.extend([(s.cx(), s.bottom()), (s.cx(), start_y)]);
            start_y
        } else {
            points.push((s.right(), s.cy()));
            s.cy()
        }
    }

    /// A long edge: out of the source's column, down the gap to the lane,
    /// along it to the gap before the target's column, up, and in.
    fn through_lane(&self, from: usize, to: usize, lane: i64, points: &mut Points) {
        let p = self.placing;
        let t = p.at[to];
        let (lf, lt) = (
            self.ranks.layer[self.roles.source(from)],
            self.ranks.layer[to],
        );
        let down = p.col_x[lf] + p.col_w[lf] + GAP_X / 2;
        let up = p.col_x[lt] - GAP_X / 2;
        let y = Lanes::y(p.grid_bottom, lane);
        let start_y = self.start(from, points);
        points.extend([
            (down, start_y),
            (down, y),
            (up, y),
            (up, t.cy()),
            (t.x, t.cy()),
        ]);
    }

    /// A forward edge through its pass cells, turning halfway between
    /// columns where the row changes.
    fn through_passes(&self, from: usize, to: usize, k: usize, points: &mut Points) {
        let p = self.placing;
        let (s, t) = (p.at[from], p.at[to]);
        let src_layer = self.ranks.layer[self.roles.source(from)];
        let mut cur_y = self.start(from, points);
        let mut cur_right = s.right().max(p.col_x[src_layer] + p.col_w[src_layer]);
        for &(left, right, y) in p.passes(k) {
            if y != cur_y {
                let mx = cur_right + (left - cur_right) / 2;
                points.push((mx, cur_y));
                points.push((mx, y));
            }
            cur_y = y;
            cur_right = right;
        }
        if t.cy() != cur_y {
            let left = p.col_x[self.ranks.layer[to]];
            let mx = cur_right + (left - cur_right) / 2;
            points.push((mx, cur_y));
            points.push((mx, t.cy()));
        }
        points.push((t.x, t.cy()));
    }
}

/// The y a loop from `from` back to `to` returns at: below both ends and
/// everything on their row between them.
fn loop_y(rows: &Rows, at: &[Bounds], from: &Bounds, to: &Bounds) -> i64 {
    let (lo, hi) = (to.x.min(from.x), from.right().max(to.right()));
    let lowest = rows.get(&from.cy()).map_or(0, |(widest, row)| {
        // Shapes with x < hi and right > lo; those starting at or
        // before lo - widest end at or before lo.
        let start = row.partition_point(|&i| at[i].x <= lo - widest);
        let end = row.partition_point(|&i| at[i].x < hi);
        row[start..end.max(start)]
            .iter()
            .map(|&i| at[i])
            .filter(|b| b.right() > lo)
            .map(|b| b.bottom())
            .max()
            .unwrap_or(0)
    });
    from.bottom().max(to.bottom()).max(lowest) + LOOP_DROP
}
