//! A small namespace-aware element tree over quick-xml, for reading the
//! generated plans in tests (the library's own DOM is internal to it).
//! Element 0 is the root element; text is each element's own text, with
//! character and the five predefined entity references resolved.

use quick_xml::events::Event;
use quick_xml::name::ResolveResult;
use quick_xml::reader::NsReader;

pub type ElemId = usize;

#[derive(Clone, Debug, Default)]
pub struct Element {
    pub ns: Option<String>,
    pub local: String,
    /// (namespace of a prefixed attribute, local name, value)
    pub attrs: Vec<(Option<String>, String, String)>,
    pub children: Vec<ElemId>,
    pub parent: Option<ElemId>,
    pub text: String,
    /// Byte range of the whole element in the source.
    start: usize,
    end: usize,
}

pub struct Document {
    source: String,
    elements: Vec<Element>,
}

impl Document {
    pub fn parse(text: &str) -> Result<Document, String> {
        let mut reader = NsReader::from_str(text);
        let mut doc = Document {
            source: text.to_string(),
            elements: Vec::new(),
        };
        let mut stack: Vec<ElemId> = Vec::new();
        loop {
            let before = reader.buffer_position() as usize;
            let event = reader.read_event().map_err(|e| e.to_string())?;
            let after = reader.buffer_position() as usize;
            match event {
                Event::Start(ref e) | Event::Empty(ref e) => {
                    let (ns, local) = reader.resolver().resolve_element(e.name());
                    let mut el = Element {
                        ns: namespace(ns),
                        local: local.as_ref().to_string(),
                        start: before,
                        end: after,
                        ..Element::default()
                    };
                    for a in e.attributes() {
                        let a = a.map_err(|e| e.to_string())?;
                        let (ns, local) = reader.resolver().resolve_attribute(a.key);
                        let value = a
                            .normalized_value(quick_xml::XmlVersion::Implicit1_0)
                            .map_err(|e| e.to_string())?;
                        let local = local.as_ref().to_string();
                        el.attrs.push((namespace(ns), local, value.into_owned()));
                    }
                    let id = doc.elements.len();
                    el.parent = stack.last().copied();
                    if let Some(&p) = stack.last() {
                        doc.elements[p].children.push(id);
                    }
                    doc.elements.push(el);
                    if matches!(event, Event::Start(_)) {
                        stack.push(id);
                    }
                }
                Event::End(_) => {
                    let id = stack.pop().ok_or("unbalanced end tag")?;
                    doc.elements[id].end = after;
                }
                Event::Text(t) => {
                    if let Some(&id) = stack.last() {
                        doc.elements[id].text.push_str(&t.xml10_content());
                    }
                }
                Event::CData(t) => {
                    if let Some(&id) = stack.last() {
                        doc.elements[id].text.push_str(&t);
                    }
                }
                Event::GeneralRef(r) => {
                    let c = match r.resolve_char_ref().map_err(|e| e.to_string())? {
                        Some(c) => c,
                        None => match &*r {
                            "lt" => '<',
                            "gt" => '>',
                            "amp" => '&',
                            "quot" => '"',
                            "apos" => '\'',
                            other => return Err(format!("unknown entity {other:?}")),
                        },
                    };
                    if let Some(&id) = stack.last() {
                        doc.elements[id].text.push(c);
                    }
                }
                Event::Eof => break,
                _ => {}
            }
        }
        if doc.elements.is_empty() || !stack.is_empty() {
            return Err("no root element, or one left open".into());
        }
        Ok(doc)
    }

    pub fn get(&self, id: ElemId) -> &Element {
        &self.elements[id]
    }

    /// An unprefixed attribute's value.
    pub fn attr(&self, id: ElemId, local: &str) -> Option<&str> {
        self.find_attr(id, None, local)
    }

    /// A prefixed attribute's value.
    pub fn attr_ns(&self, id: ElemId, ns: &str, local: &str) -> Option<&str> {
        self.find_attr(id, Some(ns), local)
    }

    fn find_attr(&self, id: ElemId, ns: Option<&str>, local: &str) -> Option<&str> {
        self.elements[id]
            .attrs
            .iter()
            .find(|(n, l, _)| n.as_deref() == ns && l == local)
            .map(|(_, _, v)| v.as_str())
    }

    /// Child elements of `id` with the given namespace and local name.
    pub fn children<'a>(
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
                e.local == local && e.ns.as_deref() == Some(ns)
            })
    }

    pub fn child(&self, id: ElemId, ns: &str, local: &str) -> Option<ElemId> {
        self.children(id, ns, local).next()
    }

    /// The source text of a whole element.
    pub fn text_of(&self, id: ElemId) -> &str {
        let e = &self.elements[id];
        &self.source[e.start..e.end]
    }
}

fn namespace(r: ResolveResult) -> Option<String> {
    match r {
        ResolveResult::Bound(ns) => Some(ns.as_ref().to_string()),
        _ => None,
    }
}
