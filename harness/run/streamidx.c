/* streamidx.c — frame a stream's binlog files and note where each
 * transaction starts and ends. */
#include "streamidx.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arena.h"
#include "buf.h"
#include "event.h"
#include "mysql_types.h"
#include "reader.h"
#include "xalloc.h"

#define xrealloc cdch_xrealloc
#define xstrdup cdch_xstrdup

/* Find the one *.index file in dir. */
static int find_index(const char *dir, char *out, size_t outsz, cdch_err *err)
{
    DIR *d = opendir(dir);
    if (!d)
        return cdch_err_set(err, "%s: cannot open stream directory: %s", dir, strerror(errno));
    struct dirent *e;
    int found = 0;
    while ((e = readdir(d)) != NULL) {
        size_t l = strlen(e->d_name);
        if (l > 6 && strcmp(e->d_name + l - 6, ".index") == 0) {
            snprintf(out, outsz, "%s/%s", dir, e->d_name);
            found++;
        }
    }
    closedir(d);
    if (found != 1)
        return cdch_err_set(err, "%s: expected exactly one binlog .index file, found %d", dir, found);
    return 0;
}

static bool is_gtid(uint8_t t)
{
    return t == CDCH_EV_GTID || t == CDCH_EV_ANONYMOUS_GTID || t == CDCH_EV_GTID_TAGGED;
}

/* Transaction t's GTID, from its GTID event (an undecodable one leaves it without). */
static void note_gtid(cdch_stream_index *out, cdch_decoder *dec, const cdch_raw_event *ev, cdch_txn_loc *t)
{
    cdch_arena a = CDCH_ARENA_INIT;
    cdch_event e;
    cdch_err derr;
    if (cdch_decode_event(dec, ev->data, ev->len, &a, &e, &derr) == 0) {
        size_t k = 0;
        while (k < out->nsids && (memcmp(out->sids[k].uuid, e.u.gtid.sid, 16) != 0 ||
                                  strcmp(out->sids[k].tag, e.u.gtid.tag) != 0))
            k++;
        if (k == out->nsids) {
            out->sids = xrealloc(out->sids, (out->nsids + 1) * sizeof *out->sids);
            memcpy(out->sids[k].uuid, e.u.gtid.sid, 16);
            snprintf(out->sids[k].tag, sizeof out->sids[k].tag, "%s", e.u.gtid.tag);
            out->nsids++;
        }
        t->sid = (uint32_t)k;
        t->gno = e.u.gtid.gno;
    }
    cdch_arena_free(&a);
}

int cdch_stream_index_load(const char *dir, cdch_stream_index *out, cdch_err *err)
{
    memset(out, 0, sizeof *out);
    char ipath[4096];
    if (find_index(dir, ipath, sizeof ipath, err) != 0)
        return -1;
    FILE *f = fopen(ipath, "r");
    if (!f)
        return cdch_err_set(err, "%s: cannot open: %s", ipath, strerror(errno));
    char line[4096];
    while (fgets(line, sizeof line, f)) {
        size_t l = strlen(line);
        while (l && (line[l - 1] == '\n' || line[l - 1] == '\r'))
            line[--l] = '\0';
        if (!l)
            continue;
        const char *name = strrchr(line, '/');
        name = name ? name + 1 : line;
        char path[8192];
        snprintf(path, sizeof path, "%s/%s", dir, name);
        out->files = xrealloc(out->files, (out->nfiles + 1) * sizeof *out->files);
        out->paths = xrealloc(out->paths, (out->nfiles + 1) * sizeof *out->paths);
        out->files[out->nfiles] = xstrdup(name);
        out->paths[out->nfiles] = xstrdup(path);
        out->nfiles++;
    }
    fclose(f);
    size_t cap = 0;
    for (size_t i = 0; i < out->nfiles; i++) {
        cdch_reader *r = cdch_reader_open(out->paths[i], 0, err);
        if (!r) {
            cdch_stream_index_free(out);
            return -1;
        }
        cdch_raw_event ev;
        int rc;
        bool want_body = false;
        cdch_decoder *dec = cdch_decoder_new();
        while ((rc = cdch_reader_next(r, &ev, err)) == 1) {
            if (want_body) {
                out->txn[out->ntxn - 1].body_pos = ev.offset;
                out->txn[out->ntxn - 1].body_type = ev.type;
                want_body = false;
            }
            if (is_gtid(ev.type)) {
                if (out->ntxn == cap) {
                    cap = cap ? cap * 2 : 256;
                    out->txn = xrealloc(out->txn, cap * sizeof *out->txn);
                }
                cdch_txn_loc *t = &out->txn[out->ntxn++];
                memset(t, 0, sizeof *t);
                t->file = out->files[i];
                t->start = ev.offset;
                t->sid = CDCH_TXN_NO_GTID;
                want_body = true;
                if (ev.type != CDCH_EV_ANONYMOUS_GTID)
                    note_gtid(out, dec, &ev, t);
            }
            if (i == 0 && ev.type == CDCH_EV_PREVIOUS_GTIDS && !out->prev_gtids) {
                cdch_arena a = CDCH_ARENA_INIT;
                cdch_event e;
                cdch_err derr;
                if (cdch_decode_event(dec, ev.data, ev.len, &a, &e, &derr) == 0) {
                    cdch_buf b = CDCH_BUF_INIT;
                    cdch_gtid_set_to_text(&e.u.prev_gtids, &b);
                    out->prev_gtids = xstrdup(cdch_buf_cstr(&b));
                    cdch_buf_free(&b);
                }
                cdch_arena_free(&a);
            }
            if (out->ntxn && out->txn[out->ntxn - 1].file == out->files[i] && ev.type != CDCH_EV_ROTATE &&
                ev.type != CDCH_EV_STOP)
                out->txn[out->ntxn - 1].end = ev.offset + ev.len;
            if (out->ntxn && ev.type == CDCH_EV_PARTIAL_UPDATE_ROWS)
                out->txn[out->ntxn - 1].partial_rows++;
            if (ev.type == CDCH_EV_FORMAT_DESCRIPTION || (out->ntxn && ev.type == CDCH_EV_TRANSACTION_PAYLOAD)) {
                /* the decoder needs the file's FDE; a payload is decoded to see its inner events'
                 * types (an undecodable one only goes uncounted) */
                cdch_arena a = CDCH_ARENA_INIT;
                cdch_event e;
                cdch_err derr;
                if (cdch_decode_event(dec, ev.data, ev.len, &a, &e, &derr) == 0 &&
                    ev.type == CDCH_EV_TRANSACTION_PAYLOAD)
                    for (size_t k = 0; k < e.u.payload.n_inner; k++)
                        if (e.u.payload.inner[k].h.type == CDCH_EV_PARTIAL_UPDATE_ROWS)
                            out->txn[out->ntxn - 1].partial_rows++;
                cdch_arena_free(&a);
            }
        }
        cdch_decoder_free(dec);
        cdch_reader_free(r);
        if (rc < 0) {
            cdch_stream_index_free(out);
            return -1;
        }
    }
    return 0;
}

void cdch_stream_index_free(cdch_stream_index *idx)
{
    if (!idx)
        return;
    for (size_t i = 0; i < idx->nfiles; i++) {
        free(idx->files[i]);
        free(idx->paths[i]);
    }
    free(idx->files);
    free(idx->paths);
    free(idx->txn);
    free(idx->sids);
    free(idx->prev_gtids);
    memset(idx, 0, sizeof *idx);
}

const cdch_txn_loc *cdch_stream_index_txn(const cdch_stream_index *idx, uint64_t k)
{
    if (!idx || k == 0 || k > idx->ntxn)
        return NULL;
    return &idx->txn[k - 1];
}
