//! Building blocks of a plane: the id prefix of a step's elements
//! ([`Prefix`]), and a chain of nodes, each following the one before
//! ([`Chain`]).
//!
//! In: a plane and the nodes to add. Out: the nodes and flows added to it.

use std::fmt;

use super::graph::{Kind, Plane, Str, small};

/// The id prefix of a step's elements: `<base><suffix><n>`, e.g.
/// `Tomcat_provision_s3` (base `Tomcat_provision`, suffix `_s`, n 3).
#[derive(Clone, Copy, Debug)]
pub(super) struct Prefix<'a> {
    /// The activity id.
    pub base: &'a str,
    /// What follows it (`_s`, `_c`, `_turn`, or nothing).
    pub suffix: &'static str,
    /// The step number, if any.
    pub n: Option<usize>,
}

impl<'a> Prefix<'a> {
    /// The activity itself.
    pub(super) fn of(base: &'a str) -> Prefix<'a> {
        Prefix {
            base,
            suffix: "",
            n: None,
        }
    }

    /// Step `n` (`_s<n>`, compensation `_c<n>`).
    pub(super) fn step(base: &'a str, suffix: &'static str, n: usize) -> Prefix<'a> {
        Prefix {
            base,
            suffix,
            n: Some(n),
        }
    }
}

impl fmt::Display for Prefix<'_> {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str(self.base)?;
        f.write_str(self.suffix)?;
        if let Some(n) = self.n {
            write!(f, "{n}")?;
        }
        Ok(())
    }
}

/// A chain of nodes: each added node follows the previous one.
pub(super) struct Chain<'p> {
    /// The plane the chain grows in.
    pub plane: &'p mut Plane,
    /// The node the next one follows (an index in the plane).
    pub last: usize,
    /// An exclusive split whose next outgoing flow is its default.
    default_of: Option<usize>,
}

impl<'p> Chain<'p> {
    /// A chain continuing after node `last`.
    pub(super) fn new(plane: &'p mut Plane, last: usize) -> Chain<'p> {
        Chain {
            plane,
            last,
            default_of: None,
        }
    }

    /// Append a node; returns its index.
    pub(super) fn then(&mut self, id: Str, name: Str, kind: Kind) -> usize {
        let i = self.plane.add(id, name, kind);
        self.link_to(i);
        i
    }

    /// Connect the chain to an existing node, which becomes the last.
    pub(super) fn link_to(&mut self, i: usize) {
        let flow = self.plane.connect(self.last, i);
        if let Some(split) = self.default_of.take() {
            set_default(self.plane, split, flow);
        }
        self.last = i;
    }

    /// The next flow out of the current last node is its default flow.
    pub(super) fn default_next(&mut self) {
        self.default_of = Some(self.last);
    }

    /// Append an exclusive split (`split`: id and label) whose flow under
    /// `condition` (labelled `flow`) leads to a new end event (`end`: id
    /// and label); the chain goes on along the split's default flow.
    pub(super) fn end_if(
        &mut self,
        split: (Str, Str),
        end: (Str, Str),
        condition: Str,
        flow: &'static str,
    ) {
        let split = self.then(split.0, split.1, Kind::Xor(None));
        let end = self.plane.add(end.0, end.1, Kind::End(None));
        self.plane.connect_if(split, end, Some(condition), flow);
        self.default_next();
    }
}

/// Make flow `flow` the default flow of exclusive gateway `split`.
pub(super) fn set_default(plane: &mut Plane, split: usize, flow: usize) {
    plane.nodes[split].kind = Kind::Xor(Some(small(flow)));
}
