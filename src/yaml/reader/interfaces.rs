//! Interface definitions and assignments (1.3 §3.6.19–3.6.21): their
//! inputs and operations, in both grammars (1.3 `operations:` and the
//! older form with operations directly under the interface), and
//! operation implementations (a file name, or `primary` and
//! `dependencies`).
//!
//! In: the YAML node of that section. Out: its AST; keys TOSCA does not
//! define there are warnings (W0304), values of the wrong kind errors
//! (E0302).

use super::Reader;
use super::types::{PROPERTY_KEYS, is_false};
use crate::yaml::ast::{ArtifactRef, Implementation, Interface, Operation, Parameter, Spanned};
use crate::yaml::node::{Kind, Node};

impl<'a> Reader<'a> {
    pub(super) fn interfaces(&mut self, node: &Node) -> Vec<Interface> {
        let mut out = Vec::new();
        for (name, v) in self.entries(node, "interfaces", &[]) {
            let mut i = Interface {
                name,
                type_name: None,
                inputs: Vec::new(),
                operations: Vec::new(),
                span: v.span,
            };
            let what = format!("interface `{}`", i.name.text);
            let new_form = v.get("operations").is_some() || v.get("notifications").is_some();
            for (k, iv) in self.entries(v, &what, &[]) {
                match k.text.as_str() {
                    "type" => i.type_name = self.string(iv, "type"),
                    "inputs" => i.inputs = self.parameters(iv, "inputs"),
                    "operations" => {
                        for (oname, ov) in self.entries(iv, "operations", &[]) {
                            let op = self.operation(oname, ov);
                            i.operations.push(op);
                        }
                    }
                    "description" | "metadata" | "notifications" | "derived_from" => {}
                    _ if new_form => {
                        let key_node = Node {
                            kind: Kind::Null,
                            span: k.span,
                        };
                        self.unknown_key(&key_node, &k.text, &what);
                    }
                    _ => {
                        let op = self.operation(k, iv);
                        i.operations.push(op);
                    }
                }
            }
            out.push(i);
        }
        out
    }

    pub(super) fn operation(&mut self, name: Spanned, node: &Node) -> Operation {
        let mut op = Operation {
            name,
            implementation: None,
            inputs: Vec::new(),
            outputs: Vec::new(),
            span: node.span,
        };
        let what = format!("operation `{}`", op.name.text);
        match &node.kind {
            Kind::Null => {}
            Kind::Scalar { .. } => op.implementation = self.implementation(node),
            Kind::Map(_) => {
                for (k, v) in self.entries(
                    node,
                    &what,
                    &[
                        "description",
                        "implementation",
                        "inputs",
                        "outputs",
                        "metadata",
                    ],
                ) {
                    match k.text.as_str() {
                        "implementation" => op.implementation = self.implementation(v),
                        "inputs" => op.inputs = self.parameters(v, "inputs"),
                        "outputs" => {
                            for (oname, ov) in self.entries(v, "outputs", &[]) {
                                op.outputs.push((oname, ov.clone()));
                            }
                        }
                        _ => {}
                    }
                }
            }
            Kind::Seq(_) => self.wrong_kind(node, &what, "an implementation or a map"),
        }
        op
    }

    pub(super) fn implementation(&mut self, node: &Node) -> Option<Implementation> {
        let mut imp = Implementation {
            primary: None,
            dependencies: Vec::new(),
            span: node.span,
        };
        match &node.kind {
            Kind::Null => return None,
            Kind::Scalar { text, .. } => {
                imp.primary = Some(ArtifactRef::Name(Spanned::new(text.clone(), node.span)))
            }
            Kind::Map(_) if node.get("file").is_some() => {
                // An artifact definition given directly (1.3 §7.3.8).
                imp.primary = Some(ArtifactRef::Inline(self.artifact(
                    Spanned::new(
                        node.get("file").and_then(Node::as_str).unwrap_or_default(),
                        node.span,
                    ),
                    node,
                )));
            }
            Kind::Map(_) => {
                for (k, v) in self.entries(
                    node,
                    "implementation",
                    &[
                        "primary",
                        "dependencies",
                        "timeout",
                        "operation_host",
                        "description",
                    ],
                ) {
                    match k.text.as_str() {
                        "primary" => imp.primary = self.artifact_ref(v),
                        "dependencies" => {
                            for d in v.as_seq().unwrap_or(&[]) {
                                if let Some(a) = self.artifact_ref(d) {
                                    imp.dependencies.push(a);
                                }
                            }
                        }
                        "timeout" | "operation_host" => self.not_honoured(&k),
                        _ => {}
                    }
                }
            }
            Kind::Seq(_) => {
                self.wrong_kind(node, "implementation", "an artifact name or a map");
                return None;
            }
        }
        Some(imp)
    }

    fn artifact_ref(&mut self, node: &Node) -> Option<ArtifactRef> {
        match &node.kind {
            Kind::Scalar { text, .. } => {
                Some(ArtifactRef::Name(Spanned::new(text.clone(), node.span)))
            }
            Kind::Map(_) => Some(ArtifactRef::Inline(self.artifact(
                Spanned::new(
                    node.get("file").and_then(Node::as_str).unwrap_or_default(),
                    node.span,
                ),
                node,
            ))),
            Kind::Null => None,
            Kind::Seq(_) => {
                self.wrong_kind(node, "an artifact", "a name or a map");
                None
            }
        }
    }

    /// Operation or interface inputs: assignments (bare values) or
    /// definitions (maps with `type`, `default`, `value`, ...).
    pub(super) fn parameters(&mut self, node: &Node, key: &str) -> Vec<Parameter> {
        let mut out = Vec::new();
        for (name, v) in self.entries(node, key, &[]) {
            let is_definition = v.as_map().is_some_and(|m| {
                !m.is_empty()
                    && m.iter()
                        .all(|(k, _)| k.as_str().is_some_and(|k| PROPERTY_KEYS.contains(&k)))
                    && m.iter().any(|(k, _)| {
                        matches!(
                            k.as_str(),
                            Some("type" | "default" | "value" | "required" | "description")
                        )
                    })
            });
            if is_definition {
                out.push(Parameter {
                    name,
                    value: v.get("value").cloned(),
                    default: v.get("default").cloned(),
                    required: !v.get("required").is_some_and(is_false),
                    definition: true,
                });
            } else {
                out.push(Parameter {
                    name,
                    value: Some(v.clone()),
                    default: None,
                    required: true,
                    definition: false,
                });
            }
        }
        out
    }
}

impl Reader<'_> {
    /// W0412 for an implementation's `timeout` or `operation_host` (1.3
    /// §3.6.16), which the plans do not honour.
    fn not_honoured(&mut self, key: &Spanned) {
        let (what, hint) = if key.text == "timeout" {
            (
                "the plans wait for the operation's result however long it takes: its `timeout` is not enforced",
                "let the operation's implementation give up after its time, or the management bus",
            )
        } else {
            (
                "the management bus runs the operation where its conventions say (on the node's host for a node's scripts): `operation_host` is not followed",
                "leave out `operation_host`, or host the node where the operation should run",
            )
        };
        self.ignored(key.span, what.to_string(), hint);
    }
}

#[cfg(test)]
mod tests {
    use super::super::read_text;
    use crate::diagnostics::codes;

    #[test]
    fn timeout_and_operation_host_are_said_not_to_be_honoured() {
        let (_, d) = read_text(
            "tosca_definitions_version: tosca_simple_yaml_1_3\ntopology_template:\n  node_templates:\n    \
             a:\n      type: T\n      interfaces:\n        Standard:\n          create:\n            \
             implementation: {primary: c.sh, timeout: 60, operation_host: ORCHESTRATOR}\n",
        );
        let found: Vec<(&str, u32)> = d
            .iter()
            .map(|d| (d.code, d.location.as_ref().unwrap().column))
            .collect();
        assert_eq!(found, [(codes::W_IGNORED, 45), (codes::W_IGNORED, 58)]);
        assert!(
            d.iter()
                .next()
                .unwrap()
                .message
                .contains("`timeout` is not enforced")
        );
    }
}
