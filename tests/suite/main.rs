//! The integration-test binary: one binary, one module per topic.
//! How to add a case: tests/README.md.

mod bpmn;
mod cases;
mod cli;
mod corpus;
mod corpus_yaml;
mod features;
mod names;
mod ordering;
mod plugins;
mod roundtrip;
mod rules;
mod samples;
mod scale_out;
mod spec_examples;
mod support;
mod transformation;
