//! The Groovy of a BPMN plan. Helpers (reading variables, escaping,
//! JSON and XML answers of the container, failing with the BPMN error)
//! are defined once, in `templates/bpmn/scripts/prelude.groovy`.
//!
//! A script that is the same wherever it is used (check the HTTP status,
//! read the instance URL from the answer, …) is a file of the plan
//! archive, which is the Camunda deployment, and tasks reference it with
//! `resource="deployment://<file>"`: [`Shared`]. A script that differs
//! from task to task (a payload, a URL) is written inline, with the
//! helpers it calls in front of it: [`Library::inline`].

use std::fmt::Write as _;
use std::sync::OnceLock;

use super::groovy::literal;
use super::library::{BUS, DEFAULTS, RUN_STEPS};
use crate::render::templates::Templates;

/// A shared script of the plan archive.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub(crate) enum Shared {
    /// Output `httpStatus`: fail with the BPMN error unless the status is 2xx.
    Check,
    /// The instance URL in the answer to a POST of the instance API.
    InstanceUrl,
    /// The instance id in the answer to a POST of the instance API.
    InstanceId,
    /// The invocation the management bus takes, built from the variables
    /// passed to `toscanini_invoke` (script task of the reusable process).
    Invocation,
    /// Where to poll an operation: the `Location` of the bus's answer,
    /// resolved against the bus URL.
    Location,
    /// Whether the operation the bus answers about is still running (fails
    /// with the BPMN error when it ended in a fault).
    Pending,
    /// The ids of the instances in a list answer, comma separated.
    InstanceIds,
    /// How many instances a list answer holds.
    InstanceCount,
    /// The target instance id of the first relationship instance in a list answer.
    TargetId,
    /// Its URL: `base`, then the id.
    TargetUrl,
    /// Script task after an operation with outputs: store them (task
    /// locals `result` and `output:<name>` = variable).
    OperationResult,
    /// Execution listener of an activity: an entry in the plan instance's
    /// log when it starts and when it ends.
    PlanLog,
    /// The request of `toscanini_relate`: a relationship instance between
    /// the node instances `source` and `target`.
    Relationship,
    /// The document of `toscanini_properties`: element `root` in
    /// `namespace`, one element per name of `names`.
    Properties,
    /// Script task of `toscanini_load`: `prop:<name>` for each name of
    /// `names`, read from the properties answer.
    Load,
    /// Script task of `toscanini_each`: the next instance of the list,
    /// into the variables the turn reads.
    NextInstance,
    /// Script task of `toscanini_run`: keep what the step before gave
    /// back, clear the rest, and set up the next step of `steps`.
    RunStep,
    /// Script task of `toscanini_run`'s error path: the instance to mark
    /// ERROR.
    MarkUrl,
    /// A property of a JSON properties answer: index into the plan's
    /// property files ([`PropertyFiles`]).
    Property(u32),
}

/// Every shared script but the property ones, in file name order.
const FIXED: [Shared; 18] = [
    Shared::Check,
    Shared::InstanceCount,
    Shared::InstanceId,
    Shared::InstanceIds,
    Shared::InstanceUrl,
    Shared::Invocation,
    Shared::Load,
    Shared::Location,
    Shared::MarkUrl,
    Shared::NextInstance,
    Shared::OperationResult,
    Shared::Pending,
    Shared::PlanLog,
    Shared::Properties,
    Shared::Relationship,
    Shared::RunStep,
    Shared::TargetId,
    Shared::TargetUrl,
];

impl Shared {
    fn file(self) -> &'static str {
        match self {
            Shared::Check => "check.groovy",
            Shared::InstanceUrl => "instance-url.groovy",
            Shared::InstanceId => "instance-id.groovy",
            Shared::Invocation => "invocation.groovy",
            Shared::Location => "location.groovy",
            Shared::Pending => "pending.groovy",
            Shared::InstanceIds => "instance-ids.groovy",
            Shared::InstanceCount => "instance-count.groovy",
            Shared::TargetId => "target-id.groovy",
            Shared::TargetUrl => "target-url.groovy",
            Shared::OperationResult => "operation-result.groovy",
            Shared::PlanLog => "plan-log.groovy",
            Shared::Relationship => "relationship.groovy",
            Shared::Properties => "properties.groovy",
            Shared::Load => "load.groovy",
            Shared::RunStep => "run-step.groovy",
            Shared::NextInstance => "next-instance.groovy",
            Shared::MarkUrl => "mark-url.groovy",
            Shared::Property(_) => "",
        }
    }

    fn slot(self) -> usize {
        match self {
            Shared::Property(i) => FIXED.len() + i as usize,
            s => FIXED.iter().position(|f| *f == s).unwrap_or(0),
        }
    }

    /// What the file says about itself, and its script.
    fn text(self) -> (&'static str, String) {
        match self {
            Shared::Check => (
                "Output mapping `httpStatus` of every REST call: the status, or the BPMN\n// error ToscaniniFailure when it is not 2xx.",
                "check('HTTP call')".into(),
            ),
            Shared::InstanceUrl => (
                "The URL of the instance the instance API created.",
                "url(body())".into(),
            ),
            Shared::InstanceId => (
                "The id of the instance the instance API created.",
                "last(url(body()))".into(),
            ),
            Shared::Location => (
                "Where to poll a running operation: the Location the management bus\n// answered, resolved against the bus URL.",
                format!(
                    "new URI(v({})).resolve((binding.variables.get('headers')?.find {{ k, _ -> k?.equalsIgnoreCase('Location') }}?.value ?: '').toString()).toString()",
                    // It runs in toscanini_invoke, whose bus variable is fixed.
                    literal(BUS)
                ),
            ),
            Shared::Invocation => (
                "Script task of toscanini_invoke: the invocation the management bus takes,\n// as `payload`, from the variables the call passed in (`param:<name>` for\n// each input parameter, in name order; an unset value is '').",
                "def vars = execution.variables\n\
                 def str = { k -> def o = vars[k]; o == null ? '' : o.toString() }\n\
                 def fields = ['csarID', 'serviceTemplateID', 'serviceInstanceID', 'nodeTemplateID', 'nodeInstanceID', 'relationshipTemplateID', 'interface', 'operation'].findAll { vars.containsKey(it) }\n\
                 def params = vars.keySet().findAll { it.startsWith('param:') }.sort()\n\
                 execution.setVariable('payload', '{\"invocation-information\":{' + fields.collect { q(it) + ':' + q(str(it)) }.join(',') + '},\"params\":{' + params.collect { q(it.substring(6)) + ':' + q(str(it)) }.join(',') + '}}')"
                    .into(),
            ),
            Shared::Pending => (
                "Whether the operation the management bus answered about still runs;\n// the BPMN error ToscaniniFailure when it ended in a fault.",
                "def pending = (body() =~ '\"status\"\\\\s*:\\\\s*\"PENDING\"').find()\n\
                 def fault = pending ? null : jstr(body(), 'Fault')\n\
                 if (fault != null) fail('operation failed: ' + fault)\n\
                 pending"
                    .into(),
            ),
            Shared::InstanceIds => (
                "The ids of the listed instances, comma separated.",
                "jnum(body(), 'id').join(',')".into(),
            ),
            Shared::InstanceCount => (
                "How many instances the list holds.",
                "jnum(body(), 'id').size()".into(),
            ),
            Shared::TargetId => (
                "The target of the first relationship instance listed ('' if none).",
                "(jnum(body(), 'target_node_template_instance_id') + [''])[0]".into(),
            ),
            Shared::TargetUrl => (
                "The URL of the target of the first relationship instance listed: `base`,\n// the instances of the target's template, then its id ('' if none).",
                "v('base') + '/' + (jnum(body(), 'target_node_template_instance_id') + [''])[0]".into(),
            ),
            Shared::OperationResult => (
                "Script task after an operation with outputs: store them (the poll\n// has checked for a fault). Local variables of the task: `result` (the\n// answer) and, per output, `output:<name>` = the variable that receives it.",
                "def r = v('result')\n\
                 execution.variablesLocal.each { k, n ->\n\
                 \x20 if (k.startsWith('output:')) {\n\
                 \x20   def o = jstr(r, k.substring(7))\n\
                 \x20   if (o != null) execution.setVariable(n.toString(), o)\n\
                 \x20 }\n\
                 }"
                .into(),
            ),
            Shared::PlanLog => (
                "Execution listener of each activity: an entry in the plan instance's log\n// (the container's POST {planInstanceURL}/logs) when the activity starts,\n// and when it ends (finished, or cancelled by a failure, routed or not). An\n// activity that a gateway may skip starts when the flow past it is taken,\n// and one it skipped logs nothing, not its end either. Also of the processes\n// toscanini_run and toscanini_each, for the activity whose call started\n// them (not a turn of toscanini_each, not a compensation handler).",
                "def at = execution\n\
                 def activity = execution.currentActivityId\n\
                 if (execution.processDefinitionId.split(':')[0] in ['toscanini_run', 'toscanini_each']) {\n\
                 \x20 // Which activity it logs for is decided when it starts, and kept.\n\
                 \x20 at = execution.superExecution\n\
                 \x20 def mark = 'log:' + execution.processInstanceId\n\
                 \x20 if (execution.eventName == 'start') {\n\
                 \x20   if (at == null || at.currentActivityId == 'toscanini_each_turn' || at.bpmnModelElementInstance?.getAttributeValue('isForCompensation') == 'true') return\n\
                 \x20   execution.setVariable(mark, at.currentActivityId)\n\
                 \x20 }\n\
                 \x20 activity = execution.getVariable(mark)\n\
                 \x20 if (at == null || activity == null) return\n\
                 }\n\
                 def event = execution.eventName\n\
                 if (event == 'take') {\n\
                 \x20 // A flow in the activity's subprocess, whose execution it is: what\n\
                 \x20 // it marks lasts until the subprocess ends. `run` goes past the\n\
                 \x20 // gateway; another leaves the steps' error boundary event.\n\
                 \x20 def flow = execution.bpmnModelElementInstance\n\
                 \x20 activity = flow.parentElement.getAttributeValue('id')\n\
                 \x20 if (flow.getAttributeValue('name') != 'run') {\n\
                 \x20   execution.setVariableLocal('log:failed', true)\n\
                 \x20   return\n\
                 \x20 }\n\
                 \x20 event = 'start'\n\
                 \x20 execution.setVariableLocal('log:started', true)\n\
                 } else if (at == execution && execution.bpmnModelElementInstance?.elementType?.typeName == 'subProcess') {\n\
                 \x20 if (event == 'start') execution.setVariableLocal('log:started', true)\n\
                 \x20 else if (!execution.getVariableLocal('log:started')) return\n\
                 }\n\
                 def what = event == 'start' ? 'started' : (execution.canceled || (at == execution && execution.getVariableLocal('log:failed')) ? 'cancelled' : 'finished')\n\
                 def entry = what + ' ' + activity\n\
                 def c = new URL((at.getVariable('planInstanceURL') ?: '').toString() + '/logs').openConnection()\n\
                 c.requestMethod = 'POST'\n\
                 c.doOutput = true\n\
                 c.setRequestProperty('Content-Type', 'application/xml')\n\
                 c.outputStream.withWriter('UTF-8') { it << '<log xmlns=\"http://opentosca.org/api\">' + x(entry) + '</log>' }\n\
                 def s = c.responseCode\n\
                 // Not a BPMN error: a log the container refuses is an incident, not a failed operation.\n\
                 if (s < 200 || s > 299) throw new IllegalStateException('plan instance log: HTTP ' + s)"
                    .into(),
            ),
            Shared::Relationship => (
                "Request of toscanini_relate: a relationship instance between the node\n// instances `source` and `target` of service instance `serviceInstanceID`.",
                "'<api:CreateRelationshipTemplateInstanceRequest xmlns:api=\"http://opentosca.org/api\" service-instance-id=\"' + x(v('serviceInstanceID')) + '\" source-instance-id=\"' + x(v('source')) + '\" target-instance-id=\"' + x(v('target')) + '\"/>'"
                    .into(),
            ),
            Shared::Properties => (
                "Request of toscanini_properties: the properties document of an instance,\n// element `root` in `namespace` (none if empty) with one element per name of\n// `names` (comma separated, in order) holding `prop:<name>`.",
                "def ns = v('namespace')\n\
                 def p = ns ? 'p:' : ''\n\
                 def open = ns ? '<p:' + v('root') + ' xmlns:p=\"' + x(ns) + '\">' : '<' + v('root') + '>'\n\
                 def names = v('names') ? v('names').split(',') : []\n\
                 open + names.collect { n -> '<' + p + n + '>' + x(v('prop:' + n)) + '</' + p + n + '>' }.join('') + '</' + p + v('root') + '>'"
                    .into(),
            ),
            Shared::Load => (
                "Script task of toscanini_load: `prop:<name>` for each name of `names`\n// (comma separated), read from the properties answer ('' where it has none).",
                "def r = body()\n\
                 (v('names') ? v('names').split(',') : []).each { n -> execution.setVariable('prop:' + n, jstr(r, n) ?: '') }"
                    .into(),
            ),
            Shared::NextInstance => (
                "Script task of toscanini_each: the next of the instances `ids` (comma\n// separated; `index` counts the turns): its URL (`list` up to its query, `/`,\n// the id) and id as the first two variables of the steps (`v:1`, `v:2`), the\n// URL in `turnURL` too; `more` whether there is one.",
                "def i = (execution.getVariable('index') ?: 0) as int\n\
                 def ids = v('ids').split(',').findAll { it }\n\
                 def more = i < ids.size()\n\
                 if (more) {\n\
                 \x20 def url = v('list').replaceFirst('[?].*', '') + '/' + ids[i]\n\
                 \x20 execution.setVariable('v:URL', url)\n\
                 \x20 execution.setVariable('v:ID', ids[i])\n\
                 \x20 execution.setVariable('turnURL', url)\n\
                 }\n\
                 execution.setVariable('index', i + 1)\n\
                 execution.setVariable('more', more)"
                    .replace("v:URL", &format!("v:{}", super::library::number(0)))
                    .replace("v:ID", &format!("v:{}", super::library::number(1))),
            ),
            Shared::RunStep => (
                "Script task of toscanini_run: keep what the step before gave back (its\n// `VAR<SOURCE` fields, as `v:VAR`), clear every other variable but the\n// steps (`steps`, `steps:2`, … in parts), `step`, `mark` and `log:…`, store the outputs of `outputs` lines, and pass the values of\n// the next call (`call`, '' when there is none) into variables of their own\n// (an `invoke`, `register` or `relate` takes the bus, CSAR and service instance\n// it does not name from the activity's; a `load` or `properties` without `names` its `prop:` fields).",
                "def get = { String n -> execution.getVariable(n) }\n\
                 def unesc = { String s -> s.replaceAll('%([0-9A-F]{2})') { all, h -> ((char) Integer.parseInt(h, 16)).toString() } }\n\
                 def ref = ~/\\$\\(([^)]*)\\)/\n\
                 def value = { String s ->\n\
                 \x20 def one = ref.matcher(s)\n\
                 \x20 if (one.matches()) return get('v:' + unesc(one.group(1)))\n\
                 \x20 def out = new StringBuilder(); def m = ref.matcher(s); def at = 0\n\
                 \x20 while (m.find()) { out << unesc(s.substring(at, m.start())) << (get('v:' + unesc(m.group(1))) ?: ''); at = m.end() }\n\
                 \x20 out << unesc(s.substring(at)); out.toString()\n\
                 }\n\
                 def fields = { String line -> line.split(' ').drop(1).collect { f -> def k = f.indexOf('='); k >= 0 ? [unesc(f.substring(0, k)), f.substring(k + 1), true] : [unesc(f.substring(0, f.indexOf('<'))), unesc(f.substring(f.indexOf('<') + 1)), false] } }\n\
                 def text = get('steps').toString(); def part = 2\n\
                 while (get('steps:' + part) != null) text += get('steps:' + part++)\n\
                 def lines = text.split('\\n')\n\
                 def i = (get('step') ?: 0) as int\n\
                 if (i > 0) fields(lines[i - 1]).findAll { !it[2] }.each { execution.setVariable('v:' + it[0], get(it[1])) }\n\
                 execution.variables.keySet().findAll { !(it.startsWith('v:') || it.startsWith('steps') || it.startsWith('log:') || it == 'step' || it == 'mark') }.each { execution.removeVariable(it) }\n\
                 def call = ''\n\
                 while (i < lines.length && !call) {\n\
                 \x20 def line = lines[i++]\n\
                 \x20 def f = fields(line).findAll { it[2] }\n\
                 \x20 if (line.startsWith('outputs ')) {\n\
                 \x20   def r = (value(f.find { it[0] == 'result' }?.getAt(1) ?: '') ?: '').toString()\n\
                 \x20   f.findAll { it[0].startsWith('output:') }.each { def o = jstr(r, it[0].substring(7)); if (o != null) execution.setVariable('v:' + unesc(it[1]), o) }\n\
                 \x20 } else {\n\
                 \x20   call = line.split(' ')[0]\n\
                 \x20   if (!(call in [STEPS])) fail('toscanini_run: no step ' + call)\n\
                 \x20   f.each { execution.setVariable(it[0], value(it[1])) }\n\
                 \x20   [DEFAULTS].each { c, k, d -> if (call == c && !f.any { it[0] == k }) execution.setVariable(k, get('v:' + d)) }\n\
                 \x20   if (call in ['load', 'properties'] && !f.any { it[0] == 'names' }) execution.setVariable('names', fields(line).collect { it[2] ? it[0] : it[1] }.findAll { it.startsWith('prop:') }.collect { it.substring(5) }.join(','))\n\
                 \x20 }\n\
                 }\n\
                 execution.setVariable('step', i)\n\
                 execution.setVariable('call', call)"
                    .replace("STEPS", &run_steps())
                    .replace("DEFAULTS", &defaults()),
            ),
            Shared::MarkUrl => (
                "Script task of toscanini_run's error path: `markURL`, the instance to mark\n// ERROR: the URL in the variable the call named in `mark` (the activity's\n// instance), else the service instance's; '' where it named none (the\n// error passes on).",
                "def m = execution.getVariable('mark')\n\
                 execution.setVariable('markURL', m == null ? '' : (v('v:' + m) ?: v('v:serviceInstanceURL')))"
                    .into(),
            ),
            Shared::Property(_) => ("", String::new()),
        }
    }
}

/// What a line takes where it does not say, as a Groovy list of
/// `[step, field, variable]` ([`DEFAULTS`]).
fn defaults() -> String {
    let triples = DEFAULTS.iter().map(|(process, field, var)| {
        let step = process.trim_start_matches("toscanini_");
        format!("[{}, {}, {}]", literal(step), literal(field), literal(var))
    });
    triples.collect::<Vec<_>>().join(", ")
}

/// The steps toscanini_run can take, as a Groovy list of quoted names
/// (`'invoke', 'state', …`: [`RUN_STEPS`] without their `toscanini_`).
fn run_steps() -> String {
    let names = RUN_STEPS.iter().map(|p| p.trim_start_matches("toscanini_"));
    names.map(literal).collect::<Vec<_>>().join(", ")
}

/// The property files of a plan: one per property name it loads (names
/// that make a portable file name; others are read inline).
#[derive(Debug, Default)]
pub(crate) struct PropertyFiles {
    names: Vec<String>,
    index: foldhash::HashMap<String, u32>,
    lower: foldhash::HashSet<String>,
}

impl PropertyFiles {
    /// The shared script reading property `name`, if it gets a file.
    pub(crate) fn get(&mut self, name: &str) -> Option<Shared> {
        if let Some(&i) = self.index.get(name) {
            return Some(Shared::Property(i));
        }
        let portable = !name.is_empty()
            && name.len() <= 64
            && name
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.'))
            && !name.starts_with('.');
        // Distinct also on file systems that ignore case.
        if !portable || !self.lower.insert(name.to_ascii_lowercase()) {
            return None;
        }
        let i = self.names.len() as u32;
        self.names.push(name.to_string());
        self.index.insert(name.to_string(), i);
        Some(Shared::Property(i))
    }
}

/// A helper of the prelude.
struct Helper {
    /// `def <name> = …` and the lines that continue it.
    full: String,
    /// The same without comment lines, for inline copies.
    compact: String,
    /// Bit set of the helpers it needs, itself included (transitively).
    needs: u32,
    /// `name(`, to find calls.
    call: String,
}

/// The helpers of the prelude, parsed once.
pub(crate) struct Library {
    helpers: Vec<Helper>,
    /// Comment lines at the top of the prelude.
    header: String,
}

/// The library of the embedded prelude.
pub(crate) fn library() -> &'static Library {
    static LIB: OnceLock<Library> = OnceLock::new();
    LIB.get_or_init(|| Library::parse(Templates::raw("bpmn/scripts/prelude.groovy")))
}

/// Whether `text` calls `call` (`name(`, not preceded by a name character or `.`).
fn calls(text: &str, call: &str) -> bool {
    text.match_indices(call).any(|(i, _)| {
        text[..i]
            .chars()
            .next_back()
            .is_none_or(|c| !(c.is_ascii_alphanumeric() || c == '_' || c == '.'))
    })
}

impl Library {
    fn parse(prelude: &str) -> Library {
        let mut helpers: Vec<Helper> = Vec::new();
        let mut header = String::new();
        for line in prelude.lines() {
            if let Some(rest) = line.strip_prefix("def ") {
                let name: String = rest
                    .chars()
                    .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
                    .collect();
                helpers.push(Helper {
                    full: format!("{line}\n"),
                    compact: format!("{line}\n"),
                    needs: 0,
                    call: format!("{name}("),
                });
            } else if let Some(last) = helpers.last_mut() {
                last.full.push_str(line);
                last.full.push('\n');
                if !line.trim_start().starts_with("//") {
                    last.compact.push_str(line);
                    last.compact.push('\n');
                }
            } else {
                header.push_str(line);
                header.push('\n');
            }
        }
        assert!(helpers.len() <= 32, "at most 32 helpers in the prelude");
        // Direct needs, then the closure.
        let direct: Vec<u32> = helpers
            .iter()
            .enumerate()
            .map(|(i, h)| {
                helpers
                    .iter()
                    .enumerate()
                    .filter(|(j, o)| *j == i || calls(&h.full, &o.call))
                    .fold(0, |m, (j, _)| m | (1 << j))
            })
            .collect();
        let mut needs = direct.clone();
        loop {
            let mut changed = false;
            for i in 0..needs.len() {
                let mut m = needs[i];
                for (j, d) in needs.iter().enumerate() {
                    if m & (1 << j) != 0 {
                        m |= d;
                    }
                }
                if m != needs[i] {
                    needs[i] = m;
                    changed = true;
                }
            }
            if !changed {
                break;
            }
        }
        for (h, n) in helpers.iter_mut().zip(needs) {
            h.needs = n;
        }
        Library { helpers, header }
    }

    /// The helpers a script body needs, as a bit set: every name followed
    /// by `(` (and not by a `.` before it), found from the parentheses.
    fn needs(&self, body: &str) -> u32 {
        let bytes = body.as_bytes();
        let name_char = |c: u8| c.is_ascii_alphanumeric() || c == b'_';
        let mut needs = 0;
        for i in memchr::memchr_iter(b'(', bytes) {
            let s = bytes[..i]
                .iter()
                .rposition(|&c| !name_char(c))
                .map_or(0, |p| p + 1);
            if s == i || (s > 0 && bytes[s - 1] == b'.') {
                continue;
            }
            let name = &body[s..i];
            if let Some(h) = self
                .helpers
                .iter()
                .find(|h| &h.call[..h.call.len() - 1] == name)
            {
                needs |= h.needs;
            }
        }
        needs
    }

    /// Write a script body with the helpers it needs in front (compact
    /// copies), passing every piece through `put` (which escapes).
    pub(crate) fn inline(&self, body: &str, mut put: impl FnMut(&str)) {
        let needs = self.needs(body);
        for (i, h) in self.helpers.iter().enumerate() {
            if needs & (1 << i) != 0 {
                put(&h.compact);
            }
        }
        put(body.trim_end());
    }

    /// The text of a script file: the helpers it needs, then the body.
    fn file(&self, about: &str, body: &str) -> String {
        let mut out = String::new();
        let _ = writeln!(
            out,
            "// toscanini: {about}\n// Generated with the plan; regenerate instead of editing."
        );
        let needs = self.needs(body);
        if needs != 0 {
            out.push_str(&self.header);
        }
        for (i, h) in self.helpers.iter().enumerate() {
            if needs & (1 << i) != 0 {
                out.push_str(&h.full);
            }
        }
        out.push_str(body.trim_end());
        out.push('\n');
        out
    }
}

/// Which shared scripts a plan uses.
#[derive(Debug, Default)]
pub(crate) struct Used {
    slots: Vec<bool>,
}

impl Used {
    /// Note that `s` is referenced; returns its file name.
    pub(crate) fn mark<'a>(
        &mut self,
        s: Shared,
        properties: &'a PropertyFiles,
    ) -> ResourceName<'a> {
        let slot = s.slot();
        if self.slots.len() <= slot {
            self.slots.resize(slot + 1, false);
        }
        self.slots[slot] = true;
        match s {
            Shared::Property(i) => ResourceName::Property(&properties.names[i as usize]),
            s => ResourceName::Fixed(s.file()),
        }
    }

    /// The files of the shared scripts used, sorted by name.
    pub(crate) fn files(&self, properties: &PropertyFiles) -> Vec<(String, String)> {
        let lib = library();
        let used = |s: Shared| self.slots.get(s.slot()).copied().unwrap_or(false);
        let mut out: Vec<(String, String)> = Vec::new();
        for s in FIXED {
            if used(s) {
                let (about, body) = s.text();
                out.push((s.file().to_string(), lib.file(about, &body)));
            }
        }
        for (i, name) in properties.names.iter().enumerate() {
            if used(Shared::Property(i as u32)) {
                out.push((
                    format!("property-{name}.groovy"),
                    lib.file(
                        &format!("property `{name}` of a JSON properties answer ('' if absent)."),
                        &format!("jstr(body(), {}) ?: ''", literal(name)),
                    ),
                ));
            }
        }
        out.sort();
        out
    }
}

/// The file name a reference writes.
pub(crate) enum ResourceName<'a> {
    /// A fixed shared script.
    Fixed(&'static str),
    /// `property-<name>.groovy`.
    Property(&'a str),
}

impl ResourceName<'_> {
    /// Append `deployment://<file>`.
    pub(crate) fn write(&self, out: &mut String) {
        out.push_str("deployment://");
        match self {
            ResourceName::Fixed(f) => out.push_str(f),
            ResourceName::Property(p) => {
                out.push_str("property-");
                out.push_str(p);
                out.push_str(".groovy");
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scripts_get_only_the_helpers_they_use() {
        let mut s = String::new();
        library().inline("check('t')", |p| s.push_str(p));
        assert!(s.contains("def check"));
        assert!(s.contains("def fail"), "check needs fail");
        assert!(!s.contains("def jstr"));
        assert!(
            !s.contains("// A BPMN error"),
            "inline copies drop comments"
        );
        assert!(calls("x(1)", "x("));
        assert!(!calls("max(1)", "x("));
    }

    #[test]
    fn property_files_are_portable_and_distinct_ignoring_case() {
        let mut p = PropertyFiles::default();
        assert_eq!(p.get("VMIP"), Some(Shared::Property(0)));
        assert_eq!(p.get("VMIP"), Some(Shared::Property(0)));
        assert_eq!(p.get("vmip"), None);
        assert_eq!(p.get("a b"), None);
        assert_eq!(p.get("Port"), Some(Shared::Property(1)));
    }
}
