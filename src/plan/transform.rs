//! From two topologies to the transformation plan between them: which
//! templates the two share (`plan::matching`), the merged topology the plan
//! runs on (`model::merge`), the plan itself
//! ([`transformation_plan`]), and for each template the sentence that says
//! whether it is kept, terminated or provisioned and why (`--explain`).
//!
//! In: topologies A and B and the ordering rules. Out: the plan, the merged
//! topology, the report, and the warning for templates only B defines.

use std::collections::{HashMap, HashSet};

use super::{AbstractPlan, OrderingRules, PlanKind, transformation_plan};
use crate::diagnostics::{Diagnostic, Diagnostics, codes};
use crate::error::Result;
use crate::model::{self, NodeId, RelId, TemplateRef, Topology};

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
/// (see [`transformation_plan`]).
pub fn transformation(a: &Topology, b: &Topology, rules: &OrderingRules) -> Result<Transformation> {
    let d = Difference::new(a, b);
    let merged = model::merge::merge(a, b, &d.kept_in_b, &d.b_nodes, &d.b_rels);
    let terminate: HashSet<TemplateRef> = templates(a)
        .filter(|t| !d.kept_in_a.contains_key(t))
        .collect();
    let provision: HashSet<TemplateRef> = d
        .b_nodes
        .iter()
        .map(|n| TemplateRef::Node(merged.nodes[n]))
        .chain(
            d.b_rels
                .iter()
                .map(|r| TemplateRef::Relationship(merged.relationships[r])),
        )
        .collect();
    let kind = PlanKind::Transformation(b.service_template.id.clone());
    let plan = transformation_plan(&merged.topology, &terminate, &provision, kind, rules)?;
    let mut report: Vec<String> = templates(a).map(|t| a_line(a, b, &d, t)).collect();
    report.extend(b_lines(a, b, &d, &merged));
    Ok(Transformation {
        plan,
        warnings: foreign_warning(a, b, &d),
        topology: merged.topology,
        report,
    })
}

/// What A and B share, and what only B has.
struct Difference {
    /// Each kept node of B and its counterpart in A.
    kept_in_b: HashMap<NodeId, NodeId>,
    /// Each kept template of A and its counterpart in B.
    kept_in_a: HashMap<TemplateRef, TemplateRef>,
    /// The nodes and relationships only B has.
    b_nodes: Vec<NodeId>,
    b_rels: Vec<RelId>,
}

impl Difference {
    fn new(a: &Topology, b: &Topology) -> Difference {
        let m = super::matching::matching(a, b);
        let kept_in_b: HashMap<NodeId, NodeId> = m.nodes.iter().map(|&(na, nb)| (nb, na)).collect();
        let kept_rels: HashSet<RelId> = m.relationships.iter().map(|&(_, rb)| rb).collect();
        let kept_in_a =
            m.nodes
                .iter()
                .map(|&(na, nb)| (TemplateRef::Node(na), TemplateRef::Node(nb)))
                .chain(m.relationships.iter().map(|&(ra, rb)| {
                    (TemplateRef::Relationship(ra), TemplateRef::Relationship(rb))
                }))
                .collect();
        let b_nodes = b
            .node_ids()
            .filter(|n| !kept_in_b.contains_key(n))
            .collect();
        let b_rels = b
            .relationship_ids()
            .filter(|r| !kept_rels.contains(r))
            .collect();
        Difference {
            kept_in_b,
            kept_in_a,
            b_nodes,
            b_rels,
        }
    }
}

/// The templates of `t`: nodes, then relationships.
fn templates(t: &Topology) -> impl Iterator<Item = TemplateRef> + '_ {
    t.node_ids()
        .map(TemplateRef::Node)
        .chain(t.relationship_ids().map(TemplateRef::Relationship))
}

fn what(t: TemplateRef) -> &'static str {
    match t {
        TemplateRef::Node(_) => "node",
        TemplateRef::Relationship(_) => "relationship",
    }
}

/// The report line of a template of A: kept or terminated, and why.
fn a_line(a: &Topology, b: &Topology, d: &Difference, t: TemplateRef) -> String {
    let compared = if matches!(t, TemplateRef::Node(_)) {
        ", deployment artifacts and property names"
    } else {
        ""
    };
    match d.kept_in_a.get(&t) {
        Some(&bt) => format!(
            "kept        {} `{}`: it is `{}` of `{}` (same type{compared}, on common nodes); nothing runs on it",
            what(t),
            a.template_id(t),
            b.template_id(bt),
            b.service_template.id,
        ),
        None => format!(
            "terminated  {} `{}`: `{}` has no {} of its type{compared} between common nodes",
            what(t),
            a.template_id(t),
            b.service_template.id,
            what(t),
        ),
    }
}

/// The report lines of the templates only B has: provisioned, and why.
fn b_lines(
    a: &Topology,
    b: &Topology,
    d: &Difference,
    merged: &model::merge::Merged,
) -> Vec<String> {
    let nodes = d.b_nodes.iter().map(|&n| {
        format!(
            "provisioned node `{}` (as `{}`): `{}` has no node left with its type, deployment artifacts and property names on the nodes it stands on",
            b.node(n).id,
            merged.topology.node(merged.nodes[&n]).id,
            a.service_template.id
        )
    });
    let rels = d.b_rels.iter().map(|&r| {
        format!(
            "provisioned relationship `{}` (as `{}`): `{}` has none of its type between the counterparts of its ends",
            b.relationship(r).id,
            merged.topology.relationship(merged.relationships[&r]).id,
            a.service_template.id
        )
    });
    nodes.chain(rels).collect()
}

/// W0511 when B adds templates: the container knows only A's.
fn foreign_warning(a: &Topology, b: &Topology, d: &Difference) -> Diagnostics {
    let mut warnings = Diagnostics::new();
    if d.b_nodes.is_empty() && d.b_rels.is_empty() {
        return warnings;
    }
    let added: Vec<String> = d
        .b_nodes
        .iter()
        .map(|&n| format!("`{}`", b.node(n).id))
        .chain(
            d.b_rels
                .iter()
                .map(|&r| format!("`{}`", b.relationship(r).id)),
        )
        .collect();
    warnings.push(
        Diagnostic::warning(
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
            d.b_nodes
                .iter()
                .map(|&n| b.node(n).origin.clone())
                .chain(d.b_rels.iter().map(|&r| b.relationship(r).origin.clone()))
                .flatten()
                .next(),
        )
        .note("the plan runs against a container that accepts them (the engine harness's mock does); the OpenTOSCA container's instance API and management bus know only the templates and artifacts of the CSAR the plan belongs to")
        .hint(format!(
            "deploy the plan with a CSAR whose service template `{}` also defines them, or provision `{}` anew",
            a.service_template.id, b.service_template.id
        )),
    );
    warnings
}
