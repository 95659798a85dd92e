//! toscanini compiles TOSCA topologies into deployment plans.
//!
//! ```text
//!   CSAR (.csar/.zip, directory, or .yaml)
//!     │  csar::      entries under limits, TOSCA.meta, entry definitions
//!     ▼
//!   dialect AST       xml:: (TOSCA 1.0)      yaml:: (Simple Profile 1.x, 2.0)
//!     │  lower
//!     ▼
//!   model::Topology   one model for both dialects
//!     │  plan::
//!     ▼
//!   AbstractPlan      activities + precedence DAG: build, termination, scale-out
//!     │  plugins::
//!     ▼
//!   ConcretePlan      language-neutral steps + decision log
//!     │  render::
//!     ▼
//!   BPEL / BPMN       written back into the CSAR (csar::write), or previewed (dot)
//! ```
//!
//! [`load`] runs the front end (archive to topology), [`derive`] the plan
//! stages; the `cli` module wires them to the command line.

#![forbid(unsafe_code)]
#![allow(clippy::result_large_err)] // diagnostics carry their location and hint inline; errors are the cold path

pub mod cli;
pub mod csar;
pub mod diagnostics;
pub mod dot;
pub mod error;
pub mod model;
pub mod plan;
pub mod plugins;
pub mod render;
pub mod synth;
pub mod writeback;
pub mod xml;
pub mod yaml;

use std::path::Path;

use csar::{Csar, Limits};
use diagnostics::{Diagnostics, SourceMap, codes};
use error::{Error, Result};
use model::Topology;
use plan::{AbstractPlan, OrderingRules, PlanKind};
use plugins::{CompleteOptions, ConcretePlan, Registry};

/// Everything that changes how an input is compiled.
#[derive(Clone, Debug, Default)]
pub struct Options {
    /// Limits against hostile input.
    pub limits: Limits,
    /// The service template to compile (TOSCA 1.0 documents may hold several).
    pub service_template: Option<String>,
    /// Override the dialect's default for serialising nodes on one host.
    pub same_host_serial: Option<bool>,
    /// How unknown relationship kinds order their ends.
    pub unknown_relationships: Option<plan::UnknownOrdering>,
    /// Plugin completion options.
    pub complete: CompleteOptions,
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
    pub xml_entry: Option<std::sync::Arc<diagnostics::SourceFile>>,
    /// Warnings found on the way.
    pub warnings: Diagnostics,
}

impl Loaded {
    /// Drop the templates and types of the topology, keeping what writing
    /// plans back reads of it (its dialect and service template): a large
    /// topology need not be held beside the parse of the document the plans
    /// are written into, the peak of memory at the end of a run.
    pub fn release_topology(&mut self) {
        let t = &self.topology;
        self.topology = Topology::new(
            t.dialect.clone(),
            t.service_template.clone(),
            model::TypeTable::default(),
            Vec::new(),
            Vec::new(),
        );
    }
}

/// Open `path` and lower it into a topology.
pub fn load(path: &Path, options: &Options, sources: &mut SourceMap) -> Result<Loaded> {
    let csar = Csar::open(path, &options.limits)?;
    load_csar(csar, options, sources)
}

/// Lower an opened CSAR into a topology.
pub fn load_csar(csar: Csar, options: &Options, sources: &mut SourceMap) -> Result<Loaded> {
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
    let (topology, d) = {
        let mut fallback =
            || xml::imports::load_rest(&csar, &loaded, max_depth, &mut fallback_sources);
        model::lower_xml::lower(&docs, &mut fallback, &csar, &xml_options)
    };
    sources.extend(fallback_sources);
    diags.extend(d);
    match topology {
        Some(topology) if !diags.has_errors() => {
            // Write-back needs the entry document's text only; its syntax
            // tree (a copy of the whole topology) is dropped here.
            let entry_doc = docs.swap_remove(0).source;
            Ok(Loaded {
                csar,
                entry,
                topology,
                xml_entry: Some(entry_doc),
                warnings: diags,
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
    options: &Options,
    sources: &mut SourceMap,
) -> Result<Loaded> {
    let (files, mut diags) =
        yaml::imports::load(&mut csar, &entry, options.limits.max_depth, sources);
    diags.extend(yaml::imports::check_meta(&csar, &files, sources));
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
        ) && d.severity == diagnostics::Severity::Error
    });
    if unreadable || files.files.is_empty() {
        return Err(Error::Input(diags));
    }
    let (topology, d) = model::lower_yaml::lower(&files, &mut csar);
    diags.extend(d);
    match topology {
        Some(topology) if !diags.has_errors() => Ok(Loaded {
            csar,
            entry,
            topology,
            xml_entry: None,
            warnings: diags,
        }),
        _ => Err(Error::Input(diags)),
    }
}

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
    let taken = |k: &PlanKind| {
        topology.dialect != model::Dialect::Xml && topology.workflow(&k.slug()).is_some()
    };
    kinds.extend(
        PlanKind::features()
            .into_iter()
            .filter(|k| plan::features::supported(topology, k) && !taken(k)),
    );
    kinds
}

/// The ordering rules for a topology under these options.
pub fn ordering_rules(topology: &Topology, options: &Options) -> OrderingRules {
    let mut rules = match topology.dialect {
        model::Dialect::Xml => OrderingRules::opentosca(),
        model::Dialect::Yaml(_) => OrderingRules::simple_profile(),
    };
    if let Some(s) = options.same_host_serial {
        rules.same_host_serial = s;
    }
    if let Some(u) = options.unknown_relationships {
        rules.unknown = u;
    }
    rules
}

/// Derive the abstract plans of the given kinds. The build plan is
/// derived once: termination reverses it, and an ordering cycle is
/// reported once, not per plan. Imperative workflows of a YAML topology
/// replace the build (`deploy`) and termination (`undeploy`) plans, and
/// every other one is a `PlanKind::Workflow` plan.
pub fn abstract_plans(
    topology: &Topology,
    kinds: &[PlanKind],
    options: &Options,
) -> Result<Vec<AbstractPlan>> {
    distinct_plan_names(topology, kinds)?;
    let rules = ordering_rules(topology, options);
    let build = plan::build_plan(topology, &rules)?;
    // An imperative `deploy`/`undeploy` replaces the generated plan (TOSCA
    // YAML 1.3 §7.1); every other workflow is a plan of its own.
    let workflow = |name: &str| topology.workflows.iter().position(|w| w.name == name);
    let mut out = Vec::with_capacity(kinds.len());
    for kind in kinds {
        out.push(match kind {
            PlanKind::Build => match workflow("deploy") {
                Some(w) => plan::workflow_plan(topology, w, PlanKind::Build)?,
                None => build.clone(),
            },
            PlanKind::Termination => match workflow("undeploy") {
                Some(w) => plan::workflow_plan(topology, w, PlanKind::Termination)?,
                None => plan::termination_plan(&build, topology)?,
            },
            PlanKind::Workflow(name) => match workflow(name) {
                Some(w) if !matches!(name.as_str(), "deploy" | "undeploy") => {
                    plan::workflow_plan(topology, w, kind.clone())?
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
                Some(region) => plan::scale_out_plan(topology, region)?,
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
        });
    }
    Ok(out)
}

/// A transformation plan, the topology it is derived on (A's templates
/// with those only B has), and for each template whether the plan keeps,
/// terminates or provisions it, and why.
pub struct Transformation {
    /// The plan.
    pub plan: AbstractPlan,
    /// The merged topology the plan is completed and rendered against.
    pub topology: Topology,
    /// One line per template of A and of B: kept, terminated, provisioned.
    pub report: Vec<String>,
    /// What the plan cannot do by itself (W0511).
    pub warnings: Diagnostics,
}

/// Derive the plan that turns a running instance of `a` into one of `b`
/// (see [`plan::transformation_plan`]).
pub fn transformation(a: &Topology, b: &Topology, options: &Options) -> Result<Transformation> {
    use model::{NodeId, RelId, TemplateRef};
    use std::collections::{HashMap, HashSet};
    let m = plan::matching::matching(a, b);
    let kept_nodes: HashMap<NodeId, NodeId> = m.nodes.iter().map(|&(na, nb)| (nb, na)).collect();
    let kept_rels: HashMap<RelId, RelId> =
        m.relationships.iter().map(|&(ra, rb)| (rb, ra)).collect();
    // Each kept template of A and its counterpart in B.
    let a_kept: HashMap<TemplateRef, TemplateRef> = m
        .nodes
        .iter()
        .map(|&(na, nb)| (TemplateRef::Node(na), TemplateRef::Node(nb)))
        .chain(
            m.relationships
                .iter()
                .map(|&(ra, rb)| (TemplateRef::Relationship(ra), TemplateRef::Relationship(rb))),
        )
        .collect();
    let a_templates = || {
        a.node_ids()
            .map(TemplateRef::Node)
            .chain(a.relationship_ids().map(TemplateRef::Relationship))
    };
    let b_nodes: Vec<NodeId> = b
        .node_ids()
        .filter(|n| !kept_nodes.contains_key(n))
        .collect();
    let b_rels: Vec<RelId> = b
        .relationship_ids()
        .filter(|r| !kept_rels.contains_key(r))
        .collect();
    let merged = model::merge::merge(a, b, &kept_nodes, &b_nodes, &b_rels);
    let terminate: HashSet<TemplateRef> =
        a_templates().filter(|t| !a_kept.contains_key(t)).collect();
    let provision: HashSet<TemplateRef> = b_nodes
        .iter()
        .map(|n| TemplateRef::Node(merged.nodes[n]))
        .chain(
            b_rels
                .iter()
                .map(|r| TemplateRef::Relationship(merged.relationships[r])),
        )
        .collect();
    let kind = PlanKind::Transformation(b.service_template.id.clone());
    let rules = ordering_rules(a, options);
    let plan = plan::transformation_plan(&merged.topology, &terminate, &provision, kind, &rules)?;
    let mut report = Vec::new();
    let what = |t: TemplateRef| match t {
        TemplateRef::Node(_) => "node",
        TemplateRef::Relationship(_) => "relationship",
    };
    for t in a_templates() {
        let line = if let Some(&bt) = a_kept.get(&t) {
            let other = b.template_id(bt);
            format!(
                "kept        {} `{}`: it is `{other}` of `{}` (same type{}, on common nodes); nothing runs on it",
                what(t),
                a.template_id(t),
                b.service_template.id,
                if matches!(t, TemplateRef::Node(_)) {
                    ", deployment artifacts and property names"
                } else {
                    ""
                },
            )
        } else {
            format!(
                "terminated  {} `{}`: `{}` has no {} of its type{} between common nodes",
                what(t),
                a.template_id(t),
                b.service_template.id,
                what(t),
                if matches!(t, TemplateRef::Node(_)) {
                    ", deployment artifacts and property names"
                } else {
                    ""
                },
            )
        };
        report.push(line);
    }
    for &n in &b_nodes {
        report.push(format!(
            "provisioned node `{}` (as `{}`): `{}` has no node left with its type, deployment artifacts and property names on the nodes it stands on",
            b.node(n).id,
            merged.topology.node(merged.nodes[&n]).id,
            a.service_template.id
        ));
    }
    for &r in &b_rels {
        report.push(format!(
            "provisioned relationship `{}` (as `{}`): `{}` has none of its type between the counterparts of its ends",
            b.relationship(r).id,
            merged.topology.relationship(merged.relationships[&r]).id,
            a.service_template.id
        ));
    }
    let mut warnings = Diagnostics::new();
    if !b_nodes.is_empty() || !b_rels.is_empty() {
        let added: Vec<String> = b_nodes
            .iter()
            .map(|&n| format!("`{}`", b.node(n).id))
            .chain(
                b_rels
                    .iter()
                    .map(|&r| format!("`{}`", b.relationship(r).id)),
            )
            .collect();
        warnings.push(
            diagnostics::Diagnostic::warning(
                codes::W_TRANSFORM_FOREIGN,
                format!(
                    "the transformation plan registers the instances of templates only `{}` defines ({}) in the service instance of `{}`, and invokes their operations through `{}`'s service template",
                    b.service_template.id,
                    added.join(", "),
                    a.service_template.id,
                    a.service_template.id
                ),
            )
            // At the first of them in the target's file.
            .at_opt(
                b_nodes
                    .iter()
                    .map(|&n| b.node(n).origin.clone())
                    .chain(b_rels.iter().map(|&r| b.relationship(r).origin.clone()))
                    .flatten()
                    .next(),
            )
            .note("the plan runs against a container that accepts them (the engine harness's mock does); the OpenTOSCA container's instance API and management bus know only the templates and artifacts of the CSAR the plan belongs to")
            .hint(format!(
                "deploy the plan with a CSAR whose service template `{}` also defines them, or provision `{}` anew",
                a.service_template.id, b.service_template.id
            )),
        );
    }
    Ok(Transformation {
        plan,
        topology: merged.topology,
        report,
        warnings,
    })
}

/// A management-feature plan, derived from the build plan (defrost, test),
/// the termination plan (freeze, backup) or both (update); an error naming what is
/// missing when no node supports it.
fn feature_plan(
    topology: &Topology,
    kind: &PlanKind,
    build: &AbstractPlan,
) -> Result<AbstractPlan> {
    if !plan::features::supported(topology, kind) {
        return Err(diagnostics::Diagnostic::error(
            codes::PLAN_UNSUPPORTED,
            format!(
                "no {} plan can be made for `{}`: {}",
                kind.slug(),
                topology.service_template.id,
                plan::features::missing(topology, kind)
            ),
        )
        .hint("leave the plan out of --plans; `all` (the default) generates only the plans the topology supports")
        .into());
    }
    Ok(match kind {
        PlanKind::Defrost => plan::defrost_plan(build, topology)?,
        PlanKind::Test => plan::test_plan(build, topology)?,
        PlanKind::Freeze => plan::freeze_plan(&plan::termination_plan(build, topology)?, topology)?,
        PlanKind::Update => {
            plan::update_plan(build, &plan::termination_plan(build, topology)?, topology)?
        }
        _ => plan::backup_plan(&plan::termination_plan(build, topology)?, topology)?,
    })
}

/// Plans are named after their workflow or region in the letters a plan
/// name can hold (`w 1` and `w_1` are both `…_workflow_w_1`): two of them
/// with one name would be one plan archive, the second written over the
/// first.
fn distinct_plan_names(topology: &Topology, kinds: &[PlanKind]) -> Result<()> {
    feature_names_free(topology, kinds)?;
    let mut seen: std::collections::HashMap<String, &PlanKind> = std::collections::HashMap::new();
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
        return Err(diagnostics::Diagnostic::error(
            codes::PLAN_NAME_CLASH,
            format!(
                "{what} `{}` and `{}` would both be plan `{}`",
                name(first),
                name(kind),
                render::plan_name(topology, kind)
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
    if topology.dialect == model::Dialect::Xml {
        return Ok(());
    }
    for kind in kinds.iter().filter(|k| PlanKind::features().contains(k)) {
        let workflow = PlanKind::Workflow(kind.slug());
        if kinds.contains(&workflow) {
            let origin = topology
                .workflow(&kind.slug())
                .and_then(|w| w.origin.clone());
            return Err(diagnostics::Diagnostic::error(
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

/// Derive and complete the plans of the given kinds.
pub fn derive(
    topology: &Topology,
    kinds: &[PlanKind],
    registry: &Registry,
    options: &Options,
) -> Result<(Vec<ConcretePlan>, Diagnostics)> {
    let mut diags = Diagnostics::new();
    let mut plans = Vec::new();
    for abs in abstract_plans(topology, kinds, options)? {
        let (plan, d) = plugins::complete(topology, abs, registry, &options.complete);
        diags.extend(d);
        plans.extend(plan);
    }
    if diags.has_errors() {
        return Err(Error::Input(diags));
    }
    Ok((plans, diags))
}
