//! The BPMN 2.0 backend, for Camunda 7 and Operaton (and any engine that
//! runs the Camunda extensions it uses: the Connect `http-connector` and
//! Groovy scripts, both shipped with their distributions).
//!
//! In: a [`ConcretePlan`] and the topology (for names). Out: a
//! [`RenderedPlan`] holding the `.bpmn` file (an executable process with
//! diagram interchange) and the shared Groovy scripts it references as
//! deployment resources ([`scripts`]).
//!
//! Shape of the process: start, initialise the variables, create (build)
//! or find (other plans) the service instance, then one expanded
//! subprocess `plan_activities` holding the plan graph. Every activity is
//! a collapsed subprocess whose id is the activity id (its steps are in a
//! diagram of its own, one click away in a modeler); a fork is a parallel
//! gateway after an activity with several successors, a join one before an
//! activity with several predecessors, and nothing else is added, so the
//! process is exactly as parallel as the plan graph. Termination
//! activities loop over the live instances of their template, with the
//! instance's variables local to each turn.
//!
//! Failures: a failing call throws the BPMN error `ToscaniniFailure`; the
//! error boundary event of the activity marks the instance ERROR (in a
//! termination activity, an error event subprocess in each loop turn does,
//! where the instance's variables are) and ends in an error end event; the
//! event subprocess of `plan_activities` compensates the finished
//! activities (e.g. `terminateVM` after `createVM`), and the boundary event
//! of `plan_activities` records the failure on the service instance and
//! ends the process in the error end event `plan_failed`.
//!
//! Imperative workflows: a step's filter is a script (or, when it reads
//! the state, a GET of the instance state) that computes whether the
//! instance meets it, and an exclusive gateway that ends the activity (in
//! a termination-style activity, the turn of that instance) where it does
//! not; a precondition throws `ToscaniniFailure` where it does not hold,
//! which fails the plan as above. `on_failure` routing is [`routing`]: a
//! routed activity catches its own failure, and the activities on the
//! paths not taken are skipped (by the token where no paths join, by
//! gateways inside the activities where they do).
//!
//! The model's text (ids, labels, values) lives in one [`graph::Text`] per
//! plan; nodes refer to it by range, so building a plan of tens of
//! thousands of elements does not allocate per element. The steps of the
//! activities and their compensation handlers are not in the model up
//! front: they are [`graph::Kind::Deferred`], built when the writer reaches
//! them (in a text of their own, reused) and dropped once written, so that
//! memory holds the plan graph and one activity, not every step of a
//! 100k-node plan.
//!
//! Where things are. Which elements a plan has: `process` (the process),
//! `activities` (`plan_activities`), `activity` and `per_instance`
//! (one activity), `steps` (one step) and `calls` (the calls of the
//! reusable processes they make), sharing `ctx` and `chain`;
//! `init` and `scripts` for the Groovy they run, `expr` and
//! `groovy` for expressions, `library` for the reusable processes.
//! Where they are drawn: [`layout`]. How they are written as XML: [`xml`].
//! This module renames activities where needed ([`bases`]), builds the
//! process, lays it out and writes it.

mod activities;
mod activity;
pub(crate) mod bases;
mod calls;
mod chain;
mod condition;
mod ctx;
// Names the shared template variables must keep clear of (render::plan_vars).
pub(super) use self::ctx::{BUS_URL_INPUT, FIXED};
mod errors;
mod expr;
pub(crate) mod graph;
mod groovy;
mod init;
pub(crate) mod layout;
mod library;
mod per_instance;
mod process;
mod program;
pub(crate) mod routing;
pub(crate) mod scripts;
mod steps;
pub(crate) mod xml;

use self::activity::Activities;
use self::bases::Bases;
use self::ctx::Ctx;
use self::errors::{
    ERR_ACTIVITY, ERR_FAILURE, ERR_PLAN, ERROR_ACTIVITY, ERROR_FAILURE, ERROR_PLAN,
};
pub use self::library::library_ids;
use self::process::Process;
use self::scripts::{Shared, Used};
use super::output::{PlanOutput, Written};
use super::rendered::{Language, PlanParameter, RenderedPlan};
use super::templates::Templates;
use super::vars::Vars;
use crate::error::Result;
use crate::model::Topology;
use crate::names::Unique;
use crate::names::ncname;
use crate::plan::PlanKind;
use crate::plan::naming::{plan_name, plan_namespace};
use crate::plugins::ConcretePlan;
use crate::plugins::complete::CORRELATION_ID;

/// The name of a BPMN plan: `<service template>_bpmn<Kind suffix>` (as
/// OpenTOSCA's BPMN generator named them), so that it never clashes with
/// the BPEL plan of the same kind in the same CSAR.
pub(crate) fn bpmn_plan_name(topology: &Topology, kind: &PlanKind) -> String {
    let base = plan_name(topology, kind);
    let suffix = kind.suffix();
    let stem = &base[..base.len() - suffix.len()];
    let mut chars = suffix.chars();
    let first = chars.next().map(|c| c.to_ascii_uppercase()).unwrap_or('_');
    format!("{stem}bpmn{first}{}", chars.as_str())
}

/// The prefixes of a plan's ids ([`bases`]): its activities' ids and the
/// ids the process has once (named after the plan `name`).
fn plan_bases(plan: &ConcretePlan, name: &str) -> Bases {
    let fixed = [
        name.to_string(),
        format!("{name}_definitions"),
        format!("{name}_diagram"),
        format!("{name}_plane"),
        ERR_FAILURE.to_string(),
        ERR_ACTIVITY.to_string(),
        ERR_PLAN.to_string(),
    ]
    .into_iter()
    .chain(library_ids().iter().cloned())
    .collect::<Vec<_>>();
    let fixed: Vec<&str> = fixed.iter().map(String::as_str).collect();
    Bases::new(plan.plan.activities.iter().map(|a| a.id.as_str()), &fixed)
}

/// The id of each activity's subprocess in the plan's BPMN process, in
/// the order of the activities: the activity id, or where that id could
/// meet another element's, the prefix it is drawn under ([`bases`]).
pub(crate) fn activity_ids(plan: &ConcretePlan, topology: &Topology) -> Vec<String> {
    let mut bases = plan_bases(plan, &bpmn_plan_name(topology, &plan.plan.kind));
    let activities = plan.plan.activities.iter().enumerate();
    activities
        .map(|(k, a)| bases.renamed.remove(&k).unwrap_or_else(|| a.id.clone()))
        .collect()
}

/// Render a concrete plan as a BPMN process.
pub(crate) fn render(
    plan: &ConcretePlan,
    topology: &Topology,
    templates: &Templates,
    names: &Vars,
) -> Result<RenderedPlan> {
    render_into(plan, topology, templates, names, PlanOutput::files())
}

/// Render a concrete plan into `output` (its files kept, or packed into
/// the archive as they are written): the process first, then the shared
/// scripts it uses.
pub(crate) fn render_into(
    plan: &ConcretePlan,
    topology: &Topology,
    templates: &Templates,
    names: &Vars,
    mut output: PlanOutput,
) -> Result<RenderedPlan> {
    // A plan completed against a topology of its own (a test plan's) is
    // rendered with it.
    let topology = plan.topology(topology);
    let kind = &plan.plan.kind;
    let name = bpmn_plan_name(topology, kind);
    let namespace = plan_namespace(topology, kind);
    // Where an activity's ids could meet another's or the plan's, it is
    // drawn under a prefix of its own, as if that were its id.
    let bases = plan_bases(plan, &name);
    let renamed;
    let plan = if bases.renamed.is_empty() {
        plan
    } else {
        let mut copy = plan.clone();
        for (&k, base) in &bases.renamed {
            copy.plan.activities[k].id.clone_from(base);
        }
        renamed = copy;
        &renamed
    };
    let (mut cx, parameters) = Ctx::new(topology, plan, &bases.plan, names);

    let process = process::build(&mut cx, plan, &name, &parameters);
    let title = format!("{} plan of {}", kind.slug(), topology.service_template.id);
    let document = Document {
        name: &name,
        namespace: &namespace,
        title: &title,
        service_template: &super::made_from(topology),
        parameters: &parameters,
    };
    write_process(&mut cx, plan, process, &document, templates, &mut output)?;
    let (files, packed) = match output.finish()? {
        Written::Files(files) => (files, None),
        Written::Packed(packed) => (Vec::new(), Some(packed)),
    };
    let outputs = output_names(plan);
    Ok(RenderedPlan {
        name: name.clone(),
        kind: kind.clone(),
        language: Language::Bpmn,
        files,
        packed,
        inputs: parameters,
        outputs,
    })
}

/// What a plan's `.bpmn` file says about the plan.
struct Document<'d> {
    /// The process id (the plan name).
    name: &'d str,
    /// The target namespace.
    namespace: &'d str,
    /// The title, in the file's comment.
    title: &'d str,
    /// The service template, as `{namespace}id`.
    service_template: &'d str,
    /// The plan's parameters.
    parameters: &'d [PlanParameter],
}

/// Write the process into `output` as `<name>.bpmn`, laid out, its
/// activities built as the writer reaches them; then the shared scripts
/// it uses.
fn write_process(
    cx: &mut Ctx,
    plan: &ConcretePlan,
    process: Process,
    document: &Document,
    templates: &Templates,
    output: &mut PlanOutput,
) -> Result<()> {
    let Process {
        plane: mut process,
        routing,
        init,
    } = process;
    let name = document.name;
    // The activities are built as they are written, in a text of their own.
    let mut text = std::mem::take(&mut cx.text);
    text.shrink_to_fit();
    process.shrink_to_fit();
    let mut properties = std::mem::take(&mut cx.properties);
    let diagrams = layout::layout(&text, name, &process)?;
    let mut used = Used::default();
    // The scripts of the reusable processes, which every plan carries (it
    // sets its plan instance's state through one).
    for s in [
        Shared::Check,
        Shared::InstanceCount,
        Shared::InstanceId,
        Shared::InstanceIds,
        Shared::InstanceUrl,
        Shared::Invocation,
        Shared::Load,
        Shared::Location,
        Shared::MarkUrl,
        Shared::NextInstance,
        Shared::Pending,
        Shared::PlanLog,
        Shared::Properties,
        Shared::Relationship,
        Shared::RunStep,
        Shared::TargetId,
        Shared::TargetUrl,
    ] {
        used.mark(s, &properties);
    }
    output.start(&format!("{name}.bpmn"))?;
    xml::write(
        templates,
        &mut used,
        &mut properties,
        &xml::Document {
            title: document.title,
            service_template: document.service_template,
            process: name,
            namespace: document.namespace,
            errors: &[
                (ERR_FAILURE, ERROR_FAILURE),
                (ERR_ACTIVITY, ERROR_ACTIVITY),
                (ERR_PLAN, ERROR_PLAN),
            ],
            inputs: document.parameters,
            text: &text,
            plane: &process,
            diagrams: &diagrams,
        },
        &mut Activities {
            cx,
            plan,
            routing: &routing,
            init: &init,
        },
        output,
    )?;
    output.end()?;
    drop(diagrams);
    cx.properties = properties;
    for (file, text) in used.files(&cx.properties) {
        output.file(&file, text.as_bytes())?;
    }
    Ok(())
}

/// The outputs of a plan: the correlation id, the service instance's id
/// where the plan creates it, then the plan's outputs (NCNames, unique).
fn output_names(plan: &ConcretePlan) -> Vec<String> {
    let mut outputs = vec![CORRELATION_ID.to_string()];
    if plan.plan.kind.creates_service_instance() {
        outputs.push("instanceId".into());
    }
    let mut out_unique = Unique::new();
    for o in &outputs {
        out_unique.name(o.clone());
    }
    for (n, _) in &plan.outputs {
        outputs.push(out_unique.name(ncname(n)));
    }
    outputs
}
