//! Lowering TOSCA YAML into the [`Topology`] model.
//!
//! In: the files of a service template ([`Loaded`]) and the
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
//!
//! One concept per file: `types` (names, ancestry), `values` (with
//! `fold`, the built-in functions evaluated now, `artifact_calls`, the
//! `get_artifact` calls, and `custom_functions`, calls of functions that
//! are not built in), `artifacts`, `interfaces`, `properties`, `capabilities`, `nodes`,
//! `requirements` (with `fulfil`, dangling ones fulfilled from the
//! topology, `named_target`, a named target checked against the
//! filters, `candidates`, its templates by type, `node_filter`, what
//! a requirement's filter says of one, `pattern`, its regular
//! expressions, and `shared_verdicts`, a filter's verdicts shared by
//! the requirements that carry it, and `rooms`, the candidates with room
//! for an allocation), `relationships`,
//! `delegation`, `attributes`,
//! `entities`, `policies` (and groups), `substitution`, `substitute`
//! (which nodes are substituted, by what), `splice`, `splice_values`,
//! `splice_parts` (their templates in the nodes' places), `mapping_routes`
//! (which requirement mapping each relationship of a substituted node takes),
//! `keyed_attributes` (outputs giving its capabilities' and relationships'
//! attributes), `workflows`;
//! `topology` lowers the parts in order.

mod allocation;
mod artifact_calls;
mod artifacts;
mod attributes;
mod candidates;
mod capabilities;
mod check_values;
mod count;
mod custom_functions;
mod delegation;
mod entities;
mod fold;
mod fulfil;
mod given;
mod interfaces;
mod keyed_attributes;
mod mapping_routes;
mod named_target;
mod node_filter;
mod nodes;
mod pattern;
mod policies;
mod properties;
mod relationship_copies;
mod relationships;
mod rep_allocation;
mod requirement_directives;
mod requirements;
mod rooms;
mod select;
mod shared_verdicts;
mod splice;
mod splice_parts;
mod splice_values;
mod substitute;
mod substitution;
mod topology;
mod types;
mod value_clauses;
mod values;
mod workflows;

use foldhash::{HashMap, HashMapExt, HashSet, HashSetExt};
use std::collections::BTreeSet;
use std::rc::Rc;
use std::sync::Arc;

use indexmap::IndexMap;

use super::{Artifact, Interface, NodeId, Topology, TypeId, TypeTable, Value};
use crate::csar::Csar;
use crate::diagnostics::{Diagnostic, Diagnostics, Location, Span, codes};
use crate::yaml::ast::{self, File, TypeKind};
use crate::yaml::imports::Loaded;
use crate::yaml::normative;

/// The topology of a CSAR holding only `yaml`, as `s.yaml` (unit tests);
/// panics with the diagnostics where loading or lowering fails.
#[cfg(test)]
pub(crate) fn topology_of(yaml: &str) -> Topology {
    let entry = ("s.yaml".to_string(), yaml.as_bytes().to_vec());
    let mut csar = Csar::from_entries("t", [entry]);
    let mut sources = crate::diagnostics::SourceMap::default();
    let (loaded, d) = crate::yaml::imports::load(&mut csar, "s.yaml", &[], 64, &[], &mut sources);
    assert!(!d.has_errors(), "{d:?}");
    let (t, d) = lower(&loaded, None, &mut csar);
    t.unwrap_or_else(|| panic!("{d:?}"))
}

/// Lower the loaded files into a topology. `csar` is used to check (and,
/// for a single-file input, read) the artifact files operations name.
pub(crate) fn lower(
    loaded: &Loaded,
    given: Option<&ast::File>,
    csar: &mut Csar,
) -> (Option<Topology>, Diagnostics) {
    let mut l = Lowerer::new(loaded, csar);
    let scope = loaded
        .units
        .first()
        .map(|u| u.scope.as_slice())
        .unwrap_or_default();
    l.given = given.map(|f| given::Given::new(f, scope));
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
            .hint("a file without one (only types, a profile, only metadata) is valid TOSCA to import, but there is nothing to plan in it; compile the service template that uses it"),
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

impl Unit<'_> {
    /// The file and scope, by address (units live as long as the
    /// lowering): what tells units apart where what is worked out for
    /// one is kept (`shared_verdicts.rs`, `rooms.rs`).
    fn id(&self) -> String {
        format!("{:p}/{:p}/{}", self.file, self.scope.as_ptr(), self.builtin)
    }
}

/// The capability names of each node template.
type CapabilityNames = HashMap<NodeId, Arc<[String]>>;

/// A capability a node template offers (see `Lowerer::capability_types`).
#[derive(Clone)]
struct OfferedCapability<'a> {
    name: String,
    type_key: Option<String>,
    lineage: Vec<&'a ast::TypeDef>,
    /// The node types a relationship to it may come from (resolved keys;
    /// empty: any), from the capability definition or else its type.
    sources: Vec<String>,
    /// The relationship types that may reach it (empty: any).
    relationships: Vec<String>,
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

/// The state of one lowering: the type index of every file, and what the
/// parts (in the files of this directory) share while the topology is
/// lowered.
struct Lowerer<'a> {
    /// The files, for lowering a substituting template's topology.
    loaded: &'a Loaded,
    /// The unit whose topology is lowered (the entry's, or a substituting
    /// template's).
    entry: usize,
    /// The files whose topologies are being lowered, outermost first: a
    /// substitution that would inline one of them again is a cycle.
    stack: Vec<usize>,
    /// The capability each relationship (by index) asks its target for, as
    /// written (a name or a type) with the unit to resolve it in.
    rel_capability: Vec<Option<(String, Unit<'a>)>>,
    /// The capability of its target each relationship reaches (its
    /// name), by RelId: what a path through incoming relationships reads.
    rel_reached: Vec<Option<String>>,
    /// Nodes whose substitution failed with an error (no W0313 for them).
    substitution_failed: HashSet<String>,
    units: Vec<Unit<'a>>,
    index: HashMap<(TypeKind, String), Def<'a>>,
    csar: &'a mut Csar,
    diags: Diagnostics,
    reported: HashSet<(String, usize, usize, &'static str)>,
    types: TypeTable,
    type_ids: HashMap<(TypeKind, String), Option<TypeId>>,
    chains: HashMap<(TypeKind, String), Option<Vec<String>>>,
    /// `defs` of each type, by kind and key.
    defs_memo: HashMap<TypeKind, HashMap<String, Rc<[Def<'a>]>>>,
    inputs: BTreeSet<String>,
    node_names: BTreeSet<String>,
    /// Node templates whose multiplicity asks for other than one instance.
    multiple_nodes: BTreeSet<String>,
    /// Node templates with a `count` other than 1: their `$node_index` is
    /// each representation's (see `model::replicate`).
    counted_nodes: BTreeSet<String>,
    /// `get_artifact` calls, checked once the topology is made.
    artifact_calls: Vec<artifact_calls::ArtifactCall>,
    rel_template_names: BTreeSet<String>,
    /// 2.0 files that used a built-in type without importing a profile.
    implicit_profile: BTreeSet<String>,
    /// Static capability property values: (node, capability) → values.
    capability_values: HashMap<(NodeId, String), IndexMap<String, Value>>,
    /// Relationships to one representation of a template with a `count`
    /// (`node: [template, index]`): relationship id, index, where written.
    indexed_targets: Vec<(String, ast::NodeIndex, Location)>,
    /// Relationships that allocate on a capability where the source or
    /// the target has several representations: what they take, decided
    /// per representation when the counts are known (`rep_allocation.rs`).
    rep_allocations: Vec<rep_allocation::Pending>,
    /// The templates of the entry's topology with several
    /// representations, by name (`count.rs`).
    representation_counts: HashMap<String, u32>,
    /// Capability names of each node.
    capability_names: CapabilityNames,
    /// Each distinct list of capability names once: templates of one type
    /// share theirs (one list per template, freed after lowering among the
    /// topology's allocations, was memory never given back).
    capability_name_lists: HashSet<Arc<[String]>>,
    /// What each node type (by key) gives its templates' capabilities.
    node_capabilities: HashMap<String, Rc<capabilities::TypeCapabilities>>,
    /// The capabilities of each node type (by key) that is a requirement's
    /// target: name, type as resolved, and the definitions of the type and
    /// its ancestors (nearest first; none where the type is unknown), for
    /// checking that the target can fulfil the requirement. Definitions,
    /// not names: a file imported under two namespaces defines each type
    /// once.
    capability_types: HashMap<String, Rc<[OfferedCapability<'a>]>>,
    /// The requirement definitions of each node type (by key), merged
    /// along its ancestry: the same for each of its templates.
    requirement_definitions: HashMap<String, Rc<IndexMap<&'a str, requirements::ReqB<'a>>>>,
    /// The relationships made for each requirement of each node.
    rel_by_requirement: HashMap<(NodeId, &'a str), Vec<super::RelId>>,
    /// Interfaces (and deployment artifacts) of the node and relationship
    /// templates that assign neither (most of a large topology), by type
    /// key: they depend on the type alone (values keep `SELF` symbolic), so
    /// one copy serves them all.
    type_interfaces: HashMap<(TypeKind, String), OfType>,
    /// Property names, shared by the templates that have them.
    names: super::Names,
    /// The regular expressions of node filters, compiled once each (or
    /// why they are not), by pattern (`pattern.rs`).
    patterns: HashMap<String, Result<regex::Regex, String>>,
    /// The verdicts of node filters on every candidate, by what makes
    /// filters the same; `None` where they cannot be shared
    /// (`shared_verdicts.rs`).
    shared_verdicts: HashMap<String, Option<Arc<shared_verdicts::Shared>>>,
    /// How many candidate indexes were made (`candidates.rs`).
    candidate_indexes: u64,
    /// The candidates with room for each allocation (`rooms.rs`).
    rooms: HashMap<String, rooms::Room>,
    /// The same, among the candidates one set of filters does not reject.
    rooms_passing: HashMap<String, rooms::RoomPassing>,
    /// The capabilities that take relationships from outside the
    /// topology only (`directives: [external]`), by node and name.
    external_capabilities: HashSet<(NodeId, String)>,
    /// Input values given when the plans are made (`given.rs`).
    given: Option<given::Given<'a>>,
    /// The properties of the template whose values are being checked,
    /// for `$get_property: [SELF, p]` in a clause (`check_values.rs`).
    clause_self: Vec<(&'a str, &'a crate::yaml::node::Node)>,
}

/// A template's interfaces and deployment artifacts, as its type gives them.
type OfType = (Arc<Vec<Interface>>, Vec<Artifact>);

impl<'a> Lowerer<'a> {
    fn new(loaded: &'a Loaded, csar: &'a mut Csar) -> Self {
        let mut l = Lowerer {
            loaded,
            entry: 0,
            stack: loaded.units.first().map(|u| u.file).into_iter().collect(),
            rel_capability: Vec::new(),
            rel_reached: Vec::new(),
            substitution_failed: HashSet::new(),
            units: Vec::new(),
            index: HashMap::new(),
            csar,
            diags: Diagnostics::new(),
            reported: HashSet::new(),
            types: TypeTable::new(),
            type_ids: HashMap::new(),
            chains: HashMap::new(),
            defs_memo: HashMap::new(),
            inputs: BTreeSet::new(),
            node_names: BTreeSet::new(),
            multiple_nodes: BTreeSet::new(),
            counted_nodes: BTreeSet::new(),
            artifact_calls: Vec::new(),
            rel_template_names: BTreeSet::new(),
            implicit_profile: BTreeSet::new(),
            capability_values: HashMap::new(),
            indexed_targets: Vec::new(),
            rep_allocations: Vec::new(),
            representation_counts: HashMap::new(),
            capability_names: HashMap::new(),
            capability_name_lists: HashSet::new(),
            node_capabilities: HashMap::new(),
            capability_types: HashMap::new(),
            requirement_definitions: HashMap::new(),
            rel_by_requirement: HashMap::new(),
            type_interfaces: HashMap::new(),
            names: super::Names::default(),
            patterns: HashMap::new(),
            shared_verdicts: HashMap::new(),
            candidate_indexes: 0,
            rooms: HashMap::new(),
            rooms_passing: HashMap::new(),
            external_capabilities: HashSet::new(),
            given: None,
            clause_self: Vec::new(),
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

    /// Report `d` unless the same code was reported at the same place
    /// (definitions shared by many templates are read once per template).
    fn push_once(&mut self, d: Diagnostic) {
        let key = match &d.location {
            Some(l) => (l.file.clone(), l.line as usize, l.column as usize, d.code),
            None => (String::new(), 0, 0, d.code),
        };
        if self.reported.insert(key) {
            self.diags.push(d);
        }
    }

    /// Where `span` of `unit`'s file is.
    fn at(unit: Unit, span: Span) -> Location {
        unit.file.source.location(span)
    }
}

/// The head of a TOSCA 1.3 service template whose node templates follow
/// (unit tests of the parts).
#[cfg(test)]
const TEST_V13: &str =
    "tosca_definitions_version: tosca_simple_yaml_1_3\ntopology_template:\n  node_templates:\n";

/// The templates the relationships from template `source` reach, in order
/// (unit tests of fulfilment).
#[cfg(test)]
fn targets_of(t: &Topology, source: &str) -> Vec<String> {
    t.relationships
        .iter()
        .filter(|r| t.node(r.source).id == source)
        .map(|r| t.node(r.target).id.clone())
        .collect()
}

/// Lower one service template given as text (unit tests of the parts).
#[cfg(test)]
fn lower_text(yaml: &str) -> (Option<Topology>, Diagnostics) {
    lower_given(yaml, &[])
}

/// Lower `yaml` with input values given as with --input `NAME=VALUE`.
#[cfg(test)]
fn lower_given(yaml: &str, pairs: &[(&str, &str)]) -> (Option<Topology>, Diagnostics) {
    let mut csar = Csar::from_entries(
        "test",
        [("service.yaml".to_string(), yaml.as_bytes().to_vec())],
    );
    let mut sources = crate::diagnostics::SourceMap::default();
    let (loaded, diags) =
        crate::yaml::imports::load(&mut csar, "service.yaml", &[], 64, &[], &mut sources);
    assert!(!diags.has_errors(), "{diags:?}");
    let pairs: Vec<(String, String)> = pairs
        .iter()
        .map(|(n, v)| (n.to_string(), v.to_string()))
        .collect();
    let given =
        crate::yaml::given::document(&pairs, loaded.files[0].version, &mut sources).unwrap();
    lower(&loaded, given.as_ref(), &mut csar)
}

/// Lower the service template `files[0]` of a CSAR of `files` (unit tests
/// of what reads several files).
#[cfg(test)]
fn lower_files(files: &[(&str, &str)]) -> (Option<Topology>, Diagnostics) {
    let mut csar = Csar::from_entries(
        "test",
        files
            .iter()
            .map(|(n, t)| (n.to_string(), t.as_bytes().to_vec())),
    );
    let mut sources = crate::diagnostics::SourceMap::default();
    let (loaded, diags) =
        crate::yaml::imports::load(&mut csar, files[0].0, &[], 64, &[], &mut sources);
    assert!(!diags.has_errors(), "{diags:?}");
    lower(&loaded, None, &mut csar)
}
