#!/usr/bin/env bash
# The worked deployment example (README "Check your deployment") end to end:
#   1. the "primary": `cdcharness serve scenarios/bulk-json-staging.yaml` (JSON documents rewritten in
#      batches), recorded with `cdcharness record` into ci/deployment-example/cap;
#   2. "our go-mysql checkout": go-mysql v1.16.0 from the Go module cache (`go mod download`), copied
#      to ci/deployment-example/go-mysql (never committed: .gitignore);
#   3. python-mysql-replication 1.0.17 for the in-house feed: the venv its adapter's setup installs,
#      first on PATH so the file's `python3 deployment-example/orders_feed.py` finds the library;
#   4. cdcharness matrix ci/deployment-example.yaml --pre-flip --report-dir DIR
#      (Debezium 3.4.1.Final with ci/deployment-example/debezium.properties, the go-mysql checkout,
#      the in-house feed; the capture served both ways; estimate levels 1-7 over 10mbit/20ms).
#
#   scripts/deployment-example.sh [CDCHARNESS] [REPORT_DIR]
#     CDCHARNESS  the binary (default: build/cdcharness, else cdcharness on PATH)
#     REPORT_DIR  default reports/deployment
#
# Exit status: the matrix's (0 every consumer SAFE, 1 one NOT SAFE: the example's in-house feed is,
# 2 a harness or setup error). Debezium and python-mysql-replication install into $CDCH_CACHE
# (default ~/.cache/cdcharness) from Maven Central and PyPI on the first run (minutes).
set -euo pipefail
src=$(cd "$(dirname "$0")/.." && pwd)
bin=${1:-}
if [ -z "$bin" ]; then
    if [ -x "$src/build/cdcharness" ]; then bin=$src/build/cdcharness; else bin=$(command -v cdcharness || true); fi
fi
[ -n "$bin" ] && [ -x "$bin" ] || { echo "deployment-example.sh: no cdcharness binary: give its path (cmake --build build)" >&2; exit 2; }
bin=$(cd "$(dirname "$bin")" && pwd)/$(basename "$bin")
report=${2:-$src/reports/deployment}
ex=$src/ci/deployment-example
work=$(mktemp -d "${TMPDIR:-/tmp}/cdch-deployment.XXXXXX")
serve_pid=
cleanup() { [ -n "$serve_pid" ] && kill "$serve_pid" 2>/dev/null; rm -rf "$work"; }
trap cleanup EXIT

echo "== 1. record the capture from the fake primary" >&2
"$bin" serve "$src/scenarios/bulk-json-staging.yaml" --mode uncompressed --port 0 >"$work/serve.log" 2>&1 &
serve_pid=$!
port=
for _ in $(seq 100); do
    port=$(sed -n 's/^listening on .*:\([0-9][0-9]*\)$/\1/p' "$work/serve.log" 2>/dev/null)
    [ -n "$port" ] && break
    sleep 0.1
done
[ -n "$port" ] || { echo "deployment-example.sh: cdcharness serve did not start:" >&2; cat "$work/serve.log" >&2; exit 1; }
rm -rf "$ex/cap"
CDCH_PASSWORD=cdch "$bin" record --port "$port" --user cdch --start binlog.000001:4 --until-end --out "$ex/cap"
kill "$serve_pid"
wait "$serve_pid" 2>/dev/null || true
serve_pid=

echo "== 2. a local go-mysql checkout (v1.16.0 from the Go module cache)" >&2
if [ ! -d "$ex/go-mysql/.git" ]; then
    gdir=$(cd "$work" && go mod download -json github.com/go-mysql-org/go-mysql@v1.16.0 |
        python3 -c 'import json, sys; print(json.load(sys.stdin)["Dir"])')
    rm -rf "$ex/go-mysql"
    cp -r "$gdir" "$ex/go-mysql"
    chmod -R u+w "$ex/go-mysql"
    # a checkout as a team has one: its own git work tree on the release tag it builds on, which is
    # how setup.sh finds the library's version (git describe --tags) and the harness predicts its
    # verdicts from the known issues' ranges; a bare copy would be "0-unknown", predicted as the oldest
    git -C "$ex/go-mysql" init -q
    git -C "$ex/go-mysql" add -A
    git -C "$ex/go-mysql" -c user.name=cdcharness -c user.email=cdcharness@localhost commit -qm "go-mysql v1.16.0"
    git -C "$ex/go-mysql" tag v1.16.0
fi

echo "== 3. python-mysql-replication 1.0.17 for the in-house feed" >&2
cat >"$work/py.yaml" <<YAML
name: deployment-example-python
consumers_dirs: [$src/consumers]
consumers: [python-mysql-replication@1.0.17]
scenarios: [$src/scenarios/crud-basic.yaml]
YAML
pydir=$("$bin" matrix "$work/py.yaml" --setup-only --quiet |
    awk -F'\t' '$1 == "python-mysql-replication@1.0.17" {print $2}')
[ -x "$pydir/venv/bin/python3" ] || { echo "deployment-example.sh: python-mysql-replication 1.0.17 not installed" >&2; exit 2; }

echo "== 4. the deployment file, --pre-flip" >&2
rc=0
PATH=$pydir/venv/bin:$PATH "$bin" matrix "$src/ci/deployment-example.yaml" --pre-flip -j 2 \
    --report-dir "$report" || rc=$?
echo "report: $report/report.html (exit status $rc)" >&2
exit $rc
