#!/usr/bin/env python3
"""The engine stage of CI: which runs to make of the generated BPMN plans, and their checks.

    ci.py prepare PLANS.jsonl OUTDIR     writes OUTDIR/batch.jsonl (for `engine/run batch`)
                                         and OUTDIR/checks.jsonl
    ci.py check OUTDIR                   checks every trace; ends "N passed, N failed"
    ci.py prepare-bpel BPEL.jsonl PLANS.jsonl OUTDIR
                                         the same for the BPEL plans in ODE (`engine/run
                                         bpel-run --batch`): build and termination plans
    ci.py check-bpel OUTDIR              checks every ODE trace; a run without injected
                                         failure must also make the calls (operations and
                                         their inputs) and leave the node properties its
                                         BPMN twin's run did (OUTDIR/../checks.jsonl), and
                                         a test plan answer every test's result
    ci.py twins TRACE TWIN               whether two runs made the same calls, left the
                                         same node properties and answered the same outputs

PLANS.jsonl has one line per BPMN plan: {"name", "kind" (build, termination,
scale-out:NAME, workflow:NAME, freeze, defrost, backup, test, update,
transformation), "dir" (the unpacked plan archive), "bpmn",
"graph" (`toscanini graph --format json` of the plan), "build" (the dir of the
build plan of the same service template, or null)}.

Runs made of each plan:
- build: a normal run; and a failure run that fails the operation in the middle
  of the plan (the middle one of the invocations the activities spell, in graph
  order), when the plan has at least two;
- termination: after three runs of the build plan into one service instance
  (--instances 3), so every instance must be deleted exactly once;
- scale-out: after two build runs; a WorkloadBased selection gets loads 5 and 1
  (the second instance must be chosen), a UserProvided one names the second
  instance, a first-instance one must take the first (the chosen instance is the
  one the select activity reads the properties of, or, where the plan reads
  none, the one its new relationship instances join);
- workflow: after one build run;
- defrost: as a build (a normal run and a failure run);
- freeze: as a termination, after three build runs;
- backup, test, update: after two build runs, every operation once per
  instance (an update leaves every instance started); the test plans of
  tests/features/test-policies and yaml-test-policies once more, the mock
  answering a test policy an output other than the one it expects: the plan
  must fail in that test's activity (EXPECTATION_FAILS);
- transformation: after one build run of its source, the mock serving the
  target's CSAR and service template (the graph's `target`) beside it.
Stdlib only; check-trace.py beside this file does the checking.
"""
import json
import os
import re
import sys
import xml.etree.ElementTree as ET

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
check_trace = __import__("check-trace")

BPMN = "{http://www.omg.org/spec/BPMN/20100524/MODEL}"
CAMUNDA = "{http://camunda.org/schema/1.0/bpmn}"
# Build runs before a plan of each kind that works on existing instances.
INSTANCES = {"termination": 3, "freeze": 3, "scale-out": 2, "backup": 2, "test": 2, "update": 2}
SELECT = re.compile(r'name="select (least loaded|given|first) instance of ([^"]+)"')


# tests/workflows/routing.yaml: on_failure routing, filters and preconditions, with the
# JUEL of the gateways and the Groovy of the checks evaluated by the engine.
# (label, run options, check expectations).
ROUTING = {
    "workflow:chain": [
        ("a fails", {"fail": "node/Custom/a", "expect": "normal"},
         {"fail": "node/Custom/a", "expect": "normal", "ran": ["a", "f1", "f2"], "not_ran": ["s1", "s2", "s3", "g"]}),
        ("s1 fails", {"fail": "node/Custom/b", "expect": "normal"},
         {"fail": "node/Custom/b", "expect": "normal", "ran": ["a", "s1", "g"], "not_ran": ["f1", "f2", "s2", "s3"]}),
        ("s2 fails", {"fail": "node/Custom/c", "expect": "error"},
         {"fail": "node/Custom/c", "expect": "error", "ran": ["a", "s1", "s2"], "not_ran": ["f1", "f2", "g"]}),
    ],
    "workflow:joined": [
        # f1 joins a's and s1's failures, j s1's and f1's successes: with
        # s1 skipped, neither runs. (A BPMN activity is entered to be
        # skipped, a BPEL scope is not: "silent" holds for both, and
        # neither writes to the plan instance's log.)
        ("a fails", {"fail": "node/Custom/a", "expect": "normal"},
         {"fail": "node/Custom/a", "expect": "normal", "ran": ["a"], "invoked": ["a"],
          "silent": ["s1", "f1", "j"]}),
    ],
    "workflow:guarded": [
        ("started, level 3", {"states": {"node": "STARTED"}},
         {"expect": "normal", "ran": ["precondition_1", "only"], "invoked": ["only"]}),
        # The filter (level in 1..5) reads the instance's property: the step skips its operation.
        ("started, level 9", {"states": {"node": "STARTED"}, "properties": ["node.level=9"]},
         {"expect": "normal", "ran": ["precondition_1", "only"], "silent": ["only"]}),
    ],
}
# tests/features/test-policies and yaml-test-policies: the mock answers the output a
# test policy expects (ExpectedOutputParameters) with another value, and the plan
# must fail in the test's activity. Plan name: (the answer, the activity).
# Fixtures whose plans need inputs other than `input-<name>`: the inputs of
# their build runs (and of the builds before their other plans), the
# parameters the build plan must compute for an operation from them, and a
# build whose inputs must fail it in one activity: (label, inputs, activity).
# - tests/features/runtime-functions: TOSCA 2.0 built-in functions evaluated
#   when the plan runs; a port that is no number fails app's activity.
# - tests/features/select-existing: the `select` template's existing node,
#   another deployment's database with version 7 (the template says 1); one
#   whose edition the node_filter does not allow fails db's activity.
FIXTURE_INPUTS = {
    "runtime-functions": {
        "inputs": {"base_port": "8000", "hosts": "alpha,beta"},
        "params": {"app/create": {"NEXT_PORT": "8001", "URL": "http://db.example:8000", "IS_BIG": "true",
                                  "FIRST": "beta", "EITHER": "true", "PREFIXED": "true", "SIZE": "10",
                                  "HALF": "500", "MATCHES": "true", "KNOWN": "true", "LISTED": "true",
                                  "MISSING": "false"}},
        "failing": (" base_port eight", {"base_port": "eight", "hosts": "alpha,beta"}, "app_provision"),
    },
    # tests/cases/yaml-2-0-select-unchecked: an existing server whose
    # properties meet the node_filter (of its clauses, the plans can check
    # only tosca_name's: W0412); one named otherwise fails server's activity.
    "case_yaml-2-0-select-unchecked": {
        "inputs": {"server_InstanceURL": "@existing:server:tosca_name=db-server;rack=r1;tosca_id=xb"},
        "failing": (" tosca_name web-server", {"server_InstanceURL": "@existing:server:tosca_name=web-server"},
                    "server_provision"),
    },
    "select-existing": {
        "inputs": {"db_InstanceURL": "@existing:db:version=7;edition=community"},
        "params": {"app/create": {"DB_VERSION": "7", "DB_EDITION": "community"}},
        "failing": (" edition other", {"db_InstanceURL": "@existing:db:version=7;edition=other"},
                    "db_provision"),
    },
}

EXPECTATION_FAILS = {
    "test-policies": ("app/Version=0.9", "app_test_version"),
    "yaml-test-policies": ("app/Version=0.9", "app_test_appVersion"),
}
# The guarded workflow after a plain build: its node is CREATING (the deploy
# workflow sets no other state), so the precondition fails the plan.
GUARDED_DEFAULT = {"expect": "error", "ran": ["precondition_1"], "not_ran": ["only"]}


def invocations(bpmn_path, graph):
    """The operations the activities invoke (not their compensation), in graph order."""
    root = ET.parse(bpmn_path).getroot()
    # An activity is a subprocess, or one call of toscanini_run or
    # toscanini_each whose `steps` spell its invocations.
    subs = {s.get("id"): s for s in root.iter()
            if s.tag in (BPMN + "subProcess", BPMN + "callActivity") and s.get("isForCompensation") != "true"}
    out = []
    for a in graph["activities"]:
        s = subs.get(a["bpmn"])
        if s is None:
            continue
        for call in s.iter(BPMN + "callActivity"):
            given = {i.get("target"): i.get("sourceExpression") for i in call.iter(CAMUNDA + "in")}
            if call.get("calledElement") in ("toscanini_run", "toscanini_each"):
                steps, part = given.get("steps") or "", 2
                while f"steps:{part}" in given:
                    steps, part = steps + given[f"steps:{part}"], part + 1
                for line in steps.split("\n"):
                    if line.startswith("invoke "):
                        pairs = (f.split("=", 1) for f in line.split(" ")[1:] if "=" in f)
                        fields = {unescape(k): unescape(v) for k, v in pairs}
                        template = fields.get("nodeTemplateID") or fields.get("relationshipTemplateID")
                        out.append((template, fields.get("interface"), fields.get("operation")))
                continue
            if call.get("calledElement") != "toscanini_invoke":
                continue
            template = given.get("nodeTemplateID") or given.get("relationshipTemplateID")
            out.append((template, given.get("interface"), given.get("operation")))
    return out


def unescape(field):
    """A field of a `steps` line with its %XX escapes undone (templates/bpmn/library.bpmn)."""
    return re.sub(r"%([0-9A-F]{2})", lambda m: chr(int(m.group(1), 16)), field)


def plan_name(bpmn_path):
    """The plan's name: its process id, which its plan instance URL names."""
    m = re.search(r'<process id="([^"]+)"', open(bpmn_path).read())
    return m.group(1) if m else None


def build_plan(p):
    """The build plan beside a plan (same service template), if it was generated."""
    if p.get("build"):
        return p["build"]
    name = os.path.basename(p["dir"])
    build = name.split("_bpmn")[0] + "_bpmnBuildPlan"
    up = os.path.dirname(p["dir"])
    # Unpacked where the CSAR keeps it (plans/<plan>/<plan>), or plans side by side.
    for candidate in (os.path.join(os.path.dirname(up), build, build), os.path.join(up, build)):
        if os.path.isdir(candidate) and candidate != p["dir"]:
            return candidate
    return None


def write_jsonl(path, rows):
    """One JSON object a line (the harness's batch files, the checks of their runs)."""
    with open(path, "w") as f:
        f.writelines(json.dumps(r) + "\n" for r in rows)


def plan_runs(p, graph):
    """The runs a plan gets, as (label, run options, check expectations): `p` has the
    input's "name", the plan's "kind", its BPMN file "bpmn" (the BPMN twin's, for a
    BPEL plan: which operation fails, how an instance is selected) and the "build"
    plan of its service template, if any."""
    kind = p["kind"].split(":")[0]
    runs = []
    fixture = FIXTURE_INPUTS.get(p["name"])
    given = {"inputs": fixture["inputs"]} if fixture else {}
    if kind in ("build", "defrost"):
        if given:
            runs.append(("", dict(given), {"params": fixture.get("params", {})}))
            if kind == "build":
                # The plan fails in the activity (not the engine, with an incident).
                label, inputs, activity = fixture["failing"]
                runs.append((label, {"inputs": inputs, "expect": "error"},
                             {"expect": "error", "failed_in": activity}))
        else:
            runs.append(("", {}, {}))
        ops = invocations(p["bpmn"], graph)
        if len(ops) >= 2:
            fail = "/".join(ops[len(ops) // 2])
            runs.append((" fail " + fail, {"fail": fail, **given}, {"fail": fail}))
    elif p.get("build"):
        setup = {"build": p["build"], "instances": INSTANCES.get(kind, 1)}
        if given:
            setup["build_inputs"] = given["inputs"]
        extra = {"instances": setup["instances"]} if kind in check_trace.PER_INSTANCE else {}
        if kind == "scale-out":
            m = SELECT.search(open(p["bpmn"]).read())
            if m:
                how, template = m.groups()
                k = {"least loaded": 2, "given": 2, "first": 1}[how]
                extra["select"] = [template, k]
                if how == "least loaded":
                    setup["properties"] = [f"{template}.load=5,1"]
                if how == "given":
                    setup["inputs"] = {f"{template}_InstanceID": f"@instance:{template}:2"}
        if graph.get("target"):
            # A transformation's target service template, served beside the plan's own.
            setup["target"] = graph["target"]["path"]
        if p["kind"] == "workflow:guarded" and p["name"] == "routing":
            extra.update(GUARDED_DEFAULT)
            setup["expect"] = "error"
        runs.append(("", setup, extra))
    else:
        runs.append(("", {}, {}))
    if kind == "test" and p["name"] in EXPECTATION_FAILS and p.get("build"):
        answer, activity = EXPECTATION_FAILS[p["name"]]
        n = INSTANCES["test"]
        runs.append((f" answer {answer}, {activity} fails",
                     {"build": p["build"], "instances": n, "answer": answer, "expect": "error"},
                     {"instances": n, "expect": "error", "failed_in": activity}))
    if p["name"] == "routing" and p["kind"].startswith("workflow:"):
        runs.extend((" " + label, {"build": p["build"], **opts}, extra)
                    for label, opts, extra in ROUTING.get(p["kind"], []))
    return runs


def prepare(plans_path, outdir):
    batch, checks = [], []
    bad = plans = 0
    for line in open(plans_path):
        plans += 1
        p = json.loads(line)
        p["build"] = build_plan(p)
        kind = p["kind"].split(":")[0]
        try:
            graph = json.load(open(p["graph"]))
        except (OSError, ValueError) as e:
            print(f"FAIL {p['name']}: {p['kind']}: no plan graph ({e})")
            bad += 1
            continue
        runs = plan_runs(p, graph)
        for label, opts, extra in runs:
            name = f"{p['name']}: {p['kind']}{label}"
            trace = os.path.join(outdir, "traces", f"{len(batch):04d}.jsonl")
            batch.append({"plan": p["dir"], **opts, "name": name, "trace": trace})
            checks.append({"graph": p["graph"], "kind": kind, **extra, "name": name, "trace": trace,
                           "plan_name": plan_name(p["bpmn"])})
    write_jsonl(os.path.join(outdir, "batch.jsonl"), batch)
    write_jsonl(os.path.join(outdir, "checks.jsonl"), checks)
    print(f"{len(batch)} engine runs of {plans} BPMN plans")
    return 1 if bad else 0


# BPEL plans known to fail in ODE, by plan name, with the cause: their runs are
# made and reported (`xfail`, or `XPASS` once they pass), not counted as failures.
# None at present: the runs that did not settle lost incoming links to the JDK 17
# deserialization of ODE's compiled process (engine/README.md, BPEL).
BPEL_XFAIL = {}


def prepare_bpel(bpel_path, bpmn_path, outdir):
    """Runs of the BPEL plans in ODE: each gets the runs of its BPMN twin (the same
    input and kind, the same plan graph; `plan_runs`), its own build plan before it
    where the twin has one. BPEL.jsonl has one line per BPEL plan: {"name", "kind",
    "plan" (the plan archive), "graph", "plan_name"}."""
    twins = {}
    for line in open(bpmn_path):
        p = json.loads(line)
        twins[(p["name"], p["kind"])] = p
    plans = [json.loads(line) for line in open(bpel_path)]
    builds = {p["name"]: p["plan"] for p in plans if p["kind"] == "build"}
    batch, checks = [], []
    bad = 0
    for p in plans:
        twin = twins.get((p["name"], p["kind"]))
        if twin is None:
            print(f"FAIL {p['name']}: BPEL {p['kind']}: no BPMN twin to take the runs from")
            bad += 1
            continue
        graph = json.load(open(p["graph"]))
        build = builds.get(p["name"]) if p["kind"] != "build" else None
        runs = plan_runs({"name": p["name"], "kind": p["kind"], "bpmn": twin["bpmn"], "build": build}, graph)
        xfail = BPEL_XFAIL.get(p["plan_name"])
        if xfail:
            for _, opts, extra in runs:
                opts["xfail"] = extra["xfail"] = xfail
        for label, opts, extra in runs:
            name = f"{p['name']}: BPEL {p['kind']}{label}"
            trace = os.path.join(outdir, "traces", f"bpel-{len(batch):04d}.jsonl")
            batch.append({"plan": p["plan"], **opts, "name": name, "trace": trace})
            checks.append({"graph": p["graph"], "kind": p["kind"].split(":")[0], **extra, "name": name,
                           "trace": trace, "plan_name": p["plan_name"], "language": "bpel",
                           "twin": f"{p['name']}: {p['kind']}{label}"})
    os.makedirs(os.path.join(outdir, "traces"), exist_ok=True)
    write_jsonl(os.path.join(outdir, "bpel-batch.jsonl"), batch)
    write_jsonl(os.path.join(outdir, "bpel-checks.jsonl"), checks)
    print(f"{len(batch)} ODE runs of {len(plans)} BPEL plans")
    return 1 if bad else 0


class Args:
    def __init__(self, c):
        self.kind = c["kind"]
        self.instances = c.get("instances", 1)
        self.fail = c.get("fail")
        self.expect = c.get("expect")
        self.ran = c.get("ran", [])
        self.not_ran = c.get("not_ran", [])
        self.invoked = c.get("invoked", [])
        self.silent = c.get("silent", [])
        self.failed_in = c.get("failed_in")
        self.plan_name = c.get("plan_name")
        self.language = c.get("language", "bpmn")
        self.plan_states = True


def selection(c, events, result):
    """The instance a scale-out's selection took: the one its select activity read,
    or, where the plan reads none of its properties (it loads only what it reads),
    the one the plan's new relationship instances join."""
    template, k = c["select"]
    ids = sorted(i["instance"] for i in result.get("instances", [])
                 if i["type"] == "node" and i["template"] == template)
    if len(ids) < k:
        return [f"selection: {template} has {len(ids)} instances, expected at least {k}"]
    want = ids[k - 1]
    read = [e.get("instance") for e in events
            if e.get("kind") == "property-get" and e.get("template") == template
            and any(a.endswith("_select") for a in check_trace.chain(e))]
    if not read:
        read = [end for e in events if e.get("kind") == "instance" and "source" in e
                for end in (e["source"], e["target"]) if end in ids]
    if not read:
        return [f"selection: no instance of {template} was read by its select activity "
                "or joined by a new relationship instance"]
    if read[-1] != want:
        return [f"selection: instance {read[-1]} of {template} was chosen, expected {want}"]
    return []


def parameters(c, events):
    """The parameters each named operation was invoked with, as expected."""
    problems = []
    for op, want in c["params"].items():
        template, operation = op.split("/")
        got = [e.get("params", {}) for e in events
               if e.get("kind") == "invoke" and e.get("template") == template and e.get("operation") == operation]
        if not got:
            problems.append(f"params: {op} was not invoked")
        for params in got:
            for name, value in want.items():
                if params.get(name) != value:
                    problems.append(f"params: {op} got {name}={params.get(name)!r}, expected {value!r}")
    return problems


def stored(result):
    """The properties a run left on the node instances: per side and template, the
    sorted list of each instance's properties (ids differ between engines)."""
    found = {}
    for i in result.get("instances", []):
        if i["type"] == "node":
            key = f"{i.get('side') or 'own'} {i['template']}"
            found.setdefault(key, []).append(json.dumps(i.get("properties", {}), sort_keys=True))
    return {k: sorted(v) for k, v in found.items()}


def twin_traces(outdir):
    """The traces of the BPMN runs beside the ODE runs in OUTDIR (ci.py prepare writes
    them one directory up), by run name; None where there are none."""
    path = os.path.join(os.path.dirname(os.path.abspath(outdir)), "checks.jsonl")
    if not os.path.exists(path):
        return None
    return {c["name"]: c["trace"] for c in map(json.loads, open(path))}


MOCK_URL = re.compile(r"http://127\.0\.0\.1:\d+")


def calls(trace):
    """The operations a run invoked through the bus with their inputs: per operation,
    the sorted list of each call's parameters (parallel calls come in any order)."""
    found = {}
    for line in open(trace):
        e = json.loads(line) if line.strip() else {}
        if e.get("kind") == "invoke" and e.get("method") == "POST" and "operation" in e:
            key = f"{e.get('template')}/{e.get('interface')}/{e['operation']}"
            # Each run has a mock container of its own, on a port of its own.
            params = MOCK_URL.sub("http://mock", json.dumps(e.get("params", {}), sort_keys=True))
            found.setdefault(key, []).append(params)
    return {k: sorted(v) for k, v in found.items()}


def result_of(trace):
    """The result line of a run's trace (None where the run left none)."""
    if not os.path.exists(trace):
        return None
    lines = [json.loads(l) for l in open(trace) if l.strip()]
    return lines[-1] if lines and lines[-1].get("event") == "result" else None


def same_as_twin(trace, twin):
    """A BPEL run without injected failure makes the calls, leaves the properties and
    answers the outputs its BPMN twin's run does: both plans run the same steps on the
    same values."""
    mine, theirs = result_of(trace), result_of(twin) if twin else None
    if mine is None or theirs is None:
        return [f"twin: no result line in {trace if mine is None else twin}"]
    problems = []
    a, b = calls(trace), calls(twin)
    problems += [f"calls: {key}: {a.get(key, [])} made, the BPMN run made {b.get(key, [])}"
                 for key in sorted(set(a) | set(b)) if a.get(key) != b.get(key)]
    a, b = stored(mine), stored(theirs)
    problems += [f"properties: {key}: {a.get(key, [])} stored, the BPMN run stored {b.get(key, [])}"
                 for key in sorted(set(a) | set(b)) if a.get(key) != b.get(key)]
    a, b = answered(mine), theirs.get("outputs") or {}
    problems += [f"outputs: {name}: {a[name]!r} answered, the BPMN run set {b[name]!r}"
                 for name in sorted(set(a) & set(b) - ENGINE_OUTPUTS) if a[name] != b[name]]
    return problems


# Outputs whose values name the run itself (its correlation id, its service instance's URL).
ENGINE_OUTPUTS = {"CorrelationID", "instanceId"}


def answered(result):
    """The outputs a BPEL run answered its caller with, by name ({} without an answer)."""
    try:
        root = ET.fromstring(result.get("output") or "")
    except ET.ParseError:
        return {}
    response = next(iter(root), None)
    if response is None:
        return {}
    return {e.tag.split("}")[-1]: (e.text or "") for e in response}


def test_results(result):
    """A BPEL test plan that ends normally answers each test's result (the mock answers
    every operation's Result output): no Tests-<node>-<operation>-result output is empty."""
    output = (result or {}).get("output") or ""
    try:
        root = ET.fromstring(output)
    except ET.ParseError:
        return [f"outputs: the plan's answer is no XML: {output[:200]!r}"]
    return [f"outputs: {e.tag.split('}')[-1]} is empty"
            for e in root.iter()
            if re.fullmatch(r"Tests-.*-result", e.tag.split("}")[-1]) and not (e.text or "").strip()]


def check(outdir, checks="checks.jsonl"):
    passed = failed = xfailed = 0
    twins = twin_traces(outdir) if checks == "bpel-checks.jsonl" else {}
    for line in open(os.path.join(outdir, checks)):
        c = json.loads(line)
        if not os.path.exists(c["trace"]):
            problems = ["no trace (the run did not happen)"]
        else:
            graph, events, result = check_trace.load(c["graph"], c["trace"])
            problems = check_trace.Check(graph, events, result, Args(c)).run()
            if "select" in c:
                problems += selection(c, events, result)
            if "params" in c:
                problems += parameters(c, events)
            if c.get("kind") == "test" and c.get("language") == "bpel" and not c.get("expect"):
                problems += test_results(result)
            if "twin" in c and not c.get("fail"):
                if twins is None:
                    problems.append("twin: no BPMN runs to compare with")
                else:
                    problems += same_as_twin(c["trace"], twins.get(c["twin"]))
        if c.get("xfail"):
            xfailed += 1
            print(f"{'xfail' if problems else 'XPASS'} {c['name']}: known to fail: {c['xfail']}")
        elif problems:
            failed += 1
            print(f"FAIL {c['name']}")
            for m in problems:
                print(f"     {m}")
        else:
            passed += 1
    print(f"{passed} passed, {failed} failed" + (f", {xfailed} known to fail" if xfailed else ""))
    return 1 if failed else 0


def compare_runs(trace, twin):
    """twins TRACE TWIN: whether two runs of a plan made the same calls and left the same
    properties."""
    problems = same_as_twin(trace, twin)
    for m in problems:
        print(f"FAIL {m}")
    return 1 if problems else 0


def main():
    if len(sys.argv) == 4 and sys.argv[1] == "prepare":
        return prepare(sys.argv[2], sys.argv[3])
    if len(sys.argv) == 3 and sys.argv[1] == "check":
        return check(sys.argv[2])
    if len(sys.argv) == 5 and sys.argv[1] == "prepare-bpel":
        return prepare_bpel(sys.argv[2], sys.argv[3], sys.argv[4])
    if len(sys.argv) == 3 and sys.argv[1] == "check-bpel":
        return check(sys.argv[2], "bpel-checks.jsonl")
    if len(sys.argv) == 4 and sys.argv[1] == "twins":
        return compare_runs(sys.argv[2], sys.argv[3])
    print(__doc__.split("\n\n")[1], file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main())
