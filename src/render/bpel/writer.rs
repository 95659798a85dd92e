//! The writer of a BPEL process body: the process skeleton split at its
//! markers, the fragments (`templates/bpel/fragments`) the body is written
//! from, handed on to the output in chunks, and text escaped for them.
//!
//! In: fragment sections and their values. Out: BPEL text.

use std::sync::OnceLock;

use crate::error::Result;
use crate::names::escape::push_xml_text;
use crate::names::xml_escape;
use crate::render::fragment::{Fragments, Lines};
use crate::render::output::{CHUNK, PlanOutput};
use crate::render::paths::url_path;
use crate::render::rendered::Layout;

/// Where the lists of the skeleton go: variables, their initial values,
/// the requests the calls and relationship instances share, links,
/// activities (in this order in the text).
pub(crate) const MARKERS: [&str; 5] = [
    "<!--toscanini:variables-->",
    "<!--toscanini:init-->",
    "<!--toscanini:calls-->",
    "<!--toscanini:links-->",
    "<!--toscanini:activities-->",
];

/// The parts of the rendered skeleton between its [`MARKERS`] (one more
/// than there are markers).
pub(crate) fn split_skeleton(skeleton: &str) -> Result<Vec<&str>> {
    let mut parts = Vec::with_capacity(MARKERS.len() + 1);
    let mut rest = skeleton;
    for marker in MARKERS {
        let Some((before, after)) = rest.split_once(marker) else {
            return Err(crate::error::Error::Internal(format!(
                "bpel/process.bpel lacks the place of {marker}"
            )));
        };
        parts.push(before);
        rest = after;
    }
    parts.push(rest);
    Ok(parts)
}

/// A part of the skeleton laid out as `layout` says: with
/// [`Layout::Compact`], every line (the part's first too) without its
/// indentation.
pub(crate) fn laid_out(part: &str, layout: Layout) -> String {
    if layout == Layout::Pretty {
        return part.to_string();
    }
    let mut out = String::with_capacity(part.len());
    for line in part.split_inclusive('\n') {
        out.push_str(line.trim_start_matches(' '));
    }
    out
}

/// Escape text for element content (XPath expressions).
pub(crate) fn text(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    push_xml_text(&mut out, s);
    out
}

/// An id as a URL path segment, escaped for XML.
pub(crate) fn path_text(id: &str) -> String {
    xml_escape(&url_path(id)).into_owned()
}

/// The BPEL fragments (templates/bpel/fragments), parsed once.
pub(crate) fn fragments() -> Result<&'static Fragments> {
    static PARSED: OnceLock<std::result::Result<Fragments, String>> = OnceLock::new();
    PARSED
        .get_or_init(|| Fragments::parse(FRAGMENTS).map_err(|e| e.to_string()))
        .as_ref()
        .map_err(|e| crate::error::Error::Internal(e.clone()))
}

/// The fragment files of this backend, embedded at build time.
pub(crate) const FRAGMENTS: &[(&str, &str)] = &[
    (
        "bpel/fragments/check.bpel",
        include_str!("../../../templates/bpel/fragments/check.bpel"),
    ),
    (
        "bpel/fragments/each-instance.bpel",
        include_str!("../../../templates/bpel/fragments/each-instance.bpel"),
    ),
    (
        "bpel/fragments/instances.bpel",
        include_str!("../../../templates/bpel/fragments/instances.bpel"),
    ),
    (
        "bpel/fragments/invoke.bpel",
        include_str!("../../../templates/bpel/fragments/invoke.bpel"),
    ),
    (
        "bpel/fragments/scope.bpel",
        include_str!("../../../templates/bpel/fragments/scope.bpel"),
    ),
    (
        "bpel/fragments/select-instance.bpel",
        include_str!("../../../templates/bpel/fragments/select-instance.bpel"),
    ),
];

/// The deepest indentation (with [`Layout::Pretty`]) of an element that
/// starts a line in a compact plan: the process's variables and initial
/// values, the flow's links and activities, and the parts of an activity
/// (links, variables, handlers, steps) each get a line; what is nested
/// deeper runs on in the line of its part.
const ITEM_DEPTH: usize = 8;

/// Output of the process body: fragments written at an indentation
/// (with [`Layout::Pretty`]) or a line per part of the plan ([`ITEM_DEPTH`]).
pub(crate) struct W<'a> {
    /// Text not yet handed on.
    pub(crate) out: String,
    /// The fragments.
    pub(crate) fr: &'a Fragments,
    /// How the text is laid out.
    pub(crate) layout: Layout,
}

impl W<'_> {
    /// Write fragment section `section` at `indent` with `values`.
    pub(crate) fn put(
        &mut self,
        section: &str,
        indent: usize,
        values: &[(&str, &str)],
    ) -> Result<()> {
        let lines = match self.layout {
            Layout::Pretty => Lines::Indented(indent),
            Layout::Compact => Lines::Joined {
                indent,
                shallow: ITEM_DEPTH,
            },
        };
        self.fr.write(&mut self.out, section, lines, values)
    }

    /// Write part `k` of the skeleton's [`split_skeleton`] parts, on lines
    /// of its own. Compact, the fragments start their lines rather than
    /// end them, so a part between them does the same.
    pub(crate) fn part(&mut self, parts: &[String], k: usize) {
        let part = parts[k].as_str();
        if self.layout == Layout::Pretty || part.is_empty() {
            return self.out.push_str(part);
        }
        if k > 0 {
            self.out.push('\n');
        }
        if k + 1 < parts.len() {
            self.out.push_str(part.strip_suffix('\n').unwrap_or(part));
        } else {
            self.out.push_str(part);
        }
    }

    /// Hand the text on once a chunk has collected.
    pub(crate) fn flush_if_full(&mut self, output: &mut PlanOutput) -> Result<()> {
        if self.out.len() >= CHUNK {
            output.write(&mut self.out)?;
        }
        Ok(())
    }
}
