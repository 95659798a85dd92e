//! A node template with the `select` directive (2.0 §7.2; 1.3 `selectable`)
//! and its `node_filter` (2.0 §8.6, 1.3 §3.6.5), as the plans use it: an
//! existing node whose instance URL is a plan input, and the clauses of
//! the filter the plans check on that instance's properties.
//!
//! In: the template's directives and `node_filter` as written. Out: a
//! [`ExistingNode`], and a located warning (W0412) for each clause the plans
//! cannot check (capability properties, which the instance API does not
//! give; scalar-units; the instance state; other functions) and for
//! directives after `select` (the plans do not fall back to them).
//!
//! Clauses read the candidate node: `$get_property: [SELF, p]` (or
//! `$get_attribute`, whose values the instance's properties hold) compared
//! with a literal. An unchecked clause under `$and` (or the top level) is
//! left out; one under `$or` or `$not` leaves out that whole `$or` or
//! `$not`, whose meaning it would change.

use super::allocation::amount;
use super::node_filter::is_legacy;
use super::workflows::CONSTRAINTS;
use super::{Lowerer, Unit};
use crate::diagnostics::{Diagnostic, Span, codes};
use crate::model::{Condition, ExistingNode, Properties, Value};
use crate::yaml::ast;
use crate::yaml::node::{Kind, Node};

/// 2.0 comparison functions and the 1.3 constraint operator each is.
const COMPARISONS: &[(&str, &str)] = &[
    ("equal", "equal"),
    ("greater_than", "greater_than"),
    ("greater_or_equal", "greater_or_equal"),
    ("less_than", "less_than"),
    ("less_or_equal", "less_or_equal"),
    ("in_range", "in_range"),
    ("valid_values", "valid_values"),
    ("matches", "pattern"),
];

impl<'a> Lowerer<'a> {
    /// The existing node a `select` template stands for; `None` without
    /// the directive.
    pub(super) fn existing_node(
        &mut self,
        n: &'a ast::NodeTemplate,
        properties: &Properties,
        unit: Unit<'a>,
    ) -> Option<Box<ExistingNode>> {
        let at = n
            .directives
            .iter()
            .position(|d| matches!(d.text.as_str(), "select" | "selectable"))?;
        let name = &n.name.text;
        let input = ExistingNode::input_for(name);
        if let Some(next) = n.directives.get(at + 1) {
            self.diags.push(
                Diagnostic::warning(
                    codes::W_IGNORED,
                    format!(
                        "node template `{name}` lists `{}` after `{}`: the plans use the node whose instance plan input `{input}` names, and fail when it is not given or does not pass the node_filter; they do not fall back to `{}`",
                        next.text, n.directives[at].text, next.text
                    ),
                )
                .at(Self::at(unit, next.span))
                .hint("drop the directives after `select`, or drop `select` to have the plans make the node"),
            );
        }
        let mut filter = Filter {
            properties,
            checked: Vec::new(),
            unchecked: Vec::new(),
        };
        if let Some(f) = &n.node_filter {
            filter.read(f);
        }
        for why in &filter.unchecked {
            self.unchecked(name, why, unit);
        }
        Some(Box::new(ExistingNode {
            input,
            filter: filter.checked,
        }))
    }

    fn unchecked(&mut self, node: &str, why: &Unchecked, unit: Unit<'a>) {
        self.push_once(
            Diagnostic::warning(
                codes::W_IGNORED,
                format!(
                    "this clause of the node_filter of `{node}` is not checked when the plan runs: {}",
                    why.1
                ),
            )
            .at(Self::at(unit, why.0))
            .hint("the plans check comparisons of the node's own properties with literal values; check the rest when choosing the instance"),
        );
    }
}

/// A clause the plans cannot check: where, and why.
struct Unchecked(Span, String);

/// A node filter read for the plans: the clauses they check, and those
/// they cannot.
struct Filter<'p> {
    /// The node's properties (attributes included).
    properties: &'p Properties,
    checked: Vec<Condition>,
    unchecked: Vec<Unchecked>,
}

impl Filter<'_> {
    /// Either form of a filter.
    fn read(&mut self, filter: &Node) {
        if is_legacy(filter) {
            self.legacy(filter);
            return;
        }
        let mut out = Vec::new();
        if let Err(why) = self.clause(filter, &mut out) {
            self.unchecked.extend(why);
        }
        self.checked = out;
    }

    /// 1.3: `properties` (a list of `{name: constraint or list}`) and
    /// `capabilities` (not checked).
    fn legacy(&mut self, filter: &Node) {
        for (k, v) in filter.as_map().unwrap_or_default() {
            if k.as_str() == Some("capabilities") {
                self.unchecked.push(Unchecked(
                    v.span,
                    "it filters on capability properties, which the instance API does not give"
                        .into(),
                ));
                continue;
            }
            let entries = v.as_seq().map_or_else(|| vec![v], |s| s.iter().collect());
            for entry in entries {
                for (p, c) in entry.as_map().unwrap_or_default() {
                    let Some(attribute) = p.as_str() else {
                        continue;
                    };
                    let checked = self
                        .known(attribute, p.span)
                        .and_then(|()| legacy_constraints(c));
                    match checked {
                        Ok(constraints) => self.checked.push(Condition::Assert {
                            attribute: attribute.to_string(),
                            constraints,
                        }),
                        Err(why) => self.unchecked.push(why),
                    }
                }
            }
        }
    }

    /// Add the conditions of a 2.0 condition clause to `out` (an implicit
    /// `$and`); `Err` with every clause left out.
    fn clause(&self, c: &Node, out: &mut Vec<Condition>) -> Result<(), Vec<Unchecked>> {
        let Some([(k, args)]) = c.as_map() else {
            return Err(vec![Unchecked(c.span, "it is not a function call".into())]);
        };
        let name = k.as_str().unwrap_or_default();
        let args: Vec<&Node> = args
            .as_seq()
            .map_or_else(|| vec![args], |s| s.iter().collect());
        match name {
            "$and" => {
                let mut left_out = Vec::new();
                for a in args {
                    if let Err(why) = self.clause(a, out) {
                        left_out.extend(why);
                    }
                }
                if left_out.is_empty() {
                    Ok(())
                } else {
                    Err(left_out)
                }
            }
            "$or" | "$not" => {
                let mut inner = Vec::new();
                for a in args {
                    let mut one = Vec::new();
                    if let Err(why) = self.clause(a, &mut one) {
                        let first = why.into_iter().next().map_or_else(String::new, |u| u.1);
                        return Err(vec![Unchecked(
                            c.span,
                            format!(
                                "`{name}` has a clause the plans cannot check, so none of it is ({first})"
                            ),
                        )]);
                    }
                    inner.push(Condition::And(one));
                }
                out.push(if name == "$or" {
                    Condition::Or(inner)
                } else {
                    Condition::Not(inner)
                });
                Ok(())
            }
            _ => {
                out.push(self.comparison(c, name, &args).map_err(|u| vec![u])?);
                Ok(())
            }
        }
    }

    /// A comparison of a property of SELF with a literal.
    fn comparison(&self, c: &Node, name: &str, args: &[&Node]) -> Result<Condition, Unchecked> {
        let unchecked = |why: String| Unchecked(c.span, why);
        let Some(&(_, op)) = COMPARISONS
            .iter()
            .find(|(f, _)| name.strip_prefix('$') == Some(f))
        else {
            return Err(unchecked(format!(
                "the plans do not evaluate `{name}` on an instance"
            )));
        };
        let [a, b] = args else {
            return Err(unchecked(format!("`{name}` takes two arguments")));
        };
        let (attribute, operand, flipped) = match (self_property(a), self_property(b)) {
            (Some(p), _) => (p, *b, false),
            (None, Some(p)) => (p, *a, true),
            (None, None) => {
                return Err(unchecked(
                    "it compares no property of the node itself (`$get_property: [SELF, <property>]`)"
                        .into(),
                ));
            }
        };
        let attribute = attribute.map_err(unchecked)?;
        self.known(&attribute, c.span)?;
        let op = if flipped { flip(op) } else { op };
        let value = literal(operand).map_err(unchecked)?;
        Ok(Condition::Assert {
            attribute,
            constraints: vec![(op.to_string(), value)],
        })
    }

    /// Whether the node has the property (or attribute) `p`.
    fn known(&self, p: &str, span: Span) -> Result<(), Unchecked> {
        if self.properties.contains_key(p) {
            Ok(())
        } else {
            Err(Unchecked(
                span,
                format!("the node has no property or attribute `{p}`"),
            ))
        }
    }
}

/// `$get_property` / `$get_attribute` of SELF: the name, or why the plans
/// cannot read it; `None` if `n` is no such call.
fn self_property(n: &Node) -> Option<Result<String, String>> {
    let [(k, args)] = n.as_map()? else {
        return None;
    };
    if !matches!(k.as_str(), Some("$get_property" | "$get_attribute")) {
        return None;
    }
    let path: Vec<&str> = args.as_seq()?.iter().filter_map(Node::as_str).collect();
    Some(match path.as_slice() {
        ["SELF", "state"] if k.as_str() == Some("$get_attribute") => Err(
            "it reads the instance state, which the plans do not compare for a selected node"
                .into(),
        ),
        ["SELF", "CAPABILITY", ..] => {
            Err("it reads a capability property, which the instance API does not give".into())
        }
        ["SELF", p] => Ok(p.to_string()),
        _ => Err(format!(
            "it reads `{}`, not a property of the node itself",
            path.join(", ")
        )),
    })
}

/// `a op x` as `x op' a`.
fn flip(op: &str) -> &str {
    match op {
        "greater_than" => "less_than",
        "less_than" => "greater_than",
        "greater_or_equal" => "less_or_equal",
        "less_or_equal" => "greater_or_equal",
        other => other,
    }
}

/// A literal operand: a scalar, or a list of scalars (`in_range`,
/// `valid_values`). Scalar-units are not compared (their units would be).
fn literal(n: &Node) -> Result<Value, String> {
    match &n.kind {
        Kind::Scalar { text, .. } => {
            if text.trim().parse::<f64>().is_err() && amount(text).is_some() {
                return Err(format!(
                    "it compares the scalar-unit `{text}`, which the plans do not convert when they run"
                ));
            }
            Ok(Value::Scalar(text.clone()))
        }
        Kind::Seq(items) => items
            .iter()
            .map(literal)
            .collect::<Result<_, _>>()
            .map(Value::List),
        _ => Err("it compares with a value that is not a literal (a function, or a map)".into()),
    }
}

/// The constraints of one 1.3 property filter: a constraint clause, a
/// list of them, or a bare value (`equal`).
fn legacy_constraints(c: &Node) -> Result<Vec<(String, Value)>, Unchecked> {
    let items = c.as_seq().map_or_else(|| vec![c], |s| s.iter().collect());
    let mut out = Vec::new();
    for item in items {
        let (op, operand) = match item.as_map() {
            Some([(k, v)]) => (k.as_str().unwrap_or_default(), v),
            Some(_) => {
                return Err(Unchecked(
                    item.span,
                    "it is not one constraint clause".into(),
                ));
            }
            None => ("equal", item),
        };
        if !CONSTRAINTS.contains(&op) {
            return Err(Unchecked(
                item.span,
                format!("the plans do not evaluate the constraint `{op}`"),
            ));
        }
        let value = literal(operand).map_err(|why| Unchecked(item.span, why))?;
        out.push((op.to_string(), value));
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::super::lower_text;
    use crate::model::{Condition, Value};

    fn lowered(filter: &str) -> (Vec<Condition>, Vec<String>) {
        let yaml = format!(
            "tosca_definitions_version: tosca_2_0\nimports:\n  - profile: org.oasis-open.simple:2.0\n\
             service_template:\n  node_templates:\n    \
             db:\n      type: SoftwareComponent\n      directives: [select]\n      \
             properties: {{component_version: '1'}}\n      node_filter: {filter}\n"
        );
        let (t, d) = lower_text(&yaml);
        let t = t.expect("lowered");
        let db = t.node(t.node_by_id("db").expect("db"));
        let warnings = d
            .iter()
            .map(|d| format!("{} {}", d.code, d.message))
            .collect();
        (
            db.selection.as_ref().expect("selected").filter.clone(),
            warnings,
        )
    }

    fn assert(attribute: &str, op: &str, v: Value) -> Condition {
        Condition::Assert {
            attribute: attribute.into(),
            constraints: vec![(op.into(), v)],
        }
    }

    #[test]
    fn comparisons_of_own_properties_are_checked_flipped_where_written_the_other_way() {
        let (f, w) = lowered(
            "{$and: [{$greater_or_equal: [{$get_property: [SELF, component_version]}, 5]}, \
             {$less_than: [3, {$get_attribute: [SELF, admin_credential]}]}]}",
        );
        assert_eq!(
            f,
            vec![
                assert(
                    "component_version",
                    "greater_or_equal",
                    Value::Scalar("5".into())
                ),
                assert(
                    "admin_credential",
                    "greater_than",
                    Value::Scalar("3".into())
                ),
            ]
        );
        assert!(!w.iter().any(|w| w.contains("node_filter of")), "{w:?}");
    }

    #[test]
    fn an_unchecked_clause_under_or_leaves_out_the_or_with_a_warning() {
        let (f, w) = lowered(
            "{$and: [{$equal: [{$get_property: [SELF, component_version]}, '2']}, \
             {$or: [{$equal: [{$get_property: [SELF, component_version]}, x]}, \
             {$greater_or_equal: [{$get_property: [SELF, CAPABILITY, host, mem_size]}, 2 GB]}]}]}",
        );
        assert_eq!(
            f,
            vec![assert(
                "component_version",
                "equal",
                Value::Scalar("2".into())
            )]
        );
        assert!(
            w.iter().any(|w| w
                == "W0412 this clause of the node_filter of `db` is not checked when the plan runs: `$or` has a clause the plans cannot check, so none of it is (it reads a capability property, which the instance API does not give)"),
            "{w:?}"
        );
    }

    #[test]
    fn a_clause_on_a_property_the_node_lacks_is_left_out_with_a_warning() {
        let (f, w) = lowered("{$equal: [{$get_property: [SELF, colour]}, blue]}");
        assert_eq!(f, Vec::new());
        assert!(
            w.iter().any(|w| w.ends_with(
                "is not checked when the plan runs: the node has no property or attribute `colour`"
            )),
            "{w:?}"
        );
    }

    #[test]
    fn the_legacy_form_checks_properties_and_warns_for_capabilities() {
        let (f, w) = lowered(
            "{properties: [{component_version: {in_range: [1, 4]}}, {tag: blue}], \
             capabilities: [{host: {properties: [{num_cpus: {equal: 2}}]}}]}",
        );
        assert_eq!(
            f,
            vec![assert(
                "component_version",
                "in_range",
                Value::List(vec![Value::Scalar("1".into()), Value::Scalar("4".into())])
            ),]
        );
        assert!(
            w.iter().any(|w| w.ends_with("property or attribute `tag`")),
            "{w:?}"
        );
        assert!(
            w.iter().any(|w| w.ends_with(
                "it filters on capability properties, which the instance API does not give"
            )),
            "{w:?}"
        );
    }
}
