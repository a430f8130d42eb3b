/* value.c — row-image values for every MySQL 8 column type: the column
 * helpers every part shares, and equality. The codec itself is split by
 * job: value_decode.c (bytes -> value), value_encode.c (value -> bytes),
 * value_json.c (canonical JSON), value_sql.c (mysqlbinlog -v text), with
 * their shared declarations in value_internal.h.
 *
 * Sources of truth: MySQL sql/log_event.cc log_event_print_value (how
 * mysqlbinlog sizes and prints each type), sql/rpl_utility.h table_def::type
 * (DATE -> NEWDATE, STRING -> ENUM/SET), sql/field.cc pack() methods,
 * strings/decimal.cc, mysys/my_time.cc.
 *
 * CHAR values: MySQL's Field_string::pack strips trailing pad characters
 * (spaces for text collations, 0x00 for BINARY(n)) before writing the value.
 * The encoder here writes exactly the bytes it is given: stripping pads is
 * the caller's job (a scenario writer must pass 'ab' for CHAR(5) 'ab   ').
 */
#include <string.h>

#include "value_internal.h"

/* ---- column helpers ---------------------------------------------------------- */

const uint32_t val_frac_div[7] = {1000000, 100000, 10000, 1000, 100, 10, 1};

void val_string_info(const cdch_coldef *col, uint8_t *real_type, uint32_t *length)
{
    if (col->real_type == CDCH_T_ENUM || col->real_type == CDCH_T_SET ||
        (col->real_type == CDCH_T_STRING && col->length != 0)) {
        *real_type = col->real_type;
        *length = col->length;
        return;
    }
    unsigned meta = col->meta;
    if (meta < 256) {
        *real_type = CDCH_T_STRING;
        *length = meta;
        return;
    }
    unsigned byte0 = meta >> 8, byte1 = meta & 0xFF;
    if ((byte0 & 0x30) != 0x30) {
        /* a long CHAR(): the two high bits of the length hide in byte0 */
        *real_type = (uint8_t)(byte0 | 0x30);
        *length = byte1 | (((byte0 & 0x30) ^ 0x30) << 4);
    } else {
        *real_type = (uint8_t)byte0;
        *length = byte1;
    }
}

void cdch_coldef_finish(cdch_coldef *col)
{
    if (col->type == CDCH_T_STRING) {
        col->real_type = 0;
        col->length = 0;
        uint8_t rt;
        uint32_t len;
        val_string_info(col, &rt, &len);
        col->real_type = rt;
        col->length = len;
    } else {
        col->real_type = col->type;
    }
}

static bool is_blob_type(uint8_t t)
{
    return t == CDCH_T_BLOB || t == CDCH_T_TINY_BLOB || t == CDCH_T_MEDIUM_BLOB || t == CDCH_T_LONG_BLOB;
}

bool cdch_coldef_is_text(const cdch_coldef *col)
{
    if (col->collation == CDCH_COLLATION_BINARY)
        return false;
    if (col->type == CDCH_T_STRING) {
        uint8_t rt;
        uint32_t len;
        val_string_info(col, &rt, &len);
        return rt == CDCH_T_STRING;
    }
    return col->type == CDCH_T_VARCHAR || col->type == CDCH_T_VAR_STRING || is_blob_type(col->type);
}

unsigned val_prefix_size(const cdch_coldef *col)
{
    if (col->meta >= 1 && col->meta <= 4)
        return col->meta;
    switch (col->type) {
    case CDCH_T_TINY_BLOB: return 1;
    case CDCH_T_MEDIUM_BLOB: return 3;
    case CDCH_T_LONG_BLOB:
    case CDCH_T_JSON:
    case CDCH_T_GEOMETRY:
    case CDCH_T_VECTOR: return 4;
    default: return 0;
    }
}

unsigned val_col_fsp(const cdch_coldef *col)
{
    if (col->type == CDCH_T_DATETIME2 || col->type == CDCH_T_TIMESTAMP2 || col->type == CDCH_T_TIME2)
        return col->meta > 6 ? 6 : col->meta;
    return 0;
}

/* ---- equality --------------------------------------------------------------------- */

static bool bytes_eq(const uint8_t *a, size_t an, const uint8_t *b, size_t bn)
{
    return an == bn && (an == 0 || memcmp(a, b, an) == 0);
}

static bool temporal_eq(const cdch_temporal *a, const cdch_temporal *b)
{
    return a->neg == b->neg && a->year == b->year && a->month == b->month && a->day == b->day &&
           a->hour == b->hour && a->minute == b->minute && a->second == b->second && a->usec == b->usec;
}

static bool json_eq(const cdch_json *a, const cdch_json *b)
{
    if (!a || !b)
        return a == b;
    return cdch_json_equal(a, b) != 0;
}

bool cdch_value_equal(const cdch_value *x, const cdch_value *y)
{
    if (x->kind != y->kind)
        return false;
    switch (x->kind) {
    case CDCH_V_ABSENT:
    case CDCH_V_NULL: return true;
    case CDCH_V_INT: return x->u.i == y->u.i;
    case CDCH_V_UINT:
    case CDCH_V_YEAR:
    case CDCH_V_BIT:
    case CDCH_V_ENUM:
    case CDCH_V_SET: return x->u.u == y->u.u;
    case CDCH_V_FLOAT: return memcmp(&x->u.f, &y->u.f, sizeof x->u.f) == 0;
    case CDCH_V_DOUBLE: return memcmp(&x->u.d, &y->u.d, sizeof x->u.d) == 0;
    case CDCH_V_DECIMAL:
    case CDCH_V_STRING:
    case CDCH_V_VECTOR: return bytes_eq(x->u.bytes.ptr, x->u.bytes.len, y->u.bytes.ptr, y->u.bytes.len);
    case CDCH_V_DATE:
    case CDCH_V_DATETIME:
    case CDCH_V_TIME: return temporal_eq(&x->u.t, &y->u.t);
    case CDCH_V_TIMESTAMP: return x->u.ts.sec == y->u.ts.sec && x->u.ts.usec == y->u.ts.usec;
    case CDCH_V_JSON: return json_eq(x->u.json, y->u.json);
    case CDCH_V_JSON_DIFF:
        if (x->u.diff.count != y->u.diff.count)
            return false;
        for (size_t i = 0; i < x->u.diff.count; i++) {
            const cdch_json_diff_op *a = &x->u.diff.ops[i], *b = &y->u.diff.ops[i];
            if (a->op != b->op || !bytes_eq((const uint8_t *)a->path, a->path_len, (const uint8_t *)b->path,
                                            b->path_len) ||
                !json_eq(a->value, b->value))
                return false;
        }
        return true;
    case CDCH_V_GEOMETRY:
        return x->u.geom.srid == y->u.geom.srid &&
               bytes_eq(x->u.geom.wkb, x->u.geom.len, y->u.geom.wkb, y->u.geom.len);
    }
    return false;
}
