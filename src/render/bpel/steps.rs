//! Each language-neutral step as BPEL: instance data through the
//! container's REST API (BPEL4RESTLight), operations through the
//! management bus, conditions as XPath; written from the fragments.
//!
//! In: steps and the [`Ctx`]. Out: BPEL text, written.

use std::fmt::Write as _;

use super::ctx::Ctx;
use super::relationship_request;
use super::writer::{W, path_text, text};
use super::xpath::{child, condition, literal};
use crate::error::Result;
use crate::model::{Condition, Name, NodeId, TemplateRef};
use crate::plugins::steps::{Binding, Invocation, Otherwise, PropertyRef, Step, Strategy};
use crate::render::side::side;
use crate::render::vars::in_document;

/// Steps in order; names are `<prefix>_<tag><n>`. Nothing to do is an
/// `<empty>` (a sequence may not be empty).
pub(crate) fn steps(
    cx: &Ctx,
    w: &mut W,
    ind: usize,
    steps: &[Step],
    prefix: &str,
    tag: &str,
    subject: TemplateRef,
) -> Result<()> {
    let before = w.out.len();
    let mut name = String::new();
    for (k, step) in steps.iter().enumerate() {
        name.clear();
        let _ = write!(name, "{prefix}_{tag}{}", k + 1);
        // A filter: the rest runs only on instances that meet it.
        if let Step::Check {
            template,
            condition: c,
            otherwise: Otherwise::Skip,
        } = step
        {
            check(
                cx,
                w,
                ind,
                *template,
                c,
                &name,
                Some(&steps[k + 1..]),
                subject,
            )?;
            break;
        }
        self::step(cx, w, ind, step, &name, subject)?;
    }
    if w.out.len() == before {
        let name = format!("{prefix}_{tag}0");
        w.put("empty", ind, &[("name", &name)])?;
    }
    Ok(())
}

fn step(
    cx: &Ctx,
    w: &mut W,
    ind: usize,
    step: &Step,
    name: &str,
    subject: TemplateRef,
) -> Result<()> {
    let t = cx.topology;
    match step {
        // The new instance's service instance id is the request's body:
        // the process variable itself, set before the activities run and
        // never again.
        Step::CreateNodeInstance(n) => {
            let r = TemplateRef::Node(*n);
            let path = path_text(t.api_id(r));
            let side = side(t, r);
            w.put(
                "create-node-instance",
                ind,
                &[
                    ("name", name),
                    ("path", &path),
                    ("st_url", side.service_template_url),
                    ("si_id", side.service_instance_id),
                ],
            )?;
            instance(cx, w, ind, r)
        }
        Step::CopyProperties { from, to } => copy_properties(cx, w, ind, *from, *to, name),
        Step::CreateRelationshipInstance(rel) => {
            let r = TemplateRef::Relationship(*rel);
            let rt = t.relationship(*rel);
            let path = path_text(t.api_id(r));
            let side = side(t, r);
            w.put(
                "create-relationship-instance",
                ind,
                &[
                    ("name", name),
                    ("path", &path),
                    ("source_id", cx.names.id(TemplateRef::Node(rt.source))),
                    ("target_id", cx.names.id(TemplateRef::Node(rt.target))),
                    ("st_url", side.service_template_url),
                    ("shared", relationship_request::variable(t, r)),
                ],
            )?;
            instance(cx, w, ind, r)
        }
        Step::SetState(r, state) => w.put(
            "set-state",
            ind,
            &[("state", cx.state(state)?), ("url", cx.names.url(*r))],
        ),
        Step::StoreProperties(n) => store_properties(cx, w, ind, *n),
        Step::FollowRelationship { rel, from, to } => {
            let path = path_text(t.api_id(TemplateRef::Relationship(*rel)));
            let to_ref = TemplateRef::Node(*to);
            let to_path = path_text(t.api_id(to_ref));
            let side = side(t, to_ref);
            w.put(
                "follow-relationship",
                ind,
                &[
                    ("name", name),
                    ("path", &path),
                    ("from_id", cx.names.id(TemplateRef::Node(*from))),
                    ("to_id", cx.names.id(to_ref)),
                    ("to_url", cx.names.url(to_ref)),
                    ("to_path", &to_path),
                    ("st_url", side.service_template_url),
                ],
            )?;
            load_properties(cx, w, ind, to_ref, &format!("{name}_load"))
        }
        Step::Invoke(inv) => invoke(cx, w, ind, inv, name, subject),
        Step::Check {
            template,
            condition: c,
            otherwise: Otherwise::Fail,
        } => check(cx, w, ind, *template, c, name, None, subject),
        // Only reached when the filter is the last step: nothing follows.
        Step::Check { template, .. } => check(cx, w, ind, *template, &[], name, Some(&[]), subject),
        Step::SelectInstance(n, strategy) => select(cx, w, ind, *n, strategy, name),
        Step::UseExisting(n) => use_existing(cx, w, ind, *n, name),
    }
}

/// Load the properties of the existing instance the plan input of `n`'s
/// selection names, and check its node_filter on them.
fn use_existing(cx: &Ctx, w: &mut W, ind: usize, n: NodeId, name: &str) -> Result<()> {
    let r = TemplateRef::Node(n);
    let Some(existing) = &cx.topology.node(n).selection else {
        return Ok(());
    };
    let input = cx.input(&existing.input);
    w.put("use-existing", ind, &[("name", name), ("input", &input)])?;
    load_from(cx, w, ind + 4, r, "existingURL", &format!("{name}_load"))?;
    if !existing.filter.is_empty() {
        let expr = text(&condition(&existing.filter, r, cx.topology, cx.names));
        w.put("use-existing-filter", ind, &[("condition", &expr)])?;
    }
    w.put("use-existing-end", ind, &[])
}

/// Set the properties of `to` from those of `from` with the same names
/// (a migrated node takes its source instance's properties).
fn copy_properties(
    cx: &Ctx,
    w: &mut W,
    ind: usize,
    from: NodeId,
    to: NodeId,
    name: &str,
) -> Result<()> {
    let t = cx.topology;
    let (from, to) = (TemplateRef::Node(from), TemplateRef::Node(to));
    let shared: Vec<&Name> = t
        .properties(from)
        .keys()
        .filter(|p| t.properties(to).contains_key(&***p))
        .collect();
    if shared.is_empty() {
        return Ok(());
    }
    w.put("copy-properties", ind, &[("name", name)])?;
    for p in shared {
        let source = Binding::Property(PropertyRef {
            template: from,
            name: p.clone(),
        });
        let target = PropertyRef {
            template: to,
            name: p.clone(),
        };
        w.put(
            "copy-property",
            ind,
            &[
                ("from", &cx.value(&source)),
                ("to", &to_property(cx, &target)),
            ],
        )?;
    }
    w.put("copy-properties-end", ind, &[])
}

/// Where a copy writes property `p`: its element of the template's
/// document, or its variable.
fn to_property(cx: &Ctx, p: &PropertyRef) -> String {
    match cx.names.document(cx.topology, p.template) {
        Some(doc) if in_document(p.template, &p.name) => {
            format!("<to>${doc}/{}</to>", text(&child(&p.name)))
        }
        _ => format!("<to variable=\"{}\"/>", cx.names.prop(cx.topology, p)),
    }
}

/// Store the properties of node `n`'s instance: its document, PUT to the
/// instance data as it is (nothing where it has none).
fn store_properties(cx: &Ctx, w: &mut W, ind: usize, n: NodeId) -> Result<()> {
    let r = TemplateRef::Node(n);
    let Some(document) = cx.names.document(cx.topology, r) else {
        return Ok(());
    };
    w.put(
        "store-properties",
        ind,
        &[("document", document), ("url", cx.names.url(r))],
    )
}

/// Pick an instance of node `n` by `strategy` and load its properties.
fn select(
    cx: &Ctx,
    w: &mut W,
    ind: usize,
    n: NodeId,
    strategy: &Strategy,
    name: &str,
) -> Result<()> {
    let t = cx.topology;
    let r = TemplateRef::Node(n);
    let path = path_text(t.api_id(r));
    let side = side(t, r);
    let (st_url, si_id) = (side.service_template_url, side.service_instance_id);
    w.put("select", ind, &[("name", name)])?;
    match strategy {
        Strategy::UserProvided(i) => {
            let input = cx.input(i);
            w.put("select-given", ind, &[("name", name), ("input", &input)])?;
        }
        Strategy::FirstInstance => {
            let list = [
                ("path", path.as_str()),
                ("st_url", st_url),
                ("si_id", si_id),
            ];
            w.put("select-list", ind, &list)?;
            w.put("select-first", ind, &[("name", name)])?;
        }
        Strategy::WorkloadBased(p) => {
            let child = text(&child(p));
            let list = [
                ("path", path.as_str()),
                ("st_url", st_url),
                ("si_id", si_id),
            ];
            w.put("select-list", ind, &list)?;
            w.put(
                "select-lowest",
                ind,
                &[
                    ("name", name),
                    ("path", &path),
                    ("child", &child),
                    ("st_url", st_url),
                ],
            )?;
        }
    }
    w.put(
        "select-chosen",
        ind,
        &[
            ("name", name),
            ("path", &path),
            ("id", cx.names.id(r)),
            ("url", cx.names.url(r)),
            ("st_url", st_url),
        ],
    )?;
    load_properties(cx, w, ind + 4, r, &format!("{name}_load"))?;
    w.put("select-end", ind, &[])
}

/// A condition on the current instance of `template`: with `rest`, the
/// rest of the steps run only where it holds; without, the plan fails
/// where it does not.
#[allow(clippy::too_many_arguments)]
fn check(
    cx: &Ctx,
    w: &mut W,
    ind: usize,
    template: TemplateRef,
    conditions: &[crate::model::Condition],
    name: &str,
    rest: Option<&[Step]>,
    subject: TemplateRef,
) -> Result<()> {
    let expr = text(&condition(conditions, template, cx.topology, cx.names));
    let url = cx.names.url(template);
    w.put("check", ind, &[("name", name)])?;
    if Condition::reads_state(conditions) {
        w.put("check-read-state", ind, &[("name", name), ("url", url)])?;
    }
    match rest {
        Some(rest) => {
            w.put("check-filter", ind, &[("name", name), ("condition", &expr)])?;
            steps(cx, w, ind + 6, rest, name, "s", subject)?;
            w.put("check-filter-end", ind, &[])?;
        }
        None => w.put(
            "check-precondition",
            ind,
            &[("name", name), ("condition", &expr)],
        )?,
    }
    w.put("check-end", ind, &[])
}

/// Keep the URL of the instance just registered (from the response) and,
/// where the plan reads it, its id (the URL's last segment).
fn instance(cx: &Ctx, w: &mut W, ind: usize, r: TemplateRef) -> Result<()> {
    let vars = [("url", cx.names.url(r)), ("id", cx.names.id(r))];
    w.put("instance-url", ind, &vars)?;
    if cx.names.id_read(r) {
        w.put("instance-id", ind, &vars)?;
    }
    w.put("instance-end", ind, &[])
}

/// Load the properties of `r`'s current instance that the plan reads
/// (none: no request).
pub(crate) fn load_properties(
    cx: &Ctx,
    w: &mut W,
    ind: usize,
    r: TemplateRef,
    name: &str,
) -> Result<()> {
    load_from(cx, w, ind, r, cx.names.url(r), name)
}

/// Load the properties the plan reads of `r` from the instance whose URL
/// is in variable `url`. Its document ([`Ctx::loaded_document`]) is the
/// instance's, GET whole, unless the plan writes it after the load
/// ([`super::globals::merged_documents`]): then the properties read are
/// copied into it one by one (an iteration's starts from its shape:
/// [`empty_documents`]), as are those outside any document.
fn load_from(cx: &Ctx, w: &mut W, ind: usize, r: TemplateRef, url: &str, name: &str) -> Result<()> {
    let document = cx.loaded_document(r);
    let merge = document.is_some() && cx.merged.contains(r);
    if let Some(document) = document.filter(|_| !merge) {
        w.put(
            "load-document",
            ind,
            &[("url", url), ("document", document)],
        )?;
    }
    let mut props = cx
        .names
        .loaded_props(cx.topology, r)
        .filter(|(p, _)| merge || !in_document(r, p))
        .peekable();
    if props.peek().is_none() {
        return Ok(());
    }
    w.put("load-properties", ind, &[("url", url), ("name", name)])?;
    for (p, _) in props {
        let child = text(&child(p));
        let to = to_property(
            cx,
            &PropertyRef {
                template: r,
                name: p.into(),
            },
        );
        w.put("load-property", ind, &[("child", &child), ("to", &to)])?;
    }
    w.put("load-properties-end", ind, &[])
}

/// Start the merged documents an iteration declares from their shapes
/// (a load copies into them what the plan reads: [`load_from`]).
pub(crate) fn empty_documents(
    cx: &Ctx,
    w: &mut W,
    ind: usize,
    templates: &[TemplateRef],
) -> Result<()> {
    for &r in templates {
        let Some(document) = cx.loaded_document(r).filter(|_| cx.merged.contains(r)) else {
            continue;
        };
        let shape = cx.documents.shape(cx.topology, r).ok_or_else(|| {
            crate::error::Error::Internal(format!(
                "no empty document for `{}`",
                cx.topology.template_id(r)
            ))
        })?;
        w.put(
            "empty-document",
            ind,
            &[("shape", shape), ("document", document)],
        )?;
    }
    Ok(())
}

fn invoke(
    cx: &Ctx,
    w: &mut W,
    ind: usize,
    inv: &Invocation,
    name: &str,
    subject: TemplateRef,
) -> Result<()> {
    let t = cx.topology;
    // The request its operation's calls share is in the shape's variable
    // (calls.rs); invoke.xsl copies it with what is the call's own: the
    // node instance, template, message id and the inputs' values.
    let shape = cx.calls.shape(t, inv)?;
    let instance = match inv.target {
        TemplateRef::Node(_) => format!(", 'instance', ${}", cx.names.url(inv.target)),
        TemplateRef::Relationship(_) => String::new(),
    };
    // The call's own part of its message id: the step and the instance
    // (one step runs once per instance); the call process puts the plan
    // run's correlation id before it. The step's name and its separators
    // are one literal: the same string as three, in fewer bytes.
    let message_id = text(&format!(
        "concat({}, ${})",
        literal(&format!(":{name}:")),
        cx.names.id(subject)
    ));
    // ODE's compiler finds the stylesheet of a doXslTransform by trying
    // the expression with empty variables; a function of values known
    // when the plan runs (a number made of '') fails that try before the
    // call, and the plan would find no stylesheet. Such a value is
    // computed apart, into a variable of the call's scope.
    let mut values = String::new();
    let mut computed = Vec::new();
    for (k, (_, b)) in inv.inputs.iter().enumerate() {
        let n = k + 1;
        if let Binding::Function(..) = b {
            let var = format!("value{n}");
            let _ = write!(values, ", 'v{n}', ${var}");
            computed.push((var, cx.expr(b)));
        } else {
            let _ = write!(values, ", 'v{n}', {}", cx.expr(b));
        }
    }
    // Computed values need variables, so such a call has a scope of its
    // own; any other call is written where it is.
    let ind = if computed.is_empty() {
        ind
    } else {
        w.put("invoke-scope", ind, &[("name", name)])?;
        for (var, _) in &computed {
            w.put("invoke-value-variable", ind, &[("var", var)])?;
        }
        w.put("invoke-scope-body", ind, &[])?;
        ind + 4
    };
    w.put("invoke", ind, &[])?;
    for (var, expr) in &computed {
        w.put("invoke-value", ind, &[("var", var), ("expr", expr)])?;
    }
    w.put(
        "invoke-request",
        ind,
        &[
            ("shape", shape),
            ("instance", &instance),
            ("template", &text(&literal(t.api_id(inv.target)))),
            ("message_id", &message_id),
            ("values", &values),
        ],
    )?;
    // The outputs the operation returned are read in one assign; one it
    // did not return leaves its property as it was.
    if !inv.outputs.is_empty() {
        w.put("invoke-outputs", ind, &[])?;
        for (o, p) in &inv.outputs {
            let param = text(&format!(
                "$reply.invokeResponse//*:Param[*:key = {}]",
                literal(o)
            ));
            w.put(
                "invoke-output",
                ind,
                &[("param", &param), ("to", &to_property(cx, p))],
            )?;
        }
        w.put("invoke-outputs-end", ind, &[])?;
    }
    if !computed.is_empty() {
        w.put("invoke-scope-end", ind - 4, &[])?;
    }
    Ok(())
}
