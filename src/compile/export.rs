//! One plan as an unpacked deployment unit (`toscanini export`): for BPEL
//! the directory Apache ODE's hot-deploy folder takes, for BPMN the `.bpmn`
//! file a Camunda 7 / Operaton deployment takes.
//!
//! In: the input, the plan and the language, a new or empty directory.
//! Out: the plan's files in the directory, and its name and file count.

use std::path::PathBuf;

use super::{Report, load, plan_kind, transformation};
use crate::Options;
use crate::diagnostics::SourceMap;
use crate::error::{Error, Result};
use crate::render::Language;

/// What to export.
#[derive(Clone, Debug)]
pub struct ExportRequest {
    /// The input, as [`super::Request::input`].
    pub input: PathBuf,
    /// How the input is read, ordered and completed.
    pub options: Options,
    /// Directories of declarative plugins.
    pub plugin_dirs: Vec<PathBuf>,
    /// The plan, as `--plan` names it (`transformation` with
    /// [`ExportRequest::transform_to`]).
    pub plan: String,
    /// The target of `transformation`.
    pub transform_to: Option<PathBuf>,
    /// Its language.
    pub language: Language,
    /// A new or empty directory.
    pub out: PathBuf,
}

/// Export one plan; returns its name and how many files were written.
pub fn export(
    request: &ExportRequest,
    sources: &mut SourceMap,
    report: Report,
) -> Result<(String, usize)> {
    let (loaded, registry) = load(
        &request.input,
        &request.options,
        &request.plugin_dirs,
        sources,
        report,
    )?;
    let plan = if request.plan == "transformation" {
        let Some(target) = &request.transform_to else {
            return Err(Error::Usage(
                "--plan transformation needs --transform-to TARGET".into(),
            ));
        };
        transformation(
            &loaded,
            target,
            &registry,
            &request.options,
            sources,
            report,
        )?
    } else {
        let kind = plan_kind(&request.plan)?;
        let (mut plans, warnings) =
            crate::derive(&loaded.topology, &[kind], &registry, &request.options)?;
        report(&warnings, sources);
        plans.swap_remove(0)
    };
    let rendered = super::render::render_laid_out(
        &plan,
        &loaded.topology,
        request.language,
        request.options.layout,
    )?;
    let out = &request.out;
    if out.exists() {
        let empty = std::fs::read_dir(out)
            .map_err(|e| Error::io("cannot read", out, e))?
            .next()
            .is_none();
        if !empty {
            return Err(Error::Usage(format!(
                "`{}` exists and is not empty; export writes into a new or empty directory",
                out.display()
            )));
        }
    }
    std::fs::create_dir_all(out).map_err(|e| Error::io("cannot create", out, e))?;
    for f in &rendered.files {
        crate::csar::write::write_atomically(&out.join(&f.name), &f.data)?;
    }
    Ok((rendered.name, rendered.files.len()))
}
