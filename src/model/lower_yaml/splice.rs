//! Inlining substituting topologies (see `substitute`): each substituted
//! node is replaced by the templates of the topology that substitutes it.
//!
//! In: the finished topology and its [`Inlined`] substitutions. Out: the
//! topology with, in each substituted node's place, the substituting
//! templates, named `<node>_<template>` (names in plans are made from
//! template ids, and `_` keeps them NCNames; a name the topology already
//! has is an error):
//!
//! - the node's property values are the substituting topology's input
//!   values: through the mapping's `properties` (`<property>: <input>` or
//!   `[ <input> ]`), else the property of the input's name (tosca-parser's
//!   rule for 1.x); an input without either keeps its default, and one
//!   that is required and has none is an error;
//! - a relationship from the node's requirement starts at the template the
//!   requirement mapping names (a mapping to several targets gives each a
//!   copy, `relationship_copies.rs`), one to its capability ends at the
//!   template the capability mapping names; an unmapped one is an error
//!   for the `substitute` directive, and dropped with a warning for a 1.x
//!   abstract node (tosca-parser accepts such templates);
//! - `get_property` of the node reads its property value, `get_attribute`
//!   the output the mapping's `attributes` (or, failing that, the output
//!   of the attribute's name) gives, else the property of that name; any
//!   other becomes a plan input `<node>_<attribute>`, with a warning;
//! - groups, policies and scaling regions that name the node name the
//!   substituting templates instead; the substituting topology's own
//!   groups, policies and regions come along with `<node>_` before their
//!   names; its workflows and the mapping's interfaces are not plans of
//!   the substituted topology (a warning).

use foldhash::{HashMap, HashSet, HashSetExt};

use indexmap::IndexMap;

use super::Lowerer;
use super::keyed_attributes::replace_own_read;
use super::relationship_copies::copy_for;
use super::splice_parts::{spliced_groups, spliced_policies, spliced_substitution};
use super::splice_values::{Maps, Sub, Values, interface_values};
use super::substitute::Inlined;
use crate::diagnostics::{Diagnostic, codes};
use crate::model::merge::import;
use crate::model::{InputDef, NodeId, RelId, RelationshipTemplate, Topology, TypeTable, Value};
use crate::yaml::ast::TypeKind;

impl<'a> Lowerer<'a> {
    /// Put the substituting topologies in their nodes' places.
    pub(super) fn splice(&mut self, t: Topology, inlined: Vec<Inlined<'a>>) -> Topology {
        if inlined.is_empty() {
            return t;
        }
        let Topology {
            dialect,
            service_template,
            mut types,
            nodes,
            relationships,
            mut inputs,
            outputs,
            regions,
            groups,
            policies,
            substitution,
            workflows,
            ..
        } = t;
        let by_node: HashMap<NodeId, usize> = inlined
            .iter()
            .enumerate()
            .map(|(k, s)| (s.node, k))
            .collect();
        let subs: Vec<Sub> = inlined
            .iter()
            .map(|s| self.sub(s, &nodes[s.node.0 as usize], &relationships))
            .collect();
        let mut values = Values {
            by_id: subs
                .iter()
                .enumerate()
                .map(|(k, s)| (s.id.as_str(), k))
                .collect(),
            subs: &subs,
            new_inputs: IndexMap::new(),
            warnings: Vec::new(),
            warned: HashSet::new(),
        };
        // Nodes, in order, each substituted one replaced by its templates.
        let mut taken: HashSet<String> = nodes
            .iter()
            .enumerate()
            .filter(|(i, _)| !by_node.contains_key(&NodeId(*i as u32)))
            .map(|(_, n)| n.id.clone())
            .chain(relationships.iter().map(|r| r.id.clone()))
            .collect();
        let mut maps = Maps {
            outer: vec![None; nodes.len()],
            inner: vec![Vec::new(); inlined.len()],
            outer_rels: vec![None; relationships.len()],
            outer_copies: vec![Vec::new(); relationships.len()],
            inner_rels: vec![Vec::new(); inlined.len()],
        };
        let mut new_nodes = Vec::with_capacity(nodes.len());
        for (i, mut node) in nodes.into_iter().enumerate() {
            let Some(&k) = by_node.get(&NodeId(i as u32)) else {
                for p in node.properties.values_mut() {
                    values.outer(p, 0);
                }
                interface_values(&mut node.interfaces, &mut |v| values.outer(v, 0));
                maps.outer[i] = Some(NodeId(new_nodes.len() as u32));
                new_nodes.push(node);
                continue;
            };
            let s = &inlined[k];
            for inner in &s.topology.nodes {
                let mut n = inner.clone();
                n.id = subs[k].names[&inner.id].clone();
                n.name = n.id.clone();
                self.claim(&mut taken, &n.id, &subs[k]);
                n.type_id = import(&mut types, &s.topology.types, inner.type_id);
                for p in n.properties.values_mut() {
                    values.inner(k, p, 0);
                }
                interface_values(&mut n.interfaces, &mut |v| values.inner(k, v, 0));
                maps.inner[k].push(NodeId(new_nodes.len() as u32));
                new_nodes.push(n);
            }
        }
        let new_rels = self.spliced_relationships(
            relationships,
            &inlined,
            &subs,
            &by_node,
            &mut maps,
            &mut values,
            &mut types,
            &mut taken,
        );
        let mut outputs = outputs;
        for o in &mut outputs {
            values.outer(&mut o.value, 0);
        }
        let (new_inputs, warnings) = (values.new_inputs, values.warnings);
        for w in warnings {
            self.diags.push(w);
        }
        inputs.extend(new_inputs);
        for (k, s) in subs.iter().enumerate() {
            for (name, def) in &s.made_inputs {
                let name = format!("{}_{name}", s.id);
                inputs.entry(name.clone()).or_insert(InputDef {
                    name,
                    ..def.clone()
                });
            }
            self.warn_not_inlined(&inlined[k], s);
            self.check_routes(&inlined[k], s);
        }
        let mut out = Topology::new(dialect, service_template, types, new_nodes, new_rels);
        out.inputs = inputs;
        out.outputs = outputs;
        let groups_before = groups.len();
        out.groups = spliced_groups(groups, &inlined, &subs, &maps);
        out.policies = spliced_policies(policies, groups_before, &inlined, &subs, &maps);
        out.regions = self.spliced_regions(regions, &inlined, &subs, &maps);
        out.workflows = self.spliced_workflows(workflows, &subs, &maps, &by_node);
        out.substitution = substitution.map(|s| spliced_substitution(s, &inlined, &maps, &by_node));
        out
    }

    /// A new template name; one the topology has already is an error.
    fn claim(&mut self, taken: &mut HashSet<String>, id: &str, sub: &Sub) {
        if !taken.insert(id.to_string()) {
            self.diags.push(
                Diagnostic::error(
                    codes::SUBSTITUTION,
                    format!(
                        "substituting `{}` makes a template `{id}`, a name the topology has already",
                        sub.id
                    ),
                )
                .at_opt(sub.origin.clone())
                .hint("the templates of a substituting topology are named `<node>_<template>`; rename the node or the template of that name"),
            );
        }
    }

    /// The relationships: the outer ones with their ends in substituted
    /// nodes moved to the mapped templates, then the inner ones.
    #[allow(clippy::too_many_arguments)]
    fn spliced_relationships(
        &mut self,
        relationships: Vec<RelationshipTemplate>,
        inlined: &[Inlined<'a>],
        subs: &[Sub],
        by_node: &HashMap<NodeId, usize>,
        maps: &mut Maps,
        values: &mut Values<'_>,
        types: &mut TypeTable,
        taken: &mut HashSet<String>,
    ) -> Vec<RelationshipTemplate> {
        // Each relationship's requirement, and its place among the
        // source's relationships of it (which decides its mapping, 2.0
        // §15.5, `mapping_routes.rs`).
        let requirement_of: HashMap<RelId, (&str, usize)> = self
            .rel_by_requirement
            .iter()
            .flat_map(|((_, req), rels)| {
                rels.iter()
                    .enumerate()
                    .map(move |(index, r)| (*r, (*req, index)))
            })
            .collect();
        let mut out = Vec::with_capacity(relationships.len());
        for (i, mut r) in relationships.into_iter().enumerate() {
            let rid = RelId(i as u32);
            let substituted = by_node.get(&r.source).copied();
            let sources = match substituted {
                None => maps.outer[r.source.0 as usize]
                    .map(|n| vec![(0, n)])
                    .unwrap_or_default(),
                Some(k) => {
                    let (req, index) = requirement_of.get(&rid).copied().unwrap_or_default();
                    own_reads(&mut r, &subs[k], (req, index), &mut |v| {
                        values.inner(k, v, 0)
                    });
                    let s = (&inlined[k], &subs[k]);
                    self.routed(s, (req, index), &r, &maps.inner[k])
                }
            };
            let target = match by_node.get(&r.target) {
                None => maps.outer[r.target.0 as usize],
                Some(&k) => {
                    let cap = self.capability_of(rid, &inlined[k]);
                    let mapping = inlined[k].topology.substitution.as_ref();
                    let caps = mapping.map(|m| m.capabilities.as_slice()).unwrap_or(&[]);
                    let mapped = match &cap {
                        Some(c) => caps.iter().find(|(n, _, _)| n == c),
                        None if caps.len() == 1 => caps.first(),
                        None => None,
                    }
                    .map(|(_, n, _)| maps.inner[k][n.0 as usize]);
                    if mapped.is_none() {
                        let what = cap.unwrap_or_else(|| "(none named)".into());
                        self.unmapped(&inlined[k], &subs[k], "capability", &what, &r);
                    }
                    mapped
                }
            };
            let (Some(&(_, source)), Some(target)) = (sources.first(), target) else {
                continue;
            };
            r.source = source;
            r.target = target;
            for p in r.properties.values_mut() {
                values.outer(p, 0);
            }
            interface_values(&mut r.interfaces, &mut |v| values.outer(v, 0));
            maps.outer_rels[i] = Some(RelId(out.len() as u32));
            // 2.0 §15.5.2: a further target of the mapping, a copy of its own.
            let copies: Vec<RelationshipTemplate> = sources[1..]
                .iter()
                .map(|&(place, n)| copy_for(&r, place, n))
                .collect();
            out.push(r);
            if let Some(k) = substituted {
                for c in copies {
                    self.claim_copy(taken, &c, &subs[k]);
                    maps.outer_copies[i].push(RelId(out.len() as u32));
                    out.push(c);
                }
            }
        }
        for (k, s) in inlined.iter().enumerate() {
            for inner in &s.topology.relationships {
                let mut r = inner.clone();
                r.id = format!("{}_{}", subs[k].id, inner.id);
                r.name = r.id.clone();
                self.claim(taken, &r.id, &subs[k]);
                r.type_id = import(types, &s.topology.types, inner.type_id);
                r.source = maps.inner[k][inner.source.0 as usize];
                r.target = maps.inner[k][inner.target.0 as usize];
                for p in r.properties.values_mut() {
                    values.inner(k, p, 0);
                }
                interface_values(&mut r.interfaces, &mut |v| values.inner(k, v, 0));
                maps.inner_rels[k].push(RelId(out.len() as u32));
                out.push(r);
            }
        }
        out
    }

    /// The templates that relationship `r`, number `index` of requirement
    /// `req` of substituted node `s`, starts at now (`inner`: where its
    /// templates went), each with its target's place in the mapping; none
    /// (and the diagnostic) where it maps onto no template.
    fn routed(
        &mut self,
        (s, sub): (&Inlined<'a>, &Sub),
        (req, index): (&str, usize),
        r: &RelationshipTemplate,
        inner: &[NodeId],
    ) -> Vec<(usize, NodeId)> {
        let targets = match self.routed_sources(s, req, index) {
            Ok(targets) => targets,
            Err(taken) => {
                self.push_beyond((s, sub), req, (index, taken), r);
                return Vec::new();
            }
        };
        let found: Vec<(usize, NodeId)> = targets
            .iter()
            .enumerate()
            .filter_map(|(place, (_, n))| n.map(|n| (place, inner[n.0 as usize])))
            .collect();
        if found.is_empty() {
            self.unmapped(s, sub, "requirement", req, r);
            return found;
        }
        for (target, _) in targets.iter().filter(|(_, n)| n.is_none()) {
            self.push_uncopied((s, sub), req, target, r);
        }
        found
    }

    /// The capability of substituted node `s` that relationship `rid`
    /// ends at: the name written, or the one whose type is the one asked.
    fn capability_of(&mut self, rid: RelId, s: &Inlined<'a>) -> Option<String> {
        let (wanted, unit) = self.rel_capability.get(rid.0 as usize).cloned().flatten()?;
        let offered = self.offered(&s.type_key);
        if offered.iter().any(|c| c.name == wanted) {
            return Some(wanted);
        }
        let key = self.resolve(TypeKind::Capability, &wanted, unit)?;
        let wanted_def = self.lineage(&key).first().copied()?;
        offered
            .iter()
            .find(|c| c.lineage.iter().any(|d| std::ptr::eq(*d, wanted_def)))
            .map(|c| c.name.clone())
            .or(Some(wanted))
    }

    /// A relationship at a substituted node's requirement or capability
    /// that the substituting template does not map.
    fn unmapped(
        &mut self,
        s: &Inlined<'a>,
        sub: &Sub,
        what: &str,
        name: &str,
        r: &RelationshipTemplate,
    ) {
        let file = s.unit.file.source.name();
        // 2.0 §15.5.3: a requirement mapped to a selectable node makes that
        // node the requirement's target; the plans do not identify the two.
        let selectable = (what == "requirement")
            .then(|| {
                s.mapping
                    .requirements
                    .iter()
                    .find(|(n, t)| n.text == name && t.len() == 1)
            })
            .flatten();
        if let Some((_, target)) = selectable {
            self.diags.push(
                Diagnostic::warning(
                    codes::W_SUBSTITUTION,
                    format!(
                        "relationship `{}` uses requirement `{name}` of `{}`, which `{file}` maps to its selectable node `{}` (TOSCA 2.0 §15.5.3); the plans do not take the relationship's target for that node: the relationship is dropped, and with it its ordering",
                        r.id, sub.id, target[0].text
                    ),
                )
                .at_opt(r.origin.clone())
                .note(format!("the mapping is here: {}", Lowerer::at(s.unit, target[0].span)))
                .hint("the selectable node is registered as an existing instance; map the requirement to a requirement of a node template (`[ <node>, <requirement> ]`) to keep the ordering"),
            );
            return;
        }
        let message = format!(
            "relationship `{}` uses {what} `{name}` of `{}`, which `{file}` substitutes without mapping that {what}",
            r.id, sub.id
        );
        let hint = format!(
            "map it in the `substitution_mappings` of `{file}` (`{}: {{{name}: [ <node>, <{what}> ]}}`)",
            if what == "requirement" {
                "requirements"
            } else {
                "capabilities"
            }
        );
        let d = if s.directive {
            Diagnostic::error(codes::SUBSTITUTION, message)
        } else {
            Diagnostic::warning(
                codes::W_SUBSTITUTION,
                format!("{message}; the relationship is dropped, and with it its ordering"),
            )
        };
        self.diags.push(
            d.at_opt(r.origin.clone())
                .note(format!(
                    "the mapping is here: {}",
                    Lowerer::at(s.unit, s.mapping.span)
                ))
                .hint(hint),
        );
    }

    /// What of a substituting template the plans do not take over.
    fn warn_not_inlined(&mut self, s: &Inlined<'a>, sub: &Sub) {
        let file = s.unit.file.source.name();
        if let Some((first, _)) = s.mapping.interfaces.first() {
            self.diags.push(
                Diagnostic::warning(
                    codes::W_SUBSTITUTION,
                    format!(
                        "the interface mappings of `{file}` are not honoured: node `{}` is substituted by the topology's templates, whose own operations the plans run",
                        sub.id
                    ),
                )
                .at(Lowerer::at(s.unit, first.span))
                .hint("the build and termination plans create and delete the substituting templates; call the workflows the mapping names as plans of the substituting template itself"),
            );
        }
        if let Some(w) = s.topology.workflows.first() {
            self.diags.push(
                Diagnostic::warning(
                    codes::W_SUBSTITUTION,
                    format!(
                        "the workflows of `{file}` (`{}`…) are not plans of the topology that substitutes node `{}` by it",
                        w.name, sub.id
                    ),
                )
                .at_opt(w.origin.clone())
                .hint("compile the substituting template on its own for its workflows"),
            );
        }
    }
}

/// Relationship `r`, number `index` of requirement `req` of the node
/// `sub` substitutes: its reads of its own attributes that an output
/// gives (2.0 §15.3) read the output (`inner` puts it in the spliced
/// topology's terms).
fn own_reads(
    r: &mut RelationshipTemplate,
    sub: &Sub,
    (req, index): (&str, usize),
    inner: &mut dyn FnMut(&mut Value),
) {
    for a in &sub.relationship_attributes {
        if a.requirement != req || a.index != index {
            continue;
        }
        let mut with = a.value.clone();
        inner(&mut with);
        for p in r.properties.values_mut() {
            replace_own_read(p, &a.attribute, &with);
        }
        interface_values(&mut r.interfaces, &mut |v| {
            replace_own_read(v, &a.attribute, &with)
        });
    }
}

#[cfg(test)]
mod tests {
    use super::super::lower_files;
    use crate::diagnostics::codes;
    use crate::model::Value;

    const TYPES: &str = "tosca_definitions_version: tosca_simple_yaml_1_3\n\
        node_types:\n  Cache:\n    derived_from: tosca.nodes.Root\n    \
        properties:\n      size: {type: string, required: false}\n";

    const CACHE: &str = "tosca_definitions_version: tosca_simple_yaml_1_3\n\
        imports: [types.yaml]\n\
        topology_template:\n  inputs:\n    size: {type: string}\n    flavour: {type: string, default: plain}\n  \
        substitution_mappings: {node_type: Cache}\n  \
        node_templates:\n    part:\n      type: tosca.nodes.SoftwareComponent\n      \
        properties: {component_version: {get_input: size}}\n      \
        interfaces: {Standard: {create: {implementation: c.sh, inputs: {f: {get_input: flavour}}}}}\n      \
        requirements: [{host: vm}]\n    vm: {type: tosca.nodes.Compute}\n  \
        groups:\n    inner: {type: tosca.groups.Root, members: [part, vm]}\n";

    fn service(extra: &str) -> String {
        format!(
            "tosca_definitions_version: tosca_simple_yaml_1_3\nimports: [types.yaml, cache.yaml]\n\
             topology_template:\n  node_templates:\n    cache:\n      type: Cache\n      \
             properties: {{size: '64'}}\n{extra}  groups:\n    \
             outer: {{type: tosca.groups.Root, members: [cache]}}\n"
        )
    }

    #[test]
    fn the_node_s_values_groups_and_names_pass_to_its_templates() {
        let reader = "    reader:\n      type: tosca.nodes.SoftwareComponent\n      \
            properties: {component_version: {get_attribute: [cache, size]}}\n";
        let (t, d) = lower_files(&[
            ("service.yaml", &service(reader)),
            ("types.yaml", TYPES),
            ("cache.yaml", CACHE),
            ("c.sh", "#!/bin/sh\n"),
        ]);
        assert!(!d.has_errors(), "{d:?}");
        let t = t.unwrap();
        let names: Vec<&str> = t.nodes.iter().map(|n| n.id.as_str()).collect();
        assert_eq!(
            names,
            ["cache_part", "cache_vm", "reader", "reader_host_target"]
        );
        // An attribute no output gives, but a property: its value.
        let reader = t.node(t.node_by_id("reader").unwrap());
        assert_eq!(
            reader.properties["component_version"],
            Value::Scalar("64".into())
        );
        let part = t.node(t.node_by_id("cache_part").unwrap());
        // `size` has the node's value (same name), `flavour` its default.
        assert_eq!(
            part.properties["component_version"],
            Value::Scalar("64".into())
        );
        let f = &part.operation("Standard", "create").unwrap().inputs[0];
        assert_eq!(f.value, Some(Value::Scalar("plain".into())));
        let rels: Vec<&str> = t.relationships.iter().map(|r| r.id.as_str()).collect();
        assert_eq!(rels, ["reader_host", "cache_part_host"]);
        let groups: Vec<(&str, usize)> = t
            .groups
            .iter()
            .map(|g| (g.name.as_str(), g.members.len()))
            .collect();
        assert_eq!(groups, [("outer", 2), ("cache_inner", 2)]);
    }

    #[test]
    fn a_template_name_the_topology_has_already_is_an_error() {
        let clash = "    cache_vm: {type: tosca.nodes.Compute}\n";
        let (_, d) = lower_files(&[
            ("service.yaml", &service(clash)),
            ("types.yaml", TYPES),
            ("cache.yaml", CACHE),
            ("c.sh", "#!/bin/sh\n"),
        ]);
        let errors: Vec<&str> = d
            .iter()
            .filter(|d| d.code == codes::SUBSTITUTION)
            .map(|d| d.message.as_str())
            .collect();
        assert_eq!(
            errors,
            ["substituting `cache` makes a template `cache_vm`, a name the topology has already"]
        );
    }
}
