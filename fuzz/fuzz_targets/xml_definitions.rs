//! The TOSCA 1.0 XML front end: the input is the entry Definitions
//! document of a CSAR, compiled to plans if it loads.
#![no_main]

use libfuzzer_sys::fuzz_target;
use toscanini::Csar;

#[path = "common.rs"]
mod common;

const META: &str = "TOSCA-Meta-Version: 1.0\nCSAR-Version: 1.0\nCreated-By: fuzz\nEntry-Definitions: Definitions/fuzz.tosca\n";

fuzz_target!(|data: &[u8]| {
    let csar = Csar::from_entries(
        "fuzz",
        [
            ("TOSCA-Metadata/TOSCA.meta".to_string(), META.as_bytes().to_vec()),
            ("Definitions/fuzz.tosca".to_string(), data.to_vec()),
        ],
    );
    common::compile(csar);
});
