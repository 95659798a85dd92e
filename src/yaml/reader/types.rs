//! Type definitions (1.3 §3.7) of every kind: the keys each kind allows,
//! and their property, attribute, requirement and interface definitions.
//!
//! In: the YAML node of that section. Out: its AST; keys TOSCA does not
//! define there are warnings (W0304), values of the wrong kind errors
//! (E0302).

use super::Reader;
use crate::yaml::ast::{CapabilityLimits, PropertyDef, RequirementDef, Spanned, TypeDef, TypeKind};
use crate::yaml::node::{Kind, Node};

impl<'a> Reader<'a> {
    pub(super) fn type_def(&mut self, kind: TypeKind, name: Spanned, node: &Node) -> TypeDef {
        let mut def = TypeDef {
            kind,
            name,
            derived_from: None,
            properties: Vec::new(),
            attributes: Vec::new(),
            requirements: Vec::new(),
            capabilities: Vec::new(),
            interfaces: Vec::new(),
            artifacts: Vec::new(),
            operations: Vec::new(),
            inputs: Vec::new(),
            valid_sources: Vec::new(),
            valid_relationships: Vec::new(),
            capability_limits: Vec::new(),
            schema: Default::default(),
            span: node.span,
        };
        let what = format!("{} `{}`", kind.noun(), def.name.text);
        if kind == TypeKind::Interface {
            self.interface_type(&mut def, node, &what);
            return def;
        }
        let mut known: Vec<&str> = TYPE_COMMON.to_vec();
        known.extend_from_slice(type_keys(kind));
        for (k, v) in self.entries(node, &what, &known) {
            match k.text.as_str() {
                "derived_from" => def.derived_from = self.string(v, "derived_from"),
                "properties" => def.properties = self.property_defs(v, "properties"),
                "attributes" => def.attributes = self.property_defs(v, "attributes"),
                "requirements" => def.requirements = self.requirement_defs(v),
                "valid_source_types" | "valid_source_node_types"
                    if kind == TypeKind::Capability =>
                {
                    def.valid_sources = self.string_list(v, &k.text)
                }
                "valid_relationship_types" if kind == TypeKind::Capability => {
                    def.valid_relationships = self.string_list(v, &k.text)
                }
                "capabilities" => {
                    for (cname, cv) in self.entries(v, "capabilities", &[]) {
                        let t = match &cv.kind {
                            Kind::Scalar { text, .. } => Some(Spanned::new(text.clone(), cv.span)),
                            Kind::Map(_) => {
                                self.entries(
                                    cv,
                                    &format!("capability `{}`", cname.text),
                                    &[
                                        "type",
                                        "description",
                                        "properties",
                                        "attributes",
                                        "valid_source_types",
                                        "valid_source_node_types",
                                        "valid_relationship_types",
                                        "occurrences",
                                        "metadata",
                                    ],
                                );
                                let list = |r: &mut Self, keys: &[&str]| {
                                    keys.iter()
                                        .filter_map(|k| cv.get(k))
                                        .flat_map(|v| r.string_list(v, "capability"))
                                        .collect::<Vec<_>>()
                                };
                                let sources =
                                    list(self, &["valid_source_types", "valid_source_node_types"]);
                                let relationships = list(self, &["valid_relationship_types"]);
                                if !sources.is_empty() || !relationships.is_empty() {
                                    def.capability_limits.push(CapabilityLimits {
                                        name: cname.text.clone(),
                                        sources,
                                        relationships,
                                    });
                                }
                                cv.get("type").and_then(|t| self.string(t, "type"))
                            }
                            _ => None,
                        };
                        def.capabilities.push((cname, t));
                    }
                }
                "interfaces" => def.interfaces = self.interfaces(v),
                "artifacts" => def.artifacts = self.artifacts(v),
                "units" => def.schema.units = multipliers(v),
                "prefixes" => def.schema.prefixes = multipliers(v),
                key => def.schema.take(key, v),
            }
        }
        def
    }

    fn interface_type(&mut self, def: &mut TypeDef, node: &Node, what: &str) {
        let has_operations =
            node.get("operations").is_some() || node.get("notifications").is_some();
        for (k, v) in self.entries(node, what, &[]) {
            match k.text.as_str() {
                "derived_from" => def.derived_from = self.string(v, "derived_from"),
                "version" | "metadata" | "description" | "notifications" => {}
                "inputs" => def.inputs = self.parameters(v, "inputs"),
                "operations" => {
                    for (oname, ov) in self.entries(v, "operations", &[]) {
                        let op = self.operation(oname, ov);
                        def.operations.push(op);
                    }
                }
                _ if has_operations => {
                    let key_node = Node {
                        kind: Kind::Null,
                        span: k.span,
                    };
                    self.unknown_key(&key_node, &k.text, what);
                }
                // The old grammar: operations directly under the type.
                _ => {
                    let op = self.operation(k, v);
                    def.operations.push(op);
                }
            }
        }
    }

    pub(super) fn property_defs(&mut self, node: &Node, key: &str) -> Vec<PropertyDef> {
        let mut out = Vec::new();
        for (name, v) in self.entries(node, key, &[]) {
            let what = format!("{} `{}`", singular(key), name.text);
            let mut p = PropertyDef {
                name,
                type_name: None,
                required: true,
                default: None,
                value: None,
                description: None,
                schema: Default::default(),
            };
            match &v.kind {
                Kind::Map(_) => {
                    for (k, pv) in self.entries(v, &what, PROPERTY_KEYS) {
                        match k.text.as_str() {
                            "type" => p.type_name = self.string(pv, "type").map(|s| s.text),
                            "required" => p.required = !is_false(pv),
                            "default" => p.default = Some(pv.clone()),
                            "value" => p.value = Some(pv.clone()),
                            "description" => p.description = pv.as_str().map(str::to_string),
                            key => p.schema.take(key, pv),
                        }
                    }
                }
                Kind::Null => {}
                // A bare value where a definition belongs: used as the default.
                _ => p.default = Some(v.clone()),
            }
            out.push(p);
        }
        out
    }

    fn requirement_defs(&mut self, node: &Node) -> Vec<RequirementDef> {
        let mut out = Vec::new();
        for (name, v) in self.entries_or_list(node, "requirements") {
            let mut r = RequirementDef {
                name,
                capability: None,
                node: None,
                relationship: None,
                relationship_interfaces: Vec::new(),
                min: None,
                max: None,
                node_filter: None,
                span: v.span,
            };
            let what = format!("requirement `{}`", r.name.text);
            match &v.kind {
                Kind::Scalar { text, .. } => {
                    r.capability = Some(Spanned::new(text.clone(), v.span))
                }
                Kind::Map(_) => {
                    for (k, rv) in self.entries(
                        v,
                        &what,
                        &[
                            "capability",
                            "node",
                            "relationship",
                            "occurrences",
                            "count_range",
                            "node_filter",
                            "description",
                            "metadata",
                            "allocation",
                        ],
                    ) {
                        match k.text.as_str() {
                            "capability" => r.capability = self.string(rv, "capability"),
                            "node" => r.node = self.string(rv, "node"),
                            "relationship" => match &rv.kind {
                                Kind::Map(_) => {
                                    for (rk, rvv) in self.entries(
                                        rv,
                                        "relationship",
                                        &["type", "interfaces", "description"],
                                    ) {
                                        match rk.text.as_str() {
                                            "type" => r.relationship = self.string(rvv, "type"),
                                            "interfaces" => {
                                                r.relationship_interfaces = self.interfaces(rvv)
                                            }
                                            _ => {}
                                        }
                                    }
                                }
                                _ => r.relationship = self.string(rv, "relationship"),
                            },
                            "occurrences" | "count_range" => {
                                let bound = |i: usize| {
                                    rv.as_seq()
                                        .and_then(|s| s.get(i))
                                        .and_then(Node::as_str)
                                        .and_then(|s| s.parse().ok())
                                };
                                r.min = bound(0);
                                r.max = bound(1);
                            }
                            "node_filter" => r.node_filter = Some(rv.clone()),
                            _ => {}
                        }
                    }
                }
                _ => self.wrong_kind(v, &what, "a capability type or a map"),
            }
            out.push(r);
        }
        out
    }
}

/// A map of names to numbers (a scalar type's `units` or `prefixes`);
/// an entry whose value is no number is left out (its checks then fail
/// on values that use it).
fn multipliers(node: &Node) -> Vec<(String, f64)> {
    node.as_map()
        .unwrap_or_default()
        .iter()
        .filter_map(|(k, v)| Some((k.as_str()?.to_string(), v.as_str()?.trim().parse().ok()?)))
        .collect()
}

const TYPE_COMMON: &[&str] = &["derived_from", "version", "metadata", "description"];

fn type_keys(kind: TypeKind) -> &'static [&'static str] {
    match kind {
        TypeKind::Node => &[
            "properties",
            "attributes",
            "requirements",
            "capabilities",
            "interfaces",
            "artifacts",
        ],
        TypeKind::Relationship => &[
            "properties",
            "attributes",
            "interfaces",
            "valid_target_types",
            "valid_capability_types",
            "valid_target_node_types",
            "valid_source_node_types",
        ],
        // `valid_source_types` is 1.3's name; 2.0 (§8.1) has the other two.
        TypeKind::Capability => &[
            "properties",
            "attributes",
            "valid_source_types",
            "valid_source_node_types",
            "valid_relationship_types",
        ],
        TypeKind::Interface => &["inputs", "operations", "notifications"],
        TypeKind::Artifact => &["mime_type", "file_ext", "properties"],
        // The last four define a scalar type (2.0 §9.1.2.2).
        TypeKind::Data => &[
            "constraints",
            "validation",
            "properties",
            "key_schema",
            "entry_schema",
            "data_type",
            "units",
            "canonical_unit",
            "prefixes",
        ],
        TypeKind::Group => &[
            "properties",
            "attributes",
            "members",
            "requirements",
            "capabilities",
            "interfaces",
        ],
        TypeKind::Policy => &["properties", "targets", "triggers"],
    }
}

pub(super) const PROPERTY_KEYS: &[&str] = &[
    "type",
    "description",
    "required",
    "default",
    "value",
    "status",
    "constraints",
    "validation",
    "key_schema",
    "entry_schema",
    "metadata",
    "external-schema",
    "mapping",
];

fn singular(key: &str) -> &str {
    match key {
        "properties" => "property",
        "attributes" => "attribute",
        "inputs" => "input",
        _ => key,
    }
}

/// YAML 1.1 spellings of false (`no`, `off`) are common in TOSCA files.
pub(super) fn is_false(node: &Node) -> bool {
    node.as_str()
        .is_some_and(|s| matches!(s.to_ascii_lowercase().as_str(), "false" | "no" | "off"))
}
