//! Stage 2a: the TOSCA 1.0 XML dialect (OASIS 2013, as Winery writes it).
//!
//! In: Definitions documents from the CSAR. Out: [`ast::Definitions`] with
//! resolved QNames and byte spans, plus diagnostics. [`rewrite`] edits a
//! Definitions document in place to add plans, keeping every other byte.

pub mod ast;
pub mod definitions;
pub mod dom;
pub mod imports;
pub mod names;
pub mod rewrite;

pub use definitions::read;
