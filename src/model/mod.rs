//! Stage 3: the unified topology model. Both dialects lower into it;
//! nothing after this stage sees XML or YAML.
//!
//! In: dialect ASTs (via `lower_xml` and `lower_yaml`). Out: a
//! [`Topology`]: node and relationship templates with their types'
//! ancestry resolved, effective interfaces and implementations, the
//! relationship kind that orders plans, properties as [`Value`]s, and the
//! dialect-independent extras (scaling regions, workflows, outputs).

pub(crate) mod lower_xml;
pub(crate) mod lower_yaml;
pub(crate) mod merge;
mod names;
mod policies;
mod regions;
pub mod replicate;
mod scaling_policies;
mod selection;
mod target;
mod types;
mod value;
mod workflow;

use foldhash::HashMap;
use std::fmt;
use std::sync::Arc;

use indexmap::IndexMap;

use names::Names;
pub use policies::{Group, Policy, PolicyTarget, Substitution};
pub use regions::parse_scaling_tags;
pub use scaling_policies::regions_from_policies;
pub use selection::ExistingNode;
pub use target::Target;
pub use types::{TypeDef, TypeId, TypeKind, TypeName, TypeTable};
pub use value::{Call, RUNTIME_FUNCTIONS, Value, evaluated_at_run_time};
pub use workflow::{Condition, Precondition, StepTarget, Workflow, WorkflowActivity, WorkflowStep};

use crate::diagnostics::Location;

/// Index of a node template in [`Topology::nodes`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct NodeId(pub u32);

/// Index of a relationship template in [`Topology::relationships`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct RelId(pub u32);

/// A node or a relationship template.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum TemplateRef {
    /// A node template.
    Node(NodeId),
    /// A relationship template.
    Relationship(RelId),
}

/// Which language the topology was written in.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Dialect {
    /// TOSCA 1.0 XML.
    Xml,
    /// TOSCA YAML; the `tosca_definitions_version` value.
    Yaml(String),
}

/// What ordering a relationship imposes, found by walking its type's
/// ancestry to the first known base type (subtypes count).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize)]
pub enum RelKind {
    /// The source runs on the target.
    HostedOn,
    /// The source needs the target.
    DependsOn,
    /// The source is deployed onto the target (TOSCA 1.0 base type).
    DeployedOn,
    /// The source talks to the target over the network.
    ConnectsTo,
    /// The source (e.g. storage) is attached to the target (Simple Profile).
    AttachesTo,
    /// None of the above; ordered according to the compile options.
    Other,
}

impl fmt::Display for RelKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            RelKind::HostedOn => "HostedOn",
            RelKind::DependsOn => "DependsOn",
            RelKind::DeployedOn => "DeployedOn",
            RelKind::ConnectsTo => "ConnectsTo",
            RelKind::AttachesTo => "AttachesTo",
            RelKind::Other => "Other",
        })
    }
}

impl RelKind {
    /// HostedOn, DependsOn and DeployedOn: the target must exist first.
    pub fn is_infrastructure(self) -> bool {
        matches!(
            self,
            RelKind::HostedOn | RelKind::DependsOn | RelKind::DeployedOn
        )
    }
}

/// A name shared by the model and every plan step that refers to it
/// (interfaces, operations, parameters): plans of large topologies name
/// the same few operations and inputs hundreds of thousands of times, and
/// a clone of a `Name` is a reference count, not a copy.
pub type Name = Arc<str>;

/// The property values of a template, by name in declaration order. The
/// names are shared by the templates of a type (a 100k-node topology has
/// over a million property entries and a few dozen distinct names).
pub type Properties = IndexMap<Name, Value>;

/// A parameter of an operation.
#[derive(Clone, Debug, PartialEq)]
pub struct Parameter {
    /// Name.
    pub name: Name,
    /// Whether a value must be supplied.
    pub required: bool,
    /// An assigned value (YAML operation inputs), if any.
    pub value: Option<Value>,
}

/// A file-based artifact: an implementation or deployment artifact.
#[derive(Clone, Debug, PartialEq, Default)]
pub struct Artifact {
    /// Name of the artifact (or of its artifact template).
    pub name: String,
    /// Artifact type, as written (QName in `{ns}local` form or YAML type name).
    pub artifact_type: TypeName,
    /// Files inside the CSAR (or URLs) the artifact consists of.
    pub files: Vec<String>,
    /// Properties of the artifact (template), e.g. an Ansible `Playbook`.
    pub properties: IndexMap<String, String>,
    /// Where a deployment artifact's file goes on the node's host (YAML
    /// `deploy_path`); `None`: below a directory named after the service
    /// template.
    pub deploy_path: Option<String>,
}

/// How an operation is implemented.
#[derive(Clone, Debug, PartialEq)]
pub struct Implementation {
    /// The primary artifact.
    pub primary: Artifact,
    /// Further artifacts copied next to it.
    pub dependencies: Vec<Artifact>,
}

/// An operation of an interface.
#[derive(Clone, Debug, PartialEq)]
pub struct Operation {
    /// Name.
    pub name: Name,
    /// Inputs.
    pub inputs: Vec<Parameter>,
    /// Outputs.
    pub outputs: Vec<Parameter>,
    /// Implementation, if any artifact implements it (shared: a template
    /// whose operation inputs are resolved for it copies its operations,
    /// not their artifacts).
    pub implementation: Option<Arc<Implementation>>,
}

/// An interface: a named set of operations.
#[derive(Clone, Debug, PartialEq)]
pub struct Interface {
    /// Name as written (an URI in TOSCA 1.0, `Standard` etc. in YAML).
    pub name: Name,
    /// Interface type (YAML), e.g. `tosca.interfaces.node.lifecycle.Standard`.
    pub interface_type: Option<String>,
    /// The interface type and the types it derives from, nearest first
    /// (YAML; empty when untyped, as in TOSCA 1.0 XML, where an interface
    /// is its name).
    pub lineage: Vec<String>,
    /// Operations in declaration order.
    pub operations: Vec<Operation>,
}

/// The normative node lifecycle interface type of TOSCA YAML (1.3 §5.8.4).
pub const LIFECYCLE_STANDARD: &str = "tosca.interfaces.node.lifecycle.Standard";
/// The normative relationship interface type of TOSCA YAML (1.3 §5.8.5).
pub const RELATIONSHIP_CONFIGURE: &str = "tosca.interfaces.relationship.Configure";

impl Interface {
    /// Whether the interface is of the normative interface type
    /// `normative` (or one derived from it), decided on its resolved type
    /// and not its name: a user's `Standard` of a type of its own is not the
    /// lifecycle. An untyped interface (TOSCA 1.0 XML, or YAML whose type
    /// is unknown) is one when its name is the type's usual name, the last
    /// segment of `normative` (`Standard`, `Configure`) or the whole.
    pub fn is_a(&self, normative: &str) -> bool {
        if !self.lineage.is_empty() {
            return self.lineage.iter().any(|t| t == normative);
        }
        let short = normative.rsplit('.').next().unwrap_or(normative);
        *self.name == *short || *self.name == *normative
    }

    /// An operation by name.
    pub fn operation(&self, name: &str) -> Option<&Operation> {
        self.operations.iter().find(|o| &*o.name == name)
    }
}

/// A node template.
#[derive(Clone, Debug)]
pub struct NodeTemplate {
    /// Identifier (TOSCA 1.0 `id`, YAML template name).
    pub id: String,
    /// Display name.
    pub name: String,
    /// Its type.
    pub type_id: TypeId,
    /// Property values in declaration order.
    pub properties: Properties,
    /// Namespace and name of the property document's root element
    /// (TOSCA 1.0), for writing instance properties back.
    pub properties_element: Option<(String, String)>,
    /// Effective interfaces (inherited ones merged), with implementations.
    pub interfaces: Arc<Vec<Interface>>,
    /// Deployment artifacts.
    pub artifacts: Vec<Artifact>,
    /// Already running: registered by plans, never provisioned
    /// (OpenTOSCA's `State=Running` convention, YAML `select` directive).
    pub running: bool,
    /// With the YAML `select` directive: which existing instance the
    /// plans use and what it must pass.
    pub selection: Option<Box<ExistingNode>>,
    /// Abstract: supplied by the orchestrator as a whole (YAML `substitute`,
    /// abstract types without implementation).
    pub is_abstract: bool,
    /// Where it is defined.
    pub origin: Option<Location>,
}

impl NodeTemplate {
    /// An artifact by name: a deployment artifact, or one that implements
    /// an operation (which `deployment artifacts` leave out).
    pub fn artifact(&self, name: &str) -> Option<&Artifact> {
        self.artifacts.iter().find(|a| a.name == name).or_else(|| {
            self.interfaces
                .iter()
                .flat_map(|i| &i.operations)
                .filter_map(|o| o.implementation.as_ref())
                .flat_map(|imp| std::iter::once(&imp.primary).chain(&imp.dependencies))
                .find(|a| a.name == name)
        })
    }

    /// Whether any operation of any of its interfaces has an implementation.
    pub fn implements_any(&self) -> bool {
        self.interfaces
            .iter()
            .flat_map(|i| &i.operations)
            .any(|o| o.implementation.is_some())
    }

    /// Find an operation in any interface; returns the interface too.
    pub fn find_operation(&self, name: &str) -> Option<(&Interface, &Operation)> {
        self.interfaces
            .iter()
            .find_map(|i| i.operation(name).map(|o| (i, o)))
    }

    /// An operation of a named interface.
    pub fn operation(&self, interface: &str, operation: &str) -> Option<&Operation> {
        self.interfaces
            .iter()
            .find(|i| &*i.name == interface)
            .and_then(|i| i.operation(operation))
    }
}

/// A relationship template.
#[derive(Clone, Debug)]
pub struct RelationshipTemplate {
    /// Identifier.
    pub id: String,
    /// Display name.
    pub name: String,
    /// Its type.
    pub type_id: TypeId,
    /// Ordering kind from the type ancestry.
    pub kind: RelKind,
    /// The source node.
    pub source: NodeId,
    /// The target node.
    pub target: NodeId,
    /// Property values.
    pub properties: Properties,
    /// Interfaces of the relationship itself (YAML `Configure`).
    pub interfaces: Arc<Vec<Interface>>,
    /// TOSCA 1.0 `SourceInterfaces`: operations run on the source side.
    pub source_interfaces: Arc<Vec<Interface>>,
    /// TOSCA 1.0 `TargetInterfaces`: operations run on the target side.
    pub target_interfaces: Arc<Vec<Interface>>,
    /// Where it is defined.
    pub origin: Option<Location>,
}

/// A map from templates to values, stored densely by index: lookups are
/// an index, not a hash (plans look templates up millions of times).
#[derive(Clone, Debug)]
pub struct TemplateMap<T> {
    nodes: Vec<Option<T>>,
    relationships: Vec<Option<T>>,
}

impl<T> TemplateMap<T> {
    /// An empty map for the templates of `topology`.
    pub fn new(topology: &Topology) -> TemplateMap<T> {
        TemplateMap {
            nodes: std::iter::repeat_with(|| None)
                .take(topology.nodes.len())
                .collect(),
            relationships: std::iter::repeat_with(|| None)
                .take(topology.relationships.len())
                .collect(),
        }
    }

    fn slot(&self, t: TemplateRef) -> Option<&Option<T>> {
        match t {
            TemplateRef::Node(n) => self.nodes.get(n.0 as usize),
            TemplateRef::Relationship(r) => self.relationships.get(r.0 as usize),
        }
    }

    /// The value of `t`.
    pub fn get(&self, t: TemplateRef) -> Option<&T> {
        self.slot(t).and_then(Option::as_ref)
    }

    /// Whether `t` has a value.
    pub fn contains(&self, t: TemplateRef) -> bool {
        self.get(t).is_some()
    }

    /// Set the value of `t`; the previous one is returned.
    pub fn insert(&mut self, t: TemplateRef, value: T) -> Option<T> {
        let slot = match t {
            TemplateRef::Node(n) => self.nodes.get_mut(n.0 as usize),
            TemplateRef::Relationship(r) => self.relationships.get_mut(r.0 as usize),
        };
        slot.and_then(|s| s.replace(value))
    }
}

/// A plan input or a topology input.
#[derive(Clone, Debug, PartialEq)]
pub struct InputDef {
    /// Name.
    pub name: String,
    /// Declared type, if any.
    pub type_name: Option<String>,
    /// Default value.
    pub default: Option<Value>,
    /// Whether it must be given.
    pub required: bool,
    /// Whether its value was given when the plans were made (`--input`):
    /// `default` holds it, and the plans do not ask for it.
    pub given: bool,
}

/// An output of the service (YAML `outputs`, TOSCA 1.0 boundary property
/// mappings): a value the build plan returns.
#[derive(Clone, Debug, PartialEq)]
pub struct OutputDef {
    /// Name.
    pub name: String,
    /// Where the value comes from.
    pub value: Value,
}

/// How a scale-out plan picks the existing instance of a border node:
/// a strategy name (`FirstInstance`, `UserProvided`, `WorkloadBased`, or
/// any name a selection plugin understands) and an optional argument
/// (`WorkloadBased(Load)`: the property to minimise).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Selection {
    /// The border node.
    pub node: NodeId,
    /// Strategy name as written.
    pub strategy: String,
    /// Argument in parentheses, if any.
    pub argument: Option<String>,
}

/// A scale-out region (OpenTOSCA `scalingplans` tags, YAML Scaling policies).
#[derive(Clone, Debug, PartialEq)]
pub struct ScalingRegion {
    /// Name of the scale-out plan.
    pub name: String,
    /// Nodes provisioned anew.
    pub nodes: Vec<NodeId>,
    /// Relationships provisioned anew.
    pub relationships: Vec<RelId>,
    /// Border nodes with their selection strategy.
    pub selections: Vec<Selection>,
    /// Where it is defined.
    pub origin: Option<Location>,
}

/// Facts about the service template being compiled.
#[derive(Clone, Debug, Default)]
pub struct ServiceTemplateInfo {
    /// Its id (TOSCA 1.0) or name (YAML metadata `template_name`, else file stem).
    pub id: String,
    /// Its namespace.
    pub namespace: String,
    /// The file it is defined in.
    pub file: String,
}

/// The compiled topology.
#[derive(Clone, Debug)]
pub struct Topology {
    /// Source dialect.
    pub dialect: Dialect,
    /// The service template.
    pub service_template: ServiceTemplateInfo,
    /// All types referenced, with their ancestry.
    pub types: TypeTable,
    /// Node templates in declaration order.
    pub nodes: Vec<NodeTemplate>,
    /// Relationship templates in declaration order.
    pub relationships: Vec<RelationshipTemplate>,
    /// Declared inputs (YAML); TOSCA 1.0 inputs come from `get_input:` values.
    pub inputs: IndexMap<String, InputDef>,
    /// Outputs of the build plan.
    pub outputs: Vec<OutputDef>,
    /// Scale-out regions.
    pub regions: Vec<ScalingRegion>,
    /// Groups (YAML).
    pub groups: Vec<Group>,
    /// Policies (YAML), e.g. Scaling.
    pub policies: Vec<Policy>,
    /// Substitution mappings (YAML).
    pub substitution: Option<Substitution>,
    /// Imperative workflows (YAML), in declaration order.
    pub workflows: Vec<Workflow>,
    /// A transformation's merged topology: the templates that belong to
    /// the target service template ([`Target`]); `None` elsewhere.
    pub target: Option<Box<Target>>,
    /// The further representations of node templates with a `count`
    /// (TOSCA 2.0 §7.2), and their relationships: each → the template it
    /// represents, whose id the container knows it by ([`replicate`]).
    pub replicas: HashMap<TemplateRef, TemplateRef>,
    outgoing: Vec<Vec<RelId>>,
    incoming: Vec<Vec<RelId>>,
    node_ids: HashMap<String, NodeId>,
}

/// `map` in storage of its size: a map grows by doubling, and the
/// allocator keeps a block that shrinks by less than half where it is,
/// so only a new map gives the room back (most of a template's properties
/// are its type's attributes, a dozen or so per template).
fn exact(map: &mut Properties) {
    if map.capacity() > map.len() {
        let mut sized = IndexMap::with_capacity(map.len());
        sized.extend(map.drain(..));
        *map = sized;
    }
}

impl Topology {
    /// Assemble a topology and build its indexes.
    pub fn new(
        dialect: Dialect,
        service_template: ServiceTemplateInfo,
        types: TypeTable,
        nodes: Vec<NodeTemplate>,
        mut relationships: Vec<RelationshipTemplate>,
    ) -> Topology {
        // Held for the whole run: no room to spare.
        let mut nodes = nodes;
        nodes.shrink_to_fit();
        relationships.shrink_to_fit();
        for n in &mut nodes {
            exact(&mut n.properties);
        }
        for r in &mut relationships {
            exact(&mut r.properties);
        }
        let mut outgoing = vec![Vec::new(); nodes.len()];
        let mut incoming = vec![Vec::new(); nodes.len()];
        for (i, r) in relationships.iter().enumerate() {
            outgoing[r.source.0 as usize].push(RelId(i as u32));
            incoming[r.target.0 as usize].push(RelId(i as u32));
        }
        let node_ids = nodes
            .iter()
            .enumerate()
            .map(|(i, n)| (n.id.clone(), NodeId(i as u32)))
            .collect();
        Topology {
            dialect,
            service_template,
            types,
            nodes,
            relationships,
            inputs: IndexMap::new(),
            outputs: Vec::new(),
            regions: Vec::new(),
            groups: Vec::new(),
            policies: Vec::new(),
            substitution: None,
            workflows: Vec::new(),
            target: None,
            replicas: HashMap::default(),
            outgoing,
            incoming,
            node_ids,
        }
    }

    /// A node by index.
    pub fn node(&self, id: NodeId) -> &NodeTemplate {
        &self.nodes[id.0 as usize]
    }

    /// A relationship by index.
    pub fn relationship(&self, id: RelId) -> &RelationshipTemplate {
        &self.relationships[id.0 as usize]
    }

    /// A node by its template id.
    pub fn node_by_id(&self, id: &str) -> Option<NodeId> {
        self.node_ids.get(id).copied()
    }

    /// Node indexes in declaration order.
    pub fn node_ids(&self) -> impl Iterator<Item = NodeId> + '_ {
        (0..self.nodes.len() as u32).map(NodeId)
    }

    /// Relationship indexes in declaration order.
    pub fn relationship_ids(&self) -> impl Iterator<Item = RelId> + '_ {
        (0..self.relationships.len() as u32).map(RelId)
    }

    /// Relationships whose source is `node`.
    pub fn outgoing(&self, node: NodeId) -> &[RelId] {
        &self.outgoing[node.0 as usize]
    }

    /// Relationships whose target is `node`.
    pub fn incoming(&self, node: NodeId) -> &[RelId] {
        &self.incoming[node.0 as usize]
    }

    /// The template id of a node or relationship.
    pub fn template_id(&self, t: TemplateRef) -> &str {
        match t {
            TemplateRef::Node(n) => &self.node(n).id,
            TemplateRef::Relationship(r) => &self.relationship(r).id,
        }
    }

    /// The id the container knows a template by: its id in the service
    /// template it belongs to (a transformation's target templates may
    /// have been renamed in the merged topology).
    pub fn api_id(&self, t: TemplateRef) -> &str {
        // Most topologies have no replicas: no hashing then.
        let t = match self.replicas.is_empty() {
            true => t,
            false => self.replicas.get(&t).copied().unwrap_or(t),
        };
        self.target
            .as_ref()
            .and_then(|target| target.renamed.get(&t))
            .map_or_else(|| self.template_id(t), String::as_str)
    }

    /// Whether a template is a further representation of another
    /// ([`Topology::replicas`]): the build plan creates it; plans that act
    /// on existing instances reach it through the template it represents.
    pub fn is_replica(&self, t: TemplateRef) -> bool {
        self.replicas.contains_key(&t)
    }

    /// Put these templates in place of the topology's, its indexes rebuilt.
    pub(crate) fn replace_templates(
        &mut self,
        nodes: Vec<NodeTemplate>,
        relationships: Vec<RelationshipTemplate>,
    ) {
        let rebuilt = Topology::new(
            self.dialect.clone(),
            self.service_template.clone(),
            TypeTable::default(),
            nodes,
            relationships,
        );
        self.nodes = rebuilt.nodes;
        self.relationships = rebuilt.relationships;
        self.outgoing = rebuilt.outgoing;
        self.incoming = rebuilt.incoming;
        self.node_ids = rebuilt.node_ids;
    }

    /// Whether a template belongs to a transformation's target service
    /// template (its instances live in the target's service instance).
    pub fn is_target(&self, t: TemplateRef) -> bool {
        self.target
            .as_ref()
            .is_some_and(|target| target.contains(t))
    }

    /// The type of a node or relationship.
    pub fn template_type(&self, t: TemplateRef) -> TypeId {
        match t {
            TemplateRef::Node(n) => self.node(n).type_id,
            TemplateRef::Relationship(r) => self.relationship(r).type_id,
        }
    }

    /// Every interface of a node, or of a relationship (its own, then the
    /// source-side, then the target-side ones).
    pub fn interfaces(&self, t: TemplateRef) -> Vec<&Interface> {
        match t {
            TemplateRef::Node(n) => self.node(n).interfaces.iter().collect(),
            TemplateRef::Relationship(r) => {
                let rel = self.relationship(r);
                rel.interfaces
                    .iter()
                    .chain(rel.source_interfaces.iter())
                    .chain(rel.target_interfaces.iter())
                    .collect()
            }
        }
    }

    /// An operation of a node or relationship by interface and name.
    pub fn operation(
        &self,
        t: TemplateRef,
        interface: &str,
        operation: &str,
    ) -> Option<&Operation> {
        self.interfaces(t)
            .into_iter()
            .filter(|i| &*i.name == interface)
            .find_map(|i| i.operation(operation))
    }

    /// Property values of a node or relationship.
    pub fn properties(&self, t: TemplateRef) -> &Properties {
        match t {
            TemplateRef::Node(n) => &self.node(n).properties,
            TemplateRef::Relationship(r) => &self.relationship(r).properties,
        }
    }

    /// Property values of a node or relationship, to change.
    pub fn properties_mut(&mut self, t: TemplateRef) -> &mut Properties {
        match t {
            TemplateRef::Node(n) => &mut self.nodes[n.0 as usize].properties,
            TemplateRef::Relationship(r) => &mut self.relationships[r.0 as usize].properties,
        }
    }

    /// A workflow by name.
    pub fn workflow(&self, name: &str) -> Option<&Workflow> {
        self.workflows.iter().find(|w| w.name == name)
    }

    /// The nodes below `node` along HostedOn/DependsOn/DeployedOn
    /// relationships, nearest first (breadth-first, declaration order),
    /// not including `node` itself. ConnectsTo is never followed.
    pub fn stack_below(&self, node: NodeId) -> Vec<NodeId> {
        let mut out = Vec::new();
        let mut seen = vec![node];
        let mut frontier = vec![node];
        while !frontier.is_empty() {
            let mut next = Vec::new();
            for n in frontier {
                for &r in self.outgoing(n) {
                    let rel = self.relationship(r);
                    if rel.kind.is_infrastructure() && !seen.contains(&rel.target) {
                        seen.push(rel.target);
                        out.push(rel.target);
                        next.push(rel.target);
                    }
                }
            }
            frontier = next;
        }
        out
    }

    /// The direct host: the target of the first HostedOn (or DeployedOn)
    /// relationship of `node`.
    pub fn host(&self, node: NodeId) -> Option<NodeId> {
        self.outgoing(node)
            .iter()
            .map(|&r| self.relationship(r))
            .find(|r| matches!(r.kind, RelKind::HostedOn | RelKind::DeployedOn))
            .map(|r| r.target)
    }

    /// The bottom of the hosting chain (the node itself if not hosted).
    pub fn bottom_host(&self, node: NodeId) -> NodeId {
        let mut cur = node;
        let mut steps = 0;
        while let Some(h) = self.host(cur) {
            cur = h;
            steps += 1;
            if steps > self.nodes.len() {
                break; // a hosting cycle; reported by plan ordering
            }
        }
        cur
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn interface(name: &str, lineage: &[&str]) -> Interface {
        Interface {
            name: name.into(),
            interface_type: lineage.first().map(|t| t.to_string()),
            lineage: lineage.iter().map(|t| t.to_string()).collect(),
            operations: Vec::new(),
        }
    }

    #[test]
    fn an_interface_is_what_its_type_says_not_its_name() {
        let own = interface("Standard", &["my.Ops", "tosca.interfaces.Root"]);
        assert!(!own.is_a(LIFECYCLE_STANDARD));
        let derived = interface("Setup", &["my.Setup", RELATIONSHIP_CONFIGURE]);
        assert!(derived.is_a(RELATIONSHIP_CONFIGURE));
        // Untyped (TOSCA 1.0 XML): by name.
        assert!(interface("Configure", &[]).is_a(RELATIONSHIP_CONFIGURE));
        assert!(!interface("Hooks", &[]).is_a(RELATIONSHIP_CONFIGURE));
    }
}
