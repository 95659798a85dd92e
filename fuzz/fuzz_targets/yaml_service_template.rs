//! The TOSCA YAML front end: the input is the service template of a CSAR
//! without TOSCA-Metadata (a single YAML file at the root), compiled to
//! plans if it loads.
#![no_main]

use libfuzzer_sys::fuzz_target;
use toscanini::Csar;

#[path = "common.rs"]
mod common;

fuzz_target!(|data: &[u8]| {
    let csar = Csar::from_entries("fuzz", [("service.yaml".to_string(), data.to_vec())]);
    common::compile(csar);
});
