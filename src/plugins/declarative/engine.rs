//! Running a declarative plugin: match, then turn its steps into
//! language-neutral steps, binding inputs explicitly where the file says
//! so and by name otherwise. Node and relationship plugins handle
//! activities; operation plugins carry out an operation another plugin
//! calls, by the type of its implementation artifact.

use super::spec::*;
use crate::model::{Interface, Name, NodeId, Operation, RelId, TemplateRef, Topology, TypeId};
use crate::plan::{Activity, ActivityKind};
use crate::plugins::api::{Body, Context, Outcome, Plugin, Role};
use crate::plugins::conventions::{BUILD_OPERATIONS, TERMINATION_OPERATIONS, is_lifecycle};
use crate::plugins::invoke::{Call, node_operation};
use crate::plugins::params::{bind_relationship_inputs, find_property};
use crate::plugins::steps::{Binding, Invocation, PropertyRef, Step};

/// A plugin read from a file.
pub struct Declarative {
    /// Its definition.
    pub spec: Spec,
}

/// What a plugin's steps are evaluated for.
struct Scope<'a> {
    t: &'a Topology,
    /// The template handled; for operation plugins, the invocation's target.
    template: TemplateRef,
    /// Operation plugins: the call carried out and the operation it calls.
    call: Option<(&'a Invocation, &'a Operation)>,
}

impl Plugin for Declarative {
    fn id(&self) -> &str {
        &self.spec.id
    }
    fn priority(&self) -> i32 {
        self.spec.priority
    }
    fn role(&self) -> Role {
        match self.spec.applies_to {
            AppliesTo::Operation => Role::Operation,
            AppliesTo::Node | AppliesTo::Relationship => Role::Type,
        }
    }
    fn summary(&self) -> String {
        let what = match self.spec.applies_to {
            AppliesTo::Node => "nodes",
            AppliesTo::Relationship => "relationships",
            AppliesTo::Operation => "operations",
        };
        format!(
            "{what} {}: {}",
            summarize(&self.spec.matcher),
            self.spec.description
        )
    }
    fn origin(&self) -> String {
        self.spec.origin.clone()
    }

    fn handle(&self, cx: &Context, activity: &Activity) -> Outcome {
        let t = cx.topology;
        let applicable = matches!(
            (self.spec.applies_to, activity.template),
            (AppliesTo::Node, TemplateRef::Node(_))
                | (AppliesTo::Relationship, TemplateRef::Relationship(_))
        );
        if !applicable {
            return Outcome::NotApplicable;
        }
        let steps = match activity.kind {
            ActivityKind::Provision => &self.spec.build,
            ActivityKind::Terminate => &self.spec.termination,
            _ => &None,
        };
        let Some(steps) = steps else {
            return Outcome::Declined(why(cx.reasons, || {
                format!("has no steps for {} activities", activity.kind.name())
            }));
        };
        if let Err(why) = self.matches(t, activity.template, cx.reasons) {
            return Outcome::Declined(why);
        }
        let scope = Scope {
            t,
            template: activity.template,
            call: None,
        };
        run(&scope, steps)
    }

    fn run_operation(&self, cx: &Context, invocation: &Invocation) -> Outcome {
        let t = cx.topology;
        if self.spec.applies_to != AppliesTo::Operation {
            return Outcome::NotApplicable;
        }
        let Some(operation) = t.operation(
            invocation.target,
            &invocation.interface,
            &invocation.operation,
        ) else {
            return Outcome::NotApplicable;
        };
        let Some(implementation) = &operation.implementation else {
            return Outcome::NotApplicable;
        };
        let m = &self.spec.matcher;
        let artifact_type = &implementation.primary.artifact_type;
        if !m.artifact_types.iter().any(|p| artifact_type.matches(p)) {
            return Outcome::NotApplicable;
        }
        if let Err(why) = check_types(
            t,
            t.template_type(invocation.target),
            &m.types,
            "the template type",
            cx.reasons,
        ) {
            return Outcome::Declined(why);
        }
        let scope = Scope {
            t,
            template: invocation.target,
            call: Some((invocation, operation)),
        };
        run(&scope, self.spec.run.as_deref().unwrap_or_default())
    }
}

/// One line describing a matcher, for `plugins list`.
fn summarize(m: &Matcher) -> String {
    let mut parts = Vec::new();
    if !m.artifact_types.is_empty() {
        parts.push(format!("implemented by {}", m.artifact_types.join("|")));
    }
    if !m.types.is_empty() {
        parts.push(format!("type {}", m.types.join("|")));
    }
    if !m.host_types.is_empty() {
        parts.push(format!("on host {}", m.host_types.join("|")));
    }
    for (what, ops) in [
        ("with", &m.has_operation),
        ("on a host with", &m.host_has_operation),
    ] {
        if !ops.is_empty() {
            parts.push(format!("{what} {}", join(ops)));
        }
    }
    if let Some(h) = m.has_host {
        parts.push(if h {
            "hosted on a node".into()
        } else {
            "not hosted on anything".into()
        });
    }
    if let Some(l) = m.has_lifecycle {
        parts.push(if l {
            "with lifecycle operations".into()
        } else {
            "without lifecycle operations".into()
        });
    }
    if !m.kinds.is_empty() {
        parts.push(format!("kind {}", join(&m.kinds)));
    }
    parts.join(", ")
}

fn join<T: std::fmt::Display>(items: &[T]) -> String {
    items
        .iter()
        .map(|i| i.to_string())
        .collect::<Vec<_>>()
        .join("|")
}

/// Turn a plugin's steps into steps for `scope`.
fn run(s: &Scope, steps: &[StepSpec]) -> Outcome {
    let mut body = Body::default();
    for step in steps {
        match step {
            StepSpec::State(st) => body.steps.push(Step::SetState(s.template, leak_state(st))),
            StepSpec::Nothing(why) => body.notes.push(why.clone()),
            StepSpec::Fail { reason, when } => {
                if conditions(s, when).is_ok() {
                    return Outcome::Declined(reason.clone());
                }
            }
            StepSpec::InvokeOperation { when } => {
                let Some((invocation, _)) = s.call else {
                    return Outcome::Declined("`invoke: operation` outside an operation".into());
                };
                match conditions(s, when) {
                    Ok(()) => body.steps.push(Step::Invoke(Box::new(invocation.clone()))),
                    Err(why) => body.notes.push(format!(
                        "skipped the management-bus call of `{}`: {why}",
                        invocation.operation
                    )),
                }
            }
            StepSpec::Invoke {
                op,
                on,
                when,
                inputs,
                outputs,
                compensate,
            } => {
                if let Err(why) = conditions(s, when) {
                    body.notes.push(format!("skipped {op}: {why}"));
                    continue;
                }
                match invoke(s, op, on, inputs, outputs, &mut body.notes) {
                    Ok(Some(step)) => body.steps.push(step),
                    // TOSCA: an operation without implementation is a no-op.
                    Ok(None) => {
                        body.notes
                            .push(format!("skipped {op}: it has no implementation artifact"));
                        continue;
                    }
                    Err(why) => return Outcome::Declined(why),
                }
                if let Some(c) = compensate {
                    match invoke(s, c, on, &[], &[], &mut Vec::new()) {
                        Ok(step) => body.compensation.extend(step),
                        Err(why) => return Outcome::Declined(why),
                    }
                }
            }
        }
    }
    Outcome::Handled(body)
}

/// States are a closed set checked when the file is read.
fn leak_state(s: &str) -> &'static str {
    use crate::plugins::steps::state::*;
    [
        CREATING,
        CREATED,
        CONFIGURING,
        CONFIGURED,
        STARTING,
        STARTED,
        STOPPING,
        STOPPED,
        DELETING,
        DELETED,
        ERROR,
    ]
    .into_iter()
    .find(|x| *x == s)
    .unwrap_or(ERROR)
}

impl Declarative {
    /// Whether the plugin's matcher takes `template`; else why not (an
    /// empty reason unless `reasons`).
    fn matches(&self, t: &Topology, template: TemplateRef, reasons: bool) -> Result<(), String> {
        let m = &self.spec.matcher;
        match template {
            TemplateRef::Node(n) => {
                let node = t.node(n);
                check_types(t, node.type_id, &m.types, "the node type", reasons)?;
                let host = t.host(n);
                if !m.host_types.is_empty() || !m.host_has_operation.is_empty() {
                    let Some(h) = host else {
                        return Err("the node has no host".into());
                    };
                    let host_type = t.node(h).type_id;
                    check_types(t, host_type, &m.host_types, "its host's type", reasons)?;
                    let on_host = TemplateRef::Node(h);
                    check_ops(t, on_host, &m.host_has_operation, "its host", reasons)?;
                }
                check_ops(t, template, &m.has_operation, "the node", reasons)?;
                if let Some(want) = m.has_host
                    && host.is_some() != want
                {
                    return Err(if want {
                        "the node has no host".into()
                    } else {
                        "the node has a host".into()
                    });
                }
                if let Some(want) = m.has_lifecycle {
                    let has = node.interfaces.iter().filter(|i| is_lifecycle(i)).any(|i| {
                        i.operations.iter().any(|o| {
                            BUILD_OPERATIONS.contains(&&*o.name)
                                || TERMINATION_OPERATIONS.contains(&&*o.name)
                        })
                    });
                    if has != want {
                        return Err(if want {
                            "the node has no lifecycle operations".into()
                        } else {
                            "the node has lifecycle operations".into()
                        });
                    }
                }
                Ok(())
            }
            TemplateRef::Relationship(r) => {
                let rel = t.relationship(r);
                check_types(t, rel.type_id, &m.types, "the relationship type", reasons)?;
                if !m.kinds.is_empty() && !m.kinds.contains(&rel.kind) {
                    return Err(why(reasons, || format!("the relationship is {}", rel.kind)));
                }
                check_ops(t, template, &m.has_operation, "the relationship", reasons)
            }
        }
    }
}

/// An invocation of `op` on the template `on` names; `None` if the
/// operation has no implementation.
fn invoke(
    s: &Scope,
    op: &OpRef,
    on: &On,
    inputs: &[(Name, BindingSpec)],
    outputs: &[(Name, Name)],
    notes: &mut Vec<String>,
) -> Result<Option<Step>, String> {
    let t = s.t;
    let target = resolve_on(s, on)?;
    let Some((iface, operation)) = find_op(t, target, op) else {
        return Err(format!(
            "`{}` has no operation `{op}`",
            t.template_id(target)
        ));
    };
    if operation.implementation.is_none() {
        return Ok(None);
    }
    let mut explicit = Vec::new();
    for (name, spec) in inputs {
        explicit.push((name.clone(), eval(s, name, spec, notes)?));
    }
    let outputs: Vec<(Name, PropertyRef)> = outputs
        .iter()
        .map(|(o, p)| {
            let holder = PropertyRef {
                template: s.template,
                name: p.clone(),
            };
            (o.clone(), holder)
        })
        .collect();
    match (target, s.template) {
        (TemplateRef::Node(n), TemplateRef::Node(context)) => {
            let call = Call {
                target: n,
                context,
                interface: &iface.name,
                operation,
                inputs: &explicit,
                outputs: &outputs,
            };
            Ok(Some(node_operation(t, call, notes)))
        }
        // An end of the relationship handled, or the relationship itself:
        // inputs are matched on the relationship and both ends.
        (target, TemplateRef::Relationship(r)) => {
            let executing = match target {
                TemplateRef::Node(n) => n,
                TemplateRef::Relationship(_) => executing_end(t, r, iface, operation),
            };
            // Only the inputs the plugin does not bind are matched by name.
            let mut rest = operation.clone();
            rest.inputs
                .retain(|p| !explicit.iter().any(|(e, _)| *e == p.name));
            let bound = bind_relationship_inputs(t, r, executing, &rest);
            notes.extend(
                bound
                    .notes
                    .into_iter()
                    .map(|x| format!("{}: {x}", operation.name)),
            );
            let mut inputs = explicit;
            inputs.extend(bound.inputs);
            Ok(Some(Step::Invoke(Box::new(Invocation {
                target,
                interface: iface.name.clone(),
                operation: operation.name.clone(),
                inputs,
                outputs,
            }))))
        }
        (TemplateRef::Relationship(_), TemplateRef::Node(_)) => {
            Err("a node plugin cannot run a relationship's operation".into())
        }
    }
}

/// Which end runs a relationship's own operation: the declared side for
/// TOSCA 1.0 source/target interfaces; by the YAML `Configure` names
/// otherwise (`*_target`, `add_source`, `remove_source` run on the target).
fn executing_end(t: &Topology, r: RelId, iface: &Interface, op: &Operation) -> NodeId {
    let rel = t.relationship(r);
    let declared = |list: &[Interface]| list.iter().any(|i| std::ptr::eq(i, iface));
    if declared(&rel.target_interfaces) {
        return rel.target;
    }
    if declared(&rel.source_interfaces) {
        return rel.source;
    }
    let on_target =
        op.name.ends_with("_target") || matches!(&*op.name, "add_source" | "remove_source");
    if on_target { rel.target } else { rel.source }
}

fn find_op<'t>(
    t: &'t Topology,
    target: TemplateRef,
    op: &OpRef,
) -> Option<(&'t Interface, &'t Operation)> {
    t.interfaces(target)
        .into_iter()
        .filter(|i| op.interface == "*" || *i.name == *op.interface)
        .find_map(|i| i.operation(&op.operation).map(|o| (i, o)))
}

/// `reason()` where reasons are read, else an empty one.
fn why(reasons: bool, reason: impl FnOnce() -> String) -> String {
    if reasons { reason() } else { String::new() }
}

fn check_types(
    t: &Topology,
    ty: TypeId,
    patterns: &[String],
    what: &str,
    reasons: bool,
) -> Result<(), String> {
    if patterns.is_empty() || patterns.iter().any(|p| t.types.derives_from(ty, p)) {
        return Ok(());
    }
    Err(why(reasons, || {
        format!(
            "{what} `{}` does not derive from {}",
            t.types.get(ty).name,
            patterns.join(" or ")
        )
    }))
}

fn check_ops(
    t: &Topology,
    template: TemplateRef,
    ops: &[OpRef],
    what: &str,
    reasons: bool,
) -> Result<(), String> {
    if ops.is_empty() || ops.iter().any(|o| find_op(t, template, o).is_some()) {
        return Ok(());
    }
    Err(why(reasons, || {
        let shown: Vec<String> = ops.iter().take(3).map(|o| format!("`{o}`")).collect();
        let more = match ops.len() {
            n if n > 3 => format!(" and {} more", n - 3),
            _ => String::new(),
        };
        format!("{what} has none of {}{more}", shown.join(", "))
    }))
}

fn resolve_on(s: &Scope, on: &On) -> Result<TemplateRef, String> {
    let t = s.t;
    match (on, s.template) {
        (On::This, template) => Ok(template),
        (On::Host, TemplateRef::Node(n)) => t
            .host(n)
            .map(TemplateRef::Node)
            .ok_or_else(|| format!("`{}` has no host", t.node(n).id)),
        (On::Stack(p), TemplateRef::Node(n)) => t
            .stack_below(n)
            .into_iter()
            .find(|&h| t.types.derives_from(t.node(h).type_id, p))
            .map(TemplateRef::Node)
            .ok_or_else(|| format!("no node below `{}` derives from {p}", t.node(n).id)),
        (On::Offering(op), TemplateRef::Node(n)) => std::iter::once(n)
            .chain(t.stack_below(n))
            .map(TemplateRef::Node)
            .find(|&h| find_op(t, h, op).is_some())
            .ok_or_else(|| {
                format!(
                    "neither `{}` nor any node below it offers `{op}`",
                    t.node(n).id
                )
            }),
        (On::Source, TemplateRef::Relationship(r)) => {
            Ok(TemplateRef::Node(t.relationship(r).source))
        }
        (On::Target, TemplateRef::Relationship(r)) => {
            Ok(TemplateRef::Node(t.relationship(r).target))
        }
        (On::Host | On::Stack(_) | On::Offering(_), TemplateRef::Relationship(_)) => {
            Err("`host`, `stack:` and `offers:` look below a node, not a relationship".into())
        }
        (On::Source | On::Target, TemplateRef::Node(_)) => {
            Err("`source` and `target` apply to relationship plugins only".into())
        }
    }
}

fn conditions(s: &Scope, when: &[Condition]) -> Result<(), String> {
    let t = s.t;
    let props = t.properties(s.template);
    let has_artifact = |p: &str| -> Result<bool, String> {
        let TemplateRef::Node(n) = s.template else {
            return Err("artifacts belong to nodes".into());
        };
        Ok(t.node(n)
            .artifacts
            .iter()
            .any(|a| a.artifact_type.matches(p) && !a.files.is_empty()))
    };
    for c in when {
        match c {
            Condition::Artifact(p) => {
                if !has_artifact(p)? {
                    return Err(format!("no deployment artifact of type {p}"));
                }
            }
            Condition::NoArtifact(p) => {
                if has_artifact(p)? {
                    return Err(format!("there is a deployment artifact of type {p}"));
                }
            }
            Condition::Set(p) => {
                if props.get(p.as_str()).is_none_or(|v| v.is_empty()) {
                    return Err(format!("property `{p}` is not set"));
                }
            }
            Condition::Empty(p) => {
                if props.get(p.as_str()).is_some_and(|v| !v.is_empty()) {
                    return Err(format!("property `{p}` is set"));
                }
            }
            Condition::Operation(op) => {
                if find_op(t, s.template, op).is_none() {
                    return Err(format!("there is no operation `{op}`"));
                }
            }
        }
    }
    Ok(())
}

fn eval(
    s: &Scope,
    input: &str,
    spec: &BindingSpec,
    notes: &mut Vec<String>,
) -> Result<Binding, String> {
    let t = s.t;
    Ok(match spec {
        BindingSpec::Literal(v) => Binding::Literal(v.clone()),
        BindingSpec::Input(i) => Binding::Input(i.clone()),
        BindingSpec::Property { name, of } => {
            let owner_of = resolve_on(s, of)?;
            let owner = match (of, owner_of) {
                (On::This, TemplateRef::Node(n)) => find_property(t, n, name).map(|p| p.template),
                (_, o) => t.properties(o).contains_key(&**name).then_some(o),
            };
            match owner {
                Some(o) => Binding::Property(PropertyRef {
                    template: o,
                    name: name.clone(),
                }),
                None => {
                    return Err(format!(
                        "`{}` has no property `{name}`",
                        t.template_id(owner_of)
                    ));
                }
            }
        }
        BindingSpec::Artifact(p) => {
            let TemplateRef::Node(n) = s.template else {
                return Err("artifacts belong to nodes".into());
            };
            let file = t
                .node(n)
                .artifacts
                .iter()
                .filter(|a| a.artifact_type.matches(p))
                .find_map(|a| a.files.first())
                .ok_or_else(|| {
                    format!("`{}` has no deployment artifact of type {p}", t.node(n).id)
                })?;
            Binding::artifact(file)
        }
        BindingSpec::Concat(parts) => Binding::Concat(
            parts
                .iter()
                .map(|p| eval(s, input, p, notes))
                .collect::<Result<_, _>>()?,
        ),
        BindingSpec::PropertiesWithPrefix(prefix) => {
            let mut parts = Vec::new();
            for name in t.properties(s.template).keys() {
                if let Some(short) = name.strip_prefix(prefix.as_str()) {
                    parts.push(Binding::Literal(format!("{short}=")));
                    parts.push(Binding::Property(PropertyRef {
                        template: s.template,
                        name: name.clone(),
                    }));
                    parts.push(Binding::Literal(";".into()));
                }
            }
            if parts.is_empty() {
                Binding::Literal(String::new())
            } else {
                Binding::Concat(parts)
            }
        }
        BindingSpec::TypeVersion(pattern) => {
            let ty = t.types.get(t.template_type(s.template));
            match winery_version(&ty.name.name) {
                Some(v) => Binding::Literal(pattern.replace("{version}", v)),
                None => {
                    notes.push(format!(
                        "input `{input}` ← plan input (type `{}` carries no version)",
                        ty.name.name
                    ));
                    Binding::Input(input.into())
                }
            }
        }
        BindingSpec::ServiceTemplate => Binding::Literal(t.service_template.id.clone()),
        BindingSpec::Implementation(part) => {
            let (operation, artifact) = implementation(s)?;
            let Some(file) = artifact.files.first() else {
                return Err(format!(
                    "the implementation artifact `{}` of `{}` has no file",
                    artifact.name, operation.name
                ));
            };
            match part {
                ArtifactPart::Url => Binding::artifact(file),
                ArtifactPart::Path => Binding::Literal(file.clone()),
                ArtifactPart::File => {
                    Binding::Literal(file.rsplit('/').next().unwrap_or(file).to_string())
                }
            }
        }
        BindingSpec::ImplementationProperty(name) => {
            let (_, artifact) = implementation(s)?;
            let Some(text) = artifact.properties.get(name) else {
                return Err(format!(
                    "the implementation artifact `{}` has no property `{name}`",
                    artifact.name
                ));
            };
            placeholders(s, text, notes)
        }
    })
}

/// The operation carried out and its primary implementation artifact.
fn implementation<'a>(
    s: &Scope<'a>,
) -> Result<(&'a Operation, &'a crate::model::Artifact), String> {
    let Some((_, operation)) = s.call else {
        return Err("`implementation` bindings belong to operation plugins".into());
    };
    match &operation.implementation {
        Some(i) => Ok((operation, &i.primary)),
        None => Err(format!("`{}` has no implementation", operation.name)),
    }
}

/// Text with `{{Name}}` placeholders: each becomes the property of that
/// name on the template (or below it), else a plan input of that name.
fn placeholders(s: &Scope, text: &str, notes: &mut Vec<String>) -> Binding {
    let mut parts = Vec::new();
    let mut rest = text;
    while let Some(start) = rest.find("{{") {
        let Some(len) = rest[start + 2..].find("}}") else {
            break;
        };
        let name = rest[start + 2..start + 2 + len].trim();
        if !rest[..start].is_empty() {
            parts.push(Binding::Literal(rest[..start].to_string()));
        }
        let name: Name = name.into();
        let found = match s.template {
            TemplateRef::Node(n) => find_property(s.t, n, &name),
            r @ TemplateRef::Relationship(_) => {
                s.t.properties(r).contains_key(&*name).then(|| PropertyRef {
                    template: r,
                    name: name.clone(),
                })
            }
        };
        parts.push(match found {
            Some(p) => Binding::Property(p),
            None => {
                notes.push(format!(
                    "placeholder `{{{{{name}}}}}` ← plan input `{name}`"
                ));
                Binding::Input(name)
            }
        });
        rest = &rest[start + 2 + len + 2..];
    }
    if !rest.is_empty() {
        parts.push(Binding::Literal(rest.to_string()));
    }
    match parts.len() {
        0 => Binding::Literal(String::new()),
        1 => parts.pop().unwrap_or(Binding::Literal(String::new())),
        _ => Binding::Concat(parts),
    }
}

/// The component version in a Winery name: `Ubuntu-VM_18.04-w1` → `18.04`.
fn winery_version(name: &str) -> Option<&str> {
    let (_, suffix) = name.rsplit_once('_')?;
    let (version, _) = suffix.rsplit_once("-w")?;
    (!version.is_empty()).then_some(version)
}

#[cfg(test)]
mod tests {
    #[test]
    fn reads_winery_versions() {
        assert_eq!(super::winery_version("Ubuntu-VM_18.04-w1"), Some("18.04"));
        assert_eq!(super::winery_version("DockerEngine_w1"), None);
        assert_eq!(super::winery_version("Ubuntu-14.04-VM"), None);
    }
}
