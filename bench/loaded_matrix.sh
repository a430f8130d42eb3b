#!/usr/bin/env bash
# Determinism under load: run a matrix (default: the whole default matrix) RUNS times with
# `stress-ng --cpu N` (N = the core count) busy beside it, then compare every cell's verdict across
# the runs and, when given, against a report recorded without load. A verdict must not change with
# the machine's load (README, "Verdicts"): any cell that differs is listed and the exit status is 1.
#
#   bench/loaded_matrix.sh [--runs 2] [--load N] [--unloaded REPORT.json] [--out DIR] [MATRIX.yaml [matrix options...]]
#
# --load N: stress-ng --cpu N (default: the core count).
#
# Not part of the test suite (the default matrix takes tens of minutes per run under load).
# Needs stress-ng (Debian package; installed when missing and running as root).
set -euo pipefail
cd "$(dirname "$0")/.."
runs=2 unloaded= out=build/loaded load=
while [ $# -gt 0 ]; do
    case $1 in
        --runs) runs=$2; shift 2 ;;
        --unloaded) unloaded=$2; shift 2 ;;
        --out) out=$2; shift 2 ;;
        --load) load=$2; shift 2 ;;
        -h|--help) sed -n '2,12p' "$0"; exit 0 ;;
        *) break ;;
    esac
done
matrix=${1:-ci/matrix.yaml}
[ $# -gt 0 ] && shift
bin=build/cdcharness
[ -x "$bin" ] || { echo "build first: cmake -S . -B build && cmake --build build (or scripts/test.sh)" >&2; exit 2; }
if ! command -v stress-ng >/dev/null; then
    if [ "$(id -u)" = 0 ]; then apt-get install -y -q stress-ng >/dev/null
    else echo "stress-ng is missing: apt-get install stress-ng" >&2; exit 2; fi
fi
mkdir -p "$out"
cores=${load:-$(nproc)}
reports=()
for i in $(seq 1 "$runs"); do
    echo "== run $i of $runs: $matrix $*, with stress-ng --cpu $cores beside it"
    stress-ng --cpu "$cores" --quiet &
    sp=$!
    set +e
    "$bin" matrix "$matrix" "$@" --report-dir "$out/run$i" >"$out/run$i.log" 2>&1
    rc=$?
    set -e
    kill "$sp" 2>/dev/null || true
    wait "$sp" 2>/dev/null || true
    tail -n 1 "$out/run$i.log" | sed 's/^/   /'
    [ $rc -le 1 ] || { echo "run $i: matrix exited $rc (harness or setup error), see $out/run$i.log" >&2; exit 2; }
    reports+=("$out/run$i/report.json")
done
[ -n "$unloaded" ] && reports+=("$unloaded")
python3 - "${reports[@]}" <<'PY'
import json, sys
# A cell recorded with two verdicts (expected + expected_also: a race inside the consumer decides,
# its cause names the race) may show either in any run; every other cell must show the same verdict.
runs, racy = [], {}
for path in sys.argv[1:]:
    cells = {}
    for c in json.load(open(path))["cells"]:
        k = (c["consumer"], c["scenario"], c["mode"])
        cells[k] = c["verdict"]
        if c.get("expected_also"):
            racy[k] = {c.get("expected"), c["expected_also"]}
    runs.append((path, cells))
keys = sorted(set().union(*(set(c) for _, c in runs)))
differ, raced = [], []
for k in keys:
    vs = [cells.get(k, "(not run)") for _, cells in runs]
    if len(set(vs)) > 1:
        (raced if k in racy and set(vs) <= racy[k] else differ).append((k, vs))
print("%d cells compared over %d reports (%s): %d identical, %d within their recorded race, %d differ" %
      (len(keys), len(runs), ", ".join(p for p, _ in runs), len(keys) - len(differ) - len(raced), len(raced),
       len(differ)))
for (con, sc, mode), vs in raced:
    print("  race  %s %s %s: %s" % (con, sc, mode, " | ".join(vs)))
for (con, sc, mode), vs in differ:
    print("  DIFF  %s %s %s: %s" % (con, sc, mode, " | ".join(vs)))
sys.exit(1 if differ else 0)
PY
