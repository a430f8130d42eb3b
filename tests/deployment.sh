#!/usr/bin/env bash
# A deployment file (issue 27 item 3; README "Check your deployment") run with --pre-flip:
#
#   tests/deployment.sh CDCHARNESS_BIN SOURCE_DIR
#
# The capture: scenarios/crud-basic.yaml served uncompressed by `cdcharness serve`, recorded with
# `cdcharness record`. The deployment file lists a consumer that is safe (cdcharness-ref) and one that
# drops compressed transactions (tests/consumers/broken-skip), `capture:` the capture directory and
# `estimate: {levels: "1,3", link: 10mbit/20ms}`.
#  1. exit 1 (a consumer not safe); the exact pre-flip lines; the capture ran as a scenario named
#     after its directory, in both modes;
#  2. report.json's "deployment": the pre-flip answers with broken-skip's evidence, and the
#     capture's estimate whose byte figures equal `cdcharness estimate --json` of the same capture
#     and the files `recompress --level N` writes (exact), with catch-up figures over the link;
#  3. report.html carries the answers, the evidence, the estimate table (exact bytes per level)
#     and inline SVG charts, and no <script src> or external URL; summary.md the same table;
#     `report render` of the report.json gives the same sections (rendered from report.json);
#  4. a scenario file naming the capture works as a `capture:` entry;
#  5. errors name the file, line and key: a bad link, bad levels, a missing capture, a generated
#     scenario under capture:, estimate without capture, an unknown estimate key.
set -euo pipefail
bin=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
src=$(cd "$2" && pwd)
work=$(mktemp -d "${TMPDIR:-/tmp}/deployment_test.XXXXXX")
serve_pid=
trap '[ -n "$serve_pid" ] && kill "$serve_pid" 2>/dev/null; rm -rf "$work"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
pass() { echo "ok: $*"; }

echo "== the capture: crud-basic served and recorded"
"$bin" serve "$src/scenarios/crud-basic.yaml" --mode uncompressed --port 0 >"$work/serve.log" 2>&1 &
serve_pid=$!
port=
for _ in $(seq 300); do # up to 30 s (a loaded machine); not past the server's exit
    # || true: under set -e a sed that runs before the background shell created serve.log ends the script
    port=$(sed -n 's/^listening on .*:\([0-9][0-9]*\)$/\1/p' "$work/serve.log" 2>/dev/null || true)
    [ -n "$port" ] && break
    kill -0 "$serve_pid" 2>/dev/null || break
    sleep 0.1
done
[ -n "$port" ] || fail "cdcharness serve did not start: $(tail -3 "$work/serve.log")"
mkdir -p "$work/dep"
CDCH_PASSWORD=cdch "$bin" record --port "$port" --user cdch --start binlog.000001:4 --until-end --quiet \
    --out "$work/dep/nightly" 2>"$work/record.err" || fail "record: $(cat "$work/record.err")"
kill "$serve_pid"; wait "$serve_pid" 2>/dev/null || true; serve_pid=

cat >"$work/dep/deploy.yaml" <<EOF
name: deploy-test
consumers_dirs: [$src/tests/consumers, $src/consumers]
consumers: [cdcharness-ref, broken-skip]
capture: nightly
estimate:
  levels: "1,3"
  link: 10mbit/20ms
timeout: 20
EOF
echo "== 1. matrix --pre-flip"
rc=0
"$bin" matrix "$work/dep/deploy.yaml" -j 2 --pre-flip --report-dir "$work/r" >"$work/out.txt" 2>"$work/err.txt" || rc=$?
cat "$work/out.txt"
[ "$rc" = 1 ] || fail "exit status $rc, want 1 (broken-skip is not safe): $(tail -5 "$work/err.txt")"
grep -qx '  SAFE     cdcharness-ref@builtin (1 compressed/flip cells, 0 worse than uncompressed)' "$work/out.txt" ||
    fail "SAFE line for cdcharness-ref"
grep -qx '  NOT SAFE broken-skip@1 (1 compressed/flip cells, 1 worse than uncompressed)' "$work/out.txt" ||
    fail "NOT SAFE line for broken-skip"
grep -qx 'Estimate: capture nightly (cdcharness estimate nightly --levels 1,3 --link 10mbit/20ms)' "$work/out.txt" ||
    fail "estimate heading"
pass "pre-flip lines, exit 1"

echo "== 2. report.json's deployment = estimate --json, recompress's bytes"
"$bin" estimate "$work/dep/nightly" --levels 1,3 --json "$work/est.json" --quiet >/dev/null ||
    fail "estimate of the capture"
for l in 1 3; do
    "$bin" recompress "$work/dep/nightly" --level $l --out "$work/z$l" 2>/dev/null || fail "recompress --level $l"
done
"$bin" recompress "$work/dep/nightly" --mode uncompressed --out "$work/z0" 2>/dev/null || fail "recompress plain"
python3 - "$work" <<'PY' || fail "report.json deployment"
import glob, json, os, sys
w = sys.argv[1]
rep = json.load(open(f"{w}/r/report.json"))
cells = {(c["consumer"], c["scenario"], c["mode"]): c["verdict"] for c in rep["cells"]}
assert cells == {("cdcharness-ref@builtin", "nightly", "uncompressed"): "pass",
                 ("cdcharness-ref@builtin", "nightly", "compressed"): "pass",
                 ("broken-skip@1", "nightly", "uncompressed"): "pass",
                 ("broken-skip@1", "nightly", "compressed"): "silent-skip"}, cells
dep = rep["deployment"]
pf = {c["consumer"]: c for c in dep["preflip"]["consumers"]}
assert pf["cdcharness-ref@builtin"]["answer"] == "safe" and pf["cdcharness-ref@builtin"]["evidence"] == "", pf
b = pf["broken-skip@1"]
assert b["answer"] == "not-safe" and b["worse_when_compressed"] == 1, b
assert "nightly: compressed silent-skip, uncompressed pass" in b["evidence"], b["evidence"]
assert len(dep["estimates"]) == 1
e, ref = dep["estimates"][0], json.load(open(f"{w}/est.json"))
assert e["capture"] == "nightly", e["capture"]
assert e["link"]["text"] == "10mbit/20ms" and e["link"]["rate_bps"] == 10000000 and e["link"]["delay_ms"] == 20
def size(d):
    return sum(os.path.getsize(p) for p in glob.glob(f"{d}/binlog.0*"))
rows = [e["uncompressed"]] + e["levels"]
refrows = [ref["uncompressed"]] + ref["levels"]
assert [r["level"] for r in rows] == [0, 1, 3]
exact = ["stream_bytes", "row_bytes_in", "row_bytes_out", "scaffolding_bytes", "row_data_bytes", "zstd_bytes",
         "transactions", "compressed_transactions", "ratio", "row_ratio"]
for r, q, d in zip(rows, refrows, ["z0", "z1", "z3"]):
    for k in exact:
        assert r[k] == q[k], (r["level"], k, r[k], q[k])
    assert r["stream_bytes"] == size(f"{w}/{d}"), (r["level"], r["stream_bytes"], size(f"{w}/{d}"))
    assert r["cpu_s"] >= 0 and r["peak_rss_bytes"] > 0 and r["catchup_s"] > 0, r
    assert r["bytes_received"] == r["stream_bytes"], r
assert rows[2]["stream_bytes"] < rows[0]["stream_bytes"]
open(f"{w}/bytes.txt", "w").write(" ".join(str(r["stream_bytes"]) for r in rows) + "\n")
PY
pass "report.json: answers, evidence, estimate bytes == estimate --json == recompress's files"

echo "== 3. report.html and summary.md"
read -r b0 b1 b3 <"$work/bytes.txt"
check_html() { # FILE
    python3 - "$1" "$b0" "$b1" "$b3" <<'PY'
import re, sys
t = open(sys.argv[1]).read()
b0, b1, b3 = sys.argv[2:5]
assert '<section class="card deploy" id="preflip">' in t
assert '<span class="ans safe">SAFE</span>' in t and '<span class="ans not-safe">NOT SAFE</span>' in t
assert 'broken-skip@1: NOT SAFE</h3><pre class="ev">' in t
assert "nightly: compressed silent-skip, uncompressed pass" in t
assert "What compression costs and buys on nightly</h2>" in t
for lv, b in (("off", b0), ("1", b1), ("3", b3)):
    assert f"<tr><td>{lv}</td><td>{b}</td>" in t, (lv, b)
assert t.count('<div class="xchart"><svg') == 3, t.count('<div class="xchart"><svg')  # bytes+CPU, memory, catch-up
assert "Catch-up over 10mbit/20ms</h3>" in t
assert not re.search(r"<script[^>]*\bsrc=", t), "external script"
assert not re.search(r"https?://(?!www\.w3\.org)", t), "external URL"
PY
}
check_html "$work/r/report.html" || fail "report.html"
for row in "| off | $b0 | 1.000 |" "| 1 | $b1 |" "| 3 | $b3 |" "| broken-skip@1 | **NOT SAFE** | 1 | 1 | 0 |" \
           "| cdcharness-ref@builtin | **SAFE** | 1 | 0 | 0 |"; do
    grep -qF -- "$row" "$work/r/summary.md" || fail "summary.md lacks '$row'"
done
mkdir "$work/rr" && cp "$work/r/report.json" "$work/rr/"
"$bin" report render "$work/rr" >/dev/null 2>&1 || fail "report render"
check_html "$work/rr/report.html" || fail "report.html rendered again from report.json"
pass "report.html (answers, evidence, table, 3 SVG charts, self-contained), summary.md, re-render"

echo "== 4. a scenario file naming the capture"
cat >"$work/dep/night3.yaml" <<'YAML'
description: the nightly capture at level 3
capture: nightly
binlog: {compression: both, zstd_level: 3}
YAML
cat >"$work/dep/deploy2.yaml" <<YAML
name: deploy-test-2
consumers_dirs: [$src/consumers]
consumers: [cdcharness-ref]
capture: [night3.yaml]
estimate: {levels: [3]}
YAML
"$bin" matrix "$work/dep/deploy2.yaml" -j 2 --pre-flip --quiet --report-dir "$work/r2" >"$work/out2.txt" 2>&1 ||
    fail "scenario-file capture: $(tail -5 "$work/out2.txt")"
grep -qx '  SAFE     cdcharness-ref@builtin (1 compressed/flip cells, 0 worse than uncompressed)' "$work/out2.txt" ||
    fail "scenario-file capture: SAFE line"
python3 -c "
import json, sys
r = json.load(open(sys.argv[1]))
assert {c['scenario'] for c in r['cells']} == {'night3'}
e = r['deployment']['estimates'][0]
assert e['capture'] == 'nightly' and [l['level'] for l in e['levels']] == [3] and e['link'] is None, e
assert e['levels'][0]['stream_bytes'] == int(sys.argv[2])" "$work/r2/report.json" "$b3" || fail "scenario-file capture report"
pass "capture: a scenario file naming the capture"

echo "== 5. errors name the file, line and key"
f=$work/dep/bad.yaml
expect_err() { # NAME WANT(first stderr line) YAML
    printf '%s\n' "$3" >"$f"
    local rc=0
    "$bin" matrix "$f" --pre-flip --quiet --report-dir "$work/rb" >/dev/null 2>"$work/bad.err" || rc=$?
    [ "$rc" = 2 ] || fail "$1: exit $rc, want 2"
    [ "$(head -1 "$work/bad.err")" = "$2" ] || fail "$1: stderr '$(head -1 "$work/bad.err")', want '$2'"
    pass "$1"
}
head="name: bad
consumers: [cdcharness-ref]"
expect_err "bad link" "cdcharness matrix: $f:6:9: estimate.link '10 furlongs': give RATE or RATE/DELAY as \`estimate --link\` takes it, e.g. 10mbit/20ms, 256kbit/100ms, 1gbit (rates: kbit, mbit, gbit, kbps = bytes; delays: ms, s)" "$head
capture: nightly
estimate:
  levels: 1-3
  link: 10 furlongs"
expect_err "bad levels" "cdcharness matrix: $f:4:20: estimate.levels: --levels wants zstd levels 1..22 as a range (1-7), a list (1,3,7,19) or both (1-3,7), not '1-23'" "$head
capture: nightly
estimate: {levels: 1-23}"
expect_err "missing capture" "cdcharness matrix: $f:3:10: capture: 'nope' does not exist (a capture directory or a scenario file, relative to this file)" "$head
capture: nope"
expect_err "generated scenario as capture" "cdcharness matrix: $f:3:10: capture: '$src/scenarios/crud-basic.yaml' is a generated scenario (it has no 'capture:' key): list it under 'scenarios'" "$head
capture: $src/scenarios/crud-basic.yaml"
expect_err "estimate without capture" "cdcharness matrix: $f:1:1: 'estimate' measures the matrix's captures: add 'capture' (capture directories or scenario files naming one)" "$head
scenarios: [$src/scenarios/crud-basic.yaml]
estimate: {levels: 3}"
expect_err "unknown estimate key" "cdcharness matrix: $f:4:23: unknown key 'rate' in 'estimate' (levels, link)" "$head
capture: nightly
estimate: {levels: 3, rate: 1gbit}"
echo "all deployment checks passed"
