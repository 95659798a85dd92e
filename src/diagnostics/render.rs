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
//! Plain text only: output is the same on a terminal and in a test.

use std::fmt::Write;

use super::{Diagnostic, Diagnostics, SourceMap};

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
}
