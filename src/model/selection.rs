//! A node template with the `select` directive (TOSCA 2.0 §7.2, 1.3
//! `selectable`): an existing node of another service is used, not made.
//! The plans take the URL of its instance as a plan input, read that
//! instance's properties, and check them against the template's
//! `node_filter`; the node in this service is a reference to it.

use super::Condition;

/// How the plans find the existing node a `select` template stands for.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ExistingNode {
    /// The plan input that gives the URL of the chosen node instance
    /// (`<node>_InstanceURL`).
    pub input: String,
    /// The clauses of the `node_filter` the plans check on the chosen
    /// instance's properties (all must hold; empty: any instance of the
    /// type will do). Clauses the plans cannot check are left out, with a
    /// warning when the template is lowered.
    pub filter: Vec<Condition>,
}

impl ExistingNode {
    /// The plan input named for node template `node`.
    pub fn input_for(node: &str) -> String {
        format!("{node}_InstanceURL")
    }
}
