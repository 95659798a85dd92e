//! Source texts of the files read from a CSAR, with line indexes so that
//! byte spans can be turned into line and column.

use foldhash::HashMap;
use std::sync::Arc;

use super::Location;

/// A byte range in one source file.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Span {
    /// First byte.
    pub start: usize,
    /// One past the last byte.
    pub end: usize,
}

impl Span {
    /// A span from `start` to `end`.
    pub fn new(start: usize, end: usize) -> Self {
        Span { start, end }
    }
}

/// One text file and the byte offsets where its lines start.
#[derive(Debug)]
pub struct SourceFile {
    name: String,
    /// Shared with the archive entry it was read from: a large Definitions
    /// document is not held twice.
    text: Arc<str>,
    line_starts: Vec<usize>,
}

impl SourceFile {
    /// Index `text`, known as `name` (its path inside the CSAR).
    pub fn new(name: impl Into<String>, text: impl Into<String>) -> Self {
        Self::shared(name, Arc::from(text.into()))
    }

    /// Index `text` without copying it.
    pub fn shared(name: impl Into<String>, text: Arc<str>) -> Self {
        let mut line_starts = vec![0];
        line_starts.extend(text.match_indices('\n').map(|(i, _)| i + 1));
        SourceFile {
            name: name.into(),
            text,
            line_starts,
        }
    }

    /// Path of the file inside the CSAR.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The whole text.
    pub fn text(&self) -> &str {
        &self.text
    }

    /// 1-based line and 1-based character column of a byte offset.
    pub fn line_col(&self, offset: usize) -> (u32, u32) {
        let offset = offset.min(self.text.len());
        let line = self.line_starts.partition_point(|&s| s <= offset) - 1;
        let start = self.line_starts[line];
        let col = self.text[start..floor_char_boundary(&self.text, offset)]
            .chars()
            .count();
        (line as u32 + 1, col as u32 + 1)
    }

    /// The location of a span; a span over several lines is cut at the end
    /// of its first line.
    pub fn location(&self, span: Span) -> Location {
        let (line, column) = self.line_col(span.start);
        let line_text = self.line(line).unwrap_or("");
        let start_in_line = span.start - self.line_starts[line as usize - 1];
        let end_in_line = (span.end.max(span.start) - self.line_starts[line as usize - 1])
            .min(line_text.len())
            .max(start_in_line.min(line_text.len()));
        let length = line_text
            .get(start_in_line.min(line_text.len())..end_in_line)
            .map(|s| s.chars().count())
            .unwrap_or(0);
        Location {
            file: self.name.clone(),
            line,
            column,
            length: length as u32,
        }
    }

    /// Where `word` is first written as a whole name (not inside a longer
    /// one such as `tosca.nodes.Compute` for `Compute`; a namespace prefix
    /// as in `tosca:Compute` may come before it), for a diagnostic about a
    /// name whose span the caller does not have.
    pub fn word_location(&self, word: &str) -> Option<Location> {
        let is_name = |c: char| c.is_alphanumeric() || matches!(c, '_' | '-' | '.');
        let text = &*self.text;
        text.match_indices(word).map(|(i, _)| i).find_map(|i| {
            let before = text[..i].chars().next_back();
            let after = text[i + word.len()..].chars().next();
            (!before.is_some_and(is_name) && !after.is_some_and(is_name) && !commented(text, i))
                .then(|| self.location(Span::new(i, i + word.len())))
        })
    }

    /// Where the top-level key `key` is (`key:` at the start of a line),
    /// for a diagnostic about a whole document.
    pub fn key_location(&self, key: &str) -> Option<Location> {
        self.line_starts
            .iter()
            .find(|&&s| {
                self.text[s..]
                    .strip_prefix(key)
                    .is_some_and(|rest| rest.starts_with(':'))
            })
            .map(|&s| self.location(Span::new(s, s + key.len())))
    }

    /// Text of a 1-based line, without its line break.
    pub fn line(&self, line: u32) -> Option<&str> {
        let i = (line as usize).checked_sub(1)?;
        let start = *self.line_starts.get(i)?;
        let end = self
            .line_starts
            .get(i + 1)
            .map(|&e| e - 1)
            .unwrap_or(self.text.len());
        Some(self.text[start..end].trim_end_matches('\r'))
    }
}

/// Whether offset `i` of `text` is in a YAML or shell-style comment: after
/// a `#` that starts its line or follows a space.
fn commented(text: &str, i: usize) -> bool {
    let line = &text[text[..i].rfind('\n').map_or(0, |s| s + 1)..i];
    line.char_indices()
        .any(|(j, c)| c == '#' && (j == 0 || line[..j].ends_with(char::is_whitespace)))
}

fn floor_char_boundary(s: &str, mut i: usize) -> usize {
    while i > 0 && !s.is_char_boundary(i) {
        i -= 1;
    }
    i
}

/// All source files read so far, by name, for rendering snippets.
#[derive(Debug, Default, Clone)]
pub struct SourceMap {
    files: HashMap<String, Arc<SourceFile>>,
}

impl SourceMap {
    /// An empty map.
    pub fn new() -> Self {
        Self::default()
    }

    /// Add a file; returns the shared handle.
    pub fn add(&mut self, file: SourceFile) -> Arc<SourceFile> {
        let file = Arc::new(file);
        self.files.insert(file.name.clone(), file.clone());
        file
    }

    /// Look a file up by name.
    pub fn get(&self, name: &str) -> Option<&Arc<SourceFile>> {
        self.files.get(name)
    }

    /// Merge another map into this one.
    pub fn extend(&mut self, other: SourceMap) {
        self.files.extend(other.files);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn line_and_column_are_one_based_and_count_characters() {
        let f = SourceFile::new("a.yaml", "ab\ncdé f\n");
        assert_eq!(f.line_col(0), (1, 1));
        assert_eq!(f.line_col(3), (2, 1));
        // 'f' is after "cdé " whose é takes two bytes
        let off = f.text().find('f').unwrap();
        assert_eq!(f.line_col(off), (2, 5));
        assert_eq!(f.line(2), Some("cdé f"));
        let loc = f.location(Span::new(off, off + 1));
        assert_eq!((loc.line, loc.column, loc.length), (2, 5, 1));
    }

    #[test]
    fn names_and_keys_are_found_where_first_written() {
        let f = SourceFile::new(
            "a.yaml",
            "# imports: no\nnode_types:\n  x:\n    derived_from: tosca.nodes.Compute\n    # t: Compute\n    t: tosca:Compute # Compute\nimports: []\n",
        );
        let at = |l: Option<Location>| l.map(|l| (l.line, l.column, l.length));
        assert_eq!(at(f.word_location("Compute")), Some((6, 14, 7)));
        assert_eq!(at(f.word_location("Comp")), None);
        assert_eq!(at(f.key_location("imports")), Some((7, 1, 7)));
        assert_eq!(at(f.key_location("x")), None);
    }
}
