#!/usr/bin/env bash
# Installs one pinned version of a zongji-family npm package into the cache dir.
#   setup.sh PACKAGE VERSION CACHE_DIR      (the manifest passes PACKAGE; the harness appends
#                                            VERSION and CACHE_DIR)
# Only the npm registry is used; the package-lock.json of this install stays in the cache dir
# (never in the repository). Safe to re-run.
set -euo pipefail
pkg=${1:?usage: setup.sh PACKAGE VERSION CACHE_DIR}
version=${2:?usage: setup.sh PACKAGE VERSION CACHE_DIR}
cache=${3:?usage: setup.sh PACKAGE VERSION CACHE_DIR}
command -v npm >/dev/null || { echo "setup.sh: npm is needed" >&2; exit 1; }
mkdir -p "$cache"
cd "$cache"
[ -f package.json ] || printf '{\n  "name": "cdch-consumer",\n  "private": true\n}\n' > package.json
# engine ranges are advisory (e.g. @powersync/mysql-zongji 0.6.x asks for a newer Node than
# the machine's); the adapter run shows whether the package works on this Node.
npm install --no-audit --no-fund --save-exact --engine-strict=false "$pkg@$version" >&2
installed=$(node -e 'console.log(require(process.argv[1] + "/node_modules/" + process.argv[2] + "/package.json").version)' "$cache" "$pkg")
if [ "$installed" != "$version" ]; then
    echo "setup.sh: installed $pkg@$installed, wanted $version" >&2
    exit 1
fi
echo "setup.sh: $pkg@$version installed in $cache" >&2
