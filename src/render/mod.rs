//! Stage 6: rendering a [`ConcretePlan`] into a plan language. Each
//! backend turns every kind of language-neutral step into its own
//! constructs, inside a skeleton from `templates/`; nothing here knows
//! TOSCA syntax.
//!
//! In: a concrete plan and the topology (for names). Out: a
//! [`RenderedPlan`]: the files of one deployable plan.

pub(crate) mod bpel;
pub(crate) mod bpmn;
pub(crate) mod fragment;
pub(crate) mod output;
pub(crate) mod templates;
pub(crate) mod vars;

use crate::csar::path::percent_encode;
use crate::model::{TemplateRef, Topology};
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

/// Render a concrete plan in a language, keeping its files.
pub(crate) fn render(
    language: Language,
    plan: &crate::plugins::ConcretePlan,
    topology: &Topology,
    templates: &templates::Templates,
) -> crate::error::Result<RenderedPlan> {
    match language {
        Language::Bpel => bpel::render(plan, topology, templates),
        Language::Bpmn => bpmn::render(plan, topology, templates),
    }
}

/// Render a concrete plan straight into its archive (what write-back
/// stores), in memory or, with `spool` (the output file), in a spool file
/// beside it; the files are not kept.
pub(crate) fn pack(
    language: Language,
    plan: &crate::plugins::ConcretePlan,
    topology: &Topology,
    templates: &templates::Templates,
    spool: Option<&std::path::Path>,
) -> crate::error::Result<RenderedPlan> {
    let out = match spool {
        Some(near) => output::PlanOutput::spooled(near, "plan")?,
        None => output::PlanOutput::archive(),
    };
    match language {
        Language::Bpel => bpel::render_into(plan, topology, templates, out),
        Language::Bpmn => bpmn::render_into(plan, topology, templates, out),
    }
}

/// Pack every (language, plan) pair, in that order, on as many threads as
/// the machine has cores: plans are independent, and packing them is most
/// of the work of `plan`. `done` is called with the number of pairs packed
/// so far each time one is.
pub(crate) fn pack_all(
    jobs: &[(Language, &crate::plugins::ConcretePlan)],
    topology: &Topology,
    templates: &templates::Templates,
    spool: Option<&std::path::Path>,
    done: &(dyn Fn(usize) + Sync),
) -> crate::error::Result<Vec<RenderedPlan>> {
    use std::sync::Mutex;
    use std::sync::atomic::{AtomicUsize, Ordering};
    let threads = std::thread::available_parallelism()
        .map(|n| n.get())
        .unwrap_or(1)
        .min(jobs.len())
        .max(1);
    let next = AtomicUsize::new(0);
    let finished = AtomicUsize::new(0);
    let results: Mutex<Vec<Option<crate::error::Result<RenderedPlan>>>> =
        Mutex::new((0..jobs.len()).map(|_| None).collect());
    std::thread::scope(|scope| {
        for _ in 0..threads {
            scope.spawn(|| {
                loop {
                    let i = next.fetch_add(1, Ordering::Relaxed);
                    let Some(&(language, plan)) = jobs.get(i) else {
                        break;
                    };
                    let r = pack(language, plan, topology, templates, spool);
                    if let Ok(mut all) = results.lock() {
                        all[i] = Some(r);
                    }
                    done(finished.fetch_add(1, Ordering::Relaxed) + 1);
                }
            });
        }
    });
    let results = results
        .into_inner()
        .map_err(|_| crate::error::Error::Internal("a rendering thread panicked".into()))?;
    results
        .into_iter()
        .map(|r| {
            r.unwrap_or_else(|| {
                Err(crate::error::Error::Internal(
                    "a plan was not rendered".into(),
                ))
            })
        })
        .collect()
}

/// One file of a rendered plan.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PlanFile {
    /// File name inside the plan archive.
    pub name: String,
    /// Contents.
    pub data: Vec<u8>,
}

/// A plan input as the plan's interface declares it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PlanParameter {
    /// Name (an NCName).
    pub name: String,
    /// Whether the caller must supply it.
    pub required: bool,
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
    /// the archive, see [`pack`]).
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

/// Percent-encode each segment of a CSAR path for use in a URL.
pub(crate) fn url_path(path: &str) -> String {
    path.split('/')
        .map(percent_encode)
        .collect::<Vec<_>>()
        .join("/")
}

/// The collection path of a template's instances in the instance API
/// (`/nodetemplates/<id>/instances`).
pub(crate) fn instances_path(topology: &Topology, t: TemplateRef) -> String {
    match t {
        TemplateRef::Node(n) => format!(
            "/nodetemplates/{}/instances",
            url_path(&topology.node(n).id)
        ),
        TemplateRef::Relationship(r) => format!(
            "/relationshiptemplates/{}/instances",
            url_path(&topology.relationship(r).id)
        ),
    }
}
