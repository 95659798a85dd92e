//! Writing the BPMN model as XML. The document skeleton comes from
//! `templates/bpmn/process.bpmn` (tera, once per plan); flow nodes, their
//! Camunda extensions and the diagram are written here, straight into one
//! buffer: a plan has tens of thousands of elements, and a template render
//! per element cost more than everything else together.
//!
//! The BPMN model namespace is the default namespace; diagram elements
//! keep their usual prefixes. Every element is one line (a service task
//! one line per parameter), indented by one space per subprocess level.
//! Diagram elements carry no ids (they are optional), only the element
//! they draw. Inline Groovy gets the prelude helpers it calls
//! ([`super::scripts::Library::inline`]); shared scripts are referenced
//! with `deployment://<file>` and noted in [`Used`].

use serde::Serialize;

use std::collections::VecDeque;

use super::graph::{
    Adjacency, Call, Deferred, Http, In, Kind, Plane, Repeat, Script, Str, Sub, Text, Value,
    push_uint,
};
use super::layout::{self, Diagram, EdgeOf};
use super::scripts::{Library, PropertyFiles, Shared, Used, library};
use crate::error::{Error, Result};
use crate::names::escape::{push_xml_attr, push_xml_text};
use crate::render::PlanParameter;
use crate::render::output::{Aside, AsideReader, CHUNK, PlanOutput};
use crate::render::templates::Templates;

/// Escape text for XML content and attributes.
pub(crate) fn escape(s: &str) -> String {
    crate::names::xml_escape(s).into_owned()
}

/// What the document template needs.
pub(crate) struct Document<'a> {
    /// Comment and process name.
    pub title: &'a str,
    /// `{namespace}id` of the service template.
    pub service_template: &'a str,
    /// Process id.
    pub process: &'a str,
    /// Target namespace.
    pub namespace: &'a str,
    /// Error elements: (id, code).
    pub errors: &'a [(&'a str, &'a str)],
    /// Plan inputs (process variables the caller sets).
    pub inputs: &'a [PlanParameter],
    /// The text of the model.
    pub text: &'a Text,
    /// The process plane.
    pub plane: &'a Plane,
    /// Its diagrams.
    pub diagrams: &'a [Diagram<'a>],
}

/// Where the body and the diagrams go in the rendered skeleton.
const BODY: &str = "\u{1}body\u{1}";
const DIAGRAMS: &str = "\u{1}diagrams\u{1}";

/// Write the whole document into the file `sink` has started, a chunk
/// at a time (a large plan's text is never held whole). Deferred
/// subprocesses are built by `deferred` where the writer meets them, and
/// their diagrams set aside until the process's own has been written.
pub(crate) fn write(
    templates: &Templates,
    used: &mut Used,
    properties: &mut PropertyFiles,
    doc: &Document,
    deferred: &mut dyn Deferred,
    sink: &mut PlanOutput,
) -> Result<()> {
    #[derive(Serialize)]
    struct Error<'a> {
        id: &'a str,
        code: &'a str,
    }
    #[derive(Serialize)]
    struct Ctx<'a> {
        title: &'a str,
        service_template: &'a str,
        process: &'a str,
        namespace: &'a str,
        errors: Vec<Error<'a>>,
        inputs: Vec<&'a str>,
        body: &'a str,
        diagrams: &'a str,
    }
    let skeleton = templates.render(
        "bpmn/process.bpmn",
        &Ctx {
            title: doc.title,
            service_template: doc.service_template,
            process: doc.process,
            namespace: doc.namespace,
            errors: doc
                .errors
                .iter()
                .map(|(id, code)| Error { id, code })
                .collect(),
            inputs: doc.inputs.iter().map(|p| p.name.as_str()).collect(),
            body: BODY,
            diagrams: DIAGRAMS,
        },
    )?;
    let (head, rest) = skeleton.split_once(BODY).ok_or_else(|| missing("body"))?;
    let (middle, tail) = rest
        .split_once(DIAGRAMS)
        .ok_or_else(|| missing("diagrams"))?;
    let aside = Aside::for_output(sink)?;
    let associations = Aside::for_output(sink)?;
    // A chunk and the largest element written between two spills.
    let mut w = Writer {
        out: String::with_capacity(CHUNK + CHUNK / 4),
        sink,
        failed: None,
        used,
        properties,
        text: doc.text,
        lib: library(),
        pending: Some(Pending {
            builder: deferred,
            text: Text::default(),
            diagrams: String::new(),
            aside,
            pieces: Vec::new(),
            associations: Associations::Writing(associations),
            association_pieces: VecDeque::new(),
        }),
    };
    w.out.push_str(head);
    w.plane(doc.plane, 0);
    if let Some(p) = w.pending.as_mut() {
        let written = std::mem::replace(&mut p.associations, Associations::Done);
        if let Associations::Writing(a) = written {
            p.associations = Associations::Reading(a.read_back()?);
        }
    }
    // Associations are artifacts of the process: linters and modelers look
    // for compensation handlers there, whatever plane the events are in.
    w.associations(doc.plane);
    if w.pending
        .as_ref()
        .is_some_and(|p| !p.association_pieces.is_empty())
    {
        w.fail(crate::error::Error::Internal(
            "BPMN writer: associations of deferred subprocesses left unwritten".into(),
        ));
    }
    w.out.push_str(middle);
    // A deferred subprocess that could not be built set no diagrams aside.
    if let Some(e) = w.failed.take() {
        return Err(e);
    }
    let pending = w
        .pending
        .take()
        .ok_or_else(|| crate::error::Error::Internal("BPMN writer: deferred state lost".into()))?;
    let mut aside = pending.aside.read_back()?;
    let mut pieces = pending.pieces.into_iter();
    for d in doc.diagrams {
        match d.deferred {
            None => w.diagram(d),
            Some(key) => match pieces.next() {
                Some((k, len)) if k == key => {
                    w.spill();
                    aside.next_into(len, &mut w.out)?;
                }
                _ => {
                    return Err(crate::error::Error::Internal(format!(
                        "BPMN writer: the diagrams of deferred subprocess {key} are out of order"
                    )));
                }
            },
        }
    }
    w.out.push_str(tail);
    w.flush()
}

/// The writer's state for deferred subprocesses.
struct Pending<'a> {
    builder: &'a mut dyn Deferred,
    /// The text of the one being written (its buffer kept for the next).
    text: Text,
    /// Its diagrams, as they are set aside.
    diagrams: String,
    /// The diagrams of those written so far, in the order written.
    aside: Aside,
    /// Key and length of each one's diagrams in `aside`.
    pieces: Vec<(usize, usize)>,
    /// Their associations, set aside while they are written and read
    /// back after the process's flow nodes, where they go.
    associations: Associations,
    /// Key and length of the associations of each one that has some.
    association_pieces: VecDeque<(usize, usize)>,
}

/// The associations of deferred subprocesses, set aside.
enum Associations {
    /// Being set aside.
    Writing(Aside),
    /// Being read back.
    Reading(AsideReader),
    /// Between the two.
    Done,
}

fn missing(what: &str) -> Error {
    Error::Internal(format!("bpmn/process.bpmn has no place for the {what}"))
}

/// Append an integer.
fn push_int(out: &mut String, v: i64) {
    if v < 0 {
        out.push('-');
    }
    push_uint(out, v.unsigned_abs());
}

struct Writer<'a> {
    /// Text not yet handed to the sink.
    out: String,
    sink: &'a mut PlanOutput,
    /// The first error of the sink; what follows is dropped.
    failed: Option<Error>,
    used: &'a mut Used,
    properties: &'a mut PropertyFiles,
    text: &'a Text,
    lib: &'static Library,
    /// Deferred subprocesses: `None` while one is written.
    pending: Option<Pending<'a>>,
}

impl Writer<'_> {
    /// Hand the text on once a chunk has collected. Called between
    /// elements; an error is kept for [`Writer::flush`].
    fn spill(&mut self) {
        spill(&mut self.out, self.sink, &mut self.failed);
    }

    /// Keep the first error; what follows is dropped.
    fn fail(&mut self, e: Error) {
        self.failed.get_or_insert(e);
    }

    /// Run `f` on a writer of the same output whose model text is `text`
    /// (a deferred subprocess's), or on this one for `None`.
    fn in_text<R>(&mut self, text: Option<&Text>, f: impl FnOnce(&mut Writer<'_>) -> R) -> R {
        let Some(text) = text else {
            return f(self);
        };
        let mut w = Writer {
            out: std::mem::take(&mut self.out),
            sink: &mut *self.sink,
            failed: self.failed.take(),
            used: &mut *self.used,
            properties: &mut *self.properties,
            text,
            lib: self.lib,
            pending: None,
        };
        let r = f(&mut w);
        let (out, failed) = (w.out, w.failed);
        self.out = out;
        self.failed = failed;
        r
    }

    /// Hand on the rest, or the first error.
    fn flush(mut self) -> Result<()> {
        match self.failed.take() {
            Some(e) => Err(e),
            None => self.sink.write(&mut self.out),
        }
    }

    fn indent(&mut self, depth: usize) {
        for _ in 0..depth {
            self.out.push(' ');
        }
    }

    /// `<tag id="…" name="…"` (no name when empty).
    fn open(&mut self, depth: usize, tag: &str, id: &str, name: &str) {
        self.indent(depth);
        self.out.push('<');
        self.out.push_str(tag);
        self.out.push_str(" id=\"");
        self.out.push_str(id);
        self.out.push('"');
        if !name.is_empty() {
            self.out.push_str(" name=\"");
            push_xml_attr(&mut self.out, name);
            self.out.push('"');
        }
    }

    fn flow_id(&mut self, plane: &Plane, k: usize) {
        plane.flow_id(self.text, k, &mut self.out);
    }

    /// The id of node `i` of a plane.
    fn node_id(&mut self, plane: &Plane, i: usize) {
        self.out.push_str(self.text.get(plane.nodes[i].id));
    }

    /// The incoming and outgoing flows of node `i`.
    fn flows(&mut self, plane: &Plane, adj: &Adjacency, i: usize) {
        for &f in adj.incoming(i) {
            self.out.push_str("<incoming>");
            self.flow_id(plane, f as usize);
            self.out.push_str("</incoming>");
        }
        for &f in adj.outgoing(i) {
            self.out.push_str("<outgoing>");
            self.flow_id(plane, f as usize);
            self.out.push_str("</outgoing>");
        }
    }

    fn close(&mut self, tag: &str) {
        self.out.push_str("</");
        self.out.push_str(tag);
        self.out.push_str(">\n");
    }

    /// An error event definition that catches `error` (any if `None`).
    fn catch_error(&mut self, error: Option<&str>, code: Option<Str>, message: Option<Str>) {
        // Camunda reads the variables that receive the error from the
        // event definition, not from the event.
        self.out.push_str("<errorEventDefinition");
        if let Some(e) = error {
            self.out.push_str(" errorRef=\"");
            self.out.push_str(e);
            self.out.push('"');
        }
        for (attr, var) in [
            ("camunda:errorCodeVariable", code),
            ("camunda:errorMessageVariable", message),
        ] {
            if let Some(v) = var {
                self.out.push(' ');
                self.out.push_str(attr);
                self.out.push_str("=\"");
                push_xml_attr(&mut self.out, self.text.get(v));
                self.out.push('"');
            }
        }
        self.out.push_str("/>");
    }

    fn error_ref(&mut self, error: Option<&str>) {
        if let Some(e) = error {
            self.out.push_str("<errorEventDefinition errorRef=\"");
            self.out.push_str(e);
            self.out.push_str("\"/>");
        }
    }

    fn plane(&mut self, plane: &Plane, depth: usize) {
        let adj = plane.adjacency();
        for i in 0..plane.nodes.len() {
            self.spill();
            self.node(plane, adj, i, depth);
        }
        for k in 0..plane.flows.len() {
            self.spill();
            self.sequence_flow(plane, k, depth);
        }
    }

    fn sequence_flow(&mut self, plane: &Plane, k: usize, depth: usize) {
        let f = &plane.flows[k];
        self.indent(depth);
        self.out.push_str("<sequenceFlow id=\"");
        self.flow_id(plane, k);
        self.out.push('"');
        if !f.name.is_empty() {
            self.out.push_str(" name=\"");
            push_xml_attr(&mut self.out, f.name);
            self.out.push('"');
        }
        self.out.push_str(" sourceRef=\"");
        self.node_id(plane, f.from());
        self.out.push_str("\" targetRef=\"");
        self.node_id(plane, f.to());
        match &f.condition {
            None => self.out.push_str("\"/>\n"),
            Some(c) => {
                self.out
                    .push_str("\"><conditionExpression xsi:type=\"bpmn:tFormalExpression\">");
                push_xml_text(&mut self.out, self.text.get(*c));
                self.out.push_str("</conditionExpression></sequenceFlow>\n");
            }
        }
    }

    fn node(&mut self, plane: &Plane, adj: &Adjacency, i: usize, depth: usize) {
        let n = &plane.nodes[i];
        let (id, name) = (self.text.get(n.id), self.text.get(n.name));
        match &n.kind {
            Kind::Start(error) => {
                self.open(depth, "startEvent", id, name);
                if error.is_some() {
                    self.out.push_str(" isInterrupting=\"true\"");
                }
                if depth == 0 && error.is_none() {
                    // The caller gets the process instance at once; the plan runs in the job executor.
                    self.out.push_str(" camunda:asyncAfter=\"true\"");
                }
                self.out.push('>');
                self.flows(plane, adj, i);
                self.error_ref(*error);
                self.close("startEvent");
            }
            Kind::ErrorStart {
                error,
                code,
                message,
            } => {
                self.open(depth, "startEvent", id, name);
                self.out.push_str(" isInterrupting=\"true\">");
                self.flows(plane, adj, i);
                self.catch_error(*error, *code, *message);
                self.close("startEvent");
            }
            Kind::End(error) => {
                self.open(depth, "endEvent", id, name);
                self.out.push('>');
                self.flows(plane, adj, i);
                self.error_ref(*error);
                self.close("endEvent");
            }
            Kind::Xor(default) => {
                self.open(depth, "exclusiveGateway", id, name);
                if let Some(f) = default {
                    self.out.push_str(" default=\"");
                    self.flow_id(plane, *f as usize);
                    self.out.push('"');
                }
                self.out.push('>');
                self.flows(plane, adj, i);
                self.close("exclusiveGateway");
            }
            Kind::And => {
                self.open(depth, "parallelGateway", id, name);
                self.out.push('>');
                self.flows(plane, adj, i);
                self.close("parallelGateway");
            }
            Kind::Compensate => {
                self.open(depth, "intermediateThrowEvent", id, name);
                self.out.push('>');
                self.flows(plane, adj, i);
                self.out
                    .push_str("<compensateEventDefinition waitForCompletion=\"true\"/>");
                self.close("intermediateThrowEvent");
            }
            Kind::Marker => {
                self.open(depth, "intermediateThrowEvent", id, name);
                self.out.push('>');
                self.flows(plane, adj, i);
                self.close("intermediateThrowEvent");
            }
            Kind::Boundary {
                host,
                error,
                code,
                message,
                ..
            } => {
                self.open(depth, "boundaryEvent", id, name);
                self.out.push_str(" attachedToRef=\"");
                self.node_id(plane, *host as usize);
                self.out.push_str("\" cancelActivity=\"true\"");
                self.out.push('>');
                self.flows(plane, adj, i);
                if *error {
                    self.catch_error(None, *code, *message);
                } else {
                    self.out.push_str("<compensateEventDefinition/>");
                }
                self.close("boundaryEvent");
            }
            Kind::Script(s) => self.script_task(plane, adj, i, s, depth),
            Kind::Http(h) => self.service_task(plane, adj, i, h, depth),
            Kind::Call(c) => self.call_activity(plane, adj, i, c, depth),
            Kind::Sub(sub) => self.sub_process(plane, adj, i, sub, None, depth),
            Kind::Deferred(key) => self.deferred(plane, adj, i, *key, depth),
        }
    }

    /// A parameter value: text, an inline script, or a shared one.
    fn value(&mut self, v: &Value) {
        match v {
            Value::Text(t) => push_xml_text(&mut self.out, self.text.get(*t)),
            Value::Groovy(body) => {
                self.out
                    .push_str("<camunda:script scriptFormat=\"groovy\">");
                let out = &mut self.out;
                self.lib
                    .inline(self.text.get(*body), |piece| push_xml_text(out, piece));
                self.out.push_str("</camunda:script>");
            }
            Value::Later(_) => self.fail(Error::Internal(
                "BPMN writer: a deferred script as a parameter value".into(),
            )),
            Value::Shared(s) => {
                self.out
                    .push_str("<camunda:script scriptFormat=\"groovy\" resource=\"");
                self.used.mark(*s, &*self.properties).write(&mut self.out);
                self.out.push_str("\"/>");
            }
        }
    }

    /// One parameter line of an input/output mapping.
    fn parameter(&mut self, depth: usize, kind: &str, name: Str, v: &Value) {
        self.indent(depth);
        self.out.push_str("<camunda:");
        self.out.push_str(kind);
        self.out.push_str(" name=\"");
        push_xml_attr(&mut self.out, self.text.get(name));
        self.out.push_str("\">");
        self.value(v);
        self.out.push_str("</camunda:");
        self.out.push_str(kind);
        self.out.push_str(">\n");
    }

    /// A connector input parameter with a fixed name.
    fn value_parameter(&mut self, depth: usize, name: &str, v: &Value) {
        self.indent(depth);
        self.out.push_str("<camunda:inputParameter name=\"");
        self.out.push_str(name);
        self.out.push_str("\">");
        self.value(v);
        self.out.push_str("</camunda:inputParameter>\n");
    }

    /// `<extensionElements><camunda:inputOutput>` with inputs and outputs,
    /// the parameters one per line.
    fn input_output(&mut self, depth: usize, inputs: &[(Str, Value)], outputs: &[(Str, Value)]) {
        self.out.push_str("<extensionElements>");
        self.mappings(depth, inputs, outputs);
        self.out.push_str("</extensionElements>");
    }

    /// `camunda:inputOutput`, inside `extensionElements`.
    fn mappings(&mut self, depth: usize, inputs: &[(Str, Value)], outputs: &[(Str, Value)]) {
        self.out.push_str("<camunda:inputOutput>\n");
        for (n, v) in inputs {
            self.parameter(depth + 1, "inputParameter", *n, v);
        }
        for (n, v) in outputs {
            self.parameter(depth + 1, "outputParameter", *n, v);
        }
        self.indent(depth);
        self.out.push_str("</camunda:inputOutput>");
    }

    /// Execution listeners that write the start and the end of the
    /// element into the plan instance's log, inside `extensionElements`.
    fn plan_log(&mut self) {
        for event in ["start", "end"] {
            self.out.push_str("<camunda:executionListener event=\"");
            self.out.push_str(event);
            self.out
                .push_str("\"><camunda:script scriptFormat=\"groovy\" resource=\"");
            self.used
                .mark(Shared::PlanLog, &*self.properties)
                .write(&mut self.out);
            self.out.push_str("\"/></camunda:executionListener>");
        }
    }

    fn script_task(&mut self, plane: &Plane, adj: &Adjacency, i: usize, s: &Script, depth: usize) {
        let n = &plane.nodes[i];
        let (id, name) = (self.text.get(n.id), self.text.get(n.name));
        self.open(depth, "scriptTask", id, name);
        self.out.push_str(" scriptFormat=\"groovy\"");
        match &s.script {
            Value::Shared(shared) => {
                self.out.push_str(" camunda:resource=\"");
                self.used
                    .mark(*shared, &*self.properties)
                    .write(&mut self.out);
                self.out.push_str("\">");
                if !s.locals.is_empty() {
                    self.input_output(depth, &s.locals, &[]);
                }
                self.flows(plane, adj, i);
            }
            Value::Groovy(_) | Value::Later(_) => {
                self.out.push('>');
                if !s.locals.is_empty() {
                    self.input_output(depth, &s.locals, &[]);
                }
                self.flows(plane, adj, i);
                self.out.push_str("<script>");
                let mut built = String::new();
                let body = match &s.script {
                    Value::Later(key) => match self.pending.as_mut() {
                        Some(p) => {
                            p.builder.script(*key as usize, &mut built);
                            built.as_str()
                        }
                        None => {
                            self.fail(Error::Internal(
                                "BPMN writer: a deferred script inside a deferred subprocess"
                                    .into(),
                            ));
                            ""
                        }
                    },
                    Value::Groovy(body) => self.text.get(*body),
                    _ => "",
                };
                let out = &mut self.out;
                self.lib.inline(body, |piece| push_xml_text(out, piece));
                self.out.push_str("</script>");
            }
            Value::Text(t) => {
                // A one-line Groovy script given as text.
                self.out.push('>');
                self.flows(plane, adj, i);
                self.out.push_str("<script>");
                push_xml_text(&mut self.out, self.text.get(*t));
                self.out.push_str("</script>");
            }
        }
        self.close("scriptTask");
    }

    fn service_task(&mut self, plane: &Plane, adj: &Adjacency, i: usize, h: &Http, depth: usize) {
        let n = &plane.nodes[i];
        let (id, name) = (self.text.get(n.id), self.text.get(n.name));
        self.open(depth, "serviceTask", id, name);
        self.out.push_str(
            "><extensionElements><camunda:connector><camunda:connectorId>http-connector</camunda:connectorId><camunda:inputOutput>\n",
        );
        let d = depth + 1;
        self.indent(d);
        self.out
            .push_str("<camunda:inputParameter name=\"method\">");
        self.out.push_str(h.method);
        self.out.push_str("</camunda:inputParameter>\n");
        self.value_parameter(d, "url", &h.url);
        self.indent(d);
        self.out.push_str(
            "<camunda:inputParameter name=\"headers\"><camunda:map><camunda:entry key=\"Accept\">",
        );
        self.out.push_str(h.accept);
        self.out.push_str("</camunda:entry>");
        if let Some(ct) = h.content_type {
            self.out.push_str("<camunda:entry key=\"Content-Type\">");
            self.out.push_str(ct);
            self.out.push_str("</camunda:entry>");
        }
        self.out
            .push_str("</camunda:map></camunda:inputParameter>\n");
        if let Some(p) = &h.payload {
            self.value_parameter(d, "payload", p);
        }
        for (name, v) in &h.outputs {
            self.parameter(d, "outputParameter", *name, v);
        }
        self.indent(depth);
        self.out
            .push_str("</camunda:inputOutput></camunda:connector></extensionElements>");
        self.flows(plane, adj, i);
        self.close("serviceTask");
    }

    /// A call activity: the reusable process of the plan's own deployment,
    /// with its variables passed in and out.
    fn call_activity(&mut self, plane: &Plane, adj: &Adjacency, i: usize, c: &Call, depth: usize) {
        let n = &plane.nodes[i];
        let (id, name) = (self.text.get(n.id), self.text.get(n.name));
        self.open(depth, "callActivity", id, name);
        self.out.push_str(" calledElement=\"");
        self.out.push_str(c.process);
        self.out
            .push_str("\" camunda:calledElementBinding=\"deployment\"><extensionElements>");
        for (to, from) in &c.ins {
            let (attr, value) = match from {
                In::Var(v) => ("source", v),
                In::Expr(e) => ("sourceExpression", e),
            };
            self.out.push_str("<camunda:in ");
            self.out.push_str(attr);
            self.out.push_str("=\"");
            push_xml_attr(&mut self.out, self.text.get(*value));
            self.out.push_str("\" target=\"");
            push_xml_attr(&mut self.out, self.text.get(*to));
            self.out.push_str("\"/>");
        }
        for (from, to) in &c.outs {
            self.out.push_str("<camunda:out source=\"");
            self.out.push_str(from);
            self.out.push_str("\" target=\"");
            push_xml_attr(&mut self.out, self.text.get(*to));
            self.out.push_str("\"/>");
        }
        if !c.locals.is_empty() {
            self.mappings(depth, &c.locals, &[]);
        }
        self.out.push_str("</extensionElements>");
        self.flows(plane, adj, i);
        self.close("callActivity");
    }

    /// Subprocess `i` of `plane`; its content's text is `inner` if it is
    /// not in this writer's (a deferred one).
    fn sub_process(
        &mut self,
        plane: &Plane,
        adj: &Adjacency,
        i: usize,
        sub: &Sub,
        inner: Option<&Text>,
        depth: usize,
    ) {
        let n = &plane.nodes[i];
        let (id, name) = (self.text.get(n.id), self.text.get(n.name));
        self.open(depth, "subProcess", id, name);
        self.out.push_str(match sub.repeat {
            Repeat::Once => ">",
            Repeat::Compensation => " isForCompensation=\"true\">",
            Repeat::OnError => " triggeredByEvent=\"true\">",
        });
        let mapped = !sub.locals.is_empty() || !sub.outputs.is_empty();
        if sub.logged || mapped {
            self.out.push_str("<extensionElements>");
            if sub.logged {
                self.plan_log();
            }
            if mapped {
                self.in_text(inner, |w| w.mappings(depth, &sub.locals, &sub.outputs));
            }
            self.out.push_str("</extensionElements>");
        }
        self.flows(plane, adj, i);
        self.out.push('\n');
        self.in_text(inner, |w| w.plane(&sub.plane, depth + 1));
        self.indent(depth);
        self.close("subProcess");
    }

    /// A deferred subprocess: built now, written as any other, its
    /// associations kept for the end of the process and its diagrams set
    /// aside for after the process's own; then dropped.
    fn deferred(&mut self, plane: &Plane, adj: &Adjacency, i: usize, key: usize, depth: usize) {
        let Some(pending) = self.pending.as_mut() else {
            return self.fail(Error::Internal(
                "BPMN writer: a deferred subprocess inside another".into(),
            ));
        };
        let mut text = std::mem::take(&mut pending.text);
        text.clear();
        let sub = match pending.builder.build(key, &mut text, self.properties) {
            Ok(sub) => sub,
            Err(e) => return self.fail(e),
        };
        self.sub_process(plane, adj, i, &sub, Some(&text), depth);
        let before = std::mem::take(&mut self.out);
        self.in_text(Some(&text), |w| w.associations(&sub.plane));
        let associations = std::mem::replace(&mut self.out, before);
        let outer = self.text;
        let diagrams = match layout::layout(&text, outer.get(plane.nodes[i].id), &sub.plane) {
            Ok(d) => d,
            Err(e) => return self.fail(e),
        };
        let Some(pending) = self.pending.as_mut() else {
            return;
        };
        if !associations.is_empty() {
            let pushed = match &mut pending.associations {
                Associations::Writing(a) => a.push(&associations),
                _ => Err(Error::Internal(
                    "BPMN writer: associations set aside after the process".into(),
                )),
            };
            pending
                .association_pieces
                .push_back((key, associations.len()));
            if let Err(e) = pushed {
                return self.fail(e);
            }
        }
        let mut out = std::mem::take(&mut pending.diagrams);
        out.clear();
        for d in &diagrams {
            diagram(&mut out, &text, d, &mut |_| {});
        }
        let pushed = pending.aside.push(&out);
        pending.pieces.push((key, out.len()));
        pending.diagrams = out;
        drop(diagrams);
        pending.text = text;
        if let Err(e) = pushed {
            self.fail(e);
        }
    }

    /// The associations of a plane and every plane nested in it, depth first.
    fn associations(&mut self, plane: &Plane) {
        for a in &plane.associations {
            self.spill();
            self.out.push_str("<association id=\"");
            self.out.push_str(self.text.get(a.id));
            self.out
                .push_str("\" associationDirection=\"One\" sourceRef=\"");
            self.node_id(plane, a.from);
            self.out.push_str("\" targetRef=\"");
            self.node_id(plane, a.to);
            self.out.push_str("\"/>\n");
        }
        for n in &plane.nodes {
            match &n.kind {
                Kind::Sub(s) => self.associations(&s.plane),
                Kind::Deferred(key) => {
                    let Some(p) = self.pending.as_mut() else {
                        continue;
                    };
                    let Some(&(_, len)) = p.association_pieces.front().filter(|(k, _)| k == key)
                    else {
                        continue;
                    };
                    p.association_pieces.pop_front();
                    let read = match &mut p.associations {
                        Associations::Reading(r) => {
                            spill(&mut self.out, self.sink, &mut self.failed);
                            r.next_into(len, &mut self.out)
                        }
                        _ => Err(Error::Internal(
                            "BPMN writer: associations read before they are all set aside".into(),
                        )),
                    };
                    if let Err(e) = read {
                        self.fail(e);
                    }
                }
                _ => {}
            }
        }
    }

    fn diagram(&mut self, d: &Diagram) {
        let (sink, failed) = (&mut *self.sink, &mut self.failed);
        diagram(&mut self.out, self.text, d, &mut |o| spill(o, sink, failed));
    }
}

/// Hand `out` on to `sink` once a chunk has collected in it; an error is
/// kept in `failed`, and what follows it dropped.
fn spill(out: &mut String, sink: &mut PlanOutput, failed: &mut Option<Error>) {
    if out.len() >= CHUNK {
        if failed.is_none()
            && let Err(e) = sink.write(out)
        {
            *failed = Some(e);
        }
        out.clear();
    }
}

/// Write the diagram of one plane into `out`, calling `spill` between
/// elements.
fn diagram(out: &mut String, text: &Text, d: &Diagram, spill: &mut dyn FnMut(&mut String)) {
    out.push_str("<bpmndi:BPMNDiagram id=\"");
    out.push_str(d.element);
    out.push_str("_diagram\"><bpmndi:BPMNPlane id=\"");
    out.push_str(d.element);
    out.push_str("_plane\" bpmnElement=\"");
    out.push_str(d.element);
    out.push_str("\">\n");
    d.each_shape(&mut |s| {
        spill(out);
        out.push_str(" <bpmndi:BPMNShape bpmnElement=\"");
        out.push_str(s.id);
        out.push_str(match s.expanded {
            Some(true) => "\" isExpanded=\"true",
            Some(false) => "\" isExpanded=\"false",
            None => "",
        });
        out.push_str("\"><dc:Bounds x=\"");
        push_int(out, s.bounds.x);
        out.push_str("\" y=\"");
        push_int(out, s.bounds.y);
        out.push_str("\" width=\"");
        push_int(out, s.bounds.w);
        out.push_str("\" height=\"");
        push_int(out, s.bounds.h);
        out.push_str("\"/></bpmndi:BPMNShape>\n");
    });
    d.each_edge(&mut |element, points, (dx, dy)| {
        spill(out);
        out.push_str(" <bpmndi:BPMNEdge bpmnElement=\"");
        match element {
            EdgeOf::Flow(plane, k) => plane.flow_id(text, k, out),
            EdgeOf::Association(id) => out.push_str(id),
        }
        out.push_str("\">");
        for &(x, y) in points {
            out.push_str("<di:waypoint x=\"");
            push_int(out, i64::from(x) + dx);
            out.push_str("\" y=\"");
            push_int(out, i64::from(y) + dy);
            out.push_str("\"/>");
        }
        out.push_str("</bpmndi:BPMNEdge>\n");
    });
    out.push_str("</bpmndi:BPMNPlane></bpmndi:BPMNDiagram>\n");
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers() {
        // (Escaping is tested in render/escape.rs.)
        let mut s = String::new();
        for v in [0, 7, -12, 1234567] {
            push_int(&mut s, v);
            s.push(' ');
        }
        assert_eq!(s, "0 7 -12 1234567 ");
    }
}
