#!/usr/bin/env bash
# `cdcharness run` start modes (runner.h cdch_start_mode, scenarios/README.md "start"): where each
# cell's consumer is told to start, from the adapter's own environment, for --start attach|empty|auto,
# a manifest's `start: attach` (family) and `start: empty` (version), a scenario's `start: attach`,
# a scenario's skip_txns (which wins), and a stream without GTIDs. The test consumer is a files
# adapter that prints CDCH_START_FILE/POS and CDCH_GTID_SET to stderr and then the reference decode of
# the files, so every cell must also pass (attaching drops no expected row: the prefix has none).
#
#   tests/run_attach.sh CDCHARNESS SOURCE_DIR
set -euo pipefail
bin=$1
src=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export CDCH_CACHE=$work/cache
fail() { echo "FAIL: $*" >&2; exit 1; }
uuid=3e11fa47-71ca-11e1-9e33-c80aa9429562

mkdir -p "$work/cons/envdump"
cat >"$work/cons/envdump/adapter.sh" <<'SH'
#!/usr/bin/env bash
echo "start=$CDCH_START_FILE:$CDCH_START_POS gtid=${CDCH_GTID_SET-unset}" >&2
exec "$CDCH_BIN" decode --canonical $CDCH_BINLOG_FILES
SH
manifest() { # $1: family-level extra line, $2: version entry
    cat >"$work/cons/envdump/manifest.yaml" <<YAML
family: envdump
language: shell
source: files
$1
versions: [$2]
run: ["bash", "adapter.sh"]
YAML
}

# run REPORT_NAME SCENARIO [run options]: every cell must pass
run() {
    local rep=$work/$1 sc=$2
    shift 2
    "$bin" run --consumers-dir "$work/cons" --consumer envdump --scenario "$sc" --report-dir "$rep" --quiet "$@" \
        >"$rep.txt" 2>&1 || { cat "$rep.txt"; fail "$rep: not every cell passed"; }
}
# want REPORT_NAME SCENARIO MODE "start=FILE:POS gtid=SET"
want() {
    local got
    got=$(head -n 1 "$work/$1/cells/envdump@1/$2/$3/stderr.log")
    [ "$got" = "$4" ] || fail "$1 $2 $3: the adapter was given '$got', not '$4'"
    echo "ok: $1 $2 $3: $got"
}

crud=$src/scenarios/crud-basic.yaml
# crud-basic's prefix: CREATE DATABASE shop, CREATE TABLE customers, orders, cdch_watermark (4 transactions)
attached="start=binlog.000001:1684 gtid=$uuid:1-4"
empty="start=binlog.000001:4 gtid=unset"

manifest "" '"1"'
run auto "$crud"
want auto crud-basic uncompressed "$empty"
run attach "$crud" --start attach
want attach crud-basic uncompressed "$attached"
want attach crud-basic compressed "$attached"
# report.json says which cells attached
python3 - "$work/auto/report.json" "$work/attach/report.json" <<'PY' || fail "report.json: attach flags wrong"
import json, sys
for path, want in ((sys.argv[1], False), (sys.argv[2], True)):
    cells = json.load(open(path))["cells"]
    assert cells and all(c["attach"] is want for c in cells), (path, [c.get("attach") for c in cells])
PY
echo "ok: report.json attach flags"

manifest "start: attach" '"1"'
run fam "$crud"
want fam crud-basic compressed "$attached"
run fam-empty "$crud" --start empty
want fam-empty crud-basic compressed "$empty"

manifest "start: attach" '{version: "1", start: empty}'
run ver "$crud"
want ver crud-basic compressed "$empty"

manifest "" '"1"'
sed 's/^binlog:/start: attach\nbinlog:/' "$crud" >"$work/crud-attach.yaml"
grep -q '^start: attach' "$work/crud-attach.yaml" || fail "could not write the start: attach copy"
run scen "$work/crud-attach.yaml"
want scen crud-attach compressed "$attached"

# a scenario's own skip_txns wins over --start attach: after its 4th data transaction (GNO 4 + 4 DDL)
# (this adapter decodes the files from their start, so it replays the skipped rows: only its
# environment is checked here)
"$bin" run --consumers-dir "$work/cons" --consumer envdump --scenario "$src/scenarios/start-by-gtid-set.yaml" \
    --report-dir "$work/skip" --quiet --start attach >/dev/null 2>&1 || true
got=$(head -n 1 "$work/skip/cells/envdump@1/start-by-gtid-set/compressed/stderr.log")
case $got in *"gtid=$uuid:1-8") echo "ok: skip_txns wins: $got" ;; *) fail "start-by-gtid-set --start attach: '$got'" ;; esac

# no GTIDs (gtid_mode off): by position only
run nogtid "$src/scenarios/gtid-off.yaml" --start attach
want nogtid gtid-off compressed "start=binlog.000001:1109 gtid=unset"

# usage
if "$bin" run --consumers-dir "$work/cons" --consumer envdump --scenario "$crud" --start later >"$work/bad.txt" 2>&1; then
    fail "--start later was accepted"
fi
grep -q -- "--start wants auto, attach or empty, not 'later'" "$work/bad.txt" || { cat "$work/bad.txt"; fail "--start later: message"; }
# (the help read whole first: grep -q stops reading at its match, and under pipefail the writer's SIGPIPE
# would fail the pipe)
"$bin" run --help >"$work/help-run.txt"
"$bin" matrix --help >"$work/help-matrix.txt"
grep -q -- "--start M" "$work/help-run.txt" || fail "run --help does not describe --start"
grep -q -- "--start M" "$work/help-matrix.txt" || fail "matrix --help does not describe --start"
echo "run_attach: all checks passed"
