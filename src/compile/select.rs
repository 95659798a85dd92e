//! Plan names as a user gives them (`--plans build,scale-out:web`) turned
//! into plan kinds.
//!
//! In: the names, and the topology for `all` and `scale-out`. Out: the
//! plan kinds, each once, in the order asked; or the error naming the
//! unknown name and the names there are.

use crate::error::{Error, Result};
use crate::model::Topology;
use crate::plan::PlanKind;

/// Parse one plan name: `build`, `termination`, `scale-out:NAME`,
/// `workflow:NAME`, and the management-feature plans `freeze`, `defrost`,
/// `backup`, `test`, `update`.
pub fn plan_kind(name: &str) -> Result<PlanKind> {
    if let Some(feature) = PlanKind::features().into_iter().find(|k| k.slug() == name) {
        return Ok(feature);
    }
    match name {
        "build" => Ok(PlanKind::Build),
        "termination" => Ok(PlanKind::Termination),
        other => {
            if let Some(region) = other.strip_prefix("scale-out:").filter(|r| !r.is_empty()) {
                return Ok(PlanKind::ScaleOut(region.to_string()));
            }
            match other.strip_prefix("workflow:") {
                Some(w) if !w.is_empty() => Ok(PlanKind::Workflow(w.to_string())),
                _ => Err(Error::Usage(format!(
                    "unknown plan `{other}`; plans are `build`, `termination`, `scale-out:NAME`, `workflow:NAME` (a TOSCA YAML imperative workflow), `freeze`, `defrost`, `backup`, `test` and `update`"
                ))),
            }
        }
    }
}

/// The plans a list of names asks for: names as [`plan_kind`] takes them,
/// `scale-out` for every scaling plan, `all` for every plan the topology
/// has ([`crate::plan::all_plans`]).
pub fn plan_kinds(names: &[String], topology: &Topology) -> Result<Vec<PlanKind>> {
    let scale_outs = || {
        topology
            .regions
            .iter()
            .map(|r| PlanKind::ScaleOut(r.name.clone()))
    };
    let mut kinds = Vec::new();
    for n in names {
        match n.as_str() {
            "all" => kinds.extend(crate::plan::all_plans(topology)),
            "scale-out" => kinds.extend(scale_outs()),
            other => kinds.push(plan_kind(other)?),
        }
    }
    let mut seen = foldhash::HashSet::default();
    kinds.retain(|k| seen.insert(k.clone()));
    Ok(kinds)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_every_form_and_names_the_forms_on_a_typo() {
        assert_eq!(plan_kind("build").unwrap(), PlanKind::Build);
        assert_eq!(
            plan_kind("scale-out:web").unwrap(),
            PlanKind::ScaleOut("web".into())
        );
        assert_eq!(
            plan_kind("workflow:backup_db").unwrap(),
            PlanKind::Workflow("backup_db".into())
        );
        assert_eq!(plan_kind("freeze").unwrap(), PlanKind::Freeze);
        let e = plan_kind("scale-out:").unwrap_err().to_string();
        assert!(
            e.starts_with("unknown plan `scale-out:`; plans are `build`"),
            "{e}"
        );
    }
}
