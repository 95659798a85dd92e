//! What rendering gives: a plan's language, its interface's inputs, and
//! the plan ready to deploy (its files, or its archive).
//!
//! In: what a backend produced. Out: [`RenderedPlan`], and the plan as one
//! archive.

use super::output::{self, PlanFile};
use crate::plan::PlanKind;

/// A plan language.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Language {
    /// WS-BPEL 2.0 for Apache ODE.
    Bpel,
    /// BPMN 2.0 for Camunda 7 / Operaton.
    Bpmn,
}

impl Language {
    /// A short name for messages.
    pub fn label(self) -> &'static str {
        match self {
            Language::Bpel => "BPEL",
            Language::Bpmn => "BPMN",
        }
    }

    /// The `planLanguage` URI of TOSCA plans.
    pub fn uri(self) -> &'static str {
        match self {
            Language::Bpel => crate::names::languages::LANG_BPEL,
            Language::Bpmn => crate::names::languages::LANG_BPMN,
        }
    }
}

/// How a plan's XML is laid out. Engines need neither indentation nor
/// line breaks, which in a large plan are a sixth of the bytes; a line per
/// part of the plan (a variable, an initial value, a link, an activity
/// and each part of it) keeps a plan readable and comparable line by
/// line all the same.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Layout {
    /// Not indented; a line per part of the plan, what is nested deeper
    /// than that on the part's line (the default).
    #[default]
    Compact,
    /// Indented by nesting depth (`--pretty`).
    Pretty,
}

/// A plan input as the plan's interface declares it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PlanParameter {
    /// Name (an NCName).
    pub name: String,
    /// Whether the caller must supply it.
    pub required: bool,
}

/// A plan's parameters as both languages name them: its inputs as
/// NCNames, unique, then the management bus URL.
pub(crate) struct PlanInputs {
    /// The name each plan input is given, by input.
    pub(crate) names: foldhash::HashMap<String, String>,
    /// The name of the bus URL input.
    pub(crate) bus: String,
    /// Every parameter, in order: the inputs (required), then the bus URL.
    pub(crate) parameters: Vec<PlanParameter>,
}

impl PlanInputs {
    /// The parameters of a plan with `inputs`, the bus URL input named
    /// `bus` (another name if an input took it) and `bus_required`.
    pub(crate) fn new(inputs: &[String], bus: &str, bus_required: bool) -> PlanInputs {
        let mut unique = crate::names::Unique::new();
        let mut names = foldhash::HashMap::default();
        let mut parameters = Vec::new();
        for i in inputs {
            let name = unique.name(crate::names::ncname(i));
            names.insert(i.clone(), name.clone());
            parameters.push(PlanParameter {
                name,
                required: true,
            });
        }
        let bus = unique.name(bus.to_string());
        parameters.push(PlanParameter {
            name: bus.clone(),
            required: bus_required,
        });
        PlanInputs {
            names,
            bus,
            parameters,
        }
    }
}

/// A plan ready to deploy.
#[derive(Clone, Debug)]
pub struct RenderedPlan {
    /// Plan id and process name (an NCName).
    pub name: String,
    /// Which plan.
    pub kind: PlanKind,
    /// Its language.
    pub language: Language,
    /// Its files, in archive order (empty when rendered straight into
    /// the archive, as `compile` renders them).
    pub files: Vec<PlanFile>,
    /// The archive, when rendered straight into it.
    pub packed: Option<output::Packed>,
    /// Inputs of the plan's interface.
    pub inputs: Vec<PlanParameter>,
    /// Outputs of the plan's interface.
    pub outputs: Vec<String>,
}

impl RenderedPlan {
    /// The plan as one archive (what ODE deploys and the CSAR stores).
    pub fn archive(&self) -> crate::error::Result<Vec<u8>> {
        match &self.packed {
            Some(output::Packed::Bytes(bytes)) => return Ok(bytes.clone()),
            Some(output::Packed::Spooled(spool)) => return spool.read(),
            None => {}
        }
        crate::csar::write::zip_files(
            self.files
                .iter()
                .map(|f| (f.name.as_str(), f.data.as_slice())),
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plan_inputs_are_unique_ncnames_and_the_bus_comes_last() {
        let inputs = ["x y".to_string(), "x_y".to_string(), "bus".to_string()];
        let p = PlanInputs::new(&inputs, "bus", false);
        assert_eq!(p.names["x y"], "x_y");
        assert_eq!(p.names["x_y"], "x_y_2");
        assert_eq!(p.names["bus"], "bus");
        assert_eq!(p.bus, "bus_2");
        let listed: Vec<(&str, bool)> = p
            .parameters
            .iter()
            .map(|q| (q.name.as_str(), q.required))
            .collect();
        assert_eq!(
            listed,
            [
                ("x_y", true),
                ("x_y_2", true),
                ("bus", true),
                ("bus_2", false)
            ]
        );
    }
}
