/* tcpdiag.c — see tcpdiag.h. */
#include "tcpdiag.h"

#include <errno.h>
#include <string.h>
#include <unistd.h>

#if defined(__linux__)
#include <linux/inet_diag.h>
#include <linux/netlink.h>
#include <linux/sock_diag.h>
#include <linux/sockios.h>
#include <netinet/in.h>
#include <sys/ioctl.h>

uint64_t cdch_tcp_sendq(int fd)
{
    int n = 0;
    if (ioctl(fd, SIOCOUTQ, &n) != 0 || n < 0)
        return UINT64_MAX;
    return (uint64_t)n;
}

/* The request's address fields from one sockaddr (network byte order, as
 * the kernel keeps them); an IPv4 address in an AF_INET request. */
static int put_addr(const struct sockaddr_storage *ss, int family, __be16 *port, __be32 addr[4])
{
    memset(addr, 0, 4 * sizeof addr[0]);
    if (ss->ss_family == AF_INET) {
        const struct sockaddr_in *a = (const struct sockaddr_in *)ss;
        *port = a->sin_port;
        if (family == AF_INET) {
            addr[0] = a->sin_addr.s_addr;
        } else { /* ::ffff:a.b.c.d */
            addr[2] = htonl(0xFFFF);
            addr[3] = a->sin_addr.s_addr;
        }
        return 0;
    }
    if (ss->ss_family == AF_INET6 && family == AF_INET6) {
        const struct sockaddr_in6 *a = (const struct sockaddr_in6 *)ss;
        *port = a->sin6_port;
        memcpy(addr, &a->sin6_addr, 16);
        return 0;
    }
    errno = EAFNOSUPPORT;
    return -1;
}

/* One exact lookup (no NLM_F_DUMP: the kernel finds the socket by its
 * four-tuple in its hash, inet_diag_find_one_icsk). 1 found, 0 no such
 * socket, -1 error. */
static int lookup(int nl, const cdch_tcp_tuple *t, int family, uint32_t seq, uint64_t *rq)
{
    struct {
        struct nlmsghdr nlh;
        struct inet_diag_req_v2 r;
    } req;
    memset(&req, 0, sizeof req);
    req.nlh.nlmsg_len = sizeof req;
    req.nlh.nlmsg_type = SOCK_DIAG_BY_FAMILY;
    req.nlh.nlmsg_flags = NLM_F_REQUEST;
    req.nlh.nlmsg_seq = seq;
    req.r.sdiag_family = (uint8_t)family;
    req.r.sdiag_protocol = IPPROTO_TCP;
    req.r.idiag_states = ~0u;
    if (put_addr(&t->local, family, &req.r.id.idiag_sport, req.r.id.idiag_src) != 0 ||
        put_addr(&t->remote, family, &req.r.id.idiag_dport, req.r.id.idiag_dst) != 0)
        return -1;
    req.r.id.idiag_cookie[0] = req.r.id.idiag_cookie[1] = INET_DIAG_NOCOOKIE;
    struct sockaddr_nl kernel = {.nl_family = AF_NETLINK};
    if (sendto(nl, &req, sizeof req, 0, (struct sockaddr *)&kernel, sizeof kernel) != (ssize_t)sizeof req)
        return -1;
    for (;;) {
        long buf[1024]; /* aligned for nlmsghdr */
        ssize_t n = recv(nl, buf, sizeof buf, 0);
        if (n < 0) {
            if (errno == EINTR)
                continue;
            return -1;
        }
        for (struct nlmsghdr *h = (struct nlmsghdr *)buf; NLMSG_OK(h, (size_t)n); h = NLMSG_NEXT(h, n)) {
            if (h->nlmsg_seq != seq)
                continue; /* an answer to an earlier request (not expected: each is read whole) */
            if (h->nlmsg_type == NLMSG_ERROR) {
                const struct nlmsgerr *e = NLMSG_DATA(h);
                if (e->error == -ENOENT)
                    return 0;
                errno = e->error ? -e->error : EPROTO;
                return -1;
            }
            if (h->nlmsg_type == SOCK_DIAG_BY_FAMILY && h->nlmsg_len >= NLMSG_LENGTH(sizeof(struct inet_diag_msg))) {
                const struct inet_diag_msg *m = NLMSG_DATA(h);
                *rq = m->idiag_rqueue;
                return 1;
            }
        }
    }
}

int cdch_tcpdiag_rqueues(const cdch_tcp_tuple *socks, size_t n, uint64_t *rqueue)
{
    if (n == 0)
        return 0;
    int nl = socket(AF_NETLINK, SOCK_DGRAM | SOCK_CLOEXEC, NETLINK_SOCK_DIAG);
    if (nl < 0)
        return -1;
    int rc = 0;
    for (size_t i = 0; i < n && rc == 0; i++) {
        /* An IPv4 connection may belong to a dual-stack IPv6 socket on the
         * consumer's side (Java's): asked as AF_INET first, then mapped. */
        int f = lookup(nl, &socks[i], AF_INET6 == socks[i].local.ss_family ? AF_INET6 : AF_INET,
                       (uint32_t)(2 * i + 1), &rqueue[i]);
        if (f == 0 && socks[i].local.ss_family == AF_INET)
            f = lookup(nl, &socks[i], AF_INET6, (uint32_t)(2 * i + 2), &rqueue[i]);
        if (f <= 0) {
            if (f == 0)
                errno = ENOENT;
            rc = -1;
        }
    }
    int saved = errno;
    close(nl);
    errno = saved;
    return rc;
}

#else

uint64_t cdch_tcp_sendq(int fd)
{
    (void)fd;
    return UINT64_MAX;
}

int cdch_tcpdiag_rqueues(const cdch_tcp_tuple *socks, size_t n, uint64_t *rqueue)
{
    (void)socks;
    (void)rqueue;
    if (n == 0)
        return 0;
    errno = ENOSYS;
    return -1;
}

#endif
