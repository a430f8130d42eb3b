#!/usr/bin/env bash
# Programs that are not adapters (issue 27): --consumer-cmd and a matrix file's `command:`, judged by the
# differential oracle (harness/run/oracle.h) against their own rows on the uncompressed stream.
#   * tests/programs/pmr_rows.py: 14 lines on python-mysql-replication 1.0.17 (the venv its adapter's
#     setup installs, consumers/python-mysql-replication/setup.sh, taken through `matrix --setup-only`):
#     pass uncompressed, silent-skip compressed and flip. 1.0.17 has no class for TRANSACTION_PAYLOAD_EVENT
#     (type 40): pymysqlreplication/packet.py:25 (the event map has none), :116 (an unknown type becomes
#     NotImplementedEvent), :118-119 (not an allowed event: no event), binlogstream.py:770 (the default
#     filter_non_implemented_events=True removes NotImplementedEvent from the allowed events);
#   * tests/programs/gomysql_rows: go-mysql v1.16.0 with a payload-aware loop (TransactionPayloadEvent's
#     inner Events), built from the Go module cache the go-mysql adapter's setup fills: pass everywhere;
#   * --ignore / --normalize (a wrapper adds a per-run number and log lines: mismatch without them,
#     pass with), an error exit (parse-failure), a matrix `command:` entry with `name:` and
#     --oracle both beside a canonical adapter (tests/consumers/broken-skip).
#
#   tests/inhouse_programs.sh CDCHARNESS SOURCE_DIR
set -euo pipefail
bin=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
src=$(cd "$2" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
cd "$src"

# python-mysql-replication 1.0.17's venv, installed (or found) by its adapter's setup
cat >"$work/setup.yaml" <<YAML
name: inhouse-setup
consumers_dirs: [$src/consumers]
consumers: [python-mysql-replication@1.0.17]
scenarios: [$src/scenarios/crud-basic.yaml]
YAML
pydir=$("$bin" matrix "$work/setup.yaml" --setup-only --quiet | awk -F'\t' '$1 == "python-mysql-replication@1.0.17" {print $2}')
py=$pydir/venv/bin/python
[ -x "$py" ] || fail "python-mysql-replication 1.0.17 not installed (matrix --setup-only gave '$pydir')"
# The cache is shared by every checkout on the machine, and a checkout whose adapter folder differs
# installs the same version again into the same directory (under its exclusive lock, setup.c). So the
# runs that use the venv hold that lock shared, once the library imports.
with_py() {
    local try rc
    for try in 1 2 3; do
        exec 9>>"$pydir.lock"
        flock -s 9
        if "$py" -c 'import pymysqlreplication, pymysql' 2>/dev/null; then
            rc=0
            "$@" || rc=$?
            flock -u 9
            exec 9>&-
            return $rc
        fi
        flock -u 9
        exec 9>&-
        "$bin" matrix "$work/setup.yaml" --setup-only --quiet >/dev/null || true
    done
    fail "python-mysql-replication 1.0.17 does not import from $py"
}

# the Go program, built outside the source tree
cp -r "$src/tests/programs/gomysql_rows" "$work/gm"
(cd "$work/gm" && GOFLAGS=-mod=mod go build -o "$work/gomysql_rows" .) || fail "cannot build tests/programs/gomysql_rows"
gm=$work/gomysql_rows

# report.json -> "consumer scenario mode verdict regression oracle-kind oracle-verdict" lines
cells() {
    python3 - "$1" <<'PY'
import json, sys
for c in json.load(open(sys.argv[1]))["cells"]:
    o = c.get("oracle") or {}
    print(c["consumer"], c["scenario"], c["mode"], c["verdict"], "reg" if c["compression_regression"] else "-",
          o.get("kind", "-"), o.get("verdict", "-"))
PY
}
check() { # REPORT EXPECTED
    local got
    got=$(cells "$1" | sort)
    [ "$got" = "$(printf '%s\n' "$2" | sort)" ] || fail "$1: verdicts
--- got
$got
--- want
$2"
}

# 1. the two programs, --consumer-cmd, both modes and the flip scenario (its uncompressed cell is added)
printf 'pmr_rows * compressed silent-skip\npmr_rows * flip silent-skip\n' >"$work/expect"
with_py "$bin" run --quiet --consumer-cmd "$py tests/programs/pmr_rows.py" --consumer-name gm --consumer-cmd "$gm" \
    --scenario scenarios/crud-basic.yaml --scenario scenarios/compression-flip.yaml --expect-file "$work/expect" \
    --report-dir "$work/r1" >"$work/r1.out" || fail "run with both programs: $(cat "$work/r1.out")"
check "$work/r1/report.json" "pmr_rows@command crud-basic uncompressed pass - differential pass
pmr_rows@command crud-basic compressed silent-skip reg differential silent-skip
pmr_rows@command compression-flip uncompressed pass - differential pass
pmr_rows@command compression-flip flip silent-skip reg differential silent-skip
gm@command crud-basic uncompressed pass - differential pass
gm@command crud-basic compressed pass - differential pass
gm@command compression-flip uncompressed pass - differential pass
gm@command compression-flip flip pass - differential pass"
# what the program printed is kept as it printed it; the first differing rows are side by side
obs=$work/r1/cells/pmr_rows@command/crud-basic/compressed/observed.jsonl
[ "$(cat "$obs")" = "WriteRowsEvent shop.cdch_watermark [('UNKNOWN_COL0', 1), ('UNKNOWN_COL1', 'end')]" ] ||
    fail "compressed observed.jsonl: $(cat "$obs")"
[ -f "$work/r1/cells/pmr_rows@command/crud-basic/compressed/stderr.log" ] || fail "no stderr.log"
python3 - "$work/r1/report.json" <<'PY' || fail "report.json oracle / summary"
import json, sys
cells = {(c["consumer"], c["scenario"], c["mode"]): c for c in json.load(open(sys.argv[1]))["cells"]}
c = cells[("pmr_rows@command", "crud-basic", "compressed")]
rows = c["oracle"]["first_rows"]
assert c["command"] is True and c["first_difference"] is None, c
assert rows[0]["plain_line"] == 1 and rows[0]["plain"].startswith("WriteRowsEvent shop.customers [('UNKNOWN_COL0', 1)"), rows[0]
assert rows[0]["this"].startswith("WriteRowsEvent shop.cdch_watermark") and rows[0]["same"] is False, rows[0]
assert c["summary"].startswith("against its plain run: 10 transaction(s) missing while later ones arrived: txn 5*"), c["summary"]
p = cells[("pmr_rows@command", "crud-basic", "uncompressed")]
assert p["summary"] == "row count: 15 rows in 11 transactions; checkpoints not reported", p["summary"]
assert p["ready"] is True and p["oracle"]["first_rows"] is None, p
PY

# 2. --ignore and --normalize: a per-run number before every row and a log line after each
noisy="$gm | awk -v s=\$\$ 'BEGIN { srand(s) } { print int(rand() * 1000000000), \$0; print \"# log: row\"; fflush() }'"
"$bin" run --quiet --consumer-name noisy --consumer-cmd "$noisy" --scenario scenarios/crud-basic.yaml \
    --report-dir "$work/r2" >/dev/null && fail "noisy rows without --normalize passed"
check "$work/r2/report.json" "noisy@command crud-basic uncompressed mismatch - differential mismatch
noisy@command crud-basic compressed mismatch reg differential mismatch"
"$bin" run --quiet --consumer-name noisy --consumer-cmd "$noisy" --scenario scenarios/crud-basic.yaml \
    --ignore '^# log' --normalize '^[0-9]+ ' --report-dir "$work/r3" >/dev/null || fail "noisy rows with --normalize"
check "$work/r3/report.json" "noisy@command crud-basic uncompressed pass - differential pass
noisy@command crud-basic compressed pass - differential pass"

# 3. an error exit part-way on the compressed stream: parse-failure (a program that prints crud-basic's 15 rows
#    without connecting, and only 2 of them before failing on the compressed stream)
dies="if [ \"\$CDCH_MODE\" = compressed ]; then seq 1 2 | sed 's/^/row /'; echo 'payload: cannot decode' >&2; exit 3; else seq 1 15 | sed 's/^/row /'; fi"
"$bin" run --quiet --consumer-name dies --consumer-cmd "$dies" --scenario scenarios/crud-basic.yaml \
    --report-dir "$work/r4" >/dev/null && fail "an error exit passed"
check "$work/r4/report.json" "dies@command crud-basic uncompressed pass - differential pass
dies@command crud-basic compressed parse-failure reg differential parse-failure"

# 3b. a command the shell cannot find (a typo, a program not installed): the program never ran, a
#     harness-error in both modes, never a verdict about it; one that printed rows before its 127 is judged
set +e
"$bin" run --quiet --consumer-name typo --consumer-cmd "no-such-program-cdch --rows" --consumer-name rows127 \
    --consumer-cmd "seq 1 2 | sed 's/^/row /'; exit 127" --scenario scenarios/crud-basic.yaml \
    --report-dir "$work/r4b" >"$work/r4b.txt" 2>&1
set -e
python3 - "$work/r4b/report.json" <<'PY' || { cat "$work/r4b.txt"; fail "a command not found is a harness-error"; }
import json, sys
cells = json.load(open(sys.argv[1]))["cells"]
typo = [c for c in cells if c["consumer"].startswith("typo")]
assert len(typo) == 2, typo
for c in typo:
    assert c["verdict"] == "harness-error", (c["mode"], c["verdict"], c["summary"])
    assert "exited with status 127 before printing a row or an error: the command it runs was not found" in c["summary"], c["summary"]
    assert "no-such-program-cdch" in c["summary"], c["summary"]
rows = [c for c in cells if c["consumer"].startswith("rows127")]
assert rows and all(c["verdict"] != "harness-error" for c in rows), [(c["mode"], c["verdict"]) for c in rows]
PY

# 4. a matrix file: a `command:` entry with a name, beside a canonical adapter judged by both oracles
cat >"$work/m.yaml" <<YAML
name: inhouse
consumers_dirs: [$src/tests/consumers]
consumers:
  - broken-skip
  - {command: "$py $src/tests/programs/pmr_rows.py", name: py-rows}
scenarios: [$src/scenarios/crud-basic.yaml]
expect: pass
YAML
with_py "$bin" matrix "$work/m.yaml" --quiet --oracle both --report-dir "$work/r5" >/dev/null 2>&1 && fail "matrix passed"
check "$work/r5/report.json" "broken-skip@1 crud-basic uncompressed pass - both pass
broken-skip@1 crud-basic compressed silent-skip reg both silent-skip
py-rows@command crud-basic uncompressed pass - differential pass
py-rows@command crud-basic compressed silent-skip reg differential silent-skip"

# 5. the pre-flip gate over programs: the payload-blind one is NOT SAFE, the payload-aware one SAFE, and one
#    that loses rows in both modes (its uncompressed cell silent-skip, by count) but changes a row only when
#    compressed is NOT SAFE too: judged against its own rows, the change is compression's
cat >"$work/filt.sh" <<SH
#!/bin/sh
if [ "\$CDCH_MODE" = compressed ]; then
    $gm | grep --line-buffered -v orders | sed -u 's/Ann/ANN/'
else
    $gm | grep --line-buffered -v orders
fi
SH
chmod +x "$work/filt.sh"
cat >"$work/pf.yaml" <<YAML
name: inhouse-preflip
consumers:
  - {command: "$py $src/tests/programs/pmr_rows.py", name: py-rows}
  - {command: "$gm", name: go-rows}
  - {command: "$work/filt.sh", name: filt}
scenarios: [$src/scenarios/crud-basic.yaml]
YAML
rc=0
with_py "$bin" matrix "$work/pf.yaml" --quiet --pre-flip --report-dir "$work/r6" >"$work/pf.out" 2>&1 || rc=$?
[ "$rc" = 1 ] || fail "pre-flip exit status $rc (want 1): $(cat "$work/pf.out")"
grep -q '^  NOT SAFE py-rows@command (1 compressed/flip cells, 1 worse than uncompressed)$' "$work/pf.out" ||
    fail "pre-flip py-rows: $(cat "$work/pf.out")"
grep -q '^  SAFE     go-rows@command (1 compressed/flip cells, 0 worse than uncompressed)$' "$work/pf.out" ||
    fail "pre-flip go-rows: $(cat "$work/pf.out")"
grep -q '^  NOT SAFE filt@command (1 compressed/flip cells, 1 worse than uncompressed)$' "$work/pf.out" ||
    fail "pre-flip filt: $(cat "$work/pf.out")"
check "$work/r6/report.json" "py-rows@command crud-basic uncompressed pass - differential pass
py-rows@command crud-basic compressed silent-skip reg differential silent-skip
go-rows@command crud-basic uncompressed pass - differential pass
go-rows@command crud-basic compressed pass - differential pass
filt@command crud-basic uncompressed silent-skip - differential silent-skip
filt@command crud-basic compressed mismatch reg differential mismatch"

# 6. usage errors say what to do
out=$("$bin" run --consumer-cmd "x" --consumer-cmd "x" --scenario scenarios/crud-basic.yaml 2>&1) && fail "same name twice"
[[ $out == *"command consumer 'x': the name is taken"* ]] || fail "same name: $out"
out=$("$bin" run --consumer-cmd x --normalize 'a(' --scenario scenarios/crud-basic.yaml 2>&1) && fail "bad regex"
[[ $out == *"--normalize 'a(' is not a POSIX extended regular expression"* ]] || fail "bad regex: $out"
out=$("$bin" run --consumer-cmd x --oracle nope --scenario scenarios/crud-basic.yaml 2>&1) && fail "bad oracle"
[[ $out == *"--oracle wants canonical, differential or both, not 'nope'"* ]] || fail "bad oracle: $out"
echo "inhouse_programs: ok"
