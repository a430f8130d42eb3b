/* values.c — scenario values: YAML scalars and nodes -> cdch_value of a
 * column, checked the way MySQL (strict mode) checks an INSERT, and stored
 * exactly as MySQL logs them in a row image (the kinds cdch_value_encode
 * expects for the column's coldef):
 *
 *   integers      CDCH_V_INT / CDCH_V_UINT (UNSIGNED), range-checked
 *   DECIMAL       CDCH_V_DECIMAL, canonical text: no leading zeros, exactly
 *                 `scale` fraction digits ("12.5" in DECIMAL(10,2) -> "12.50")
 *   FLOAT/DOUBLE  CDCH_V_FLOAT / CDCH_V_DOUBLE
 *   DATE/DATETIME/TIME  CDCH_V_DATE / _DATETIME / _TIME (fraction must fit fsp)
 *   TIMESTAMP     CDCH_V_TIMESTAMP, epoch seconds (the text is UTC)
 *   YEAR, BIT     CDCH_V_YEAR / CDCH_V_BIT
 *   strings       CDCH_V_STRING in the column charset; CHAR/BINARY with the
 *                 trailing pad (spaces / 0x00) stripped, as Field_string::pack does
 *   ENUM / SET    CDCH_V_ENUM index (1-based) / CDCH_V_SET bitmap
 *   JSON          CDCH_V_JSON tree; GEOMETRY CDCH_V_GEOMETRY; VECTOR CDCH_V_VECTOR
 */
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "decimal.h"
#include "scenario_internal.h"

/* ---- column classes ------------------------------------------------------------- */

typedef enum cclass {
    CC_INT = 1, CC_DECIMAL, CC_FLOAT, CC_DOUBLE, CC_DATE, CC_DATETIME, CC_TIMESTAMP, CC_TIME, CC_YEAR, CC_BIT,
    CC_CHAR, CC_VARCHAR, CC_BLOB, CC_ENUM, CC_SET, CC_JSON, CC_GEOM, CC_VECTOR, CC_UNKNOWN,
} cclass;

static cclass col_class(const cdch_coldef *d)
{
    switch (d->type) {
    case CDCH_T_TINY:
    case CDCH_T_SHORT:
    case CDCH_T_INT24:
    case CDCH_T_LONG:
    case CDCH_T_LONGLONG: return CC_INT;
    case CDCH_T_NEWDECIMAL: return CC_DECIMAL;
    case CDCH_T_FLOAT: return CC_FLOAT;
    case CDCH_T_DOUBLE: return CC_DOUBLE;
    case CDCH_T_DATE:
    case CDCH_T_NEWDATE: return CC_DATE;
    case CDCH_T_DATETIME2: return CC_DATETIME;
    case CDCH_T_TIMESTAMP2: return CC_TIMESTAMP;
    case CDCH_T_TIME2: return CC_TIME;
    case CDCH_T_YEAR: return CC_YEAR;
    case CDCH_T_BIT: return CC_BIT;
    case CDCH_T_VARCHAR:
    case CDCH_T_VAR_STRING: return CC_VARCHAR;
    case CDCH_T_BLOB:
    case CDCH_T_TINY_BLOB:
    case CDCH_T_MEDIUM_BLOB:
    case CDCH_T_LONG_BLOB: return CC_BLOB;
    case CDCH_T_STRING:
        return d->real_type == CDCH_T_ENUM ? CC_ENUM : d->real_type == CDCH_T_SET ? CC_SET : CC_CHAR;
    case CDCH_T_JSON: return CC_JSON;
    case CDCH_T_GEOMETRY: return CC_GEOM;
    case CDCH_T_VECTOR: return CC_VECTOR;
    default: return CC_UNKNOWN;
    }
}

bool sc_col_is_int(const cdch_sc_column *col) { return col_class(&col->def) == CC_INT; }

bool sc_col_is_chartext(const cdch_sc_column *col)
{
    cclass k = col_class(&col->def);
    return (k == CC_CHAR || k == CC_VARCHAR || k == CC_BLOB) && col->def.collation != CDCH_COLLATION_BINARY;
}

bool sc_col_is_blobby(const cdch_sc_column *col)
{
    cclass k = col_class(&col->def);
    return k == CC_BLOB || k == CC_JSON || k == CC_GEOM || k == CC_VECTOR;
}

void sc_int_range(const cdch_sc_column *col, int64_t *min, uint64_t *max)
{
    unsigned bits = col->def.type == CDCH_T_TINY    ? 8
                    : col->def.type == CDCH_T_SHORT ? 16
                    : col->def.type == CDCH_T_INT24 ? 24
                    : col->def.type == CDCH_T_LONG  ? 32
                                                    : 64;
    if (col->def.is_unsigned) {
        *min = 0;
        *max = bits == 64 ? UINT64_MAX : (1ULL << bits) - 1;
    } else {
        *min = bits == 64 ? INT64_MIN : -(int64_t)(1ULL << (bits - 1));
        *max = (1ULL << (bits - 1)) - 1;
    }
}

uint64_t sc_col_max_bytes(const cdch_sc_column *col)
{
    switch (col_class(&col->def)) {
    case CC_CHAR: return col->def.length;
    case CC_VARCHAR: return col->def.meta;
    case CC_BLOB: {
        unsigned p = col->def.meta;
        return p == 1 ? 255u : p == 2 ? 65535u : p == 3 ? 16777215u : 4294967295u;
    }
    default: return 0;
    }
}

static sc_cs col_cs(const cdch_sc_column *col)
{
    if (col->def.collation == CDCH_COLLATION_BINARY || !col->charset)
        return SC_CS_BINARY;
    return sc_charset_kind(col->charset);
}

static const char *type_text(const cdch_sc_column *col)
{
    return col->sql_type ? col->sql_type : "?";
}

/* ---- scalar helpers ------------------------------------------------------------- */

/* Copy of text[0..len) without leading/trailing ASCII spaces, NUL-terminated (buf). */
static const char *trimmed(const char *text, size_t len, char *buf, size_t cap)
{
    while (len && isspace((unsigned char)*text)) {
        text++;
        len--;
    }
    while (len && isspace((unsigned char)text[len - 1]))
        len--;
    if (len >= cap)
        len = cap - 1;
    memcpy(buf, text, len);
    buf[len] = '\0';
    return buf;
}

/* Decimal integer: [-+]digits. Returns 0 ok, -1 not an integer, -2 overflow. */
static int parse_integer(const char *s, bool *neg, uint64_t *mag)
{
    *neg = false;
    if (*s == '-' || *s == '+') {
        *neg = *s == '-';
        s++;
    }
    if (!isdigit((unsigned char)*s))
        return -1;
    uint64_t v = 0;
    for (; *s; s++) {
        if (!isdigit((unsigned char)*s))
            return -1;
        unsigned d = (unsigned)(*s - '0');
        if (v > (UINT64_MAX - d) / 10)
            return -2;
        v = v * 10 + d;
    }
    *mag = v;
    return 0;
}

static bool yaml_bool_text(const char *s, bool *b)
{
    if (!strcmp(s, "true") || !strcmp(s, "True") || !strcmp(s, "TRUE")) {
        *b = true;
        return true;
    }
    if (!strcmp(s, "false") || !strcmp(s, "False") || !strcmp(s, "FALSE")) {
        *b = false;
        return true;
    }
    return false;
}

static int parse_int_value(const cdch_sc_column *col, const char *s, cdch_value *out, cdch_err *err)
{
    bool neg, b;
    uint64_t mag;
    int64_t min;
    uint64_t max;
    sc_int_range(col, &min, &max);
    int r;
    if (yaml_bool_text(s, &b)) {
        neg = false;
        mag = b;
        r = 0;
    } else {
        r = parse_integer(s, &neg, &mag);
    }
    if (r == -1)
        return cdch_err_set(err, "expected an integer for %s, got '%s'", type_text(col), s);
    uint64_t minmag = (uint64_t)0 - (uint64_t)min;
    if (r == -2 || (neg && mag > minmag && mag != 0) || (!neg && mag > max)) {
        if (col->def.is_unsigned)
            return cdch_err_set(err, "value %s out of range for %s (0..%" PRIu64 ")", s, type_text(col), max);
        return cdch_err_set(err, "value %s out of range for %s (%" PRId64 "..%" PRIu64 ")", s, type_text(col), min,
                            max);
    }
    if (col->def.is_unsigned) {
        out->kind = CDCH_V_UINT;
        out->u.u = mag;
    } else {
        out->kind = CDCH_V_INT;
        out->u.i = neg ? (int64_t)((uint64_t)0 - mag) : (int64_t)mag;
    }
    return 0;
}

static int parse_decimal_value(const cdch_sc_column *col, const char *s, cdch_arena *a, cdch_value *out,
                               cdch_err *err)
{
    unsigned prec = col->def.meta >> 8, scale = col->def.meta & 0xFF;
    const char *t = s;
    if (*t == '+')
        t++;
    if (col->def.is_unsigned && *t == '-') {
        bool zero = true;
        for (const char *q = t + 1; *q; q++)
            if (*q >= '1' && *q <= '9')
                zero = false;
        if (!zero)
            return cdch_err_set(err, "value %s out of range for %s (no negative values)", s, type_text(col));
        t++;
    }
    cdch_buf bin = CDCH_BUF_INIT, txt = CDCH_BUF_INIT;
    cdch_err e;
    int rc = 0;
    if (cdch_decimal_encode(t, strlen(t), prec, scale, &bin, &e) < 0) {
        rc = cdch_err_set(err, "%s", e.msg);
    } else if (cdch_decimal_decode(bin.data, prec, scale, &txt, &e) < 0) {
        rc = cdch_err_set(err, "%s", e.msg);
    } else {
        out->kind = CDCH_V_DECIMAL;
        out->u.bytes.ptr = cdch_arena_memdup(a, txt.data, txt.len);
        out->u.bytes.len = txt.len;
    }
    cdch_buf_free(&bin);
    cdch_buf_free(&txt);
    return rc;
}

static int parse_real_value(const cdch_sc_column *col, const char *s, cdch_value *out, cdch_err *err)
{
    bool isfloat = col->def.type == CDCH_T_FLOAT;
    char *end;
    errno = 0;
    double d = *s ? strtod(s, &end) : 0;
    bool alpha = false;
    for (const char *q = s; *q; q++)
        if (isalpha((unsigned char)*q) && *q != 'e' && *q != 'E')
            alpha = true;
    if (!*s || *end || alpha)
        return cdch_err_set(err, "expected a number for %s, got '%s'", type_text(col), s);
    if (!isfinite(d) || (isfloat && !isfinite((float)d)))
        return cdch_err_set(err, "value %s out of range for %s", s, type_text(col));
    if (col->def.is_unsigned && d < 0)
        return cdch_err_set(err, "value %s out of range for %s (no negative values)", s, type_text(col));
    /* FLOAT(M,D)/DOUBLE(M,D): MySQL rounds to D decimals; ask for the stored value */
    unsigned m, dd;
    const char *paren = col->sql_type ? strchr(col->sql_type, '(') : NULL;
    if (paren && sscanf(paren, "(%u,%u)", &m, &dd) == 2) {
        const char *dot = strchr(s, '.');
        size_t nfrac = 0;
        for (const char *q = dot ? dot + 1 : s + strlen(s); *q >= '0' && *q <= '9'; q++)
            nfrac++;
        if (strpbrk(s, "eE") || nfrac > dd)
            return cdch_err_set(err, "'%s' has more decimals than %s keeps (%u): give the value MySQL stores", s,
                                type_text(col), dd);
    }
    if (isfloat) {
        out->kind = CDCH_V_FLOAT;
        out->u.f = (float)d;
    } else {
        out->kind = CDCH_V_DOUBLE;
        out->u.d = d;
    }
    return 0;
}

static const uint32_t k_frac_div[7] = {1000000, 100000, 10000, 1000, 100, 10, 1};

static int check_fsp(const cdch_sc_column *col, uint32_t usec, const char *s, cdch_err *err)
{
    unsigned fsp = col->def.meta;
    if (fsp <= 6 && usec % k_frac_div[fsp] != 0)
        return cdch_err_set(err, "'%s' has more fraction digits than %s keeps (%u): give the value as MySQL would "
                                 "store it",
                            s, type_text(col), fsp);
    return 0;
}

static int parse_temporal_value(const cdch_sc_column *col, cclass k, const char *s, cdch_value *out,
                                cdch_err *err)
{
    cdch_temporal t;
    int kind = k == CC_DATE ? CDCH_T_DATE : k == CC_TIME ? CDCH_T_TIME2 : CDCH_T_DATETIME2;
    if (cdch_temporal_parse(s, kind, &t, err) < 0)
        return -1;
    if (k != CC_DATE && check_fsp(col, t.usec, s, err) < 0)
        return -1;
    switch (k) {
    case CC_DATE: out->kind = CDCH_V_DATE; out->u.t = t; return 0;
    case CC_TIME: out->kind = CDCH_V_TIME; out->u.t = t; return 0;
    case CC_DATETIME: out->kind = CDCH_V_DATETIME; out->u.t = t; return 0;
    default: break;
    }
    /* TIMESTAMP: UTC text -> epoch; the zero value is epoch 0 */
    out->kind = CDCH_V_TIMESTAMP;
    if (t.year == 0 && t.month == 0 && t.day == 0 && t.hour == 0 && t.minute == 0 && t.second == 0 && t.usec == 0) {
        out->u.ts.sec = 0;
        out->u.ts.usec = 0;
        return 0;
    }
    if (t.month == 0 || t.day == 0)
        return cdch_err_set(err, "timestamp '%s' has a zero month or day (only the all-zero timestamp is allowed)", s);
    int64_t e = cdch_civil_to_epoch(&t);
    if (e < 1 || e > INT32_MAX)
        return cdch_err_set(err, "timestamp '%s' is out of range ('1970-01-01 00:00:01' .. '2038-01-19 03:14:07' "
                                 "UTC)",
                            s);
    out->u.ts.sec = (uint32_t)e;
    out->u.ts.usec = t.usec;
    return 0;
}

static int parse_year_value(const cdch_sc_column *col, const char *s, cdch_value *out, cdch_err *err)
{
    bool neg;
    uint64_t v;
    if (parse_integer(s, &neg, &v) != 0)
        return cdch_err_set(err, "expected a year for %s, got '%s'", type_text(col), s);
    if (neg || (v != 0 && (v < 1901 || v > 2155)))
        return cdch_err_set(err, "value %s out of range for year (0 or 1901..2155)", s);
    out->kind = CDCH_V_YEAR;
    out->u.u = v;
    return 0;
}

static int parse_bit_value(const cdch_sc_column *col, const char *s, cdch_value *out, cdch_err *err)
{
    unsigned bits = col->char_length ? col->char_length : (unsigned)((col->def.meta >> 8) * 8 + (col->def.meta & 0xFF));
    uint64_t v = 0;
    const char *digits = NULL;
    unsigned base = 10, nd = 0;
    size_t n = strlen(s);
    if ((s[0] == 'b' || s[0] == 'B') && s[1] == '\'' && n >= 3 && s[n - 1] == '\'') {
        base = 2;
        digits = s + 2;
        n -= 3;
    } else if (s[0] == '0' && (s[1] == 'b' || s[1] == 'B')) {
        base = 2;
        digits = s + 2;
        n -= 2;
    } else if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
        base = 16;
        digits = s + 2;
        n -= 2;
    } else {
        digits = s;
    }
    bool overflow = false;
    for (size_t i = 0; i < n; i++) {
        int c = (unsigned char)digits[i], d;
        if (c >= '0' && c <= '9')
            d = c - '0';
        else if (base == 16 && isxdigit(c))
            d = tolower(c) - 'a' + 10;
        else
            d = 99;
        if ((unsigned)d >= base)
            return cdch_err_set(err, "expected a bit value for %s (an integer, 0x.., 0b.. or b'0101'), got '%s'",
                                type_text(col), s);
        if (v > (UINT64_MAX - (unsigned)d) / base)
            overflow = true;
        v = v * base + (unsigned)d;
        nd++;
    }
    if (nd == 0 && base != 2)
        return cdch_err_set(err, "expected a bit value for %s, got '%s'", type_text(col), s);
    if (overflow || (bits < 64 && (v >> bits) != 0))
        return cdch_err_set(err, "bit value %s is too wide for %s (at most %u bits)", s, type_text(col), bits);
    out->kind = CDCH_V_BIT;
    out->u.u = v;
    return 0;
}

static bool label_match(const cdch_sc_column *col, const char *label, const char *s, size_t n)
{
    if (strlen(label) == n && memcmp(label, s, n) == 0)
        return true;
    size_t cl = col->collation ? strlen(col->collation) : 0;
    bool ci = cl > 3 && strcmp(col->collation + cl - 3, "_ci") == 0;
    return ci && strlen(label) == n && strncasecmp(label, s, n) == 0;
}

static void labels_list(const cdch_sc_column *col, char *buf, size_t cap)
{
    size_t k = 0;
    buf[0] = '\0';
    for (size_t i = 0; i < col->def.nlabels && k + 8 < cap; i++)
        k += (size_t)snprintf(buf + k, cap - k, "%s'%s'", i ? "," : "", col->def.labels[i]);
    if (k >= cap)
        snprintf(buf + cap - 5, 5, "...");
}

static int enum_index(const cdch_sc_column *col, const char *s, size_t n, uint64_t *idx, cdch_err *err)
{
    for (size_t i = 0; i < col->def.nlabels; i++)
        if (label_match(col, col->def.labels[i], s, n)) {
            *idx = i + 1;
            return 0;
        }
    char list[200];
    labels_list(col, list, sizeof list);
    return cdch_err_set(err, "'%.*s' is not a member of %s(%s)", (int)n, s,
                        col_class(&col->def) == CC_ENUM ? "enum" : "set", list);
}

/* SET from "a,c" */
static int parse_set_text(const cdch_sc_column *col, const char *s, size_t len, cdch_value *out, cdch_err *err)
{
    uint64_t bits = 0;
    size_t i = 0;
    while (len > 0 && i <= len) {
        size_t j = i;
        while (j < len && s[j] != ',')
            j++;
        uint64_t idx;
        if (enum_index(col, s + i, j - i, &idx, err) < 0)
            return -1;
        bits |= 1ULL << (idx - 1);
        i = j + 1;
    }
    out->kind = CDCH_V_SET;
    out->u.u = bits;
    return 0;
}

/* String bytes of a CHAR/VARCHAR/BINARY/VARBINARY/TEXT/BLOB column. raw:
 * bytes already in the column charset ({hex:}/{base64:}), else UTF-8 text. */
static int string_value(const cdch_sc_column *col, const char *p, size_t len, bool raw, cdch_arena *a,
                        cdch_value *out, cdch_err *err)
{
    cclass k = col_class(&col->def);
    sc_cs cs = col_cs(col);
    const uint8_t *b;
    size_t blen, nchars;
    if (raw || cs == SC_CS_BINARY) {
        b = cdch_arena_memdup(a, p, len);
        blen = len;
        nchars = sc_charset_count(cs, b, blen);
    } else if (sc_charset_encode(cs, col->charset, p, len, a, &b, &blen, &nchars, err) < 0) {
        return -1;
    }
    if (k == CC_CHAR) {
        size_t stripped = sc_charset_strip_pad(cs, b, blen);
        if (stripped != blen) {
            size_t dropped = sc_charset_count(cs, b + stripped, blen - stripped);
            nchars = nchars >= dropped ? nchars - dropped : 0;
            blen = stripped;
        }
    }
    if (k == CC_CHAR || k == CC_VARCHAR) {
        if (cs == SC_CS_BINARY && blen > col->char_length)
            return cdch_err_set(err, "value of %zu bytes is too long for %s", blen, type_text(col));
        if (cs != SC_CS_BINARY && nchars > col->char_length)
            return cdch_err_set(err, "string of %zu characters is too long for %s", nchars, type_text(col));
    }
    uint64_t max = sc_col_max_bytes(col);
    if (blen > max)
        return cdch_err_set(err, "value of %zu bytes is too long for %s (at most %" PRIu64 " bytes)", blen,
                            type_text(col), max);
    out->kind = CDCH_V_STRING;
    out->u.bytes.ptr = b;
    out->u.bytes.len = blen;
    return 0;
}

static int geometry_from_wkb(const cdch_sc_column *col, uint32_t srid, const uint8_t *wkb, size_t len, cdch_arena *a,
                             cdch_value *out, cdch_err *err)
{
    if (sc_wkb_check(wkb, len, col->def.geometry_type, err) < 0)
        return -1;
    out->kind = CDCH_V_GEOMETRY;
    out->u.geom.srid = srid;
    out->u.geom.wkb = cdch_arena_memdup(a, wkb, len);
    out->u.geom.len = len;
    return 0;
}

static int geometry_from_wkt(const cdch_sc_column *col, uint32_t srid, const char *s, size_t len, cdch_arena *a,
                             cdch_value *out, cdch_err *err)
{
    cdch_buf b = CDCH_BUF_INIT;
    int rc = sc_wkt_to_wkb(s, len, &b, err);
    if (rc == 0)
        rc = geometry_from_wkb(col, srid, b.data, b.len, a, out, err);
    cdch_buf_free(&b);
    return rc;
}

static int vector_push(const cdch_sc_column *col, cdch_buf *b, const char *s, cdch_err *err)
{
    char *end;
    double d = *s ? strtod(s, &end) : 0;
    if (!*s || *end)
        return cdch_err_set(err, "expected a number in the vector, got '%s'", s);
    float f = (float)d;
    if (!isfinite(f))
        return cdch_err_set(err, "vector element %s is not a finite float32", s);
    if (b->len / 4 >= col->char_length)
        return cdch_err_set(err, "vector has more than the %u dimensions of %s", col->char_length, type_text(col));
    uint32_t bits;
    memcpy(&bits, &f, 4);
    cdch_put_le32(b, bits);
    return 0;
}

static int vector_done(cdch_buf *b, cdch_arena *a, cdch_value *out, cdch_err *err)
{
    if (b->len == 0)
        return cdch_err_set(err, "a vector needs at least one element");
    out->kind = CDCH_V_VECTOR;
    out->u.bytes.ptr = cdch_arena_memdup(a, b->data, b->len);
    out->u.bytes.len = b->len;
    return 0;
}

/* "[1, 2.5, 3]" */
static int parse_vector_text(const cdch_sc_column *col, const char *s, cdch_arena *a, cdch_value *out, cdch_err *err)
{
    while (isspace((unsigned char)*s))
        s++;
    if (*s != '[')
        return cdch_err_set(err, "expected a vector as [x, y, ...], got '%s'", s);
    s++;
    cdch_buf b = CDCH_BUF_INIT;
    int rc = 0;
    char num[64];
    for (;;) {
        while (isspace((unsigned char)*s))
            s++;
        if (*s == ']' && b.len == 0)
            break;
        size_t n = 0;
        while (*s && *s != ',' && *s != ']' && n + 1 < sizeof num)
            num[n++] = *s++;
        num[n] = '\0';
        char tb[64];
        if ((rc = vector_push(col, &b, trimmed(num, n, tb, sizeof tb), err)) < 0)
            goto out;
        if (*s == ',') {
            s++;
            continue;
        }
        if (*s == ']')
            break;
        rc = cdch_err_set(err, "expected ',' or ']' in the vector");
        goto out;
    }
    s++;
    while (isspace((unsigned char)*s))
        s++;
    if (*s) {
        rc = cdch_err_set(err, "unexpected text after the vector: '%s'", s);
        goto out;
    }
    rc = vector_done(&b, a, out, err);
out:
    cdch_buf_free(&b);
    return rc;
}

int sc_parse_scalar(const cdch_sc_column *col, const char *text, size_t len, bool plain, cdch_arena *a,
                    cdch_value *out, cdch_err *err)
{
    (void)plain;
    memset(out, 0, sizeof *out);
    cclass k = col_class(&col->def);
    char buf[128];
    const char *s = NULL;
    if (k <= CC_BIT) {
        if (len >= sizeof buf)
            return cdch_err_set(err, "value '%.40s...' is too long for %s", text, type_text(col));
        s = trimmed(text, len, buf, sizeof buf);
    }
    switch (k) {
    case CC_INT: return parse_int_value(col, s, out, err);
    case CC_DECIMAL: return parse_decimal_value(col, s, a, out, err);
    case CC_FLOAT:
    case CC_DOUBLE: return parse_real_value(col, s, out, err);
    case CC_DATE:
    case CC_DATETIME:
    case CC_TIMESTAMP:
    case CC_TIME: return parse_temporal_value(col, k, s, out, err);
    case CC_YEAR: return parse_year_value(col, s, out, err);
    case CC_BIT: return parse_bit_value(col, s, out, err);
    case CC_CHAR:
    case CC_VARCHAR:
    case CC_BLOB: return string_value(col, text, len, false, a, out, err);
    case CC_ENUM: {
        uint64_t idx;
        if (enum_index(col, text, len, &idx, err) < 0)
            return -1;
        out->kind = CDCH_V_ENUM;
        out->u.u = idx;
        return 0;
    }
    case CC_SET: return parse_set_text(col, text, len, out, err);
    case CC_JSON: {
        /* the tree may point into the text: parse an arena copy */
        const char *copy = cdch_arena_memdup(a, text, len);
        cdch_err e;
        if (cdch_json_parse_text(copy, len, a, &out->u.json, &e) < 0)
            return cdch_err_set(err, "bad JSON text: %s", e.msg);
        out->kind = CDCH_V_JSON;
        return 0;
    }
    case CC_GEOM: return geometry_from_wkt(col, 0, text, len, a, out, err);
    case CC_VECTOR: {
        char *copy = cdch_arena_memdup(a, text, len);
        return parse_vector_text(col, copy, a, out, err);
    }
    default: return cdch_err_set(err, "column type %u is not supported", (unsigned)col->def.type);
    }
}

int cdch_sc_parse_value(const cdch_sc_column *col, const char *text, bool is_null, cdch_arena *a, cdch_value *out,
                        cdch_err *err)
{
    memset(out, 0, sizeof *out);
    if (is_null || !text) {
        if (!col->def.nullable)
            return cdch_err_set(err, "column %s is NOT NULL", col->name ? col->name : "?");
        out->kind = CDCH_V_NULL;
        return 0;
    }
    return sc_parse_scalar(col, text, strlen(text), true, a, out, err);
}

/* ---- YAML nodes ------------------------------------------------------------------ */

static int unhex(const char *s, size_t len, cdch_buf *out, cdch_err *err)
{
    size_t nd = 0;
    int hi = -1;
    for (size_t i = 0; i < len; i++) {
        int c = (unsigned char)s[i];
        if (isspace(c) || c == ':')
            continue;
        if (!isxdigit(c))
            return cdch_err_set(err, "bad hex: '%c' at character %zu", c, i + 1);
        int v = isdigit(c) ? c - '0' : tolower(c) - 'a' + 10;
        if (hi < 0) {
            hi = v;
        } else {
            cdch_put_u8(out, (uint8_t)(hi << 4 | v));
            hi = -1;
        }
        nd++;
    }
    if (hi >= 0)
        return cdch_err_set(err, "bad hex: odd number of digits (%zu)", nd);
    return 0;
}

static int unbase64(const char *s, size_t len, cdch_buf *out, cdch_err *err)
{
    uint32_t acc = 0;
    int bits = 0, pad = 0;
    for (size_t i = 0; i < len; i++) {
        int c = (unsigned char)s[i], v;
        if (isspace(c))
            continue;
        if (c == '=') {
            pad++;
            continue;
        }
        if (pad)
            return cdch_err_set(err, "bad base64: data after '=' padding");
        if (c >= 'A' && c <= 'Z')
            v = c - 'A';
        else if (c >= 'a' && c <= 'z')
            v = c - 'a' + 26;
        else if (c >= '0' && c <= '9')
            v = c - '0' + 52;
        else if (c == '+' || c == '-')
            v = 62;
        else if (c == '/' || c == '_')
            v = 63;
        else
            return cdch_err_set(err, "bad base64: '%c' at character %zu", c, i + 1);
        acc = acc << 6 | (uint32_t)v;
        bits += 6;
        if (bits >= 8) {
            bits -= 8;
            cdch_put_u8(out, (uint8_t)(acc >> bits));
        }
    }
    if (bits >= 6)
        return cdch_err_set(err, "bad base64: truncated");
    return 0;
}

/* {hex: ...}, {base64: ...} or a !!binary scalar: 1 = handled (bytes in
 * out), 0 = not such a node, -1 error */
static int bytes_map(sc_ctx *c, yaml_node_t *n, cdch_buf *out)
{
    if (sc_is_scalar(n) && n->tag && strcmp((const char *)n->tag, "tag:yaml.org,2002:binary") == 0) {
        cdch_err e;
        if (unbase64(sc_text(n), sc_len(n), out, &e) < 0)
            return sc_fail(c, n, "!!binary: %s", e.msg);
        return 1;
    }
    if (!sc_is_map(n) || n->data.mapping.pairs.top - n->data.mapping.pairs.start != 1)
        return 0;
    yaml_node_pair_t *p = n->data.mapping.pairs.start;
    yaml_node_t *k = sc_node(c, p->key), *v = sc_node(c, p->value);
    if (!sc_is_scalar(k))
        return 0;
    bool hex = strcmp(sc_text(k), "hex") == 0, b64 = strcmp(sc_text(k), "base64") == 0;
    if (!hex && !b64)
        return 0;
    if (!sc_is_scalar(v))
        return sc_fail(c, v, "%s: expected a string, got %s", sc_text(k), sc_kind_name(v));
    cdch_err e;
    if ((hex ? unhex : unbase64)(sc_text(v), sc_len(v), out, &e) < 0)
        return sc_fail(c, v, "%s", e.msg);
    return 1;
}

static bool json_number_text(const char *s, size_t len)
{
    size_t i = 0;
    if (i < len && (s[i] == '-' || s[i] == '+'))
        i++;
    size_t d = 0;
    while (i < len && isdigit((unsigned char)s[i])) {
        i++;
        d++;
    }
    if (i < len && s[i] == '.') {
        i++;
        while (i < len && isdigit((unsigned char)s[i])) {
            i++;
            d++;
        }
    }
    if (d == 0)
        return false;
    if (i < len && (s[i] == 'e' || s[i] == 'E')) {
        i++;
        if (i < len && (s[i] == '-' || s[i] == '+'))
            i++;
        size_t e = 0;
        while (i < len && isdigit((unsigned char)s[i])) {
            i++;
            e++;
        }
        if (!e)
            return false;
    }
    return i == len;
}

static int member_cmp(const void *x, const void *y)
{
    const cdch_json_member *a = x, *b = y;
    if (a->key_len != b->key_len)
        return a->key_len < b->key_len ? -1 : 1;
    return a->key_len ? memcmp(a->key, b->key, a->key_len) : 0;
}

int sc_node_json(sc_ctx *c, yaml_node_t *n, unsigned depth, cdch_json **out)
{
    if (depth > CDCH_JSON_MAX_DEPTH)
        return sc_fail(c, n, "JSON value nested deeper than %d levels", CDCH_JSON_MAX_DEPTH);
    cdch_json *j = cdch_arena_alloc(c->a, sizeof *j);
    *out = j;
    if (sc_is_scalar(n)) {
        const char *s = sc_text(n);
        size_t len = sc_len(n);
        bool b;
        if (sc_plain(n)) {
            if (sc_is_null(n)) {
                j->type = CDCH_JSON_NULL;
                return 0;
            }
            if (sc_plain_bool(n, &b)) {
                j->type = b ? CDCH_JSON_TRUE : CDCH_JSON_FALSE;
                return 0;
            }
            if (!strcmp(s, ".inf") || !strcmp(s, "-.inf") || !strcmp(s, ".nan") || !strcmp(s, ".NaN"))
                return sc_fail(c, n, "JSON cannot hold %s (infinity/NaN)", s);
            if (json_number_text(s, len)) {
                bool neg;
                uint64_t mag;
                int r = parse_integer(s, &neg, &mag);
                if (r == 0 && !neg && mag > INT64_MAX) {
                    j->type = CDCH_JSON_UINT;
                    j->u.u = mag;
                } else if (r == 0 && (!neg || mag <= (uint64_t)INT64_MAX + 1)) {
                    j->type = CDCH_JSON_INT;
                    j->u.i = neg ? (int64_t)((uint64_t)0 - mag) : (int64_t)mag;
                } else {
                    j->type = CDCH_JSON_DOUBLE;
                    j->u.d = strtod(s, NULL);
                    if (!isfinite(j->u.d))
                        return sc_fail(c, n, "JSON number %s is out of the double range", s);
                }
                return 0;
            }
        }
        j->type = CDCH_JSON_STRING;
        j->u.str.ptr = cdch_arena_memdup(c->a, s, len);
        j->u.str.len = len;
        return 0;
    }
    if (sc_is_seq(n)) {
        size_t cnt = (size_t)(n->data.sequence.items.top - n->data.sequence.items.start);
        j->type = CDCH_JSON_ARRAY;
        j->u.arr.count = cnt;
        j->u.arr.items = cnt ? cdch_arena_alloc(c->a, cnt * sizeof(cdch_json *)) : NULL;
        for (size_t i = 0; i < cnt; i++)
            if (sc_node_json(c, sc_node(c, n->data.sequence.items.start[i]), depth + 1, &j->u.arr.items[i]) < 0)
                return -1;
        return 0;
    }
    /* mapping; {json_text: "..."} is JSON text */
    size_t cnt = (size_t)(n->data.mapping.pairs.top - n->data.mapping.pairs.start);
    if (cnt == 1) {
        yaml_node_pair_t *p = n->data.mapping.pairs.start;
        yaml_node_t *k = sc_node(c, p->key), *v = sc_node(c, p->value);
        if (sc_is_scalar(k) && strcmp(sc_text(k), "json_text") == 0) {
            if (!sc_is_scalar(v))
                return sc_fail(c, v, "json_text: expected a string of JSON text, got %s", sc_kind_name(v));
            const char *copy = cdch_arena_memdup(c->a, sc_text(v), sc_len(v));
            cdch_err e;
            if (cdch_json_parse_text(copy, sc_len(v), c->a, out, &e) < 0)
                return sc_fail(c, v, "bad JSON text: %s", e.msg);
            return 0;
        }
    }
    j->type = CDCH_JSON_OBJECT;
    j->u.obj.count = cnt;
    j->u.obj.members = cnt ? cdch_arena_alloc(c->a, cnt * sizeof(cdch_json_member)) : NULL;
    for (size_t i = 0; i < cnt; i++) {
        yaml_node_pair_t *p = &n->data.mapping.pairs.start[i];
        yaml_node_t *k = sc_node(c, p->key);
        if (!sc_is_scalar(k))
            return sc_fail(c, k, "JSON object keys must be strings, got %s", sc_kind_name(k));
        if (sc_len(k) > 65535)
            return sc_fail(c, k, "JSON object key longer than 65535 bytes");
        cdch_json_member *m = &j->u.obj.members[i];
        m->key = cdch_arena_memdup(c->a, sc_text(k), sc_len(k));
        m->key_len = sc_len(k);
        for (size_t q = 0; q < i; q++)
            if (member_cmp(m, &j->u.obj.members[q]) == 0)
                return sc_fail(c, k, "duplicate key '%s' in the JSON object", m->key);
        if (sc_node_json(c, sc_node(c, p->value), depth + 1, &m->value) < 0)
            return -1;
    }
    if (cnt > 1)
        qsort(j->u.obj.members, cnt, sizeof(cdch_json_member), member_cmp);
    return 0;
}

static int fail_value(sc_ctx *c, yaml_node_t *n, const cdch_sc_column *col, const cdch_err *e)
{
    return sc_fail(c, n, "column %s: %s", col->name, e->msg);
}

int sc_node_value(sc_ctx *c, const cdch_sc_column *col, yaml_node_t *n, cdch_value *out)
{
    memset(out, 0, sizeof *out);
    cclass k = col_class(&col->def);
    cdch_err e;
    if (sc_is_scalar(n) && sc_is_null(n)) {
        if (!col->def.nullable)
            return sc_fail(c, n, "column %s is NOT NULL: it cannot be null", col->name);
        out->kind = CDCH_V_NULL;
        return 0;
    }
    if (k == CC_JSON) {
        out->kind = CDCH_V_JSON;
        return sc_node_json(c, n, 0, &out->u.json);
    }
    if (k == CC_CHAR || k == CC_VARCHAR || k == CC_BLOB) {
        cdch_buf b = CDCH_BUF_INIT;
        int r = bytes_map(c, n, &b);
        if (r < 0) {
            cdch_buf_free(&b);
            return -1;
        }
        if (r == 1) {
            r = string_value(col, b.data ? (const char *)b.data : "", b.len, true, c->a, out, &e);
            cdch_buf_free(&b);
            return r < 0 ? fail_value(c, n, col, &e) : 0;
        }
        if (!sc_is_scalar(n))
            return sc_fail(c, n, "column %s (%s): expected a string or {hex: ...}/{base64: ...}, got %s", col->name,
                           type_text(col), sc_kind_name(n));
    }
    if (k == CC_SET && sc_is_seq(n)) {
        uint64_t bits = 0;
        for (yaml_node_item_t *it = n->data.sequence.items.start; it < n->data.sequence.items.top; it++) {
            yaml_node_t *m = sc_node(c, *it);
            if (!sc_is_scalar(m))
                return sc_fail(c, m, "column %s: set members must be strings, got %s", col->name, sc_kind_name(m));
            uint64_t idx;
            if (enum_index(col, sc_text(m), sc_len(m), &idx, &e) < 0)
                return fail_value(c, m, col, &e);
            bits |= 1ULL << (idx - 1);
        }
        out->kind = CDCH_V_SET;
        out->u.u = bits;
        return 0;
    }
    if (k == CC_VECTOR && sc_is_seq(n)) {
        cdch_buf b = CDCH_BUF_INIT;
        for (yaml_node_item_t *it = n->data.sequence.items.start; it < n->data.sequence.items.top; it++) {
            yaml_node_t *m = sc_node(c, *it);
            char tb[64];
            if (!sc_is_scalar(m) || sc_len(m) >= sizeof tb) {
                cdch_buf_free(&b);
                return sc_fail(c, m, "column %s: vector elements must be numbers", col->name);
            }
            if (vector_push(col, &b, trimmed(sc_text(m), sc_len(m), tb, sizeof tb), &e) < 0) {
                cdch_buf_free(&b);
                return fail_value(c, m, col, &e);
            }
        }
        int r = vector_done(&b, c->a, out, &e);
        cdch_buf_free(&b);
        return r < 0 ? fail_value(c, n, col, &e) : 0;
    }
    if (k == CC_GEOM && sc_is_map(n)) {
        static const char *const keys[] = {"srid", "wkb", "wkt", NULL};
        if (sc_check_map(c, n, "a geometry value", keys) < 0)
            return -1;
        uint64_t srid = 0;
        yaml_node_t *sn = sc_get(c, n, "srid"), *wkb = sc_get(c, n, "wkb"), *wkt = sc_get(c, n, "wkt");
        if (sn && sc_u64(c, sn, "srid", 0, UINT32_MAX, &srid) < 0)
            return -1;
        if (!!wkb == !!wkt)
            return sc_fail(c, n, "column %s: a geometry value needs exactly one of wkb: (hex) or wkt:", col->name);
        yaml_node_t *v = wkb ? wkb : wkt;
        if (!sc_is_scalar(v))
            return sc_fail(c, v, "expected a string, got %s", sc_kind_name(v));
        int r;
        if (wkb) {
            cdch_buf b = CDCH_BUF_INIT;
            r = unhex(sc_text(v), sc_len(v), &b, &e);
            if (r == 0)
                r = geometry_from_wkb(col, (uint32_t)srid, b.data ? b.data : (const uint8_t *)"", b.len, c->a, out,
                                      &e);
            cdch_buf_free(&b);
        } else {
            r = geometry_from_wkt(col, (uint32_t)srid, sc_text(v), sc_len(v), c->a, out, &e);
        }
        return r < 0 ? fail_value(c, v, col, &e) : 0;
    }
    if (!sc_is_scalar(n))
        return sc_fail(c, n, "column %s (%s): expected a single value, got %s", col->name, type_text(col),
                       sc_kind_name(n));
    if (sc_parse_scalar(col, sc_text(n), sc_len(n), sc_plain(n), c->a, out, &e) < 0)
        return fail_value(c, n, col, &e);
    return 0;
}

/* ---- zero values and SQL literals ------------------------------------------------ */

int sc_zero_value(const cdch_sc_column *col, cdch_arena *a, cdch_value *out, cdch_err *err)
{
    memset(out, 0, sizeof *out);
    if (col->def.nullable) {
        out->kind = CDCH_V_NULL;
        return 0;
    }
    switch (col_class(&col->def)) {
    case CC_INT:
        out->kind = col->def.is_unsigned ? CDCH_V_UINT : CDCH_V_INT;
        return 0;
    case CC_DECIMAL: return parse_decimal_value(col, "0", a, out, err);
    case CC_FLOAT: out->kind = CDCH_V_FLOAT; return 0;
    case CC_DOUBLE: out->kind = CDCH_V_DOUBLE; return 0;
    case CC_DATE: out->kind = CDCH_V_DATE; return 0;
    case CC_DATETIME: out->kind = CDCH_V_DATETIME; return 0;
    case CC_TIMESTAMP: out->kind = CDCH_V_TIMESTAMP; return 0;
    case CC_TIME: out->kind = CDCH_V_TIME; return 0;
    case CC_YEAR: out->kind = CDCH_V_YEAR; return 0;
    case CC_BIT: out->kind = CDCH_V_BIT; return 0;
    case CC_CHAR:
    case CC_VARCHAR:
    case CC_BLOB:
        out->kind = CDCH_V_STRING;
        out->u.bytes.ptr = (const uint8_t *)"";
        return 0;
    case CC_ENUM: /* MySQL: a NOT NULL ENUM defaults to its first member */
        out->kind = CDCH_V_ENUM;
        out->u.u = 1;
        return 0;
    case CC_SET: out->kind = CDCH_V_SET; return 0;
    case CC_JSON:
        out->kind = CDCH_V_JSON;
        out->u.json = cdch_arena_alloc(a, sizeof(cdch_json));
        out->u.json->type = CDCH_JSON_NULL;
        return 0;
    case CC_GEOM:
        if (col->def.geometry_type == SC_GEOM_GEOMETRY || col->def.geometry_type == SC_GEOM_POINT)
            return geometry_from_wkt(col, 0, "POINT(0 0)", 10, a, out, err);
        if (col->def.geometry_type == SC_GEOM_GEOMETRYCOLLECTION)
            return geometry_from_wkt(col, 0, "GEOMETRYCOLLECTION EMPTY", 24, a, out, err);
        return cdch_err_set(err, "column %s (%s NOT NULL) has no zero value: give it a value", col->name,
                            type_text(col));
    case CC_VECTOR: {
        out->kind = CDCH_V_VECTOR;
        out->u.bytes.len = 4 * (size_t)col->char_length;
        out->u.bytes.ptr = cdch_arena_alloc(a, out->u.bytes.len);
        return 0;
    }
    default: return cdch_err_set(err, "column %s has an unsupported type", col->name);
    }
}

static void sql_quote(cdch_buf *b, const uint8_t *p, size_t n)
{
    cdch_put_u8(b, '\'');
    for (size_t i = 0; i < n; i++) {
        if (p[i] == '\'' || p[i] == '\\')
            cdch_put_u8(b, p[i]);
        if (p[i] == 0) {
            cdch_put_str(b, "\\0");
            continue;
        }
        cdch_put_u8(b, p[i]);
    }
    cdch_put_u8(b, '\'');
}

const char *sc_sql_literal(const cdch_sc_column *col, const cdch_value *v, cdch_arena *a)
{
    cdch_buf b = CDCH_BUF_INIT;
    switch (v->kind) {
    case CDCH_V_NULL: cdch_put_str(&b, "NULL"); break;
    case CDCH_V_INT: cdch_buf_printf(&b, "%" PRId64, v->u.i); break;
    case CDCH_V_UINT:
    case CDCH_V_YEAR: cdch_buf_printf(&b, "%" PRIu64, v->u.u); break;
    case CDCH_V_FLOAT: cdch_buf_printf(&b, "%.9g", (double)v->u.f); break;
    case CDCH_V_DOUBLE: cdch_buf_printf(&b, "%.17g", v->u.d); break;
    case CDCH_V_DECIMAL: cdch_put_bytes(&b, v->u.bytes.ptr, v->u.bytes.len); break;
    case CDCH_V_DATE:
    case CDCH_V_DATETIME:
    case CDCH_V_TIME:
    case CDCH_V_TIMESTAMP: {
        cdch_temporal t = v->u.t;
        int kind = v->kind == CDCH_V_DATE ? CDCH_T_DATE : v->kind == CDCH_V_TIME ? CDCH_T_TIME2 : CDCH_T_DATETIME2;
        if (v->kind == CDCH_V_TIMESTAMP) {
            if (v->u.ts.sec == 0 && v->u.ts.usec == 0)
                memset(&t, 0, sizeof t);
            else
                cdch_epoch_to_civil(v->u.ts.sec, v->u.ts.usec, &t);
        }
        cdch_put_u8(&b, '\'');
        cdch_temporal_format(&t, kind, kind == CDCH_T_DATE ? 0 : col->def.meta, &b);
        cdch_put_u8(&b, '\'');
        break;
    }
    case CDCH_V_BIT: {
        unsigned bits = col->char_length ? col->char_length : 64;
        cdch_put_str(&b, "b'");
        for (unsigned i = bits; i-- > 0;)
            cdch_put_u8(&b, (uint8_t)('0' + ((v->u.u >> i) & 1)));
        cdch_put_u8(&b, '\'');
        break;
    }
    case CDCH_V_STRING: {
        sc_cs cs = col_cs(col);
        if (cs == SC_CS_UTF8MB4 || cs == SC_CS_UTF8MB3 || cs == SC_CS_ASCII) {
            sql_quote(&b, v->u.bytes.ptr, v->u.bytes.len);
        } else {
            cdch_put_str(&b, "X'");
            for (size_t i = 0; i < v->u.bytes.len; i++)
                cdch_buf_printf(&b, "%02x", v->u.bytes.ptr[i]);
            cdch_put_u8(&b, '\'');
        }
        break;
    }
    case CDCH_V_ENUM: {
        const char *l = v->u.u >= 1 && v->u.u <= col->def.nlabels ? col->def.labels[v->u.u - 1] : "";
        sql_quote(&b, (const uint8_t *)l, strlen(l));
        break;
    }
    case CDCH_V_SET: {
        cdch_buf s = CDCH_BUF_INIT;
        for (size_t i = 0; i < col->def.nlabels && i < 64; i++)
            if (v->u.u >> i & 1) {
                if (s.len)
                    cdch_put_u8(&s, ',');
                cdch_put_str(&s, col->def.labels[i]);
            }
        sql_quote(&b, s.data ? s.data : (const uint8_t *)"", s.len);
        cdch_buf_free(&s);
        break;
    }
    default: cdch_put_str(&b, "NULL"); break;
    }
    const char *r = cdch_arena_memdup(a, b.data, b.len);
    cdch_buf_free(&b);
    return r;
}
