//! The decision log of a completed plan as text (`plan --explain`): for
//! each activity the plugin that handled it, and why the others declined.
//!
//! In: the completed plan and its topology. Out: the text, one block per plan.

use std::fmt::Write as _;

use crate::model::Topology;
use crate::plugins::ConcretePlan;

/// The decision log of `plan`.
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

/// The transformation report as text: what happens to each template.
pub(super) fn transformation_report(report: &[String]) -> String {
    let mut text = String::from("transformation: the templates\n");
    for line in report {
        text.push_str("  ");
        text.push_str(line);
        text.push('\n');
    }
    text
}
