//! Identifiers for activities, variables and plans: valid XML NCNames
//! (BPEL names and BPMN ids must be), unique, stable.

use std::collections::HashSet;

/// Turn any text into an NCName: characters outside `[A-Za-z0-9_.-]`
/// become `_`, and a leading character that cannot start a name gets a `_`
/// in front.
pub fn ncname(s: &str) -> String {
    let mut out: String = s
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.') {
                c
            } else {
                '_'
            }
        })
        .collect();
    if out.is_empty() || !out.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_') {
        out.insert(0, '_');
    }
    out
}

/// Hands out unique names: the first request for a name gets it as is,
/// later ones get `_2`, `_3`, ...
#[derive(Debug, Default)]
pub struct Unique {
    taken: HashSet<String>,
}

impl Unique {
    /// A fresh allocator.
    pub fn new() -> Self {
        Self::default()
    }

    /// A unique name based on `base`.
    pub fn name(&mut self, base: String) -> String {
        if self.taken.insert(base.clone()) {
            return base;
        }
        let mut n = 2;
        loop {
            let candidate = format!("{base}_{n}");
            if self.taken.insert(candidate.clone()) {
                return candidate;
            }
            n += 1;
        }
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
    }

    #[test]
    fn dedups() {
        let mut u = Unique::new();
        assert_eq!(u.name("a".into()), "a");
        assert_eq!(u.name("a".into()), "a_2");
    }
}
