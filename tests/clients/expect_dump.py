#!/usr/bin/env python3
"""What a MySQL 8 source sends for a binlog dump of a generated stream, and
a comparison of that with what a client received.

Written from MySQL's sql/rpl_binlog_sender.cc (shared/reference/binlog-format.md
sections 10-11), independently of harness/server/dump.c:

  per file: fake ROTATE (timestamp 0, log_pos 0, flags ARTIFICIAL, body =
  position u64 + file name, CRC32 iff the checksum algorithm in force -- the
  replica's declared one before the first FDE, then the previous file's FDE
  -- is CRC32); the FDE (LOG_EVENT_BINLOG_IN_USE_F cleared; log_pos and
  created zeroed with the CRC recomputed when the dump starts past the
  header (position protocol) or, with the GTID protocol, when the first
  transaction of the chosen file is already in the replica's set); then the
  events as stored from the requested position (GTID protocol: from after
  the FDE, transactions in the replica's set skipped).

  python3 expect_dump.py STREAM_DIR RECEIVED.jsonl (--file F --pos N | --gtid SET)
                         [--declared CRC32|NONE]

RECEIVED.jsonl = what tests/clients/gosync wrote (raw hex per event).
Exit 0 when the non-heartbeat events match exactly and every heartbeat the
skipping must produce is there; prints the first difference otherwise.
"""
import argparse
import json
import os
import struct
import sys
import zlib

ROTATE, FDE, XID, HEARTBEAT, GTID, ANON, PREV, HEARTBEAT_V2, GTID_TAGGED = 4, 15, 16, 27, 33, 34, 35, 41, 42


def le32(b, o):
    return struct.unpack_from("<I", b, o)[0]


def read_events(path):
    with open(path, "rb") as f:
        data = f.read()
    assert data[:4] == b"\xfebin", path
    off = 4
    out = []
    while off < len(data):
        n = le32(data, off + 9)
        out.append((off, data[off:off + n]))
        off += n
    return out


def stream_files(d):
    with open(os.path.join(d, "stream.json")) as f:
        manifest = json.load(f)
    return manifest, [x["name"] for x in manifest["files"]]


def fde_alg(ev):
    return ev[-5]


def with_crc(ev):
    return ev[:-4] + struct.pack("<I", zlib.crc32(ev[:-4]) & 0xFFFFFFFF)


def fake_rotate(server_id, pos, name, crc):
    body = struct.pack("<Q", pos) + name.encode()
    size = 19 + len(body) + (4 if crc else 0)
    ev = struct.pack("<IBIIIH", 0, ROTATE, server_id, size, 0, 0x20) + body
    if crc:
        ev += struct.pack("<I", zlib.crc32(ev) & 0xFFFFFFFF)
    return ev


def fix_fde(ev, clear_pos, clear_created):
    b = bytearray(ev)
    b[17] &= 0xFE
    if clear_pos:
        b[13:17] = b"\0\0\0\0"
    if clear_created:
        b[19 + 2 + 50:19 + 2 + 50 + 4] = b"\0\0\0\0"
    b = bytes(b)
    if (clear_pos or clear_created) and fde_alg(ev) == 1:
        b = with_crc(b)
    return b


def parse_gtid_set(text):
    """{uuid: [(start, end_exclusive)]} (untagged sets only)."""
    out = {}
    for part in text.replace("\n", "").split(","):
        part = part.strip()
        if not part:
            continue
        fields = part.split(":")
        uuid = fields[0].lower()
        for iv in fields[1:]:
            a, _, b = iv.partition("-")
            out.setdefault(uuid, []).append((int(a), int(b or a) + 1))
    return out


def contains(gset, uuid, gno):
    return any(a <= gno < b for a, b in gset.get(uuid, []))


def subset(a, b):
    return all(any(x <= s and e <= y for x, y in b.get(u, [])) for u, ivs in a.items() for s, e in ivs)


def prev_gtids(ev, crc):
    body = ev[19:-4] if crc else ev[19:]
    n = struct.unpack_from("<Q", body, 0)[0]
    o = 8
    out = {}
    for _ in range(n):
        u = body[o:o + 16].hex()
        uuid = "-".join([u[:8], u[8:12], u[12:16], u[16:20], u[20:]])
        o += 16
        k = struct.unpack_from("<Q", body, o)[0]
        o += 8
        for _ in range(k):
            s, e = struct.unpack_from("<QQ", body, o)
            o += 16
            out.setdefault(uuid, []).append((s, e))
    return out


def gtid_of(ev):
    b = ev[19:]
    u = b[1:17].hex()
    uuid = "-".join([u[:8], u[8:12], u[12:16], u[16:20], u[20:]])
    return uuid, struct.unpack_from("<q", b, 17)[0]


def expected(d, start_file=None, start_pos=4, gtid=None, declared="CRC32"):
    """List of ("event", bytes) / ("heartbeat", pos) in the order a MySQL 8 source sends them."""
    manifest, files = stream_files(d)
    sid = manifest["server_id"]
    event_alg = 1 if declared.upper() == "CRC32" else 0
    out = []
    if gtid is not None:
        gset = parse_gtid_set(gtid)
        idx = None
        first_gtid = None
        for i in range(len(files) - 1, -1, -1):
            evs = read_events(os.path.join(d, files[i]))
            crc = fde_alg(evs[0][1]) == 1
            prev = next((e for _, e in evs if e[4] == PREV), None)
            if prev is not None and subset(prev_gtids(prev, crc), gset):
                idx = i
                g = next((e for _, e in evs if e[4] == GTID), None)
                first_gtid = gtid_of(g) if g else None
                break
        assert idx is not None, "no file to start from"
        clear_created = first_gtid is not None and contains(gset, *first_gtid)
    else:
        idx = files.index(start_file) if start_file else 0
    pos = start_pos
    for i in range(idx, len(files)):
        name = files[i]
        evs = read_events(os.path.join(d, name))
        out.append(("event", fake_rotate(sid, pos, name, event_alg == 1)))
        fde = evs[0][1]
        event_alg = fde_alg(fde)
        if gtid is not None:
            out.append(("event", fix_fde(fde, False, clear_created)))
        else:
            out.append(("event", fix_fde(fde, pos > 4, pos > 4)))
        start = pos if pos > 4 else evs[1][0] if len(evs) > 1 else evs[0][0] + len(fde)
        in_group = False
        group_end = 0
        for off, ev in evs[1:]:
            if off < start:
                continue
            end = off + len(ev)
            if gtid is not None:
                t = ev[4]
                if t == GTID:
                    in_group = contains(gset, *gtid_of(ev))
                elif t == ROTATE:
                    in_group = False
                if in_group:
                    group_end = end
                    continue
                if group_end:
                    out.append(("heartbeat", group_end))
                    group_end = 0
            out.append(("event", ev))
        if in_group:
            out.append(("heartbeat", group_end))
        pos = 4
    return out


def compare(exp, received):
    """received: list of dicts from gosync. Returns an error string or None."""
    got = [r for r in received if r["type"] not in (HEARTBEAT, HEARTBEAT_V2)]
    want = [e for k, e in exp if k == "event"]
    for i, (w, g) in enumerate(zip(want, got)):
        gb = bytes.fromhex(g["raw"])
        if gb != w:
            return "event %d (type %d, log_pos %d): got %s..., want %s..." % (
                i, w[4], le32(w, 13), gb[:40].hex(), w[:40].hex())
    if len(got) < len(want):
        return "received %d events, want %d (first missing: type %d end %d)" % (
            len(got), len(want), want[len(got)][4], le32(want[len(got)], 13))
    if len(got) > len(want):
        return "received %d events, want %d (first extra: type %d)" % (len(got), len(want), got[len(want)]["type"])
    hb = [r.get("hb_pos") for r in received if r["type"] in (HEARTBEAT, HEARTBEAT_V2)]
    for k, p in exp:
        if k == "heartbeat" and p not in hb:
            return "no heartbeat at position %d after skipped transactions (heartbeats: %s)" % (p, hb[:10])
    return None


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("stream_dir")
    ap.add_argument("received")
    ap.add_argument("--file")
    ap.add_argument("--pos", type=int, default=4)
    ap.add_argument("--gtid")
    ap.add_argument("--declared", default="NONE")  # go-mysql declares NONE
    a = ap.parse_args()
    with open(a.received) as f:
        rec = [json.loads(l) for l in f if l.strip()]
    exp = expected(a.stream_dir, a.file, a.pos, a.gtid, a.declared)
    err = compare(exp, rec)
    if err:
        print(err)
        sys.exit(1)
    nhb = sum(1 for r in rec if r["type"] in (HEARTBEAT, HEARTBEAT_V2))
    print("ok: %d events, %d heartbeats" % (len(rec) - nhb, nhb))


if __name__ == "__main__":
    main()
