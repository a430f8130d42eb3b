/* jsonstr.c — see jsonstr.h. */
#include "jsonstr.h"

size_t cdch_utf8_seq(const uint8_t *p, size_t n)
{
    uint8_t b = p[0];
    if (b < 0x80)
        return 1;
    size_t len;
    uint8_t lo = 0x80, hi = 0xBF;
    if (b >= 0xC2 && b <= 0xDF) {
        len = 2;
    } else if (b >= 0xE0 && b <= 0xEF) {
        len = 3;
        if (b == 0xE0)
            lo = 0xA0;
        else if (b == 0xED)
            hi = 0x9F;
    } else if (b >= 0xF0 && b <= 0xF4) {
        len = 4;
        if (b == 0xF0)
            lo = 0x90;
        else if (b == 0xF4)
            hi = 0x8F;
    } else {
        return 0;
    }
    if (n < len)
        return 0;
    if (p[1] < lo || p[1] > hi)
        return 0;
    for (size_t i = 2; i < len; i++)
        if (p[i] < 0x80 || p[i] > 0xBF)
            return 0;
    return len;
}

static const char *short_escape(uint8_t c)
{
    switch (c) {
    case '"': return "\\\"";
    case '\\': return "\\\\";
    case '\b': return "\\b";
    case '\f': return "\\f";
    case '\n': return "\\n";
    case '\r': return "\\r";
    case '\t': return "\\t";
    default: return NULL;
    }
}

void cdch_put_json_str(cdch_buf *out, const void *data, size_t n, unsigned flags)
{
    static const char hx[] = "0123456789abcdef";
    const uint8_t *p = (const uint8_t *)data;
    cdch_put_u8(out, '"');
    if (n == 0) { /* data may be NULL */
        cdch_put_u8(out, '"');
        return;
    }
    size_t i = 0, run = 0; /* p[run..i) is pending and needs no escape */
    while (i < n) {
        uint8_t c = p[i];
        if (c >= 0x20 && c < 0x7F && c != '"' && c != '\\') {
            i++;
            continue;
        }
        if (c >= 0x80) {
            size_t k = (flags & CDCH_JSON_UTF8) ? cdch_utf8_seq(p + i, n - i) : 1;
            if (k > 0) {
                i += k;
                continue;
            }
        } else if (c == 0x7F && !(flags & CDCH_JSON_DEL)) {
            i++;
            continue;
        }
        cdch_put_bytes(out, p + run, i - run);
        const char *esc = short_escape(c);
        if (esc) {
            cdch_put_str(out, esc);
        } else if (c >= 0x80) {
            cdch_put_str(out, "\\ufffd");
        } else {
            char u[6] = {'\\', 'u', '0', '0', hx[c >> 4], hx[c & 15]};
            cdch_put_bytes(out, u, sizeof u);
        }
        run = ++i;
    }
    cdch_put_bytes(out, p + run, n - run);
    cdch_put_u8(out, '"');
}
