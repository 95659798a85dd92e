//! Text rendering of diagnostics, in the style of rustc:
//!
//! ```text
//! error[E0402]: relationship `con_1` has source `Foo`, which is not a node template, requirement or capability
//!   --> Definitions/app.tosca:12:17
//!    |
//! 12 |                 <SourceElement ref="Foo"/>
//!    |                 ^^^^^^^^^^^^^^^^^^^^^^^^^^
//!    = hint: ...
//! ```
//!
//! Plain text only: output is the same on a terminal and in a test. For
//! people, [`render_grouped`] reports the same warning on many templates
//! once (`--verbose` uses [`render_all`]); for editors and CI,
//! [`json_line`] gives each diagnostic as one JSON object.

use std::fmt::Write;

use super::{Diagnostic, Diagnostics, Severity, SourceMap, group};

/// Render one diagnostic, with a source snippet when the file is known.
pub fn render(diagnostic: &Diagnostic, sources: &SourceMap) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "{}[{}]: {}",
        diagnostic.severity, diagnostic.code, diagnostic.message
    );
    let mut gutter = 1;
    if let Some(loc) = &diagnostic.location {
        let snippet = (loc.line > 0)
            .then(|| sources.get(&loc.file).and_then(|f| f.line(loc.line)))
            .flatten();
        gutter = if snippet.is_some() {
            loc.line.to_string().len()
        } else {
            1
        };
        let pad = " ".repeat(gutter);
        let _ = writeln!(out, "{pad}--> {loc}");
        if let Some(line) = snippet {
            let (shown, caret_col, caret_len) = expand_tabs(line, loc.column, loc.length);
            let (shown, caret_col, caret_len) = window(&shown, caret_col, caret_len);
            let _ = writeln!(out, "{pad} |");
            let _ = writeln!(out, "{} | {}", loc.line, shown.trim_end());
            let _ = writeln!(
                out,
                "{pad} | {}{}",
                " ".repeat(caret_col),
                "^".repeat(caret_len.max(1))
            );
        }
    }
    let pad = " ".repeat(gutter);
    for note in &diagnostic.notes {
        let _ = writeln!(out, "{pad} = note: {note}");
    }
    if let Some(hint) = &diagnostic.hint {
        let _ = writeln!(out, "{pad} = hint: {hint}");
    }
    out
}

/// Render all diagnostics followed by a summary line
/// (`2 errors, 1 warning`), or nothing when there are none.
pub fn render_all(diagnostics: &Diagnostics, sources: &SourceMap) -> String {
    let mut out = String::new();
    for d in diagnostics.iter() {
        out.push_str(&render(d, sources));
        out.push('\n');
    }
    if !diagnostics.is_empty() {
        out.push_str(&summary(diagnostics));
        out.push('\n');
    }
    out
}

/// The fewest members of a group of the same warning ([`group`]) that
/// are reported once: up to three are still read one by one.
pub const GROUPED_FROM: usize = 4;

/// How many of the other names a grouped warning lists.
const NAMES_SHOWN: usize = 5;

/// Like [`render_all`], but the same warning on [`GROUPED_FROM`] or more
/// templates is rendered once, where it first occurs, with a note giving
/// the count and the first names of the others. The summary line still
/// counts every diagnostic.
pub fn render_grouped(diagnostics: &Diagnostics, sources: &SourceMap) -> String {
    let all: Vec<&Diagnostic> = diagnostics.iter().collect();
    // For each diagnostic: the group it heads, or whether it is left out.
    let mut heads: Vec<Option<group::Group>> = vec![None; all.len()];
    let mut hidden = vec![false; all.len()];
    for g in group::groups(&all) {
        if g.members.len() >= GROUPED_FROM {
            g.members[1..].iter().for_each(|&i| hidden[i] = true);
            let first = g.members[0];
            heads[first] = Some(g);
        }
    }
    let mut out = String::new();
    for (i, d) in all.iter().enumerate() {
        match &heads[i] {
            _ if hidden[i] => continue,
            Some(g) => out.push_str(&render(&with_others(d, g), sources)),
            None => out.push_str(&render(d, sources)),
        }
        out.push('\n');
    }
    if !diagnostics.is_empty() {
        out.push_str(&summary(diagnostics));
        out.push('\n');
    }
    out
}

/// The first diagnostic of a group, with a note on the others.
fn with_others(first: &Diagnostic, g: &group::Group) -> Diagnostic {
    let others = &g.names[1..];
    let mut names: Vec<String> = others
        .iter()
        .take(NAMES_SHOWN)
        .map(|n| format!("`{n}`"))
        .collect();
    if others.len() > NAMES_SHOWN {
        names.push("…".into());
    }
    first.clone().note(format!(
        "the same for {} more: {} (--verbose lists every one)",
        others.len(),
        names.join(", ")
    ))
}

/// `N errors, M warnings` with correct plurals; empty parts left out.
pub fn summary(diagnostics: &Diagnostics) -> String {
    let plural = |n: usize, word: &str| format!("{n} {word}{}", if n == 1 { "" } else { "s" });
    let mut parts = Vec::new();
    if diagnostics.error_count() > 0 {
        parts.push(plural(diagnostics.error_count(), "error"));
    }
    if diagnostics.warning_count() > 0 {
        parts.push(plural(diagnostics.warning_count(), "warning"));
    }
    parts.join(", ")
}

/// A diagnostic as data (`--message-format json`): the keys every
/// consumer can rely on, `null` where unknown (a diagnostic without a
/// file, or one that names a file but no line).
#[derive(serde::Serialize)]
struct JsonLine<'a> {
    code: Option<&'a str>,
    severity: Severity,
    message: &'a str,
    file: Option<&'a str>,
    line: Option<u32>,
    column: Option<u32>,
    hint: Option<&'a str>,
}

impl JsonLine<'_> {
    fn to_line(&self) -> String {
        let mut line = serde_json::to_string(self).expect("strings and numbers serialise");
        line.push('\n');
        line
    }
}

/// One diagnostic as one line of JSON: `{"code", "severity", "message",
/// "file", "line", "column", "hint"}`, ended by a newline.
pub fn json_line(diagnostic: &Diagnostic) -> String {
    let location = diagnostic.location.as_ref();
    // Line and column 0 stand for "the file, no position".
    let known = |n: u32| (n > 0).then_some(n);
    JsonLine {
        code: Some(diagnostic.code),
        severity: diagnostic.severity,
        message: &diagnostic.message,
        file: location.map(|l| l.file.as_str()),
        line: location.and_then(|l| known(l.line)),
        column: location.and_then(|l| known(l.column)),
        hint: diagnostic.hint.as_deref(),
    }
    .to_line()
}

/// Every diagnostic as a JSON line, in order; no summary.
pub fn json_lines(diagnostics: &Diagnostics) -> String {
    diagnostics.iter().map(json_line).collect()
}

/// A failure that is not a problem in the input (I/O, usage) in the same
/// shape, so that a consumer reads every line alike: no code, no place.
pub fn json_failure(message: &str) -> String {
    JsonLine {
        code: None,
        severity: Severity::Error,
        message,
        file: None,
        line: None,
        column: None,
        hint: None,
    }
    .to_line()
}

/// Longest snippet line shown; longer lines (minified XML, generated
/// files) are cut around the caret.
const MAX_SHOWN: usize = 160;

/// Cut `shown` to at most [`MAX_SHOWN`] characters around the caret, with
/// `…` where text is left out, and move the caret accordingly.
fn window(shown: &str, caret_col: usize, caret_len: usize) -> (String, usize, usize) {
    let chars: Vec<char> = shown.chars().collect();
    if chars.len() <= MAX_SHOWN {
        return (shown.to_string(), caret_col, caret_len);
    }
    let start = caret_col
        .saturating_sub(MAX_SHOWN / 3)
        .min(chars.len() - MAX_SHOWN);
    let end = start + MAX_SHOWN;
    let mut out = String::new();
    let mut col = caret_col - start;
    if start > 0 {
        out.push('…');
        col += 1;
    }
    out.extend(&chars[start..end]);
    if end < chars.len() {
        out.push('…');
    }
    let len = caret_len.min(end.saturating_sub(caret_col)).max(1);
    (out, col, len)
}

/// Replace tabs by four spaces and move the caret accordingly.
fn expand_tabs(line: &str, column: u32, length: u32) -> (String, usize, usize) {
    let mut shown = String::new();
    let mut caret_col = 0;
    let mut caret_end = 0;
    let start = column.saturating_sub(1) as usize;
    let end = start + length as usize;
    for (i, c) in line.chars().enumerate() {
        if i == start {
            caret_col = shown.chars().count();
        }
        if i == end {
            caret_end = shown.chars().count();
        }
        if c == '\t' {
            shown.push_str("    ");
        } else {
            shown.push(c);
        }
    }
    let total = shown.chars().count();
    if start >= line.chars().count() {
        caret_col = total;
    }
    if end >= line.chars().count() {
        caret_end = total;
    }
    (shown, caret_col, caret_end.saturating_sub(caret_col))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::diagnostics::{Diagnostic, SourceFile, Span};

    #[test]
    fn renders_snippet_with_caret_under_the_span() {
        let mut sources = SourceMap::new();
        let f = sources.add(SourceFile::new("a.tosca", "<a>\n\t<b ref=\"x\"/>\n</a>\n"));
        let start = f.text().find("<b").unwrap();
        let d = Diagnostic::error("E0000", "bad `b`")
            .at(f.location(Span::new(start, start + 2)))
            .hint("fix it");
        assert_eq!(
            render(&d, &sources),
            "error[E0000]: bad `b`\n --> a.tosca:2:2\n  |\n2 |     <b ref=\"x\"/>\n  |     ^^\n  = hint: fix it\n"
        );
    }

    #[test]
    fn the_same_warning_on_many_templates_is_rendered_once() {
        let sources = SourceMap::new();
        let mut diags = Diagnostics::new();
        let same = |n: usize| Diagnostic::warning("W0313", format!("node `vm_{n}` is delegated"));
        diags.push(Diagnostic::warning("W0312", "artifact `a.sh` is missing"));
        for n in 0..8 {
            diags.push(same(n));
        }
        assert_eq!(
            render_grouped(&diags, &sources),
            "warning[W0312]: artifact `a.sh` is missing\n\nwarning[W0313]: node `vm_0` is delegated\n  = note: the same for 7 more: `vm_1`, `vm_2`, `vm_3`, `vm_4`, `vm_5`, … (--verbose lists every one)\n\n9 warnings\n"
        );
        // Three are still shown one by one.
        let mut few = Diagnostics::new();
        (0..3).for_each(|n| few.push(same(n)));
        assert_eq!(render_grouped(&few, &sources), render_all(&few, &sources));
    }

    #[test]
    fn long_lines_are_cut_around_the_caret() {
        let line = format!("{}<bad/>{}", "a".repeat(200), "z".repeat(200));
        let (shown, col, len) = window(&line, 200, 6);
        assert_eq!(shown.chars().count(), MAX_SHOWN + 2);
        assert!(shown.starts_with('…') && shown.ends_with('…'));
        assert_eq!(
            shown.chars().skip(col).take(len).collect::<String>(),
            "<bad/>"
        );
        // At the start of the line nothing is cut before it.
        let (shown, col, _) = window(&line, 0, 1);
        assert!(!shown.starts_with('…') && col == 0);
        // At the very end the window ends with the line.
        let (shown, col, len) = window(&line, 405, 1);
        assert!(!shown.ends_with('…'));
        assert_eq!(shown.chars().nth(col), Some('z'));
        assert_eq!(len, 1);
    }

    #[test]
    fn json_lines_have_every_key_and_null_where_unknown() {
        let mut sources = SourceMap::new();
        let f = sources.add(SourceFile::new("a.tosca", "<a>\n  <b/>\n</a>\n"));
        let start = f.text().find("<b").unwrap();
        let placed = Diagnostic::error("E0000", "bad \"b\"")
            .at(f.location(Span::new(start, start + 2)))
            .hint("fix it")
            .note("notes stay in the text form");
        assert_eq!(
            json_line(&placed),
            "{\"code\":\"E0000\",\"severity\":\"error\",\"message\":\"bad \\\"b\\\"\",\"file\":\"a.tosca\",\"line\":2,\"column\":3,\"hint\":\"fix it\"}\n"
        );
        let file_only =
            Diagnostic::warning("W0000", "odd").at(crate::diagnostics::Location::file("a.tosca"));
        assert_eq!(
            json_line(&file_only),
            "{\"code\":\"W0000\",\"severity\":\"warning\",\"message\":\"odd\",\"file\":\"a.tosca\",\"line\":null,\"column\":null,\"hint\":null}\n"
        );
        assert_eq!(
            json_failure("cannot open `x`"),
            "{\"code\":null,\"severity\":\"error\",\"message\":\"cannot open `x`\",\"file\":null,\"line\":null,\"column\":null,\"hint\":null}\n"
        );
    }
}
