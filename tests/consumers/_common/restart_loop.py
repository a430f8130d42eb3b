#!/usr/bin/env python3
"""Test adapter (tests/consumers/broken-restart-loop, source: server): a consumer that restarts for
ever after its error, as a Flink CDC job restarts its failed source every second or two and reads
the stream again from the same offset (waits.h rule 6, "looping").

It logs in to the fake primary ($CDCH_HOST/$CDCH_PORT, mysql_native_password: the manifest's
server_auth), asks for the stream from $CDCH_START_FILE:$CDCH_START_POS (COM_BINLOG_DUMP) and reads
it. At the first Transaction_payload_event (type 40) it prints an error line naming it, drops the
connection and starts over from the same position 0.2 s later, for ever; it never prints a change
event. On a stream without type 40 it reads to the end and waits for more (heartbeats).
`restart_loop.py silent` restarts the same way without printing the error line, and a second thread
works 30 ms of every 60 ms (a JVM's own threads), so it is never quiet: a hang once it restarted
three times without a row (waits.h rule 7), before its CPU budget is spent.
`restart_loop.py retry` fails before it streams: it logs in, prints an error line once (as Debezium's
unlimited retries print one error and log the rest), closes and logs in again 0.2 s later, for ever,
never asking for the stream, while a second thread works as in `silent` (never quiet): idle after
the stream once it connected three more times since its error (waits.h rule 6, "reconnecting for
ever"), before its CPU budget says hang.

Only the standard library: the handshake and the dump are written here (MySQL's
HandshakeV10/HandshakeResponse41, COM_QUERY, COM_BINLOG_DUMP; binlog-format.md s.11).
"""
import hashlib
import json
import os
import socket
import struct
import sys
import threading
import time

TRANSACTION_PAYLOAD = 40
CLIENT_LONG_PASSWORD, CLIENT_PROTOCOL_41, CLIENT_SECURE_CONNECTION, CLIENT_PLUGIN_AUTH = 1, 0x200, 0x8000, 0x80000


def emit(obj):
    sys.stdout.write(json.dumps(obj) + "\n")
    sys.stdout.flush()


class Conn:
    def __init__(self, host, port):
        self.s = socket.create_connection((host, port), timeout=30)
        self.s.settimeout(None)
        self.f = self.s.makefile("rb")
        self.seq = 0

    def read(self):
        head = self.f.read(4)
        if len(head) < 4:
            raise EOFError("connection closed by the primary")
        n = head[0] | head[1] << 8 | head[2] << 16
        self.seq = (head[3] + 1) & 0xFF
        body = self.f.read(n)
        if len(body) < n:
            raise EOFError("connection closed inside a packet")
        return body

    def write(self, body, seq=None):
        if seq is not None:
            self.seq = seq
        self.s.sendall(struct.pack("<I", len(body))[:3] + bytes([self.seq]) + body)
        self.seq = (self.seq + 1) & 0xFF

    def close(self):
        try:
            self.s.close()
        except OSError:
            pass


def check_ok(pkt, what):
    if pkt[:1] == b"\xff":
        code = struct.unpack_from("<H", pkt, 1)[0]
        raise RuntimeError("%s: error %d: %s" % (what, code, pkt[9:].decode("utf-8", "replace")))


def native_scramble(password, salt):
    if not password:
        return b""
    p1 = hashlib.sha1(password.encode()).digest()
    p2 = hashlib.sha1(p1).digest()
    p3 = hashlib.sha1(salt + p2).digest()
    return bytes(a ^ b for a, b in zip(p1, p3))


def login(host, port, user, password):
    c = Conn(host, port)
    hs = c.read()
    check_ok(hs, "handshake")
    i = hs.index(b"\0", 1) + 1  # server version
    salt = hs[i + 4:i + 12]
    i += 4 + 8 + 1 + 2 + 1 + 2 + 2
    salt_len = hs[i]
    i += 1 + 10
    salt += hs[i:i + max(13, salt_len - 8) - 1]
    caps = CLIENT_LONG_PASSWORD | CLIENT_PROTOCOL_41 | CLIENT_SECURE_CONNECTION | CLIENT_PLUGIN_AUTH
    auth = native_scramble(password, salt)
    c.write(struct.pack("<IIB23x", caps, 1 << 24, 45) + user.encode() + b"\0" + bytes([len(auth)]) + auth +
            b"mysql_native_password\0")
    r = c.read()
    if r[:1] == b"\xfe":  # auth switch request: plugin name, then its scramble
        j = r.index(b"\0", 1)
        if r[1:j] != b"mysql_native_password":
            raise RuntimeError("the primary asks for %s; run with server_auth: mysql_native_password" %
                               r[1:j].decode())
        c.write(native_scramble(password, r[j + 1:j + 21]))
        r = c.read()
    check_ok(r, "login")
    return c


def query(c, sql):
    c.write(b"\x03" + sql.encode(), seq=0)
    check_ok(c.read(), sql)


def read_until_payload(c, start_file, start_pos, server_id):
    """Reads the stream; returns the log position of the first type 40 event."""
    query(c, "SET @source_binlog_checksum = 'CRC32', @master_binlog_checksum = 'CRC32'")
    c.write(b"\x12" + struct.pack("<IHI", start_pos, 0, server_id) + start_file.encode(), seq=0)
    while True:
        pkt = c.read()
        check_ok(pkt, "dump")
        if pkt[:1] == b"\xfe" and len(pkt) < 9:
            raise EOFError("end of the stream")
        if len(pkt) >= 20 and pkt[1 + 4] == TRANSACTION_PAYLOAD:
            return struct.unpack_from("<I", pkt, 1 + 13)[0]


def ticking():
    while True:
        end = time.monotonic() + 0.03
        while time.monotonic() < end:
            pass
        time.sleep(0.03)


def main():
    host, port = os.environ["CDCH_HOST"], int(os.environ["CDCH_PORT"])
    user, password = os.environ.get("CDCH_USER", "cdch"), os.environ.get("CDCH_PASSWORD", "")
    start_file = os.environ.get("CDCH_START_FILE", "")
    start_pos = int(os.environ.get("CDCH_START_POS", "4") or 4)
    server_id = int(os.environ.get("CDCH_SERVER_ID", "4242"))
    silent = sys.argv[1:] == ["silent"]
    retry = sys.argv[1:] == ["retry"]
    emit({"kind": "ready"})
    if silent or retry:
        threading.Thread(target=ticking, daemon=True).start()
    if retry:
        said = False
        while True:
            c = login(host, port, user, password)
            query(c, "SELECT @@version")
            c.close()
            if not said:
                emit({"kind": "error", "message": "ERROR cannot start: a planted start-up failure; retrying for ever"})
                said = True
            time.sleep(0.2)
    while True:
        c = login(host, port, user, password)
        try:
            end = read_until_payload(c, start_file, start_pos, server_id)
        finally:
            c.close()
        if not silent:
            emit({"kind": "error",
                  "message": "ERROR cannot parse event type 40 ending at %d; restarting the source from %s:%d" %
                             (end, start_file or "the first file", start_pos)})
        time.sleep(0.2)


if __name__ == "__main__":
    main()
