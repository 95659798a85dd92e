//! Stage 2a: the TOSCA 1.0 XML dialect (OASIS 2013, as Winery writes it).
//!
//! In: Definitions documents from the CSAR. Out: [`ast::Definitions`] with
//! resolved QNames and byte spans, plus diagnostics. [`rewrite`] edits a
//! Definitions document in place to add plans, keeping every other byte.

pub(crate) mod ast;
pub(crate) mod definitions;
pub(crate) mod dom;
pub(crate) mod imports;
pub(crate) mod names;
pub(crate) mod outline;
pub(crate) mod rewrite;

pub(crate) use definitions::read;
