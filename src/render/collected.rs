//! The plan outputs an activity over instances sets. Such an activity
//! runs its steps once per instance with the variables of its instance
//! (and of those it follows) its own, in both languages, so that parallel
//! activities never share them; a plan output that reads a property one
//! of its operations writes (a test's result) is therefore in the turn's
//! variables, which shadow the process's of the same name. The turn
//! copies such an output out (the last instance's stays).
//!
//! In: a concrete plan. Out: per plan output, its name and the activity
//! that sets it.

use crate::model::{TemplateRef, Topology};
use crate::names::{Unique, ncname};
use crate::plugins::steps::Step;
use crate::plugins::{ActivityBody, ConcretePlan};
use crate::render::vars::binding_templates;

/// The templates whose variables a turn over the instances of `subject`
/// has of its own: its own and those its steps follow a relationship to.
pub(crate) fn iteration_templates(subject: TemplateRef, body: &ActivityBody) -> Vec<TemplateRef> {
    let mut out: Vec<TemplateRef> = Vec::new();
    for t in std::iter::once(subject).chain(body.followed()) {
        if !out.contains(&t) {
            out.push(t);
        }
    }
    out
}

/// Per plan output, the activity over instances whose turns set it: one
/// whose operations write a property the output reads, and whose turns
/// have every template the output reads (`None`: the process's variables
/// hold it).
pub(crate) fn collected_outputs(plan: &ConcretePlan) -> Vec<Option<usize>> {
    plan.outputs
        .iter()
        .map(|(_, b)| {
            let mut read = Vec::new();
            binding_templates(b, &mut |t| read.push(t));
            let mut activities = plan.plan.activities.iter().zip(&plan.bodies);
            activities.position(|(a, body)| {
                let covered = iteration_templates(a.template, body);
                let writes = body
                    .steps
                    .iter()
                    .filter_map(Step::invocation)
                    .flat_map(|i| &i.outputs)
                    .any(|(_, p)| read.contains(&p.template));
                body.per_instance && writes && read.iter().all(|t| covered.contains(t))
            })
        })
        .collect()
}

/// The names of a plan's outputs, in order: NCNames, unique, clear of
/// `CorrelationID` and of the `instanceId` that a plan which makes a
/// service instance (or a transformation's target) answers.
pub(crate) fn output_names(topology: &Topology, plan: &ConcretePlan) -> Vec<String> {
    let mut unique = Unique::new();
    unique.name("CorrelationID".into());
    if plan.plan.kind.creates_service_instance() || topology.target.is_some() {
        unique.name("instanceId".into());
    }
    plan.outputs
        .iter()
        .map(|(n, _)| unique.name(ncname(n)))
        .collect()
}
