//! The integration-test binary: one binary, one module per topic.
