//! `toscanini plan`: compile, render and write the plans into the CSAR.

use super::args::PlanArgs;
use super::session::{Session, plan_kinds};
use crate::error::Result;
use crate::model::Topology;
use crate::render::templates::Templates;

pub fn run(session: &mut Session, a: PlanArgs) -> Result<()> {
    let (mut loaded, registry, mut options) = session.load(&a.compile)?;
    options.complete.brief = !a.explain;
    let kinds = plan_kinds(&a.plans, &loaded.topology)?;
    let templates = Templates::embedded()?;
    let out = match (&a.output, a.in_place) {
        (Some(o), _) => o.clone(),
        (None, true) => a.compile.input.clone(),
        (None, false) => crate::writeback::default_output(&a.compile.input),
    };
    let languages = a.lang.languages();
    // One plan at a time: completed on this thread while the one before
    // is rendered in every language on others, then dropped, so that
    // memory holds two plans' steps however many plans there are. Plan
    // archives are spooled beside the output. A plan that cannot be
    // completed stops the rendering, but the others are still completed,
    // so that every error is reported.
    //
    // The next plan is completed once the one before is rendered in every
    // language but one: rendering a large plan starts with the whole
    // process laid out (the peak of its memory), and the next plan's
    // steps need not be held beside that; the last language (the BPMN
    // process, the longest) still leaves time to complete it.
    let mut diagnostics = crate::diagnostics::Diagnostics::new();
    // Plans with the topology they are derived on when it is not the
    // input's (a transformation's: the input's with the target's templates).
    let mut abstract_plans: Vec<(crate::plan::AbstractPlan, Option<std::sync::Arc<Topology>>)> =
        crate::abstract_plans(&loaded.topology, &kinds, &options)?
            .into_iter()
            .map(|p| (p, None))
            .collect();
    let mut report = Vec::new();
    if let Some(target) = &a.transform_to {
        let b = load_target(session, target, &options)?;
        let t = crate::transformation(&loaded.topology, &b.topology, &options)?;
        session.print(&t.warnings);
        report = t.report;
        abstract_plans.push((t.plan, Some(std::sync::Arc::new(t.topology))));
    }
    let topology = &loaded.topology;
    let explain = a.explain;
    let (spool, templates) = (&out, &templates);
    let (rendered, activities, explained) = std::thread::scope(|scope| {
        let (send, receive) = std::sync::mpsc::sync_channel::<crate::plugins::ConcretePlan>(0);
        // The renderer owns the sender: if it stops, waiting for it ends.
        let (go, wait) = std::sync::mpsc::channel::<()>();
        let renderer = scope.spawn(move || -> Result<(Vec<_>, Vec<usize>, Vec<String>)> {
            let (mut rendered, mut activities, mut explained) =
                (Vec::new(), Vec::new(), Vec::new());
            let go = std::sync::Mutex::new(go);
            let go_when = |packed: usize| {
                if packed + 1 == languages.len()
                    && let Ok(go) = go.lock()
                {
                    let _ = go.send(());
                }
            };
            for plan in receive {
                let jobs: Vec<_> = languages.iter().map(|&lang| (lang, &plan)).collect();
                if languages.len() == 1 {
                    go_when(0);
                }
                for r in crate::render::pack_all(&jobs, topology, templates, Some(spool), &go_when)?
                {
                    activities.push(plan.plan.activities.len());
                    rendered.push(r);
                }
                if explain {
                    explained.push(super::graph::explain(&plan, plan.topology(topology)));
                }
            }
            Ok((rendered, activities, explained))
        });
        // Whether a plan was handed to the renderer whose go has not come.
        let mut pending = false;
        for (abstract_plan, own) in abstract_plans {
            if pending && wait.recv().is_err() {
                break; // the renderer failed; its error is reported below
            }
            let on = own.as_deref().unwrap_or(topology);
            let (mut plan, d) =
                crate::plugins::complete(on, abstract_plan, &registry, &options.complete);
            if let (Some(plan), Some(own)) = (&mut plan, &own) {
                plan.own_topology = Some(own.clone());
            }
            diagnostics.extend(d);
            pending = false;
            if let Some(plan) = plan.filter(|_| !diagnostics.has_errors()) {
                if send.send(plan).is_err() {
                    break;
                }
                pending = true;
            }
        }
        drop(send);
        renderer.join().unwrap_or_else(|_| {
            Err(crate::error::Error::Internal(
                "the renderer panicked".into(),
            ))
        })
    })?;
    if diagnostics.has_errors() {
        return Err(crate::error::Error::Input(diagnostics));
    }
    session.print(&diagnostics);
    // Plans in the order the library gives them: by language, then kind.
    let mut order: Vec<usize> = (0..rendered.len()).collect();
    order.sort_by_key(|&i| (rendered[i].language, i));
    let mut slots: Vec<Option<_>> = rendered.into_iter().map(Some).collect();
    let rendered: Vec<_> = order.iter().filter_map(|&i| slots[i].take()).collect();
    let activities: Vec<usize> = order.iter().map(|&i| activities[i]).collect();
    let t = &loaded.topology;
    let summary = format!(
        "compiled `{}`: {}, {}",
        t.service_template.id,
        count(t.nodes.len(), "node template"),
        count(t.relationships.len(), "relationship template")
    );
    loaded.release_topology();
    let warnings = crate::writeback::write(&loaded, &rendered, &out, a.in_place)?;
    session.print(&warnings);
    if explain && !report.is_empty() {
        let mut text = String::from("transformation: the templates\n");
        for line in &report {
            text.push_str("  ");
            text.push_str(line);
            text.push('\n');
        }
        super::write_stdout(text)?;
    }
    for text in explained {
        super::write_stdout(text)?;
    }
    if !a.quiet {
        eprintln!("{summary}");
        for (r, n) in rendered.iter().zip(activities) {
            eprintln!(
                "  {:<12} {} ({}, {})",
                r.kind.slug(),
                r.name,
                count(n, "activity"),
                r.language.label()
            );
        }
        eprintln!("wrote {}", out.display());
    }
    Ok(())
}

/// Load the target of a transformation (its own service template: the
/// only or first one; warnings are printed).
fn load_target(
    session: &mut Session,
    target: &std::path::Path,
    options: &crate::Options,
) -> Result<crate::Loaded> {
    let mut options = options.clone();
    options.service_template = None;
    let b = crate::load(target, &options, &mut session.sources)?;
    session.print(&b.warnings);
    Ok(b)
}

/// The completed transformation plan from `topology` to `target`, with
/// its own topology (for `graph`).
pub fn transformation(
    session: &mut Session,
    topology: &Topology,
    target: &std::path::Path,
    registry: &crate::plugins::Registry,
    options: &crate::Options,
) -> Result<crate::plugins::ConcretePlan> {
    let b = load_target(session, target, options)?;
    let t = crate::transformation(topology, &b.topology, options)?;
    session.print(&t.warnings);
    let own = std::sync::Arc::new(t.topology);
    let (plan, d) = crate::plugins::complete(&own, t.plan, registry, &options.complete);
    session.print(&d);
    let Some(mut plan) = plan else {
        return Err(crate::error::Error::Input(d));
    };
    plan.own_topology = Some(own);
    Ok(plan)
}

/// `n` things, in the singular for one: `1 node template`, `2 activities`.
fn count(n: usize, thing: &str) -> String {
    match (n, thing.strip_suffix('y')) {
        (1, _) => format!("1 {thing}"),
        (_, Some(stem)) => format!("{n} {stem}ies"),
        (_, None) => format!("{n} {thing}s"),
    }
}
