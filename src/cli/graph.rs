//! `toscanini graph`: the plan graph or the topology as DOT or JSON; and the
//! `--explain` decision log.

use std::fmt::Write as _;

use super::args::{Format, GraphArgs};
use super::session::{Session, plan_kind};
use crate::error::Result;
use crate::model::Topology;
use crate::plugins::ConcretePlan;

pub fn run(session: &mut Session, a: GraphArgs) -> Result<()> {
    let (loaded, registry, mut options) = session.load(&a.compile)?;
    let t = &loaded.topology;
    let text = if a.topology {
        match a.format {
            Format::Dot => crate::dot::topology_dot(t),
            Format::Json => format!("{:#}\n", crate::dot::topology_json(t)),
        }
    } else {
        let kind = plan_kind(&a.plan)?;
        // A preview must work while plugins are still missing.
        options.complete.allow_unhandled = true;
        let (plans, warnings) = crate::derive(t, &[kind], &registry, &options)?;
        session.print(&warnings);
        let plan = &plans[0];
        match a.format {
            Format::Dot => crate::dot::plan_dot(plan, t),
            Format::Json => format!("{:#}\n", crate::dot::plan_json(plan, t)),
        }
    };
    super::write_stdout(&text)
}

/// The decision log of a plan: for each activity, the plugin that handled
/// it, why the ones asked before declined, and what it noted.
pub fn explain(plan: &ConcretePlan, topology: &Topology) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "{} plan", plan.plan.kind.slug());
    for (a, d) in plan.plan.activities.iter().zip(&plan.decisions) {
        let _ = writeln!(
            out,
            "  {} ({} `{}`): {}",
            a.id,
            a.kind.name(),
            topology.template_id(a.template),
            d.plugin
                .as_deref()
                .map(|p| format!("handled by {p}"))
                .unwrap_or_else(|| "NOT HANDLED".into())
        );
        for (p, why) in &d.declined {
            let _ = writeln!(out, "      declined  {p}: {why}");
        }
        for n in &d.notes {
            let _ = writeln!(out, "      note      {n}");
        }
    }
    out
}
