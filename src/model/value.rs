//! Property and parameter values: literals, lists and maps, and intrinsic
//! function calls (`get_input`, `get_property`, `concat`, ...) kept as data
//! for plans to evaluate at run time or pass on.

use indexmap::IndexMap;

/// A value as written in the topology. (Maps and calls are boxed: a
/// topology holds a value per property, nearly all of them scalars.)
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Value {
    /// No value (`null`, empty element).
    Null,
    /// A scalar, kept as its text (all plan variables are strings).
    Scalar(String),
    /// A list.
    List(Vec<Value>),
    /// A map.
    Map(Box<IndexMap<String, Value>>),
    /// An intrinsic function call, e.g. `get_input: [port]`.
    Call(Box<Call>),
}

/// An intrinsic function call.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Call {
    /// Function name (`get_input`, `get_property`, `concat`, ...).
    pub function: String,
    /// Its arguments.
    pub args: Vec<Value>,
}

impl Value {
    /// A call of `function` with `args`.
    pub fn call(function: impl Into<String>, args: Vec<Value>) -> Value {
        Value::Call(Box::new(Call {
            function: function.into(),
            args,
        }))
    }

    /// `get_input` of a named input.
    pub fn input(name: impl Into<String>) -> Value {
        Value::call("get_input", vec![Value::Scalar(name.into())])
    }

    /// The input name, if this is `get_input` of a plain name.
    pub fn as_input(&self) -> Option<&str> {
        match self {
            Value::Call(c) if c.function == "get_input" => match c.args.as_slice() {
                [Value::Scalar(name)] => Some(name),
                _ => None,
            },
            _ => None,
        }
    }

    /// The text of a scalar.
    pub fn as_str(&self) -> Option<&str> {
        match self {
            Value::Scalar(s) => Some(s),
            _ => None,
        }
    }

    /// Whether there is no value (null or an empty scalar).
    pub fn is_empty(&self) -> bool {
        match self {
            Value::Null => true,
            Value::Scalar(s) => s.is_empty(),
            _ => false,
        }
    }

    /// The value as a literal string for a plan variable: scalars as they
    /// are, lists and maps as JSON, null as empty. Calls have no literal.
    pub fn literal(&self) -> Option<String> {
        match self {
            Value::Null => Some(String::new()),
            Value::Scalar(s) => Some(s.clone()),
            Value::List(_) | Value::Map(_) => Some(self.to_json().to_string()),
            Value::Call(_) => None,
        }
    }

    /// JSON form (calls become `{"function": [args]}`).
    pub fn to_json(&self) -> serde_json::Value {
        match self {
            Value::Null => serde_json::Value::Null,
            Value::Scalar(s) => serde_json::Value::String(s.clone()),
            Value::List(l) => serde_json::Value::Array(l.iter().map(Value::to_json).collect()),
            Value::Map(m) => {
                serde_json::Value::Object(m.iter().map(|(k, v)| (k.clone(), v.to_json())).collect())
            }
            Value::Call(c) => {
                let mut o = serde_json::Map::new();
                o.insert(
                    c.function.clone(),
                    serde_json::Value::Array(c.args.iter().map(Value::to_json).collect()),
                );
                serde_json::Value::Object(o)
            }
        }
    }
}

/// The built-in functions of scalar values the plans evaluate when they
/// run: arithmetic, comparison, boolean and string functions. Their
/// results are strings, as every plan value; a boolean is `true` or
/// `false`. `join` takes a list written in place, as do `valid_values`
/// and `has_entry` (whether a value is one of its items); `length` a
/// string.
pub const RUNTIME_FUNCTIONS: &[&str] = &[
    "sum",
    "difference",
    "product",
    "quotient",
    "remainder",
    "round",
    "floor",
    "ceil",
    "equal",
    "greater_than",
    "greater_or_equal",
    "less_than",
    "less_or_equal",
    "and",
    "or",
    "not",
    "xor",
    "join",
    "token",
    "has_prefix",
    "has_suffix",
    "contains",
    "length",
    "matches",
    "valid_values",
    "has_entry",
];

/// Whether the plans evaluate a call of `name` with `args` when they run
/// (see [`RUNTIME_FUNCTIONS`]): its arguments are
/// scalars or calls, and a `join` list is written in place.
pub fn evaluated_at_run_time(name: &str, args: &[Value]) -> bool {
    let scalar = |v: &Value| matches!(v, Value::Scalar(_) | Value::Call(_) | Value::Null);
    RUNTIME_FUNCTIONS.contains(&name)
        && match (name, args) {
            ("join", [Value::List(items)]) | ("join", [Value::List(items), Value::Scalar(_)]) => {
                items.iter().all(scalar)
            }
            ("join", _) => false,
            ("valid_values", [v, Value::List(items)]) | ("has_entry", [Value::List(items), v]) => {
                scalar(v) && items.iter().all(scalar)
            }
            ("valid_values" | "has_entry", _) => false,
            _ => !args.is_empty() && args.iter().all(scalar),
        }
}
