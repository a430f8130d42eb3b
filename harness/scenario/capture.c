/* capture.c — a scenario that names a captured stream (`capture:`,
 * scenarios/README.md "Captured streams"): the capture directory resolved
 * against the scenario file's folder, the server identity read from the head
 * of its first binlog file (FORMAT_DESCRIPTION, first GTID event), and the
 * schema (databases, tables, columns) parsed from its schema.sql: the CREATE
 * DATABASE / USE / CREATE TABLE statements `cdcharness record` writes (SHOW
 * CREATE output) or a user writes by hand. The stream itself is not read
 * here: harness/stream (replay.h) turns the capture into served files and
 * expected events.
 *
 * The same SQL reader parses the stream's DDL statements one at a time
 * (sc_ddl_parse, cdch_sc_parse_create_table: CREATE/ALTER/DROP DATABASE,
 * CREATE TABLE [LIKE], ALTER TABLE, RENAME TABLE, DROP TABLE) for the DDL
 * tracker (ddltrack.c, ddltrack.h).
 *
 * Owns: nothing beyond the scenario's arena (or the caller's, for a
 * statement); the token list and the file text are freed before returning.
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "ddltrack.h"
#include "event.h"
#include "gtid.h"
#include "reader.h"
#include "scenario_internal.h"
#include "sys.h"
#include "xalloc.h"

/* ---- the capture directory ------------------------------------------------------- */

/* The directory of the scenario file (for a relative `capture:`). */
static void file_dir(const char *path, char *out, size_t cap)
{
    const char *slash = strrchr(path, '/');
    if (!slash)
        snprintf(out, cap, ".");
    else if (slash == path)
        snprintf(out, cap, "/");
    else
        snprintf(out, cap, "%.*s", (int)(slash - path), path);
}

/* The first file the capture's single *.index lists (a full path in out). */
static int first_binlog(const char *dir, char *out, size_t cap, cdch_err *err)
{
    DIR *d = opendir(dir);
    if (!d)
        return cdch_err_set(err, "capture directory %s: %s", dir, strerror(errno));
    char index[NAME_MAX + 1] = "";
    int nindex = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        size_t n = strlen(e->d_name);
        if (n > 6 && strcmp(e->d_name + n - 6, ".index") == 0 && nindex++ == 0)
            snprintf(index, sizeof index, "%s", e->d_name);
    }
    closedir(d);
    if (nindex != 1)
        return cdch_err_set(err,
                            "capture directory %s holds %d *.index files; it needs exactly one (what `cdcharness "
                            "record` writes, or a server's binlog directory with its index)",
                            dir, nindex);
    char ipath[PATH_MAX + NAME_MAX + 2];
    snprintf(ipath, sizeof ipath, "%s/%s", dir, index);
    size_t len;
    char *text = cdch_read_file(ipath, 16u << 20, &len, err);
    if (!text)
        return -1;
    char *line = text;
    while (*line && isspace((unsigned char)*line))
        line++;
    size_t n = strcspn(line, "\r\n");
    while (n && line[n - 1] == ' ')
        n--;
    line[n] = '\0';
    const char *base = strrchr(line, '/');
    base = base ? base + 1 : line;
    int rc = 0;
    if (!*base)
        rc = cdch_err_set(err, "%s lists no binlog file", ipath);
    else
        snprintf(out, cap, "%s/%s", dir, base);
    free(text);
    return rc;
}

/* The server identity from the head of the first file: its FORMAT_DESCRIPTION
 * (version, server id, checksum) and first GTID event (uuid, gtid_mode, GNO). */
static int read_head(sc_ctx *c, yaml_node_t *node, const char *path)
{
    cdch_scenario *s = c->s;
    cdch_err e;
    cdch_reader *r = cdch_reader_open(path, 0, &e);
    if (!r)
        return sc_fail(c, node, "capture: %s", e.msg);
    cdch_decoder *d = cdch_decoder_new();
    cdch_arena a = CDCH_ARENA_INIT;
    cdch_raw_event raw;
    bool fde = false;
    int rc = 0;
    for (unsigned n = 0; n < 10000 && cdch_reader_next(r, &raw, &e) == 1; n++) {
        cdch_event ev;
        memset(&ev, 0, sizeof ev);
        if (cdch_decode_event(d, raw.data, raw.len, &a, &ev, &e) != 0) {
            rc = sc_fail(c, node, "capture: %s: offset %llu: %s", path, (unsigned long long)raw.offset, e.msg);
            break;
        }
        if (ev.h.type == CDCH_EV_FORMAT_DESCRIPTION && !fde) {
            fde = true;
            s->server.version = cdch_arena_strdup(c->a, ev.u.fde.server_version);
            s->server.server_id = ev.h.server_id ? ev.h.server_id : 1;
            s->binlog.checksum = ev.u.fde.checksum_alg == CDCH_CHECKSUM_CRC32;
            c->version = ev.u.fde.version_product;
        } else if (ev.h.type == CDCH_EV_GTID || ev.h.type == CDCH_EV_GTID_TAGGED) {
            memcpy(s->server.uuid, ev.u.gtid.sid, 16);
            s->server.gtid_mode = true;
            s->server.first_gno = ev.u.gtid.gno > 0 ? (uint64_t)ev.u.gtid.gno : 1;
            break;
        } else if (ev.h.type == CDCH_EV_ANONYMOUS_GTID) {
            s->server.gtid_mode = false;
            break;
        }
        cdch_arena_reset(&a);
    }
    cdch_arena_free(&a);
    cdch_decoder_free(d);
    cdch_reader_free(r);
    if (rc == 0 && !fde)
        rc = sc_fail(c, node, "capture: %s starts with no FORMAT_DESCRIPTION event", path);
    return rc;
}

/* ---- schema.sql: a small SQL lexer -------------------------------------------------- */

typedef enum { TK_WORD = 1, TK_IDENT, TK_STRING, TK_PUNCT, TK_SEMI } tk_kind;

typedef struct tok {
    tk_kind k;
    size_t at, end; /* byte range in the file text */
    unsigned line;
    char *text;     /* words as written, identifiers and strings unquoted (in the lexer's arena) */
} tok;

typedef struct lexer {
    const char *src;
    size_t len, pos;
    unsigned line;
    tok *t;
    size_t n, cap;
    const char *err;
    cdch_arena a;   /* token texts */
} lexer;

static void lx_push(lexer *lx, tk_kind k, size_t at, unsigned line, char *text)
{
    if (lx->n == lx->cap) {
        lx->cap = lx->cap ? lx->cap * 2 : 256;
        lx->t = cdch_xrealloc(lx->t, lx->cap * sizeof *lx->t);
    }
    lx->t[lx->n++] = (tok){k, at, lx->pos, line, text};
}

/* A quoted run (q = ` ' "): doubled quotes, and backslash escapes in strings. */
static char *lx_quoted(lexer *lx, char q)
{
    cdch_buf b = CDCH_BUF_INIT;
    lx->pos++;
    for (;;) {
        if (lx->pos >= lx->len) {
            cdch_buf_free(&b);
            lx->err = q == '`' ? "an identifier's closing ` is missing" : "a string's closing quote is missing";
            return NULL;
        }
        char ch = lx->src[lx->pos++];
        if (ch == '\n')
            lx->line++;
        if (ch == q) {
            if (lx->pos < lx->len && lx->src[lx->pos] == q) {
                lx->pos++;
                cdch_put_u8(&b, (uint8_t)q);
                continue;
            }
            break;
        }
        if (ch == '\\' && q != '`' && lx->pos < lx->len) {
            ch = lx->src[lx->pos++];
            ch = ch == 'n' ? '\n' : ch == 't' ? '\t' : ch == 'r' ? '\r' : ch == '0' ? '\0' : ch;
        }
        cdch_put_u8(&b, (uint8_t)ch);
    }
    char *out = cdch_arena_memdup(&lx->a, b.data ? (const char *)b.data : "", b.len);
    cdch_buf_free(&b);
    return out;
}

/* Comments are skipped; a version comment's marker (`/ *!80023` and its
 * closing `* /`) is skipped but its content is read as SQL, as MySQL does. */
static int lx_run(lexer *lx)
{
    int cond = 0; /* open version comments */
    while (lx->pos < lx->len) {
        const char *p = lx->src + lx->pos;
        size_t left = lx->len - lx->pos;
        if (*p == '\n') {
            lx->line++;
            lx->pos++;
        } else if (isspace((unsigned char)*p)) {
            lx->pos++;
        } else if (*p == '#' || (left >= 2 && p[0] == '-' && p[1] == '-' && (left == 2 || isspace((unsigned char)p[2])))) {
            while (lx->pos < lx->len && lx->src[lx->pos] != '\n')
                lx->pos++;
        } else if (left >= 3 && p[0] == '/' && p[1] == '*' && p[2] == '!') {
            lx->pos += 3;
            while (lx->pos < lx->len && isdigit((unsigned char)lx->src[lx->pos]))
                lx->pos++;
            cond++;
        } else if (left >= 2 && p[0] == '/' && p[1] == '*') {
            /* bounded: the text need not end in a NUL (a QUERY event's statement) */
            const char *e = NULL;
            for (size_t k = 2; k + 1 < left && !e; k++)
                if (p[k] == '*' && p[k + 1] == '/')
                    e = p + k;
            if (!e)
                return (lx->err = "a comment's closing */ is missing"), -1;
            for (const char *q = p; q < e; q++)
                lx->line += *q == '\n';
            lx->pos = (size_t)(e + 2 - lx->src);
        } else if (cond && left >= 2 && p[0] == '*' && p[1] == '/') {
            cond--;
            lx->pos += 2;
        } else if (*p == '`' || *p == '\'' || *p == '"') {
            size_t at = lx->pos;
            unsigned line = lx->line;
            char *text = lx_quoted(lx, *p);
            if (!text)
                return -1;
            lx_push(lx, *p == '`' ? TK_IDENT : TK_STRING, at, line, text);
        } else if (isalnum((unsigned char)*p) || *p == '_' || *p == '$' || (unsigned char)*p >= 0x80) {
            size_t at = lx->pos;
            while (lx->pos < lx->len && (isalnum((unsigned char)lx->src[lx->pos]) || lx->src[lx->pos] == '_' ||
                                         lx->src[lx->pos] == '$' || (unsigned char)lx->src[lx->pos] >= 0x80))
                lx->pos++;
            lx_push(lx, TK_WORD, at, lx->line, cdch_arena_memdup(&lx->a, p, lx->pos - at));
        } else {
            size_t at = lx->pos++;
            lx_push(lx, *p == ';' ? TK_SEMI : TK_PUNCT, at, lx->line, cdch_arena_memdup(&lx->a, p, 1));
        }
    }
    return 0;
}

/* ---- SQL statements: schema.sql and the stream's DDL ---------------------------------- */

typedef struct parser {
    cdch_arena *a;        /* where names, tables and columns go */
    cdch_err *err;        /* the first problem ... */
    unsigned err_line;    /* ... and its line in the text */
    lexer *lx;
    size_t i, end;        /* current token, end of the statement (its ';' or the last token) */
    const char *db;       /* USE, or the QUERY event's database; NULL: none */
    uint64_t first_table_id;
    bool in_alter;        /* ALTER TABLE: FIRST and AFTER end a column definition */
    bool if_not_exists;   /* the last CREATE TABLE said IF NOT EXISTS */
    bool selects;         /* the last CREATE TABLE had a query part (AS SELECT, IGNORE SELECT ...) */
    size_t capnames, capalters; /* of the sc_ddl being read */
    cdch_sc_database *dbs;
    size_t ndbs, capdbs;
    cdch_sc_table *tables;
    size_t ntables, captables;
} parser;

static int pfail(parser *p, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
static int pfail(parser *p, const char *fmt, ...)
{
    char msg[CDCH_ERR_MSG_MAX];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    p->err_line = p->i < p->lx->n ? p->lx->t[p->i].line : p->lx->line;
    return cdch_err_set(p->err, "%s", msg);
}

static tok *cur(parser *p) { return p->i < p->end ? &p->lx->t[p->i] : NULL; }

static bool is_word(const tok *t, const char *w) { return t && t->k == TK_WORD && strcasecmp(t->text, w) == 0; }
static bool is_punct(const tok *t, char ch) { return t && t->k == TK_PUNCT && t->text[0] == ch; }

static bool kw(parser *p, const char *w)
{
    if (!is_word(cur(p), w))
        return false;
    p->i++;
    return true;
}

static bool punct(parser *p, char ch)
{
    if (!is_punct(cur(p), ch))
        return false;
    p->i++;
    return true;
}

/* An identifier (quoted or not); NULL when the current token is none. */
static const char *ident(parser *p)
{
    tok *t = cur(p);
    if (!t || (t->k != TK_IDENT && t->k != TK_WORD) || !t->text[0])
        return NULL;
    p->i++;
    return t->text;
}

/* Skip one token, or a parenthesised group as a whole. */
static void skip_one(parser *p)
{
    int depth = 0;
    do {
        tok *t = cur(p);
        if (!t)
            return;
        depth += is_punct(t, '(') - is_punct(t, ')');
        p->i++;
    } while (depth > 0);
}

/* Skip to the ',' or ')' that ends a table element (not consumed). */
static void skip_element(parser *p)
{
    while (cur(p) && !is_punct(cur(p), ',') && !is_punct(cur(p), ')'))
        skip_one(p);
}

/* "[=] value" of a table or database option, arena copy. */
static const char *option_value(parser *p)
{
    punct(p, '=');
    const char *v = ident(p);
    if (!v) {
        tok *t = cur(p);
        if (t && t->k == TK_STRING) {
            p->i++;
            v = t->text;
        }
    }
    return v ? cdch_arena_strdup(p->a, v) : NULL;
}

/* [DEFAULT] CHARACTER SET / CHARSET / COLLATE x: true when one was read. */
static bool charset_option(parser *p, const char **cs, const char **coll)
{
    size_t save = p->i;
    kw(p, "DEFAULT");
    if (kw(p, "CHARSET") || (kw(p, "CHARACTER") && kw(p, "SET"))) {
        *cs = option_value(p);
        return true;
    }
    if (kw(p, "COLLATE")) {
        *coll = option_value(p);
        return true;
    }
    p->i = save;
    return false;
}

/* Canonical charset and collation (either may be NULL); NULL, NULL when neither. */
static int resolve_cs(parser *p, const char *what, const char **cs, const char **coll)
{
    if (*cs) {
        const char *canon = sc_charset_canon(*cs);
        if (!canon)
            return pfail(p, "unknown character set '%s' for %s", *cs, what);
        *cs = canon;
    }
    if (*coll) {
        const char *canon = sc_collation_canon(*coll);
        if (!canon)
            return pfail(p, "unknown collation '%s' for %s", *coll, what);
        *coll = canon;
        *cs = sc_collation_charset(canon);
    } else if (*cs) {
        *coll = cdch_default_collation(*cs);
    }
    return 0;
}

static cdch_sc_database *find_dbase(parser *p, const char *name) { return sc_find_db(p->dbs, p->ndbs, name); }

static cdch_sc_database *add_dbase(parser *p, const char *name, const char *cs, const char *coll)
{
    if (p->ndbs == p->capdbs) {
        p->capdbs = p->capdbs ? p->capdbs * 2 : 8;
        p->dbs = cdch_xrealloc(p->dbs, p->capdbs * sizeof *p->dbs);
    }
    cdch_sc_database *d = &p->dbs[p->ndbs++];
    d->name = cdch_arena_strdup(p->a, name);
    d->charset = cs ? cs : "utf8mb4";
    d->collation = coll ? coll : "utf8mb4_0900_ai_ci";
    return d;
}

/* CREATE DATABASE|SCHEMA [IF NOT EXISTS] name [options] (after DATABASE): the name (a token's
 * text) and its canonical charset and collation (NULL, NULL when it names none). */
static int database_def(parser *p, const char **name, const char **cs, const char **coll)
{
    p->if_not_exists = false;
    if (kw(p, "IF")) {
        if (!(kw(p, "NOT") && kw(p, "EXISTS")))
            return pfail(p, "expected IF NOT EXISTS");
        p->if_not_exists = true;
    }
    *name = ident(p);
    if (!*name)
        return pfail(p, "CREATE DATABASE without a name");
    *cs = *coll = NULL;
    while (cur(p))
        if (!charset_option(p, cs, coll))
            p->i++;
    return resolve_cs(p, "a database", cs, coll);
}

/* schema.sql's CREATE DATABASE: a database the tables may name. */
static int create_database(parser *p)
{
    const char *name, *cs, *coll;
    if (database_def(p, &name, &cs, &coll) < 0)
        return -1;
    if (!find_dbase(p, name))
        add_dbase(p, name, cs, coll);
    return 0;
}

/* PRIMARY KEY [name] [USING x] (col[(n)] [ASC|DESC], ...): mark the columns. */
static int primary_key(parser *p, sc_coldef *cols, size_t ncols)
{
    while (cur(p) && !is_punct(cur(p), '('))
        p->i++;
    if (!punct(p, '('))
        return pfail(p, "PRIMARY KEY without its column list");
    for (;;) {
        const char *name = ident(p);
        if (!name)
            return pfail(p, "expected a column name in PRIMARY KEY (...)");
        size_t k = 0;
        while (k < ncols && strcasecmp(cols[k].name, name) != 0)
            k++;
        if (k == ncols)
            return pfail(p, "PRIMARY KEY names column '%s', which the table does not have", name);
        cols[k].pk = true;
        while (cur(p) && !is_punct(cur(p), ',') && !is_punct(cur(p), ')'))
            skip_one(p); /* prefix length, ASC/DESC */
        if (punct(p, ')'))
            return 0;
        if (!punct(p, ','))
            return pfail(p, "PRIMARY KEY (...) is not closed");
    }
}

/* Words that end a column's type and start its attributes. */
static bool attribute_word(const tok *t)
{
    static const char *const words[] = {"NOT",    "NULL",       "DEFAULT",   "AUTO_INCREMENT", "COMMENT",
                                        "PRIMARY", "UNIQUE",    "KEY",       "INVISIBLE",      "VISIBLE",
                                        "GENERATED", "AS",      "ON",        "COLUMN_FORMAT",  "STORAGE",
                                        "SRID",   "REFERENCES", "CHECK",     "CONSTRAINT",     "ENGINE_ATTRIBUTE",
                                        "SECONDARY_ENGINE_ATTRIBUTE", NULL};
    for (size_t i = 0; t && t->k == TK_WORD && words[i]; i++)
        if (strcasecmp(t->text, words[i]) == 0)
            return true;
    return false;
}

/* ALTER TABLE's FIRST / AFTER c, which end a column definition there. */
static bool position_word(const parser *p, const tok *t)
{
    return p->in_alter && (is_word(t, "FIRST") || is_word(t, "AFTER"));
}

/* The end of a column definition: ',' or ')' (or FIRST/AFTER in ALTER TABLE). */
static bool column_end(parser *p)
{
    tok *t = cur(p);
    return !t || is_punct(t, ',') || is_punct(t, ')') || position_word(p, t);
}

/* After DEFAULT: the default's text (arena copy) into *out; DEFAULT NULL leaves *out as it is. */
static void default_value(parser *p, const char **out)
{
    if (kw(p, "NULL"))
        return;
    size_t at = cur(p) ? cur(p)->at : 0, first = p->i;
    punct(p, '-');
    punct(p, '+');
    skip_one(p);
    /* b'0101', _utf8mb4'x', CURRENT_TIMESTAMP(3): a word and what sticks to it */
    tok *t = cur(p);
    if (t && p->i > first && t->at == p->lx->t[p->i - 1].end && (t->k == TK_STRING || is_punct(t, '(')))
        skip_one(p);
    if (p->i > first)
        *out = cdch_arena_memdup(p->a, p->lx->src + at, p->lx->t[p->i - 1].end - at);
}

/* The rest of a column definition after its type. */
static void column_attributes(parser *p, sc_coldef *col)
{
    while (!column_end(p)) {
        if (kw(p, "NOT")) {
            col->not_null = kw(p, "NULL") || col->not_null;
        } else if (kw(p, "NULL")) {
            col->not_null = false;
        } else if (kw(p, "DEFAULT")) {
            default_value(p, &col->default_sql);
        } else if (kw(p, "AUTO_INCREMENT")) {
            col->auto_increment = true;
        } else if (kw(p, "INVISIBLE")) {
            col->invisible = true;
        } else if (kw(p, "UNIQUE")) {
            kw(p, "KEY");
        } else if (kw(p, "PRIMARY") || kw(p, "KEY")) {
            kw(p, "KEY");
            col->pk = true;
        } else {
            skip_one(p); /* COMMENT 'x', ON UPDATE ..., GENERATED ALWAYS AS (...), ... */
        }
    }
}

/* One column definition: name, type text (up to its attributes), attributes. */
static int column_def(parser *p, sc_coldef *col)
{
    memset(col, 0, sizeof *col);
    if (!cur(p))
        return pfail(p, "expected a column name");
    col->line = cur(p)->line;
    col->name = ident(p);
    if (!col->name)
        return pfail(p, "expected a column name");
    col->name = cdch_arena_strdup(p->a, col->name);
    size_t first = p->i;
    while (!column_end(p) && !attribute_word(cur(p)))
        skip_one(p);
    if (p->i == first)
        return pfail(p, "column %s has no type", col->name);
    size_t at = p->lx->t[first].at;
    col->type = cdch_arena_memdup(p->a, p->lx->src + at, p->lx->t[p->i - 1].end - at);
    column_attributes(p, col);
    return 0;
}

int sc_coldef_resolve(const sc_coldef *d, const char *charset, const char *collation, cdch_arena *a,
                      cdch_sc_column *out, cdch_err *err)
{
    memset(out, 0, sizeof *out);
    if (cdch_sc_parse_type(d->type, charset, collation, a, out, err) < 0)
        return -1;
    out->name = cdch_arena_strdup(a, d->name);
    out->def.name = out->name;
    out->primary_key = d->pk;
    out->def.nullable = !d->not_null && !d->pk;
    out->auto_increment = d->auto_increment;
    out->invisible = d->invisible;
    out->default_sql = d->default_sql;
    return 0;
}

/* The table of the columns as written, with its options resolved. */
static int build_table(parser *p, cdch_sc_table *t, sc_coldef *cols, size_t ncols, const char *cs, const char *coll)
{
    cdch_sc_database *db = find_dbase(p, t->db);
    if (!db)
        db = add_dbase(p, t->db, NULL, NULL);
    if (resolve_cs(p, "a table", &cs, &coll) < 0)
        return -1;
    if (!cs) {
        cs = db->charset;
        coll = db->collation;
    }
    t->charset = cs;
    t->collation = coll;
    t->cols = cdch_arena_alloc(p->a, ncols * sizeof *t->cols);
    t->ncols = ncols;
    for (size_t i = 0; i < ncols; i++) {
        cdch_err e;
        if (sc_coldef_resolve(&cols[i], cs, coll, p->a, &t->cols[i], &e) < 0) {
            p->err_line = cols[i].line;
            return cdch_err_set(p->err, "table %s.%s, column %s: %s", t->db, t->name, cols[i].name, e.msg);
        }
    }
    return 0;
}

/* Words that end a CREATE TABLE's options and start a query (CREATE TABLE ... SELECT). */
static bool query_word(const tok *t)
{
    return is_word(t, "SELECT") || is_word(t, "AS") || is_word(t, "IGNORE") || is_word(t, "REPLACE") ||
           is_word(t, "WITH") || is_word(t, "TABLE") || is_word(t, "VALUES");
}

/* CREATE TABLE [IF NOT EXISTS] [db.]name (columns and keys) [options];
 * stmt_at: where the statement starts in the text (its verbatim copy is
 * what SHOW CREATE TABLE answers when it is in SHOW CREATE form). */
static int create_table(parser *p, size_t stmt_at)
{
    bool if_not = false;
    if (kw(p, "IF")) {
        if (!(kw(p, "NOT") && kw(p, "EXISTS")))
            return pfail(p, "expected IF NOT EXISTS");
        if_not = true;
    }
    p->if_not_exists = if_not;
    p->selects = false;
    tok *nt = cur(p);
    const char *db = p->db, *name = ident(p);
    bool qualified = false;
    if (name && punct(p, '.')) {
        db = name;
        name = ident(p);
        qualified = true;
    }
    if (!name)
        return pfail(p, "CREATE TABLE without a table name");
    if (!db)
        return pfail(p, "CREATE TABLE %s: no database (qualify the name or put USE db; before it)", name);
    if (!punct(p, '('))
        return pfail(p, "CREATE TABLE %s: only CREATE TABLE name (columns ...) is understood (not LIKE or AS SELECT)",
                     name);
    for (size_t i = 0; i < p->ntables; i++)
        if (strcmp(p->tables[i].db, db) == 0 && strcmp(p->tables[i].name, name) == 0)
            return pfail(p, "table %s.%s is created twice", db, name);
    sc_coldef *cols = NULL;
    size_t ncols = 0, cap = 0;
    int rc = 0;
    for (;;) {
        tok *t = cur(p);
        if (!t) {
            rc = pfail(p, "CREATE TABLE %s: the column list is not closed", name);
            break;
        }
        if (is_word(t, "PRIMARY")) {
            if ((rc = primary_key(p, cols, ncols)) < 0)
                break;
            skip_element(p);
        } else if (is_word(t, "KEY") || is_word(t, "INDEX") || is_word(t, "UNIQUE") || is_word(t, "FULLTEXT") ||
                   is_word(t, "SPATIAL") || is_word(t, "CONSTRAINT") || is_word(t, "FOREIGN") || is_word(t, "CHECK")) {
            skip_element(p);
        } else {
            if (ncols == cap) {
                cap = cap ? cap * 2 : 16;
                cols = cdch_xrealloc(cols, cap * sizeof *cols);
            }
            if ((rc = column_def(p, &cols[ncols])) < 0)
                break;
            ncols++;
        }
        if (punct(p, ')'))
            break;
        if (!punct(p, ',')) {
            rc = pfail(p, "CREATE TABLE %s: expected ',' or ')' in the column list", name);
            break;
        }
    }
    const char *engine = "InnoDB", *cs = NULL, *coll = NULL;
    while (rc == 0 && cur(p)) {
        if (kw(p, "ENGINE")) {
            const char *e = option_value(p);
            engine = e ? e : engine;
        } else if (!charset_option(p, &cs, &coll)) {
            p->selects = p->selects || query_word(cur(p));
            skip_one(p);
        }
    }
    if (rc == 0 && ncols == 0)
        rc = pfail(p, "CREATE TABLE %s has no columns", name);
    if (rc == 0) {
        if (p->ntables == p->captables) {
            p->captables = p->captables ? p->captables * 2 : 16;
            p->tables = cdch_xrealloc(p->tables, p->captables * sizeof *p->tables);
        }
        cdch_sc_table *t = &p->tables[p->ntables];
        memset(t, 0, sizeof *t);
        t->db = cdch_arena_strdup(p->a, db);
        t->name = cdch_arena_strdup(p->a, name);
        t->engine = strcasecmp(engine, "InnoDB") == 0 ? "InnoDB" : cdch_arena_strdup(p->a, engine);
        t->transactional = strcmp(t->engine, "InnoDB") == 0;
        t->table_id = p->first_table_id + p->ntables;
        /* SHOW CREATE form (`name` unqualified, no IF NOT EXISTS): answered verbatim */
        if (!if_not && !qualified && nt->k == TK_IDENT)
            t->create_sql = cdch_arena_memdup(p->a, p->lx->src + stmt_at, p->lx->t[p->end - 1].end - stmt_at);
        rc = build_table(p, t, cols, ncols, cs, coll);
        if (rc == 0)
            p->ntables++;
    }
    free(cols);
    return rc;
}

/* One statement of schema.sql [p->i, p->end): CREATE DATABASE/SCHEMA, USE, CREATE TABLE;
 * anything else (SET, DROP ..., comments' statements) is not schema and is skipped. */
static int statement(parser *p)
{
    size_t at = cur(p)->at;
    if (kw(p, "USE")) {
        const char *db = ident(p);
        if (!db)
            return pfail(p, "USE without a database name");
        p->db = cdch_arena_strdup(p->a, db);
        if (!find_dbase(p, db))
            add_dbase(p, db, NULL, NULL);
        return 0;
    }
    if (!kw(p, "CREATE"))
        return 0;
    kw(p, "TEMPORARY");
    if (kw(p, "DATABASE") || kw(p, "SCHEMA"))
        return create_database(p);
    if (kw(p, "TABLE"))
        return create_table(p, at);
    return 0;
}

/* DIR/schema.sql into the scenario's databases and tables. */
static int load_schema(sc_ctx *c, yaml_node_t *node, const char *dir)
{
    char path[PATH_MAX + 16];
    snprintf(path, sizeof path, "%s/schema.sql", dir);
    size_t len;
    cdch_err e;
    char *text = cdch_read_file(path, 256u << 20, &len, &e);
    if (!text)
        return sc_fail(c, node,
                       "capture: %s (a capture needs schema.sql: the CREATE TABLE statements of the tables its stream "
                       "touches, as `cdcharness record` writes it; write one by hand for binlog files from disk)",
                       e.msg);
    lexer lx = {text, len, 0, 1, NULL, 0, 0, NULL, CDCH_ARENA_INIT};
    parser p;
    memset(&p, 0, sizeof p);
    p.a = c->a;
    p.err = &e;
    p.lx = &lx;
    p.first_table_id = c->s->server.first_table_id;
    int rc = lx_run(&lx);
    if (rc < 0) {
        rc = sc_fail(c, node, "capture: %s:%u: %s", path, lx.line, lx.err);
    } else {
        for (size_t s = 0; rc == 0 && s < lx.n;) {
            size_t e_ = s;
            while (e_ < lx.n && lx.t[e_].k != TK_SEMI)
                e_++;
            p.i = s;
            p.end = e_;
            if (e_ > s)
                rc = statement(&p);
            s = e_ + 1;
        }
        if (rc < 0)
            rc = sc_fail(c, node, "capture: %s:%u: %s", path, p.err_line, e.msg);
    }
    if (rc == 0 && p.ntables == 0)
        rc = sc_fail(c, node, "capture: %s has no CREATE TABLE statement (the replay needs the schema of the tables "
                              "its stream touches)", path);
    if (rc == 0) {
        cdch_scenario *s = c->s;
        s->ndbs = p.ndbs;
        s->dbs = cdch_arena_alloc(c->a, p.ndbs * sizeof *s->dbs);
        memcpy(s->dbs, p.dbs, p.ndbs * sizeof *s->dbs);
        s->ntables = p.ntables;
        s->tables = cdch_arena_alloc(c->a, p.ntables * sizeof *s->tables);
        memcpy(s->tables, p.tables, p.ntables * sizeof *s->tables);
    }
    free(p.dbs);
    free(p.tables);
    free(lx.t);
    cdch_arena_free(&lx.a);
    free(text);
    return rc;
}

/* ---- the stream's DDL (sc_ddl_parse) ----------------------------------------------------- */

/* [db.]name; db is the statement's database when the name is unqualified. False when no name. */
static bool qname(parser *p, const char **db, const char **name)
{
    *db = p->db;
    *name = ident(p);
    if (*name && punct(p, '.')) {
        *db = *name;
        *name = ident(p);
    }
    return *name != NULL;
}

/* A table (or, for database statements, a database: db) the statement names, arena copies. */
static void add_name(parser *p, sc_ddl *d, const char *db, const char *name)
{
    if (d->nnames == p->capnames) {
        p->capnames = p->capnames ? p->capnames * 2 : 4;
        sc_name *n = cdch_arena_alloc(p->a, p->capnames * sizeof *n);
        if (d->nnames)
            memcpy(n, d->names, d->nnames * sizeof *n);
        d->names = n;
    }
    d->names[d->nnames].db = db ? cdch_arena_strdup(p->a, db) : NULL;
    d->names[d->nnames].name = name ? cdch_arena_strdup(p->a, name) : NULL;
    d->nnames++;
}

static sc_alter *add_alter(parser *p, sc_ddl *d, sc_alter_kind kind)
{
    if (d->nalters == p->capalters) {
        p->capalters = p->capalters ? p->capalters * 2 : 8;
        sc_alter *n = cdch_arena_alloc(p->a, p->capalters * sizeof *n);
        if (d->nalters)
            memcpy(n, d->alters, d->nalters * sizeof *n);
        d->alters = n;
    }
    sc_alter *a = &d->alters[d->nalters++];
    memset(a, 0, sizeof *a);
    a->kind = kind;
    return a;
}

/* CREATE TABLE in the stream: a column list (create_table), LIKE another table, or a
 * query (CREATE TABLE ... SELECT: not followed, the query's columns are not in the text). */
static int stream_create_table(parser *p, sc_ddl *d, size_t stmt_at)
{
    size_t start = p->i;
    if (kw(p, "IF")) {
        if (!(kw(p, "NOT") && kw(p, "EXISTS")))
            return pfail(p, "expected IF NOT EXISTS");
        d->if_not_exists = true;
    }
    const char *db, *name;
    if (!qname(p, &db, &name))
        return pfail(p, "CREATE TABLE without a table name");
    add_name(p, d, db, name);
    bool paren = punct(p, '(');
    if (kw(p, "LIKE")) {
        const char *from_db, *from;
        if (!qname(p, &from_db, &from))
            return pfail(p, "CREATE TABLE %s LIKE: the table it copies is missing", name);
        add_name(p, d, from_db, from);
        if ((paren && !punct(p, ')')) || cur(p))
            return pfail(p, "CREATE TABLE %s LIKE %s: unexpected text after it", name, from);
        d->kind = SC_DDL_CREATE_LIKE;
        return 0;
    }
    p->i = start;
    if (create_table(p, stmt_at) < 0)
        return -1;
    if (p->selects)
        return pfail(p, "CREATE TABLE %s ... SELECT: the columns its query adds are not in the statement", name);
    d->table = p->tables[p->ntables - 1];
    d->kind = SC_DDL_CREATE_TABLE;
    return 0;
}

/* CREATE / ALTER / DROP DATABASE (after DATABASE or SCHEMA). */
static int stream_database(parser *p, sc_ddl *d, sc_ddl_kind kind)
{
    const char *name = NULL;
    if (kind == SC_DDL_CREATE_DB) {
        if (database_def(p, &name, &d->charset, &d->collation) < 0)
            return -1;
        d->if_not_exists = p->if_not_exists;
    } else if (kind == SC_DDL_ALTER_DB) {
        tok *t = cur(p);
        if (!is_word(t, "DEFAULT") && !is_word(t, "CHARACTER") && !is_word(t, "CHARSET") && !is_word(t, "COLLATE") &&
            !is_word(t, "ENCRYPTION") && !is_word(t, "READ"))
            name = ident(p);
        if (!name)
            name = p->db;
        if (!name)
            return pfail(p, "ALTER DATABASE without a database (no current one either)");
        while (cur(p))
            if (!charset_option(p, &d->charset, &d->collation))
                p->i++;
        if (resolve_cs(p, "a database", &d->charset, &d->collation) < 0)
            return -1;
    } else {
        if (kw(p, "IF") && !kw(p, "EXISTS"))
            return pfail(p, "expected IF EXISTS");
        if (!(name = ident(p)))
            return pfail(p, "DROP DATABASE without a name");
    }
    add_name(p, d, name, NULL);
    d->kind = kind;
    return 0;
}

/* DROP TABLE[S] [IF EXISTS] name [, name]... [RESTRICT | CASCADE] */
static int drop_tables(parser *p, sc_ddl *d)
{
    if (kw(p, "IF") && !kw(p, "EXISTS"))
        return pfail(p, "expected IF EXISTS");
    do {
        const char *db, *name;
        if (!qname(p, &db, &name))
            return pfail(p, "DROP TABLE: expected a table name");
        add_name(p, d, db, name);
    } while (punct(p, ','));
    if (!kw(p, "RESTRICT"))
        kw(p, "CASCADE");
    if (cur(p))
        return pfail(p, "DROP TABLE: unexpected '%s'", cur(p)->text);
    d->kind = SC_DDL_DROP_TABLE;
    return 0;
}

/* RENAME TABLE[S] a TO b [, c TO d]... */
static int rename_tables(parser *p, sc_ddl *d)
{
    do {
        const char *db, *name, *to_db, *to;
        if (!qname(p, &db, &name))
            return pfail(p, "RENAME TABLE: expected a table name");
        add_name(p, d, db, name);
        if (!kw(p, "TO") || !qname(p, &to_db, &to))
            return pfail(p, "RENAME TABLE %s: expected TO new_name", name);
        add_name(p, d, to_db, to);
    } while (punct(p, ','));
    if (cur(p))
        return pfail(p, "RENAME TABLE: unexpected '%s'", cur(p)->text);
    d->kind = SC_DDL_RENAME;
    return 0;
}

/* Table options ALTER TABLE may list without commas between them (ENGINE=InnoDB COMMENT 'x');
 * none changes a column. */
static bool table_option_word(const tok *t)
{
    static const char *const words[] = {
        "AUTO_INCREMENT",   "AUTOEXTEND_SIZE",   "AVG_ROW_LENGTH",     "CHECKSUM",       "COMMENT",
        "COMPRESSION",      "CONNECTION",        "DELAY_KEY_WRITE",    "ENCRYPTION",     "ENGINE_ATTRIBUTE",
        "INSERT_METHOD",    "KEY_BLOCK_SIZE",    "MAX_ROWS",           "MIN_ROWS",       "PACK_KEYS",
        "PASSWORD",         "ROW_FORMAT",        "SECONDARY_ENGINE",   "SECONDARY_ENGINE_ATTRIBUTE",
        "STATS_AUTO_RECALC", "STATS_PERSISTENT", "STATS_SAMPLE_PAGES", "UNION",          NULL};
    for (size_t i = 0; t && t->k == TK_WORD && words[i]; i++)
        if (strcasecmp(t->text, words[i]) == 0)
            return true;
    return false;
}

/* What may follow an ALTER TABLE item without a comma: another table option. */
static bool option_start(const tok *t)
{
    return table_option_word(t) || is_word(t, "ENGINE") || is_word(t, "DEFAULT") || is_word(t, "CHARSET") ||
           is_word(t, "CHARACTER") || is_word(t, "COLLATE");
}

/* Words that start an index or constraint (not a column) after ADD. */
static bool key_word(const tok *t)
{
    return is_word(t, "INDEX") || is_word(t, "KEY") || is_word(t, "UNIQUE") || is_word(t, "FULLTEXT") ||
           is_word(t, "SPATIAL") || is_word(t, "FOREIGN") || is_word(t, "CHECK");
}

/* [FIRST | AFTER col] after a column definition of ALTER TABLE. */
static int column_position(parser *p, sc_alter *a)
{
    if (kw(p, "FIRST")) {
        a->pos = SC_POS_FIRST;
    } else if (kw(p, "AFTER")) {
        const char *after = ident(p);
        if (!after)
            return pfail(p, "AFTER without a column name");
        a->pos = SC_POS_AFTER;
        a->after = cdch_arena_strdup(p->a, after);
    }
    return 0;
}

/* ADD [CONSTRAINT [name]] PRIMARY KEY [USING x] (col, ...) (after PRIMARY). */
static int alter_add_pk(parser *p, sc_ddl *d)
{
    if (!kw(p, "KEY"))
        return pfail(p, "expected PRIMARY KEY");
    while (cur(p) && !is_punct(cur(p), '('))
        p->i++;
    if (!punct(p, '('))
        return pfail(p, "PRIMARY KEY without its column list");
    do {
        const char *col = ident(p);
        if (!col)
            return pfail(p, "expected a column name in PRIMARY KEY (...)");
        add_alter(p, d, SC_ALTER_PK_ADD)->column = cdch_arena_strdup(p->a, col);
        while (cur(p) && !is_punct(cur(p), ',') && !is_punct(cur(p), ')'))
            skip_one(p); /* prefix length, ASC/DESC */
    } while (punct(p, ','));
    if (!punct(p, ')'))
        return pfail(p, "PRIMARY KEY (...) is not closed");
    skip_element(p); /* USING, COMMENT ... */
    return 0;
}

/* ADD ... (after ADD): columns, a primary key, or an index/constraint (no column change). */
static int alter_add(parser *p, sc_ddl *d, const char *table)
{
    bool column = kw(p, "COLUMN");
    if (!column) {
        if (kw(p, "CONSTRAINT")) {
            tok *t = cur(p);
            if (!is_word(t, "PRIMARY") && !key_word(t))
                p->i++; /* the constraint's name */
            if (!is_word(cur(p), "PRIMARY")) {
                skip_element(p);
                return 0;
            }
        }
        if (kw(p, "PRIMARY"))
            return alter_add_pk(p, d);
        if (key_word(cur(p))) {
            skip_element(p);
            return 0;
        }
    }
    if (punct(p, '(')) { /* ADD [COLUMN] (def, def, ...): appended in order */
        do {
            if (kw(p, "PRIMARY")) {
                if (alter_add_pk(p, d) < 0)
                    return -1;
            } else if (key_word(cur(p)) || is_word(cur(p), "CONSTRAINT")) {
                skip_element(p);
            } else if (column_def(p, &add_alter(p, d, SC_ALTER_ADD)->def) < 0) {
                return -1;
            }
        } while (punct(p, ','));
        if (!punct(p, ')'))
            return pfail(p, "ALTER TABLE %s ADD (...): expected ',' or ')' in the column list", table);
        return 0;
    }
    sc_alter *a = add_alter(p, d, SC_ALTER_ADD);
    if (column_def(p, &a->def) < 0)
        return -1;
    return column_position(p, a);
}

/* DROP ... (after DROP): a column, the primary key, or an index/constraint. */
static int alter_drop(parser *p, sc_ddl *d, const char *table)
{
    if (kw(p, "PRIMARY")) {
        if (!kw(p, "KEY"))
            return pfail(p, "expected DROP PRIMARY KEY");
        add_alter(p, d, SC_ALTER_PK_DROP);
        return 0;
    }
    if (kw(p, "INDEX") || kw(p, "KEY") || kw(p, "FOREIGN") || kw(p, "CHECK") || kw(p, "CONSTRAINT")) {
        skip_element(p);
        return 0;
    }
    kw(p, "COLUMN");
    const char *col = ident(p);
    if (!col)
        return pfail(p, "ALTER TABLE %s DROP: expected a column name", table);
    add_alter(p, d, SC_ALTER_DROP)->column = cdch_arena_strdup(p->a, col);
    return 0;
}

/* ALTER [COLUMN] c {SET DEFAULT v | DROP DEFAULT | SET VISIBLE | SET INVISIBLE} (after ALTER),
 * or ALTER INDEX / CHECK / CONSTRAINT (no column change). */
static int alter_alter(parser *p, sc_ddl *d, const char *table)
{
    if (kw(p, "INDEX") || kw(p, "CHECK") || kw(p, "CONSTRAINT")) {
        skip_element(p);
        return 0;
    }
    kw(p, "COLUMN");
    const char *col = ident(p);
    if (!col)
        return pfail(p, "ALTER TABLE %s ALTER: expected a column name", table);
    col = cdch_arena_strdup(p->a, col);
    sc_alter *a;
    if (kw(p, "SET")) {
        if (kw(p, "DEFAULT")) {
            a = add_alter(p, d, SC_ALTER_DEFAULT);
            default_value(p, &a->def.default_sql);
        } else if (kw(p, "VISIBLE") || kw(p, "INVISIBLE")) {
            a = add_alter(p, d, SC_ALTER_VISIBILITY);
            a->def.invisible = is_word(&p->lx->t[p->i - 1], "INVISIBLE");
        } else {
            return pfail(p, "ALTER TABLE %s ALTER COLUMN %s SET: expected DEFAULT, VISIBLE or INVISIBLE", table, col);
        }
    } else if (kw(p, "DROP") && kw(p, "DEFAULT")) {
        a = add_alter(p, d, SC_ALTER_DEFAULT);
    } else {
        return pfail(p, "ALTER TABLE %s ALTER COLUMN %s: expected SET DEFAULT, DROP DEFAULT or SET [IN]VISIBLE", table,
                     col);
    }
    a->column = col;
    return 0;
}

/* A partitioning clause (PARTITION BY, ADD/DROP/... PARTITION, REMOVE PARTITIONING): it ends
 * ALTER TABLE (its own lists have commas) and changes no column. */
static bool partitioning(parser *p)
{
    tok *t = cur(p), *next = p->i + 1 < p->end ? &p->lx->t[p->i + 1] : NULL;
    if (!(is_word(t, "PARTITION") && is_word(next, "BY")) && !is_word(next, "PARTITION") &&
        !is_word(next, "PARTITIONING"))
        return false;
    while (cur(p))
        skip_one(p);
    return true;
}

/* One item of ALTER TABLE's list. Anything not listed here is not followed (an error). */
static int alter_item(parser *p, sc_ddl *d, const char *table)
{
    tok *t = cur(p);
    if (partitioning(p))
        return 0;
    if (kw(p, "ADD"))
        return alter_add(p, d, table);
    if (kw(p, "DROP"))
        return alter_drop(p, d, table);
    if (kw(p, "MODIFY") || kw(p, "CHANGE")) {
        bool change = is_word(t, "CHANGE");
        kw(p, "COLUMN");
        const char *old = change ? ident(p) : NULL;
        if (change && !old)
            return pfail(p, "ALTER TABLE %s CHANGE: expected the column's name", table);
        sc_alter *a = add_alter(p, d, SC_ALTER_CHANGE);
        if (column_def(p, &a->def) < 0)
            return -1;
        a->column = old ? cdch_arena_strdup(p->a, old) : a->def.name;
        return column_position(p, a);
    }
    if (kw(p, "RENAME")) {
        if (kw(p, "COLUMN")) {
            const char *from = ident(p), *to = NULL;
            if (!from || !kw(p, "TO") || !(to = ident(p)))
                return pfail(p, "ALTER TABLE %s RENAME COLUMN: expected old_name TO new_name", table);
            sc_alter *a = add_alter(p, d, SC_ALTER_RENAME_COLUMN);
            a->column = cdch_arena_strdup(p->a, from);
            a->def.name = cdch_arena_strdup(p->a, to);
            return 0;
        }
        if (kw(p, "INDEX") || kw(p, "KEY")) {
            skip_element(p);
            return 0;
        }
        if (!kw(p, "TO"))
            kw(p, "AS");
        const char *db, *name;
        if (!qname(p, &db, &name))
            return pfail(p, "ALTER TABLE %s RENAME: expected the new name", table);
        sc_alter *a = add_alter(p, d, SC_ALTER_RENAME);
        a->to.db = db ? cdch_arena_strdup(p->a, db) : NULL;
        a->to.name = cdch_arena_strdup(p->a, name);
        return 0;
    }
    if (kw(p, "ALTER"))
        return alter_alter(p, d, table);
    if (kw(p, "ALGORITHM") || kw(p, "LOCK")) {
        punct(p, '=');
        skip_one(p);
        return 0;
    }
    if (kw(p, "FORCE"))
        return 0;
    if ((kw(p, "WITH") || kw(p, "WITHOUT")) && kw(p, "VALIDATION"))
        return 0;
    if ((kw(p, "ENABLE") || kw(p, "DISABLE")) && kw(p, "KEYS"))
        return 0;
    if ((kw(p, "DISCARD") || kw(p, "IMPORT")) && kw(p, "TABLESPACE"))
        return 0;
    p->i = (size_t)(t - p->lx->t);
    if (kw(p, "ENGINE")) {
        const char *e = option_value(p);
        if (!e)
            return pfail(p, "ALTER TABLE %s ENGINE: expected the engine's name", table);
        add_alter(p, d, SC_ALTER_ENGINE)->engine = e;
        return 0;
    }
    const char *cs = NULL, *coll = NULL;
    if (charset_option(p, &cs, &coll)) {
        if (resolve_cs(p, "the table", &cs, &coll) < 0)
            return -1;
        if (!cs)
            return pfail(p, "ALTER TABLE %s: CHARSET or COLLATE without a name", table);
        sc_alter *a = add_alter(p, d, SC_ALTER_CHARSET);
        a->charset = cs;
        a->collation = coll;
        return 0;
    }
    if (table_option_word(t)) {
        p->i++;
        punct(p, '=');
        skip_one(p);
        return 0;
    }
    return pfail(p, "ALTER TABLE %s: '%s' is not followed (only ADD/DROP/MODIFY/CHANGE/RENAME/ALTER of columns, "
                    "keys and table options are)", table, t->text);
}

/* ALTER TABLE [db.]name item [, item]... (after TABLE) */
static int alter_table(parser *p, sc_ddl *d)
{
    const char *db, *name;
    if (!qname(p, &db, &name))
        return pfail(p, "ALTER TABLE without a table name");
    add_name(p, d, db, name);
    p->in_alter = true;
    while (cur(p)) {
        if (alter_item(p, d, name) < 0)
            return -1;
        if (punct(p, ',')) {
            if (!cur(p))
                return pfail(p, "ALTER TABLE %s: nothing after the last ','", name);
        } else if (cur(p) && !option_start(cur(p))) {
            return pfail(p, "ALTER TABLE %s: expected ',' before '%s'", name, cur(p)->text);
        }
    }
    d->kind = SC_DDL_ALTER_TABLE;
    return 0;
}

/* One statement of the stream [p->i, p->end). */
static int ddl_statement(parser *p, sc_ddl *d)
{
    size_t at = cur(p)->at;
    if (kw(p, "CREATE")) {
        if (kw(p, "TEMPORARY"))
            return 0; /* temporary tables: their rows are not in a row-based binlog */
        if (kw(p, "DATABASE") || kw(p, "SCHEMA"))
            return stream_database(p, d, SC_DDL_CREATE_DB);
        if (kw(p, "TABLE"))
            return stream_create_table(p, d, at);
        return 0; /* INDEX, VIEW, TRIGGER, USER ... */
    }
    if (kw(p, "ALTER")) {
        if (kw(p, "DATABASE") || kw(p, "SCHEMA"))
            return stream_database(p, d, SC_DDL_ALTER_DB);
        if (kw(p, "TABLE"))
            return alter_table(p, d);
        return 0;
    }
    if (kw(p, "DROP")) {
        if (kw(p, "TEMPORARY"))
            return 0;
        if (kw(p, "DATABASE") || kw(p, "SCHEMA"))
            return stream_database(p, d, SC_DDL_DROP_DB);
        if (kw(p, "TABLE") || kw(p, "TABLES"))
            return drop_tables(p, d);
        return 0;
    }
    if (kw(p, "RENAME") && (kw(p, "TABLE") || kw(p, "TABLES")))
        return rename_tables(p, d);
    return 0;
}

int sc_ddl_parse(const char *sql, size_t len, const char *db, const cdch_sc_database *dbs, size_t ndbs,
                 cdch_arena *a, sc_ddl *out, cdch_err *err)
{
    memset(out, 0, sizeof *out);
    lexer lx = {sql, len, 0, 1, NULL, 0, 0, NULL, CDCH_ARENA_INIT};
    parser p;
    memset(&p, 0, sizeof p);
    p.a = a;
    p.err = err;
    p.lx = &lx;
    p.db = db && *db ? db : NULL;
    int rc = 0;
    if (lx_run(&lx) < 0) {
        rc = cdch_err_set(err, "%s", lx.err);
    } else {
        while (p.end < lx.n && lx.t[p.end].k != TK_SEMI) /* the first statement */
            p.end++;
        if (p.end > 0) {
            if (ndbs) {
                p.dbs = cdch_xcalloc(ndbs, sizeof *p.dbs);
                memcpy(p.dbs, dbs, ndbs * sizeof *p.dbs);
                p.ndbs = p.capdbs = ndbs;
            }
            rc = ddl_statement(&p, out);
        }
    }
    if (rc < 0)
        out->kind = SC_DDL_NOT_UNDERSTOOD;
    free(p.dbs);
    free(p.tables);
    free(lx.t);
    cdch_arena_free(&lx.a);
    return rc;
}

int cdch_sc_parse_create_table(const char *sql, size_t len, const char *db, const cdch_sc_database *dbs,
                               size_t ndbs, cdch_arena *a, cdch_sc_table *out, cdch_err *err)
{
    sc_ddl d;
    if (sc_ddl_parse(sql, len, db, dbs, ndbs, a, &d, err) < 0)
        return -1;
    if (d.kind == SC_DDL_CREATE_LIKE)
        return cdch_err_set(err, "CREATE TABLE %s LIKE %s: a copy of another table's definition, not a column list",
                            d.names[0].name, d.names[1].name);
    if (d.kind != SC_DDL_CREATE_TABLE)
        return cdch_err_set(err, "not a CREATE TABLE statement (expected CREATE TABLE [IF NOT EXISTS] [db.]name "
                                 "(columns ...) [options])");
    *out = d.table;
    return 0;
}

/* ---- the capture: key -------------------------------------------------------------- */

int sc_load_capture(sc_ctx *c, yaml_node_t *n)
{
    cdch_scenario *s = c->s;
    yaml_node_t *dn = n;
    if (sc_is_map(n)) {
        static const char *const keys[] = {"dir", "flip_at", NULL};
        if (sc_check_map(c, n, "capture", keys) < 0 || !(dn = sc_need(c, n, "dir", "capture")))
            return -1;
        yaml_node_t *v = sc_get(c, n, "flip_at");
        if (v && sc_u64(c, v, "capture.flip_at", 1, UINT64_MAX, &s->capture_flip_at) < 0)
            return -1;
    }
    const char *rel;
    if (sc_str(c, dn, "capture", &rel) < 0)
        return -1;
    if (!*rel)
        return sc_fail(c, dn, "capture: the capture directory is empty");
    char base[PATH_MAX], dir[2 * PATH_MAX + 2], real[PATH_MAX];
    file_dir(s->path, base, sizeof base);
    if (rel[0] == '/')
        snprintf(dir, sizeof dir, "%s", rel);
    else
        snprintf(dir, sizeof dir, "%s/%s", base, rel);
    if (!realpath(dir, real))
        return sc_fail(c, dn, "capture: %s: %s (the path is relative to the scenario file's folder)", dir,
                       strerror(errno));
    s->capture_dir = cdch_arena_strdup(c->a, real);
    char first[PATH_MAX + NAME_MAX + 2];
    cdch_err e;
    if (first_binlog(real, first, sizeof first, &e) < 0)
        return sc_fail(c, dn, "capture: %s", e.msg);
    s->binlog.create_tables = false; /* the stream is the capture's: nothing is generated */
    if (read_head(c, dn, first) < 0 || load_schema(c, dn, real) < 0)
        return -1;
    return 0;
}
