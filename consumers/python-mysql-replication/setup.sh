#!/usr/bin/env bash
# Installs one mysql-replication release (and its pinned PyMySQL) from PyPI into a virtualenv in
# the cache dir.   setup.sh VERSION CACHE_DIR   (appended by the harness)
#
# VERSION: a pinned version, any other version PyPI serves (the harness sets CDCH_UNPINNED=1;
# not served: exit 3 with "setup: not served: <pip's answer>"), or a local build `file:/PATH`
# (CDCH_LOCAL=/PATH: a source tree with setup.py / pyproject.toml, or a wheel), installed with
# pip into the venv from a copy (the user's tree is never written); CACHE_DIR/local-version then
# holds the version from the installed package's metadata. A "+variant" suffix is the adapter's
# business (the install is the release's). After the install the adapter probes the release
# (adapter.py --probe): a release it cannot drive fails with "setup: unsupported: ..." (exit 4).
# Safe to re-run.
set -euo pipefail
version=${1:?usage: setup.sh VERSION CACHE_DIR}
cache=${2:?usage: setup.sh VERSION CACHE_DIR}
python=${PYTHON:-python3}
here=$(cd "$(dirname "$0")" && pwd)
release=${version%%+*}
local_path=
case "$release" in
    file:*) local_path=${CDCH_LOCAL:-${release#file:}} ;;
esac
# PyMySQL pinned per release line: every release inspected requires pymysql>=1.1.0; 1.x also
# needs `packaging`. `cryptography` is PyMySQL's documented extra for caching_sha2_password
# (MySQL 8's default) without TLS: `pip install PyMySQL[rsa]` (full authentication by RSA).
deps_for() {
    case "$1" in
        0.*) deps=("PyMySQL==1.1.0" "cryptography==41.0.7") ;;
        *)   deps=("PyMySQL==1.1.2" "cryptography==45.0.7" "packaging==25.0") ;;
    esac
}
pip() { "$cache/venv/bin/python" -m pip --disable-pip-version-check --no-input "$@"; }
mkdir -p "$cache"
[ -x "$cache/venv/bin/python" ] || "$python" -m venv "$cache/venv"
log=$cache/pip.log
if [ -z "$local_path" ]; then
    deps_for "$release"
    if ! pip install --quiet "mysql-replication==$release" "${deps[@]}" >"$log" 2>&1; then
        cat "$log" >&2
        answer=$(grep -m1 -o "No matching distribution found for mysql-replication==.*" "$log" || true)
        if [ -n "$answer" ]; then
            echo "setup: not served: \"ERROR: $answer\"" >&2
            exit 3
        fi
        exit 1
    fi
    cat "$log" >&2
    want=$release
else
    # a local build: a source tree (pip builds it; from a copy, so that its build/ and
    # *.egg-info land in the cache, not in the user's tree) or a wheel
    if [ -d "$local_path" ]; then
        [ -f "$local_path/setup.py" ] || [ -f "$local_path/pyproject.toml" ] || {
            echo "setup.sh: $local_path has neither setup.py nor pyproject.toml" >&2; exit 2; }
        rm -rf "$cache/src"
        mkdir -p "$cache/src"
        (cd "$local_path" && tar --exclude=.git -cf - .) | (cd "$cache/src" && tar -xf -)
        target=$cache/src
    elif [ -f "$local_path" ] && [[ "$local_path" == *.whl ]]; then
        target=$local_path
    else
        echo "setup.sh: $local_path is neither a source tree nor a wheel (.whl)" >&2
        exit 2
    fi
    # first the build alone, to learn its version (and so its dependency line), then with
    # its own requirements and the pinned ones
    pip install --force-reinstall --no-deps "$target" >&2
    want=$("$cache/venv/bin/python" -c 'from importlib.metadata import version; print(version("mysql-replication"))') || {
        echo "setup.sh: $local_path does not install the distribution mysql-replication" >&2; exit 2; }
    deps_for "$want"
    pip install --quiet "$target" "${deps[@]}" >&2
    echo "$want" > "$cache/local-version"
fi
pip freeze > "$cache/freeze.txt"
grep -qix "mysql-replication==$want" "$cache/freeze.txt" || grep -qi "^mysql-replication @ " "$cache/freeze.txt" || {
    echo "setup.sh: mysql-replication $want not installed" >&2; exit 1; }
probe() { probe=$(cd "$here" && "$cache/venv/bin/python" adapter.py --probe 2>&1); }
if ! probe && grep -q -e "No module named 'pymysql.util'" -e "from 'pymysql.charset'" <<<"$probe"; then
    # a release from before PyMySQL 0.10/1.0 (which removed charset_to_encoding, pymysql.util):
    # the PyMySQL its users had, 0.9.3 (caching_sha2_password since 0.9.0)
    echo "setup.sh: mysql-replication $want needs an older PyMySQL: installing PyMySQL 0.9.3" >&2
    pip install --quiet "PyMySQL==0.9.3" >&2
    pip freeze > "$cache/freeze.txt"
fi
if ! probe; then
    echo "$probe" | tail -5 >&2
    echo "setup: unsupported: python-mysql-replication $version: $(echo "$probe" | tail -1)" >&2
    exit 4
fi
echo "setup.sh: mysql-replication $want installed in $cache/venv${local_path:+ (local build $local_path)}" >&2
