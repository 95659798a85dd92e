//! The BPMN errors of a plan: a failed call, a failed activity, a failed
//! plan; their error codes and the ids of their error elements.

/// Error thrown by a failing call (HTTP status, bus fault).
pub(super) const ERROR_FAILURE: &str = "ToscaniniFailure";
/// Error an activity ends with when it failed.
pub(super) const ERROR_ACTIVITY: &str = "ToscaniniActivityFailed";
/// Error the plan ends with when it failed.
pub(super) const ERROR_PLAN: &str = "ToscaniniPlanFailed";

/// The id of the error element of [`ERROR_FAILURE`].
pub(crate) const ERR_FAILURE: &str = "toscanini_failure";
/// The id of the error element of [`ERROR_ACTIVITY`].
pub(crate) const ERR_ACTIVITY: &str = "toscanini_activityFailed";
/// The id of the error element of [`ERROR_PLAN`].
pub(crate) const ERR_PLAN: &str = "toscanini_planFailed";
