//! The topology template (1.3 §3.9; 2.0 `service_template`): inputs,
//! node and relationship templates, outputs, groups, policies,
//! substitution mappings and workflows.
//!
//! In: the YAML node of that section. Out: its AST; keys TOSCA does not
//! define there are warnings (W0304), values of the wrong kind errors
//! (E0302).

use super::Reader;
use super::types::PROPERTY_KEYS;
use crate::yaml::ast::{Group, Policy, RelationshipTemplate, Spanned, Topology};
use crate::yaml::node::Node;

/// The keynames of `topology_template` (1.x) and `service_template` (2.0).
pub(super) const TOPOLOGY_KEYS: &[&str] = &[
    "description",
    "metadata",
    "inputs",
    "node_templates",
    "relationship_templates",
    "outputs",
    "groups",
    "policies",
    "substitution_mappings",
    "workflows",
];

impl<'a> Reader<'a> {
    pub(super) fn topology(&mut self, node: &Node) -> Topology {
        let mut t = Topology {
            span: node.span,
            ..Topology::default()
        };
        for (k, v) in self.entries(node, "the topology template", TOPOLOGY_KEYS) {
            match k.text.as_str() {
                "inputs" => t.inputs = self.property_defs(v, "inputs"),
                "node_templates" => {
                    let entries = self.entries(v, "node_templates", &[]);
                    t.node_templates.reserve_exact(entries.len());
                    for (name, nv) in entries {
                        let n = self.node_template(name, nv);
                        t.node_templates.push(n);
                    }
                }
                "relationship_templates" => {
                    let entries = self.entries(v, "relationship_templates", &[]);
                    t.relationship_templates.reserve_exact(entries.len());
                    for (name, rv) in entries {
                        let r = self.relationship_template(name, rv);
                        t.relationship_templates.push(r);
                    }
                }
                "outputs" => {
                    for (name, ov) in self.entries(v, "outputs", &[]) {
                        let what = format!("output `{}`", name.text);
                        self.entries(ov, &what, PROPERTY_KEYS);
                        t.outputs.push((name, ov.get("value").cloned()));
                    }
                }
                "groups" => {
                    for (name, gv) in self.entries(v, "groups", &[]) {
                        let g = self.group(name, gv);
                        t.groups.push(g);
                    }
                }
                "policies" => {
                    for (name, pv) in self.entries_or_list(v, "policies") {
                        let p = self.policy(name, pv);
                        t.policies.push(p);
                    }
                }
                "substitution_mappings" => t.substitution = Some(self.substitution(v)),
                "workflows" => {
                    for (name, wv) in self.entries(v, "workflows", &[]) {
                        let w = self.workflow(name, wv);
                        t.workflows.push(w);
                    }
                }
                _ => {}
            }
        }
        self.make_copies(&mut t);
        t
    }

    /// A relationship template (1.3 §3.8.4).
    fn relationship_template(&mut self, name: Spanned, rv: &Node) -> RelationshipTemplate {
        let what = format!("relationship template `{}`", name.text);
        let mut r = RelationshipTemplate {
            name,
            type_name: None,
            properties: Vec::new(),
            attributes: Vec::new(),
            interfaces: Vec::new(),
            copy: None,
            span: rv.span,
        };
        for (rk, rvv) in self.entries(
            rv,
            &what,
            &[
                "type",
                "description",
                "metadata",
                "properties",
                "attributes",
                "interfaces",
                "copy",
            ],
        ) {
            match rk.text.as_str() {
                "type" => r.type_name = self.string(rvv, "type"),
                "properties" => r.properties = self.assignments(rvv, "properties"),
                "attributes" => r.attributes = self.assignments(rvv, "attributes"),
                "interfaces" => r.interfaces = self.interfaces(rvv),
                "copy" => r.copy = self.string(rvv, "copy"),
                _ => {}
            }
        }
        r
    }

    /// A group (1.3 §3.6.21).
    fn group(&mut self, name: Spanned, gv: &Node) -> Group {
        let what = format!("group `{}`", name.text);
        let mut g = Group {
            name,
            type_name: None,
            members: Vec::new(),
            properties: Vec::new(),
            span: gv.span,
        };
        for (gk, gvv) in self.entries(
            gv,
            &what,
            &[
                "type",
                "description",
                "metadata",
                "properties",
                "attributes",
                "members",
                "interfaces",
            ],
        ) {
            match gk.text.as_str() {
                "type" => g.type_name = self.string(gvv, "type"),
                "members" => g.members = self.string_list(gvv, "members"),
                "properties" => g.properties = self.assignments(gvv, "properties"),
                "attributes" | "interfaces" if gvv.as_map().is_some_and(|m| !m.is_empty()) => {
                    let (what_is_lost, why) = if gk.text == "attributes" {
                        (
                            "the attribute values of",
                            "the plans make no instance of a group",
                        )
                    } else {
                        (
                            "the operations of",
                            "the plans make no instance of a group; they run its members' operations",
                        )
                    };
                    self.ignored(
                        gk.span,
                        format!("{what_is_lost} group `{}` are not used: {why}", g.name.text),
                        "put them on the member node templates",
                    );
                }
                _ => {}
            }
        }
        g
    }

    /// A policy (1.3 §3.6.22).
    fn policy(&mut self, name: Spanned, pv: &Node) -> Policy {
        let what = format!("policy `{}`", name.text);
        let mut p = Policy {
            name,
            type_name: None,
            targets: Vec::new(),
            properties: Vec::new(),
            metadata: Vec::new(),
            triggers: None,
            span: pv.span,
        };
        for (pk, pvv) in self.entries(
            pv,
            &what,
            &[
                "type",
                "description",
                "metadata",
                "properties",
                "targets",
                "triggers",
            ],
        ) {
            match pk.text.as_str() {
                "type" => p.type_name = self.string(pvv, "type"),
                "targets" => p.targets = self.string_list(pvv, "targets"),
                "properties" => p.properties = self.assignments(pvv, "properties"),
                "metadata" => p.metadata = self.spanned_string_map(pvv, "metadata"),
                "triggers" => p.triggers = Some(pvv.clone()),
                _ => {}
            }
        }
        p
    }
}

#[cfg(test)]
mod tests {
    use super::super::read_text;
    use crate::diagnostics::codes;

    #[test]
    fn reads_every_section_and_warns_about_unknown_keys() {
        let (file, d) = read_text(
            "topology_template:\n  \
             relationship_templates:\n    r: {type: ConnectsTo, properties: {p: 1}, color: red}\n  \
             groups:\n    g: {type: G, members: [a, b]}\n  \
             policies:\n    - p: {type: P, targets: [g], metadata: {k: v}}\n  \
             outputs:\n    o: {value: 1}\n",
        );
        let t = file.topology.unwrap();
        assert_eq!(
            t.relationship_templates[0].type_name.as_ref().unwrap().text,
            "ConnectsTo"
        );
        assert_eq!(t.relationship_templates[0].properties.len(), 1);
        assert_eq!(t.groups[0].members.len(), 2);
        assert_eq!(t.policies[0].targets[0].text, "g");
        assert_eq!(t.policies[0].metadata[0].1.text, "v");
        assert!(t.outputs[0].1.is_some());
        let unknown: Vec<_> = d
            .iter()
            .filter(|d| d.code == codes::W_YAML_UNKNOWN_KEY)
            .collect();
        assert_eq!(unknown.len(), 1);
        assert!(unknown[0].message.contains("`color`"));
    }

    #[test]
    fn topology_keys_beside_the_topology_say_where_they_belong() {
        let (_, d) = read_text("node_templates: {a: {type: T}}\ndescription: d\n");
        let hints: Vec<_> = d.iter().map(|d| (d.code, d.hint.clone())).collect();
        assert_eq!(
            hints,
            [(
                codes::W_YAML_UNKNOWN_KEY,
                Some(
                    "`node_templates` belongs in `topology_template`: indent it under that key"
                        .to_string()
                )
            )]
        );
    }
}
