//! The process variables of a plan's templates, shared by both backends:
//! `inst_<template>_url`, `inst_<template>_id`,
//! `prop_<template>_<property>` and, for a node template with a property
//! an element can be named after, `prop_<template>` (BPEL keeps such
//! properties as the elements of that one document), allocated once per
//! plan in the order the plan first touches each template. Only `[A-Za-z0-9_]` is used, so every
//! name is valid as `$name` in XPath and as a JUEL identifier.
//!
//! In: the topology, a concrete plan, the names already taken (fixed
//! variables, plan inputs). Out: the name of every template variable.
//!
//! Every one of them starts with `inst_` or `prop_`, and no other family
//! of variables of a plan may ([`outside_families`]): then the families
//! cannot meet without holding the million names to check against.
//!
//! A property variable is loaded from an instance only where the plan
//! reads it ([`Vars::loaded_props`]): a termination plan that calls
//! `terminateVM` with a VM's `VMInstanceID` has no use for its other five
//! properties, and reading them was a tenth of the plan. Likewise an
//! instance's id ([`Vars::id_read`]): a build plan read no relationship
//! instance's id it kept.
//!
//! The names live in one buffer with an index per template: a plan of a
//! 100k-node topology has over a million of them, and a string (and a map
//! entry) each cost most of its rendering's memory.

use crate::model::{Condition, TemplateMap, TemplateRef, Topology};
use crate::names::{Distinct, Unique};
use crate::plugins::ConcretePlan;
use crate::plugins::steps::{Binding, PropertyRef, Step};

/// The variable names of one plan.
pub(crate) struct Vars {
    /// Every name, one after the other.
    text: String,
    /// Where each name ends in `text` (it starts where the one before ends).
    ends: Vec<u32>,
    /// The index of a template's first name: its URL variable, then its
    /// id variable, then one per property in declaration order, then its
    /// document's ([`Vars::document`]).
    first: TemplateMap<u32>,
    /// Templates in the order their variables were allocated.
    order: Vec<TemplateRef>,
    /// Whether the plan reads name `k` (kept for property and instance id
    /// variables).
    read: Vec<bool>,
}

/// How names are made unique: taken as they are and checked together
/// afterwards, or each made clear of those before.
enum Naming {
    Distinct(Distinct),
    Unique(Unique),
}

/// Whether a property name can be an element's local name.
pub(crate) fn is_element_name(s: &str) -> bool {
    !s.is_empty() && crate::names::ncname(s) == s
}

/// Whether BPEL keeps a property of template `t` named `name` as an
/// element of the template's document: a node's property whose name an
/// element can have.
pub(crate) fn in_document(t: TemplateRef, name: &str) -> bool {
    matches!(t, TemplateRef::Node(_)) && is_element_name(name)
}

/// Whether template `t` has a document ([`in_document`]).
fn has_document(topology: &Topology, t: TemplateRef) -> bool {
    topology.properties(t).keys().any(|p| in_document(t, p))
}

/// A name made of `[A-Za-z0-9_]` only.
pub(crate) fn word(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    push_word(&mut out, s);
    out
}

/// Append [`word`]`(s)` to `out`.
fn push_word(out: &mut String, s: &str) {
    // Most names are words already (`_` included): copied whole.
    if s.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_') {
        out.push_str(s);
    } else {
        out.extend(
            s.chars()
                .map(|c| if c.is_ascii_alphanumeric() { c } else { '_' }),
        );
    }
}

/// `name`, made a variable name that no template variable can be: with a
/// `_` in front where it starts as one of theirs (`inst_`, `prop_`). A
/// poll loop's variable is named after its element, and an element of
/// template `prop_a` (`prop_a_provision_s3_location`) spells the property
/// `provision_s3_location` of template `a`.
pub(crate) fn outside_families(mut name: String) -> String {
    if name.starts_with("inst_") || name.starts_with("prop_") {
        name.insert(0, '_');
    }
    name
}

impl Vars {
    /// Allocate names for every template the plan touches. `taken` are
    /// names already in use.
    pub(crate) fn new<'a>(
        topology: &Topology,
        plan: &ConcretePlan,
        taken: impl IntoIterator<Item = &'a str>,
    ) -> Vars {
        // The names taken, as a Unique claims them: one given twice
        // takes a suffixed name too.
        let mut claimed = Unique::new();
        let taken: Vec<String> = taken
            .into_iter()
            .map(|name| claimed.name(name.to_string()))
            .collect();
        let (names, bytes) = expected_names(topology, plan);
        // Nearly always every name is free as it is: made unchecked, then
        // checked at once. Only where two are the same are they made again
        // one by one, each clear of those before.
        let mut distinct = Distinct::with_capacity(taken.len() + names);
        taken.iter().for_each(|name| distinct.add(name));
        let mut naming = Naming::Distinct(distinct);
        let mut vars = Vars::allocate(topology, plan, &mut naming, (names, bytes));
        if let Naming::Distinct(distinct) = naming
            && !distinct.all_distinct()
        {
            // `claimed` holds the names taken, and nothing else yet.
            let mut naming = Naming::Unique(claimed);
            vars = Vars::allocate(topology, plan, &mut naming, (names, bytes));
        }
        vars.mark_read(topology, plan);
        vars
    }

    /// Names for the templates the plan touches, in the order it first
    /// touches them: its activities', then those its steps name, then
    /// its outputs'. About `names` names are expected, of `bytes` bytes.
    fn allocate(
        topology: &Topology,
        plan: &ConcretePlan,
        naming: &mut Naming,
        (names, bytes): (usize, usize),
    ) -> Vars {
        let mut vars = Vars {
            text: String::with_capacity(bytes),
            ends: Vec::with_capacity(names),
            first: TemplateMap::new(topology),
            order: Vec::new(),
            read: Vec::new(),
        };
        let mut add = |t: TemplateRef| {
            if vars.first.contains(t) {
                return;
            }
            vars.first.insert(t, index(vars.ends.len()));
            vars.order.push(t);
            let base = word(topology.template_id(t));
            vars.claim(naming, &["inst_", &base, "_url"], "");
            vars.claim(naming, &["inst_", &base, "_id"], "");
            for p in topology.properties(t).keys() {
                vars.claim(naming, &["prop_", &base, "_"], p);
            }
            if has_document(topology, t) {
                vars.claim(naming, &["prop_", &base], "");
            }
        };
        for a in &plan.plan.activities {
            add(a.template);
        }
        for body in &plan.bodies {
            for step in body.steps.iter().chain(&body.compensation) {
                step_templates(step, &mut add);
            }
        }
        for (_, b) in &plan.outputs {
            binding_templates(b, &mut add);
        }
        vars.text.shrink_to_fit();
        vars.ends.shrink_to_fit();
        vars.order.shrink_to_fit();
        vars
    }

    /// Note which property and instance id variables the plan reads.
    fn mark_read(&mut self, topology: &Topology, plan: &ConcretePlan) {
        self.read = vec![false; self.ends.len()];
        for (a, body) in plan.plan.activities.iter().zip(&plan.bodies) {
            let mut calls = false;
            for step in body.steps.iter().chain(&body.compensation) {
                self.mark_step(topology, step);
                calls |= step.invocation().is_some();
            }
            // A call's message id names the instance of its activity.
            if calls {
                self.mark_id(a.template);
            }
        }
        for (_, b) in &plan.outputs {
            self.mark_binding(topology, b);
        }
    }

    /// Mark the property and instance id variables `step` reads.
    fn mark_step(&mut self, topology: &Topology, step: &Step) {
        match step {
            Step::Invoke(inv) => {
                for (_, b) in &inv.inputs {
                    self.mark_binding(topology, b);
                }
            }
            Step::StoreProperties(n) | Step::CopyProperties { from: n, .. } => {
                self.mark_all(topology, TemplateRef::Node(*n))
            }
            Step::Check {
                template,
                condition,
                ..
            } => self.mark_condition(topology, *template, condition),
            Step::CreateRelationshipInstance(r) => {
                let r = topology.relationship(*r);
                self.mark_id(TemplateRef::Node(r.source));
                self.mark_id(TemplateRef::Node(r.target));
            }
            // The instance found is named by its id.
            Step::FollowRelationship { from, to, .. } => {
                self.mark_id(TemplateRef::Node(*from));
                self.mark_id(TemplateRef::Node(*to));
            }
            Step::SelectInstance(n, _) => self.mark_id(TemplateRef::Node(*n)),
            // Its properties are stored on the reference instance.
            Step::UseExisting(n) => self.mark_all(topology, TemplateRef::Node(*n)),
            Step::CreateNodeInstance(_) | Step::SetState(..) => {}
        }
    }

    fn mark_id(&mut self, t: TemplateRef) {
        let k = self.id_index(t);
        self.read[k] = true;
    }

    fn mark_binding(&mut self, topology: &Topology, b: &Binding) {
        match b {
            Binding::Property(p) => {
                let k = self.prop_index(topology, p);
                self.read[k] = true;
            }
            Binding::Concat(parts) | Binding::Function(_, parts) => {
                parts.iter().for_each(|p| self.mark_binding(topology, p))
            }
            Binding::InstanceId(t) => self.mark_id(*t),
            Binding::Input(_) | Binding::Literal(_) | Binding::ArtifactUrl(_) => {}
        }
    }

    fn mark_all(&mut self, topology: &Topology, t: TemplateRef) {
        let first = self.prop_index_at(t, 0);
        let n = topology.properties(t).len();
        self.read[first..first + n].fill(true);
    }

    /// A condition's clauses name the template's properties (and `state`,
    /// which is no property).
    fn mark_condition(&mut self, topology: &Topology, t: TemplateRef, list: &[Condition]) {
        for c in list {
            match c {
                Condition::And(l) | Condition::Or(l) | Condition::Not(l) => {
                    self.mark_condition(topology, t, l)
                }
                Condition::Assert { attribute, .. } => {
                    if let Some(i) = topology.properties(t).get_index_of(attribute.as_str()) {
                        let k = self.prop_index_at(t, i);
                        self.read[k] = true;
                    }
                }
            }
        }
    }

    /// Add the unique name made of `parts` and [`word`]`(last)`, written
    /// straight into the names' buffer.
    fn claim(&mut self, naming: &mut Naming, parts: &[&str], last: &str) {
        let start = self.text.len();
        parts.iter().for_each(|p| self.text.push_str(p));
        push_word(&mut self.text, last);
        match naming {
            Naming::Distinct(d) => d.add(&self.text[start..]),
            Naming::Unique(u) => u.claim(&mut self.text, start),
        }
        self.ends.push(index(self.text.len()));
    }

    /// Name `k` of the plan.
    fn name(&self, k: usize) -> &str {
        let start = k.checked_sub(1).map_or(0, |j| self.ends[j] as usize);
        &self.text[start..self.ends[k] as usize]
    }

    /// The index of the first name of a template the plan touches; any
    /// other is a bug in the collection of templates above.
    fn first(&self, t: TemplateRef) -> usize {
        *self
            .first
            .get(t)
            .expect("every template a plan touches has variables") as usize
    }

    /// Templates in the order their variables were allocated.
    pub(crate) fn templates(&self) -> &[TemplateRef] {
        &self.order
    }

    /// The instance URL variable.
    pub(crate) fn url(&self, t: TemplateRef) -> &str {
        self.name(self.first(t))
    }

    /// The instance id variable.
    pub(crate) fn id(&self, t: TemplateRef) -> &str {
        self.name(self.id_index(t))
    }

    /// Whether the plan reads the instance id variable: in a call's
    /// message id, as a relationship's end, to follow a relationship or as
    /// an input. A relationship instance's id is mostly never read.
    pub(crate) fn id_read(&self, t: TemplateRef) -> bool {
        self.read[self.id_index(t)]
    }

    /// The variable of a property. A property a step names that the
    /// template does not have is a plugin bug.
    pub(crate) fn prop(&self, topology: &Topology, p: &PropertyRef) -> &str {
        self.name(self.prop_index(topology, p))
    }

    fn prop_index(&self, topology: &Topology, p: &PropertyRef) -> usize {
        let i = topology
            .properties(p.template)
            .get_index_of(&*p.name)
            .unwrap_or_else(|| {
                panic!(
                    "property `{}` of `{}` is not declared",
                    p.name,
                    topology.template_id(p.template)
                )
            });
        self.prop_index_at(p.template, i)
    }

    /// Where a template's names are: its URL at `first`, its id after it,
    /// then its properties in declaration order.
    fn id_index(&self, t: TemplateRef) -> usize {
        self.first(t) + 1
    }

    fn prop_index_at(&self, t: TemplateRef, i: usize) -> usize {
        self.first(t) + 2 + i
    }

    /// The document variable of a node template whose properties include
    /// one an element can be named after ([`in_document`]): BPEL keeps
    /// those properties as its elements.
    pub(crate) fn document(&self, topology: &Topology, t: TemplateRef) -> Option<&str> {
        has_document(topology, t)
            .then(|| self.name(self.prop_index_at(t, topology.properties(t).len())))
    }

    /// The variable of property `i` (in declaration order) of a template.
    pub(crate) fn prop_at(&self, t: TemplateRef, i: usize) -> &str {
        self.name(self.prop_index_at(t, i))
    }

    /// The property variables of `from` and of `to` for each property
    /// name the two share, in `from`'s order.
    pub(crate) fn shared_props<'a>(
        &'a self,
        topology: &'a Topology,
        from: TemplateRef,
        to: TemplateRef,
    ) -> Vec<(&'a str, &'a str)> {
        let to_props: foldhash::HashMap<&str, &str> = self.props_of(topology, to).collect();
        self.props_of(topology, from)
            .filter_map(|(p, v)| to_props.get(p).map(|&w| (v, w)))
            .collect()
    }

    /// All property variables of a template, with the property names.
    pub(crate) fn props_of<'a>(
        &'a self,
        topology: &'a Topology,
        t: TemplateRef,
    ) -> impl Iterator<Item = (&'a str, &'a str)> {
        let first = self.prop_index_at(t, 0);
        topology
            .properties(t)
            .keys()
            .enumerate()
            .map(move |(i, p)| (&**p, self.name(first + i)))
    }

    /// The property variables of a template the plan reads, with the
    /// property names: those worth loading from an instance.
    pub(crate) fn loaded_props<'a>(
        &'a self,
        topology: &'a Topology,
        t: TemplateRef,
    ) -> impl Iterator<Item = (&'a str, &'a str)> {
        let first = self.prop_index_at(t, 0);
        self.props_of(topology, t)
            .enumerate()
            .filter(move |(i, _)| self.read[first + i])
            .map(|(_, pv)| pv)
    }
}

/// About how many names `plan`'s templates take, and their bytes: those
/// of its activities' templates (the steps name few others), so that the
/// names' buffer and set are made at their size.
fn expected_names(topology: &Topology, plan: &ConcretePlan) -> (usize, usize) {
    plan.plan.activities.iter().fold((0, 0), |(n, bytes), a| {
        let id = topology.template_id(a.template).len();
        let props = topology.properties(a.template);
        let named: usize = props.keys().map(|p| p.len()).sum();
        let k = 3 + props.len();
        (n + k, bytes + k * (id + 10) + named)
    })
}

/// A position in the names' buffer or an index of a name.
fn index(n: usize) -> u32 {
    u32::try_from(n).expect("plan variables: over 4 GiB of names")
}

/// Gives `add` the templates whose variables `step` uses.
pub(crate) fn step_templates(step: &Step, add: &mut impl FnMut(TemplateRef)) {
    match step {
        Step::Invoke(inv) => {
            add(inv.target);
            for (_, b) in &inv.inputs {
                binding_templates(b, add);
            }
            for (_, p) in &inv.outputs {
                add(p.template);
            }
        }
        // A relationship followed is named by its template's path, never
        // by its instance's variables.
        Step::FollowRelationship { from, to, .. } => {
            add(TemplateRef::Node(*from));
            add(TemplateRef::Node(*to));
        }
        Step::CreateRelationshipInstance(r) => add(TemplateRef::Relationship(*r)),
        Step::CreateNodeInstance(n)
        | Step::StoreProperties(n)
        | Step::SelectInstance(n, _)
        | Step::UseExisting(n) => add(TemplateRef::Node(*n)),
        Step::SetState(t, _) | Step::Check { template: t, .. } => add(*t),
        Step::CopyProperties { from, to } => {
            add(TemplateRef::Node(*from));
            add(TemplateRef::Node(*to));
        }
    }
}

pub(crate) fn binding_templates(b: &Binding, add: &mut impl FnMut(TemplateRef)) {
    match b {
        Binding::Property(p) => add(p.template),
        Binding::InstanceId(t) => add(*t),
        Binding::Concat(parts) | Binding::Function(_, parts) => {
            parts.iter().for_each(|p| binding_templates(p, add))
        }
        _ => {}
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::plan::PlanKind;
    use crate::plugins::Registry;

    /// The termination plan of a node whose delete operation reads one of
    /// its properties (`b` of `a`, `b`, `c`).
    pub(crate) fn termination() -> (Topology, ConcretePlan) {
        let yaml = "tosca_definitions_version: tosca_simple_yaml_1_3\n\
            topology_template:\n  node_templates:\n    \
            db:\n      type: tosca.nodes.Root\n      \
            properties: {a: 1, b: 2, c: 3}\n      \
            interfaces:\n        Standard:\n          \
            delete: {implementation: d.sh, inputs: {x: {get_property: [SELF, b]}}}\n";
        let topology = crate::model::lower_yaml::topology_of(yaml);
        let registry = Registry::new(Registry::builtin());
        let options = crate::Options::default();
        let (mut plans, _) =
            crate::derive(&topology, &[PlanKind::Termination], &registry, &options).unwrap();
        (topology, plans.remove(0))
    }

    #[test]
    fn a_node_with_element_named_properties_has_a_document() {
        let (topology, plan) = termination();
        let vars = Vars::new(&topology, &plan, ["prop_db"]);
        let db = TemplateRef::Node(topology.node_by_id("db").unwrap());
        // After its properties' variables, clear of the names taken.
        assert_eq!(vars.document(&topology, db), Some("prop_db_2"));
        assert_eq!(vars.prop_at(db, 2), "prop_db_c");
    }

    #[test]
    fn names_checked_at_once_are_those_made_one_by_one() {
        let (topology, plan) = termination();
        let vars = Vars::new(&topology, &plan, ["inst_x_url"]);
        let mut unique = Unique::new();
        unique.name("inst_x_url".into());
        let one_by_one = Vars::allocate(&topology, &plan, &mut Naming::Unique(unique), (0, 0));
        assert_eq!(
            (&vars.text, &vars.ends),
            (&one_by_one.text, &one_by_one.ends)
        );
        assert_eq!(vars.url(vars.templates()[0]), "inst_db_url");
    }

    #[test]
    fn only_names_an_element_can_have_are_in_a_document() {
        let node = TemplateRef::Node(crate::model::NodeId(0));
        let rel = TemplateRef::Relationship(crate::model::RelId(0));
        assert!(in_document(node, "VMIP") && in_document(node, "db.port"));
        assert!(!in_document(node, "a b") && !in_document(node, "1st"));
        assert!(!in_document(node, ""));
        assert!(!in_document(rel, "VMIP"));
    }

    #[test]
    fn only_the_properties_a_plan_reads_are_loaded() {
        let (topology, plan) = termination();
        let vars = Vars::new(&topology, &plan, []);
        let db = TemplateRef::Node(topology.node_by_id("db").unwrap());
        let loaded: Vec<_> = vars.loaded_props(&topology, db).collect();
        assert_eq!(loaded, [("b", "prop_db_b")]);
        // Its delete call's message id names the instance.
        assert!(vars.id_read(db));
        let all: Vec<_> = vars.props_of(&topology, db).map(|(p, _)| p).collect();
        assert!(all.contains(&"a") && all.contains(&"c"), "{all:?}");
    }
}
