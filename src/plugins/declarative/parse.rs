//! Reading a plugin file into a [`Spec`], reporting every problem with its
//! line and column. Unknown keys are errors: this is toscanini's own format,
//! so a misspelt key would otherwise silently change what a plugin does.

use std::sync::Arc;

use super::spec::*;
use crate::diagnostics::{Diagnostic, Diagnostics, SourceFile, codes};
use crate::model::{Name, RelKind};
use crate::plugins::steps::state;
use crate::yaml::node::{self, Kind, LoadLimits, Node};

/// Parse a plugin file.
pub fn parse(source: Arc<SourceFile>) -> (Option<Spec>, Diagnostics) {
    let mut p = Parser {
        source: source.clone(),
        diags: Diagnostics::new(),
        applies_to: AppliesTo::Node,
    };
    let root = match node::parse(&source, LoadLimits::default()) {
        Ok(n) => n,
        Err(d) => {
            p.diags.push(Diagnostic {
                code: codes::PLUGIN_INVALID,
                ..d
            });
            return (None, p.diags);
        }
    };
    let spec = p.spec(&root);
    if p.diags.has_errors() {
        return (None, p.diags);
    }
    (spec, p.diags)
}

struct Parser {
    source: Arc<SourceFile>,
    diags: Diagnostics,
    /// What the plugin applies to, once known (some keys depend on it).
    applies_to: AppliesTo,
}

const STATES: [&str; 11] = [
    state::CREATING,
    state::CREATED,
    state::CONFIGURING,
    state::CONFIGURED,
    state::STARTING,
    state::STARTED,
    state::STOPPING,
    state::STOPPED,
    state::DELETING,
    state::DELETED,
    state::ERROR,
];

impl Parser {
    fn error(&mut self, at: &Node, message: String) {
        let loc = self.source.location(at.span);
        self.diags.push(
            Diagnostic::error(codes::PLUGIN_INVALID, message)
                .at(loc)
                .hint("see plugins/README.md for the plugin file format"),
        );
    }

    fn map<'n>(&mut self, n: &'n Node, what: &str, keys: &[&str]) -> Option<&'n [(Node, Node)]> {
        let Some(m) = n.as_map() else {
            self.error(n, format!("{what} must be a map, not {}", n.kind_name()));
            return None;
        };
        for (k, _) in m {
            let key = k.as_str().unwrap_or("");
            if !keys.contains(&key) {
                self.error(
                    k,
                    format!(
                        "unknown key `{key}` in {what} (expected one of: {})",
                        keys.join(", ")
                    ),
                );
            }
        }
        Some(m)
    }

    fn string(&mut self, n: &Node, what: &str) -> Option<String> {
        match &n.kind {
            Kind::Scalar { text, .. } => Some(text.clone()),
            _ => {
                self.error(n, format!("{what} must be a string, not {}", n.kind_name()));
                None
            }
        }
    }

    /// A string or a list of strings.
    fn strings(&mut self, n: &Node, what: &str) -> Vec<String> {
        match &n.kind {
            Kind::Scalar { text, .. } => vec![text.clone()],
            Kind::Seq(items) => items.iter().filter_map(|i| self.string(i, what)).collect(),
            _ => {
                self.error(n, format!("{what} must be a string or a list of strings"));
                Vec::new()
            }
        }
    }

    fn op(&mut self, n: &Node, what: &str) -> Option<OpRef> {
        let s = self.string(n, what)?;
        let op = OpRef::parse(&s);
        if op.is_none() {
            self.error(
                n,
                format!("{what} `{s}` is not of the form `interface/operation`"),
            );
        }
        op
    }

    fn spec(&mut self, root: &Node) -> Option<Spec> {
        let m = self.map(
            root,
            "a plugin file",
            &[
                "plugin",
                "description",
                "priority",
                "applies_to",
                "match",
                "build",
                "termination",
                "run",
            ],
        )?;
        let get = |k: &str| {
            m.iter()
                .find(|(key, _)| key.as_str() == Some(k))
                .map(|(_, v)| v)
        };
        let id = match get("plugin") {
            Some(n) => self.string(n, "`plugin`")?,
            None => {
                self.error(root, "a plugin file needs `plugin: <id>`".into());
                return None;
            }
        };
        let description = match get("description") {
            Some(n) => self.string(n, "`description`").unwrap_or_default(),
            None => {
                self.error(root, format!("plugin `{id}` needs a `description`"));
                String::new()
            }
        };
        let priority = match get("priority") {
            Some(n) => match n.as_str().and_then(|s| s.parse::<i32>().ok()) {
                Some(p) => p,
                None => {
                    self.error(n, "`priority` must be a whole number".into());
                    100
                }
            },
            None => 100,
        };
        let applies_to = match get("applies_to").and_then(Node::as_str) {
            None | Some("node") => AppliesTo::Node,
            Some("relationship") => AppliesTo::Relationship,
            Some("operation") => AppliesTo::Operation,
            Some(other) => {
                let n = get("applies_to").unwrap();
                self.error(
                    n,
                    format!("`applies_to` is `node`, `relationship` or `operation`, not `{other}`"),
                );
                AppliesTo::Node
            }
        };
        self.applies_to = applies_to;
        let matcher = match get("match") {
            Some(n) => self.matcher(n),
            None => {
                self.error(root, format!("plugin `{id}` needs a `match` section"));
                Matcher::default()
            }
        };
        let build = get("build").map(|n| self.steps(n, "build"));
        let termination = get("termination").map(|n| self.steps(n, "termination"));
        let run = get("run").map(|n| self.steps(n, "run"));
        self.check_sections(
            root,
            &id,
            applies_to,
            &matcher,
            [&build, &termination, &run],
        );
        Some(Spec {
            id,
            description,
            priority,
            applies_to,
            matcher,
            build,
            termination,
            run,
            origin: self.source.name().to_string(),
        })
    }

    /// Node and relationship plugins take part in plans (`build`,
    /// `termination`); operation plugins carry out one operation (`run`).
    fn check_sections(
        &mut self,
        root: &Node,
        id: &str,
        applies_to: AppliesTo,
        matcher: &Matcher,
        [build, termination, run]: [&Option<Vec<StepSpec>>; 3],
    ) {
        if applies_to == AppliesTo::Operation {
            if run.is_none() {
                self.error(root, format!("operation plugin `{id}` needs `run` steps"));
            }
            if build.is_some() || termination.is_some() {
                self.error(
                    root,
                    format!(
                        "operation plugin `{id}` has `run` steps, not `build` or `termination`"
                    ),
                );
            }
            if matcher.artifact_types.is_empty() {
                self.error(
                    root,
                    format!("operation plugin `{id}` needs `match.artifact_type`"),
                );
            }
        } else {
            if build.is_none() && termination.is_none() {
                self.error(
                    root,
                    format!("plugin `{id}` has neither `build` nor `termination` steps"),
                );
            }
            if run.is_some() {
                self.error(
                    root,
                    format!("`run` steps are for `applies_to: operation` plugins; plugin `{id}` has `build` and `termination`"),
                );
            }
            if !matcher.artifact_types.is_empty() {
                self.error(
                    root,
                    format!("`match.artifact_type` is for `applies_to: operation` plugins, not plugin `{id}`"),
                );
            }
        }
    }

    fn matcher(&mut self, n: &Node) -> Matcher {
        let mut out = Matcher::default();
        let Some(m) = self.map(
            n,
            "`match`",
            &[
                "type",
                "host_type",
                "has_operation",
                "host_has_operation",
                "has_lifecycle",
                "has_host",
                "kind",
                "artifact_type",
            ],
        ) else {
            return out;
        };
        for (k, v) in m {
            match k.as_str().unwrap_or("") {
                "type" => out.types = self.strings(v, "`match.type`"),
                "host_type" => out.host_types = self.strings(v, "`match.host_type`"),
                "has_operation" => {
                    out.has_operation = self.op_list(v, "`match.has_operation`");
                }
                "host_has_operation" => {
                    out.host_has_operation = self.op_list(v, "`match.host_has_operation`");
                }
                "has_lifecycle" => out.has_lifecycle = self.boolean(v, "`match.has_lifecycle`"),
                "has_host" => out.has_host = self.boolean(v, "`match.has_host`"),
                "artifact_type" => {
                    out.artifact_types = self.strings(v, "`match.artifact_type`");
                }
                "kind" => {
                    for s in self.strings(v, "`match.kind`") {
                        let kind = match s.as_str() {
                            "HostedOn" => RelKind::HostedOn,
                            "DependsOn" => RelKind::DependsOn,
                            "DeployedOn" => RelKind::DeployedOn,
                            "ConnectsTo" => RelKind::ConnectsTo,
                            "AttachesTo" => RelKind::AttachesTo,
                            _ => {
                                self.error(v, format!("unknown relationship kind `{s}` (HostedOn, DependsOn, DeployedOn, ConnectsTo, AttachesTo)"));
                                continue;
                            }
                        };
                        out.kinds.push(kind);
                    }
                }
                _ => {}
            }
        }
        out
    }

    fn boolean(&mut self, v: &Node, what: &str) -> Option<bool> {
        match v.as_str() {
            Some("true") => Some(true),
            Some("false") => Some(false),
            _ => {
                self.error(v, format!("{what} is `true` or `false`"));
                None
            }
        }
    }

    fn op_list(&mut self, v: &Node, what: &str) -> Vec<OpRef> {
        let items: Vec<Node> = match &v.kind {
            Kind::Seq(items) => items.clone(),
            _ => vec![v.clone()],
        };
        items.iter().filter_map(|i| self.op(i, what)).collect()
    }

    fn steps(&mut self, n: &Node, section: &str) -> Vec<StepSpec> {
        let Some(items) = n.as_seq() else {
            self.error(n, format!("`{section}` must be a list of steps"));
            return Vec::new();
        };
        items.iter().filter_map(|i| self.step(i, section)).collect()
    }

    /// One step: `state`, `nothing`, `fail`, `invoke: operation`, or an
    /// invocation of an operation.
    fn step(&mut self, n: &Node, section: &str) -> Option<StepSpec> {
        let what = format!("a step of `{section}`");
        let m = self.map(
            n,
            &what,
            &[
                "invoke",
                "on",
                "when",
                "inputs",
                "outputs",
                "compensate",
                "state",
                "nothing",
                "fail",
            ],
        )?;
        let get = |k: &str| value_of(m, k);
        self.check_step_keys(m);
        if let Some(s) = get("state") {
            let s = self.string(s, "`state`")?;
            if !STATES.contains(&s.as_str()) {
                self.error(
                    get("state").unwrap(),
                    format!("unknown state `{s}` (one of {})", STATES.join(", ")),
                );
            }
            return Some(StepSpec::State(s));
        }
        if let Some(s) = get("nothing") {
            return Some(StepSpec::Nothing(self.string(s, "`nothing`")?));
        }
        if let Some(s) = get("fail") {
            let reason = self.string(s, "`fail`")?;
            let when = self.when(m);
            return Some(StepSpec::Fail { reason, when });
        }
        let Some(op) = get("invoke") else {
            self.error(
                n,
                format!("{what} needs `invoke`, `state`, `nothing` or `fail`"),
            );
            return None;
        };
        if op.as_str() == Some("operation") {
            if self.applies_to != AppliesTo::Operation {
                self.error(
                    op,
                    "`invoke: operation` (the operation being carried out) belongs in the `run` steps of an operation plugin".into(),
                );
            }
            let when = self.when(m);
            return Some(StepSpec::InvokeOperation { when });
        }
        self.invoke(op, m)
    }

    /// Keys that mean nothing for the kind of step would be ignored
    /// silently; they are errors instead.
    fn check_step_keys(&mut self, m: &[(Node, Node)]) {
        let get = |k: &str| value_of(m, k);
        let kind = ["state", "nothing", "fail", "invoke"]
            .into_iter()
            .find(|k| get(k).is_some());
        let allowed: &[&str] = match kind {
            Some("state") => &["state"],
            Some("nothing") => &["nothing"],
            Some("fail") => &["fail", "when"],
            Some(_) if get("invoke").and_then(Node::as_str) == Some("operation") => {
                &["invoke", "when"]
            }
            _ => &["invoke", "on", "when", "inputs", "outputs", "compensate"],
        };
        for (k, _) in m {
            let key = k.as_str().unwrap_or("");
            if let Some(kind) = kind
                && !allowed.contains(&key)
            {
                self.error(k, format!("`{key}` has no effect in a `{kind}` step"));
            }
        }
    }

    /// The step's `when` conditions (none: always).
    fn when(&mut self, m: &[(Node, Node)]) -> Vec<Condition> {
        match value_of(m, "when") {
            Some(v) => self.conditions(v),
            None => Vec::new(),
        }
    }

    /// A step that invokes operation `op` (the step's map is `m`): on
    /// which template, when, with which inputs, where its outputs go, and
    /// what compensates it.
    fn invoke(&mut self, op: &Node, m: &[(Node, Node)]) -> Option<StepSpec> {
        let get = |k: &str| value_of(m, k);
        let op = self.op(op, "`invoke`")?;
        let on = match get("on") {
            Some(v) => self.on(v)?,
            None => On::This,
        };
        let when = self.when(m);
        let inputs = get("inputs")
            .map(|v| self.step_inputs(v))
            .unwrap_or_default();
        let outputs = get("outputs")
            .map(|v| self.step_outputs(v))
            .unwrap_or_default();
        let compensate = match get("compensate") {
            Some(v) if self.applies_to == AppliesTo::Operation => {
                self.error(
                    v,
                    "operation plugins have no compensation of their own: the calling plugin's compensation applies".into(),
                );
                None
            }
            Some(v) => Some(self.op(v, "`compensate`")?),
            None => None,
        };
        Some(StepSpec::Invoke {
            op,
            on,
            when,
            inputs,
            outputs,
            compensate,
        })
    }

    /// `inputs`: input name to value.
    fn step_inputs(&mut self, v: &Node) -> Vec<(Name, BindingSpec)> {
        let mut inputs = Vec::new();
        if let Some(entries) = v.as_map() {
            for (k, b) in entries {
                let name = k.as_str().unwrap_or("").into();
                if let Some(b) = self.binding(b) {
                    inputs.push((name, b));
                }
            }
        } else {
            self.error(v, "`inputs` must be a map of input name to value".into());
        }
        inputs
    }

    /// `outputs`: output name to the property it is stored into.
    fn step_outputs(&mut self, v: &Node) -> Vec<(Name, Name)> {
        let mut outputs = Vec::new();
        if let Some(entries) = v.as_map() {
            for (k, p) in entries {
                if let Some(p) = self.string(p, "an output's property name") {
                    outputs.push((k.as_str().unwrap_or("").into(), p.into()));
                }
            }
        } else {
            self.error(
                v,
                "`outputs` must be a map of output name to property name".into(),
            );
        }
        outputs
    }

    fn on(&mut self, v: &Node) -> Option<On> {
        let s = self.string(v, "`on`")?;
        Some(match s.as_str() {
            "self" => On::This,
            "host" => On::Host,
            "source" => On::Source,
            "target" => On::Target,
            other => {
                if let Some(p) = other.strip_prefix("stack:").filter(|p| !p.is_empty()) {
                    On::Stack(p.to_string())
                } else if let Some(op) = other.strip_prefix("offers:").and_then(OpRef::parse) {
                    On::Offering(op)
                } else {
                    self.error(v, format!("`on` is `self`, `host`, `source`, `target`, `stack:<type>` or `offers:<interface>/<operation>`, not `{other}`"));
                    return None;
                }
            }
        })
    }

    fn conditions(&mut self, v: &Node) -> Vec<Condition> {
        let Some(m) = self.map(
            v,
            "`when`",
            &["artifact", "no_artifact", "set", "empty", "operation"],
        ) else {
            return Vec::new();
        };
        let mut out = Vec::new();
        for (k, val) in m {
            let Some(s) = self.string(val, "a condition") else {
                continue;
            };
            match k.as_str().unwrap_or("") {
                "artifact" => out.push(Condition::Artifact(s)),
                "set" => out.push(Condition::Set(s)),
                "empty" => out.push(Condition::Empty(s)),
                "no_artifact" => out.push(Condition::NoArtifact(s)),
                "operation" => match OpRef::parse(&s) {
                    Some(op) => out.push(Condition::Operation(op)),
                    None => self.error(
                        val,
                        format!("`when.operation` `{s}` is not of the form `interface/operation`"),
                    ),
                },
                _ => {}
            }
        }
        out
    }

    fn binding(&mut self, v: &Node) -> Option<BindingSpec> {
        match &v.kind {
            Kind::Scalar { text, .. } => Some(BindingSpec::Literal(text.clone())),
            Kind::Null => Some(BindingSpec::Literal(String::new())),
            Kind::Seq(_) => {
                self.error(
                    v,
                    "an input value is a string or a map like `{property: Name}`".into(),
                );
                None
            }
            Kind::Map(_) => {
                let m = self.map(
                    v,
                    "an input value",
                    &[
                        "property",
                        "of",
                        "input",
                        "artifact",
                        "concat",
                        "properties_with_prefix",
                        "type_version",
                        "implementation",
                        "implementation_property",
                        "service_template",
                    ],
                )?;
                let get = |k: &str| {
                    m.iter()
                        .find(|(key, _)| key.as_str() == Some(k))
                        .map(|(_, v)| v)
                };
                if let Some(p) = get("property") {
                    let name = self.string(p, "`property`")?;
                    let of = match get("of") {
                        Some(o) => self.on(o)?,
                        None => On::This,
                    };
                    return Some(BindingSpec::Property {
                        name: name.into(),
                        of,
                    });
                }
                if let Some(i) = get("input") {
                    return Some(BindingSpec::Input(self.string(i, "`input`")?.into()));
                }
                if let Some(a) = get("artifact") {
                    return Some(BindingSpec::Artifact(self.string(a, "`artifact`")?));
                }
                if let Some(p) = get("properties_with_prefix") {
                    return Some(BindingSpec::PropertiesWithPrefix(
                        self.string(p, "`properties_with_prefix`")?,
                    ));
                }
                if let Some(p) = get("type_version") {
                    return Some(BindingSpec::TypeVersion(self.string(p, "`type_version`")?));
                }
                let implementation = ["implementation", "implementation_property"]
                    .into_iter()
                    .find_map(|k| get(k).map(|n| (k, n)));
                if let Some((k, n)) = implementation
                    && self.applies_to != AppliesTo::Operation
                {
                    self.error(
                        n,
                        format!("`{k}` names the artifact of the operation being carried out: it belongs to operation plugins"),
                    );
                    return None;
                }
                if let Some(i) = get("implementation") {
                    let part = match self.string(i, "`implementation`")?.as_str() {
                        "url" => ArtifactPart::Url,
                        "file" => ArtifactPart::File,
                        "path" => ArtifactPart::Path,
                        other => {
                            self.error(
                                i,
                                format!(
                                    "`implementation` is `url`, `file` or `path`, not `{other}`"
                                ),
                            );
                            return None;
                        }
                    };
                    return Some(BindingSpec::Implementation(part));
                }
                if let Some(p) = get("implementation_property") {
                    return Some(BindingSpec::ImplementationProperty(
                        self.string(p, "`implementation_property`")?,
                    ));
                }
                if get("service_template").is_some() {
                    return Some(BindingSpec::ServiceTemplate);
                }
                if let Some(c) = get("concat") {
                    let Some(items) = c.as_seq() else {
                        self.error(c, "`concat` takes a list".into());
                        return None;
                    };
                    let parts: Vec<BindingSpec> =
                        items.iter().filter_map(|i| self.binding(i)).collect();
                    return Some(BindingSpec::Concat(parts));
                }
                self.error(v, "an input value map needs one of `property`, `input`, `artifact`, `concat`, `properties_with_prefix`, `type_version`, `implementation`, `implementation_property`, `service_template`".into());
                None
            }
        }
    }
}

/// The value of key `k` in map `m`.
fn value_of<'n>(m: &'n [(Node, Node)], k: &str) -> Option<&'n Node> {
    m.iter()
        .find(|(key, _)| key.as_str() == Some(k))
        .map(|(_, v)| v)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn build_steps(steps: &str) -> (Vec<StepSpec>, Vec<String>) {
        let text = format!("plugin: p\ndescription: d\nmatch: {{type: T}}\nbuild:\n{steps}");
        let (spec, d) = parse(Arc::new(SourceFile::new("p.yaml", text)));
        let steps = spec.and_then(|s| s.build).unwrap_or_default();
        (steps, d.iter().map(|d| d.message.clone()).collect())
    }

    #[test]
    fn reads_an_invocation_with_its_bindings() {
        let (steps, errors) = build_steps(
            "  - invoke: I/start\n    on: host\n    when: {set: Image}\n    \
             inputs: {Image: {property: Image}}\n    outputs: {Id: ContainerId}\n    \
             compensate: I/stop\n",
        );
        assert!(errors.is_empty(), "{errors:?}");
        let [
            StepSpec::Invoke {
                on,
                when,
                inputs,
                outputs,
                compensate,
                ..
            },
        ] = &steps[..]
        else {
            panic!("one invocation: {steps:?}")
        };
        assert!(matches!(on, On::Host));
        assert_eq!(when.len(), 1);
        assert_eq!(&*inputs[0].0, "Image");
        assert_eq!((&*outputs[0].0, &*outputs[0].1), ("Id", "ContainerId"));
        assert!(compensate.is_some());
    }

    #[test]
    fn keys_without_effect_and_bad_bindings_are_errors() {
        let (steps, errors) = build_steps(
            "  - state: STARTED\n    on: host\n  - invoke: I/start\n    inputs: [x]\n  - fail: no\n    inputs: {}\n",
        );
        assert!(steps.is_empty(), "a plugin with errors is not loaded");
        assert!(
            errors
                .iter()
                .any(|e| e == "`on` has no effect in a `state` step"),
            "{errors:?}"
        );
        assert!(
            errors
                .iter()
                .any(|e| e == "`inputs` must be a map of input name to value"),
            "{errors:?}"
        );
        assert!(
            errors
                .iter()
                .any(|e| e == "`inputs` has no effect in a `fail` step"),
            "{errors:?}"
        );
    }
}
