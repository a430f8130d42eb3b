/* gtid.c — GTID sets (binary and text) and the GTID_TAGGED event body.
 *
 * Binary GTID set (MySQL sql/rpl_gtid_set.cc Gtid_set::encode /
 * add_gtid_encoding, encode_nsids_format / decode_nsids_format):
 *
 *   word0 u64 LE   untagged (format 0, 8.0):  n_sids (top byte 0)
 *                  tagged   (format 1, 8.3+): (1 << 56) | (n_sids << 8) | 1
 *                  (the top byte is the format; other values are rejected)
 *   per SID        uuid[16]
 *                  tagged only: tag = varlen(len) + len bytes, len 0..32,
 *                                lower case ("" = the untagged GTIDs of uuid)
 *                  n_intervals u64, then (start u64, end u64 exclusive)*
 *
 * MySQL writes the tagged format iff the set holds a tagged SID; SIDs come
 * sorted by (uuid bytes, tag), so "uuid" precedes "uuid:tag".
 *
 * GTID_TAGGED_LOG_EVENT body (libs/mysql/binlog/event/control_events.h
 * Gtid_event::define_fields, serialized by mysql::serialization
 * Serializer_default<Write_archive_binary>):
 *
 *   varlen 1            message field id = serialization_format_version (1)
 *   varlen size         bytes of the whole message, counting from the id
 *                       above (see ENCODER QUIRK below)
 *   varlen 0            last_non_ignorable_field_id (all fields ignorable)
 *   then fields in id order, each "varlen id, value":
 *     0 gtid_flags u8        1 uuid: 16 x u8      2 gno i64
 *     3 tag string (varlen length <= 32 + bytes)  4 last_committed i64
 *     5 sequence_number i64  6 immediate_commit_timestamp u64
 *     7 original_commit_timestamp u64   omitted when == immediate
 *     8 transaction_length u64          9 immediate_server_version u32
 *    10 original_server_version u32     omitted when == immediate
 *    11 commit_group_ticket u64         omitted when 0
 *
 * Every integer (including each uuid byte and the string length) is a
 * variable-length integer (libs/mysql/serialization/variable_length_integers.h):
 * the number of trailing one bits of the first byte + 1 is the byte count
 * n (1..9); for n <= 8 the value's low (8-n) bits sit above that marker in
 * the first byte and the rest follows little-endian in n-1 bytes, so n bytes
 * carry 7n bits; n = 9 (first byte 0xff) carries the 64-bit value in the 8
 * following bytes. Signed values are zigzag-coded first: (x << 1) ^ (x >> 63).
 *
 * ENCODER QUIRK (reproduced): MySQL computes size = 1 + len(varlen(F)) + 1 + F
 * with F = bytes of the fields, i.e. it sizes the size field for F, not for
 * the total. When F is 125..127 the total (128..130) needs a 2-byte varlen,
 * so the message is one byte longer than `size` says. MySQL's decoder only
 * uses `size` at field boundaries and to skip unknown trailing fields, so it
 * reads such events fine; so do we.
 */
#include "gtid.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define GNO_END INT64_MAX /* one past the largest GNO (MySQL GNO_END) */
#define N_TAGGED_FIELDS 12

/* ------------------------------------------------------------------------ */
/* errors                                                                    */

#if defined(__GNUC__)
__attribute__((format(printf, 3, 4)))
#endif
static int gfail(cdch_err *err, size_t offset, const char *fmt, ...)
{
    char msg[CDCH_ERR_MSG_MAX];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    cdch_err_set(err, "%s", msg);
    if (err)
        err->offset = (int64_t)offset;
    return -1;
}

/* ------------------------------------------------------------------------ */
/* mysql::serialization variable-length integers                             */

static size_t vl_size(uint64_t v)
{
    unsigned bits = 0;
    while (v) {
        bits++;
        v >>= 1;
    }
    /* 0 bits: 1 byte; 1..63: 1 + ceil((bits-1)/7) capped at 9; 64: 9 */
    return ((bits * 575u) >> 12) + 1;
}

static void put_vl(cdch_buf *b, uint64_t v)
{
    size_t n = vl_size(v);
    uint8_t *p = cdch_buf_extend(b, n);
    p[0] = (uint8_t)(((1u << (n - 1)) - 1u) | (uint8_t)(v << n));
    if (n == 1)
        return;
    uint64_t rest = n <= 8 ? v >> (8 - n) : v;
    for (size_t i = 1; i < n; i++) {
        p[i] = (uint8_t)rest;
        rest >>= 8;
    }
}

static uint64_t zigzag(int64_t x)
{
    return ((uint64_t)x << 1) ^ (x < 0 ? UINT64_MAX : 0);
}

static int64_t unzigzag(uint64_t u)
{
    uint64_t v = (u >> 1) ^ (0 - (u & 1));
    int64_t r;
    memcpy(&r, &v, sizeof r);
    return r;
}

/* Reads one varlen unsigned integer through the cursor; false on short input
 * (the cursor's overrun flag is then set). */
static bool get_vl(cdch_cursor *c, uint64_t *out)
{
    *out = 0;
    uint8_t first = cdch_get_u8(c);
    if (c->overrun)
        return false;
    unsigned n = 1;
    while (n <= 8 && ((first >> (n - 1)) & 1u))
        n++;
    if (n == 1) {
        *out = first >> 1;
        return true;
    }
    const uint8_t *p = cdch_get_bytes(c, n - 1);
    if (!p)
        return false;
    uint64_t rest = 0;
    for (unsigned i = 0; i < n - 1; i++)
        rest |= (uint64_t)p[i] << (8 * i);
    *out = n <= 8 ? ((uint64_t)first >> n) | (rest << (8 - n)) : rest;
    return true;
}

/* ------------------------------------------------------------------------ */
/* UUIDs and tags                                                            */

static int hexval(char ch)
{
    if (ch >= '0' && ch <= '9') return ch - '0';
    if (ch >= 'a' && ch <= 'f') return ch - 'a' + 10;
    if (ch >= 'A' && ch <= 'F') return ch - 'A' + 10;
    return -1;
}

/* Parses the 36 characters at text (no terminator needed after them). */
static int uuid_parse_prefix(const char *text, uint8_t out[16])
{
    size_t o = 0;
    for (size_t i = 0; i < 36; i++) {
        if (i == 8 || i == 13 || i == 18 || i == 23) {
            if (text[i] != '-')
                return -1;
            continue;
        }
        int hi = hexval(text[i]);
        if (hi < 0)
            return -1;
        int lo = hexval(text[++i]);
        if (lo < 0)
            return -1;
        out[o++] = (uint8_t)(hi << 4 | lo);
    }
    return 0;
}

int cdch_uuid_parse(const char *text, uint8_t out[16])
{
    uint8_t tmp[16];
    if (!text || strnlen(text, 37) != 36 || uuid_parse_prefix(text, tmp) != 0)
        return -1;
    memcpy(out, tmp, 16);
    return 0;
}

void cdch_uuid_format(const uint8_t uuid[16], char out[37])
{
    static const char hex[] = "0123456789abcdef";
    size_t o = 0;
    for (size_t i = 0; i < 16; i++) {
        if (i == 4 || i == 6 || i == 8 || i == 10)
            out[o++] = '-';
        out[o++] = hex[uuid[i] >> 4];
        out[o++] = hex[uuid[i] & 15];
    }
    out[o] = '\0';
}

static bool tag_char_ok(unsigned char ch, size_t pos)
{
    return (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || ch == '_' ||
           (pos > 0 && ch >= '0' && ch <= '9');
}

/* Checks len bytes against MySQL's tag rules ([a-z_][a-z0-9_]{0,31}, case
 * insensitive; len 0 = untagged) and stores the lower-case form. Returns 0,
 * or the 1-based position of the first bad character, or -1 if too long. */
static int tag_normalise(const char *s, size_t len, char out[CDCH_GTID_TAG_MAX + 1])
{
    if (len > CDCH_GTID_TAG_MAX)
        return -1;
    for (size_t i = 0; i < len; i++) {
        unsigned char ch = (unsigned char)s[i];
        if (!tag_char_ok(ch, i))
            return (int)i + 1;
        out[i] = (char)(ch >= 'A' && ch <= 'Z' ? ch - 'A' + 'a' : ch);
    }
    out[len] = '\0';
    return 0;
}

/* A caller-supplied tag (NULL = untagged) in normal form; false if invalid. */
static bool tag_from_arg(const char *tag, char out[CDCH_GTID_TAG_MAX + 1])
{
    if (!tag) {
        out[0] = '\0';
        return true;
    }
    size_t len = strnlen(tag, CDCH_GTID_TAG_MAX + 1);
    return tag_normalise(tag, len, out) == 0;
}

static size_t tag_len(const cdch_gtid_sid *sid)
{
    return strnlen(sid->tag, CDCH_GTID_TAG_MAX);
}

/* ------------------------------------------------------------------------ */
/* set building (shared by decode, parse and add)                            */

static int sid_cmp(const cdch_gtid_sid *sid, const uint8_t uuid[16], const char *tag)
{
    int r = memcmp(sid->uuid, uuid, 16);
    if (r)
        return r;
    return strncmp(sid->tag, tag, CDCH_GTID_TAG_MAX + 1);
}

/* Finds the SID (uuid, tag) — tag already normalised — or inserts an empty
 * one before the first greater SID (keeping sorted arrays sorted). */
static cdch_gtid_sid *set_sid(cdch_gtid_set *s, cdch_arena *a, const uint8_t uuid[16], const char *tag)
{
    size_t pos = s->n_sids;
    for (size_t i = 0; i < s->n_sids; i++) {
        int r = sid_cmp(&s->sids[i], uuid, tag);
        if (r == 0)
            return &s->sids[i];
        if (r > 0 && pos == s->n_sids)
            pos = i;
    }
    size_t cap = s->cap_sids > s->n_sids ? s->cap_sids : s->n_sids;
    if (s->n_sids + 1 > cap) {
        size_t ncap = cap < 4 ? 4 : cap * 2;
        cdch_gtid_sid *n = cdch_arena_alloc(a, ncap * sizeof *n);
        if (s->n_sids)
            memcpy(n, s->sids, s->n_sids * sizeof *n);
        s->sids = n;
        s->cap_sids = ncap;
    }
    memmove(&s->sids[pos + 1], &s->sids[pos], (s->n_sids - pos) * sizeof *s->sids);
    cdch_gtid_sid *sid = &s->sids[pos];
    memset(sid, 0, sizeof *sid);
    memcpy(sid->uuid, uuid, 16);
    strcpy(sid->tag, tag);
    s->n_sids++;
    if (tag[0])
        s->tagged_format = true;
    return sid;
}

/* Adds [start, end) (1 <= start < end <= GNO_END), merging with overlapping
 * or adjacent intervals. */
static void sid_add_interval(cdch_gtid_sid *sid, cdch_arena *a, int64_t start, int64_t end)
{
    size_t n = sid->n_intervals;
    cdch_gtid_interval *iv = sid->intervals;
    size_t lo = 0, hi = n;
    while (lo < hi) { /* first interval that ends at or after start */
        size_t mid = lo + (hi - lo) / 2;
        if (iv[mid].end < start)
            lo = mid + 1;
        else
            hi = mid;
    }
    size_t k = lo;
    while (k < n && iv[k].start <= end)
        k++;
    if (k > lo) { /* merge iv[lo..k) with [start, end) */
        if (iv[lo].start < start)
            start = iv[lo].start;
        if (iv[k - 1].end > end)
            end = iv[k - 1].end;
        iv[lo].start = start;
        iv[lo].end = end;
        memmove(&iv[lo + 1], &iv[k], (n - k) * sizeof *iv);
        sid->n_intervals = n - (k - lo - 1);
        return;
    }
    size_t cap = sid->cap_intervals > n ? sid->cap_intervals : n;
    if (n + 1 > cap) {
        size_t ncap = cap < 4 ? 4 : cap * 2;
        cdch_gtid_interval *ni = cdch_arena_alloc(a, ncap * sizeof *ni);
        if (n)
            memcpy(ni, iv, n * sizeof *ni);
        sid->intervals = iv = ni;
        sid->cap_intervals = ncap;
    }
    memmove(&iv[lo + 1], &iv[lo], (n - lo) * sizeof *iv);
    iv[lo].start = start;
    iv[lo].end = end;
    sid->n_intervals = n + 1;
}

/* ------------------------------------------------------------------------ */
/* binary set                                                                */

static bool set_uses_tagged_format(const cdch_gtid_set *s)
{
    if (s->tagged_format)
        return true;
    for (size_t i = 0; i < s->n_sids; i++)
        if (s->sids[i].tag[0])
            return true;
    return false;
}

size_t cdch_gtid_set_encoded_size(const cdch_gtid_set *s)
{
    bool tagged = set_uses_tagged_format(s);
    size_t n = 8;
    for (size_t i = 0; i < s->n_sids; i++) {
        const cdch_gtid_sid *sid = &s->sids[i];
        n += 16 + 8 + 16 * sid->n_intervals;
        if (tagged)
            n += vl_size(tag_len(sid)) + tag_len(sid);
    }
    return n;
}

void cdch_gtid_set_encode(const cdch_gtid_set *s, cdch_buf *out)
{
    bool tagged = set_uses_tagged_format(s);
    uint64_t n = s->n_sids;
    cdch_put_le64(out, tagged ? (UINT64_C(1) << 56) | (n << 8) | 1u : n);
    for (size_t i = 0; i < s->n_sids; i++) {
        const cdch_gtid_sid *sid = &s->sids[i];
        cdch_put_bytes(out, sid->uuid, 16);
        if (tagged) {
            size_t tl = tag_len(sid);
            put_vl(out, tl);
            cdch_put_bytes(out, sid->tag, tl);
        }
        cdch_put_le64(out, sid->n_intervals);
        for (size_t j = 0; j < sid->n_intervals; j++) {
            cdch_put_le64(out, (uint64_t)sid->intervals[j].start);
            cdch_put_le64(out, (uint64_t)sid->intervals[j].end);
        }
    }
}

static void sid_name(const uint8_t uuid[16], const char *tag, char out[37 + 1 + CDCH_GTID_TAG_MAX + 1])
{
    cdch_uuid_format(uuid, out);
    if (tag && tag[0]) {
        out[36] = ':';
        strcpy(out + 37, tag);
    }
}

/* The SID count word: format 0 (8.0, untagged) or 1 (8.3+, tagged) in its
 * top byte, and a count the remaining bytes can hold. */
static int gset_count(cdch_cursor *c, uint64_t *n_sids, bool *tagged, cdch_err *err)
{
    size_t at = cdch_cur_pos(c);
    if (!cdch_cur_need(c, 8))
        return gfail(err, at, "GTID set truncated: the 8-byte SID count at offset %zu has only %zu bytes", at,
                     cdch_cur_left(c));
    uint64_t word = cdch_get_le64(c);
    unsigned format = (unsigned)(word >> 56);
    if (format == 0) {
        *n_sids = word;
    } else if (format == 1) {
        *n_sids = (word >> 8) & UINT64_C(0xffffffffffff);
    } else {
        return gfail(err, at,
                     "GTID set at offset %zu: unknown encoding format %u in the top byte of the SID count "
                     "0x%016llx (0 = untagged 8.0 format, 1 = tagged 8.3+ format)",
                     at, format, (unsigned long long)word);
    }
    *tagged = format == 1;
    size_t min_sid = *tagged ? 16 + 1 + 8 : 16 + 8;
    if (*n_sids > cdch_cur_left(c) / min_sid)
        return gfail(err, at,
                     "GTID set at offset %zu claims %llu SIDs but only %zu bytes follow (a SID needs at least %zu): "
                     "corrupt or truncated",
                     at, (unsigned long long)*n_sids, cdch_cur_left(c), min_sid);
    return 0;
}

/* The tag of SID number i (from 1) in the tagged format: a varlen length
 * and the bytes, normalised into sid->tag. */
static int gset_tag(cdch_cursor *c, uint64_t i, cdch_gtid_sid *sid, cdch_err *err)
{
    size_t tat = cdch_cur_pos(c);
    uint64_t len;
    if (!get_vl(c, &len))
        return gfail(err, tat, "GTID set truncated in the tag length of SID %llu at offset %zu",
                     (unsigned long long)i, tat);
    if (len > CDCH_GTID_TAG_MAX)
        return gfail(err, tat, "GTID set: tag length %llu of SID %llu at offset %zu exceeds the maximum of %d",
                     (unsigned long long)len, (unsigned long long)i, tat, CDCH_GTID_TAG_MAX);
    const uint8_t *t = cdch_get_bytes(c, (size_t)len);
    if (!t)
        return gfail(err, tat, "GTID set truncated in the %llu-byte tag of SID %llu at offset %zu",
                     (unsigned long long)len, (unsigned long long)i, tat);
    int bad = tag_normalise((const char *)t, (size_t)len, sid->tag);
    if (bad)
        return gfail(err, tat + (size_t)bad,
                     "GTID set: tag of SID %llu at offset %zu has invalid byte 0x%02x at position %d "
                     "(tags match [a-z_][a-z0-9_]{0,31})",
                     (unsigned long long)i, tat, t[bad - 1], bad);
    return 0;
}

/* A SID's interval count and intervals (in the arena), which must be
 * increasing, non-overlapping and non-adjacent. */
static int gset_intervals(cdch_cursor *c, cdch_arena *a, cdch_gtid_sid *sid, cdch_err *err)
{
    char name[37 + 1 + CDCH_GTID_TAG_MAX + 1];
    sid_name(sid->uuid, sid->tag, name);
    size_t nat = cdch_cur_pos(c);
    if (!cdch_cur_need(c, 8))
        return gfail(err, nat, "GTID set truncated in the interval count of SID %s at offset %zu", name, nat);
    uint64_t n_iv = cdch_get_le64(c);
    if (n_iv > cdch_cur_left(c) / 16)
        return gfail(err, nat,
                     "GTID set: SID %s claims %llu intervals at offset %zu but only %zu bytes follow "
                     "(16 per interval): corrupt or truncated",
                     name, (unsigned long long)n_iv, nat, cdch_cur_left(c));
    if (n_iv) {
        sid->intervals = cdch_arena_alloc(a, (size_t)n_iv * sizeof *sid->intervals);
        sid->cap_intervals = (size_t)n_iv;
    }
    uint64_t last = 0;
    for (uint64_t j = 0; j < n_iv; j++) {
        size_t iat = cdch_cur_pos(c);
        uint64_t start = cdch_get_le64(c);
        uint64_t end = cdch_get_le64(c);
        if (start <= last || end <= start || end > (uint64_t)GNO_END)
            return gfail(err, iat,
                         "GTID set: SID %s interval %llu at offset %zu is [%llu, %llu) after one ending at %llu; "
                         "intervals must be increasing, non-overlapping and non-adjacent with "
                         "1 <= start < end <= 2^63-1",
                         name, (unsigned long long)j + 1, iat, (unsigned long long)start, (unsigned long long)end,
                         (unsigned long long)last);
        sid->intervals[j].start = (int64_t)start;
        sid->intervals[j].end = (int64_t)end;
        last = end;
    }
    sid->n_intervals = (size_t)n_iv;
    return 0;
}

int cdch_gtid_set_decode(cdch_cursor *c, cdch_arena *a, cdch_gtid_set *out, cdch_err *err)
{
    memset(out, 0, sizeof *out);
    uint64_t n_sids = 0;
    bool tagged = false;
    if (gset_count(c, &n_sids, &tagged, err) < 0)
        return -1;
    out->tagged_format = tagged;
    if (n_sids) {
        out->sids = cdch_arena_alloc(a, (size_t)n_sids * sizeof *out->sids);
        out->cap_sids = (size_t)n_sids;
    }

    for (uint64_t i = 0; i < n_sids; i++) {
        size_t sat = cdch_cur_pos(c);
        cdch_gtid_sid sid;
        memset(&sid, 0, sizeof sid);
        const uint8_t *u = cdch_get_bytes(c, 16);
        if (!u)
            return gfail(err, sat, "GTID set truncated in the UUID of SID %llu of %llu at offset %zu",
                         (unsigned long long)i + 1, (unsigned long long)n_sids, sat);
        memcpy(sid.uuid, u, 16);
        if (tagged && gset_tag(c, i + 1, &sid, err) < 0)
            return -1;
        if (gset_intervals(c, a, &sid, err) < 0)
            return -1;

        /* MySQL merges a SID that appears twice; do the same. */
        cdch_gtid_sid *dup = NULL;
        for (size_t k = 0; k < out->n_sids; k++)
            if (sid_cmp(&out->sids[k], sid.uuid, sid.tag) == 0)
                dup = &out->sids[k];
        if (dup) {
            for (size_t j = 0; j < sid.n_intervals; j++)
                sid_add_interval(dup, a, sid.intervals[j].start, sid.intervals[j].end);
        } else {
            out->sids[out->n_sids++] = sid;
        }
    }
    return 0;
}

/* ------------------------------------------------------------------------ */
/* text form                                                                 */

void cdch_gtid_set_to_text(const cdch_gtid_set *s, cdch_buf *out)
{
    const cdch_gtid_sid *prev = NULL;
    for (size_t i = 0; i < s->n_sids; i++) {
        const cdch_gtid_sid *sid = &s->sids[i];
        if (sid->n_intervals == 0)
            continue;
        /* "uuid:1-5:tag:1-3": tagged SIDs follow their uuid's untagged ones */
        if (!prev || memcmp(prev->uuid, sid->uuid, 16) != 0 || sid->tag[0] == '\0') {
            char u[37];
            cdch_uuid_format(sid->uuid, u);
            if (prev)
                cdch_put_u8(out, ',');
            cdch_put_str(out, u);
        }
        if (sid->tag[0]) {
            cdch_put_u8(out, ':');
            cdch_put_bytes(out, sid->tag, tag_len(sid));
        }
        for (size_t j = 0; j < sid->n_intervals; j++) {
            const cdch_gtid_interval *iv = &sid->intervals[j];
            if (iv->end - 1 > iv->start)
                cdch_buf_printf(out, ":%lld-%lld", (long long)iv->start, (long long)(iv->end - 1));
            else
                cdch_buf_printf(out, ":%lld", (long long)iv->start);
        }
        prev = sid;
    }
}

static const char *skip_ws(const char *p)
{
    while (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r' || *p == '\f' || *p == '\v')
        p++;
    return p;
}

static bool is_digit(char ch) { return ch >= '0' && ch <= '9'; }

/* Parses a GNO (decimal, 1 .. 2^63-2) at *pp. */
static int parse_gno(const char **pp, const char *text, int64_t *out, cdch_err *err)
{
    const char *p = *pp;
    size_t at = (size_t)(p - text);
    if (!is_digit(*p))
        return gfail(err, at, "GTID set text: expected a GNO (a number) at offset %zu, found '%.20s'", at, p);
    uint64_t v = 0;
    const char *d = p;
    while (is_digit(*p)) {
        unsigned dig = (unsigned)(*p - '0');
        if (v > ((uint64_t)GNO_END - 1 - dig) / 10) {
            while (is_digit(*p))
                p++;
            return gfail(err, at, "GTID set text: GNO %.*s at offset %zu is out of range (1..9223372036854775806)",
                         (int)(p - d), d, at);
        }
        v = v * 10 + dig;
        p++;
    }
    *out = (int64_t)v;
    *pp = p;
    return 0;
}

int cdch_gtid_set_parse(const char *text, cdch_arena *a, cdch_gtid_set *out, cdch_err *err)
{
    memset(out, 0, sizeof *out);
    const char *p = text;
    for (;;) {
        p = skip_ws(p);
        while (*p == ',')
            p = skip_ws(p + 1);
        if (*p == '\0')
            break;
        size_t uat = (size_t)(p - text);
        uint8_t uuid[16];
        if (strnlen(p, 36) < 36 || uuid_parse_prefix(p, uuid) != 0)
            return gfail(err, uat,
                         "GTID set text: bad UUID at offset %zu: '%.36s' (expected 8-4-4-4-12 hex digits like "
                         "3e11fa47-71ca-11e1-9e33-c80aa9429562)",
                         uat, p);
        p = skip_ws(p + 36);
        if (*p != ':' && *p != ',' && *p != '\0')
            return gfail(err, (size_t)(p - text),
                         "GTID set text: unexpected '%.20s' after the UUID at offset %zu (expected ':' or ',')", p,
                         (size_t)(p - text));
        char tag[CDCH_GTID_TAG_MAX + 1] = "";
        while (*p == ':') {
            p = skip_ws(p + 1);
            size_t at = (size_t)(p - text);
            if (tag_char_ok((unsigned char)*p, 0)) {
                const char *t = p;
                while (tag_char_ok((unsigned char)*p, (size_t)(p - t)))
                    p++;
                size_t len = (size_t)(p - t);
                if (len > CDCH_GTID_TAG_MAX)
                    return gfail(err, at,
                                 "GTID set text: tag '%.*s' at offset %zu is %zu characters long (MySQL allows at "
                                 "most %d)",
                                 (int)len, t, at, len, CDCH_GTID_TAG_MAX);
                p = skip_ws(p);
                if (*p != ':' && *p != ',' && *p != '\0')
                    return gfail(err, (size_t)(p - text),
                                 "GTID set text: invalid character '%c' in or after tag '%.*s' at offset %zu (tags "
                                 "match [a-z_][a-z0-9_]{0,31}, case-insensitive)",
                                 *p, (int)len, t, (size_t)(p - text));
                (void)tag_normalise(t, len, tag);
                continue;
            }
            if (!is_digit(*p))
                return gfail(err, at, "GTID set text: expected a tag or a GNO after ':' at offset %zu, found '%.20s'",
                             at, p);
            int64_t start, last;
            if (parse_gno(&p, text, &start, err) != 0)
                return -1;
            if (start == 0)
                return gfail(err, at, "GTID set text: GNO 0 at offset %zu (GNOs start at 1)", at);
            last = start;
            p = skip_ws(p);
            if (*p == '-') {
                p = skip_ws(p + 1);
                size_t eat = (size_t)(p - text);
                if (parse_gno(&p, text, &last, err) != 0)
                    return -1;
                if (last < start)
                    return gfail(err, at,
                                 "GTID set text: reversed interval %lld-%lld at offset %zu (the end, at offset %zu, "
                                 "must be >= the start)",
                                 (long long)start, (long long)last, at, eat);
                p = skip_ws(p);
            }
            sid_add_interval(set_sid(out, a, uuid, tag), a, start, last + 1);
        }
        if (*p != ',' && *p != '\0')
            return gfail(err, (size_t)(p - text),
                         "GTID set text: unexpected '%.20s' at offset %zu (expected ':', ',' or the end)", p,
                         (size_t)(p - text));
    }
    return 0;
}

/* ------------------------------------------------------------------------ */
/* membership and insertion                                                  */

bool cdch_gtid_set_contains(const cdch_gtid_set *s, const uint8_t uuid[16], const char *tag, int64_t gno)
{
    char t[CDCH_GTID_TAG_MAX + 1];
    if (!tag_from_arg(tag, t))
        return false;
    for (size_t i = 0; i < s->n_sids; i++) {
        const cdch_gtid_sid *sid = &s->sids[i];
        if (sid_cmp(sid, uuid, t) != 0)
            continue;
        size_t lo = 0, hi = sid->n_intervals;
        while (lo < hi) { /* first interval ending after gno */
            size_t mid = lo + (hi - lo) / 2;
            if (sid->intervals[mid].end <= gno)
                lo = mid + 1;
            else
                hi = mid;
        }
        return lo < sid->n_intervals && sid->intervals[lo].start <= gno;
    }
    return false;
}

/* Programming errors (the API cannot report them) abort with a message, like
 * allocation failures elsewhere in the codec. */
void cdch_gtid_set_add(cdch_gtid_set *s, cdch_arena *a, const uint8_t uuid[16], const char *tag, int64_t gno)
{
    char t[CDCH_GTID_TAG_MAX + 1];
    if (gno < 1 || gno >= GNO_END) {
        fprintf(stderr, "cdcharness: cdch_gtid_set_add: GNO %lld out of range 1..%lld\n", (long long)gno,
                (long long)(GNO_END - 1));
        abort();
    }
    if (!tag_from_arg(tag, t)) {
        fprintf(stderr, "cdcharness: cdch_gtid_set_add: invalid tag '%.40s' (tags match [a-z_][a-z0-9_]{0,31})\n",
                tag);
        abort();
    }
    sid_add_interval(set_sid(s, a, uuid, t), a, gno, gno + 1);
}

/* ------------------------------------------------------------------------ */
/* GTID_TAGGED_LOG_EVENT body                                                */

enum {
    F_FLAGS, F_UUID, F_GNO, F_TAG, F_LAST_COMMITTED, F_SEQUENCE_NUMBER, F_IMMEDIATE_TS, F_ORIGINAL_TS,
    F_TRX_LENGTH, F_IMMEDIATE_VERSION, F_ORIGINAL_VERSION, F_TICKET
};

static const char *const field_names[N_TAGGED_FIELDS] = {
    "gtid_flags", "uuid", "gno", "tag", "last_committed", "sequence_number", "immediate_commit_timestamp",
    "original_commit_timestamp", "transaction_length", "immediate_server_version", "original_server_version",
    "commit_group_ticket",
};

void cdch_gtid_tagged_encode(const cdch_gtid_ev *g, cdch_buf *out)
{
    cdch_buf f = CDCH_BUF_INIT;
    put_vl(&f, F_FLAGS);
    put_vl(&f, g->gtid_flags);
    put_vl(&f, F_UUID);
    for (size_t i = 0; i < 16; i++)
        put_vl(&f, g->sid[i]);
    put_vl(&f, F_GNO);
    put_vl(&f, zigzag(g->gno));
    size_t tl = strnlen(g->tag, CDCH_GTID_TAG_MAX);
    put_vl(&f, F_TAG);
    put_vl(&f, tl);
    cdch_put_bytes(&f, g->tag, tl);
    put_vl(&f, F_LAST_COMMITTED);
    put_vl(&f, zigzag(g->last_committed));
    put_vl(&f, F_SEQUENCE_NUMBER);
    put_vl(&f, zigzag(g->sequence_number));
    put_vl(&f, F_IMMEDIATE_TS);
    put_vl(&f, g->immediate_commit_ts);
    if (g->original_commit_ts != g->immediate_commit_ts) {
        put_vl(&f, F_ORIGINAL_TS);
        put_vl(&f, g->original_commit_ts);
    }
    put_vl(&f, F_TRX_LENGTH);
    put_vl(&f, g->transaction_length);
    put_vl(&f, F_IMMEDIATE_VERSION);
    put_vl(&f, g->immediate_server_version);
    if (g->original_server_version != g->immediate_server_version) {
        put_vl(&f, F_ORIGINAL_VERSION);
        put_vl(&f, g->original_server_version);
    }
    if (g->commit_group_ticket != 0) {
        put_vl(&f, F_TICKET);
        put_vl(&f, g->commit_group_ticket);
    }
    /* size as MySQL computes it (see ENCODER QUIRK at the top) */
    uint64_t size = vl_size(1) + vl_size(f.len) + vl_size(0) + f.len;
    put_vl(out, 1);
    put_vl(out, size);
    put_vl(out, 0);
    cdch_put_bytes(out, f.data, f.len);
    cdch_buf_free(&f);
}

/* The mysql::serialization message header: format version 1, the message
 * size (within the body and at least the header) and the last
 * non-ignorable field id. On success c is past the header and *msg_end
 * is where the message ends. */
static int tagged_header(cdch_cursor *body, cdch_cursor *c, const uint8_t **msg_end, cdch_err *err)
{
    const uint8_t *msg = c->p;
    size_t at = cdch_cur_pos(c);
    uint64_t version, size, last_non_ignorable;
    if (!get_vl(c, &version) || !get_vl(c, &size) || !get_vl(c, &last_non_ignorable)) {
        body->overrun = true;
        return gfail(err, at, "GTID_TAGGED event truncated in its serialization header at offset %zu (%zu bytes)",
                     at, cdch_cur_left(body));
    }
    if (version != 1)
        return gfail(err, at,
                     "GTID_TAGGED event at offset %zu: serialization format version %llu, expected 1 "
                     "(mysql::serialization)",
                     at, (unsigned long long)version);
    size_t avail = (size_t)(body->end - msg);
    size_t hdr = (size_t)(c->p - msg);
    if (size > avail) {
        body->overrun = true;
        return gfail(err, at,
                     "GTID_TAGGED event at offset %zu: message size %llu exceeds the %zu bytes of the event body "
                     "(truncated event?)",
                     at, (unsigned long long)size, avail);
    }
    if (size < hdr)
        return gfail(err, at, "GTID_TAGGED event at offset %zu: message size %llu is smaller than its %zu-byte header",
                     at, (unsigned long long)size, hdr);
    if (last_non_ignorable > N_TAGGED_FIELDS)
        return gfail(err, at,
                     "GTID_TAGGED event at offset %zu: last non-ignorable field id %llu is beyond the %d fields "
                     "known here (written by a newer MySQL?)",
                     at, (unsigned long long)last_non_ignorable, N_TAGGED_FIELDS);
    *msg_end = msg + size;
    return 0;
}

/* The value of field `id` at c: the uuid as 16 varlen bytes and the tag as
 * a length and its bytes (both into out), any other field one varlen
 * integer into v[id]. 1 when read, 0 when the input is short, -1 (err set)
 * for an invalid value. */
static int tagged_field(cdch_cursor *c, unsigned id, cdch_gtid_ev *out, uint64_t v[N_TAGGED_FIELDS], cdch_err *err)
{
    size_t vat = cdch_cur_pos(c);
    if (id == F_UUID) {
        for (size_t i = 0; i < 16; i++) {
            uint64_t b;
            if (!get_vl(c, &b))
                return 0;
            if (b > 0xff)
                return gfail(err, vat, "GTID_TAGGED event: uuid byte %zu at offset %zu has value %llu > 255", i, vat,
                             (unsigned long long)b);
            out->sid[i] = (uint8_t)b;
        }
        return 1;
    }
    if (id == F_TAG) {
        uint64_t len;
        if (!get_vl(c, &len))
            return 0;
        if (len > CDCH_GTID_TAG_MAX)
            return gfail(err, vat, "GTID_TAGGED event: tag length %llu at offset %zu exceeds the maximum of %d",
                         (unsigned long long)len, vat, CDCH_GTID_TAG_MAX);
        const uint8_t *t = cdch_get_bytes(c, (size_t)len);
        if (!t)
            return 0;
        int bad = tag_normalise((const char *)t, (size_t)len, out->tag);
        if (bad)
            return gfail(err, vat + (size_t)bad,
                         "GTID_TAGGED event: tag at offset %zu has invalid byte 0x%02x at position %d (tags "
                         "match [a-z_][a-z0-9_]{0,31})",
                         vat, t[bad - 1], bad);
        return 1;
    }
    return get_vl(c, &v[id]) ? 1 : 0;
}

/* The fields in id order up to msg_end; an omitted field is skipped the way
 * MySQL does it (peek at the next id, try the next field). */
static int tagged_fields(cdch_cursor *body, cdch_cursor *c, const uint8_t *msg_end, cdch_gtid_ev *out,
                         uint64_t v[N_TAGGED_FIELDS], bool have[N_TAGGED_FIELDS], cdch_err *err)
{
    for (unsigned id = 0; id < N_TAGGED_FIELDS; id++) {
        if (c->p >= msg_end)
            break; /* the remaining fields are missing */
        size_t fat = cdch_cur_pos(c);
        cdch_cursor peek = *c;
        uint64_t got;
        if (!get_vl(&peek, &got)) {
            body->overrun = true;
            return gfail(err, fat, "GTID_TAGGED event truncated in a field id at offset %zu", fat);
        }
        if (got != id)
            continue; /* field `id` omitted: MySQL peeks, then tries the next id */
        *c = peek;
        size_t vat = cdch_cur_pos(c);
        int r = tagged_field(c, id, out, v, err);
        if (r < 0)
            return -1;
        if (r == 0) {
            body->overrun = true;
            return gfail(err, vat, "GTID_TAGGED event truncated in field %u (%s) at offset %zu", id, field_names[id],
                         vat);
        }
        have[id] = true;
    }
    return 0;
}

/* Check the required fields and ranges, then fill the rest of out. */
static int tagged_finish(size_t at, const uint64_t v[N_TAGGED_FIELDS], const bool have[N_TAGGED_FIELDS],
                         cdch_gtid_ev *out, cdch_err *err)
{
    static const unsigned required[] = {F_FLAGS, F_UUID, F_GNO, F_TAG, F_LAST_COMMITTED, F_SEQUENCE_NUMBER,
                                        F_IMMEDIATE_TS, F_TRX_LENGTH, F_IMMEDIATE_VERSION};
    for (size_t i = 0; i < sizeof required / sizeof required[0]; i++)
        if (!have[required[i]])
            return gfail(err, at, "GTID_TAGGED event at offset %zu: required field %u (%s) is missing", at,
                         required[i], field_names[required[i]]);
    if (v[F_FLAGS] > 0xff)
        return gfail(err, at, "GTID_TAGGED event at offset %zu: gtid_flags %llu does not fit in a byte", at,
                     (unsigned long long)v[F_FLAGS]);
    if (v[F_IMMEDIATE_VERSION] > UINT32_MAX || (have[F_ORIGINAL_VERSION] && v[F_ORIGINAL_VERSION] > UINT32_MAX))
        return gfail(err, at, "GTID_TAGGED event at offset %zu: a server version does not fit in 32 bits", at);

    out->gtid_flags = (uint8_t)v[F_FLAGS];
    out->gno = unzigzag(v[F_GNO]);
    if (out->gno < 1 || out->gno >= GNO_END)
        return gfail(err, at, "GTID_TAGGED event at offset %zu: GNO %lld out of range 1..%lld", at,
                     (long long)out->gno, (long long)(GNO_END - 1));
    out->lt_type = 2;
    out->last_committed = unzigzag(v[F_LAST_COMMITTED]);
    out->sequence_number = unzigzag(v[F_SEQUENCE_NUMBER]);
    out->immediate_commit_ts = v[F_IMMEDIATE_TS];
    out->original_commit_ts = have[F_ORIGINAL_TS] ? v[F_ORIGINAL_TS] : v[F_IMMEDIATE_TS];
    out->transaction_length = v[F_TRX_LENGTH];
    out->immediate_server_version = (uint32_t)v[F_IMMEDIATE_VERSION];
    out->original_server_version =
        have[F_ORIGINAL_VERSION] ? (uint32_t)v[F_ORIGINAL_VERSION] : (uint32_t)v[F_IMMEDIATE_VERSION];
    out->commit_group_ticket = have[F_TICKET] ? v[F_TICKET] : 0;
    out->classic_parts = 4; /* every part a classic event could carry is known */
    return 0;
}

int cdch_gtid_tagged_decode(cdch_cursor *body, cdch_gtid_ev *out, cdch_err *err)
{
    memset(out, 0, sizeof *out);
    cdch_cursor c = *body;
    size_t at = cdch_cur_pos(&c);
    const uint8_t *msg_end = NULL;
    if (tagged_header(body, &c, &msg_end, err) < 0)
        return -1;
    uint64_t v[N_TAGGED_FIELDS] = {0};
    bool have[N_TAGGED_FIELDS] = {false};
    if (tagged_fields(body, &c, msg_end, out, v, have, err) < 0 || tagged_finish(at, v, have, out, err) < 0)
        return -1;

    /* Skip unknown (ignorable) trailing fields; a message one byte longer
     * than its size (ENCODER QUIRK) leaves c.p past msg_end. */
    body->p = c.p > msg_end ? c.p : msg_end;
    return 0;
}
