#!/usr/bin/env python3
"""make_server_seeds.py - synthetic client sessions for fuzz_server.

    fuzz/make_server_seeds.py OUT_DIR

Each file is the byte stream a client sends to the fake primary (framing
included): a HandshakeResponse41 for user cdch with an empty
mysql_native_password response (fuzz_server's account), then commands the
recorded real clients (fuzz/record_client.py) do not send: COM_STMT_*
with every binary parameter type and temporal length, COM_REGISTER_SLAVE,
COM_BINLOG_DUMP and COM_BINLOG_DUMP_GTID (non-blocking), the small
commands, an SSLRequest and malformed framing.
"""
import os
import struct
import sys
import uuid

CAPS = (1 << 0) | (1 << 2) | (1 << 3) | (1 << 9) | (1 << 13) | (1 << 15) | (1 << 16) | (1 << 17) | \
    (1 << 19) | (1 << 20) | (1 << 21) | (1 << 24)
SID = uuid.UUID("5f4b2a10-8c3d-11ee-b9d1-0242ac120002").bytes


def pkt(seq, payload):
    return struct.pack("<I", len(payload))[:3] + bytes([seq & 0xFF]) + payload


def lenenc(n):
    if n < 251:
        return bytes([n])
    if n < 1 << 16:
        return b"\xfc" + struct.pack("<H", n)
    if n < 1 << 24:
        return b"\xfd" + struct.pack("<I", n)[:3]
    return b"\xfe" + struct.pack("<Q", n)


def handshake(db=b"", caps=CAPS):
    if db:
        caps |= 1 << 3
    else:
        caps &= ~(1 << 3)
    attrs = lenenc(7) + b"_client" + lenenc(4) + b"fuzz"
    body = struct.pack("<IIB", caps, 1 << 24, 255) + b"\0" * 23 + b"cdch\0" + lenenc(0)
    if db:
        body += db + b"\0"
    body += b"mysql_native_password\0" + lenenc(len(attrs)) + attrs
    return pkt(1, body)


def cmd(code, payload=b""):
    return pkt(0, bytes([code]) + payload)


def query(sql):
    return cmd(0x03, sql.encode())


def execute(stmt_id, types, values, nulls=0):
    n = len(types)
    body = struct.pack("<IBI", stmt_id, 0, 1)
    body += nulls.to_bytes((n + 7) // 8, "little") + b"\x01"
    body += b"".join(struct.pack("<BB", t, f) for t, f in types)
    body += b"".join(values)
    return cmd(0x17, body)


def sessions():
    hs = handshake()
    yield "queries", hs + query("SELECT 1") + query("SELECT @@version, @@server_id, 'a' LIKE 'a%', 1 IN (1,2)") + \
        query("SET @a = 'x', @@session.autocommit = 0") + query("SELECT @a") + query("SHOW MASTER STATUS") + \
        query("SHOW BINARY LOGS") + query("SHOW BINLOG EVENTS IN 'binlog.000001' FROM 4 LIMIT 2") + \
        query("/* c */ SELECT CONCAT('a', `b`) FROM shop.orders WHERE id BETWEEN 1 AND 3 ORDER BY 1 DESC LIMIT 1") + \
        query("SELECT 1; SELECT 'x") + query("USE shop") + cmd(0x01)
    yield "multi", hs + cmd(0x1b, b"\0\0") + query("SELECT 1; SELECT 2; SELECT 'abc") + cmd(0x1b, b"\1\0") + \
        query("SELECT 1; SELECT 2")
    yield "small_commands", hs + cmd(0x02, b"shop") + cmd(0x04, b"orders\0%") + cmd(0x09) + cmd(0x0e) + \
        cmd(0x07, b"\1") + cmd(0x0d) + cmd(0x0c, struct.pack("<I", 99)) + cmd(0x1f) + cmd(0x0a) + cmd(0x99) + \
        cmd(0x0c, struct.pack("<I", 8))
    # prepared statements: every binary type, the temporal lengths, long data
    s = hs + cmd(0x16, b"SELECT ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?")
    types = [(1, 0), (2, 0x80), (3, 0), (8, 0), (4, 0), (5, 0), (10, 0), (11, 0), (12, 0), (7, 0), (253, 0)]
    vals = [b"\x7f", b"\xff\xff", struct.pack("<i", -5), struct.pack("<q", 1 << 40), struct.pack("<f", 1.5),
            struct.pack("<d", 2.25), b"\x04" + struct.pack("<HBB", 2024, 1, 2),
            b"\x0c\x01" + struct.pack("<I", 40) + b"\x03\x04\x05" + struct.pack("<I", 6),
            b"\x0b" + struct.pack("<HBBBBBI", 2024, 1, 2, 3, 4, 5, 123456), b"\x07" + struct.pack("<HBBBBB", 1999, 12, 31, 23, 59, 59),
            lenenc(3) + b"x'y"]
    s += execute(1, types, vals) + execute(1, [], [], 0)
    s += cmd(0x18, struct.pack("<IH", 1, 10) + b"long data") + execute(1, types, vals[:1] + vals[2:], nulls=0b10) + \
        cmd(0x1c, struct.pack("<II", 1, 10)) + cmd(0x1a, struct.pack("<I", 1)) + cmd(0x19, struct.pack("<I", 1))
    s += cmd(0x16, b"SELECT * FROM shop.orders WHERE id = ?") + \
        execute(2, [(8, 0x80)], [struct.pack("<Q", 1)]) + \
        execute(2, [(10, 0)], [b"\x00"]) + execute(2, [(11, 0)], [b"\x08\x00" + struct.pack("<I", 1) + b"\x01\x02\x03"])
    yield "stmt", s
    yield "stmt_bad_lengths", hs + cmd(0x16, b"SELECT ?, ?") + \
        execute(1, [(10, 0), (3, 0)], [b"\x05" + struct.pack("<HBBB", 2024, 1, 2, 9), struct.pack("<i", 7)]) + \
        execute(1, [(11, 0), (3, 0)], [b"\x09" + b"\0" * 9, struct.pack("<i", 7)])
    reg = struct.pack("<I", 100) + b"\x04host" + b"\x04user" + b"\x00" + struct.pack("<HII", 3306, 0, 0)
    yield "dump", hs + query("SET @master_binlog_checksum = 'CRC32'") + query("SET @master_heartbeat_period = 1000000") + \
        cmd(0x15, reg) + cmd(0x12, struct.pack("<IHI", 4, 1, 100) + b"binlog.000001")
    gtids = struct.pack("<Q", 1) + SID + struct.pack("<Q", 1) + struct.pack("<qq", 1, 3)
    name = b"binlog.000001"
    yield "dump_gtid", hs + query("SET @source_binlog_checksum = 'NONE'") + cmd(0x15, reg) + \
        cmd(0x1e, struct.pack("<HII", 1 | 4, 100, len(name)) + name + struct.pack("<QI", 4, len(gtids)) + gtids)
    yield "dump_gtid_empty", hs + cmd(0x1e, struct.pack("<HII", 1 | 4, 100, 0) + struct.pack("<QI", 4, 8) + b"\0" * 8)
    yield "dump_unknown_file", hs + cmd(0x12, struct.pack("<IHI", 4, 1, 100) + b"nosuch.000009")
    yield "handshake_db", handshake(db=b"shop") + query("SELECT DATABASE()")
    # regressions found by fuzz_server (signed overflow / SIGFPE on BIGINT's minimum)
    yield "regress_int64_min", hs + query("SELECT -(-9223372036854775808), - -9223372036854775808") + \
        query("SELECT -9223372036854775808 DIV -1, -9223372036854775808 % -1, 1e300 DIV 1, -1e300 DIV 1")
    yield "handshake_bad_lenenc", pkt(1, struct.pack("<IIB", CAPS, 1 << 24, 255) + b"\0" * 23 + b"cdch\0" + b"\xfb")
    yield "ssl_request", pkt(1, struct.pack("<IIB", CAPS | (1 << 11), 1 << 24, 255) + b"\0" * 23)
    yield "out_of_order", hs + pkt(3, b"\x03SELECT 1")
    yield "too_large", hs + b"\xff\xff\xff\x00" + b"\x03SELECT '" + b"x" * 64


def main():
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    for name, data in sessions():
        if len(data) > 65536:
            raise SystemExit("seed %s is larger than fuzz.sh's -max_len" % name)
        with open(os.path.join(out, "synthetic-" + name), "wb") as f:
            f.write(data)


if __name__ == "__main__":
    main()
