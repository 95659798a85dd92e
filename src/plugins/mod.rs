//! Stage 5: plugins fill each activity of an abstract plan with
//! language-neutral [`steps`]. Type plugins understand specific types
//! (built in, or declared in `plugins/*.yaml`), the lifecycle plugin runs
//! lifecycle interfaces, the connectsTo plugin wires connections, and a
//! fallback handles templates that need nothing done. Operation plugins
//! then decide how each operation call is carried out, by the type of its
//! implementation artifact (a plain management-bus call by default).
//!
//! In: an [`AbstractPlan`](crate::plan::AbstractPlan) and the topology.
//! Out: a [`ConcretePlan`] with a decision log (which plugin handled what,
//! and why the others declined), or errors naming unhandled templates.

pub mod api;
pub mod complete;
pub(crate) mod configure;
mod connects_to;
pub(crate) mod conventions;
pub mod declarative;
mod delegate;
mod existing;
mod fallback;
pub(crate) mod invoke;
mod lifecycle;
mod operations;
pub(crate) mod params;
pub mod registry;
mod selection;
mod state;
pub mod steps;
mod test_policies;
mod testing;
mod update;
pub(crate) mod workflow;

pub use complete::{ActivityBody, CompleteOptions, ConcretePlan, Decision, complete};
pub use registry::Registry;
