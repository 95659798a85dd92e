//! The integration-test binary: one module per topic. The cases of
//! tests/cases and the spec examples run in the other, `per_case.rs`, as a
//! test each. How to add a case: tests/README.md.

mod artifacts;
mod bpel_call;
mod bpel_init;
mod bpmn;
mod cli;
mod compile;
mod completion;
mod corpus;
mod corpus_yaml;
mod dom;
mod features;
mod layers;
mod names;
mod node_count;
mod node_filters;
mod operation_outputs;
mod ordering;
mod plugins;
mod roundtrip;
mod rules;
mod samples;
mod scale_out;
mod select_existing;
mod spec_key_examples;
mod substitution;
mod support;
#[path = "../../benches/synth.rs"]
mod synth;
mod transformation;
