#!/usr/bin/env python3
"""Replication-protocol checks against the fake primary at the packet level
(PyMySQL only for the handshake): the errors a MySQL 8 source gives for bad
dump requests, the stream's framing (fake ROTATE, FDE, checksums, EOF,
semi-sync header, heartbeats v1/v2, GTID skipping) and the injected faults.

  rawdump.py SUITE --port N --stream DIR [--port2 N]

SUITE: protocol | purged | fault-mix | fault-drop-events | fault-drop-bytes | fault-stall
Prints "PASS name" / "FAIL name: why" per check (tests/dump_clients.sh counts them).
Expected values come from MySQL's sql/rpl_binlog_sender.cc / rpl_source.cc
(shared/reference/binlog-format.md s.11) and tests/clients/expect_dump.py.
"""
import argparse
import json
import os
import socket
import struct
import sys
import time
import zlib

import pymysql

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import expect_dump as X  # noqa: E402

COM_REGISTER_SLAVE, COM_BINLOG_DUMP, COM_BINLOG_DUMP_GTID = 0x15, 0x12, 0x1E
UUID = "3e11fa47-71ca-11e1-9e33-c80aa9429562"
OTHER = "11111111-2222-3333-4444-555555555555"
results = []


def check(name, ok, why=""):
    results.append(ok)
    print(("PASS %s" % name) if ok else ("FAIL %s: %s" % (name, why)), flush=True)


def connect(port, declare=None, extra=()):
    c = pymysql.connect(host="127.0.0.1", port=port, user="cdch", password="cdch", connect_timeout=10)
    cur = c.cursor()
    if declare is not None:
        cur.execute("SET @master_binlog_checksum = '%s', @source_binlog_checksum = '%s'" % (declare, declare))
    for q in extra:
        cur.execute(q)
    cur.close()
    return c


def send(c, cmd, payload):
    c._next_seq_id = 0
    c._execute_command(cmd, payload)


def read_exact(c, n):
    b = c._rfile.read(n)
    if b is None or len(b) < n:
        raise EOFError(len(b or b""))
    return b


def read_packet(c):
    """One logical packet (chunks of 0xFFFFFF joined)."""
    data = b""
    while True:
        h = read_exact(c, 4)
        n = h[0] | h[1] << 8 | h[2] << 16
        data += read_exact(c, n)
        if n < 0xFFFFFF:
            return data


def collect(c, timeout=10.0, max_events=10 ** 9, until=None):
    """[('ev', bytes)|('hb', bytes)|('err', code, msg)|('eof', payload)|('closed',)|('timeout',)]"""
    c._sock.settimeout(timeout)
    out = []
    nev = 0
    while True:
        try:
            p = read_packet(c)
        except (EOFError, ConnectionError, OSError) as e:
            out.append(("timeout",) if isinstance(e, socket.timeout) else ("closed",))
            return out
        if p[:1] == b"\xff":
            code = struct.unpack_from("<H", p, 1)[0]
            msg = p[9:].decode("utf-8", "replace") if p[3:4] == b"#" else p[3:].decode()
            out.append(("err", code, msg))
        elif p[:1] == b"\xfe" and len(p) < 9:
            out.append(("eof", p))
        elif p[:1] == b"\x00":
            ev = p[1:]
            out.append(("hb" if ev[4] in (27, 41) else "ev", ev))
            nev += 1
            if nev >= max_events or (until and until(ev)):
                return out
            continue
        else:
            out.append(("junk", p))
        # after ERR/EOF MySQL ends the session: the socket must close
        try:
            c._sock.settimeout(5)
            rest = c._sock.recv(1)
            out.append(("closed",) if rest == b"" else ("junk", rest))
        except OSError:
            out.append(("timeout",))
        return out


def dump_pos(c, name, pos, flags=1, sid=0):
    send(c, COM_BINLOG_DUMP, struct.pack("<IHI", pos, flags, sid) + name.encode())


def gtid_encode(text):
    s = X.parse_gtid_set(text)
    b = struct.pack("<Q", len(s))
    for u, ivs in s.items():
        b += bytes.fromhex(u.replace("-", "")) + struct.pack("<Q", len(ivs))
        for a, e in ivs:
            b += struct.pack("<QQ", a, e)
    return b


def dump_gtid(c, text, flags=1, sid=0, name=b"", pos=4, raw=None):
    g = gtid_encode(text) if raw is None else raw
    send(c, COM_BINLOG_DUMP_GTID, struct.pack("<HII", flags, sid, len(name)) + name + struct.pack("<QI", pos, len(g)) + g)


def le32(b, o):
    return struct.unpack_from("<I", b, o)[0]


def events(out):
    return [x[1] for x in out if x[0] == "ev"]


def files_of(stream):
    return X.stream_files(stream)[1]


def expect_err(name, out, code, msg, closed=True):
    errs = [x for x in out if x[0] == "err"]
    if not errs:
        return check(name, False, "no error; got %s" % [x[0] for x in out][:8])
    _, c, m = errs[0]
    ok = c == code and m == msg
    if closed and out[-1][0] != "closed":
        return check(name, False, "connection not closed after the error (%s)" % out[-1][0])
    check(name, ok, "got %d '%s'\n      want %d '%s'" % (c, m, code, msg))


def fde_end(stream, name):
    evs = X.read_events(os.path.join(stream, name))
    return evs[0][0] + len(evs[0][1])


def compare_full(name, out, exp):
    got = [x for x in out if x[0] in ("ev", "hb")]
    rec = [{"type": e[4], "raw": e.hex(), "hb_pos": hb_pos(e) if k == "hb" else None} for k, e in got]
    err = X.compare(exp, rec)
    check(name, err is None, err)


def hb_pos(ev):
    if ev[4] == 27:
        return le32(ev, 13)
    # v2: 01 <len> name 02 <len> <lenenc pos> 00
    b = ev[19:]
    i = 0
    pos = None
    while i < len(b) and b[i] != 0:
        t, n = b[i], b[i + 1]
        v = b[i + 2:i + 2 + n]
        if t == 2:
            pos = v[0] if v[0] < 251 else int.from_bytes(v[1:], "little")
        i += 2 + n
    return pos


# ---------------------------------------------------------------------------

def suite_protocol(port, stream, port2):
    files = files_of(stream)
    manifest = X.stream_files(stream)[0]
    first, last = files[0], files[-1]
    last_size = os.path.getsize(os.path.join(stream, last))
    f1 = fde_end(stream, first)

    # a blocking dump that stays open through every check below
    watcher = connect(port, "CRC32", ["SET @master_heartbeat_period = 100000000"])
    dump_pos(watcher, last, 4, flags=0, sid=77)
    w_out = collect(watcher, timeout=5, until=lambda e: le32(e, 13) == last_size and e[4] not in (27, 41))

    # checksum not declared: fake rotate (no CRC), then ERR 1236 with MySQL's suffix
    c = connect(port)
    dump_pos(c, first, 4)
    out = collect(c)
    ev = events(out)
    ok = len(ev) == 1 and ev[0] == X.fake_rotate(manifest["server_id"], 4, first, False)
    check("undeclared checksum: fake rotate first, without CRC", ok, [x[0] for x in out])
    expect_err("undeclared checksum: ERR 1236", out, 1236,
               "Replica can not handle replication events with the checksum that source is configured to log; "
               "the first event '%s' at 4, the last event read from './%s' at %d, the last byte read from './%s' "
               "at %d." % (first, first, f1, first, f1))

    # declared NONE (go-mysql, mariadb-binlog): the whole stream as stored, then EOF, then close
    c = connect(port, "NONE")
    dump_pos(c, first, 4)
    out = collect(c)
    compare_full("declared NONE: events as stored (CRC kept), fake rotate without CRC", out,
                 X.expected(stream, first, 4, None, "NONE"))
    eofs = [x for x in out if x[0] == "eof"]
    check("non-blocking end: classic EOF fe 00 00 02 00, then close",
          len(eofs) == 1 and eofs[0][1] == b"\xfe\x00\x00\x02\x00" and out[-1][0] == "closed", out[-3:])

    # declared CRC32: the fake rotate carries a CRC; empty name = first file
    c = connect(port, "CRC32")
    dump_pos(c, "", 4)
    out = collect(c)
    compare_full("declared CRC32, empty file name: fake rotate with CRC, from the first file", out,
                 X.expected(stream, first, 4, None, "CRC32"))

    # server_id 0 without the non-block flag is non-blocking too (mysqlbinlog)
    c = connect(port, "CRC32")
    dump_pos(c, last, 4, flags=0, sid=0)
    out = collect(c, timeout=5)
    check("server_id 0: non-blocking (EOF at the end)", out[-2][0] == "eof" and out[-1][0] == "closed", out[-2:])

    # mid-stream start at an event boundary: FDE with log_pos 0 / created 0 and a new CRC
    evs = X.read_events(os.path.join(stream, files[1]))
    mid = evs[len(evs) // 2][0]
    c = connect(port, "CRC32")
    dump_pos(c, files[1], mid)
    out = collect(c)
    compare_full("resume at %s:%d" % (files[1], mid), out, X.expected(stream, files[1], mid, None, "CRC32"))

    # position errors, in MySQL's words (check_start_file: no file open, no suffix)
    for label, name, pos, msg in (
            ("position > file size", first, 10 ** 9, "Client requested source to start replication from position > file size"),
            ("position < 4", first, 3, "Client requested source to start replication from position < 4"),
            ("unknown file", "binlog.999999", 4, "Could not find first log file name in binary log index file")):
        c = connect(port, "CRC32")
        dump_pos(c, name, pos)
        out = collect(c)
        expect_err("%s: ERR 1236" % label, out, 1236, msg)
        check("%s: nothing sent before the error" % label, not events(out), [x[0] for x in out])

    # a position inside an event: MySQL reads a header there; this one claims
    # 0x7e000000 bytes (> 1 GiB), so the error names max_allowed_packet
    c = connect(port, "CRC32")
    dump_pos(c, first, 5)
    out = collect(c)
    expect_err("position inside the FDE: ERR 1236 as MySQL's reader reports it", out, 1236,
               "log event entry exceeded max_allowed_packet; Increase max_allowed_packet on source; the first event "
               "'%s' at 5, the last event read from './%s' at %d, the last byte read from './%s' at 24."
               % (first, first, f1, first))
    # inside a later event: the bytes there give an event that runs past the end of the file
    # (or a garbage event MySQL would send); compute which, as MySQL would
    data = open(os.path.join(stream, last), "rb").read()
    bounds = {o for o, _ in X.read_events(os.path.join(stream, last))}
    p = next(q for q in range(fde_end(stream, last) + 1, len(data) - 19) if q not in bounds and
             19 <= le32(data, q + 9) <= 1 << 30 and q + le32(data, q + 9) > len(data))
    c = connect(port, "CRC32")
    dump_pos(c, last, p)
    out = collect(c)
    expect_err("position inside an event, length past the end: truncated-event error", out, 1236,
               "binlog truncated in the middle of event; consider out of disk space on source; the first event "
               "'%s' at %d, the last event read from './%s' at %d, the last byte read from './%s' at %d."
               % (last, p, last, fde_end(stream, last), last, len(data)))

    # malformed packets
    c = connect(port, "CRC32")
    send(c, COM_BINLOG_DUMP, b"\x04\x00\x00")
    expect_err("COM_BINLOG_DUMP shorter than 10 bytes: ER_MALFORMED_PACKET", collect(c), 1835,
               "Malformed communication packet.")
    c = connect(port, "CRC32")
    send(c, COM_BINLOG_DUMP_GTID, struct.pack("<HII", 0, 5, 600) + b"x" * 600 + struct.pack("<QI", 4, 8) + b"\0" * 8)
    expect_err("COM_BINLOG_DUMP_GTID name of 600 bytes: ER_MALFORMED_PACKET", collect(c), 1835,
               "Malformed communication packet.")
    c = connect(port, "CRC32")
    dump_gtid(c, "", raw=struct.pack("<Q", 1) + b"\x01" * 10)
    expect_err("GTID set truncated: ER_MALFORMED_GTID_SET_ENCODING", collect(c), 1773, "Malformed GTID set encoding.")
    c = connect(port, "CRC32")
    send(c, COM_BINLOG_DUMP_GTID, struct.pack("<HII", 0, 5, 0) + struct.pack("<QI", 4, 100) + b"\0" * 8)
    expect_err("GTID data_size past the packet: ER_MALFORMED_PACKET", collect(c), 1835, "Malformed communication packet.")

    # COM_REGISTER_SLAVE
    def register(payload):
        c = connect(port, "CRC32")
        send(c, COM_REGISTER_SLAVE, payload)
        c._sock.settimeout(5)
        return c, read_packet(c)
    good = struct.pack("<I", 9) + b"\x04host\x04user\x02pw" + struct.pack("<HII", 3307, 0, 0)
    c, p = register(good)
    check("COM_REGISTER_SLAVE: OK", p[:1] == b"\x00", p)
    dump_pos(c, last, 4)  # the session goes on after it
    out = collect(c)
    check("dump after COM_REGISTER_SLAVE", out[-2][0] == "eof", [x[0] for x in out][-3:])
    for label, payload, code, msg in (
            ("2 bytes", b"\x09\x00", 1835, "Malformed communication packet."),
            ("no port", struct.pack("<I", 9) + b"\x00\x00\x00\x01\x02", 1105, "Wrong parameters when registering replica"),
            ("host of 300 bytes", struct.pack("<I", 9) + b"\xfc\x2c\x01" + b"h" * 300 + b"\0\0" + b"\0" * 10, 1105,
             "Failed to register replica: too long 'report-host'")):
        c, p = register(payload)
        code_got = struct.unpack_from("<H", p, 1)[0] if p[:1] == b"\xff" else None
        check("COM_REGISTER_SLAVE %s: ERR %d" % (label, code), code_got == code and p[9:].decode() == msg, p)

    # GTID protocol
    executed = manifest["gtid_executed"]
    hi = int(executed.split("-")[-1])
    c = connect(port, "CRC32")
    dump_gtid(c, "%s:1-%d" % (UUID, hi + 5))
    expect_err("GTID set with more of the source's GTIDs than it has: ERR 1236", collect(c), 1236,
               MORE_GTIDS)
    c = connect(port, "CRC32")
    dump_gtid(c, "%s:1-1000" % OTHER)
    out = collect(c)
    compare_full("GTID set of another server (nothing purged): everything, from the first file", out,
                 X.expected(stream, None, 4, "%s:1-1000" % OTHER, "CRC32"))
    for upto in (3, hi // 2, hi):
        gs = "%s:1-%d" % (UUID, upto)
        c = connect(port, "CRC32", ["SET @master_heartbeat_period = 30000000000"])
        dump_gtid(c, gs)
        out = collect(c)
        compare_full("GTID dump from %s: file from PREVIOUS_GTIDS, skipped transactions, heartbeats" % gs, out,
                     X.expected(stream, None, 4, gs, "CRC32"))
    c = connect(port, "NONE")
    dump_gtid(c, "%s:1-%d" % (UUID, hi), name=last.encode(), pos=4)
    out = collect(c)
    ev = events(out)
    check("GTID dump naming a file starts there (PREVIOUS_GTIDS sent)",
          len(ev) >= 3 and ev[0][4] == 4 and ev[1][4] == 15 and ev[2][4] == 35 and
          ev[0][27:].startswith(last.encode()), [e[4] for e in ev[:4]])

    # semi-sync: 0xEF + flags after the 0x00 of every event packet
    c = connect(port, "CRC32", ["SET @rpl_semi_sync_slave = 1"])
    dump_pos(c, last, 4)
    c._sock.settimeout(10)
    pk = []
    while True:
        p = read_packet(c)
        pk.append(p)
        if p[:1] != b"\x00":
            break
    check("semi-sync: every event packet is 00 ef 00 + event, EOF unchanged",
          all(p[:3] == b"\x00\xef\x00" for p in pk[:-1]) and pk[-1] == b"\xfe\x00\x00\x02\x00" and len(pk) > 3,
          [p[:4].hex() for p in pk[:4]])

    # heartbeats while idle: v1 (flags 0) and v2 (flags 0x02), CRC as the FDE says
    for flags, typ in ((0, 27), (2, 41)):
        c = connect(port, "CRC32", ["SET @source_heartbeat_period = 100000000"])
        dump_pos(c, last, 4, flags=flags, sid=55)
        t0 = time.time()
        out = collect(c, timeout=5, until=lambda e: e[4] in (27, 41))
        hbs = [x[1] for x in out if x[0] == "hb"]
        hb = hbs[0] if hbs else b""
        ok = hb and hb[4] == typ and le32(hb, 0) == 0 and le32(hb, 13) == last_size and \
            le32(hb, 9) == len(hb) and struct.unpack_from("<I", hb, len(hb) - 4)[0] == zlib.crc32(hb[:-4]) and \
            last.encode() in hb and hb_pos(hb) == last_size
        check("idle heartbeat v%d (type %d) at %s:%d after %.2fs" % (1 if typ == 27 else 2, typ, last, last_size,
                                                                      time.time() - t0), bool(ok), hb.hex())
        c.close()

    # the blocking dump opened first is still streaming (heartbeats), the server serves new clients
    w_more = collect(watcher, timeout=3, max_events=2)
    check("blocking dump kept streaming while others came and went",
          w_out[-1][0] == "ev" and [x[0] for x in w_more] == ["hb", "hb"], ([x[0] for x in w_out][-2:], w_more[:2]))
    watcher.close()
    c = connect(port, "CRC32")
    dump_pos(c, first, 4)
    out = collect(c)
    compare_full("a full dump after all the errors", out, X.expected(stream, first, 4, None, "CRC32"))
    if port2:
        c = connect(port2, "CRC32")
        check("second server answers too", c.open)


MORE_GTIDS = (
    "Replica has more GTIDs than the source has, using the source's SERVER_UUID. This may indicate that the the last "
    "binary log file was truncated or lost, e.g., after a power failure when sync_binlog != 1. The source may have "
    "rolled back transactions that were already replicated to the replica. Replicate any transactions that source has "
    "rolled back from replica to source, and/or commit empty transactions on source to account for transactions that "
    "have been committed on source but are not included in GTID_EXECUTED.")[:511]


def suite_purged(port, stream, _):
    """stream's first file says PREVIOUS_GTIDS = <server_uuid>:1-99 (purged)."""
    uuid = X.stream_files(stream)[0]["server_uuid"]
    for sent in ("", "%s:1-50" % uuid, "%s:1-20" % OTHER):
        c = connect(port, "CRC32")
        dump_gtid(c, sent)
        missing = "%s:1-99" % uuid if not sent.startswith(uuid) else "%s:51-99" % uuid
        expect_err("GTID set %r lacks purged GTIDs: ERR 1236" % sent, collect(c), 1236,
                   "Cannot replicate because the source purged required binary logs. Replicate the missing "
                   "transactions from elsewhere, or provision a new replica from backup. Consider increasing the "
                   "source's binary log expiration period. The GTID set sent by the replica is '%s', and the missing "
                   "transactions are '%s'" % (sent, missing))
    c = connect(port, "CRC32")
    dump_gtid(c, "%s:1-99" % uuid)
    out = collect(c, timeout=5, max_events=3)
    check("GTID set holding the purged GTIDs streams", [x[0] for x in out][:3] == ["ev", "ev", "ev"], out[:3])


def raw_stream(port, stream, declare="CRC32", timeout=5):
    c = connect(port, declare)
    dump_pos(c, X.stream_files(stream)[1][0], 4, flags=1)
    c._sock.settimeout(timeout)
    buf = b""
    try:
        while True:
            b = c._sock.recv(1 << 16)
            if not b:
                return buf, "closed"
            buf += b
    except socket.timeout:
        return buf, "open"


def split_packets(buf):
    """[(declared_len, payload_bytes_present)] of the raw byte stream (a cut packet comes last)."""
    out = []
    o = 0
    while o + 4 <= len(buf):
        n = buf[o] | buf[o + 1] << 8 | buf[o + 2] << 16
        out.append((n, buf[o + 4:o + 4 + n]))
        o += 4 + n
    return out


def stream_events(stream):
    exp = X.expected(stream, X.stream_files(stream)[1][0], 4, None, "CRC32")
    return [e for k, e in exp if k == "event"]


def suite_fault_mix(port, stream, _):
    """unknown_event_at=3, corrupt_checksum_at=5, truncate_event_at=8"""
    want = stream_events(stream)
    buf, state = raw_stream(port, stream)
    pk = split_packets(buf)
    evs = [p[1:] for n, p in pk]
    check("unknown type 199 before event 3 (log_pos = where event 3 starts, CRC32)",
          len(evs) > 3 and evs[2][4] == 199 and evs[3] == want[2] and le32(evs[2], 9) == len(evs[2]) and
          le32(evs[2], 13) == le32(want[2], 13) - len(want[2]) and
          evs[2][-4:] == struct.pack("<I", zlib.crc32(evs[2][:-4])), [e[4] for e in evs[:5]])
    e5 = evs[5] if len(evs) > 5 else b""
    check("CRC bit flipped in event 5", e5[:-4] == want[4][:-4] and e5[-4:] != want[4][-4:] and
          (int.from_bytes(e5[-4:], "little") ^ int.from_bytes(want[4][-4:], "little")) == 1, e5[-4:].hex())
    n8, p8 = pk[-1] if pk else (0, b"")
    check("event 8 cut in half, then the connection closes",
          len(pk) == 9 and n8 == len(want[7]) + 1 and p8 == b"\x00" + want[7][:len(want[7]) // 2] and state == "closed",
          (len(pk), n8, len(p8), state))
    buf2, _ = raw_stream(port, stream)
    check("faults apply to every dump without --once", split_packets(buf2)[2][1][5] == 199)


def suite_fault_drop_events(port, stream, _):
    """drop_after_events=6 --once"""
    want = stream_events(stream)
    buf, state = raw_stream(port, stream)
    pk = split_packets(buf)
    check("drop after 6 events: 6 whole events, no EOF, closed",
          [p[1:] for n, p in pk] == want[:6] and state == "closed", (len(pk), state))
    buf, state = raw_stream(port, stream)
    pk = split_packets(buf)
    check("--once: the second dump is whole", len(pk) == len(want) + 1 and pk[-1][1] == b"\xfe\x00\x00\x02\x00"
          and state == "closed", (len(pk), len(want)))


def suite_fault_drop_bytes(port, stream, _):
    """drop_after_bytes=N where N falls inside the first TRANSACTION_PAYLOAD (passed in the stream dir name file)"""
    want = stream_events(stream)
    limit = int(open(os.path.join(stream, "..", "drop_bytes")).read())
    buf, state = raw_stream(port, stream)
    pk = split_packets(buf)
    total = sum(len(p) - 1 for n, p in pk)
    k = len(pk) - 1
    n, last = pk[-1]
    check("drop after %d bytes: cut inside a TRANSACTION_PAYLOAD, header announces the whole event" % limit,
          total == limit and want[k][4] == 40 and n == len(want[k]) + 1 and last == b"\x00" + want[k][:len(last) - 1]
          and len(last) - 1 < len(want[k]) and state == "closed", (total, limit, want[k][4], n, len(last), state))


def suite_fault_stall(port, stream, _):
    """stall_at=4"""
    want = stream_events(stream)
    buf, state = raw_stream(port, stream, timeout=2)
    pk = split_packets(buf)
    check("stall before event 4: 3 events, connection kept open",
          [p[1:] for n, p in pk] == want[:3] and state == "open", (len(pk), state))


SUITES = {"protocol": suite_protocol, "purged": suite_purged, "fault-mix": suite_fault_mix,
          "fault-drop-events": suite_fault_drop_events, "fault-drop-bytes": suite_fault_drop_bytes,
          "fault-stall": suite_fault_stall}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("suite", choices=sorted(SUITES))
    ap.add_argument("--port", type=int, required=True)
    ap.add_argument("--port2", type=int)
    ap.add_argument("--stream", required=True)
    a = ap.parse_args()
    try:
        SUITES[a.suite](a.port, a.stream, a.port2)
    except Exception as e:  # a crash is a failure of the suite, not of the runner
        import traceback
        traceback.print_exc()
        check("%s suite ran to the end" % a.suite, False, repr(e))
    sys.exit(0 if all(results) else 1)


if __name__ == "__main__":
    main()
