/* buf.h — growable output buffer with little/big-endian put helpers.
 *
 * Owns: its `data` allocation (free with cdch_buf_free). Every encoder in
 * the codec writes into a cdch_buf, so one encoder serves memory, files and
 * zstd payloads alike. Allocation failure aborts the process with a message
 * (the harness cannot do anything useful without memory).
 */
#ifndef CDCH_BUF_H
#define CDCH_BUF_H

#include <stddef.h>
#include <stdint.h>

typedef struct cdch_buf {
    uint8_t *data;
    size_t len;
    size_t cap;
} cdch_buf;

#define CDCH_BUF_INIT {NULL, 0, 0}

void cdch_buf_free(cdch_buf *b);                /* releases data; b is reusable */
void cdch_buf_grow(cdch_buf *b, size_t extra);    /* the slow path of cdch_buf_reserve: reallocate */

/* Ensure len+extra fits (and one more byte, for cdch_buf_cstr's NUL). Inline:
 * the encoders call it for every field, and the check is all they need. */
static inline void cdch_buf_reserve(cdch_buf *b, size_t extra)
{
    if (b->cap > b->len && extra < b->cap - b->len)
        return;
    cdch_buf_grow(b, extra);
}

/* Grow len by n and return the new region (uninitialised). */
static inline uint8_t *cdch_buf_extend(cdch_buf *b, size_t n)
{
    cdch_buf_reserve(b, n);
    uint8_t *r = b->data + b->len;
    b->len += n;
    return r;
}
void cdch_buf_reset(cdch_buf *b);                 /* len = 0, keeps capacity */

void cdch_put_bytes(cdch_buf *b, const void *p, size_t n);
void cdch_put_zero(cdch_buf *b, size_t n);
static inline void cdch_put_u8(cdch_buf *b, uint8_t v) { *cdch_buf_extend(b, 1) = v; }
static inline void cdch_put_le(cdch_buf *b, uint64_t v, unsigned n) /* n = 1..8 */
{
    uint8_t *d = cdch_buf_extend(b, n);
    for (unsigned i = 0; i < n; i++)
        d[i] = (uint8_t)(v >> (8 * i));
}
void cdch_put_be(cdch_buf *b, uint64_t v, unsigned n); /* n = 1..8 */
void cdch_put_lenenc(cdch_buf *b, uint64_t v);
void cdch_put_str(cdch_buf *b, const char *s); /* no terminator */
void cdch_put_hex(cdch_buf *b, const uint8_t *p, size_t n); /* lower-case hex, 2 digits a byte */
void cdch_buf_printf(cdch_buf *b, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

static inline void cdch_put_le16(cdch_buf *b, uint16_t v) { cdch_put_le(b, v, 2); }
static inline void cdch_put_le24(cdch_buf *b, uint32_t v) { cdch_put_le(b, v, 3); }
static inline void cdch_put_le32(cdch_buf *b, uint32_t v) { cdch_put_le(b, v, 4); }
static inline void cdch_put_le48(cdch_buf *b, uint64_t v) { cdch_put_le(b, v, 6); }
static inline void cdch_put_le64(cdch_buf *b, uint64_t v) { cdch_put_le(b, v, 8); }

/* Overwrite n bytes little-endian at offset `at` (must be inside len). */
void cdch_buf_patch_le(cdch_buf *b, size_t at, uint64_t v, unsigned n);

/* Return a NUL-terminated copy of the contents (the buffer keeps a NUL
 * after len but it is not counted); pointer stays owned by b. */
const char *cdch_buf_cstr(cdch_buf *b);

#endif
