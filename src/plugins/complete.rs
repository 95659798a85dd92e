//! Completing an abstract plan: every activity is offered to the plugins in
//! registry order; the first that handles it provides its steps. Around
//! them the instance-data steps every activity needs are added (register
//! the instance, store properties, final state), termination activities
//! loop over all instances, and the plan's inputs and outputs are
//! collected. A template nobody handles is an error naming it and every
//! plugin's reason to decline (a warning with `allow_unhandled`).

use foldhash::{HashMap, HashSet};
use std::collections::BTreeSet;

use super::api::{Body, Context, Outcome, PluginOptions, Role};
use super::registry::Registry;
use super::steps::{Binding, Step, state};
use crate::diagnostics::{Diagnostic, Diagnostics, codes};
use crate::model::{NodeId, RelKind, TemplateRef, Topology, Value};
use crate::plan::{AbstractPlan, Activity, ActivityKind, PlanKind};

/// Options for completion.
#[derive(Clone, Debug, Default)]
pub struct CompleteOptions {
    /// Plugin behaviour switches.
    pub plugins: PluginOptions,
    /// Turn "no plugin handles this template" into a warning.
    pub allow_unhandled: bool,
    /// Record only which plugin handled each activity, not why the others
    /// declined nor the plugins' notes (the decision log is for
    /// `--explain`; building it for every activity of a big topology costs
    /// time and memory). Reasons are still gathered for an activity nobody
    /// handles, for its error.
    pub brief: bool,
}

/// The steps of one activity.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ActivityBody {
    /// Steps, in order.
    pub steps: Vec<Step>,
    /// Steps that undo the activity when the plan fails later.
    pub compensation: Vec<Step>,
    /// Run the steps once per existing instance of the template
    /// (termination), instead of once for a new instance.
    pub per_instance: bool,
}

impl ActivityBody {
    /// Whether the activity does nothing: no steps, nothing to undo, not
    /// run per instance (a relationship whose ends' activities register
    /// its instance). Plans keep its place in the order, and it writes no
    /// plan instance log entries.
    pub fn does_nothing(&self) -> bool {
        self.steps.is_empty() && self.compensation.is_empty() && !self.per_instance
    }

    /// The nodes whose instances the steps find by following a
    /// relationship from the activity's instance, in step order.
    pub(crate) fn followed(&self) -> impl Iterator<Item = TemplateRef> + '_ {
        self.steps.iter().filter_map(|s| match s {
            Step::FollowRelationship { to, .. } => Some(TemplateRef::Node(*to)),
            _ => None,
        })
    }
}

/// Which plugin handled an activity and why the others did not.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Decision {
    /// The plugin that handled it; `None` if nobody did.
    pub plugin: Option<std::sync::Arc<str>>,
    /// Plugins asked before it, with their reasons.
    pub declined: Vec<(String, String)>,
    /// Facts recorded while handling.
    pub notes: Vec<String>,
}

/// A plan with the steps of every activity.
#[derive(Clone, Debug)]
pub struct ConcretePlan {
    /// The topology the plan was completed against, when it is not the
    /// input's: a test plan's nodes have a property per test output (see
    /// `testing::with_results`). Render the plan with [`ConcretePlan::topology`].
    pub own_topology: Option<std::sync::Arc<Topology>>,
    /// The abstract plan.
    pub plan: AbstractPlan,
    /// One body per activity (same indexes).
    pub bodies: Vec<ActivityBody>,
    /// One decision per activity (same indexes).
    pub decisions: Vec<Decision>,
    /// Plan inputs, in order: the container's fixed ones, then the rest.
    pub inputs: Vec<String>,
    /// Plan outputs and where their values come from.
    pub outputs: Vec<(String, Binding)>,
}

impl ConcretePlan {
    /// The topology to render the plan with: its own, or else `input`.
    pub fn topology<'a>(&'a self, input: &'a Topology) -> &'a Topology {
        self.own_topology.as_deref().unwrap_or(input)
    }
}

/// Inputs every plan receives from the OpenTOSCA container.
pub const CORRELATION_ID: &str = "CorrelationID";
/// The service template's instances URL (`…/servicetemplates/<st>/instances`).
pub const INSTANCE_DATA_API_URL: &str = "instanceDataAPIUrl";
/// Base URL of the CSAR's files in the container.
pub const CSAR_ENTRYPOINT: &str = "csarEntrypoint";
/// URL of the service instance a non-build plan works on.
pub const SERVICE_INSTANCE_URL: &str = "OpenTOSCAContainerAPIServiceInstanceURL";

/// Complete `plan` with the registry's plugins.
pub fn complete(
    topology: &Topology,
    plan: AbstractPlan,
    registry: &Registry,
    options: &CompleteOptions,
) -> (Option<ConcretePlan>, Diagnostics) {
    // A test plan keeps what its tests report in properties of its own.
    let own_topology = (plan.kind == PlanKind::Test)
        .then(|| std::sync::Arc::new(super::testing::with_results(topology)));
    let topology = own_topology.as_deref().unwrap_or(topology);
    let mut diags = Diagnostics::new();
    if plan.kind == PlanKind::Freeze {
        for d in state_lost(topology, &plan) {
            diags.push(d);
        }
    }
    if plan.kind == PlanKind::Test {
        for d in super::test_policies::diagnostics(topology) {
            diags.push(d);
        }
    }
    let cx = Context {
        topology,
        plan: &plan,
        options: &options.plugins,
        reasons: !options.brief,
    };
    let in_plan: HashSet<TemplateRef> = plan.activities.iter().map(|a| a.template).collect();
    let (bodies, decisions) = complete_activities(&cx, registry, &in_plan, options, &mut diags);
    if diags.has_errors() {
        return (None, diags);
    }
    let inputs = collect_inputs(topology, &plan, &bodies);
    let outputs = match plan.kind {
        PlanKind::Test => super::testing::result_outputs(topology),
        PlanKind::Build => topology
            .outputs
            .iter()
            .map(|o| {
                (
                    o.name.clone(),
                    crate::plugins::params::value_binding(
                        topology,
                        TemplateRef::Node(NodeId(0)),
                        &o.value,
                    ),
                )
            })
            .collect(),
        _ => Vec::new(),
    };
    (
        Some(ConcretePlan {
            own_topology,
            plan,
            bodies,
            decisions,
            inputs,
            outputs,
        }),
        diags,
    )
}

/// Activities per thread below which completing them on one thread is
/// as fast (a thread costs tens of microseconds; an activity a few).
const PER_THREAD: usize = 512;

/// The body and decision of every activity of `cx.plan`, in order, on as
/// many threads as the machine has cores: activities are completed each on
/// its own, and completing a large plan's is a serial stretch of the run
/// with a core idle otherwise. Diagnostics come in activity order.
fn complete_activities(
    cx: &Context,
    registry: &Registry,
    in_plan: &HashSet<TemplateRef>,
    options: &CompleteOptions,
    diags: &mut Diagnostics,
) -> (Vec<ActivityBody>, Vec<Decision>) {
    let activities = &cx.plan.activities;
    let threads = std::thread::available_parallelism()
        .map(|n| n.get())
        .unwrap_or(1)
        .min(activities.len() / PER_THREAD)
        .max(1);
    let chunk = activities.len().div_ceil(threads).max(1);
    // Written in place, each thread its own part: collecting each part and
    // joining them held a large plan's bodies twice (30 MB at 100k nodes).
    let mut bodies: Vec<ActivityBody> = Vec::new();
    bodies.resize_with(activities.len(), ActivityBody::default);
    let mut decisions: Vec<Decision> = Vec::new();
    decisions.resize_with(activities.len(), Decision::default);
    let run = |part: &[Activity], bodies: &mut [ActivityBody], decisions: &mut [Decision]| {
        let mut diags = Diagnostics::new();
        for ((activity, body), decision) in part.iter().zip(bodies).zip(decisions) {
            let (b, d) = complete_activity(cx, registry, in_plan, activity, options, &mut diags);
            *body = b;
            *decision = d;
        }
        diags
    };
    let parts: Vec<Diagnostics> = if threads == 1 {
        vec![run(activities, &mut bodies, &mut decisions)]
    } else {
        std::thread::scope(|scope| {
            let handles: Vec<_> = activities
                .chunks(chunk)
                .zip(bodies.chunks_mut(chunk))
                .zip(decisions.chunks_mut(chunk))
                .map(|((part, b), d)| scope.spawn(move || run(part, b, d)))
                .collect();
            handles
                .into_iter()
                .map(|h| h.join().unwrap_or_else(|e| std::panic::resume_unwind(e)))
                .collect()
        })
    };
    for g in parts {
        diags.extend(g);
    }
    (bodies, decisions)
}

/// One activity's body (its plugin's steps with the instance-data steps
/// around them) and the decision that chose it.
fn complete_activity(
    cx: &Context,
    registry: &Registry,
    in_plan: &HashSet<TemplateRef>,
    activity: &Activity,
    options: &CompleteOptions,
    diags: &mut Diagnostics,
) -> (ActivityBody, Decision) {
    let topology = cx.topology;
    let mut decision = Decision::default();
    // The decision log is kept when the plugins' reasons are read.
    let record = cx.reasons;
    let mut handled = ask_all(cx, registry, activity, &mut decision);
    if handled.is_none() && !record {
        // Nobody handles it: ask again, keeping every reason for the error.
        let cx = &Context {
            reasons: true,
            ..*cx
        };
        handled = ask_all(cx, registry, activity, &mut decision);
    }
    let body = match handled {
        Some(mut body) => {
            super::operations::carry_out(cx, registry, &mut body, record);
            for w in body.warnings.drain(..) {
                diags.push(w);
            }
            if record {
                decision.notes.append(&mut body.notes);
            }
            body
        }
        None => {
            diags.push(unhandled(
                topology,
                activity,
                &decision,
                &cx.plan.kind,
                options.allow_unhandled,
            ));
            decision
                .notes
                .push("no plugin handled this activity; it does nothing".into());
            Body::default()
        }
    };
    let mut body = wrap(topology, in_plan, activity, body);
    // A plan holds a body per activity, hundreds of thousands of them:
    // no room to spare in each.
    body.steps.shrink_to_fit();
    body.compensation.shrink_to_fit();
    (body, decision)
}

/// The body of an activity. A freeze is the node's termination after its
/// state is saved, a defrost its provisioning before its state is
/// restored: the feature plugin's steps joined with those of the plugin
/// that terminates or provisions the node.
fn ask_all(
    cx: &Context,
    registry: &Registry,
    activity: &Activity,
    decision: &mut Decision,
) -> Option<Body> {
    let base = match activity.kind {
        // Instance data only: no plugin is asked (see `wrap`).
        ActivityKind::Migrate => {
            decision.plugin = Some(std::sync::Arc::from("toscanini.migration"));
            return Some(Body::default());
        }
        ActivityKind::Freeze => ActivityKind::Terminate,
        ActivityKind::Defrost => ActivityKind::Provision,
        _ => return ask(cx, registry, activity, decision),
    };
    let mut feature = ask(cx, registry, activity, decision)?;
    let as_base = Activity {
        kind: base,
        ..activity.clone()
    };
    let mut base_decision = Decision::default();
    let Some(mut body) = ask(cx, registry, &as_base, &mut base_decision) else {
        decision.plugin = None;
        decision.declined.append(&mut base_decision.declined);
        return None;
    };
    if let Some(p) = &base_decision.plugin {
        feature.notes.push(format!(
            "{} by plugin `{p}`",
            if activity.kind == ActivityKind::Freeze {
                "terminated"
            } else {
                "provisioned"
            }
        ));
    }
    feature.notes.append(&mut body.notes);
    feature.warnings.append(&mut body.warnings);
    feature.compensation = body.compensation;
    if activity.kind == ActivityKind::Freeze {
        feature.steps.append(&mut body.steps);
    } else {
        body.steps.append(&mut feature.steps);
        feature.steps = body.steps;
    }
    Some(feature)
}

/// Warnings for the nodes a freeze plan terminates that are marked
/// stateful but cannot save their state (OpenTOSCA leaves them out of the
/// plan silently, running on hosts it terminates).
fn state_lost(topology: &Topology, plan: &AbstractPlan) -> Vec<Diagnostic> {
    use crate::plan::features::{STATEFUL, freezable, has_policy};
    plan.activities
        .iter()
        .filter(|a| a.kind == ActivityKind::Terminate)
        .filter_map(|a| match a.template {
            TemplateRef::Node(n) if has_policy(topology, n, STATEFUL) => {
                let why = freezable(topology, n).err()?;
                let node = topology.node(n);
                Some(
                    Diagnostic::warning(
                        codes::W_STATE_LOST,
                        format!(
                            "the freeze plan terminates `{}`, which is stateful but cannot be frozen: its state is lost",
                            node.id
                        ),
                    )
                    .at_opt(node.origin.clone())
                    .note(why),
                )
            }
            _ => None,
        })
        .collect()
}

/// Offer `activity` to the plugins in registry order; the first that
/// handles it gives the body. Declines are recorded when their reasons
/// are read ([`Context::reasons`]).
fn ask(
    cx: &Context,
    registry: &Registry,
    activity: &Activity,
    decision: &mut Decision,
) -> Option<Body> {
    let selecting = matches!(
        activity.kind,
        ActivityKind::StrategicSelection(_) | ActivityKind::RecursiveSelection
    );
    let feature = activity.kind.is_feature();
    for (i, plugin) in registry.plugins().iter().enumerate() {
        // Selection plugins select; feature plugins save state and test;
        // operation plugins are asked about the calls in a body (later);
        // all others provision and terminate.
        if selecting != (plugin.role() == Role::Selection)
            || feature != (plugin.role() == Role::Feature)
            || plugin.role() == Role::Operation
        {
            continue;
        }
        match plugin.handle(cx, activity) {
            Outcome::Handled(body) => {
                decision.plugin = Some(registry.id(i));
                return Some(body);
            }
            Outcome::Declined(why) if cx.reasons => {
                decision.declined.push((plugin.id().to_string(), why))
            }
            Outcome::Declined(_) | Outcome::NotApplicable => {}
        }
    }
    None
}

fn unhandled(
    topology: &Topology,
    activity: &Activity,
    decision: &Decision,
    kind: &PlanKind,
    allow: bool,
) -> Diagnostic {
    let (what, origin, type_name) = match activity.template {
        TemplateRef::Node(n) => {
            let node = topology.node(n);
            (
                "node template",
                node.origin.clone(),
                topology.types.get(node.type_id).name.to_string(),
            )
        }
        TemplateRef::Relationship(r) => {
            let rel = topology.relationship(r);
            (
                "relationship template",
                rel.origin.clone(),
                topology.types.get(rel.type_id).name.to_string(),
            )
        }
    };
    let verb = match activity.kind {
        ActivityKind::Terminate => "terminate",
        ActivityKind::Freeze => "freeze",
        ActivityKind::Defrost => "defrost",
        ActivityKind::Backup => "back up",
        ActivityKind::Test(_) | ActivityKind::TestPolicy(_) => "test",
        ActivityKind::Stop => "stop",
        ActivityKind::Start => "start",
        ActivityKind::Update => "update",
        _ => "provision",
    };
    let message = format!(
        "no plugin can {verb} {what} `{}` (type `{type_name}`) in the {} plan",
        topology.template_id(activity.template),
        kind.slug()
    );
    let mut d = if allow {
        Diagnostic::warning(codes::UNHANDLED, message)
    } else {
        Diagnostic::error(codes::UNHANDLED, message)
    };
    d = d.at_opt(origin);
    for (plugin, why) in &decision.declined {
        d = d.note(format!("{plugin}: {why}"));
    }
    d.hint("add a plugin for this type (see plugins/README.md), or pass --allow-unhandled to generate the plan without it")
}

/// Set the final state unless the template's last state step set it
/// already and only bookkeeping followed (a lifecycle that ends with
/// `start` and its STARTED, then relationships registered and properties
/// stored; or with `delete` and its DELETED): one request, not two. An
/// operation after it (a defrost's restore) is part of reaching the state.
fn push_final_state(out: &mut Vec<Step>, template: TemplateRef, final_state: &'static str) {
    for step in out.iter().rev() {
        match step {
            Step::SetState(t, s) if *t == template => {
                if *s == final_state {
                    return;
                }
                break;
            }
            Step::SetState(..) | Step::CreateRelationshipInstance(_) | Step::StoreProperties(_) => {
            }
            _ => break,
        }
    }
    out.push(Step::SetState(template, final_state));
}

/// The steps that migrate a kept node of a transformation: find the
/// source's instance, register the node's instance in the target's
/// service instance (with the relationships it registers when
/// provisioned), and give it the source instance's properties and state.
fn migrate_node(topology: &Topology, in_plan: &HashSet<TemplateRef>, n: NodeId) -> Vec<Step> {
    let template = TemplateRef::Node(n);
    let Some(TemplateRef::Node(from)) = topology
        .target
        .as_deref()
        .and_then(|t| t.migrated_from(template))
    else {
        return Vec::new();
    };
    let mut out = vec![
        Step::SelectInstance(from, super::steps::Strategy::FirstInstance),
        Step::CreateNodeInstance(n),
    ];
    register_own_relationships(topology, in_plan, n, &mut out);
    out.push(Step::CopyProperties { from, to: n });
    out.push(Step::StoreProperties(n));
    // The source instance was selected among the started ones.
    out.push(Step::SetState(template, state::STARTED));
    out
}

/// Register the instances of `n`'s relationships that order their target
/// first: only when `n`'s instance exists do both ends exist. (Those
/// ordered after both ends are registered by their own activity.)
fn register_own_relationships(
    topology: &Topology,
    in_plan: &HashSet<TemplateRef>,
    n: NodeId,
    out: &mut Vec<Step>,
) {
    for &r in topology.outgoing(n) {
        if in_plan.contains(&TemplateRef::Relationship(r))
            && !after_both(topology.relationship(r).kind)
        {
            out.push(Step::CreateRelationshipInstance(r));
            out.push(Step::SetState(TemplateRef::Relationship(r), state::CREATED));
        }
    }
}

/// Add the instance-data steps around a plugin's body.
fn wrap(
    topology: &Topology,
    in_plan: &HashSet<TemplateRef>,
    activity: &Activity,
    body: Body,
) -> ActivityBody {
    let Body {
        steps,
        compensation,
        ..
    } = body;
    let mut out = Vec::with_capacity(steps.len() + 4);
    match (activity.kind.clone(), activity.template) {
        (ActivityKind::Provision | ActivityKind::Defrost, TemplateRef::Node(n)) => {
            out.push(Step::CreateNodeInstance(n));
            out.extend(steps);
            register_own_relationships(topology, in_plan, n, &mut out);
            out.push(Step::StoreProperties(n));
            push_final_state(&mut out, activity.template, state::STARTED);
            ActivityBody {
                steps: out,
                compensation,
                per_instance: false,
            }
        }
        (ActivityKind::Migrate, TemplateRef::Node(n)) => ActivityBody {
            steps: migrate_node(topology, in_plan, n),
            compensation,
            per_instance: false,
        },
        (ActivityKind::Migrate | ActivityKind::Provision, TemplateRef::Relationship(r)) => {
            out.extend(steps);
            if after_both(topology.relationship(r).kind) {
                out.push(Step::CreateRelationshipInstance(r));
                out.push(Step::SetState(activity.template, state::CREATED));
            }
            ActivityBody {
                steps: out,
                compensation,
                per_instance: false,
            }
        }
        (ActivityKind::Terminate | ActivityKind::Freeze, TemplateRef::Node(n)) => {
            out.extend(follow_stack(topology, n, &steps));
            out.extend(steps);
            push_final_state(&mut out, activity.template, state::DELETED);
            ActivityBody {
                steps: out,
                compensation,
                per_instance: true,
            }
        }
        (ActivityKind::Terminate, TemplateRef::Relationship(_)) => {
            out.extend(steps);
            push_final_state(&mut out, activity.template, state::DELETED);
            ActivityBody {
                steps: out,
                compensation,
                per_instance: true,
            }
        }
        // Backups, tests and the activities of an update run on every
        // instance, which stays.
        (
            ActivityKind::Backup
            | ActivityKind::Test(_)
            | ActivityKind::TestPolicy(_)
            | ActivityKind::Stop
            | ActivityKind::Start
            | ActivityKind::Update,
            TemplateRef::Node(n),
        ) => {
            out.extend(follow_stack(topology, n, &steps));
            out.extend(steps);
            ActivityBody {
                steps: out,
                compensation,
                per_instance: true,
            }
        }
        // Imperative workflow steps work on existing instances, except in
        // a build plan made from a `deploy` workflow.
        (ActivityKind::Step(s), _) => ActivityBody {
            steps,
            compensation,
            per_instance: s.existing,
        },
        (_, _) => ActivityBody {
            steps,
            compensation,
            per_instance: false,
        },
    }
}

/// Relationships whose instance is created by their own activity, after
/// both ends exist (in build order they come after both).
fn after_both(kind: RelKind) -> bool {
    kind == RelKind::ConnectsTo
}

/// In a termination loop only the node's own instance is known; find the
/// instances of the nodes below it that the steps read, by following
/// relationship instances down the stack.
fn follow_stack(topology: &Topology, n: NodeId, steps: &[Step]) -> Vec<Step> {
    let mut needed: BTreeSet<NodeId> = BTreeSet::new();
    for step in steps {
        if let Step::Invoke(inv) = step {
            if let TemplateRef::Node(t) = inv.target {
                needed.insert(t);
            }
            for (_, b) in &inv.inputs {
                binding_nodes(b, &mut needed);
            }
            for (_, p) in &inv.outputs {
                if let TemplateRef::Node(t) = p.template {
                    needed.insert(t);
                }
            }
        }
    }
    needed.remove(&n);
    if needed.is_empty() {
        return Vec::new();
    }
    // Breadth-first down the stack, remembering how each node was reached
    // (a map, not a vector per node of the topology: this runs for every
    // termination activity).
    let mut via: HashMap<NodeId, (crate::model::RelId, NodeId)> = HashMap::default();
    let mut seen: HashSet<NodeId> = HashSet::from_iter([n]);
    let mut frontier = vec![n];
    while !frontier.is_empty() {
        let mut next = Vec::new();
        for cur in frontier {
            for &r in topology.outgoing(cur) {
                let rel = topology.relationship(r);
                if rel.kind.is_infrastructure() && seen.insert(rel.target) {
                    via.insert(rel.target, (r, cur));
                    next.push(rel.target);
                }
            }
        }
        frontier = next;
    }
    let mut steps_out = Vec::new();
    let mut done: HashSet<NodeId> = HashSet::from_iter([n]);
    for target in needed {
        let mut chain = Vec::new();
        let mut cur = target;
        while !done.contains(&cur) {
            let Some(&(r, from)) = via.get(&cur) else {
                break;
            };
            chain.push(Step::FollowRelationship {
                rel: r,
                from,
                to: cur,
            });
            cur = from;
        }
        if done.contains(&cur) {
            chain.reverse();
            for s in chain {
                if let Step::FollowRelationship { to, .. } = &s {
                    done.insert(*to);
                }
                steps_out.push(s);
            }
        }
    }
    steps_out
}

fn binding_nodes(b: &Binding, out: &mut BTreeSet<NodeId>) {
    match b {
        Binding::Property(p) => {
            if let TemplateRef::Node(n) = p.template {
                out.insert(n);
            }
        }
        Binding::InstanceId(TemplateRef::Node(n)) => {
            out.insert(*n);
        }
        Binding::Concat(parts) | Binding::Function(_, parts) => {
            parts.iter().for_each(|p| binding_nodes(p, out))
        }
        _ => {}
    }
}

fn collect_inputs(
    topology: &Topology,
    plan: &AbstractPlan,
    bodies: &[ActivityBody],
) -> Vec<String> {
    let mut inputs: Vec<String> = match plan.kind {
        PlanKind::Build | PlanKind::Defrost => vec![
            CORRELATION_ID.into(),
            INSTANCE_DATA_API_URL.into(),
            CSAR_ENTRYPOINT.into(),
        ],
        _ => vec![
            CORRELATION_ID.into(),
            INSTANCE_DATA_API_URL.into(),
            CSAR_ENTRYPOINT.into(),
            SERVICE_INSTANCE_URL.into(),
        ],
    };
    let mut seen: HashSet<String> = inputs.iter().cloned().collect();
    let mut add = |name: &str, inputs: &mut Vec<String>| {
        if seen.insert(name.to_string()) {
            inputs.push(name.to_string());
        }
    };
    // Property values given as inputs initialise the property variables of
    // new instances; existing instances are read from the instance data.
    for a in plan.activities.iter().filter(|a| a.kind.provisions()) {
        for v in topology.properties(a.template).values() {
            value_inputs(v, &mut |n| add(n, &mut inputs));
        }
    }
    // The inputs an imperative workflow declares (a plan made from it).
    let workflow = match &plan.kind {
        PlanKind::Build => topology.workflow("deploy"),
        PlanKind::Termination => topology.workflow("undeploy"),
        PlanKind::Workflow(name) => topology.workflow(name),
        _ => None,
    };
    for i in workflow.iter().flat_map(|w| &w.inputs) {
        add(&i.name, &mut inputs);
    }
    for body in bodies {
        for step in body.steps.iter().chain(&body.compensation) {
            if let Step::SelectInstance(_, super::steps::Strategy::UserProvided(input)) = step {
                add(input, &mut inputs);
            }
            if let Step::UseExisting(n) = step
                && let Some(existing) = &topology.node(*n).selection
            {
                add(&existing.input, &mut inputs);
            }
            if let Step::Invoke(inv) = step {
                for (_, b) in &inv.inputs {
                    binding_inputs(b, &mut |n| add(n, &mut inputs));
                }
            }
        }
    }
    inputs
}

fn value_inputs(v: &Value, f: &mut dyn FnMut(&str)) {
    match v {
        Value::Call(_) if v.as_input().is_some() => f(v.as_input().unwrap_or_default()),
        Value::Call(c) => c.args.iter().for_each(|a| value_inputs(a, f)),
        Value::List(l) => l.iter().for_each(|a| value_inputs(a, f)),
        Value::Map(m) => m.values().for_each(|a| value_inputs(a, f)),
        _ => {}
    }
}

fn binding_inputs(b: &Binding, f: &mut dyn FnMut(&str)) {
    match b {
        Binding::Input(n) => f(n),
        Binding::ArtifactUrl(_) => f(CSAR_ENTRYPOINT),
        Binding::Concat(parts) | Binding::Function(_, parts) => {
            parts.iter().for_each(|p| binding_inputs(p, f))
        }
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::RelId;
    use crate::plugins::steps::Invocation;

    #[test]
    fn the_final_state_is_set_unless_the_templates_last_state_step_set_it() {
        let n = TemplateRef::Node(NodeId(0));
        let r = TemplateRef::Relationship(RelId(0));
        // STARTED by the lifecycle, then steps that leave it as it is.
        let mut out = vec![
            Step::SetState(n, state::STARTED),
            Step::CreateRelationshipInstance(RelId(0)),
            Step::SetState(r, state::CREATED),
            Step::StoreProperties(NodeId(0)),
        ];
        push_final_state(&mut out, n, state::STARTED);
        assert_eq!(out.len(), 4);
        // Another state last: the final one follows.
        let mut out = vec![
            Step::SetState(n, state::CREATED),
            Step::StoreProperties(NodeId(0)),
        ];
        push_final_state(&mut out, n, state::STARTED);
        assert!(
            matches!(out.last(), Some(Step::SetState(t, s)) if *t == n && *s == state::STARTED)
        );
        // An operation after STARTED (a defrost's restore): set again.
        let mut out = vec![
            Step::SetState(n, state::STARTED),
            Step::Invoke(Box::new(Invocation {
                target: n,
                interface: "Freezable".into(),
                operation: "defrost".into(),
                inputs: Vec::new(),
                outputs: Vec::new(),
            })),
        ];
        push_final_state(&mut out, n, state::STARTED);
        assert_eq!(out.len(), 3);
        // Only the relationship's state: the node's is set.
        let mut out = vec![Step::SetState(r, state::STARTED)];
        push_final_state(&mut out, n, state::STARTED);
        assert_eq!(out.len(), 2);
    }
}
