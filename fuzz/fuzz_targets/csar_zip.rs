//! The CSAR reader on arbitrary archives: zip parsing under the limits,
//! TOSCA.meta, imports, and everything after it for archives that load.
#![no_main]

use std::path::Path;

use libfuzzer_sys::fuzz_target;
use toscanini::{Csar, Limits};

#[path = "common.rs"]
mod common;

fuzz_target!(|data: &[u8]| {
    let limits = Limits::default();
    if let Ok(csar) = Csar::from_zip_bytes(Path::new("fuzz.csar"), data.to_vec(), &limits) {
        common::compile(csar);
    }
});
