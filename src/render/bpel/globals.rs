//! Which templates' variables the process declares, and which an
//! activity over instances declares in each iteration.
//!
//! An iteration of a termination activity declares the variables of its
//! instance and of the instances it follows, so that parallel activities
//! never share them; the process declares (and initialises) only the
//! variables of templates named anywhere else. A termination plan named
//! every template's variables twice, once in the process for nothing.
//!
//! In: the plan and its variable names. Out: the templates of the
//! process, and the variables of an iteration.

use crate::model::{TemplateMap, TemplateRef, Topology};
use crate::plugins::steps::Step;
use crate::plugins::{ActivityBody, ConcretePlan};
pub(super) use crate::render::collected::iteration_templates;
use crate::render::vars::{Vars, binding_templates, in_document, step_templates};

/// The node templates whose documents the plan writes after a load: an
/// operation's output writes a property in one, or a step stores one. A
/// load of such a template's instance copies the properties the plan
/// reads into its document, which keeps every element of its shape:
/// the instance's own document may lack one the plan writes or stores.
pub(super) fn merged_documents(topology: &Topology, plan: &ConcretePlan) -> TemplateMap<()> {
    let mut merged = TemplateMap::new(topology);
    for step in plan
        .bodies
        .iter()
        .flat_map(|b| b.steps.iter().chain(&b.compensation))
    {
        match step {
            Step::StoreProperties(n) => {
                merged.insert(TemplateRef::Node(*n), ());
            }
            Step::Invoke(inv) => {
                for (_, p) in &inv.outputs {
                    if in_document(p.template, &p.name) {
                        merged.insert(p.template, ());
                    }
                }
            }
            _ => {}
        }
    }
    merged
}

/// The templates whose variables the process declares.
pub(super) fn process_templates(topology: &Topology, plan: &ConcretePlan) -> TemplateMap<()> {
    let mut global = TemplateMap::new(topology);
    for (a, body) in plan.plan.activities.iter().zip(&plan.bodies) {
        let covered = if body.per_instance {
            iteration_templates(a.template, body)
        } else {
            Vec::new()
        };
        let mut add = |t: TemplateRef| {
            if !covered.contains(&t) {
                global.insert(t, ());
            }
        };
        if !body.per_instance {
            add(a.template);
        }
        for step in body.steps.iter().chain(&body.compensation) {
            step_templates(step, &mut add);
        }
    }
    for (_, b) in &plan.outputs {
        binding_templates(b, &mut |t| {
            global.insert(t, ());
        });
    }
    global
}

/// The string variables an iteration declares: of each of its templates
/// the instance URL and id, and of the properties outside its document
/// those the plan reads and those the activity's operations write (the
/// documents are declared apart: [`super::ctx::Ctx::loaded_document`]).
pub(super) fn iteration_variables<'a>(
    topology: &'a Topology,
    names: &'a Vars,
    subject: TemplateRef,
    body: &'a ActivityBody,
) -> Vec<&'a str> {
    let mut out: Vec<&str> = Vec::new();
    for r in iteration_templates(subject, body) {
        out.push(names.url(r));
        out.push(names.id(r));
        out.extend(
            names
                .loaded_props(topology, r)
                .filter(|(p, _)| !in_document(r, p))
                .map(|(_, v)| v),
        );
        let written = body
            .steps
            .iter()
            .filter_map(Step::invocation)
            .flat_map(|i| &i.outputs)
            .filter(|(_, p)| p.template == r && !in_document(r, &p.name))
            .map(|(_, p)| names.prop(topology, p));
        for v in written {
            if !out.contains(&v) {
                out.push(v);
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_iteration_declares_what_the_process_need_not() {
        let (topology, plan) = crate::render::vars::tests::termination();
        let names = Vars::new(&topology, &plan, []);
        let db = TemplateRef::Node(topology.node_by_id("db").unwrap());
        assert!(!process_templates(&topology, &plan).contains(db));
        let (a, body) = plan
            .plan
            .activities
            .iter()
            .zip(&plan.bodies)
            .find(|(a, _)| a.template == db)
            .unwrap();
        assert!(body.per_instance);
        let vars = iteration_variables(&topology, &names, a.template, body);
        // Its properties are its document's.
        assert_eq!(vars, ["inst_db_url", "inst_db_id"]);
    }
}
