//! The built-in functions of TOSCA 2.0 chapter 10 (and 1.3's `join` and
//! `token`) evaluated where their arguments are known when the plans are
//! made: `{ $join: [[a, b], "-"] }` becomes `a-b`, `{ $has_key: [{k: v},
//! k] }` becomes `true`, a `$concat` of lists the list (`$matches` is
//! `values.rs`'s, which reports a pattern it cannot read). The plans evaluate
//! `get_*` and `concat` themselves; a call of any other function whose
//! arguments are only known at run time is passed on as it is written
//! (its JSON), which [`Lowerer::value`](super::Lowerer) reports.
//!
//! In: a function name and its lowered arguments. Out: the value, or
//! `None` where an argument is not a plain value (a call, or the wrong
//! kind for the function).

use crate::model::Value;

/// The functions whose calls the plans evaluate at run time.
pub(super) const EVALUATED_BY_PLANS: &[&str] = &[
    "get_input",
    "get_property",
    "get_attribute",
    "get_operation_output",
    "concat",
];

/// The value of `name` applied to `args`, where every argument is known.
pub(super) fn fold(name: &str, args: &[Value]) -> Option<Value> {
    // How many items a list or map written in place has does not depend
    // on what they are: known even where they are calls.
    if let ("length", [Value::List(_) | Value::Map(_)]) = (name, args) {
        return length(args);
    }
    if args.iter().any(has_call) {
        return None;
    }
    match name {
        "length" => length(args),
        "join" => join(args),
        "token" => token(args),
        "union" | "intersection" => set(name, args),
        "sum" | "difference" | "product" | "quotient" | "remainder" => arithmetic(name, args),
        "round" | "floor" | "ceil" => rounding(name, args),
        "and" | "or" | "xor" | "not" => logic(name, args),
        "equal" | "greater_than" | "greater_or_equal" | "less_than" | "less_or_equal" => {
            compare(name, args)
        }
        "has_prefix" | "has_suffix" | "contains" => text_test(name, args),
        "has_entry" | "has_key" | "has_all_entries" | "has_all_keys" | "has_any_entry"
        | "has_any_key" | "valid_values" => membership(name, args),
        "concat" => concat_lists(args),
        _ => None,
    }
}

fn has_call(v: &Value) -> bool {
    match v {
        Value::Call(_) => true,
        Value::List(l) => l.iter().any(has_call),
        Value::Map(m) => m.values().any(has_call),
        _ => false,
    }
}

fn scalar(s: impl Into<String>) -> Value {
    Value::Scalar(s.into())
}

fn boolean(b: bool) -> Value {
    scalar(if b { "true" } else { "false" })
}

fn length(args: &[Value]) -> Option<Value> {
    let n = match args {
        [Value::Scalar(s)] => s.chars().count(),
        [Value::List(l)] => l.len(),
        [Value::Map(m)] => m.len(),
        _ => return None,
    };
    Some(scalar(n.to_string()))
}

fn join(args: &[Value]) -> Option<Value> {
    let (items, sep) = match args {
        [Value::List(l)] => (l, ""),
        [Value::List(l), Value::Scalar(s)] => (l, s.as_str()),
        _ => return None,
    };
    let parts: Option<Vec<&str>> = items.iter().map(Value::as_str).collect();
    Some(scalar(parts?.join(sep)))
}

fn token(args: &[Value]) -> Option<Value> {
    let [Value::Scalar(s), Value::Scalar(chars), Value::Scalar(i)] = args else {
        return None;
    };
    let index: usize = i.parse().ok()?;
    let part = s.split(|c| chars.contains(c)).nth(index)?;
    Some(scalar(part))
}

fn set(name: &str, args: &[Value]) -> Option<Value> {
    let lists: Option<Vec<&Vec<Value>>> = args
        .iter()
        .map(|a| match a {
            Value::List(l) => Some(l),
            _ => None,
        })
        .collect();
    let lists = lists?;
    let mut out: Vec<Value> = Vec::new();
    let candidates = match name {
        "union" => lists.iter().flat_map(|l| l.iter()).collect::<Vec<_>>(),
        _ => lists.first()?.iter().collect(),
    };
    for v in candidates {
        let everywhere = name == "union" || lists.iter().all(|l| l.contains(v));
        if everywhere && !out.contains(v) {
            out.push(v.clone());
        }
    }
    Some(Value::List(out))
}

/// A number: an integer where it is written as one.
#[derive(Clone, Copy)]
enum Num {
    Int(i64),
    Float(f64),
}

impl Num {
    fn of(v: &Value) -> Option<Num> {
        let s = v.as_str()?.trim();
        s.parse::<i64>().map(Num::Int).ok().or_else(|| {
            s.parse::<f64>()
                .ok()
                .filter(|f| f.is_finite())
                .map(Num::Float)
        })
    }

    fn float(self) -> f64 {
        match self {
            Num::Int(i) => i as f64,
            Num::Float(f) => f,
        }
    }

    fn value(self) -> Value {
        match self {
            Num::Int(i) => scalar(i.to_string()),
            Num::Float(f) if f.fract() == 0.0 && f.abs() < 1e15 => scalar(format!("{f:.1}")),
            Num::Float(f) => scalar(f.to_string()),
        }
    }
}

fn arithmetic(name: &str, args: &[Value]) -> Option<Value> {
    let nums: Option<Vec<Num>> = args.iter().map(Num::of).collect();
    let nums = nums?;
    let ints: Option<Vec<i64>> = nums
        .iter()
        .map(|n| match n {
            Num::Int(i) => Some(*i),
            Num::Float(_) => None,
        })
        .collect();
    let result = match (name, nums.as_slice(), ints) {
        ("sum", [_, ..], Some(i)) => Num::Int(i.iter().try_fold(0i64, |a, b| a.checked_add(*b))?),
        ("sum", [_, ..], None) => Num::Float(nums.iter().map(|n| n.float()).sum()),
        ("product", [_, ..], Some(i)) => {
            Num::Int(i.iter().try_fold(1i64, |a, b| a.checked_mul(*b))?)
        }
        ("product", [_, ..], None) => Num::Float(nums.iter().map(|n| n.float()).product()),
        ("difference", [Num::Int(a), Num::Int(b)], _) => Num::Int(a.checked_sub(*b)?),
        ("difference", [a, b], _) => Num::Float(a.float() - b.float()),
        ("quotient", [a, b], _) if b.float() != 0.0 => Num::Float(a.float() / b.float()),
        ("remainder", [Num::Int(a), Num::Int(b)], _) if *b != 0 => Num::Int(a % b),
        ("remainder", [a, b], _) if b.float() != 0.0 => Num::Float(a.float() % b.float()),
        _ => return None,
    };
    Some(result.value())
}

fn rounding(name: &str, args: &[Value]) -> Option<Value> {
    let [v] = args else {
        return None;
    };
    let f = Num::of(v)?.float();
    let r = match name {
        "round" => f.round(),
        "floor" => f.floor(),
        _ => f.ceil(),
    };
    (r.abs() < 9.0e15).then(|| scalar((r as i64).to_string()))
}

fn truth(v: &Value) -> Option<bool> {
    match v.as_str()? {
        "true" | "True" | "TRUE" => Some(true),
        "false" | "False" | "FALSE" => Some(false),
        _ => None,
    }
}

fn logic(name: &str, args: &[Value]) -> Option<Value> {
    let values: Option<Vec<bool>> = args.iter().map(truth).collect();
    let values = values?;
    let b = match (name, values.as_slice()) {
        ("not", [a]) => !a,
        ("xor", [a, b]) => a != b,
        ("and", [_, ..]) => values.iter().all(|b| *b),
        ("or", [_, ..]) => values.iter().any(|b| *b),
        _ => return None,
    };
    Some(boolean(b))
}

fn compare(name: &str, args: &[Value]) -> Option<Value> {
    let [a, b] = args else {
        return None;
    };
    if name == "equal" {
        return Some(boolean(match (Num::of(a), Num::of(b)) {
            (Some(x), Some(y)) => x.float() == y.float(),
            _ => a == b,
        }));
    }
    let ordering = match (Num::of(a), Num::of(b)) {
        (Some(x), Some(y)) => x.float().partial_cmp(&y.float())?,
        _ => a.as_str()?.cmp(b.as_str()?),
    };
    let b = match name {
        "greater_than" => ordering.is_gt(),
        "greater_or_equal" => ordering.is_ge(),
        "less_than" => ordering.is_lt(),
        _ => ordering.is_le(),
    };
    Some(boolean(b))
}

fn text_test(name: &str, args: &[Value]) -> Option<Value> {
    match (name, args) {
        (_, [Value::List(whole), Value::List(part)]) => {
            Some(boolean(sequence_test(name, whole, part)))
        }
        // A list and one item: the item is in it (the text asks for two
        // lists; one item was read so before).
        ("contains", [Value::List(l), v]) => Some(boolean(l.contains(v))),
        (_, [Value::Scalar(s), Value::Scalar(part)]) => Some(boolean(match name {
            "has_prefix" => s.starts_with(part.as_str()),
            "has_suffix" => s.ends_with(part.as_str()),
            _ => s.contains(part.as_str()),
        })),
        _ => None,
    }
}

/// `has_prefix`, `has_suffix` and `contains` of two lists (§10.2.2.3.1-3):
/// the items of `part` are the first, the last, or a run of those of
/// `whole`, in order.
pub(super) fn sequence_test<T: PartialEq>(name: &str, whole: &[T], part: &[T]) -> bool {
    match name {
        "has_prefix" => whole.starts_with(part),
        "has_suffix" => whole.ends_with(part),
        _ => part.is_empty() || whole.windows(part.len()).any(|w| w == part),
    }
}

/// The entry and key tests of §10.2.2.3.4-9 on `entries` (a list's items
/// or a map's values) and a map's `keys`: `wanted` is one item for
/// `has_entry` and `has_key`, the items of a list for the others.
pub(super) fn entry_test<T: PartialEq>(
    name: &str,
    entries: &[&T],
    keys: Option<&[&T]>,
    wanted: &[&T],
) -> Option<bool> {
    let (pool, all) = match name {
        "has_entry" | "has_all_entries" => (entries, true),
        "has_any_entry" => (entries, false),
        "has_key" | "has_all_keys" => (keys?, true),
        "has_any_key" => (keys?, false),
        _ => return None,
    };
    let found = |w: &&T| pool.contains(w);
    Some(if all {
        wanted.iter().all(found)
    } else {
        wanted.iter().any(found)
    })
}

/// The entry and key tests, and `valid_values` (`has_entry` with its
/// arguments the other way round, §10.2.2.2.6).
fn membership(name: &str, args: &[Value]) -> Option<Value> {
    let (collection, arg, name) = match (name, args) {
        ("valid_values", [v, list @ Value::List(_)]) => (list, v, "has_entry"),
        (_, [c, arg]) => (c, arg, name),
        _ => return None,
    };
    let keys: Vec<Value>;
    let (entries, keys): (Vec<&Value>, Option<Vec<&Value>>) = match collection {
        Value::List(l) => (l.iter().collect(), None),
        Value::Map(m) => {
            keys = m.keys().map(|k| scalar(k.as_str())).collect();
            (m.values().collect(), Some(keys.iter().collect()))
        }
        _ => return None,
    };
    let wanted: Vec<&Value> = match (name, arg) {
        ("has_entry" | "has_key", one) => vec![one],
        (_, Value::List(l)) => l.iter().collect(),
        _ => return None,
    };
    entry_test(name, &entries, keys.as_deref(), &wanted).map(boolean)
}

/// `concat` of lists (§10.2.3.2): their items in order. The plans
/// concatenate strings themselves.
fn concat_lists(args: &[Value]) -> Option<Value> {
    let mut out = Vec::new();
    for a in args {
        let Value::List(l) = a else {
            return None;
        };
        out.extend(l.iter().cloned());
    }
    (!args.is_empty()).then_some(Value::List(out))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn s(v: &str) -> Value {
        scalar(v)
    }

    fn list(items: &[&str]) -> Value {
        Value::List(items.iter().map(|i| s(i)).collect())
    }

    fn folded(name: &str, args: &[Value]) -> Option<String> {
        fold(name, args).map(|v| match v {
            Value::Scalar(x) => x,
            other => format!("{other:?}"),
        })
    }

    #[test]
    fn strings_lists_and_sets() {
        // The §10.2.3.3 example: prefix_1111_suffix.
        let joined = folded("join", &[list(&["prefix", "1111", "suffix"]), s("_")]);
        assert_eq!(joined.as_deref(), Some("prefix_1111_suffix"));
        assert_eq!(folded("join", &[list(&["a", "b"])]).as_deref(), Some("ab"));
        assert_eq!(
            folded("token", &[s("10.0.0.1:80"), s(":"), s("1")]).as_deref(),
            Some("80")
        );
        assert_eq!(folded("length", &[s("héllo")]).as_deref(), Some("5"));
        // A list of calls still has its length; a string from a call not.
        let call = Value::Call(Box::new(crate::model::Call {
            function: "get_input".into(),
            args: vec![s("x")],
        }));
        let calls = Value::List(vec![call.clone(), s("b")]);
        assert_eq!(folded("length", &[calls]).as_deref(), Some("2"));
        assert_eq!(folded("length", &[call]), None);
        assert_eq!(
            fold("union", &[list(&["a", "b"]), list(&["b", "c"])]),
            Some(list(&["a", "b", "c"]))
        );
        assert_eq!(
            fold("intersection", &[list(&["a", "b", "b"]), list(&["b", "c"])]),
            Some(list(&["b"]))
        );
    }

    #[test]
    fn numbers_and_truth() {
        assert_eq!(
            folded("sum", &[s("1"), s("2"), s("3")]).as_deref(),
            Some("6")
        );
        assert_eq!(folded("sum", &[s("1"), s("0.5")]).as_deref(), Some("1.5"));
        assert_eq!(
            folded("difference", &[s("5"), s("7")]).as_deref(),
            Some("-2")
        );
        assert_eq!(
            folded("quotient", &[s("6"), s("3")]).as_deref(),
            Some("2.0")
        );
        assert_eq!(folded("remainder", &[s("7"), s("3")]).as_deref(), Some("1"));
        assert_eq!(folded("round", &[s("2.5")]).as_deref(), Some("3"));
        assert_eq!(folded("floor", &[s("-2.5")]).as_deref(), Some("-3"));
        assert_eq!(
            folded("greater_than", &[s("10"), s("9")]).as_deref(),
            Some("true")
        );
        assert_eq!(
            folded("and", &[s("true"), s("false")]).as_deref(),
            Some("false")
        );
        assert_eq!(
            folded("has_prefix", &[s("http://x"), s("http")]).as_deref(),
            Some("true")
        );
    }

    #[test]
    fn list_and_map_tests() {
        let abc = list(&["a", "b", "c"]);
        let t = |name: &str, args: &[Value]| folded(name, args);
        assert_eq!(
            t("has_prefix", &[abc.clone(), list(&["a", "b"])]).as_deref(),
            Some("true")
        );
        assert_eq!(
            t("has_suffix", &[abc.clone(), list(&["a", "c"])]).as_deref(),
            Some("false")
        );
        assert_eq!(
            t("contains", &[abc.clone(), list(&["b", "c"])]).as_deref(),
            Some("true")
        );
        assert_eq!(
            t("contains", &[abc.clone(), list(&["a", "c"])]).as_deref(),
            Some("false")
        );
        assert_eq!(
            t("has_entry", &[abc.clone(), s("b")]).as_deref(),
            Some("true")
        );
        assert_eq!(
            t("valid_values", &[s("d"), abc.clone()]).as_deref(),
            Some("false")
        );
        assert_eq!(
            t("has_all_entries", &[abc.clone(), list(&["c", "a"])]).as_deref(),
            Some("true")
        );
        assert_eq!(
            t("has_any_entry", &[abc.clone(), list(&["x", "a"])]).as_deref(),
            Some("true")
        );
        let map = Value::Map(Box::new(
            [("k1".to_string(), s("v1")), ("k2".to_string(), s("v2"))]
                .into_iter()
                .collect(),
        ));
        assert_eq!(
            t("has_key", &[map.clone(), s("k2")]).as_deref(),
            Some("true")
        );
        assert_eq!(
            t("has_entry", &[map.clone(), s("k2")]).as_deref(),
            Some("false")
        );
        assert_eq!(
            t("has_entry", &[map.clone(), s("v2")]).as_deref(),
            Some("true")
        );
        assert_eq!(
            t("has_all_keys", &[map.clone(), list(&["k1", "k3"])]).as_deref(),
            Some("false")
        );
        assert_eq!(
            t("has_any_key", &[map.clone(), list(&["k1", "k3"])]).as_deref(),
            Some("true")
        );
        // Keys of a list, or a list where one item is asked for: not folded.
        assert_eq!(fold("has_key", &[abc.clone(), s("a")]), None);
        assert_eq!(fold("has_all_entries", &[abc.clone(), s("a")]), None);
        assert_eq!(
            fold("concat", &[list(&["a"]), list(&["b", "a"])]),
            Some(list(&["a", "b", "a"]))
        );
        assert_eq!(fold("concat", &[s("a"), s("b")]), None);
    }

    #[test]
    fn what_is_not_known_or_not_right_stays_a_call() {
        let call = Value::call("get_input".to_string(), vec![s("ips")]);
        assert_eq!(fold("join", &[call, s(",")]), None);
        assert_eq!(fold("quotient", &[s("1"), s("0")]), None);
        assert_eq!(fold("sum", &[s("1"), s("ten")]), None);
        assert_eq!(fold("token", &[s("a:b"), s(":"), s("5")]), None);
        assert_eq!(fold("matches", &[s("a"), s("a")]), None);
    }
}
