/* primary.h — the fake MySQL primary for one run cell: the in-process
 * server of harness/server (server.h) on a free loopback port, serving one
 * generated stream.
 *
 * Owns: the cdch_primary and the cdch_server inside it. The scenario and the
 * stream directory are the caller's and must outlive it.
 */
#ifndef CDCH_PRIMARY_H
#define CDCH_PRIMARY_H

#include <stdbool.h>
#include <stdint.h>

#include "err.h"
#include "scenario.h"

#define CDCH_PRIMARY_USER "cdch"
#define CDCH_PRIMARY_PASSWORD "cdch"

typedef struct cdch_primary cdch_primary;

/* native_auth: the account uses mysql_native_password (else caching_sha2_password).
 * A scenario fault that cuts a dump connection (drop_after_*, truncate_event_at)
 * is held at its cut until cdch_primary_release_cut: the harness, not the
 * machine's load, decides what the consumer had a chance to emit before the cut. */
cdch_primary *cdch_primary_start(const cdch_scenario *s, const char *stream_dir, bool native_auth, cdch_err *err);
/* The same, and every dump waits before the event that starts at
 * mark_file:mark_pos (the watermark transaction's GTID event) until
 * cdch_primary_release_mark; mark_file (kept, not copied: it must outlive
 * the primary) NULL = no mark. */
cdch_primary *cdch_primary_start_marked(const cdch_scenario *s, const char *stream_dir, bool native_auth,
                                        const char *mark_file, uint64_t mark_pos, cdch_err *err);
/* Whether a dump waits before the mark now, and the release (for good). */
bool cdch_primary_mark_held(cdch_primary *p);
void cdch_primary_release_mark(cdch_primary *p);
/* Whether a dump waits at its cut now; file:pos ends the last complete event it sent. */
bool cdch_primary_cut_held(cdch_primary *p, char *file, size_t filesz, uint64_t *pos);
void cdch_primary_release_cut(cdch_primary *p);
uint16_t cdch_primary_port(const cdch_primary *p);
/* Bytes in flight between the primary and its clients (server.h
 * cdch_server_bytes_in_flight; /proc/net/tcp when that cannot say);
 * UINT64_MAX when neither can. */
uint64_t cdch_primary_bytes_in_flight(cdch_primary *p);
/* Link emulation for every primary started after the call (server.h
 * link_rate_bps, link_delay_ms; 0, 0 = none, the default): `estimate --link
 * --consumer` runs its cells over a slow link. Call before any cell starts. */
void cdch_primary_set_link(uint64_t rate_bps, uint32_t delay_ms);
/* Events sent to clients so far (all dump connections, heartbeats included). */
uint64_t cdch_primary_events_sent(cdch_primary *p);
/* Whether a fault of the scenario cut a dump connection; then where the last
 * complete event sent before the cut ended (file, pos). */
/* Dump connections streaming now. */
uint64_t cdch_primary_active_dumps(cdch_primary *p);
/* Dump connections started so far (COM_BINLOG_DUMP and _GTID). */
uint64_t cdch_primary_dumps(cdch_primary *p);
/* Client connections accepted so far, dumps or not. */
uint64_t cdch_primary_connections(cdch_primary *p);
bool cdch_primary_last_cut(cdch_primary *p, char *file, size_t filesz, uint64_t *pos);
void cdch_primary_stop(cdch_primary *p); /* stops and frees; accepts NULL */

#endif
