#!/usr/bin/env bash
# One harness at a time in a report directory (harness/run/reportlock.h). A run's cells write and read
# back REPORT_DIR/cells/...; a second harness into the same directory at the same time would truncate
# them. Checked here, with the test adapter broken-hang (it blocks, so a run holds its directory for
# its --timeout):
#   * a second `run`, and a `matrix`, into a directory in use are refused at once (exit 1 / 2), their
#     message naming the directory and the first harness's pid, and the first run's report is whole;
#   * so are `report render`, `report merge --out` and `report digest --out` into it; render works once
#     the run has ended;
#   * the lock is the kernel's and the adapters do not inherit it: after the first harness is killed
#     with SIGKILL, its adapter still running, a new run into the directory is not refused;
#   * a directory no longer in use is used again, and the next run kills the adapter the killed harness
#     left running (rundir.h: the sweep of a dead harness's run directory).
#
#   tests/report_lock.sh CDCHARNESS SOURCE_DIR
set -euo pipefail
bin=$1
src=$(cd "$2" && pwd)
work=$(mktemp -d)
mkdir "$work/tmp"
export TMPDIR=$work/tmp # the runs' directories, and so the adapters' own TMPDIR, are under $work
export CDCH_CACHE=$work/cache
# The adapters of this test's runs: every process whose environment names a TMPDIR under $work.
adapters() {
    grep -lsaF "TMPDIR=$work/tmp/cdch-run-" /proc/[0-9]*/environ 2>/dev/null | cut -d/ -f3 || true
}
cleanup() {
    for p in $(adapters); do kill -9 "$p" 2>/dev/null || true; done
    [ -n "${a:-}" ] && kill -9 "$a" 2>/dev/null || true
    rm -rf "$work"
}
trap cleanup EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
common=(--consumers-dir "$src/tests/consumers" --quiet --scenario "$src/tests/data/run-small.yaml"
        --mode uncompressed --expect manifest --consumer broken-hang --report-dir)
run() { "$bin" run "${common[@]}" "$@"; }
D=$work/reports/latest
lock=$D/.cdcharness.lock
wait_holder() { # PID: the lock file names PID, which has taken the lock
    for _ in $(seq 300); do
        [ "$(cat "$lock" 2>/dev/null)" = "$1" ] && return 0
        kill -0 "$1" 2>/dev/null || fail "harness $1 ended before it locked $D"
        sleep 0.1
    done
    fail "harness $1 did not lock $D in 30 s"
}

echo "== a second run, and a matrix, into a report directory in use: refused, naming the first"
"$bin" run "${common[@]}" "$D" --timeout 6 >"$work/a.txt" 2>&1 & # $! is the harness
a=$!
wait_holder "$a"
set +e
run "$D" --timeout 6 >"$work/b.txt" 2>&1
rc=$?
set -e
cat "$work/b.txt"
[ $rc -eq 1 ] || fail "the second run exited with $rc, not 1"
grep -qF "the report directory $D is in use by another cdcharness (pid $a)" "$work/b.txt" ||
    fail "the refusal names the directory and the first harness's pid"
grep -qF -- "--report-dir" "$work/b.txt" || fail "the refusal says what to do"
cat >"$work/m.yaml" <<YAML
name: lock
consumers_dirs: [$src/tests/consumers]
consumers: [broken-hang]
scenarios: [$src/tests/data/run-small.yaml]
timeout: 6
YAML
set +e
"$bin" matrix "$work/m.yaml" --report-dir "$D" --quiet >"$work/m.txt" 2>&1
rc=$?
set -e
cat "$work/m.txt"
[ $rc -eq 2 ] || fail "a matrix into a directory in use exited with $rc, not 2 (the harness could not run it)"
grep -qF "the report directory $D is in use by another cdcharness (pid $a)" "$work/m.txt" ||
    fail "the matrix's refusal names the directory and the first harness's pid"
# nor do `report` render, merge and digest write into it (they would write pages from a report.json the
# run replaces at its end, or mix their files with its cells)
for sub in "render $D" "merge --out $D $work/none" "digest --out $D $work/none"; do
    set +e
    # shellcheck disable=SC2086 # the words of $sub are its arguments
    "$bin" report $sub >"$work/r.txt" 2>&1
    rc=$?
    set -e
    cat "$work/r.txt"
    [ $rc -eq 1 ] || fail "report $sub into a directory in use exited with $rc, not 1"
    grep -qF "cdcharness report ${sub%% *}: the report directory $D is in use by another cdcharness (pid $a)" \
        "$work/r.txt" || fail "report ${sub%% *}'s refusal names the directory and the first harness's pid"
done
set +e
wait "$a"
rc=$?
set -e
a=
[ $rc -eq 0 ] || { cat "$work/a.txt"; fail "the first run exited with $rc (broken-hang is hang as its manifest says)"; }
python3 - "$D/report.json" <<'PY'
import json, sys
cells = json.load(open(sys.argv[1]))["cells"]
assert [(c["consumer"], c["mode"], c["verdict"]) for c in cells] == [("broken-hang@1", "uncompressed", "hang")], cells
PY
"$bin" report render "$D" || fail "report render of a directory no longer in use"

echo "== a harness killed with SIGKILL, its adapter still running: the directory is free"
"$bin" run "${common[@]}" "$D" --timeout 30 >"$work/k.txt" 2>&1 &
a=$!
wait_holder "$a"
# killed once its adapter has printed its transaction and sleeps in its loop (killed earlier, the adapter
# would die of SIGPIPE at its first line, with no reader left): its wchan is the kernel's nanosleep
asleep() {
    local p
    for p in $(adapters); do grep -qs nanosleep "/proc/$p/wchan" && return 0; done
    return 1
}
for _ in $(seq 300); do asleep && break; sleep 0.1; done
asleep || fail "the killed run's adapter did not reach its sleep loop in 30 s"
kill -9 "$a"
wait "$a" 2>/dev/null || true
a=
[ -n "$(adapters)" ] || fail "the adapter was expected to outlive its harness here"
set +e
run "$D" --timeout 4 >"$work/c.txt" 2>&1
rc=$?
set -e
cat "$work/c.txt"
[ $rc -eq 0 ] || fail "a run into a directory whose harness was killed exited with $rc (an adapter holds the lock?)"
grep -q '"verdict":"hang"' "$D/report.json" || fail "the new run wrote its report"
# the new run's sweep of the dead harness's run directory killed the adapter it had left (rundir.h)
left=$(adapters)
[ -z "$left" ] || { ps -o pid,ppid,args -p "$(echo $left | tr ' ' ,)" >&2 || true; fail "adapters left running: $left"; }
echo "report_lock: ok"
