#!/usr/bin/env python3
"""cdcharness adapter: MariaDB's mariadb-binlog (mysqlbinlog) as teams' scripts run it.

Variants (the part of CDCH_VERSION after '+', see manifest.yaml). mysqlbinlog has no MySQL GTID
start option: every variant starts at CDCH_START_FILE/CDCH_START_POS (default: the first file);
CDCH_GTID_SET is not used.

  decode-rows   mariadb-binlog --base64-output=decode-rows -vv FILE...      (source: files)
  force-read    the same with --force-read                                  (source: files)
  remote        mariadb-binlog --read-from-remote-server --host --port --user --password
                --stop-never --stop-never-slave-server-id=CDCH_SERVER_ID
                --base64-output=decode-rows -vv START_FILE                  (source: server)

The program's text output is parsed the way such scripts parse it: the `### INSERT INTO`,
`### UPDATE`, `### DELETE FROM` blocks with their `###   @N=value /* TYPE meta=.. nullable=..
is_null=.. */` lines; rows are printed when the transaction's `COMMIT/*!*/;` line arrives,
with the checkpoint mysqlbinlog shows: the current file and the end_log_pos of the event that
committed. mariadb-binlog prints MySQL GTID events only as "# Ignorable event type 33 (MySQL
Gtid)", so "gtid" is null.

Value mapping (what mysqlbinlog prints -> canonical, section 4 of design.md), by the type
comment of each value:
  TINYINT/SHORTINT/MEDIUMINT/INT/LONGINT  the signed number printed first. mysqlbinlog has no
        signedness (the comment says INT for INT UNSIGNED): a value above the signed maximum
        prints as "-1 (4294967295)"; the signed number is kept (cannot be mapped: unsigned
        columns above 2^(n-1)-1 come out negative)
  DECIMAL(p,s)   the printed digits, as an exact decimal string
  FLOAT          printed with %g (6 significant digits): parsed as a number (lossy: FLOAT values
        needing more digits differ at single precision)
  DOUBLE         printed with %.20g: parsed as a number (exact)
  DATE           printed 'YYYY:MM:DD' (colons): mapped to YYYY-MM-DD
  DATETIME(n), TIME(n)  as printed, fraction padded to n digits
  TIMESTAMP(n)   printed as Unix seconds[.fraction]: converted to UTC YYYY-MM-DD HH:MM:SS[.f]
        (0 = MySQL's zero timestamp 0000-00-00 00:00:00)
  YEAR           the number; 1900 (how it prints the zero YEAR, 1900 + stored 0) -> 0
  BIT(n)         b'0101..': the unsigned integer (a decimal string beyond 2^63-1)
  ENUM           the 1-based index (mysqlbinlog has no labels: cannot be mapped to the label)
  SET            b'..' bitmap: the unsigned integer bitmap, as for BIT (no labels: cannot be
        mapped to the label array)
  STRING/VARSTRING/BLOB/TEXT  '...' with bytes < 0x20 printed as \\xNN and every other byte raw
        (quotes and backslashes unescaped): \\xNN for NN < 0x20 is decoded, then valid UTF-8 ->
        string, else {"base64"}. mysqlbinlog prints no charset: binary columns holding valid
        UTF-8 come out as strings, latin1 text with bytes >= 0x80 as base64 (cannot be mapped);
        data containing a literal backslash-x-hex-hex sequence is ambiguous
  GEOMETRY       the blob bytes (4-byte SRID + WKB) -> {"srid","wkb"}
  JSON           mariadb-binlog 10.11 cannot print MySQL's JSON column type (245): it exits 1 at
        the first such rows event without a message on stderr (its "Don't know how to handle
        column type" text goes to a discarded buffer); reported as an error line
Column names are "@1", "@2", ... (mysqlbinlog prints no names).

Consumer failure: any "ERROR:" line on mariadb-binlog's stderr, or a non-zero exit, is the
consumer dying: the adapter prints {"kind":"error","message": <the ERROR text, verbatim>} and
exits 1. (Reading files, mariadb-binlog stops at a TRANSACTION_PAYLOAD_EVENT with an ERROR
line but exits 0 when it was given one file.) When mariadb-binlog reads the files to the end
without an error, the adapter exits 0 as it does (files source: a clean exit means every file
was read, which is how the harness tells a silent skip from a hang).

Output and the run are the Python foundation's (../python-common/cdch_adapter.py): one-shot, or
with CDCH_SESSION=1 one interpreter serving the run's cells, each cell's main() in a forked child
(its own mariadb-binlog process, stopped with it), so a cell does not pay an interpreter's start.
"""
import base64
import datetime
import os
import re
import signal
import subprocess
import sys
import threading

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "python-common"))
import cdch_adapter as cdch  # noqa: E402

out = cdch.emit


def error_exit(msg, status=1):
    cdch.error(msg)
    sys.stderr.write("adapter: " + msg + "\n")
    sys.exit(status)


# ------------------------------------------------------------------ value mapping

CTRL = re.compile(rb"\\x([01][0-9a-fA-F])")
TYPE_RE = re.compile(rb"^(.*?) /\* ([A-Z][A-Z/]*)(\([^)]*\))?(?:[^*]*?) meta=(\d+) nullable=(\d) is_null=(\d) \*/$")


def text_value(raw):
    b = CTRL.sub(lambda m: bytes([int(m.group(1), 16)]), raw)
    try:
        return b.decode("utf-8")
    except UnicodeDecodeError:
        return {"base64": base64.b64encode(b).decode()}


def quoted(v):
    if len(v) >= 2 and v[:1] == b"'" and v[-1:] == b"'":
        return v[1:-1]
    return None


def fsp_pad(s, n):
    if n <= 0:
        return s
    if "." in s:
        frac = s.rsplit(".", 1)[1]
        return s + "0" * (n - len(frac)) if len(frac) < n else s
    return s + "." + "0" * n


def int_text(v):
    # "-128 (128)": the signed value first, the unsigned reading in parentheses
    return int(v.split(b" ")[0])


def value(v, typ, arg):
    """Map one printed value; typ e.g. b'INT', arg e.g. b'(10,2)' or None."""
    t = typ.decode()
    a = (arg or b"").decode().strip("()")
    if v == b"NULL":
        return None
    if t in ("TINYINT", "SHORTINT", "MEDIUMINT", "INT", "LONGINT"):
        return int_text(v)
    if t == "YEAR":
        y = int(v)
        return 0 if y == 1900 else y   # the zero YEAR prints as 1900 (1900 + stored byte 0)
    if t == "DECIMAL":
        return v.decode()
    if t in ("FLOAT", "DOUBLE"):
        f = float(v.strip())
        return int(f) if f.is_integer() and abs(f) < 2**53 and b"e" not in v else f
    if t == "BIT" or t == "SET":
        m = re.fullmatch(rb"b'([01]*)'", v)
        if m:
            n = int(m.group(1) or b"0", 2)
            return str(n) if n > 2**63 - 1 else n
    if t == "ENUM":
        return int(v)
    if t == "DATE":
        q = quoted(v)
        if q is not None:
            return q.decode().replace(":", "-")
    if t in ("DATETIME", "TIME"):
        q = quoted(v)
        if q is not None:
            return fsp_pad(q.decode(), int(a or 0))
    if t == "TIMESTAMP":
        n = int(a or 0)
        s = v.decode()
        sec, _, frac = s.partition(".")
        if int(sec) == 0 and int(frac or 0) == 0:
            return fsp_pad("0000-00-00 00:00:00", n)
        d = datetime.datetime(1970, 1, 1) + datetime.timedelta(seconds=int(sec))
        return fsp_pad(d.strftime("%Y-%m-%d %H:%M:%S") + ("." + frac if frac else ""), n)
    if t in ("STRING", "VARSTRING", "BLOB/TEXT", "TINYBLOB/TINYTEXT", "MEDIUMBLOB/MEDIUMTEXT",
             "LONGBLOB/LONGTEXT"):
        q = quoted(v)
        if q is not None:
            return text_value(q)
    if t == "GEOMETRY":
        q = quoted(v)
        if q is not None:
            b = CTRL.sub(lambda m: bytes([int(m.group(1), 16)]), q)
            if len(b) >= 4:
                return {"srid": int.from_bytes(b[:4], "little"), "wkb": b[4:].hex()}
    # not understood: keep the text so the difference is visible
    return v.decode("utf-8", "replace")


# ------------------------------------------------------------------ output parser

HDR_RE = re.compile(rb"^#\d{6} +\d+:\d\d:\d\d server id \d+ +end_log_pos (\d+) ")
STMT_RE = re.compile(rb"^### (INSERT INTO|UPDATE|DELETE FROM) `((?:[^`]|``)*)`\.`((?:[^`]|``)*)`$")
COL_RE = re.compile(rb"^###   @(\d+)=(.*)$")


class Parser:
    def __init__(self, files):
        self.files = files          # names, in order (files mode)
        self.file_idx = -1
        self.file = files[0] if files else None
        self.end_pos = None
        self.last_at = None         # "# at N": offset of the last event started
        self.last_event = ""        # what its header line said (e.g. Table_map: `db`.`t` ...)
        self.prev_event = ""        # the same for the event before it
        self.pending = []
        self.cur = None             # current row being built
        self.image = None           # "before" | "after"

    def finish_row(self):
        if self.cur is not None:
            self.pending.append(self.cur)
            self.cur = None
            self.image = None

    def line(self, ln):
        ln = ln.rstrip(b"\n")
        if ln.startswith(b"###"):
            m = STMT_RE.match(ln)
            if m:
                self.finish_row()
                op = {b"INSERT INTO": "insert", b"UPDATE": "update", b"DELETE FROM": "delete"}[m.group(1)]
                self.cur = {"op": op, "db": m.group(2).decode(errors="replace").replace("``", "`"),
                            "table": m.group(3).decode(errors="replace").replace("``", "`"),
                            "before": None, "after": None}
                return
            if ln == b"### SET":
                self.image = "after"
                self.cur["after"] = {}
                return
            if ln == b"### WHERE":
                self.image = "before"
                self.cur["before"] = {}
                return
            m = COL_RE.match(ln)
            if m and self.cur is not None and self.image:
                t = TYPE_RE.match(m.group(2))
                if t:
                    val = value(t.group(1), t.group(2), t.group(3))
                else:
                    val = m.group(2).decode("utf-8", "replace")
                self.cur[self.image]["@" + m.group(1).decode()] = val
            return
        self.finish_row()
        if ln.startswith(b"# at "):
            self.last_at = ln[5:].decode(errors="replace").strip()
            self.prev_event = self.last_event
            self.last_event = ""
            return
        m = HDR_RE.match(ln)
        if m:
            self.end_pos = int(m.group(1))
            self.last_event = ln.split(b"\t", 1)[-1].decode("utf-8", "replace").strip()
            if b"\tStart: binlog v 4" in ln and self.files:
                self.file_idx = min(self.file_idx + 1, len(self.files) - 1)
                self.file = self.files[self.file_idx]
            m = re.search(rb"\tRotate to (\S+)", ln)
            if m and not self.files:
                # remote: the server's (artificial) Rotate names the file being read
                self.file = m.group(1).decode()
            return
        # InnoDB transactions end with "COMMIT/*!*/;" (after the Xid event);
        # non-transactional ones with a QUERY "COMMIT" printed on its own line
        if ln in (b"COMMIT/*!*/;", b"COMMIT"):
            for r in self.pending:
                r["gtid"] = None
                r["pos"] = {"file": self.file, "pos": self.end_pos} if self.file else None
                out(r)
            self.pending = []


# ------------------------------------------------------------------ main

def main():
    version = os.environ.get("CDCH_VERSION", "")
    variant = version.split("+", 1)[1] if "+" in version else (sys.argv[1] if len(sys.argv) > 1 else "decode-rows")
    prog = os.environ.get("MARIADB_BINLOG", "mariadb-binlog")
    cache = os.environ.get("CDCH_CACHE", "")
    if cache and os.path.exists(os.path.join(cache, "mariadb-binlog.path")):
        with open(os.path.join(cache, "mariadb-binlog.path")) as f:
            prog = f.read().strip() or prog
    decode = ["--base64-output=decode-rows", "-vv"]

    files = []
    if variant in ("decode-rows", "force-read"):
        d = os.environ.get("CDCH_BINLOG_DIR", "")
        names = os.environ.get("CDCH_BINLOG_FILES", "").split()
        if not names and d:
            idx = [f for f in os.listdir(d) if f.endswith(".index")]
            if len(idx) == 1:
                with open(os.path.join(d, idx[0])) as f:
                    names = [l.strip() for l in f if l.strip()]
        paths = [n if os.path.isabs(n) else os.path.join(d, n) for n in names]
        if not paths:
            error_exit("adapter: no binlog files (CDCH_BINLOG_FILES / CDCH_BINLOG_DIR)", 2)
        start_file = os.environ.get("CDCH_START_FILE", "")
        start_pos = int(os.environ.get("CDCH_START_POS", "4") or 4)
        if start_file:
            base = [os.path.basename(p) for p in paths]
            if os.path.basename(start_file) in base:
                paths = paths[base.index(os.path.basename(start_file)):]
        args = [prog] + decode + (["--force-read"] if variant == "force-read" else [])
        if start_pos > 4:
            args.append(f"--start-position={start_pos}")
        args += paths
        files = [os.path.basename(p) for p in paths]
    elif variant == "remote":
        host = os.environ.get("CDCH_HOST", "127.0.0.1")
        port = os.environ.get("CDCH_PORT", "")
        if not port:
            error_exit("adapter: CDCH_PORT is not set", 2)
        start_file = os.environ.get("CDCH_START_FILE", "") or "binlog.000001"
        start_pos = int(os.environ.get("CDCH_START_POS", "4") or 4)
        args = [prog, "--read-from-remote-server", f"--host={host}", f"--port={port}",
                f"--user={os.environ.get('CDCH_USER', 'root')}",
                f"--password={os.environ.get('CDCH_PASSWORD', '')}",
                "--stop-never", f"--stop-never-slave-server-id={os.environ.get('CDCH_SERVER_ID', '65535')}"] + decode
        if start_pos > 4:
            args.append(f"--start-position={start_pos}")
        args.append(start_file)
    else:
        error_exit(f"adapter: unknown variant {variant!r} (CDCH_VERSION={version!r})", 2)

    sys.stderr.write("adapter: running " + " ".join(a if not a.startswith("--password=") else "--password=***" for a in args) + "\n")
    try:
        proc = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, stdin=subprocess.DEVNULL)
    except OSError as e:
        error_exit(f"cannot run {prog}: {e}")

    def stop(signum, frame):
        if proc.poll() is None:
            proc.terminate()
            try:
                proc.wait(3)
            except subprocess.TimeoutExpired:
                proc.kill()
        sys.exit(0)
    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGINT, stop)

    errors = []

    def pump_stderr():
        for ln in proc.stderr:
            sys.stderr.buffer.write(ln)
            sys.stderr.flush()
            s = ln.decode("utf-8", "replace").rstrip("\n")
            if s.startswith("ERROR:"):
                errors.append(s[len("ERROR:"):].strip())
    t = threading.Thread(target=pump_stderr, daemon=True)
    t.start()

    p = Parser(files)
    ready = False
    if variant != "remote":
        out({"kind": "ready"})
        ready = True
    for ln in proc.stdout:
        if not ready and ln.startswith(b"# at "):
            out({"kind": "ready"})   # remote: the first event arrived
            ready = True
        p.line(ln)
    rc = proc.wait()
    t.join(5)
    if errors or rc != 0:
        msg = "mariadb-binlog: " + errors[0] if errors else \
            (f"mariadb-binlog exited with status {rc} without an error message; its output stops at "
             f"'# at {p.last_at}' in {p.file}" +
             (f" ({p.last_event})" if p.last_event else
              f" (no header printed for that event; the one before: {p.prev_event})"))
        if errors and rc == 0:
            msg += " (mariadb-binlog exited with status 0)"
        elif rc != 0:
            msg += f" (exit status {rc})"
        error_exit(msg)
    # mariadb-binlog read every file and exited 0 without an error: so does the adapter (the
    # harness takes a clean exit of a files-source consumer as "read everything"). Remote
    # (--stop-never) never ends this way while the server is up.
    sys.exit(0)


if __name__ == "__main__":
    cdch.run(main)
