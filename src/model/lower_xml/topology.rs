//! The service template as a whole: which one is compiled, and the order
//! in which its parts are lowered.
//!
//! In: the entry document (and `--service-template`). Out: the
//! [`Topology`]: node templates, then relationship templates, outputs,
//! policies and the scaling regions of its tags.

use super::{Lowerer, XmlOptions};
use crate::diagnostics::{Diagnostic, Diagnostics, Location, codes};
use crate::model::{Dialect, ServiceTemplateInfo, Topology};
use crate::xml::ast::{self, Definitions};

impl<'a> Lowerer<'a> {
    /// The topology of service template `st`: its node templates, then
    /// its relationship templates (whose ends name them), outputs,
    /// policies and scaling regions.
    pub(super) fn service_template(
        &mut self,
        st: &'a ast::ServiceTemplate,
        doc: &'a Definitions,
    ) -> Topology {
        let mut nodes = self.node_templates(st, doc);
        let relationships = self.relationship_templates(st, doc, &mut nodes);
        let info = ServiceTemplateInfo {
            id: st.id.clone(),
            namespace: st.namespace.clone(),
            file: doc.source.name().to_string(),
        };
        let types = std::mem::take(&mut self.types);
        let mut topology = Topology::new(Dialect::Xml, info, types, nodes.nodes, relationships);
        topology.outputs = self.outputs(st, doc, &topology);
        topology.policies = nodes.policies;
        let tags: Vec<(String, String, Location)> = st
            .tags
            .iter()
            .map(|t| (t.name.clone(), t.value.clone(), doc.source.location(t.span)))
            .collect();
        let (regions, d) = crate::model::parse_scaling_tags(&topology, &tags);
        self.diags.extend(d);
        topology.regions = regions;
        topology
    }

    /// Report an id used a second time (`prev` is its first use).
    pub(super) fn duplicate_id(
        &mut self,
        doc: &Definitions,
        id: &str,
        span: crate::diagnostics::Span,
        prev: crate::diagnostics::Span,
    ) {
        let (line, _) = doc.source.line_col(prev.start);
        self.diags.push(
            Diagnostic::error(
                codes::XML_DUPLICATE_ID,
                format!("the id `{id}` is used twice"),
            )
            .at(doc.source.location(span))
            .note(format!("first used on line {line}"))
            .hint("ids of templates, requirements and capabilities must be unique in a document"),
        );
    }
}

pub(super) fn find_service_template<'a>(
    docs: &'a [Definitions],
    options: &XmlOptions,
    diags: &mut Diagnostics,
) -> Option<(&'a ast::ServiceTemplate, &'a Definitions)> {
    let entry = docs.first()?;
    let all: Vec<(&ast::ServiceTemplate, &Definitions)> = docs
        .iter()
        .flat_map(|d| d.service_templates.iter().map(move |s| (s, d)))
        .collect();
    let found = match &options.service_template {
        Some(want) => all.iter().find(|(s, _)| &s.id == want).copied(),
        None => entry
            .service_templates
            .first()
            .map(|s| (s, entry))
            .or_else(|| all.first().copied()),
    };
    if found.is_none() {
        let message = match &options.service_template {
            Some(want) => format!(
                "there is no service template `{want}` (found: {})",
                if all.is_empty() {
                    "none".to_string()
                } else {
                    all.iter()
                        .map(|(s, _)| format!("`{}`", s.id))
                        .collect::<Vec<_>>()
                        .join(", ")
                }
            ),
            None => format!(
                "the entry definitions `{}` contain no service template",
                entry.source.name()
            ),
        };
        diags.push(
            Diagnostic::error(codes::NO_SERVICE_TEMPLATE, message)
                .at(Location::file(entry.source.name()))
                .hint(
                    "a CSAR to compile must contain a <ServiceTemplate> with a <TopologyTemplate>",
                ),
        );
    }
    found
}
