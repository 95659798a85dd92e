//! Imperative workflows (1.3 §3.8.7, §7.3): inputs, preconditions and
//! steps with their targets, activities and links.
//!
//! In: the YAML node of that section. Out: its AST; keys TOSCA does not
//! define there are warnings (W0304), values of the wrong kind errors
//! (E0302).

use super::Reader;
use crate::diagnostics::{Diagnostic, Span, codes};
use crate::yaml::ast::{
    ActivityKind, Precondition, Spanned, Workflow, WorkflowActivity, WorkflowStep,
};
use crate::yaml::node::{Kind, Node};

impl<'a> Reader<'a> {
    pub(super) fn workflow(&mut self, name: Spanned, node: &Node) -> Workflow {
        let what = format!("workflow `{}`", name.text);
        let mut w = Workflow {
            span: Span::new(name.span.start, node.span.end.max(name.span.end)),
            name,
            description: None,
            metadata: Vec::new(),
            inputs: Vec::new(),
            preconditions: Vec::new(),
            steps: Vec::new(),
            implementation: None,
        };
        for (k, v) in self.entries(
            node,
            &what,
            &[
                "description",
                "metadata",
                "inputs",
                "preconditions",
                "precondition",
                "steps",
                "implementation",
                "outputs",
            ],
        ) {
            match k.text.as_str() {
                "description" => w.description = v.as_str().map(str::to_string),
                "metadata" => w.metadata = self.string_map(v, "metadata"),
                "inputs" => w.inputs = self.property_defs(v, "inputs"),
                // 2.0 §13.1: attribute mappings the workflow's plan would
                // return; its response carries the plan instance only.
                "outputs" => self.ignored(
                    k.span,
                    format!("the `outputs` of workflow `{}` are not returned: the workflow's plan answers with its plan instance only", w.name.text),
                    "read the values from the instances' attributes once the plan has run",
                ),
                "preconditions" | "precondition" => {
                    let items: Vec<&Node> = match &v.kind {
                        Kind::Seq(s) => s.iter().collect(),
                        Kind::Null => Vec::new(),
                        _ => vec![v],
                    };
                    for p in items {
                        let mut pre = Precondition {
                            target: None,
                            target_relationship: None,
                            condition: None,
                            span: p.span,
                        };
                        for (pk, pv) in self.entries(
                            p,
                            "a precondition",
                            &["target", "target_relationship", "condition"],
                        ) {
                            match pk.text.as_str() {
                                "target" => pre.target = self.string(pv, "target"),
                                "target_relationship" => {
                                    pre.target_relationship = self.string(pv, "target_relationship")
                                }
                                "condition" => pre.condition = Some(pv.clone()),
                                _ => {}
                            }
                        }
                        w.preconditions.push(pre);
                    }
                }
                "steps" => {
                    for (sname, sv) in self.entries(v, "steps", &[]) {
                        let step = self.step(sname, sv);
                        w.steps.push(step);
                    }
                }
                "implementation" => w.implementation = self.implementation(v),
                _ => {}
            }
        }
        w
    }

    fn step(&mut self, name: Spanned, node: &Node) -> WorkflowStep {
        let what = format!("step `{}`", name.text);
        let mut s = WorkflowStep {
            name,
            target: None,
            target_relationship: None,
            operation_host: None,
            filter: None,
            activities: Vec::new(),
            on_success: Vec::new(),
            on_failure: Vec::new(),
            span: node.span,
        };
        // A step with nothing under it (`D:`) is an empty step.
        if !matches!(node.kind, Kind::Map(_) | Kind::Null) {
            self.wrong_kind(node, &what, "a map");
            return s;
        }
        for (k, v) in self.entries(
            node,
            &what,
            &[
                "target",
                "target_relationship",
                "operation_host",
                "filter",
                "activities",
                "on_success",
                "on_failure",
            ],
        ) {
            match k.text.as_str() {
                "target" => s.target = self.string(v, "target"),
                "target_relationship" => {
                    s.target_relationship = self.string(v, "target_relationship")
                }
                "operation_host" => s.operation_host = self.string(v, "operation_host"),
                "filter" => s.filter = Some(v.clone()),
                "on_success" => s.on_success = self.string_list(v, "on_success"),
                "on_failure" => s.on_failure = self.string_list(v, "on_failure"),
                "activities" => {
                    let items = match &v.kind {
                        Kind::Seq(items) => items.as_slice(),
                        Kind::Null => &[],
                        _ => {
                            self.wrong_kind(v, "activities", "a list");
                            &[]
                        }
                    };
                    for item in items {
                        if let Some(a) = self.activity(item) {
                            s.activities.push(a);
                        }
                    }
                }
                _ => {}
            }
        }
        s
    }

    fn activity(&mut self, node: &Node) -> Option<WorkflowActivity> {
        let Some([(k, v)]) = node.as_map() else {
            self.wrong_kind(
                node,
                "an activity",
                "a map with one key (delegate, set_state, call_operation or inline)",
            );
            return None;
        };
        let key = k.as_str().unwrap_or_default();
        let kind = match key {
            "delegate" => ActivityKind::Delegate,
            "set_state" => ActivityKind::SetState,
            "call_operation" => ActivityKind::CallOperation,
            "inline" => ActivityKind::Inline,
            other => {
                self.diags.push(
                    Diagnostic::error(
                        codes::YAML_WRONG_KIND,
                        format!("`{other}` is not a workflow activity"),
                    )
                    .at(self.source.location(k.span))
                    .hint("an activity is one of delegate, set_state, call_operation, inline"),
                );
                return None;
            }
        };
        let main = match kind {
            ActivityKind::CallOperation => "operation",
            _ => "workflow",
        };
        let (argument, inputs) = match &v.kind {
            Kind::Scalar { text, .. } => (Spanned::new(text.clone(), v.span), Vec::new()),
            Kind::Map(_) if !matches!(kind, ActivityKind::SetState) => {
                let mut arg = None;
                let mut inputs = Vec::new();
                for (ak, av) in self.entries(v, key, &[main, "inputs"]) {
                    if ak.text == main {
                        arg = self.string(av, main);
                    } else if ak.text == "inputs" {
                        inputs = self.assignments(av, "inputs");
                    }
                }
                let Some(arg) = arg else {
                    self.diags.push(
                        Diagnostic::error(
                            codes::YAML_MISSING_KEY,
                            format!("`{key}` has no `{main}`"),
                        )
                        .at(self.source.location(v.span)),
                    );
                    return None;
                };
                (arg, inputs)
            }
            _ => {
                self.wrong_kind(v, key, "a string");
                return None;
            }
        };
        Some(WorkflowActivity {
            kind,
            argument,
            inputs,
            span: node.span,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::super::read_text;
    use crate::diagnostics::codes;

    #[test]
    fn a_workflow_s_outputs_are_said_not_to_be_returned() {
        let (file, d) = read_text(
            "tosca_definitions_version: tosca_simple_yaml_1_3\ntopology_template:\n  workflows:\n    \
             deploy:\n      outputs: {url: [web, url]}\n      steps: {}\n",
        );
        assert_eq!(file.topology.unwrap().workflows.len(), 1);
        let found: Vec<&str> = d.iter().map(|d| d.code).collect();
        assert_eq!(found, [codes::W_IGNORED]);
        assert!(
            d.iter()
                .next()
                .unwrap()
                .message
                .starts_with("the `outputs` of workflow `deploy`")
        );
    }
}
