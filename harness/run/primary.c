/* primary.c — run-cell wrapper around the fake primary (server.h). */
#include "primary.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "activity.h"
#include "server.h"

struct cdch_primary {
    cdch_server *srv;
};

static uint64_t g_link_rate_bps; /* cdch_primary_set_link: set before the cells start, read-only after */
static uint32_t g_link_delay_ms;

void cdch_primary_set_link(uint64_t rate_bps, uint32_t delay_ms)
{
    g_link_rate_bps = rate_bps;
    g_link_delay_ms = delay_ms;
}

cdch_primary *cdch_primary_start(const cdch_scenario *s, const char *stream_dir, bool native_auth, cdch_err *err)
{
    return cdch_primary_start_marked(s, stream_dir, native_auth, NULL, 0, err);
}

cdch_primary *cdch_primary_start_marked(const cdch_scenario *s, const char *stream_dir, bool native_auth,
                                        const char *mark_file, uint64_t mark_pos, cdch_err *err)
{
    cdch_server_opts o;
    memset(&o, 0, sizeof o);
    o.bind = "127.0.0.1";
    o.port = 0;
    o.user = CDCH_PRIMARY_USER;
    o.password = CDCH_PRIMARY_PASSWORD;
    o.auth = native_auth ? CDCH_AUTH_NATIVE : CDCH_AUTH_CACHING_SHA2;
    o.faults.hold_cut = true; /* the scenario's faults themselves are filled in by the server */
    o.faults.hold_before_file = mark_file;
    o.faults.hold_before_pos = mark_pos;
    o.link_rate_bps = g_link_rate_bps;
    o.link_delay_ms = g_link_delay_ms;
    cdch_server *srv = cdch_server_new(s, stream_dir, &o, err);
    if (!srv) {
        cdch_err_wrap(err, "fake primary: ");
        return NULL;
    }
    if (cdch_server_start(srv, err) != 0) {
        cdch_err_wrap(err, "fake primary: ");
        cdch_server_free(srv);
        return NULL;
    }
    cdch_primary *p = calloc(1, sizeof *p);
    if (!p) {
        cdch_server_free(srv);
        cdch_err_set(err, "out of memory");
        return NULL;
    }
    p->srv = srv;
    return p;
}

uint16_t cdch_primary_port(const cdch_primary *p) { return cdch_server_port(p->srv); }

uint64_t cdch_primary_bytes_in_flight(cdch_primary *p)
{
    uint64_t n = cdch_server_bytes_in_flight(p->srv);
    return n != UINT64_MAX ? n : cdch_activity_tcp_pending(cdch_server_port(p->srv));
}

static cdch_server_stats stats(cdch_primary *p)
{
    cdch_server_stats st;
    cdch_server_get_stats(p->srv, &st);
    return st;
}

uint64_t cdch_primary_events_sent(cdch_primary *p) { return stats(p).events_sent; }

bool cdch_primary_cut_held(cdch_primary *p, char *file, size_t filesz, uint64_t *pos)
{
    return p && cdch_server_cut_held(p->srv, file, filesz, pos);
}

bool cdch_primary_mark_held(cdch_primary *p) { return p && cdch_server_mark_held(p->srv); }

void cdch_primary_release_mark(cdch_primary *p)
{
    if (p)
        cdch_server_release_mark(p->srv);
}

void cdch_primary_release_cut(cdch_primary *p)
{
    if (p)
        cdch_server_release_cut(p->srv);
}

uint64_t cdch_primary_active_dumps(cdch_primary *p) { return stats(p).active_dumps; }

uint64_t cdch_primary_dumps(cdch_primary *p) { return stats(p).dumps; }

uint64_t cdch_primary_connections(cdch_primary *p) { return stats(p).connections; }

bool cdch_primary_last_cut(cdch_primary *p, char *file, size_t filesz, uint64_t *pos)
{
    return p && cdch_server_last_cut(p->srv, file, filesz, pos);
}

void cdch_primary_stop(cdch_primary *p)
{
    if (!p)
        return;
    cdch_server_free(p->srv);
    free(p);
}
