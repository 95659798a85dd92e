//! Node template `count` (TOSCA 2.0 §7.2): how many node representations
//! the plans create. The count is a non-negative integer or, as chapter 14
//! writes it, an input; the plans are made before the service is
//! deployed, so the count is the value given to the input with --input
//! or else its default (W0412 says so).
//!
//! In: the node templates and the topology's inputs. Out: per counted
//! template its number of representations (at least one), for
//! [`crate::model::replicate`].

use super::{Lowerer, Unit};
use crate::diagnostics::{Diagnostic, codes};
use crate::yaml::ast;
use crate::yaml::node::Node;

/// More representations than this of one template is taken for a slip.
const MOST: u64 = 100_000;

impl<'a> Lowerer<'a> {
    /// The counts of the templates that have one, by template name.
    /// Made before the requirements are lowered, which ask for them
    /// ([`Lowerer::representations`]).
    pub(super) fn counts(
        &mut self,
        templates: &[&'a ast::NodeTemplate],
        unit: Unit<'a>,
    ) -> Vec<(String, u32)> {
        let mut out = Vec::new();
        for n in templates {
            let Some(v) = &n.count else {
                continue;
            };
            let k = self.count(n, v, unit);
            out.push((n.name.text.clone(), k));
        }
        if self.stack.len() <= 1 {
            self.representation_counts = out.iter().filter(|(_, k)| *k > 1).cloned().collect();
        }
        out
    }

    /// One template's count: the literal or the input's default; one,
    /// with a warning, for anything else.
    fn count(&mut self, n: &ast::NodeTemplate, v: &Node, unit: Unit<'a>) -> u32 {
        let name = &n.name.text;
        let at = Self::at(unit, v.span);
        let (value, input) = match input_of(v) {
            Some(i) => (self.entry_input_default(i), Some(i)),
            None => (v.as_str(), None),
        };
        let parsed = value.and_then(|t| t.parse::<u64>().ok());
        let problem = match (parsed, input) {
            (Some(k), _) if k > MOST => format!("asks for {k} representations, more than the {MOST} the plans make of one template"),
            (Some(0), _) => "is 0: the plans create one representation all the same, as a template without a count".to_string(),
            (Some(k), Some(i)) if self.given(i).is_none() => {
                self.diags.push(
                    Diagnostic::warning(
                        codes::W_IGNORED,
                        format!(
                            "the `count` of node template `{name}` is input `{i}`, which the plans cannot take when they run: they create its default, {k}"
                        ),
                    )
                    .at(at.clone())
                    .hint("the plans are made before the service is deployed: give the input its value when they are made (`--input NAME=VALUE`), or the count as a number"),
                );
                return k as u32;
            }
            (Some(k), _) => return k as u32,
            (None, Some(i)) => format!("is input `{i}`, which has no default, so the plans cannot know it: they create one representation"),
            (None, None) => "is neither a non-negative integer nor an input: the plans create one representation".to_string(),
        };
        self.diags.push(
            Diagnostic::warning(
                codes::W_IGNORED,
                format!("the `count` of node template `{name}` {problem}"),
            )
            .at(at)
            .hint(match input {
                Some(i) => format!("give input `{i}` a number of representations (1 or more) when the plans are made (`--input {i}=3`), or a default"),
                None => "give `count` a number of representations (1 or more)".to_string(),
            }),
        );
        1
    }
}

impl<'a> Lowerer<'a> {
    /// How many representations node template `name` of the entry file's
    /// topology will have (its `count`, as [`Lowerer::counts`] read it),
    /// 1 in a substituting template.
    pub(super) fn representations(&self, name: &str) -> u32 {
        if self.stack.len() > 1 {
            return 1;
        }
        self.representation_counts.get(name).copied().unwrap_or(1)
    }

    /// The value given to input `name` of the entry file's topology with
    /// --input, or else its default (or fixed value), as written.
    fn entry_input_default(&self, name: &str) -> Option<&'a str> {
        if let Some(given) = self.given(name) {
            return given.as_str();
        }
        self.units[self.entry]
            .file
            .topology
            .as_ref()?
            .inputs
            .iter()
            .find(|d| d.name.text == name)
            .and_then(|d| d.default.as_ref().or(d.value.as_ref()))
            .and_then(Node::as_str)
    }

    /// A requirement's `count` given by input `i` (chapter 14): its
    /// default, with a warning (W0412) that the plans cannot take it when
    /// they run; `None`, with a warning, where it has none.
    pub(super) fn input_count(
        &mut self,
        i: &ast::Spanned,
        what: &str,
        unit: Unit<'a>,
    ) -> Option<u64> {
        let default = self
            .entry_input_default(&i.text)
            .and_then(|t| t.parse::<u64>().ok());
        if self.given(&i.text).is_some() && default.is_some() {
            return default;
        }
        let message = match default {
            Some(k) => format!(
                "the `count` of {what} is input `{}`, which the plans cannot take when they run: they make its default, {k}",
                i.text
            ),
            None => format!(
                "the `count` of {what} is input `{}`, which has no integer default: the plans make one relationship",
                i.text
            ),
        };
        self.diags.push(
            Diagnostic::warning(codes::W_IGNORED, message)
                .at(Self::at(unit, i.span))
                .hint("the plans are made before the service is deployed: give the input its value when they are made (`--input NAME=VALUE`), or the count as a number"),
        );
        default
    }
}

/// The input a `count` names: `{ $get_input: name }` or `{ get_input: name }`.
fn input_of(v: &Node) -> Option<&str> {
    crate::yaml::functions::input_argument(v)?.as_str()
}

#[cfg(test)]
mod tests {
    use super::super::lower_text;
    use crate::model::{RelId, TemplateRef};

    const HEAD: &str = "tosca_definitions_version: tosca_2_0\nimports:\n  - profile: org.oasis-open.simple:2.0\nservice_template:\n";

    #[test]
    fn a_count_makes_representations_with_their_index_and_relationships() {
        let (t, d) = lower_text(&format!(
            "{HEAD}  node_templates:\n    hub: {{type: tosca.nodes.Root}}\n    \
             leaf:\n      type: tosca.nodes.Root\n      count: 3\n      \
             properties: {{tosca_name: {{$concat: [leaf, {{$node_index: []}}]}}}}\n      \
             requirements: [{{dependency: hub}}]\n    \
             user:\n      type: tosca.nodes.Root\n      requirements: [{{dependency: leaf}}]\n"
        ));
        let t = t.unwrap();
        assert!(!d.has_errors(), "{d:?}");
        let ids: Vec<&str> = t.nodes.iter().map(|n| n.id.as_str()).collect();
        assert_eq!(ids, ["hub", "leaf", "user", "leaf_1", "leaf_2"]);
        for (id, index) in [("leaf", "0"), ("leaf_1", "1"), ("leaf_2", "2")] {
            let n = t.node_by_id(id).unwrap();
            assert_eq!(t.api_id(TemplateRef::Node(n)), "leaf");
            let name = t.node(n).properties["tosca_name"].to_json().to_string();
            assert!(name.contains(index), "{id}: {name}");
        }
        // Each representation depends on the hub; the user on the first.
        let rels: Vec<(String, &str, &str)> = t
            .relationship_ids()
            .map(|r: RelId| {
                let rel = t.relationship(r);
                (
                    t.api_id(TemplateRef::Relationship(r)).to_string(),
                    t.node(rel.source).id.as_str(),
                    t.node(rel.target).id.as_str(),
                )
            })
            .collect();
        assert_eq!(
            rels,
            [
                ("leaf_dependency".to_string(), "leaf", "hub"),
                ("user_dependency".to_string(), "user", "leaf"),
                ("leaf_dependency".to_string(), "leaf_1", "hub"),
                ("leaf_dependency".to_string(), "leaf_2", "hub"),
            ]
        );
        assert_eq!(t.replicas.len(), 4);
    }

    #[test]
    fn an_input_count_takes_its_default() {
        let (t, d) = lower_text(&format!(
            "{HEAD}  inputs:\n    n: {{type: integer, default: 2}}\n  node_templates:\n    \
             leaf:\n      type: tosca.nodes.Root\n      count: {{$get_input: n}}\n"
        ));
        assert_eq!(t.unwrap().nodes.len(), 2);
        assert!(
            d.iter()
                .any(|d| d.message.contains("they create its default, 2"))
        );
    }

    /// The targets of `left`'s representations, in order.
    fn left_targets(yaml: &str) -> (Vec<String>, crate::diagnostics::Diagnostics) {
        let (t, d) = lower_text(yaml);
        let t = t.unwrap();
        let pairs = t
            .relationship_ids()
            .map(|r: RelId| {
                let rel = t.relationship(r);
                format!("{}->{}", t.node(rel.source).id, t.node(rel.target).id)
            })
            .collect();
        (pairs, d)
    }

    const COUNTED: &str = "  inputs:\n    n: {type: integer, default: 2}\n  node_templates:\n    \
         right: {type: tosca.nodes.Root, count: 3}\n    left:\n      type: tosca.nodes.Root\n";

    #[test]
    fn a_requirement_reaches_the_representation_its_index_names() {
        // `$node_index`: each representation its own (§14.3, short form).
        let (pairs, d) = left_targets(&format!(
            "{HEAD}{COUNTED}      count: 3\n      requirements: [{{dependency: [right, $node_index]}}]\n"
        ));
        assert!(!d.has_errors(), "{d:?}");
        assert_eq!(pairs, ["left->right", "left_1->right_1", "left_2->right_2"]);
        // A number: that one, for every representation (§8.5.2).
        let (pairs, _) = left_targets(&format!(
            "{HEAD}{COUNTED}      requirements: [{{dependency: {{node: [right, 2]}}}}]\n"
        ));
        assert_eq!(pairs, ["left->right_2"]);
    }

    #[test]
    fn an_index_beyond_the_representations_is_an_error() {
        let (t, d) = lower_text(&format!(
            "{HEAD}{COUNTED}      count: 4\n      requirements: [{{dependency: [right, $node_index]}}]\n"
        ));
        let _ = t;
        let messages: Vec<&str> = d.iter().map(|d| d.message.as_str()).collect();
        assert!(
            messages.contains(
                &"relationship `left_dependency` asks for representation 3 of `right` for `left`'s representation 3 (`$node_index`), but `right` has 3 (indexes 0 to 2)"
            ),
            "{messages:?}"
        );
    }

    #[test]
    fn a_requirement_count_from_an_input_takes_its_default() {
        let (_, d) = left_targets(&format!(
            "{HEAD}{COUNTED}      requirements: [{{dependency: {{node: right, count: {{$get_input: n}}}}}}]\n"
        ));
        assert!(!d.has_errors(), "{d:?}");
        assert!(d.iter().any(|d| d.message
            == "the `count` of requirement `dependency` of `left` is input `n`, which the plans cannot take when they run: they make its default, 2"));
    }

    #[test]
    fn a_requirement_count_to_a_counted_template_reaches_as_many_representations() {
        // One to many (§14.3.2), and a full mesh from a counted source
        // (§14.3.3): each relationship a different representation.
        let (pairs, d) = left_targets(&format!(
            "{HEAD}{COUNTED}      count: 2\n      requirements: [{{dependency: {{node: right, count: 3}}}}]\n"
        ));
        assert!(!d.has_errors(), "{d:?}");
        let mut pairs = pairs;
        pairs.sort();
        assert_eq!(
            pairs,
            [
                "left->right",
                "left->right_1",
                "left->right_2",
                "left_1->right",
                "left_1->right_1",
                "left_1->right_2"
            ]
        );
        // More than there are: an error.
        let (_, d) = lower_text(&format!(
            "{HEAD}{COUNTED}      requirements: [{{dependency: {{node: right, count: 4}}}}]\n"
        ));
        assert!(d.iter().any(|d| d.message
            == "requirement `dependency` of `left` asks for 4 relationships to node template `right`, which has 3 representations"));
    }
}
