#!/usr/bin/env bash
# Builds the adapter against one tag of the library from the Go module proxy, into the cache dir.
#   setup.sh VERSION CACHE_DIR        (the harness appends both; safe to re-run)
# The sources (this folder and the Go foundation, go-common/canon) are copied into CACHE_DIR/src:
# nothing is written into this folder. Modules go to Go's module cache, checked against the
# checksum database as go does by default.
set -euo pipefail
version=${1%%+*} cache=$2
lib=github.com/go-mysql-org/go-mysql   # CHANGE: your library's module path
here=$(cd "$(dirname "$0")" && pwd)
canon=$here/../go-common/canon         # consumers/<your-family>/
[ -d "$canon" ] || canon=$here/../../go-common/canon   # consumers/templates/go/
command -v go >/dev/null || { echo "setup: the Go toolchain (go) is needed" >&2; exit 2; }
export GOFLAGS="-buildvcs=false -mod=mod"
rm -rf "$cache/src"
mkdir -p "$cache/src/adapter"
cp -r "$canon" "$cache/src/canon"
cp "$here"/go.mod "$here"/*.go "$cache/src/adapter/"
cd "$cache/src/adapter"
if ! go get "$lib@$version" >"$cache/go.log" 2>&1; then
    cat "$cache/go.log" >&2
    if grep -qE "unknown revision|invalid version|not available|no matching versions" "$cache/go.log"; then
        echo "setup: not served: \"$(grep -m1 -E 'go: ' "$cache/go.log")\"" >&2
        exit 3
    fi
    exit 1
fi
go build -o "$cache/adapter" . >&2
echo "setup.sh: $lib@$version adapter built: $cache/adapter" >&2
