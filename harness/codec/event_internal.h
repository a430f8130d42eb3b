/* event_internal.h — shared between the event codec's source files only. */
#ifndef CDCH_EVENT_INTERNAL_H
#define CDCH_EVENT_INTERNAL_H

#include "cursor.h"
#include "event.h"

/* Context for decoding one event body. */
typedef struct ev_dctx {
    cdch_decoder *d;
    cdch_arena *a;
    const cdch_fde *fde;
    const uint8_t *ev;   /* start of the event (header) */
    bool inner;          /* inside a TRANSACTION_PAYLOAD */
} ev_dctx;

/* Errors: set message and the offset (relative to the event start) of c. */
int ev_fail(const ev_dctx *x, const cdch_cursor *c, cdch_err *err, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 4, 5)))
#endif
    ;

static inline cdch_bytes ev_bytes(const uint8_t *p, size_t n)
{
    cdch_bytes b;
    b.ptr = p;
    b.len = n;
    return b;
}

unsigned ev_post_header_len(const cdch_fde *fde, uint8_t type);

/* Per-type body codecs. `c` covers the event after the 19-byte header and
 * before any checksum. */
int ev_decode_fde(const ev_dctx *x, cdch_cursor *c, cdch_fde *out, cdch_err *err);
void ev_encode_fde(const cdch_fde *f, cdch_buf *out);
int ev_decode_query(const ev_dctx *x, cdch_cursor *c, cdch_query *out, cdch_err *err);
void ev_encode_query(const cdch_query *q, cdch_buf *out);
int ev_decode_gtid(const ev_dctx *x, cdch_cursor *c, cdch_gtid_ev *out, cdch_err *err);
void ev_encode_gtid(const cdch_gtid_ev *g, cdch_buf *out);
int ev_decode_table_map(const ev_dctx *x, cdch_cursor *c, cdch_table_map *out, cdch_err *err);
void ev_encode_table_map(const cdch_table_map *tm, cdch_buf *out);
int ev_decode_rows(const ev_dctx *x, uint8_t type, cdch_cursor *c, cdch_rows *out, cdch_err *err);
int ev_encode_rows(uint8_t type, const cdch_rows *r, cdch_buf *out, cdch_err *err);
int ev_decode_payload(const ev_dctx *x, cdch_cursor *c, cdch_payload *out, cdch_err *err);
int ev_encode_payload(const cdch_payload *p, const cdch_encode_opts *opts, bool reuse, cdch_buf *out,
                      cdch_err *err);
int ev_decode_heartbeat_v2(const ev_dctx *x, cdch_cursor *c, cdch_heartbeat *out, cdch_err *err);
void ev_encode_heartbeat_v2(const cdch_heartbeat *h, cdch_buf *out);

/* decoder internals used by the payload codec */
int ev_decode_any(cdch_decoder *d, const uint8_t *ev, size_t len, cdch_arena *a, bool inner, cdch_event *out,
                  cdch_err *err);
/* cache a table map (deep copy); returns the cached copy */
const cdch_table_map *ev_cache_table_map(cdch_decoder *d, const uint8_t *ev, size_t len, bool inner,
                                         cdch_err *err);

/* bitmap helpers */
static inline bool bit_get(const uint8_t *bm, size_t i) { return (bm[i / 8] >> (i % 8)) & 1; }
static inline size_t bitmap_bytes(size_t n) { return (n + 7) / 8; }
size_t bitmap_count(const uint8_t *bm, size_t nbits);

#endif
