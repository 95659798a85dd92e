//! Imperative workflows (TOSCA YAML 1.3 §7.3, 2.0 §13.2) as data: steps
//! with a target, a sequence of activities, and the steps to run on
//! success and on failure. Names are resolved (templates, operations,
//! inlined workflows); plans are made from them in `plan::workflow`.

use super::{InputDef, NodeId, RelId, TemplateRef, Value};
use crate::diagnostics::Location;

/// A named imperative workflow.
#[derive(Clone, Debug, PartialEq)]
pub struct Workflow {
    /// Its name (`deploy` and `undeploy` replace the generated plans).
    pub name: String,
    /// Workflow inputs (they shadow topology inputs of the same name).
    pub inputs: Vec<InputDef>,
    /// Conditions checked before the workflow runs.
    pub preconditions: Vec<Precondition>,
    /// Steps in declaration order.
    pub steps: Vec<WorkflowStep>,
    /// Where it is defined.
    pub origin: Option<Location>,
}

impl Workflow {
    /// Steps that no other step names in `on_success` or `on_failure`.
    pub fn initial_steps(&self) -> Vec<usize> {
        (0..self.steps.len())
            .filter(|&i| {
                !self
                    .steps
                    .iter()
                    .any(|s| s.on_success.contains(&i) || s.on_failure.contains(&i))
            })
            .collect()
    }
}

/// What a step acts on.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum StepTarget {
    /// A node template (every instance of it).
    Node(NodeId),
    /// A relationship of a node (`target_relationship`).
    Relationship(RelId),
    /// A group: every member.
    Group(usize),
}

/// One step.
#[derive(Clone, Debug, PartialEq)]
pub struct WorkflowStep {
    /// Its name.
    pub name: String,
    /// What it acts on.
    pub target: StepTarget,
    /// The copies of its target relationship, which it acts on too: a
    /// substituted node's relationship whose requirement is mapped to
    /// several targets (2.0 §15.5.2) has one for each further target.
    pub copies: Vec<RelId>,
    /// Activities, run in order.
    pub activities: Vec<WorkflowActivity>,
    /// Conditions an instance must meet for the activities to run on it.
    pub filter: Vec<Condition>,
    /// Steps (indexes) that run once this one succeeded.
    pub on_success: Vec<usize>,
    /// Steps (indexes) that run if this one failed.
    pub on_failure: Vec<usize>,
    /// Where it is defined.
    pub origin: Option<Location>,
}

/// An activity of a step.
#[derive(Clone, Debug, PartialEq)]
pub enum WorkflowActivity {
    /// Hand the target to a declarative workflow (`deploy`, `undeploy`).
    Delegate(String),
    /// Set the state of the target's instances.
    SetState(String),
    /// Call an operation of the target.
    CallOperation {
        /// Interface name as the target's type declares it.
        interface: String,
        /// Operation name.
        operation: String,
        /// Inputs given by the workflow (they override the operation's).
        inputs: Vec<(String, Value)>,
    },
    /// Run another workflow (index into `Topology::workflows`) here.
    Inline(usize),
}

/// A precondition: a condition on a target that must hold.
#[derive(Clone, Debug, PartialEq)]
pub struct Precondition {
    /// The template whose instances are checked.
    pub target: TemplateRef,
    /// The condition (all clauses must hold).
    pub condition: Vec<Condition>,
}

/// A condition clause (1.3 §3.6.25).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Condition {
    /// All hold.
    And(Vec<Condition>),
    /// One holds.
    Or(Vec<Condition>),
    /// None holds.
    Not(Vec<Condition>),
    /// An attribute (or `state`) meets every constraint.
    Assert {
        /// Attribute name; `state` is the instance state.
        attribute: String,
        /// Constraints: operator (`equal`, `valid_values`, ...) and operand.
        constraints: Vec<(String, Value)>,
    },
}

impl Condition {
    /// Whether any of the clauses reads the instance state.
    pub fn reads_state(list: &[Condition]) -> bool {
        list.iter().any(|c| match c {
            Condition::And(l) | Condition::Or(l) | Condition::Not(l) => Condition::reads_state(l),
            Condition::Assert { attribute, .. } => attribute == "state",
        })
    }
}
