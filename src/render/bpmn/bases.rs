//! The prefixes of a BPMN plan's ids, chosen so that no two families of
//! ids meet.
//!
//! Every element of an activity has its id (the subprocess) or its id
//! followed by `_` and a suffix: one of [`ENDS`] or a flow's `f<n>`
//! (`_catch`, `_f12`), or a longer one that starts with one of [`STEMS`]
//! or a step's `s<n>` or `c<n>` (`_s3_poll`, `_each_f2`); the plan's own
//! elements are `plan_…` in the same way.
//! Activity ids are unique, yet one activity can spell another's element
//! (workflow steps `a` and `a_s1`: the first step of `a` is `a_s1` too),
//! or the plan's (a step named `plan_init`), or one of the ids the process
//! has once (its error definitions, the process diagram).
//!
//! In: the activity ids and those fixed ids. Out: a prefix for the plan's
//! elements and one per activity: its id, or where its family could meet
//! another, its id with `_` appended until it cannot. Nothing changes
//! where nothing could meet (`register_mysql` and `register_mysql_host`
//! keep theirs). Linear in the length of the ids.

use foldhash::{HashMap, HashSet};

/// Whole suffixes of element ids (`<prefix>_catch`): nothing follows them.
pub(crate) const ENDS: &[&str] = &[
    "abort",
    "activitiesEnd",
    "activitiesStart",
    "any",
    "catch",
    "caught",
    "compare",
    "compensation",
    "createServiceInstance",
    "diagram",
    "done",
    "end",
    "errorStart",
    "failFork",
    "failed",
    "failureStart",
    "finished",
    "fork",
    "gate",
    "instanceKnown",
    "instanceMerge",
    "join",
    "list",
    "load",
    "markError",
    "meets",
    "more",
    "next",
    "none",
    "onFailureStart",
    "outputs",
    "planFailed",
    "planFinished",
    "planRunning",
    "plane",
    "poll",
    "recordFailure",
    "result",
    "rethrow",
    "serviceInstanceDone",
    "serviceInstanceStarting",
    "skip",
    "skipFork",
    "skipMerge",
    "skipped",
    "start",
    "tryStart",
    "turnEnd",
    "turnStart",
    "undoEnd",
    "undoLink",
    "undoStart",
    "wait",
];

/// First words of longer suffixes (`<prefix>_each_f3`), besides `s` and
/// `c` followed by a number (steps, compensation steps): the subprocesses
/// among them have flows and diagrams of their own.
pub(crate) const STEMS: &[&str] = &[
    "activities",
    "each",
    "failure",
    "init",
    "onError",
    "onFailure",
    "process",
    "try",
    "turn",
    "undo",
];

/// How the suffix whose first word is `word` goes on, if it can be one.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Word {
    /// The suffix is this word alone (and flows, `f` and a number).
    End,
    /// The suffix may go on after this word.
    Stem,
}

/// What `word` is as the first word of an element id's suffix, if it can
/// be one. The test suite checks every id of every plan it renders.
pub fn suffix_word(word: &str) -> Option<Word> {
    let numbered = |c: u8| {
        word.len() > 1
            && word.as_bytes()[0] == c
            && word.as_bytes()[1..].iter().all(u8::is_ascii_digit)
    };
    if numbered(b's') || numbered(b'c') || STEMS.contains(&word) {
        Some(Word::Stem)
    } else if numbered(b'f') || ENDS.contains(&word) {
        Some(Word::End)
    } else {
        None
    }
}

/// Whether an id `<p>_<rest>` could be one of `p`'s elements, or have an
/// element that is: `rest` is a whole suffix, or starts with a stem.
fn could_meet(rest: &str) -> bool {
    let (word, more) = match rest.split_once('_') {
        Some((w, m)) => (w, Some(m)),
        None => (rest, None),
    };
    match suffix_word(word) {
        Some(Word::Stem) => true,
        Some(Word::End) => more.is_none(),
        None => false,
    }
}

/// The prefix of the plan's elements and of each activity's.
#[derive(Debug)]
pub(crate) struct Bases {
    /// The prefix of the plan's own elements (`plan`).
    pub plan: String,
    /// Activities whose prefix is not their id: index, prefix.
    pub renamed: HashMap<usize, String>,
}

impl Bases {
    /// Prefixes for a plan with activities `activities` (their ids, in
    /// order) and the ids in `fixed`, which cannot change.
    pub(crate) fn new<'a>(
        activities: impl Iterator<Item = &'a str> + Clone,
        fixed: &[&'a str],
    ) -> Bases {
        // `p` is here when some id is `p_<rest>` and `p`'s family could
        // hold that id or one of its elements.
        let mut extended: HashSet<&str> = HashSet::default();
        for id in activities.clone().chain(fixed.iter().copied()) {
            for i in memchr::memchr_iter(b'_', id.as_bytes()) {
                if could_meet(&id[i + 1..]) {
                    extended.insert(&id[..i]);
                }
            }
        }
        let fixed: HashSet<&str> = fixed.iter().copied().collect();
        let ids: HashSet<&str> = activities.clone().collect();
        let mut assigned: HashSet<String> = HashSet::default();
        let mut choose = |own: &str| {
            let mut base = own.to_string();
            while extended.contains(base.as_str())
                || fixed.contains(base.as_str())
                || assigned.contains(&base)
                || (base != own && ids.contains(base.as_str()))
            {
                base.push('_');
            }
            // An activity that keeps its id is in `ids` already.
            if base != own || !ids.contains(own) {
                assigned.insert(base.clone());
            }
            base
        };
        // The plan's prefix is no id of its own: it only has to differ
        // from every activity id, as every other prefix does.
        let plan = {
            let mut base = "plan".to_string();
            while ids.contains(base.as_str()) {
                base.push('_');
            }
            choose(&base)
        };
        let mut renamed = HashMap::default();
        for (k, id) in activities.enumerate() {
            let base = choose(id);
            if base != id {
                renamed.insert(k, base);
            }
        }
        Bases { plan, renamed }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn bases(ids: &[&str], fixed: &[&str]) -> (String, Vec<(usize, String)>) {
        let b = Bases::new(ids.iter().copied(), fixed);
        let mut renamed: Vec<_> = b.renamed.into_iter().collect();
        renamed.sort();
        (b.plan, renamed)
    }

    #[test]
    fn ids_that_cannot_meet_are_kept() {
        let ids = [
            "web_provision",
            "web_1_provision",
            "deploy",
            "deploy_2",
            "register_mysql",
            "register_mysql_host",
            "backup_step",
            "backup_step_start_mysql",
            "a",
            "a_s",
            "a_s1x",
        ];
        assert_eq!(bases(&ids, &["P_diagram"]), ("plan".into(), vec![]));
    }

    #[test]
    fn an_activity_whose_elements_another_spells_gets_a_prefix_of_its_own() {
        // `a_s1` is the first step of `a`; `a`'s family becomes `a_…`.
        assert_eq!(
            bases(&["a", "a_s1"], &[]),
            ("plan".into(), vec![(0, "a_".into())])
        );
        // A whole suffix only meets an id that ends there.
        assert_eq!(
            bases(&["b", "b_catch"], &[]),
            ("plan".into(), vec![(0, "b_".into())])
        );
        // ... and `a__` when `a_` is taken as well.
        assert_eq!(
            bases(&["a", "a_s1", "a_"], &[]),
            ("plan".into(), vec![(0, "a__".into())])
        );
    }

    #[test]
    fn the_plan_and_fixed_ids_are_avoided() {
        // A step named `plan_init` is the plan's init task; one named
        // `plan` would own the plan's flows.
        assert_eq!(bases(&["plan_init"], &[]).0, "plan_");
        assert_eq!(bases(&["plan"], &[]).0, "plan_");
        // A step named after an error definition, or one whose family
        // holds the process diagram.
        assert_eq!(
            bases(
                &["toscanini_failure", "P"],
                &["toscanini_failure", "P_diagram"]
            )
            .1,
            vec![(0, "toscanini_failure_".into()), (1, "P_".into())]
        );
    }
}
