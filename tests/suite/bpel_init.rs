//! How a BPEL plan sets its variables before the activities run: every
//! variable is set before an expression reads it (ODE faults a read of an
//! uninitialised variable, `bpel:uninitializedVariable`).

use toscanini::Language;
use toscanini::plan::PlanKind;

use crate::support::{all_plans, shared};

/// The text of the build plan's BPEL process for `input`.
fn build_bpel(input: &std::path::Path) -> String {
    let (loaded, plans) = all_plans(input);
    let p = plans
        .iter()
        .find(|p| p.plan.kind == PlanKind::Build)
        .unwrap();
    crate::support::main_file(p, &loaded.topology, Language::Bpel)
}

/// Where `needle` first is in the plan `bpel`.
fn first(bpel: &str, needle: &str) -> usize {
    bpel.find(needle)
        .unwrap_or_else(|| panic!("{needle} not in the plan"))
}

/// Puccini's source-and-target: a relationship property (a string
/// variable) is computed from a node's property (an element of the node's
/// document). It is set once that document is, not in the first
/// initialisation, where the document has no value yet.
#[test]
fn a_computed_property_is_set_after_the_documents_it_reads() {
    let input = shared().join("corpus/yaml/puccini/examples/tour/source-and-target.yaml");
    let bpel = build_bpel(&input);
    let at = |needle: &str| first(&bpel, needle);
    let location = "<copy><from>concat('/mnt/', $prop_storage/*:volume_id)</from><to variable=\"prop_server_local_storage_location\"/></copy>";
    let document = "<copy><from>'bucket'</from><to>$prop_storage/*:volume_id</to></copy>";
    let first = "<copy><from>''</from><to variable=\"prop_server_local_storage_location\"/></copy>";
    assert!(at(first) < at(document));
    assert!(at(document) < at(location));
    assert!(at("<assign name=\"initializeProperties\">") < at(location));
}

/// A relationship's own calls run before its instance exists (a
/// ConnectsTo is registered after its operations, once both ends are up)
/// and name that instance's id in their message id: the id starts empty,
/// or ODE faults the first call (`uninitializedVariable`).
#[test]
fn a_relationship_id_its_calls_read_before_it_exists_starts_empty() {
    let input = shared().join("corpus/xml/opentosca-example__MyTinyToDo-MySql_Docker-w1.csar");
    let bpel = build_bpel(&input);
    let at = |needle: &str| first(&bpel, needle);
    let empty = "<copy><from>''</from><to variable=\"inst_con_ConnectsTo_0_id\"/></copy>";
    let call = "':con_ConnectsTo_0_provision_s1:', $inst_con_ConnectsTo_0_id)";
    let created = "<to variable=\"inst_con_ConnectsTo_0_id\"/></copy></assign>";
    assert!(at(empty) < at(call));
    assert!(at(call) < bpel.rfind(created).unwrap());
}
