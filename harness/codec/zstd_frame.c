/* zstd_frame.c — one-frame zstd compression/decompression for
 * TRANSACTION_PAYLOAD events (MySQL writes exactly one frame per payload,
 * no dictionary, no checksum; it reads concatenated frames). */
#include <pthread.h>
#include <stdlib.h>
#include <zstd.h>

#include "event.h"

struct cdch_zstd_compressor {
    ZSTD_CCtx *cctx;
};

cdch_zstd_compressor *cdch_zstd_compressor_new(void)
{
    cdch_zstd_compressor *z = calloc(1, sizeof *z);
    if (z && !(z->cctx = ZSTD_createCCtx())) {
        free(z);
        z = NULL;
    }
    return z;
}

void cdch_zstd_compressor_free(cdch_zstd_compressor *z)
{
    if (!z)
        return;
    ZSTD_freeCCtx(z->cctx);
    free(z);
}

int cdch_zstd_compress_with(cdch_zstd_compressor *z, const uint8_t *src, size_t len, int level, bool content_size,
                            cdch_buf *out, cdch_err *err)
{
    if (level < 1 || level > ZSTD_maxCLevel())
        return cdch_err_set(err, "zstd level %d out of range 1..%d", level, ZSTD_maxCLevel());
    ZSTD_CCtx *cctx = z->cctx;
    /* a fresh frame with fresh parameters each time; the context's memory is reused */
    size_t r = ZSTD_CCtx_reset(cctx, ZSTD_reset_session_and_parameters);
    if (!ZSTD_isError(r))
        r = ZSTD_CCtx_setParameter(cctx, ZSTD_c_compressionLevel, level);
    if (!ZSTD_isError(r))
        r = ZSTD_CCtx_setParameter(cctx, ZSTD_c_contentSizeFlag, content_size ? 1 : 0);
    if (!ZSTD_isError(r))
        r = ZSTD_CCtx_setParameter(cctx, ZSTD_c_checksumFlag, 0);
    if (!ZSTD_isError(r) && content_size)
        r = ZSTD_CCtx_setPledgedSrcSize(cctx, len);
    if (ZSTD_isError(r))
        return cdch_err_set(err, "zstd: %s", ZSTD_getErrorName(r));
    size_t bound = ZSTD_compressBound(len);
    size_t start = out->len;
    cdch_buf_reserve(out, bound);
    ZSTD_inBuffer in = {src, len, 0};
    ZSTD_outBuffer ob = {out->data + start, bound, 0};
    do {
        r = ZSTD_compressStream2(cctx, &ob, &in, ZSTD_e_end);
        if (ZSTD_isError(r))
            return cdch_err_set(err, "zstd compression failed: %s", ZSTD_getErrorName(r));
        if (r != 0 && ob.pos == ob.size) /* cannot happen with compressBound, but stay safe */
            return cdch_err_set(err, "zstd output exceeded its bound");
    } while (r != 0);
    out->len = start + ob.pos;
    return 0;
}

void cdch_payload_set_zstd(cdch_payload *p, const uint8_t *z, size_t zlen, uint64_t uncompressed)
{
    p->compression_type = CDCH_COMPRESSION_ZSTD;
    p->has_uncompressed_size = true;
    p->uncompressed_size = uncompressed;
    p->payload_size = zlen;
    p->payload.ptr = z;
    p->payload.len = zlen;
}

int cdch_zstd_compress(const uint8_t *src, size_t len, int level, bool content_size, cdch_buf *out, cdch_err *err)
{
    cdch_zstd_compressor *z = cdch_zstd_compressor_new();
    if (!z)
        return cdch_err_set(err, "cannot create a zstd compression context (out of memory?)");
    int rc = cdch_zstd_compress_with(z, src, len, level, content_size, out, err);
    cdch_zstd_compressor_free(z);
    return rc;
}

/* One decompression context per thread, kept for the thread's life: payloads
 * are small and many, and creating a context costs more than decompressing
 * a few kilobytes. Freed when the thread ends. */
static pthread_key_t g_dkey;
static pthread_once_t g_donce = PTHREAD_ONCE_INIT;

static void dctx_free(void *d) { ZSTD_freeDCtx(d); }
static void dkey_init(void) { (void)pthread_key_create(&g_dkey, dctx_free); }

static ZSTD_DCtx *thread_dctx(void)
{
    pthread_once(&g_donce, dkey_init);
    ZSTD_DCtx *d = pthread_getspecific(g_dkey);
    if (d) {
        ZSTD_DCtx_reset(d, ZSTD_reset_session_only); /* a fresh frame, whatever the last call left */
        return d;
    }
    d = ZSTD_createDCtx();
    if (d && pthread_setspecific(g_dkey, d) != 0) {
        ZSTD_freeDCtx(d);
        d = NULL;
    }
    return d;
}

/* One ZSTD_decompressStream call into out, keeping what it holds from
 * `start` under max_size bytes: *r is the call's result, *made the bytes
 * it wrote (0 on error); -1 with err on error. */
static int dstep(ZSTD_DCtx *dctx, ZSTD_inBuffer *in, cdch_buf *out, size_t start, size_t max_size, bool flushing,
                 size_t *r, size_t *made, cdch_err *err)
{
    *made = 0;
    if (out->len - start >= max_size)
        return cdch_err_set(err, "zstd payload decompresses to more than %zu bytes", max_size);
    size_t chunk = ZSTD_DStreamOutSize();
    if (chunk > max_size - (out->len - start))
        chunk = max_size - (out->len - start);
    cdch_buf_reserve(out, chunk);
    ZSTD_outBuffer ob = {out->data + out->len, chunk, 0};
    *r = ZSTD_decompressStream(dctx, &ob, in);
    if (ZSTD_isError(*r)) {
        if (flushing)
            return cdch_err_set(err, "zstd payload is corrupt: %s", ZSTD_getErrorName(*r));
        return cdch_err_set(err, "zstd payload is corrupt: %s (at compressed byte %zu of %zu)", ZSTD_getErrorName(*r),
                            in->pos, in->size);
    }
    out->len += ob.pos;
    *made = ob.pos;
    return 0;
}

int cdch_zstd_decompress(const uint8_t *src, size_t len, size_t max_size, cdch_buf *out, cdch_err *err)
{
    ZSTD_DCtx *dctx = thread_dctx();
    if (!dctx)
        return cdch_err_set(err, "cannot create a zstd decompression context (out of memory?)");
    ZSTD_inBuffer in = {src, len, 0};
    size_t start = out->len;
    size_t r = 0, made;
    while (in.pos < in.size) {
        if (dstep(dctx, &in, out, start, max_size, false, &r, &made, err) < 0)
            return -1;
        if (made == 0 && r != 0 && in.pos == in.size)
            break;
    }
    /* flush whatever is still buffered in the context */
    while (r != 0) {
        if (dstep(dctx, &in, out, start, max_size, true, &r, &made, err) < 0)
            return -1;
        if (made == 0)
            return cdch_err_set(err, "zstd payload is truncated: the frame ends before its last block");
    }
    return 0;
}
