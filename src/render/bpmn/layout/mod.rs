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
//!
//! A plane is laid out in phases, each a module: `roles` (what is in
//! the grid, what hangs below a host, what goes to the band), `ranking`
//! (back edges, forward edges, layers), `lanes` (the long edges),
//! `ordering` (the cells of each column and their order), `placing`
//! (the bounds of the nodes) and `routing` (the waypoints of the edges).
//! The layout knows nothing of XML: [`super::xml`] writes what
//! [`Diagram::each_shape`] and [`Diagram::each_edge`] give it.

mod geometry;
mod index;
mod lanes;
mod ordering;
mod placing;
mod ranking;
mod roles;
mod routing;

pub(crate) use self::geometry::Bounds;
use self::geometry::{beyond_32_bits, narrow};
use self::lanes::Lanes;
use self::placing::PAD;
use self::ranking::rank;
use self::roles::Roles;
use self::routing::Router;
use super::graph::{Kind, Plane, Text};

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

/// The content of expanded subprocesses, by node index.
type Children<'a> = Vec<(usize, Placed<'a>)>;

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
    children: Children<'a>,
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

/// Lay out one plane at the origin: its phases in turn ([`roles`],
/// [`ranking`], [`ordering`] with [`lanes`], [`placing`], [`routing`]).
/// Collapsed subprocesses are laid out into diagrams of their own,
/// appended to `diagrams`. Every phase is linear in the plane's nodes,
/// flows and the cells long edges pass through, and the working memory is
/// a few flat vectors of them (a 100k-node plan's plane has most of a
/// million nodes), each given back once no later phase reads it.
fn place<'a>(
    text: &'a Text,
    plane: &'a Plane,
    diagrams: &mut Vec<Diagram<'a>>,
) -> crate::error::Result<Placed<'a>> {
    let (inner, sizes) = place_children(text, plane, diagrams)?;
    let mut roles = Roles::of(plane);
    let mut ranks = rank(plane, &roles);
    let lanes = Lanes::of(&ranks);
    let columns = ordering::order(&roles, &ranks);
    // The forward edges' adjacency is for the ordering only.
    ranks.fwd = Default::default();
    let placing = placing::place(&sizes, &roles, &ranks, &columns, &lanes);
    // The edges need the bounds, not the sizes and cells they came from
    // (the working memory of a large plane is at its peak from here on).
    drop((sizes, columns));
    ranks.forward = Vec::new();
    roles.keep_for_routing();
    let points = Router {
        plane,
        roles: &roles,
        ranks: &ranks,
        lanes: &lanes,
        placing: &placing,
    }
    .route();
    drop((roles, ranks, lanes));
    let at = placing.at;

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
    let mut wide = points.wide;
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

/// The subprocesses of a plane, first: expanded ones laid out (by node
/// index) to give their size, collapsed ones into a diagram of their own
/// (deferred ones: a diagram that marks where theirs go). Also the size of
/// every node, in 32 bits as every coordinate of a diagram is.
fn place_children<'a>(
    text: &'a Text,
    plane: &'a Plane,
    diagrams: &mut Vec<Diagram<'a>>,
) -> crate::error::Result<(Children<'a>, Vec<(i32, i32)>)> {
    let mut inner: Children<'a> = Vec::new();
    let mut sizes: Vec<(i32, i32)> = Vec::with_capacity(plane.nodes.len());
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
    Ok((inner, sizes))
}

#[cfg(test)]
pub(crate) mod tests {
    //! Small planes for the tests of the phases.

    use super::*;
    use crate::render::bpmn::graph::{Script, Str, Value};

    /// An empty plane and its text.
    pub(crate) fn plane() -> (Text, Plane) {
        let mut text = Text::default();
        let p = Plane::new(text.add("p"));
        (text, p)
    }

    /// Add a task (100 x 80) named `id`.
    pub(crate) fn task(text: &mut Text, p: &mut Plane, id: &str) -> usize {
        let kind = Kind::Script(Box::new(Script {
            script: Value::Groovy(Str::default()),
            locals: Vec::new(),
        }));
        p.add(text.add(id), Str::default(), kind)
    }

    /// Add an error boundary event on `host`; `routes`: it routes the
    /// failure on into the graph.
    pub(crate) fn boundary(text: &mut Text, p: &mut Plane, host: usize, routes: bool) -> usize {
        let kind = Kind::Boundary {
            host: host as u32,
            error: true,
            routes,
            code: None,
            message: None,
        };
        p.add(text.add(&format!("b{host}")), Str::default(), kind)
    }

    /// Tasks 0 -> 1 -> … -> n - 1.
    pub(crate) fn chain(n: usize) -> (Text, Plane) {
        let (mut text, mut p) = plane();
        for i in 0..n {
            task(&mut text, &mut p, &format!("t{i}"));
            if i > 0 {
                p.connect(i - 1, i);
            }
        }
        (text, p)
    }

    /// Tasks 0 -> 1, 0 -> 2, 1 -> 3, 2 -> 3.
    pub(crate) fn diamond() -> (Text, Plane) {
        let (mut text, mut p) = plane();
        for i in 0..4 {
            task(&mut text, &mut p, &format!("t{i}"));
        }
        for (f, t) in [(0, 1), (0, 2), (1, 3), (2, 3)] {
            p.connect(f, t);
        }
        (text, p)
    }

    /// The sizes of the nodes of `p` (no expanded subprocesses).
    pub(crate) fn sizes(p: &Plane) -> Vec<(i32, i32)> {
        let size = |n: &crate::render::bpmn::graph::Node| {
            let (w, h) = size(&n.kind, None);
            (w as i32, h as i32)
        };
        p.nodes.iter().map(size).collect()
    }

    /// The waypoints of every edge, at the origin of the plane.
    fn edges(text: &Text, p: &Plane) -> Vec<Vec<(i32, i32)>> {
        let diagrams = layout(text, "p", p).unwrap();
        let mut out = Vec::new();
        diagrams[0].each_edge(&mut |_, points, (dx, dy)| {
            assert_eq!((dx, dy), ORIGIN);
            out.push(points.to_vec());
        });
        out
    }

    #[test]
    fn a_chain_runs_straight_from_right_to_left_edges() {
        let (text, p) = chain(3);
        assert_eq!(
            edges(&text, &p),
            [[(130, 80), (180, 80)], [(280, 80), (330, 80)]]
        );
        let mut shapes = Vec::new();
        layout(&text, "p", &p).unwrap()[0].each_shape(&mut |s| shapes.push((s.id, s.bounds)));
        let t0 = Bounds {
            x: 130,
            y: 120,
            w: 100,
            h: 80,
        };
        assert_eq!(shapes[0], ("t0", t0));
    }

    #[test]
    fn a_diamond_turns_halfway_between_columns() {
        let (text, p) = diamond();
        let e = edges(&text, &p);
        // 0 (centre 135) -> 1 (centre 80): out, up halfway, in.
        assert_eq!(e[0], [(130, 135), (155, 135), (155, 80), (180, 80)]);
        assert_eq!(e[3], [(280, 190), (305, 190), (305, 135), (330, 135)]);
    }

    #[test]
    fn a_long_edge_runs_through_its_passes_or_its_lane() {
        // Through the passes above the chain: up before them, down after.
        let (text, mut p) = chain(4);
        p.connect(0, 3);
        let e = edges(&text, &p);
        assert_eq!(
            e[3],
            [
                (130, 135),
                (155, 135),
                (155, 80),
                (455, 80),
                (455, 135),
                (480, 135)
            ]
        );
        // Skipping more than MAX_PASS layers: down to the lane under the
        // grid (bottom 120 + 20) in the gap after the source, up before the target.
        let (text, mut p) = chain(6);
        let f = p.connect(0, 5);
        let e = edges(&text, &p);
        assert_eq!(
            e[f],
            [
                (130, 80),
                (155, 80),
                (155, 140),
                (755, 140),
                (755, 80),
                (780, 80)
            ]
        );
    }

    #[test]
    fn a_loop_returns_below_its_row_and_a_tail_hangs_down() {
        let (mut text, mut p) = chain(3);
        let back = p.connect(2, 0);
        let b = boundary(&mut text, &mut p, 1, false);
        let end = p.add(text.add("e"), Str::default(), Kind::End(None));
        let down = p.connect(b, end);
        let e = edges(&text, &p);
        // Below the shapes of the row between its ends (bottom 120); the
        // tail of 1 is on a row of its own.
        assert_eq!(e[back], [(380, 120), (380, 145), (80, 145), (80, 120)]);
        // From the event straight down into the end event below it.
        assert_eq!(e[down], [(230, 138), (230, 182)]);
    }
}
