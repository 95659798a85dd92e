//! `TOSCA-Metadata/TOSCA.meta`: blocks of `Name: value` lines.
//!
//! TOSCA 1.0 §16 and Simple Profile 1.3 §6.2 share the syntax: a block is a
//! run of non-empty lines, block 0 describes the archive, later blocks
//! describe files. A line starting with a space continues the previous value
//! (Java manifest style: exactly one leading space is dropped).

use crate::diagnostics::{Diagnostic, Diagnostics, SourceFile, Span, codes};

/// Path of the metadata file inside a CSAR.
pub(crate) const META_PATH: &str = "TOSCA-Metadata/TOSCA.meta";

/// One `Name: value` line.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MetaEntry {
    /// The name before the colon.
    pub key: String,
    /// The value after `: `, continuation lines joined.
    pub value: String,
    /// Byte span of the line in TOSCA.meta.
    pub span: Span,
}

/// The parsed metadata file.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ToscaMeta {
    /// Blocks in file order; block 0 describes the archive.
    pub blocks: Vec<Vec<MetaEntry>>,
}

impl ToscaMeta {
    /// Parse the text of TOSCA.meta; malformed lines become diagnostics.
    pub fn parse(file: &SourceFile) -> (ToscaMeta, Diagnostics) {
        let mut diags = Diagnostics::new();
        let mut blocks: Vec<Vec<MetaEntry>> = Vec::new();
        let mut current: Vec<MetaEntry> = Vec::new();
        let mut offset = 0;
        for raw in file.text().split_inclusive('\n') {
            let line = raw.trim_end_matches(['\n', '\r']);
            let span = Span::new(offset, offset + line.len());
            offset += raw.len();
            if line.trim().is_empty() {
                if !current.is_empty() {
                    blocks.push(std::mem::take(&mut current));
                }
                continue;
            }
            if let Some(rest) = line.strip_prefix(' ') {
                match current.last_mut() {
                    Some(prev) => {
                        prev.value.push_str(rest);
                        prev.span.end = span.end;
                    }
                    None => diags.push(
                        Diagnostic::error(
                            codes::META_MALFORMED,
                            "TOSCA.meta has a continuation line with nothing to continue",
                        )
                        .at(file.location(span)),
                    ),
                }
                continue;
            }
            match line.split_once(':') {
                Some((key, value)) if !key.trim().is_empty() && !key.contains(' ') => {
                    current.push(MetaEntry {
                        key: key.to_string(),
                        value: value.trim().to_string(),
                        span,
                    })
                }
                _ => diags.push(
                    Diagnostic::error(
                        codes::META_MALFORMED,
                        format!("TOSCA.meta line `{}` is not of the form `Name: value`", line.trim()),
                    )
                    .at(file.location(span))
                    .hint("each line of TOSCA.meta is `Name: value`; blocks are separated by an empty line"),
                ),
            }
        }
        if !current.is_empty() {
            blocks.push(current);
        }
        (ToscaMeta { blocks }, diags)
    }

    /// A key of block 0.
    pub fn get(&self, key: &str) -> Option<&MetaEntry> {
        self.blocks.first()?.iter().find(|e| e.key == key)
    }

    /// `Entry-Definitions` of block 0.
    pub fn entry_definitions(&self) -> Option<&MetaEntry> {
        self.get("Entry-Definitions")
    }

    /// `Other-Definitions` of block 0, split on spaces (Simple Profile 1.3 §6.2).
    pub fn other_definitions(&self) -> Vec<String> {
        self.get("Other-Definitions")
            .map(|e| e.value.split_whitespace().map(str::to_string).collect())
            .unwrap_or_default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_blocks_and_continuations() {
        let f = SourceFile::new(
            META_PATH,
            "TOSCA-Meta-Version: 1.0\r\nCSAR-Version: 1.0\nCreated-By: me\nEntry-Definitions: Definitions/a\n .tosca\n\nName: x\nContent-Type: text/plain\n",
        );
        let (meta, diags) = ToscaMeta::parse(&f);
        assert!(diags.is_empty());
        assert_eq!(meta.blocks.len(), 2);
        assert_eq!(
            meta.entry_definitions().unwrap().value,
            "Definitions/a.tosca"
        );
        assert_eq!(meta.get("CSAR-Version").unwrap().value, "1.0");
    }

    #[test]
    fn reports_garbled_lines() {
        let f = SourceFile::new(META_PATH, "TOSCA-Meta-Version 1.0\n");
        let (_, diags) = ToscaMeta::parse(&f);
        assert_eq!(diags.iter().next().unwrap().code, codes::META_MALFORMED);
    }
}
