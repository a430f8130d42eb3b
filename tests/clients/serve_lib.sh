# serve_lib.sh — sourced by the tests that run `cdcharness serve` and other programs in the
# background: the real-client tests (tests/clients/<client>.sh) and the consumer adapter tests
# (tests/consumers_go_c.sh, tests/consumers_py_node.sh, through tests/lib/consumer_e2e.sh).
#
# Background programs, each in its own process group (stopping one ends its children too):
#   spawn CMD...                           runs CMD in the background; SPAWNED = its pid
#   stop_pid PID                           SIGTERM to its group, SIGKILL after 5 s, reaped
#   serve_stop_all                         stops every program still running (also on exit)
# The fake primary, on a free port (port 0, the "listening on" line read back):
#   serve_start NAME [serve options...]    `cdcharness serve $SCENARIO --mode $SERVE_MODE
#                                          --port 0 --log-queries OPTIONS`; sets NAME_PORT,
#                                          NAME_LOG (its stderr) and NAME_PID; returns 1 when it
#                                          did not start (its log on stderr)
# Checks:
#   check_ok NAME / check_fail NAME DETAIL
#   count_client_lines FILE                PASS/FAIL lines a client printed
#   log_has NAME TEXT                      the server's --log-queries output
#   summary                                "N passed, N failed"; returns 1 on failures
# Needs: BIN (the cdcharness binary), WORK (scratch directory). Optional: SCENARIO (default
# tests/data/server.yaml), SERVE_MODE (default compressed), SERVE_QUIET=1 (no "serve NAME: port"
# line).

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
BIN=$(cd "$(dirname "$BIN")" && pwd)/$(basename "$BIN")
mkdir -p "$WORK"
WORK=$(cd "$WORK" && pwd)
SCENARIO=${SCENARIO:-$HERE/../data/server.yaml}
SERVE_MODE=${SERVE_MODE:-compressed}
UUID=5f4b2a10-8c3d-11ee-b9d1-0242ac120002
passed=0
failed=0
_spawned=()

check_ok() { passed=$((passed + 1)); echo "  ok   $1"; }
check_fail() {
    failed=$((failed + 1))
    echo "  FAIL $1${2:+: $2}"
}

spawn() { # CMD... (stdin/stdout/stderr as the caller redirects them)
    setsid "$@" &
    SPAWNED=$!
    _spawned+=("$SPAWNED")
}

stop_pid() { # PID
    local p=$1 i q keep=()
    kill -TERM -- "-$p" 2>/dev/null || kill -TERM "$p" 2>/dev/null
    for i in $(seq 50); do
        kill -0 "$p" 2>/dev/null || break
        sleep 0.1
    done
    kill -KILL -- "-$p" 2>/dev/null || kill -KILL "$p" 2>/dev/null
    wait "$p" 2>/dev/null
    for q in "${_spawned[@]}"; do [ "$q" = "$p" ] || keep+=("$q"); done
    _spawned=("${keep[@]}")
}

serve_start() { # NAME [options...]
    local name=$1
    shift
    local tag
    tag=$(basename "$0" .sh)
    local log=$WORK/$tag-serve-$name.log out=$WORK/$tag-serve-$name.out
    spawn "$BIN" serve "$SCENARIO" --mode "$SERVE_MODE" --port 0 --log-queries "$@" >"$out" 2>"$log"
    local pid=$SPAWNED
    printf -v "${name}_PID" '%s' "$pid"
    printf -v "${name}_LOG" '%s' "$log"
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
    [ -n "${SERVE_QUIET:-}" ] || echo "serve $name: port $port ($*)"
}

serve_stop_all() {
    local p
    for p in "${_spawned[@]}"; do
        kill -TERM -- "-$p" 2>/dev/null || kill -TERM "$p" 2>/dev/null
    done
    for p in "${_spawned[@]}"; do
        stop_pid "$p"
    done
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
