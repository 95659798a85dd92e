//! The integration-test binary: one binary, one module per topic.
//! How to add a case: tests/README.md.

mod bpmn;
mod cases;
mod cli;
mod corpus;
mod ordering;
mod plugins;
mod roundtrip;
mod samples;
mod scale_out;
mod support;
