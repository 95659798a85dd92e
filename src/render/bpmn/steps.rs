//! Each language-neutral step as BPMN flow nodes, appended to a chain.
//! REST calls (instance API, management bus) are service tasks with the
//! Camunda Connect `http-connector`; URLs and payloads are JUEL text where
//! they only put variables and literals together, Groovy otherwise;
//! answers are read by the shared scripts of the plan archive; a failed
//! call throws the BPMN error `ToscaniniFailure`. Operations go through
//! the management bus REST API, which answers asynchronously: the call is
//! followed by a poll loop (timer, GET, exclusive split; the poll fails
//! when the operation ended in a fault) and, for an operation with
//! outputs, the shared script that stores them.

use super::Ctx;
use super::expr::{Part, concat, juel_ident, literal, url_path, var};
use super::graph::{Http, Kind, Plane, Script, Value};
use super::scripts::Shared;
use crate::model::TemplateRef;
use crate::plugins::steps::{Invocation, Step, Strategy};

/// How long the poll loop waits between two looks at a running operation.
pub const POLL_INTERVAL: &str = "PT5S";

/// A chain of nodes: each added node follows the previous one.
pub struct Chain<'p> {
    /// The plane the chain grows in.
    pub plane: &'p mut Plane,
    /// The node the next one follows (an index in the plane).
    pub last: usize,
    /// An exclusive split whose next outgoing flow is its default.
    default_of: Option<usize>,
}

impl<'p> Chain<'p> {
    /// A chain continuing after node `last`.
    pub fn new(plane: &'p mut Plane, last: usize) -> Chain<'p> {
        Chain {
            plane,
            last,
            default_of: None,
        }
    }

    /// Append a node; returns its index.
    pub fn then(&mut self, id: String, name: String, kind: Kind) -> usize {
        let i = self.plane.add(id, name, kind);
        self.link_to(i);
        i
    }

    /// Connect the chain to an existing node, which becomes the last.
    pub fn link_to(&mut self, i: usize) {
        let flow = self.plane.connect(self.last, i);
        if let Some(split) = self.default_of.take() {
            set_default(self.plane, split, flow);
        }
        self.last = i;
    }

    /// The next flow out of the current last node is its default flow.
    pub fn default_next(&mut self) {
        self.default_of = Some(self.last);
    }
}

/// Make flow `flow` the default flow of exclusive gateway `split`.
pub fn set_default(plane: &mut Plane, split: usize, flow: usize) {
    plane.nodes[split].kind = Kind::Xor(Some(flow));
}

/// An HTTP service task.
fn http(
    method: &'static str,
    url: Value,
    content_type: Option<&'static str>,
    accept: &'static str,
    payload: Option<Value>,
    outputs: Vec<(String, Value)>,
) -> Kind {
    Kind::Http(Box::new(Http {
        method,
        url,
        content_type,
        accept,
        payload,
        outputs,
    }))
}

/// Output mapping that fails the task on a status outside 2xx.
pub fn status_check() -> (String, Value) {
    ("httpStatus".into(), Value::Shared(Shared::Check))
}

/// A literal payload (plain text when Camunda reads it as itself).
pub fn text(s: &str) -> Value {
    concat(&[Part::Lit(s)])
}

/// The instance URL variable of a template, or the service instance when
/// it is not known yet (the error path marks the nearest known instance).
fn state_url(cx: &Ctx, t: TemplateRef) -> Value {
    let url = cx.names.url(t);
    if juel_ident(url) {
        Value::Text(format!(
            "${{empty {url} ? serviceInstanceURL : {url}}}/state"
        ))
    } else {
        Value::Groovy(format!(
            "({} ?: {}) + '/state'",
            var(url),
            var("serviceInstanceURL")
        ))
    }
}

/// A task that sets the state of a template's current instance.
pub fn set_state(cx: &Ctx, t: TemplateRef, state: &str) -> Kind {
    http(
        "PUT",
        concat(&[Part::Var(cx.names.url(t)), Part::Lit("/state")]),
        Some("text/plain"),
        "application/json",
        Some(text(state)),
        vec![status_check()],
    )
}

/// A task that marks the failing instance ERROR (error paths).
pub fn mark_error(cx: &Ctx, t: TemplateRef) -> Kind {
    http(
        "PUT",
        state_url(cx, t),
        Some("text/plain"),
        "application/json",
        Some(text("ERROR")),
        vec![("httpStatus".into(), Value::Text("${statusCode}".into()))],
    )
}

/// Outputs that read every property of a template from a JSON map.
fn load_outputs(cx: &mut Ctx, t: TemplateRef) -> Vec<(String, Value)> {
    let mut out = vec![status_check()];
    let Ctx {
        names,
        topology,
        properties,
        ..
    } = cx;
    for (p, v) in names.props_of(topology, t) {
        let value = match properties.get(p) {
            Some(shared) => Value::Shared(shared),
            None => Value::Groovy(format!("jstr(body(), {}) ?: ''", literal(p))),
        };
        out.push((v.to_string(), value));
    }
    out
}

/// A task that loads the properties of a template's current instance.
pub fn load_properties(cx: &mut Ctx, t: TemplateRef) -> Option<Kind> {
    if cx.topology.properties(t).is_empty() {
        return None;
    }
    let url = concat(&[Part::Var(cx.names.url(t)), Part::Lit("/properties")]);
    Some(http(
        "GET",
        url,
        None,
        "application/json",
        None,
        load_outputs(cx, t),
    ))
}

/// The collection path of a template's instances.
pub fn instances_path(cx: &Ctx, t: TemplateRef) -> String {
    match t {
        TemplateRef::Node(n) => format!(
            "/nodetemplates/{}/instances",
            url_path(&cx.topology.node(n).id)
        ),
        TemplateRef::Relationship(r) => format!(
            "/relationshiptemplates/{}/instances",
            url_path(&cx.topology.relationship(r).id)
        ),
    }
}

/// Outputs of a POST that creates an instance: its URL and id.
fn created(cx: &Ctx, r: TemplateRef) -> Vec<(String, Value)> {
    vec![
        status_check(),
        (cx.names.url(r).into(), Value::Shared(Shared::InstanceUrl)),
        (cx.names.id(r).into(), Value::Shared(Shared::InstanceId)),
    ]
}

/// Append the nodes of one step. `p` is the id prefix of the step.
pub fn step(cx: &mut Ctx, chain: &mut Chain, step: &Step, p: &str) {
    let t = cx.topology;
    match step {
        Step::CreateNodeInstance(n) => {
            let r = TemplateRef::Node(*n);
            let node = &t.node(*n).id;
            let path = instances_path(cx, r);
            let kind = http(
                "POST",
                concat(&[Part::Var("serviceTemplateURL"), Part::Lit(&path)]),
                Some("text/plain"),
                "text/plain",
                Some(concat(&[Part::Var("serviceInstanceID")])),
                created(cx, r),
            );
            chain.then(p.into(), format!("register instance of {node}"), kind);
        }
        Step::CreateRelationshipInstance(rel) => {
            let r = TemplateRef::Relationship(*rel);
            let rt = t.relationship(*rel);
            let payload = format!(
                "'<api:CreateRelationshipTemplateInstanceRequest xmlns:api=\"http://opentosca.org/api\" service-instance-id=\"' + x({}) + '\" source-instance-id=\"' + x({}) + '\" target-instance-id=\"' + x({}) + '\"/>'",
                var("serviceInstanceID"),
                var(cx.names.id(TemplateRef::Node(rt.source))),
                var(cx.names.id(TemplateRef::Node(rt.target))),
            );
            let path = instances_path(cx, r);
            let kind = http(
                "POST",
                concat(&[Part::Var("serviceTemplateURL"), Part::Lit(&path)]),
                Some("application/xml"),
                "text/plain",
                Some(Value::Groovy(payload)),
                created(cx, r),
            );
            chain.then(p.into(), format!("register relationship {}", rt.id), kind);
        }
        Step::SetState(r, state) => {
            let kind = set_state(cx, *r, state);
            chain.then(p.into(), format!("state {state}"), kind);
        }
        Step::StoreProperties(n) => {
            let r = TemplateRef::Node(*n);
            let props: Vec<(&str, &str)> = cx
                .names
                .props_of(t, r)
                .filter(|(name, _)| is_xml_name(name))
                .collect();
            if props.is_empty() {
                return;
            }
            let (ns, root) = t.node(*n).properties_element.clone().unwrap_or_default();
            let root = if root.is_empty() {
                "Properties".to_string()
            } else {
                root
            };
            let (open, prefix) = if ns.is_empty() {
                (format!("<{root}>"), String::new())
            } else {
                (
                    format!(
                        "<p:{root} xmlns:p=\"{}\">",
                        super::xml::escape(&ns).replace('\'', "&apos;")
                    ),
                    "p:".to_string(),
                )
            };
            let mut payload = literal(&open);
            for (name, v) in &props {
                payload.push_str(&format!(
                    " + {} + x({}) + {}",
                    literal(&format!("<{prefix}{name}>")),
                    var(v),
                    literal(&format!("</{prefix}{name}>"))
                ));
            }
            payload.push_str(&format!(" + {}", literal(&format!("</{prefix}{root}>"))));
            let kind = http(
                "PUT",
                concat(&[Part::Var(cx.names.url(r)), Part::Lit("/properties")]),
                Some("application/xml"),
                "application/json",
                Some(Value::Groovy(payload)),
                vec![status_check()],
            );
            chain.then(p.into(), "store properties".into(), kind);
        }
        Step::FollowRelationship { rel, from, to } => {
            let rt = t.relationship(*rel);
            let to_ref = TemplateRef::Node(*to);
            let query = format!(
                "{}?source=",
                instances_path(cx, TemplateRef::Relationship(*rel))
            );
            let kind = http(
                "GET",
                concat(&[
                    Part::Var("serviceTemplateURL"),
                    Part::Lit(&query),
                    Part::Var(cx.names.id(TemplateRef::Node(*from))),
                ]),
                None,
                "application/json",
                None,
                vec![
                    status_check(),
                    (cx.names.id(to_ref).into(), Value::Shared(Shared::TargetId)),
                    (
                        cx.names.url(to_ref).into(),
                        Value::Groovy(format!(
                            "{} + {} + '/' + (jnum(body(), 'target_node_template_instance_id') + [''])[0]",
                            var("serviceTemplateURL"),
                            literal(&instances_path(cx, to_ref))
                        )),
                    ),
                ],
            );
            chain.then(
                p.into(),
                format!("follow {} to {}", rt.id, t.node(*to).id),
                kind,
            );
            if let Some(kind) = load_properties(cx, to_ref) {
                chain.then(
                    format!("{p}_load"),
                    format!("load properties of {}", t.node(*to).id),
                    kind,
                );
            }
        }
        Step::SelectInstance(n, strategy) => select(cx, chain, *n, strategy, p),
        Step::Invoke(inv) => invoke(cx, chain, inv, p),
    }
}

fn is_xml_name(s: &str) -> bool {
    !s.is_empty() && crate::plan::ncname(s) == s
}

/// Pick an instance of a node by strategy and load its properties. (Scale-out
/// plans only: these scripts are written inline, with their messages.)
fn select(cx: &mut Ctx, chain: &mut Chain, n: crate::model::NodeId, strategy: &Strategy, p: &str) {
    let t = cx.topology;
    let r = TemplateRef::Node(n);
    let node = &t.node(n).id;
    let path = instances_path(cx, r);
    let list = concat(&[
        Part::Var("serviceTemplateURL"),
        Part::Lit(&format!("{path}?state=STARTED&serviceInstanceId=")),
        Part::Var("serviceInstanceID"),
    ]);
    let base = format!("{} + {} + '/'", var("serviceTemplateURL"), literal(&path));
    let (choice, label) = match strategy {
        Strategy::FirstInstance => ("(jnum(body(), 'id') + [''])[0]".to_string(), "first"),
        Strategy::UserProvided(input) => (
            // An expression, not a closure: a line starting with `{` would be
            // read by Groovy as an argument of the helper defined above it.
            format!(
                "(jnum(body(), 'id').contains({want}) ? {want} : fail({} + {want}))",
                literal(&format!("{p}: no running instance of {node} with id ")),
                want = var(&cx.input(input)),
            ),
            "given",
        ),
        Strategy::WorkloadBased(_) => {
            ("(jnum(body(), 'id') + [''])[0]".to_string(), "least loaded")
        }
    };
    let check_some = format!(
        "jnum(body(), 'id').isEmpty() ? fail({}) : check({})",
        literal(&format!("{p}: no running instance of {node}")),
        literal(p)
    );
    let candidates = match strategy {
        Strategy::WorkloadBased(_) => cx.poll_var(p, "candidates"),
        _ => String::new(),
    };
    let mut outputs = vec![("httpStatus".to_string(), Value::Groovy(check_some))];
    if let Strategy::WorkloadBased(_) = strategy {
        outputs.push((candidates.clone(), Value::Shared(Shared::InstanceIds)));
    }
    outputs.push((cx.names.id(r).into(), Value::Groovy(choice.clone())));
    outputs.push((
        cx.names.url(r).into(),
        Value::Groovy(format!("{base} + {choice}")),
    ));
    chain.then(
        p.into(),
        format!("select {label} instance of {node}"),
        http("GET", list, None, "application/json", None, outputs),
    );
    if let Strategy::WorkloadBased(prop) = strategy {
        // The instance API lists instances without their properties, so
        // the comparison reads each candidate's properties in a script.
        let script = format!(
            "def best = null; def bestValue = null\n\
             for (id in {cands}.split(',').findAll {{ it }}) {{\n\
             \x20 def c = new URL({base} + id + '/properties').openConnection()\n\
             \x20 c.setRequestProperty('Accept', 'application/json')\n\
             \x20 if (c.responseCode != 200) fail({what} + id + ': HTTP ' + c.responseCode)\n\
             \x20 def value = (jstr(c.inputStream.getText('UTF-8'), {prop}) ?: '0') as BigDecimal\n\
             \x20 if (bestValue == null || value < bestValue) {{ best = id; bestValue = value }}\n\
             }}\n\
             execution.setVariable({idv}, best)\n\
             execution.setVariable({urlv}, {base} + best)\n",
            cands = var(&candidates),
            base = base,
            what = literal(&format!("{p}: properties of {node} instance ")),
            prop = literal(prop),
            idv = literal(cx.names.id(r)),
            urlv = literal(cx.names.url(r)),
        );
        chain.then(
            format!("{p}_compare"),
            format!("compare {prop} of {node} instances"),
            Kind::Script(Box::new(Script {
                script: Value::Groovy(script),
                locals: Vec::new(),
            })),
        );
    }
    if let Some(kind) = load_properties(cx, r) {
        chain.then(
            format!("{p}_load"),
            format!("load properties of {node}"),
            kind,
        );
    }
}

/// An operation call through the management bus REST API: POST the
/// invocation, poll until it is done, store the outputs.
fn invoke(cx: &mut Ctx, chain: &mut Chain, inv: &Invocation, p: &str) {
    let t = cx.topology;
    let st = &t.service_template;
    let template = t.template_id(inv.target).to_string();
    // The JSON of the invocation: constant text is encoded here, values
    // at run time with q().
    enum Field {
        Const(String),
        Expr(String),
    }
    fn json(s: &str) -> String {
        serde_json::Value::String(s.to_string()).to_string()
    }
    fn object(text: &mut String, pieces: &mut Vec<String>, fields: &[(&str, Field)]) {
        for (i, (k, f)) in fields.iter().enumerate() {
            if i > 0 {
                text.push(',');
            }
            text.push_str(&json(k));
            text.push(':');
            match f {
                Field::Const(c) => text.push_str(&json(c)),
                Field::Expr(e) => {
                    pieces.push(literal(text));
                    text.clear();
                    pieces.push(format!("q({e})"));
                }
            }
        }
    }
    let mut info = vec![
        ("csarID", Field::Expr(var("csarID"))),
        (
            "serviceTemplateID",
            Field::Const(format!("{{{}}}{}", st.namespace, st.id)),
        ),
        ("serviceInstanceID", Field::Expr(var("serviceInstanceURL"))),
    ];
    match inv.target {
        TemplateRef::Node(_) => {
            info.push(("nodeTemplateID", Field::Const(template.clone())));
            info.push(("nodeInstanceID", Field::Expr(var(cx.names.url(inv.target)))));
        }
        TemplateRef::Relationship(_) => {
            info.push(("relationshipTemplateID", Field::Const(template.clone())))
        }
    }
    info.push(("interface", Field::Const(inv.interface.clone())));
    info.push(("operation", Field::Const(inv.operation.clone())));
    let params: Vec<(&str, Field)> = inv
        .inputs
        .iter()
        .map(|(n, b)| (n.as_str(), Field::Expr(cx.expr(b))))
        .collect();
    // Pieces of JSON text and expressions, merged into one Groovy concatenation.
    let mut json_text = String::from("{\"invocation-information\":{");
    let mut pieces: Vec<String> = Vec::new();
    object(&mut json_text, &mut pieces, &info);
    json_text.push_str("},\"params\":{");
    object(&mut json_text, &mut pieces, &params);
    json_text.push_str("}}");
    pieces.push(literal(&json_text));
    let payload = pieces.join(" + ");
    let location = cx.poll_var(p, "location");
    let pending = cx.poll_var(p, "pending");
    let result = cx.poll_var(p, "result");
    let bus = cx.bus.clone();
    chain.then(
        p.into(),
        format!("{} on {template}", inv.operation),
        http(
            "POST",
            concat(&[Part::Var(&bus)]),
            Some("application/json"),
            "application/json",
            Some(Value::Groovy(payload)),
            vec![
                status_check(),
                (location.clone(), Value::Shared(Shared::Location)),
            ],
        ),
    );
    let merge = chain.then(format!("{p}_next"), String::new(), Kind::Xor(None));
    chain.then(
        format!("{p}_wait"),
        "wait".into(),
        Kind::Timer(POLL_INTERVAL),
    );
    chain.then(
        format!("{p}_poll"),
        format!("poll {}", inv.operation),
        http(
            "GET",
            concat(&[Part::Var(&location)]),
            None,
            "application/json",
            None,
            vec![
                status_check(),
                (pending.clone(), Value::Shared(Shared::Pending)),
                (result.clone(), Value::Text("${response}".into())),
            ],
        ),
    );
    let split = chain.then(format!("{p}_done"), "done?".into(), Kind::Xor(None));
    chain
        .plane
        .connect_if(split, merge, Some(format!("${{{pending}}}")), "running");
    chain.default_next();
    // pending.groovy has failed the poll if the operation ended in a
    // fault; what is left is storing the outputs, if there are any.
    if inv.outputs.is_empty() {
        return;
    }
    let mut locals = vec![("result".to_string(), concat(&[Part::Var(&result)]))];
    for (o, prop) in &inv.outputs {
        locals.push((format!("output:{o}"), text(cx.names.prop(t, prop))));
    }
    chain.then(
        format!("{p}_result"),
        format!("outputs of {}", inv.operation),
        Kind::Script(Box::new(Script {
            script: Value::Shared(Shared::OperationResult),
            locals,
        })),
    );
}
