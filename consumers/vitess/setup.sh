#!/usr/bin/env bash
# Builds consumers/vitess/vstream against one vitess.io/vitess release from the Go module proxy.
#   setup.sh VERSION CACHE_DIR        (the harness appends both; safe to re-run)
# VERSION is a vitess module version (v0.24.4; the module's tags are v0.<release>.<patch>).
# The sources (vstream/ and the Go foundation consumers/go-common/canon, laid out as in the repo so
# vstream's `replace ../../go-common/canon` holds) are copied into CACHE_DIR/src; nothing is written
# into this folder. A pinned version builds from lock/vstream@VERSION.{mod,sum} (-mod=readonly);
# another takes that release's own dependency versions (go get), checked against the checksum
# database as go does by default. Only go/mysql and its packages are built (about 300 packages;
# vitess's go.mod names Go 1.26.8 from v0.24: older Go toolchains fetch it per GOTOOLCHAIN).
# What differs between releases is picked as build tags from the release's source:
#   vt_v16   go/mysql before the go/mysql/replication and go/mysql/binlog packages (<= v0.16):
#            no TRANSACTION_PAYLOAD decoding (api_v16.go); unsupported (exit 4) if neither API fits,
#            or when the release's dependencies do not resolve from the proxy (v0.16.1 .. v0.16.7
#            replace spyzhov/ajson by a fork, rohit-nayak-ps/ajson, that the proxy does not serve:
#            "403 Forbidden ... This module version is not available"). go/hack of those releases
#            linknames runtime.roundupsize: built with -ldflags=-checklinkname=0 (Go 1.23+).
# Exit 3 `setup: not served: ...` when the proxy does not serve VERSION.
set -euo pipefail
version=${1:?usage: setup.sh VERSION CACHE_DIR} cache=${2:?usage: setup.sh VERSION CACHE_DIR}
tag=${version%%+*}
here=$(cd "$(dirname "$0")" && pwd)
vt=vitess.io/vitess
die() { # die STATUS MESSAGE
    case $1 in 3) echo "setup: $2" >&2 ;; 4) echo "setup: $2" >&2 ;; *) echo "setup.sh: $2" >&2 ;; esac
    exit "$1"
}
local_dir=""
if [[ $version == file:* ]]; then
    # your own build: a vitess checkout (or module copy), used through a `replace`
    [[ $version != *+* ]] || die 2 "vitess $version: this family has no variants"
    local_dir=${CDCH_LOCAL:-${version#file:}}
    [ -f "$local_dir/go.mod" ] || die 2 "vitess $version: $local_dir is not a Go module directory (no go.mod)"
    local_dir=$(cd "$local_dir" && pwd)
    got=$(awk '$1 == "module" { print $2; exit }' "$local_dir/go.mod")
    [ "$got" = vitess.io/vitess ] || die 2 "vitess $version: $local_dir/go.mod is module '$got', not vitess.io/vitess"
    tag=""
else
    [[ $tag =~ ^v[0-9] ]] || die 2 "vitess $version: '$tag' is not a vitess.io/vitess module version (v0.X.Y)"
    [ "$version" = "$tag" ] || die 2 "vitess $version: this family has no variants"
fi
command -v go >/dev/null || die 2 "the Go toolchain (go) is needed"
if [ -z "${HOME:-}" ] && [ -z "${GOMODCACHE:-}" ] && [ -z "${GOPATH:-}" ]; then
    export GOPATH=$cache/gopath
fi
if [ -z "${HOME:-}" ] && [ -z "${GOCACHE:-}" ] && [ -z "${XDG_CACHE_HOME:-}" ]; then
    export GOCACHE=$cache/gocache
fi
export GOFLAGS="-buildvcs=false"
# 2 shared cores: one package at a time unless the caller says otherwise
export CDCH_GO_P=${CDCH_GO_P:-1}

mkdir -p "$cache"
src=$cache/src
rm -rf "$src"
mkdir -p "$src/go-common" "$src/vitess"
cp -r "$here/../go-common/canon" "$src/go-common/"
cp -r "$here/vstream" "$src/vitess/"
cd "$src/vitess/vstream"

# the release's source: where the build tags are read from
if [ -n "$local_dir" ]; then
    libdir=$local_dir
elif ! info=$(go mod download -json "$vt@$tag" 2>/dev/null); then
    err=$(python3 -c 'import json,sys; print(json.load(sys.stdin).get("Error",""))' <<<"$info" 2>/dev/null || true)
    [ -n "$err" ] || err=$(go mod download "$vt@$tag" 2>&1 || true)
    err=$(tr '\n\t' '  ' <<<"$err" | sed 's/  */ /g; s/ $//')
    case $err in
    *"not available"*|*"unknown revision"*|*"invalid version"*|*"404 Not Found"*|*"410 Gone"*|*"no matching versions"*)
        die 3 "not served: \"$err\"" ;;
    esac
    die 1 "vitess $tag: go mod download failed: $err"
fi
[ -n "$local_dir" ] || libdir=$(python3 -c 'import json,sys; print(json.load(sys.stdin)["Dir"])' <<<"$info")
name=${tag:-file:$local_dir}
tags="" api=v24
if [ -f "$libdir/go/mysql/binlog/rbr.go" ] && [ -d "$libdir/go/mysql/replication" ]; then
    grep -q 'partialJSON bool' "$libdir/go/mysql/binlog/rbr.go" \
        || die 4 "unsupported: vitess $name: go/mysql/binlog.CellValue has no partialJSON argument (api_v24.go needs the v0.24 API)"
    pkgs="go/mysql go/mysql/binlog go/mysql/replication go/sqltypes go/vt/proto/query"
elif [ -f "$libdir/go/mysql/binlog_event_rbr.go" ] && grep -q '^func CellValue' "$libdir/go/mysql/binlog_event_rbr.go"; then
    tags=vt_v16 api=v16
    pkgs="go/mysql go/sqltypes go/vt/proto/query"
else
    die 4 "unsupported: vitess $name: neither go/mysql API the adapter knows (api_v24.go, api_v16.go)"
fi
# only the chosen API file: `go get` must not resolve the other one's imports
for f in api_*.go; do [ "$f" = "api_$api.go" ] || rm -f "$f"; done
ldflags=""
# go/hack (<= v0.16) linknames runtime.roundupsize, which Go 1.23+ refuses to link by default;
# -checklinkname=0 is Go's own switch for such packages
if grep -qs 'linkname roundupsize runtime.roundupsize' "$libdir"/go/hack/*.go; then
    ldflags=-checklinkname=0
fi

lock=$here/lock/vstream@$tag
mode=mod
if [ -n "$local_dir" ]; then
    # the checkout's own dependency versions; `go build -mod=mod` adds what go/mysql imports
    go mod edit -require="$vt@v0.0.0-00010101000000-000000000000" -replace="$vt=$local_dir"
elif [ -n "$tag" ] && [ -f "$lock.mod" ]; then
    cp "$lock.mod" go.mod
    cp "$lock.sum" go.sum
    mode=readonly
fi
if [ "$mode" = mod ]; then
    # vitess's own go.mod replaces (a fork of a dependency) apply to its users too
    while read -r from to; do
        go mod edit -replace="$from=$to"
    done < <(go mod edit -json "$libdir/go.mod" | python3 -c '
import json, sys
for r in json.load(sys.stdin).get("Replace") or []:
    old, new = r["Old"], r["New"]
    if new.get("Version"):   # a module, not a local directory
        print(old["Path"] + ("@" + old["Version"] if old.get("Version") else ""), new["Path"] + "@" + new["Version"])
')
fi
if [ -z "$local_dir" ] && [ "$mode" = mod ]; then
    # the packages the adapter imports, at that release: go.sum for them only (a module-wide
    # `go mod tidy` also resolves vitess's test dependencies, some of which the proxy no longer serves)
    # shellcheck disable=SC2086
    if ! go get $(for p in $pkgs; do echo "$vt/$p@$tag"; done) >"$cache/get.log" 2>&1; then
        cat "$cache/get.log" >&2
        die 4 "unsupported: vitess $tag: its go/mysql's dependencies do not resolve from the Go module proxy: $(grep -m1 -E 'Forbidden|not available|unknown revision' "$cache/get.log" || grep -m1 'go: ' "$cache/get.log")"
    fi
fi
log=$cache/build.log
if ! GOFLAGS="$GOFLAGS -mod=$mode -p=$CDCH_GO_P" go build -tags "$tags" -ldflags "$ldflags" -o "$cache/adapter.tmp" . 2>"$log"; then
    cat "$log" >&2
    first=$(grep -m1 -E '\.go:[0-9]+' "$log" || head -1 "$log")
    [ "$mode" = mod ] && [ -z "$local_dir" ] && die 4 "unsupported: vitess $tag: the adapter does not build against it (tags: ${tags:-none}): $first"
    die 1 "vitess $name: build failed (tags: ${tags:-none}): $first"
fi
mv -f "$cache/adapter.tmp" "$cache/adapter"
if [ -n "$local_dir" ]; then
    # the library's version, when the directory says it: a module cache copy (.../vitess@vX.Y.Z),
    # or a git checkout's nearest tag
    lv=""
    case $(basename "$local_dir") in *@v*) lv=${local_dir##*@} ;; esac
    if [ -z "$lv" ] && command -v git >/dev/null \
       && [ "$(git -C "$local_dir" rev-parse --show-toplevel 2>/dev/null)" = "$local_dir" ]; then
        lv=$(git -C "$local_dir" describe --tags --abbrev=0 2>/dev/null || true)
    fi
    rm -f "$cache/local-version"
    [ -z "$lv" ] || echo "$lv" >"$cache/local-version"
fi
echo "setup.sh: vitess $name (${tags:-no tags}$([ "$mode" = readonly ] && echo ", pinned: lock/vstream@$tag")) adapter built: $cache/adapter" >&2
