#!/usr/bin/env bash
# Installs one pinned mysql-replication release (and its pinned PyMySQL) from PyPI into a
# virtualenv in the cache dir.   setup.sh VERSION CACHE_DIR   (appended by the harness)
# Safe to re-run.
set -euo pipefail
version=${1:?usage: setup.sh VERSION CACHE_DIR}
cache=${2:?usage: setup.sh VERSION CACHE_DIR}
python=${PYTHON:-python3}
# PyMySQL pinned per release line: every release inspected requires pymysql>=1.1.0; 1.x also
# needs `packaging`. `cryptography` is PyMySQL's documented extra for caching_sha2_password
# (MySQL 8's default) without TLS: `pip install PyMySQL[rsa]` (full authentication by RSA).
case "$version" in
    0.*) deps=("PyMySQL==1.1.0" "cryptography==41.0.7") ;;
    *)   deps=("PyMySQL==1.1.2" "cryptography==45.0.7" "packaging==25.0") ;;
esac
mkdir -p "$cache"
[ -x "$cache/venv/bin/python" ] || "$python" -m venv "$cache/venv"
"$cache/venv/bin/python" -m pip install --quiet --disable-pip-version-check --no-input \
    "mysql-replication==$version" "${deps[@]}" >&2
"$cache/venv/bin/python" -m pip freeze --disable-pip-version-check > "$cache/freeze.txt"
grep -qix "mysql-replication==$version" "$cache/freeze.txt" || {
    echo "setup.sh: mysql-replication $version not installed" >&2; exit 1; }
echo "setup.sh: mysql-replication $version installed in $cache/venv" >&2
