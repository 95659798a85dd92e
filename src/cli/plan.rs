//! `toscanini plan`: the arguments as a [`Request`], the library's
//! [`compile`], and what it did printed.

use super::args::PlanArgs;
use super::session::Session;
use toscanini::compile::{Output, Request, compile};
use toscanini::error::Result;

pub(super) fn run(session: &mut Session, a: PlanArgs) -> Result<()> {
    let request = Request {
        input: a.compile.input.clone(),
        options: session.writing_options(&a.compile, a.pretty),
        plugin_dirs: a.compile.plugin_dirs.clone(),
        plans: a.plans.clone(),
        languages: a.lang.languages(),
        output: match (&a.output, a.in_place) {
            (Some(o), _) => Output::File(o.clone()),
            (None, true) => Output::InPlace,
            (None, false) => Output::Beside,
        },
        transform_to: a.transform_to.clone(),
        explain: a.explain,
    };
    let (sources, mut report) = session.reporting();
    let compiled = compile(&request, sources, &mut report)?;
    if !compiled.explanation.is_empty() {
        super::write_stdout(&compiled.explanation)?;
    }
    if !a.quiet {
        eprintln!(
            "compiled `{}`: {}, {}",
            compiled.service_template,
            count(compiled.nodes, "node template"),
            count(compiled.relationships, "relationship template")
        );
        for p in &compiled.plans {
            eprintln!(
                "  {:<12} {} ({}, {})",
                p.kind.slug(),
                p.name,
                count(p.activities, "activity"),
                p.language.label()
            );
        }
        if let Some(out) = &compiled.written {
            eprintln!("wrote {}", out.display());
        }
    }
    Ok(())
}

/// `n` things, in the singular for one: `1 node template`, `2 activities`.
fn count(n: usize, thing: &str) -> String {
    match (n, thing.strip_suffix('y')) {
        (1, _) => format!("1 {thing}"),
        (_, Some(stem)) => format!("{n} {stem}ies"),
        (_, None) => format!("{n} {thing}s"),
    }
}
