/* record_schema.c — the schema a capture starts from: SHOW CREATE DATABASE
 * and SHOW CREATE TABLE of every base table outside the system schemas,
 * read through the recording account before the dump starts, and
 * schema.sql written from it: every table (the default), or the tables the
 * range maps (--tables touched). */
#include <stdlib.h>
#include <string.h>

#include <mysql.h>

#include "buf.h"
#include "ddl.h"
#include "record_internal.h"
#include "xalloc.h"

/* The second column of a one-row SHOW CREATE ...; malloc'd, or NULL with err set. */
static char *show_create(MYSQL *m, const char *what, const char *db, const char *table, cdch_err *err)
{
    cdch_buf q = CDCH_BUF_INIT;
    cdch_buf_printf(&q, "SHOW CREATE %s ", what);
    cdch_ddl_quote(db, &q);
    if (table) {
        cdch_put_u8(&q, '.');
        cdch_ddl_quote(table, &q);
    }
    char *out = NULL;
    MYSQL_RES *r = NULL;
    if (mysql_real_query(m, (const char *)q.data, (unsigned long)q.len) != 0 || !(r = mysql_store_result(m))) {
        cdch_err_set(err, "%s: %s (the recording account needs SELECT on the tables the range touches)",
                     cdch_buf_cstr(&q), mysql_error(m));
    } else {
        MYSQL_ROW row = mysql_fetch_row(r);
        unsigned long *lens = row ? mysql_fetch_lengths(r) : NULL;
        if (!row || mysql_num_fields(r) < 2 || !row[1])
            cdch_err_set(err, "%s: the server returned no definition", cdch_buf_cstr(&q));
        else {
            out = cdch_xcalloc(lens[1] + 1, 1);
            memcpy(out, row[1], lens[1]);
        }
    }
    if (r)
        mysql_free_result(r);
    cdch_buf_free(&q);
    return out;
}

static int add_db(rec_schema *s, MYSQL *m, const char *db, cdch_err *err)
{
    for (size_t i = 0; i < s->ndbs; i++)
        if (strcmp(s->dbs[i], db) == 0)
            return 0;
    char *sql = show_create(m, "DATABASE", db, NULL, err);
    if (!sql)
        return -1;
    s->dbs = cdch_xrealloc(s->dbs, (s->ndbs + 1) * sizeof *s->dbs);
    s->db_sql = cdch_xrealloc(s->db_sql, (s->ndbs + 1) * sizeof *s->db_sql);
    s->dbs[s->ndbs] = cdch_xstrdup(db);
    s->db_sql[s->ndbs] = sql;
    s->ndbs++;
    return 0;
}

int rec_schema_load(MYSQL *m, rec_schema *s, cdch_err *err)
{
    memset(s, 0, sizeof *s);
    static const char q[] = "SELECT TABLE_SCHEMA, TABLE_NAME FROM information_schema.TABLES WHERE TABLE_TYPE = "
                            "'BASE TABLE' AND TABLE_SCHEMA NOT IN ('mysql', 'sys', 'information_schema', "
                            "'performance_schema') ORDER BY TABLE_SCHEMA, TABLE_NAME";
    MYSQL_RES *r = NULL;
    if (mysql_real_query(m, q, sizeof q - 1) != 0 || !(r = mysql_store_result(m)))
        return cdch_err_set(err, "listing the tables (information_schema.TABLES) failed: %s", mysql_error(m));
    size_t n = (size_t)mysql_num_rows(r);
    s->tables = cdch_xcalloc(n, sizeof *s->tables);
    s->table_sql = cdch_xcalloc(n, sizeof *s->table_sql);
    MYSQL_ROW row;
    while ((row = mysql_fetch_row(r)) && s->ntables < n) {
        if (!row[0] || !row[1])
            continue;
        s->tables[s->ntables].db = cdch_xstrdup(row[0]);
        s->tables[s->ntables].name = cdch_xstrdup(row[1]);
        s->ntables++;
    }
    mysql_free_result(r);
    for (size_t i = 0; i < s->ntables; i++) {
        if (add_db(s, m, s->tables[i].db, err) != 0)
            return -1;
        s->table_sql[i] = show_create(m, "TABLE", s->tables[i].db, s->tables[i].name, err);
        if (!s->table_sql[i])
            return -1;
    }
    return 0;
}

static ssize_t find_table(const rec_schema *s, const char *db, const char *table)
{
    for (size_t i = 0; i < s->ntables; i++)
        if (strcmp(s->tables[i].db, db) == 0 && strcmp(s->tables[i].name, table) == 0)
            return (ssize_t)i;
    return -1;
}

bool rec_schema_has(void *schema, const char *db, const char *table)
{
    return find_table(schema, db, table) >= 0;
}

/* CREATE DATABASE IF NOT EXISTS (from SHOW CREATE DATABASE) and USE of db. */
static void put_db(const rec_schema *s, const char *db, cdch_buf *b)
{
    for (size_t d = 0; d < s->ndbs; d++)
        if (strcmp(s->dbs[d], db) == 0) {
            const char *sql = s->db_sql[d];
            if (strncmp(sql, "CREATE DATABASE ", 16) == 0 && strncmp(sql + 16, "IF NOT EXISTS", 13) != 0)
                cdch_buf_printf(b, "\nCREATE DATABASE IF NOT EXISTS %s;\n", sql + 16);
            else
                cdch_buf_printf(b, "\n%s;\n", sql);
        }
    cdch_put_str(b, "USE ");
    cdch_ddl_quote(db, b);
    cdch_put_str(b, ";\n");
}

/* schema.sql of every table of s (ordered by database and name, as listed). */
static char *all_tables_sql(const rec_schema *s, const char *header)
{
    cdch_buf b = CDCH_BUF_INIT;
    cdch_put_str(&b, header);
    for (size_t i = 0; i < s->ntables; i++) {
        if (i == 0 || strcmp(s->tables[i - 1].db, s->tables[i].db) != 0)
            put_db(s, s->tables[i].db, &b);
        cdch_buf_printf(&b, "%s;\n", s->table_sql[i]);
    }
    char *out = cdch_xstrdup(cdch_buf_cstr(&b));
    cdch_buf_free(&b);
    return out;
}

/* schema.sql: without c->scan_tables every table of s; with it, per database
 * the range touches, CREATE DATABASE IF NOT EXISTS, USE, then each touched
 * table's CREATE TABLE, in first-seen order. */
char *rec_schema_sql(const rec_schema *s, const rec_capture *c, const char *header)
{
    if (!c->scan_tables)
        return all_tables_sql(s, header);
    cdch_buf b = CDCH_BUF_INIT;
    cdch_put_str(&b, header);
    size_t nt = rec_cap_ntables(c);
    bool *done = cdch_xcalloc(nt + 1, sizeof *done);
    size_t missing = 0;
    for (size_t i = 0; i < nt; i++)
        if (find_table(s, rec_cap_table(c, i)->db, rec_cap_table(c, i)->name) < 0) {
            if (!missing++)
                cdch_put_str(&b, "-- tables the range touches that did not exist at the start (their CREATE is "
                                 "in the stream):\n");
            cdch_buf_printf(&b, "--   %s.%s\n", rec_cap_table(c, i)->db, rec_cap_table(c, i)->name);
            done[i] = true;
        }
    for (size_t i = 0; i < nt; i++) {
        if (done[i])
            continue;
        const char *db = rec_cap_table(c, i)->db;
        put_db(s, db, &b);
        for (size_t j = i; j < nt; j++) {
            if (done[j] || strcmp(rec_cap_table(c, j)->db, db) != 0)
                continue;
            ssize_t k = find_table(s, db, rec_cap_table(c, j)->name);
            cdch_buf_printf(&b, "%s;\n", s->table_sql[k]);
            done[j] = true;
        }
    }
    free(done);
    char *out = cdch_xstrdup(cdch_buf_cstr(&b));
    cdch_buf_free(&b);
    return out;
}

void rec_schema_free(rec_schema *s)
{
    for (size_t i = 0; i < s->ntables; i++) {
        free(s->tables[i].db);
        free(s->tables[i].name);
        free(s->table_sql[i]);
    }
    for (size_t i = 0; i < s->ndbs; i++) {
        free(s->dbs[i]);
        free(s->db_sql[i]);
    }
    free(s->tables);
    free(s->table_sql);
    free(s->dbs);
    free(s->db_sql);
    memset(s, 0, sizeof *s);
}
