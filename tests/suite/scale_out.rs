//! Scale-out plans: strategic selection of every border node, recursive
//! selection down its hosting and dependency paths, then the region in
//! build order; the selection steps the plugins emit.

use toscanini::diagnostics::SourceMap;
use toscanini::plan::PlanKind;
use toscanini::plugins::Registry;
use toscanini::plugins::steps::{Step, Strategy};

use crate::support::{corpus_xml, id_pairs as set, plan_edges as edges, repo};

fn plan(
    path: &std::path::Path,
    region: &str,
) -> (toscanini::Loaded, toscanini::plugins::ConcretePlan) {
    let mut sources = SourceMap::new();
    let options = toscanini::Options::default();
    let loaded = toscanini::load(path, &options, &mut sources).unwrap();
    let (registry, _) = Registry::standard(&[], &mut sources).unwrap();
    let (mut plans, _) = toscanini::derive(
        &loaded.topology,
        &[PlanKind::ScaleOut(region.into())],
        &registry,
        &options,
    )
    .unwrap();
    (loaded, plans.remove(0))
}

#[test]
fn selections_come_before_the_region_is_provisioned() {
    let (_, p) = plan(&repo().join("samples/petclinic-scale-out"), "AddPetClinic");
    assert_eq!(
        edges(&p.plan),
        set(&[
            // Tomcat is selected, then the instances below it: Java, the VM, OpenStack.
            ("Tomcat_9_select", "con_DependsOn_0_follow"),
            ("Tomcat_9_select", "con_HostedOn_0_follow"),
            ("con_DependsOn_0_follow", "con_HostedOn_3_follow"),
            ("con_HostedOn_3_follow", "con_HostedOn_2_follow"),
            // The database, its DBMS and their VM.
            ("MySQL-DB_select", "con_HostedOn_1_follow"),
            ("con_HostedOn_1_follow", "con_HostedOn_4_follow"),
            // The new PetClinic: hosted on the selected Tomcat, connected to the selected database.
            ("con_HostedOn_0_follow", "con_171_provision"),
            ("con_HostedOn_2_follow", "con_171_provision"),
            ("con_171_provision", "PetClinic_provision"),
            ("PetClinic_provision", "con_183_provision"),
            ("con_HostedOn_4_follow", "con_183_provision"),
        ])
    );
    let select = |id: &str| {
        let i = p.plan.activities.iter().position(|a| a.id == id).unwrap();
        p.bodies[i].steps.clone()
    };
    let tomcat = select("Tomcat_9_select");
    assert!(
        matches!(
            tomcat.as_slice(),
            [Step::SelectInstance(_, Strategy::FirstInstance)]
        ),
        "{tomcat:?}"
    );
    let db = select("MySQL-DB_select");
    assert!(
        matches!(db.as_slice(), [Step::SelectInstance(_, Strategy::UserProvided(i))] if i == "MySQL-DB_InstanceID"),
        "{db:?}"
    );
    assert!(p.inputs.contains(&"MySQL-DB_InstanceID".to_string()));
    assert!(
        p.inputs
            .contains(&"OpenTOSCAContainerAPIServiceInstanceURL".to_string())
    );
}

#[test]
fn the_tagged_corpus_csars_get_scale_out_plans() {
    let tagged = [
        "opentosca-test__MyTinyToDo-DockerEngine-Test_w1-wip1.csar",
        "opentosca-test__MultiMyTinyToDo-DockerEngine-Test_w1-wip1.csar",
        "opentosca-public__MyTinyToDo_Bare_Docker.csar",
    ];
    for csar in corpus_xml()
        .into_iter()
        .filter(|p| tagged.iter().any(|t| p.ends_with(t)))
    {
        let (loaded, p) = plan(&csar, "scaleout_dockercontainer");
        let t = &loaded.topology;
        let kinds: Vec<(&str, &str)> = p
            .plan
            .activities
            .iter()
            .map(|a| (t.template_id(a.template), a.kind.name()))
            .collect();
        // The engine is selected (even though it was running when built),
        // then the container's hosting relationship, then the container.
        assert_eq!(kinds.len(), 3, "{csar:?}");
        assert_eq!(kinds[0].1, "select");
        assert_eq!(kinds[1].1, "provision");
        assert_eq!(kinds[2].1, "provision");
        assert!(matches!(
            p.bodies[0].steps.as_slice(),
            [Step::SelectInstance(_, Strategy::FirstInstance)]
        ));
    }
}

#[test]
fn a_yaml_scaling_policy_scales_its_target_with_the_stack_on_it() {
    let (loaded, p) = plan(
        &repo().join("samples/shop-scale-out-yaml"),
        "shop_scale_out",
    );
    let region = &loaded.topology.regions[0];
    let ids = |nodes: &[toscanini::model::NodeId]| -> Vec<String> {
        nodes
            .iter()
            .map(|&n| loaded.topology.node(n).id.clone())
            .collect()
    };
    // The target, and what is hosted on it; the database is shared.
    assert_eq!(ids(&region.nodes), ["web_server", "web", "shop"]);
    assert_eq!(
        edges(&p.plan),
        set(&[
            // The database with the lowest load, then the stack below it.
            ("db_select", "db_host_follow"),
            ("db_host_follow", "dbms_host_follow"),
            // The new server and its stack, in build order.
            ("web_server_provision", "web_host_provision"),
            ("web_host_provision", "web_provision"),
            ("web_provision", "shop_host_provision"),
            ("shop_host_provision", "shop_provision"),
            // The new shop connects to the selected database.
            ("shop_provision", "shop_database_provision"),
            ("dbms_host_follow", "shop_database_provision"),
        ])
    );
    assert!(
        matches!(
            p.bodies[0].steps.as_slice(),
            [Step::SelectInstance(_, Strategy::WorkloadBased(prop))] if prop == "load"
        ),
        "{:?}",
        p.bodies[0].steps
    );
}
