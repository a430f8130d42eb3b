#!/usr/bin/env python3
"""Teach a copy of python-mysql-replication's source (1.0.x) to decode TRANSACTION_PAYLOAD_EVENT,
optionally with a planted fault: the local build of tests/consumers_py_node.sh.

    consumers_py_node_payload.py TREE [--fault]

TREE is an unpacked sdist (`pip download --no-deps --no-binary :all: mysql-replication==V`);
it is changed in place. No release on PyPI decodes type 40 (the manifest's no-type-40): the
unpatched tree drops compressed transactions silently, the patched one delivers their rows
(BinLogStreamReader.fetchone feeds the payload's events, decompressed with `zstandard`, back
through its own event loop, checksum-less as MySQL writes them inside a payload), and with
--fault the decoder takes the wrong code for ZSTD (1; MySQL's is 0) and so yields nothing for
every compressed payload: silent-skip again. Exit 0 when patched, 1 when an anchor is missing.
"""
import re
import sys

tree = sys.argv[1]
fault = "--fault" in sys.argv[2:]
ZSTD = 1 if fault else 0   # the planted fault: MySQL's ZSTD compression type is 0

DECODER = '''

def _cdch_lenenc(b, off):
    """A packed (length-encoded) integer of a payload header field."""
    first = b[off]
    if first < 251:
        return first, off + 1
    n = {252: 2, 253: 3, 254: 8}[first]
    return int.from_bytes(b[off + 1:off + 1 + n], "little"), off + 1 + n


class _CdchInnerPacket(pymysql.protocol.MysqlPacket):
    """An event from inside a payload (no checksum of its own)."""
    cdch_inner = True


def _cdch_payload_events(pkt, binlog_event, use_checksum):
    """The events inside a TRANSACTION_PAYLOAD_EVENT, as packets for BinLogPacketWrapper
    (cdcharness test patch, tests/consumers_py_node_payload.py)."""
    import zstandard
    body = pkt._data[20:20 + binlog_event.event_size - 19 - (4 if use_checksum else 0)]
    off, fields = 0, {}
    while off < len(body):
        kind, off = _cdch_lenenc(body, off)
        if kind == 0:  # end of the header
            break
        length, off = _cdch_lenenc(body, off)
        fields[kind] = _cdch_lenenc(body[off:off + length], 0)[0]
        off += length
    data = body[off:off + fields.get(1, len(body) - off)]
    ctype = fields.get(2, 255)
    if ctype == %(zstd)d:
        data = zstandard.ZstdDecompressor().decompressobj().decompress(data)
    elif ctype != 255:
        return []  # a compression this decoder does not know
    out, pos = [], 0
    while pos + 19 <= len(data):
        size = int.from_bytes(data[pos + 9:pos + 13], "little")
        out.append(_CdchInnerPacket(b"\\x00" + data[pos:pos + size], "utf8"))
        pos += size
    return out
''' % {"zstd": ZSTD}

NEXT = '''    def _cdch_next_packet(self):
        pending = self.__dict__.setdefault("_cdch_inner", [])
        if pending:
            return pending.pop(0)
        return self._stream_connection._read_packet()

    def fetchone(self):'''

HANDLE = '''            if binlog_event.event_type == 40:  # TRANSACTION_PAYLOAD_EVENT
                self.__dict__.setdefault("_cdch_inner", []).extend(
                    _cdch_payload_events(pkt, binlog_event, self.__use_checksum))
                continue

            if (
                self.skip_to_timestamp'''


def replace(text, old, new, what):
    if text.count(old) != 1:
        print("consumers_py_node_payload.py: anchor not found once: %s" % what, file=sys.stderr)
        sys.exit(1)
    return text.replace(old, new)


p = tree + "/pymysqlreplication/binlogstream.py"
s = open(p).read()
s = replace(s, "pkt = self._stream_connection._read_packet()", "pkt = self._cdch_next_packet()",
            "fetchone's _read_packet")
s = replace(s, "                self.__use_checksum,\n",
            "                self.__use_checksum and not getattr(pkt, \"cdch_inner\", False),\n",
            "BinLogPacketWrapper's use_checksum")
s = replace(s, "    def fetchone(self):", NEXT, "def fetchone")
s = replace(s, "            if (\n                self.skip_to_timestamp", HANDLE, "the skip_to_timestamp check")
s += DECODER
open(p, "w").write(s)

p = tree + "/setup.py"
s = open(p).read()
s = replace(s, '"pymysql>=1.1.0",', '"pymysql>=1.1.0",\n        "zstandard",', "install_requires")
open(p, "w").write(s)
print("patched %s (payload decoder%s)" % (tree, ", planted fault: ZSTD = 1" if fault else ""))
