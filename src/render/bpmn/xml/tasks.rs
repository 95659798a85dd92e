//! Tasks and their Camunda extensions as XML: script tasks, service
//! tasks with the `http-connector`, call activities, and the input and
//! output parameters and execution listeners they carry.
//!
//! In: a node of the model. Out: its element, written by the [`Writer`].

use super::Writer;
use crate::error::Error;
use crate::names::escape::{push_xml_attr, push_xml_text};
use crate::render::bpmn::graph::{Adjacency, Call, Http, In, Plane, Script, Str, Value};
use crate::render::bpmn::scripts::Shared;

impl Writer<'_> {
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
    pub(super) fn mappings(
        &mut self,
        depth: usize,
        inputs: &[(Str, Value)],
        outputs: &[(Str, Value)],
    ) {
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
    pub(super) fn plan_log(&mut self) {
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

    /// A script task: an inline script, or a shared one with its locals.
    pub(super) fn script_task(
        &mut self,
        plane: &Plane,
        adj: &Adjacency,
        i: usize,
        s: &Script,
        depth: usize,
    ) {
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

    /// A service task calling a REST API through the `http-connector`.
    pub(super) fn service_task(
        &mut self,
        plane: &Plane,
        adj: &Adjacency,
        i: usize,
        h: &Http,
        depth: usize,
    ) {
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
    pub(super) fn call_activity(
        &mut self,
        plane: &Plane,
        adj: &Adjacency,
        i: usize,
        c: &Call,
        depth: usize,
    ) {
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
            let (attr, value) = match from {
                In::Var(v) => ("source", v),
                In::Expr(e) => ("sourceExpression", e),
            };
            self.out.push_str("<camunda:out ");
            self.out.push_str(attr);
            self.out.push_str("=\"");
            push_xml_attr(&mut self.out, self.text.get(*value));
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
}
