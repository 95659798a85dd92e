//! `toscanini plan`: compile, render and write the plans into the CSAR.

use super::args::PlanArgs;
use super::session::{Session, plan_kinds};
use crate::error::Result;
use crate::render::templates::Templates;

pub fn run(session: &mut Session, a: PlanArgs) -> Result<()> {
    let (loaded, registry, mut options) = session.load(&a.compile)?;
    options.complete.brief = !a.explain;
    let kinds = plan_kinds(&a.plans, &loaded.topology)?;
    let (plans, warnings) = crate::derive(&loaded.topology, &kinds, &registry, &options)?;
    session.print(&warnings);
    let templates = Templates::embedded()?;
    let jobs: Vec<_> = a
        .lang
        .languages()
        .into_iter()
        .flat_map(|lang| plans.iter().map(move |p| (lang, p)))
        .collect();
    let out = match (&a.output, a.in_place) {
        (Some(o), _) => o.clone(),
        (None, true) => a.compile.input.clone(),
        (None, false) => crate::writeback::default_output(&a.compile.input),
    };
    // Plan archives are spooled beside the output: memory stays flat
    // however big the plans are.
    let rendered = crate::render::pack_all(&jobs, &loaded.topology, &templates, Some(&out))?;
    let warnings = crate::writeback::write(&loaded, &rendered, &out, a.in_place)?;
    session.print(&warnings);
    if a.explain {
        for p in &plans {
            super::write_stdout(super::graph::explain(p, &loaded.topology))?;
        }
    }
    if !a.quiet {
        let t = &loaded.topology;
        eprintln!(
            "compiled `{}`: {} node templates, {} relationship templates",
            t.service_template.id,
            t.nodes.len(),
            t.relationships.len()
        );
        for r in &rendered {
            let p = plans.iter().find(|p| p.plan.kind == r.kind);
            eprintln!(
                "  {:<12} {} ({} activities, {})",
                r.kind.slug(),
                r.name,
                p.map_or(0, |p| p.plan.activities.len()),
                r.language.label()
            );
        }
        eprintln!("wrote {}", out.display());
    }
    Ok(())
}
