//! Writing plans into a TOSCA YAML service template by editing its text:
//! each plan becomes a workflow implemented by the plan archive (1.3
//! §7.3.8 lets a workflow's `implementation` be an artifact in another
//! workflow language). Nothing else changes: the user's layout, comments
//! and quoting stay as written. Workflows an earlier run added (marked by
//! the metadata key `toscanini_generated`) are removed first, so running
//! again replaces them; the result is the same bytes every time.
//!
//! In: the service template text, with its [`Outline`] where the file was
//! parsed already, and the workflows to add. Out: the new text, or a
//! diagnostic when the text is laid out in a way this edit does not handle
//! (flow-style `topology_template` or `workflows`).

use std::sync::Arc;

use super::node::{LoadLimits, Node, parse};
use super::outline::{MARKER, Outline, Section, Workflows, WorkflowsValue};
use crate::diagnostics::{Diagnostic, SourceFile, Span, codes};

/// A workflow to add.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct PlanWorkflow {
    /// Preferred workflow name (`deploy`, `undeploy`, ...).
    pub name: String,
    /// The plan's slug, stored as the marker value (`build`, `workflow:x`).
    pub slug: String,
    /// One line saying what the plan is.
    pub description: String,
    /// The plan archive, relative to the service template file.
    pub file: String,
}

/// What an earlier run left in the text.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct Previous {
    /// Names of generated workflows.
    pub names: Vec<String>,
    /// The `file` of their implementations.
    pub files: Vec<String>,
}

fn parse_text(name: &str, text: &str) -> Result<(Arc<SourceFile>, Node), Diagnostic> {
    let source = Arc::new(SourceFile::new(name, text));
    let root = parse(&source, LoadLimits::default())?;
    Ok((source, root))
}

/// The service template file read for a write-back, parsed once for
/// both questions asked of it (a 100k-node file is tens of megabytes):
/// what earlier runs added, and the text without it.
pub(crate) struct Prepared {
    /// Workflows and plan files an earlier run added (none if the text
    /// does not parse).
    pub previous: Previous,
    name: String,
    /// The text without them, and its outline.
    stripped: Result<(String, Outline), Diagnostic>,
}

impl Prepared {
    /// The text without what earlier runs added.
    pub(crate) fn without_generated(&self) -> Result<&str, Diagnostic> {
        match &self.stripped {
            Ok((text, ..)) => Ok(text),
            Err(e) => Err(e.clone()),
        }
    }
}

/// Parse `text` (the file `name`) for a write-back.
pub(crate) fn prepare(name: &str, text: &str) -> Prepared {
    match parse_text(name, text) {
        Ok((source, root)) => prepare_outlined(name, Outline::of(source, &root)),
        Err(e) => Prepared {
            previous: Previous::default(),
            name: name.to_string(),
            stripped: Err(e),
        },
    }
}

/// [`prepare`] the file `name` from its outline, without parsing it.
pub(crate) fn prepare_outlined(name: &str, outline: Outline) -> Prepared {
    Prepared {
        previous: previous(&outline),
        name: name.to_string(),
        stripped: remove_generated(name, outline),
    }
}

/// The generated workflows and plan files in the outlined text.
fn previous(outline: &Outline) -> Previous {
    let mut out = Previous::default();
    for w in outline.entries() {
        if let Some(file) = &w.generated {
            out.names.push(w.name.clone().unwrap_or_default());
            out.files.extend(file.clone());
        }
    }
    out
}

fn line_start(text: &str, offset: usize) -> usize {
    text[..offset].rfind('\n').map(|i| i + 1).unwrap_or(0)
}

fn column(text: &str, offset: usize) -> usize {
    offset - line_start(text, offset)
}

fn layout_error(name: &str, source: &SourceFile, span: Span, what: &str) -> Diagnostic {
    Diagnostic::error(
        codes::OUTPUT_YAML_LAYOUT,
        format!("the plans cannot be written into `{name}`: {what}"),
    )
    .at(source.location(span))
    .hint("write this section in block style (one key per line), then run again")
}

/// Remove generated workflows, then add `plans` (names made unique against
/// the user's workflows). Returns the new text and the names used.
pub(crate) fn rewrite(
    prepared: Prepared,
    plans: &[PlanWorkflow],
) -> Result<(String, Vec<String>), Diagnostic> {
    let name = prepared.name.as_str();
    let (text, outline) = prepared.stripped?;
    if plans.is_empty() {
        // Nothing to add (e.g. a version without workflow implementations):
        // the text as the user wrote it, less what earlier runs added.
        return Ok((text, Vec::new()));
    }
    let source = &outline.source;
    let Some(topo) = &outline.topology else {
        return Err(Diagnostic::error(
            codes::NO_SERVICE_TEMPLATE,
            format!("`{name}` has no topology_template to put the plans into"),
        ));
    };
    if topo.flow {
        return Err(layout_error(
            name,
            source,
            topo.span,
            "its topology is written in flow style",
        ));
    }
    let taken: Vec<&str> = outline
        .entries()
        .iter()
        .filter_map(|w| w.name.as_deref())
        .collect();
    let mut names: Vec<String> = Vec::new();
    for p in plans {
        let mut candidate = p.name.clone();
        let mut n = 1;
        while taken.contains(&candidate.as_str()) || names.contains(&candidate) {
            candidate = if n == 1 {
                format!("{}_plan", p.name)
            } else {
                format!("{}_plan_{n}", p.name)
            };
            n += 1;
        }
        names.push(candidate);
    }
    // Indentation: the topology's keys, and one step further.
    let child_col = topo
        .first_key
        .map(|k| column(&text, k))
        .unwrap_or(column(&text, topo.key) + 2);
    let step = child_col.saturating_sub(column(&text, topo.key)).max(2);
    let (insert_at, entry_col, mut head) = match &topo.workflows {
        Some(Workflows {
            key,
            value:
                WorkflowsValue::Map {
                    span,
                    flow,
                    end,
                    entries,
                },
            ..
        }) => {
            if *flow {
                return Err(layout_error(
                    name,
                    source,
                    *span,
                    "its `workflows` are written in flow style",
                ));
            }
            let col = entries
                .first()
                .map(|w| column(&text, w.key))
                .unwrap_or(column(&text, *key) + step);
            (*end, col, String::new())
        }
        Some(Workflows {
            key,
            key_end,
            value: WorkflowsValue::Null,
        }) => {
            // `workflows:` with nothing (or only comments) under it.
            (*key_end, column(&text, *key) + step, String::new())
        }
        Some(Workflows {
            value: WorkflowsValue::Other(span),
            ..
        }) => {
            return Err(layout_error(
                name,
                source,
                *span,
                "its `workflows` is not a map",
            ));
        }
        None => (
            topo.end,
            child_col + step,
            format!("{}workflows:\n", " ".repeat(child_col)),
        ),
    };
    let pad = |n: usize| " ".repeat(entry_col + n * step);
    for (p, wname) in plans.iter().zip(&names) {
        head.push_str(&format!("{}{}:\n", pad(0), yaml_key(wname)));
        head.push_str(&format!("{}description: {}\n", pad(1), p.description));
        head.push_str(&format!("{}metadata:\n", pad(1)));
        head.push_str(&format!("{}{MARKER}: {}\n", pad(2), quoted(&p.slug)));
        head.push_str(&format!("{}implementation:\n", pad(1)));
        head.push_str(&format!("{}primary:\n", pad(2)));
        head.push_str(&format!("{}type: tosca.artifacts.Implementation\n", pad(3)));
        head.push_str(&format!("{}file: {}\n", pad(3), quoted(&p.file)));
    }
    let mut out = String::with_capacity(text.len() + head.len() + 1);
    out.push_str(&text[..insert_at]);
    if !out.is_empty() && !out.ends_with('\n') {
        out.push('\n');
    }
    out.push_str(&head);
    out.push_str(&text[insert_at..]);
    Ok((out, names))
}

/// The outlined text without the workflows an earlier run added, and
/// its outline.
fn remove_generated(name: &str, outline: Outline) -> Result<(String, Outline), Diagnostic> {
    let text = outline.source.text();
    let mut cuts: Vec<(usize, usize)> = Vec::new();
    if let Some(Section {
        workflows:
            Some(Workflows {
                value:
                    WorkflowsValue::Map {
                        span,
                        flow,
                        entries,
                        ..
                    },
                ..
            }),
        ..
    }) = &outline.topology
    {
        for (i, w) in entries.iter().enumerate() {
            if w.generated.is_none() {
                continue;
            }
            if *flow {
                return Err(layout_error(
                    name,
                    &outline.source,
                    *span,
                    "its `workflows` are written in flow style",
                ));
            }
            let start = line_start(text, w.key);
            // Up to the next entry's line, or the end of this one's block.
            let end = match entries.get(i + 1) {
                Some(next) => line_start(text, next.key),
                None => w.end,
            };
            cuts.push((start, end));
        }
    }
    if cuts.is_empty() {
        return Ok((text.to_string(), outline));
    }
    let mut out = text.to_string();
    for (start, end) in cuts.into_iter().rev() {
        out.replace_range(start..end, "");
    }
    let (source, root) = parse_text(name, &out)?;
    let outline = Outline::of(source, &root);
    Ok((out, outline))
}

/// A workflow name as a plain key, or quoted when it needs to be.
fn yaml_key(s: &str) -> String {
    if !s.is_empty()
        && s.chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.'))
    {
        s.to_string()
    } else {
        quoted(s)
    }
}

/// A scalar in double quotes (plan paths and slugs may contain `:`).
fn quoted(s: &str) -> String {
    let mut out = String::from("\"");
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn plan(name: &str, slug: &str) -> PlanWorkflow {
        PlanWorkflow {
            name: name.into(),
            slug: slug.into(),
            description: "a plan".into(),
            file: format!("plans/{slug}.zip"),
        }
    }

    const ST: &str = "tosca_definitions_version: tosca_simple_yaml_1_3\n# keep me\ntopology_template:\n  node_templates:\n    a:   {type: Compute}   # odd spacing stays\n\n# trailing comment\n";

    #[test]
    fn adds_workflows_and_keeps_the_rest() {
        let (out, names) = rewrite(prepare("t.yaml", ST), &[plan("deploy", "build")]).unwrap();
        assert_eq!(names, ["deploy"]);
        assert!(out.starts_with("tosca_definitions_version: tosca_simple_yaml_1_3\n# keep me\ntopology_template:\n  node_templates:\n    a:   {type: Compute}   # odd spacing stays\n  workflows:\n    deploy:\n"));
        assert!(out.ends_with("        file: \"plans/build.zip\"\n\n# trailing comment\n"));
    }

    #[test]
    fn a_second_run_replaces() {
        let (once, _) = rewrite(
            prepare("t.yaml", ST),
            &[plan("deploy", "build"), plan("undeploy", "termination")],
        )
        .unwrap();
        let (twice, _) = rewrite(
            prepare("t.yaml", &once),
            &[plan("deploy", "build"), plan("undeploy", "termination")],
        )
        .unwrap();
        assert_eq!(once, twice);
        assert_eq!(
            prepare("t.yaml", &once).previous.files,
            ["plans/build.zip", "plans/termination.zip"]
        );
        let (fewer, _) = rewrite(prepare("t.yaml", &once), &[plan("deploy", "build")]).unwrap();
        assert!(!fewer.contains("undeploy"));
    }

    #[test]
    fn user_workflows_keep_their_names() {
        let st = "tosca_definitions_version: tosca_simple_yaml_1_3\ntopology_template:\n  workflows:\n    deploy:\n      steps: {}\n";
        let (out, names) = rewrite(prepare("t.yaml", st), &[plan("deploy", "build")]).unwrap();
        assert_eq!(names, ["deploy_plan"]);
        assert!(out.contains("    deploy:\n      steps: {}\n    deploy_plan:\n"));
    }
}
