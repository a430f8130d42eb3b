/* cdcharness adapter: an in-house-style binlog consumer written in C on MariaDB
 * Connector/C's replication API (mariadb_rpl_*, Debian libmariadb-dev).
 *
 * What it does, the way such in-house parsers are written:
 *   mysql_real_connect(); SET @master_binlog_checksum= @@global.binlog_checksum
 *   (the library leaves that to the application); mariadb_rpl_init();
 *   MARIADB_RPL_FILENAME / MARIADB_RPL_START / MARIADB_RPL_SERVER_ID;
 *   mariadb_rpl_open(); then mariadb_rpl_fetch() in a loop, keeping every
 *   TABLE_MAP event and decoding each rows event with
 *   mariadb_rpl_extract_rows(table map, rows event).
 * It starts at CDCH_START_FILE/CDCH_START_POS (the API has MariaDB GTIDs only,
 * via @slave_connect_state: CDCH_GTID_SET is not used).
 * Rows of a transaction are printed at its XID (or QUERY "COMMIT") with the
 * checkpoint the API gives: the GTID of GTID_LOG_EVENT (source_id:sequence_nr)
 * and the current file (from ROTATE) with the XID's next_event_pos.
 *
 * (The API's file mode, mariadb_rpl_init(NULL), is not used: in Connector/C
 * 3.3.20 it drops a byte of every event it reads from a file, so even real
 * MySQL files fail at the first FORMAT_DESCRIPTION_EVENT with 5021
 * "Malformed packet".)
 *
 * Value mapping (MARIADB_RPL_VALUE -> canonical event, design.md section 4);
 * column names "@1".. unless the TABLE_MAP carries COLUMN_NAME metadata:
 *   TINY..LONGLONG  val.ll, or val.ull when the TABLE_MAP's SIGNEDNESS
 *                   metadata (table_map.signed_indicator) marks it unsigned
 *   YEAR            val.ull (the library adds 1900; 1900 = the zero YEAR -> 0)
 *   NEWDECIMAL      val.str as an exact decimal string (".5" -> "0.5")
 *   FLOAT/DOUBLE    val.f / val.d, shortest round-trip text
 *   BIT             val.str bytes, big-endian -> unsigned integer
 *   ENUM / SET      val.ull: the index / bitmap (the API has no labels)
 *   DATE, DATETIME(2), TIME(2)  val.tm, fraction with the column's fsp digits
 *   TIMESTAMP2      val.ts (seconds, microseconds) -> UTC text, fsp digits
 *                   (old TIMESTAMP, which MySQL 8 does not write: val.ull)
 *   character/binary types  val.str: valid UTF-8 -> string, else
 *                   {"base64"} (the API gives no charset per column)
 *   GEOMETRY        val.str = SRID + WKB -> {"srid","wkb"}
 *   anything the library leaves undecoded (e.g. JSON, type 245): the row is
 *                   not printed, an error line names it, the adapter goes on
 * A consumer error (mariadb_rpl_open/fetch returning failure) prints
 * {"kind":"error"} with the library's message and exits 1; a crash inside the
 * library (it does not bounds-check row data) likewise, from the signal
 * handler.
 */
#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <mysql.h>
#include <mariadb_rpl.h>

/* ------------------------------------------------------------ buffers */

typedef struct {
    char *p;
    size_t n, cap;
} buf;

static void b_grow(buf *b, size_t more)
{
    if (b->n + more + 1 <= b->cap)
        return;
    size_t cap = b->cap ? b->cap : 256;
    while (cap < b->n + more + 1)
        cap *= 2;
    char *p = realloc(b->p, cap);
    if (!p) {
        fputs("adapter: out of memory\n", stderr);
        exit(1);
    }
    b->p = p;
    b->cap = cap;
}

static void b_put(buf *b, const char *s, size_t n)
{
    b_grow(b, n);
    memcpy(b->p + b->n, s, n);
    b->n += n;
    b->p[b->n] = 0;
}

static void b_puts(buf *b, const char *s) { b_put(b, s, strlen(s)); }

static void b_printf(buf *b, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (n < 0)
        return;
    b_grow(b, (size_t)n);
    va_start(ap, fmt);
    vsnprintf(b->p + b->n, (size_t)n + 1, fmt, ap);
    va_end(ap);
    b->n += (size_t)n;
}

static int utf8_valid(const unsigned char *s, size_t n)
{
    size_t i = 0;
    while (i < n) {
        unsigned c = s[i];
        size_t k;
        uint32_t cp;
        if (c < 0x80) {
            i++;
            continue;
        } else if ((c & 0xE0) == 0xC0) {
            k = 1;
            cp = c & 0x1F;
        } else if ((c & 0xF0) == 0xE0) {
            k = 2;
            cp = c & 0x0F;
        } else if ((c & 0xF8) == 0xF0) {
            k = 3;
            cp = c & 0x07;
        } else
            return 0;
        if (i + k >= n)
            return 0;
        for (size_t j = 1; j <= k; j++) {
            if ((s[i + j] & 0xC0) != 0x80)
                return 0;
            cp = (cp << 6) | (s[i + j] & 0x3F);
        }
        if ((k == 1 && cp < 0x80) || (k == 2 && cp < 0x800) || (k == 3 && cp < 0x10000) || cp > 0x10FFFF ||
            (cp >= 0xD800 && cp <= 0xDFFF))
            return 0;
        i += k + 1;
    }
    return 1;
}

static void b_json_str(buf *b, const char *s, size_t n)
{
    b_put(b, "\"", 1);
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        switch (c) {
        case '"': b_put(b, "\\\"", 2); break;
        case '\\': b_put(b, "\\\\", 2); break;
        case '\n': b_put(b, "\\n", 2); break;
        case '\r': b_put(b, "\\r", 2); break;
        case '\t': b_put(b, "\\t", 2); break;
        default:
            if (c < 0x20)
                b_printf(b, "\\u%04x", c);
            else
                b_put(b, (const char *)&c, 1);
        }
    }
    b_put(b, "\"", 1);
}

/* A message or name as a JSON string: if it is not valid UTF-8, its bytes
 * >= 0x80 become '?'. */
static void b_json_msg(buf *b, const char *s)
{
    size_t n = strlen(s);
    char *t = malloc(n + 1);
    if (!t)
        return;
    memcpy(t, s, n + 1);
    if (!utf8_valid((unsigned char *)t, n))
        for (size_t i = 0; i < n; i++)
            if ((unsigned char)t[i] >= 0x80)
                t[i] = '?';
    b_json_str(b, t, n);
    free(t);
}

static void b_base64(buf *b, const unsigned char *p, size_t n)
{
    static const char tab[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    b_puts(b, "{\"base64\":\"");
    for (size_t i = 0; i < n; i += 3) {
        uint32_t v = (uint32_t)p[i] << 16;
        if (i + 1 < n)
            v |= (uint32_t)p[i + 1] << 8;
        if (i + 2 < n)
            v |= p[i + 2];
        char q[4] = {tab[(v >> 18) & 63], tab[(v >> 12) & 63], i + 1 < n ? tab[(v >> 6) & 63] : '=',
                     i + 2 < n ? tab[v & 63] : '='};
        b_put(b, q, 4);
    }
    b_puts(b, "\"}");
}

static void b_u64(buf *b, uint64_t u)
{
    if (u > (uint64_t)INT64_MAX)
        b_printf(b, "\"%" PRIu64 "\"", u);
    else
        b_printf(b, "%" PRIu64, u);
}

/* ------------------------------------------------------------ output lines */

static void line_out(const buf *b)
{
    fwrite(b->p, 1, b->n, stdout);
    fputc('\n', stdout);
    fflush(stdout);
}

static void error_line(const char *fmt, ...)
{
    char msg[2048];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    buf b = {0};
    b_puts(&b, "{\"kind\":\"error\",\"message\":");
    b_json_msg(&b, msg);
    b_puts(&b, "}");
    line_out(&b);
    free(b.p);
    fprintf(stderr, "adapter: %s\n", msg);
}

/* what the signal handler reports if the library crashes */
static char crash_msg[1024] = "{\"kind\":\"error\",\"message\":\"adapter crashed\"}\n";

static void on_crash(int sig)
{
    ssize_t w = write(1, crash_msg, strlen(crash_msg));
    (void)w;
    (void)sig;
    _exit(1);
}

static void set_crash_context(const char *what, const char *file, unsigned long pos)
{
    buf b = {0}, m = {0};
    b_printf(&m, "crashed (SIGSEGV/SIGBUS) inside %s at %s:%lu", what, file ? file : "?", pos);
    b_puts(&b, "{\"kind\":\"error\",\"message\":");
    b_json_msg(&b, m.p);
    b_puts(&b, "}\n");
    snprintf(crash_msg, sizeof crash_msg, "%s", b.p);
    free(b.p);
    free(m.p);
}

/* ------------------------------------------------------------ table maps */

typedef struct {
    uint64_t table_id;
    MARIADB_RPL_EVENT *ev;
} tmap;

static tmap *tmaps;
static size_t ntmaps, captmaps;

static void tmap_put(MARIADB_RPL_EVENT *ev)
{
    uint64_t id = ev->event.table_map.table_id;
    for (size_t i = 0; i < ntmaps; i++)
        if (tmaps[i].table_id == id) {
            mariadb_free_rpl_event(tmaps[i].ev);
            tmaps[i].ev = ev;
            return;
        }
    if (ntmaps == captmaps) {
        captmaps = captmaps ? captmaps * 2 : 16;
        tmaps = realloc(tmaps, captmaps * sizeof *tmaps);
        if (!tmaps)
            exit(1);
    }
    tmaps[ntmaps].table_id = id;
    tmaps[ntmaps].ev = ev;
    ntmaps++;
}

static MARIADB_RPL_EVENT *tmap_get(uint64_t id)
{
    for (size_t i = 0; i < ntmaps; i++)
        if (tmaps[i].table_id == id)
            return tmaps[i].ev;
    return NULL;
}

/* Per-column facts the value mapping needs from a TABLE_MAP. */
typedef struct {
    unsigned char type; /* column_types[i] (MYSQL_TYPE_STRING resolved to ENUM/SET) */
    unsigned meta0;     /* first metadata byte */
    int is_unsigned;
    char name[256];
} colinfo;

static unsigned meta_len(unsigned char t)
{
    switch (t) {
    case MYSQL_TYPE_FLOAT: case MYSQL_TYPE_DOUBLE: case MYSQL_TYPE_BLOB: case MYSQL_TYPE_TINY_BLOB:
    case MYSQL_TYPE_MEDIUM_BLOB: case MYSQL_TYPE_LONG_BLOB: case MYSQL_TYPE_GEOMETRY: case MYSQL_TYPE_JSON:
    case MYSQL_TYPE_TIMESTAMP2: case MYSQL_TYPE_DATETIME2: case MYSQL_TYPE_TIME2:
        return 1;
    case MYSQL_TYPE_STRING: case MYSQL_TYPE_VARCHAR: case MYSQL_TYPE_VAR_STRING: case MYSQL_TYPE_NEWDECIMAL:
    case MYSQL_TYPE_BIT: case MYSQL_TYPE_ENUM: case MYSQL_TYPE_SET:
        return 2;
    default:
        return 0;
    }
}

static int is_numeric(unsigned char t)
{
    switch (t) {
    case MYSQL_TYPE_TINY: case MYSQL_TYPE_SHORT: case MYSQL_TYPE_INT24: case MYSQL_TYPE_LONG:
    case MYSQL_TYPE_LONGLONG: case MYSQL_TYPE_NEWDECIMAL: case MYSQL_TYPE_FLOAT: case MYSQL_TYPE_DOUBLE:
        return 1;
    default:
        return 0;
    }
}

static uint64_t lenenc(const unsigned char **p, const unsigned char *end)
{
    if (*p >= end)
        return 0;
    unsigned c = *(*p)++;
    size_t k = c < 251 ? 0 : c == 252 ? 2 : c == 253 ? 3 : c == 254 ? 8 : 0;
    if (c < 251)
        return c;
    uint64_t v = 0;
    for (size_t i = 0; i < k && *p < end; i++)
        v |= (uint64_t)(*(*p)++) << (8 * i);
    return v;
}

static colinfo *columns_of(MARIADB_RPL_EVENT *tm)
{
    struct st_mariadb_rpl_table_map_event *t = &tm->event.table_map;
    uint32_t n = t->column_count;
    colinfo *c = calloc(n ? n : 1, sizeof *c);
    if (!c)
        exit(1);
    const unsigned char *meta = (const unsigned char *)t->metadata.str;
    size_t mlen = t->metadata.length, mo = 0, num = 0;
    const unsigned char *np = t->column_names.data, *nend = np ? np + t->column_names.length : NULL;
    for (uint32_t i = 0; i < n; i++) {
        unsigned char ty = (unsigned char)t->column_types.str[i];
        unsigned ml = meta_len(ty);
        c[i].meta0 = mo < mlen ? meta[mo] : 0;
        if (ty == MYSQL_TYPE_STRING && mo < mlen && (meta[mo] == MYSQL_TYPE_ENUM || meta[mo] == MYSQL_TYPE_SET))
            ty = meta[mo];
        mo += ml;
        c[i].type = ty;
        if (is_numeric(ty)) {
            if (t->signed_indicator)
                c[i].is_unsigned = (t->signed_indicator[num / 8] >> (7 - num % 8)) & 1;
            num++;
        }
        snprintf(c[i].name, sizeof c[i].name, "@%u", i + 1);
        if (np && np < nend) {
            uint64_t l = lenenc(&np, nend);
            if (l < sizeof c[i].name && np + l <= nend) {
                memcpy(c[i].name, np, (size_t)l);
                c[i].name[l] = 0;
            }
            np += l;
        }
    }
    return c;
}

/* ------------------------------------------------------------ values */

static void shortest_float(buf *b, double d, int single)
{
    char s[64];
    for (int prec = 1; prec <= 17; prec++) {
        snprintf(s, sizeof s, "%.*g", prec, d);
        if (single ? (strtof(s, NULL) == (float)d) : (strtod(s, NULL) == d))
            break;
    }
    b_puts(b, s);
}

static void frac_digits(buf *b, unsigned long micro, unsigned fsp)
{
    if (fsp == 0)
        return;
    if (fsp > 6)
        fsp = 6;
    char s[8];
    snprintf(s, sizeof s, "%06lu", micro % 1000000);
    b_put(b, ".", 1);
    b_put(b, s, fsp);
}

/* Returns 0, or -1 when the library left the value undecoded. */
static int value_json(buf *b, const MARIADB_RPL_VALUE *v, const colinfo *c)
{
    if (v->is_null) {
        b_puts(b, "null");
        return 0;
    }
    switch (c->type) {
    case MYSQL_TYPE_TINY: case MYSQL_TYPE_SHORT: case MYSQL_TYPE_INT24: case MYSQL_TYPE_LONG:
    case MYSQL_TYPE_LONGLONG:
        if (c->is_unsigned)
            b_u64(b, v->val.ull);
        else
            b_printf(b, "%" PRId64, v->val.ll);
        return 0;
    case MYSQL_TYPE_YEAR:
        b_printf(b, "%" PRIu64, v->val.ull == 1900 ? (uint64_t)0 : v->val.ull);
        return 0;
    case MYSQL_TYPE_NEWDECIMAL: {
        /* the library prints 0.5 as ".5" and -0.5 as "-.5": same number, add the 0 */
        const char *d = v->val.str.str ? v->val.str.str : "";
        size_t n = v->val.str.length;
        buf t = {0};
        if (n && d[0] == '.')
            b_puts(&t, "0");
        else if (n > 1 && d[0] == '-' && d[1] == '.') {
            b_puts(&t, "-0");
            d++;
            n--;
        }
        b_put(&t, d, n);
        b_json_str(b, t.p, t.n);
        free(t.p);
        return 0;
    }
    case MYSQL_TYPE_FLOAT:
        shortest_float(b, v->val.f, 1);
        return 0;
    case MYSQL_TYPE_DOUBLE:
        shortest_float(b, v->val.d, 0);
        return 0;
    case MYSQL_TYPE_BIT: {
        uint64_t u = 0;
        for (size_t i = 0; i < v->val.str.length; i++)
            u = (u << 8) | (unsigned char)v->val.str.str[i];
        b_u64(b, u);
        return 0;
    }
    case MYSQL_TYPE_ENUM: case MYSQL_TYPE_SET:
        b_u64(b, v->val.ull);
        return 0;
    case MYSQL_TYPE_DATE:
        b_printf(b, "\"%04u-%02u-%02u\"", v->val.tm.year, v->val.tm.month, v->val.tm.day);
        return 0;
    case MYSQL_TYPE_DATETIME: case MYSQL_TYPE_DATETIME2:
        b_printf(b, "\"%04u-%02u-%02u %02u:%02u:%02u", v->val.tm.year, v->val.tm.month, v->val.tm.day,
                 v->val.tm.hour, v->val.tm.minute, v->val.tm.second);
        frac_digits(b, v->val.tm.second_part, c->type == MYSQL_TYPE_DATETIME2 ? c->meta0 : 0);
        b_puts(b, "\"");
        return 0;
    case MYSQL_TYPE_TIME: case MYSQL_TYPE_TIME2:
        b_printf(b, "\"%s%02u:%02u:%02u", v->val.tm.neg ? "-" : "", v->val.tm.hour, v->val.tm.minute,
                 v->val.tm.second);
        frac_digits(b, v->val.tm.second_part, c->type == MYSQL_TYPE_TIME2 ? c->meta0 : 0);
        b_puts(b, "\"");
        return 0;
    case MYSQL_TYPE_TIMESTAMP: case MYSQL_TYPE_TIMESTAMP2: {
        uint64_t sec;
        unsigned long micro = 0;
        unsigned fsp = c->type == MYSQL_TYPE_TIMESTAMP2 ? c->meta0 : 0;
        if (c->type == MYSQL_TYPE_TIMESTAMP) {
            sec = v->val.ull;
        } else {
            /* Connector/C 3.3.20 fills val.ts (seconds, microseconds) */
            sec = v->val.ts.second;
            micro = v->val.ts.second_part;
        }
        if (sec == 0 && micro == 0) {
            b_puts(b, "\"0000-00-00 00:00:00");
        } else {
            time_t tt = (time_t)sec;
            struct tm tmv;
            gmtime_r(&tt, &tmv);
            b_printf(b, "\"%04d-%02d-%02d %02d:%02d:%02d", tmv.tm_year + 1900, tmv.tm_mon + 1, tmv.tm_mday,
                     tmv.tm_hour, tmv.tm_min, tmv.tm_sec);
        }
        frac_digits(b, micro, fsp);
        b_puts(b, "\"");
        return 0;
    }
    case MYSQL_TYPE_STRING: case MYSQL_TYPE_VARCHAR: case MYSQL_TYPE_VAR_STRING: case MYSQL_TYPE_BLOB:
    case MYSQL_TYPE_TINY_BLOB: case MYSQL_TYPE_MEDIUM_BLOB: case MYSQL_TYPE_LONG_BLOB: {
        const unsigned char *p = (const unsigned char *)(v->val.str.str ? v->val.str.str : "");
        if (utf8_valid(p, v->val.str.length))
            b_json_str(b, (const char *)p, v->val.str.length);
        else
            b_base64(b, p, v->val.str.length);
        return 0;
    }
    case MYSQL_TYPE_GEOMETRY: {
        const unsigned char *p = (const unsigned char *)v->val.str.str;
        size_t n = v->val.str.length;
        if (!p || n < 4)
            return -1;
        b_printf(b, "{\"srid\":%u,\"wkb\":\"", (unsigned)(p[0] | p[1] << 8 | p[2] << 16 | (uint32_t)p[3] << 24));
        for (size_t i = 4; i < n; i++)
            b_printf(b, "%02x", p[i]);
        b_puts(b, "\"}");
        return 0;
    }
    default:
        return -1;
    }
}

/* ------------------------------------------------------------ consumer */

static char cur_file[4096];
static char cur_gtid[128];
static buf *pending;
static size_t npending, cappending;

static void pending_add(buf *row)
{
    if (npending == cappending) {
        cappending = cappending ? cappending * 2 : 64;
        pending = realloc(pending, cappending * sizeof *pending);
        if (!pending)
            exit(1);
    }
    pending[npending++] = *row;
}

static void commit(unsigned long pos)
{
    for (size_t i = 0; i < npending; i++) {
        buf *b = &pending[i];
        b_puts(b, ",\"gtid\":");
        if (cur_gtid[0])
            b_json_str(b, cur_gtid, strlen(cur_gtid));
        else
            b_puts(b, "null");
        b_puts(b, ",\"pos\":");
        if (cur_file[0]) {
            b_puts(b, "{\"file\":");
            b_json_msg(b, cur_file);
            b_printf(b, ",\"pos\":%lu}", pos);
        } else
            b_puts(b, "null");
        b_puts(b, "}");
        line_out(b);
        free(b->p);
    }
    npending = 0;
}

/* image of one row as a JSON object; -1 (and a message) if a column was left undecoded */
static int image(buf *b, const MARIADB_RPL_ROW *r, const colinfo *c, uint32_t ncol, char *why, size_t whylen)
{
    b_puts(b, "{");
    for (uint32_t i = 0; i < r->column_count && i < ncol; i++) {
        if (i)
            b_puts(b, ",");
        b_json_msg(b, c[i].name);
        b_puts(b, ":");
        if (value_json(b, &r->columns[i], &c[i]) < 0) {
            snprintf(why, whylen, "column %s (type %u) was not decoded by mariadb_rpl_extract_rows", c[i].name,
                     c[i].type);
            return -1;
        }
    }
    b_puts(b, "}");
    return 0;
}

static void rows_event(MARIADB_RPL *rpl, MARIADB_RPL_EVENT *ev, unsigned long at)
{
    MARIADB_RPL_EVENT *tm = tmap_get(ev->event.rows.table_id);
    const char *op;
    int et = ev->event_type;
    if (et == WRITE_ROWS_EVENT || et == WRITE_ROWS_EVENT_V1)
        op = "insert";
    else if (et == UPDATE_ROWS_EVENT || et == UPDATE_ROWS_EVENT_V1)
        op = "update";
    else
        op = "delete";
    if (!tm) {
        error_line("rows event at %s:%lu: no TABLE_MAP for table id %" PRIu64 "; rows skipped", cur_file, at,
                   ev->event.rows.table_id);
        return;
    }
    struct st_mariadb_rpl_table_map_event *t = &tm->event.table_map;
    set_crash_context("mariadb_rpl_extract_rows", cur_file, at);
    MARIADB_RPL_ROW *rows = mariadb_rpl_extract_rows(rpl, tm, ev);
    set_crash_context("the adapter", cur_file, at);
    if (!rows) {
        error_line("rows event at %s:%lu (%.*s.%.*s): mariadb_rpl_extract_rows returned no rows: %s", cur_file, at,
                   (int)t->database.length, t->database.str, (int)t->table.length, t->table.str,
                   mariadb_rpl_error(rpl)[0] ? mariadb_rpl_error(rpl) : "(no error message)");
        return;
    }
    colinfo *c = columns_of(tm);
    int step = op[0] == 'u' ? 2 : 1;
    for (MARIADB_RPL_ROW *r = rows; r; r = r->next) {
        MARIADB_RPL_ROW *r2 = step == 2 ? r->next : NULL;
        if (step == 2 && !r2) {
            unsigned nimg = 0;
            for (MARIADB_RPL_ROW *q = rows; q; q = q->next)
                nimg++;
            error_line("rows event at %s:%lu (%.*s.%.*s): update with an odd number of row images (%u) from "
                       "mariadb_rpl_extract_rows; the last one is dropped",
                       cur_file, at, (int)t->database.length, t->database.str, (int)t->table.length, t->table.str,
                       nimg);
            break;
        }
        buf b = {0};
        char why[512] = "";
        /* database/table are MARIADB_STRING (length-delimited) */
        b_printf(&b, "{\"op\":\"%s\",\"db\":", op);
        {
            char tmp[300];
            snprintf(tmp, sizeof tmp, "%.*s", (int)t->database.length, t->database.str);
            b_json_msg(&b, tmp);
            b_puts(&b, ",\"table\":");
            snprintf(tmp, sizeof tmp, "%.*s", (int)t->table.length, t->table.str);
            b_json_msg(&b, tmp);
        }
        int bad = 0;
        b_puts(&b, ",\"before\":");
        if (op[0] == 'i')
            b_puts(&b, "null");
        else
            bad = image(&b, r, c, t->column_count, why, sizeof why);
        b_puts(&b, ",\"after\":");
        if (!bad) {
            if (op[0] == 'd')
                b_puts(&b, "null");
            else
                bad = image(&b, step == 2 ? r2 : r, c, t->column_count, why, sizeof why);
        }
        if (bad) {
            error_line("rows event at %s:%lu (%.*s.%.*s): %s; the rest of this event is skipped", cur_file, at,
                       (int)t->database.length, t->database.str, (int)t->table.length, t->table.str, why);
            free(b.p);
            break;
        }
        pending_add(&b);
        if (step == 2)
            r = r2;
    }
    free(c);
}

static const char *env(const char *k, const char *dflt)
{
    const char *v = getenv(k);
    return v && *v ? v : dflt;
}

static void uuid_text(char *out, size_t n, const unsigned char *u)
{
    snprintf(out, n, "%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x", u[0], u[1], u[2], u[3],
             u[4], u[5], u[6], u[7], u[8], u[9], u[10], u[11], u[12], u[13], u[14], u[15]);
}

/* Handle one event; returns 1 if the event must be kept (a TABLE_MAP). */
static int handle(MARIADB_RPL *rpl, MARIADB_RPL_EVENT *ev, unsigned long at)
{
    switch (ev->event_type) {
    case ROTATE_EVENT:
        snprintf(cur_file, sizeof cur_file, "%.*s", (int)ev->event.rotate.filename.length,
                 ev->event.rotate.filename.str);
        return 0;
    case GTID_LOG_EVENT: {
        char u[40];
        uuid_text(u, sizeof u, (const unsigned char *)ev->event.gtid_log.source_id);
        snprintf(cur_gtid, sizeof cur_gtid, "%s:%" PRIu64, u, ev->event.gtid_log.sequence_nr);
        return 0;
    }
    case ANONYMOUS_GTID_LOG_EVENT:
        cur_gtid[0] = 0;
        return 0;
    case TABLE_MAP_EVENT:
        tmap_put(ev);
        return 1;
    case WRITE_ROWS_EVENT: case UPDATE_ROWS_EVENT: case DELETE_ROWS_EVENT:
    case WRITE_ROWS_EVENT_V1: case UPDATE_ROWS_EVENT_V1: case DELETE_ROWS_EVENT_V1:
        rows_event(rpl, ev, at);
        return 0;
    case XID_EVENT:
        commit(ev->next_event_pos);
        return 0;
    case QUERY_EVENT:
        if (ev->event.query.statement.length == 6 && !strncasecmp(ev->event.query.statement.str, "COMMIT", 6))
            commit(ev->next_event_pos);
        return 0;
    default:
        return 0;
    }
}

/* Fetch until failure (-1) or an end of stream without an error (0). */
static int stream(MARIADB_RPL *rpl, MYSQL *mysql)
{
    unsigned long at = 0;
    for (;;) {
        set_crash_context("mariadb_rpl_fetch", cur_file, at);
        MARIADB_RPL_EVENT *ev = mariadb_rpl_fetch(rpl, NULL);
        if (!ev) {
            unsigned e = mariadb_rpl_errno(rpl);
            const char *m = mariadb_rpl_error(rpl);
            if (!e && !mysql_errno(mysql))
                return 0;
            if (!e) {
                e = mysql_errno(mysql);
                m = mysql_error(mysql);
            }
            error_line("mariadb_rpl_fetch failed at %s:%lu: %s%s(error %u)", cur_file, at, m && *m ? m : "",
                       m && *m ? " " : "no error message ", e);
            return -1;
        }
        unsigned long next = ev->next_event_pos;
        if (!handle(rpl, ev, at))
            mariadb_free_rpl_event(ev);
        if (next)
            at = next;
    }
}

int main(void)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_crash;
    sigaction(SIGSEGV, &sa, NULL);
    sigaction(SIGBUS, &sa, NULL);
    sigaction(SIGFPE, &sa, NULL);
    sigaction(SIGABRT, &sa, NULL);

    const char *port = getenv("CDCH_PORT");
    if (!port || !*port) {
        error_line("CDCH_PORT is not set");
        return 2;
    }

    MYSQL *mysql = mysql_init(NULL);
    if (!mysql) {
        error_line("mysql_init failed");
        return 1;
    }
    const char *host = env("CDCH_HOST", "127.0.0.1");
    const char *user = env("CDCH_USER", "root");
    const char *password = getenv("CDCH_PASSWORD");
    unsigned int server_id = (unsigned)strtoul(env("CDCH_SERVER_ID", "1001"), NULL, 10);
    const char *start_file = env("CDCH_START_FILE", "");
    unsigned long start_pos = strtoul(env("CDCH_START_POS", "4"), NULL, 10);

    if (!mysql_real_connect(mysql, host, user, password, NULL, (unsigned)strtoul(port, NULL, 10), NULL, 0)) {
        error_line("mysql_real_connect to %s:%s failed: %s (error %u)", host, port, mysql_error(mysql),
                   mysql_errno(mysql));
        return 1;
    }
    if (mysql_query(mysql, "SET @master_binlog_checksum= @@global.binlog_checksum")) {
        error_line("SET @master_binlog_checksum failed: %s (error %u)", mysql_error(mysql), mysql_errno(mysql));
        return 1;
    }
    MARIADB_RPL *rpl = mariadb_rpl_init(mysql);
    if (!rpl) {
        error_line("mariadb_rpl_init failed: %s (error %u)", mysql_error(mysql), mysql_errno(mysql));
        return 1;
    }
    mariadb_rpl_optionsv(rpl, MARIADB_RPL_FILENAME, start_file, strlen(start_file));
    mariadb_rpl_optionsv(rpl, MARIADB_RPL_START, start_pos);
    mariadb_rpl_optionsv(rpl, MARIADB_RPL_SERVER_ID, server_id);
    snprintf(cur_file, sizeof cur_file, "%s", start_file);
    if (mariadb_rpl_open(rpl)) {
        unsigned e = mariadb_rpl_errno(rpl) ? mariadb_rpl_errno(rpl) : mysql_errno(mysql);
        const char *m = mariadb_rpl_errno(rpl) ? mariadb_rpl_error(rpl) : mysql_error(mysql);
        error_line("mariadb_rpl_open failed: %s (error %u)", m, e);
        return 1;
    }
    puts("{\"kind\":\"ready\"}");
    fflush(stdout);
    int rc = stream(rpl, mysql);
    if (rc == 0)
        error_line("mariadb_rpl_fetch: the stream ended");
    mariadb_rpl_close(rpl);
    mysql_close(mysql);
    return 1;
}
