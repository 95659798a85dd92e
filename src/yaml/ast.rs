//! Syntax of one TOSCA YAML file (Simple Profile 1.0–1.3, TOSCA 2.0), as
//! the [`reader`](super::reader) finds it: names and references are still
//! text as written, values are still YAML [`Node`]s (functions are read at
//! lowering), and everything keeps its span for diagnostics and for
//! editing the text when plans are written back.

// The tree keeps every part of the document, with its span, whether or
// not a later stage reads it yet: nothing in the input is lost on the way.
#![allow(dead_code)]

use std::sync::Arc;

use super::node::Node;
use super::version::Version;
use crate::diagnostics::{SourceFile, Span};

/// A text with the span it was written at.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Spanned {
    /// The text.
    pub text: String,
    /// Where it is.
    pub span: Span,
}

impl Spanned {
    /// A spanned text.
    pub(crate) fn new(text: impl Into<String>, span: Span) -> Spanned {
        Spanned {
            text: text.into(),
            span,
        }
    }
}

/// One file: a service template (1.x) or TOSCA file (2.0).
#[derive(Debug)]
pub(crate) struct File {
    /// The source (its name is the path in the CSAR).
    pub source: Arc<SourceFile>,
    /// The whole document.
    pub root: Node,
    /// `tosca_definitions_version`.
    pub version: Version,
    /// `namespace` (1.x).
    pub namespace: Option<Spanned>,
    /// `profile` (2.0): the name the file's definitions are a profile of.
    pub profile: Option<Spanned>,
    /// `metadata` (and 1.x top-level `template_name` & co.), in order.
    pub metadata: Vec<(String, String)>,
    /// `imports`.
    pub imports: Vec<Import>,
    /// `repositories`: name and URL.
    pub repositories: Vec<(Spanned, Option<String>)>,
    /// Type definitions of every kind, in file order.
    pub types: Vec<TypeDef>,
    /// `topology_template` (1.x) / `service_template` (2.0).
    pub topology: Option<Topology>,
    /// `functions` (2.0): custom function definitions.
    pub functions: Vec<FunctionDef>,
}

impl File {
    /// A file of `version` with nothing read from `root` yet.
    pub(crate) fn new(source: Arc<SourceFile>, root: Node, version: Version) -> File {
        File {
            source,
            root,
            version,
            namespace: None,
            profile: None,
            metadata: Vec::new(),
            imports: Vec::new(),
            repositories: Vec::new(),
            types: Vec::new(),
            topology: None,
            functions: Vec::new(),
        }
    }
}

/// A custom function definition (2.0 §10.4).
#[derive(Clone, Debug)]
pub(crate) struct FunctionDef {
    /// Its name (without `$`).
    pub name: Spanned,
    /// What its signatures accept, in order.
    pub signatures: Vec<Signature>,
}

/// How many arguments a function signature takes.
#[derive(Clone, Debug, Default)]
pub(crate) struct Signature {
    /// `arguments`: how many must be given.
    pub arguments: usize,
    /// `optional_arguments`: how many may follow.
    pub optional: usize,
    /// `variadic`: the last argument may repeat.
    pub variadic: bool,
}

impl Signature {
    /// Whether a call with `n` arguments fits (§10.4: a variadic last
    /// argument repeats; no arguments and variadic take anything).
    pub(crate) fn accepts(&self, n: usize) -> bool {
        let (required, optional) = (self.arguments, self.optional);
        if self.variadic {
            n >= required
        } else {
            n >= required && n <= required + optional
        }
    }
}

impl File {
    /// A metadata value.
    pub(crate) fn metadata(&self, key: &str) -> Option<&str> {
        self.metadata
            .iter()
            .find(|(k, _)| k == key)
            .map(|(_, v)| v.as_str())
    }
}

/// An import.
#[derive(Clone, Debug)]
pub(crate) struct Import {
    /// `file` (1.x), `url` (2.0) or the short form.
    pub file: Option<Spanned>,
    /// `profile` (2.0).
    pub profile: Option<Spanned>,
    /// `repository`.
    pub repository: Option<Spanned>,
    /// `namespace_prefix` (1.x) / `namespace` (2.0).
    pub prefix: Option<Spanned>,
    /// The whole entry.
    pub span: Span,
}

/// What a type definition defines.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub(crate) enum TypeKind {
    /// `node_types`.
    Node,
    /// `relationship_types`.
    Relationship,
    /// `capability_types`.
    Capability,
    /// `interface_types`.
    Interface,
    /// `artifact_types`.
    Artifact,
    /// `data_types`.
    Data,
    /// `group_types`.
    Group,
    /// `policy_types`.
    Policy,
}

impl TypeKind {
    /// The section key in a file.
    pub(crate) fn section(self) -> &'static str {
        match self {
            TypeKind::Node => "node_types",
            TypeKind::Relationship => "relationship_types",
            TypeKind::Capability => "capability_types",
            TypeKind::Interface => "interface_types",
            TypeKind::Artifact => "artifact_types",
            TypeKind::Data => "data_types",
            TypeKind::Group => "group_types",
            TypeKind::Policy => "policy_types",
        }
    }

    /// Words for messages.
    pub(crate) fn noun(self) -> &'static str {
        match self {
            TypeKind::Node => "node type",
            TypeKind::Relationship => "relationship type",
            TypeKind::Capability => "capability type",
            TypeKind::Interface => "interface type",
            TypeKind::Artifact => "artifact type",
            TypeKind::Data => "data type",
            TypeKind::Group => "group type",
            TypeKind::Policy => "policy type",
        }
    }

    /// Every kind, in section order.
    pub(crate) const ALL: [TypeKind; 8] = [
        TypeKind::Artifact,
        TypeKind::Data,
        TypeKind::Capability,
        TypeKind::Interface,
        TypeKind::Relationship,
        TypeKind::Node,
        TypeKind::Group,
        TypeKind::Policy,
    ];
}

/// A type definition of any kind (keys that a kind does not have stay empty).
#[derive(Clone, Debug)]
pub(crate) struct TypeDef {
    /// Kind.
    pub kind: TypeKind,
    /// Name as written.
    pub name: Spanned,
    /// `derived_from`.
    pub derived_from: Option<Spanned>,
    /// `properties`.
    pub properties: Vec<PropertyDef>,
    /// `attributes`.
    pub attributes: Vec<PropertyDef>,
    /// `requirements` (node types).
    pub requirements: Vec<RequirementDef>,
    /// `capabilities` (node types): name and capability type.
    pub capabilities: Vec<(Spanned, Option<Spanned>)>,
    /// `interfaces`.
    pub interfaces: Vec<Interface>,
    /// `artifacts` (node types).
    pub artifacts: Vec<ArtifactDef>,
    /// Operations (interface types).
    pub operations: Vec<Operation>,
    /// Interface-level inputs (interface types).
    pub inputs: Vec<Parameter>,
    /// Capability types: the node types that may be the source of a
    /// relationship to such a capability (1.3 `valid_source_types`, 2.0
    /// `valid_source_node_types`); empty: any.
    pub valid_sources: Vec<Spanned>,
    /// Capability types (2.0): the relationship types that may reach
    /// such a capability; empty: any.
    pub valid_relationships: Vec<Spanned>,
    /// Node types: the same two lists of a capability definition, by
    /// capability name (they narrow the capability type's).
    pub capability_limits: Vec<CapabilityLimits>,
    /// Data types: what a value of the type must be besides its base
    /// type's (`constraints`, `validation`, schemas, scalar `units`).
    pub schema: ValueSchema,
    /// The whole definition.
    pub span: Span,
}

/// The valid sources and relationships a capability definition of a
/// node type declares.
#[derive(Clone, Debug)]
pub(crate) struct CapabilityLimits {
    /// The capability's name.
    pub name: String,
    /// `valid_source_types` / `valid_source_node_types`.
    pub sources: Vec<Spanned>,
    /// `valid_relationship_types`.
    pub relationships: Vec<Spanned>,
}

/// A property, attribute or input definition.
#[derive(Clone, Debug)]
pub(crate) struct PropertyDef {
    /// Name.
    pub name: Spanned,
    /// `type`.
    pub type_name: Option<String>,
    /// `required` (default true for properties and inputs).
    pub required: bool,
    /// `default`.
    pub default: Option<Node>,
    /// `value` (2.0 fixed value; 1.3 parameter value).
    pub value: Option<Node>,
    /// `description`.
    pub description: Option<String>,
    /// What a value must be besides its type.
    pub schema: ValueSchema,
}

/// What a value must be besides being of its type: the clauses of a
/// property definition or a data type that the values are checked against
/// (`model::lower_yaml::check_values`). The nodes are kept as written.
#[derive(Clone, Debug, Default)]
pub(crate) struct ValueSchema {
    /// 1.3 `constraints`: a list of constraint clauses.
    pub constraints: Option<Node>,
    /// 2.0 `validation`: a boolean expression of `$value`.
    pub validation: Option<Node>,
    /// `entry_schema` of a list or map: a type name or a definition.
    pub entry_schema: Option<Node>,
    /// `key_schema` of a map.
    pub key_schema: Option<Node>,
    /// 2.0 scalar data types (§9.1.2.2): the `units` and their
    /// multipliers.
    pub units: Vec<(String, f64)>,
    /// 2.0 scalar data types: the `prefixes` a unit may take, and theirs.
    pub prefixes: Vec<(String, f64)>,
}

impl ValueSchema {
    /// Keep `node` if `key` names one of the clauses (a definition's key,
    /// or a schema definition's, e.g. an `entry_schema`'s).
    pub(crate) fn take(&mut self, key: &str, node: &Node) {
        let slot = match key {
            "constraints" => &mut self.constraints,
            "validation" => &mut self.validation,
            "entry_schema" => &mut self.entry_schema,
            "key_schema" => &mut self.key_schema,
            _ => return,
        };
        *slot = Some(node.clone());
    }
}

/// A requirement definition in a node type.
#[derive(Clone, Debug)]
pub(crate) struct RequirementDef {
    /// Name.
    pub name: Spanned,
    /// `capability` (type or, 2.0, symbolic name).
    pub capability: Option<Spanned>,
    /// `node` (node type).
    pub node: Option<Spanned>,
    /// `relationship` (type).
    pub relationship: Option<Spanned>,
    /// Interfaces given with the relationship.
    pub relationship_interfaces: Vec<Interface>,
    /// Lower bound of `occurrences` (`count_range` in 2.0); `None` if not given.
    pub min: Option<u64>,
    /// Upper bound of `occurrences` / `count_range`; `None` if not given
    /// or `UNBOUNDED`.
    pub max: Option<u64>,
    /// `node_filter`, as written: every target must pass it, besides the
    /// assignment's (1.3 §3.7.3.5.1, 2.0 §8.4).
    pub node_filter: Option<Node>,
    /// The whole definition.
    pub span: Span,
}

/// An interface definition (types) or assignment (templates).
#[derive(Clone, Debug)]
pub(crate) struct Interface {
    /// The key: a name, or (examples do it) an interface type name.
    pub name: Spanned,
    /// `type`.
    pub type_name: Option<Spanned>,
    /// Interface-level `inputs`.
    pub inputs: Vec<Parameter>,
    /// Operations (from `operations:` or, in the old form, directly).
    pub operations: Vec<Operation>,
    /// The whole entry.
    pub span: Span,
}

/// An operation definition or assignment.
#[derive(Clone, Debug)]
pub(crate) struct Operation {
    /// Name.
    pub name: Spanned,
    /// `implementation` (or the short form).
    pub implementation: Option<Implementation>,
    /// `inputs`.
    pub inputs: Vec<Parameter>,
    /// `outputs`: name and attribute mapping.
    pub outputs: Vec<(Spanned, Node)>,
    /// The whole entry.
    pub span: Span,
}

/// An operation input: a definition (with `type`, `default`, `value`) or an
/// assignment (a bare value).
#[derive(Clone, Debug)]
pub(crate) struct Parameter {
    /// Name.
    pub name: Spanned,
    /// The assigned value, or a definition's `value`.
    pub value: Option<Node>,
    /// A definition's `default`.
    pub default: Option<Node>,
    /// A definition's `required`.
    pub required: bool,
    /// Whether this is a definition (a map with `type`/`default`/...).
    pub definition: bool,
}

/// An operation implementation.
#[derive(Clone, Debug)]
pub(crate) struct Implementation {
    /// `primary` (or the short form).
    pub primary: Option<ArtifactRef>,
    /// `dependencies`.
    pub dependencies: Vec<ArtifactRef>,
    /// The whole entry.
    pub span: Span,
}

/// An artifact named by an implementation: the name of an artifact of the
/// template or type, a file path, or an inline definition.
#[derive(Clone, Debug)]
pub(crate) enum ArtifactRef {
    /// A name or a path.
    Name(Spanned),
    /// An inline artifact definition.
    Inline(ArtifactDef),
}

/// An artifact definition.
#[derive(Clone, Debug)]
pub(crate) struct ArtifactDef {
    /// Name (the map key; the file for inline definitions).
    pub name: Spanned,
    /// `type`.
    pub type_name: Option<Spanned>,
    /// `file`.
    pub file: Option<Spanned>,
    /// `repository`.
    pub repository: Option<Spanned>,
    /// `deploy_path`: where the file goes on the node's host.
    pub deploy_path: Option<Spanned>,
    /// The whole entry.
    pub span: Span,
}

/// A topology template (1.x) / service template (2.0).
#[derive(Clone, Debug, Default)]
pub(crate) struct Topology {
    /// `inputs`.
    pub inputs: Vec<PropertyDef>,
    /// `node_templates`.
    pub node_templates: Vec<NodeTemplate>,
    /// `relationship_templates`.
    pub relationship_templates: Vec<RelationshipTemplate>,
    /// `outputs`: name and value.
    pub outputs: Vec<(Spanned, Option<Node>)>,
    /// `groups`.
    pub groups: Vec<Group>,
    /// `policies`.
    pub policies: Vec<Policy>,
    /// `substitution_mappings`.
    pub substitution: Option<Substitution>,
    /// `workflows`.
    pub workflows: Vec<Workflow>,
    /// The `topology_template` key and its value.
    pub key_span: Span,
    /// Span of the value.
    pub span: Span,
}

/// A node template.
#[derive(Clone, Debug)]
pub(crate) struct NodeTemplate {
    /// Name.
    pub name: Spanned,
    /// `type`.
    pub type_name: Option<Spanned>,
    /// `directives`.
    pub directives: Vec<Spanned>,
    /// `properties`.
    pub properties: Vec<(Spanned, Node)>,
    /// `attributes`.
    pub attributes: Vec<(Spanned, Node)>,
    /// `requirements`, in order.
    pub requirements: Vec<RequirementAssignment>,
    /// `capabilities`: name, property and attribute assignments.
    pub capabilities: Vec<CapabilityAssignment>,
    /// `interfaces`.
    pub interfaces: Vec<Interface>,
    /// `artifacts`.
    pub artifacts: Vec<ArtifactDef>,
    /// `copy` (made by the reader, which clears it).
    pub copy: Option<Spanned>,
    /// `node_filter`: with the `select` directive, what the existing node
    /// must pass (also read as leaving every requirement's target to the
    /// orchestrator, as 1.3 abstract nodes do).
    pub node_filter: Option<Node>,
    /// Whether `count`, `occurrences` or `instance_count` asks for other
    /// than exactly one instance.
    pub multiple: bool,
    /// `count` (2.0 §7.2), as written: the number of node representations.
    pub count: Option<Node>,
    /// The whole entry.
    pub span: Span,
}

/// A capability assignment.
#[derive(Clone, Debug)]
pub(crate) struct CapabilityAssignment {
    /// Name.
    pub name: Spanned,
    /// `properties`.
    pub properties: Vec<(Spanned, Node)>,
    /// `attributes`.
    pub attributes: Vec<(Spanned, Node)>,
    /// `directives` (2.0 §8.3.3): whether relationships to it may come
    /// from this topology's nodes (`internal`), from outside (`external`).
    pub directives: Vec<Spanned>,
}

/// A requirement assignment.
#[derive(Clone, Debug)]
pub(crate) struct RequirementAssignment {
    /// Name.
    pub name: Spanned,
    /// `node` (template or type name).
    pub node: Option<Spanned>,
    /// `capability`.
    pub capability: Option<Spanned>,
    /// `relationship`.
    pub relationship: Option<RelationshipAssignment>,
    /// `node_filter`, as written (evaluated where the requirement is
    /// fulfilled from the topology, and on a template `node` names).
    pub node_filter: Option<Node>,
    /// `directives` (2.0 §8.5.3): `internal` and `external`, in the order
    /// the target is looked for (empty: internal, then external).
    pub directives: Vec<Spanned>,
    /// `count` (2.0 §8.5.4): how many relationships the assignment makes.
    pub count: Option<u64>,
    /// A `count` given by an input (`$get_input: n`, as chapter 14
    /// writes it): the input's name.
    pub count_input: Option<Spanned>,
    /// `node: [template, index]` (2.0 §8.5.2): which representation of
    /// a template with a `count` the relationship reaches, and where the
    /// index is written.
    pub node_index: Option<(NodeIndex, Span)>,
    /// `optional` (2.0): whether it may stay unfulfilled.
    pub optional: bool,
    /// `allocation` (2.0 §8.5.5): amounts of the target capability's
    /// properties the relationship takes.
    pub allocation: Vec<(Spanned, Node)>,
    /// The whole entry.
    pub span: Span,
}

/// The index of `node: [template, index]`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum NodeIndex {
    /// A number.
    Fixed(u32),
    /// `$node_index`: the source representation's own.
    Same,
}

impl RequirementAssignment {
    /// The `node` as written, or nothing.
    pub(crate) fn node_text(&self) -> &str {
        self.node.as_ref().map_or("", |n| n.text.as_str())
    }
}

/// The `relationship` of a requirement assignment.
#[derive(Clone, Debug)]
pub(crate) enum RelationshipAssignment {
    /// A relationship template or type name.
    Name(Spanned),
    /// An inline relationship: `type`, `properties`, `attributes`,
    /// `interfaces`.
    Inline {
        /// `type`.
        type_name: Option<Spanned>,
        /// `properties`.
        properties: Vec<(Spanned, Node)>,
        /// `attributes`.
        attributes: Vec<(Spanned, Node)>,
        /// `interfaces`.
        interfaces: Vec<Interface>,
        /// The whole value.
        span: Span,
    },
}

/// A relationship template.
#[derive(Clone, Debug)]
pub(crate) struct RelationshipTemplate {
    /// Name.
    pub name: Spanned,
    /// `type`.
    pub type_name: Option<Spanned>,
    /// `properties`.
    pub properties: Vec<(Spanned, Node)>,
    /// `attributes`.
    pub attributes: Vec<(Spanned, Node)>,
    /// `interfaces`.
    pub interfaces: Vec<Interface>,
    /// `copy` (made by the reader, which clears it).
    pub copy: Option<Spanned>,
    /// The whole entry.
    pub span: Span,
}

/// A group.
#[derive(Clone, Debug)]
pub(crate) struct Group {
    /// Name.
    pub name: Spanned,
    /// `type`.
    pub type_name: Option<Spanned>,
    /// `members`.
    pub members: Vec<Spanned>,
    /// `properties`.
    pub properties: Vec<(Spanned, Node)>,
    /// The whole entry.
    pub span: Span,
}

/// A policy.
#[derive(Clone, Debug)]
pub(crate) struct Policy {
    /// Name.
    pub name: Spanned,
    /// `type`.
    pub type_name: Option<Spanned>,
    /// `targets`.
    pub targets: Vec<Spanned>,
    /// `properties`.
    pub properties: Vec<(Spanned, Node)>,
    /// `metadata` entries with scalar values.
    pub metadata: Vec<(Spanned, Spanned)>,
    /// `triggers`, as written.
    pub triggers: Option<Node>,
    /// The whole entry.
    pub span: Span,
}

/// `substitution_mappings`.
#[derive(Clone, Debug)]
pub(crate) struct Substitution {
    /// `node_type`.
    pub node_type: Option<Spanned>,
    /// `requirements`: exported name and `[node, requirement]`.
    pub requirements: Vec<(Spanned, Vec<Spanned>)>,
    /// Each entry of `requirements` as written, in order: its name, how
    /// many assignments it maps (2.0 §15.5), and how many of the
    /// `requirements` above it makes (one per target, §15.5.2).
    pub requirement_counts: Vec<(Spanned, MappingCount, usize)>,
    /// `capabilities`: exported name and `[node, capability]`.
    pub capabilities: Vec<(Spanned, Vec<Spanned>)>,
    /// `properties`: name and mapping as written.
    pub properties: Vec<(Spanned, Node)>,
    /// `properties` keyed `[CAPABILITY, <capability>, <property>]` or
    /// `[RELATIONSHIP, <requirement>, <index>, <property>]` (2.0 §15.2),
    /// with the input as written.
    pub keyed_properties: Vec<(MappedProperty, Node)>,
    /// `attributes` (2.0 §15.3): attribute name and output as written.
    pub attributes: Vec<(Spanned, Node)>,
    /// `attributes` keyed by a capability or relationship (2.0 §15.3).
    pub keyed_attributes: Vec<(MappedProperty, Node)>,
    /// `substitution_filter`, as written.
    pub filter: Option<Node>,
    /// `interfaces`: operation and workflow name.
    pub interfaces: Vec<(Spanned, Spanned)>,
    /// The whole value.
    pub span: Span,
}

/// How many of a substituted node's assignments of a requirement one
/// requirement mapping takes (2.0 §15.5).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum MappingCount {
    /// Keyed by the name alone: one (or, as the only mapping of its
    /// name, all of them).
    Uncounted,
    /// Keyed `[name, n]`.
    Exactly(u64),
    /// Keyed `[name, UNBOUNDED]`: every remaining one.
    Unbounded,
}

/// A property or attribute of a substituted node's capability or of a
/// relationship of its requirement (2.0 §15.2–15.3).
#[derive(Clone, Debug)]
pub(crate) enum MappedProperty {
    /// `[CAPABILITY, <capability>, <property>]`.
    Capability {
        /// The capability's name.
        capability: Spanned,
        /// The property's name.
        property: Spanned,
    },
    /// `[RELATIONSHIP, <requirement>, <index>, <property>]`; the index is
    /// 0 when left out, `ALL` for every relationship.
    Relationship {
        /// The requirement's name.
        requirement: Spanned,
        /// The index as written (`None`: 0).
        index: Option<Spanned>,
        /// The property's name.
        property: Spanned,
    },
}

impl MappedProperty {
    /// The mapping for messages: `<what> `p` of capability `c``, or of
    /// relationship `i` of requirement `r` (`what`: property or attribute).
    pub(crate) fn describe(&self, what: &str) -> String {
        match self {
            MappedProperty::Capability {
                capability,
                property,
            } => format!(
                "{what} `{}` of capability `{}`",
                property.text, capability.text
            ),
            MappedProperty::Relationship {
                requirement,
                index,
                property,
            } => format!(
                "{what} `{}` of relationship {} of requirement `{}`",
                property.text,
                index.as_ref().map_or("0", |i| i.text.as_str()),
                requirement.text
            ),
        }
    }
}

/// An imperative workflow definition.
#[derive(Clone, Debug)]
pub(crate) struct Workflow {
    /// Name.
    pub name: Spanned,
    /// `description`.
    pub description: Option<String>,
    /// `metadata`.
    pub metadata: Vec<(String, String)>,
    /// `inputs`.
    pub inputs: Vec<PropertyDef>,
    /// `preconditions` (2.0: `precondition`).
    pub preconditions: Vec<Precondition>,
    /// `steps`.
    pub steps: Vec<WorkflowStep>,
    /// `implementation` (an external workflow).
    pub implementation: Option<Implementation>,
    /// The whole entry (key and value).
    pub span: Span,
}

/// A workflow precondition.
#[derive(Clone, Debug)]
pub(crate) struct Precondition {
    /// `target`.
    pub target: Option<Spanned>,
    /// `target_relationship`.
    pub target_relationship: Option<Spanned>,
    /// `condition`, as written.
    pub condition: Option<Node>,
    /// The whole entry.
    pub span: Span,
}

/// A workflow step.
#[derive(Clone, Debug)]
pub(crate) struct WorkflowStep {
    /// Name.
    pub name: Spanned,
    /// `target`.
    pub target: Option<Spanned>,
    /// `target_relationship`.
    pub target_relationship: Option<Spanned>,
    /// `operation_host`.
    pub operation_host: Option<Spanned>,
    /// `filter`, as written.
    pub filter: Option<Node>,
    /// `activities`.
    pub activities: Vec<WorkflowActivity>,
    /// `on_success`.
    pub on_success: Vec<Spanned>,
    /// `on_failure`.
    pub on_failure: Vec<Spanned>,
    /// The whole entry.
    pub span: Span,
}

/// What a workflow activity does.
#[derive(Clone, Debug)]
pub(crate) enum ActivityKind {
    /// `delegate: workflow`.
    Delegate,
    /// `set_state: state`.
    SetState,
    /// `call_operation: interface.operation`.
    CallOperation,
    /// `inline: workflow`.
    Inline,
}

/// A workflow activity.
#[derive(Clone, Debug)]
pub(crate) struct WorkflowActivity {
    /// Which activity.
    pub kind: ActivityKind,
    /// Its argument: workflow, state or `interface.operation`.
    pub argument: Spanned,
    /// `inputs` of the extended notation.
    pub inputs: Vec<(Spanned, Node)>,
    /// The whole entry.
    pub span: Span,
}
