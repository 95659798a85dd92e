#![allow(dead_code)] // each target uses part of it
//! What every target does with an input that loads: derive all plans,
//! render them, write them back into an archive in memory, and render
//! the diagnostics of an input that does not. Any panic is a finding, and
//! so is an internal error (a bug toscanini reports instead of a panic).

use std::sync::OnceLock;

use toscanini::Options;
use toscanini::csar::Csar;
use toscanini::diagnostics::SourceMap;
use toscanini::error::Error;
use toscanini::plugins::Registry;
use toscanini::render::templates::Templates;

fn templates() -> &'static Templates {
    static T: OnceLock<Templates> = OnceLock::new();
    T.get_or_init(|| Templates::embedded().expect("embedded templates"))
}

fn standard() -> &'static Registry {
    static R: OnceLock<Registry> = OnceLock::new();
    R.get_or_init(|| {
        let mut sources = SourceMap::new();
        Registry::standard(&[], &mut sources).expect("shipped plugins").0
    })
}

/// An error is fine unless it is an internal one.
pub fn check<T>(r: Result<T, Error>, sources: &SourceMap) -> Option<T> {
    match r {
        Ok(v) => Some(v),
        Err(Error::Internal(m)) => panic!("internal error: {m}"),
        Err(Error::Input(d)) => {
            let _ = toscanini::diagnostics::render::render_all(&d, sources);
            None
        }
        Err(_) => None,
    }
}

/// Run the whole pipeline on `csar` with the shipped plugins.
pub fn compile(csar: Csar) {
    compile_with(csar, standard());
}

/// Run the whole pipeline on `csar` with `registry`.
pub fn compile_with(csar: Csar, registry: &Registry) {
    let mut sources = SourceMap::new();
    let options = Options::default();
    let Some(loaded) = check(
        toscanini::load_csar(csar, &options, &mut sources),
        &sources,
    ) else {
        return;
    };
    let kinds = toscanini::all_plans(&loaded.topology);
    let Some((plans, _)) = check(
        toscanini::derive(&loaded.topology, &kinds, registry, &options),
        &sources,
    ) else {
        return;
    };
    let mut rendered = Vec::new();
    for p in &plans {
        let r = toscanini::render::bpel::render(p, &loaded.topology, templates());
        rendered.extend(check(r, &sources));
        // BPMN too; a plan it refuses (a usage error) is not a finding.
        let r = toscanini::render::bpmn::render(p, &loaded.topology, templates());
        rendered.extend(check(r, &sources));
    }
    if let Some((changes, _)) = check(toscanini::writeback::changes(&loaded, &rendered), &sources)
    {
        check(
            toscanini::csar::write::archive_bytes(&loaded.csar, &changes),
            &sources,
        );
    }
}
