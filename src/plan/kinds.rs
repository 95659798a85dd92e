//! Which plans a topology has, and their abstract plans: the build plan
//! derived once, the others from it (termination reverses it; the
//! management-feature plans start from one or both), imperative workflows in
//! place of build and termination where a YAML topology declares `deploy` or
//! `undeploy`.
//!
//! In: the topology, the plan kinds asked for and the ordering rules. Out:
//! one abstract plan per kind, or the error that names why one cannot be
//! made (an unknown workflow or region, a feature no node supports, two plans
//! with one name).

use super::{AbstractPlan, OrderingRules, PlanKind, build_plan};
use crate::diagnostics::{Diagnostic, codes};
use crate::error::{Error, Result};
use crate::model::{Dialect, Topology};

/// Every plan a topology has: build, termination, one per scaling region,
/// one per imperative workflow other than `deploy` and `undeploy`, and the
/// management-feature plans (freeze, defrost, backup, test) that some node
/// supports.
pub fn all_plans(topology: &Topology) -> Vec<PlanKind> {
    let mut kinds = vec![PlanKind::Build, PlanKind::Termination];
    kinds.extend(
        topology
            .regions
            .iter()
            .map(|r| PlanKind::ScaleOut(r.name.clone())),
    );
    kinds.extend(
        topology
            .workflows
            .iter()
            .filter(|w| !matches!(w.name.as_str(), "deploy" | "undeploy"))
            .map(|w| PlanKind::Workflow(w.name.clone())),
    );
    // A YAML feature plan is written back as a workflow named after it: an
    // imperative workflow of that name keeps it (asking for both is E0507).
    let taken =
        |k: &PlanKind| topology.dialect != Dialect::Xml && topology.workflow(&k.slug()).is_some();
    kinds.extend(
        PlanKind::features()
            .into_iter()
            .filter(|k| super::features::supported(topology, k) && !taken(k)),
    );
    kinds
}

/// Derive the abstract plans of the given kinds. The build plan is
/// derived once: termination reverses it, and an ordering cycle is
/// reported once, not per plan. Imperative workflows of a YAML topology
/// replace the build (`deploy`) and termination (`undeploy`) plans, and
/// every other one is a `PlanKind::Workflow` plan.
pub fn abstract_plans(
    topology: &Topology,
    kinds: &[PlanKind],
    rules: &OrderingRules,
) -> Result<Vec<AbstractPlan>> {
    distinct_plan_names(topology, kinds)?;
    let build = build_plan(topology, rules)?;
    // An imperative `deploy`/`undeploy` replaces the generated plan (TOSCA
    // YAML 1.3 §7.1); every other workflow is a plan of its own.
    let workflow = |name: &str| topology.workflows.iter().position(|w| w.name == name);
    let mut out = Vec::with_capacity(kinds.len());
    for kind in kinds {
        let plan = match kind {
            PlanKind::Build => match workflow("deploy") {
                Some(w) => super::workflow_plan(topology, w, PlanKind::Build)?,
                None => build.clone(),
            },
            PlanKind::Termination => match workflow("undeploy") {
                Some(w) => super::workflow_plan(topology, w, PlanKind::Termination)?,
                None => super::termination_plan(&build, topology)?,
            },
            PlanKind::Workflow(name) => match workflow(name) {
                Some(w) if !matches!(name.as_str(), "deploy" | "undeploy") => {
                    super::workflow_plan(topology, w, kind.clone())?
                }
                _ => {
                    let known: Vec<String> = topology
                        .workflows
                        .iter()
                        .filter(|w| !matches!(w.name.as_str(), "deploy" | "undeploy"))
                        .map(|w| format!("`{}`", w.name))
                        .collect();
                    return Err(Error::Usage(format!(
                        "there is no plan `workflow:{name}`; {}",
                        if matches!(name.as_str(), "deploy" | "undeploy") {
                            "the deploy and undeploy workflows are the build and termination plans"
                                .to_string()
                        } else if known.is_empty() {
                            "the topology has no other imperative workflows".to_string()
                        } else {
                            format!("its workflows: {}", known.join(", "))
                        }
                    )));
                }
            },
            PlanKind::Freeze
            | PlanKind::Defrost
            | PlanKind::Backup
            | PlanKind::Test
            | PlanKind::Update => feature_plan(topology, kind, &build)?,
            PlanKind::Transformation(to) => {
                return Err(Error::Usage(format!(
                    "the transformation to `{to}` needs the target CSAR: use --transform-to"
                )));
            }
            PlanKind::ScaleOut(name) => match topology.regions.iter().find(|r| &r.name == name) {
                Some(region) => super::scale_out_plan(topology, region)?,
                None => {
                    let known: Vec<String> = topology
                        .regions
                        .iter()
                        .map(|r| format!("`scale-out:{}`", r.name))
                        .collect();
                    return Err(Error::Usage(format!(
                        "there is no scaling plan `{name}` (the service template declares {})",
                        if known.is_empty() {
                            "none".to_string()
                        } else {
                            known.join(", ")
                        }
                    )));
                }
            },
        };
        out.push(without_replicas(plan, topology)?);
    }
    Ok(out)
}

/// A plan that acts on existing instances reaches the representations of
/// a template with a `count` through the template itself (it lists every
/// instance of it): the activities of the other representations go. The
/// plans that create them (build, defrost) keep them.
fn without_replicas(plan: AbstractPlan, topology: &Topology) -> Result<AbstractPlan> {
    let creates = matches!(plan.kind, PlanKind::Build | PlanKind::Defrost);
    if creates || topology.replicas.is_empty() {
        return Ok(plan);
    }
    let (activities, edges) = super::restrict::restrict(plan.activities, &plan.edges, |a| {
        !topology.is_replica(a.template)
    });
    Ok(super::build::finish(
        plan.kind, activities, edges, topology,
    )?)
}

/// A management-feature plan, derived from the build plan (defrost, test),
/// the termination plan (freeze, backup) or both (update); an error naming what is
/// missing when no node supports it.
fn feature_plan(
    topology: &Topology,
    kind: &PlanKind,
    build: &AbstractPlan,
) -> Result<AbstractPlan> {
    if !super::features::supported(topology, kind) {
        return Err(Diagnostic::error(
            codes::PLAN_UNSUPPORTED,
            format!(
                "no {} plan can be made for `{}`: {}",
                kind.slug(),
                topology.service_template.id,
                super::features::missing(topology, kind)
            ),
        )
        .hint("leave the plan out of --plans; `all` (the default) generates only the plans the topology supports")
        .into());
    }
    Ok(match kind {
        PlanKind::Defrost => super::defrost_plan(build, topology)?,
        PlanKind::Test => super::test_plan(build, topology)?,
        PlanKind::Freeze => {
            super::freeze_plan(&super::termination_plan(build, topology)?, topology)?
        }
        PlanKind::Update => {
            super::update_plan(build, &super::termination_plan(build, topology)?, topology)?
        }
        _ => super::backup_plan(&super::termination_plan(build, topology)?, topology)?,
    })
}

/// Plans are named after their workflow or region in the letters a plan
/// name can hold (`w 1` and `w_1` are both `…_workflow_w_1`): two of them
/// with one name would be one plan archive, the second written over the
/// first.
fn distinct_plan_names(topology: &Topology, kinds: &[PlanKind]) -> Result<()> {
    feature_names_free(topology, kinds)?;
    let mut seen: foldhash::HashMap<String, &PlanKind> = foldhash::HashMap::default();
    for kind in kinds {
        let Some(first) = seen.insert(kind.suffix(), kind) else {
            continue;
        };
        let (what, origin) = match kind {
            PlanKind::Workflow(n) => (
                "workflows",
                topology
                    .workflows
                    .iter()
                    .find(|w| &w.name == n)
                    .and_then(|w| w.origin.clone()),
            ),
            PlanKind::ScaleOut(n) => (
                "scaling regions",
                topology
                    .regions
                    .iter()
                    .find(|r| &r.name == n)
                    .and_then(|r| r.origin.clone()),
            ),
            // Build and termination are one name each.
            _ => continue,
        };
        let name = |k: &PlanKind| match k {
            PlanKind::Workflow(n) | PlanKind::ScaleOut(n) => n.clone(),
            other => other.slug(),
        };
        return Err(Diagnostic::error(
            codes::PLAN_NAME_CLASH,
            format!(
                "{what} `{}` and `{}` would both be plan `{}`",
                name(first),
                name(kind),
                super::naming::plan_name(topology, kind)
            ),
        )
        .at_opt(origin)
        .hint("a plan name holds letters, digits, `_`, `-` and `.`; rename one of them")
        .into());
    }
    Ok(())
}

/// In TOSCA YAML the plans are written back as workflows named after them:
/// a feature plan (`backup`, say) would take the name of an imperative
/// workflow of the same name that is also generated.
fn feature_names_free(topology: &Topology, kinds: &[PlanKind]) -> Result<()> {
    if topology.dialect == Dialect::Xml {
        return Ok(());
    }
    for kind in kinds.iter().filter(|k| PlanKind::features().contains(k)) {
        let workflow = PlanKind::Workflow(kind.slug());
        if kinds.contains(&workflow) {
            let origin = topology
                .workflow(&kind.slug())
                .and_then(|w| w.origin.clone());
            return Err(Diagnostic::error(
                codes::PLAN_NAME_CLASH,
                format!(
                    "the {} plan and the imperative workflow `{}` would both be written back as workflow `{}`",
                    kind.slug(),
                    kind.slug(),
                    kind.slug()
                ),
            )
            .at_opt(origin)
            .hint("rename the workflow, or leave one of the two plans out of --plans")
            .into());
        }
    }
    Ok(())
}
