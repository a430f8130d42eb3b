/* resultset.c — result sets of the fake primary.
 *
 * Owns: srv_rs, a small in-memory table (column definitions + cells) that
 * query.c fills and filters, and its wire forms:
 *  - text protocol (COM_QUERY): column count, ColumnDefinition41 packets,
 *    EOF (omitted under CLIENT_DEPRECATE_EOF), one lenenc-string row per
 *    packet (0xFB = NULL), then EOF or, under DEPRECATE_EOF, an OK packet
 *    with the 0xFE header;
 *  - binary protocol (COM_STMT_EXECUTE): the same framing, rows as 0x00 +
 *    NULL bitmap (offset 2) + values encoded by column type.
 * The final packet carries the connection's status flags plus
 * c->extra_status (SERVER_MORE_RESULTS_EXISTS inside a multi-statement).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cursor.h"
#include "mysql_types.h"
#include "server_internal.h"
#include "xalloc.h"

void srv_rs_init(srv_rs *rs)
{
    memset(rs, 0, sizeof *rs);
}

void srv_rs_free(srv_rs *rs)
{
    cdch_arena_free(&rs->a);
    free(rs->cols);
    free(rs->off);
    cdch_buf_free(&rs->cells);
    memset(rs, 0, sizeof *rs);
}

srv_col *srv_rs_col(srv_rs *rs, const char *name, uint8_t type)
{
    if (rs->ncols == rs->capcols) {
        rs->capcols = rs->capcols ? rs->capcols * 2 : 8;
        rs->cols = cdch_xrealloc(rs->cols, rs->capcols * sizeof *rs->cols);
    }
    srv_col *c = &rs->cols[rs->ncols++];
    memset(c, 0, sizeof *c);
    c->name = cdch_arena_strdup(&rs->a, name);
    c->org_name = "";
    c->table = "";
    c->org_table = "";
    c->db = "";
    c->type = type;
    switch (type) {
    case CDCH_T_TINY: c->length = 4; c->charset = 63; c->flags = SRV_COLF_NUM; break;
    case CDCH_T_SHORT: c->length = 6; c->charset = 63; c->flags = SRV_COLF_NUM; break;
    case CDCH_T_LONG: c->length = 11; c->charset = 63; c->flags = SRV_COLF_NUM; break;
    case CDCH_T_LONGLONG: c->length = 21; c->charset = 63; c->flags = SRV_COLF_NUM; break;
    case CDCH_T_DOUBLE: c->length = 22; c->charset = 63; c->flags = SRV_COLF_NUM; c->decimals = 31; break;
    case CDCH_T_NEWDECIMAL: c->length = 66; c->charset = 63; c->flags = SRV_COLF_NUM; c->decimals = 30; break;
    case CDCH_T_DATETIME: c->length = 19; c->charset = 63; c->flags = SRV_COLF_BINARY; break;
    case CDCH_T_NULL: c->length = 0; c->charset = 63; c->flags = SRV_COLF_BINARY; break;
    case CDCH_T_BLOB: c->length = 65535 * 4; c->charset = 255; break;
    case CDCH_T_LONG_BLOB: c->length = 0xFFFFFFFFu; c->charset = 255; break;
    default: c->length = 256 * 4; c->charset = 255; break;
    }
    return c;
}

srv_col *srv_rs_col_copy(srv_rs *rs, const srv_col *src, const char *label, const char *org_name,
                         const char *table, const char *db)
{
    srv_col *c = srv_rs_col(rs, label ? label : src->name, src->type);
    const char *name = c->name;
    *c = *src;
    c->name = name;
    c->org_name = cdch_arena_strdup(&rs->a, org_name ? org_name : src->org_name ? src->org_name : "");
    c->table = cdch_arena_strdup(&rs->a, table ? table : src->table ? src->table : "");
    c->org_table = cdch_arena_strdup(&rs->a, table ? table : src->org_table ? src->org_table : "");
    c->db = cdch_arena_strdup(&rs->a, db ? db : src->db ? src->db : "");
    return c;
}

void srv_rs_cell(srv_rs *rs, const char *s, size_t n)
{
    if (rs->ncells == rs->capoff) {
        rs->capoff = rs->capoff ? rs->capoff * 2 : 64;
        rs->off = cdch_xrealloc(rs->off, rs->capoff * sizeof *rs->off);
    }
    rs->off[rs->ncells++] = rs->cells.len;
    cdch_put_u8(&rs->cells, s ? 1 : 0);
    cdch_put_le32(&rs->cells, s ? (uint32_t)n : 0);
    if (s && n)
        cdch_put_bytes(&rs->cells, s, n);
}

void srv_rs_str(srv_rs *rs, const char *s) { srv_rs_cell(rs, s, s ? strlen(s) : 0); }

void srv_rs_uint(srv_rs *rs, uint64_t v)
{
    char b[32];
    int n = snprintf(b, sizeof b, "%llu", (unsigned long long)v);
    srv_rs_cell(rs, b, (size_t)n);
}

size_t srv_rs_nrows(const srv_rs *rs) { return rs->ncols ? rs->ncells / rs->ncols : 0; }

const char *srv_rs_get(const srv_rs *rs, size_t row, size_t col, size_t *len)
{
    size_t i = row * rs->ncols + col;
    if (i >= rs->ncells) {
        if (len)
            *len = 0;
        return NULL;
    }
    const uint8_t *p = rs->cells.data + rs->off[i];
    uint32_t n = cdch_le32(p + 1);
    if (len)
        *len = n;
    if (!p[0])
        return NULL;
    return (const char *)p + 5;
}

int srv_rs_find_col(const srv_rs *rs, const char *name)
{
    for (size_t i = 0; i < rs->ncols; i++)
        if (strcasecmp(rs->cols[i].name, name) == 0)
            return (int)i;
    return -1;
}

/* ---- wire ----------------------------------------------------------------------------- */

static void put_lenstr(cdch_buf *b, const char *s)
{
    size_t n = s ? strlen(s) : 0;
    cdch_put_lenenc(b, n);
    if (n)
        cdch_put_bytes(b, s, n);
}

void srv_put_coldef(cdch_buf *out, const srv_col *col, bool field_list)
{
    put_lenstr(out, "def");
    put_lenstr(out, col->db);
    put_lenstr(out, col->table);
    put_lenstr(out, col->org_table);
    put_lenstr(out, col->name);
    put_lenstr(out, col->org_name);
    cdch_put_u8(out, 0x0c);
    cdch_put_le16(out, col->charset);
    cdch_put_le32(out, col->length);
    cdch_put_u8(out, col->type);
    cdch_put_le16(out, col->flags);
    cdch_put_u8(out, col->decimals);
    cdch_put_le16(out, 0);
    if (field_list)
        cdch_put_lenenc(out, 0); /* default value: empty */
}

int srv_send_coldefs(srv_conn *c, const srv_col *cols, size_t ncols)
{
    cdch_buf b = CDCH_BUF_INIT;
    int r = 0;
    for (size_t i = 0; i < ncols && r == 0; i++) {
        cdch_buf_reset(&b);
        srv_put_coldef(&b, &cols[i], false);
        r = conn_write(c, b.data, b.len);
    }
    cdch_buf_free(&b);
    if (r == 0 && ncols && !(c->caps & CLIENT_DEPRECATE_EOF))
        r = conn_eof(c, c->status);
    return r;
}

static int64_t parse_i64(const char *s, size_t n)
{
    char tmp[32];
    if (n >= sizeof tmp)
        n = sizeof tmp - 1;
    memcpy(tmp, s, n);
    tmp[n] = 0;
    if (tmp[0] != '-')
        return (int64_t)strtoull(tmp, NULL, 10);
    return strtoll(tmp, NULL, 10);
}

/* "YYYY-MM-DD[ HH:MM:SS[.ffffff]]" -> binary DATETIME (length-prefixed). */
static void put_datetime(cdch_buf *b, const char *s, size_t n)
{
    unsigned y = 0, mo = 0, d = 0, h = 0, mi = 0, se = 0, us = 0;
    char tmp[40];
    if (n >= sizeof tmp)
        n = sizeof tmp - 1;
    memcpy(tmp, s, n);
    tmp[n] = 0;
    sscanf(tmp, "%u-%u-%u %u:%u:%u.%u", &y, &mo, &d, &h, &mi, &se, &us);
    const char *dot = strchr(tmp, '.');
    if (dot) { /* scale the fraction to microseconds */
        size_t digits = strlen(dot + 1);
        for (; digits < 6; digits++)
            us *= 10;
    }
    if (us) {
        cdch_put_u8(b, 11);
    } else if (h || mi || se) {
        cdch_put_u8(b, 7);
    } else if (y || mo || d) {
        cdch_put_u8(b, 4);
    } else {
        cdch_put_u8(b, 0);
        return;
    }
    cdch_put_le16(b, (uint16_t)y);
    cdch_put_u8(b, (uint8_t)mo);
    cdch_put_u8(b, (uint8_t)d);
    if (us || h || mi || se) {
        cdch_put_u8(b, (uint8_t)h);
        cdch_put_u8(b, (uint8_t)mi);
        cdch_put_u8(b, (uint8_t)se);
    }
    if (us)
        cdch_put_le32(b, us);
}

static void put_binary_value(cdch_buf *b, const srv_col *col, const char *s, size_t n)
{
    switch (col->type) {
    case CDCH_T_TINY: cdch_put_u8(b, (uint8_t)parse_i64(s, n)); break;
    case CDCH_T_SHORT:
    case CDCH_T_YEAR: cdch_put_le16(b, (uint16_t)parse_i64(s, n)); break;
    case CDCH_T_LONG:
    case CDCH_T_INT24: cdch_put_le32(b, (uint32_t)parse_i64(s, n)); break;
    case CDCH_T_LONGLONG: cdch_put_le64(b, (uint64_t)parse_i64(s, n)); break;
    case CDCH_T_DOUBLE: {
        char tmp[64];
        size_t k = n < sizeof tmp - 1 ? n : sizeof tmp - 1;
        memcpy(tmp, s, k);
        tmp[k] = 0;
        double d = strtod(tmp, NULL);
        uint64_t u;
        memcpy(&u, &d, 8);
        cdch_put_le64(b, u);
        break;
    }
    case CDCH_T_DATETIME:
    case CDCH_T_TIMESTAMP:
    case CDCH_T_DATE: put_datetime(b, s, n); break;
    default:
        cdch_put_lenenc(b, n);
        if (n)
            cdch_put_bytes(b, s, n);
        break;
    }
}

int srv_rs_send(srv_conn *c, const srv_rs *rs, bool binary)
{
    cdch_buf b = CDCH_BUF_INIT;
    cdch_put_lenenc(&b, rs->ncols);
    int r = conn_write(c, b.data, b.len);
    if (r == 0)
        r = srv_send_coldefs(c, rs->cols, rs->ncols);
    size_t nrows = srv_rs_nrows(rs);
    for (size_t row = 0; row < nrows && r == 0; row++) {
        cdch_buf_reset(&b);
        if (binary) {
            cdch_put_u8(&b, 0x00);
            size_t nb = (rs->ncols + 7 + 2) / 8;
            size_t at = b.len;
            cdch_put_zero(&b, nb);
            for (size_t col = 0; col < rs->ncols; col++) {
                size_t n;
                const char *s = srv_rs_get(rs, row, col, &n);
                if (!s || rs->cols[col].type == CDCH_T_NULL) {
                    b.data[at + (col + 2) / 8] |= (uint8_t)(1u << ((col + 2) % 8));
                    continue;
                }
                put_binary_value(&b, &rs->cols[col], s, n);
            }
        } else {
            for (size_t col = 0; col < rs->ncols; col++) {
                size_t n;
                const char *s = srv_rs_get(rs, row, col, &n);
                if (!s) {
                    cdch_put_u8(&b, 0xFB);
                } else {
                    cdch_put_lenenc(&b, n);
                    if (n)
                        cdch_put_bytes(&b, s, n);
                }
            }
        }
        r = conn_write(c, b.data, b.len);
    }
    cdch_buf_free(&b);
    if (r == 0)
        r = conn_eof(c, (uint16_t)(c->status | c->extra_status));
    return r;
}
