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
import os
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
    if len(argv) > 1 and argv[1] == "session":
        return session_main(argv[2:])
    if len(argv) not in (4, 5):
        print(__doc__, file=sys.stderr)
        return 2
    exp, _, _ = load(argv[1])
    got, errors, bad = load(argv[2])
    try:
        ok, lines = judge(exp, got, errors, bad, argv[3], Known(argv[4] if len(argv) == 5 else ""))
    except ValueError as e:
        print(e, file=sys.stderr)
        return 2
    print("\n".join(lines))
    return 0 if ok else 1


def judge(exp, got, errors, bad, pred, known):
    """(ok, lines): PREDICTION checked on one run's rows, error lines and unreadable lines;
    lines = the "known:" differences, then "ok: ..." or "FAIL: ..." and its details."""
    out = []
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
        raise ValueError(f"unknown prediction {pred}")
    for col, (ev, gv) in sorted(knowns.items()):
        out.append(f"  known: {col}: expected {short(ev)}, consumer gave {short(gv)}")
    if fails:
        out.append(f"FAIL: predicted {pred}")
        out += ["  " + line for line in fails]
        return False, out
    detail = f"{len(got)} rows"
    if pred != "pass":
        detail += f", {len(exp) - len(plain)} rows in {n_comp_tx} compressed transactions missing"
    if errors:
        detail += f", error: {errors[0][:120]}"
    out.append(f"ok: {pred} ({detail})")
    return True, out


# ---- session mode (consumers/README.md "Session mode") ---------------------------------------

SESSION_USAGE = """consumers_py_node_check.py session [--label L] --cwd DIR --log FILE [--known K] --cell SPEC... -- CMD...

Runs CMD (an adapter) once with CDCH_SESSION=1 and drives the session protocol on its stdin,
one cell after the other, as the harness does. The CDCH_* variables of this process's
environment are the cells' settings: they go into each cell's start line, and only CDCH_CACHE,
CDCH_VERSION and CDCH_BIN into the adapter's own environment. A SPEC is one cell:
  good:PORT:EXPECTED:PREDICTION  a fake primary on PORT; the rows must meet PREDICTION
                                 against EXPECTED (as the one-run check); then "stop" must be
                                 answered with "stopped" within 10 s
  dies                           a port this driver holds bound and never listens on (a
                                 connection is refused, and no other process can take the
                                 port meanwhile): the consumer must end by itself ("ended")
                                 with the exit status and error lines of a one-shot run of
                                 CMD with the same settings
  hangs                          a port that accepts and never answers: no rows, no "ended";
                                 "stop" after 2 s must be answered within 10 s
Then stdin is closed: the adapter must exit 0 within 15 s. Lines between cells (after a cell's
"stopped"/"ended", before the next "start") fail. Prints "PASS L: name" / "FAIL L: name: detail",
one per cell and one for the end of the session."""

SESSION_LINES = ("stopped", "ended")


class Adapter:
    """An adapter process in its own process group; a thread collects its stdout lines."""

    def __init__(self, cmd, cwd, env, log, session):
        import subprocess
        import threading
        self.err = open(log, "ab")
        self.p = subprocess.Popen(cmd, cwd=cwd, env=env, stdout=subprocess.PIPE, stderr=self.err,
                                  stdin=subprocess.PIPE if session else subprocess.DEVNULL,
                                  start_new_session=True)
        self.lines = []  # (bytes, parsed object or None)
        self.eof = False
        self.cv = threading.Condition()
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self):
        for line in self.p.stdout:
            try:
                obj = json.loads(line)
            except ValueError:
                obj = None
            with self.cv:
                self.lines.append((line, obj if isinstance(obj, dict) else None))
                self.cv.notify_all()
        with self.cv:
            self.eof = True
            self.cv.notify_all()

    def wait(self, cond, timeout):
        """Waits until cond() (called under the lock) or timeout; returns cond()."""
        import time
        end = time.monotonic() + timeout
        with self.cv:
            while not cond() and not self.eof and time.monotonic() < end:
                self.cv.wait(min(0.1, max(0.0, end - time.monotonic())))
            return cond()

    def send(self, obj):
        self.p.stdin.write((json.dumps(obj) + "\n").encode())
        self.p.stdin.flush()

    def exit_status(self, timeout):
        """Its exit status once it exited (and its stdout was read to the end), None after timeout."""
        import subprocess
        try:
            status = self.p.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            return None
        self.wait(lambda: False, 2)  # the reader reaches EOF
        return status

    def kill(self):
        """Kills its process group (what is left of it) and reaps it."""
        import signal
        if self.err.closed:
            return
        try:
            os.killpg(self.p.pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass
        self.p.wait()
        self.err.close()


def session_line(obj, kind, cell):
    return obj is not None and obj.get("kind") == kind and obj.get("cell") == cell


def rows_of(lines):
    return sum(1 for _, o in lines if o is not None and "op" in o)


def errors_of(lines):
    return [str(o.get("message", "")) for _, o in lines if o is not None and o.get("kind") == "error"]


class Session:
    def __init__(self, opts):
        self.opts = opts
        self.cell_env = {k: v for k, v in os.environ.items() if k.startswith("CDCH_")}
        env = {k: v for k, v in os.environ.items() if not k.startswith("CDCH_")}
        for k in ("CDCH_CACHE", "CDCH_VERSION", "CDCH_BIN"):
            if k in self.cell_env:
                env[k] = self.cell_env[k]
        env["CDCH_SESSION"] = "1"
        self.a = Adapter(opts.cmd, opts.cwd, env, opts.log, True)
        self.mark = 0  # lines before it belong to earlier cells
        self.results = []

    def result(self, ok, name, detail=""):
        self.results.append(ok)
        name = "%s: %s" % (self.opts.label, name) if self.opts.label else name
        print(("PASS %s" % name) if ok else ("FAIL %s: %s" % (name, detail)), flush=True)

    def start(self, cell, port):
        strays = [ln for ln, _ in self.a.lines[self.mark:]]
        if strays:
            self.result(False, "session: no output between cells",
                        "%d line(s) before cell %s: %r" % (len(strays), cell, strays[0][:120]))
        self.mark = len(self.a.lines)
        env = dict(self.cell_env, CDCH_PORT=str(port), CDCH_SERVER_ID=str(2000 + len(self.results)))
        self.a.send({"kind": "start", "cell": cell, "env": env})

    def cell_lines(self):
        return self.a.lines[self.mark:]

    def ended(self, cell):
        return next((o for _, o in self.cell_lines() if session_line(o, "ended", cell)), None)

    def stop(self, cell, within):
        """Sends stop; the seconds until "stopped" (None: not within `within`)."""
        import time
        t0 = time.monotonic()
        self.a.send({"kind": "stop", "cell": cell})
        if self.a.wait(lambda: any(session_line(o, "stopped", cell) for _, o in self.cell_lines()),
                       within):
            return time.monotonic() - t0
        return None

    def end_cell(self, name):
        """The cell's own output (the session lines dropped), also written to LOG.<cell>.jsonl;
        later lines are strays. Returns (lines, the file)."""
        lines = [(ln, o) for ln, o in self.cell_lines()
                 if not (o is not None and o.get("kind") in SESSION_LINES)]
        self.mark = len(self.a.lines)
        path = "%s.%s.jsonl" % (self.opts.log, name.replace(" ", "_").replace("(", "").replace(")", ""))
        with open(path, "wb") as f:
            f.writelines(ln for ln, _ in lines)
        return lines, path

    def good(self, name, port, expected, pred):
        import time
        exp, _, _ = load(expected)
        want = len(exp) if pred == "pass" else len([e for e in exp if not e.get("compressed")])
        self.start(name, port)
        state = {"n": -1, "t": time.monotonic()}

        def done():
            n = len(self.cell_lines())
            if n != state["n"]:
                state["n"], state["t"] = n, time.monotonic()
            quiet = time.monotonic() - state["t"] >= 1.0
            return self.ended(name) is not None or (quiet and rows_of(self.cell_lines()) >= want)

        self.a.wait(done, 30)
        if self.ended(name) is not None:
            self.result(False, "%s: runs until stopped" % name, "ended by itself: %s" % self.ended(name))
            self.end_cell(name)
            return
        took = self.stop(name, 10)
        lines, path = self.end_cell(name)
        if took is None:
            self.result(False, "%s: stop answered" % name, "no {\"kind\":\"stopped\"} within 10 s")
            return
        got, errors, bad = load(path)
        ok, out = judge(exp, got, errors, bad, pred, Known(self.opts.known))
        if not any(o is not None and o.get("kind") == "ready" for _, o in lines):
            ok, out = False, out + ["  no {\"kind\":\"ready\"} line"]
        self.result(ok, "%s: %s, stopped in %.2f s" % (name, out[-1] if ok else pred, took),
                    " / ".join(x.strip() for x in out if not x.startswith("  known:")))

    def dies(self, name):
        import socket
        # The port stays bound (never listening) until both runs are over: a port picked free and
        # let go could be taken by another test's server before the one-shot run, which then
        # connects to it ("The server closed the connection") while the session cell is refused.
        with socket.socket() as held:
            held.bind(("127.0.0.1", 0))
            self.dies_on(name, held.getsockname()[1])

    def dies_on(self, name, port):
        env = dict(os.environ, CDCH_PORT=str(port), CDCH_SERVER_ID="2999")
        env.pop("CDCH_SESSION", None)
        one = Adapter(self.opts.cmd, self.opts.cwd, env, self.opts.log, False)
        status = one.exit_status(20)
        one.kill()
        if status is None:
            self.result(False, "%s: one-shot run ends" % name, "still running after 20 s")
            return
        one_errors = errors_of(one.lines)
        self.start(name, port)
        self.a.wait(lambda: self.ended(name) is not None, 20)
        ended = self.ended(name)
        errors = errors_of(self.cell_lines())
        self.end_cell(name)
        if ended is None:
            self.result(False, "%s: ends by itself" % name, "no {\"kind\":\"ended\"} within 20 s")
        elif ended.get("status") != status or errors != one_errors:
            self.result(False, "%s: ends as a one-shot run" % name,
                        "session: status %s, errors %r; one-shot: status %s, errors %r" %
                        (ended.get("status"), errors, status, one_errors))
        else:
            self.result(True, "%s: ended with status %d and %d error line(s), as a one-shot run" %
                        (name, status, len(errors)))

    def hangs(self, name):
        import socket
        with socket.socket() as lsock:  # accepts (backlog) and never answers
            lsock.bind(("127.0.0.1", 0))
            lsock.listen(8)
            self.start(name, lsock.getsockname()[1])
            self.a.wait(lambda: self.ended(name) is not None, 2)
            ended = self.ended(name)
            took = None if ended else self.stop(name, 10)  # the harness's own stop budget
            lines, _ = self.end_cell(name)
        if ended or took is None or rows_of(lines):
            self.result(False, "%s: a hung consumer is stopped" % name,
                        "ended %s, stopped after %s s, %d rows" % (ended, took, rows_of(lines)))
        else:
            self.result(True, "%s: a hung consumer stopped in %.2f s" % (name, took))

    def close(self):
        self.a.p.stdin.close()
        status = self.a.exit_status(15)  # room beside the adapters' own 3 s stop grace on a loaded machine
        strays = [ln for ln, _ in self.a.lines[self.mark:]]
        self.a.kill()
        self.result(status == 0 and not strays, "session: exits 0 at the end of stdin, nothing after the last cell",
                    "exit status %s, %d stray line(s)" % (status, len(strays)))


def session_main(argv):
    import argparse
    ap = argparse.ArgumentParser(prog="consumers_py_node_check.py session", usage=SESSION_USAGE)
    ap.add_argument("--label", default="")
    ap.add_argument("--cwd", required=True)
    ap.add_argument("--log", required=True)
    ap.add_argument("--known", default="")
    ap.add_argument("--cell", action="append", required=True)
    ap.add_argument("cmd", nargs="+")
    opts = ap.parse_args(argv)
    s = Session(opts)
    try:
        for n, spec in enumerate(opts.cell, 1):
            f = spec.split(":")
            name = "cell %d (%s)" % (n, f[0])
            if s.a.p.poll() is not None:
                s.result(False, name, "the session process exited (status %s)" % s.a.p.poll())
                break
            try:
                if f[0] == "good" and len(f) == 4:
                    s.good(name, int(f[1]), f[2], f[3])
                elif f[0] == "dies" and len(f) == 1:
                    s.dies(name)
                elif f[0] == "hangs" and len(f) == 1:
                    s.hangs(name)
                else:
                    print("bad --cell %r" % spec, file=sys.stderr)
                    return 2
            except BrokenPipeError:
                s.result(False, name, "the session process closed its stdin (status %s)" % s.a.p.poll())
                break
        try:
            s.close()
        except BrokenPipeError:
            s.result(False, "session: end of stdin", "the session process closed its stdin")
    finally:
        s.a.kill()
    return 0 if all(s.results) else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv))
