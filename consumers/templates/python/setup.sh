#!/usr/bin/env bash
# Installs one release of the library from PyPI into a virtualenv in the cache dir.
#   setup.sh VERSION CACHE_DIR        (the harness appends both; safe to re-run)
set -euo pipefail
version=${1%%+*} cache=$2
# CHANGE: your library's PyPI name, and the dependencies you pin for it.
pkg=mysql-replication
deps=("PyMySQL==1.1.0" "cryptography==41.0.7")   # cryptography: caching_sha2_password without TLS
mkdir -p "$cache"
[ -x "$cache/venv/bin/python" ] || python3 -m venv "$cache/venv"
if ! "$cache/venv/bin/python" -m pip install --quiet --disable-pip-version-check \
        "$pkg==$version" "${deps[@]}" >"$cache/pip.log" 2>&1; then
    cat "$cache/pip.log" >&2
    answer=$(grep -m1 -o "No matching distribution found for .*" "$cache/pip.log" || true)
    [ -z "$answer" ] || { echo "setup: not served: \"$answer\"" >&2; exit 3; }
    exit 1
fi
echo "setup.sh: $pkg==$version installed in $cache/venv" >&2
