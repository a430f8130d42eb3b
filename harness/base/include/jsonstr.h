/* jsonstr.h — JSON string literals and UTF-8 checks, the one escaper every
 * module uses (decode output, canonical events, reports).
 *
 * Owns: nothing; appends to a caller's cdch_buf.
 */
#ifndef CDCH_JSONSTR_H
#define CDCH_JSONSTR_H

#include <stddef.h>
#include <stdint.h>

#include "buf.h"

enum {
    /* Bytes that are not strict UTF-8 (overlongs, surrogates, > U+10FFFF,
     * cut sequences) become U+FFFD, one per byte. Without it bytes >= 0x80
     * are copied as they are (the caller knows the text is UTF-8). */
    CDCH_JSON_UTF8 = 1u << 0,
    /* DEL (0x7F) is written \u007f (for HTML-embedded and terminal output). */
    CDCH_JSON_DEL = 1u << 1,
};

/* Append p[0..n) as a quoted JSON string: " \ and control characters
 * escaped (\b \f \n \r \t, the others \u00XX). */
void cdch_put_json_str(cdch_buf *out, const void *p, size_t n, unsigned flags);

/* Length of the strict UTF-8 sequence at p[0..n) (n >= 1), 0 if invalid. */
size_t cdch_utf8_seq(const uint8_t *p, size_t n);

#endif
