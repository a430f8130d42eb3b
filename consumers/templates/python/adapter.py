"""cdcharness adapter template for a Python CDC library (here: mysql-replication).

Output, canonical values, the config line and the run (one-shot and session mode) come from
the foundation, consumers/python-common/cdch_adapter.py; this file holds what is the library's.
Places to change for your library: "# CHANGE:".
"""
import datetime
import decimal
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
# the foundation: ../python-common in consumers/<family>/, ../../python-common in consumers/templates/<lang>/
sys.path[:0] = [os.path.join(HERE, "..", "python-common"), os.path.join(HERE, "..", "..", "python-common")]
import cdch_adapter as cdch  # noqa: E402

cdch.utc()  # before the library is imported: TIMESTAMP values come out in UTC

# CHANGE: your library.
import pymysql  # noqa: E402
from pymysqlreplication import BinLogStreamReader  # noqa: E402
from pymysqlreplication.event import GtidEvent  # noqa: E402
from pymysqlreplication.row_event import DeleteRowsEvent, UpdateRowsEvent, WriteRowsEvent  # noqa: E402

# CHANGE: the settings a user may give in CDCH_CONFIG (a JSON object), simple values only; any
# other key is refused (config-error, exit 2). HARNESS: the settings the harness owns, and why.
ALLOWED = {"freeze_schema", "slave_heartbeat", "fail_on_table_metadata_unavailable"}
HARNESS = {k: "the harness sets the fake primary, the server id and where each cell starts"
           for k in ("connection_settings", "server_id", "log_file", "log_pos", "auto_position")}


def value(column, v):
    """CHANGE: the library's value -> canonical (consumers/README.md "Output")."""
    fsp = getattr(column, "fsp", 0) or 0
    if isinstance(v, bool):
        return int(v)
    if isinstance(v, int):
        return cdch.int_value(v)
    if isinstance(v, decimal.Decimal):
        return cdch.fmt_decimal(v)
    if isinstance(v, datetime.datetime):
        return cdch.fmt_datetime(v, fsp)
    if isinstance(v, datetime.date):
        return cdch.fmt_date(v)
    if isinstance(v, datetime.timedelta):
        return cdch.fmt_timedelta(v, fsp)
    if isinstance(v, (bytes, bytearray)):
        return cdch.base64_value(v)
    if isinstance(v, (set, frozenset)):
        labels = list(getattr(column, "set_values", None) or [])
        return sorted(v, key=lambda x: labels.index(x) if x in labels else len(labels))
    return cdch.json_value(v)  # str, float, None, JSON documents


def image(ev, values):
    if values is None:
        return None
    return {name: value(ev.columns[i] if i < len(ev.columns) else None, v)
            for i, (name, v) in enumerate(values.items())}


def main():
    env = os.environ
    cfg = cdch.Effective(cdch.load_config())
    conn = {"host": env.get("CDCH_HOST", "127.0.0.1"), "port": int(env.get("CDCH_PORT", "3306")),
            "user": env.get("CDCH_USER", "root"), "passwd": env.get("CDCH_PASSWORD", "")}
    kwargs = {"connection_settings": conn, "server_id": int(env.get("CDCH_SERVER_ID", "1001")),
              "resume_stream": True, "blocking": True}
    if env.get("CDCH_GTID_SET"):
        kwargs["auto_position"] = env["CDCH_GTID_SET"]
    else:
        start_file = env.get("CDCH_START_FILE")
        if not start_file:  # the first binlog (the library would start at the end)
            c = pymysql.connect(**conn)
            with c.cursor() as cur:
                cur.execute("SHOW BINARY LOGS")
                start_file = cur.fetchall()[0][0]
            c.close()
        kwargs.update(log_file=start_file, log_pos=int(env.get("CDCH_START_POS") or 4))
    for key, v in cfg.user.items():
        if key in HARNESS:
            cfg.kept(key, HARNESS[key])
        elif key not in ALLOWED or isinstance(v, (dict, list)):
            raise cdch.ConfigError(key, v, "not a setting this adapter passes (%s)" % ", ".join(sorted(ALLOWED)))
        else:
            kwargs[key] = v
    for key, v in kwargs.items():
        for k2, v2 in (v.items() if isinstance(v, dict) else [(None, v)]):
            cfg.set(key + ("." + k2 if k2 else ""), v2)
    cfg.print()

    stream = BinLogStreamReader(**kwargs)  # CHANGE: start your library
    cdch.ready()
    gtid = None
    try:
        for ev in stream:
            if isinstance(ev, GtidEvent):
                gtid = ev.gtid
            if not isinstance(ev, (WriteRowsEvent, UpdateRowsEvent, DeleteRowsEvent)):
                continue
            pos = {"file": stream.log_file, "pos": stream.log_pos}
            for row in ev.rows:
                if isinstance(ev, WriteRowsEvent):
                    op, before, after = "insert", None, image(ev, row["values"])
                elif isinstance(ev, UpdateRowsEvent):
                    op, before, after = "update", image(ev, row["before_values"]), image(ev, row["after_values"])
                else:
                    op, before, after = "delete", image(ev, row["values"]), None
                cdch.change(op, ev.schema, ev.table, before, after, gtid, pos)
    except Exception as e:  # the consumer died: its error, exit non-zero
        cdch.error("%s: %s" % (type(e).__name__, e))
        sys.exit(1)
    cdch.error("stream ended")  # a blocking stream never ends by itself
    sys.exit(1)


if __name__ == "__main__":
    cdch.run(main)  # SIGTERM, one-shot or session mode (CDCH_SESSION=1)
