#!/usr/bin/env bash
# CTest consumers_canal: every pinned Canal version must give the verdict its manifest records
# (expect + expect_by_scenario), in session mode (the manifest's session: true: one JVM, a fresh
# MysqlEventParser per cell) and one-shot (a copy of this folder whose manifest drops session),
# over the scenarios given (default: crud-basic, all-types, rotation), both modes. Prints
# "N passed, N failed" by cell; exit 0 only when every cell met its expectation.
#
#   consumers/canal/test.sh CDCHARNESS_BIN [SCENARIO...]
set -u
bin=$1; shift
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
scen=("$@")
[ ${#scen[@]} -gt 0 ] || scen=("$root/scenarios/crud-basic.yaml" "$root/scenarios/all-types.yaml"
                               "$root/scenarios/rotation.yaml")
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# one-shot copy: same adapter sources, manifest without session (setup is cached per family name)
mkdir -p "$work/oneshot"
cp -r "$here" "$work/oneshot/canal"
sed -i '/^session:/d' "$work/oneshot/canal/manifest.yaml"
args=()
for s in "${scen[@]}"; do args+=(--scenario "$s"); done
total_ok=0 total=0 rc=0
for variant in session oneshot; do
    rep="$work/rep-$variant"
    dirs=()
    [ "$variant" = oneshot ] && dirs=(--consumers-dir "$work/oneshot")
    start=$(date +%s.%N)
    "$bin" run --consumer canal "${args[@]}" --mode both --expect manifest -j 2 "${dirs[@]}" \
           --report-dir "$rep" --quiet >"$work/table-$variant.txt" 2>"$work/stderr-$variant.txt" || rc=1
    end=$(date +%s.%N)
    echo "== $variant ($(python3 -c "print(round($end-$start,1))") s)"
    cat "$work/table-$variant.txt"
    [ -s "$work/stderr-$variant.txt" ] && tail -n 20 "$work/stderr-$variant.txt"
    read -r ok n < <(python3 - "$rep/report.json" 2>>"$work/why.txt" <<'PY'
import json, sys
try:
    cells = json.load(open(sys.argv[1])).get("cells", [])
except Exception as e:
    print(0, 1)
    sys.exit(0)
print(sum(1 for c in cells if c.get("meets")), len(cells))
PY
)
    total_ok=$((total_ok + ok)); total=$((total + n))
    [ "$n" -gt 0 ] || rc=1
done
[ -s "$work/why.txt" ] && cat "$work/why.txt"
echo "$total_ok passed, $((total - total_ok)) failed"
[ "$total_ok" -eq "$total" ] || rc=1
exit $rc
