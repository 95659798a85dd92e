//! Workflow conditions (a step's filter, a workflow's precondition:
//! [`crate::plugins::steps::Step::Check`]) as Groovy boolean expressions,
//! with the meaning the BPEL backend gives them: all clauses must hold;
//! `state` is the instance state, compared case-insensitively; any other
//! attribute is the template's property variable (empty if the template
//! has no such property); a numeric comparison is false where either
//! side is not a number. The helpers `cmp` and `num` are in the prelude.

use super::groovy::{push_literal, push_var};
use crate::model::{Condition, Value};

/// Append the expression for `conditions` on the current instance of a
/// template: `property` gives the variable of one of its properties (none
/// if it has no such property), `state` is the Groovy expression of its
/// state in upper case. The expression is a comparison, a call, or
/// parenthesised where it has operators of lower precedence, so it can be
/// an argument as it is; to negate it, put it in parentheses.
pub(super) fn push(
    out: &mut String,
    conditions: &[Condition],
    property: &dyn Fn(&str) -> Option<String>,
    state: &str,
) {
    let cx = Cx { property, state };
    cx.all(out, conditions, " && ", "true");
}

struct Cx<'a> {
    property: &'a dyn Fn(&str) -> Option<String>,
    state: &'a str,
}

impl Cx<'_> {
    fn all(&self, out: &mut String, list: &[Condition], join: &str, empty: &str) {
        match list {
            [] => return out.push_str(empty),
            [one] => return self.clause(out, one),
            _ => {}
        }
        out.push('(');
        for (i, c) in list.iter().enumerate() {
            if i > 0 {
                out.push_str(join);
            }
            self.clause(out, c);
        }
        out.push(')');
    }

    fn clause(&self, out: &mut String, c: &Condition) {
        match c {
            Condition::And(l) => self.all(out, l, " && ", "true"),
            Condition::Or(l) => self.all(out, l, " || ", "false"),
            Condition::Not(l) => {
                out.push_str("!(");
                self.all(out, l, " && ", "true");
                out.push(')');
            }
            Condition::Assert {
                attribute,
                constraints,
            } => {
                let state = attribute == "state";
                let mut subject = String::new();
                if state {
                    subject.push_str(self.state);
                } else {
                    match (self.property)(attribute) {
                        Some(var) => push_var(&mut subject, &var),
                        None => subject.push_str("''"),
                    }
                }
                let operand = |v: &Value| {
                    let text = v.literal().unwrap_or_default();
                    if state { text.to_uppercase() } else { text }
                };
                match constraints.as_slice() {
                    [] => return out.push_str("true"),
                    [(op, v)] => return constraint(out, &subject, op, v, &operand),
                    _ => {}
                }
                out.push('(');
                for (i, (op, v)) in constraints.iter().enumerate() {
                    if i > 0 {
                        out.push_str(" && ");
                    }
                    constraint(out, &subject, op, v, &operand);
                }
                out.push(')');
            }
        }
    }
}

/// `cmp(<subject>, '<op>', '<operand>')`.
fn compare(out: &mut String, subject: &str, op: &str, operand: &str) {
    out.push_str("cmp(");
    out.push_str(subject);
    out.push_str(", '");
    out.push_str(op);
    out.push_str("', ");
    push_literal(out, operand);
    out.push(')');
}

/// One constraint clause (TOSCA 1.3 §3.6.3).
fn constraint(
    out: &mut String,
    subject: &str,
    op: &str,
    v: &Value,
    operand: &dyn Fn(&Value) -> String,
) {
    let list = |v: &Value| -> Vec<Value> {
        match v {
            Value::List(l) => l.clone(),
            other => vec![other.clone()],
        }
    };
    let length = format!("{subject}.length()");
    match op {
        "equal" => {
            out.push_str(subject);
            out.push_str(" == ");
            push_literal(out, &operand(v));
        }
        "greater_than" => compare(out, subject, ">", &operand(v)),
        "greater_or_equal" => compare(out, subject, ">=", &operand(v)),
        "less_than" => compare(out, subject, "<", &operand(v)),
        "less_or_equal" => compare(out, subject, "<=", &operand(v)),
        "in_range" => {
            let l = list(v);
            match (l.first(), l.get(1)) {
                (Some(a), Some(b)) => {
                    out.push('(');
                    compare(out, subject, ">=", &operand(a));
                    out.push_str(" && ");
                    compare(out, subject, "<=", &operand(b));
                    out.push(')');
                }
                _ => out.push_str("false"),
            }
        }
        "valid_values" => {
            let l = list(v);
            if l.is_empty() {
                out.push_str("false");
                return;
            }
            out.push('(');
            for (i, x) in l.iter().enumerate() {
                if i > 0 {
                    out.push_str(" || ");
                }
                out.push_str(subject);
                out.push_str(" == ");
                push_literal(out, &operand(x));
            }
            out.push(')');
        }
        "length" => compare(out, &length, "==", &operand(v)),
        "min_length" => compare(out, &length, ">=", &operand(v)),
        "max_length" => compare(out, &length, "<=", &operand(v)),
        "pattern" => {
            out.push('(');
            out.push_str(subject);
            out.push_str(" =~ ");
            push_literal(out, &operand(v));
            out.push_str(").find()");
        }
        // Lowering refuses other operators; never true if one gets here.
        _ => out.push_str("false"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn assert(attribute: &str, constraints: &[(&str, Value)]) -> Condition {
        Condition::Assert {
            attribute: attribute.into(),
            constraints: constraints
                .iter()
                .map(|(o, v)| (o.to_string(), v.clone()))
                .collect(),
        }
    }

    fn s(x: &str) -> Value {
        Value::Scalar(x.into())
    }

    #[test]
    fn clauses_become_groovy() {
        let property = |p: &str| ["foo", "bar"].contains(&p).then(|| format!("prop_n_{p}"));
        let mut out = String::new();
        push(
            &mut out,
            &[
                assert(
                    "state",
                    &[(
                        "valid_values",
                        Value::List(vec![s("started"), s("available")]),
                    )],
                ),
                Condition::Or(vec![
                    assert("foo", &[("equal", s("true"))]),
                    assert("bar", &[("greater_than", s("2")), ("less_than", s("20"))]),
                ]),
                Condition::Not(vec![assert("baz", &[("pattern", s("^a'b"))])]),
                assert(
                    "foo",
                    &[
                        ("min_length", s("3")),
                        ("in_range", Value::List(vec![s("1")])),
                    ],
                ),
            ],
            &property,
            "ST",
        );
        assert_eq!(
            out,
            "((ST == 'STARTED' || ST == 'AVAILABLE') && \
             (v('prop_n_foo') == 'true' || (cmp(v('prop_n_bar'), '>', '2') && cmp(v('prop_n_bar'), '<', '20'))) && \
             !(('' =~ '^a\\'b').find()) && \
             (cmp(v('prop_n_foo').length(), '>=', '3') && false))"
        );
        // One clause of one constraint: no parentheses.
        out.clear();
        push(
            &mut out,
            &[assert("foo", &[("equal", s("x"))])],
            &property,
            "ST",
        );
        assert_eq!(out, "v('prop_n_foo') == 'x'");
        out.clear();
        push(&mut out, &[], &property, "ST");
        assert_eq!(out, "true");
    }
}
