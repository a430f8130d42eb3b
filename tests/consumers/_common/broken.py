#!/usr/bin/env python3
"""Deliberately broken (and one deliberately odd but correct) test adapters.

Each tests/consumers/<family>/manifest.yaml runs this with one behaviour:

    broken.py BEHAVIOUR

It runs the reference consumer (`$CDCH_BIN decode --canonical` over
$CDCH_BINLOG_FILES, the `source: files` environment of consumers/README.md),
then prints its change events altered one way, as a consumer with that bug
would. tests/run_verdicts.sh asserts the verdict `cdcharness run` gives each.

  duplicate          the second transaction is emitted twice
  reorder            the second and third transactions swap places
  checkpoint-zero    rows of compressed transactions report pos 0
  value              the first UPDATE's after.note is altered
  hang               one transaction, then nothing, ignoring SIGTERM
  late-flush         rows of compressed transactions handed to the sink on a
                     1 s timer: printed after the watermark (late, not lost),
                     then nothing until stopped
  late-busy          rows of compressed transactions printed after the watermark,
                     once 2 CPU-seconds were spent after it printing nothing (busy,
                     never quiet: late, not lost, unless the manifest claims
                     in-order delivery), then nothing until stopped
  spin               one transaction, then a loop at 100 % CPU printing nothing
  skip-compressed    rows of compressed transactions are dropped, silently
  announce-skip      same, but an error line is printed for each
  die-on-compressed  exits 1 at the first compressed transaction (a consumer
                     that does not know event type 40)
  correct            the reference's events as they are
  drop-watermark     correct, but the watermark row is filtered out (check-adapter)
  stdout-logs        correct, with log lines on stdout between the events (check-adapter)
  by-version         the behaviour BY_VERSION names for $CDCH_VERSION
  installed          the behaviour the family's setup wrote to $CDCH_CACHE/behaviour
                     (tests/consumers/versioned-sim: versions the manifest does not pin,
                     local builds); with a configuration ($CDCH_CONFIG, a JSON object):
                     "behaviour" overrides it, "unsupported" is refused (config-error,
                     exit 2), "host" is the harness's (kept); the config line is printed
  session B          (first argument) session mode around behaviour B
  equivalent         correct, in other spellings the harness must accept:
                     decimals without trailing zeros, floats at float
                     precision, JSON objects with keys in another order,
                     "@N" column names, GTID sets instead of GTIDs

Fault classes for tests/data/run-faults.yaml (the first column of an image
is the table's primary key there):

  nonfinite COL SPELL   the first row image holding COL gets SPELL instead:
                        a raw JSON number (1e999, -1e999) or a string
                        ("Infinity", "-Infinity", "NaN", ...); COL may be
                        doc.PATH for a number inside a JSON document
  nonfinite-many        several non-finite spellings, one per row
  wrong-op-delete       the first delete is emitted as an update
  wrong-op-insert       the first insert into items is emitted as an update
  wrong-db              one row names db "shop2"
  wrong-table           one row names table "items_v2"
  wrong-key             one row's key column (sku) is 99 instead of 2
  drop-row              the second row of the first two-row transaction is
                        dropped (the rest of that transaction arrives)
  double-as-float       DOUBLE values rounded to float32
  big-as-double         integers beyond 2^53 printed as JSON doubles
  phantom-row           an extra log row (id 99) that never happened
  extra-column          one row image carries a column the table lacks
  missing-column        one row image lacks a column
  warn-then-correct     error lines (at the start, between transactions)
                        and every row correctly
  warn-start-skip       one generic error line at the start (it names no
                        event), then compressed transactions dropped
                        silently: silent-skip
  announce-once-skip    one error line naming event type 40 at the first
                        compressed transaction, then every compressed one
                        dropped (as @vlasky/zongji >= 0.7.0): announced-skip
  late-announce-skip    drops compressed transactions, printing an error line
                        for each only after the first row past the hole
  warn-at-end           every row correctly, then one error line
  die-plain-skip        uncompressed stream: exits 1 after the second
                        transaction; compressed: drops compressed
                        transactions silently
  value-and-die         alters the first row's last column, exits 1 at
                        the first compressed transaction
  ckpt-die              pos 0 on every row, exits 1 at the first compressed
                        transaction
  dup-value             the second transaction twice, the first row's last
                        column altered
  value-skip            the first row's last column altered, compressed
                        transactions dropped silently
  keyupd                key-changing UPDATEs as delete + insert, adjacent
  keyupd-split          same, the insert moved to the end of its
                        transaction (another row between)
  keyupd-other-txn      same, adjacent, but the insert of a key change
                        alone in its transaction carries the next
                        transaction's GTID and pos
  table-previous-map    in compressed transactions, each run of rows of one table
                        named after the table of the run before it (a consumer that
                        names a row after the previous TABLE_MAP's table when two
                        tables alternate inside one payload); values and
                        checkpoints right
  int-exponent          every integer written as Jackson writes a BigDecimal
                        (stripTrailingZeros: 10 -> 1E+1, 120 -> 1.2E+2)
  gtid-hole             the GTID set executed through the row's transaction as
                        its checkpoint, but without the compressed transactions
                        before it (uuid:1-4:6): its highest GNO is right
  enum-off-by-one       every ENUM label one too far (the last one: "")
  odd KIND...           correct in unusual spellings: strings (numbers as
                        strings), at-names ("@N" columns), set-bitmap,
                        enum-index, gtid-upper, gtid-set, json-keys
                        (object keys reordered), time-padded (TIME hours
                        zero-padded to three digits)
"""
import json
import os
import re
import signal
import subprocess
import sys
import time


RAW = "\x00raw:"  # a string value starting so is printed as raw JSON text (e.g. the number 1e999)


def emit(obj):
    line = json.dumps(obj, separators=(",", ":"), ensure_ascii=False, allow_nan=False)
    if "\\u0000raw:" in line:
        line = re.sub(r'"\\u0000raw:([^"]*)"', r"\1", line)
    print(line, flush=True)


def rewrite_images(r, column):
    """Replace each image of row r (in place) by the {name: value} that column(index, key, value) returns
    per column, in order."""
    for img in ("before", "after"):
        if r[img] is not None:
            r[img] = dict(column(i, k, x) for i, (k, x) in enumerate(r[img].items()))


def reference_rows():
    cmd = [os.environ["CDCH_BIN"], "decode", "--canonical"]
    if os.environ.get("CDCH_SCENARIO"):
        cmd += ["--scenario", os.environ["CDCH_SCENARIO"]]
    cmd += os.environ["CDCH_BINLOG_FILES"].split()
    out = subprocess.run(cmd, stdout=subprocess.PIPE, check=True).stdout.decode("utf-8")
    return [json.loads(line) for line in out.splitlines() if line.strip()]


def groups(rows):
    """Rows grouped by transaction, in order."""
    out = []
    for r in rows:
        if out and out[-1][0]["txn"] == r["txn"]:
            out[-1].append(r)
        else:
            out.append([r])
    return out


def clean(r):
    """What a consumer prints: no answer-key fields."""
    r = dict(r)
    r.pop("txn", None)
    r.pop("compressed", None)
    return r


def strip_zeros(s):
    if isinstance(s, str) and "." in s and s.replace(".", "").replace("-", "").isdigit():
        s = s.rstrip("0").rstrip(".")
    return s


def main():
    if sys.argv[1] == "session":
        return session(sys.argv[2])
    run_one(sys.argv[1], sys.argv[2:])


def session(behaviour, run=None):
    """consumers/README.md "Session mode": one process serves many cells (run: the behaviour's
    function, run_one by default)."""
    run = run or run_one
    if os.environ.get("CDCH_SESSION") != "1":
        return run(behaviour)  # one-shot works too
    base = dict(os.environ)
    for line in sys.stdin:
        msg = json.loads(line)
        if msg["kind"] == "start":
            os.environ.clear()
            os.environ.update(base)
            os.environ.update(msg["env"])
            sys.stderr.write("session pid=%d cell=%s\n" % (os.getpid(), msg["cell"]))
            sys.stderr.flush()
            try:
                run(behaviour)
                status = 0  # a files consumer that read everything ends, as a one-shot run exits
            except SystemExit as e:
                status = e.code if isinstance(e.code, int) else 1
            emit({"kind": "ended", "cell": msg["cell"], "status": status})
        elif msg["kind"] == "stop":
            emit({"kind": "stopped", "cell": msg["cell"]})


BY_VERSION = {"1.0": "correct", "2.0": "skip-compressed", "2.1": "correct"}


def installed_behaviour():
    """The behaviour setup installed, under the user's configuration (consumers/README.md
    "Your configuration": the config line, kept settings, config-error)."""
    with open(os.path.join(os.environ["CDCH_CACHE"], "behaviour")) as f:
        behaviour = f.read().strip()
    effective = {"behaviour": behaviour, "host": "harness", "batch": "10"}
    kept = {}
    path = os.environ.get("CDCH_CONFIG")
    if path:
        with open(path) as f:
            user = json.load(f)
        for k, v in user.items():
            if k == "unsupported":
                emit({"kind": "config-error", "message": "unsupported=%s: no such setting in this consumer" % v})
                sys.exit(2)
            if k == "host":
                kept[k] = "the harness's fake primary"
                continue
            effective[k] = str(v)
    emit({"kind": "config", "effective": effective, "kept": kept})
    return effective["behaviour"]


def run_one(behaviour, args=()):
    if behaviour == "by-version":
        behaviour = BY_VERSION[os.environ["CDCH_VERSION"]]
    if behaviour == "installed":
        behaviour = installed_behaviour()
    rows = reference_rows()
    txns = groups(rows)
    emit({"kind": "ready"})
    if behaviour == "duplicate":
        for i, t in enumerate(txns):
            for r in t:
                emit(clean(r))
            if i == 1:
                for r in t:
                    emit(clean(r))
    elif behaviour == "reorder":
        if len(txns) > 2:
            txns[1], txns[2] = txns[2], txns[1]
        for t in txns:
            for r in t:
                emit(clean(r))
    elif behaviour == "checkpoint-zero":
        for r in rows:
            if r["compressed"]:
                r["pos"] = {"file": r["pos"]["file"], "pos": 0}
            emit(clean(r))
    elif behaviour == "value":
        done = False
        for r in rows:
            if not done and r["op"] == "update" and "note" in (r["after"] or {}):
                r["after"]["note"] = "CHANGED"
                done = True
            emit(clean(r))
    elif behaviour == "hang":
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
        for r in txns[0]:
            emit(clean(r))
        while True:
            time.sleep(1)
    elif behaviour == "late-flush":
        held = emit_holding_compressed(rows)
        time.sleep(1.0)  # the sink's flush timer: asleep, quiet
        emit_all(held)
        while True:
            time.sleep(1)
    elif behaviour == "late-busy":
        held = emit_holding_compressed(rows)
        until = time.process_time() + 2.0  # its own CPU: the same under any load
        x = 0
        while time.process_time() < until:
            x = (x * 31 + 7) % 1000003
        emit_all(held)
        while True:
            time.sleep(1)
    elif behaviour == "spin":  # one transaction, then 100 % CPU printing nothing
        for r in txns[0]:
            emit(clean(r))
        x = 0
        while True:
            x = (x * 31 + 7) % 1000003
    elif behaviour in ("skip-compressed", "announce-skip"):
        announced = set()
        for r in rows:
            if r["compressed"]:
                if behaviour == "announce-skip" and r["txn"] not in announced:
                    announced.add(r["txn"])
                    emit({"kind": "error", "message": "skipping unsupported event type 40 (txn %d)" % r["txn"]})
                continue
            emit(clean(r))
    elif behaviour == "die-on-compressed":
        for r in rows:
            if r["compressed"]:
                sys.stderr.write("ERROR: unknown binlog event type 40 at %s\n" % r["pos"]["file"])
                sys.exit(1)
            emit(clean(r))
    elif behaviour == "correct":
        for r in rows:
            emit(clean(r))
    elif behaviour == "drop-watermark":  # an adapter whose table filter drops cdch_watermark
        for r in rows:
            if r["table"] != "cdch_watermark":
                emit(clean(r))
    elif behaviour == "stdout-logs":  # an adapter whose logger writes to stdout
        for i, r in enumerate(rows):
            if i % 3 == 0:
                sys.stdout.write("INFO BinlogReader: event at %s\n" % r["pos"]["pos"])
            emit(clean(r))
    elif behaviour == "equivalent":
        for r in rows:
            r = clean(r)

            def column(i, k, x, table=r["table"]):
                if k == "total":
                    x = strip_zeros(x)
                elif k == "score" and isinstance(x, float):
                    x = x * (1 + 3e-8)
                elif k == "doc" and isinstance(x, dict):
                    x = dict(reversed(list(x.items())))
                return ("@%d" % (i + 1) if table == "hits" else k), x
            rewrite_images(r, column)
            for img in ("before", "after"):
                if r[img] is not None:
                    r[img] = dict(reversed(list(r[img].items())))
            if r.get("gtid"):
                uuid, gno = r["gtid"].rsplit(":", 1)
                r["gtid"] = "%s:1-%s" % (uuid, gno)
            emit(r)
    elif behaviour in FAULTS:
        FAULTS[behaviour](rows, txns, list(args))
    else:
        sys.stderr.write("broken.py: unknown behaviour %r\n" % behaviour)
        sys.exit(2)


# --- fault classes for tests/data/run-faults.yaml ------------------------------------------

def emit_all(rows):
    for r in rows:
        emit(clean(r))


def emit_holding_compressed(rows):
    """Prints the rows, the watermark's among them, but those of compressed transactions, which it
    returns: a sink that hands them on later (late-flush, late-busy)."""
    held = []
    for r in rows:
        if r["compressed"] and r["table"] != "cdch_watermark":
            held.append(r)
        else:
            emit(clean(r))
    return held


def first_row(rows, pred):
    for r in rows:
        if pred(r):
            return r
    raise SystemExit("broken.py: no row to alter in this scenario")


def image_with(r, col):
    """The image of r holding column col (after first), or None."""
    for img in ("after", "before"):
        if r[img] is not None and r[img].get(col) is not None:
            return r[img]
    return None


def spelled(spell):
    """1e999 / -1e999 / 1E400 ... are raw JSON numbers; anything else is a string value."""
    return RAW + spell if re.fullmatch(r"-?[0-9.]+[eE][+-]?[0-9]+", spell) else spell


def set_nonfinite(rows, col, spell):
    if col.startswith("doc."):
        path = col.split(".")[1:]

        def holds(r):
            img = image_with(r, "doc")
            d = img and img["doc"]
            for k in path:
                if not isinstance(d, dict) or k not in d:
                    return False
                d = d[k]
            return isinstance(d, (int, float))
        r = first_row(rows, holds)
        d = image_with(r, "doc")["doc"]
        for k in path[:-1]:
            d = d[k]
        d[path[-1]] = spelled(spell)
        return r
    r = first_row(rows, lambda r: image_with(r, col) is not None)
    image_with(r, col)[col] = spelled(spell)
    return r


def f_nonfinite(rows, txns, args):
    col, spell = args
    set_nonfinite(rows, col, spell)
    emit_all(rows)


def replace_first_number(doc, value):
    """doc with its first number (depth first) replaced by value; True when one was."""
    items = list(doc.items()) if isinstance(doc, dict) else list(enumerate(doc)) if isinstance(doc, list) else []
    for k, v in items:
        if isinstance(v, (int, float)) and not isinstance(v, bool):
            doc[k] = value
            return True
        if replace_first_number(v, value):
            return True
    return False


# (column, value) of nonfinite-many, one per after image of shop.items in order (tests/run_verdicts.sh
# expects one mismatch per entry): strings, then raw numbers, then a number inside the JSON column
NONFINITE_MANY = [("f", "inf"), ("d", "-inf"), ("f", "nan"), ("d", "1e999"), ("f", RAW + "-1E999"),
                  ("doc", RAW + "-1e999")]


def f_nonfinite_many(rows, txns, args):
    items = [r for r in rows if r["table"] == "items" and r["after"] is not None]
    for (col, value), r in zip(NONFINITE_MANY, items):
        if col == "doc":
            assert replace_first_number(r["after"]["doc"], value)
        else:
            r["after"][col] = value
    emit_all(rows)


def f_wrong_op_delete(rows, txns, args):
    r = first_row(rows, lambda r: r["op"] == "delete")
    r["op"] = "update"
    emit_all(rows)


def f_wrong_op_insert(rows, txns, args):
    r = first_row(rows, lambda r: r["op"] == "insert" and r["table"] == "items")
    r["op"] = "update"
    emit_all(rows)


def f_wrong_db(rows, txns, args):
    first_row(rows, lambda r: r["table"] == "items" and r["op"] == "update")["db"] = "shop2"
    emit_all(rows)


def f_wrong_table(rows, txns, args):
    first_row(rows, lambda r: r["table"] == "items" and r["op"] == "update")["table"] = "items_v2"
    emit_all(rows)


def f_wrong_key(rows, txns, args):
    r = first_row(rows, lambda r: r["op"] == "insert" and r["table"] == "items" and r["after"]["sku"] == 2)
    r["after"]["sku"] = 99
    emit_all(rows)


def f_drop_row(rows, txns, args):
    t = next(t for t in txns if len(t) >= 2)
    dropped = t[1]
    emit_all(r for r in rows if r is not dropped)


def f32(x):
    import struct
    return struct.unpack("<f", struct.pack("<f", x))[0]


def f_double_as_float(rows, txns, args):
    for r in rows:
        for img in (r["before"], r["after"]):
            if img and isinstance(img.get("d"), float) and abs(img["d"]) < 3e38 and f32(img["d"]) != img["d"]:
                img["d"] = f32(img["d"])
    emit_all(rows)


def f_big_as_double(rows, txns, args):
    for r in rows:
        for img in (r["before"], r["after"]):
            if img and img.get("big") is not None and int(img["big"]) > 2 ** 53:
                img["big"] = float(int(img["big"]))
    emit_all(rows)


def f_phantom_row(rows, txns, args):
    for r in rows:
        emit(clean(r))
        if r["table"] == "log" and r["after"]["id"] == 2:
            p = clean(r)
            p["after"] = {"id": 99, "msg": "never happened"}
            emit(p)


def f_extra_column(rows, txns, args):
    first_row(rows, lambda r: r["table"] == "items" and r["op"] == "insert")["after"]["colour"] = "red"
    emit_all(rows)


def f_missing_column(rows, txns, args):
    del first_row(rows, lambda r: r["table"] == "items" and r["op"] == "insert")["after"]["note"]
    emit_all(rows)


def f_warn_then_correct(rows, txns, args):
    emit({"kind": "error", "message": "WARN lost connection to the primary, reconnecting"})
    for i, t in enumerate(txns):
        emit_all(t)
        if i == 1:
            emit({"kind": "error", "message": "WARN slow consumer: queue 90% full"})


def f_warn_start_skip(rows, txns, args):
    emit({"kind": "error", "message": "WARN binlog checksum query failed, continuing"})  # names no event
    emit_all(r for r in rows if not r["compressed"])


def f_announce_once_skip(rows, txns, args):
    said = False
    for r in rows:
        if r["compressed"]:
            if not said:
                emit({"kind": "error", "message": "skipping unsupported event type 40 (txn %d)" % r["txn"]})
                said = True
            continue
        emit(clean(r))


def f_late_announce_skip(rows, txns, args):
    owed = []
    for r in rows:
        if r["compressed"]:
            if r["txn"] not in owed:
                owed.append(r["txn"])
            continue
        emit(clean(r))
        for t in owed:  # said only after the first row past the hole: too late
            emit({"kind": "error", "message": "skipped unsupported event type 40 (txn %d)" % t})
        owed = []


def f_warn_at_end(rows, txns, args):
    emit_all(rows)
    emit({"kind": "error", "message": "WARN closing: 1 event left unacknowledged"})


def f_die_plain_skip(rows, txns, args):
    if any(r["compressed"] for r in rows):
        emit_all(r for r in rows if not r["compressed"])
        return
    for t in txns[:2]:
        emit_all(t)
    sys.stderr.write("ERROR: cannot parse plain row events after 2 transactions\n")
    sys.exit(1)


def f_value_and_die(rows, txns, args):
    r = rows[0]
    last = list(r["after"])[-1]
    r["after"][last] = "CHANGED"
    for r in rows:
        if r["compressed"]:
            sys.stderr.write("ERROR: unknown binlog event type 40 at %s\n" % r["pos"]["file"])
            sys.exit(1)
        emit(clean(r))


def f_ckpt_die(rows, txns, args):
    for r in rows:
        if r["compressed"]:
            sys.stderr.write("ERROR: unknown binlog event type 40 at %s\n" % r["pos"]["file"])
            sys.exit(1)
        r["pos"] = {"file": r["pos"]["file"], "pos": 0}
        emit(clean(r))


def f_dup_value(rows, txns, args):
    r = rows[0]
    r["after"][list(r["after"])[-1]] = "CHANGED"
    for i, t in enumerate(txns):
        emit_all(t)
        if i == 1:
            emit_all(t)


def f_value_skip(rows, txns, args):
    r = rows[0]
    r["after"][list(r["after"])[-1]] = "CHANGED"
    emit_all(r for r in rows if not r["compressed"])


def key_changed(r):
    if r["op"] != "update" or not r["before"] or not r["after"]:
        return False
    k = next(iter(r["before"]))
    return r["before"][k] != r["after"].get(k)


def as_delete_insert(r):
    d = clean(r)
    d["op"], d["after"] = "delete", None
    i = clean(r)
    i["op"], i["before"] = "insert", None
    return d, i


def f_keyupd(rows, txns, args):
    for r in rows:
        if key_changed(r):
            for x in as_delete_insert(r):
                emit(x)
        else:
            emit(clean(r))


def f_keyupd_split(rows, txns, args):
    for t in txns:
        later = []
        for r in t:
            if key_changed(r):
                d, i = as_delete_insert(r)
                emit(d)
                later.append(i)
            else:
                emit(clean(r))
        for i in later:
            emit(i)


def f_keyupd_other_txn(rows, txns, args):
    carry = None
    for t in txns:
        if carry is not None:
            carry["gtid"], carry["pos"] = t[0].get("gtid"), t[0].get("pos")
            emit(carry)
            carry = None
        for r in t:
            if key_changed(r):
                d, i = as_delete_insert(r)
                emit(d)
                if len(t) == 1:
                    carry = i
                else:
                    emit(i)
            else:
                emit(clean(r))
    if carry is not None:
        emit(carry)


# members of run-faults' SET/ENUM columns (tests/data/run-faults.yaml)
SET_MEMBERS = {"tags": ["red", "green", "blue"]}
ENUM_MEMBERS = {"status": ["new", "paid", "shipped"]}


def json_keys_reordered(x):
    if isinstance(x, dict):
        return {k: json_keys_reordered(x[k]) for k in sorted(x, reverse=True)}
    if isinstance(x, list):
        return [json_keys_reordered(v) for v in x]
    return x


def time_padded(v):
    sign = "-" if v.startswith("-") else ""
    h, rest = v.lstrip("-").split(":", 1)
    return "%s%03d:%s" % (sign, int(h), rest)


def f_odd(rows, txns, kinds):
    def column(i, k, x):
        if "strings" in kinds and k != "doc" and isinstance(x, (int, float)) and not isinstance(x, bool):
            x = repr(x) if isinstance(x, float) else str(x)
        if "set-bitmap" in kinds and k in SET_MEMBERS and isinstance(x, list):
            x = sum(1 << SET_MEMBERS[k].index(m) for m in x)
        if "enum-index" in kinds and k in ENUM_MEMBERS and isinstance(x, str):
            x = ENUM_MEMBERS[k].index(x) + 1
        if "json-keys" in kinds and k == "doc":
            x = json_keys_reordered(x)
        if "time-padded" in kinds and k == "dur" and isinstance(x, str):
            x = time_padded(x)
        return ("@%d" % (i + 1) if "at-names" in kinds else k), x
    for r in rows:
        r = clean(r)
        rewrite_images(r, column)
        if r.get("gtid"):
            uuid, gno = r["gtid"].rsplit(":", 1)
            if "gtid-upper" in kinds:
                uuid = uuid.upper()
            if "gtid-set" in kinds:
                gno = "1-" + gno
            r["gtid"] = "%s:%s" % (uuid, gno)
        emit(r)


def f_table_previous_map(rows, txns, args):
    for t in txns:
        prev = None  # (db, table) of the run before the current one
        cur = None
        for r in t:
            here = (r["db"], r["table"])
            if here != cur:
                prev, cur = cur, here
            if r["compressed"] and prev is not None:
                r["db"], r["table"] = prev
            emit(clean(r))


def big_decimal(n):
    """java.math.BigDecimal(n).stripTrailingZeros().toString(), as Jackson writes it."""
    digits = str(abs(n))
    stripped = digits.rstrip("0")
    if n == 0 or stripped == digits:
        return str(n)
    mant = stripped[0] + ("." + stripped[1:] if len(stripped) > 1 else "")
    return "%s%sE+%d" % ("-" if n < 0 else "", mant, len(digits) - 1)


def f_int_exponent(rows, txns, args):
    def column(i, k, x):
        if isinstance(x, int) and not isinstance(x, bool):
            x = RAW + big_decimal(x)
        return k, x
    for r in rows:
        rewrite_images(r, column)
        emit(clean(r))


def f_gtid_hole(rows, txns, args):
    compressed = set()  # GNOs of the compressed transactions seen: never added to the set
    for r in rows:
        r = dict(r)
        if r.get("gtid"):
            uuid, gno = r["gtid"].rsplit(":", 1)
            gno = int(gno)
            done = [g for g in range(1, gno) if g not in compressed] + [gno]
            parts, start = [], None
            for g in done + [None]:
                if start is not None and (g is None or g != last + 1):
                    parts.append(str(start) if start == last else "%d-%d" % (start, last))
                    start = None
                if g is not None and start is None:
                    start = g
                last = g
            r["gtid"] = "%s:%s" % (uuid, ":".join(parts)) if parts else None
            if r["compressed"]:
                compressed.add(gno)
        emit(clean(r))


# ENUM columns of tests/data/run-faults.yaml and tests/data/run-enum-steps.yaml
ENUM_LABELS = dict(ENUM_MEMBERS, stage=["new", "paid", "shipped", "done"])


def f_enum_off_by_one(rows, txns, args):
    def column(i, k, x):
        if k in ENUM_LABELS and isinstance(x, str) and x in ENUM_LABELS[k]:
            labels = ENUM_LABELS[k]
            n = labels.index(x) + 1
            x = labels[n] if n < len(labels) else ""
        return k, x
    for r in rows:
        rewrite_images(r, column)
        emit(clean(r))


FAULTS = {
    "nonfinite": f_nonfinite,
    "nonfinite-many": f_nonfinite_many,
    "wrong-op-delete": f_wrong_op_delete,
    "wrong-op-insert": f_wrong_op_insert,
    "wrong-db": f_wrong_db,
    "wrong-table": f_wrong_table,
    "wrong-key": f_wrong_key,
    "drop-row": f_drop_row,
    "double-as-float": f_double_as_float,
    "big-as-double": f_big_as_double,
    "phantom-row": f_phantom_row,
    "extra-column": f_extra_column,
    "missing-column": f_missing_column,
    "warn-then-correct": f_warn_then_correct,
    "warn-start-skip": f_warn_start_skip,
    "announce-once-skip": f_announce_once_skip,
    "late-announce-skip": f_late_announce_skip,
    "warn-at-end": f_warn_at_end,
    "die-plain-skip": f_die_plain_skip,
    "value-and-die": f_value_and_die,
    "ckpt-die": f_ckpt_die,
    "dup-value": f_dup_value,
    "value-skip": f_value_skip,
    "keyupd": f_keyupd,
    "keyupd-split": f_keyupd_split,
    "keyupd-other-txn": f_keyupd_other_txn,
    "odd": f_odd,
    "table-previous-map": f_table_previous_map,
    "int-exponent": f_int_exponent,
    "gtid-hole": f_gtid_hole,
    "enum-off-by-one": f_enum_off_by_one,
}


if __name__ == "__main__":
    main()
