/* cursor.h — bounds-checked reading of little/big-endian binary data.
 *
 * Owns: nothing. A cdch_cursor is a view {start, p, end} over bytes the
 * caller owns. Every getter checks bounds; reading past `end` never touches
 * memory, returns zero/NULL, and sets the sticky `overrun` flag, so a decoder
 * can read a whole structure and check `overrun` once at the end. A decoder
 * that finds structurally wrong data (not just short) sets `bad` via
 * cdch_cur_fail().
 *
 * All little-endian access goes through get_le16/24/32/48/64 (or the unchecked
 * cdch_le16/24/32/64 on a pointer whose length the caller checked); big-endian
 * (used by temporal, decimal and BIT values) through cdch_get_be().
 */
#ifndef CDCH_CURSOR_H
#define CDCH_CURSOR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct cdch_cursor {
    const uint8_t *start; /* first byte of the view (for offsets) */
    const uint8_t *p;     /* next byte to read */
    const uint8_t *end;   /* one past the last readable byte */
    bool overrun;         /* a read wanted more bytes than there were */
} cdch_cursor;

static inline cdch_cursor cdch_cur(const void *data, size_t len)
{
    cdch_cursor c;
    c.start = (const uint8_t *)data;
    c.p = c.start;
    c.end = c.start + len;
    c.overrun = false;
    return c;
}

static inline size_t cdch_cur_left(const cdch_cursor *c) { return (size_t)(c->end - c->p); }
static inline size_t cdch_cur_pos(const cdch_cursor *c) { return (size_t)(c->p - c->start); }
static inline bool cdch_cur_ok(const cdch_cursor *c) { return !c->overrun; }

/* True (and consumes nothing) if n bytes are available; otherwise marks overrun. */
static inline bool cdch_cur_need(cdch_cursor *c, size_t n)
{
    if (c->overrun || cdch_cur_left(c) < n) {
        c->overrun = true;
        return false;
    }
    return true;
}

/* Returns a pointer to the next n bytes and advances, or NULL on overrun. */
static inline const uint8_t *cdch_get_bytes(cdch_cursor *c, size_t n)
{
    if (!cdch_cur_need(c, n))
        return NULL;
    const uint8_t *r = c->p;
    c->p += n;
    return r;
}

static inline void cdch_skip(cdch_cursor *c, size_t n) { (void)cdch_get_bytes(c, n); }

/* A sub-cursor over the next n bytes (advances this cursor past them). On
 * overrun the sub-cursor is empty and marked overrun too. */
static inline cdch_cursor cdch_get_sub(cdch_cursor *c, size_t n)
{
    const uint8_t *b = cdch_get_bytes(c, n);
    cdch_cursor s;
    if (!b) {
        s = cdch_cur(c->end, 0);
        s.overrun = true;
        return s;
    }
    s.start = c->start; /* offsets stay relative to the parent buffer */
    s.p = b;
    s.end = b + n;
    s.overrun = false;
    return s;
}

/* Unchecked little-endian reads of n (1..8) bytes at p, for callers that have
 * already checked the length (packet headers, event headers). */
static inline uint64_t cdch_le(const uint8_t *p, unsigned n)
{
    uint64_t v = 0;
    for (unsigned i = 0; i < n; i++)
        v |= (uint64_t)p[i] << (8 * i);
    return v;
}
static inline uint16_t cdch_le16(const uint8_t *p) { return (uint16_t)cdch_le(p, 2); }
static inline uint32_t cdch_le24(const uint8_t *p) { return (uint32_t)cdch_le(p, 3); }
static inline uint32_t cdch_le32(const uint8_t *p) { return (uint32_t)cdch_le(p, 4); }
static inline uint64_t cdch_le64(const uint8_t *p) { return cdch_le(p, 8); }

static inline uint64_t cdch_get_le(cdch_cursor *c, unsigned n)
{
    const uint8_t *b = cdch_get_bytes(c, n);
    return b ? cdch_le(b, n) : 0;
}

static inline uint64_t cdch_get_be(cdch_cursor *c, unsigned n)
{
    const uint8_t *b = cdch_get_bytes(c, n);
    uint64_t v = 0;
    if (!b)
        return 0;
    for (unsigned i = 0; i < n; i++)
        v = (v << 8) | b[i];
    return v;
}

static inline uint8_t cdch_get_u8(cdch_cursor *c) { return (uint8_t)cdch_get_le(c, 1); }
static inline uint16_t cdch_get_le16(cdch_cursor *c) { return (uint16_t)cdch_get_le(c, 2); }
static inline uint32_t cdch_get_le24(cdch_cursor *c) { return (uint32_t)cdch_get_le(c, 3); }
static inline uint32_t cdch_get_le32(cdch_cursor *c) { return (uint32_t)cdch_get_le(c, 4); }
static inline uint64_t cdch_get_le48(cdch_cursor *c) { return cdch_get_le(c, 6); }
static inline uint64_t cdch_get_le64(cdch_cursor *c) { return cdch_get_le(c, 8); }

/* MySQL packed integer (net_field_length): <251 one byte; 0xFC+2; 0xFD+3;
 * 0xFE+8. 0xFB (NULL in result sets) and 0xFF are invalid here: they set
 * *bad (if given) and return 0. */
static inline uint64_t cdch_get_lenenc(cdch_cursor *c, bool *bad)
{
    uint8_t b = cdch_get_u8(c);
    if (c->overrun)
        return 0;
    if (b < 251)
        return b;
    switch (b) {
    case 0xFC: return cdch_get_le(c, 2);
    case 0xFD: return cdch_get_le(c, 3);
    case 0xFE: return cdch_get_le(c, 8);
    default:
        if (bad)
            *bad = true;
        return 0;
    }
}

/* Size in bytes of the lenenc encoding of v. */
static inline size_t cdch_lenenc_size(uint64_t v)
{
    if (v < 251) return 1;
    if (v < 0x10000) return 3;
    if (v < 0x1000000) return 4;
    return 9;
}

#endif
