//! Diagnostics: problems in user input, kept as data until the CLI renders them.
//!
//! Every stage that reads user input returns its result together with a
//! [`Diagnostics`] collection instead of stopping at the first problem. A
//! [`Diagnostic`] carries a stable code (see [`codes`]), a message that quotes
//! the names at fault, the file inside the CSAR with line and column, and an
//! optional hint. [`render`] turns them into text; [`group`] finds the
//! same warning on several templates, which the text reports once.

pub mod codes;
pub mod group;
pub mod render;
mod source;

pub use source::{SourceFile, SourceMap, Span};

use std::fmt;

/// How bad a diagnostic is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    /// The input cannot be compiled as it is.
    Error,
    /// The input compiles, but probably not as the author meant.
    Warning,
}

impl fmt::Display for Severity {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Severity::Error => "error",
            Severity::Warning => "warning",
        })
    }
}

/// Where a diagnostic points: a file inside the CSAR (or on disk), 1-based
/// line and column, and the length of the marked text in characters.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct Location {
    /// Path of the file, relative to the CSAR root.
    pub file: String,
    /// 1-based line.
    pub line: u32,
    /// 1-based column, in characters.
    pub column: u32,
    /// Number of characters to mark (at least 1 when rendered).
    pub length: u32,
}

impl Location {
    /// A location that names only a file (no line).
    pub fn file(file: impl Into<String>) -> Self {
        Location {
            file: file.into(),
            line: 0,
            column: 0,
            length: 0,
        }
    }
}

impl fmt::Display for Location {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.line == 0 {
            write!(f, "{}", self.file)
        } else {
            write!(f, "{}:{}:{}", self.file, self.line, self.column)
        }
    }
}

/// One problem found in the input.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct Diagnostic {
    /// Error or warning.
    pub severity: Severity,
    /// Stable code, e.g. `E0301`; listed in [`codes`].
    pub code: &'static str,
    /// One line saying what is wrong, quoting user names in backticks.
    pub message: String,
    /// Where the problem is, if it is in a file.
    pub location: Option<Location>,
    /// How to fix it, when we can say.
    pub hint: Option<String>,
    /// Further facts (e.g. the other definition of a duplicate).
    pub notes: Vec<String>,
}

impl Diagnostic {
    /// A new error.
    pub fn error(code: &'static str, message: impl Into<String>) -> Self {
        Self::new(Severity::Error, code, message)
    }

    /// A new warning.
    pub fn warning(code: &'static str, message: impl Into<String>) -> Self {
        Self::new(Severity::Warning, code, message)
    }

    fn new(severity: Severity, code: &'static str, message: impl Into<String>) -> Self {
        Diagnostic {
            severity,
            code,
            message: message.into(),
            location: None,
            hint: None,
            notes: Vec::new(),
        }
    }

    /// Attach a location.
    pub fn at(mut self, location: Location) -> Self {
        self.location = Some(location);
        self
    }

    /// Attach a location if there is one.
    pub fn at_opt(mut self, location: Option<Location>) -> Self {
        self.location = location;
        self
    }

    /// Attach a hint.
    pub fn hint(mut self, hint: impl Into<String>) -> Self {
        self.hint = Some(hint.into());
        self
    }

    /// Add a note.
    pub fn note(mut self, note: impl Into<String>) -> Self {
        self.notes.push(note.into());
        self
    }

    /// The one-line form: `error[E0301]: message (file:line:col)`.
    pub fn one_line(&self) -> String {
        match &self.location {
            Some(loc) => format!(
                "{}[{}]: {} ({})",
                self.severity, self.code, self.message, loc
            ),
            None => format!("{}[{}]: {}", self.severity, self.code, self.message),
        }
    }
}

/// An ordered collection of diagnostics.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Diagnostics {
    items: Vec<Diagnostic>,
}

impl Diagnostics {
    /// An empty collection.
    pub fn new() -> Self {
        Self::default()
    }

    /// Add one diagnostic.
    pub fn push(&mut self, diagnostic: Diagnostic) {
        self.items.push(diagnostic);
    }

    /// Add all diagnostics of another collection.
    pub fn extend(&mut self, other: Diagnostics) {
        self.items.extend(other.items);
    }

    /// Whether any diagnostic is an error.
    pub fn has_errors(&self) -> bool {
        self.items.iter().any(|d| d.severity == Severity::Error)
    }

    /// Number of errors.
    pub fn error_count(&self) -> usize {
        self.count(Severity::Error)
    }

    /// Number of warnings.
    pub fn warning_count(&self) -> usize {
        self.count(Severity::Warning)
    }

    fn count(&self, severity: Severity) -> usize {
        self.items.iter().filter(|d| d.severity == severity).count()
    }

    /// All diagnostics, in the order they were found.
    pub fn iter(&self) -> impl Iterator<Item = &Diagnostic> {
        self.items.iter()
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.items.is_empty()
    }

    /// Number of diagnostics.
    pub fn len(&self) -> usize {
        self.items.len()
    }

    /// Turn every error into a warning (used by `--allow-unhandled` for the
    /// codes it covers).
    pub fn downgrade(&mut self, code: &str) {
        for d in &mut self.items {
            if d.code == code {
                d.severity = Severity::Warning;
            }
        }
    }
}

impl IntoIterator for Diagnostics {
    type Item = Diagnostic;
    type IntoIter = std::vec::IntoIter<Diagnostic>;
    fn into_iter(self) -> Self::IntoIter {
        self.items.into_iter()
    }
}

impl From<Diagnostic> for Diagnostics {
    fn from(d: Diagnostic) -> Self {
        Diagnostics { items: vec![d] }
    }
}
