//! Artifacts (1.3 §3.6.7) and operation implementations (§3.6.17.2):
//! an artifact definition, or a file or artifact name an implementation
//! gives, becomes a model [`Artifact`].
//!
//! In: the AST of the definition and the file that names it. Out: the
//! artifact, its path relative to that file, or the repository URL it is
//! fetched from; a local file missing from the CSAR is a warning.

use indexmap::IndexMap;

use super::{Lowerer, Unit};
use crate::diagnostics::{Diagnostic, Span, codes};
use crate::model::{Artifact, Implementation, TypeName};
use crate::yaml::ast::{self, File, TypeKind};

impl<'a> Lowerer<'a> {
    /// A CSAR path relative to the directory of `file`.
    fn path_beside(file: &File, reference: &str) -> String {
        let mut parts: Vec<&str> = file.source.name().split('/').collect();
        parts.pop();
        for seg in reference.split('/') {
            match seg {
                "" | "." => {}
                ".." if parts.last().is_some_and(|p| *p != "..") => {
                    parts.pop();
                }
                s => parts.push(s),
            }
        }
        parts.join("/")
    }

    pub(super) fn artifact_def(
        &mut self,
        a: &'a ast::ArtifactDef,
        unit: Unit<'a>,
        owner: &str,
    ) -> Artifact {
        let type_name = a.type_name.as_ref().map(|t| {
            self.resolve(TypeKind::Artifact, &t.text, unit)
                .unwrap_or_else(|| t.text.clone())
        });
        let file = a.file.as_ref().map(|f| f.text.clone()).unwrap_or_default();
        let files = if file.is_empty() {
            Vec::new()
        } else if a.repository.is_some() || file.contains("://") {
            let repo = a
                .repository
                .as_ref()
                .map(|r| r.text.clone())
                .unwrap_or_default();
            let url = unit
                .file
                .repositories
                .iter()
                .find(|(n, _)| n.text == repo)
                .and_then(|(_, u)| u.clone());
            vec![match url {
                Some(u) => format!("{}/{file}", u.trim_end_matches('/')),
                None if file.contains("://") => file.clone(),
                None => format!("{repo}://{file}"),
            }]
        } else {
            let path = Self::path_beside(unit.file, &file);
            let span = a.file.as_ref().map(|f| f.span).unwrap_or(a.span);
            vec![self.local_file(path, span, unit, owner)]
        };
        Artifact {
            name: a.name.text.clone(),
            artifact_type: TypeName::new(
                "",
                type_name.unwrap_or_else(|| infer_type(&file).to_string()),
            ),
            files,
            properties: Default::default(),
            deploy_path: a.deploy_path.as_ref().map(|p| p.text.clone()),
        }
    }

    /// The CSAR path of a local artifact: a file, or a directory (with a
    /// trailing `/`, so that the plans upload it as one). One missing from
    /// the CSAR is a warning.
    fn local_file(&mut self, path: String, span: Span, unit: Unit<'a>, owner: &str) -> String {
        if unit.builtin || self.csar.load_on_demand(&path).is_some() {
            return path;
        }
        if self.csar.load_dir_on_demand(&path) {
            return format!("{path}/");
        }
        self.push_once(
            Diagnostic::warning(
                codes::W_YAML_ARTIFACT_MISSING,
                format!("the artifact `{path}` of {owner} is not in the CSAR"),
            )
            .at(Self::at(unit, span))
            .hint("artifact paths are relative to the file that names them; the plan will fail where it uses this file"),
        );
        path
    }

    pub(super) fn implementation(
        &mut self,
        imp: &'a ast::Implementation,
        unit: Unit<'a>,
        artifacts: &IndexMap<String, Artifact>,
        owner: &str,
    ) -> Option<Implementation> {
        let primary = self.artifact_ref(imp.primary.as_ref()?, unit, artifacts, owner)?;
        let dependencies = imp
            .dependencies
            .iter()
            .filter_map(|d| self.artifact_ref(d, unit, artifacts, owner))
            .collect();
        Some(Implementation {
            primary,
            dependencies,
        })
    }

    fn artifact_ref(
        &mut self,
        r: &'a ast::ArtifactRef,
        unit: Unit<'a>,
        artifacts: &IndexMap<String, Artifact>,
        owner: &str,
    ) -> Option<Artifact> {
        match r {
            ast::ArtifactRef::Inline(def) => Some(self.artifact_def(def, unit, owner)),
            ast::ArtifactRef::Name(s) => {
                if let Some(a) = artifacts.get(&s.text) {
                    return Some(a.clone());
                }
                if s.text.trim().is_empty() {
                    return None;
                }
                // A URL stays a URL: never fetched, never a path.
                let file = if s.text.contains("://") {
                    s.text.clone()
                } else {
                    let path = Self::path_beside(unit.file, &s.text);
                    self.local_file(path, s.span, unit, owner)
                };
                Some(Artifact {
                    name: s.text.clone(),
                    artifact_type: TypeName::new("", infer_type(&s.text)),
                    files: vec![file],
                    properties: Default::default(),
                    deploy_path: None,
                })
            }
        }
    }
}

/// The artifact type of an implementation given as a bare file name.
fn infer_type(file: &str) -> &'static str {
    let ext = file.rsplit('.').next().unwrap_or("").to_ascii_lowercase();
    match ext.as_str() {
        "sh" | "bash" => "tosca.artifacts.Implementation.Bash",
        "py" => "tosca.artifacts.Implementation.Python",
        _ => "tosca.artifacts.Implementation",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bare_files_get_a_type_from_their_extension() {
        assert_eq!(infer_type("a/b.sh"), "tosca.artifacts.Implementation.Bash");
        assert_eq!(
            infer_type("run.PY"),
            "tosca.artifacts.Implementation.Python"
        );
        assert_eq!(infer_type("setup"), "tosca.artifacts.Implementation");
    }
}
