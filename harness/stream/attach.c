/* attach.c — the attach point of a stream: the end of its schema prefix
 * (attach.h). */
#include "attach.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arena.h"
#include "buf.h"
#include "event.h"
#include "gtid.h"
#include "mysql_types.h"
#include "reader.h"
#include "xalloc.h"

static bool is_data_event(uint8_t t)
{
    switch (t) {
    case CDCH_EV_TABLE_MAP:
    case CDCH_EV_WRITE_ROWS_V1: case CDCH_EV_UPDATE_ROWS_V1: case CDCH_EV_DELETE_ROWS_V1:
    case CDCH_EV_WRITE_ROWS: case CDCH_EV_UPDATE_ROWS: case CDCH_EV_DELETE_ROWS:
    case CDCH_EV_PARTIAL_UPDATE_ROWS:
    case CDCH_EV_TRANSACTION_PAYLOAD:
        return true;
    default:
        return false;
    }
}

/* Events of the file's frame, not of a transaction. */
static bool is_frame_event(uint8_t t)
{
    return t == CDCH_EV_FORMAT_DESCRIPTION || t == CDCH_EV_ROTATE || t == CDCH_EV_PREVIOUS_GTIDS ||
           t == CDCH_EV_STOP || t == CDCH_EV_HEARTBEAT || t == CDCH_EV_HEARTBEAT_V2;
}

static bool is_gtid_event(uint8_t t)
{
    return t == CDCH_EV_GTID || t == CDCH_EV_ANONYMOUS_GTID || t == CDCH_EV_GTID_TAGGED;
}

static const char *base_name(const char *p)
{
    const char *s = strrchr(p, '/');
    return s ? s + 1 : p;
}

typedef struct walk {
    cdch_decoder *dec;
    cdch_arena arena;
    cdch_gtid_set set;       /* GTIDs of the completed transactions (from the first PREVIOUS_GTIDS) */
    bool pending;            /* the current transaction's GTID, added once it completes */
    uint8_t sid[16];
    char tag[CDCH_GTID_TAG_MAX + 1];
    int64_t gno;
    uint64_t txn;            /* transactions begun */
    char end_file[256];      /* just past the last event of a transaction */
    uint64_t end_pos;
    cdch_stream_attach snap; /* the prefix as of the current transaction's start */
    char *snap_set;
} walk;

/* A GTID event: the transaction before it is complete; snapshot the prefix. */
static int on_gtid(walk *w, const cdch_raw_event *ev, cdch_err *err)
{
    if (w->pending)
        cdch_gtid_set_add(&w->set, &w->arena, w->sid, w->tag, w->gno);
    w->pending = false;
    w->snap.txns = w->txn++;
    snprintf(w->snap.file, sizeof w->snap.file, "%s", w->end_file);
    w->snap.pos = w->end_pos;
    free(w->snap_set);
    w->snap_set = NULL;
    if (w->snap.gtids) {
        cdch_buf b = CDCH_BUF_INIT;
        cdch_gtid_set_to_text(&w->set, &b);
        w->snap_set = cdch_xstrdup(cdch_buf_cstr(&b));
        cdch_buf_free(&b);
    }
    if (ev->type == CDCH_EV_ANONYMOUS_GTID)
        return 0;
    cdch_event e;
    if (cdch_decode_event(w->dec, ev->data, ev->len, &w->arena, &e, err) != 0)
        return -1;
    memcpy(w->sid, e.u.gtid.sid, 16);
    snprintf(w->tag, sizeof w->tag, "%s", e.u.gtid.tag);
    w->gno = e.u.gtid.gno;
    w->pending = true;
    return 0;
}

/* One file; returns 1 when the first data event was found, 0 at its end, -1 on error. */
static int walk_file(walk *w, const char *path, bool first, cdch_err *err)
{
    cdch_reader *rd = cdch_reader_open(path, 0, err);
    if (!rd)
        return -1;
    cdch_raw_event ev;
    int rc;
    while ((rc = cdch_reader_next(rd, &ev, err)) == 1) {
        if (is_data_event(ev.type)) {
            rc = 1;
            break;
        }
        if (ev.type == CDCH_EV_FORMAT_DESCRIPTION || (first && ev.type == CDCH_EV_PREVIOUS_GTIDS)) {
            cdch_event e;
            if (cdch_decode_event(w->dec, ev.data, ev.len, &w->arena, &e, err) != 0) {
                rc = -1;
                break;
            }
            if (ev.type == CDCH_EV_PREVIOUS_GTIDS)
                w->set = e.u.prev_gtids;
        } else if (is_gtid_event(ev.type)) {
            w->snap.gtids = w->snap.gtids || ev.type != CDCH_EV_ANONYMOUS_GTID;
            if (on_gtid(w, &ev, err) != 0) {
                rc = -1;
                break;
            }
        }
        if (!is_frame_event(ev.type)) {
            snprintf(w->end_file, sizeof w->end_file, "%s", base_name(path));
            w->end_pos = ev.offset + ev.len;
        }
    }
    if (rc < 0 && err->msg[0] && !strstr(err->msg, path))
        cdch_err_wrap(err, "%s", path);
    cdch_reader_free(rd);
    return rc;
}

int cdch_stream_attach_point(const char *const *paths, size_t n, cdch_stream_attach *out, cdch_err *err)
{
    memset(out, 0, sizeof *out);
    if (n == 0)
        return cdch_err_set(err, "no binlog files to find the attach point in");
    walk w;
    memset(&w, 0, sizeof w);
    w.dec = cdch_decoder_new();
    snprintf(w.end_file, sizeof w.end_file, "%s", base_name(paths[0]));
    w.end_pos = 4;
    int rc = 0;
    for (size_t i = 0; i < n && rc == 0; i++)
        rc = walk_file(&w, paths[i], i == 0, err);
    if (rc == 1 && w.txn == 0) { /* a row event before any GTID event: no prefix */
        snprintf(w.snap.file, sizeof w.snap.file, "%s", base_name(paths[0]));
        w.snap.pos = 4;
    }
    if (rc == 0)
        cdch_err_set(err, "%s: no transaction changes a row: there is no schema prefix to attach after",
                     paths[0]);
    if (rc == 1) {
        *out = w.snap;
        out->gtid_set = w.snap.gtids ? w.snap_set : NULL;
        if (!w.snap.gtids)
            free(w.snap_set);
    } else {
        free(w.snap_set);
    }
    cdch_decoder_free(w.dec);
    cdch_arena_free(&w.arena);
    return rc == 1 ? 0 : -1;
}

void cdch_stream_attach_free(cdch_stream_attach *a)
{
    if (!a)
        return;
    free(a->gtid_set);
    a->gtid_set = NULL;
}

/* cdch_stream_gtids_before: the first file's PREVIOUS_GTIDS plus the GTID of
 * every GTID / GTID_TAGGED event that starts before file:pos. */
int cdch_stream_gtids_before(const char *const *paths, size_t n, const char *file, uint64_t pos, char **out,
                             cdch_err *err)
{
    *out = NULL;
    cdch_decoder *dec = cdch_decoder_new();
    cdch_arena arena = {0};
    cdch_gtid_set set;
    memset(&set, 0, sizeof set);
    int rc = 0;
    bool done = false;
    for (size_t i = 0; i < n && rc == 0 && !done; i++) {
        int at = strcmp(base_name(paths[i]), file); /* files sort in stream order (basename.NNNNNN) */
        if (at > 0)
            break;
        cdch_reader *rd = cdch_reader_open(paths[i], 0, err);
        if (!rd) {
            rc = -1;
            break;
        }
        cdch_raw_event ev;
        int r;
        while ((r = cdch_reader_next(rd, &ev, err)) == 1) {
            if (at == 0 && ev.offset >= pos) {
                done = true;
                break;
            }
            bool want = ev.type == CDCH_EV_FORMAT_DESCRIPTION || (i == 0 && ev.type == CDCH_EV_PREVIOUS_GTIDS) ||
                        ev.type == CDCH_EV_GTID || ev.type == CDCH_EV_GTID_TAGGED;
            if (!want)
                continue;
            cdch_event e;
            if (cdch_decode_event(dec, ev.data, ev.len, &arena, &e, err) != 0) {
                r = -1;
                break;
            }
            if (ev.type == CDCH_EV_PREVIOUS_GTIDS)
                set = e.u.prev_gtids;
            else if (ev.type != CDCH_EV_FORMAT_DESCRIPTION)
                cdch_gtid_set_add(&set, &arena, e.u.gtid.sid, e.u.gtid.tag, e.u.gtid.gno);
        }
        if (r < 0) {
            if (err->msg[0] && !strstr(err->msg, paths[i]))
                cdch_err_wrap(err, "%s", paths[i]);
            rc = -1;
        }
        cdch_reader_free(rd);
    }
    if (rc == 0) {
        cdch_buf b = CDCH_BUF_INIT;
        cdch_gtid_set_to_text(&set, &b);
        *out = cdch_xstrdup(cdch_buf_cstr(&b));
        cdch_buf_free(&b);
    }
    cdch_decoder_free(dec);
    cdch_arena_free(&arena);
    return rc;
}
