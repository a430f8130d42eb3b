/* record_capture.c — the capture directory of `cdcharness record`: binlog
 * files written event by event as received, the index, capture.json and
 * schema.sql, in a temporary directory renamed into place at the end; and,
 * with --tables touched, the set of tables the range maps (TABLE_MAP
 * events, also inside TRANSACTION_PAYLOAD events, which are decompressed
 * for that). */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <zstd.h>

#include "cursor.h"
#include "event.h"
#include "jsonstr.h"
#include "record_internal.h"
#include "stream.h"
#include "xalloc.h"

#define CAP_IOBUF (1u << 20)
#define PL_MAX_UNCOMPRESSED ((size_t)2 * 1024 * 1024 * 1024) /* as the codec's bound */

/* ---- checksums ------------------------------------------------------------------ */

uint8_t rec_fde_checksum_alg(const uint8_t *ev, size_t len)
{
    /* Log_event_footer::get_checksum_alg: servers from 5.6.1 end the FDE with alg + CRC */
    if (len < CDCH_HEADER_LEN + 57 + 5)
        return CDCH_CHECKSUM_UNDEF;
    char ver[51];
    memcpy(ver, ev + CDCH_HEADER_LEN + 2, 50);
    ver[50] = '\0';
    return cdch_version_product(ver) >= 50601 ? ev[len - 5] : CDCH_CHECKSUM_UNDEF;
}

bool rec_crc_ok(const uint8_t *ev, size_t len)
{
    if (len < CDCH_HEADER_LEN + CDCH_CHECKSUM_LEN)
        return false;
    uint32_t want = cdch_le32(ev + len - CDCH_CHECKSUM_LEN);
    if (ev[4] != CDCH_EV_FORMAT_DESCRIPTION || !(ev[17] & CDCH_LOG_EVENT_BINLOG_IN_USE_F))
        return cdch_crc32(0, ev, len - CDCH_CHECKSUM_LEN) == want;
    /* the FDE of a file still open: MySQL computed its CRC with LOG_EVENT_BINLOG_IN_USE_F clear */
    uint8_t flags = (uint8_t)(ev[17] & ~CDCH_LOG_EVENT_BINLOG_IN_USE_F);
    uint32_t crc = cdch_crc32(0, ev, 17);
    crc = cdch_crc32(crc, &flags, 1);
    return cdch_crc32(crc, ev + 18, len - CDCH_CHECKSUM_LEN - 18) == want;
}

/* ---- the set of tables ---------------------------------------------------------- */

static uint64_t name_hash(const uint8_t *db, size_t dl, const uint8_t *t, size_t tl)
{
    uint64_t h = 1469598103934665603ull; /* FNV-1a over db NUL table */
    for (size_t i = 0; i < dl; i++)
        h = (h ^ db[i]) * 1099511628211ull;
    h = (h ^ 0) * 1099511628211ull;
    for (size_t i = 0; i < tl; i++)
        h = (h ^ t[i]) * 1099511628211ull;
    return h;
}

static void tables_reindex(rec_tables *s, size_t icap)
{
    free(s->idx);
    s->idx = cdch_xcalloc(icap, sizeof *s->idx);
    s->icap = icap;
    for (size_t i = 0; i < s->n; i++) {
        size_t j = s->v[i].hash & (icap - 1);
        while (s->idx[j])
            j = (j + 1) & (icap - 1);
        s->idx[j] = (uint32_t)(i + 1);
    }
}

static void tables_add(rec_tables *s, const uint8_t *db, size_t dl, const uint8_t *t, size_t tl)
{
    uint64_t h = name_hash(db, dl, t, tl);
    if (s->icap) {
        for (size_t j = h & (s->icap - 1); s->idx[j]; j = (j + 1) & (s->icap - 1)) {
            const rec_table *e = &s->v[s->idx[j] - 1];
            if (e->hash == h && strlen(e->db) == dl && strlen(e->name) == tl && !memcmp(e->db, db, dl) &&
                !memcmp(e->name, t, tl))
                return;
        }
    }
    if (s->n == s->vcap) {
        s->vcap = s->vcap ? 2 * s->vcap : 16;
        s->v = cdch_xrealloc(s->v, s->vcap * sizeof *s->v);
    }
    rec_table *e = &s->v[s->n++];
    e->db = cdch_xcalloc(dl + 1, 1);
    memcpy(e->db, db, dl);
    e->name = cdch_xcalloc(tl + 1, 1);
    memcpy(e->name, t, tl);
    e->hash = h;
    if (2 * s->n >= s->icap)
        tables_reindex(s, s->icap ? 2 * s->icap : 64);
    else {
        size_t j = h & (s->icap - 1);
        while (s->idx[j])
            j = (j + 1) & (s->icap - 1);
        s->idx[j] = (uint32_t)s->n;
    }
}

static void tables_free(rec_tables *s)
{
    for (size_t i = 0; i < s->n; i++) {
        free(s->v[i].db);
        free(s->v[i].name);
    }
    free(s->v);
    free(s->idx);
    memset(s, 0, sizeof *s);
}

size_t rec_cap_ntables(const rec_capture *c) { return c->tables.n; }
const rec_table *rec_cap_table(const rec_capture *c, size_t i) { return &c->tables.v[i]; }

/* TABLE_MAP body: table_id (6) flags (2) db_len db NUL table_len table NUL. */
static void scan_table_map(rec_tables *s, const uint8_t *ev, size_t len)
{
    cdch_cursor c = cdch_cur(ev + CDCH_HEADER_LEN, len - CDCH_HEADER_LEN);
    cdch_skip(&c, 8);
    uint8_t dl = cdch_get_u8(&c);
    const uint8_t *db = cdch_get_bytes(&c, (size_t)dl + 1);
    uint8_t tl = cdch_get_u8(&c);
    const uint8_t *t = cdch_get_bytes(&c, (size_t)tl + 1);
    if (cdch_cur_ok(&c))
        tables_add(s, db, dl, t, tl);
}

/* Decompress a payload into cap->scratch. With the uncompressed size the
 * header gives (MySQL always writes it) one ZSTD_decompressDCtx call on a
 * context kept for the whole capture: creating a context per payload (as
 * cdch_zstd_decompress does) cost 80 % of the recording time on a
 * compressed stream. Without it, the codec's streaming decompression. */
static int zstd_inner(rec_capture *cap, const uint8_t *src, size_t n, uint64_t usize, cdch_err *err)
{
    if (usize > PL_MAX_UNCOMPRESSED)
        return cdch_zstd_decompress(src, n, PL_MAX_UNCOMPRESSED, &cap->scratch, err);
    if (!cap->dctx && !(cap->dctx = ZSTD_createDCtx()))
        return cdch_err_set(err, "cannot create a zstd decompression context (out of memory?)");
    cdch_buf_reserve(&cap->scratch, (size_t)usize + 1);
    size_t r = ZSTD_decompressDCtx(cap->dctx, cap->scratch.data, (size_t)usize, src, n);
    if (ZSTD_isError(r))
        return cdch_err_set(err, "zstd: %s (header says %" PRIu64 " bytes uncompressed)", ZSTD_getErrorName(r),
                            usize);
    if (r != usize)
        return cdch_err_set(err, "the payload decompresses to %zu bytes, its header says %" PRIu64, r, usize);
    cap->scratch.len = r;
    return 0;
}

/* The table maps inside a TRANSACTION_PAYLOAD: its TLV header (payload
 * size, compression type), the zstd frame (or the bytes as they are, type
 * NONE), then the inner events' headers. */
static int scan_payload(rec_capture *cap, const uint8_t *ev, size_t len, cdch_err *err)
{
    cdch_cursor c = cdch_cur(ev + CDCH_HEADER_LEN, len - CDCH_HEADER_LEN);
    uint64_t size = UINT64_MAX, ctype = UINT64_MAX, usize = UINT64_MAX;
    bool bad = false;
    for (;;) {
        uint64_t type = cdch_get_lenenc(&c, &bad);
        if (!cdch_cur_ok(&c) || bad)
            return cdch_err_set(err, "TRANSACTION_PAYLOAD header is truncated (no end mark)");
        if (type == 0)
            break;
        uint64_t flen = cdch_get_lenenc(&c, &bad);
        if (!cdch_cur_ok(&c) || bad || flen > cdch_cur_left(&c))
            return cdch_err_set(err, "TRANSACTION_PAYLOAD header field %llu overruns the event",
                                (unsigned long long)type);
        cdch_cursor f = cdch_get_sub(&c, (size_t)flen);
        if (type == 1)
            size = cdch_get_lenenc(&f, &bad);
        else if (type == 2)
            ctype = cdch_get_lenenc(&f, &bad);
        else if (type == 3)
            usize = cdch_get_lenenc(&f, &bad);
    }
    if (size == UINT64_MAX || ctype == UINT64_MAX || size > cdch_cur_left(&c))
        return cdch_err_set(err, "TRANSACTION_PAYLOAD header lacks its size or compression type, or overruns");
    const uint8_t *data = c.p, *inner = data;
    size_t n = (size_t)size;
    if (ctype == CDCH_COMPRESSION_ZSTD) {
        cdch_buf_reset(&cap->scratch);
        if (zstd_inner(cap, data, n, usize, err) != 0)
            return cdch_err_wrap(err, "TRANSACTION_PAYLOAD does not decompress");
        inner = cap->scratch.data;
        n = cap->scratch.len;
    } else if (ctype != CDCH_COMPRESSION_NONE) {
        return cdch_err_set(err, "TRANSACTION_PAYLOAD compression type %llu is unknown",
                            (unsigned long long)ctype);
    }
    for (size_t off = 0; off + CDCH_HEADER_LEN <= n;) {
        uint32_t el = cdch_le32(inner + off + 9);
        if (el < CDCH_HEADER_LEN || el > n - off)
            return cdch_err_set(err, "TRANSACTION_PAYLOAD: inner event at offset %zu has a bad length %u", off, el);
        if (inner[off + 4] == CDCH_EV_TABLE_MAP)
            scan_table_map(&cap->tables, inner + off, el);
        off += el;
    }
    return 0;
}

/* ---- the directory -------------------------------------------------------------- */

int rec_cap_begin(rec_capture *c, const char *out_dir, cdch_err *err)
{
    memset(c, 0, sizeof *c);
    c->out_dir = out_dir;
    if (cdch_stream_prepare_out(out_dir, c->tmp, sizeof c->tmp, err) != 0) {
        c->tmp[0] = '\0';
        return -1;
    }
    return 0;
}

static int close_file(rec_capture *c, cdch_err *err)
{
    if (!c->f)
        return 0;
    int rc = fclose(c->f);
    c->f = NULL;
    c->sizes[c->nfiles - 1] = c->cur_size;
    if (rc != 0)
        return cdch_err_set(err, "cannot write %s/%s: %s", c->tmp, c->cur, strerror(errno));
    return 0;
}

static bool name_ok(const char *name)
{
    size_t n = strlen(name);
    return n > 0 && n < 256 && !strchr(name, '/') && strcmp(name, ".") && strcmp(name, "..") &&
           strcmp(name, "capture.json") && strcmp(name, "schema.sql") && (n < 6 || strcmp(name + n - 6, ".index"));
}

int rec_cap_file(rec_capture *c, const char *name, cdch_err *err)
{
    if (c->f && strcmp(name, c->cur) == 0)
        return 0;
    if (!name_ok(name))
        return cdch_err_set(err, "the server names a binlog file '%s', which cannot be a file name in the capture",
                            name);
    for (size_t i = 0; i < c->nfiles; i++)
        if (strcmp(c->names[i], name) == 0)
            return cdch_err_set(err, "the stream comes back to binlog file %s after leaving it", name);
    if (close_file(c, err) != 0)
        return -1;
    char path[4600];
    snprintf(path, sizeof path, "%s/%s", c->tmp, name);
    c->f = fopen(path, "wb");
    if (!c->f)
        return cdch_err_set(err, "cannot create %s: %s", path, strerror(errno));
    if (!c->iobuf)
        c->iobuf = cdch_xcalloc(CAP_IOBUF, 1);
    setvbuf(c->f, c->iobuf, _IOFBF, CAP_IOBUF);
    c->names = cdch_xrealloc(c->names, (c->nfiles + 1) * sizeof *c->names);
    c->sizes = cdch_xrealloc(c->sizes, (c->nfiles + 1) * sizeof *c->sizes);
    c->names[c->nfiles] = cdch_xstrdup(name);
    c->sizes[c->nfiles] = 0;
    c->nfiles++;
    snprintf(c->cur, sizeof c->cur, "%s", name);
    c->cur_has_fde = false;
    c->cur_size = CDCH_BINLOG_MAGIC_LEN;
    if (fwrite(CDCH_BINLOG_MAGIC, 1, CDCH_BINLOG_MAGIC_LEN, c->f) != CDCH_BINLOG_MAGIC_LEN)
        return cdch_err_set(err, "cannot write %s: %s", path, strerror(errno));
    return 0;
}

int rec_cap_event(rec_capture *c, const uint8_t *ev, size_t len, cdch_err *err)
{
    if (!c->f)
        return cdch_err_set(err, "an event arrived before any ROTATE named its binlog file");
    if (fwrite(ev, 1, len, c->f) != len)
        return cdch_err_set(err, "cannot write %s/%s: %s", c->tmp, c->cur, strerror(errno));
    c->cur_size += len;
    c->bytes += len;
    c->events++;
    if (ev[4] == CDCH_EV_FORMAT_DESCRIPTION)
        c->cur_has_fde = true;
    else if (!c->scan_tables)
        return 0;
    else if (ev[4] == CDCH_EV_TABLE_MAP)
        scan_table_map(&c->tables, ev, len);
    else if (ev[4] == CDCH_EV_TRANSACTION_PAYLOAD && scan_payload(c, ev, len, err) != 0)
        return cdch_err_wrap(err, "%s at end position %u", c->cur, cdch_le32(ev + 13));
    return 0;
}

static int write_text(const rec_capture *c, const char *name, const char *text, size_t n, cdch_err *err)
{
    char path[4600];
    snprintf(path, sizeof path, "%s/%s", c->tmp, name);
    FILE *f = fopen(path, "wb");
    if (!f)
        return cdch_err_set(err, "cannot create %s: %s", path, strerror(errno));
    bool ok = fwrite(text, 1, n, f) == n;
    if (fclose(f) != 0 || !ok)
        return cdch_err_set(err, "cannot write %s: %s", path, strerror(errno));
    return 0;
}

/* "<base>.index": the base of the first file's name ("mysql-bin.000001" -> "mysql-bin"). */
static void index_name(const rec_capture *c, char *out, size_t n)
{
    const char *first = c->nfiles ? c->names[0] : "binlog";
    const char *dot = strrchr(first, '.');
    size_t bl = dot && dot != first ? (size_t)(dot - first) : strlen(first);
    snprintf(out, n, "%.*s.index", (int)bl, first);
}

int rec_cap_finish(rec_capture *c, const char *fields_json, const char *schema_sql,
                   bool (*in_schema)(void *ctx, const char *db, const char *table), void *ctx, cdch_err *err)
{
    if (close_file(c, err) != 0)
        return -1;
    cdch_buf b = CDCH_BUF_INIT;
    for (size_t i = 0; i < c->nfiles; i++)
        cdch_buf_printf(&b, "./%s\n", c->names[i]);
    char iname[300];
    index_name(c, iname, sizeof iname);
    int rc = write_text(c, iname, (const char *)b.data, b.len, err);
    cdch_buf_reset(&b);
    cdch_buf_printf(&b, "{%s,\"index\":", fields_json);
    cdch_put_json_str(&b, iname, strlen(iname), 0);
    cdch_buf_printf(&b, ",\"bytes\":%llu,\"events\":%llu,\"files\":[", (unsigned long long)c->bytes,
                    (unsigned long long)c->events);
    for (size_t i = 0; i < c->nfiles; i++) {
        cdch_buf_printf(&b, "%s{\"name\":", i ? "," : "");
        cdch_put_json_str(&b, c->names[i], strlen(c->names[i]), 0);
        cdch_buf_printf(&b, ",\"size\":%llu}", (unsigned long long)c->sizes[i]);
    }
    cdch_buf_printf(&b, "],\"tables_scanned\":%s,\"tables\":%s", c->scan_tables ? "true" : "false",
                    c->scan_tables ? "[" : "null");
    for (size_t i = 0; c->scan_tables && i < c->tables.n; i++) {
        const rec_table *t = &c->tables.v[i];
        cdch_put_str(&b, i ? ",{\"db\":" : "{\"db\":");
        cdch_put_json_str(&b, t->db, strlen(t->db), 0);
        cdch_put_str(&b, ",\"table\":");
        cdch_put_json_str(&b, t->name, strlen(t->name), 0);
        cdch_buf_printf(&b, ",\"in_schema\":%s}",
                        !in_schema ? "null" : in_schema(ctx, t->db, t->name) ? "true" : "false");
    }
    cdch_put_str(&b, c->scan_tables ? "]}\n" : "}\n");
    if (rc == 0)
        rc = write_text(c, "capture.json", (const char *)b.data, b.len, err);
    cdch_buf_free(&b);
    if (rc == 0 && schema_sql)
        rc = write_text(c, "schema.sql", schema_sql, strlen(schema_sql), err);
    if (rc == 0)
        rc = cdch_stream_commit_out(c->tmp, c->out_dir, err);
    if (rc == 0)
        c->tmp[0] = '\0'; /* renamed: nothing to remove */
    rec_cap_abort(c);
    return rc;
}

void rec_cap_abort(rec_capture *c)
{
    if (c->f)
        fclose(c->f);
    c->f = NULL;
    if (c->tmp[0])
        cdch_stream_rm_tree(c->tmp);
    c->tmp[0] = '\0';
    for (size_t i = 0; i < c->nfiles; i++)
        free(c->names[i]);
    free(c->names);
    free(c->sizes);
    free(c->iobuf);
    c->names = NULL;
    c->sizes = NULL;
    c->iobuf = NULL;
    c->nfiles = 0;
    tables_free(&c->tables);
    cdch_buf_free(&c->scratch);
    ZSTD_freeDCtx(c->dctx); /* accepts NULL */
    c->dctx = NULL;
}
