#!/usr/bin/env bash
# `cdcharness report merge` and `report render`: a run split in two halves
# (two `cdcharness run` invocations over disjoint consumers, as two shards of
# a matrix would be) and merged gives the same report.json, junit.xml,
# summary.md and report.html as the single run over all of them, once
# timings (seconds, time=, the generated date) and the runs' temporary
# directory names (in adapters' stderr) are removed; rendering again is
# idempotent; the cells' logs are copied; matrix shards are ordered by their
# cells' "index" and lose their "shard"; overlapping shards, shards of
# different matrices and usage errors are rejected with exit 1 / 2.
#
#   tests/report_merge.sh CDCHARNESS SOURCE_DIR
set -euo pipefail
bin=$1
src=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export CDCH_CACHE=$work/cache
fail() { echo "FAIL: $*" >&2; exit 1; }
scenario=$src/tests/data/run-small.yaml
run() {
  local dir=$1; shift
  local a=()
  for c in "$@"; do a+=(--consumer "$c"); done
  "$bin" run --consumers-dir "$src/tests/consumers" --consumers-dir "$src/consumers" --quiet "${a[@]}" \
    --scenario "$scenario" --expect manifest --timeout 20 -j 2 --report-dir "$dir" >/dev/null ||
    fail "run $*: every cell should meet its manifest's expect"
}
half1=(broken-value broken-die broken-checkpoint)
half2=(cdcharness-ref broken-skip broken-duplicate)

echo "== a single run and the same run in two halves"
# the single run names its consumers in another order: the report's order is its own
run "$work/single" "${half2[@]}" "${half1[@]}"
run "$work/s1" "${half1[@]}"
run "$work/s2" "${half2[@]}"
"$bin" report merge --out "$work/merged" "$work/s1" "$work/s2/report.json" || fail "merge"

cat >"$work/same.py" <<'PY'
import json, re, sys
a, b = sys.argv[1], sys.argv[2]
TMP = re.compile(r"/cdch-run-[A-Za-z0-9]{6}/")
def norm_report(r):
    r.pop("generated", None)
    r.pop("cpu", None)  # CPU seconds: the merge sums its shards'
    for c in r["cells"]:
        for k in ("seconds", "startup_seconds", "wait_seconds", "launched", "cpu_seconds"):  # timings, CPU, and whether a session was warm
            c.pop(k, None)
    return json.loads(TMP.sub("/cdch-run-X/", json.dumps(r, ensure_ascii=False)))
def text(p):
    return open(p, encoding="utf-8").read()
bad = []
for name in ("report.json", "junit.xml", "summary.md", "report.html"):
    x, y = text(a + "/" + name), text(b + "/" + name)
    if name == "report.json":
        x, y = norm_report(json.loads(x)), norm_report(json.loads(y))
    elif name == "report.html":
        m = re.compile(r'(<script id="report-data" type="application/json">)(.*?)(</script>)', re.S)
        jx, jy = m.search(x).group(2), m.search(y).group(2)
        x, y = m.sub(r"\1\3", x), m.sub(r"\1\3", y)
        if norm_report(json.loads(jx)) != norm_report(json.loads(jy)):
            bad.append("report.html: embedded reports differ")
    else:
        x, y = (TMP.sub("/cdch-run-X/", re.sub(r'time="[0-9.]+"', 'time=""', t)) for t in (x, y))
        x, y = (re.sub(r"^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC", "DATE", t, flags=re.M) for t in (x, y))
    if x != y:
        bad.append("%s differs" % name)
        if isinstance(x, str):
            import difflib
            sys.stdout.writelines(list(difflib.unified_diff(x.splitlines(True), y.splitlines(True), a, b))[:40])
        else:
            for i, (p, q) in enumerate(zip(x["cells"], y["cells"])):
                if p != q:
                    print("cell %d:\n  %s\n  %s" % (i, json.dumps(p)[:600], json.dumps(q)[:600]))
                    break
            print(len(x["cells"]), len(y["cells"]), x.get("totals"), y.get("totals"))
if bad:
    print("\n".join(bad)); sys.exit(1)
PY
python3 "$work/same.py" "$work/single" "$work/merged" || fail "the merged report differs from the single run's"
python3 - "$work/s1/report.json" "$work/s2/report.json" "$work/merged/report.json" <<'PY' || fail "the merged report's cpu is not the sum of its shards'"
import json, sys
a, b, m = (json.load(open(p))["cpu"] for p in sys.argv[1:])
for k in ("harness_seconds", "children_seconds"):
    if abs(a[k] + b[k] - m[k]) > 0.051:
        sys.exit("%s: %s + %s != %s" % (k, a[k], b[k], m[k]))
PY
python3 - "$work/merged/report.json" <<'PY' || fail "merged report.json"
import json, sys
r = json.load(open(sys.argv[1]))
order = [(c["consumer"], c["mode"]) for c in r["cells"]]
want = sorted(order, key=lambda k: (k[0], ["uncompressed", "compressed"].index(k[1])))
assert order == want and len(order) == 12, order
t = r["totals"]
assert t["cells"] == 12 and t["compression_regressions"] == 3 and t["not_as_expected"] == 0 and t["pass"] == 5, t
fd = {(c["consumer"], c["mode"]): c["first_difference"] for c in r["cells"]}
assert fd[("cdcharness-ref@builtin", "compressed")] is None
skip = fd[("broken-skip@1", "compressed")]
assert skip["kind"] == "missing" and skip["txn"] == 6 and skip["observed"] is None and skip["expected"]["txn"] == 6, skip
val = fd[("broken-value@1", "uncompressed")]
assert val["kind"] == "mismatch" and val["column"] == "note" and val["expected"]["after"]["note"] == "changed" \
    and val["observed"]["after"]["note"] == "CHANGED", val
ck = fd[("broken-checkpoint@1", "compressed")]
assert ck["kind"] == "checkpoint" and ck["observed"]["pos"]["pos"] == 0 and ck["expected"]["txn"] == ck["txn"], ck
for c in r["cells"]:
    assert c["cell_dir"] == "cells/%s/run-small/%s" % (c["consumer"], c["mode"]), c["cell_dir"]
    assert c["stream_bytes"] > 0 and c["stream_events"] > 0, c
PY
for c in broken-value@1 cdcharness-ref@builtin; do
  [ -s "$work/merged/cells/$c/run-small/compressed/observed.jsonl" ] || fail "logs of $c not copied"
done

echo "== render is idempotent"
mkdir "$work/before" && cp "$work/merged"/*.{json,xml,md,html} "$work/before/"
"$bin" report render "$work/merged" || fail "render"
for f in report.json junit.xml summary.md report.html; do
  cmp -s "$work/before/$f" "$work/merged/$f" || fail "render changed $f"
done

echo "== matrix shards: ordered by index, shard dropped; other matrices rejected"
python3 - "$work" <<'PY'
import json, os, sys
w = sys.argv[1]
for k, d in ((1, "s1"), (2, "s2")):
    r = json.load(open(os.path.join(w, d, "report.json")))
    r["matrix"] = {"name": "m", "plan": ["run-small"], "shard": "%d/2" % k}
    for i, c in enumerate(r["cells"]):
        c["index"] = 2 * i + k  # interleaved: the merge must follow the index
    os.makedirs(os.path.join(w, "m%d" % k))
    json.dump(r, open(os.path.join(w, "m%d" % k, "report.json"), "w"))
    if k == 2:
        r["matrix"]["name"] = "other"
        os.makedirs(os.path.join(w, "o2"))
        json.dump(r, open(os.path.join(w, "o2", "report.json"), "w"))
PY
"$bin" report merge --out "$work/mm" "$work/m2" "$work/m1" 2>/dev/null || fail "merge of matrix shards"
python3 - "$work/mm/report.json" <<'PY' || fail "matrix merge order"
import json, sys
r = json.load(open(sys.argv[1]))
assert [c["index"] for c in r["cells"]] == list(range(1, 13)), [c["index"] for c in r["cells"]]
assert r["matrix"] == {"name": "m", "plan": ["run-small"]}, r["matrix"]
PY
set +e
out=$("$bin" report merge --out "$work/bad1" "$work/m1" "$work/o2" 2>&1); rc=$?
set -e
[ $rc -eq 1 ] && echo "$out" | grep -q "not a shard of the same matrix" || fail "different matrices: rc $rc: $out"
set +e
out=$("$bin" report merge --out "$work/bad2" "$work/m1" "$work/s2" 2>&1); rc=$?
set -e
[ $rc -eq 1 ] && echo "$out" | grep -q "has no \"matrix\" object" || fail "matrix and plain run: rc $rc: $out"
set +e
out=$("$bin" report merge --out "$work/bad3" "$work/s1" "$work/single" 2>&1); rc=$?
set -e
[ $rc -eq 1 ] && echo "$out" | grep -q "is twice in the input.*overlapping shards" || fail "overlap: rc $rc: $out"
set +e
out=$("$bin" report merge --out "$work/bad4" "$work/m1" "$work/m1" 2>&1); rc=$?
set -e
[ $rc -eq 1 ] && echo "$out" | grep -q "overlapping shards" || fail "same shard twice: rc $rc: $out"
[ ! -e "$work/bad1/report.json" ] && [ ! -e "$work/bad3/report.json" ] || fail "a rejected merge wrote a report"
echo '{"format":"something-else"}' >"$work/junk.json"
set +e
out=$("$bin" report merge --out "$work/bad5" "$work/junk.json" 2>&1); rc=$?
set -e
[ $rc -eq 1 ] && echo "$out" | grep -q "not a cdcharness report" || fail "junk input: rc $rc: $out"

echo "== usage"
for args in "report" "report merge $work/s1" "report merge --out $work/x" "report render" "report frobnicate"; do
  set +e
  # shellcheck disable=SC2086
  "$bin" $args >/dev/null 2>&1; rc=$?
  set -e
  [ $rc -eq 2 ] || fail "'$args' should be a usage error (2), got $rc"
done
# read whole first: grep -q stops at its match, and the writer's SIGPIPE would fail the pipe under pipefail
help=$("$bin" report --help)
grep -q "report merge --out DIR" <<<"$help" || fail "report --help"
help=$("$bin" report merge --help)
grep -q "report render DIR" <<<"$help" || fail "report merge --help"
set +e
"$bin" report render "$work/nowhere" 2>/dev/null; rc=$?
set -e
[ $rc -eq 1 ] || fail "render of a missing report: rc $rc"
echo "== all report merge tests passed"
