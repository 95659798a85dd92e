//! What the writers of a BPEL plan share ([`Ctx`]): the topology, the
//! variables of templates, the elements of plan inputs and the variables
//! that hold the instance states the plan sets; and the variables every
//! plan has.
//!
//! In: a concrete plan and its topology. Out: a [`Ctx`] and the plan's
//! parameters.

use foldhash::HashMap;
use std::collections::BTreeMap;

use super::calls::Calls;
use super::documents::Documents;
use super::globals::{merged_documents, process_templates};
use super::writer::text;
use super::xpath::{expr, value};
use crate::error::Result;
use crate::model::{TemplateMap, TemplateRef, Topology};
use crate::names::Unique;
use crate::names::ncname;
use crate::plugins::ConcretePlan;
use crate::plugins::steps::{Step, state};
use crate::render::collected::collected_outputs;
use crate::render::rendered::{PlanInputs, PlanParameter};
use crate::render::vars::{Vars, in_document, word};

/// Process variables that every plan has.
pub(in crate::render) const FIXED: [&str; 7] = [
    "correlationID",
    "instanceDataAPIUrl",
    "csarEntrypoint",
    "csarID",
    "serviceTemplateURL",
    "serviceInstanceURL",
    "serviceInstanceID",
];

/// Optional input that overrides the management bus endpoint at run time.
pub(in crate::render) const BUS_URL_INPUT: &str = "ManagementBusInvokerURL";

/// What the writers of a plan's activities share.
pub(crate) struct Ctx<'a> {
    /// The topology, for names and properties.
    pub(crate) topology: &'a Topology,
    /// The variables of the templates (named once for every language).
    pub(crate) names: &'a Vars,
    /// The element of the request message of each plan input.
    pub(crate) inputs: HashMap<String, String>,
    /// The variable holding each instance state the plan sets (ERROR, set
    /// by the fault handlers, always), by state.
    pub(crate) states: BTreeMap<&'static str, String>,
    /// The requests the plan's calls share.
    pub(crate) calls: Calls,
    /// The empty properties documents the templates' documents start from.
    pub(crate) documents: Documents<'a>,
    /// The templates whose variables the process declares
    /// ([`super::globals`]).
    pub(crate) process: TemplateMap<()>,
    /// The node templates whose documents the plan writes after a load
    /// ([`merged_documents`]).
    pub(crate) merged: TemplateMap<()>,
    /// Per plan output, the activity over instances that sets it and the
    /// variable it sets ([`collected_outputs`]).
    pub(crate) collected: Vec<Option<(usize, String)>>,
}

impl<'a> Ctx<'a> {
    /// The context of `plan`, and its parameters: its inputs, then the
    /// optional bus URL. Plan inputs become elements of the request
    /// message: NCNames, unique.
    pub(crate) fn new(
        topology: &'a Topology,
        plan: &ConcretePlan,
        names: &'a Vars,
    ) -> (Ctx<'a>, Vec<PlanParameter>) {
        let PlanInputs {
            names: inputs,
            parameters,
            ..
        } = PlanInputs::new(&plan.inputs, BUS_URL_INPUT, false);
        let process = process_templates(topology, plan);
        let merged = merged_documents(topology, plan);
        let cx = Ctx {
            topology,
            names,
            inputs,
            states: states(plan),
            calls: Calls::new(topology, plan),
            documents: Documents::new(topology, names, &process, &merged),
            process,
            merged,
            collected: collected_outputs(plan)
                .into_iter()
                .enumerate()
                .map(|(k, a)| a.map(|a| (a, format!("output_{}", k + 1))))
                .collect(),
        };
        (cx, parameters)
    }

    /// The element of the request message that carries plan input `name`.
    pub(crate) fn input(&self, name: &str) -> String {
        self.inputs
            .get(name)
            .cloned()
            .unwrap_or_else(|| ncname(name))
    }

    /// The variable that holds instance state `state` (every state the
    /// plan's steps set has one).
    pub(crate) fn state(&self, state: &str) -> Result<&str> {
        self.states.get(state).map(String::as_str).ok_or_else(|| {
            crate::error::Error::Internal(format!("no variable holds the state {state}"))
        })
    }

    /// The document of template `t` where a load of its instance sets
    /// it: the plan reads a property in it, or writes it after the load.
    pub(crate) fn loaded_document(&self, t: TemplateRef) -> Option<&'a str> {
        let doc = self.names.document(self.topology, t)?;
        let read = self
            .names
            .loaded_props(self.topology, t)
            .any(|(p, _)| in_document(t, p));
        (read || self.merged.contains(t)).then_some(doc)
    }

    /// The XPath expression of a binding, escaped for element content.
    pub(crate) fn expr(&self, b: &crate::plugins::steps::Binding) -> String {
        text(&expr(b, self.topology, self.names, &|n| self.input(n)))
    }

    /// The XPath expression of a binding as a string, for a copy's
    /// `<from>` ([`value`]), escaped for element content.
    pub(crate) fn value(&self, b: &crate::plugins::steps::Binding) -> String {
        text(&value(b, self.topology, self.names, &|n| self.input(n)))
    }
}

/// The variables of the instance states a plan sets: `state_<STATE>`,
/// a family of its own (no template, fixed or failure-flag variable
/// starts so). A state change is a PUT of one of them, which the process
/// sets once before its activities run and never again, so parallel
/// branches share them without a race.
fn states(plan: &ConcretePlan) -> BTreeMap<&'static str, String> {
    let mut set: BTreeMap<&'static str, String> = BTreeMap::new();
    set.insert(state::ERROR, String::new());
    for body in &plan.bodies {
        for step in body.steps.iter().chain(&body.compensation) {
            if let Step::SetState(_, s) = step {
                set.insert(s, String::new());
            }
        }
    }
    let mut unique = Unique::new();
    for (s, var) in set.iter_mut() {
        *var = unique.name(format!("state_{}", word(s)));
    }
    set
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn state_variables_are_a_family_of_their_own() {
        let mut unique = Unique::new();
        let a = unique.name(format!("state_{}", word("A-B")));
        let b = unique.name(format!("state_{}", word("A_B")));
        assert_eq!((a.as_str(), b.as_str()), ("state_A_B", "state_A_B_2"));
        for fixed in FIXED {
            assert!(!fixed.starts_with("state_"));
        }
    }
}
