//! Stage 4: abstract plans. A plan is a set of activities (a template and
//! what to do with it) and a precedence DAG over them; activities with no
//! path between them run in parallel. Nothing here knows a plan language.
//!
//! In: a [`Topology`](crate::model::Topology) and [`OrderingRules`]. Out: an
//! [`AbstractPlan`] per plan kind, or a diagnostic naming the cycle.

mod backup;
mod build;
mod defrost;
pub(crate) mod features;
mod freeze;
mod kinds;
pub(crate) mod matching;
pub mod naming;
mod order;
mod restrict;
mod rules;
mod scale_out;
mod termination;
pub(crate) mod test_policies;
mod testing;
pub mod transform;
mod transformation;
mod update;
pub mod workflow;

use std::fmt;

pub use backup::backup_plan;
pub use build::build_plan;
pub use defrost::defrost_plan;
pub use freeze::freeze_plan;
pub use kinds::{abstract_plans, all_plans};
pub use order::topological_order;
pub use rules::{OrderingRules, OrderingStyle, UnknownOrdering};
pub use scale_out::scale_out_plan;
pub use termination::termination_plan;
pub use testing::test_plan;
pub use transformation::transformation_plan;
pub use update::update_plan;
pub use workflow::{StepActivity, workflow_plan};

use crate::model::{Name, NodeId, RelId, TemplateRef};
use crate::names::ncname;

/// The kinds of plans toscanini generates.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum PlanKind {
    /// Provisions every template (TOSCA 1.0 BuildPlan, YAML `deploy`).
    Build,
    /// Removes every template (TerminationPlan, YAML `undeploy`).
    Termination,
    /// Provisions one more instance of a region.
    ScaleOut(String),
    /// A named imperative workflow.
    Workflow(String),
    /// Saves the state of every freezable node, then terminates everything
    /// (OpenTOSCA's freeze plan, a TerminationPlan).
    Freeze,
    /// Provisions everything and gives the freezable nodes their saved
    /// state back (OpenTOSCA's defrost plan, a BuildPlan).
    Defrost,
    /// Saves the state of every node that can, leaving it running.
    Backup,
    /// Runs the test operations of the running nodes.
    Test,
    /// Updates the updatable nodes in place, what sits on them stopped
    /// (and its state saved) before and started (its state restored) after.
    Update,
    /// Turns a running instance of the service template into one of the
    /// named target service template.
    Transformation(String),
}

impl PlanKind {
    /// The name used on the command line (`build`, `scale-out:NAME`, ...).
    pub fn slug(&self) -> String {
        match self {
            PlanKind::Build => "build".into(),
            PlanKind::Termination => "termination".into(),
            PlanKind::ScaleOut(n) => format!("scale-out:{n}"),
            PlanKind::Workflow(n) => format!("workflow:{n}"),
            PlanKind::Freeze => "freeze".into(),
            PlanKind::Defrost => "defrost".into(),
            PlanKind::Backup => "backup".into(),
            PlanKind::Test => "test".into(),
            PlanKind::Update => "update".into(),
            PlanKind::Transformation(_) => "transformation".into(),
        }
    }

    /// Suffix of process and plan names (OpenTOSCA conventions).
    pub fn suffix(&self) -> String {
        match self {
            PlanKind::Build => "buildPlan".into(),
            PlanKind::Termination => "terminationPlan".into(),
            PlanKind::ScaleOut(n) => format!("scalingPlan_{}", ncname(n)),
            PlanKind::Workflow(n) => format!("workflow_{}", ncname(n)),
            PlanKind::Freeze => "freezePlan".into(),
            PlanKind::Defrost => "defrostPlan".into(),
            PlanKind::Backup => "backupManagementPlan".into(),
            PlanKind::Test => "testManagementPlan".into(),
            PlanKind::Update => "updatePlan".into(),
            PlanKind::Transformation(to) => format!("transformTo_{}", ncname(to)),
        }
    }

    /// Whether the plan creates the service instance it provisions
    /// (build and defrost), rather than working on an existing one.
    pub fn creates_service_instance(&self) -> bool {
        matches!(self, PlanKind::Build | PlanKind::Defrost)
    }

    /// The management-feature plans, by slug: what `--plan` takes.
    pub fn features() -> [PlanKind; 5] {
        [
            PlanKind::Freeze,
            PlanKind::Defrost,
            PlanKind::Backup,
            PlanKind::Test,
            PlanKind::Update,
        ]
    }
}

impl fmt::Display for PlanKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.slug())
    }
}

/// What an activity does with its template.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum ActivityKind {
    /// Bring the template into existence.
    Provision,
    /// Remove every instance of the template.
    Terminate,
    /// Pick an existing instance of a border node by a strategy (scale-out).
    StrategicSelection(Box<Strategy>),
    /// Pick the instance related to an already selected one (scale-out).
    RecursiveSelection,
    /// Part of a step of an imperative workflow (TOSCA YAML 1.3 §7.3).
    /// (Boxed: every activity of a plan is as large as the largest kind,
    /// and plans of large topologies hold hundreds of thousands of
    /// provisioning activities.)
    Step(Box<StepActivity>),
    /// Save the node's state through its state interface's `freeze`,
    /// then terminate it (freeze plans).
    Freeze,
    /// Provision the node, then give it its saved state back through its
    /// state interface's `defrost` (defrost plans).
    Defrost,
    /// Save the node's state through `freeze`, leaving it running.
    Backup,
    /// Run one test operation of the node (named) and check what it reports.
    Test(Name),
    /// Run the test a `ManagementOperationTest` policy of the node (named)
    /// describes, and check the outputs it expects.
    TestPolicy(Name),
    /// Stop a node that sits on one being updated (saving its state first
    /// if it is freezable); its instances stay.
    Stop,
    /// Start it again after the update (restoring its state if it can).
    Start,
    /// Update the node in place (`UpdateManagementInterface` `update`).
    Update,
    /// Register a kept template of a transformation's source in the
    /// target's service instance, with the source instance's properties
    /// and state; nothing runs on it.
    Migrate,
}

/// A selection strategy as written (boxed in [`ActivityKind`]).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Strategy {
    /// Strategy name (`FirstInstance`, `UserProvided`, `WorkloadBased`, ...).
    pub strategy: String,
    /// Its argument, if any (`WorkloadBased(Load)`).
    pub argument: Option<String>,
}

impl ActivityKind {
    /// Short name used in ids, DOT labels and JSON.
    pub fn name(&self) -> &'static str {
        match self {
            ActivityKind::Provision => "provision",
            ActivityKind::Terminate => "terminate",
            ActivityKind::StrategicSelection(_) => "select",
            ActivityKind::RecursiveSelection => "follow",
            ActivityKind::Step(_) => "step",
            ActivityKind::Freeze => "freeze",
            ActivityKind::Defrost => "defrost",
            ActivityKind::Backup => "backup",
            ActivityKind::Test(_) | ActivityKind::TestPolicy(_) => "test",
            ActivityKind::Stop => "stop",
            ActivityKind::Start => "start",
            ActivityKind::Update => "update",
            ActivityKind::Migrate => "migrate",
        }
    }

    /// Whether the activity brings its template into existence (a
    /// defrost provisions before it restores the state).
    pub fn provisions(&self) -> bool {
        matches!(self, ActivityKind::Provision | ActivityKind::Defrost)
    }

    /// Management-feature activities (freeze, defrost, backup, test): only
    /// feature plugins handle them.
    pub fn is_feature(&self) -> bool {
        matches!(
            self,
            ActivityKind::Freeze
                | ActivityKind::Defrost
                | ActivityKind::Backup
                | ActivityKind::Test(_)
                | ActivityKind::TestPolicy(_)
                | ActivityKind::Stop
                | ActivityKind::Start
                | ActivityKind::Update
        )
    }
}

/// One activity: a template and what to do with it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Activity {
    /// Unique NCName; the BPEL scope name and the prefix of BPMN task ids.
    pub id: String,
    /// The template acted on.
    pub template: TemplateRef,
    /// What is done.
    pub kind: ActivityKind,
}

impl Activity {
    /// The templates whose new instances this activity registers: its own
    /// when it provisions, a deploy workflow step's registered ones. Their
    /// properties start from the modelled values; every other template's
    /// are read from the instance data.
    pub fn creates(&self) -> impl Iterator<Item = TemplateRef> + '_ {
        let own = self.kind.provisions().then_some(self.template);
        let registered = match &self.kind {
            ActivityKind::Step(step) => step.register.as_slice(),
            _ => &[],
        };
        own.into_iter().chain(registered.iter().copied())
    }
}

/// Why one activity must come before another.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Reason {
    /// Imposed by a relationship.
    Relationship(RelId),
    /// Both run operations on the same host (TOSCA 1.3 §7.2.3.1).
    SameHost(NodeId),
    /// Selection before provisioning (scale-out).
    Selection,
    /// An imperative workflow orders them (`on_success`, a step's activities, `inline`).
    Step,
    /// An imperative workflow runs `to` if `from` failed (`on_failure`): the
    /// edge is taken only on failure, and its target is skipped otherwise.
    OnFailure,
    /// A transformation detaches a common node from what goes before it
    /// attaches it to what comes.
    Reconnect(NodeId),
}

/// A precedence edge: `from` completes before `to` starts.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Edge {
    /// Index of the earlier activity.
    pub from: usize,
    /// Index of the later activity.
    pub to: usize,
    /// Why.
    pub reason: Reason,
}

/// A language-independent plan: activities and precedence edges.
#[derive(Clone, Debug)]
pub struct AbstractPlan {
    /// Which plan this is.
    pub kind: PlanKind,
    /// Activities, in a topological order with ties broken by id.
    pub activities: Vec<Activity>,
    /// Precedence edges, sorted, without duplicates.
    pub edges: Vec<Edge>,
}

impl AbstractPlan {
    /// Edges into activity `i`.
    pub fn incoming(&self, i: usize) -> impl Iterator<Item = &Edge> {
        self.edges.iter().filter(move |e| e.to == i)
    }

    /// Index of the activity for a template, if it has one.
    pub fn activity_of(&self, template: TemplateRef) -> Option<usize> {
        self.activities.iter().position(|a| a.template == template)
    }
}
