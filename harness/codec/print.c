#include "print.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "cursor.h"
#include "gtid.h"
#include "jsonstr.h"
#include "mysql_types.h"
#include "value.h"
#include "xalloc.h"

#define DELIM "/*!*/;"

/* MySQL option bits carried in the FLAGS2 status variable (sql/query_options.h). */
#define OPTION_AUTO_IS_NULL (1u << 14)
#define OPTION_NOT_AUTOCOMMIT (1u << 19)
#define OPTION_NO_FOREIGN_KEY_CHECKS (1u << 26)
#define OPTION_RELAXED_UNIQUE_CHECKS (1u << 27)

#define TM_GENERATED_INVISIBLE_PK_F 0x0004

struct cdch_printer {
    cdch_print_opts o;
    /* text form: what mysqlbinlog's PRINT_EVENT_INFO remembers */
    uint8_t db[256];
    size_t db_len;
    bool thread_id_printed;
    uint32_t thread_id;
    bool flags2_inited;
    uint32_t flags2;
    bool sql_mode_inited;
    uint64_t sql_mode;
    bool auto_inc_inited;
    uint16_t auto_inc_increment, auto_inc_offset;
    bool charset_inited;
    uint8_t charset[6];
    uint8_t time_zone[256];
    size_t time_zone_len;
    int64_t lc_time_names;
    int64_t charset_database;
    int64_t default_collation_utf8mb4;
    int64_t explicit_defaults_ts;
};

cdch_printer *cdch_printer_new(const cdch_print_opts *opts)
{
    cdch_printer *p = cdch_xcalloc(1, sizeof *p);
    if (opts)
        p->o = *opts;
    cdch_printer_reset(p);
    return p;
}

void cdch_printer_free(cdch_printer *p) { free(p); }

void cdch_printer_reset(cdch_printer *p)
{
    cdch_print_opts o = p->o;
    memset(p, 0, sizeof *p);
    p->o = o;
    p->lc_time_names = -1;
    p->charset_database = -1;
    p->default_collation_utf8mb4 = -1;
    p->explicit_defaults_ts = -1;
}

/* ------------------------------------------------------------------ helpers */

/* Decoded strings may hold any byte: bytes that are not UTF-8 become U+FFFD. */
static void json_bytes_str(cdch_buf *out, cdch_bytes b)
{
    cdch_put_json_str(out, b.ptr ? b.ptr : (const uint8_t *)"", b.ptr ? b.len : 0, CDCH_JSON_UTF8);
}

static void json_cstr(cdch_buf *out, const char *s) { cdch_put_json_str(out, s, strlen(s), CDCH_JSON_UTF8); }

/* `name` with backticks doubled, inside backticks. */
static void put_quoted_ident(cdch_buf *out, cdch_bytes b)
{
    cdch_put_u8(out, '`');
    for (size_t i = 0; b.ptr && i < b.len; i++) {
        if (b.ptr[i] == '`')
            cdch_put_u8(out, '`');
        cdch_put_u8(out, b.ptr[i]);
    }
    cdch_put_u8(out, '`');
}

static void put_bytes(cdch_buf *out, cdch_bytes b)
{
    if (b.ptr && b.len)
        cdch_put_bytes(out, b.ptr, b.len);
}

/* mysqlbinlog's print_timestamp: "YYMMDD HH:MM:SS" (hour space-padded), UTC. */
static void put_short_time(cdch_buf *out, uint32_t t)
{
    time_t tt = (time_t)t;
    struct tm tm;
    if (!gmtime_r(&tt, &tm)) {
        cdch_put_str(out, "000000  0:00:00");
        return;
    }
    cdch_buf_printf(out, "%02d%02d%02d %2d:%02d:%02d", tm.tm_year % 100, tm.tm_mon + 1, tm.tm_mday, tm.tm_hour,
                    tm.tm_min, tm.tm_sec);
}

/* Microseconds since the epoch as "YYYY-MM-DD HH:MM:SS.ffffff UTC". */
static void put_usec_time(cdch_buf *out, uint64_t us)
{
    time_t tt = (time_t)(us / 1000000u);
    struct tm tm;
    if (us / 1000000u > (uint64_t)253402300799u || !gmtime_r(&tt, &tm)) {
        cdch_put_str(out, "out of range");
        return;
    }
    cdch_buf_printf(out, "%04d-%02d-%02d %02d:%02d:%02d.%06u UTC", tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday,
                    tm.tm_hour, tm.tm_min, tm.tm_sec, (unsigned)(us % 1000000u));
}

static bool type_is_known(int type) { return strcmp(cdch_event_type_name(type), "Unknown") != 0; }

static const char *compression_name(uint64_t t)
{
    switch (t) {
    case CDCH_COMPRESSION_ZSTD: return "ZSTD";
    case CDCH_COMPRESSION_NONE: return "NONE";
    default: return "UNKNOWN";
    }
}

static void put_gtid_text(cdch_buf *out, const cdch_event *ev)
{
    const cdch_gtid_ev *g = &ev->u.gtid;
    if (ev->h.type == CDCH_EV_ANONYMOUS_GTID) {
        cdch_put_str(out, "ANONYMOUS");
        return;
    }
    char uuid[37];
    cdch_uuid_format(g->sid, uuid);
    char tag[CDCH_GTID_TAG_MAX + 1];
    memcpy(tag, g->tag, sizeof tag);
    tag[CDCH_GTID_TAG_MAX] = '\0';
    if (tag[0])
        cdch_buf_printf(out, "%s:%s:%" PRId64, uuid, tag, g->gno);
    else
        cdch_buf_printf(out, "%s:%" PRId64, uuid, g->gno);
}

/* The FDE's server version as a C string (the field is NUL-padded, not
 * necessarily terminated). */
static void fde_version(const cdch_fde *f, char ver[sizeof f->server_version])
{
    memcpy(ver, f->server_version, sizeof f->server_version);
    ver[sizeof f->server_version - 1] = '\0';
}

/* An XA_PREPARE's gtrid and bqual lengths, clipped to the data present. */
static void xa_parts(const cdch_xa_prepare *x, size_t *gl, size_t *bl)
{
    size_t dl = x->data.ptr ? x->data.len : 0;
    *gl = x->gtrid_len < dl ? x->gtrid_len : dl;
    *bl = x->bqual_len < dl - *gl ? x->bqual_len : dl - *gl;
}

static const cdch_status_var *find_status(const cdch_query *q, uint8_t code)
{
    for (size_t i = 0; i < q->n_status && q->status; i++)
        if (q->status[i].code == code)
            return &q->status[i];
    return NULL;
}

/* Status variable value as an unsigned little-endian integer of n bytes;
 * false if absent or short. */
static bool status_uint(const cdch_query *q, uint8_t code, unsigned n, uint64_t *v)
{
    const cdch_status_var *s = find_status(q, code);
    if (!s || !s->value.ptr)
        return false;
    cdch_cursor c = cdch_cur(s->value.ptr, s->value.len);
    *v = cdch_get_le(&c, n);
    return cdch_cur_ok(&c);
}

static const char *status_name(uint8_t code)
{
    static const char *const names[] = {
        "FLAGS2", "SQL_MODE", "CATALOG", "AUTO_INCREMENT", "CHARSET", "TIME_ZONE", "CATALOG_NZ",
        "LC_TIME_NAMES", "CHARSET_DATABASE", "TABLE_MAP_FOR_UPDATE", "MASTER_DATA_WRITTEN", "INVOKER",
        "UPDATED_DB_NAMES", "MICROSECONDS", "COMMIT_TS", "COMMIT_TS2", "EXPLICIT_DEFAULTS_FOR_TIMESTAMP",
        "DDL_LOGGED_WITH_XID", "DEFAULT_COLLATION_FOR_UTF8MB4", "SQL_REQUIRE_PRIMARY_KEY",
        "DEFAULT_TABLE_ENCRYPTION",
    };
    return code < sizeof names / sizeof names[0] ? names[code] : "UNKNOWN";
}

/* Character set of a collation id, for mysqlbinlog's "/ *!\C name * /" line
 * (common ids only; NULL when not known). */
static const char *charset_of_collation(unsigned id)
{
    if (id == 45 || id == 46 || (id >= 224 && id <= 247) || (id >= 255 && id <= 323))
        return "utf8mb4";
    if (id == 33 || id == 76 || id == 83 || (id >= 192 && id <= 215) || id == 223)
        return "utf8mb3";
    if (id == 5 || id == 8 || id == 15 || id == 31 || id == 47 || id == 48 || id == 49 || id == 94)
        return "latin1";
    if (id == 11 || id == 65)
        return "ascii";
    if (id == 63)
        return "binary";
    return NULL;
}

/* -------------------------------------------------------------- hex dump */

/* mysqlbinlog -H: header bytes on one line, then 16 bytes per line with an
 * ASCII column. `base` is the position printed for the first byte. */
static void put_hexdump(cdch_buf *out, const uint8_t *d, size_t len, uint64_t base)
{
    cdch_put_str(out, "# Position  Timestamp   Type   Source ID        Size      Source Pos    Flags \n");
    if (len >= CDCH_HEADER_LEN) {
        cdch_buf_printf(out,
                        "# %8.8" PRIx64 " %02x %02x %02x %02x   %02x   %02x %02x %02x %02x   %02x %02x %02x %02x"
                        "   %02x %02x %02x %02x   %02x %02x\n",
                        base, d[0], d[1], d[2], d[3], d[4], d[5], d[6], d[7], d[8], d[9], d[10], d[11], d[12], d[13],
                        d[14], d[15], d[16], d[17], d[18]);
    }
    size_t i = len >= CDCH_HEADER_LEN ? CDCH_HEADER_LEN : 0;
    while (i < len) {
        char hex[64], chars[17];
        size_t h = 0, n = 0;
        for (; n < 16 && i + n < len; n++) {
            uint8_t b = d[i + n];
            h += (size_t)snprintf(hex + h, sizeof hex - h, n <= 7 ? "%02x " : " %02x", b);
            bool alnum = (b >= '0' && b <= '9') || (b >= 'a' && b <= 'z') || (b >= 'A' && b <= 'Z');
            chars[n] = alnum ? (char)b : '.';
        }
        chars[n] = '\0';
        cdch_buf_printf(out, "# %8.8" PRIx64 " %-48s |%s|\n", base + i, hex, chars);
        i += n;
    }
}

/* ------------------------------------------------------------ text form */

static const cdch_coldef *col_of(const cdch_table_map *tm, size_t i)
{
    static const cdch_coldef unknown_col; /* all zero: type DECIMAL(0), no name */
    if (tm && tm->cols && i < tm->ncols)
        return &tm->cols[i];
    return &unknown_col;
}

static void text_type_comment(cdch_buf *out, const cdch_coldef *col, const cdch_value *v)
{
    size_t at = out->len;
    cdch_value_type_comment(col, v, out);
    /* value.h leaves open whether the comment markers are included; make
     * sure the line reads "/ * ... * /" either way. */
    if (out->len - at >= 2 && out->data[at] == '/' && out->data[at + 1] == '*')
        return;
    size_t n = out->len - at;
    char *tmp = cdch_xrealloc(NULL, n + 1);
    memcpy(tmp, out->data + at, n);
    out->len = at;
    cdch_put_str(out, "/* ");
    cdch_put_bytes(out, tmp, n);
    cdch_put_str(out, " */");
    free(tmp);
}

/* cdch_value_to_sql prints a JSON diff as JSON_REPLACE(@?, ...) since it
 * does not know the column number; mysqlbinlog writes @N there. The first
 * "@?" is the innermost column reference (values come after it). */
static void fix_diff_column_ref(cdch_buf *out, size_t from, size_t colno)
{
    for (size_t k = from; k + 1 < out->len; k++) {
        if (out->data[k] == '@' && out->data[k + 1] == '?') {
            char num[24];
            int n = snprintf(num, sizeof num, "%zu", colno);
            size_t tail = out->len - (k + 2);
            cdch_buf_reserve(out, (size_t)n);
            memmove(out->data + k + 1 + n, out->data + k + 2, tail);
            memcpy(out->data + k + 1, num, (size_t)n);
            out->len = k + 1 + (size_t)n + tail;
            return;
        }
    }
}

static void text_image(cdch_buf *out, const cdch_rows *r, const cdch_table_map *tm, const cdch_value *img)
{
    if (!img)
        return;
    for (size_t i = 0; i < r->ncols; i++) {
        const cdch_value *v = &img[i];
        if (v->kind == CDCH_V_ABSENT)
            continue;
        const cdch_coldef *col = col_of(tm, i);
        cdch_buf_printf(out, "###   @%zu=", i + 1);
        size_t at = out->len;
        cdch_value_to_sql(col, v, out);
        if (v->kind == CDCH_V_JSON_DIFF)
            fix_diff_column_ref(out, at, i + 1);
        cdch_put_u8(out, ' ');
        text_type_comment(out, col, v);
        cdch_put_u8(out, '\n');
    }
}

static void text_rows(cdch_buf *out, const cdch_event *ev)
{
    const cdch_rows *r = &ev->u.rows;
    const cdch_table_map *tm = r->tm;
    cdch_buf_printf(out, "\t%s: table id %" PRIu64 "%s\n", cdch_event_type_name(ev->h.type), r->table_id,
                    (r->flags & CDCH_ROWS_STMT_END_F) ? " flags: STMT_END_F" : "");
    cdch_bytes db = {NULL, 0}, tbl = {NULL, 0};
    if (tm) {
        db = tm->db;
        tbl = tm->table;
    }
    for (size_t k = 0; r->rows && k < r->nrows; k++) {
        const cdch_row *row = &r->rows[k];
        switch (ev->h.type) {
        case CDCH_EV_WRITE_ROWS:
            cdch_put_str(out, "### INSERT INTO ");
            break;
        case CDCH_EV_DELETE_ROWS:
            cdch_put_str(out, "### DELETE FROM ");
            break;
        default:
            cdch_put_str(out, "### UPDATE ");
            break;
        }
        put_quoted_ident(out, db);
        cdch_put_u8(out, '.');
        put_quoted_ident(out, tbl);
        cdch_put_u8(out, '\n');
        if (ev->h.type != CDCH_EV_WRITE_ROWS) {
            cdch_put_str(out, "### WHERE\n");
            text_image(out, r, tm, row->before);
        }
        if (ev->h.type != CDCH_EV_DELETE_ROWS) {
            cdch_put_str(out, "### SET\n");
            text_image(out, r, tm, row->after);
        }
    }
}

static bool is_trans_keyword(cdch_bytes q)
{
    static const char *const kw[] = {"BEGIN", "COMMIT", "ROLLBACK", "XA START", "XA END", "XA COMMIT",
                                     "XA ROLLBACK", "XA PREPARE"};
    if (!q.ptr)
        return false;
    for (size_t i = 0; i < sizeof kw / sizeof kw[0]; i++) {
        size_t n = strlen(kw[i]);
        if (q.len >= n && strncasecmp((const char *)q.ptr, kw[i], n) == 0 &&
            (q.len == n || q.ptr[n] == ' ' || kw[i][0] == 'X'))
            return true;
    }
    return false;
}

/* "use `db`": printed when the default database changes; a suppressed
 * USE (SUPPRESS_USE_F) forgets it unless the query is a transaction keyword. */
static void text_query_use_db(cdch_printer *p, cdch_buf *out, const cdch_event *ev)
{
    const cdch_query *q = &ev->u.query;
    if (ev->h.flags & CDCH_LOG_EVENT_SUPPRESS_USE_F) {
        if (!is_trans_keyword(q->query))
            p->db_len = 0;
        return;
    }
    if (!q->db.ptr)
        return;
    size_t n = q->db.len < sizeof p->db ? q->db.len : sizeof p->db;
    if (n != p->db_len || memcmp(p->db, q->db.ptr, n) != 0) {
        memcpy(p->db, q->db.ptr, n);
        p->db_len = n;
        if (n) {
            cdch_put_str(out, "use ");
            put_quoted_ident(out, q->db);
            cdch_put_str(out, DELIM "\n");
        }
    }
}

/* The FLAGS2 options that changed since the last query, in one SET. */
static void text_query_flags2(cdch_printer *p, cdch_buf *out, uint32_t f2)
{
    uint32_t changed = p->flags2_inited ? (f2 ^ p->flags2) : 0xffffffffu;
    if (changed &
        (OPTION_NO_FOREIGN_KEY_CHECKS | OPTION_AUTO_IS_NULL | OPTION_RELAXED_UNIQUE_CHECKS | OPTION_NOT_AUTOCOMMIT)) {
        const char *sep = "SET ";
        if (changed & OPTION_NO_FOREIGN_KEY_CHECKS) {
            cdch_buf_printf(out, "%s@@session.foreign_key_checks=%d", sep, !(f2 & OPTION_NO_FOREIGN_KEY_CHECKS));
            sep = ", ";
        }
        if (changed & OPTION_AUTO_IS_NULL) {
            cdch_buf_printf(out, "%s@@session.sql_auto_is_null=%d", sep, !!(f2 & OPTION_AUTO_IS_NULL));
            sep = ", ";
        }
        if (changed & OPTION_RELAXED_UNIQUE_CHECKS) {
            cdch_buf_printf(out, "%s@@session.unique_checks=%d", sep, !(f2 & OPTION_RELAXED_UNIQUE_CHECKS));
            sep = ", ";
        }
        if (changed & OPTION_NOT_AUTOCOMMIT)
            cdch_buf_printf(out, "%s@@session.autocommit=%d", sep, !(f2 & OPTION_NOT_AUTOCOMMIT));
        cdch_put_str(out, DELIM "\n");
    }
    p->flags2 = f2;
    p->flags2_inited = true;
}

/* auto_increment_increment/offset (1, 1 when the event does not carry them) */
static void text_query_auto_inc(cdch_printer *p, cdch_buf *out, const cdch_query *q)
{
    uint16_t inc = 1, off = 1;
    const cdch_status_var *s = find_status(q, CDCH_Q_AUTO_INCREMENT);
    if (s && s->value.ptr) {
        cdch_cursor c = cdch_cur(s->value.ptr, s->value.len);
        uint64_t v = cdch_get_le16(&c), v2 = cdch_get_le16(&c);
        if (cdch_cur_ok(&c)) {
            inc = (uint16_t)v;
            off = (uint16_t)v2;
        }
    }
    if (!p->auto_inc_inited || inc != p->auto_inc_increment || off != p->auto_inc_offset)
        cdch_buf_printf(out, "SET @@session.auto_increment_increment=%u, @@session.auto_increment_offset=%u" DELIM "\n",
                        inc, off);
    p->auto_inc_increment = inc;
    p->auto_inc_offset = off;
    p->auto_inc_inited = true;
}

/* client character set and connection/server collations */
static void text_query_charset(cdch_printer *p, cdch_buf *out, const cdch_query *q)
{
    const cdch_status_var *s = find_status(q, CDCH_Q_CHARSET);
    if (!s || !s->value.ptr || s->value.len < 6)
        return;
    if (p->charset_inited && memcmp(p->charset, s->value.ptr, 6) == 0)
        return;
    cdch_cursor c = cdch_cur(s->value.ptr, 6);
    unsigned client = cdch_get_le16(&c), conn = cdch_get_le16(&c), server = cdch_get_le16(&c);
    const char *cs = charset_of_collation(client);
    if (cs)
        cdch_buf_printf(out, "/*!\\C %s */" DELIM "\n", cs);
    cdch_buf_printf(out,
                    "SET @@session.character_set_client=%u,@@session.collation_connection=%u,"
                    "@@session.collation_server=%u" DELIM "\n",
                    client, conn, server);
    memcpy(p->charset, s->value.ptr, 6);
    p->charset_inited = true;
}

static void text_query_time_zone(cdch_printer *p, cdch_buf *out, const cdch_query *q)
{
    const cdch_status_var *s = find_status(q, CDCH_Q_TIME_ZONE);
    if (!s || !s->value.ptr)
        return;
    cdch_cursor c = cdch_cur(s->value.ptr, s->value.len);
    uint8_t n = cdch_get_u8(&c);
    const uint8_t *tz = cdch_get_bytes(&c, n);
    if (tz && (n != p->time_zone_len || memcmp(tz, p->time_zone, n) != 0)) {
        cdch_put_str(out, "SET @@session.time_zone='");
        cdch_put_bytes(out, tz, n);
        cdch_put_str(out, "'" DELIM "\n");
        memcpy(p->time_zone, tz, n);
        p->time_zone_len = n;
    }
}

/* lc_time_names, collation_database and the 8.0 session variables */
static void text_query_session_ids(cdch_printer *p, cdch_buf *out, const cdch_query *q)
{
    uint64_t v;
    if (!status_uint(q, CDCH_Q_LC_TIME_NAMES, 2, &v))
        v = 0;
    if ((int64_t)v != p->lc_time_names) {
        cdch_buf_printf(out, "SET @@session.lc_time_names=%" PRIu64 DELIM "\n", v);
        p->lc_time_names = (int64_t)v;
    }

    if (!status_uint(q, CDCH_Q_CHARSET_DATABASE, 2, &v))
        v = 0;
    if ((int64_t)v != p->charset_database) {
        if (v)
            cdch_buf_printf(out, "SET @@session.collation_database=%" PRIu64 DELIM "\n", v);
        else
            cdch_put_str(out, "SET @@session.collation_database=DEFAULT" DELIM "\n");
        p->charset_database = (int64_t)v;
    }

    if (status_uint(q, CDCH_Q_EXPLICIT_DEFAULTS_FOR_TIMESTAMP, 1, &v) && (int64_t)v != p->explicit_defaults_ts) {
        cdch_buf_printf(out, "/*!80016 SET @@session.explicit_defaults_for_timestamp=%" PRIu64 "*/" DELIM "\n", v);
        p->explicit_defaults_ts = (int64_t)v;
    }
    if (status_uint(q, CDCH_Q_DEFAULT_COLLATION_FOR_UTF8MB4, 2, &v) && (int64_t)v != p->default_collation_utf8mb4) {
        cdch_buf_printf(out, "/*!80011 SET @@session.default_collation_for_utf8mb4=%" PRIu64 "*/" DELIM "\n", v);
        p->default_collation_utf8mb4 = (int64_t)v;
    }
    /* mysqlbinlog prints these two whenever the event carries them */
    if (status_uint(q, CDCH_Q_SQL_REQUIRE_PRIMARY_KEY, 1, &v))
        cdch_buf_printf(out, "/*!80013 SET @@session.sql_require_primary_key=%" PRIu64 "*/" DELIM "\n", v);
    if (status_uint(q, CDCH_Q_DEFAULT_TABLE_ENCRYPTION, 1, &v))
        cdch_buf_printf(out, "/*!80016 SET @@session.default_table_encryption=%" PRIu64 "*/" DELIM "\n", v);
}

/* A QUERY event as mysqlbinlog prints it: the session settings that changed
 * since the previous query (the printer remembers them), then the text. */
static void text_query(cdch_printer *p, cdch_buf *out, const cdch_event *ev)
{
    const cdch_query *q = &ev->u.query;
    uint64_t v;
    cdch_buf_printf(out, "\tQuery\tthread_id=%" PRIu32 "\texec_time=%" PRIu32 "\terror_code=%u", q->thread_id,
                    q->exec_time, q->error_code);
    if (status_uint(q, CDCH_Q_DDL_LOGGED_WITH_XID, 8, &v))
        cdch_buf_printf(out, "\tXid = %" PRIu64, v);
    cdch_put_u8(out, '\n');

    text_query_use_db(p, out, ev);

    if (status_uint(q, CDCH_Q_MICROSECONDS, 3, &v))
        cdch_buf_printf(out, "SET TIMESTAMP=%" PRIu32 ".%06u" DELIM "\n", ev->h.timestamp, (unsigned)v);
    else
        cdch_buf_printf(out, "SET TIMESTAMP=%" PRIu32 DELIM "\n", ev->h.timestamp);

    if (!p->thread_id_printed ||
        ((ev->h.flags & CDCH_LOG_EVENT_THREAD_SPECIFIC_F) && q->thread_id != p->thread_id)) {
        cdch_buf_printf(out, "SET @@session.pseudo_thread_id=%" PRIu32 DELIM "\n", q->thread_id);
        p->thread_id = q->thread_id;
        p->thread_id_printed = true;
    }

    if (status_uint(q, CDCH_Q_FLAGS2, 4, &v))
        text_query_flags2(p, out, (uint32_t)v);

    if (status_uint(q, CDCH_Q_SQL_MODE, 8, &v)) {
        if (!p->sql_mode_inited || v != p->sql_mode)
            cdch_buf_printf(out, "SET @@session.sql_mode=%" PRIu64 DELIM "\n", v);
        p->sql_mode = v;
        p->sql_mode_inited = true;
    }

    text_query_auto_inc(p, out, q);
    text_query_charset(p, out, q);
    text_query_time_zone(p, out, q);
    text_query_session_ids(p, out, q);

    put_bytes(out, q->query);
    cdch_put_str(out, "\n" DELIM "\n");
}

static void text_gtid(cdch_buf *out, const cdch_event *ev)
{
    const cdch_gtid_ev *g = &ev->u.gtid;
    const char *name = ev->h.type == CDCH_EV_ANONYMOUS_GTID ? "Anonymous_GTID"
                       : ev->h.type == CDCH_EV_GTID_TAGGED  ? "GTID_TAGGED"
                                                            : "GTID";
    bool rbr_only = !(g->gtid_flags & 1);
    cdch_buf_printf(out,
                    "\t%s\tlast_committed=%" PRId64 "\tsequence_number=%" PRId64 "\trbr_only=%s"
                    "\toriginal_committed_timestamp=%" PRIu64 "\timmediate_commit_timestamp=%" PRIu64
                    "\ttransaction_length=%" PRIu64,
                    name, g->last_committed, g->sequence_number, rbr_only ? "yes" : "no", g->original_commit_ts,
                    g->immediate_commit_ts, g->transaction_length);
    if (g->commit_group_ticket)
        cdch_buf_printf(out, "\tcommit_group_ticket=%" PRIu64, g->commit_group_ticket);
    cdch_put_u8(out, '\n');
    if (rbr_only)
        cdch_put_str(out, "/*!50718 SET TRANSACTION ISOLATION LEVEL READ COMMITTED*/" DELIM "\n");
    if (g->original_commit_ts) {
        cdch_buf_printf(out, "# original_commit_timestamp=%" PRIu64 " (", g->original_commit_ts);
        put_usec_time(out, g->original_commit_ts);
        cdch_put_str(out, ")\n");
    }
    if (g->immediate_commit_ts) {
        cdch_buf_printf(out, "# immediate_commit_timestamp=%" PRIu64 " (", g->immediate_commit_ts);
        put_usec_time(out, g->immediate_commit_ts);
        cdch_put_str(out, ")\n");
    }
    if (g->original_commit_ts)
        cdch_buf_printf(out, "/*!80001 SET @@session.original_commit_timestamp=%" PRIu64 "*/" DELIM "\n",
                        g->original_commit_ts);
    if (g->original_server_version)
        cdch_buf_printf(out, "/*!80014 SET @@session.original_server_version=%" PRIu32 "*/" DELIM "\n",
                        g->original_server_version);
    if (g->immediate_server_version)
        cdch_buf_printf(out, "/*!80014 SET @@session.immediate_server_version=%" PRIu32 "*/" DELIM "\n",
                        g->immediate_server_version);
    cdch_put_str(out, "SET @@SESSION.GTID_NEXT= '");
    put_gtid_text(out, ev);
    cdch_put_str(out, "'" DELIM "\n");
}

static void text_event(cdch_printer *p, cdch_buf *out, const cdch_event *ev, uint64_t pos, uint64_t end_log_pos,
                       uint64_t hex_base, int depth);

static void text_payload(cdch_printer *p, cdch_buf *out, const cdch_event *ev, uint64_t pos, int depth)
{
    const cdch_payload *pl = &ev->u.payload;
    cdch_buf_printf(out, "\tTransaction_Payload\tpayload_size=%" PRIu64 "\tcompression_type=%s", pl->payload_size,
                    compression_name(pl->compression_type));
    if (pl->has_uncompressed_size)
        cdch_buf_printf(out, "\tuncompressed_size=%" PRIu64, pl->uncompressed_size);
    cdch_put_u8(out, '\n');
    cdch_put_str(out, "# Start of compressed events.\n");
    for (size_t i = 0; pl->inner && i < pl->n_inner; i++) {
        uint64_t ioff = pl->inner_offset ? pl->inner_offset[i] : 0;
        text_event(p, out, &pl->inner[i], pos, ev->h.log_pos, ioff, depth + 1);
    }
    cdch_put_str(out, "# End of compressed events.\n");
}

static cdch_bytes event_body(const cdch_event *ev)
{
    /* For types without a model the decoder leaves the body in u.body;
     * if it did not, take the raw bytes between header and checksum. */
    if (ev->u.body.ptr)
        return ev->u.body;
    cdch_bytes b = {NULL, 0};
    size_t tail = ev->has_checksum ? CDCH_CHECKSUM_LEN : 0;
    if (ev->raw.ptr && ev->raw.len >= CDCH_HEADER_LEN + tail) {
        b.ptr = ev->raw.ptr + CDCH_HEADER_LEN;
        b.len = ev->raw.len - CDCH_HEADER_LEN - tail;
    }
    return b;
}

static void text_fde(cdch_buf *out, const cdch_event *ev)
{
    const cdch_fde *f = &ev->u.fde;
    char ver[sizeof f->server_version];
    fde_version(f, ver);
    cdch_buf_printf(out, "\tStart: binlog v %u, server v %s created ", f->binlog_version, ver);
    put_short_time(out, ev->h.timestamp);
    if (f->create_timestamp)
        cdch_put_str(out, " at startup");
    cdch_put_u8(out, '\n');
    if (ev->h.flags & CDCH_LOG_EVENT_BINLOG_IN_USE_F)
        cdch_put_str(out, "# Warning: this binlog is either in use or was not closed properly.\n");
}

static void text_table_map(cdch_buf *out, const cdch_table_map *tm)
{
    cdch_put_str(out, "\tTable_map: ");
    put_quoted_ident(out, tm->db);
    cdch_put_u8(out, '.');
    put_quoted_ident(out, tm->table);
    cdch_buf_printf(out, " mapped to number %" PRIu64 "\n", tm->table_id);
    cdch_buf_printf(out, "# has_generated_invisible_primary_key=%d\n", (tm->flags & TM_GENERATED_INVISIBLE_PK_F) ? 1 : 0);
}

/* mysqlbinlog prints the XA statement twice: as the event info, then as SQL. */
static void text_xa_prepare(cdch_buf *out, const cdch_xa_prepare *x)
{
    size_t gl, bl;
    xa_parts(x, &gl, &bl);
    for (int pass = 0; pass < 2; pass++) {
        cdch_put_str(out, pass ? "XA " : "\tXA ");
        cdch_put_str(out, x->one_phase ? "COMMIT X'" : "PREPARE X'");
        cdch_put_hex(out, x->data.ptr, gl);
        cdch_put_str(out, "',X'");
        cdch_put_hex(out, x->data.ptr ? x->data.ptr + gl : NULL, bl);
        cdch_buf_printf(out, "',%" PRId32 "%s", x->format_id, x->one_phase ? " ONE PHASE" : "");
        cdch_put_str(out, pass ? DELIM "\n" : "\n");
    }
}

/* The query text as a comment: "# " again after every newline. */
static void text_rows_query(cdch_buf *out, cdch_bytes q)
{
    cdch_put_str(out, "\tRows_query\n# ");
    for (size_t i = 0; q.ptr && i < q.len; i++) {
        cdch_put_u8(out, q.ptr[i]);
        if (q.ptr[i] == '\n')
            cdch_put_str(out, "# ");
    }
    cdch_put_u8(out, '\n');
}

static void text_event(cdch_printer *p, cdch_buf *out, const cdch_event *ev, uint64_t pos, uint64_t end_log_pos,
                       uint64_t hex_base, int depth)
{
    cdch_buf_printf(out, "# at %" PRIu64 "\n#", pos);
    put_short_time(out, ev->h.timestamp);
    cdch_buf_printf(out, " server id %" PRIu32 "  end_log_pos %" PRIu64 " ", ev->h.server_id, end_log_pos);
    if (ev->has_checksum)
        cdch_buf_printf(out, "CRC32 0x%08" PRIx32 " ", ev->checksum);
    if (p->o.hexdump && ev->raw.ptr) {
        cdch_put_u8(out, '\n');
        put_hexdump(out, ev->raw.ptr, ev->raw.len, hex_base);
        cdch_put_str(out, "# ");
    }
    int t = ev->h.type;
    switch (t) {
    case CDCH_EV_FORMAT_DESCRIPTION:
        text_fde(out, ev);
        break;
    case CDCH_EV_ROTATE:
        cdch_put_str(out, "\tRotate to ");
        put_bytes(out, ev->u.rotate.next_file);
        cdch_buf_printf(out, "  pos: %" PRIu64 "\n", ev->u.rotate.position);
        break;
    case CDCH_EV_STOP:
        cdch_put_str(out, "\tStop\n");
        break;
    case CDCH_EV_PREVIOUS_GTIDS: {
        cdch_put_str(out, "\tPrevious-GTIDs\n# ");
        size_t at = out->len;
        cdch_gtid_set_to_text(&ev->u.prev_gtids, out);
        if (out->len == at)
            cdch_put_str(out, "[empty]");
        cdch_put_u8(out, '\n');
        break;
    }
    case CDCH_EV_GTID:
    case CDCH_EV_ANONYMOUS_GTID:
    case CDCH_EV_GTID_TAGGED:
        text_gtid(out, ev);
        break;
    case CDCH_EV_QUERY:
        text_query(p, out, ev);
        break;
    case CDCH_EV_TABLE_MAP:
        text_table_map(out, &ev->u.table_map);
        break;
    case CDCH_EV_WRITE_ROWS:
    case CDCH_EV_UPDATE_ROWS:
    case CDCH_EV_DELETE_ROWS:
    case CDCH_EV_PARTIAL_UPDATE_ROWS:
        text_rows(out, ev);
        break;
    case CDCH_EV_XID:
        cdch_buf_printf(out, "\tXid = %" PRIu64 "\nCOMMIT" DELIM "\n", ev->u.xid);
        break;
    case CDCH_EV_XA_PREPARE:
        text_xa_prepare(out, &ev->u.xa);
        break;
    case CDCH_EV_ROWS_QUERY:
        text_rows_query(out, ev->u.rows_query.text);
        break;
    case CDCH_EV_INCIDENT:
        cdch_buf_printf(out, "\tIncident\n# Incident: code %u: ", ev->u.incident.code);
        put_bytes(out, ev->u.incident.message);
        cdch_put_str(out, "\nRELOAD DATABASE; # Shall generate syntax error\n");
        break;
    case CDCH_EV_HEARTBEAT:
    case CDCH_EV_HEARTBEAT_V2:
        cdch_buf_printf(out, "\t%s\tlog_file=", cdch_event_type_name(t));
        put_bytes(out, ev->u.heartbeat.log_file);
        cdch_buf_printf(out, "\tposition=%" PRIu64 "\n", ev->u.heartbeat.position);
        break;
    case CDCH_EV_TRANSACTION_PAYLOAD:
        if (depth == 0) {
            text_payload(p, out, ev, pos, depth);
            break;
        }
        /* a payload inside a payload is invalid; never recurse */
        /* fall through */
    default:
        if (type_is_known(t))
            cdch_buf_printf(out, "\t%s\t(%zu body bytes, not decoded)\n", cdch_event_type_name(t),
                            event_body(ev).len);
        else
            cdch_buf_printf(out, "\tUnknown event type %d, size %" PRIu32 "\n", t, ev->h.event_size);
        break;
    }
}

/* ------------------------------------------------------------ JSON form */

static void json_image(cdch_buf *out, const cdch_rows *r, const cdch_table_map *tm, const cdch_value *img)
{
    if (!img) {
        cdch_put_str(out, "null");
        return;
    }
    cdch_put_u8(out, '{');
    bool first = true;
    for (size_t i = 0; i < r->ncols; i++) {
        const cdch_value *v = &img[i];
        if (v->kind == CDCH_V_ABSENT)
            continue;
        const cdch_coldef *col = col_of(tm, i);
        if (!first)
            cdch_put_u8(out, ',');
        first = false;
        if (col->name) {
            json_cstr(out, col->name);
        } else {
            char key[32];
            snprintf(key, sizeof key, "@%zu", i + 1);
            json_cstr(out, key);
        }
        cdch_put_u8(out, ':');
        cdch_value_to_json(col, v, out);
    }
    cdch_put_u8(out, '}');
}

static void json_rows(cdch_buf *out, const cdch_event *ev)
{
    const cdch_rows *r = &ev->u.rows;
    const cdch_table_map *tm = r->tm;
    cdch_buf_printf(out, "{\"table_id\":%" PRIu64 ",\"flags\":%u,\"db\":", r->table_id, r->flags);
    if (tm)
        json_bytes_str(out, tm->db);
    else
        cdch_put_str(out, "null");
    cdch_put_str(out, ",\"table\":");
    if (tm)
        json_bytes_str(out, tm->table);
    else
        cdch_put_str(out, "null");
    cdch_put_str(out, ",\"rows\":[");
    for (size_t k = 0; r->rows && k < r->nrows; k++) {
        const cdch_row *row = &r->rows[k];
        if (k)
            cdch_put_u8(out, ',');
        cdch_put_str(out, "{\"before\":");
        json_image(out, r, tm, row->before);
        cdch_put_str(out, ",\"after\":");
        json_image(out, r, tm, row->after);
        if (ev->h.type == CDCH_EV_PARTIAL_UPDATE_ROWS)
            cdch_buf_printf(out, ",\"value_options\":%" PRIu64, row->value_options);
        cdch_put_u8(out, '}');
    }
    cdch_put_str(out, "]}");
}

static void json_query(cdch_buf *out, const cdch_query *q)
{
    cdch_buf_printf(out, "{\"thread_id\":%" PRIu32 ",\"exec_time\":%" PRIu32 ",\"error_code\":%u,\"db\":",
                    q->thread_id, q->exec_time, q->error_code);
    json_bytes_str(out, q->db);
    cdch_put_str(out, ",\"query\":");
    json_bytes_str(out, q->query);
    cdch_put_str(out, ",\"status_vars\":[");
    for (size_t i = 0; q->status && i < q->n_status; i++) {
        const cdch_status_var *s = &q->status[i];
        if (i)
            cdch_put_u8(out, ',');
        cdch_buf_printf(out, "{\"code\":%u,\"name\":\"%s\",\"hex\":\"", s->code, status_name(s->code));
        if (s->value.ptr)
            cdch_put_hex(out, s->value.ptr, s->value.len);
        cdch_put_str(out, "\"}");
    }
    cdch_put_str(out, "]}");
}

static void json_table_map(cdch_buf *out, const cdch_table_map *tm)
{
    cdch_buf_printf(out, "{\"table_id\":%" PRIu64 ",\"flags\":%u,\"db\":", tm->table_id, tm->flags);
    json_bytes_str(out, tm->db);
    cdch_put_str(out, ",\"table\":");
    json_bytes_str(out, tm->table);
    cdch_put_str(out, ",\"columns\":[");
    for (size_t i = 0; tm->cols && i < tm->ncols; i++) {
        const cdch_coldef *c = &tm->cols[i];
        if (i)
            cdch_put_u8(out, ',');
        cdch_put_str(out, "{\"name\":");
        if (c->name)
            json_cstr(out, c->name);
        else
            cdch_put_str(out, "null");
        cdch_buf_printf(out, ",\"type\":%u,\"type_name\":\"%s\",\"meta\":%u,\"nullable\":%s,\"unsigned\":%s}",
                        c->type, cdch_field_type_name(c->real_type ? c->real_type : c->type), c->meta,
                        c->nullable ? "true" : "false", c->is_unsigned ? "true" : "false");
    }
    cdch_put_str(out, "]}");
}

static void json_event(cdch_printer *p, cdch_buf *out, const cdch_event *ev, uint64_t offset, bool inner,
                       int depth);

static void json_fde(cdch_buf *out, const cdch_fde *f)
{
    char ver[sizeof f->server_version];
    fde_version(f, ver);
    cdch_buf_printf(out, "{\"binlog_version\":%u,\"server_version\":", f->binlog_version);
    json_cstr(out, ver);
    cdch_buf_printf(out, ",\"create_timestamp\":%" PRIu32 ",\"common_header_len\":%u,\"post_header_len\":[",
                    f->create_timestamp, f->common_header_len);
    unsigned n = f->n_post_header < 256 ? f->n_post_header : 256;
    for (unsigned i = 0; i < n; i++)
        cdch_buf_printf(out, i ? ",%u" : "%u", f->post_header_len[i]);
    cdch_buf_printf(out, "],\"checksum_alg\":%u}", f->checksum_alg);
}

static void json_gtid(cdch_buf *out, const cdch_event *ev)
{
    const cdch_gtid_ev *g = &ev->u.gtid;
    cdch_buf gt = CDCH_BUF_INIT;
    put_gtid_text(&gt, ev);
    cdch_put_str(out, "{\"gtid\":");
    cdch_put_json_str(out, gt.data, gt.len, CDCH_JSON_UTF8); /* a decoded tag may hold any byte */
    cdch_buf_free(&gt);
    cdch_buf_printf(out,
                    ",\"flags\":%u,\"last_committed\":%" PRId64 ",\"sequence_number\":%" PRId64
                    ",\"immediate_commit_timestamp\":%" PRIu64 ",\"original_commit_timestamp\":%" PRIu64
                    ",\"transaction_length\":%" PRIu64 ",\"immediate_server_version\":%" PRIu32
                    ",\"original_server_version\":%" PRIu32,
                    g->gtid_flags, g->last_committed, g->sequence_number, g->immediate_commit_ts,
                    g->original_commit_ts, g->transaction_length, g->immediate_server_version,
                    g->original_server_version);
    if (g->commit_group_ticket)
        cdch_buf_printf(out, ",\"commit_group_ticket\":%" PRIu64, g->commit_group_ticket);
    cdch_put_u8(out, '}');
}

static void json_xa_prepare(cdch_buf *out, const cdch_xa_prepare *x)
{
    size_t gl, bl;
    xa_parts(x, &gl, &bl);
    cdch_buf_printf(out, "{\"one_phase\":%u,\"format_id\":%" PRId32 ",\"gtrid_hex\":\"", x->one_phase,
                    x->format_id);
    cdch_put_hex(out, x->data.ptr, gl);
    cdch_put_str(out, "\",\"bqual_hex\":\"");
    cdch_put_hex(out, x->data.ptr ? x->data.ptr + gl : NULL, bl);
    cdch_put_str(out, "\"}");
}

/* A TRANSACTION_PAYLOAD with its inner events (depth + 1). */
static void json_payload(cdch_printer *p, cdch_buf *out, const cdch_payload *pl, int depth)
{
    cdch_buf_printf(out,
                    "{\"compression_type\":%" PRIu64 ",\"compression\":\"%s\",\"payload_size\":%" PRIu64
                    ",\"uncompressed_size\":",
                    pl->compression_type, compression_name(pl->compression_type), pl->payload_size);
    if (pl->has_uncompressed_size)
        cdch_buf_printf(out, "%" PRIu64, pl->uncompressed_size);
    else
        cdch_put_str(out, "null");
    cdch_put_str(out, ",\"events\":[");
    for (size_t i = 0; pl->inner && i < pl->n_inner; i++) {
        if (i)
            cdch_put_u8(out, ',');
        json_event(p, out, &pl->inner[i], pl->inner_offset ? pl->inner_offset[i] : 0, true, depth + 1);
    }
    cdch_put_str(out, "]}");
}

static void json_body(cdch_printer *p, cdch_buf *out, const cdch_event *ev, int depth)
{
    int t = ev->h.type;
    switch (t) {
    case CDCH_EV_FORMAT_DESCRIPTION:
        json_fde(out, &ev->u.fde);
        break;
    case CDCH_EV_ROTATE:
        cdch_buf_printf(out, "{\"position\":%" PRIu64 ",\"next_file\":", ev->u.rotate.position);
        json_bytes_str(out, ev->u.rotate.next_file);
        cdch_put_u8(out, '}');
        break;
    case CDCH_EV_STOP:
        cdch_put_str(out, "{}");
        break;
    case CDCH_EV_PREVIOUS_GTIDS: {
        cdch_buf tmp = CDCH_BUF_INIT;
        cdch_gtid_set_to_text(&ev->u.prev_gtids, &tmp);
        cdch_put_str(out, "{\"gtid_set\":");
        cdch_put_json_str(out, tmp.data, tmp.len, CDCH_JSON_UTF8);
        cdch_put_u8(out, '}');
        cdch_buf_free(&tmp);
        break;
    }
    case CDCH_EV_GTID:
    case CDCH_EV_ANONYMOUS_GTID:
    case CDCH_EV_GTID_TAGGED:
        json_gtid(out, ev);
        break;
    case CDCH_EV_QUERY:
        json_query(out, &ev->u.query);
        break;
    case CDCH_EV_TABLE_MAP:
        json_table_map(out, &ev->u.table_map);
        break;
    case CDCH_EV_WRITE_ROWS:
    case CDCH_EV_UPDATE_ROWS:
    case CDCH_EV_DELETE_ROWS:
    case CDCH_EV_PARTIAL_UPDATE_ROWS:
        json_rows(out, ev);
        break;
    case CDCH_EV_XID:
        cdch_buf_printf(out, "{\"xid\":%" PRIu64 "}", ev->u.xid);
        break;
    case CDCH_EV_XA_PREPARE:
        json_xa_prepare(out, &ev->u.xa);
        break;
    case CDCH_EV_ROWS_QUERY:
        cdch_put_str(out, "{\"query\":");
        json_bytes_str(out, ev->u.rows_query.text);
        cdch_put_u8(out, '}');
        break;
    case CDCH_EV_INCIDENT:
        cdch_buf_printf(out, "{\"code\":%u,\"message\":", ev->u.incident.code);
        json_bytes_str(out, ev->u.incident.message);
        cdch_put_u8(out, '}');
        break;
    case CDCH_EV_HEARTBEAT:
    case CDCH_EV_HEARTBEAT_V2:
        cdch_put_str(out, "{\"log_file\":");
        json_bytes_str(out, ev->u.heartbeat.log_file);
        cdch_buf_printf(out, ",\"position\":%" PRIu64 "}", ev->u.heartbeat.position);
        break;
    case CDCH_EV_TRANSACTION_PAYLOAD:
        if (depth == 0) {
            json_payload(p, out, &ev->u.payload, depth);
            break;
        }
        /* a payload inside a payload is invalid; never recurse */
        /* fall through */
    default: {
        cdch_bytes b = event_body(ev);
        cdch_buf_printf(out, "{\"body_len\":%zu,\"body_hex\":\"", b.len);
        if (b.ptr)
            cdch_put_hex(out, b.ptr, b.len);
        cdch_put_str(out, "\"}");
        break;
    }
    }
}

static void json_event(cdch_printer *p, cdch_buf *out, const cdch_event *ev, uint64_t offset, bool inner,
                       int depth)
{
    cdch_put_u8(out, '{');
    if (!inner && p->o.file) {
        cdch_put_str(out, "\"file\":");
        json_cstr(out, p->o.file);
        cdch_put_u8(out, ',');
    }
    cdch_buf_printf(out, "\"%s\":%" PRIu64 ",\"type\":%u,\"type_name\":", inner ? "inner_offset" : "offset", offset,
                    ev->h.type);
    json_cstr(out, cdch_event_type_name(ev->h.type));
    cdch_buf_printf(out,
                    ",\"header\":{\"timestamp\":%" PRIu32 ",\"server_id\":%" PRIu32 ",\"event_size\":%" PRIu32
                    ",\"log_pos\":%" PRIu32 ",\"flags\":%u},\"checksum\":",
                    ev->h.timestamp, ev->h.server_id, ev->h.event_size, ev->h.log_pos, ev->h.flags);
    if (ev->has_checksum)
        cdch_buf_printf(out, "\"0x%08" PRIx32 "\"", ev->checksum);
    else
        cdch_put_str(out, "null");
    if (p->o.hexdump && ev->raw.ptr) {
        cdch_put_str(out, ",\"raw_hex\":\"");
        cdch_put_hex(out, ev->raw.ptr, ev->raw.len);
        cdch_put_u8(out, '"');
    }
    cdch_put_str(out, ",\"body\":");
    json_body(p, out, ev, depth);
    cdch_put_u8(out, '}');
}

/* ------------------------------------------------------------ entry */

void cdch_printer_event(cdch_printer *p, const cdch_event *ev, uint64_t offset, cdch_buf *out)
{
    if (p->o.json) {
        json_event(p, out, ev, offset, false, 0);
        cdch_put_u8(out, '\n');
    } else {
        text_event(p, out, ev, offset, ev->h.log_pos, offset, 0);
    }
}
