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
# part of the figures. Prints one summary line per consumer family and a total.
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
python3 - "$out/r/report.json" "$start" "$end" "$rc" <<'PY'
import json, statistics, sys
r = json.load(open(sys.argv[1]))
wall = float(sys.argv[3]) - float(sys.argv[2])
cells = r["cells"]
by = {}
for c in cells:
    by.setdefault(c["family"], []).append(c)
def line(name, cs):
    secs = [c.get("seconds", 0) for c in cs]
    launched = [c for c in cs if c.get("launched")]
    start = sum(max(c.get("startup_seconds", 0) or 0, 0) for c in launched)
    waits = sum(max(c.get("wait_seconds", 0) or 0, 0) for c in cs)
    cpu = sum(max(c.get("cpu_seconds", -1), 0) for c in cs)
    tot = sum(secs) or 1
    return ("%-28s %5d cells  mean %5.2f s  p50 %5.2f s  p95 %6.2f s  launches %4d  start-up %5.1f%%  waits %5.1f%%"
            " of cell time  adapter CPU %7.1f s (%.2f s/cell)") % (
        name, len(cs), statistics.mean(secs), statistics.median(secs),
        sorted(secs)[int(0.95 * (len(secs) - 1))], len(launched), 100 * start / tot, 100 * waits / tot,
        cpu, cpu / max(len(cs), 1))
for f in sorted(by):
    print(line(f, by[f]))
print(line("ALL", cells))
print("wall %.0f s for %d cells (%.2f s of wall per cell), matrix exit status %s" % (wall, len(cells), wall / max(len(cells), 1), sys.argv[4]))
cpu = r.get("cpu")
if cpu:
    print("CPU: harness process %.0f s, its children %.0f s (adapters, sessions, setups; cells' adapter CPU above: %.0f s)"
          % (cpu["harness_seconds"], cpu["children_seconds"], sum(max(c.get("cpu_seconds", -1), 0) for c in cells)))
PY
