//! Which node templates are substituted (1.3 §2.10, 2.0 chapter 15), and
//! by which service template of the CSAR.
//!
//! In: the lowered node templates of a topology and every file loaded
//! with it (the entry and what it imports, transitively; the files
//! TOSCA.meta names in `Other-Definitions`, 2.0 §17.2, and theirs). Out: for each
//! substituted node the substituting topology, lowered on its own (its own
//! substitutions already inlined), which `splice` then puts in the node's
//! place.
//!
//! Which nodes: in 2.0, those with the `substitute` directive; in 1.x, an
//! abstract node (its type implements no operation and is not
//! infrastructure the orchestrator provides) for which a substituting
//! template exists, as tosca-parser does. A candidate is a loaded file
//! whose topology has `substitution_mappings` with a `node_type` that is
//! the node's type or derived from it (what it provides is at least what
//! the node asks for), and whose `substitution_filter`, if any, holds for
//! the node's property values. Of several, those that name the node's
//! type itself win; more than one left is an error. A file whose topology
//! is being lowered is no candidate: in 1.x such a node stays what it was
//! (the subsystems of tosca-parser's samples hold a node of the type they
//! substitute), for the directive it is a cycle (error).

use foldhash::{HashSet, HashSetExt};

use super::topology::Nodes;
use super::{Lowerer, This, Unit, fold};
use crate::diagnostics::{Diagnostic, codes};
use crate::model::{NodeId, NodeTemplate, Topology, Value};
use crate::yaml::ast::{self, TypeKind};

/// A substituted node and the topology that takes its place.
pub(super) struct Inlined<'a> {
    /// The substituted node.
    pub(super) node: NodeId,
    /// Its type key.
    pub(super) type_key: String,
    /// Whether the `substitute` directive asked for it (2.0): what the
    /// mapping leaves out is an error then, a warning otherwise.
    pub(super) directive: bool,
    /// The substituting topology.
    pub(super) topology: Topology,
    /// Its `substitution_mappings`.
    pub(super) mapping: &'a ast::Substitution,
    /// Its inputs as declared.
    pub(super) declared: &'a [ast::PropertyDef],
    /// The substituting file's unit.
    pub(super) unit: Unit<'a>,
}

/// A file that could substitute a node: its unit, whether its mapping
/// names the node's type itself.
struct Candidate {
    unit: usize,
    exact: bool,
}

impl<'a> Lowerer<'a> {
    /// The substitutions of the node templates in `nodes`, each lowered;
    /// the nodes substituted are no longer abstract.
    pub(super) fn substitutes(&mut self, nodes: &mut Nodes<'a>) -> Vec<Inlined<'a>> {
        let v2 = self.units[self.entry].file.version.is_v2();
        let mut out = Vec::new();
        // Most topologies have no substituting template to look for: no
        // search per node then (a large topology has many abstract nodes).
        let mappings = self.loaded.files.iter().any(|f| {
            f.topology
                .as_ref()
                .is_some_and(|t| t.substitution.is_some())
        });
        if !mappings {
            return out;
        }
        for i in 0..nodes.asts.len() {
            let (n, key) = (nodes.asts[i].0, nodes.asts[i].1.to_string());
            let node = &nodes.nodes[i];
            let directive = n
                .directives
                .iter()
                .any(|d| matches!(d.text.as_str(), "substitute" | "substitutable"));
            let implicit = !v2
                && !node.running
                && !node.implements_any()
                && !super::delegation::provided(&self.types, node);
            if !directive && !implicit {
                continue;
            }
            let Some(unit) = self.choose(node, &key, directive) else {
                continue;
            };
            let loaded = self.loaded;
            let file = loaded.units[unit].file;
            let f = &loaded.files[file];
            let (Some(topo), Some(mapping)) = (
                f.topology.as_ref(),
                f.topology.as_ref().and_then(|t| t.substitution.as_ref()),
            ) else {
                continue;
            };
            let topology = self.lower_substituting(unit, f, topo, &node.id);
            nodes.nodes[i].is_abstract = false;
            out.push(Inlined {
                node: NodeId(i as u32),
                type_key: key,
                directive,
                topology,
                mapping,
                declared: &topo.inputs,
                unit: self.units[unit],
            });
        }
        out
    }

    /// The unit of the file that substitutes `node` (of type `key`), by
    /// the rule of the module docs; `None` after a diagnostic or where
    /// nothing substitutes it.
    fn choose(&mut self, node: &NodeTemplate, key: &str, directive: bool) -> Option<usize> {
        let mut found: Vec<Candidate> = Vec::new();
        let mut cycle: Vec<String> = Vec::new();
        let mut files: HashSet<usize> = HashSet::new();
        for ui in 0..self.loaded.units.len() {
            let file = self.loaded.units[ui].file;
            if !files.insert(file) {
                continue;
            }
            let unit = self.units[ui];
            let Some(mapping) = unit
                .file
                .topology
                .as_ref()
                .and_then(|t| t.substitution.as_ref())
            else {
                continue;
            };
            let Some(nt) = &mapping.node_type else {
                continue;
            };
            let Some(mapped) = self.resolve(TypeKind::Node, &nt.text, unit) else {
                continue;
            };
            let chain = self.chain(TypeKind::Node, &mapped).unwrap_or_default();
            if !chain.iter().any(|k| k == key) {
                continue;
            }
            if self.stack.contains(&file) {
                cycle.push(unit.file.source.name().to_string());
                continue;
            }
            if !self.filter_holds(mapping, node, unit) {
                continue;
            }
            found.push(Candidate {
                unit: ui,
                exact: mapped == key,
            });
        }
        if found.iter().any(|c| c.exact) {
            found.retain(|c| c.exact);
        }
        match found.as_slice() {
            [one] => Some(one.unit),
            [] => {
                if directive && !cycle.is_empty() {
                    self.substitution_failed.insert(node.id.clone());
                    self.diags.push(
                        Diagnostic::error(
                            codes::SUBSTITUTION,
                            format!(
                                "node template `{}` is to be substituted by `{}`, whose topology is already being inlined: the substitution is a cycle",
                                node.id,
                                cycle.join("`, `")
                            ),
                        )
                        .at_opt(node.origin.clone())
                        .hint("a substituting template cannot contain, at any depth, a node it substitutes itself; drop the `substitute` directive of one of them"),
                    );
                }
                None
            }
            several => {
                let names: Vec<String> = several
                    .iter()
                    .map(|c| format!("`{}`", self.units[c.unit].file.source.name()))
                    .collect();
                self.substitution_failed.insert(node.id.clone());
                self.diags.push(
                    Diagnostic::error(
                        codes::SUBSTITUTION,
                        format!(
                            "node template `{}` (type `{key}`) can be substituted by {} service templates: {}",
                            node.id,
                            several.len(),
                            names.join(", ")
                        ),
                    )
                    .at_opt(node.origin.clone())
                    .hint("keep one, or tell them apart with a `substitution_filter` on the node's properties; a mapping that names the node's type itself wins over one that names a type derived from it"),
                );
                None
            }
        }
    }

    /// Whether `mapping`'s `substitution_filter` (2.0 §15.1, a condition
    /// clause) holds for `node`: `$get_property: [SELF, p]` reads the
    /// node's property values. A filter that cannot be decided when the
    /// plans are made (a value known only at run time) is a warning, and
    /// the candidate stays one.
    fn filter_holds(
        &mut self,
        mapping: &ast::Substitution,
        node: &NodeTemplate,
        unit: Unit<'a>,
    ) -> bool {
        let Some(filter) = &mapping.filter else {
            return true;
        };
        // A condition, not a value passed on: no W0311 for its calls.
        let outside = std::mem::take(&mut self.diags);
        let clause = self.value(filter, unit, This::Node(&node.id));
        let made = std::mem::replace(&mut self.diags, outside);
        for d in made.iter().filter(|d| d.code != codes::W_YAML_LENIENT) {
            self.diags.push(d.clone());
        }
        match evaluate(&clause, node) {
            Some(Value::Scalar(s)) if s == "false" => false,
            Some(Value::Scalar(s)) if s == "true" => true,
            _ => {
                self.push_once(
                    Diagnostic::warning(
                        codes::W_SUBSTITUTION,
                        format!(
                            "the `substitution_filter` of `{}` cannot be decided for node template `{}` when the plans are made; it is taken as a candidate",
                            unit.file.source.name(),
                            node.id
                        ),
                    )
                    .at(Self::at(unit, filter.span))
                    .hint("write the filter as a condition on the node's properties with known values ($equal, $and, … of $get_property: [SELF, <property>])"),
                );
                true
            }
        }
    }

    /// Lower the topology of `file` (unit `unit`) on its own, as a
    /// substituting template: with its own type table and substitutions,
    /// the files being lowered around it on the stack. Its diagnostics
    /// are kept once (a template that substitutes two nodes is lowered
    /// twice).
    fn lower_substituting(
        &mut self,
        unit: usize,
        f: &'a ast::File,
        topo: &'a ast::Topology,
        node: &str,
    ) -> Topology {
        let loaded = self.loaded;
        let mut stack = self.stack.clone();
        stack.push(loaded.units[unit].file);
        let (topology, diags) = {
            let mut sub = Lowerer::new(loaded, &mut *self.csar);
            sub.entry = unit;
            sub.stack = stack;
            let t = sub.topology(f, topo);
            (t, sub.diags)
        };
        let key = |d: &Diagnostic| format!("{}{:?}{}", d.code, d.location, d.message);
        let mut seen: HashSet<String> = self.diags.iter().map(key).collect();
        for d in diags.iter() {
            if seen.insert(key(d)) {
                let note = format!(
                    "`{}` substitutes node template `{node}` here: its templates are `{node}_<template>`, and so are the plan inputs named after them",
                    f.source.name()
                );
                self.diags.push(d.clone().note(note));
            }
        }
        topology
    }
}

/// A condition clause's value for `node`: `get_property` of `SELF` is its
/// property value, other calls are folded; `None` where a value is not
/// known.
fn evaluate(v: &Value, node: &NodeTemplate) -> Option<Value> {
    match v {
        Value::Call(c) if c.function == "get_property" => match c.args.as_slice() {
            [Value::Scalar(s), Value::Scalar(p)] if s == "SELF" => {
                let value = node.properties.get(p.as_str())?;
                value.literal().is_some().then(|| value.clone())
            }
            _ => None,
        },
        Value::Call(c) => {
            let args: Option<Vec<Value>> = c.args.iter().map(|a| evaluate(a, node)).collect();
            fold::fold(&c.function, &args?)
        }
        Value::List(l) => Some(Value::List(
            l.iter().map(|a| evaluate(a, node)).collect::<Option<_>>()?,
        )),
        other => Some(other.clone()),
    }
}

#[cfg(test)]
mod tests {
    use super::super::lower_files;
    use crate::diagnostics::codes;

    const TYPES: &str = "tosca_definitions_version: tosca_2_0\n\
        imports: [{profile: org.oasis-open.simple:2.0}]\n\
        node_types:\n  Db:\n    properties:\n      flavour: {type: string, required: false}\n  \
        Postgres: {derived_from: Db}\n  \
        Box:\n    interfaces:\n      Standard: {type: tosca.interfaces.node.lifecycle.Standard}\n";

    /// A substituting file: mapping `node_type`, an optional filter, one
    /// node `part`.
    fn candidate(node_type: &str, filter: &str) -> String {
        format!(
            "tosca_definitions_version: tosca_2_0\nimports: [{{url: types.yaml}}]\n\
             service_template:\n  substitution_mappings:\n    node_type: {node_type}\n{filter}  \
             node_templates:\n    part:\n      type: Box\n"
        )
    }

    /// The node templates of a service with a substituted `db` of type
    /// `Db` (flavour `flavour`) importing `a.yaml` and `b.yaml`.
    fn nodes(flavour: &str, a: &str, b: &str) -> (Vec<String>, Vec<String>) {
        let service = format!(
            "tosca_definitions_version: tosca_2_0\n\
             imports: [{{url: types.yaml}}, {{url: a.yaml}}, {{url: b.yaml}}]\n\
             service_template:\n  node_templates:\n    db:\n      type: Db\n      \
             directives: [substitute]\n      properties: {{flavour: {flavour}}}\n"
        );
        let (t, d) = lower_files(&[
            ("service.yaml", &service),
            ("types.yaml", TYPES),
            ("a.yaml", a),
            ("b.yaml", b),
        ]);
        let names = t
            .map(|t| t.nodes.iter().map(|n| n.id.clone()).collect())
            .unwrap_or_default();
        let codes = d.iter().map(|d| d.code.to_string()).collect();
        (names, codes)
    }

    #[test]
    fn the_mapping_of_the_node_s_own_type_wins_over_a_derived_one() {
        // Both substitute a Db (Postgres is one); the exact one wins,
        // whichever comes first.
        let (names, codes) = nodes("x", &candidate("Postgres", ""), &candidate("Db", ""));
        assert_eq!(names, ["db_part"]);
        assert!(codes.is_empty(), "{codes:?}");
        // A mapping of a supertype does not substitute: it provides less.
        let (names, _) = nodes("x", &candidate("Box", ""), &candidate("Box", ""));
        assert_eq!(names, ["db"]);
        // Two of the node's type: ambiguous.
        let (_, codes) = nodes("x", &candidate("Db", ""), &candidate("Db", ""));
        assert!(
            codes.contains(&codes::SUBSTITUTION.to_string()),
            "{codes:?}"
        );
    }

    #[test]
    fn a_substitution_filter_picks_among_candidates() {
        let filter = |v: &str| {
            format!(
                "    substitution_filter: {{$equal: [{{$get_property: [SELF, flavour]}}, {v}]}}\n"
            )
        };
        let a = candidate("Db", &filter("small"));
        let b = candidate("Db", &filter("large"));
        let (small, codes) = nodes("small", &a, &b);
        assert!(codes.is_empty(), "{codes:?}");
        let (none, _) = nodes("medium", &a, &b);
        assert_eq!(small, ["db_part"]);
        assert_eq!(none, ["db"], "no filter holds: nothing substitutes");
        // A value only known at run time cannot decide the filter: a warning,
        // and both stay candidates.
        let (_, codes) = nodes("{$get_input: f}", &a, &b);
        assert!(
            codes.contains(&codes::W_SUBSTITUTION.to_string()),
            "{codes:?}"
        );
        assert!(
            codes.contains(&codes::SUBSTITUTION.to_string()),
            "{codes:?}"
        );
    }
}
