//! Following `Import`s from the entry Definitions through the archive.
//!
//! Imports are followed transitively (Winery writes NodeType ⇄
//! NodeTypeImplementation import cycles, so each document is read once).
//! Locations are relative to the importing document; absolute URLs are never
//! fetched. [`load_rest`] reads the documents nobody imports, for the
//! lenient fallback when a reference cannot be resolved otherwise.

use std::collections::{BTreeSet, VecDeque};

use super::ast::Definitions;
use super::names::TOSCA;
use crate::csar::{Csar, path};
use crate::diagnostics::{Diagnostic, Diagnostics, SourceMap, codes};

/// Read the entry document and everything it imports, entry first.
pub(crate) fn load(
    csar: &Csar,
    entry: &str,
    max_depth: usize,
    sources: &mut SourceMap,
) -> (Vec<Definitions>, Diagnostics) {
    let mut diags = Diagnostics::new();
    let mut out = Vec::new();
    let mut seen = BTreeSet::new();
    let mut queue = VecDeque::from([(entry.to_string(), None::<crate::diagnostics::Location>)]);
    seen.insert(entry.to_string());
    while let Some((name, imported_at)) = queue.pop_front() {
        let source = match csar.source(&name) {
            Ok(s) => sources.add(s),
            Err(mut d) => {
                if d.location.is_none() {
                    d = d.at_opt(imported_at);
                }
                diags.push(d);
                continue;
            }
        };
        let (defs, d) = super::read(source.clone(), max_depth);
        diags.extend(d);
        let Some(defs) = defs else { continue };
        for import in &defs.imports {
            if import.import_type != TOSCA {
                continue; // XSD and WSDL imports carry no TOSCA definitions
            }
            let Some(location) = &import.location else {
                continue; // location-less imports are resolved by QName later
            };
            if location.contains("://") {
                if !location.starts_with("file:") {
                    diags.push(
                        Diagnostic::warning(
                            codes::W_XML_IMPORT,
                            format!("import of `{location}` is not followed: toscanini never fetches from the network"),
                        )
                        .at(source.location(import.span))
                        .hint("put the imported document into the CSAR and import it by a relative location"),
                    );
                }
                continue;
            }
            let Some(target) = path::resolve(&name, &path::percent_decode(location))
                .or_else(|| path::resolve(&name, location))
            else {
                diags.push(
                    Diagnostic::warning(
                        codes::W_XML_IMPORT,
                        format!("import location `{location}` points outside the archive; it is not followed"),
                    )
                    .at(source.location(import.span)),
                );
                continue;
            };
            let target = if csar.contains(&target) {
                target
            } else if let Some(alt) = path::resolve(&name, location).filter(|a| csar.contains(a)) {
                alt
            } else {
                diags.push(
                    Diagnostic::warning(
                        codes::W_XML_IMPORT,
                        format!("imported document `{target}` is not in the archive"),
                    )
                    .at(source.location(import.span)),
                );
                continue;
            };
            if seen.insert(target.clone()) {
                queue.push_back((target, Some(source.location(import.span))));
            }
        }
        out.push(defs);
    }
    (out, diags)
}

/// Read every other `.tosca`/`.xml` document of the archive that holds TOSCA
/// Definitions; documents that fail to parse are skipped silently because
/// nobody asked for them (the caller warns for each one it actually uses).
pub(crate) fn load_rest(
    csar: &Csar,
    already: &BTreeSet<String>,
    max_depth: usize,
    sources: &mut SourceMap,
) -> Vec<Definitions> {
    let mut out = Vec::new();
    for name in csar.names() {
        if already.contains(name) || !(name.ends_with(".tosca") || name.ends_with(".xml")) {
            continue;
        }
        let Ok(source) = csar.source(name) else {
            continue;
        };
        if !source.text().contains(TOSCA) {
            continue;
        }
        let source = sources.add(source);
        if let (Some(defs), d) = super::read(source, max_depth)
            && !d.has_errors()
        {
            out.push(defs);
        }
    }
    out
}
