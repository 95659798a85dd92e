//! Reading one TOSCA 1.0 Definitions document from its element tree.
//!
//! Lenient where real CSARs deviate from the XSD without changing meaning
//! (element order, unknown extension elements, `true`/`false` for
//! `yes`/`no`), strict where meaning is at stake (missing ids and types,
//! undeclared prefixes).

use std::sync::Arc;

use super::ast::*;
use super::dom::{Document, ElemId};
use super::names::{TOSCA, TOSCANINI, WINERY};
use crate::diagnostics::{Diagnostic, Diagnostics, SourceFile, Span, codes};

/// Parse a Definitions document. `None` (with diagnostics) if the text is
/// not well-formed XML or not a TOSCA 1.0 Definitions document.
pub(crate) fn read(
    source: Arc<SourceFile>,
    max_depth: usize,
) -> (Option<Definitions>, Diagnostics) {
    let mut diags = Diagnostics::new();
    let doc = match Document::parse(source.clone(), max_depth) {
        Ok(d) => d,
        Err(d) => return (None, d.into()),
    };
    let root = doc.root();
    let in_tosca = root.ns.as_deref() == Some(TOSCA);
    if in_tosca && &*root.local == "ServiceTemplate" {
        diags.push(
            Diagnostic::error(
                codes::XML_CSD02,
                "this document uses the 2012 draft (CSD02) TOSCA dialect, which is not supported",
            )
            .at(source.location(doc.name_span(0)))
            .hint("re-export it from Winery, which writes the final TOSCA 1.0 dialect with a <Definitions> root"),
        );
        return (None, diags);
    }
    if !in_tosca || &*root.local != "Definitions" {
        let ns = root.ns.as_deref().unwrap_or("no namespace");
        diags.push(
            Diagnostic::error(
                codes::XML_NOT_DEFINITIONS,
                format!(
                    "the root element is `{}` in {ns}, not a TOSCA 1.0 `Definitions`",
                    root.local
                ),
            )
            .at(source.location(doc.name_span(0)))
            .hint(format!(
                "TOSCA 1.0 documents start with <Definitions xmlns=\"{TOSCA}\" ...>"
            )),
        );
        return (None, diags);
    }
    let mut r = Reader {
        doc: &doc,
        diags: &mut diags,
    };
    let defs = r.definitions();
    (Some(defs), diags)
}

struct Reader<'a> {
    doc: &'a Document,
    diags: &'a mut Diagnostics,
}

impl Reader<'_> {
    fn loc(&self, span: Span) -> crate::diagnostics::Location {
        self.doc.source.location(span)
    }

    fn tosca_children(&self, id: ElemId, local: &'static str) -> Vec<ElemId> {
        self.doc.children(id, TOSCA, local).collect()
    }

    fn tosca_child(&self, id: ElemId, local: &'static str) -> Option<ElemId> {
        self.doc.child(id, TOSCA, local)
    }

    /// A required attribute; missing or empty is an error.
    fn required(&mut self, id: ElemId, attr: &str) -> Option<String> {
        match self.doc.attr(id, attr).map(str::trim) {
            Some(v) if !v.is_empty() => Some(v.to_string()),
            _ => {
                let e = self.doc.get(id);
                let d = Diagnostic::error(
                    codes::XML_MISSING_ATTRIBUTE,
                    format!("<{}> has no `{attr}` attribute", e.local),
                )
                .at(self.loc(self.doc.name_span(id)));
                self.diags.push(d);
                None
            }
        }
    }

    fn optional(&self, id: ElemId, attr: &str) -> Option<String> {
        self.doc
            .attr(id, attr)
            .map(|v| v.trim().to_string())
            .filter(|v| !v.is_empty())
    }

    /// A `yes`/`no` attribute; `true`/`false` accepted with a warning.
    fn boolean(&mut self, id: ElemId, attr: &str, default: bool) -> bool {
        let Some(a) = self.doc.attr_full(id, attr) else {
            return default;
        };
        match a.value.trim() {
            "yes" => true,
            "no" => false,
            other => {
                let parsed = match other {
                    "true" => Some(true),
                    "false" => Some(false),
                    _ => None,
                };
                let d = Diagnostic::warning(
                    codes::XML_BAD_VALUE,
                    format!(
                        "`{attr}=\"{other}\"` is not a TOSCA boolean (`yes` or `no`); read as `{}`",
                        if parsed.unwrap_or(default) {
                            "yes"
                        } else {
                            "no"
                        }
                    ),
                )
                .at(self.loc(a.span));
                self.diags.push(d);
                parsed.unwrap_or(default)
            }
        }
    }

    /// A QName-valued attribute, resolved at its element.
    fn qref(&mut self, id: ElemId, attr: &str, required: bool) -> Option<QRef> {
        let Some(a) = self.doc.attr_full(id, attr) else {
            if required {
                self.required(id, attr);
            }
            return None;
        };
        if a.value.trim().is_empty() {
            if required {
                self.required(id, attr);
            }
            return None;
        }
        let span = a.span;
        match self.doc.resolve_qname(id, &a.value) {
            Ok(q) => Some(QRef {
                ns: q.ns,
                local: q.local,
                unprefixed: q.unprefixed,
                span,
            }),
            Err(prefix) => {
                let d = Diagnostic::error(
                    codes::XML_UNDECLARED_PREFIX,
                    format!(
                        "`{attr}=\"{}\"` uses the undeclared prefix `{prefix}`",
                        a.value.trim()
                    ),
                )
                .at(self.loc(span))
                .hint(format!(
                    "declare it, e.g. xmlns:{prefix}=\"...\" on this element or an ancestor"
                ));
                self.diags.push(d);
                None
            }
        }
    }

    fn definitions(&mut self) -> Definitions {
        let root = 0;
        let id = self.required(root, "id").unwrap_or_default();
        let target_namespace = self.required(root, "targetNamespace").unwrap_or_default();
        let mut defs = Definitions {
            source: self.doc.source.clone(),
            id,
            target_namespace: target_namespace.clone(),
            imports: Vec::new(),
            service_templates: Vec::new(),
            node_types: Vec::new(),
            relationship_types: Vec::new(),
            node_type_implementations: Vec::new(),
            relationship_type_implementations: Vec::new(),
            artifact_templates: Vec::new(),
            policy_templates: Vec::new(),
            root_start_tag: self.doc.root().start_tag,
            outline: super::outline::Outline::of(self.doc),
        };
        let children = self.doc.root().children.clone();
        for c in children {
            let e = self.doc.get(c);
            if e.ns.as_deref() != Some(TOSCA) {
                continue; // extension content is allowed anywhere
            }
            match e.local.as_ref() {
                "Import" => {
                    let import_type = self.optional(c, "importType").unwrap_or_default();
                    defs.imports.push(Import {
                        namespace: self.optional(c, "namespace"),
                        location: self.optional(c, "location"),
                        import_type,
                        span: e.span,
                    });
                }
                "ServiceTemplate" => {
                    let st = self.service_template(c, &target_namespace);
                    defs.service_templates.push(st);
                }
                "NodeType" => {
                    if let Some(header) = self.type_header(c, &target_namespace) {
                        let interfaces = self.interfaces(self.tosca_child(c, "Interfaces"));
                        let property_keys = self.winery_property_keys(c);
                        defs.node_types.push(NodeType {
                            header,
                            interfaces,
                            property_keys,
                        });
                    }
                }
                "RelationshipType" => {
                    if let Some(header) = self.type_header(c, &target_namespace) {
                        let source_interfaces =
                            self.interfaces(self.tosca_child(c, "SourceInterfaces"));
                        let target_interfaces =
                            self.interfaces(self.tosca_child(c, "TargetInterfaces"));
                        defs.relationship_types.push(RelationshipType {
                            header,
                            source_interfaces,
                            target_interfaces,
                        });
                    }
                }
                "NodeTypeImplementation" => {
                    if let Some(i) = self.implementation(c, "nodeType", &target_namespace) {
                        defs.node_type_implementations.push(i);
                    }
                }
                "RelationshipTypeImplementation" => {
                    if let Some(i) = self.implementation(c, "relationshipType", &target_namespace) {
                        defs.relationship_type_implementations.push(i);
                    }
                }
                "ArtifactTemplate" => {
                    if let Some(a) = self.artifact_template(c, &target_namespace) {
                        defs.artifact_templates.push(a);
                    }
                }
                "PolicyTemplate" => {
                    if let Some(id) = self.required(c, "id") {
                        let namespace = self
                            .optional(c, "targetNamespace")
                            .unwrap_or_else(|| target_namespace.clone());
                        let properties = self.properties(c);
                        defs.policy_templates.push(PolicyTemplate {
                            id,
                            namespace,
                            properties,
                        });
                    }
                }
                _ => {}
            }
        }
        defs
    }

    fn type_header(&mut self, id: ElemId, doc_ns: &str) -> Option<TypeHeader> {
        let name = self.required(id, "name")?;
        let namespace = self
            .optional(id, "targetNamespace")
            .unwrap_or_else(|| doc_ns.to_string());
        let derived_from = match self.tosca_child(id, "DerivedFrom") {
            Some(d) => self.qref(d, "typeRef", true),
            None => None,
        };
        let is_abstract = self.boolean(id, "abstract", false);
        Some(TypeHeader {
            name,
            namespace,
            derived_from,
            is_abstract,
            span: self.doc.get(id).span,
        })
    }

    fn interfaces(&mut self, holder: Option<ElemId>) -> Vec<Interface> {
        let Some(holder) = holder else {
            return Vec::new();
        };
        let mut out = Vec::new();
        for i in self.tosca_children(holder, "Interface") {
            let Some(name) = self.required(i, "name") else {
                continue;
            };
            let mut operations = Vec::new();
            for o in self.tosca_children(i, "Operation") {
                let Some(op_name) = self.required(o, "name") else {
                    continue;
                };
                let inputs = self.parameters(o, "InputParameters", "InputParameter");
                let outputs = self.parameters(o, "OutputParameters", "OutputParameter");
                operations.push(Operation {
                    name: op_name,
                    inputs,
                    outputs,
                    span: self.doc.name_span(o),
                });
            }
            out.push(Interface {
                name,
                operations,
                span: self.doc.name_span(i),
            });
        }
        out
    }

    fn parameters(&mut self, op: ElemId, list: &'static str, item: &'static str) -> Vec<Parameter> {
        let mut out = Vec::new();
        for l in self.tosca_children(op, list) {
            for p in self.tosca_children(l, item) {
                let Some(name) = self.required(p, "name") else {
                    continue;
                };
                let required = self.boolean(p, "required", true);
                out.push(Parameter {
                    name,
                    type_name: self
                        .optional(p, "type")
                        .unwrap_or_else(|| "xsd:string".into()),
                    required,
                });
            }
        }
        out
    }

    /// Keys of Winery's `winery:PropertiesDefinition/winery:properties/winery:key`.
    fn winery_property_keys(&self, id: ElemId) -> Vec<String> {
        let mut keys = Vec::new();
        for def in self.doc.children(id, WINERY, "PropertiesDefinition") {
            for p in self.doc.children(def, WINERY, "properties") {
                if let Some(k) = self.doc.child(p, WINERY, "key") {
                    let key = self.doc.get(k).text.trim().to_string();
                    if !key.is_empty() {
                        keys.push(key);
                    }
                }
            }
        }
        keys
    }

    fn implementation(
        &mut self,
        id: ElemId,
        of_attr: &str,
        doc_ns: &str,
    ) -> Option<TypeImplementation> {
        let name = self.required(id, "name")?;
        let implements = self.qref(id, of_attr, true)?;
        let namespace = self
            .optional(id, "targetNamespace")
            .unwrap_or_else(|| doc_ns.to_string());
        let is_abstract = self.boolean(id, "abstract", false);
        let mut ias = Vec::new();
        for list in self.tosca_children(id, "ImplementationArtifacts") {
            for ia in self.tosca_children(list, "ImplementationArtifact") {
                let Some(artifact_type) = self.qref(ia, "artifactType", true) else {
                    continue;
                };
                let artifact_ref = self.qref(ia, "artifactRef", false);
                ias.push(ImplementationArtifact {
                    name: self.optional(ia, "name"),
                    interface_name: self.optional(ia, "interfaceName"),
                    operation_name: self.optional(ia, "operationName"),
                    artifact_type,
                    artifact_ref,
                });
            }
        }
        let das = self.deployment_artifacts(id);
        Some(TypeImplementation {
            name,
            namespace,
            implements,
            is_abstract,
            implementation_artifacts: ias,
            deployment_artifacts: das,
            span: self.doc.name_span(id),
        })
    }

    fn deployment_artifacts(&mut self, id: ElemId) -> Vec<DeploymentArtifact> {
        let mut out = Vec::new();
        for list in self.tosca_children(id, "DeploymentArtifacts") {
            for da in self.tosca_children(list, "DeploymentArtifact") {
                let Some(name) = self.required(da, "name") else {
                    continue;
                };
                let Some(artifact_type) = self.qref(da, "artifactType", true) else {
                    continue;
                };
                let artifact_ref = self.qref(da, "artifactRef", false);
                out.push(DeploymentArtifact {
                    name,
                    artifact_type,
                    artifact_ref,
                    span: self.doc.name_span(da),
                });
            }
        }
        out
    }

    fn artifact_template(&mut self, id: ElemId, doc_ns: &str) -> Option<ArtifactTemplate> {
        let tid = self.required(id, "id")?;
        let artifact_type = self.qref(id, "type", true)?;
        let namespace = self
            .optional(id, "targetNamespace")
            .unwrap_or_else(|| doc_ns.to_string());
        let mut references = Vec::new();
        for list in self.tosca_children(id, "ArtifactReferences") {
            for r in self.tosca_children(list, "ArtifactReference") {
                if let Some(reference) = self.optional(r, "reference") {
                    references.push(reference);
                }
            }
        }
        let properties = self.properties(id);
        Some(ArtifactTemplate {
            id: tid,
            namespace,
            artifact_type,
            references,
            properties,
        })
    }

    fn properties(&mut self, id: ElemId) -> Option<PropertiesDoc> {
        let props = self.tosca_child(id, "Properties")?;
        let wrapper = *self.doc.get(props).children.first()?;
        let w = self.doc.get(wrapper);
        let mut doc = PropertiesDoc {
            ns: w.ns.as_deref().map(str::to_string),
            local: w.local.to_string(),
            values: Vec::new(),
        };
        for &c in &w.children {
            let e = self.doc.get(c);
            doc.values.push(PropertyValue {
                name: e.local.to_string(),
                value: self.doc.deep_text(c).trim().to_string(),
                span: e.span,
            });
        }
        Some(doc)
    }

    /// The properties a `Policy` carries inline: a TOSCA `Properties`
    /// child (as any template's), or the policy-specific content TOSCA 1.0
    /// allows (elements of other namespaces) that Winery writes: a wrapper
    /// element whose children are the properties, or the property elements
    /// themselves (`<SecurityGroup>default</SecurityGroup>`).
    fn policy_properties(&mut self, id: ElemId) -> Option<PropertiesDoc> {
        if self.tosca_child(id, "Properties").is_some() {
            return self.properties(id);
        }
        let mut doc: Option<PropertiesDoc> = None;
        for &c in &self.doc.get(id).children {
            let e = self.doc.get(c);
            if e.ns.as_deref() == Some(TOSCA) {
                continue;
            }
            let d = doc.get_or_insert_with(|| PropertiesDoc {
                ns: e.ns.as_deref().map(str::to_string),
                local: e.local.to_string(),
                values: Vec::new(),
            });
            let values: Vec<ElemId> = if e.children.is_empty() {
                vec![c]
            } else {
                e.children.clone()
            };
            for v in values {
                let ve = self.doc.get(v);
                d.values.push(PropertyValue {
                    name: ve.local.to_string(),
                    value: self.doc.deep_text(v).trim().to_string(),
                    span: ve.span,
                });
            }
        }
        doc
    }

    fn reqcaps(&mut self, id: ElemId, list: &'static str, item: &'static str) -> Vec<ReqCap> {
        let mut out = Vec::new();
        for l in self.tosca_children(id, list) {
            for r in self.tosca_children(l, item) {
                let Some(rid) = self.required(r, "id") else {
                    continue;
                };
                out.push(ReqCap {
                    name: self.optional(r, "name").unwrap_or_else(|| rid.clone()),
                    id: rid,
                    span: self.id_span(r),
                });
            }
        }
        out
    }

    fn service_template(&mut self, id: ElemId, doc_ns: &str) -> ServiceTemplate {
        let st_id = self.required(id, "id").unwrap_or_default();
        let namespace = self
            .optional(id, "targetNamespace")
            .unwrap_or_else(|| doc_ns.to_string());
        let mut st = ServiceTemplate {
            id: st_id,
            name: self.optional(id, "name"),
            namespace,
            tags: Vec::new(),
            boundary: None,
            node_templates: Vec::new(),
            relationship_templates: Vec::new(),
            topology_span: None,
            plans: Vec::new(),
            plans_span: None,
            tags_span: None,
            span: self.doc.get(id).span,
        };
        if let Some(tags) = self.tosca_child(id, "Tags") {
            st.tags_span = Some(self.doc.get(tags).span);
            for t in self.tosca_children(tags, "Tag") {
                st.tags.push(Tag {
                    name: self.optional(t, "name").unwrap_or_default(),
                    value: self
                        .doc
                        .attr(t, "value")
                        .unwrap_or_default()
                        .trim()
                        .to_string(),
                    span: self.doc.name_span(t),
                });
            }
        }
        if let Some(b) = self.tosca_child(id, "BoundaryDefinitions") {
            st.boundary = Some(self.boundary(b));
        }
        match self.tosca_child(id, "TopologyTemplate") {
            Some(topo) => {
                st.topology_span = Some(self.doc.get(topo).span);
                let children = self.doc.get(topo).children.clone();
                // The templates' vectors made at their size: they are
                // large, and each doubling copied them.
                let count = |local: &str| {
                    let named = |c: &&ElemId| &*self.doc.get(**c).local == local;
                    children.iter().filter(named).count()
                };
                st.node_templates.reserve_exact(count("NodeTemplate"));
                st.relationship_templates
                    .reserve_exact(count("RelationshipTemplate"));
                for c in children {
                    let e = self.doc.get(c);
                    if e.ns.as_deref() != Some(TOSCA) {
                        continue;
                    }
                    match e.local.as_ref() {
                        "NodeTemplate" => {
                            if let Some(n) = self.node_template(c) {
                                st.node_templates.push(n);
                            }
                        }
                        "RelationshipTemplate" => {
                            if let Some(r) = self.relationship_template(c) {
                                st.relationship_templates.push(r);
                            }
                        }
                        _ => {}
                    }
                }
            }
            None => {
                let d = Diagnostic::error(
                    codes::XML_MISSING_ATTRIBUTE,
                    format!("service template `{}` has no <TopologyTemplate>", st.id),
                )
                .at(self.loc(self.doc.name_span(id)));
                self.diags.push(d);
            }
        }
        if let Some(plans) = self.tosca_child(id, "Plans") {
            st.plans_span = Some(self.doc.get(plans).span);
            for p in self.tosca_children(plans, "Plan") {
                let reference = self
                    .tosca_child(p, "PlanModelReference")
                    .and_then(|r| self.optional(r, "reference"));
                let generated = self
                    .doc
                    .get(p)
                    .attrs
                    .iter()
                    .find(|a| a.ns.as_deref() == Some(TOSCANINI) && &*a.local == "generated")
                    .map(|a| a.value.clone());
                st.plans.push(Plan {
                    id: self.optional(p, "id").unwrap_or_default(),
                    plan_type: self.optional(p, "planType").unwrap_or_default(),
                    plan_language: self.optional(p, "planLanguage").unwrap_or_default(),
                    reference,
                    generated,
                    span: self.doc.get(p).span,
                });
            }
        }
        st
    }

    fn boundary(&mut self, id: ElemId) -> Boundary {
        let mut b = Boundary {
            span: self.doc.get(id).span,
            ..Boundary::default()
        };
        if let Some(props) = self.tosca_child(id, "Properties") {
            for maps in self.tosca_children(props, "PropertyMappings") {
                for m in self.tosca_children(maps, "PropertyMapping") {
                    b.property_mappings.push(PropertyMapping {
                        service_template_property: self
                            .optional(m, "serviceTemplatePropertyRef")
                            .unwrap_or_default(),
                        target_object: self.optional(m, "targetObjectRef").unwrap_or_default(),
                        target_property: self.optional(m, "targetPropertyRef").unwrap_or_default(),
                    });
                }
            }
        }
        if let Some(ifaces) = self.tosca_child(id, "Interfaces") {
            b.interfaces_span = Some(self.doc.get(ifaces).span);
            for i in self.tosca_children(ifaces, "Interface") {
                let mut operations = Vec::new();
                for o in self.tosca_children(i, "Operation") {
                    let plan_ref = self
                        .tosca_child(o, "Plan")
                        .and_then(|p| self.optional(p, "planRef"));
                    operations.push(BoundaryOperation {
                        name: self.optional(o, "name").unwrap_or_default(),
                        plan_ref,
                        span: self.doc.get(o).span,
                    });
                }
                b.interfaces.push(BoundaryInterface {
                    name: self.optional(i, "name").unwrap_or_default(),
                    operations,
                    span: self.doc.get(i).span,
                });
            }
        }
        b
    }

    fn node_template(&mut self, id: ElemId) -> Option<NodeTemplate> {
        let nid = self.required(id, "id");
        let node_type = self.qref(id, "type", true);
        let (nid, node_type) = (nid?, node_type?);
        let properties = self.properties(id);
        let requirements = self.reqcaps(id, "Requirements", "Requirement");
        let capabilities = self.reqcaps(id, "Capabilities", "Capability");
        let mut policies = Vec::new();
        for list in self.tosca_children(id, "Policies") {
            for p in self.tosca_children(list, "Policy") {
                let policy_type = self.qref(p, "policyType", false);
                let policy_ref = self.qref(p, "policyRef", false);
                policies.push(Policy {
                    name: self.optional(p, "name"),
                    policy_type,
                    policy_ref,
                    properties: self.policy_properties(p),
                });
            }
        }
        let deployment_artifacts = self.deployment_artifacts(id);
        Some(NodeTemplate {
            name: self.optional(id, "name").unwrap_or_else(|| nid.clone()),
            id: nid,
            node_type,
            properties,
            requirements,
            capabilities,
            policies,
            deployment_artifacts,
            span: self.id_span(id),
        })
    }

    /// Where diagnostics about a template point: its `id` attribute.
    fn id_span(&self, id: ElemId) -> Span {
        self.doc
            .attr_full(id, "id")
            .map(|a| a.span)
            .unwrap_or_else(|| self.doc.name_span(id))
    }

    fn relationship_template(&mut self, id: ElemId) -> Option<RelationshipTemplate> {
        let rid = self.required(id, "id");
        let relationship_type = self.qref(id, "type", true);
        let end = |r: &mut Self, local: &'static str| -> Option<(String, Span)> {
            match r.tosca_child(id, local) {
                Some(e) => {
                    let v = r.required(e, "ref")?;
                    Some((v, r.doc.get(e).start_tag))
                }
                None => {
                    let d = Diagnostic::error(
                        codes::XML_MISSING_ATTRIBUTE,
                        format!(
                            "relationship template `{}` has no <{local}>",
                            r.doc.attr(id, "id").unwrap_or("?")
                        ),
                    )
                    .at(r.loc(r.doc.name_span(id)));
                    r.diags.push(d);
                    None
                }
            }
        };
        let source = end(self, "SourceElement");
        let target = end(self, "TargetElement");
        let properties = self.properties(id);
        let (rid, relationship_type, source, target) = (rid?, relationship_type?, source?, target?);
        Some(RelationshipTemplate {
            name: self.optional(id, "name").unwrap_or_else(|| rid.clone()),
            id: rid,
            relationship_type,
            source,
            target,
            properties,
            span: self.id_span(id),
        })
    }
}
