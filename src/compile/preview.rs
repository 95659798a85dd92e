//! The plan graph or the topology as DOT or JSON (`toscanini graph`),
//! before anything runs.
//!
//! In: the input and which graph. Out: its text.

use std::path::PathBuf;

use super::{Report, load, plan_kind, transformation};
use crate::Options;
use crate::diagnostics::SourceMap;
use crate::error::{Error, Result};

/// Which graph, in which notation.
#[derive(Clone, Debug)]
pub struct PreviewRequest {
    /// The input, as [`super::Request::input`].
    pub input: PathBuf,
    /// How the input is read, ordered and completed.
    pub options: Options,
    /// Directories of declarative plugins.
    pub plugin_dirs: Vec<PathBuf>,
    /// The plan, as `--plan` names it (`transformation` with
    /// [`PreviewRequest::transform_to`]); ignored for the topology.
    pub plan: String,
    /// The target of `transformation`.
    pub transform_to: Option<PathBuf>,
    /// The topology instead of a plan.
    pub topology: bool,
    /// JSON instead of DOT.
    pub json: bool,
}

/// A preview's text.
pub type Preview = String;

/// The graph `request` asks for. Activities no plugin handles are shown
/// (as such), not refused: the preview is how one finds them.
pub fn preview(
    request: &PreviewRequest,
    sources: &mut SourceMap,
    report: Report,
) -> Result<Preview> {
    let (loaded, registry) = load(
        &request.input,
        &request.options,
        &request.plugin_dirs,
        sources,
        report,
    )?;
    let t = &loaded.topology;
    if request.topology {
        return Ok(match request.json {
            false => crate::dot::topology_dot(t),
            true => format!("{:#}\n", crate::dot::topology_json(t)),
        });
    }
    let mut options = request.options.clone();
    options.complete.allow_unhandled = true;
    let plan = if request.plan == "transformation" {
        let Some(target) = &request.transform_to else {
            return Err(Error::Usage(
                "--plan transformation needs --transform-to TARGET".into(),
            ));
        };
        transformation(&loaded, target, &registry, &options, sources, report)?
    } else {
        let kind = plan_kind(&request.plan)?;
        let (mut plans, warnings) = crate::derive(t, &[kind], &registry, &options)?;
        report(&warnings, sources);
        plans.swap_remove(0)
    };
    let t = plan.topology(t);
    Ok(match request.json {
        false => crate::dot::plan_dot(&plan, t),
        true => format!("{:#}\n", crate::dot::plan_json(&plan, t)),
    })
}
