//! Writing the BPMN model as XML: the document skeleton and the service
//! task come from `templates/bpmn/`, flow nodes and diagram elements are
//! written here. Groovy scripts get the helpers of
//! `templates/bpmn/scripts/prelude.groovy` they use, and no others.

use std::fmt::Write as _;

use serde::Serialize;

use super::graph::{Adjacency, Flow, Kind, Node, Plane, Repeat, Sub};
use super::layout::Diagram;
use crate::error::Result;
use crate::render::PlanParameter;
use crate::render::templates::{Templates, indent};

/// Escape text for XML content and attributes.
pub fn escape(s: &str) -> String {
    crate::render::templates::xml_escape(s)
}

/// Escape element content (scripts stay readable: quotes are left alone).
fn text(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
}

/// What the document template needs.
pub struct Document<'a> {
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
    /// The process plane.
    pub plane: &'a Plane,
    /// Its diagrams.
    pub diagrams: &'a [Diagram],
}

/// The helpers of the prelude, in order: (name, definition).
fn helpers() -> Vec<(String, String)> {
    let mut out: Vec<(String, String)> = Vec::new();
    for line in Templates::raw("bpmn/scripts/prelude.groovy").lines() {
        if let Some(rest) = line.strip_prefix("def ") {
            let name: String = rest
                .chars()
                .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
                .collect();
            out.push((name, format!("{line}\n")));
        } else if let Some(last) = out.last_mut() {
            last.1.push_str(line);
            last.1.push('\n');
        }
    }
    out
}

/// Whether `text` calls `name(`.
fn calls(text: &str, name: &str) -> bool {
    let pat = format!("{name}(");
    text.match_indices(&pat).any(|(i, _)| {
        text[..i]
            .chars()
            .next_back()
            .is_none_or(|c| !(c.is_ascii_alphanumeric() || c == '_' || c == '.'))
    })
}

/// A Groovy script with the helpers it needs in front.
pub fn script(body: &str) -> String {
    let all = helpers();
    let mut need = vec![false; all.len()];
    let mut changed = true;
    while changed {
        changed = false;
        for (i, (name, _)) in all.iter().enumerate() {
            if need[i] {
                continue;
            }
            let used = calls(body, name)
                || all
                    .iter()
                    .zip(&need)
                    .any(|((_, def), n)| *n && calls(def, name));
            if used {
                need[i] = true;
                changed = true;
            }
        }
    }
    let mut out = String::new();
    for ((_, def), n) in all.iter().zip(&need) {
        if *n {
            out.push_str(def);
        }
    }
    out.push_str(body);
    out
}

fn groovy(body: &str) -> String {
    format!(
        "<camunda:script scriptFormat=\"groovy\">{}</camunda:script>",
        text(script(body).trim_end())
    )
}

/// Write the whole document.
pub fn write(templates: &Templates, doc: &Document) -> Result<String> {
    let mut body = String::new();
    write_plane(templates, doc.plane, &mut body)?;
    // Associations are artifacts of the process: linters and modelers look
    // for compensation handlers there, whatever plane the events are in.
    write_associations(doc.plane, &mut body);
    let mut diagrams = String::new();
    for d in doc.diagrams {
        write_diagram(d, &mut diagrams);
    }
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
        body: String,
        diagrams: String,
    }
    templates.render(
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
            body: indent(&body, 4),
            diagrams,
        },
    )
}

/// The associations of a plane and every plane nested in it, depth first.
fn write_associations(plane: &Plane, out: &mut String) {
    for a in &plane.associations {
        let _ = writeln!(
            out,
            "<bpmn:association id=\"{}\" associationDirection=\"One\" sourceRef=\"{}\" targetRef=\"{}\"/>",
            a.id,
            plane.id(a.from),
            plane.id(a.to)
        );
    }
    for n in &plane.nodes {
        if let Kind::Sub(s) = &n.kind {
            write_associations(&s.plane, out);
        }
    }
}

fn flows_of(plane: &Plane, adj: &Adjacency, i: usize) -> String {
    let mut s = String::new();
    for &f in adj.incoming(i) {
        let _ = writeln!(s, "  <bpmn:incoming>{}</bpmn:incoming>", plane.flows[f].id);
    }
    for &f in adj.outgoing(i) {
        let _ = writeln!(s, "  <bpmn:outgoing>{}</bpmn:outgoing>", plane.flows[f].id);
    }
    s
}

fn name_attr(name: &str) -> String {
    if name.is_empty() {
        String::new()
    } else {
        format!(" name=\"{}\"", escape(name))
    }
}

fn error_ref(error: &Option<&str>) -> String {
    match error {
        Some(e) => format!("  <bpmn:errorEventDefinition errorRef=\"{e}\"/>\n"),
        None => String::new(),
    }
}

fn write_plane(templates: &Templates, plane: &Plane, out: &mut String) -> Result<()> {
    let adj = plane.adjacency();
    for (i, n) in plane.nodes.iter().enumerate() {
        write_node(templates, plane, &adj, i, n, out)?;
    }
    for f in &plane.flows {
        write_flow(plane, f, out);
    }
    Ok(())
}

fn write_flow(plane: &Plane, f: &Flow, out: &mut String) {
    match &f.condition {
        None => {
            let _ = writeln!(
                out,
                "<bpmn:sequenceFlow id=\"{}\"{} sourceRef=\"{}\" targetRef=\"{}\"/>",
                f.id,
                name_attr(f.name),
                plane.id(f.from),
                plane.id(f.to)
            );
        }
        Some(c) => {
            let _ = writeln!(
                out,
                "<bpmn:sequenceFlow id=\"{}\"{} sourceRef=\"{}\" targetRef=\"{}\">\n  <bpmn:conditionExpression xsi:type=\"bpmn:tFormalExpression\">{}</bpmn:conditionExpression>\n</bpmn:sequenceFlow>",
                f.id,
                name_attr(f.name),
                plane.id(f.from),
                plane.id(f.to),
                text(c)
            );
        }
    }
}

fn write_node(
    templates: &Templates,
    plane: &Plane,
    adj: &Adjacency,
    i: usize,
    n: &Node,
    out: &mut String,
) -> Result<()> {
    let id = &n.id;
    let name = name_attr(&n.name);
    let flows = flows_of(plane, adj, i);
    match &n.kind {
        Kind::Start(error) => {
            let async_after = if id == "plan_start" {
                // The caller gets the process instance at once; the plan runs in the job executor.
                " camunda:asyncAfter=\"true\""
            } else {
                ""
            };
            let interrupting = if error.is_some() {
                " isInterrupting=\"true\""
            } else {
                ""
            };
            let _ = write!(
                out,
                "<bpmn:startEvent id=\"{id}\"{name}{interrupting}{async_after}>\n{flows}{}</bpmn:startEvent>\n",
                error_ref(error)
            );
        }
        Kind::End(error) => {
            let _ = write!(
                out,
                "<bpmn:endEvent id=\"{id}\"{name}>\n{flows}{}</bpmn:endEvent>\n",
                error_ref(error)
            );
        }
        Kind::Xor(default) => {
            let d = default
                .as_ref()
                .map(|&f| format!(" default=\"{}\"", plane.flows[f].id))
                .unwrap_or_default();
            let _ = write!(
                out,
                "<bpmn:exclusiveGateway id=\"{id}\"{name}{d}>\n{flows}</bpmn:exclusiveGateway>\n"
            );
        }
        Kind::And => {
            let _ = write!(
                out,
                "<bpmn:parallelGateway id=\"{id}\"{name}>\n{flows}</bpmn:parallelGateway>\n"
            );
        }
        Kind::Timer(duration) => {
            let _ = write!(
                out,
                "<bpmn:intermediateCatchEvent id=\"{id}\"{name}>\n{flows}  <bpmn:timerEventDefinition>\n    <bpmn:timeDuration xsi:type=\"bpmn:tFormalExpression\">{duration}</bpmn:timeDuration>\n  </bpmn:timerEventDefinition>\n</bpmn:intermediateCatchEvent>\n"
            );
        }
        Kind::Compensate => {
            let _ = write!(
                out,
                "<bpmn:intermediateThrowEvent id=\"{id}\"{name}>\n{flows}  <bpmn:compensateEventDefinition waitForCompletion=\"true\"/>\n</bpmn:intermediateThrowEvent>\n"
            );
        }
        Kind::Boundary { host, error } => {
            let host = plane.id(*host);
            let def = if *error {
                "  <bpmn:errorEventDefinition/>\n"
            } else {
                "  <bpmn:compensateEventDefinition/>\n"
            };
            let vars = if *error && id == "plan_catch" {
                " camunda:errorCodeVariable=\"failedCode\" camunda:errorMessageVariable=\"failureMessage\""
            } else {
                ""
            };
            let _ = write!(
                out,
                "<bpmn:boundaryEvent id=\"{id}\"{name} attachedToRef=\"{host}\" cancelActivity=\"true\"{vars}>\n{flows}{def}</bpmn:boundaryEvent>\n"
            );
        }
        Kind::Script(body) => {
            let _ = write!(
                out,
                "<bpmn:scriptTask id=\"{id}\"{name} scriptFormat=\"groovy\">\n{flows}  <bpmn:script>{}</bpmn:script>\n</bpmn:scriptTask>\n",
                text(script(body).trim_end())
            );
        }
        Kind::Http(h) => {
            #[derive(Serialize)]
            struct Param {
                name: String,
                script: String,
            }
            #[derive(Serialize)]
            struct Task<'a> {
                id: &'a str,
                name: &'a str,
                method: &'a str,
                url: String,
                accept: &'a str,
                content_type: Option<&'a str>,
                payload: Option<String>,
                outputs: Vec<Param>,
                flows: &'a str,
            }
            let task = Task {
                id,
                name: &name,
                method: h.method,
                url: groovy(&h.url),
                accept: h.accept,
                content_type: h.content_type,
                payload: h.payload.as_deref().map(groovy),
                outputs: h
                    .outputs
                    .iter()
                    .map(|(n, s)| Param {
                        name: escape(n),
                        script: groovy(s),
                    })
                    .collect(),
                flows: &flows,
            };
            out.push_str(&templates.render("bpmn/http-task.bpmn", &task)?);
        }
        Kind::Sub(sub) => write_sub(templates, id, &name, &flows, sub, out)?,
    }
    Ok(())
}

fn write_sub(
    templates: &Templates,
    id: &str,
    name: &str,
    flows: &str,
    sub: &Sub,
    out: &mut String,
) -> Result<()> {
    let attrs = match sub.repeat {
        Repeat::Once => "",
        Repeat::Compensation => " isForCompensation=\"true\"",
        Repeat::OnError => " triggeredByEvent=\"true\"",
    };
    let _ = writeln!(out, "<bpmn:subProcess id=\"{id}\"{name}{attrs}>");
    if !sub.locals.is_empty() || !sub.outputs.is_empty() {
        out.push_str("  <bpmn:extensionElements>\n    <camunda:inputOutput>\n");
        for (n, s) in &sub.locals {
            let _ = writeln!(
                out,
                "      <camunda:inputParameter name=\"{}\">{}</camunda:inputParameter>",
                escape(n),
                groovy(s)
            );
        }
        for (n, s) in &sub.outputs {
            let _ = writeln!(
                out,
                "      <camunda:outputParameter name=\"{}\">{}</camunda:outputParameter>",
                escape(n),
                groovy(s)
            );
        }
        out.push_str("    </camunda:inputOutput>\n  </bpmn:extensionElements>\n");
    }
    out.push_str(flows);
    let mut inner = String::new();
    write_plane(templates, &sub.plane, &mut inner)?;
    out.push_str(&indent(&inner, 2));
    out.push_str("</bpmn:subProcess>\n");
    Ok(())
}

fn write_diagram(d: &Diagram, out: &mut String) {
    let _ = writeln!(
        out,
        "  <bpmndi:BPMNDiagram id=\"{0}_diagram\">\n    <bpmndi:BPMNPlane id=\"{0}_plane\" bpmnElement=\"{0}\">",
        d.element
    );
    for s in &d.shapes {
        let expanded = match s.expanded {
            Some(true) => " isExpanded=\"true\"",
            Some(false) => " isExpanded=\"false\"",
            None => "",
        };
        let b = s.bounds;
        let _ = writeln!(
            out,
            "      <bpmndi:BPMNShape id=\"{0}_di\" bpmnElement=\"{0}\"{expanded}>\n        <dc:Bounds x=\"{1}\" y=\"{2}\" width=\"{3}\" height=\"{4}\"/>\n      </bpmndi:BPMNShape>",
            s.id, b.x, b.y, b.w, b.h
        );
    }
    for e in &d.edges {
        let _ = writeln!(
            out,
            "      <bpmndi:BPMNEdge id=\"{}_di\" bpmnElement=\"{}\">",
            e.id, e.id
        );
        for (x, y) in &e.points {
            let _ = writeln!(out, "        <di:waypoint x=\"{x}\" y=\"{y}\"/>");
        }
        out.push_str("      </bpmndi:BPMNEdge>\n");
    }
    out.push_str("    </bpmndi:BPMNPlane>\n  </bpmndi:BPMNDiagram>\n");
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scripts_get_only_the_helpers_they_use() {
        let s = script("check('t')");
        assert!(s.contains("def check"));
        assert!(s.contains("def fail"), "check needs fail");
        assert!(!s.contains("def jstr"));
        assert!(calls("x(1)", "x"));
        assert!(!calls("max(1)", "x"));
    }
}
