//! Previews: the topology and plan graphs as Graphviz DOT or JSON.
//!
//! DOT ids are the activity ids (the BPEL scope names), so a picture, the
//! JSON and the generated plans can be read side by side. Output is
//! deterministic: activities in plan order, edges sorted.

use foldhash::HashMap;
use std::fmt::Write;

use crate::model::{RelKind, TemplateRef, Topology};
use crate::plan::Reason;
use crate::plugins::ConcretePlan;
use crate::plugins::steps::Step;

fn quote(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// The operations an activity invokes, as `interface/operation`.
pub fn operations(plan: &ConcretePlan, activity: usize) -> Vec<String> {
    invoked(&plan.bodies[activity].steps)
}

/// The operations that undo an activity when the plan fails after it.
fn compensation(plan: &ConcretePlan, activity: usize) -> Vec<String> {
    invoked(&plan.bodies[activity].compensation)
}

fn invoked(steps: &[Step]) -> Vec<String> {
    steps
        .iter()
        .filter_map(Step::invocation)
        .map(|i| format!("{}/{}", i.interface, i.operation))
        .collect()
}

/// A plan as DOT: one node per activity (template and activity kind; the
/// box of one that does nothing dashed), one edge per ordering constraint,
/// labelled with its reason.
pub fn plan_dot(plan: &ConcretePlan, topology: &Topology) -> String {
    let p = &plan.plan;
    let mut out = String::new();
    let _ = writeln!(out, "digraph {} {{", quote(&p.kind.slug()));
    let _ = writeln!(out, "  rankdir=TB;");
    let _ = writeln!(
        out,
        "  node [shape=box, style=\"rounded,filled\", fillcolor=white, fontname=\"Helvetica\"];"
    );
    let _ = writeln!(out, "  edge [fontname=\"Helvetica\", fontsize=10];");
    for (i, a) in p.activities.iter().enumerate() {
        let template = topology.template_id(a.template);
        let ops = operations(plan, i);
        let mut label = format!("{template}\n{}", a.kind.name());
        for op in &ops {
            label.push('\n');
            label.push_str(op.rsplit('/').next().unwrap_or(op));
        }
        let fill = match a.template {
            TemplateRef::Node(_) => "white",
            TemplateRef::Relationship(_) => "lightgrey",
        };
        // Dashed: the plans keep its place in the order, and nothing more.
        let style = if plan.bodies[i].does_nothing() {
            ", style=\"rounded,filled,dashed\""
        } else {
            ""
        };
        let _ = writeln!(
            out,
            "  {} [label={}, fillcolor={fill}{style}];",
            quote(&a.id),
            quote(&label)
        );
    }
    for e in &p.edges {
        let label = match e.reason {
            Reason::Relationship(r) => {
                let rel = topology.relationship(r);
                format!("{} {}", rel.kind, rel.id)
            }
            Reason::SameHost(h) => format!("same host {}", topology.node(h).id),
            Reason::Selection => "selection".to_string(),
            Reason::Step => "then".to_string(),
            Reason::OnFailure => "on failure".to_string(),
            Reason::Reconnect(n) => format!("reconnect {}", topology.node(n).id),
        };
        let _ = writeln!(
            out,
            "  {} -> {} [label={}];",
            quote(&p.activities[e.from].id),
            quote(&p.activities[e.to].id),
            quote(&label)
        );
    }
    out.push_str("}\n");
    out
}

/// A plan as JSON: `{"plan", "activities": [{"id", "bpmn", "template",
/// "template_kind", "kind", "operations", "compensation",
/// "does_nothing"}], "edges": [[from, to], ...]}`; `template_kind` is
/// `node` or `relationship` (a relationship template may have a node
/// template's name); `compensation` lists the operations that undo the
/// activity when the plan fails after it ended; `does_nothing` that the
/// activity has no steps (the plans keep its place in the order, and it
/// writes no plan instance log entries). `bpmn` is the id of the
/// activity's subprocess in the BPMN plan: its id, unless that could meet
/// another element's id there (`render/bpmn/bases.rs`).
/// The activity of a template with a `count` (TOSCA 2.0 §7.2) says how
/// many `representations` it has. A transformation plan adds `"target":
/// {"csar", "service_template",
/// "path"}` (the target's CSAR, `{namespace}id`, and its service
/// template's path below the container's `/csars`), and to each activity
/// of the target's templates `"service_instance": "target"` and
/// `"api_template"`, the id the container knows the template by.
pub fn plan_json(plan: &ConcretePlan, topology: &Topology) -> serde_json::Value {
    let p = &plan.plan;
    let bpmn = crate::render::bpmn::activity_ids(plan, topology);
    let mut representations: HashMap<TemplateRef, usize> = HashMap::default();
    for primary in topology.replicas.values() {
        *representations.entry(*primary).or_insert(1) += 1;
    }
    let activities: Vec<serde_json::Value> = p
        .activities
        .iter()
        .zip(bpmn)
        .enumerate()
        .map(|(i, (a, bpmn))| {
            let mut json = serde_json::json!({
                "id": a.id,
                "bpmn": bpmn,
                "template": topology.template_id(a.template),
                "template_kind": match a.template {
                    TemplateRef::Node(_) => "node",
                    TemplateRef::Relationship(_) => "relationship",
                },
                "kind": a.kind.name(),
                "operations": operations(plan, i),
                "compensation": compensation(plan, i),
                "does_nothing": plan.bodies[i].does_nothing(),
            });
            if let Some(k) = representations.get(&a.template) {
                json["representations"] = (*k).into();
            }
            if topology.is_target(a.template) {
                json["service_instance"] = "target".into();
                json["api_template"] = topology.api_id(a.template).into();
            }
            json
        })
        .collect();
    let edges: Vec<serde_json::Value> = p
        .edges
        .iter()
        .map(|e| serde_json::json!([p.activities[e.from].id, p.activities[e.to].id]))
        .collect();
    let mut json =
        serde_json::json!({ "plan": p.kind.slug(), "activities": activities, "edges": edges });
    if let Some(target) = topology.target.as_deref() {
        json["target"] = serde_json::json!({
            "csar": target.csar,
            "service_template": target.qname(),
            "path": crate::render::side::target_path(target),
        });
    }
    json
}

/// The topology as DOT: node templates and relationships, styled by kind.
pub fn topology_dot(topology: &Topology) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "digraph {} {{", quote(&topology.service_template.id));
    let _ = writeln!(out, "  rankdir=BT;");
    let _ = writeln!(
        out,
        "  node [shape=box, style=rounded, fontname=\"Helvetica\"];"
    );
    let _ = writeln!(out, "  edge [fontname=\"Helvetica\", fontsize=10];");
    for n in &topology.nodes {
        let ty = &topology.types.get(n.type_id).name.name;
        let _ = writeln!(
            out,
            "  {} [label={}];",
            quote(&n.id),
            quote(&format!("{}\n{ty}", n.id))
        );
    }
    for r in &topology.relationships {
        let style = match r.kind {
            RelKind::HostedOn | RelKind::DeployedOn => "solid",
            RelKind::DependsOn | RelKind::AttachesTo => "dashed",
            RelKind::ConnectsTo => "dotted",
            RelKind::Other => "bold",
        };
        let _ = writeln!(
            out,
            "  {} -> {} [label={}, style={style}];",
            quote(&topology.node(r.source).id),
            quote(&topology.node(r.target).id),
            quote(&format!("{} {}", r.kind, r.id))
        );
    }
    out.push_str("}\n");
    out
}

/// The topology as JSON.
pub fn topology_json(topology: &Topology) -> serde_json::Value {
    let nodes: Vec<serde_json::Value> = topology
        .nodes
        .iter()
        .map(|n| serde_json::json!({ "id": n.id, "type": topology.types.get(n.type_id).name.to_string() }))
        .collect();
    let rels: Vec<serde_json::Value> = topology
        .relationships
        .iter()
        .map(|r| {
            serde_json::json!({
                "id": r.id,
                "type": topology.types.get(r.type_id).name.to_string(),
                "kind": r.kind,
                "source": topology.node(r.source).id,
                "target": topology.node(r.target).id,
            })
        })
        .collect();
    serde_json::json!({ "service_template": topology.service_template.id, "nodes": nodes, "relationships": rels })
}
