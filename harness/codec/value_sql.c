/* value_sql.c — a row value as mysqlbinlog -v prints it after "@N=" and
 * the -vv type comment after it (contract in value.h; MySQL's
 * log_event_print_value and json_dom.cc are the references).
 */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "decimal.h"
#include "jsonstr.h"
#include "value_internal.h"

/* ---- mysqlbinlog -v text ---------------------------------------------------------- */

/* my_b_write_quoted (MySQL 8.0): \b \f \n \r \t \\ \' escaped, other bytes
 * below 0x20 as \xNN, everything else (UTF-8 included) verbatim. */
static void sql_quoted(cdch_buf *out, const uint8_t *p, size_t n)
{
    cdch_put_u8(out, '\'');
    size_t run = 0;
    for (size_t i = 0; i < n; i++) {
        uint8_t ch = p[i];
        char ebuf[8];
        const char *esc = NULL;
        switch (ch) {
        case '\b': esc = "\\b"; break;
        case '\f': esc = "\\f"; break;
        case '\n': esc = "\\n"; break;
        case '\r': esc = "\\r"; break;
        case '\t': esc = "\\t"; break;
        case '\\': esc = "\\\\"; break;
        case '\'': esc = "\\'"; break;
        default:
            if (ch < 32) {
                snprintf(ebuf, sizeof ebuf, "\\x%02x", ch);
                esc = ebuf;
            }
        }
        if (esc) {
            cdch_put_bytes(out, p + run, i - run);
            cdch_put_str(out, esc);
            run = i + 1;
        }
    }
    cdch_put_bytes(out, p + run, n - run);
    cdch_put_u8(out, '\'');
}

/* my_b_write_bit: nbits digits, most significant first, over big-endian
 * bytes. */
static void sql_bits(cdch_buf *out, const uint8_t *bytes, unsigned nbits)
{
    unsigned nbits8 = (nbits + 7) / 8 * 8, skip = nbits8 - nbits;
    cdch_put_str(out, "b'");
    for (unsigned b = skip; b < nbits8; b++)
        cdch_put_u8(out, (bytes[b / 8] >> (7 - b % 8)) & 1 ? '1' : '0');
    cdch_put_u8(out, '\'');
}

/* MySQL's my_gcvt(d, MY_GCVT_ARG_DOUBLE, 34) as used by JSON text output:
 * shortest round-trip digits, 'f' or 'e' format by MySQL's rules, exponent
 * without '+' or padding; then ".0" if neither '.' nor 'e' appears. */
static void mysql_json_double(cdch_buf *out, double x)
{
    if (!isfinite(x)) {
        cdch_put_u8(out, '0');
        return;
    }
    if (x == 0) {
        cdch_put_str(out, signbit(x) ? "-0.0" : "0.0");
        return;
    }
    char e[64];
    int p;
    for (p = 1; p <= 17; p++) {
        snprintf(e, sizeof e, "%.*e", p - 1, x);
        if (strtod(e, NULL) == x)
            break;
    }
    /* digits and decimal exponent from "-d.ddde±XX" */
    char digits[32];
    int len = 0;
    const char *s = e;
    bool neg = false;
    if (*s == '-') {
        neg = true;
        s++;
    }
    for (; *s && *s != 'e'; s++)
        if (*s >= '0' && *s <= '9')
            digits[len++] = *s;
    while (len > 1 && digits[len - 1] == '0')
        len--;
    int exp10 = atoi(s + 1);
    int decpt = exp10 + 1;
    int width = 34 - (neg ? 1 : 0);
    const int max_f = 15; /* MAX_DECPT_FOR_F_FORMAT = DBL_DIG */
    bool have_space = (decpt <= 0 ? len - decpt + 2 : (decpt < len ? len + 1 : decpt)) <= width;
    int exp_len = 1 + (decpt >= 101 || decpt <= -99) + (decpt >= 11 || decpt <= -9);
    bool force_e = decpt <= 0 && width <= 2 - decpt && width >= 3 + exp_len;
    bool use_f = (have_space || (decpt <= width && (decpt >= -1 || (decpt == -2 && (len > 1 || !force_e))) &&
                                 !force_e)) &&
                 (!have_space || (decpt >= -max_f + 1 && (decpt <= max_f || len > decpt)));
    size_t mark = out->len;
    if (neg)
        cdch_put_u8(out, '-');
    if (use_f) {
        if (decpt <= 0) {
            cdch_put_str(out, "0.");
            for (int i = decpt; i < 0; i++)
                cdch_put_u8(out, '0');
            cdch_put_bytes(out, digits, (size_t)len);
        } else {
            for (int i = 0; i < len; i++) {
                cdch_put_u8(out, (uint8_t)digits[i]);
                if (i + 1 == decpt && i + 1 < len)
                    cdch_put_u8(out, '.');
            }
            for (int i = len; i < decpt; i++)
                cdch_put_u8(out, '0');
        }
    } else {
        cdch_put_u8(out, (uint8_t)digits[0]);
        if (len > 1) {
            cdch_put_u8(out, '.');
            cdch_put_bytes(out, digits + 1, (size_t)len - 1);
        }
        int ex = decpt - 1;
        cdch_buf_printf(out, "e%s%d", ex < 0 ? "-" : "", ex < 0 ? -ex : ex);
    }
    bool has_dot_or_e = false;
    for (size_t i = mark; i < out->len; i++)
        if (out->data[i] == '.' || out->data[i] == 'e')
            has_dot_or_e = true;
    if (!has_dot_or_e)
        cdch_put_str(out, ".0");
}

/* MySQL's base64_encode: a newline after every 76 output characters. */
static void mysql_base64(cdch_buf *out, const uint8_t *p, size_t n)
{
    cdch_buf tmp = CDCH_BUF_INIT;
    cdch_base64_append(&tmp, p, n);
    for (size_t i = 0; i < tmp.len; i += 76) {
        if (i)
            cdch_put_u8(out, '\n');
        cdch_put_bytes(out, tmp.data + i, tmp.len - i < 76 ? tmp.len - i : 76);
    }
    cdch_buf_free(&tmp);
}

static int64_t le64_at(const uint8_t *p)
{
    uint64_t v = 0;
    for (int i = 7; i >= 0; i--)
        v = v << 8 | p[i];
    return (int64_t)v;
}

/* Json_wrapper::to_string (json_dom.cc wrapper_to_string) with
 * pretty=false: ", " between elements, ": " after keys. */
static void mysql_json_text(const cdch_json *j, cdch_buf *out, bool quoted, int depth)
{
    if (!j || depth > CDCH_JSON_MAX_DEPTH) {
        cdch_put_str(out, "null");
        return;
    }
    switch (j->type) {
    case CDCH_JSON_NULL: cdch_put_str(out, "null"); return;
    case CDCH_JSON_TRUE: cdch_put_str(out, "true"); return;
    case CDCH_JSON_FALSE: cdch_put_str(out, "false"); return;
    case CDCH_JSON_INT: cdch_buf_printf(out, "%" PRId64, j->u.i); return;
    case CDCH_JSON_UINT: cdch_buf_printf(out, "%" PRIu64, j->u.u); return;
    case CDCH_JSON_DOUBLE: mysql_json_double(out, j->u.d); return;
    case CDCH_JSON_STRING:
        if (quoted)
            cdch_put_json_str(out, j->u.str.ptr, j->u.str.len, 0);
        else
            cdch_put_bytes(out, j->u.str.ptr, j->u.str.len);
        return;
    case CDCH_JSON_OBJECT:
        cdch_put_u8(out, '{');
        for (size_t i = 0; i < j->u.obj.count; i++) {
            if (i)
                cdch_put_str(out, ", ");
            cdch_put_json_str(out, j->u.obj.members[i].key, j->u.obj.members[i].key_len, 0);
            cdch_put_str(out, ": ");
            mysql_json_text(j->u.obj.members[i].value, out, true, depth + 1);
        }
        cdch_put_u8(out, '}');
        return;
    case CDCH_JSON_ARRAY:
        cdch_put_u8(out, '[');
        for (size_t i = 0; i < j->u.arr.count; i++) {
            if (i)
                cdch_put_str(out, ", ");
            mysql_json_text(j->u.arr.items[i], out, true, depth + 1);
        }
        cdch_put_u8(out, ']');
        return;
    case CDCH_JSON_OPAQUE: {
        uint8_t ft = j->u.opaque.field_type;
        const uint8_t *d = j->u.opaque.data;
        size_t n = j->u.opaque.len;
        if (ft == CDCH_T_NEWDECIMAL && n >= 2) {
            cdch_buf tmp = CDCH_BUF_INIT;
            size_t need = cdch_decimal_bin_size(d[0], d[1]);
            if (need && n - 2 >= need && cdch_decimal_decode(d + 2, d[0], d[1], &tmp, NULL) == 0) {
                cdch_put_bytes(out, tmp.data, tmp.len);
                cdch_buf_free(&tmp);
                return;
            }
            cdch_buf_free(&tmp);
        } else if ((ft == CDCH_T_DATE || ft == CDCH_T_TIME || ft == CDCH_T_DATETIME || ft == CDCH_T_TIMESTAMP) &&
                   n >= 8) {
            cdch_temporal t;
            cdch_temporal_from_packed(le64_at(d), ft, &t);
            int kind = ft == CDCH_T_DATE ? CDCH_T_DATE : ft == CDCH_T_TIME ? CDCH_T_TIME2 : CDCH_T_DATETIME2;
            if (quoted)
                cdch_put_u8(out, '"');
            cdch_temporal_format(&t, kind, ft == CDCH_T_DATE ? 0 : 6, out);
            if (quoted)
                cdch_put_u8(out, '"');
            return;
        } else if (ft == CDCH_T_VAR_STRING) {
            if (quoted)
                cdch_put_json_str(out, d, n, 0);
            else
                cdch_put_bytes(out, d, n);
            return;
        }
        cdch_buf tmp = CDCH_BUF_INIT;
        cdch_buf_printf(&tmp, "base64:type%u:", (unsigned)ft);
        mysql_base64(&tmp, d, n);
        if (quoted)
            cdch_put_json_str(out, tmp.data, tmp.len, 0);
        else
            cdch_put_bytes(out, tmp.data, tmp.len);
        cdch_buf_free(&tmp);
        return;
    }
    }
}

/* json_wrapper_to_string(json_type=false) in log_event.cc: scalars bare,
 * strings and temporals SQL-quoted, containers as CAST('...' AS JSON). */
static void sql_json_diff_value(cdch_buf *out, const cdch_json *j)
{
    cdch_buf tmp = CDCH_BUF_INIT;
    mysql_json_text(j, &tmp, false, 0);
    bool bare = false, cast = false;
    if (j) {
        switch (j->type) {
        case CDCH_JSON_NULL:
        case CDCH_JSON_TRUE:
        case CDCH_JSON_FALSE:
        case CDCH_JSON_INT:
        case CDCH_JSON_UINT:
        case CDCH_JSON_DOUBLE: bare = true; break;
        case CDCH_JSON_OPAQUE: bare = j->u.opaque.field_type == CDCH_T_NEWDECIMAL; break;
        case CDCH_JSON_OBJECT:
        case CDCH_JSON_ARRAY: cast = true; break;
        default: break;
        }
    } else {
        bare = true;
    }
    if (bare) {
        cdch_put_bytes(out, tmp.data, tmp.len);
    } else if (cast) {
        cdch_put_str(out, "CAST(");
        sql_quoted(out, tmp.data, tmp.len);
        cdch_put_str(out, " AS JSON)");
    } else {
        sql_quoted(out, tmp.data, tmp.len);
    }
    cdch_buf_free(&tmp);
}

static const char *diff_op_name(const cdch_json_diff_op *op)
{
    switch (op->op) {
    case CDCH_JSON_DIFF_REPLACE: return "JSON_REPLACE";
    case CDCH_JSON_DIFF_INSERT:
        return op->path_len && op->path[op->path_len - 1] == ']' ? "JSON_ARRAY_INSERT" : "JSON_INSERT";
    default: return "JSON_REMOVE";
    }
}

/* print_json_diff in log_event.cc */
static void sql_json_diff(cdch_buf *out, const cdch_coldef *col, const cdch_json_diff *d)
{
    static const char *sep = "\n###      ";
    const char *name = col->name ? col->name : "@?";
    bool printed = false;
    for (size_t k = d->count; k-- > 0;) {
        if (k == 0 || strcmp(diff_op_name(&d->ops[k - 1]), diff_op_name(&d->ops[k])) != 0) {
            if (printed)
                cdch_put_str(out, sep);
            cdch_buf_printf(out, "%s(", diff_op_name(&d->ops[k]));
            printed = true;
        }
    }
    cdch_put_str(out, name);
    if (d->count == 0)
        return;
    cdch_put_str(out, ", ");
    for (size_t k = 0; k < d->count; k++) {
        const cdch_json_diff_op *op = &d->ops[k];
        sql_quoted(out, (const uint8_t *)op->path, op->path_len);
        if (op->op != CDCH_JSON_DIFF_REMOVE) {
            cdch_put_str(out, ", ");
            sql_json_diff_value(out, op->value);
        }
        if (k + 1 == d->count || strcmp(diff_op_name(&d->ops[k + 1]), diff_op_name(op)) != 0)
            cdch_put_u8(out, ')');
        if (k + 1 != d->count) {
            cdch_put_u8(out, ',');
            cdch_put_str(out, sep);
        }
    }
}

/* mysqlbinlog 8.0 prints every integer signed, adding the unsigned reading
 * in parentheses when the signed one is negative (my_b_write_sint32_and_uint32). */
static void sql_int(cdch_buf *out, uint64_t bits, unsigned w)
{
    if (w < 8)
        bits &= (1ULL << (8 * w)) - 1;
    int64_t si = val_sign_extend(bits, 8 * w);
    cdch_buf_printf(out, "%" PRId64, si);
    if (si < 0)
        cdch_buf_printf(out, " (%" PRIu64 ")", bits);
}

void cdch_value_to_sql(const cdch_coldef *col, const cdch_value *v, cdch_buf *out)
{
    if (v->kind == CDCH_V_ABSENT)
        return;
    if (v->kind == CDCH_V_NULL) {
        cdch_put_str(out, "NULL");
        return;
    }
    unsigned w = val_int_width(col->type);
    if (w && (v->kind == CDCH_V_INT || v->kind == CDCH_V_UINT)) {
        sql_int(out, v->kind == CDCH_V_INT ? (uint64_t)v->u.i : v->u.u, w);
        return;
    }
    switch (v->kind) {
    case CDCH_V_INT: cdch_buf_printf(out, "%" PRId64, v->u.i); return;
    case CDCH_V_UINT: cdch_buf_printf(out, "%" PRIu64, v->u.u); return;
    case CDCH_V_FLOAT: cdch_buf_printf(out, "%-20g", (double)v->u.f); return;
    case CDCH_V_DOUBLE: cdch_buf_printf(out, "%-.20g", v->u.d); return;
    case CDCH_V_DECIMAL: cdch_put_bytes(out, v->u.bytes.ptr, v->u.bytes.len); return;
    case CDCH_V_DATE:
        /* mysqlbinlog prints DATE with ':' separators (copied from field.cc) */
        cdch_buf_printf(out, "'%04u:%02u:%02u'", (unsigned)v->u.t.year % 10000, (unsigned)v->u.t.month,
                        (unsigned)v->u.t.day);
        return;
    case CDCH_V_DATETIME:
        if (col->type == CDCH_T_DATETIME) { /* legacy: unquoted, no fraction */
            cdch_temporal_format(&v->u.t, CDCH_T_DATETIME, 0, out);
            return;
        }
        cdch_put_u8(out, '\'');
        cdch_temporal_format(&v->u.t, CDCH_T_DATETIME2, val_col_fsp(col), out);
        cdch_put_u8(out, '\'');
        return;
    case CDCH_V_TIME:
        cdch_put_u8(out, '\'');
        cdch_temporal_format(&v->u.t, CDCH_T_TIME2, val_col_fsp(col), out);
        cdch_put_u8(out, '\'');
        return;
    case CDCH_V_TIMESTAMP: {
        /* my_timeval_to_str: epoch seconds, unquoted, then .fraction */
        unsigned fsp = val_col_fsp(col);
        cdch_buf_printf(out, "%u", v->u.ts.sec);
        if (fsp)
            cdch_buf_printf(out, ".%0*u", (int)fsp, (unsigned)(v->u.ts.usec % 1000000 / val_frac_div[fsp]));
        return;
    }
    case CDCH_V_YEAR:
        /* mysqlbinlog prints the stored byte + 1900, so YEAR 0000 shows as 1900 */
        cdch_buf_printf(out, "%04u", (unsigned)(v->u.u ? v->u.u : 1900));
        return;
    case CDCH_V_BIT: {
        unsigned bits = (col->meta >> 8) * 8 + (col->meta & 0xFF);
        if (bits == 0 || bits > 64)
            bits = 64;
        unsigned nb = (bits + 7) / 8;
        uint8_t be[8];
        for (unsigned i = 0; i < nb; i++)
            be[i] = (uint8_t)(v->u.u >> (8 * (nb - 1 - i)));
        sql_bits(out, be, bits);
        return;
    }
    case CDCH_V_ENUM: cdch_buf_printf(out, "%d", (int)v->u.u); return;
    case CDCH_V_SET: {
        uint8_t rt;
        uint32_t length;
        val_string_info(col, &rt, &length);
        if (length < 1 || length > 8)
            length = 8;
        uint8_t le[8];
        for (unsigned i = 0; i < length; i++)
            le[i] = (uint8_t)(v->u.u >> (8 * i));
        sql_bits(out, le, length * 8); /* stored (little-endian) byte order, as mysqlbinlog does */
        return;
    }
    case CDCH_V_STRING:
    case CDCH_V_VECTOR: sql_quoted(out, v->u.bytes.ptr, v->u.bytes.len); return;
    case CDCH_V_JSON: {
        cdch_buf tmp = CDCH_BUF_INIT;
        mysql_json_text(v->u.json, &tmp, true, 0);
        sql_quoted(out, tmp.data, tmp.len);
        cdch_buf_free(&tmp);
        return;
    }
    case CDCH_V_JSON_DIFF: sql_json_diff(out, col, &v->u.diff); return;
    case CDCH_V_GEOMETRY: {
        /* mysqlbinlog 8.0 cannot print GEOMETRY; we print the stored bytes
         * (SRID + WKB) the way it prints a BLOB. */
        cdch_buf tmp = CDCH_BUF_INIT;
        cdch_put_le32(&tmp, v->u.geom.srid);
        cdch_put_bytes(&tmp, v->u.geom.wkb, v->u.geom.len);
        sql_quoted(out, tmp.data, tmp.len);
        cdch_buf_free(&tmp);
        return;
    }
    default: return;
    }
}

void cdch_value_type_comment(const cdch_coldef *col, const cdch_value *v, cdch_buf *out)
{
    uint8_t type = col->type;
    unsigned meta = col->meta;
    switch (type) {
    case CDCH_T_TINY: cdch_put_str(out, "TINYINT"); break;
    case CDCH_T_SHORT: cdch_put_str(out, "SHORTINT"); break;
    case CDCH_T_INT24: cdch_put_str(out, "MEDIUMINT"); break;
    case CDCH_T_LONG: cdch_put_str(out, "INT"); break;
    case CDCH_T_LONGLONG: cdch_put_str(out, "LONGINT"); break;
    case CDCH_T_NEWDECIMAL: cdch_buf_printf(out, "DECIMAL(%u,%u)", meta >> 8, meta & 0xFF); break;
    case CDCH_T_FLOAT: cdch_put_str(out, "FLOAT"); break;
    case CDCH_T_DOUBLE: cdch_put_str(out, "DOUBLE"); break;
    case CDCH_T_BIT: cdch_buf_printf(out, "BIT(%u)", (meta >> 8) * 8 + (meta & 0xFF)); break;
    case CDCH_T_TIMESTAMP: cdch_put_str(out, "TIMESTAMP"); break;
    case CDCH_T_TIMESTAMP2: cdch_buf_printf(out, "TIMESTAMP(%u)", meta); break;
    case CDCH_T_DATETIME: cdch_put_str(out, "DATETIME"); break;
    case CDCH_T_DATETIME2: cdch_buf_printf(out, "DATETIME(%u)", meta); break;
    case CDCH_T_TIME: cdch_put_str(out, "TIME"); break;
    case CDCH_T_TIME2: cdch_buf_printf(out, "TIME(%u)", meta); break;
    case CDCH_T_DATE:
    case CDCH_T_NEWDATE: cdch_put_str(out, "DATE"); break;
    case CDCH_T_YEAR: cdch_put_str(out, "YEAR"); break;
    case CDCH_T_BLOB:
    case CDCH_T_TINY_BLOB:
    case CDCH_T_MEDIUM_BLOB:
    case CDCH_T_LONG_BLOB:
        switch (val_prefix_size(col)) {
        case 1: cdch_put_str(out, "TINYBLOB/TINYTEXT"); break;
        case 2: cdch_put_str(out, "BLOB/TEXT"); break;
        case 3: cdch_put_str(out, "MEDIUMBLOB/MEDIUMTEXT"); break;
        default: cdch_put_str(out, "LONGBLOB/LONGTEXT"); break;
        }
        break;
    case CDCH_T_VARCHAR:
    case CDCH_T_VAR_STRING: cdch_buf_printf(out, "VARSTRING(%u)", meta); break;
    case CDCH_T_STRING: {
        uint8_t rt;
        uint32_t length;
        val_string_info(col, &rt, &length);
        if (rt == CDCH_T_ENUM)
            cdch_put_str(out, length == 1 ? "ENUM(1 byte)" : "ENUM(2 bytes)");
        else if (rt == CDCH_T_SET)
            cdch_buf_printf(out, "SET(%u bytes)", length);
        else
            cdch_buf_printf(out, "STRING(%u)", length);
        break;
    }
    case CDCH_T_JSON: cdch_put_str(out, "JSON"); break;
    default: cdch_put_str(out, cdch_field_type_name(type)); break;
    }
    cdch_buf_printf(out, " meta=%u nullable=%d is_null=%d", meta, col->nullable ? 1 : 0,
                    v->kind == CDCH_V_NULL ? 1 : 0);
}
