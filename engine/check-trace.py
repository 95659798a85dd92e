#!/usr/bin/env python3
"""Check what a plan did in Operaton against what its plan graph says.

    check-trace.py GRAPH.json TRACE.jsonl --kind KIND
                   [--instances N] [--fail TEMPLATE/INTERFACE/OPERATION]
                   [--failed-in ACTIVITY]

GRAPH.json is `toscanini graph --format json` of the plan; TRACE.jsonl is what
`engine/run` wrote: one line per request the mock container received and per
start or end of a BPMN activity, in one order (`seq`), then the result line.
Each request names the activities it was sent from (`activity`: the ids of the
enclosing BPMN activities, innermost first). KIND is build, termination,
scale-out, workflow, or a management-feature plan: freeze (checked as a
termination), defrost (as a build), backup or test (once per instance, states
left alone), update (once per instance, every instance started again after),
transformation (after a build of its source: once, nothing on kept templates;
the source's service instance MIGRATED, its terminated templates' instances
DELETED and the rest left; one target service instance, CREATED, holding one
instance of every template of the target, started or created).

A normal run (no --fail) must:
- end normally, with no incident, no job left and no request rejected;
- invoke, from each activity, every operation the graph lists for it, once per
  instance it acts on (N for a termination, freeze, backup or test plan run
  with --instances N, else
  once; a workflow step at most once, as filters may skip it), and nothing
  else from anywhere;
- keep every edge (u, v): u's activity ended before v's started, and every
  request v sent started after every request u sent had ended (an invocation
  ends when the bus answers its result);
- leave the instances as the plan kind promises: build, defrost and update, every node
  instance STARTED, every relationship instance CREATED, the service instance
  CREATED; termination and freeze, every instance DELETED, each by exactly one
  request.
A freeze activity must save each instance's state before the instance is
DELETED; a defrost activity must restore it after the rest of its lifecycle
and before the instance is STARTED for the last time.
A routing run (--ran, --not-ran: an imperative workflow whose failures are
routed, --expect saying how it ends) must run exactly the activities named.
A failure run (--fail) must end in its error end event with the failed
operation's instance in ERROR, run the compensation of every activity that
had ended before the failure (the graph's `compensation` operations of the
activity, invoked from its `<activity>_undo` handler), and start no activity of the
graph after the failure (--language bpel: no activity that comes after the failed
one; WS-BPEL lets other branches run until the fault reaches their scope). Parallel
invocations of the failing operation may all fail, none sent after the first failed
(--language bpel: other branches' may).
A run whose check fails (--failed-in ACTIVITY, with --expect error: the mock
answers a test an output other than the one it expects) must have every
invocation succeed, and end in its error end event after ACTIVITY invoked its
operations: ACTIVITY's log says `cancelled`, never `finished`, an instance is
set ERROR, and no activity the graph orders after ACTIVITY starts.
In both, the plan's own instance (the plan name and the CorrelationID in its
URL, one of each) must be set RUNNING by the first request and FINISHED
(normal) or FAILED (failure) by the last (with --language bpel, the last
but the bus's invocations and polls, which the harness makes for the bus
apart from the plan), once each; its log must say when
each activity of the graph started and, in a normal run, finished (in a
failed one, an activity that started ends finished, cancelled or unlogged);
one that did not start, a BPMN activity its gateway skipped (left by its
end event `<id>_skipped`) too, logs nothing, and so does one that the graph
says `does_nothing` (a BPEL `<empty>`, a BPMN task without listeners),
whose edges are checked across it: its nearest predecessors that do
something end before its successors start.
Exit 0 when all holds, 1 otherwise, one line per problem. Stdlib only.
"""
import argparse
import json
import re
import sys
from collections import Counter, defaultdict

# Plan kinds whose activities run once per existing instance of their template.
PER_INSTANCE = ("termination", "freeze", "backup", "test", "update")
LOG = re.compile(r">(started|finished|cancelled) (\S+)</(?:[\w.-]+:)?log>")


def log_ok(got, started, ends):
    """`got` (the log words of an activity, in order) fits: nothing if the
    activity never started, else `started` and then one of `ends` (None:
    no end logged, as where a failure cancels the run first)."""
    if not started:
        return got == []
    return got[:1] == ["started"] and (got[1] if len(got) > 1 else None) in ends and len(got) <= 2


def load(graph_path, trace_path):
    graph = json.load(open(graph_path))
    lines = [json.loads(l) for l in open(trace_path) if l.strip()]
    if not lines or lines[-1].get("event") != "result":
        raise SystemExit(f"check-trace: {trace_path}: no result line")
    return graph, lines[:-1], lines[-1]


def chain(e):
    return e.get("activity", "").split()


class Check:
    def __init__(self, graph, events, result, args):
        self.graph, self.events, self.result, self.args = graph, events, result, args
        self.problems = []
        # The element that stands for each activity: the BPMN subprocess, or
        # the BPEL scope, named by the activity's id.
        bpel = args.language == "bpel"
        self.bpmn = {a["id"]: a["id"] if bpel else a["bpmn"] for a in graph["activities"]}
        self.requests = [e for e in events if e["kind"] != "activity"]
        self.marks = defaultdict(dict)
        for e in events:
            if e["kind"] == "activity":
                self.marks[e["activity"]].setdefault(e["event"], e["seq"])

    def fail(self, msg):
        self.problems.append(msg)

    def invokes(self):
        return [e for e in self.requests if e["kind"] == "invoke"]

    def sent_from(self, bpmn_id):
        return [e for e in self.requests if bpmn_id in chain(e)]

    def expected_end(self):
        """How the run should end: as --expect says, else in error where an
        operation is made to fail (a routed failure says --expect normal)."""
        return self.args.expect or ("error" if self.args.fail else "normal")

    def ending(self):
        want = self.expected_end()
        if self.result.get("ended") != want:
            self.fail(f"the plan ended {self.result.get('ended')}, expected {want}")
        for key in ("incidents", "rejected"):
            for x in self.result.get(key, []):
                self.fail(f"{key[:-1]}: {x}")
        if self.result.get("jobs_left"):
            self.fail(f"{self.result['jobs_left']} job(s) left")

    def operations(self):
        per = 1
        if self.args.kind in PER_INSTANCE:
            per = self.args.instances
        owned = set()
        for a in self.graph["activities"]:
            b = self.bpmn[a["id"]]
            got = Counter(f"{e['interface']}/{e['operation']}" for e in self.invokes() if b in chain(e))
            owned.update(id(e) for e in self.invokes() if b in chain(e))
            # A per-instance activity of a template with a count acts on each
            # representation of every build (the graph's `representations`).
            times = per * a.get("representations", 1) if self.args.kind in PER_INSTANCE else per
            for op, listed in sorted(Counter(a["operations"]).items()):
                n = got.pop(op, 0)
                if self.args.kind == "workflow":
                    if n > listed:
                        self.fail(f"{a['id']}: {op} invoked {n} times, at most {listed} expected")
                elif n != times * listed:
                    self.fail(f"{a['id']}: {op} invoked {n} times, expected {times * listed}")
            for op, n in sorted(got.items()):
                self.fail(f"{a['id']}: {op} invoked {n} times, but the graph lists no such operation for it")
        for e in self.invokes():
            if id(e) not in owned:
                self.fail(f"{e['interface']}/{e['operation']} on {e['template']} invoked outside every activity "
                          f"(from {e.get('activity', '?')})")

    def ordered_pairs(self):
        """The graph's edges, and for an activity that does nothing (BPEL
        has no scope for it, so no marks) an edge from each of its nearest
        predecessors that do something to each of its successors: the
        order it stands for, checked across it."""
        idle = {a["id"] for a in self.graph["activities"] if a.get("does_nothing")}
        preds = defaultdict(list)
        for u, v in self.graph["edges"]:
            preds[v].append(u)

        def working(u, seen):
            if u not in idle:
                return {u}
            if u in seen:
                return set()
            seen.add(u)
            return set().union(*(working(p, seen) for p in preds[u]))

        pairs = [tuple(e) for e in self.graph["edges"]]
        for u, v in self.graph["edges"]:
            if u in idle:
                pairs.extend((p, v) for p in sorted(working(u, set())))
        return pairs

    def edges(self):
        for u, v in self.ordered_pairs():
            bu, bv = self.bpmn[u], self.bpmn[v]
            end_u, start_v = self.marks[bu].get("end"), self.marks[bv].get("start")
            if end_u is not None and start_v is not None and start_v < end_u:
                self.fail(f"edge {u} -> {v}: {v} started (seq {start_v}) before {u} ended (seq {end_u})")
            if start_v is not None and end_u is None and self.marks[bu].get("start") is not None:
                self.fail(f"edge {u} -> {v}: {v} started while {u} never ended")
            later = self.sent_from(bv)
            earlier = self.sent_from(bu)
            if later and earlier:
                last_end = max(e["end"] for e in earlier)
                first = min(later, key=lambda e: e["start"])
                if first["start"] < last_end:
                    self.fail(f"edge {u} -> {v}: {first['method']} {first['path']} (seq {first['seq']}) started "
                              f"before {u}'s requests had ended")

    def final_states(self):
        if any(a["kind"] == "step" for a in self.graph["activities"]):
            return  # an imperative workflow sets the states its steps say
        instances = self.result.get("instances", [])
        if self.args.kind in ("build", "defrost", "update"):
            for i in instances:
                want = {"service": "CREATED", "node": "STARTED", "relationship": "CREATED"}[i["type"]]
                if i["state"] != want:
                    self.fail(f"{i['type']} instance {i['instance']} ({i['template'] or 'service'}) is {i['state']}, "
                              f"expected {want}")
        if self.args.kind in ("termination", "freeze"):
            deleted = Counter(e.get("instance") for e in self.requests
                              if e["kind"] == "state" and e.get("state") == "DELETED")
            for i in instances:
                if i.get("external"):
                    # Another deployment's node, which a `select` template used: left alone.
                    want = {"service": "CREATED", "node": "STARTED"}[i["type"]]
                    if i["state"] != want or deleted[i["instance"]]:
                        self.fail(f"{i['type']} instance {i['instance']} ({i['template'] or 'service'}) of another "
                                  f"deployment is {i['state']}, expected {want} and untouched")
                elif i["state"] != "DELETED":
                    self.fail(f"{i['type']} instance {i['instance']} ({i['template'] or 'service'}) is {i['state']}, "
                              f"expected DELETED")
                elif deleted[i["instance"]] != 1:
                    self.fail(f"{i['type']} instance {i['instance']} ({i['template'] or 'service'}) set DELETED "
                              f"{deleted[i['instance']]} times")

    def transformation_states(self):
        """The source's service instance MIGRATED, the terminated templates' instances DELETED and the
        others left; one target service instance, CREATED, with one instance of every template of the
        target (node STARTED, relationship CREATED), each registered in it."""
        instances = self.result.get("instances", [])
        source = [i for i in instances if not i.get("side")]
        target = [i for i in instances if i.get("side") == "target"]
        terminated = {a["template"] for a in self.graph["activities"] if a["kind"] == "terminate"}
        for i in source:
            if i["type"] == "service":
                want = "MIGRATED"
            elif i["template"] in terminated:
                want = "DELETED"
            else:
                want = "STARTED" if i["type"] == "node" else "CREATED"
            if i["state"] != want:
                self.fail(f"source {i['type']} instance {i['instance']} ({i['template'] or 'service'}) is "
                          f"{i['state']}, expected {want}")
        services = [i for i in target if i["type"] == "service"]
        if len(services) != 1:
            self.fail(f"{len(services)} target service instances, expected 1")
        wanted = Counter((("node" if a["template_kind"] == "node" else "relationship"), a["api_template"])
                         for a in self.graph["activities"] if a.get("service_instance") == "target")
        found = Counter((i["type"], i["template"]) for i in target if i["type"] != "service")
        for key in sorted(set(wanted) | set(found)):
            if found[key] != 1:
                self.fail(f"target {key[0]} template {key[1]}: {found[key]} instances, expected 1")
        for i in target:
            want = {"service": "CREATED", "node": "STARTED", "relationship": "CREATED"}[i["type"]]
            if i["state"] != want:
                self.fail(f"target {i['type']} instance {i['instance']} ({i['template'] or 'service'}) is "
                          f"{i['state']}, expected {want}")

    def failure(self):
        faults = sorted((e for e in self.invokes() if e.get("result") == "fault"), key=lambda e: e["end"])
        if not faults:
            self.fail(f"no invocation of {self.args.fail} failed")
            return
        fault = faults[0]
        # Parallel invocations of the failing operation (instances of a template
        # with `count`) all fail; each was sent before the first failed (in
        # WS-BPEL other branches run on until the fault reaches them: below).
        for e in faults[1:]:
            if e["start"] > fault["end"] and self.args.language != "bpel":
                self.fail(f"{self.args.fail} was invoked again after it failed")
        failed_in = [b for b in chain(fault) if b in self.bpmn.values()]
        # The failed activity's own instance is marked, which may be another
        # template's than the invoked one (a container's operations run on its engine).
        if not any(e["kind"] == "state" and e.get("state") == "ERROR" for e in self.requests):
            self.fail("no instance was set ERROR after the failure")
        after = fault["end"]
        # BPMN (Operaton) ends every other branch as the error propagates, so
        # nothing starts after it. In WS-BPEL the other branches of a flow run
        # on until the fault reaches the enclosing scope and it terminates them
        # (12.6), so there only what comes after a failed activity must never start.
        later = self.successors(a["id"] for a in self.graph["activities"] if self.bpmn[a["id"]] in failed_in)
        for a in self.graph["activities"]:
            b = self.bpmn[a["id"]]
            if self.args.language == "bpel" and a["id"] not in later:
                continue
            start = [e for e in self.events if e["kind"] == "activity" and e["activity"] == b and e["event"] == "start"]
            if start and start[0]["start"] > after:
                self.fail(f"{a['id']} started after the failure")
        for a in self.graph["activities"]:
            b = self.bpmn[a["id"]]
            undo = b + "_undo"
            # What undoes an activity comes from the graph, not from the plan under test.
            if not a.get("compensation") or b in failed_in:
                continue
            end = self.marks[b].get("end")
            if end is None or end > fault["seq"]:
                continue
            got = Counter(f"{e['interface']}/{e['operation']}" for e in self.sent_from(undo) if e["kind"] == "invoke")
            for op in a["compensation"]:
                if got[op] < 1:
                    self.fail(f"{a['id']} had ended before the failure, but its compensation {op} was not invoked")

    def faulted(self):
        """The activities (elements) an invocation that failed was sent from."""
        return {b for e in self.invokes() if e.get("result") == "fault"
                for b in chain(e) if b in self.bpmn.values()}

    def successors(self, activities):
        """The activities after any of `activities` in the graph (ids)."""
        later, frontier = set(), list(activities)
        while frontier:
            u = frontier.pop()
            for x, y in self.graph["edges"]:
                if x == u and y not in later:
                    later.add(y)
                    frontier.append(y)
        return later

    def failed_check(self):
        """A check of ACTIVITY (not an invocation) failed the plan."""
        a = self.args.failed_in
        b = self.bpmn.get(a)
        if b is None:
            self.fail(f"{a} is not an activity of the graph")
            return
        for e in self.invokes():
            if e.get("result") == "fault":
                self.fail(f"{e['interface']}/{e['operation']} on {e['template']} failed; only a check should")
        # It ran: it called the container (an operation, or the instance API
        # before a value it computes failed).
        if not any(True for _ in self.sent_from(b)):
            self.fail(f"{a} sent nothing before it failed")
        logged = [m.group(1) for e in self.requests if e["kind"] == "plan-log"
                  for m in [LOG.search(e.get("message", ""))] if m and m.group(2) == b]
        if "finished" in logged or "cancelled" not in logged:
            self.fail(f"plan instance log of {b}: {' '.join(logged) or 'nothing'}, expected it cancelled, never finished")
        if not any(e["kind"] == "state" and e.get("state") == "ERROR" for e in self.requests):
            self.fail("no instance was set ERROR after the failed check")
        later = self.successors([a])
        for v in sorted(later):
            if "start" in self.marks[self.bpmn[v]]:
                self.fail(f"{v} started, but it comes after {a}, whose check failed")

    def routing(self):
        """Which activities an imperative workflow's routing ran (their subprocess started)."""
        el = lambda a: self.bpmn.get(a, a)  # noqa: E731
        for a in self.args.ran:
            if "start" not in self.marks[el(a)]:
                self.fail(f"{a} did not run")
        for a in self.args.not_ran:
            if "start" in self.marks[el(a)]:
                self.fail(f"{a} ran")
        for a in self.args.invoked:
            if not any(e["kind"] == "invoke" for e in self.sent_from(el(a))):
                self.fail(f"{a} invoked no operation")
        for a in self.args.silent:
            for e in self.sent_from(el(a)):
                if e["kind"] == "invoke":
                    self.fail(f"{a} invoked {e['interface']}/{e['operation']}, but it should invoke nothing (its filter or its routing skips it)")

    def plan_states(self):
        mine = [e for e in self.requests if e["kind"] in ("plan-state", "plan-log")]
        for what, want in (("plan", self.args.plan_name), ("correlation", None)):
            seen = sorted({e.get(what) for e in mine})
            if len(seen) > 1 or (want and seen and seen != [want]):
                self.fail(f"the plan reported to the plan instances of {what} {', '.join(map(str, seen))}"
                          + (f", not {want}" if want else ""))
        states = [e for e in mine if e["kind"] == "plan-state"]
        if not states:
            self.fail("the plan never set its plan instance's state")
            return
        if self.requests[0] is not states[0] or states[0].get("state") != "RUNNING":
            r = self.requests[0]
            self.fail(f"the first request was {r['method']} {r['path']} {r.get('state', '')}, not the plan instance set RUNNING")
        ended_in_error = self.expected_end() == "error"
        last = "FAILED" if ended_in_error else "FINISHED"
        if states[-1].get("state") != last:
            self.fail(f"the plan instance was last set {states[-1].get('state')}, not {last}")
        # A BPEL plan hands an operation to the bus, which the harness
        # plays: the bus's requests (its invocation and polls) run on
        # their own, and may go on after the plan failed elsewhere. A BPMN
        # plan makes them itself.
        own = [e for e in self.requests
               if not (self.args.language == "bpel" and e["kind"] in ("invoke", "poll"))]
        if own[-1] is not states[-1]:
            r = own[-1]
            self.fail(f"{r['method']} {r['path']} came after the plan instance was set {states[-1].get('state')}")
        if len(states) != 2:
            self.fail(f"the plan instance was set {len(states)} times: {' '.join(e.get('state') for e in states)}")
        self.plan_log([e for e in mine if e["kind"] == "plan-log"], ended_in_error)

    def plan_log(self, logs, ended_in_error):
        """One entry when each activity of the graph starts, one when it ends."""
        entries = defaultdict(list)
        for e in logs:
            m = LOG.search(e.get("message", ""))
            if not m:
                self.fail(f"plan instance log entry not understood: {e.get('message', '')!r}")
                continue
            entries[m.group(2)].append((m.group(1), e["seq"]))
        faulted = self.faulted()
        for a in self.graph["activities"]:
            b = self.bpmn[a["id"]]
            # A BPMN activity that its gateway skips is entered, and left by
            # its end event `<id>_skipped`: it did not start (nor does a
            # BPEL scope that dead-path elimination skips).
            started = "start" in self.marks.get(b, {}) and "start" not in self.marks.get(f"{b}_skipped", {})
            got = [w for w, _ in entries.pop(b, [])]
            if a.get("does_nothing"):
                # Nothing to follow: an activity without steps logs nothing.
                if got:
                    self.fail(f"plan instance log of {b}: {' '.join(got)}, expected nothing (it does nothing)")
                continue
            if ended_in_error:
                ends = ("finished", "cancelled", None)
            elif self.args.ran or self.args.not_ran:
                # A routed activity whose operation failed is cancelled (its
                # failure routed, the plan goes on); the others finish.
                ends = ("cancelled",) if b in faulted else ("finished",)
            else:
                ends = ("finished",)
            if log_ok(got, started, ends):
                continue
            want = "nothing" if not started else "started, then " + " or ".join(e or "nothing" for e in ends)
            self.fail(f"plan instance log of {b}: {' '.join(got) or 'nothing'}, expected {want}")
        for b in entries:
            self.fail(f"plan instance log names {b}, not an activity of the graph")

    def state_saved_and_restored(self):
        """A freeze activity saves each instance's state (`freeze`) before the
        instance is set DELETED; a defrost activity restores it (`defrost`)
        after every other operation of the activity (its lifecycle) and
        before the instance is set STARTED for the last time."""
        for a in self.graph["activities"]:
            kind, b = a["kind"], self.bpmn[a["id"]]
            if kind not in ("freeze", "defrost"):
                continue
            mine = [e for e in self.requests if b in chain(e)]
            calls = [e for e in mine if e["kind"] == "invoke" and e.get("operation") == kind]
            if not calls:
                self.fail(f"{a['id']}: no {kind} invoked")
            for c in calls:
                final = "DELETED" if kind == "freeze" else "STARTED"
                done = [e["seq"] for e in mine if e["kind"] == "state" and e.get("state") == final
                        and e.get("instance") == c.get("instance")]
                # Deleted only after the freeze; started (finally) only after
                # the defrost (a `start` in the lifecycle sets it once before).
                last = min(done) if kind == "freeze" else max(done, default=None)
                if not done or last < c["seq"]:
                    self.fail(f"{a['id']}: {kind} of instance {c.get('instance')} (seq {c['seq']}) is not "
                              f"before the instance is {final}")
                if kind == "defrost":
                    later = [e for e in mine if e["kind"] == "invoke" and e is not c and e["seq"] > c["seq"]]
                    for e in later:
                        self.fail(f"{a['id']}: {e['operation']} (seq {e['seq']}) after defrost (seq {c['seq']})")

    def run(self):
        self.ending()
        self.edges()
        if self.args.ran or self.args.not_ran:
            self.routing()
        elif self.args.fail:
            self.failure()
        elif self.args.failed_in:
            self.failed_check()
        else:
            self.operations()
            self.final_states()
            self.state_saved_and_restored()
            if self.args.kind == "transformation":
                self.transformation_states()
        if self.args.plan_states:
            self.plan_states()
        return self.problems


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("graph")
    p.add_argument("trace")
    p.add_argument("--kind", required=True,
                   choices=["build", "termination", "scale-out", "workflow", "freeze", "defrost", "backup", "test",
                            "update", "transformation"])
    p.add_argument("--instances", type=int, default=1)
    p.add_argument("--fail")
    p.add_argument("--failed-in", help="the activity whose check fails the plan (with --expect error)")
    p.add_argument("--expect", choices=["normal", "error"])
    p.add_argument("--ran", nargs="*", default=[], help="activities that must have run (a routing check)")
    p.add_argument("--not-ran", nargs="*", default=[], help="activities that must not have run")
    p.add_argument("--invoked", nargs="*", default=[], help="activities that must have invoked an operation")
    p.add_argument("--silent", nargs="*", default=[], help="activities that must have invoked nothing")
    p.add_argument("--plan-name", help="the plan's name, as in its plan instance URL")
    p.add_argument("--language", choices=["bpmn", "bpel"], default="bpmn",
                   help="the plan's language (what may run after a failure differs)")
    p.add_argument("--no-plan-states", dest="plan_states", action="store_false")
    args = p.parse_args()
    graph, events, result = load(args.graph, args.trace)
    problems = Check(graph, events, result, args).run()
    for m in problems:
        print(m)
    sys.exit(1 if problems else 0)


if __name__ == "__main__":
    main()
