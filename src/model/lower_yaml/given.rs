//! Input values given when the plans are made (`--input NAME=VALUE`, see
//! [`crate::yaml::given`]): each takes the place of every `get_input` of
//! its input in the entry's topology (so functions of it are evaluated
//! here, and the plans no longer ask for it) and of the input's default
//! (so a `count` from it is known, without W0412).
//!
//! In: the document of given values. Out: the values, checked against
//! their inputs' definitions (E0317); E0318 for a name that is no input
//! of the topology, or an item a `get_input` asks for that the value
//! lacks.

use foldhash::HashMap;

use super::{Lowerer, Unit};
use crate::diagnostics::{Diagnostic, Span, codes};
use crate::model::Value;
use crate::yaml::ast;
use crate::yaml::node::{Kind, Node};

/// The given values and the document they are in.
pub(super) struct Given<'a> {
    /// The document, as a unit (for locations and its YAML rules).
    pub(super) unit: Unit<'a>,
    /// Each value by input name, with its key (where the name was given).
    pub(super) values: HashMap<&'a str, (&'a Node, &'a Node)>,
}

impl<'a> Given<'a> {
    /// The values of `file` (a map, as [`crate::yaml::given::document`]
    /// writes it), read with `scope`.
    pub(super) fn new(file: &'a ast::File, scope: &'a [String]) -> Given<'a> {
        let mut values = HashMap::default();
        if let Kind::Map(entries) = &file.root.kind {
            for (k, v) in entries {
                values.insert(k.as_str().unwrap_or_default(), (k, v));
            }
        }
        Given {
            unit: Unit {
                file,
                scope,
                builtin: false,
            },
            values,
        }
    }
}

impl<'a> Lowerer<'a> {
    /// The value given to input `name`, where the entry's topology (not a
    /// substituting template's, whose inputs its node maps) is lowered.
    pub(super) fn given(&self, name: &str) -> Option<&'a Node> {
        if self.stack.len() > 1 {
            return None;
        }
        self.given.as_ref()?.values.get(name).map(|(_, v)| *v)
    }

    /// Where `value` is `{ $get_input: name }` of an input given with
    /// --input: the name, the given value and the document it is in.
    pub(super) fn given_input_of(&self, value: &Node) -> Option<(&'a str, &'a Node, Unit<'a>)> {
        let name = crate::yaml::functions::input_argument(value)?.as_str()?;
        let given = self.given.as_ref()?;
        let (key, node) = given.values.get(name)?;
        self.given(name)?;
        Some((key.as_str()?, node, given.unit))
    }

    /// A `get_input` call's value where its input was given: the value,
    /// or the item of it the further arguments name (2.0 §10.2.1.1).
    pub(super) fn given_call(
        &mut self,
        args: &[Value],
        span: Span,
        unit: Unit<'a>,
    ) -> Option<Value> {
        let (Some(Value::Scalar(name)), rest) = (args.first(), args.get(1..).unwrap_or_default())
        else {
            return None;
        };
        let mut node = self.given(name)?;
        for key in rest {
            let key = key.as_str().unwrap_or_default();
            let item = match &node.kind {
                Kind::Seq(items) => key.parse::<usize>().ok().and_then(|i| items.get(i)),
                Kind::Map(entries) => entries
                    .iter()
                    .find(|(k, _)| k.as_str() == Some(key))
                    .map(|(_, v)| v),
                _ => None,
            };
            let Some(item) = item else {
                self.push_once(
                    Diagnostic::error(
                        codes::INPUT_GIVEN,
                        format!("`get_input` asks input `{name}` for item `{key}`, which the value given with --input does not have"),
                    )
                    .at(Self::at(unit, span))
                    .hint("give the input a value with that item, or ask for one it has"),
                );
                return Some(Value::Null);
            };
            node = item;
        }
        Some(data(node))
    }

    /// Check each given value against its input's definition (E0317),
    /// and that each names an input (E0318). `inputs` are the
    /// topology's.
    pub(super) fn check_given(&mut self, inputs: &'a [ast::PropertyDef], unit: Unit<'a>) {
        let Some(given) = self.given.as_ref() else {
            return;
        };
        let given_unit = given.unit;
        let mut names: Vec<(&'a str, &'a Node)> =
            given.values.iter().map(|(n, (k, _))| (*n, *k)).collect();
        names.sort_by_key(|(_, k)| k.span.start);
        for (name, key) in names {
            let Some(def) = inputs.iter().find(|i| i.name.text == name) else {
                let declared: Vec<String> = inputs
                    .iter()
                    .map(|i| format!("`{}`", i.name.text))
                    .collect();
                let hint = if declared.is_empty() {
                    "the topology declares no inputs; leave out --input".to_string()
                } else {
                    format!("its inputs are {}", declared.join(", "))
                };
                self.diags.push(
                    Diagnostic::error(
                        codes::INPUT_GIVEN,
                        format!("--input gives `{name}`, which is not an input of the topology"),
                    )
                    .at(Self::at(given_unit, key.span))
                    .hint(hint),
                );
                continue;
            };
            if let Some(value) = self.given(name) {
                self.check_given_input(def, value, given_unit, unit);
            }
        }
    }
}

/// A given value as a model value: data, never a function call.
pub(super) fn data(node: &Node) -> Value {
    match &node.kind {
        Kind::Null => Value::Null,
        Kind::Scalar { text, .. } => Value::Scalar(text.clone()),
        Kind::Seq(items) => Value::List(items.iter().map(data).collect()),
        Kind::Map(entries) => Value::Map(Box::new(
            entries
                .iter()
                .map(|(k, v)| (k.as_str().unwrap_or_default().to_string(), data(v)))
                .collect(),
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::super::lower_given;
    use crate::diagnostics::codes;
    use crate::model::Value;

    const SERVICE: &str = "tosca_definitions_version: tosca_2_0\nimports:\n  - profile: org.oasis-open.simple:2.0\nnode_types:\n  Leaf:\n    derived_from: tosca.nodes.Root\n    \
        properties: {ports: {type: string}, first: {type: integer}, label: {type: string}}\nservice_template:\n  \
        inputs:\n    num: {type: integer, default: 2}\n    ports: {type: list, entry_schema: integer}\n    \
        label: {type: string, default: x}\n  node_templates:\n    hub: {type: tosca.nodes.Root}\n    \
        leaf:\n      type: Leaf\n      count: {$get_input: num}\n      \
        properties: {ports: {$join: [{$get_input: ports}, \",\"]}, first: {$get_input: [ports, 1]}, label: {$get_input: label}}\n      \
        requirements: [{dependency: hub}]\n";

    #[test]
    fn a_given_value_is_the_count_and_every_get_input_of_it() {
        let (t, d) = lower_given(SERVICE, &[("num", "4"), ("ports", "[80, 443]")]);
        let t = t.unwrap();
        assert!(!d.has_errors(), "{d:?}");
        // The count is the given value, without W0412.
        assert!(t.node_by_id("leaf_3").is_some());
        assert!(t.node_by_id("leaf_4").is_none());
        assert!(!d.iter().any(|d| d.code == codes::W_IGNORED), "{d:?}");
        // Functions of a given value are evaluated; an input not given is
        // still the plans' to ask for.
        let leaf = t.node(t.node_by_id("leaf").unwrap());
        assert_eq!(leaf.properties["ports"].as_str(), Some("80,443"));
        assert_eq!(leaf.properties["first"].as_str(), Some("443"));
        assert_eq!(leaf.properties["label"].as_input(), Some("label"));
        assert!(t.inputs["num"].given && t.inputs["ports"].given && !t.inputs["label"].given);
        assert_eq!(t.inputs["num"].default, Some(Value::Scalar("4".into())));
    }

    #[test]
    fn a_given_value_must_be_of_its_input_and_name_one() {
        let (_, d) = lower_given(SERVICE, &[("num", "many"), ("nums", "3")]);
        let found: Vec<(&str, &str)> = d
            .iter()
            .filter(|d| d.code.starts_with('E'))
            .map(|d| (d.code, d.message.as_str()))
            .collect();
        assert_eq!(
            found,
            [
                (
                    codes::YAML_VALUE,
                    "the value --input gives input `num`: `many` is not an integer"
                ),
                (
                    codes::INPUT_GIVEN,
                    "--input gives `nums`, which is not an input of the topology"
                ),
            ]
        );
        let located = d.iter().find(|d| d.code == codes::INPUT_GIVEN).unwrap();
        let at = located.location.as_ref().unwrap();
        assert_eq!((at.file.as_str(), at.line, at.column), ("--input", 2, 1));
        // A property given by a given input is checked with its value.
        let (_, d) = lower_given(
            &SERVICE
                .replace("label: {$get_input: label}", "first: {$get_input: label}")
                .replace("first: {$get_input: [ports, 1]}, ", ""),
            &[("label", "many")],
        );
        let bad: Vec<&str> = d
            .iter()
            .filter(|d| d.code == codes::YAML_VALUE && d.message.contains("`first`"))
            .map(|d| d.message.as_str())
            .collect();
        assert_eq!(
            bad,
            [
                "property `first` of `leaf` (input `label`, given with --input): `many` is not an integer"
            ]
        );
        // An item the value does not have.
        let (_, d) = lower_given(SERVICE, &[("ports", "[80]")]);
        assert!(
            d.iter()
                .any(|d| d.code == codes::INPUT_GIVEN && d.message.contains("item `1`")),
            "{d:?}"
        );
    }
}
