//! Tasks and their Camunda extensions as XML: script tasks, service
//! tasks with the `http-connector`, call activities, and the input and
//! output parameters and execution listeners they carry. Their text is
//! the fragment file `templates/bpmn/fragments/steps.bpmn`; this module
//! picks its sections and fills their holes (and loads the fragments of
//! `flow.bpmn`, which the writer's other elements come from).
//!
//! In: a node of the model. Out: its element, written by the [`Writer`].

use std::borrow::Cow;
use std::sync::OnceLock;

use super::Writer;
use crate::error::{Error, Result};
use crate::names::escape::{push_xml_attr, push_xml_text, xml_escape};
use crate::render::bpmn::graph::{
    Adjacency, Call, Http, In, Plane, Repeat, Script, Str, Text, Value,
};
use crate::render::bpmn::scripts::Shared;
use crate::render::fragment::Fragments;

/// The fragment files of the BPMN backend, embedded at build time.
pub(crate) const FRAGMENTS: &[(&str, &str)] = &[
    (
        "bpmn/fragments/flow.bpmn",
        include_str!("../../../../templates/bpmn/fragments/flow.bpmn"),
    ),
    (
        "bpmn/fragments/steps.bpmn",
        include_str!("../../../../templates/bpmn/fragments/steps.bpmn"),
    ),
];

/// The parsed fragments (once per process).
fn fragments() -> Result<&'static Fragments> {
    static PARSED: OnceLock<std::result::Result<Fragments, String>> = OnceLock::new();
    PARSED
        .get_or_init(|| Fragments::parse(FRAGMENTS).map_err(|e| e.to_string()))
        .as_ref()
        .map_err(|e| Error::Internal(e.clone()))
}

/// `s` with `push` applied where `special` holds for one of its bytes (no
/// copy where none does, as most ids, names and values). Bytes, not
/// chars: every special character is ASCII, and a byte test is what a
/// plan of a large topology, which passes here millions of times, can
/// afford.
fn escaped<'s>(
    s: &'s str,
    special: impl Fn(u8) -> bool,
    push: fn(&mut String, &str),
) -> Cow<'s, str> {
    if s.bytes().any(special) {
        let mut out = String::with_capacity(s.len() + 8);
        push(&mut out, s);
        Cow::Owned(out)
    } else {
        Cow::Borrowed(s)
    }
}

/// `s` escaped for element content.
pub(super) fn text(s: &str) -> Cow<'_, str> {
    escaped(s, |b| matches!(b, b'&' | b'<' | b'>'), push_xml_text)
}

/// ` name="…"`, or nothing for an element without a label.
fn name_attr(name: &str) -> String {
    let mut out = String::new();
    push_name_attr(&mut out, name);
    out
}

/// Append ` name="…"`, or nothing for an element without a label.
pub(super) fn push_name_attr(out: &mut String, name: &str) {
    if !name.is_empty() {
        out.push_str(" name=\"");
        push_xml_attr(out, name);
        out.push('"');
    }
}

/// The attribute that passes a variable of a call, and its value.
fn passed(v: &In) -> (&'static str, Str) {
    match v {
        In::Var(v) => ("source", *v),
        In::Expr(e) => ("sourceExpression", *e),
    }
}

impl Writer<'_> {
    /// Write section `section` of the fragments, indented by `indent`
    /// spaces (a piece of a line: `None`).
    pub(super) fn step(&mut self, section: &str, indent: Option<usize>, values: &[(&str, &str)]) {
        let written = fragments().and_then(|f| f.write(&mut self.out, section, indent, values));
        if let Err(e) = written {
            self.fail(e);
        }
    }

    /// `deployment://<file>` of a shared script, noted as used.
    fn resource(&mut self, s: Shared) -> String {
        let mut r = String::new();
        self.used.mark(s, &*self.properties).write(&mut r);
        r
    }

    /// A parameter value: text, an inline script, or a shared one.
    fn value(&mut self, v: &Value) -> String {
        let model = self.text;
        match v {
            Value::Text(t) => text(model.get(*t)).into_owned(),
            Value::Groovy(body) => {
                let mut inline = String::new();
                self.lib
                    .inline(model.get(*body), |piece| push_xml_text(&mut inline, piece));
                let mut out = String::new();
                let written = fragments()
                    .and_then(|f| f.write(&mut out, "value-inline", None, &[("body", &inline)]));
                if let Err(e) = written {
                    self.fail(e);
                }
                out
            }
            Value::Later(_) => {
                self.fail(Error::Internal(
                    "BPMN writer: a deferred script as a parameter value".into(),
                ));
                String::new()
            }
            Value::Shared(s) => {
                let resource = self.resource(*s);
                let mut out = String::new();
                let written = fragments().and_then(|f| {
                    f.write(&mut out, "value-shared", None, &[("resource", &resource)])
                });
                if let Err(e) = written {
                    self.fail(e);
                }
                out
            }
        }
    }

    /// One parameter line of an input/output mapping.
    fn parameter(&mut self, depth: usize, kind: &str, name: &str, v: &Value) {
        let value = self.value(v);
        let name = xml_escape(name);
        self.step(
            "parameter",
            Some(depth),
            &[("kind", kind), ("name", &name), ("value", &value)],
        );
    }

    /// `<extensionElements><camunda:inputOutput>` with inputs and outputs,
    /// the parameters one per line.
    fn input_output(&mut self, depth: usize, inputs: &[(Str, Value)], outputs: &[(Str, Value)]) {
        self.step("extensions", None, &[]);
        self.mappings(depth, inputs, outputs);
        self.step("extensions-end", None, &[]);
    }

    /// `camunda:inputOutput`, inside `extensionElements`.
    pub(super) fn mappings(
        &mut self,
        depth: usize,
        inputs: &[(Str, Value)],
        outputs: &[(Str, Value)],
    ) {
        let model = self.text;
        self.step("input-output", None, &[]);
        for (n, v) in inputs {
            self.parameter(depth + 1, "inputParameter", model.get(*n), v);
        }
        for (n, v) in outputs {
            self.parameter(depth + 1, "outputParameter", model.get(*n), v);
        }
        self.step("input-output-end", Some(depth), &[]);
    }

    /// Execution listeners that write into the plan instance's log on
    /// each of `events` of the element (`start`, `end`, a flow's `take`),
    /// inside `extensionElements`.
    pub(super) fn plan_log(&mut self, events: &[&str]) {
        let resource = self.resource(Shared::PlanLog);
        for event in events {
            self.step(
                "plan-log",
                None,
                &[("event", event), ("resource", &resource)],
            );
        }
    }

    /// A script task: an inline script, or a shared one with its locals.
    pub(super) fn script_task(
        &mut self,
        plane: &Plane,
        adj: &Adjacency,
        i: usize,
        s: &Script,
        depth: usize,
    ) {
        let model = self.text;
        let n = &plane.nodes[i];
        let (id, name) = (model.get(n.id), name_attr(model.get(n.name)));
        if let Value::Shared(shared) = &s.script {
            let resource = self.resource(*shared);
            let values = [("id", id), ("name_attr", &name), ("resource", &resource)];
            self.step("script-shared", Some(depth), &values);
        } else {
            let values = [("id", id), ("name_attr", &name)];
            self.step("script-inline", Some(depth), &values);
        }
        if !s.locals.is_empty() && !matches!(s.script, Value::Text(_)) {
            self.input_output(depth, &s.locals, &[]);
        }
        self.flows(plane, adj, i);
        let body = match &s.script {
            Value::Shared(_) => None,
            Value::Later(key) => match self.pending.as_mut() {
                Some(p) => {
                    let mut built = String::new();
                    p.builder.script(*key as usize, &mut built);
                    Some(self.inline(&built))
                }
                None => {
                    self.fail(Error::Internal(
                        "BPMN writer: a deferred script inside a deferred subprocess".into(),
                    ));
                    Some(String::new())
                }
            },
            Value::Groovy(body) => Some(self.inline(model.get(*body))),
            // A one-line Groovy script given as text.
            Value::Text(t) => Some(text(model.get(*t)).into_owned()),
        };
        if let Some(body) = body {
            self.step("script-body", None, &[("body", &body)]);
        }
        self.step("script-close", None, &[]);
    }

    /// A Groovy body with the helpers it calls, escaped for element content.
    fn inline(&self, body: &str) -> String {
        let mut out = String::new();
        self.lib
            .inline(body, |piece| push_xml_text(&mut out, piece));
        out
    }

    /// A service task calling a REST API through the `http-connector`.
    pub(super) fn service_task(
        &mut self,
        plane: &Plane,
        adj: &Adjacency,
        i: usize,
        h: &Http,
        depth: usize,
    ) {
        let model = self.text;
        let n = &plane.nodes[i];
        let (id, name) = (model.get(n.id), name_attr(model.get(n.name)));
        let url = self.value(&h.url);
        let mut content_type = String::new();
        if let Some(ct) = h.content_type {
            let written = fragments().and_then(|f| {
                f.write(
                    &mut content_type,
                    "http-content-type",
                    None,
                    &[("content_type", ct)],
                )
            });
            if let Err(e) = written {
                self.fail(e);
            }
        }
        let values = [
            ("id", id),
            ("name_attr", &name),
            ("method", h.method),
            ("url", &url),
            ("accept", h.accept),
            ("content_type_entry", &content_type),
        ];
        self.step("http", Some(depth), &values);
        if let Some(p) = &h.payload {
            self.parameter(depth + 1, "inputParameter", "payload", p);
        }
        for (name, v) in &h.outputs {
            self.parameter(depth + 1, "outputParameter", model.get(*name), v);
        }
        self.step("http-end", Some(depth), &[]);
        self.flows(plane, adj, i);
        self.step("http-close", None, &[]);
    }

    /// The variables a call passes in and out.
    fn passes(&mut self, c: &Call) {
        let model = self.text;
        let ins = c.ins.iter().map(|(to, from)| ("call-in", from, to));
        let outs = c.outs.iter().map(|(from, to)| ("call-out", from, to));
        for (section, from, to) in ins.chain(outs) {
            let (from, value) = passed(from);
            let (value, target) = (xml_escape(model.get(value)), xml_escape(model.get(*to)));
            let values = [("from", from), ("value", &value), ("target", &target)];
            self.step(section, None, &values);
        }
    }

    /// A call activity: the reusable process of the plan's own deployment,
    /// with its variables passed in and out.
    pub(super) fn call_activity(
        &mut self,
        plane: &Plane,
        adj: &Adjacency,
        i: usize,
        c: &Call,
        depth: usize,
    ) {
        self.call_element(plane, adj, i, c, Repeat::Once, None, depth);
    }

    /// Node `i` of `plane` as a call activity, a compensation handler if
    /// `repeat` says so; the call's text is `inner` where it is not this
    /// writer's (an activity that is one call of `toscanini_run` or
    /// `toscanini_each`, built when the writer reached it; the called
    /// process writes the activity's plan-log entries).
    #[allow(clippy::too_many_arguments)]
    pub(super) fn call_element(
        &mut self,
        plane: &Plane,
        adj: &Adjacency,
        i: usize,
        c: &Call,
        repeat: Repeat,
        inner: Option<&Text>,
        depth: usize,
    ) {
        let section = match repeat {
            Repeat::Compensation => "call-compensation",
            _ => "call",
        };
        let model = self.text;
        let n = &plane.nodes[i];
        let (id, name) = (model.get(n.id), name_attr(model.get(n.name)));
        let values = [("id", id), ("name_attr", &name), ("process", c.process)];
        self.step(section, Some(depth), &values);
        self.in_text(inner, |w| {
            w.passes(c);
            if !c.locals.is_empty() {
                w.mappings(depth, &c.locals, &[]);
            }
        });
        self.step("extensions-end", None, &[]);
        self.flows(plane, adj, i);
        self.step("call-close", None, &[]);
    }
}
