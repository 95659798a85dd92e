//! Property values checked against their definitions: the type (1.3
//! §3.2–3.3, 2.0 §9: the built-in types, data types derived from them or
//! with properties of their own, `entry_schema` and `key_schema`), the
//! clauses a definition or a data type adds (1.3 `constraints` §3.6.3, 2.0
//! `validation` §9.1.2 with `$value`), and the properties a template must
//! give (`required`, with no `default` or fixed `value`).
//!
//! In: a template's property definitions (its type's ancestry) and its
//! assignments. Out: an error (E0317) for each value that is not of its
//! type or breaks a clause, and for each required property left without a
//! value (a warning, W0311, in 1.x files); a warning (W0311) for a clause
//! that cannot be decided before the plan runs. A value given by a function (`get_input`, `$get_property`,
//! …) is known only when the plan runs and is not checked here, but for
//! `get_input` of an input given with --input, whose value is checked.

use super::value_clauses::Scale;
use super::{Def, Lowerer, Unit};
use crate::diagnostics::{Diagnostic, Location, Span, codes};
use crate::yaml::ast::{self, TypeKind, ValueSchema};
use crate::yaml::functions::{Classified, classify};
use crate::yaml::node::{Kind, Node};

/// What is wrong with a value, and where.
struct Bad {
    span: Span,
    what: String,
}

impl Bad {
    fn at(node: &Node, what: impl Into<String>) -> Bad {
        Bad {
            span: node.span,
            what: what.into(),
        }
    }
}

/// Nested data types deeper than this are taken for a cycle.
const DEPTH: usize = 32;

impl<'a> Lowerer<'a> {
    /// Check the values `owner` (at `owner_at`, in `unit`) gives its
    /// properties (`assigned`, each read in its own file), and the
    /// defaults and fixed values of the definitions it leaves to them;
    /// with `required`, that every required property has a value.
    pub(super) fn check_properties(
        &mut self,
        defs: &[Def<'a>],
        assigned: &[(&'a ast::Spanned, &'a Node, Unit<'a>)],
        owner: &str,
        owner_at: (Unit<'a>, Location),
        required: bool,
    ) {
        let (unit, at_owner) = owner_at;
        if unit.builtin {
            return;
        }
        // What `$get_property: [SELF, p]` in a clause reads.
        self.clause_self = assigned
            .iter()
            .map(|(k, v, _)| (k.text.as_str(), *v))
            .collect();
        // The most derived definition of each name counts.
        let mut last: Vec<(&'a ast::PropertyDef, Unit<'a>)> = Vec::new();
        for d in defs {
            for p in &d.def.properties {
                last.retain(|(q, _)| q.name.text != p.name.text);
                last.push((p, d.unit));
            }
        }
        for (p, def_unit) in last {
            let given = assigned.iter().find(|(k, _, _)| k.text == p.name.text);
            let (value, at) = match (given, &p.value, &p.default) {
                (Some((_, v, u)), _, _) => (Some(*v), *u),
                (None, Some(v), _) | (None, None, Some(v)) => (Some(v), def_unit),
                (None, None, None) => (None, unit),
            };
            let Some(value) = value.filter(|v| !v.is_null()) else {
                if required && p.required && given.is_none() {
                    self.missing_required(p, def_unit, unit, owner, at_owner.clone());
                }
                continue;
            };
            let Some(ty) = p.type_name.as_deref() else {
                continue;
            };
            let mut subject = format!("property `{}` of `{owner}`", p.name.text);
            // An input given when the plans are made is known now.
            let (value, at) = match self.given_input_of(value) {
                Some((name, given, given_unit)) => {
                    subject.push_str(&format!(" (input `{name}`, given with --input)"));
                    (given, given_unit)
                }
                None => (value, at),
            };
            // A definition's clauses are read where it is written; a
            // value's data types where the value is.
            if let Err(bad) = self.check_value(value, ty, &p.schema, def_unit, at, 0) {
                self.report(&subject, (&p.name.text, "a value"), ty, bad, at);
            }
        }
    }

    /// Check the default of a topology input against its type.
    pub(super) fn check_input(&mut self, i: &'a ast::PropertyDef, unit: Unit<'a>) {
        let (Some(value), Some(ty)) = (i.default.as_ref().or(i.value.as_ref()), &i.type_name)
        else {
            return;
        };
        if value.is_null() {
            return;
        }
        if let Err(bad) = self.check_value(value, ty, &i.schema, unit, unit, 0) {
            let subject = format!("the default of input `{}`", i.name.text);
            self.report(&subject, (&i.name.text, "a default"), ty, bad, unit);
        }
    }

    /// Check the value given to input `i` with --input (in `given`, the
    /// document of given values) against its definition.
    pub(super) fn check_given_input(
        &mut self,
        i: &'a ast::PropertyDef,
        value: &Node,
        given: Unit<'a>,
        unit: Unit<'a>,
    ) {
        let Some(ty) = &i.type_name else {
            return;
        };
        if let Err(bad) = self.check_value(value, ty, &i.schema, unit, given, 0) {
            let subject = format!("the value --input gives input `{}`", i.name.text);
            self.report(&subject, (&i.name.text, "a value"), ty, bad, given);
        }
    }

    /// E0317: what is wrong with the value of `subject` (`name`'s, which
    /// should be `what` of type `ty`), at the value.
    fn report(
        &mut self,
        subject: &str,
        (name, what): (&str, &str),
        ty: &str,
        bad: Bad,
        unit: Unit<'a>,
    ) {
        self.diags.push(
            Diagnostic::error(codes::YAML_VALUE, format!("{subject}: {}", bad.what))
                .at(Self::at(unit, bad.span))
                .hint(format!(
                    "give `{name}` {what} of type `{ty}` that meets its definition"
                )),
        );
    }

    fn missing_required(
        &mut self,
        p: &ast::PropertyDef,
        def_unit: Unit<'a>,
        unit: Unit<'a>,
        owner: &str,
        owner_at: Location,
    ) {
        let ty = p.type_name.as_deref().unwrap_or("?");
        // 1.x files (the 1.3 text's own examples among them) leave
        // required properties of the normative types unassigned, and
        // 1.x processors let them: a warning there, an error in 2.0.
        let d = if unit.file.version.is_v2() {
            Diagnostic::error(
                codes::YAML_VALUE,
                format!(
                    "`{owner}` gives no value to its required property `{}` (`{ty}`), which has no default",
                    p.name.text
                ),
            )
        } else {
            Diagnostic::warning(
                codes::W_YAML_LENIENT,
                format!(
                    "`{owner}` gives no value to its required property `{}` (`{ty}`), which has no default: the plans pass none",
                    p.name.text
                ),
            )
        };
        let mut d = d.at(owner_at).hint(format!(
            "assign `{}`, or define it with `required: false` or a `default`",
            p.name.text
        ));
        if !def_unit.builtin {
            d = d.note(format!("defined at {}", Self::at(def_unit, p.name.span)));
        }
        self.diags.push(d);
    }

    /// Check `v` against type `ty` and `schema`. Type names are read in
    /// `def_unit`, where the definition is; functions in `unit`.
    fn check_value(
        &mut self,
        v: &Node,
        ty: &str,
        schema: &ValueSchema,
        def_unit: Unit<'a>,
        unit: Unit<'a>,
        depth: usize,
    ) -> Result<(), Bad> {
        if depth > DEPTH || self.is_call(v, unit) {
            return Ok(());
        }
        let scale = match primitive(ty) {
            Some(p) => {
                check_primitive(v, p, unit.file.version.is_v2())?;
                None
            }
            None => self.check_data(v, ty, def_unit, unit, depth)?,
        };
        self.check_schema(v, ty, schema, scale.as_ref(), def_unit, unit, depth)
    }

    /// A value of data type `ty`: what its ancestors derive from, their
    /// properties and clauses. Gives the units of a scalar type (2.0).
    fn check_data(
        &mut self,
        v: &Node,
        ty: &str,
        def_unit: Unit<'a>,
        unit: Unit<'a>,
        depth: usize,
    ) -> Result<Option<Scale<'a>>, Bad> {
        let Some(key) = self.resolve(TypeKind::Data, ty, def_unit) else {
            // Unknown types are reported where types are resolved.
            return Ok(None);
        };
        let defs = self.defs(TypeKind::Data, &key);
        // The root's `derived_from` names a built-in type, if any.
        if let Some(base) = defs
            .first()
            .and_then(|d| d.def.derived_from.as_ref())
            .and_then(|b| primitive(&b.text))
        {
            check_primitive(v, base, unit.file.version.is_v2())?;
        }
        let fields: Vec<(&'a ast::PropertyDef, Unit<'a>)> = defs
            .iter()
            .flat_map(|d| d.def.properties.iter().map(move |p| (p, d.unit)))
            .collect();
        if !fields.is_empty() {
            self.check_fields(v, ty, &fields, unit, depth)?;
        }
        // A scalar type's units and prefixes are its nearest ancestor's.
        let mut scale = Scale::default();
        for d in defs.iter() {
            if !d.def.schema.units.is_empty() {
                scale.units = &d.def.schema.units;
            }
            if !d.def.schema.prefixes.is_empty() {
                scale.prefixes = &d.def.schema.prefixes;
            }
        }
        let scale = (!scale.units.is_empty()).then_some(scale);
        if let (Some(scale), Some(text)) = (&scale, v.as_str())
            && scale.read(text).is_none()
        {
            return Err(Bad::at(
                v,
                format!(
                    "`{text}` is not a `{ty}`: a number and a unit of {}",
                    scale.describe()
                ),
            ));
        }
        for d in defs.iter() {
            self.check_schema(v, ty, &d.def.schema, scale.as_ref(), d.unit, unit, depth)?;
        }
        Ok(scale)
    }

    /// A value of a data type with properties: a map of them.
    fn check_fields(
        &mut self,
        v: &Node,
        ty: &str,
        fields: &[(&'a ast::PropertyDef, Unit<'a>)],
        unit: Unit<'a>,
        depth: usize,
    ) -> Result<(), Bad> {
        let Some(entries) = v.as_map() else {
            return Err(Bad::at(v, format!("a `{ty}` is a map of its properties")));
        };
        for (k, fv) in entries {
            let name = k.as_str().unwrap_or_default();
            let Some((p, pu)) = fields.iter().rev().find(|(p, _)| p.name.text == name) else {
                return Err(Bad::at(k, format!("`{ty}` has no property `{name}`")));
            };
            if fv.is_null() {
                continue;
            }
            if let Some(fty) = p.type_name.as_deref() {
                self.check_value(fv, fty, &p.schema, *pu, unit, depth + 1)?;
            }
        }
        for (p, _) in fields {
            let given = entries
                .iter()
                .any(|(k, _)| k.as_str() == Some(&p.name.text));
            if p.required && !given && p.default.is_none() && p.value.is_none() {
                return Err(Bad::at(
                    v,
                    format!("this `{ty}` lacks its required property `{}`", p.name.text),
                ));
            }
        }
        Ok(())
    }

    /// The clauses of `schema` on `v` (a scalar of `scale`, if any).
    #[allow(clippy::too_many_arguments)]
    fn check_schema(
        &mut self,
        v: &Node,
        ty: &str,
        schema: &ValueSchema,
        scale: Option<&Scale<'_>>,
        def_unit: Unit<'a>,
        unit: Unit<'a>,
        depth: usize,
    ) -> Result<(), Bad> {
        if let Some(entry) = &schema.entry_schema {
            let (ety, eschema) = entry_type(entry);
            let items: Vec<&Node> = match &v.kind {
                Kind::Seq(items) => items.iter().collect(),
                Kind::Map(entries) => entries.iter().map(|(_, e)| e).collect(),
                _ => Vec::new(),
            };
            if let Some(ety) = ety {
                for item in items {
                    self.check_value(item, &ety, &eschema, def_unit, unit, depth + 1)?;
                }
            }
        }
        if let (Some(key), Kind::Map(entries)) = (&schema.key_schema, &v.kind) {
            let (kty, kschema) = entry_type(key);
            if let Some(kty) = kty {
                for (k, _) in entries {
                    self.check_value(k, &kty, &kschema, def_unit, unit, depth + 1)?;
                }
            }
        }
        // A 1.3 constraint clause each, and a 2.0 validation clause.
        let constraints = schema.constraints.as_ref().and_then(Node::as_seq);
        let clauses = constraints
            .unwrap_or_default()
            .iter()
            .map(|c| (c, "meet the constraint"))
            .chain(
                schema
                    .validation
                    .iter()
                    .map(|c| (c, "pass the validation clause")),
            );
        for (clause, verb) in clauses {
            let holds = if verb == "meet the constraint" {
                super::value_clauses::constraint(v, clause, scale)
            } else {
                let known = self.known_operands(clause);
                super::value_clauses::validation(v, known.as_ref().unwrap_or(clause), scale)
            };
            match holds {
                Some(true) => {}
                Some(false) => {
                    let what = format!("{} does not {verb} {}", shown(v), shown(clause));
                    return Err(Bad::at(v, what));
                }
                None => self.undecided(clause, ty, def_unit),
            }
        }
        Ok(())
    }

    /// `clause` with the operands known now in place of the functions
    /// that read them: `$get_input` of an input given with --input, and
    /// `$get_property: [SELF, p]` of a property the template gives a
    /// plain value. `None` where there are none.
    fn known_operands(&self, clause: &Node) -> Option<Node> {
        let known = |n: &Node| -> Option<Node> {
            if let Some((_, given, _)) = self.given_input_of(n) {
                return Some(given.clone());
            }
            let args = n.get("$get_property")?.as_seq()?;
            let [entity, property] = args else {
                return None;
            };
            if entity.as_str() != Some("SELF") {
                return None;
            }
            let name = property.as_str()?;
            let (_, value) = self.clause_self.iter().find(|(p, _)| *p == name)?;
            (!has_function(value)).then(|| (*value).clone())
        };
        replace(clause, &known)
    }

    /// A clause that cannot be decided on the value as written.
    fn undecided(&mut self, clause: &Node, ty: &str, def_unit: Unit<'a>) {
        if def_unit.builtin {
            return;
        }
        self.push_once(
            Diagnostic::warning(
                codes::W_YAML_LENIENT,
                format!(
                    "the clause {} on values of `{ty}` is not checked: toscanini cannot decide it before the plan runs",
                    shown(clause)
                ),
            )
            .at(Self::at(def_unit, clause.span))
            .hint("the operands toscanini knows are `$value`, literals, the template's own plain property values (`$get_property: [SELF, p]`) and inputs given with `--input NAME=VALUE`"),
        );
    }

    /// Whether `v` is a function call (its value is known at run time).
    fn is_call(&self, v: &Node, unit: Unit<'a>) -> bool {
        matches!(
            classify(v, unit.file.version.is_v2(), &unit.file.source),
            Ok(Classified::Call(_) | Classified::Custom(_)) | Err(_)
        )
    }
}

/// The type (and clauses) an `entry_schema` or `key_schema` names.
fn entry_type(node: &Node) -> (Option<String>, ValueSchema) {
    match &node.kind {
        Kind::Scalar { text, .. } => (Some(text.clone()), ValueSchema::default()),
        Kind::Map(entries) => {
            let mut schema = ValueSchema::default();
            for (k, v) in entries {
                schema.take(k.as_str().unwrap_or_default(), v);
            }
            (
                node.get("type").and_then(Node::as_str).map(str::to_string),
                schema,
            )
        }
        _ => (None, ValueSchema::default()),
    }
}

/// The built-in types, by their 1.3 and 2.0 names.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Primitive {
    String,
    Integer,
    Float,
    Boolean,
    Timestamp,
    Version,
    Range,
    List,
    Map,
    Nil,
    /// 2.0 `scalar`, the base of the scalar types (their units decide).
    ScalarBase,
    /// 1.3 `scalar-unit.*`: a number and one of these units.
    Scalar(super::value_clauses::Units),
}

/// Whether `ty` names a built-in type.
pub(super) fn is_primitive(ty: &str) -> bool {
    primitive(ty).is_some()
}

fn primitive(ty: &str) -> Option<Primitive> {
    let ty = ty.strip_prefix("tosca:").unwrap_or(ty);
    Some(match ty {
        "string" => Primitive::String,
        "integer" => Primitive::Integer,
        "float" => Primitive::Float,
        "boolean" => Primitive::Boolean,
        "timestamp" => Primitive::Timestamp,
        "version" | "tosca.datatypes.version" => Primitive::Version,
        "range" | "tosca.datatypes.range" => Primitive::Range,
        "list" => Primitive::List,
        "map" => Primitive::Map,
        "null" | "nil" => Primitive::Nil,
        "scalar" => Primitive::ScalarBase,
        "scalar-unit.size" | "tosca.datatypes.scalar-unit.size" => {
            Primitive::Scalar(super::value_clauses::SIZE_UNITS)
        }
        "scalar-unit.time" | "tosca.datatypes.scalar-unit.time" => {
            Primitive::Scalar(super::value_clauses::TIME_UNITS)
        }
        "scalar-unit.frequency" | "tosca.datatypes.scalar-unit.frequency" => {
            Primitive::Scalar(super::value_clauses::FREQUENCY_UNITS)
        }
        "scalar-unit.bitrate" | "tosca.datatypes.scalar-unit.bitrate" => {
            Primitive::Scalar(super::value_clauses::BITRATE_UNITS)
        }
        _ => return None,
    })
}

/// `v` as a value of built-in type `p`. 2.0 reads YAML as YAML 1.2 does
/// (§5.3.1): an unquoted `0.1` is a number, never a string, and a quoted
/// `"5"` a string, never an integer; 1.x files were written for YAML 1.1
/// parsers that convert, and are read as leniently as tosca-parser does.
fn check_primitive(v: &Node, p: Primitive, v2: bool) -> Result<(), Bad> {
    use super::value_clauses::{number, plain_kind};
    let (text, quoted) = match &v.kind {
        Kind::Scalar { text, quoted } => (text.as_str(), *quoted),
        Kind::Null => {
            return Ok(());
        }
        Kind::Seq(_) if matches!(p, Primitive::List | Primitive::Range) => {
            return if p == Primitive::Range {
                check_range(v)
            } else {
                Ok(())
            };
        }
        Kind::Map(_) if p == Primitive::Map => return Ok(()),
        Kind::Seq(_) => {
            return Err(Bad::at(
                v,
                format!("a list is not {}", with_article(noun(p))),
            ));
        }
        Kind::Map(_) => {
            return Err(Bad::at(
                v,
                format!("a map is not {}", with_article(noun(p))),
            ));
        }
    };
    let plain = (!quoted).then(|| plain_kind(text));
    let ok = match p {
        Primitive::String => !v2 || plain.is_none_or(|k| k == "string"),
        Primitive::Integer => {
            matches!(plain, Some("integer")) || (!v2 || !quoted) && is_integer(text)
        }
        Primitive::Float => {
            matches!(plain, Some("integer" | "float")) || (!v2 || !quoted) && number(text).is_some()
        }
        Primitive::Boolean => {
            matches!(plain, Some("boolean"))
                || !v2
                    && matches!(
                        text.to_ascii_lowercase().as_str(),
                        "yes" | "no" | "on" | "off" | "true" | "false"
                    )
        }
        Primitive::Timestamp => is_timestamp(text),
        Primitive::Version => is_version(text),
        Primitive::Nil => matches!(plain, Some("null")),
        Primitive::ScalarBase => true,
        Primitive::Scalar(units) => super::value_clauses::scalar(text, units).is_some(),
        Primitive::List | Primitive::Range | Primitive::Map => false,
    };
    if ok {
        return Ok(());
    }
    let why = match (p, plain) {
        (Primitive::String, Some(k)) => format!(
            "`{text}` is {} {k}, not a string (TOSCA 2.0 reads YAML 1.2: quote it)",
            if k == "integer" { "an" } else { "a" }
        ),
        (Primitive::Scalar(units), _) => format!(
            "`{text}` is not {}: a number and a unit of {}",
            with_article(noun(p)),
            units.iter().map(|(u, _)| *u).collect::<Vec<_>>().join(", ")
        ),
        (_, None) if v2 && quoted => format!(
            "`\"{text}\"` is a string, not {} (TOSCA 2.0 reads YAML 1.2: no quotes)",
            with_article(noun(p))
        ),
        _ => format!("`{text}` is not {}", with_article(noun(p))),
    };
    Err(Bad::at(v, why))
}

fn noun(p: Primitive) -> &'static str {
    match p {
        Primitive::String => "string",
        Primitive::Integer => "integer",
        Primitive::Float => "float",
        Primitive::Boolean => "boolean",
        Primitive::Timestamp => "timestamp",
        Primitive::Version => "version",
        Primitive::Range => "range",
        Primitive::List => "list",
        Primitive::Map => "map",
        Primitive::Nil => "null",
        Primitive::ScalarBase => "scalar",
        Primitive::Scalar(_) => "scalar-unit value",
    }
}

fn with_article(noun: &str) -> String {
    let article = if noun.starts_with(['a', 'e', 'i', 'o', 'u']) {
        "an"
    } else {
        "a"
    };
    format!("{article} {noun}")
}

fn is_integer(s: &str) -> bool {
    super::value_clauses::is_core_integer(s.trim())
}

/// `major.minor[.fix[.qualifier[-build]]]` (1.3 §3.3.2; 2.0 §9.1.1.6);
/// a bare major number is taken too.
fn is_version(s: &str) -> bool {
    let (main, build) = match s.split_once('-') {
        Some((m, b)) => (m, Some(b)),
        None => (s, None),
    };
    if build.is_some_and(|b| b.is_empty() || !b.chars().all(|c| c.is_ascii_digit())) {
        return false;
    }
    let parts: Vec<&str> = main.split('.').collect();
    let numeric = |p: &&str| !p.is_empty() && p.chars().all(|c| c.is_ascii_digit());
    match parts.len() {
        1..=3 => parts.iter().all(numeric),
        4 => {
            parts[..3].iter().all(numeric)
                && !parts[3].is_empty()
                && parts[3]
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || c == '_')
        }
        _ => false,
    }
}

/// A YAML timestamp: a date, or a date and a time (yaml.org/type/timestamp).
fn is_timestamp(s: &str) -> bool {
    static RE: std::sync::OnceLock<regex::Regex> = std::sync::OnceLock::new();
    RE.get_or_init(|| {
        regex::Regex::new(
            r"^[0-9]{4}-[0-9]{1,2}-[0-9]{1,2}(([Tt]|[ \t]+)[0-9]{1,2}:[0-9]{2}:[0-9]{2}(\.[0-9]*)?([ \t]*(Z|[-+][0-9]{1,2}(:[0-9]{2})?))?)?$",
        )
        .expect("a valid pattern")
    })
    .is_match(s.trim())
}

/// A range: two integers, the second `UNBOUNDED` or not below the first.
fn check_range(v: &Node) -> Result<(), Bad> {
    let items = v.as_seq().unwrap_or_default();
    let bound = |n: &Node| {
        n.as_str()
            .filter(|s| is_integer(s))
            .and_then(|s| s.parse::<i64>().ok())
    };
    let ok = match items {
        [lo, hi] => match (bound(lo), hi.as_str()) {
            (Some(_), Some("UNBOUNDED")) => true,
            (Some(l), _) => bound(hi).is_some_and(|h| l <= h),
            _ => false,
        },
        _ => false,
    };
    if ok {
        Ok(())
    } else {
        Err(Bad::at(
            v,
            "a range is two integers, the lower first (or the upper `UNBOUNDED`)",
        ))
    }
}

/// A node as it reads in a message: scalars as written, lists and maps
/// in flow style.
fn shown(n: &Node) -> String {
    match &n.kind {
        Kind::Null => "null".into(),
        Kind::Scalar { text, quoted: true } => format!("`\"{text}\"`"),
        Kind::Scalar { text, .. } => format!("`{text}`"),
        _ => format!("`{}`", flow(n)),
    }
}

fn flow(n: &Node) -> String {
    match &n.kind {
        Kind::Null => "null".into(),
        Kind::Scalar { text, quoted: true } => format!("\"{text}\""),
        Kind::Scalar { text, .. } => text.clone(),
        Kind::Seq(items) => format!(
            "[{}]",
            items.iter().map(flow).collect::<Vec<_>>().join(", ")
        ),
        Kind::Map(entries) => format!(
            "{{{}}}",
            entries
                .iter()
                .map(|(k, v)| format!("{}: {}", flow(k), flow(v)))
                .collect::<Vec<_>>()
                .join(", ")
        ),
    }
}

/// `n` with `known` applied where it gives a node; `None` where it gives
/// none anywhere.
fn replace(n: &Node, known: &dyn Fn(&Node) -> Option<Node>) -> Option<Node> {
    if let Some(k) = known(n) {
        return Some(k);
    }
    let kind = match &n.kind {
        Kind::Seq(items) => {
            let new: Vec<Option<Node>> = items.iter().map(|i| replace(i, known)).collect();
            if new.iter().all(Option::is_none) {
                return None;
            }
            Kind::Seq(
                new.into_iter()
                    .zip(items)
                    .map(|(r, i)| r.unwrap_or_else(|| i.clone()))
                    .collect(),
            )
        }
        Kind::Map(entries) => {
            let new: Vec<Option<Node>> = entries.iter().map(|(_, v)| replace(v, known)).collect();
            if new.iter().all(Option::is_none) {
                return None;
            }
            Kind::Map(
                new.into_iter()
                    .zip(entries)
                    .map(|(r, (k, v))| (k.clone(), r.unwrap_or_else(|| v.clone())))
                    .collect(),
            )
        }
        _ => return None,
    };
    Some(Node { kind, span: n.span })
}

/// Whether a value holds a function call (a map with a `$` key, or 1.x's
/// `get_*`/`concat`), which only the plan knows.
fn has_function(n: &Node) -> bool {
    match &n.kind {
        Kind::Seq(items) => items.iter().any(has_function),
        Kind::Map(entries) => entries.iter().any(|(k, v)| {
            k.as_str()
                .is_some_and(|k| k.starts_with('$') || k.starts_with("get_") || k == "concat")
                || has_function(v)
        }),
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn versions_have_up_to_three_numbers_a_qualifier_and_a_build() {
        for ok in ["1", "1.0", "2.1.3", "1.0.0.beta-2", "18.04"] {
            assert!(is_version(ok), "{ok}");
        }
        for bad in ["", "1.", "a.b", "1.0.0.beta-x", "1.2.3.4.5", "v1"] {
            assert!(!is_version(bad), "{bad}");
        }
    }

    #[test]
    fn timestamps_are_dates_with_an_optional_time() {
        assert!(is_timestamp("2001-12-14t21:59:43.10-05:00"));
        assert!(is_timestamp("2002-12-14"));
        assert!(!is_timestamp("yesterday"));
    }

    #[test]
    fn integers_are_decimal_hex_or_octal() {
        assert!(is_integer("-42") && is_integer("0x1F") && is_integer("0o17"));
        assert!(!is_integer("4.2") && !is_integer("0x") && !is_integer("abc"));
    }
}
