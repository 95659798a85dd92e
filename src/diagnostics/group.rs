//! Which warnings are the same warning on different templates, so that the
//! text form can report them once (the diagnostics themselves stay one per
//! template: `--message-format json` and `--verbose` show every one).
//!
//! In: the diagnostics of one report. Out: [`Group`]s in the order of
//! their first diagnostic, each with the names that tell its members apart.
//!
//! Two warnings are the same when their code, message, hint and notes are
//! equal once one name quoted in backticks is left out, e.g. the node in
//! "node template `vm_3` (type `Compute`) is delegated …". Which name a
//! warning varies in is not declared where it is made: for each warning
//! the quoted name whose omission makes it like the most others is chosen.
//! Where that name also appears inside other quoted names (the plan input
//! `vm_3_private_address` of node `vm_3`) it is left out there too.

use foldhash::HashMap;

use super::{Diagnostic, Severity};

/// Warnings that are one warning on several templates.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Group {
    /// Indices of the members in the report, in order.
    pub members: Vec<usize>,
    /// The name each member differs in, in the same order.
    pub names: Vec<String>,
}

/// What stands for the omitted name in a key.
const HOLE: &str = "\u{0}";

/// Group the diagnostics: every diagnostic is in exactly one group (most
/// in a group of their own; errors always are).
pub fn groups(diagnostics: &[&Diagnostic]) -> Vec<Group> {
    // Every key each warning could be grouped under, with how many share it.
    let candidates: Vec<Vec<(String, String)>> = diagnostics.iter().map(|d| keys(d)).collect();
    let mut shared: HashMap<&str, usize> = HashMap::default();
    for keys in &candidates {
        for (key, _) in keys {
            *shared.entry(key.as_str()).or_default() += 1;
        }
    }
    let mut out: Vec<Group> = Vec::new();
    let mut by_key: HashMap<&str, usize> = HashMap::default();
    for (i, keys) in candidates.iter().enumerate() {
        // The first of the keys most warnings share; ties keep the earlier name.
        let best = keys
            .iter()
            .enumerate()
            .max_by_key(|(j, (key, _))| (shared[key.as_str()], std::cmp::Reverse(*j)))
            .map(|(_, k)| k);
        match best {
            Some((key, name)) if shared[key.as_str()] > 1 => {
                if let Some(&g) = by_key.get(key.as_str()) {
                    out[g].members.push(i);
                    out[g].names.push(name.clone());
                } else {
                    by_key.insert(key.as_str(), out.len());
                    out.push(Group {
                        members: vec![i],
                        names: vec![name.clone()],
                    });
                }
            }
            _ => out.push(Group {
                members: vec![i],
                names: Vec::new(),
            }),
        }
    }
    out
}

/// The keys a warning can be grouped under, one per quoted name, with that
/// name; none for an error.
fn keys(d: &Diagnostic) -> Vec<(String, String)> {
    if d.severity == Severity::Error {
        return Vec::new();
    }
    let parts: Vec<&str> = d.message.split('`').collect();
    // Odd parts are quoted (a message with an odd number of backticks has
    // an unclosed last part, which is not a name).
    let quoted = (1..parts.len()).step_by(2).filter(|&i| i + 1 < parts.len());
    let mut out: Vec<(String, String)> = Vec::new();
    for i in quoted {
        let name = parts[i];
        if name.is_empty() || out.iter().any(|(_, n)| n == name) {
            continue;
        }
        let message: Vec<String> = parts
            .iter()
            .enumerate()
            .map(|(j, p)| match (j == i, j % 2 == 1) {
                (true, _) => HOLE.to_string(),
                (false, true) => replace_word(p, name),
                (false, false) => p.to_string(),
            })
            .collect();
        let key = format!(
            "{}\n{}\n{}\n{}",
            d.code,
            message.join("`"),
            replace_word(d.hint.as_deref().unwrap_or_default(), name),
            replace_word(&d.notes.join("\n"), name)
        );
        out.push((key, name.to_string()));
    }
    out
}

/// `text` with every occurrence of `name` that is not part of a longer
/// word (letters and digits) replaced by [`HOLE`]: `vm_3` in
/// `vm_3_private_address`, but not `a` in `install`.
fn replace_word(text: &str, name: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    let mut before: Option<char> = None;
    while let Some(at) = rest.find(name) {
        let prev = rest[..at].chars().next_back().or(before);
        let next = rest[at + name.len()..].chars().next();
        let bounded = |c: Option<char>| !c.is_some_and(char::is_alphanumeric);
        out.push_str(&rest[..at]);
        if bounded(prev) && bounded(next) {
            out.push_str(HOLE);
        } else {
            out.push_str(name);
        }
        before = name.chars().next_back();
        rest = &rest[at + name.len()..];
    }
    out.push_str(rest);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn delegated(node: &str) -> Diagnostic {
        Diagnostic::warning(
            "W0313",
            format!(
                "node template `{node}` (type `tosca.nodes.Compute`) is delegated, taking `private_address` from plan input `{node}_private_address`"
            ),
        )
        .hint("give the node implementations")
    }

    #[test]
    fn the_same_warning_on_several_templates_is_one_group() {
        let d = [
            delegated("vm_1"),
            Diagnostic::warning("W0312", "the artifact `a.sh` of `web` is not in the CSAR"),
            delegated("vm_2"),
            delegated("vm_10"),
        ];
        let refs: Vec<&Diagnostic> = d.iter().collect();
        assert_eq!(
            groups(&refs),
            [
                Group {
                    members: vec![0, 2, 3],
                    names: vec!["vm_1".into(), "vm_2".into(), "vm_10".into()]
                },
                Group {
                    members: vec![1],
                    names: vec![]
                },
            ]
        );
    }

    #[test]
    fn the_name_that_varies_is_found_wherever_it_is_quoted() {
        // The node varies, not the artifact (first quoted).
        let missing = |node: &str| {
            Diagnostic::warning(
                "W0312",
                format!("the artifact `files/install.sh` of `{node}` is not in the CSAR"),
            )
        };
        let d = [missing("a"), missing("b"), missing("c")];
        let refs: Vec<&Diagnostic> = d.iter().collect();
        let g = groups(&refs);
        assert_eq!(g.len(), 1);
        assert_eq!(g[0].names, ["a", "b", "c"]);
    }

    #[test]
    fn names_are_left_out_only_as_whole_words() {
        assert_eq!(
            replace_word("vm_3_private_address", "vm_3"),
            "\u{0}_private_address"
        );
        assert_eq!(replace_word("vm_30 install", "vm_3"), "vm_30 install");
        assert_eq!(replace_word("files/install.sh", "a"), "files/install.sh");
        assert_eq!(replace_word("a/a.sh", "a"), "\u{0}/\u{0}.sh");
    }

    #[test]
    fn errors_and_different_warnings_stay_apart() {
        let d = [
            Diagnostic::error("E0401", "type `A` of `x` is not defined"),
            Diagnostic::error("E0401", "type `A` of `y` is not defined"),
            Diagnostic::warning("W0406", "relationship `r` has no known kind"),
            Diagnostic::warning("W0406", "relationship `s` has no known kind").hint("other"),
        ];
        let refs: Vec<&Diagnostic> = d.iter().collect();
        assert!(groups(&refs).iter().all(|g| g.members.len() == 1));
    }
}
