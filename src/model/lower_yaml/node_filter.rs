//! A requirement's `node_filter` evaluated on a candidate template, where
//! a dangling requirement is fulfilled from the topology (`fulfil.rs`),
//! or on the template an assignment names (`named_target.rs`).
//!
//! Two forms are read. TOSCA 2.0 (§8.6): a condition clause (`$and`,
//! `$or`, `$not`, `$xor`, the comparisons, `$in_range`, `$valid_values`
//! and the other built-in functions) whose `$get_property` paths start at
//! the relationship to the candidate: `[SELF, TARGET, prop]`, `[SELF,
//! TARGET, CAPABILITY, cap, prop]`, `[SELF, CAPABILITY, prop]` (the
//! capability that fulfils the requirement) and `[SELF, SOURCE, prop]`.
//! TOSCA 1.3 (§3.6.5): lists `properties` and `capabilities` of property
//! filters, each a constraint clause or a list of them. Scalars with
//! units compare by amount (`512 MB` < `1 GB`); `pattern` and `$matches`
//! are regular expressions (`pattern.rs`).
//!
//! In: the filter as written, and the candidate's static property and
//! capability values. Out: whether it passes, or why that is not known
//! when the plans are made (an input, an attribute, a property without a
//! value, a path or function not evaluated here).

use super::allocation::amount;
use super::fold::fold;
use super::{Lowerer, Unit};
use crate::model::{NodeId, Properties, Value};
use crate::yaml::ast::Spanned;
use crate::yaml::node::{Kind, Node};

/// What a node filter says of a candidate.
#[derive(Debug, PartialEq)]
pub(super) enum Verdict {
    /// It passes.
    Pass,
    /// It does not.
    Fail,
    /// Not known when the plans are made: why.
    Unknown(String),
}

/// The template a filter is evaluated on, and the relationship's source.
pub(super) struct Candidate<'c> {
    /// Its node id and name.
    pub(super) id: NodeId,
    pub(super) name: &'c str,
    /// Its node type key.
    pub(super) key: &'c str,
    /// Its property values.
    pub(super) properties: &'c Properties,
    /// The source's name and property values.
    pub(super) source: (&'c str, &'c Properties),
    /// The capability of it that fulfils the requirement, if named.
    pub(super) capability: Option<String>,
}

impl<'a> Lowerer<'a> {
    /// Whether `c` passes every one of `filters` (each with the unit it is
    /// written in): a failing one decides, else an unknown one.
    pub(super) fn passes_all(
        &mut self,
        filters: &[(&Node, Unit<'a>)],
        c: &Candidate<'_>,
    ) -> Verdict {
        all(filters
            .iter()
            .map(|&(filter, unit)| self.passes(filter, unit, c))
            .collect())
    }

    /// Whether `candidate` passes `filter` (written in `unit`).
    fn passes(&mut self, filter: &Node, unit: Unit<'a>, c: &Candidate<'_>) -> Verdict {
        if is_legacy(filter) {
            self.legacy_filter(filter, unit, c)
        } else {
            self.condition(filter, unit, c)
        }
    }

    /// A 1.3 filter: every property filter of `properties` and of each
    /// capability's `properties` holds.
    fn legacy_filter(&mut self, filter: &Node, unit: Unit<'a>, c: &Candidate<'_>) -> Verdict {
        let mut verdicts = Vec::new();
        for item in filter
            .get("properties")
            .and_then(Node::as_seq)
            .unwrap_or(&[])
        {
            verdicts.push(self.property_filter(item, unit, c, None));
        }
        for item in filter
            .get("capabilities")
            .and_then(Node::as_seq)
            .unwrap_or(&[])
        {
            let Some([(name, body)]) = item.as_map() else {
                verdicts.push(malformed(
                    "a capability filter is not a map of one capability",
                ));
                continue;
            };
            let written = Spanned::new(name.as_str().unwrap_or_default(), name.span);
            // A capability name or type, as a requirement's capability is.
            let Some(cap) = self.matching(c.key, &written, unit).map(|o| o.name) else {
                verdicts.push(Verdict::Fail);
                continue;
            };
            for p in body.get("properties").and_then(Node::as_seq).unwrap_or(&[]) {
                verdicts.push(self.property_filter(p, unit, c, Some(&cap)));
            }
        }
        all(verdicts)
    }

    /// `prop: clause` or `prop: [clauses]`, on the candidate or its
    /// capability `cap`.
    fn property_filter(
        &mut self,
        item: &Node,
        unit: Unit<'a>,
        c: &Candidate<'_>,
        cap: Option<&str>,
    ) -> Verdict {
        let Some([(name, clauses)]) = item.as_map() else {
            return malformed("a property filter is not a map of one property");
        };
        let name = name.as_str().unwrap_or_default();
        let value = match cap {
            Some(cap) => self.capability_value(c, cap, name, &[]),
            None => property_value(c.properties, c.name, name, &[]),
        };
        let value = match value {
            Ok(v) => v,
            Err(why) => return Verdict::Unknown(why),
        };
        let list = match &clauses.kind {
            Kind::Seq(items) => items.as_slice(),
            _ => std::slice::from_ref(clauses),
        };
        all(list
            .iter()
            .map(|clause| match clause.as_map() {
                Some([(op, arg)]) if op.as_str() == Some("pattern") => {
                    self.matches(&value, &literal(arg), (arg, unit))
                }
                Some([(op, arg)]) => test(op.as_str().unwrap_or_default(), &value, &literal(arg)),
                _ => malformed("a constraint clause is not a map of one operator"),
            })
            .collect())
    }

    /// A 2.0 condition clause (written in `unit`).
    fn condition(&mut self, node: &Node, unit: Unit<'a>, c: &Candidate<'_>) -> Verdict {
        let (name, args) = match node.as_map() {
            Some([(k, v)]) => match k.as_str().and_then(|k| k.strip_prefix('$')) {
                Some(name) => (name, v.as_seq().unwrap_or(std::slice::from_ref(v))),
                None => return malformed("a condition is not a map of one `$` function"),
            },
            // A list of conditions: all of them (as a validation clause's list).
            _ => match node.as_seq() {
                Some(items) => {
                    return all(items.iter().map(|i| self.condition(i, unit, c)).collect());
                }
                None => return malformed("a condition is not a map of one `$` function"),
            },
        };
        match name {
            "and" => all(args.iter().map(|a| self.condition(a, unit, c)).collect()),
            "or" => any(args.iter().map(|a| self.condition(a, unit, c)).collect()),
            "not" => match args {
                [a] => match self.condition(a, unit, c) {
                    Verdict::Pass => Verdict::Fail,
                    Verdict::Fail => Verdict::Pass,
                    unknown => unknown,
                },
                _ => malformed("`$not` takes one condition"),
            },
            "xor" => match args {
                [a, b] => match (self.condition(a, unit, c), self.condition(b, unit, c)) {
                    (Verdict::Unknown(w), _) | (_, Verdict::Unknown(w)) => Verdict::Unknown(w),
                    (x, y) => verdict(x != y),
                },
                _ => malformed("`$xor` takes two conditions"),
            },
            _ => {
                let mut values = Vec::new();
                for a in args {
                    match self.operand(a, c) {
                        Ok(v) => values.push(v),
                        Err(why) => return Verdict::Unknown(why),
                    }
                }
                match values.as_slice() {
                    [v, pattern] if name == "matches" => self.matches(v, pattern, (&args[1], unit)),
                    [v, arg] => test(name, v, arg),
                    _ => truth(name, fold(name, &values)),
                }
            }
        }
    }

    /// The value of an operand of a 2.0 condition: a literal, a property
    /// the path reads, or a function of those.
    fn operand(&mut self, node: &Node, c: &Candidate<'_>) -> Result<Value, String> {
        let Some([(k, v)]) = node.as_map() else {
            return Ok(literal(node));
        };
        let Some(name) = k.as_str().and_then(|k| k.strip_prefix('$')) else {
            return Ok(literal(node));
        };
        let args = v.as_seq().unwrap_or(std::slice::from_ref(v));
        let words: Vec<&str> = args
            .iter()
            .map(|a| a.as_str().unwrap_or_default())
            .collect();
        match name {
            "get_property" => self.path(&words, c),
            "get_attribute" => Err(format!(
                "it reads attribute `{}`, known only when the plans run",
                words.join(", ")
            )),
            "get_input" => Err(format!(
                "it reads input `{}`, known only when the service is deployed",
                words.join(", ")
            )),
            _ => {
                let values: Result<Vec<Value>, String> =
                    args.iter().map(|a| self.operand(a, c)).collect();
                fold(name, &values?)
                    .ok_or_else(|| format!("it calls `${name}`, which is not evaluated here"))
            }
        }
    }

    /// The value a `$get_property` path reads, from the relationship to
    /// the candidate.
    fn path(&mut self, words: &[&str], c: &Candidate<'_>) -> Result<Value, String> {
        match words {
            ["SELF", "TARGET", "CAPABILITY", cap, prop, rest @ ..] => {
                self.capability_value(c, cap, prop, rest)
            }
            ["SELF", "CAPABILITY", prop, rest @ ..] => match c.capability.clone() {
                Some(cap) => self.capability_value(c, &cap, prop, rest),
                None => Err(format!(
                    "it reads `{prop}` of the target capability, which the requirement does not name"
                )),
            },
            ["SELF", "TARGET", prop, rest @ ..] => property_value(c.properties, c.name, prop, rest),
            ["SELF", "SOURCE", prop, rest @ ..] => {
                property_value(c.source.1, c.source.0, prop, rest)
            }
            _ => Err(format!(
                "its path `[{}]` is not one toscanini evaluates in a node filter (SELF, TARGET or SOURCE, then a property or CAPABILITY)",
                words.join(", ")
            )),
        }
    }

    /// Property `prop` (then the keys `rest`) of capability `cap` of the
    /// candidate.
    fn capability_value(
        &self,
        c: &Candidate<'_>,
        cap: &str,
        prop: &str,
        rest: &[&str],
    ) -> Result<Value, String> {
        let v = self
            .capability_values
            .get(&(c.id, cap.to_string()))
            .and_then(|values| values.get(prop));
        known(
            v,
            &format!("`{prop}` of capability `{cap}` of `{}`", c.name),
            rest,
        )
    }
}

/// Property `prop` (then the keys `rest`) of template `owner`.
fn property_value(
    properties: &Properties,
    owner: &str,
    prop: &str,
    rest: &[&str],
) -> Result<Value, String> {
    known(
        properties.get(prop),
        &format!("`{prop}` of `{owner}`"),
        rest,
    )
}

/// A value known when the plans are made, walked down `rest`.
fn known(v: Option<&Value>, what: &str, rest: &[&str]) -> Result<Value, String> {
    let mut v = v;
    for key in rest {
        v = match v {
            Some(Value::Map(m)) => m.get(*key),
            Some(Value::List(l)) => key.parse::<usize>().ok().and_then(|i| l.get(i)),
            _ => None,
        };
    }
    match v {
        Some(Value::Call(_)) => Err(format!("{what} is known only when the plans run")),
        Some(Value::Null) | None => Err(format!("{what} has no value when the plans are made")),
        Some(v) => Ok(v.clone()),
    }
}

/// Whether `filter` is written in the 1.3 form (`properties` and
/// `capabilities` lists) rather than as a 2.0 condition clause.
pub(super) fn is_legacy(filter: &Node) -> bool {
    filter.as_map().is_some_and(|m| {
        m.iter()
            .all(|(k, _)| matches!(k.as_str(), Some("properties" | "capabilities")))
    })
}

/// A value written in the filter.
fn literal(node: &Node) -> Value {
    match &node.kind {
        Kind::Null => Value::Null,
        Kind::Scalar { text, .. } => Value::Scalar(text.clone()),
        Kind::Seq(items) => Value::List(items.iter().map(literal).collect()),
        Kind::Map(entries) => Value::Map(Box::new(
            entries
                .iter()
                .map(|(k, v)| (k.as_str().unwrap_or_default().to_string(), literal(v)))
                .collect(),
        )),
    }
}

/// Constraint `op` (1.3 clause or 2.0 function) of `v` against `arg`.
fn test(op: &str, v: &Value, arg: &Value) -> Verdict {
    match (op, arg) {
        ("equal" | "greater_than" | "greater_or_equal" | "less_than" | "less_or_equal", _) => {
            match (v.as_str().and_then(amount), arg.as_str().and_then(amount)) {
                (Some(x), Some(y)) => verdict(match op {
                    "equal" => x == y,
                    "greater_than" => x > y,
                    "greater_or_equal" => x >= y,
                    "less_than" => x < y,
                    _ => x <= y,
                }),
                _ => truth(op, fold(op, &[v.clone(), arg.clone()])),
            }
        }
        ("in_range", Value::List(range)) => match range.as_slice() {
            [lo, hi] => all(vec![
                test("greater_or_equal", v, lo),
                test("less_or_equal", v, hi),
            ]),
            _ => malformed("`in_range` takes a lower and an upper bound"),
        },
        ("valid_values", Value::List(values)) => {
            any(values.iter().map(|x| test("equal", v, x)).collect())
        }
        ("length" | "min_length" | "max_length", _) => {
            let Some(Value::Scalar(n)) = fold("length", std::slice::from_ref(v)) else {
                return malformed("a length is asked of a value that has none");
            };
            let op = match op {
                "length" => "equal",
                "min_length" => "greater_or_equal",
                _ => "less_or_equal",
            };
            test(op, &Value::Scalar(n), arg)
        }
        _ => truth(op, fold(op, &[v.clone(), arg.clone()])),
    }
}

/// A folded function's result as a verdict.
fn truth(op: &str, v: Option<Value>) -> Verdict {
    match v.as_ref().and_then(Value::as_str) {
        Some("true") => Verdict::Pass,
        Some("false") => Verdict::Fail,
        _ => Verdict::Unknown(format!(
            "it uses `{op}` in a way toscanini does not evaluate"
        )),
    }
}

fn verdict(b: bool) -> Verdict {
    if b { Verdict::Pass } else { Verdict::Fail }
}

fn malformed(why: &str) -> Verdict {
    Verdict::Unknown(format!("{why}, so it is not evaluated"))
}

/// All hold: any failing one decides, else any unknown one.
fn all(verdicts: Vec<Verdict>) -> Verdict {
    decide(verdicts, Verdict::Fail, Verdict::Pass)
}

/// One holds: any passing one decides, else any unknown one.
fn any(verdicts: Vec<Verdict>) -> Verdict {
    decide(verdicts, Verdict::Pass, Verdict::Fail)
}

/// `decisive` if one of `verdicts` is, else the first unknown one, else
/// `otherwise`.
fn decide(verdicts: Vec<Verdict>, decisive: Verdict, otherwise: Verdict) -> Verdict {
    if verdicts.contains(&decisive) {
        return decisive;
    }
    verdicts
        .into_iter()
        .find(|v| matches!(v, Verdict::Unknown(_)))
        .unwrap_or(otherwise)
}

#[cfg(test)]
mod tests {
    use super::super::lower_text;
    use crate::diagnostics::codes;
    use crate::model::Topology;

    const V20: &str = "tosca_definitions_version: tosca_2_0\nimports:\n  - profile: org.oasis-open.simple:2.0\nservice_template:\n  node_templates:\n";
    const V13: &str =
        "tosca_definitions_version: tosca_simple_yaml_1_3\ntopology_template:\n  node_templates:\n";

    /// Three Computes (2, 4 and 8 CPUs; 1, 8, 16 GB; the last on Linux)
    /// and `app` with a host requirement `req` filtered by `filter`.
    fn with_filter(head: &str, req: &str, filter: &str) -> Topology {
        let mut text = head.to_string();
        for (name, cpus, mem, os) in [
            ("s2", 2, 1, "windows"),
            ("s4", 4, 8, "windows"),
            ("s8", 8, 16, "linux"),
        ] {
            text.push_str(&format!(
                "    {name}:\n      type: tosca.nodes.Compute\n      properties: {{ tag: {name} }}\n      capabilities:\n        \
                 host: {{properties: {{num_cpus: {cpus}, mem_size: {mem} GB}}}}\n        \
                 os: {{properties: {{type: {os}}}}}\n"
            ));
        }
        text.push_str(&format!(
            "    app:\n      type: tosca.nodes.SoftwareComponent\n      properties: {{component_version: \"8\"}}\n      \
             requirements:\n        - host:\n            {req}\n            node_filter: {filter}\n"
        ));
        let (t, d) = lower_text(&text);
        assert!(!d.has_errors(), "{d:?}");
        t.unwrap()
    }

    fn host(t: &Topology) -> String {
        let r = t
            .relationships
            .iter()
            .find(|r| t.node(r.source).id == "app")
            .unwrap();
        t.node(r.target).id.clone()
    }

    #[test]
    fn a_2_0_condition_chooses_the_first_template_that_passes() {
        let cases = [
            (
                "{$greater_than: [{$get_property: [SELF, CAPABILITY, num_cpus]}, 2]}",
                "s4",
            ),
            // Scalars compare by amount: 16 GB > 9000 MB.
            (
                "{$greater_than: [{$get_property: [SELF, CAPABILITY, mem_size]}, 9000 MB]}",
                "s8",
            ),
            (
                "{$equal: [{$get_property: [SELF, TARGET, CAPABILITY, os, type]}, linux]}",
                "s8",
            ),
            (
                "{$valid_values: [{$get_property: [SELF, TARGET, tag]}, [s8, s4]]}",
                "s4",
            ),
            (
                "{$not: [{$in_range: [{$get_property: [SELF, CAPABILITY, num_cpus]}, [1, 4]]}]}",
                "s8",
            ),
            (
                "{$or: [{$equal: [{$get_property: [SELF, TARGET, tag]}, s8]}, {$equal: [1, 2]}]}",
                "s8",
            ),
            // SOURCE is the requirement's node: 8 CPUs for version 8.
            (
                "{$equal: [{$get_property: [SELF, CAPABILITY, num_cpus]}, {$get_property: [SELF, SOURCE, component_version]}]}",
                "s8",
            ),
            (
                "{$has_prefix: [{$get_property: [SELF, TARGET, tag]}, s]}",
                "s2",
            ),
            // A pattern matches a part of the value unless anchored.
            (
                "{$matches: [{$get_property: [SELF, TARGET, tag]}, '^s[48]$']}",
                "s4",
            ),
            (
                "{$matches: [{$get_property: [SELF, TARGET, CAPABILITY, os, type]}, nu]}",
                "s8",
            ),
        ];
        for (filter, chosen) in cases {
            let t = with_filter(V20, "capability: tosca.capabilities.Compute", filter);
            assert_eq!(host(&t), chosen, "{filter}");
        }
    }

    #[test]
    fn a_1_3_filter_of_properties_and_capabilities_chooses_the_first_that_passes() {
        let cases = [
            (
                "{capabilities: [{host: {properties: [{num_cpus: {greater_or_equal: 4}}]}}]}",
                "s4",
            ),
            // By capability type, with a list of clauses.
            (
                "{capabilities: [{tosca.capabilities.Compute: {properties: [{mem_size: [{greater_than: 2 GB}, {less_than: 10 GB}]}]}}]}",
                "s4",
            ),
            ("{properties: [{tag: {valid_values: [s8]}}]}", "s8"),
            ("{properties: [{tag: {min_length: 2}}]}", "s2"),
            ("{properties: [{tag: {pattern: '8'}}]}", "s8"),
            (
                "{capabilities: [{os: {properties: [{type: [{pattern: '^win'}, {valid_values: [windows]}]}]}}]}",
                "s2",
            ),
        ];
        for (filter, chosen) in cases {
            let t = with_filter(V13, "node: tosca.nodes.Compute", filter);
            assert_eq!(host(&t), chosen, "{filter}");
            // Without a node type: among the templates that offer the
            // definition's capability (here, of its node type too).
            let t = with_filter(V13, "relationship: tosca.relationships.HostedOn", filter);
            assert_eq!(host(&t), chosen, "{filter}");
        }
    }

    #[test]
    fn what_only_the_run_knows_or_nothing_passes_is_left_to_the_orchestrator() {
        for filter in [
            // An attribute, a property without a value, a path not evaluated.
            "{$equal: [{$get_attribute: [SELF, TARGET, state]}, started]}",
            "{$equal: [{$get_property: [SELF, TARGET, CAPABILITY, host, cpu_frequency]}, 2 GHz]}",
            "{$equal: [{$get_property: [SELF, vendor]}, acme]}",
            // None has 32 CPUs.
            "{$greater_or_equal: [{$get_property: [SELF, CAPABILITY, num_cpus]}, 32]}",
        ] {
            let t = with_filter(V20, "capability: tosca.capabilities.Compute", filter);
            assert_eq!(host(&t), "app_host_target", "{filter}");
        }
        let (_, d) = lower_text(&format!(
            "{V20}    s: {{type: tosca.nodes.Compute}}\n    app:\n      type: tosca.nodes.SoftwareComponent\n      \
             requirements:\n        - host: {{node_filter: {{$equal: [{{$get_attribute: [SELF, TARGET, state]}}, started]}}}}\n"
        ));
        assert!(d.iter().any(|d| d.code == codes::W_YAML_DELEGATED
            && d.message.contains("(its node_filter is not evaluated on `s` when the plans are made: it reads attribute `SELF, TARGET, state`, known only when the plans run)")), "{d:?}");
    }
}
