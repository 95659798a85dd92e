//! Escaping by runs: the characters that need no escape are copied a run
//! at a time, and each one that does is replaced by its escape. Plans are
//! mostly such runs, and a push per character was a noticeable share of
//! writing them.
//!
//! In: the text and what each byte that needs escaping becomes. Out: the
//! escaped text, appended.

/// Append `s` to `out` with every byte for which `escape` gives a
/// replacement replaced by it. Only ASCII bytes may be escaped, so that
/// runs are cut at character boundaries.
pub fn push_escaped(out: &mut String, s: &str, escape: impl Fn(u8) -> Option<&'static str>) {
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn replaces_only_what_the_table_names() {
        let mut out = String::from(">");
        push_escaped(&mut out, "a<é>&b", |b| (b == b'<').then_some("&lt;"));
        assert_eq!(out, ">a&lt;é>&b");
    }
}
