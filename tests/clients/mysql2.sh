#!/usr/bin/env bash
# mysql2 (npm, pinned; what @vlasky/zongji >= 0.6 and many Node apps use)
# against `cdcharness serve`: both password plugins with and without TLS,
# zongji's queries, prepared statements (COM_STMT_PREPARE/EXECUTE), KILL, a
# wrong password, an unknown statement.
#
#   tests/clients/mysql2.sh CDCHARNESS_BIN [WORKDIR]
#
# Installs into WORKDIR/node-mysql2 (default WORKDIR: <dir of
# CDCHARNESS_BIN>/clients, i.e. under build/); prints "N passed, N failed".
set -u
BIN=${1:?usage: mysql2.sh CDCHARNESS_BIN [WORKDIR]}
WORK=${2:-$(dirname "$BIN")/clients}
mkdir -p "$WORK"
. "$(dirname "$0")/serve_lib.sh"

PIN=mysql2@3.11.3
dir=$WORK/node-mysql2
command -v node >/dev/null && command -v npm >/dev/null || {
    echo "mysql2.sh: node and npm are needed"
    echo "0 passed, 1 failed"
    exit 1
}
if [ "$(cat "$dir/.pin" 2>/dev/null)" != "$PIN" ]; then
    rm -rf "$dir"
    mkdir -p "$dir"
    if ! (cd "$dir" && npm install --silent --no-audit --no-fund --prefix "$dir" "$PIN") >"$WORK/mysql2-install.log" 2>&1; then
        cat "$WORK/mysql2-install.log"
        echo "mysql2.sh: cannot install $PIN from npm (log above)"
        echo "0 passed, 1 failed"
        exit 1
    fi
    echo "$PIN" >"$dir/.pin"
fi
echo "$PIN, node $(node --version)"

serve_start sha2 || exit 1
serve_start native --auth mysql_native_password || exit 1
NODE_PATH=$dir/node_modules node "$HERE/mysql2_check.js" "$sha2_PORT" "$native_PORT" >"$WORK/mysql2.out" 2>&1
count_client_lines "$WORK/mysql2.out"
check_auth_paths mysql2
summary
