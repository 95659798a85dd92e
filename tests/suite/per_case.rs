//! The second integration-test binary: every directory of tests/cases and
//! every TOSCA 1.3 and 2.0 spec example is a test of its own (libtest-mimic), so
//! that one failure shows beside all the others instead of hiding them.
//! `cargo test --test per_case cases::hosting-cycle` runs one.

mod cases;
// Shared with the `suite` binary, which uses the parts this one leaves.
#[allow(dead_code)]
mod rules;
mod spec_examples;
mod spec_examples_2_0;
#[allow(dead_code)]
mod support;

fn main() {
    let args = libtest_mimic::Arguments::from_args();
    let mut trials = cases::trials();
    trials.extend(spec_examples::trials());
    trials.extend(spec_examples_2_0::trials());
    libtest_mimic::run(&args, trials).exit();
}
