//! The pipeline as one call: the library's façade. [`compile`] is what
//! `toscanini plan` runs — load the input, select and derive its plans,
//! complete them through the plugins, render them in each language, and
//! write them back into the CSAR — and what the tests, the benchmarks and
//! the fuzz targets run too, so that what they check and measure is what
//! users run ([`compile_opened`] when the archive is already in memory).
//! [`export()`] and [`preview()`] are the `export` and `graph` commands the
//! same way.
//!
//! In: a [`Request`] (the input, the options, the plans and languages asked
//! for, where to write). Out: a [`Compiled`] summary (and, for
//! [`Output::Memory`], the plans themselves); every warning goes to the
//! caller's `report` as soon as a stage has found it, so that a later
//! failure does not hide it.

mod explain;
mod export;
mod preview;
mod render;
mod select;
mod stream;

use std::path::{Path, PathBuf};

pub use explain::explain;
pub use export::{ExportRequest, export};
pub use preview::{Preview, PreviewRequest, preview};
pub use render::{render, render_laid_out};

// The write-back in memory, for callers that render plans themselves
// (with [`render`]): the changes that put the plans into the CSAR, and the
// archive with them.
pub use crate::csar::write::{Changes, archive_bytes, zip_files};
pub use crate::writeback::changes;

/// How the ids of BPMN elements are formed: each element of an activity is
/// named `<activity>_<word>…`, with the words of [`bpmn_ids::suffix_word`];
/// the reusable processes shipped beside the main one have the fixed ids
/// of [`bpmn_ids::library_ids`]. Tools that read an engine's history use
/// them to map an element back to its activity.
pub mod bpmn_ids {
    pub use crate::render::bpmn::bases::{Word, suffix_word};
    pub use crate::render::bpmn::library_ids;
}

/// A written-back YAML service template without what toscanini added to it
/// (the workflows of its plans): the user's text, which a later run starts
/// from.
pub fn user_text(
    entry: &str,
    written: &str,
) -> std::result::Result<String, crate::diagnostics::Diagnostic> {
    crate::yaml::rewrite::prepare(entry, written)
        .without_generated()
        .map(str::to_string)
}
pub use select::{plan_kind, plan_kinds};

use crate::csar::Csar;
use crate::diagnostics::{Diagnostics, SourceMap};
use crate::error::Result;
use crate::model::Topology;
use crate::plan::PlanKind;
use crate::plugins::{ConcretePlan, Registry};
use crate::render::{Language, RenderedPlan};
use crate::{Loaded, Options, Transformation};

/// Where the compiled CSAR goes.
#[derive(Clone, Debug)]
pub enum Output {
    /// Beside the input: `<input>.planned.csar`.
    Beside,
    /// This file.
    File(PathBuf),
    /// Over the input (a `.csar` file or an unpacked directory).
    InPlace,
    /// Nowhere: the CSAR and the plans are returned in [`Compiled::csar`]
    /// and [`Compiled::archives`].
    Memory,
}

/// What to compile, and how.
#[derive(Clone, Debug)]
pub struct Request {
    /// A `.csar`/`.zip` file, an unpacked CSAR directory, or a YAML file.
    pub input: PathBuf,
    /// How the input is read, ordered and completed.
    pub options: Options,
    /// Directories of declarative plugins, beside the built-in ones.
    pub plugin_dirs: Vec<PathBuf>,
    /// The plans, as `--plans` names them (`all`, `build`, `scale-out:NAME`, ...).
    pub plans: Vec<String>,
    /// The languages to render each plan in.
    pub languages: Vec<Language>,
    /// Where the result goes.
    pub output: Output,
    /// Also derive the plan that turns an instance of the input into one of this CSAR.
    pub transform_to: Option<PathBuf>,
    /// Keep the decision logs (and the transformation report) as text.
    pub explain: bool,
}

impl Request {
    /// Every plan the input has, in BPEL, written beside the input.
    pub fn new(input: impl Into<PathBuf>) -> Request {
        Request {
            input: input.into(),
            options: Options::default(),
            plugin_dirs: Vec::new(),
            plans: vec!["all".into()],
            languages: vec![Language::Bpel],
            output: Output::Beside,
            transform_to: None,
            explain: false,
        }
    }
}

/// One plan that was compiled.
#[derive(Clone, Debug)]
pub struct PlanSummary {
    /// Which plan.
    pub kind: PlanKind,
    /// Its name (the process name and the archive's).
    pub name: String,
    /// Its language.
    pub language: Language,
    /// How many activities it has.
    pub activities: usize,
}

/// What [`compile`] did.
#[derive(Debug)]
pub struct Compiled {
    /// The service template compiled.
    pub service_template: String,
    /// Its node templates.
    pub nodes: usize,
    /// Its relationship templates.
    pub relationships: usize,
    /// The plans, by language, then in the order asked for.
    pub plans: Vec<PlanSummary>,
    /// The CSAR written, unless the output is [`Output::Memory`].
    pub written: Option<PathBuf>,
    /// For [`Output::Memory`] only: the CSAR with the plans, and the
    /// plans themselves.
    pub csar: Option<Vec<u8>>,
    /// See [`Compiled::csar`].
    pub archives: Vec<RenderedPlan>,
    /// With [`Request::explain`]: the transformation report and each
    /// plan's decision log.
    pub explanation: String,
}

/// A sink for diagnostics: called with each stage's warnings as it finds
/// them, and the sources they point into.
pub type Report<'a> = &'a mut dyn FnMut(&Diagnostics, &SourceMap);

/// Compile `request`. Errors in the input come back as
/// [`Error::Input`](crate::error::Error::Input) with their diagnostics;
/// warnings go to `report`.
pub fn compile(request: &Request, sources: &mut SourceMap, report: Report) -> Result<Compiled> {
    let csar = Csar::open(&request.input, &request.options.limits)?;
    let (registry, warnings) = Registry::standard(&request.plugin_dirs, sources)?;
    compile_archive(csar, &registry, request, sources, report, &warnings)
}

/// [`compile`] for an archive already opened (from memory, say) and a
/// registry already loaded ([`Request::input`] and
/// [`Request::plugin_dirs`] are not read, except to name the output
/// beside or over the input).
pub fn compile_opened(
    csar: Csar,
    registry: &Registry,
    request: &Request,
    sources: &mut SourceMap,
    report: Report,
) -> Result<Compiled> {
    compile_archive(
        csar,
        registry,
        request,
        sources,
        report,
        &Diagnostics::new(),
    )
}

fn compile_archive(
    csar: Csar,
    registry: &Registry,
    request: &Request,
    sources: &mut SourceMap,
    report: Report,
    plugin_warnings: &Diagnostics,
) -> Result<Compiled> {
    let mut loaded = crate::load_csar(csar, &request.options, sources)?;
    report(&loaded.warnings, sources);
    report(plugin_warnings, sources);
    let mut options = request.options.clone();
    options.complete.brief = !request.explain;
    let kinds = plan_kinds(&request.plans, &loaded.topology)?;
    let mut jobs: Vec<stream::Job> = crate::abstract_plans(&loaded.topology, &kinds, &options)?
        .into_iter()
        .map(|p| (p, None))
        .collect();
    let mut explanation = String::new();
    if let Some(target) = &request.transform_to {
        let t = transformation_to(&loaded.topology, target, &options, sources, report)?;
        if request.explain && !t.report.is_empty() {
            explanation.push_str(&explain::transformation_report(&t.report));
        }
        jobs.push((t.plan, Some(std::sync::Arc::new(t.topology))));
    }
    let out = match &request.output {
        Output::Beside => Some(crate::writeback::default_output(&request.input)),
        Output::File(o) => Some(o.clone()),
        Output::InPlace => Some(request.input.clone()),
        Output::Memory => None,
    };
    let (streamed, prepared) = stream::complete_and_render(
        jobs,
        &loaded.topology,
        registry,
        &options,
        &request.languages,
        out.as_deref(),
        || crate::writeback::prepare_entry(&loaded),
    )?;
    let prepared = prepared?;
    report(&streamed.diagnostics, sources);
    explanation.extend(streamed.explained);
    let t = &loaded.topology;
    let mut compiled = Compiled {
        service_template: t.service_template.id.clone(),
        nodes: t.nodes.len(),
        relationships: t.relationships.len(),
        plans: summaries(&streamed.rendered, &streamed.activities),
        written: out.clone(),
        csar: None,
        archives: Vec::new(),
        explanation,
    };
    match &out {
        Some(out) => {
            // The topology is freed beside the writing, not before it.
            let topology = loaded.take_topology();
            let in_place = matches!(request.output, Output::InPlace);
            let warnings = std::thread::scope(|scope| {
                scope.spawn(move || drop(topology));
                crate::writeback::write(&loaded, prepared, &streamed.rendered, out, in_place)
            })?;
            report(&warnings, sources);
        }
        None => {
            let (changes, warnings) =
                crate::writeback::prepared_changes(&loaded, prepared, &streamed.rendered)?;
            report(&warnings, sources);
            compiled.csar = Some(crate::csar::write::archive_bytes(&loaded.csar, &changes)?);
            compiled.archives = streamed.rendered;
        }
    }
    Ok(compiled)
}

/// One summary per rendered plan.
fn summaries(rendered: &[RenderedPlan], activities: &[usize]) -> Vec<PlanSummary> {
    rendered
        .iter()
        .zip(activities)
        .map(|(r, &activities)| PlanSummary {
            kind: r.kind.clone(),
            name: r.name.clone(),
            language: r.language,
            activities,
        })
        .collect()
}

/// Load the input and the plugins; their warnings go to `report`.
fn load(
    input: &Path,
    options: &Options,
    plugin_dirs: &[PathBuf],
    sources: &mut SourceMap,
    report: Report,
) -> Result<(Loaded, Registry)> {
    let loaded = crate::load(input, options, sources)?;
    report(&loaded.warnings, sources);
    let (registry, warnings) = Registry::standard(plugin_dirs, sources)?;
    report(&warnings, sources);
    Ok((loaded, registry))
}

/// The transformation from `topology` to the CSAR `target` (its own
/// service template: the only or first one); the warnings of loading the
/// target and of the transformation go to `report`.
fn transformation_to(
    topology: &Topology,
    target: &Path,
    options: &Options,
    sources: &mut SourceMap,
    report: Report,
) -> Result<Transformation> {
    let mut target_options = options.clone();
    target_options.service_template = None;
    let b = crate::load(target, &target_options, sources)?;
    report(&b.warnings, sources);
    let t = crate::transformation(topology, &b.topology, &csar_id(target), options)?;
    report(&t.warnings, sources);
    Ok(t)
}

/// The name the container gives the CSAR at `path`: its file name, or for a
/// directory or a lone YAML file, its stem with `.csar` (as packaged).
fn csar_id(path: &Path) -> String {
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    if name.ends_with(".csar") || name.ends_with(".zip") {
        return name;
    }
    let stem = path
        .file_stem()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or(name);
    format!("{stem}.csar")
}

/// The completed transformation plan from `loaded` to `target`, with its
/// own topology.
fn transformation(
    loaded: &Loaded,
    target: &Path,
    registry: &Registry,
    options: &Options,
    sources: &mut SourceMap,
    report: Report,
) -> Result<ConcretePlan> {
    let t = transformation_to(&loaded.topology, target, options, sources, report)?;
    let own = std::sync::Arc::new(t.topology);
    let (plan, d) = crate::plugins::complete(&own, t.plan, registry, &options.complete);
    let Some(mut plan) = plan.filter(|_| !d.has_errors()) else {
        return Err(crate::error::Error::Input(d));
    };
    report(&d, sources);
    plan.own_topology = Some(own);
    Ok(plan)
}
