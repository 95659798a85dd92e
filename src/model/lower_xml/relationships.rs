//! Relationship templates of a TOSCA 1.0 service template (§12.2).
//!
//! In: the `<RelationshipTemplate>`s and the lowered node templates.
//! Out: model [`RelationshipTemplate`]s whose ends (a node template, or a
//! requirement or capability of one) are node ids, with their ordering
//! kind and the source and target interfaces of their type. A duplicate
//! id, an unknown type or end is reported and the relationship left out;
//! one to a node that failed to lower is skipped silently.

use foldhash::HashMap;
use std::sync::Arc;

use super::Lowerer;
use super::nodes::Nodes;
use crate::diagnostics::{Diagnostic, codes};
use crate::model::{NodeId, RelKind, RelationshipTemplate};
use crate::xml::ast::{self, Definitions};

impl<'a> Lowerer<'a> {
    /// Lower the relationship templates of `st`.
    pub(super) fn relationship_templates(
        &mut self,
        st: &'a ast::ServiceTemplate,
        doc: &'a Definitions,
        nodes: &mut Nodes,
    ) -> Vec<RelationshipTemplate> {
        let mut relationships = Vec::with_capacity(st.relationship_templates.len());
        for r in &st.relationship_templates {
            if let Some(prev) = nodes.seen_ids.insert(r.id.clone(), r.span) {
                self.duplicate_id(doc, &r.id, r.span, prev);
                continue;
            }
            if let Some(rel) = self.relationship_template(r, doc, nodes) {
                relationships.push(rel);
            }
        }
        relationships
    }

    /// One relationship template, or `None` when its type or an end is
    /// unknown or an end failed to lower.
    fn relationship_template(
        &mut self,
        r: &'a ast::RelationshipTemplate,
        doc: &'a Definitions,
        nodes: &Nodes,
    ) -> Option<RelationshipTemplate> {
        let Some(found) = self.find_relationship_type(&r.relationship_type, doc) else {
            self.unknown_type("relationship type", &r.relationship_type, doc);
            return None;
        };
        let type_id = self.relationship_type(found)?;
        if nodes.failed.contains(&r.source.0) || nodes.failed.contains(&r.target.0) {
            return None;
        }
        let source = self.end(&nodes.ids, r, &r.source, "source", doc);
        let target = self.end(&nodes.ids, r, &r.target, "target", doc);
        let (Some(source), Some(target)) = (source, target) else {
            return None;
        };
        let kind = self.classify(type_id);
        if kind == RelKind::Other {
            self.diags.push(
                Diagnostic::warning(
                    codes::W_UNKNOWN_RELATIONSHIP_KIND,
                    format!(
                        "relationship `{}` has type `{}`, which derives from none of HostedOn, DependsOn, DeployedOn, ConnectsTo; it is ordered like DependsOn (target before source)",
                        r.id,
                        self.types.get(type_id).name
                    ),
                )
                .at(doc.source.location(r.span))
                .hint("derive the relationship type from a ToscaBaseTypes type, or choose the ordering with --unknown-relationships"),
            );
        }
        let (source_interfaces, target_interfaces) = self.relationship_interfaces(type_id);
        Some(RelationshipTemplate {
            id: r.id.clone(),
            name: r.name.clone(),
            type_id,
            kind,
            source,
            target,
            properties: self.properties(r.properties.as_ref(), &[]),
            interfaces: Arc::new(Vec::new()),
            source_interfaces,
            target_interfaces,
            origin: Some(doc.source.location(r.span)),
        })
    }

    /// The node a relationship end names (`which`: source or target).
    pub(super) fn end(
        &mut self,
        ids: &HashMap<String, NodeId>,
        r: &ast::RelationshipTemplate,
        end: &(String, crate::diagnostics::Span),
        which: &str,
        doc: &Definitions,
    ) -> Option<NodeId> {
        match ids.get(&end.0) {
            Some(&n) => Some(n),
            None => {
                self.diags.push(
                    Diagnostic::error(
                        codes::DANGLING_REFERENCE,
                        format!(
                            "relationship `{}` has {which} `{}`, which is not a node template, requirement or capability of the topology",
                            r.id, end.0
                        ),
                    )
                    .at(doc.source.location(end.1))
                    .hint(format!("`ref` must be the id of a node template (or of one of its {})", if which == "source" { "requirements" } else { "capabilities" })),
                );
                None
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::lower_text;
    use crate::diagnostics::codes;
    use crate::model::RelKind;

    const TYPES: &str = r#"<RelationshipType name="HostedOn" targetNamespace="http://docs.oasis-open.org/tosca/ns/2011/12/ToscaBaseTypes"/>
        <NodeType name="Server"/>"#;

    #[test]
    fn an_end_may_name_a_requirement_of_a_node() {
        let (t, d) = lower_text(&format!(
            r#"{TYPES}<ServiceTemplate id="S"><TopologyTemplate>
              <NodeTemplate id="vm" type="ex:Server"/>
              <NodeTemplate id="app" type="ex:Server">
                <Requirements><Requirement id="app_host" name="host" type="ex:Host"/></Requirements>
              </NodeTemplate>
              <RelationshipTemplate id="r" type="bt:HostedOn">
                <SourceElement ref="app_host"/><TargetElement ref="vm"/>
              </RelationshipTemplate>
              <RelationshipTemplate id="dangling" type="bt:HostedOn">
                <SourceElement ref="app"/><TargetElement ref="nowhere"/>
              </RelationshipTemplate>
            </TopologyTemplate></ServiceTemplate>"#
        ));
        let t = t.unwrap();
        assert_eq!(t.relationships.len(), 1);
        let r = &t.relationships[0];
        assert_eq!(r.kind, RelKind::HostedOn);
        assert_eq!(t.node(r.source).id, "app");
        assert_eq!(t.node(r.target).id, "vm");
        assert!(
            d.iter().any(|d| d.code == codes::DANGLING_REFERENCE
                && d.message.contains("has target `nowhere`"))
        );
    }

    #[test]
    fn ends_that_failed_to_lower_are_skipped_silently() {
        let (t, d) = lower_text(&format!(
            r#"{TYPES}<ServiceTemplate id="S"><TopologyTemplate>
              <NodeTemplate id="vm" type="ex:Server"/>
              <NodeTemplate id="app" type="ex:Missing"/>
              <RelationshipTemplate id="r" type="bt:HostedOn">
                <SourceElement ref="app"/><TargetElement ref="vm"/>
              </RelationshipTemplate>
            </TopologyTemplate></ServiceTemplate>"#
        ));
        assert!(t.unwrap().relationships.is_empty());
        assert!(!d.iter().any(|d| d.code == codes::DANGLING_REFERENCE));
    }
}
