#!/usr/bin/env python3
"""soak_replicas.py - the replicas of the fake-primary soak (scripts/soak-server.sh).

  soak_replicas.py --port N --stream DIR --pid SERVER_PID --replicas R --duration S
                   --bin CDCHARNESS --work DIR [--java-cp CLASSPATH]

R replica slots run at once for S seconds, each one of these kinds, again and again:
  pymysql   PyMySQL logs in, declares CRC32, COM_BINLOG_DUMP of the whole stream (non-blocking);
            what arrives must be the stream byte for byte (tests/clients/expect_dump.py: fake
            ROTATEs, FDEs, events, then EOF) [well-behaved]
  slow      the same with a 4 KiB receive buffer, reading 4 KiB every 50 ms (about 80 KiB/s: the
            server's writes block) [well-behaved]
  record    `cdcharness record --until-end` (TLS, caching_sha2): the capture's files must be the
            generated files (tests/record_check.py identical) [well-behaved]
  java      mysql-binlog-connector-java (one JVM, one thread per slot: tests/clients/soakjava):
            the SHA-256 of the events it read must be the stream's [well-behaved]
  cut       connects and goes away at a random point: before the greeting, mid-handshake, after
            login, or mid-dump (FIN or RST); what it read before must be a prefix of the stream
  bad       garbage handshakes and malformed commands (random bytes, a length header and
            silence, a short COM_BINLOG_DUMP, a GTID set that lies about its size, an unknown
            command, a wrong password, a query of 1-4 MiB of garbage, bytes sent during a dump):
            the server must answer ERR or close, not hang, and keep serving everyone else
While they run, the server's RSS, descriptors and threads are sampled from /proc every second.
Prints a JSON summary on stdout (figures, per-kind pass/fail, samples) and the first failures
of each kind on stderr; the shell script judges the figures. Exit 0 when every replica passed.
"""
import argparse
import hashlib
import json
import os
import random
import shutil
import socket
import struct
import subprocess
import sys
import threading
import time

import pymysql

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, ".."))
import expect_dump as X  # noqa: E402

COM_QUIT, COM_BINLOG_DUMP, COM_REGISTER_SLAVE, COM_BINLOG_DUMP_GTID = 0x01, 0x12, 0x15, 0x1E
KINDS = ("pymysql", "slow", "record", "java", "cut", "bad")
WELL_BEHAVED = ("pymysql", "slow", "record", "java")


class Stats:
    def __init__(self):
        self.mu = threading.Lock()
        self.kind = {k: {"slots": 0, "runs": 0, "pass": 0, "fail": 0, "bytes": 0, "failures": [], "variants": {}}
                     for k in KINDS}
        self.connections = 0

    def conn(self, n=1):
        with self.mu:
            self.connections += n

    def result(self, kind, ok, why="", nbytes=0, variant=None):
        with self.mu:
            k = self.kind[kind]
            if variant:
                k["variants"][variant] = k["variants"].get(variant, 0) + 1
            k["runs"] += 1
            k["pass" if ok else "fail"] += 1
            k["bytes"] += nbytes
            if not ok and len(k["failures"]) < 20:
                k["failures"].append(why)


def plan(replicas):
    """How many slots of each kind: an eighth each for the Java, record, slow, cut and bad kinds
    (at least one each), the rest PyMySQL."""
    e = max(1, replicas // 8)
    n = {"java": e, "record": e, "slow": e, "cut": e, "bad": e}
    n["pymysql"] = replicas - sum(n.values())
    if n["pymysql"] < 1:
        raise SystemExit("soak_replicas.py: --replicas must be at least 6 (one of each kind)")
    return n


# --------------------------------------------------------------------------- the wire

def connect(port, declare="CRC32", password="cdch", rcvbuf=None):
    c = pymysql.connect(host="127.0.0.1", port=port, user="cdch", password=password, connect_timeout=30,
                        read_timeout=60, write_timeout=60, defer_connect=True)
    s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    if rcvbuf:  # before connect, so the window the server sees stays small
        s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, rcvbuf)
    s.settimeout(30)
    s.connect(("127.0.0.1", port))
    c.connect(sock=s)
    if declare:
        with c.cursor() as cur:
            cur.execute("SET @master_binlog_checksum = '%s', @source_binlog_checksum = '%s'" % (declare, declare))
    return c


def send(c, cmd, payload):
    c._next_seq_id = 0
    c._execute_command(cmd, payload)


def dump(c, first, sid):
    send(c, COM_BINLOG_DUMP, struct.pack("<IHI", 4, 1, sid) + first.encode())  # BINLOG_DUMP_NON_BLOCK


def expected_wire(stream, first):
    """The payloads of the packets a whole non-blocking dump sends, joined: 00 + event ..., then EOF."""
    evs = [e for k, e in X.expected(stream, first, 4, None, "CRC32") if k == "event"]
    return evs, b"".join(b"\x00" + e for e in evs) + b"\xfe\x00\x00\x02\x00"


def read_payloads(sock, limit=None, chunk=1 << 16, pause=0.0, deadline=None):
    """Read packets until the peer closes (or `limit` payload bytes have come). Returns (payload
    bytes joined, 'closed'|'limit'|'timeout'|'reset')."""
    buf = bytearray()
    out = bytearray()
    state = "closed"
    while True:
        try:
            b = sock.recv(chunk)
        except socket.timeout:
            state = "timeout"
            break
        except ConnectionResetError:
            state = "reset"
            break
        if not b:
            break
        buf += b
        # move whole packets (and whole chunks of large ones) into out
        while len(buf) >= 4:
            n = buf[0] | buf[1] << 8 | buf[2] << 16
            if len(buf) < 4 + n:
                break
            out += buf[4:4 + n]
            del buf[:4 + n]
        if limit is not None and len(out) >= limit:
            return bytes(out), "limit"
        if pause:
            time.sleep(pause)
        if deadline and time.time() > deadline:
            state = "timeout"
            break
    return bytes(out), state


def first_diff(a, b):
    n = min(len(a), len(b))
    for i in range(0, n, 4096):
        if a[i:i + 4096] != b[i:i + 4096]:
            for j in range(i, min(i + 4096, n)):
                if a[j] != b[j]:
                    return j
    return n


# --------------------------------------------------------------------------- the kinds

class Soak:
    def __init__(self, a):
        self.a = a
        self.port = a.port
        self.stream = a.stream
        self.first = X.stream_files(a.stream)[1][0]
        self.evs, self.wire = expected_wire(a.stream, self.first)
        self.deadline = time.time() + a.duration
        self.stats = Stats()
        self.sid = 1000
        self.sid_mu = threading.Lock()

    def server_id(self):
        with self.sid_mu:
            self.sid += 1
            return self.sid

    def full_dump(self, kind, pause):
        self.stats.conn()
        c = connect(self.port, rcvbuf=4096 if pause else None)
        try:
            dump(c, self.first, self.server_id())
            c._sock.settimeout(60)
            got, state = read_payloads(c._sock, chunk=4096 if pause else 1 << 16, pause=pause)
        finally:
            c._sock.close()
        if got == self.wire and state == "closed":
            self.stats.result(kind, True, nbytes=len(got))
        else:
            i = first_diff(got, self.wire)
            self.stats.result(kind, False, "%s: %d bytes then %s, want %d bytes; first difference at byte %d"
                              % (kind, len(got), state, len(self.wire), i), len(got))

    def run_pymysql(self, _slot):
        self.full_dump("pymysql", 0.0)

    def run_slow(self, _slot):
        self.full_dump("slow", 0.05)  # 4 KiB / 50 ms, a 4 KiB receive buffer: about 80 KiB/s

    def run_record(self, slot):
        out = os.path.join(self.a.work, "record-%d" % slot)
        shutil.rmtree(out, ignore_errors=True)
        self.stats.conn()  # one session: the queries, then the dump (harness/capture/record.c)
        p = subprocess.run([self.a.bin, "record", "--user", "cdch", "--port", str(self.port), "--start",
                            self.first + ":4", "--until-end", "--server-id", str(self.server_id()), "--retries", "0",
                            "--quiet", "--out", out], env=dict(os.environ, CDCH_PASSWORD="cdch"),
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=300)
        if p.returncode != 0:
            self.stats.result("record", False, "record: exit %d: %s" % (p.returncode, p.stdout.decode()[-300:]))
            return
        chk = subprocess.run([sys.executable, os.path.join(HERE, "..", "record_check.py"), "identical", self.stream, out],
                             stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
        shutil.rmtree(out, ignore_errors=True)
        ok = chk.returncode == 0
        self.stats.result("record", ok, "record: " + chk.stdout.decode()[-300:], len(self.wire) if ok else 0)

    def run_cut(self, slot):
        r = random.Random()
        how = r.choice(["connect", "greeting", "mid-handshake", "login", "dump", "dump", "dump", "dump"])
        rst = r.random() < 0.5
        self.stats.conn()
        if how in ("connect", "greeting", "mid-handshake"):
            s = socket.create_connection(("127.0.0.1", self.port), timeout=30)
            if how != "connect":
                s.recv(4096)
            if how == "mid-handshake":
                s.sendall(b"\x40\x00\x00\x01" + bytes(20))  # a handshake response announced, 20 of 64 bytes sent
            cut(s, rst)
            self.stats.result("cut", True, variant=how)
            return
        c = connect(self.port)
        if how == "login":
            cut(c._sock, rst)
            self.stats.result("cut", True, variant=how)
            return
        dump(c, self.first, self.server_id())
        c._sock.settimeout(60)
        limit = r.randrange(1, len(self.wire))
        got, state = read_payloads(c._sock, limit=limit, chunk=r.choice([512, 4096, 1 << 16]))
        cut(c._sock, rst)
        ok = self.wire.startswith(got) and state in ("limit", "closed")
        self.stats.result("cut", ok, "cut: %d bytes then %s are not a prefix of the stream (first difference at %d)"
                          % (len(got), state, first_diff(got, self.wire)), len(got), variant=how)

    def run_bad(self, slot):
        r = random.Random()
        what = r.choice(["garbage-first", "garbage-response", "huge-length", "short-dump", "gtid-lie",
                         "unknown-command", "register-garbage", "wrong-password", "big-query", "noise-in-dump"])
        self.stats.conn()
        try:
            ok, why = getattr(self, "bad_" + what.replace("-", "_"))(r)
        except Exception as e:  # noqa: BLE001 - every outcome is judged
            ok, why = False, repr(e)
        self.stats.result("bad", ok, "bad %s: %s" % (what, why), variant=what)

    def raw(self):
        s = socket.create_connection(("127.0.0.1", self.port), timeout=30)
        return s

    @staticmethod
    def answered(s, timeout=30):
        """The server answers ERR and/or closes within timeout (a hang is a failure)."""
        s.settimeout(timeout)
        got = b""
        try:
            while True:
                b = s.recv(65536)
                if not b:
                    s.close()
                    return True, "closed"
                got += b
                if len(got) > 1 << 20:
                    s.close()
                    return False, "more than 1 MiB of answer"
        except socket.timeout:
            s.close()
            return False, "no ERR and no close in %d s (%d bytes: %s)" % (timeout, len(got), got[:40].hex())
        except ConnectionResetError:
            s.close()
            return True, "reset"

    def bad_garbage_first(self, r):
        s = self.raw()
        s.sendall(bytes(r.randrange(256) for _ in range(r.randrange(1, 200))))
        return self.answered(s)

    def bad_garbage_response(self, r):
        s = self.raw()
        s.recv(4096)
        body = bytes(r.randrange(256) for _ in range(r.randrange(1, 300)))
        s.sendall(struct.pack("<I", len(body))[:3] + b"\x01" + body)
        return self.answered(s)

    def bad_huge_length(self, r):
        s = self.raw()
        s.recv(4096)
        s.sendall(b"\xff\xff\xff\x01" + bytes(r.randrange(256) for _ in range(100)))  # 16 MiB announced, 100 sent
        return self.answered(s)  # the server's connect_timeout (10 s) ends it

    def authed(self):
        c = connect(self.port)
        c._sock.settimeout(30)
        return c

    def bad_short_dump(self, r):
        c = self.authed()
        send(c, COM_BINLOG_DUMP, bytes(r.randrange(256) for _ in range(r.randrange(0, 10))))
        return self.answered(c._sock)

    def bad_gtid_lie(self, r):
        c = self.authed()
        send(c, COM_BINLOG_DUMP_GTID, struct.pack("<HII", 0, self.server_id(), 0) +
             struct.pack("<QI", 4, r.randrange(9, 1 << 31)) + bytes(8))
        return self.answered(c._sock)

    def bad_unknown_command(self, r):
        c = self.authed()
        cmd = r.choice([0x00, 0x05, 0x06, 0x07, 0x08, 0x0D, 0x0F, 0x10, 0x13, 0x14, 0x1F, 0x20, 0x2A, 0x7F, 0xFF])
        send(c, cmd, bytes(r.randrange(256) for _ in range(r.randrange(0, 64))))
        c._sock.settimeout(30)
        try:
            p = c._sock.recv(65536)
        except socket.timeout:
            c._sock.close()
            return False, "command 0x%02x: no answer in 30 s" % cmd
        # an answer (ERR, or OK/EOF for the commands MySQL accepts) or a close; then the session
        # must still work (unless the server closed it)
        if p and p[4:5] != b"\xff":
            c._sock.close()
            return True, ""
        c._sock.close()
        return True, ""

    def bad_register_garbage(self, r):
        c = self.authed()
        send(c, COM_REGISTER_SLAVE, bytes(r.randrange(256) for _ in range(r.randrange(0, 40))))
        c._sock.settimeout(30)
        try:
            p = c._sock.recv(65536)
        except socket.timeout:
            c._sock.close()
            return False, "COM_REGISTER_SLAVE garbage: no answer in 30 s"
        c._sock.close()
        return (len(p) >= 5 and p[4] in (0x00, 0xFF)) or not p, "answer %s" % p[:16].hex()

    def bad_big_query(self, r):
        """1-4 MiB of garbage as one COM_QUERY (split in 16 MiB chunks it is not): ERR, the session goes on."""
        c = self.authed()
        try:
            with c.cursor() as cur:
                cur.execute("SELECT /* %s */ 1" % os.urandom(r.randrange(1 << 19, 1 << 21)).hex() + " FROM nowhere garbage ((")
        except pymysql.err.MySQLError:
            pass
        with c.cursor() as cur:  # still a working session
            cur.execute("SELECT 1")
            ok = cur.fetchone() == (1,)
        c.close()
        return ok, "SELECT 1 after the big query gave another answer"

    def bad_noise_in_dump(self, r):
        """Bytes sent by the replica while its dump runs: the dump still ends (EOF and close) in time."""
        c = self.authed()
        dump(c, self.first, self.server_id())
        c._sock.sendall(os.urandom(r.randrange(1, 4096)))
        c._sock.settimeout(60)
        got, state = read_payloads(c._sock)
        c._sock.close()
        return state in ("closed", "reset") and self.wire.startswith(got), "%d bytes then %s" % (len(got), state)

    def bad_wrong_password(self, r):
        try:
            connect(self.port, declare=None, password="wrong-%d" % r.randrange(1 << 30)).close()
        except pymysql.err.OperationalError as e:
            return e.args[0] == 1045, "error %r" % (e.args,)
        return False, "a wrong password was accepted"

    # ----------------------------------------------------------------------- running

    def slot(self, kind, i):
        fn = getattr(self, "run_" + kind)
        while time.time() < self.deadline:
            try:
                fn(i)
            except Exception as e:  # noqa: BLE001 - a client-side exception is a failed run
                self.stats.result(kind, False, "%s: %r" % (kind, e))
                time.sleep(0.5)

    def java(self, n):
        if not self.a.java_cp:
            return None
        sha = hashlib.sha256(b"".join(self.evs)).hexdigest()
        left = max(1, int(self.deadline - time.time()))
        p = subprocess.Popen(["java", "-Xmx256m", "-cp", self.a.java_cp, "SoakReplica", str(self.port), self.first,
                              str(n), str(left), sha, str(len(self.evs)), "500000"],
                             stdout=subprocess.PIPE, stderr=open(os.path.join(self.a.work, "java.err"), "wb"))

        def reader():
            for line in p.stdout:
                line = line.decode(errors="replace").rstrip("\n")
                if line.startswith("PASS ") or line.startswith("FAIL "):
                    self.stats.conn()
                    self.stats.result("java", line.startswith("PASS"), line[5:],
                                      len(self.wire) if line.startswith("PASS") else 0)
        t = threading.Thread(target=reader, daemon=True)
        t.start()
        return p, t


def cut(s, rst):
    if rst:
        s.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
    s.close()


def proc_sample(pid):
    with open("/proc/%d/status" % pid) as f:
        st = dict(l.split(":", 1) for l in f if ":" in l)
    rss = int(st["VmRSS"].split()[0])
    threads = int(st["Threads"])
    fds = len(os.listdir("/proc/%d/fd" % pid))
    return {"t": round(time.time(), 1), "rss_kib": rss, "fds": fds, "threads": threads}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--port", type=int, required=True)
    ap.add_argument("--stream", required=True)
    ap.add_argument("--pid", type=int, required=True)
    ap.add_argument("--replicas", type=int, default=64)
    ap.add_argument("--duration", type=int, default=600)
    ap.add_argument("--bin", required=True)
    ap.add_argument("--work", required=True)
    ap.add_argument("--java-cp")
    a = ap.parse_args()
    n = plan(a.replicas)
    if not a.java_cp:
        n["pymysql"] += n.pop("java")
    soak = Soak(a)
    samples = [proc_sample(a.pid)]
    stop = threading.Event()

    def sampler():
        while not stop.wait(1.0):
            try:
                samples.append(proc_sample(a.pid))
            except OSError:
                samples.append({"t": round(time.time(), 1), "gone": True})
                return
    st = threading.Thread(target=sampler, daemon=True)
    st.start()
    t0 = time.time()
    jv = soak.java(n["java"]) if n.get("java") else None
    threads = []
    for kind, k in n.items():
        soak.stats.kind[kind]["slots"] = k
        if kind == "java":
            continue
        for i in range(k):
            t = threading.Thread(target=soak.slot, args=(kind, i), daemon=True)
            t.start()
            threads.append(t)
    for t in threads:
        t.join()
    if jv:
        try:
            jv[0].wait(timeout=max(60, a.duration // 2))
        except subprocess.TimeoutExpired:
            jv[0].kill()
            soak.stats.result("java", False, "java: the JVM did not end within its deadline + 60 s")
        jv[1].join(timeout=10)
        if jv[0].returncode not in (0, None, -9):
            soak.stats.result("java", False, "java: JVM exit status %d (java.err)" % jv[0].returncode)
    wall = time.time() - t0
    stop.set()
    st.join()
    # after every client has gone: the server's descriptors and threads settle (up to 30 s: a loaded machine)
    after = None
    for _ in range(300):
        after = proc_sample(a.pid)
        if after["fds"] <= samples[0]["fds"] and after["threads"] <= samples[0]["threads"]:
            break
        time.sleep(0.1)
    try:  # a server built with AddressSanitizer (scripts/test.sh's build-asan): ASan's allocator
        asan = "libasan" in open("/proc/%d/maps" % a.pid).read()
    except OSError:
        asan = False
    out = {"replicas": a.replicas, "plan": n, "asan": asan, "wall_s": round(wall, 1), "connections": soak.stats.connections,
           "stream_bytes": len(soak.wire), "kinds": soak.stats.kind, "before": samples[0], "after": after,
           "samples": samples}
    for kind, k in soak.stats.kind.items():
        for f in k["failures"][:5]:
            print("FAIL %s" % f, file=sys.stderr)
    json.dump(out, sys.stdout)
    print()
    ok = all(k["fail"] == 0 and (k["slots"] == 0 or k["pass"] > 0) for k in soak.stats.kind.values())
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
