#!/usr/bin/env bash
# Builds one go-mysql adapter variant into the cache dir:   setup.sh VERSION CACHE_DIR
# VERSION is "<go-mysql tag>+<variant>" (manifest.yaml); the variant's Go module
# (<variant>-<tag>/, go.mod + go.sum pinned) is built with `go build -o CACHE_DIR/adapter`.
# Modules come from the Go module proxy into Go's module cache (outside the repo); nothing is
# vendored or written into this folder. Safe to re-run.
set -euo pipefail
version=${1:?usage: setup.sh VERSION CACHE_DIR}
cache=${2:?usage: setup.sh VERSION CACHE_DIR}
here=$(cd "$(dirname "$0")" && pwd)

tag=${version%%+*}
variant=${version#*+}
[ "$tag" != "$version" ] || { echo "setup.sh: version '$version' is not TAG+VARIANT" >&2; exit 2; }
module=$here/$variant-$tag
[ -f "$module/go.mod" ] || { echo "setup.sh: no Go module $module for $version" >&2; exit 2; }
grep -q "github.com/go-mysql-org/go-mysql $tag\$" "$module/go.mod" || {
    echo "setup.sh: $module/go.mod does not pin go-mysql $tag" >&2; exit 2; }
command -v go >/dev/null || { echo "setup.sh: the Go toolchain (go) is needed" >&2; exit 2; }

# Go keeps its module and build caches under $HOME; give it a place when there is none.
if [ -z "${HOME:-}" ] && [ -z "${GOMODCACHE:-}" ] && [ -z "${GOPATH:-}" ]; then
    export GOPATH=$cache/gopath
fi
if [ -z "${HOME:-}" ] && [ -z "${GOCACHE:-}" ] && [ -z "${XDG_CACHE_HOME:-}" ]; then
    export GOCACHE=$cache/gocache
fi
mkdir -p "$cache"
cd "$module"
GOFLAGS="-mod=mod -buildvcs=false" go build -o "$cache/adapter.tmp" . >&2
mv -f "$cache/adapter.tmp" "$cache/adapter"
echo "setup.sh: go-mysql $tag ($variant) adapter built: $cache/adapter" >&2
