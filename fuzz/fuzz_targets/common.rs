#![allow(dead_code)] // each target uses part of it
//! What every target does with an input: compile it as `toscanini plan
//! --lang all` does (the library's `compile`, the CSAR written in memory),
//! and render the diagnostics of an input that does not compile. Any panic is a finding, and
//! so is an internal error (a bug toscanini reports instead of a panic).

use std::sync::OnceLock;

use toscanini::compile::{Output, Request};
use toscanini::Csar;
use toscanini::diagnostics::{Diagnostics, SourceMap};
use toscanini::error::Error;
use toscanini::plugins::Registry;
use toscanini::Language;

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

/// Run the whole pipeline on `csar` with `registry`, as `toscanini plan
/// --lang all` does, the CSAR written in memory.
pub fn compile_with(csar: Csar, registry: &Registry) {
    let mut sources = SourceMap::new();
    let mut request = Request::new("fuzz.csar");
    request.languages = vec![Language::Bpel, Language::Bpmn];
    request.output = Output::Memory;
    let mut report = |_: &Diagnostics, _: &SourceMap| {};
    let r = toscanini::compile::compile_opened(csar, registry, &request, &mut sources, &mut report);
    check(r, &sources);
}
