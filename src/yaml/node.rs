//! A YAML document as a small tree with byte spans, built with saphyr (YAML
//! 1.2). All saphyr use is in this file. Scalars are kept as written (no
//! YAML 1.1 booleans, `version: 1.0` stays text); TOSCA types them later.
//! Alias expansion is budgeted (billion laughs), nesting is limited, and
//! duplicate keys are errors, as YAML 1.2 says.

use std::sync::Arc;

use saphyr::{MarkedYaml, ScalarStyle, YamlData, YamlLoader};

use crate::diagnostics::{Diagnostic, SourceFile, Span, codes};

/// What a node holds.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Kind {
    /// `null`, `~`, or nothing.
    Null,
    /// A scalar as written; `quoted` if it was in quotes or a block scalar.
    Scalar {
        /// The text.
        text: String,
        /// Not a plain scalar (so `"123"` is a string and `"null"` not null).
        quoted: bool,
    },
    /// A sequence.
    Seq(Vec<Node>),
    /// A mapping, in document order (keys are nodes for their spans).
    Map(Vec<(Node, Node)>),
}

/// A node and where it is.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Node {
    /// The content.
    pub kind: Kind,
    /// Byte span in the source.
    pub span: Span,
}

impl Node {
    /// The text of a scalar (quoted or not).
    pub(crate) fn as_str(&self) -> Option<&str> {
        match &self.kind {
            Kind::Scalar { text, .. } => Some(text),
            _ => None,
        }
    }

    /// Entries of a mapping.
    pub(crate) fn as_map(&self) -> Option<&[(Node, Node)]> {
        match &self.kind {
            Kind::Map(m) => Some(m),
            _ => None,
        }
    }

    /// Items of a sequence.
    pub(crate) fn as_seq(&self) -> Option<&[Node]> {
        match &self.kind {
            Kind::Seq(s) => Some(s),
            _ => None,
        }
    }

    /// The value of a key of a mapping.
    pub(crate) fn get(&self, key: &str) -> Option<&Node> {
        self.as_map()?
            .iter()
            .find(|(k, _)| k.as_str() == Some(key))
            .map(|(_, v)| v)
    }

    /// Whether the node is null.
    pub(crate) fn is_null(&self) -> bool {
        matches!(self.kind, Kind::Null)
    }

    /// The YAML kind, for messages.
    pub(crate) fn kind_name(&self) -> &'static str {
        match self.kind {
            Kind::Null => "null",
            Kind::Scalar { .. } => "a scalar",
            Kind::Seq(_) => "a list",
            Kind::Map(_) => "a map",
        }
    }
}

/// Limits for loading.
#[derive(Clone, Copy, Debug)]
pub(crate) struct LoadLimits {
    /// Maximum nesting depth.
    pub max_depth: usize,
    /// Maximum number of nodes produced by alias expansion.
    pub max_alias_nodes: usize,
}

impl Default for LoadLimits {
    fn default() -> Self {
        LoadLimits {
            max_depth: 256,
            max_alias_nodes: 10_000,
        }
    }
}

/// Parse the first document of `source`. An empty file is a `Null` node.
pub(crate) fn parse(source: &Arc<SourceFile>, limits: LoadLimits) -> Result<Node, Diagnostic> {
    let text = source.text();
    let mut loader: YamlLoader<MarkedYaml> = YamlLoader::default();
    loader.early_parse(false);
    loader.alias_limit(limits.max_alias_nodes);
    let mut parser = saphyr_parser::Parser::new_from_str(text);
    let result = parser.load(&mut loader, false);
    let error = result.err().or_else(|| loader.error().cloned());
    if let Some(e) = error {
        let m = e.marker();
        let at = byte_offset(source, m.line(), m.col());
        let info = e.info();
        let (code, message) = if info.contains("alias expansion") {
            (
                codes::YAML_LIMIT,
                format!(
                    "YAML aliases expand to more than {} nodes",
                    limits.max_alias_nodes
                ),
            )
        } else if info.contains("duplicate") {
            // saphyr points at the second occurrence; name the key.
            let key = text[at.min(text.len())..]
                .lines()
                .next()
                .and_then(|l| l.split(':').next())
                .map(|k| k.trim().trim_matches(['"', '\'']))
                .filter(|k| !k.is_empty() && k.len() <= 80);
            (
                codes::YAML_DUPLICATE,
                match key {
                    Some(k) => format!("`{k}` appears twice in the same YAML map"),
                    None => format!("YAML mapping has a duplicate key: {info}"),
                },
            )
        } else {
            (
                codes::YAML_SYNTAX,
                format!("YAML is not well-formed: {info}"),
            )
        };
        let mut d = Diagnostic::error(code, message).at(source.location(Span::new(at, at + 1)));
        if info.contains("mapping values are not allowed") {
            d = d.hint("a key on a line above may lack its `:`, or this line is indented too deep");
        } else if info.contains("indentation") {
            d = d.hint("YAML 1.2 needs the lines of a value indented deeper than its key");
        }
        return Err(d);
    }
    let docs = loader.into_documents();
    match docs.into_iter().next() {
        None => Ok(Node {
            kind: Kind::Null,
            span: Span::default(),
        }),
        Some(doc) => convert(&doc, source, 0, limits.max_depth),
    }
}

/// Byte offset of a 1-based line and 0-based character column.
fn byte_offset(source: &SourceFile, line: usize, col: usize) -> usize {
    let Some(text) = source.line(line as u32) else {
        return source.text().len();
    };
    let start = text.as_ptr() as usize - source.text().as_ptr() as usize;
    start
        + text
            .char_indices()
            .nth(col)
            .map(|(i, _)| i)
            .unwrap_or(text.len())
}

fn span_of(n: &MarkedYaml, source: &SourceFile) -> Span {
    let s = n.span.start;
    let e = n.span.end;
    let start = byte_offset(source, s.line(), s.col());
    let end = byte_offset(source, e.line(), e.col()).max(start);
    Span::new(start, end)
}

fn convert(
    n: &MarkedYaml,
    source: &SourceFile,
    depth: usize,
    max_depth: usize,
) -> Result<Node, Diagnostic> {
    let span = span_of(n, source);
    if depth > max_depth {
        return Err(Diagnostic::error(
            codes::YAML_LIMIT,
            format!("YAML is nested deeper than the limit of {max_depth}"),
        )
        .at(source.location(Span::new(span.start, span.start + 1)))
        .hint("if the input is trusted, raise the limit with --max-depth"));
    }
    let kind = match &n.data {
        YamlData::Representation(text, style, _) => {
            let plain = matches!(style, ScalarStyle::Plain);
            if plain && matches!(text.as_ref(), "" | "~" | "null" | "Null" | "NULL") {
                Kind::Null
            } else {
                Kind::Scalar {
                    text: text.to_string(),
                    quoted: !plain,
                }
            }
        }
        YamlData::Value(v) => Kind::Scalar {
            text: format!("{v:?}"),
            quoted: false,
        },
        YamlData::Sequence(items) => Kind::Seq(
            items
                .iter()
                .map(|i| convert(i, source, depth + 1, max_depth))
                .collect::<Result<_, _>>()?,
        ),
        YamlData::Mapping(map) => {
            let mut entries = Vec::with_capacity(map.len());
            for (k, v) in map.iter() {
                entries.push((
                    convert(k, source, depth + 1, max_depth)?,
                    convert(v, source, depth + 1, max_depth)?,
                ));
            }
            Kind::Map(entries)
        }
        YamlData::Tagged(_, inner) => return convert(inner, source, depth, max_depth),
        YamlData::Alias(_) | YamlData::BadValue => Kind::Null,
    };
    Ok(Node { kind, span })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn p(text: &str) -> Result<Node, Diagnostic> {
        parse(
            &Arc::new(SourceFile::new("t.yaml", text)),
            LoadLimits::default(),
        )
    }

    #[test]
    fn keeps_scalars_as_text_with_spans() {
        let n = p("a: 1.0\nb: 'x'\nc: yes\nd:\n  - é: z\n").unwrap();
        assert_eq!(n.get("a").unwrap().as_str(), Some("1.0"));
        assert_eq!(n.get("c").unwrap().as_str(), Some("yes"));
        assert!(matches!(
            n.get("b").unwrap().kind,
            Kind::Scalar { quoted: true, .. }
        ));
        let z = &n.get("d").unwrap().as_seq().unwrap()[0].get("é").unwrap();
        let text = "a: 1.0\nb: 'x'\nc: yes\nd:\n  - é: z\n";
        assert_eq!(&text[z.span.start..z.span.end], "z");
    }

    #[test]
    fn refuses_duplicate_keys_and_alias_bombs() {
        assert_eq!(p("a: 1\na: 2\n").unwrap_err().code, codes::YAML_DUPLICATE);
        let bomb = "a: &a [x, x, x, x, x, x, x, x, x, x]\nb: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a, *a]\nc: &c [*b, *b, *b, *b, *b, *b, *b, *b, *b, *b]\nd: &d [*c, *c, *c, *c, *c, *c, *c, *c, *c, *c]\ne: [*d, *d, *d, *d, *d, *d, *d, *d, *d, *d]\n";
        assert_eq!(p(bomb).unwrap_err().code, codes::YAML_LIMIT);
    }
}
