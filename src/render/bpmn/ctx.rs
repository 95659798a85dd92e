//! What the builders of a BPMN plan share ([`Ctx`]): the topology, the
//! variables of plan inputs, templates and elements, the plan's text and
//! property scripts; and the variables every plan sets.
//!
//! In: a concrete plan and its topology. Out: a [`Ctx`] and the plan's
//! parameters.

use foldhash::HashMap;
use std::fmt::Write as _;

use super::chain::Prefix;
use super::expr;
use super::graph::{Str, Text};
use super::scripts::PropertyFiles;
use crate::model::Topology;
use crate::names::Unique;
use crate::names::ncname;
use crate::plugins::ConcretePlan;
use crate::plugins::steps::Binding;
use crate::render::rendered::{PlanInputs, PlanParameter};
use crate::render::vars::{Vars, outside_families, word};

/// Input with the management bus REST endpoint (`…/ManagementBus/v1/invoker`).
pub(in crate::render) const BUS_URL_INPUT: &str = "ManagementBusURL";

/// Variables every plan sets before its activities run.
pub(in crate::render) const FIXED: [&str; 6] = [
    "csarID",
    "serviceTemplateURL",
    "serviceInstanceURL",
    "serviceInstanceID",
    PLAN_INSTANCE_URL,
    "httpStatus",
];

/// The variable holding the URL of the plan's own instance at the
/// container: `{serviceTemplateURL}/buildplans/<plan>/instances/<CorrelationID>`
/// for a build plan, `{serviceInstanceURL}/managementplans/<plan>/instances/<CorrelationID>`
/// for the others (as the OpenTOSCA plan builder computes it).
pub(super) const PLAN_INSTANCE_URL: &str = "planInstanceURL";

/// What the step renderers share.
pub(crate) struct Ctx<'a> {
    /// The topology, for names and properties.
    pub(crate) topology: &'a Topology,
    /// The variables of the templates (named once for every language).
    pub(crate) names: &'a Vars,
    /// The variable of each plan input.
    pub(crate) inputs: HashMap<String, String>,
    /// The variable of the management bus URL.
    pub(crate) bus: String,
    /// The variables of elements (poll loops, routing).
    pub(crate) vars: Unique,
    /// The property scripts of the plan ([`super::scripts`]).
    pub(crate) properties: PropertyFiles,
    /// The text of the model: ids, labels, values.
    pub(crate) text: Text,
    /// The prefix of the plan's own element ids ([`super::bases`]).
    pub(crate) plan: &'a str,
}

impl<'a> Ctx<'a> {
    /// The context of `plan`, whose own element ids start with
    /// `plan_prefix`, and the plan's parameters: its inputs, then the bus
    /// URL. Plan inputs become process variables of the same (NCName)
    /// name.
    pub(crate) fn new(
        topology: &'a Topology,
        plan: &ConcretePlan,
        plan_prefix: &'a str,
        names: &'a Vars,
    ) -> (Ctx<'a>, Vec<PlanParameter>) {
        let PlanInputs {
            names: inputs,
            bus,
            parameters,
        } = PlanInputs::new(&plan.inputs, BUS_URL_INPUT, true);
        let taken: Vec<&str> = FIXED
            .into_iter()
            .chain(parameters.iter().map(|p| p.name.as_str()))
            .collect();
        // The variables of elements (poll loops, routing) are named apart
        // from the templates', never as one of theirs (vars::outside_families).
        let mut vars = Unique::new();
        for t in taken {
            vars.name(t.to_string());
        }
        let cx = Ctx {
            topology,
            names,
            inputs,
            bus,
            vars,
            properties: PropertyFiles::default(),
            text: Text::default(),
            plan: plan_prefix,
        };
        (cx, parameters)
    }

    /// The variable of a plan input.
    pub(crate) fn input(&self, name: &str) -> String {
        self.inputs
            .get(name)
            .cloned()
            .unwrap_or_else(|| ncname(name))
    }

    /// The Groovy expression of a binding.
    pub(crate) fn expr(&self, b: &Binding) -> String {
        let mut out = String::new();
        expr::expr(&mut out, b, self.topology, self.names, &|n| self.input(n));
        out
    }

    /// A variable of one element (poll loops, instance lists): a JUEL
    /// identifier, unique in the plan.
    pub(crate) fn poll_var(&mut self, element: Prefix, what: &str) -> String {
        let mut base = String::with_capacity(element.base.len() + 16);
        let _ = write!(base, "{element}");
        let mut base = word(&base);
        base.push('_');
        base.push_str(what);
        self.vars.name(outside_families(base))
    }

    /// The id of one of the plan's own elements.
    pub(crate) fn plan_id(&mut self, suffix: &str) -> Str {
        let plan = self.plan;
        self.text.fmt(format_args!("{plan}{suffix}"))
    }

    /// An id or label made of a prefix and a suffix.
    pub(crate) fn id(&mut self, prefix: impl std::fmt::Display, suffix: &str) -> Str {
        self.text.fmt(format_args!("{prefix}{suffix}"))
    }
}
