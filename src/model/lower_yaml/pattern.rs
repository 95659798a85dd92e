//! Regular expressions in node filters: the 1.x `pattern` constraint
//! clause (1.3 §3.6.3) and the 2.0 `$matches` function (§10.2.2.2.7),
//! evaluated on a candidate's static values (`node_filter.rs`).
//!
//! Neither text names a grammar ("future drafts of this specification
//! will detail the use of regular expressions"). The patterns are read
//! with the Rust `regex` crate's syntax: the Perl-style core that Java
//! (the Groovy of the BPMN plans) and XPath 2.0 (the BPEL plans) share —
//! classes, repetition, groups, alternation, anchors, Unicode classes.
//! It has no look-around and no backreferences (it matches in linear
//! time); a pattern that uses them, or that it cannot read at all, is
//! not evaluated: a warning at the pattern says why, and the filter's
//! verdict is unknown, never a guess.
//!
//! A value matches where the pattern matches a part of it: 2.0 says so
//! ("if one means that the whole string is to be matched, the regular
//! expression must start with a caret `^` and end with a `$`"); 1.3 does
//! not say, and the plans already evaluate a precondition's `pattern`
//! that way (Groovy's `find()`, XPath's `matches`).
//!
//! In: the value and the pattern. Out: a verdict.

use regex::Regex;
use regex_syntax::ast::{ErrorKind, parse::Parser};

use super::node_filter::Verdict;
use super::{Lowerer, Unit};
use crate::diagnostics::{Diagnostic, codes};
use crate::model::Value;
use crate::yaml::node::Node;

impl<'a> Lowerer<'a> {
    /// Whether `value` matches `pattern`, written at `at` (in `unit`).
    pub(super) fn matches(
        &mut self,
        value: &Value,
        pattern: &Value,
        (at, unit): (&Node, Unit<'a>),
    ) -> Verdict {
        let Some(pattern) = pattern.as_str() else {
            return Verdict::Unknown("its pattern is not a string".to_string());
        };
        let Some(text) = value.as_str() else {
            return Verdict::Unknown(format!(
                "it matches a value that is not a string against pattern `{pattern}`"
            ));
        };
        match self.regex(pattern) {
            Ok(re) => {
                if re.is_match(text) {
                    Verdict::Pass
                } else {
                    Verdict::Fail
                }
            }
            Err(why) => {
                self.push_once(
                    Diagnostic::warning(
                        codes::W_YAML_LENIENT,
                        format!(
                            "node_filter pattern `{pattern}` is not evaluated when the plans are made: it {why}"
                        ),
                    )
                    .at(Self::at(unit, at.span))
                    .hint("toscanini reads patterns in the syntax of the Rust `regex` crate (no look-around, no backreferences); rewrite it so, or name the node template in the requirement"),
                );
                Verdict::Unknown(format!("its pattern `{pattern}` {why}"))
            }
        }
    }

    /// `pattern` compiled, once per lowering (a filter is evaluated on
    /// every candidate), or what keeps it from being.
    pub(super) fn regex(&mut self, pattern: &str) -> Result<Regex, String> {
        if let Some(done) = self.patterns.get(pattern) {
            return done.clone();
        }
        let compiled = compile(pattern);
        self.patterns.insert(pattern.to_string(), compiled.clone());
        compiled
    }
}

/// `pattern` compiled, or why not, naming the feature the `regex` crate
/// lacks where that is the reason.
fn compile(pattern: &str) -> Result<Regex, String> {
    if let Err(e) = Parser::new().parse(pattern) {
        return Err(match e.kind() {
            ErrorKind::UnsupportedLookAround => {
                "uses look-around, which toscanini's regular expressions do not have".to_string()
            }
            ErrorKind::UnsupportedBackreference => {
                "uses a backreference, which toscanini's regular expressions do not have"
                    .to_string()
            }
            kind => format!("is not a regular expression toscanini reads ({kind})"),
        });
    }
    Regex::new(pattern).map_err(|e| match e {
        regex::Error::CompiledTooBig(_) => {
            "is too large a regular expression to evaluate".to_string()
        }
        other => format!("is not a regular expression toscanini reads ({other})"),
    })
}

#[cfg(test)]
mod tests {
    use super::compile;

    #[test]
    fn a_pattern_matches_a_part_of_the_value_unless_anchored() {
        let re = compile("^db-[0-9]+").unwrap();
        assert!(re.is_match("db-12-eu"));
        assert!(!re.is_match("x-db-12"));
        assert!(compile("eu").unwrap().is_match("db-12-eu"));
        assert!(!compile("^eu$").unwrap().is_match("db-12-eu"));
    }

    #[test]
    fn what_the_regex_crate_lacks_is_named() {
        assert_eq!(
            compile("(?<=a)b").unwrap_err(),
            "uses look-around, which toscanini's regular expressions do not have"
        );
        assert_eq!(
            compile(r"(a)\1").unwrap_err(),
            "uses a backreference, which toscanini's regular expressions do not have"
        );
        assert_eq!(
            compile("(ab").unwrap_err(),
            "is not a regular expression toscanini reads (unclosed group)"
        );
    }
}
