#!/usr/bin/env bash
# `cdcharness run` end to end: the reference consumer and the deliberately
# broken test consumers of tests/consumers/ (tests/consumers/_common/broken.py)
# against tests/data/run-small.yaml, and the fault-class ones (non-finite
# numbers, wrong op/db/table/key, warnings, announced and silent holes,
# key-changing UPDATEs as delete + insert, correct-but-odd spellings) against
# tests/data/run-faults.yaml, asserting the exact verdict and
# compression-regression flag of every cell from report.json; then the
# expectation options (--expect, --expect-file, --baseline), the reports'
# well-formedness, and the errors for unknown consumers.
#
#   tests/run_verdicts.sh CDCHARNESS SOURCE_DIR
set -euo pipefail
bin=$1
src=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export CDCH_CACHE=$work/cache
export CDCH_TESTS=$src/tests   # verdict_expect.py, shared by the checks below
fail() { echo "FAIL: $*" >&2; exit 1; }
# cons_manifest FAM: a test family in $work/cons, its manifest.yaml read from stdin
cons_manifest() { mkdir -p "$work/cons/$1" && cat >"$work/cons/$1/manifest.yaml"; }

run() { "$bin" run --consumers-dir "$src/tests/consumers" --consumers-dir "$src/consumers" --quiet "$@"; }

scenario=$src/tests/data/run-small.yaml
consumers=(cdcharness-ref broken-duplicate broken-reorder broken-checkpoint broken-value broken-hang
           broken-spin broken-skip broken-announce-skip broken-die odd-equivalent broken-late-flush
           broken-late-busy broken-late-busy-inorder)
args=()
for c in "${consumers[@]}"; do args+=(--consumer "$c"); done

echo "== matrix: every test consumer against run-small (--expect manifest)"
set +e
run "${args[@]}" --scenario "$scenario" --expect manifest --timeout 4 -j 4 --report-dir "$work/r1" >"$work/table1.txt"
rc=$?
set -e
cat "$work/table1.txt"

python3 - "$work/r1/report.json" <<'EOF'
import json, os, sys
want = {
    # consumer: (uncompressed, compressed, compression-regression on the compressed cell)
    "cdcharness-ref@builtin":  ("pass", "pass", False),
    "broken-duplicate@1":      ("duplicate", "duplicate", False),
    "broken-reorder@1":        ("reorder", "reorder", False),
    "broken-checkpoint@1":     ("pass", "bad-checkpoint", True),
    "broken-value@1":          ("mismatch", "mismatch", False),
    "broken-hang@1":           ("hang", "hang", False),
    "broken-spin@1":           ("hang", "hang", False),
    "broken-skip@1":           ("pass", "silent-skip", True),
    "broken-announce-skip@1":  ("pass", "announced-skip", True),
    "broken-die@1":            ("pass", "parse-failure", True),
    "odd-equivalent@1":        ("pass", "pass", False),
    "broken-late-flush@1":     ("pass", "reorder", True),
    # busy after the watermark, then its late rows: waited for (reorder); with a `delivery: in-order`
    # claim, not waited for (waits.h rule 3): the claim decides, so it needs its evidence
    "broken-late-busy@1":      ("pass", "reorder", True),
    "broken-late-busy-inorder@1": ("pass", "silent-skip", True),
}
r = json.load(open(sys.argv[1]))
cells = {(c["consumer"], c["mode"]): c for c in r["cells"]}
sys.path.insert(0, os.environ["CDCH_TESTS"])
from verdict_expect import check
bad = check(cells, want)
# findings name what went wrong (transaction numbers count the watermark table's CREATE TABLE,
# harness/run/watermark.h, as the stream's third DDL)
skip = cells[("broken-skip@1", "compressed")]
miss = skip["missing"]
if [m["txn"] for m in miss] != [6, 7, 9, 10] or not all(m["compressed"] and m["hole"] for m in miss):
    bad.append("silent-skip: missing %r" % miss)
if miss and (miss[0]["event"] != "Transaction_payload" or miss[0]["gtid"] != "3e11fa47-71ca-11e1-9e33-c80aa9429562:6"):
    bad.append("silent-skip: first missing not named as the payload of gtid ...:6: %r" % miss[0])
mm = cells[("broken-value@1", "uncompressed")]["mismatches"]
if len(mm) != 1 or mm[0]["column"] != "note" or mm[0]["expected"] != '"changed"' or mm[0]["observed"] != '"CHANGED"':
    bad.append("mismatch: %r" % mm)
die = cells[("broken-die@1", "compressed")]
if "unknown binlog event type 40" not in die["summary"] or die["exit_status"] != 1:
    bad.append("parse-failure: summary/exit %r %r" % (die["summary"], die["exit_status"]))
ann = cells[("broken-announce-skip@1", "compressed")]
if "skipping unsupported event type 40" not in ann["summary"]:
    bad.append("announce-skip: consumer message not named: %r" % ann["summary"])
ck = cells[("broken-checkpoint@1", "compressed")]["checkpoints"]
if not ck or not all(c["compressed"] for c in ck) or ":0 is outside txn" not in ck[0]["what"]:
    bad.append("bad-checkpoint: %r" % ck)
hang = cells[("broken-hang@1", "compressed")]
if hang["stop"] != "timeout" or hang["exit_signal"] != 9:
    bad.append("hang: stop %s, signal %s (SIGTERM is ignored: SIGKILL expected)" % (hang["stop"], hang["exit_signal"]))
# the two clocks of a hang, in the consumer's own terms: blocked (quiet) for the timeout, or the
# timeout's worth of its own CPU-seconds spent without output
if "(blocked: no output, no thread running, nothing in flight)" not in hang["summary"]:
    bad.append("hang: not said to be blocked: %s" % hang["summary"])
spin = cells[("broken-spin@1", "compressed")]
if "CPU-seconds of its own spent without output" not in spin["summary"] or spin["stop"] != "timeout":
    bad.append("spin: not hung by its CPU budget: %s %s" % (spin["stop"], spin["summary"]))
dup = cells[("broken-duplicate@1", "compressed")]["duplicates"]
if len(dup) != 1 or dup[0]["txn"] != 6:
    bad.append("duplicate: %r" % dup)
ro = cells[("broken-reorder@1", "compressed")]["reorders"]
if len(ro) != 1 or (ro[0]["txn"], ro[0]["after_txn"]) != (6, 7):
    bad.append("reorder: %r" % ro)
late = cells[("broken-late-flush@1", "compressed")]
if late["observed_rows"] != late["expected_rows"] or late["stop"] != "done":
    bad.append("late-flush: the late rows were not waited for: %s of %s rows, stop %s" %
               (late["observed_rows"], late["expected_rows"], late["stop"]))
busy = cells[("broken-late-busy@1", "compressed")]
if busy["observed_rows"] != busy["expected_rows"] or busy["stop"] != "done":
    bad.append("late-busy: the late rows of a busy consumer were not waited for: %s of %s rows, stop %s" %
               (busy["observed_rows"], busy["expected_rows"], busy["stop"]))
claim = cells[("broken-late-busy-inorder@1", "compressed")]
if [m["txn"] for m in claim["missing"]] != [6, 7, 9, 10] or claim["stop"] != "done":
    bad.append("late-busy-inorder: an in-order consumer's cell did not end at its watermark: missing %r, stop %s" %
               (claim["missing"], claim["stop"]))
if r["totals"]["compression_regressions"] != 7:
    bad.append("totals: %r" % r["totals"])
if bad:
    print("\n".join(bad)); sys.exit(1)
print("report.json: all %d cells as expected" % len(r["cells"]))
EOF
[ $rc -eq 0 ] || fail "run exited $rc; every cell should meet its manifest's expect"
python3 -c 'import sys, xml.etree.ElementTree as E; t = E.parse(sys.argv[1]).getroot(); assert t.get("tests") == "28", t.attrib' \
  "$work/r1/junit.xml" || fail "junit.xml"
grep -q '| broken-skip@1 | run-small | compressed | \*\*silent-skip\*\* ⚠ compression-regression' "$work/r1/summary.md" ||
  fail "summary.md lacks the silent-skip row"
[ -s "$work/r1/cells/broken-value@1/run-small/compressed/observed.jsonl" ] || fail "cell log observed.jsonl"

echo "== restart loops: consumers that read the stream again and again from the same place (waits.h rules 6, 7)"
# broken-restart-loop prints an error at event type 40 and restarts for ever, never quiet for long
# (a Flink job restarting its failed source): parse-failure once the primary served three dumps
# since its last row, not a cell that runs for ever. broken-restart-silent restarts without a word
# while a thread works half the time: hang by the restart rule, before its CPU budget is spent.
# broken-retry-loop prints one error and logs in again every 0.2 s without streaming, a thread
# working half the time (Debezium's unlimited retries on a start-up query MySQL 8.4 refuses): idle
# after the stream once it connected three more times since its error, not stopped by its CPU budget
# (4 CPU-seconds, about 8 s of its own time) nor by five idle windows (10 s).
set +e
run --consumer broken-restart-loop --consumer broken-restart-silent --consumer broken-retry-loop \
    --scenario "$scenario" --expect manifest \
    --timeout 4 -j 2 --report-dir "$work/rl" >"$work/table-rl.txt"
rc=$?
set -e
cat "$work/table-rl.txt"
[ $rc -eq 0 ] || fail "restart loops: run exited $rc; every cell should meet its manifest's expect"
python3 - "$work/rl/report.json" <<'EOF'
import json, sys
cells = {(c["consumer"], c["mode"]): c for c in json.load(open(sys.argv[1]))["cells"]}
bad = []
loop = cells[("broken-restart-loop@1", "compressed")]
if loop["stop"] != "idle-after-stream" or "ERROR cannot parse event type 40" not in loop["summary"]:
    bad.append("restart-loop: stop %s, summary %s" % (loop["stop"], loop["summary"]))
silent = cells[("broken-restart-silent@1", "compressed")]
if silent["stop"] != "timeout" or "(restarting: " not in silent["summary"]:
    bad.append("restart-silent: not hung by the restart rule: stop %s, %s" % (silent["stop"], silent["summary"]))
for mode in ("uncompressed", "compressed"):
    retry = cells[("broken-retry-loop@1", mode)]
    if retry["stop"] != "idle-after-stream" or "ERROR cannot start" not in retry["summary"]:
        bad.append("retry-loop %s: not ended as reconnecting for ever: stop %s, %s" %
                   (mode, retry["stop"], retry["summary"]))
if bad:
    print("\n".join(bad)); sys.exit(1)
print("restart loops: judged as loops")
EOF

echo "== fault classes: the fault-class test consumers against run-faults (--expect manifest)"
# tests/data/run-faults.yaml: FLOAT/DOUBLE/JSON numbers, key-changing UPDATEs, deletes, six
# compressed transactions with never-compressed MyISAM ones between and after them.
# Transaction numbers count the watermark table's CREATE TABLE (the stream's third DDL).
faults=(cdcharness-ref
        broken-inf-number broken-neginf-number broken-inf-string broken-neginf-string broken-nan-string
        broken-json-inf broken-nonfinite-many
        broken-op-delete broken-op-insert broken-db broken-table broken-key
        broken-drop-row broken-double-as-float broken-big-as-double broken-phantom-row broken-extra-column
        broken-missing-column
        warn-then-correct warn-at-end broken-warn-skip broken-announce-once broken-late-announce
        broken-die-plain broken-value-die broken-ckpt-die broken-dup-value broken-value-skip
        keyupd-declared broken-keyupd-undeclared broken-keyupd-split broken-keyupd-other-txn
        odd-strings odd-at-names odd-set-bitmap odd-enum-index odd-gtid-upper odd-gtid-set odd-json-keys
        odd-time-padded odd-all)
args=()
for c in "${faults[@]}"; do args+=(--consumer "$c"); done
set +e
run "${args[@]}" --scenario "$src/tests/data/run-faults.yaml" --expect manifest --timeout 10 -j 4 \
    --report-dir "$work/rf" >"$work/tablef.txt"
rc=$?
set -e
cat "$work/tablef.txt"
python3 - "$work/rf" "${#faults[@]}" <<'EOF'
import json, os, re, sys
import xml.etree.ElementTree as E
rdir, nconsumers = sys.argv[1], int(sys.argv[2])
M, S, PF, AS = "mismatch", "silent-skip", "parse-failure", "announced-skip"
want = {
    # consumer: (uncompressed, compressed, compression-regression on the compressed cell)
    "cdcharness-ref@builtin":     ("pass", "pass", False),
    # non-finite numbers never equal a finite value (both modes)
    "broken-inf-number@1":        (M, M, False),   # FLOAT as the JSON number 1e999
    "broken-neginf-number@1":     (M, M, False),   # DOUBLE as -1e999
    "broken-inf-string@1":        (M, M, False),   # "Infinity"
    "broken-neginf-string@1":     (M, M, False),   # "-Infinity"
    "broken-nan-string@1":        (M, M, False),   # "NaN"
    "broken-json-inf@1":          (M, M, False),   # a number inside a JSON document as 1e999
    "broken-nonfinite-many@1":    (M, M, False),   # inf, -inf, nan, "1e999", -1E999, JSON -1e999
    # a row that arrived with a wrong op/db/table/key is a mismatch of that row, never missing
    "broken-op-delete@1":         (M, M, False),
    "broken-op-insert@1":         (M, M, False),
    "broken-db@1":                (M, M, False),
    "broken-table@1":             (M, M, False),
    "broken-key@1":               (M, M, False),
    # other faults
    "broken-drop-row@1":          (S, S, False),   # one row of a two-row transaction, silently
    "broken-double-as-float@1":   (M, M, False),
    "broken-big-as-double@1":     (M, M, False),
    "broken-phantom-row@1":       (M, M, False),
    "broken-extra-column@1":      (M, M, False),
    "broken-missing-column@1":    (M, M, False),
    # error lines: warnings on a pass; a hole is silent unless an error line lies around it
    "warn-then-correct@1":        ("pass", "pass", False),
    "warn-at-end@1":              ("pass", "pass", False),   # every row, then an error line
    "broken-warn-skip@1":         ("pass", S, True),   # one generic warning at the start: it names no event
    "broken-announce-once@1":     ("pass", AS, True),  # one line naming type 40 at the first hole announces them all
    "broken-late-announce@1":     ("pass", S, True),   # an error line per hole, after the row past it
    "broken-die-plain@1":         (PF, S, True),   # loud on plain streams, silent on compressed ones
    "broken-value-die@1":         (M, M, True),    # worst class wins; parse-failure is new in compressed
    "broken-ckpt-die@1":          ("bad-checkpoint", "bad-checkpoint", True),  # bad-checkpoint > parse-failure
    "broken-dup-value@1":         (M, M, False),   # mismatch > duplicate
    "broken-value-skip@1":        (M, S, True),    # silent-skip > mismatch
    # key-changing UPDATE as delete + insert
    "keyupd-declared@1":          ("pass", "pass", False),
    "broken-keyupd-undeclared@1": (M, M, False),
    "broken-keyupd-split@1":      (M, M, False),
    "broken-keyupd-other-txn@1":  (M, M, False),
}
for k in ("strings", "at-names", "set-bitmap", "enum-index", "gtid-upper", "gtid-set", "json-keys", "time-padded", "all"):
    want["odd-%s@1" % k] = ("pass", "pass", False)
assert len(want) == nconsumers, (len(want), nconsumers)
r = json.load(open(rdir + "/report.json"))
cells = {(c["consumer"], c["mode"]): c for c in r["cells"]}
sys.path.insert(0, os.environ["CDCH_TESTS"])
from verdict_expect import check
bad = check(cells, want)

def cell(con, mode):
    return cells.get((con + "@1", mode)) or {"summary": "", "detail": [], "mismatches": [], "missing": [],
                                             "mismatch_total": 0}

def text(c):
    return c["summary"] + "\n" + "\n".join(c["detail"])

# the finding names what is wrong
for con, col, spell in (("broken-inf-number", "f", "1e999"), ("broken-neginf-number", "d", "-1e999"),
                        ("broken-inf-string", "f", '"Infinity"'), ("broken-neginf-string", "d", '"-Infinity"'),
                        ("broken-nan-string", "d", '"NaN"'), ("broken-json-inf", "doc", "1e999")):
    for mode in ("uncompressed", "compressed"):
        mm = cell(con, mode)["mismatches"]
        if len(mm) != 1 or mm[0]["column"] != col or spell not in (mm[0]["observed"] or ""):
            bad.append("%s %s: want one mismatch of %s observed %s: %r" % (con, mode, col, spell, mm))
many = cell("broken-nonfinite-many", "compressed")
cols = sorted(m["column"] for m in many["mismatches"])
if many["mismatch_total"] != 6 or cols != ["d", "d", "doc", "f", "f", "f"]:
    bad.append("nonfinite-many: want 6 mismatches (f x3, d x2, doc), got %s: %s" % (many["mismatch_total"], cols))
for con, field in (("broken-op-delete", "op"), ("broken-op-insert", "op"), ("broken-db", "db"),
                   ("broken-table", "table"), ("broken-key", "sku")):
    for mode in ("uncompressed", "compressed"):
        c = cell(con, mode)
        if not re.search(r"\b%s\b" % field, text(c)):
            bad.append("%s %s: the finding does not name %r: %s" % (con, mode, field, c["summary"]))
        if c["missing"]:
            bad.append("%s %s: a row that arrived is never missing: %r" % (con, mode, c["missing"]))
for con in ("broken-keyupd-undeclared", "broken-keyupd-split", "broken-keyupd-other-txn"):
    for mode in ("uncompressed", "compressed"):
        if cell(con, mode)["missing"]:
            bad.append("%s %s: rows arrived, none missing: %r" % (con, mode, cell(con, mode)["missing"]))
for mode in ("uncompressed", "compressed"):
    miss = cell("broken-drop-row", mode)["missing"]
    if [(m["txn"], m["hole"]) for m in miss] != [(7, True)]:
        bad.append("drop-row %s: want txn 7 missing as a hole: %r" % (mode, miss))
for con, col in (("broken-double-as-float", "d"), ("broken-big-as-double", "big"), ("broken-extra-column", "colour"),
                 ("broken-missing-column", "note")):
    mm = cell(con, "compressed")["mismatches"]
    if not mm or any(m["column"] != col for m in mm):
        bad.append("%s: want mismatches of %s only: %r" % (con, col, [m["column"] for m in mm]))
if "unexpected" not in cell("broken-phantom-row", "uncompressed")["summary"]:
    bad.append("phantom-row: not named unexpected: %s" % cell("broken-phantom-row", "uncompressed")["summary"])
# skipped compressed transactions: 6, 7, 9, 10, 12, 13 (7 and 12 hold two rows)
for con in ("broken-warn-skip", "broken-announce-once", "broken-late-announce", "broken-die-plain"):
    miss = cell(con, "compressed")["missing"]
    if [m["txn"] for m in miss] != [6, 7, 9, 10, 12, 13] or not all(m["compressed"] and m["hole"] for m in miss):
        bad.append("%s compressed: missing %r" % (con, [(m["txn"], m["compressed"], m["hole"]) for m in miss]))
# announced losses: the one line naming type 40 announces every hole and is quoted; a generic warning
# announces one hole only (the first), the rest are silent
ao = cell("broken-announce-once", "compressed")
if [m.get("consumer_error") for m in ao["missing"]] != ["skipping unsupported event type 40 (txn 6)"] * 6 or \
        "consumer said: skipping unsupported event type 40 (txn 6)" not in ao["summary"]:
    bad.append("announce-once compressed: not announced by its one line: %s %r" % (ao["summary"], ao["missing"]))
ws = cell("broken-warn-skip", "compressed")
if [m.get("consumer_error") for m in ws["missing"]] != ["WARN binlog checksum query failed, continuing"] + [None] * 5 or \
        "[also: announced-skip]" not in ws["summary"]:
    bad.append("warn-skip compressed: a generic warning announces one hole only: %s %r" % (ws["summary"], ws["missing"]))
dp = cell("broken-die-plain", "uncompressed")
if dp.get("exit_status") != 1 or "cannot parse plain row events" not in dp["summary"]:
    bad.append("die-plain uncompressed: exit %r, summary %s" % (dp.get("exit_status"), dp["summary"]))
cd = cell("broken-ckpt-die", "compressed")
if "parse-failure" not in text(cd) or cd.get("exit_status") != 1:
    bad.append("ckpt-die compressed: the parse-failure is not named: %s" % cd["summary"])
dv = cell("broken-dup-value", "uncompressed")
if dv.get("duplicate_total") != 1:
    bad.append("dup-value: the duplicate is not reported beside the mismatch: %r" % dv.get("duplicates"))
vd = cell("broken-value-die", "compressed")
if "parse-failure" not in text(vd) or "CHANGED" not in text(vd):
    bad.append("value-die compressed: the findings name neither the value nor the parse-failure: %s" % vd["summary"])
# warnings: error lines that explain no finding; none where no error line was printed
for con, mode, msg in (("warn-then-correct", "uncompressed", "lost connection to the primary"),
                       ("warn-then-correct", "compressed", "queue 90% full"),
                       ("warn-at-end", "compressed", "1 event left unacknowledged"),
                       ("broken-warn-skip", "uncompressed", "checksum query failed")):
    w = cell(con, mode).get("warnings")
    if not w or not any(msg in x for x in w):
        bad.append("%s %s: want warnings naming %r: %r" % (con, mode, msg, w))
warned = {("warn-then-correct@1", "uncompressed"), ("warn-then-correct@1", "compressed"),
          ("warn-at-end@1", "uncompressed"), ("warn-at-end@1", "compressed"), ("broken-warn-skip@1", "uncompressed")}
for (con, mode), c in cells.items():
    if c["verdict"] == "pass" and bool(c.get("warnings")) != ((con, mode) in warned):
        bad.append("%s %s: warnings %r on a pass (error lines printed: %s)" % (con, mode, c.get("warnings"),
                                                                              (con, mode) in warned))
    # every non-pass expectation names its cause: the planted fault, with broken.py as evidence
    if c["expected"] != "pass":
        cause = c.get("cause") or []
        if not cause or not all(x.get("id", "").startswith("planted-") and "broken.py" in (x.get("evidence") or "")
                                for x in cause):
            bad.append("%s %s: expected %s without its planted cause: %r" % (con, mode, c["expected"], cause))
if r["totals"].get("unexplained") != 0:
    bad.append("totals: unexplained expectations %r" % r["totals"].get("unexplained"))
md = open(rdir + "/summary.md", encoding="utf-8").read()
rows = [l for l in md.splitlines() if l.startswith("| warn-then-correct@1 |")]
if len(rows) < 2 or not all("warning" in l.lower() for l in rows[:2]):
    bad.append("summary.md: the warn-then-correct rows do not mention the warnings: %r" % rows)
ju = E.parse(rdir + "/junit.xml").getroot()
if ju.get("tests") != str(2 * nconsumers):
    bad.append("junit.xml: tests=%s" % ju.get("tests"))
for tc in ju.iter("testcase"):
    if tc.get("classname", "").endswith("warn-then-correct@1"):
        if "warning" not in E.tostring(tc, encoding="unicode").lower():
            bad.append("junit.xml: %s does not mention the warnings" % tc.get("name"))
if r["totals"]["compression_regressions"] != 7:
    bad.append("totals: %r" % r["totals"])
if bad:
    print("\n".join(bad)); sys.exit(1)
print("report.json: all %d fault-class cells as expected" % len(r["cells"]))
EOF
[ $rc -eq 0 ] || fail "run-faults: run exited $rc; every cell should meet its manifest's expect"


echo "== issue 28: rows paired where they stand, integers by value, GTID sets a restart can trust"
# Each fault alone, each verdict exact, and no finding class that did not happen ("classes" is the
# whole set of classes found): a mislabelled table inside a payload (scenarios/multi-statement.yaml
# alternates two tables in one transaction), integers as Jackson writes a BigDecimal, a GTID set
# with a hole whose highest GNO is right, ENUM labels one too far where each UPDATE then equals the
# next one (tests/data/run-enum-steps.yaml)
for spec in "broken-table-previous-map $src/scenarios/multi-statement.yaml" \
            "odd-int-exponent $src/tests/data/run-faults.yaml" "broken-gtid-hole $src/tests/data/run-faults.yaml" \
            "broken-enum-off-by-one $src/tests/data/run-enum-steps.yaml"; do
  set -- $spec
  set +e
  run --consumer "$1" --scenario "$2" --expect manifest --timeout 10 -j 2 --report-dir "$work/r28-$1" >"$work/t28-$1.txt"
  rc=$?
  set -e
  cat "$work/t28-$1.txt"
  [ $rc -eq 0 ] || fail "$1: run exited $rc; every cell should meet its manifest's expect"
done
python3 - "$work" <<'EOF2'
import json, sys
work = sys.argv[1]
want = {
    # consumer: {mode: (verdict, classes, compression-regression)}
    "broken-table-previous-map@1": {"uncompressed": ("pass", "", False), "compressed": ("mismatch", "mismatch", True)},
    "odd-int-exponent@1": {"uncompressed": ("pass", "", False), "compressed": ("pass", "", False)},
    "broken-gtid-hole@1": {"uncompressed": ("pass", "", False),
                           "compressed": ("bad-checkpoint", "bad-checkpoint", True)},
    "broken-enum-off-by-one@1": {"uncompressed": ("mismatch", "mismatch", False),
                                 "compressed": ("mismatch", "mismatch", False)},
}
bad = []
cells = {}
for con in want:
    for c in json.load(open("%s/r28-%s/report.json" % (work, con.split("@")[0])))["cells"]:
        cells[(c["consumer"], c["mode"])] = c
for con, modes in want.items():
    for mode, (verdict, classes, reg) in modes.items():
        c = cells.get((con, mode))
        if not c:
            bad.append("%s %s: no cell" % (con, mode))
            continue
        got = (c["verdict"], c["classes"], c["compression_regression"])
        if got != (verdict, classes, reg):
            bad.append("%s %s: %r, want %r (%s)" % (con, mode, got, (verdict, classes, reg), c["summary"]))
        if verdict != "pass" and (c["missing"] or c["duplicate_total"] or c["reorder_total"]):
            bad.append("%s %s: invented findings: missing %r, duplicates %d, reorders %d"
                       % (con, mode, c["missing"], c["duplicate_total"], c["reorder_total"]))
# the mislabelled rows: each named by its table, in the transaction it arrived in, nothing else
mm = cells[("broken-table-previous-map@1", "compressed")]["mismatches"]
if not mm or any(m["what"] != "table differs" for m in mm) or cells[("broken-table-previous-map@1", "compressed")]["checkpoint_total"]:
    bad.append("table-previous-map: want table findings only: %r" % [(m["txn"], m["what"]) for m in mm])
if not any(m["expected"] == '"ledger"' and m["observed"] == '"accounts"' for m in mm) or \
   not any(m["expected"] == '"accounts"' and m["observed"] == '"ledger"' for m in mm):
    bad.append("table-previous-map: want both tables named for the other: %r" % [(m["expected"], m["observed"]) for m in mm])
# the ENUM: every changed image a value finding of its own column, 10 in all (2 inserts, 4 updates)
for mode in ("uncompressed", "compressed"):
    c = cells[("broken-enum-off-by-one@1", mode)]
    if c["mismatch_total"] != 10 or any(m["column"] != "stage" for m in c["mismatches"]) or c["checkpoint_total"]:
        bad.append("enum-off-by-one %s: %d mismatches %r" % (mode, c["mismatch_total"], [m["column"] for m in c["mismatches"]]))
# the GTID hole: named as one to resume from, with the set executed through the transaction
ck = cells[("broken-gtid-hole@1", "compressed")]["checkpoints"]
if not ck or ":1-5:7' is not one to resume from after txn 7" not in ck[0]["what"] or \
   "the set executed through it is '3e11fa47-71ca-11e1-9e33-c80aa9429562:1-7'" not in ck[0]["what"]:
    bad.append("gtid-hole: %r" % ck[:1])
if bad:
    print("\n".join(bad)); sys.exit(1)
print("issue 28 cells: all as expected")
EOF2


echo "== exit status follows expectations"
set +e
run --consumer broken-skip --scenario "$scenario" --report-dir "$work/r2" >/dev/null
rc=$?
set -e
[ $rc -eq 1 ] || fail "default expectation pass: silent-skip must exit 1, got $rc"
grep -q '<failure message="silent-skip \[compression-regression\] (expected pass)' "$work/r2/junit.xml" ||
  fail "junit failure for the silent-skip cell"

cat >"$work/expect.txt" <<'EOF'
# consumer          scenario   mode          verdict
broken-skip@1       run-small  compressed    silent-skip
broken-skip         *          uncompressed  pass
EOF
run --consumer broken-skip --scenario "$scenario" --expect-file "$work/expect.txt" --report-dir "$work/r3" >/dev/null ||
  fail "--expect-file should be met"

# baseline: a previous report; equal -> 0, worse -> 1, better -> 0
run --consumer broken-skip --scenario "$scenario" --baseline "$work/r2/report.json" --report-dir "$work/r4" >/dev/null ||
  fail "--baseline with the same verdicts should pass"
set +e
run --consumer broken-skip --consumer cdcharness-ref --scenario "$scenario" --baseline "$work/r2/report.json" \
  --report-dir "$work/r5" >/dev/null
rc=$?
set -e
[ $rc -eq 0 ] || fail "--baseline: a new passing cell is not worse (rc $rc)"
python3 - "$work/r2/report.json" "$work/worse.json" <<'EOF'
import json, sys
r = json.load(open(sys.argv[1]))
for c in r["cells"]:
    if c["mode"] == "compressed":
        c["verdict"] = "parse-failure"   # recorded as less serious than the silent-skip it is now
json.dump(r, open(sys.argv[2], "w"))
EOF
set +e
run --consumer broken-skip --scenario "$scenario" --baseline "$work/worse.json" --report-dir "$work/r6" >/dev/null
rc=$?
set -e
[ $rc -eq 1 ] || fail "--baseline: silent-skip is worse than a recorded parse-failure (rc $rc)"

echo "== errors"
set +e
out=$(run --consumer no-such-family --scenario "$scenario" 2>&1)
rc=$?
set -e
[ $rc -eq 2 ] || fail "unknown family: exit $rc"
echo "$out" | grep -q "unknown consumer family 'no-such-family'" || fail "unknown family message: $out"
echo "$out" | grep -q "known: .*broken-announce-skip" || fail "unknown family should list the known ones: $out"
set +e
out=$(run --consumer broken-skip@9.9 --scenario "$scenario" 2>&1)
rc=$?
set -e
[ $rc -eq 2 ] || fail "unknown version: exit $rc"
echo "$out" | grep -q "version '9.9' is not pinned.*pinned: 1" || fail "unknown version message: $out"
set +e
out=$(run --consumer broken-skip --scenario "$scenario" --expect fine 2>&1)
rc=$?
set -e
[ $rc -eq 2 ] && echo "$out" | grep -q "unknown --expect 'fine'" || fail "bad --expect: $out"

# every non-pass expectation of a manifest names its cause: a known_issues id, or `unexplained`
for c in "nocause:silent-skip" "badcause:silent-skip no-such-issue" "bycause:pass" "unexpl:silent-skip unexplained"; do
  fam=${c%%:*}
  cons_manifest "$fam" <<EOF
family: $fam
source: files
versions:
  - version: "1"
    expect: {uncompressed: pass, compressed: ${c#*:}}
expect_by_scenario:
  run-small: {compressed: $([ "$fam" = bycause ] && echo silent-skip || echo "${c#*:}")}
known_issues:
  - {id: planted-fault, kind: consumer-defect, compression: true, summary: "drops compressed transactions",
     evidence: "tests/consumers/_common/broken.py skip-compressed", versions: "*"}
run: ["python3", "$src/tests/consumers/_common/broken.py", "skip-compressed"]
EOF
done
for fam in nocause badcause bycause; do
  set +e
  out=$("$bin" run --consumers-dir "$work/cons" --consumer $fam --scenario "$scenario" --expect manifest --quiet \
        --report-dir "$work/rc-$fam" 2>&1)
  rc=$?
  set -e
  [ $rc -eq 2 ] || fail "$fam: a manifest expectation without a known cause must not load (exit $rc): $out"
  echo "$out" | grep -q "$fam/manifest.yaml.*cause" || fail "$fam: the error should name the manifest and the cause: $out"
done
echo "$out" | grep -q "silent-skip" || fail "bycause: an expect_by_scenario entry needs its cause too: $out"
"$bin" run --consumers-dir "$work/cons" --consumer unexpl --scenario "$scenario" --expect manifest --quiet \
  --report-dir "$work/rc-unexpl" >/dev/null || fail "unexplained is a reserved cause needing no known_issues entry"

# VERDICT|VERDICT: a race inside the consumer decides (the cause names it); either verdict meets, the
# other is reported beside it; without a cause, or with one verdict twice, the manifest does not load
for c in "racy:parse-failure|silent-skip planted-fault" "racyrev:silent-skip|parse-failure planted-fault" \
         "racymiss:parse-failure|mismatch planted-fault" "racynocause:parse-failure|silent-skip" \
         "racysame:silent-skip|silent-skip planted-fault"; do
  fam=${c%%:*}
  cons_manifest "$fam" <<EOF
family: $fam
source: files
versions:
  - version: "1"
    expect: {uncompressed: pass, compressed: ${c#*:}}
known_issues:
  - {id: planted-fault, kind: consumer-defect, compression: true, summary: "drops compressed transactions",
     evidence: "tests/consumers/_common/broken.py skip-compressed", versions: "*"}
run: ["python3", "$src/tests/consumers/_common/broken.py", "skip-compressed"]
EOF
done
"$bin" run --consumers-dir "$work/cons" --consumer racy --consumer racyrev --scenario "$scenario" --mode compressed \
  --expect manifest --report-dir "$work/rc-racy" >"$work/rc-racy.txt" 2>&1 || fail "racy: either verdict meets: $(cat "$work/rc-racy.txt")"
grep -q "ok silent-skip|parse-failure" "$work/rc-racy.txt" || fail "racy: the table shows both: $(cat "$work/rc-racy.txt")"
python3 - "$work/rc-racy/report.json" <<'EOF2' || fail "racy: report.json expected/expected_also"
import json, sys
cells = {c["consumer"]: c for c in json.load(open(sys.argv[1]))["cells"]}
for fam in ("racy@1", "racyrev@1"):
    c = cells[fam]
    assert c["verdict"] == "silent-skip" and c["meets"], c
    assert c["expected"] == "silent-skip" and c["expected_also"] == "parse-failure", c
EOF2
set +e
"$bin" run --consumers-dir "$work/cons" --consumer racymiss --scenario "$scenario" --mode compressed \
  --expect manifest --report-dir "$work/rc-racymiss" >"$work/rc-racymiss.txt" 2>&1
rc=$?
set -e
[ $rc -eq 1 ] && grep -q "NOT parse-failure|mismatch" "$work/rc-racymiss.txt" \
  || fail "racymiss: neither verdict: not as expected, exit 1 (got $rc): $(cat "$work/rc-racymiss.txt")"
for fam in racynocause racysame; do
  set +e
  out=$("$bin" run --consumers-dir "$work/cons" --consumer $fam --scenario "$scenario" --expect manifest --quiet \
        --report-dir "$work/rc-$fam" 2>&1)
  rc=$?
  set -e
  [ $rc -eq 2 ] || fail "$fam: must not load (exit $rc): $out"
done
echo "$out" | grep -q "VERDICT|VERDICT" || fail "racysame: the error says the form: $out"

# a setup that fails is a harness-error, never the consumer's verdict
cons_manifest "bad-setup" <<'EOF'
family: bad-setup
source: files
versions: ["1"]
setup: ["sh", "-c", "echo fetching from the registry; echo 'E: package not found' >&2; exit 3"]
run: ["true"]
EOF
set +e
"$bin" run --consumers-dir "$work/cons" --consumer bad-setup --scenario "$scenario" --mode compressed --quiet \
  --report-dir "$work/r7" >"$work/t7.txt"
rc=$?
set -e
[ $rc -eq 1 ] || fail "bad setup: exit $rc"
grep -q "harness-error" "$work/t7.txt" || fail "bad setup: no harness-error: $(cat "$work/t7.txt")"
python3 -c 'import json,sys; c=json.load(open(sys.argv[1]))["cells"][0]; assert c["verdict"]=="harness-error" and "exit status 3" in c["summary"] and "E: package not found" in c["summary"], c["summary"]' \
  "$work/r7/report.json" || fail "bad setup summary"
[ -f "$CDCH_CACHE/bad-setup/1.setup.log" ] || fail "setup log"
[ ! -f "$CDCH_CACHE/bad-setup/1/.ok" ] || fail "failed setup must not be stamped"

# an adapter whose shell cannot execute the consumer's command (126: not executable, 127: not found)
# before a row or an error line: the consumer never ran, a harness-error, never its verdict; with an
# error line printed first, the status is the consumer's own exit (parse-failure)
printf 'not a program\n' >"$work/not-exec"
chmod -x "$work/not-exec"
printf '%s\n' '{"kind":"ready"}' >"$work/ready.jsonl"
printf '%s\n' '{"kind":"ready"}' '{"kind":"error","message":"cannot parse event type 40"}' >"$work/said.jsonl"
for c in "not-found:cat $work/ready.jsonl; exec $work/no-such-consumer" \
         "not-exec:cat $work/ready.jsonl; exec $work/not-exec" \
         "said-then-127:cat $work/said.jsonl; exit 127"; do
  fam=${c%%:*}
  cons_manifest "$fam" <<EOF
family: $fam
source: files
versions: ["1"]
run: ["sh", "-c", "${c#*:}"]
EOF
done
set +e
"$bin" run --consumers-dir "$work/cons" --consumer not-found --consumer not-exec --consumer said-then-127 \
  --scenario "$scenario" --mode compressed --quiet --report-dir "$work/r8" >"$work/t8.txt" 2>&1
rc=$?
set -e
cat "$work/t8.txt"
[ $rc -eq 1 ] || fail "adapters that could not run their command: exit $rc"
python3 - "$work/r8/report.json" <<'PY' || fail "a command the adapter could not run is a harness-error"
import json, sys
cells = {c["consumer"]: c for c in json.load(open(sys.argv[1]))["cells"]}
for fam, status, how in (("not-found@1", 127, "was not found"), ("not-exec@1", 126, "could not be executed")):
    c = cells[fam]
    assert c["verdict"] == "harness-error", (fam, c["verdict"], c["summary"])
    assert c["summary"].startswith("the adapter exited with status %d before printing a row or an error: "
                                   "the command it runs %s (stderr: " % (status, how)), c["summary"]
    assert "check the consumer's installation" in c["summary"], c["summary"]
assert "not-exec" in cells["not-exec@1"]["summary"] and "no-such-consumer" in cells["not-found@1"]["summary"]
c = cells["said-then-127@1"]
assert c["verdict"] == "parse-failure", (c["verdict"], c["summary"])
PY

# variant_setup: shared -- every "V+variant" runs on the one install of "V"; without it (own, the
# default) every version string is its own install
for fam in shared-var own-var; do
  cons_manifest "$fam" <<EOF
family: $fam
source: files
versions: ["2", "2+x", "2+y"]
setup: ["sh", "-c", "echo \"\$1|\$CDCH_VERSION\" >> $work/$fam.setups", "setup"]
run: ["true"]
EOF
done
echo "variant_setup: shared" >>"$work/cons/shared-var/manifest.yaml"
"$bin" run --consumers-dir "$work/cons" --consumer shared-var --consumer own-var --scenario "$scenario" \
  --mode compressed --quiet --report-dir "$work/r7b" >/dev/null 2>&1 || true
[ "$(cat "$work/shared-var.setups")" = "2|2" ] \
  || fail "variant_setup shared: one setup, of version 2, got: $(cat "$work/shared-var.setups")"
[ "$(LC_ALL=C sort "$work/own-var.setups" | tr '\n' ' ')" = "2+x|2+x 2+y|2+y 2|2 " ] \
  || fail "variant_setup own (the default): a setup per version, got: $(cat "$work/own-var.setups")"
[ -f "$CDCH_CACHE/shared-var/2/.ok" ] && [ ! -e "$CDCH_CACHE/shared-var/2+x" ] || fail "shared: one install directory"

# setup_batch: true -- the versions a run needs are installed by one run of setup, given every
# "VERSION DIR" pair (a shared variant once); when that run fails, each version is installed alone,
# so the one bad version fails with its own error and the others are installed
for fam in batch-ok batch-bad; do
  mkdir -p "$work/cons/$fam"
  cat >"$work/cons/$fam/setup.sh" <<EOF
#!/bin/sh
v=""
while [ \$# -gt 0 ]; do
  [ -d "\$2" ] && [ -z "\$(ls -A "\$2")" ] || { echo "setup.sh: \$2 is not an empty directory" >&2; exit 5; }
  v="\$v \$1"; echo "built \$1" > "\$2/built"; shift 2
done
echo "\${v# }|\${CDCH_VERSION:-}" >> $work/$fam.setups
case " \$v " in *" bad "*) echo "no such version: bad" >&2; exit 4;; esac
echo "installed:\$v"
EOF
  cat >"$work/cons/$fam/manifest.yaml" <<EOF
family: $fam
source: files
setup: ["sh", "setup.sh"]
setup_batch: true
variant_setup: shared
run: ["true"]
EOF
done
echo 'versions: ["1", "2", "2+x", "3"]' >>"$work/cons/batch-ok/manifest.yaml"
echo 'versions: ["1", "bad", "2"]' >>"$work/cons/batch-bad/manifest.yaml"
"$bin" run --consumers-dir "$work/cons" --consumer batch-ok --consumer batch-bad --scenario "$scenario" \
  --mode compressed --report-dir "$work/r7c" >/dev/null 2>"$work/r7c.err" || true
[ "$(cat "$work/batch-ok.setups")" = "1 2 3|" ] \
  || fail "setup_batch: one setup run for 1 2 3 (2+x on 2's install), got: $(cat "$work/batch-ok.setups")"
for v in 1 2 3; do
  [ -f "$CDCH_CACHE/batch-ok/$v/.ok" ] && [ "$(cat "$CDCH_CACHE/batch-ok/$v/built")" = "built $v" ] \
    || fail "setup_batch: $v not installed in its own directory"
done
[ ! -e "$CDCH_CACHE/batch-ok/2+x" ] || fail "setup_batch: a shared variant got a directory"
grep -q "^installed: 1 2 3$" "$CDCH_CACHE/batch-ok/1.setup.log" || fail "setup_batch: the run's log: $(cat "$CDCH_CACHE/batch-ok/1.setup.log")"
head -1 "$CDCH_CACHE/batch-ok/3.setup.log" | grep -q "^# installed by the setup run logged in $CDCH_CACHE/batch-ok/1.setup.log" \
  && grep -q "^installed: 1 2 3$" "$CDCH_CACHE/batch-ok/3.setup.log" || fail "setup_batch: 3's log is not the run's"
grep -q "^setup batch-ok@1, 2, 3: 3 versions in one run" "$work/r7c.err" || fail "setup_batch progress line: $(cat "$work/r7c.err")"
[ "$(tr '\n' ' ' <"$work/batch-bad.setups")" = "1 bad 2| 1|1 bad|bad 2|2 " ] \
  || fail "setup_batch failure: the run, then each alone, got: $(cat "$work/batch-bad.setups")"
[ -f "$CDCH_CACHE/batch-bad/1/.ok" ] && [ -f "$CDCH_CACHE/batch-bad/2/.ok" ] && [ ! -f "$CDCH_CACHE/batch-bad/bad/.ok" ] \
  || fail "setup_batch failure: 1 and 2 installed alone, bad not"
python3 - "$work/r7c/report.json" <<'EOF2'
import json, sys
cells = {c["consumer"]: c for c in json.load(open(sys.argv[1]))["cells"]}
bad = cells["batch-bad@bad"]
assert bad["verdict"] == "harness-error", bad
assert "no such version: bad" in json.dumps(bad), bad
for k in ("batch-bad@1", "batch-bad@2", "batch-ok@1", "batch-ok@2+x", "batch-ok@3"):
    assert cells[k]["verdict"] != "harness-error", (k, cells[k]["summary"])
EOF2
# installed: a second run runs no setup
"$bin" run --consumers-dir "$work/cons" --consumer batch-ok --scenario "$scenario" \
  --mode compressed --quiet --report-dir "$work/r7d" >/dev/null 2>&1 || true
[ "$(wc -l <"$work/batch-ok.setups")" -eq 1 ] || fail "setup_batch: installed versions set up again"
# the adapter changed: one line names every stale version, and one setup run installs them again
echo "# changed" >>"$work/cons/batch-ok/setup.sh"
"$bin" run --consumers-dir "$work/cons" --consumer batch-ok --scenario "$scenario" \
  --mode compressed --report-dir "$work/r7e" >/dev/null 2>"$work/r7e.err" || true
[ "$(grep -c "changed since" "$work/r7e.err")" -eq 1 ] \
  && grep -q "^setup batch-ok@1, 2, 3: the adapter in $work/cons/batch-ok changed since they were installed; installing again$" "$work/r7e.err" \
  || fail "setup_batch, a changed adapter: $(cat "$work/r7e.err")"
[ "$(tail -1 "$work/batch-ok.setups")" = "1 2 3|" ] && [ "$(wc -l <"$work/batch-ok.setups")" -eq 2 ] \
  || fail "setup_batch, a changed adapter: one run again, got: $(cat "$work/batch-ok.setups")"

# a family with `shares`: the same tree in another place (a fresh clone elsewhere) is the same adapter
mkdir -p "$work/place1/cons/shared-fam" "$work/place1/cons/shared-common"
echo "common" >"$work/place1/cons/shared-common/lib.txt"
cat >"$work/place1/cons/shared-fam/setup.sh" <<EOF
echo "\$1" >>$work/shared-fam.setups
EOF
cat >"$work/place1/cons/shared-fam/manifest.yaml" <<'EOF'
family: shared-fam
source: files
setup: ["sh", "setup.sh"]
shares: ["../shared-common"]
run: ["true"]
versions: ["1"]
EOF
cp -r "$work/place1" "$work/place2"
for p in place1 place2; do
  "$bin" run --consumers-dir "$work/$p/cons" --consumer shared-fam --scenario "$scenario" \
    --mode compressed --quiet --report-dir "$work/r7f" >/dev/null 2>&1 || true
done
[ "$(wc -l <"$work/shared-fam.setups")" -eq 1 ] \
  || fail "shares: the same adapter in another folder was set up again ($(wc -l <"$work/shared-fam.setups") setups)"
echo "# changed" >>"$work/place2/cons/shared-common/lib.txt"
"$bin" run --consumers-dir "$work/place2/cons" --consumer shared-fam --scenario "$scenario" \
  --mode compressed --quiet --report-dir "$work/r7f" >/dev/null 2>&1 || true
[ "$(wc -l <"$work/shared-fam.setups")" -eq 2 ] || fail "shares: a changed shared folder did not set up again"

echo "== session mode: one adapter process serves many cells; expect_by_scenario precedence"
run --consumer session-skip --consumer session-die --scenario "$scenario" --scenario "$src/scenarios/crud-basic.yaml" \
    --expect manifest -j 1 --timeout 10 --report-dir "$work/r8" >"$work/t8.txt" \
  || fail "session run: $(cat "$work/t8.txt")"
python3 - "$work/r8/report.json" <<'EOF2'
import json, re, sys
cells = json.load(open(sys.argv[1]))["cells"]
want = {("session-skip@1", "run-small", "uncompressed"): "pass", ("session-skip@1", "run-small", "compressed"): "silent-skip",
        ("session-skip@1", "crud-basic", "uncompressed"): "pass", ("session-skip@1", "crud-basic", "compressed"): "silent-skip",
        ("session-die@1", "run-small", "uncompressed"): "pass", ("session-die@1", "run-small", "compressed"): "parse-failure",
        ("session-die@1", "crud-basic", "uncompressed"): "pass", ("session-die@1", "crud-basic", "compressed"): "parse-failure"}
got = {(c["consumer"], c["scenario"], c["mode"]): c for c in cells}
assert set(got) == set(want), sorted(got)
pids = {}
for k, v in want.items():
    c = got[k]
    assert c["verdict"] == v and c["meets"], (k, c["verdict"], c["expected"], c["summary"])
    # each cell's stderr holds only its own cell's lines
    lines = re.findall(r"session pid=(\d+) cell=(\d+)", c["stderr_tail"])
    assert len(lines) == 1, (k, c["stderr_tail"])
    pids.setdefault(k[0], set()).add(lines[0][0])
assert all(len(p) == 1 for p in pids.values()), pids  # one launch per consumer for 4 cells
assert got[("session-die@1", "run-small", "compressed")]["expect_source"] == "manifest"
print("session cells ok:", {k: sorted(v) for k, v in pids.items()})
EOF2

echo "== session pool: workers share a consumer's sessions, at most --sessions of them at once"
# 8 cells of one session consumer at -j 4: with --sessions 1 every cell runs in one process, with
# --sessions 2 in at most two (each worker launching its own would make four)
for n in 1 2; do
  run --consumer session-skip --scenario "$scenario" --scenario "$src/scenarios/crud-basic.yaml" \
      --scenario "$src/scenarios/ddl-between-compressed.yaml" --scenario "$src/scenarios/empty-transactions.yaml" \
      --expect manifest -j 4 --sessions "$n" --timeout 10 --report-dir "$work/r8s$n" >"$work/t8s$n.txt" \
    || fail "session pool run (--sessions $n): $(cat "$work/t8s$n.txt")"
  python3 - "$work/r8s$n/report.json" "$n" <<'EOF2'
import json, re, sys
cells = json.load(open(sys.argv[1]))["cells"]
assert len(cells) == 8, len(cells)
pids = set()
for c in cells:
    assert c["meets"], (c["scenario"], c["mode"], c["verdict"], c["summary"])
    lines = re.findall(r"session pid=(\d+) cell=(\d+)", c["stderr_tail"])
    assert len(lines) == 1, (c["scenario"], c["mode"], c["stderr_tail"])  # its own cell's lines only
    pids.add(lines[0][0])
assert 1 <= len(pids) <= int(sys.argv[2]), (sys.argv[2], sorted(pids))
print("--sessions", sys.argv[2], ": 8 cells in", len(pids), "process(es)")
EOF2
done

echo "== missing transactions that hold PARTIAL_UPDATE_ROWS events are named so (type 39, in payloads too)"
run --consumer broken-skip --scenario "$src/scenarios/partial-json-full.yaml" --mode compressed --expect silent-skip \
    --timeout 10 --report-dir "$work/r9" >"$work/t9.txt" || fail "partial-json run: $(cat "$work/t9.txt")"
python3 - "$work/r9/report.json" <<'EOF2'
import json, sys
c = json.load(open(sys.argv[1]))["cells"][0]
assert c["verdict"] == "silent-skip", c["summary"]
assert "(7 of 7 compressed, * = compressed) [5 of them hold PARTIAL_UPDATE_ROWS events (type 39)]" in c["summary"], c["summary"]
EOF2

echo "== observed.jsonl: a passing cell's large one goes, every other cell keeps its own (--keep-observed: all)"
obs_scn=$src/tests/data/run-observed.yaml
set +e
run --consumer cdcharness-ref --consumer broken-duplicate --scenario "$obs_scn" --mode compressed -j 2 \
  --report-dir "$work/ro1" >"$work/tro1.txt"
rc=$?
run --consumer cdcharness-ref --scenario "$obs_scn" --mode compressed --keep-observed --report-dir "$work/ro2" \
  >"$work/tro2.txt"
rc2=$?
set -e
[ $rc -eq 1 ] && [ $rc2 -eq 0 ] || fail "observed runs: exit $rc (want 1: the duplicate cell) / $rc2: $(cat "$work/tro1.txt" "$work/tro2.txt")"
python3 - "$work" <<'EOF2' || fail "observed.jsonl kept or dropped as the rule says"
import json, os, sys
w = sys.argv[1]
def cells(d):
    return {c["consumer"]: c for c in json.load(open(os.path.join(w, d, "report.json")))["cells"]}
def present(d, c):
    return os.path.exists(os.path.join(w, d, c["cell_dir"], "observed.jsonl"))
r1, r2 = cells("ro1"), cells("ro2")
ref, dup, kept = r1["cdcharness-ref@builtin"], r1["broken-duplicate@1"], r2["cdcharness-ref@builtin"]
assert ref["verdict"] == "pass" and dup["verdict"] == "duplicate", (ref["verdict"], dup["verdict"])
assert ref["observed_bytes"] > 1 << 20, ref["observed_bytes"]
assert ref["observed_kept"] is False and not present("ro1", ref), "a passing cell's 1.6 MB observed.jsonl stayed"
assert os.path.exists(os.path.join(w, "ro1", ref["cell_dir"], "stderr.log"))
assert dup["observed_kept"] is True and present("ro1", dup), "the duplicate cell's observed.jsonl went"
assert dup["observed_bytes"] == os.path.getsize(os.path.join(w, "ro1", dup["cell_dir"], "observed.jsonl"))
assert kept["observed_kept"] is True and present("ro2", kept), "--keep-observed did not keep it"
assert kept["observed_bytes"] == ref["observed_bytes"], (kept["observed_bytes"], ref["observed_bytes"])
html = open(os.path.join(w, "ro1", "report.html")).read()
assert '"observed_kept":false' in html  # the report's data, which the page reads to say so
EOF2
# a small passing cell keeps its file (run-small above)
[ -s "$work/r1/cells/cdcharness-ref@builtin/run-small/compressed/observed.jsonl" ] || fail "a small passing cell's observed.jsonl went"

echo "== all run verdict tests passed"
