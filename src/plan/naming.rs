//! The names plans take in the CSAR and in the engines: OpenTOSCA's
//! `<service template>_<kind suffix>` convention, shared by both renderers,
//! the write-back and the previews.
//!
//! In: the topology's service template and the plan kind. Out: the plan's
//! name (an NCName) and its namespace.

use super::PlanKind;
use crate::csar::path::percent_encode;
use crate::model::Topology;
use crate::names::ncname;

/// The name of a plan: `<service template>_<kind suffix>` (OpenTOSCA's convention).
pub fn plan_name(topology: &Topology, kind: &PlanKind) -> String {
    format!(
        "{}_{}",
        ncname(&topology.service_template.id),
        kind.suffix()
    )
}

/// The namespace of a plan: the service template's namespace with the
/// plan suffix (OpenTOSCA's convention).
pub fn plan_namespace(topology: &Topology, kind: &PlanKind) -> String {
    let ns = &topology.service_template.namespace;
    if ns.is_empty() {
        format!(
            "urn:toscanini:plans:{}:{}",
            percent_encode(&topology.service_template.id),
            kind.suffix()
        )
    } else {
        format!("{ns}_{}", kind.suffix())
    }
}
