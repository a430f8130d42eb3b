"""cdcharness adapter for python-mysql-replication (PyPI `mysql-replication`).

Runs BinLogStreamReader the way its users do: a blocking stream of row events plus GTID
tracking, resumed from a file/position (or a GTID set), and prints each row change as a
canonical change event (consumers/README.md). Works with the 0.x and 1.x release lines (API
differences found by feature detection: the reader's keyword arguments, the classes a
release has). Output, configuration and the session loop (a forked child per cell) come from
the Python foundation, ../python-common/cdch_adapter.py; this file holds what is the library's.

Configuration (CDCH_CONFIG): a JSON object of BinLogStreamReader keyword arguments, event
classes by name ({"only_events": ["WriteRowsEvent", "UpdateRowsEvent"], "freeze_schema": true}).
The user's values win over the adapter's defaults, except the ones the harness owns (HARNESS
below, each with its reason in the config line's "kept"); `connection_settings` /
`ctl_connection_settings` are merged key by key (the harness keeps host, port, user and
password). Refused (config-error, exit 2): a key this release's BinLogStreamReader does not
take, an event class name it does not have, `pymysql_wrapper` (a class: JSON cannot give one).

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
import datetime
import decimal
import inspect
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "python-common"))
import cdch_adapter as cdch  # noqa: E402

cdch.utc()

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
DATETIME_TYPES = {FIELD_TYPE.DATETIME, FIELD_TYPE.DATETIME2, FIELD_TYPE.TIMESTAMP,
                  FIELD_TYPE.TIMESTAMP2}
json_value = cdch.json_value


def library_version():
    try:
        from importlib.metadata import version
        return version("mysql-replication")
    except Exception:
        return "?"


def fsp_of(column):
    return getattr(column, "fsp", 0) or 0


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
        return cdch.int_value(v)  # canonical: string beyond int64
    if isinstance(v, float):
        return v
    if isinstance(v, decimal.Decimal):
        return cdch.fmt_decimal(v)
    if isinstance(v, datetime.datetime):
        fsp = fsp_of(column) if t in DATETIME_TYPES else (6 if v.microsecond else 0)
        return cdch.fmt_datetime(v, fsp)
    if isinstance(v, datetime.date):
        return cdch.fmt_date(v)
    if isinstance(v, datetime.timedelta):
        return cdch.fmt_timedelta(v, fsp_of(column))
    if t == FIELD_TYPE.SET or isinstance(v, (set, frozenset)):
        labels = list(getattr(column, "set_values", None) or [])
        items = list(v)
        if labels:
            items.sort(key=lambda x: labels.index(x) if x in labels else len(labels))
        return [json_value(x) for x in items]
    if t == FIELD_TYPE.GEOMETRY and isinstance(v, (bytes, bytearray)) and len(v) >= 4:
        return cdch.geometry_value(v)
    if isinstance(v, (bytes, bytearray)):
        return cdch.base64_value(v)
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


# ---- configuration ---------------------------------------------------------------------------
# BinLogStreamReader's keyword arguments the harness owns, and why (the config line's "kept").
START = "the harness sets where each cell starts (CDCH_START_FILE/CDCH_START_POS or CDCH_GTID_SET)"
HARNESS = {
    "server_id": "the harness gives each cell a replica server id unique in the run (CDCH_SERVER_ID)",
    "log_file": START,
    "log_pos": START,
    "auto_position": START,
    "resume_stream": "resume_stream=False dumps from position 4 of log_file, not from where the "
                     "harness starts the cell (and reconnects from there); the adapter passes True",
    "end_log_pos": "the harness ends each cell's stream (its watermark, then the stop); "
                   "end_log_pos would end the reader before it",
    "blocking": "the harness stops the consumer once the stream is done; a non-blocking reader "
                "returns at the first moment the server has nothing to send, and restarting it "
                "would be the adapter's doing, not the library's",
}
# connection settings (pymysql.connect arguments) the harness owns in connection_settings and
# ctl_connection_settings: the fake primary and its replication account
CONNECTION = {
    "host": "the fake primary's address (CDCH_HOST)",
    "port": "the fake primary's port (CDCH_PORT)",
    "unix_socket": "the fake primary listens on TCP (CDCH_HOST/CDCH_PORT)",
    "user": "the replication account (CDCH_USER)",
    "passwd": "the replication account (CDCH_PASSWORD)",
    "password": "the replication account (CDCH_PASSWORD)",
}
EVENT_LISTS = ("only_events", "ignored_events")


def reader_params():
    """The keyword arguments this release's BinLogStreamReader takes (feature detection)."""
    try:
        params = inspect.signature(BinLogStreamReader.__init__).parameters
    except (TypeError, ValueError):
        return None
    return {n for n, p in params.items() if n != "self" and p.kind in (p.POSITIONAL_OR_KEYWORD,
                                                                       p.KEYWORD_ONLY)}


def event_class(name, key):
    """An event class by its name, from this release's event modules."""
    import importlib
    if not isinstance(name, str):
        raise cdch.ConfigError(key, name, "event classes are given by name (strings)")
    for mod in ("pymysqlreplication.row_event", "pymysqlreplication.event", "pymysqlreplication"):
        try:
            cls = getattr(importlib.import_module(mod), name.rsplit(".", 1)[-1], None)
        except ImportError:
            continue
        if isinstance(cls, type):
            return cls
    raise cdch.ConfigError(key, name, "mysql-replication %s has no event class %s" %
                           (library_version(), name))


def merge_connection(key, base, given, cfg):
    """A connection settings dict: the harness's `base`, plus the user's other pymysql.connect
    arguments (`given`); the harness's keys stay."""
    if not isinstance(given, dict):
        raise cdch.ConfigError(key, given, "a JSON object of pymysql.connect arguments is expected")
    out = dict(base)
    for k, v in given.items():
        if k in CONNECTION:
            cfg.kept("%s.%s" % (key, k), CONNECTION[k])
        else:
            out[k] = v
    return out


def reader_kwargs(env, user, cfg):
    """BinLogStreamReader's keyword arguments for one cell: the adapter's defaults, the user's
    settings (CDCH_CONFIG) over them, the harness's own kept. Fills `cfg`."""
    params = reader_params()
    settings = {
        "host": env.get("CDCH_HOST", "127.0.0.1"),
        "port": int(env.get("CDCH_PORT", "3306")),
        "user": env.get("CDCH_USER", "root"),
        "passwd": env.get("CDCH_PASSWORD", ""),
    }
    for key in user:
        if params is not None and key not in params:
            raise cdch.ConfigError(key, user[key], "not a keyword argument of BinLogStreamReader "
                                   "in mysql-replication %s" % library_version())
    if "connection_settings" in user:
        settings = merge_connection("connection_settings", settings, user["connection_settings"], cfg)
    kwargs = dict(
        connection_settings=settings,
        server_id=int(env.get("CDCH_SERVER_ID", "1001")),
        # no only_events: the library's default event set, as its users get it. It yields
        # PartialUpdateRowsEvent (1.x; a subclass of UpdateRowsEvent, but only_events matches
        # classes exactly, so listing the three row classes would drop it) and drops
        # NotImplementedEvent (filter_non_implemented_events=True): binlogstream.py
        # _allowed_event_list at 1.0.17, packet.py at 0.45.1 (no class for type 39 there).
        resume_stream=True,
        blocking=True,
    )
    gtid_set = env.get("CDCH_GTID_SET")
    if gtid_set and (params is None or "auto_position" in params):
        kwargs["auto_position"] = gtid_set
    else:
        # an empty GTID set cannot be passed (auto_position="" means "no GTID"): start from
        # the first file instead, which is the same stream (a release without auto_position
        # starts at CDCH_START_FILE/POS, the same point as CDCH_GTID_SET)
        start_file = env.get("CDCH_START_FILE") or first_binlog(settings)
        kwargs["log_file"] = start_file
        kwargs["log_pos"] = int(env.get("CDCH_START_POS") or 4)
    for key, value in user.items():
        if key == "connection_settings":
            continue
        if key in HARNESS:
            cfg.kept(key, HARNESS[key])
        elif key == "ctl_connection_settings":
            kwargs[key] = merge_connection(key, settings, value, cfg)
        elif key == "pymysql_wrapper":
            raise cdch.ConfigError(key, value, "a Python class: a JSON configuration cannot give one")
        elif key in EVENT_LISTS:
            if value is None:
                kwargs[key] = None
                continue
            if not isinstance(value, list):
                raise cdch.ConfigError(key, value, "a list of event class names is expected")
            kwargs[key] = [event_class(n, key) for n in value]
        elif key == "report_slave" and isinstance(value, list):
            kwargs[key] = tuple(value)  # (host, user, password, port), as the library takes it
        else:
            kwargs[key] = value
    for key, value in kwargs.items():
        if isinstance(value, dict):
            for k, v in value.items():
                cfg.set("%s.%s" % (key, k), v)
        elif key in EVENT_LISTS and value is not None:
            cfg.set(key, [c.__name__ for c in value])
        else:
            cfg.set(key, value)
    return kwargs


def main():
    cfg = cdch.Effective(cdch.load_config())
    kwargs = reader_kwargs(os.environ, cfg.user, cfg)
    cfg.print()
    stream = BinLogStreamReader(**kwargs)
    ready = False
    gtid = None
    try:
        for ev in stream:
            if not ready:
                cdch.ready()
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
                cdch.change(op, ev.schema, ev.table, before, after, gtid, pos)
    except KeyboardInterrupt:
        sys.exit(0)
    except Exception as e:  # the consumer died
        cdch.error("%s: %s" % (type(e).__name__, e))
        import traceback
        traceback.print_exc()
        sys.exit(1)
    finally:
        try:
            stream.close()
        except Exception:
            pass
    # blocking=True never ends on its own; if it does the stream was closed under us
    cdch.error("stream ended")
    sys.exit(1)


def probe():
    """setup.sh: can this adapter drive the installed release? Prints its version; exit 0."""
    params = reader_params()
    need = {"connection_settings", "server_id", "log_file", "log_pos", "resume_stream", "blocking"}
    missing = sorted(need - params) if params is not None else []
    if missing:
        print("BinLogStreamReader has no %s" % ", ".join(missing))
        sys.exit(1)
    print(library_version())


if __name__ == "__main__":
    if sys.argv[1:] == ["--probe"]:
        probe()
        sys.exit(0)
    cdch.run(main)
