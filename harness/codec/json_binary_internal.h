/* json_binary_internal.h — shared between the JSON codec's source files
 * only: json_binary.c (binary -> tree, equality), json_binary_write.c
 * (tree -> binary), json_text.c (tree -> text), json_parse.c (text ->
 * tree) and json_diff.c (partial-update diffs).
 *
 * Owns: nothing.
 */
#ifndef CDCH_JSON_BINARY_INTERNAL_H
#define CDCH_JSON_BINARY_INTERNAL_H

#include <stdint.h>
#include <string.h>

#include "json_binary.h"

/* Type bytes (json_binary.cc). */
enum {
    JB_SMALL_OBJECT = 0x00,
    JB_LARGE_OBJECT = 0x01,
    JB_SMALL_ARRAY = 0x02,
    JB_LARGE_ARRAY = 0x03,
    JB_LITERAL = 0x04,
    JB_INT16 = 0x05,
    JB_UINT16 = 0x06,
    JB_INT32 = 0x07,
    JB_UINT32 = 0x08,
    JB_INT64 = 0x09,
    JB_UINT64 = 0x0a,
    JB_DOUBLE = 0x0b,
    JB_STRING = 0x0c,
    JB_OPAQUE = 0x0f,
};

enum { JB_NULL_LITERAL = 0, JB_TRUE_LITERAL = 1, JB_FALSE_LITERAL = 2 };

static inline double jb_double_from_bits(uint64_t bits)
{
    double d;
    memcpy(&d, &bits, sizeof d);
    return d;
}

static inline uint64_t jb_double_bits(double d)
{
    uint64_t bits;
    memcpy(&bits, &d, sizeof bits);
    return bits;
}

#endif
