# serve_lib.sh — sourced by the real-client tests (tests/clients/<client>.sh).
#
# Starts `cdcharness serve` for tests/data/server.yaml on free ports (port 0,
# the "listening on" line read back), once per password plugin, and counts
# checks:
#   serve_start NAME [serve options...]   sets NAME_PORT and NAME_LOG
#   serve_stop_all                         SIGTERM + wait (also on exit)
#   check_ok NAME / check_fail NAME DETAIL
#   count_client_lines FILE                PASS/FAIL lines a client printed
#   log_has NAME TEXT                      the server's --log-queries output
#   summary                                "N passed, N failed"; returns 1 on failures
# Needs: BIN (the cdcharness binary), WORK (scratch directory under build/).

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
BIN=$(cd "$(dirname "$BIN")" && pwd)/$(basename "$BIN")
mkdir -p "$WORK"
WORK=$(cd "$WORK" && pwd)
SCENARIO=$HERE/../data/server.yaml
UUID=5f4b2a10-8c3d-11ee-b9d1-0242ac120002
passed=0
failed=0
_served_pids=()

check_ok() { passed=$((passed + 1)); echo "  ok   $1"; }
check_fail() {
    failed=$((failed + 1))
    echo "  FAIL $1${2:+: $2}"
}

serve_start() { # NAME [options...]
    local name=$1
    shift
    local tag
    tag=$(basename "$0" .sh)
    local log=$WORK/$tag-serve-$name.log out=$WORK/$tag-serve-$name.out
    "$BIN" serve "$SCENARIO" --mode compressed --port 0 --log-queries "$@" >"$out" 2>"$log" &
    local pid=$!
    _served_pids+=("$pid")
    local port=""
    for _ in $(seq 1 300); do
        port=$(sed -n 's/^listening on .*:\([0-9][0-9]*\)$/\1/p' "$out" 2>/dev/null)
        [ -n "$port" ] && break
        kill -0 "$pid" 2>/dev/null || break
        sleep 0.1
    done
    if [ -z "$port" ]; then
        echo "cdcharness serve ($name) did not start:" >&2
        cat "$log" >&2
        return 1
    fi
    printf -v "${name}_PORT" '%s' "$port"
    printf -v "${name}_LOG" '%s' "$log"
    echo "serve $name: port $port ($*)"
}

serve_stop_all() {
    local pid
    for pid in "${_served_pids[@]}"; do
        kill -TERM "$pid" 2>/dev/null
    done
    for pid in "${_served_pids[@]}"; do
        wait "$pid" 2>/dev/null
    done
    _served_pids=()
}
trap serve_stop_all EXIT

log_has() { # NAME TEXT
    local var=${1}_LOG
    grep -qF -- "$2" "${!var}"
}

count_client_lines() { # FILE: lines "PASS name" / "FAIL name: detail" from a client program
    local line
    while IFS= read -r line; do
        case $line in
        PASS\ *) check_ok "${line#PASS }" ;;
        FAIL\ *) check_fail "${line#FAIL }" ;;
        *) echo "       $line" ;;
        esac
    done <"$1"
}

# The authentication paths a client took, from the server's log.
check_auth_paths() { # CLIENT
    if log_has sha2 "caching_sha2_password full authentication with the RSA key pair"; then
        check_ok "$1: caching_sha2 full authentication without TLS (RSA key exchange)"
    else
        check_fail "$1: caching_sha2 full authentication without TLS (RSA key exchange)" "not in $sha2_LOG"
    fi
    if log_has sha2 "caching_sha2_password full authentication over TLS"; then
        check_ok "$1: caching_sha2 full authentication over TLS"
    else
        check_fail "$1: caching_sha2 full authentication over TLS" "not in $sha2_LOG"
    fi
    if log_has sha2 "caching_sha2_password fast path"; then
        check_ok "$1: caching_sha2 fast path"
    else
        check_fail "$1: caching_sha2 fast path" "not in $sha2_LOG"
    fi
}

summary() {
    serve_stop_all
    echo "$passed passed, $failed failed"
    [ "$failed" -eq 0 ] && [ "$passed" -gt 0 ]
}
