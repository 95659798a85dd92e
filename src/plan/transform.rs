//! From two topologies to the transformation plan between them: which
//! templates the two share (`plan::matching`), the merged topology the plan
//! runs on (`model::merge`), the plan itself
//! ([`transformation_plan`]), and for each template the sentence that says
//! whether it is kept, terminated or provisioned and why (`--explain`).
//!
//! In: topologies A and B and the ordering rules. Out: the plan, the merged
//! topology, the report, and the warning for templates only B defines.

use foldhash::{HashMap, HashSet};

use super::{AbstractPlan, OrderingRules, PlanKind, transformation_plan};
use crate::diagnostics::Diagnostics;
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
    /// What the plan cannot do by itself (none today).
    pub warnings: Diagnostics,
}

/// Derive the plan that turns a running instance of `a` into one of `b`,
/// whose CSAR the container knows as `b_csar` (see [`transformation_plan`]).
pub fn transformation(
    a: &Topology,
    b: &Topology,
    b_csar: &str,
    rules: &OrderingRules,
) -> Result<Transformation> {
    if !a.replicas.is_empty() || !b.replicas.is_empty() {
        return Err(crate::error::Error::Usage(
            "a transformation between topologies with node template counts (TOSCA 2.0 §7.2) is not supported: which representation of A becomes which of B is not defined".into(),
        ));
    }
    let d = Difference::new(a, b);
    let merged = model::merge::merge(a, b, b_csar, &d.kept_in_b, &d.kept_rels);
    let terminate: HashSet<TemplateRef> = templates(a)
        .filter(|t| !d.kept_in_a.contains_key(t))
        .collect();
    let kind = PlanKind::Transformation(b.service_template.id.clone());
    let plan = transformation_plan(&merged.topology, &terminate, kind, rules)?;
    let mut report: Vec<String> = templates(a).map(|t| a_line(a, b, &d, t)).collect();
    report.extend(b_lines(a, b, &d, &merged));
    Ok(Transformation {
        plan,
        warnings: Diagnostics::new(),
        topology: merged.topology,
        report,
    })
}

/// What A and B share, and what only B has.
struct Difference {
    /// Each kept node of B and its counterpart in A.
    kept_in_b: HashMap<NodeId, NodeId>,
    /// Each kept relationship of B and its counterpart in A.
    kept_rels: HashMap<RelId, RelId>,
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
        let kept_rels: HashMap<RelId, RelId> =
            m.relationships.iter().map(|&(ra, rb)| (rb, ra)).collect();
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
            .filter(|r| !kept_rels.contains_key(r))
            .collect();
        Difference {
            kept_in_b,
            kept_rels,
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
            "kept        {} `{}`: it is `{}` of `{}` (same type{compared}, on common nodes); nothing runs on it, its instance is migrated",
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
