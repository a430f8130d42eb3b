#!/usr/bin/env bash
# Installs one version of the library from npm into the cache dir.
#   setup.sh VERSION CACHE_DIR        (the harness appends both; safe to re-run)
# A version with a lockfile here (lock/VERSION.package-lock.json) is installed with `npm ci` from
# it, so its dependencies stay the ones its recorded verdicts were made with when npm serves newer
# ones (make one: install the version once, copy CACHE_DIR/package-lock.json to lock/). Any other
# version takes what npm resolves today.
set -euo pipefail
version=${1%%+*} cache=$2
pkg=@vlasky/zongji                   # CHANGE: your library's npm name (and in adapter.js)
lock=$PWD/lock/$version.package-lock.json
mkdir -p "$cache"
cd "$cache"
if [ -f "$lock" ]; then
    printf '{\n  "name": "cdch-consumer",\n  "private": true,\n  "dependencies": {\n    "%s": "%s"\n  }\n}\n' "$pkg" "$version" > package.json
    cp "$lock" package-lock.json
    npm ci --no-audit --no-fund >npm.log 2>&1 || { cat npm.log >&2; echo "setup.sh: npm ci from $lock failed" >&2; exit 1; }
    echo "setup.sh: $pkg@$version installed in $cache (dependencies from $lock)" >&2
    exit 0
fi
[ -f package.json ] || echo '{"name": "cdch-consumer", "private": true}' > package.json
if ! npm install --no-audit --no-fund --save-exact "$pkg@$version" >npm.log 2>&1; then
    cat npm.log >&2
    answer=$(grep -m1 -o "No matching version found for .*" npm.log || true)
    [ -z "$answer" ] || { echo "setup: not served: \"$answer\"" >&2; exit 3; }
    exit 1
fi
echo "setup.sh: $pkg@$version installed in $cache" >&2
