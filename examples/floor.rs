//! The floor under the time of `plan` on a synthetic topology of N nodes
//! (the README's "Performance"): the plans' text (build and termination,
//! BPEL and BPMN) is generated, held whole (which costs somewhat more than
//! the command's streaming), then deflated as `plan` deflates it, a
//! megabyte at a time at its level. Deflating alone, spread perfectly
//! over every core, is a time no arrangement of the work gets under.
//!
//! ```sh
//! cargo run --release --example floor -- 10000
//! ```

// Only the XML generator is used here.
#[allow(dead_code)]
#[path = "../benches/synth.rs"]
mod synth;

use std::time::Instant;

use toscanini::diagnostics::SourceMap;
use toscanini::plan::PlanKind;
use toscanini::plugins::Registry;
use toscanini::{Csar, Language};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let nodes: usize = std::env::args().nth(1).unwrap_or("10000".into()).parse()?;
    let entries = synth::xml_csar(nodes);
    let bytes =
        toscanini::compile::zip_files(entries.iter().map(|(n, d)| (n.as_str(), d.as_slice())))?;
    let options = toscanini::Options::default();

    let t = Instant::now();
    let csar = Csar::from_zip_bytes("synth.csar".as_ref(), bytes, &options.limits)?;
    let mut sources = SourceMap::new();
    let loaded = toscanini::load_csar(csar, &options, &mut sources)?;
    let (registry, _) = Registry::standard(&[], &mut sources)?;
    let kinds = [PlanKind::Build, PlanKind::Termination];
    let (plans, _) = toscanini::derive(&loaded.topology, &kinds, &registry, &options)?;
    let front = t.elapsed().as_secs_f64();

    let (mut text, mut packed, mut generate, mut deflate) = (0usize, 0usize, 0.0, 0.0);
    println!("{nodes} nodes (XML), build and termination plans, BPEL and BPMN:");
    for language in [Language::Bpel, Language::Bpmn] {
        for p in &plans {
            // The files kept as text: no compression in this time.
            let t = Instant::now();
            let rendered = toscanini::compile::render(p, &loaded.topology, language)?;
            let g = t.elapsed().as_secs_f64();
            let size: usize = rendered.files.iter().map(|f| f.data.len()).sum();
            // Deflated as `plan` deflates it (the plan's archive).
            let t = Instant::now();
            let archive = rendered.archive()?;
            let d = t.elapsed().as_secs_f64();
            println!(
                "  {:<28} {:>6} MB of text: generated in {g:>6.3} s, deflated in {d:>6.3} s ({:.0} MB/s) to {} MB",
                rendered.name,
                size >> 20,
                size as f64 / d / 1048576.0,
                archive.len() >> 20
            );
            (text, packed, generate, deflate) = (
                text + size,
                packed + archive.len(),
                generate + g,
                deflate + d,
            );
        }
    }
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    let work = front + generate + deflate;
    println!(
        "read, lower, derive {front:.3} s; generate {generate:.3} s; deflate {deflate:.3} s \
         ({} MB of text to {} MB)",
        text >> 20,
        packed >> 20
    );
    println!(
        "work {work:.3} s: on {cores} cores no less than {:.3} s; deflating alone no less than {:.3} s",
        work / cores as f64,
        deflate / cores as f64
    );
    Ok(())
}
