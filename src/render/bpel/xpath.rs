//! XPath 2.0 expressions for bindings.

use super::names::Names;
use crate::model::Topology;
use crate::plugins::steps::Binding;

/// An XPath 2.0 string literal (`'` doubled inside).
pub fn literal(s: &str) -> String {
    format!("'{}'", s.replace('\'', "''"))
}

/// Percent-encode each segment of a CSAR path for use in a URL.
pub fn url_path(path: &str) -> String {
    path.split('/')
        .map(crate::csar::path::percent_encode)
        .collect::<Vec<_>>()
        .join("/")
}

/// The expression for a binding. `input` maps a plan input name to the
/// element of the request message that carries it.
pub fn expr(
    b: &Binding,
    topology: &Topology,
    names: &Names,
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

#[cfg(test)]
mod tests {
    #[test]
    fn literals_double_apostrophes() {
        assert_eq!(super::literal("it's"), "'it''s'");
        assert_eq!(super::url_path("a b/x%3Ay"), "a%20b/x%253Ay");
    }
}
