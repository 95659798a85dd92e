//! Paths of the container's APIs that plans call: CSAR paths as URL
//! paths, and the instance collections of templates.
//!
//! In: paths and templates. Out: URL paths (percent-encoded).

use crate::csar::path::push_percent_encoded;
use crate::model::{TemplateRef, Topology};

/// Percent-encode each segment of a CSAR path for use in a URL.
pub(super) fn url_path(path: &str) -> String {
    let mut out = String::with_capacity(path.len());
    for (k, segment) in path.split('/').enumerate() {
        if k > 0 {
            out.push('/');
        }
        push_percent_encoded(&mut out, segment);
    }
    out
}

/// The collection path of a template's instances in the instance API
/// (`/nodetemplates/<id>/instances`).
pub(super) fn instances_path(topology: &Topology, t: TemplateRef) -> String {
    match t {
        TemplateRef::Node(_) => {
            format!("/nodetemplates/{}/instances", url_path(topology.api_id(t)))
        }
        TemplateRef::Relationship(_) => format!(
            "/relationshiptemplates/{}/instances",
            url_path(topology.api_id(t))
        ),
    }
}
