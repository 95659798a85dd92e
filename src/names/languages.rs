//! The `planLanguage` URIs of the two plan languages, as TOSCA plans name them.

/// `planLanguage` of WS-BPEL 2.0 executable processes.
pub(crate) const LANG_BPEL: &str = "http://docs.oasis-open.org/wsbpel/2.0/process/executable";
/// `planLanguage` of BPMN 2.0.
pub(crate) const LANG_BPMN: &str = "http://www.omg.org/spec/BPMN/20100524/MODEL";
