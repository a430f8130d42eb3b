/* server_internal.h — shared by the fake primary's source files only.
 *
 * Layout of harness/server/:
 *   server.c    listener, accept loop, one thread per connection, stats
 *   conn.c      packet I/O: 3-byte length + sequence id framing, payloads
 *               over 16 MiB split/joined, optional TLS (OpenSSL), link
 *               shaping (rate + delay); OK/ERR/EOF packet builders
 *   auth.c      HandshakeV10, HandshakeResponse41, SSLRequest,
 *               mysql_native_password, caching_sha2_password (fast path,
 *               full path over TLS or with the RSA public key exchange),
 *               AuthSwitchRequest, ER_ACCESS_DENIED_ERROR
 *   tls.c       OpenSSL context, self-signed certificate and RSA key pair
 *   query.c     the query pattern table: variables, SHOW statements,
 *               catalogue queries, SET @user_var, snapshot locking
 *   resultset.c text result sets (classic EOF or DEPRECATE_EOF), binary
 *               rows for prepared statements
 *   stmt.c      COM_STMT_PREPARE / EXECUTE / CLOSE / RESET
 *   catalog.c   the stream catalogue: stream.json + binlog files, SHOW
 *               BINARY LOGS / MASTER STATUS / BINLOG EVENTS data
 *   dump.c      COM_REGISTER_SLAVE, COM_BINLOG_DUMP, COM_BINLOG_DUMP_GTID:
 *               fake ROTATE, FDE, checksum negotiation, GTID skipping,
 *               heartbeats (v1/v2), non-blocking end, semi-sync header,
 *               faults
 */
#ifndef CDCH_SERVER_INTERNAL_H
#define CDCH_SERVER_INTERNAL_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#include "buf.h"
#include "err.h"
#include "server.h"

/* Client capability flags (include/mysql_com.h). */
enum {
    CLIENT_LONG_PASSWORD = 1u << 0, CLIENT_FOUND_ROWS = 1u << 1, CLIENT_LONG_FLAG = 1u << 2,
    CLIENT_CONNECT_WITH_DB = 1u << 3, CLIENT_NO_SCHEMA = 1u << 4, CLIENT_COMPRESS = 1u << 5,
    CLIENT_ODBC = 1u << 6, CLIENT_LOCAL_FILES = 1u << 7, CLIENT_IGNORE_SPACE = 1u << 8,
    CLIENT_PROTOCOL_41 = 1u << 9, CLIENT_INTERACTIVE = 1u << 10, CLIENT_SSL = 1u << 11,
    CLIENT_IGNORE_SIGPIPE = 1u << 12, CLIENT_TRANSACTIONS = 1u << 13, CLIENT_RESERVED = 1u << 14,
    CLIENT_SECURE_CONNECTION = 1u << 15, CLIENT_MULTI_STATEMENTS = 1u << 16, CLIENT_MULTI_RESULTS = 1u << 17,
    CLIENT_PS_MULTI_RESULTS = 1u << 18, CLIENT_PLUGIN_AUTH = 1u << 19, CLIENT_CONNECT_ATTRS = 1u << 20,
    CLIENT_PLUGIN_AUTH_LENENC_CLIENT_DATA = 1u << 21, CLIENT_CAN_HANDLE_EXPIRED_PASSWORDS = 1u << 22,
    CLIENT_SESSION_TRACK = 1u << 23, CLIENT_DEPRECATE_EOF = 1u << 24, CLIENT_OPTIONAL_RESULTSET_METADATA = 1u << 25,
    CLIENT_ZSTD_COMPRESSION_ALGORITHM = 1u << 26, CLIENT_QUERY_ATTRIBUTES = 1u << 27,
};

typedef struct srv_catalog srv_catalog; /* catalog.c */

/* A user variable set with SET @name = value (names lower-cased). */
typedef struct srv_uservar {
    char name[64];
    char value[256];
    bool is_null;
} srv_uservar;

typedef struct srv_conn {
    struct cdch_server *srv;
    int fd;
    void *ssl;                 /* SSL * when TLS is on */
    uint32_t id;               /* connection id (also CONNECTION_ID()) */
    uint8_t seq;               /* next sequence id */
    uint32_t caps;             /* negotiated capabilities (client & server) */
    char user[64];
    char db[65];
    srv_uservar vars[32];
    size_t nvars;
    uint64_t bytes_sent;
    /* link shaping state (conn.c) */
    double tokens;
    uint64_t last_ns;
} srv_conn;

/* ---- conn.c ---- */
/* Read one command packet (joins >16 MiB payloads). Resets seq to the
 * packet's id + 1. Returns 0, 1 on clean EOF, -1 on error. */
int conn_read(srv_conn *c, cdch_buf *payload, cdch_err *err);
/* Write one logical packet with the next sequence id(s) (splits >16 MiB). */
int conn_write(srv_conn *c, const uint8_t *p, size_t n);
int conn_ok(srv_conn *c, uint64_t affected, uint64_t insert_id, uint16_t status, uint16_t warnings);
int conn_err(srv_conn *c, uint16_t code, const char *sqlstate, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 4, 5)))
#endif
    ;
int conn_eof(srv_conn *c, uint16_t status); /* classic EOF, or OK-with-0xFE under DEPRECATE_EOF */
const char *conn_uservar(const srv_conn *c, const char *name); /* NULL if unset */
void conn_set_uservar(srv_conn *c, const char *name, const char *value, bool is_null);

/* ---- catalog.c ---- */
srv_catalog *srv_catalog_load(const cdch_scenario *s, const char *stream_dir, cdch_err *err);
void srv_catalog_free(srv_catalog *cat);

/* ---- dump.c ---- (payload = the command packet after its command byte) */
int srv_register_slave(srv_conn *c, const uint8_t *p, size_t n);
int srv_binlog_dump(srv_conn *c, const uint8_t *p, size_t n);      /* COM_BINLOG_DUMP */
int srv_binlog_dump_gtid(srv_conn *c, const uint8_t *p, size_t n); /* COM_BINLOG_DUMP_GTID */

/* ---- query.c ---- */
int srv_query(srv_conn *c, const char *sql, size_t len);

#endif
