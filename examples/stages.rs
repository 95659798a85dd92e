//! Time each stage of `plan` on a synthetic topology of N nodes, and
//! print the share of each (the README's per-stage figures):
//!
//! ```sh
//! cargo run --release --example stages -- 10000 [bpel|bpmn|all] [xml|yaml]
//! ```

#[path = "../benches/synth.rs"]
mod synth;

use std::time::Instant;

use toscanini::diagnostics::SourceMap;
use toscanini::plan::PlanKind;
use toscanini::plugins::Registry;
use toscanini::{Csar, Language};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let nodes: usize = std::env::args().nth(1).unwrap_or("10000".into()).parse()?;
    let lang = std::env::args().nth(2).unwrap_or("all".into());
    let entries = match std::env::args().nth(3).as_deref() {
        Some("yaml") => synth::yaml_csar(nodes),
        _ => synth::xml_csar(nodes),
    };
    let bytes =
        toscanini::compile::zip_files(entries.iter().map(|(n, d)| (n.as_str(), d.as_slice())))?;
    let options = toscanini::Options::default();
    let mut times = Vec::new();
    let mut stage = |name: &'static str, start: Instant| {
        times.push((name, start.elapsed().as_secs_f64(), resident()));
    };

    let t = Instant::now();
    let csar = Csar::from_zip_bytes("synth.csar".as_ref(), bytes, &options.limits)?;
    let mut sources = SourceMap::new();
    let loaded = toscanini::load_csar(csar, &options, &mut sources)?;
    stage("read and lower", t);

    let t = Instant::now();
    let (registry, _) = Registry::standard(&[], &mut sources)?;
    let kinds = [PlanKind::Build, PlanKind::Termination];
    let (plans, _) = toscanini::derive(&loaded.topology, &kinds, &registry, &options)?;
    stage("derive (order, plugins)", t);

    let mut rendered = Vec::new();
    for (language, label) in [
        (Language::Bpel, "render BPEL (files in memory)"),
        (Language::Bpmn, "render BPMN (files in memory)"),
    ] {
        if lang != "all" && lang != language.label().to_ascii_lowercase() {
            continue;
        }
        let t = Instant::now();
        for p in &plans {
            rendered.push(toscanini::compile::render(p, &loaded.topology, language)?);
        }
        stage(label, t);
    }

    let t = Instant::now();
    let (changes, _) = toscanini::compile::changes(&loaded, &rendered)?;
    let out = toscanini::compile::archive_bytes(&loaded.csar, &changes)?;
    stage("write back (pack plans, CSAR)", t);

    let total: f64 = times.iter().map(|(_, s, _)| s).sum();
    let activities: usize = plans.iter().map(|p| p.plan.activities.len()).sum();
    println!(
        "{nodes} nodes, {activities} activities in {} plans, output {} bytes",
        plans.len(),
        out.len()
    );
    for (name, s, (rss, peak)) in &times {
        println!(
            "{name:<26} {s:>8.3} s  {:>5.1} %   resident after: {rss:>5} MB, peak so far {peak:>5} MB",
            100.0 * s / total
        );
    }
    println!("{:<26} {total:>8.3} s", "total");
    Ok(())
}

/// Resident and peak resident memory of this process in MB (Linux; zero
/// elsewhere).
fn resident() -> (u64, u64) {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    let field = |name: &str| {
        status
            .lines()
            .find_map(|l| l.strip_prefix(name))
            .and_then(|v| v.split_whitespace().next()?.parse::<u64>().ok())
            .map_or(0, |kb| kb / 1024)
    };
    (field("VmRSS:"), field("VmHWM:"))
}
