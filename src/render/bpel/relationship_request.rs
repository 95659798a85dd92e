//! What every relationship instance a plan creates on one side shares:
//! the request names the service instance the relationship instance
//! belongs to, the same for all of them. The process fills one request
//! per side it creates relationship instances on (the plan's own service
//! instance, a transformation's target) before its activities run and
//! never writes it again (parallel branches read it without a race); a
//! creation copies it and sets its source and target instance.
//!
//! In: the plan's steps. Out: the requests' variables, declared and
//! filled, and the variable of each relationship's side.

use super::writer::W;
use crate::error::Result;
use crate::model::{TemplateRef, Topology};
use crate::plugins::ConcretePlan;
use crate::plugins::steps::Step;
use crate::render::side::{on_target, side};

/// The variable of the own side's request and of the target side's (a
/// camelCase family of its own: no template, state or flag variable ends
/// in `Request`).
const VARIABLES: [&str; 2] = [
    "relationshipInstanceRequest",
    "targetRelationshipInstanceRequest",
];

/// The variable of the shared request of relationship `r`'s side.
pub(crate) fn variable(topology: &Topology, r: TemplateRef) -> &'static str {
    VARIABLES[usize::from(on_target(topology, r))]
}

/// One relationship the plan creates an instance of on each side (own,
/// target), if any: which requests the process declares and fills.
pub(crate) struct Sides([Option<TemplateRef>; 2]);

impl Sides {
    /// The sides of `plan`'s relationship instances.
    pub(crate) fn new(topology: &Topology, plan: &ConcretePlan) -> Sides {
        let mut found = [None, None];
        let created = plan
            .bodies
            .iter()
            .flat_map(|b| b.steps.iter().chain(&b.compensation))
            .filter_map(|s| match s {
                Step::CreateRelationshipInstance(rel) => Some(TemplateRef::Relationship(*rel)),
                _ => None,
            });
        for r in created {
            found[usize::from(on_target(topology, r))].get_or_insert(r);
        }
        Sides(found)
    }

    /// Declare the variable of each side's request.
    pub(crate) fn declare(&self, w: &mut W) -> Result<()> {
        for (i, r) in self.0.iter().enumerate() {
            if r.is_some() {
                w.put(
                    "relationship-request-variable",
                    4,
                    &[("name", VARIABLES[i])],
                )?;
            }
        }
        Ok(())
    }

    /// The assign that fills each side's request (nothing where the plan
    /// creates no relationship instance).
    pub(crate) fn prepare(&self, w: &mut W, topology: &Topology) -> Result<()> {
        if self.0.iter().all(Option::is_none) {
            return Ok(());
        }
        w.put("relationship-requests", 4, &[])?;
        for (i, r) in self.0.iter().enumerate() {
            if let Some(r) = *r {
                let si_id = side(topology, r).service_instance_id;
                w.put(
                    "relationship-request",
                    4,
                    &[("name", VARIABLES[i]), ("si_id", si_id)],
                )?;
            }
        }
        w.put("relationship-requests-end", 4, &[])
    }
}
