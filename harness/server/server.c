/* server.c — the fake primary's listener and connection threads.
 *
 * Owns: the cdch_server: its listening socket (--bind, port 0 = a free
 * port), the accept thread, one thread per client connection (tracked in
 * srv->conns; finished ones are joined by the accept loop;
 * cdch_server_stop shuts every socket down and joins them all), the
 * command dispatcher of a connection and the counters.
 *
 * cdch_server_new ignores SIGPIPE for the process: a TLS write to a closed
 * socket would otherwise kill it (plain sockets use MSG_NOSIGNAL).
 *
 * Every socket is close-on-exec (SOCK_CLOEXEC, accept4): the server runs
 * inside the harness, which forks adapters while other cells' connections
 * are open; an inherited client socket would outlive the server's close, so
 * a fault cut would never reach the client (no FIN while the other cell's
 * adapter lives).
 */
#define _GNU_SOURCE /* accept4 */
#include <arpa/inet.h>
#include <errno.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "cursor.h"
#include "event.h"
#include "query_internal.h"
#include "server_internal.h"
#include "xalloc.h"

enum {
    COM_SLEEP = 0x00, COM_QUIT = 0x01, COM_INIT_DB = 0x02, COM_QUERY = 0x03, COM_FIELD_LIST = 0x04,
    COM_REFRESH = 0x07, COM_STATISTICS = 0x09, COM_PROCESS_INFO = 0x0a, COM_PROCESS_KILL = 0x0c, COM_DEBUG = 0x0d, COM_PING = 0x0e,
    COM_BINLOG_DUMP = 0x12, COM_REGISTER_SLAVE = 0x15, COM_STMT_PREPARE = 0x16, COM_STMT_EXECUTE = 0x17,
    COM_STMT_SEND_LONG_DATA = 0x18, COM_STMT_CLOSE = 0x19, COM_STMT_RESET = 0x1a, COM_SET_OPTION = 0x1b,
    COM_STMT_FETCH = 0x1c, COM_BINLOG_DUMP_GTID = 0x1e, COM_RESET_CONNECTION = 0x1f,
};

bool srv_stopping(const struct cdch_server *srv) { return __atomic_load_n(&srv->stopping, __ATOMIC_ACQUIRE) != 0; }

void srv_stat_add(struct cdch_server *srv, srv_stat which, uint64_t n)
{
    uint64_t *f = NULL;
    switch (which) {
    case SRV_STAT_CONNECTIONS: f = &srv->stats.connections; break;
    case SRV_STAT_QUERIES: f = &srv->stats.queries; break;
    case SRV_STAT_UNKNOWN_QUERIES: f = &srv->stats.unknown_queries; break;
    case SRV_STAT_DUMPS: f = &srv->stats.dumps; break;
    case SRV_STAT_EVENTS_SENT: f = &srv->stats.events_sent; break;
    case SRV_STAT_BYTES_SENT: f = &srv->stats.bytes_sent; break;
    }
    if (f)
        __atomic_fetch_add(f, n, __ATOMIC_RELAXED);
}

void srv_note_cut(struct cdch_server *srv, const char *file, uint64_t pos)
{
    pthread_mutex_lock(&srv->mu);
    snprintf(srv->cut_file, sizeof srv->cut_file, "%s", file ? file : "");
    srv->cut_pos = pos;
    srv->stats.fault_cuts++;
    pthread_mutex_unlock(&srv->mu);
}

bool srv_hold_at(struct cdch_server *srv, srv_hold *h, srv_conn *c, const char *file, uint64_t pos,
                 bool (*tick)(void *arg), void *arg)
{
    pthread_mutex_lock(&srv->mu);
    snprintf(h->file, sizeof h->file, "%s", file ? file : "");
    h->pos = pos;
    h->holding = true;
    pthread_mutex_unlock(&srv->mu);
    bool ok = true;
    for (;;) {
        pthread_mutex_lock(&srv->mu);
        bool released = h->released;
        pthread_mutex_unlock(&srv->mu);
        if (released)
            break;
        if (tick && !tick(arg)) { /* the dump could not write to its peer */
            ok = false;
            break;
        }
        int w = conn_wait(c, 20);
        if (w == 1) { /* the peer went (or the server stops) before the harness cut */
            ok = false;
            break;
        }
        if (w == 2) {
            struct timespec ts = {0, 20 * 1000000L};
            nanosleep(&ts, NULL);
        }
    }
    pthread_mutex_lock(&srv->mu);
    h->holding = false;
    pthread_mutex_unlock(&srv->mu);
    return ok;
}

static bool held(cdch_server *srv, const srv_hold *h, char *file, size_t filesz, uint64_t *pos)
{
    pthread_mutex_lock(&srv->mu);
    bool on = h->holding && !h->released;
    if (on && filesz)
        snprintf(file, filesz, "%s", h->file);
    if (on && pos)
        *pos = h->pos;
    pthread_mutex_unlock(&srv->mu);
    return on;
}

static void release(cdch_server *srv, srv_hold *h)
{
    pthread_mutex_lock(&srv->mu);
    h->released = true;
    pthread_mutex_unlock(&srv->mu);
}

bool cdch_server_cut_held(cdch_server *srv, char *file, size_t filesz, uint64_t *pos)
{
    return held(srv, &srv->cut_hold, file, filesz, pos);
}

void cdch_server_release_cut(cdch_server *srv) { release(srv, &srv->cut_hold); }

bool cdch_server_mark_held(cdch_server *srv) { return held(srv, &srv->mark_hold, NULL, 0, NULL); }

void cdch_server_release_mark(cdch_server *srv) { release(srv, &srv->mark_hold); }

bool cdch_server_last_cut(cdch_server *srv, char *file, size_t filesz, uint64_t *pos)
{
    pthread_mutex_lock(&srv->mu);
    bool any = srv->stats.fault_cuts > 0;
    if (any && filesz)
        snprintf(file, filesz, "%s", srv->cut_file);
    if (any && pos)
        *pos = srv->cut_pos;
    pthread_mutex_unlock(&srv->mu);
    return any;
}

void cdch_server_get_stats(cdch_server *srv, cdch_server_stats *out)
{
    out->connections = __atomic_load_n(&srv->stats.connections, __ATOMIC_RELAXED);
    out->queries = __atomic_load_n(&srv->stats.queries, __ATOMIC_RELAXED);
    out->unknown_queries = __atomic_load_n(&srv->stats.unknown_queries, __ATOMIC_RELAXED);
    out->dumps = __atomic_load_n(&srv->stats.dumps, __ATOMIC_RELAXED);
    out->events_sent = __atomic_load_n(&srv->stats.events_sent, __ATOMIC_RELAXED);
    out->bytes_sent = __atomic_load_n(&srv->stats.bytes_sent, __ATOMIC_RELAXED);
    pthread_mutex_lock(&srv->mu);
    out->fault_cuts = srv->stats.fault_cuts;
    out->active_dumps = srv->active_dumps;
    pthread_mutex_unlock(&srv->mu);
}

int srv_kill(struct cdch_server *srv, uint32_t id)
{
    int r = -1;
    pthread_mutex_lock(&srv->mu);
    for (size_t i = 0; i < srv->nconns; i++)
        if (srv->conns[i]->id == id) {
            shutdown(srv->conns[i]->fd, SHUT_RDWR);
            r = 0;
        }
    pthread_mutex_unlock(&srv->mu);
    return r;
}

uint16_t cdch_server_port(const cdch_server *srv) { return srv->port; }

uint64_t cdch_server_bytes_in_flight(cdch_server *srv)
{
    pthread_mutex_lock(&srv->mu); /* a connection's fd is closed under mu: valid while it is held */
    size_t n = srv->nconns;
    cdch_tcp_tuple *t = cdch_xcalloc(n, sizeof *t);
    uint64_t sum = 0;
    for (size_t i = 0; i < n && sum != UINT64_MAX; i++) {
        uint64_t q = cdch_tcp_sendq(srv->conns[i]->fd);
        t[i] = srv->conns[i]->client;
        sum = q == UINT64_MAX || t[i].remote.ss_family == AF_UNSPEC ? UINT64_MAX : sum + q;
    }
    pthread_mutex_unlock(&srv->mu);
    uint64_t *rq = cdch_xcalloc(n, sizeof *rq);
    if (sum != UINT64_MAX && cdch_tcpdiag_rqueues(t, n, rq) != 0)
        sum = UINT64_MAX; /* a connection closed meanwhile, or no sock_diag: the caller asks /proc */
    for (size_t i = 0; i < n && sum != UINT64_MAX; i++)
        sum += rq[i];
    free(rq);
    free(t);
    return sum;
}

/* ---- one connection --------------------------------------------------------------------- */

static char *dup_or(const char *s, const char *def) { return cdch_xstrdup(s ? s : def); }

static int run_dump(srv_conn *c, uint8_t cmd, const uint8_t *p, size_t n)
{
    struct cdch_server *srv = c->srv;
    c->dump_no = __atomic_add_fetch(&srv->stats.dumps, 1, __ATOMIC_RELAXED);
    pthread_mutex_lock(&srv->mu);
    srv->active_dumps++;
    pthread_mutex_unlock(&srv->mu);
    int r = cmd == COM_BINLOG_DUMP ? srv_binlog_dump(c, p, n) : srv_binlog_dump_gtid(c, p, n);
    __atomic_store_n(&c->dumping, false, __ATOMIC_RELAXED);
    pthread_mutex_lock(&srv->mu);
    srv->active_dumps--;
    pthread_mutex_unlock(&srv->mu);
    (void)r;
    return 1; /* MySQL ends the session after a dump, whatever happened */
}

static void reset_session(srv_conn *c)
{
    srv_var_clear(c->vars, &c->nvars);
    srv_var_clear(c->sysvars, &c->nsysvars);
    srv_stmt_free_all(c);
    c->status = SERVER_STATUS_AUTOCOMMIT;
}

/* One command. Returns 0 to go on, 1 to end the session, -1 on a write error. */
static int dispatch(srv_conn *c, const uint8_t *pkt, size_t len)
{
    if (len == 0)
        return conn_err(c, 1047, "08S01", "Unknown command (empty packet)");
    uint8_t cmd = pkt[0];
    const uint8_t *p = pkt + 1;
    size_t n = len - 1;
    switch (cmd) {
    case COM_QUIT: return 1;
    case COM_QUERY: return srv_query(c, (const char *)p, n);
    case COM_PING: return conn_ok(c, 0, 0, c->status, 0);
    case COM_INIT_DB: {
        /* MySQL's check_and_convert_db_name: longer than 64 characters is ER_TOO_LONG_IDENT */
        if (n > sizeof c->db - 1 || srv_utf8_chars((const char *)p, n) > SRV_NAME_CHARS)
            return conn_err(c, 1059, "42000", SRV_ER_TOO_LONG_IDENT, (int)(n > 100 ? 100 : n), (const char *)p);
        char db[sizeof c->db];
        snprintf(db, sizeof db, "%.*s", (int)n, (const char *)p);
        if (c->srv->opts.log_queries)
            fprintf(stderr, "cdcharness serve: [%u] init db %s\n", c->id, db);
        if (!srv_db_exists(c->srv, db))
            return conn_err(c, 1049, "42000", "Unknown database '%s'", db);
        snprintf(c->db, sizeof c->db, "%s", db);
        return conn_ok(c, 0, 0, c->status, 0);
    }
    case COM_FIELD_LIST: { /* table NUL wildcard */
        size_t k = 0;
        while (k < n && p[k])
            k++;
        if (k > 4 * SRV_NAME_CHARS || srv_utf8_chars((const char *)p, k) > SRV_NAME_CHARS)
            return conn_err(c, 1059, "42000", SRV_ER_TOO_LONG_IDENT, (int)(k > 100 ? 100 : k), (const char *)p);
        char table[4 * SRV_NAME_CHARS + 1];
        snprintf(table, sizeof table, "%.*s", (int)k, (const char *)p);
        size_t w = k < n ? n - k - 1 : 0;
        char *wild = cdch_xcalloc(1, w + 1);
        if (w)
            memcpy(wild, p + k + 1, w);
        int r = srv_field_list(c, table, wild);
        free(wild);
        return r;
    }
    case COM_STATISTICS: {
        cdch_buf b = CDCH_BUF_INIT;
        srv_statistics(c->srv, &b);
        int r = conn_write(c, b.data, b.len);
        cdch_buf_free(&b);
        return r;
    }
    case COM_PROCESS_INFO: return srv_query(c, "SHOW PROCESSLIST", 16);
    case COM_REFRESH: /* FLUSH ...; REFRESH_GRANT (1) empties the caching_sha2 cache like FLUSH PRIVILEGES */
        if (n >= 1 && (p[0] & 1)) {
            pthread_mutex_lock(&c->srv->mu);
            c->srv->sha2_cached = false;
            pthread_mutex_unlock(&c->srv->mu);
        }
        return conn_ok(c, 0, 0, c->status, 0);
    case COM_PROCESS_KILL: {
        uint32_t id = n >= 4 ? cdch_le32(p) : 0;
        if (id == c->id)
            return 1;
        if (srv_kill(c->srv, id) != 0)
            return conn_err(c, 1094, "HY000", "Unknown thread id: %u", id);
        return conn_ok(c, 0, 0, c->status, 0);
    }
    case COM_DEBUG: return conn_eof(c, c->status);
    case COM_SET_OPTION: {
        uint16_t opt = n >= 2 ? cdch_le16(p) : 0xffff;
        if (opt == 0)
            c->caps |= CLIENT_MULTI_STATEMENTS;
        else if (opt == 1)
            c->caps &= ~(uint32_t)CLIENT_MULTI_STATEMENTS;
        else
            return conn_err(c, 1047, "08S01", "Unknown command (COM_SET_OPTION %u)", opt);
        return conn_eof(c, c->status);
    }
    case COM_RESET_CONNECTION:
        reset_session(c);
        return conn_ok(c, 0, 0, c->status, 0);
    case COM_STMT_PREPARE: return srv_stmt_prepare(c, p, n);
    case COM_STMT_EXECUTE: return srv_stmt_execute(c, p, n);
    case COM_STMT_SEND_LONG_DATA: return srv_stmt_send_long_data(c, p, n);
    case COM_STMT_CLOSE: return srv_stmt_close(c, p, n);
    case COM_STMT_RESET: return srv_stmt_reset(c, p, n);
    case COM_STMT_FETCH: return srv_stmt_fetch(c, p, n);
    case COM_REGISTER_SLAVE:
        if (c->srv->opts.log_queries)
            fprintf(stderr, "cdcharness serve: [%u] COM_REGISTER_SLAVE\n", c->id);
        return srv_register_slave(c, p, n) < 0 ? -1 : 0;
    case COM_BINLOG_DUMP:
    case COM_BINLOG_DUMP_GTID:
        if (c->srv->opts.log_queries)
            fprintf(stderr, "cdcharness serve: [%u] %s\n", c->id,
                    cmd == COM_BINLOG_DUMP ? "COM_BINLOG_DUMP" : "COM_BINLOG_DUMP_GTID");
        return run_dump(c, cmd, p, n);
    default:
        fprintf(stderr, "cdcharness serve: connection %u: unknown command 0x%02x answered with ERR 1047\n", c->id,
                cmd);
        return conn_err(c, 1047, "08S01", "Unknown command");
    }
}

void srv_conn_session(srv_conn *c)
{
    struct cdch_server *srv = c->srv;
    if (srv_auth(c) == 0) {
        cdch_buf pkt = CDCH_BUF_INIT;
        cdch_err err;
        for (;;) {
            c->seq = 0; /* a command starts a new sequence */
            int r = conn_read(c, &pkt, &err);
            if (r != 0) {
                if (r < 0 && srv->opts.log_queries && !srv_stopping(srv))
                    fprintf(stderr, "cdcharness serve: %s\n", err.msg);
                break;
            }
            if (dispatch(c, pkt.data, pkt.len) != 0)
                break;
        }
        cdch_buf_free(&pkt);
    }
    srv_stmt_free_all(c);
    srv_var_clear(c->vars, &c->nvars);
    srv_var_clear(c->sysvars, &c->nsysvars);
    srv_tls_close(c);
    if (srv->opts.log_queries)
        fprintf(stderr, "cdcharness serve: connection %u closed\n", c->id);
}

static void *conn_thread(void *arg)
{
    srv_conn *c = arg;
    struct cdch_server *srv = c->srv;
    srv_conn_session(c);
    pthread_mutex_lock(&srv->mu);
    for (size_t i = 0; i < srv->nconns; i++)
        if (srv->conns[i] == c) {
            srv->conns[i] = srv->conns[--srv->nconns];
            break;
        }
    close(c->fd);
    if (srv->nended == srv->capended) {
        srv->capended = srv->capended ? srv->capended * 2 : 16;
        srv->ended = cdch_xrealloc(srv->ended, srv->capended * sizeof *srv->ended);
    }
    srv->ended[srv->nended++] = pthread_self();
    srv->nthreads--;
    pthread_cond_broadcast(&srv->cv);
    pthread_mutex_unlock(&srv->mu); /* the thread is joined by the accept loop or cdch_server_stop */
    cdch_buf_free(&c->wbuf);
    free(c);
    return NULL;
}

/* Join the connection threads that have finished. */
static void reap(struct cdch_server *srv)
{
    pthread_mutex_lock(&srv->mu);
    size_t n = srv->nended;
    pthread_t *t = NULL;
    if (n) {
        t = cdch_xcalloc(n, sizeof *t);
        memcpy(t, srv->ended, n * sizeof *t);
        srv->nended = 0;
    }
    pthread_mutex_unlock(&srv->mu);
    for (size_t i = 0; i < n; i++)
        pthread_join(t[i], NULL);
    free(t);
}

static void *accept_thread(void *arg)
{
    struct cdch_server *srv = arg;
    for (;;) {
        reap(srv);
        struct sockaddr_storage ss;
        socklen_t sl = sizeof ss;
        /* atomically close-on-exec: another cell's adapter forked between an accept and an
         * fcntl would hold this connection open after close(), and the client would never
         * see the cut (matrix -j N under load: BinaryLogClient pinging a dead dump for 80 s) */
        int fd = accept4(srv->listen_fd, (struct sockaddr *)&ss, &sl, SOCK_CLOEXEC);
        if (srv_stopping(srv)) {
            if (fd >= 0)
                close(fd);
            break;
        }
        if (fd < 0) {
            if (errno == EINTR || errno == ECONNABORTED)
                continue;
            if (errno == EMFILE || errno == ENFILE || errno == ENOBUFS || errno == ENOMEM) {
                fprintf(stderr, "cdcharness serve: accept: %s (retrying)\n", strerror(errno));
                struct timespec ts = {0, 50 * 1000 * 1000};
                nanosleep(&ts, NULL);
                continue;
            }
            if (!srv_stopping(srv))
                fprintf(stderr, "cdcharness serve: accept failed: %s; no more connections\n", strerror(errno));
            break;
        }
        int one = 1;
        setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
        srv_conn *c = cdch_xcalloc(1, sizeof *c);
        c->srv = srv;
        c->fd = fd;
        c->status = SERVER_STATUS_AUTOCOMMIT;
        c->client.local = ss; /* the client's own address is our peer's */
        socklen_t ll = sizeof c->client.remote;
        if (getsockname(fd, (struct sockaddr *)&c->client.remote, &ll) != 0)
            c->client.remote.ss_family = AF_UNSPEC; /* cdch_server_bytes_in_flight then says unknown */
        char host[INET6_ADDRSTRLEN] = "unknown";
        if (ss.ss_family == AF_INET)
            inet_ntop(AF_INET, &((struct sockaddr_in *)&ss)->sin_addr, host, sizeof host);
        else if (ss.ss_family == AF_INET6)
            inet_ntop(AF_INET6, &((struct sockaddr_in6 *)&ss)->sin6_addr, host, sizeof host);
        snprintf(c->peer, sizeof c->peer, "%s", host);
        pthread_mutex_lock(&srv->mu);
        c->id = ++srv->next_conn_id;
        if (srv->nconns == srv->capconns) {
            srv->capconns = srv->capconns ? srv->capconns * 2 : 16;
            srv->conns = cdch_xrealloc(srv->conns, srv->capconns * sizeof *srv->conns);
        }
        srv->conns[srv->nconns++] = c;
        srv->nthreads++;
        pthread_mutex_unlock(&srv->mu);
        srv_stat_add(srv, SRV_STAT_CONNECTIONS, 1);
        if (srv->opts.log_queries)
            fprintf(stderr, "cdcharness serve: connection %u from %s\n", c->id, c->peer);
        pthread_t th;
        int e = pthread_create(&th, NULL, conn_thread, c);
        if (e != 0) {
            fprintf(stderr, "cdcharness serve: cannot start a connection thread: %s\n", strerror(e));
            pthread_mutex_lock(&srv->mu);
            srv->conns[--srv->nconns] = NULL;
            srv->nthreads--;
            pthread_mutex_unlock(&srv->mu);
            close(fd);
            free(c);
        }
    }
    return NULL;
}

/* ---- lifecycle ---------------------------------------------------------------------------- */

static int listen_on(cdch_server *srv, cdch_err *err)
{
    char port[16];
    snprintf(port, sizeof port, "%u", srv->opts.port);
    struct addrinfo hints = {0}, *ai = NULL;
    hints.ai_family = AF_UNSPEC;
    hints.ai_socktype = SOCK_STREAM;
    hints.ai_flags = AI_PASSIVE | AI_NUMERICSERV;
    int e = getaddrinfo(srv->opts.bind, port, &hints, &ai);
    if (e != 0)
        return cdch_err_set(err, "cannot resolve --bind address '%s': %s", srv->opts.bind, gai_strerror(e));
    int last = 0;
    for (struct addrinfo *a = ai; a; a = a->ai_next) {
        int fd = socket(a->ai_family, a->ai_socktype | SOCK_CLOEXEC, a->ai_protocol);
        if (fd < 0) {
            last = errno;
            continue;
        }
        int one = 1;
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
        if (bind(fd, a->ai_addr, a->ai_addrlen) != 0 || listen(fd, 128) != 0) {
            last = errno;
            close(fd);
            continue;
        }
        struct sockaddr_storage ss;
        socklen_t sl = sizeof ss;
        getsockname(fd, (struct sockaddr *)&ss, &sl);
        srv->port = ntohs(ss.ss_family == AF_INET6 ? ((struct sockaddr_in6 *)&ss)->sin6_port
                                                   : ((struct sockaddr_in *)&ss)->sin_port);
        srv->listen_fd = fd;
        freeaddrinfo(ai);
        return 0;
    }
    freeaddrinfo(ai);
    return cdch_err_set(err, "cannot listen on %s:%u: %s%s", srv->opts.bind, srv->opts.port, strerror(last),
                        last == EADDRINUSE ? " (use --port 0 for a free port)" : "");
}

cdch_server *cdch_server_new(const cdch_scenario *s, const char *stream_dir, const cdch_server_opts *o, cdch_err *err)
{
    static const cdch_server_opts defaults = {0};
    if (!o)
        o = &defaults;
    if (o->user && srv_utf8_chars(o->user, strlen(o->user)) > SRV_USER_CHARS) {
        cdch_err_set(err, "the account name '%s' is longer than MySQL's %d characters (server_internal.h)", o->user,
                     SRV_USER_CHARS);
        return NULL;
    }
    signal(SIGPIPE, SIG_IGN);
    cdch_server *srv = cdch_xcalloc(1, sizeof *srv);
    srv->listen_fd = -1;
    srv->s = s;
    srv->opts = *o;
    srv->opts.bind = dup_or(o->bind, "127.0.0.1");
    srv->opts.user = dup_or(o->user, "cdch");
    srv->opts.password = dup_or(o->password, "cdch");
    srv->opts.version_string = dup_or(o->version_string, s->server.version);
    srv->opts.tls_cert = o->tls_cert ? dup_or(o->tls_cert, "") : NULL;
    srv->opts.tls_key = o->tls_key ? dup_or(o->tls_key, "") : NULL;
    /* faults the scenario asks for, unless the caller set that fault itself */
    cdch_server_faults *f = &srv->opts.faults;
    const cdch_sc_faults *sf = &s->faults;
    if (!f->drop_after_events) f->drop_after_events = sf->drop_after_events;
    if (!f->drop_after_bytes) f->drop_after_bytes = sf->drop_after_bytes;
    if (!f->corrupt_checksum_at) f->corrupt_checksum_at = sf->corrupt_checksum_at;
    if (!f->truncate_event_at) f->truncate_event_at = sf->truncate_event_at;
    if (!f->unknown_event_at) f->unknown_event_at = sf->unknown_event_at;
    if (!f->stall_at) f->stall_at = sf->stall_at;
    f->once = f->once || sf->once;
    srv->version = srv->opts.version_string;
    /* An account cannot use a plugin the server has not loaded: on a default 8.4 server (and on any
     * 9.x) a replication account is a caching_sha2_password one whatever the consumer would like,
     * so a client that speaks only mysql_native_password fails to log in, as against real MySQL. */
    if (srv->opts.auth == CDCH_AUTH_NATIVE && !srv_native_password_loaded(srv)) {
        srv->opts.auth = CDCH_AUTH_CACHING_SHA2;
        srv->native_refused = true;
        if (srv->opts.log_queries)
            fprintf(stderr,
                    "cdcharness serve: mysql_native_password is not loaded on this %s server (%s): the account "
                    "uses caching_sha2_password\n",
                    srv->version,
                    cdch_version_product(srv->version) >= 90000 ? "removed in MySQL 9.0.0"
                                                                : "8.4's default; scenario server.mysql_native_password: on "
                                                                  "enables it, as --mysql-native-password=ON does");
    }
    srv->stream_dir = dup_or(stream_dir, ".");
    srv->next_conn_id = 7; /* first connection id 8, as on a freshly started MySQL */
    srv->start_time = (int64_t)time(NULL);
    pthread_mutex_init(&srv->mu, NULL);
    pthread_cond_init(&srv->cv, NULL);
    if (!(srv->cat = srv_catalog_load(s, srv->stream_dir, err)) || srv_tls_init(srv, err) != 0 ||
        listen_on(srv, err) != 0) {
        cdch_server_free(srv);
        return NULL;
    }
    return srv;
}

int cdch_server_start(cdch_server *srv, cdch_err *err)
{
    if (srv->started)
        return 0;
    int e = pthread_create(&srv->accept_thread, NULL, accept_thread, srv);
    if (e != 0)
        return cdch_err_set(err, "cannot start the accept thread: %s", strerror(e));
    srv->started = true;
    return 0;
}

void cdch_server_stop(cdch_server *srv)
{
    if (!srv)
        return;
    __atomic_store_n(&srv->stopping, 1, __ATOMIC_RELEASE);
    if (srv->listen_fd >= 0)
        shutdown(srv->listen_fd, SHUT_RDWR);
    if (srv->started) {
        pthread_join(srv->accept_thread, NULL);
        srv->started = false;
    }
    if (srv->listen_fd >= 0) {
        close(srv->listen_fd);
        srv->listen_fd = -1;
    }
    pthread_mutex_lock(&srv->mu);
    for (size_t i = 0; i < srv->nconns; i++)
        shutdown(srv->conns[i]->fd, SHUT_RDWR);
    while (srv->nthreads > 0)
        pthread_cond_wait(&srv->cv, &srv->mu);
    pthread_mutex_unlock(&srv->mu);
    reap(srv); /* every connection thread has exited when this returns */
}

void cdch_server_free(cdch_server *srv)
{
    if (!srv)
        return;
    cdch_server_stop(srv);
    srv_catalog_free(srv->cat);
    srv_tls_free(srv);
    free((char *)srv->opts.bind);
    free((char *)srv->opts.user);
    free((char *)srv->opts.password);
    free((char *)srv->opts.version_string);
    free((char *)srv->opts.tls_cert);
    free((char *)srv->opts.tls_key);
    free(srv->stream_dir);
    free(srv->conns);
    free(srv->ended);
    pthread_mutex_destroy(&srv->mu);
    pthread_cond_destroy(&srv->cv);
    free(srv);
}
