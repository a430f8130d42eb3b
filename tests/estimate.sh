#!/usr/bin/env bash
# `cdcharness estimate` end to end (registered in CTest as estimate):
#
#   tests/estimate.sh CDCHARNESS_BIN SOURCE_DIR
#
# The capture: scenarios/rotation.yaml (504 transactions over 18 rotated files) served
# uncompressed by `cdcharness serve` and recorded with `cdcharness record --until-end`.
#  1. estimate --levels 1,3 --json --html: exit 0; for the uncompressed stream and each level,
#     stream_bytes == the bytes of the files `recompress --mode uncompressed` / `--level N`
#     write for the same capture, and compressed_transactions == recompress's "N compressed";
#     ratio == stream_bytes / uncompressed stream_bytes, row_ratio == row_bytes_out /
#     row_bytes_in, scaffolding == stream_bytes - row_bytes_out (and the same scaffolding in
#     every stream but for the GTID events' packed transaction_length), every field present with a sane value (CPU
#     and memory > 0, decompression measured); the terminal table's rows; the HTML page holds
#     an inline SVG chart and no script. -j 1 gives the same bytes. A binlog-file input and
#     a `gen` stream directory are taken as recompress takes them.
#  2. scenarios/bulk-json-staging.yaml served and recorded the same way (JSON documents: a tenth
#     of the bytes compressed); --link 1mbit/20ms: every stream fully received (bytes_received == stream_bytes); the
#     uncompressed stream's time (connect + catch-up) >= bytes*8/rate, and each catch-up alone
#     >= bytes*8/rate - 50 ms (the fake primary's shaper lets a 50 ms burst through); a level
#     that leaves a tenth of the bytes catches up in under half the uncompressed stream's time.
#     The link is slow enough that the uncompressed stream's ~520 KB take ~4 s on the wire: the
#     margin between the compressed and uncompressed catch-ups is seconds, not scheduling noise.
#     --consumer go-mysql@v1.16.0+canal (its pinned setup, through the run machinery): each
#     stream's cell passes, the uncompressed stream's catch-up >= bytes*8/rate - 50 ms, level 3
#     catches up faster.
#  3. Errors, exact messages and exit statuses: a bad level range / list, a missing capture,
#     a bad --link, --consumer without --link, --link on binlog files, --link on a directory
#     without schema.sql, --consumer naming a consumer that reads files.
# go-mysql installs into $CDCH_CACHE (the harness's default cache when unset); it needs Go from the
# Go module proxy, and a failed setup fails its check. Prints "N passed, N failed"; exits non-zero on
# any failure.
set -u
usage="usage: estimate.sh CDCHARNESS_BIN SOURCE_DIR"
BIN=${1:?$usage}
SRC=${2:?$usage}
[ -x "$BIN" ] || { echo "estimate.sh: $BIN is not executable" >&2; exit 2; }
command -v python3 >/dev/null || { echo "estimate.sh: python3 is needed" >&2; exit 2; }
WORK=$(mktemp -d "${TMPDIR:-/tmp}/estimate_test.XXXXXX")
export BIN WORK
SERVE_QUIET=1
# shellcheck source=tests/clients/serve_lib.sh
. "$SRC/tests/clients/serve_lib.sh"
trap 'serve_stop_all; rm -rf "$WORK"' EXIT

check() { # NAME CMD...: CMD's success is the check
    local name=$1 out
    shift
    if out=$("$@" 2>&1); then check_ok "$name"; else check_fail "$name" "$(echo "$out" | tail -5)"; fi
}
# expect_err NAME STATUS MESSAGE ARGS...: `estimate ARGS` exits STATUS and its stderr's first line is MESSAGE
expect_err() {
    local name=$1 want_rc=$2 want=$3 rc first
    shift 3
    "$BIN" estimate "$@" >"$WORK/err.out" 2>"$WORK/err.txt"
    rc=$?
    first=$(head -1 "$WORK/err.txt")
    if [ "$rc" = "$want_rc" ] && [ "$first" = "$want" ] && [ ! -s "$WORK/err.out" ]; then
        check_ok "$name"
    else
        check_fail "$name" "exit $rc (want $want_rc), stderr: $first"
    fi
}

echo "== the capture: rotation.yaml served and recorded"
SCENARIO=$SRC/scenarios/rotation.yaml SERVE_MODE=uncompressed serve_start rot || exit 1
"$BIN" record --user cdch --password cdch --port "$rot_PORT" --start mysql-bin.000001:4 --until-end --quiet \
    --out "$WORK/cap" 2>"$WORK/record.err"
stop_pid "$rot_PID"
check "record: 18 files and schema.sql" test -s "$WORK/cap/schema.sql" -a -f "$WORK/cap/mysql-bin.000018"
SCENARIO=$SRC/scenarios/bulk-json-staging.yaml SERVE_MODE=uncompressed serve_start json || exit 1
"$BIN" record --user cdch --password cdch --port "$json_PORT" --start binlog.000001:4 --until-end --quiet \
    --out "$WORK/json" 2>"$WORK/record-json.err"
stop_pid "$json_PID"
check "record: bulk-json-staging and schema.sql" test -s "$WORK/json/schema.sql" -a -f "$WORK/json/binlog.000001"

echo "== estimate --levels 1,3"
"$BIN" estimate "$WORK/cap" --levels 1,3 --json "$WORK/e.json" --html "$WORK/e.html" >"$WORK/e.out" 2>"$WORK/e.err"
check "exit status 0" test $? = 0
"$BIN" recompress "$WORK/cap" --mode uncompressed --out "$WORK/r0" 2>"$WORK/r0.err"
for l in 1 3; do "$BIN" recompress "$WORK/cap" --level $l --out "$WORK/r$l" 2>"$WORK/r$l.err"; done
check "bytes == recompress's files, ratios, scaffolding, fields" python3 - "$WORK" <<'EOF'
import json, os, re, sys
w = sys.argv[1]
d = json.load(open(f"{w}/e.json"))
size = lambda r: sum(os.path.getsize(f"{w}/{r}/{f}") for f in os.listdir(f"{w}/{r}") if not f.endswith(".index"))
u = d["uncompressed"]
assert [l["level"] for l in d["levels"]] == [1, 3], d["levels"]
assert u["level"] == 0 and u["compressed"] is False and d["link"] is None
assert u["stream_bytes"] == size("r0"), (u["stream_bytes"], size("r0"))
assert u["stream_bytes"] == size("../" + os.path.basename(w) + "/cap") - os.path.getsize(f"{w}/cap/schema.sql") \
    - os.path.getsize(f"{w}/cap/capture.json"), "the uncompressed capture is its own uncompressed stream"
assert u["ratio"] == 1.0 and u["compressed_transactions"] == 0
keys = ["stream_bytes", "ratio", "row_bytes_in", "row_bytes_out", "row_ratio", "scaffolding_bytes", "row_data_bytes",
        "zstd_bytes", "transactions", "compressed_transactions", "cpu_s", "cpu_s_per_gb", "zstd_cpu_s",
        "zstd_cpu_s_per_gb", "decompress_cpu_s", "decompress_cpu_s_per_gb", "wall_s", "peak_rss_bytes",
        "rss_start_bytes"]
for l in [u] + d["levels"]:
    missing = [k for k in keys if k not in l]
    assert not missing, (l["level"], missing)
    assert abs(l["ratio"] - l["stream_bytes"] / u["stream_bytes"]) < 1e-6, l
    assert abs(l["row_ratio"] - l["row_bytes_out"] / l["row_bytes_in"]) < 1e-6, l
    assert l["scaffolding_bytes"] == l["stream_bytes"] - l["row_bytes_out"], l
    # compression leaves the scaffolding alone but for the GTID event's transaction_length, a packed
    # integer: 3 bytes from 251 up, 1 below (a compressed transaction may fall under 251 bytes)
    assert 0 <= u["scaffolding_bytes"] - l["scaffolding_bytes"] <= 2 * l["compressed_transactions"], \
        (l["level"], l["scaffolding_bytes"], u["scaffolding_bytes"])
    assert l["transactions"] == 504, l["transactions"]
    assert l["peak_rss_bytes"] > 1 << 20 and l["peak_rss_bytes"] >= l["rss_start_bytes"] > 0, l
    assert l["cpu_s"] > 0 and l["wall_s"] > 0, l
    assert abs(l["cpu_s_per_gb"] - l["cpu_s"] / (l["row_data_bytes"] / 1e9)) < 1e-3 * max(1, l["cpu_s_per_gb"]), l
for l in d["levels"]:
    r = f"r{l['level']}"
    assert l["stream_bytes"] == size(r), (l["level"], l["stream_bytes"], size(r))
    n = int(re.search(r"(\d+) compressed", open(f"{w}/{r}.err").read()).group(1))
    assert l["compressed_transactions"] == n == 501, (l["compressed_transactions"], n)
    assert l["compressed"] is True and l["ratio"] < 1 and l["row_bytes_out"] < l["row_bytes_in"]
    assert l["row_bytes_in"] == d["levels"][0]["row_bytes_in"] and l["row_data_bytes"] < l["row_bytes_in"]
    assert l["zstd_bytes"] < l["row_bytes_out"] and l["zstd_cpu_s"] > 0 and l["decompress_cpu_s"] > 0, l
assert d["levels"][1]["stream_bytes"] <= d["levels"][0]["stream_bytes"], "level 3 no larger than level 1"
assert d["max_transaction_bytes"] > 0 and len(d["files"]) == 18
EOF
check "the table: a header, rows off, 1, 3, the row-data line" python3 - "$WORK/e.out" "$WORK/e.json" <<'EOF'
import json, sys
lines = open(sys.argv[1]).read().splitlines()
d = json.load(open(sys.argv[2]))
assert lines[0].split()[:3] == ["level", "stream_bytes", "ratio"], lines[0]
rows = [l.split() for l in lines[1:4]]
assert [r[0] for r in rows] == ["off", "1", "3"], rows
for r, l in zip(rows, [d["uncompressed"]] + d["levels"]):
    assert int(r[1]) == l["stream_bytes"] and r[2] == f"{l['ratio']:.3f}", (r, l)
assert lines[4].startswith("row data: ") and "501 of 504 transactions" in lines[4], lines[4]
EOF
check "the HTML page: an inline SVG chart, the table, no script" python3 -c "
import sys; t=open(sys.argv[1]).read()
assert t.startswith('<!DOCTYPE html>') and '<svg' in t and '<polyline' in t and 'zstd level' in t, 'chart'
assert '<script' not in t.lower() and 'http' not in t.replace('http-equiv', ''), 'self-contained'
assert t.count('<tr>') == 4, t.count('<tr>')" "$WORK/e.html"
"$BIN" estimate "$WORK/cap" --levels 3 -j 1 --json "$WORK/j1.json" --quiet >/dev/null 2>&1
check "-j 1: the same bytes" python3 -c "
import json,sys; a=json.load(open(sys.argv[1])); b=json.load(open(sys.argv[2]))
assert a['levels'][1]['stream_bytes']==b['levels'][0]['stream_bytes'] and a['uncompressed']['stream_bytes']==b['uncompressed']['stream_bytes']" \
    "$WORK/e.json" "$WORK/j1.json"
"$BIN" estimate "$WORK"/cap/mysql-bin.0000* --levels 3 --json "$WORK/files.json" --quiet >/dev/null 2>&1
check "binlog files as input: the same bytes" python3 -c "
import json,sys; a=json.load(open(sys.argv[1])); b=json.load(open(sys.argv[2]))
assert a['levels'][1]['stream_bytes']==b['levels'][0]['stream_bytes']" "$WORK/e.json" "$WORK/files.json"

echo "== --link 1mbit/20ms (the harness's replica)"
"$BIN" estimate "$WORK/json" --levels 1,3 --link 1mbit/20ms --json "$WORK/l.json" --quiet >"$WORK/l.out" 2>"$WORK/l.err"
check "exit status 0" test $? = 0
check "every stream received whole; uncompressed time >= bytes*8/rate; compression catches up faster" \
    python3 - "$WORK/l.json" <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
assert d["link"] == {"text": "1mbit/20ms", "rate_bps": 1000000, "delay_ms": 20, "consumer": "replica"}, d["link"]
u = d["uncompressed"]
for l in [u] + d["levels"]:
    assert l["bytes_received"] == l["stream_bytes"], l
    wire = l["stream_bytes"] * 8 / 1e6
    assert l["catchup_s"] >= wire - 0.05, (l["level"], l["catchup_s"], wire)
    assert l["catchup_s"] < wire + 5, (l["level"], l["catchup_s"], wire)
    assert abs(l["catchup_vs_uncompressed"] - l["catchup_s"] / u["catchup_s"]) < 1e-3, l
assert u["connect_s"] + u["catchup_s"] >= u["stream_bytes"] * 8 / 1e6, u
for l in d["levels"]:
    # a tenth of the bytes: well under half the time whatever the machine's load (at 1mbit the uncompressed
    # catch-up is >= ~4.1 s on the wire, half of it ~2 s; a level's ~0.5 s leave seconds of slack)
    assert l["ratio"] < 0.2 and l["catchup_s"] < u["catchup_s"] / 2, (l["level"], l["ratio"], l["catchup_s"], u["catchup_s"])
EOF
check "the table has catch-up columns and names the consumer" grep -q "catch-up over 1mbit/20ms (the harness's replica)" "$WORK/l.out"

echo "== --link 1mbit/20ms --consumer go-mysql@v1.16.0+canal (through the run machinery)"
"$BIN" estimate "$WORK/json" --levels 3 --link 1mbit/20ms --consumer go-mysql@v1.16.0+canal --json "$WORK/c.json" \
    --quiet >"$WORK/c.out" 2>"$WORK/c.err"
check "exit status 0" test $? = 0
check "each stream's cell passed over the link; the uncompressed one took its wire time" python3 - "$WORK/c.json" <<'EOF2'
import json, sys
d = json.load(open(sys.argv[1]))
assert d["link"]["consumer"] == "go-mysql@v1.16.0+canal", d["link"]
u, l = d["uncompressed"], d["levels"][0]
assert u["verdict"] == "pass" and l["verdict"] == "pass", (u["verdict"], l["verdict"])
for s in (u, l):
    assert s["bytes_received"] == s["stream_bytes"] and s["connect_s"] > 0, s
assert u["catchup_s"] >= u["stream_bytes"] * 8 / 1e6 - 0.05, (u["catchup_s"], u["stream_bytes"])
assert l["catchup_s"] < u["catchup_s"], (l["catchup_s"], u["catchup_s"])
EOF2

echo "== errors"
bad_levels="cdcharness estimate: --levels wants zstd levels 1..22 as a range (1-7), a list (1,3,7,19) or both (1-3,7), not"
expect_err "--levels 3-1" 2 "$bad_levels '3-1'" "$WORK/cap" --levels 3-1
expect_err "--levels 0" 2 "$bad_levels '0'" "$WORK/cap" --levels 0
expect_err "--levels 1-23" 2 "$bad_levels '1-23'" "$WORK/cap" --levels 1-23
expect_err "--levels 1,,3" 2 "$bad_levels '1,,3'" "$WORK/cap" --levels 1,,3
expect_err "--levels 1-3,2" 2 "cdcharness estimate: --levels '1-3,2' names level 2 twice" "$WORK/cap" --levels 1-3,2
expect_err "missing capture" 2 \
    "cdcharness estimate: $WORK/nope does not exist: give a capture directory \`cdcharness record\` wrote (or binlog files)" \
    "$WORK/nope"
expect_err "no capture" 2 "cdcharness estimate: give the capture: a directory \`cdcharness record\` wrote (or binlog files)"
bad_link="give RATE or RATE/DELAY, e.g. 10mbit/20ms, 256kbit/100ms, 1gbit (rates: kbit, mbit, gbit, kbps = bytes; delays: ms, s)"
expect_err "--link 10furlongs" 2 "cdcharness estimate: --link '10furlongs': $bad_link" "$WORK/cap" --link 10furlongs
expect_err "--link 10mbit/soon" 2 "cdcharness estimate: --link '10mbit/soon': $bad_link" "$WORK/cap" --link 10mbit/soon
expect_err "--link 0" 2 "cdcharness estimate: --link '0': $bad_link" "$WORK/cap" --link 0
expect_err "--consumer without --link" 2 \
    "cdcharness estimate: --consumer says who catches up over --link: give --link too" "$WORK/cap" --consumer go-mysql
expect_err "--link on binlog files" 2 \
    "cdcharness estimate: --link serves the capture through the fake primary: give one capture directory (with its schema.sql), not several files" \
    "$WORK/cap/mysql-bin.000001" "$WORK/cap/mysql-bin.000002" --link 1gbit
"$BIN" gen "$SRC/scenarios/crud-basic.yaml" --mode uncompressed --out "$WORK/gen" --quiet
expect_err "--link without schema.sql" 1 \
    "cdcharness estimate: --link needs $WORK/gen/schema.sql: the fake primary answers the consumer's catalogue queries from it (\`cdcharness record\` writes it; write one by hand for binlog files from disk)" \
    "$WORK/gen" --levels 1 --link 1gbit --quiet
expect_err "--consumer that reads files" 1 \
    "cdcharness estimate: --link 1gbit: --consumer cdcharness-ref@builtin reads the binlog files (source: files), not the fake primary: there is no link to time; name a consumer that connects (source: server)" \
    "$WORK/cap" --levels 1 --link 1gbit --consumer cdcharness-ref@builtin --quiet
mkdir -p "$WORK/empty"
expect_err "a directory without an index" 1 \
    "cdcharness estimate: $WORK/empty has no *.index file (the binlog index a server or \`cdcharness gen\` writes beside the binlogs): name the binlog files instead, in order" \
    "$WORK/empty"
printf 'not a binlog' >"$WORK/junk.000001"
expect_err "not a binlog" 1 \
    "cdcharness estimate: $WORK/junk.000001 is not a binlog file (magic is 6e 6f 74 20, expected fe 62 69 6e)" \
    "$WORK/junk.000001" --quiet
summary
