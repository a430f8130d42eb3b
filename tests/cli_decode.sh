#!/usr/bin/env bash
# CLI-level tests of `cdcharness decode` (registered in CTest as cli_decode):
#
#   tests/cli_decode.sh <cdcharness binary> <fixtures dir>
#
# For every fixture binlog (a file in the dir starting with the binlog magic)
# decode and decode --json must exit 0, and the per-type event counts
# (top-level and inside TRANSACTION_PAYLOAD events) read from the JSON output
# must match those listed in the fixtures' README.md. Then the error paths:
# truncated file, flipped byte (checksum error naming the offset), non-binlog
# input, garbage after the magic, usage errors. No run may trip a sanitizer.
# Prints "N passed, N failed"; exits non-zero on any failure.
set -u

bin=${1:?usage: cli_decode.sh <cdcharness binary> <fixtures dir>}
fixtures=${2:?usage: cli_decode.sh <cdcharness binary> <fixtures dir>}
readme=$fixtures/README.md

# Sanitizer reports must not be mistaken for "bad input" (exit 1).
export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}exitcode=86"
export UBSAN_OPTIONS="${UBSAN_OPTIONS:+$UBSAN_OPTIONS:}exitcode=87:print_stacktrace=1"

tmp=$(mktemp -d "${TMPDIR:-/tmp}/cli_decode.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

passed=0
failed=0
pass() { passed=$((passed + 1)); }
fail() {
    failed=$((failed + 1))
    echo "FAIL: $1" >&2
    shift
    for line in "$@"; do echo "      $line" >&2; done
}

# run NAME ARGS...: runs the binary, leaves $tmp/out, $tmp/err, $rc
run() {
    "$bin" "$@" >"$tmp/out" 2>"$tmp/err"
    rc=$?
}

sanitizer_clean() { # $1 = test name
    if grep -qE 'Sanitizer|runtime error:|LeakSanitizer' "$tmp/err"; then
        fail "$1: sanitizer report" "$(head -20 "$tmp/err")"
        return 1
    fi
    return 0
}

is_binlog() { [ "$(head -c 4 "$1" | od -An -tx1 | tr -d ' \n')" = "fe62696e" ]; }

[ -x "$bin" ] || { echo "cli_decode.sh: $bin is not executable" >&2; exit 2; }
[ -f "$readme" ] || { echo "cli_decode.sh: $readme not found" >&2; exit 2; }
command -v python3 >/dev/null || { echo "cli_decode.sh: python3 is needed" >&2; exit 2; }

# ---------------------------------------------------------------- fixtures
nbinlogs=0
for f in "$fixtures"/*; do
    [ -f "$f" ] && is_binlog "$f" || continue
    nbinlogs=$((nbinlogs + 1))
    name=$(basename "$f")

    run decode "$f"
    cp "$tmp/out" "$tmp/text"
    if [ $rc -ne 0 ]; then
        fail "decode $name: exit $rc" "$(head -5 "$tmp/err")"
        continue
    fi
    sanitizer_clean "decode $name" || continue
    pass

    run decode --json "$f"
    if [ $rc -ne 0 ]; then
        fail "decode --json $name: exit $rc" "$(head -5 "$tmp/err")"
        continue
    fi
    sanitizer_clean "decode --json $name" || continue
    cp "$tmp/err" "$tmp/jsonerr"

    if msg=$(python3 - "$readme" "$f" "$tmp/out" "$tmp/text" "$tmp/jsonerr" <<'PY' 2>&1
import json, os, re, sys
from collections import Counter

readme, path, json_out, text_out, json_err = sys.argv[1:6]
name = os.path.basename(path)
size = os.path.getsize(path)

TYPES = {
    'FDE': 15, 'FORMAT_DESCRIPTION': 15, 'PREVIOUS_GTIDS': 35, 'ANONYMOUS_GTID': 34,
    'ANON_GTID': 34, 'GTID': 33, 'GTID_TAGGED': 42, 'TRANSACTION_PAYLOAD': 40,
    'ROTATE': 4, 'STOP': 3, 'QUERY': 2, 'TABLE_MAP': 19, 'WRITE_ROWS': 30,
    'UPDATE_ROWS': 31, 'DELETE_ROWS': 32, 'PARTIAL_UPDATE_ROWS': 39, 'XID': 16,
    'XA_PREPARE': 38, 'ROWS_QUERY': 29, 'HEARTBEAT': 27, 'HEARTBEAT_V2': 41,
    'INCIDENT': 26,
}
errors = []

def parse_list(cell):
    """'GTID ×3, QUERY ×1 (DDL), **TRANSACTION_PAYLOAD ×2**' -> Counter of type numbers"""
    cell = cell.replace('**', '')
    cell = re.sub(r'\[[^\[\]()]*[\])]', '', cell)  # interval notation such as [1,3)
    prev = None
    while prev != cell:  # drop parenthesised remarks, innermost first
        prev = cell
        cell = re.sub(r'\([^()]*\)', '', cell)
    want = Counter()
    for item in cell.split(','):
        item = item.strip()
        if not item:
            continue
        m = re.fullmatch(r'([A-Z0-9_/]+)\s*(?:[×x]\s*(\d+))?', item)
        if not m:
            raise ValueError('cannot parse README item %r' % item)
        n = int(m.group(2) or 1)
        names = m.group(1)
        if '/' in names:  # WRITE/UPDATE/DELETE_ROWS
            parts = names.split('/')
            suffix = parts[-1][parts[-1].index('_'):]
            names_list = [p + suffix for p in parts[:-1]] + [parts[-1]]
        else:
            names_list = [names]
        for nm in names_list:
            if nm not in TYPES:
                raise ValueError('unknown event name %r in README' % nm)
            want[TYPES[nm]] += n
    return want

# find the README row for this file, with its table's header
top_want = inner_want = None
header = None
for line in open(readme, encoding='utf-8'):
    line = line.rstrip('\n')
    if not line.startswith('|'):
        header = None
        continue
    cells = [c.strip() for c in line.strip().strip('|').split('|')]
    if cells and cells[0] == 'file':
        header = cells
        continue
    if header is None or not cells or cells[0] != '`%s`' % name:
        continue
    for i, h in enumerate(header):
        if i >= len(cells):
            break
        if h in ('events', 'top-level events'):
            top_want = parse_list(cells[i])
        elif h.startswith('inside payload'):
            inner_want = parse_list(cells[i])
    break
if top_want is None:
    errors.append('no event list for %s in README.md' % name)
    top_want = Counter()

top, inner = Counter(), Counter()
payloads = 0
expect_off = 4
n_lines = 0
for ln, line in enumerate(open(json_out, encoding='utf-8'), 1):
    n_lines += 1
    try:
        o = json.loads(line)
    except ValueError as e:
        errors.append('JSON line %d does not parse: %s' % (ln, e))
        continue
    for k in ('file', 'offset', 'type', 'type_name', 'header', 'checksum', 'body'):
        if k not in o:
            errors.append('JSON line %d lacks "%s"' % (ln, k))
    if o.get('offset') != expect_off:
        errors.append('JSON line %d: offset %s, expected %d' % (ln, o.get('offset'), expect_off))
    expect_off = o.get('offset', expect_off) + o.get('header', {}).get('event_size', 0)
    t = o.get('type')
    top[t] += 1
    if t == 40:
        payloads += 1
        evs = o['body'].get('events')
        if not isinstance(evs, list) or not evs:
            errors.append('payload at offset %s has no inner events' % o.get('offset'))
            continue
        for e in evs:
            inner[e.get('type')] += 1
            if e.get('checksum') is not None or e.get('header', {}).get('log_pos') != 0:
                errors.append('inner event at offset %s+%s has a checksum or log_pos' %
                              (o.get('offset'), e.get('inner_offset')))
            if e.get('type') in (30, 31, 32, 39) and not e['body'].get('rows'):
                errors.append('inner rows event without rows at offset %s' % o.get('offset'))
if expect_off != size:
    errors.append('events end at %d, file size is %d' % (expect_off, size))

for t, n in sorted(top_want.items()):
    if top[t] != n:
        errors.append('top-level type %d: %d events, README says %d' % (t, top[t], n))
if inner_want is not None:
    for t, n in sorted(inner_want.items()):
        if inner[t] != n:
            errors.append('inside payloads type %d: %d events, README says %d' % (t, inner[t], n))
    if sum(inner.values()) != sum(inner_want.values()):
        errors.append('inside payloads: %d events, README lists %d' %
                      (sum(inner.values()), sum(inner_want.values())))
elif inner:
    errors.append('%d events inside payloads, README lists none' % sum(inner.values()))

total = sum(top.values()) + sum(inner.values())
summary = '%d events (%d inside payloads), %d payloads' % (total, sum(inner.values()), payloads)
if summary not in open(json_err, encoding='utf-8', errors='replace').read():
    errors.append('JSON run stderr lacks the summary "%s"' % summary)
text = open(text_out, encoding='utf-8', errors='replace').read()
if '# ' + summary not in text:
    errors.append('text output lacks "# %s"' % summary)
n_at = sum(1 for l in text.splitlines() if l.startswith('# at '))
if n_at != total:
    errors.append('text output has %d "# at" lines, expected %d' % (n_at, total))
if top.get(40) and ('# Start of compressed events.' not in text or 'compression_type=ZSTD' not in text):
    errors.append('text output lacks the payload markers')
if (top.get(30) or inner.get(30)) and '### INSERT INTO' not in text:
    errors.append('text output lacks "### INSERT INTO"')

if errors:
    print('\n'.join(errors))
    sys.exit(1)
PY
    ); then
        pass
    else
        fail "decode --json $name: counts/shape" "$msg"
    fi

    run decode --hexdump "$f"
    if [ $rc -eq 0 ] && sanitizer_clean "decode --hexdump $name"; then pass; else fail "decode --hexdump $name: exit $rc" "$(head -5 "$tmp/err")"; fi
done
if [ $nbinlogs -lt 10 ]; then
    fail "found only $nbinlogs fixture binlogs in $fixtures"
else
    pass
fi

# ---------------------------------------------------------------- error paths
comp=$fixtures/osheroff__mysql-bin.compressed
[ -f "$comp" ] || comp=$(for f in "$fixtures"/*; do is_binlog "$f" && echo "$f" && break; done)

# expect_bad NAME PATTERN ARGS...: exit 1, stderr matches PATTERN (ERE, case-insensitive)
expect_bad() {
    local tname=$1 pat=$2
    shift 2
    run "$@"
    sanitizer_clean "$tname" || return 1
    if [ $rc -ne 1 ]; then
        fail "$tname: exit $rc, expected 1" "$(head -5 "$tmp/err")"
        return 1
    fi
    if ! grep -qiE "$pat" "$tmp/err"; then
        fail "$tname: stderr does not match /$pat/" "$(head -5 "$tmp/err")"
        return 1
    fi
    pass
}

# Offsets of the events of a binlog, one per line: "offset size type"
events_of() {
    python3 - "$1" <<'PY'
import struct, sys
d = open(sys.argv[1], 'rb').read()
off = 4
while off + 19 <= len(d):
    size = struct.unpack_from('<I', d, off + 9)[0]
    print(off, size, d[off + 4])
    off += size
PY
}

size=$(wc -c <"$comp")

# truncated in the middle of the last event
head -c $((size - 10)) "$comp" >"$tmp/trunc.bin"
last=$(events_of "$comp" | tail -1)
last_off=${last%% *}
expect_bad "truncated file" "offset $last_off" decode "$tmp/trunc.bin"
grep -q "truncated event at offset $last_off: header says" "$tmp/err" ||
    fail "truncated file: message" "$(cat "$tmp/err")"
expect_bad "truncated file --json" "offset" decode --json "$tmp/trunc.bin"
# stdout holds only complete JSON lines for the events before the damage
python3 -c 'import json,sys; [json.loads(l) for l in open(sys.argv[1])]' "$tmp/out" 2>/dev/null &&
    pass || fail "truncated file --json: stdout is not clean JSON Lines"

# truncated inside an event header
second=$(events_of "$comp" | sed -n 2p)
second_off=${second%% *}
head -c $((second_off + 7)) "$comp" >"$tmp/trunc-hdr.bin"
expect_bad "truncated header" "offset $second_off" decode "$tmp/trunc-hdr.bin"

# a flipped byte inside an event: checksum error naming the event's offset
victim=$(events_of "$comp" | awk '$3 != 15 && $2 > 40 {print; exit}')
v_off=${victim%% *}
v_size=$(echo "$victim" | cut -d' ' -f2)
python3 - "$comp" "$tmp/flip.bin" "$v_off" "$v_size" <<'PY'
import sys
src, dst, off, size = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
d = bytearray(open(src, 'rb').read())
d[off + size - 2] ^= 0x40  # inside the stored CRC32: the body still decodes
open(dst, 'wb').write(bytes(d))
PY
expect_bad "flipped CRC byte" "offset $v_off.*(crc|checksum)" decode "$tmp/flip.bin"
run decode --no-verify "$tmp/flip.bin"
[ $rc -eq 0 ] && sanitizer_clean "flipped --no-verify" && pass || fail "flipped CRC byte --no-verify: exit $rc" "$(head -3 "$tmp/err")"

# a flipped byte in a body (not in a length field): still a checksum error
xfile=
for f in "$fixtures"/*; do
    [ -f "$f" ] && is_binlog "$f" || continue
    q=$(events_of "$f" | awk '$3 == 16 {print; exit}')   # a top-level XID: 8-byte body
    [ -n "$q" ] && { xfile=$f; break; }
done
if [ -n "$xfile" ]; then
    q_off=${q%% *}
    python3 - "$xfile" "$tmp/flip2.bin" "$q_off" <<'PY'
import sys
src, dst, off = sys.argv[1], sys.argv[2], int(sys.argv[3])
d = bytearray(open(src, 'rb').read())
d[off + 19 + 3] ^= 0x01
open(dst, 'wb').write(bytes(d))
PY
    expect_bad "flipped body byte" "offset $q_off.*(crc|checksum)" decode "$tmp/flip2.bin"
fi

# not a binlog: rejected, nothing on stdout
printf 'hello, this is not a binlog\n' >"$tmp/text.txt"
expect_bad "non-binlog file" "not a binlog file \(magic is 68 65 6c 6c" decode "$tmp/text.txt"
[ ! -s "$tmp/out" ] && pass || fail "non-binlog file: stdout not empty" "$(head -c 200 "$tmp/out")"
expect_bad "non-binlog file --json" "not a binlog file" decode --json "$readme"
[ ! -s "$tmp/out" ] && pass || fail "non-binlog --json: stdout not empty"
: >"$tmp/empty.bin"
expect_bad "empty file" "empty" decode "$tmp/empty.bin"
[ ! -s "$tmp/out" ] && pass || fail "empty file: stdout not empty"
expect_bad "missing file" "cannot open" decode "$tmp/does-not-exist"

# garbage after the magic: rejected at offset 4, nothing on stdout
{ printf '\xfebin'; head -c 200 /dev/zero | tr '\0' '\377'; } >"$tmp/garbage.bin"
expect_bad "garbage after magic" "offset 4" decode "$tmp/garbage.bin"
[ ! -s "$tmp/out" ] && pass || fail "garbage after magic: stdout not empty" "$(head -c 200 "$tmp/out")"
{ printf '\xfebin'; head -c 300 /dev/urandom; } >"$tmp/random.bin"
run decode "$tmp/random.bin"
sanitizer_clean "random after magic" && { [ $rc -eq 1 ] && pass || fail "random after magic: exit $rc"; }
# an event whose size field is smaller than the header
{ printf '\xfebin'; head -c 9 /dev/zero; printf '\x05\x00\x00\x00'; head -c 6 /dev/zero; } >"$tmp/small.bin"
expect_bad "event size < 19" "offset 4" decode "$tmp/small.bin"

# a good file and a bad one: the good one is printed, exit 1
run decode "$comp" "$tmp/text.txt"
if [ $rc -eq 1 ] && grep -q '^# at 4$' "$tmp/out" && grep -q 'not a binlog' "$tmp/err"; then pass; else
    fail "good + bad file: exit $rc" "$(head -3 "$tmp/err")"; fi

# ---------------------------------------------------------------- stdin, several files
run decode - <"$comp"
if [ $rc -eq 0 ] && grep -q '^# .* events (.* inside payloads), .* payloads$' "$tmp/out"; then pass; else
    fail "decode - (stdin): exit $rc" "$(head -3 "$tmp/err")"; fi
run decode --json "$comp" "$comp"
if [ $rc -eq 0 ] && [ "$(grep -c 'events (' "$tmp/err")" = 2 ]; then pass; else
    fail "two files --json: exit $rc" "$(head -3 "$tmp/err")"; fi

# ---------------------------------------------------------------- usage
run --help
[ $rc -eq 0 ] && grep -q decode "$tmp/out" && pass || fail "--help: exit $rc"
run --version
[ $rc -eq 0 ] && grep -q '^cdcharness ' "$tmp/out" && pass || fail "--version: exit $rc"
run decode --help
[ $rc -eq 0 ] && grep -q -- '--json' "$tmp/out" && pass || fail "decode --help: exit $rc"
run
[ $rc -eq 2 ] && pass || fail "no arguments: exit $rc, expected 2"
run frobnicate
[ $rc -eq 2 ] && grep -q usage "$tmp/err" && pass || fail "unknown subcommand: exit $rc, expected 2"
run decode
[ $rc -eq 2 ] && pass || fail "decode without files: exit $rc, expected 2"
run decode --bogus "$comp"
[ $rc -eq 2 ] && [ ! -s "$tmp/out" ] && pass || fail "decode --bogus: exit $rc, expected 2"

# ---------------------------------------------------------------- --canonical --start
# A replica that asks for the end of the 4th data transaction gets exactly the changes after it,
# compressed and uncompressed (the reference adapter's path for scenario `start:`).
scen=$(cd "$(dirname "$0")/.." && pwd)/scenarios/start-by-gtid-set.yaml
if "$bin" gen "$scen" --out "$tmp/start" >/dev/null 2>&1; then
    for mode in uncompressed compressed; do
        d=$tmp/start/$mode
        at=$(python3 -c '
import json, sys
seen = []
for line in open(sys.argv[1]):
    e = json.loads(line)
    if e["txn"] not in seen:
        seen.append(e["txn"])
        if len(seen) == 4:
            print("%s:%d %d" % (e["pos"]["file"], e["pos"]["pos"], e["txn"]))
            break' "$d/expected.jsonl")
        start=${at% *} txn=${at#* }
        run decode --canonical --scenario "$scen" --start "$start" "$d/binlog.000001"
        python3 -c '
import json, sys
want = [l for l in open(sys.argv[1]) if json.loads(l)["txn"] > int(sys.argv[3])]
got = open(sys.argv[2]).readlines()
sys.exit(0 if got == want and len(want) == 7 else 1)' "$d/expected.jsonl" "$tmp/out" "$txn"
        same=$?
        [ $rc -eq 0 ] && [ $same -eq 0 ] && pass || fail "decode --canonical --start $start ($mode): exit $rc or not exactly the changes after txn $txn"
    done
else
    fail "gen $scen failed"
fi
run decode --canonical --start nocolon "$comp"
[ $rc -eq 2 ] && grep -q 'FILE:POS' "$tmp/err" && pass || fail "decode --start without FILE:POS: exit $rc, expected 2"
run decode --start binlog.000001:4 "$comp"
[ $rc -eq 2 ] && grep -q -- '--start needs --canonical' "$tmp/err" && pass || fail "decode --start without --canonical: exit $rc"

echo "$passed passed, $failed failed"
[ $failed -eq 0 ]
