//! Operation plugins at work: every management-bus call another plugin
//! emitted is offered to the operation plugins (registry order); the first
//! that carries it out replaces the call with its steps (an Ansible
//! playbook is uploaded and run on the host, say). A call no operation
//! plugin takes stays a plain management-bus call, which the OpenTOSCA bus
//! runs itself. Steps an operation plugin returns are final.

use super::api::{Body, Context, Outcome, Role};
use super::registry::Registry;
use super::steps::Step;

/// Offer every invocation in `body` (steps and compensation) to the
/// operation plugins.
/// Notes are made when `record` (the decision log).
pub(super) fn carry_out(cx: &Context, registry: &Registry, body: &mut Body, record: bool) {
    let steps = std::mem::take(&mut body.steps);
    body.steps = expand(cx, registry, steps, body, record);
    let compensation = std::mem::take(&mut body.compensation);
    body.compensation = expand(cx, registry, compensation, body, false);
}

fn expand(
    cx: &Context,
    registry: &Registry,
    steps: Vec<Step>,
    body: &mut Body,
    record: bool,
) -> Vec<Step> {
    let mut out = Vec::with_capacity(steps.len());
    let cx = &Context {
        reasons: record,
        ..*cx
    };
    for step in steps {
        let Step::Invoke(invocation) = &step else {
            out.push(step);
            continue;
        };
        let mut replaced = false;
        for plugin in registry.plugins() {
            if plugin.role() != Role::Operation {
                continue;
            }
            let what = || {
                format!(
                    "`{}` of `{}`",
                    invocation.operation,
                    cx.topology.template_id(invocation.target)
                )
            };
            match plugin.run_operation(cx, invocation) {
                Outcome::Handled(mut b) => {
                    if record {
                        body.notes.push(format!(
                            "{} is carried out by plugin `{}`",
                            what(),
                            plugin.id()
                        ));
                        body.notes.append(&mut b.notes);
                    }
                    body.warnings.append(&mut b.warnings);
                    out.append(&mut b.steps);
                    replaced = true;
                    break;
                }
                Outcome::Declined(why) if record => body.notes.push(format!(
                    "operation plugin `{}` does not carry out {}: {why}",
                    plugin.id(),
                    what()
                )),
                Outcome::Declined(_) | Outcome::NotApplicable => {}
            }
        }
        if !replaced {
            out.push(step);
        }
    }
    out
}
