//! Expressions over the BPMN model: a concatenation as a parameter value
//! (JUEL text where it can be, Groovy otherwise), and the Groovy of a
//! binding. Scripts read process variables through the prelude's
//! `v(name)` (a missing variable reads as `''`), so plan inputs of any
//! name work and no script fails on an unset variable. JUEL (`${name}`) is
//! used only for variables that every plan sets before it reads them (plan
//! inputs included: `plan_init` sets the missing ones to `''`) and whose
//! names are JUEL identifiers; anything else is Groovy ([`super::groovy`]).
//!
//! In: parts or a binding, the plan's text. Out: a [`Value`] or Groovy text.

use super::graph::{Text, Value};
use super::groovy::{Part, juel_ident, juel_text, push_groovy, push_literal, push_var};
use crate::model::Topology;
use crate::plugins::steps::Binding;
use crate::render::vars::Vars;

/// A concatenation as a parameter value: JUEL text when it can be (Camunda
/// trims text content, so a lone literal must not start or end with
/// white space), Groovy otherwise.
pub(super) fn concat(text: &mut Text, parts: &[Part]) -> Value {
    let juel = parts.iter().all(|p| match p {
        Part::Lit(s) => juel_text(s),
        Part::Var(v) => juel_ident(v),
    }) && match parts {
        [] => false,
        [Part::Lit(s)] => !s.is_empty() && s.trim() == *s,
        _ => true,
    };
    if juel {
        Value::Text(text.build(|out| {
            for p in parts {
                match p {
                    Part::Lit(s) => out.push_str(s),
                    Part::Var(v) => {
                        out.push_str("${");
                        out.push_str(v);
                        out.push('}');
                    }
                }
            }
        }))
    } else {
        Value::Groovy(text.build(|out| push_groovy(out, parts)))
    }
}

/// Append the Groovy expression of a binding. `input` maps a plan input
/// to its variable.
pub(super) fn expr(
    out: &mut String,
    b: &Binding,
    topology: &Topology,
    names: &Vars,
    input: &dyn Fn(&str) -> String,
) {
    match b {
        Binding::Property(p) => push_var(out, names.prop(topology, p)),
        Binding::Input(n) => push_var(out, &input(n)),
        Binding::Literal(s) => push_literal(out, s),
        Binding::ArtifactUrl(path) => {
            push_var(out, &input(crate::plugins::complete::CSAR_ENTRYPOINT));
            out.push_str(" + ");
            push_literal(
                out,
                &format!("/Content/{}", crate::render::paths::url_path(path)),
            );
        }
        Binding::InstanceId(t) => push_var(out, names.id(*t)),
        Binding::Function(name, args) => {
            let args: Vec<String> = args
                .iter()
                .map(|p| {
                    let mut s = String::new();
                    expr(&mut s, p, topology, names, input);
                    s
                })
                .collect();
            out.push_str(&function(name, &args));
        }
        Binding::Concat(parts) => match parts.len() {
            0 => out.push_str("''"),
            1 => expr(out, &parts[0], topology, names, input),
            _ => {
                out.push('(');
                for (i, p) in parts.iter().enumerate() {
                    if i > 0 {
                        out.push_str(" + ");
                    }
                    expr(out, p, topology, names, input);
                }
                out.push(')');
            }
        },
    }
}

/// A built-in function (`model::RUNTIME_FUNCTIONS`) of the
/// Groovy expressions `a`, a string: numbers as `BigDecimal`s written
/// plainly, booleans `true` or `false`.
fn function(name: &str, a: &[String]) -> String {
    let s = |i: usize| format!("String.valueOf({})", a.get(i).map_or("''", String::as_str));
    let n = |i: usize| format!("dec({}, '{name}')", s(i));
    let plain = |x: String| format!("({x}).stripTrailingZeros().toPlainString()");
    let fold = |op: &str| {
        let nums: Vec<String> = (0..a.len()).map(n).collect();
        plain(nums.join(op))
    };
    let compare = |op: &str| format!("({}.compareTo({}) {op} 0).toString()", n(0), n(1));
    let truth = |i: usize| format!("({} == 'true')", s(i));
    match name {
        "sum" => fold(" + "),
        "difference" => fold(" - "),
        "product" => fold(" * "),
        "quotient" => plain(format!(
            "{}.divide({}, java.math.MathContext.DECIMAL64)",
            n(0),
            n(1)
        )),
        "remainder" => plain(format!("{}.remainder({})", n(0), n(1))),
        "round" => format!(
            "{}.setScale(0, java.math.RoundingMode.HALF_UP).toPlainString()",
            n(0)
        ),
        "floor" => format!(
            "{}.setScale(0, java.math.RoundingMode.FLOOR).toPlainString()",
            n(0)
        ),
        "ceil" => format!(
            "{}.setScale(0, java.math.RoundingMode.CEILING).toPlainString()",
            n(0)
        ),
        "equal" => format!("({} == {}).toString()", s(0), s(1)),
        "greater_than" => compare(">"),
        "greater_or_equal" => compare(">="),
        "less_than" => compare("<"),
        "less_or_equal" => compare("<="),
        "and" | "or" => {
            let all: Vec<String> = (0..a.len()).map(truth).collect();
            format!(
                "({}).toString()",
                all.join(if name == "and" { " && " } else { " || " })
            )
        }
        "not" => format!("(!{}).toString()", truth(0)),
        "xor" => format!("({} ^ {}).toString()", truth(0), truth(1)),
        "join" => {
            let items: Vec<String> = (0..a.len().saturating_sub(1)).map(s).collect();
            format!(
                "[{}].join({})",
                items.join(", "),
                s(a.len().saturating_sub(1))
            )
        }
        // The separators are characters, any of which splits; empty
        // tokens are dropped (as the BPEL plans do).
        "token" => {
            let k = format!("{}.intValue()", n(2));
            format!("({}.tokenize({}) + [''] * ({k} + 1))[{k}]", s(0), s(1))
        }
        "has_prefix" => format!("{}.startsWith({}).toString()", s(0), s(1)),
        "has_suffix" => format!("{}.endsWith({}).toString()", s(0), s(1)),
        "contains" => format!("{}.contains({}).toString()", s(0), s(1)),
        "length" => format!("{}.length().toString()", s(0)),
        "matches" => format!(
            "java.util.regex.Pattern.compile({}).matcher({}).find().toString()",
            s(1),
            s(0)
        ),
        // The value, then the items (`plugins::params`).
        "valid_values" | "has_entry" => {
            let items: Vec<String> = (1..a.len()).map(s).collect();
            format!("[{}].contains({}).toString()", items.join(", "), s(0))
        }
        _ => "''".to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::{Part, Text, Value, concat};

    fn show(parts: &[Part]) -> String {
        let mut text = Text::default();
        match concat(&mut text, parts) {
            Value::Text(s) => format!("juel {}", text.get(s)),
            Value::Groovy(s) => format!("groovy {}", text.get(s)),
            Value::Shared(s) => format!("{s:?}"),
            Value::Later(k) => format!("later {k}"),
        }
    }

    #[test]
    fn functions_are_groovy_strings() {
        let a = |v: &[&str]| v.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        assert_eq!(
            super::function("sum", &a(&["v('p')", "'1'"])),
            "(dec(String.valueOf(v('p')), 'sum') + dec(String.valueOf('1'), 'sum')).stripTrailingZeros().toPlainString()"
        );
        assert_eq!(
            super::function("has_prefix", &a(&["v('h')", "'alpha'"])),
            "String.valueOf(v('h')).startsWith(String.valueOf('alpha')).toString()"
        );
        assert_eq!(
            super::function("has_entry", &a(&["v('h')", "'a'"])),
            "[String.valueOf('a')].contains(String.valueOf(v('h'))).toString()"
        );
        assert_eq!(
            super::function("matches", &a(&["v('h')", "'^db'"])),
            "java.util.regex.Pattern.compile(String.valueOf('^db')).matcher(String.valueOf(v('h'))).find().toString()"
        );
    }

    #[test]
    fn juel_where_it_means_the_same() {
        assert_eq!(
            show(&[Part::Var("a_url"), Part::Lit("/state")]),
            "juel ${a_url}/state"
        );
        assert_eq!(show(&[Part::Var("my-input")]), "groovy v('my-input')");
        assert_eq!(show(&[Part::Lit("a$b")]), "groovy 'a$b'");
        assert_eq!(show(&[Part::Lit(" x")]), "groovy ' x'");
        assert_eq!(show(&[Part::Var("task")]), "groovy v('task')");
        assert_eq!(show(&[]), "groovy ''");
    }
}
