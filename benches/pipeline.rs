//! Criterion benchmarks of each stage of `plan` and of the whole command,
//! on synthetic topologies (`benches/synth.rs`) of 1k and 10k nodes;
//! 100k when `TOSCANINI_BENCH_100K` is set (each sample then takes a
//! minute or more).
//!
//! ```sh
//! cargo bench --bench pipeline                 # everything at 1k and 10k
//! cargo bench --bench pipeline -- 'render/'    # one group
//! TOSCANINI_BENCH_100K=1 cargo bench --bench pipeline -- 'plan/'
//! ```
//!
//! Stages: `parse` reads the archive and lowers it to the topology (XML
//! and YAML), `derive` orders the plans and runs the plugins, `render`
//! renders each plan in one language (its files in memory), `plan` is the
//! library's `compile`, which `toscanini plan` runs (build and termination
//! plans, BPEL and BPMN, CSAR written to disk).

use std::hint::black_box;
use std::path::Path;
use std::time::Duration;

// Its unit tests run in tests/suite; without a test harness here their
// imports are unused.
#[allow(unused_imports)]
#[path = "synth.rs"]
mod synth;

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use toscanini::Csar;
use toscanini::Language;
use toscanini::Options;
use toscanini::compile::{Output, Request, compile};
use toscanini::diagnostics::{Diagnostics, SourceMap};
use toscanini::plan::PlanKind;
use toscanini::plugins::Registry;
use toscanini::plugins::complete::ConcretePlan;

/// The allocator of the `toscanini` binary, so that `plan/` measures what
/// the command does.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// Topology sizes to measure.
fn sizes() -> Vec<usize> {
    let mut sizes = vec![1_000, 10_000];
    if std::env::var_os("TOSCANINI_BENCH_100K").is_some() {
        sizes.push(100_000);
    }
    sizes
}

/// The zip bytes of a synthetic CSAR of `nodes` nodes in `dialect`.
fn archive(nodes: usize, dialect: &str) -> Vec<u8> {
    let entries = match dialect {
        "xml" => synth::xml_csar(nodes),
        _ => synth::yaml_csar(nodes),
    };
    toscanini::compile::zip_files(entries.iter().map(|(n, d)| (n.as_str(), d.as_slice())))
        .expect("synthetic archive")
}

fn load(bytes: &[u8], options: &Options) -> toscanini::Loaded {
    let csar = Csar::from_zip_bytes(Path::new("synth.csar"), bytes.to_vec(), &options.limits)
        .expect("synthetic archive reads");
    let mut sources = SourceMap::new();
    toscanini::load_csar(csar, options, &mut sources).expect("synthetic topology loads")
}

fn registry() -> Registry {
    let mut sources = SourceMap::new();
    Registry::standard(&[], &mut sources)
        .expect("shipped plugins load")
        .0
}

fn derive(loaded: &toscanini::Loaded, registry: &Registry, options: &Options) -> Vec<ConcretePlan> {
    let kinds = [PlanKind::Build, PlanKind::Termination];
    toscanini::derive(&loaded.topology, &kinds, registry, options)
        .expect("synthetic plans derive")
        .0
}

/// Few samples: one iteration at 10k nodes takes seconds.
fn group<'a>(
    c: &'a mut Criterion,
    name: &str,
) -> criterion::BenchmarkGroup<'a, criterion::measurement::WallTime> {
    let mut g = c.benchmark_group(name);
    g.sample_size(10)
        .warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_secs(5));
    g
}

fn parse(c: &mut Criterion) {
    let options = Options::default();
    let mut g = group(c, "parse");
    for nodes in sizes() {
        for dialect in ["xml", "yaml"] {
            let bytes = archive(nodes, dialect);
            g.throughput(Throughput::Elements(nodes as u64));
            g.bench_with_input(BenchmarkId::new(dialect, nodes), &bytes, |b, bytes| {
                b.iter(|| black_box(load(bytes, &options)))
            });
        }
    }
    g.finish();
}

fn derive_plans(c: &mut Criterion) {
    let options = Options::default();
    let registry = registry();
    let mut g = group(c, "derive");
    for nodes in sizes() {
        let loaded = load(&archive(nodes, "xml"), &options);
        g.throughput(Throughput::Elements(nodes as u64));
        g.bench_with_input(BenchmarkId::new("xml", nodes), &loaded, |b, loaded| {
            b.iter(|| black_box(derive(loaded, &registry, &options)))
        });
    }
    g.finish();
}

fn render(c: &mut Criterion) {
    let options = Options::default();
    let registry = registry();
    let mut g = group(c, "render");
    for nodes in sizes() {
        let loaded = load(&archive(nodes, "xml"), &options);
        let plans = derive(&loaded, &registry, &options);
        g.throughput(Throughput::Elements(nodes as u64));
        for language in [Language::Bpel, Language::Bpmn] {
            let id = BenchmarkId::new(language.label().to_ascii_lowercase(), nodes);
            g.bench_with_input(id, &plans, |b, plans| {
                b.iter(|| {
                    for p in plans {
                        let rendered = toscanini::compile::render(p, &loaded.topology, language)
                            .expect("synthetic plan renders");
                        black_box(rendered);
                    }
                })
            });
        }
    }
    g.finish();
}

fn plan(c: &mut Criterion) {
    let dir = std::env::temp_dir().join(format!("toscanini-bench-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temporary directory");
    let mut g = group(c, "plan");
    for nodes in sizes() {
        for dialect in ["xml", "yaml"] {
            let input = dir.join(format!("synth-{dialect}-{nodes}.csar"));
            std::fs::write(&input, archive(nodes, dialect)).expect("write input");
            let mut request = Request::new(&input);
            request.output = Output::File(dir.join("out.csar"));
            request.languages = vec![Language::Bpel, Language::Bpmn];
            g.throughput(Throughput::Elements(nodes as u64));
            g.bench_function(BenchmarkId::new(dialect, nodes), |b| {
                b.iter(|| {
                    let mut sources = SourceMap::new();
                    let mut report = |_: &Diagnostics, _: &SourceMap| {};
                    let compiled = compile(&request, &mut sources, &mut report);
                    black_box(compiled.expect("synthetic topology compiles"));
                })
            });
        }
    }
    g.finish();
    let _ = std::fs::remove_dir_all(&dir);
}

criterion_group!(benches, parse, derive_plans, render, plan);
criterion_main!(benches);
