//! Identifiers for activities, variables and plans: valid XML NCNames
//! (BPEL names and BPMN ids must be), unique, stable.

use std::collections::HashSet;
use std::hash::{BuildHasherDefault, Hasher};

/// Turn any text into an NCName: characters outside `[A-Za-z0-9_.-]`
/// become `_`, and a leading character that cannot start a name gets a `_`
/// in front.
pub(crate) fn ncname(s: &str) -> String {
    let kept = |c: char| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.');
    // A name that starts with a digit, `-` or `.` (or is empty) gets a
    // `_` in front; one that starts with a replaced character starts with
    // its `_` already.
    let lead = s
        .chars()
        .next()
        .is_none_or(|c| c.is_ascii_digit() || c == '-' || c == '.');
    let mut out = String::with_capacity(s.len() + 1);
    if lead {
        out.push('_');
    }
    // Most names are NCNames already: copied whole.
    if s.bytes().all(|b| kept(char::from(b))) {
        out.push_str(s);
    } else {
        out.extend(s.chars().map(|c| if kept(c) { c } else { '_' }));
    }
    out
}

/// Hands out unique names: the first request for a name gets it as is,
/// later ones get `_2`, `_3`, ...
///
/// The names handed out are remembered by a 128-bit hash, not by copy: a
/// plan of a large topology names a million variables, and a copy of
/// each (with its allocation) cost most of the memory of a plan's
/// rendering. Two different names with the same 128-bit FNV-1a hash would
/// only make the second one get a suffix it did not need.
#[derive(Debug, Default)]
pub(crate) struct Unique {
    taken: HashSet<u128, BuildHasherDefault<Folded>>,
}

impl Unique {
    /// A fresh allocator.
    pub(crate) fn new() -> Self {
        Self::default()
    }

    /// A unique name based on `base`.
    pub(crate) fn name(&mut self, base: String) -> String {
        if self.taken.insert(fnv1a(&base)) {
            return base;
        }
        let mut out = String::new();
        self.suffixed(&base, &mut out);
        out
    }

    /// Claim the name written after `start` in `text` (whose end is the
    /// name's base), with a suffix where it is taken. No String is made
    /// for a name free as it is, which is nearly every one.
    pub(crate) fn claim(&mut self, text: &mut String, start: usize) {
        if self.taken.insert(fnv1a(&text[start..])) {
            return;
        }
        let base = text.split_off(start);
        self.suffixed(&base, text);
    }

    /// Append the first free `base_2`, `base_3`, ... to `out`.
    fn suffixed(&mut self, base: &str, out: &mut String) {
        use std::fmt::Write as _;
        let start = out.len();
        for n in 2.. {
            out.truncate(start);
            let _ = write!(out, "{base}_{n}");
            if self.taken.insert(fnv1a(&out[start..])) {
                return;
            }
        }
    }
}

/// Checks that names are all different once they are all made: their
/// 64-bit hashes sorted, one pass over memory where a set of a million
/// names (a large plan's variables) costs a cache miss per name. Equal
/// hashes mean equal names or, very rarely, a collision: either way the
/// names are not known to be distinct, and the caller names them again
/// with [`Unique`].
#[derive(Debug, Default)]
pub(crate) struct Distinct {
    hashes: Vec<u64>,
}

impl Distinct {
    /// Room for `n` names.
    pub(crate) fn with_capacity(n: usize) -> Self {
        Distinct {
            hashes: Vec::with_capacity(n),
        }
    }

    /// Add a name.
    pub(crate) fn add(&mut self, name: &str) {
        use std::hash::BuildHasher as _;
        let state = foldhash::fast::FixedState::with_seed(0);
        self.hashes.push(state.hash_one(name));
    }

    /// Whether no two names added are the same.
    pub(crate) fn all_distinct(mut self) -> bool {
        self.hashes.sort_unstable();
        self.hashes.windows(2).all(|w| w[0] != w[1])
    }
}

/// The 128-bit FNV-1a hash of `s`.
fn fnv1a(s: &str) -> u128 {
    const OFFSET: u128 = 0x6c62272e07bb014262b821756295c58d;
    const PRIME: u128 = 0x0000000001000000000000000000013b;
    s.bytes()
        .fold(OFFSET, |h, b| (h ^ u128::from(b)).wrapping_mul(PRIME))
}

/// The hasher of the set of hashes: the two halves of the hash folded.
#[derive(Default)]
struct Folded(u64);

impl Hasher for Folded {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = self.0.rotate_left(8) ^ u64::from(b);
        }
    }
    fn write_u128(&mut self, n: u128) {
        self.0 = (n as u64) ^ ((n >> 64) as u64);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn makes_ncnames() {
        assert_eq!(ncname("Ubuntu-VM_18.04-w1"), "Ubuntu-VM_18.04-w1");
        assert_eq!(ncname("my app"), "my_app");
        assert_eq!(ncname("1st"), "_1st");
        assert_eq!(ncname(""), "_");
        // A replaced first character is the `_` in front already.
        assert_eq!(ncname("$x"), "_x");
        assert_eq!(ncname("-x"), "_-x");
        assert_eq!(ncname("é1"), "_1");
        assert_eq!(ncname("aé.b"), "a_.b");
    }

    #[test]
    fn dedups() {
        let mut u = Unique::new();
        assert_eq!(u.name("a".into()), "a");
        assert_eq!(u.name("a".into()), "a_2");
        assert_eq!(u.name("a_2".into()), "a_2_2");
        assert_eq!(u.name("a".into()), "a_3");
        assert_eq!(u.name("b".into()), "b");
    }

    #[test]
    fn claims_in_place() {
        let mut u = Unique::new();
        let mut text = String::from("x");
        for _ in 0..3 {
            let start = text.len();
            text.push_str("a_");
            text.push('2');
            u.claim(&mut text, start);
        }
        assert_eq!(u.name("a".into()), "a");
        assert_eq!(text, "xa_2a_2_2a_2_3");
    }

    #[test]
    fn finds_a_name_given_twice() {
        let mut d = Distinct::with_capacity(3);
        ["a", "b", "a_2"].iter().for_each(|n| d.add(n));
        assert!(d.all_distinct());
        let mut d = Distinct::default();
        ["a", "b", "a"].iter().for_each(|n| d.add(n));
        assert!(!d.all_distinct());
    }

    #[test]
    fn hashes_are_fnv1a_128() {
        // The published test vectors of FNV-1a 128.
        assert_eq!(fnv1a(""), 0x6c62272e07bb014262b821756295c58d);
        assert_eq!(fnv1a("a"), 0xd228cb696f1a8caf78912b704e4a8964);
    }
}
