//! Intrinsic function calls in values: recognised here, kept as data by
//! the lowering (plans evaluate them at run time or pass them on).
//!
//! In: a value [`Node`]. Out: whether it is a call (of a built-in function
//! or, in 2.0, of any other: a custom function, §10.4), its name and
//! argument nodes, or a diagnostic (E0309) for a built-in call that cannot
//! be right (wrong number or kind of arguments). Both spellings are read: 1.x
//! `{get_input: port}` and 2.0 `{$get_input: port}` (`$$` escapes a
//! literal `$`; a bare `$name` is a call without arguments).

use super::node::{Kind, Node};
use crate::diagnostics::{Diagnostic, SourceFile, Span, codes};

/// Functions of TOSCA 1.3 chapter 4 (also valid without `$` in 2.0 drafts).
pub(crate) const SIMPLE_PROFILE: &[&str] = &[
    "get_input",
    "get_property",
    "get_attribute",
    "get_operation_output",
    "get_nodes_of_type",
    "get_artifact",
    "concat",
    "join",
    "token",
];

/// Further built-in functions of TOSCA 2.0 (only with `$`).
pub(crate) const TOSCA_2: &[&str] = &[
    "value",
    "node_index",
    "relationship_index",
    "available_allocation",
    "and",
    "or",
    "not",
    "xor",
    "equal",
    "greater_than",
    "greater_or_equal",
    "less_than",
    "less_or_equal",
    "valid_values",
    "matches",
    "length",
    "has_suffix",
    "has_prefix",
    "contains",
    "has_entry",
    "has_key",
    "has_all_entries",
    "has_all_keys",
    "has_any_entry",
    "has_any_key",
    "union",
    "intersection",
    "sum",
    "difference",
    "product",
    "quotient",
    "remainder",
    "round",
    "floor",
    "ceil",
    "in_range",
];

/// The argument of `{ $get_input: name }` (or 1.x `{ get_input: name }`):
/// the input a value such as a `count` names.
pub(crate) fn input_argument(v: &Node) -> Option<&Node> {
    match v.as_map()? {
        [(k, arg)] if matches!(k.as_str(), Some("$get_input" | "get_input")) => Some(arg),
        _ => None,
    }
}

/// A function call found in a value.
#[derive(Debug)]
pub(crate) struct Call<'a> {
    /// The function name without `$`.
    pub name: String,
    /// Arguments: the items of a list argument, else the one argument
    /// (none for a bare `$name`).
    pub args: Vec<&'a Node>,
    /// The whole call.
    pub span: Span,
}

/// What a value node is.
pub(crate) enum Classified<'a> {
    /// A call of a built-in function.
    Call(Call<'a>),
    /// A 2.0 call of a function that is not built in (a custom function,
    /// §10.4): its arguments are not checked here.
    Custom(Call<'a>),
    /// A string that starts with `$$`: the text with one `$` removed.
    Escaped(String),
    /// Anything else.
    Plain,
}

/// Recognise a call. `v2` enables the 2.0 `$` spellings.
pub(crate) fn classify<'a>(
    node: &'a Node,
    v2: bool,
    source: &SourceFile,
) -> Result<Classified<'a>, Diagnostic> {
    match &node.kind {
        Kind::Scalar {
            text,
            quoted: false,
        } if v2 && text.starts_with('$') => {
            if let Some(rest) = text.strip_prefix("$$") {
                return Ok(Classified::Escaped(format!("${rest}")));
            }
            let name = &text[1..];
            if is_identifier(name) {
                let call = Call {
                    name: name.to_string(),
                    args: Vec::new(),
                    span: node.span,
                };
                if !is_builtin(name) {
                    return Ok(Classified::Custom(call));
                }
                check(name, &[], node, source)?;
                return Ok(Classified::Call(call));
            }
            Ok(Classified::Plain)
        }
        Kind::Map(entries) if entries.len() == 1 => {
            let (k, v) = &entries[0];
            let Some(key) = k.as_str() else {
                return Ok(Classified::Plain);
            };
            let name = if let Some(n) = key.strip_prefix('$').filter(|_| v2) {
                if n.starts_with('$') {
                    return Ok(Classified::Plain);
                }
                // `$fn$1` allows the same call twice as map keys.
                n.split('$').next().unwrap_or(n)
            } else if SIMPLE_PROFILE.contains(&key) {
                key
            } else {
                return Ok(Classified::Plain);
            };
            let args: Vec<&Node> = match &v.kind {
                Kind::Seq(items) => items.iter().collect(),
                Kind::Null => Vec::new(),
                _ => vec![v],
            };
            if !is_builtin(name) {
                return Ok(Classified::Custom(Call {
                    name: name.to_string(),
                    args,
                    span: node.span,
                }));
            }
            check(name, &args, node, source)?;
            Ok(Classified::Call(Call {
                name: name.to_string(),
                args,
                span: node.span,
            }))
        }
        Kind::Map(entries) if v2 => {
            if let Some((k, _)) = entries.iter().find(|(k, _)| {
                k.as_str()
                    .is_some_and(|s| s.starts_with('$') && !s.starts_with("$$"))
            }) {
                return Err(Diagnostic::error(
                    codes::YAML_FUNCTION,
                    format!(
                        "`{}` is a function call, but its map has other keys too",
                        k.as_str().unwrap_or_default()
                    ),
                )
                .at(source.location(k.span))
                .hint(
                    "a function call is a map with exactly one key; write `$$` for a literal `$`",
                ));
            }
            Ok(Classified::Plain)
        }
        _ => Ok(Classified::Plain),
    }
}

fn is_builtin(name: &str) -> bool {
    SIMPLE_PROFILE.contains(&name) || TOSCA_2.contains(&name)
}

fn is_identifier(s: &str) -> bool {
    !s.is_empty()
        && s.chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '$')
}

/// Argument counts that the functions plans use need.
fn check(name: &str, args: &[&Node], node: &Node, source: &SourceFile) -> Result<(), Diagnostic> {
    let (min, max, shape) = match name {
        "get_input" => (
            1,
            usize::MAX,
            "an input name, or a list [name, key or index, ...]",
        ),
        "get_property" | "get_attribute" => (
            2,
            usize::MAX,
            "a list [entity, (requirement or capability,) name, ...]",
        ),
        "get_operation_output" => (4, 4, "a list [entity, interface, operation, output]"),
        "get_artifact" => (
            2,
            usize::MAX,
            "a list [entity or TOSCA path, artifact name, (location, remove)]",
        ),
        "node_index" | "relationship_index" => (0, 0, "no arguments"),
        "token" => (3, 3, "a list [string, separators, index]"),
        "concat" | "join" => (1, usize::MAX, "a list of values"),
        _ => return Ok(()),
    };
    if args.len() < min || args.len() > max {
        return Err(Diagnostic::error(
            codes::YAML_FUNCTION,
            format!(
                "`{name}` has {} argument{}, but it takes {shape}",
                args.len(),
                if args.len() == 1 { "" } else { "s" }
            ),
        )
        .at(source.location(node.span)));
    }
    if matches!(
        name,
        "get_property" | "get_attribute" | "get_operation_output" | "get_artifact"
    ) && let Some(bad) = args.iter().find(|a| a.as_str().is_none())
    {
        return Err(Diagnostic::error(
            codes::YAML_FUNCTION,
            format!(
                "the arguments of `{name}` are names, but one is {}",
                bad.kind_name()
            ),
        )
        .at(source.location(bad.span)));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use super::*;
    use crate::yaml::node::{LoadLimits, parse};

    fn node(text: &str) -> (Node, Arc<SourceFile>) {
        let f = Arc::new(SourceFile::new("t.yaml", text));
        (parse(&f, LoadLimits::default()).unwrap(), f)
    }

    #[test]
    fn reads_both_spellings() {
        let (n, f) = node(
            "a: {get_input: port}\nb: {$get_input: port}\nc: $$x\nd: {get_property: [SELF]}\n",
        );
        assert!(
            matches!(classify(n.get("a").unwrap(), false, &f), Ok(Classified::Call(c)) if c.name == "get_input")
        );
        assert!(matches!(
            classify(n.get("b").unwrap(), false, &f),
            Ok(Classified::Plain)
        ));
        assert!(matches!(
            classify(n.get("b").unwrap(), true, &f),
            Ok(Classified::Call(_))
        ));
        assert!(
            matches!(classify(n.get("c").unwrap(), true, &f), Ok(Classified::Escaped(s)) if s == "$x")
        );
        let e = classify(n.get("d").unwrap(), false, &f).err().unwrap();
        assert_eq!(e.code, codes::YAML_FUNCTION);
    }
}
