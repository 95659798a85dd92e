//! A small read-only element tree over quick-xml events, with resolved
//! namespaces and byte spans. TOSCA XML needs random access (relationships
//! may come before the nodes they name, QName attribute values must be
//! resolved with the bindings in scope at their element), which an event
//! stream does not give.
//!
//! Refused on purpose: DOCTYPE declarations (and with them every entity
//! trick), references to entities other than the five predefined ones, and
//! nesting deeper than the configured limit.

use std::sync::Arc;

use quick_xml::XmlVersion;
use quick_xml::events::{BytesStart, Event};

use crate::diagnostics::{Diagnostic, SourceFile, Span, codes};

/// Index of an element in [`Document::elements`].
pub(crate) type ElemId = usize;

/// The namespace bound to the `xml` prefix.
const XML_NS: &str = "http://www.w3.org/XML/1998/namespace";

/// One attribute.
#[derive(Clone, Debug)]
pub(crate) struct Attr {
    /// Namespace of a prefixed attribute; unprefixed attributes have none.
    pub ns: Option<Arc<str>>,
    /// Local name.
    pub local: Arc<str>,
    /// Value with references resolved and whitespace normalised.
    pub value: String,
    /// Span of `name="value"` in the source.
    pub span: Span,
}

/// One element.
#[derive(Clone, Debug)]
pub(crate) struct Element {
    /// Namespace of the element name.
    pub ns: Option<Arc<str>>,
    /// Local name.
    pub local: Arc<str>,
    /// Attributes in document order (namespace declarations excluded).
    pub attrs: Vec<Attr>,
    /// Child elements in document order.
    pub children: Vec<ElemId>,
    /// The parent, `None` for the root.
    pub parent: Option<ElemId>,
    /// Namespace declarations made on this element (`None` prefix = default).
    pub ns_decls: Vec<(Option<String>, String)>,
    /// Text directly inside the element (not in children), unescaped.
    pub text: String,
    /// From `<` of the start tag to `>` of the end tag.
    pub span: Span,
    /// The start tag alone.
    pub start_tag: Span,
}

impl Element {
    /// A copy without its children (for an outline, [`super::outline`],
    /// which keeps a topology template but none of its templates).
    pub(crate) fn clone_without_children(&self) -> Element {
        Element {
            ns: self.ns.clone(),
            local: self.local.clone(),
            attrs: self.attrs.clone(),
            children: Vec::new(),
            parent: self.parent,
            ns_decls: self.ns_decls.clone(),
            text: self.text.clone(),
            span: self.span,
            start_tag: self.start_tag,
        }
    }
}

/// A parsed XML document.
#[derive(Clone, Debug)]
pub(crate) struct Document {
    /// All elements; index 0 is the root.
    pub elements: Vec<Element>,
    /// The source text.
    pub source: Arc<SourceFile>,
}

/// The result of resolving a QName-valued attribute.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct ResolvedQName {
    /// Namespace URI (empty when there is none).
    pub ns: String,
    /// Local part.
    pub local: String,
    /// The value had no prefix (it took the default namespace).
    pub unprefixed: bool,
}

impl Document {
    /// Parse `source`, refusing DOCTYPEs and nesting beyond `max_depth`.
    pub(crate) fn parse(source: Arc<SourceFile>, max_depth: usize) -> Result<Document, Diagnostic> {
        // Every element starts with `<` not followed by `/`: reserving for
        // that many (comments and processing instructions add a few) spares
        // the copies, and the doubled peak, of a vector grown element by
        // element, which on a large document is most of its memory.
        let text = source.text().as_bytes();
        let tags = memchr::memchr_iter(b'<', text).count();
        let end_tags = memchr::memmem::find_iter(text, b"</").count();
        Parser {
            source: source.clone(),
            elements: Vec::with_capacity(tags.saturating_sub(end_tags)),
            stack: Vec::new(),
            ns_stack: Vec::new(),
            interned: Default::default(),
            max_depth,
        }
        .run()
        .map(|elements| Document { elements, source })
    }

    /// The root element.
    pub(crate) fn root(&self) -> &Element {
        &self.elements[0]
    }

    /// An element by id.
    pub(crate) fn get(&self, id: ElemId) -> &Element {
        &self.elements[id]
    }

    /// Child elements of `id` with the given namespace and local name.
    pub(crate) fn children<'a>(
        &'a self,
        id: ElemId,
        ns: &'a str,
        local: &'a str,
    ) -> impl Iterator<Item = ElemId> + 'a {
        self.elements[id]
            .children
            .iter()
            .copied()
            .filter(move |&c| {
                let e = &self.elements[c];
                &*e.local == local && e.ns.as_deref() == Some(ns)
            })
    }

    /// The first child with that name.
    pub(crate) fn child(&self, id: ElemId, ns: &str, local: &str) -> Option<ElemId> {
        self.children(id, ns, local).next()
    }

    /// An unprefixed attribute's value.
    pub(crate) fn attr(&self, id: ElemId, local: &str) -> Option<&str> {
        self.attr_full(id, local).map(|a| a.value.as_str())
    }

    /// An unprefixed attribute.
    pub(crate) fn attr_full(&self, id: ElemId, local: &str) -> Option<&Attr> {
        self.elements[id]
            .attrs
            .iter()
            .find(|a| a.ns.is_none() && &*a.local == local)
    }

    /// The namespace bound to `prefix` (`None` = default) at element `id`.
    pub(crate) fn lookup_ns(&self, id: ElemId, prefix: Option<&str>) -> Option<&str> {
        if prefix == Some("xml") {
            return Some(XML_NS);
        }
        let mut cur = Some(id);
        while let Some(i) = cur {
            let e = &self.elements[i];
            if let Some((_, uri)) = e.ns_decls.iter().find(|(p, _)| p.as_deref() == prefix) {
                return Some(uri.as_str());
            }
            cur = e.parent;
        }
        None
    }

    /// Resolve a QName written in an attribute value of element `id`.
    /// `Err(prefix)` when the prefix is not declared.
    pub(crate) fn resolve_qname(&self, id: ElemId, value: &str) -> Result<ResolvedQName, String> {
        let value = value.trim();
        match value.split_once(':') {
            Some((prefix, local)) => match self.lookup_ns(id, Some(prefix)) {
                Some(ns) => Ok(ResolvedQName {
                    ns: ns.to_string(),
                    local: local.to_string(),
                    unprefixed: false,
                }),
                None => Err(prefix.to_string()),
            },
            None => Ok(ResolvedQName {
                ns: self.lookup_ns(id, None).unwrap_or("").to_string(),
                local: value.to_string(),
                unprefixed: true,
            }),
        }
    }

    /// The element name as written, with its prefix (`tosca:Plan`).
    pub(crate) fn raw_name(&self, id: ElemId) -> &str {
        let tag =
            &self.source.text()[self.elements[id].start_tag.start..self.elements[id].start_tag.end];
        let name = tag.trim_start_matches('<');
        let end = name
            .find(|c: char| c.is_whitespace() || c == '>' || c == '/')
            .unwrap_or(name.len());
        &name[..end]
    }

    /// The span of `<name` of the start tag: what diagnostics about the
    /// element as a whole point at.
    pub(crate) fn name_span(&self, id: ElemId) -> Span {
        let start = self.elements[id].start_tag.start;
        Span::new(start, start + 1 + self.raw_name(id).len())
    }

    /// The value of an attribute in a namespace.
    pub(crate) fn attr_ns(&self, id: ElemId, ns: &str, local: &str) -> Option<&str> {
        self.elements[id]
            .attrs
            .iter()
            .find(|a| a.ns.as_deref() == Some(ns) && &*a.local == local)
            .map(|a| a.value.as_str())
    }

    /// Concatenated text of the element and all its descendants.
    pub(crate) fn deep_text(&self, id: ElemId) -> String {
        let mut out = self.elements[id].text.clone();
        for &c in &self.elements[id].children {
            out.push_str(&self.deep_text(c));
        }
        out
    }
}

struct Parser {
    source: Arc<SourceFile>,
    elements: Vec<Element>,
    stack: Vec<ElemId>,
    ns_stack: Vec<usize>,
    max_depth: usize,
    interned: foldhash::HashMap<String, Arc<str>>,
}

impl Parser {
    fn error(&self, code: &'static str, message: String, at: usize) -> Diagnostic {
        Diagnostic::error(code, message).at(self.source.location(Span::new(at, at + 1)))
    }

    fn run(mut self) -> Result<Vec<Element>, Diagnostic> {
        let source = self.source.clone();
        let text = source.text();
        let mut reader = quick_xml::Reader::from_str(text);
        reader.config_mut().check_end_names = true;
        loop {
            let before = reader.buffer_position() as usize;
            let event = reader.read_event().map_err(|e| {
                let at = reader.error_position() as usize;
                self.error(
                    codes::XML_SYNTAX,
                    format!("XML is not well-formed: {e}"),
                    at,
                )
            })?;
            let after = reader.buffer_position() as usize;
            match event {
                Event::Start(start) => {
                    let id = self.open(&start, Span::new(before, after))?;
                    self.stack.push(id);
                    if self.stack.len() > self.max_depth {
                        return Err(self
                            .error(
                                codes::XML_TOO_DEEP,
                                format!(
                                    "elements are nested deeper than the limit of {}",
                                    self.max_depth
                                ),
                                before,
                            )
                            .hint("if the input is trusted, raise the limit with --max-depth"));
                    }
                }
                Event::Empty(start) => {
                    let id = self.open(&start, Span::new(before, after))?;
                    self.elements[id].span.end = after;
                    self.ns_stack.pop();
                }
                Event::End(_) => {
                    if let Some(id) = self.stack.pop() {
                        self.elements[id].span.end = after;
                        self.ns_stack.pop();
                    }
                }
                Event::Text(t) => {
                    if let Some(&id) = self.stack.last() {
                        self.elements[id].text.push_str(&t.xml10_content());
                    }
                }
                Event::CData(t) => {
                    if let Some(&id) = self.stack.last() {
                        self.elements[id].text.push_str(&t.into_inner());
                    }
                }
                Event::GeneralRef(r) => {
                    let ch = match r.resolve_char_ref() {
                        Ok(Some(c)) => Some(c),
                        Ok(None) => match &*r {
                            "lt" => Some('<'),
                            "gt" => Some('>'),
                            "amp" => Some('&'),
                            "apos" => Some('\''),
                            "quot" => Some('"'),
                            _ => None,
                        },
                        Err(_) => None,
                    };
                    match ch {
                        Some(c) => {
                            if let Some(&id) = self.stack.last() {
                                self.elements[id].text.push(c);
                            }
                        }
                        None => {
                            return Err(self.error(
                                codes::XML_SYNTAX,
                                format!("reference to undeclared entity `&{};`", &*r),
                                before,
                            ));
                        }
                    }
                }
                Event::DocType(_) => {
                    return Err(self
                        .error(
                            codes::XML_DOCTYPE,
                            "DOCTYPE declarations are not accepted in TOSCA documents".to_string(),
                            before,
                        )
                        .hint("remove the <!DOCTYPE ...> declaration; TOSCA documents need no DTD, and entity definitions are refused"));
                }
                Event::Eof => break,
                Event::Decl(_) | Event::PI(_) | Event::Comment(_) => {}
            }
        }
        if self.elements.is_empty() {
            return Err(self.error(
                codes::XML_SYNTAX,
                "the document has no root element".to_string(),
                0,
            ));
        }
        if let Some(&open) = self.stack.last() {
            let name = self.elements[open].local.clone();
            return Err(self.error(
                codes::XML_SYNTAX,
                format!("element `{name}` is not closed"),
                self.elements[open].span.start,
            ));
        }
        Ok(self.elements)
    }

    fn open(&mut self, start: &BytesStart, tag: Span) -> Result<ElemId, Diagnostic> {
        // Names are borrowed from the start tag, values copied once: a
        // large document has hundreds of thousands of attributes.
        let raw_name = start.name().into_inner();
        let (prefix, local) = split_name(raw_name);
        let mut ns_decls = Vec::new();
        let mut raw_attrs: Vec<(&str, String)> = Vec::new();
        for attr in start.attributes().with_checks(true) {
            let attr = attr.map_err(|e| {
                self.error(
                    codes::XML_SYNTAX,
                    format!("malformed attribute: {e}"),
                    tag.start,
                )
            })?;
            let key = attr.key.into_inner();
            let value = attr
                .normalized_value(XmlVersion::Implicit1_0)
                .map_err(|e| {
                    self.error(
                        codes::XML_SYNTAX,
                        format!("attribute `{key}` has a bad value: {e}"),
                        tag.start,
                    )
                })?
                .into_owned();
            if key == "xmlns" {
                ns_decls.push((None, value));
            } else if let Some(p) = key.strip_prefix("xmlns:") {
                ns_decls.push((Some(p.to_string()), value));
            } else {
                raw_attrs.push((key, value));
            }
        }
        let parent = self.stack.last().copied();
        let id = self.elements.len();
        let local = self.intern(local);
        self.elements.push(Element {
            ns: None,
            local,
            attrs: Vec::new(),
            children: Vec::new(),
            parent,
            ns_decls,
            text: String::new(),
            span: Span::new(tag.start, tag.end),
            start_tag: tag,
        });
        self.ns_stack.push(id);
        if let Some(p) = parent {
            self.elements[p].children.push(id);
        }
        let ns = self.lookup(prefix);
        if prefix.is_some() && ns.is_none() {
            return Err(self.error(
                codes::XML_UNDECLARED_PREFIX,
                format!(
                    "element `{raw_name}` uses the undeclared prefix `{}`",
                    prefix.unwrap_or("")
                ),
                tag.start,
            ));
        }
        let source = self.source.clone();
        let tag_text = &source.text()[tag.start..tag.end];
        let mut attrs = Vec::with_capacity(raw_attrs.len());
        // Attributes come in the order of the tag: each is looked for
        // after the one before.
        let mut from = 0;
        for (key, value) in raw_attrs {
            let (aprefix, alocal) = split_name(key);
            let ans = match aprefix {
                Some(p) => Some(self.lookup(Some(p)).ok_or_else(|| {
                    self.error(
                        codes::XML_UNDECLARED_PREFIX,
                        format!("attribute `{key}` uses the undeclared prefix `{p}`"),
                        tag.start,
                    )
                })?),
                None => None,
            };
            let offset = find_attr(tag_text, key, from).unwrap_or(0);
            from = offset + key.len();
            let span = Span::new(
                tag.start + offset,
                tag.start + offset + key.len() + value.len() + 3,
            );
            let alocal = self.intern(alocal);
            attrs.push(Attr {
                ns: ans,
                local: alocal,
                value,
                span,
            });
        }
        let e = &mut self.elements[id];
        e.ns = ns;
        e.attrs = attrs;
        Ok(id)
    }

    /// One shared copy of each name and namespace: a document of a big
    /// topology repeats a few dozen of them millions of times.
    fn intern(&mut self, s: &str) -> Arc<str> {
        if let Some(a) = self.interned.get(s) {
            return a.clone();
        }
        let a: Arc<str> = Arc::from(s);
        self.interned.insert(s.to_string(), a.clone());
        a
    }

    fn lookup(&mut self, prefix: Option<&str>) -> Option<Arc<str>> {
        if prefix == Some("xml") {
            return Some(self.intern(XML_NS));
        }
        let mut found: Option<&str> = None;
        for &id in self.ns_stack.iter().rev() {
            if let Some((_, uri)) = self.elements[id]
                .ns_decls
                .iter()
                .find(|(p, _)| p.as_deref() == prefix)
            {
                found = Some(uri);
                break;
            }
        }
        let uri = found.filter(|u| !u.is_empty())?;
        if let Some(a) = self.interned.get(uri) {
            return Some(a.clone());
        }
        let a: Arc<str> = Arc::from(uri);
        self.interned.insert(uri.to_string(), a.clone());
        Some(a)
    }
}

fn split_name(name: &str) -> (Option<&str>, &str) {
    match name.split_once(':') {
        Some((p, l)) => (Some(p), l),
        None => (None, name),
    }
}

/// Byte offset of `key=` inside a start tag, at `from` or after.
fn find_attr(tag: &str, key: &str, mut from: usize) -> Option<usize> {
    while let Some(i) = tag[from..].find(key) {
        let at = from + i;
        let before_ok = at > 0 && tag.as_bytes()[at - 1].is_ascii_whitespace();
        let rest = tag[at + key.len()..].trim_start();
        if before_ok && rest.starts_with('=') {
            return Some(at);
        }
        from = at + key.len();
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str) -> Result<Document, Diagnostic> {
        Document::parse(Arc::new(SourceFile::new("t.xml", text)), 64)
    }

    #[test]
    fn resolves_namespaces_and_qname_values() {
        let d =
            parse(r#"<a xmlns="urn:a" xmlns:b="urn:b"><b:c type="b:T" ref="x">t&amp;u</b:c></a>"#)
                .unwrap();
        let c = d.root().children[0];
        assert_eq!(d.get(c).ns.as_deref(), Some("urn:b"));
        assert_eq!(d.get(c).text, "t&u");
        let q = d.resolve_qname(c, d.attr(c, "type").unwrap()).unwrap();
        assert_eq!(
            (q.ns.as_str(), q.local.as_ref(), q.unprefixed),
            ("urn:b", "T", false)
        );
        let q = d.resolve_qname(c, "Y").unwrap();
        assert_eq!((q.ns.as_str(), q.unprefixed), ("urn:a", true));
        assert_eq!(d.resolve_qname(c, "zz:Y"), Err("zz".to_string()));
    }

    #[test]
    fn refuses_doctype_and_entities() {
        let e = parse("<!DOCTYPE a [<!ENTITY x \"y\">]><a>&x;</a>").unwrap_err();
        assert_eq!(e.code, codes::XML_DOCTYPE);
        let e = parse("<a>&x;</a>").unwrap_err();
        assert_eq!(e.code, codes::XML_SYNTAX);
    }

    #[test]
    fn refuses_deep_nesting() {
        let text = "<a>".repeat(100) + &"</a>".repeat(100);
        assert_eq!(parse(&text).unwrap_err().code, codes::XML_TOO_DEEP);
    }
}
