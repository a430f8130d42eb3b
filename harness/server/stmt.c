/* stmt.c — server-side prepared statements of the fake primary.
 *
 * Owns: each connection's prepared statements (srv_stmt list).
 * COM_STMT_PREPARE counts the '?' placeholders and describes the result
 * columns by running the statement through query.c in describe mode (no
 * side effects); COM_STMT_EXECUTE decodes the bound parameters (binary
 * protocol), substitutes them as SQL literals and runs the statement
 * through the same pattern table, answering with binary-protocol rows.
 * COM_STMT_SEND_LONG_DATA appends to a parameter, COM_STMT_RESET clears
 * that, COM_STMT_CLOSE drops the statement. Cursors are not opened
 * (rows are always sent with the execute response), so COM_STMT_FETCH
 * answers ER_STMT_HAS_NO_OPEN_CURSOR.
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cursor.h"
#include "mysql_types.h"
#include "query_internal.h"
#include "xalloc.h"

struct srv_stmt {
    srv_stmt *next;
    uint32_t id;
    char *sql;            /* comments stripped, one statement */
    size_t nparams;
    uint16_t *types;      /* type | 0x8000 unsigned, from the last execute that bound them */
    cdch_buf *long_data;  /* per parameter */
    bool *has_long;
    bool types_bound;
};

static void stmt_free(srv_stmt *s)
{
    if (!s)
        return;
    for (size_t i = 0; i < s->nparams; i++)
        cdch_buf_free(&s->long_data[i]);
    free(s->long_data);
    free(s->has_long);
    free(s->types);
    free(s->sql);
    free(s);
}

void srv_stmt_free_all(srv_conn *c)
{
    while (c->stmts) {
        srv_stmt *n = c->stmts->next;
        stmt_free(c->stmts);
        c->stmts = n;
    }
}

static srv_stmt *find(srv_conn *c, uint32_t id)
{
    for (srv_stmt *s = c->stmts; s; s = s->next)
        if (s->id == id)
            return s;
    return NULL;
}

/* Offsets of the '?' placeholders outside quotes. */
static size_t placeholders(const char *sql, size_t *pos, size_t cap)
{
    size_t n = 0;
    for (size_t i = 0; sql[i]; i++) {
        char ch = sql[i];
        if (ch == '\'' || ch == '"' || ch == '`') {
            for (i++; sql[i] && sql[i] != ch; i++)
                if (sql[i] == '\\' && ch != '`' && sql[i + 1])
                    i++;
            if (!sql[i])
                break;
            continue;
        }
        if (ch == '?') {
            if (pos && n < cap)
                pos[n] = i;
            n++;
        }
    }
    return n;
}

int srv_stmt_prepare(srv_conn *c, const uint8_t *p, size_t n)
{
    c->queries++;
    srv_stat_add(c->srv, SRV_STAT_QUERIES, 1);
    if (c->srv->opts.log_queries)
        fprintf(stderr, "cdcharness serve: [%u] prepare: %.*s%s\n", c->id, (int)(n > 2000 ? 2000 : n),
                (const char *)p, n > 2000 ? "..." : "");
    cdch_arena a = CDCH_ARENA_INIT;
    char **stmts;
    const char *unclosed;
    size_t ns = sql_split((const char *)p, n, &a, &stmts, &unclosed);
    if (ns != 1) {
        cdch_arena_free(&a);
        return ns == 0 ? conn_err(c, 1065, "42000", "Query was empty")
                       : conn_err(c, 1064, "42000", "You have an error in your SQL syntax: a prepared statement "
                                                    "holds one statement");
    }
    srv_stmt *s = cdch_xcalloc(1, sizeof *s);
    s->sql = cdch_xstrdup(stmts[0]);
    cdch_arena_free(&a);
    s->nparams = placeholders(s->sql, NULL, 0);
    s->types = cdch_xcalloc(s->nparams + 1, sizeof *s->types);
    s->long_data = cdch_xcalloc(s->nparams + 1, sizeof *s->long_data);
    s->has_long = cdch_xcalloc(s->nparams + 1, sizeof *s->has_long);

    srv_result res;
    srv_result_init(&res);
    srv_query_exec(c, s->sql, strlen(s->sql), true, &res);
    if (res.kind == SRV_RES_ERR && (res.err_code == 1064 || res.err_code == 1146 || res.err_code == 1049 ||
                                    res.err_code == 1054)) {
        /* MySQL refuses these at prepare time too */
        int r = conn_err(c, res.err_code, res.sqlstate, "%s", res.msg);
        srv_result_free(&res);
        stmt_free(s);
        return r;
    }
    size_t ncols = res.kind == SRV_RES_ROWS ? res.rs.ncols : 0;
    s->id = ++c->next_stmt_id;
    s->next = c->stmts;
    c->stmts = s;

    cdch_buf b = CDCH_BUF_INIT;
    cdch_put_u8(&b, 0x00);
    cdch_put_le32(&b, s->id);
    cdch_put_le16(&b, (uint16_t)ncols);
    cdch_put_le16(&b, (uint16_t)s->nparams);
    cdch_put_u8(&b, 0);
    cdch_put_le16(&b, 0);
    int r = conn_write(c, b.data, b.len);
    cdch_buf_free(&b);
    if (r == 0 && s->nparams) {
        srv_col *pc = cdch_xcalloc(s->nparams, sizeof *pc);
        for (size_t i = 0; i < s->nparams; i++) {
            pc[i].name = "?";
            pc[i].org_name = pc[i].table = pc[i].org_table = pc[i].db = "";
            pc[i].type = CDCH_T_VAR_STRING;
            pc[i].charset = 63;
        }
        r = srv_send_coldefs(c, pc, s->nparams);
        free(pc);
    }
    if (r == 0 && ncols)
        r = srv_send_coldefs(c, res.rs.cols, ncols);
    srv_result_free(&res);
    return r;
}

static void put_literal_str(cdch_buf *o, const uint8_t *p, size_t n)
{
    cdch_put_u8(o, '\'');
    for (size_t i = 0; i < n; i++) {
        uint8_t ch = p[i];
        if (ch == '\'' || ch == '\\') {
            cdch_put_u8(o, '\\');
            cdch_put_u8(o, ch);
        } else if (ch == 0) {
            cdch_put_str(o, "\\0");
        } else {
            cdch_put_u8(o, ch);
        }
    }
    cdch_put_u8(o, '\'');
}

/* The formatters below read one binary-protocol value of their type
 * family from cur and write it as SQL text into b. */

static void fmt_int(char *b, size_t cap, uint8_t t, bool uns, cdch_cursor *cur)
{
    switch (t) {
    case CDCH_T_TINY: {
        uint8_t v = cdch_get_u8(cur);
        snprintf(b, cap, "%d", uns ? (int)v : (int)(int8_t)v);
        break;
    }
    case CDCH_T_SHORT:
    case CDCH_T_YEAR: {
        uint16_t v = cdch_get_le16(cur);
        snprintf(b, cap, "%d", uns || t == CDCH_T_YEAR ? (int)v : (int)(int16_t)v);
        break;
    }
    case CDCH_T_LONG:
    case CDCH_T_INT24: {
        uint32_t v = cdch_get_le32(cur);
        if (uns)
            snprintf(b, cap, "%u", v);
        else
            snprintf(b, cap, "%d", (int32_t)v);
        break;
    }
    default: { /* CDCH_T_LONGLONG */
        uint64_t v = cdch_get_le64(cur);
        if (uns)
            snprintf(b, cap, "%llu", (unsigned long long)v);
        else
            snprintf(b, cap, "%lld", (long long)(int64_t)v);
        break;
    }
    }
}

static void fmt_real(char *b, size_t cap, uint8_t t, cdch_cursor *cur)
{
    if (t == CDCH_T_FLOAT) {
        uint32_t v = cdch_get_le32(cur);
        float f;
        memcpy(&f, &v, 4);
        snprintf(b, cap, "%.9g", (double)f);
    } else {
        uint64_t v = cdch_get_le64(cur);
        double d;
        memcpy(&d, &v, 8);
        snprintf(b, cap, "%.17g", d);
    }
}

/* The binary protocol's temporal values: a length byte, then exactly that
 * many bytes (MySQL's set_param_date / set_param_datetime / set_param_time
 * skip exactly the length they read). The lengths a client may send
 * (https://dev.mysql.com/doc/dev/mysql-server/latest/page_protocol_binary_resultset.html,
 * https://mariadb.com/kb/en/packet_bindata/): DATE, DATETIME, TIMESTAMP 0,
 * 4 (date), 7 (+ time), 11 (+ microseconds); TIME 0, 8 (sign, days, time),
 * 12 (+ microseconds). Another length, or fewer bytes than it says: -1,
 * which srv_stmt_execute answers with ER_WRONG_ARGUMENTS. */

/* DATE / DATETIME / TIMESTAMP */
static int fmt_datetime(char *b, size_t cap, uint8_t t, cdch_cursor *cur)
{
    uint8_t len = cdch_get_u8(cur);
    if (len != 0 && len != 4 && len != 7 && len != 11)
        return -1;
    cdch_cursor v = cdch_get_sub(cur, len);
    unsigned y = 0, mo = 0, d = 0, h = 0, mi = 0, s = 0, us = 0;
    if (len >= 4) {
        y = cdch_get_le16(&v);
        mo = cdch_get_u8(&v);
        d = cdch_get_u8(&v);
    }
    if (len >= 7) {
        h = cdch_get_u8(&v);
        mi = cdch_get_u8(&v);
        s = cdch_get_u8(&v);
    }
    if (len == 11)
        us = cdch_get_le32(&v);
    if (!cdch_cur_ok(cur) || !cdch_cur_ok(&v))
        return -1;
    if (us)
        snprintf(b, cap, "'%04u-%02u-%02u %02u:%02u:%02u.%06u'", y, mo, d, h, mi, s, us);
    else if (t == CDCH_T_DATE)
        snprintf(b, cap, "'%04u-%02u-%02u'", y, mo, d);
    else
        snprintf(b, cap, "'%04u-%02u-%02u %02u:%02u:%02u'", y, mo, d, h, mi, s);
    return 0;
}

/* TIME: hours = days * 24 + hour in 64 bits (no wrap for any days value) */
static int fmt_time(char *b, size_t cap, cdch_cursor *cur)
{
    uint8_t len = cdch_get_u8(cur);
    if (len != 0 && len != 8 && len != 12)
        return -1;
    cdch_cursor v = cdch_get_sub(cur, len);
    unsigned neg = 0, h = 0, mi = 0, s = 0, us = 0;
    uint64_t days = 0;
    if (len >= 8) {
        neg = cdch_get_u8(&v);
        days = cdch_get_le32(&v);
        h = cdch_get_u8(&v);
        mi = cdch_get_u8(&v);
        s = cdch_get_u8(&v);
    }
    if (len == 12)
        us = cdch_get_le32(&v);
    if (!cdch_cur_ok(cur) || !cdch_cur_ok(&v))
        return -1;
    snprintf(b, cap, "'%s%llu:%02u:%02u.%06u'", neg ? "-" : "", (unsigned long long)(days * 24u + h), mi, s, us);
    return 0;
}

/* One bound value as an SQL literal. Returns -1 when the packet is short. */
static int put_param(cdch_buf *o, uint16_t type, cdch_cursor *cur)
{
    bool uns = (type & 0x8000) != 0;
    uint8_t t = (uint8_t)type;
    char b[64];
    switch (t) {
    case CDCH_T_NULL: cdch_put_str(o, "NULL"); return 0;
    case CDCH_T_TINY:
    case CDCH_T_SHORT:
    case CDCH_T_YEAR:
    case CDCH_T_LONG:
    case CDCH_T_INT24:
    case CDCH_T_LONGLONG: fmt_int(b, sizeof b, t, uns, cur); break;
    case CDCH_T_FLOAT:
    case CDCH_T_DOUBLE: fmt_real(b, sizeof b, t, cur); break;
    case CDCH_T_DATE:
    case CDCH_T_DATETIME:
    case CDCH_T_TIMESTAMP:
        if (fmt_datetime(b, sizeof b, t, cur) != 0)
            return -1;
        break;
    case CDCH_T_TIME:
        if (fmt_time(b, sizeof b, cur) != 0)
            return -1;
        break;
    default: { /* strings, decimals, blobs: lenenc bytes */
        bool bad = false;
        uint64_t len = cdch_get_lenenc(cur, &bad);
        const uint8_t *s = cdch_get_bytes(cur, (size_t)len);
        if (bad || (len && !s))
            return -1;
        put_literal_str(o, s, (size_t)len);
        return cdch_cur_ok(cur) ? 0 : -1;
    }
    }
    if (!cdch_cur_ok(cur))
        return -1;
    cdch_put_str(o, b);
    return 0;
}

int srv_stmt_execute(srv_conn *c, const uint8_t *p, size_t n)
{
    cdch_cursor cur = cdch_cur(p, n);
    uint32_t id = cdch_get_le32(&cur);
    (void)cdch_get_u8(&cur);   /* flags (cursor type): no cursors, rows come with the response */
    (void)cdch_get_le32(&cur); /* iteration count, always 1 */
    srv_stmt *s = find(c, id);
    if (!s)
        return conn_err(c, 1243, "HY000", "Unknown prepared statement handler (%u) given to mysqld_stmt_execute",
                        id);
    c->queries++;
    srv_stat_add(c->srv, SRV_STAT_QUERIES, 1);
    const uint8_t *nulls = NULL;
    if (s->nparams) {
        nulls = cdch_get_bytes(&cur, (s->nparams + 7) / 8);
        uint8_t bound = cdch_get_u8(&cur);
        if (bound) {
            for (size_t i = 0; i < s->nparams; i++) {
                uint8_t t = cdch_get_u8(&cur);
                uint8_t f = cdch_get_u8(&cur);
                s->types[i] = (uint16_t)(t | (f & 0x80 ? 0x8000 : 0));
            }
            s->types_bound = true;
        }
        if (!cdch_cur_ok(&cur) || !s->types_bound)
            return conn_err(c, 1835, "HY000", "Malformed communication packet (COM_STMT_EXECUTE parameters)");
    }
    size_t *pos = cdch_xcalloc(s->nparams + 1, sizeof *pos);
    placeholders(s->sql, pos, s->nparams);
    cdch_buf sql = CDCH_BUF_INIT;
    size_t last = 0;
    for (size_t i = 0; i < s->nparams; i++) {
        cdch_put_bytes(&sql, s->sql + last, pos[i] - last);
        last = pos[i] + 1;
        if (s->has_long[i]) {
            put_literal_str(&sql, s->long_data[i].data, s->long_data[i].len);
        } else if (nulls[i / 8] & (1u << (i % 8))) {
            cdch_put_str(&sql, "NULL");
        } else if (put_param(&sql, s->types[i], &cur) != 0) {
            /* MySQL's insert_params failing: ER_WRONG_ARGUMENTS naming the command */
            fprintf(stderr,
                    "cdcharness serve: connection %u: COM_STMT_EXECUTE of statement %u: parameter %zu (type %u) is "
                    "truncated or has a length its type does not allow; answered with ERR 1210\n",
                    c->id, id, i + 1, (unsigned)(uint8_t)s->types[i]);
            free(pos);
            cdch_buf_free(&sql);
            return conn_err(c, 1210, "HY000", "Incorrect arguments to mysqld_stmt_execute");
        }
    }
    cdch_put_str(&sql, s->sql + last);
    free(pos);
    for (size_t i = 0; i < s->nparams; i++) { /* long data lasts for one execution */
        s->has_long[i] = false;
        cdch_buf_reset(&s->long_data[i]);
    }
    if (c->srv->opts.log_queries)
        fprintf(stderr, "cdcharness serve: [%u] execute %u: %.2000s%s\n", c->id, id, cdch_buf_cstr(&sql),
                sql.len > 2000 ? "..." : "");
    srv_result res;
    srv_result_init(&res);
    srv_query_exec(c, (const char *)sql.data, sql.len, false, &res);
    int r = srv_result_send(c, &res, true);
    srv_result_free(&res);
    cdch_buf_free(&sql);
    return r;
}

int srv_stmt_send_long_data(srv_conn *c, const uint8_t *p, size_t n)
{
    cdch_cursor cur = cdch_cur(p, n);
    uint32_t id = cdch_get_le32(&cur);
    uint16_t param = cdch_get_le16(&cur);
    srv_stmt *s = find(c, id);
    if (!cdch_cur_ok(&cur) || !s || param >= s->nparams)
        return 0; /* no response to this command, errors surface at execute */
    cdch_put_bytes(&s->long_data[param], cur.p, cdch_cur_left(&cur));
    s->has_long[param] = true;
    return 0;
}

int srv_stmt_close(srv_conn *c, const uint8_t *p, size_t n)
{
    cdch_cursor cur = cdch_cur(p, n);
    uint32_t id = cdch_get_le32(&cur);
    for (srv_stmt **pp = &c->stmts; *pp; pp = &(*pp)->next)
        if ((*pp)->id == id) {
            srv_stmt *s = *pp;
            *pp = s->next;
            stmt_free(s);
            break;
        }
    return 0;
}

int srv_stmt_reset(srv_conn *c, const uint8_t *p, size_t n)
{
    cdch_cursor cur = cdch_cur(p, n);
    uint32_t id = cdch_get_le32(&cur);
    srv_stmt *s = find(c, id);
    if (!s)
        return conn_err(c, 1243, "HY000", "Unknown prepared statement handler (%u) given to mysqld_stmt_reset", id);
    for (size_t i = 0; i < s->nparams; i++) {
        s->has_long[i] = false;
        cdch_buf_reset(&s->long_data[i]);
    }
    return conn_ok(c, 0, 0, c->status, 0);
}

int srv_stmt_fetch(srv_conn *c, const uint8_t *p, size_t n)
{
    cdch_cursor cur = cdch_cur(p, n);
    uint32_t id = cdch_get_le32(&cur);
    return conn_err(c, 1421, "HY000", "The statement (%u) has no open cursor.", id);
}
