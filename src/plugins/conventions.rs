//! Naming conventions of TOSCA interfaces that plugins rely on, in one
//! place: lifecycle interfaces and operation orders, the OpenTOSCA
//! connection interfaces, and property aliases.

use crate::model::{Interface, LIFECYCLE_STANDARD};

/// Operations that bring a node up, in the order they run.
pub(crate) const BUILD_OPERATIONS: [&str; 4] = ["install", "create", "configure", "start"];
/// Operations that take a node down, in the order they run.
pub(crate) const TERMINATION_OPERATIONS: [&str; 3] = ["stop", "uninstall", "delete"];

/// The state before and after a lifecycle operation.
pub(crate) fn states(operation: &str) -> (&'static str, &'static str) {
    use super::steps::state::*;
    match operation {
        "install" | "create" => (CREATING, CREATED),
        "configure" => (CONFIGURING, CONFIGURED),
        "start" => (STARTING, STARTED),
        "stop" => (STOPPING, STOPPED),
        _ => (DELETING, DELETED),
    }
}

/// Whether an interface is a lifecycle interface: in TOSCA YAML one whose
/// type is or derives from the Simple Profile `Standard` interface type
/// (decided on the type: a user's interface merely named `Standard` is
/// not); untyped (TOSCA 1.0 XML), OpenTOSCA's
/// `http://opentosca.org/interfaces/lifecycle`,
/// `http://www.example.com/interfaces/lifecycle`, `…/pattern/lifecycle`,
/// or one named `Standard`.
pub(crate) fn is_lifecycle(interface: &Interface) -> bool {
    if !interface.lineage.is_empty() {
        return interface.is_a(LIFECYCLE_STANDARD);
    }
    let name = interface.name.to_ascii_lowercase();
    name.ends_with("lifecycle") || interface.is_a(LIFECYCLE_STANDARD)
}

/// The operation name of OpenTOSCA's connection semantics (seed 004).
pub(crate) const CONNECT_TO: &str = "connectTo";
/// Interface whose `connectTo` must not be wrapped in stop/start (OpenTOSCA reading).
pub(crate) const NON_INTERRUPTIVE: &str =
    "http://opentosca.org/interfaces/connections/nonInterruptive";
/// Prefix of interfaces whose `connectTo` runs only on the source end.
pub(crate) const CONNECTIONS_SOURCE: &str = "http://opentosca.org/interfaces/connections/source";
/// Prefix of interfaces whose `connectTo` runs only on the target end.
pub(crate) const CONNECTIONS_TARGET: &str = "http://opentosca.org/interfaces/connections/target";

/// Interfaces of management features that build and termination plans do
/// not run (tests, freeze/defrost, monitoring): a node whose only
/// operations are these and `connectTo` needs nothing provisioned.
pub(crate) fn is_management_feature(interface: &str) -> bool {
    let i = interface.trim_end_matches('/');
    i.ends_with("/tests")
        || i.ends_with("/test")
        || i.ends_with("/state")
        || i.ends_with("/monitoring")
        || i.ends_with("/database")
}

/// Property names that stand for each other when matching operation
/// inputs (OpenTOSCA's conventions): the address of a machine, its login.
pub(crate) const ALIASES: [&[&str]; 3] = [
    &["VMIP", "ServerIP", "ContainerIP", "IP"],
    &["VMUserName", "SSHUser", "User"],
    &["VMPrivateKey", "SSHPrivateKey"],
];

/// The other names of `name`, if it belongs to an alias group.
pub(crate) fn aliases(name: &str) -> impl Iterator<Item = &'static str> + '_ {
    ALIASES
        .iter()
        .filter(move |g| g.contains(&name))
        .flat_map(|g| g.iter().copied())
        .filter(move |n| *n != name)
}
