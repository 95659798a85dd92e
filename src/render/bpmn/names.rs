//! Process variable names of a BPMN plan, allocated once per plan:
//! `prop_<template>_<property>`, `inst_<template>_url`,
//! `inst_<template>_id`, plus the fixed ones every plan has. Only
//! `[A-Za-z0-9_]` is used, so every name is also a valid JUEL identifier.
//! Plan inputs keep their names (they are read by Groovy, never by JUEL).

use std::collections::HashMap;

use super::expr::url_path;
use crate::model::{TemplateRef, Topology};
use crate::plan::ids::Unique;
use crate::plugins::ConcretePlan;
use crate::plugins::steps::{Binding, PropertyRef, Step};

/// Variables every plan sets before its activities run.
pub const FIXED: [&str; 5] = [
    "csarID",
    "serviceTemplateURL",
    "serviceInstanceURL",
    "serviceInstanceID",
    "httpStatus",
];

/// The variable names of one plan.
pub struct Names {
    props: HashMap<TemplateRef, Vec<String>>,
    url: HashMap<TemplateRef, String>,
    id: HashMap<TemplateRef, String>,
    path: HashMap<TemplateRef, String>,
    /// Every template the plan touches, in first-use order.
    pub templates: Vec<TemplateRef>,
}

/// A name made of `[A-Za-z0-9_]` only.
pub fn word(s: &str) -> String {
    s.chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '_' })
        .collect()
}

impl Names {
    /// Allocate names for every template the plan touches. `taken` are
    /// names already in use (plan inputs, fixed variables).
    pub fn new(topology: &Topology, plan: &ConcretePlan, taken: &[String]) -> Names {
        let mut n = Names {
            props: HashMap::new(),
            url: HashMap::new(),
            id: HashMap::new(),
            path: HashMap::new(),
            templates: Vec::new(),
        };
        let mut unique = Unique::new();
        for f in FIXED
            .iter()
            .map(|s| s.to_string())
            .chain(taken.iter().cloned())
        {
            unique.name(f);
        }
        let mut templates: Vec<TemplateRef> =
            plan.plan.activities.iter().map(|a| a.template).collect();
        for body in &plan.bodies {
            for step in body.steps.iter().chain(&body.compensation) {
                step_templates(step, &mut templates);
            }
        }
        for (_, b) in &plan.outputs {
            binding_templates(b, &mut templates);
        }
        for t in templates {
            if n.url.contains_key(&t) {
                continue;
            }
            let base = word(topology.template_id(t));
            n.url.insert(t, unique.name(format!("inst_{base}_url")));
            n.id.insert(t, unique.name(format!("inst_{base}_id")));
            let props = topology
                .properties(t)
                .keys()
                .map(|p| unique.name(format!("prop_{base}_{}", word(p))))
                .collect();
            n.props.insert(t, props);
            n.path.insert(t, instances_path(topology, t));
            n.templates.push(t);
        }
        n
    }

    /// The variable of a property. A property a step names that the
    /// template does not have is a plugin bug.
    pub fn prop(&self, topology: &Topology, p: &PropertyRef) -> &str {
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
        &self.props[&p.template][i]
    }

    /// All property variables of a template, with the property names.
    pub fn props_of<'a>(
        &'a self,
        topology: &'a Topology,
        t: TemplateRef,
    ) -> impl Iterator<Item = (&'a str, &'a str)> {
        topology
            .properties(t)
            .keys()
            .map(String::as_str)
            .zip(self.props[&t].iter().map(String::as_str))
    }

    /// The instance URL variable.
    pub fn url(&self, t: TemplateRef) -> &str {
        &self.url[&t]
    }

    /// The instance id variable.
    pub fn id(&self, t: TemplateRef) -> &str {
        &self.id[&t]
    }

    /// The collection path of the template's instances in the instance
    /// API (`/nodetemplates/<id>/instances`).
    pub fn path(&self, t: TemplateRef) -> &str {
        &self.path[&t]
    }
}

/// The collection path of a template's instances.
fn instances_path(topology: &Topology, t: TemplateRef) -> String {
    match t {
        TemplateRef::Node(n) => format!(
            "/nodetemplates/{}/instances",
            url_path(&topology.node(n).id)
        ),
        TemplateRef::Relationship(r) => format!(
            "/relationshiptemplates/{}/instances",
            url_path(&topology.relationship(r).id)
        ),
    }
}

fn step_templates(step: &Step, out: &mut Vec<TemplateRef>) {
    match step {
        Step::Invoke(inv) => {
            out.push(inv.target);
            for (_, b) in &inv.inputs {
                binding_templates(b, out);
            }
            for (_, p) in &inv.outputs {
                out.push(p.template);
            }
        }
        Step::FollowRelationship { rel, from, to } => {
            out.push(TemplateRef::Relationship(*rel));
            out.push(TemplateRef::Node(*from));
            out.push(TemplateRef::Node(*to));
        }
        Step::Check { template, .. } => out.push(*template),
        Step::CreateRelationshipInstance(r) => out.push(TemplateRef::Relationship(*r)),
        Step::CreateNodeInstance(n) | Step::StoreProperties(n) | Step::SelectInstance(n, _) => {
            out.push(TemplateRef::Node(*n))
        }
        Step::SetState(t, _) => out.push(*t),
    }
}

fn binding_templates(b: &Binding, out: &mut Vec<TemplateRef>) {
    match b {
        Binding::Property(p) => out.push(p.template),
        Binding::InstanceId(t) => out.push(*t),
        Binding::Concat(parts) => parts.iter().for_each(|p| binding_templates(p, out)),
        _ => {}
    }
}
