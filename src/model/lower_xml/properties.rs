//! Property values of templates (TOSCA 1.0 §12.1): the children of the
//! `<Properties>` element.
//!
//! In: the properties element and the keys the type declares. Out: model
//! properties, declared keys first; OpenTOSCA's `get_input: X` values
//! become input references.

use super::Lowerer;
use crate::model::Value;
use crate::xml::ast;

impl<'a> Lowerer<'a> {
    pub(super) fn properties(
        &mut self,
        doc: Option<&ast::PropertiesDoc>,
        keys: &[String],
    ) -> crate::model::Properties {
        let mut out = crate::model::Properties::new();
        if let Some(doc) = doc {
            for v in &doc.values {
                out.insert(self.names.get(&v.name), property_value(&v.value));
            }
        }
        for k in keys {
            if !out.contains_key(k.as_str()) {
                out.insert(self.names.get(k), Value::Scalar(String::new()));
            }
        }
        out
    }
}

/// A TOSCA 1.0 property text: `get_input: X` is OpenTOSCA's input convention.
fn property_value(text: &str) -> Value {
    match text.strip_prefix("get_input:") {
        Some(name) if !name.trim().is_empty() => Value::input(name.trim()),
        _ => Value::Scalar(text.to_string()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_opentosca_input_convention() {
        assert_eq!(property_value("get_input: Port"), Value::input("Port"));
        assert_eq!(property_value("80"), Value::Scalar("80".into()));
    }
}
