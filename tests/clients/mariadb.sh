#!/usr/bin/env bash
# The `mariadb` command-line client and `mariadb-admin` (Debian package
# mariadb-client) against `cdcharness serve`: both password plugins, with
# and without TLS, the variable / binlog / catalogue queries, a wrong
# password, an unknown statement, COM_PING / COM_STATISTICS.
#
#   tests/clients/mariadb.sh CDCHARNESS_BIN [WORKDIR]
#
# Prints "N passed, N failed"; exits non-zero on any failure.
set -u
BIN=${1:?usage: mariadb.sh CDCHARNESS_BIN [WORKDIR]}
WORK=${2:-$(dirname "$BIN")/clients}
mkdir -p "$WORK"
. "$(dirname "$0")/serve_lib.sh"

MARIADB=$(command -v mariadb || command -v mysql)
ADMIN=$(command -v mariadb-admin || command -v mysqladmin)
if [ -z "$MARIADB" ]; then
    echo "mariadb.sh: the mariadb client is needed (Debian package mariadb-client; scripts/setup.sh installs it)"
    echo "0 passed, 1 failed"
    exit 1
fi

serve_start sha2 || exit 1
serve_start native --auth mysql_native_password || exit 1

q() { # PORT TLS(ssl|skip-ssl) SQL... -> stdout (batch, no headers)
    local port=$1 tls=$2
    shift 2
    "$MARIADB" -h127.0.0.1 -P"$port" -ucdch -pcdch --"$tls" --batch --skip-column-names --connect-timeout=30 -e "$*"
}

expect() { # NAME WANT PORT TLS SQL
    local name=$1 want=$2 got
    shift 2
    if got=$(q "$@" 2>&1) && [ "$got" = "$want" ]; then
        check_ok "$name"
    else
        check_fail "$name" "got '$got', want '$want'"
    fi
}

run_queries() { # LABEL PORT TLS
    local l=$1 port=$2 tls=$3
    local tab=$'\t'
    expect "$l: identity" "8.0.36${tab}7${tab}${UUID}${tab}ON${tab}ROW${tab}CRC32" "$port" "$tls" \
        "SELECT @@version, @@server_id, @@server_uuid, @@GLOBAL.gtid_mode, @@binlog_format, @@global.binlog_checksum"
    local size
    size=$(q "$port" "$tls" "SHOW BINARY LOGS" 2>&1 | cut -f2)
    if [[ $size =~ ^[0-9]+$ ]] && [ "$size" -gt 1000 ]; then
        check_ok "$l: show binary logs (binlog.000001, $size bytes)"
    else
        check_fail "$l: show binary logs" "$size"
    fi
    expect "$l: show master status" "binlog.000001${tab}${size}${tab}${tab}${tab}${UUID}:1-7" "$port" "$tls" \
        "SHOW MASTER STATUS"
    expect "$l: show variables" "binlog_row_image${tab}FULL" "$port" "$tls" \
        "SHOW GLOBAL VARIABLES LIKE 'binlog_row_image'"
    expect "$l: show binlog events" "binlog.000001${tab}4${tab}Format_desc${tab}7${tab}126${tab}Server ver: 8.0.36, Binlog ver: 4" \
        "$port" "$tls" "SHOW BINLOG EVENTS LIMIT 1"
    expect "$l: user variables" "CRC32" "$port" "$tls" \
        "SET @master_binlog_checksum = @@global.binlog_checksum; SELECT @master_binlog_checksum"
    expect "$l: information_schema" $'id\ntotal\nnote\nplaced' "$port" "$tls" \
        "SELECT COLUMN_NAME FROM information_schema.COLUMNS WHERE TABLE_SCHEMA='shop' AND TABLE_NAME='orders' ORDER BY ORDINAL_POSITION"
    local cipher
    cipher=$(q "$port" "$tls" "SHOW SESSION STATUS LIKE 'Ssl_cipher'" 2>&1 | cut -f2)
    if { [ "$tls" = ssl ] && [ -n "$cipher" ]; } || { [ "$tls" = skip-ssl ] && [ -z "$cipher" ]; }; then
        check_ok "$l: TLS state (cipher '${cipher}')"
    else
        check_fail "$l: TLS state" "Ssl_cipher '$cipher' with --$tls"
    fi
    local err
    err=$(q "$port" "$tls" "FROBNICATE the server" 2>&1)
    if [ $? -ne 0 ] && [[ $err == *"ERROR 1064 (42000)"*"does not support this statement: 'FROBNICATE the server'"* ]]; then
        check_ok "$l: unknown statement -> ERR 1064"
    else
        check_fail "$l: unknown statement" "$err"
    fi
    err=$("$MARIADB" -h127.0.0.1 -P"$port" -ucdch -pwrong --"$tls" -e "SELECT 1" 2>&1)
    if [ $? -ne 0 ] && [[ $err == *"ERROR 1045 (28000): Access denied for user 'cdch'@'127.0.0.1' (using password: YES)"* ]]; then
        check_ok "$l: wrong password -> ERR 1045"
    else
        check_fail "$l: wrong password" "$err"
    fi
}

# caching_sha2_password: a fresh server -> full authentication (RSA without TLS),
# FLUSH PRIVILEGES -> full authentication over TLS, then the fast path.
run_queries "sha2, no TLS" "$sha2_PORT" skip-ssl
q "$sha2_PORT" ssl "FLUSH PRIVILEGES" >/dev/null 2>&1
run_queries "sha2, TLS" "$sha2_PORT" ssl
check_auth_paths mariadb
run_queries "native, no TLS" "$native_PORT" skip-ssl
run_queries "native, TLS" "$native_PORT" ssl

if [ -n "$ADMIN" ]; then
    out=$("$ADMIN" -h127.0.0.1 -P"$native_PORT" -ucdch -pcdch ping 2>&1)
    [[ $out == *"is alive"* ]] && check_ok "mariadb-admin ping (COM_PING)" || check_fail "mariadb-admin ping" "$out"
    out=$("$ADMIN" -h127.0.0.1 -P"$native_PORT" -ucdch -pcdch status 2>&1)
    [[ $out == Uptime:* ]] && check_ok "mariadb-admin status (COM_STATISTICS)" || check_fail "mariadb-admin status" "$out"
    out=$("$ADMIN" -h127.0.0.1 -P"$native_PORT" -ucdch -pcdch variables 2>&1)
    [[ $out == *"gtid_executed"*"${UUID}:1-7"* ]] && check_ok "mariadb-admin variables" ||
        check_fail "mariadb-admin variables" "$(echo "$out" | head -5)"
fi
summary
