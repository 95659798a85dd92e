//! XPath 2.0 expressions for bindings.

use crate::model::{Condition, TemplateRef, Topology, Value};
use crate::plugins::steps::Binding;
use crate::plugins::steps::PropertyRef;
use crate::render::paths::url_path;
use crate::render::vars::{Vars, in_document};

/// An XPath 2.0 string literal (`'` doubled inside).
pub(super) fn literal(s: &str) -> String {
    format!("'{}'", s.replace('\'', "''"))
}

/// A step to the child elements named `name` in any namespace: `*:name`
/// (XPath 2.0's wildcard), or `*[local-name()='name']` for a name that is
/// no NCName (a YAML property may be called anything).
pub(super) fn child(name: &str) -> String {
    if crate::names::ncname(name) == name {
        format!("*:{name}")
    } else {
        format!("*[local-name()={}]", literal(name))
    }
}

/// A property's value: its element in the template's document
/// (`$prop_vm/*:VMIP`, a node: an operand or a stylesheet parameter takes
/// its text), or its variable.
pub(super) fn property(topology: &Topology, names: &Vars, p: &PropertyRef) -> String {
    match names.document(topology, p.template) {
        Some(doc) if in_document(p.template, &p.name) => format!("${doc}/{}", child(&p.name)),
        _ => format!("${}", names.prop(topology, p)),
    }
}

/// A binding's value as a string, for a copy's `<from>`: a property's
/// element is a node, which an absent element would leave no value.
pub(super) fn value(
    b: &Binding,
    topology: &Topology,
    names: &Vars,
    input: &dyn Fn(&str) -> String,
) -> String {
    let e = expr(b, topology, names, input);
    match b {
        Binding::Property(p) if in_document(p.template, &p.name) => format!("string({e})"),
        _ => e,
    }
}

/// The expression for a binding. `input` maps a plan input name to the
/// element of the request message that carries it.
pub(super) fn expr(
    b: &Binding,
    topology: &Topology,
    names: &Vars,
    input: &dyn Fn(&str) -> String,
) -> String {
    match b {
        Binding::Property(p) => property(topology, names, p),
        Binding::Input(n) => format!("string($input.payload/tns:{})", input(n)),
        Binding::Literal(s) => literal(s),
        Binding::ArtifactUrl(path) => {
            format!(
                "concat($csarEntrypoint, {})",
                literal(&format!("/Content/{}", url_path(path)))
            )
        }
        Binding::InstanceId(t) => format!("${}", names.id(*t)),
        Binding::Function(name, args) => {
            let args: Vec<String> = args
                .iter()
                .map(|p| expr(p, topology, names, input))
                .collect();
            function(name, &args)
        }
        Binding::Concat(parts) => match parts.len() {
            0 => "''".to_string(),
            1 => expr(&parts[0], topology, names, input),
            _ => format!(
                "concat({})",
                parts
                    .iter()
                    .map(|p| expr(p, topology, names, input))
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
        },
    }
}

/// A built-in function (`model::RUNTIME_FUNCTIONS`) of the
/// expressions `a` as XPath 2.0, a string: numbers through `xsd:decimal`
/// (no exponent), booleans `true` or `false`.
fn function(name: &str, a: &[String]) -> String {
    let arg = |i: usize| a.get(i).map_or("''", String::as_str);
    let num = |i: usize| format!("number({})", arg(i));
    let fold = |op: &str| {
        let nums: Vec<String> = (0..a.len()).map(num).collect();
        format!("string(xsd:decimal({}))", nums.join(op))
    };
    let truth = |x: &str| format!("({x} = 'true')");
    match name {
        "sum" => fold(" + "),
        "difference" => fold(" - "),
        "product" => fold(" * "),
        "quotient" => fold(" div "),
        "remainder" => fold(" mod "),
        "round" => format!("string(xsd:decimal(round({})))", num(0)),
        "floor" => format!("string(xsd:decimal(floor({})))", num(0)),
        "ceil" => format!("string(xsd:decimal(ceiling({})))", num(0)),
        "equal" => format!("string({} = {})", arg(0), arg(1)),
        "greater_than" => format!("string({} > {})", num(0), num(1)),
        "greater_or_equal" => format!("string({} >= {})", num(0), num(1)),
        "less_than" => format!("string({} < {})", num(0), num(1)),
        "less_or_equal" => format!("string({} <= {})", num(0), num(1)),
        "and" | "or" => {
            let all: Vec<String> = a.iter().map(|x| truth(x)).collect();
            format!(
                "string({})",
                all.join(if name == "and" { " and " } else { " or " })
            )
        }
        "not" => format!("string(not{})", truth(arg(0))),
        "xor" => format!("string({} != {})", truth(arg(0)), truth(arg(1))),
        "join" => {
            let (sep, items) = a
                .split_last()
                .map_or(("''", &a[..0]), |(s, i)| (s.as_str(), i));
            format!("string-join(({}), {sep})", items.join(", "))
        }
        // The separators are characters, any of which splits.
        "token" => format!(
            "string(tokenize({}, concat('[', replace({}, '([\\\\\\[\\]^-])', '\\\\$1'), ']'))[. != ''][xsd:integer({}) + 1])",
            arg(0),
            arg(1),
            num(2)
        ),
        "has_prefix" => format!("string(starts-with({}, {}))", arg(0), arg(1)),
        "has_suffix" => format!("string(ends-with({}, {}))", arg(0), arg(1)),
        "contains" => format!("string(contains({}, {}))", arg(0), arg(1)),
        "length" => format!("string(string-length({}))", arg(0)),
        "matches" => format!("string(matches({}, {}))", arg(0), arg(1)),
        // The value, then the items (`plugins::params`).
        "valid_values" | "has_entry" => {
            format!(
                "string({} = ({}))",
                arg(0),
                a.get(1..).unwrap_or_default().join(", ")
            )
        }
        _ => "''".to_string(),
    }
}

/// A boolean expression for workflow conditions (all must hold) on the
/// current instance of `template`: `state` is compared, case-insensitively,
/// with the state read into `$stateRequest`; other attributes are the
/// template's property variables (an attribute it does not have is empty).
pub(super) fn condition(
    conditions: &[Condition],
    template: TemplateRef,
    topology: &Topology,
    names: &Vars,
) -> String {
    all(conditions, "and", "true()", template, topology, names)
}

fn all(
    list: &[Condition],
    join: &str,
    empty: &str,
    template: TemplateRef,
    topology: &Topology,
    names: &Vars,
) -> String {
    if list.is_empty() {
        return empty.to_string();
    }
    let parts: Vec<String> = list
        .iter()
        .map(|c| clause(c, template, topology, names))
        .collect();
    format!("({})", parts.join(&format!(" {join} ")))
}

fn clause(c: &Condition, template: TemplateRef, topology: &Topology, names: &Vars) -> String {
    match c {
        Condition::And(l) => all(l, "and", "true()", template, topology, names),
        Condition::Or(l) => all(l, "or", "false()", template, topology, names),
        Condition::Not(l) => format!(
            "not({})",
            all(l, "and", "true()", template, topology, names)
        ),
        Condition::Assert {
            attribute,
            constraints,
        } => {
            let state = attribute == "state";
            let subject = if state {
                "upper-case(string($stateRequest))".to_string()
            } else {
                match topology
                    .properties(template)
                    .get_key_value(attribute.as_str())
                {
                    Some((name, _)) => {
                        let p = PropertyRef {
                            template,
                            name: name.clone(),
                        };
                        format!("string({})", property(topology, names, &p))
                    }
                    None => "''".to_string(),
                }
            };
            let operand = |v: &Value| {
                let text = v.literal().unwrap_or_default();
                literal(&if state { text.to_uppercase() } else { text })
            };
            let parts: Vec<String> = constraints
                .iter()
                .map(|(op, v)| constraint(&subject, op, v, &operand))
                .collect();
            if parts.is_empty() {
                "true()".into()
            } else {
                format!("({})", parts.join(" and "))
            }
        }
    }
}

/// One constraint clause (TOSCA 1.3 §3.6.3) as XPath 2.0.
fn constraint(subject: &str, op: &str, v: &Value, operand: &dyn Fn(&Value) -> String) -> String {
    let list = |v: &Value| -> Vec<Value> {
        match v {
            Value::List(l) => l.clone(),
            other => vec![other.clone()],
        }
    };
    let num = |v: &Value| format!("number({})", operand(v));
    match op {
        "equal" => format!("{subject} = {}", operand(v)),
        "greater_than" => format!("number({subject}) > {}", num(v)),
        "greater_or_equal" => format!("number({subject}) >= {}", num(v)),
        "less_than" => format!("number({subject}) < {}", num(v)),
        "less_or_equal" => format!("number({subject}) <= {}", num(v)),
        "in_range" => {
            let l = list(v);
            match (l.first(), l.get(1)) {
                (Some(a), Some(b)) => format!(
                    "(number({subject}) >= {} and number({subject}) <= {})",
                    num(a),
                    num(b)
                ),
                _ => "false()".into(),
            }
        }
        "valid_values" => {
            let alts: Vec<String> = list(v)
                .iter()
                .map(|x| format!("{subject} = {}", operand(x)))
                .collect();
            if alts.is_empty() {
                "false()".into()
            } else {
                format!("({})", alts.join(" or "))
            }
        }
        "length" => format!("string-length({subject}) = {}", num(v)),
        "min_length" => format!("string-length({subject}) >= {}", num(v)),
        "max_length" => format!("string-length({subject}) <= {}", num(v)),
        "pattern" => format!("matches({subject}, {})", operand(v)),
        // Lowering refuses other operators; never true if one gets here.
        _ => "false()".into(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    #[test]
    fn a_property_in_a_document_is_its_element_and_a_string_as_a_value() {
        let (topology, plan) = crate::render::vars::tests::termination();
        let names = Vars::new(&topology, &plan, []);
        let db = TemplateRef::Node(topology.node_by_id("db").unwrap());
        let b = Binding::Property(PropertyRef {
            template: db,
            name: "b".into(),
        });
        let no_input = |n: &str| n.to_string();
        assert_eq!(expr(&b, &topology, &names, &no_input), "$prop_db/*:b");
        assert_eq!(
            value(&b, &topology, &names, &no_input),
            "string($prop_db/*:b)"
        );
        let concat = Binding::Concat(vec![Binding::Literal("x".into()), b]);
        assert_eq!(
            value(&concat, &topology, &names, &no_input),
            "concat('x', $prop_db/*:b)"
        );
    }

    #[test]
    fn literals_double_apostrophes() {
        assert_eq!(super::literal("it's"), "'it''s'");
        assert_eq!(crate::render::paths::url_path("a b/x%3Ay"), "a%20b/x%253Ay");
    }

    #[test]
    fn a_child_step_takes_any_namespace_and_any_name() {
        assert_eq!(super::child("VMIP"), "*:VMIP");
        assert_eq!(super::child("my prop's"), "*[local-name()='my prop''s']");
    }
}

#[cfg(test)]
mod function_tests {
    use super::function;

    fn args(a: &[&str]) -> Vec<String> {
        a.iter().map(|s| s.to_string()).collect()
    }

    /// The expressions evaluate as TOSCA says in an XPath 2.0 engine
    /// (checked with elementpath for 8000, `db.example`, `alpha,beta`).
    #[test]
    fn functions_are_xpath_2_0_strings() {
        assert_eq!(
            function("sum", &args(&["$p", "'1'"])),
            "string(xsd:decimal(number($p) + number('1')))"
        );
        assert_eq!(
            function("join", &args(&["'a'", "$h", "':'"])),
            "string-join(('a', $h), ':')"
        );
        assert_eq!(function("not", &args(&["$b"])), "string(not($b = 'true'))");
        assert_eq!(
            function("length", &args(&["$s"])),
            "string(string-length($s))"
        );
        assert_eq!(
            function("valid_values", &args(&["$v", "'a'", "'b'"])),
            "string($v = ('a', 'b'))"
        );
        assert_eq!(
            function("matches", &args(&["$h", "'^db'"])),
            "string(matches($h, '^db'))"
        );
    }
}
