#!/usr/bin/env bash
# How the time of the whole `plan` command (build and termination, BPEL and
# BPMN, CSAR written) grows from 10k to 100k nodes: runs of the two sizes
# taken in turn, so that a machine whose speed drifts (a shared host) slows
# both alike, and the median wall and CPU time (user plus system) of each.
# Prints one line per input and the ratios 100k/10k (issue 6 asks for
# under 12).
#
#   benches/linearity.sh [ROUNDS]      # default 3; each round takes about two minutes
set -euo pipefail
cd "$(dirname "$0")/.."
rounds="${1:-3}"
cargo build --release --locked --quiet --bin toscanini --example synth
BIN="$PWD/target/release/toscanini"
WORK="$(mktemp -d)"
trap 'rm -rf "$WORK"' EXIT

for dialect in xml yaml; do
  for n in 10000 100000; do
    target/release/examples/synth "$n" "$WORK/$n.csar" "$dialect" > /dev/null
  done
  : > "$WORK/times"
  for ((r = 0; r < rounds; r++)); do
    for n in 10000 100000; do
      /usr/bin/time -f "$n %e %U %S" -a -o "$WORK/times" \
        "$BIN" plan "$WORK/$n.csar" -o "$WORK/out.csar" --lang all --quiet
    done
  done
  python3 - "$dialect" "$WORK/times" <<'EOF'
import statistics, sys
dialect, path = sys.argv[1], sys.argv[2]
runs = {}
for line in open(path):
    n, wall, user, system = line.split()
    runs.setdefault(int(n), []).append((float(wall), float(user) + float(system)))
wall = {n: statistics.median(w for w, _ in r) for n, r in runs.items()}
cpu = {n: statistics.median(c for _, c in r) for n, r in runs.items()}
print(f"{dialect.upper()}: 10k {wall[10000]:.2f} s wall / {cpu[10000]:.2f} s CPU, "
      f"100k {wall[100000]:.2f} s / {cpu[100000]:.2f} s (medians of {len(runs[10000])}): "
      f"100k/10k {wall[100000] / wall[10000]:.1f} wall, {cpu[100000] / cpu[10000]:.1f} CPU")
EOF
done
