//! A YAML document as a small tree with byte spans, built from the events
//! of saphyr's parser (YAML 1.2). All saphyr use is in this file. Scalars
//! are kept as written (no YAML 1.1 booleans, `version: 1.0` stays text);
//! TOSCA types them later. Alias expansion is budgeted (billion laughs),
//! nesting is limited, and duplicate keys are errors, as YAML 1.2 says
//! (keys are the same when their content is: `a`, `'a'` and `"a"` are one
//! string, `1` and `'1'` are not).
//!
//! In: a source file. Out: its first document as a [`Node`], or the
//! located diagnostic of the first thing wrong with it.

use std::sync::Arc;

use saphyr_parser::{Event, Marker, Parser, ScalarStyle, SpannedEventReceiver};

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
    let mut builder = Builder::new(source, limits);
    let mut parser = Parser::new_from_str(text);
    // Only the first document (`multi: false`).
    let result = parser.load(&mut builder, false);
    // A syntax error first, then what the builder refused (the first), then
    // a node nested too deep: the order in which they are seen.
    if let Err(e) = result {
        return Err(refused(source, e.marker(), e.info(), limits));
    }
    if let Some((at, info)) = builder.error {
        return Err(refused(source, &at, info, limits));
    }
    if let Some(deep) = builder.deep {
        return Err(too_deep(source, deep, limits.max_depth));
    }
    Ok(builder.document.unwrap_or(Node {
        kind: Kind::Null,
        span: Span::default(),
    }))
}

/// Where and why the builder refused a document.
type Refusal = (Marker, &'static str);

/// Why the builder refused a document (the texts [`refused`] reads).
const DUPLICATE: &str = "duplicated key in mapping";
const ALIAS_BOMB: &str =
    "alias expansion exceeded the maximum node budget (possible billion-laughs attack)";

/// The diagnostic for a document saphyr or the builder refused at `at`.
fn refused(source: &SourceFile, at: &Marker, info: &str, limits: LoadLimits) -> Diagnostic {
    let text = source.text();
    let at = byte_offset(source, at.line(), at.col());
    let (code, message) = if info.contains("alias expansion") {
        (
            codes::YAML_LIMIT,
            format!(
                "YAML aliases expand to more than {} nodes",
                limits.max_alias_nodes
            ),
        )
    } else if info.contains("duplicate") {
        // The mark is at the second occurrence; name the key.
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
    d
}

/// The diagnostic for a node nested deeper than `max_depth`, at `start`.
fn too_deep(source: &SourceFile, start: usize, max_depth: usize) -> Diagnostic {
    Diagnostic::error(
        codes::YAML_LIMIT,
        format!("YAML is nested deeper than the limit of {max_depth}"),
    )
    .at(source.location(Span::new(start, start + 1)))
    .hint("if the input is trusted, raise the limit with --max-depth")
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

/// A sequence or mapping whose end has not come yet.
struct Open {
    node: Node,
    anchor: usize,
    /// In a mapping, the key whose value comes next, and where it is.
    key: Option<(Node, Marker)>,
    /// In a long mapping, the hashes of its keys (duplicates are found
    /// without comparing each key with every other).
    hashes: Option<foldhash::HashSet<u64>>,
}

/// Builds [`Node`]s from saphyr's events, straight: no tree of saphyr's
/// own (a hash map per mapping) to convert and drop.
struct Builder<'s> {
    source: &'s SourceFile,
    limits: LoadLimits,
    open: Vec<Open>,
    anchors: foldhash::HashMap<usize, Node>,
    /// Nodes alias expansion may still produce.
    budget: usize,
    document: Option<Node>,
    /// The first refusal (a duplicate key, an alias bomb): the events after
    /// it are ignored.
    error: Option<Refusal>,
    /// Where the first node deeper than the limit starts.
    deep: Option<usize>,
}

/// A mapping longer than this finds its duplicate keys by hash.
const SHORT_MAP: usize = 8;

impl<'s> Builder<'s> {
    fn new(source: &'s SourceFile, limits: LoadLimits) -> Builder<'s> {
        Builder {
            source,
            limits,
            open: Vec::new(),
            anchors: foldhash::HashMap::default(),
            budget: limits.max_alias_nodes,
            document: None,
            error: None,
            deep: None,
        }
    }

    fn span(&self, span: saphyr_parser::Span) -> Span {
        let start = self.offset(span.start);
        Span::new(start, self.offset(span.end).max(start))
    }

    fn offset(&self, m: Marker) -> usize {
        byte_offset(self.source, m.line(), m.col())
    }

    /// A node starts at depth `open.len()` (the document's root at 0).
    fn check_depth(&mut self, start: usize) {
        if self.open.len() > self.limits.max_depth && self.deep.is_none() {
            self.deep = Some(start);
        }
    }

    fn start(&mut self, kind: Kind, anchor: usize, span: saphyr_parser::Span) {
        let start = self.offset(span.start);
        self.check_depth(start);
        let node = Node {
            kind,
            span: Span::new(start, start),
        };
        self.open.push(Open {
            node,
            anchor,
            key: None,
            hashes: None,
        });
    }

    fn end(&mut self, span: saphyr_parser::Span) -> Result<(), Refusal> {
        let Some(mut open) = self.open.pop() else {
            return Ok(());
        };
        let end = self.offset(span.start).max(open.node.span.start);
        open.node.span = Span::new(open.node.span.start, end);
        // Vectors grow by doubling from four: most mappings of a template
        // have one or two entries, and the tree is kept while the file is
        // lowered.
        match &mut open.node.kind {
            Kind::Seq(items) => items.shrink_to_fit(),
            Kind::Map(entries) => entries.shrink_to_fit(),
            _ => {}
        }
        self.insert(open.node, open.anchor, span.start)
    }

    /// Put a finished node where it belongs: into the open collection, as
    /// a key or as the value of the key before it, or as the document.
    fn insert(&mut self, node: Node, anchor: usize, mark: Marker) -> Result<(), Refusal> {
        if anchor > 0 {
            self.anchors.insert(anchor, node.clone());
        }
        let Some(parent) = self.open.last_mut() else {
            if self.document.is_none() {
                self.document = Some(node);
            }
            return Ok(());
        };
        match &mut parent.node.kind {
            Kind::Seq(items) => items.push(node),
            Kind::Map(entries) => match parent.key.take() {
                None => parent.key = Some((node, mark)),
                Some((key, at)) if is_duplicate(entries, &mut parent.hashes, &key) => {
                    // Reported where the second occurrence is.
                    return Err((at, DUPLICATE));
                }
                Some((key, _)) => entries.push((key, node)),
            },
            _ => {}
        }
        Ok(())
    }

    /// The node an alias stands for: a copy of its anchor's, within the
    /// budget of nodes aliases may produce.
    fn alias(&mut self, id: usize, at: Marker) -> Result<Node, Refusal> {
        let Some(anchored) = self.anchors.get(&id) else {
            return Ok(Node {
                kind: Kind::Null,
                span: Span::default(),
            });
        };
        if !within(anchored, &mut self.budget) {
            return Err((at, ALIAS_BOMB));
        }
        Ok(anchored.clone())
    }

    fn on(&mut self, event: Event<'_>, span: saphyr_parser::Span) -> Result<(), Refusal> {
        match event {
            Event::SequenceStart(anchor, _) => self.start(Kind::Seq(Vec::new()), anchor, span),
            Event::MappingStart(anchor, _) => self.start(Kind::Map(Vec::new()), anchor, span),
            Event::SequenceEnd | Event::MappingEnd => self.end(span)?,
            Event::Scalar(text, style, anchor, _) => {
                let at = self.span(span);
                self.check_depth(at.start);
                let plain = matches!(style, ScalarStyle::Plain);
                let kind = if plain && matches!(text.as_ref(), "" | "~" | "null" | "Null" | "NULL")
                {
                    Kind::Null
                } else {
                    Kind::Scalar {
                        // (A copy of exactly its length: the scanner's own has room to spare.)
                        text: text.as_ref().to_owned(),
                        quoted: !plain,
                    }
                };
                let node = Node { kind, span: at };
                self.insert(node, anchor, span.start)?;
            }
            Event::Alias(id) => {
                let mut node = self.alias(id, span.start)?;
                node.span = self.span(span);
                self.check_depth(node.span.start);
                self.insert(node, 0, span.start)?;
            }
            Event::DocumentEnd if self.open.is_empty() && self.document.is_none() => {
                // An empty document.
                self.document = Some(Node {
                    kind: Kind::Null,
                    span: self.span(span),
                });
            }
            _ => {}
        }
        Ok(())
    }
}

impl<'input> SpannedEventReceiver<'input> for Builder<'_> {
    fn on_event(&mut self, event: Event<'input>, span: saphyr_parser::Span) {
        // After a refusal the state is not to be trusted: the rest is
        // ignored and the first refusal reported.
        if self.error.is_some() {
            return;
        }
        if let Err(refusal) = self.on(event, span) {
            self.error = Some(refusal);
        }
    }
}

/// Whether `key` is a key of `entries` already. Keys are equal when their
/// content is (spans aside); a long mapping compares hashes first.
fn is_duplicate(
    entries: &[(Node, Node)],
    hashes: &mut Option<foldhash::HashSet<u64>>,
    key: &Node,
) -> bool {
    let same = |k: &Node| same_content(k, key);
    if entries.len() < SHORT_MAP {
        return entries.iter().any(|(k, _)| same(k));
    }
    let set = hashes.get_or_insert_with(|| entries.iter().map(|(k, _)| hash_of(k)).collect());
    if set.insert(hash_of(key)) {
        return false;
    }
    // The same hash: compare for real (rare).
    entries.iter().any(|(k, _)| same(k))
}

/// Whether two nodes hold the same content, wherever they are.
fn same_content(a: &Node, b: &Node) -> bool {
    match (&a.kind, &b.kind) {
        (Kind::Null, Kind::Null) => true,
        (Kind::Scalar { text: x, .. }, Kind::Scalar { text: y, .. }) => {
            x == y && is_string(a) == is_string(b)
        }
        (Kind::Seq(x), Kind::Seq(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(a, b)| same_content(a, b))
        }
        (Kind::Map(x), Kind::Map(y)) => {
            x.len() == y.len()
                && x.iter()
                    .zip(y)
                    .all(|((ka, va), (kb, vb))| same_content(ka, kb) && same_content(va, vb))
        }
        _ => false,
    }
}

/// Whether a scalar is a string in YAML 1.2's core schema: quoted, or
/// plain and no null, boolean, integer or float. (So `'a'`, `"a"` and `a`
/// are the same key, and `1` and `'1'` are not.)
fn is_string(n: &Node) -> bool {
    let Kind::Scalar { text, quoted } = &n.kind else {
        return false;
    };
    if *quoted {
        return true;
    }
    let t = text.as_str();
    let digits = |s: &str, radix: u32| !s.is_empty() && s.chars().all(|c| c.is_digit(radix));
    let unsigned = t.strip_prefix(['-', '+']).unwrap_or(t);
    let float = {
        let (mantissa, exponent) = match unsigned.find(['e', 'E']) {
            Some(k) => (&unsigned[..k], Some(&unsigned[k + 1..])),
            None => (unsigned, None),
        };
        let (whole, fraction) = mantissa.split_once('.').unwrap_or((mantissa, ""));
        let mantissa_ok = (digits(whole, 10) && (fraction.is_empty() || digits(fraction, 10)))
            || (whole.is_empty() && digits(fraction, 10));
        let exponent_ok =
            exponent.is_none_or(|e| digits(e.strip_prefix(['-', '+']).unwrap_or(e), 10));
        mantissa_ok && exponent_ok
    };
    let special =
        matches!(unsigned, ".inf" | ".Inf" | ".INF") || matches!(t, ".nan" | ".NaN" | ".NAN");
    let other = matches!(t, "true" | "True" | "TRUE" | "false" | "False" | "FALSE")
        || t.strip_prefix("0o").is_some_and(|o| digits(o, 8))
        || t.strip_prefix("0x").is_some_and(|x| digits(x, 16));
    !(float || special || other)
}

/// A hash of a node's content ([`same_content`] nodes hash alike).
fn hash_of(n: &Node) -> u64 {
    use std::hash::{Hash, Hasher};
    fn feed(n: &Node, h: &mut std::collections::hash_map::DefaultHasher) {
        match &n.kind {
            Kind::Null => 0u8.hash(h),
            Kind::Scalar { text, .. } => {
                1u8.hash(h);
                text.hash(h);
                is_string(n).hash(h);
            }
            Kind::Seq(items) => {
                2u8.hash(h);
                items.len().hash(h);
                items.iter().for_each(|i| feed(i, h));
            }
            Kind::Map(entries) => {
                3u8.hash(h);
                entries.len().hash(h);
                for (k, v) in entries {
                    feed(k, h);
                    feed(v, h);
                }
            }
        }
    }
    let mut h = std::collections::hash_map::DefaultHasher::new();
    feed(n, &mut h);
    h.finish()
}

/// Whether the nodes of `n` fit in `budget` (taken from it if they do);
/// stops counting as soon as they do not.
fn within(n: &Node, budget: &mut usize) -> bool {
    if *budget == 0 {
        return false;
    }
    *budget -= 1;
    match &n.kind {
        Kind::Seq(items) => items.iter().all(|i| within(i, budget)),
        Kind::Map(entries) => entries
            .iter()
            .all(|(k, v)| within(k, budget) && within(v, budget)),
        _ => true,
    }
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
        // The same string however it is written; not an integer and a string.
        assert_eq!(p("a: 1\n'a': 2\n").unwrap_err().code, codes::YAML_DUPLICATE);
        assert_eq!(
            p("'a': 1\n\"a\": 2\n").unwrap_err().code,
            codes::YAML_DUPLICATE
        );
        assert!(p("1: a\n'1': b\n").is_ok());
        assert!(p("true: a\n'true': b\n1.5e3: c\n'1.5e3': d\n").is_ok());
        // In a long mapping too, and where the key is.
        let long: String = (0..20).map(|i| format!("k{i}: x\n")).collect();
        let e = p(&format!("{long}k7: y\n")).unwrap_err();
        assert_eq!(e.code, codes::YAML_DUPLICATE);
        assert_eq!(e.message, "`k7` appears twice in the same YAML map");
        let bomb = "a: &a [x, x, x, x, x, x, x, x, x, x]\nb: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a, *a]\nc: &c [*b, *b, *b, *b, *b, *b, *b, *b, *b, *b]\nd: &d [*c, *c, *c, *c, *c, *c, *c, *c, *c, *c]\ne: [*d, *d, *d, *d, *d, *d, *d, *d, *d, *d]\n";
        assert_eq!(p(bomb).unwrap_err().code, codes::YAML_LIMIT);
    }
}
