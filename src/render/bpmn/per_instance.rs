//! A termination activity (one whose body runs per instance): list the
//! live instances of its template, then run the steps once per instance
//! (a loop that checks before the first turn), with the instance variables
//! local to each turn so parallel branches never share them. A failed call
//! in a turn marks that turn's instance ERROR.
//!
//! In: the activity's body and the [`Ctx`]. Out: the loop, appended to a
//! plane.

use super::calls;
use super::chain::{Chain, Prefix};
use super::ctx::Ctx;
use super::errors::ERR_ACTIVITY;
use super::graph::{Call, In, Kind, Plane, Repeat, Str, Sub, Value};
use super::groovy::{Part, juel_ident, juel_text, push_literal, push_var};
use super::library::{EACH, INSTANCES};
use super::program;
use super::steps;
use crate::model::{TemplateRef, Topology};
use crate::plugins::ActivityBody;
use crate::render::side::Side;
use crate::render::vars::Vars;

/// The variables of the loop over the instances.
struct Loop {
    /// The ids of the instances, comma separated.
    ids: String,
    /// How many there are.
    count: String,
    /// The turn.
    index: String,
}

/// Run the steps of `body`, activity `a` whose subject is `subject`, once
/// per live instance, after node `start` of `plane`; `steps` are those of
/// one turn ([`turn_steps`]). Each turn hands out the plan outputs it sets
/// (`outputs`: name and expression), which its own variables would hide.
#[allow(clippy::too_many_arguments)]
pub(crate) fn each_instance(
    cx: &mut Ctx,
    plane: &mut Plane,
    start: usize,
    a: &str,
    subject: TemplateRef,
    body: &ActivityBody,
    steps: Plane,
    plan_outputs: Vec<(String, String)>,
) {
    let t = cx.topology;
    let vars = Loop {
        ids: cx.poll_var(Prefix::of(a), "ids"),
        count: cx.poll_var(Prefix::of(a), "count"),
        index: cx.poll_var(Prefix::of(a), "index"),
    };
    let (index, count) = (&vars.index, &vars.count);
    let mut chain = Chain::new(plane, start);
    let path = &crate::render::paths::instances_path(t, subject);
    list(cx, &mut chain, a, subject, path, &vars);
    let text = &mut cx.text;
    let id = text.fmt(format_args!("{a}_next"));
    let next = chain.then(id, Str::default(), Kind::Xor(None));
    let locals = turn_locals(cx, subject, body, path, &vars);
    let turn = turn(cx, a, subject, steps);
    let text = &mut cx.text;
    let following = if juel_ident(index) {
        Value::Text(text.fmt(format_args!("${{{index} + 1}}")))
    } else {
        calls::groovy(text, |o| {
            o.push('(');
            push_var(o, index);
            o.push_str(" as int) + 1");
        })
    };
    let mut outputs = vec![(text.add(index), following)];
    for (name, expr) in &plan_outputs {
        outputs.push((text.add(name), calls::groovy(text, |o| o.push_str(expr))));
    }
    let (id, label) = (
        text.fmt(format_args!("{a}_each")),
        text.fmt(format_args!("each instance of {}", t.template_id(subject))),
    );
    chain.then(
        id,
        label,
        Kind::Sub(Box::new(Sub {
            plane: turn,
            expanded: false,
            repeat: Repeat::Once,
            locals,
            outputs,
            logged: false,
        })),
    );
    let (id, label) = (text.fmt(format_args!("{a}_more")), text.add("more?"));
    let more = chain.then(id, label, Kind::Xor(None));
    let condition = text.fmt(format_args!("${{{index} < {count}}}"));
    chain.plane.connect_if(more, next, Some(condition), "next");
    chain.default_next();
    let id = text.fmt(format_args!("{a}_end"));
    chain.then(id, Str::default(), Kind::End(None));
}

/// List the instances of `subject` (at `path` under the service
/// template), into the loop's variables (a call of [`INSTANCES`]), and end
/// where there are none.
fn list(cx: &mut Ctx, chain: &mut Chain, a: &str, subject: TemplateRef, path: &str, vars: &Loop) {
    let t = cx.topology;
    let side = crate::render::side::side(t, subject);
    let text = &mut cx.text;
    let mut call = calls::call(INSTANCES);
    calls::pass(text, &mut call, "url", &instances_of(&side, path));
    call.outs = vec![
        (In::Var(text.add("ids")), text.add(&vars.ids)),
        (In::Var(text.add("count")), text.add(&vars.count)),
        // The first turn.
        (In::Expr(text.add("${0}")), text.add(&vars.index)),
    ];
    let (id, label) = (
        text.fmt(format_args!("{a}_list")),
        text.fmt(format_args!("list instances of {}", t.template_id(subject))),
    );
    chain.then(id, label, Kind::Call(Box::new(call)));
    let split = (text.fmt(format_args!("{a}_any")), text.add("any?"));
    let end = (text.fmt(format_args!("{a}_none")), text.add("none"));
    let count = &vars.count;
    let condition = text.fmt(format_args!("${{{count} == 0}}"));
    chain.end_if(split, end, condition, "none");
}

/// The URL that lists the instances of the template whose instances are
/// at `path` under the service template, in the plan's service instance.
fn instances_of<'a>(side: &Side<'a>, path: &'a str) -> [Part<'a>; 4] {
    [
        Part::Var(side.service_template_url),
        Part::Lit(path),
        Part::Lit("?serviceInstanceId="),
        Part::Var(side.service_instance_id),
    ]
}

/// The locals of one turn: the instance's id and URL, and, empty, the
/// variables of the instance and of every instance it follows a
/// relationship to (set below it in the turn).
fn turn_locals(
    cx: &mut Ctx,
    subject: TemplateRef,
    body: &ActivityBody,
    path: &str,
    vars: &Loop,
) -> Vec<(Str, Value)> {
    let t = cx.topology;
    let st_url = crate::render::side::side(t, subject).service_template_url;
    let Ctx { names, text, .. } = &mut *cx;
    let (ids, index) = (&vars.ids, &vars.index);
    // JUEL where every name is a JUEL identifier (it reads the variables
    // in place: no script, no helpers), Groovy otherwise.
    let juel = [ids, index, st_url].iter().all(|v| juel_ident(v)) && juel_text(path);
    let mut locals = if juel {
        vec![
            (
                text.add(names.id(subject)),
                Value::Text(text.fmt(format_args!("${{{ids}.split(',')[{index}]}}"))),
            ),
            (
                text.add(names.url(subject)),
                Value::Text(text.fmt(format_args!(
                    "${{{st_url}}}{path}/${{{ids}.split(',')[{index}]}}"
                ))),
            ),
        ]
    } else {
        let current = |o: &mut String| {
            push_var(o, ids);
            o.push_str(".split(',')[");
            push_var(o, index);
            o.push_str(" as int]");
        };
        vec![
            (text.add(names.id(subject)), calls::groovy(text, current)),
            (
                text.add(names.url(subject)),
                calls::groovy(text, |o| {
                    push_var(o, st_url);
                    o.push_str(" + ");
                    push_literal(o, path);
                    o.push_str(" + '/' + ");
                    current(o);
                }),
            ),
        ]
    };
    let empty = text.add("${''}");
    let mut last: Option<&str> = None;
    for v in turn_vars(names, t, subject, body) {
        // Consecutive repeats once (a template followed twice in a row).
        if last != Some(v) {
            locals.push((text.add(v), Value::Text(empty)));
            last = Some(v);
        }
    }
    locals
}

/// The whole activity as one call of [`EACH`], where the steps of a turn
/// are all calls ([`program::compact`]): it lists the instances, runs the
/// steps on each, and marks the instance of a failed turn ERROR. The
/// variables local to a turn are not passed in.
pub(crate) fn compact_each(
    cx: &mut Ctx,
    subject: TemplateRef,
    body: &ActivityBody,
    steps: &Plane,
) -> Option<Call> {
    let own = [cx.names.url(subject), cx.names.id(subject)];
    let run = program::compact(steps, &mut cx.text, None, &own)?;
    let t = cx.topology;
    let side = crate::render::side::side(t, subject);
    let path = crate::render::paths::instances_path(t, subject);
    let names = &cx.names;
    let local = |v: &str| {
        v == names.id(subject)
            || v == names.url(subject)
            || turn_vars(names, t, subject, body).any(|l| l == v)
    };
    let text = &mut cx.text;
    let mut call = calls::call(EACH);
    // The turns find their instances' URLs from it, and have them and
    // their ids as the first two variables of their steps (`own`).
    calls::pass(text, &mut call, "list", &instances_of(&side, &path));
    if !call.locals.is_empty() {
        return None;
    }
    for (target, value) in run.ins {
        if matches!(value, In::Var(v) if local(text.get(v))) {
            continue;
        }
        call.ins.push((target, value));
    }
    Some(call)
}

/// The variables a turn sets below its instance's id and URL: its
/// instance's properties, and the URL, id and properties of every instance
/// it follows a relationship to (local to the turn: [`turn_locals`]).
fn turn_vars<'a>(
    names: &'a Vars,
    t: &'a Topology,
    subject: TemplateRef,
    body: &'a ActivityBody,
) -> impl Iterator<Item = &'a str> + 'a {
    let followed = body.followed().map(|r| (r, true));
    let templates = std::iter::once((subject, false)).chain(followed);
    templates.flat_map(move |(r, followed)| {
        let found = followed.then(|| [names.url(r), names.id(r)]);
        let props = names.loaded_props(t, r).map(|(_, v)| v);
        found.into_iter().flatten().chain(props)
    })
}

/// One turn: load the instance's properties, run the steps, and mark the
/// instance ERROR if a call fails.
fn turn(cx: &mut Ctx, a: &str, subject: TemplateRef, steps: Plane) -> Plane {
    // (Its steps stay as they are even where they are all calls: a call
    // of toscanini_run logs for the element that calls it, which here is
    // no activity; the whole activity is one call where it can be.)
    let mut turn = steps;
    let turn_prefix = format!("{a}_turn");
    on_error(cx, &mut turn, &turn_prefix, Some(subject));
    turn
}

/// The steps of one turn, from its start to its end event: load the
/// instance's properties, then the activity's steps.
pub(crate) fn turn_steps(
    cx: &mut Ctx,
    a: &str,
    subject: TemplateRef,
    body: &ActivityBody,
) -> Plane {
    let t = cx.topology;
    let text = &mut cx.text;
    let mut turn = Plane::new(text.fmt(format_args!("{a}_each")));
    let id = text.fmt(format_args!("{a}_turnStart"));
    let ts = turn.add(id, Str::default(), Kind::Start(None));
    let mut inner = Chain::new(&mut turn, ts);
    if let Some(kind) = calls::load_properties(cx, subject) {
        let (id, label) = (
            cx.id(a, "_load"),
            cx.id("load properties of ", t.template_id(subject)),
        );
        inner.then(id, label, kind);
    }
    for (k, step) in body.steps.iter().enumerate() {
        steps::step(cx, &mut inner, step, Prefix::step(a, "_s", k + 1));
    }
    let id = cx.id(a, "_turnEnd");
    inner.then(id, Str::default(), Kind::End(None));
    turn
}

/// The error event subprocess of a loop turn or an activity: mark the
/// instance of `mark` ERROR (a turn's, where its variables are), if any,
/// and end with the activity error, which fails the plan's activities.
pub(crate) fn on_error(cx: &mut Ctx, plane: &mut Plane, prefix: &str, mark: Option<TemplateRef>) {
    let mut p = Plane::new(cx.id(prefix, "_onError"));
    let (id, label) = (cx.id(prefix, "_errorStart"), cx.text.add("call failed"));
    // Any error: as an error boundary event on the activity would (an
    // error of a nested turn is the activity error already).
    let any = Kind::ErrorStart {
        error: None,
        code: None,
        message: None,
    };
    let s = p.add(id, label, any);
    let mut chain = Chain::new(&mut p, s);
    if let Some(t) = mark {
        let kind = calls::mark_error(cx, t);
        let (id, label) = (cx.id(prefix, "_markError"), cx.text.add("instance ERROR"));
        chain.then(id, label, kind);
    }
    let id = cx.id(prefix, "_abort");
    chain.then(id, Str::default(), Kind::End(Some(ERR_ACTIVITY)));
    let (id, label) = (cx.id(prefix, "_onError"), cx.text.add("on error"));
    plane.add(
        id,
        label,
        Kind::Sub(Box::new(Sub {
            plane: p,
            expanded: true,
            repeat: Repeat::OnError,
            locals: Vec::new(),
            outputs: Vec::new(),
            logged: false,
        })),
    );
}
