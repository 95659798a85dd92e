//! The plugin interface. A plugin looks at one activity and either handles
//! it (returning steps) or declines (saying why, for `--explain` and for the
//! error when nobody handles it).

use crate::diagnostics::Diagnostic;
use crate::model::Topology;
use crate::plan::{AbstractPlan, Activity};

use super::steps::{Invocation, Step};

/// How `connectTo` is wrapped in lifecycle `stop`/`start` (seed 004 and
/// OpenTOSCA disagree; see digest-xml.md §6.6).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum NonInterruptive {
    /// OpenTOSCA's reading (default): wrap `connectTo` in `stop`/`start`
    /// unless it is declared in the `…/connections/nonInterruptive`
    /// interface, and only if the node has both operations.
    #[default]
    OpenTosca,
    /// The seed's literal reading: wrap only when `connectTo` *is* in the
    /// `nonInterruptive` interface.
    Literal,
}

/// Options that change what plugins do.
#[derive(Clone, Debug, Default)]
pub struct PluginOptions {
    /// `connectTo` wrapping rule.
    pub non_interruptive: NonInterruptive,
}

/// What a plugin sees.
pub struct Context<'a> {
    /// The topology.
    pub topology: &'a Topology,
    /// The plan being completed.
    pub plan: &'a AbstractPlan,
    /// Options.
    pub options: &'a PluginOptions,
    /// Whether the reason of a decline is read (for `--explain`, or for
    /// the error of an activity no plugin handles). When it is not, a
    /// plugin may decline with an empty reason: making them for every
    /// plugin and activity of a large topology costs time.
    pub reasons: bool,
}

/// The steps a plugin produced for an activity.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Body {
    /// Steps in order.
    pub steps: Vec<Step>,
    /// Steps that undo the activity if a later one fails.
    pub compensation: Vec<Step>,
    /// Facts for the decision log (which inputs became plan inputs, ...).
    pub notes: Vec<String>,
    /// Warnings about the input found while handling.
    pub warnings: Vec<Diagnostic>,
}

impl Body {
    /// An empty body with one note (for plugins that handle by doing nothing).
    pub fn nothing(note: impl Into<String>) -> Body {
        Body {
            notes: vec![note.into()],
            ..Body::default()
        }
    }
}

/// A plugin's answer.
#[derive(Clone, Debug, PartialEq)]
pub enum Outcome {
    /// The plugin handles the activity with these steps.
    Handled(Body),
    /// The plugin does not handle it, for this reason.
    Declined(String),
    /// The plugin is not about this kind of template at all (a node plugin
    /// asked about a relationship); not worth a line in the decision log.
    NotApplicable,
}

/// The role a plugin plays (for listings).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Role {
    /// Understands specific node or relationship types.
    Type,
    /// Runs lifecycle interfaces of any type.
    Lifecycle,
    /// Selects instances (scale-out).
    Selection,
    /// Carries out operations whose implementation artifact is of a
    /// given type (replaces a plain management-bus call).
    Operation,
    /// Handles templates that need nothing done.
    Fallback,
    /// Carries out management features: saving and restoring state, tests.
    Feature,
}

impl Role {
    /// Lower-case name.
    pub fn name(self) -> &'static str {
        match self {
            Role::Type => "type",
            Role::Lifecycle => "lifecycle",
            Role::Selection => "selection",
            Role::Operation => "operation",
            Role::Fallback => "fallback",
            Role::Feature => "feature",
        }
    }
}

/// A plugin.
pub trait Plugin: Send + Sync {
    /// Unique id.
    fn id(&self) -> &str;
    /// Higher priorities are asked first; ties go by id.
    fn priority(&self) -> i32;
    /// Its role.
    fn role(&self) -> Role;
    /// One line: what it matches and does.
    fn summary(&self) -> String;
    /// Where it comes from: `built-in`, `embedded:plugins/x.yaml` or a path.
    fn origin(&self) -> String;
    /// Handle or decline an activity.
    fn handle(&self, cx: &Context, activity: &Activity) -> Outcome;
    /// Operation plugins: carry out `invocation` (an operation another
    /// plugin calls) with other steps, or decline. The steps returned are
    /// final: they are not offered to operation plugins again.
    fn run_operation(&self, _cx: &Context, _invocation: &Invocation) -> Outcome {
        Outcome::NotApplicable
    }
}
