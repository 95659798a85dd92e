//! Syntax of TOSCA 1.0 XML (OASIS Standard 2013, the dialect Winery and
//! OpenTOSCA write), as read from one Definitions document. Names are
//! already namespace-resolved; every item keeps its byte span for
//! diagnostics and for rewriting the document.

// The tree keeps every part of the document, with its span, whether or
// not a later stage reads it yet: nothing in the input is lost on the way.
#![allow(dead_code)]

use std::sync::Arc;

use crate::diagnostics::{SourceFile, Span};

/// A resolved QName written in an attribute.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct QRef {
    /// Namespace URI.
    pub ns: String,
    /// Local name.
    pub local: String,
    /// Written without a prefix (took the default namespace).
    pub unprefixed: bool,
    /// Span of the attribute.
    pub span: Span,
}

/// One Definitions document.
#[derive(Debug)]
pub(crate) struct Definitions {
    /// The source file (its name is the path in the CSAR).
    pub source: Arc<SourceFile>,
    /// `id` attribute.
    pub id: String,
    /// `targetNamespace` attribute.
    pub target_namespace: String,
    /// `Import` elements.
    pub imports: Vec<Import>,
    /// Service templates.
    pub service_templates: Vec<ServiceTemplate>,
    /// Node types.
    pub node_types: Vec<NodeType>,
    /// Relationship types.
    pub relationship_types: Vec<RelationshipType>,
    /// Node type implementations.
    pub node_type_implementations: Vec<TypeImplementation>,
    /// Relationship type implementations.
    pub relationship_type_implementations: Vec<TypeImplementation>,
    /// Artifact templates.
    pub artifact_templates: Vec<ArtifactTemplate>,
    /// `PolicyTemplate`s (what node templates' policies refer to).
    pub policy_templates: Vec<PolicyTemplate>,
    /// Span of the root element's start tag (for namespace declarations).
    pub root_start_tag: Span,
    /// What a write-back into this document needs of its parse, where it
    /// has service templates.
    pub outline: Option<super::outline::Outline>,
}

/// An `Import`.
#[derive(Clone, Debug)]
pub(crate) struct Import {
    /// `namespace`.
    pub namespace: Option<String>,
    /// `location`, relative to the importing document.
    pub location: Option<String>,
    /// `importType`.
    pub import_type: String,
    /// Span of the element.
    pub span: Span,
}

/// A parameter of an operation.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Parameter {
    /// `name`.
    pub name: String,
    /// `type` (free text, e.g. `xsd:string`).
    pub type_name: String,
    /// `required` (`yes` by default).
    pub required: bool,
}

/// An operation of an interface.
#[derive(Clone, Debug)]
pub(crate) struct Operation {
    /// `name`.
    pub name: String,
    /// `InputParameters`.
    pub inputs: Vec<Parameter>,
    /// `OutputParameters`.
    pub outputs: Vec<Parameter>,
    /// Span of the element.
    pub span: Span,
}

/// An interface of a type.
#[derive(Clone, Debug)]
pub(crate) struct Interface {
    /// `name` (an anyURI, compared as an opaque string).
    pub name: String,
    /// Its operations.
    pub operations: Vec<Operation>,
    /// Span of the element.
    pub span: Span,
}

/// The parts every entity type has.
#[derive(Clone, Debug)]
pub(crate) struct TypeHeader {
    /// `name`.
    pub name: String,
    /// The type's namespace (its `targetNamespace` or the document's).
    pub namespace: String,
    /// `DerivedFrom/@typeRef`.
    pub derived_from: Option<QRef>,
    /// `abstract="yes"`.
    pub is_abstract: bool,
    /// Span of the element.
    pub span: Span,
}

/// A `NodeType`.
#[derive(Clone, Debug)]
pub(crate) struct NodeType {
    /// Name, namespace, parent.
    pub header: TypeHeader,
    /// `Interfaces/Interface`.
    pub interfaces: Vec<Interface>,
    /// Property names declared by Winery's key/value `PropertiesDefinition`.
    pub property_keys: Vec<String>,
}

/// A `RelationshipType`.
#[derive(Clone, Debug)]
pub(crate) struct RelationshipType {
    /// Name, namespace, parent.
    pub header: TypeHeader,
    /// `SourceInterfaces/Interface`: operations run on the source side.
    pub source_interfaces: Vec<Interface>,
    /// `TargetInterfaces/Interface`: operations run on the target side.
    pub target_interfaces: Vec<Interface>,
}

/// A `NodeTypeImplementation` or `RelationshipTypeImplementation`.
#[derive(Clone, Debug)]
pub(crate) struct TypeImplementation {
    /// `name`.
    pub name: String,
    /// Namespace.
    pub namespace: String,
    /// `nodeType` / `relationshipType`.
    pub implements: QRef,
    /// `abstract="yes"` (never chosen).
    pub is_abstract: bool,
    /// `ImplementationArtifacts/ImplementationArtifact`.
    pub implementation_artifacts: Vec<ImplementationArtifact>,
    /// `DeploymentArtifacts/DeploymentArtifact`.
    pub deployment_artifacts: Vec<DeploymentArtifact>,
    /// Span of the element.
    pub span: Span,
}

/// An `ImplementationArtifact`.
#[derive(Clone, Debug)]
pub(crate) struct ImplementationArtifact {
    /// `name` (a Winery extension).
    pub name: Option<String>,
    /// `interfaceName`: without it, the artifact implements every interface.
    pub interface_name: Option<String>,
    /// `operationName`: without it, every operation of the interface(s).
    pub operation_name: Option<String>,
    /// `artifactType`.
    pub artifact_type: QRef,
    /// `artifactRef`.
    pub artifact_ref: Option<QRef>,
}

/// A `DeploymentArtifact`.
#[derive(Clone, Debug)]
pub(crate) struct DeploymentArtifact {
    /// `name`.
    pub name: String,
    /// `artifactType`.
    pub artifact_type: QRef,
    /// `artifactRef`.
    pub artifact_ref: Option<QRef>,
    /// Span of the element.
    pub span: Span,
}

/// An `ArtifactTemplate`.
#[derive(Clone, Debug)]
pub(crate) struct ArtifactTemplate {
    /// `id`.
    pub id: String,
    /// Namespace.
    pub namespace: String,
    /// `type`.
    pub artifact_type: QRef,
    /// `ArtifactReferences/ArtifactReference/@reference`, as written.
    pub references: Vec<String>,
    /// `Properties` (e.g. the `Playbook` of an Ansible artifact).
    pub properties: Option<PropertiesDoc>,
}

/// A `PolicyTemplate`: the properties a node template's policy gives
/// through its `policyRef`.
#[derive(Clone, Debug)]
pub(crate) struct PolicyTemplate {
    /// `id`.
    pub id: String,
    /// Namespace.
    pub namespace: String,
    /// `Properties`.
    pub properties: Option<PropertiesDoc>,
}

/// A `Properties` document: one element whose children are the properties.
#[derive(Clone, Debug, Default)]
pub(crate) struct PropertiesDoc {
    /// Namespace of the wrapper element.
    pub ns: Option<String>,
    /// Local name of the wrapper element.
    pub local: String,
    /// Child elements as name → text, in document order.
    pub values: Vec<PropertyValue>,
}

/// One property value.
#[derive(Clone, Debug)]
pub(crate) struct PropertyValue {
    /// Local name of the element.
    pub name: String,
    /// Its text, trimmed.
    pub value: String,
    /// Span of the element.
    pub span: Span,
}

/// A `Requirement` or `Capability` of a node template.
#[derive(Clone, Debug)]
pub(crate) struct ReqCap {
    /// `id` (what relationship ends may name).
    pub id: String,
    /// `name`.
    pub name: String,
    /// Span.
    pub span: Span,
}

/// A `Policy` of a node template.
#[derive(Clone, Debug)]
pub(crate) struct Policy {
    /// `name`.
    pub name: Option<String>,
    /// `policyType`.
    pub policy_type: Option<QRef>,
    /// `policyRef`: the `PolicyTemplate` with its properties.
    pub policy_ref: Option<QRef>,
    /// Properties written inside the `Policy` itself (Winery writes them
    /// so), which override those of the policy template.
    pub properties: Option<PropertiesDoc>,
}

/// A `NodeTemplate`.
#[derive(Clone, Debug)]
pub(crate) struct NodeTemplate {
    /// `id`.
    pub id: String,
    /// `name` (defaults to the id).
    pub name: String,
    /// `type`.
    pub node_type: QRef,
    /// `Properties`.
    pub properties: Option<PropertiesDoc>,
    /// `Requirements/Requirement`.
    pub requirements: Vec<ReqCap>,
    /// `Capabilities/Capability`.
    pub capabilities: Vec<ReqCap>,
    /// `Policies/Policy`.
    pub policies: Vec<Policy>,
    /// `DeploymentArtifacts/DeploymentArtifact`.
    pub deployment_artifacts: Vec<DeploymentArtifact>,
    /// Span of the element.
    pub span: Span,
}

/// A `RelationshipTemplate`.
#[derive(Clone, Debug)]
pub(crate) struct RelationshipTemplate {
    /// `id`.
    pub id: String,
    /// `name`.
    pub name: String,
    /// `type`.
    pub relationship_type: QRef,
    /// `SourceElement/@ref` and its span.
    pub source: (String, Span),
    /// `TargetElement/@ref` and its span.
    pub target: (String, Span),
    /// `Properties`.
    pub properties: Option<PropertiesDoc>,
    /// Span of the element.
    pub span: Span,
}

/// A `Tag` of a service template.
#[derive(Clone, Debug)]
pub(crate) struct Tag {
    /// `name`.
    pub name: String,
    /// `value`.
    pub value: String,
    /// Span.
    pub span: Span,
}

/// A `PropertyMapping` of the boundary definitions.
#[derive(Clone, Debug)]
pub(crate) struct PropertyMapping {
    /// `serviceTemplatePropertyRef` (an XPath into the boundary properties).
    pub service_template_property: String,
    /// `targetObjectRef` (a template id).
    pub target_object: String,
    /// `targetPropertyRef` (an XPath into the template's properties).
    pub target_property: String,
}

/// An operation of a boundary interface.
#[derive(Clone, Debug)]
pub(crate) struct BoundaryOperation {
    /// `name`.
    pub name: String,
    /// `Plan/@planRef`, when the operation is bound to a plan.
    pub plan_ref: Option<String>,
    /// Span of the element.
    pub span: Span,
}

/// An interface of the boundary definitions.
#[derive(Clone, Debug)]
pub(crate) struct BoundaryInterface {
    /// `name`.
    pub name: String,
    /// Its operations.
    pub operations: Vec<BoundaryOperation>,
    /// Span of the element.
    pub span: Span,
}

/// `BoundaryDefinitions`.
#[derive(Clone, Debug, Default)]
pub(crate) struct Boundary {
    /// Span of the element.
    pub span: Span,
    /// `Properties/PropertyMappings/PropertyMapping`.
    pub property_mappings: Vec<PropertyMapping>,
    /// `Interfaces` element span, if present.
    pub interfaces_span: Option<Span>,
    /// `Interfaces/Interface`.
    pub interfaces: Vec<BoundaryInterface>,
}

/// A `Plan` already in the service template.
#[derive(Clone, Debug)]
pub(crate) struct Plan {
    /// `id`.
    pub id: String,
    /// `planType`.
    pub plan_type: String,
    /// `planLanguage`.
    pub plan_language: String,
    /// `PlanModelReference/@reference`.
    pub reference: Option<String>,
    /// Value of toscanini's `generated` marker, if toscanini wrote it.
    pub generated: Option<String>,
    /// Span of the element.
    pub span: Span,
}

/// A `ServiceTemplate`.
#[derive(Clone, Debug)]
pub(crate) struct ServiceTemplate {
    /// `id`.
    pub id: String,
    /// `name`.
    pub name: Option<String>,
    /// Namespace (its `targetNamespace` or the document's).
    pub namespace: String,
    /// `Tags/Tag`.
    pub tags: Vec<Tag>,
    /// `BoundaryDefinitions`.
    pub boundary: Option<Boundary>,
    /// `TopologyTemplate/NodeTemplate`.
    pub node_templates: Vec<NodeTemplate>,
    /// `TopologyTemplate/RelationshipTemplate`.
    pub relationship_templates: Vec<RelationshipTemplate>,
    /// Span of `TopologyTemplate`.
    pub topology_span: Option<Span>,
    /// `Plans/Plan`.
    pub plans: Vec<Plan>,
    /// Span of `Plans`, if present.
    pub plans_span: Option<Span>,
    /// Span of `Tags`, if present.
    pub tags_span: Option<Span>,
    /// Span of the whole element.
    pub span: Span,
}
