//! `copy` (1.3 §3.8.3 and §3.8.4, 2.0 §7.2 and §7.3): a node or
//! relationship template that copies another of its topology takes the
//! other's keynames and values as its basis. What it writes itself
//! replaces them: a keyname whose value is one thing (`type`,
//! `directives`, `requirements`, `node_filter`, `count`) as a whole, a map
//! of named entries (`properties`, `attributes`, `capabilities`,
//! `interfaces`, `artifacts`) entry by entry, so a copy that changes one
//! property keeps the others. The text says a copied template must not
//! use `copy` itself.
//!
//! In: the topology's templates as read. Out: the same with every copy
//! made (its `copy` cleared); E0402 for a `copy` that names no template
//! of the topology, E0302 for one that names a template that copies.

use foldhash::{HashMap, HashMapExt};

use super::Reader;
use crate::diagnostics::{Diagnostic, codes};
use crate::yaml::ast::{NodeTemplate, RelationshipTemplate, Spanned, Topology};

impl Reader<'_> {
    /// Make the copies of `t`'s node and relationship templates.
    pub(super) fn make_copies(&mut self, t: &mut Topology) {
        for (i, source) in self.copy_sources(&t.node_templates, "node") {
            copy_node(&mut t.node_templates[i], source);
        }
        t.node_templates.iter_mut().for_each(|n| n.copy = None);
        for (i, source) in self.copy_sources(&t.relationship_templates, "relationship") {
            copy_relationship(&mut t.relationship_templates[i], source);
        }
        t.relationship_templates
            .iter_mut()
            .for_each(|r| r.copy = None);
    }

    /// Each of `templates` that copies another (by index), with a clone of
    /// the template it copies where it may; an error where it may not.
    /// Templates are found by name in a map: a topology of many copies
    /// must not search the list once per copy.
    fn copy_sources<T: Copying>(&mut self, templates: &[T], kind: &str) -> Vec<(usize, T)> {
        if templates.iter().all(|t| t.copy().is_none()) {
            return Vec::new();
        }
        let mut by_name: HashMap<&str, usize> = HashMap::with_capacity(templates.len());
        for (i, t) in templates.iter().enumerate() {
            by_name.entry(t.name()).or_insert(i);
        }
        let mut out = Vec::new();
        for (i, t) in templates.iter().enumerate() {
            let Some(c) = t.copy() else { continue };
            let found = by_name.get(c.text.as_str()).map(|&k| &templates[k]);
            if self.source_of(t.name(), c, found.map(|s| s.copy().is_some()), kind)
                && let Some(source) = found
            {
                out.push((i, source.clone()));
            }
        }
        out
    }

    /// Whether template `name` may copy the `kind` template `copy` names:
    /// `copies` is whether that one copies in turn (`None`: there is no
    /// such template). An error where it may not.
    fn source_of(&mut self, name: &str, copy: &Spanned, copies: Option<bool>, kind: &str) -> bool {
        let (code, message, hint) = match copies {
            Some(false) => return true,
            None => (
                codes::DANGLING_REFERENCE,
                format!(
                    "{kind} template `{name}` copies `{}`, which is not a {kind} template of the topology",
                    copy.text
                ),
                format!("name one of the topology's {kind} templates"),
            ),
            Some(true) => (
                codes::YAML_WRONG_KIND,
                format!(
                    "{kind} template `{name}` copies `{}`, which uses `copy` itself: a copied template must be written out",
                    copy.text
                ),
                format!(
                    "copy the template `{}` copies, or write `{}` out",
                    copy.text, copy.text
                ),
            ),
        };
        self.diags.push(
            Diagnostic::error(code, message)
                .at(self.source.location(copy.span))
                .hint(hint),
        );
        false
    }
}

/// A template that may copy another.
trait Copying: Clone {
    fn name(&self) -> &str;
    fn copy(&self) -> Option<&Spanned>;
}

impl Copying for NodeTemplate {
    fn name(&self) -> &str {
        &self.name.text
    }
    fn copy(&self) -> Option<&Spanned> {
        self.copy.as_ref()
    }
}

impl Copying for RelationshipTemplate {
    fn name(&self) -> &str {
        &self.name.text
    }
    fn copy(&self) -> Option<&Spanned> {
        self.copy.as_ref()
    }
}

/// `n` made from `source` and what `n` writes itself.
fn copy_node(n: &mut NodeTemplate, source: NodeTemplate) {
    let own = std::mem::replace(n, source);
    n.name = own.name;
    n.span = own.span;
    n.copy = None;
    if own.type_name.is_some() {
        n.type_name = own.type_name;
    }
    if !own.directives.is_empty() {
        n.directives = own.directives;
    }
    if !own.requirements.is_empty() {
        n.requirements = own.requirements;
    }
    if own.node_filter.is_some() {
        n.node_filter = own.node_filter;
    }
    if own.count.is_some() {
        n.count = own.count;
        n.multiple = own.multiple;
    } else {
        n.multiple |= own.multiple;
    }
    merge(&mut n.properties, own.properties, |(k, _)| k.text.clone());
    merge(&mut n.attributes, own.attributes, |(k, _)| k.text.clone());
    merge(&mut n.capabilities, own.capabilities, |c| {
        c.name.text.clone()
    });
    merge(&mut n.interfaces, own.interfaces, |i| i.name.text.clone());
    merge(&mut n.artifacts, own.artifacts, |a| a.name.text.clone());
}

/// `r` made from `source` and what `r` writes itself.
fn copy_relationship(r: &mut RelationshipTemplate, source: RelationshipTemplate) {
    let own = std::mem::replace(r, source);
    r.name = own.name;
    r.span = own.span;
    r.copy = None;
    if own.type_name.is_some() {
        r.type_name = own.type_name;
    }
    merge(&mut r.properties, own.properties, |(k, _)| k.text.clone());
    merge(&mut r.attributes, own.attributes, |(k, _)| k.text.clone());
    merge(&mut r.interfaces, own.interfaces, |i| i.name.text.clone());
}

/// The entries of `base` with those of `own` in place of the ones of the
/// same name, then `own`'s others, in their order.
fn merge<T>(base: &mut Vec<T>, own: Vec<T>, name: impl Fn(&T) -> String) {
    for entry in own {
        match base.iter().position(|b| name(b) == name(&entry)) {
            Some(i) => base[i] = entry,
            None => base.push(entry),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::read_text;
    use crate::diagnostics::codes;

    const HEAD: &str = "tosca_definitions_version: tosca_simple_yaml_1_3\ntopology_template:\n";

    #[test]
    fn a_copy_takes_the_source_and_replaces_what_it_writes() {
        let (file, d) = read_text(&format!(
            "{HEAD}  node_templates:\n    a:\n      type: T\n      directives: [select]\n      \
             properties: {{p: 1, q: 2}}\n      requirements: [{{host: h}}]\n    \
             b:\n      copy: a\n      properties: {{q: 3, r: 4}}\n  \
             relationship_templates:\n    r1: {{type: R, properties: {{x: 1}}}}\n    \
             r2: {{copy: r1, properties: {{y: 2}}}}\n"
        ));
        assert!(d.is_empty(), "{d:?}");
        let t = file.topology.unwrap();
        let b = &t.node_templates[1];
        assert_eq!(b.name.text, "b");
        assert_eq!(b.type_name.as_ref().unwrap().text, "T");
        assert_eq!(b.directives[0].text, "select");
        assert_eq!(b.requirements[0].name.text, "host");
        let props: Vec<(&str, &str)> = b
            .properties
            .iter()
            .map(|(k, v)| (k.text.as_str(), v.as_str().unwrap()))
            .collect();
        assert_eq!(props, [("p", "1"), ("q", "3"), ("r", "4")]);
        let r2 = &t.relationship_templates[1];
        assert_eq!(r2.type_name.as_ref().unwrap().text, "R");
        assert_eq!(r2.properties.len(), 2);
    }

    #[test]
    fn a_copy_names_a_template_that_does_not_copy() {
        let (_, d) = read_text(&format!(
            "{HEAD}  node_templates:\n    a: {{type: T}}\n    b: {{copy: a}}\n    \
             c: {{copy: b}}\n    d: {{copy: nowhere}}\n"
        ));
        let found: Vec<(&str, &str)> = d.iter().map(|d| (d.code, d.message.as_str())).collect();
        assert_eq!(
            found,
            [
                (
                    codes::YAML_WRONG_KIND,
                    "node template `c` copies `b`, which uses `copy` itself: a copied template must be written out"
                ),
                (
                    codes::DANGLING_REFERENCE,
                    "node template `d` copies `nowhere`, which is not a node template of the topology"
                ),
            ]
        );
    }
}
