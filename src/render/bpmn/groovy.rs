//! Groovy and JUEL text, the lowest layer of the BPMN backend: string
//! literals, reading a variable, and concatenations of literals and
//! variables, written into a `String`. It knows no model and no plan.
//!
//! In: text and variable names. Out: Groovy or JUEL source text.

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
pub(super) fn juel_text(s: &str) -> bool {
    !s.contains(['$', '#', '\\'])
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

#[cfg(test)]
mod tests {
    use super::{Part, juel_ident, literal, push_groovy, var};

    #[test]
    fn literals_escape() {
        assert_eq!(literal("it's a\\b\n"), "'it\\'s a\\\\b\\n'");
        assert_eq!(var("x"), "v('x')");
    }

    #[test]
    fn a_concatenation_adds_its_parts() {
        let mut out = String::new();
        push_groovy(&mut out, &[Part::Lit("a"), Part::Var("b")]);
        assert_eq!(out, "'a' + v('b')");
        assert!(juel_ident("a_url") && !juel_ident("task") && !juel_ident("my-input"));
    }
}
