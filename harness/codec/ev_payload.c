/* ev_payload.c — TRANSACTION_PAYLOAD (type 40): the TLV payload header, the
 * zstd frame, and the inner event stream (no checksums, log_pos 0). */
#include <string.h>

#include "event_internal.h"

enum { PL_END_MARK = 0, PL_PAYLOAD_SIZE = 1, PL_COMPRESSION_TYPE = 2, PL_UNCOMPRESSED_SIZE = 3 };

/* Largest inner stream this decoder materialises: a payload is decoded whole,
 * in memory (twice: the decompression buffer, then its arena copy). MySQL caps
 * only the compressed payload (1 GiB); the uncompressed size is a 64-bit field
 * and a transaction beyond this bound is valid (binlog-format.md 9.1/9.3):
 * such a stream is refused with a message that says so. */
#define PL_MAX_UNCOMPRESSED ((size_t)2 * 1024 * 1024 * 1024)

static bool frame_has_content_size(const uint8_t *p, size_t n)
{
    /* zstd frame: magic 28 b5 2f fd, then Frame_Header_Descriptor whose top
     * two bits are the Frame_Content_Size flag; with the Single_Segment flag
     * (bit 5) a 1-byte FCS exists even for flag 0. */
    if (n < 5 || p[0] != 0x28 || p[1] != 0xb5 || p[2] != 0x2f || p[3] != 0xfd)
        return false;
    uint8_t fhd = p[4];
    return (fhd >> 6) != 0 || (fhd & 0x20) != 0;
}

int ev_decode_payload(const ev_dctx *x, cdch_cursor *c, cdch_payload *p, cdch_err *err)
{
    memset(p, 0, sizeof *p);
    bool have_size = false, have_type = false, bad = false;
    for (;;) {
        uint64_t type = cdch_get_lenenc(c, &bad);
        if (c->overrun || bad)
            return ev_fail(x, c, err, "TRANSACTION_PAYLOAD header is truncated (no end mark)");
        if (type == PL_END_MARK)
            break;
        uint64_t len = cdch_get_lenenc(c, &bad);
        if (c->overrun || bad || len > cdch_cur_left(c))
            return ev_fail(x, c, err, "TRANSACTION_PAYLOAD header field %llu overruns the event",
                           (unsigned long long)type);
        cdch_cursor f = cdch_get_sub(c, (size_t)len);
        uint64_t v = 0;
        if (type == PL_PAYLOAD_SIZE || type == PL_COMPRESSION_TYPE || type == PL_UNCOMPRESSED_SIZE) {
            v = cdch_get_lenenc(&f, &bad);
            if (f.overrun || bad)
                return ev_fail(x, c, err, "TRANSACTION_PAYLOAD header field %llu has a malformed value",
                               (unsigned long long)type);
        }
        switch (type) {
        case PL_PAYLOAD_SIZE: p->payload_size = v; have_size = true; break;
        case PL_COMPRESSION_TYPE: p->compression_type = v; have_type = true; break;
        case PL_UNCOMPRESSED_SIZE: p->uncompressed_size = v; p->has_uncompressed_size = true; break;
        default: break; /* unknown fields are skipped by their length, as MySQL does */
        }
    }
    if (!have_size || !have_type)
        return ev_fail(x, c, err, "TRANSACTION_PAYLOAD header lacks its %s field",
                       have_size ? "compression type" : "payload size");
    if (p->payload_size > cdch_cur_left(c))
        return ev_fail(x, c, err, "TRANSACTION_PAYLOAD says %llu payload bytes but only %zu remain",
                       (unsigned long long)p->payload_size, cdch_cur_left(c));
    const uint8_t *data = cdch_get_bytes(c, (size_t)p->payload_size);
    p->payload = ev_bytes(data, (size_t)p->payload_size);
    c->p = c->end; /* anything after payload_size up to the CRC is unused */

    cdch_buf inner = CDCH_BUF_INIT;
    if (p->compression_type == CDCH_COMPRESSION_ZSTD) {
        p->frame_has_content_size = frame_has_content_size(data, (size_t)p->payload_size);
        if (p->has_uncompressed_size && p->uncompressed_size > PL_MAX_UNCOMPRESSED)
            return ev_fail(x, c, err,
                           "TRANSACTION_PAYLOAD of %llu bytes uncompressed: valid in MySQL, but beyond the %zu "
                           "bytes this decoder holds in memory for one transaction",
                           (unsigned long long)p->uncompressed_size, PL_MAX_UNCOMPRESSED);
        if (cdch_zstd_decompress(data, (size_t)p->payload_size, PL_MAX_UNCOMPRESSED, &inner, err) != 0) {
            bool past_bound = inner.len >= PL_MAX_UNCOMPRESSED;
            cdch_buf_free(&inner);
            if (past_bound)
                return ev_fail(x, c, err,
                               "TRANSACTION_PAYLOAD decompresses past the %zu bytes this decoder holds in memory "
                               "for one transaction (valid in MySQL: only the compressed payload is capped)",
                               PL_MAX_UNCOMPRESSED);
            return ev_fail(x, c, err, "TRANSACTION_PAYLOAD: %s", err->msg);
        }
    } else if (p->compression_type == CDCH_COMPRESSION_NONE) {
        cdch_put_bytes(&inner, data, (size_t)p->payload_size);
    } else {
        return ev_fail(x, c, err, "TRANSACTION_PAYLOAD compression type %llu is unknown (0 = ZSTD, 255 = NONE)",
                       (unsigned long long)p->compression_type);
    }
    uint8_t *u = cdch_arena_memdup(x->a, inner.data, inner.len);
    p->uncompressed = ev_bytes(u, inner.len);
    cdch_buf_free(&inner);

    /* inner events: count first, then decode */
    size_t n = 0, off = 0;
    while (off < p->uncompressed.len) {
        cdch_cursor h = cdch_cur(u + off, p->uncompressed.len - off);
        cdch_skip(&h, 9);
        uint32_t size = cdch_get_le32(&h);
        if (h.overrun || size < CDCH_HEADER_LEN || size > p->uncompressed.len - off) {
            cdch_err_set(err, "TRANSACTION_PAYLOAD inner event at uncompressed offset %zu is %s", off,
                         h.overrun ? "truncated in its header" : "larger than the rest of the payload");
            return ev_fail(x, c, err, "%s", err->msg);
        }
        off += size;
        n++;
    }
    p->n_inner = n;
    p->inner = cdch_arena_alloc(x->a, (n ? n : 1) * sizeof *p->inner);
    p->inner_offset = cdch_arena_alloc(x->a, (n ? n : 1) * sizeof *p->inner_offset);
    off = 0;
    for (size_t i = 0; i < n; i++) {
        cdch_cursor h = cdch_cur(u + off + 9, 4);
        uint32_t size = cdch_get_le32(&h);
        p->inner_offset[i] = off;
        if (ev_decode_any(x->d, u + off, size, x->a, true, &p->inner[i], err) != 0) {
            char msg[CDCH_ERR_MSG_MAX];
            memcpy(msg, err->msg, sizeof msg);
            return ev_fail(x, c, err, "inner event %zu (%s at uncompressed offset %zu+%lld): %s", i + 1,
                           cdch_event_type_name(u[off + 4]), off, (long long)err->offset, msg);
        }
        off += size;
    }
    return 0;
}

int ev_encode_payload(const cdch_payload *p, const cdch_encode_opts *opts, bool reuse, cdch_buf *out,
                      cdch_err *err)
{
    cdch_buf inner = CDCH_BUF_INIT, comp = CDCH_BUF_INIT;
    const uint8_t *data;
    size_t data_len, usize;
    if (reuse) {
        data = p->payload.ptr;
        data_len = p->payload.len;
        usize = (size_t)p->uncompressed_size;
    } else {
        cdch_encode_opts io = *opts;
        io.inner = true;
        for (size_t i = 0; i < p->n_inner; i++) {
            if (cdch_encode_event(&p->inner[i], &io, false, &inner, err) != 0) {
                cdch_buf_free(&inner);
                return cdch_err_wrap(err, "payload inner event %zu", i + 1);
            }
        }
        usize = inner.len;
        if (p->compression_type == CDCH_COMPRESSION_ZSTD) {
            int level = opts->zstd_level ? opts->zstd_level : 3;
            if (cdch_zstd_compress(inner.data, inner.len, level, opts->zstd_content_size, &comp, err) != 0) {
                cdch_buf_free(&inner);
                return -1;
            }
            data = comp.data;
            data_len = comp.len;
        } else {
            data = inner.data;
            data_len = inner.len;
        }
    }
    /* writer order: compression type, uncompressed size (not for NONE),
     * payload size, end mark */
    cdch_put_lenenc(out, PL_COMPRESSION_TYPE);
    cdch_put_lenenc(out, cdch_lenenc_size(p->compression_type));
    cdch_put_lenenc(out, p->compression_type);
    if (reuse ? p->has_uncompressed_size : p->compression_type != CDCH_COMPRESSION_NONE) {
        cdch_put_lenenc(out, PL_UNCOMPRESSED_SIZE);
        cdch_put_lenenc(out, cdch_lenenc_size(usize));
        cdch_put_lenenc(out, usize);
    }
    cdch_put_lenenc(out, PL_PAYLOAD_SIZE);
    cdch_put_lenenc(out, cdch_lenenc_size(data_len));
    cdch_put_lenenc(out, data_len);
    cdch_put_lenenc(out, PL_END_MARK);
    cdch_put_bytes(out, data, data_len);
    cdch_buf_free(&inner);
    cdch_buf_free(&comp);
    return 0;
}
