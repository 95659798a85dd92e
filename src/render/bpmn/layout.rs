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
use std::collections::{BinaryHeap, HashMap, HashSet, VecDeque};
use std::hash::BuildHasherDefault;

use super::graph::{Adjacency, Kind, Plane, Repeat, Text};

/// A shape's bounds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Bounds {
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
}

/// One shape of a diagram.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Shape<'a> {
    /// The element it draws.
    pub id: &'a str,
    /// Where.
    pub bounds: Bounds,
    /// For subprocesses: drawn open (`Some(true)`) or collapsed.
    pub expanded: Option<bool>,
}

/// The element an edge draws.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum EdgeOf<'a> {
    /// Flow `k` of a plane.
    Flow(&'a Plane, usize),
    /// An association, by id.
    Association(&'a str),
}

/// The diagram of one plane. Its shapes and edges are not held as
/// records: the shapes of a plane are its nodes in order, its edges its
/// flows and then its associations, so a laid-out plane is the bounds of
/// its nodes and the waypoints of its edges, and the content of an
/// expanded subprocess a laid-out plane of its own placed at the
/// subprocess ([`Diagram::each_shape`], [`Diagram::each_edge`] walk them).
#[derive(Default)]
pub(crate) struct Diagram<'a> {
    /// The process or collapsed subprocess it shows.
    pub element: &'a str,
    /// A deferred subprocess ([`Kind::Deferred`] with this key): its
    /// diagrams are laid out and written when it is built, and this one
    /// only marks where they go.
    pub deferred: Option<usize>,
    /// The plane it shows, laid out (none for a deferred subprocess;
    /// boxed, as a plan has a diagram per deferred subprocess).
    content: Option<Box<Placed<'a>>>,
}

/// What [`Diagram::each_edge`] calls for every edge: the element, its
/// waypoints, and the offset to move them by.
pub(crate) type EdgeVisitor<'v, 'a> = dyn FnMut(EdgeOf<'a>, &[(i32, i32)], (i64, i64)) + 'v;

/// Where the content of a diagram starts.
const ORIGIN: (i64, i64) = (100, 80);

impl<'a> Diagram<'a> {
    /// Every shape, parents before children (the content of an expanded
    /// subprocess follows its shape).
    pub(crate) fn each_shape(&self, f: &mut dyn FnMut(Shape<'a>)) {
        if let Some(p) = &self.content {
            p.each_shape(ORIGIN, f);
        }
    }

    /// Every edge with its waypoints, which are to be moved by the offset
    /// given with them: the flows and associations of the plane, then
    /// those of each expanded subprocess.
    pub(crate) fn each_edge(&self, f: &mut EdgeVisitor<'_, 'a>) {
        if let Some(p) = &self.content {
            p.each_edge(ORIGIN, f);
        }
    }
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
        Kind::Start(_)
        | Kind::ErrorStart { .. }
        | Kind::End(_)
        | Kind::Compensate
        | Kind::Marker => (36, 36),
        Kind::Boundary { .. } => (36, 36),
        Kind::Xor(_) | Kind::And => (50, 50),
        Kind::Http(_) | Kind::Script(_) | Kind::Call(_) => (100, 80),
        Kind::Sub(s) if s.expanded => expanded.unwrap_or((200, 120)),
        Kind::Sub(_) | Kind::Deferred(_) => (140, 80),
    }
}

/// Lay out a process plane: its diagram first, then one per collapsed
/// subprocess. (The content of a collapsed subprocess, `process` being its
/// id, is laid out the same way.)
pub(crate) fn layout<'a>(
    text: &'a Text,
    process: &'a str,
    plane: &'a Plane,
) -> crate::error::Result<Vec<Diagram<'a>>> {
    let mut out = vec![Diagram {
        element: process,
        ..Diagram::default()
    }];
    out[0].content = Some(Box::new(place(text, plane, &mut out)?));
    Ok(out)
}

/// A plane laid out at the origin.
struct Placed<'a> {
    text: &'a Text,
    plane: &'a Plane,
    /// Bounds of every node (x, y, width, height).
    at: Vec<[i32; 4]>,
    /// The waypoints of edge `j` (flow `j`, then the associations) are
    /// `points[ends[j - 1]..ends[j]]` (from 0 for the first).
    ends: Vec<u32>,
    /// (Coordinates in 32 bits: a 100k-node plan's process has millions of
    /// waypoints, and a diagram of over 2^31 units would be no picture.)
    points: Vec<(i32, i32)>,
    /// The content of expanded subprocesses (by node index), placed at
    /// their node.
    children: Vec<(usize, Placed<'a>)>,
    /// The rightmost and lowest coordinates of every shape and waypoint,
    /// children included; none if there are none.
    max: Option<(i64, i64)>,
}

impl<'a> Placed<'a> {
    /// Width and height, with the padding.
    fn size(&self) -> (i64, i64) {
        let (x, y) = self.max.unwrap_or((0, 0));
        (x + PAD, y + PAD)
    }

    fn each_shape(&self, (dx, dy): (i64, i64), f: &mut dyn FnMut(Shape<'a>)) {
        let mut children = self.children.iter().peekable();
        for (i, node) in self.plane.nodes.iter().enumerate() {
            let b = self.bounds(i);
            let expanded = match &node.kind {
                Kind::Sub(s) => Some(s.expanded),
                Kind::Deferred(_) => Some(false),
                _ => None,
            };
            f(Shape {
                id: self.text.get(node.id),
                bounds: Bounds {
                    x: b.x + dx,
                    y: b.y + dy,
                    ..b
                },
                expanded,
            });
            if let Some((_, c)) = children.next_if(|(at, _)| *at == i) {
                c.each_shape((b.x + dx, b.y + dy), f);
            }
        }
    }

    fn each_edge(&self, (dx, dy): (i64, i64), f: &mut EdgeVisitor<'_, 'a>) {
        let flows = self.plane.flows.len();
        let mut start = 0;
        for (j, &end) in self.ends.iter().enumerate() {
            let element = match j.checked_sub(flows) {
                None => EdgeOf::Flow(self.plane, j),
                Some(a) => EdgeOf::Association(self.text.get(self.plane.associations[a].id)),
            };
            f(element, &self.points[start..end as usize], (dx, dy));
            start = end as usize;
        }
        for (i, c) in &self.children {
            let b = self.bounds(*i);
            c.each_edge((b.x + dx, b.y + dy), f);
        }
    }

    /// The bounds of node `i`.
    fn bounds(&self, i: usize) -> Bounds {
        let [x, y, w, h] = self.at[i].map(i64::from);
        Bounds { x, y, w, h }
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

/// A cell of the grid: a node, or a place a long edge passes through
/// (eight bytes: a plane's grid has a cell per node and pass).
#[derive(Clone, Copy)]
enum Cell {
    /// Node index.
    Node(u32),
    /// Forward edge index, step (0 for the first layer it passes).
    Pass(u32, u8),
}

/// "None" in the index vectors below, which hold an index or nothing
/// without the size of an `Option`.
const NONE: usize = usize::MAX;

/// Where a boundary event and the chain hanging from it go, relative to
/// its host's cell.
struct Tail {
    host: usize,
    boundary: usize,
    /// Boundary centre, from the host's left.
    bx: i64,
    /// Tail row below the host.
    row: i64,
    /// Its chain in `Tails::chain`.
    chain: std::ops::Range<usize>,
}

/// Lay out one plane at the origin. Collapsed subprocesses are laid out
/// into diagrams of their own, appended to `diagrams`. Every step is
/// linear in the plane's nodes, flows and the cells long edges pass
/// through, and the working memory is a few flat vectors of them (a
/// 100k-node plan's plane has most of a million nodes).
fn place<'a>(
    text: &'a Text,
    plane: &'a Plane,
    diagrams: &mut Vec<Diagram<'a>>,
) -> crate::error::Result<Placed<'a>> {
    let n = plane.nodes.len();
    // Children first: expanded ones give their size, collapsed ones a diagram.
    let mut inner: Vec<(usize, Placed<'a>)> = Vec::new();
    // Sizes in 32 bits, as every coordinate of a diagram is.
    let mut sizes: Vec<(i32, i32)> = Vec::with_capacity(n);
    let mut wide = false;
    for (i, node) in plane.nodes.iter().enumerate() {
        let mut expanded = None;
        if let Kind::Deferred(key) = node.kind {
            diagrams.push(Diagram {
                element: text.get(node.id),
                deferred: Some(key),
                ..Diagram::default()
            });
        } else if let Kind::Sub(s) = &node.kind {
            if s.expanded {
                let p = place(text, &s.plane, diagrams)?;
                expanded = Some(p.size());
                inner.push((i, p));
            } else {
                let index = diagrams.len();
                diagrams.push(Diagram {
                    element: text.get(node.id),
                    ..Diagram::default()
                });
                diagrams[index].content = Some(Box::new(place(text, &s.plane, diagrams)?));
            }
        }
        let (w, h) = size(&node.kind, expanded);
        sizes.push((narrow(w, &mut wide), narrow(h, &mut wide)));
    }
    if wide {
        return Err(beyond_32_bits());
    }
    let size_of = |i: usize| (i64::from(sizes[i].0), i64::from(sizes[i].1));
    let adj = plane.adjacency();

    // Which nodes are laid out in the grid, which hang below a host, which go to the band.
    // Boundary events with their hosts, by host (events of one host in plane order).
    let mut boundaries: Vec<(usize, usize)> = Vec::new();
    // Boundary events whose flows go on into the grid: their host.
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
    let source = |i: usize| {
        if routes_from[i] == NONE {
            i
        } else {
            routes_from[i]
        }
    };
    // Tails: everything reachable from a boundary event; the chain of
    // `boundaries[j]` is `chains[chain_start[j]..chain_start[j + 1]]`.
    let mut first_assoc: Vec<usize> = vec![NONE; n];
    for a in &plane.associations {
        if first_assoc[a.from] == NONE {
            first_assoc[a.from] = a.to;
        }
    }
    let mut chains: Vec<usize> = Vec::new();
    let mut chain_start: Vec<usize> = Vec::with_capacity(boundaries.len() + 1);
    chain_start.push(0);
    for &(_, b) in &boundaries {
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
    drop(first_assoc);
    let in_grid: Vec<bool> = (0..n).map(|i| !hanging[i] && !in_band[i]).collect();
    let grid: Vec<usize> = (0..n).filter(|&i| in_grid[i]).collect();

    // Back edges: found by a depth-first search from the start events.
    // A stack entry is a node and the position in its outgoing flows
    // where the search goes on.
    let mut back: IntSet<(usize, usize)> = IntSet::default();
    let mut state = vec![0u8; n]; // 0 new, 1 on stack, 2 done
    let mut stack: Vec<(usize, usize)> = Vec::new();
    for &root in &grid {
        if state[root] != 0 {
            continue;
        }
        stack.push((root, 0));
        state[root] = 1;
        while let Some((node, pos)) = stack.pop() {
            let out = adj.outgoing(node);
            let next = (pos..out.len()).find(|&j| in_grid[plane.flows[out[j] as usize].to()]);
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
    drop((state, stack, adj));
    // Forward edges, and for every flow the first forward edge with its ends.
    let mut forward: Vec<(usize, usize)> = Vec::with_capacity(plane.flows.len());
    let mut flow_forward: Vec<usize> = vec![NONE; plane.flows.len()];
    {
        let mut first_forward: IntMap<(usize, usize), usize> = IntMap::default();
        first_forward.reserve(plane.flows.len());
        for (k, f) in plane.flows.iter().enumerate() {
            // A flow out of an error event that routes a failure leaves its host.
            let pair = (source(f.from()), f.to());
            if in_grid[pair.0] && in_grid[f.to()] && !back.contains(&pair) {
                let next = forward.len();
                flow_forward[k] = *first_forward.entry(pair).or_insert(next);
                forward.push(pair);
            }
        }
    }
    drop(in_grid);
    let fwd = Adjacency::new(n, forward.iter().copied());

    // Layers: longest path, in a topological order of the forward edges.
    let mut layer = vec![0usize; n];
    {
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
    }
    let layers = grid.iter().map(|&i| layer[i]).max().map_or(0, |m| m + 1);
    // Cells between layers that a forward edge passes through (none for a
    // long edge, which takes a lane instead).
    let passes = |&(f, t): &(usize, usize)| {
        let skipped = layer[t] - layer[f] - 1;
        if skipped > MAX_PASS { 0 } else { skipped }
    };

    // Columns hold nodes (in plane order) and the cells that long edges
    // pass through (in edge order): column `l` is
    // `cells[col_start[l]..col_start[l + 1]]`.
    let mut col_start = vec![0usize; layers + 1];
    for &i in &grid {
        col_start[layer[i] + 1] += 1;
    }
    for &(f, t) in &forward {
        if passes(&(f, t)) > 0 {
            for l in layer[f] + 1..layer[t] {
                col_start[l + 1] += 1;
            }
        }
    }
    for l in 0..layers {
        col_start[l + 1] += col_start[l];
    }
    let mut cells = vec![Cell::Node(0); col_start[layers]];
    {
        let mut fill = col_start.clone();
        for &i in &grid {
            cells[fill[layer[i]]] = Cell::Node(i as u32);
            fill[layer[i]] += 1;
        }
        for (k, &(f, t)) in forward.iter().enumerate() {
            if passes(&(f, t)) > 0 {
                for (step, l) in (layer[f] + 1..layer[t]).enumerate() {
                    cells[fill[l]] = Cell::Pass(k as u32, step as u8);
                    fill[l] += 1;
                }
            }
        }
    }
    let column = |l: usize| col_start[l]..col_start[l + 1];
    // Long edges get a lane instead: lanes are reused by edges whose
    // column ranges do not overlap (interval partitioning, in order of
    // the first column).
    let mut long: Vec<(usize, usize, usize)> = Vec::new(); // first column, last column, edge
    for (k, &(f, t)) in forward.iter().enumerate() {
        if layer[t] - layer[f] - 1 > MAX_PASS {
            long.push((layer[f], layer[t], k));
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
    drop((long, free));
    // Order within columns: by the mean row of the predecessors (two sweeps), ties by creation.
    let key = |c: &Cell| -> usize {
        match *c {
            Cell::Node(i) => i as usize,
            Cell::Pass(k, _) => forward[k as usize].0,
        }
    };
    for l in 0..layers {
        cells[column(l)].sort_by_key(key);
    }
    // Positions: of nodes, and of the last placed pass cell of each
    // forward edge (NaN: not placed yet).
    let mut node_pos: Vec<f64> = vec![f64::NAN; n];
    let mut pass_pos: Vec<f64> = vec![f64::NAN; forward.len()];
    let mut preds: Vec<f64> = Vec::new();
    let mut keyed: Vec<(f64, usize, Cell)> = Vec::new();
    for _ in 0..2 {
        node_pos.fill(f64::NAN);
        pass_pos.fill(f64::NAN);
        for l in 0..layers {
            let col = &mut cells[column(l)];
            if l > 0 {
                keyed.clear();
                keyed.extend(col.iter().enumerate().map(|(i, c)| {
                    preds.clear();
                    match *c {
                        Cell::Node(id) => {
                            for &k in fwd.incoming(id as usize) {
                                let k = k as usize;
                                let f = forward[k].0;
                                let p = if layer[f] + 1 == l {
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
                            let f = forward[k].0;
                            let p = if step == 0 { node_pos[f] } else { pass_pos[k] };
                            if !p.is_nan() {
                                preds.push(p);
                            }
                        }
                    }
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
    drop((node_pos, pass_pos, preds, keyed, fwd));

    // Tails: where each boundary event and its chain go, relative to the
    // host; the chain's nodes with their left, from the host's left.
    let mut tails: Vec<Tail> = Vec::with_capacity(boundaries.len());
    let mut chain_left: Vec<(usize, i64)> = Vec::with_capacity(chains.len());
    let mut cell_w: Vec<i64> = sizes.iter().map(|s| i64::from(s.0)).collect();
    let mut cell_h: Vec<i64> = sizes.iter().map(|s| i64::from(s.1)).collect();
    let row_h = grid.iter().map(|&i| size_of(i).1).max().unwrap_or(0).max(0); // tallest node of the grid
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
            if routes_from[b] != NONE {
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
            for (c_at, &c) in chains[chain_start[j]..chain_start[j + 1]]
                .iter()
                .enumerate()
            {
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
    drop((boundaries, chains, chain_start, rows_right));
    let mut cell_h_max = 0;
    for &i in &grid {
        // Cells align the centres of their nodes; extra height hangs below.
        let below = cell_h[i] - size_of(i).1;
        cell_h_max = cell_h_max.max(row_h + below);
    }
    let pitch = cell_h_max.max(row_h) + GAP_Y;
    drop(grid);

    // Column x positions.
    let mut col_x = Vec::with_capacity(layers);
    let mut col_w = Vec::with_capacity(layers);
    let mut x = PAD;
    for l in 0..layers {
        let w = cells[column(l)]
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
    let max_rows = (0..layers)
        .map(|l| column(l).len())
        .max()
        .unwrap_or(1)
        .max(1) as i64;
    // Centre line of a row slot: columns with fewer cells are centred.
    let centre = |col: usize, i: usize| -> i64 {
        let count = column(col).len() as i64;
        PAD_TOP + row_h / 2 + (2 * i as i64 + max_rows - count) * pitch / 2
    };

    // Bounds of every node (`unplaced` until placed).
    let unplaced = Bounds {
        x: i64::MIN,
        y: i64::MIN,
        w: 0,
        h: 0,
    };
    // Per forward edge, the cells it passes through (x left, x right, y):
    // `pass_at[pass_start[k]..pass_start[k + 1]]`, in step order.
    let mut pass_start: Vec<usize> = Vec::with_capacity(forward.len() + 1);
    pass_start.push(0);
    for e in &forward {
        pass_start.push(pass_start[pass_start.len() - 1] + passes(e));
    }
    let mut pass_at: Vec<(i64, i64, i64)> = vec![(0, 0, 0); pass_start[forward.len()]];
    drop(forward);
    let mut at: Vec<Bounds> = vec![unplaced; n];
    for l in 0..layers {
        for (i, c) in cells[column(l)].iter().enumerate() {
            let cy = centre(l, i);
            match *c {
                Cell::Node(id) => {
                    let id = id as usize;
                    let (w, h) = size_of(id);
                    at[id] = Bounds {
                        x: col_x[l] + (col_w[l] - cell_w[id]) / 2,
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
    drop((cells, col_start, cell_h));
    // Boundary events and tails.
    for t in &tails {
        let hb = at[t.host];
        assert!(hb != unplaced, "the host of a boundary event is placed");
        at[t.boundary] = Bounds {
            x: hb.x + t.bx - 18,
            y: hb.bottom() - 18,
            w: 36,
            h: 36,
        };
        let row_cy = hb.bottom() + TAIL_GAP + 40 + t.row * 80;
        for &(c, left) in &chain_left[t.chain.clone()] {
            let (w, h) = size_of(c);
            at[c] = Bounds {
                x: hb.x + left,
                y: row_cy - h / 2,
                w,
                h,
            };
        }
    }
    drop((tails, chain_left));
    let grid_bottom = at
        .iter()
        .filter(|b| **b != unplaced)
        .map(Bounds::bottom)
        .max()
        .unwrap_or(PAD_TOP);
    // Lanes of long edges, then event subprocesses in a band below.
    let lane_y = |lane: i64| grid_bottom + 20 + lane * LANE_GAP;
    let band_y = grid_bottom + 40 + lanes * LANE_GAP;
    let mut bx = PAD;
    for &i in &band {
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
        !at.contains(&unplaced),
        "BPMN layout: a node of the plane was not placed"
    );
    // The edges need the bounds, not the sizes and cells they came from
    // (the working memory of a large plane is at its peak from here on).
    drop((sizes, cell_w, in_band, band));

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
    // Routed twice: counted, then stored in a vector of that size (the
    // waypoints are the largest vector of a large plane's layout, and one
    // grown by doubling would be up to twice their size at the peak).
    let route = |points: &mut Points| {
        for (fi, f) in plane.flows.iter().enumerate() {
            let (from, to) = (f.from(), f.to());
            let (s, t) = (at[from], at[to]);
            // Where the flow starts: the right of its source, or, out of an
            // error event that routes a failure, just below the event (inside
            // the host's cell), counting from the host's column.
            let src = source(from);
            let routes = routes_from[from] != NONE;
            let start_y = if routes { s.bottom() + 10 } else { s.cy() };
            let start = |points: &mut Points| {
                if routes {
                    points.extend([(s.cx(), s.bottom()), (s.cx(), start_y)]);
                } else {
                    points.push((s.right(), s.cy()));
                }
            };
            let forward_edge = flow_forward[fi];
            let lane = if forward_edge == NONE {
                None
            } else {
                lane_of.get(&forward_edge)
            };
            if hanging[from] && !routes {
                if t.y > s.bottom() && t.x <= s.cx() && s.cx() <= t.right() {
                    // Straight down into the node below.
                    points.extend([(s.cx(), s.bottom()), (s.cx(), t.y)]);
                } else if t.cy() == s.cy() {
                    points.extend([(s.right(), s.cy()), (t.x, t.cy())]);
                } else {
                    points.extend([(s.cx(), s.bottom()), (s.cx(), t.cy()), (t.x, t.cy())]);
                }
            } else if let Some(&lane) = lane {
                // Out of the source's column, down the gap to the lane, along
                // it to the gap before the target's column, up, and in.
                let (lf, lt) = (layer[src], layer[to]);
                let down = col_x[lf] + col_w[lf] + GAP_X / 2;
                let up = col_x[lt] - GAP_X / 2;
                let y = lane_y(lane);
                start(points);
                points.extend([
                    (down, start_y),
                    (down, y),
                    (up, y),
                    (up, t.cy()),
                    (t.x, t.cy()),
                ]);
            } else if forward_edge != NONE {
                let k = forward_edge;
                start(points);
                let mut cur_y = start_y;
                let mut cur_right = s.right().max(col_x[layer[src]] + col_w[layer[src]]);
                for &(left, right, y) in &pass_at[pass_start[k]..pass_start[k + 1]] {
                    if y != cur_y {
                        let mx = cur_right + (left - cur_right) / 2;
                        points.push((mx, cur_y));
                        points.push((mx, y));
                    }
                    cur_y = y;
                    cur_right = right;
                }
                if t.cy() != cur_y {
                    let left = col_x[layer[to]];
                    let mx = cur_right + (left - cur_right) / 2;
                    points.push((mx, cur_y));
                    points.push((mx, t.cy()));
                }
                points.push((t.x, t.cy()));
            } else if back.contains(&(from, to)) {
                let y = loop_y(&s, &t);
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
            points.close();
        }
        for a in &plane.associations {
            let (s, t) = (at[a.from], at[a.to]);
            let x = s.cx().clamp(t.x + 1, t.right() - 1);
            points.extend([(s.cx(), s.bottom()), (x, t.y)]);
            points.close();
        }
    };
    let mut count = Points {
        counting: true,
        ..Points::default()
    };
    route(&mut count);
    let mut points = Points {
        v: Vec::with_capacity(count.len),
        ends: Vec::with_capacity(plane.flows.len() + plane.associations.len()),
        ..Points::default()
    };
    route(&mut points);

    // The extent of the whole: own shapes and waypoints, and those of the
    // expanded subprocesses where they are placed.
    let own = at
        .iter()
        .map(|b| (b.right(), b.bottom()))
        .chain(points.v.iter().map(|&(x, y)| (i64::from(x), i64::from(y))));
    let nested = inner
        .iter()
        .filter_map(|(i, p)| p.max.map(|(x, y)| (x + at[*i].x, y + at[*i].y)));
    let max = own
        .chain(nested)
        .reduce(|a, b| (a.0.max(b.0), a.1.max(b.1)));
    wide = points.wide;
    let at = at
        .iter()
        .map(|b| [b.x, b.y, b.w, b.h].map(|v| narrow(v, &mut wide)))
        .collect();
    if wide {
        return Err(beyond_32_bits());
    }
    Ok(Placed {
        text,
        plane,
        at,
        ends: points.ends,
        points: points.v,
        children: inner,
        max,
    })
}

/// Waypoints, kept in 32 bits (`wide` if one did not fit), and where
/// each edge's end; or, `counting`, only how many there would be.
#[derive(Default)]
struct Points {
    v: Vec<(i32, i32)>,
    ends: Vec<u32>,
    wide: bool,
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

/// A diagram too large for the 32-bit coordinates it is kept in.
fn beyond_32_bits() -> crate::error::Error {
    crate::error::Error::Internal("BPMN layout: a diagram coordinate beyond 32 bits".into())
}

/// `v` in 32 bits; `wide` is set if it does not fit.
fn narrow(v: i64, wide: &mut bool) -> i32 {
    i32::try_from(v).unwrap_or_else(|_| {
        *wide = true;
        0
    })
}
