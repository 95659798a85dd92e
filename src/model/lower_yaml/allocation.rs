//! Capability allocation (TOSCA 2.0 §8.5.5): a requirement assignment's
//! `allocation` takes amounts of the target capability's properties, and
//! a capability is a valid target only while the allocations of all its
//! relationships stay within each property's value.
//!
//! In: the relationships in order, with their targets' capabilities and
//! the capabilities' static property values. Out: an error where the
//! allocations exceed a capability, or name a property it does not have;
//! a warning where a value is known only when the plans run; and, for the
//! fulfilment of dangling requirements, whether a capability has room.

use foldhash::HashMap;

use super::{Lowerer, OfferedCapability, Unit};
use crate::diagnostics::{Diagnostic, codes};
use crate::model::{NodeId, NodeTemplate, Value};
use crate::yaml::ast::{self, TypeKind};
use crate::yaml::node::Node;

/// What the relationships so far take: (target, capability, property).
pub(super) type Used = HashMap<(NodeId, String, String), f64>;

/// What the relationships so far allocate, as fulfilment reads it.
pub(super) struct Allocated<'w> {
    /// How much of a property of a node they take.
    pub(super) amount: &'w dyn Fn(NodeId, &str) -> f64,
    /// The nodes they allocate on, in order (one entry per relationship):
    /// whose room to look at again (`rooms.rs`).
    pub(super) log: &'w [NodeId],
}

impl<'a> Lowerer<'a> {
    /// Check and record the allocation of requirement `requirement` of
    /// node `source` on capability `c` of `target`.
    pub(super) fn allocate(
        &mut self,
        (requirement, source): (&str, NodeId),
        (allocation, unit): (&[(ast::Spanned, Node)], Unit<'a>),
        (target, c): (NodeId, &OfferedCapability<'a>),
        nodes: &[NodeTemplate],
        used: &mut Used,
    ) {
        let source = &nodes[source.0 as usize].id;
        for (prop, v) in allocation {
            let Some(amount) = amount_of(v) else {
                let why = format!(
                    "allocates `{}` as `{}`, which is not an amount",
                    prop.text,
                    v.as_str().unwrap_or("a structure")
                );
                self.allocation_error(requirement, source, (prop, unit), why);
                continue;
            };
            if !self.has_property(c, &prop.text) {
                let why = format!(
                    "allocates `{}`, which capability `{}` of `{}` does not have",
                    prop.text, c.name, nodes[target.0 as usize].id
                );
                self.allocation_error(requirement, source, (prop, unit), why);
                continue;
            }
            let key = (target, c.name.clone(), prop.text.clone());
            let before = used.get(&key).copied().unwrap_or(0.0);
            used.insert(key, before + amount);
            match self.capacity(target, &c.name, &prop.text) {
                Some(capacity) if before + amount > capacity => {
                    let why = format!(
                        "allocates {amount} of `{}` of capability `{}` of `{}`, which has {capacity}, {before} of it allocated already",
                        prop.text, c.name, nodes[target.0 as usize].id
                    );
                    self.allocation_error(requirement, source, (prop, unit), why);
                }
                Some(_) => {}
                None => self.push_once(
                    Diagnostic::warning(
                        codes::W_YAML_LENIENT,
                        format!(
                            "the allocation of `{}` by requirement `{}` is not checked: capability `{}` of `{}` has no value for it that is known when the plans are made",
                            prop.text, requirement, c.name, nodes[target.0 as usize].id
                        ),
                    )
                    .at(Self::at(unit, prop.span)),
                ),
            }
        }
    }

    /// Whether capability `cap` of `target` has room for `allocation` on
    /// top of what `used` says is taken (unknown values: room).
    pub(super) fn has_room(
        &mut self,
        target: NodeId,
        cap: &str,
        allocation: &[(ast::Spanned, Node)],
        used: &dyn Fn(NodeId, &str) -> f64,
    ) -> bool {
        allocation.iter().all(|(prop, v)| {
            match (amount_of(v), self.capacity(target, cap, &prop.text)) {
                (Some(amount), Some(capacity)) => used(target, &prop.text) + amount <= capacity,
                _ => true,
            }
        })
    }

    /// The static value of property `prop` of capability `cap` of `target`.
    pub(super) fn capacity(&self, target: NodeId, cap: &str, prop: &str) -> Option<f64> {
        self.capability_values
            .get(&(target, cap.to_string()))
            .and_then(|values| values.get(prop))
            .and_then(Value::as_str)
            .and_then(amount)
    }

    /// Whether capability `c`'s type defines property `prop`.
    fn has_property(&mut self, c: &OfferedCapability<'a>, prop: &str) -> bool {
        let Some(key) = &c.type_key else {
            return true;
        };
        self.defs(TypeKind::Capability, key)
            .iter()
            .any(|d| d.def.properties.iter().any(|p| p.name.text == prop))
    }

    fn allocation_error(
        &mut self,
        requirement: &str,
        source: &str,
        (prop, unit): (&ast::Spanned, Unit<'a>),
        why: String,
    ) {
        self.diags.push(
            Diagnostic::error(
                codes::DANGLING_REFERENCE,
                format!("requirement `{requirement}` of `{source}` {why}"),
            )
            .at(Self::at(unit, prop.span))
            .hint("allocate within what the target capability has (TOSCA 2.0 §8.5.5), or target another node"),
        );
    }
}

pub(super) fn amount_of(v: &Node) -> Option<f64> {
    v.as_str().and_then(amount)
}

/// A number or a scalar-unit (TOSCA 1.3 §3.3.6: size, time, frequency,
/// bitrate) as an amount of its base unit.
pub(super) fn amount(text: &str) -> Option<f64> {
    let text = text.trim();
    if let Ok(n) = text.parse::<f64>() {
        return Some(n);
    }
    let split = text.find(|c: char| c.is_ascii_alphabetic())?;
    let (number, unit) = text.split_at(split);
    let number: f64 = number.trim().parse().ok()?;
    let factor = match unit.trim() {
        "B" | "b" => 1.0,
        "kB" | "KB" | "kb" => 1e3,
        "KiB" | "kiB" => 1024.0,
        "MB" | "mb" => 1e6,
        "MiB" => 1024.0 * 1024.0,
        "GB" | "gb" => 1e9,
        "GiB" => 1024f64.powi(3),
        "TB" | "tb" => 1e12,
        "TiB" => 1024f64.powi(4),
        "d" => 86_400.0,
        "h" => 3_600.0,
        "m" => 60.0,
        "s" => 1.0,
        "ms" => 1e-3,
        "us" => 1e-6,
        "ns" => 1e-9,
        "Hz" | "hz" => 1.0,
        "kHz" | "khz" => 1e3,
        "MHz" | "mhz" => 1e6,
        "GHz" | "ghz" => 1e9,
        "bps" => 1.0,
        "Kbps" | "kbps" => 1e3,
        "Kibps" => 1024.0,
        "Mbps" => 1e6,
        "Mibps" => 1024.0 * 1024.0,
        "Gbps" => 1e9,
        "Gibps" => 1024f64.powi(3),
        "Tbps" => 1e12,
        "Tibps" => 1024f64.powi(4),
        _ => return None,
    };
    Some(number * factor)
}

#[cfg(test)]
mod tests {
    use super::super::lower_text;
    use super::amount;

    #[test]
    fn amounts_are_in_base_units() {
        assert_eq!(amount("4"), Some(4.0));
        assert_eq!(amount("128 MB"), Some(128e6));
        assert_eq!(amount("1 GiB"), Some(1024f64.powi(3)));
        assert_eq!(amount("2 kHz"), Some(2000.0));
        assert_eq!(amount("many"), None);
    }

    #[test]
    fn fulfilment_counts_what_earlier_relationships_allocate() {
        // `small` has room for two of the apps' CPUs, then they go to
        // `big`; per property: memory is not what fills `small`.
        let mut text = String::from(
            "tosca_definitions_version: tosca_2_0\nimports:\n  - profile: org.oasis-open.simple:2.0\n\
             service_template:\n  node_templates:\n    \
             small: {type: tosca.nodes.Compute, capabilities: {host: {properties: {num_cpus: 2, mem_size: 8 GB}}}}\n    \
             big: {type: tosca.nodes.Compute, capabilities: {host: {properties: {num_cpus: 8, mem_size: 8 GB}}}}\n",
        );
        for i in 0..4 {
            text.push_str(&format!(
                "    app{i}:\n      type: tosca.nodes.SoftwareComponent\n      requirements:\n        \
                 - host: {{node: tosca.nodes.Compute, allocation: {{num_cpus: 1, mem_size: 1 GB}}}}\n"
            ));
        }
        let (t, d) = lower_text(&text);
        assert!(!d.has_errors(), "{d:?}");
        let t = t.unwrap();
        let hosts: Vec<&str> = t
            .relationships
            .iter()
            .map(|r| t.node(r.target).id.as_str())
            .collect();
        assert_eq!(hosts, ["small", "small", "big", "big"]);
    }
}
