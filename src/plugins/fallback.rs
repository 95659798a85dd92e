//! The last resort: templates that need nothing done. A node whose only
//! operations are `connectTo` (run by relationships) or management
//! features (tests, freeze/defrost, monitoring) needs no provisioning,
//! unless it carries deployment artifacts nobody would deploy; a
//! relationship without operations needs nothing run. Anything else is
//! declined, which makes it an "unhandled" error rather than an empty step.

use super::api::{Body, Context, Outcome, Plugin, Role};
use super::conventions::{CONNECT_TO, is_management_feature};
use crate::model::TemplateRef;
use crate::plan::Activity;

/// The built-in fallback plugin.
pub(super) struct Fallback;

impl Plugin for Fallback {
    fn id(&self) -> &str {
        "nothing-to-do"
    }
    fn priority(&self) -> i32 {
        -1000
    }
    fn role(&self) -> Role {
        Role::Fallback
    }
    fn summary(&self) -> String {
        "templates without operations to run: only their instances are registered".into()
    }
    fn origin(&self) -> String {
        "built-in".into()
    }

    fn handle(&self, cx: &Context, activity: &Activity) -> Outcome {
        let t = cx.topology;
        match activity.template {
            TemplateRef::Node(n) => {
                let node = t.node(n);
                let unrun: Vec<String> = node
                    .interfaces
                    .iter()
                    .filter(|i| !is_management_feature(&i.name))
                    .flat_map(|i| {
                        i.operations
                            .iter()
                            .filter(|o| &*o.name != CONNECT_TO)
                            .map(move |o| format!("`{}/{}`", i.name, o.name))
                    })
                    .collect();
                let artifacts: Vec<String> = node
                    .artifacts
                    .iter()
                    .filter(|a| !a.files.is_empty())
                    .map(|a| format!("`{}`", a.name))
                    .collect();
                if !artifacts.is_empty() {
                    // Registering the instance would pretend the artifacts
                    // were deployed.
                    Outcome::Declined(format!(
                        "the node has deployment artifacts ({}) but no operation that deploys them",
                        list(&artifacts)
                    ))
                } else if unrun.is_empty() {
                    Outcome::Handled(Body::nothing("the node type has no operations to run"))
                } else {
                    Outcome::Declined(format!(
                        "the node type offers {} but no plugin knows how they provision it",
                        list(&unrun)
                    ))
                }
            }
            TemplateRef::Relationship(r) => {
                let rel = t.relationship(r);
                let ops: Vec<String> = rel
                    .interfaces
                    .iter()
                    .chain(rel.source_interfaces.iter())
                    .chain(rel.target_interfaces.iter())
                    .flat_map(|i| {
                        i.operations
                            .iter()
                            .map(move |o| format!("`{}/{}`", i.name, o.name))
                    })
                    .collect();
                if ops.is_empty() {
                    Outcome::Handled(Body::nothing(format!(
                        "{} relationship: nothing to run",
                        rel.kind
                    )))
                } else {
                    Outcome::Declined(format!(
                        "the relationship type declares {} that no plugin runs",
                        list(&ops)
                    ))
                }
            }
        }
    }
}

fn list(items: &[String]) -> String {
    const SHOWN: usize = 4;
    if items.len() <= SHOWN {
        items.join(", ")
    } else {
        format!(
            "{} and {} more",
            items[..SHOWN].join(", "),
            items.len() - SHOWN
        )
    }
}
