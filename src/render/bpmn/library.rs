//! The reusable processes every BPMN plan carries
//! (`templates/bpmn/library.bpmn`, drawn in `library-diagrams.bpmn`): the
//! ids a plan calls them by, the variables they take, and every id they
//! use, which no element of a plan may have.
//!
//! In: the templates. Out: ids and variable names.

use crate::render::templates::Templates;

/// The reusable process that invokes an operation (`templates/bpmn/library.bpmn`).
pub(super) const INVOKE: &str = "toscanini_invoke";

/// The reusable process that sets the state of an instance.
pub(super) const STATE: &str = "toscanini_state";

/// The reusable process that records the state of an instance on a failure
/// path (the status is not checked).
pub(super) const MARK: &str = "toscanini_mark";

/// The reusable process that registers a node instance.
pub(super) const REGISTER: &str = "toscanini_register";

/// The reusable process that registers a relationship instance.
pub(super) const RELATE: &str = "toscanini_relate";

/// The reusable process that lists the instances of a template.
pub(super) const INSTANCES: &str = "toscanini_instances";

/// The reusable process that follows a relationship to its target instance.
pub(super) const FOLLOW: &str = "toscanini_follow";

/// The reusable process that stores the properties of an instance.
pub(super) const PROPERTIES: &str = "toscanini_properties";

/// The reusable process that loads the properties of an instance.
pub(super) const LOAD: &str = "toscanini_load";

/// The reusable process that runs the steps of an activity, each a call of
/// one of the others ([`super::program`]).
pub(super) const RUN: &str = "toscanini_run";

/// The processes [`RUN`] can call: its gateway has a way to each
/// (`templates/bpmn/library.bpmn`), and its script fails on any other.
pub(super) const RUN_STEPS: [&str; 8] = [
    INVOKE, STATE, REGISTER, RELATE, PROPERTIES, LOAD, FOLLOW, INSTANCES,
];

/// What a line of [`RUN`] takes from the activity's variables where it
/// does not say (the process, its field, the variable as the steps name
/// it): the management bus, the CSAR and the service instance, the same
/// for nearly every call, and the steps' first variable as the instance a
/// state is set on (the activity's own, where it has one).
pub(super) const DEFAULTS: [(&str, &str, &str); 6] = [
    (STATE, "url", "1"),
    (INVOKE, BUS, BUS),
    (INVOKE, "csarID", "csarID"),
    (INVOKE, "serviceInstanceID", "serviceInstanceURL"),
    (REGISTER, "serviceInstanceID", "serviceInstanceID"),
    (RELATE, "serviceInstanceID", "serviceInstanceID"),
];

/// The name the variable numbered `k` (from 0) has in the steps of
/// [`RUN`]: `1`, `2`, … ([`super::program`]). (A plan's own variables
/// are XML names, which never start with a digit.)
pub(super) fn number(k: usize) -> String {
    (k + 1).to_string()
}

/// The reusable process that runs the steps of a termination activity
/// once per instance of its template.
pub(super) const EACH: &str = "toscanini_each";

/// The variable of the management bus URL in the reusable processes.
pub(super) const BUS: &str = "ManagementBusURL";

/// The ids of the reusable processes, their elements and diagrams
/// (`templates/bpmn/library.bpmn`, `library-diagrams.bpmn`), read from the
/// templates so that they cannot drift apart: no element of the plan may
/// have one.
pub fn library_ids() -> &'static [String] {
    static IDS: std::sync::OnceLock<Vec<String>> = std::sync::OnceLock::new();
    IDS.get_or_init(|| {
        ["bpmn/library.bpmn", "bpmn/library-diagrams.bpmn"]
            .iter()
            .flat_map(|t| Templates::raw(t).split(" id=\"").skip(1))
            .filter_map(|rest| rest.split('"').next())
            .map(String::from)
            .collect()
    })
}

#[cfg(test)]
mod tests {
    #[test]
    fn library_ids_are_read_from_the_templates() {
        let ids = super::library_ids();
        for id in [
            "toscanini_invoke",
            "toscanini_invoke_f10",
            "toscanini_callFailed",
            "toscanini_state_put",
            "toscanini_state_plane",
            "toscanini_mark",
            "toscanini_register_call",
            "toscanini_relate_failed",
            "toscanini_instances_f3",
            "toscanini_properties_diagram",
            "toscanini_load_read",
            "toscanini_run_which",
            "toscanini_run_back_instances",
            "toscanini_each_turnFailed",
            "toscanini_run_markError",
            "toscanini_each_listFailed",
        ] {
            assert!(ids.iter().any(|i| i == id), "{id}");
        }
        assert_eq!(ids.len(), 187);
    }
}
