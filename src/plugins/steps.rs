//! Language-neutral steps: what plugins emit and language backends render.
//! One plugin set serves every plan language because no step knows BPEL or
//! BPMN; a backend only knows how to render each kind of step.

use crate::model::{Condition, Name, NodeId, RelId, TemplateRef};

/// A property of a template, as a plan variable.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct PropertyRef {
    /// The template.
    pub template: TemplateRef,
    /// Property name.
    pub name: Name,
}

/// Where an operation input's value comes from at run time.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Binding {
    /// The current value of a template property.
    Property(PropertyRef),
    /// A plan input.
    Input(Name),
    /// A fixed text.
    Literal(String),
    /// The URL of a file of the CSAR, as the container serves it
    /// (`csarEntrypoint` + `/Content/` + path).
    ArtifactUrl(String),
    /// The instance id of a template's current instance.
    InstanceId(TemplateRef),
    /// Several bindings joined.
    Concat(Vec<Binding>),
    /// A TOSCA 2.0 built-in function of scalar values (chapter 10) the
    /// plan evaluates when it runs, its arguments known only then
    /// ([`crate::model::RUNTIME_FUNCTIONS`]).
    Function(String, Vec<Binding>),
}

impl Binding {
    /// An artifact's file as the management bus takes it: a URL as it is
    /// (never fetched, never taken for a path), a file or directory (`dir/`)
    /// of the CSAR as the container serves it.
    pub(crate) fn artifact(file: &str) -> Binding {
        if file.contains("://") {
            Binding::Literal(file.to_string())
        } else {
            Binding::ArtifactUrl(file.to_string())
        }
    }
}

/// Instance states written to the instance API (OpenTOSCA's set).
pub mod state {
    /// Being created.
    pub const CREATING: &str = "CREATING";
    /// Created.
    pub const CREATED: &str = "CREATED";
    /// Being configured.
    pub const CONFIGURING: &str = "CONFIGURING";
    /// Configured.
    pub const CONFIGURED: &str = "CONFIGURED";
    /// Being started.
    pub const STARTING: &str = "STARTING";
    /// Running.
    pub const STARTED: &str = "STARTED";
    /// Being stopped.
    pub const STOPPING: &str = "STOPPING";
    /// Stopped.
    pub const STOPPED: &str = "STOPPED";
    /// Being deleted.
    pub const DELETING: &str = "DELETING";
    /// Gone.
    pub const DELETED: &str = "DELETED";
    /// Failed.
    pub const ERROR: &str = "ERROR";
}

/// One operation call through the management bus.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Invocation {
    /// Whose operation: a node (for host operations, the host) or a relationship.
    pub target: TemplateRef,
    /// Interface name.
    pub interface: Name,
    /// Operation name.
    pub operation: Name,
    /// Inputs and where their values come from.
    pub inputs: Vec<(Name, Binding)>,
    /// Outputs and the property each is stored into.
    pub outputs: Vec<(Name, PropertyRef)>,
}

/// How to pick an instance of a border node (scale-out).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Strategy {
    /// The first instance the instance API lists.
    FirstInstance,
    /// The instance whose id is given as a plan input.
    UserProvided(String),
    /// The instance with the lowest value of a property.
    WorkloadBased(String),
}

/// One step of an activity.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Step {
    /// Register a new instance of the node; its instance variables are set.
    CreateNodeInstance(NodeId),
    /// Register a new instance of the relationship between the current
    /// instances of its ends.
    CreateRelationshipInstance(RelId),
    /// Set the state of the current instance of a template.
    SetState(TemplateRef, &'static str),
    /// Call an operation.
    Invoke(Box<Invocation>),
    /// Write the node's property variables to its current instance.
    StoreProperties(NodeId),
    /// Set the property variables of `to` from those of `from` that have
    /// the same names (a transformation's migrated node takes its source
    /// instance's properties).
    CopyProperties {
        /// The node whose variables are read.
        from: NodeId,
        /// The node whose variables are set.
        to: NodeId,
    },
    /// Make the instance of `to` that is related through `rel` to the
    /// current instance of `from` the current one, and load its properties.
    FollowRelationship {
        /// The relationship template followed.
        rel: RelId,
        /// The node whose current instance is known.
        from: NodeId,
        /// The node whose instance is looked up.
        to: NodeId,
    },
    /// Pick an instance of a node by strategy and load its properties.
    SelectInstance(NodeId, Strategy),
    /// Read into the node's property variables the properties of the
    /// existing instance its plan input names (`select` directive,
    /// [`crate::model::ExistingNode`]), and fail the plan unless the input
    /// is given and the instance passes the node's node_filter.
    UseExisting(NodeId),
    /// Evaluate conditions (all must hold) on the current instance of a
    /// template: `state` is its instance state, other names its property
    /// variables. Imperative workflows: a step's `filter` skips the rest of
    /// the activity on instances that fail it, a `precondition` fails the
    /// plan.
    Check {
        /// The template whose current instance is checked.
        template: TemplateRef,
        /// The clauses; all must hold.
        condition: Vec<Condition>,
        /// What happens when they do not.
        otherwise: Otherwise,
    },
}

/// What a failed [`Step::Check`] does.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Otherwise {
    /// Skip the remaining steps of the activity for this instance.
    Skip,
    /// Fail the plan.
    Fail,
}

impl Step {
    /// The invocation, if this step is one.
    pub fn invocation(&self) -> Option<&Invocation> {
        match self {
            Step::Invoke(i) => Some(i),
            _ => None,
        }
    }
}
