//! The type table: every type a topology uses, with its parent, so that
//! plugins and the relationship classification can walk the ancestry.

use foldhash::HashMap;
use std::fmt;

use crate::diagnostics::Location;

/// A type's qualified name. TOSCA 1.0 types have a namespace; YAML types are
/// identified by their full name (`tosca.nodes.Compute`) with an empty
/// namespace.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct TypeName {
    /// Namespace URI, empty for YAML types.
    pub namespace: String,
    /// Local (or full YAML) name.
    pub name: String,
}

impl TypeName {
    /// A qualified name.
    pub fn new(namespace: impl Into<String>, name: impl Into<String>) -> Self {
        TypeName {
            namespace: namespace.into(),
            name: name.into(),
        }
    }

    /// The name without Winery's version suffix (`Ubuntu-VM_18.04-w1` →
    /// `Ubuntu-VM`; `DockerEngine_w1` → `DockerEngine`).
    pub fn unversioned(&self) -> &str {
        strip_winery_version(&self.name)
    }

    /// Whether `pattern` names this type: `{namespace}name` matches exactly,
    /// a bare name matches the local name or the unversioned local name,
    /// and for YAML names also the last dotted segment (`Compute`).
    pub fn matches(&self, pattern: &str) -> bool {
        if let Some(rest) = pattern.strip_prefix('{') {
            return match rest.split_once('}') {
                Some((ns, local)) => {
                    ns == self.namespace && (local == self.name || local == self.unversioned())
                }
                None => false,
            };
        }
        pattern == self.name
            || pattern == self.unversioned()
            || (self.namespace.is_empty() && self.name.rsplit('.').next() == Some(pattern))
    }
}

impl fmt::Display for TypeName {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.namespace.is_empty() {
            f.write_str(&self.name)
        } else {
            write!(f, "{{{}}}{}", self.namespace, self.name)
        }
    }
}

/// Strip `_[<version>-]w<N>[-wip<M>]` from the end of a Winery name.
fn strip_winery_version(name: &str) -> &str {
    let Some(us) = name.rfind('_') else {
        return name;
    };
    let mut suffix = &name[us + 1..];
    if let Some(i) = suffix.rfind("-wip") {
        let digits = &suffix[i + 4..];
        if !digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit()) {
            suffix = &suffix[..i];
        }
    }
    let Some(w) = suffix.rfind('w') else {
        return name;
    };
    let digits = &suffix[w + 1..];
    let before_ok = w == 0 || (suffix.as_bytes()[w - 1] == b'-' && !suffix[..w - 1].contains('_'));
    if before_ok && !digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit()) {
        &name[..us]
    } else {
        name
    }
}

/// What a type describes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum TypeKind {
    /// Node type.
    Node,
    /// Relationship type.
    Relationship,
}

/// Index into a [`TypeTable`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct TypeId(pub u32);

/// One type.
#[derive(Clone, Debug)]
pub struct TypeDef {
    /// Its name.
    pub name: TypeName,
    /// Node or relationship.
    pub kind: TypeKind,
    /// The type it derives from.
    pub parent: Option<TypeId>,
    /// Declared abstract.
    pub is_abstract: bool,
    /// Where it is defined (`None` for built-in normative types).
    pub origin: Option<Location>,
}

/// All types of a topology.
#[derive(Clone, Debug, Default)]
pub struct TypeTable {
    types: Vec<TypeDef>,
    by_name: HashMap<(TypeKind, TypeName), TypeId>,
}

impl TypeTable {
    /// An empty table.
    pub fn new() -> Self {
        Self::default()
    }

    /// Add a type (or return the existing one of that kind and name).
    pub fn add(&mut self, def: TypeDef) -> TypeId {
        let key = (def.kind, def.name.clone());
        if let Some(&id) = self.by_name.get(&key) {
            return id;
        }
        let id = TypeId(self.types.len() as u32);
        self.types.push(def);
        self.by_name.insert(key, id);
        id
    }

    /// A type by id.
    pub fn get(&self, id: TypeId) -> &TypeDef {
        &self.types[id.0 as usize]
    }

    /// Mutable access (used while linking parents).
    pub fn get_mut(&mut self, id: TypeId) -> &mut TypeDef {
        &mut self.types[id.0 as usize]
    }

    /// A type by kind and name.
    pub fn lookup(&self, kind: TypeKind, name: &TypeName) -> Option<TypeId> {
        self.by_name.get(&(kind, name.clone())).copied()
    }

    /// The type and its ancestors, nearest first. Stops at a cycle (cycles
    /// are reported when the table is built).
    pub fn ancestry(&self, id: TypeId) -> Vec<TypeId> {
        let mut out = vec![id];
        let mut cur = self.get(id).parent;
        while let Some(p) = cur {
            if out.contains(&p) {
                break;
            }
            out.push(p);
            cur = self.get(p).parent;
        }
        out
    }

    /// Whether the type or one of its ancestors matches `pattern`
    /// (see [`TypeName::matches`]).
    pub fn derives_from(&self, id: TypeId, pattern: &str) -> bool {
        self.ancestry(id)
            .into_iter()
            .any(|t| self.get(t).name.matches(pattern))
    }

    /// Number of types.
    pub fn len(&self) -> usize {
        self.types.len()
    }

    /// Whether the table is empty.
    pub fn is_empty(&self) -> bool {
        self.types.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn strips_winery_versions() {
        for (full, short) in [
            ("Ubuntu-VM_18.04-w1", "Ubuntu-VM"),
            ("DockerEngine_w1", "DockerEngine"),
            ("MySQL-DBMS_5.7-w1", "MySQL-DBMS"),
            ("QHAna-PluginRunner_latest-w2", "QHAna-PluginRunner"),
            ("AWS_w1-wip1", "AWS"),
            ("Ubuntu-14.04-VM", "Ubuntu-14.04-VM"),
            ("OpenStack-Liberty-12", "OpenStack-Liberty-12"),
            ("connects_to_w1", "connects_to"),
            ("Python_3", "Python_3"),
        ] {
            assert_eq!(strip_winery_version(full), short, "{full}");
        }
    }

    #[test]
    fn matches_qualified_local_and_unversioned_names() {
        let t = TypeName::new("http://opentosca.org/nodetypes", "Ubuntu-VM_18.04-w1");
        assert!(t.matches("Ubuntu-VM"));
        assert!(t.matches("Ubuntu-VM_18.04-w1"));
        assert!(t.matches("{http://opentosca.org/nodetypes}Ubuntu-VM"));
        assert!(!t.matches("{http://other}Ubuntu-VM"));
        let y = TypeName::new("", "tosca.nodes.Compute");
        assert!(y.matches("Compute") && y.matches("tosca.nodes.Compute"));
    }
}
