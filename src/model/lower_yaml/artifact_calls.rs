//! `get_artifact` (1.3 §4.8.1, 2.0 §10.2.1.4): the plans give the operation
//! the artifact's location as the URL the container serves it at (as they
//! give deployment artifacts), so the artifact must be known when the plans
//! are made: that of a node template named directly, or as `SELF` or `HOST`
//! in a node template's context.
//!
//! In: a call's lowered arguments and where it is written. Out: the call
//! the plugins bind (`[entity, artifact]`), or the call as written where
//! the plans cannot honour it (W0311); after the topology is made, an error
//! (E0410) for each call whose node has no such artifact.

use super::{Lowerer, This, Unit};
use crate::diagnostics::{Diagnostic, Location, Span, codes};
use crate::model::{Topology, Value};

/// A `get_artifact` call to check once the topology is made.
pub(super) struct ArtifactCall {
    /// The node template whose context the call is in (for `SELF`, `HOST`).
    context: Option<String>,
    /// `SELF`, `HOST` or a node template name.
    entity: String,
    /// The artifact's name.
    artifact: String,
    /// Where the call is written.
    at: Location,
}

impl<'a> Lowerer<'a> {
    /// The value of a `get_artifact` call with lowered `args`.
    pub(super) fn get_artifact(
        &mut self,
        args: Vec<Value>,
        span: Span,
        unit: Unit<'a>,
        this: This,
    ) -> Value {
        let v2 = unit.file.version.is_v2();
        let d = if v2 { "$" } else { "" };
        let (entity, artifact) = match args.as_slice() {
            [Value::Scalar(e), Value::Scalar(a), ..] => (e.clone(), a.clone()),
            _ => return Value::call("get_artifact", args),
        };
        let passed_on = if v2 && args.len() > 2 {
            Some(format!(
                "`{d}get_artifact` with the TOSCA path `{}` traverses the representation graph, which the plans do not do for artifacts: the call is passed on as written (JSON)",
                args[..args.len() - 1]
                    .iter()
                    .filter_map(Value::as_str)
                    .collect::<Vec<_>>()
                    .join(", ")
            ))
        } else {
            match (entity.as_str(), this) {
                ("SELF" | "SOURCE" | "TARGET", This::Relationship) => Some(format!(
                    "`{d}get_artifact` of `{entity}` in a relationship: the plans give artifacts of node templates, named or as `SELF` or `HOST` in a node template; the call is passed on as written (JSON)"
                )),
                // Elsewhere these keywords are E0410 (`check_call`).
                ("SELF" | "SOURCE" | "TARGET" | "HOST", This::Nothing | This::Relationship) => {
                    return Value::call("get_artifact", args);
                }
                _ => None,
            }
        };
        if let Some(message) = passed_on {
            self.warn_artifact(
                message,
                "name the artifact's node template, or use SELF or HOST in a node template, with the artifact name alone",
                span,
                unit,
            );
            return Value::call("get_artifact", args);
        }
        if args.len() > 2 {
            let extra: Vec<&str> = args[2..].iter().filter_map(Value::as_str).collect();
            self.warn_artifact(
                format!(
                    "`{d}get_artifact` with location and remove arguments (`{}`): the plans give the operation the artifact's URL, as the container serves it; they do not copy the file to a location or remove it",
                    extra.join(", ")
                ),
                "leave out the location and remove arguments: the operation's implementation fetches the file from the URL",
                span,
                unit,
            );
        }
        if !unit.builtin {
            self.artifact_calls.push(ArtifactCall {
                context: match this {
                    This::Node(n) => Some(n.to_string()),
                    _ => None,
                },
                entity: entity.clone(),
                artifact: artifact.clone(),
                at: Self::at(unit, span),
            });
        }
        Value::call(
            "get_artifact",
            vec![Value::Scalar(entity), Value::Scalar(artifact)],
        )
    }

    fn warn_artifact(&mut self, message: String, hint: &str, span: Span, unit: Unit<'a>) {
        if unit.builtin {
            return;
        }
        self.push_once(
            Diagnostic::warning(codes::W_YAML_LENIENT, message)
                .at(Self::at(unit, span))
                .hint(hint),
        );
    }

    /// E0410 for each `get_artifact` call whose node has no such artifact
    /// (neither a deployment artifact nor one an operation is implemented by).
    pub(super) fn check_artifact_calls(&mut self, t: &Topology) {
        for call in std::mem::take(&mut self.artifact_calls) {
            let context = call.context.as_deref().and_then(|c| t.node_by_id(c));
            let node = match call.entity.as_str() {
                "SELF" => context,
                "HOST" => context.and_then(|n| t.host(n)),
                name => t.node_by_id(name),
            };
            let (problem, hint) = match node {
                None if call.entity == "HOST" => (
                    format!(
                        "`get_artifact` of `HOST` in `{}`, which is hosted on nothing",
                        call.context.as_deref().unwrap_or_default()
                    ),
                    "name the node template that has the artifact instead of HOST",
                ),
                // A name that is no node template is reported as such.
                None => continue,
                Some(n) if t.node(n).artifact(&call.artifact).is_none() => (
                    format!(
                        "`get_artifact` names artifact `{}` of `{}`, which has no artifact of that name",
                        call.artifact,
                        t.node(n).id
                    ),
                    "define the artifact under `artifacts` of the node template or of its type",
                ),
                Some(_) => continue,
            };
            self.push_once(
                Diagnostic::error(codes::BAD_FUNCTION_REFERENCE, problem)
                    .at(call.at)
                    .hint(hint),
            );
        }
    }
}
