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

/// Puccini's source-and-target: a relationship property (a string
/// variable) is computed from a node's property (an element of the node's
/// document). It is set once that document is, not in the first
/// initialisation, where the document has no value yet.
#[test]
fn a_computed_property_is_set_after_the_documents_it_reads() {
    let input = shared().join("corpus/yaml/puccini/examples/tour/source-and-target.yaml");
    let bpel = build_bpel(&input);
    let at = |needle: &str| {
        bpel.find(needle)
            .unwrap_or_else(|| panic!("{needle} not in the plan"))
    };
    let location = "<copy><from>concat('/mnt/', $prop_storage/*:volume_id)</from><to variable=\"prop_server_local_storage_location\"/></copy>";
    let document = "<copy><from>'bucket'</from><to>$prop_storage/*:volume_id</to></copy>";
    let first = "<copy><from>''</from><to variable=\"prop_server_local_storage_location\"/></copy>";
    assert!(at(first) < at(document));
    assert!(at(document) < at(location));
    assert!(at("<assign name=\"initializeProperties\">") < at(location));
}

/// An instance's URL is set empty first only where a fault handler may
/// read it before the activity sets it (`$url != ''`, marking the
/// instance ERROR); ids and the URLs of relationships whose ends register
/// them are read only after they are set, so they start unset.
#[test]
fn only_the_urls_a_fault_handler_reads_are_set_empty_first() {
    let bpel = build_bpel(&crate::support::repo().join("samples/tomcat-openstack"));
    let empty = |var: &str| format!("<copy><from>''</from><to variable=\"{var}\"/></copy>");
    assert!(bpel.contains("<condition>$inst_Java8_url != ''</condition>"));
    assert!(bpel.contains(&empty("inst_Java8_url")));
    // con_22 (Java8 HostedOn the VM) does nothing: Java8's activity
    // registers its instance.
    assert!(bpel.contains("<variable name=\"inst_con_22_url\" type=\"xsd:string\"/>"));
    assert!(!bpel.contains(&empty("inst_con_22_url")));
    assert!(bpel.contains("<variable name=\"inst_Java8_id\" type=\"xsd:string\"/>"));
    assert!(!bpel.contains(&empty("inst_Java8_id")));
}
