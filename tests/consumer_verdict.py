#!/usr/bin/env python3
"""Verdict of one adapter run against a stream's expected.jsonl.

    consumer_verdict.py EXPECTED.jsonl OBSERVED.jsonl [--allow CLASS,...] [--checkpoints]

OBSERVED is an adapter's stdout (consumers/README.md: change events and
{"kind":...} control lines). Rows are compared in order on op, db, table and
the before/after images (design.md section 4); with --checkpoints also on
gtid and pos where the consumer reports them (null / absent = not exposed). Image keys: equal to expected's, or "@1", "@2", ... matched by
position with expected's keys (which are in column order).

Values compare by JSON type: integers exactly, decimal strings exactly,
numbers as IEEE doubles, objects/arrays structurally. A difference is put in
a class; --allow lists classes that count as equal (what a consumer cannot
represent, documented in its adapter):

  enum-index   ENUM printed as its 1-based index (no labels); the index must
               map to one label consistently
  set-bitmap   SET printed as its member bitmap; popcount must equal the
               number of labels, and one bitmap one label set
  float32      a number equal to expected only at single precision
  value        any other value difference (never allowed by default)

--survey instead lists every differing column (table, column, class, count,
first example) over all row pairs, for documenting a consumer's mapping.

Observed rows are matched to expected rows in order (same op, db, table and
equal values); an unmatched observed row is paired with the next missing
expected row of the same op/db/table (a value mismatch), else it is extra.
Prints one line "verdict: V (detail)" where V is design.md section 6's, in
the precedence `cdcharness run` uses (harness/run/verdict.c):
  parse-failure  rows missing (a hole, or the tail) and an error line
  silent-skip    rows missing and no error line (the caller knows the
                 consumer went idle / finished)
  mismatch       rows there but differing, or extra rows
  bad-checkpoint rows as for pass, but a reported gtid/pos differs (--checkpoints)
  parse-failure  every row arrived, but an error line
  pass           every expected row, in order, equal (modulo --allow)
followed by detail lines (the error message, missing transactions, the
first difference, difference classes seen). Exit status 0 (2 on bad input).
"""
import json
import re
import struct
import sys
from decimal import Decimal


NUMERIC = re.compile(r"-?[0-9]+(\.[0-9]+)?")


def load(path):
    rows, errors, other = [], [], []
    with open(path, "rb") as f:
        for n, line in enumerate(f, 1):
            line = line.strip()
            if not line:
                continue
            try:
                obj = json.loads(line, parse_float=Decimal)
            except ValueError:
                other.append(f"line {n} is not JSON: {line[:120]!r}")
                continue
            if not isinstance(obj, dict):
                other.append(f"line {n} is not an object")
            elif "op" in obj:
                rows.append(obj)
            elif obj.get("kind") == "error":
                errors.append(obj.get("message", ""))
    return rows, errors, other


def is_int(v):
    return isinstance(v, int) and not isinstance(v, bool)


def is_num(v):
    return is_int(v) or isinstance(v, Decimal)


def f32(d):
    try:
        return struct.unpack("<f", struct.pack("<f", float(d)))[0]
    except OverflowError:
        return float("inf") if d > 0 else float("-inf")


def jeq(a, b, single=False):
    if is_num(a) and is_num(b):
        if is_int(a) and is_int(b):
            return a == b
        return f32(a) == f32(b) if single else float(a) == float(b)
    if type(a) is not type(b):
        return False
    if isinstance(a, dict):
        return a.keys() == b.keys() and all(jeq(a[k], b[k], single) for k in a)
    if isinstance(a, list):
        return len(a) == len(b) and all(jeq(x, y, single) for x, y in zip(a, b))
    return a == b


def dump(v):
    def default(o):
        if isinstance(o, Decimal):
            return float(o)
        raise TypeError
    s = json.dumps(v, ensure_ascii=False, default=default)
    return s if len(s) <= 200 else s[:200] + "..."


class Cmp:
    def __init__(self, allow, checkpoints, survey=False):
        self.dry = False
        self.survey = survey
        self.surveyed = {}  # (table, column, class) -> (count, example)
        self.allow = allow
        self.checkpoints = checkpoints
        self.enum = {}   # (db, table, col, idx) -> label and (.., label) -> idx
        self.sets = {}
        self.classes = {}  # class -> count
        self.examples = {}
        self.checkpoint_bad = None  # first (row index, column, expected, got)

    def value_class(self, key, exp, got):
        """None if equal, else the difference class (records ENUM/SET mappings
        unless self.dry)."""
        if jeq(exp, got):
            return None
        if isinstance(exp, str) and is_int(got) and not NUMERIC.fullmatch(exp):
            if self.dry:
                a = self.enum.get(key + ("i", got), exp)
                b = self.enum.get(key + ("l", exp), got)
            else:
                a = self.enum.setdefault(key + ("i", got), exp)
                b = self.enum.setdefault(key + ("l", exp), got)
            return "enum-index" if a == exp and b == got else "value"
        if isinstance(exp, list) and (is_int(got) or (isinstance(got, str) and got.isdigit())):
            bm = int(got)
            prev = self.sets.get(key + (bm,), exp) if self.dry else self.sets.setdefault(key + (bm,), exp)
            return "set-bitmap" if bin(bm).count("1") == len(exp) and prev == exp else "value"
        if is_num(exp) and is_num(got) and jeq(exp, got, True):
            return "float32"
        return "value"

    def image(self, row, which, exp, got):
        """List of (column, class, exp, got) differences."""
        if exp is None or got is None:
            return [] if exp is None and got is None else [(which, "value", exp, got)]
        if not isinstance(got, dict):
            return [(which, "value", exp, got)]
        ek, gk = list(exp.keys()), list(got.keys())
        if gk == ek:
            pairs = [(k, k) for k in ek]
        elif gk and all(k.startswith("@") and k[1:].isdigit() for k in gk) and len(gk) == len(ek):
            pairs = list(zip(ek, gk))
        else:
            return [(which, "value", f"columns {ek}", f"columns {gk}")]
        out = []
        for e, g in pairs:
            cls = self.value_class((row["db"], row["table"], e), exp[e], got[g])
            if cls:
                out.append((f"{which}.{e}" + ("" if e == g else f" ({g})"), cls, exp[e], got[g]))
        return out

    def row(self, e, g):
        """Differences that are not allowed (after recording all)."""
        diffs = []
        for k in ("op", "db", "table"):
            if e.get(k) != g.get(k):
                diffs.append((k, "value", e.get(k), g.get(k)))
        if not diffs:
            diffs = self.image(e, "before", e.get("before"), g.get("before")) + \
                self.image(e, "after", e.get("after"), g.get("after"))
        if self.checkpoints:
            # a consumer that exposes no GTID / position prints null or omits it
            if g.get("gtid") is not None and e.get("gtid") != g.get("gtid"):
                diffs.append(("gtid", "checkpoint", e.get("gtid"), g.get("gtid")))
            if g.get("pos") is not None and e.get("pos") != g.get("pos"):
                diffs.append(("pos", "checkpoint", e.get("pos"), g.get("pos")))
        return diffs

    def seq(self, exp, got):
        """Compare two row lists; returns (n equal prefix, first bad diff or None)."""
        for i, (e, g) in enumerate(zip(exp, got)):
            bad = []
            for col, cls, ev, gv in self.row(e, g):
                if self.survey:
                    k = (f"{e.get('db')}.{e.get('table')}", col.split(".", 1)[-1], cls)
                    n, ex = self.surveyed.get(k, (0, (ev, gv)))
                    self.surveyed[k] = (n + 1, ex)
                self.classes[cls] = self.classes.get(cls, 0) + 1
                self.examples.setdefault(cls, (col, ev, gv, e.get("table")))
                if cls == "checkpoint":
                    if self.checkpoint_bad is None:
                        self.checkpoint_bad = (i, col, ev, gv)
                elif cls not in self.allow:
                    bad.append((col, cls, ev, gv))
            if bad and not self.survey:
                return i, (e, g, bad)
        return min(len(exp), len(got)), None


    def row_ok(self, e, g):
        """True when g can be e: same op/db/table and no value difference
        outside --allow (checkpoints ignored). Records nothing."""
        if (e.get("op"), e.get("db"), e.get("table")) != (g.get("op"), g.get("db"), g.get("table")):
            return False
        self.dry = True
        try:
            return all(cls in self.allow or cls == "checkpoint" for _, cls, _, _ in self.row(e, g))
        finally:
            self.dry = False

    def record(self, i, e, g):
        """Record the differences of an accepted pair; returns the not-allowed ones."""
        bad = []
        for col, cls, ev, gv in self.row(e, g):
            self.classes[cls] = self.classes.get(cls, 0) + 1
            self.examples.setdefault(cls, (col, ev, gv, e.get("table")))
            if cls == "checkpoint":
                if self.checkpoint_bad is None:
                    self.checkpoint_bad = (i, col, ev, gv)
            elif cls not in self.allow:
                bad.append((col, cls, ev, gv))
        return bad

    def align(self, exp, got):
        """Match observed rows to expected rows in order. Returns (matched
        {exp index: got index}, mismatched [(exp index, got index, diffs)],
        extra [got index], missing [exp index])."""
        matched, bad_obs, k = {}, [], 0
        for j, g in enumerate(got):
            found = next((i for i in range(k, len(exp)) if self.row_ok(exp[i], g)), None)
            if found is None:
                bad_obs.append(j)
                continue
            self.record(found, exp[found], g)
            matched[found] = j
            k = found + 1
        missing = [i for i in range(len(exp)) if i not in matched]
        mismatched, extra, used = [], [], set()
        for j in bad_obs:
            g = got[j]
            # pair with the first unpaired missing row of the same op/db/table
            i = next((i for i in missing if i not in used and
                      (exp[i].get("op"), exp[i].get("db"), exp[i].get("table")) ==
                      (g.get("op"), g.get("db"), g.get("table"))), None)
            if i is None:
                extra.append(j)
                continue
            used.add(i)
            mismatched.append((i, j, self.record(i, exp[i], g)))
        missing = [i for i in missing if i not in used]
        return matched, mismatched, extra, missing


def txns(rows):
    seen = []
    for r in rows:
        t = r.get("txn", r.get("gtid"))
        if t not in seen:
            seen.append(t)
    return seen


def main(argv):
    args = argv[1:]
    allow, checkpoints, survey = set(), False, False
    pos = []
    i = 0
    while i < len(args):
        if args[i] == "--allow":
            allow |= {c for c in args[i + 1].split(",") if c}
            i += 2
        elif args[i] == "--survey":
            survey = True
            i += 1
        elif args[i] == "--checkpoints":
            checkpoints = True
            i += 1
        else:
            pos.append(args[i])
            i += 1
    if len(pos) != 2:
        print(__doc__, file=sys.stderr)
        return 2
    exp, _, _ = load(pos[0])
    got, errors, other = load(pos[1])
    details = []
    if errors:
        details.append(f"error: {errors[0]}")
    for o in other[:3]:
        details.append(f"note: {o}")

    if survey:
        # every differing column over all row pairs (in order, no verdict)
        c = Cmp(allow, checkpoints, True)
        c.seq(exp, got)
        print(f"survey: {len(got)} rows observed, {len(exp)} expected, {len(errors)} error lines")
        for (t, col, cls), (n, (ev, gv)) in sorted(c.surveyed.items()):
            print(f"  {t} {col} [{cls}] x{n}: expected {dump(ev)}, got {dump(gv)}")
        return 0
    used = Cmp(allow, checkpoints)
    matched, mismatched, extra, missing = used.align(exp, got)
    last = max([i for i in matched] + [i for i, _, _ in mismatched], default=-1)
    holes = [i for i in missing if i < last]
    tail = [i for i in missing if i > last]

    def txn_list(idx):
        rows = [exp[i] for i in idx]
        ts = txns(rows)
        comp = {r.get("txn") for r in rows if r.get("compressed")}
        return ", ".join(f"{t}{'*' if t in comp else ''}" for t in ts[:20]) + (" ..." if len(ts) > 20 else "")

    def ncomp(idx):
        return len({exp[i].get("txn") for i in idx if exp[i].get("compressed")}), len(txns([exp[i] for i in idx]))

    if holes or tail:
        gone = holes or tail
        c, t = ncomp(missing)
        what = (f"{len(got)} of {len(exp)} rows; {len(missing)} rows of {t} transactions missing "
                f"({c} compressed)")
        if errors:
            first = exp[gone[0]]
            verdict = (f"parse-failure ({what}; {'skipped' if holes else 'stopped before'} txn "
                       f"{first.get('txn', '?')}{' (compressed)' if first.get('compressed') else ''})")
        else:
            verdict = f"silent-skip ({what})"
        details.append("missing transactions (* = compressed): " + txn_list(missing))
    elif mismatched or extra:
        if mismatched:
            i, j, diffs = mismatched[0]
            e = exp[i]
            verdict = f"mismatch ({len(mismatched)} of {len(exp)} rows differ; first: row {i + 1}, txn {e.get('txn', '?')})"
            for col, cls, ev, gv in diffs[:5]:
                details.append(f"{e.get('db')}.{e.get('table')} {col} [{cls}]: expected {dump(ev)}, got {dump(gv)}")
        else:
            verdict = f"mismatch ({len(extra)} extra rows)"
        if extra:
            details.append(f"{len(extra)} extra row(s); first: " + dump(got[extra[0]]))
    elif used.checkpoint_bad is not None:
        i, col, ev, gv = used.checkpoint_bad
        verdict = f"bad-checkpoint ({len(got)} rows equal; first at row {i + 1}, txn {exp[i].get('txn', '?')})"
        details.append(f"{col}: expected {dump(ev)}, got {dump(gv)}")
    elif errors:
        verdict = f"parse-failure (every row arrived, but the consumer reported an error)"
    else:
        verdict = f"pass ({len(got)} rows)"
    if used.classes:
        details.append("difference classes: " + ", ".join(
            f"{c} x{k}{'' if c in allow else ' (not allowed)'}" for c, k in sorted(used.classes.items())))
        for c, (col, ev, gv, t) in sorted(used.examples.items()):
            details.append(f"  {c} e.g. {t}.{col}: expected {dump(ev)}, got {dump(gv)}")
    print("verdict: " + verdict)
    for d in details:
        print("  " + d)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
