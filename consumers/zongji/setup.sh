#!/usr/bin/env bash
# Installs one version of a zongji-family npm package into the cache dir.
#   setup.sh PACKAGE VERSION CACHE_DIR      (the manifest passes PACKAGE; the harness appends
#                                            VERSION and CACHE_DIR)
# VERSION: a pinned version, any other version the npm registry serves (the harness sets
# CDCH_UNPINNED=1; not served: exit 3 with "setup: not served: <npm's answer>"), or a local build
# `file:/PATH` (CDCH_LOCAL=/PATH: a package directory or a tarball .tgz), installed as PACKAGE
# (npm's alias PACKAGE@file:PATH, packed into node_modules with --install-links: the user's
# directory is not linked and never written); CACHE_DIR/local-version then holds the version of
# its package.json. A "+variant" suffix is the adapter's business. After the install the adapter
# probes the package (adapter.js --probe): one it cannot drive fails with "setup: unsupported:
# ..." (exit 4).
# Dependencies: a version with a lockfile in the family's folder (lock/VERSION.package-lock.json:
# the pinned versions) is installed with `npm ci` from that lock, so its dependencies are the ones
# its recorded verdicts were made with, whatever npm serves later (mysql2 3.26.1, published
# 2026-12-03, no longer fetches the server's RSA key over a connection without TLS, and a
# zongji on it cannot log in with caching_sha2_password as the first client after a server
# start; a verdict of @vlasky/zongji 0.9.0 must not change with that). A local build of a
# version with a lock is installed against that lock's dependency versions (npm keeps a locked
# version that its range still accepts), so a difference from the recorded verdicts is the
# build's. Any other version takes what npm resolves today; its package-lock.json stays in the
# cache dir. Only the npm registry is used. Safe to re-run.
set -euo pipefail
pkg=${1:?usage: setup.sh PACKAGE VERSION CACHE_DIR}
version=${2:?usage: setup.sh PACKAGE VERSION CACHE_DIR}
cache=${3:?usage: setup.sh PACKAGE VERSION CACHE_DIR}
here=$(cd "$(dirname "$0")" && pwd)
fam=$(basename "$PWD") # setup runs in the family's folder (consumers/<family>)
fam_dir=$PWD
command -v npm >/dev/null || { echo "setup.sh: npm is needed" >&2; exit 1; }
release=${version%%+*}
local_path=
case "$release" in
    file:*) local_path=${CDCH_LOCAL:-${release#file:}} ;;
esac
mkdir -p "$cache"
cd "$cache"
[ -f package.json ] || printf '{\n  "name": "cdch-consumer",\n  "private": true\n}\n' > package.json
# engine ranges are advisory (e.g. @powersync/mysql-zongji 0.6.x asks for a newer Node than
# the machine's); the adapter run shows whether the package works on this Node.
npm_install() {
    local log=$cache/npm.log rc=0
    npm install --no-audit --no-fund --save-exact --engine-strict=false "$@" >"$log" 2>&1 || rc=$?
    cat "$log" >&2
    if [ $rc -ne 0 ]; then
        local answer
        answer=$(grep -m1 -o "No matching version found for .*" "$log" || true)
        if [ -n "$answer" ]; then
            echo "setup: not served: \"${answer%.}.\"" >&2
            exit 3
        fi
        exit 1
    fi
}
meta_version() { node -e 'console.log(JSON.parse(require("fs").readFileSync(process.argv[1], "utf8")).version)' "$1"; }
# the lock of this version (of the version a local build declares), when the family has one
lock_for() { [ -f "$fam_dir/lock/$1.package-lock.json" ] && echo "$fam_dir/lock/$1.package-lock.json"; }
seed_lock() { # VERSION: package.json and package-lock.json as the lock was made (its root depends on $pkg@VERSION)
    printf '{\n  "name": "cdch-consumer",\n  "private": true,\n  "dependencies": {\n    "%s": "%s"\n  }\n}\n' "$pkg" "$1" > package.json
    cp "$2" package-lock.json
}
if [ -z "$local_path" ] && lock=$(lock_for "$release"); then
    seed_lock "$release" "$lock"
    log=$cache/npm.log
    if ! npm ci --no-audit --no-fund --engine-strict=false >"$log" 2>&1; then
        cat "$log" >&2
        echo "setup.sh: npm ci from $lock failed" >&2
        exit 1
    fi
    cat "$log" >&2
    echo "setup.sh: dependencies from $lock" >&2
    want=$release
elif [ -z "$local_path" ]; then
    npm_install "$pkg@$release"
    want=$release
else
    declared=
    if [ -d "$local_path" ]; then
        declared=$(meta_version "$local_path/package.json" 2>/dev/null || true)
    else # a tarball: npm pack puts the package under package/
        declared=$(tar -xzOf "$local_path" package/package.json 2>/dev/null |
            node -e 'let s="";process.stdin.on("data",d=>s+=d).on("end",()=>{try{console.log(JSON.parse(s).version)}catch(e){}})' || true)
    fi
    if [ -n "$declared" ] && lock=$(lock_for "$declared") && [ ! -d node_modules ]; then
        seed_lock "$declared" "$lock"
        echo "setup.sh: local build of $declared: dependencies held at $lock where its ranges accept them" >&2
    fi
    if [ -d "$local_path" ]; then
        [ -f "$local_path/package.json" ] || { echo "setup.sh: $local_path has no package.json" >&2; exit 2; }
    elif [ ! -f "$local_path" ] || [[ "$local_path" != *.tgz && "$local_path" != *.tar.gz ]]; then
        echo "setup.sh: $local_path is neither a package directory nor a tarball (.tgz)" >&2
        exit 2
    fi
    npm_install --install-links "$pkg@file:$local_path"
    want=$(meta_version "$cache/node_modules/$pkg/package.json")
    echo "$want" > "$cache/local-version"
fi
installed=$(meta_version "$cache/node_modules/$pkg/package.json")
if [ "$installed" != "$want" ]; then
    echo "setup.sh: installed $pkg@$installed, wanted $want" >&2
    exit 1
fi
if ! probe=$(cd "$here" && node adapter.js "$pkg" "$cache" --probe 2>&1); then
    echo "$probe" | tail -5 >&2
    echo "setup: unsupported: $fam $version: $(echo "$probe" | tail -1)" >&2
    exit 4
fi
echo "setup.sh: $pkg@$want installed in $cache${local_path:+ (local build $local_path)}" >&2
echo "setup.sh: $(echo "$probe" | sed -n 2p)" >&2
