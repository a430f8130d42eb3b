#include "buf.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void die_oom(size_t n)
{
    fprintf(stderr, "cdcharness: out of memory allocating %zu bytes\n", n);
    abort();
}

void cdch_buf_free(cdch_buf *b)
{
    if (!b)
        return;
    free(b->data);
    b->data = NULL;
    b->len = b->cap = 0;
}

void cdch_buf_reset(cdch_buf *b) { b->len = 0; }

void cdch_buf_grow(cdch_buf *b, size_t extra)
{
    size_t need = b->len + extra + 1; /* +1 keeps room for cdch_buf_cstr */
    if (need < b->len)
        die_oom(SIZE_MAX);
    if (need <= b->cap)
        return;
    size_t cap = b->cap ? b->cap : 64;
    while (cap < need) {
        if (cap > SIZE_MAX / 2)
            die_oom(need);
        cap *= 2;
    }
    uint8_t *d = realloc(b->data, cap);
    if (!d)
        die_oom(cap);
    b->data = d;
    b->cap = cap;
}

void cdch_put_bytes(cdch_buf *b, const void *p, size_t n)
{
    if (n == 0)
        return;
    memcpy(cdch_buf_extend(b, n), p, n);
}

void cdch_put_zero(cdch_buf *b, size_t n)
{
    if (n == 0)
        return;
    memset(cdch_buf_extend(b, n), 0, n);
}

void cdch_put_be(cdch_buf *b, uint64_t v, unsigned n)
{
    uint8_t *d = cdch_buf_extend(b, n);
    for (unsigned i = 0; i < n; i++)
        d[i] = (uint8_t)(v >> (8 * (n - 1 - i)));
}

void cdch_put_lenenc(cdch_buf *b, uint64_t v)
{
    if (v < 251) {
        cdch_put_u8(b, (uint8_t)v);
    } else if (v < 0x10000) {
        cdch_put_u8(b, 0xFC);
        cdch_put_le(b, v, 2);
    } else if (v < 0x1000000) {
        cdch_put_u8(b, 0xFD);
        cdch_put_le(b, v, 3);
    } else {
        cdch_put_u8(b, 0xFE);
        cdch_put_le(b, v, 8);
    }
}

void cdch_put_str(cdch_buf *b, const char *s) { cdch_put_bytes(b, s, strlen(s)); }

void cdch_buf_printf(cdch_buf *b, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (n <= 0)
        return;
    cdch_buf_reserve(b, (size_t)n + 1);
    va_start(ap, fmt);
    vsnprintf((char *)b->data + b->len, (size_t)n + 1, fmt, ap);
    va_end(ap);
    b->len += (size_t)n;
}

void cdch_buf_patch_le(cdch_buf *b, size_t at, uint64_t v, unsigned n)
{
    if (at + n > b->len)
        abort(); /* programming error */
    for (unsigned i = 0; i < n; i++)
        b->data[at + i] = (uint8_t)(v >> (8 * i));
}

const char *cdch_buf_cstr(cdch_buf *b)
{
    cdch_buf_reserve(b, 0);
    b->data[b->len] = '\0';
    return (const char *)b->data;
}

void cdch_put_hex(cdch_buf *b, const uint8_t *p, size_t n)
{
    static const char hx[] = "0123456789abcdef";
    uint8_t *d = cdch_buf_extend(b, n * 2);
    for (size_t i = 0; i < n; i++) {
        d[2 * i] = (uint8_t)hx[p[i] >> 4];
        d[2 * i + 1] = (uint8_t)hx[p[i] & 15];
    }
}
