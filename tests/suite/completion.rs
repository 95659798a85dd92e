//! Completing a large plan on several threads: the bodies, decisions and
//! diagnostics of its activities come in the plan's order, as on one.

use toscanini::diagnostics::{Diagnostic, SourceMap};
use toscanini::plan::{Activity, PlanKind};
use toscanini::plugins::Registry;
use toscanini::plugins::api::{Body, Context, Outcome, Plugin, Role};

use crate::support::temp_dir;

/// Handles every activity with nothing, warning with its id.
struct Echo;

impl Plugin for Echo {
    fn id(&self) -> &str {
        "test.echo"
    }
    fn priority(&self) -> i32 {
        0
    }
    fn role(&self) -> Role {
        Role::Lifecycle
    }
    fn summary(&self) -> String {
        "every activity, with a warning naming it".into()
    }
    fn origin(&self) -> String {
        "test".into()
    }
    fn handle(&self, _cx: &Context, activity: &Activity) -> Outcome {
        Outcome::Handled(Body {
            warnings: vec![Diagnostic::warning("W0000", activity.id.clone())],
            ..Body::nothing(activity.id.clone())
        })
    }
}

#[test]
fn a_large_plan_is_completed_in_activity_order() {
    // Enough activities for several threads (complete.rs: 512 each).
    let n = 6_000;
    let mut yaml = String::from(
        "tosca_definitions_version: tosca_simple_yaml_1_3\ntopology_template:\n  node_templates:\n",
    );
    for i in 0..n {
        yaml.push_str(&format!("    t{i}:\n      type: tosca.nodes.Root\n"));
    }
    let dir = temp_dir("completion");
    let file = dir.join("many.yaml");
    std::fs::write(&file, yaml).unwrap();
    let mut sources = SourceMap::new();
    let options = toscanini::Options::default();
    let loaded = toscanini::load(&file, &options, &mut sources).unwrap();
    let registry = Registry::new(vec![Box::new(Echo)]);
    let (plans, diags) =
        toscanini::derive(&loaded.topology, &[PlanKind::Build], &registry, &options).unwrap();
    let plan = &plans[0];
    let ids: Vec<&str> = plan.plan.activities.iter().map(|a| a.id.as_str()).collect();
    assert_eq!(ids.len(), n);
    let warned: Vec<&str> = diags.iter().map(|d| d.message.as_str()).collect();
    assert_eq!(warned, ids);
    let noted: Vec<&str> = plan.decisions.iter().map(|d| d.notes[0].as_str()).collect();
    assert_eq!(noted, ids);
    assert_eq!(plan.bodies.len(), n);
}
