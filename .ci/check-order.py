#!/usr/bin/env python3
"""Check that a BPMN plan ran in an order its plan graph allows.

    check-order.py GRAPH.json TRACE.jsonl [PLAN.bpmn]

GRAPH.json is `toscanini graph --format json` of the plan; TRACE.jsonl is
what `check-bpmn FILE -- --all` printed: one JSON object per completed task
or flow node, in the order the engine completed them, then a result line.

Every activity is a subprocess whose id is the activity id: its start event
`<activity>_start` completes when it starts, the subprocess itself when it
ends; or a call activity of that id (an activity whose steps are all calls,
run by `toscanini_run`), which the trace shows starting and ending; or a
task that does nothing (an activity without steps), which completes once. Where activity names spell each other's ids (steps `a` and `a_s1`),
the renderer draws an activity under its id with `_` appended
(render/bpmn/bases.rs), and the graph gives that id as the activity's
`bpmn`; given PLAN.bpmn, the activities are taken from it instead (the
subprocesses of `plan_activities`, in the graph's order), and each must be
the graph's `bpmn` of its activity. For
every edge (u, v) of the graph, u must end before v starts; every task
must lie inside its activity's run (a task of a reusable process inside the
run of the activity whose call activity called it: the trace's `callPath`).

Imperative workflows with `on_failure` routing: an activity whose failure is
routed ends at its error boundary event `<activity>_catch` when it fails, and
an activity on a path not taken is skipped at its marker
`<activity>_skipped` (outside the subprocess, which then never starts). Every
activity must have run or have been skipped, not both; a skipped activity is
skipped only after all its predecessors ended or were skipped, and an
activity never runs after a predecessor was skipped. (Where the paths of
such a region join, the activities decide inside: their subprocess runs and
ends at its end event `<activity>_skipped` without doing anything; that
counts as a run here.)
Exit 0 when all holds, 1 otherwise (one line per problem). Stdlib only.
"""
import json
import sys
import xml.etree.ElementTree as ET

BPMN = "{http://www.omg.org/spec/BPMN/20100524/MODEL}"


def subprocess_ids(bpmn_path, said):
    """The activities' ids in PLAN.bpmn, in order: in the process's one
    subprocess that no event triggers, its subprocesses that no event
    triggers, except compensation handlers, and its call activities and
    tasks that are activities by the graph (`said`, other call activities
    being steps of the plan's own, as marking an instance ERROR)."""
    def plain(parent, calls=False):
        return [s for s in parent
                if s.get("triggeredByEvent") != "true" and s.get("isForCompensation") != "true"
                and (s.tag == BPMN + "subProcess"
                     or calls and s.tag in (BPMN + "callActivity", BPMN + "task") and s.get("id") in said)]
    top = plain(ET.parse(bpmn_path).getroot().find(BPMN + "process"))
    if len(top) != 1:
        raise SystemExit(f"check-order: {bpmn_path}: {len(top)} activity containers")
    return [s.get("id") for s in plain(top[0], calls=True)]


def main(graph_path, trace_path, bpmn_path=None):
    with open(graph_path, encoding="utf-8") as f:
        graph = json.load(f)
    activities = [a["id"] for a in graph["activities"]]
    if bpmn_path is not None:
        drawn = subprocess_ids(bpmn_path, {a.get("bpmn") for a in graph["activities"]})
        if len(drawn) != len(activities) or any(
                d != a and not (d.startswith(a) and set(d[len(a):]) == {"_"})
                for a, d in zip(activities, drawn)):
            print(f"check-order: FAIL: the subprocesses {drawn} are not the activities {activities}")
            return 1
        said = [a.get("bpmn") for a in graph["activities"]]
        if said != drawn:
            print(f"check-order: FAIL: the graph gives the subprocesses as {said}, the plan has {drawn}")
            return 1
        apart = sum(d != a for a, d in zip(activities, drawn))
        to_drawn = dict(zip(activities, drawn))
        graph["edges"] = [[to_drawn[u], to_drawn[v]] for u, v in graph["edges"]]
        activities = drawn
    else:
        apart = 0
    # Longest prefix first, so `a_b_provision` is not taken for `a_provision`.
    by_length = sorted(activities, key=len, reverse=True)

    def owner(element):
        for a in by_length:
            if element == a or element.startswith(a + "_"):
                return a
        return None

    start, end, tasks, skipped = {}, {}, {}, {}
    result = None
    with open(trace_path, encoding="utf-8") as f:
        for line in f:
            line = line.strip()
            if not line:
                continue
            e = json.loads(line)
            if e.get("event") == "result":
                result = e
                continue
            if e.get("signalled"):
                continue  # waiting catch events the harness pokes; not work done
            element, seq = e.get("id"), e.get("seq")
            if e.get("event") == "task" and element in activities and e.get("phase"):
                # A call activity: its own start and end.
                (start if e["phase"] == "start" else end).setdefault(element, seq)
            elif e.get("event") == "node" and element in activities:
                end.setdefault(element, seq)
                if e.get("type") == "bpmn:Task":
                    start.setdefault(element, seq - 0.5)
            elif e.get("event") == "node" and element.endswith("_start") and element[:-6] in activities:
                start.setdefault(element[:-6], seq)
            elif e.get("event") == "node" and element.endswith("_catch") and element[:-6] in activities:
                end.setdefault(element[:-6], seq)  # a routed failure ends it
            elif e.get("event") == "node" and element.endswith("_skipped") and element[:-8] in activities:
                skipped.setdefault(element[:-8], seq)
            elif e.get("event") == "task":
                # A task of a called process belongs where the call is.
                a = owner((e.get("callPath") or [element])[0])
                if a is not None:
                    tasks.setdefault(a, []).append((seq, element))
    # Skipped inside its subprocess: a run that did nothing.
    for a in list(skipped):
        if a in start and a in end and start[a] < skipped[a] < end[a]:
            del skipped[a]
    problems = []
    if result is None or not result.get("ok"):
        problems.append(f"the engine run did not succeed: {result}")
    for a in activities:
        if a in skipped:
            if a in start:
                problems.append(f"activity {a} was skipped at {skipped[a]} but started at {start[a]}")
            continue
        if a not in start or a not in end:
            problems.append(f"activity {a} did not run (start {start.get(a)}, end {end.get(a)})")
            continue
        for seq, element in tasks.get(a, []):
            if not start[a] < seq < end[a]:
                problems.append(f"task {element} ran at {seq}, outside its activity {a} ({start[a]}..{end[a]})")
    checked = 0
    for u, v in graph["edges"]:
        if v in skipped:
            done = skipped.get(u, end.get(u))
            if done is None or not done < skipped[v]:
                problems.append(f"edge {u} -> {v}: {v} was skipped at {skipped[v]} before {u} was done ({done})")
            checked += 1
            continue
        if u in skipped and v in start:
            problems.append(f"edge {u} -> {v}: {v} ran although {u} was skipped")
            continue
        if u in end and v in start:
            checked += 1
            if not end[u] < start[v]:
                problems.append(f"edge {u} -> {v}: {v} started at {start[v]} before {u} ended at {end[u]}")
    for p in problems:
        print(f"check-order: {p}")
    print(f"check-order: {'OK' if not problems else 'FAIL'}: {len(activities)} activities "
          f"({len(skipped)} skipped, {apart} drawn under a prefix of "
          f"their own), {checked} edges, {sum(len(t) for t in tasks.values())} tasks")
    return 1 if problems else 0


if __name__ == "__main__":
    if len(sys.argv) not in (3, 4):
        print(__doc__, file=sys.stderr)
        sys.exit(2)
    sys.exit(main(*sys.argv[1:]))
