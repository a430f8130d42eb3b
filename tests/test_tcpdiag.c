/* test_tcpdiag.c — the bytes-in-flight signal asked per connection
 * (NETLINK_SOCK_DIAG exact lookups, SIOCOUTQ) equals what /proc/net/tcp
 * says, for IPv4 clients, dual-stack IPv6 clients (Java's sockets) and the
 * fake primary's own connections; an unknown socket is ENOENT, not 0.
 */
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include "activity.h"
#include "primary.h"
#include "scenario.h"
#include "stream.h"
#include "tcpdiag.h"
#include "testutil.h"

#define SCENARIO CDCH_SOURCE_DIR "/tests/data/server.yaml"

/* A listening socket on 127.0.0.1, its port in *port. */
static int listen_local(uint16_t *port)
{
    int l = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    ck_assert_int_ge(l, 0);
    struct sockaddr_in a = {0};
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    ck_assert_int_eq(bind(l, (struct sockaddr *)&a, sizeof a), 0);
    ck_assert_int_eq(listen(l, 4), 0);
    socklen_t al = sizeof a;
    ck_assert_int_eq(getsockname(l, (struct sockaddr *)&a, &al), 0);
    *port = ntohs(a.sin_port);
    return l;
}

/* A client of 127.0.0.1:port: AF_INET, or a dual-stack AF_INET6 socket to ::ffff:127.0.0.1. */
static int connect_local(uint16_t port, bool v6)
{
    int fd = socket(v6 ? AF_INET6 : AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    ck_assert_int_ge(fd, 0);
    if (v6) {
        struct sockaddr_in6 a = {0};
        a.sin6_family = AF_INET6;
        a.sin6_port = htons(port);
        ck_assert_int_eq(inet_pton(AF_INET6, "::ffff:127.0.0.1", &a.sin6_addr), 1);
        ck_assert_int_eq(connect(fd, (struct sockaddr *)&a, sizeof a), 0);
    } else {
        struct sockaddr_in a = {0};
        a.sin_family = AF_INET;
        a.sin_port = htons(port);
        a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
        ck_assert_int_eq(connect(fd, (struct sockaddr *)&a, sizeof a), 0);
    }
    return fd;
}

/* The client's socket as the server names it: local = the server's peer, remote = the server's own. */
static cdch_tcp_tuple tuple_of_server_conn(int server_fd)
{
    cdch_tcp_tuple t;
    memset(&t, 0, sizeof t);
    socklen_t l = sizeof t.local;
    ck_assert_int_eq(getpeername(server_fd, (struct sockaddr *)&t.local, &l), 0);
    l = sizeof t.remote;
    ck_assert_int_eq(getsockname(server_fd, (struct sockaddr *)&t.remote, &l), 0);
    return t;
}

static void send_all(int fd, size_t n)
{
    char buf[1000];
    memset(buf, 'x', sizeof buf);
    while (n > 0) {
        size_t k = n < sizeof buf ? n : sizeof buf;
        ck_assert_int_eq(send(fd, buf, k, 0), (ssize_t)k);
        n -= k;
    }
}

/* Loopback delivery is synchronous, but the ACK that empties the sender's queue may trail:
 * wait (bounded) until the sender's queue is empty. */
static void wait_acked(int fd)
{
    for (int i = 0; i < 200 && cdch_tcp_sendq(fd) != 0; i++)
        usleep(10000);
    ck_assert_uint_eq(cdch_tcp_sendq(fd), 0);
}

static void rqueue_case(bool v6)
{
    uint16_t port;
    int l = listen_local(&port);
    int c = connect_local(port, v6);
    int s = accept(l, NULL, NULL);
    ck_assert_int_ge(s, 0);
    cdch_tcp_tuple t = tuple_of_server_conn(s);
    ck_assert_int_eq(t.local.ss_family, AF_INET); /* the server sees an IPv4 peer either way */

    uint64_t rq = 99;
    ck_assert_int_eq(cdch_tcpdiag_rqueues(&t, 1, &rq), 0);
    ck_assert_uint_eq(rq, 0);

    send_all(s, 5000);
    wait_acked(s);
    ck_assert_int_eq(cdch_tcpdiag_rqueues(&t, 1, &rq), 0);
    ck_assert_uint_eq(rq, 5000);
    ck_assert_uint_eq(cdch_activity_tcp_pending(port), 5000); /* /proc/net/tcp agrees */

    char buf[2000];
    size_t got = 0;
    while (got < sizeof buf) {
        ssize_t k = recv(c, buf, sizeof buf - got, 0);
        ck_assert_int_gt(k, 0);
        got += (size_t)k;
    }
    ck_assert_int_eq(cdch_tcpdiag_rqueues(&t, 1, &rq), 0);
    ck_assert_uint_eq(rq, 3000);

    close(c);
    close(s);
    close(l);
}

START_TEST(test_rqueue_ipv4_client) { rqueue_case(false); }
END_TEST

START_TEST(test_rqueue_dual_stack_client) { rqueue_case(true); }
END_TEST

START_TEST(test_unknown_socket_is_enoent)
{
    uint16_t port;
    int l = listen_local(&port);
    int c = connect_local(port, false);
    int s = accept(l, NULL, NULL);
    cdch_tcp_tuple t = tuple_of_server_conn(s);
    close(c);
    close(s);
    close(l);
    /* a closed client socket is gone (or in TIME_WAIT: not a full socket) once both ends closed */
    ((struct sockaddr_in *)&t.local)->sin_port = htons(1); /* no socket has local port 1 here */
    uint64_t rq = 0;
    errno = 0;
    ck_assert_int_eq(cdch_tcpdiag_rqueues(&t, 1, &rq), -1);
    ck_assert_int_eq(errno, ENOENT);
}
END_TEST

START_TEST(test_sendq_of_a_non_socket)
{
    int p[2];
    ck_assert_int_eq(pipe(p), 0);
    ck_assert_uint_eq(cdch_tcp_sendq(p[0]), UINT64_MAX);
    close(p[0]);
    close(p[1]);
}
END_TEST

/* The fake primary's greeting, unread by its client: the primary's count is its length, as
 * /proc/net/tcp says; read, both say 0. */
START_TEST(test_primary_bytes_in_flight)
{
    cdch_err err;
    tu_stream ts;
    tu_stream_make(&ts, SCENARIO);
    cdch_primary *prim = cdch_primary_start(ts.s, ts.sdir, true, &err);
    ck_assert_msg(prim != NULL, "%s", err.msg);
    ck_assert_uint_eq(cdch_primary_bytes_in_flight(prim), 0);

    int fd = connect_local(cdch_primary_port(prim), true);
    struct pollfd p = {fd, POLLIN, 0};
    ck_assert_msg(poll(&p, 1, 20000) == 1, "no greeting from the fake primary within 20 s");
    int avail = 0;
    for (int i = 0; i < 200; i++) { /* the greeting is one packet; wait until it is whole */
        usleep(10000);
        uint64_t n = cdch_primary_bytes_in_flight(prim);
        if (n == cdch_activity_tcp_pending(cdch_primary_port(prim)) && n > 4) {
            avail = (int)n;
            break;
        }
    }
    ck_assert_int_gt(avail, 4);
    char greet[1024];
    ssize_t k = recv(fd, greet, sizeof greet, 0);
    ck_assert_int_eq(k, avail); /* what the count said is what was there to read */
    ck_assert_uint_eq(cdch_primary_bytes_in_flight(prim), 0);

    close(fd);
    cdch_primary_stop(prim);
    tu_stream_free(&ts);
}
END_TEST

static Suite *tcpdiag_suite(void)
{
    Suite *s = suite_create("tcpdiag");
    TCase *tc = tcase_create("core");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, test_rqueue_ipv4_client);
    tcase_add_test(tc, test_rqueue_dual_stack_client);
    tcase_add_test(tc, test_unknown_socket_is_enoent);
    tcase_add_test(tc, test_sendq_of_a_non_socket);
    tcase_add_test(tc, test_primary_bytes_in_flight);
    suite_add_tcase(s, tc);
    return s;
}

int main(void) { return tu_run(tcpdiag_suite()); }
