#!/usr/bin/env bash
# Installs one version of the library from npm into the cache dir.
#   setup.sh VERSION CACHE_DIR        (the harness appends both; safe to re-run)
set -euo pipefail
version=${1%%+*} cache=$2
pkg=@vlasky/zongji                   # CHANGE: your library's npm name (and in adapter.js)
mkdir -p "$cache"
cd "$cache"
[ -f package.json ] || echo '{"name": "cdch-consumer", "private": true}' > package.json
if ! npm install --no-audit --no-fund --save-exact "$pkg@$version" >npm.log 2>&1; then
    cat npm.log >&2
    answer=$(grep -m1 -o "No matching version found for .*" npm.log || true)
    [ -z "$answer" ] || { echo "setup: not served: \"$answer\"" >&2; exit 3; }
    exit 1
fi
echo "setup.sh: $pkg@$version installed in $cache" >&2
