//! What the same node filters say of every candidate, worked out once and
//! shared by the requirements that carry them (`fulfil.rs`). A generated
//! topology gives thousands of templates the same filtered requirement;
//! evaluating each one's filters on every candidate made fulfilment grow
//! with the square of the topology (4,000 Computes and 4,000 filtered
//! hosts: 27 s).
//!
//! Filters are the same when they are written alike in the same scope,
//! ask for the same capability and fit the same types of the same
//! topology; a filter that
//! reads the relationship's source (`SOURCE`) depends on the requirement
//! and is not shared, nor is one whose evaluation reports something (a
//! pattern it cannot read: each place it is written is reported).
//!
//! In: the requirement ([`Wanted`]) and the types that fit it. Out:
//! [`Shared`] verdicts, from which each requirement takes its first
//! candidates, passing over the source and the templates it has already,
//! exactly as evaluating them one by one would.

use std::sync::Arc;

use super::Lowerer;
use super::candidates::skipped;
use super::fulfil::{Pool, Wanted, first_not_out, none_passes, unknown};
use super::node_filter::Verdict;
use crate::model::NodeId;
use crate::yaml::node::{Kind, Node};

/// The verdicts of one set of filters on every candidate of some types.
pub(super) struct Shared {
    /// Which shared verdicts these are, among the lowering's.
    pub(super) id: usize,
    /// The candidates, in node id order, that the filters do not reject:
    /// passing (`None`) or not known to (`Some(why)`).
    open: Vec<(NodeId, Option<String>)>,
    /// The passing candidates, in node id order.
    passing: Vec<NodeId>,
}

/// The first passing templates (at most [`SHOWN`](super::fulfil::SHOWN)) and how many pass.
pub(super) type Chosen = (Vec<NodeId>, usize);

impl<'a> Lowerer<'a> {
    /// The shared verdicts of `wanted`'s filters on the templates of
    /// `types`, worked out on first use; `None` where they cannot be
    /// shared.
    pub(super) fn shared_verdicts(
        &mut self,
        wanted: &Wanted<'_, 'a>,
        pool: &Pool<'_, 'a>,
        types: &[usize],
    ) -> Option<Arc<Shared>> {
        let key = format!("{}|{}", pool.index.generation, key(wanted, types)?);
        if let Some(done) = self.shared_verdicts.get(&key) {
            return done.clone();
        }
        let reported = self.diags.len();
        let shared = self.evaluate_all(wanted, pool, types);
        // Reported while evaluating: each place must be, so no sharing.
        let shared = (self.diags.len() == reported).then(|| Arc::new(shared));
        self.shared_verdicts.insert(key, shared.clone());
        shared
    }

    /// The filters of `wanted` on every template of `types`.
    fn evaluate_all(
        &mut self,
        wanted: &Wanted<'_, 'a>,
        pool: &Pool<'_, 'a>,
        types: &[usize],
    ) -> Shared {
        let mut ids: Vec<NodeId> = types
            .iter()
            .flat_map(|&t| pool.index.of_type(t).1)
            .copied()
            .collect();
        ids.sort_unstable();
        let mut shared = Shared {
            id: self.shared_verdicts.len(),
            open: Vec::new(),
            passing: Vec::new(),
        };
        for id in ids {
            // (Its source is not read: filters that read it are not shared.)
            let candidate = self.candidate(wanted, pool, id);
            match self.passes_all(&wanted.filters, &candidate) {
                Verdict::Pass => {
                    shared.open.push((id, None));
                    shared.passing.push(id);
                }
                Verdict::Fail => {}
                Verdict::Unknown(why) => shared.open.push((id, Some(why))),
            }
        }
        shared
    }
}

impl Shared {
    /// The templates that pass for one requirement, which passes over
    /// `source` and `taken` (among the `left` candidates that remain when
    /// those are left out). `Err` as [`Lowerer::fulfil`] gives it.
    pub(super) fn choose(
        &self,
        pool: &Pool<'_, '_>,
        wanted: &Wanted<'_, '_>,
        (taken, left): (&[NodeId], usize),
    ) -> Result<Chosen, Option<String>> {
        if left == 0 {
            return Err(None);
        }
        let source = wanted.source.1;
        let passed_over = |id: &NodeId| *id == source || taken.contains(id);
        // The first candidate not rejected decides whether any is chosen.
        match self.open.iter().find(|(id, _)| !passed_over(id)) {
            Some((id, Some(why))) => return Err(Some(unknown(pool, wanted, *id, why))),
            Some((_, None)) => {}
            None => return Err(Some(none_passes(wanted))),
        }
        let all = &self.passing;
        let out = skipped(source, taken);
        Ok(first_not_out(all.iter(), all.len(), &out, |id| {
            all.binary_search(id).is_ok()
        }))
    }
}

impl Shared {
    /// The candidates not rejected, in node id order.
    pub(super) fn open(&self) -> impl Iterator<Item = NodeId> + '_ {
        self.open.iter().map(|(id, _)| *id)
    }

    /// What the filters say of candidate `id`: `None` if they reject it,
    /// `Some(None)` if it passes, `Some(Some(why))` if that is unknown.
    pub(super) fn verdict(&self, id: NodeId) -> Option<Option<&str>> {
        let i = self.open.binary_search_by_key(&id, |(o, _)| *o).ok()?;
        Some(self.open[i].1.as_deref())
    }
}

/// What makes filters the same: the types they are evaluated on, the
/// capability asked for, and each filter as written with the scope it is
/// read in. `None` for a filter that reads the source.
fn key(wanted: &Wanted<'_, '_>, types: &[usize]) -> Option<String> {
    if wanted.filters.iter().any(|(f, _)| reads_source(f)) {
        return None;
    }
    let mut k = format!("{types:?}");
    if let Some((c, unit)) = wanted.capability {
        k.push_str(&format!("|{:?}@{}", c.text, unit.id()));
    }
    for (f, unit) in &wanted.filters {
        k.push_str(&format!("|{}:", unit.id()));
        written(f, &mut k);
    }
    Some(k)
}

/// Whether `node` names `SOURCE` anywhere (a path from the source).
fn reads_source(node: &Node) -> bool {
    match &node.kind {
        Kind::Null => false,
        Kind::Scalar { text, .. } => text == "SOURCE",
        Kind::Seq(items) => items.iter().any(reads_source),
        Kind::Map(entries) => entries
            .iter()
            .any(|(k, v)| reads_source(k) || reads_source(v)),
    }
}

/// `node` as written, without where: its text, quoting kept.
fn written(node: &Node, out: &mut String) {
    match &node.kind {
        Kind::Null => out.push('~'),
        Kind::Scalar { text, quoted } => out.push_str(&format!("{quoted}{text:?}")),
        Kind::Seq(items) => {
            out.push('[');
            for i in items {
                written(i, out);
                out.push(',');
            }
            out.push(']');
        }
        Kind::Map(entries) => {
            out.push('{');
            for (k, v) in entries {
                written(k, out);
                out.push(':');
                written(v, out);
                out.push(',');
            }
            out.push('}');
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::lower_text;
    use crate::diagnostics::codes;

    /// Requirements with the same filter share its verdicts, and each
    /// still passes over itself and what it has: the same choice as
    /// evaluating one by one.
    #[test]
    fn the_same_filter_chooses_as_if_evaluated_per_requirement() {
        let mut text = String::from(
            "tosca_definitions_version: tosca_2_0\nimports:\n  - profile: org.oasis-open.simple:2.0\nservice_template:\n  node_templates:\n",
        );
        for (name, n) in [("a", 1), ("b", 4), ("c", 8), ("d", 2), ("e", 6)] {
            text.push_str(&format!(
                "    {name}: {{type: tosca.nodes.Compute, properties: {{n: {n}}}}}\n"
            ));
        }
        let filter = "{$greater_than: [{$get_property: [SELF, TARGET, n]}, 3]}";
        text.push_str(&format!(
            "    x:\n      type: tosca.nodes.Root\n      requirements:\n        \
             - dependency: {{node: tosca.nodes.Compute, count: 2, node_filter: {filter}}}\n        \
             - dependency: {{node: tosca.nodes.Compute, node_filter: {filter}}}\n    \
             y:\n      type: tosca.nodes.Root\n      requirements:\n        \
             - dependency: {{node: tosca.nodes.Compute, node_filter: {filter}}}\n"
        ));
        let (t, d) = lower_text(&text);
        let t = t.unwrap();
        let targets = |s: &str| -> Vec<String> {
            t.relationships
                .iter()
                .filter(|r| t.node(r.source).id == s)
                .map(|r| t.node(r.target).id.clone())
                .collect()
        };
        assert_eq!(targets("x"), ["b", "c", "e"]);
        assert_eq!(targets("y"), ["b"]);
        let said: Vec<&str> = d
            .iter()
            .filter(|d| d.code == codes::W_DANGLING_REQUIREMENT)
            .map(|d| d.message.as_str())
            .collect();
        assert_eq!(
            said,
            [
                "requirement `dependency` of `x` names no node template: it is fulfilled by `b`, the first of the 3 templates of the topology that fit (`b`, `c`, `e`)",
                "requirement `dependency` of `x` names no node template: it is fulfilled by `c`, the first of the 2 templates of the topology that fit (`c`, `e`)",
                "requirement `dependency` of `y` names no node template: it is fulfilled by `b`, the first of the 3 templates of the topology that fit (`b`, `c`, `e`)",
            ]
        );
    }
}
