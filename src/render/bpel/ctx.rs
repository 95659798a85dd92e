//! What the writers of a BPEL plan share ([`Ctx`]): the topology, the
//! variables of templates and the elements of plan inputs; and the
//! variables every plan has.
//!
//! In: a concrete plan and its topology. Out: a [`Ctx`] and the plan's
//! parameters.

use std::collections::HashMap;

use super::writer::text;
use super::xpath::expr;
use crate::model::Topology;
use crate::names::Unique;
use crate::names::ncname;
use crate::plugins::ConcretePlan;
use crate::render::rendered::PlanParameter;
use crate::render::vars::Vars;

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
        let mut unique = Unique::new();
        let mut inputs = HashMap::new();
        let mut parameters = Vec::new();
        for i in &plan.inputs {
            let element = unique.name(ncname(i));
            inputs.insert(i.clone(), element.clone());
            parameters.push(PlanParameter {
                name: element,
                required: true,
            });
        }
        let bus = unique.name(BUS_URL_INPUT.to_string());
        parameters.push(PlanParameter {
            name: bus,
            required: false,
        });
        let cx = Ctx {
            topology,
            names,
            inputs,
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

    /// The XPath expression of a binding, escaped for element content.
    pub(crate) fn expr(&self, b: &crate::plugins::steps::Binding) -> String {
        text(&expr(b, self.topology, self.names, &|n| self.input(n)))
    }
}
