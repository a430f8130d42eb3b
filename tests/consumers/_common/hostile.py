#!/usr/bin/env python3
"""Hostile test adapters: consumers that attack the harness rather than get the
stream wrong (tests/self_protect.sh). Each emits the reference consumer's rows
correctly (tests/consumers/_common/broken.py's reference), then:

  flood-stdout     writes 64 KiB lines of noise to stdout forever
  flood-dup        emits its first row again and again, forever
  flood-line       writes one line that never ends
  flood-stderr     writes 1 GiB to stderr, then exits 0
  bad-bytes        (instead of its rows) prints one row with invalid UTF-8 and
                   a NUL byte in a string, and a line of raw binary, then the rest
  orphan           leaves a daemon behind (double fork + setsid, holding
                   stdout), then exits 0
  orphan-noenv     leaves a daemon behind as a well-behaved daemon does it
                   (double fork + setsid, stdio on /dev/null) with an empty
                   environment: nothing in it names the adapter or its TMPDIR
  ignore-term      ignores SIGTERM, as does a child it starts, and hangs
  close-stdout     closes stdout and keeps running, ignoring SIGTERM
  session B        session mode around behaviour B (one process, many cells)

Processes they leave behind carry a mark in their command line: $CDCH_HOSTILE_MARK (the
harness passes its environment on to the adapter; tests/self_protect.sh sets one unique to its
run, so that its pgrep/pkill see only its own processes), "cdch-hostile-orphan" when unset. The
daemons get it in their argv, so it survives orphan-noenv's empty environment.
"""
import os
import signal
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import broken  # noqa: E402

MARK = os.environ.get("CDCH_HOSTILE_MARK") or "cdch-hostile-orphan"


def sleeper(seconds=600):
    """argv of a process that sleeps and shows the mark."""
    return [sys.executable, "-c", "import time,sys; time.sleep(%d)" % seconds, MARK]


def emit_rows(rows):
    for r in rows:
        broken.emit(broken.clean(r))


def forever(write):
    while True:
        write()


def main():
    if sys.argv[1] == "session":  # session mode around a behaviour (consumers/README.md)
        return broken.session(sys.argv[2], run=attack)
    attack(sys.argv[1])


def attack(behaviour):
    rows = broken.reference_rows()
    broken.emit({"kind": "ready"})
    out = sys.stdout.buffer
    if behaviour == "bad-bytes":
        first = broken.clean(rows[0])
        line = broken.json.dumps(first, separators=(",", ":"))
        # a string value with an invalid UTF-8 byte and a NUL: not a canonical event
        raw = line.encode("utf-8").replace(b'"table":"', b'"table":"\xff\x00', 1)
        out.write(raw + b"\n")
        out.write(bytes(range(256)) + b"\n")
        out.flush()
        emit_rows(rows[1:])
        return
    emit_rows(rows)
    if behaviour == "flood-stdout":
        noise = b"noise " * 10922 + b"\n"
        forever(lambda: out.write(noise))
    elif behaviour == "flood-dup":
        line = broken.json.dumps(broken.clean(rows[0]), separators=(",", ":")).encode() + b"\n"
        forever(lambda: out.write(line * 64))
    elif behaviour == "flood-line":
        chunk = b"x" * 65536
        forever(lambda: out.write(chunk))
    elif behaviour == "flood-stderr":
        chunk = b"e" * (1 << 20)
        for _ in range(1024):
            sys.stderr.buffer.write(chunk)
        sys.stderr.buffer.flush()
    elif behaviour == "orphan":
        if os.fork() == 0:
            os.setsid()
            if os.fork() == 0:
                os.execv(sys.executable, sleeper())  # keeps stdout and stderr open
            os._exit(0)
        os.wait()
    elif behaviour == "orphan-noenv":
        if os.fork() == 0:
            os.setsid()
            if os.fork() == 0:
                null = os.open(os.devnull, os.O_RDWR)
                for fd in (0, 1, 2):
                    os.dup2(null, fd)
                os.execve(sys.executable, sleeper(), {})
            os._exit(0)
        os.wait()
    elif behaviour == "ignore-term":
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
        subprocess.Popen(sleeper(), preexec_fn=lambda: signal.signal(signal.SIGTERM, signal.SIG_IGN))
        time.sleep(600)
    elif behaviour == "close-stdout":
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
        sys.stdout.flush()
        os.close(1)
        time.sleep(600)
    else:
        sys.exit("hostile.py: unknown behaviour " + behaviour)


if __name__ == "__main__":
    main()
