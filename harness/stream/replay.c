/* replay.c — a capture scenario's stream directory: the capture's files
 * rewritten for the mode (recompress.h), their reference decode as
 * expected.jsonl (canon.h) and stream.json. See replay.h. */
#include "replay.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "canon.h"
#include "event.h"
#include "gtid.h"
#include "jsonstr.h"
#include "reader.h"
#include "recompress.h"

/* What the decode pass learns besides the expected lines. */
typedef struct rp_scan {
    cdch_stream_stats st;
    cdch_arena arena;      /* the GTID set */
    cdch_gtid_set executed;
    bool full_metadata;    /* a TABLE_MAP carried column names (binlog_row_metadata=FULL) */
    cdch_buf files;        /* stream.json's "files" entries */
} rp_scan;

static const char *base_name(const char *p)
{
    const char *s = strrchr(p, '/');
    return s ? s + 1 : p;
}

/* Transactions (GTID / ANONYMOUS_GTID / GTID_TAGGED events) of the input:
 * where a flip stream without capture.flip_at switches (the middle one). */
static int count_transactions(const cdch_recompress_input *in, uint64_t *n, cdch_err *err)
{
    *n = 0;
    for (size_t f = 0; f < in->n; f++) {
        cdch_reader *r = cdch_reader_open(in->paths[f], 0, err);
        if (!r)
            return -1;
        cdch_raw_event ev;
        int rc;
        while ((rc = cdch_reader_next(r, &ev, err)) == 1)
            *n += ev.type == CDCH_EV_GTID || ev.type == CDCH_EV_ANONYMOUS_GTID || ev.type == CDCH_EV_GTID_TAGGED;
        cdch_reader_free(r);
        if (rc < 0)
            return -1;
    }
    return 0;
}

static void add_gtid_set(rp_scan *sc, const cdch_gtid_set *s)
{
    for (size_t k = 0; k < s->n_sids; k++)
        for (size_t m = 0; m < s->sids[k].n_intervals; m++)
            for (int64_t g = s->sids[k].intervals[m].start; g < s->sids[k].intervals[m].end; g++)
                cdch_gtid_set_add(&sc->executed, &sc->arena, s->sids[k].uuid, s->sids[k].tag, g);
}

static void note_event(rp_scan *sc, const cdch_event *ev, bool first_file)
{
    if (ev->h.type == CDCH_EV_PREVIOUS_GTIDS && first_file)
        add_gtid_set(sc, &ev->u.prev_gtids);
    if (ev->h.type == CDCH_EV_GTID || ev->h.type == CDCH_EV_GTID_TAGGED)
        cdch_gtid_set_add(&sc->executed, &sc->arena, ev->u.gtid.sid, ev->u.gtid.tag, ev->u.gtid.gno);
    const cdch_event *inner = ev->h.type == CDCH_EV_TRANSACTION_PAYLOAD ? ev->u.payload.inner : ev;
    size_t n = ev->h.type == CDCH_EV_TRANSACTION_PAYLOAD ? ev->u.payload.n_inner : 1;
    for (size_t i = 0; i < n; i++) {
        uint8_t t = inner[i].h.type;
        if (t == CDCH_EV_TABLE_MAP) {
            for (size_t c = 0; c < inner[i].u.table_map.ncols && !sc->full_metadata; c++)
                sc->full_metadata = inner[i].u.table_map.cols[c].name != NULL;
        } else if (t == CDCH_EV_WRITE_ROWS || t == CDCH_EV_UPDATE_ROWS || t == CDCH_EV_DELETE_ROWS ||
                   t == CDCH_EV_PARTIAL_UPDATE_ROWS) {
            sc->st.row_data_bytes += inner[i].h.event_size;
        }
    }
    if (ev->h.type == CDCH_EV_TRANSACTION_PAYLOAD)
        sc->st.inner_events += ev->u.payload.n_inner;
}

/* Write out the expected lines gathered so far (and count them). */
static int flush_lines(FILE *out, cdch_buf *buf, rp_scan *sc, cdch_err *err)
{
    for (size_t i = 0; i < buf->len; i++)
        sc->st.row_changes += buf->data[i] == '\n';
    if (buf->len && fwrite(buf->data, 1, buf->len, out) != buf->len)
        return cdch_err_set(err, "cannot write expected.jsonl: %s", strerror(errno));
    cdch_buf_reset(buf);
    return 0;
}

/* Decode one rewritten file into expected (the canon's state runs across files). */
static int decode_file(const char *path, bool first_file, cdch_canon *canon, FILE *out, cdch_buf *buf, rp_scan *sc,
                       cdch_err *err)
{
    cdch_reader *r = cdch_reader_open(path, 0, err);
    if (!r)
        return -1;
    cdch_decoder *d = cdch_decoder_new();
    cdch_arena a = CDCH_ARENA_INIT;
    cdch_raw_event raw;
    int rc;
    while ((rc = cdch_reader_next(r, &raw, err)) == 1) {
        cdch_event ev;
        memset(&ev, 0, sizeof ev);
        if (cdch_decode_event(d, raw.data, raw.len, &a, &ev, err) != 0 ||
            cdch_canon_event(canon, base_name(path), &ev, buf, err) != 0) {
            cdch_err_wrap(err, "%s: offset %llu: ", path, (unsigned long long)raw.offset);
            rc = -1;
            break;
        }
        sc->st.events++;
        note_event(sc, &ev, first_file);
        if (buf->len >= 64 * 1024 && (rc = flush_lines(out, buf, sc, err)) != 0)
            break;
        cdch_arena_reset(&a);
    }
    cdch_arena_free(&a);
    cdch_decoder_free(d);
    cdch_reader_free(r);
    return rc < 0 ? -1 : 0;
}

/* expected.jsonl of the rewritten files in dir (the input's names, in order). */
static int write_expected(const cdch_scenario *s, const cdch_recompress_input *in, const char *dir, rp_scan *sc,
                          cdch_err *err)
{
    char path[PATH_MAX + 32];
    snprintf(path, sizeof path, "%s/expected.jsonl", dir);
    FILE *out = fopen(path, "w");
    if (!out)
        return cdch_err_set(err, "cannot create %s: %s", path, strerror(errno));
    cdch_canon *canon = cdch_canon_new(s);
    cdch_buf buf = CDCH_BUF_INIT;
    int rc = 0;
    for (size_t f = 0; f < in->n && rc == 0; f++) {
        char fp[PATH_MAX + NAME_MAX + 2];
        snprintf(fp, sizeof fp, "%s/%s", dir, base_name(in->paths[f]));
        rc = decode_file(fp, f == 0, canon, out, &buf, sc, err);
        struct stat fst;
        if (rc == 0 && stat(fp, &fst) != 0)
            rc = cdch_err_set(err, "%s: %s", fp, strerror(errno));
        if (rc == 0) {
            const char *b = base_name(fp);
            cdch_put_str(&sc->files, f ? ",{\"name\":" : "{\"name\":");
            cdch_put_json_str(&sc->files, b, strlen(b), 0);
            cdch_buf_printf(&sc->files, ",\"size\":%llu}", (unsigned long long)fst.st_size);
            sc->st.bytes += (uint64_t)fst.st_size;
        }
    }
    if (rc == 0)
        rc = flush_lines(out, &buf, sc, err);
    if (fclose(out) != 0 && rc == 0)
        rc = cdch_err_set(err, "cannot write %s: %s", path, strerror(errno));
    cdch_buf_free(&buf);
    cdch_canon_free(canon);
    return rc;
}

static int write_manifest(const cdch_scenario *s, cdch_stream_mode mode, const cdch_recompress_input *in,
                          const char *dir, rp_scan *sc, cdch_err *err)
{
    char path[PATH_MAX + 32];
    snprintf(path, sizeof path, "%s/stream.json", dir);
    FILE *f = fopen(path, "w");
    if (!f)
        return cdch_err_set(err, "cannot create %s: %s", path, strerror(errno));
    char uuid[37];
    cdch_uuid_format(s->server.uuid, uuid);
    cdch_buf b = CDCH_BUF_INIT;
    cdch_put_str(&b, "{\"scenario\":");
    cdch_put_json_str(&b, s->name, strlen(s->name), 0);
    cdch_put_str(&b, ",\"capture\":");
    cdch_put_json_str(&b, s->capture_dir, strlen(s->capture_dir), 0);
    cdch_put_str(&b, ",\"server_version\":");
    cdch_put_json_str(&b, s->server.version, strlen(s->server.version), 0);
    size_t bl = strlen(in->index_name) - 6; /* "<basename>.index" */
    cdch_buf_printf(&b,
                    ",\"mode\":\"%s\",\"server_id\":%u,\"server_uuid\":\"%s\",\"gtid_mode\":%s,\"checksum\":\"%s\","
                    "\"row_image\":\"FULL\",\"row_metadata\":\"%s\",\"zstd_level\":%d,\"basename\":\"%.*s\","
                    "\"gtid_executed\":\"",
                    cdch_stream_mode_name(mode), s->server.server_id, uuid, s->server.gtid_mode ? "true" : "false",
                    s->binlog.checksum ? "CRC32" : "NONE", sc->full_metadata ? "FULL" : "MINIMAL",
                    s->binlog.zstd_level, (int)bl, in->index_name);
    cdch_gtid_set_to_text(&sc->executed, &b);
    const cdch_stream_stats *st = &sc->st;
    cdch_buf_printf(&b,
                    "\",\"files\":[%s],\"stats\":{\"files\":%llu,\"bytes\":%llu,\"events\":%llu,\"inner_events\":%llu,"
                    "\"transactions\":%llu,\"compressed_transactions\":%llu,\"row_changes\":%llu,"
                    "\"row_data_bytes\":%llu,\"max_transaction_bytes\":%llu}}\n",
                    cdch_buf_cstr(&sc->files), (unsigned long long)st->files, (unsigned long long)st->bytes,
                    (unsigned long long)st->events, (unsigned long long)st->inner_events,
                    (unsigned long long)st->transactions, (unsigned long long)st->compressed_transactions,
                    (unsigned long long)st->row_changes, (unsigned long long)st->row_data_bytes,
                    (unsigned long long)st->max_transaction_bytes);
    bool ok = fwrite(b.data, 1, b.len, f) == b.len;
    cdch_buf_free(&b);
    if (fclose(f) != 0 || !ok)
        return cdch_err_set(err, "cannot write %s: %s", path, strerror(errno));
    return 0;
}

int cdch_replay_generate(const cdch_scenario *s, cdch_stream_mode mode, const char *out_dir,
                         cdch_stream_stats *stats, cdch_err *err)
{
    if (!s->capture_dir)
        return cdch_err_set(err, "scenario %s names no capture", s->name);
    char *dir = (char *)s->capture_dir;
    cdch_recompress_input in;
    if (cdch_recompress_resolve(1, &dir, &in, err) != 0)
        return cdch_err_wrap(err, "capture %s: ", s->capture_dir);
    cdch_recompress_opts o = {mode != CDCH_STREAM_UNCOMPRESSED, s->binlog.zstd_level, s->binlog.zstd_content_size,
                              0, true};
    int rc = 0;
    if (mode == CDCH_STREAM_FLIP) {
        o.flip_at = s->capture_flip_at;
        uint64_t n = 0;
        if (!o.flip_at && (rc = count_transactions(&in, &n, err)) == 0)
            o.flip_at = n / 2 + 1;
    }
    char tmp[4096];
    if (rc == 0)
        rc = cdch_stream_prepare_out(out_dir, tmp, sizeof tmp, err);
    if (rc != 0) {
        cdch_recompress_input_free(&in);
        return -1;
    }
    rp_scan sc;
    memset(&sc, 0, sizeof sc);
    cdch_recompress_stats rst;
    rc = cdch_recompress(&in, tmp, &o, &rst, err);
    if (rc != 0) {
        cdch_err_wrap(err, "capture %s: ", s->capture_dir);
    } else {
        sc.st.files = rst.files;
        sc.st.transactions = rst.transactions;
        sc.st.compressed_transactions = rst.compressed;
        sc.st.max_transaction_bytes = rst.max_transaction_bytes;
        rc = write_expected(s, &in, tmp, &sc, err);
    }
    if (rc == 0)
        rc = write_manifest(s, mode, &in, tmp, &sc, err);
    if (rc == 0)
        rc = cdch_stream_commit_out(tmp, out_dir, err);
    else
        cdch_stream_rm_tree(tmp);
    if (rc == 0 && stats)
        *stats = sc.st;
    cdch_buf_free(&sc.files);
    cdch_arena_free(&sc.arena);
    cdch_recompress_input_free(&in);
    return rc;
}
