//! Each language-neutral step as BPMN flow nodes, appended to a chain.
//! The calls of the instance API and of the management bus are call
//! activities of the reusable processes of `templates/bpmn/library.bpmn`
//! ([`super::calls`] builds the common ones): `toscanini_invoke` posts an
//! operation to the bus and polls until its answer is there (a fault fails
//! it), and the script `operation-result.groovy` stores an operation's
//! outputs after it; values of a call that only Groovy computes are
//! computed by a script task before it. What no reusable process does (a
//! scale-out's selection, reading an instance's state for a condition) is
//! a service task with the Camunda Connect `http-connector`. URLs and
//! values are JUEL text where they only put variables and literals
//! together, Groovy otherwise. A failed call throws the BPMN error
//! `ToscaniniFailure`. A workflow condition (filter, precondition) is
//! Groovy ([`super::condition`]) in a script task, or in the output of the
//! GET that reads the instance state.

use crate::render::paths::instances_path;
use crate::render::vars::Vars;
use std::fmt::Write as _;

use super::calls::{
    call, created, http, literal_value, load_from, load_properties, out, pass, set_state,
    status_check,
};
use super::chain::{Chain, Prefix};
use super::ctx::Ctx;
use super::expr::concat;
use super::graph::{In, Kind, Script, Str, Text, Value};
use super::groovy::{Part, push_literal, push_var};
use super::library::{BUS, FOLLOW, INVOKE, PROPERTIES, REGISTER, RELATE};
use super::scripts::Shared;
use crate::model::{Condition, TemplateRef};
use crate::plugins::steps::{Invocation, Otherwise, Step, Strategy};
use crate::render::side::side;
use crate::render::vars::word;

/// Append the nodes of one step. `p` is the id prefix of the step.
pub(super) fn step(cx: &mut Ctx, chain: &mut Chain, step: &Step, p: Prefix) {
    let t = cx.topology;
    match step {
        Step::Check {
            template,
            condition,
            otherwise,
        } => check(cx, chain, *template, condition, *otherwise, p),
        Step::CreateNodeInstance(n) => create_node_instance(cx, chain, *n, p),
        Step::CreateRelationshipInstance(rel) => {
            let r = TemplateRef::Relationship(*rel);
            let rt = t.relationship(*rel);
            let side = side(t, r);
            let mut call = call(RELATE);
            let text = &mut cx.text;
            let path = instances_path(t, r);
            let url = [Part::Var(side.service_template_url), Part::Lit(&path)];
            pass(text, &mut call, "url", &url);
            let instance = [Part::Var(side.service_instance_id)];
            pass(text, &mut call, "serviceInstanceID", &instance);
            let source = cx.names.id(TemplateRef::Node(rt.source));
            pass(text, &mut call, "source", &[Part::Var(source)]);
            let target = cx.names.id(TemplateRef::Node(rt.target));
            pass(text, &mut call, "target", &[Part::Var(target)]);
            created(cx, &mut call, r);
            let id = cx.text.fmt(format_args!("{p}"));
            let name = cx.text.fmt(format_args!("register relationship {}", rt.id));
            chain.then(id, name, Kind::Call(Box::new(call)));
        }
        Step::SetState(r, state) => {
            let kind = set_state(cx, *r, state);
            let id = cx.text.fmt(format_args!("{p}"));
            let name = cx.text.fmt(format_args!("state {state}"));
            chain.then(id, name, kind);
        }
        Step::StoreProperties(n) => store_properties(cx, chain, *n, p),
        Step::CopyProperties { from, to } => copy_properties(cx, chain, *from, *to, p),
        Step::FollowRelationship { rel, from, to } => {
            let rt = t.relationship(*rel);
            let to_ref = TemplateRef::Node(*to);
            let st_url = side(t, to_ref).service_template_url;
            let mut call = call(FOLLOW);
            let text = &mut cx.text;
            let path = instances_path(t, TemplateRef::Relationship(*rel));
            let from_id = cx.names.id(TemplateRef::Node(*from));
            let url = [
                Part::Var(st_url),
                Part::Lit(&path),
                Part::Lit("?source="),
                Part::Var(from_id),
            ];
            pass(text, &mut call, "url", &url);
            let base = instances_path(t, to_ref);
            pass(
                text,
                &mut call,
                "base",
                &[Part::Var(st_url), Part::Lit(&base)],
            );
            out(text, &mut call, "target", cx.names.id(to_ref));
            out(text, &mut call, "targetURL", cx.names.url(to_ref));
            let id = cx.text.fmt(format_args!("{p}"));
            let name = cx
                .text
                .fmt(format_args!("follow {} to {}", rt.id, t.node(*to).id));
            chain.then(id, name, Kind::Call(Box::new(call)));
            if let Some(kind) = load_properties(cx, to_ref) {
                let id = cx.text.fmt(format_args!("{p}_load"));
                let name = cx
                    .text
                    .fmt(format_args!("load properties of {}", t.node(*to).id));
                chain.then(id, name, kind);
            }
        }
        Step::SelectInstance(n, strategy) => select(cx, chain, *n, strategy, p),
        Step::UseExisting(n) => use_existing(cx, chain, *n, p),
        Step::Invoke(inv) => invoke(cx, chain, inv, p),
    }
}

/// Load the properties of the existing instance the plan input of `n`'s
/// selection names, and check its node_filter on them: a script that
/// fails without the input, the load, and a script that fails where the
/// filter does not hold.
fn use_existing(cx: &mut Ctx, chain: &mut Chain, n: crate::model::NodeId, p: Prefix) {
    let t = cx.topology;
    let r = TemplateRef::Node(n);
    let Some(existing) = &t.node(n).selection else {
        return;
    };
    let node = &t.node(n).id;
    let input = cx.input(&existing.input);
    let given = super::groovy::var(&input);
    let message = format!(
        "{p}: {node} has the select directive: give plan input {} (the URL of the instance to use)",
        existing.input
    );
    let script = fail_unless(&mut cx.text, &given, &message);
    let id = cx.text.fmt(format_args!("{p}"));
    let name = cx.text.fmt(format_args!("existing instance of {node}"));
    chain.then(id, name, groovy_task(script));
    if let Some(kind) = load_from(cx, r, &input) {
        let id = cx.text.fmt(format_args!("{p}_load"));
        let name = cx.text.fmt(format_args!("load properties of {node}"));
        chain.then(id, name, kind);
    }
    if existing.filter.is_empty() {
        return;
    }
    let mut expr = String::new();
    let property = property_var(cx.names, t, r);
    super::condition::push(&mut expr, &existing.filter, &property, "''");
    let message = format!(
        "{p}: the instance given as {} does not pass the node_filter of {node}",
        existing.input
    );
    let script = fail_unless(&mut cx.text, &expr, &message);
    let id = cx.text.fmt(format_args!("{p}_filter"));
    let name = cx.text.fmt(format_args!("node_filter of {node}"));
    chain.then(id, name, groovy_task(script));
}

/// The variable of a property of `template` by the property's name (for
/// the conditions of [`super::condition`]).
fn property_var<'v>(
    names: &'v Vars,
    t: &'v crate::model::Topology,
    template: TemplateRef,
) -> impl Fn(&str) -> Option<String> + 'v {
    move |a| {
        names
            .props_of(t, template)
            .find(|(n, _)| *n == a)
            .map(|(_, v)| v.to_string())
    }
}

/// Groovy that fails the plan with `message` unless `condition` holds.
fn fail_unless(text: &mut Text, condition: &str, message: &str) -> Str {
    text.build(|o| {
        o.push_str("if (!(");
        o.push_str(condition);
        o.push_str(")) fail(");
        push_literal(o, message);
        o.push(')');
    })
}

/// A script task running `script` (Groovy).
fn groovy_task(script: Str) -> Kind {
    Kind::Script(Box::new(Script {
        script: Value::Groovy(script),
        locals: Vec::new(),
    }))
}

/// Register a new instance of node `n` with its service template's
/// instance API (a call of [`REGISTER`]).
fn create_node_instance(cx: &mut Ctx, chain: &mut Chain, n: crate::model::NodeId, p: Prefix) {
    let t = cx.topology;
    let r = TemplateRef::Node(n);
    let side = side(t, r);
    let mut call = call(REGISTER);
    let path = instances_path(t, r);
    let url = [Part::Var(side.service_template_url), Part::Lit(&path)];
    pass(&mut cx.text, &mut call, "url", &url);
    let instance = [Part::Var(side.service_instance_id)];
    pass(&mut cx.text, &mut call, "serviceInstanceID", &instance);
    created(cx, &mut call, r);
    let id = cx.text.fmt(format_args!("{p}"));
    let name = cx
        .text
        .fmt(format_args!("register instance of {}", t.node(n).id));
    chain.then(id, name, Kind::Call(Box::new(call)));
}

/// A workflow condition on the current instance of `template` (all
/// clauses must hold; `state` is read from the instance API first):
/// a filter (`Otherwise::Skip`) computes whether the instance meets it, and
/// an exclusive gateway ends the activity (in a per-instance activity, the
/// turn of this instance) where it does not, so the rest of the steps run
/// only on instances that meet it; a precondition (`Otherwise::Fail`)
/// throws the BPMN error where it does not hold, which fails the plan.
fn check(
    cx: &mut Ctx,
    chain: &mut Chain,
    template: TemplateRef,
    conditions: &[Condition],
    otherwise: Otherwise,
    p: Prefix,
) {
    let t = cx.topology;
    let reads_state = Condition::reads_state(conditions);
    let name = t.template_id(template);
    let mut expr = String::new();
    let property = property_var(cx.names, t, template);
    super::condition::push(
        &mut expr,
        conditions,
        &property,
        "body().trim().toUpperCase()",
    );
    let met = match otherwise {
        Otherwise::Skip => Some(cx.poll_var(p, "met")),
        Otherwise::Fail => None,
    };
    let mut message = String::new();
    let _ = write!(message, "{p}: the precondition does not hold on {name}");
    let text = &mut cx.text;
    // What the task computes: the filter's outcome, or the precondition's
    // failure.
    let id = text.fmt(format_args!("{p}"));
    let label = match otherwise {
        Otherwise::Skip => text.fmt(format_args!("filter on {name}")),
        Otherwise::Fail => text.fmt(format_args!("precondition on {name}")),
    };
    let kind = if reads_state {
        let url = concat(
            text,
            &[Part::Var(cx.names.url(template)), Part::Lit("/state")],
        );
        let mut outputs = Vec::new();
        match &met {
            Some(met) => {
                outputs.push(status_check(text));
                outputs.push((text.add(met), Value::Groovy(text.add(&expr))));
            }
            None => {
                // The status first: the answer is the state only if it is 2xx.
                let script = text.build(|o| {
                    o.push_str("def status = check(");
                    push_literal(o, &p.to_string());
                    o.push_str(")\nif (!(");
                    o.push_str(&expr);
                    o.push_str(")) fail(");
                    push_literal(o, &message);
                    o.push_str(" + ' (state ' + body().trim() + ')')\nstatus");
                });
                outputs.push((text.add("httpStatus"), Value::Groovy(script)));
            }
        }
        http("GET", url, None, "text/plain", None, outputs)
    } else {
        let script = match &met {
            Some(met) => text.build(|o| {
                o.push_str("execution.setVariable(");
                push_literal(o, met);
                o.push_str(", ");
                o.push_str(&expr);
                o.push(')');
            }),
            None => fail_unless(text, &expr, &message),
        };
        groovy_task(script)
    };
    chain.then(id, label, kind);
    let Some(met) = met else {
        return;
    };
    // Instances that do not meet the filter end here; the default flow
    // goes on with the rest of the steps.
    let split = (
        text.fmt(format_args!("{p}_meets")),
        text.add("meets the filter?"),
    );
    let end = (text.fmt(format_args!("{p}_skip")), text.add("filtered out"));
    let condition = text.fmt(format_args!("${{!{met}}}"));
    chain.end_if(split, end, condition, "no");
}

fn is_xml_name(s: &str) -> bool {
    !s.is_empty() && crate::names::ncname(s) == s
}

/// The properties of node `n` that go into its instance's XML document
/// (name, variable): those whose name is an element name.
fn storable<'a>(
    names: &'a Vars,
    t: &'a crate::model::Topology,
    n: crate::model::NodeId,
) -> impl Iterator<Item = (&'a str, &'a str)> {
    names
        .props_of(t, TemplateRef::Node(n))
        .filter(|(name, _)| is_xml_name(name))
}

/// Set the property variables of `to` from those of `from` with the same
/// names (a migrated node takes its source instance's properties).
fn copy_properties(
    cx: &mut Ctx,
    chain: &mut Chain,
    from: crate::model::NodeId,
    to: crate::model::NodeId,
    p: Prefix,
) {
    let t = cx.topology;
    let mut s = String::new();
    for (v, w) in cx
        .names
        .shared_props(t, TemplateRef::Node(from), TemplateRef::Node(to))
    {
        super::init::set_variable(&mut s, w, &|o| push_var(o, v));
    }
    if s.is_empty() {
        return;
    }
    let text = &mut cx.text;
    let script = Kind::Script(Box::new(Script {
        script: Value::Groovy(text.add(&s)),
        locals: Vec::new(),
    }));
    let id = text.fmt(format_args!("{p}"));
    let name = text.fmt(format_args!(
        "properties of {} from {}",
        t.node(to).id,
        t.node(from).id
    ));
    chain.then(id, name, script);
}

/// Store the properties of a node instance as the XML document its type
/// declares (a call of [`PROPERTIES`]).
fn store_properties(cx: &mut Ctx, chain: &mut Chain, n: crate::model::NodeId, p: Prefix) {
    let t = cx.topology;
    let r = TemplateRef::Node(n);
    let Ctx { names, text, .. } = &mut *cx;
    let props: Vec<(&str, &str)> = storable(names, t, n).collect();
    if props.is_empty() {
        return;
    }
    let (ns, root) = t.node(n).properties_element.clone().unwrap_or_default();
    let root = if root.is_empty() { "Properties" } else { &root };
    let mut call = call(PROPERTIES);
    pass(text, &mut call, "url", &[Part::Var(names.url(r))]);
    if !ns.is_empty() {
        pass(text, &mut call, "namespace", &[Part::Lit(&ns)]);
    }
    pass(text, &mut call, "root", &[Part::Lit(root)]);
    let list: Vec<&str> = props.iter().map(|(name, _)| *name).collect();
    pass(text, &mut call, "names", &[Part::Lit(&list.join(","))]);
    let mut target = String::new();
    for (name, v) in &props {
        target.clear();
        let _ = write!(target, "prop:{name}");
        pass(text, &mut call, &target, &[Part::Var(v)]);
    }
    let id = cx.text.fmt(format_args!("{p}"));
    let name = cx.text.add("store properties");
    chain.then(id, name, Kind::Call(Box::new(call)));
}

/// Pick an instance of a node by strategy and load its properties.
/// (Scale-out plans only, and rare: these scripts are written inline,
/// with their messages.)
fn select(
    cx: &mut Ctx,
    chain: &mut Chain,
    n: crate::model::NodeId,
    strategy: &Strategy,
    p: Prefix,
) {
    use super::groovy::{literal, var};
    let t = cx.topology;
    let r = TemplateRef::Node(n);
    let node = &t.node(n).id;
    let path = instances_path(t, r);
    let side = side(t, r);
    let list = concat(
        &mut cx.text,
        &[
            Part::Var(side.service_template_url),
            Part::Lit(&path),
            Part::Lit("?state=STARTED&serviceInstanceId="),
            Part::Var(side.service_instance_id),
        ],
    );
    let base = format!(
        "{} + {} + '/'",
        var(side.service_template_url),
        literal(&path)
    );
    let (choice, label) = match strategy {
        Strategy::FirstInstance => ("(jnum(body(), 'id') + [''])[0]".to_string(), "first"),
        Strategy::UserProvided(input) => (
            // An expression, not a closure: a line starting with `{` would be
            // read by Groovy as an argument of the helper defined above it.
            format!(
                "(jnum(body(), 'id').contains({want}) ? {want} : fail({} + {want}))",
                literal(&format!("{p}: no running instance of {node} with id ")),
                want = var(&cx.input(input)),
            ),
            "given",
        ),
        Strategy::WorkloadBased(_) => {
            ("(jnum(body(), 'id') + [''])[0]".to_string(), "least loaded")
        }
    };
    let check_some = format!(
        "jnum(body(), 'id').isEmpty() ? fail({}) : check({})",
        literal(&format!("{p}: no running instance of {node}")),
        literal(&p.to_string())
    );
    let candidates = match strategy {
        Strategy::WorkloadBased(_) => cx.poll_var(p, "candidates"),
        _ => String::new(),
    };
    let text = &mut cx.text;
    let mut outputs = vec![(text.add("httpStatus"), Value::Groovy(text.add(&check_some)))];
    if let Strategy::WorkloadBased(_) = strategy {
        outputs.push((text.add(&candidates), Value::Shared(Shared::InstanceIds)));
    }
    outputs.push((text.add(cx.names.id(r)), Value::Groovy(text.add(&choice))));
    outputs.push((
        text.add(cx.names.url(r)),
        Value::Groovy(text.fmt(format_args!("{base} + {choice}"))),
    ));
    let id = text.fmt(format_args!("{p}"));
    let name = text.fmt(format_args!("select {label} instance of {node}"));
    chain.then(
        id,
        name,
        http("GET", list, None, "application/json", None, outputs),
    );
    if let Strategy::WorkloadBased(prop) = strategy {
        // The instance API lists instances without their properties, so
        // the comparison reads each candidate's properties in a script.
        let script = text.fmt(format_args!(
            "def best = null; def bestValue = null\n\
             for (id in {cands}.split(',').findAll {{ it }}) {{\n\
             \x20 def c = new URL({base} + id + '/properties').openConnection()\n\
             \x20 c.setRequestProperty('Accept', 'application/json')\n\
             \x20 if (c.responseCode != 200) fail({what} + id + ': HTTP ' + c.responseCode)\n\
             \x20 def value = (jstr(c.inputStream.getText('UTF-8'), {prop}) ?: '0') as BigDecimal\n\
             \x20 if (bestValue == null || value < bestValue) {{ best = id; bestValue = value }}\n\
             }}\n\
             execution.setVariable({idv}, best)\n\
             execution.setVariable({urlv}, {base} + best)\n",
            cands = var(&candidates),
            base = base,
            what = literal(&format!("{p}: properties of {node} instance ")),
            prop = literal(prop),
            idv = literal(cx.names.id(r)),
            urlv = literal(cx.names.url(r)),
        ));
        let id = text.fmt(format_args!("{p}_compare"));
        let name = text.fmt(format_args!("compare {prop} of {node} instances"));
        chain.then(
            id,
            name,
            Kind::Script(Box::new(Script {
                script: Value::Groovy(script),
                locals: Vec::new(),
            })),
        );
    }
    if let Some(kind) = load_properties(cx, r) {
        let id = cx.text.fmt(format_args!("{p}_load"));
        let name = cx.text.fmt(format_args!("load properties of {node}"));
        chain.then(id, name, kind);
    }
}

/// The variables a call of [`INVOKE`] passes in (the invocation's fields
/// and `param:<name>` per input parameter), and the local variables of the
/// call that compute the values JUEL cannot (passed in by name).
fn invocation_ins(cx: &mut Ctx, inv: &Invocation) -> Passed {
    let t = cx.topology;
    // The target's templates are called through the target's CSAR,
    // service template and instance.
    let side = side(t, inv.target);
    let template = t.api_id(inv.target).to_string();
    let mut fields: Vec<(String, Vec<Piece>)> = vec![
        ("csarID".into(), vec![Piece::Var(side.csar.into())]),
        (
            "serviceTemplateID".into(),
            vec![Piece::Lit(format!(
                "{{{}}}{}",
                side.namespace, side.service_template
            ))],
        ),
        (
            "serviceInstanceID".into(),
            vec![Piece::Var(side.service_instance_url.into())],
        ),
    ];
    match inv.target {
        TemplateRef::Node(_) => {
            fields.push(("nodeTemplateID".into(), vec![Piece::Lit(template)]));
            let url = cx.names.url(inv.target).to_string();
            fields.push(("nodeInstanceID".into(), vec![Piece::Var(url)]));
        }
        TemplateRef::Relationship(_) => {
            fields.push(("relationshipTemplateID".into(), vec![Piece::Lit(template)]))
        }
    }
    fields.push((
        "interface".into(),
        vec![Piece::Lit(inv.interface.to_string())],
    ));
    fields.push((
        "operation".into(),
        vec![Piece::Lit(inv.operation.to_string())],
    ));
    let (mut ins, mut locals) = (Vec::new(), Vec::new());
    for (name, b) in &inv.inputs {
        let mut pieces = Vec::new();
        if binding_pieces(cx, b, &mut pieces) {
            fields.push((format!("param:{name}"), pieces));
        } else {
            // A function the plan evaluates: computed in Groovy.
            let target = cx.text.fmt(format_args!("param:{name}"));
            let value = Value::Groovy(cx.text.add(&cx.expr(b)));
            locals.push((target, value));
            ins.push((target, In::Var(target)));
        }
    }
    let mut passed = call(INVOKE);
    for (target, pieces) in fields {
        let parts: Vec<Part> = pieces.iter().map(Piece::part).collect();
        pass(&mut cx.text, &mut passed, &target, &parts);
    }
    ins.append(&mut passed.ins);
    locals.append(&mut passed.locals);
    Passed { ins, locals }
}

/// Compute the values of an operation call that only Groovy computes
/// (`locals`: a function the plan evaluates, names JUEL cannot read) in a
/// script task before the call, into variables of this step that `ins`
/// then passes: a value that fails (a function of no number) throws the
/// BPMN error there, which the activity's error events catch, where in the
/// call's input mapping it would halt the engine with an incident.
fn computed_first(
    cx: &mut Ctx,
    chain: &mut Chain,
    inv: &Invocation,
    p: Prefix,
    locals: Vec<(Str, Value)>,
    ins: &mut [(Str, In)],
) {
    let mut script = String::new();
    for (target, value) in locals {
        let Value::Groovy(expr) = value else {
            continue;
        };
        let name = word(cx.text.get(target));
        let var = cx.poll_var(p, &name);
        let expr = cx.text.get(expr).to_string();
        super::init::set_variable(&mut script, &var, &|o| o.push_str(&expr));
        let var = cx.text.add(&var);
        for (t, v) in ins.iter_mut() {
            if *t == target {
                *v = In::Var(var);
            }
        }
    }
    if script.is_empty() {
        return;
    }
    let text = &mut cx.text;
    let id = text.fmt(format_args!("{p}_inputs"));
    let name = text.fmt(format_args!("inputs of {}", inv.operation));
    let kind = Kind::Script(Box::new(Script {
        script: Value::Groovy(text.add(&script)),
        locals: Vec::new(),
    }));
    chain.then(id, name, kind);
}

/// What a call passes in: its variables, and the local variables of the
/// call that some of them are computed in.
struct Passed {
    ins: Vec<(Str, In)>,
    locals: Vec<(Str, Value)>,
}

/// A piece of a value: constant text or a variable.
enum Piece {
    Lit(String),
    Var(String),
}

impl Piece {
    fn part(&self) -> Part<'_> {
        match self {
            Piece::Lit(s) => Part::Lit(s),
            Piece::Var(v) => Part::Var(v),
        }
    }
}

/// The pieces of a binding, concatenated; false for a function, which no
/// concatenation of pieces is.
fn binding_pieces(cx: &Ctx, b: &crate::plugins::steps::Binding, out: &mut Vec<Piece>) -> bool {
    use crate::plugins::steps::Binding;
    match b {
        Binding::Property(p) => out.push(Piece::Var(cx.names.prop(cx.topology, p).to_string())),
        Binding::Input(n) => out.push(Piece::Var(cx.input(n))),
        Binding::Literal(s) => out.push(Piece::Lit(s.clone())),
        Binding::ArtifactUrl(path) => {
            out.push(Piece::Var(
                cx.input(crate::plugins::complete::CSAR_ENTRYPOINT),
            ));
            out.push(Piece::Lit(format!(
                "/Content/{}",
                crate::render::paths::url_path(path)
            )));
        }
        Binding::InstanceId(t) => out.push(Piece::Var(cx.names.id(*t).to_string())),
        Binding::Concat(parts) => return parts.iter().all(|p| binding_pieces(cx, p, out)),
        Binding::Function(..) => return false,
    }
    true
}

/// An operation call through the management bus: a call of the reusable
/// process [`INVOKE`] (`templates/bpmn/library.bpmn`) with the invocation,
/// then storing the outputs of its answer, if there are any. A failure in
/// the called process reaches this activity's error events.
fn invoke(cx: &mut Ctx, chain: &mut Chain, inv: &Invocation, p: Prefix) {
    let template = cx.topology.template_id(inv.target);
    let Passed { mut ins, locals } = invocation_ins(cx, inv);
    computed_first(cx, chain, inv, p, locals, &mut ins);
    let result = cx.poll_var(p, "result");
    let text = &mut cx.text;
    ins.insert(0, (text.add(BUS), In::Var(text.add(&cx.bus))));
    let mut call = call(INVOKE);
    call.ins = ins;
    if !inv.outputs.is_empty() {
        out(text, &mut call, "result", &result);
    }
    let id = text.fmt(format_args!("{p}"));
    let name = text.fmt(format_args!("{} on {template}", inv.operation));
    chain.then(id, name, Kind::Call(Box::new(call)));
    // The called process has failed if the operation ended in a fault;
    // what is left is storing the outputs, if there are any.
    if inv.outputs.is_empty() {
        return;
    }
    let mut locals = vec![(text.add("result"), concat(text, &[Part::Var(&result)]))];
    for (o, prop) in &inv.outputs {
        let name = text.fmt(format_args!("output:{o}"));
        let var = cx.names.prop(cx.topology, prop);
        locals.push((name, literal_value(text, var)));
    }
    let id = text.fmt(format_args!("{p}_result"));
    let name = text.fmt(format_args!("outputs of {}", inv.operation));
    chain.then(
        id,
        name,
        Kind::Script(Box::new(Script {
            script: Value::Shared(Shared::OperationResult),
            locals,
        })),
    );
}
