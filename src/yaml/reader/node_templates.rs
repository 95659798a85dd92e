//! Node templates (1.3 §3.8.3): type, directives, property and attribute
//! assignments, capabilities, interfaces and artifacts; multiplicity keys
//! (`count`, `occurrences`, `instance_count`) are read and warned about.
//!
//! In: the YAML node of that section. Out: its AST; keys TOSCA does not
//! define there are warnings (W0304), values of the wrong kind errors
//! (E0302).

use super::Reader;
use crate::yaml::ast::{CapabilityAssignment, NodeTemplate, Spanned};
use crate::yaml::node::{Kind, Node};

impl<'a> Reader<'a> {
    pub(super) fn node_template(&mut self, name: Spanned, node: &Node) -> NodeTemplate {
        let what = format!("node template `{}`", name.text);
        let mut n = NodeTemplate {
            name,
            type_name: None,
            directives: Vec::new(),
            properties: Vec::new(),
            attributes: Vec::new(),
            requirements: Vec::new(),
            capabilities: Vec::new(),
            interfaces: Vec::new(),
            artifacts: Vec::new(),
            copy: None,
            node_filter: None,
            multiple: false,
            count: None,
            span: node.span,
        };
        if !matches!(node.kind, Kind::Map(_)) {
            self.wrong_kind(node, &what, "a map");
            return n;
        }
        for (k, v) in self.entries(
            node,
            &what,
            &[
                "type",
                "description",
                "metadata",
                "directives",
                "properties",
                "attributes",
                "requirements",
                "capabilities",
                "interfaces",
                "artifacts",
                "node_filter",
                "copy",
                "count",
                "occurrences",
                "instance_count",
            ],
        ) {
            match k.text.as_str() {
                "type" => n.type_name = self.string(v, "type"),
                "directives" => n.directives = self.string_list(v, "directives"),
                "properties" => n.properties = self.assignments(v, "properties"),
                "attributes" => n.attributes = self.assignments(v, "attributes"),
                "requirements" => n.requirements = self.requirement_assignments(v, &what),
                "capabilities" => {
                    for (cname, cv) in self.entries(v, "capabilities", &[]) {
                        let cwhat = format!("capability `{}`", cname.text);
                        let mut c = CapabilityAssignment {
                            name: cname,
                            properties: Vec::new(),
                            attributes: Vec::new(),
                            directives: Vec::new(),
                        };
                        for (ck, cvv) in self.entries(
                            cv,
                            &cwhat,
                            &["properties", "attributes", "occurrences", "directives"],
                        ) {
                            match ck.text.as_str() {
                                "properties" => c.properties = self.assignments(cvv, "properties"),
                                "attributes" => c.attributes = self.assignments(cvv, "attributes"),
                                "directives" => c.directives = self.scope_directives(cvv, &cwhat),
                                _ => {}
                            }
                        }
                        n.capabilities.push(c);
                    }
                }
                "interfaces" => n.interfaces = self.interfaces(v),
                "artifacts" => n.artifacts = self.artifacts(v),
                "copy" => n.copy = self.string(v, "copy"),
                "node_filter" => n.node_filter = Some(v.clone()),
                // 2.0 `count`: the lowering makes the representations.
                "count" => {
                    n.multiple |= !exactly_one(v);
                    n.count = Some(v.clone());
                }
                // Other multiplicities (1.3 §2.20 drafts): the build plan makes
                // one instance per template; say so rather than drop it quietly.
                "occurrences" | "instance_count" => {
                    n.multiple |= !exactly_one(v);
                    self.ignored(
                        k.span,
                        format!(
                            "`{}` of node template `{}` is not used: the build plan creates one instance of every template",
                            k.text, n.name.text
                        ),
                        "scale-out plans add instances; declare a Scaling policy for the template",
                    );
                }
                _ => {}
            }
        }
        n
    }
}

/// Whether a multiplicity value asks for exactly one instance: `1`, or the
/// range `[1, 1]`.
fn exactly_one(v: &Node) -> bool {
    match &v.kind {
        Kind::Seq(items) => items.len() == 2 && items.iter().all(|i| i.as_str() == Some("1")),
        _ => v.as_str() == Some("1"),
    }
}

#[cfg(test)]
mod tests {
    use super::super::read_text;
    use crate::diagnostics::codes;

    #[test]
    fn reads_capabilities_and_warns_about_multiplicity() {
        let (file, d) = read_text(
            "topology_template:\n  node_templates:\n    a:\n      type: T\n      \
             directives: [select]\n      \
             capabilities: {endpoint: {properties: {port: 80}}}\n      \
             occurrences: [1, 3]\n",
        );
        let n = &file.topology.unwrap().node_templates[0];
        assert_eq!(n.directives[0].text, "select");
        assert_eq!(n.capabilities[0].name.text, "endpoint");
        assert_eq!(n.capabilities[0].properties.len(), 1);
        assert!(d.iter().any(|d| d.code == codes::W_IGNORED
            && d.message.contains("`occurrences` of node template `a`")));
    }
}
