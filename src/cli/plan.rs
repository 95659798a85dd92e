//! `toscanini plan`: compile, render and write the plans into the CSAR.

use super::args::PlanArgs;
use super::session::{Session, plan_kinds};
use crate::error::Result;
use crate::render::templates::Templates;

pub fn run(session: &mut Session, a: PlanArgs) -> Result<()> {
    let (loaded, registry, options) = session.load(&a.compile)?;
    let kinds = plan_kinds(&a.plans, &loaded.topology)?;
    let (plans, warnings) = crate::derive(&loaded.topology, &kinds, &registry, &options)?;
    session.print(&warnings);
    let templates = Templates::embedded()?;
    let mut rendered = Vec::new();
    for lang in a.lang.languages() {
        for p in &plans {
            rendered.push(crate::render::render(
                lang,
                p,
                &loaded.topology,
                &templates,
            )?);
        }
    }
    let out = match (&a.output, a.in_place) {
        (Some(o), _) => o.clone(),
        (None, true) => a.compile.input.clone(),
        (None, false) => crate::writeback::default_output(&a.compile.input),
    };
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
