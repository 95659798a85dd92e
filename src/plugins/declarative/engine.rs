//! Running a declarative plugin: match, then turn its steps into
//! language-neutral steps, binding inputs explicitly where the file says
//! so and by name otherwise.

use super::spec::*;
use crate::model::{NodeId, TemplateRef, Topology, TypeId};
use crate::plan::{Activity, ActivityKind};
use crate::plugins::api::{Body, Context, Outcome, Plugin, Role};
use crate::plugins::conventions::{BUILD_OPERATIONS, TERMINATION_OPERATIONS, is_lifecycle};
use crate::plugins::invoke::{Call, node_operation};
use crate::plugins::params::find_property;
use crate::plugins::steps::{Binding, PropertyRef, Step};

/// A plugin read from a file.
pub struct Declarative {
    /// Its definition.
    pub spec: Spec,
}

impl Plugin for Declarative {
    fn id(&self) -> &str {
        &self.spec.id
    }
    fn priority(&self) -> i32 {
        self.spec.priority
    }
    fn role(&self) -> Role {
        Role::Type
    }
    fn summary(&self) -> String {
        let m = &self.spec.matcher;
        let mut parts = Vec::new();
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
                parts.push(format!(
                    "{what} {}",
                    ops.iter()
                        .map(|o| o.to_string())
                        .collect::<Vec<_>>()
                        .join("|")
                ));
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
            parts.push(format!(
                "kind {}",
                m.kinds
                    .iter()
                    .map(|k| k.to_string())
                    .collect::<Vec<_>>()
                    .join("|")
            ));
        }
        let what = match self.spec.applies_to {
            AppliesTo::Node => "nodes",
            AppliesTo::Relationship => "relationships",
        };
        format!("{what} {}: {}", parts.join(", "), self.spec.description)
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
            return Outcome::Declined(format!(
                "has no steps for {} activities",
                activity.kind.name()
            ));
        };
        if let Err(why) = self.matches(t, activity.template) {
            return Outcome::Declined(why);
        }
        let mut body = Body::default();
        for step in steps {
            match step {
                StepSpec::State(s) => body
                    .steps
                    .push(Step::SetState(activity.template, leak_state(s))),
                StepSpec::Nothing(why) => body.notes.push(why.clone()),
                StepSpec::Fail { reason, when } => {
                    if conditions(t, activity.template, when).is_ok() {
                        return Outcome::Declined(reason.clone());
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
                    if let Err(why) = conditions(t, activity.template, when) {
                        body.notes.push(format!("skipped {op}: {why}"));
                        continue;
                    }
                    match self.invoke(
                        t,
                        activity.template,
                        op,
                        on,
                        inputs,
                        outputs,
                        &mut body.notes,
                    ) {
                        Ok(step) => body.steps.push(step),
                        Err(why) => return Outcome::Declined(why),
                    }
                    if let Some(c) = compensate {
                        match self.invoke(t, activity.template, c, on, &[], &[], &mut Vec::new()) {
                            Ok(step) => body.compensation.push(step),
                            Err(why) => return Outcome::Declined(why),
                        }
                    }
                }
            }
        }
        Outcome::Handled(body)
    }
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
    fn matches(&self, t: &Topology, template: TemplateRef) -> Result<(), String> {
        let m = &self.spec.matcher;
        match (self.spec.applies_to, template) {
            (AppliesTo::Node, TemplateRef::Node(n)) => {
                let node = t.node(n);
                check_types(t, node.type_id, &m.types, "the node type")?;
                let host = t.host(n);
                if !m.host_types.is_empty() || !m.host_has_operation.is_empty() {
                    let Some(h) = host else {
                        return Err("the node has no host".into());
                    };
                    check_types(t, t.node(h).type_id, &m.host_types, "its host's type")?;
                    check_ops(t, h, &m.host_has_operation, "its host")?;
                }
                check_ops(t, n, &m.has_operation, "the node")?;
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
                            BUILD_OPERATIONS.contains(&o.name.as_str())
                                || TERMINATION_OPERATIONS.contains(&o.name.as_str())
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
            (AppliesTo::Relationship, TemplateRef::Relationship(r)) => {
                let rel = t.relationship(r);
                check_types(t, rel.type_id, &m.types, "the relationship type")?;
                if !m.kinds.is_empty() && !m.kinds.contains(&rel.kind) {
                    return Err(format!("the relationship is {}", rel.kind));
                }
                Ok(())
            }
            (AppliesTo::Node, _) => Err("handles node templates only".into()),
            (AppliesTo::Relationship, _) => Err("handles relationship templates only".into()),
        }
    }

    #[allow(clippy::too_many_arguments)]
    fn invoke(
        &self,
        t: &Topology,
        template: TemplateRef,
        op: &OpRef,
        on: &On,
        inputs: &[(String, BindingSpec)],
        outputs: &[(String, String)],
        notes: &mut Vec<String>,
    ) -> Result<Step, String> {
        let target = resolve_on(t, template, on)?;
        let context = match template {
            TemplateRef::Node(n) => n,
            TemplateRef::Relationship(r) => t.relationship(r).source,
        };
        let node = t.node(target);
        let found = node
            .interfaces
            .iter()
            .filter(|i| op.interface == "*" || i.name == op.interface)
            .find_map(|i| i.operation(&op.operation).map(|o| (i, o)));
        let Some((iface, operation)) = found else {
            return Err(format!("`{}` has no operation `{op}`", node.id));
        };
        let mut explicit = Vec::new();
        for (name, spec) in inputs {
            explicit.push((name.clone(), eval(t, template, name, spec, notes)?));
        }
        let outputs: Vec<(String, PropertyRef)> = outputs
            .iter()
            .map(|(o, p)| {
                (
                    o.clone(),
                    PropertyRef {
                        template,
                        name: p.clone(),
                    },
                )
            })
            .collect();
        let call = Call {
            target,
            context,
            interface: &iface.name,
            operation,
            inputs: &explicit,
            outputs: &outputs,
        };
        Ok(node_operation(t, call, notes))
    }
}

fn check_types(t: &Topology, ty: TypeId, patterns: &[String], what: &str) -> Result<(), String> {
    if patterns.is_empty() || patterns.iter().any(|p| t.types.derives_from(ty, p)) {
        return Ok(());
    }
    Err(format!(
        "{what} `{}` does not derive from {}",
        t.types.get(ty).name,
        patterns.join(" or ")
    ))
}

fn check_ops(t: &Topology, n: NodeId, ops: &[OpRef], what: &str) -> Result<(), String> {
    if ops.is_empty() || ops.iter().any(|o| has_op(t, n, o)) {
        return Ok(());
    }
    Err(format!(
        "{what} has none of {}",
        ops.iter()
            .map(|o| format!("`{o}`"))
            .collect::<Vec<_>>()
            .join(", ")
    ))
}

fn has_op(t: &Topology, n: NodeId, op: &OpRef) -> bool {
    t.node(n).interfaces.iter().any(|i| {
        (op.interface == "*" || i.name == op.interface) && i.operation(&op.operation).is_some()
    })
}

fn resolve_on(t: &Topology, template: TemplateRef, on: &On) -> Result<NodeId, String> {
    match (on, template) {
        (On::This, TemplateRef::Node(n)) => Ok(n),
        (On::Host, TemplateRef::Node(n)) => {
            t.host(n).ok_or_else(|| "the node has no host".to_string())
        }
        (On::Stack(p), TemplateRef::Node(n)) => t
            .stack_below(n)
            .into_iter()
            .find(|&h| t.types.derives_from(t.node(h).type_id, p))
            .ok_or_else(|| format!("no node below `{}` derives from {p}", t.node(n).id)),
        (On::Source, TemplateRef::Relationship(r)) => Ok(t.relationship(r).source),
        (On::Target, TemplateRef::Relationship(r)) => Ok(t.relationship(r).target),
        (On::Host | On::Stack(_), TemplateRef::Relationship(_)) => {
            Err("`host` and `stack:` apply to node plugins only".into())
        }
        (On::This, TemplateRef::Relationship(_)) => {
            Err("a relationship has no operations of its own here; use `source` or `target`".into())
        }
        (On::Source | On::Target, TemplateRef::Node(_)) => {
            Err("`source` and `target` apply to relationship plugins only".into())
        }
    }
}

fn conditions(t: &Topology, template: TemplateRef, when: &[Condition]) -> Result<(), String> {
    let props = t.properties(template);
    for c in when {
        match c {
            Condition::Artifact(p) => {
                let TemplateRef::Node(n) = template else {
                    return Err("artifacts belong to nodes".into());
                };
                if !t
                    .node(n)
                    .artifacts
                    .iter()
                    .any(|a| a.artifact_type.matches(p) && !a.files.is_empty())
                {
                    return Err(format!("no deployment artifact of type {p}"));
                }
            }
            Condition::NoArtifact(p) => {
                let TemplateRef::Node(n) = template else {
                    return Err("artifacts belong to nodes".into());
                };
                if t.node(n)
                    .artifacts
                    .iter()
                    .any(|a| a.artifact_type.matches(p) && !a.files.is_empty())
                {
                    return Err(format!("there is a deployment artifact of type {p}"));
                }
            }
            Condition::Set(p) => {
                if props.get(p).is_none_or(|v| v.is_empty()) {
                    return Err(format!("property `{p}` is not set"));
                }
            }
            Condition::Empty(p) => {
                if props.get(p).is_some_and(|v| !v.is_empty()) {
                    return Err(format!("property `{p}` is set"));
                }
            }
        }
    }
    Ok(())
}

fn eval(
    t: &Topology,
    template: TemplateRef,
    input: &str,
    spec: &BindingSpec,
    notes: &mut Vec<String>,
) -> Result<Binding, String> {
    Ok(match spec {
        BindingSpec::Literal(s) => Binding::Literal(s.clone()),
        BindingSpec::Input(i) => Binding::Input(i.clone()),
        BindingSpec::Property { name, of } => {
            let n = resolve_on(t, template, of)?;
            let owner = match of {
                On::This => find_property(t, n, name).map(|p| p.template),
                _ => t
                    .node(n)
                    .properties
                    .contains_key(name)
                    .then_some(TemplateRef::Node(n)),
            };
            match owner {
                Some(o) => Binding::Property(PropertyRef {
                    template: o,
                    name: name.clone(),
                }),
                None => return Err(format!("`{}` has no property `{name}`", t.node(n).id)),
            }
        }
        BindingSpec::Artifact(p) => {
            let TemplateRef::Node(n) = template else {
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
            Binding::ArtifactUrl(file.clone())
        }
        BindingSpec::Concat(parts) => Binding::Concat(
            parts
                .iter()
                .map(|p| eval(t, template, input, p, notes))
                .collect::<Result<_, _>>()?,
        ),
        BindingSpec::PropertiesWithPrefix(prefix) => {
            let mut parts = Vec::new();
            for name in t.properties(template).keys() {
                if let Some(short) = name.strip_prefix(prefix.as_str()) {
                    parts.push(Binding::Literal(format!("{short}=")));
                    parts.push(Binding::Property(PropertyRef {
                        template,
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
            let ty = t.types.get(t.template_type(template));
            match winery_version(&ty.name.name) {
                Some(v) => Binding::Literal(pattern.replace("{version}", v)),
                None => {
                    notes.push(format!(
                        "input `{input}` ← plan input (type `{}` carries no version)",
                        ty.name.name
                    ));
                    Binding::Input(input.to_string())
                }
            }
        }
    })
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
