#!/usr/bin/env bash
# The README's performance table: the whole `plan` command on synthetic
# topologies (src/synth.rs), XML and YAML, BPEL alone and both languages,
# build and termination plans, CSAR written. Prints one Markdown row per
# size and input: wall / CPU (user + system) / peak RSS, the best wall time
# of RUNS runs (1 at 100k).
#
#   benches/plan-table.sh [SIZES...]      # default: 1000 10000 100000
#
# Run it on a quiet machine: every other process takes cores from the two
# the figures are for.
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build --release --locked --quiet --bin toscanini --example synth
BIN="$PWD/target/release/toscanini"
WORK="$(mktemp -d)"
trap 'rm -rf "$WORK"' EXIT
sizes=("$@")
[[ ${#sizes[@]} -gt 0 ]] || sizes=(1000 10000 100000)

# measure INPUT LANG RUNS: "wall s / cpu s / rss" of the fastest run.
measure() {
  local input="$1" lang="$2" runs="$3" best="" line
  for ((i = 0; i < runs; i++)); do
    line="$(/usr/bin/time -f '%e %U %S %M' "$BIN" plan "$input" -o "$WORK/out.csar" \
      --lang "$lang" --quiet 2>&1 > /dev/null | tail -1)"
    if [[ -z "$best" ]] || awk -v a="$line" -v b="$best" 'BEGIN { split(a, x); split(b, y); exit !(x[1] < y[1]) }'; then
      best="$line"
    fi
  done
  awk -v l="$best" 'BEGIN {
    split(l, x); rss = x[4] / 1024
    printf "%.2f s / %.2f s / %s", x[1], x[2] + x[3], (rss >= 1024 ? sprintf("%.2f GiB", rss / 1024) : sprintf("%d MB", rss))
  }'
}

echo "| nodes | input | \`--lang bpel\`: wall / CPU / peak RSS | \`--lang all\` (BPEL and BPMN): wall / CPU / peak RSS |"
echo "|---|---|---|---|"
for n in "${sizes[@]}"; do
  runs=3
  [[ $n -ge 100000 ]] && runs=1
  for dialect in xml yaml; do
    input="$WORK/synth-$n-$dialect.csar"
    target/release/examples/synth "$n" "$input" "$dialect" > /dev/null
    label="$((n / 1000))k"
    echo "| $label | ${dialect^^} | $(measure "$input" bpel "$runs") | $(measure "$input" all "$runs") |"
  done
done
