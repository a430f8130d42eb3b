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
 *               (with sql.c, vars.c and schema.c behind query_internal.h:
 *               SQL lexer/expressions, system/status variables, the
 *               catalogue as information_schema / SHOW shows it)
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

#include <sys/types.h>

#include "arena.h"
#include "buf.h"
#include "err.h"
#include "gtid.h"
#include "server.h"
#include "tcpdiag.h"

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

/* MySQL's name limits, in characters (UTF-8 sequences), checked where a
 * name comes in instead of cutting it:
 *  - identifiers (databases, tables, columns): 64, ER_TOO_LONG_IDENT 1059
 *    "Identifier name '...' is too long"
 *    (https://dev.mysql.com/doc/refman/8.0/en/identifier-length.html);
 *  - user-defined variables: 64, ER_ILLEGAL_USER_VAR 3061 "User variable
 *    name '...' is illegal" (same page, and
 *    https://dev.mysql.com/doc/refman/8.0/en/user-variables.html: "Names
 *    have a maximum length of 64 characters");
 *  - user names: 32 (https://dev.mysql.com/doc/refman/8.0/en/replication-features-user-names.html);
 *    a longer name in a HandshakeResponse is clipped to 32 characters
 *    before the account lookup, as MySQL's parse_client_handshake_packet
 *    does ("Clip username to allowed length in characters"), so it gets
 *    ER_ACCESS_DENIED_ERROR 1045 naming the clipped user. */
enum { SRV_NAME_CHARS = 64, SRV_USER_CHARS = 32 };
/* ER_TOO_LONG_IDENT (1059, 42000); arguments: (int) length (at most 100 bytes are shown), name */
#define SRV_ER_TOO_LONG_IDENT "Identifier name '%.*s' is too long"
/* Characters in s[0..n) (bytes that do not continue a UTF-8 sequence). */
size_t srv_utf8_chars(const char *s, size_t n);
/* Bytes of the first max characters of s[0..n). */
size_t srv_utf8_prefix(const char *s, size_t n, size_t max);

/* A user variable set with SET @name = value (names lower-cased, at most
 * SRV_NAME_CHARS characters), or a session system variable. value is
 * heap-allocated (never NULL once set), freed by srv_var_clear. */
typedef struct srv_uservar {
    char name[4 * SRV_NAME_CHARS + 1];
    char *value;
    bool is_null;
} srv_uservar;
/* Set v->value to a copy of value (NULL = "") and free the old one. */
void srv_var_set_value(srv_uservar *v, const char *value);
/* Free the values of vars[0..*n) and empty the array. */
void srv_var_clear(srv_uservar *vars, size_t *n);

typedef struct srv_stmt srv_stmt; /* stmt.c: a prepared statement */

typedef struct srv_conn {
    struct cdch_server *srv;
    int fd;
    void *ssl;                 /* SSL * when TLS is on */
    uint32_t id;               /* connection id (also CONNECTION_ID()) */
    uint8_t seq;               /* next sequence id */
    uint32_t caps;             /* negotiated capabilities (client & server) */
    char user[4 * SRV_USER_CHARS + 1];
    char db[4 * SRV_NAME_CHARS + 1];
    srv_uservar vars[32];
    size_t nvars;
    uint64_t bytes_sent;
    /* link shaping state (conn.c) */
    double tokens;
    uint64_t last_ns;
    /* --- added by conn/auth/query (server.c owns the lifecycle) --- */
    char peer[64];             /* client IP address, for messages */
    cdch_tcp_tuple client;     /* the client's socket named from its side (cdch_server_bytes_in_flight) */
    uint8_t charset;           /* client collation id from the handshake */
    uint16_t status;           /* server status flags (SERVER_STATUS_*) sent in OK/EOF */
    bool dumping;              /* a binlog dump runs: conn.c adds written bytes to stats.bytes_sent; set by the
                                * connection's thread, read by others (KILL, PROCESSLIST): __atomic */
    bool handshaking;          /* srv_auth runs: every read waits at most connect_timeout (conn.c) */
    uint64_t dump_no;          /* set before dump.c is called: 1-based number of this dump on the server */
    uint64_t lag_ns;           /* link delay already applied to the current burst (conn.c) */
    uint64_t last_write_ns;    /* end of the previous write (conn.c) */
    srv_uservar sysvars[32];   /* session system variables SET by the client (names lower-cased) */
    size_t nsysvars;
    srv_stmt *stmts;           /* prepared statements (stmt.c) */
    uint32_t next_stmt_id;
    uint64_t queries;          /* queries on this connection */
    uint16_t extra_status;     /* OR-ed into the final OK/EOF: SERVER_MORE_RESULTS_EXISTS in multi-statements */
    cdch_buf wbuf;             /* packet assembly buffer (conn.c) */
} srv_conn;

/* Server status flags (include/mysql_com.h). */
enum {
    SERVER_STATUS_IN_TRANS = 0x0001, SERVER_STATUS_AUTOCOMMIT = 0x0002, SERVER_MORE_RESULTS_EXISTS = 0x0008,
    SERVER_STATUS_NO_INDEX_USED = 0x0020,
};

/* The server (server.c creates and owns it; other files read it). */
/* A point where a dump waits for the harness (server.h hold_cut,
 * hold_before_file/pos); guarded by cdch_server.mu. Released once, for good. */
typedef struct srv_hold {
    bool holding;              /* a dump waits there now */
    bool released;             /* the harness let it go */
    char file[512];            /* where it waits */
    uint64_t pos;
} srv_hold;

struct cdch_server {
    const cdch_scenario *s;
    char *stream_dir;
    cdch_server_opts opts;     /* string members point at copies the server owns; defaults filled in */
    const char *version;       /* version string announced (opts.version_string or the scenario's) */
    bool native_refused;       /* opts.auth asked for mysql_native_password, which this version has not
                                * loaded: the account uses caching_sha2_password (server.c) */
    srv_catalog *cat;
    void *ssl_ctx;             /* SSL_CTX * (tls.c) */
    void *rsa_key;             /* EVP_PKEY * for caching_sha2 RSA password exchange (tls.c) */
    char *rsa_pub_pem;         /* its public key, PEM (what 0x02 requests get) */
    int listen_fd;
    uint16_t port;
    pthread_t accept_thread;
    bool started;
    int stopping;              /* read with srv_stopping() */
    pthread_mutex_t mu;        /* guards everything below */
    pthread_cond_t cv;         /* signalled when a connection thread ends */
    srv_conn **conns;
    size_t nconns, capconns;
    size_t nthreads;           /* connection threads still running */
    pthread_t *ended;          /* connection threads that finished, to be joined */
    size_t nended, capended;
    uint32_t next_conn_id;
    cdch_server_stats stats;
    uint64_t active_dumps;
    bool sha2_cached;          /* caching_sha2 cache holds the account (after a full authentication) */
    int64_t start_time;        /* epoch seconds (Uptime) */
    char cut_file[512];        /* cdch_server_last_cut ("" = none) */
    uint64_t cut_pos;
    srv_hold cut_hold;         /* faults.hold_cut: a dump waits at its cut */
    srv_hold mark_hold;        /* faults.hold_before_*: a dump waits before the end marker */
};

/* ---- server.c ---- */
bool srv_stopping(const struct cdch_server *srv);
typedef enum srv_stat {
    SRV_STAT_CONNECTIONS, SRV_STAT_QUERIES, SRV_STAT_UNKNOWN_QUERIES, SRV_STAT_DUMPS,
    SRV_STAT_EVENTS_SENT,     /* dump.c: once per event sent */
    SRV_STAT_BYTES_SENT,      /* conn.c counts these itself while c->dumping */
} srv_stat;
void srv_stat_add(struct cdch_server *srv, srv_stat which, uint64_t n);
/* dump.c: a fault closed a dump connection; file:pos ends the last complete event sent. */
void srv_note_cut(struct cdch_server *srv, const char *file, uint64_t pos);
/* Wait (the dump's connection open, no event of the stream sent) until the
 * harness releases hold h (cdch_server_release_cut / _release_mark); false
 * when the peer went or the server stops first, or when tick (called every
 * 20 ms when not NULL; dump.c sends its heartbeats from it) returns false.
 * file:pos is where the dump stands, for the harness to see. */
bool srv_hold_at(struct cdch_server *srv, srv_hold *h, srv_conn *c, const char *file, uint64_t pos,
                 bool (*tick)(void *arg), void *arg);
/* KILL: shut down connection `id`'s socket (its thread then ends). 0, or -1 if no such connection. */
int srv_kill(struct cdch_server *srv, uint32_t id);
/* One connection's whole session on c->fd: handshake and authentication,
 * then commands until COM_QUIT, the end of a dump, EOF or an error; its
 * prepared statements and TLS state are freed, c->fd stays open and c
 * stays the caller's (c->wbuf too). server.c's connection threads run it
 * on accepted sockets; fuzz/fuzz_server.c runs it over a socketpair with
 * a srv_conn set up as the accept loop does (srv, fd, id, peer, status). */
void srv_conn_session(srv_conn *c);

/* ---- conn.c ---- */
/* @@max_allowed_packet (vars.c shows the same number): the largest payload
 * a client may send. */
#define SRV_MAX_ALLOWED_PACKET (64u * 1024u * 1024u)
/* Read one logical packet (joins >16 MiB payloads). Every chunk's sequence
 * id must be c->seq (0 for a command: the session loop resets it; in the
 * connection phase the id after the server's last packet); then seq is
 * the id + 1. A packet out of sequence gets ERR 1156 "Got packets out of
 * order", one over SRV_MAX_ALLOWED_PACKET ERR 1153 "Got a packet bigger
 * than 'max_allowed_packet' bytes", one whose bytes stop coming for
 * @@net_read_timeout seconds (session value, default 30) ERR 1159 "Got
 * timeout reading communication packets" (all 08S01, as MySQL's
 * my_net_read), and -1; waiting for a command's first byte is not timed.
 * Returns 0, 1 on clean EOF, -1 on error. */
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
/* The one lookup of session variables: the index of `name` (compared
 * case-insensitively) in vars[0..n), or n when it is not there. Serves the
 * user variables (c->vars) and the session system variables (c->sysvars). */
size_t srv_var_index(const srv_uservar *vars, size_t n, const char *name);
/* @name as Item_func_get_user_var sees it: NULL if never set (a variable
 * SET to NULL is returned, with is_null). */
const srv_uservar *conn_uservar_entry(const srv_conn *c, const char *name);
const char *conn_uservar(const srv_conn *c, const char *name); /* its value; NULL if unset or NULL */
void conn_set_uservar(srv_conn *c, const char *name, const char *value, bool is_null);
/* Raw bytes on the wire (no framing) through TLS and link shaping; for
 * dump.c faults that cut a packet short. */
int conn_send_raw(srv_conn *c, const uint8_t *p, size_t n);
/* Sleep up to ms milliseconds, returning early when something happens:
 * 0 timeout, 1 the peer closed the connection or the server is stopping,
 * 2 the peer sent bytes (not consumed). */
int conn_wait(srv_conn *c, uint32_t ms);
/* @@connect_timeout in seconds (--connect-timeout, default 10): the bound on each handshake read
 * and on the whole TLS handshake (tls.c). */
int conn_connect_timeout_s(const srv_conn *c);

/* ---- catalog.c ---- */
srv_catalog *srv_catalog_load(const cdch_scenario *s, const char *stream_dir, cdch_err *err);
void srv_catalog_free(srv_catalog *cat);

/* ---- catalog.c accessors (read-only after load, thread-safe; used by query.c) ---- */
typedef struct srv_binlog_file {
    const char *name;          /* "binlog.000001" (as in the index and ROTATE events) */
    const char *path;          /* the file on disk */
    uint64_t size;             /* bytes */
    /* --- added by catalog.c (dump.c reads these) --- */
    const char *index_name;    /* the line in <basename>.index ("./binlog.000001"): MySQL's log_file_name */
    uint8_t checksum_alg;      /* from the file's FDE: CDCH_CHECKSUM_OFF / _CRC32 */
    bool has_prev_gtids;       /* the file has a PREVIOUS_GTIDS event */
    cdch_gtid_set prev_gtids;  /* its PREVIOUS_GTIDS set (empty if none) */
    cdch_gtid_set gtids;       /* the GTIDs written in this file */
    bool has_first_gtid;       /* the file has a GTID (33/42) event; first_* is the first one */
    cdch_gtid_ev first_gtid;   /* sid, tag, gno of the first GTID event (other members unset) */
    bool has_last_gtid;
    cdch_gtid_ev last_gtid;    /* sid, tag, gno of the last GTID written in the file */
} srv_binlog_file;
size_t srv_catalog_nfiles(const srv_catalog *cat);
const srv_binlog_file *srv_catalog_file(const srv_catalog *cat, size_t i);         /* NULL if out of range */
const srv_binlog_file *srv_catalog_find(const srv_catalog *cat, const char *name); /* NULL if unknown */
const char *srv_catalog_gtid_executed(const srv_catalog *cat); /* text ("uuid:1-5"), "" when empty */
const char *srv_catalog_mode(const srv_catalog *cat);          /* stream.json "mode": compressed|uncompressed|flip */
/* Added by catalog.c: server identity and variables (from stream.json, checked against the files). */
const char *srv_catalog_server_version(const srv_catalog *cat); /* "8.0.36" (the FDE's server version) */
uint32_t srv_catalog_server_id(const srv_catalog *cat);
const char *srv_catalog_server_uuid(const srv_catalog *cat);    /* "3e11fa47-71ca-11e1-9e33-c80aa9429562" */
const uint8_t *srv_catalog_server_uuid_bytes(const srv_catalog *cat); /* 16 bytes */
bool srv_catalog_gtid_mode(const srv_catalog *cat);             /* @@gtid_mode ON (GTID events) / OFF */
const char *srv_catalog_checksum(const srv_catalog *cat);       /* @@binlog_checksum: "CRC32" | "NONE" */
const char *srv_catalog_row_image(const srv_catalog *cat);      /* @@binlog_row_image: FULL | MINIMAL | NOBLOB */
const char *srv_catalog_row_metadata(const srv_catalog *cat);   /* @@binlog_row_metadata: FULL | MINIMAL */
const char *srv_catalog_basename(const srv_catalog *cat);       /* "binlog" (@@log_bin_basename's last part) */
/* @@gtid_executed / @@gtid_purged as MySQL prints them (Gtid_set::to_string):
 * UUIDs separated by ",\n"; "" when empty. gtid_purged = the first file's
 * PREVIOUS_GTIDS (what a server computes at startup; empty for generated
 * streams). srv_catalog_gtid_executed above returns the same text. */
const char *srv_catalog_gtid_purged(const srv_catalog *cat);
const cdch_gtid_set *srv_catalog_gtid_executed_set(const srv_catalog *cat);
const cdch_gtid_set *srv_catalog_gtid_purged_set(const srv_catalog *cat);
/* SHOW MASTER STATUS / SHOW BINARY LOG STATUS: the last (active) file and its size. */
void srv_catalog_master_status(const srv_catalog *cat, const char **file, uint64_t *position);
/* GTID set helpers: out = a - b (allocated in ar); MySQL's text form of a
 * set (",\n" between UUIDs) appended to out. */
void srv_gtid_subtract(const cdch_gtid_set *a, const cdch_gtid_set *b, cdch_arena *ar, cdch_gtid_set *out);
void srv_gtid_text(const cdch_gtid_set *s, cdch_buf *out);
/* Index of a file by name (a directory part is ignored, as MySQL's
 * make_log_name does); -1 if unknown. */
ssize_t srv_catalog_index_of(const srv_catalog *cat, const char *name);

/* SHOW BINLOG EVENTS [IN 'log'] [FROM pos] [LIMIT [offset,] count]: one row
 * per event (events inside a TRANSACTION_PAYLOAD follow it as rows of their
 * own, Pos/End_log_pos = the payload's, as MySQL prints them). Columns:
 * Log_name, Pos, Event_type, Server_id, End_log_pos, Info. */
typedef struct srv_binlog_event_row {
    const char *log_name;
    uint64_t pos;
    const char *event_type;    /* "Format_desc", "Previous_gtids", "Gtid", "Query", "Table_map", ... */
    uint32_t server_id;
    uint64_t end_log_pos;
    const char *info;          /* MySQL's pack_info text */
} srv_binlog_event_row;
/* Calls cb for each row (cb returns non-zero to stop early). log_name NULL
 * or "" = the first file. limit UINT64_MAX = no limit. On error returns -1
 * with *code/err->msg set to the MySQL error (1220 ER_ERROR_WHEN_EXECUTING_COMMAND,
 * "Error when executing command SHOW BINLOG EVENTS: Could not find target log", ...). */
int srv_catalog_binlog_events(const srv_catalog *cat, const char *log_name, uint64_t from_pos, uint64_t offset,
                              uint64_t limit, int (*cb)(void *ctx, const srv_binlog_event_row *row), void *ctx,
                              uint16_t *code, cdch_err *err);

/* ---- dump.c ---- (payload = the command packet after its command byte) */
/* srv_register_slave returns 0 (OK or ERR sent, the session goes on) or -1
 * (write failed). The dumps return 1 when the dump is over and the session
 * must end (MySQL ends it after COM_BINLOG_DUMP[_GTID] whatever happened:
 * EOF after a non-blocking dump, an ERR 1236, a fault, the client gone,
 * the server stopping), or -1 when a write failed. They set c->dumping
 * while streaming and count SRV_STAT_EVENTS_SENT per event packet
 * (heartbeats included). Faults (cdch_server_opts.faults) number the event
 * packets of one dump from 1 -- the fake ROTATE and the FDE of each file
 * included, heartbeats excluded -- and apply to every dump, or with
 * `once` only to the dump with c->dump_no == 1. corrupt_checksum_at flips
 * bit 0 of the 4th byte from the end (the CRC's first byte; a body byte
 * when the stream has no checksum). truncate_event_at and drop_after_bytes
 * (which counts event bytes, heartbeats excluded) write the packet header
 * announcing the whole event and only part of it, then close. The unknown
 * event (type 199) has log_pos = where the event it precedes starts, a
 * 4-byte zero body and a CRC when the stream has one. */
int srv_register_slave(srv_conn *c, const uint8_t *p, size_t n);
int srv_binlog_dump(srv_conn *c, const uint8_t *p, size_t n);      /* COM_BINLOG_DUMP */
int srv_binlog_dump_gtid(srv_conn *c, const uint8_t *p, size_t n); /* COM_BINLOG_DUMP_GTID */

/* ---- auth.c ---- */
/* Handshake, optional TLS, authentication; ends with OK (0) or after an
 * ERR / a dropped connection (-1). */
int srv_auth(srv_conn *c);
/* Whether the mysql_native_password plugin is loaded: ON before 8.4.0, OFF by default on 8.4.x
 * (scenario server.mysql_native_password turns it on, as --mysql-native-password=ON), absent from
 * 9.0.0 on (auth.c). */
bool srv_native_password_loaded(const struct cdch_server *srv);

/* ---- tls.c ---- */
int srv_tls_init(struct cdch_server *srv, cdch_err *err); /* SSL_CTX + RSA key pair */
void srv_tls_free(struct cdch_server *srv);
int srv_tls_accept(srv_conn *c, cdch_err *err);           /* after an SSLRequest; within connect_timeout */
void srv_tls_close(srv_conn *c);
const char *srv_tls_cipher(const srv_conn *c);            /* "" without TLS */
const char *srv_tls_version(const srv_conn *c);
/* RSA-OAEP (or PKCS#1 v1.5) decryption with the server key; *outlen in/out. */
int srv_rsa_decrypt(struct cdch_server *srv, const uint8_t *in, size_t n, uint8_t *out, size_t *outlen);

/* ---- resultset.c ---- */
enum { SRV_COLF_NOT_NULL = 1, SRV_COLF_PRI_KEY = 2, SRV_COLF_UNIQUE_KEY = 4, SRV_COLF_MULTIPLE_KEY = 8,
       SRV_COLF_BLOB = 16, SRV_COLF_UNSIGNED = 32, SRV_COLF_BINARY = 128, SRV_COLF_NUM = 32768 };
typedef struct srv_col {
    const char *name, *org_name, *table, *org_table, *db;
    uint8_t type;              /* MySQL field type (mysql_types.h CDCH_T_*) */
    uint16_t flags;            /* SRV_COLF_* */
    uint16_t charset;          /* collation id: 255 text, 63 binary/numbers */
    uint32_t length;
    uint8_t decimals;
} srv_col;
typedef struct srv_rs {
    cdch_arena a;              /* column names */
    srv_col *cols;
    size_t ncols, capcols;
    cdch_buf cells;            /* per cell: u8 not-null, le32 length, bytes */
    size_t *off;               /* offset of each cell in `cells` */
    size_t ncells, capoff;
} srv_rs;
void srv_rs_init(srv_rs *rs);
void srv_rs_free(srv_rs *rs);
srv_col *srv_rs_col(srv_rs *rs, const char *name, uint8_t type); /* appends a column with defaults for type */
/* Appends a copy of src (strings copied into rs); NULL arguments keep src's. */
srv_col *srv_rs_col_copy(srv_rs *rs, const srv_col *src, const char *label, const char *org_name,
                         const char *table, const char *db);
void srv_rs_cell(srv_rs *rs, const char *s, size_t n);          /* s NULL = SQL NULL; cells fill rows in order */
void srv_rs_str(srv_rs *rs, const char *s);
void srv_rs_uint(srv_rs *rs, uint64_t v);
size_t srv_rs_nrows(const srv_rs *rs);
const char *srv_rs_get(const srv_rs *rs, size_t row, size_t col, size_t *len); /* NULL = SQL NULL */
int srv_rs_find_col(const srv_rs *rs, const char *name);                        /* -1 if none (case-insensitive) */
void srv_put_coldef(cdch_buf *out, const srv_col *col, bool field_list);
int srv_send_coldefs(srv_conn *c, const srv_col *cols, size_t ncols); /* definitions + EOF (classic) */
int srv_rs_send(srv_conn *c, const srv_rs *rs, bool binary);          /* the whole result set */

/* ---- query.c ---- */
/* COM_QUERY: run one or more statements (multi-statements when the client
 * allows them) and send every response. */
int srv_query(srv_conn *c, const char *sql, size_t len);
/* The outcome of one statement, for query.c's callers (stmt.c). */
typedef enum srv_res_kind { SRV_RES_OK = 0, SRV_RES_ERR, SRV_RES_ROWS } srv_res_kind;
typedef struct srv_result {
    srv_res_kind kind;
    srv_rs rs;                 /* SRV_RES_ROWS */
    uint64_t affected, insert_id;
    uint16_t warnings;
    uint16_t err_code;         /* SRV_RES_ERR */
    char sqlstate[6];
    char msg[512];
} srv_result;
void srv_result_init(srv_result *r);
void srv_result_free(srv_result *r);
int srv_result_send(srv_conn *c, srv_result *r, bool binary);
/* Run one statement (comments allowed, no trailing ';' needed). With
 * describe set, only the result's columns matter and statements with side
 * effects are not executed (COM_STMT_PREPARE). */
void srv_query_exec(srv_conn *c, const char *sql, size_t len, bool describe, srv_result *res);
/* Known schema (scenario databases + the system schemas). */
bool srv_db_exists(const struct cdch_server *srv, const char *db);
/* COM_FIELD_LIST: column definitions of a table, then EOF. */
int srv_field_list(srv_conn *c, const char *table, const char *wild);
/* COM_STATISTICS text. */
void srv_statistics(struct cdch_server *srv, cdch_buf *out);

/* ---- stmt.c ---- (payload = the command packet after its command byte) */
int srv_stmt_prepare(srv_conn *c, const uint8_t *p, size_t n);
int srv_stmt_execute(srv_conn *c, const uint8_t *p, size_t n);
int srv_stmt_send_long_data(srv_conn *c, const uint8_t *p, size_t n); /* no response */
int srv_stmt_close(srv_conn *c, const uint8_t *p, size_t n);          /* no response */
int srv_stmt_reset(srv_conn *c, const uint8_t *p, size_t n);
int srv_stmt_fetch(srv_conn *c, const uint8_t *p, size_t n);
void srv_stmt_free_all(srv_conn *c);

#endif
