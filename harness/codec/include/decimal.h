/* decimal.h — MySQL DECIMAL (NEWDECIMAL) binary form <-> exact decimal text.
 *
 * Owns: nothing. The binary form is MySQL's decimal2bin (strings/decimal.cc):
 * integer and fraction digits in groups of 9 per 4 bytes big-endian,
 * leftover digits in {0,1,1,2,2,3,3,4,4,4}[d] bytes (leading partial group
 * first for the integer part, trailing partial group last for the fraction),
 * negative values have every byte XOR 0xFF, and finally the first byte's top
 * bit is flipped (set = non-negative).
 */
#ifndef CDCH_DECIMAL_H
#define CDCH_DECIMAL_H

#include <stddef.h>
#include <stdint.h>

#include "buf.h"
#include "err.h"

#define CDCH_DECIMAL_MAX_PRECISION 65
#define CDCH_DECIMAL_MAX_SCALE 30

/* Bytes of the binary form for DECIMAL(precision, scale). */
size_t cdch_decimal_bin_size(unsigned precision, unsigned scale);

/* Decode bin (cdch_decimal_bin_size bytes) and append the exact text to out:
 * optional '-', integer digits without leading zeros (at least one "0"),
 * then '.' and exactly `scale` fraction digits when scale > 0. Negative zero
 * is printed as "0"/"0.00" (MySQL prints -0 as 0). Returns -1 with err set
 * if a group holds a value > 999999999 (corrupt). */
int cdch_decimal_decode(const uint8_t *bin, unsigned precision, unsigned scale, cdch_buf *out, cdch_err *err);

/* Encode decimal text ("-12.5", "0.001", "1e3" is NOT accepted) into
 * exactly cdch_decimal_bin_size bytes appended to out. The fraction is
 * padded with zeros to `scale`; more fraction digits than scale, or more
 * integer digits than precision-scale, is an error (no silent rounding). */
int cdch_decimal_encode(const char *text, size_t len, unsigned precision, unsigned scale, cdch_buf *out, cdch_err *err);

#endif
