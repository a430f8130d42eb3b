#!/usr/bin/env python3
"""record_client.py - record what a real MySQL client sends, for fuzz_server seeds.

    fuzz/record_client.py LISTEN_PORT UPSTREAM_PORT OUT_DIR [PREFIX]

A TCP relay on 127.0.0.1:LISTEN_PORT to `cdcharness serve` on
127.0.0.1:UPSTREAM_PORT: every connection is relayed both ways and the
bytes the client sent (framing included, exactly what fuzz_server reads)
are written to OUT_DIR/PREFIX-<n>.bin when it closes. Run the server with
`--auth mysql_native_password --password ''` so the recorded session logs
in again whatever the scramble (fuzz/fuzz_server.c). Stops on SIGTERM.
"""
import os
import selectors
import signal
import socket
import sys


def main():
    listen_port, up_port, out = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
    prefix = sys.argv[4] if len(sys.argv) > 4 else "client"
    os.makedirs(out, exist_ok=True)
    ls = socket.socket()
    ls.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    ls.bind(("127.0.0.1", listen_port))
    ls.listen(16)
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
    sel = selectors.DefaultSelector()
    sel.register(ls, selectors.EVENT_READ, None)
    n = 0
    conns = {}  # socket -> (peer socket, record buffer or None, id)
    print("recording on %d" % listen_port, flush=True)
    while True:
        for key, _ in sel.select():
            s = key.fileobj
            if s is ls:
                c, _ = ls.accept()
                u = socket.create_connection(("127.0.0.1", up_port))
                n += 1
                rec = bytearray()
                conns[c] = (u, rec, n)
                conns[u] = (c, None, n)
                sel.register(c, selectors.EVENT_READ, None)
                sel.register(u, selectors.EVENT_READ, None)
                continue
            if s not in conns:  # closed with its peer earlier in this batch
                continue
            peer, rec, cid = conns[s]
            try:
                data = s.recv(65536)
            except OSError:
                data = b""
            if data:
                if rec is not None:
                    rec += data
                peer.sendall(data)
                continue
            for x in (s, peer):
                sel.unregister(x)
                x.close()
            client_rec = rec if rec is not None else conns[peer][1]
            with open(os.path.join(out, "%s-%d.bin" % (prefix, cid)), "wb") as f:
                f.write(bytes(client_rec))
            conns.pop(s)
            conns.pop(peer)


if __name__ == "__main__":
    main()
