# java_user.sh — sourced by the test.sh of mysql-binlog-connector-java, canal and maxwell: the
# consumers a user runs (issue 25) through the harness, for one Java family:
#   user_run NAME ARGS...            `cdcharness run ARGS... --quiet --report-dir $user_work/NAME`
#                                    (its table printed; the run's own status is not the test's)
#   user_check NAME DESCRIPTION PY   PY, a Python expression over `cells` (report.json's cells of
#                                    run NAME), `cell(consumer, scenario, mode)` (consumer as the
#                                    table names it, without its "(config F)"), effective(c),
#                                    kept(c) (its config line) and text(c) (summary and detail),
#                                    must be true: one "ok"/"FAIL" line, counted
#   user_setup_rc VERSION RC TEXT    the family's setup.sh alone (CDCH_UNPINNED=1) on VERSION exits
#                                    RC and prints a line holding TEXT on stderr
#   user_summary                     "N passed, N failed" of the checks; returns 1 on a failure
# The caller sets user_bin (cdcharness), user_family and user_dir (the family's folder).
user_work=$(mktemp -d)
user_ok=0
user_bad=0

user_run() {
    local name=$1
    shift
    echo "== $name: cdcharness run $*"
    "$user_bin" run "$@" --quiet --report-dir "$user_work/$name" >"$user_work/$name.txt" 2>"$user_work/$name.err"
    cat "$user_work/$name.txt"
    [ -s "$user_work/$name.err" ] && tail -n 5 "$user_work/$name.err"
    return 0
}

user_check() {
    local name=$1 what=$2 expr=$3
    if python3 - "$user_work/$name/report.json" "$expr" <<'PY'; then
import json, sys
try:
    cells = json.load(open(sys.argv[1]))["cells"]
except Exception as e:
    print("  (no report: %s)" % e)
    sys.exit(1)
def cell(consumer, scenario, mode):
    for c in cells:
        if (c["consumer"] == consumer or c["consumer"].startswith(consumer + " (")) and \
                c["scenario"] == scenario and c["mode"] == mode:
            return c
    raise SystemExit("  (no cell %s %s %s)" % (consumer, scenario, mode))
def effective(c):
    return (c.get("config_effective") or {}).get("effective") or {}
def kept(c):
    return (c.get("config_effective") or {}).get("kept") or {}
def text(c):
    return json.dumps([c.get("summary"), c.get("detail")])
ok = eval("(" + sys.argv[2] + "\n)")
sys.exit(0 if ok else 1)
PY
        echo "ok   $name: $what"
        user_ok=$((user_ok + 1))
    else
        echo "FAIL $name: $what"
        user_bad=$((user_bad + 1))
    fi
}

user_setup_rc() {
    local version=$1 want=$2 text=$3 rc=0
    CDCH_UNPINNED=1 CDCH_VERSION=$version bash "$user_dir/setup.sh" "$version" "$user_work/setup-$version" \
        >"$user_work/setup.out" 2>"$user_work/setup.err" || rc=$?
    if [ "$rc" = "$want" ] && grep -qF "$text" "$user_work/setup.err"; then
        echo "ok   setup.sh $version: exit $rc, $(grep -F "$text" "$user_work/setup.err" | head -1)"
        user_ok=$((user_ok + 1))
    else
        echo "FAIL setup.sh $version: exit $rc (want $want with '$text')"
        tail -n 5 "$user_work/setup.err"
        user_bad=$((user_bad + 1))
    fi
}

user_summary() {
    rm -rf "$user_work"
    echo "issue 25 checks: $user_ok passed, $user_bad failed"
    [ "$user_bad" -eq 0 ]
}
