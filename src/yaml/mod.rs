//! Stage 2b: TOSCA YAML (Simple Profile 1.0–1.3, TOSCA 2.0).
//!
//! In: a CSAR and its entry definitions. Out: the parsed files of a
//! service template with spans ([`imports::load`] → [`ast::File`]s), ready
//! for `model::lower_yaml`. One concept per file: [`node`] is the YAML 1.2
//! tree (all saphyr use), [`version`] the dialect, [`reader`] the TOSCA
//! grammar, [`functions`] intrinsic function calls, [`imports`] loading,
//! [`normative`] the built-in types, [`rewrite`] the text edit that writes
//! plans back.

pub mod ast;
pub mod functions;
pub mod imports;
pub mod node;
pub mod normative;
pub mod reader;
pub mod rewrite;
pub mod version;
