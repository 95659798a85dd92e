//! Placing: the bounds of every node, and where the pass cells are.
//!
//! In: the node sizes, [`Roles`], [`Ranks`], the ordered [`Columns`] and
//! the [`Lanes`]. Out: [`Placing`]. Each node sits in a cell of the grid:
//! one column per layer, as wide as its widest cell, and rows of equal
//! height, the cells of a column centred on the rows. A boundary event
//! sits on the bottom edge of its host, spread along it, and the chain
//! hanging from it runs to the right in a row below the host, inside the
//! host's cell (chains share a row where they do not meet), so the cell
//! grows by its tails. Event subprocesses go to a band below the grid and
//! the lanes.

use super::geometry::Bounds;
use super::lanes::Lanes;
use super::ordering::{Cell, Columns};
use super::ranking::Ranks;
use super::roles::Roles;

/// Horizontal gap between columns.
pub(crate) const GAP_X: i64 = 50;
/// Vertical gap between rows.
const GAP_Y: i64 = 30;
/// Gap between a host and its tails, and between the nodes of a tail.
const TAIL_GAP: i64 = 40;
/// Left and right (and bottom) padding of a plane.
pub(crate) const PAD: i64 = 30;
/// Top padding of a plane.
const PAD_TOP: i64 = 40;

/// Not placed yet.
const UNPLACED: Bounds = Bounds {
    x: i64::MIN,
    y: i64::MIN,
    w: 0,
    h: 0,
};

/// Where everything of a plane's grid is.
pub(crate) struct Placing {
    /// Bounds of every node.
    pub(crate) at: Vec<Bounds>,
    /// Left of every column.
    pub(crate) col_x: Vec<i64>,
    /// Width of every column.
    pub(crate) col_w: Vec<i64>,
    /// Per forward edge, the cells it passes through (x left, x right,
    /// y): `pass_at[pass_start[k]..pass_start[k + 1]]`, in step order.
    pass_start: Vec<usize>,
    pass_at: Vec<(i64, i64, i64)>,
    /// The bottom of the lowest shape of the grid (tails included).
    pub(crate) grid_bottom: i64,
}

impl Placing {
    /// The cells forward edge `k` passes through (x left, x right, y).
    pub(crate) fn passes(&self, k: usize) -> &[(i64, i64, i64)] {
        &self.pass_at[self.pass_start[k]..self.pass_start[k + 1]]
    }
}

/// Where a boundary event and the chain hanging from it go, relative to
/// its host's cell.
struct Tail {
    host: usize,
    boundary: usize,
    /// Boundary centre, from the host's left.
    bx: i64,
    /// Tail row below the host.
    row: i64,
    /// Its chain in [`Tails::left`].
    chain: std::ops::Range<usize>,
}

/// The tails of a plane, and the cells they make their hosts.
struct Tails {
    tails: Vec<Tail>,
    /// The chains' nodes with their left, from the host's left.
    left: Vec<(usize, i64)>,
    /// Per node, the width of its cell.
    cell_w: Vec<i64>,
    /// Per node, the height of its cell.
    cell_h: Vec<i64>,
}

/// Place the nodes of a plane.
pub(crate) fn place(
    sizes: &[(i32, i32)],
    roles: &Roles,
    ranks: &Ranks,
    columns: &Columns,
    lanes: &Lanes,
) -> Placing {
    let size_of = |i: usize| (i64::from(sizes[i].0), i64::from(sizes[i].1));
    let tails = tails(sizes, roles);
    let row_h = roles
        .grid
        .iter()
        .map(|&i| size_of(i).1)
        .max()
        .unwrap_or(0)
        .max(0); // tallest node of the grid
    let mut cell_h_max = 0;
    for &i in &roles.grid {
        // Cells align the centres of their nodes; extra height hangs below.
        let below = tails.cell_h[i] - size_of(i).1;
        cell_h_max = cell_h_max.max(row_h + below);
    }
    let pitch = cell_h_max.max(row_h) + GAP_Y;
    let (col_x, col_w) = column_x(columns, &tails.cell_w);
    let max_rows = columns.max_rows() as i64;
    // Centre line of a row slot: columns with fewer cells are centred.
    let centre = |col: usize, i: usize| -> i64 {
        let count = columns.column(col).len() as i64;
        PAD_TOP + row_h / 2 + (2 * i as i64 + max_rows - count) * pitch / 2
    };
    let mut pass_start: Vec<usize> = Vec::with_capacity(ranks.forward.len() + 1);
    pass_start.push(0);
    for &e in &ranks.forward {
        pass_start.push(pass_start[pass_start.len() - 1] + ranks.passes(e));
    }
    let mut pass_at: Vec<(i64, i64, i64)> = vec![(0, 0, 0); pass_start[ranks.forward.len()]];
    let mut at: Vec<Bounds> = vec![UNPLACED; sizes.len()];
    for l in 0..columns.len() {
        for (i, c) in columns.column(l).iter().enumerate() {
            let cy = centre(l, i);
            match *c {
                Cell::Node(id) => {
                    let id = id as usize;
                    let (w, h) = size_of(id);
                    at[id] = Bounds {
                        x: col_x[l] + (col_w[l] - tails.cell_w[id]) / 2,
                        y: cy - h / 2,
                        w,
                        h,
                    };
                }
                Cell::Pass(k, step) => {
                    pass_at[pass_start[k as usize] + step as usize] =
                        (col_x[l], col_x[l] + col_w[l], cy);
                }
            }
        }
    }
    place_tails(&tails, sizes, &mut at);
    let grid_bottom = at
        .iter()
        .filter(|b| **b != UNPLACED)
        .map(Bounds::bottom)
        .max()
        .unwrap_or(PAD_TOP);
    // Event subprocesses in a band below the lanes of long edges.
    let band_y = lanes.band_y(grid_bottom);
    let mut bx = PAD;
    for &i in &roles.band {
        let (w, h) = size_of(i);
        at[i] = Bounds {
            x: bx,
            y: band_y,
            w,
            h,
        };
        bx += w + GAP_X;
    }
    assert!(
        !at.contains(&UNPLACED),
        "BPMN layout: a node of the plane was not placed"
    );
    Placing {
        at,
        col_x,
        col_w,
        pass_start,
        pass_at,
        grid_bottom,
    }
}

/// Where each boundary event and its chain go, relative to the host: the
/// events of a host spread evenly along its bottom edge, each chain in the
/// highest row below the host where it ends left of the chains already
/// there (the events are taken from right to left).
fn tails(sizes: &[(i32, i32)], roles: &Roles) -> Tails {
    let size_of = |i: usize| (i64::from(sizes[i].0), i64::from(sizes[i].1));
    let boundaries = &roles.boundaries;
    let mut tails: Vec<Tail> = Vec::with_capacity(boundaries.len());
    let mut chain_left: Vec<(usize, i64)> = Vec::with_capacity(roles.chains.len());
    let mut cell_w: Vec<i64> = sizes.iter().map(|s| i64::from(s.0)).collect();
    let mut cell_h: Vec<i64> = sizes.iter().map(|s| i64::from(s.1)).collect();
    let mut rows_right: Vec<i64> = Vec::new(); // leftmost x used in each row (right to left)
    let mut group = 0;
    while group < boundaries.len() {
        let host = boundaries[group].0;
        let end = group + boundaries[group..].partition_point(|&(h, _)| h == host);
        let (hw, _) = size_of(host);
        let count = (end - group) as i64;
        rows_right.clear();
        for j in (group..end).rev() {
            let k = j - group;
            let b = boundaries[j].1;
            let bx = hw * (k as i64 + 1) / (count + 1);
            let first = chain_left.len();
            if roles.routes(b) {
                // Nothing hangs below it; its flows leave just under the host.
                tails.push(Tail {
                    host,
                    boundary: b,
                    bx,
                    row: 0,
                    chain: first..first,
                });
                continue;
            }
            let mut x = bx;
            let mut right = bx + 18;
            for (c_at, &c) in roles.chain(j).iter().enumerate() {
                let (w, _) = size_of(c);
                let left = if c_at == 0 { bx - (w / 2).min(18) } else { x };
                chain_left.push((c, left));
                x = left + w + TAIL_GAP;
                right = left + w;
            }
            let left_most = chain_left[first..]
                .first()
                .map_or(bx - 18, |(_, l)| *l)
                .min(bx - 18);
            let row = rows_right
                .iter()
                .position(|&used| right + 20 <= used)
                .unwrap_or(rows_right.len());
            if row == rows_right.len() {
                rows_right.push(left_most);
            } else {
                rows_right[row] = left_most;
            }
            cell_w[host] = cell_w[host].max(right);
            tails.push(Tail {
                host,
                boundary: b,
                bx,
                row: row as i64,
                chain: first..chain_left.len(),
            });
        }
        let rows = rows_right.len() as i64;
        cell_h[host] += TAIL_GAP + rows * 80;
        group = end;
    }
    Tails {
        tails,
        left: chain_left,
        cell_w,
        cell_h,
    }
}

/// The left and width of every column: as wide as its widest cell (a pass
/// is 20 wide), from the padding on, with a gap between.
fn column_x(columns: &Columns, cell_w: &[i64]) -> (Vec<i64>, Vec<i64>) {
    let mut col_x = Vec::with_capacity(columns.len());
    let mut col_w = Vec::with_capacity(columns.len());
    let mut x = PAD;
    for l in 0..columns.len() {
        let w = columns
            .column(l)
            .iter()
            .map(|c| match *c {
                Cell::Node(i) => cell_w[i as usize],
                Cell::Pass(..) => 20,
            })
            .max()
            .unwrap_or(0);
        col_x.push(x);
        col_w.push(w);
        x += w + GAP_X;
    }
    (col_x, col_w)
}

/// Place the boundary events on their hosts and their chains below.
fn place_tails(tails: &Tails, sizes: &[(i32, i32)], at: &mut [Bounds]) {
    for t in &tails.tails {
        let hb = at[t.host];
        assert!(hb != UNPLACED, "the host of a boundary event is placed");
        at[t.boundary] = Bounds {
            x: hb.x + t.bx - 18,
            y: hb.bottom() - 18,
            w: 36,
            h: 36,
        };
        let row_cy = hb.bottom() + TAIL_GAP + 40 + t.row * 80;
        for &(c, left) in &tails.left[t.chain.clone()] {
            let (w, h) = (i64::from(sizes[c].0), i64::from(sizes[c].1));
            at[c] = Bounds {
                x: hb.x + left,
                y: row_cy - h / 2,
                w,
                h,
            };
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::render::bpmn::graph::{Kind, Plane};
    use crate::render::bpmn::layout::ordering::order;
    use crate::render::bpmn::layout::ranking::rank;
    use crate::render::bpmn::layout::tests::{boundary, chain, diamond, plane, sizes, task};

    fn placing_of(p: &Plane) -> Placing {
        let roles = Roles::of(p);
        let ranks = rank(p, &roles);
        let columns = order(&roles, &ranks);
        let lanes = Lanes::of(&ranks);
        place(&sizes(p), &roles, &ranks, &columns, &lanes)
    }

    fn xywh(b: Bounds) -> (i64, i64, i64, i64) {
        (b.x, b.y, b.w, b.h)
    }

    #[test]
    fn a_chain_of_tasks_sits_on_one_row() {
        let (_, p) = chain(3);
        let at = placing_of(&p).at;
        // Tasks are 100 x 80; columns 50 apart from the padding of 30.
        assert_eq!(xywh(at[0]), (30, 40, 100, 80));
        assert_eq!(xywh(at[1]), (180, 40, 100, 80));
        assert_eq!(xywh(at[2]), (330, 40, 100, 80));
    }

    #[test]
    fn the_branches_of_a_diamond_are_stacked_and_the_ends_centred() {
        let (_, p) = diamond();
        let at = placing_of(&p).at;
        // Two rows of pitch 80 + 30; the single cells sit between them.
        assert_eq!(xywh(at[1]), (180, 40, 100, 80));
        assert_eq!(xywh(at[2]), (180, 150, 100, 80));
        assert_eq!(at[0].cy(), (at[1].cy() + at[2].cy()) / 2);
        assert_eq!(at[3].cy(), at[0].cy());
    }

    #[test]
    fn a_long_edge_passes_cells_between_its_ends() {
        // 0 -> 1 -> 2 -> 3 and 0 -> 3: passes in columns 1 and 2, on the
        // upper row, above the chain.
        let (_, mut p) = chain(4);
        p.connect(0, 3);
        let placing = placing_of(&p);
        let upper = placing.at[0].cy() - 55;
        assert_eq!(placing.passes(3), [(180, 280, upper), (330, 430, upper)]);
        assert_eq!(placing.at[1].cy(), placing.at[0].cy() + 55);
        assert!(placing.passes(0).is_empty());
    }

    #[test]
    fn a_boundary_event_sits_on_its_host_and_its_chain_below() {
        let (mut text, mut p) = plane();
        let a = task(&mut text, &mut p, "a");
        let b = boundary(&mut text, &mut p, a, false);
        let e = p.add(text.add("e"), Default::default(), Kind::End(None));
        p.connect(b, e);
        let placing = placing_of(&p);
        let (host, at) = (placing.at[a], &placing.at);
        assert_eq!(xywh(host), (30, 40, 100, 80));
        // In the middle of the host's bottom edge.
        assert_eq!(xywh(at[b]), (62, 102, 36, 36));
        // One row below: host bottom + 40 + 40 is the row's centre line.
        assert_eq!(xywh(at[e]), (62, 182, 36, 36));
        assert_eq!(placing.grid_bottom, 218);
    }
}
