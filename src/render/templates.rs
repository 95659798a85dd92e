//! The template environment: tera with every template of `templates/`
//! embedded in the binary, autoescaping off (the output is XML, not HTML,
//! and fragments are inserted verbatim) and values escaped explicitly with
//! tera's `escape_xml` filter.

use serde::Serialize;

use crate::error::{Error, Result};

/// Templates shipped with toscanini, embedded at build time.
pub(crate) const EMBEDDED: &[(&str, &str)] = &[
    (
        "bpel/call.bpel",
        include_str!("../../templates/bpel/call.bpel"),
    ),
    (
        "bpel/call.endpoint",
        include_str!("../../templates/bpel/call.endpoint"),
    ),
    (
        "bpel/deploy.xml",
        include_str!("../../templates/bpel/deploy.xml"),
    ),
    (
        "bpel/invoke.xsl",
        include_str!("../../templates/bpel/invoke.xsl"),
    ),
    (
        "bpel/invoker.wsdl",
        include_str!("../../templates/bpel/invoker.wsdl"),
    ),
    (
        "bpel/invoker.xsd",
        include_str!("../../templates/bpel/invoker.xsd"),
    ),
    (
        "bpel/plan.wsdl",
        include_str!("../../templates/bpel/plan.wsdl"),
    ),
    (
        "bpel/process.bpel",
        include_str!("../../templates/bpel/process.bpel"),
    ),
    (
        "bpmn/library-diagrams.bpmn",
        include_str!("../../templates/bpmn/library-diagrams.bpmn"),
    ),
    (
        "bpmn/library.bpmn",
        include_str!("../../templates/bpmn/library.bpmn"),
    ),
    (
        "bpmn/process.bpmn",
        include_str!("../../templates/bpmn/process.bpmn"),
    ),
    (
        "bpmn/scripts/prelude.groovy",
        include_str!("../../templates/bpmn/scripts/prelude.groovy"),
    ),
];

/// A loaded template set.
pub(crate) struct Templates {
    tera: tera::Tera,
}

impl Templates {
    /// The embedded templates.
    pub(crate) fn embedded() -> Result<Templates> {
        let mut tera = tera::Tera::new();
        tera.autoescape_on(Vec::<&str>::new());
        tera.add_raw_templates(EMBEDDED.iter().copied())
            .map_err(|e| Error::Internal(format!("embedded templates do not compile: {e}")))?;
        Ok(Templates { tera })
    }

    /// Render a template with a serializable context.
    pub(crate) fn render<C: Serialize>(&self, name: &str, context: &C) -> Result<String> {
        let ctx = tera::Context::from_serialize(context)
            .map_err(|e| Error::Internal(format!("template context for {name}: {e}")))?;
        self.tera
            .render(name, &ctx)
            .map_err(|e| Error::Internal(format!("rendering template {name}: {e}")))
    }

    /// The text of a template that is copied as it is (static files).
    pub(crate) fn raw(name: &str) -> &'static str {
        EMBEDDED
            .iter()
            .find(|(n, _)| *n == name)
            .map(|(_, t)| *t)
            .unwrap_or("")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_template_file_is_embedded_and_compiles() {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("templates");
        let mut on_disk: Vec<String> = walkdir::WalkDir::new(&root)
            .sort_by_file_name()
            .into_iter()
            .filter_map(|e| e.ok())
            .filter(|e| e.file_type().is_file())
            .map(|e| {
                e.path()
                    .strip_prefix(&root)
                    .unwrap()
                    .to_string_lossy()
                    .replace('\\', "/")
            })
            .collect();
        on_disk.sort();
        let mut embedded: Vec<String> = EMBEDDED
            .iter()
            .chain(crate::render::bpel::FRAGMENTS)
            .chain(crate::render::bpmn::xml::FRAGMENTS)
            .map(|(n, _)| n.to_string())
            .collect();
        embedded.sort();
        assert_eq!(
            on_disk, embedded,
            "templates/ and EMBEDDED or the fragment lists differ"
        );
        Templates::embedded().unwrap();
        crate::render::fragment::Fragments::parse(crate::render::bpel::FRAGMENTS).unwrap();
        crate::render::fragment::Fragments::parse(crate::render::bpmn::xml::FRAGMENTS).unwrap();
    }
}
