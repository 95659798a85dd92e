//! BPMNDI layout: every plane is laid out left to right in layers, the
//! layer of a node being the longest path to it from a start (loops
//! ignored). Each node sits in a cell of a grid (one column per layer,
//! rows of equal height); an edge that skips layers passes through
//! reserved cells of the layers in between, so no edge runs through a
//! shape; one that skips many layers runs in a lane below the grid
//! instead, so the diagram stays linear in the plan's size. Boundary events sit on the bottom edge of their host and what
//! follows them is drawn below it, inside the host's cell, except after
//! an error event that routes a failure on into the graph (`on_failure`):
//! its flows are laid out like flows out of its host, leaving the host's
//! cell below the host; event subprocesses get a band below the grid;
//! loops return below their row.
//!
//! In: a [`Plane`]. Out: one [`Diagram`] for the plane (expanded
//! subprocesses included) and one more for every collapsed subprocess.
//! Integer coordinates only, so the output is the same on every machine.

use std::cmp::Reverse;
use std::collections::{BTreeMap, BinaryHeap, HashMap, HashSet, VecDeque};
use std::hash::BuildHasherDefault;

use super::graph::{Adjacency, Kind, Plane, Repeat, Text};

/// A shape's bounds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Bounds {
    /// Left.
    pub x: i64,
    /// Top.
    pub y: i64,
    /// Width.
    pub w: i64,
    /// Height.
    pub h: i64,
}

impl Bounds {
    fn right(&self) -> i64 {
        self.x + self.w
    }
    fn bottom(&self) -> i64 {
        self.y + self.h
    }
    fn cx(&self) -> i64 {
        self.x + self.w / 2
    }
    fn cy(&self) -> i64 {
        self.y + self.h / 2
    }
    /// Whether two shapes overlap (touching edges do not count).
    pub fn overlaps(&self, o: &Bounds) -> bool {
        self.x < o.right() && o.x < self.right() && self.y < o.bottom() && o.y < self.bottom()
    }
    /// Whether `o` lies inside this one.
    pub fn contains(&self, o: &Bounds) -> bool {
        self.x <= o.x && self.y <= o.y && o.right() <= self.right() && o.bottom() <= self.bottom()
    }
}

/// One shape of a diagram.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Shape<'a> {
    /// The element it draws.
    pub id: &'a str,
    /// Where.
    pub bounds: Bounds,
    /// For subprocesses: drawn open (`Some(true)`) or collapsed.
    pub expanded: Option<bool>,
}

/// The element an edge draws.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EdgeOf<'a> {
    /// Flow `k` of a plane.
    Flow(&'a Plane, usize),
    /// An association, by id.
    Association(&'a str),
}

/// One edge of a diagram (sequence flow or association).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Edge<'a> {
    /// The element it draws.
    pub element: EdgeOf<'a>,
    /// Waypoints, at least two.
    pub points: Vec<(i64, i64)>,
}

/// The diagram of one plane.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Diagram<'a> {
    /// The process or collapsed subprocess it shows.
    pub element: &'a str,
    /// Shapes, parents before children.
    pub shapes: Vec<Shape<'a>>,
    /// Edges.
    pub edges: Vec<Edge<'a>>,
    /// A deferred subprocess ([`Kind::Deferred`] with this key): its
    /// diagrams are laid out and written when it is built, and this one
    /// only marks where they go.
    pub deferred: Option<usize>,
}

const GAP_X: i64 = 50;
const GAP_Y: i64 = 30;
const TAIL_GAP: i64 = 40;
const PAD: i64 = 30;
const PAD_TOP: i64 = 40;
const LOOP_DROP: i64 = 25;
/// An edge that skips more layers than this does not pass through cells
/// of the layers in between: it drops into a lane below the grid. Passing
/// through every layer would cost a cell and two waypoints per layer, and
/// in a deep plan (a long DependsOn chain) edges skipping hundreds of
/// layers would make the diagram quadratic in the plan's size.
const MAX_PASS: usize = 3;
/// Vertical distance between lanes.
const LANE_GAP: i64 = 10;

/// The size a node is drawn with (expanded subprocesses: their content).
fn size(kind: &Kind, expanded: Option<(i64, i64)>) -> (i64, i64) {
    match kind {
        Kind::Start(_) | Kind::End(_) | Kind::Timer(_) | Kind::Compensate | Kind::Marker => {
            (36, 36)
        }
        Kind::Boundary { .. } => (36, 36),
        Kind::Xor(_) | Kind::And => (50, 50),
        Kind::Http(_) | Kind::Script(_) => (100, 80),
        Kind::Sub(s) if s.expanded => expanded.unwrap_or((200, 120)),
        Kind::Sub(_) | Kind::Deferred(_) => (140, 80),
    }
}

/// Lay out a process plane: its diagram first, then one per collapsed
/// subprocess. (The content of a collapsed subprocess, `process` being its
/// id, is laid out the same way.)
pub fn layout<'a>(text: &'a Text, process: &'a str, plane: &'a Plane) -> Vec<Diagram<'a>> {
    let mut out = vec![Diagram {
        element: process,
        ..Diagram::default()
    }];
    let placed = place(text, plane, &mut out);
    let main = &mut out[0];
    append(placed, 100, 80, &mut main.shapes, &mut main.edges);
    out
}

/// A plane laid out at the origin.
struct Placed<'a> {
    shapes: Vec<Shape<'a>>,
    edges: Vec<Edge<'a>>,
    w: i64,
    h: i64,
}

/// Move a placed plane by (dx, dy) onto the end of `shapes` and `edges`.
fn append<'a>(
    mut p: Placed<'a>,
    dx: i64,
    dy: i64,
    shapes: &mut Vec<Shape<'a>>,
    edges: &mut Vec<Edge<'a>>,
) {
    for s in &mut p.shapes {
        s.bounds.x += dx;
        s.bounds.y += dy;
    }
    for e in &mut p.edges {
        for (x, y) in &mut e.points {
            *x += dx;
            *y += dy;
        }
    }
    if shapes.is_empty() {
        *shapes = p.shapes;
    } else {
        shapes.append(&mut p.shapes);
    }
    if edges.is_empty() {
        *edges = p.edges;
    } else {
        edges.append(&mut p.edges);
    }
}

/// A hasher for small integer keys (indices, coordinates): the layout's
/// maps are looked up once per flow or shape, where SipHash costs more
/// than the rest of the work.
#[derive(Default, Clone, Copy)]
struct IntHasher(u64);

impl std::hash::Hasher for IntHasher {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.write_u64(u64::from(b));
        }
    }
    fn write_u64(&mut self, n: u64) {
        self.0 = (self.0.rotate_left(5) ^ n).wrapping_mul(0x51_7c_c1_b7_27_22_0a_95);
    }
    fn write_usize(&mut self, n: usize) {
        self.write_u64(n as u64);
    }
    fn write_i64(&mut self, n: i64) {
        self.write_u64(n as u64);
    }
}

type IntMap<K, V> = HashMap<K, V, BuildHasherDefault<IntHasher>>;
type IntSet<K> = HashSet<K, BuildHasherDefault<IntHasher>>;

/// A cell of the grid: a node, or a place a long edge passes through.
#[derive(Clone, Copy)]
enum Cell {
    /// Node index.
    Node(usize),
    /// Forward edge index, step (0 for the first layer it passes).
    Pass(usize, usize),
}

/// Lay out one plane at the origin. Collapsed subprocesses are laid out
/// into diagrams of their own, appended to `diagrams`. Every step is
/// linear in the plane's nodes, flows and the cells long edges pass
/// through.
fn place<'a>(text: &'a Text, plane: &'a Plane, diagrams: &mut Vec<Diagram<'a>>) -> Placed<'a> {
    let n = plane.nodes.len();
    // Children first: expanded ones give their size, collapsed ones a diagram.
    let mut inner: Vec<Option<Placed<'a>>> = (0..n).map(|_| None).collect();
    for (i, node) in plane.nodes.iter().enumerate() {
        if let Kind::Deferred(key) = node.kind {
            diagrams.push(Diagram {
                element: text.get(node.id),
                deferred: Some(key),
                ..Diagram::default()
            });
        } else if let Kind::Sub(s) = &node.kind {
            if s.expanded {
                inner[i] = Some(place(text, &s.plane, diagrams));
            } else {
                let index = diagrams.len();
                diagrams.push(Diagram {
                    element: text.get(node.id),
                    ..Diagram::default()
                });
                let p = place(text, &s.plane, diagrams);
                let d = &mut diagrams[index];
                append(p, 100, 80, &mut d.shapes, &mut d.edges);
            }
        }
    }
    let sizes: Vec<(i64, i64)> = plane
        .nodes
        .iter()
        .zip(&inner)
        .map(|(node, p)| size(&node.kind, p.as_ref().map(|p| (p.w, p.h))))
        .collect();
    let adj = plane.adjacency();

    // Which nodes are laid out in the grid, which hang below a host, which go to the band.
    let mut boundaries: BTreeMap<usize, Vec<usize>> = BTreeMap::new(); // host -> boundary events
    // Boundary events whose flows go on into the grid: their host.
    let mut routes_from: Vec<Option<usize>> = vec![None; n];
    let mut hanging = vec![false; n];
    let mut in_band = vec![false; n];
    let mut band: Vec<usize> = Vec::new();
    for (i, node) in plane.nodes.iter().enumerate() {
        match &node.kind {
            Kind::Boundary { host, routes, .. } => {
                boundaries.entry(*host).or_default().push(i);
                hanging[i] = true;
                if *routes {
                    routes_from[i] = Some(*host);
                }
            }
            Kind::Sub(s) if s.repeat == Repeat::OnError => {
                band.push(i);
                in_band[i] = true;
            }
            _ => {}
        }
    }
    // Tails: everything reachable from a boundary event.
    let mut first_assoc: Vec<Option<usize>> = vec![None; n];
    for a in &plane.associations {
        first_assoc[a.from].get_or_insert(a.to);
    }
    let mut tails: Vec<Vec<usize>> = vec![Vec::new(); n];
    for ids in boundaries.values() {
        for &b in ids {
            if routes_from[b].is_some() {
                continue;
            }
            let mut chain = Vec::new();
            let mut cur = b;
            loop {
                let next = adj
                    .outgoing(cur)
                    .first()
                    .map(|&f| plane.flows[f].to)
                    .or(first_assoc[cur]);
                match next {
                    Some(x) if !hanging[x] => {
                        hanging[x] = true;
                        chain.push(x);
                        cur = x;
                    }
                    _ => break,
                }
            }
            tails[b] = chain;
        }
    }
    let in_grid: Vec<bool> = (0..n).map(|i| !hanging[i] && !in_band[i]).collect();
    let grid: Vec<usize> = (0..n).filter(|&i| in_grid[i]).collect();

    // Back edges: found by a depth-first search from the start events.
    // A stack entry is a node and the position in its outgoing flows
    // where the search goes on.
    let mut back: IntSet<(usize, usize)> = IntSet::default();
    let mut state = vec![0u8; n]; // 0 new, 1 on stack, 2 done
    for &root in &grid {
        if state[root] != 0 {
            continue;
        }
        let mut stack: Vec<(usize, usize)> = vec![(root, 0)];
        state[root] = 1;
        while let Some((node, pos)) = stack.pop() {
            let out = adj.outgoing(node);
            let next = (pos..out.len()).find(|&j| in_grid[plane.flows[out[j]].to]);
            if let Some(j) = next {
                stack.push((node, j + 1));
                let t = plane.flows[out[j]].to;
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
    // Forward edges, and for every flow the first forward edge with its ends.
    let mut forward: Vec<(usize, usize)> = Vec::new();
    let mut first_forward: IntMap<(usize, usize), usize> = IntMap::default();
    let mut flow_forward: Vec<Option<usize>> = vec![None; plane.flows.len()];
    for (k, f) in plane.flows.iter().enumerate() {
        // A flow out of an error event that routes a failure leaves its host.
        let from = routes_from[f.from].unwrap_or(f.from);
        let pair = (from, f.to);
        if in_grid[from] && in_grid[f.to] && !back.contains(&pair) {
            let next = forward.len();
            flow_forward[k] = Some(*first_forward.entry(pair).or_insert(next));
            forward.push(pair);
        }
    }
    let fwd = Adjacency::new(n, forward.iter().copied());

    // Layers: longest path, in a topological order of the forward edges.
    let mut layer = vec![0usize; n];
    let mut indeg: Vec<usize> = (0..n).map(|i| fwd.incoming(i).len()).collect();
    let mut ready: VecDeque<usize> = grid.iter().copied().filter(|&i| indeg[i] == 0).collect();
    while let Some(v) = ready.pop_front() {
        for &k in fwd.outgoing(v) {
            let t = forward[k].1;
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
    let layers = grid.iter().map(|&i| layer[i]).max().map_or(0, |m| m + 1);

    // Columns hold nodes and the cells that long edges pass through.
    let mut columns: Vec<Vec<Cell>> = vec![Vec::new(); layers];
    for &i in &grid {
        columns[layer[i]].push(Cell::Node(i));
    }
    // Long edges get a lane instead: lanes are reused by edges whose
    // column ranges do not overlap (interval partitioning, in order of
    // the first column).
    let mut long: Vec<(usize, usize, usize)> = Vec::new(); // first column, last column, edge
    for (k, &(f, t)) in forward.iter().enumerate() {
        if layer[t] - layer[f] - 1 > MAX_PASS {
            long.push((layer[f], layer[t], k));
            continue;
        }
        for (step, l) in (layer[f] + 1..layer[t]).enumerate() {
            columns[l].push(Cell::Pass(k, step));
        }
    }
    long.sort_unstable();
    let mut lane_of: IntMap<usize, i64> = IntMap::default();
    let mut free: BinaryHeap<Reverse<(usize, i64)>> = BinaryHeap::new(); // last column, lane
    let mut lanes = 0i64;
    for &(first, last, k) in &long {
        let lane = match free.peek() {
            Some(&Reverse((end, lane))) if end < first => {
                free.pop();
                lane
            }
            _ => {
                lanes += 1;
                lanes - 1
            }
        };
        free.push(Reverse((last, lane)));
        lane_of.insert(k, lane);
    }
    // Order within columns: by the mean row of the predecessors (two sweeps), ties by creation.
    let key = |c: &Cell| -> usize {
        match *c {
            Cell::Node(i) => i,
            Cell::Pass(k, _) => forward[k].0,
        }
    };
    for col in columns.iter_mut() {
        col.sort_by_key(key);
    }
    // Positions: of nodes, and of the last placed pass cell of each forward edge.
    let mut node_pos: Vec<Option<f64>> = vec![None; n];
    let mut pass_pos: Vec<Option<f64>> = vec![None; forward.len()];
    let mut preds: Vec<f64> = Vec::new();
    for _ in 0..2 {
        node_pos.fill(None);
        pass_pos.fill(None);
        for (l, col) in columns.iter_mut().enumerate() {
            if l > 0 {
                let mut keyed: Vec<(f64, usize, Cell)> = col
                    .iter()
                    .enumerate()
                    .map(|(i, c)| {
                        preds.clear();
                        match *c {
                            Cell::Node(id) => {
                                for &k in fwd.incoming(id) {
                                    let f = forward[k].0;
                                    let p = if layer[f] + 1 == l {
                                        node_pos[f]
                                    } else {
                                        pass_pos[k]
                                    };
                                    preds.extend(p);
                                }
                            }
                            Cell::Pass(k, step) => {
                                let f = forward[k].0;
                                let p = if step == 0 { node_pos[f] } else { pass_pos[k] };
                                preds.extend(p);
                            }
                        }
                        let mean = if preds.is_empty() {
                            i as f64
                        } else {
                            preds.iter().sum::<f64>() / preds.len() as f64
                        };
                        (mean, i, *c)
                    })
                    .collect();
                keyed.sort_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
                *col = keyed.into_iter().map(|(_, _, c)| c).collect();
            }
            let count = col.len() as f64;
            for (i, c) in col.iter().enumerate() {
                let p = i as f64 - (count - 1.0) / 2.0;
                match *c {
                    Cell::Node(id) => node_pos[id] = Some(p),
                    Cell::Pass(k, _) => pass_pos[k] = Some(p),
                }
            }
        }
    }

    // Tails: where each boundary event and its chain go, relative to the host.
    struct Tail {
        boundary: usize,
        bx: i64,                  // boundary centre, from the host's left
        row: i64,                 // tail row below the host
        chain: Vec<(usize, i64)>, // node, left from the host's left
    }
    let mut host_tails: Vec<(usize, Vec<Tail>)> = Vec::new();
    let mut cell_w: Vec<i64> = sizes.iter().map(|s| s.0).collect();
    let mut cell_h: Vec<i64> = sizes.iter().map(|s| s.1).collect();
    let row_h = grid.iter().map(|&i| sizes[i].1).max().unwrap_or(0).max(0); // tallest node of the grid
    for (&host, ids) in &boundaries {
        let (hw, _) = sizes[host];
        let count = ids.len() as i64;
        let mut tails_here: Vec<Tail> = Vec::new();
        let mut rows_right: Vec<i64> = Vec::new(); // leftmost x used in each row (right to left)
        for (k, &b) in ids.iter().enumerate().rev() {
            let bx = hw * (k as i64 + 1) / (count + 1);
            if routes_from[b].is_some() {
                // Nothing hangs below it; its flows leave just under the host.
                tails_here.push(Tail {
                    boundary: b,
                    bx,
                    row: 0,
                    chain: Vec::new(),
                });
                continue;
            }
            let mut x = bx;
            let mut chain = Vec::new();
            let mut right = bx + 18;
            for (j, &c) in tails[b].iter().enumerate() {
                let (w, _) = sizes[c];
                let left = if j == 0 { bx - (w / 2).min(18) } else { x };
                chain.push((c, left));
                x = left + w + TAIL_GAP;
                right = left + w;
            }
            let left_most = chain.first().map_or(bx - 18, |(_, l)| *l).min(bx - 18);
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
            tails_here.push(Tail {
                boundary: b,
                bx,
                row: row as i64,
                chain,
            });
        }
        let rows = rows_right.len() as i64;
        cell_h[host] += TAIL_GAP + rows * 80;
        host_tails.push((host, tails_here));
    }
    let mut cell_h_max = 0;
    for &i in &grid {
        // Cells align the centres of their nodes; extra height hangs below.
        let below = cell_h[i] - sizes[i].1;
        cell_h_max = cell_h_max.max(row_h + below);
    }
    let pitch = cell_h_max.max(row_h) + GAP_Y;

    // Column x positions.
    let mut col_x = Vec::with_capacity(layers);
    let mut col_w = Vec::with_capacity(layers);
    let mut x = PAD;
    for col in &columns {
        let w = col
            .iter()
            .map(|c| match *c {
                Cell::Node(i) => cell_w[i],
                Cell::Pass(..) => 20,
            })
            .max()
            .unwrap_or(0);
        col_x.push(x);
        col_w.push(w);
        x += w + GAP_X;
    }
    let max_rows = columns.iter().map(Vec::len).max().unwrap_or(1).max(1) as i64;
    // Centre line of a row slot: columns with fewer cells are centred.
    let centre = |col: usize, i: usize| -> i64 {
        let count = columns[col].len() as i64;
        PAD_TOP + row_h / 2 + (2 * i as i64 + max_rows - count) * pitch / 2
    };

    let mut at: Vec<Option<Bounds>> = vec![None; n];
    // Per forward edge, the cells it passes through: x left, x right, y.
    let mut pass_at: Vec<Vec<(i64, i64, i64)>> = vec![Vec::new(); forward.len()];
    for (l, col) in columns.iter().enumerate() {
        for (i, c) in col.iter().enumerate() {
            let cy = centre(l, i);
            match *c {
                Cell::Node(id) => {
                    let (w, h) = sizes[id];
                    at[id] = Some(Bounds {
                        x: col_x[l] + (col_w[l] - cell_w[id]) / 2,
                        y: cy - h / 2,
                        w,
                        h,
                    });
                }
                Cell::Pass(k, step) => {
                    debug_assert_eq!(pass_at[k].len(), step);
                    pass_at[k].push((col_x[l], col_x[l] + col_w[l], cy));
                }
            }
        }
    }
    // Boundary events and tails.
    for (host, ts) in &host_tails {
        let hb = at[*host].expect("the host of a boundary event is placed");
        for t in ts {
            at[t.boundary] = Some(Bounds {
                x: hb.x + t.bx - 18,
                y: hb.bottom() - 18,
                w: 36,
                h: 36,
            });
            let row_cy = hb.bottom() + TAIL_GAP + 40 + t.row * 80;
            for &(c, left) in &t.chain {
                let (w, h) = sizes[c];
                at[c] = Some(Bounds {
                    x: hb.x + left,
                    y: row_cy - h / 2,
                    w,
                    h,
                });
            }
        }
    }
    let grid_bottom = at
        .iter()
        .flatten()
        .map(Bounds::bottom)
        .max()
        .unwrap_or(PAD_TOP);
    // Lanes of long edges, then event subprocesses in a band below.
    let lane_y = |lane: i64| grid_bottom + 20 + lane * LANE_GAP;
    let band_y = grid_bottom + 40 + lanes * LANE_GAP;
    let mut bx = PAD;
    for &i in &band {
        let (w, h) = sizes[i];
        at[i] = Some(Bounds {
            x: bx,
            y: band_y,
            w,
            h,
        });
        bx += w + GAP_X;
    }
    let at: Vec<Bounds> = at
        .into_iter()
        .map(|b| b.expect("every node is placed"))
        .collect();

    // Edges.
    // Loops return below everything on their row between their ends: the
    // shapes of each row, by x, to find the lowest in a range quickly.
    let mut rows: IntMap<i64, (i64, Vec<usize>)> = IntMap::default(); // widest shape, shapes
    if !back.is_empty() {
        for (i, b) in at.iter().enumerate() {
            let row = rows.entry(b.cy()).or_default();
            row.0 = row.0.max(b.w);
            row.1.push(i);
        }
        for (_, r) in rows.values_mut() {
            r.sort_by_key(|&i| (at[i].x, i));
        }
    }
    let loop_y = |from: &Bounds, to: &Bounds| -> i64 {
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
    };
    let mut edges: Vec<Edge> = Vec::with_capacity(plane.flows.len() + plane.associations.len());
    for (fi, f) in plane.flows.iter().enumerate() {
        let (s, t) = (at[f.from], at[f.to]);
        // Where the flow starts: the right of its source, or, out of an
        // error event that routes a failure, just below the event (inside
        // the host's cell), counting from the host's column.
        let src = routes_from[f.from].unwrap_or(f.from);
        let routes = routes_from[f.from].is_some();
        let start_y = if routes { s.bottom() + 10 } else { s.cy() };
        let start = || {
            if routes {
                vec![(s.cx(), s.bottom()), (s.cx(), start_y)]
            } else {
                vec![(s.right(), s.cy())]
            }
        };
        let points = if hanging[f.from] && !routes {
            if t.y > s.bottom() && t.x <= s.cx() && s.cx() <= t.right() {
                // Straight down into the node below.
                vec![(s.cx(), s.bottom()), (s.cx(), t.y)]
            } else if t.cy() == s.cy() {
                vec![(s.right(), s.cy()), (t.x, t.cy())]
            } else {
                vec![(s.cx(), s.bottom()), (s.cx(), t.cy()), (t.x, t.cy())]
            }
        } else if let Some(&lane) = flow_forward[fi].and_then(|k| lane_of.get(&k)) {
            // Out of the source's column, down the gap to the lane, along
            // it to the gap before the target's column, up, and in.
            let (lf, lt) = (layer[src], layer[f.to]);
            let down = col_x[lf] + col_w[lf] + GAP_X / 2;
            let up = col_x[lt] - GAP_X / 2;
            let y = lane_y(lane);
            let mut pts = start();
            pts.extend([
                (down, start_y),
                (down, y),
                (up, y),
                (up, t.cy()),
                (t.x, t.cy()),
            ]);
            pts
        } else if let Some(k) = flow_forward[fi] {
            let mut pts = start();
            let mut cur_y = start_y;
            let mut cur_right = s.right().max(col_x[layer[src]] + col_w[layer[src]]);
            for &(left, right, y) in &pass_at[k] {
                if y != cur_y {
                    let mx = cur_right + (left - cur_right) / 2;
                    pts.push((mx, cur_y));
                    pts.push((mx, y));
                }
                cur_y = y;
                cur_right = right;
            }
            if t.cy() != cur_y {
                let left = col_x[layer[f.to]];
                let mx = cur_right + (left - cur_right) / 2;
                pts.push((mx, cur_y));
                pts.push((mx, t.cy()));
            }
            pts.push((t.x, t.cy()));
            pts
        } else if back.contains(&(f.from, f.to)) {
            let y = loop_y(&s, &t);
            vec![
                (s.cx(), s.bottom()),
                (s.cx(), y),
                (t.cx(), y),
                (t.cx(), t.bottom()),
            ]
        } else {
            // Into a node that hangs or sits in the band: straight.
            vec![(s.right(), s.cy()), (t.x, t.cy())]
        };
        edges.push(Edge {
            element: EdgeOf::Flow(plane, fi),
            points,
        });
    }
    for a in &plane.associations {
        let (s, t) = (at[a.from], at[a.to]);
        let x = s.cx().clamp(t.x + 1, t.right() - 1);
        edges.push(Edge {
            element: EdgeOf::Association(text.get(a.id)),
            points: vec![(s.cx(), s.bottom()), (x, t.y)],
        });
    }

    // Shapes in plane order; the content of expanded subprocesses follows
    // their own shape, and their edges follow this plane's.
    let mut all_shapes: Vec<Shape<'a>> = Vec::with_capacity(n);
    let mut nested_edges: Vec<Edge<'a>> = Vec::new();
    for (i, node) in plane.nodes.iter().enumerate() {
        let b = at[i];
        let expanded = match &node.kind {
            Kind::Sub(s) => Some(s.expanded),
            Kind::Deferred(_) => Some(false),
            _ => None,
        };
        all_shapes.push(Shape {
            id: text.get(node.id),
            bounds: b,
            expanded,
        });
        if let Some(p) = inner[i].take() {
            append(p, b.x, b.y, &mut all_shapes, &mut nested_edges);
        }
    }
    edges.append(&mut nested_edges);
    let w = all_shapes
        .iter()
        .map(|s| s.bounds.right())
        .chain(edges.iter().flat_map(|e| e.points.iter().map(|p| p.0)))
        .max()
        .unwrap_or(0)
        + PAD;
    let h = all_shapes
        .iter()
        .map(|s| s.bounds.bottom())
        .chain(edges.iter().flat_map(|e| e.points.iter().map(|p| p.1)))
        .max()
        .unwrap_or(0)
        + PAD;
    Placed {
        shapes: all_shapes,
        edges,
        w,
        h,
    }
}
