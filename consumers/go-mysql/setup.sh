#!/usr/bin/env bash
# Builds one go-mysql adapter into the cache dir:   setup.sh VERSION CACHE_DIR
#
# VERSION is TAG[+VARIANT] or file:/PATH[+VARIANT] (CDCH_LOCAL=/PATH):
#   TAG      any version of github.com/go-mysql-org/go-mysql the Go module proxy serves
#            (v1.1.2 on: older tags declare the module github.com/siddontang/go-mysql);
#   /PATH    a go-mysql module directory (a checkout, or a copy of one), used through a
#            `replace` directive;
#   VARIANT  canal | raw | raw-payload | parsetime (manifest.yaml says what each models);
#            none: canal, the library's own consumer, the one that handles compressed
#            transactions itself since v1.8.0 (README: "canal" is what go-mysql offers for
#            "sync MySQL data into elsewhere"), and the one variant every tag can run.
#
# One Go module per variant (canal/, raw/, raw-payload/; parsetime is raw-payload built with
# the tag cdch_parsetime) plus the Go foundation ../go-common/canon, copied into CACHE_DIR/src
# (as src/go-mysql/<module> and src/go-common/canon, the modules' `replace` paths) and pointed at the requested
# go-mysql. What differs between go-mysql tags is chosen here from the library's source, as
# Go build tags (never a per-version copy of the adapter):
#   gm_slog            BinlogSyncerConfig / canal.Config Logger is a *slog.Logger (v1.12.0+)
#   gm_gologger        ... is siddontang/go-log's logger (v1.6.0 .. v1.11.0); neither: none
#                      (<= v1.5.0, the library logs through go-log's global logger)
#   gm_gtid_tagged     replication.GtidTaggedLogEvent exists (v1.12.0+)
#   gm_onpos_noheader  canal's OnPosSynced has no *EventHeader argument (<= v1.6.0)
# A variant the tag cannot run is refused: raw needs a parser without
# TransactionPayloadEvent (<= v1.7.0), raw-payload / parsetime one with it (v1.8.0+).
#
# Pinned versions build reproducibly: lock/<module>@<tag>.mod and .sum are the go.mod and
# go.sum of that build (the dependency versions of the per-version modules this layout
# replaced), built with -mod=readonly, so nothing is resolved anew and every download is
# checked against the committed go.sum. Other tags: `go get github.com/go-mysql-org/go-mysql@TAG`
# (the tag's own dependency versions, as a user's module gets them), checked against the
# checksum database as go does by default (GOSUMDB; Go reaches sum.golang.org through the module
# proxy, GOPROXY's /sumdb/ endpoint): setup never turns verification off, and a tag whose
# checksums cannot be verified fails as go fails. Local builds: `replace` to /PATH.
#
# Exit status: 0 built; 2 bad arguments or no Go; 3 the proxy does not serve TAG ("setup: not
# served: <go's answer>"); 4 the variant cannot run that go-mysql ("setup: unsupported: ...");
# 1 anything else (a build error of a local checkout, a network failure). Modules come from the
# Go module proxy into Go's module cache (outside the repo); nothing is written into this
# folder. Safe to re-run.
set -euo pipefail
version=${1:?usage: setup.sh VERSION CACHE_DIR}
cache=${2:?usage: setup.sh VERSION CACHE_DIR}
here=$(cd "$(dirname "$0")" && pwd)
gm=github.com/go-mysql-org/go-mysql
variants="canal raw raw-payload parsetime"

die() { local rc=$1; shift; echo "setup: $*" >&2; exit "$rc"; }

# ---- VERSION: TAG or file:PATH, then the variant after the last '+'
base=$version variant=""
if [[ $version == *+* ]]; then
    suffix=${version##*+}
    if [[ " $variants " == *" $suffix "* ]]; then
        variant=$suffix base=${version%+*}
    elif [[ $version != file:* ]]; then
        die 2 "go-mysql $version: unknown variant '$suffix' (variants: ${variants// /, })"
    fi
fi
default_note=""
if [ -z "$variant" ]; then
    variant=canal
    default_note="setup.sh: go-mysql $version: no +variant given, building +canal (variants: ${variants// /, })"
fi
local_dir=""
if [[ $base == file:* ]]; then
    local_dir=${CDCH_LOCAL:-${base#file:}}
    [ -f "$local_dir/go.mod" ] || die 2 "go-mysql $version: $local_dir is not a Go module directory (no go.mod)"
    local_dir=$(cd "$local_dir" && pwd)
    tag=""
else
    tag=$base
    [[ $tag =~ ^v[0-9] ]] || die 2 "go-mysql $version: '$tag' is not a go-mysql tag (vX.Y.Z)"
fi
module=$variant tags=""
if [ "$variant" = parsetime ]; then module=raw-payload tags=cdch_parsetime; fi
command -v go >/dev/null || die 2 "the Go toolchain (go) is needed"

# Go keeps its module and build caches under $HOME; give it a place when there is none.
if [ -z "${HOME:-}" ] && [ -z "${GOMODCACHE:-}" ] && [ -z "${GOPATH:-}" ]; then
    export GOPATH=$cache/gopath
fi
if [ -z "${HOME:-}" ] && [ -z "${GOCACHE:-}" ] && [ -z "${XDG_CACHE_HOME:-}" ]; then
    export GOCACHE=$cache/gocache
fi
export GOFLAGS="-buildvcs=false"

# ---- the sources, in CACHE_DIR/src laid out as in consumers/ (the module's replace ../../go-common/canon)
mkdir -p "$cache"
src=$cache/src
rm -rf "$src"
mkdir -p "$src/go-mysql" "$src/go-common"
cp -r "$here/../go-common/canon" "$src/go-common/"
cp -r "$here/$module" "$src/go-mysql/"
cd "$src/go-mysql/$module"

lock=$here/lock/$module@$tag
mode=mod
if [ -n "$local_dir" ]; then
    got=$(awk '$1 == "module" { print $2; exit }' "$local_dir/go.mod")
    [ "$got" = "$gm" ] || die 2 "go-mysql $version: $local_dir/go.mod is module '$got', not $gm"
    go mod edit -require="$gm@v0.0.0-00010101000000-000000000000" -replace="$gm=$local_dir"
    libdir=$local_dir
elif [ -n "$tag" ] && [ -f "$lock.mod" ]; then
    # pinned: the committed go.mod / go.sum, nothing resolved anew
    cp "$lock.mod" go.mod
    cp "$lock.sum" go.sum
    mode=readonly
fi

# ---- the library's source: where the build tags are read from
if [ -z "$local_dir" ]; then
    if ! info=$(go mod download -json "$gm@$tag" 2>/dev/null); then
        err=$(python3 -c 'import json,sys; print(json.load(sys.stdin).get("Error",""))' <<<"$info" 2>/dev/null || true)
        [ -n "$err" ] || err=$(go mod download "$gm@$tag" 2>&1 || true)
        err=$(tr '\n\t' '  ' <<<"$err" | sed 's/  */ /g; s/ $//')
        case $err in
        *"not available"*|*"unknown revision"*|*"invalid version"*|*"404 Not Found"*|*"410 Gone"*|*"no matching versions"*)
            die 3 "not served: \"$err\"" ;;
        *sumdb*|*"verifying "*)
            die 1 "go-mysql $tag: its checksums could not be verified against the checksum database ($(go env GOSUMDB)); setup does not turn verification off (GONOSUMDB / GOSUMDB=off in your environment would, at your risk): $err" ;;
        esac
        die 1 "go-mysql $tag: go mod download failed: $err"
    fi
    libdir=$(python3 -c 'import json,sys; print(json.load(sys.stdin)["Dir"])' <<<"$info")
    got=$(awk '$1 == "module" { print $2; exit }' "$libdir/go.mod" 2>/dev/null || true)
    [ "$got" = "$gm" ] || die 4 "unsupported: go-mysql $tag: that tag declares the module '${got:-?}', not $gm (the path starts at v1.1.2)"
fi

[ -z "$default_note" ] || echo "$default_note" >&2

# ---- features of this go-mysql -> build tags, or the variant cannot run it
has() { grep -Eqs "$1" "$libdir"/$2; }   # has REGEX FILES(glob, in the library)
name=${tag:-file:$local_dir}
payload=0
has 'TransactionPayloadEvent struct' 'replication/*.go' && payload=1
case $variant in
raw)
    [ $payload = 0 ] || die 4 "unsupported: go-mysql $name+raw: this go-mysql parses TRANSACTION_PAYLOAD_EVENT (TransactionPayloadEvent, v1.8.0+); +raw is the loop for tags without it (<= v1.7.0): use +raw-payload, the loop that iterates it, or +canal"
    logfile=replication/binlogsyncer.go ;;
raw-payload|parsetime)
    [ $payload = 1 ] || die 4 "unsupported: go-mysql $name+$variant: this go-mysql has no TransactionPayloadEvent (before v1.8.0: its parser makes TRANSACTION_PAYLOAD_EVENT a GenericEvent); use +raw, the loop for such tags, or +canal"
    has 'JsonDiff struct' 'replication/*.go' && has 'func \(e \*GTIDEvent\) GTIDNext' 'replication/*.go' \
        || die 4 "unsupported: go-mysql $name+$variant: no JsonDiff / GTIDEvent.GTIDNext, which the loop uses (v1.8.0+)"
    has 'GtidTaggedLogEvent struct' 'replication/*.go' && tags="$tags gm_gtid_tagged"
    logfile=replication/binlogsyncer.go ;;
canal)
    has 'func NewCanal\(' 'canal/canal.go' || die 4 "unsupported: go-mysql $name+canal: no canal package (canal.NewCanal)"
    has 'OnPosSynced\(header ' 'canal/handler.go' || tags="$tags gm_onpos_noheader"
    logfile=canal/config.go ;;
esac
if has '^[[:space:]]+Logger[[:space:]]+\*slog\.Logger' "$logfile"; then
    tags="$tags gm_slog"
elif has '^[[:space:]]+Logger[[:space:]]' "$logfile"; then
    tags="$tags gm_gologger"
fi
tags=$(echo $tags)   # trim

# ---- build
if [ -n "$tag" ] && [ "$mode" = mod ]; then
    go get "$gm@$tag" >&2 || die 1 "go-mysql $tag: go get failed"
fi
log=$cache/build.log
if ! GOFLAGS="$GOFLAGS -mod=$mode" go build -tags "$tags" -o "$cache/adapter.tmp" . 2>"$log"; then
    cat "$log" >&2
    first=$(grep -m1 -E '\.go:[0-9]+' "$log" || head -1 "$log")
    if [ -z "$local_dir" ] && [ "$mode" = mod ]; then
        die 4 "unsupported: go-mysql $name+$variant: the adapter does not build against it (tags: ${tags:-none}): $first"
    fi
    die 1 "go-mysql $name+$variant: build failed (tags: ${tags:-none}): $first"
fi
mv -f "$cache/adapter.tmp" "$cache/adapter"
echo "$name+$variant ${tags:-}" >"$cache/build-tags"
if [ -n "$local_dir" ]; then
    # the library's version, when the directory says it: a module cache copy (.../go-mysql@vX.Y.Z),
    # or a git checkout (its own work tree, not one it sits in): the nearest tag it is built on
    lv=""
    case $(basename "$local_dir") in *@v*) lv=${local_dir##*@} ;; esac
    if [ -z "$lv" ] && command -v git >/dev/null \
       && [ "$(git -C "$local_dir" rev-parse --show-toplevel 2>/dev/null)" = "$local_dir" ]; then
        lv=$(git -C "$local_dir" describe --tags --abbrev=0 2>/dev/null || true)
    fi
    rm -f "$cache/local-version"
    [ -z "$lv" ] || echo "$lv" >"$cache/local-version"
fi
echo "setup.sh: go-mysql ${tag:-$local_dir} ($variant${tags:+, tags: $tags}$([ "$mode" = readonly ] && echo ", pinned: lock/$module@$tag")) adapter built: $cache/adapter" >&2
