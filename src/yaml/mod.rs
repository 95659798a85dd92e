//! Stage 2b: TOSCA YAML. For now only the spanned YAML tree that the
//! declarative plugin files share with the service-template reader.

pub mod node;
