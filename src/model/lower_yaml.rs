//! Lowering TOSCA YAML into the [`Topology`] model.
//!
//! In: the files of a service template ([`imports::Loaded`]) and the
//! built-in Simple Profile types. Out: a topology, or diagnostics.
//!
//! What happens here:
//!
//! - Type names resolve per file: its own namespace scope first (2.0
//!   `namespace`, 1.x `namespace_prefix` imports), then outer scopes, then
//!   the Simple Profile shorthands (`Compute`, `tosca:Compute`). User
//!   definitions win over the built-in ones. `derived_from` chains are
//!   walked (a cycle is E0403, an unknown parent E0401).
//! - Properties, attributes, requirements and interfaces are merged along
//!   the ancestry (a subtype or template implementation overrides; interface
//!   keys written as interface type names merge into the interface of that
//!   type). Attributes become instance properties after the properties,
//!   since plans keep both as instance data (1.3 §2.19).
//! - Each requirement assignment becomes a relationship template; its type
//!   comes from the assignment, the named relationship template, or the
//!   requirement definition, and its kind (HostedOn, DependsOn, ConnectsTo,
//!   AttachesTo, or Other) from the type's ancestry. A requirement whose
//!   target is a node *type*, only a filter, or that is required and not
//!   assigned at all is *dangling*: the orchestrator supplies the target,
//!   which becomes a delegated node of its own (1.3 §7.2.1.1).
//! - Delegated nodes (abstract: `substitute` directive, dangling targets,
//!   and nodes with no implemented operation that are hosted on nothing,
//!   like a plain Compute) are supplied by the environment; the attributes
//!   the topology reads from them become plan inputs `<node>_<attribute>`.
//! - Function calls stay calls ([`Value::Call`]); their entity keywords are
//!   resolved (`HOST` walks the hosting chain, `SOURCE`/`TARGET` name the
//!   relationship's ends, a requirement or capability name in the middle
//!   goes to the target node or reads the capability's property), so that
//!   plans bind them to instance data without knowing TOSCA YAML.

mod workflows;

use std::collections::{BTreeSet, HashMap, HashSet};
use std::sync::Arc;

use indexmap::IndexMap;

use super::{
    Artifact, Dialect, Group, Implementation, InputDef, Interface, NodeId, NodeTemplate, Operation,
    OutputDef, Parameter, Policy, PolicyTarget, RELATIONSHIP_CONFIGURE, RelKind,
    RelationshipTemplate, ServiceTemplateInfo, Substitution, Topology, TypeDef, TypeId,
    TypeKind as ModelKind, TypeName, TypeTable, Value,
};
use crate::csar::Csar;
use crate::diagnostics::{Diagnostic, Diagnostics, Location, Span, codes};
use crate::names::Unique;
use crate::yaml::ast::{self, File, TypeKind};
use crate::yaml::functions::{Classified, classify};
use crate::yaml::imports::{Loaded, is_simple_profile};
use crate::yaml::node::{Kind, Node};
use crate::yaml::normative;

/// Lower the loaded files into a topology. `csar` is used to check (and,
/// for a single-file input, read) the artifact files operations name.
pub(crate) fn lower(loaded: &Loaded, csar: &mut Csar) -> (Option<Topology>, Diagnostics) {
    let mut l = Lowerer::new(loaded, csar);
    let Some(entry) = loaded.files.first() else {
        return (None, l.diags);
    };
    let Some(topo) = &entry.topology else {
        l.diags.push(
            Diagnostic::error(
                codes::NO_SERVICE_TEMPLATE,
                format!(
                    "`{}` has no {}",
                    entry.source.name(),
                    if entry.version.is_v2() {
                        "`service_template`"
                    } else {
                        "`topology_template`"
                    }
                ),
            )
            .at(Location::file(entry.source.name()))
            .hint("a file with only type definitions can be imported, not compiled; compile the service template that uses them"),
        );
        return (None, l.diags);
    };
    let topology = l.topology(entry, topo);
    (Some(topology), l.diags)
}

/// A file as compiled: under which namespace scope, and whether built in.
#[derive(Clone, Copy)]
struct Unit<'a> {
    file: &'a File,
    scope: &'a [String],
    builtin: bool,
}

/// A type definition and the unit it was found in.
#[derive(Clone, Copy)]
struct Def<'a> {
    def: &'a ast::TypeDef,
    unit: Unit<'a>,
}

/// What `SELF` is while a value is read.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum This<'c> {
    /// Outside any template (outputs).
    Nothing,
    /// A node template.
    Node(&'c str),
    /// A relationship template.
    Relationship,
}

/// An interface while it is merged.
#[derive(Clone, Debug, Default)]
struct IfaceB {
    name: String,
    type_key: Option<String>,
    inputs: IndexMap<String, ParamB>,
    ops: IndexMap<String, OpB>,
}

#[derive(Clone, Debug, Default)]
struct ParamB {
    value: Option<Value>,
    required: bool,
}

#[derive(Clone, Debug, Default)]
struct OpB {
    implementation: Option<Implementation>,
    inputs: IndexMap<String, ParamB>,
    outputs: IndexMap<String, Value>,
}

/// A requirement definition merged along the ancestry.
#[derive(Clone)]
struct ReqB<'a> {
    capability: Option<(&'a ast::Spanned, Unit<'a>)>,
    node: Option<(&'a ast::Spanned, Unit<'a>)>,
    relationship: Option<(&'a ast::Spanned, Unit<'a>)>,
    interfaces: Vec<(&'a ast::Interface, Unit<'a>)>,
    min: u64,
}

/// Where a relationship goes before nodes are numbered.
#[derive(Clone, Copy)]
enum TargetRef {
    Node(NodeId),
    /// A dangling requirement's delegated node (index into `synthetic`).
    Synthetic(usize),
}

/// A relationship to create once every node exists.
struct PendingRel<'a> {
    id: String,
    requirement: String,
    source: NodeId,
    target: TargetRef,
    type_key: Option<(String, Unit<'a>)>,
    properties: Vec<(&'a ast::Spanned, &'a Node, Unit<'a>)>,
    interfaces: Vec<(&'a ast::Interface, Unit<'a>)>,
    origin: Location,
    unit: Unit<'a>,
}

/// A node the orchestrator supplies for a dangling requirement.
struct Synthetic {
    id: String,
    type_key: String,
    origin: Location,
    why: String,
}

struct Lowerer<'a> {
    units: Vec<Unit<'a>>,
    index: HashMap<(TypeKind, String), Def<'a>>,
    csar: &'a mut Csar,
    diags: Diagnostics,
    reported: HashSet<(String, usize, usize, &'static str)>,
    types: TypeTable,
    type_ids: HashMap<(TypeKind, String), Option<TypeId>>,
    chains: HashMap<(TypeKind, String), Option<Vec<String>>>,
    inputs: BTreeSet<String>,
    node_names: BTreeSet<String>,
    rel_template_names: BTreeSet<String>,
    /// 2.0 files that used a built-in type without importing a profile.
    implicit_profile: BTreeSet<String>,
    /// Static capability property values: (node, capability) → values.
    capability_values: HashMap<(NodeId, String), IndexMap<String, Value>>,
    /// Capability names of each node.
    capability_names: HashMap<NodeId, Vec<String>>,
    /// The relationships made for each requirement of each node.
    rel_by_requirement: HashMap<(NodeId, String), Vec<super::RelId>>,
    /// Interfaces (and deployment artifacts) of the node and relationship
    /// templates that assign neither (most of a large topology), by type
    /// key: they depend on the type alone (values keep `SELF` symbolic), so
    /// one copy serves them all.
    type_interfaces: HashMap<(TypeKind, String), OfType>,
    /// Property names, shared by the templates that have them.
    names: super::Names,
}

/// A template's interfaces and deployment artifacts, as its type gives them.
type OfType = (Arc<Vec<Interface>>, Vec<Artifact>);

fn qualify(scope: &[String], name: &str) -> String {
    if scope.is_empty() {
        name.to_string()
    } else {
        format!("{}:{name}", scope.join(":"))
    }
}

impl<'a> Lowerer<'a> {
    fn new(loaded: &'a Loaded, csar: &'a mut Csar) -> Self {
        let mut l = Lowerer {
            units: Vec::new(),
            index: HashMap::new(),
            csar,
            diags: Diagnostics::new(),
            reported: HashSet::new(),
            types: TypeTable::new(),
            type_ids: HashMap::new(),
            chains: HashMap::new(),
            inputs: BTreeSet::new(),
            node_names: BTreeSet::new(),
            rel_template_names: BTreeSet::new(),
            implicit_profile: BTreeSet::new(),
            capability_values: HashMap::new(),
            capability_names: HashMap::new(),
            rel_by_requirement: HashMap::new(),
            type_interfaces: HashMap::new(),
            names: super::Names::default(),
        };
        for u in &loaded.units {
            l.units.push(Unit {
                file: &loaded.files[u.file],
                scope: &u.scope,
                builtin: false,
            });
        }
        for f in normative::files() {
            l.units.push(Unit {
                file: f,
                scope: &[],
                builtin: true,
            });
        }
        l.build_index();
        l
    }

    fn build_index(&mut self) {
        let mut warned: BTreeSet<String> = BTreeSet::new();
        for unit in self.units.clone() {
            for def in &unit.file.types {
                let key = qualify(unit.scope, &def.name.text);
                match self.index.get(&(def.kind, key.clone())) {
                    None => {
                        self.index.insert((def.kind, key), Def { def, unit });
                    }
                    Some(prev) if prev.unit.file.source.name() == unit.file.source.name() => {}
                    Some(prev) if unit.builtin => {
                        // A user file redefines a built-in type: the user's wins.
                        if normative::is_normative(unit.file)
                            && !prev.unit.builtin
                            && warned.insert(key.clone())
                        {
                            let loc = prev.unit.file.source.location(prev.def.name.span);
                            self.diags.push(
                                Diagnostic::warning(
                                    codes::W_YAML_LENIENT,
                                    format!("{} `{key}` redefines a normative type; this definition is used", def.kind.noun()),
                                )
                                .at(loc)
                                .hint("the normative types are built in; give your type another name"),
                            );
                        }
                    }
                    Some(prev) if !prev.unit.builtin => {
                        let a = text_of(prev.unit.file, prev.def.span);
                        let b = text_of(unit.file, def.span);
                        if normalize_ws(&a) != normalize_ws(&b) {
                            let note = format!(
                                "the definition used is in `{}`",
                                prev.unit.file.source.name()
                            );
                            self.diags.push(
                                Diagnostic::error(
                                    codes::DUPLICATE_DEFINITION,
                                    format!("{} `{key}` is defined twice, differently", def.kind.noun()),
                                )
                                .at(unit.file.source.location(def.name.span))
                                .note(note)
                                .hint("keep one definition, or import the files under different namespace prefixes"),
                            );
                        }
                    }
                    Some(_) => {}
                }
            }
        }
    }

    // ---- diagnostics

    fn push_once(&mut self, d: Diagnostic) {
        let key = match &d.location {
            Some(l) => (l.file.clone(), l.line as usize, l.column as usize, d.code),
            None => (String::new(), 0, 0, d.code),
        };
        if self.reported.insert(key) {
            self.diags.push(d);
        }
    }

    fn at(unit: Unit, span: Span) -> Location {
        unit.file.source.location(span)
    }

    // ---- names and types

    /// The index key of a type name written in `unit`.
    fn resolve(&mut self, kind: TypeKind, name: &str, unit: Unit<'a>) -> Option<String> {
        let name = name.trim();
        if let Some(local) = name.strip_prefix("tosca:") {
            return self.builtin(kind, local, unit);
        }
        for i in (0..=unit.scope.len()).rev() {
            let key = qualify(&unit.scope[..i], name);
            if self.index.contains_key(&(kind, key.clone())) {
                if self.index[&(kind, key.clone())].unit.builtin {
                    self.note_builtin(unit, name);
                }
                return Some(key);
            }
        }
        // tosca-parser writes a namespace prefix with a dot: `prefix.Type`.
        if let Some((p, rest)) = name.split_once('.')
            && unit
                .file
                .imports
                .iter()
                .any(|i| i.prefix.as_ref().is_some_and(|x| x.text == p))
            && let Some(k) = self.resolve(kind, &format!("{p}:{rest}"), unit)
        {
            self.push_once(
                Diagnostic::warning(
                    codes::W_YAML_LENIENT,
                    format!(
                        "`{name}` is read as `{p}:{rest}`: a namespace prefix is followed by `:`"
                    ),
                )
                .at(Self::written(unit, name)),
            );
            return Some(k);
        }
        self.builtin(kind, name, unit)
    }

    fn builtin(&mut self, kind: TypeKind, name: &str, unit: Unit<'a>) -> Option<String> {
        let found = std::iter::once(name.to_string())
            .chain(normative::expansions(kind, name))
            .find(|k| self.index.contains_key(&(kind, k.clone())))?;
        self.note_builtin(unit, name);
        Some(found)
    }

    /// Where `name` is first written in `unit` (its file, if nowhere).
    fn written(unit: Unit, name: &str) -> Location {
        let source = &unit.file.source;
        source
            .word_location(name)
            .unwrap_or_else(|| Location::file(source.name()))
    }

    /// A Simple Profile type `name` is used in `unit`: a 2.0 file that
    /// does not import the profile gets a warning, at the first such name.
    fn note_builtin(&mut self, unit: Unit<'a>, name: &str) {
        if unit.builtin || !unit.file.version.is_v2() {
            return;
        }
        let imports_profile = unit.file.imports.iter().any(|i| {
            i.profile
                .as_ref()
                .is_some_and(|p| is_simple_profile(&p.text))
        });
        if !imports_profile
            && self
                .implicit_profile
                .insert(unit.file.source.name().to_string())
        {
            self.diags.push(
                Diagnostic::warning(
                    codes::W_YAML_LENIENT,
                    format!(
                        "`{}` uses Simple Profile types without importing a profile; TOSCA 2.0 has no implicit types, toscanini used its built-in Simple Profile",
                        unit.file.source.name()
                    ),
                )
                .at(Self::written(unit, name))
                .hint("add `imports: [{profile: org.oasis-open.simple:2.0}]`"),
            );
        }
    }

    /// Resolve or report an unknown type.
    fn resolve_or_report(
        &mut self,
        kind: TypeKind,
        name: &ast::Spanned,
        unit: Unit<'a>,
        what: &str,
    ) -> Option<String> {
        let found = self.resolve(kind, &name.text, unit);
        if found.is_none() {
            let hint = self.similar(kind, &name.text);
            self.push_once(
                Diagnostic::error(
                    codes::UNKNOWN_TYPE,
                    format!("{what} `{}` is not defined", name.text),
                )
                .at(Self::at(unit, name.span))
                .hint(hint),
            );
        }
        found
    }

    fn similar(&self, kind: TypeKind, name: &str) -> String {
        let last = name.rsplit([':', '.']).next().unwrap_or(name);
        let mut close: Vec<&String> = self
            .index
            .keys()
            .filter(|(k, n)| *k == kind && n.rsplit([':', '.']).next() == Some(last))
            .map(|(_, n)| n)
            .collect();
        close.sort();
        if let Some(c) = close.first() {
            return format!("a {} named `{c}` exists", kind.noun());
        }
        let names: BTreeSet<String> = self
            .index
            .keys()
            .filter(|(k, _)| *k == kind)
            .map(|(_, n)| n.clone())
            .collect();
        match nearest(name, &names) {
            Some(c) => format!("did you mean `{c}`?"),
            None => format!(
                "define it under `{}` or import the file that defines it",
                kind.section()
            ),
        }
    }

    /// The ancestry of a type (itself first), or `None` after reporting a
    /// cycle or an unknown parent.
    fn chain(&mut self, kind: TypeKind, key: &str) -> Option<Vec<String>> {
        if let Some(c) = self.chains.get(&(kind, key.to_string())) {
            return c.clone();
        }
        let mut out = vec![key.to_string()];
        let mut cur = key.to_string();
        let result = loop {
            let Some(d) = self.index.get(&(kind, cur.clone())).copied() else {
                break None;
            };
            let Some(parent) = &d.def.derived_from else {
                break Some(out.clone());
            };
            let Some(pkey) = self.resolve(kind, &parent.text, d.unit) else {
                let hint = self.similar(kind, &parent.text);
                self.push_once(
                    Diagnostic::error(
                        codes::UNKNOWN_TYPE,
                        format!(
                            "{} `{}` derives from `{}`, which is not defined",
                            kind.noun(),
                            d.def.name.text,
                            parent.text
                        ),
                    )
                    .at(Self::at(d.unit, parent.span))
                    .hint(hint),
                );
                break None;
            };
            if out.contains(&pkey) {
                let mut names = out.clone();
                names.push(pkey.clone());
                let first = self.index[&(kind, key.to_string())];
                self.push_once(
                    Diagnostic::error(
                        codes::CYCLIC_DERIVATION,
                        format!(
                            "{} `{key}` derives from itself: {}",
                            kind.noun(),
                            names.join(" → ")
                        ),
                    )
                    .at(Self::at(first.unit, first.def.name.span))
                    .hint("remove one of the `derived_from` on the cycle"),
                );
                break None;
            }
            out.push(pkey.clone());
            cur = pkey;
        };
        self.chains.insert((kind, key.to_string()), result.clone());
        result
    }

    /// Definitions along the ancestry, root first.
    fn defs(&mut self, kind: TypeKind, key: &str) -> Vec<Def<'a>> {
        let chain = self.chain(kind, key).unwrap_or_default();
        chain
            .iter()
            .rev()
            .filter_map(|k| self.index.get(&(kind, k.clone())).copied())
            .collect()
    }

    /// The model type of a node or relationship type, with its ancestors.
    fn type_id(&mut self, kind: TypeKind, key: &str) -> Option<TypeId> {
        if let Some(id) = self.type_ids.get(&(kind, key.to_string())) {
            return *id;
        }
        let chain = self.chain(kind, key);
        let id = chain.map(|chain| {
            let mut parent = None;
            for k in chain.iter().rev() {
                let d = self.index[&(kind, k.clone())];
                let id = self.types.add(TypeDef {
                    name: TypeName::new("", k.clone()),
                    kind: if kind == TypeKind::Node {
                        ModelKind::Node
                    } else {
                        ModelKind::Relationship
                    },
                    parent,
                    is_abstract: false,
                    origin: (!d.unit.builtin).then(|| Self::at(d.unit, d.def.name.span)),
                });
                parent = Some(id);
            }
            parent.expect("a chain has at least one type")
        });
        self.type_ids.insert((kind, key.to_string()), id);
        id
    }

    // ---- values

    fn value(&mut self, node: &Node, unit: Unit<'a>, this: This) -> Value {
        match classify(node, unit.file.version.is_v2(), &unit.file.source) {
            Ok(Classified::Call(call)) => {
                let args: Vec<Value> = call
                    .args
                    .iter()
                    .map(|a| self.value(a, unit, this))
                    .collect();
                self.check_call(&call.name, &args, call.span, unit, this);
                Value::call(call.name, args)
            }
            Ok(Classified::Escaped(s)) => Value::Scalar(s),
            Ok(Classified::Plain) => self.plain(node, unit, this),
            Err(d) => {
                let warning = d.severity == crate::diagnostics::Severity::Warning;
                self.push_once(d);
                if warning {
                    self.plain(node, unit, this)
                } else {
                    Value::Null
                }
            }
        }
    }

    fn plain(&mut self, node: &Node, unit: Unit<'a>, this: This) -> Value {
        match &node.kind {
            Kind::Null => Value::Null,
            Kind::Scalar { text, .. } => Value::Scalar(text.clone()),
            Kind::Seq(items) => {
                Value::List(items.iter().map(|i| self.value(i, unit, this)).collect())
            }
            Kind::Map(entries) => Value::Map(Box::new(
                entries
                    .iter()
                    .map(|(k, v)| {
                        (
                            k.as_str().unwrap_or_default().to_string(),
                            self.value(v, unit, this),
                        )
                    })
                    .collect(),
            )),
        }
    }

    /// Check the names a call refers to (E0410).
    fn check_call(&mut self, name: &str, args: &[Value], span: Span, unit: Unit<'a>, this: This) {
        let problem = match name {
            "get_input" => match args.first() {
                Some(Value::Scalar(input)) if !self.inputs.contains(input) => Some(format!(
                    "`get_input` names `{input}`, which is not an input of the topology"
                )),
                _ => None,
            },
            "get_property" | "get_attribute" | "get_operation_output" => {
                match args.first().and_then(Value::as_str) {
                    Some("SELF") if this == This::Nothing => {
                        Some(format!("`{name}` of `SELF` outside a template"))
                    }
                    Some("SOURCE" | "TARGET") if this != This::Relationship => Some(format!(
                        "`{name}` of `{}` outside a relationship",
                        args[0].as_str().unwrap_or_default()
                    )),
                    Some("HOST") if !matches!(this, This::Node(_)) => {
                        Some(format!("`{name}` of `HOST` outside a node template"))
                    }
                    Some("SELF" | "SOURCE" | "TARGET" | "HOST") => None,
                    Some(entity)
                        if !self.node_names.contains(entity)
                            && !self.rel_template_names.contains(entity) =>
                    {
                        Some(format!(
                            "`{name}` names `{entity}`, which is not a node or relationship template"
                        ))
                    }
                    _ => None,
                }
            }
            _ => None,
        };
        if let Some(message) = problem {
            if unit.builtin {
                return;
            }
            let hint = if name == "get_input" {
                "declare it under `inputs` of the topology template (or of the workflow)"
            } else {
                "use SELF, SOURCE, TARGET, HOST or the name of a template"
            };
            self.push_once(
                Diagnostic::error(codes::BAD_FUNCTION_REFERENCE, message)
                    .at(Self::at(unit, span))
                    .hint(hint),
            );
        }
    }

    // ---- artifacts

    /// A CSAR path relative to the directory of `file`.
    fn path_beside(file: &File, reference: &str) -> String {
        let mut parts: Vec<&str> = file.source.name().split('/').collect();
        parts.pop();
        for seg in reference.split('/') {
            match seg {
                "" | "." => {}
                ".." if parts.last().is_some_and(|p| *p != "..") => {
                    parts.pop();
                }
                s => parts.push(s),
            }
        }
        parts.join("/")
    }

    fn artifact_def(&mut self, a: &'a ast::ArtifactDef, unit: Unit<'a>, owner: &str) -> Artifact {
        let type_name = a.type_name.as_ref().map(|t| {
            self.resolve(TypeKind::Artifact, &t.text, unit)
                .unwrap_or_else(|| t.text.clone())
        });
        let file = a.file.as_ref().map(|f| f.text.clone()).unwrap_or_default();
        let files = if file.is_empty() {
            Vec::new()
        } else if a.repository.is_some() || file.contains("://") {
            let repo = a
                .repository
                .as_ref()
                .map(|r| r.text.clone())
                .unwrap_or_default();
            let url = unit
                .file
                .repositories
                .iter()
                .find(|(n, _)| n.text == repo)
                .and_then(|(_, u)| u.clone());
            vec![match url {
                Some(u) => format!("{}/{file}", u.trim_end_matches('/')),
                None if file.contains("://") => file.clone(),
                None => format!("{repo}://{file}"),
            }]
        } else {
            let path = Self::path_beside(unit.file, &file);
            self.check_file(
                &path,
                a.file.as_ref().map(|f| f.span).unwrap_or(a.span),
                unit,
                owner,
            );
            vec![path]
        };
        Artifact {
            name: a.name.text.clone(),
            artifact_type: TypeName::new(
                "",
                type_name.unwrap_or_else(|| infer_type(&file).to_string()),
            ),
            files,
            properties: Default::default(),
        }
    }

    fn check_file(&mut self, path: &str, span: Span, unit: Unit<'a>, owner: &str) {
        if unit.builtin || self.csar.load_on_demand(path).is_some() {
            return;
        }
        self.push_once(
            Diagnostic::warning(
                codes::W_YAML_ARTIFACT_MISSING,
                format!("the artifact `{path}` of {owner} is not in the CSAR"),
            )
            .at(Self::at(unit, span))
            .hint("artifact paths are relative to the file that names them; the plan will fail where it uses this file"),
        );
    }

    fn implementation(
        &mut self,
        imp: &'a ast::Implementation,
        unit: Unit<'a>,
        artifacts: &IndexMap<String, Artifact>,
        owner: &str,
    ) -> Option<Implementation> {
        let primary = self.artifact_ref(imp.primary.as_ref()?, unit, artifacts, owner)?;
        let dependencies = imp
            .dependencies
            .iter()
            .filter_map(|d| self.artifact_ref(d, unit, artifacts, owner))
            .collect();
        Some(Implementation {
            primary,
            dependencies,
        })
    }

    fn artifact_ref(
        &mut self,
        r: &'a ast::ArtifactRef,
        unit: Unit<'a>,
        artifacts: &IndexMap<String, Artifact>,
        owner: &str,
    ) -> Option<Artifact> {
        match r {
            ast::ArtifactRef::Inline(def) => Some(self.artifact_def(def, unit, owner)),
            ast::ArtifactRef::Name(s) => {
                if let Some(a) = artifacts.get(&s.text) {
                    return Some(a.clone());
                }
                if s.text.trim().is_empty() {
                    return None;
                }
                let path = Self::path_beside(unit.file, &s.text);
                self.check_file(&path, s.span, unit, owner);
                Some(Artifact {
                    name: s.text.clone(),
                    artifact_type: TypeName::new("", infer_type(&s.text)),
                    files: vec![path],
                    properties: Default::default(),
                })
            }
        }
    }

    // ---- interfaces

    /// Operations and inputs an interface type declares, along its ancestry.
    fn interface_type_ops(&mut self, key: &str, into: &mut IfaceB) {
        for d in self.defs(TypeKind::Interface, key) {
            for p in &d.def.inputs {
                let b = self.param(p, d.unit, This::Nothing);
                into.inputs.entry(p.name.text.clone()).or_insert(b);
            }
            for op in &d.def.operations {
                into.ops.entry(op.name.text.clone()).or_default();
            }
        }
    }

    fn param(&mut self, p: &ast::Parameter, unit: Unit<'a>, this: This) -> ParamB {
        let value = p
            .value
            .as_ref()
            .or(p.default.as_ref())
            .filter(|n| !n.is_null() || !p.definition)
            .map(|n| self.value(n, unit, this));
        ParamB {
            required: value.is_none() && p.required,
            value,
        }
    }

    /// Merge an interface definition or assignment into `list`.
    #[allow(clippy::too_many_arguments)]
    fn merge_interface(
        &mut self,
        list: &mut Vec<IfaceB>,
        iface: &'a ast::Interface,
        unit: Unit<'a>,
        this: This,
        artifacts: &IndexMap<String, Artifact>,
        owner: &str,
    ) {
        let key = &iface.name.text;
        let declared_type = iface
            .type_name
            .as_ref()
            .and_then(|t| self.resolve_or_report(TypeKind::Interface, t, unit, "interface type"));
        let mut slot = list.iter().position(|i| &i.name == key);
        if slot.is_none() {
            // Examples key interfaces by their type name (`tosca.interfaces.node.lifecycle.Standard:`).
            if let Some(as_type) = self.resolve(TypeKind::Interface, key, unit) {
                slot = list.iter().position(|i| {
                    i.type_key.as_ref().is_some_and(|t| {
                        t == &as_type
                            || self
                                .chain(TypeKind::Interface, t)
                                .is_some_and(|c| c.contains(&as_type))
                    })
                });
                if slot.is_none() && declared_type.is_none() {
                    let mut b = IfaceB {
                        name: key.clone(),
                        type_key: Some(as_type.clone()),
                        ..IfaceB::default()
                    };
                    self.interface_type_ops(&as_type, &mut b);
                    list.push(b);
                    slot = Some(list.len() - 1);
                }
            }
        }
        let i = match slot {
            Some(i) => i,
            None => {
                list.push(IfaceB {
                    name: key.clone(),
                    ..IfaceB::default()
                });
                list.len() - 1
            }
        };
        if let Some(t) = declared_type {
            let mut b = std::mem::take(&mut list[i]);
            b.type_key = Some(t.clone());
            self.interface_type_ops(&t, &mut b);
            list[i] = b;
        }
        for p in &iface.inputs {
            let b = self.param(p, unit, this);
            let slot = list[i].inputs.entry(p.name.text.clone()).or_default();
            merge_param(slot, b);
        }
        for op in &iface.operations {
            let owner_op = format!("operation `{}.{}` of {owner}", list[i].name, op.name.text);
            let implementation = op
                .implementation
                .as_ref()
                .and_then(|imp| self.implementation(imp, unit, artifacts, &owner_op));
            let inputs: Vec<(String, ParamB)> = op
                .inputs
                .iter()
                .map(|p| (p.name.text.clone(), self.param(p, unit, this)))
                .collect();
            let outputs: Vec<(String, Value)> = op
                .outputs
                .iter()
                .map(|(n, v)| (n.text.clone(), self.value(v, unit, this)))
                .collect();
            let slot = list[i].ops.entry(op.name.text.clone()).or_default();
            if implementation.is_some() {
                slot.implementation = implementation;
            }
            for (n, b) in inputs {
                merge_param(slot.inputs.entry(n).or_default(), b);
            }
            for (n, v) in outputs {
                slot.outputs.insert(n, v);
            }
        }
    }

    fn finish_interfaces(&mut self, list: Vec<IfaceB>) -> Vec<Interface> {
        list.into_iter()
            .map(|i| Interface {
                name: i.name.into(),
                // What the interface is, whatever its name (`Standard`).
                lineage: i
                    .type_key
                    .as_ref()
                    .and_then(|k| self.chain(TypeKind::Interface, k))
                    .unwrap_or_default(),
                interface_type: i.type_key,
                operations: i
                    .ops
                    .into_iter()
                    .map(|(name, op)| {
                        let mut inputs: IndexMap<String, ParamB> = i.inputs.clone();
                        for (n, p) in op.inputs {
                            merge_param(inputs.entry(n).or_default(), p);
                        }
                        Operation {
                            name: name.into(),
                            inputs: inputs
                                .into_iter()
                                .map(|(name, p)| Parameter {
                                    name: name.into(),
                                    required: p.required,
                                    value: p.value,
                                })
                                .collect(),
                            outputs: op
                                .outputs
                                .into_iter()
                                .map(|(name, v)| Parameter {
                                    name: name.into(),
                                    required: false,
                                    value: Some(v),
                                })
                                .collect(),
                            implementation: op.implementation.map(Arc::new),
                        }
                    })
                    .collect(),
            })
            .collect()
    }

    // ---- the topology

    fn topology(&mut self, entry: &'a File, topo: &'a ast::Topology) -> Topology {
        let unit = self.units[0];
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
        self.rel_template_names = topo
            .relationship_templates
            .iter()
            .map(|r| r.name.text.clone())
            .collect();
        let node_templates = self.expand_copies(&topo.node_templates, unit);

        let exported: HashSet<(String, String)> = topo
            .substitution
            .iter()
            .flat_map(|s| &s.requirements)
            .filter_map(|(_, t)| match t.as_slice() {
                [n, r, ..] => Some((n.text.clone(), r.text.clone())),
                _ => None,
            })
            .collect();

        let mut nodes: Vec<NodeTemplate> = Vec::new();
        let mut ids: HashMap<String, NodeId> = HashMap::new();
        let mut failed: BTreeSet<String> = BTreeSet::new();
        let mut node_asts: Vec<(&'a ast::NodeTemplate, String)> = Vec::new();
        for n in &node_templates {
            let Some(type_name) = &n.type_name else {
                self.push_once(
                    Diagnostic::error(
                        codes::YAML_MISSING_KEY,
                        format!("node template `{}` has no `type`", n.name.text),
                    )
                    .at(Self::at(unit, n.name.span))
                    .hint("every node template names its node type with `type:`"),
                );
                failed.insert(n.name.text.clone());
                continue;
            };
            let Some(key) = self.resolve_or_report(TypeKind::Node, type_name, unit, "node type")
            else {
                failed.insert(n.name.text.clone());
                continue;
            };
            let Some(type_id) = self.type_id(TypeKind::Node, &key) else {
                failed.insert(n.name.text.clone());
                continue;
            };
            let id = NodeId(nodes.len() as u32);
            ids.insert(n.name.text.clone(), id);
            let node = self.node_template(n, &key, type_id, unit, id);
            nodes.push(node);
            node_asts.push((n, key));
        }

        // Requirements: relationships, and delegated targets of dangling ones.
        let mut pending: Vec<PendingRel<'a>> = Vec::new();
        let mut synthetic: Vec<Synthetic> = Vec::new();
        let mut used_templates: BTreeSet<String> = BTreeSet::new();
        let mut rel_ids = Unique::new();
        for (i, (n, key)) in node_asts.iter().enumerate() {
            let source = NodeId(i as u32);
            self.requirements(
                n,
                key,
                source,
                unit,
                topo,
                &ids,
                &failed,
                &exported,
                &mut pending,
                &mut synthetic,
                &mut used_templates,
                &mut rel_ids,
            );
        }
        for s in &synthetic {
            let id = NodeId(nodes.len() as u32);
            let Some(type_id) = self.type_id(TypeKind::Node, &s.type_key) else {
                continue;
            };
            let mut node = self.synthetic_node(&s.id, &s.type_key, type_id, id);
            node.origin = Some(s.origin.clone());
            node.is_abstract = true;
            self.diags.push(
                Diagnostic::warning(codes::W_YAML_DELEGATED, s.why.clone())
                    .at(s.origin.clone())
                    .hint("name a node template as the requirement's target if the plans should provision it"),
            );
            ids.insert(s.id.clone(), id);
            nodes.push(node);
        }
        for r in &topo.relationship_templates {
            if !used_templates.contains(&r.name.text) {
                self.diags.push(
                    Diagnostic::warning(
                        codes::W_IGNORED,
                        format!(
                            "relationship template `{}` is not used by any requirement, so it relates nothing",
                            r.name.text
                        ),
                    )
                    .at(Self::at(unit, r.name.span))
                    .hint("name it in a requirement assignment: `relationship: <template>`"),
                );
            }
        }
        let base = node_asts.len();
        let mut relationships: Vec<RelationshipTemplate> = Vec::new();
        let mut by_requirement: HashMap<(NodeId, String), NodeId> = HashMap::new();
        for p in pending {
            let target = match p.target {
                TargetRef::Node(t) => t,
                TargetRef::Synthetic(s) => match ids.get(&synthetic[s].id) {
                    Some(&t) if t.0 as usize >= base => t,
                    _ => continue,
                },
            };
            by_requirement
                .entry((p.source, p.requirement.clone()))
                .or_insert(target);
            let key = (p.source, p.requirement.clone());
            if let Some(rel) = self.relationship(p, target, &nodes) {
                self.rel_by_requirement
                    .entry(key)
                    .or_default()
                    .push(super::RelId(relationships.len() as u32));
                relationships.push(rel);
            }
        }

        // Delegated nodes: abstract ones, and the infrastructure the
        // orchestrator provides (a plain Compute, storage, networks) when
        // nothing of it is implemented.
        for node in nodes.iter_mut().take(base) {
            let implemented = node
                .interfaces
                .iter()
                .flat_map(|i| &i.operations)
                .any(|o| o.implementation.is_some());
            let provided =
                self.types.ancestry(node.type_id).iter().any(|&t| {
                    ORCHESTRATOR_PROVIDED.contains(&self.types.get(t).name.name.as_str())
                });
            if !implemented && provided && !node.running {
                node.is_abstract = true;
            }
        }
        let info = ServiceTemplateInfo {
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
        };
        let mut topology = Topology::new(
            Dialect::Yaml(entry.version.name().to_string()),
            info,
            std::mem::take(&mut self.types),
            nodes,
            relationships,
        );
        // Entity keywords and requirement/capability hops, now that every
        // relationship is known.
        resolve_entities(
            &mut topology,
            &by_requirement,
            &self.capability_values,
            &self.capability_names,
        );
        self.check_weaving(&topology);

        for i in &topo.inputs {
            let default = i
                .default
                .as_ref()
                .or(i.value.as_ref())
                .map(|d| self.value(d, unit, This::Nothing));
            topology.inputs.insert(
                i.name.text.clone(),
                InputDef {
                    name: i.name.text.clone(),
                    type_name: i.type_name.clone(),
                    required: i.required && default.is_none(),
                    default,
                },
            );
        }
        for (name, value) in &topo.outputs {
            match value {
                Some(v) => {
                    let mut value = self.value(v, unit, This::Nothing);
                    resolve_value(
                        &topology,
                        None,
                        &mut value,
                        &by_requirement,
                        &self.capability_values,
                        &self.capability_names,
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
        self.operation_outputs(&mut topology);
        self.delegated_attributes(&mut topology);
        self.warn_unknown_attributes(&topology, topo, unit);
        self.warn_delegated(&topology, base);
        self.groups_and_policies(&mut topology, topo, unit);
        let (regions, d) = super::regions_from_policies(&topology);
        self.diags.extend(d);
        topology.regions = regions;
        if let Some(s) = &topo.substitution {
            topology.substitution = self.substitution(&topology, s, unit);
        }
        let workflows = workflows::lower(self, &topology, topo, unit);
        topology.workflows = workflows;
        topology
    }

    /// Node templates with `copy` replaced by a merged copy.
    fn expand_copies(
        &mut self,
        list: &'a [ast::NodeTemplate],
        unit: Unit<'a>,
    ) -> Vec<&'a ast::NodeTemplate> {
        for n in list {
            if let Some(c) = &n.copy {
                self.push_once(
                    Diagnostic::error(
                        codes::YAML_DIALECT,
                        format!(
                            "node template `{}` uses `copy`, which toscanini does not support",
                            n.name.text
                        ),
                    )
                    .at(Self::at(unit, c.span))
                    .hint(format!(
                        "write the template out instead of copying `{}`",
                        c.text
                    )),
                );
            }
        }
        list.iter().filter(|n| n.copy.is_none()).collect()
    }

    /// Everything of one node template except its relationships.
    fn node_template(
        &mut self,
        n: &'a ast::NodeTemplate,
        key: &str,
        type_id: TypeId,
        unit: Unit<'a>,
        id: NodeId,
    ) -> NodeTemplate {
        let name = n.name.text.clone();
        let this = This::Node(&name);
        let defs = self.defs(TypeKind::Node, key);
        let owner = format!("`{name}`");
        // The type's alone: made once (with the diagnostics of the type's
        // definitions, which are reported once anyway) and shared.
        let of_type = n.interfaces.is_empty() && n.artifacts.is_empty();
        let shared = of_type
            .then(|| {
                self.type_interfaces
                    .get(&(TypeKind::Node, key.to_string()))
                    .cloned()
            })
            .flatten();
        // Artifacts: the type's, then the template's.
        let mut artifacts: IndexMap<String, Artifact> = IndexMap::new();
        if shared.is_none() {
            for d in &defs {
                for a in &d.def.artifacts {
                    let art = self.artifact_def(a, d.unit, &owner);
                    artifacts.insert(a.name.text.clone(), art);
                }
            }
            for a in &n.artifacts {
                let art = self.artifact_def(a, unit, &owner);
                artifacts.insert(a.name.text.clone(), art);
            }
        }
        let properties = self.properties(&defs, &n.properties, &n.attributes, unit, this, &name);
        // Capabilities: static property values for get_property hops.
        let mut cap_names: Vec<String> = Vec::new();
        let mut cap_types: IndexMap<String, (String, Unit<'a>)> = IndexMap::new();
        for d in &defs {
            for (cname, ctype) in &d.def.capabilities {
                if !cap_names.contains(&cname.text) {
                    cap_names.push(cname.text.clone());
                }
                if let Some(t) = ctype {
                    cap_types.insert(cname.text.clone(), (t.text.clone(), d.unit));
                }
            }
        }
        for (cname, (ctype, cunit)) in &cap_types {
            let mut values: IndexMap<String, Value> = IndexMap::new();
            if let Some(ck) = self.resolve(TypeKind::Capability, ctype, *cunit) {
                for d in self.defs(TypeKind::Capability, &ck) {
                    for p in &d.def.properties {
                        if let Some(v) = p.default.as_ref().or(p.value.as_ref()) {
                            let v = self.value(v, d.unit, this);
                            values.insert(p.name.text.clone(), v);
                        }
                    }
                }
            }
            self.capability_values.insert((id, cname.clone()), values);
        }
        for c in &n.capabilities {
            if !cap_names.contains(&c.name.text) {
                self.diags.push(
                    Diagnostic::warning(
                        codes::W_YAML_LENIENT,
                        format!("node template `{name}` assigns capability `{}`, which its type does not define", c.name.text),
                    )
                    .at(Self::at(unit, c.name.span)),
                );
                cap_names.push(c.name.text.clone());
            }
            let values: Vec<(String, Value)> = c
                .properties
                .iter()
                .chain(&c.attributes)
                .map(|(k, v)| (k.text.clone(), self.value(v, unit, this)))
                .collect();
            let slot = self
                .capability_values
                .entry((id, c.name.text.clone()))
                .or_default();
            slot.extend(values);
        }
        self.capability_names.insert(id, cap_names);
        let (interfaces, deployment) = match shared {
            Some(shared) => shared,
            None => {
                let made = self.interfaces(&defs, n, unit, this, &artifacts, &owner);
                if of_type {
                    self.type_interfaces
                        .insert((TypeKind::Node, key.to_string()), made.clone());
                }
                made
            }
        };
        let directives: Vec<&str> = n.directives.iter().map(|d| d.text.as_str()).collect();
        NodeTemplate {
            id: name.clone(),
            name: name.clone(),
            type_id,
            properties,
            properties_element: None,
            interfaces,
            artifacts: deployment,
            running: directives
                .iter()
                .any(|d| matches!(*d, "select" | "selectable")),
            is_abstract: directives
                .iter()
                .any(|d| matches!(*d, "substitute" | "substitutable")),
            origin: Some(Self::at(unit, n.name.span)),
        }
    }

    /// The interfaces of a node template (along its type, then its own
    /// assignments) and its deployment artifacts: those no operation
    /// implements.
    fn interfaces(
        &mut self,
        defs: &[Def<'a>],
        n: &'a ast::NodeTemplate,
        unit: Unit<'a>,
        this: This,
        artifacts: &IndexMap<String, Artifact>,
        owner: &str,
    ) -> OfType {
        let mut list: Vec<IfaceB> = Vec::new();
        for d in defs {
            for i in &d.def.interfaces {
                self.merge_interface(&mut list, i, d.unit, this, artifacts, owner);
            }
        }
        for i in &n.interfaces {
            self.merge_interface(&mut list, i, unit, this, artifacts, owner);
        }
        let interfaces = self.finish_interfaces(list);
        let used: HashSet<&str> = interfaces
            .iter()
            .flat_map(|i| &i.operations)
            .filter_map(|o| o.implementation.as_ref())
            .flat_map(|imp| std::iter::once(&imp.primary).chain(&imp.dependencies))
            .map(|a| a.name.as_str())
            .collect();
        let deployment: Vec<Artifact> = artifacts
            .values()
            .filter(|a| !used.contains(a.name.as_str()))
            .cloned()
            .collect();
        (Arc::new(interfaces), deployment)
    }

    /// A delegated node for a dangling requirement: its type's defaults.
    fn synthetic_node(
        &mut self,
        id: &str,
        key: &str,
        type_id: TypeId,
        nid: NodeId,
    ) -> NodeTemplate {
        let defs = self.defs(TypeKind::Node, key);
        let this = This::Node(id);
        let properties = self.properties(&defs, &[], &[], self.units[0], this, id);
        let mut list: Vec<IfaceB> = Vec::new();
        for d in &defs {
            for i in &d.def.interfaces {
                self.merge_interface(&mut list, i, d.unit, this, &IndexMap::new(), id);
            }
        }
        self.capability_names.insert(nid, Vec::new());
        NodeTemplate {
            id: id.to_string(),
            name: id.to_string(),
            type_id,
            properties,
            properties_element: None,
            interfaces: Arc::new(self.finish_interfaces(list)),
            artifacts: Vec::new(),
            running: false,
            is_abstract: true,
            origin: None,
        }
    }

    /// Property values (type defaults overlaid by assignments), then the
    /// attributes that are not properties.
    fn properties(
        &mut self,
        defs: &[Def<'a>],
        assigned: &'a [(ast::Spanned, Node)],
        attributes: &'a [(ast::Spanned, Node)],
        unit: Unit<'a>,
        this: This,
        owner: &str,
    ) -> super::Properties {
        let mut out = super::Properties::new();
        let mut declared: HashSet<String> = HashSet::new();
        for d in defs {
            for p in &d.def.properties {
                declared.insert(p.name.text.clone());
                let v = p
                    .value
                    .as_ref()
                    .or(p.default.as_ref())
                    .map(|v| self.value(v, d.unit, this));
                match (out.get(p.name.text.as_str()), v) {
                    (_, Some(v)) => {
                        out.insert(self.names.get(&p.name.text), v);
                    }
                    (None, None) => {
                        out.insert(self.names.get(&p.name.text), Value::Null);
                    }
                    _ => {}
                }
            }
        }
        for (k, v) in assigned {
            if !declared.contains(&k.text) && !unit.builtin {
                self.diags.push(
                    Diagnostic::warning(
                        codes::W_YAML_LENIENT,
                        format!("`{owner}` assigns property `{}`, which its type does not define; it is kept", k.text),
                    )
                    .at(Self::at(unit, k.span)),
                );
            }
            let v = self.value(v, unit, this);
            out.insert(self.names.get(&k.text), v);
        }
        let mut attrs = super::Properties::new();
        for d in defs {
            for a in &d.def.attributes {
                if out.contains_key(a.name.text.as_str()) {
                    continue;
                }
                let v = a.default.as_ref().map(|v| self.value(v, d.unit, this));
                let name = self.names.get(&a.name.text);
                let slot = attrs.entry(name).or_insert(Value::Null);
                if let Some(v) = v {
                    *slot = v;
                }
            }
        }
        for (k, v) in attributes {
            let v = self.value(v, unit, this);
            let name = self.names.get(&k.text);
            if out.contains_key(&name) {
                // An attribute of the same name reflects the property.
                out.insert(name, v);
            } else {
                attrs.insert(name, v);
            }
        }
        out.extend(attrs);
        out
    }

    #[allow(clippy::too_many_arguments)]
    fn requirements(
        &mut self,
        n: &'a ast::NodeTemplate,
        key: &str,
        source: NodeId,
        unit: Unit<'a>,
        topo: &'a ast::Topology,
        ids: &HashMap<String, NodeId>,
        failed: &BTreeSet<String>,
        exported: &HashSet<(String, String)>,
        pending: &mut Vec<PendingRel<'a>>,
        synthetic: &mut Vec<Synthetic>,
        used_templates: &mut BTreeSet<String>,
        rel_ids: &mut Unique,
    ) {
        let defs = self.defs(TypeKind::Node, key);
        let mut reqs: IndexMap<String, ReqB<'a>> = IndexMap::new();
        for d in &defs {
            for r in &d.def.requirements {
                let default_min = if d.unit.file.version.is_v2() { 0 } else { 1 };
                let slot = reqs.entry(r.name.text.clone()).or_insert(ReqB {
                    capability: None,
                    node: None,
                    relationship: None,
                    interfaces: Vec::new(),
                    min: r.min.unwrap_or(default_min),
                });
                if let Some(c) = &r.capability {
                    slot.capability = Some((c, d.unit));
                }
                if let Some(nn) = &r.node {
                    slot.node = Some((nn, d.unit));
                }
                if let Some(rel) = &r.relationship {
                    slot.relationship = Some((rel, d.unit));
                }
                slot.interfaces
                    .extend(r.relationship_interfaces.iter().map(|i| (i, d.unit)));
                if let Some(m) = r.min {
                    slot.min = m;
                }
            }
        }
        let name = &n.name.text;
        let mut assigned: HashSet<&str> = HashSet::new();
        for a in &n.requirements {
            assigned.insert(&a.name.text);
            let def = reqs.get(&a.name.text).cloned();
            let origin = Self::at(unit, a.span);
            if def.is_none() {
                self.diags.push(
                    Diagnostic::warning(
                        codes::W_DANGLING_REQUIREMENT,
                        format!(
                            "node template `{name}` assigns requirement `{}`, which its type `{key}` does not define",
                            a.name.text
                        ),
                    )
                    .at(origin.clone())
                    .hint("the relationship and target given here are used as they are"),
                );
            }
            // The relationship: a template, a type, or inline.
            let mut type_key: Option<(String, Unit<'a>)> = None;
            let mut properties: Vec<(&'a ast::Spanned, &'a Node, Unit<'a>)> = Vec::new();
            let mut interfaces: Vec<(&'a ast::Interface, Unit<'a>)> = def
                .as_ref()
                .map(|d| d.interfaces.clone())
                .unwrap_or_default();
            let mut id_base = format!("{name}_{}", a.name.text);
            match &a.relationship {
                Some(ast::RelationshipAssignment::Name(s)) => {
                    if let Some(t) = topo
                        .relationship_templates
                        .iter()
                        .find(|t| t.name.text == s.text)
                    {
                        used_templates.insert(t.name.text.clone());
                        id_base = t.name.text.clone();
                        match &t.type_name {
                            Some(tn) => {
                                type_key = self
                                    .resolve_or_report(
                                        TypeKind::Relationship,
                                        tn,
                                        unit,
                                        "relationship type",
                                    )
                                    .map(|k| (k, unit))
                            }
                            None => self.push_once(
                                Diagnostic::error(
                                    codes::YAML_MISSING_KEY,
                                    format!(
                                        "relationship template `{}` has no `type`",
                                        t.name.text
                                    ),
                                )
                                .at(Self::at(unit, t.name.span)),
                            ),
                        }
                        properties.extend(t.properties.iter().map(|(k, v)| (k, v, unit)));
                        interfaces.extend(t.interfaces.iter().map(|i| (i, unit)));
                    } else {
                        match self.resolve(TypeKind::Relationship, &s.text, unit) {
                            Some(k) => type_key = Some((k, unit)),
                            None => {
                                self.push_once(
                                    Diagnostic::error(
                                        codes::UNKNOWN_TYPE,
                                        format!(
                                            "requirement `{}` of `{name}` names relationship `{}`, which is neither a relationship template nor a relationship type",
                                            a.name.text, s.text
                                        ),
                                    )
                                    .at(Self::at(unit, s.span))
                                    .hint("define it under `relationship_templates` or `relationship_types`"),
                                );
                                continue;
                            }
                        }
                    }
                }
                Some(ast::RelationshipAssignment::Inline {
                    type_name,
                    properties: p,
                    interfaces: i,
                    ..
                }) => {
                    if let Some(tn) = type_name {
                        match self.resolve_or_report(
                            TypeKind::Relationship,
                            tn,
                            unit,
                            "relationship type",
                        ) {
                            Some(k) => type_key = Some((k, unit)),
                            None => continue,
                        }
                    }
                    properties.extend(p.iter().map(|(k, v)| (k, v, unit)));
                    interfaces.extend(i.iter().map(|i| (i, unit)));
                }
                None => {}
            }
            if type_key.is_none()
                && let Some((r, u)) = def.as_ref().and_then(|d| d.relationship)
            {
                type_key = self
                    .resolve_or_report(TypeKind::Relationship, r, u, "relationship type")
                    .map(|k| (k, u));
            }
            // Exported by substitution_mappings: fulfilled outside (1.3 §2.11).
            if a.node.is_none() && exported.contains(&(name.clone(), a.name.text.clone())) {
                continue;
            }
            // The target: a node template, or dangling.
            let target = match &a.node {
                Some(t) if ids.contains_key(&t.text) => TargetRef::Node(ids[&t.text]),
                Some(t) if failed.contains(&t.text) => continue,
                Some(t) if self.node_names.contains(&t.text) => continue,
                Some(t) => match self.resolve(TypeKind::Node, &t.text, unit) {
                    Some(tk) => {
                        let id = rel_ids.name(format!("{name}_{}_target", a.name.text));
                        synthetic.push(Synthetic {
                            id: id.clone(),
                            type_key: tk.clone(),
                            origin: origin.clone(),
                            why: format!(
                                "requirement `{}` of `{name}` asks for a node of type `{tk}`, not a template: the orchestrator supplies it as `{id}`, which the plans register but do not provision",
                                a.name.text
                            ),
                        });
                        TargetRef::Synthetic(synthetic.len() - 1)
                    }
                    None => {
                        self.push_once(
                            Diagnostic::error(
                                codes::DANGLING_REFERENCE,
                                format!(
                                    "requirement `{}` of `{name}` names `{}`, which is neither a node template nor a node type",
                                    a.name.text, t.text
                                ),
                            )
                            .at(Self::at(unit, t.span))
                            .hint(closest(&t.text, &self.node_names)),
                        );
                        continue;
                    }
                },
                None => {
                    let tk = def
                        .as_ref()
                        .and_then(|d| d.node)
                        .and_then(|(t, u)| self.resolve(TypeKind::Node, &t.text, u))
                        .or_else(|| self.resolve(TypeKind::Node, "tosca.nodes.Root", unit))
                        .unwrap_or_default();
                    let id = rel_ids.name(format!("{name}_{}_target", a.name.text));
                    synthetic.push(Synthetic {
                        id: id.clone(),
                        type_key: tk.clone(),
                        origin: origin.clone(),
                        why: format!(
                            "requirement `{}` of `{name}` names no node template{}: the orchestrator supplies a `{tk}` as `{id}`, which the plans register but do not provision",
                            a.name.text,
                            if a.node_filter { " (only a node_filter)" } else { "" }
                        ),
                    });
                    TargetRef::Synthetic(synthetic.len() - 1)
                }
            };
            pending.push(PendingRel {
                id: rel_ids.name(id_base),
                requirement: a.name.text.clone(),
                source,
                target,
                type_key,
                properties,
                interfaces,
                origin,
                unit,
            });
        }
        // Required requirements that are not assigned are dangling too.
        for (rname, def) in &reqs {
            if def.min == 0
                || assigned.contains(rname.as_str())
                || exported.contains(&(name.clone(), rname.clone()))
            {
                continue;
            }
            let tk = def
                .node
                .and_then(|(t, u)| self.resolve(TypeKind::Node, &t.text, u))
                .or_else(|| self.resolve(TypeKind::Node, "tosca.nodes.Root", unit))
                .unwrap_or_default();
            let id = rel_ids.name(format!("{name}_{rname}_target"));
            let origin = Self::at(unit, n.name.span);
            synthetic.push(Synthetic {
                id: id.clone(),
                type_key: tk.clone(),
                origin: origin.clone(),
                why: format!(
                    "node template `{name}` does not assign its required requirement `{rname}`: the orchestrator supplies a `{tk}` as `{id}`, which the plans register but do not provision"
                ),
            });
            let type_key = def.relationship.and_then(|(r, u)| {
                self.resolve(TypeKind::Relationship, &r.text, u)
                    .map(|k| (k, u))
            });
            pending.push(PendingRel {
                id: rel_ids.name(format!("{name}_{rname}")),
                requirement: rname.clone(),
                source,
                target: TargetRef::Synthetic(synthetic.len() - 1),
                type_key,
                properties: Vec::new(),
                interfaces: def.interfaces.clone(),
                origin,
                unit,
            });
        }
    }

    fn relationship(
        &mut self,
        p: PendingRel<'a>,
        target: NodeId,
        nodes: &[NodeTemplate],
    ) -> Option<RelationshipTemplate> {
        let source_name = nodes[p.source.0 as usize].id.clone();
        let (key, type_unit) = match &p.type_key {
            Some((k, u)) => (k.clone(), *u),
            None => {
                self.diags.push(
                    Diagnostic::warning(
                        codes::W_UNKNOWN_RELATIONSHIP_KIND,
                        format!(
                            "requirement `{}` of `{source_name}` names no relationship type; it is ordered like DependsOn (`{}` first)",
                            p.requirement, nodes[target.0 as usize].id
                        ),
                    )
                    .at(p.origin.clone())
                    .hint("give the requirement a `relationship` (e.g. tosca.relationships.DependsOn or ConnectsTo), or choose the ordering with --unknown-relationships"),
                );
                (
                    self.resolve(TypeKind::Relationship, "tosca.relationships.Root", p.unit)?,
                    p.unit,
                )
            }
        };
        let _ = type_unit;
        let type_id = self.type_id(TypeKind::Relationship, &key)?;
        let chain = self.chain(TypeKind::Relationship, &key).unwrap_or_default();
        let kind = classify_kind(&chain);
        if kind == RelKind::Other && p.type_key.is_some() {
            self.diags.push(
                Diagnostic::warning(
                    codes::W_UNKNOWN_RELATIONSHIP_KIND,
                    format!(
                        "relationship `{}` has type `{key}`, which derives from none of HostedOn, DependsOn, ConnectsTo, AttachesTo; it is ordered like DependsOn (target first)",
                        p.id
                    ),
                )
                .at(p.origin.clone())
                .hint("derive the relationship type from a normative one, or choose the ordering with --unknown-relationships"),
            );
        }
        let defs = self.defs(TypeKind::Relationship, &key);
        let this = This::Relationship;
        let mut properties = super::Properties::new();
        for d in &defs {
            for pd in &d.def.properties {
                let v = pd
                    .value
                    .as_ref()
                    .or(pd.default.as_ref())
                    .map(|v| self.value(v, d.unit, this));
                let name = self.names.get(&pd.name.text);
                match v {
                    Some(v) => {
                        properties.insert(name, v);
                    }
                    None => {
                        properties.entry(name).or_insert(Value::Null);
                    }
                }
            }
        }
        for (k, v, u) in &p.properties {
            let v = self.value(v, *u, this);
            properties.insert(self.names.get(&k.text), v);
        }
        for d in &defs {
            for a in &d.def.attributes {
                if !properties.contains_key(a.name.text.as_str()) {
                    properties.insert(self.names.get(&a.name.text), Value::Null);
                }
            }
        }
        // Those of the type alone are made once and shared, as for nodes.
        let of_type = p.interfaces.is_empty();
        let interfaces = match of_type
            .then(|| {
                self.type_interfaces
                    .get(&(TypeKind::Relationship, key.clone()))
                    .map(|(i, _)| i.clone())
            })
            .flatten()
        {
            Some(shared) => shared,
            None => {
                let owner = format!("relationship `{}`", p.id);
                let mut list: Vec<IfaceB> = Vec::new();
                for d in &defs {
                    for i in &d.def.interfaces {
                        self.merge_interface(&mut list, i, d.unit, this, &IndexMap::new(), &owner);
                    }
                }
                for (i, u) in &p.interfaces {
                    self.merge_interface(&mut list, i, *u, this, &IndexMap::new(), &owner);
                }
                let made = Arc::new(self.finish_interfaces(list));
                if of_type {
                    self.type_interfaces.insert(
                        (TypeKind::Relationship, key.clone()),
                        (made.clone(), Vec::new()),
                    );
                }
                made
            }
        };
        Some(RelationshipTemplate {
            id: p.id.clone(),
            name: p.id,
            type_id,
            kind,
            source: p.source,
            target,
            properties,
            interfaces,
            source_interfaces: Arc::new(Vec::new()),
            target_interfaces: Arc::new(Vec::new()),
            origin: Some(p.origin),
        })
    }

    /// 1.3 §7.2.1.1: a delegated node is a black box from initial to
    /// started; Configure operations that need its intermediate states
    /// (pre/post_configure on its side) cannot be woven.
    fn check_weaving(&mut self, t: &Topology) {
        for r in &t.relationships {
            for (side, node, ops) in [
                (
                    "source",
                    r.source,
                    ["pre_configure_source", "post_configure_source"],
                ),
                (
                    "target",
                    r.target,
                    ["pre_configure_target", "post_configure_target"],
                ),
            ] {
                let n = t.node(node);
                if !n.is_abstract {
                    continue;
                }
                for op in ops {
                    let implemented = r
                        .interfaces
                        .iter()
                        .filter(|i| i.is_a(RELATIONSHIP_CONFIGURE))
                        .filter_map(|i| i.operation(op))
                        .any(|o| o.implementation.is_some());
                    if implemented {
                        self.diags.push(
                            Diagnostic::warning(
                                codes::W_YAML_WEAVING,
                                format!(
                                    "relationship `{}` implements `{op}`, which belongs to the configure step of its {side} `{}`; `{}` is delegated and has no configure step the plans reach, so `{op}` runs right after it is registered",
                                    r.id, n.id, n.id
                                ),
                            )
                            .at_opt(r.origin.clone())
                            .hint("TOSCA 1.3 §7.2.1.1 says such weaving should fail; move the script to add_target/add_source (run once both ends are started), or give the node an implementation"),
                        );
                    }
                }
            }
        }
    }

    /// `get_operation_output` (1.3 §4.6) reads what an operation returned:
    /// the operation gets an output of that name, stored into an attribute
    /// of the same name of its node, which the call then reads.
    fn operation_outputs(&mut self, t: &mut Topology) {
        let mut wanted: BTreeSet<(String, String, String, String)> = BTreeSet::new();
        let mut visit = |v: &Value| {
            walk(v, &mut |call, args| {
                if call == "get_operation_output"
                    && let [
                        Value::Scalar(e),
                        Value::Scalar(i),
                        Value::Scalar(o),
                        Value::Scalar(out),
                    ] = args
                {
                    wanted.insert((e.clone(), i.clone(), o.clone(), out.clone()));
                }
            })
        };
        for n in &t.nodes {
            n.properties.values().for_each(&mut visit);
            for i in n.interfaces.iter() {
                for o in &i.operations {
                    o.inputs
                        .iter()
                        .filter_map(|p| p.value.as_ref())
                        .for_each(&mut visit);
                }
            }
        }
        for r in &t.relationships {
            for i in r.interfaces.iter() {
                for o in &i.operations {
                    o.inputs
                        .iter()
                        .filter_map(|p| p.value.as_ref())
                        .for_each(&mut visit);
                }
            }
        }
        t.outputs.iter().for_each(|o| visit(&o.value));
        for (entity, iface, op, out) in wanted {
            let Some(n) = t.node_by_id(&entity) else {
                continue;
            };
            let node = &mut t.nodes[n.0 as usize];
            let mut ifaces = (*node.interfaces).clone();
            let found = ifaces
                .iter_mut()
                .filter(|i| {
                    *i.name == *iface || i.interface_type.as_deref() == Some(iface.as_str())
                })
                .find_map(|i| i.operations.iter_mut().find(|o| *o.name == *op));
            match found {
                Some(o) => {
                    if !o.outputs.iter().any(|p| *p.name == *out) {
                        o.outputs.push(Parameter {
                            name: out.as_str().into(),
                            required: false,
                            value: None,
                        });
                    }
                    node.interfaces = Arc::new(ifaces);
                    node.properties.entry(out.into()).or_insert(Value::Null);
                }
                None => self.diags.push(
                    Diagnostic::warning(
                        codes::W_IGNORED,
                        format!(
                            "`get_operation_output` reads `{out}` of `{iface}.{op}`, which `{entity}` does not have; the value is empty"
                        ),
                    )
                    .at_opt(node.origin.clone()),
                ),
            }
        }
    }

    /// Attributes of delegated nodes that the topology reads become plan
    /// inputs: whoever supplies the node supplies them.
    fn delegated_attributes(&mut self, t: &mut Topology) {
        let mut wanted: BTreeSet<(NodeId, String)> = BTreeSet::new();
        let mut visit = |v: &Value| {
            walk(v, &mut |call, args| {
                if matches!(call, "get_attribute" | "get_property")
                    && let [Value::Scalar(e), Value::Scalar(p), ..] = args
                    && let Some(n) = t.node_by_id(e)
                    && t.node(n).is_abstract
                {
                    wanted.insert((n, p.clone()));
                }
            })
        };
        for n in &t.nodes {
            n.properties.values().for_each(&mut visit);
            for i in n.interfaces.iter() {
                for o in &i.operations {
                    o.inputs
                        .iter()
                        .filter_map(|p| p.value.as_ref())
                        .for_each(&mut visit);
                }
            }
        }
        for r in &t.relationships {
            r.properties.values().for_each(&mut visit);
            for i in r.interfaces.iter() {
                for o in &i.operations {
                    o.inputs
                        .iter()
                        .filter_map(|p| p.value.as_ref())
                        .for_each(&mut visit);
                }
            }
        }
        t.outputs.iter().for_each(|o| visit(&o.value));
        for (n, attr) in wanted {
            let node_id = t.node(n).id.clone();
            let slot = t.nodes[n.0 as usize]
                .properties
                .entry(attr.as_str().into())
                .or_insert(Value::Null);
            if !slot.is_empty() {
                continue;
            }
            let input = format!("{node_id}_{attr}");
            *slot = Value::input(input.clone());
            t.inputs.entry(input.clone()).or_insert(InputDef {
                name: input,
                type_name: Some("string".into()),
                default: None,
                required: true,
            });
        }
    }

    /// Function calls that read a property or attribute a (provisioned)
    /// node does not have: plans can only pass an empty value.
    fn warn_unknown_attributes(&mut self, t: &Topology, topo: &ast::Topology, unit: Unit<'a>) {
        let mut seen: BTreeSet<(String, String)> = BTreeSet::new();
        let mut found: Vec<(String, String, Option<Location>)> = Vec::new();
        let mut check = |v: &Value, origin: &Option<Location>| {
            walk(v, &mut |call, args| {
                if matches!(call, "get_attribute" | "get_property")
                    && let [Value::Scalar(e), Value::Scalar(p), ..] = args
                    && let Some(n) = t.node_by_id(e)
                    && !t.node(n).is_abstract
                    && !t.node(n).properties.contains_key(p.as_str())
                    && seen.insert((e.clone(), p.clone()))
                {
                    found.push((e.clone(), p.clone(), origin.clone()));
                }
            })
        };
        for n in &t.nodes {
            n.properties.values().for_each(|v| check(v, &n.origin));
            for i in n.interfaces.iter() {
                for o in &i.operations {
                    o.inputs
                        .iter()
                        .filter_map(|p| p.value.as_ref())
                        .for_each(|v| check(v, &n.origin));
                }
            }
        }
        for r in &t.relationships {
            r.properties.values().for_each(|v| check(v, &r.origin));
            for i in r.interfaces.iter() {
                for o in &i.operations {
                    o.inputs
                        .iter()
                        .filter_map(|p| p.value.as_ref())
                        .for_each(|v| check(v, &r.origin));
                }
            }
        }
        for o in &t.outputs {
            let at = topo.outputs.iter().find(|(n, _)| n.text == o.name);
            check(&o.value, &at.map(|(n, _)| Self::at(unit, n.span)));
        }
        for (node, prop, origin) in found {
            self.diags.push(
                Diagnostic::warning(
                    codes::W_IGNORED,
                    format!(
                        "`{node}` has no property or attribute `{prop}` that plans can read; the value passed for it is empty"
                    ),
                )
                .at_opt(origin.or_else(|| Some(Location::file(t.service_template.file.clone()))))
                .hint("declare the attribute in the node type, or read it from the node that has it"),
            );
        }
    }

    /// Say, for every node template the plans do not provision, why and
    /// what the plans expect instead.
    fn warn_delegated(&mut self, t: &Topology, base: usize) {
        for node in t.nodes.iter().take(base) {
            if !node.is_abstract && !node.running {
                continue;
            }
            let inputs: Vec<String> = node
                .properties
                .iter()
                .filter_map(|(k, v)| {
                    v.as_input()
                        .filter(|i| *i == format!("{}_{k}", node.id))
                        .map(|i| format!("`{k}` from plan input `{i}`"))
                })
                .collect();
            let why = if node.running {
                "has the `select` directive: an existing node is used"
            } else if node
                .interfaces
                .iter()
                .flat_map(|i| &i.operations)
                .any(|o| o.implementation.is_some())
            {
                "has the `substitute` directive"
            } else {
                "implements no operation and is infrastructure the orchestrator provides"
            };
            self.diags.push(
                Diagnostic::warning(
                    codes::W_YAML_DELEGATED,
                    format!(
                        "node template `{}` (type `{}`) {why}: it is delegated (TOSCA 1.3 §7.2.1.1); the plans register it as started without provisioning it{}",
                        node.id,
                        t.types.get(node.type_id).name,
                        if inputs.is_empty() { String::new() } else { format!(", taking {}", inputs.join(", ")) }
                    ),
                )
                .at_opt(node.origin.clone())
                .hint("give the node implementations (e.g. `Standard.create`) if the plans should provision it"),
            );
        }
    }

    fn groups_and_policies(&mut self, t: &mut Topology, topo: &'a ast::Topology, unit: Unit<'a>) {
        for g in &topo.groups {
            let types = self.type_names(TypeKind::Group, g.type_name.as_ref(), unit, "group type");
            let mut members = Vec::new();
            for m in &g.members {
                match t.node_by_id(&m.text) {
                    Some(n) => members.push(n),
                    None => self.push_once(
                        Diagnostic::error(
                            codes::DANGLING_REFERENCE,
                            format!(
                                "group `{}` has member `{}`, which is not a node template",
                                g.name.text, m.text
                            ),
                        )
                        .at(Self::at(unit, m.span)),
                    ),
                }
            }
            let properties = g
                .properties
                .iter()
                .map(|(k, v)| (k.text.clone(), self.value(v, unit, This::Nothing)))
                .collect();
            t.groups.push(Group {
                name: g.name.text.clone(),
                types,
                members,
                properties,
                origin: Some(Self::at(unit, g.name.span)),
            });
        }
        let mut policy_names = std::collections::HashSet::new();
        for p in &topo.policies {
            // A list of one-entry maps (the usual form) does not stop a
            // name from coming twice; plans are named after policies.
            if !policy_names.insert(p.name.text.as_str()) {
                self.push_once(
                    Diagnostic::error(
                        codes::DUPLICATE_TEMPLATE,
                        format!("policy `{}` is defined more than once", p.name.text),
                    )
                    .at(Self::at(unit, p.name.span))
                    .hint("give every policy of the topology a name of its own"),
                );
                continue;
            }
            let types =
                self.type_names(TypeKind::Policy, p.type_name.as_ref(), unit, "policy type");
            let mut targets = Vec::new();
            for tg in &p.targets {
                if let Some(n) = t.node_by_id(&tg.text) {
                    targets.push(PolicyTarget::Node(n));
                } else if let Some(g) = t.groups.iter().position(|g| g.name == tg.text) {
                    targets.push(PolicyTarget::Group(g));
                } else {
                    self.push_once(
                        Diagnostic::error(
                            codes::DANGLING_REFERENCE,
                            format!("policy `{}` targets `{}`, which is neither a node template nor a group", p.name.text, tg.text),
                        )
                        .at(Self::at(unit, tg.span)),
                    );
                }
            }
            let properties = p
                .properties
                .iter()
                .map(|(k, v)| (k.text.clone(), self.value(v, unit, This::Nothing)))
                .collect();
            let metadata = p
                .metadata
                .iter()
                .map(|(k, v)| (k.text.clone(), v.text.clone(), Self::at(unit, v.span)))
                .collect();
            t.policies.push(Policy {
                name: p.name.text.clone(),
                types,
                targets,
                properties,
                metadata,
                origin: Some(Self::at(unit, p.name.span)),
            });
        }
    }

    /// A type's name and its ancestors' (unresolved types: as written).
    fn type_names(
        &mut self,
        kind: TypeKind,
        name: Option<&ast::Spanned>,
        unit: Unit<'a>,
        what: &str,
    ) -> Vec<String> {
        let Some(name) = name else {
            return Vec::new();
        };
        match self.resolve_or_report(kind, name, unit, what) {
            Some(k) => self.chain(kind, &k).unwrap_or_else(|| vec![k]),
            None => vec![name.text.clone()],
        }
    }

    fn substitution(
        &mut self,
        t: &Topology,
        s: &'a ast::Substitution,
        unit: Unit<'a>,
    ) -> Option<Substitution> {
        let node_type = match &s.node_type {
            Some(nt) => self
                .resolve(TypeKind::Node, &nt.text, unit)
                .unwrap_or_else(|| nt.text.clone()),
            None => {
                self.push_once(
                    Diagnostic::error(
                        codes::YAML_MISSING_KEY,
                        "`substitution_mappings` has no `node_type`",
                    )
                    .at(Self::at(unit, s.span)),
                );
                return None;
            }
        };
        let mut out = Substitution {
            node_type,
            requirements: Vec::new(),
            capabilities: Vec::new(),
            interfaces: s
                .interfaces
                .iter()
                .map(|(o, w)| (o.text.clone(), w.text.clone()))
                .collect(),
        };
        for (list, into, what) in [
            (&s.requirements, &mut out.requirements, "requirement"),
            (&s.capabilities, &mut out.capabilities, "capability"),
        ] {
            for (name, target) in list {
                match target.as_slice() {
                    [n, inner, ..] => match t.node_by_id(&n.text) {
                        Some(id) => into.push((name.text.clone(), id, inner.text.clone())),
                        None => self.push_once(
                            Diagnostic::error(
                                codes::DANGLING_REFERENCE,
                                format!("substitution {what} `{}` maps to `{}`, which is not a node template", name.text, n.text),
                            )
                            .at(Self::at(unit, n.span)),
                        ),
                    },
                    _ => self.push_once(
                        Diagnostic::warning(
                            codes::W_IGNORED,
                            format!("substitution {what} `{}` is not of the form [node, {what}]; it is ignored", name.text),
                        )
                        .at(Self::at(unit, name.span)),
                    ),
                }
            }
        }
        Some(out)
    }
}

fn merge_param(slot: &mut ParamB, new: ParamB) {
    if new.value.is_some() {
        slot.value = new.value;
        slot.required = false;
    } else if slot.value.is_none() {
        slot.required = new.required;
    }
}

/// Normative node types whose templates, when they implement nothing, the
/// orchestrator provides (1.3 §7.2.2.4.1 treats a plain Compute so).
const ORCHESTRATOR_PROVIDED: [&str; 5] = [
    "tosca.nodes.Abstract.Compute",
    "tosca.nodes.Abstract.Storage",
    "tosca.nodes.network.Network",
    "tosca.nodes.network.Port",
    "tosca.nodes.LoadBalancer",
];

/// The ordering kind of a relationship type from its ancestry.
fn classify_kind(chain: &[String]) -> RelKind {
    for t in chain {
        match t.as_str() {
            "tosca.relationships.HostedOn" => return RelKind::HostedOn,
            "tosca.relationships.DependsOn" => return RelKind::DependsOn,
            "tosca.relationships.ConnectsTo" => return RelKind::ConnectsTo,
            "tosca.relationships.AttachesTo" => return RelKind::AttachesTo,
            _ => {}
        }
    }
    RelKind::Other
}

/// The artifact type of an implementation given as a bare file name.
fn infer_type(file: &str) -> &'static str {
    let ext = file.rsplit('.').next().unwrap_or("").to_ascii_lowercase();
    match ext.as_str() {
        "sh" | "bash" => "tosca.artifacts.Implementation.Bash",
        "py" => "tosca.artifacts.Implementation.Python",
        _ => "tosca.artifacts.Implementation",
    }
}

fn file_stem(name: &str) -> String {
    let file = name.rsplit('/').next().unwrap_or(name);
    file.rsplit_once('.')
        .map(|(s, _)| s)
        .unwrap_or(file)
        .to_string()
}

fn text_of(file: &File, span: Span) -> String {
    file.source
        .text()
        .get(span.start..span.end)
        .unwrap_or("")
        .to_string()
}

fn normalize_ws(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

fn closest(name: &str, names: &BTreeSet<String>) -> String {
    match nearest(name, names) {
        Some(n) => format!("did you mean the node template `{n}`?"),
        None => {
            "name a node template of the topology, or a node type the orchestrator should supply"
                .into()
        }
    }
}

/// The name in `names` nearest to `name` by edit distance, if it is close
/// enough to be a typo (at most a quarter of the name, and at least 2).
fn nearest(name: &str, names: &BTreeSet<String>) -> Option<String> {
    let limit = (name.chars().count() / 4).max(2);
    names
        .iter()
        .map(|n| (edit_distance(name, n), n))
        .filter(|(d, _)| *d <= limit)
        .min()
        .map(|(_, n)| n.clone())
}

/// Levenshtein distance, case-insensitive.
fn edit_distance(a: &str, b: &str) -> usize {
    let a: Vec<char> = a.to_lowercase().chars().collect();
    let b: Vec<char> = b.to_lowercase().chars().collect();
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.iter().enumerate() {
        let mut cur = vec![i + 1; b.len() + 1];
        for (j, cb) in b.iter().enumerate() {
            cur[j + 1] = (prev[j] + usize::from(ca != cb))
                .min(prev[j + 1] + 1)
                .min(cur[j] + 1);
        }
        prev = cur;
    }
    prev[b.len()]
}

/// Call `f` for every function call in `v` (outermost first).
fn walk(v: &Value, f: &mut dyn FnMut(&str, &[Value])) {
    match v {
        Value::Call(c) => {
            f(&c.function, &c.args);
            c.args.iter().for_each(|a| walk(a, f));
        }
        Value::List(l) => l.iter().for_each(|a| walk(a, f)),
        Value::Map(m) => m.values().for_each(|a| walk(a, f)),
        _ => {}
    }
}

/// Resolve entity keywords and requirement/capability hops in every value
/// of the topology (see the module docs).
fn resolve_entities(
    t: &mut Topology,
    by_requirement: &HashMap<(NodeId, String), NodeId>,
    caps: &HashMap<(NodeId, String), IndexMap<String, Value>>,
    cap_names: &HashMap<NodeId, Vec<String>>,
) {
    use super::TemplateRef;
    // Resolution reads the topology's structure and property names, never
    // property values: each value is taken out, resolved against the
    // topology and put back. Only values with entity calls change, and
    // interfaces shared by a type stay shared unless one of their values
    // does (a copy of the topology, and of every template's interfaces,
    // was most of the memory of loading a large topology).
    let resolve = |t: &Topology, ctx: TemplateRef, v: &mut Value| {
        resolve_value(t, Some(ctx), v, by_requirement, caps, cap_names)
    };
    let templates: Vec<TemplateRef> = t
        .node_ids()
        .map(TemplateRef::Node)
        .chain(t.relationship_ids().map(TemplateRef::Relationship))
        .collect();
    for ctx in templates {
        for j in 0..t.properties(ctx).len() {
            if has_entity_call(&t.properties(ctx)[j]) {
                let mut v = std::mem::replace(&mut t.properties_mut(ctx)[j], Value::Null);
                resolve(t, ctx, &mut v);
                t.properties_mut(ctx)[j] = v;
            }
        }
        let own = match ctx {
            TemplateRef::Node(n) => &t.node(n).interfaces,
            TemplateRef::Relationship(r) => &t.relationship(r).interfaces,
        };
        if let Some(ifaces) = resolve_interfaces(t, ctx, own, &resolve) {
            match ctx {
                TemplateRef::Node(n) => t.nodes[n.0 as usize].interfaces = ifaces,
                TemplateRef::Relationship(r) => t.relationships[r.0 as usize].interfaces = ifaces,
            }
        }
    }
}

/// The interfaces with their parameter values resolved, if any of them
/// has an entity call (else they stay as they are, shared).
fn resolve_interfaces(
    t: &Topology,
    ctx: super::TemplateRef,
    interfaces: &Arc<Vec<Interface>>,
    resolve: &dyn Fn(&Topology, super::TemplateRef, &mut Value),
) -> Option<Arc<Vec<Interface>>> {
    let params = |i: &Interface| {
        i.operations
            .iter()
            .flat_map(|o| o.inputs.iter().chain(&o.outputs))
            .filter_map(|p| p.value.as_ref())
            .any(has_entity_call)
    };
    if !interfaces.iter().any(params) {
        return None;
    }
    let mut ifaces = (**interfaces).clone();
    for iface in &mut ifaces {
        for op in &mut iface.operations {
            for p in op.inputs.iter_mut().chain(op.outputs.iter_mut()) {
                if let Some(v) = &mut p.value {
                    resolve(t, ctx, v);
                }
            }
        }
    }
    Some(Arc::new(ifaces))
}

/// Whether `v` has a call that names an entity (`get_property`,
/// `get_attribute`, `get_operation_output`): what [`resolve_value`] changes.
fn has_entity_call(v: &Value) -> bool {
    match v {
        Value::Call(c) => {
            matches!(
                c.function.as_str(),
                "get_property" | "get_attribute" | "get_operation_output"
            ) || c.args.iter().any(has_entity_call)
        }
        Value::List(l) => l.iter().any(has_entity_call),
        Value::Map(m) => m.values().any(has_entity_call),
        _ => false,
    }
}

/// Resolve one value in the context of `ctx` (see [`resolve_entities`]).
fn resolve_value(
    t: &Topology,
    ctx: Option<super::TemplateRef>,
    v: &mut Value,
    by_requirement: &HashMap<(NodeId, String), NodeId>,
    caps: &HashMap<(NodeId, String), IndexMap<String, Value>>,
    cap_names: &HashMap<NodeId, Vec<String>>,
) {
    use super::TemplateRef;
    match v {
        Value::Call(c) => {
            let super::Call { function, args } = &mut **c;
            for a in args.iter_mut() {
                resolve_value(t, ctx, a, by_requirement, caps, cap_names);
            }
            let entity_fn = matches!(
                function.as_str(),
                "get_property" | "get_attribute" | "get_operation_output"
            );
            if !entity_fn {
                return;
            }
            tosca2_path(args);
            let Some(entity) = args.first().and_then(Value::as_str).map(str::to_string) else {
                return;
            };
            let node = match (entity.as_str(), ctx) {
                ("SELF", Some(TemplateRef::Node(n))) => Some(n),
                ("SELF", _) => None,
                ("SOURCE", Some(TemplateRef::Relationship(r))) => Some(t.relationship(r).source),
                ("TARGET", Some(TemplateRef::Relationship(r))) => Some(t.relationship(r).target),
                ("HOST", Some(TemplateRef::Node(n))) => {
                    // The first node down the hosting chain that has it.
                    let prop = args.get(1).and_then(Value::as_str).unwrap_or_default();
                    let mut cur = t.host(n);
                    let first = cur;
                    let mut steps = 0;
                    while let Some(h) = cur {
                        if t.node(h).properties.contains_key(prop) || steps > t.nodes.len() {
                            break;
                        }
                        cur = t.host(h);
                        steps += 1;
                    }
                    cur.or(first)
                }
                (name, _) => t.node_by_id(name),
            };
            let Some(n) = node else {
                return;
            };
            if function == "get_operation_output" {
                args[0] = Value::Scalar(t.node(n).id.clone());
                return;
            }
            // A requirement or capability name between entity and property.
            if args.len() >= 3
                && let Some(hop) = args[1].as_str().map(str::to_string)
            {
                let names = cap_names.get(&n).cloned().unwrap_or_default();
                if let Some(&target) = by_requirement.get(&(n, hop.clone())) {
                    let prop = args[2].clone();
                    let rest: Vec<Value> = args[3..].to_vec();
                    let target_prop = prop.as_str().unwrap_or_default().to_string();
                    // The target's capability property, if it has none itself.
                    if !t.node(target).properties.contains_key(target_prop.as_str())
                        && function == "get_property"
                        && let Some(value) =
                            cap_names.get(&target).into_iter().flatten().find_map(|c| {
                                caps.get(&(target, c.clone()))
                                    .and_then(|m| m.get(&target_prop))
                            })
                    {
                        *v = value.clone();
                        return;
                    }
                    let mut new_args = vec![Value::Scalar(t.node(target).id.clone()), prop];
                    new_args.extend(rest);
                    *args = new_args;
                    return;
                }
                if names.contains(&hop) {
                    let prop = args[2].as_str().unwrap_or_default().to_string();
                    if let Some(value) = caps.get(&(n, hop.clone())).and_then(|m| m.get(&prop)) {
                        *v = value.clone();
                        return;
                    }
                    let mut new_args = vec![Value::Scalar(t.node(n).id.clone())];
                    new_args.extend(args[2..].iter().cloned());
                    *args = new_args;
                    return;
                }
            }
            args[0] = Value::Scalar(t.node(n).id.clone());
        }
        Value::List(l) => l
            .iter_mut()
            .for_each(|a| resolve_value(t, ctx, a, by_requirement, caps, cap_names)),
        Value::Map(m) => m
            .values_mut()
            .for_each(|a| resolve_value(t, ctx, a, by_requirement, caps, cap_names)),
        _ => {}
    }
}

/// Rewrite a TOSCA 2.0 path (2.0 §10.2.1) into the 1.x argument form the
/// hops above understand: `[SELF, TARGET, p]` → `[TARGET, p]`,
/// `[E, RELATIONSHIP, r, (index,) TARGET, (CAPABILITY, c,) p]` → `[E, r, p]`,
/// `[E, CAPABILITY, c, p]` → `[E, c, p]`.
fn tosca2_path(args: &mut Vec<Value>) {
    let word = |args: &[Value], i: usize| args.get(i).and_then(Value::as_str).map(str::to_string);
    if word(args, 0).as_deref() == Some("SELF")
        && matches!(word(args, 1).as_deref(), Some("SOURCE" | "TARGET"))
    {
        args.remove(0);
    }
    if word(args, 1).as_deref() == Some("RELATIONSHIP") && args.len() > 3 {
        let mut k = 3;
        if word(args, k).is_some_and(|s| s == "ALL" || s.parse::<u64>().is_ok()) {
            k += 1;
        }
        if word(args, k).as_deref() == Some("TARGET") {
            k += 1;
        }
        if word(args, k).as_deref() == Some("CAPABILITY") {
            k += 2;
        }
        let mut new = vec![args[0].clone(), args[2].clone()];
        new.extend(args[k.min(args.len())..].iter().cloned());
        *args = new;
    }
    if word(args, 1).as_deref() == Some("CAPABILITY") && args.len() >= 4 {
        args.remove(1);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_tosca_2_paths() {
        let s = |v: &[&str]| {
            v.iter()
                .map(|x| Value::Scalar(x.to_string()))
                .collect::<Vec<_>>()
        };
        let mut a = s(&[
            "SELF",
            "RELATIONSHIP",
            "db",
            "0",
            "TARGET",
            "CAPABILITY",
            "endpoint",
            "port",
        ]);
        tosca2_path(&mut a);
        assert_eq!(a, s(&["SELF", "db", "port"]));
        let mut b = s(&["SELF", "TARGET", "name"]);
        tosca2_path(&mut b);
        assert_eq!(b, s(&["TARGET", "name"]));
        let mut c = s(&["SELF", "CAPABILITY", "host", "num_cpus"]);
        tosca2_path(&mut c);
        assert_eq!(c, s(&["SELF", "host", "num_cpus"]));
    }

    #[test]
    fn classifies_by_ancestry() {
        let chain = |v: &[&str]| v.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        assert_eq!(
            classify_kind(&chain(&[
                "my.Rel",
                "tosca.relationships.RoutesTo",
                "tosca.relationships.ConnectsTo"
            ])),
            RelKind::ConnectsTo
        );
        assert_eq!(
            classify_kind(&chain(&[
                "tosca.relationships.network.BindsTo",
                "tosca.relationships.DependsOn"
            ])),
            RelKind::DependsOn
        );
        assert_eq!(
            classify_kind(&chain(&["tosca.relationships.Root"])),
            RelKind::Other
        );
    }

    #[test]
    fn paths_are_relative_to_the_naming_file() {
        assert_eq!(infer_type("a/b.sh"), "tosca.artifacts.Implementation.Bash");
        assert_eq!(file_stem("dir/service.yaml"), "service");
    }
}
