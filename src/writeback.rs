//! Stage 7: putting rendered plans back into the CSAR.
//!
//! TOSCA YAML: see [`yaml`] (plans become workflows of the service
//! template). TOSCA 1.0: each plan archive goes where Winery keeps plans
//! (`servicetemplates/<ns>/<id>/plans/<plan>/<plan>.zip`), and the entry
//! Definitions gets a `Plan` element per plan plus the boundary operation
//! that exposes it (see [`crate::xml::rewrite`]). Plans an earlier run put
//! there are replaced, never duplicated; every other entry is copied
//! unchanged.

mod yaml;

use std::path::{Path, PathBuf};

use crate::csar::path::{percent_decode, percent_encode, resolve};
use crate::csar::write::{Changes, write_csar};
use crate::diagnostics::{Diagnostic, Diagnostics, Location, codes};
use crate::error::{Error, Result};
use crate::load::Loaded;
use crate::plan::PlanKind;
use crate::render::RenderedPlan;
use crate::xml::names::{
    LIFECYCLE_INTERFACE, MANAGEMENT_FEATURE_INTERFACE, PLAN_TYPE_BUILD, PLAN_TYPE_MANAGEMENT,
    PLAN_TYPE_TERMINATION, PLAN_TYPE_TRANSFORMATION, STATEFUL_LIFECYCLE_INTERFACE,
    TRANSFORMATION_INTERFACE,
};
use crate::xml::rewrite::{PlanEntry, prepare, rewrite};

/// The default output path: `<input stem>.planned.csar` beside the input.
pub(crate) fn default_output(input: &Path) -> PathBuf {
    let stem = input
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_else(|| "output".into());
    let dir = input.parent().unwrap_or(Path::new(""));
    dir.join(format!("{stem}.planned.csar"))
}

/// Where a plan archive lives inside the CSAR (Winery's layout).
pub(crate) fn plan_entry_path(loaded: &Loaded, plan: &RenderedPlan) -> String {
    let st = &loaded.topology.service_template;
    format!(
        "servicetemplates/{}/{}/plans/{}/{}.zip",
        percent_encode(&st.namespace),
        percent_encode(&st.id),
        plan.name,
        plan.name
    )
}

/// A path relative to the directory of `from`, as a URI reference (each
/// segment percent-encoded, so Winery's `%3A` folders become `%253A`).
fn relative_reference(from: &str, to: &str) -> String {
    let depth = from.matches('/').count();
    let mut parts: Vec<String> = vec!["..".to_string(); depth];
    parts.extend(to.split('/').map(percent_encode));
    parts.join("/")
}

/// The plan type OpenTOSCA gives each plan (anchor §2): a freeze plan is
/// a TerminationPlan and a defrost plan a BuildPlan.
fn plan_type(kind: &PlanKind) -> &'static str {
    match kind {
        PlanKind::Build | PlanKind::Defrost => PLAN_TYPE_BUILD,
        PlanKind::Termination | PlanKind::Freeze => PLAN_TYPE_TERMINATION,
        PlanKind::Transformation(_) => PLAN_TYPE_TRANSFORMATION,
        _ => PLAN_TYPE_MANAGEMENT,
    }
}

fn boundary(kind: &PlanKind) -> Option<(String, String)> {
    match kind {
        PlanKind::Build => Some((LIFECYCLE_INTERFACE.into(), "initiate".into())),
        PlanKind::Termination => Some((LIFECYCLE_INTERFACE.into(), "terminate".into())),
        PlanKind::ScaleOut(name) => Some((name.clone(), "scale-out".into())),
        PlanKind::Workflow(_) => None,
        PlanKind::Freeze | PlanKind::Defrost | PlanKind::Update => Some((
            STATEFUL_LIFECYCLE_INTERFACE.into(),
            crate::render::bpel::operation(kind),
        )),
        PlanKind::Backup | PlanKind::Test => Some((
            MANAGEMENT_FEATURE_INTERFACE.into(),
            crate::render::bpel::operation(kind),
        )),
        PlanKind::Transformation(_) => Some((
            TRANSFORMATION_INTERFACE.into(),
            crate::render::bpel::operation(kind),
        )),
    }
}

/// The entry file parsed for a write-back: what earlier runs added and
/// the text without it. It does not depend on the plans, so it is made
/// while they are rendered (a 100k-node service template takes 0.4 s).
pub(crate) enum Prepared {
    /// A YAML service template.
    Yaml(crate::yaml::rewrite::Prepared),
    /// A TOSCA 1.0 Definitions document.
    Xml(crate::xml::rewrite::Prepared),
}

/// Parse the loaded CSAR's entry for a write-back.
pub(crate) fn prepare_entry(loaded: &Loaded) -> Result<Prepared> {
    if let crate::model::Dialect::Yaml(_) = loaded.topology.dialect {
        return yaml::prepare_entry(loaded).map(Prepared::Yaml);
    }
    let Some(source) = &loaded.xml_entry else {
        return Err(Error::Internal(
            "writing plans back is implemented for TOSCA 1.0 XML and YAML CSARs only".into(),
        ));
    };
    Ok(Prepared::Xml(prepare(
        source,
        &loaded.topology.service_template.id,
        loaded.xml_outline.as_ref(),
    )))
}

/// The changes that put `plans` into the loaded CSAR.
pub fn changes(loaded: &Loaded, plans: &[RenderedPlan]) -> Result<(Changes, Diagnostics)> {
    prepared_changes(loaded, prepare_entry(loaded)?, plans)
}

/// [`changes`], with the entry parsed already.
pub(crate) fn prepared_changes(
    loaded: &Loaded,
    prepared: Prepared,
    plans: &[RenderedPlan],
) -> Result<(Changes, Diagnostics)> {
    let prepared = match prepared {
        Prepared::Yaml(p) => return yaml::changes(loaded, p, plans),
        Prepared::Xml(p) => p,
    };
    let mut changes = Changes::default();
    let mut entries = Vec::new();
    // A boundary operation names one plan: with plans in several languages
    // the first one rendered (BPEL) is bound, the others are added beside it.
    let mut bound = foldhash::HashSet::default();
    for plan in plans {
        let path = plan_entry_path(loaded, plan);
        entries.push(PlanEntry {
            id: plan.name.clone(),
            plan_type: plan_type(&plan.kind).into(),
            plan_language: plan.language.uri().into(),
            inputs: plan
                .inputs
                .iter()
                .map(|p| (p.name.clone(), p.required))
                .collect(),
            outputs: plan.outputs.clone(),
            reference: relative_reference(&loaded.entry, &path),
            boundary: boundary(&plan.kind).filter(|b| bound.insert(b.clone())),
            marker: plan.kind.slug(),
        });
        put_plan(&mut changes, path, plan)?;
    }
    // Archives of plans an earlier run added and this run does not replace.
    for reference in &prepared.previous.references {
        let decoded = percent_decode(reference);
        if let Some(old) = resolve(&loaded.entry, &decoded)
            && !changes.put.contains_key(&old)
            && !changes.spooled.contains_key(&old)
            && loaded.csar.contains(&old)
        {
            changes.remove.insert(old);
        }
    }
    let (text, diags) = rewrite(prepared, &entries).map_err(|d| Error::Input(d.into()))?;
    changes.put.insert(loaded.entry.clone(), text.into_bytes());
    Ok((changes, diags))
}

/// Put a plan's archive into the changes: its spool file as it is, or
/// its bytes.
pub(crate) fn put_plan(changes: &mut Changes, path: String, plan: &RenderedPlan) -> Result<()> {
    match &plan.packed {
        Some(crate::render::output::Packed::Spooled(spool)) => {
            changes.spooled.insert(path, spool.clone());
        }
        _ => {
            changes.put.insert(path, plan.archive()?);
        }
    }
    Ok(())
}

/// Write the CSAR with the plans to `out`. The input is only overwritten
/// when `in_place` is set.
pub(crate) fn write(
    loaded: &Loaded,
    prepared: Prepared,
    plans: &[RenderedPlan],
    out: &Path,
    in_place: bool,
) -> Result<Diagnostics> {
    let same = match (
        std::fs::canonicalize(&loaded.csar.path),
        std::fs::canonicalize(out),
    ) {
        (Ok(a), Ok(b)) => a == b,
        _ => false,
    };
    if same && !in_place {
        return Err(Error::Input(
            Diagnostic::error(
                codes::OUTPUT_IS_INPUT,
                format!(
                    "the output `{}` is the input; refusing to overwrite it",
                    out.display()
                ),
            )
            .at(Location::file(out.display().to_string()))
            .hint("choose another -o OUTPUT, or pass --in-place")
            .into(),
        ));
    }
    if loaded.csar.path.is_dir() && same {
        return Err(Error::Input(
            Diagnostic::error(
                codes::OUTPUT_IS_INPUT,
                "--in-place needs a CSAR file, not a directory",
            )
            .hint("write to a .csar file with -o")
            .into(),
        ));
    }
    let (changes, diags) = prepared_changes(loaded, prepared, plans)?;
    write_csar(&loaded.csar, &changes, out)?;
    Ok(diags)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn references_are_relative_and_encoded() {
        assert_eq!(
            relative_reference(
                "Definitions/st.tosca",
                "servicetemplates/http%3A%2F%2Fx/st/plans/p/p.zip"
            ),
            "../servicetemplates/http%253A%252F%252Fx/st/plans/p/p.zip"
        );
        assert_eq!(relative_reference("st.yaml", "plans/p.zip"), "plans/p.zip");
    }

    #[test]
    fn default_output_sits_beside_the_input() {
        assert_eq!(
            default_output(Path::new("a/b.csar")),
            PathBuf::from("a/b.planned.csar")
        );
        assert_eq!(
            default_output(Path::new("a/b.planned.csar")),
            PathBuf::from("a/b.planned.planned.csar")
        );
        assert_eq!(
            default_output(Path::new("dir")),
            PathBuf::from("dir.planned.csar")
        );
    }
}
