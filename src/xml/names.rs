//! Namespaces and URIs of TOSCA 1.0 XML and the OpenTOSCA conventions.

/// The TOSCA 1.0 namespace (OS 2013 and CSD02 alike).
pub(crate) const TOSCA: &str = "http://docs.oasis-open.org/tosca/ns/2011/12";
/// The base types OpenTOSCA orders by (HostedOn, DependsOn, DeployedOn, ConnectsTo).
pub(crate) const BASE_TYPES: &str = "http://docs.oasis-open.org/tosca/ns/2011/12/ToscaBaseTypes";
/// The YAML-style normative types some Winery CSARs use.
pub(crate) const NORMATIVE_TYPES: &str = "http://docs.oasis-open.org/tosca/ToscaNormativeTypes";
/// Winery's extension namespace (key/value property definitions).
pub(crate) const WINERY: &str = "http://www.opentosca.org/winery/extensions/tosca/2013/02/12";
/// Namespace of toscanini's own marker attribute on generated plans.
pub(crate) const TOSCANINI: &str = "urn:toscanini";

/// `planType` of build plans.
pub(crate) const PLAN_TYPE_BUILD: &str =
    "http://docs.oasis-open.org/tosca/ns/2011/12/PlanTypes/BuildPlan";
/// `planType` of termination plans.
pub(crate) const PLAN_TYPE_TERMINATION: &str =
    "http://docs.oasis-open.org/tosca/ns/2011/12/PlanTypes/TerminationPlan";
/// `planType` of management plans (scale-out and other workflows), as OpenTOSCA uses it.
pub(crate) const PLAN_TYPE_MANAGEMENT: &str =
    "http://docs.oasis-open.org/tosca/ns/2011/12/PlanTypes/ManagementPlan";

/// The boundary interface OpenTOSCA looks for build and termination plans in.
pub(crate) const LIFECYCLE_INTERFACE: &str = "OpenTOSCA-Lifecycle-Interface";
/// The boundary interface of OpenTOSCA's freeze, defrost and update plans.
pub(crate) const STATEFUL_LIFECYCLE_INTERFACE: &str = "OpenTOSCA-Stateful-Lifecycle-Interface";
/// `planType` of transformation plans (OpenTOSCA's own).
pub(crate) const PLAN_TYPE_TRANSFORMATION: &str =
    "http://opentosca.org/plantypes/TransformationPlan";
/// The boundary interface of OpenTOSCA's transformation plans.
pub(crate) const TRANSFORMATION_INTERFACE: &str = "OpenTOSCA-Transformation-Interface";
/// The boundary interface of OpenTOSCA's backup and test plans.
pub(crate) const MANAGEMENT_FEATURE_INTERFACE: &str = "OpenTOSCA-Management-Feature-Interface";
