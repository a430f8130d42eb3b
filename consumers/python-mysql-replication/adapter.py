"""cdcharness adapter for python-mysql-replication (PyPI `mysql-replication`).

Runs BinLogStreamReader the way its users do: a blocking stream of row events plus GTID
tracking, resumed from a file/position (or a GTID set), and prints each row change as a
canonical change event (consumers/README.md). Works with the 0.x and 1.x release lines.
With CDCH_SESSION=1 it serves many cells, a forked child per cell (session mode, at the end).

Value mapping (the consumer's representation -> canonical):
  int -> number (a decimal string beyond the signed 64-bit range); a zero-padded string
  (0.x, ZEROFILL integer columns) -> number;
  Decimal -> exact plain decimal string; float -> number;
  datetime/date/timedelta -> text at the column's fractional precision (TIMESTAMP: the library
  yields UTC (1.x) or local time (0.x); this process runs with TZ=UTC so both are UTC);
  str -> string; bytes -> {"base64"} (binary columns, and text the library left undecoded);
  set -> array of labels in definition order; BIT "0101" string -> unsigned integer;
  JSON -> the value (bytes keys/strings from the 0.x decoder become strings);
  GEOMETRY bytes (SRID + WKB) -> {"srid","wkb"}.
Values the library cannot represent are printed as it gives them (e.g. None for zero dates,
1900 for YEAR 0); the harness reports those as mismatches.
"""
import base64
import datetime
import decimal
import json
import os
import sys
import time

os.environ["TZ"] = "UTC"
time.tzset()

import pymysql  # noqa: E402
from pymysqlreplication import BinLogStreamReader  # noqa: E402
from pymysqlreplication.constants import FIELD_TYPE  # noqa: E402
from pymysqlreplication.event import GtidEvent, RotateEvent  # noqa: E402
from pymysqlreplication.row_event import (  # noqa: E402
    DeleteRowsEvent,
    UpdateRowsEvent,
    WriteRowsEvent,
)

try:  # 1.x only: what a None value stands for (constants/NONE_SOURCE.py)
    from pymysqlreplication.constants import NONE_SOURCE  # noqa: E402
except ImportError:  # 0.x
    NONE_SOURCE = None
try:  # 1.x only: the after image of a partial JSON update (json_binary.py)
    from pymysqlreplication.json_binary import JsonDiff, JsonDiffOperation  # noqa: E402
except ImportError:  # 0.x
    JsonDiff = JsonDiffOperation = None

INT_TYPES = {FIELD_TYPE.TINY, FIELD_TYPE.SHORT, FIELD_TYPE.INT24, FIELD_TYPE.LONG,
             FIELD_TYPE.LONGLONG}
INT64_MIN, INT64_MAX = -(2**63), 2**63 - 1
DATETIME_TYPES = {FIELD_TYPE.DATETIME, FIELD_TYPE.DATETIME2, FIELD_TYPE.TIMESTAMP,
                  FIELD_TYPE.TIMESTAMP2}


def emit(obj):
    line = json.dumps(obj, ensure_ascii=False, separators=(",", ":")) + "\n"
    sys.stdout.buffer.write(line.encode("utf-8", "backslashreplace"))
    sys.stdout.buffer.flush()


def fsp_of(column):
    return getattr(column, "fsp", 0) or 0


def frac(micro, fsp):
    if fsp <= 0:
        return ""
    return "." + ("%06d" % micro)[:fsp]


def fmt_decimal(d):
    return format(d, "f")  # never exponent notation


def fmt_timedelta(td, fsp):
    total_us = td.days * 86400 * 10**6 + td.seconds * 10**6 + td.microseconds
    sign = "-" if total_us < 0 else ""
    total_us = abs(total_us)
    secs, micro = divmod(total_us, 10**6)
    h, rem = divmod(secs, 3600)
    m, s = divmod(rem, 60)
    return "%s%02d:%02d:%02d%s" % (sign, h, m, s, frac(micro, fsp))


def json_value(v):
    if isinstance(v, bytes):
        try:
            return v.decode("utf-8")
        except UnicodeDecodeError:
            return {"base64": base64.b64encode(v).decode("ascii")}
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


def canon(column, v):
    if v is None:
        return None
    t = getattr(column, "type", None)
    if t == FIELD_TYPE.JSON:
        return json_value(v)
    if t == FIELD_TYPE.BIT and isinstance(v, str):
        v = int(v, 2) if v else 0
    if isinstance(v, bool):
        return int(v)
    if t in INT_TYPES and isinstance(v, str) and v.lstrip("-").isdigit():
        v = int(v)  # 0.x: ZEROFILL integers come back as zero-padded strings
    if isinstance(v, int):
        return v if INT64_MIN <= v <= INT64_MAX else str(v)  # canonical: string beyond int64
    if isinstance(v, float):
        return v
    if isinstance(v, decimal.Decimal):
        return fmt_decimal(v)
    if isinstance(v, datetime.datetime):
        fsp = fsp_of(column) if t in DATETIME_TYPES else (6 if v.microsecond else 0)
        return "%04d-%02d-%02d %02d:%02d:%02d%s" % (v.year, v.month, v.day, v.hour, v.minute,
                                                    v.second, frac(v.microsecond, fsp))
    if isinstance(v, datetime.date):
        return "%04d-%02d-%02d" % (v.year, v.month, v.day)
    if isinstance(v, datetime.timedelta):
        return fmt_timedelta(v, fsp_of(column))
    if t == FIELD_TYPE.SET or isinstance(v, (set, frozenset)):
        labels = list(getattr(column, "set_values", None) or [])
        items = list(v)
        if labels:
            items.sort(key=lambda x: labels.index(x) if x in labels else len(labels))
        return [json_value(x) for x in items]
    if t == FIELD_TYPE.GEOMETRY and isinstance(v, (bytes, bytearray)) and len(v) >= 4:
        return {"srid": int.from_bytes(v[:4], "little"), "wkb": bytes(v[4:]).hex()}
    if isinstance(v, (bytes, bytearray)):
        return {"base64": base64.b64encode(bytes(v)).decode("ascii")}
    if isinstance(v, str):
        if v == "" and getattr(column, "character_set_name", None) == "binary":
            # 1.x "decodes" binary columns with the codec name "binary": Python returns ""
            # for empty input (and the bytes, after a LookupError, otherwise)
            return {"base64": ""}
        return v
    return json_value(v)


def col_key(name, i):
    if name is None or (isinstance(name, str) and name.startswith("UNKNOWN_COL")):
        return "@%d" % (i + 1)
    return name


def json_path(path):
    """A MySQL JSON path as written in a binary JSON diff ('$', '.key', '."key"', '[n]')
    -> list of str (member) / int (array index)."""
    if isinstance(path, (bytes, bytearray)):
        path = bytes(path).decode("utf-8")
    if not path.startswith("$"):
        raise ValueError("JSON path %r" % path)
    i, out = 1, []
    while i < len(path):
        c = path[i]
        if c == "[":
            j = path.index("]", i)
            out.append(int(path[i + 1:j]))
            i = j + 1
        elif c == "." and i + 1 < len(path) and path[i + 1] == '"':
            j, key = i + 2, ""
            while path[j] != '"':
                if path[j] == "\\":
                    j += 1
                key += path[j]
                j += 1
            out.append(key)
            i = j + 1
        elif c == ".":
            j = i + 1
            while j < len(path) and path[j] not in ".[":
                j += 1
            out.append(path[i + 1:j])
            i = j
        else:
            raise ValueError("JSON path %r" % path)
    return out


def apply_json_diff(doc, diff):
    """What a user of the library must do with a partial update's after value: apply the
    JsonDiff it yields (op, path, value) to the before image (JSON_REPLACE / JSON_INSERT or
    JSON_ARRAY_INSERT / JSON_REMOVE semantics)."""
    import copy
    doc = copy.deepcopy(doc)
    steps = json_path(diff.path)
    value = json_value(diff.value) if diff.value is not None else None
    if not steps:
        return value if diff.op != JsonDiffOperation.Remove else None
    parent = doc
    for st in steps[:-1]:
        parent = parent[st]
    last = steps[-1]
    if diff.op == JsonDiffOperation.Replace:
        parent[last] = value
    elif diff.op == JsonDiffOperation.Insert:
        if isinstance(parent, list):
            parent.insert(min(last, len(parent)), value)
        else:
            parent[last] = value
    else:
        del parent[last]
    return doc


def image(event, values, none_sources=None, before=None):
    """The library's row image -> canonical. 1.x says why a value is None (`none_sources`):
    "cols bitmap" = the column is not in the image (binlog_row_image MINIMAL/NOBLOB) -> left
    out; "empty set" (with the SET's labels known) -> []; "same with before values" (a JSON
    column a partial update did not touch) -> the before value. A JsonDiff (1.x partial
    update) is applied to the before value."""
    if values is None:
        return None
    out = {}
    cols = event.columns
    none_sources = none_sources or {}
    for i, (name, v) in enumerate(values.items()):
        column = cols[i] if i < len(cols) else None
        key = col_key(name, i)
        if v is None and NONE_SOURCE is not None and name in none_sources:
            src = none_sources[name]
            if src == NONE_SOURCE.COLS_BITMAP:
                continue
            if src == NONE_SOURCE.EMPTY_SET and getattr(column, "set_values", None):
                out[key] = []
                continue
            if src == NONE_SOURCE.JSON_PARTIAL_UPDATE and before is not None and key in before:
                out[key] = before[key]
                continue
        if JsonDiff is not None and isinstance(v, JsonDiff):
            # without the document in the before image (MINIMAL image, or a before value
            # the library could not name) the diff cannot be applied: printed as it is
            # (the harness's form for a diff: {"json_diff":[{op, path, value}...]})
            d = {"op": v.op.name.lower(), "path": bytes(v.path).decode("utf-8", "replace")}
            if v.op != JsonDiffOperation.Remove:
                d["value"] = json_value(v.value)
            raw = {"json_diff": [d]}
            try:
                out[key] = apply_json_diff(before[key], v) if before else raw
            except (KeyError, IndexError, TypeError, ValueError):
                out[key] = raw
            continue
        out[key] = canon(column, v)
    return out


def first_binlog(settings):
    conn = pymysql.connect(**settings)
    try:
        with conn.cursor() as cur:
            cur.execute("SHOW BINARY LOGS")
            rows = cur.fetchall()
        return rows[0][0] if rows else "binlog.000001"
    finally:
        conn.close()


def main():
    settings = {
        "host": os.environ.get("CDCH_HOST", "127.0.0.1"),
        "port": int(os.environ.get("CDCH_PORT", "3306")),
        "user": os.environ.get("CDCH_USER", "root"),
        "passwd": os.environ.get("CDCH_PASSWORD", ""),
    }
    kwargs = dict(
        connection_settings=settings,
        server_id=int(os.environ.get("CDCH_SERVER_ID", "1001")),
        # no only_events: the library's default event set, as its users get it. It yields
        # PartialUpdateRowsEvent (1.x; a subclass of UpdateRowsEvent, but only_events matches
        # classes exactly, so listing the three row classes would drop it) and drops
        # NotImplementedEvent (filter_non_implemented_events=True): binlogstream.py
        # _allowed_event_list at 1.0.17, packet.py at 0.45.1 (no class for type 39 there).
        resume_stream=True,
        blocking=True,
    )
    gtid_set = os.environ.get("CDCH_GTID_SET")
    if gtid_set:
        kwargs["auto_position"] = gtid_set
    else:
        # an empty GTID set cannot be passed (auto_position="" means "no GTID"):
        # start from the first file instead, which is the same stream
        start_file = os.environ.get("CDCH_START_FILE") or first_binlog(settings)
        kwargs["log_file"] = start_file
        kwargs["log_pos"] = int(os.environ.get("CDCH_START_POS") or 4)

    stream = BinLogStreamReader(**kwargs)
    ready = False
    gtid = None
    try:
        for ev in stream:
            if not ready:
                emit({"kind": "ready"})
                ready = True
            if isinstance(ev, GtidEvent):
                gtid = ev.gtid
                continue
            if isinstance(ev, RotateEvent):
                continue
            if not isinstance(ev, (WriteRowsEvent, UpdateRowsEvent, DeleteRowsEvent)):
                continue  # QueryEvent, TableMapEvent, XidEvent, heartbeats, ...
            pos = {"file": stream.log_file, "pos": stream.log_pos}
            for row in ev.rows:
                if isinstance(ev, WriteRowsEvent):
                    op = "insert"
                    before, after = None, image(ev, row["values"], row.get("none_sources"))
                elif isinstance(ev, UpdateRowsEvent):  # includes PartialUpdateRowsEvent
                    op = "update"
                    before = image(ev, row["before_values"], row.get("before_none_sources"))
                    after = image(ev, row["after_values"], row.get("after_none_sources"),
                                  before=before)
                else:
                    op = "delete"
                    before, after = image(ev, row["values"], row.get("none_sources")), None
                emit({"op": op, "db": ev.schema, "table": ev.table,
                      "before": before, "after": after, "gtid": gtid, "pos": pos})
    except KeyboardInterrupt:
        sys.exit(0)
    except Exception as e:  # the consumer died
        emit({"kind": "error", "message": "%s: %s" % (type(e).__name__, e)})
        import traceback
        traceback.print_exc()
        sys.exit(1)
    finally:
        try:
            stream.close()
        except Exception:
            pass
    # blocking=True never ends on its own; if it does the stream was closed under us
    emit({"kind": "error", "message": "stream ended"})
    sys.exit(1)


# ---- session mode (consumers/README.md "Session mode") ----------------------------------------
# One launch serves many cells: this process imports the library once, then forks a child per
# cell that runs main() above with the cell's environment, exactly as a one-shot run would (same
# stdout lines, same exit status, SIGTERM ends it). A child starts from this process's state,
# which never ran a cell, so nothing of a cell survives it: no client, connection, table map or
# module-level cache. "stop" sends the child SIGTERM (SIGKILL after STOP_GRACE_S); a child that
# ends by itself is reported as {"kind":"ended","status":N}, N its exit status (128 + signal when
# a signal killed it).

STOP_GRACE_S = 3.0


def exit_code(code):
    """sys.exit's argument -> the status the interpreter would exit with."""
    if code is None:
        return 0
    if isinstance(code, int):
        return code & 0xFF
    print(code, file=sys.stderr)
    return 1


def cell_child(env):
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
        main()
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
    def __init__(self, cell, env):
        sys.stdout.flush()
        sys.stderr.flush()
        pid = os.fork()
        if pid == 0:
            cell_child(env)  # never returns
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
    for k in ("CDCH_CACHE", "CDCH_VERSION", "CDCH_BIN"):  # the session's own, when the cell lacks them
        if k not in env and os.environ.get(k) is not None:
            env[k] = os.environ[k]
    return m["kind"], str(m.get("cell", "")), env


def serve_session():
    """Start/stop lines on stdin, one cell at a time, until stdin ends (then exit 0)."""
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
                child = Child(cell, env)
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


if __name__ == "__main__":
    import signal
    signal.signal(signal.SIGTERM, lambda *a: os._exit(0))
    if os.environ.get("CDCH_SESSION") == "1":
        serve_session()
        sys.exit(0)
    main()
