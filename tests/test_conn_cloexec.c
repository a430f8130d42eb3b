/* test_conn_cloexec.c — a connection the fake primary closes reaches its
 * client even when the harness started another process meanwhile.
 *
 * The primary runs inside the harness (cdch_primary_start), which forks
 * adapters for other cells (cdch_proc_spawn) while this cell's connections
 * are open. A server-side socket without close-on-exec is inherited by such
 * an adapter, and then the server's close() sends nothing: the client never
 * sees the cut (a BinaryLogClient keeps pinging a dead dump until the other
 * adapter exits; `matrix -j 6` under load ended restart cells `no-resume`).
 *
 * The test connects, reads the greeting (the server has accepted), spawns a
 * long-lived child the way the runner spawns adapters, then half-closes the
 * client: the server ends the session and closes. The client must read EOF,
 * and the child must hold no socket at all.
 */
#include <dirent.h>
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include "primary.h"
#include "proc.h"
#include "scenario.h"
#include "stream.h"
#include "testutil.h"

#define SCENARIO CDCH_SOURCE_DIR "/tests/data/server.yaml"

/* Sockets among the open descriptors of process pid (-1: /proc unreadable). */
static int sockets_of(pid_t pid)
{
    char path[64];
    snprintf(path, sizeof path, "/proc/%ld/fd", (long)pid);
    DIR *d = opendir(path);
    if (!d)
        return -1;
    int n = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        if (e->d_name[0] == '.')
            continue;
        char link[PATH_MAX], target[256];
        snprintf(link, sizeof link, "%s/%s", path, e->d_name);
        ssize_t k = readlink(link, target, sizeof target - 1);
        if (k > 0) {
            target[k] = '\0';
            if (strncmp(target, "socket:", 7) == 0)
                n++;
        }
    }
    closedir(d);
    return n;
}

/* Read from fd until EOF or wait_ms pass; returns 1 at EOF, 0 on timeout, -1 on an error
 * other than a reset (a reset also ends the connection: 1). */
static int read_to_eof(int fd, int wait_ms)
{
    for (int waited = 0; waited < wait_ms; waited += 100) {
        struct pollfd p = {fd, POLLIN, 0};
        if (poll(&p, 1, 100) <= 0)
            continue;
        char buf[4096];
        ssize_t k = recv(fd, buf, sizeof buf, 0);
        if (k == 0 || (k < 0 && errno == ECONNRESET))
            return 1;
        if (k < 0 && errno != EINTR && errno != EAGAIN)
            return -1;
    }
    return 0;
}

START_TEST(test_close_reaches_client_despite_spawn)
{
    cdch_err err;
    tu_stream ts;
    tu_stream_make(&ts, SCENARIO);
    cdch_primary *prim = cdch_primary_start(ts.s, ts.sdir, true, &err);
    ck_assert_msg(prim != NULL, "%s", err.msg);

    int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    ck_assert_int_ge(fd, 0);
    struct sockaddr_in a = {0};
    a.sin_family = AF_INET;
    a.sin_port = htons(cdch_primary_port(prim));
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    ck_assert_int_eq(connect(fd, (struct sockaddr *)&a, sizeof a), 0);
    /* the greeting: the server has accepted, its socket for us exists */
    struct pollfd p = {fd, POLLIN, 0};
    ck_assert_msg(poll(&p, 1, 20000) == 1, "no greeting from the fake primary within 20 s");
    char greet[512];
    ck_assert_int_gt(recv(fd, greet, sizeof greet, 0), 4);

    char *argv[] = {"sleep", "60", NULL};
    cdch_proc_opts po = {argv, NULL, NULL, NULL, false};
    cdch_proc *child = cdch_proc_spawn(&po, &err);
    ck_assert_msg(child != NULL, "%s", err.msg);
    int held = sockets_of(cdch_proc_pid(child));

    /* no handshake response: the server ends the session and closes its socket */
    ck_assert_int_eq(shutdown(fd, SHUT_WR), 0);
    int eof = read_to_eof(fd, 20000);

    cdch_proc_stop(child, 500, NULL, NULL);
    cdch_proc_free(child);
    close(fd);
    cdch_primary_stop(prim);
    tu_stream_free(&ts);

    ck_assert_msg(held == 0, "a process the harness spawned holds %d socket(s) of the harness (want 0: close-on-exec)",
                  held);
    ck_assert_msg(eof == 1, "the fake primary closed the connection but the client saw no EOF within 20 s (%d)", eof);
}
END_TEST

static Suite *cloexec_suite(void)
{
    Suite *s = suite_create("conn_cloexec");
    TCase *tc = tcase_create("core");
    tcase_set_timeout(tc, 90);
    tcase_add_test(tc, test_close_reaches_client_despite_spawn);
    suite_add_tcase(s, tc);
    return s;
}

int main(void) { return tu_run(cloexec_suite()); }
