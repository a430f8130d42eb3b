/* server.h — the fake MySQL primary: serves a generated binlog stream over
 * the MySQL client/server and replication protocols to any CDC consumer.
 *
 * Owns: the cdch_server (listening socket, TLS context, one thread per
 * client connection, the loaded stream catalogue). The scenario passed to
 * cdch_server_new stays the caller's and must outlive the server.
 *
 * What a client sees: a MySQL server of the scenario's version (HandshakeV10
 * with that version string), accounts checked with mysql_native_password or
 * caching_sha2_password (TLS available), a query responder answering the
 * variable/status/catalogue queries connectors send (one pattern table in
 * query.c), and a binlog whose files are the stream in `stream_dir` (what
 * cdch_stream_generate wrote: stream.json + binlog files).
 */
#ifndef CDCH_SERVER_H
#define CDCH_SERVER_H

#include <stdbool.h>
#include <stdint.h>

#include "err.h"
#include "scenario.h"

typedef enum cdch_auth_plugin {
    CDCH_AUTH_CACHING_SHA2 = 0, /* MySQL 8 default */
    CDCH_AUTH_NATIVE,           /* mysql_native_password */
} cdch_auth_plugin;

/* Faults a test can ask the server to inject into binlog dumps. */
typedef struct cdch_server_faults {
    uint64_t drop_after_events;   /* close the connection after N events (0 = never) */
    uint64_t drop_after_bytes;    /* ... or after N bytes of events, mid-event if it falls there */
    uint64_t corrupt_checksum_at; /* flip a CRC bit in the Nth event (1-based, 0 = never) */
    uint64_t truncate_event_at;   /* send only half of the Nth event, then close */
    uint64_t unknown_event_at;    /* send an event of unknown type 199 before the Nth event */
    uint64_t stall_at;            /* stop sending (keep the connection open) before the Nth event */
    bool once;                    /* apply only to the first dump connection */
    bool hold_cut;                /* drop_after_* / truncate_event_at: send every complete event before the cut,
                                   * then hold the connection until cdch_server_release_cut (the caller decides
                                   * when the consumer has had its chance to act on what it received) */
    const char *hold_before_file; /* with hold_before_pos: a dump that reaches the event starting at
                                   * hold_before_file:hold_before_pos (the harness's end marker) sends everything
                                   * before it, then waits until cdch_server_release_mark; NULL = never.
                                   * A held dump sends what an idle source sends: a heartbeat each
                                   * @source_heartbeat_period the replica set (dump.c hold_tick) */
    uint64_t hold_before_pos;
} cdch_server_faults;

typedef struct cdch_server_opts {
    const char *bind;             /* default "127.0.0.1" */
    uint16_t port;                /* 0 = pick a free port (see cdch_server_port) */
    const char *user;             /* default "cdch" */
    const char *password;         /* default "cdch" */
    cdch_auth_plugin auth;        /* plugin announced in the handshake */
    const char *version_string;   /* default: the scenario's server version */
    const char *tls_cert;         /* PEM files; NULL: a self-signed certificate is generated */
    const char *tls_key;
    bool log_queries;             /* print every query a client sends to stderr */
    uint32_t connect_timeout_s;   /* wait for each handshake packet (MySQL's connect_timeout); 0 = 10 s */
    uint64_t link_rate_bps;       /* shape what the server sends (bits/s, 0 = unlimited) */
    uint32_t link_delay_ms;       /* added one-way delay */
    cdch_server_faults faults;
} cdch_server_opts;

typedef struct cdch_server cdch_server;

/* Create a server for a scenario whose stream was generated in stream_dir.
 * Binds and listens (so the port is known) but serves nothing until
 * cdch_server_start. */
cdch_server *cdch_server_new(const cdch_scenario *s, const char *stream_dir, const cdch_server_opts *o,
                             cdch_err *err);
uint16_t cdch_server_port(const cdch_server *srv);
/* Bytes in flight on the server's connections: what each has sent and the
 * client has not acknowledged (SIOCOUTQ) plus what each client has
 * received and not read (its socket's receive queue, by an exact
 * NETLINK_SOCK_DIAG lookup). UINT64_MAX when the kernel cannot say (a
 * connection closing meanwhile, no sock_diag): ask /proc/net/tcp then
 * (activity.h), which walks every socket of the machine. */
uint64_t cdch_server_bytes_in_flight(cdch_server *srv);
/* Start the accept loop in a background thread. */
int cdch_server_start(cdch_server *srv, cdch_err *err);
/* Stop accepting, close every connection, join all threads. */
void cdch_server_stop(cdch_server *srv);
void cdch_server_free(cdch_server *srv); /* stops it first; accepts NULL */

/* Counters (thread-safe snapshot). */
typedef struct cdch_server_stats {
    uint64_t connections;
    uint64_t queries;
    uint64_t unknown_queries;
    uint64_t dumps;
    uint64_t events_sent;
    uint64_t bytes_sent;        /* replication payload bytes */
    uint64_t fault_cuts;        /* dump connections the server closed on purpose (drop/truncate faults) */
    uint64_t active_dumps;      /* dump connections streaming now */
} cdch_server_stats;
void cdch_server_get_stats(cdch_server *srv, cdch_server_stats *out);

/* Where the last fault cut fell: the file and the end of the last complete
 * event sent before it (an event cut short does not count). False when no
 * fault has cut a connection. file gets at most filesz - 1 bytes. */
bool cdch_server_last_cut(cdch_server *srv, char *file, size_t filesz, uint64_t *pos);

/* faults.hold_cut: whether a dump is held at its cut now (file:pos ends the
 * last complete event it sent), and the release that lets it cut. */
bool cdch_server_cut_held(cdch_server *srv, char *file, size_t filesz, uint64_t *pos);
void cdch_server_release_cut(cdch_server *srv);

/* faults.hold_before_*: whether a dump waits before the marked event now,
 * and the release that lets every dump pass it from then on. */
bool cdch_server_mark_held(cdch_server *srv);
void cdch_server_release_mark(cdch_server *srv);

#endif
