#!/usr/bin/env python3
"""Stream from a (fake) MySQL primary with python-mysql-replication's
BinLogStreamReader, as its users do, and write one JSON line per event it
yields: {"type", "log_pos", "file", "class", "ts"} (its notion of the
position after the event: reader.log_file / reader.log_pos).

  pyrepl.py --port N [--file F --pos N --resume | --gtid SET] [--blocking]
            [--heartbeat SECONDS] [--until-file F --until-pos N] [--heartbeats K]
            [--timeout S] --out events.jsonl

Stops after the event (or heartbeat) at until-file:until-pos and K more
heartbeats; exit 1 on timeout, 3 when the library raised (message printed).
"""
import argparse
import json
import signal
import sys

from pymysqlreplication import BinLogStreamReader


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--host", default="127.0.0.1")
    ap.add_argument("--port", type=int, required=True)
    ap.add_argument("--user", default="cdch")
    ap.add_argument("--password", default="cdch")
    ap.add_argument("--server-id", type=int, default=2001)
    ap.add_argument("--file")
    ap.add_argument("--pos", type=int)
    ap.add_argument("--resume", action="store_true")
    ap.add_argument("--gtid")
    ap.add_argument("--blocking", action="store_true")
    ap.add_argument("--heartbeat", type=float)
    ap.add_argument("--until-file")
    ap.add_argument("--until-pos", type=int)
    ap.add_argument("--heartbeats", type=int, default=0)
    ap.add_argument("--timeout", type=int, default=60)
    ap.add_argument("--out", required=True)
    a = ap.parse_args()

    def on_alarm(*_):
        print("timeout", file=sys.stderr)
        sys.exit(1)

    signal.signal(signal.SIGALRM, on_alarm)
    signal.alarm(a.timeout)
    settings = {"host": a.host, "port": a.port, "user": a.user, "passwd": a.password}
    kw = dict(connection_settings=settings, server_id=a.server_id, blocking=a.blocking,
              filter_non_implemented_events=False)
    if a.gtid is not None:
        kw["auto_position"] = a.gtid
    else:
        kw.update(log_file=a.file, log_pos=a.pos, resume_stream=a.resume)
    if a.heartbeat:
        kw["slave_heartbeat"] = a.heartbeat
    reached = a.until_file is None
    beats = 0
    out = open(a.out, "w")
    try:
        stream = BinLogStreamReader(**kw)
        for ev in stream:
            t = ev.event_type
            rec = {"type": t, "log_pos": ev.packet.log_pos, "file": stream.log_file,
                   "pos_after": stream.log_pos, "class": type(ev).__name__, "ts": ev.timestamp}
            out.write(json.dumps(rec) + "\n")
            out.flush()
            is_hb = t in (27, 41)
            if not reached and stream.log_file == a.until_file and ev.packet.log_pos == a.until_pos:
                reached = True
                if a.heartbeats == 0:
                    break
                continue
            if reached and is_hb:
                beats += 1
                if beats >= a.heartbeats:
                    break
        stream.close()
    except Exception as e:  # the library's own exception, as its users see it
        print("error: %s: %s" % (type(e).__name__, e))
        sys.exit(3)
    if not reached:
        print("stream ended before %s:%s" % (a.until_file, a.until_pos), file=sys.stderr)
        sys.exit(1)


if __name__ == "__main__":
    main()
