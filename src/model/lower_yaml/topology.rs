//! The topology template as a whole: the order in which its parts are
//! lowered, and its inputs, outputs and service template name.
//!
//! In: the entry file and its topology template. Out: the [`Topology`]:
//! node templates first, then the relationships of their requirements
//! (which need every node numbered), then what reads the finished
//! topology (entity keywords, attributes, delegation, groups, policies,
//! substitution, workflows).

use foldhash::{HashMap, HashSet};
use std::collections::BTreeSet;
use std::sync::Arc;

use super::entities::{ByRequirement, Hops, resolve_entities, resolve_value};
use super::fulfil::Pool;
use super::requirements::{Targets, Wiring};
use super::{Lowerer, This, Unit};
use crate::diagnostics::{Diagnostic, codes};
use crate::model::{
    Dialect, InputDef, NodeId, NodeTemplate, OutputDef, ServiceTemplateInfo, Topology,
};
use crate::yaml::ast::{self, File};

/// The node templates lowered so far.
pub(super) struct Nodes<'a> {
    /// The model's nodes: the templates', then the delegated targets'.
    pub(super) nodes: Vec<NodeTemplate>,
    /// Node ids by template name.
    pub(super) ids: HashMap<String, NodeId>,
    /// Templates whose type is missing or broken (reported).
    pub(super) failed: BTreeSet<String>,
    /// The templates lowered, with their type keys, in node id order (a
    /// key shared by the templates of its type).
    pub(super) asts: Vec<(&'a ast::NodeTemplate, Arc<str>)>,
}

impl<'a> Lowerer<'a> {
    pub(super) fn topology(&mut self, entry: &'a File, topo: &'a ast::Topology) -> Topology {
        let unit = self.units[self.entry];
        self.collect_names(topo);
        let node_templates: Vec<&ast::NodeTemplate> = topo.node_templates.iter().collect();
        let counts = self.counts(&node_templates, unit);
        let mut nodes = self.node_templates(&node_templates, unit);
        let base = nodes.asts.len();
        let wiring = self.wire(&nodes, topo, unit);
        self.delegated_targets(&wiring.synthetic, &mut nodes);
        self.warn_unused_templates(topo, &wiring.used_templates, unit);
        let (relationships, by_requirement) = self.relationships(wiring, &nodes, base);
        self.mark_provided(&mut nodes.nodes[..base]);
        let inlined = self.substitutes(&mut nodes);
        let mut topology = Topology::new(
            Dialect::Yaml(entry.version.name().to_string()),
            service_template_info(entry),
            std::mem::take(&mut self.types),
            nodes.nodes,
            relationships,
        );
        // Entity keywords and requirement/capability hops, now that every
        // relationship is known.
        let reached = std::mem::take(&mut self.rel_reached);
        resolve_entities(
            &mut topology,
            &Hops {
                by_requirement: &by_requirement,
                caps: &self.capability_values,
                cap_names: &self.capability_names,
                reached: &reached,
            },
        );
        self.rel_reached = reached;
        self.check_weaving(&topology);
        self.check_artifact_calls(&topology);
        self.inputs(&mut topology, topo, unit);
        self.outputs(&mut topology, topo, unit, &by_requirement);
        self.operation_outputs(&mut topology);
        self.delegated_attributes(&mut topology);
        // A substituted node's reads are what its substitution gives (or
        // plan inputs, with W0414): `splice` says so.
        let substituted: Vec<NodeId> = inlined.iter().map(|s| s.node).collect();
        self.warn_unknown_attributes(&topology, topo, unit, &substituted);
        self.warn_delegated(&topology, base);
        self.groups(&mut topology, topo, unit);
        self.policies(&mut topology, topo, unit);
        let (regions, d) = crate::model::regions_from_policies(&topology);
        self.diags.extend(d);
        topology.regions = regions;
        if let Some(s) = &topo.substitution {
            topology.substitution = self.substitution(&topology, (s, topo), unit);
        }
        let workflows = super::workflows::lower(self, &topology, topo, unit);
        topology.workflows = workflows;
        let mut topology = self.splice(topology, inlined);
        self.replicate(&mut topology, &counts);
        topology
    }

    /// Make the representations the counts ask for. A substituting
    /// template's counts are not used (its templates are spliced into
    /// another topology): one representation each, with a warning.
    fn replicate(&mut self, topology: &mut Topology, counts: &[(String, u32)]) {
        let top_level = self.stack.len() <= 1;
        let mut found = Vec::new();
        for (name, k) in counts {
            match topology.node_by_id(name) {
                Some(n) if top_level => found.push((n, *k)),
                Some(n) => {
                    found.push((n, 1));
                    if *k > 1 {
                        self.diags.push(
                            Diagnostic::warning(
                                codes::W_IGNORED,
                                format!("the `count` of node template `{name}` is not used in a substituting template: the plans create one representation"),
                            )
                            .at_opt(topology.node(n).origin.clone())
                            .hint("give the count to the substituted node instead"),
                        );
                    }
                }
                // Substituted itself: its templates took its place.
                None => {}
            }
        }
        let indexed = self.indexed(topology, &found);
        crate::model::replicate::replicate(topology, &found, &indexed);
    }

    /// The relationships that reach one representation of their target,
    /// each checked: the representation its index names must exist (for
    /// `$node_index`, one for each of the source's). Where allocations
    /// decide the targets (`rep_allocation.rs`), they take precedence.
    fn indexed(
        &mut self,
        topology: &Topology,
        counts: &[(NodeId, u32)],
    ) -> Vec<(crate::model::RelId, crate::model::replicate::Index)> {
        use crate::model::replicate::Index;
        let counted: HashMap<NodeId, u32> = counts.iter().copied().collect();
        let count_of = |n: NodeId| counted.get(&n).copied().unwrap_or(1);
        let by_id: HashMap<&str, crate::model::RelId> = topology
            .relationship_ids()
            .map(|r| (topology.relationship(r).id.as_str(), r))
            .collect();
        let mut out = indexmap::IndexMap::new();
        for (id, index, at) in std::mem::take(&mut self.indexed_targets) {
            let Some(&r) = by_id.get(id.as_str()) else {
                continue;
            };
            let rel = topology.relationship(r);
            let (source, target) = (count_of(rel.source), count_of(rel.target));
            let (last, index) = match index {
                ast::NodeIndex::Fixed(k) => (k, Index::Fixed(k)),
                ast::NodeIndex::Same => (source - 1, Index::Same),
            };
            if last >= target {
                let t = &topology.node(rel.target).id;
                let asked = match index {
                    Index::Fixed(k) => format!("representation {k} of `{t}`"),
                    _ => format!(
                        "representation {last} of `{t}` for `{}`'s representation {last} (`$node_index`)",
                        topology.node(rel.source).id
                    ),
                };
                self.diags.push(
                    Diagnostic::error(
                        codes::DANGLING_REFERENCE,
                        format!(
                            "relationship `{id}` asks for {asked}, but `{t}` has {target} (indexes 0 to {})",
                            target - 1
                        ),
                    )
                    .at(at)
                    .hint("give the target a larger `count`, or name a representation it has"),
                );
                continue;
            }
            out.insert(r, index);
        }
        out.extend(self.allocation_tables(topology, &by_id, &count_of));
        out.into_iter().collect()
    }

    /// The names values and calls may refer to: inputs (of the topology
    /// and its workflows), node templates and relationship templates.
    fn collect_names(&mut self, topo: &'a ast::Topology) {
        self.inputs = topo.inputs.iter().map(|i| i.name.text.clone()).collect();
        for w in &topo.workflows {
            for i in &w.inputs {
                self.inputs.insert(i.name.text.clone());
            }
        }
        // Duplicate names are errors (2.0 §6.9); the YAML reader already
        // refuses duplicate keys, so only cross-section clashes remain.
        self.node_names = topo
            .node_templates
            .iter()
            .map(|n| n.name.text.clone())
            .collect();
        self.multiple_nodes = topo
            .node_templates
            .iter()
            .filter(|n| n.multiple)
            .map(|n| n.name.text.clone())
            .collect();
        self.counted_nodes = topo
            .node_templates
            .iter()
            .filter(|n| n.multiple && n.count.is_some())
            .map(|n| n.name.text.clone())
            .collect();
        self.rel_template_names = topo
            .relationship_templates
            .iter()
            .map(|r| r.name.text.clone())
            .collect();
    }

    /// The requirements of every lowered node template: relationships,
    /// and delegated targets of dangling ones.
    fn wire(&mut self, nodes: &Nodes<'a>, topo: &'a ast::Topology, unit: Unit<'a>) -> Wiring<'a> {
        let exported: HashSet<(String, String)> = topo
            .substitution
            .iter()
            .flat_map(|s| &s.requirements)
            .filter_map(|(_, t)| match t.as_slice() {
                [n, r, ..] => Some((n.text.clone(), r.text.clone())),
                _ => None,
            })
            .collect();
        let index = self.candidates(&nodes.asts);
        let targets = Targets {
            topo,
            ids: &nodes.ids,
            failed: &nodes.failed,
            exported: &exported,
            pool: Pool {
                asts: &nodes.asts,
                index: &index,
                nodes: &nodes.nodes,
            },
        };
        let mut wiring = Wiring::default();
        // Room for one relationship per assignment (most make one): a
        // PendingRel is large, and copying them as the vector grew was a
        // few percent of lowering a large topology.
        let assignments = nodes.asts.iter().map(|(n, _)| n.requirements.len()).sum();
        wiring.pending.reserve(assignments);
        for (i, (n, key)) in nodes.asts.iter().enumerate() {
            let source = NodeId(i as u32);
            self.requirements(n, key, source, unit, &targets, &mut wiring);
        }
        wiring
    }

    /// The topology's inputs, with their defaults (or the values given
    /// with --input).
    fn inputs(&mut self, topology: &mut Topology, topo: &'a ast::Topology, unit: Unit<'a>) {
        self.check_given(&topo.inputs, unit);
        for i in &topo.inputs {
            let given = self.given(&i.name.text);
            let default = match given {
                Some(given) => Some(super::given::data(given)),
                None => {
                    self.check_input(i, unit);
                    i.default
                        .as_ref()
                        .or(i.value.as_ref())
                        .map(|d| self.value(d, unit, This::Nothing))
                }
            };
            topology.inputs.insert(
                i.name.text.clone(),
                InputDef {
                    name: i.name.text.clone(),
                    type_name: i.type_name.clone(),
                    required: i.required && default.is_none(),
                    default,
                    given: given.is_some(),
                },
            );
        }
    }

    /// The topology's outputs, their entity keywords resolved; one
    /// without a value is dropped with a warning.
    fn outputs(
        &mut self,
        topology: &mut Topology,
        topo: &'a ast::Topology,
        unit: Unit<'a>,
        by_requirement: &ByRequirement<'_>,
    ) {
        for (name, value) in &topo.outputs {
            match value {
                Some(v) => {
                    let mut value = self.value(v, unit, This::Nothing);
                    resolve_value(
                        topology,
                        None,
                        &mut value,
                        &Hops {
                            by_requirement,
                            caps: &self.capability_values,
                            cap_names: &self.capability_names,
                            reached: &self.rel_reached,
                        },
                    );
                    topology.outputs.push(OutputDef {
                        name: name.text.clone(),
                        value,
                    });
                }
                None => self.diags.push(
                    Diagnostic::warning(
                        codes::W_IGNORED,
                        format!(
                            "output `{}` has no `value`; the build plan does not return it",
                            name.text
                        ),
                    )
                    .at(Self::at(unit, name.span)),
                ),
            }
        }
    }
}

/// The service template's name (metadata `template_name`, else the entry
/// file's stem), namespace and file.
fn service_template_info(entry: &File) -> ServiceTemplateInfo {
    ServiceTemplateInfo {
        id: entry
            .metadata("template_name")
            .map(str::to_string)
            .filter(|s| !s.trim().is_empty())
            .unwrap_or_else(|| file_stem(entry.source.name())),
        namespace: entry
            .namespace
            .as_ref()
            .map(|n| n.text.clone())
            .unwrap_or_default(),
        file: entry.source.name().to_string(),
    }
}

/// A file name without directory and extension.
fn file_stem(name: &str) -> String {
    let file = name.rsplit('/').next().unwrap_or(name);
    file.rsplit_once('.')
        .map(|(s, _)| s)
        .unwrap_or(file)
        .to_string()
}

#[cfg(test)]
mod tests {
    use super::super::lower_text;
    use super::*;
    use crate::model::Value;

    #[test]
    fn names_the_service_template_after_the_file_or_its_metadata() {
        assert_eq!(file_stem("dir/service.yaml"), "service");
        assert_eq!(file_stem("README"), "README");
        let (t, _) = lower_text(
            "tosca_definitions_version: tosca_simple_yaml_1_3\n\
             metadata:\n  template_name: shop\n\
             topology_template:\n  node_templates: {}\n",
        );
        assert_eq!(t.unwrap().service_template.id, "shop");
    }

    #[test]
    fn an_output_without_value_is_dropped_with_a_warning() {
        let (t, d) = lower_text(
            "tosca_definitions_version: tosca_simple_yaml_1_3\n\
             topology_template:\n  inputs:\n    port: {type: integer, default: 80}\n  \
             outputs:\n    url: {value: {get_input: port}}\n    empty: {description: x}\n",
        );
        let t = t.unwrap();
        assert_eq!(t.outputs.len(), 1);
        assert_eq!(t.outputs[0].name, "url");
        assert_eq!(t.outputs[0].value, Value::input("port".to_string()));
        assert!(!t.inputs["port"].required);
        assert!(
            d.iter()
                .any(|d| d.message.contains("output `empty` has no `value`"))
        );
    }
}
