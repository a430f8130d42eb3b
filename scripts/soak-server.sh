#!/usr/bin/env bash
# The fake primary's soak: many real replicas at once against one `cdcharness serve`, with cuts,
# slow readers and bad packets mixed in, for minutes (issue 26 item 5). The full soak is run by
# hand; CTest's soak_server_smoke runs a short one (--replicas 8 --duration 20, ~25-35 s).
#
#   scripts/soak-server.sh [--replicas 64] [--duration 600] [--scenario scenarios/rotation.yaml]
#                          [--rss-bound-mib 8] [--bin build/cdcharness] [--no-java] [--keep]
#
# What runs (tests/clients/soak_replicas.py has the details): `cdcharness gen` writes the
# scenario's stream (compressed) once; `cdcharness serve --stream-dir` serves it on 127.0.0.1, a
# free port; REPLICAS replica slots run for DURATION seconds, each again and again: an eighth each
# (at least one) mysql-binlog-connector-java 0.41.0 (Maven Central, one JVM, a thread per slot),
# `cdcharness record --until-end`, PyMySQL slow readers, cutters (gone before the greeting,
# mid-handshake, after login or mid-dump, by FIN or RST) and bad-packet senders (garbage
# handshakes, a 16 MiB length header and silence, malformed dump / GTID / register commands,
# unknown commands, a wrong password); the rest PyMySQL 1.1.1 dumps at full speed.
#
# Checks (any failure: exit 1):
#   - every well-behaved replica (PyMySQL, slow, record, Java) received the stream byte for byte,
#     every time; every cutter's bytes are a prefix of it; every bad packet got ERR or a close
#     within 30 s (for the length header, connect_timeout's 10 s and slack); each kind ran and passed
#   - flat memory: the server's RSS (/proc/PID/status VmRSS, sampled every second) in the second
#     half of the run never exceeds its peak during the warm-up (the first 20 % of the run, at
#     least 10 s) by more than max(RSS_BOUND_MIB, 20 % of that peak); not judged for a server
#     built with AddressSanitizer (libasan in its maps: ASan's allocator keeps freed blocks)
#   - no leaked descriptor or thread: /proc/PID/fd and /proc/PID/task counted before the first
#     client and after the last one disconnected are equal
#   - the server is still alive at the end and stops on SIGTERM with status 0
# Prints a summary (replicas, connections, bytes served, per-kind pass/fail, RSS start/peak/end,
# fds/threads before/after); the figures, samples included, are in WORK/summary.json
# (WORK = $CDCH_SOAK_DIR or a temporary directory, removed at the end unless --keep).
# Needs python3 (venv), and for the Java kind java 17 + mvn (or --no-java); PyMySQL is installed
# from PyPI into build/clients/venv-pymysql (as tests/clients/pymysql.sh does).
# Exit status: 0 all checks passed, 1 a check failed, 2 usage or setup error.
set -u
cd "$(dirname "$0")/.." || exit 2
SRC=$(pwd)
REPLICAS=64
DURATION=600
SCENARIO=scenarios/rotation.yaml
RSS_BOUND_MIB=8
BIN=build/cdcharness
JAVA=1
KEEP=0
usage() { sed -n '2,7p' "$0" >&2; exit 2; }
while [ $# -gt 0 ]; do
    case $1 in
    --replicas) REPLICAS=${2:?}; shift 2 ;;
    --duration) DURATION=${2:?}; shift 2 ;;
    --scenario) SCENARIO=${2:?}; shift 2 ;;
    --rss-bound-mib) RSS_BOUND_MIB=${2:?}; shift 2 ;;
    --bin) BIN=${2:?}; shift 2 ;;
    --no-java) JAVA=0; shift ;;
    --keep) KEEP=1; shift ;;
    -h | --help) usage ;;
    *) echo "soak-server.sh: unknown option '$1'" >&2; usage ;;
    esac
done
case "$REPLICAS$DURATION$RSS_BOUND_MIB" in *[!0-9]*) echo "soak-server.sh: --replicas, --duration and --rss-bound-mib take whole numbers" >&2; exit 2 ;; esac
[ "$REPLICAS" -ge 6 ] || { echo "soak-server.sh: --replicas must be at least 6 (one replica of each kind)" >&2; exit 2; }
[ -x "$BIN" ] || { echo "soak-server.sh: $BIN not found; build first (cmake --build build) or pass --bin" >&2; exit 2; }
BIN=$(cd "$(dirname "$BIN")" && pwd)/$(basename "$BIN")
CLIENTS=$(dirname "$BIN")/clients
mkdir -p "$CLIENTS"
if [ -n "${CDCH_SOAK_DIR:-}" ]; then
    WORK=$CDCH_SOAK_DIR
    mkdir -p "$WORK"
else
    WORK=$(mktemp -d "${TMPDIR:-/tmp}/cdch-soak-server.XXXXXX")
fi

SERVE_PID=
cleanup() {
    if [ -n "$SERVE_PID" ]; then
        kill -TERM -- "-$SERVE_PID" 2>/dev/null
        for _ in $(seq 50); do kill -0 "$SERVE_PID" 2>/dev/null || break; sleep 0.1; done
        kill -KILL -- "-$SERVE_PID" 2>/dev/null
    fi
    if [ -n "${DRIVER_PID:-}" ]; then
        kill -TERM -- "-$DRIVER_PID" 2>/dev/null
        sleep 0.5
        kill -KILL -- "-$DRIVER_PID" 2>/dev/null
    fi
    [ "$KEEP" = 1 ] || [ -n "${CDCH_SOAK_DIR:-}" ] || rm -rf "$WORK"
}
trap cleanup EXIT
trap 'exit 2' INT TERM

# PyMySQL (the pins of tests/clients/pymysql.sh: the same venv)
PINS=(PyMySQL==1.1.1 cryptography==44.0.0)
venv=$CLIENTS/venv-pymysql
if [ "$(cat "$venv/.pins" 2>/dev/null)" != "${PINS[*]}" ]; then
    rm -rf "$venv"
    if ! python3 -m venv "$venv" >"$WORK/pymysql-install.log" 2>&1 ||
        ! "$venv/bin/pip" install -q --disable-pip-version-check "${PINS[@]}" >>"$WORK/pymysql-install.log" 2>&1; then
        cat "$WORK/pymysql-install.log" >&2
        echo "soak-server.sh: cannot install ${PINS[*]} from PyPI (log above)" >&2
        exit 2
    fi
    echo "${PINS[*]}" >"$venv/.pins"
fi

# mysql-binlog-connector-java (tests/clients/soakjava/pom.xml pins it)
JAVA_ARGS=()
if [ "$JAVA" = 1 ]; then
    for tool in java mvn; do
        command -v $tool >/dev/null || { echo "soak-server.sh: $tool is needed for the Java replicas (Java 17 and Maven), or pass --no-java" >&2; exit 2; }
    done
    jout=$CLIENTS/soakjava
    # built already and the sources unchanged: no Maven run (its start-up alone takes ~20 s)
    if [ -f "$jout/classes/SoakReplica.class" ] && [ -f "$jout/classpath.txt" ] &&
        [ -z "$(find "$SRC/tests/clients/soakjava" -newer "$jout/classpath.txt" -type f)" ]; then
        :
    elif ! mvn -q -B -f "$SRC/tests/clients/soakjava/pom.xml" -Dcdch.build.dir="$jout" compile \
            dependency:build-classpath -Dmdep.outputFile="$jout/classpath.txt" >"$WORK/java-build.log" 2>&1; then
        cat "$WORK/java-build.log" >&2
        echo "soak-server.sh: mvn build of tests/clients/soakjava failed (log above)" >&2
        exit 2
    fi
    JAVA_ARGS=(--java-cp "$jout/classes:$(cat "$jout/classpath.txt")")
fi

# the stream, generated once; the server serves exactly these files
rm -rf "${WORK:?}/stream"
"$BIN" gen "$SCENARIO" --mode compressed --quiet --out "$WORK/stream" || { echo "soak-server.sh: cdcharness gen $SCENARIO failed" >&2; exit 2; }
setsid "$BIN" serve "$SCENARIO" --stream-dir "$WORK/stream" --port 0 --quiet >"$WORK/serve.out" 2>"$WORK/serve.err" &
SERVE_PID=$!
PORT=
for _ in $(seq 300); do
    PORT=$(sed -n 's/^listening on 127\.0\.0\.1:\([0-9][0-9]*\)$/\1/p' "$WORK/serve.out")
    [ -n "$PORT" ] && break
    kill -0 "$SERVE_PID" 2>/dev/null || break
    sleep 0.1
done
[ -n "$PORT" ] || { cat "$WORK/serve.err" >&2; echo "soak-server.sh: cdcharness serve did not start (its stderr above)" >&2; exit 2; }
echo "soak-server: $REPLICAS replicas for ${DURATION}s against cdcharness serve (pid $SERVE_PID, 127.0.0.1:$PORT), stream $SCENARIO; work dir $WORK" >&2

setsid "$venv/bin/python" "$SRC/tests/clients/soak_replicas.py" --port "$PORT" --stream "$WORK/stream" \
    --pid "$SERVE_PID" --replicas "$REPLICAS" --duration "$DURATION" --bin "$BIN" --work "$WORK" \
    "${JAVA_ARGS[@]}" >"$WORK/summary.json" 2>"$WORK/replicas.err" &
DRIVER_PID=$!
wait "$DRIVER_PID"
driver_rc=$?
DRIVER_PID=

alive=1
kill -0 "$SERVE_PID" 2>/dev/null || alive=0
stop_rc=
if [ "$alive" = 1 ]; then
    kill -TERM "$SERVE_PID"
    for _ in $(seq 300); do kill -0 "$SERVE_PID" 2>/dev/null || break; sleep 0.1; done
    if kill -0 "$SERVE_PID" 2>/dev/null; then
        stop_rc="still running 30 s after SIGTERM"
        kill -KILL -- "-$SERVE_PID" 2>/dev/null
    fi
    wait "$SERVE_PID"
    rc=$?
    [ -n "$stop_rc" ] || [ "$rc" = 0 ] || stop_rc="exit status $rc after SIGTERM"
fi
SERVE_PID=

python3 - "$WORK/summary.json" "$driver_rc" "$alive" "${stop_rc:-}" "$RSS_BOUND_MIB" "$WORK/replicas.err" "$WORK/serve.err" <<'EOF'
import json, sys
path, driver_rc, alive, stop_rc, bound_mib, errs, serve_err = sys.argv[1:]
fails = []
try:
    d = json.load(open(path))
except (OSError, ValueError) as e:
    print("soak-server: no summary from the replicas (%s); their stderr:" % e)
    print(open(errs).read()[-3000:])
    sys.exit(1)
mib = lambda k: "%.1f MiB" % (k / 1024)
S = [s for s in d["samples"] if "rss_kib" in s]
t0, t1 = S[0]["t"], S[-1]["t"]
warm = max(10.0, 0.2 * (t1 - t0))
warm_peak = max(s["rss_kib"] for s in S if s["t"] - t0 <= warm)
late = [s["rss_kib"] for s in S if s["t"] - t0 >= (t1 - t0) / 2] or [S[-1]["rss_kib"]]
limit = warm_peak + max(int(bound_mib) * 1024, warm_peak // 5)
peak = max(s["rss_kib"] for s in S)
b, a = d["before"], d["after"]
total = sum(k["bytes"] for k in d["kinds"].values())
print("soak-server: %d replicas (%s), %.0f s, %d client connections, %.1f MiB of binlog received by replicas"
      " (stream %d bytes per whole dump)" % (d["replicas"], ", ".join("%s %d" % kv for kv in d["plan"].items()),
                                               d["wall_s"], d["connections"], total / 2 ** 20, d["stream_bytes"]))
for name, k in d["kinds"].items():
    if not k["slots"]:
        continue
    ok = k["fail"] == 0 and k["pass"] > 0
    print("  %-8s %-4s %3d slots, %6d runs: %6d pass, %d fail, %.1f MiB" % (
        name, "PASS" if ok else "FAIL", k["slots"], k["runs"], k["pass"], k["fail"], k["bytes"] / 2 ** 20))
    if k["variants"]:
        print("           " + ", ".join("%s %d" % kv for kv in sorted(k["variants"].items())))
    if not ok:
        fails.append("%s: %d of %d runs failed%s" % (name, k["fail"], k["runs"], "" if k["runs"] else " (none ran)"))
        for f in k["failures"][:5]:
            print("      " + f)
print("  RSS: start %s, warm-up peak %s, peak %s, second-half peak %s, end %s (bound %s)" % (
    mib(S[0]["rss_kib"]), mib(warm_peak), mib(peak), mib(max(late)), mib(a["rss_kib"]), mib(limit)))
if d.get("asan"):
    print("  RSS not judged: the server runs ASan's allocator (freed blocks wait in its quarantine)")
elif max(late) > limit:
    fails.append("RSS grew: second-half peak %s > warm-up peak %s + bound" % (mib(max(late)), mib(warm_peak)))
print("  fds: %d before, %d after; threads: %d before, %d after (peak %d fds, %d threads)" % (
    b["fds"], a["fds"], b["threads"], a["threads"], max(s["fds"] for s in S), max(s["threads"] for s in S)))
if a["fds"] != b["fds"]:
    fails.append("file descriptors: %d before, %d after every client disconnected" % (b["fds"], a["fds"]))
if a["threads"] != b["threads"]:
    fails.append("threads: %d before, %d after every client disconnected" % (b["threads"], a["threads"]))
if alive != "1":
    fails.append("the server died during the soak (its stderr: %s)" % serve_err)
if stop_rc:
    fails.append("the server did not stop cleanly: %s" % stop_rc)
if driver_rc not in ("0", "1"):
    fails.append("the replica driver exited with status %s (%s)" % (driver_rc, errs))
for f in fails:
    print("FAIL " + f)
print("soak-server: %s" % ("PASS" if not fails else "FAIL (%d)" % len(fails)))
sys.exit(1 if fails else 0)
EOF
