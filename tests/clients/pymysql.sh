#!/usr/bin/env bash
# PyMySQL (PyPI, pinned) against `cdcharness serve`: both password plugins
# with and without TLS (caching_sha2 full path via RSA needs `cryptography`,
# pinned too), the queries python-mysql-replication sends, information_schema
# with parameters, KILL, a wrong password, an unknown statement.
#
#   tests/clients/pymysql.sh CDCHARNESS_BIN [WORKDIR]
#
# Installs into a virtualenv WORKDIR/venv-pymysql (default WORKDIR:
# <dir of CDCHARNESS_BIN>/clients, i.e. under build/); prints
# "N passed, N failed".
set -u
BIN=${1:?usage: pymysql.sh CDCHARNESS_BIN [WORKDIR]}
WORK=${2:-$(dirname "$BIN")/clients}
mkdir -p "$WORK"
. "$(dirname "$0")/serve_lib.sh"

PINS=(PyMySQL==1.1.1 cryptography==44.0.0)
venv=$WORK/venv-pymysql
if [ "$(cat "$venv/.pins" 2>/dev/null)" != "${PINS[*]}" ]; then
    rm -rf "$venv"
    if ! python3 -m venv "$venv" >"$WORK/pymysql-install.log" 2>&1 ||
        ! "$venv/bin/pip" install -q --disable-pip-version-check "${PINS[@]}" >>"$WORK/pymysql-install.log" 2>&1; then
        cat "$WORK/pymysql-install.log"
        echo "pymysql.sh: cannot install ${PINS[*]} from PyPI (log above)"
        echo "0 passed, 1 failed"
        exit 1
    fi
    echo "${PINS[*]}" >"$venv/.pins"
fi
echo "PyMySQL $("$venv/bin/python" -c 'import pymysql; print(pymysql.__version__)')"

serve_start sha2 || exit 1
serve_start native --auth mysql_native_password || exit 1
"$venv/bin/python" "$HERE/pymysql_check.py" "$sha2_PORT" "$native_PORT" >"$WORK/pymysql.out" 2>&1
count_client_lines "$WORK/pymysql.out"
check_auth_paths pymysql
summary
