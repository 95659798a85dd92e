//! The call process of a BPEL plan (`<plan>_call.bpel`): a plan that calls
//! operations through the management bus ships it, invokes the service it
//! provides, comes first in `deploy.xml` (a container takes the first
//! process of a package as the plan) and sets ODE's timeout of calls
//! between processes; a plan without calls has none of it.

use toscanini::Language;
use toscanini::plan::PlanKind;

use crate::support::{all_plans, repo};

/// The files of the BPEL plan of `kind` for the sample `sample`, by name.
fn files(sample: &str, kind: PlanKind) -> Vec<(String, String)> {
    let (loaded, plans) = all_plans(&repo().join("samples").join(sample));
    let p = plans.iter().find(|p| p.plan.kind == kind).unwrap();
    let r = toscanini::compile::render(p, &loaded.topology, Language::Bpel).unwrap();
    r.files
        .iter()
        .map(|f| (f.name.clone(), String::from_utf8(f.data.clone()).unwrap()))
        .collect()
}

fn file<'a>(files: &'a [(String, String)], name: &str) -> &'a str {
    &files
        .iter()
        .find(|(n, _)| n == name)
        .unwrap_or_else(|| panic!("no {name}"))
        .1
}

#[test]
fn a_plan_with_calls_invokes_its_call_process_which_comes_second_in_deploy_xml() {
    let files = files("tomcat-openstack", PlanKind::Build);
    let plan = "Tomcat8_OpenStack_buildPlan";
    let process = file(&files, &format!("{plan}.bpel"));
    let call = file(&files, &format!("{plan}_call.bpel"));
    let deploy = file(&files, "deploy.xml");
    // The plan's calls: an invoke of the call process each, nothing else.
    assert!(process.contains(
        "<invoke partnerLink=\"call\" operation=\"call\" inputVariable=\"message\" outputVariable=\"reply\"/>"
    ));
    for gone in [
        "<receive partnerLink=\"invoker\"",
        "<correlationSet",
        "'Fault'",
    ] {
        assert!(!process.contains(gone), "{gone} in the plan");
    }
    // The call process waits for the bus and answers a Fault as a fault.
    assert!(call.contains(&format!("<process name=\"{plan}_call\"")));
    assert!(call.contains("<correlation set=\"call\" initiate=\"yes\"/>"));
    assert!(call.contains("faultName=\"tns:InvocationFault\""));
    // deploy.xml: the plan first; its partner link `call` is bound to the
    // service the call process provides.
    let plan_at = deploy
        .find(&format!("<process name=\"tns:{plan}\">"))
        .unwrap();
    let call_at = deploy
        .find(&format!("<process name=\"tns:{plan}_call\">"))
        .unwrap();
    assert!(plan_at < call_at);
    let service = format!("<service name=\"tns:{plan}CallService\" port=\"CallPort\"/>");
    let invoke = deploy[plan_at..call_at]
        .find("<invoke partnerLink=\"call\">")
        .unwrap();
    assert!(deploy[plan_at + invoke..call_at].contains(&service));
    assert!(deploy[call_at..].contains(&format!(
        "<provide partnerLink=\"caller\">\n      {service}"
    )));
    // ODE's timeout of a call between processes: a day, not 2 minutes.
    assert!(file(&files, "call.endpoint").contains("\np2p.mex.timeout=86400000\n"));
}

#[test]
fn a_plan_without_calls_has_no_call_process() {
    let files = files("attribute-mapping-yaml", PlanKind::Termination);
    let names: Vec<&str> = files.iter().map(|(n, _)| n.as_str()).collect();
    assert_eq!(
        names,
        [
            "service_terminationPlan.bpel",
            "service_terminationPlan.wsdl",
            "deploy.xml",
            "invoker.wsdl",
            "invoker.xsd"
        ]
    );
    let deploy = file(&files, "deploy.xml");
    assert!(!deploy.contains("partnerLink=\"call\""));
    let process = file(&files, "service_terminationPlan.bpel");
    assert!(!process.contains("<partnerLink name=\"call\""));
}
