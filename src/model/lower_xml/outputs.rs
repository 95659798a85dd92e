//! Plan outputs from the boundary definitions' property mappings
//! (TOSCA 1.0 §3.8).
//!
//! In: `<PropertyMapping>`s of the service template's boundary. Out:
//! model [`OutputDef`]s reading a node template's property (or OpenTOSCA's
//! `concat(...)` of such properties and text); a mapping that cannot be
//! read or names a missing property is dropped with a warning.

use super::Lowerer;
use crate::diagnostics::{Diagnostic, codes};
use crate::model::{OutputDef, Topology, Value};
use crate::xml::ast::{self, Definitions};

impl<'a> Lowerer<'a> {
    /// Build plan outputs from the boundary property mappings.
    pub(super) fn outputs(
        &mut self,
        st: &ast::ServiceTemplate,
        doc: &Definitions,
        topology: &Topology,
    ) -> Vec<OutputDef> {
        let Some(b) = &st.boundary else {
            return Vec::new();
        };
        let mut out = Vec::new();
        for m in &b.property_mappings {
            let name = last_xpath_step(&m.service_template_property);
            if name.is_empty() {
                continue;
            }
            let loc = doc.source.location(b.span);
            let value = match parse_property_ref(&m.target_object, &m.target_property) {
                Ok(v) => v,
                Err(why) => {
                    self.diags.push(
                        Diagnostic::warning(
                            codes::W_IGNORED,
                            format!(
                                "boundary property mapping `{name}` is not a plan output: {why}"
                            ),
                        )
                        .at(loc),
                    );
                    continue;
                }
            };
            if let Some(why) = missing_property(topology, &value) {
                self.diags.push(
                    Diagnostic::warning(
                        codes::W_IGNORED,
                        format!("boundary property mapping `{name}` is not a plan output: {why}"),
                    )
                    .at(loc)
                    .hint("targetPropertyRef must name a property of the target node template"),
                );
                continue;
            }
            out.push(OutputDef { name, value });
        }
        out
    }
}

/// A boundary `targetPropertyRef`: an XPath to a property of
/// `target_object`, or OpenTOSCA's `concat('text', Node.Properties.Prop, ...)`.
fn parse_property_ref(target_object: &str, target_property: &str) -> Result<Value, String> {
    let get = |node: &str, prop: &str| {
        Value::call(
            "get_property",
            vec![
                Value::Scalar(node.to_string()),
                Value::Scalar(prop.to_string()),
            ],
        )
    };
    let expr = target_property.trim();
    let Some(inner) = expr
        .strip_prefix("concat(")
        .and_then(|r| r.strip_suffix(')'))
    else {
        let prop = last_xpath_step(expr);
        if prop.is_empty() {
            return Err(format!("`{expr}` names no property"));
        }
        return Ok(get(target_object, &prop));
    };
    let mut args = Vec::new();
    for part in split_args(inner) {
        let part = part.trim();
        if let Some(lit) = part
            .strip_prefix('\'')
            .and_then(|p| p.strip_suffix('\''))
            .or_else(|| part.strip_prefix('"').and_then(|p| p.strip_suffix('"')))
        {
            args.push(Value::Scalar(lit.to_string()));
        } else if let Some((node, prop)) = part.split_once(".Properties.") {
            args.push(get(node, prop));
        } else {
            return Err(format!(
                "`{part}` in `{expr}` is neither a 'text' nor Node.Properties.Name"
            ));
        }
    }
    Ok(Value::call("concat", args))
}

/// Split on commas outside quotes.
fn split_args(s: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut quote: Option<char> = None;
    let mut start = 0;
    for (i, c) in s.char_indices() {
        match (quote, c) {
            (Some(q), c) if c == q => quote = None,
            (None, '\'' | '"') => quote = Some(c),
            (None, ',') => {
                out.push(&s[start..i]);
                start = i + 1;
            }
            _ => {}
        }
    }
    out.push(&s[start..]);
    out
}

/// The first `get_property` in `value` that names a missing node or property.
fn missing_property(topology: &Topology, value: &Value) -> Option<String> {
    match value {
        Value::Call(c) if c.function == "get_property" => {
            let args = &c.args;
            let node = args.first().and_then(Value::as_str).unwrap_or_default();
            let prop = args.get(1).and_then(Value::as_str).unwrap_or_default();
            match topology.node_by_id(node) {
                None => Some(format!("`{node}` is not a node template")),
                Some(n) if !topology.node(n).properties.contains_key(prop) => {
                    Some(format!("node template `{node}` has no property `{prop}`"))
                }
                Some(_) => None,
            }
        }
        Value::Call(c) => c.args.iter().find_map(|a| missing_property(topology, a)),
        _ => None,
    }
}

/// The element name of the last step of a simple XPath (`/a:X/b:Y`,
/// `/*[local-name()='X']/*[local-name()='Y']`).
fn last_xpath_step(xpath: &str) -> String {
    let step = xpath
        .trim()
        .trim_end_matches('/')
        .rsplit('/')
        .next()
        .unwrap_or("");
    if let Some(i) = step.find("local-name()=") {
        let rest = &step[i + "local-name()=".len()..];
        let rest = rest.trim_start_matches(['\'', '"']);
        return rest.split(['\'', '"']).next().unwrap_or("").to_string();
    }
    step.rsplit(':').next().unwrap_or("").to_string()
}

#[cfg(test)]
mod tests {
    use super::super::lower_text;
    use super::*;

    #[test]
    fn reads_the_last_step_of_property_refs() {
        assert_eq!(
            last_xpath_step("/*[local-name()='SmartService']/*[local-name()='VMIP']"),
            "VMIP"
        );
        assert_eq!(last_xpath_step("/ex:ShopOut/ex:Endpoint"), "Endpoint");
        assert_eq!(last_xpath_step("/Props/Port"), "Port");
    }

    #[test]
    fn reads_concat_property_refs() {
        let v = parse_property_ref(
            "VM",
            "concat('http://', VM.Properties.VMIP, ':', App.Properties.Port)",
        )
        .unwrap();
        let Value::Call(c) = v else { panic!() };
        let crate::model::Call { function, args } = *c;
        assert_eq!(function, "concat");
        assert_eq!(args.len(), 4);
        assert_eq!(args[0], Value::Scalar("http://".into()));
        assert!(parse_property_ref("VM", "concat(foo)").is_err());
    }

    #[test]
    fn a_mapping_to_a_missing_property_is_no_output() {
        let (t, d) = lower_text(
            r#"<NodeType name="Server"/>
            <ServiceTemplate id="S">
              <BoundaryDefinitions>
                <Properties><PropertyMappings>
                  <PropertyMapping serviceTemplatePropertyRef="/Out/Ip" targetObjectRef="vm" targetPropertyRef="/Props/Ip"/>
                  <PropertyMapping serviceTemplatePropertyRef="/Out/Port" targetObjectRef="vm" targetPropertyRef="/Props/Port"/>
                </PropertyMappings></Properties>
              </BoundaryDefinitions>
              <TopologyTemplate>
                <NodeTemplate id="vm" type="ex:Server">
                  <Properties><Props xmlns=""><Ip>10.0.0.1</Ip></Props></Properties>
                </NodeTemplate>
              </TopologyTemplate>
            </ServiceTemplate>"#,
        );
        let t = t.unwrap();
        assert_eq!(t.outputs.len(), 1);
        assert_eq!(t.outputs[0].name, "Ip");
        assert!(d.iter().any(|d| {
            d.code == codes::W_IGNORED
                && d.message
                    .contains("boundary property mapping `Port` is not a plan output")
        }));
    }
}
