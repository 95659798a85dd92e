//! Expressions: Groovy for bindings, and JUEL text where a value is only
//! variables and literals put together. Scripts read process variables
//! through the prelude's `v(name)` (a missing variable reads as `''`), so
//! plan inputs of any name work and no script fails on an unset variable.
//! JUEL (`${name}`) is used only for variables that every plan sets
//! before it reads them (plan inputs included: `plan_init` sets the
//! missing ones to `''`) and whose names are JUEL identifiers; anything
//! else is Groovy.

use super::graph::{Text, Value};
use crate::model::Topology;
use crate::plugins::steps::Binding;
use crate::render::vars::Vars;

/// Append a Groovy string literal (single quotes; `\`, `'` and line
/// breaks escaped).
pub(super) fn push_literal(out: &mut String, s: &str) {
    out.reserve(s.len() + 2);
    out.push('\'');
    // Single-quoted Groovy strings do not interpolate `$`.
    crate::names::escape::push_escaped(out, s, |b| match b {
        b'\\' => Some("\\\\"),
        b'\'' => Some("\\'"),
        b'\n' => Some("\\n"),
        b'\r' => Some("\\r"),
        b'\t' => Some("\\t"),
        _ => None,
    });
    out.push('\'');
}

/// A Groovy string literal.
pub(super) fn literal(s: &str) -> String {
    let mut out = String::new();
    push_literal(&mut out, s);
    out
}

/// Append the Groovy that reads a variable: `v('name')`.
pub(super) fn push_var(out: &mut String, name: &str) {
    out.push_str("v(");
    push_literal(out, name);
    out.push(')');
}

/// Reading a variable.
pub(super) fn var(name: &str) -> String {
    let mut out = String::new();
    push_var(&mut out, name);
    out
}

/// A piece of a concatenation.
pub(super) enum Part<'a> {
    /// Literal text.
    Lit(&'a str),
    /// The value of a variable.
    Var(&'a str),
}

/// Whether a variable can be read as `${name}`: a JUEL identifier that
/// is no keyword and no name Camunda's expressions resolve themselves.
pub(super) fn juel_ident(name: &str) -> bool {
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

/// Append a concatenation as a Groovy expression.
pub(super) fn push_groovy(out: &mut String, parts: &[Part]) {
    if parts.is_empty() {
        out.push_str("''");
    }
    for (i, p) in parts.iter().enumerate() {
        if i > 0 {
            out.push_str(" + ");
        }
        match p {
            Part::Lit(s) => push_literal(out, s),
            Part::Var(v) => push_var(out, v),
        }
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
            push_literal(out, &format!("/Content/{}", crate::render::url_path(path)));
        }
        Binding::InstanceId(t) => push_var(out, names.id(*t)),
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

    #[test]
    fn literals_escape() {
        assert_eq!(super::literal("it's a\\b\n"), "'it\\'s a\\\\b\\n'");
        assert_eq!(super::var("x"), "v('x')");
    }
}
