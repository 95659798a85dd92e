//! The calls of the reusable processes of `templates/bpmn/library.bpmn`
//! ([`super::library`]) that the steps and activities of a plan make:
//! setting and recording states, registering instances, loading
//! properties; how a call passes its variables in and out; and the HTTP
//! connector tasks of what no reusable process does.
//!
//! In: the [`Ctx`] and the templates concerned. Out: the call activities
//! ([`Kind::Call`]) to put into a chain.

use super::ctx::Ctx;
use super::expr::concat;
use super::graph::Http;
use super::graph::{Call, In, Kind, Str, Text, Value};
use super::groovy::{Part, juel_ident, push_literal, push_var};
use super::library::{LOAD, MARK, STATE};
use super::scripts::Shared;
use crate::model::TemplateRef;

/// An HTTP service task.
pub(super) fn http(
    method: &'static str,
    url: Value,
    content_type: Option<&'static str>,
    accept: &'static str,
    payload: Option<Value>,
    outputs: Vec<(Str, Value)>,
) -> Kind {
    Kind::Http(Box::new(Http {
        method,
        url,
        content_type,
        accept,
        payload,
        outputs,
    }))
}

/// Output mapping that fails the task on a status outside 2xx.
pub(super) fn status_check(text: &mut Text) -> (Str, Value) {
    (text.add("httpStatus"), Value::Shared(Shared::Check))
}

/// A literal payload (plain text when Camunda reads it as itself).
pub(super) fn literal_value(text: &mut Text, s: &str) -> Value {
    concat(text, &[Part::Lit(s)])
}

/// An inline Groovy value written by `f`.
pub(super) fn groovy(text: &mut Text, f: impl FnOnce(&mut String)) -> Value {
    Value::Groovy(text.build(f))
}

/// A call of the reusable process `process` that passes nothing yet.
pub(super) fn call(process: &'static str) -> Call {
    Call {
        process,
        locals: Vec::new(),
        ins: Vec::new(),
        outs: Vec::new(),
    }
}

/// Pass a value made of `parts` into `call` as `target`: a lone variable
/// by name, other text as a JUEL expression, and what only Groovy computes
/// through a local variable of the call.
pub(super) fn pass(text: &mut Text, call: &mut Call, target: &str, parts: &[Part]) {
    let target = text.add(target);
    let value = match (parts, concat(text, parts)) {
        ([Part::Var(v)], Value::Text(_)) => In::Var(text.add(v)),
        (_, Value::Text(juel)) => In::Expr(juel),
        (_, groovy) => {
            call.locals.push((target, groovy));
            In::Var(target)
        }
    };
    call.ins.push((target, value));
}

/// Pass the caller's variable `var` out of `call` from the callee's `from`.
pub(super) fn out(text: &mut Text, call: &mut Call, from: &str, var: &str) {
    let from = In::Var(text.add(from));
    call.outs.push((from, text.add(var)));
}

/// A task that sets the state of a template's current instance.
pub(super) fn set_state(cx: &mut Ctx, t: TemplateRef, state: &str) -> Kind {
    let url = cx.text.add(cx.names.url(t));
    state_call(&mut cx.text, url, state)
}

/// A call of [`STATE`]: set the state of the instance whose URL is the
/// variable `url`; a status other than 2xx fails it.
pub(super) fn state_call(text: &mut Text, url: Str, state: &str) -> Kind {
    let state = text.add(state);
    let mut call = call(STATE);
    call.ins = vec![
        (text.add("url"), In::Var(url)),
        (text.add("state"), In::Expr(state)),
    ];
    Kind::Call(Box::new(call))
}

/// A task that marks the failing instance ERROR (error paths): the
/// template's current instance, or the service instance when that is not
/// known yet.
pub(super) fn mark_error(cx: &mut Ctx, t: TemplateRef) -> Kind {
    let url = cx.names.url(t);
    let text = &mut cx.text;
    let mut call = call(MARK);
    let target = text.add("url");
    let value = if juel_ident(url) {
        In::Expr(text.fmt(format_args!(
            "${{empty {url} ? serviceInstanceURL : {url}}}"
        )))
    } else {
        let known = groovy(text, |o| {
            push_var(o, url);
            o.push_str(" ?: ");
            push_var(o, "serviceInstanceURL");
        });
        call.locals.push((target, known));
        In::Var(target)
    };
    call.ins.push((target, value));
    call.ins
        .push((text.add("state"), In::Expr(text.add("ERROR"))));
    Kind::Call(Box::new(call))
}

/// A task of a failure path that records `state` on the instance whose URL
/// is the variable `url`, without checking the status: the path must not
/// end in a new error.
pub(super) fn record_state(text: &mut Text, url: &str, state: &str) -> Kind {
    let mut call = call(MARK);
    call.ins.push((text.add("url"), In::Var(text.add(url))));
    call.ins
        .push((text.add("state"), In::Expr(text.add(state))));
    Kind::Call(Box::new(call))
}

/// A task that loads the properties of a template's current instance that
/// the plan reads ([`crate::render::vars::Vars::loaded_props`]):
/// a call of [`LOAD`], or, where a property name cannot be listed in its
/// `names` (a comma), a GET of its own.
pub(super) fn load_properties(cx: &mut Ctx, t: TemplateRef) -> Option<Kind> {
    let url = cx.names.url(t).to_string();
    load_from(cx, t, &url)
}

/// A GET of the properties the plan reads of `t` from the instance whose
/// URL is in variable `url` (none read: no request).
pub(super) fn load_from(cx: &mut Ctx, t: TemplateRef, url: &str) -> Option<Kind> {
    let Ctx {
        names,
        topology,
        text,
        ..
    } = cx;
    // Nothing to load where the plan reads none of its properties.
    names.loaded_props(topology, t).next()?;
    if names
        .loaded_props(topology, t)
        .any(|(p, _)| p.is_empty() || p.contains(','))
    {
        return Some(load_each(cx, t, url));
    }
    let mut call = call(LOAD);
    pass(text, &mut call, "url", &[Part::Var(url)]);
    let mut list = String::new();
    for (p, _) in names.loaded_props(topology, t) {
        if !list.is_empty() {
            list.push(',');
        }
        list.push_str(p);
    }
    pass(text, &mut call, "names", &[Part::Lit(&list)]);
    for (p, v) in names.loaded_props(topology, t) {
        let from = text.fmt(format_args!("prop:{p}"));
        call.outs.push((In::Var(from), text.add(v)));
    }
    Some(Kind::Call(Box::new(call)))
}

/// A GET of the properties of a template's current instance, one output
/// per property.
fn load_each(cx: &mut Ctx, t: TemplateRef, url: &str) -> Kind {
    let Ctx {
        names,
        topology,
        properties,
        text,
        ..
    } = cx;
    let url = concat(text, &[Part::Var(url), Part::Lit("/properties")]);
    let mut outputs = vec![status_check(text)];
    for (p, v) in names.loaded_props(topology, t) {
        let value = match properties.get(p) {
            Some(shared) => Value::Shared(shared),
            None => groovy(text, |o| {
                o.push_str("jstr(body(), ");
                push_literal(o, p);
                o.push_str(") ?: ''");
            }),
        };
        outputs.push((text.add(v), value));
    }
    http("GET", url, None, "application/json", None, outputs)
}

/// Pass the URL and id of the instance `call` registers out into the
/// variables of template `r`.
pub(super) fn created(cx: &mut Ctx, call: &mut Call, r: TemplateRef) {
    out(&mut cx.text, call, "instanceURL", cx.names.url(r));
    out(&mut cx.text, call, "instanceID", cx.names.id(r));
}
