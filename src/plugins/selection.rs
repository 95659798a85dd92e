//! Selection plugins (scale-out): which existing instance of a border node
//! a new region instance is attached to, and the recursive selection that
//! follows relationship instances down from it (seed 004).

use super::api::{Body, Context, Outcome, Plugin, Role};
use super::steps::{Step, Strategy};
use crate::model::TemplateRef;
use crate::names::ncname;
use crate::plan::{Activity, ActivityKind};

/// A selection strategy plugin.
pub(super) struct Selector {
    strategy: &'static str,
}

impl Selector {
    /// The three built-in strategies.
    pub(super) fn all() -> [Selector; 3] {
        [
            Selector {
                strategy: "FirstInstance",
            },
            Selector {
                strategy: "UserProvided",
            },
            Selector {
                strategy: "WorkloadBased",
            },
        ]
    }
}

impl Plugin for Selector {
    fn id(&self) -> &str {
        match self.strategy {
            "FirstInstance" => "select-first-instance",
            "UserProvided" => "select-user-provided",
            _ => "select-workload-based",
        }
    }
    fn priority(&self) -> i32 {
        0
    }
    fn role(&self) -> Role {
        Role::Selection
    }
    fn summary(&self) -> String {
        match self.strategy {
            "FirstInstance" => "FirstInstance[Node]: the first running instance the instance API lists".into(),
            "UserProvided" => "UserProvided[Node]: the instance whose id is the plan input <Node>_InstanceID".into(),
            _ => "WorkloadBased(Property)[Node]: the running instance with the lowest value of Property".into(),
        }
    }
    fn origin(&self) -> String {
        "built-in".into()
    }

    fn handle(&self, cx: &Context, activity: &Activity) -> Outcome {
        let ActivityKind::StrategicSelection(s) = &activity.kind else {
            return Outcome::NotApplicable;
        };
        let (strategy, argument) = (&s.strategy, &s.argument);
        let TemplateRef::Node(n) = activity.template else {
            return Outcome::NotApplicable;
        };
        if strategy != self.strategy {
            return Outcome::Declined(format!("implements {}, not {strategy}", self.strategy));
        }
        let node = cx.topology.node(n);
        let chosen = match self.strategy {
            "FirstInstance" => Strategy::FirstInstance,
            "UserProvided" => Strategy::UserProvided(format!("{}_InstanceID", ncname(&node.id))),
            _ => {
                let Some(property) = argument else {
                    return Outcome::Declined(format!(
                        "WorkloadBased needs the property to minimise: write WorkloadBased(Property)[{}]",
                        node.id
                    ));
                };
                if !node.properties.contains_key(property.as_str()) {
                    return Outcome::Declined(format!(
                        "`{}` has no property `{property}` to compare instances by",
                        node.id
                    ));
                }
                Strategy::WorkloadBased(property.clone())
            }
        };
        Outcome::Handled(Body {
            steps: vec![Step::SelectInstance(n, chosen)],
            ..Body::default()
        })
    }
}

/// The generic recursive selection: follow the relationship instance from
/// the selected source instance to its target instance.
pub(super) struct Recursive;

impl Plugin for Recursive {
    fn id(&self) -> &str {
        "recursive-selection"
    }
    fn priority(&self) -> i32 {
        0
    }
    fn role(&self) -> Role {
        Role::Selection
    }
    fn summary(&self) -> String {
        "recursive selection: the instance below a selected one, through its relationship instance"
            .into()
    }
    fn origin(&self) -> String {
        "built-in".into()
    }

    fn handle(&self, cx: &Context, activity: &Activity) -> Outcome {
        match (&activity.kind, activity.template) {
            (ActivityKind::RecursiveSelection, TemplateRef::Relationship(r)) => {
                let rel = cx.topology.relationship(r);
                Outcome::Handled(Body {
                    steps: vec![Step::FollowRelationship {
                        rel: r,
                        from: rel.source,
                        to: rel.target,
                    }],
                    ..Body::default()
                })
            }
            _ => Outcome::NotApplicable,
        }
    }
}
