//! BPMNDI layout: every plane is laid out left to right in layers, the
//! layer of a node being the longest path to it from a start (loops
//! ignored). Each node sits in a cell of a grid (one column per layer,
//! rows of equal height); an edge that skips layers passes through
//! reserved cells of the layers in between, so no edge runs through a
//! shape. Boundary events sit on the bottom edge of their host and what
//! follows them is drawn below it, inside the host's cell; event
//! subprocesses get a band below the grid; loops return below their row.
//!
//! In: a [`Plane`]. Out: one [`Diagram`] for the plane (expanded
//! subprocesses included) and one more for every collapsed subprocess.
//! Integer coordinates only, so the output is the same on every machine.

use std::collections::{BTreeMap, HashMap, HashSet};

use super::graph::{Kind, Plane, Repeat};

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
pub struct Shape {
    /// The element it draws.
    pub id: String,
    /// Where.
    pub bounds: Bounds,
    /// For subprocesses: drawn open (`Some(true)`) or collapsed.
    pub expanded: Option<bool>,
}

/// One edge of a diagram (sequence flow or association).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Edge {
    /// The element it draws.
    pub id: String,
    /// Waypoints, at least two.
    pub points: Vec<(i64, i64)>,
}

/// The diagram of one plane.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Diagram {
    /// The process or collapsed subprocess it shows.
    pub element: String,
    /// Shapes, parents before children.
    pub shapes: Vec<Shape>,
    /// Edges.
    pub edges: Vec<Edge>,
}

const GAP_X: i64 = 50;
const GAP_Y: i64 = 30;
const TAIL_GAP: i64 = 40;
const PAD: i64 = 30;
const PAD_TOP: i64 = 40;
const LOOP_DROP: i64 = 25;

/// The size a node is drawn with (expanded subprocesses: their content).
fn size(kind: &Kind, sizes: &HashMap<String, (i64, i64)>, id: &str) -> (i64, i64) {
    match kind {
        Kind::Start(_) | Kind::End(_) | Kind::Timer(_) | Kind::Compensate => (36, 36),
        Kind::Boundary { .. } => (36, 36),
        Kind::Xor(_) | Kind::And => (50, 50),
        Kind::Http(_) | Kind::Script(_) => (100, 80),
        Kind::Sub(s) if s.expanded => sizes.get(id).copied().unwrap_or((200, 120)),
        Kind::Sub(_) => (140, 80),
    }
}

/// Lay out a process plane: its diagram first, then one per collapsed subprocess.
pub fn layout(process: &str, plane: &Plane) -> Vec<Diagram> {
    let mut out = vec![Diagram {
        element: process.to_string(),
        ..Diagram::default()
    }];
    let placed = place(plane, &mut out);
    let mut main = std::mem::take(&mut out[0]);
    translate(&placed, 100, 80, &mut main);
    out[0] = main;
    out
}

/// A plane laid out at the origin.
struct Placed {
    shapes: Vec<Shape>,
    edges: Vec<Edge>,
    w: i64,
    h: i64,
}

fn translate(p: &Placed, dx: i64, dy: i64, d: &mut Diagram) {
    for s in &p.shapes {
        let mut s = s.clone();
        s.bounds.x += dx;
        s.bounds.y += dy;
        d.shapes.push(s);
    }
    for e in &p.edges {
        d.edges.push(Edge {
            id: e.id.clone(),
            points: e.points.iter().map(|(x, y)| (x + dx, y + dy)).collect(),
        });
    }
}

/// Lay out one plane at the origin. Collapsed subprocesses are laid out
/// into diagrams of their own, appended to `diagrams`.
fn place(plane: &Plane, diagrams: &mut Vec<Diagram>) -> Placed {
    // Children first: expanded ones give their size, collapsed ones a diagram.
    let mut sizes: HashMap<String, (i64, i64)> = HashMap::new();
    let mut inner: HashMap<String, Placed> = HashMap::new();
    for n in &plane.nodes {
        if let Kind::Sub(s) = &n.kind {
            if s.expanded {
                let p = place(&s.plane, diagrams);
                sizes.insert(n.id.clone(), (p.w, p.h));
                inner.insert(n.id.clone(), p);
            } else {
                let index = diagrams.len();
                diagrams.push(Diagram {
                    element: n.id.clone(),
                    ..Diagram::default()
                });
                let p = place(&s.plane, diagrams);
                let mut d = std::mem::take(&mut diagrams[index]);
                translate(&p, 100, 80, &mut d);
                diagrams[index] = d;
            }
        }
    }
    let size_of = |id: &str| -> (i64, i64) {
        let n = plane.node(id).expect("node of the plane");
        size(&n.kind, &sizes, id)
    };

    // Which nodes are laid out in the grid, which hang below a host, which go to the band.
    let mut boundaries: BTreeMap<usize, Vec<&str>> = BTreeMap::new(); // host index -> boundary ids
    let mut hanging: HashSet<&str> = HashSet::new();
    let mut band: Vec<&str> = Vec::new();
    let index: HashMap<&str, usize> = plane
        .nodes
        .iter()
        .enumerate()
        .map(|(i, n)| (n.id.as_str(), i))
        .collect();
    for n in &plane.nodes {
        match &n.kind {
            Kind::Boundary { host, .. } => {
                boundaries
                    .entry(index[host.as_str()])
                    .or_default()
                    .push(&n.id);
                hanging.insert(&n.id);
            }
            Kind::Sub(s) if s.repeat == Repeat::OnError => band.push(&n.id),
            _ => {}
        }
    }
    // Tails: everything reachable from a boundary event.
    let mut tails: HashMap<&str, Vec<&str>> = HashMap::new();
    for ids in boundaries.values() {
        for &b in ids {
            let mut chain = Vec::new();
            let mut cur = b;
            loop {
                let next = plane
                    .flows
                    .iter()
                    .find(|f| f.from == cur)
                    .map(|f| f.to.as_str())
                    .or_else(|| {
                        plane
                            .associations
                            .iter()
                            .find(|(_, from, _)| from == cur)
                            .map(|(_, _, to)| to.as_str())
                    });
                match next {
                    Some(n) if !hanging.contains(n) => {
                        hanging.insert(n);
                        chain.push(n);
                        cur = n;
                    }
                    _ => break,
                }
            }
            tails.insert(b, chain);
        }
    }
    let grid: Vec<&str> = plane
        .nodes
        .iter()
        .map(|n| n.id.as_str())
        .filter(|id| !hanging.contains(id) && !band.contains(id))
        .collect();
    let in_grid: HashSet<&str> = grid.iter().copied().collect();

    // Back edges: found by a depth-first search from the start events.
    let succ = |id: &str| -> Vec<&str> {
        plane
            .flows
            .iter()
            .filter(|f| f.from == id && in_grid.contains(f.to.as_str()))
            .map(|f| f.to.as_str())
            .collect()
    };
    let mut back: HashSet<(String, String)> = HashSet::new();
    let mut state: HashMap<&str, u8> = HashMap::new(); // 1 on stack, 2 done
    for &root in &grid {
        if state.contains_key(root) {
            continue;
        }
        let mut stack: Vec<(&str, usize)> = vec![(root, 0)];
        state.insert(root, 1);
        while let Some((node, i)) = stack.pop() {
            let next = succ(node);
            if i < next.len() {
                stack.push((node, i + 1));
                let t = next[i];
                match state.get(t) {
                    Some(1) => {
                        back.insert((node.to_string(), t.to_string()));
                    }
                    Some(_) => {}
                    None => {
                        state.insert(t, 1);
                        stack.push((t, 0));
                    }
                }
            } else {
                state.insert(node, 2);
            }
        }
    }
    let forward: Vec<(&str, &str)> = plane
        .flows
        .iter()
        .filter(|f| in_grid.contains(f.from.as_str()) && in_grid.contains(f.to.as_str()))
        .filter(|f| !back.contains(&(f.from.clone(), f.to.clone())))
        .map(|f| (f.from.as_str(), f.to.as_str()))
        .collect();

    // Layers: longest path, in a topological order of the forward edges.
    let mut layer: HashMap<&str, usize> = grid.iter().map(|&id| (id, 0)).collect();
    let mut indeg: HashMap<&str, usize> = grid.iter().map(|&id| (id, 0)).collect();
    for (_, t) in &forward {
        *indeg.get_mut(t).unwrap() += 1;
    }
    let mut ready: Vec<&str> = grid.iter().copied().filter(|id| indeg[id] == 0).collect();
    let mut order = Vec::new();
    while let Some(n) = ready.first().copied() {
        ready.remove(0);
        order.push(n);
        for (f, t) in &forward {
            if *f == n {
                let l = layer[n] + 1;
                if layer[t] < l {
                    layer.insert(t, l);
                }
                let d = indeg.get_mut(t).unwrap();
                *d -= 1;
                if *d == 0 {
                    ready.push(t);
                }
            }
        }
    }
    let layers = grid.iter().map(|id| layer[id]).max().map_or(0, |m| m + 1);

    // Columns hold nodes and the cells that long edges pass through.
    #[derive(Clone)]
    enum Cell<'a> {
        Node(&'a str),
        Pass(usize, usize), // forward edge index, step
    }
    let mut columns: Vec<Vec<Cell>> = vec![Vec::new(); layers];
    for &id in &grid {
        columns[layer[id]].push(Cell::Node(id));
    }
    for (k, (f, t)) in forward.iter().enumerate() {
        for (step, l) in (layer[f] + 1..layer[t]).enumerate() {
            columns[l].push(Cell::Pass(k, step));
        }
    }
    // Order within columns: by the mean row of the predecessors (two sweeps), ties by creation.
    let key = |c: &Cell| -> usize {
        match c {
            Cell::Node(id) => index[id],
            Cell::Pass(k, _) => index[forward[*k].0],
        }
    };
    for col in columns.iter_mut() {
        col.sort_by_key(|c| key(c));
    }
    for _ in 0..2 {
        let mut pos: HashMap<String, f64> = HashMap::new();
        for (l, col) in columns.iter_mut().enumerate() {
            if l > 0 {
                let mut keyed: Vec<(f64, usize, Cell)> = col
                    .iter()
                    .enumerate()
                    .map(|(i, c)| {
                        let preds: Vec<f64> = match c {
                            Cell::Node(id) => forward
                                .iter()
                                .enumerate()
                                .filter(|(_, (_, t))| t == id)
                                .filter_map(|(k, (f, _))| {
                                    if layer[f] + 1 == l {
                                        pos.get(*f).copied()
                                    } else {
                                        pos.get(&format!("#{k}")).copied()
                                    }
                                })
                                .collect(),
                            Cell::Pass(k, step) => {
                                let (f, _) = forward[*k];
                                let p = if *step == 0 {
                                    pos.get(f).copied()
                                } else {
                                    pos.get(&format!("#{k}")).copied()
                                };
                                p.into_iter().collect()
                            }
                        };
                        let mean = if preds.is_empty() {
                            i as f64
                        } else {
                            preds.iter().sum::<f64>() / preds.len() as f64
                        };
                        (mean, i, c.clone())
                    })
                    .collect();
                keyed.sort_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
                *col = keyed.into_iter().map(|(_, _, c)| c).collect();
            }
            let n = col.len() as f64;
            for (i, c) in col.iter().enumerate() {
                let p = i as f64 - (n - 1.0) / 2.0;
                match c {
                    Cell::Node(id) => {
                        pos.insert(id.to_string(), p);
                    }
                    Cell::Pass(k, _) => {
                        pos.insert(format!("#{k}"), p);
                    }
                }
            }
        }
    }

    // Tails: where each boundary event and its chain go, relative to the host.
    struct Tail<'a> {
        boundary: &'a str,
        bx: i64,                    // boundary centre, from the host's left
        row: i64,                   // tail row below the host
        chain: Vec<(&'a str, i64)>, // node, left from the host's left
    }
    let mut host_tails: HashMap<&str, Vec<Tail>> = HashMap::new();
    let mut cell_w: HashMap<&str, i64> = HashMap::new();
    let mut cell_h: HashMap<&str, i64> = HashMap::new();
    let mut row_h = 0i64; // tallest node of the grid
    for &id in &grid {
        let (w, h) = size_of(id);
        row_h = row_h.max(h);
        cell_w.insert(id, w);
        cell_h.insert(id, h);
    }
    for (&host_index, ids) in &boundaries {
        let host = plane.nodes[host_index].id.as_str();
        let (hw, hh) = size_of(host);
        let n = ids.len() as i64;
        let mut tails_here: Vec<Tail> = Vec::new();
        let mut rows_right: Vec<i64> = Vec::new(); // leftmost x used in each row (right to left)
        for (k, &b) in ids.iter().enumerate().rev() {
            let bx = hw * (k as i64 + 1) / (n + 1);
            let mut x = bx;
            let mut chain = Vec::new();
            let mut right = bx + 18;
            for (j, &c) in tails[b].iter().enumerate() {
                let (w, _) = size_of(c);
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
            let w = cell_w.entry(host).or_insert(hw);
            *w = (*w).max(right);
            let _ = hh;
            tails_here.push(Tail {
                boundary: b,
                bx,
                row: row as i64,
                chain,
            });
        }
        let rows = rows_right.len() as i64;
        let tail_h = TAIL_GAP + rows * 80;
        let h = cell_h.entry(host).or_insert(hh);
        *h += tail_h;
        host_tails.insert(host, tails_here);
    }
    let mut cell_h_max = 0;
    for &id in &grid {
        // Cells align the centres of their nodes; extra height hangs below.
        let (_, h) = size_of(id);
        let below = cell_h[id] - h;
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
            .map(|c| match c {
                Cell::Node(id) => cell_w[id],
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
        let n = columns[col].len() as i64;
        PAD_TOP + row_h / 2 + (2 * i as i64 + max_rows - n) * pitch / 2
    };

    let mut shapes: Vec<Shape> = Vec::new();
    let mut at: HashMap<&str, Bounds> = HashMap::new();
    let mut pass_at: HashMap<(usize, usize), (i64, i64, i64)> = HashMap::new(); // x left, x right, y
    for (l, col) in columns.iter().enumerate() {
        for (i, c) in col.iter().enumerate() {
            let cy = centre(l, i);
            match c {
                Cell::Node(id) => {
                    let (w, h) = size_of(id);
                    let b = Bounds {
                        x: col_x[l] + (col_w[l] - cell_w[id]) / 2,
                        y: cy - h / 2,
                        w,
                        h,
                    };
                    at.insert(id, b);
                }
                Cell::Pass(k, step) => {
                    pass_at.insert((*k, *step), (col_x[l], col_x[l] + col_w[l], cy));
                }
            }
        }
    }
    // Boundary events and tails.
    for (host, ts) in &host_tails {
        let hb = at[host];
        for t in ts {
            let b = Bounds {
                x: hb.x + t.bx - 18,
                y: hb.bottom() - 18,
                w: 36,
                h: 36,
            };
            at.insert(t.boundary, b);
            let row_cy = hb.bottom() + TAIL_GAP + 40 + t.row * 80;
            for (c, left) in &t.chain {
                let (w, h) = size_of(c);
                at.insert(
                    c,
                    Bounds {
                        x: hb.x + left,
                        y: row_cy - h / 2,
                        w,
                        h,
                    },
                );
            }
        }
    }
    let grid_bottom = at.values().map(Bounds::bottom).max().unwrap_or(PAD_TOP);
    // Event subprocesses: a band below.
    let mut bx = PAD;
    for &id in &band {
        let (w, h) = size_of(id);
        at.insert(
            id,
            Bounds {
                x: bx,
                y: grid_bottom + 40,
                w,
                h,
            },
        );
        bx += w + GAP_X;
    }

    // Shapes in plane order; expanded subprocesses bring their content.
    for n in &plane.nodes {
        let b = at[n.id.as_str()];
        let expanded = match &n.kind {
            Kind::Sub(s) => Some(s.expanded),
            _ => None,
        };
        shapes.push(Shape {
            id: n.id.clone(),
            bounds: b,
            expanded,
        });
    }
    let mut edges: Vec<Edge> = Vec::new();
    let mut nested = Diagram::default();
    for n in &plane.nodes {
        if let Some(p) = inner.get(&n.id) {
            let b = at[n.id.as_str()];
            translate(p, b.x, b.y, &mut nested);
        }
    }

    // Edges.
    let loop_y = |from: &Bounds, to: &Bounds| -> i64 {
        from.bottom().max(to.bottom()).max(
            at.values()
                .filter(|b| b.right() > to.x.min(from.x) && b.x < from.right().max(to.right()))
                .filter(|b| b.cy() == from.cy())
                .map(Bounds::bottom)
                .max()
                .unwrap_or(0),
        ) + LOOP_DROP
    };
    for f in &plane.flows {
        let (Some(s), Some(t)) = (at.get(f.from.as_str()), at.get(f.to.as_str())) else {
            continue;
        };
        let (s, t) = (*s, *t);
        let from_hanging = hanging.contains(f.from.as_str());
        let points = if from_hanging {
            if t.y > s.bottom() && t.x <= s.cx() && s.cx() <= t.right() {
                // Straight down into the node below.
                vec![(s.cx(), s.bottom()), (s.cx(), t.y)]
            } else if t.cy() == s.cy() {
                vec![(s.right(), s.cy()), (t.x, t.cy())]
            } else {
                vec![(s.cx(), s.bottom()), (s.cx(), t.cy()), (t.x, t.cy())]
            }
        } else if back.contains(&(f.from.clone(), f.to.clone())) {
            let y = loop_y(&s, &t);
            vec![
                (s.cx(), s.bottom()),
                (s.cx(), y),
                (t.cx(), y),
                (t.cx(), t.bottom()),
            ]
        } else {
            let k = forward
                .iter()
                .position(|(a, b)| *a == f.from && *b == f.to)
                .expect("forward edge");
            let mut pts = vec![(s.right(), s.cy())];
            let mut cur_y = s.cy();
            let mut cur_right = s
                .right()
                .max(col_x[layer[f.from.as_str()]] + col_w[layer[f.from.as_str()]]);
            let mut step = 0;
            while let Some(&(left, right, y)) = pass_at.get(&(k, step)) {
                if y != cur_y {
                    let mx = cur_right + (left - cur_right) / 2;
                    pts.push((mx, cur_y));
                    pts.push((mx, y));
                }
                cur_y = y;
                cur_right = right;
                step += 1;
            }
            if t.cy() != cur_y {
                let left = col_x[layer[f.to.as_str()]];
                let mx = cur_right + (left - cur_right) / 2;
                pts.push((mx, cur_y));
                pts.push((mx, t.cy()));
            }
            pts.push((t.x, t.cy()));
            pts
        };
        edges.push(Edge {
            id: f.id.clone(),
            points,
        });
    }
    for (id, from, to) in &plane.associations {
        let (s, t) = (at[from.as_str()], at[to.as_str()]);
        let x = s.cx().clamp(t.x + 1, t.right() - 1);
        edges.push(Edge {
            id: id.clone(),
            points: vec![(s.cx(), s.bottom()), (x, t.y)],
        });
    }

    // The content of expanded subprocesses follows their own shape.
    let mut all_shapes = Vec::new();
    for s in shapes {
        let id = s.id.clone();
        all_shapes.push(s);
        if inner.contains_key(&id) {
            let prefix: Vec<Shape> = nested
                .shapes
                .iter()
                .filter(|x| owned_by(plane, &id, &x.id))
                .cloned()
                .collect();
            all_shapes.extend(prefix);
        }
    }
    edges.extend(nested.edges);
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

/// Whether shape `id` belongs to the content of expanded subprocess `sub` of `plane`.
fn owned_by(plane: &Plane, sub: &str, id: &str) -> bool {
    plane.nodes.iter().any(|n| {
        n.id == sub
            && matches!(&n.kind, Kind::Sub(s) if s.plane.walk().iter().any(|p| p.nodes.iter().any(|x| x.id == id)))
    })
}
