//! Stage 2b: TOSCA YAML (Simple Profile 1.0–1.3, TOSCA 2.0).
//!
//! In: a CSAR and its entry definitions. Out: the parsed files of a
//! service template with spans ([`imports::load`] → [`ast::File`]s), ready
//! for `model::lower_yaml`. One concept per file: [`node`] is the YAML 1.2
//! tree (all saphyr use), [`version`] the dialect, [`reader`] the TOSCA
//! grammar, [`functions`] intrinsic function calls, [`imports`] loading
//! (`import_paths` its path arithmetic), [`given`] input values given
//! when the plans are made,
//! [`normative`] the built-in types, [`rewrite`] the text edit that writes
//! plans back, [`outline`] where that edit finds the topology and its
//! workflows.

pub(crate) mod ast;
pub(crate) mod functions;
pub(crate) mod given;
mod import_paths;
pub(crate) mod imports;
pub(crate) mod meta;
pub(crate) mod node;
pub(crate) mod normative;
pub(crate) mod outline;
pub(crate) mod profiles;
pub(crate) mod reader;
pub(crate) mod rewrite;
pub(crate) mod version;
