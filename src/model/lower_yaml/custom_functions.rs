//! Calls of custom functions (2.0 §6.6, §10.4): functions that are not
//! built in, defined under `functions` in a file of the service template
//! or its profiles, or supplied by an orchestrator (the text allows calls
//! without a definition). The plans evaluate none of them: a call reaches
//! the operation as written (its JSON), which a warning says.
//!
//! In: a call and where it is written. Out: its value as written; an error
//! (E0309) where the function is defined and no signature takes that many
//! arguments, else a warning (W0311).

use super::{Lowerer, This, Unit};
use crate::diagnostics::{Diagnostic, codes};
use crate::model::Value;
use crate::yaml::ast::Signature;
use crate::yaml::functions::Call;
use crate::yaml::node::Node;

impl<'a> Lowerer<'a> {
    /// The value of the custom call `call` written as `node`.
    pub(super) fn custom_call(
        &mut self,
        call: &Call,
        node: &Node,
        unit: Unit<'a>,
        this: This,
    ) -> Value {
        let value = self.plain(node, unit, this);
        if unit.builtin {
            return value;
        }
        let name = &call.name;
        let n = call.args.len();
        let signatures: Vec<Signature> = self
            .units
            .iter()
            .flat_map(|u| &u.file.functions)
            .filter(|f| f.name.text == *name)
            .flat_map(|f| f.signatures.iter().cloned())
            .collect();
        let defined = self
            .units
            .iter()
            .any(|u| u.file.functions.iter().any(|f| f.name.text == *name));
        if defined && !signatures.iter().any(|s| s.accepts(n)) {
            let takes: Vec<String> = signatures.iter().map(describe).collect();
            self.push_once(
                Diagnostic::error(
                    codes::YAML_FUNCTION,
                    format!(
                        "`${name}` has {n} argument{}, but its signatures take {}",
                        if n == 1 { "" } else { "s" },
                        takes.join(" or ")
                    ),
                )
                .at(Self::at(unit, call.span))
                .hint("give the arguments one of the signatures under `functions` defines (2.0 §10.4)"),
            );
            return value;
        }
        if super::values::names_value(&value) {
            // A condition of a validation clause, not a value for an operation.
            return value;
        }
        let what = if defined {
            "is a custom function (defined under `functions`), which the plans do not evaluate"
        } else {
            "is neither a TOSCA 2.0 function nor defined under `functions`"
        };
        self.push_once(
            Diagnostic::warning(
                codes::W_YAML_LENIENT,
                format!("`${name}` {what}: the call is passed on as written (JSON)"),
            )
            .at(Self::at(unit, call.span))
            .hint("the operation's implementation gets the call and must evaluate it; or give the value instead"),
        );
        value
    }
}

/// What a signature takes, for a message: `1`, `1 to 3`, `2 or more`.
fn describe(s: &Signature) -> String {
    let (required, optional) = (s.arguments, s.optional);
    if s.variadic {
        format!("{required} or more")
    } else if optional == 0 {
        required.to_string()
    } else {
        format!("{required} to {}", required + optional)
    }
}

#[cfg(test)]
mod tests {
    use super::super::lower_text;
    use crate::diagnostics::codes;

    const FUNCTIONS: &str = "tosca_definitions_version: tosca_2_0
functions:
  sqrt:
    signatures:
    - arguments: [ integer ]
    - arguments: [ float, float ]
      optional_arguments: [ string ]
  concat_all:
    signatures:
    - arguments: [ string ]
      variadic: true
";

    fn messages(body: &str) -> Vec<(String, String)> {
        let (_, d) = lower_text(&format!("{FUNCTIONS}{body}"));
        d.iter()
            .map(|d| (d.code.to_string(), d.message.clone()))
            .collect()
    }

    #[test]
    fn a_call_that_fits_a_signature_is_passed_on_and_one_that_does_not_is_an_error() {
        let body = "service_template:
  node_templates:
    a:
      type: tosca.nodes.Root
      properties:
        one: { $sqrt: 4 }
        three: { $sqrt: [ 1.0, 2.0, x ] }
        many: { $concat_all: [ a, b, c, d ] }
        none: $concat_all
        four: { $sqrt: [ 1, 2, 3, 4 ] }
        other: { $random: [ 7 ] }
";
        let m = messages(body);
        let errors: Vec<&str> = m
            .iter()
            .filter(|(c, _)| c == codes::YAML_FUNCTION)
            .map(|(_, m)| m.as_str())
            .collect();
        assert_eq!(
            errors,
            [
                "`$concat_all` has 0 arguments, but its signatures take 1 or more",
                "`$sqrt` has 4 arguments, but its signatures take 1 or 2 to 3",
            ]
        );
        let passed: Vec<&str> = m
            .iter()
            .filter(|(c, m)| c == codes::W_YAML_LENIENT && m.starts_with("`$"))
            .map(|(_, m)| m.as_str())
            .collect();
        assert_eq!(passed.len(), 4, "{passed:#?}");
        assert!(passed[3].starts_with("`$random` is neither a TOSCA 2.0 function"));
    }
}
