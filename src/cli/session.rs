//! What every command shares: the source map for diagnostics, turning
//! arguments into [`Options`], loading plugins, printing diagnostics.

use std::io::Write;

use super::args::{CompileArgs, MessageFormat, NonInterruptiveArg, SameHost, UnknownRelationships};
use crate::csar::Limits;
use crate::diagnostics::{Diagnostics, SourceMap, render};
use crate::error::{Error, Result};
use crate::plan::{PlanKind, UnknownOrdering};
use crate::plugins::api::NonInterruptive;
use crate::plugins::{CompleteOptions, Registry};
use crate::{Loaded, Options};

/// State of one command run.
pub struct Session {
    /// Every source file read, for snippets.
    pub sources: SourceMap,
    /// How problems are printed.
    format: MessageFormat,
    /// Every warning in the text form, none grouped (`--verbose`).
    verbose: bool,
}

impl Session {
    pub fn new(format: MessageFormat, verbose: bool) -> Session {
        Session {
            sources: SourceMap::new(),
            format,
            verbose,
        }
    }

    /// Print diagnostics (warnings, or errors of a failed run) to stderr.
    pub fn print(&self, diags: &Diagnostics) {
        if diags.is_empty() {
            return;
        }
        let text = match self.format {
            MessageFormat::Human if self.verbose => render::render_all(diags, &self.sources),
            MessageFormat::Human => render::render_grouped(diags, &self.sources),
            MessageFormat::Json => render::json_lines(diags),
        };
        let _ = std::io::stderr().write_all(text.as_bytes());
    }

    /// Print a failure and return its exit code.
    pub fn report(&self, e: Error) -> u8 {
        match &e {
            Error::Input(d) => {
                self.print(d);
                if !d.has_errors() {
                    self.fail("the input has problems");
                }
            }
            other => self.fail(&other.to_string()),
        }
        e.exit_code()
    }

    /// Print a failure that is not a diagnostic.
    fn fail(&self, message: &str) {
        let text = match self.format {
            MessageFormat::Human => format!("error: {message}\n"),
            MessageFormat::Json => render::json_failure(message),
        };
        let _ = std::io::stderr().write_all(text.as_bytes());
    }

    /// Options from the command line.
    pub fn options(&self, a: &CompileArgs) -> Options {
        Options {
            limits: Limits {
                max_entries: a.max_entries,
                max_entry_size: a.max_entry_size,
                max_total_size: a.max_total_size,
                max_compression_ratio: a.max_compression_ratio,
                max_depth: a.max_depth,
            },
            service_template: a.service_template.clone(),
            same_host_serial: a.same_host.map(|s| matches!(s, SameHost::Serial)),
            unknown_relationships: Some(match a.unknown_relationships {
                UnknownRelationships::DependsOn => UnknownOrdering::DependsOn,
                UnknownRelationships::Ignore => UnknownOrdering::Ignore,
            }),
            complete: CompleteOptions {
                plugins: crate::plugins::api::PluginOptions {
                    non_interruptive: match a.non_interruptive {
                        NonInterruptiveArg::Opentosca => NonInterruptive::OpenTosca,
                        NonInterruptiveArg::Literal => NonInterruptive::Literal,
                    },
                },
                allow_unhandled: a.allow_unhandled,
                // Only `plan --explain` prints the decision log.
                brief: true,
            },
        }
    }

    /// Load the input and the plugins; warnings are printed.
    pub fn load(&mut self, a: &CompileArgs) -> Result<(Loaded, Registry, Options)> {
        let options = self.options(a);
        let loaded = crate::load(&a.input, &options, &mut self.sources)?;
        self.print(&loaded.warnings);
        let (registry, warnings) = Registry::standard(&a.plugin_dirs, &mut self.sources)?;
        self.print(&warnings);
        Ok((loaded, registry, options))
    }
}

/// Parse a plan name given on the command line: `build`, `termination`,
/// `scale-out:NAME`, `workflow:NAME`, and the management-feature plans
/// `freeze`, `defrost`, `backup`, `test`, `update`.
pub fn plan_kind(name: &str) -> Result<PlanKind> {
    if let Some(feature) = PlanKind::features().into_iter().find(|k| k.slug() == name) {
        return Ok(feature);
    }
    match name {
        "build" => Ok(PlanKind::Build),
        "termination" => Ok(PlanKind::Termination),
        other => {
            if let Some(region) = other.strip_prefix("scale-out:").filter(|r| !r.is_empty()) {
                return Ok(PlanKind::ScaleOut(region.to_string()));
            }
            match other.strip_prefix("workflow:") {
                Some(w) if !w.is_empty() => Ok(PlanKind::Workflow(w.to_string())),
                _ => Err(Error::Usage(format!(
                    "unknown plan `{other}`; plans are `build`, `termination`, `scale-out:NAME`, `workflow:NAME` (a TOSCA YAML imperative workflow), `freeze`, `defrost`, `backup`, `test` and `update`"
                ))),
            }
        }
    }
}

/// The plans a `--plans` list asks for: names as [`plan_kind`] takes them,
/// `scale-out` for every scaling plan, `all` for everything.
pub fn plan_kinds(names: &[String], topology: &crate::model::Topology) -> Result<Vec<PlanKind>> {
    let scale_outs = || {
        topology
            .regions
            .iter()
            .map(|r| PlanKind::ScaleOut(r.name.clone()))
    };
    let mut kinds = Vec::new();
    for n in names {
        match n.as_str() {
            "all" => kinds.extend(crate::all_plans(topology)),
            "scale-out" => kinds.extend(scale_outs()),
            other => kinds.push(plan_kind(other)?),
        }
    }
    let mut seen = std::collections::HashSet::new();
    kinds.retain(|k| seen.insert(k.clone()));
    Ok(kinds)
}
