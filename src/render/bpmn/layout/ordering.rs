//! Ordering: the columns of the grid, and the order of the cells in each.
//!
//! In: [`Roles`] (the nodes of the grid) and [`Ranks`]. Out: [`Columns`].
//! Column `l` holds the nodes of layer `l` and a pass cell for every
//! forward edge that skips layer `l` (unless it is long and takes a lane).
//! Cells start in plane order (a pass by the node its edge leaves), then
//! two sweeps from left to right order each column by the mean position of
//! the cells before it on its edges (ties keep the order), which keeps
//! most flows straight and few crossing.

use super::ranking::Ranks;
use super::roles::Roles;

/// A cell of the grid: a node, or a place a long edge passes through
/// (eight bytes: a plane's grid has a cell per node and pass).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Cell {
    /// Node index.
    Node(u32),
    /// Forward edge index, step (0 for the first layer it passes).
    Pass(u32, u8),
}

/// The columns of a grid, each a run of cells from top to bottom.
pub(crate) struct Columns {
    /// Column `l` is `cells[start[l]..start[l + 1]]`.
    start: Vec<usize>,
    cells: Vec<Cell>,
}

impl Columns {
    /// How many columns there are.
    pub(crate) fn len(&self) -> usize {
        self.start.len() - 1
    }

    /// The cells of column `l`, from top to bottom.
    pub(crate) fn column(&self, l: usize) -> &[Cell] {
        &self.cells[self.start[l]..self.start[l + 1]]
    }

    /// How many cells the fullest column has (at least one).
    pub(crate) fn max_rows(&self) -> usize {
        (0..self.len())
            .map(|l| self.column(l).len())
            .max()
            .unwrap_or(1)
            .max(1)
    }
}

/// The columns of the grid, ordered.
pub(crate) fn order(roles: &Roles, ranks: &Ranks) -> Columns {
    let mut columns = columns(roles, ranks);
    sweep(&mut columns, ranks);
    columns
}

/// The columns: nodes (in plane order) and the cells that long edges pass
/// through (in edge order), each column sorted by the node a cell is or
/// leaves.
fn columns(roles: &Roles, ranks: &Ranks) -> Columns {
    let (layer, layers) = (&ranks.layer, ranks.layers);
    let mut start = vec![0usize; layers + 1];
    for &i in &roles.grid {
        start[layer[i] + 1] += 1;
    }
    for &(f, t) in &ranks.forward {
        if ranks.passes((f, t)) > 0 {
            for l in layer[f] + 1..layer[t] {
                start[l + 1] += 1;
            }
        }
    }
    for l in 0..layers {
        start[l + 1] += start[l];
    }
    let mut cells = vec![Cell::Node(0); start[layers]];
    let mut fill = start.clone();
    for &i in &roles.grid {
        cells[fill[layer[i]]] = Cell::Node(i as u32);
        fill[layer[i]] += 1;
    }
    for (k, &(f, t)) in ranks.forward.iter().enumerate() {
        if ranks.passes((f, t)) > 0 {
            for (step, l) in (layer[f] + 1..layer[t]).enumerate() {
                cells[fill[l]] = Cell::Pass(k as u32, step as u8);
                fill[l] += 1;
            }
        }
    }
    let key = |c: &Cell| -> usize {
        match *c {
            Cell::Node(i) => i as usize,
            Cell::Pass(k, _) => ranks.forward[k as usize].0,
        }
    };
    for l in 0..layers {
        cells[start[l]..start[l + 1]].sort_by_key(key);
    }
    Columns { start, cells }
}

/// Order within columns: by the mean row of the predecessors (two
/// sweeps), ties by the order before. Positions are of nodes and of the
/// last placed pass cell of each forward edge (NaN: not placed yet),
/// counted from the middle of their column.
fn sweep(columns: &mut Columns, ranks: &Ranks) {
    let mut node_pos: Vec<f64> = vec![f64::NAN; ranks.layer.len()];
    let mut pass_pos: Vec<f64> = vec![f64::NAN; ranks.forward.len()];
    let mut preds: Vec<f64> = Vec::new();
    let mut keyed: Vec<(f64, usize, Cell)> = Vec::new();
    for _ in 0..2 {
        node_pos.fill(f64::NAN);
        pass_pos.fill(f64::NAN);
        for l in 0..columns.len() {
            let col = &mut columns.cells[columns.start[l]..columns.start[l + 1]];
            if l > 0 {
                keyed.clear();
                keyed.extend(col.iter().enumerate().map(|(i, c)| {
                    preds.clear();
                    predecessors(ranks, l, *c, &node_pos, &pass_pos, &mut preds);
                    let mean = if preds.is_empty() {
                        i as f64
                    } else {
                        preds.iter().sum::<f64>() / preds.len() as f64
                    };
                    (mean, i, *c)
                }));
                keyed.sort_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
                for (slot, &(_, _, c)) in col.iter_mut().zip(&keyed) {
                    *slot = c;
                }
            }
            let count = col.len() as f64;
            for (i, c) in col.iter().enumerate() {
                let p = i as f64 - (count - 1.0) / 2.0;
                match *c {
                    Cell::Node(id) => node_pos[id as usize] = p,
                    Cell::Pass(k, _) => pass_pos[k as usize] = p,
                }
            }
        }
    }
}

/// The placed positions of the cells before cell `c` of column `l` on its
/// forward edges, appended to `preds`.
fn predecessors(
    ranks: &Ranks,
    l: usize,
    c: Cell,
    node_pos: &[f64],
    pass_pos: &[f64],
    preds: &mut Vec<f64>,
) {
    match c {
        Cell::Node(id) => {
            for &k in ranks.fwd.incoming(id as usize) {
                let k = k as usize;
                let f = ranks.forward[k].0;
                let p = if ranks.layer[f] + 1 == l {
                    node_pos[f]
                } else {
                    pass_pos[k]
                };
                if !p.is_nan() {
                    preds.push(p);
                }
            }
        }
        Cell::Pass(k, step) => {
            let k = k as usize;
            let f = ranks.forward[k].0;
            let p = if step == 0 { node_pos[f] } else { pass_pos[k] };
            if !p.is_nan() {
                preds.push(p);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::render::bpmn::layout::ranking::rank;
    use crate::render::bpmn::layout::tests::{chain, diamond, plane, task};

    fn columns_of(p: &crate::render::bpmn::graph::Plane) -> Columns {
        let roles = Roles::of(p);
        order(&roles, &rank(p, &roles))
    }

    #[test]
    fn a_diamond_has_its_branches_in_one_column_in_plane_order() {
        let (_, p) = diamond();
        let c = columns_of(&p);
        assert_eq!(c.len(), 3);
        assert_eq!(c.column(0), [Cell::Node(0)]);
        assert_eq!(c.column(1), [Cell::Node(1), Cell::Node(2)]);
        assert_eq!(c.column(2), [Cell::Node(3)]);
        assert_eq!(c.max_rows(), 2);
    }

    #[test]
    fn a_fork_with_a_long_edge_passes_cells_in_the_layers_it_skips() {
        // 0 -> 1 -> 2 -> 3 and 0 -> 3: the edge 0 -> 3 passes layers 1 and 2.
        let (_, mut p) = chain(4);
        p.connect(0, 3);
        let c = columns_of(&p);
        // The passes start by the node their edge leaves, above the chain.
        assert_eq!(c.column(1), [Cell::Pass(3, 0), Cell::Node(1)]);
        assert_eq!(c.column(2), [Cell::Pass(3, 1), Cell::Node(2)]);
        assert_eq!(c.column(3), [Cell::Node(3)]);
    }

    #[test]
    fn cells_follow_the_rows_of_their_predecessors() {
        // s -> a, s -> b; b -> x, a -> y: x (created first) follows b, so
        // it goes below y, which follows a.
        let (mut text, mut p) = plane();
        let s = task(&mut text, &mut p, "s");
        let a = task(&mut text, &mut p, "a");
        let b = task(&mut text, &mut p, "b");
        let x = task(&mut text, &mut p, "x");
        let y = task(&mut text, &mut p, "y");
        p.connect(s, a);
        p.connect(s, b);
        p.connect(b, x);
        p.connect(a, y);
        let c = columns_of(&p);
        assert_eq!(c.column(1), [Cell::Node(a as u32), Cell::Node(b as u32)]);
        assert_eq!(c.column(2), [Cell::Node(y as u32), Cell::Node(x as u32)]);
    }
}
