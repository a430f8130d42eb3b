/* tcpdiag.h — a TCP socket's queues by its address pair, from the kernel.
 *
 * The runner's "bytes in flight" signal (activity.h) needs the receive
 * queue of a consumer's socket, which lives in another process. Reading
 * /proc/net/tcp for it makes the kernel walk and format every socket of
 * the machine (milliseconds of kernel time per read, ten reads a second
 * per quiet cell). NETLINK_SOCK_DIAG answers the same question for one
 * socket by an exact hash lookup of its four-tuple: what `ss` uses.
 *
 * Owns: nothing (one netlink socket per call, closed before it returns).
 * Linux only; elsewhere every lookup fails with ENOSYS and callers fall
 * back to what they did before.
 */
#ifndef CDCH_TCPDIAG_H
#define CDCH_TCPDIAG_H

#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>

/* One TCP socket, named from its own side: its local and remote address. */
typedef struct cdch_tcp_tuple {
    struct sockaddr_storage local, remote;
} cdch_tcp_tuple;

/* For each of the n sockets, the bytes received and not yet read by its
 * owner (rqueue[i]; what /proc/net/tcp calls rx_queue). 0 on success; -1
 * with errno on failure (ENOENT: a socket of the list does not exist (any
 * more); ENOSYS: not Linux), rqueue then undefined. */
int cdch_tcpdiag_rqueues(const cdch_tcp_tuple *socks, size_t n, uint64_t *rqueue);

/* The bytes an own connected TCP socket has sent and the peer has not
 * acknowledged, or not sent yet (SIOCOUTQ; /proc/net/tcp's tx_queue), or
 * UINT64_MAX when it cannot be asked. */
uint64_t cdch_tcp_sendq(int fd);

#endif
