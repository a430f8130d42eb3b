"""cdcharness adapter foundation for Python families (consumers/README.md).

What every Python adapter needs besides the library it drives, in one module with no
dependencies beyond the standard library:

* output: `emit(obj)` (one JSON line, UTF-8, flushed), `ready()`, `error(message)`,
  `change(op, db, table, before, after, gtid, pos)` (a canonical change event);
* canonical values: `int_value`, `fmt_decimal`, `fmt_datetime`, `fmt_date`, `fmt_timedelta`,
  `frac`, `base64_value`, `geometry_value`, `json_value` (consumers/README.md "Output");
* configuration (CDCH_CONFIG, a JSON object in the family's own terms): `load_config()`,
  `Effective` (the settings the library is given, the keys the harness keeps and why) and its
  one `{"kind":"config",...}` line, `ConfigError` (an unhonourable setting: the
  `{"kind":"config-error"}` line and exit status 2);
* the run: `run(main)` runs `main()` once (one-shot), or, with CDCH_SESSION=1, serves the
  session protocol: each cell's `main()` in a forked child with the cell's environment.

A family's adapter imports it from the folder beside its own:

    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "python-common"))
    import cdch_adapter as cdch
    cdch.utc()                       # before the library is imported (TZ=UTC)
    ...
    def main():                      # one cell, settings from os.environ
        cfg = cdch.Effective(cdch.load_config())
        ...                          # merge the user's settings, cfg.kept(...) / raise cdch.ConfigError
        cfg.print()                  # once per cell, before ready
        ...                          # cdch.ready(), cdch.change(...), cdch.error(...)
    if __name__ == "__main__":
        cdch.run(main)

and lists the folder in its manifest (`shares: ["../python-common"]`) so that a change here
re-installs the family.
"""
import base64
import datetime
import decimal
import json
import os
import sys
import time


def utc():
    """Run the process in UTC (libraries that format TIMESTAMP in local time then give UTC)."""
    os.environ["TZ"] = "UTC"
    time.tzset()


# ---- output --------------------------------------------------------------------------------

def emit(obj):
    """One line of stdout: compact JSON, non-ASCII as UTF-8, flushed."""
    line = json.dumps(obj, ensure_ascii=False, separators=(",", ":")) + "\n"
    sys.stdout.buffer.write(line.encode("utf-8", "backslashreplace"))
    sys.stdout.buffer.flush()


def ready():
    emit({"kind": "ready"})


def error(message):
    emit({"kind": "error", "message": message})


def change(op, db, table, before, after, gtid=None, pos=None):
    """A canonical change event (op insert|update|delete; images column -> canonical value)."""
    emit({"op": op, "db": db, "table": table, "before": before, "after": after,
          "gtid": gtid, "pos": pos})


# ---- canonical values ------------------------------------------------------------------------

INT64_MIN, INT64_MAX = -(2**63), 2**63 - 1


def int_value(v):
    """An integer: a JSON number within the signed 64-bit range, a decimal string beyond."""
    return v if INT64_MIN <= v <= INT64_MAX else str(v)


def frac(micro, fsp):
    """The fraction of a temporal value at `fsp` digits ("" for 0)."""
    if fsp <= 0:
        return ""
    return "." + ("%06d" % micro)[:fsp]


def fmt_decimal(d):
    return format(d, "f")  # never exponent notation


def fmt_datetime(v, fsp):
    return "%04d-%02d-%02d %02d:%02d:%02d%s" % (v.year, v.month, v.day, v.hour, v.minute,
                                                v.second, frac(v.microsecond, fsp))


def fmt_date(v):
    return "%04d-%02d-%02d" % (v.year, v.month, v.day)


def fmt_timedelta(td, fsp):
    """A TIME value given as a timedelta: [-]HH:MM:SS[.ffffff]."""
    total_us = td.days * 86400 * 10**6 + td.seconds * 10**6 + td.microseconds
    sign = "-" if total_us < 0 else ""
    total_us = abs(total_us)
    secs, micro = divmod(total_us, 10**6)
    h, rem = divmod(secs, 3600)
    m, s = divmod(rem, 60)
    return "%s%02d:%02d:%02d%s" % (sign, h, m, s, frac(micro, fsp))


def base64_value(b):
    return {"base64": base64.b64encode(bytes(b)).decode("ascii")}


def geometry_value(b):
    """MySQL's GEOMETRY storage (4-byte little-endian SRID + WKB) -> {"srid","wkb"}."""
    return {"srid": int.from_bytes(b[:4], "little"), "wkb": bytes(b[4:]).hex()}


def json_value(v):
    """A decoded JSON document -> plain JSON (bytes as UTF-8 strings, or base64 when they are
    not UTF-8; Decimal as a number; temporals as text)."""
    if isinstance(v, bytes):
        try:
            return v.decode("utf-8")
        except UnicodeDecodeError:
            return base64_value(v)
    if isinstance(v, dict):
        return {json_key(k): json_value(x) for k, x in v.items()}
    if isinstance(v, (list, tuple)):
        return [json_value(x) for x in v]
    if isinstance(v, decimal.Decimal):
        return float(v) if v != v.to_integral_value() else int(v)
    if isinstance(v, (datetime.datetime, datetime.date, datetime.time, datetime.timedelta)):
        return str(v)
    return v


def json_key(k):
    return k.decode("utf-8", "replace") if isinstance(k, bytes) else str(k)


# ---- configuration (CDCH_CONFIG) -------------------------------------------------------------

class ConfigError(Exception):
    """A setting the adapter cannot honour: printed as {"kind":"config-error","message":
    "KEY=VALUE: why"}; the cell ends with status 2 (the harness records a harness-error)."""

    def __init__(self, key, value, why):
        super().__init__("%s=%s: %s" % (key, setting_text(value), why))


def setting_text(v):
    """A setting's value as the config line shows it: strings as they are, the rest as JSON."""
    if isinstance(v, str):
        return v
    try:
        return json.dumps(v, ensure_ascii=False, separators=(",", ":"), default=str)
    except (TypeError, ValueError):
        return str(v)


def load_config(env=None):
    """The user's configuration: the JSON object in the file CDCH_CONFIG names ({} when the
    variable is unset or empty, or the file holds only white space). Raises ConfigError when the
    file cannot be read or is not a JSON object."""
    env = os.environ if env is None else env
    path = env.get("CDCH_CONFIG") or ""
    if not path:
        return {}
    try:
        with open(path, "rb") as f:
            text = f.read().decode("utf-8")
    except (OSError, UnicodeDecodeError) as e:
        raise ConfigError("CDCH_CONFIG", path, "cannot be read: %s" % e)
    if not text.strip():
        return {}
    try:
        obj = json.loads(text)
    except ValueError as e:
        raise ConfigError("CDCH_CONFIG", path, "not JSON: %s" % e)
    if not isinstance(obj, dict):
        raise ConfigError("CDCH_CONFIG", path, "not a JSON object")
    return obj


class Effective:
    """The settings one cell gives the library (`set`), and the user's keys the harness keeps
    (`kept`); `print()` writes the cell's {"kind":"config"} line (once, before ready)."""

    SECRET = ("passwd", "password")

    def __init__(self, user=None):
        self.user = dict(user or {})
        self.effective = {}
        self.kept_keys = {}

    def set(self, key, value):
        last = key.rsplit(".", 1)[-1]
        self.effective[key] = "***" if last in self.SECRET and value not in (None, "") else \
            setting_text(value)

    def kept(self, key, why):
        self.kept_keys[key] = why

    def line(self):
        return {"kind": "config", "effective": self.effective, "kept": self.kept_keys}

    def print(self):
        emit(self.line())


# ---- the run: one-shot and session mode (consumers/README.md "Session mode") ------------------
# One launch serves many cells: the session process imports the library once, then forks a child
# per cell that runs main() with the cell's environment, exactly as a one-shot run would (same
# stdout lines, same exit status, SIGTERM ends it). A child starts from the session process's
# state, which never ran a cell, so nothing of a cell survives it: no client, connection, table
# map or module-level cache. "stop" sends the child SIGTERM (SIGKILL after STOP_GRACE_S); a child
# that ends by itself is reported as {"kind":"ended","status":N}, N its exit status (128 + signal
# when a signal killed it).

STOP_GRACE_S = 3.0


def one_cell(main):
    """main() as one cell: a ConfigError becomes the config-error line and exit status 2."""
    try:
        main()
    except ConfigError as e:
        emit({"kind": "config-error", "message": str(e)})
        sys.exit(2)


def run(main):
    """The adapter's entry point: SIGTERM ends the process (status 0, as a stopped one-shot
    run); CDCH_SESSION=1 serves cells until stdin ends (then exit 0), else one cell."""
    import signal
    signal.signal(signal.SIGTERM, lambda *a: os._exit(0))
    if os.environ.get("CDCH_SESSION") == "1":
        serve_session(main)
        sys.exit(0)
    one_cell(main)


def exit_code(code):
    """sys.exit's argument -> the status the interpreter would exit with."""
    if code is None:
        return 0
    if isinstance(code, int):
        return code & 0xFF
    print(code, file=sys.stderr)
    return 1


def cell_child(main, env):
    """In the forked child: run one cell as a one-shot process would, then _exit."""
    import signal
    import traceback
    code = 1
    try:
        fd = os.open(os.devnull, os.O_RDONLY)  # stdin as in a one-shot run
        os.dup2(fd, 0)
        os.close(fd)
        signal.signal(signal.SIGTERM, lambda *a: os._exit(0))
        os.environ.pop("CDCH_SESSION", None)
        os.environ.update(env)
        one_cell(main)
        code = 0
    except SystemExit as e:
        code = exit_code(e.code)
    except BaseException:  # what the interpreter prints for an uncaught exception
        traceback.print_exc()
        code = 1
    finally:
        for f in (sys.stdout, sys.stderr):
            try:
                f.flush()
            except Exception:
                pass
        os._exit(code)


class Child:
    def __init__(self, main, cell, env):
        sys.stdout.flush()
        sys.stderr.flush()
        pid = os.fork()
        if pid == 0:
            cell_child(main, env)  # never returns
        self.pid, self.cell, self.status = pid, cell, None
        try:  # readable when the child exits (Linux >= 5.3)
            self.fd = os.pidfd_open(pid)
        except (AttributeError, OSError):
            self.fd = None

    def poll(self, block=False):
        """The exit status once the child has ended (reaped), else None."""
        if self.status is None:
            pid, st = os.waitpid(self.pid, 0 if block else os.WNOHANG)
            if pid == self.pid:
                code = os.waitstatus_to_exitcode(st)
                self.status = code if code >= 0 else 128 - code
                if self.fd is not None:
                    os.close(self.fd)
                    self.fd = None
        return self.status

    def stop(self):
        """SIGTERM (a one-shot run's stop: os._exit(0)), SIGKILL after STOP_GRACE_S; reaped."""
        import signal
        if self.poll() is not None:
            return
        try:
            os.kill(self.pid, signal.SIGTERM)
        except ProcessLookupError:
            pass
        deadline = time.monotonic() + STOP_GRACE_S
        while self.poll() is None and time.monotonic() < deadline:
            time.sleep(0.01)
        if self.status is None:
            print("adapter: cell %s did not end on SIGTERM within %.0f s, killed" %
                  (self.cell, STOP_GRACE_S), file=sys.stderr, flush=True)
            try:
                os.kill(self.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
            self.poll(block=True)


def session_command(line):
    try:
        m = json.loads(line)
    except ValueError:
        m = None
    if not isinstance(m, dict) or m.get("kind") not in ("start", "stop"):
        print("adapter: bad session line: %s" % line, file=sys.stderr, flush=True)
        return None, None, None
    env = m.get("env") if isinstance(m.get("env"), dict) else {}
    env = {str(k): str(v) for k, v in env.items() if v is not None}
    # the session's own, when the cell lacks them (CDCH_CONFIG: the session's launch
    # environment holds it too)
    for k in ("CDCH_CACHE", "CDCH_VERSION", "CDCH_BIN", "CDCH_CONFIG"):
        if k not in env and os.environ.get(k) is not None:
            env[k] = os.environ[k]
    return m["kind"], str(m.get("cell", "")), env


def serve_session(main):
    """Start/stop lines on stdin, one cell at a time, until stdin ends (then return)."""
    import select
    child = None
    pending = b""
    while True:
        fds = [0] + ([child.fd] if child and child.fd is not None else [])
        # without a pidfd, poll the child every 50 ms
        timeout = 0.05 if child and child.fd is None else None
        readable, _, _ = select.select(fds, [], [], timeout)
        if child and child.poll() is not None:
            emit({"kind": "ended", "cell": child.cell, "status": child.status})
            child = None
        if 0 not in readable:
            continue
        data = os.read(0, 65536)
        if not data:
            if child:
                child.stop()
            return
        pending += data
        while b"\n" in pending:
            line, pending = pending.split(b"\n", 1)
            line = line.decode("utf-8", "replace").strip()
            if not line:
                continue
            kind, cell, env = session_command(line)
            if kind == "start":
                if child:  # a start while a cell runs: that cell is over
                    child.stop()
                child = Child(main, cell, env)
            elif kind == "stop":
                if child and child.cell == cell:
                    if child.poll() is not None:  # it ended by itself just now: its outcome
                        emit({"kind": "ended", "cell": cell, "status": child.status})
                    else:
                        child.stop()
                        emit({"kind": "stopped", "cell": cell})
                    child = None
                else:  # not running (it ended, and said so, before the stop came)
                    emit({"kind": "stopped", "cell": cell})
