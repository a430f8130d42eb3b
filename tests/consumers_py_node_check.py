#!/usr/bin/env python3
"""Check one adapter run (tests/consumers_py_node.sh) against a stream's expected.jsonl.

    consumers_py_node_check.py EXPECTED.jsonl OBSERVED.jsonl PREDICTION [KNOWN]

PREDICTION is what the reference predicts for this consumer version and stream:
  pass           every expected row, in order, equal
  silent-skip    no error line; exactly the expected rows of uncompressed transactions
                 ("compressed": false), and at least one expected row missing
  error-skip     at least one {"kind":"error"} line naming the compressed transaction /
                 TRANSACTION_PAYLOAD event, and the rows of uncompressed transactions
                 (the consumer reports the error and goes on: @vlasky/zongji >= 0.7)

Rows compare on op, db, table and the before/after images. Image keys are the expected
column names, or "@1", "@2", ... matched by position. Values: integers exactly, decimal
strings exactly, other numbers as doubles or at float32 precision, strings exactly,
objects/arrays structurally.

KNOWN: comma-separated "table.column" (or "*.column", "table.*") whose values the consumer
cannot represent faithfully (documented in its adapter); differences there are listed as
"known" and do not fail the check. Any other difference fails.

Prints "ok: ..." or "FAIL: ..." plus detail lines; exit 0 when the prediction holds.
"""
import json
import struct
import sys
from decimal import Decimal


def load(path):
    rows, errors, bad = [], [], []
    with open(path, "rb") as f:
        for n, line in enumerate(f, 1):
            line = line.strip()
            if not line:
                continue
            try:
                obj = json.loads(line, parse_float=Decimal)
            except ValueError:
                bad.append(f"line {n} is not JSON: {line[:100]!r}")
                continue
            if isinstance(obj, dict) and "op" in obj:
                rows.append(obj)
            elif isinstance(obj, dict) and obj.get("kind") == "error":
                errors.append(str(obj.get("message", "")))
            elif isinstance(obj, dict) and obj.get("kind"):
                pass
            else:
                bad.append(f"line {n}: unexpected {line[:100]!r}")
    return rows, errors, bad


def is_int(v):
    return isinstance(v, int) and not isinstance(v, bool)


def f32(d):
    try:
        return struct.unpack("<f", struct.pack("<f", float(d)))[0]
    except OverflowError:
        return float("inf") if d > 0 else float("-inf")


def jeq(a, b):
    num = (int, Decimal)
    if isinstance(a, num) and isinstance(b, num) and not isinstance(a, bool) and not isinstance(b, bool):
        if is_int(a) and is_int(b):
            return a == b
        return float(a) == float(b) or f32(a) == f32(b)
    if type(a) is not type(b):
        return False
    if isinstance(a, dict):
        return a.keys() == b.keys() and all(jeq(a[k], b[k]) for k in a)
    if isinstance(a, list):
        return len(a) == len(b) and all(jeq(x, y) for x, y in zip(a, b))
    return a == b


def short(v):
    s = json.dumps(v, ensure_ascii=False, default=str)
    return s if len(s) <= 160 else s[:160] + "..."


class Known:
    def __init__(self, spec):
        self.items = {x.strip() for x in (spec or "").split(",") if x.strip()}

    def __contains__(self, tc):
        t, c = tc
        return f"{t}.{c}" in self.items or f"*.{c}" in self.items or f"{t}.*" in self.items


def diff_rows(e, g):
    """[(column, expected, got)] differences of one row."""
    out = []
    for k in ("op", "db", "table"):
        if e.get(k) != g.get(k):
            return [(k, e.get(k), g.get(k))]
    for which in ("before", "after"):
        ev, gv = e.get(which), g.get(which)
        if ev is None or gv is None:
            if not (ev is None and gv is None):
                out.append((which, ev, gv))
            continue
        ek, gk = list(ev), list(gv)
        if gk == ek:
            pairs = list(zip(ek, gk))
        elif len(gk) == len(ek) and all(k.startswith("@") and k[1:].isdigit() for k in gk):
            pairs = list(zip(ek, gk))
        else:
            out.append((which + " columns", ek, gk))
            continue
        for a, b in pairs:
            if not jeq(ev[a], gv[b]):
                out.append((a, ev[a], gv[b]))
    return out


def compare(exp, got, known, label):
    """Returns (failures, known_diffs)."""
    fails, knowns = [], {}
    if len(exp) != len(got):
        fails.append(f"{label}: {len(got)} rows, expected {len(exp)}")
    for i, (e, g) in enumerate(zip(exp, got)):
        for col, ev, gv in diff_rows(e, g):
            if (e.get("table"), col) in known:
                knowns.setdefault(f"{e.get('table')}.{col}", (ev, gv))
            else:
                fails.append(f"{label}: row {i + 1} ({e.get('op')} {e.get('db')}.{e.get('table')}, "
                             f"txn {e.get('txn')}) column {col}: expected {short(ev)}, got {short(gv)}")
                if len(fails) > 5:
                    return fails, knowns
    return fails, knowns


def main(argv):
    if len(argv) not in (4, 5):
        print(__doc__, file=sys.stderr)
        return 2
    exp, _, _ = load(argv[1])
    got, errors, bad = load(argv[2])
    pred = argv[3]
    known = Known(argv[4] if len(argv) == 5 else "")
    plain = [e for e in exp if not e.get("compressed")]
    n_comp_tx = len({e.get("txn") for e in exp if e.get("compressed")})
    fails = list(bad)
    if pred == "pass":
        if errors:
            fails.append("error lines: " + "; ".join(errors)[:300])
        f, knowns = compare(exp, got, known, "rows")
        fails += f
    elif pred in ("silent-skip", "error-skip"):
        if not n_comp_tx:
            fails.append("the expected stream has no compressed transaction")
        f, knowns = compare(plain, got, known, "rows outside compressed transactions")
        fails += f
        if pred == "silent-skip" and errors:
            fails.append("error lines (expected none): " + "; ".join(errors)[:300])
        if pred == "error-skip":
            hits = [m for m in errors if "TRANSACTION_PAYLOAD" in m or "compress" in m.lower()]
            if not hits:
                fails.append("no error line about the compressed transactions; errors: "
                             + ("; ".join(errors)[:300] or "none"))
    else:
        print(f"unknown prediction {pred}", file=sys.stderr)
        return 2
    for col, (ev, gv) in sorted(knowns.items()):
        print(f"  known: {col}: expected {short(ev)}, consumer gave {short(gv)}")
    if fails:
        print(f"FAIL: predicted {pred}")
        for line in fails:
            print("  " + line)
        return 1
    detail = f"{len(got)} rows"
    if pred != "pass":
        detail += f", {len(exp) - len(plain)} rows in {n_comp_tx} compressed transactions missing"
    if errors:
        detail += f", error: {errors[0][:120]}"
    print(f"ok: {pred} ({detail})")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
