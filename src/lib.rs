//! toscanini compiles TOSCA topologies into deployment plans.
//!
//! ```text
//!   CSAR (.csar/.zip, directory, or .yaml)
//!     │  csar::      entries under limits, TOSCA.meta, entry definitions
//!     ▼
//!   dialect AST       xml:: (TOSCA 1.0)      yaml:: (Simple Profile 1.x, 2.0)
//!     │  lower
//!     ▼
//!   model::Topology   one model for both dialects
//!     │  plan::
//!     ▼
//!   AbstractPlan      activities + precedence DAG: build, termination, scale-out
//!     │  plugins::
//!     ▼
//!   ConcretePlan      language-neutral steps + decision log
//!     │  render::
//!     ▼
//!   BPEL / BPMN       written back into the CSAR (csar::write), or previewed (dot)
//! ```
//!
//! [`load()`] runs the front end (archive to topology), [`derive()`] the plan
//! stages, and [`compile`](mod@compile) runs the whole pipeline as the
//! `toscanini` command does (its `cli` module, in the binary, only parses
//! arguments and prints).

#![forbid(unsafe_code)]
#![warn(unreachable_pub)] // the API is what lib.rs exports; CI denies warnings
#![allow(clippy::result_large_err)] // diagnostics carry their location and hint inline; errors are the cold path

// The library's API: the façade, the model, the plan graph, the plugins
// (their file format and the steps they produce), diagnostics, previews.
pub mod compile;
pub mod diagnostics;
pub mod dot;
pub mod error;
pub mod model;
pub mod plan;
pub mod plugins;

// The stages behind the façade.
pub(crate) mod csar;
pub(crate) mod load;
pub(crate) mod names;
pub(crate) mod render;
pub(crate) mod writeback;
pub(crate) mod xml;
pub(crate) mod yaml;

use std::path::Path;

use diagnostics::{Diagnostics, SourceMap};
use error::{Error, Result};
use model::Topology;
use plan::{AbstractPlan, OrderingRules, PlanKind};
use plugins::{CompleteOptions, ConcretePlan, Registry};

pub use csar::{Csar, Limits};
pub use load::{LoadOptions, Loaded};
pub use plan::all_plans;
pub use plan::transform::Transformation;
pub use render::{Language, Layout, PlanFile, RenderedPlan};

/// Everything that changes how an input is compiled.
#[derive(Clone, Debug, Default)]
pub struct Options {
    /// Limits against hostile input.
    pub limits: Limits,
    /// The service template to compile (TOSCA 1.0 documents may hold several).
    pub service_template: Option<String>,
    /// Directories of TOSCA 2.0 profiles (`--profiles`): the catalog that
    /// `imports` entries with `profile: NAME` are found in.
    pub profiles: Vec<std::path::PathBuf>,
    /// Input values given when the plans are made (`--input NAME=VALUE`,
    /// the value in YAML): see [`LoadOptions::inputs`].
    pub inputs: Vec<(String, String)>,
    /// Override the dialect's default for serialising nodes on one host.
    pub same_host_serial: Option<bool>,
    /// How unknown relationship kinds order their ends.
    pub unknown_relationships: Option<plan::UnknownOrdering>,
    /// Plugin completion options.
    pub complete: CompleteOptions,
    /// How the plans' XML is laid out.
    pub layout: Layout,
}

impl Options {
    /// What the front end needs of these options.
    pub fn load_options(&self) -> LoadOptions {
        LoadOptions {
            limits: self.limits.clone(),
            service_template: self.service_template.clone(),
            profiles: self.profiles.clone(),
            inputs: self.inputs.clone(),
        }
    }
}

/// Open `path` and lower it into a topology (the front end, `src/load.rs`).
pub fn load(path: &Path, options: &Options, sources: &mut SourceMap) -> Result<Loaded> {
    load::load(path, &options.load_options(), sources)
}

/// Lower an opened CSAR into a topology.
pub fn load_csar(csar: Csar, options: &Options, sources: &mut SourceMap) -> Result<Loaded> {
    load::load_csar(csar, &options.load_options(), sources)
}

/// The ordering rules for a topology under these options.
pub fn ordering_rules(topology: &Topology, options: &Options) -> OrderingRules {
    let mut rules = match topology.dialect {
        model::Dialect::Xml => OrderingRules::opentosca(),
        model::Dialect::Yaml(_) => OrderingRules::simple_profile(),
    };
    if let Some(s) = options.same_host_serial {
        rules.same_host_serial = s;
    }
    if let Some(u) = options.unknown_relationships {
        rules.unknown = u;
    }
    rules
}

/// The abstract plans of the given kinds under these options (see
/// [`plan::abstract_plans`]).
pub fn abstract_plans(
    topology: &Topology,
    kinds: &[PlanKind],
    options: &Options,
) -> Result<Vec<AbstractPlan>> {
    plan::abstract_plans(topology, kinds, &ordering_rules(topology, options))
}

/// The plan that turns a running instance of `a` into one of `b`, whose
/// CSAR the container knows as `b_csar` (see [`plan::transform`]).
pub fn transformation(
    a: &Topology,
    b: &Topology,
    b_csar: &str,
    options: &Options,
) -> Result<Transformation> {
    plan::transform::transformation(a, b, b_csar, &ordering_rules(a, options))
}

/// Derive and complete the plans of the given kinds.
pub fn derive(
    topology: &Topology,
    kinds: &[PlanKind],
    registry: &Registry,
    options: &Options,
) -> Result<(Vec<ConcretePlan>, Diagnostics)> {
    let mut diags = Diagnostics::new();
    let mut plans = Vec::new();
    for abs in abstract_plans(topology, kinds, options)? {
        let (plan, d) = plugins::complete(topology, abs, registry, &options.complete);
        diags.extend(d);
        plans.extend(plan);
    }
    if diags.has_errors() {
        return Err(Error::Input(diags));
    }
    Ok((plans, diags))
}
