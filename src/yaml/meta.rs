//! The CSAR metadata of a TOSCA YAML CSAR (1.3 §6.2–§6.3, 2.0 §6): what
//! TOSCA.meta says, or without it, what the entry's metadata says.
//!
//! In: the archive and its loaded files. Out: warnings (W0110).

use super::imports::Loaded;
use crate::csar::{Csar, Origin};
use crate::diagnostics::{Diagnostic, Diagnostics, SourceMap, Span, codes};

/// Check the CSAR metadata a YAML CSAR carries (1.3 §6.2–§6.3, 2.0 §6):
/// the versions in TOSCA.meta, `Other-Definitions` (usable only as
/// substitution templates, so not compiled), and, without TOSCA.meta, the
/// entry's `template_name` and `template_version` metadata.
pub(crate) fn check_meta(csar: &Csar, loaded: &Loaded, sources: &mut SourceMap) -> Diagnostics {
    let mut diags = Diagnostics::new();
    if matches!(csar.origin, Origin::File) {
        return diags;
    }
    let (meta, _) = csar.meta(sources);
    let file = sources.get(crate::csar::META_PATH).cloned();
    let Some(meta) = meta else {
        let Some(entry) = loaded.files.first() else {
            return diags;
        };
        let missing: Vec<&str> = ["template_name", "template_version"]
            .into_iter()
            .filter(|k| entry.metadata(k).is_none())
            .collect();
        if !missing.is_empty() {
            diags.push(
                Diagnostic::warning(
                    codes::W_META_VERSION,
                    format!(
                        "the CSAR has no TOSCA-Metadata/TOSCA.meta, and its entry `{}` has no {} metadata",
                        entry.source.name(),
                        missing.iter().map(|m| format!("`{m}`")).collect::<Vec<_>>().join(" and ")
                    ),
                )
                .at(entry
                    .source
                    .key_location("metadata")
                    .unwrap_or_else(|| entry.source.location(Span::new(0, 0))))
                .hint("a CSAR without TOSCA.meta names itself by the entry's metadata (TOSCA 1.3 §6.3)"),
            );
        }
        return diags;
    };
    let at = |span: Span| file.as_ref().map(|f| f.location(span));
    let v2 = loaded.files.first().is_some_and(|f| f.version.is_v2());
    match meta
        .get("TOSCA-Meta-File-Version")
        .or(meta.get("TOSCA-Meta-Version"))
    {
        Some(e) if !matches!(e.value.as_str(), "1.0" | "1.1") => diags.push(
            Diagnostic::warning(
                codes::W_META_VERSION,
                format!("TOSCA-Meta-File-Version `{}` is not 1.0 or 1.1", e.value),
            )
            .at_opt(at(e.span)),
        ),
        None if !v2 => diags.push(
            Diagnostic::warning(
                codes::W_META_VERSION,
                "TOSCA.meta has no TOSCA-Meta-File-Version",
            )
            .at_opt(file.as_ref().map(|f| f.location(Span::new(0, 0))))
            .hint("block 0 starts with `TOSCA-Meta-File-Version: 1.1`"),
        ),
        _ => {}
    }
    match meta.get("CSAR-Version") {
        Some(e) if !matches!(e.value.as_str(), "1.0" | "1.1" | "2.0") => diags.push(
            Diagnostic::warning(
                codes::W_META_VERSION,
                format!("CSAR-Version `{}` is not 1.1 (TOSCA 1.3) or 2.0", e.value),
            )
            .at_opt(at(e.span)),
        ),
        None => diags.push(
            Diagnostic::warning(codes::W_META_VERSION, "TOSCA.meta has no CSAR-Version")
                .at_opt(file.as_ref().map(|f| f.location(Span::new(0, 0)))),
        ),
        _ => {}
    }
    if let Some(e) = meta.get("Other-Definitions") {
        for other in meta.other_definitions() {
            let known = crate::csar::path::normalize(&other)
                .ok()
                .is_some_and(|n| csar.contains(&n));
            if !known {
                diags.push(
                    Diagnostic::warning(
                        codes::W_META_VERSION,
                        format!("Other-Definitions names `{other}`, which is not in the CSAR"),
                    )
                    .at_opt(at(e.span)),
                );
            }
        }
    }
    diags
}
