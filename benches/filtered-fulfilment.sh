#!/usr/bin/env bash
# How long `toscanini graph` takes on N Computes and N SoftwareComponents
# whose host requirements name no template, so that each is fulfilled from
# the topology (README, "Performance"): `filter-1.3` and `filter-2.0`, the
# same node_filter on every host requirement (4 CPUs or more: five
# Computes in eight pass); `allocation`, a 2.0 host requirement that
# allocates 1 GB of its Compute's 8 GB; `both`, the 2.0 filter and the
# allocation. Prints one line per topology and
# size: wall seconds and peak RSS.
#
#   benches/filtered-fulfilment.sh [BIN] [SIZES...]   # default: target/release/toscanini, 4000 8000
set -euo pipefail
cd "$(dirname "$0")/.."
BIN="${1:-$PWD/target/release/toscanini}"
shift || true
if [[ $# -gt 0 ]]; then sizes=("$@"); else sizes=(4000 8000); fi
WORK="$(mktemp -d)"
trap 'rm -rf "$WORK"' EXIT

# topology KIND N: the YAML of one topology.
topology() {
  python3 - "$1" "$2" <<'PY'
import sys
kind, n = sys.argv[1], int(sys.argv[2])
if kind == "filter-1.3":
    out = ["tosca_definitions_version: tosca_simple_yaml_1_3\ntopology_template:\n  node_templates:\n"]
    req = "{node: tosca.nodes.Compute, node_filter: {capabilities: [{host: {properties: [{num_cpus: {greater_or_equal: 4}}]}}]}}"
else:
    out = ["tosca_definitions_version: tosca_2_0\nimports:\n  - profile: org.oasis-open.simple:2.0\nservice_template:\n  node_templates:\n"]
    req = {
        "filter-2.0": "{node_filter: {$greater_or_equal: [{$get_property: [SELF, CAPABILITY, num_cpus]}, 4]}}",
        "allocation": "{capability: tosca.capabilities.Compute, allocation: {mem_size: 1 GB}}",
        "both": "{capability: tosca.capabilities.Compute, allocation: {mem_size: 1 GB}, "
                "node_filter: {$greater_or_equal: [{$get_property: [SELF, CAPABILITY, num_cpus]}, 4]}}",
    }[kind]
for i in range(n):
    out.append(f"    vm_{i}:\n      type: tosca.nodes.Compute\n      capabilities:\n"
               f"        host: {{properties: {{num_cpus: {i % 8 + 1}, mem_size: 8 GB}}}}\n")
for i in range(n):
    out.append(f"    app_{i}:\n      type: tosca.nodes.SoftwareComponent\n      requirements:\n        - host: {req}\n")
sys.stdout.write("".join(out))
PY
}

for kind in filter-1.3 filter-2.0 allocation both; do
  for n in "${sizes[@]}"; do
    topology "$kind" "$n" > "$WORK/t.yaml"
    /usr/bin/time -f "$kind $n: %e s, %M KB" -o "$WORK/time" "$BIN" graph "$WORK/t.yaml" > /dev/null 2>&1
    cat "$WORK/time"
  done
done
