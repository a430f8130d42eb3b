/* value_internal.h — shared between the row-value codec's source files only:
 * value.c (column helpers, equality), value_decode.c, value_encode.c,
 * value_json.c (canonical JSON) and value_sql.c (mysqlbinlog -v text).
 *
 * Owns: nothing.
 */
#ifndef CDCH_VALUE_INTERNAL_H
#define CDCH_VALUE_INTERNAL_H

#include <stdint.h>

#include "value.h"

/* 10^(6 - fsp): the microsecond step of a temporal column with fsp digits. */
extern const uint32_t val_frac_div[7];

static inline int64_t val_sign_extend(uint64_t v, unsigned bits)
{
    if (bits >= 64)
        return (int64_t)v;
    uint64_t m = 1ULL << (bits - 1);
    v &= (1ULL << bits) - 1;
    return (int64_t)((v ^ m) - m);
}

/* Bytes of an integer column (TINY..LONGLONG), 0 for any other type. */
static inline unsigned val_int_width(uint8_t type)
{
    switch (type) {
    case CDCH_T_TINY: return 1;
    case CDCH_T_SHORT: return 2;
    case CDCH_T_INT24: return 3;
    case CDCH_T_LONG: return 4;
    case CDCH_T_LONGLONG: return 8;
    default: return 0;
    }
}

/* Real type (CHAR, ENUM or SET) and byte length of a STRING (254) column. */
void val_string_info(const cdch_coldef *col, uint8_t *real_type, uint32_t *length);

/* Length-prefix size for BLOB/JSON/GEOMETRY/VECTOR columns (0 if invalid). */
unsigned val_prefix_size(const cdch_coldef *col);

/* fsp of a temporal column: meta for the "2" types (at most 6), 0 for the
 * legacy ones. */
unsigned val_col_fsp(const cdch_coldef *col);

#endif
