//! Groovy expressions for bindings. Scripts read process variables through
//! the prelude's `v(name)` (a missing variable reads as `''`), so plan
//! inputs of any name work and no script fails on an unset variable.

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
    #[test]
    fn literals_escape() {
        assert_eq!(super::literal("it's a\\b\n"), "'it\\'s a\\\\b\\n'");
        assert_eq!(super::var("x"), "v('x')");
    }
}
