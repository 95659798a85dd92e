//! One activity of a BPEL plan as a `<scope>`: its links (targets with a
//! join condition, sources testing the failure flag of a routed
//! activity), its fault handler (the instance is marked ERROR), its
//! compensation handler, and its steps between two entries in the plan
//! instance's log; a termination activity runs its steps once per live
//! instance. An activity that does nothing is an `<empty>` with its links.
//!
//! In: the plan, its links and failure flags, the [`Ctx`]. Out: the scope
//! (or the `<empty>`), written.

use super::ctx::Ctx;
use super::globals::{iteration_templates, iteration_variables};
use super::links::Adjacency;
use super::steps::{empty_documents, load_properties, steps};
use super::writer::W;
use crate::error::Result;
use crate::model::TemplateRef;
use crate::names::xml_escape;
use crate::plan::Reason;
use crate::plugins::{ActivityBody, ConcretePlan};
use crate::render::paths::url_path;
use crate::render::side::side;

/// One activity as a `<scope>` with its links.
pub(crate) fn activity(
    cx: &Ctx,
    w: &mut W,
    ind: usize,
    plan: &ConcretePlan,
    i: usize,
    edges: &Adjacency,
    failures: &[Option<String>],
) -> Result<()> {
    let failure = failures[i].as_deref();
    let a = &plan.plan.activities[i];
    let body = &plan.bodies[i];
    let name = a.id.as_str();
    // An activity that does nothing (a relationship whose ends' activities
    // register its instance) keeps its place in the order as an `<empty>`:
    // no scope, no fault handler, no log entries (there is nothing to
    // follow). Routed, its links test its flag, which stays 'false'.
    if body.does_nothing() {
        w.put("idle", ind, &[("name", name)])?;
        links(w, ind, plan, i, edges, failure)?;
        return w.put("idle-end", ind, &[]);
    }
    w.put("scope", ind, &[("name", name)])?;
    links(w, ind, plan, i, edges, failure)?;
    // The rest of the scope is written first, apart, so that only the
    // variables it uses are declared before it.
    let head = std::mem::take(&mut w.out);
    // A fault marks the instance ERROR, turns the activity's `started`
    // log entry into `cancelled` and posts it, and goes on to the process.
    // An activity over instances does so in the scope of its iteration,
    // so its own scope has no fault handler: WS-BPEL 2.0's default one
    // (12.5.1: compensate, then rethrow) rethrows the fault the same way,
    // and finds nothing to compensate, as no scope inside an activity has
    // a compensation handler of its own.
    if !body.per_instance {
        let url = cx.names.url(a.template);
        let error = cx.state(crate::plugins::steps::state::ERROR)?;
        w.put("faults", ind, &[("name", name)])?;
        w.put("mark-error", ind, &[("url", url), ("error", error)])?;
        w.put("log-cancelled", ind + 8, &[])?;
        w.put("faults-end", ind, &[("name", name)])?;
    }
    if !body.compensation.is_empty() {
        w.put("undo", ind, &[("name", name)])?;
        steps(cx, w, ind + 6, &body.compensation, name, "c", a.template)?;
        w.put("undo-end", ind, &[])?;
    }
    let (open, close, inner) = match failure {
        Some(_) => ("try", "try-end", ind + 6),
        None => ("steps", "steps-end", ind + 4),
    };
    w.put(
        open,
        ind,
        &[("name", name), ("flag", failure.unwrap_or(""))],
    )?;
    // The plan instance's log says when the activity starts and ends;
    // the second entry only replaces the text of the first.
    let log = |w: &mut W, section: &str, event: &str, what: &str| {
        w.put(
            section,
            inner,
            &[("name", name), ("event", event), ("what", what)],
        )
    };
    log(w, "log", "Started", "started")?;
    if body.per_instance {
        // The plan outputs this activity's iterations set, copied out
        // of each (the last instance's stays).
        let collect: Vec<(&str, String)> = plan
            .outputs
            .iter()
            .zip(&cx.collected)
            .filter_map(|((_, b), c)| match c {
                Some((j, var)) if *j == i => Some((var.as_str(), cx.value(b))),
                _ => None,
            })
            .collect();
        each_instance(cx, w, inner, a.template, name, body, &collect)?;
    } else {
        steps(cx, w, inner, &body.steps, name, "s", a.template)?;
    }
    log(w, "log-again", "Finished", "finished")?;
    w.put(close, ind, &[])?;
    w.put("scope-end", ind, &[])?;
    let rest = std::mem::replace(&mut w.out, head);
    declare_used(w, ind, &rest)?;
    w.out.push_str(&rest);
    Ok(())
}

/// The `<targets>` (a join condition where several) and `<sources>` of
/// activity `i`; the links out of an activity whose failure is routed
/// test its flag.
fn links(
    w: &mut W,
    ind: usize,
    plan: &ConcretePlan,
    i: usize,
    edges: &Adjacency,
    failure: Option<&str>,
) -> Result<()> {
    let targets: Vec<String> = edges
        .into(i)
        .iter()
        .map(|&e| edges.link_name(plan, e))
        .collect();
    if !targets.is_empty() {
        w.put("targets", ind, &[])?;
        if targets.len() > 1 {
            let join = targets
                .iter()
                .map(|t| format!("${t}"))
                .collect::<Vec<_>>()
                .join(" and ");
            w.put("join", ind, &[("join", &join)])?;
        }
        for t in &targets {
            w.put("target", ind, &[("link", t)])?;
        }
        w.put("targets-end", ind, &[])?;
    }
    let sources = edges.out_of(i);
    if sources.is_empty() {
        return Ok(());
    }
    w.put("sources", ind, &[])?;
    for &k in sources {
        let link = edges.link_name(plan, k);
        match failure {
            Some(f) => {
                let condition = if plan.plan.edges[k].reason == Reason::OnFailure {
                    format!("${f} = 'true'")
                } else {
                    format!("${f} != 'true'")
                };
                w.put(
                    "source-when",
                    ind,
                    &[("link", &link), ("condition", &condition)],
                )?
            }
            None => w.put("source", ind, &[("link", &link)])?,
        }
    }
    w.put("sources-end", ind, &[])
}

/// The variables of an activity's own, each declared in its scope where
/// `body` (the rest of the scope) uses it, so that parallel activities
/// never share one. The steps of an activity run one after the other
/// (the instances of a termination activity too: its forEach is not
/// parallel), so its steps and invocations share them.
const LOCALS: [(&str, &str); 7] = [
    ("body", "type=\"xsd:anyType\""),
    ("response", "type=\"xsd:anyType\""),
    ("stateRequest", "type=\"xsd:string\""),
    ("log", "type=\"xsd:anyType\""),
    ("message", "messageType=\"tns:callMessage\""),
    ("reply", "messageType=\"inv:invokeResponse\""),
    ("instanceList", "type=\"xsd:anyType\""),
];

/// Declare the [`LOCALS`] that `body` uses. A use is the name in an
/// attribute (`variable="…"`, `request="…"`), an XPath (`$…`) or a URI
/// (`$bpelvar[…]`); what reads like a use is declared, so a variable is
/// never left to the process's variable of the same name by mistake.
fn declare_used(w: &mut W, ind: usize, body: &str) -> Result<()> {
    let uses = used(body);
    let used: Vec<_> = LOCALS
        .iter()
        .zip(uses)
        .filter_map(|(local, used)| used.then_some(local))
        .collect();
    // `<variables>` holds at least one.
    if used.is_empty() {
        return Ok(());
    }
    w.put("variables", ind, &[])?;
    for (name, ty) in used {
        w.put("variable-local", ind, &[("name", name), ("type", ty)])?;
    }
    w.put("variables-end", ind, &[])
}

/// Which of the [`LOCALS`] `body` uses (`"name"`, `$name…`, `[name]`), in
/// one pass over it.
fn used(body: &str) -> [bool; LOCALS.len()] {
    let mut used = [false; LOCALS.len()];
    let bytes = body.as_bytes();
    // Most marks (every attribute value) are followed by no local's first
    // letter: they are passed over at once.
    let mut first = [false; 256];
    for (v, _) in LOCALS {
        first[usize::from(v.as_bytes()[0])] = true;
    }
    for at in memchr::memchr3_iter(b'"', b'$', b'[', bytes) {
        let rest = &bytes[at + 1..];
        if !rest.first().is_some_and(|&c| first[usize::from(c)]) {
            continue;
        }
        for (k, (v, _)) in LOCALS.iter().enumerate() {
            let Some(after) = rest.strip_prefix(v.as_bytes()) else {
                continue;
            };
            used[k] |= match bytes[at] {
                b'"' => after.first() == Some(&b'"'),
                b'[' => after.first() == Some(&b']'),
                _ => true,
            };
        }
    }
    used
}

/// A termination activity: the steps once per live instance, with the
/// variables of the instance (and of the instances found below it) local to
/// each iteration, so parallel branches never share them.
fn each_instance(
    cx: &Ctx,
    w: &mut W,
    ind: usize,
    subject: TemplateRef,
    prefix: &str,
    body: &ActivityBody,
    collect: &[(&str, String)],
) -> Result<()> {
    let t = cx.topology;
    let (collection, element) = match subject {
        TemplateRef::Node(_) => ("nodetemplates", "NodeTemplateInstance"),
        TemplateRef::Relationship(_) => ("relationshiptemplates", "RelationshipTemplateInstance"),
    };
    let path = xml_escape(&url_path(t.api_id(subject))).into_owned();
    let side = side(t, subject);
    let locals = iteration_variables(t, cx.names, subject, body);
    let url = cx.names.url(subject);
    let id = cx.names.id(subject);
    let values = [
        ("name", prefix),
        ("collection", collection),
        ("element", element),
        ("path", path.as_ref()),
        ("url", url),
        ("id", id),
        ("st_url", side.service_template_url),
        ("si_id", side.service_instance_id),
        ("error", cx.state(crate::plugins::steps::state::ERROR)?),
    ];
    w.put("each-instance", ind, &values)?;
    // An iteration that only changes its instance's state has nothing
    // to fail but those requests to the instance API, which marking the
    // instance ERROR and logging `cancelled` would make again: the
    // default fault handler (rethrow) does, and the id is no variable.
    let books = keeps_books(body);
    for v in locals.into_iter().filter(|v| !books || *v != id) {
        w.put("each-instance-local", ind, &[("var", v)])?;
    }
    let templates = iteration_templates(subject, body);
    for &r in &templates {
        if let Some(doc) = cx.loaded_document(r) {
            w.put("each-instance-document", ind, &[("var", doc)])?;
        }
    }
    w.put("each-instance-locals-end", ind, &[])?;
    if books {
        w.put("each-instance-books", ind, &values)?;
        empty_documents(cx, w, ind + 6, &templates)?;
        load_properties(cx, w, ind + 6, subject, &format!("{prefix}_load"))?;
        steps(cx, w, ind + 6, &body.steps, prefix, "s", subject)?;
        collect_outputs(w, ind + 6, collect)?;
        return w.put("each-instance-end", ind, &[]);
    }
    w.put("each-instance-body", ind, &values)?;
    w.put("log-cancelled", ind + 10, &[])?;
    w.put("each-instance-steps", ind, &values)?;
    empty_documents(cx, w, ind + 6, &templates)?;
    load_properties(cx, w, ind + 6, subject, &format!("{prefix}_load"))?;
    steps(cx, w, ind + 6, &body.steps, prefix, "s", subject)?;
    collect_outputs(w, ind + 6, collect)?;
    w.put("each-instance-end", ind, &[])
}

/// Copy the plan outputs an iteration sets out of its variables.
fn collect_outputs(w: &mut W, ind: usize, collect: &[(&str, String)]) -> Result<()> {
    if collect.is_empty() {
        return Ok(());
    }
    w.put("collect-outputs", ind, &[])?;
    for (var, expr) in collect {
        w.put("collect-output", ind, &[("var", var), ("expr", expr)])?;
    }
    w.put("collect-outputs-end", ind, &[])
}

/// Whether the steps of an iteration only set its instance's state.
fn keeps_books(body: &ActivityBody) -> bool {
    body.compensation.is_empty()
        && body
            .steps
            .iter()
            .all(|s| matches!(s, crate::plugins::steps::Step::SetState(..)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_local_is_used_as_an_attribute_value_an_xpath_variable_or_a_uri_variable() {
        let used = used(
            r#"<copy><from>$messageX</from><to variable="body"/></copy> uri="$bpelvar[log]" "reply2" [reply"#,
        );
        let names: Vec<&str> = LOCALS
            .iter()
            .zip(used)
            .filter(|(_, u)| *u)
            .map(|((n, _), _)| *n)
            .collect();
        assert_eq!(names, ["body", "log", "message"]);
    }
}
