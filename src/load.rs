//! The front end: an archive (a `.csar`/`.zip` file, an unpacked CSAR
//! directory, or a single YAML file) in; its topology out, with the
//! warnings found on the way. Both dialects end here in one
//! [`Topology`].

use std::path::Path;

use crate::csar::{Csar, Limits};
use crate::diagnostics::{Diagnostics, SourceMap, codes};
use crate::error::{Error, Result};
use crate::model::{self, Topology};
use crate::{xml, yaml};

/// What the front end needs to know.
#[derive(Clone, Debug, Default)]
pub struct LoadOptions {
    /// Limits against hostile input.
    pub limits: Limits,
    /// The service template to compile (TOSCA 1.0 documents may hold several).
    pub service_template: Option<String>,
    /// Directories of TOSCA 2.0 profiles that `profile` imports name.
    pub profiles: Vec<std::path::PathBuf>,
    /// Values of the topology's inputs given when the plans are made
    /// (name, value in YAML): each takes the place of every `get_input`
    /// of its input, and of the input's default where the plans need a
    /// value before they run. A name that is no input of the topology is
    /// an error (E0318).
    pub inputs: Vec<(String, String)>,
}

/// The front end's result: the archive and its topology.
pub struct Loaded {
    /// The opened archive.
    pub csar: Csar,
    /// Path of the entry definitions inside it.
    pub entry: String,
    /// The topology.
    pub topology: Topology,
    /// The text of the entry Definitions document (TOSCA 1.0), for writing
    /// plans back.
    pub xml_entry: Option<std::sync::Arc<crate::diagnostics::SourceFile>>,
    /// Warnings found on the way.
    pub warnings: Diagnostics,
    /// Where the entry service template's topology and workflows are
    /// written (TOSCA YAML), for writing plans back.
    pub(crate) yaml_outline: Option<crate::yaml::outline::Outline>,
    /// What writing plans back needs of the entry Definitions' parse
    /// (TOSCA 1.0), where it has service templates and no earlier run's
    /// plans.
    pub(crate) xml_outline: Option<crate::xml::outline::Outline>,
}

impl Loaded {
    /// Drop the templates and types of the topology, keeping what writing
    /// plans back reads of it (its dialect and service template): a large
    /// topology need not be held beside the parse of the document the plans
    /// are written into, the peak of memory at the end of a run.
    pub fn release_topology(&mut self) {
        drop(self.take_topology());
    }

    /// [`Loaded::release_topology`], handing the topology over: the caller
    /// may drop it on another thread (at 100k nodes that takes tens of
    /// milliseconds).
    pub(crate) fn take_topology(&mut self) -> Topology {
        let t = &self.topology;
        let small = Topology::new(
            t.dialect.clone(),
            t.service_template.clone(),
            crate::model::TypeTable::default(),
            Vec::new(),
            Vec::new(),
        );
        std::mem::replace(&mut self.topology, small)
    }
}

/// Open `path` and lower it into a topology.
pub(crate) fn load(path: &Path, options: &LoadOptions, sources: &mut SourceMap) -> Result<Loaded> {
    let csar = Csar::open(path, &options.limits)?;
    load_csar(csar, options, sources)
}

/// Lower an opened CSAR into a topology.
pub(crate) fn load_csar(
    csar: Csar,
    options: &LoadOptions,
    sources: &mut SourceMap,
) -> Result<Loaded> {
    let entry = csar.entry_definitions(sources)?;
    let is_yaml = entry.ends_with(".yaml") || entry.ends_with(".yml");
    if is_yaml {
        return load_yaml(csar, entry, options, sources);
    }
    let (mut docs, mut diags) =
        xml::imports::load(&csar, &entry, options.limits.max_depth, sources);
    if diags.has_errors() || docs.is_empty() {
        return Err(Error::Input(diags));
    }
    let loaded: std::collections::BTreeSet<String> =
        docs.iter().map(|d| d.source.name().to_string()).collect();
    let max_depth = options.limits.max_depth;
    let mut fallback_sources = SourceMap::new();
    let xml_options = model::lower_xml::XmlOptions {
        service_template: options.service_template.clone(),
    };
    let (mut topology, d) = {
        let mut fallback =
            || xml::imports::load_rest(&csar, &loaded, max_depth, &mut fallback_sources);
        model::lower_xml::lower(&docs, &mut fallback, &csar, &xml_options)
    };
    sources.extend(fallback_sources);
    diags.extend(d);
    if let Some(t) = topology.as_mut() {
        // The YAML rules of the values matter little: TOSCA 1.0 takes text.
        match yaml::given::document(&options.inputs, yaml::version::Version::V1_3, sources) {
            Ok(Some(given)) => diags.extend(model::lower_xml::given::bind(t, &given)),
            Ok(None) => {}
            Err(d) => diags.push(d),
        }
    }
    match topology {
        Some(topology) if !diags.has_errors() => {
            // Write-back needs the entry document's text and outline only;
            // its syntax tree (a copy of the whole topology) is dropped here.
            let entry_doc = docs.swap_remove(0);
            Ok(Loaded {
                csar,
                entry,
                topology,
                xml_entry: Some(entry_doc.source),
                warnings: diags,
                yaml_outline: None,
                xml_outline: entry_doc.outline,
            })
        }
        _ => Err(Error::Input(diags)),
    }
}

/// The YAML front end: the entry and its imports, then the lowering. Files
/// that cannot be read stop the run before lowering (their types would
/// only cascade into "unknown type" errors); everything else is reported
/// together.
fn load_yaml(
    mut csar: Csar,
    entry: String,
    options: &LoadOptions,
    sources: &mut SourceMap,
) -> Result<Loaded> {
    // 2.0 §17.2: TOSCA.meta's Other-Definitions hold substituting
    // templates (those not in the CSAR are W0110, see yaml::meta).
    let others: Vec<String> = match csar.origin {
        crate::csar::Origin::File => Vec::new(),
        _ => csar
            .meta(sources)
            .0
            .map(|m| m.other_definitions())
            .unwrap_or_default()
            .iter()
            .filter_map(|o| crate::csar::path::normalize(o).ok())
            .filter(|o| csar.contains(o) && *o != entry)
            .collect(),
    };
    let (mut files, mut diags) = yaml::imports::load(
        &mut csar,
        &entry,
        &others,
        options.limits.max_depth,
        &options.profiles,
        sources,
    );
    diags.extend(yaml::meta::check_meta(&csar, &files, sources));
    let unreadable = diags.iter().any(|d| {
        matches!(
            d.code,
            codes::YAML_SYNTAX
                | codes::YAML_LIMIT
                | codes::YAML_DUPLICATE
                | codes::YAML_VERSION
                | codes::YAML_DIALECT
                | codes::YAML_IMPORT
                | codes::CSAR_NOT_UTF8
        ) && d.severity == crate::diagnostics::Severity::Error
    });
    if unreadable || files.files.is_empty() {
        return Err(Error::Input(diags));
    }
    let given = match yaml::given::document(&options.inputs, files.files[0].version, sources) {
        Ok(given) => given,
        Err(d) => {
            diags.push(d);
            return Err(Error::Input(diags));
        }
    };
    let (topology, d) = model::lower_yaml::lower(&files, given.as_ref(), &mut csar);
    diags.extend(d);
    match topology {
        Some(topology) if !diags.has_errors() => Ok(Loaded {
            csar,
            entry,
            topology,
            xml_entry: None,
            warnings: diags,
            yaml_outline: files.outline.take(),
            xml_outline: None,
        }),
        _ => Err(Error::Input(diags)),
    }
}
