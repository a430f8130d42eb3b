/* temporal.c — MySQL temporal values in row images, the packed 64-bit
 * forms used inside JSON, and their text forms.
 *
 * Sources: MySQL mysys/my_time.cc (TIME_to_longlong_*_packed,
 * TIME_from_longlong_*_packed, my_datetime_packed_{to,from}_binary,
 * my_time_packed_{to,from}_binary, my_timestamp_{to,from}_binary).
 *
 * The "packed" form of a temporal is (int_part << 24) + microseconds, with
 * the whole thing negated for negative TIMEs:
 *   DATETIME int_part = ((year*13 + month) << 5 | day) << 17
 *                       | hour << 12 | minute << 6 | second
 *   TIME     int_part = hour << 12 | minute << 6 | second
 * Row images store the int part big-endian with an offset (0x8000000000 for
 * DATETIME2, 0x800000 for TIME2) followed by 0..3 fraction bytes. TIME2 with
 * fsp 1..4 splits a negative packed value into floor(packed / 2^24) and the
 * C remainder (packed % 2^24, negative), which is why the decoder has to
 * "borrow" from the int part when the fraction is non-zero.
 */
#include "temporal.h"

#include <stdio.h>
#include <string.h>

#include "mysql_types.h"

#define PACK_SHIFT 16777216LL /* 1 << 24 */
#define DATETIMEF_INT_OFS 0x8000000000LL
#define TIMEF_INT_OFS 0x800000LL
#define TIMEF_OFS 0x800000000000LL

static const uint32_t frac_div[7] = {1000000, 100000, 10000, 1000, 100, 10, 1};

unsigned cdch_fsp_bytes(unsigned fsp)
{
    return fsp > 6 ? 3 : (fsp + 1) / 2;
}

/* Keep only the first fsp digits of usec. */
static uint32_t trunc_usec(uint32_t usec, unsigned fsp)
{
    if (fsp >= 6)
        return usec;
    return usec - usec % frac_div[fsp];
}

static int64_t sign_extend(uint64_t v, unsigned bits)
{
    uint64_t m = 1ULL << (bits - 1);
    return (int64_t)((v ^ m) - m);
}

/* floor(a / 2^24) without relying on >> of negative values. */
static int64_t floor_shift24(int64_t a)
{
    int64_t q = a / PACK_SHIFT;
    if (a % PACK_SHIFT != 0 && a < 0)
        q--;
    return q;
}

static const char *const month_names[13] = {"month 0",   "January", "February", "March",     "April",
                                            "May",       "June",    "July",     "August",    "September",
                                            "October",   "November", "December"};

bool cdch_is_leap_year(unsigned y)
{
    return (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
}

unsigned cdch_days_in_month(unsigned y, unsigned m)
{
    static const unsigned dm[13] = {31, 31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
    if (m == 2 && cdch_is_leap_year(y))
        return 29;
    return m <= 12 ? dm[m] : 31;
}

/* ---- DATE ---------------------------------------------------------------- */

int cdch_date_decode(cdch_cursor *c, cdch_temporal *out, cdch_err *err)
{
    uint32_t v = (uint32_t)cdch_get_le(c, 3);
    memset(out, 0, sizeof *out);
    if (c->overrun)
        return 0;
    out->day = (uint8_t)(v & 31);
    out->month = (uint8_t)((v >> 5) & 15);
    out->year = (uint16_t)(v >> 9);
    if (out->month > 12 || out->year > 9999)
        return cdch_err_set(err, "bad DATE bytes %06x: year %u month %u is out of range", (unsigned)v,
                            (unsigned)(v >> 9), (unsigned)((v >> 5) & 15));
    return 0;
}

void cdch_date_encode(const cdch_temporal *t, cdch_buf *out)
{
    uint32_t v = (uint32_t)t->day | (uint32_t)t->month << 5 | (uint32_t)t->year << 9;
    cdch_put_le(out, v, 3);
}

/* ---- DATETIME2 ------------------------------------------------------------ */

static int64_t datetime_int_part(const cdch_temporal *t)
{
    int64_t ymd = (((int64_t)t->year * 13 + t->month) << 5) | t->day;
    int64_t hms = ((int64_t)t->hour << 12) | ((int64_t)t->minute << 6) | t->second;
    return (ymd << 17) | hms;
}

static void datetime_from_int_part(int64_t ip, cdch_temporal *out)
{
    int64_t ymd = ip >> 17;
    int64_t ym = ymd >> 5;
    int64_t hms = ip % (1 << 17);
    out->day = (uint8_t)(ymd % 32);
    out->month = (uint8_t)(ym % 13);
    out->year = (uint16_t)(ym / 13);
    out->second = (uint8_t)(hms % 64);
    out->minute = (uint8_t)((hms >> 6) % 64);
    out->hour = (uint16_t)(hms >> 12);
}

/* Fraction after a DATETIME2/TIMESTAMP2 int part: fsp 1-2 one byte of
 * hundredths, 3-4 two bytes (BE) of 1/10000 s, 5-6 three bytes of µs. MySQL
 * reads them as signed (DATETIME2) values. */
static int64_t get_frac(cdch_cursor *c, unsigned fsp, bool sign)
{
    switch (fsp) {
    case 1:
    case 2: {
        uint64_t b = cdch_get_be(c, 1);
        return (sign ? sign_extend(b, 8) : (int64_t)b) * 10000;
    }
    case 3:
    case 4: return sign_extend(cdch_get_be(c, 2), 16) * 100;
    case 5:
    case 6: return sign_extend(cdch_get_be(c, 3), 24);
    default: return 0;
    }
}

static void put_frac(cdch_buf *out, uint32_t usec, unsigned fsp)
{
    switch (fsp) {
    case 1:
    case 2: cdch_put_be(out, usec / 10000, 1); break;
    case 3:
    case 4: cdch_put_be(out, usec / 100, 2); break;
    case 5:
    case 6: cdch_put_be(out, usec, 3); break;
    default: break;
    }
}

static int bad_fsp(cdch_err *err, const char *what, unsigned fsp)
{
    return cdch_err_set(err, "%s fsp %u is out of range 0..6", what, fsp);
}

int cdch_datetime2_decode(cdch_cursor *c, unsigned fsp, cdch_temporal *out, cdch_err *err)
{
    memset(out, 0, sizeof *out);
    if (fsp > 6)
        return bad_fsp(err, "DATETIME2", fsp);
    int64_t ip = (int64_t)cdch_get_be(c, 5) - DATETIMEF_INT_OFS;
    int64_t frac = get_frac(c, fsp, true);
    if (c->overrun)
        return 0;
    if (ip < 0)
        return cdch_err_set(err, "bad DATETIME2 bytes: negative value (int part %lld)", (long long)ip);
    if (frac < 0 || frac > 999999)
        return cdch_err_set(err, "bad DATETIME2 bytes: fraction %lld is out of range", (long long)frac);
    datetime_from_int_part(ip, out);
    out->usec = (uint32_t)frac;
    if (out->year > 9999 || out->month > 12 || out->hour > 23 || out->minute > 59 || out->second > 59)
        return cdch_err_set(err, "bad DATETIME2 bytes: %04u-%02u-%02u %02u:%02u:%02u is out of range",
                            out->year, out->month, out->day, out->hour, out->minute, out->second);
    return 0;
}

void cdch_datetime2_encode(const cdch_temporal *t, unsigned fsp, cdch_buf *out)
{
    if (fsp > 6)
        fsp = 6;
    cdch_put_be(out, (uint64_t)(datetime_int_part(t) + DATETIMEF_INT_OFS), 5);
    put_frac(out, trunc_usec(t->usec, fsp), fsp);
}

/* ---- TIME2 ---------------------------------------------------------------- */

static int64_t time_packed(const cdch_temporal *t, uint32_t usec)
{
    int64_t hms = ((int64_t)t->hour << 12) | ((int64_t)t->minute << 6) | t->second;
    int64_t v = hms * PACK_SHIFT + usec;
    return t->neg ? -v : v;
}

static void time_from_packed(int64_t packed, cdch_temporal *out)
{
    memset(out, 0, sizeof *out);
    out->neg = packed < 0;
    uint64_t tmp = out->neg ? (uint64_t)0 - (uint64_t)packed : (uint64_t)packed;
    uint64_t hms = tmp >> 24;
    out->usec = (uint32_t)(tmp % (uint64_t)PACK_SHIFT);
    out->hour = (uint16_t)((hms >> 12) % 1024);
    out->minute = (uint8_t)((hms >> 6) % 64);
    out->second = (uint8_t)(hms % 64);
}

int cdch_time2_decode(cdch_cursor *c, unsigned fsp, cdch_temporal *out, cdch_err *err)
{
    memset(out, 0, sizeof *out);
    if (fsp > 6)
        return bad_fsp(err, "TIME2", fsp);
    int64_t packed;
    if (fsp >= 5) {
        packed = (int64_t)cdch_get_be(c, 6) - TIMEF_OFS;
    } else {
        int64_t ip = (int64_t)cdch_get_be(c, 3) - TIMEF_INT_OFS;
        int64_t frac = 0;
        if (fsp >= 3) {
            frac = (int64_t)cdch_get_be(c, 2);
            if (ip < 0 && frac) {
                ip++;             /* negative values store the fraction in reverse order */
                frac -= 0x10000;
            }
            frac *= 100;
        } else if (fsp >= 1) {
            frac = (int64_t)cdch_get_be(c, 1);
            if (ip < 0 && frac) {
                ip++;
                frac -= 0x100;
            }
            frac *= 10000;
        }
        packed = ip * PACK_SHIFT + frac;
    }
    if (c->overrun)
        return 0;
    uint64_t mag = packed < 0 ? (uint64_t)0 - (uint64_t)packed : (uint64_t)packed;
    if ((mag >> 24 >> 12) > 838) /* MySQL would silently keep only 10 bits of hours */
        return cdch_err_set(err, "bad TIME2 bytes: %s%llu hours is out of range", packed < 0 ? "-" : "",
                            (unsigned long long)(mag >> 24 >> 12));
    time_from_packed(packed, out);
    if (out->usec > 999999 || out->minute > 59 || out->second > 59 || out->hour > 838)
        return cdch_err_set(err, "bad TIME2 bytes: %s%u:%02u:%02u (fraction %u) is out of range",
                            out->neg ? "-" : "", out->hour, out->minute, out->second, out->usec);
    return 0;
}

void cdch_time2_encode(const cdch_temporal *t, unsigned fsp, cdch_buf *out)
{
    if (fsp > 6)
        fsp = 6;
    int64_t nr = time_packed(t, trunc_usec(t->usec, fsp));
    int64_t ip = floor_shift24(nr); /* MY_PACKED_TIME_GET_INT_PART: arithmetic shift */
    int64_t frac = nr % PACK_SHIFT; /* MY_PACKED_TIME_GET_FRAC_PART: C remainder (negative for neg) */
    switch (fsp) {
    case 0: cdch_put_be(out, (uint64_t)(ip + TIMEF_INT_OFS), 3); break;
    case 1:
    case 2:
        cdch_put_be(out, (uint64_t)(ip + TIMEF_INT_OFS), 3);
        cdch_put_u8(out, (uint8_t)(int8_t)(frac / 10000));
        break;
    case 3:
    case 4:
        cdch_put_be(out, (uint64_t)(ip + TIMEF_INT_OFS), 3);
        cdch_put_be(out, (uint64_t)(uint16_t)(int16_t)(frac / 100), 2);
        break;
    default: cdch_put_be(out, (uint64_t)(nr + TIMEF_OFS), 6); break;
    }
}

/* ---- TIMESTAMP2 ------------------------------------------------------------ */

int cdch_timestamp2_decode(cdch_cursor *c, unsigned fsp, uint32_t *sec, uint32_t *usec, cdch_err *err)
{
    *sec = 0;
    *usec = 0;
    if (fsp > 6)
        return bad_fsp(err, "TIMESTAMP2", fsp);
    uint32_t s = (uint32_t)cdch_get_be(c, 4);
    int64_t frac = get_frac(c, fsp, false); /* my_timestamp_from_binary: fsp 1-2 byte is unsigned */
    if (c->overrun)
        return 0;
    if (frac < 0 || frac > 999999)
        return cdch_err_set(err, "bad TIMESTAMP2 bytes: fraction %lld is out of range", (long long)frac);
    *sec = s;
    *usec = (uint32_t)frac;
    return 0;
}

void cdch_timestamp2_encode(uint32_t sec, uint32_t usec, unsigned fsp, cdch_buf *out)
{
    if (fsp > 6)
        fsp = 6;
    cdch_put_be(out, sec, 4);
    put_frac(out, trunc_usec(usec, fsp), fsp);
}

/* ---- packed longlong (JSON opaque temporals) -------------------------------- */

void cdch_temporal_from_packed(int64_t packed, int field_type, cdch_temporal *out)
{
    if (field_type == CDCH_T_TIME || field_type == CDCH_T_TIME2) {
        time_from_packed(packed, out);
        return;
    }
    memset(out, 0, sizeof *out);
    out->neg = packed < 0;
    uint64_t tmp = out->neg ? (uint64_t)0 - (uint64_t)packed : (uint64_t)packed;
    out->usec = (uint32_t)(tmp % (uint64_t)PACK_SHIFT);
    datetime_from_int_part((int64_t)(tmp >> 24), out);
    if (field_type == CDCH_T_DATE || field_type == CDCH_T_NEWDATE) {
        out->hour = 0;
        out->minute = 0;
        out->second = 0;
        out->usec = 0;
    }
}

int64_t cdch_temporal_to_packed(const cdch_temporal *t, int field_type)
{
    if (field_type == CDCH_T_TIME || field_type == CDCH_T_TIME2)
        return time_packed(t, t->usec);
    int64_t v;
    if (field_type == CDCH_T_DATE || field_type == CDCH_T_NEWDATE) {
        int64_t ymd = (((int64_t)t->year * 13 + t->month) << 5) | t->day;
        v = (ymd << 17) * PACK_SHIFT;
    } else {
        v = datetime_int_part(t) * PACK_SHIFT + t->usec;
    }
    return t->neg ? -v : v;
}

/* ---- text ------------------------------------------------------------------ */

static bool kind_is_date(int kind)
{
    return kind == CDCH_T_DATE || kind == CDCH_T_NEWDATE;
}

static bool kind_is_time(int kind)
{
    return kind == CDCH_T_TIME || kind == CDCH_T_TIME2;
}

static bool kind_is_datetime(int kind)
{
    return kind == CDCH_T_DATETIME || kind == CDCH_T_DATETIME2 || kind == CDCH_T_TIMESTAMP ||
           kind == CDCH_T_TIMESTAMP2;
}

void cdch_temporal_format(const cdch_temporal *t, int kind, unsigned fsp, cdch_buf *out)
{
    if (fsp > 6)
        fsp = 6;
    if (kind_is_time(kind)) {
        cdch_buf_printf(out, "%s%02u:%02u:%02u", t->neg ? "-" : "", (unsigned)t->hour, (unsigned)t->minute,
                        (unsigned)t->second);
    } else {
        cdch_buf_printf(out, "%04u-%02u-%02u", (unsigned)t->year, (unsigned)t->month, (unsigned)t->day);
        if (kind_is_date(kind))
            return;
        cdch_buf_printf(out, " %02u:%02u:%02u", (unsigned)t->hour, (unsigned)t->minute, (unsigned)t->second);
    }
    if (fsp > 0)
        cdch_buf_printf(out, ".%0*u", (int)fsp, (unsigned)((t->usec % 1000000) / frac_div[fsp]));
}

/* Read exactly n digits (n >= 1); returns -1 if they are not all digits. */
static long read_digits(const char **pp, unsigned n)
{
    const char *p = *pp;
    long v = 0;
    for (unsigned i = 0; i < n; i++) {
        if (p[i] < '0' || p[i] > '9')
            return -1;
        v = v * 10 + (p[i] - '0');
    }
    *pp = p + n;
    return v;
}

/* Optional ".f{1,6}" at *pp. Returns 0, or -1 with a reason. */
static int read_fraction(const char **pp, uint32_t *usec, const char **why)
{
    const char *p = *pp;
    *usec = 0;
    if (*p != '.')
        return 0;
    p++;
    unsigned n = 0;
    uint32_t v = 0;
    while (p[n] >= '0' && p[n] <= '9') {
        if (n == 6) {
            *why = "more than 6 fraction digits (MySQL keeps at most microseconds)";
            return -1;
        }
        v = v * 10 + (uint32_t)(p[n] - '0');
        n++;
    }
    if (n == 0) {
        *why = "'.' must be followed by 1 to 6 fraction digits";
        return -1;
    }
    while (n < 6) {
        v *= 10;
        n++;
    }
    *usec = v;
    /* advance past the digits we consumed */
    while (*p >= '0' && *p <= '9')
        p++;
    *pp = p;
    return 0;
}

static int check_date(const char *s, const char *what, long y, long m, long d, cdch_err *err)
{
    if (m > 12)
        return cdch_err_set(err, "bad %s '%s': month %ld is out of range 1..12", what, s, m);
    if (d > 31)
        return cdch_err_set(err, "bad %s '%s': day %ld is out of range 1..31", what, s, d);
    if (m != 0 && d != 0 && (unsigned long)d > cdch_days_in_month((unsigned)y, (unsigned)m)) {
        if (m == 2 && d == 29)
            return cdch_err_set(err, "bad %s '%s': day out of range for February (%ld is not a leap year)", what,
                                s, y);
        return cdch_err_set(err, "bad %s '%s': day out of range for %s (%u days)", what, s, month_names[m],
                            cdch_days_in_month((unsigned)y, (unsigned)m));
    }
    return 0;
}

int cdch_temporal_parse(const char *s, int kind, cdch_temporal *out, cdch_err *err)
{
    memset(out, 0, sizeof *out);
    const char *p = s;
    const char *why = NULL;

    if (kind_is_time(kind)) {
        bool neg = false;
        if (*p == '-') {
            neg = true;
            p++;
        }
        long h = 0;
        unsigned nh = 0;
        while (p[nh] >= '0' && p[nh] <= '9' && nh < 4) {
            h = h * 10 + (p[nh] - '0');
            nh++;
        }
        p += nh;
        long mi = -1, se = -1;
        if (nh >= 1 && nh <= 3 && *p == ':') {
            p++;
            mi = read_digits(&p, 2);
            if (mi >= 0 && *p == ':') {
                p++;
                se = read_digits(&p, 2);
            } else {
                se = -1;
            }
        }
        if (mi < 0 || se < 0)
            return cdch_err_set(err, "bad time '%s': expected [-]HH:MM:SS[.ffffff] (hours 0..838)", s);
        uint32_t usec;
        if (read_fraction(&p, &usec, &why) < 0)
            return cdch_err_set(err, "bad time '%s': %s", s, why);
        if (*p != '\0')
            return cdch_err_set(err, "bad time '%s': unexpected text after the value", s);
        if (mi > 59 || se > 59)
            return cdch_err_set(err, "bad time '%s': minutes and seconds must be 00..59", s);
        if (h > 838)
            return cdch_err_set(err, "bad time '%s': hours %ld out of range (TIME is -838:59:59 .. 838:59:59)", s,
                                h);
        out->neg = neg && (h || mi || se || usec);
        out->hour = (uint16_t)h;
        out->minute = (uint8_t)mi;
        out->second = (uint8_t)se;
        out->usec = usec;
        return 0;
    }

    if (!kind_is_date(kind) && !kind_is_datetime(kind))
        return cdch_err_set(err, "cannot parse '%s': column type %d is not a temporal type", s, kind);

    const char *what = kind_is_date(kind) ? "date" : "datetime";
    const char *shape = kind_is_date(kind) ? "YYYY-MM-DD" : "YYYY-MM-DD HH:MM:SS[.ffffff]";
    long y = read_digits(&p, 4);
    long m = -1, d = -1;
    if (y >= 0 && *p == '-') {
        p++;
        m = read_digits(&p, 2);
        if (m >= 0 && *p == '-') {
            p++;
            d = read_digits(&p, 2);
        }
    }
    if (y < 0 || m < 0 || d < 0)
        return cdch_err_set(err, "bad %s '%s': expected %s", what, s, shape);
    if (check_date(s, what, y, m, d, err) < 0)
        return -1;
    out->year = (uint16_t)y;
    out->month = (uint8_t)m;
    out->day = (uint8_t)d;
    if (kind_is_date(kind)) {
        if (*p != '\0')
            return cdch_err_set(err, "bad date '%s': unexpected text after YYYY-MM-DD", s);
        return 0;
    }
    if (*p != ' ' && *p != 'T')
        return cdch_err_set(err, "bad datetime '%s': expected %s", s, shape);
    p++;
    long h = read_digits(&p, 2), mi = -1, se = -1;
    if (h >= 0 && *p == ':') {
        p++;
        mi = read_digits(&p, 2);
        if (mi >= 0 && *p == ':') {
            p++;
            se = read_digits(&p, 2);
        }
    }
    if (h < 0 || mi < 0 || se < 0)
        return cdch_err_set(err, "bad datetime '%s': expected %s", s, shape);
    if (h > 23 || mi > 59 || se > 59)
        return cdch_err_set(err, "bad datetime '%s': time of day %02ld:%02ld:%02ld is out of range", s, h, mi, se);
    uint32_t usec;
    if (read_fraction(&p, &usec, &why) < 0)
        return cdch_err_set(err, "bad datetime '%s': %s", s, why);
    if (*p != '\0')
        return cdch_err_set(err, "bad datetime '%s': unexpected text after the value", s);
    out->hour = (uint16_t)h;
    out->minute = (uint8_t)mi;
    out->second = (uint8_t)se;
    out->usec = usec;
    return 0;
}

/* ---- civil <-> epoch (H. Hinnant's days_from_civil / civil_from_days) ------- */

void cdch_epoch_to_civil(uint32_t sec, uint32_t usec, cdch_temporal *out)
{
    memset(out, 0, sizeof *out);
    int64_t days = sec / 86400;
    uint32_t rem = sec % 86400;
    out->hour = (uint16_t)(rem / 3600);
    out->minute = (uint8_t)(rem % 3600 / 60);
    out->second = (uint8_t)(rem % 60);
    out->usec = usec;

    int64_t z = days + 719468;
    int64_t era = z / 146097; /* z >= 0 here */
    int64_t doe = z - era * 146097;
    int64_t yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
    int64_t y = yoe + era * 400;
    int64_t doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    int64_t mp = (5 * doy + 2) / 153;
    int64_t d = doy - (153 * mp + 2) / 5 + 1;
    int64_t m = mp < 10 ? mp + 3 : mp - 9;
    if (m <= 2)
        y++;
    out->year = (uint16_t)y;
    out->month = (uint8_t)m;
    out->day = (uint8_t)d;
}

int64_t cdch_civil_to_epoch(const cdch_temporal *t)
{
    if (t->year == 0 && t->month == 0 && t->day == 0)
        return 0; /* MySQL's zero TIMESTAMP is stored as 0 */
    int64_t y = t->year;
    int64_t m = t->month;
    int64_t d = t->day;
    if (m <= 2)
        y--;
    int64_t era = (y >= 0 ? y : y - 399) / 400;
    int64_t yoe = y - era * 400;
    int64_t doy = (153 * (m > 2 ? m - 3 : m + 9) + 2) / 5 + d - 1;
    int64_t doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    int64_t days = era * 146097 + doe - 719468;
    return days * 86400 + (int64_t)t->hour * 3600 + (int64_t)t->minute * 60 + t->second;
}
