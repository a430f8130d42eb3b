#!/usr/bin/env bash
# CTest consumers_maxwell: every pinned Maxwell version must give the verdict its manifest records
# (expect + expect_by_scenario), in session mode (the manifest's session: true: one JVM + one
# MariaDB for all cells) and one-shot (a copy of this folder whose manifest drops session), over
# scenarios/crud-basic.yaml and probe/crud-no-ddl.yaml, both modes. Prints "N passed, N failed"
# by cell; exit 0 only when every cell met its expectation.
#
#   consumers/maxwell/test.sh CDCHARNESS_BIN [SCENARIO...]
set -u
bin=$1; shift
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
scen=("$@")
[ ${#scen[@]} -gt 0 ] || scen=("$root/scenarios/crud-basic.yaml" "$here/probe/crud-no-ddl.yaml")
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# one-shot copy: same adapter sources, manifest without session (setup is cached per family dir)
mkdir -p "$work/oneshot"
cp -r "$here" "$work/oneshot/maxwell"
sed -i '/^session:/d' "$work/oneshot/maxwell/manifest.yaml"
args=()
for s in "${scen[@]}"; do args+=(--scenario "$s"); done
total_ok=0 total=0 rc=0
for variant in session oneshot; do
    rep="$work/rep-$variant"
    dirs=()
    [ "$variant" = oneshot ] && dirs=(--consumers-dir "$work/oneshot")
    start=$(date +%s.%N)
    "$bin" run --consumer maxwell "${args[@]}" --mode both --expect manifest -j 2 "${dirs[@]}" \
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
import os
def stderr_of(c):
    try:
        return open(os.path.join(os.path.dirname(sys.argv[1]), c.get("cell_dir") or "", "stderr.log"), errors="replace").read()
    except OSError:
        return ""
def ok(c):
    # no tolerance for timing: the adapter reports Maxwell's fatal error as soon as Maxwell records it
    # (before its shutdown can stall in BinaryLogClient.disconnect), so the verdict is the manifest's
    # a parse-failure must be Maxwell's own (its DDL parser), not a failed adapter/state store
    if c.get("verdict") == "parse-failure" and "MaxwellSQLSyntaxError" not in json.dumps([c.get("summary"), c.get("detail")]):
        print("cell %s %s: parse-failure for another reason: %s" % (c.get("scenario"), c.get("mode"),
              c.get("summary")), file=sys.stderr)
        return False
    return bool(c.get("meets"))
print(sum(1 for c in cells if ok(c)), len(cells))
PY
)
    total_ok=$((total_ok + ok)); total=$((total + n))
    [ "$n" -gt 0 ] || rc=1
done
[ -s "$work/why.txt" ] && cat "$work/why.txt"
echo "$total_ok passed, $((total - total_ok)) failed"
[ "$total_ok" -eq "$total" ] || rc=1
exit $rc
