//! DOT output.
