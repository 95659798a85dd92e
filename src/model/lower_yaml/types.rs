//! Type names and hierarchies: which definition a type name means in a
//! file, its `derived_from` ancestry, and its model [`TypeId`].
//!
//! In: every loaded file and the built-in Simple Profile types, under
//! their namespace scopes. Out: an index from (kind, qualified name) to
//! definition; resolution per file (own scope, outer scopes, Simple
//! Profile shorthands); ancestry chains, with E0401 for an unknown type or
//! parent (with a suggestion), E0403 for a cycle, and a duplicate or
//! redefined type reported where it is defined.

use std::collections::BTreeSet;
use std::rc::Rc;

use super::{Def, Lowerer, Unit};
use crate::diagnostics::{Diagnostic, Location, Span, codes};
use crate::model::{TypeDef, TypeId, TypeKind as ModelKind, TypeName};
use crate::yaml::ast::{self, File, TypeKind};
use crate::yaml::imports::is_simple_profile;
use crate::yaml::normative;

impl<'a> Lowerer<'a> {
    pub(super) fn build_index(&mut self) {
        let mut warned: BTreeSet<String> = BTreeSet::new();
        for unit in self.units.clone() {
            for def in &unit.file.types {
                let key = qualify(unit.scope, &def.name.text);
                match self.index.get(&(def.kind, key.clone())) {
                    None => {
                        self.index.insert((def.kind, key), Def { def, unit });
                    }
                    Some(prev) if prev.unit.file.source.name() == unit.file.source.name() => {}
                    Some(prev) if unit.builtin => {
                        // A user file redefines a built-in type: the user's wins.
                        if normative::is_normative(unit.file)
                            && !prev.unit.builtin
                            && warned.insert(key.clone())
                        {
                            let loc = prev.unit.file.source.location(prev.def.name.span);
                            self.diags.push(
                                Diagnostic::warning(
                                    codes::W_YAML_LENIENT,
                                    format!("{} `{key}` redefines a normative type; this definition is used", def.kind.noun()),
                                )
                                .at(loc)
                                .hint("the normative types are built in; give your type another name"),
                            );
                        }
                    }
                    Some(prev) if !prev.unit.builtin => {
                        let a = text_of(prev.unit.file, prev.def.span);
                        let b = text_of(unit.file, def.span);
                        if normalize_ws(&a) != normalize_ws(&b) {
                            let note = format!(
                                "the definition used is in `{}`",
                                prev.unit.file.source.name()
                            );
                            self.diags.push(
                                Diagnostic::error(
                                    codes::DUPLICATE_DEFINITION,
                                    format!("{} `{key}` is defined twice, differently", def.kind.noun()),
                                )
                                .at(unit.file.source.location(def.name.span))
                                .note(note)
                                .hint("keep one definition, or import the files under different namespace prefixes"),
                            );
                        }
                    }
                    Some(_) => {}
                }
            }
        }
    }

    /// The index key of a type name written in `unit`.
    pub(super) fn resolve(&mut self, kind: TypeKind, name: &str, unit: Unit<'a>) -> Option<String> {
        let name = name.trim();
        if let Some(local) = name.strip_prefix("tosca:") {
            return self.builtin(kind, local, unit);
        }
        for i in (0..=unit.scope.len()).rev() {
            let key = qualify(&unit.scope[..i], name);
            if self.index.contains_key(&(kind, key.clone())) {
                if self.index[&(kind, key.clone())].unit.builtin {
                    self.note_builtin(unit, name);
                }
                return Some(key);
            }
        }
        // tosca-parser writes a namespace prefix with a dot: `prefix.Type`.
        if let Some((p, rest)) = name.split_once('.')
            && unit
                .file
                .imports
                .iter()
                .any(|i| i.prefix.as_ref().is_some_and(|x| x.text == p))
            && let Some(k) = self.resolve(kind, &format!("{p}:{rest}"), unit)
        {
            self.push_once(
                Diagnostic::warning(
                    codes::W_YAML_LENIENT,
                    format!(
                        "`{name}` is read as `{p}:{rest}`: a namespace prefix is followed by `:`"
                    ),
                )
                .at(Self::written(unit, name)),
            );
            return Some(k);
        }
        self.builtin(kind, name, unit)
    }

    pub(super) fn builtin(&mut self, kind: TypeKind, name: &str, unit: Unit<'a>) -> Option<String> {
        let found = std::iter::once(name.to_string())
            .chain(normative::expansions(kind, name))
            .find(|k| self.index.contains_key(&(kind, k.clone())))?;
        self.note_builtin(unit, name);
        Some(found)
    }

    /// A Simple Profile root type (`tosca.nodes.Root`,
    /// `tosca.relationships.Root`) that toscanini puts where the user's
    /// file names none (a target the orchestrator supplies, a relationship
    /// without a type), taken from the built-in types without noting a use
    /// of the profile (W0311): the file does not name it.
    pub(super) fn placeholder_type(&self, kind: TypeKind, name: &str) -> Option<String> {
        let key = (kind, name.to_string());
        self.index.contains_key(&key).then_some(key.1)
    }

    /// Where `name` is first written in `unit` (its file, if nowhere).
    fn written(unit: Unit, name: &str) -> Location {
        let source = &unit.file.source;
        source
            .word_location(name)
            .unwrap_or_else(|| Location::file(source.name()))
    }

    /// A Simple Profile type `name` is used in `unit`: a 2.0 file that
    /// does not import the profile gets a warning, at the first such name.
    fn note_builtin(&mut self, unit: Unit<'a>, name: &str) {
        if unit.builtin || !unit.file.version.is_v2() {
            return;
        }
        let imports_profile = unit.file.imports.iter().any(|i| {
            i.profile
                .as_ref()
                .is_some_and(|p| is_simple_profile(&p.text))
        });
        if !imports_profile
            && self
                .implicit_profile
                .insert(unit.file.source.name().to_string())
        {
            self.diags.push(
                Diagnostic::warning(
                    codes::W_YAML_LENIENT,
                    format!(
                        "`{}` uses Simple Profile types without importing a profile; TOSCA 2.0 has no implicit types, toscanini used its built-in Simple Profile",
                        unit.file.source.name()
                    ),
                )
                .at(Self::written(unit, name))
                .hint("add `imports: [{profile: org.oasis-open.simple:2.0}]`"),
            );
        }
    }

    /// Resolve or report an unknown type.
    pub(super) fn resolve_or_report(
        &mut self,
        kind: TypeKind,
        name: &ast::Spanned,
        unit: Unit<'a>,
        what: &str,
    ) -> Option<String> {
        let found = self.resolve(kind, &name.text, unit);
        if found.is_none() {
            let hint = self.similar(kind, &name.text);
            self.push_once(
                Diagnostic::error(
                    codes::UNKNOWN_TYPE,
                    format!("{what} `{}` is not defined", name.text),
                )
                .at(Self::at(unit, name.span))
                .hint(hint),
            );
        }
        found
    }

    fn similar(&self, kind: TypeKind, name: &str) -> String {
        let last = name.rsplit([':', '.']).next().unwrap_or(name);
        let mut close: Vec<&String> = self
            .index
            .keys()
            .filter(|(k, n)| *k == kind && n.rsplit([':', '.']).next() == Some(last))
            .map(|(_, n)| n)
            .collect();
        close.sort();
        if let Some(c) = close.first() {
            return format!("a {} named `{c}` exists", kind.noun());
        }
        let names: BTreeSet<String> = self
            .index
            .keys()
            .filter(|(k, _)| *k == kind)
            .map(|(_, n)| n.clone())
            .collect();
        match nearest(name, &names) {
            Some(c) => format!("did you mean `{c}`?"),
            None => format!(
                "define it under `{}` or import the file that defines it",
                kind.section()
            ),
        }
    }

    /// The ancestry of a type (itself first), or `None` after reporting a
    /// cycle or an unknown parent.
    pub(super) fn chain(&mut self, kind: TypeKind, key: &str) -> Option<Vec<String>> {
        if let Some(c) = self.chains.get(&(kind, key.to_string())) {
            return c.clone();
        }
        let mut out = vec![key.to_string()];
        let mut cur = key.to_string();
        let result = loop {
            let Some(d) = self.index.get(&(kind, cur.clone())).copied() else {
                break None;
            };
            let Some(parent) = &d.def.derived_from else {
                break Some(out.clone());
            };
            // A data type may derive from a built-in type (`integer`):
            // the root of its ancestry here (check_values reads it).
            if kind == TypeKind::Data
                && super::check_values::is_primitive(&parent.text)
                && !self.index.contains_key(&(kind, parent.text.clone()))
            {
                break Some(out.clone());
            }
            let Some(pkey) = self.resolve(kind, &parent.text, d.unit) else {
                let hint = self.similar(kind, &parent.text);
                self.push_once(
                    Diagnostic::error(
                        codes::UNKNOWN_TYPE,
                        format!(
                            "{} `{}` derives from `{}`, which is not defined",
                            kind.noun(),
                            d.def.name.text,
                            parent.text
                        ),
                    )
                    .at(Self::at(d.unit, parent.span))
                    .hint(hint),
                );
                break None;
            };
            if out.contains(&pkey) {
                let mut names = out.clone();
                names.push(pkey.clone());
                let first = self.index[&(kind, key.to_string())];
                self.push_once(
                    Diagnostic::error(
                        codes::CYCLIC_DERIVATION,
                        format!(
                            "{} `{key}` derives from itself: {}",
                            kind.noun(),
                            names.join(" → ")
                        ),
                    )
                    .at(Self::at(first.unit, first.def.name.span))
                    .hint("remove one of the `derived_from` on the cycle"),
                );
                break None;
            }
            out.push(pkey.clone());
            cur = pkey;
        };
        self.chains.insert((kind, key.to_string()), result.clone());
        result
    }

    /// Definitions along the ancestry, root first.
    /// Made once per type: every template of a type asks for them, several
    /// times.
    pub(super) fn defs(&mut self, kind: TypeKind, key: &str) -> Rc<[Def<'a>]> {
        if let Some(d) = self.defs_memo.get(&kind).and_then(|m| m.get(key)) {
            return d.clone();
        }
        let chain = self.chain(kind, key).unwrap_or_default();
        let defs: Rc<[Def<'a>]> = chain
            .iter()
            .rev()
            .filter_map(|k| self.index.get(&(kind, k.clone())).copied())
            .collect();
        self.defs_memo
            .entry(kind)
            .or_default()
            .insert(key.to_string(), defs.clone());
        defs
    }

    /// The model type of a node or relationship type, with its ancestors.
    pub(super) fn type_id(&mut self, kind: TypeKind, key: &str) -> Option<TypeId> {
        if let Some(id) = self.type_ids.get(&(kind, key.to_string())) {
            return *id;
        }
        let chain = self.chain(kind, key);
        let id = chain.map(|chain| {
            let mut parent = None;
            for k in chain.iter().rev() {
                let d = self.index[&(kind, k.clone())];
                let id = self.types.add(TypeDef {
                    name: TypeName::new("", k.clone()),
                    kind: if kind == TypeKind::Node {
                        ModelKind::Node
                    } else {
                        ModelKind::Relationship
                    },
                    parent,
                    is_abstract: false,
                    origin: (!d.unit.builtin).then(|| Self::at(d.unit, d.def.name.span)),
                });
                parent = Some(id);
            }
            parent.expect("a chain has at least one type")
        });
        self.type_ids.insert((kind, key.to_string()), id);
        id
    }

    /// A type's name and its ancestors' (unresolved types: as written).
    pub(super) fn type_names(
        &mut self,
        kind: TypeKind,
        name: Option<&ast::Spanned>,
        unit: Unit<'a>,
        what: &str,
    ) -> Vec<String> {
        let Some(name) = name else {
            return Vec::new();
        };
        match self.resolve_or_report(kind, name, unit, what) {
            Some(k) => self.chain(kind, &k).unwrap_or_else(|| vec![k]),
            None => vec![name.text.clone()],
        }
    }
}

fn qualify(scope: &[String], name: &str) -> String {
    if scope.is_empty() {
        name.to_string()
    } else {
        format!("{}:{name}", scope.join(":"))
    }
}

fn text_of(file: &File, span: Span) -> String {
    file.source
        .text()
        .get(span.start..span.end)
        .unwrap_or("")
        .to_string()
}

fn normalize_ws(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// The name in `names` nearest to `name` by edit distance, if it is close
/// enough to be a typo (at most a quarter of the name, and at least 2).
pub(super) fn nearest(name: &str, names: &BTreeSet<String>) -> Option<String> {
    let limit = (name.chars().count() / 4).max(2);
    names
        .iter()
        .map(|n| (edit_distance(name, n), n))
        .filter(|(d, _)| *d <= limit)
        .min()
        .map(|(_, n)| n.clone())
}

/// Levenshtein distance, case-insensitive.
fn edit_distance(a: &str, b: &str) -> usize {
    let a: Vec<char> = a.to_lowercase().chars().collect();
    let b: Vec<char> = b.to_lowercase().chars().collect();
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.iter().enumerate() {
        let mut cur = vec![i + 1; b.len() + 1];
        for (j, cb) in b.iter().enumerate() {
            cur[j + 1] = (prev[j] + usize::from(ca != cb))
                .min(prev[j + 1] + 1)
                .min(cur[j] + 1);
        }
        prev = cur;
    }
    prev[b.len()]
}

#[cfg(test)]
mod tests {
    use super::super::lower_text;
    use super::*;

    #[test]
    fn near_names_are_typos_far_ones_are_not() {
        assert_eq!(edit_distance("Compute", "compte"), 1);
        let names: BTreeSet<String> = ["server".to_string(), "database".to_string()].into();
        assert_eq!(nearest("servr", &names), Some("server".to_string()));
        assert_eq!(nearest("queue", &names), None);
    }

    #[test]
    fn an_unknown_type_is_reported_with_a_near_name() {
        let (_, d) = lower_text(
            "tosca_definitions_version: tosca_simple_yaml_1_3\n\
             node_types:\n  my.Server: {derived_from: tosca.nodes.Compute}\n\
             topology_template:\n  node_templates:\n    a: {type: my.Servr}\n",
        );
        let e = d
            .iter()
            .find(|d| d.code == codes::UNKNOWN_TYPE)
            .expect("an error");
        assert!(e.message.contains("node type `my.Servr` is not defined"));
        assert!(
            e.hint.as_deref().is_some_and(|h| h.contains("`my.Server`")),
            "{:?}",
            e.hint
        );
    }

    #[test]
    fn a_derivation_cycle_is_reported() {
        let (_, d) = lower_text(
            "tosca_definitions_version: tosca_simple_yaml_1_3\n\
             node_types:\n  A: {derived_from: B}\n  B: {derived_from: A}\n\
             topology_template:\n  node_templates:\n    a: {type: A}\n",
        );
        assert!(d.iter().any(|d| d.code == codes::CYCLIC_DERIVATION));
    }
}
