//! XPath 2.0 expressions for bindings.

use crate::model::{Condition, TemplateRef, Topology, Value};
use crate::plugins::steps::Binding;
use crate::render::paths::url_path;
use crate::render::vars::Vars;

/// An XPath 2.0 string literal (`'` doubled inside).
pub(super) fn literal(s: &str) -> String {
    format!("'{}'", s.replace('\'', "''"))
}

/// The expression for a binding. `input` maps a plan input name to the
/// element of the request message that carries it.
pub(super) fn expr(
    b: &Binding,
    topology: &Topology,
    names: &Vars,
    input: &dyn Fn(&str) -> String,
) -> String {
    match b {
        Binding::Property(p) => format!("${}", names.prop(topology, p)),
        Binding::Input(n) => format!("string($input.payload/tns:{})", input(n)),
        Binding::Literal(s) => literal(s),
        Binding::ArtifactUrl(path) => {
            format!(
                "concat($csarEntrypoint, {})",
                literal(&format!("/Content/{}", url_path(path)))
            )
        }
        Binding::InstanceId(t) => format!("${}", names.id(*t)),
        Binding::Concat(parts) => match parts.len() {
            0 => "''".to_string(),
            1 => expr(&parts[0], topology, names, input),
            _ => format!(
                "concat({})",
                parts
                    .iter()
                    .map(|p| expr(p, topology, names, input))
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
        },
    }
}

/// A boolean expression for workflow conditions (all must hold) on the
/// current instance of `template`: `state` is compared, case-insensitively,
/// with the state read into `$stateRequest`; other attributes are the
/// template's property variables (an attribute it does not have is empty).
pub(super) fn condition(
    conditions: &[Condition],
    template: TemplateRef,
    topology: &Topology,
    names: &Vars,
) -> String {
    all(conditions, "and", "true()", template, topology, names)
}

fn all(
    list: &[Condition],
    join: &str,
    empty: &str,
    template: TemplateRef,
    topology: &Topology,
    names: &Vars,
) -> String {
    if list.is_empty() {
        return empty.to_string();
    }
    let parts: Vec<String> = list
        .iter()
        .map(|c| clause(c, template, topology, names))
        .collect();
    format!("({})", parts.join(&format!(" {join} ")))
}

fn clause(c: &Condition, template: TemplateRef, topology: &Topology, names: &Vars) -> String {
    match c {
        Condition::And(l) => all(l, "and", "true()", template, topology, names),
        Condition::Or(l) => all(l, "or", "false()", template, topology, names),
        Condition::Not(l) => format!(
            "not({})",
            all(l, "and", "true()", template, topology, names)
        ),
        Condition::Assert {
            attribute,
            constraints,
        } => {
            let state = attribute == "state";
            let subject = if state {
                "upper-case(string($stateRequest))".to_string()
            } else {
                match names
                    .props_of(topology, template)
                    .find(|(p, _)| p == attribute)
                {
                    Some((_, var)) => format!("string(${var})"),
                    None => "''".to_string(),
                }
            };
            let operand = |v: &Value| {
                let text = v.literal().unwrap_or_default();
                literal(&if state { text.to_uppercase() } else { text })
            };
            let parts: Vec<String> = constraints
                .iter()
                .map(|(op, v)| constraint(&subject, op, v, &operand))
                .collect();
            if parts.is_empty() {
                "true()".into()
            } else {
                format!("({})", parts.join(" and "))
            }
        }
    }
}

/// One constraint clause (TOSCA 1.3 §3.6.3) as XPath 2.0.
fn constraint(subject: &str, op: &str, v: &Value, operand: &dyn Fn(&Value) -> String) -> String {
    let list = |v: &Value| -> Vec<Value> {
        match v {
            Value::List(l) => l.clone(),
            other => vec![other.clone()],
        }
    };
    let num = |v: &Value| format!("number({})", operand(v));
    match op {
        "equal" => format!("{subject} = {}", operand(v)),
        "greater_than" => format!("number({subject}) > {}", num(v)),
        "greater_or_equal" => format!("number({subject}) >= {}", num(v)),
        "less_than" => format!("number({subject}) < {}", num(v)),
        "less_or_equal" => format!("number({subject}) <= {}", num(v)),
        "in_range" => {
            let l = list(v);
            match (l.first(), l.get(1)) {
                (Some(a), Some(b)) => format!(
                    "(number({subject}) >= {} and number({subject}) <= {})",
                    num(a),
                    num(b)
                ),
                _ => "false()".into(),
            }
        }
        "valid_values" => {
            let alts: Vec<String> = list(v)
                .iter()
                .map(|x| format!("{subject} = {}", operand(x)))
                .collect();
            if alts.is_empty() {
                "false()".into()
            } else {
                format!("({})", alts.join(" or "))
            }
        }
        "length" => format!("string-length({subject}) = {}", num(v)),
        "min_length" => format!("string-length({subject}) >= {}", num(v)),
        "max_length" => format!("string-length({subject}) <= {}", num(v)),
        "pattern" => format!("matches({subject}, {})", operand(v)),
        // Lowering refuses other operators; never true if one gets here.
        _ => "false()".into(),
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn literals_double_apostrophes() {
        assert_eq!(super::literal("it's"), "'it''s'");
        assert_eq!(crate::render::paths::url_path("a b/x%3Ay"), "a%20b/x%253Ay");
    }
}
