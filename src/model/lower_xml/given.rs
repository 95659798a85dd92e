//! Input values given when the plans are made (`--input NAME=VALUE`, see
//! [`crate::yaml::given`]) for a TOSCA 1.0 topology: its inputs are
//! OpenTOSCA's `get_input: NAME` property values, which the build plan
//! otherwise asks for when it runs. A given value takes their place.
//!
//! In: the lowered topology and the document of given values. Out: the
//! properties with the values in, each given input recorded (as given) in
//! the topology's inputs; E0318 for a value that is not text or for a
//! name no property reads.

use crate::diagnostics::{Diagnostic, Diagnostics, codes};
use crate::model::{InputDef, Properties, Topology, Value};
use crate::yaml::ast::File;
use crate::yaml::node::Kind;

/// Put the given values in place of the `get_input`s of them.
pub(crate) fn bind(topology: &mut Topology, given: &File) -> Diagnostics {
    let mut diags = Diagnostics::new();
    let Kind::Map(entries) = &given.root.kind else {
        return diags;
    };
    for (key, value) in entries {
        let name = key.as_str().unwrap_or_default();
        let at = given.source.location(key.span);
        let Some(text) = value.as_str() else {
            diags.push(
                Diagnostic::error(
                    codes::INPUT_GIVEN,
                    format!(
                        "--input gives `{name}` a list or map; a TOSCA 1.0 property value is text"
                    ),
                )
                .at(given.source.location(value.span))
                .hint("give the input one value (quote it if it has `:` or `,`)"),
            );
            continue;
        };
        let bound = bind_one(topology, name, text);
        if bound == 0 {
            diags.push(
                Diagnostic::error(
                    codes::INPUT_GIVEN,
                    format!("--input gives `{name}`, which no property of the topology reads (`get_input: {name}`)"),
                )
                .at(at)
                .hint("the inputs of a TOSCA 1.0 topology are the property values `get_input: NAME`; give one of those"),
            );
            continue;
        }
        topology.inputs.insert(
            name.to_string(),
            InputDef {
                name: name.to_string(),
                type_name: None,
                default: Some(Value::Scalar(text.to_string())),
                required: false,
                given: true,
            },
        );
    }
    diags
}

/// Replace `get_input: name` by `text` in every template's properties;
/// how many were.
fn bind_one(topology: &mut Topology, name: &str, text: &str) -> usize {
    let replace = |properties: &mut Properties| {
        let mut n = 0;
        for v in properties.values_mut() {
            if v.as_input() == Some(name) {
                *v = Value::Scalar(text.to_string());
                n += 1;
            }
        }
        n
    };
    let nodes: usize = topology
        .nodes
        .iter_mut()
        .map(|n| replace(&mut n.properties))
        .sum();
    let rels: usize = topology
        .relationships
        .iter_mut()
        .map(|r| replace(&mut r.properties))
        .sum();
    nodes + rels
}
