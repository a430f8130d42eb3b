#!/usr/bin/env bash
# go-sql-driver/mysql (Go module proxy, pinned in tests/clients/go/go.mod and
# go.sum) against `cdcharness serve`: both password plugins with and without
# TLS (caching_sha2 full path: RSA key requested / clear password over TLS,
# then the fast path), SET NAMES, go-mysql's and canal's queries, a
# server-side prepared statement, KILL, a wrong password, an unknown statement.
#
#   tests/clients/go.sh CDCHARNESS_BIN [WORKDIR]
#
# Builds WORKDIR/go-client (default WORKDIR: <dir of CDCHARNESS_BIN>/clients,
# i.e. under build/); prints "N passed, N failed".
set -u
BIN=${1:?usage: go.sh CDCHARNESS_BIN [WORKDIR]}
WORK=${2:-$(dirname "$BIN")/clients}
mkdir -p "$WORK"
. "$(dirname "$0")/serve_lib.sh"

command -v go >/dev/null || {
    echo "go.sh: the Go toolchain (go) is needed"
    echo "0 passed, 1 failed"
    exit 1
}
# Go keeps its caches under $HOME; give it a place when there is none.
if [ -z "${HOME:-}" ] && [ -z "${GOCACHE:-}" ]; then export GOCACHE=$WORK/go-cache; fi
if [ -z "${HOME:-}" ] && [ -z "${GOPATH:-}" ] && [ -z "${GOMODCACHE:-}" ]; then export GOPATH=$WORK/go-path; fi
if ! (cd "$HERE/go" && GOFLAGS="${GOFLAGS:+$GOFLAGS }-buildvcs=false -mod=readonly" go build -o "$WORK/go-client" .) \
    >"$WORK/go-build.log" 2>&1; then
    cat "$WORK/go-build.log"
    echo "go.sh: go build of $HERE/go failed (log above)"
    echo "0 passed, 1 failed"
    exit 1
fi
echo "go-sql-driver/mysql $(grep 'go-sql-driver/mysql ' "$HERE/go/go.mod" | awk '{print $NF}'), $(go version | awk '{print $3}')"

serve_start sha2 || exit 1
serve_start native --auth mysql_native_password || exit 1
"$WORK/go-client" "$sha2_PORT" "$native_PORT" >"$WORK/go-client.out" 2>&1
count_client_lines "$WORK/go-client.out"
check_auth_paths go-sql-driver
summary
