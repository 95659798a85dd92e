//! Writing the BPMN model as XML. The document skeleton comes from
//! `templates/bpmn/process.bpmn` (tera, once per plan); flow nodes and
//! their Camunda extensions from the fragment files
//! `templates/bpmn/fragments/flow.bpmn` (events, gateways, subprocesses,
//! flows) and `steps.bpmn` (tasks, call activities), whose sections this
//! module and `tasks` pick and fill (as the BPEL backend does its
//! fragments: a plan has tens of thousands of elements, and a tera render
//! per element cost more than everything else together). The diagram,
//! which the layout computes, is written by `diagram`. All of it goes
//! straight into one buffer.
//!
//! The BPMN model namespace is the default namespace; diagram elements
//! keep their usual prefixes. Every element is one line (a service task
//! one line per parameter), indented by one space per subprocess level.
//! Diagram elements carry no ids (they are optional), only the element
//! they draw. Inline Groovy gets the prelude helpers it calls
//! ([`super::scripts::Library::inline`]); shared scripts are referenced
//! with `deployment://<file>` and noted in [`Used`].
//!
//! Tasks and their Camunda extensions are written by `tasks`, the
//! diagrams by `diagram`; this module writes the document, the planes,
//! events, gateways, subprocesses and flows.

mod diagram;
mod tasks;

/// The step fragments of `templates/bpmn/fragments` (the template test
/// checks that every file there is embedded).
#[cfg(test)]
pub(crate) use self::tasks::FRAGMENTS;

use serde::Serialize;

use std::collections::VecDeque;

use self::diagram::diagram;
use super::graph::{Adjacency, Built, Deferred, FlowLog, Kind, Plane, Repeat, Str, Sub, Text};
use super::layout::{self, Diagram};
use super::scripts::{Library, PropertyFiles, Used, library};
use crate::error::{Error, Result};
use crate::names::escape::xml_escape;
use crate::render::output::{Aside, AsideReader, CHUNK, PlanOutput};
use crate::render::rendered::PlanParameter;
use crate::render::templates::Templates;

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
        scratch: Default::default(),
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
    /// Reused for the ` name="…"` of an element and the id of a flow,
    /// which every element has (no allocation each).
    scratch: (String, String),
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
            scratch: std::mem::take(&mut self.scratch),
        };
        let r = f(&mut w);
        let (out, failed) = (w.out, w.failed);
        self.out = out;
        self.failed = failed;
        self.scratch = w.scratch;
        r
    }

    /// Hand on the rest, or the first error.
    fn flush(mut self) -> Result<()> {
        match self.failed.take() {
            Some(e) => Err(e),
            None => self.sink.write(&mut self.out),
        }
    }

    /// Section `section` that opens node `i` of `plane` (`id`, `name_attr`
    /// and `more` filled), indented by `depth`.
    fn open(
        &mut self,
        depth: usize,
        section: &str,
        plane: &Plane,
        i: usize,
        more: Option<(&str, &str)>,
    ) {
        let model = self.text;
        let n = &plane.nodes[i];
        let mut name = std::mem::take(&mut self.scratch.0);
        name.clear();
        tasks::push_name_attr(&mut name, model.get(n.name));
        let (id, name_attr) = (("id", model.get(n.id)), ("name_attr", name.as_str()));
        match more {
            None => self.step(section, Some(depth), &[id, name_attr]),
            Some(m) => self.step(section, Some(depth), &[id, name_attr, m]),
        }
        self.scratch.0 = name;
    }

    /// The id of flow `k` of `plane`.
    fn flow_id(&self, plane: &Plane, k: usize) -> String {
        let mut id = String::new();
        plane.flow_id(self.text, k, &mut id);
        id
    }

    /// The incoming and outgoing flows of node `i`.
    fn flows(&mut self, plane: &Plane, adj: &Adjacency, i: usize) {
        let ins = adj.incoming(i).iter().map(|&f| ("incoming", f));
        let outs = adj.outgoing(i).iter().map(|&f| ("outgoing", f));
        let mut id = std::mem::take(&mut self.scratch.1);
        for (section, f) in ins.chain(outs) {
            id.clear();
            plane.flow_id(self.text, f as usize, &mut id);
            self.step(section, None, &[("flow", &id)]);
        }
        self.scratch.1 = id;
    }

    /// An error event definition that catches `error` (any if `None`).
    fn catch_error(&mut self, error: Option<&str>, code: Option<Str>, message: Option<Str>) {
        // Camunda reads the variables that receive the error from the
        // event definition, not from the event.
        let error_ref = error.map_or(String::new(), |e| format!(" errorRef=\"{e}\""));
        let variable = |attr: &str, v: Option<Str>| {
            v.map_or(String::new(), |v| {
                format!(" camunda:{attr}=\"{}\"", xml_escape(self.text.get(v)))
            })
        };
        let code = variable("errorCodeVariable", code);
        let message = variable("errorMessageVariable", message);
        let values = [
            ("error_ref", error_ref.as_str()),
            ("code_variable", &code),
            ("message_variable", &message),
        ];
        self.step("catches", None, &values);
    }

    fn error_ref(&mut self, error: Option<&str>) {
        if let Some(e) = error {
            self.step("throws", None, &[("error", e)]);
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
        let (mut name, mut id) = std::mem::take(&mut self.scratch);
        name.clear();
        tasks::push_name_attr(&mut name, f.name);
        id.clear();
        plane.flow_id(self.text, k, &mut id);
        let ends = (
            node_id(self.text, plane, f.from()),
            node_id(self.text, plane, f.to()),
        );
        let (source, target) = (("source", ends.0), ("target", ends.1));
        let (id_value, name_attr) = (("id", id.as_str()), ("name_attr", name.as_str()));
        let values = [id_value, name_attr, source, target];
        if f.condition.is_none() && f.log == FlowLog::Nothing {
            self.step("sequence-flow", Some(depth), &values);
        } else {
            self.step("sequence-flow-open", Some(depth), &values);
            if f.log != FlowLog::Nothing {
                self.step("extensions", None, &[]);
                self.plan_log(&["take"]);
                self.step("extensions-end", None, &[]);
            }
            if let Some(c) = f.condition {
                let condition = tasks::text(self.text.get(c));
                self.step("condition", None, &[("condition", &condition)]);
            }
            self.step("sequence-flow-close", None, &[]);
        }
        self.scratch = (name, id);
    }

    fn node(&mut self, plane: &Plane, adj: &Adjacency, i: usize, depth: usize) {
        match &plane.nodes[i].kind {
            Kind::Start(error) => {
                let section = match error {
                    Some(_) => "start-interrupting",
                    // The caller gets the process instance at once; the plan runs in the job executor.
                    None if depth == 0 => "start-async",
                    None => "start",
                };
                self.open(depth, section, plane, i, None);
                self.flows(plane, adj, i);
                self.error_ref(*error);
                self.step("start-close", None, &[]);
            }
            Kind::ErrorStart {
                error,
                code,
                message,
            } => {
                self.open(depth, "start-interrupting", plane, i, None);
                self.flows(plane, adj, i);
                self.catch_error(*error, *code, *message);
                self.step("start-close", None, &[]);
            }
            Kind::End(error) => {
                self.open(depth, "end", plane, i, None);
                self.flows(plane, adj, i);
                self.error_ref(*error);
                self.step("end-close", None, &[]);
            }
            Kind::Xor(default) => {
                match default {
                    Some(f) => {
                        let f = self.flow_id(plane, *f as usize);
                        self.open(depth, "xor-default", plane, i, Some(("default", &f)));
                    }
                    None => self.open(depth, "xor", plane, i, None),
                }
                self.flows(plane, adj, i);
                self.step("xor-close", None, &[]);
            }
            Kind::And => {
                self.open(depth, "and", plane, i, None);
                self.flows(plane, adj, i);
                self.step("and-close", None, &[]);
            }
            Kind::Compensate | Kind::Marker => {
                self.open(depth, "throw", plane, i, None);
                self.flows(plane, adj, i);
                if matches!(plane.nodes[i].kind, Kind::Compensate) {
                    self.step("compensate-all", None, &[]);
                }
                self.step("throw-close", None, &[]);
            }
            Kind::Boundary {
                host,
                error,
                code,
                message,
                ..
            } => {
                let host = node_id(self.text, plane, *host as usize);
                self.open(depth, "boundary", plane, i, Some(("host", host)));
                self.flows(plane, adj, i);
                if *error {
                    self.catch_error(None, *code, *message);
                } else {
                    self.step("compensation", None, &[]);
                }
                self.step("boundary-close", None, &[]);
            }
            Kind::Script(s) => self.script_task(plane, adj, i, s, depth),
            Kind::Http(h) => self.service_task(plane, adj, i, h, depth),
            Kind::Call(c) => self.call_activity(plane, adj, i, c, depth),
            Kind::Sub(sub) => self.sub_process(plane, adj, i, sub, None, depth),
            Kind::Deferred(key) => self.deferred(plane, adj, i, *key, depth),
        }
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
        let section = match sub.repeat {
            Repeat::Once => "subprocess",
            Repeat::Compensation => "subprocess-compensation",
            Repeat::OnError => "subprocess-event",
        };
        self.open(depth, section, plane, i, None);
        let mapped = !sub.locals.is_empty() || !sub.outputs.is_empty();
        if sub.logged || mapped {
            self.step("extensions", None, &[]);
            if sub.logged {
                // Where a flow past a gateway logs the start, the
                // subprocess logs only its end.
                let by_flow = sub.plane.flows.iter().any(|f| f.log == FlowLog::Started);
                self.plan_log(if by_flow { &["end"] } else { &["start", "end"] });
            }
            if mapped {
                self.in_text(inner, |w| w.mappings(depth, &sub.locals, &sub.outputs));
            }
            self.step("extensions-end", None, &[]);
        }
        self.flows(plane, adj, i);
        self.out.push('\n');
        self.in_text(inner, |w| w.plane(&sub.plane, depth + 1));
        self.step("subprocess-close", Some(depth), &[]);
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
            Ok(Built::Sub(sub)) => sub,
            Ok(Built::Call { call, repeat }) => {
                self.call_element(plane, adj, i, &call, repeat, Some(&text), depth);
                return self.no_diagrams(key, text);
            }
            Ok(Built::Nothing { logged }) => {
                self.open(depth, "task", plane, i, None);
                if logged {
                    self.step("extensions", None, &[]);
                    self.plan_log(&["start", "end"]);
                    self.step("extensions-end", None, &[]);
                }
                self.flows(plane, adj, i);
                self.step("task-close", None, &[]);
                return self.no_diagrams(key, text);
            }
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

    /// A deferred node built as no subprocess: no diagrams of its own
    /// where the layout kept a place for them; its text kept for the next.
    fn no_diagrams(&mut self, key: usize, text: Text) {
        let Some(pending) = self.pending.as_mut() else {
            return;
        };
        pending.pieces.push((key, 0));
        pending.text = text;
    }

    /// The associations of a plane and every plane nested in it, depth first.
    fn associations(&mut self, plane: &Plane) {
        for a in &plane.associations {
            self.spill();
            let values = [
                ("id", self.text.get(a.id)),
                ("source", node_id(self.text, plane, a.from)),
                ("target", node_id(self.text, plane, a.to)),
            ];
            self.step("association", None, &values);
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

/// The id of node `i` of a plane.
fn node_id<'t>(text: &'t Text, plane: &Plane, i: usize) -> &'t str {
    text.get(plane.nodes[i].id)
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
