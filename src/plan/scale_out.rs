//! Scale-out plans (seed 004; anchor-opentosca.md §2): provision one more
//! instance of a region. First each border node's instance is picked by its
//! selection strategy (strategic selection), then the instances below it
//! are found by following relationship instances down its hosting and
//! dependency paths (recursive selection); then the region's templates are
//! provisioned in build order, the relationships that cross the border
//! after the selections they need.

use foldhash::{HashMap, HashSet};
use std::collections::BTreeSet;

use super::build::finish;
use super::{AbstractPlan, Activity, ActivityKind, Edge, PlanKind, Reason, Strategy};
use crate::diagnostics::{Diagnostic, Diagnostics, codes};
use crate::model::{NodeId, RelId, RelKind, ScalingRegion, TemplateRef, Topology};
use crate::names::{Unique, ncname};

/// Derive the scale-out plan of `region`.
pub fn scale_out_plan(
    topology: &Topology,
    region: &ScalingRegion,
) -> Result<AbstractPlan, Diagnostics> {
    let r = Region::new(topology, region);
    let diags = r.check();
    if diags.has_errors() {
        return Err(diags);
    }
    let mut plan = Plan::default();
    let leaves_of = plan.select(&r);
    let provision = plan.provision(&r);
    plan.order_relationships(&r, &provision, &leaves_of);
    finish(
        PlanKind::ScaleOut(region.name.clone()),
        plan.activities,
        plan.edges.into_iter().collect(),
        topology,
    )
    .map_err(Diagnostics::from)
}

/// A scaling region and the sets it is looked up by.
struct Region<'t> {
    topology: &'t Topology,
    region: &'t ScalingRegion,
    /// The nodes the plan provisions.
    inside: HashSet<NodeId>,
    /// The border nodes that have a selection strategy.
    selected: HashSet<NodeId>,
}

impl<'t> Region<'t> {
    fn new(topology: &'t Topology, region: &'t ScalingRegion) -> Self {
        Region {
            topology,
            region,
            inside: region.nodes.iter().copied().collect(),
            selected: region.selections.iter().map(|s| s.node).collect(),
        }
    }

    fn error(&self, message: String) -> Diagnostic {
        Diagnostic::error(codes::REGION_INVALID, message).at_opt(self.region.origin.clone())
    }

    /// Whether a plan can be made: selections outside the region and one
    /// per node, a selected node at every border crossing, and every
    /// hosting or dependency relationship of a new instance in the region.
    fn check(&self) -> Diagnostics {
        let mut diags = Diagnostics::new();
        self.check_selections(&mut diags);
        self.check_border(&mut diags);
        self.check_placement(&mut diags);
        diags
    }

    fn check_selections(&self, diags: &mut Diagnostics) {
        let name = &self.region.name;
        let mut seen = HashSet::default();
        for s in &self.region.selections {
            let id = &self.topology.node(s.node).id;
            if self.inside.contains(&s.node) {
                diags.push(self.error(format!(
                    "scaling plan `{name}` selects `{id}`, which is inside the region it provisions"
                )));
            }
            if !seen.insert(s.node) {
                diags.push(self.error(format!(
                    "scaling plan `{name}` gives `{id}` more than one selection strategy"
                )));
            }
        }
    }

    /// Every relationship that crosses the border must end at a node whose
    /// instance is selected (OpenTOSCA computes this and ignores it).
    fn check_border(&self, diags: &mut Diagnostics) {
        let (topology, name) = (self.topology, &self.region.name);
        for &r in &self.region.relationships {
            let rel = topology.relationship(r);
            let (s_in, t_in) = (
                self.inside.contains(&rel.source),
                self.inside.contains(&rel.target),
            );
            let outside = match (s_in, t_in) {
                (true, true) => continue,
                (true, false) => rel.target,
                (false, true) => rel.source,
                (false, false) => {
                    diags.push(self.error(format!(
                        "scaling plan `{name}` lists relationship `{}`, but neither `{}` nor `{}` is in the region",
                        rel.id,
                        topology.node(rel.source).id,
                        topology.node(rel.target).id
                    )));
                    continue;
                }
            };
            if !self.selected.contains(&outside) {
                diags.push(
                    self.error(format!(
                        "relationship `{}` of scaling plan `{name}` crosses the region's border to `{}`, which has no selection strategy",
                        rel.id,
                        topology.node(outside).id
                    ))
                    .hint(format!("add a strategy for it, e.g. FirstInstance[{}], or put it into the region", topology.node(outside).id)),
                );
            }
        }
    }

    /// A new instance must be placed: its outgoing hosting and dependency
    /// relationships have to be part of the region.
    fn check_placement(&self, diags: &mut Diagnostics) {
        let (topology, name) = (self.topology, &self.region.name);
        let listed: HashSet<RelId> = self.region.relationships.iter().copied().collect();
        for &n in &self.region.nodes {
            for &r in topology.outgoing(n) {
                let rel = topology.relationship(r);
                if rel.kind.is_infrastructure() && !listed.contains(&r) {
                    diags.push(self.error(format!(
                        "`{}` is in scaling plan `{name}`, but its {} relationship `{}` to `{}` is not",
                        topology.node(n).id,
                        rel.kind,
                        rel.id,
                        topology.node(rel.target).id
                    )));
                }
            }
        }
    }
}

/// The scale-out plan while it is made.
#[derive(Default)]
struct Plan {
    unique: Unique,
    activities: Vec<Activity>,
    edges: BTreeSet<Edge>,
}

impl Plan {
    fn add(&mut self, base: String, template: TemplateRef, kind: ActivityKind) -> usize {
        self.activities.push(Activity {
            id: self.unique.name(base),
            template,
            kind,
        });
        self.activities.len() - 1
    }

    fn edge(&mut self, from: usize, to: usize, reason: Reason) {
        self.edges.insert(Edge { from, to, reason });
    }

    /// Strategic selections, then recursive ones down every infrastructure
    /// path that leaves the region; for each selected node, the activities
    /// that end its paths (what the region's relationships wait for).
    fn select(&mut self, r: &Region) -> HashMap<NodeId, Vec<usize>> {
        let topology = r.topology;
        let mut leaves_of: HashMap<NodeId, Vec<usize>> = HashMap::default();
        let mut followed: HashSet<RelId> = HashSet::default();
        for s in &r.region.selections {
            let sel = self.add(
                format!("{}_select", ncname(&topology.node(s.node).id)),
                TemplateRef::Node(s.node),
                ActivityKind::StrategicSelection(Box::new(Strategy {
                    strategy: s.strategy.clone(),
                    argument: s.argument.clone(),
                })),
            );
            let mut leaves = Vec::new();
            let mut frontier = vec![(s.node, sel)];
            while let Some((n, from)) = frontier.pop() {
                let mut descended = false;
                for &rid in topology.outgoing(n) {
                    let rel = topology.relationship(rid);
                    if !rel.kind.is_infrastructure()
                        || r.selected.contains(&rel.target)
                        || r.inside.contains(&rel.target)
                    {
                        continue;
                    }
                    if !followed.insert(rid) {
                        continue;
                    }
                    let a = self.add(
                        format!("{}_follow", ncname(&rel.id)),
                        TemplateRef::Relationship(rid),
                        ActivityKind::RecursiveSelection,
                    );
                    self.edge(from, a, Reason::Selection);
                    frontier.push((rel.target, a));
                    descended = true;
                }
                if !descended {
                    leaves.push(from);
                }
            }
            leaves_of.insert(s.node, leaves);
        }
        leaves_of
    }

    /// The region's provisioning activities, by template, so that ordering
    /// stays linear in the region's size.
    fn provision(&mut self, r: &Region) -> HashMap<TemplateRef, usize> {
        let topology = r.topology;
        let mut provision: HashMap<TemplateRef, usize> = HashMap::default();
        for &n in &r.region.nodes {
            let a = self.add(
                format!("{}_provision", ncname(&topology.node(n).id)),
                TemplateRef::Node(n),
                ActivityKind::Provision,
            );
            provision.insert(TemplateRef::Node(n), a);
        }
        for &rid in &r.region.relationships {
            let a = self.add(
                format!("{}_provision", ncname(&topology.relationship(rid).id)),
                TemplateRef::Relationship(rid),
                ActivityKind::Provision,
            );
            provision.insert(TemplateRef::Relationship(rid), a);
        }
        provision
    }

    /// The region in build order: a relationship after its ends (the
    /// provisioned node, or the selections below a border node); a
    /// hosting or dependency relationship before its source if that is a
    /// new instance, and both ends of a ConnectsTo before it.
    fn order_relationships(
        &mut self,
        r: &Region,
        provision: &HashMap<TemplateRef, usize>,
        leaves_of: &HashMap<NodeId, Vec<usize>>,
    ) {
        for &rid in &r.region.relationships {
            let rel = r.topology.relationship(rid);
            let reason = Reason::Relationship(rid);
            let ra = provision[&TemplateRef::Relationship(rid)];
            let end = |n: NodeId| {
                if r.inside.contains(&n) {
                    vec![provision[&TemplateRef::Node(n)]]
                } else {
                    leaves_of.get(&n).cloned().unwrap_or_default()
                }
            };
            let sources = end(rel.source);
            let targets = end(rel.target);
            match rel.kind {
                RelKind::ConnectsTo => {
                    for a in sources.into_iter().chain(targets) {
                        self.edge(a, ra, reason);
                    }
                }
                _ => {
                    for t in targets {
                        self.edge(t, ra, reason);
                    }
                    let inside = r.inside.contains(&rel.source);
                    for s in sources {
                        if inside {
                            self.edge(ra, s, reason);
                        } else {
                            self.edge(s, ra, reason);
                        }
                    }
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::Selection;

    /// `app` hosted on `vm`, hosted on `host`; `db` beside them.
    fn topology() -> Topology {
        let yaml = "tosca_definitions_version: tosca_simple_yaml_1_3\n\
            topology_template:\n  node_templates:\n    \
            host: {type: tosca.nodes.Compute}\n    \
            vm:\n      type: tosca.nodes.SoftwareComponent\n      requirements: [{host: host}]\n    \
            app:\n      type: tosca.nodes.SoftwareComponent\n      requirements: [{host: vm}]\n    \
            db: {type: tosca.nodes.Compute}\n";
        crate::model::lower_yaml::topology_of(yaml)
    }

    fn region(t: &Topology, nodes: &[&str], rels: &[&str], selected: &[&str]) -> ScalingRegion {
        ScalingRegion {
            name: "more".into(),
            nodes: nodes.iter().map(|n| t.node_by_id(n).unwrap()).collect(),
            relationships: rels
                .iter()
                .map(|r| {
                    t.relationship_ids()
                        .find(|&i| t.relationship(i).id == *r)
                        .unwrap()
                })
                .collect(),
            selections: selected
                .iter()
                .map(|n| Selection {
                    node: t.node_by_id(n).unwrap(),
                    strategy: "FirstInstance".into(),
                    argument: None,
                })
                .collect(),
            origin: None,
        }
    }

    #[test]
    fn a_border_node_without_strategy_and_an_unplaced_node_are_errors() {
        let t = topology();
        let r = region(&t, &["app"], &["app_host"], &[]);
        let d = Region::new(&t, &r).check();
        let m: Vec<&str> = d.iter().map(|d| d.message.as_str()).collect();
        assert_eq!(m.len(), 1, "{m:?}");
        assert!(
            m[0].contains("crosses the region's border to `vm`"),
            "{m:?}"
        );
        let r = region(&t, &["app"], &[], &["vm", "vm"]);
        let m: Vec<String> = Region::new(&t, &r)
            .check()
            .iter()
            .map(|d| d.message.clone())
            .collect();
        assert!(
            m.iter()
                .any(|m| m.contains("more than one selection strategy")),
            "{m:?}"
        );
        assert!(
            m.iter()
                .any(|m| m.contains("its HostedOn relationship `app_host`")),
            "{m:?}"
        );
    }

    #[test]
    fn selects_down_the_hosting_path_then_provisions_after_it() {
        let t = topology();
        let r = region(&t, &["app"], &["app_host"], &["vm"]);
        let plan = scale_out_plan(&t, &r).unwrap();
        let ids: Vec<&str> = plan.activities.iter().map(|a| a.id.as_str()).collect();
        let at = |id: &str| {
            ids.iter()
                .position(|i| *i == id)
                .unwrap_or_else(|| panic!("{id} in {ids:?}"))
        };
        // vm is selected, its host found through vm_host; app is provisioned,
        // then its hosting relationship to the selected vm.
        assert!(at("vm_select") < at("vm_host_follow"));
        assert!(at("vm_host_follow") < at("app_host_provision"));
        assert!(at("app_host_provision") < at("app_provision"));
        assert!(!ids.iter().any(|i| i.starts_with("db")));
    }
}
