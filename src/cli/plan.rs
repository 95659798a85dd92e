//! `toscanini plan`: compile, render and write the plans into the CSAR.

use std::io::Write;

use super::args::PlanArgs;
use super::session::{Session, plan_kind};
use crate::error::Result;
use crate::render::templates::Templates;

pub fn run(session: &mut Session, a: PlanArgs) -> Result<()> {
    let (loaded, registry, options) = session.load(&a.compile)?;
    let mut kinds = Vec::new();
    for p in &a.plans {
        if p == "all" {
            kinds.extend(crate::all_plans(&loaded.topology));
        } else {
            kinds.push(plan_kind(p)?);
        }
    }
    let mut seen = std::collections::HashSet::new();
    kinds.retain(|k| seen.insert(k.clone()));
    let (plans, warnings) = crate::derive(&loaded.topology, &kinds, &registry, &options)?;
    session.print(&warnings);
    let templates = Templates::embedded()?;
    let mut rendered = Vec::new();
    for p in &plans {
        rendered.push(crate::render::bpel::render(
            p,
            &loaded.topology,
            &templates,
        )?);
    }
    let out = match (&a.output, a.in_place) {
        (Some(o), _) => o.clone(),
        (None, true) => a.compile.input.clone(),
        (None, false) => crate::writeback::default_output(&a.compile.input),
    };
    let warnings = crate::writeback::write(&loaded, &rendered, &out, a.in_place)?;
    session.print(&warnings);
    let mut stdout = std::io::stdout().lock();
    if a.explain {
        for p in &plans {
            let _ = stdout.write_all(super::graph::explain(p, &loaded.topology).as_bytes());
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
        for (p, r) in plans.iter().zip(&rendered) {
            eprintln!(
                "  {:<12} {} ({} activities, BPEL)",
                p.plan.kind.slug(),
                r.name,
                p.plan.activities.len()
            );
        }
        eprintln!("wrote {}", out.display());
    }
    Ok(())
}
