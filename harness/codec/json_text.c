/* json_text.c — a JSON tree as compact JSON text (json_binary.h).
 *
 * Text output follows Json_wrapper::to_string() except that it is
 * compact (MySQL writes ", " and ": "): strings are escaped like
 * double_quote() (only '"', '\\' and bytes < 0x20; \b \t \n \f \r by
 * name, others as \u00xx: cdch_put_json_str without flags), doubles
 * like my_gcvt(..., 34 chars) plus ".0" when the result has neither
 * '.' nor 'e' (1.0 -> 1.0, 1e15 -> 1e15, 1e14 -> 100000000000000.0,
 * 0.1 -> 0.1, 1e-16 -> 1e-16), temporal opaques with
 * my_TIME_to_str(..., 6) (so DATETIME/TIME/TIMESTAMP always carry six
 * fraction digits, DATE none), DECIMAL with its own scale, VAR_STRING
 * opaques as plain strings (MySQL does the same), and other opaques as
 * "base64:typeNN:..." where, like MySQL's base64_encode(), a newline
 * (escaped as \n) follows every 76 base64 characters.
 */
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cursor.h"
#include "decimal.h"
#include "json_binary_internal.h"
#include "jsonstr.h"
#include "mysql_types.h"
#include "temporal.h"
#include "value.h" /* cdch_base64_append */

/* ======================================================================
 * Text output
 * ==================================================================== */

/* Parse the output of "%.*e" into its significant digits and a
 * dtoa-style decimal point position (value = 0.DIGITS * 10^decpt). */
static int sci_to_digits(const char *s, char *dig, int *decpt)
{
    int n = 0;
    for (; *s && *s != 'e'; s++)
        if (*s >= '0' && *s <= '9')
            dig[n++] = *s;
    dig[n] = '\0';
    *decpt = (*s == 'e' ? atoi(s + 1) : 0) + 1;
    return n;
}

static int strip_zeros(char *dig, int n)
{
    while (n > 1 && dig[n - 1] == '0')
        n--;
    dig[n] = '\0';
    return n;
}

static bool digits_roundtrip(const char *dig, int n, int decpt, double v)
{
    char buf[48];
    snprintf(buf, sizeof buf, "%.*se%d", n, dig, decpt - n);
    return strtod(buf, NULL) == v;
}

/* Add delta (+1/-1) to the last digit of dig[0..n) (n digits, no sign);
 * renormalises so there is no leading or trailing zero. */
static int digits_step(char *dig, int n, int *decpt, int delta)
{
    int i = n - 1;
    if (delta > 0) {
        while (i >= 0 && dig[i] == '9')
            dig[i--] = '0';
        if (i < 0) {
            memmove(dig + 1, dig, (size_t)n);
            dig[0] = '1';
            n++;
            (*decpt)++;
        } else {
            dig[i]++;
        }
    } else {
        while (i >= 0 && dig[i] == '0')
            dig[i--] = '9';
        if (i < 0)
            return 0;
        dig[i]--;
        if (dig[0] == '0') {
            memmove(dig, dig + 1, (size_t)n - 1);
            n--;
            (*decpt)--;
        }
    }
    while (n > 1 && dig[n - 1] == '0')
        n--;
    dig[n] = '\0';
    return n;
}

/* Shortest digit string that reads back as v (v finite, > 0): what dtoa
 * mode 0 (and so my_gcvt with a 34-character field) produces. */
static int shortest_digits(double v, char dig[24], int *decpt)
{
    char buf[48];
    for (int p = 1; p <= 17; p++) {
        snprintf(buf, sizeof buf, "%.*e", p - 1, v);
        int dp;
        int n = sci_to_digits(buf, dig, &dp);
        if (digits_roundtrip(dig, n, dp, v)) {
            *decpt = dp;
            return strip_zeros(dig, n);
        }
        /* Near powers of two the rounding interval is asymmetric: the
         * nearest p-digit decimal may miss while its neighbour hits. */
        for (int delta = -1; delta <= 1; delta += 2) {
            char alt[24];
            memcpy(alt, dig, (size_t)n + 1);
            int adp = dp;
            int an = digits_step(alt, n, &adp, delta);
            if (an > 0 && an <= p && digits_roundtrip(alt, an, adp, v)) {
                memcpy(dig, alt, (size_t)an + 1);
                *decpt = adp;
                return an;
            }
        }
    }
    snprintf(buf, sizeof buf, "%.16e", v);
    return strip_zeros(dig, sci_to_digits(buf, dig, decpt));
}

/* my_gcvt(d, MY_GCVT_ARG_DOUBLE, MY_GCVT_MAX_FIELD_WIDTH = 34) followed by
 * Json_wrapper's ".0" rule. Non-finite values cannot be stored by MySQL;
 * they are printed as null. */
static void txt_double(cdch_buf *o, double v)
{
    if (!isfinite(v)) {
        cdch_put_str(o, "null");
        return;
    }
    char dig[24];
    int decpt, len;
    bool neg = signbit(v) != 0;
    int width = 34;
    if (v < 0)
        width--;
    if (v == 0) {
        dig[0] = '0';
        dig[1] = '\0';
        len = 1;
        decpt = 1;
    } else {
        len = shortest_digits(neg ? -v : v, dig, &decpt);
    }
    int exp_len = 1 + (decpt >= 101 || decpt <= -99) + (decpt >= 11 || decpt <= -9);
    int f_len = decpt <= 0 ? len - decpt + 2 : (decpt < len ? len + 1 : decpt);
    bool have_space = f_len <= width;
    bool force_e = decpt <= 0 && width <= 2 - decpt && width >= 3 + exp_len;
    bool use_f = (have_space ||
                  ((decpt <= width && (decpt >= -1 || (decpt == -2 && (len > 1 || !force_e)))) && !force_e)) &&
                 (!have_space || (decpt >= -15 + 1 && (decpt <= 15 || len > decpt)));
    char s[64];
    size_t k = 0;
    if (neg)
        s[k++] = '-';
    if (use_f) {
        if (decpt <= 0) {
            s[k++] = '0';
            s[k++] = '.';
            for (int z = decpt; z < 0; z++)
                s[k++] = '0';
            for (int i = 0; i < len; i++)
                s[k++] = dig[i];
        } else {
            for (int i = 0; i < len; i++) {
                s[k++] = dig[i];
                if (i + 1 == decpt && i + 1 < len)
                    s[k++] = '.';
            }
            for (int i = len; i < decpt; i++)
                s[k++] = '0';
        }
    } else {
        s[k++] = dig[0];
        if (len > 1) {
            s[k++] = '.';
            for (int i = 1; i < len; i++)
                s[k++] = dig[i];
        }
        k += (size_t)snprintf(s + k, sizeof s - k, "e%d", decpt - 1);
    }
    s[k] = '\0';
    cdch_put_str(o, s);
    if (!strchr(s, '.') && !strchr(s, 'e'))
        cdch_put_str(o, ".0");
}

static void txt_base64(cdch_buf *o, const cdch_json *j)
{
    /* MySQL's base64_encode() breaks the output every 76 characters (57
     * input bytes); double_quote() then escapes the newline as \n. */
    char pre[32];
    snprintf(pre, sizeof pre, "\"base64:type%u:", (unsigned)j->u.opaque.field_type);
    cdch_put_str(o, pre);
    const uint8_t *p = j->u.opaque.data;
    size_t n = j->u.opaque.len;
    for (size_t off = 0; off < n; off += 57) {
        if (off)
            cdch_put_str(o, "\\n");
        cdch_base64_append(o, p + off, n - off < 57 ? n - off : 57);
    }
    cdch_put_u8(o, '"');
}

static bool txt_opaque_decimal(cdch_buf *o, const cdch_json *j)
{
    const uint8_t *p = j->u.opaque.data;
    size_t n = j->u.opaque.len;
    if (n < 2)
        return false;
    unsigned prec = p[0], scale = p[1];
    if (prec < 1 || prec > CDCH_DECIMAL_MAX_PRECISION || scale > CDCH_DECIMAL_MAX_SCALE || scale > prec)
        return false;
    if (cdch_decimal_bin_size(prec, scale) != n - 2)
        return false;
    size_t mark = o->len;
    cdch_err e;
    cdch_err_clear(&e);
    if (cdch_decimal_decode(p + 2, prec, scale, o, &e) < 0) {
        o->len = mark;
        return false;
    }
    return true;
}

static void txt_opaque(cdch_buf *o, const cdch_json *j)
{
    const uint8_t ft = j->u.opaque.field_type;
    switch (ft) {
    case CDCH_T_DATE:
    case CDCH_T_TIME:
    case CDCH_T_DATETIME:
    case CDCH_T_TIMESTAMP:
        if (j->u.opaque.len == 8) {
            cdch_temporal t;
            memset(&t, 0, sizeof t);
            cdch_temporal_from_packed((int64_t)cdch_le(j->u.opaque.data, 8), ft, &t);
            int kind = ft == CDCH_T_DATE ? CDCH_T_DATE : ft == CDCH_T_TIME ? CDCH_T_TIME2 : CDCH_T_DATETIME2;
            cdch_put_u8(o, '"');
            cdch_temporal_format(&t, kind, ft == CDCH_T_DATE ? 0 : 6, o);
            cdch_put_u8(o, '"');
            return;
        }
        break;
    case CDCH_T_NEWDECIMAL:
        if (txt_opaque_decimal(o, j))
            return;
        break;
    case CDCH_T_VAR_STRING:
        /* wrapper_to_string(): "Treat strings saved in opaque as plain
         * json strings". */
        cdch_put_json_str(o, j->u.opaque.data, j->u.opaque.len, 0);
        return;
    default:
        break;
    }
    txt_base64(o, j);
}

static void txt_value(cdch_buf *o, const cdch_json *j)
{
    char num[32];
    switch (j->type) {
    case CDCH_JSON_NULL: cdch_put_str(o, "null"); return;
    case CDCH_JSON_TRUE: cdch_put_str(o, "true"); return;
    case CDCH_JSON_FALSE: cdch_put_str(o, "false"); return;
    case CDCH_JSON_INT:
        snprintf(num, sizeof num, "%lld", (long long)j->u.i);
        cdch_put_str(o, num);
        return;
    case CDCH_JSON_UINT:
        snprintf(num, sizeof num, "%llu", (unsigned long long)j->u.u);
        cdch_put_str(o, num);
        return;
    case CDCH_JSON_DOUBLE: txt_double(o, j->u.d); return;
    case CDCH_JSON_STRING: cdch_put_json_str(o, j->u.str.ptr, j->u.str.len, 0); return;
    case CDCH_JSON_OPAQUE: txt_opaque(o, j); return;
    case CDCH_JSON_OBJECT:
        cdch_put_u8(o, '{');
        for (size_t i = 0; i < j->u.obj.count; i++) {
            if (i)
                cdch_put_u8(o, ',');
            cdch_put_json_str(o, j->u.obj.members[i].key, j->u.obj.members[i].key_len, 0);
            cdch_put_u8(o, ':');
            txt_value(o, j->u.obj.members[i].value);
        }
        cdch_put_u8(o, '}');
        return;
    case CDCH_JSON_ARRAY:
        cdch_put_u8(o, '[');
        for (size_t i = 0; i < j->u.arr.count; i++) {
            if (i)
                cdch_put_u8(o, ',');
            txt_value(o, j->u.arr.items[i]);
        }
        cdch_put_u8(o, ']');
        return;
    }
    cdch_put_str(o, "null");
}

void cdch_json_to_text(const cdch_json *j, cdch_buf *out)
{
    if (!j) {
        cdch_put_str(out, "null");
        return;
    }
    txt_value(out, j);
}
