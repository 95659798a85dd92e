//! Node templates of a TOSCA 1.0 service template (§12.1).
//!
//! In: the `<NodeTemplate>`s and the type index. Out: numbered model
//! [`NodeTemplate`]s with their type's interfaces and the deployment
//! artifacts of the type's implementations overlaid by the template's;
//! the ids of templates, requirements and capabilities (relationship ends
//! name any of them); their policies. A duplicate id or an unknown type
//! is reported and the template left out.

use foldhash::HashMap;
use std::collections::BTreeSet;

use indexmap::IndexMap;

use super::Lowerer;
use super::index::key;
use crate::diagnostics::Span;
use crate::diagnostics::{Diagnostic, codes};
use crate::model::{NodeId, NodeTemplate, Policy, PolicyTarget, TypeId, Value};
use crate::xml::ast::{self, Definitions};

/// The node templates of a service template, as lowered.
pub(super) struct Nodes {
    pub(super) nodes: Vec<NodeTemplate>,
    /// Node ids by the id of a template, or of its requirements and
    /// capabilities.
    pub(super) ids: HashMap<String, NodeId>,
    /// Every id used so far, where it is first used.
    pub(super) seen_ids: HashMap<String, Span>,
    /// Templates that failed to lower, with their requirements and
    /// capabilities: relationships to them are skipped without a second,
    /// cascading error.
    pub(super) failed: BTreeSet<String>,
    /// The policies of the node templates.
    pub(super) policies: Vec<Policy>,
}

impl<'a> Lowerer<'a> {
    /// Lower the node templates of `st`, in order.
    pub(super) fn node_templates(
        &mut self,
        st: &'a ast::ServiceTemplate,
        doc: &'a Definitions,
    ) -> Nodes {
        // Made at their size: a topology of 100k nodes grew each map
        // through a dozen rehashes.
        let ids: usize = st
            .node_templates
            .iter()
            .map(|n| 1 + n.requirements.len() + n.capabilities.len())
            .sum();
        let mut out = Nodes {
            nodes: Vec::with_capacity(st.node_templates.len()),
            ids: HashMap::with_capacity_and_hasher(ids, Default::default()),
            seen_ids: HashMap::with_capacity_and_hasher(
                ids + st.relationship_templates.len(),
                Default::default(),
            ),
            failed: BTreeSet::new(),
            policies: Vec::new(),
        };
        for n in &st.node_templates {
            if let Some(prev) = out.seen_ids.insert(n.id.clone(), n.span) {
                self.duplicate_id(doc, &n.id, n.span, prev);
                continue;
            }
            let found = self.find_node_type(&n.node_type, doc);
            if found.is_none() {
                self.unknown_type("node type", &n.node_type, doc);
            }
            let Some(type_id) = found.and_then(|f| self.node_type(f)) else {
                out.failed.insert(n.id.clone());
                out.failed.extend(
                    n.requirements
                        .iter()
                        .chain(&n.capabilities)
                        .map(|rc| rc.id.clone()),
                );
                continue;
            };
            let node = self.node_template(n, type_id, doc);
            let id = NodeId(out.nodes.len() as u32);
            out.ids.insert(n.id.clone(), id);
            out.policies.extend(self.node_policies(n, id, doc));
            for rc in n.requirements.iter().chain(&n.capabilities) {
                if let Some(prev) = out.seen_ids.insert(rc.id.clone(), rc.span) {
                    self.duplicate_id(doc, &rc.id, rc.span, prev);
                }
                out.ids.entry(rc.id.clone()).or_insert(id);
            }
            out.nodes.push(node);
        }
        out
    }

    /// One node template of type `type_id`: it is running (an existing
    /// node, registered only) if its `State` property says so.
    fn node_template(
        &mut self,
        n: &'a ast::NodeTemplate,
        type_id: TypeId,
        doc: &'a Definitions,
    ) -> NodeTemplate {
        let (interfaces, impl_das, keys) = self.node_type_facts(type_id);
        let properties = self.properties(n.properties.as_ref(), &keys);
        let running = properties
            .get("State")
            .and_then(Value::as_str)
            .is_some_and(|s| s.eq_ignore_ascii_case("running"));
        let mut artifacts = impl_das;
        for da in self.deployment_artifacts(&n.deployment_artifacts, doc) {
            artifacts.retain(|a| a.name != da.name);
            artifacts.push(da);
        }
        NodeTemplate {
            id: n.id.clone(),
            name: n.name.clone(),
            type_id,
            properties,
            properties_element: n
                .properties
                .as_ref()
                .map(|p| (p.ns.clone().unwrap_or_default(), p.local.clone())),
            interfaces,
            artifacts,
            running,
            selection: None,
            is_abstract: self.types.get(type_id).is_abstract,
            origin: Some(doc.source.location(n.span)),
        }
    }
}

impl Lowerer<'_> {
    /// The policies of a node template, as the model keeps them: typed by
    /// their QName (`{ns}local`; TOSCA 1.0 policy types are not resolved,
    /// the plans that read policies match their local names), with the
    /// properties of the policy template their `policyRef` names, then
    /// those written inside the policy (which win, as a template's own
    /// properties win over its type's). A `policyRef` that names no policy
    /// template is an error.
    fn node_policies(
        &mut self,
        n: &ast::NodeTemplate,
        id: NodeId,
        doc: &Definitions,
    ) -> Vec<Policy> {
        let mut out = Vec::new();
        for p in &n.policies {
            let Some(t) = p.policy_type.as_ref() else {
                continue;
            };
            let name = p.name.clone().unwrap_or_default();
            let mut properties = IndexMap::new();
            if let Some(r) = &p.policy_ref {
                match self.index.policy_templates.get(&key(r)) {
                    Some(found) => {
                        for v in found.item.properties.iter().flat_map(|d| &d.values) {
                            properties.insert(v.name.clone(), Value::Scalar(v.value.clone()));
                        }
                    }
                    None => self.diags.push(
                        Diagnostic::error(
                            codes::DANGLING_REFERENCE,
                            format!(
                                "policy `{name}` of node template `{}` refers to the policy template `{{{}}}{}`, which is not defined",
                                n.id, r.ns, r.local
                            ),
                        )
                        .at(doc.source.location(r.span))
                        .hint("define a <PolicyTemplate> with that id in that namespace, or import the document that defines it"),
                    ),
                }
            }
            for v in p.properties.iter().flat_map(|d| &d.values) {
                properties.insert(v.name.clone(), Value::Scalar(v.value.clone()));
            }
            out.push(Policy {
                name,
                types: vec![format!("{{{}}}{}", t.ns, t.local)],
                targets: vec![PolicyTarget::Node(id)],
                properties,
                metadata: Vec::new(),
                origin: Some(doc.source.location(t.span)),
            });
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::super::lower_text;
    use crate::diagnostics::codes;
    use crate::model::Value;

    #[test]
    fn a_running_template_is_kept_and_a_duplicate_id_is_not() {
        let (t, d) = lower_text(
            r#"<NodeType name="Server"/>
            <ServiceTemplate id="S"><TopologyTemplate>
              <NodeTemplate id="vm" type="ex:Server">
                <Properties><P xmlns=""><State>Running</State></P></Properties>
              </NodeTemplate>
              <NodeTemplate id="vm" type="ex:Server"/>
              <NodeTemplate id="lost" type="ex:Nothing"/>
            </TopologyTemplate></ServiceTemplate>"#,
        );
        let t = t.unwrap();
        assert_eq!(t.nodes.len(), 1);
        assert!(t.nodes[0].running);
        assert_eq!(
            t.nodes[0].properties.get("State"),
            Some(&Value::Scalar("Running".into()))
        );
        assert!(d.iter().any(|d| d.code == codes::XML_DUPLICATE_ID));
        assert!(d.iter().any(|d| d.code == codes::UNKNOWN_TYPE));
    }

    #[test]
    fn a_policy_gets_the_properties_of_its_policy_template_and_a_dangling_ref_is_an_error() {
        let (t, d) = lower_text(
            r#"<NodeType name="Server"/>
            <PolicyTemplate id="PT" type="ex:Test">
              <Properties><P xmlns=""><OperationName>ping</OperationName></P></Properties>
            </PolicyTemplate>
            <ServiceTemplate id="S"><TopologyTemplate>
              <NodeTemplate id="vm" type="ex:Server"><Policies>
                <Policy name="ok" policyType="ex:Test" policyRef="ex:PT"/>
                <Policy name="lost" policyType="ex:Test" policyRef="ex:Nowhere"/>
              </Policies></NodeTemplate>
            </TopologyTemplate></ServiceTemplate>"#,
        );
        let t = t.unwrap();
        assert_eq!(
            t.policies[0].properties.get("OperationName"),
            Some(&Value::Scalar("ping".into()))
        );
        assert!(t.policies[1].properties.is_empty());
        let dangling: Vec<_> = d
            .iter()
            .filter(|d| d.code == codes::DANGLING_REFERENCE)
            .collect();
        assert_eq!(dangling.len(), 1);
        assert!(
            dangling[0]
                .message
                .contains("policy `lost` of node template `vm` refers to the policy template `{http://example.org/types}Nowhere`"),
            "{}",
            dangling[0].message
        );
    }

    #[test]
    fn a_policy_reads_its_inline_properties_in_every_shape_winery_writes() {
        let (t, d) = lower_text(
            r#"<NodeType name="Server"/>
            <PolicyTemplate id="PT" type="ex:Test">
              <Properties><P xmlns=""><OperationName>ping</OperationName><InterfaceName>i</InterfaceName></P></Properties>
            </PolicyTemplate>
            <ServiceTemplate id="S"><TopologyTemplate>
              <NodeTemplate id="vm" type="ex:Server"><Policies>
                <Policy name="wrapped" policyType="ex:Test">
                  <Properties><P xmlns=""><OperationName>a</OperationName></P></Properties>
                </Policy>
                <Policy name="content" policyType="ex:Test">
                  <P xmlns="urn:p"><OperationName>b</OperationName><InterfaceName>i</InterfaceName></P>
                </Policy>
                <Policy name="bare" policyType="ex:Test">
                  <SecurityGroup xmlns="urn:w">default</SecurityGroup>
                </Policy>
                <Policy name="both" policyType="ex:Test" policyRef="ex:PT">
                  <P xmlns="urn:p"><OperationName>c</OperationName></P>
                </Policy>
              </Policies></NodeTemplate>
            </TopologyTemplate></ServiceTemplate>"#,
        );
        assert!(d.is_empty(), "{d:?}");
        let t = t.unwrap();
        let get = |i: usize, k: &str| t.policies[i].properties.get(k).cloned();
        let s = |v: &str| Some(Value::Scalar(v.into()));
        assert_eq!(get(0, "OperationName"), s("a"));
        assert_eq!(get(1, "OperationName"), s("b"));
        assert_eq!(get(1, "InterfaceName"), s("i"));
        assert_eq!(get(2, "SecurityGroup"), s("default"));
        // the inline value wins over the policy template's, the rest stays
        assert_eq!(get(3, "OperationName"), s("c"));
        assert_eq!(get(3, "InterfaceName"), s("i"));
    }
}
