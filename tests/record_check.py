#!/usr/bin/env python3
"""record_check.py — checks of a `cdcharness record` capture against the stream `cdcharness gen`
wrote (which is what `cdcharness serve` serves), for tests/record.sh. Exit 0 and one line "ok ..."
on success, exit 1 and "FAIL ..." lines otherwise.

  identical GEN CAP                  every file of GEN is in CAP byte for byte (the last file's FDE
                                     aside from LOG_EVENT_BINLOG_IN_USE_F, which a dump clears), the
                                     index names them in order, capture.json is complete and its
                                     end, bytes, events and files are right
  range GEN CAP FILE POS SFILE SPOS  a capture from FILE:POS to SFILE:SPOS: CAP's first file is the
                                     magic, FILE's FDE as a dump sends it from POS > 4 (log_pos and
                                     created zeroed, CRC recomputed), then FILE[POS:]; the files
                                     between are whole; the last one is SFILE[:SPOS]
  gtid GEN CAP UUID HI               a capture from the GTID set UUID:1-HI: every event of CAP is the
                                     event of GEN at its end position (the FDE of the first file
                                     with its created timestamp zeroed), and CAP holds exactly the
                                     transactions of GEN with GNO > HI
  txn-end GEN CAP                    CAP ends at a transaction boundary: in GEN the event after its
                                     last event is a GTID event or a file's end (ROTATE included)
  boundaries FILE                    print "start end type" of each event of FILE
"""
import json
import os
import struct
import sys
import zlib

GTID_TYPES = (33, 34, 42)


def events(data):
    """(start, end, type, log_pos, bytes) of each event after the magic."""
    assert data[:4] == b"\xfebin", "no binlog magic"
    off, out = 4, []
    while off < len(data):
        size = struct.unpack_from("<I", data, off + 9)[0]
        log_pos = struct.unpack_from("<I", data, off + 13)[0]
        out.append((off, off + size, data[off + 4], log_pos, data[off : off + size]))
        off += size
    return out


def index_files(d):
    idx = [f for f in os.listdir(d) if f.endswith(".index")]
    assert len(idx) == 1, f"{d}: {len(idx)} index files"
    return [l.strip()[2:] for l in open(os.path.join(d, idx[0])) if l.strip()]


def read(d, name):
    return open(os.path.join(d, name), "rb").read()


def fail(msgs):
    for m in msgs:
        print("FAIL", m)
    sys.exit(1)


def capture_json(cap):
    return json.load(open(os.path.join(cap, "capture.json")))


def fde_as_dumped(ev, zero_log_pos):
    """An FDE as a dump sends it past the header: created (and log_pos) zeroed, in-use flag clear, CRC redone."""
    b = bytearray(ev)
    b[17] &= 0xFE
    if zero_log_pos:
        b[13:17] = b"\0\0\0\0"
    b[19 + 2 + 50 : 19 + 2 + 50 + 4] = b"\0\0\0\0"
    b[-4:] = struct.pack("<I", zlib.crc32(bytes(b[:-4])) & 0xFFFFFFFF)
    return bytes(b)


def cmd_identical(gen, cap):
    errs = []
    names = index_files(gen)
    if index_files(cap) != names:
        errs.append(f"index: {index_files(cap)} != {names}")
    nev = nbytes = 0
    for i, n in enumerate(names):
        a = bytearray(read(gen, n))
        if i == len(names) - 1:
            a[4 + 17] &= 0xFE
        try:
            b = read(cap, n)
        except OSError as e:
            errs.append(str(e))
            continue
        if bytes(a) != b:
            errs.append(f"{n} differs ({len(b)} bytes captured, {len(a)} served)")
        nev += len(events(b))
        nbytes += len(b) - 4
    c = capture_json(cap)
    want = {"complete": True, "end": {"file": names[-1], "pos": len(read(gen, names[-1]))}, "bytes": nbytes,
            "events": nev, "files": [{"name": n, "size": len(read(gen, n))} for n in names]}
    for k, v in want.items():
        if c.get(k) != v:
            errs.append(f"capture.json {k}: {c.get(k)!r} != {v!r}")
    if errs:
        fail(errs)
    print(f"ok identical: {len(names)} file(s), {nev} events, {nbytes} bytes")


def cmd_range(gen, cap, f0, p0, f1, p1):
    p0, p1 = int(p0), int(p1)
    names = index_files(gen)
    want_names = names[names.index(f0) : names.index(f1) + 1]
    errs = []
    if index_files(cap) != want_names:
        errs.append(f"index {index_files(cap)} != {want_names}")
    for n in want_names:
        g = read(gen, n)
        if n == names[-1]:
            g = g[:21] + bytes([g[21] & 0xFE]) + g[22:]
        lo = p0 if n == f0 else 4
        hi = p1 if n == f1 else len(g)
        want = b"\xfebin"
        if lo > 4:
            want += fde_as_dumped(events(g)[0][4], True)
        want += g[lo:hi]
        if read(cap, n) != want:
            errs.append(f"{n}: captured {len(read(cap, n))} bytes, want magic + FDE + [{lo}:{hi}] = {len(want)}")
    c = capture_json(cap)
    if c["end"] != {"file": f1, "pos": p1} or not c["complete"]:
        errs.append(f"capture.json end {c['end']} complete {c['complete']}")
    if errs:
        fail(errs)
    print(f"ok range {f0}:{p0} .. {f1}:{p1}: {len(want_names)} file(s)")


def gtids(evs):
    out = []
    for ev in evs:
        if ev[2] == 33:
            out.append(struct.unpack_from("<q", ev[4], 19 + 1 + 16)[0])
    return out


def cmd_gtid(gen, cap, uuid, hi):
    hi = int(hi)
    errs = []
    names = index_files(gen)
    all_gnos = [g for n in names for g in gtids(events(read(gen, n)))]
    got = []
    for i, n in enumerate(index_files(cap)):
        g = read(gen, n)
        gev = {e[1]: e[4] for e in events(g)}
        for j, (s, e, t, log_pos, b) in enumerate(events(read(cap, n))):
            orig = gev.get(log_pos)
            if t == 15:
                orig = events(g)[0][4]
                ok = b in (fde_as_dumped(orig, False), bytes([*orig[:17], orig[17] & 0xFE, *orig[18:]]))
            else:
                ok = orig == b
            if not ok:
                errs.append(f"{n}: captured event {j} (type {t}, end {log_pos}) is not the served one")
        got += gtids(events(read(cap, n)))
    want = [g for g in all_gnos if g > hi]
    if got != want:
        errs.append(f"GNOs captured {got[:5]}..{got[-3:]} ({len(got)}), want {want[:5]}..{want[-3:]} ({len(want)})")
    if errs:
        fail(errs[:10])
    print(f"ok gtid {uuid}:1-{hi}: {len(got)} transactions, each event the served one")


def cmd_txn_end(gen, cap):
    c = capture_json(cap)
    f, pos = c["end"]["file"], c["end"]["pos"]
    evs = events(read(gen, f))
    after = [e for e in evs if e[0] == pos]
    if after and after[0][2] not in GTID_TYPES + (4,):
        fail([f"the capture ends at {f}:{pos}, inside a transaction (next event type {after[0][2]})"])
    print(f"ok txn-end at {f}:{pos}")


def main():
    cmd, args = sys.argv[1], sys.argv[2:]
    if cmd == "boundaries":
        for s, e, t, _, _ in events(open(args[0], "rb").read()):
            print(s, e, t)
        return
    {"identical": cmd_identical, "range": cmd_range, "gtid": cmd_gtid, "txn-end": cmd_txn_end}[cmd](*args)


if __name__ == "__main__":
    main()
