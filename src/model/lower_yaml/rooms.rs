//! Which candidates have room for an allocation (2.0 §8.5.5), kept up to
//! date across the requirements that allocate alike (`fulfil.rs`).
//! Looking at every candidate's room for every allocating requirement
//! made fulfilment grow with the square of the topology (4,000 Computes
//! and 4,000 hosts allocating from them: 11.5 s).
//!
//! A candidate's room changes only when a relationship allocates on it,
//! so the candidates with room are worked out once per allocation (the
//! same amounts of the same capability, on the same types of the same
//! topology), and afterwards only the nodes allocated on since are looked
//! at again; where the requirement also filters, the same is kept among
//! the candidates its filters do not reject (`shared_verdicts.rs`).
//!
//! In: the requirement ([`Wanted`]), the types that fit it, what the
//! relationships so far allocate and on which nodes, in order. Out: the
//! first candidates with room and how many have it, as looking at each
//! would give them.

use std::collections::BTreeSet;

use super::Lowerer;
use super::allocation::Allocated;
use super::candidates::{of_types, skipped};
use super::fulfil::{Pool, Wanted, first_not_out, none_passes, unknown};
use super::shared_verdicts::{Chosen, Shared};
use crate::model::NodeId;

/// The candidates with room for one allocation.
pub(super) struct Room {
    /// Those with room, by node id.
    with_room: BTreeSet<NodeId>,
    /// How much of the log of allocations they account for.
    seen: usize,
}

/// The candidates with room for one allocation among those that one set
/// of filters does not reject.
pub(super) struct RoomPassing {
    /// Those with room, passing or not known to.
    open: BTreeSet<NodeId>,
    /// Those with room that pass.
    passing: BTreeSet<NodeId>,
    /// How much of the log of allocations they account for.
    seen: usize,
}

impl<'a> Lowerer<'a> {
    /// As [`Shared::choose`], among the candidates with room for what
    /// `wanted` allocates: the first of them not rejected decides, and
    /// where none has room, nothing is said of the filters.
    pub(super) fn with_room_passing(
        &mut self,
        wanted: &Wanted<'_, 'a>,
        pool: &Pool<'_, 'a>,
        (types, taken): (&[usize], &[NodeId]),
        allocated: &Allocated<'_>,
        shared: &Shared,
    ) -> Result<Chosen, Option<String>> {
        if self.with_room(wanted, pool, (types, taken), allocated).1 == 0 {
            return Err(None);
        }
        let key = format!(
            "{}|{}",
            key(pool.index.generation, wanted, types),
            shared.id
        );
        let mut room = match self.rooms_passing.remove(&key) {
            Some(room) => room,
            None => {
                let mut room = RoomPassing {
                    open: BTreeSet::new(),
                    passing: BTreeSet::new(),
                    seen: allocated.log.len(),
                };
                for id in shared.open() {
                    self.look_again(&mut room, (wanted, pool), shared, id, allocated);
                }
                room
            }
        };
        for i in room.seen..allocated.log.len() {
            let id = allocated.log[i];
            if shared.verdict(id).is_some() {
                self.look_again(&mut room, (wanted, pool), shared, id, allocated);
            }
        }
        room.seen = allocated.log.len();
        let chosen = room.choose(pool, wanted, taken, shared);
        self.rooms_passing.insert(key, room);
        chosen
    }

    /// Whether candidate `id` (not rejected by `shared`) has room now.
    fn look_again(
        &mut self,
        room: &mut RoomPassing,
        (wanted, pool): (&Wanted<'_, 'a>, &Pool<'_, 'a>),
        shared: &Shared,
        id: NodeId,
        allocated: &Allocated<'_>,
    ) {
        room.open.remove(&id);
        room.passing.remove(&id);
        if self.has_room_in(id, &pool.asts[id.0 as usize].1, wanted, allocated.amount) {
            room.open.insert(id);
            if shared.verdict(id) == Some(None) {
                room.passing.insert(id);
            }
        }
    }

    /// The first templates of `types` (at most [`SHOWN`](super::fulfil::SHOWN)) with room for
    /// what `wanted` allocates, passing over its source and `taken`, and
    /// how many have room.
    pub(super) fn with_room(
        &mut self,
        wanted: &Wanted<'_, 'a>,
        pool: &Pool<'_, 'a>,
        (types, taken): (&[usize], &[NodeId]),
        allocated: &Allocated<'_>,
    ) -> (Vec<NodeId>, usize) {
        let key = key(pool.index.generation, wanted, types);
        let mut room = match self.rooms.remove(&key) {
            Some(room) => room,
            None => Room {
                with_room: self.room_of(wanted, pool, types_ids(pool, types), allocated),
                seen: allocated.log.len(),
            },
        };
        // Allocated on since: their room may have changed.
        let changed: Vec<NodeId> = allocated.log[room.seen..]
            .iter()
            .copied()
            .filter(|&id| of_types(pool.index, types, id))
            .collect();
        for id in changed {
            room.with_room.remove(&id);
            room.with_room
                .extend(self.room_of(wanted, pool, [id], allocated));
        }
        room.seen = allocated.log.len();
        let out = skipped(wanted.source.1, taken);
        let set = &room.with_room;
        let chosen = first_not_out(set.iter(), set.len(), &out, |id| set.contains(id));
        self.rooms.insert(key, room);
        chosen
    }

    /// Those of `ids` that have room for what `wanted` allocates.
    fn room_of(
        &mut self,
        wanted: &Wanted<'_, 'a>,
        pool: &Pool<'_, 'a>,
        ids: impl IntoIterator<Item = NodeId>,
        allocated: &Allocated<'_>,
    ) -> BTreeSet<NodeId> {
        ids.into_iter()
            .filter(|&id| {
                self.has_room_in(id, &pool.asts[id.0 as usize].1, wanted, allocated.amount)
            })
            .collect()
    }
}

impl RoomPassing {
    /// The first passing candidates with room, passing over the source and
    /// `taken`, and how many: `Err` where the first not rejected is not
    /// known to pass, or none passes.
    fn choose(
        &self,
        pool: &Pool<'_, '_>,
        wanted: &Wanted<'_, '_>,
        taken: &[NodeId],
        shared: &Shared,
    ) -> Result<Chosen, Option<String>> {
        let out = skipped(wanted.source.1, taken);
        let kept = |id: &&NodeId| out.binary_search(id).is_err();
        match self.open.iter().find(kept) {
            None => return Err(Some(none_passes(wanted))),
            Some(&id) => {
                if let Some(Some(why)) = shared.verdict(id) {
                    return Err(Some(unknown(pool, wanted, id, why)));
                }
            }
        }
        let set = &self.passing;
        Ok(first_not_out(set.iter(), set.len(), &out, |id| {
            set.contains(id)
        }))
    }
}

/// The templates of `types`.
fn types_ids(pool: &Pool<'_, '_>, types: &[usize]) -> Vec<NodeId> {
    types
        .iter()
        .flat_map(|&t| pool.index.of_type(t).1)
        .copied()
        .collect()
}

/// What makes allocations the same: the topology, the types, the
/// capability asked for, and the amounts (as written: room reads only
/// their text).
fn key(generation: u64, wanted: &Wanted<'_, '_>, types: &[usize]) -> String {
    let mut k = format!("{generation}|{types:?}");
    if let Some((c, unit)) = wanted.capability {
        k.push_str(&format!("|{:?}@{}", c.text, unit.id()));
    }
    for (prop, v) in wanted.allocation {
        k.push_str(&format!("|{:?}={:?}", prop.text, v.as_str()));
    }
    k
}

#[cfg(test)]
mod tests {
    use super::super::lower_text;
    use crate::model::Topology;

    /// The host each of `app0` … `app<n-1>` got.
    fn hosts(t: &Topology, n: usize) -> Vec<String> {
        (0..n)
            .map(|i| {
                let r = t
                    .relationships
                    .iter()
                    .find(|r| t.node(r.source).id == format!("app{i}"))
                    .unwrap();
                t.node(r.target).id.clone()
            })
            .collect()
    }

    /// Hosts allocating alike fill each Compute in turn: the room seen by
    /// each requirement is that of the allocations before it.
    #[test]
    fn allocations_fill_the_candidates_in_order() {
        let mut text = String::from(
            "tosca_definitions_version: tosca_2_0\nimports:\n  - profile: org.oasis-open.simple:2.0\nservice_template:\n  node_templates:\n",
        );
        for (name, gb) in [("a", 2), ("b", 1), ("c", 3)] {
            text.push_str(&format!(
                "    {name}:\n      type: tosca.nodes.Compute\n      capabilities: {{host: {{properties: {{mem_size: {gb} GB}}}}}}\n"
            ));
        }
        // One named on `c`, declared first: it takes 1 GB of `c`.
        text.push_str(
            "    pinned:\n      type: tosca.nodes.SoftwareComponent\n      requirements:\n        \
             - host: {node: c, allocation: {mem_size: 1 GB}}\n",
        );
        for i in 0..7 {
            text.push_str(&format!(
                "    app{i}:\n      type: tosca.nodes.SoftwareComponent\n      requirements:\n        \
                 - host: {{capability: tosca.capabilities.Compute, allocation: {{mem_size: 1 GB}}}}\n"
            ));
        }
        let (t, d) = lower_text(&text);
        let t = t.unwrap();
        let hosts = hosts(&t, 7);
        // a: 2 GB, b: 1 GB, c: 3 GB less pinned's; then none has room.
        assert_eq!(
            hosts,
            [
                "a",
                "a",
                "b",
                "c",
                "c",
                "app5_host_target",
                "app6_host_target"
            ],
            "{d:?}"
        );
    }

    /// With a filter too: room among the candidates it lets through.
    #[test]
    fn allocations_fill_the_candidates_the_filter_lets_through() {
        let mut text = String::from(
            "tosca_definitions_version: tosca_2_0\nimports:\n  - profile: org.oasis-open.simple:2.0\nservice_template:\n  node_templates:\n",
        );
        for (name, gb, cpus) in [("a", 2, 4), ("b", 2, 1), ("c", 1, 8)] {
            text.push_str(&format!(
                "    {name}:\n      type: tosca.nodes.Compute\n      capabilities: {{host: {{properties: {{mem_size: {gb} GB, num_cpus: {cpus}}}}}}}\n"
            ));
        }
        for i in 0..4 {
            text.push_str(&format!(
                "    app{i}:\n      type: tosca.nodes.SoftwareComponent\n      requirements:\n        \
                 - host: {{capability: tosca.capabilities.Compute, allocation: {{mem_size: 1 GB}}, \
                 node_filter: {{$greater_than: [{{$get_property: [SELF, CAPABILITY, num_cpus]}}, 2]}}}}\n"
            ));
        }
        let (t, d) = lower_text(&text);
        let t = t.unwrap();
        let hosts = hosts(&t, 4);
        // `b` has room but 1 CPU; once `a` and `c` are full, nothing passes.
        assert_eq!(hosts, ["a", "a", "c", "app3_host_target"], "{d:?}");
        assert!(d.iter().any(|d| d.message.contains(
            "requirement `host` of `app3` names no node template (no template of the topology that fits passes its node_filter)"
        )), "{d:?}");
    }
}
