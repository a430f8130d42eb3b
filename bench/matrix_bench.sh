#!/usr/bin/env bash
# Benchmark: the default compatibility matrix (ci/matrix.yaml) on this machine — wall time, time
# per cell, the share of cell time spent in consumer start-up (adapter launch to its first output
# line, for cells that launched their adapter; warm session cells launch nothing) and in waits (a
# cell the harness stopped: from the adapter's last line to the end of its stop, report.json
# wait_seconds), and the adapters' CPU per cell (report.json cpu_seconds: a one-shot adapter's whole
# run, a warm session's CPU during the cell, a session's launch counted in its first cell) against the
# harness process's own (report.json "cpu").
#
#   bench/matrix_bench.sh [CDCHARNESS] [MATRIX] [cdcharness matrix options, e.g. -j 6 --quick]
#
# Consumers must be installed already (run the matrix once, or scripts/main.sh): setup time is not
# part of the figures. Prints one summary line per consumer family and a total (bench/matrix_table.py;
# MATRIX_BENCH_KEEP=FILE keeps the report.json, for `bench/matrix_table.py BEFORE.json AFTER.json`).
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
bin=${1:-$here/build/cdcharness}
matrix=${2:-$here/ci/matrix.yaml}
shift $(( $# >= 2 ? 2 : $# ))
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
start=$(date +%s.%N)
set +e
"$bin" matrix "$matrix" --report-dir "$out/r" --quiet "$@" >/dev/null
rc=$?
set -e
end=$(date +%s.%N)
python3 "$here/bench/matrix_table.py" "$out/r/report.json"
awk -v a="$start" -v z="$end" -v rc="$rc" 'BEGIN{printf "wall %.0f s, matrix exit status %s\n", z - a, rc}'
if [ -n "${MATRIX_BENCH_KEEP:-}" ]; then cp "$out/r/report.json" "$MATRIX_BENCH_KEEP"; fi
