#!/usr/bin/env bash
# A setup left running by a harness killed with SIGKILL (a CI job's time limit, the OOM killer) is killed
# by the next harness, before that one sets the same version up again (setup.h, rundir.h). Each setup
# run has a private TMPDIR inside its harness's run directory; the sweep of a dead harness's run
# directory kills what runs there. Checked with a test family whose setup, while $work/slow exists,
# records its pid and sleeps:
#   * a harness killed mid-setup leaves its setup running (the premise);
#   * the next run kills it, installs the version and judges its cells (pass);
#   * a harness already waiting for the version's lock when the first is killed kills the orphaned
#     setup before it empties the version's directory and sets it up again.
# Without the private TMPDIR the second check fails ("the orphaned setup ... runs on"); without the
# sweep before an install, the third.
#
#   tests/setup_orphan.sh CDCHARNESS SOURCE_DIR
set -euo pipefail
bin=$1
src=$(cd "$2" && pwd)
work=$(mktemp -d)
mkdir "$work/tmp" "$work/consumers"
export TMPDIR=$work/tmp # the runs' directories are under $work
export CDCH_CACHE=$work/cache
cleanup() {
    local p
    for p in $(cat "$work"/pids.* 2>/dev/null) ${a:-} ${b:-}; do kill -9 "$p" 2>/dev/null || true; done
    rm -rf "$work"
}
trap cleanup EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

fam=$work/consumers/slow-setup
mkdir "$fam"
cat >"$fam/manifest.yaml" <<YAML
# test family (tests/setup_orphan.sh): its setup sleeps while $work/slow exists
family: slow-setup
language: python
source: files
versions:
  - version: "1"
    expect: {uncompressed: pass, compressed: pass}
setup: ["bash", "setup.sh"]
run: ["python3", "$src/tests/consumers/_common/broken.py", "correct"]
startup_timeout: 20
YAML
# The setup records its pid (one file per run: pids.<pid>) and, while $work/slow exists, writes into its
# install directory every 0.1 s (an orphan doing so would spoil the next install) until killed.
cat >"$fam/setup.sh" <<SH
#!/usr/bin/env bash
echo \$\$ >"$work/pids.\$\$"
if [ -e "$work/slow" ]; then
    while :; do date +%s.%N >>"\$2/progress"; sleep 0.1; done
fi
echo ok >"\$2/installed"
SH
common=(--consumers-dir "$work/consumers" --consumer slow-setup --scenario "$src/tests/data/run-small.yaml"
        --mode uncompressed --quiet --timeout 20)
alive() { # PID runs (a zombie, killed and not reaped yet by its new parent, does not)
    local st
    st=$(sed 's/.*) //' "/proc/$1/stat" 2>/dev/null | cut -d' ' -f1) || return 1
    [ -n "$st" ] && [ "$st" != Z ] && [ "$st" != X ]
}
running() { # the setups recorded so far that still run
    local f p
    for f in "$work"/pids.*; do
        [ -e "$f" ] || continue
        p=$(cat "$f")
        alive "$p" && echo "$p"
    done
    return 0
}
# starts a harness in the background into $work/rN; $! is it
wait_setup() { # wait until a slow setup has written progress
    for _ in $(seq 300); do
        [ -s "$CDCH_CACHE/slow-setup/1/progress" ] && [ -n "$(running)" ] && return 0
        sleep 0.1
    done
    fail "the slow setup did not start in 30 s"
}
judged_pass() { # REPORT_DIR: one cell, pass
    python3 - "$1/report.json" <<'PY'
import json, sys
cells = json.load(open(sys.argv[1]))["cells"]
got = [(c["consumer"], c["mode"], c["verdict"]) for c in cells]
assert got == [("slow-setup@1", "uncompressed", "pass")], got
PY
}

echo "== a harness killed mid-setup; the next run kills its setup, then installs"
touch "$work/slow"
"$bin" run "${common[@]}" --report-dir "$work/r1" >"$work/r1.txt" 2>&1 &
a=$!
wait_setup
orphan=$(running)
kill -9 "$a"
wait "$a" 2>/dev/null || true
a=
sleep 0.5
[ "$(running)" = "$orphan" ] || fail "the killed harness's setup was expected to run on here (pid $orphan)"
rm "$work/slow"
set +e
"$bin" run "${common[@]}" --report-dir "$work/r2" >"$work/r2.txt" 2>&1
rc=$?
set -e
cat "$work/r2.txt"
left=$(running)
[ -z "$left" ] || fail "the orphaned setup (pid $left) runs on after the next run"
[ $rc -eq 0 ] || fail "the next run exited with $rc"
judged_pass "$work/r2"
[ -e "$CDCH_CACHE/slow-setup/1/installed" ] || fail "the next run installed the version"
[ ! -e "$CDCH_CACHE/slow-setup/1/progress" ] || fail "the install directory was set up afresh"

echo "== a harness waiting for the version's lock when the first is killed"
rm -rf "$CDCH_CACHE" "$work"/pids.*
touch "$work/slow"
"$bin" run "${common[@]}" --report-dir "$work/r3" >"$work/r3.txt" 2>&1 &
a=$!
wait_setup
orphan=$(running)
"$bin" run "${common[@]}" --report-dir "$work/r4" >"$work/r4.txt" 2>&1 & # blocks on the version's lock
b=$!
sleep 1
kill -0 "$b" 2>/dev/null || { cat "$work/r4.txt"; fail "the second harness ended while the first held the lock"; }
[ "$(running)" = "$orphan" ] || fail "the second harness ran a setup while the first held the version's lock"
rm "$work/slow"
kill -9 "$a"
wait "$a" 2>/dev/null || true
a=
set +e
wait "$b"
rc=$?
set -e
b=
cat "$work/r4.txt"
alive "$orphan" && fail "the orphaned setup (pid $orphan) runs on beside the second harness's install"
[ $rc -eq 0 ] || fail "the second harness exited with $rc"
judged_pass "$work/r4"
[ ! -e "$CDCH_CACHE/slow-setup/1/progress" ] || fail "the orphan wrote into the new install"
echo "setup_orphan: ok"
