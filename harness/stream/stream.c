/* stream.c — the binlog writer: scenario transactions -> MySQL 8 binlog
 * files (positions, checksums, GTIDs, compression, rotation) and the
 * expected change events. See stream.h. */
#include "stream.h"
#include "replay.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ddl.h"
#include "event.h"
#include "stream_internal.h"
#include "sys.h"

const char *cdch_stream_mode_name(cdch_stream_mode m)
{
    switch (m) {
    case CDCH_STREAM_COMPRESSED: return "compressed";
    case CDCH_STREAM_FLIP: return "flip";
    default: return "uncompressed";
    }
}

int cdch_stream_mode_parse(const char *s, cdch_stream_mode *out)
{
    if (!strcmp(s, "compressed")) *out = CDCH_STREAM_COMPRESSED;
    else if (!strcmp(s, "uncompressed")) *out = CDCH_STREAM_UNCOMPRESSED;
    else if (!strcmp(s, "flip")) *out = CDCH_STREAM_FLIP;
    else return -1;
    return 0;
}

/* ---- file output ------------------------------------------------------------ */

static int write_all(sw_writer *w, FILE *f, const void *p, size_t n, const char *what, cdch_err *err)
{
    if (n && fwrite(p, 1, n, f) != n)
        return cdch_err_set(err, "cannot write %s in %s: %s", what, w->dir, strerror(errno));
    return 0;
}

static int emit(sw_writer *w, const uint8_t *p, size_t n, cdch_err *err)
{
    if (write_all(w, w->bin, p, n, w->file_name, err) != 0)
        return -1;
    w->pos += n;
    w->stats.bytes += n;
    return 0;
}

/* Encode a complete top-level event at the current position (log_pos and
 * checksum filled in) and write it. */
static int emit_event(sw_writer *w, cdch_event *ev, cdch_err *err)
{
    cdch_buf_reset(&w->evbuf);
    cdch_encode_opts o = {w->s->binlog.checksum, false, w->s->binlog.zstd_level, w->s->binlog.zstd_content_size};
    /* log_pos = end of this event: encode once to learn the size */
    ev->h.log_pos = 0;
    if (cdch_encode_event(ev, &o, true, &w->evbuf, err) != 0)
        return -1;
    uint64_t end = w->pos + w->evbuf.len;
    if (end > UINT32_MAX)
        return cdch_err_set(err, "binlog file %s would pass 4 GiB (end_log_pos is 32-bit); lower max_binlog_size",
                            w->file_name);
    cdch_buf_reset(&w->evbuf);
    ev->h.log_pos = (uint32_t)end;
    if (cdch_encode_event(ev, &o, true, &w->evbuf, err) != 0)
        return -1;
    w->stats.events++;
    return emit(w, w->evbuf.data, w->evbuf.len, err);
}

static void ev_init(cdch_event *ev, sw_writer *w, uint8_t type, uint32_t ts, uint16_t flags)
{
    memset(ev, 0, sizeof *ev);
    ev->h.type = type;
    ev->h.timestamp = ts;
    ev->h.server_id = w->s->server.server_id;
    ev->h.flags = flags;
}

static int open_file(sw_writer *w, uint32_t ts, cdch_err *err)
{
    w->file_no++;
    snprintf(w->file_name, sizeof w->file_name, "%s.%06u", w->s->binlog.basename, w->file_no);
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", w->dir, w->file_name);
    w->bin = fopen(path, "wb");
    if (!w->bin)
        return cdch_err_set(err, "cannot create %s: %s", path, strerror(errno));
    cdch_io_buffer(w->bin, &w->binbuf);
    fprintf(w->index, "./%s\n", w->file_name);
    w->pos = 0;
    w->stats.files++;
    w->seq = 0; /* the logical clock restarts in every binlog file */
    w->last_committed = 0;
    if (emit(w, (const uint8_t *)CDCH_BINLOG_MAGIC, CDCH_BINLOG_MAGIC_LEN, err) != 0)
        return -1;
    cdch_event ev;
    ev_init(&ev, w, CDCH_EV_FORMAT_DESCRIPTION, ts, 0);
    ev.u.fde = w->fde;
    ev.u.fde.create_timestamp = w->file_no == 1 ? ts : 0;
    w->fde_offset = w->pos;
    if (emit_event(w, &ev, err) != 0)
        return -1;
    ev_init(&ev, w, CDCH_EV_PREVIOUS_GTIDS, ts, CDCH_LOG_EVENT_IGNORABLE_F);
    ev.u.prev_gtids = w->executed;
    ev.u.prev_gtids.tagged_format = false;
    return emit_event(w, &ev, err);
}

static int close_file(sw_writer *w, cdch_err *err)
{
    if (!w->bin)
        return 0;
    int rc = 0;
    if (fclose(w->bin) != 0)
        rc = cdch_err_set(err, "cannot write %s/%s: %s", w->dir, w->file_name, strerror(errno));
    w->bin = NULL;
    fprintf(w->manifest_files, "%s{\"name\":\"%s\",\"size\":%llu}", w->stats.files > 1 ? "," : "", w->file_name,
            (unsigned long long)w->pos);
    return rc;
}

static int rotate(sw_writer *w, uint32_t ts, cdch_err *err)
{
    char next[256];
    snprintf(next, sizeof next, "%s.%06u", w->s->binlog.basename, w->file_no + 1);
    cdch_event ev;
    ev_init(&ev, w, CDCH_EV_ROTATE, ts, 0);
    ev.u.rotate.position = 4;
    ev.u.rotate.next_file.ptr = (const uint8_t *)next;
    ev.u.rotate.next_file.len = strlen(next);
    if (emit_event(w, &ev, err) != 0 || close_file(w, err) != 0)
        return -1;
    return open_file(w, ts, err);
}

/* ---- transactions -------------------------------------------------------------- */

/* Size of the GTID event that announces a transaction of `rest` bytes. */
/* Size of a GTID_TAGGED event whose transaction_length counts itself: its
 * serialized fields are variable-length, so encode until the size settles. */
static int tagged_event_size(sw_writer *w, cdch_event *g, size_t rest, size_t *out, cdch_err *err)
{
    cdch_encode_opts o = {w->s->binlog.checksum, false, 3, false};
    size_t size = 0;
    *out = 0;
    cdch_buf b = CDCH_BUF_INIT;
    int rc = -1;
    bool failed = false;
    for (int i = 0; i < 8 && rc < 0 && !failed; i++) {
        g->u.gtid.transaction_length = size + rest;
        cdch_buf_reset(&b);
        if (cdch_encode_event(g, &o, true, &b, err) != 0) {
            failed = true;
            break;
        }
        if (b.len == size) {
            *out = size;
            rc = 0;
        }
        size = b.len;
    }
    cdch_buf_free(&b);
    if (rc != 0 && !failed)
        cdch_err_set(err, "GTID_TAGGED event size does not settle (internal error in harness/stream/stream.c)");
    return rc;
}

static size_t gtid_event_size(const sw_writer *w, size_t rest)
{
    size_t base = CDCH_HEADER_LEN + 42 + 7 + 4 + (w->s->binlog.checksum ? CDCH_CHECKSUM_LEN : 0);
    size_t size = base + 1;
    for (int i = 0; i < 4; i++) {
        size_t want = base + cdch_lenenc_size(size + rest);
        if (want == size)
            break;
        size = want;
    }
    return size;
}

/* Write the transaction held in w->cache (inner events, no checksums,
 * log_pos 0): as a TRANSACTION_PAYLOAD when `compress`, else event by
 * event with checksums and positions added as MySQL's binlog writer does. */
static int write_txn(sw_writer *w, const sw_txn_info *ti, bool compress, cdch_err *err)
{
    size_t crc = w->s->binlog.checksum ? CDCH_CHECKSUM_LEN : 0;
    size_t rest;
    cdch_event payload;
    if (compress) {
        cdch_buf_reset(&w->zbuf);
        if (!w->zstd && !(w->zstd = cdch_zstd_compressor_new()))
            return cdch_err_set(err, "cannot create a zstd compression context (out of memory?)");
        if (cdch_zstd_compress_with(w->zstd, w->cache.data, w->cache.len, w->s->binlog.zstd_level,
                                    w->s->binlog.zstd_content_size, &w->zbuf, err) != 0)
            return -1;
        ev_init(&payload, w, CDCH_EV_TRANSACTION_PAYLOAD, ti->ts, 0);
        cdch_payload_set_zstd(&payload.u.payload, w->zbuf.data, w->zbuf.len, w->cache.len);
        cdch_buf_reset(&w->evbuf);
        cdch_encode_opts o = {w->s->binlog.checksum, false, 3, false};
        if (cdch_encode_event(&payload, &o, true, &w->evbuf, err) != 0)
            return -1;
        rest = w->evbuf.len;
        w->stats.compressed_transactions++;
        w->stats.inner_events += ti->n_events;
    } else {
        rest = w->cache.len + ti->n_events * crc;
    }

    /* GTID / ANONYMOUS_GTID */
    w->seq++;
    cdch_event g;
    bool tagged = w->s->server.gtid_mode && ti->tag && ti->tag[0];
    ev_init(&g, w, tagged ? CDCH_EV_GTID_TAGGED : w->s->server.gtid_mode ? CDCH_EV_GTID : CDCH_EV_ANONYMOUS_GTID,
            ti->ts, 0);
    g.u.gtid.gtid_flags = ti->may_have_sbr ? 1 : 0;
    if (w->s->server.gtid_mode) {
        memcpy(g.u.gtid.sid, w->s->server.uuid, 16);
        g.u.gtid.gno = (int64_t)ti->gno;
        if (tagged)
            snprintf(g.u.gtid.tag, sizeof g.u.gtid.tag, "%s", ti->tag);
    }
    g.u.gtid.lt_type = 2;
    g.u.gtid.last_committed = w->last_committed;
    g.u.gtid.sequence_number = w->seq;
    g.u.gtid.immediate_commit_ts = g.u.gtid.original_commit_ts = ti->commit_us;
    g.u.gtid.immediate_server_version = g.u.gtid.original_server_version = w->fde.version_product;
    g.u.gtid.classic_parts = 4;
    if (tagged) {
        size_t gsize;
        if (tagged_event_size(w, &g, rest, &gsize, err) != 0)
            return -1;
        g.u.gtid.transaction_length = gsize + rest;
    } else {
        g.u.gtid.transaction_length = gtid_event_size(w, rest) + rest;
    }
    w->last_committed = w->seq; /* serial commits: the next depends on this one */
    if (emit_event(w, &g, err) != 0)
        return -1;

    if (compress) {
        /* re-encode with the final position */
        payload.h.log_pos = (uint32_t)(w->pos + rest);
        cdch_buf_reset(&w->evbuf);
        cdch_encode_opts o = {w->s->binlog.checksum, false, 3, false};
        if (cdch_encode_event(&payload, &o, true, &w->evbuf, err) != 0)
            return -1;
        w->stats.events++;
        return emit(w, w->evbuf.data, w->evbuf.len, err);
    }
    /* plain: copy each cached event, fixing size, log_pos and CRC */
    size_t off = 0;
    while (off < w->cache.len) {
        uint8_t *e = w->cache.data + off;
        uint32_t size = (uint32_t)e[9] | (uint32_t)e[10] << 8 | (uint32_t)e[11] << 16 | (uint32_t)e[12] << 24;
        cdch_buf_reset(&w->evbuf);
        cdch_put_bytes(&w->evbuf, e, size);
        uint32_t full = size + (uint32_t)crc;
        cdch_buf_patch_le(&w->evbuf, 9, full, 4);
        cdch_buf_patch_le(&w->evbuf, 13, (uint32_t)(w->pos + full), 4);
        if (crc)
            cdch_put_le32(&w->evbuf, cdch_crc32(0, w->evbuf.data, w->evbuf.len));
        if (emit(w, w->evbuf.data, w->evbuf.len, err) != 0)
            return -1;
        w->stats.events++;
        off += size;
    }
    return 0;
}

static int finish_txn(sw_writer *w, const sw_txn_info *ti, bool compress, cdch_err *err)
{
    if (w->cache.len > w->stats.max_transaction_bytes)
        w->stats.max_transaction_bytes = w->cache.len;
    if (write_txn(w, ti, compress, err) != 0)
        return -1;
    w->stats.transactions++;
    if (w->s->server.gtid_mode)
        cdch_gtid_set_add(&w->executed, &w->arena, w->s->server.uuid, ti->tag ? ti->tag : "", (int64_t)ti->gno);
    /* expected events of this transaction, now that its end is known */
    if (sw_expected_flush(w, ti, compress, err) != 0)
        return -1;
    if (w->pos >= w->s->binlog.max_size)
        return rotate(w, ti->ts, err);
    return 0;
}

static void txn_info_next(sw_writer *w, sw_txn_info *ti)
{
    memset(ti, 0, sizeof *ti);
    w->txn_no++;
    ti->txn_no = w->txn_no;
    ti->tag = w->tag_now ? w->tag_now : "";
    if (!w->s->server.gtid_mode) {
        ti->gno = 0;
    } else if (!ti->tag[0]) {
        ti->gno = w->s->server.first_gno + w->n_untagged++;
    } else { /* uuid:tag has its own GNO sequence, from 1 */
        size_t i = 0;
        while (i < w->n_tag_gnos && strcmp(w->tag_gnos[i].tag, ti->tag) != 0)
            i++;
        if (i == w->n_tag_gnos) {
            struct sw_tag_gno *n = cdch_arena_alloc(&w->arena, (w->n_tag_gnos + 1) * sizeof *n);
            if (w->n_tag_gnos)
                memcpy(n, w->tag_gnos, w->n_tag_gnos * sizeof *n);
            n[i].tag = ti->tag;
            n[i].last = 0;
            w->tag_gnos = n;
            w->n_tag_gnos++;
        }
        ti->gno = ++w->tag_gnos[i].last;
    }
    /* deterministic clock: 10 transactions per second from start_time */
    uint64_t us = w->s->binlog.start_time * 1000000ull + (w->txn_no - 1) * 100000ull;
    ti->commit_us = us;
    ti->ts = (uint32_t)(us / 1000000ull);
}

static int do_ddl(sw_writer *w, const char *db, const char *sql, cdch_err *err)
{
    sw_txn_info ti;
    txn_info_next(w, &ti);
    ti.may_have_sbr = true;
    cdch_buf_reset(&w->cache);
    w->xid++;
    if (sw_put_ddl(w, &ti, db, sql, &w->cache, err) != 0)
        return -1;
    return finish_txn(w, &ti, false, err);
}

static int do_txn(sw_writer *w, const cdch_sc_txn *t, cdch_err *err)
{
    if (t->gtid_tag)
        w->tag_now = t->gtid_tag;
    if (t->compress == CDCH_SC_COMPRESS_ON)
        w->compress_now = true;
    else if (t->compress == CDCH_SC_COMPRESS_OFF)
        w->compress_now = false;
    if (t->kind == CDCH_SC_TXN_DDL)
        return do_ddl(w, t->ddl_db ? t->ddl_db : "", t->ddl_sql, err);
    if (t->kind != CDCH_SC_TXN_DML && t->kind != CDCH_SC_TXN_EMPTY)
        return 0; /* a bare compression switch */
    sw_txn_info ti;
    txn_info_next(w, &ti);
    cdch_buf_reset(&w->cache);
    bool transactional = true;
    for (size_t i = 0; i < t->nstmts; i++)
        transactional &= t->stmts[i].table->transactional;
    if (sw_put_dml(w, &ti, t, transactional, &w->cache, err) != 0)
        return -1;
    bool want = w->mode == CDCH_STREAM_COMPRESSED || (w->mode == CDCH_STREAM_FLIP && w->compress_now);
    bool compress = want && transactional && t->kind == CDCH_SC_TXN_DML && t->nstmts > 0;
    return finish_txn(w, &ti, compress, err);
}

/* ---- directory handling --------------------------------------------------------- */

static int rm_tree(const char *path)
{
    DIR *d = opendir(path);
    if (!d)
        return unlink(path);
    struct dirent *e;
    while ((e = readdir(d))) {
        if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
            continue;
        char p[4096];
        snprintf(p, sizeof p, "%s/%s", path, e->d_name);
        struct stat st;
        if (lstat(p, &st) == 0 && S_ISDIR(st.st_mode))
            rm_tree(p);
        else
            unlink(p);
    }
    closedir(d);
    return rmdir(path);
}

int cdch_stream_rm_tree(const char *path) { return rm_tree(path); }

static int dir_is_empty(const char *path)
{
    DIR *d = opendir(path);
    if (!d)
        return -1;
    struct dirent *e;
    int empty = 1;
    while ((e = readdir(d)))
        if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..")) {
            empty = 0;
            break;
        }
    closedir(d);
    return empty;
}

int cdch_stream_prepare_out(const char *out_dir, char *tmp, size_t tmpsz, cdch_err *err)
{
    struct stat st;
    if (stat(out_dir, &st) == 0) {
        if (!S_ISDIR(st.st_mode))
            return cdch_err_set(err, "%s exists and is not a directory", out_dir);
        if (dir_is_empty(out_dir) != 1)
            return cdch_err_set(err, "%s exists and is not empty: remove it or choose another output directory",
                                out_dir);
    }
    size_t n = strlen(out_dir);
    while (n > 1 && out_dir[n - 1] == '/') /* "cap/" names the directory cap: its temporary is cap.tmp.PID */
        n--;
    snprintf(tmp, tmpsz, "%.*s.tmp.%ld", (int)n, out_dir, (long)getpid());
    rm_tree(tmp);
    if (mkdir(tmp, 0777) != 0)
        return cdch_err_set(err, "cannot create %s: %s", tmp, strerror(errno));
    return 0;
}

int cdch_stream_commit_out(const char *tmp, const char *out_dir, cdch_err *err)
{
    struct stat st;
    if (stat(out_dir, &st) == 0)
        rmdir(out_dir); /* empty (checked before) */
    if (rename(tmp, out_dir) != 0) {
        int e = errno;
        rm_tree(tmp);
        return cdch_err_set(err, "cannot move %s to %s: %s", tmp, out_dir, strerror(e));
    }
    return 0;
}

/* ---- driver ------------------------------------------------------------------------- */

static int write_manifest(sw_writer *w, cdch_err *err)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/stream.json", w->dir);
    FILE *f = fopen(path, "w");
    if (!f)
        return cdch_err_set(err, "cannot create %s: %s", path, strerror(errno));
    char uuid[37];
    cdch_uuid_format(w->s->server.uuid, uuid);
    cdch_buf gs = CDCH_BUF_INIT;
    cdch_gtid_set_to_text(&w->executed, &gs);
    fprintf(f,
            "{\"scenario\":\"%s\",\"mode\":\"%s\",\"server_version\":\"%s\",\"server_id\":%u,"
            "\"server_uuid\":\"%s\",\"gtid_mode\":%s,\"checksum\":\"%s\",\"row_image\":\"%s\","
            "\"row_metadata\":\"%s\",\"zstd_level\":%d,\"basename\":\"%s\",\"gtid_executed\":\"%s\","
            "\"files\":[%s],\"stats\":{\"files\":%llu,\"bytes\":%llu,\"events\":%llu,\"inner_events\":%llu,"
            "\"transactions\":%llu,\"compressed_transactions\":%llu,\"row_changes\":%llu,"
            "\"row_data_bytes\":%llu,\"max_transaction_bytes\":%llu}}\n",
            w->s->name, cdch_stream_mode_name(w->mode), w->s->server.version, w->s->server.server_id, uuid,
            w->s->server.gtid_mode ? "true" : "false", w->s->binlog.checksum ? "CRC32" : "NONE",
            w->s->binlog.row_image == CDCH_ROW_IMAGE_FULL      ? "FULL"
            : w->s->binlog.row_image == CDCH_ROW_IMAGE_MINIMAL ? "MINIMAL"
                                                                : "NOBLOB",
            w->s->binlog.row_metadata_full ? "FULL" : "MINIMAL", w->s->binlog.zstd_level, w->s->binlog.basename,
            cdch_buf_cstr(&gs), w->manifest_files_buf ? w->manifest_files_buf : "",
            (unsigned long long)w->stats.files, (unsigned long long)w->stats.bytes,
            (unsigned long long)w->stats.events, (unsigned long long)w->stats.inner_events,
            (unsigned long long)w->stats.transactions, (unsigned long long)w->stats.compressed_transactions,
            (unsigned long long)w->stats.row_changes, (unsigned long long)w->stats.row_data_bytes,
            (unsigned long long)w->stats.max_transaction_bytes);
    cdch_buf_free(&gs);
    if (fclose(f) != 0)
        return cdch_err_set(err, "cannot write %s: %s", path, strerror(errno));
    return 0;
}

static void writer_free(sw_writer *w)
{
    if (w->bin)
        fclose(w->bin);
    if (w->index)
        fclose(w->index);
    if (w->expected)
        fclose(w->expected);
    if (w->manifest_files)
        fclose(w->manifest_files);
    free(w->binbuf); /* after the fclose of bin that used it */
    free(w->manifest_files_buf);
    cdch_zstd_compressor_free(w->zstd);
    cdch_buf_free(&w->cache);
    cdch_buf_free(&w->evbuf);
    cdch_buf_free(&w->zbuf);
    cdch_buf_free(&w->rowbuf);
    cdch_buf_free(&w->exp);
    cdch_buf_free(&w->tmp);
    free(w->exp_lines);
    cdch_arena_free(&w->arena);
}

static int generate(sw_writer *w, cdch_err *err)
{
    const cdch_scenario *s = w->s;
    char path[4096];
    snprintf(path, sizeof path, "%s/%s.index", w->dir, s->binlog.basename);
    if (!(w->index = fopen(path, "w")))
        return cdch_err_set(err, "cannot create %s: %s", path, strerror(errno));
    snprintf(path, sizeof path, "%s/expected.jsonl", w->dir);
    if (!(w->expected = fopen(path, "w")))
        return cdch_err_set(err, "cannot create %s: %s", path, strerror(errno));
    w->manifest_files = open_memstream(&w->manifest_files_buf, &w->manifest_files_len);
    if (!w->manifest_files)
        return cdch_err_set(err, "out of memory");
    if (cdch_fde_for_version(s->server.version, s->binlog.checksum ? CDCH_CHECKSUM_CRC32 : CDCH_CHECKSUM_OFF,
                             &w->fde, err) != 0)
        return -1;
    if (sw_tables_init(w, err) != 0)
        return -1;
    w->compress_now = false;
    if (open_file(w, (uint32_t)s->binlog.start_time, err) != 0)
        return -1;
    if (s->binlog.create_tables) {
        for (size_t i = 0; i < s->ndbs; i++) {
            cdch_buf_reset(&w->tmp);
            cdch_ddl_create_database(&s->dbs[i], &w->tmp);
            if (do_ddl(w, "", cdch_buf_cstr(&w->tmp), err) != 0)
                return -1;
        }
        for (size_t i = 0; i < s->ntables; i++) {
            cdch_buf sql = CDCH_BUF_INIT;
            cdch_ddl_create_table(&s->tables[i], &sql);
            int rc = do_ddl(w, s->tables[i].db, cdch_buf_cstr(&sql), err);
            cdch_buf_free(&sql);
            if (rc != 0)
                return -1;
        }
    }
    for (size_t i = 0; i < s->nitems; i++) {
        const cdch_sc_item *it = &s->items[i];
        if (it->kind == CDCH_SC_ITEM_TXN) {
            if (do_txn(w, &it->u.txn, err) != 0)
                return cdch_err_wrap(err, "%s:%u:%u: transaction", s->path, it->u.txn.mark.line,
                                     it->u.txn.mark.column);
            continue;
        }
        cdch_bulk_cursor *bc = cdch_bulk_start(s, &it->u.bulk);
        if (!bc)
            return cdch_err_set(err, "%s:%u:%u: cannot start bulk generator", s->path, it->u.bulk.mark.line,
                                it->u.bulk.mark.column);
        cdch_sc_txn t;
        int rc;
        while ((rc = cdch_bulk_next(bc, &t)) == 1) {
            if (do_txn(w, &t, err) != 0) {
                cdch_bulk_free(bc);
                return cdch_err_wrap(err, "%s:%u:%u: bulk transaction", s->path, it->u.bulk.mark.line,
                                     it->u.bulk.mark.column);
            }
        }
        cdch_bulk_free(bc);
        if (rc < 0)
            return cdch_err_set(err, "%s:%u:%u: bulk generator failed", s->path, it->u.bulk.mark.line,
                                it->u.bulk.mark.column);
    }
    uint32_t end_ts = (uint32_t)((s->binlog.start_time * 1000000ull + w->txn_no * 100000ull) / 1000000ull);
    if (s->binlog.end_with_stop) {
        cdch_event ev;
        ev_init(&ev, w, CDCH_EV_STOP, end_ts, 0);
        if (emit_event(w, &ev, err) != 0)
            return -1;
    } else {
        /* the last file is still open on a live server: set
         * LOG_EVENT_BINLOG_IN_USE_F in its FDE (the CRC is computed with
         * that flag clear, so it stays valid) */
        if (fflush(w->bin) != 0 || fseek(w->bin, (long)(w->fde_offset + 17), SEEK_SET) != 0 ||
            fputc(CDCH_LOG_EVENT_BINLOG_IN_USE_F, w->bin) == EOF || fseek(w->bin, 0, SEEK_END) != 0)
            return cdch_err_set(err, "cannot update %s/%s: %s", w->dir, w->file_name, strerror(errno));
    }
    if (close_file(w, err) != 0)
        return -1;
    fflush(w->manifest_files);
    if (fclose(w->index) != 0 || fclose(w->expected) != 0) {
        w->index = w->expected = NULL;
        return cdch_err_set(err, "cannot write the index or expected.jsonl in %s: %s", w->dir, strerror(errno));
    }
    w->index = w->expected = NULL;
    return write_manifest(w, err);
}

int cdch_stream_generate(const cdch_scenario *s, cdch_stream_mode mode, const char *out_dir,
                         cdch_stream_stats *stats, cdch_err *err)
{
    if (s->capture_dir) /* a captured stream is served as recorded, not generated (replay.h) */
        return cdch_replay_generate(s, mode, out_dir, stats, err);
    char tmp[4096];
    if (cdch_stream_prepare_out(out_dir, tmp, sizeof tmp, err) != 0)
        return -1;
    sw_writer *w = calloc(1, sizeof *w);
    if (!w)
        return cdch_err_set(err, "out of memory");
    w->s = s;
    w->mode = mode;
    w->dir = tmp;
    w->xid = 100;
    int rc = generate(w, err);
    if (stats)
        *stats = w->stats;
    writer_free(w);
    free(w);
    if (rc != 0) {
        rm_tree(tmp);
        return -1;
    }
    return cdch_stream_commit_out(tmp, out_dir, err);
}
