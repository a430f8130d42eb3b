"""PyMySQL against `cdcharness serve` (run by tests/clients/pymysql.sh).

usage: pymysql_check.py SHA2_PORT NATIVE_PORT

Prints "PASS name" / "FAIL name: detail" per check.
"""
import ssl
import sys
import time
import traceback

import pymysql
import pymysql.cursors

UUID = "5f4b2a10-8c3d-11ee-b9d1-0242ac120002"


def report(name, ok, detail=""):
    print(("PASS " if ok else "FAIL ") + name + ("" if ok else ": " + detail), flush=True)


def check(name, fn):
    try:
        r = fn()
        report(name, r is None or r is True, "" if r in (None, True) else str(r))
    except Exception as e:  # a check that raises fails, the others go on
        report(name, False, "%s: %s" % (type(e).__name__, e))


def eq(got, want):
    return True if got == want else "got %r, want %r" % (got, want)


def connect(port, tls, password="cdch", **kw):
    args = dict(host="127.0.0.1", port=port, user="cdch", password=password, connect_timeout=30, **kw)
    if tls:
        ctx = ssl.create_default_context()
        ctx.check_hostname = False
        ctx.verify_mode = ssl.CERT_NONE
        args["ssl"] = ctx
    return pymysql.connect(**args)


def queries(label, port, tls):
    conn = connect(port, tls)
    cur = conn.cursor()

    def q(sql, args=None):
        cur.execute(sql, args)
        return cur.fetchall()

    check(label + ": identity", lambda: eq(
        q("SELECT @@version, @@server_id, @@server_uuid, @@GLOBAL.GTID_MODE, @@binlog_format")[0],
        ("8.0.36", 7, UUID, "ON", "ROW")))
    check(label + ": UNIX_TIMESTAMP()", lambda: abs(q("SELECT UNIX_TIMESTAMP()")[0][0] - time.time()) < 10)
    check(label + ": CONNECTION_ID()", lambda: eq(q("SELECT CONNECTION_ID()")[0][0], conn.thread_id()))
    check(label + ": binlog checksum (python-mysql-replication)", lambda: eq(
        q("SHOW GLOBAL VARIABLES LIKE 'BINLOG_CHECKSUM'"), (("binlog_checksum", "CRC32"),)))
    check(label + ": row metadata", lambda: eq(q("SHOW VARIABLES LIKE 'BINLOG_ROW_METADATA';")[0][1], "FULL"))

    def replica_sets():
        q("SET @master_binlog_checksum= @@global.binlog_checksum")
        q("SET @mariadb_slave_capability=4")
        q("SET @slave_uuid = %s, @replica_uuid = %s", ("0b7a7e52-0000-0000-0000-000000000001",) * 2)
        q("SET @master_heartbeat_period = %s", (1000000000,))
        return eq(q("SELECT @master_binlog_checksum, @slave_uuid")[0],
                  ("CRC32", "0b7a7e52-0000-0000-0000-000000000001"))
    check(label + ": replica SETs and user variables", replica_sets)

    def master_status():
        d = conn.cursor(pymysql.cursors.DictCursor)
        d.execute("SHOW MASTER STATUS")
        row = d.fetchone()
        log_name, size = q("SHOW BINARY LOGS")[0][:2]
        return eq((row["File"], row["Position"], row["Executed_Gtid_Set"]), (log_name, size, UUID + ":1-7"))
    check(label + ": SHOW MASTER STATUS", master_status)
    check(label + ": information_schema.COLUMNS (parameters)", lambda: eq(
        [r[0] for r in q("SELECT COLUMN_NAME FROM INFORMATION_SCHEMA.COLUMNS WHERE TABLE_SCHEMA = %s "
                         "AND TABLE_NAME = %s ORDER BY ORDINAL_POSITION", ("shop", "orders"))],
        ["id", "total", "note", "placed"]))
    check(label + ": SHOW CREATE TABLE", lambda: q("SHOW CREATE TABLE shop.customers")[0][1].startswith(
        "CREATE TABLE `customers` (\n  `id` int NOT NULL,"))
    check(label + ": TLS state", lambda: eq(bool(q("SHOW STATUS LIKE 'Ssl_cipher'")[0][1]), tls))

    def unknown():
        try:
            q("FROBNICATE the server")
        except pymysql.err.ProgrammingError as e:
            return eq(e.args[0], 1064) if "FROBNICATE the server" in e.args[1] else "message: " + e.args[1]
        return "no error"
    check(label + ": unknown statement -> 1064", unknown)

    def unknown_table():
        try:
            q("SELECT * FROM shop.nowhere")
        except pymysql.err.ProgrammingError as e:
            return eq(e.args, (1146, "Table 'shop.nowhere' doesn't exist"))
        return "no error"
    check(label + ": unknown table -> 1146", unknown_table)

    def unknown_command():
        conn._execute_command(0x20, b"")  # no such command
        try:
            conn._read_packet()
        except pymysql.err.MySQLError as e:
            return eq(e.args[0], 1047)
        return "no error"
    check(label + ": unknown command -> 1047", unknown_command)
    check(label + ": still usable after it", lambda: eq(q("SELECT 1"), ((1,),)))

    def kill():
        other = connect(port, tls)
        q("KILL %s" % other.thread_id())
        try:
            other.cursor().execute("SELECT 1")
        except pymysql.err.OperationalError:
            return True
        return "the killed connection still answered"
    check(label + ": KILL", kill)
    conn.close()

    def wrong_password():
        try:
            connect(port, tls, password="wrong")
        except pymysql.err.OperationalError as e:
            return eq(e.args, (1045, "Access denied for user 'cdch'@'127.0.0.1' (using password: YES)"))
        return "connected"
    check(label + ": wrong password -> 1045", wrong_password)


def main():
    sha2, native = int(sys.argv[1]), int(sys.argv[2])
    # caching_sha2_password: fresh server -> full authentication with the RSA
    # key exchange (PyMySQL + cryptography), FLUSH PRIVILEGES -> full
    # authentication over TLS, then the fast path
    queries("sha2, no TLS", sha2, False)
    c = connect(sha2, True)
    c.cursor().execute("FLUSH PRIVILEGES")
    c.close()
    queries("sha2, TLS", sha2, True)
    queries("sha2, no TLS again", sha2, False)
    queries("native, no TLS", native, False)
    queries("native, TLS", native, True)


if __name__ == "__main__":
    try:
        main()
    except Exception:
        traceback.print_exc()
        print("FAIL pymysql_check: crashed")
        sys.exit(1)
