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
 * Owns: nothing beyond the scenario's arena; the token list and the file
 * text are freed before returning.
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
            const char *e = strstr(p + 2, "*/");
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

/* ---- schema.sql: the statements ------------------------------------------------------ */

/* A column as written, before its type is resolved (the table's charset
 * comes after the column list). */
typedef struct pcol {
    const char *name;
    size_t type_at, type_end;
    unsigned line;
    bool not_null, pk, auto_increment, invisible;
    const char *default_sql;
} pcol;

typedef struct parser {
    sc_ctx *c;
    yaml_node_t *node;    /* the capture: node, where errors point */
    const char *path;     /* schema.sql */
    lexer *lx;
    size_t i, end;        /* current token, end of the statement (its ';' or the last token) */
    const char *db;       /* USE */
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
    unsigned line = p->i < p->lx->n ? p->lx->t[p->i].line : p->lx->line;
    return sc_fail(p->c, p->node, "capture: %s:%u: %s", p->path, line, msg);
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
    return v ? cdch_arena_strdup(p->c->a, v) : NULL;
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
    d->name = cdch_arena_strdup(p->c->a, name);
    d->charset = cs ? cs : "utf8mb4";
    d->collation = coll ? coll : "utf8mb4_0900_ai_ci";
    return d;
}

/* CREATE DATABASE|SCHEMA [IF NOT EXISTS] name [options] */
static int create_database(parser *p)
{
    if (kw(p, "IF") && !(kw(p, "NOT") && kw(p, "EXISTS")))
        return pfail(p, "expected IF NOT EXISTS");
    const char *name = ident(p);
    if (!name)
        return pfail(p, "CREATE DATABASE without a name");
    const char *cs = NULL, *coll = NULL;
    while (cur(p))
        if (!charset_option(p, &cs, &coll))
            p->i++;
    if (resolve_cs(p, "a database", &cs, &coll) < 0)
        return -1;
    if (!find_dbase(p, name))
        add_dbase(p, name, cs, coll);
    return 0;
}

/* PRIMARY KEY [name] [USING x] (col[(n)] [ASC|DESC], ...): mark the columns. */
static int primary_key(parser *p, pcol *cols, size_t ncols)
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

/* The rest of a column definition after its type. */
static void column_attributes(parser *p, pcol *col)
{
    while (cur(p) && !is_punct(cur(p), ',') && !is_punct(cur(p), ')')) {
        if (kw(p, "NOT")) {
            col->not_null = kw(p, "NULL") || col->not_null;
        } else if (kw(p, "NULL")) {
            col->not_null = false;
        } else if (kw(p, "DEFAULT")) {
            if (kw(p, "NULL"))
                continue;
            size_t at = cur(p) ? cur(p)->at : 0, first = p->i;
            punct(p, '-');
            punct(p, '+');
            skip_one(p);
            /* b'0101', _utf8mb4'x', CURRENT_TIMESTAMP(3): a word and what sticks to it */
            tok *t = cur(p);
            if (t && p->i > first && t->at == p->lx->t[p->i - 1].end && (t->k == TK_STRING || is_punct(t, '(')))
                skip_one(p);
            if (p->i > first)
                col->default_sql = cdch_arena_memdup(p->c->a, p->lx->src + at, p->lx->t[p->i - 1].end - at);
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
static int column_def(parser *p, pcol *col)
{
    memset(col, 0, sizeof *col);
    col->line = cur(p)->line;
    col->name = ident(p);
    if (!col->name)
        return pfail(p, "expected a column name");
    size_t first = p->i;
    while (cur(p) && !is_punct(cur(p), ',') && !is_punct(cur(p), ')') && !attribute_word(cur(p)))
        skip_one(p);
    if (p->i == first)
        return pfail(p, "column %s has no type", col->name);
    col->type_at = p->lx->t[first].at;
    col->type_end = p->lx->t[p->i - 1].end;
    column_attributes(p, col);
    return 0;
}

/* The table of the columns as written, with its options resolved. */
static int build_table(parser *p, cdch_sc_table *t, pcol *cols, size_t ncols, const char *cs, const char *coll)
{
    sc_ctx *c = p->c;
    cdch_sc_database *db = find_dbase(p, t->db);
    if (!db)
        db = add_dbase(p, t->db, NULL, NULL);
    if (resolve_cs(p, "a table", &cs, &coll) < 0)
        return -1;
    if (!cs) {
        cs = db->charset;
        coll = db->collation;
    }
    t->cols = cdch_arena_alloc(c->a, ncols * sizeof *t->cols);
    t->ncols = ncols;
    for (size_t i = 0; i < ncols; i++) {
        cdch_sc_column *col = &t->cols[i];
        const char *type = cdch_arena_memdup(c->a, p->lx->src + cols[i].type_at, cols[i].type_end - cols[i].type_at);
        cdch_err e;
        if (cdch_sc_parse_type(type, cs, coll, c->a, col, &e) < 0)
            return sc_fail(c, p->node, "capture: %s:%u: table %s.%s, column %s: %s", p->path, cols[i].line, t->db,
                           t->name, cols[i].name, e.msg);
        col->name = cdch_arena_strdup(c->a, cols[i].name);
        col->def.name = col->name;
        col->primary_key = cols[i].pk;
        col->def.nullable = !cols[i].not_null && !cols[i].pk;
        col->auto_increment = cols[i].auto_increment;
        col->invisible = cols[i].invisible;
        col->default_sql = cols[i].default_sql;
    }
    return 0;
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
    pcol *cols = NULL;
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
        t->db = cdch_arena_strdup(p->c->a, db);
        t->name = cdch_arena_strdup(p->c->a, name);
        t->engine = strcasecmp(engine, "InnoDB") == 0 ? "InnoDB" : cdch_arena_strdup(p->c->a, engine);
        t->transactional = strcmp(t->engine, "InnoDB") == 0;
        t->table_id = p->c->s->server.first_table_id + p->ntables;
        /* SHOW CREATE form (`name` unqualified, no IF NOT EXISTS): answered verbatim */
        if (!if_not && !qualified && nt->k == TK_IDENT)
            t->create_sql = cdch_arena_memdup(p->c->a, p->lx->src + stmt_at, p->lx->t[p->end - 1].end - stmt_at);
        rc = build_table(p, t, cols, ncols, cs, coll);
        if (rc == 0)
            p->ntables++;
    }
    free(cols);
    return rc;
}

/* One statement [p->i, p->end): CREATE DATABASE/SCHEMA, USE, CREATE TABLE;
 * anything else (SET, DROP ..., comments' statements) is not schema and is skipped. */
static int statement(parser *p)
{
    size_t at = cur(p)->at;
    if (kw(p, "USE")) {
        const char *db = ident(p);
        if (!db)
            return pfail(p, "USE without a database name");
        p->db = cdch_arena_strdup(p->c->a, db);
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
    p.c = c;
    p.node = node;
    p.path = path;
    p.lx = &lx;
    int rc = lx_run(&lx);
    if (rc < 0)
        rc = sc_fail(c, node, "capture: %s:%u: %s", path, lx.line, lx.err);
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
