# consumer_e2e.sh — sourced by tests/consumers_go_c.sh and tests/consumers_py_node.sh: runs
# consumer adapters the way the harness does (consumers/README.md: setup once into a cache dir,
# then the manifest's run command with the CDCH_* environment) against `cdcharness serve` or the
# generated binlog files, with the process handling and check counting of
# tests/clients/serve_lib.sh (every program in its own process group, all stopped on exit).
#
#   e2e_init NAME CDCHARNESS_BIN SCENARIO
#       checks the binary and the scenario (exit 2 when unusable, 1 when `serve` is broken),
#       makes the scratch directory $tmp (removed on exit, in the background, unless
#       CONSUMERS_KEEP=1) and generates the scenario: $gen/<mode>/ (binlogs, expected.jsonl),
#       $databases, $first_file.
#   check_ok LABEL / bad LABEL [DETAIL...]   a check passed / failed (empty details are dropped)
#   setup FAMILY VERSION SETUP_CMD...        installs FAMILY VERSION into $cache/FAMILY/VERSION
#                                            once (run in consumers/FAMILY, a .ok stamp; under
#                                            flock $cache/FAMILY/VERSION.lock, the harness's lock,
#                                            so concurrent jobs install a version once);
#                                            0 if installed
#   run_adapter FAMILY VERSION SOURCE MODE WANT OUT CMD...
#       runs CMD ({cache} = the version's cache dir) in consumers/FAMILY, stdout to OUT, stderr
#       to OUT.err. SOURCE server: against a fresh `cdcharness serve $scenario --mode MODE` (account
#       cdch/cdch with the plugin $serve_auth; its log is $srv_LOG); files: against $gen/MODE.
#       Stops it after WANT change events and 2 s idle, an error line and 1 s idle (with
#       E2E_ERROR_WAITS_FOR_ROWS=1: and WANT events), its exit, 5 s idle after ready, or 60 s.
#       Returns 1 when the server did not start (the reason in OUT.err).
#   e2e_job NAME CMD...                      runs CMD (a function) in a background subshell
#                                            with its own checks, programs and scratch
#                                            directory ($WORK), its output kept in a file; at
#                                            most $E2E_JOBS at once (waits for a free slot)
#   e2e_wait                                 waits for every job, in the order they were
#                                            started, printing each one's output and adding
#                                            its checks; a job that did not end normally (no
#                                            count of its checks) is a failed check
#   summary                                  "N passed, N failed"; 0 only without failures
# Environment: CONSUMERS_CACHE = reuse this setup cache (default: $tmp/cache); CONSUMERS_JOBS =
# E2E_JOBS, jobs at once (default 4: a job mostly waits on its adapter and fake primary).

E2E_LIB=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
declare -A setup_ok
serve_auth=caching_sha2_password # the account's plugin (MySQL 8's default)

e2e_init() { # NAME BIN SCENARIO
    e2e_name=$1 bin=$2 scenario=$3
    [ -x "$bin" ] || { echo "$e2e_name: $bin is not executable" >&2; exit 2; }
    [ -f "$scenario" ] || { echo "$e2e_name: no scenario $scenario" >&2; exit 2; }
    if ! "$bin" serve --help >/dev/null 2>&1; then
        echo "$e2e_name: '$(basename "$bin") serve --help' failed: the fake primary is missing or broken" >&2
        exit 1
    fi
    command -v python3 >/dev/null || { echo "$e2e_name: python3 is needed" >&2; exit 2; }
    bin=$(cd "$(dirname "$bin")" && pwd)/$(basename "$bin")
    scenario=$(cd "$(dirname "$scenario")" && pwd)/$(basename "$scenario")
    consumers=$(cd "$E2E_LIB/../../consumers" && pwd)
    tmp=$(mktemp -d "${TMPDIR:-/tmp}/$e2e_name.XXXXXX")
    cache=${CONSUMERS_CACHE:-$tmp/cache}
    BIN=$bin WORK=$tmp SCENARIO=$scenario SERVE_QUIET=1
    . "$E2E_LIB/../clients/serve_lib.sh"
    trap e2e_cleanup EXIT
    trap 'exit 130' INT TERM

    gen=$tmp/gen
    if ! "$bin" gen "$scenario" --mode both --quiet --out "$gen" >"$tmp/gen.log" 2>&1; then
        cat "$tmp/gen.log"
        echo "$e2e_name: cdcharness gen failed"
        echo "0 passed, 1 failed"
        exit 1
    fi
    databases=$(python3 -c '
import json, sys
seen = []
for l in open(sys.argv[1]):
    r = json.loads(l)
    if "op" in r and r["db"] not in seen:
        seen.append(r["db"])
print(",".join(seen))' "$gen/uncompressed/expected.jsonl")
    first_file=$(head -1 "$gen/uncompressed/"*.index | sed 's#^\./##')
}

e2e_cleanup() {
    e2e_stop_jobs
    serve_stop_all
    if [ -n "${CONSUMERS_KEEP:-}" ]; then
        echo "$e2e_name: kept $tmp"
    else
        # deleted in the background, detached: the installs in $tmp/cache (venvs, node_modules:
        # some 400 MB, tens of thousands of files) take up to a minute to delete on a busy disk,
        # which no check waits for
        setsid rm -rf "$tmp" </dev/null >/dev/null 2>&1 &
    fi
}

bad() { # LABEL [DETAIL...]
    check_fail "$1"
    shift
    local l
    for l in "$@"; do [ -n "$l" ] && echo "       $l"; done
    return 0
}

setup() { # FAMILY VERSION SETUP_CMD... -> 0 if installed
    local fam=$1 ver=$2 dir="$cache/$1/$2"
    shift 2
    local key="$fam/$ver"
    if [ -n "${setup_ok[$key]:-}" ]; then return "${setup_ok[$key]}"; fi
    local log="$tmp/setup.$fam.$ver.log"
    mkdir -p "$dir"
    {
        flock 9
        if [ -f "$dir/.ok" ] || (cd "$consumers/$fam" && "$@" "$ver" "$dir") >"$log" 2>&1 9>&-; then
            touch "$dir/.ok"
            setup_ok[$key]=0
        else
            bad "$fam $ver: setup failed" "$(tail -5 "$log")"
            setup_ok[$key]=1
        fi
    } 9>"$dir.lock"
    return "${setup_ok[$key]}"
}

# ------------------------------------------------------------ jobs
E2E_JOBS=${CONSUMERS_JOBS:-4}
_job_pids=() _job_names=() _job_dirs=()

_job_running() { # -> the number of jobs still running
    local p n=0
    for p in "${_job_pids[@]}"; do kill -0 "$p" 2>/dev/null && n=$((n + 1)); done
    echo "$n"
}

e2e_job() { # NAME CMD...
    local name=$1
    shift
    while [ "$(_job_running)" -ge "$E2E_JOBS" ]; do sleep 0.2; done
    local d="$tmp/jobs/${#_job_pids[@]}"
    mkdir -p "$d"
    (
        # this job's own checks and programs; the programs are stopped when it ends
        WORK=$d passed=0 failed=0 _spawned=()
        trap serve_stop_all EXIT
        trap 'exit 130' INT TERM
        "$@"
        serve_stop_all
        echo "$passed $failed" >"$d/counts"
    ) >"$d/out" 2>&1 </dev/null &
    _job_pids+=("$!")
    _job_names+=("$name")
    _job_dirs+=("$d")
}

e2e_wait() {
    local i p d rc c
    for i in "${!_job_pids[@]}"; do
        p=${_job_pids[$i]} d=${_job_dirs[$i]}
        [ -n "$p" ] || continue
        rc=0
        wait "$p" || rc=$?
        _job_pids[$i]=
        cat "$d/out"
        if [ $rc -eq 0 ] && read -r c <"$d/counts" 2>/dev/null && [[ $c =~ ^[0-9]+\ [0-9]+$ ]]; then
            passed=$((passed + ${c% *}))
            failed=$((failed + ${c#* }))
        else
            bad "job ${_job_names[$i]}: ended with status $rc before counting its checks"
        fi
    done
}

e2e_stop_jobs() { # on exit: what is still running (each job stops its own programs)
    local p
    # the job's shell runs its trap once its foreground command ended: that command too
    for p in "${_job_pids[@]}"; do [ -n "$p" ] && kill -TERM "$p" 2>/dev/null && pkill -TERM -P "$p"; done
    for p in "${_job_pids[@]}"; do [ -n "$p" ] && wait "$p" 2>/dev/null; done
    return 0
}

run_adapter() { # FAMILY VERSION SOURCE MODE WANT OUT CMD...
    local fam=$1 ver=$2 source=$3 mode=$4 want=$5 out=$6
    shift 6
    local dir="$cache/$fam/$ver" state="$tmp/state.$fam.$ver.$mode${OUT_TAG:+.$OUT_TAG}"
    mkdir -p "$state"
    local envs=(CDCH_SERVER_ID=$((1000 + RANDOM % 9000)) CDCH_START_FILE="$first_file" CDCH_START_POS=4
                CDCH_DATABASES="$databases" CDCH_STATE_DIR="$state" CDCH_CACHE="$dir" CDCH_VERSION="$ver"
                CDCH_USER=cdch CDCH_PASSWORD=cdch)
    srv_PID=
    if [ "$source" = server ]; then
        SERVE_MODE=$mode
        if ! serve_start srv --user cdch --password cdch --quiet --auth "$serve_auth" 2>/dev/null; then
            echo "cdcharness serve did not report its port: $(tail -3 "$srv_LOG")" >"$out.err"
            : >"$out"
            [ -n "$srv_PID" ] && stop_pid "$srv_PID"
            return 1
        fi
        envs+=(CDCH_HOST=127.0.0.1 CDCH_PORT="$srv_PORT")
    else
        envs+=(CDCH_BINLOG_DIR="$gen/$mode" CDCH_BINLOG_FILES="$(sed 's#^\./##' "$gen/$mode"/*.index | tr '\n' ' ')")
    fi
    local cmd=() a
    for a in "$@"; do cmd+=("${a//\{cache\}/$dir}"); done
    spawn env -C "$consumers/$fam" "${envs[@]}" "${cmd[@]}" >"$out" 2>"$out.err"
    local apid=$SPAWNED
    local t=0 last=-1 idle=0 n size seen=-1 rows=0 err=1 ready=1
    while [ $t -lt 600 ]; do
        sleep 0.1
        t=$((t + 1))
        read -r n size <<<"$(wc -lc <"$out")"
        if [ "$n" != "$last" ]; then last=$n; idle=0; else idle=$((idle + 1)); fi
        kill -0 "$apid" 2>/dev/null || break
        # OUT only grows (the adapter's stdout): grepped again when its size changed
        if [ "$size" != "$seen" ]; then
            seen=$size
            rows=$(grep -c '"op"' "$out")
            grep -q '"kind":"error"' "$out"
            err=$?
            grep -q '"kind":"ready"' "$out"
            ready=$?
        fi
        if [ $err -eq 0 ] && [ $idle -ge 10 ]; then
            [ -z "${E2E_ERROR_WAITS_FOR_ROWS:-}" ] || [ "$rows" -ge "$want" ] && break
        fi
        [ "$rows" -ge "$want" ] && [ $idle -ge 20 ] && break
        [ $idle -ge 50 ] && [ $ready -eq 0 ] && break
    done
    stop_pid "$apid"
    [ -n "$srv_PID" ] && stop_pid "$srv_PID"
    return 0
}
