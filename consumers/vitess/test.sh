#!/usr/bin/env bash
# CTest consumers_vitess.
#
# 1. Every pinned vitess version must give the verdict its manifest records over the scenarios
#    given (default: crud-basic; all-types, every column type through go/mysql's CellValue and the
#    information_schema fields; partial-json-full, where v0.16.0 drops PARTIAL_UPDATE_ROWS and
#    v0.24.4 hands the diff over as SQL; restart-mid-payload, the VReplication controller's retry
#    from the stored GTID position after the cut; gtid-off, refused by COM_BINLOG_DUMP_GTID), both
#    modes (tests/lib/family_test.sh): a session run and a one-shot run of every cell. v0.16.0 and
#    v0.24.4 differ on every compressed cell (parse-failure "VReplication does not handle binlog
#    compression" / pass), so an adapter that ignored TRANSACTION_PAYLOAD, or one that decoded it
#    where vitess does not, fails here.
# 2. setup.sh's own answers: v0.99.0 not served (exit 3); v0.16.4 unsupported (exit 4: its go.mod
#    replaces spyzhov/ajson by a fork the Go module proxy does not serve); a +variant (exit 2).
# Prints "N passed, N failed" by cell/check; exit 0 only when every one met its expectation.
#
#   consumers/vitess/test.sh CDCHARNESS_BIN [SCENARIO...]
set -u
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../../tests/lib/family_test.sh"
default_scenarios=("$repo/scenarios/crud-basic.yaml" "$repo/scenarios/all-types.yaml"
                   "$repo/scenarios/partial-json-full.yaml" "$repo/scenarios/restart-mid-payload.yaml"
                   "$repo/scenarios/gtid-off.yaml")
bin=${1:?usage: test.sh CDCHARNESS_BIN [SCENARIO...]}

# ---- 1. the pinned versions
tmp=$(mktemp -d)
family_test "$here" "$@" >"$tmp/family.txt"
rc=$?
grep -Ev '^[0-9]+ passed, [0-9]+ failed$' "$tmp/family.txt"
read -r ok fail < <(sed -nE 's/^([0-9]+) passed, ([0-9]+) failed$/\1 \2/p' "$tmp/family.txt" | tail -1)
ok=${ok:-0} fail=${fail:-1}

check() { # check LABEL CONDITION-STATUS [DETAIL]
    if [ "$2" = 0 ]; then ok=$((ok + 1)); echo "ok   $1"; else fail=$((fail + 1)); echo "FAIL $1${3:+: $3}"; fi
}

# ---- 2. setup's answers (no harness)
echo "== setup.sh answers"
setup_rc() { # setup_rc VERSION -> exit status; stderr in $tmp/setup.err
    CDCH_UNPINNED=1 CDCH_VERSION=$1 bash "$here/setup.sh" "$1" "$tmp/setup-cache" 2>"$tmp/setup.err" >/dev/null
}
setup_rc v0.99.0; r=$?
[ $r = 3 ] && grep -q '^setup: not served: ".*v0\.99\.0' "$tmp/setup.err"
check "v0.99.0: exit 3, setup: not served (got $r)" $? "$(tail -2 "$tmp/setup.err")"
setup_rc v0.16.4; r=$?
[ $r = 4 ] && grep -q '^setup: unsupported: vitess v0.16.4: .*ajson' "$tmp/setup.err"
check "v0.16.4: exit 4, setup: unsupported (ajson fork not served) (got $r)" $? "$(tail -2 "$tmp/setup.err")"
setup_rc v0.24.4+raw; r=$?
[ $r = 2 ] && grep -q 'no variants' "$tmp/setup.err"
check "v0.24.4+raw: exit 2, no variants (got $r)" $? "$(tail -2 "$tmp/setup.err")"

rm -rf "$tmp"
echo "$ok passed, $fail failed"
[ "$fail" = 0 ] && [ "$rc" = 0 ]
