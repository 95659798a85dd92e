//! BPEL variable names for properties and instances, allocated once per
//! plan: `prop_<template>_<property>`, `inst_<template>_url`,
//! `inst_<template>_id`. Only `[A-Za-z0-9_]` is used, so every name is
//! safe as `$name` in XPath.

use crate::model::{TemplateMap, TemplateRef, Topology};
use crate::plan::ids::Unique;
use crate::plugins::ConcretePlan;
use crate::plugins::steps::{Binding, PropertyRef, Step};

/// Process variables that every plan has.
pub const FIXED: [&str; 7] = [
    "correlationID",
    "instanceDataAPIUrl",
    "csarEntrypoint",
    "csarID",
    "serviceTemplateURL",
    "serviceInstanceURL",
    "serviceInstanceID",
];

/// The variable names of one plan.
pub struct Names {
    vars: TemplateMap<Vars>,
    /// Templates in the order their variables are declared.
    order: Vec<TemplateRef>,
}

/// The variables of one template.
struct Vars {
    url: String,
    id: String,
    props: Vec<String>,
}

fn word(s: &str) -> String {
    s.chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '_' })
        .collect()
}

impl Names {
    /// Allocate names for every template the plan touches.
    pub fn new(topology: &Topology, plan: &ConcretePlan) -> Names {
        let mut n = Names {
            vars: TemplateMap::new(topology),
            order: Vec::new(),
        };
        let mut unique = Unique::new();
        for f in FIXED {
            unique.name(f.to_string());
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
            n.add(topology, t, &mut unique);
        }
        n
    }

    fn add(&mut self, topology: &Topology, t: TemplateRef, unique: &mut Unique) {
        if self.vars.contains(t) {
            return;
        }
        let base = word(topology.template_id(t));
        let url = unique.name(format!("inst_{base}_url"));
        let id = unique.name(format!("inst_{base}_id"));
        let props: Vec<String> = topology
            .properties(t)
            .keys()
            .map(|p| unique.name(format!("prop_{base}_{}", word(p))))
            .collect();
        self.vars.insert(t, Vars { url, id, props });
        self.order.push(t);
    }

    /// Every template variable, in declaration order (the fixed ones,
    /// [`FIXED`], are not included).
    pub fn variables(&self) -> impl Iterator<Item = &str> {
        self.order.iter().flat_map(|t| {
            let v = self.vars(*t);
            [v.url.as_str(), v.id.as_str()]
                .into_iter()
                .chain(v.props.iter().map(String::as_str))
        })
    }

    /// The variable of a property. Properties a step names that the
    /// template does not have are a plugin bug.
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
        &self.vars(p.template).props[i]
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
            .zip(self.vars(t).props.iter().map(String::as_str))
    }

    /// The variables of a template the plan touches; any other is a bug
    /// in the collection of templates above.
    fn vars(&self, t: TemplateRef) -> &Vars {
        self.vars
            .get(t)
            .expect("every template a plan touches has variables")
    }

    /// The instance URL variable.
    pub fn url(&self, t: TemplateRef) -> &str {
        &self.vars(t).url
    }

    /// The instance id variable.
    pub fn id(&self, t: TemplateRef) -> &str {
        &self.vars(t).id
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
        Step::CreateRelationshipInstance(r) => out.push(TemplateRef::Relationship(*r)),
        Step::CreateNodeInstance(n) | Step::StoreProperties(n) | Step::SelectInstance(n, _) => {
            out.push(TemplateRef::Node(*n))
        }
        Step::SetState(t, _) | Step::Check { template: t, .. } => out.push(*t),
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
