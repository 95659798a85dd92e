//! Reading the TOSCA YAML grammar: a parsed [`Node`] tree becomes an
//! [`ast::File`]. Every key is checked against the keys TOSCA defines at
//! that place (unknown ones are warnings, W0304, since they change no
//! meaning we use); values of the wrong YAML kind are errors that name the
//! key (E0302). Both interface grammars (1.3 `operations:` and the older
//! form with operations directly under the interface) are read, as are
//! 1.x `topology_template` and 2.0 `service_template`.
//!
//! In: the parsed document and its version. Out: the AST and diagnostics.

use std::sync::Arc;

use super::ast::*;
use super::node::{Kind, Node};
use super::version::Version;
use crate::diagnostics::{Diagnostic, Diagnostics, SourceFile, Span, codes};

const TOP_KEYS: &[&str] = &[
    "tosca_definitions_version",
    "namespace",
    "metadata",
    "description",
    "dsl_definitions",
    "repositories",
    "imports",
    "artifact_types",
    "data_types",
    "capability_types",
    "interface_types",
    "relationship_types",
    "node_types",
    "group_types",
    "policy_types",
    "topology_template",
    "service_template",
    "template_name",
    "template_author",
    "template_version",
    "profile",
    "functions",
];

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
        TypeKind::Capability => &["properties", "attributes", "valid_source_types"],
        TypeKind::Interface => &["inputs", "operations", "notifications"],
        TypeKind::Artifact => &["mime_type", "file_ext", "properties"],
        TypeKind::Data => &[
            "constraints",
            "validation",
            "properties",
            "key_schema",
            "entry_schema",
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

const PROPERTY_KEYS: &[&str] = &[
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

/// Read a document.
pub(crate) fn read(
    source: &Arc<SourceFile>,
    root: Node,
    version: Version,
    diags: &mut Diagnostics,
) -> File {
    let mut r = Reader {
        source,
        diags,
        version,
    };
    let mut file = File {
        source: source.clone(),
        root: Node {
            kind: Kind::Null,
            span: Span::default(),
        },
        version,
        namespace: None,
        metadata: Vec::new(),
        imports: Vec::new(),
        repositories: Vec::new(),
        types: Vec::new(),
        topology: None,
    };
    for (k, v) in r.entries(&root, "the file", TOP_KEYS) {
        match k.text.as_str() {
            "namespace" => file.namespace = r.string(v, "namespace"),
            "metadata" => file.metadata.extend(r.string_map(v, "metadata")),
            "template_name" | "template_author" | "template_version" => {
                if let Some(s) = r.string(v, &k.text) {
                    file.metadata.push((k.text.clone(), s.text));
                }
            }
            "repositories" => {
                for (name, value) in r.entries(v, "repositories", &[]) {
                    let url = match &value.kind {
                        Kind::Scalar { text, .. } => Some(text.clone()),
                        Kind::Map(_) => value.get("url").and_then(Node::as_str).map(str::to_string),
                        _ => None,
                    };
                    file.repositories.push((name, url));
                }
            }
            "imports" => file.imports = r.imports(v),
            "topology_template" | "service_template" => {
                let mut t = r.topology(v);
                t.key_span = Span::new(k.span.start, v.span.end.max(k.span.end));
                file.topology = Some(t);
            }
            section => {
                if let Some(kind) = TypeKind::ALL.iter().find(|t| t.section() == section) {
                    for (name, def) in r.entries(v, section, &[]) {
                        file.types.push(r.type_def(*kind, name, def));
                    }
                }
            }
        }
    }
    file.root = root;
    file
}

struct Reader<'a> {
    source: &'a Arc<SourceFile>,
    diags: &'a mut Diagnostics,
    version: Version,
}

impl<'a> Reader<'a> {
    fn wrong_kind(&mut self, node: &Node, key: &str, expected: &str) {
        self.diags.push(
            Diagnostic::error(
                codes::YAML_WRONG_KIND,
                format!("`{key}` must be {expected}, but it is {}", describe(node)),
            )
            .at(self.source.location(node.span)),
        );
    }

    /// The entries of a map (null is empty); keys not in `known` (if it is
    /// not empty) are warned about.
    fn entries<'n>(
        &mut self,
        node: &'n Node,
        what: &str,
        known: &[&str],
    ) -> Vec<(Spanned, &'n Node)> {
        let items = match &node.kind {
            Kind::Null => return Vec::new(),
            Kind::Map(m) => m,
            _ => {
                self.wrong_kind(node, what, "a map");
                return Vec::new();
            }
        };
        let mut out = Vec::with_capacity(items.len());
        for (k, v) in items {
            let Some(key) = k.as_str() else {
                self.wrong_kind(k, &format!("a key in {what}"), "a string");
                continue;
            };
            if !known.is_empty() && !known.contains(&key) {
                self.unknown_key(k, key, what);
            }
            out.push((Spanned::new(key, k.span), v));
        }
        out
    }

    fn unknown_key(&mut self, k: &Node, key: &str, what: &str) {
        self.diags.push(
            Diagnostic::warning(
                codes::W_YAML_UNKNOWN_KEY,
                format!("`{key}` is not a TOSCA keyname in {what}; it is ignored"),
            )
            .at(self.source.location(k.span)),
        );
    }

    /// Entries of a map or of a list of single-key maps (1.x writes
    /// policies and some imports that way).
    fn entries_or_list<'n>(&mut self, node: &'n Node, what: &str) -> Vec<(Spanned, &'n Node)> {
        match &node.kind {
            Kind::Seq(items) => {
                let mut out = Vec::new();
                for item in items {
                    match item.as_map() {
                        Some([(k, v)]) if k.as_str().is_some() => {
                            out.push((Spanned::new(k.as_str().unwrap_or_default(), k.span), v))
                        }
                        _ => self.wrong_kind(
                            item,
                            &format!("an entry of {what}"),
                            "a map with one key",
                        ),
                    }
                }
                out
            }
            _ => self.entries(node, what, &[]),
        }
    }

    fn string(&mut self, node: &Node, key: &str) -> Option<Spanned> {
        match &node.kind {
            Kind::Scalar { text, .. } => Some(Spanned::new(text.clone(), node.span)),
            Kind::Null => None,
            _ => {
                self.wrong_kind(node, key, "a string");
                None
            }
        }
    }

    fn string_map(&mut self, node: &Node, key: &str) -> Vec<(String, String)> {
        let mut out = Vec::new();
        for (k, v) in self.entries(node, key, &[]) {
            match &v.kind {
                Kind::Scalar { text, .. } => out.push((k.text, text.clone())),
                Kind::Null => out.push((k.text, String::new())),
                _ => {}
            }
        }
        out
    }

    /// Like [`Self::string_map`], keeping where each key and value is.
    fn spanned_string_map(&mut self, node: &Node, key: &str) -> Vec<(Spanned, Spanned)> {
        let mut out = Vec::new();
        for (k, v) in self.entries(node, key, &[]) {
            if let Kind::Scalar { text, .. } = &v.kind {
                out.push((k, Spanned::new(text.clone(), v.span)));
            }
        }
        out
    }

    fn string_list(&mut self, node: &Node, key: &str) -> Vec<Spanned> {
        match &node.kind {
            Kind::Null => Vec::new(),
            Kind::Scalar { text, .. } => vec![Spanned::new(text.clone(), node.span)],
            Kind::Seq(items) => items.iter().filter_map(|i| self.string(i, key)).collect(),
            _ => {
                self.wrong_kind(node, key, "a list of strings");
                Vec::new()
            }
        }
    }

    fn imports(&mut self, node: &Node) -> Vec<Import> {
        let Some(items) = node.as_seq() else {
            if !node.is_null() {
                self.wrong_kind(node, "imports", "a list");
            }
            return Vec::new();
        };
        let mut out = Vec::new();
        for item in items {
            let mut imp = Import {
                file: None,
                profile: None,
                repository: None,
                prefix: None,
                span: item.span,
            };
            match &item.kind {
                Kind::Scalar { text, .. } => imp.file = Some(Spanned::new(text.clone(), item.span)),
                Kind::Map(m) => {
                    let long = m.iter().any(|(k, _)| {
                        matches!(
                            k.as_str(),
                            Some(
                                "file"
                                    | "url"
                                    | "profile"
                                    | "repository"
                                    | "namespace_prefix"
                                    | "namespace"
                                    | "namespace_uri"
                            )
                        )
                    });
                    // 1.0 also allows `- name: uri` and `- name: {file: …}`.
                    let body = if !long && m.len() == 1 { &m[0].1 } else { item };
                    match &body.kind {
                        Kind::Scalar { text, .. } => {
                            imp.file = Some(Spanned::new(text.clone(), body.span))
                        }
                        Kind::Map(_) => {
                            for (k, v) in self.entries(
                                body,
                                "an import",
                                &[
                                    "file",
                                    "url",
                                    "profile",
                                    "repository",
                                    "namespace_prefix",
                                    "namespace",
                                    "namespace_uri",
                                    "description",
                                    "metadata",
                                ],
                            ) {
                                match k.text.as_str() {
                                    "file" | "url" => imp.file = self.string(v, &k.text),
                                    "profile" => imp.profile = self.string(v, "profile"),
                                    "repository" => imp.repository = self.string(v, "repository"),
                                    "namespace_prefix" => imp.prefix = self.string(v, &k.text),
                                    // 2.0: `namespace` is the prefix; 1.x has
                                    // only the deprecated `namespace_uri`.
                                    "namespace" if self.version.is_v2() => {
                                        imp.prefix = self.string(v, &k.text)
                                    }
                                    _ => {}
                                }
                            }
                        }
                        _ => self.wrong_kind(body, "an import", "a file name or a map"),
                    }
                }
                _ => self.wrong_kind(item, "an import", "a file name or a map"),
            }
            out.push(imp);
        }
        out
    }

    fn type_def(&mut self, kind: TypeKind, name: Spanned, node: &Node) -> TypeDef {
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
                                        "occurrences",
                                        "metadata",
                                    ],
                                );
                                cv.get("type").and_then(|t| self.string(t, "type"))
                            }
                            _ => None,
                        };
                        def.capabilities.push((cname, t));
                    }
                }
                "interfaces" => def.interfaces = self.interfaces(v),
                "artifacts" => def.artifacts = self.artifacts(v),
                _ => {}
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

    fn property_defs(&mut self, node: &Node, key: &str) -> Vec<PropertyDef> {
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
                            _ => {}
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
                                r.min = rv
                                    .as_seq()
                                    .and_then(|s| s.first())
                                    .and_then(Node::as_str)
                                    .and_then(|s| s.parse().ok());
                            }
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

    fn interfaces(&mut self, node: &Node) -> Vec<Interface> {
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

    fn operation(&mut self, name: Spanned, node: &Node) -> Operation {
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

    fn implementation(&mut self, node: &Node) -> Option<Implementation> {
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

    fn artifacts(&mut self, node: &Node) -> Vec<ArtifactDef> {
        let mut out = Vec::new();
        for (name, v) in self.entries_or_list(node, "artifacts") {
            out.push(self.artifact(name, v));
        }
        out
    }

    fn artifact(&mut self, name: Spanned, node: &Node) -> ArtifactDef {
        let mut a = ArtifactDef {
            name,
            type_name: None,
            file: None,
            repository: None,
            span: node.span,
        };
        match &node.kind {
            Kind::Scalar { text, .. } => a.file = Some(Spanned::new(text.clone(), node.span)),
            Kind::Map(_) => {
                let what = format!("artifact `{}`", a.name.text);
                for (k, v) in self.entries(
                    node,
                    &what,
                    &[
                        "type",
                        "file",
                        "repository",
                        "description",
                        "deploy_path",
                        "artifact_version",
                        "checksum",
                        "checksum_algorithm",
                        "properties",
                        "metadata",
                        "mime_type",
                    ],
                ) {
                    match k.text.as_str() {
                        "type" => a.type_name = self.string(v, "type"),
                        "file" => a.file = self.string(v, "file"),
                        "repository" => a.repository = self.string(v, "repository"),
                        _ => {}
                    }
                }
            }
            _ => self.wrong_kind(node, "an artifact", "a file name or a map"),
        }
        a
    }

    /// Operation or interface inputs: assignments (bare values) or
    /// definitions (maps with `type`, `default`, `value`, ...).
    fn parameters(&mut self, node: &Node, key: &str) -> Vec<Parameter> {
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

    fn assignments(&mut self, node: &Node, key: &str) -> Vec<(Spanned, Node)> {
        self.entries(node, key, &[])
            .into_iter()
            .map(|(k, v)| (k, v.clone()))
            .collect()
    }

    fn topology(&mut self, node: &Node) -> Topology {
        let mut t = Topology {
            span: node.span,
            ..Topology::default()
        };
        for (k, v) in self.entries(
            node,
            "the topology template",
            &[
                "description",
                "inputs",
                "node_templates",
                "relationship_templates",
                "outputs",
                "groups",
                "policies",
                "substitution_mappings",
                "workflows",
            ],
        ) {
            match k.text.as_str() {
                "inputs" => t.inputs = self.property_defs(v, "inputs"),
                "node_templates" => {
                    for (name, nv) in self.entries(v, "node_templates", &[]) {
                        let n = self.node_template(name, nv);
                        t.node_templates.push(n);
                    }
                }
                "relationship_templates" => {
                    for (name, rv) in self.entries(v, "relationship_templates", &[]) {
                        let what = format!("relationship template `{}`", name.text);
                        let mut r = RelationshipTemplate {
                            name,
                            type_name: None,
                            properties: Vec::new(),
                            interfaces: Vec::new(),
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
                                "interfaces" => r.interfaces = self.interfaces(rvv),
                                _ => {}
                            }
                        }
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
                                _ => {}
                            }
                        }
                        t.groups.push(g);
                    }
                }
                "policies" => {
                    for (name, pv) in self.entries_or_list(v, "policies") {
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
        t
    }

    fn node_template(&mut self, name: Spanned, node: &Node) -> NodeTemplate {
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
                        };
                        for (ck, cvv) in self.entries(
                            cv,
                            &cwhat,
                            &["properties", "attributes", "occurrences", "directives"],
                        ) {
                            match ck.text.as_str() {
                                "properties" => c.properties = self.assignments(cvv, "properties"),
                                "attributes" => c.attributes = self.assignments(cvv, "attributes"),
                                _ => {}
                            }
                        }
                        n.capabilities.push(c);
                    }
                }
                "interfaces" => n.interfaces = self.interfaces(v),
                "artifacts" => n.artifacts = self.artifacts(v),
                "copy" => n.copy = self.string(v, "copy"),
                // Multiplicity (1.3 §2.20, 2.0 `count`): the build plan makes
                // one instance per template; say so rather than drop it quietly.
                "count" | "occurrences" | "instance_count" => self.diags.push(
                    Diagnostic::warning(
                        codes::W_IGNORED,
                        format!(
                            "`{}` of node template `{}` is not used: the build plan creates one instance of every template",
                            k.text, n.name.text
                        ),
                    )
                    .at(self.source.location(k.span))
                    .hint("scale-out plans add instances; declare a Scaling policy for the template"),
                ),
                _ => {}
            }
        }
        n
    }

    fn requirement_assignments(&mut self, node: &Node, owner: &str) -> Vec<RequirementAssignment> {
        let items = match &node.kind {
            Kind::Null => return Vec::new(),
            Kind::Seq(items) => items,
            _ => {
                self.wrong_kind(node, &format!("`requirements` of {owner}"), "a list");
                return Vec::new();
            }
        };
        let mut out = Vec::new();
        for item in items {
            let (k, v) = match item.as_map() {
                Some([(k, v)]) if k.as_str().is_some() => (k, v),
                Some(m) if m.len() > 1 => {
                    let keys: Vec<&str> = m.iter().filter_map(|(k, _)| k.as_str()).collect();
                    self.diags.push(
                        Diagnostic::error(
                            codes::YAML_WRONG_KIND,
                            format!(
                                "a requirement assignment of {owner} is a map with one key (the requirement name), but this one has {}: {}",
                                keys.len(),
                                keys.iter().map(|k| format!("`{k}`")).collect::<Vec<_>>().join(", ")
                            ),
                        )
                        .at(self.source.location(item.span))
                        .hint("indent the keys that belong to the requirement under its name"),
                    );
                    continue;
                }
                _ => {
                    let mut d = Diagnostic::error(
                        codes::YAML_WRONG_KIND,
                        format!(
                            "a requirement assignment of {owner} must be a map with one key, but it is {}",
                            describe(item)
                        ),
                    )
                    .at(self.source.location(item.span));
                    if item.as_str().is_some_and(|s| s.contains(':')) {
                        d = d.hint("put a space after the colon: `- name: target`");
                    }
                    self.diags.push(d);
                    continue;
                }
            };
            let name = Spanned::new(k.as_str().unwrap_or_default(), k.span);
            let mut r = RequirementAssignment {
                name,
                node: None,
                capability: None,
                relationship: None,
                node_filter: false,
                span: item.span,
            };
            let what = format!("requirement `{}` of {owner}", r.name.text);
            match &v.kind {
                Kind::Scalar { text, .. } => r.node = Some(Spanned::new(text.clone(), v.span)),
                Kind::Null => {}
                Kind::Map(_) => {
                    for (rk, rv) in self.entries(
                        v,
                        &what,
                        &[
                            "node",
                            "capability",
                            "relationship",
                            "node_filter",
                            "occurrences",
                            "count",
                            "description",
                            "directives",
                            "optional",
                            "allocation",
                            "metadata",
                        ],
                    ) {
                        match rk.text.as_str() {
                            "node" => r.node = self.string(rv, "node"),
                            "capability" => r.capability = self.string(rv, "capability"),
                            "node_filter" => r.node_filter = true,
                            "relationship" => {
                                r.relationship = match &rv.kind {
                                    Kind::Scalar { text, .. } => {
                                        Some(RelationshipAssignment::Name(Spanned::new(
                                            text.clone(),
                                            rv.span,
                                        )))
                                    }
                                    Kind::Map(_) => {
                                        let mut type_name = None;
                                        let mut properties = Vec::new();
                                        let mut interfaces = Vec::new();
                                        for (ik, iv) in self.entries(
                                            rv,
                                            "relationship",
                                            &[
                                                "type",
                                                "properties",
                                                "attributes",
                                                "interfaces",
                                                "description",
                                                "metadata",
                                            ],
                                        ) {
                                            match ik.text.as_str() {
                                                "type" => type_name = self.string(iv, "type"),
                                                "properties" => {
                                                    properties = self.assignments(iv, "properties")
                                                }
                                                "interfaces" => interfaces = self.interfaces(iv),
                                                _ => {}
                                            }
                                        }
                                        Some(RelationshipAssignment::Inline {
                                            type_name,
                                            properties,
                                            interfaces,
                                            span: rv.span,
                                        })
                                    }
                                    Kind::Null => None,
                                    Kind::Seq(_) => {
                                        self.wrong_kind(rv, "relationship", "a name or a map");
                                        None
                                    }
                                }
                            }
                            _ => {}
                        }
                    }
                }
                Kind::Seq(_) => self.wrong_kind(v, &what, "a node template name or a map"),
            }
            out.push(r);
        }
        out
    }

    fn substitution(&mut self, node: &Node) -> Substitution {
        let mut s = Substitution {
            node_type: None,
            requirements: Vec::new(),
            capabilities: Vec::new(),
            properties: Vec::new(),
            interfaces: Vec::new(),
            span: node.span,
        };
        for (k, v) in self.entries(
            node,
            "substitution_mappings",
            &[
                "node_type",
                "substitution_filter",
                "node",
                "properties",
                "attributes",
                "capabilities",
                "requirements",
                "interfaces",
            ],
        ) {
            match k.text.as_str() {
                "node_type" => s.node_type = self.string(v, "node_type"),
                "requirements" | "capabilities" => {
                    let mut list = Vec::new();
                    for (name, mv) in self.entries_or_list(v, &k.text) {
                        let target = match &mv.kind {
                            Kind::Seq(_) => self.string_list(mv, &k.text),
                            Kind::Map(_) => Vec::new(),
                            _ => self.string_list(mv, &k.text),
                        };
                        list.push((name, target));
                    }
                    if k.text == "requirements" {
                        s.requirements = list;
                    } else {
                        s.capabilities = list;
                    }
                }
                "properties" => s.properties = self.assignments(v, "properties"),
                // 1.3: `<interface>: {<operation>: <workflow>}` (older texts:
                // `<operation>: <workflow>`); 2.0 drafts map lists. Only the
                // workflow names are kept.
                "interfaces" => {
                    for (name, wv) in self.entries(v, "interfaces", &[]) {
                        match &wv.kind {
                            Kind::Scalar { text, .. } => s
                                .interfaces
                                .push((name, Spanned::new(text.clone(), wv.span))),
                            Kind::Map(_) => {
                                for (op, w) in self.entries(wv, "interfaces", &[]) {
                                    if let Some(w) = w.as_str() {
                                        let key = Spanned::new(
                                            format!("{}.{}", name.text, op.text),
                                            op.span,
                                        );
                                        s.interfaces.push((key, Spanned::new(w, w_span(wv, &op))));
                                    }
                                }
                            }
                            _ => {}
                        }
                    }
                }
                _ => {}
            }
        }
        s
    }

    fn workflow(&mut self, name: Spanned, node: &Node) -> Workflow {
        let what = format!("workflow `{}`", name.text);
        let mut w = Workflow {
            span: Span::new(name.span.start, node.span.end.max(name.span.end)),
            name,
            description: None,
            metadata: Vec::new(),
            inputs: Vec::new(),
            preconditions: Vec::new(),
            steps: Vec::new(),
            implementation: None,
        };
        for (k, v) in self.entries(
            node,
            &what,
            &[
                "description",
                "metadata",
                "inputs",
                "preconditions",
                "precondition",
                "steps",
                "implementation",
                "outputs",
            ],
        ) {
            match k.text.as_str() {
                "description" => w.description = v.as_str().map(str::to_string),
                "metadata" => w.metadata = self.string_map(v, "metadata"),
                "inputs" => w.inputs = self.property_defs(v, "inputs"),
                "preconditions" | "precondition" => {
                    let items: Vec<&Node> = match &v.kind {
                        Kind::Seq(s) => s.iter().collect(),
                        Kind::Null => Vec::new(),
                        _ => vec![v],
                    };
                    for p in items {
                        let mut pre = Precondition {
                            target: None,
                            target_relationship: None,
                            condition: None,
                            span: p.span,
                        };
                        for (pk, pv) in self.entries(
                            p,
                            "a precondition",
                            &["target", "target_relationship", "condition"],
                        ) {
                            match pk.text.as_str() {
                                "target" => pre.target = self.string(pv, "target"),
                                "target_relationship" => {
                                    pre.target_relationship = self.string(pv, "target_relationship")
                                }
                                "condition" => pre.condition = Some(pv.clone()),
                                _ => {}
                            }
                        }
                        w.preconditions.push(pre);
                    }
                }
                "steps" => {
                    for (sname, sv) in self.entries(v, "steps", &[]) {
                        let step = self.step(sname, sv);
                        w.steps.push(step);
                    }
                }
                "implementation" => w.implementation = self.implementation(v),
                _ => {}
            }
        }
        w
    }

    fn step(&mut self, name: Spanned, node: &Node) -> WorkflowStep {
        let what = format!("step `{}`", name.text);
        let mut s = WorkflowStep {
            name,
            target: None,
            target_relationship: None,
            operation_host: None,
            filter: None,
            activities: Vec::new(),
            on_success: Vec::new(),
            on_failure: Vec::new(),
            span: node.span,
        };
        // A step with nothing under it (`D:`) is an empty step.
        if !matches!(node.kind, Kind::Map(_) | Kind::Null) {
            self.wrong_kind(node, &what, "a map");
            return s;
        }
        for (k, v) in self.entries(
            node,
            &what,
            &[
                "target",
                "target_relationship",
                "operation_host",
                "filter",
                "activities",
                "on_success",
                "on_failure",
            ],
        ) {
            match k.text.as_str() {
                "target" => s.target = self.string(v, "target"),
                "target_relationship" => {
                    s.target_relationship = self.string(v, "target_relationship")
                }
                "operation_host" => s.operation_host = self.string(v, "operation_host"),
                "filter" => s.filter = Some(v.clone()),
                "on_success" => s.on_success = self.string_list(v, "on_success"),
                "on_failure" => s.on_failure = self.string_list(v, "on_failure"),
                "activities" => {
                    let items = match &v.kind {
                        Kind::Seq(items) => items.as_slice(),
                        Kind::Null => &[],
                        _ => {
                            self.wrong_kind(v, "activities", "a list");
                            &[]
                        }
                    };
                    for item in items {
                        if let Some(a) = self.activity(item) {
                            s.activities.push(a);
                        }
                    }
                }
                _ => {}
            }
        }
        s
    }

    fn activity(&mut self, node: &Node) -> Option<WorkflowActivity> {
        let Some([(k, v)]) = node.as_map() else {
            self.wrong_kind(
                node,
                "an activity",
                "a map with one key (delegate, set_state, call_operation or inline)",
            );
            return None;
        };
        let key = k.as_str().unwrap_or_default();
        let kind = match key {
            "delegate" => ActivityKind::Delegate,
            "set_state" => ActivityKind::SetState,
            "call_operation" => ActivityKind::CallOperation,
            "inline" => ActivityKind::Inline,
            other => {
                self.diags.push(
                    Diagnostic::error(
                        codes::YAML_WRONG_KIND,
                        format!("`{other}` is not a workflow activity"),
                    )
                    .at(self.source.location(k.span))
                    .hint("an activity is one of delegate, set_state, call_operation, inline"),
                );
                return None;
            }
        };
        let main = match kind {
            ActivityKind::CallOperation => "operation",
            _ => "workflow",
        };
        let (argument, inputs) = match &v.kind {
            Kind::Scalar { text, .. } => (Spanned::new(text.clone(), v.span), Vec::new()),
            Kind::Map(_) if !matches!(kind, ActivityKind::SetState) => {
                let mut arg = None;
                let mut inputs = Vec::new();
                for (ak, av) in self.entries(v, key, &[main, "inputs"]) {
                    if ak.text == main {
                        arg = self.string(av, main);
                    } else if ak.text == "inputs" {
                        inputs = self.assignments(av, "inputs");
                    }
                }
                let Some(arg) = arg else {
                    self.diags.push(
                        Diagnostic::error(
                            codes::YAML_MISSING_KEY,
                            format!("`{key}` has no `{main}`"),
                        )
                        .at(self.source.location(v.span)),
                    );
                    return None;
                };
                (arg, inputs)
            }
            _ => {
                self.wrong_kind(v, key, "a string");
                return None;
            }
        };
        Some(WorkflowActivity {
            kind,
            argument,
            inputs,
            span: node.span,
        })
    }
}

/// The span of the value of `key` in the map `node`.
fn w_span(node: &Node, key: &Spanned) -> Span {
    node.as_map()
        .and_then(|m| m.iter().find(|(k, _)| k.span == key.span))
        .map(|(_, v)| v.span)
        .unwrap_or(key.span)
}

fn singular(key: &str) -> &str {
    match key {
        "properties" => "property",
        "attributes" => "attribute",
        "inputs" => "input",
        _ => key,
    }
}

/// A node for messages: its kind, and a short scalar in quotes.
pub(crate) fn describe(node: &Node) -> String {
    match &node.kind {
        Kind::Scalar { text, .. } if text.chars().count() <= 40 => format!("the scalar `{text}`"),
        _ => node.kind_name().to_string(),
    }
}

/// YAML 1.1 spellings of false (`no`, `off`) are common in TOSCA files.
fn is_false(node: &Node) -> bool {
    node.as_str()
        .is_some_and(|s| matches!(s.to_ascii_lowercase().as_str(), "false" | "no" | "off"))
}
