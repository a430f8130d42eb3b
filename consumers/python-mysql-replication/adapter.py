"""cdcharness adapter for python-mysql-replication (PyPI `mysql-replication`).

Runs BinLogStreamReader the way its users do: a blocking stream of row events plus GTID
tracking, resumed from a file/position (or a GTID set), and prints each row change as a
canonical change event (consumers/README.md). Works with the 0.x and 1.x release lines.

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


def image(event, values):
    if values is None:
        return None
    out = {}
    cols = event.columns
    for i, (name, v) in enumerate(values.items()):
        column = cols[i] if i < len(cols) else None
        out[col_key(name, i)] = canon(column, v)
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
        only_events=[WriteRowsEvent, UpdateRowsEvent, DeleteRowsEvent, GtidEvent, RotateEvent],
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
            pos = {"file": stream.log_file, "pos": stream.log_pos}
            for row in ev.rows:
                if isinstance(ev, WriteRowsEvent):
                    op, before, after = "insert", None, row["values"]
                elif isinstance(ev, UpdateRowsEvent):
                    op, before, after = "update", row["before_values"], row["after_values"]
                else:
                    op, before, after = "delete", row["values"], None
                emit({"op": op, "db": ev.schema, "table": ev.table,
                      "before": image(ev, before), "after": image(ev, after),
                      "gtid": gtid, "pos": pos})
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


if __name__ == "__main__":
    import signal
    signal.signal(signal.SIGTERM, lambda *a: os._exit(0))
    main()
