#!/usr/bin/env bash
# `cdcharness recompress` end to end (registered in CTest as recompress):
#
#   tests/recompress.sh CDCHARNESS_BIN SOURCE_DIR FIXTURES_DIR
#
# Notation: R_L(x) = recompress x --level L, D(x) = recompress x --mode uncompressed.
#
# 1. Every real binlog in FIXTURES_DIR (the files that start with the binlog
#    magic; 20 today), at levels 1, 3, 7 and 19:
#    - D(R_L(x)) == D(x) byte for byte (nothing is lost or changed on the way
#      through a payload), and R_L(D(x)) == R_L(x) byte for byte;
#    - x without payloads: D(x) == x byte for byte (D only moves what a
#      payload holds, so an uncompressed capture comes back unchanged);
#    - x with payloads (the 8.0.x compressed captures): D(x) equals x event for
#      event with each payload replaced by its inner events, where ONLY these
#      may differ: the file offset, header log_pos and event_size, the CRC32,
#      the GTID event's transaction_length, and the TRANSACTION_PAYLOAD event
#      itself (its header, TLVs and zstd bytes: it is gone). Compared on
#      `cdcharness decode --json` with exactly those fields removed;
#    - `decode --canonical` of x, R_L(x) and D(x): identical row for row except
#      "pos" (the transaction's end position moves) and "compressed"; D(x) of
#      an x without payloads is identical including those.
# 2. Every library scenario (not rows-64mib: size) generated uncompressed (U)
#    and compressed (C) by `cdcharness gen`: R_L(U) at the scenario's
#    zstd_level (and --content-size when it sets zstd_content_size) equals C
#    byte for byte, every binlog file and the index. Inherent exception:
#    scenarios that rotate by max_binlog_size (rotation, checksum-none): gen
#    rotates the compressed stream by its own (smaller) size, recompress keeps
#    the capture's file boundaries, so the files split differently; there the
#    sequence of transaction events (GTID and payload / row events, log_pos and
#    CRC masked) must be identical, and the canonical decode identical except
#    "pos". Also D(C) == U and D(R_L(U)) == U byte for byte (same boundaries),
#    and --flip-at: transactions before TXN come out uncompressed, the rest as
#    in the compressed stream.
# 3. go-mysql's parser agrees: tests/gomysql_crosscheck.sh runs over a flat
#    directory of the recompressed fixtures and scenario streams (levels 3, 19).
# 4. Error paths: not a binlog, a truncated file, an unwritable output
#    directory, an existing non-empty one, usage errors: the exit status, a
#    message naming the problem, and nothing left behind.
#
# Prints "N passed, N failed"; exits non-zero on any failure.
set -u
usage="usage: recompress.sh CDCHARNESS_BIN SOURCE_DIR FIXTURES_DIR"
bin=${1:?$usage}
src=${2:?$usage}
fixtures=${3:?$usage}
[ -x "$bin" ] || { echo "recompress.sh: $bin is not executable" >&2; exit 2; }
[ -d "$fixtures" ] || { echo "recompress.sh: fixtures directory $fixtures does not exist" >&2; exit 2; }
command -v python3 >/dev/null || { echo "recompress.sh: python3 is needed" >&2; exit 2; }
bin=$(cd "$(dirname "$bin")" && pwd)/$(basename "$bin")

tmp=$(mktemp -d "${TMPDIR:-/tmp}/recompress_test.XXXXXX")
trap 'chmod -R u+w "$tmp" 2>/dev/null; rm -rf "$tmp"' EXIT
passed=0
failed=0
ok() { passed=$((passed + 1)); }
bad() { failed=$((failed + 1)); echo "FAIL: $*"; }
check() { # check LABEL COMMAND...
    local label=$1
    shift
    if "$@" >"$tmp/check.out" 2>&1; then ok; else bad "$label"; head -20 "$tmp/check.out" | sed 's/^/      /'; fi
}
is_binlog() { [ "$(head -c 4 "$1" | od -An -tx1 | tr -d ' \n')" = "fe62696e" ]; }

# python helpers: canonical and event comparisons with exactly the allowed differences
cat >"$tmp/cmp.py" <<'PY'
import json, sys

def lines(path):
    with open(path) as f:
        return [json.loads(l) for l in f if l.strip()]

def canon(a, b, mode):
    """mode 'rows': drop pos and compressed; 'nopos': drop pos.pos and pos.file; 'all': compare whole."""
    A, B = lines(a), lines(b)
    if len(A) != len(B):
        sys.exit(f"{len(A)} vs {len(B)} canonical rows")
    for i, (x, y) in enumerate(zip(A, B)):
        for r in (x, y):
            if mode in ("rows", "nopos"):
                r.pop("pos", None)
            if mode == "rows":
                r.pop("compressed", None)
        if x != y:
            sys.exit(f"row {i + 1} differs:\n  {json.dumps(x)[:400]}\n  {json.dumps(y)[:400]}")

def flat_events(path, keep_per_file=True):
    """decode --json events with payloads replaced by their inner events and the
    fields that may differ removed (offset, log_pos, event_size, checksum,
    GTID transaction_length, inner_offset, file)."""
    out = []
    for e in lines(path):
        evs = e["body"]["events"] if e["type"] == 40 else [e]
        for x in evs:
            if not keep_per_file and x["type"] in (15, 35, 4, 3):
                continue
            x = dict(x)
            for k in ("offset", "inner_offset", "file", "checksum", "raw_hex"):
                x.pop(k, None)
            h = dict(x["header"]); h.pop("log_pos"); h.pop("event_size"); x["header"] = h
            if x["type"] in (33, 34, 42):
                b = dict(x["body"]); b.pop("transaction_length", None); x["body"] = b
            out.append(x)
    return out

def events(a, b, per_file):
    A, B = flat_events(a, per_file), flat_events(b, per_file)
    if len(A) != len(B):
        sys.exit(f"{len(A)} vs {len(B)} events")
    for i, (x, y) in enumerate(zip(A, B)):
        if x != y:
            sys.exit(f"event {i + 1} differs:\n  {json.dumps(x)[:400]}\n  {json.dumps(y)[:400]}")

def payload_seq(a, b):
    """transaction events (not FDE / PREVIOUS_GTIDS / ROTATE / STOP), each as
    decode --json shows it with offset, log_pos and checksum removed: payload
    events compared whole (sizes, TLVs, zstd-decoded inner events)."""
    def seq(p):
        out = []
        for e in lines(p):
            if e["type"] in (15, 35, 4, 3):
                continue
            e.pop("offset"); e.pop("file"); e.pop("checksum", None); e["header"].pop("log_pos")
            if e["type"] in (33, 34, 42):  # the logical clock restarts in every file
                e["body"].pop("last_committed"); e["body"].pop("sequence_number")
            out.append(e)
        return out
    A, B = seq(a), seq(b)
    if A != B:
        n = next((i for i, (x, y) in enumerate(zip(A, B)) if x != y), min(len(A), len(B)))
        sys.exit(f"transaction events differ at {n + 1} ({len(A)} vs {len(B)})")

def positions_consistent(path):
    """every event's log_pos is its end offset (false for hand-made files)"""
    return all(e["header"]["log_pos"] == e["offset"] + e["header"]["event_size"] for e in lines(path))

def flip(full, flipped, k):
    F, G = lines(full), lines(flipped)
    if len(F) != len(G):
        sys.exit("row counts differ")
    for x, y in zip(F, G):
        want = x["compressed"] if x["txn"] >= k else False
        if y["compressed"] != want:
            sys.exit(f"txn {y['txn']}: compressed={y['compressed']}, want {want}")

cmd = sys.argv[1]
if cmd == "canon":
    canon(sys.argv[2], sys.argv[3], sys.argv[4])
elif cmd == "events":
    events(sys.argv[2], sys.argv[3], True)
elif cmd == "seq":
    payload_seq(sys.argv[2], sys.argv[3])
elif cmd == "inconsistent":
    sys.exit(0 if not positions_consistent(sys.argv[2]) else "the input's positions are consistent")
elif cmd == "flip":
    flip(sys.argv[2], sys.argv[3], int(sys.argv[4]))
PY
cmp_py() { python3 "$tmp/cmp.py" "$@"; }
same_files() { # same_files DIR_A DIR_B: the same file names, each byte-identical (index included)
    local a=$1 b=$2 f
    [ "$(cd "$a" && ls | grep -v -e '^expected.jsonl$' -e '^stream.json$')" = "$(cd "$b" && ls)" ] ||
        { echo "file lists differ: $(cd "$a" && ls | tr '\n' ' ') vs $(cd "$b" && ls | tr '\n' ' ')"; return 1; }
    for f in "$b"/*; do cmp "$a/$(basename "$f")" "$f" || return 1; done
}
decode_dir() { # decode_dir MODE DIR OUT: decode the stream's files in index order
    local mode=$1 dir=$2 idx files
    idx=$(ls "$dir"/*.index)
    files=$(sed "s|^\./|$dir/|" "$idx")
    # shellcheck disable=SC2086
    "$bin" decode "$mode" $files >"$3" 2>/dev/null
}
flat=$tmp/flat
mkdir -p "$flat"

# ------------------------------------------------------------ 1. fixtures
nfix=0
for f in "$fixtures"/*; do
    [ -f "$f" ] && is_binlog "$f" || continue
    nfix=$((nfix + 1))
    n=$(basename "$f")
    w=$tmp/fx/$n
    mkdir -p "$w"
    "$bin" decode --canonical "$f" >"$w/x.canon" 2>/dev/null || { bad "$n: decode --canonical of the fixture"; continue; }
    "$bin" decode --json "$f" >"$w/x.json" 2>/dev/null
    if ! "$bin" recompress "$f" --mode uncompressed --quiet --out "$w/D"; then bad "$n: recompress --mode uncompressed"; continue; fi
    has_payload=$(grep -c '"type":40' "$w/x.json")
    if [ "$has_payload" -eq 0 ] && cmp -s "$f" "$w/D/$n"; then
        ok # D(x) == x byte for byte
    elif [ "$has_payload" -eq 0 ]; then
        # only an input whose own end_log_pos are wrong (a hand-made test file
        # that repeats an event) may change, and only in positions
        check "$n: D(x) differs from x only where x's end_log_pos is wrong" cmp_py inconsistent "$w/x.json"
        decode_dir --json "$w/D" "$w/D.json"
        check "$n: D(x) == x apart from positions" cmp_py events "$w/x.json" "$w/D.json"
        has_payload=bad_positions
    else
        decode_dir --json "$w/D" "$w/D.json"
        check "$n: D(x) == x apart from offsets, log_pos, sizes, checksums, transaction_length, payload wrappers" \
            cmp_py events "$w/x.json" "$w/D.json"
    fi
    decode_dir --canonical "$w/D" "$w/D.canon"
    check "$n: canonical D(x) == x except pos/compressed" cmp_py canon "$w/x.canon" "$w/D.canon" rows
    [ "$has_payload" = 0 ] && check "$n: canonical D(x) == x whole" cmp_py canon "$w/x.canon" "$w/D.canon" all
    for L in 1 3 7 19; do
        if ! "$bin" recompress "$f" --level $L --quiet --out "$w/R$L"; then bad "$n: recompress --level $L"; continue; fi
        "$bin" recompress "$w/R$L" --mode uncompressed --quiet --out "$w/DR$L" || { bad "$n: D(R$L)"; continue; }
        check "$n: D(R$L(x)) == D(x) byte for byte" cmp "$w/D/$n" "$w/DR$L/$n"
        "$bin" recompress "$w/D" --level $L --quiet --out "$w/RD$L" || { bad "$n: R$L(D)"; continue; }
        check "$n: R$L(D(x)) == R$L(x) byte for byte" cmp "$w/R$L/$n" "$w/RD$L/$n"
        decode_dir --canonical "$w/R$L" "$w/R$L.canon"
        check "$n: canonical R$L(x) == x except pos/compressed" cmp_py canon "$w/x.canon" "$w/R$L.canon" rows
        case $L in 3 | 19) cp "$w/R$L/$n" "$flat/fixture-L$L-$n" ;; esac
    done
done
[ "$nfix" -ge 20 ] && ok || bad "fixtures: $nfix binlog files in $fixtures, expected the 20 real ones"
echo "fixtures: $nfix binlog files, levels 1 3 7 19 and back"

# ------------------------------------------------------------ 2. scenarios
nsc=0
for sc in "$src"/scenarios/*.yaml; do
    n=$(basename "$sc" .yaml)
    [ "$n" = rows-64mib ] && continue
    nsc=$((nsc + 1))
    w=$tmp/sc/$n
    mkdir -p "$w"
    lvl=$(sed -n 's/^[[:space:]]*zstd_level:[[:space:]]*\([0-9]*\).*/\1/p' "$sc" | head -1)
    lvl=${lvl:-3}
    cs=
    grep -Eq '^[[:space:]]*zstd_content_size:[[:space:]]*true' "$sc" && cs=--content-size
    if ! "$bin" gen "$sc" --mode uncompressed --quiet --out "$w/U" || ! "$bin" gen "$sc" --mode compressed --quiet --out "$w/C"; then
        bad "$n: gen"
        continue
    fi
    "$bin" recompress "$w/U" --level "$lvl" $cs --quiet --out "$w/R" || { bad "$n: recompress"; continue; }
    if [ "$(ls "$w/C" | grep -vc -e expected.jsonl -e stream.json)" = "$(ls "$w/R" | wc -l)" ]; then
        check "$n: recompress(U) == gen --mode compressed byte for byte" same_files "$w/C" "$w/R"
    else
        decode_dir --json "$w/C" "$w/C.json"
        decode_dir --json "$w/R" "$w/R.json"
        check "$n (rotates by size): transaction events of recompress(U) == gen compressed" cmp_py seq "$w/C.json" "$w/R.json"
        decode_dir --canonical "$w/C" "$w/C.canon"
        decode_dir --canonical "$w/R" "$w/R.canon"
        check "$n (rotates by size): canonical recompress(U) == gen compressed except pos" cmp_py canon "$w/C.canon" "$w/R.canon" nopos
    fi
    "$bin" recompress "$w/R" --mode uncompressed --quiet --out "$w/DR" && check "$n: D(recompress(U)) == U" same_files "$w/U" "$w/DR" || bad "$n: D(R)"
    if [ "$(ls "$w/C" | wc -l)" = "$(ls "$w/U" | wc -l)" ]; then
        "$bin" recompress "$w/C" --mode uncompressed --quiet --out "$w/DC" && check "$n: D(gen compressed) == gen uncompressed" same_files "$w/U" "$w/DC" || bad "$n: D(C)"
    fi
    ntx=$(grep -c '' "$w/U/expected.jsonl")
    if [ "$ntx" -gt 0 ]; then
        k=$(python3 -c "import json,sys; t=[json.loads(l)['txn'] for l in open(sys.argv[1])]; print(t[len(t)//2])" "$w/U/expected.jsonl")
        "$bin" recompress "$w/U" --level "$lvl" $cs --flip-at "$k" --quiet --out "$w/F" || bad "$n: --flip-at $k"
        decode_dir --canonical "$w/R" "$w/R.canon"
        decode_dir --canonical "$w/F" "$w/F.canon"
        check "$n: --flip-at $k: earlier transactions uncompressed, later as compressed" cmp_py flip "$w/R.canon" "$w/F.canon" "$k"
    fi
    case $n in
    bulk-*) ;; # size: covered by the fixtures and the other scenarios
    *) for L in 3 19; do
           "$bin" recompress "$w/U" --level $L --quiet --out "$w/R$L" || { bad "$n: level $L"; continue; }
           for f in "$w/R$L"/*; do is_binlog "$f" && cp "$f" "$flat/scenario-L$L-$n-$(basename "$f")"; done
       done ;;
    esac
    rm -rf "$w"
done
echo "scenarios: $nsc checked"

# ------------------------------------------------------------ 3. go-mysql
mkdir -p "$tmp/noscenarios"
if GOMYSQL_DECODE_DIR=$tmp/gomysql "$src/tests/gomysql_crosscheck.sh" "$bin" "$tmp/noscenarios" "$flat" >"$tmp/gm.log" 2>&1; then
    ok
    echo "go-mysql: $(tail -1 "$tmp/gm.log") over $(ls "$flat" | wc -l) recompressed files"
else
    bad "go-mysql cross-check of the recompressed files"
    grep -E "FAIL|failed|error" "$tmp/gm.log" | head -20 | sed 's/^/      /'
fi

# ------------------------------------------------------------ 4. errors
expect_fail() { # expect_fail LABEL STATUS PATTERN COMMAND...
    local label=$1 want=$2 pat=$3
    shift 3
    "$@" >"$tmp/err.out" 2>&1
    local st=$?
    if [ "$st" -ne "$want" ]; then
        bad "$label: exit $st, want $want"; sed 's/^/      /' "$tmp/err.out" | head -5
    elif ! grep -Eq "$pat" "$tmp/err.out"; then
        bad "$label: message does not match /$pat/"; sed 's/^/      /' "$tmp/err.out" | head -5
    else ok; fi
}
e=$tmp/err
mkdir -p "$e"
good=$fixtures/apecloud__mysql-bin.000057
printf 'hello, not a binlog\n' >"$e/notes.txt"
expect_fail "not a binlog" 1 "notes.txt is not a binlog file" "$bin" recompress "$e/notes.txt" --out "$e/o1"
[ ! -e "$e/o1" ] && ok || bad "not a binlog: output left behind"
head -c 700 "$good" >"$e/mysql-bin.000057"
expect_fail "truncated file" 1 "mysql-bin.000057.*truncated event at offset" "$bin" recompress "$e/mysql-bin.000057" --out "$e/o2"
[ -z "$(ls "$e" | grep '^o2')" ] && ok || bad "truncated: output or temporary directory left behind"
cp "$good" "$e/flip.000001"
python3 -c "import sys; p=sys.argv[1]; b=bytearray(open(p,'rb').read()); b[300]^=0x5a; open(p,'wb').write(b)" "$e/flip.000001"
expect_fail "corrupt event (CRC32)" 1 "offset 274.*CRC32 mismatch" "$bin" recompress "$e/flip.000001" --out "$e/o3"
mkdir -p "$e/full" && touch "$e/full/keep"
expect_fail "existing non-empty out dir" 1 "full exists and is not empty" "$bin" recompress "$good" --out "$e/full"
[ -f "$e/full/keep" ] && ok || bad "non-empty out dir was touched"
if [ "$(id -u)" -eq 0 ] && command -v setpriv >/dev/null; then
    as_user() { setpriv --reuid=65534 --regid=65534 --clear-groups "$@"; }
else
    as_user() { "$@"; }
fi
mkdir -p "$e/ro" && chmod 0555 "$e/ro" && chmod o+rx "$tmp" "$e"
cp "$good" "$e/ro-input.000057" && chmod 0644 "$e/ro-input.000057"
expect_fail "unwritable out dir" 1 "cannot create .*ro/out.*(Permission denied|Read-only)" as_user "$bin" recompress "$e/ro-input.000057" --out "$e/ro/out"
expect_fail "no input" 2 "give the binlog files" "$bin" recompress --out "$e/o4"
expect_fail "bad level" 2 "level wants a zstd level 1..22" "$bin" recompress "$good" --level 23 --out "$e/o5"
expect_fail "uncompressed with a level" 2 "takes no --level" "$bin" recompress "$good" --mode uncompressed --level 3 --out "$e/o6"
mkdir -p "$e/noindex" && cp "$good" "$e/noindex/"
expect_fail "directory without index" 1 "has no \*.index file" "$bin" recompress "$e/noindex" --out "$e/o7"
mkdir -p "$e/badindex" && printf './binlog.000001\n./binlog.000002\n' >"$e/badindex/binlog.index" && cp "$good" "$e/badindex/binlog.000001"
expect_fail "index names a missing file" 1 "lists ./binlog.000002, but" "$bin" recompress "$e/badindex" --out "$e/o8"
expect_fail "same name twice" 1 "have the same name" "$bin" recompress "$good" "$e/noindex/$(basename "$good")" --out "$e/o9"

# an output directory named with a trailing slash is that directory (its temporary is DIR.tmp.PID beside it)
check "--out DIR/ (trailing slash)" "$bin" recompress "$good" --level 3 --out "$e/slash/"
[ -f "$e/slash/$(basename "$good")" ] && ! ls -d "$e"/slash.tmp.* >/dev/null 2>&1 && ok || bad "--out DIR/ did not write $e/slash/$(basename "$good")"

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
