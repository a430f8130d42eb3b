#!/usr/bin/env bash
# Binlog dumps of the fake primary, seen by real replication clients and at
# the packet level (registered in CTest as dump_clients):
#
#   tests/dump_clients.sh CDCHARNESS_BIN [WORK_DIR]
#
# Streams: scenarios/rotation.yaml (several files), compressed and
# uncompressed; scenarios/payload-16mib.yaml (an event over 16 MiB);
# scenarios/gtid-on.yaml with purged GTIDs. Each is served by
# `cdcharness serve SCENARIO --stream-dir DIR --port 0` (faults by its options).
#
#  (a) go-mysql v1.16.0 replication.BinlogSyncer (tests/clients/gosync):
#      RawData of every event == the generated files' events, with the fake
#      ROTATE/FDE changes MySQL makes (tests/clients/expect_dump.py), by
#      position from the start, from the middle of a file, by GTID set; sees
#      heartbeats while idle; the >16 MiB payload arrives whole.
#  (b) python-mysql-replication (newest on PyPI, venv in WORK_DIR/..):
#      BinLogStreamReader by position, resumed mid-stream, by GTID set
#      (auto_position), heartbeats; its positions match the files.
#  (c) mariadb-binlog --read-from-remote-server (Debian mariadb-client): the
#      refusal a MySQL 8 server gets from it.
#  (d) tests/clients/rawdump.py: MySQL's errors for bad positions, files,
#      GTID sets and malformed packets, checksum negotiation, EOF, semi-sync,
#      heartbeats v1/v2, purged GTIDs, faults; the server keeps serving.
#
# Needs go, python3 (venv + PyPI for mysql-replication) and mariadb-binlog
# (scripts/setup.sh installs them; a missing one is a failure). Prints "N passed, N failed".
set -u
export PYTHONDONTWRITEBYTECODE=1 # no __pycache__ in the source tree

usage="usage: dump_clients.sh CDCHARNESS_BIN [WORK_DIR]"
bin=${1:?$usage}
here=$(cd "$(dirname "$0")" && pwd)
src=$(cd "$here/.." && pwd)
build=$(cd "$(dirname "$bin")" && pwd)
work=${2:-$(mktemp -d "${TMPDIR:-/tmp}/dump_clients.XXXXXX")}
mkdir -p "$work"
clients=$here/clients

passed=0
failed=0
pass() { passed=$((passed + 1)); echo "PASS $1"; }
fail() {
    failed=$((failed + 1))
    echo "FAIL $1"
    shift
    for line in "$@"; do echo "      $line"; done
}

pids=()
cleanup() {
    for p in "${pids[@]}"; do kill "$p" 2>/dev/null; done
    wait 2>/dev/null
    [ -n "${DUMP_CLIENTS_KEEP:-}" ] || rm -rf "$work"
}
trap cleanup EXIT

# start_server NAME SCENARIO STREAM_DIR [serve options...] -> sets port_NAME
start_server() {
    local name=$1 scen=$2 dir=$3
    shift 3
    local log=$work/server-$name.log
    "$bin" serve "$scen" --stream-dir "$dir" --port 0 --quiet "$@" >"$log.out" 2>"$log" &
    pids+=($!)
    local pid=$! port=""
    for _ in $(seq 1 300); do # up to 30 s (a loaded machine); not past the server's exit
        port=$(sed -n 's/^listening on 127\.0\.0\.1:\([0-9]*\)$/\1/p' "$log.out")
        [ -n "$port" ] && break
        kill -0 "$pid" 2>/dev/null || break
        sleep 0.1
    done
    if [ -z "$port" ]; then
        fail "server $name starts" "$(cat "$log")"
        return 1
    fi
    eval "port_$name=$port"
}

# ---- streams -----------------------------------------------------------------
"$bin" gen "$src/scenarios/rotation.yaml" --out "$work/rot" --mode both --quiet || { fail "gen rotation"; exit 1; }
"$bin" gen "$src/scenarios/payload-16mib.yaml" --out "$work/big" --mode compressed --quiet || { fail "gen payload-16mib"; exit 1; }
"$bin" gen "$src/scenarios/gtid-on.yaml" --out "$work/gtid" --mode uncompressed --quiet || { fail "gen gtid-on"; exit 1; }
rot=$src/scenarios/rotation.yaml
C=$work/rot/compressed
U=$work/rot/uncompressed
B=$work/big
last_file() { python3 -c "import json,sys;m=json.load(open(sys.argv[1]+'/stream.json'));print(m['files'][-1]['name'])" "$1"; }
last_size() { python3 -c "import json,sys;m=json.load(open(sys.argv[1]+'/stream.json'));print(m['files'][-1]['size'])" "$1"; }
file_n() { python3 -c "import json,sys;m=json.load(open(sys.argv[1]+'/stream.json'));print(m['files'][int(sys.argv[2])]['name'])" "$1" "$2"; }
executed() { python3 -c "import json,sys;print(json.load(open(sys.argv[1]+'/stream.json'))['gtid_executed'])" "$1"; }

# a copy of gtid-on whose first file says UUID:1-99 were purged (PREVIOUS_GTIDS)
python3 - "$work/gtid" "$work/purged" <<'EOF'
import json, os, shutil, struct, sys, zlib
src, dst = sys.argv[1], sys.argv[2]
os.makedirs(dst)
m = json.load(open(src + "/stream.json"))
for f in m["files"]:
    shutil.copy(os.path.join(src, f["name"]), os.path.join(dst, f["name"]))
shutil.copy(os.path.join(src, "binlog.index"), dst)
p = os.path.join(dst, m["files"][0]["name"])
data = open(p, "rb").read()
fde_len = struct.unpack_from("<I", data, 4 + 9)[0]
o = 4 + fde_len
plen = struct.unpack_from("<I", data, o + 9)[0]
uuid = bytes.fromhex(m["server_uuid"].replace("-", ""))
body = struct.pack("<Q", 1) + uuid + struct.pack("<QQQ", 1, 1, 100)
hdr = bytearray(data[o:o + 19])
struct.pack_into("<I", hdr, 9, 19 + len(body) + 4)
ev = bytes(hdr) + body
ev += struct.pack("<I", zlib.crc32(ev) & 0xffffffff)
open(p, "wb").write(data[:o] + ev + data[o + plen:])
m["files"][0]["size"] = os.path.getsize(p)
# gtid_executed holds what was purged: UUID:1-max(99, last GNO)
last = int(m["gtid_executed"].split("-")[-1]) if m["gtid_executed"] else 0
m["gtid_executed"] = "%s:1-%d" % (m["server_uuid"], max(99, last))
json.dump(m, open(dst + "/stream.json", "w"))
EOF

# the byte count that falls inside the first TRANSACTION_PAYLOAD of the compressed stream
python3 - "$C" "$clients" > "$work/rot/drop_bytes" <<'EOF'
import sys
sys.path.insert(0, sys.argv[2])
import expect_dump as X
d = sys.argv[1]
exp = [e for k, e in X.expected(d, X.stream_files(d)[1][0], 4, None, "CRC32") if k == "event"]
n = 0
for e in exp:
    if e[4] == 40:
        print(n + len(e) // 2)
        break
    n += len(e)
EOF

# ---- servers -----------------------------------------------------------------
start_server C "$rot" "$C" || exit 1
start_server U "$rot" "$U" || exit 1
start_server B "$src/scenarios/payload-16mib.yaml" "$B" || exit 1
start_server P "$src/scenarios/gtid-on.yaml" "$work/purged" || exit 1
start_server F1 "$rot" "$C" --unknown-event-at 3 --corrupt-checksum-at 5 --truncate-event-at 8 || exit 1
# the same fault asked for by the scenario itself (a `faults:` section) rather than by flags
rotf=$work/rot-faults.yaml
{ cat "$rot"; printf '\nfaults: {drop_after_events: 6, once: true}\n'; } >"$rotf"
start_server F2 "$rotf" "$C" || exit 1
start_server F3 "$rot" "$C" --drop-after-bytes "$(cat "$work/rot/drop_bytes")" || exit 1
start_server F4 "$rot" "$C" --stall-at 4 || exit 1

# ---- (a) go-mysql ------------------------------------------------------------
gosync=$build/gosync
if command -v go >/dev/null && (cd "$clients/gosync" && go build -o "$gosync" . 2>"$work/gobuild.log"); then
    for mode in C U; do
        dir=$(eval echo "\$$mode")
        port=$(eval echo "\$port_$mode")
        lf=$(last_file "$dir")
        ls=$(last_size "$dir")
        f0=$(file_n "$dir" 0)
        f1=$(file_n "$dir" 1)
        label=$([ $mode = C ] && echo compressed || echo uncompressed)
        out=$work/go-$mode-pos.jsonl
        if "$gosync" -addr "127.0.0.1:$port" -file "$f0" -pos 4 -heartbeat 150ms -until-file "$lf" -until-pos "$ls" \
            -heartbeats 2 -timeout 60s -out "$out" >"$work/go.log" 2>&1; then
            r=$(python3 "$clients/expect_dump.py" "$dir" "$out" --file "$f0" --pos 4 --declared NONE)
            [ $? = 0 ] && pass "go-mysql $label: by position from the start, RawData == files ($r)" \
                || fail "go-mysql $label: by position from the start" "$r"
            nhb=$(python3 -c "import json,sys;print(sum(1 for l in open(sys.argv[1]) if json.loads(l)['type']==27))" "$out")
            [ "$nhb" -ge 2 ] && pass "go-mysql $label: heartbeats while idle ($nhb)" || fail "go-mysql $label: heartbeats while idle" "$nhb"
        else
            fail "go-mysql $label: by position from the start" "$(tail -5 "$work/go.log")"
        fi
        mid=$(python3 -c "
import sys; sys.path.insert(0, sys.argv[2]); import expect_dump as X
e = X.read_events(sys.argv[1]); print(e[len(e) // 2][0])" "$dir/$f1" "$clients")
        out=$work/go-$mode-mid.jsonl
        if "$gosync" -addr "127.0.0.1:$port" -file "$f1" -pos "$mid" -flags 1 -until-file "$lf" -until-pos "$ls" \
            -timeout 60s -out "$out" >"$work/go.log" 2>&1; then
            r=$(python3 "$clients/expect_dump.py" "$dir" "$out" --file "$f1" --pos "$mid" --declared NONE)
            [ $? = 0 ] && pass "go-mysql $label: resume at $f1:$mid, non-blocking ($r)" || fail "go-mysql $label: resume at $f1:$mid" "$r"
        else
            fail "go-mysql $label: resume at $f1:$mid" "$(tail -5 "$work/go.log")"
        fi
        ex=$(executed "$dir")
        half="${ex%%:*}:1-$(( ${ex##*-} / 2 ))"
        for gs in "" "$half"; do
            out=$work/go-$mode-gtid.jsonl
            if "$gosync" -addr "127.0.0.1:$port" -gtid-mode -gtid "$gs" -heartbeat 30s -until-file "$lf" -until-pos "$ls" \
                -timeout 60s -out "$out" >"$work/go.log" 2>&1; then
                r=$(python3 "$clients/expect_dump.py" "$dir" "$out" --gtid "$gs" --declared NONE)
                [ $? = 0 ] && pass "go-mysql $label: by GTID set '$gs' ($r)" || fail "go-mysql $label: by GTID set '$gs'" "$r"
            else
                fail "go-mysql $label: by GTID set '$gs'" "$(tail -5 "$work/go.log")"
            fi
        done
    done
    lf=$(last_file "$B")
    ls=$(last_size "$B")
    out=$work/go-big.jsonl
    if "$gosync" -addr "127.0.0.1:$port_B" -file "" -pos 4 -flags 1 -until-file "$lf" -until-pos "$ls" -timeout 120s \
        -out "$out" >"$work/go.log" 2>&1; then
        r=$(python3 "$clients/expect_dump.py" "$B" "$out" --pos 4 --declared NONE)
        same=$?
        big=$(python3 -c "import json,sys;print(max(json.loads(l)['size'] for l in open(sys.argv[1])))" "$out")
        [ $same = 0 ] && [ "${big:-0}" -gt 16777215 ] && pass "go-mysql: a $big-byte payload event (several 16 MiB packets) arrives whole ($r)" \
            || fail "go-mysql: event over 16 MiB" "$r" "largest $big"
    else
        fail "go-mysql: event over 16 MiB" "$(tail -5 "$work/go.log")"
    fi
else
    fail "go-mysql client builds (tests/clients/gosync)" "$(tail -5 "$work/gobuild.log" 2>/dev/null)"
fi

# ---- (b) python-mysql-replication --------------------------------------------
venv=${PYREPL_VENV:-$build/pyvenv}
if [ ! -x "$venv/bin/python" ] || ! "$venv/bin/python" -c "import pymysqlreplication, cryptography, importlib.metadata as m
assert m.version('mysql-replication') == '1.0.17'" 2>/dev/null; then
    python3 -m venv "$venv" >/dev/null 2>&1
    "$venv/bin/pip" install --quiet --disable-pip-version-check mysql-replication==1.0.17 PyMySQL packaging cryptography \
        >"$work/pip.log" 2>&1
fi
py=$venv/bin/python
if "$py" -c "import pymysqlreplication" 2>/dev/null; then
    ver=$("$py" -c "import importlib.metadata as m;print(m.version('mysql-replication'))")
    for mode in C U; do
        dir=$(eval echo "\$$mode")
        port=$(eval echo "\$port_$mode")
        lf=$(last_file "$dir")
        ls=$(last_size "$dir")
        f0=$(file_n "$dir" 0)
        f1=$(file_n "$dir" 1)
        label="mysql-replication $ver $([ $mode = C ] && echo compressed || echo uncompressed)"
        check_py() { # NAME OUT [--file F --pos N | --gtid SET]
            local name=$1 out=$2
            shift 2
            r=$("$py" - "$dir" "$out" "$clients" "$@" <<'EOF'
import json, sys
sys.path.insert(0, sys.argv[3])
import expect_dump as X
d, out = sys.argv[1], sys.argv[2]
a = sys.argv[4:]
kw = dict(zip(a[::2], a[1::2]))
exp = X.expected(d, kw.get("--file"), int(kw.get("--pos", 4)), kw.get("--gtid"), "CRC32")
# the library yields every event (fake ROTATE and FDE included, payloads as
# NotImplementedEvent with the filter off): compare type + log_pos
want = [(e[4], X.le32(e, 13)) for k, e in exp if k == "event"]
got = [(r["type"], r["log_pos"]) for r in map(json.loads, open(out)) if r["type"] not in (27, 41)]
if got != want:
    for i, (g, w) in enumerate(zip(got, want)):
        if g != w:
            print("event %d: got type/log_pos %s, want %s" % (i, g, w)); sys.exit(1)
    print("got %d events, want %d" % (len(got), len(want))); sys.exit(1)
last = [r for r in map(json.loads, open(out))][-1]
print("%d events; reader at %s:%s" % (len(got), last["file"], last["pos_after"]))
EOF
)
            [ $? = 0 ] && pass "$label: $name ($r)" || fail "$label: $name" "$r"
        }
        out=$work/py-$mode-pos.jsonl
        if "$py" "$clients/pyrepl.py" --port "$port" --file "$f0" --pos 4 --blocking --heartbeat 0.2 \
            --until-file "$lf" --until-pos "$ls" --heartbeats 2 --out "$out" >"$work/py.log" 2>&1; then
            check_py "by position from the start" "$out" --file "$f0" --pos 4
            nhb=$(python3 -c "import json,sys;print(sum(1 for l in open(sys.argv[1]) if json.loads(l)['type']==27))" "$out")
            [ "$nhb" -ge 2 ] && pass "$label: heartbeats while idle ($nhb)" || fail "$label: heartbeats while idle" "$nhb"
        else
            fail "$label: by position from the start" "$(tail -5 "$work/py.log")"
        fi
        mid=$(python3 -c "
import sys; sys.path.insert(0, sys.argv[2]); import expect_dump as X
e = X.read_events(sys.argv[1]); print(e[len(e) // 3][0])" "$dir/$f1" "$clients")
        out=$work/py-$mode-mid.jsonl
        if "$py" "$clients/pyrepl.py" --port "$port" --file "$f1" --pos "$mid" --resume \
            --until-file "$lf" --until-pos "$ls" --out "$out" >"$work/py.log" 2>&1; then
            check_py "resume at $f1:$mid" "$out" --file "$f1" --pos "$mid"
        else
            fail "$label: resume at $f1:$mid" "$(tail -5 "$work/py.log")"
        fi
        ex=$(executed "$dir")
        half="${ex%%:*}:1-$(( ${ex##*-} / 2 ))"
        out=$work/py-$mode-gtid.jsonl
        if "$py" "$clients/pyrepl.py" --port "$port" --gtid "$half" --blocking --heartbeat 30 \
            --until-file "$lf" --until-pos "$ls" --out "$out" >"$work/py.log" 2>&1; then
            check_py "auto_position '$half'" "$out" --gtid "$half"
        else
            fail "$label: auto_position '$half'" "$(tail -5 "$work/py.log")"
        fi
    done
else
    fail "python-mysql-replication installs in $venv" "$(tail -5 "$work/pip.log" 2>/dev/null)"
fi

# ---- (c) mariadb-binlog --------------------------------------------------------
# A MySQL 8 server answers SELECT VERSION() with 8.x; mariadb-binlog 10.11
# refuses such a server before dumping (client/mysqlbinlog.cc check_master_version):
# "Could not find server version: Master reported unrecognized MariaDB version '8.0.36'", exit 1.
if command -v mariadb-binlog >/dev/null; then
    f0=$(file_n "$C" 0)
    mariadb-binlog --read-from-remote-server --host=127.0.0.1 --port="$port_C" --user=cdch --password=cdch \
        --protocol=tcp "$f0" >"$work/mb.out" 2>"$work/mb.err"
    rc=$?
    want="ERROR: Could not find server version: Master reported unrecognized MariaDB version '8.0.36'."
    if [ $rc = 1 ] && grep -qxF "$want" "$work/mb.err" && [ ! -s "$work/mb.out" ] || \
        { [ $rc = 1 ] && grep -qF "$want" "$work/mb.err"; }; then
        pass "mariadb-binlog: refuses a MySQL 8 server ($want), exit 1"
    else
        fail "mariadb-binlog: refuses a MySQL 8 server" "exit $rc" "$(head -3 "$work/mb.err")" "$(head -3 "$work/mb.out")"
    fi
else
    fail "mariadb-binlog is missing (scripts/setup.sh installs mariadb-client)"
fi

# ---- (d) packet-level checks -----------------------------------------------------
rawsuite() { # SUITE PORT STREAM
    local suite=$1 port=$2 dir=$3
    "$py" "$clients/rawdump.py" "$suite" --port "$port" --stream "$dir" >"$work/raw-$suite.log" 2>&1
    while IFS= read -r line; do
        case "$line" in
        PASS\ *) pass "raw $suite: ${line#PASS }" ;;
        FAIL\ *) fail "raw $suite: ${line#FAIL }" ;;
        "      "*) echo "$line" ;;
        esac
    done <"$work/raw-$suite.log"
    grep -q '^\(PASS\|FAIL\) ' "$work/raw-$suite.log" || fail "raw $suite ran" "$(tail -5 "$work/raw-$suite.log")"
}
if "$py" -c "import pymysql" 2>/dev/null; then
    rawsuite protocol "$port_C" "$C"
    rawsuite purged "$port_P" "$work/purged"
    rawsuite fault-mix "$port_F1" "$C"
    rawsuite fault-drop-events "$port_F2" "$C"
    rawsuite fault-drop-bytes "$port_F3" "$C"
    rawsuite fault-stall "$port_F4" "$C"
fi

# ---- the servers stop cleanly (SIGTERM) and, in a sanitizer build, report nothing ----
for p in "${pids[@]}"; do kill -TERM "$p" 2>/dev/null; done
stopped=1
for p in "${pids[@]}"; do wait "$p" || stopped=0; done
pids=()
[ $stopped = 1 ] && pass "every server stops on SIGTERM with status 0" || fail "every server stops on SIGTERM with status 0"
bad=$(grep -l 'ERROR: AddressSanitizer\|runtime error:\|ERROR: LeakSanitizer' "$work"/server-*.log 2>/dev/null)
[ -z "$bad" ] && pass "no sanitizer report in the server logs" || fail "no sanitizer report in the server logs" \
    "$(for f in $bad; do echo "$f:"; grep -A12 'ERROR: \|runtime error:' "$f" | head -14; done)"

echo "$passed passed, $failed failed"
[ "$failed" = 0 ]
