#!/usr/bin/env python3
"""Check that a BPMN plan ran in an order its plan graph allows.

    check-order.py GRAPH.json TRACE.jsonl

GRAPH.json is `toscanini graph --format json` of the plan; TRACE.jsonl is
what `check-bpmn FILE -- --all` printed: one JSON object per completed task
or flow node, in the order the engine completed them, then a result line.

Every activity is a subprocess whose id is the activity id: its start event
`<activity>_start` completes when it starts, the subprocess itself when it
ends. For every edge (u, v) of the graph, u must end before v starts; every
activity must have run; every task must lie inside its activity's run.
Exit 0 when all holds, 1 otherwise (one line per problem). Stdlib only.
"""
import json
import sys


def main(graph_path, trace_path):
    with open(graph_path, encoding="utf-8") as f:
        graph = json.load(f)
    activities = [a["id"] for a in graph["activities"]]
    # Longest prefix first, so `a_b_provision` is not taken for `a_provision`.
    by_length = sorted(activities, key=len, reverse=True)

    def owner(element):
        for a in by_length:
            if element == a or element.startswith(a + "_"):
                return a
        return None

    start, end, tasks = {}, {}, {}
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
            if e.get("event") == "node" and element in activities:
                end.setdefault(element, seq)
            elif e.get("event") == "node" and element.endswith("_start") and element[:-6] in activities:
                start.setdefault(element[:-6], seq)
            elif e.get("event") == "task":
                a = owner(element)
                if a is not None:
                    tasks.setdefault(a, []).append((seq, element))
    problems = []
    if result is None or not result.get("ok"):
        problems.append(f"the engine run did not succeed: {result}")
    for a in activities:
        if a not in start or a not in end:
            problems.append(f"activity {a} did not run (start {start.get(a)}, end {end.get(a)})")
            continue
        for seq, element in tasks.get(a, []):
            if not start[a] < seq < end[a]:
                problems.append(f"task {element} ran at {seq}, outside its activity {a} ({start[a]}..{end[a]})")
    checked = 0
    for u, v in graph["edges"]:
        if u in end and v in start:
            checked += 1
            if not end[u] < start[v]:
                problems.append(f"edge {u} -> {v}: {v} started at {start[v]} before {u} ended at {end[u]}")
    for p in problems:
        print(f"check-order: {p}")
    print(f"check-order: {'OK' if not problems else 'FAIL'}: {len(activities)} activities, "
          f"{checked} edges, {sum(len(t) for t in tasks.values())} tasks")
    return 1 if problems else 0


if __name__ == "__main__":
    if len(sys.argv) != 3:
        print(__doc__, file=sys.stderr)
        sys.exit(2)
    sys.exit(main(sys.argv[1], sys.argv[2]))
