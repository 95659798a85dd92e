//! Expressions: Groovy for bindings, and JUEL text where a value is only
//! variables and literals put together. Scripts read process variables
//! through the prelude's `v(name)` (a missing variable reads as `''`), so
//! plan inputs of any name work and no script fails on an unset variable.
//! JUEL (`${name}`) is used only for variables that every plan sets
//! before it reads them (plan inputs included: `plan_init` sets the
//! missing ones to `''`) and whose names are JUEL identifiers; anything
//! else is Groovy.

use super::graph::Value;
use super::names::Names;
use crate::model::Topology;
use crate::plugins::steps::Binding;

/// A Groovy string literal (single quotes; `\`, `'` and line breaks escaped).
pub fn literal(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('\'');
    for c in s.chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            '\'' => out.push_str("\\'"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            '$' => out.push('$'), // single-quoted Groovy strings do not interpolate
            c => out.push(c),
        }
    }
    out.push('\'');
    out
}

/// Reading a variable.
pub fn var(name: &str) -> String {
    format!("v({})", literal(name))
}

/// A piece of a concatenation.
pub enum Part<'a> {
    /// Literal text.
    Lit(&'a str),
    /// The value of a variable.
    Var(&'a str),
}

/// Whether a variable can be read as `${name}`: a JUEL identifier that
/// is no keyword and no name Camunda's expressions resolve themselves.
pub fn juel_ident(name: &str) -> bool {
    const RESERVED: [&str; 21] = [
        "and",
        "or",
        "not",
        "eq",
        "ne",
        "lt",
        "gt",
        "le",
        "ge",
        "true",
        "false",
        "null",
        "instanceof",
        "empty",
        "div",
        "mod",
        "execution",
        "task",
        "caseExecution",
        "authenticatedUserId",
        "connector",
    ];
    let mut chars = name.chars();
    chars
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
        && !RESERVED.contains(&name)
}

/// Whether literal text means itself inside a JUEL composite expression.
fn juel_text(s: &str) -> bool {
    !s.contains(['$', '#', '\\'])
}

/// A concatenation as a parameter value: JUEL text when it can be (Camunda
/// trims text content, so a lone literal must not start or end with
/// white space), Groovy otherwise.
pub fn concat(parts: &[Part]) -> Value {
    let juel = parts.iter().all(|p| match p {
        Part::Lit(s) => juel_text(s),
        Part::Var(v) => juel_ident(v),
    }) && match parts {
        [] => false,
        [Part::Lit(s)] => !s.is_empty() && s.trim() == *s,
        _ => true,
    };
    if juel {
        let mut out = String::new();
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
        Value::Text(out)
    } else {
        Value::Groovy(groovy(parts))
    }
}

/// A concatenation as a Groovy expression.
pub fn groovy(parts: &[Part]) -> String {
    if parts.is_empty() {
        return "''".into();
    }
    parts
        .iter()
        .map(|p| match p {
            Part::Lit(s) => literal(s),
            Part::Var(v) => var(v),
        })
        .collect::<Vec<_>>()
        .join(" + ")
}

/// Percent-encode each segment of a CSAR path for use in a URL.
pub fn url_path(path: &str) -> String {
    path.split('/')
        .map(crate::csar::path::percent_encode)
        .collect::<Vec<_>>()
        .join("/")
}

/// The expression for a binding. `input` maps a plan input to its variable.
pub fn expr(
    b: &Binding,
    topology: &Topology,
    names: &Names,
    input: &dyn Fn(&str) -> String,
) -> String {
    match b {
        Binding::Property(p) => var(names.prop(topology, p)),
        Binding::Input(n) => var(&input(n)),
        Binding::Literal(s) => literal(s),
        Binding::ArtifactUrl(path) => format!(
            "{} + {}",
            var(&input(crate::plugins::complete::CSAR_ENTRYPOINT)),
            literal(&format!("/Content/{}", url_path(path)))
        ),
        Binding::InstanceId(t) => var(names.id(*t)),
        Binding::Concat(parts) => match parts.len() {
            0 => "''".to_string(),
            1 => expr(&parts[0], topology, names, input),
            _ => format!(
                "({})",
                parts
                    .iter()
                    .map(|p| expr(p, topology, names, input))
                    .collect::<Vec<_>>()
                    .join(" + ")
            ),
        },
    }
}

#[cfg(test)]
mod tests {
    use super::{Part, Value, concat};

    #[test]
    fn juel_where_it_means_the_same() {
        assert_eq!(
            concat(&[Part::Var("a_url"), Part::Lit("/state")]),
            Value::Text("${a_url}/state".into())
        );
        assert_eq!(
            concat(&[Part::Var("my-input")]),
            Value::Groovy("v('my-input')".into())
        );
        assert_eq!(concat(&[Part::Lit("a$b")]), Value::Groovy("'a$b'".into()));
        assert_eq!(concat(&[Part::Lit(" x")]), Value::Groovy("' x'".into()));
        assert_eq!(
            concat(&[Part::Var("task")]),
            Value::Groovy("v('task')".into())
        );
        assert_eq!(concat(&[]), Value::Groovy("''".into()));
    }

    #[test]
    fn literals_escape() {
        assert_eq!(super::literal("it's a\\b\n"), "'it\\'s a\\\\b\\n'");
        assert_eq!(super::var("x"), "v('x')");
    }
}
