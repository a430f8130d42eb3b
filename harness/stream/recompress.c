/* recompress.c — captured binlog files rewritten as MySQL 8 writes them with
 * binlog_transaction_compression ON / OFF / switched on mid-stream. See
 * recompress.h for what is rewritten and what is kept. */
#include "recompress.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "arena.h"
#include "buf.h"
#include "cursor.h"
#include "event.h"
#include "reader.h"
#include "stream.h"
#include "sys.h"
#include "xalloc.h"

/* ---- input resolution -------------------------------------------------------- */

static const char *base_name(const char *p)
{
    const char *s = strrchr(p, '/');
    return s ? s + 1 : p;
}

static bool is_dir(const char *p)
{
    struct stat st;
    return stat(p, &st) == 0 && S_ISDIR(st.st_mode);
}

static void in_add(cdch_recompress_input *in, char *path)
{
    in->paths = cdch_xrealloc(in->paths, (in->n + 1) * sizeof *in->paths);
    in->paths[in->n++] = path;
}

/* The one *.index file of dir, or an error. */
static int find_index(const char *dir, char *name, size_t namesz, cdch_err *err)
{
    DIR *d = opendir(dir);
    if (!d)
        return cdch_err_set(err, "cannot read directory %s: %s", dir, strerror(errno));
    int found = 0;
    struct dirent *e;
    while ((e = readdir(d))) {
        size_t l = strlen(e->d_name);
        if (l > 6 && strcmp(e->d_name + l - 6, ".index") == 0) {
            if (found++ == 0)
                snprintf(name, namesz, "%s", e->d_name);
            else if (found == 2)
                cdch_err_set(err, "%s holds several index files (%s, %s): name the binlog files instead", dir, name,
                             e->d_name);
        }
    }
    closedir(d);
    if (found == 0)
        return cdch_err_set(err,
                            "%s has no *.index file (the binlog index a server or `cdcharness gen` writes beside "
                            "the binlogs): name the binlog files instead, in order",
                            dir);
    return found == 1 ? 0 : -1;
}

static int resolve_dir(const char *dir, cdch_recompress_input *in, cdch_err *err)
{
    char idx[256];
    if (find_index(dir, idx, sizeof idx, err) != 0)
        return -1;
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", dir, idx);
    size_t len;
    char *text = cdch_read_file(path, 64u << 20, &len, err);
    if (!text)
        return -1;
    in->index_name = cdch_xstrdup(idx);
    int rc = 0;
    for (char *line = text, *next; line && *line && rc == 0; line = next) {
        next = strchr(line, '\n');
        if (next)
            *next++ = '\0';
        size_t l = strlen(line);
        while (l && (line[l - 1] == '\r' || line[l - 1] == ' '))
            line[--l] = '\0';
        if (!l)
            continue;
        char file[4096];
        snprintf(file, sizeof file, "%s/%s", dir, base_name(line));
        struct stat st;
        if (stat(file, &st) != 0 || !S_ISREG(st.st_mode))
            rc = cdch_err_set(err, "%s lists %s, but %s is not there", path, line, file);
        else
            in_add(in, cdch_xstrdup(file));
    }
    free(text);
    if (rc == 0 && in->n == 0)
        rc = cdch_err_set(err, "%s lists no binlog files", path);
    return rc;
}

int cdch_recompress_resolve(int nargs, char *const *args, cdch_recompress_input *in, cdch_err *err)
{
    memset(in, 0, sizeof *in);
    int rc = 0;
    if (nargs == 1 && is_dir(args[0])) {
        rc = resolve_dir(args[0], in, err);
    } else {
        for (int i = 0; i < nargs && rc == 0; i++) {
            if (is_dir(args[i]))
                rc = cdch_err_set(err, "%s is a directory: give one directory (with its index) or binlog files",
                                  args[i]);
            else
                in_add(in, cdch_xstrdup(args[i]));
        }
        if (rc == 0 && in->n) {
            const char *b = base_name(in->paths[0]);
            const char *dot = strrchr(b, '.');
            size_t l = dot && dot != b ? (size_t)(dot - b) : strlen(b);
            in->index_name = cdch_xcalloc(l + 7, 1);
            memcpy(in->index_name, b, l);
            memcpy(in->index_name + l, ".index", 7);
        }
    }
    for (size_t i = 0; i < in->n && rc == 0; i++)
        for (size_t j = 0; j < i && rc == 0; j++)
            if (strcmp(base_name(in->paths[i]), base_name(in->paths[j])) == 0)
                rc = cdch_err_set(err, "%s and %s have the same name; the output keeps file names", in->paths[j],
                                  in->paths[i]);
    if (rc == 0 && in->index_name)
        for (size_t i = 0; i < in->n && rc == 0; i++)
            if (strcmp(base_name(in->paths[i]), in->index_name) == 0)
                rc = cdch_err_set(err, "%s would be overwritten by the index file %s", in->paths[i], in->index_name);
    if (rc != 0)
        cdch_recompress_input_free(in);
    return rc;
}

void cdch_recompress_input_free(cdch_recompress_input *in)
{
    for (size_t i = 0; i < in->n; i++)
        free(in->paths[i]);
    free(in->paths);
    free(in->index_name);
    memset(in, 0, sizeof *in);
}

/* CPU time of the calling thread (zstd's share of a rewrite, apart from a
 * rewrite running beside it). */
/* ---- the rewriter ---------------------------------------------------------------- */

/* One transaction as MySQL's transaction cache holds it. */
typedef struct rc_txn {
    bool open;
    uint64_t no;       /* 1-based over the whole input */
    cdch_buf gtid;     /* the GTID event as read (checksum included) */
    cdch_buf inner;    /* the events after it: inner form (no checksum, log_pos 0) */
    size_t n_events;
    size_t last_off;   /* offset of the last event in inner */
    bool ended;        /* its XID / XA_PREPARE / commit QUERY / payload was seen */
    bool transactional;/* ended with XID or XA_PREPARE */
    bool row_based;    /* only BEGIN|XA START, ROWS_QUERY, TABLE_MAP, rows, XA END before the end */
    bool has_rows;
} rc_txn;

typedef struct rc_ctx {
    const cdch_recompress_opts *o;
    cdch_recompress_stats *st;
    const char *name;      /* input path, for messages */
    FILE *out;
    char *outbuf;          /* out's stdio buffer, CDCH_IO_BUF bytes, reused file to file */
    const char *out_path;
    uint64_t pos;          /* output position in the current file */
    bool crc;              /* the current file's events carry CRC32 */
    bool have_fde;
    uint32_t version;      /* the current file's server version (80028) */
    cdch_decoder *dec;
    cdch_arena arena;      /* per event (decoded GTID, QUERY, payload) */
    cdch_zstd_compressor *z;
    cdch_buf zbuf, pbuf, gbuf, hbuf;
    rc_txn t;
    uint64_t txn_no;
} rc_ctx;


/* CRC32 of an event given its header (19 bytes, possibly patched) and its
 * body: a FORMAT_DESCRIPTION's is computed with LOG_EVENT_BINLOG_IN_USE_F
 * clear, so it stays valid when the server clears the flag. */
static uint32_t event_crc(const uint8_t *hdr, const uint8_t *body, size_t body_len)
{
    uint8_t h[CDCH_HEADER_LEN];
    memcpy(h, hdr, CDCH_HEADER_LEN);
    if (h[4] == CDCH_EV_FORMAT_DESCRIPTION)
        h[17] &= (uint8_t)~CDCH_LOG_EVENT_BINLOG_IN_USE_F;
    return cdch_crc32(cdch_crc32(0, h, CDCH_HEADER_LEN), body, body_len);
}

static int put(rc_ctx *c, const void *p, size_t n, cdch_err *err)
{
    if (n && c->out && fwrite(p, 1, n, c->out) != n)
        return cdch_err_set(err, "cannot write %s: %s", c->out_path, strerror(errno));
    c->pos += n;
    c->st->bytes_out += n;
    return 0;
}

/* Write event e (n bytes, without checksum) at the current position: its
 * size and log_pos patched, a CRC32 appended when the file has them (a
 * FORMAT_DESCRIPTION always has its 4 bytes). */
static int emit(rc_ctx *c, const uint8_t *e, size_t n, cdch_err *err)
{
    bool crc = c->crc || e[4] == CDCH_EV_FORMAT_DESCRIPTION;
    uint64_t size = n + (crc ? CDCH_CHECKSUM_LEN : 0);
    if (c->pos + size > UINT32_MAX)
        return cdch_err_set(err, "%s would pass 4 GiB (end_log_pos is 32-bit)", c->out_path);
    cdch_buf *h = &c->hbuf;
    cdch_buf_reset(h);
    cdch_put_bytes(h, e, CDCH_HEADER_LEN);
    cdch_buf_patch_le(h, 9, size, 4);
    cdch_buf_patch_le(h, 13, c->pos + size, 4);
    if (crc)
        cdch_put_le32(h, event_crc(h->data, e + CDCH_HEADER_LEN, n - CDCH_HEADER_LEN));
    if (put(c, h->data, CDCH_HEADER_LEN, err) != 0 || put(c, e + CDCH_HEADER_LEN, n - CDCH_HEADER_LEN, err) != 0)
        return -1;
    return put(c, h->data + CDCH_HEADER_LEN, h->len - CDCH_HEADER_LEN, err);
}

/* An event read from the input, written outside any transaction: copied as
 * it is when its position does not move, else re-positioned. */
static int pass_through(rc_ctx *c, const cdch_raw_event *ev, size_t body_end, cdch_err *err)
{
    if (cdch_le32(ev->data + 13) == c->pos + ev->len)
        return put(c, ev->data, ev->len, err);
    return emit(c, ev->data, body_end, err);
}

/* ---- which transactions MySQL compresses ------------------------------------------- */

static bool query_is(const cdch_bytes *q, const char *word)
{
    size_t l = strlen(word);
    if (q->len < l)
        return false;
    for (size_t i = 0; i < l; i++)
        if ((q->ptr[i] | 0x20) != (word[i] | 0x20) && !(word[i] == ' ' && q->ptr[i] == ' '))
            return false;
    return q->len == l || word[l - 1] == ' ';
}

static bool is_rows(uint8_t type)
{
    return type == CDCH_EV_WRITE_ROWS || type == CDCH_EV_UPDATE_ROWS || type == CDCH_EV_DELETE_ROWS ||
           type == CDCH_EV_PARTIAL_UPDATE_ROWS || type == CDCH_EV_WRITE_ROWS_V1 ||
           type == CDCH_EV_UPDATE_ROWS_V1 || type == CDCH_EV_DELETE_ROWS_V1;
}

/* Account for one event of the open transaction (decoded QUERY text in q,
 * else NULL): what it says about shall_compress, and whether it ends the
 * transaction. `first`: it is the first event after the GTID event. */
static void classify(rc_txn *t, uint8_t type, const cdch_bytes *q, bool first)
{
    switch (type) {
    case CDCH_EV_QUERY:
        if (first && (query_is(q, "BEGIN") || query_is(q, "XA START ")))
            return;
        if (!first && query_is(q, "XA END "))
            return;
        t->row_based = false;
        /* DDL (a statement of its own), COMMIT / ROLLBACK of a
         * non-transactional change, XA COMMIT / ROLLBACK: the end */
        if (first || query_is(q, "COMMIT") || query_is(q, "ROLLBACK"))
            t->ended = true;
        return;
    case CDCH_EV_XID:
    case CDCH_EV_XA_PREPARE:
        t->ended = t->transactional = true;
        return;
    case CDCH_EV_TABLE_MAP:
    case CDCH_EV_ROWS_QUERY:
        if (first)
            t->row_based = false;
        return;
    default:
        if (is_rows(type) && !first) {
            t->has_rows = true;
            return;
        }
        t->row_based = false; /* INCIDENT, INTVAR/RAND/USER_VAR (statements), anything else */
        return;
    }
}

/* ---- transactions --------------------------------------------------------------------- */

static void txn_begin(rc_ctx *c, const cdch_raw_event *ev)
{
    rc_txn *t = &c->t;
    t->open = true;
    t->no = ++c->txn_no;
    cdch_buf_reset(&t->gtid);
    cdch_put_bytes(&t->gtid, ev->data, ev->len); /* as read: the decoder checks its framing */
    cdch_buf_reset(&t->inner);
    t->n_events = 0;
    t->last_off = 0;
    t->ended = t->transactional = t->has_rows = false;
    t->row_based = true;
    c->st->transactions++;
}

/* Append n bytes of one event (without checksum) in inner form. */
static void txn_append(rc_txn *t, const uint8_t *e, size_t n)
{
    t->last_off = t->inner.len;
    cdch_put_bytes(&t->inner, e, n);
    cdch_buf_patch_le(&t->inner, t->last_off + 9, n, 4);
    cdch_buf_patch_le(&t->inner, t->last_off + 13, 0, 4);
    t->n_events++;
}

/* A TRANSACTION_PAYLOAD of the input: its inner events join the transaction
 * (they are already in inner form), which it ends. */
static int txn_unpack(rc_ctx *c, const cdch_raw_event *ev, cdch_err *err)
{
    rc_txn *t = &c->t;
    cdch_event pe;
    if (cdch_decode_event(c->dec, ev->data, ev->len, &c->arena, &pe, err) != 0)
        return -1;
    const cdch_payload *p = &pe.u.payload;
    size_t base = t->inner.len;
    cdch_put_bytes(&t->inner, p->uncompressed.ptr, p->uncompressed.len);
    for (size_t i = 0; i < p->n_inner; i++) {
        const cdch_event *ie = &p->inner[i];
        if (ie->h.type == CDCH_EV_TRANSACTION_PAYLOAD)
            return cdch_err_set(err, "TRANSACTION_PAYLOAD inside a TRANSACTION_PAYLOAD");
        classify(t, ie->h.type, ie->h.type == CDCH_EV_QUERY ? &ie->u.query.query : NULL, t->n_events == 0);
        t->last_off = base + p->inner_offset[i];
        t->n_events++;
    }
    t->ended = true;
    c->st->payloads_in++;
    return 0;
}

/* Encode the transaction's GTID event (without checksum) with the
 * transaction_length that covers itself and `rest` bytes, into c->gbuf. */
static int encode_gtid(rc_ctx *c, uint64_t rest, cdch_err *err)
{
    cdch_event g;
    if (cdch_decode_event(c->dec, c->t.gtid.data, c->t.gtid.len, &c->arena, &g, err) != 0)
        return -1;
    const cdch_encode_opts o = {false, false, 3, false};
    size_t crc = c->crc ? CDCH_CHECKSUM_LEN : 0;
    g.h.log_pos = 0;
    /* The length's own lenenc width changes the event's size: start from
     * the smallest width and grow until it holds (the stream writer's
     * gtid_event_size, so both write the same length). */
    g.u.gtid.transaction_length = 0;
    cdch_buf_reset(&c->gbuf);
    if (cdch_encode_event(&g, &o, true, &c->gbuf, err) != 0)
        return -1;
    size_t size = c->gbuf.len;
    for (int i = 0; i < 4; i++) {
        g.u.gtid.transaction_length = size + crc + rest;
        cdch_buf_reset(&c->gbuf);
        if (cdch_encode_event(&g, &o, true, &c->gbuf, err) != 0)
            return -1;
        if (c->gbuf.len == size)
            break;
        size = c->gbuf.len;
    }
    return 0;
}

/* Compress the held transaction into one TRANSACTION_PAYLOAD event in
 * c->pbuf (no checksum, log_pos 0). Returns 1 when written, 0 when MySQL
 * would fall back to writing it uncompressed (payload above 1 GiB). */
static int make_payload(rc_ctx *c, cdch_err *err)
{
    rc_txn *t = &c->t;
    if (!c->z && !(c->z = cdch_zstd_compressor_new()))
        return cdch_err_set(err, "cannot create a zstd compression context (out of memory?)");
    cdch_buf_reset(&c->zbuf);
    bool timed = c->o->time_zstd; /* two clock reads per transaction, one a system call: only when asked */
    uint64_t t0 = timed ? cdch_now_ns() : 0, cpu0 = timed ? cdch_thread_cpu_ns() : 0;
    if (cdch_zstd_compress_with(c->z, t->inner.data, t->inner.len, c->o->level, c->o->content_size, &c->zbuf,
                                err) != 0)
        return -1;
    if (timed) {
        c->st->zstd_cpu_ns += cdch_thread_cpu_ns() - cpu0;
        c->st->zstd_ns += cdch_now_ns() - t0;
    }
    if (c->zbuf.len + 64 > CDCH_MAX_EVENT_SIZE)
        return 0;
    const uint8_t *last = t->inner.data + t->last_off;
    cdch_event pe;
    memset(&pe, 0, sizeof pe);
    pe.h.type = CDCH_EV_TRANSACTION_PAYLOAD;
    pe.h.timestamp = cdch_le32(last);
    pe.h.server_id = cdch_le32(last + 5);
    cdch_payload_set_zstd(&pe.u.payload, c->zbuf.data, c->zbuf.len, t->inner.len);
    const cdch_encode_opts o = {false, false, c->o->level, c->o->content_size};
    cdch_buf_reset(&c->pbuf);
    if (cdch_encode_event(&pe, &o, true, &c->pbuf, err) != 0)
        return -1;
    c->st->compressed_in_bytes += t->inner.len;
    c->st->compressed_out_bytes += c->zbuf.len;
    if (c->o->on_payload)
        c->o->on_payload(c->o->on_payload_ud, c->zbuf.data, c->zbuf.len, t->inner.len);
    return 1;
}

/* Write the held transaction: GTID event, then one payload or its events. */
static int txn_write(rc_ctx *c, cdch_err *err)
{
    rc_txn *t = &c->t;
    if (!t->open)
        return 0;
    t->open = false;
    if (t->inner.len > c->st->max_transaction_bytes)
        c->st->max_transaction_bytes = t->inner.len;
    uint8_t gtid_flags = t->gtid.len > CDCH_HEADER_LEN ? t->gtid.data[CDCH_HEADER_LEN] : 1;
    if (t->gtid.data[4] == CDCH_EV_GTID_TAGGED) { /* flags are a serialized field: ask the codec */
        cdch_event g;
        gtid_flags = cdch_decode_event(c->dec, t->gtid.data, t->gtid.len, &c->arena, &g, NULL) == 0
                         ? g.u.gtid.gtid_flags : 1;
    }
    bool want = c->o->compress && (c->o->flip_at == 0 || t->no >= c->o->flip_at);
    bool can = t->ended && t->transactional && t->row_based && t->has_rows && !(gtid_flags & 1);
    bool compress = false;
    if (want && can && c->version < 80020)
        c->st->old_server++;
    else if (want && !can)
        c->st->not_compressible++;
    else if (want) {
        int r = make_payload(c, err);
        if (r < 0)
            return -1;
        compress = r == 1;
    }
    size_t crc = c->crc ? CDCH_CHECKSUM_LEN : 0;
    uint64_t rest = compress ? c->pbuf.len + crc : t->inner.len + t->n_events * crc;
    if (encode_gtid(c, rest, err) != 0 || emit(c, c->gbuf.data, c->gbuf.len, err) != 0)
        return -1;
    if (compress) {
        c->st->compressed++;
        c->st->payload_wire_bytes += c->pbuf.len + crc;
        c->st->compressed_in_wire_bytes += t->inner.len + t->n_events * crc;
        return emit(c, c->pbuf.data, c->pbuf.len, err);
    }
    for (size_t off = 0; off < t->inner.len;) {
        uint32_t size = cdch_le32(t->inner.data + off + 9);
        if (emit(c, t->inner.data + off, size, err) != 0)
            return -1;
        off += size;
    }
    return 0;
}

/* ---- one file ----------------------------------------------------------------------------- */

/* Checksum check and length without it; the FORMAT_DESCRIPTION sets the file's
 * checksum setting and server version. */
static int read_event(rc_ctx *c, const cdch_raw_event *ev, size_t *body_end, cdch_err *err)
{
    if (ev->type == CDCH_EV_FORMAT_DESCRIPTION) {
        cdch_event fde;
        if (cdch_decode_event(c->dec, ev->data, ev->len, &c->arena, &fde, err) != 0)
            return -1;
        c->have_fde = true;
        c->crc = fde.u.fde.checksum_alg == CDCH_CHECKSUM_CRC32;
        c->version = fde.u.fde.version_product;
        if (fde.u.fde.version_product < 50601)
            return cdch_err_set(err, "server version %s writes no checksum-aware binlog (MySQL 5.6.1+ needed)",
                                fde.u.fde.server_version);
        *body_end = ev->len - CDCH_CHECKSUM_LEN;
    } else if (!c->have_fde) {
        return cdch_err_set(err, "the first event is %s, not a FORMAT_DESCRIPTION: not a MySQL 5.6+ binlog file",
                            cdch_event_type_name(ev->type));
    } else {
        *body_end = ev->len - (c->crc ? CDCH_CHECKSUM_LEN : 0);
        if (*body_end < CDCH_HEADER_LEN)
            return cdch_err_set(err, "%s event of %zu bytes is too short for its header and checksum",
                                cdch_event_type_name(ev->type), ev->len);
    }
    bool check = c->crc && c->o->verify;
    if (check && event_crc(ev->data, ev->data + CDCH_HEADER_LEN, *body_end - CDCH_HEADER_LEN) != cdch_le32(ev->data + *body_end))
        return cdch_err_set(err, "CRC32 mismatch in %s event: stored 0x%08x, computed 0x%08x",
                            cdch_event_type_name(ev->type), cdch_le32(ev->data + *body_end),
                            event_crc(ev->data, ev->data + CDCH_HEADER_LEN, *body_end - CDCH_HEADER_LEN));
    return 0;
}

static bool is_gtid(uint8_t type)
{
    return type == CDCH_EV_GTID || type == CDCH_EV_ANONYMOUS_GTID || type == CDCH_EV_GTID_TAGGED;
}

static int one_event(rc_ctx *c, const cdch_raw_event *ev, cdch_err *err)
{
    size_t body_end = 0;
    if (read_event(c, ev, &body_end, err) != 0)
        return -1;
    c->st->events_in++;
    rc_txn *t = &c->t;
    if (is_gtid(ev->type)) {
        if (txn_write(c, err) != 0) /* one cut short before it */
            return -1;
        txn_begin(c, ev);
        return 0;
    }
    bool in_txn = t->open && !t->ended && ev->type != CDCH_EV_ROTATE && ev->type != CDCH_EV_STOP &&
                  ev->type != CDCH_EV_FORMAT_DESCRIPTION && ev->type != CDCH_EV_PREVIOUS_GTIDS;
    if (!in_txn) {
        if (txn_write(c, err) != 0)
            return -1;
        return pass_through(c, ev, body_end, err);
    }
    if (ev->type == CDCH_EV_TRANSACTION_PAYLOAD) {
        if (txn_unpack(c, ev, err) != 0)
            return -1;
    } else {
        cdch_event q;
        const cdch_bytes *text = NULL;
        if (ev->type == CDCH_EV_QUERY) {
            if (cdch_decode_event(c->dec, ev->data, ev->len, &c->arena, &q, err) != 0)
                return -1;
            text = &q.u.query.query;
        }
        classify(t, ev->type, text, t->n_events == 0);
        txn_append(t, ev->data, body_end);
    }
    return t->ended ? txn_write(c, err) : 0;
}

static int one_file(rc_ctx *c, const char *path, const char *out_path, cdch_err *err)
{
    c->name = path;
    c->out_path = out_path;
    c->pos = 0;
    c->have_fde = false;
    c->crc = false;
    c->t.open = false;
    cdch_reader *r = cdch_reader_open(path, 0, err);
    if (!r)
        return -1;
    c->dec = cdch_decoder_new();
    cdch_decoder_verify_checksums(c->dec, false); /* read_event checks every event */
    int rc = 0;
    c->out = out_path ? fopen(out_path, "wb") : NULL; /* NULL path: count only */
    if (out_path && !c->out) {
        rc = cdch_err_set(err, "cannot create %s: %s", out_path, strerror(errno));
    } else {
        if (c->out)
            cdch_io_buffer(c->out, &c->outbuf);
        static char magic[] = CDCH_BINLOG_MAGIC;
        rc = put(c, magic, CDCH_BINLOG_MAGIC_LEN, err);
    }
    cdch_raw_event ev;
    int n = 0;
    while (rc == 0 && (n = cdch_reader_next(r, &ev, err)) == 1) {
        rc = one_event(c, &ev, err);
        cdch_arena_reset(&c->arena);
        if (rc != 0)
            cdch_err_wrap(err, "%s: offset %llu", path, (unsigned long long)ev.offset);
    }
    if (rc == 0 && n < 0)
        rc = cdch_err_wrap(err, "%s", path);
    if (rc == 0)
        rc = txn_write(c, err);
    c->st->bytes_in += cdch_reader_offset(r);
    if (c->out && fclose(c->out) != 0 && rc == 0)
        rc = cdch_err_set(err, "cannot write %s: %s", out_path, strerror(errno));
    c->out = NULL;
    c->st->files++;
    cdch_decoder_free(c->dec);
    c->dec = NULL;
    cdch_reader_free(r);
    return rc;
}

static int write_index(const cdch_recompress_input *in, const char *dir, cdch_err *err)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", dir, in->index_name);
    FILE *f = fopen(path, "w");
    if (!f)
        return cdch_err_set(err, "cannot create %s: %s", path, strerror(errno));
    for (size_t i = 0; i < in->n; i++)
        fprintf(f, "./%s\n", base_name(in->paths[i]));
    if (fclose(f) != 0)
        return cdch_err_set(err, "cannot write %s: %s", path, strerror(errno));
    return 0;
}

int cdch_recompress(const cdch_recompress_input *in, const char *out_dir, const cdch_recompress_opts *o,
                    cdch_recompress_stats *stats, cdch_err *err)
{
    if (o->compress && (o->level < 1 || o->level > 22))
        return cdch_err_set(err, "zstd level %d out of range 1..22", o->level);
    char tmp[4096];
    if (out_dir && cdch_stream_prepare_out(out_dir, tmp, sizeof tmp, err) != 0)
        return -1;
    cdch_recompress_stats st;
    memset(&st, 0, sizeof st);
    rc_ctx c;
    memset(&c, 0, sizeof c);
    c.o = o;
    c.st = &st;
    int rc = 0;
    for (size_t i = 0; i < in->n && rc == 0; i++) {
        char out_path[4096 + 256];
        snprintf(out_path, sizeof out_path, "%s/%s", tmp, base_name(in->paths[i]));
        rc = one_file(&c, in->paths[i], out_dir ? out_path : NULL, err);
    }
    if (rc == 0 && out_dir)
        rc = write_index(in, tmp, err);
    cdch_zstd_compressor_free(c.z);
    free(c.outbuf);
    cdch_buf_free(&c.zbuf);
    cdch_buf_free(&c.pbuf);
    cdch_buf_free(&c.gbuf);
    cdch_buf_free(&c.hbuf);
    cdch_buf_free(&c.t.gtid);
    cdch_buf_free(&c.t.inner);
    cdch_arena_free(&c.arena);
    if (stats)
        *stats = st;
    if (!out_dir)
        return rc;
    if (rc != 0) {
        cdch_stream_rm_tree(tmp);
        return -1;
    }
    return cdch_stream_commit_out(tmp, out_dir, err);
}
