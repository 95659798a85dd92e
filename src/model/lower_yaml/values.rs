//! Values (1.3 §4): plain YAML values and function calls.
//!
//! In: a YAML node, the file it is written in, and what `SELF` is there.
//! Out: a model [`Value`]; calls stay calls, and the names they refer to
//! (inputs, templates, `SELF`/`SOURCE`/`TARGET`/`HOST` where they mean
//! something) are checked (E0410).

use super::fold;
use super::{Lowerer, This, Unit};
use crate::diagnostics::{Diagnostic, Span, codes};
use crate::model::Value;
use crate::yaml::functions::{Classified, SIMPLE_PROFILE, TOSCA_2, classify};
use crate::yaml::node::{Kind, Node};

impl<'a> Lowerer<'a> {
    pub(super) fn value(&mut self, node: &Node, unit: Unit<'a>, this: This) -> Value {
        match classify(node, unit.file.version.is_v2(), &unit.file.source) {
            Ok(Classified::Call(call)) => {
                let args: Vec<Value> = call
                    .args
                    .iter()
                    .map(|a| self.value(a, unit, this))
                    .collect();
                self.check_call(&call.name, &args, call.span, unit, this);
                if call.name == "get_input"
                    && let Some(given) = self.given_call(&args, call.span, unit)
                {
                    return given;
                }
                match call.name.as_str() {
                    "node_index" | "relationship_index" => {
                        return self.index(&call.name, call.span, unit, this);
                    }
                    "get_artifact" => return self.get_artifact(args, call.span, unit, this),
                    "matches" => {
                        if let Some(known) = self.known_match(&args, &call.args, unit) {
                            return known;
                        }
                    }
                    _ => {}
                }
                if let Some(known) = fold::fold(&call.name, &args) {
                    return known;
                }
                self.report_unevaluated(&call.name, &args, call.span, unit);
                Value::call(call.name, args)
            }
            Ok(Classified::Custom(call)) => self.custom_call(&call, node, unit, this),
            Ok(Classified::Escaped(s)) => Value::Scalar(s),
            Ok(Classified::Plain) => self.plain(node, unit, this),
            Err(d) => {
                let warning = d.severity == crate::diagnostics::Severity::Warning;
                self.push_once(d);
                if warning {
                    self.plain(node, unit, this)
                } else {
                    Value::Null
                }
            }
        }
    }

    /// `$matches` of a string and a pattern known when the plans are made
    /// (§10.2.2.2.7; patterns as `pattern.rs` reads them). One toscanini
    /// cannot read is reported at it, and the call is given to the
    /// operation as written.
    fn known_match(&mut self, args: &[Value], written: &[&Node], unit: Unit<'a>) -> Option<Value> {
        let ([Value::Scalar(text), Value::Scalar(pattern)], [_, at]) = (args, written) else {
            return None;
        };
        match self.regex(pattern) {
            Ok(re) => Some(Value::Scalar(re.is_match(text).to_string())),
            Err(why) => {
                self.push_once(
                    Diagnostic::warning(
                        codes::W_YAML_LENIENT,
                        format!("`$matches` pattern `{pattern}` is not evaluated: it {why}"),
                    )
                    .at(Self::at(unit, at.span))
                    .hint("toscanini reads patterns in the syntax of the Rust `regex` crate (no look-around, no backreferences); the operation is given the call as written"),
                );
                Some(Value::call("matches", args.to_vec()))
            }
        }
    }

    pub(super) fn plain(&mut self, node: &Node, unit: Unit<'a>, this: This) -> Value {
        match &node.kind {
            Kind::Null => Value::Null,
            Kind::Scalar { text, .. } => Value::Scalar(text.clone()),
            Kind::Seq(items) => {
                Value::List(items.iter().map(|i| self.value(i, unit, this)).collect())
            }
            Kind::Map(entries) => Value::Map(Box::new(
                entries
                    .iter()
                    .map(|(k, v)| {
                        (
                            k.as_str().unwrap_or_default().to_string(),
                            self.value(v, unit, this),
                        )
                    })
                    .collect(),
            )),
        }
    }

    /// W0311 for a call of a built-in function that neither toscanini
    /// (its arguments are known only at run time) nor the plans evaluate:
    /// the operation is given the call as written. Calls inside a
    /// validation clause (`$value`) are conditions, not values.
    fn report_unevaluated(&mut self, name: &str, args: &[Value], span: Span, unit: Unit<'a>) {
        let builtin = SIMPLE_PROFILE.contains(&name) || TOSCA_2.contains(&name);
        let meta = matches!(
            name,
            "value" | "node_index" | "relationship_index" | "available_allocation"
        );
        if unit.builtin
            || !builtin
            || meta
            || fold::EVALUATED_BY_PLANS.contains(&name)
            || crate::model::evaluated_at_run_time(name, args)
            || args.iter().any(names_value)
        {
            return;
        }
        let dollar = if unit.file.version.is_v2() { "$" } else { "" };
        self.push_once(
            Diagnostic::warning(
                codes::W_YAML_LENIENT,
                format!(
                    "`{dollar}{name}` depends on values known only when the plan runs, and the plans do not evaluate it: the call is passed on as written (JSON)"
                ),
            )
            .at(Self::at(unit, span))
            .hint("give the operation the values and let its implementation combine them; the plans evaluate `concat` and the functions of scalars (arithmetic, comparisons, booleans, `join`, `token`, `matches`, `length` of a string, …), and `valid_values` and `has_entry` of a list written in place"),
        );
    }

    /// `$node_index` and `$relationship_index` (2.0 §10.2.1.6–7): in a node
    /// template with a `count` the index is each representation's (left for
    /// `model::replicate` to put in); in any other node template, and in a
    /// relationship (one per requirement), it is 0. Another multiplicity
    /// (`occurrences`, `instance_count`) still gets one instance (W0412):
    /// index 0, with a warning. Outside its context the call is passed on
    /// as written, with a warning.
    fn index(&mut self, name: &str, span: Span, unit: Unit<'a>, this: This) -> Value {
        let zero = Value::Scalar("0".into());
        let (warning, hint) = match (name, this) {
            // Each representation's index, put in by `model::replicate`.
            ("node_index", This::Node(n)) if self.counted_nodes.contains(n) => {
                return Value::call(crate::model::replicate::NODE_INDEX, Vec::new());
            }
            ("node_index", This::Node(n)) if self.multiple_nodes.contains(n) => (
                format!(
                    "`$node_index` in node template `{n}` is 0: its multiplicity asks for several instances, but the plans create one"
                ),
                "drop the multiplicity, or give the value for the one instance",
            ),
            ("node_index", This::Node(_)) | ("relationship_index", This::Relationship) => {
                return zero;
            }
            ("node_index", _) => (
                "`$node_index` is used outside a node template, where it has no value: the call is passed on as written (JSON)".to_string(),
                "use `$node_index` only in a node template or the node type it uses",
            ),
            _ => (
                "`$relationship_index` is used outside a relationship, where it has no value: the call is passed on as written (JSON)".to_string(),
                "use `$relationship_index` only in a requirement, a relationship template or the relationship type it uses",
            ),
        };
        if !unit.builtin {
            self.push_once(
                Diagnostic::warning(codes::W_YAML_LENIENT, warning)
                    .at(Self::at(unit, span))
                    .hint(hint),
            );
        }
        match this {
            This::Node(_) if name == "node_index" => zero,
            _ => Value::call(name, Vec::new()),
        }
    }

    /// Check the names a call refers to (E0410).
    fn check_call(&mut self, name: &str, args: &[Value], span: Span, unit: Unit<'a>, this: This) {
        let problem = match name {
            "get_input" => match args.first() {
                Some(Value::Scalar(input)) if !self.inputs.contains(input) => Some(format!(
                    "`get_input` names `{input}`, which is not an input of the topology"
                )),
                _ => None,
            },
            "get_property" | "get_attribute" | "get_operation_output" | "get_artifact" => {
                match args.first().and_then(Value::as_str) {
                    Some("SELF") if this == This::Nothing => {
                        Some(format!("`{name}` of `SELF` outside a template"))
                    }
                    Some("SOURCE" | "TARGET") if this != This::Relationship => Some(format!(
                        "`{name}` of `{}` outside a relationship",
                        args[0].as_str().unwrap_or_default()
                    )),
                    Some("HOST") if !matches!(this, This::Node(_)) => {
                        Some(format!("`{name}` of `HOST` outside a node template"))
                    }
                    Some("SELF" | "SOURCE" | "TARGET" | "HOST") => None,
                    Some(entity)
                        if !self.node_names.contains(entity)
                            && !self.rel_template_names.contains(entity) =>
                    {
                        Some(format!(
                            "`{name}` names `{entity}`, which is not a node or relationship template"
                        ))
                    }
                    _ => None,
                }
            }
            _ => None,
        };
        if let Some(message) = problem {
            if unit.builtin {
                return;
            }
            let hint = if name == "get_input" {
                "declare it under `inputs` of the topology template (or of the workflow)"
            } else {
                "use SELF, SOURCE, TARGET, HOST or the name of a template"
            };
            self.push_once(
                Diagnostic::error(codes::BAD_FUNCTION_REFERENCE, message)
                    .at(Self::at(unit, span))
                    .hint(hint),
            );
        }
    }
}

/// Whether a value holds a `$value` call (a validation clause's subject).
pub(super) fn names_value(v: &Value) -> bool {
    match v {
        Value::Call(c) => c.function == "value" || c.args.iter().any(names_value),
        Value::List(l) => l.iter().any(names_value),
        Value::Map(m) => m.values().any(names_value),
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::super::lower_text;
    use crate::model::Value;

    /// The values of `app`'s create inputs, as JSON, and the diagnostics.
    fn create_inputs(inputs: &str) -> (Vec<(String, String)>, String) {
        let text = format!(
            "tosca_definitions_version: tosca_2_0\n\
             node_types:\n  App:\n    interfaces:\n      Standard:\n        operations:\n          create:\n            implementation: c.sh\n            inputs:\n{inputs}\n\
             service_template:\n  node_templates:\n    app: {{type: App}}\n"
        );
        let (t, d) = lower_text(&text);
        let t = t.unwrap();
        let app = t.node(t.node_by_id("app").unwrap());
        let op = app.operation("Standard", "create").unwrap();
        let values = op
            .inputs
            .iter()
            .map(|p| {
                let v = p.value.clone().unwrap_or(Value::Null);
                (p.name.to_string(), v.to_json().to_string())
            })
            .collect();
        (values, format!("{d:?}"))
    }

    #[test]
    fn list_map_and_pattern_functions_are_evaluated_when_known() {
        let (values, diags) = create_inputs(
            "              has: {$has_entry: [[a, b], b]}\n\
             \x20             valid: {$valid_values: [c, [a, b]]}\n\
             \x20             key: {$has_key: [{k: v}, k]}\n\
             \x20             all: {$has_all_entries: [[1, 2, 3], [3, 1]]}\n\
             \x20             run: {$contains: [[1, 2, 3], [2, 3]]}\n\
             \x20             joined: {$concat: [[a], [b, c]]}\n\
             \x20             match: {$matches: [db-12, '^db-[0-9]+$']}\n\
             \x20             nomatch: {$matches: [x-db, '^db']}\n\
             \x20             lookaround: {$matches: [db, '(?=d)']}",
        );
        let want = [
            ("has", "\"true\""),
            ("valid", "\"false\""),
            ("key", "\"true\""),
            ("all", "\"true\""),
            ("run", "\"true\""),
            ("joined", "[\"a\",\"b\",\"c\"]"),
            ("match", "\"true\""),
            ("nomatch", "\"false\""),
            ("lookaround", "{\"matches\":[\"db\",\"(?=d)\"]}"),
        ];
        let got: Vec<(&str, &str)> = values
            .iter()
            .map(|(n, v)| (n.as_str(), v.as_str()))
            .collect();
        assert_eq!(got, want);
        assert!(
            diags.contains("`$matches` pattern `(?=d)` is not evaluated: it uses look-around"),
            "{diags}"
        );
    }
}
