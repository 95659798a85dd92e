//! `toscanini graph`: the plan graph or the topology as DOT, SVG (through
//! Graphviz `dot`) or JSON; and the `--explain` decision log.

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
            Format::Dot | Format::Svg => crate::dot::topology_dot(t),
            Format::Json => format!("{:#}\n", crate::dot::topology_json(t)),
        }
    } else if a.plan == "transformation" {
        // (--transform-to with another plan is ignored: CI passes the
        // options of `plan` on to `graph` for every plan of the output.)
        let Some(target) = &a.transform_to else {
            return Err(crate::error::Error::Usage(
                "--plan transformation needs --transform-to TARGET".into(),
            ));
        };
        options.complete.allow_unhandled = true;
        let plan = super::plan::transformation(session, t, target, &registry, &options)?;
        let t = plan.topology(t);
        match a.format {
            Format::Dot | Format::Svg => crate::dot::plan_dot(&plan, t),
            Format::Json => format!("{:#}\n", crate::dot::plan_json(&plan, t)),
        }
    } else {
        let kind = plan_kind(&a.plan)?;
        // A preview must work while plugins are still missing.
        options.complete.allow_unhandled = true;
        let (plans, warnings) = crate::derive(t, &[kind], &registry, &options)?;
        session.print(&warnings);
        let plan = &plans[0];
        let t = plan.topology(t);
        match a.format {
            Format::Dot | Format::Svg => crate::dot::plan_dot(plan, t),
            Format::Json => format!("{:#}\n", crate::dot::plan_json(plan, t)),
        }
    };
    let text = if a.format == Format::Svg {
        svg(&text)?
    } else {
        text.into_bytes()
    };
    super::write_stdout(&text)
}

/// Draw DOT as SVG with Graphviz. Graphviz missing is an environment
/// problem, not a usage error: exit code 3, with what to do about it.
fn svg(dot: &str) -> Result<Vec<u8>> {
    use std::io::Write;
    use std::process::{Command, Stdio};
    let mut child = Command::new("dot")
        .arg("-Tsvg")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| {
            crate::error::Error::io(
                "--format svg needs Graphviz (install the `graphviz` package, or print --format dot and draw it elsewhere); cannot run",
                "dot",
                e,
            )
        })?;
    // Write on another thread: dot may fill its output pipe before reading all input.
    let mut stdin = child.stdin.take().expect("piped stdin");
    let input = dot.to_string();
    let writer = std::thread::spawn(move || stdin.write_all(input.as_bytes()));
    let out = child
        .wait_with_output()
        .map_err(|e| crate::error::Error::io("cannot run", "dot", e))?;
    let _ = writer.join();
    if !out.status.success() {
        return Err(crate::error::Error::Internal(format!(
            "Graphviz `dot` failed ({}): {}",
            out.status,
            String::from_utf8_lossy(&out.stderr).trim()
        )));
    }
    Ok(out.stdout)
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
