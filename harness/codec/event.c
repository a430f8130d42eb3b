/* event.c — decoder context, common header, checksums, and the per-type
 * dispatch of the event codec. The per-type body codecs live in
 * ev_control.c, ev_table_map.c, ev_rows.c and ev_payload.c. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "event_internal.h"

/* ---- table-map cache ------------------------------------------------------ */

typedef struct tm_entry {
    struct tm_entry *next;
    uint64_t table_id;
    cdch_arena arena; /* owns body + tm */
    const uint8_t *body; /* the TABLE_MAP body the entry was decoded from */
    size_t body_len;
    cdch_table_map tm;
} tm_entry;

#define TM_BUCKETS 256

struct cdch_decoder {
    cdch_fde fde;
    bool verify;
    bool checksum_override;
    uint8_t checksum_alg;
    tm_entry *buckets[TM_BUCKETS];
    /* Entries replaced by a different map for the same table id. Rows events
     * decoded earlier still point at them, so they live until the decoder is
     * freed; this only grows when a table id is reused for a new definition. */
    tm_entry *retired;
};

cdch_decoder *cdch_decoder_new(void)
{
    cdch_decoder *d = calloc(1, sizeof *d);
    if (!d)
        return NULL;
    cdch_err e;
    if (cdch_fde_for_version("8.0.28", CDCH_CHECKSUM_CRC32, &d->fde, &e) != 0) {
        free(d);
        return NULL;
    }
    d->verify = true;
    return d;
}

static void free_entries(tm_entry *e)
{
    while (e) {
        tm_entry *n = e->next;
        cdch_arena_free(&e->arena);
        free(e);
        e = n;
    }
}

void cdch_decoder_free(cdch_decoder *d)
{
    if (!d)
        return;
    for (int i = 0; i < TM_BUCKETS; i++)
        free_entries(d->buckets[i]);
    free_entries(d->retired);
    free(d);
}

void cdch_decoder_set_checksum(cdch_decoder *d, uint8_t alg)
{
    d->checksum_override = true;
    d->checksum_alg = alg;
}

void cdch_decoder_verify_checksums(cdch_decoder *d, bool on) { d->verify = on; }

static uint8_t decoder_checksum(const cdch_decoder *d)
{
    return d->checksum_override ? d->checksum_alg : d->fde.checksum_alg;
}

const cdch_table_map *cdch_decoder_table(const cdch_decoder *d, uint64_t table_id)
{
    for (tm_entry *e = d->buckets[table_id % TM_BUCKETS]; e; e = e->next)
        if (e->table_id == table_id)
            return &e->tm;
    return NULL;
}

const cdch_table_map *ev_cache_table_map(cdch_decoder *d, const uint8_t *ev, size_t len, bool inner,
                                         cdch_err *err)
{
    size_t body_end = len;
    if (!inner && decoder_checksum(d) == CDCH_CHECKSUM_CRC32)
        body_end -= CDCH_CHECKSUM_LEN;
    const uint8_t *body = ev + CDCH_HEADER_LEN;
    size_t body_len = body_end - CDCH_HEADER_LEN;

    /* The same table map is re-sent in every transaction: keep the cached
     * entry when the body is identical. */
    cdch_cursor idc = cdch_cur(body, body_len);
    uint64_t id = ev_post_header_len(&d->fde, CDCH_EV_TABLE_MAP) == 6 ? cdch_get_le32(&idc) : cdch_get_le48(&idc);
    tm_entry **pp = &d->buckets[id % TM_BUCKETS];
    tm_entry **slot = NULL;
    for (tm_entry **q = pp; *q; q = &(*q)->next) {
        if ((*q)->table_id == id) {
            if ((*q)->body_len == body_len && memcmp((*q)->body, body, body_len) == 0)
                return &(*q)->tm;
            slot = q;
            break;
        }
    }

    /* Decode a private copy into the entry's own arena so the cached map does
     * not depend on the caller's buffers. */
    tm_entry *fresh = calloc(1, sizeof *fresh);
    if (!fresh) {
        cdch_err_set(err, "out of memory caching a table map");
        return NULL;
    }
    uint8_t *copy = cdch_arena_memdup(&fresh->arena, ev, body_end);
    ev_dctx x = {d, &fresh->arena, &d->fde, copy, inner};
    cdch_cursor c = cdch_cur(copy, body_end);
    cdch_skip(&c, CDCH_HEADER_LEN);
    if (ev_decode_table_map(&x, &c, &fresh->tm, err) != 0) {
        cdch_arena_free(&fresh->arena);
        free(fresh);
        return NULL;
    }
    fresh->table_id = fresh->tm.table_id;
    fresh->body = copy + CDCH_HEADER_LEN;
    fresh->body_len = body_len;
    if (slot) {
        tm_entry *old = *slot;
        fresh->next = old->next;
        *slot = fresh;
        old->next = d->retired;
        d->retired = old;
    } else {
        fresh->next = *pp;
        *pp = fresh;
    }
    return &fresh->tm;
}

/* ---- helpers -------------------------------------------------------------- */

int ev_fail(const ev_dctx *x, const cdch_cursor *c, cdch_err *err, const char *fmt, ...)
{
    if (!err)
        return -1;
    char tmp[CDCH_ERR_MSG_MAX]; /* args may point at err->msg itself */
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(tmp, sizeof tmp, fmt, ap);
    va_end(ap);
    memcpy(err->msg, tmp, sizeof tmp);
    err->offset = c ? (int64_t)(c->p - x->ev) : -1;
    return -1;
}

unsigned ev_post_header_len(const cdch_fde *fde, uint8_t type)
{
    if (type == 0 || type > fde->n_post_header)
        return 0;
    return fde->post_header_len[type - 1];
}

size_t bitmap_count(const uint8_t *bm, size_t nbits)
{
    size_t n = 0;
    for (size_t i = 0; i < nbits; i++)
        n += bit_get(bm, i);
    return n;
}

/* ---- decoding ------------------------------------------------------------- */

static int decode_body(const ev_dctx *x, cdch_event *out, cdch_cursor *c, cdch_err *err)
{
    switch (out->h.type) {
    case CDCH_EV_FORMAT_DESCRIPTION:
        return ev_decode_fde(x, c, &out->u.fde, err);
    case CDCH_EV_ROTATE:
        out->u.rotate.position = cdch_get_le64(c);
        out->u.rotate.next_file = ev_bytes(c->p, cdch_cur_left(c));
        c->p = c->end;
        break;
    case CDCH_EV_PREVIOUS_GTIDS:
        if (cdch_gtid_set_decode(c, x->a, &out->u.prev_gtids, err) != 0)
            return ev_fail(x, c, err, "PREVIOUS_GTIDS: %s", err->msg);
        break;
    case CDCH_EV_GTID:
    case CDCH_EV_ANONYMOUS_GTID:
        return ev_decode_gtid(x, c, &out->u.gtid, err);
    case CDCH_EV_GTID_TAGGED:
        if (cdch_gtid_tagged_decode(c, &out->u.gtid, err) != 0)
            return ev_fail(x, c, err, "GTID_TAGGED: %s", err->msg);
        break;
    case CDCH_EV_QUERY:
        return ev_decode_query(x, c, &out->u.query, err);
    case CDCH_EV_TABLE_MAP:
        return ev_decode_table_map(x, c, &out->u.table_map, err);
    case CDCH_EV_WRITE_ROWS:
    case CDCH_EV_UPDATE_ROWS:
    case CDCH_EV_DELETE_ROWS:
    case CDCH_EV_PARTIAL_UPDATE_ROWS:
        return ev_decode_rows(x, out->h.type, c, &out->u.rows, err);
    case CDCH_EV_XID:
        out->u.xid = cdch_get_le64(c);
        break;
    case CDCH_EV_XA_PREPARE: {
        cdch_xa_prepare *xa = &out->u.xa;
        xa->one_phase = cdch_get_u8(c);
        xa->format_id = (int32_t)cdch_get_le32(c);
        xa->gtrid_len = cdch_get_le32(c);
        xa->bqual_len = cdch_get_le32(c);
        if (c->overrun)
            break;
        if (xa->gtrid_len > 64 || xa->bqual_len > 64)
            return ev_fail(x, c, err, "XA_PREPARE: gtrid length %u / bqual length %u exceed 64", xa->gtrid_len,
                           xa->bqual_len);
        size_t n = (size_t)xa->gtrid_len + xa->bqual_len;
        xa->data = ev_bytes(cdch_get_bytes(c, n), n);
        break;
    }
    case CDCH_EV_ROWS_QUERY:
        out->u.rows_query.len_byte = cdch_get_u8(c);
        out->u.rows_query.text = ev_bytes(c->p, cdch_cur_left(c));
        c->p = c->end;
        break;
    case CDCH_EV_INCIDENT: {
        out->u.incident.code = cdch_get_le16(c);
        uint8_t n = cdch_get_u8(c);
        out->u.incident.message = ev_bytes(cdch_get_bytes(c, n), n);
        break;
    }
    case CDCH_EV_HEARTBEAT:
        out->u.heartbeat.log_file = ev_bytes(c->p, cdch_cur_left(c));
        out->u.heartbeat.position = out->h.log_pos;
        c->p = c->end;
        break;
    case CDCH_EV_HEARTBEAT_V2:
        return ev_decode_heartbeat_v2(x, c, &out->u.heartbeat, err);
    case CDCH_EV_TRANSACTION_PAYLOAD:
        if (x->inner)
            return ev_fail(x, c, err, "a TRANSACTION_PAYLOAD event inside a TRANSACTION_PAYLOAD is not allowed");
        return ev_decode_payload(x, c, &out->u.payload, err);
    default: /* STOP and everything we do not model: keep the body */
        out->u.body = ev_bytes(c->p, cdch_cur_left(c));
        c->p = c->end;
        break;
    }
    return 0;
}

int ev_decode_any(cdch_decoder *d, const uint8_t *ev, size_t len, cdch_arena *a, bool inner, cdch_event *out,
                  cdch_err *err)
{
    memset(out, 0, sizeof *out);
    cdch_err_clear(err);
    ev_dctx x = {d, a, &d->fde, ev, inner};
    if (len < CDCH_HEADER_LEN)
        return ev_fail(&x, NULL, err, "event is %zu bytes, shorter than the 19-byte header", len);
    cdch_cursor c = cdch_cur(ev, len);
    cdch_event_header *h = &out->h;
    h->timestamp = cdch_get_le32(&c);
    h->type = cdch_get_u8(&c);
    h->server_id = cdch_get_le32(&c);
    h->event_size = cdch_get_le32(&c);
    h->log_pos = cdch_get_le32(&c);
    h->flags = cdch_get_le16(&c);
    out->raw = ev_bytes(ev, len);
    if (h->event_size != len) {
        cdch_err_set(err, "event size field says %u bytes but %zu are available", h->event_size, len);
        err->offset = 9;
        return -1;
    }

    /* Which trailer does this event have? */
    size_t body_end = len;
    bool is_fde = h->type == CDCH_EV_FORMAT_DESCRIPTION;
    if (!inner) {
        if (is_fde) {
            /* checksum-aware FDEs always carry 4 trailing bytes; decide by
             * the version string inside (>= 5.6.1) */
            cdch_cursor v = cdch_cur(ev + CDCH_HEADER_LEN + 2, len > CDCH_HEADER_LEN + 52 ? 50 : 0);
            const uint8_t *ver = cdch_get_bytes(&v, 50);
            uint32_t prod = 0;
            if (ver) {
                char vs[51];
                memcpy(vs, ver, 50);
                vs[50] = 0;
                prod = cdch_version_product(vs);
            }
            if (prod >= 50601)
                out->has_checksum = true;
        } else if (decoder_checksum(d) == CDCH_CHECKSUM_CRC32) {
            out->has_checksum = true;
        }
    }
    if (out->has_checksum) {
        if (len < CDCH_HEADER_LEN + CDCH_CHECKSUM_LEN)
            return ev_fail(&x, &c, err, "event too short for its CRC32 checksum");
        body_end = len - CDCH_CHECKSUM_LEN;
        cdch_cursor t = cdch_cur(ev + body_end, CDCH_CHECKSUM_LEN);
        out->checksum = cdch_get_le32(&t);
    }
    cdch_cursor body = cdch_cur(ev, body_end);
    body.p = ev + CDCH_HEADER_LEN;

    int rc = decode_body(&x, out, &body, err);
    if (rc != 0)
        return rc;
    if (body.overrun)
        return ev_fail(&x, &body, err, "%s event is truncated: its fields need more than its %u bytes",
                       cdch_event_type_name(h->type), h->event_size);

    if (out->has_checksum && d->verify) {
        bool check = !is_fde || out->u.fde.checksum_alg == CDCH_CHECKSUM_CRC32;
        if (check) {
            uint32_t crc;
            if (is_fde && (h->flags & CDCH_LOG_EVENT_BINLOG_IN_USE_F)) {
                uint8_t hdr[CDCH_HEADER_LEN];
                memcpy(hdr, ev, CDCH_HEADER_LEN);
                hdr[17] &= (uint8_t)~CDCH_LOG_EVENT_BINLOG_IN_USE_F;
                crc = cdch_crc32(0, hdr, CDCH_HEADER_LEN);
                crc = cdch_crc32(crc, ev + CDCH_HEADER_LEN, body_end - CDCH_HEADER_LEN);
            } else {
                crc = cdch_crc32(0, ev, body_end);
            }
            if (crc != out->checksum) {
                if (err) {
                    cdch_err_set(err, "CRC32 mismatch in %s event: stored 0x%08x, computed 0x%08x",
                                 cdch_event_type_name(h->type), out->checksum, crc);
                    err->offset = (int64_t)body_end;
                }
                return -1;
            }
        }
    }
    if (is_fde && !inner)
        d->fde = out->u.fde;
    if (h->type == CDCH_EV_TABLE_MAP) {
        if (!ev_cache_table_map(d, ev, len, inner, err))
            return -1;
    }
    return 0;
}

int cdch_decode_event(cdch_decoder *d, const uint8_t *ev, size_t len, cdch_arena *a, cdch_event *out,
                      cdch_err *err)
{
    cdch_err scratch;
    if (!err)
        err = &scratch;
    return ev_decode_any(d, ev, len, a, false, out, err);
}

/* ---- encoding ------------------------------------------------------------- */

static int encode_body(const cdch_event *ev, const cdch_encode_opts *opts, bool reuse, cdch_buf *out,
                       cdch_err *err)
{
    switch (ev->h.type) {
    case CDCH_EV_FORMAT_DESCRIPTION:
        ev_encode_fde(&ev->u.fde, out);
        break;
    case CDCH_EV_ROTATE:
        cdch_put_le64(out, ev->u.rotate.position);
        cdch_put_bytes(out, ev->u.rotate.next_file.ptr, ev->u.rotate.next_file.len);
        break;
    case CDCH_EV_PREVIOUS_GTIDS:
        cdch_gtid_set_encode(&ev->u.prev_gtids, out);
        break;
    case CDCH_EV_GTID:
    case CDCH_EV_ANONYMOUS_GTID:
        ev_encode_gtid(&ev->u.gtid, out);
        break;
    case CDCH_EV_GTID_TAGGED:
        cdch_gtid_tagged_encode(&ev->u.gtid, out);
        break;
    case CDCH_EV_QUERY:
        ev_encode_query(&ev->u.query, out);
        break;
    case CDCH_EV_TABLE_MAP:
        ev_encode_table_map(&ev->u.table_map, out);
        break;
    case CDCH_EV_WRITE_ROWS:
    case CDCH_EV_UPDATE_ROWS:
    case CDCH_EV_DELETE_ROWS:
    case CDCH_EV_PARTIAL_UPDATE_ROWS:
        return ev_encode_rows(ev->h.type, &ev->u.rows, out, err);
    case CDCH_EV_XID:
        cdch_put_le64(out, ev->u.xid);
        break;
    case CDCH_EV_XA_PREPARE:
        cdch_put_u8(out, ev->u.xa.one_phase);
        cdch_put_le32(out, (uint32_t)ev->u.xa.format_id);
        cdch_put_le32(out, ev->u.xa.gtrid_len);
        cdch_put_le32(out, ev->u.xa.bqual_len);
        cdch_put_bytes(out, ev->u.xa.data.ptr, ev->u.xa.data.len);
        break;
    case CDCH_EV_ROWS_QUERY:
        cdch_put_u8(out, ev->u.rows_query.len_byte);
        cdch_put_bytes(out, ev->u.rows_query.text.ptr, ev->u.rows_query.text.len);
        break;
    case CDCH_EV_INCIDENT:
        if (ev->u.incident.message.len > 255)
            return cdch_err_set(err, "INCIDENT message of %zu bytes exceeds 255", ev->u.incident.message.len);
        cdch_put_le16(out, ev->u.incident.code);
        cdch_put_u8(out, (uint8_t)ev->u.incident.message.len);
        cdch_put_bytes(out, ev->u.incident.message.ptr, ev->u.incident.message.len);
        break;
    case CDCH_EV_HEARTBEAT:
        cdch_put_bytes(out, ev->u.heartbeat.log_file.ptr, ev->u.heartbeat.log_file.len);
        break;
    case CDCH_EV_HEARTBEAT_V2:
        ev_encode_heartbeat_v2(&ev->u.heartbeat, out);
        break;
    case CDCH_EV_TRANSACTION_PAYLOAD:
        if (opts->inner)
            return cdch_err_set(err, "cannot encode a TRANSACTION_PAYLOAD inside another");
        return ev_encode_payload(&ev->u.payload, opts, reuse, out, err);
    default:
        cdch_put_bytes(out, ev->u.body.ptr, ev->u.body.len);
        break;
    }
    return 0;
}

int cdch_encode_event(const cdch_event *ev, const cdch_encode_opts *opts, bool reuse_payload, cdch_buf *out,
                      cdch_err *err)
{
    static const cdch_encode_opts defaults = {true, false, 3, false};
    if (!opts)
        opts = &defaults;
    size_t start = out->len;
    bool is_fde = ev->h.type == CDCH_EV_FORMAT_DESCRIPTION;
    cdch_put_le32(out, ev->h.timestamp);
    cdch_put_u8(out, ev->h.type);
    cdch_put_le32(out, ev->h.server_id);
    cdch_put_le32(out, 0); /* size, patched below */
    cdch_put_le32(out, opts->inner ? 0 : ev->h.log_pos);
    cdch_put_le16(out, ev->h.flags);
    if (encode_body(ev, opts, reuse_payload, out, err) != 0) {
        out->len = start;
        return -1;
    }
    bool crc = !opts->inner && (is_fde || opts->checksum);
    size_t size = out->len - start + (crc ? CDCH_CHECKSUM_LEN : 0);
    if (size > CDCH_MAX_EVENT_SIZE) {
        out->len = start;
        return cdch_err_set(err, "%s event of %zu bytes exceeds the 1 GiB maximum event size",
                            cdch_event_type_name(ev->h.type), size);
    }
    cdch_buf_patch_le(out, start + 9, size, 4);
    if (crc) {
        uint32_t c;
        if (is_fde && (ev->h.flags & CDCH_LOG_EVENT_BINLOG_IN_USE_F)) {
            uint8_t hdr[CDCH_HEADER_LEN];
            memcpy(hdr, out->data + start, CDCH_HEADER_LEN);
            hdr[17] &= (uint8_t)~CDCH_LOG_EVENT_BINLOG_IN_USE_F;
            c = cdch_crc32(0, hdr, CDCH_HEADER_LEN);
            c = cdch_crc32(c, out->data + start + CDCH_HEADER_LEN, out->len - start - CDCH_HEADER_LEN);
        } else {
            c = cdch_crc32(0, out->data + start, out->len - start);
        }
        cdch_put_le32(out, c);
    }
    return 0;
}
