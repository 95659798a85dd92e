//! A requirement assignment that names a node template, checked against
//! the requirement's node filters: the assignment's own and those of its
//! definition along the node type's ancestry.
//!
//! What the texts say. TOSCA 2.0 §8.5.2: the node representation created
//! from a named template "must fulfill the node filter requirements of the
//! `node_filter` … in the requirement definition", and of the
//! assignment's filter "the TOSCA orchestrator verifies that the specified
//! node template fulfills the node filter"; an assignment that is not
//! `optional` "MUST be fulfilled", an optional one that cannot be leaves
//! the deployment valid. TOSCA 1.3 says nothing of a definition's filter
//! on a named template (§3.7.3.5.1: it helps "find the best fit" among
//! candidates), and calls an assignment's filter "invalid" where `node`
//! names a template (§3.8.2.2); tosca-parser accepts both.
//!
//! So, where the template's static values decide the filters: one that
//! passes is silent; in 2.0 one that does not is an error (E0402, as a
//! target of the wrong type is), or, for an optional assignment, leaves
//! it unfulfilled (W0411); in 1.x it is a warning (W0411) and the
//! relationship is made as named. Where they do not decide (an input, an
//! attribute, …) the relationship is made as named, as before, and W0411
//! says what the filter reads. A 1.x assignment's own filter beside a
//! template is said in the same warning (W0411).
//!
//! In: the assignment, its definition's filters, the named template.
//! Out: whether the relationship to it is made, and the diagnostic.

use super::fulfil::{Pool, Wanted, filters_named, unknown};
use super::node_filter::Verdict;
use super::{Lowerer, Unit};
use crate::diagnostics::{Diagnostic, codes};
use crate::model::NodeId;
use crate::yaml::ast;
use crate::yaml::node::Node;

/// What the filters say of the named template.
#[derive(Debug, PartialEq)]
enum Outcome {
    /// It passes them all (or there are none).
    Pass,
    /// It fails those named so.
    Fail(&'static str),
    /// Not known when the plans are made: of the filters named so, why.
    Unknown(&'static str, String),
}

/// The assignment and where the check reports.
pub(super) struct Named<'s, 'a> {
    /// The assignment.
    pub(super) assignment: &'a ast::RequirementAssignment,
    /// Its definition's filters along the ancestry.
    pub(super) defined: &'s [(&'a Node, Unit<'a>)],
    /// The source template's name and node.
    pub(super) source: (&'s str, NodeId),
    /// The named template and the capability the requirement asks of it.
    pub(super) target: (NodeId, Option<(&'a ast::Spanned, Unit<'a>)>),
    /// The file the assignment is written in.
    pub(super) unit: Unit<'a>,
}

impl<'a> Lowerer<'a> {
    /// Whether the relationship to the template `named` names is made,
    /// after saying what its filters decide where that needs saying.
    pub(super) fn named_target_passes(
        &mut self,
        named: &Named<'_, 'a>,
        pool: &Pool<'_, 'a>,
    ) -> bool {
        let a = named.assignment;
        if named.defined.is_empty() && a.node_filter.is_none() {
            return true;
        }
        let (target, capability) = named.target;
        let own: Vec<(&'a Node, Unit<'a>)> =
            a.node_filter.iter().map(|f| (f, named.unit)).collect();
        let wanted = Wanted {
            source: named.source,
            requirement: &a.name.text,
            node_type: None,
            capability,
            allocation: &a.allocation,
            filters: Vec::new(),
            filters_named: "",
        };
        let candidate = self.candidate(&wanted, pool, target);
        let defined = self.passes_all(named.defined, &candidate);
        let own = (!own.is_empty()).then(|| self.passes_all(&own, &candidate));
        let outcome = outcome(defined, own);
        let v2 = named.unit.file.version.is_v2();
        let Some((d, made)) = say(&outcome, named, pool, v2) else {
            return true;
        };
        let at = a.node.as_ref().map_or(a.span, |t| t.span);
        self.push_once(d.at(Self::at(named.unit, at)));
        made
    }
}

/// The outcome of the definition's filters `defined` and the
/// assignment's `own` (if it has one): a failure decides, else an unknown.
fn outcome(defined: Verdict, own: Option<Verdict>) -> Outcome {
    let own_fails = own == Some(Verdict::Fail);
    if defined == Verdict::Fail || own_fails {
        return Outcome::Fail(filters_named(defined == Verdict::Fail, own_fails));
    }
    match (defined, own) {
        (Verdict::Unknown(why), Some(Verdict::Unknown(_))) => {
            Outcome::Unknown(filters_named(true, true), why)
        }
        (Verdict::Unknown(why), _) => Outcome::Unknown(filters_named(true, false), why),
        (_, Some(Verdict::Unknown(why))) => Outcome::Unknown(filters_named(false, true), why),
        _ => Outcome::Pass,
    }
}

/// The diagnostic for `outcome` (none where there is nothing to say) and
/// whether the relationship is made.
fn say(
    outcome: &Outcome,
    named: &Named<'_, '_>,
    pool: &Pool<'_, '_>,
    v2: bool,
) -> Option<(Diagnostic, bool)> {
    let a = named.assignment;
    let (source, (target, _)) = (named.source.0, named.target);
    let r = &a.name.text;
    let t = &pool.asts[target.0 as usize].0.name.text;
    // 1.3 §3.8.2.2: an assignment's node_filter only beside a node type.
    let legacy = match (v2, a.node_filter.is_some()) {
        (false, true) => {
            " (TOSCA 1.3 allows an assignment's node_filter only where `node` names a node type, §3.8.2.2)"
        }
        _ => "",
    };
    let warn = |m: String| Diagnostic::warning(codes::W_DANGLING_REQUIREMENT, m);
    match outcome {
        Outcome::Pass if legacy.is_empty() => None,
        Outcome::Pass => Some((
            warn(format!(
                "requirement `{r}` of `{source}` names node template `{t}`, which passes its node_filter{legacy}"
            ))
            .hint("name a node type for the node_filter to choose among its templates, or drop the node_filter"),
            true,
        )),
        Outcome::Fail(which) if v2 && a.optional => Some((
            warn(format!(
                "optional requirement `{r}` of `{source}` is left unfulfilled: the node template `{t}` it names does not pass {which} (TOSCA 2.0 §8.5.2)"
            ))
            .hint("name a template that passes it, or name a node type (or no node) for one that passes to be chosen"),
            false,
        )),
        Outcome::Fail(which) if v2 => Some((
            Diagnostic::error(
                codes::DANGLING_REFERENCE,
                format!(
                    "requirement `{r}` of `{source}` names node template `{t}`, which does not pass {which}: TOSCA 2.0 §8.5.2 has a named template fulfil the requirement's node filters"
                ),
            )
            .hint("name a template that passes it, or name a node type (or no node) for one that passes to be chosen"),
            true,
        )),
        Outcome::Fail(which) => Some((
            warn(format!(
                "requirement `{r}` of `{source}` names node template `{t}`, which does not pass {which}: the relationship is made to `{t}`, as named{legacy}"
            ))
            .hint("name a template that passes it, or name a node type for the node_filter to choose among its templates"),
            true,
        )),
        Outcome::Unknown(which, why) => {
            let wanted = Wanted {
                source: named.source,
                requirement: r,
                node_type: None,
                capability: None,
                allocation: &[],
                filters: Vec::new(),
                filters_named: which,
            };
            let not_evaluated = unknown(pool, &wanted, target, why);
            let by = if v2 {
                "; the orchestrator verifies it when the service is deployed (TOSCA 2.0 §8.5.2)"
            } else {
                ""
            };
            Some((
                warn(format!(
                    "requirement `{r}` of `{source}` names node template `{t}`: {not_evaluated}; the relationship is made to `{t}`, as named{legacy}"
                ))
                .hint(format!("give the values the filter reads in the templates, if the plans should check it{by}")),
                true,
            ))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::lower_text;
    use super::*;
    use crate::diagnostics::Severity;

    use super::super::TEST_V13 as V13;
    const V20: &str = "tosca_definitions_version: tosca_2_0\nimports:\n  - profile: org.oasis-open.simple:2.0\nservice_template:\n  node_templates:\n";

    use super::super::targets_of as targets;

    #[test]
    fn a_failure_decides_over_an_unknown_and_names_the_filters_that_fail() {
        let unknown = || Verdict::Unknown("it reads input `x`".into());
        assert_eq!(outcome(Verdict::Pass, None), Outcome::Pass);
        assert_eq!(outcome(Verdict::Pass, Some(Verdict::Pass)), Outcome::Pass);
        assert_eq!(
            outcome(unknown(), Some(Verdict::Fail)),
            Outcome::Fail("its node_filter")
        );
        assert_eq!(
            outcome(Verdict::Fail, Some(Verdict::Pass)),
            Outcome::Fail("the node_filter of its definition")
        );
        assert_eq!(
            outcome(Verdict::Fail, Some(Verdict::Fail)),
            Outcome::Fail("its node_filter together with that of its definition")
        );
        assert_eq!(
            outcome(Verdict::Pass, Some(unknown())),
            Outcome::Unknown("its node_filter", "it reads input `x`".into())
        );
    }

    #[test]
    fn a_2_0_template_that_fails_is_an_error_and_one_that_passes_is_silent() {
        let (t, d) = lower_text(&format!(
            "{V20}    small: {{type: tosca.nodes.Compute, capabilities: {{host: {{properties: {{num_cpus: 2}}}}}}}}\n    \
             big: {{type: tosca.nodes.Compute, capabilities: {{host: {{properties: {{num_cpus: 8}}}}}}}}\n    \
             a:\n      type: tosca.nodes.SoftwareComponent\n      requirements:\n        \
             - host: {{node: small, node_filter: {{$greater_or_equal: [{{$get_property: [SELF, CAPABILITY, num_cpus]}}, 4]}}}}\n    \
             b:\n      type: tosca.nodes.SoftwareComponent\n      requirements:\n        \
             - host: {{node: big, node_filter: {{$greater_or_equal: [{{$get_property: [SELF, CAPABILITY, num_cpus]}}, 4]}}}}\n"
        ));
        let errors: Vec<_> = d.iter().filter(|d| d.severity == Severity::Error).collect();
        assert_eq!(errors.len(), 1, "{d:?}");
        assert_eq!(errors[0].code, codes::DANGLING_REFERENCE);
        assert!(errors[0].message.contains(
            "requirement `host` of `a` names node template `small`, which does not pass its node_filter"
        ));
        assert!(!d.iter().any(|d| d.message.contains("of `b`")), "{d:?}");
        let t = t.unwrap();
        assert_eq!(targets(&t, "b"), ["big"]);
    }

    #[test]
    fn a_2_0_optional_assignment_whose_template_fails_is_left_unfulfilled() {
        let (t, d) = lower_text(&format!(
            "{V20}    small: {{type: tosca.nodes.Compute, properties: {{tag: x}}}}\n    \
             a:\n      type: tosca.nodes.Root\n      requirements:\n        \
             - dependency: {{node: small, optional: true, node_filter: {{$equal: [{{$get_property: [SELF, TARGET, tag]}}, y]}}}}\n"
        ));
        assert!(!d.has_errors(), "{d:?}");
        assert!(targets(&t.unwrap(), "a").is_empty());
        assert!(d.iter().any(|d| {
            d.code == codes::W_DANGLING_REQUIREMENT
                && d.message
                    .contains("optional requirement `dependency` of `a` is left unfulfilled")
        }));
    }

    #[test]
    fn a_1_x_template_that_fails_the_definitions_filter_is_a_warning_and_kept() {
        let (t, d) = lower_text(
            "tosca_definitions_version: tosca_simple_yaml_1_3\n\
             node_types:\n  App:\n    derived_from: tosca.nodes.Root\n    requirements:\n      \
             - host:\n          capability: tosca.capabilities.Compute\n          \
             node_filter: {capabilities: [{host: {properties: [{num_cpus: {greater_or_equal: 4}}]}}]}\n\
             topology_template:\n  node_templates:\n    \
             small: {type: tosca.nodes.Compute, capabilities: {host: {properties: {num_cpus: 2}}}}\n    \
             app: {type: App, requirements: [{host: small}]}\n",
        );
        assert!(!d.has_errors(), "{d:?}");
        assert_eq!(targets(&t.unwrap(), "app"), ["small"]);
        assert!(d.iter().any(|d| d.code == codes::W_DANGLING_REQUIREMENT
            && d.message.contains(
                "names node template `small`, which does not pass the node_filter of its definition: the relationship is made to `small`, as named"
            )), "{d:?}");
    }

    #[test]
    fn a_1_x_assignments_own_filter_beside_a_template_is_said_even_where_it_passes() {
        let (t, d) = lower_text(&format!(
            "{V13}    big: {{type: tosca.nodes.Compute, capabilities: {{host: {{properties: {{num_cpus: 8}}}}}}}}\n    \
             app:\n      type: tosca.nodes.SoftwareComponent\n      requirements:\n        \
             - host: {{node: big, node_filter: {{capabilities: [{{host: {{properties: [{{num_cpus: {{greater_or_equal: 4}}}}]}}}}]}}}}\n"
        ));
        assert_eq!(targets(&t.unwrap(), "app"), ["big"]);
        assert!(
            d.iter().any(|d| d.code == codes::W_DANGLING_REQUIREMENT
                && d.message
                    .contains("which passes its node_filter (TOSCA 1.3 allows")),
            "{d:?}"
        );
    }

    #[test]
    fn an_undecided_filter_keeps_the_named_template_with_a_warning() {
        let (t, d) = lower_text(&format!(
            "{V20}    server: {{type: tosca.nodes.Compute}}\n    \
             app:\n      type: tosca.nodes.SoftwareComponent\n      requirements:\n        \
             - host: {{node: server, node_filter: {{$equal: [{{$get_attribute: [SELF, TARGET, state]}}, started]}}}}\n"
        ));
        assert!(!d.has_errors(), "{d:?}");
        assert_eq!(targets(&t.unwrap(), "app"), ["server"]);
        assert!(d.iter().any(|d| d.code == codes::W_DANGLING_REQUIREMENT
            && d.message.contains("names node template `server`: its node_filter is not evaluated on `server` when the plans are made")), "{d:?}");
    }
}
