#!/usr/bin/env bash
# `cdcharness check-adapter DIR`: a conforming adapter passes every check; adapters that break the
# contract one way each (tests/consumers/contract-*) fail exactly that check; a manifest that does
# not load fails first.
#
#   tests/check_adapter.sh CDCHARNESS SOURCE_DIR
set -euo pipefail
bin=$1
src=$(cd "$2" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export CDCH_CACHE=$work/cache
fail() { echo "FAIL: $*" >&2; exit 1; }
small=$src/tests/data/run-small.yaml

echo "== a conforming adapter (session mode, setup, config line)"
"$bin" check-adapter "$src/tests/consumers/versioned-sim" --scenario "$small" >"$work/ok.txt" 2>&1 \
    || { cat "$work/ok.txt"; fail "versioned-sim must pass every check"; }
cat "$work/ok.txt"
grep -q "^0 check(s) failed" "$work/ok.txt" || fail "summary line"
grep -q "^ok    session mode: 2 cell(s) in 1 launch(es)" "$work/ok.txt" || fail "session check"
grep -q "^ok    prints its effective configuration" "$work/ok.txt" || fail "config line check"

echo "== an unpinned version and a configuration are checked the same way"
printf '{"batch": 5}\n' >"$work/cfg.json"
"$bin" check-adapter "$src/tests/consumers/versioned-sim" --scenario "$small" --version 1.5 \
    --consumer-config "$work/cfg.json" >"$work/ok2.txt" 2>&1 || { cat "$work/ok2.txt"; fail "1.5 with a config"; }

check_fails() { # FAMILY PATTERN
    set +e
    "$bin" check-adapter "$src/tests/consumers/$1" --scenario "$small" >"$work/$1.txt" 2>&1
    local rc=$?
    set -e
    cat "$work/$1.txt"
    [ $rc -eq 1 ] || fail "$1: exit $rc, want 1"
    grep -q "$2" "$work/$1.txt" || fail "$1: no line matching '$2'"
}
echo "== the watermark row filtered out"
check_fails contract-drop-watermark "^FAIL  run-small uncompressed: the watermark row (cdch_watermark, the stream's last transaction) never arrived"
echo "== log lines on stdout"
check_fails contract-stdout-logs "^FAIL  run-small compressed: 3 stdout line(s) are neither change events nor control lines (item 2: logs go to stderr); first: line 2: .*INFO BinlogReader"
echo "== SIGTERM ignored: killed after its grace (5 s of its own time; more under load, never less)"
check_fails hostile-ignore-term "^FAIL  run-small .*: the adapter did not stop within its grace and was killed after \([5-9]\|[1-9][0-9][0-9]*\)\.[0-9] s of its own time"
echo "== a flood on stdout"
check_fails hostile-flood-stdout "stdout flood"

echo "== a manifest that does not load"
mkdir -p "$work/fams/badrange"
cat >"$work/fams/badrange/manifest.yaml" <<YAML
family: badrange
run: ["true"]
known_issues:
  - {id: x, kind: consumer-defect, compression: true, summary: s, evidence: e, versions: "2.0 and newer"}
versions:
  - version: "1"
    expect: {compressed: silent-skip x}
YAML
set +e
"$bin" check-adapter "$work/fams/badrange" >"$work/bad.txt" 2>&1
rc=$?
set -e
cat "$work/bad.txt"
[ $rc -eq 1 ] && grep -q "^FAIL  manifest: .*bad item '2.0 and newer'" "$work/bad.txt" || fail "bad range"
set +e
"$bin" check-adapter "$work/nope" >/dev/null 2>&1
rc=$?
set -e
[ $rc -eq 2 ] || fail "not a folder: exit $rc, want 2"
echo "== the Python and Node templates (consumers/templates/) are working adapters"
for lang in python node; do
    "$bin" check-adapter "$src/consumers/templates/$lang" --scenario "$src/scenarios/crud-basic.yaml" \
        >"$work/tpl-$lang.txt" 2>&1 || { cat "$work/tpl-$lang.txt"; fail "template $lang"; }
    grep -q "^ok    crud-basic uncompressed: pass" "$work/tpl-$lang.txt" || { cat "$work/tpl-$lang.txt"; fail "template $lang"; }
done
echo "check_adapter: all checks passed"
