//! The parsed form of a declarative plugin file (format: plugins/README.md).

use crate::model::{Name, RelKind};

/// An operation named as `interface/operation` (split at the last `/`,
/// since interface names are often URIs).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OpRef {
    /// Interface name; `*` matches any interface.
    pub interface: String,
    /// Operation name.
    pub operation: String,
}

impl OpRef {
    /// Parse `interface/operation`.
    pub fn parse(s: &str) -> Option<OpRef> {
        let (i, o) = s.rsplit_once('/')?;
        (!i.is_empty() && !o.is_empty()).then(|| OpRef {
            interface: i.to_string(),
            operation: o.to_string(),
        })
    }
}

impl std::fmt::Display for OpRef {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}/{}", self.interface, self.operation)
    }
}

/// Which template an invocation or property refers to.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum On {
    /// The template being handled.
    This,
    /// Its direct host (target of its HostedOn relationship).
    Host,
    /// The nearest node below it whose type matches the pattern.
    Stack(String),
    /// The nearest node, the handled one or one below it, that offers
    /// this operation (e.g. `runScript` to run a script on).
    Offering(OpRef),
    /// The source of the relationship being handled.
    Source,
    /// The target of the relationship being handled.
    Target,
}

/// A condition evaluated when the plan is generated.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Condition {
    /// The node has a deployment artifact whose type matches.
    Artifact(String),
    /// The property exists and has a non-empty value or an input.
    Set(String),
    /// The property is missing or empty.
    Empty(String),
    /// The node has no deployment artifact whose type matches.
    NoArtifact(String),
    /// The template has this operation.
    Operation(OpRef),
}

/// Where an input's value comes from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum BindingSpec {
    /// Fixed text.
    Literal(String),
    /// A property of a template.
    Property {
        /// Property name.
        name: Name,
        /// Whose.
        of: On,
    },
    /// A plan input.
    Input(Name),
    /// The URL of the first file of the first deployment artifact of a type.
    Artifact(String),
    /// Parts joined.
    Concat(Vec<BindingSpec>),
    /// `NAME=value;` for every property whose name starts with the prefix
    /// (prefix removed), e.g. Docker environment variables from `ENV_*`.
    PropertiesWithPrefix(String),
    /// The Winery component version of the node type put into a pattern
    /// (`ubuntu-{version}` for `Ubuntu-VM_18.04-w1` gives `ubuntu-18.04`).
    TypeVersion(String),
    /// Operation plugins: the primary implementation artifact of the
    /// operation being run: its `url` (as the container serves it), its
    /// `file` name, or its `path` in the CSAR.
    Implementation(ArtifactPart),
    /// Operation plugins: a property of the implementation artifact.
    ImplementationProperty(String),
    /// The id of the service template.
    ServiceTemplate,
}

/// Which part of an artifact a binding takes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ArtifactPart {
    /// URL of its first file, as the container serves it.
    Url,
    /// File name of its first file.
    File,
    /// Path of its first file inside the CSAR.
    Path,
}

/// One step of a plugin.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum StepSpec {
    /// Call an operation.
    Invoke {
        /// The operation.
        op: OpRef,
        /// On which template.
        on: On,
        /// Only if all hold.
        when: Vec<Condition>,
        /// Explicit input bindings (others are matched by name).
        inputs: Vec<(Name, BindingSpec)>,
        /// Output name → property of the handled template.
        outputs: Vec<(Name, Name)>,
        /// Operation (on the same template) that undoes this one.
        compensate: Option<OpRef>,
    },
    /// Operation plugins: the management-bus call of the operation being
    /// carried out, as the calling plugin built it (`invoke: operation`).
    InvokeOperation {
        /// Only if all hold.
        when: Vec<Condition>,
    },
    /// Set the instance state.
    State(String),
    /// Do nothing, for the given reason (recorded in the decision log).
    Nothing(String),
    /// Decline the template with this reason (guarded by `when`).
    Fail {
        /// The reason.
        reason: String,
        /// Only if all hold.
        when: Vec<Condition>,
    },
}

/// What a plugin matches.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Matcher {
    /// Node plugins: the node's type or an ancestor matches one of these.
    pub types: Vec<String>,
    /// The direct host's type or an ancestor matches one of these.
    pub host_types: Vec<String>,
    /// The template has one of these operations.
    pub has_operation: Vec<OpRef>,
    /// The direct host has one of these operations.
    pub host_has_operation: Vec<OpRef>,
    /// Whether the node has lifecycle operations.
    pub has_lifecycle: Option<bool>,
    /// Whether the node is hosted on another node.
    pub has_host: Option<bool>,
    /// Relationship plugins: the relationship kind is one of these.
    pub kinds: Vec<RelKind>,
    /// Operation plugins: the operation's implementation artifact type
    /// matches one of these.
    pub artifact_types: Vec<String>,
}

/// Whether a plugin handles nodes or relationships.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AppliesTo {
    /// Node templates.
    Node,
    /// Relationship templates.
    Relationship,
    /// Operations, by the type of their implementation artifact: how an
    /// operation is carried out when a plugin runs it.
    Operation,
}

/// A declarative plugin.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Spec {
    /// Unique id.
    pub id: String,
    /// What it is for.
    pub description: String,
    /// Higher is asked first.
    pub priority: i32,
    /// Nodes or relationships.
    pub applies_to: AppliesTo,
    /// What it matches.
    pub matcher: Matcher,
    /// Build-plan steps (`None`: does not handle build plans).
    pub build: Option<Vec<StepSpec>>,
    /// Termination-plan steps.
    pub termination: Option<Vec<StepSpec>>,
    /// Operation plugins: the steps that carry out the operation.
    pub run: Option<Vec<StepSpec>>,
    /// The file it came from.
    pub origin: String,
}
