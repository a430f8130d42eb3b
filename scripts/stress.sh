#!/usr/bin/env bash
# Determinism under load (not part of the default run): the CTest suite and the default matrix's quick
# subset, each RUNS times (default 3) with `stress-ng --cpu <cores>` busy beside them; fails on any
# difference: a test that does not pass in every loaded run, or a quick-matrix cell whose verdict
# differs between the loaded runs and an unloaded run made first.
#
#   scripts/stress.sh [--runs N] [--suite-only | --matrix-only] [--out DIR]
#   scripts/stress.sh --full [--out DIR]     # the whole default matrix: once idle, twice beside
#                                            # stress-ng --cpu 8; every verdict identical (hours on 2 cores)
#   scripts/stress.sh --proof [--runs 5]     # the heaviest cells at a short budget: Debezium 1.4.0 and
#                                            # mysql-binlog-connector-java 0.23.2 on rows-64mib uncompressed,
#                                            # --timeout 15, beside stress-ng --cpu 6, RUNS times each: pass;
#                                            # a blocking and a spinning test adapter: hang, in the same load
#
# Takes about RUNS x (suite + quick matrix) under load: ~45 minutes for 3 runs on 2 cores with warm
# consumer caches. Exit status: 0 no difference, 1 a difference (listed), 2 setup or build failure.
set -euo pipefail
cd "$(dirname "$0")/.."
runs=3 suite=1 matrix=1 out=build/stress full=0 proof=0
while [ $# -gt 0 ]; do
  case $1 in
    --runs) runs=$2; shift 2 ;;
    --suite-only) matrix=0; shift ;;
    --matrix-only) suite=0; shift ;;
    --out) out=$2; shift 2 ;;
    --full) full=1; suite=0; matrix=0; shift ;;
    --proof) proof=1; suite=0; matrix=0; shift ;;
    -h|--help) sed -n '2,17p' "$0"; exit 0 ;;
    *) echo "stress.sh: unknown option $1" >&2; exit 2 ;;
  esac
done
bash scripts/setup.sh >/dev/null || exit 2
command -v stress-ng >/dev/null || { echo "stress.sh: stress-ng is missing (scripts/setup.sh installs it)" >&2; exit 2; }
cmake -S . -B build -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null && cmake --build build -j"$(nproc)" >/dev/null || exit 2
mkdir -p "$out"
cores=$(nproc)
fail=0

if [ "$suite" = 1 ]; then
  for i in $(seq 1 "$runs"); do
    echo "== suite, run $i of $runs, with stress-ng --cpu $cores beside it"
    stress-ng --cpu "$cores" --quiet &
    sp=$!
    set +e
    (cd build && ctest -j"$cores" --output-on-failure) >"$out/suite$i.log" 2>&1
    set -e
    kill "$sp" 2>/dev/null || true
    wait "$sp" 2>/dev/null || true
    grep -E '^ *[0-9]+/[0-9]+ Test +#[0-9]+: ' "$out/suite$i.log" |
      sed -E 's/^ *[0-9]+\/[0-9]+ Test +#[0-9]+: ([^ ]+) .*(Passed|Failed|Not Run|Timeout|\*\*\*[A-Za-z]+).*/\1 \2/' |
      sort >"$out/suite$i.status"
    if [ ! -s "$out/suite$i.status" ]; then
      echo "   no test ran: see $out/suite$i.log"; fail=1
    elif grep -v ' Passed$' "$out/suite$i.status" | sed 's/^/   not passed: /' | grep .; then
      fail=1
    fi
    grep -E 'tests passed|tests failed' "$out/suite$i.log" | sed 's/^/   /'
  done
  if [ "$runs" -gt 1 ]; then
    for i in $(seq 2 "$runs"); do
      cmp -s "$out/suite1.status" "$out/suite$i.status" || { echo "   suite runs 1 and $i ran different tests"; diff "$out/suite1.status" "$out/suite$i.status" | sed 's/^/   /'; fail=1; }
    done
  fi
fi

if [ "$matrix" = 1 ]; then
  echo "== quick matrix, unloaded (the reference)"
  set +e
  build/cdcharness matrix ci/matrix.yaml --quick -j 4 --quiet --report-dir "$out/quick-unloaded" >"$out/quick-unloaded.log" 2>&1
  rc=$?
  set -e
  tail -n 1 "$out/quick-unloaded.log" | sed 's/^/   /'
  [ $rc -le 1 ] || { echo "stress.sh: the unloaded quick matrix exited $rc, see $out/quick-unloaded.log" >&2; exit 2; }
  [ $rc -eq 0 ] || fail=1
  bash bench/loaded_matrix.sh --runs "$runs" --unloaded "$out/quick-unloaded/report.json" --out "$out/quick-loaded" \
    ci/matrix.yaml --quick -j 4 --quiet || fail=1
fi
if [ "$full" = 1 ]; then
  echo "== the whole default matrix, unloaded (the reference)"
  set +e
  build/cdcharness matrix ci/matrix.yaml --quiet --report-dir "$out/full-unloaded" >"$out/full-unloaded.log" 2>&1
  rc=$?
  set -e
  tail -n 1 "$out/full-unloaded.log" | sed 's/^/   /'
  [ $rc -le 1 ] || { echo "stress.sh: the unloaded matrix exited $rc, see $out/full-unloaded.log" >&2; exit 2; }
  [ $rc -eq 0 ] || fail=1
  bash bench/loaded_matrix.sh --runs 2 --load 8 --unloaded "$out/full-unloaded/report.json" --out "$out/full-loaded" \
    ci/matrix.yaml --quiet || fail=1
fi

if [ "$proof" = 1 ]; then
  [ "$runs" = 3 ] && runs=5
  # the cells of the 2026-12-01 flake (a starved JVM called hung), at a 15 s budget, and the two ways
  # a consumer really hangs (tests/consumers/broken-hang blocks, broken-spin spins at 100 % CPU)
  cells=("debezium@1.4.0.Final rows-64mib" "mysql-binlog-connector-java@0.23.2 rows-64mib")
  for i in $(seq 1 "$runs"); do
    echo "== proof run $i of $runs, with stress-ng --cpu 6 beside it"
    stress-ng --cpu 6 --quiet &
    sp=$!
    for cell in "${cells[@]}"; do
      set -- $cell
      d="$out/proof$i/${1%%@*}"; mkdir -p "$out/proof$i"
      set +e
      build/cdcharness run --consumer "$1" --scenario "scenarios/$2.yaml" --mode uncompressed --timeout 15 \
        --quiet --report-dir "$d" >"$d.log" 2>&1
      set -e
      v=$(python3 -c 'import json,sys; c=json.load(open(sys.argv[1]))["cells"][0]; print(c["verdict"], "%.0fs" % c["seconds"], "%.0f CPU-s" % c["cpu_seconds"])' "$d/report.json" 2>/dev/null || echo "no report")
      echo "   $1 $2 uncompressed: $v"
      case $v in pass*) ;; *) fail=1 ;; esac
    done
    set +e
    build/cdcharness run --consumers-dir tests/consumers --consumer broken-hang --consumer broken-spin \
      --scenario tests/data/run-small.yaml --timeout 15 --quiet --report-dir "$out/proof$i/hang" >"$out/proof$i/hang.log" 2>&1
    set -e
    python3 - "$out/proof$i/hang/report.json" <<'PY' || fail=1
import json, sys
bad = 0
for c in json.load(open(sys.argv[1]))["cells"]:
    ok = c["verdict"] == "hang"
    bad += not ok
    print("   %s %s: %s %.0fs (%s)" % (c["consumer"], c["mode"], c["verdict"], c["seconds"], c.get("summary", "")[:90]))
sys.exit(1 if bad else 0)
PY
    kill "$sp" 2>/dev/null || true
    wait "$sp" 2>/dev/null || true
  done
fi
[ $fail -eq 0 ] && echo "stress.sh: no difference in $runs loaded run(s)" || echo "stress.sh: differences (above)"
exit $fail
