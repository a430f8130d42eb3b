/* decimal.c — MySQL NEWDECIMAL binary form <-> exact decimal text.
 *
 * Layout (MySQL strings/decimal.cc decimal2bin / bin2decimal): the integer
 * part is split into groups of 9 digits counted from the decimal point, the
 * leading (most significant) partial group first, stored in
 * dig2bytes[digits] bytes; every full group is a 4-byte big-endian value
 * 0..999999999. The fraction follows: full groups of 9 digits, then a
 * trailing partial group of the remaining digits (stored as the integer
 * those digits form, e.g. ".12" at scale 2 -> 12 in one byte). Negative
 * numbers have every byte inverted; finally the top bit of the first byte
 * is flipped, so it is set for non-negative values.
 *
 * Everything here works on decimal digit strings, so any precision 1..65 and
 * scale 0..30 is exact.
 */
#include "decimal.h"

#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#define DIG_PER_GROUP 9

static const unsigned dig2bytes[DIG_PER_GROUP + 1] = {0, 1, 1, 2, 2, 3, 3, 4, 4, 4};
static const uint32_t pow10_u32[DIG_PER_GROUP + 1] = {1,      10,      100,      1000,      10000,
                                                      100000, 1000000, 10000000, 100000000, 1000000000};

/* Largest binary form: 65 digits -> at most 8 groups of 4 bytes. */
#define BIN_MAX 40

static bool params_ok(unsigned precision, unsigned scale)
{
    return precision >= 1 && precision <= CDCH_DECIMAL_MAX_PRECISION && scale <= CDCH_DECIMAL_MAX_SCALE &&
           scale <= precision;
}

static size_t part_size(unsigned digits)
{
    return (size_t)(digits / DIG_PER_GROUP) * 4 + dig2bytes[digits % DIG_PER_GROUP];
}

size_t cdch_decimal_bin_size(unsigned precision, unsigned scale)
{
    if (!params_ok(precision, scale))
        return 0;
    return part_size(precision - scale) + part_size(scale);
}

static int bad_params(cdch_err *err, unsigned precision, unsigned scale)
{
    return cdch_err_set(err,
                        "DECIMAL(%u,%u) is not a valid column type (precision must be 1..%d, scale 0..%d and "
                        "not above the precision)",
                        precision, scale, CDCH_DECIMAL_MAX_PRECISION, CDCH_DECIMAL_MAX_SCALE);
}

static uint32_t read_be(const uint8_t *p, unsigned n)
{
    uint32_t v = 0;
    for (unsigned i = 0; i < n; i++)
        v = (v << 8) | p[i];
    return v;
}

/* Append `value` as exactly `digits` decimal digits (zero-padded). */
static void put_digits(char *dst, uint32_t value, unsigned digits)
{
    for (unsigned i = digits; i > 0; i--) {
        dst[i - 1] = (char)('0' + value % 10);
        value /= 10;
    }
}

/* Reading the digit groups of a sign-normalised binary decimal. */
typedef struct grp_reader {
    const uint8_t *d;
    size_t pos;
    unsigned precision, scale; /* for messages */
} grp_reader;

/* The next group of `digits` digits (0..9; a full group is 4 bytes),
 * appended to dig at *n. An out-of-range group is named `what` in the
 * error. */
static int read_group(grp_reader *r, unsigned digits, const char *what, char *dig, unsigned *n, cdch_err *err)
{
    if (digits == 0)
        return 0;
    unsigned nb = dig2bytes[digits];
    uint32_t v = read_be(r->d + r->pos, nb);
    if (v >= pow10_u32[digits]) {
        if (digits == DIG_PER_GROUP)
            return cdch_err_set(err, "corrupt DECIMAL(%u,%u) value: %s group %u is above 999999999", r->precision,
                                r->scale, what, v);
        return cdch_err_set(err, "corrupt DECIMAL(%u,%u) value: %s group %u does not fit in %u digits",
                            r->precision, r->scale, what, v, digits);
    }
    put_digits(dig + *n, v, digits);
    *n += digits;
    r->pos += nb;
    return 0;
}

int cdch_decimal_decode(const uint8_t *bin, unsigned precision, unsigned scale, cdch_buf *out, cdch_err *err)
{
    if (!params_ok(precision, scale))
        return bad_params(err, precision, scale);

    unsigned intg = precision - scale;
    size_t size = cdch_decimal_bin_size(precision, scale);
    uint8_t d[BIN_MAX] = {0};
    bool negative = (bin[0] & 0x80) == 0;
    uint8_t mask = negative ? 0xFF : 0x00;
    for (size_t i = 0; i < size; i++)
        d[i] = bin[i] ^ mask;
    d[0] ^= 0x80;

    /* Digits of the integer part (exactly intg of them, leading zeros
     * included) and of the fraction (exactly scale). */
    char idig[CDCH_DECIMAL_MAX_PRECISION + 1];
    char fdig[CDCH_DECIMAL_MAX_SCALE + 1];
    grp_reader r = {d, 0, precision, scale};
    unsigned ni = 0, nf = 0;
    if (read_group(&r, intg % DIG_PER_GROUP, "leading integer", idig, &ni, err) < 0)
        return -1;
    for (unsigned g = 0; g < intg / DIG_PER_GROUP; g++)
        if (read_group(&r, DIG_PER_GROUP, "integer", idig, &ni, err) < 0)
            return -1;
    for (unsigned g = 0; g < scale / DIG_PER_GROUP; g++)
        if (read_group(&r, DIG_PER_GROUP, "fraction", fdig, &nf, err) < 0)
            return -1;
    if (read_group(&r, scale % DIG_PER_GROUP, "trailing fraction", fdig, &nf, err) < 0)
        return -1;

    /* Strip leading zeros of the integer part. */
    unsigned skip = 0;
    while (skip < ni && idig[skip] == '0')
        skip++;
    bool all_zero = skip == ni;
    for (unsigned i = 0; i < nf && all_zero; i++)
        if (fdig[i] != '0')
            all_zero = false;

    if (negative && !all_zero)
        cdch_put_u8(out, '-');
    if (skip == ni)
        cdch_put_u8(out, '0');
    else
        cdch_put_bytes(out, idig + skip, ni - skip);
    if (scale > 0) {
        cdch_put_u8(out, '.');
        cdch_put_bytes(out, fdig, nf);
    }
    return 0;
}

static uint32_t digits_value(const char *p, unsigned n)
{
    uint32_t v = 0;
    for (unsigned i = 0; i < n; i++)
        v = v * 10 + (uint32_t)(p[i] - '0');
    return v;
}

static void store_be(uint8_t *p, uint32_t v, unsigned n)
{
    for (unsigned i = n; i > 0; i--) {
        p[i - 1] = (uint8_t)v;
        v >>= 8;
    }
}

int cdch_decimal_encode(const char *text, size_t len, unsigned precision, unsigned scale, cdch_buf *out,
                        cdch_err *err)
{
    if (!params_ok(precision, scale))
        return bad_params(err, precision, scale);

    unsigned intg = precision - scale;
    size_t i = 0;
    bool negative = false;
    if (i < len && (text[i] == '-' || text[i] == '+')) {
        negative = text[i] == '-';
        i++;
    }
    size_t istart = i;
    while (i < len && text[i] >= '0' && text[i] <= '9')
        i++;
    size_t iend = i;
    size_t fstart = i, fend = i;
    if (i < len && text[i] == '.') {
        i++;
        fstart = i;
        while (i < len && text[i] >= '0' && text[i] <= '9')
            i++;
        fend = i;
    }
    if (i != len || (iend == istart && fend == fstart))
        return cdch_err_set(err,
                            "bad DECIMAL value '%.*s': expected [-]digits[.digits] (no exponent, no spaces)",
                            (int)(len > 80 ? 80 : len), text);

    /* Integer digits without leading zeros. */
    while (istart < iend && text[istart] == '0')
        istart++;
    size_t nint = iend - istart;
    size_t nfrac = fend - fstart;
    if (nint > intg)
        return cdch_err_set(err, "DECIMAL value '%.*s' has %zu integer digits but DECIMAL(%u,%u) allows %u",
                            (int)(len > 80 ? 80 : len), text, nint, precision, scale, intg);
    if (nfrac > scale)
        return cdch_err_set(err,
                            "DECIMAL value '%.*s' has %zu fraction digits but DECIMAL(%u,%u) allows %u (round it "
                            "first: MySQL would)",
                            (int)(len > 80 ? 80 : len), text, nfrac, precision, scale, scale);

    /* Exactly intg integer digits and scale fraction digits. */
    char idig[CDCH_DECIMAL_MAX_PRECISION];
    char fdig[CDCH_DECIMAL_MAX_SCALE];
    memset(idig, '0', intg);
    memcpy(idig + (intg - nint), text + istart, nint);
    memset(fdig, '0', scale);
    memcpy(fdig, text + fstart, nfrac);

    bool zero = true;
    for (unsigned k = 0; k < intg && zero; k++)
        zero = idig[k] == '0';
    for (unsigned k = 0; k < scale && zero; k++)
        zero = fdig[k] == '0';
    if (zero)
        negative = false; /* MySQL never stores -0 (string2decimal clears the sign) */

    size_t size = cdch_decimal_bin_size(precision, scale);
    uint8_t d[BIN_MAX] = {0};
    size_t pos = 0;
    unsigned di = 0;
    unsigned lead = intg % DIG_PER_GROUP;
    if (lead) {
        store_be(d + pos, digits_value(idig, lead), dig2bytes[lead]);
        pos += dig2bytes[lead];
        di = lead;
    }
    for (; di < intg; di += DIG_PER_GROUP) {
        store_be(d + pos, digits_value(idig + di, DIG_PER_GROUP), 4);
        pos += 4;
    }
    unsigned fi = 0;
    for (; fi + DIG_PER_GROUP <= scale; fi += DIG_PER_GROUP) {
        store_be(d + pos, digits_value(fdig + fi, DIG_PER_GROUP), 4);
        pos += 4;
    }
    unsigned trail = scale % DIG_PER_GROUP;
    if (trail) {
        store_be(d + pos, digits_value(fdig + fi, trail), dig2bytes[trail]);
        pos += dig2bytes[trail];
    }
    if (negative)
        for (size_t k = 0; k < size; k++)
            d[k] ^= 0xFF;
    d[0] ^= 0x80;
    cdch_put_bytes(out, d, size);
    return 0;
}
