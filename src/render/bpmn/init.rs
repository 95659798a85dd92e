//! The variables a BPMN plan starts with, set by a chain of script tasks
//! (`plan_init`, `plan_init_2`, ...): plan inputs the caller left out
//! (empty, as `v()` reads them), fixed ones, instance variables, the
//! property variables (modelled values or inputs for new instances; empty
//! where the plan reads them from the instance data), and the outcome
//! variables of `on_failure` routing (empty: not run).
//!
//! A script holds at most [`STATEMENTS`] statements: Groovy compiles a
//! script into one JVM method, whose bytecode may not pass 64 KiB ("Method
//! too large"), and a statement takes a few dozen bytes of it.
//!
//! In: the plan's variables and inputs. Out: how many scripts the chain
//! has, and the text of each. The texts are written when the writer
//! reaches each script ([`super::graph::Value::Later`]), from where it
//! starts in the sequence of statements: a 100k-node plan sets a million
//! variables, and holding their text while the plan is laid out and
//! written cost 45 MB.

use super::ctx::{Ctx, PLAN_INSTANCE_URL};
use super::groovy::{push_literal, push_var};
use super::routing::Routing;
use crate::model::TemplateMap;
use crate::plugins::ConcretePlan;
use crate::plugins::complete::{
    CORRELATION_ID, CSAR_ENTRYPOINT, INSTANCE_DATA_API_URL, SERVICE_INSTANCE_URL,
};
use crate::render::rendered::PlanParameter;

/// Statements of one initialisation script at most.
pub(super) const STATEMENTS: usize = 500;

/// The chain of initialisation scripts of a plan.
pub(super) struct Init {
    /// The statements before those of the templates' variables.
    head: Vec<String>,
    /// Where each script starts.
    starts: Vec<Cursor>,
    /// The activities that have an outcome variable (`on_failure`
    /// routing), as indexes of the routing's outcomes.
    outcomes: Vec<usize>,
    /// The templates whose instances the plan creates: their property
    /// variables start with the modelled values, the others' empty.
    fresh: TemplateMap<()>,
}

/// A position in the sequence of statements: the head's, then those of
/// each template (its instance URL and id variables, then its property
/// variables), then the outcome variables.
#[derive(Clone, Copy, Debug, Default)]
struct Cursor {
    head: usize,
    /// Index in the plan's templates, and of the variable in the template.
    template: usize,
    var: usize,
    /// Index in `Init::outcomes`.
    outcome: usize,
}

impl Init {
    /// The chain of `plan`, whose inputs are `inputs`.
    pub(super) fn new(
        cx: &Ctx,
        plan: &ConcretePlan,
        name: &str,
        inputs: &[PlanParameter],
        routing: &Routing,
    ) -> Init {
        let head = head(cx, plan, name, inputs);
        let outcomes: Vec<usize> = (0..routing.outcome.len())
            .filter(|&a| routing.outcome[a].is_some())
            .collect();
        let starts = starts(cx, head.len(), outcomes.len());
        let mut fresh = TemplateMap::new(cx.topology);
        for t in plan.plan.activities.iter().flat_map(|a| a.creates()) {
            fresh.insert(t, ());
        }
        Init {
            head,
            starts,
            outcomes,
            fresh,
        }
    }

    /// How many scripts the chain has.
    pub(super) fn scripts(&self) -> usize {
        self.starts.len()
    }

    /// The text of script `k` of the chain.
    pub(super) fn write(&self, k: usize, cx: &Ctx, routing: &Routing, out: &mut String) {
        let topology = cx.topology;
        let templates = cx.names.templates();
        let Some(&(mut c)) = self.starts.get(k) else {
            return;
        };
        for _ in 0..STATEMENTS {
            if c.head < self.head.len() {
                out.push_str(&self.head[c.head]);
                c.head += 1;
            } else if let Some(&t) = templates.get(c.template) {
                let values = topology.properties(t);
                match c.var {
                    0 => set_variable(out, cx.names.url(t), &empty),
                    1 => set_variable(out, cx.names.id(t), &empty),
                    v => {
                        let var = cx.names.prop_at(t, v - 2);
                        let value = &values[v - 2];
                        let fresh = self.fresh.contains(t);
                        set_variable(out, var, &|o| {
                            if !fresh {
                                return empty(o);
                            }
                            match (value.as_input(), value.literal()) {
                                (Some(i), _) => push_var(o, &cx.input(i)),
                                (None, Some(l)) => push_literal(o, &l),
                                (None, None) => o.push_str(&cx.expr(
                                    &crate::plugins::params::value_binding(topology, t, value),
                                )),
                            }
                        });
                    }
                }
                c.var += 1;
                if c.var == 2 + values.len() {
                    c.template += 1;
                    c.var = 0;
                }
            } else if let Some(v) = self
                .outcomes
                .get(c.outcome)
                .and_then(|&a| routing.outcome[a].as_deref())
            {
                set_variable(out, v, &empty);
                c.outcome += 1;
            } else {
                break;
            }
        }
    }
}

/// The statements before those of the templates' variables: the plan
/// inputs the caller left out, and the fixed variables (`csarID`, the
/// service template and instance, the plan instance's URL).
fn head(cx: &Ctx, plan: &ConcretePlan, name: &str, inputs: &[PlanParameter]) -> Vec<String> {
    let mut head = Vec::new();
    let mut s = String::new();
    if !inputs.is_empty() {
        s.push('[');
        for (i, p) in inputs.iter().enumerate() {
            if i > 0 {
                s.push_str(", ");
            }
            push_literal(&mut s, &p.name);
        }
        s.push_str(
            "].each { n -> if (binding.variables.get(n) == null) execution.setVariable(n, '') }\n",
        );
    }
    // Counted as a statement even when there are no inputs.
    head.push(s);
    let mut set = |name: &str, f: &dyn Fn(&mut String)| {
        let mut s = String::new();
        set_variable(&mut s, name, f);
        head.push(s);
    };
    let entry = cx.input(CSAR_ENTRYPOINT);
    let correlation = cx.input(CORRELATION_ID);
    set("csarID", &|o| {
        o.push_str("last(");
        push_var(o, &entry);
        o.push(')');
    });
    set("httpStatus", &|o| o.push('0'));
    if plan.plan.kind.creates_service_instance() {
        for v in [
            "serviceTemplateURL",
            "serviceInstanceURL",
            "serviceInstanceID",
        ] {
            set(v, &empty);
        }
        let api = cx.input(INSTANCE_DATA_API_URL);
        set("serviceTemplateURL", &|o| {
            push_var(o, &api);
            o.push_str(".replaceAll('/instances/?$', '')");
        });
        set(PLAN_INSTANCE_URL, &|o| {
            push_var(o, &api);
            o.push_str(".replaceAll('/instances/?$', '') + ");
            push_literal(o, &format!("/buildplans/{name}/instances/"));
            o.push_str(" + ");
            push_var(o, &correlation);
        });
    } else {
        let si = cx.input(SERVICE_INSTANCE_URL);
        set("serviceInstanceURL", &|o| {
            push_var(o, &si);
            o.push_str(".replaceAll('/+$', '')");
        });
        set("serviceInstanceID", &|o| {
            o.push_str("last(");
            push_var(o, &si);
            o.push(')');
        });
        set("serviceTemplateURL", &|o| {
            push_var(o, &si);
            o.push_str(".replaceAll('/instances/[^/]+/?$', '')");
        });
        set(PLAN_INSTANCE_URL, &|o| {
            push_var(o, &si);
            o.push_str(".replaceAll('/+$', '') + ");
            push_literal(o, &format!("/managementplans/{name}/instances/"));
            o.push_str(" + ");
            push_var(o, &correlation);
        });
    }
    if let Some(target) = cx.topology.target.as_deref() {
        // The target's CSAR is served beside the plan's own.
        let [csar, st_url, si_url, si_id] = crate::render::side::TARGET_VARS;
        set(csar, &|o| push_literal(o, &target.csar));
        set(st_url, &|o| {
            push_var(o, &entry);
            o.push_str(".replaceAll('/csars/[^/]+/?$', '/csars') + ");
            push_literal(o, &crate::render::side::target_path(target));
        });
        set(si_url, &empty);
        set(si_id, &empty);
    }
    head
}

/// Where each script of the chain starts: every [`STATEMENTS`]-th
/// statement of the head (`head_len` statements), the templates'
/// variables and the `outcomes` outcome variables.
fn starts(cx: &Ctx, head_len: usize, outcomes: usize) -> Vec<Cursor> {
    // Where every STATEMENTS-th statement is.
    let mut starts = Vec::new();
    let mut k = 0;
    let mut at = |cursor: Cursor| {
        if k % STATEMENTS == 0 {
            starts.push(cursor);
        }
        k += 1;
    };
    for i in 0..head_len {
        at(Cursor {
            head: i,
            ..Cursor::default()
        });
    }
    let templates = cx.names.templates();
    for (t, &template) in templates.iter().enumerate() {
        for var in 0..2 + cx.topology.properties(template).len() {
            at(Cursor {
                head: head_len,
                template: t,
                var,
                outcome: 0,
            });
        }
    }
    for outcome in 0..outcomes {
        at(Cursor {
            head: head_len,
            template: templates.len(),
            var: 0,
            outcome,
        });
    }
    starts
}

fn empty(o: &mut String) {
    o.push_str("''");
}

/// `setv('name', <value written by f>)` (the prelude's `execution.setVariable`)
/// and a line break.
pub(super) fn set_variable(s: &mut String, name: &str, f: &dyn Fn(&mut String)) {
    // The prelude's `setv`: a plan sets a few variables per template.
    s.push_str("setv(");
    push_literal(s, name);
    s.push_str(", ");
    f(s);
    s.push_str(")\n");
}
