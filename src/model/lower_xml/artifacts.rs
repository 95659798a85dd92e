//! Artifacts (TOSCA 1.0 §3.5–3.6): deployment and implementation
//! artifacts, resolved through their `<ArtifactTemplate>`s.
//!
//! In: artifact references of node templates and type implementations.
//! Out: model [`Artifact`]s whose files are CSAR paths (an artifact
//! reference is URL-decoded, as Winery writes it).

use indexmap::IndexMap;

use super::Lowerer;
use super::index::key;
use crate::csar::path;
use crate::model::{Artifact, TypeName};
use crate::xml::ast::{self, Definitions, QRef};

impl<'a> Lowerer<'a> {
    pub(super) fn artifact(
        &mut self,
        name: Option<String>,
        artifact_type: &QRef,
        artifact_ref: Option<&QRef>,
        _doc: &Definitions,
    ) -> Artifact {
        let mut files = Vec::new();
        let mut properties = IndexMap::new();
        let mut display = name;
        if let Some(r) = artifact_ref {
            if let Some(t) = self.index.artifact_templates.get(&key(r)).copied() {
                display = display.or_else(|| Some(t.item.id.clone()));
                for reference in &t.item.references {
                    files.push(self.csar_path(reference));
                }
                for v in t.item.properties.iter().flat_map(|p| &p.values) {
                    properties.insert(v.name.clone(), v.value.clone());
                }
            } else {
                display = display.or_else(|| Some(r.local.clone()));
            }
        }
        Artifact {
            name: display.unwrap_or_else(|| artifact_type.local.clone()),
            artifact_type: TypeName::new(&artifact_type.ns, &artifact_type.local),
            files,
            properties,
            deploy_path: None,
        }
    }

    /// An artifact reference as the path of an entry in the CSAR: Winery
    /// references are URL-encoded once more than the entry names.
    fn csar_path(&self, reference: &str) -> String {
        if reference.contains("://") {
            return reference.to_string();
        }
        let decoded = path::percent_decode(reference);
        let candidates = [decoded.clone(), reference.to_string()];
        for c in &candidates {
            if let Ok(n) = path::normalize(c)
                && (self.csar.contains(&n)
                    || self.csar.names().any(|e| e.starts_with(&format!("{n}/"))))
            {
                return n;
            }
        }
        path::normalize(&decoded).unwrap_or(decoded)
    }

    pub(super) fn deployment_artifacts(
        &mut self,
        das: &[ast::DeploymentArtifact],
        doc: &Definitions,
    ) -> Vec<Artifact> {
        das.iter()
            .map(|da| {
                let mut a = self.artifact(
                    Some(da.name.clone()),
                    &da.artifact_type,
                    da.artifact_ref.as_ref(),
                    doc,
                );
                a.name = da.name.clone();
                a
            })
            .collect()
    }
}
