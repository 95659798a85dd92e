//! Fragments: pieces of a plan with `{{ name }}` holes and nothing else,
//! parsed once and written straight into the output, indented.
//!
//! The plan skeletons (process, WSDL, deployment descriptor) are tera
//! templates. The pieces written once per step are fragments instead: a
//! plan of a 100k-node topology writes millions of them, and rendering
//! each through tera (a context serialised per call, a fresh string per
//! result, re-indented at every level) took most of the time. Loops and
//! conditions live in the backend, which picks the sections to write.
//!
//! A fragment file holds sections, each starting with a line `{# name #}`;
//! the text of a section is written as it is, each line prefixed with the
//! caller's indentation, each hole replaced by the caller's value (already
//! escaped for where it goes). A section headed `{# name -#}` ends without
//! its last line break: a piece of a line, which the caller continues. A
//! comment `{# … #}` may open the file.

use foldhash::{HashMap, HashMapExt};

use crate::error::{Error, Result};

/// One parsed section.
#[derive(Debug)]
pub(crate) struct Fragment {
    pieces: Vec<Piece>,
}

/// Whether a piece starts a line is known when the fragment is parsed,
/// and so is the indentation of a line's text: writing does not look.
#[derive(Debug)]
enum Piece {
    /// Text in the middle of a line.
    Text(&'static str),
    /// Text that starts a line: all of it, and from where it is not
    /// indentation.
    Line(&'static str, usize),
    /// A line break; the next line gets the caller's indentation.
    Newline,
    /// A hole in the middle of a line.
    Hole(&'static str),
    /// A hole that starts a line.
    LineHole(&'static str),
}

/// Spaces for indentation, sliced (no allocation per line).
const SPACES: &str = "                                                                                                                                ";

impl Fragment {
    fn parse(text: &'static str) -> std::result::Result<Fragment, String> {
        let mut pieces = Vec::new();
        let mut rest = text;
        while !rest.is_empty() {
            let next_hole = rest.find("{{");
            let next_line = rest.find('\n');
            match (next_hole, next_line) {
                (Some(h), l) if l.is_none_or(|l| h < l) => {
                    if h > 0 {
                        pieces.push(Piece::Text(&rest[..h]));
                    }
                    let Some(end) = rest[h..].find("}}") else {
                        return Err("`{{` without `}}`".into());
                    };
                    let name = rest[h + 2..h + end].trim();
                    if name.is_empty()
                        || !name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
                    {
                        return Err(format!("hole `{name}` is not a plain name"));
                    }
                    pieces.push(Piece::Hole(name));
                    rest = &rest[h + end + 2..];
                }
                (_, Some(l)) => {
                    if l > 0 {
                        pieces.push(Piece::Text(&rest[..l]));
                    }
                    pieces.push(Piece::Newline);
                    rest = &rest[l + 1..];
                }
                (_, None) => {
                    pieces.push(Piece::Text(rest));
                    rest = "";
                }
            }
        }
        Ok(Fragment {
            pieces: starting_lines(pieces),
        })
    }

    /// Write the fragment into `out`, its lines laid out as `lines` says,
    /// every hole replaced by its value in `values`.
    pub(crate) fn write(
        &self,
        out: &mut String,
        lines: Lines,
        values: &[(&str, &str)],
    ) -> Result<()> {
        let (pad, base) = match lines {
            Lines::Indented(i) => (&SPACES[..i.min(SPACES.len())], i),
            Lines::Flush => ("", 0),
            Lines::Joined { indent, .. } => ("", indent),
        };
        let indented = matches!(lines, Lines::Indented(_));
        for piece in &self.pieces {
            match *piece {
                Piece::Newline => {
                    if !matches!(lines, Lines::Joined { .. }) {
                        out.push('\n');
                    }
                }
                Piece::Text(t) => out.push_str(t),
                Piece::Line(t, lead) => {
                    let flush = &t[lead..];
                    lines.break_before(out, base + lead, flush);
                    if indented {
                        out.push_str(pad);
                        out.push_str(t);
                    } else {
                        out.push_str(flush);
                    }
                }
                Piece::Hole(h) => out.push_str(value(values, h)?),
                Piece::LineHole(h) => {
                    let v = value(values, h)?;
                    lines.break_before(out, base, v);
                    out.push_str(pad);
                    out.push_str(v);
                }
            }
        }
        Ok(())
    }
}

/// The value of hole `h`. Names are compared by length and first byte
/// before their text: most holes are passed over at once.
fn value<'v>(values: &[(&str, &'v str)], h: &str) -> Result<&'v str> {
    let first = h.as_bytes().first();
    values
        .iter()
        .find(|(n, _)| n.len() == h.len() && n.as_bytes().first() == first && *n == h)
        .map(|&(_, v)| v)
        .ok_or_else(|| Error::Internal(format!("fragment hole `{h}` has no value")))
}

/// The pieces with those that start a line marked as such.
fn starting_lines(pieces: Vec<Piece>) -> Vec<Piece> {
    let mut line_start = true;
    pieces
        .into_iter()
        .map(|piece| {
            let starts = std::mem::replace(&mut line_start, matches!(piece, Piece::Newline));
            match piece {
                Piece::Text(t) if starts => Piece::Line(t, t.len() - t.trim_start().len()),
                Piece::Hole(h) if starts => Piece::LineHole(h),
                other => other,
            }
        })
        .collect()
}

/// How a fragment's lines are laid out.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Lines {
    /// Every line indented by this many spaces more than in the file.
    Indented(usize),
    /// Every line without its indentation.
    Flush,
    /// Every line without its indentation, and a line break only before
    /// the lines that open an element or are one and that, written at
    /// `indent`, would be indented `shallow` spaces or less: what is nested
    /// deeper, and the closing tag, run on in the line of the element.
    Joined {
        /// The indentation the fragment is written at.
        indent: usize,
        /// The deepest indentation of a line that starts a line.
        shallow: usize,
    },
}

impl Lines {
    /// With [`Lines::Joined`], start a line in `out` before `line` (its
    /// text, without indentation) if the line would be indented `depth`
    /// spaces, no deeper than `shallow`, and is no closing tag. (Joined
    /// text never ends with a line break, so this is the only one.)
    fn break_before(self, out: &mut String, depth: usize, line: &str) {
        if let Lines::Joined { shallow, .. } = self
            && depth <= shallow
            && !line.starts_with("</")
        {
            out.push('\n');
        }
    }
}

impl From<Option<usize>> for Lines {
    /// Indented by `Some` spaces, or flush.
    fn from(indent: Option<usize>) -> Lines {
        indent.map_or(Lines::Flush, Lines::Indented)
    }
}

/// The sections of fragment files, by name.
#[derive(Debug, Default)]
pub(crate) struct Fragments {
    sections: HashMap<&'static str, Fragment>,
}

impl Fragments {
    /// Parse fragment files; section names must be unique across them.
    pub(crate) fn parse(files: &[(&'static str, &'static str)]) -> Result<Fragments> {
        let mut sections = HashMap::new();
        for (file, text) in files {
            let mut name: Option<&'static str> = None;
            let mut start = 0;
            let mut offset = 0;
            let mut add = |name: Option<&'static str>, body: &'static str| -> Result<()> {
                let Some(name) = name else {
                    // Nothing, or a comment about the file.
                    let head = body.trim();
                    return if head.is_empty() || (head.starts_with("{#") && head.ends_with("#}")) {
                        Ok(())
                    } else {
                        Err(Error::Internal(format!(
                            "{file}: text before the first `{{# section #}}`"
                        )))
                    };
                };
                let (name, body) = match name.strip_suffix(" -") {
                    Some(name) => (name, body.strip_suffix('\n').unwrap_or(body)),
                    None => (name, body),
                };
                let fragment = Fragment::parse(body)
                    .map_err(|e| Error::Internal(format!("{file}: section `{name}`: {e}")))?;
                if sections.insert(name, fragment).is_some() {
                    return Err(Error::Internal(format!("{file}: section `{name}` twice")));
                }
                Ok(())
            };
            for line in text.split_inclusive('\n') {
                let trimmed = line.trim_end();
                if let Some(n) = trimmed
                    .strip_prefix("{# ")
                    .and_then(|r| r.strip_suffix("#}"))
                {
                    add(name, &text[start..offset])?;
                    name = Some(n.trim());
                    start = offset + line.len();
                }
                offset += line.len();
            }
            add(name, &text[start..])?;
        }
        Ok(Fragments { sections })
    }

    /// A section by name.
    pub(crate) fn get(&self, name: &str) -> Result<&Fragment> {
        self.sections
            .get(name)
            .ok_or_else(|| Error::Internal(format!("no fragment section `{name}`")))
    }

    /// Write section `name` (see [`Fragment::write`]).
    pub(crate) fn write(
        &self,
        out: &mut String,
        name: &str,
        lines: impl Into<Lines>,
        values: &[(&str, &str)],
    ) -> Result<()> {
        self.get(name)?.write(out, lines.into(), values)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sections_are_indented_and_filled() {
        let f = Fragments::parse(&[(
            "t",
            "{# a #}\n<x name=\"{{ name }}\">\n  <y/>\n</x>\n{# b #}\n{{ v }}!\n",
        )])
        .unwrap();
        let mut out = String::new();
        f.write(&mut out, "a", Some(2), &[("name", "n")]).unwrap();
        f.write(&mut out, "b", Some(0), &[("v", "w")]).unwrap();
        assert_eq!(out, "  <x name=\"n\">\n    <y/>\n  </x>\nw!\n");
        let mut out = String::new();
        assert!(f.write(&mut out, "a", Some(0), &[]).is_err());
        assert!(f.write(&mut out, "c", Some(0), &[]).is_err());
    }

    #[test]
    fn without_indentation_every_line_starts_at_its_element() {
        let f = Fragments::parse(&[("t", "{# a #}\n  <x>{{ v }}\n    <y/>\n  </x>\n")]).unwrap();
        let mut out = String::new();
        f.write(&mut out, "a", None, &[("v", " kept ")]).unwrap();
        assert_eq!(out, "<x> kept \n<y/>\n</x>\n");
    }

    #[test]
    fn joined_only_shallow_elements_start_a_line() {
        let f = Fragments::parse(&[(
            "t",
            "{# a #}\n<x>\n  <y>\n    <z>{{ v }}</z>\n  </y>\n  <w/>\n</x>\n",
        )])
        .unwrap();
        let mut out = String::from("<p>");
        let lines = Lines::Joined {
            indent: 2,
            shallow: 4,
        };
        f.write(&mut out, "a", lines, &[("v", "1")]).unwrap();
        f.write(&mut out, "a", lines, &[("v", "2")]).unwrap();
        assert_eq!(
            out,
            "<p>\n<x>\n<y><z>1</z></y>\n<w/></x>\n<x>\n<y><z>2</z></y>\n<w/></x>"
        );
    }

    #[test]
    fn a_section_headed_with_a_dash_is_a_piece_of_a_line() {
        let f = Fragments::parse(&[("t", "{# a -#}\n<x a=\"{{ v }}\">\n{# b #}\n</x>\n")]).unwrap();
        let mut out = String::new();
        f.write(&mut out, "a", None, &[("v", "1")]).unwrap();
        f.write(&mut out, "b", None, &[]).unwrap();
        assert_eq!(out, "<x a=\"1\"></x>\n");
    }

    #[test]
    fn malformed_files_are_refused() {
        assert!(Fragments::parse(&[("t", "text first\n{# a #}\nx\n")]).is_err());
        assert!(Fragments::parse(&[("t", "{# a #}\n{{ open\n")]).is_err());
        assert!(Fragments::parse(&[("t", "{# a #}\nx\n{# a #}\ny\n")]).is_err());
    }
}
