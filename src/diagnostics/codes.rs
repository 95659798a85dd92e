//! The stable diagnostic codes. Errors start with `E`, warnings with `W`.
//! The hundreds group them by pipeline stage: 1 archive, 2 TOSCA XML,
//! 3 TOSCA YAML, 4 topology model, 5 plans, 6 plugins, 7 output.

// ---- 1: the archive (csar::)
/// The input is neither a zip archive, a directory nor a YAML file.
pub const CSAR_UNREADABLE: &str = "E0101";
/// A zip entry would be written outside the archive root (`../`, absolute path).
pub const CSAR_PATH_ESCAPE: &str = "E0102";
/// The archive exceeds a configured limit (entries, sizes, compression ratio).
pub const CSAR_LIMIT: &str = "E0103";
/// A directory input contains a symbolic link.
pub const CSAR_SYMLINK: &str = "E0104";
/// TOSCA-Metadata/TOSCA.meta is malformed.
pub const META_MALFORMED: &str = "E0105";
/// No entry definitions can be found.
pub const META_NO_ENTRY: &str = "E0106";
/// Entry-Definitions names a file that is not in the archive.
pub const META_ENTRY_MISSING: &str = "E0107";
/// A text file is not valid UTF-8.
pub const CSAR_NOT_UTF8: &str = "E0108";
/// Two zip entries have the same name.
pub const CSAR_DUPLICATE_ENTRY: &str = "E0109";
/// TOSCA.meta has an unexpected version or key.
pub const W_META_VERSION: &str = "W0110";

// ---- 2: TOSCA 1.0 XML (xml::)
/// The XML is not well-formed.
pub const XML_SYNTAX: &str = "E0201";
/// DOCTYPE declarations (and so entities) are refused.
pub const XML_DOCTYPE: &str = "E0202";
/// Elements are nested deeper than the limit.
pub const XML_TOO_DEEP: &str = "E0203";
/// The root element is not a TOSCA 1.0 `Definitions`.
pub const XML_NOT_DEFINITIONS: &str = "E0204";
/// The document is in the 2012 CSD02 dialect, which is not supported.
pub const XML_CSD02: &str = "E0205";
/// A required attribute is missing or empty.
pub const XML_MISSING_ATTRIBUTE: &str = "E0206";
/// A QName uses a prefix that is not declared.
pub const XML_UNDECLARED_PREFIX: &str = "E0207";
/// An attribute value is not valid (boolean, number, ...).
pub const XML_BAD_VALUE: &str = "W0208";
/// An import could not be followed.
pub const W_XML_IMPORT: &str = "W0209";
/// A QName without prefix was resolved through the target namespace.
pub const W_XML_UNPREFIXED: &str = "W0210";
/// A definition was found only in a document that is not imported.
pub const W_XML_NOT_IMPORTED: &str = "W0211";
/// The same id is used twice in one document.
pub const XML_DUPLICATE_ID: &str = "E0212";

// ---- 3: TOSCA YAML (yaml::)
/// The YAML is not well-formed.
pub const YAML_SYNTAX: &str = "E0301";
/// A value has the wrong YAML kind (map, list, string).
pub const YAML_WRONG_KIND: &str = "E0302";
/// A required key is missing.
pub const YAML_MISSING_KEY: &str = "E0303";
/// A key is not known at this place.
pub const W_YAML_UNKNOWN_KEY: &str = "W0304";
/// The `tosca_definitions_version` is not supported.
pub const YAML_VERSION: &str = "E0305";
/// An import cannot be resolved (missing file, repository, network).
pub const YAML_IMPORT: &str = "E0306";
/// The document exceeds a limit (aliases, nesting, size).
pub const YAML_LIMIT: &str = "E0307";
/// A duplicate name (key) in a map.
pub const YAML_DUPLICATE: &str = "E0308";
/// A function call (`get_input`, ...) is malformed.
pub const YAML_FUNCTION: &str = "E0309";
/// A dialect that is recognised but not supported.
pub const YAML_DIALECT: &str = "E0310";
/// Something accepted leniently.
pub const W_YAML_LENIENT: &str = "W0311";
/// A file an artifact names is not in the CSAR.
pub const W_YAML_ARTIFACT_MISSING: &str = "W0312";
/// A node is delegated to the orchestrator (abstract, dangling requirement).
pub const W_YAML_DELEGATED: &str = "W0313";
/// A relationship operation needs an intermediate state of a delegated node (1.3 §7.2.1.1).
pub const W_YAML_WEAVING: &str = "W0314";
/// TOSCA grammar that toscanini recognises but does not support yet.
pub const YAML_UNSUPPORTED: &str = "E0315";
/// The catalog of TOSCA 2.0 profiles (§6.7) cannot be used: a directory
/// cannot be read, or a profile name is declared twice.
pub const YAML_PROFILE: &str = "E0316";
/// A property value is not of its type or breaks a clause of its
/// definition (constraints, validation), or a required property has none.
pub const YAML_VALUE: &str = "E0317";
/// An input value given when the plans are made (`--input NAME=VALUE`)
/// names no input of the topology, or is not NAME=VALUE on one line.
pub const INPUT_GIVEN: &str = "E0318";

// ---- 4: the topology model (model::)
/// A type reference names no known type.
pub const UNKNOWN_TYPE: &str = "E0401";
/// A relationship end names no node template, requirement or capability;
/// a policy names no target or policy template; (2.0) a requirement's
/// target does not offer its capability or does not pass its node filter.
pub const DANGLING_REFERENCE: &str = "E0402";
/// A type derives from itself.
pub const CYCLIC_DERIVATION: &str = "E0403";
/// Two definitions of the same type or template disagree.
pub const DUPLICATE_DEFINITION: &str = "E0404";
/// The service template to compile cannot be found.
pub const NO_SERVICE_TEMPLATE: &str = "E0405";
/// A relationship type derives from none of the known base types.
pub const W_UNKNOWN_RELATIONSHIP_KIND: &str = "W0406";
/// An operation has no implementation artifact.
pub const W_NO_IMPLEMENTATION: &str = "W0407";
/// A value has the wrong type.
pub const WRONG_VALUE_TYPE: &str = "E0408";
/// A duplicate template name.
pub const DUPLICATE_TEMPLATE: &str = "E0409";
/// A function refers to an input, template or property that does not exist.
pub const BAD_FUNCTION_REFERENCE: &str = "E0410";
/// A requirement cannot be matched to a target, or (1.x, or undecided)
/// its named target does not pass its node filter.
pub const W_DANGLING_REQUIREMENT: &str = "W0411";
/// A property value or template attribute is ignored.
pub const W_IGNORED: &str = "W0412";
/// A node cannot be substituted as asked: several templates substitute
/// it, the substitution is a cycle, the substituting template leaves a
/// requirement or capability of the node unmapped, an input it needs
/// gets no value, its requirement mappings take more than the node type's
/// `count_range` allows, or one onto a mandatory requirement gets none of
/// the node's relationships.
pub const SUBSTITUTION: &str = "E0413";
/// Part of a substitution the plans cannot honour: an interface mapping,
/// an attribute no output gives, a keyed attribute mapping whose reads the
/// plans cannot tell apart, an undecidable substitution filter, a
/// relationship the mapping drops (or does not copy to a selectable
/// target, 2.0 §15.5.2).
pub const W_SUBSTITUTION: &str = "W0414";

// ---- 5: plans (plan::)
/// The ordering constraints form a cycle.
pub const PLAN_CYCLE: &str = "E0501";
/// A scaling region is malformed or incomplete.
pub const REGION_INVALID: &str = "E0502";
/// An imperative workflow is malformed.
pub const WORKFLOW_INVALID: &str = "E0503";
/// A plan cannot be written back because its id is taken.
pub const PLAN_ID_TAKEN: &str = "E0504";
/// Two plans would have the same name (their workflows' or regions'
/// names differ only in characters a plan name cannot hold).
pub const PLAN_NAME_CLASH: &str = "E0507";
/// A management-feature plan (freeze, defrost, backup, test) was asked for,
/// but no node of the topology supports it.
pub const PLAN_UNSUPPORTED: &str = "E0508";
/// A freeze plan terminates a node marked stateful that cannot save its
/// state: the state is lost.
pub const W_STATE_LOST: &str = "W0509";
/// An update plan cannot stop a node that sits on the node it updates
/// (it has no lifecycle `stop`): the node keeps running through the update.
pub const W_NOT_STOPPED: &str = "W0510";
// W0511 (a transformation provisioning the target's templates in the
// source's service instance) is retired: the plans now use the target's.
/// A `ManagementOperationTest` policy names no operation of its node's
/// type: the test plan leaves the test out.
pub const W_TEST_LEFT_OUT: &str = "W0512";
/// A test policy's `TestInputParameters` or `ExpectedOutputParameters` is
/// not a JSON object of strings.
pub const TEST_POLICY_INVALID: &str = "E0513";
/// A node has a test policy the OpenTOSCA container runs itself after a
/// deployment (`HttpTest`, `TcpPingTest`, …): the test plan does not run it.
pub const W_TEST_BY_CONTAINER: &str = "W0514";
/// The service template already binds the boundary operation to another plan.
pub const W_BOUNDARY_TAKEN: &str = "W0505";
/// A scaling policy's region reaches a node without a selection strategy;
/// its first instance is used.
pub const W_REGION_DEFAULT_SELECTION: &str = "W0506";

// ---- 6: plugins (plugins::)
/// No plugin can carry out what a template needs.
pub const UNHANDLED: &str = "E0601";
/// A plugin file is malformed.
pub const PLUGIN_INVALID: &str = "E0602";
/// A required operation input cannot be bound and becomes a plan input.
pub const W_INPUT_FROM_PLAN: &str = "W0603";
/// A deployment artifact is not uploaded by the plan.
pub const W_ARTIFACT_NOT_UPLOADED: &str = "W0604";

// ---- 7: output
/// The output would overwrite the input.
pub const OUTPUT_IS_INPUT: &str = "E0701";
/// The plans cannot be written into a YAML service template's text.
pub const OUTPUT_YAML_LAYOUT: &str = "E0702";
/// The service template's TOSCA version cannot reference the plans (a
/// workflow `implementation` came with TOSCA 1.3): the archives are in
/// the CSAR, unnamed.
pub const W_PLANS_UNREFERENCED: &str = "W0703";
