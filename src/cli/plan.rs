//! `toscanini plan`: compile, render and write the plans into the CSAR.

use super::args::PlanArgs;
use super::session::{Session, plan_kinds};
use crate::error::Result;
use crate::render::templates::Templates;

pub fn run(session: &mut Session, a: PlanArgs) -> Result<()> {
    let (loaded, registry, mut options) = session.load(&a.compile)?;
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
    let mut diagnostics = crate::diagnostics::Diagnostics::new();
    let abstract_plans = crate::abstract_plans(&loaded.topology, &kinds, &options)?;
    let topology = &loaded.topology;
    let explain = a.explain;
    let (rendered, activities, explained) = std::thread::scope(|scope| {
        let (send, receive) = std::sync::mpsc::sync_channel::<crate::plugins::ConcretePlan>(0);
        let renderer = scope.spawn(|| -> Result<(Vec<_>, Vec<usize>, Vec<String>)> {
            let (mut rendered, mut activities, mut explained) =
                (Vec::new(), Vec::new(), Vec::new());
            for plan in receive {
                let jobs: Vec<_> = languages.iter().map(|&lang| (lang, &plan)).collect();
                for r in crate::render::pack_all(&jobs, topology, &templates, Some(&out))? {
                    activities.push(plan.plan.activities.len());
                    rendered.push(r);
                }
                if explain {
                    explained.push(super::graph::explain(&plan, topology));
                }
            }
            Ok((rendered, activities, explained))
        });
        for abstract_plan in abstract_plans {
            let (plan, d) =
                crate::plugins::complete(topology, abstract_plan, &registry, &options.complete);
            diagnostics.extend(d);
            if let Some(plan) = plan.filter(|_| !diagnostics.has_errors())
                && send.send(plan).is_err()
            {
                break; // the renderer failed; its error is reported below
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
    let warnings = crate::writeback::write(&loaded, &rendered, &out, a.in_place)?;
    session.print(&warnings);
    for text in explained {
        super::write_stdout(text)?;
    }
    if !a.quiet {
        let t = &loaded.topology;
        eprintln!(
            "compiled `{}`: {} node templates, {} relationship templates",
            t.service_template.id,
            t.nodes.len(),
            t.relationships.len()
        );
        for (r, n) in rendered.iter().zip(activities) {
            eprintln!(
                "  {:<12} {} ({n} activities, {})",
                r.kind.slug(),
                r.name,
                r.language.label()
            );
        }
        eprintln!("wrote {}", out.display());
    }
    Ok(())
}
