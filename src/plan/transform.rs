//! From two topologies to the transformation plan between them: which
//! templates the two share ([`super::matching`]), the merged topology the plan
//! runs on ([`crate::model::merge`]), the plan itself
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
    let m = super::matching::matching(a, b);
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
        templates(a).filter(|t| !a_kept.contains_key(t)).collect();
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
    let plan = transformation_plan(&merged.topology, &terminate, &provision, kind, rules)?;
    let report = report(a, b, &a_kept, &b_nodes, &b_rels, &merged);
    let warnings = foreign_warning(a, b, &b_nodes, &b_rels);
    Ok(Transformation {
        plan,
        topology: merged.topology,
        report,
        warnings,
    })
}

/// The node, then the relationship templates of `t`.
fn templates(t: &Topology) -> impl Iterator<Item = TemplateRef> + '_ {
    t.node_ids()
        .map(TemplateRef::Node)
        .chain(t.relationship_ids().map(TemplateRef::Relationship))
}

/// One line per template: each of A kept (`a_kept`: its counterpart in B)
/// or terminated, then each of B provisioned (as its copy in `merged`).
fn report(
    a: &Topology,
    b: &Topology,
    a_kept: &HashMap<TemplateRef, TemplateRef>,
    b_nodes: &[NodeId],
    b_rels: &[RelId],
    merged: &model::merge::Merged,
) -> Vec<String> {
    let mut report = Vec::new();
    let what = |t: TemplateRef| match t {
        TemplateRef::Node(_) => "node",
        TemplateRef::Relationship(_) => "relationship",
    };
    for t in templates(a) {
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
    for &n in b_nodes {
        report.push(format!(
            "provisioned node `{}` (as `{}`): `{}` has no node left with its type, deployment artifacts and property names on the nodes it stands on",
            b.node(n).id,
            merged.topology.node(merged.nodes[&n]).id,
            a.service_template.id
        ));
    }
    for &r in b_rels {
        report.push(format!(
            "provisioned relationship `{}` (as `{}`): `{}` has none of its type between the counterparts of its ends",
            b.relationship(r).id,
            merged.topology.relationship(merged.relationships[&r]).id,
            a.service_template.id
        ));
    }
    report
}

/// The warning that the plan registers templates only B defines (none
/// when B adds nothing).
fn foreign_warning(
    a: &Topology,
    b: &Topology,
    b_nodes: &[NodeId],
    b_rels: &[RelId],
) -> Diagnostics {
    let mut warnings = Diagnostics::new();
    if b_nodes.is_empty() && b_rels.is_empty() {
        return warnings;
    }
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
    warnings
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::csar::Csar;

    fn topology(name: &str, nodes: &str) -> Topology {
        let yaml = format!(
            "tosca_definitions_version: tosca_simple_yaml_1_3\nmetadata: {{template_name: {name}}}\n\
             topology_template:\n  node_templates:\n{nodes}"
        );
        let mut csar = Csar::from_entries("t", [("s.yaml".to_string(), yaml.into_bytes())]);
        let mut sources = crate::diagnostics::SourceMap::default();
        let (loaded, _) = crate::yaml::imports::load(&mut csar, "s.yaml", 64, &mut sources);
        crate::model::lower_yaml::lower(&loaded, &mut csar)
            .0
            .unwrap()
    }

    #[test]
    fn reports_kept_terminated_and_provisioned_templates() {
        let a = topology(
            "A",
            "    vm: {type: tosca.nodes.Compute}\n    old: {type: tosca.nodes.Root}\n",
        );
        let b = topology(
            "B",
            "    vm: {type: tosca.nodes.Compute}\n    new: {type: tosca.nodes.SoftwareComponent, requirements: [{host: vm}]}\n",
        );
        let t = transformation(&a, &b, &OrderingRules::simple_profile()).unwrap();
        let starts: Vec<&str> = t
            .report
            .iter()
            .map(|l| l.split(':').next().unwrap())
            .collect();
        assert_eq!(
            starts,
            [
                "kept        node `vm`",
                "terminated  node `old`",
                "provisioned node `new` (as `new`)",
                "provisioned relationship `new_host` (as `new_host`)",
            ]
        );
        let w: Vec<&str> = t.warnings.iter().map(|d| d.message.as_str()).collect();
        assert_eq!(w.len(), 1);
        assert!(
            w[0].contains("only `B` defines (`new`, `new_host`)"),
            "{w:?}"
        );
        assert!(foreign_warning(&a, &b, &[], &[]).is_empty());
    }
}
