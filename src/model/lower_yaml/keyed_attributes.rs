//! Keyed attribute mappings (TOSCA 2.0 §15.3): an output of the
//! substituting template that gives an attribute of a capability of the
//! substituted node (`[CAPABILITY, <capability>, <attribute>]`), or of a
//! relationship one of its requirements makes (`[RELATIONSHIP,
//! <requirement>, <index>, <attribute>]`, `ALL`: item i of a list output
//! for relationship i).
//!
//! What the plans can honour. They keep no instance data for a
//! capability: a read of a capability's attribute (`[node, CAPABILITY,
//! cap, attr]`, 1.x `[node, cap, attr]`) reaches them as a read of the
//! node's attribute `attr`, or, where the capability has a value for
//! `attr` when the plans are made, as that value (`entities.rs`). So a
//! capability mapping gives the substituted node's reads of `attr` —
//! unless those reads are not the capability's alone: the node has an
//! attribute or property `attr` of its own, its `attributes` mapping or
//! another capability's names `attr`, or the capability's value is known
//! (W0414 says which). A relationship's attribute is read in the
//! relationship's own operations (`[SELF, attr]`, at run time from its
//! instance): those reads take the output instead. A mapping the plans
//! cannot honour (an output the template lacks, a capability or
//! relationship the node lacks, `ALL` of an output that is not a list
//! written in place) is W0414.
//!
//! In: the mapping and the substituted node. Out: outputs by the
//! attribute whose reads they give, and per relationship the attributes
//! its operations read from outputs.

use foldhash::{HashMap, HashMapExt};

use super::Lowerer;
use super::substitute::Inlined;
use crate::diagnostics::{Diagnostic, codes};
use crate::model::{NodeTemplate, Value};
use crate::yaml::ast::{MappedProperty, Spanned};
use crate::yaml::node::Node;

/// An attribute of a relationship of the substituted node given by an
/// output: the relationship by requirement and index.
#[derive(Clone, Debug)]
pub(super) struct RelationshipAttribute {
    /// The requirement.
    pub(super) requirement: String,
    /// The relationship's index among the requirement's.
    pub(super) index: usize,
    /// The attribute's name.
    pub(super) attribute: String,
    /// The output's value (in the substituting topology's terms).
    pub(super) value: Value,
}

impl<'a> Lowerer<'a> {
    /// The keyed attribute mappings of `s` for node `node`: capability
    /// attributes into `attributes` (whose entries so far are the
    /// node's own mappings), relationship attributes returned.
    pub(super) fn keyed_attributes(
        &mut self,
        s: &Inlined<'a>,
        node: &NodeTemplate,
        outputs: &HashMap<&str, &Value>,
        attributes: &mut HashMap<String, Value>,
    ) -> Vec<RelationshipAttribute> {
        let mut by_capability: HashMap<String, String> = HashMap::new();
        let mut out = Vec::new();
        for (m, mapped) in &s.mapping.keyed_attributes {
            let value = match mapped.as_str().and_then(|o| outputs.get(o)) {
                Some(v) => (*v).clone(),
                None => {
                    self.not_honoured(
                        s,
                        m,
                        mapped,
                        format!(
                            "`{}` has no output `{}`",
                            s.unit.file.source.name(),
                            mapped.as_str().unwrap_or_default()
                        ),
                    );
                    continue;
                }
            };
            match m {
                MappedProperty::Capability {
                    capability,
                    property,
                } => {
                    let why = self.capability_clash(
                        s,
                        node,
                        (capability, property),
                        attributes,
                        &by_capability,
                    );
                    match why {
                        Some(why) => self.not_honoured(s, m, mapped, why),
                        None => {
                            by_capability.insert(property.text.clone(), capability.text.clone());
                            attributes.insert(property.text.clone(), value);
                        }
                    }
                }
                MappedProperty::Relationship {
                    requirement,
                    index,
                    property,
                } => {
                    match self.relationship_values(
                        s,
                        &node.id,
                        (requirement, index.as_ref()),
                        value,
                    ) {
                        Ok(values) => out.extend(values.into_iter().map(|(index, value)| {
                            RelationshipAttribute {
                                requirement: requirement.text.clone(),
                                index,
                                attribute: property.text.clone(),
                                value,
                            }
                        })),
                        Err(why) => self.not_honoured(s, m, mapped, why),
                    }
                }
            }
        }
        out
    }

    /// Why reads of `attr` of capability `cap` of the substituted node
    /// cannot take an output (see the module docs), if they cannot.
    fn capability_clash(
        &mut self,
        s: &Inlined<'a>,
        node: &NodeTemplate,
        (cap, attr): (&Spanned, &Spanned),
        attributes: &HashMap<String, Value>,
        by_capability: &HashMap<String, String>,
    ) -> Option<String> {
        let (id, c, a) = (&node.id, &cap.text, &attr.text);
        if !self.offered(&s.type_key).iter().any(|o| o.name == *c) {
            return Some(format!("`{id}` has no capability `{c}`"));
        }
        let known = self
            .capability_values
            .get(&(s.node, c.clone()))
            .and_then(|v| v.get(a))
            .is_some_and(|v| !v.is_empty());
        Some(if known {
            format!(
                "capability `{c}` of `{id}` has a value for `{a}` when the plans are made, which reads of the attribute take (an attribute starts with its property's value)"
            )
        } else if attributes.contains_key(a) {
            format!(
                "the mapping's `attributes` map `{a}` of `{id}` itself, and the plans read a capability's attributes as its node's"
            )
        } else if let Some(other) = by_capability.get(a) {
            format!(
                "it maps `{a}` of capability `{other}` of `{id}` too, and the plans read a capability's attributes as its node's"
            )
        } else if node.properties.contains_key(a.as_str()) {
            format!(
                "`{id}` has an attribute or property `{a}` of its own, and the plans read a capability's attributes as its node's"
            )
        } else {
            return None;
        })
    }

    /// The value each relationship the mapping names takes: relationship
    /// `index` (0 when left out) of `requirement`, or every one for `ALL`
    /// (item i of an output that is a list written in place).
    fn relationship_values(
        &self,
        s: &Inlined<'a>,
        node: &str,
        (requirement, index): (&Spanned, Option<&Spanned>),
        value: Value,
    ) -> Result<Vec<(usize, Value)>, String> {
        let r = &requirement.text;
        let had = self
            .rel_by_requirement
            .get(&(s.node, r.as_str()))
            .map_or(0, Vec::len);
        match index.map(|i| i.text.as_str()) {
            Some("ALL") => match value {
                Value::List(items) if items.len() >= had => Ok(items.into_iter().take(had).enumerate().collect()),
                Value::List(items) => Err(format!("the output is a list of {}, and `{node}` has {had} relationships of requirement `{r}`", items.len())),
                _ => Err("the output is not a list written in place, so its items are not known when the plans are made".into()),
            },
            i => {
                let k: usize = i.map_or(Some(0), |t| t.parse().ok()).ok_or_else(|| "its index is neither a number nor ALL".to_string())?;
                if k < had {
                    Ok(vec![(k, value)])
                } else {
                    Err(format!("`{node}` has no relationship {k} of requirement `{r}` (it has {had})"))
                }
            }
        }
    }

    /// W0414: keyed attribute mapping `m` (to output `mapped`) is not
    /// used, and `why`.
    fn not_honoured(&mut self, s: &Inlined<'a>, m: &MappedProperty, mapped: &Node, why: String) {
        self.push_once(
            Diagnostic::warning(
                codes::W_SUBSTITUTION,
                format!(
                    "the attribute mapping of {} in `{}` is not used: {why}",
                    m.describe("attribute"),
                    s.unit.file.source.name()
                ),
            )
            .at(Self::at(s.unit, mapped.span))
            .hint(HINT),
        );
    }
}

/// What to do where a keyed attribute mapping is not used.
const HINT: &str = "name an output, capability and relationship that exist; where the reads cannot be told apart, map the output to an attribute of the node itself (`attributes: {<attribute>: <output>}`), which every read of it takes";

/// Replace every read `[SELF, attr]` of an attribute in `v` (a
/// relationship's value) with `with`.
pub(super) fn replace_own_read(v: &mut Value, attr: &str, with: &Value) {
    match v {
        Value::Call(c) => {
            let own = c.function == "get_attribute"
                && matches!(c.args.as_slice(), [Value::Scalar(e), Value::Scalar(a)] if e == "SELF" && a == attr);
            if own {
                *v = with.clone();
                return;
            }
            for a in c.args.iter_mut() {
                replace_own_read(a, attr, with);
            }
        }
        Value::List(l) => l.iter_mut().for_each(|a| replace_own_read(a, attr, with)),
        Value::Map(m) => m.values_mut().for_each(|a| replace_own_read(a, attr, with)),
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_a_relationship_s_reads_of_its_own_attribute_are_replaced() {
        let call = |f: &str, a: &[&str]| {
            Value::call(
                f.to_string(),
                a.iter().map(|x| Value::Scalar(x.to_string())).collect(),
            )
        };
        let url = Value::Scalar("sql://db".into());
        let mut v = Value::call(
            "concat",
            vec![
                call("get_attribute", &["SELF", "url"]),
                call("get_attribute", &["SELF", "port"]),
                call("get_attribute", &["TARGET", "url"]),
                call("get_property", &["SELF", "url"]),
            ],
        );
        replace_own_read(&mut v, "url", &url);
        assert_eq!(
            v,
            Value::call(
                "concat",
                vec![
                    url.clone(),
                    call("get_attribute", &["SELF", "port"]),
                    call("get_attribute", &["TARGET", "url"]),
                    call("get_property", &["SELF", "url"]),
                ],
            )
        );
    }
}
