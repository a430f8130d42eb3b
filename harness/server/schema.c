/* schema.c — the scenario's catalogue as the fake primary shows it.
 *
 * Owns: the virtual tables a consumer reads to learn the schema:
 * information_schema SCHEMATA, TABLES, COLUMNS, KEY_COLUMN_USAGE,
 * STATISTICS, TABLE_CONSTRAINTS, CHECK_CONSTRAINTS, COLLATIONS,
 * CHARACTER_SETS, COLLATION_CHARACTER_SET_APPLICABILITY, ENGINES,
 * PROCESSLIST, VIEWS/ROUTINES/TRIGGERS (empty); performance_schema
 * global/session_variables and global/session_status; every scenario
 * table (its columns, no rows: the stream starts from an empty database);
 * and the rows of SHOW COLUMNS / SHOW INDEX / SHOW TABLE STATUS.
 * query.c filters and projects them (WHERE, ORDER BY, LIMIT).
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "mysql_types.h"
#include "query_internal.h"
#include "sys.h"
#include "xalloc.h"

static const char *const k_system_dbs[] = {"information_schema", "mysql", "performance_schema", "sys"};
#define N_SYSTEM (sizeof k_system_dbs / sizeof k_system_dbs[0])

bool srv_schema_is_system(const char *db)
{
    for (size_t i = 0; i < N_SYSTEM; i++)
        if (strcasecmp(db, k_system_dbs[i]) == 0)
            return true;
    return false;
}

const cdch_sc_database *srv_schema_sc_db(const struct cdch_server *srv, const char *db)
{
    for (size_t i = 0; i < srv->s->ndbs; i++)
        if (strcmp(srv->s->dbs[i].name, db) == 0)
            return &srv->s->dbs[i];
    return NULL;
}

bool srv_db_exists(const struct cdch_server *srv, const char *db)
{
    return srv_schema_is_system(db) || srv_schema_sc_db(srv, db) != NULL;
}

size_t srv_schema_ndbs(const struct cdch_server *srv) { return srv->s->ndbs + N_SYSTEM; }

const char *srv_schema_db(const struct cdch_server *srv, size_t i)
{
    size_t n = srv_schema_ndbs(srv);
    if (i >= n)
        return NULL;
    const char **names = cdch_xcalloc(n, sizeof *names);
    for (size_t k = 0; k < N_SYSTEM; k++)
        names[k] = k_system_dbs[k];
    for (size_t k = 0; k < srv->s->ndbs; k++)
        names[N_SYSTEM + k] = srv->s->dbs[k].name;
    qsort(names, n, sizeof *names, cdch_cmp_strp);
    const char *r = names[i];
    free(names);
    return r;
}

const cdch_sc_table *srv_schema_table(const struct cdch_server *srv, const char *db, const char *name)
{
    for (size_t i = 0; i < srv->s->ntables; i++) {
        const cdch_sc_table *t = &srv->s->tables[i];
        if (strcmp(t->db, db) == 0 && strcmp(t->name, name) == 0)
            return t;
    }
    return NULL;
}

/* ---- column facts as information_schema.COLUMNS shows them -------------------------- */

typedef struct colinfo {
    char data_type[32];
    bool has_maxlen, has_prec, has_scale, has_dtprec;
    uint64_t maxlen, octets, prec, scale, dtprec;
    char deflt[256];
    bool has_default;
    char extra[64];
} colinfo;

static void col_info(const cdch_sc_column *c, colinfo *ci)
{
    memset(ci, 0, sizeof *ci);
    size_t k = 0;
    for (const char *p = c->sql_type; *p && *p != '(' && *p != ' ' && k + 1 < sizeof ci->data_type; p++)
        ci->data_type[k++] = (char)tolower((unsigned char)*p);
    const char *dt = ci->data_type;
    uint32_t mb = c->mbmaxlen ? c->mbmaxlen : 1;
    if (!strcmp(dt, "char") || !strcmp(dt, "varchar")) {
        ci->has_maxlen = true;
        ci->maxlen = c->char_length;
        ci->octets = (uint64_t)c->char_length * mb;
    } else if (!strcmp(dt, "binary") || !strcmp(dt, "varbinary")) {
        ci->has_maxlen = true;
        ci->maxlen = ci->octets = c->char_length;
    } else if (!strcmp(dt, "tinytext") || !strcmp(dt, "tinyblob")) {
        ci->has_maxlen = true;
        ci->maxlen = ci->octets = 255;
    } else if (!strcmp(dt, "text") || !strcmp(dt, "blob")) {
        ci->has_maxlen = true;
        ci->maxlen = ci->octets = 65535;
    } else if (!strcmp(dt, "mediumtext") || !strcmp(dt, "mediumblob")) {
        ci->has_maxlen = true;
        ci->maxlen = ci->octets = 16777215;
    } else if (!strcmp(dt, "longtext") || !strcmp(dt, "longblob")) {
        ci->has_maxlen = true;
        ci->maxlen = ci->octets = 4294967295u;
    } else if (!strcmp(dt, "enum") || !strcmp(dt, "set")) {
        uint64_t m = 0, sum = 0;
        for (size_t i = 0; i < c->def.nlabels; i++) {
            uint64_t l = strlen(c->def.labels[i]);
            m = l > m ? l : m;
            sum += l + (i ? 1 : 0);
        }
        ci->has_maxlen = true;
        ci->maxlen = dt[0] == 'e' ? m : sum;
        ci->octets = ci->maxlen * mb;
    }
    static const struct { const char *n; unsigned p; } ints[] = {
        {"tinyint", 3}, {"smallint", 5}, {"mediumint", 7}, {"int", 10}, {"bigint", 19}};
    for (size_t i = 0; i < sizeof ints / sizeof ints[0]; i++)
        if (!strcmp(dt, ints[i].n)) {
            ci->has_prec = ci->has_scale = true;
            ci->prec = ints[i].p + (!strcmp(dt, "bigint") && c->def.is_unsigned ? 1 : 0);
            ci->scale = 0;
        }
    if (!strcmp(dt, "decimal")) {
        ci->has_prec = ci->has_scale = true;
        ci->prec = c->def.meta >> 8;
        ci->scale = c->def.meta & 0xff;
    } else if (!strcmp(dt, "float")) {
        ci->has_prec = true;
        ci->prec = 12;
    } else if (!strcmp(dt, "double")) {
        ci->has_prec = true;
        ci->prec = 22;
    } else if (!strcmp(dt, "bit")) {
        ci->has_prec = true;
        ci->prec = c->char_length;
    } else if (!strcmp(dt, "datetime") || !strcmp(dt, "timestamp") || !strcmp(dt, "time")) {
        ci->has_dtprec = true;
        ci->dtprec = (c->def.type == CDCH_T_DATETIME2 || c->def.type == CDCH_T_TIMESTAMP2 || c->def.type == CDCH_T_TIME2)
                         ? c->def.meta
                         : 0;
    }
    if (c->default_sql && strcasecmp(c->default_sql, "NULL") != 0) {
        const char *d = c->default_sql;
        size_t n = strlen(d);
        ci->has_default = true;
        if (n >= 2 && d[0] == '\'' && d[n - 1] == '\'')
            snprintf(ci->deflt, sizeof ci->deflt, "%.*s", (int)(n - 2), d + 1);
        else
            snprintf(ci->deflt, sizeof ci->deflt, "%s", d);
    }
    if (c->auto_increment)
        snprintf(ci->extra, sizeof ci->extra, "auto_increment");
    else if (c->default_sql && strncasecmp(c->default_sql, "CURRENT_TIMESTAMP", 17) == 0)
        snprintf(ci->extra, sizeof ci->extra, "DEFAULT_GENERATED");
    if (c->invisible)
        snprintf(ci->extra + strlen(ci->extra), sizeof ci->extra - strlen(ci->extra), "%sINVISIBLE",
                 ci->extra[0] ? " " : "");
}

static void cell_u(srv_rs *rs, bool has, uint64_t v)
{
    if (has)
        srv_rs_uint(rs, v);
    else
        srv_rs_str(rs, NULL);
}

static srv_col *col_s(srv_rs *rs, const char *name) { return srv_rs_col(rs, name, CDCH_T_VAR_STRING); }
static srv_col *col_i(srv_rs *rs, const char *name) { return srv_rs_col(rs, name, CDCH_T_LONGLONG); }

static const char *table_collation(const cdch_sc_table *t) { (void)t; return "utf8mb4_0900_ai_ci"; }

/* ---- information_schema -------------------------------------------------------------- */

/* The cells information_schema.TABLES and SHOW TABLE STATUS share, from
 * ENGINE / Engine to TABLE_COMMENT / Comment. */
static void table_status_cells(srv_rs *rs, const cdch_sc_table *t)
{
    srv_rs_str(rs, t->engine ? t->engine : "InnoDB");
    srv_rs_uint(rs, 10);
    srv_rs_str(rs, "Dynamic");
    srv_rs_uint(rs, 0);
    srv_rs_uint(rs, 0);
    srv_rs_uint(rs, 16384);
    srv_rs_uint(rs, 0);
    srv_rs_uint(rs, 0);
    srv_rs_uint(rs, 0);
    srv_rs_str(rs, NULL);
    srv_rs_str(rs, "2024-01-01 00:00:00");
    srv_rs_str(rs, NULL);
    srv_rs_str(rs, NULL);
    srv_rs_str(rs, table_collation(t));
    srv_rs_str(rs, NULL);
    srv_rs_str(rs, "");
    srv_rs_str(rs, "");
}

static void is_schemata(const struct cdch_server *srv, srv_rs *rs)
{
    const char *cols[] = {"CATALOG_NAME", "SCHEMA_NAME", "DEFAULT_CHARACTER_SET_NAME", "DEFAULT_COLLATION_NAME",
                          "SQL_PATH", "DEFAULT_ENCRYPTION"};
    for (size_t i = 0; i < 6; i++)
        col_s(rs, cols[i]);
    for (size_t i = 0; i < srv_schema_ndbs(srv); i++) {
        const char *db = srv_schema_db(srv, i);
        const cdch_sc_database *d = srv_schema_sc_db(srv, db);
        bool sys = !d;
        srv_rs_str(rs, "def");
        srv_rs_str(rs, db);
        srv_rs_str(rs, sys ? "utf8mb3" : d->charset ? d->charset : "utf8mb4");
        srv_rs_str(rs, sys ? "utf8mb3_general_ci" : d->collation ? d->collation : "utf8mb4_0900_ai_ci");
        srv_rs_str(rs, NULL);
        srv_rs_str(rs, "NO");
    }
}

static void is_tables(const struct cdch_server *srv, srv_rs *rs, size_t *nvisible)
{
    static const char *const cols[] = {"TABLE_CATALOG", "TABLE_SCHEMA",   "TABLE_NAME",      "TABLE_TYPE",
                                       "ENGINE",        "VERSION",        "ROW_FORMAT",      "TABLE_ROWS",
                                       "AVG_ROW_LENGTH", "DATA_LENGTH",   "MAX_DATA_LENGTH", "INDEX_LENGTH",
                                       "DATA_FREE",     "AUTO_INCREMENT", "CREATE_TIME",     "UPDATE_TIME",
                                       "CHECK_TIME",    "TABLE_COLLATION", "CHECKSUM",       "CREATE_OPTIONS",
                                       "TABLE_COMMENT"};
    for (size_t i = 0; i < sizeof cols / sizeof cols[0]; i++) {
        bool num = i == 5 || (i >= 7 && i <= 13) || i == 18;
        bool dt = i >= 14 && i <= 16;
        srv_rs_col(rs, cols[i], num ? CDCH_T_LONGLONG : dt ? CDCH_T_DATETIME : CDCH_T_VAR_STRING);
    }
    *nvisible = rs->ncols;
    col_s(rs, "CHARACTER_SET_NAME"); /* from COLLATION_CHARACTER_SET_APPLICABILITY joins (Maxwell) */
    for (size_t i = 0; i < srv->s->ntables; i++) {
        const cdch_sc_table *t = &srv->s->tables[i];
        srv_rs_str(rs, "def");
        srv_rs_str(rs, t->db);
        srv_rs_str(rs, t->name);
        srv_rs_str(rs, "BASE TABLE");
        table_status_cells(rs, t);
        srv_rs_str(rs, "utf8mb4");
    }
}

static void is_columns(const struct cdch_server *srv, srv_rs *rs)
{
    static const char *const cols[] = {
        "TABLE_CATALOG", "TABLE_SCHEMA", "TABLE_NAME", "COLUMN_NAME", "ORDINAL_POSITION", "COLUMN_DEFAULT",
        "IS_NULLABLE", "DATA_TYPE", "CHARACTER_MAXIMUM_LENGTH", "CHARACTER_OCTET_LENGTH", "NUMERIC_PRECISION",
        "NUMERIC_SCALE", "DATETIME_PRECISION", "CHARACTER_SET_NAME", "COLLATION_NAME", "COLUMN_TYPE", "COLUMN_KEY",
        "EXTRA", "PRIVILEGES", "COLUMN_COMMENT", "GENERATION_EXPRESSION", "SRS_ID"};
    for (size_t i = 0; i < sizeof cols / sizeof cols[0]; i++) {
        bool num = i == 4 || (i >= 8 && i <= 12) || i == 21;
        srv_rs_col(rs, cols[i], num ? CDCH_T_LONGLONG : CDCH_T_VAR_STRING);
    }
    for (size_t i = 0; i < srv->s->ntables; i++) {
        const cdch_sc_table *t = &srv->s->tables[i];
        for (size_t j = 0; j < t->ncols; j++) {
            const cdch_sc_column *c = &t->cols[j];
            colinfo ci;
            col_info(c, &ci);
            srv_rs_str(rs, "def");
            srv_rs_str(rs, t->db);
            srv_rs_str(rs, t->name);
            srv_rs_str(rs, c->name);
            srv_rs_uint(rs, j + 1);
            srv_rs_str(rs, ci.has_default ? ci.deflt : NULL);
            srv_rs_str(rs, c->def.nullable ? "YES" : "NO");
            srv_rs_str(rs, ci.data_type);
            cell_u(rs, ci.has_maxlen, ci.maxlen);
            cell_u(rs, ci.has_maxlen, ci.octets);
            cell_u(rs, ci.has_prec, ci.prec);
            cell_u(rs, ci.has_scale, ci.scale);
            cell_u(rs, ci.has_dtprec, ci.dtprec);
            bool text = c->charset && strcmp(c->charset, "binary") != 0;
            srv_rs_str(rs, text ? c->charset : NULL);
            srv_rs_str(rs, text ? c->collation : NULL);
            srv_rs_str(rs, c->sql_type);
            srv_rs_str(rs, c->primary_key ? "PRI" : "");
            srv_rs_str(rs, ci.extra);
            srv_rs_str(rs, "select,insert,update,references");
            srv_rs_str(rs, "");
            srv_rs_str(rs, "");
            srv_rs_str(rs, NULL);
        }
    }
}

static void is_key_column_usage(const struct cdch_server *srv, srv_rs *rs)
{
    static const char *const cols[] = {"CONSTRAINT_CATALOG",  "CONSTRAINT_SCHEMA",
                                       "CONSTRAINT_NAME",     "TABLE_CATALOG",
                                       "TABLE_SCHEMA",        "TABLE_NAME",
                                       "COLUMN_NAME",         "ORDINAL_POSITION",
                                       "POSITION_IN_UNIQUE_CONSTRAINT", "REFERENCED_TABLE_SCHEMA",
                                       "REFERENCED_TABLE_NAME", "REFERENCED_COLUMN_NAME"};
    for (size_t i = 0; i < sizeof cols / sizeof cols[0]; i++)
        srv_rs_col(rs, cols[i], i == 7 || i == 8 ? CDCH_T_LONGLONG : CDCH_T_VAR_STRING);
    for (size_t i = 0; i < srv->s->ntables; i++) {
        const cdch_sc_table *t = &srv->s->tables[i];
        size_t pos = 0;
        for (size_t j = 0; j < t->ncols; j++) {
            if (!t->cols[j].primary_key)
                continue;
            srv_rs_str(rs, "def");
            srv_rs_str(rs, t->db);
            srv_rs_str(rs, "PRIMARY");
            srv_rs_str(rs, "def");
            srv_rs_str(rs, t->db);
            srv_rs_str(rs, t->name);
            srv_rs_str(rs, t->cols[j].name);
            srv_rs_uint(rs, ++pos);
            for (int k = 0; k < 4; k++)
                srv_rs_str(rs, NULL);
        }
    }
}

static void statistics_rows(const cdch_sc_table *t, srv_rs *rs, bool show_index)
{
    size_t seq = 0;
    for (size_t j = 0; j < t->ncols; j++) {
        const cdch_sc_column *c = &t->cols[j];
        if (!c->primary_key)
            continue;
        if (!show_index) {
            srv_rs_str(rs, "def");
            srv_rs_str(rs, t->db);
        }
        srv_rs_str(rs, t->name);
        srv_rs_uint(rs, 0);
        if (!show_index)
            srv_rs_str(rs, t->db);
        srv_rs_str(rs, "PRIMARY");
        srv_rs_uint(rs, ++seq);
        srv_rs_str(rs, c->name);
        srv_rs_str(rs, "A");
        srv_rs_uint(rs, 0);
        srv_rs_str(rs, NULL);
        srv_rs_str(rs, NULL);
        srv_rs_str(rs, "");
        srv_rs_str(rs, "BTREE");
        srv_rs_str(rs, "");
        srv_rs_str(rs, "");
        srv_rs_str(rs, show_index ? "YES" : "YES");
        srv_rs_str(rs, NULL);
    }
}

static void is_statistics(const struct cdch_server *srv, srv_rs *rs)
{
    static const char *const cols[] = {"TABLE_CATALOG", "TABLE_SCHEMA", "TABLE_NAME",  "NON_UNIQUE", "INDEX_SCHEMA",
                                       "INDEX_NAME",    "SEQ_IN_INDEX", "COLUMN_NAME", "COLLATION",  "CARDINALITY",
                                       "SUB_PART",      "PACKED",       "NULLABLE",    "INDEX_TYPE", "COMMENT",
                                       "INDEX_COMMENT", "IS_VISIBLE",   "EXPRESSION"};
    for (size_t i = 0; i < sizeof cols / sizeof cols[0]; i++)
        srv_rs_col(rs, cols[i], i == 3 || i == 6 || i == 9 || i == 10 ? CDCH_T_LONGLONG : CDCH_T_VAR_STRING);
    for (size_t i = 0; i < srv->s->ntables; i++)
        statistics_rows(&srv->s->tables[i], rs, false);
}

static void is_table_constraints(const struct cdch_server *srv, srv_rs *rs)
{
    static const char *const cols[] = {"CONSTRAINT_CATALOG", "CONSTRAINT_SCHEMA", "CONSTRAINT_NAME", "TABLE_SCHEMA",
                                       "TABLE_NAME",         "CONSTRAINT_TYPE",   "ENFORCED"};
    for (size_t i = 0; i < sizeof cols / sizeof cols[0]; i++)
        col_s(rs, cols[i]);
    for (size_t i = 0; i < srv->s->ntables; i++) {
        const cdch_sc_table *t = &srv->s->tables[i];
        bool pk = false;
        for (size_t j = 0; j < t->ncols; j++)
            pk |= t->cols[j].primary_key;
        if (!pk)
            continue;
        srv_rs_str(rs, "def");
        srv_rs_str(rs, t->db);
        srv_rs_str(rs, "PRIMARY");
        srv_rs_str(rs, t->db);
        srv_rs_str(rs, t->name);
        srv_rs_str(rs, "PRIMARY KEY");
        srv_rs_str(rs, "YES");
    }
}

static const char *charset_of(const char *collation, char *buf, size_t cap)
{
    if (!strcmp(collation, "binary"))
        return "binary";
    const char *u = strchr(collation, '_');
    snprintf(buf, cap, "%.*s", (int)(u ? (size_t)(u - collation) : strlen(collation)), collation);
    return buf;
}

static void is_collations(srv_rs *rs, int which)
{
    /* which: 0 COLLATIONS, 1 CHARACTER_SETS, 2 COLLATION_CHARACTER_SET_APPLICABILITY */
    if (which == 0) {
        col_s(rs, "COLLATION_NAME");
        col_s(rs, "CHARACTER_SET_NAME");
        col_i(rs, "ID");
        col_s(rs, "IS_DEFAULT");
        col_s(rs, "IS_COMPILED");
        col_i(rs, "SORTLEN");
        col_s(rs, "PAD_ATTRIBUTE");
    } else if (which == 1) {
        col_s(rs, "CHARACTER_SET_NAME");
        col_s(rs, "DEFAULT_COLLATE_NAME");
        col_s(rs, "DESCRIPTION");
        col_i(rs, "MAXLEN");
    } else {
        col_s(rs, "COLLATION_NAME");
        col_s(rs, "CHARACTER_SET_NAME");
    }
    const char *seen[512];
    size_t nseen = 0;
    for (uint32_t id = 1; id < 512; id++) {
        const char *name = cdch_collation_name(id);
        if (!name)
            continue;
        char cb[64];
        const char *cs = charset_of(name, cb, sizeof cb);
        const char *def = cdch_default_collation(cs);
        if (which == 0) {
            srv_rs_str(rs, name);
            srv_rs_str(rs, cs);
            srv_rs_uint(rs, id);
            srv_rs_str(rs, def && !strcmp(def, name) ? "Yes" : "");
            srv_rs_str(rs, "Yes");
            srv_rs_uint(rs, 8);
            srv_rs_str(rs, strstr(name, "_0900_") || !strcmp(name, "binary") ? "NO PAD" : "PAD SPACE");
        } else if (which == 2) {
            srv_rs_str(rs, name);
            srv_rs_str(rs, cs);
        } else {
            bool dup = false;
            for (size_t k = 0; k < nseen && !dup; k++)
                dup = strcmp(seen[k], def ? def : "") == 0;
            if (dup || !def)
                continue;
            seen[nseen++] = def; /* one default collation per charset: dedupe by it */
            srv_rs_str(rs, cs);
            srv_rs_str(rs, def);
            srv_rs_str(rs, cs);
            srv_rs_uint(rs, cdch_charset_mbmaxlen(cs));
        }
    }
}

static void is_engines(srv_rs *rs)
{
    col_s(rs, "ENGINE");
    col_s(rs, "SUPPORT");
    col_s(rs, "COMMENT");
    col_s(rs, "TRANSACTIONS");
    col_s(rs, "XA");
    col_s(rs, "SAVEPOINTS");
    static const char *const rows[][6] = {
        {"InnoDB", "DEFAULT", "Supports transactions, row-level locking, and foreign keys", "YES", "YES", "YES"},
        {"MyISAM", "YES", "MyISAM storage engine", "NO", "NO", "NO"},
        {"MEMORY", "YES", "Hash based, stored in memory, useful for temporary tables", "NO", "NO", "NO"},
    };
    for (size_t i = 0; i < 3; i++)
        for (size_t j = 0; j < 6; j++)
            srv_rs_str(rs, rows[i][j]);
}

void srv_processlist_rs(struct cdch_server *srv, srv_rs *rs, bool upper)
{
    const char *names[] = {"Id", "User", "Host", "db", "Command", "Time", "State", "Info"};
    const char *unames[] = {"ID", "USER", "HOST", "DB", "COMMAND", "TIME", "STATE", "INFO"};
    for (size_t i = 0; i < 8; i++)
        srv_rs_col(rs, upper ? unames[i] : names[i], i == 0 || i == 5 ? CDCH_T_LONGLONG : CDCH_T_VAR_STRING);
    pthread_mutex_lock(&srv->mu);
    for (size_t i = 0; i < srv->nconns; i++) {
        const srv_conn *c = srv->conns[i];
        char host[80];
        snprintf(host, sizeof host, "%s", c->peer);
        srv_rs_uint(rs, c->id);
        srv_rs_str(rs, c->user[0] ? c->user : "unauthenticated user");
        srv_rs_str(rs, host);
        srv_rs_str(rs, c->db[0] ? c->db : NULL);
        bool dumping = __atomic_load_n(&c->dumping, __ATOMIC_RELAXED); /* set by its own thread */
        srv_rs_str(rs, dumping ? "Binlog Dump" : "Sleep");
        srv_rs_uint(rs, 0);
        srv_rs_str(rs, dumping ? "Source has sent all binlog to replica; waiting for more updates" : "");
        srv_rs_str(rs, NULL);
    }
    pthread_mutex_unlock(&srv->mu);
}

static void empty_table(srv_rs *rs, const char *const *cols, size_t n)
{
    for (size_t i = 0; i < n; i++)
        col_s(rs, cols[i]);
}

/* ---- SHOW rows ------------------------------------------------------------------------ */

void srv_schema_columns_rs(const cdch_sc_table *t, bool full, srv_rs *rs)
{
    col_s(rs, "Field");
    col_s(rs, "Type")->type = CDCH_T_BLOB;
    if (full)
        col_s(rs, "Collation");
    col_s(rs, "Null");
    col_s(rs, "Key");
    col_s(rs, "Default")->type = CDCH_T_BLOB;
    col_s(rs, "Extra");
    if (full) {
        col_s(rs, "Privileges");
        col_s(rs, "Comment")->type = CDCH_T_BLOB;
    }
    for (size_t j = 0; j < t->ncols; j++) {
        const cdch_sc_column *c = &t->cols[j];
        colinfo ci;
        col_info(c, &ci);
        srv_rs_str(rs, c->name);
        srv_rs_str(rs, c->sql_type);
        if (full)
            srv_rs_str(rs, c->charset && strcmp(c->charset, "binary") ? c->collation : NULL);
        srv_rs_str(rs, c->def.nullable ? "YES" : "NO");
        srv_rs_str(rs, c->primary_key ? "PRI" : "");
        srv_rs_str(rs, ci.has_default ? ci.deflt : NULL);
        srv_rs_str(rs, ci.extra);
        if (full) {
            srv_rs_str(rs, "select,insert,update,references");
            srv_rs_str(rs, "");
        }
    }
}

void srv_schema_index_rs(const cdch_sc_table *t, srv_rs *rs)
{
    static const char *const cols[] = {"Table",       "Non_unique", "Key_name",   "Seq_in_index", "Column_name",
                                       "Collation",   "Cardinality", "Sub_part",  "Packed",       "Null",
                                       "Index_type",  "Comment",    "Index_comment", "Visible",   "Expression"};
    for (size_t i = 0; i < sizeof cols / sizeof cols[0]; i++)
        srv_rs_col(rs, cols[i], i == 1 || i == 3 || i == 6 || i == 7 ? CDCH_T_LONGLONG : CDCH_T_VAR_STRING);
    statistics_rows(t, rs, true);
}

void srv_schema_table_status_rs(const struct cdch_server *srv, const char *db, srv_rs *rs)
{
    static const char *const cols[] = {"Name",           "Engine",       "Version",     "Row_format",
                                       "Rows",           "Avg_row_length", "Data_length", "Max_data_length",
                                       "Index_length",   "Data_free",    "Auto_increment", "Create_time",
                                       "Update_time",    "Check_time",   "Collation",   "Checksum",
                                       "Create_options", "Comment"};
    for (size_t i = 0; i < sizeof cols / sizeof cols[0]; i++) {
        bool num = i == 2 || (i >= 4 && i <= 10) || i == 15;
        bool dt = i >= 11 && i <= 13;
        srv_rs_col(rs, cols[i], num ? CDCH_T_LONGLONG : dt ? CDCH_T_DATETIME : CDCH_T_VAR_STRING);
    }
    for (size_t i = 0; i < srv->s->ntables; i++) {
        const cdch_sc_table *t = &srv->s->tables[i];
        if (strcmp(t->db, db) != 0)
            continue;
        srv_rs_str(rs, t->name);
        table_status_cells(rs, t);
    }
}

void srv_schema_coldef(const cdch_sc_table *t, const cdch_sc_column *col, srv_col *out)
{
    uint8_t type = col->def.type;
    switch (type) {
    case CDCH_T_VARCHAR: type = CDCH_T_VAR_STRING; break;
    case CDCH_T_DATETIME2: type = CDCH_T_DATETIME; break;
    case CDCH_T_TIMESTAMP2: type = CDCH_T_TIMESTAMP; break;
    case CDCH_T_TIME2: type = CDCH_T_TIME; break;
    case CDCH_T_NEWDATE: type = CDCH_T_DATE; break;
    default: break;
    }
    if (col->def.real_type == CDCH_T_ENUM || col->def.real_type == CDCH_T_SET)
        type = CDCH_T_STRING;
    out->type = type;
    out->name = col->name;
    out->org_name = col->name;
    out->table = t->name;
    out->org_table = t->name;
    out->db = t->db;
    bool text = col->charset && strcmp(col->charset, "binary") != 0;
    out->charset = (uint16_t)(text ? (col->def.collation ? col->def.collation : 255) : 63);
    out->flags = 0;
    if (!col->def.nullable)
        out->flags |= SRV_COLF_NOT_NULL;
    if (col->primary_key)
        out->flags |= SRV_COLF_PRI_KEY;
    if (col->def.is_unsigned)
        out->flags |= SRV_COLF_UNSIGNED;
    if (!text)
        out->flags |= SRV_COLF_BINARY;
    colinfo ci;
    col_info(col, &ci);
    out->length = ci.has_maxlen ? (uint32_t)ci.octets : ci.has_prec ? (uint32_t)ci.prec + 2 : 20;
    out->decimals = ci.has_scale ? (uint8_t)ci.scale : ci.has_dtprec ? (uint8_t)ci.dtprec : 0;
}

/* ---- lookup ---------------------------------------------------------------------------- */

int srv_vtable(srv_conn *c, const char *db, const char *name, srv_rs *rs, size_t *nvisible, bool *upper,
               sql_ctx *cx)
{
    struct cdch_server *srv = c->srv;
    *upper = false;
    *nvisible = (size_t)-1;
    if (!strcasecmp(db, "information_schema")) {
        *upper = true;
        if (!strcasecmp(name, "SCHEMATA"))
            is_schemata(srv, rs);
        else if (!strcasecmp(name, "TABLES"))
            is_tables(srv, rs, nvisible);
        else if (!strcasecmp(name, "COLUMNS"))
            is_columns(srv, rs);
        else if (!strcasecmp(name, "KEY_COLUMN_USAGE"))
            is_key_column_usage(srv, rs);
        else if (!strcasecmp(name, "STATISTICS"))
            is_statistics(srv, rs);
        else if (!strcasecmp(name, "TABLE_CONSTRAINTS"))
            is_table_constraints(srv, rs);
        else if (!strcasecmp(name, "COLLATIONS"))
            is_collations(rs, 0);
        else if (!strcasecmp(name, "CHARACTER_SETS"))
            is_collations(rs, 1);
        else if (!strcasecmp(name, "COLLATION_CHARACTER_SET_APPLICABILITY"))
            is_collations(rs, 2);
        else if (!strcasecmp(name, "ENGINES"))
            is_engines(rs);
        else if (!strcasecmp(name, "PROCESSLIST"))
            srv_processlist_rs(srv, rs, true);
        else if (!strcasecmp(name, "CHECK_CONSTRAINTS")) {
            static const char *const cols[] = {"CONSTRAINT_CATALOG", "CONSTRAINT_SCHEMA", "CONSTRAINT_NAME",
                                               "CHECK_CLAUSE"};
            empty_table(rs, cols, 4);
        } else if (!strcasecmp(name, "VIEWS")) {
            static const char *const cols[] = {"TABLE_CATALOG", "TABLE_SCHEMA", "TABLE_NAME", "VIEW_DEFINITION",
                                               "CHECK_OPTION", "IS_UPDATABLE", "DEFINER", "SECURITY_TYPE",
                                               "CHARACTER_SET_CLIENT", "COLLATION_CONNECTION"};
            empty_table(rs, cols, 10);
        } else if (!strcasecmp(name, "ROUTINES") || !strcasecmp(name, "TRIGGERS") || !strcasecmp(name, "EVENTS")) {
            static const char *const cols[] = {"SPECIFIC_NAME", "ROUTINE_CATALOG", "ROUTINE_SCHEMA", "ROUTINE_NAME",
                                               "ROUTINE_TYPE"};
            empty_table(rs, cols, 5);
        } else {
            return sql_fail(cx, 1109, "42S02", "Unknown table '%s' in information_schema (the fake primary serves "
                                               "SCHEMATA, TABLES, COLUMNS, KEY_COLUMN_USAGE, STATISTICS, "
                                               "TABLE_CONSTRAINTS, COLLATIONS, CHARACTER_SETS, ENGINES, PROCESSLIST)",
                            name);
        }
        return 0;
    }
    if (!strcasecmp(db, "performance_schema")) {
        *upper = true;
        bool global = !strncasecmp(name, "global_", 7);
        if (!strcasecmp(name, "global_variables") || !strcasecmp(name, "session_variables") ||
            !strcasecmp(name, "global_status") || !strcasecmp(name, "session_status")) {
            srv_rs tmp;
            srv_rs_init(&tmp);
            if (srv_ci_contains(name, "variables"))
                srv_sysvars_rs(c, global, &tmp);
            else
                srv_status_rs(c, global, &tmp);
            col_s(rs, "VARIABLE_NAME");
            col_s(rs, "VARIABLE_VALUE");
            for (size_t r = 0; r < srv_rs_nrows(&tmp); r++)
                for (size_t k = 0; k < 2; k++) {
                    size_t n;
                    const char *s = srv_rs_get(&tmp, r, k, &n);
                    srv_rs_cell(rs, s, n);
                }
            srv_rs_free(&tmp);
            return 0;
        }
        if (!strcasecmp(name, "replication_connection_status") || !strcasecmp(name, "replication_applier_status")) {
            static const char *const cols[] = {"CHANNEL_NAME", "SERVICE_STATE"};
            empty_table(rs, cols, 2);
            return 0;
        }
        return sql_fail(cx, 1146, "42S02", "Table 'performance_schema.%s' doesn't exist (the fake primary serves "
                                           "global_variables, session_variables, global_status, session_status)",
                        name);
    }
    if (!srv_db_exists(srv, db))
        return sql_fail(cx, 1049, "42000", "Unknown database '%s'", db);
    const cdch_sc_table *t = srv_schema_table(srv, db, name);
    if (!t)
        return sql_fail(cx, 1146, "42S02", "Table '%s.%s' doesn't exist", db, name);
    for (size_t j = 0; j < t->ncols; j++) {
        srv_col *col = srv_rs_col(rs, t->cols[j].name, CDCH_T_VAR_STRING);
        srv_schema_coldef(t, &t->cols[j], col);
    }
    return 0;
}
