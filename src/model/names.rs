//! Interned names: one allocation per distinct name, shared by every
//! template that uses it (the property names of a large topology are a
//! few dozen, repeated over a million times).

use foldhash::HashSet;

use super::Name;

/// The names handed out so far.
#[derive(Debug, Default)]
pub(super) struct Names(HashSet<Name>);

impl Names {
    /// The shared name equal to `s`.
    pub(super) fn get(&mut self, s: &str) -> Name {
        if let Some(n) = self.0.get(s) {
            return n.clone();
        }
        let n: Name = s.into();
        self.0.insert(n.clone());
        n
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;

    #[test]
    fn equal_names_are_one_allocation() {
        let mut names = Names::default();
        let a = names.get("port");
        let b = names.get(&String::from("port"));
        let c = names.get("context");
        assert!(Arc::ptr_eq(&a, &b));
        assert!(!Arc::ptr_eq(&a, &c));
        assert_eq!((&*a, &*c), ("port", "context"));
    }
}
