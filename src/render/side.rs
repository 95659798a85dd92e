//! Where a template's instances live. A plan works on the service
//! instance it is given (or, building, creates); a transformation plan's
//! target templates ([`crate::model::Target`]) live in the service
//! instance it creates of the target service template, under the target's
//! CSAR, and are known there by their own ids.
//!
//! In: the topology and a template. Out: the names of the process
//! variables that hold its CSAR id, service template URL and service
//! instance, and its service template's QName — the same names in both
//! languages.

use crate::model::{Target, TemplateRef, Topology};

/// The process variables of a transformation plan's target side.
pub(crate) const TARGET_VARS: [&str; 4] = [
    "targetCsarID",
    "targetServiceTemplateURL",
    "targetServiceInstanceURL",
    "targetServiceInstanceID",
];

/// The instance-data and management-bus context of a template.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Side<'a> {
    /// Variable holding the CSAR id.
    pub(crate) csar: &'static str,
    /// Variable holding the service template's instance-API URL.
    pub(crate) service_template_url: &'static str,
    /// Variable holding the service instance's URL.
    pub(crate) service_instance_url: &'static str,
    /// Variable holding the service instance's id.
    pub(crate) service_instance_id: &'static str,
    /// The service template's namespace.
    pub(crate) namespace: &'a str,
    /// The service template's id.
    pub(crate) service_template: &'a str,
}

/// Whether `template` is on a transformation's target side.
pub(crate) fn on_target(topology: &Topology, template: TemplateRef) -> bool {
    topology
        .target
        .as_deref()
        .is_some_and(|t| t.contains(template))
}

/// The side of `template` in `topology`.
pub(crate) fn side(topology: &Topology, template: TemplateRef) -> Side<'_> {
    match topology.target.as_deref() {
        Some(target) if target.contains(template) => Side {
            csar: TARGET_VARS[0],
            service_template_url: TARGET_VARS[1],
            service_instance_url: TARGET_VARS[2],
            service_instance_id: TARGET_VARS[3],
            namespace: &target.namespace,
            service_template: &target.service_template,
        },
        _ => Side {
            csar: "csarID",
            service_template_url: "serviceTemplateURL",
            service_instance_url: "serviceInstanceURL",
            service_instance_id: "serviceInstanceID",
            namespace: &topology.service_template.namespace,
            service_template: &topology.service_template.id,
        },
    }
}

/// The target service template's URL below the container's `/csars`:
/// `/<csar>/servicetemplates/<QName>`, the QName percent-encoded twice as
/// the container's instance API has it in its paths (an encoded `/` would
/// be refused in a path segment).
pub(crate) fn target_path(target: &Target) -> String {
    format!(
        "/{}/servicetemplates/{}",
        percent(&target.csar),
        percent(&percent(&target.qname()))
    )
}

/// Percent-encoding of everything but RFC 3986's unreserved characters.
fn percent(s: &str) -> String {
    let mut out = String::with_capacity(s.len() * 3);
    for b in s.bytes() {
        if b.is_ascii_alphanumeric() || matches!(b, b'-' | b'.' | b'_' | b'~') {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_target_path_encodes_the_qname_twice() {
        let target = Target {
            csar: "Multi App.csar".into(),
            namespace: "http://ex.org/st".into(),
            service_template: "Multi".into(),
            first_node: 0,
            first_relationship: 0,
            renamed: Default::default(),
            migrated_nodes: Default::default(),
            migrated_relationships: Default::default(),
        };
        assert_eq!(
            target_path(&target),
            "/Multi%20App.csar/servicetemplates/%257Bhttp%253A%252F%252Fex.org%252Fst%257DMulti"
        );
    }
}
