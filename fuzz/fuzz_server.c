/* fuzz_server.c — libFuzzer target for the fake primary's connection state
 * machine: every parser a MySQL client reaches.
 *
 * The input is the byte stream a client sends, framing included (3-byte
 * length + sequence id per packet): the HandshakeResponse41 (or an
 * SSLRequest), then command packets — COM_QUERY (the SQL splitter, the
 * lexer, the expression evaluator and the query pattern table),
 * COM_STMT_PREPARE / EXECUTE / SEND_LONG_DATA / FETCH / RESET / CLOSE,
 * COM_REGISTER_SLAVE, COM_BINLOG_DUMP and COM_BINLOG_DUMP_GTID, COM_INIT_DB,
 * COM_FIELD_LIST, ... The session runs exactly as for an accepted TCP
 * connection (srv_conn_session, server_internal.h) over one end of a
 * socketpair; this side writes the input into the other end, reads and
 * discards what the server answers, and half-closes after the input.
 *
 * The server is created once: tests/data/server.yaml's stream (compressed)
 * generated in a temporary directory (removed at exit), user "cdch" with
 * an empty password under mysql_native_password, so a recorded client
 * session (an empty auth response) logs in whatever the scramble. Seeds:
 * fuzz/seeds/fuzz_server (recorded real clients and synthetic sessions,
 * see fuzz/README.md).
 *
 * A blocking binlog dump never reads again (as MySQL's dump thread): when
 * the input has more bytes after the dump command, the server streams and
 * waits for new events until the client is gone; this side closes its end
 * when the server has been quiet for a moment after the input ended (5 ms
 * in a dump, 200 ms otherwise) or after 2 s in all, so no input hangs.
 * Any crash, sanitizer report, leak or abort is a bug; so is a session
 * that does not end once its client is gone (libFuzzer's -timeout).
 */
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "err.h"
#include "scenario.h"
#include "server.h"
#include "server_internal.h"
#include "stream.h"
#include "sys.h"
#include "xalloc.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerInitialize(int *argc, char ***argv);

static cdch_scenario *g_scenario;
static cdch_server *g_srv;
static char g_tmp[64];

static void cleanup(void)
{
    cdch_server_free(g_srv);
    cdch_scenario_free(g_scenario);
    if (g_tmp[0])
        cdch_stream_rm_tree(g_tmp);
}

static void die(const char *what, const cdch_err *err)
{
    fprintf(stderr, "fuzz_server: %s: %s\n", what, err ? err->msg : strerror(errno));
    exit(2);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    cdch_err err;
    if (!(g_scenario = cdch_scenario_load(CDCH_SOURCE_DIR "/tests/data/server.yaml", &err)))
        die("loading the scenario", &err);
    snprintf(g_tmp, sizeof g_tmp, "/tmp/cdch-fuzz-server-XXXXXX");
    if (!mkdtemp(g_tmp))
        die("mkdtemp", NULL);
    atexit(cleanup);
    char dir[128];
    snprintf(dir, sizeof dir, "%s/stream", g_tmp);
    if (cdch_stream_generate(g_scenario, CDCH_STREAM_COMPRESSED, dir, NULL, &err) != 0)
        die("generating the stream", &err);
    cdch_server_opts o = {.bind = "127.0.0.1", .user = "cdch", .password = "", .auth = CDCH_AUTH_NATIVE};
    if (!(g_srv = cdch_server_new(g_scenario, dir, &o, &err)))
        die("creating the server", &err);
    return 0;
}

static void *session(void *arg)
{
    srv_conn *c = arg;
    srv_conn_session(c);
    shutdown(c->fd, SHUT_RDWR); /* the client side reads EOF */
    return NULL;
}

static uint64_t ms_since(uint64_t t0) { return (cdch_now_ns() - t0) / 1000000u; }

/* Feed the input, drain the answers; returns when the server side closed. */
static void exchange(int fd, const srv_conn *c, const uint8_t *data, size_t size)
{
    static uint8_t sink[65536];
    size_t off = 0;
    bool half_closed = false, closed = false;
    uint64_t ended = 0, last_out = 0;
    for (;;) {
        if (!half_closed && off == size) {
            shutdown(fd, SHUT_WR);
            half_closed = true;
            ended = last_out = cdch_now_ns();
        }
        struct pollfd p = {fd, (short)(POLLIN | (half_closed ? 0 : POLLOUT)), 0};
        int r = poll(&p, 1, 5);
        if (r < 0 && errno != EINTR)
            break;
        if (p.revents & POLLOUT) {
            ssize_t k = send(fd, data + off, size - off, MSG_NOSIGNAL | MSG_DONTWAIT);
            if (k > 0)
                off += (size_t)k;
            else if (k < 0 && errno != EAGAIN && errno != EINTR)
                off = size; /* the server is gone: nothing more to feed */
        }
        if (p.revents & (POLLIN | POLLHUP | POLLERR)) {
            ssize_t k = recv(fd, sink, sizeof sink, MSG_DONTWAIT);
            if (k == 0 || (k < 0 && errno != EAGAIN && errno != EINTR))
                break;
            if (k > 0)
                last_out = cdch_now_ns();
        }
        if (half_closed && !closed) {
            bool dumping = __atomic_load_n(&c->dumping, __ATOMIC_RELAXED);
            if (ms_since(last_out) >= (dumping ? 5u : 200u) || ms_since(ended) >= 2000) {
                shutdown(fd, SHUT_RDWR); /* the client goes away: the server's next write or wait ends it */
                closed = true;
            }
        }
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    int sv[2];
    if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) != 0)
        die("socketpair", NULL);
    srv_conn *c = cdch_xcalloc(1, sizeof *c);
    c->srv = g_srv;
    c->fd = sv[0];
    c->id = 8;
    c->status = SERVER_STATUS_AUTOCOMMIT;
    snprintf(c->peer, sizeof c->peer, "127.0.0.1");
    pthread_t th;
    if (pthread_create(&th, NULL, session, c) != 0)
        die("pthread_create", NULL);
    exchange(sv[1], c, data, size);
    shutdown(sv[1], SHUT_RDWR);
    pthread_join(th, NULL);
    close(sv[0]);
    close(sv[1]);
    cdch_buf_free(&c->wbuf);
    free(c);
    return 0;
}
