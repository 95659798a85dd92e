//! Escaping by runs: the characters that need no escape are copied a run
//! at a time, and each one that does is replaced by its escape. Plans are
//! mostly such runs, and a push per character was a noticeable share of
//! writing them.
//!
//! The XML escapes of both backends (and of the templates' `xml` filter)
//! are here, so that each kind of text is escaped one way.
//!
//! In: the text (and, for [`push_escaped`], what each byte that needs
//! escaping becomes). Out: the escaped text, appended.

/// Append `s` as XML text content: `&`, `<` and `>` escaped, quotes left
/// alone (scripts and expressions stay readable).
pub(crate) fn push_xml_text(out: &mut String, s: &str) {
    // Three bytes to look for: memchr finds them faster than a byte loop.
    let mut last = 0;
    for i in memchr::memchr3_iter(b'&', b'<', b'>', s.as_bytes()) {
        out.push_str(&s[last..i]);
        out.push_str(match s.as_bytes()[i] {
            b'&' => "&amp;",
            b'<' => "&lt;",
            _ => "&gt;",
        });
        last = i + 1;
    }
    out.push_str(&s[last..]);
}

/// Append `s` as an XML attribute value (or text): `&`, `<`, `>` and both
/// quotes escaped.
pub(crate) fn push_xml_attr(out: &mut String, s: &str) {
    // Most values have nothing to escape: a table look per byte finds
    // that, and the replacement is only chosen for the few that do.
    let mut last = 0;
    for (i, &b) in s.as_bytes().iter().enumerate() {
        if !ATTR_SPECIAL[usize::from(b)] {
            continue;
        }
        out.push_str(&s[last..i]);
        out.push_str(match b {
            b'&' => "&amp;",
            b'<' => "&lt;",
            b'>' => "&gt;",
            b'"' => "&quot;",
            b'\'' => "&apos;",
            // A parser turns these into spaces where they are written as they are.
            b'\n' => "&#10;",
            b'\r' => "&#13;",
            _ => "&#9;",
        });
        last = i + 1;
    }
    out.push_str(&s[last..]);
}

/// The bytes [`push_xml_attr`] escapes.
const ATTR_SPECIAL: [bool; 256] = {
    let mut table = [false; 256];
    let special = b"&<>\"'\n\r\t";
    let mut k = 0;
    while k < special.len() {
        table[special[k] as usize] = true;
        k += 1;
    }
    table
};

/// Append `s` to `out` with every byte for which `escape` gives a
/// replacement replaced by it. Only ASCII bytes may be escaped, so that
/// runs are cut at character boundaries.
pub(crate) fn push_escaped(out: &mut String, s: &str, escape: impl Fn(u8) -> Option<&'static str>) {
    let mut last = 0;
    for (i, b) in s.bytes().enumerate() {
        if let Some(rep) = escape(b) {
            out.push_str(&s[last..i]);
            out.push_str(rep);
            last = i + 1;
        }
    }
    out.push_str(&s[last..]);
}

/// Escape text for XML content and attributes.
pub(crate) fn xml_escape(s: &str) -> std::borrow::Cow<'_, str> {
    // Most names and values need no escaping: no copy then.
    if !s.bytes().any(|b| ATTR_SPECIAL[usize::from(b)]) {
        return std::borrow::Cow::Borrowed(s);
    }
    let mut out = String::with_capacity(s.len() + 8);
    push_xml_attr(&mut out, s);
    std::borrow::Cow::Owned(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn replaces_only_what_the_table_names() {
        let mut out = String::from(">");
        push_escaped(&mut out, "a<é>&b", |b| (b == b'<').then_some("&lt;"));
        assert_eq!(out, ">a&lt;é>&b");
    }

    #[test]
    fn xml_text_keeps_quotes_and_attributes_escape_them() {
        let mut s = String::new();
        push_xml_text(&mut s, "a < b && 'c'");
        assert_eq!(s, "a &lt; b &amp;&amp; 'c'");
        s.clear();
        push_xml_attr(&mut s, "\"x\" & 'y'");
        assert_eq!(s, "&quot;x&quot; &amp; &apos;y&apos;");
        s.clear();
        push_xml_attr(&mut s, "<é>");
        assert_eq!(s, "&lt;é&gt;");
        s.clear();
        push_xml_attr(&mut s, "a\tb\r\nc");
        assert_eq!(s, "a&#9;b&#13;&#10;c");
        // A line break is escaped even where nothing else is.
        assert_eq!(xml_escape("a\nb"), "a&#10;b");
        assert!(matches!(xml_escape("a b"), std::borrow::Cow::Borrowed(_)));
    }
}
