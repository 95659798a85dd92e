//! Where a TOSCA YAML service template's topology and workflows are
//! written, as the write-back into its text needs to know it
//! ([`super::rewrite`]): where the topology section and its workflows
//! start and where their last lines end, and which workflows an earlier
//! run added. Made from a parse of the file, the loader's where there is one,
//! so that a large service template is not parsed a second time.
//!
//! In: the file and its parse. Out: the [`Outline`].

use std::sync::Arc;

use super::node::{Kind, Node};
use crate::diagnostics::{SourceFile, Span};

/// The metadata key that marks generated workflows (its value is the plan's slug).
pub(crate) const MARKER: &str = "toscanini_generated";

/// Where a service template's topology and workflows are written, and
/// which workflows earlier runs added: all that a write-back reads of the
/// file's parse.
#[derive(Clone, Debug)]
pub(crate) struct Outline {
    /// The text outlined.
    pub(super) source: Arc<SourceFile>,
    pub(super) topology: Option<Section>,
}

/// The topology section (`topology_template` or `service_template`).
#[derive(Clone, Debug)]
pub(super) struct Section {
    /// Where its key starts.
    pub(super) key: usize,
    /// Its value.
    pub(super) span: Span,
    /// Whether the value is written in flow style.
    pub(super) flow: bool,
    /// Where its first key starts, when it is a map with one.
    pub(super) first_key: Option<usize>,
    /// The end of the last line any part of it is written on.
    pub(super) end: usize,
    /// Its `workflows`, when it is a map with them.
    pub(super) workflows: Option<Workflows>,
}

/// The `workflows` of the topology.
#[derive(Clone, Debug)]
pub(super) struct Workflows {
    /// Where the key starts.
    pub(super) key: usize,
    /// The end of the line the key is written on.
    pub(super) key_end: usize,
    pub(super) value: WorkflowsValue,
}

#[derive(Clone, Debug)]
pub(super) enum WorkflowsValue {
    /// A map of workflows.
    Map {
        span: Span,
        flow: bool,
        /// The end of the last line any part of it is written on.
        end: usize,
        entries: Vec<Workflow>,
    },
    /// Nothing (or only comments).
    Null,
    /// Anything else.
    Other(Span),
}

/// One workflow.
#[derive(Clone, Debug)]
pub(super) struct Workflow {
    /// Its name, when the key is a string.
    pub(super) name: Option<String>,
    /// Where its key starts.
    pub(super) key: usize,
    /// The end of the last line its value is written on.
    pub(super) end: usize,
    /// Whether an earlier run added it, and the `file` of its
    /// implementation then.
    pub(super) generated: Option<Option<String>>,
}

impl Outline {
    /// The outline of `root`, the parse of `source`.
    pub(crate) fn of(source: Arc<SourceFile>, root: &Node) -> Outline {
        let text = source.text();
        let topology = topology(root).map(|(tkey, topo)| Section {
            key: tkey.span.start,
            span: topo.span,
            flow: is_flow(text, topo),
            first_key: topo
                .as_map()
                .and_then(|m| m.first())
                .map(|(k, _)| k.span.start),
            end: end_of_block(text, topo),
            workflows: workflows(topo).map(|(wkey, wval)| Workflows {
                key: wkey.span.start,
                key_end: end_of_block(text, wkey),
                value: match wval.as_map() {
                    Some(entries) => WorkflowsValue::Map {
                        span: wval.span,
                        flow: is_flow(text, wval),
                        end: end_of_block(text, wval),
                        entries: entries
                            .iter()
                            .map(|(k, v)| Workflow {
                                name: k.as_str().map(str::to_string),
                                key: k.span.start,
                                end: end_of_block(text, v),
                                generated: generated_file(v),
                            })
                            .collect(),
                    },
                    None if wval.is_null() => WorkflowsValue::Null,
                    None => WorkflowsValue::Other(wval.span),
                },
            }),
        });
        Outline { source, topology }
    }

    /// The text outlined.
    pub(crate) fn source(&self) -> &Arc<SourceFile> {
        &self.source
    }

    /// The workflows of the topology, when they are a map.
    pub(super) fn entries(&self) -> &[Workflow] {
        match self.topology.as_ref().and_then(|t| t.workflows.as_ref()) {
            Some(Workflows {
                value: WorkflowsValue::Map { entries, .. },
                ..
            }) => entries,
            _ => &[],
        }
    }
}

/// The topology section (`topology_template` or `service_template`).
fn topology(root: &Node) -> Option<(&Node, &Node)> {
    root.as_map()?
        .iter()
        .find(|(k, _)| matches!(k.as_str(), Some("topology_template" | "service_template")))
        .map(|(k, v)| (k, v))
}

fn workflows(topo: &Node) -> Option<(&Node, &Node)> {
    topo.as_map()?
        .iter()
        .find(|(k, _)| k.as_str() == Some("workflows"))
        .map(|(k, v)| (k, v))
}

/// Whether an earlier run added workflow `v`, with the `file` of its
/// implementation.
fn generated_file(v: &Node) -> Option<Option<String>> {
    v.get("metadata").and_then(|m| m.get(MARKER))?;
    Some(
        v.get("implementation")
            .and_then(|i| i.get("primary").or(Some(i)))
            .and_then(|p| p.get("file"))
            .and_then(Node::as_str)
            .map(str::to_string),
    )
}

/// The end of the last line any part of `node` is written on.
fn end_of_block(text: &str, node: &Node) -> usize {
    let mut end = last_token_end(node);
    // Through the end of that line.
    match text[end..].find('\n') {
        Some(i) => end += i + 1,
        None => end = text.len(),
    }
    end
}

fn last_token_end(node: &Node) -> usize {
    match &node.kind {
        Kind::Seq(items) => items
            .iter()
            .map(last_token_end)
            .max()
            .unwrap_or(node.span.start),
        Kind::Map(entries) => entries
            .iter()
            .map(|(k, v)| last_token_end(k).max(last_token_end(v)))
            .max()
            .unwrap_or(node.span.start),
        _ => node.span.end.max(node.span.start),
    }
}

fn is_flow(text: &str, node: &Node) -> bool {
    matches!(node.kind, Kind::Map(_) | Kind::Seq(_))
        && text[node.span.start..].trim_start().starts_with(['{', '['])
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::yaml::node::{LoadLimits, parse};

    fn outline(text: &str) -> Outline {
        let source = Arc::new(SourceFile::new("t.yaml", text));
        let root = parse(&source, LoadLimits::default()).unwrap();
        Outline::of(source, &root)
    }

    #[test]
    fn finds_the_topology_and_the_generated_workflows() {
        let text = "topology_template:\n  node_templates: {}\n  workflows:\n    mine: {}\n    deploy:\n      metadata: {toscanini_generated: build}\n      implementation: {primary: {file: p.zip}}\n# end\n";
        let o = outline(text);
        let topo = o.topology.as_ref().unwrap();
        assert_eq!((topo.key, topo.first_key, topo.flow), (0, Some(21), false));
        assert_eq!(&text[topo.end..], "# end\n");
        let names: Vec<_> = o.entries().iter().map(|w| w.name.as_deref()).collect();
        assert_eq!(names, [Some("mine"), Some("deploy")]);
        let generated: Vec<_> = o.entries().iter().map(|w| w.generated.clone()).collect();
        assert_eq!(generated, [None, Some(Some("p.zip".to_string()))]);
    }

    #[test]
    fn a_flow_topology_and_no_workflows() {
        let o = outline("topology_template: {node_templates: {}}\n");
        let topo = o.topology.as_ref().unwrap();
        assert!(topo.flow && topo.workflows.is_none());
        assert!(o.entries().is_empty());
        assert!(outline("a: 1\n").topology.is_none());
    }
}
