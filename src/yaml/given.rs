//! Input values given when the plans are made (`--input NAME=VALUE`).
//!
//! A TOSCA processor takes a topology's inputs at deployment; toscanini
//! makes the plans before that, so what the plans cannot take when they
//! run (a node template's `count`, a requirement's) is fixed from the
//! input's default. `--input` gives such a value, or any other, when the
//! plans are made: it takes the place of every `get_input` of it.
//!
//! In: the pairs as typed. Out: a YAML document of them, one line
//! `NAME: VALUE` each, known as `--input` in the source map, so a value
//! is read as YAML (`5`, `[80, 443]`, `{a: 1}`, `"x: y"` for a string
//! with a colon) and a problem with it is shown where it was given.

use super::ast::File;
use super::node::{LoadLimits, parse};
use super::version::Version;
use crate::diagnostics::{Diagnostic, Location, SourceFile, SourceMap, codes};

/// The name of the document in the source map and in diagnostics.
pub(crate) const SOURCE: &str = "--input";

/// The given values as a file of `version` (whose YAML rules read them).
/// `None` without values; an error for a pair that is not `NAME=VALUE`
/// on one line, or for a value that is not YAML.
pub(crate) fn document(
    pairs: &[(String, String)],
    version: Version,
    sources: &mut SourceMap,
) -> Result<Option<File>, Diagnostic> {
    if pairs.is_empty() {
        return Ok(None);
    }
    let mut text = String::new();
    for (name, value) in pairs {
        if let Some(problem) = problem(name, value) {
            return Err(Diagnostic::error(
                codes::INPUT_GIVEN,
                format!("`--input {name}={value}` {problem}"),
            )
            .at(Location::file(SOURCE))
            .hint("write `--input NAME=VALUE`, the value in YAML on one line: 5, [80, 443], {a: 1}, '\"a: b\"'"));
        }
        text.push_str(&format!("{name}: {value}\n"));
    }
    let source = sources.add(SourceFile::new(SOURCE, text));
    let root = parse(&source, LoadLimits::default())?;
    Ok(Some(File::new(source, root, version)))
}

/// What keeps a pair from being a line of the document.
fn problem(name: &str, value: &str) -> Option<&'static str> {
    let plain = |c: char| c.is_alphanumeric() || matches!(c, '_' | '-' | '.');
    if name.is_empty() || !name.chars().all(plain) {
        Some("does not start with an input name (letters, digits, `_`, `-`, `.`)")
    } else if value.contains(['\n', '\r']) {
        Some("has a value of several lines")
    } else {
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::yaml::node::Kind;

    fn doc(pairs: &[(&str, &str)]) -> Result<Option<File>, Diagnostic> {
        let pairs: Vec<(String, String)> = pairs
            .iter()
            .map(|(n, v)| (n.to_string(), v.to_string()))
            .collect();
        document(&pairs, Version::V2_0, &mut SourceMap::new())
    }

    #[test]
    fn values_are_yaml_with_positions() {
        let file = doc(&[("num", "5"), ("ports", "[80, 443]")])
            .unwrap()
            .unwrap();
        let Kind::Map(entries) = &file.root.kind else {
            panic!("not a map: {:?}", file.root);
        };
        assert_eq!(entries[0].0.as_str(), Some("num"));
        assert_eq!(entries[0].1.as_str(), Some("5"));
        assert!(matches!(&entries[1].1.kind, Kind::Seq(items) if items.len() == 2));
        // The second value starts on line 2, after `ports: `.
        let at = file.source.line_col(entries[1].1.span.start);
        assert_eq!(at, (2, 8));
    }

    #[test]
    fn nothing_given_is_no_document_and_bad_pairs_are_errors() {
        assert!(doc(&[]).unwrap().is_none());
        let e = doc(&[("a b", "1")]).err().unwrap();
        assert_eq!(e.code, codes::INPUT_GIVEN);
        assert!(e.message.contains("input name"), "{}", e.message);
        assert!(doc(&[("a", "1\n2")]).is_err());
        // Not YAML: the parser's error, at the value.
        let e = doc(&[("a", "[1, 2")]).err().unwrap();
        assert_eq!(e.code, codes::YAML_SYNTAX);
    }
}
