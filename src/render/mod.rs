//! Stage 6: rendering a [`ConcretePlan`](crate::plugins::ConcretePlan)
//! into a plan language. Each backend turns every kind of
//! language-neutral step into its own constructs, inside a skeleton from
//! `templates/`; nothing here knows TOSCA syntax.
//!
//! In: a concrete plan and the topology (for names). Out: a
//! [`RenderedPlan`]: the files of one deployable plan.

pub(crate) mod bpel;
pub(crate) mod bpmn;
mod collected;
pub(crate) mod fragment;
pub(crate) mod output;
mod paths;
mod rendered;
pub(crate) mod side;
pub(crate) mod templates;
pub(crate) mod vars;

pub use self::output::PlanFile;
pub use self::rendered::{Language, Layout, RenderedPlan};
use crate::model::Topology;

/// The service template a plan is made from, for the file's comment:
/// `{namespace}id`, and the inputs given values when the plans were made
/// (`--input`), which the plan does not ask for. No `--`, which would
/// end the comment.
fn made_from(topology: &Topology) -> String {
    let st = &topology.service_template;
    let mut out = format!("{{{}}}{}", st.namespace, st.id);
    let given: Vec<String> = topology
        .inputs
        .values()
        .filter(|i| i.given)
        .map(|i| {
            let value = match &i.default {
                Some(crate::model::Value::Scalar(s)) => s.clone(),
                Some(v) => v.to_json().to_string(),
                None => String::new(),
            };
            format!("{} = {value}", i.name)
        })
        .collect();
    if !given.is_empty() {
        out.push_str(" with inputs given when the plans were made: ");
        out.push_str(&given.join(", "));
    }
    while out.contains("--") {
        out = out.replace("--", "- -");
    }
    out
}

/// The template variables of `plan`, named once for every language it is
/// rendered in (in a large plan they are much of each rendering's memory),
/// clear of every name either backend gives its own variables and inputs.
fn plan_vars(plan: &crate::plugins::ConcretePlan, topology: &Topology) -> vars::Vars {
    let inputs: Vec<String> = plan
        .inputs
        .iter()
        .map(|i| crate::names::ncname(i))
        .collect();
    let taken = bpel::FIXED
        .into_iter()
        .chain(bpmn::FIXED)
        .chain([bpel::BUS_URL_INPUT, bpmn::BUS_URL_INPUT])
        .chain(side::TARGET_VARS)
        .chain(inputs.iter().map(String::as_str));
    vars::Vars::new(plan.topology(topology), plan, taken)
}

/// Render a concrete plan in a language, keeping its files.
pub(crate) fn render(
    language: Language,
    plan: &crate::plugins::ConcretePlan,
    topology: &Topology,
    templates: &templates::Templates,
    layout: Layout,
) -> crate::error::Result<RenderedPlan> {
    let names = plan_vars(plan, topology);
    match language {
        Language::Bpel => bpel::render(plan, topology, templates, layout, &names),
        Language::Bpmn => bpmn::render(plan, topology, templates, &names),
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
    layout: Layout,
    names: &vars::Vars,
    spool: Option<&std::path::Path>,
) -> crate::error::Result<RenderedPlan> {
    let out = match spool {
        Some(near) => output::PlanOutput::spooled(near, "plan")?,
        None => output::PlanOutput::archive(),
    };
    match language {
        Language::Bpel => bpel::render_into(plan, topology, templates, layout, names, out),
        Language::Bpmn => bpmn::render_into(plan, topology, templates, names, out),
    }
}

/// A concrete plan with its variables named, ready to be packed in every
/// language.
pub(crate) struct NamedPlan {
    pub(crate) plan: crate::plugins::ConcretePlan,
    names: vars::Vars,
}

impl NamedPlan {
    /// Name `plan`'s variables ([`plan_vars`]).
    pub(crate) fn new(plan: crate::plugins::ConcretePlan, topology: &Topology) -> NamedPlan {
        let names = plan_vars(&plan, topology);
        NamedPlan { plan, names }
    }
}

/// Pack a plan in every language, on as many threads as the machine has
/// cores: the languages are independent, and packing is most of the work
/// of `plan`. `done` is called with the number of languages packed so far
/// each time one is.
pub(crate) fn pack_all(
    named: &NamedPlan,
    languages: &[Language],
    topology: &Topology,
    templates: &templates::Templates,
    layout: Layout,
    spool: Option<&std::path::Path>,
    done: &(dyn Fn(usize) + Sync),
) -> crate::error::Result<Vec<RenderedPlan>> {
    use std::sync::Mutex;
    use std::sync::atomic::{AtomicUsize, Ordering};
    let threads = std::thread::available_parallelism()
        .map(|n| n.get())
        .unwrap_or(1)
        .min(languages.len())
        .max(1);
    let next = AtomicUsize::new(0);
    let finished = AtomicUsize::new(0);
    let results: Mutex<Vec<Option<crate::error::Result<RenderedPlan>>>> =
        Mutex::new((0..languages.len()).map(|_| None).collect());
    std::thread::scope(|scope| {
        for _ in 0..threads {
            scope.spawn(|| {
                loop {
                    let i = next.fetch_add(1, Ordering::Relaxed);
                    let Some(&language) = languages.get(i) else {
                        break;
                    };
                    let r = pack(
                        language,
                        &named.plan,
                        topology,
                        templates,
                        layout,
                        &named.names,
                        spool,
                    );
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
