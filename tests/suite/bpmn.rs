//! BPMN plans: snapshots for the samples, and on every corpus CSAR that
//! compiles, structural checks on the XML that toscanini writes (read
//! back with the crate's XML reader, not taken from the renderer's model):
//!
//! * every edge of the plan graph is a sequence flow from the activity
//!   (or its fork; for an `on_failure` edge routed by token, its error
//!   boundary event) to the activity (or its join), and there is no path
//!   between two activities through gateways that the graph does not have;
//! * parallel gateways only where the graph forks or joins;
//! * no flow node except a gateway has two incoming flows (fake join);
//! * every element inside an activity's subprocess has an id starting
//!   with the activity id;
//! * every flow node has a shape, shapes of one diagram do not overlap
//!   (except a container and its content, or a boundary event and its
//!   host), and every sequence flow has an edge with at least two waypoints;
//! * every `deployment://` script the process references is a file of the
//!   plan, and every other file of the plan is referenced;
//! * every variable a JUEL expression reads is a plan input or a variable
//!   the process sets (JUEL, unlike the scripts' `v()`, fails on a
//!   variable that does not exist).
//!
//! The plans of imperative workflows (the spec examples of chapter 7 and
//! Puccini's workflow example) get the same checks, and the three features
//! that only they have (filters, preconditions, `on_failure` routing) are
//! checked element by element.
//!
//! Running the plans in a BPMN engine (check-bpmn) and checking the order
//! of the run is done by `.ci/run`, which needs node.

use std::collections::{BTreeMap, BTreeSet, HashMap};

use crate::dom::{Document, ElemId};
use toscanini::compile::bpmn_ids::Word;
use toscanini::diagnostics::SourceMap;
use toscanini::plan::PlanKind;
use toscanini::plugins::{ConcretePlan, Registry};

use crate::support::{corpus_xml, repo};

const BPMN: &str = "http://www.omg.org/spec/BPMN/20100524/MODEL";
const BPMNDI: &str = "http://www.omg.org/spec/BPMN/20100524/DI";
const DC: &str = "http://www.omg.org/spec/DD/20100524/DC";
const DI: &str = "http://www.omg.org/spec/DD/20100524/DI";

fn plans(path: &std::path::Path) -> Option<(toscanini::Loaded, Vec<ConcretePlan>)> {
    let mut sources = SourceMap::new();
    let options = toscanini::Options::default();
    let loaded = toscanini::load(path, &options, &mut sources).ok()?;
    let (registry, _) = Registry::standard(&[], &mut sources).unwrap();
    let mut kinds = vec![PlanKind::Build, PlanKind::Termination];
    kinds.extend(
        loaded
            .topology
            .regions
            .iter()
            .map(|r| PlanKind::ScaleOut(r.name.clone())),
    );
    let (plans, _) = toscanini::derive(&loaded.topology, &kinds, &registry, &options).unwrap();
    Some((loaded, plans))
}

/// A rendered BPMN plan: the process file and the other files of its archive.
pub(crate) struct Bpmn {
    name: String,
    pub(crate) text: String,
    /// Shared scripts: file name, text.
    files: BTreeMap<String, String>,
    /// Plan inputs.
    inputs: Vec<String>,
}

pub(crate) fn bpmn(loaded: &toscanini::Loaded, plan: &ConcretePlan) -> Bpmn {
    let r = toscanini::compile::render(plan, &loaded.topology, toscanini::Language::Bpmn).unwrap();
    let (process, rest) = r.files.split_first().unwrap();
    assert!(process.name.ends_with(".bpmn"), "the process comes first");
    let files: BTreeMap<String, String> = rest
        .iter()
        .map(|f| {
            assert!(f.name.ends_with(".groovy"), "{}", f.name);
            (f.name.clone(), String::from_utf8(f.data.clone()).unwrap())
        })
        .collect();
    assert_eq!(files.len(), rest.len(), "file names are unique");
    Bpmn {
        name: process.name.clone(),
        text: String::from_utf8(process.data.clone()).unwrap(),
        files,
        inputs: r.inputs.iter().map(|i| i.name.clone()).collect(),
    }
}

#[test]
fn sample_bpmn_plans() {
    for sample in [
        "connectto-test",
        "mytinytodo-docker",
        "petclinic-scale-out",
        "shop-scale-out-yaml",
        "tomcat-openstack",
    ] {
        let (loaded, plans) = plans(&repo().join("samples").join(sample)).unwrap();
        // The shared scripts of all plans of the sample, each once: a file
        // name means the same text in every plan of a CSAR.
        let mut scripts: BTreeMap<String, String> = BTreeMap::new();
        for p in &plans {
            let b = bpmn(&loaded, p);
            let kind = p.plan.kind.slug().replace(':', "-");
            insta::assert_snapshot!(format!("{sample}__{kind}__{}", b.name), b.text);
            check(&format!("{sample} {}", b.name), p, &b);
            for (name, text) in b.files {
                let before = scripts.insert(name.clone(), text.clone());
                assert!(
                    before.is_none_or(|t| t == text),
                    "{sample}: {name} differs between plans"
                );
            }
        }
        let listing: String = scripts
            .iter()
            .map(|(name, text)| format!("==> {name} <==\n{text}\n"))
            .collect();
        insta::assert_snapshot!(format!("{sample}__scripts"), listing);
        // With both languages, BPEL keeps the boundary operations and the
        // BPMN plans are added beside it.
        let mut rendered = Vec::new();
        for lang in [toscanini::Language::Bpel, toscanini::Language::Bpmn] {
            for p in &plans {
                rendered.push(toscanini::compile::render(p, &loaded.topology, lang).unwrap());
            }
        }
        let (changes, diags) = toscanini::compile::changes(&loaded, &rendered).unwrap();
        assert!(diags.is_empty(), "{diags:?}");
        let definitions = String::from_utf8(changes.put[&loaded.entry].clone()).unwrap();
        insta::assert_snapshot!(format!("{sample}__definitions_all"), definitions);
    }
}

#[test]
fn corpus_bpmn_plans_are_well_formed_parallel_and_drawn() {
    let mut checked = 0;
    for csar in corpus_xml() {
        let name = csar.file_name().unwrap().to_string_lossy().into_owned();
        let Some((loaded, plans)) = plans(&csar) else {
            continue;
        };
        for p in &plans {
            let b = bpmn(&loaded, p);
            check(&format!("{name} {}", b.name), p, &b);
            // Same input, same bytes.
            let again = bpmn(&loaded, p);
            assert!(
                b.text == again.text && b.files == again.files,
                "{name}: not deterministic"
            );
            checked += 1;
        }
    }
    assert_eq!(
        checked, 61,
        "29 corpus CSARs compile, two plans each, and three have a scale-out plan"
    );
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
struct Rect {
    x: i64,
    y: i64,
    w: i64,
    h: i64,
}

impl Rect {
    fn overlaps(&self, o: &Rect) -> bool {
        self.x < o.x + o.w && o.x < self.x + self.w && self.y < o.y + o.h && o.y < self.y + self.h
    }
}

fn num(doc: &Document, e: ElemId, a: &str) -> i64 {
    doc.attr(e, a).unwrap().parse::<f64>().unwrap() as i64
}

fn check(what: &str, plan: &ConcretePlan, b: &Bpmn) {
    let text = b.text.as_str();
    let doc = Document::parse(text).unwrap_or_else(|d| panic!("{what}: not well-formed: {d:?}"));
    // Flow nodes and flows of every container, and which container holds what.
    let mut parent: HashMap<String, Option<String>> = HashMap::new(); // element -> enclosing subprocess
    let mut kind: HashMap<String, String> = HashMap::new();
    let mut flows: Vec<(String, String, String)> = Vec::new(); // id, source, target
    let mut host: HashMap<String, String> = HashMap::new(); // boundary -> host
    let mut stack: Vec<(ElemId, Option<String>)> = vec![(0, None)];
    while let Some((e, sub)) = stack.pop() {
        for &c in doc.get(e).children.iter().rev() {
            let el = doc.get(c);
            if el.ns.as_deref() != Some(BPMN) {
                continue;
            }
            let Some(id) = doc.attr(c, "id") else {
                continue;
            };
            let id = id.to_string();
            match el.local.as_ref() {
                "sequenceFlow" => flows.push((
                    id.clone(),
                    doc.attr(c, "sourceRef").unwrap().into(),
                    doc.attr(c, "targetRef").unwrap().into(),
                )),
                "boundaryEvent" => {
                    host.insert(id.clone(), doc.attr(c, "attachedToRef").unwrap().into());
                }
                _ => {}
            }
            let twice = parent.insert(id.clone(), sub.clone()).is_some();
            assert!(!twice, "{what}: two elements have the id `{id}`");
            kind.insert(id.clone(), el.local.to_string());
            let next = if &*el.local == "subProcess" {
                Some(id)
            } else {
                sub.clone()
            };
            stack.push((c, next));
        }
    }
    let is_flow_node = |k: &str| {
        k.ends_with("Task") || k.ends_with("Event") || k.ends_with("Gateway") || k == "subProcess"
    };

    // No fake joins.
    let mut incoming: BTreeMap<&str, usize> = BTreeMap::new();
    let mut outgoing: BTreeMap<&str, usize> = BTreeMap::new();
    for (_, s, t) in &flows {
        *incoming.entry(t).or_default() += 1;
        *outgoing.entry(s).or_default() += 1;
    }
    for (id, n) in &incoming {
        assert!(
            *n < 2 || kind[*id].ends_with("Gateway"),
            "{what}: {} `{id}` has {n} incoming flows",
            kind[*id]
        );
    }
    // Parallel gateways only where the graph forks or joins.
    for (id, k) in &kind {
        if k == "parallelGateway" {
            let (i, o) = (incoming.get(id.as_str()), outgoing.get(id.as_str()));
            let (i, o) = (i.copied().unwrap_or(0), o.copied().unwrap_or(0));
            assert!(
                (i == 1 && o > 1) || (i > 1 && o == 1),
                "{what}: parallel gateway `{id}` with {i} in, {o} out is not needed"
            );
        }
    }
    // The plan graph, exactly: activity-to-activity paths through gateways only.
    let activities: Vec<&str> = plan.plan.activities.iter().map(|a| a.id.as_str()).collect();
    let is_activity = |id: &str| activities.contains(&id);
    // A subprocess, or where its steps are all calls one call of
    // `toscanini_run`, or where it has none a task.
    for a in &activities {
        assert!(
            matches!(
                kind.get(*a).map(String::as_str),
                Some("subProcess" | "callActivity" | "task")
            ),
            "{what}: activity {a} is a {:?}",
            kind.get(*a)
        );
    }
    let mut reached: BTreeSet<(String, String)> = BTreeSet::new();
    for a in &activities {
        // A routed failure leaves by the activity's error boundary event.
        let mut todo = vec![a.to_string()];
        todo.extend(host.iter().filter(|(_, h)| h == a).map(|(b, _)| b.clone()));
        let mut seen = BTreeSet::new();
        while let Some(n) = todo.pop() {
            for (_, s, t) in &flows {
                if *s == n && seen.insert(t.clone()) {
                    if is_activity(t) {
                        reached.insert((a.to_string(), t.clone()));
                    } else if kind[t].ends_with("Gateway") {
                        todo.push(t.clone());
                    }
                }
            }
        }
    }
    let want: BTreeSet<(String, String)> = plan
        .plan
        .edges
        .iter()
        .map(|e| (activities[e.from].to_string(), activities[e.to].to_string()))
        .collect();
    assert_eq!(reached, want, "{what}: the flows between activities");
    // Ids inside an activity start with the activity id.
    for (id, sub) in &parent {
        let mut s = sub.clone();
        while let Some(cur) = s {
            if is_activity(&cur) {
                assert!(
                    id.starts_with(&format!("{cur}_")),
                    "{what}: `{id}` is inside activity `{cur}`"
                );
            }
            s = parent.get(&cur).cloned().flatten();
        }
    }
    for (b, h) in &host {
        if is_activity(h) {
            assert!(
                b.starts_with(&format!("{h}_")),
                "{what}: boundary `{b}` of `{h}`"
            );
        }
    }
    // Every other id is its owner's (the activity with the longest id it
    // starts with, or the plan) followed by a suffix whose first word the
    // renderer's choice of prefixes knows: else two activities' ids
    // could meet unnoticed (render/bpmn/bases.rs).
    let owners: Vec<&str> = std::iter::once("plan")
        .chain(activities.iter().copied())
        .collect();
    // (Error definitions and the process have ids of their own.)
    let mut ids: Vec<&String> = kind
        .iter()
        .filter(|(_, k)| !matches!(k.as_str(), "error" | "process"))
        .map(|(id, _)| id)
        .collect();
    let diagram_ids: Vec<String> = doc
        .children(0, BPMNDI, "BPMNDiagram")
        .flat_map(|d| {
            let plane = doc.child(d, BPMNDI, "BPMNPlane").unwrap();
            [doc.attr(d, "id"), doc.attr(plane, "id")]
        })
        .flatten()
        .map(String::from)
        .collect();
    ids.extend(&diagram_ids);
    // The reusable processes have ids of their own too.
    let library = toscanini::compile::bpmn_ids::library_ids();
    ids.retain(|id| !library.contains(id));
    let process = doc
        .attr(doc.child(0, BPMN, "process").unwrap(), "id")
        .unwrap();
    for id in ids {
        if owners.contains(&id.as_str())
            || id
                .strip_prefix(process)
                .is_some_and(|r| !r.starts_with("_f"))
        {
            continue;
        }
        let owner = owners
            .iter()
            .filter(|o| id.starts_with(&format!("{o}_")))
            .max_by_key(|o| o.len())
            .unwrap_or_else(|| panic!("{what}: `{id}` belongs to no activity"));
        let rest = &id[owner.len() + 1..];
        let word = rest.split('_').next().unwrap();
        match toscanini::compile::bpmn_ids::suffix_word(word) {
            Some(Word::Stem) => {}
            Some(Word::End) => assert_eq!(
                word, rest,
                "{what}: `{id}` of `{owner}`: `{word}` is in bases::ENDS, yet more follows"
            ),
            None => panic!(
                "{what}: `{id}` of `{owner}`: `{word}` is in neither bases::ENDS nor bases::STEMS"
            ),
        }
    }

    // Diagrams.
    let mut shapes: HashMap<String, (usize, Rect)> = HashMap::new();
    let mut edges: HashMap<String, usize> = HashMap::new();
    for (d, diagram) in doc.children(0, BPMNDI, "BPMNDiagram").enumerate() {
        let plane = doc.child(diagram, BPMNDI, "BPMNPlane").unwrap();
        for s in doc.children(plane, BPMNDI, "BPMNShape") {
            let b = doc.child(s, DC, "Bounds").unwrap();
            let r = Rect {
                x: num(&doc, b, "x"),
                y: num(&doc, b, "y"),
                w: num(&doc, b, "width"),
                h: num(&doc, b, "height"),
            };
            let el = doc.attr(s, "bpmnElement").unwrap().to_string();
            assert!(
                shapes.insert(el.clone(), (d, r)).is_none(),
                "{what}: `{el}` drawn twice"
            );
        }
        for e in doc.children(plane, BPMNDI, "BPMNEdge") {
            let el = doc.attr(e, "bpmnElement").unwrap().to_string();
            edges.insert(el, doc.children(e, DI, "waypoint").count());
        }
    }
    for (id, k) in &kind {
        if is_flow_node(k) {
            assert!(shapes.contains_key(id), "{what}: {k} `{id}` has no shape");
        }
    }
    for (id, _, _) in &flows {
        let n = edges.get(id).copied().unwrap_or(0);
        assert!(n >= 2, "{what}: flow `{id}` has {n} waypoints");
    }
    let inside = |inner: &str, outer: &str| -> bool {
        let mut s = parent.get(inner).cloned().flatten();
        while let Some(cur) = s {
            if cur == outer {
                return true;
            }
            s = parent.get(&cur).cloned().flatten();
        }
        false
    };
    check_scripts_and_variables(what, &doc, b);
    let list: Vec<(&String, &(usize, Rect))> = shapes.iter().collect();
    for (i, (a, (da, ra))) in list.iter().enumerate() {
        for (b, (db, rb)) in &list[i + 1..] {
            if da != db || !ra.overlaps(rb) {
                continue;
            }
            let allowed = inside(a, b)
                || inside(b, a)
                || host.get(*a) == Some(*b)
                || host.get(*b) == Some(*a);
            assert!(
                allowed,
                "{what}: shapes `{a}` {ra:?} and `{b}` {rb:?} overlap"
            );
        }
    }
}

/// The `steps` of a call of `toscanini_run` or `toscanini_each` (`e`):
/// every `$(VAR)` is a variable passed in as `v:VAR` (or the instance's id
/// and URL of a turn of `toscanini_each`) or kept by a step before; every variable
/// passed out (`v:VAR`) is kept by a step (`VAR<SOURCE`) or is an output
/// (`output:NAME=VAR`); every process a line names is one the library has.
fn check_steps(what: &str, doc: &Document, e: ElemId) {
    const CAMUNDA: &str = "http://camunda.org/schema/1.0/bpmn";
    const PROCESSES: [&str; 9] = [
        "invoke",
        "state",
        "register",
        "relate",
        "properties",
        "load",
        "follow",
        "instances",
        "outputs",
    ];
    let id = doc.attr(e, "id").unwrap_or("?");
    let mappings = || doc.children(e, BPMN, "extensionElements");
    let ins: Vec<ElemId> = mappings()
        .flat_map(|x| doc.children(x, CAMUNDA, "in"))
        .collect();
    // In parts (`steps`, `steps:2`, …) where it is long.
    let part = |k: usize| {
        let name = if k == 1 {
            "steps".to_string()
        } else {
            format!("steps:{k}")
        };
        ins.iter()
            .find(|&&i| doc.attr(i, "target") == Some(name.as_str()))
            .and_then(|&i| doc.attr(i, "sourceExpression"))
    };
    let steps: String = (1..).map_while(part).collect();
    assert!(
        !steps.is_empty(),
        "{what}: {id} calls toscanini_run without steps"
    );
    let mut known: BTreeSet<String> = ins
        .iter()
        .filter_map(|&i| doc.attr(i, "target"))
        .filter_map(|t| t.strip_prefix("v:"))
        .map(str::to_string)
        .collect();
    // toscanini_each gives each turn its instance's URL and id as the
    // first two variables.
    if doc.attr(e, "calledElement") == Some("toscanini_each") {
        known.extend(["1".to_string(), "2".to_string()]);
    }
    let unescape = |s: &str| -> String {
        let mut out = String::new();
        let mut rest = s;
        while let Some(k) = rest.find('%') {
            out.push_str(&rest[..k]);
            let code = u8::from_str_radix(&rest[k + 1..k + 3], 16).unwrap();
            out.push(code as char);
            rest = &rest[k + 3..];
        }
        out.push_str(rest);
        out
    };
    for line in steps.split('\n') {
        let mut fields = line.split(' ');
        let process = fields.next().unwrap();
        assert!(
            PROCESSES.contains(&process),
            "{what}: {id}: step `{process}` is no process of the library"
        );
        let mut kept = Vec::new();
        // A line takes what it does not name from the activity's
        // variables: the bus, CSAR and service instance, and a state the
        // instance of the first variable.
        for (step, field, var) in [
            ("state", "url", "1"),
            ("invoke", "ManagementBusURL", "ManagementBusURL"),
            ("invoke", "csarID", "csarID"),
            ("invoke", "serviceInstanceID", "serviceInstanceURL"),
            ("register", "serviceInstanceID", "serviceInstanceID"),
            ("relate", "serviceInstanceID", "serviceInstanceID"),
        ] {
            let named = line.split(' ').any(|f| f.starts_with(&format!("{field}=")));
            assert!(
                process != step || named || known.contains(var),
                "{what}: {id}: step `{step}` reads `{var}`, which is neither passed in nor kept"
            );
        }
        for f in fields {
            if let Some((target, value)) = f.split_once('=') {
                for r in value.split("$(").skip(1) {
                    let var = unescape(r.split(')').next().unwrap());
                    assert!(
                        known.contains(&var),
                        "{what}: {id}: step `{process}` reads `{var}`, which is neither passed in nor kept"
                    );
                }
                if process == "outputs" && target.starts_with("output:") {
                    kept.push(unescape(value));
                }
            } else {
                let (var, _) = f
                    .split_once('<')
                    .unwrap_or_else(|| panic!("{what}: {id}: field `{f}`"));
                kept.push(unescape(var));
            }
        }
        known.extend(kept);
    }
    // A call that marks its instance ERROR on a failure has the instance's
    // URL variable (passed in or kept) and the service instance's.
    let mark = ins
        .iter()
        .find(|&&i| doc.attr(i, "target") == Some("mark"))
        .and_then(|&i| doc.attr(i, "sourceExpression"));
    for var in mark.into_iter().chain(mark.map(|_| "serviceInstanceURL")) {
        assert!(
            known.contains(var),
            "{what}: {id} marks the instance in `{var}`, which is neither passed in nor kept"
        );
    }
    for o in mappings().flat_map(|x| doc.children(x, CAMUNDA, "out")) {
        let source = doc.attr(o, "source").unwrap();
        let var = source
            .strip_prefix("v:")
            .unwrap_or_else(|| panic!("{what}: {id} passes out `{source}`"));
        assert!(
            known.contains(var),
            "{what}: {id} passes out `{var}`, which no step keeps"
        );
    }
}

/// Shared scripts resolve to files of the plan and every file is used;
/// JUEL reads only variables that exist.
fn check_scripts_and_variables(what: &str, doc: &Document, b: &Bpmn) {
    const CAMUNDA: &str = "http://camunda.org/schema/1.0/bpmn";
    let mut referenced: BTreeSet<String> = BTreeSet::new();
    // Variables the process sets: plan inputs, parameter and local names,
    // `execution.setVariable('name', …)` or `setv('name', …)` in inline scripts.
    let mut set: BTreeSet<String> = b.inputs.iter().cloned().collect();
    // What a call of toscanini_each passes it, read by the library whether
    // or not the plan makes such a call.
    set.insert("list".into());
    let mut reads: Vec<(String, String)> = Vec::new(); // (where, JUEL text)
    let mut sources: Vec<String> = Vec::new(); // variables calls pass by name
    let mut stack: Vec<ElemId> = vec![0];
    while let Some(e) = stack.pop() {
        let el = doc.get(e);
        stack.extend(el.children.iter().copied());
        let ns = el.ns.as_deref();
        let resource = if ns == Some(CAMUNDA) && &*el.local == "script" {
            doc.attr(e, "resource")
        } else if ns == Some(BPMN) && &*el.local == "scriptTask" {
            doc.attr_ns(e, CAMUNDA, "resource")
        } else {
            None
        };
        if let Some(r) = resource {
            let file = r
                .strip_prefix("deployment://")
                .unwrap_or_else(|| panic!("{what}: resource `{r}`"));
            assert!(
                b.files.contains_key(file),
                "{what}: `{r}` is not a file of the plan"
            );
            referenced.insert(file.to_string());
        }
        if ns == Some(CAMUNDA)
            && (&*el.local == "inputParameter" || &*el.local == "outputParameter")
        {
            set.insert(doc.attr(e, "name").unwrap().to_string());
            if el.children.is_empty() {
                reads.push((el.local.to_string(), el.text.clone()));
            }
        }
        // A call sets its variables (the callee's from `in`, the caller's
        // from `out`) and reads those it passes.
        // (`variables="all"`: toscanini_run passing everything on.)
        if ns == Some(CAMUNDA)
            && (&*el.local == "in" || &*el.local == "out")
            && doc.attr(e, "variables").is_none()
        {
            set.insert(doc.attr(e, "target").unwrap().to_string());
            match doc.attr(e, "source") {
                Some(source) => sources.push(source.to_string()),
                None => {
                    let expr = doc.attr(e, "sourceExpression").unwrap();
                    reads.push((el.local.to_string(), expr.to_string()));
                }
            }
        }
        // The steps of a call of toscanini_run read only what is passed
        // in or what a step before set, and set what is passed out.
        // (The library's own calls pass everything on.)
        let passes_all = || {
            doc.children(e, BPMN, "extensionElements")
                .flat_map(|x| doc.children(x, CAMUNDA, "in"))
                .any(|i| doc.attr(i, "variables").is_some())
        };
        if ns == Some(BPMN)
            && &*el.local == "callActivity"
            && matches!(
                doc.attr(e, "calledElement"),
                Some("toscanini_run" | "toscanini_each")
            )
            && !passes_all()
        {
            check_steps(what, doc, e);
        }
        // toscanini_load sets `prop:<name>` for each name of its `names`
        // (where it is a step of toscanini_run, the step says what it keeps).
        if ns == Some(BPMN)
            && &*el.local == "callActivity"
            && doc.attr(e, "calledElement") == Some("toscanini_load")
            && !passes_all()
        {
            let names = doc
                .children(e, BPMN, "extensionElements")
                .flat_map(|x| doc.children(x, CAMUNDA, "in"))
                .find(|&i| doc.attr(i, "target") == Some("names"))
                .and_then(|i| doc.attr(i, "sourceExpression"))
                .unwrap_or_else(|| panic!("{what}: a call of toscanini_load without names"));
            set.extend(names.split(',').map(|n| format!("prop:{n}")));
        }
        if ns == Some(BPMN) && &*el.local == "conditionExpression" {
            reads.push(("condition".into(), el.text.clone()));
        }
        if (ns == Some(CAMUNDA) || ns == Some(BPMN)) && &*el.local == "script" {
            let script = &el.text;
            // `setv` is the prelude's short form.
            for call in ["execution.setVariable('", "setv('"] {
                for part in script.split(call).skip(1) {
                    if let Some(name) = part.split('\'').next() {
                        set.insert(name.to_string());
                    }
                }
            }
        }
    }
    // The shared scripts set variables too (toscanini_run's `call`).
    for script in b.files.values() {
        for part in script.split("execution.setVariable('").skip(1) {
            if let Some(name) = part.split('\'').next() {
                set.insert(name.to_string());
            }
        }
    }
    let unused: Vec<&String> = b
        .files
        .keys()
        .filter(|f| !referenced.contains(*f))
        .collect();
    assert!(unused.is_empty(), "{what}: files no task uses: {unused:?}");
    const JUEL: [&str; 16] = [
        "and",
        "or",
        "not",
        "eq",
        "ne",
        "lt",
        "gt",
        "le",
        "ge",
        "true",
        "false",
        "null",
        "instanceof",
        "empty",
        "div",
        "mod",
    ];
    for source in &sources {
        // (The variables of toscanini_run's steps: [`check_steps`].)
        if source.starts_with("v:") {
            continue;
        }
        assert!(
            set.contains(source),
            "{what}: a call passes `{source}`, which nothing sets"
        );
    }
    for (place, text) in &reads {
        for expr in text.split("${").skip(1) {
            let expr = expr.split('}').next().unwrap();
            // Identifiers outside string literals.
            let code: String = expr.split('\'').step_by(2).collect::<Vec<_>>().join(" ");
            // Identifiers, but not members (`ids.split(…)`).
            let is_word = |c: char| c.is_ascii_alphanumeric() || c == '_';
            let mut words = Vec::new();
            let mut start = None;
            for (k, c) in code.char_indices().chain([(code.len(), ' ')]) {
                match (is_word(c), start) {
                    (true, None) => start = Some(k),
                    (false, Some(s)) => {
                        if !code[..s].trim_end().ends_with('.') {
                            words.push(&code[s..k]);
                        }
                        start = None;
                    }
                    _ => {}
                }
            }
            for word in words {
                let is_name = word.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_');
                if !is_name || JUEL.contains(&word) {
                    continue;
                }
                // A connector's output mapping reads the answer.
                if place == "outputParameter" && (word == "response" || word == "statusCode") {
                    continue;
                }
                assert!(
                    set.contains(word),
                    "{what}: `${{{expr}}}` ({place}) reads `{word}`, which nothing sets"
                );
            }
        }
    }
}

/// Scale-out plans select instances (`SelectInstance`); no plan kind makes
/// them yet, so the step is put into a build plan by hand to see that every
/// strategy renders, stays well formed, and ends in the activity.
#[test]
fn instance_selection_renders_for_every_strategy() {
    use toscanini::plugins::steps::{Step, Strategy};
    let (loaded, plans) = plans(&repo().join("samples/tomcat-openstack")).unwrap();
    let mut plan = plans[0].clone();
    let vm = loaded.topology.node_by_id("Ubuntu-14_04-VM").unwrap();
    let strategies = [
        Strategy::FirstInstance,
        Strategy::UserProvided("VMInstance".into()),
        Strategy::WorkloadBased("VMType".into()),
    ];
    for (i, s) in strategies.iter().enumerate() {
        plan.bodies[i]
            .steps
            .insert(0, Step::SelectInstance(vm, s.clone()));
    }
    let b = bpmn(&loaded, &plan);
    check("selection", &plan, &b);
    let text = &b.text;
    for (i, label) in [
        "select first instance",
        "select given instance",
        "select least loaded instance",
    ]
    .iter()
    .enumerate()
    {
        let id = format!("{}_s1", plan.plan.activities[i].id);
        assert!(
            text.contains(&format!("id=\"{id}\" name=\"{label} of Ubuntu-14_04-VM\"")),
            "{id}: {label}"
        );
    }
    assert!(text.contains("_s1_compare\" name=\"compare VMType of Ubuntu-14_04-VM instances\""));
    if let Ok(dir) = std::env::var("TOSCANINI_KEEP_BPMN") {
        let dir = std::path::Path::new(&dir);
        std::fs::write(dir.join("selection.bpmn"), text).unwrap();
        for (name, script) in &b.files {
            std::fs::write(dir.join(name), script).unwrap();
        }
    }
}

/// A deep plan (the synthetic topology's DependsOn chain spans most of
/// it) is drawn in space and waypoints linear in its size: an edge that
/// skips many layers runs in a lane below the grid, with six waypoints,
/// instead of through every layer it skips.
#[test]
fn deep_plans_are_drawn_with_few_waypoints_per_edge() {
    for (dialect, entries) in [
        ("xml", crate::synth::xml_csar(200)),
        ("yaml", crate::synth::yaml_csar(200)),
    ] {
        let mut sources = SourceMap::new();
        let options = toscanini::Options::default();
        let csar = toscanini::Csar::from_entries("synth", entries);
        let loaded = toscanini::load_csar(csar, &options, &mut sources).unwrap();
        let (registry, _) = Registry::standard(&[], &mut sources).unwrap();
        let (plans, _) =
            toscanini::derive(&loaded.topology, &[PlanKind::Build], &registry, &options).unwrap();
        let b = bpmn(&loaded, &plans[0]);
        check(&format!("synth {dialect}"), &plans[0], &b);
        let doc = Document::parse(&b.text).unwrap();
        let mut edges = 0;
        let mut most = 0;
        let mut stack: Vec<ElemId> = vec![0];
        while let Some(e) = stack.pop() {
            let el = doc.get(e);
            stack.extend(el.children.iter().copied());
            if el.ns.as_deref() == Some(BPMNDI) && &*el.local == "BPMNEdge" {
                edges += 1;
                most = most.max(el.children.len());
            }
        }
        assert!(edges > 800, "synth {dialect}: {edges} edges");
        assert!(
            most <= 10,
            "synth {dialect}: an edge has {most} waypoints (at most 10 expected)"
        );
    }
}

#[test]
fn large_plans_initialise_their_variables_in_bounded_scripts() {
    // Groovy compiles a script into one JVM method of at most 64 KiB of
    // bytecode: a 1000-node plan's variables in one script failed with
    // "Method too large" (.ci/run compiles such a chain with Groovy).
    let mut sources = SourceMap::new();
    let options = toscanini::Options::default();
    let csar = toscanini::Csar::from_entries("synth", crate::synth::xml_csar(200));
    let loaded = toscanini::load_csar(csar, &options, &mut sources).unwrap();
    let (registry, _) = Registry::standard(&[], &mut sources).unwrap();
    let (plans, _) =
        toscanini::derive(&loaded.topology, &[PlanKind::Build], &registry, &options).unwrap();
    let b = bpmn(&loaded, &plans[0]);
    let doc = Document::parse(&b.text).unwrap();
    let mut scripts: BTreeMap<String, usize> = BTreeMap::new();
    let mut stack: Vec<ElemId> = vec![0];
    while let Some(e) = stack.pop() {
        let el = doc.get(e);
        stack.extend(el.children.iter().copied());
        let id = doc.attr(e, "id").unwrap_or_default();
        if &*el.local == "scriptTask" && id.starts_with("plan_init") {
            let text: String = el
                .children
                .iter()
                .filter(|&&c| &*doc.get(c).local == "script")
                .map(|&c| doc.text_of(c))
                .collect();
            scripts.insert(id.to_string(), text.matches("setv('").count());
        }
    }
    let statements: usize = scripts.values().sum();
    assert!(statements > 1000, "{statements} variables initialised");
    assert_eq!(scripts.len(), statements.div_ceil(500), "{scripts:?}");
    assert!(scripts.values().all(|&n| n <= 500), "{scripts:?}");
    assert!(scripts.contains_key("plan_init") && scripts.contains_key("plan_init_2"));
}

/// The BPMN of one workflow plan of a YAML input.
fn workflow_bpmn(path: &std::path::Path, workflow: &str) -> (ConcretePlan, Bpmn) {
    let (loaded, plans) = crate::support::all_plans(path);
    let p = plans
        .into_iter()
        .find(|p| p.plan.kind == PlanKind::Workflow(workflow.into()))
        .unwrap();
    let b = bpmn(&loaded, &p);
    check(&format!("{} {}", path.display(), b.name), &p, &b);
    (p, b)
}

/// The flow nodes, flows and boundary events of a BPMN process, by id.
struct Model {
    doc: Document,
    /// id → element.
    elements: HashMap<String, ElemId>,
    /// Sequence flows: id, source, target.
    flows: Vec<(String, String, String)>,
}

impl Model {
    fn new(text: &str) -> Model {
        let doc = Document::parse(text).unwrap();
        let mut elements = HashMap::new();
        let mut flows = Vec::new();
        let mut stack: Vec<ElemId> = vec![0];
        while let Some(e) = stack.pop() {
            let el = doc.get(e);
            stack.extend(el.children.iter().copied());
            if el.ns.as_deref() != Some(BPMN) {
                continue;
            }
            if let Some(id) = doc.attr(e, "id") {
                elements.insert(id.to_string(), e);
                if &*el.local == "sequenceFlow" {
                    flows.push((
                        id.to_string(),
                        doc.attr(e, "sourceRef").unwrap().to_string(),
                        doc.attr(e, "targetRef").unwrap().to_string(),
                    ));
                }
            }
        }
        Model {
            doc,
            elements,
            flows,
        }
    }

    /// The element kind (local name) of `id`.
    fn kind(&self, id: &str) -> &str {
        let e = self.elements.get(id).unwrap_or_else(|| panic!("no `{id}`"));
        &self.doc.get(*e).local
    }

    /// The attribute `a` of `id`.
    fn attr(&self, id: &str, a: &str) -> Option<&str> {
        self.doc.attr(self.elements[id], a)
    }

    /// The targets of the flows out of `id`, sorted.
    fn next(&self, id: &str) -> Vec<&str> {
        let mut v: Vec<&str> = self
            .flows
            .iter()
            .filter(|(_, s, _)| s == id)
            .map(|(_, _, t)| t.as_str())
            .collect();
        v.sort();
        v
    }

    /// The flow from `from` to `to`: its id and condition text.
    fn flow(&self, from: &str, to: &str) -> (&str, Option<String>) {
        let (id, _, _) = self
            .flows
            .iter()
            .find(|(_, s, t)| s == from && t == to)
            .unwrap_or_else(|| panic!("no flow {from} → {to}"));
        let e = self.elements[id];
        let condition = self
            .doc
            .children(e, BPMN, "conditionExpression")
            .next()
            .map(|c| self.doc.get(c).text.clone());
        (id, condition)
    }

    /// The default flow's target of exclusive gateway `id`.
    fn default_target(&self, id: &str) -> &str {
        let f = self.attr(id, "default").unwrap();
        &self.flows.iter().find(|(i, _, _)| i == f).unwrap().2
    }

    /// The id of the subprocess that holds `id`, if any.
    fn parent(&self, id: &str) -> Option<&str> {
        let mut e = self.elements[id];
        loop {
            e = self.doc.get(e).parent?;
            let el = self.doc.get(e);
            if &*el.local == "subProcess" {
                return self.doc.attr(e, "id");
            }
        }
    }

    /// The text of every descendant of `id`.
    /// The constant values a call activity passes in, by target.
    fn passed(&self, id: &str) -> HashMap<String, String> {
        let mut out = HashMap::new();
        let mut stack = vec![self.elements[id]];
        while let Some(e) = stack.pop() {
            let el = self.doc.get(e);
            if let ("in", Some(t), Some(v)) = (
                &*el.local,
                self.doc.attr(e, "target"),
                self.doc.attr(e, "sourceExpression"),
            ) {
                out.insert(t.to_string(), v.to_string());
            }
            stack.extend(el.children.iter().copied());
        }
        out
    }

    /// The `camunda:in` and `out` of element `id` that pass a variable:
    /// (`in` or `out`, source, target).
    fn mappings(&self, id: &str) -> Vec<(&'static str, String, String)> {
        let mut out = Vec::new();
        let mut stack = vec![self.elements[id]];
        while let Some(e) = stack.pop() {
            let el = self.doc.get(e);
            let kind = match &*el.local {
                "in" => "in",
                "out" => "out",
                _ => "",
            };
            if let (false, Some(s), Some(t)) = (
                kind.is_empty(),
                self.doc.attr(e, "source"),
                self.doc.attr(e, "target"),
            ) {
                out.push((kind, s.to_string(), t.to_string()));
            }
            stack.extend(el.children.iter().copied());
        }
        out
    }

    fn text(&self, id: &str) -> String {
        let mut out = String::new();
        let mut stack = vec![self.elements[id]];
        while let Some(e) = stack.pop() {
            let el = self.doc.get(e);
            out.push_str(&el.text);
            stack.extend(el.children.iter().rev().copied());
        }
        out
    }
}

/// The imperative workflows of the TOSCA 1.3 examples (chapter 7) and
/// Puccini's workflow example: every plan renders as BPMN that passes the
/// structural checks, the same bytes twice.
#[test]
fn workflow_bpmn_plans_are_well_formed_parallel_and_drawn() {
    let mut inputs: Vec<std::path::PathBuf> =
        crate::support::sorted_dir(&repo().join("tests/spec-examples"))
            .into_iter()
            .filter(|p| {
                p.file_name()
                    .is_some_and(|n| n.to_string_lossy().starts_with("7."))
            })
            .collect();
    inputs.push(crate::support::shared().join("corpus/yaml/puccini/examples/tour/workflows.yaml"));
    inputs.push(repo().join("tests/workflows/routing.yaml"));
    let mut workflows = 0;
    for path in &inputs {
        let (loaded, plans) = crate::support::all_plans(path);
        for p in &plans {
            let b = bpmn(&loaded, p);
            check(&format!("{} {}", path.display(), b.name), p, &b);
            let again = bpmn(&loaded, p);
            assert!(
                b.text == again.text,
                "{}: not deterministic",
                path.display()
            );
            workflows += usize::from(matches!(p.plan.kind, PlanKind::Workflow(_)));
        }
    }
    assert_eq!(workflows, 15, "workflow plans");
}

/// §7.3.7.1: `backup_step` fails over to `rollback_step`; the paths do not
/// join, so the failure is routed by the token: the error boundary event
/// of `backup_step` leads into `rollback_step`, its normal end skips it.
#[test]
fn on_failure_without_joins_is_routed_by_the_token() {
    let (_, b) = workflow_bpmn(&repo().join("tests/spec-examples/7.3.7.1.yaml"), "backup");
    let m = Model::new(&b.text);
    assert_eq!(m.kind("backup_step_catch"), "boundaryEvent");
    assert_eq!(
        m.attr("backup_step_catch", "attachedToRef"),
        Some("backup_step")
    );
    assert_eq!(m.attr("backup_step_catch", "name"), Some("failed"));
    assert_eq!(m.next("backup_step_catch"), ["rollback_step"]);
    assert_eq!(m.next("backup_step"), ["rollback_step_skipped"]);
    assert_eq!(m.kind("rollback_step_skipped"), "endEvent");
    assert_eq!(m.next("rollback_step"), ["rollback_step_finished"]);
    assert_eq!(m.kind("rollback_step_finished"), "endEvent");
    // As in BPEL, a routed failure does not mark the instance ERROR at the
    // activity (the loop turn does, per instance) and does not fail the plan.
    assert!(!m.elements.contains_key("backup_step_markError"));
    assert!(!m.elements.contains_key("backup_step_failed"));
    // rollback_step's failure fails the plan: toscanini_each marks the
    // failed turn's instance ERROR and throws the activity error.
    assert!(!m.elements.contains_key("rollback_step_catch"));
    assert_eq!(
        m.attr("rollback_step", "calledElement"),
        Some("toscanini_each")
    );
    // No variable decides: no exclusive gateway between the activities.
    for (id, e) in &m.elements {
        if m.doc.get(*e).local == "exclusiveGateway" {
            assert_ne!(m.parent(id), Some("plan_activities"), "{id}");
        }
    }
    assert!(!b.text.contains("_outcome"));
}

/// Puccini's workflow example: `backup` fails over to `notify_admins`,
/// and `restart` joins `shutdown` and `backup`. Where paths join, every
/// activity of the region ends normally and decides from variables:
/// `backup` catches its failure in `backup_try` and records it, the
/// activities after it start with a gateway.
#[test]
fn on_failure_with_joins_is_decided_inside_the_activities() {
    let (p, b) = workflow_bpmn(
        &crate::support::shared().join("corpus/yaml/puccini/examples/tour/workflows.yaml"),
        "backup",
    );
    let m = Model::new(&b.text);
    // The graph between the activities is the plain one.
    assert_eq!(m.next("notify_users"), ["notify_users_fork"]);
    assert_eq!(m.next("notify_users_fork"), ["backup", "shutdown"]);
    assert_eq!(m.next("backup"), ["backup_fork"]);
    assert_eq!(m.next("backup_fork"), ["notify_admins", "restart_join"]);
    assert_eq!(m.kind("restart_join"), "parallelGateway");
    assert_eq!(m.next("shutdown"), ["restart_join"]);
    assert_eq!(m.flow("backup_fork", "notify_admins").1, None);
    assert_eq!(
        m.attr(m.flow("backup_fork", "notify_admins").0, "name"),
        Some("on failure")
    );
    // backup: its steps in backup_try, whose boundary event records the
    // error code; it ends normally either way and sets its outcome.
    assert_eq!(m.kind("backup_try"), "subProcess");
    assert_eq!(m.parent("backup_try"), Some("backup"));
    assert_eq!(m.parent("backup_list"), Some("backup_try"));
    assert_eq!(m.attr("backup_catch", "attachedToRef"), Some("backup_try"));
    assert_eq!(m.next("backup_catch"), ["backup_caught"]);
    assert_eq!(m.next("backup_try"), ["backup_done"]);
    assert!(
        b.text
            .contains("<errorEventDefinition camunda:errorCodeVariable=\"backup_outcome\"/>"),
        "the boundary event stores the error code"
    );
    assert!(b.text.contains(
        "<camunda:outputParameter name=\"backup_outcome\">${(backup_outcome == '' ? 'ok' : backup_outcome)}</camunda:outputParameter>"
    ));
    assert!(m.text("plan_init").contains("setv('backup_outcome', '')"));
    // notify_admins runs only if backup failed (the default skips it: a
    // run without failures); restart only if backup succeeded.
    assert_eq!(m.next("notify_admins_start"), ["notify_admins_gate"]);
    assert_eq!(
        m.default_target("notify_admins_gate"),
        "notify_admins_skipped"
    );
    assert_eq!(
        m.flow("notify_admins_gate", "notify_admins_list")
            .1
            .as_deref(),
        Some("${backup_outcome != '' && backup_outcome != 'ok'}")
    );
    assert_eq!(m.default_target("restart_gate"), "restart_list");
    assert_eq!(
        m.flow("restart_gate", "restart_skipped").1.as_deref(),
        Some("${!(backup_outcome == 'ok')}")
    );
    // The other activities are as ever.
    for a in ["notify_users", "shutdown"] {
        assert!(!m.elements.contains_key(&format!("{a}_gate")));
        assert!(!m.elements.contains_key(&format!("{a}_try")));
    }
    assert_eq!(p.plan.activities.len(), 5);
}

/// §7.3.5: two preconditions before the step, and the step's filter. A
/// precondition reads the state and fails the plan with the BPMN error
/// where it does not hold; the filter ends the turn of an instance that
/// does not meet it, and the operation runs on the others.
#[test]
fn preconditions_fail_the_plan_and_filters_skip_instances() {
    let (_, b) = workflow_bpmn(&repo().join("tests/spec-examples/7.3.5.yaml"), "backup");
    let m = Model::new(&b.text);
    for (p, url, holds) in [
        (
            "precondition_1_s1",
            "${inst_my_server_url}/state",
            "body().trim().toUpperCase() == 'AVAILABLE'",
        ),
        (
            "precondition_2_s1",
            "${inst_cluster_url}/state",
            "((body().trim().toUpperCase() == 'STARTED' || body().trim().toUpperCase() == 'AVAILABLE') && v('prop_cluster_my_attribute') == 'ready')",
        ),
    ] {
        assert_eq!(m.kind(p), "serviceTask", "{p}");
        let text = m.text(p);
        assert!(text.contains(url), "{p}: {text}");
        assert!(
            text.contains(&format!(
                "if (!({holds})) fail('{p}: the precondition does not hold"
            )),
            "{p}: {text}"
        );
        // Per instance, inside the loop turn.
        assert_eq!(m.parent(p), Some(&*format!("{}_each", &p[..p.len() - 3])));
    }
    assert_eq!(m.kind("backup_step_s1"), "scriptTask");
    assert!(m.text("backup_step_s1").contains(
        "execution.setVariable('backup_step_s1_met', (v('prop_cluster_foo') == 'true' || (cmp(v('prop_cluster_bar'), '>', '2') && cmp(v('prop_cluster_bar'), '<', '20'))))"
    ));
    assert_eq!(m.parent("backup_step_s1"), Some("backup_step_each"));
    assert_eq!(m.next("backup_step_s1"), ["backup_step_s1_meets"]);
    assert_eq!(m.kind("backup_step_s1_meets"), "exclusiveGateway");
    assert_eq!(m.default_target("backup_step_s1_meets"), "backup_step_s2");
    assert_eq!(
        m.flow("backup_step_s1_meets", "backup_step_s1_skip")
            .1
            .as_deref(),
        Some("${!backup_step_s1_met}")
    );
    assert_eq!(m.kind("backup_step_s1_skip"), "endEvent");
    assert_eq!(
        m.passed("backup_step_s2")
            .get("operation")
            .map(String::as_str),
        Some("backup")
    );
}

/// tests/workflows/routing.yaml, `chain`: no paths join, so every
/// failure is routed by the token. `s1` is routed and may be skipped: each
/// of its three exits (succeeded, failed, skipped) leaves by one flow per
/// edge (a fork), live where the edge holds and into the successor's skip
/// marker elsewhere; a successor dead on two exits merges them first.
#[test]
fn token_routing_forks_every_exit_and_merges_dead_ends() {
    let (_, b) = workflow_bpmn(&repo().join("tests/workflows/routing.yaml"), "chain");
    let m = Model::new(&b.text);
    assert_eq!(m.next("a"), ["a_fork"]);
    assert_eq!(m.next("a_fork"), ["f1_skipped", "f2_skipped", "s1"]);
    assert_eq!(m.next("a_catch"), ["a_failFork"]);
    assert_eq!(m.next("a_failFork"), ["f1", "f2", "s1_skipped"]);
    assert_eq!(m.kind("s1_skipped"), "intermediateThrowEvent");
    assert_eq!(m.next("s1_skipped"), ["s1_skipFork"]);
    assert_eq!(m.next("s1"), ["s1_fork"]);
    assert_eq!(m.next("s1_fork"), ["g_skipMerge", "s2", "s3"]);
    assert_eq!(m.next("s1_failFork"), ["g", "s2_skipMerge", "s3_skipMerge"]);
    assert_eq!(
        m.next("s1_skipFork"),
        ["g_skipMerge", "s2_skipMerge", "s3_skipMerge"]
    );
    for x in ["g", "s2", "s3"] {
        let merge = format!("{x}_skipMerge");
        let skipped = format!("{x}_skipped");
        assert_eq!(m.kind(&merge), "exclusiveGateway");
        assert_eq!(m.next(&merge), [skipped.as_str()]);
        // Last activities end in end events of their own, either way.
        assert_eq!(m.kind(&skipped), "endEvent");
        assert_eq!(m.next(x), [format!("{x}_finished").as_str()]);
    }
    for x in ["f1", "f2"] {
        assert_eq!(m.kind(&format!("{x}_skipped")), "endEvent");
    }
    // Nothing joins them: no plan_join, no plan_activitiesEnd.
    assert!(!m.elements.contains_key("plan_join"));
    assert!(!m.elements.contains_key("plan_activitiesEnd"));
}

/// tests/workflows/routing.yaml, `joined`: `f1` follows the failure of
/// `a` and of `s1`, `j` follows `s1` and `f1` (both must succeed, so `j`
/// never runs: `f1` runs only if `s1` failed). Each gateway reads the
/// outcomes of the activity's predecessors; `s1`, routed and skippable,
/// has both the gateway and the `_try` subprocess, and its outcome is
/// empty when it was skipped.
#[test]
fn decisions_inside_read_the_outcomes_of_every_predecessor() {
    let (_, b) = workflow_bpmn(&repo().join("tests/workflows/routing.yaml"), "joined");
    let m = Model::new(&b.text);
    assert_eq!(m.next("s1_gate"), ["s1_skipped", "s1_try"]);
    assert_eq!(m.default_target("s1_gate"), "s1_try");
    assert_eq!(
        m.flow("s1_gate", "s1_skipped").1.as_deref(),
        Some("${!(a_outcome == 'ok')}")
    );
    assert!(b.text.contains(
        "<camunda:outputParameter name=\"s1_outcome\">${(a_outcome == 'ok') ? (s1_outcome == '' ? 'ok' : s1_outcome) : ''}</camunda:outputParameter>"
    ));
    assert_eq!(m.default_target("f1_gate"), "f1_skipped");
    assert_eq!(
        m.flow("f1_gate", "f1_list").1.as_deref(),
        Some("${a_outcome != '' && a_outcome != 'ok' && s1_outcome != '' && s1_outcome != 'ok'}")
    );
    assert_eq!(m.default_target("j_gate"), "j_skipped");
    assert_eq!(
        m.flow("j_gate", "j_list").1.as_deref(),
        Some("${s1_outcome == 'ok' && f1_outcome == 'ok'}")
    );
    assert_eq!(m.kind("f1_join"), "parallelGateway");
    assert_eq!(m.kind("j_join"), "parallelGateway");
}

/// tests/workflows/routing.yaml, `joined`: an activity that its gateway
/// may skip writes its `started` entry in the plan instance's log when
/// the flow into its steps is taken, and its end only if it started, so
/// a skipped one logs nothing (as its BPEL scope, never entered); an
/// activity no gateway skips logs when its subprocess starts and ends,
/// `cancelled` where its routed failure was caught.
#[test]
fn a_skipped_activity_logs_nothing() {
    let (_, b) = workflow_bpmn(&repo().join("tests/workflows/routing.yaml"), "joined");
    let listener = |event: &str| {
        format!(
            "<camunda:executionListener event=\"{event}\"><camunda:script scriptFormat=\"groovy\" resource=\"deployment://plan-log.groovy\"/></camunda:executionListener>"
        )
    };
    let (start, end, take) = (listener("start"), listener("end"), listener("take"));
    let opening = |id: &str| {
        let at = b.text.find(&format!("<subProcess id=\"{id}\"")).unwrap();
        &b.text[at..at + b.text[at..].find("</extensionElements>").unwrap()]
    };
    assert!(opening("a").contains(&format!("{start}{end}")));
    for gated in ["s1", "f1", "j"] {
        assert!(
            !opening(gated).contains(&start),
            "{gated} logs when it is entered"
        );
        assert!(
            opening(gated).contains(&end),
            "{gated} does not log its end"
        );
    }
    for run in [
        "id=\"s1_f3\" name=\"run\"",
        "id=\"f1_f3\" name=\"run\"",
        "id=\"j_f3\" name=\"run\"",
    ] {
        let at = b.text.find(run).unwrap_or_else(|| panic!("no flow {run}"));
        let flow = &b.text[at..at + b.text[at..].find("</sequenceFlow>").unwrap()];
        assert!(flow.contains(&take), "{run} does not log the start");
    }
    // A routed activity's steps failing end it `cancelled` (the flow out
    // of their error boundary event marks it), as in BPEL.
    for routed in ["a", "s1"] {
        let from = format!("sourceRef=\"{routed}_catch\" targetRef=\"{routed}_caught\"");
        let at = b
            .text
            .find(&from)
            .unwrap_or_else(|| panic!("no flow {from}"));
        let flow = &b.text[at..at + b.text[at..].find("</sequenceFlow>").unwrap()];
        assert!(
            flow.contains(&take),
            "{routed}'s routed failure is not logged"
        );
    }
    assert_eq!(b.text.matches(&take).count(), 5);
}

/// tests/workflows/routing.yaml, `deploy` (the build plan): a routed
/// activity of one instance does not mark it ERROR when it fails (as in
/// BPEL); its failure exit forks into `c` and the skip of `b`. A routed
/// delegated deployment keeps its compensation handler, drawn beside the
/// failure route. The instance a deploy step registers starts from its
/// modelled properties, in both languages.
#[test]
fn a_routed_build_step_does_not_mark_its_instance() {
    let (loaded, plans) = crate::support::all_plans(&repo().join("tests/workflows/routing.yaml"));
    let p = plans
        .iter()
        .find(|p| p.plan.kind == PlanKind::Build)
        .unwrap();
    let b = bpmn(&loaded, p);
    check("routing build", p, &b);
    assert!(b.text.contains("setv('prop_node_level', '3')"));
    let process = crate::support::main_file(p, &loaded.topology, toscanini::Language::Bpel);
    assert!(process.contains("<from>'3'</from><to>$prop_node/*:level</to>"));
    let m = Model::new(&b.text);
    assert_eq!(m.next("a_catch"), ["a_failFork"]);
    assert_eq!(m.next("a_failFork"), ["b_skipped", "c"]);
    assert_eq!(m.next("a_fork"), ["b", "c_skipped"]);
    assert!(!m.elements.contains_key("a_markError"));
    // b's failure fails the plan: the call of toscanini_run marks b's
    // instance ERROR and throws the activity error; nothing at the activity.
    assert!(!m.elements.contains_key("b_catch"));
    assert_eq!(m.attr("b", "calledElement"), Some("toscanini_run"));
    // (The first variable of its steps: b's instance URL, passed in.)
    assert_eq!(m.passed("b")["mark"], "1");
    let url = ("in", "inst_node_url".to_string(), "v:1".to_string());
    assert!(m.mappings("b").contains(&url), "{:?}", m.mappings("b"));
    assert_eq!(m.next("server_up_deploy_catch"), ["server_failed"]);
    assert_eq!(m.next("server_up_deploy"), ["server_failed_skipped"]);
    assert_eq!(
        m.attr("server_up_deploy_compensation", "attachedToRef"),
        Some("server_up_deploy")
    );
    // Its undo is one call of toscanini_run, marked as a compensation handler.
    assert_eq!(m.kind("server_up_deploy_undo"), "callActivity");
    assert_eq!(
        m.attr("server_up_deploy_undo", "isForCompensation"),
        Some("true")
    );
}

/// Snapshots of the BPMN of the workflows with `on_failure` routing (by
/// the token: §7.3.7.1; inside the activities: Puccini's example) and with
/// preconditions and a filter (§7.3.5).
#[test]
fn workflow_bpmn_plan_snapshots() {
    for (label, path) in [
        (
            "spec-7.3.7.1",
            repo().join("tests/spec-examples/7.3.7.1.yaml"),
        ),
        ("spec-7.3.5", repo().join("tests/spec-examples/7.3.5.yaml")),
        (
            "puccini-workflows",
            crate::support::shared().join("corpus/yaml/puccini/examples/tour/workflows.yaml"),
        ),
    ] {
        let (_, b) = workflow_bpmn(&path, "backup");
        insta::assert_snapshot!(format!("{label}__workflow-backup__{}", b.name), b.text);
    }
}

/// The check of `steps` fails on steps that read a variable nothing passed
/// in or kept, and on a variable passed out that no step keeps.
#[test]
fn steps_that_read_or_pass_out_what_nothing_set_fail_the_check() {
    let call = |steps: &str, more: &str| {
        format!(
            "<definitions xmlns=\"{BPMN}\" xmlns:camunda=\"http://camunda.org/schema/1.0/bpmn\">\
             <process id=\"p\"><callActivity id=\"a\" calledElement=\"toscanini_run\">\
             <extensionElements><camunda:in sourceExpression=\"{steps}\" target=\"steps\"/>\
             <camunda:in source=\"x\" target=\"v:x\"/>{more}</extensionElements>\
             </callActivity></process></definitions>"
        )
    };
    let run = |text: String| {
        std::panic::catch_unwind(move || {
            let doc = Document::parse(&text).unwrap();
            check_steps("test", &doc, 2);
        })
    };
    // Reads x (passed in), keeps u and passes it out: fine.
    let ok = call(
        "register url=$(x)/i serviceInstanceID=$(x) u&lt;instanceURL",
        "<camunda:out source=\"v:u\" target=\"u\"/>",
    );
    assert!(run(ok).is_ok());
    // Reads y, which nothing passed in.
    assert!(run(call("state url=$(y) state=CREATED", "")).is_err());
    // Passes out w, which no step keeps.
    let out = "<camunda:out source=\"v:w\" target=\"w\"/>";
    assert!(run(call("state url=$(x) state=CREATED", out)).is_err());
    // Names no process of the library.
    assert!(run(call("launch url=$(x)", "")).is_err());
    // An invocation that names no bus, CSAR or service instance reads the
    // activity's: they must be passed in.
    let invoke = "invoke nodeInstanceID=$(x) operation=start";
    let given = ["ManagementBusURL", "csarID", "serviceInstanceURL"]
        .map(|v| format!("<camunda:in source=\"{v}\" target=\"v:{v}\"/>"))
        .concat();
    assert!(run(call(invoke, &given)).is_ok());
    assert!(run(call(invoke, "")).is_err());
    // So does a registration its service instance.
    let register = "register url=$(x)/i u&lt;instanceURL";
    let sid = "<camunda:in source=\"serviceInstanceID\" target=\"v:serviceInstanceID\"/>";
    assert!(run(call(register, sid)).is_ok());
    assert!(run(call(register, "")).is_err());
    // A state without a URL is set on the first variable's instance.
    let first = "<camunda:in source=\"y\" target=\"v:1\"/>";
    assert!(run(call("state state=CREATED", first)).is_ok());
    assert!(run(call("state state=CREATED", "")).is_err());
    // Marks the instance in u, kept by its step, and has the service
    // instance's URL: fine; without the service instance's, or marking one
    // nothing passed in or kept, not.
    let mark = |var: &str, more: &str| {
        format!("<camunda:in sourceExpression=\"{var}\" target=\"mark\"/>{more}")
    };
    let service = "<camunda:in source=\"serviceInstanceURL\" target=\"v:serviceInstanceURL\"/>";
    let register = "register url=$(x)/i serviceInstanceID=$(x) u&lt;instanceURL";
    assert!(run(call(register, &mark("u", service))).is_ok());
    assert!(run(call(register, &mark("u", ""))).is_err());
    assert!(run(call(register, &mark("w", service))).is_err());
}
