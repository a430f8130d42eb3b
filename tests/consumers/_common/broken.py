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
  skip-compressed    rows of compressed transactions are dropped, silently
  announce-skip      same, but an error line is printed for each
  die-on-compressed  exits 1 at the first compressed transaction (a consumer
                     that does not know event type 40)
  correct            the reference's events as they are
  by-version         the behaviour BY_VERSION names for $CDCH_VERSION
  session B          (first argument) session mode around behaviour B
  equivalent         correct, in other spellings the harness must accept:
                     decimals without trailing zeros, floats at float
                     precision, JSON objects with keys in another order,
                     "@N" column names, GTID sets instead of GTIDs
"""
import json
import os
import signal
import subprocess
import sys
import time


def emit(obj):
    print(json.dumps(obj, separators=(",", ":"), ensure_ascii=False), flush=True)


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
    run_one(sys.argv[1])


def session(behaviour):
    """consumers/README.md "Session mode": one process serves many cells."""
    if os.environ.get("CDCH_SESSION") != "1":
        return run_one(behaviour)  # one-shot works too
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
                run_one(behaviour)
                status = 0  # a files consumer that read everything ends, as a one-shot run exits
            except SystemExit as e:
                status = e.code if isinstance(e.code, int) else 1
            emit({"kind": "ended", "cell": msg["cell"], "status": status})
        elif msg["kind"] == "stop":
            emit({"kind": "stopped", "cell": msg["cell"]})


BY_VERSION = {"1.0": "correct", "2.0": "skip-compressed", "2.1": "correct"}


def run_one(behaviour):
    if behaviour == "by-version":
        behaviour = BY_VERSION[os.environ["CDCH_VERSION"]]
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
    elif behaviour == "equivalent":
        for r in rows:
            r = clean(r)
            for img in ("before", "after"):
                v = r[img]
                if v is None:
                    continue
                new = {}
                for i, (k, x) in enumerate(v.items()):
                    if k == "total":
                        x = strip_zeros(x)
                    elif k == "score" and isinstance(x, float):
                        x = x * (1 + 3e-8)
                    elif k == "doc" and isinstance(x, dict):
                        x = dict(reversed(list(x.items())))
                    name = "@%d" % (i + 1) if r["table"] == "hits" else k
                    new[name] = x
                r[img] = dict(reversed(list(new.items())))
            if r.get("gtid"):
                uuid, gno = r["gtid"].rsplit(":", 1)
                r["gtid"] = "%s:1-%s" % (uuid, gno)
            emit(r)
    else:
        sys.stderr.write("broken.py: unknown behaviour %r\n" % behaviour)
        sys.exit(2)


if __name__ == "__main__":
    main()
