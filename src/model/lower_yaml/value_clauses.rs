//! The clauses a property value must meet, decided on the value as
//! written: 1.3 constraint clauses (§3.6.3) and 2.0 validation clauses
//! (§9.1.2, the boolean and comparison functions of §10.2.2 with
//! `$value`), and the scalars they compare (numbers, 1.3 scalar-units).
//!
//! In: a value and a clause, as YAML nodes. Out: whether the value meets
//! it, or `None` where that cannot be told before the plan runs (another
//! function, a value of another kind).

use super::fold::{entry_test, sequence_test};
use crate::yaml::node::{Kind, Node};

/// A unit and how many of the base unit it is.
pub(super) type Units = &'static [(&'static str, f64)];

/// 1.3 §3.3.6.4.
pub(super) const SIZE_UNITS: Units = &[
    ("B", 1.0),
    ("kB", 1e3),
    ("KiB", 1024.0),
    ("MB", 1e6),
    ("MiB", 1_048_576.0),
    ("GB", 1e9),
    ("GiB", 1_073_741_824.0),
    ("TB", 1e12),
    ("TiB", 1_099_511_627_776.0),
];
/// 1.3 §3.3.6.5.
pub(super) const TIME_UNITS: Units = &[
    ("d", 86_400.0),
    ("h", 3_600.0),
    ("m", 60.0),
    ("s", 1.0),
    ("ms", 1e-3),
    ("us", 1e-6),
    ("ns", 1e-9),
];
/// 1.3 §3.3.6.6.
pub(super) const FREQUENCY_UNITS: Units = &[("Hz", 1.0), ("kHz", 1e3), ("MHz", 1e6), ("GHz", 1e9)];
/// 1.3 §3.3.6.7.
pub(super) const BITRATE_UNITS: Units = &[
    ("bps", 1.0),
    ("Kbps", 1e3),
    ("Kibps", 1024.0),
    ("Mbps", 1e6),
    ("Mibps", 1_048_576.0),
    ("Gbps", 1e9),
    ("Gibps", 1_073_741_824.0),
    ("Tbps", 1e12),
    ("Tibps", 1_099_511_627_776.0),
];

/// The units of a 2.0 scalar type (§9.1.2.2), with the prefixes they
/// may take: how a value such as `15 cm` reads as a number of the base
/// unit.
#[derive(Clone, Copy, Debug, Default)]
pub(super) struct Scale<'s> {
    pub(super) units: &'s [(String, f64)],
    pub(super) prefixes: &'s [(String, f64)],
}

impl Scale<'_> {
    /// `text` in the base unit: a number, then (after optional space) a
    /// unit, which may carry a prefix.
    pub(super) fn read(&self, text: &str) -> Option<f64> {
        let (amount, u) = amount_and_unit(text)?;
        if let Some((_, m)) = self.units.iter().find(|(name, _)| name == u) {
            return Some(amount * m);
        }
        self.prefixes.iter().find_map(|(p, pm)| {
            let rest = u.strip_prefix(p.as_str())?;
            let (_, m) = self.units.iter().find(|(name, _)| name == rest)?;
            Some(amount * pm * m)
        })
    }

    /// The units for a message, with the prefixes if there are any.
    pub(super) fn describe(&self) -> String {
        let units: Vec<&str> = self.units.iter().map(|(u, _)| u.as_str()).collect();
        if self.prefixes.is_empty() {
            units.join(", ")
        } else {
            let prefixes: Vec<&str> = self
                .prefixes
                .iter()
                .map(|(p, _)| p.as_str())
                .filter(|p| !p.is_empty())
                .collect();
            format!(
                "{} (with a prefix of {})",
                units.join(", "),
                prefixes.join(", ")
            )
        }
    }
}

/// What a plain scalar is in YAML 1.2's core schema.
pub(super) fn plain_kind(text: &str) -> &'static str {
    match text {
        "" | "~" | "null" | "Null" | "NULL" => "null",
        "true" | "True" | "TRUE" | "false" | "False" | "FALSE" => "boolean",
        _ if is_core_integer(text) => "integer",
        _ if is_core_float(text) => "float",
        _ => "string",
    }
}

/// An integer as YAML 1.2's core schema writes it: decimal with a sign,
/// `0x` hexadecimal, `0o` octal.
pub(super) fn is_core_integer(s: &str) -> bool {
    let digits = s.strip_prefix(['-', '+']).unwrap_or(s);
    if let Some(h) = s.strip_prefix("0x") {
        return !h.is_empty() && h.chars().all(|c| c.is_ascii_hexdigit());
    }
    if let Some(o) = s.strip_prefix("0o") {
        return !o.is_empty() && o.chars().all(|c| ('0'..='7').contains(&c));
    }
    !digits.is_empty() && digits.chars().all(|c| c.is_ascii_digit())
}

fn is_core_float(s: &str) -> bool {
    let body = s.strip_prefix(['-', '+']).unwrap_or(s);
    if matches!(body, ".inf" | ".Inf" | ".INF") || matches!(s, ".nan" | ".NaN" | ".NAN") {
        return true;
    }
    let (mantissa, exponent) = match body.split_once(['e', 'E']) {
        Some((m, e)) => (m, Some(e)),
        None => (body, None),
    };
    let exponent_ok = exponent.is_none_or(|e| {
        let d = e.strip_prefix(['-', '+']).unwrap_or(e);
        !d.is_empty() && d.chars().all(|c| c.is_ascii_digit())
    });
    let (int, frac) = match mantissa.split_once('.') {
        Some((i, f)) => (i, Some(f)),
        None => (mantissa, None),
    };
    let digits = |p: &str| p.chars().all(|c| c.is_ascii_digit());
    let mantissa_ok = match frac {
        Some(f) => digits(int) && digits(f) && !(int.is_empty() && f.is_empty()),
        None => !int.is_empty() && digits(int),
    };
    mantissa_ok && exponent_ok
}

/// A number as written (an integer in any of YAML's forms, or a float).
pub(super) fn number(text: &str) -> Option<f64> {
    let t = text.trim();
    if is_core_integer(t) {
        let (sign, digits) = match t.strip_prefix('-') {
            Some(d) => (-1.0, d),
            None => (1.0, t.strip_prefix('+').unwrap_or(t)),
        };
        let v = if let Some(h) = digits.strip_prefix("0x") {
            i64::from_str_radix(h, 16).ok()? as f64
        } else if let Some(o) = digits.strip_prefix("0o") {
            i64::from_str_radix(o, 8).ok()? as f64
        } else {
            digits.parse::<f64>().ok()?
        };
        return Some(sign * v);
    }
    if is_core_float(t) {
        return match t.trim_start_matches(['-', '+']) {
            ".inf" | ".Inf" | ".INF" if t.starts_with('-') => Some(f64::NEG_INFINITY),
            ".inf" | ".Inf" | ".INF" => Some(f64::INFINITY),
            ".nan" | ".NaN" | ".NAN" => Some(f64::NAN),
            _ => t.parse().ok(),
        };
    }
    None
}

/// A scalar as written: a number, then (after optional space) a unit.
fn amount_and_unit(text: &str) -> Option<(f64, &str)> {
    let t = text.trim();
    let split = match t.rfind(char::is_whitespace) {
        Some(at) => at,
        None => t.find(|c: char| !(c.is_ascii_digit() || "+-.".contains(c)))?,
    };
    let (n, u) = (t[..split].trim(), t[split..].trim());
    Some((number(n)?, u))
}

/// A scalar-unit value (`4 GB`, `500ms`) in its base unit, if it has one
/// of `units` (matched without regard to case, as 1.3 reads them).
pub(super) fn scalar(text: &str, units: Units) -> Option<f64> {
    let (amount, u) = amount_and_unit(text)?;
    let factor = units
        .iter()
        .find(|(name, _)| name.eq_ignore_ascii_case(u))
        .map(|(_, f)| *f)?;
    Some(amount * factor)
}

/// A value a clause compares.
#[derive(Clone, Debug, PartialEq)]
enum Val {
    Bool(bool),
    Num(f64),
    Str(String),
    List(Vec<Val>),
    /// A map's keys and values, in order.
    Map(Vec<(Val, Val)>),
}

impl Val {
    /// A literal: numbers and scalars as numbers (in base units: of
    /// `scale`, a 2.0 scalar type's, or of 1.3's scalar-units).
    fn of(n: &Node, scale: Option<&Scale<'_>>) -> Option<Val> {
        Some(match &n.kind {
            Kind::Scalar { text, quoted } => {
                if !quoted && plain_kind(text) == "boolean" {
                    Val::Bool(text.eq_ignore_ascii_case("true"))
                } else if let Some(x) = number(text) {
                    Val::Num(x)
                } else if let Some(x) = scale.and_then(|s| s.read(text)) {
                    Val::Num(x)
                } else if let Some(x) = [SIZE_UNITS, TIME_UNITS, FREQUENCY_UNITS, BITRATE_UNITS]
                    .iter()
                    .find_map(|u| scalar(text, u))
                {
                    Val::Num(x)
                } else {
                    Val::Str(text.clone())
                }
            }
            Kind::Seq(items) => Val::List(
                items
                    .iter()
                    .map(|i| Val::of(i, scale))
                    .collect::<Option<_>>()?,
            ),
            // A call (`{$get_input: x}`, 1.3's `{get_input: x}`) is no map
            // the clause can compare.
            Kind::Map(entries)
                if entries.len() == 1 && entries[0].0.as_str().is_some_and(is_call) =>
            {
                return None;
            }
            Kind::Map(entries) => Val::Map(
                entries
                    .iter()
                    .map(|(k, v)| Some((Val::of(k, None)?, Val::of(v, scale)?)))
                    .collect::<Option<_>>()?,
            ),
            _ => return None,
        })
    }

    fn length(&self) -> Option<f64> {
        match self {
            Val::Str(s) => Some(s.chars().count() as f64),
            Val::List(l) => Some(l.len() as f64),
            Val::Map(m) => Some(m.len() as f64),
            _ => None,
        }
    }

    /// Values of one kind in order; `None` for two of different kinds.
    fn cmp(&self, other: &Val) -> Option<std::cmp::Ordering> {
        match (self, other) {
            (Val::Num(a), Val::Num(b)) => a.partial_cmp(b),
            (Val::Str(a), Val::Str(b)) => Some(a.cmp(b)),
            _ => None,
        }
    }

    /// Equal values; `None` for two of kinds that cannot be compared.
    fn equals(&self, other: &Val) -> Option<bool> {
        match (self, other) {
            (Val::Num(_), Val::Str(_)) | (Val::Str(_), Val::Num(_)) => None,
            _ => Some(self == other),
        }
    }
}

/// Whether a map's only key names a function: `$` and a name (2.0), or a
/// function of the Simple Profile (1.x).
fn is_call(key: &str) -> bool {
    key.starts_with('$') || crate::yaml::functions::SIMPLE_PROFILE.contains(&key)
}

/// A value's length as a map has one too.
fn length_of(n: &Node) -> Option<f64> {
    match &n.kind {
        Kind::Map(entries) => Some(entries.len() as f64),
        _ => Val::of(n, None)?.length(),
    }
}

/// Whether `v` meets the 1.3 constraint clause `clause` (a map of one
/// operator to its argument).
pub(super) fn constraint(v: &Node, clause: &Node, scale: Option<&Scale<'_>>) -> Option<bool> {
    let [(op, arg)] = clause.as_map()? else {
        return None;
    };
    let op = op.as_str()?;
    match op {
        "length" | "min_length" | "max_length" => {
            let have = length_of(v)?;
            let want = number(arg.as_str()?)?;
            Some(match op {
                "length" => have == want,
                "min_length" => have >= want,
                _ => have <= want,
            })
        }
        "pattern" => matches(&Val::of(v, None)?, &Val::of(arg, None)?),
        _ => compare(op, &Val::of(v, scale)?, arg, scale),
    }
}

/// A comparison operator (1.3 names) of `value` with `arg` as written.
fn compare(op: &str, value: &Val, arg: &Node, scale: Option<&Scale<'_>>) -> Option<bool> {
    use std::cmp::Ordering::*;
    let of = |n: &Node| Val::of(n, scale);
    match op {
        "equal" => value.equals(&of(arg)?),
        "greater_than" => Some(value.cmp(&of(arg)?)? == Greater),
        "greater_or_equal" => Some(value.cmp(&of(arg)?)? != Less),
        "less_than" => Some(value.cmp(&of(arg)?)? == Less),
        "less_or_equal" => Some(value.cmp(&of(arg)?)? != Greater),
        "in_range" => {
            let [lo, hi] = arg.as_seq()? else {
                return None;
            };
            let above = value.cmp(&of(lo)?)? != Less;
            if hi.as_str() == Some("UNBOUNDED") {
                return Some(above);
            }
            Some(above && value.cmp(&of(hi)?)? != Greater)
        }
        "valid_values" => {
            let mut any = false;
            for candidate in arg.as_seq()? {
                any |= value.equals(&of(candidate)?)?;
            }
            Some(any)
        }
        _ => None,
    }
}

/// Whether string `value` matches `pattern` as a whole.
fn matches(value: &Val, pattern: &Val) -> Option<bool> {
    let (Val::Str(s), Val::Str(p)) = (value, pattern) else {
        return None;
    };
    let re = regex::Regex::new(&format!("^(?:{p})$")).ok()?;
    Some(re.is_match(s))
}

/// Whether `v` passes the 2.0 validation clause `clause`.
pub(super) fn validation(v: &Node, clause: &Node, scale: Option<&Scale<'_>>) -> Option<bool> {
    match eval(clause, v, scale)? {
        Val::Bool(b) => Some(b),
        _ => None,
    }
}

/// The value of expression `e` where `$value` is `v`.
fn eval(e: &Node, v: &Node, scale: Option<&Scale<'_>>) -> Option<Val> {
    match &e.kind {
        Kind::Scalar {
            text,
            quoted: false,
        } if text == "$value" => Val::of(v, scale),
        Kind::Map(entries) if entries.len() == 1 => {
            let (k, arg) = &entries[0];
            let name = k.as_str()?.strip_prefix('$')?;
            let args: Vec<&Node> = match &arg.kind {
                Kind::Seq(items) => items.iter().collect(),
                Kind::Null => Vec::new(),
                _ => vec![arg],
            };
            call(name, &args, v, scale)
        }
        Kind::Seq(items) => Some(Val::List(
            items
                .iter()
                .map(|i| eval(i, v, scale))
                .collect::<Option<_>>()?,
        )),
        _ => Val::of(e, scale),
    }
}

/// A function of §10.2.2 (and `$length`) on its arguments.
fn call(name: &str, args: &[&Node], v: &Node, scale: Option<&Scale<'_>>) -> Option<Val> {
    let eval = |n: &Node, v: &Node| eval(n, v, scale);
    let bool_of = |n: &Node| match eval(n, v)? {
        Val::Bool(b) => Some(b),
        _ => None,
    };
    Some(Val::Bool(match (name, args) {
        ("value", []) => return Val::of(v, scale),
        // A field of a complex value (2.0 §10.2.1.9 with arguments).
        ("value", [field]) => return Val::of(v.get(field.as_str()?)?, None),
        ("and", _) => {
            let mut all = true;
            for a in args {
                all &= bool_of(a)?;
            }
            all
        }
        ("or", _) => {
            let mut any = false;
            for a in args {
                any |= bool_of(a)?;
            }
            any
        }
        ("not", [a]) => !bool_of(a)?,
        ("xor", [a, b]) => bool_of(a)? != bool_of(b)?,
        ("length", [a]) => {
            let n = if is_value(a) {
                length_of(v)?
            } else {
                eval(a, v)?.length()?
            };
            return Some(Val::Num(n));
        }
        ("matches", [a, p]) => matches(&eval(a, v)?, &eval(p, v)?)?,
        ("has_prefix", [a, p]) | ("has_suffix", [a, p]) | ("contains", [a, p]) => {
            match (eval(a, v)?, eval(p, v)?) {
                (Val::Str(s), Val::Str(x)) => match name {
                    "has_prefix" => s.starts_with(&x),
                    "has_suffix" => s.ends_with(&x),
                    _ => s.contains(&x),
                },
                (Val::List(whole), Val::List(part)) => sequence_test(name, &whole, &part),
                _ => return None,
            }
        }
        (
            "has_entry" | "has_key" | "has_all_entries" | "has_all_keys" | "has_any_entry"
            | "has_any_key",
            [c, x],
        ) => entries(name, &eval(c, v)?, &eval(x, v)?)?,
        (
            "equal" | "greater_than" | "greater_or_equal" | "less_than" | "less_or_equal"
            | "in_range" | "valid_values",
            [a, b],
        ) => {
            let value = eval(a, v)?;
            // The second argument is a literal (a range or a list of
            // values), or an expression of `$value` for a comparison.
            if matches!(name, "in_range" | "valid_values") || !mentions_value(b) {
                compare(name, &value, b, scale)?
            } else {
                let other = eval(b, v)?;
                let ord = value.cmp(&other);
                match name {
                    "equal" => value.equals(&other)?,
                    "greater_than" => ord? == std::cmp::Ordering::Greater,
                    "greater_or_equal" => ord? != std::cmp::Ordering::Less,
                    "less_than" => ord? == std::cmp::Ordering::Less,
                    _ => ord? != std::cmp::Ordering::Greater,
                }
            }
        }
        _ => return None,
    }))
}

/// The entry and key tests of §10.2.2.3.4-9 of `collection` and `arg`.
fn entries(name: &str, collection: &Val, arg: &Val) -> Option<bool> {
    let (entries, keys): (Vec<&Val>, Option<Vec<&Val>>) = match collection {
        Val::List(l) => (l.iter().collect(), None),
        Val::Map(m) => (
            m.iter().map(|(_, v)| v).collect(),
            Some(m.iter().map(|(k, _)| k).collect()),
        ),
        _ => return None,
    };
    let wanted: Vec<&Val> = match (name, arg) {
        ("has_entry" | "has_key", one) => vec![one],
        (_, Val::List(l)) => l.iter().collect(),
        _ => return None,
    };
    entry_test(name, &entries, keys.as_deref(), &wanted)
}

fn is_value(n: &Node) -> bool {
    matches!(&n.kind, Kind::Scalar { text, quoted: false } if text == "$value")
}

fn mentions_value(n: &Node) -> bool {
    match &n.kind {
        Kind::Scalar { .. } => is_value(n),
        Kind::Seq(items) => items.iter().any(mentions_value),
        Kind::Map(entries) => entries
            .iter()
            .any(|(k, v)| k.as_str().is_some_and(|s| s.starts_with('$')) || mentions_value(v)),
        Kind::Null => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn yaml(text: &str) -> Node {
        let f = std::sync::Arc::new(crate::diagnostics::SourceFile::new("t.yaml", text));
        crate::yaml::node::parse(&f, crate::yaml::node::LoadLimits::default()).expect("valid YAML")
    }

    #[test]
    fn plain_scalars_resolve_as_yaml_1_2_core_does() {
        assert_eq!(plain_kind("0.1"), "float");
        assert_eq!(plain_kind("42"), "integer");
        assert_eq!(plain_kind("yes"), "string");
        assert_eq!(plain_kind("~"), "null");
        assert_eq!(plain_kind("1.0.2"), "string");
    }

    #[test]
    fn scalar_units_compare_in_base_units() {
        assert_eq!(scalar("4 GB", SIZE_UNITS), Some(4e9));
        assert_eq!(scalar("500ms", TIME_UNITS), Some(0.5));
        assert_eq!(scalar("4 XB", SIZE_UNITS), None);
        let v = yaml("2 GB");
        assert_eq!(
            constraint(&v, &yaml("{greater_or_equal: 512 MB}"), None),
            Some(true)
        );
        assert_eq!(
            constraint(&v, &yaml("{in_range: [1 MB, 1 GB]}"), None),
            Some(false)
        );
    }

    #[test]
    fn constraints_of_1_3() {
        let v = yaml("abc");
        assert_eq!(constraint(&v, &yaml("{min_length: 2}"), None), Some(true));
        assert_eq!(
            constraint(&v, &yaml("{pattern: '[a-c]+'}"), None),
            Some(true)
        );
        assert_eq!(
            constraint(&v, &yaml("{valid_values: [x, y]}"), None),
            Some(false)
        );
        assert_eq!(
            constraint(&yaml("9"), &yaml("{less_than: 5}"), None),
            Some(false)
        );
        assert_eq!(constraint(&v, &yaml("{schema: x}"), None), None);
    }

    #[test]
    fn validation_clauses_of_2_0() {
        let v = yaml("70000");
        let clause =
            yaml("{$and: [{$greater_or_equal: [$value, 0]}, {$less_or_equal: [$value, 65535]}]}");
        assert_eq!(validation(&v, &clause, None), Some(false));
        assert_eq!(validation(&yaml("80"), &clause, None), Some(true));
        let len = yaml("{$less_than: [{$length: [$value]}, 4]}");
        assert_eq!(validation(&yaml("abc"), &len, None), Some(true));
        let unknown = yaml("{$greater_than: [$value, {$get_input: x}]}");
        assert_eq!(validation(&v, &unknown, None), None);
        let unknown = yaml("{$equal: [$value, {$get_input: x}]}");
        assert_eq!(validation(&v, &unknown, None), None);
        let unknown = yaml("{$valid_values: [$value, [1, {$get_input: x}]]}");
        assert_eq!(validation(&v, &unknown, None), None);
        assert_eq!(
            constraint(&v, &yaml("{valid_values: [1, {get_input: x}]}"), None),
            None
        );
        let fields = yaml("{$greater_or_equal: [{$value: [high]}, {$value: [low]}]}");
        assert_eq!(
            validation(&yaml("{low: 2, high: 1}"), &fields, None),
            Some(false)
        );
    }

    #[test]
    fn list_and_map_clauses_of_2_0() {
        let ports = yaml("[80, 443, 8080]");
        let check = |clause: &str| validation(&ports, &yaml(clause), None);
        assert_eq!(check("{$has_entry: [$value, 443]}"), Some(true));
        assert_eq!(check("{$has_all_entries: [$value, [80, 22]]}"), Some(false));
        assert_eq!(check("{$has_any_entry: [$value, [80, 22]]}"), Some(true));
        assert_eq!(check("{$has_prefix: [$value, [80, 443]]}"), Some(true));
        assert_eq!(check("{$contains: [$value, [80, 8080]]}"), Some(false));
        let tags = yaml("{env: prod, tier: web}");
        let check = |clause: &str| validation(&tags, &yaml(clause), None);
        assert_eq!(check("{$has_key: [$value, env]}"), Some(true));
        assert_eq!(check("{$has_entry: [$value, env]}"), Some(false));
        assert_eq!(
            check("{$has_all_keys: [$value, [env, owner]]}"),
            Some(false)
        );
        assert_eq!(check("{$has_any_key: [$value, [env, owner]]}"), Some(true));
        assert_eq!(check("{$equal: [{$length: [$value]}, 2]}"), Some(true));
    }

    #[test]
    fn scalars_of_2_0_read_their_units_and_prefixes() {
        let (units, prefixes) = (
            [("m".to_string(), 1.0)],
            [
                ("c".to_string(), 0.01),
                ("m".to_string(), 0.001),
                ("k".to_string(), 1e3),
            ],
        );
        let length = Scale {
            units: &units,
            prefixes: &prefixes,
        };
        assert_eq!(length.read("15 cm"), Some(0.15));
        assert_eq!(length.read("200 mm"), Some(0.2));
        assert_eq!(length.read("2km"), Some(2000.0));
        assert_eq!(length.read("4 XB"), None);
        let clause = yaml("{$less_than: [$value, 15 cm]}");
        assert_eq!(
            validation(&yaml("200 mm"), &clause, Some(&length)),
            Some(false)
        );
        assert_eq!(
            validation(&yaml("100 mm"), &clause, Some(&length)),
            Some(true)
        );
    }
}
