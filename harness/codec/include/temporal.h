/* temporal.h — MySQL temporal values: DATE, DATETIME2, TIMESTAMP2, TIME2,
 * YEAR in row images, the "packed longlong" form used inside JSON opaque
 * values, and their canonical text forms.
 *
 * Owns: nothing (pure functions over caller buffers).
 *
 * Binary layouts (MySQL sql/log_event.cc log_event_print_value,
 * mysys/my_time.cc): DATE 3 bytes LE (day | month<<5 | year<<9);
 * DATETIME2 5 bytes BE + 0x8000000000 then 0..3 fraction bytes by fsp;
 * TIMESTAMP2 4 bytes BE seconds then fraction; TIME2 3 bytes BE +0x800000
 * then fraction (fsp 5-6: the whole value is one 6-byte BE integer).
 */
#ifndef CDCH_TEMPORAL_H
#define CDCH_TEMPORAL_H

#include <stdbool.h>
#include <stdint.h>

#include "buf.h"
#include "cursor.h"
#include "err.h"

typedef struct cdch_temporal {
    bool neg;       /* TIME only */
    uint16_t year;  /* 0..9999 */
    uint8_t month;  /* 0..12 (0 allowed: zero dates) */
    uint8_t day;    /* 0..31 */
    uint16_t hour;  /* DATETIME 0..23; TIME 0..838 */
    uint8_t minute; /* 0..59 */
    uint8_t second; /* 0..59 */
    uint32_t usec;  /* 0..999999; already truncated to the column's fsp */
} cdch_temporal;

/* Row-image codecs. Decoders read from c (set c->overrun when short) and
 * return 0, or -1 with err set when the bytes are not a valid value. The
 * encoders write exactly the bytes MySQL writes for the column's fsp. */
int cdch_date_decode(cdch_cursor *c, cdch_temporal *out, cdch_err *err);
void cdch_date_encode(const cdch_temporal *t, cdch_buf *out);
int cdch_datetime2_decode(cdch_cursor *c, unsigned fsp, cdch_temporal *out, cdch_err *err);
void cdch_datetime2_encode(const cdch_temporal *t, unsigned fsp, cdch_buf *out);
int cdch_time2_decode(cdch_cursor *c, unsigned fsp, cdch_temporal *out, cdch_err *err);
void cdch_time2_encode(const cdch_temporal *t, unsigned fsp, cdch_buf *out);
/* TIMESTAMP2: seconds since the epoch (UTC) and microseconds. */
int cdch_timestamp2_decode(cdch_cursor *c, unsigned fsp, uint32_t *sec, uint32_t *usec, cdch_err *err);
void cdch_timestamp2_encode(uint32_t sec, uint32_t usec, unsigned fsp, cdch_buf *out);

/* Bytes the fractional part takes for fsp 0..6: 0,1,1,2,2,3,3. */
unsigned cdch_fsp_bytes(unsigned fsp);

/* The packed 64-bit forms (TIME_to_longlong_*_packed in my_time.cc) used
 * by JSON opaque DATE/TIME/DATETIME/TIMESTAMP values. field_type is
 * CDCH_T_DATE, CDCH_T_TIME, CDCH_T_DATETIME or CDCH_T_TIMESTAMP. */
void cdch_temporal_from_packed(int64_t packed, int field_type, cdch_temporal *out);
int64_t cdch_temporal_to_packed(const cdch_temporal *t, int field_type);

/* Canonical text (design.md section 4), as MySQL itself prints values:
 *   DATE      YYYY-MM-DD
 *   DATETIME  YYYY-MM-DD HH:MM:SS[.ffffff]
 *   TIME      [-]HH:MM:SS[.ffffff]   (hours at least 2 digits, up to 838)
 * The fraction is printed with exactly fsp digits when fsp > 0, none when
 * fsp == 0. kind: CDCH_T_DATE, CDCH_T_DATETIME2 (also TIMESTAMP2 after
 * conversion to UTC civil time), CDCH_T_TIME2. */
void cdch_temporal_format(const cdch_temporal *t, int kind, unsigned fsp, cdch_buf *out);

/* Parse the text forms above (fraction optional, up to 6 digits). Returns
 * 0 or -1 with an actionable message ("bad date '2024-02-30': day out of
 * range for February"). Zero dates "0000-00-00" are accepted. */
int cdch_temporal_parse(const char *s, int kind, cdch_temporal *out, cdch_err *err);

/* Gregorian calendar: leap year, and the days of month m (1..12) in year
 * y (31 for a month out of range, so callers can check the month first). */
bool cdch_is_leap_year(unsigned y);
unsigned cdch_days_in_month(unsigned y, unsigned m);

/* Civil UTC time <-> epoch seconds (proleptic Gregorian, no leap seconds). */
void cdch_epoch_to_civil(uint32_t sec, uint32_t usec, cdch_temporal *out);
int64_t cdch_civil_to_epoch(const cdch_temporal *t);

#endif
