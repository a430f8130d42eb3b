/* load.c — scenario YAML -> cdch_scenario: the libyaml document, strict
 * mapping access (unknown keys are errors), the top level, server and
 * binlog settings, databases and tables. Transactions are in txn.c.
 *
 * Every error names the YAML node at fault as "FILE:LINE:COL: message";
 * on error everything built so far is freed (the scenario's arena).
 */
#include <ctype.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "gtid.h"
#include "scenario_internal.h"
#include "sys.h"

/* ---- messages ------------------------------------------------------------------- */

cdch_sc_mark sc_mark(const yaml_node_t *n)
{
    cdch_sc_mark m = {0, 0};
    if (n) {
        m.line = (uint32_t)n->start_mark.line + 1;
        m.column = (uint32_t)n->start_mark.column + 1;
    }
    return m;
}

static int fail_at(sc_ctx *c, cdch_sc_mark m, const char *msg)
{
    if (m.line == 0)
        m.line = m.column = 1;
    cdch_err_set(c->err, "%s:%u:%u: %s", c->fname, m.line, m.column, msg);
    if (c->err)
        c->err->offset = -1;
    return -1;
}

int sc_fail(sc_ctx *c, const yaml_node_t *n, const char *fmt, ...)
{
    char msg[CDCH_ERR_MSG_MAX];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    return fail_at(c, sc_mark(n), msg);
}

int sc_fail_err(sc_ctx *c, const yaml_node_t *n, const cdch_err *e, const char *prefix_fmt, ...)
{
    char pre[256];
    va_list ap;
    va_start(ap, prefix_fmt);
    vsnprintf(pre, sizeof pre, prefix_fmt, ap);
    va_end(ap);
    return sc_fail(c, n, "%s%s", pre, e->msg);
}

yaml_node_t *sc_node(sc_ctx *c, int id)
{
    return yaml_document_get_node(c->doc, id);
}

const char *sc_kind_name(const yaml_node_t *n)
{
    if (!n)
        return "nothing";
    switch (n->type) {
    case YAML_MAPPING_NODE: return "a mapping";
    case YAML_SEQUENCE_NODE: return "a list";
    case YAML_SCALAR_NODE: return sc_is_null(n) ? "null" : "a scalar";
    default: return "nothing";
    }
}

bool sc_is_null(const yaml_node_t *n)
{
    if (!sc_is_scalar(n) || !sc_plain(n))
        return false;
    const char *s = sc_text(n);
    return sc_len(n) == 0 || !strcmp(s, "~") || !strcmp(s, "null") || !strcmp(s, "Null") || !strcmp(s, "NULL");
}

bool sc_plain_bool(const yaml_node_t *n, bool *out)
{
    if (!sc_is_scalar(n) || !sc_plain(n))
        return false;
    const char *s = sc_text(n);
    if (!strcmp(s, "true") || !strcmp(s, "True") || !strcmp(s, "TRUE")) {
        *out = true;
        return true;
    }
    if (!strcmp(s, "false") || !strcmp(s, "False") || !strcmp(s, "FALSE")) {
        *out = false;
        return true;
    }
    return false;
}

/* ---- suggestions -------------------------------------------------------------- */

static size_t edit_distance(const char *a, const char *b)
{
    size_t la = strlen(a), lb = strlen(b);
    if (la > 64 || lb > 64)
        return 99;
    size_t row[65];
    for (size_t j = 0; j <= lb; j++)
        row[j] = j;
    for (size_t i = 1; i <= la; i++) {
        size_t prev = row[0];
        row[0] = i;
        for (size_t j = 1; j <= lb; j++) {
            size_t cur = row[j];
            size_t sub = prev + (tolower((unsigned char)a[i - 1]) != tolower((unsigned char)b[j - 1]));
            size_t best = row[j] + 1 < row[j - 1] + 1 ? row[j] + 1 : row[j - 1] + 1;
            row[j] = sub < best ? sub : best;
            prev = cur;
        }
    }
    return row[lb];
}

const char *sc_suggest(const char *word, const char *const *cands, size_t ncands)
{
    const char *best = NULL;
    size_t bd = 3;
    for (size_t i = 0; i < ncands && cands[i]; i++) {
        size_t d = edit_distance(word, cands[i]);
        if (d < bd) {
            bd = d;
            best = cands[i];
        }
    }
    return best;
}

/* ---- mapping access ----------------------------------------------------------- */

int sc_check_map(sc_ctx *c, yaml_node_t *n, const char *what, const char *const *allowed)
{
    if (!sc_is_map(n))
        return sc_fail(c, n, "%s must be a mapping (key: value), got %s", what, sc_kind_name(n));
    for (yaml_node_pair_t *p = n->data.mapping.pairs.start; p < n->data.mapping.pairs.top; p++) {
        yaml_node_t *k = sc_node(c, p->key);
        if (!sc_is_scalar(k))
            return sc_fail(c, k, "keys of %s must be plain words, got %s", what, sc_kind_name(k));
        const char *key = sc_text(k);
        bool ok = false;
        size_t nallowed = 0;
        for (; allowed[nallowed]; nallowed++)
            if (strcmp(allowed[nallowed], key) == 0)
                ok = true;
        if (!ok) {
            const char *sug = sc_suggest(key, allowed, nallowed);
            char list[400];
            size_t off = 0;
            list[0] = '\0';
            for (size_t i = 0; i < nallowed && off + 2 < sizeof list; i++)
                off += (size_t)snprintf(list + off, sizeof list - off, "%s%s", i ? ", " : "", allowed[i]);
            if (sug)
                return sc_fail(c, k, "unknown key '%s' in %s (did you mean '%s'?)", key, what, sug);
            return sc_fail(c, k, "unknown key '%s' in %s (expected one of: %s)", key, what, list);
        }
        for (yaml_node_pair_t *q = n->data.mapping.pairs.start; q < p; q++) {
            yaml_node_t *k2 = sc_node(c, q->key);
            if (sc_is_scalar(k2) && strcmp(sc_text(k2), key) == 0)
                return sc_fail(c, k, "duplicate key '%s' in %s (first given at line %u)", key, what,
                               sc_mark(k2).line);
        }
    }
    return 0;
}

yaml_node_t *sc_get(sc_ctx *c, yaml_node_t *map, const char *key)
{
    if (!sc_is_map(map))
        return NULL;
    for (yaml_node_pair_t *p = map->data.mapping.pairs.start; p < map->data.mapping.pairs.top; p++) {
        yaml_node_t *k = sc_node(c, p->key);
        if (sc_is_scalar(k) && strcmp(sc_text(k), key) == 0)
            return sc_node(c, p->value);
    }
    return NULL;
}

yaml_node_t *sc_need(sc_ctx *c, yaml_node_t *map, const char *key, const char *what)
{
    yaml_node_t *v = sc_get(c, map, key);
    if (!v)
        sc_fail(c, map, "%s is missing the required key '%s'", what, key);
    return v;
}

/* ---- scalars ------------------------------------------------------------------- */

static int need_scalar(sc_ctx *c, yaml_node_t *n, const char *what)
{
    if (!sc_is_scalar(n) || sc_is_null(n))
        return sc_fail(c, n, "%s: expected a value, got %s", what, sc_kind_name(n));
    return 0;
}

int sc_str(sc_ctx *c, yaml_node_t *n, const char *what, const char **out)
{
    if (need_scalar(c, n, what) < 0)
        return -1;
    *out = cdch_arena_memdup(c->a, sc_text(n), sc_len(n));
    return 0;
}

int sc_bool(sc_ctx *c, yaml_node_t *n, const char *what, bool *out)
{
    if (need_scalar(c, n, what) < 0)
        return -1;
    static const char *const t[] = {"true", "yes", "on", "1"}, *const f[] = {"false", "no", "off", "0"};
    for (int i = 0; i < 4; i++) {
        if (strcasecmp(sc_text(n), t[i]) == 0) {
            *out = true;
            return 0;
        }
        if (strcasecmp(sc_text(n), f[i]) == 0) {
            *out = false;
            return 0;
        }
    }
    return sc_fail(c, n, "%s: expected true or false, got '%s'", what, sc_text(n));
}

int sc_u64(sc_ctx *c, yaml_node_t *n, const char *what, uint64_t min, uint64_t max, uint64_t *out)
{
    if (need_scalar(c, n, what) < 0)
        return -1;
    const char *s = sc_text(n);
    uint64_t v = 0;
    bool ok = *s != '\0';
    for (const char *p = s; *p && ok; p++) {
        if (!isdigit((unsigned char)*p) || v > (UINT64_MAX - (uint64_t)(*p - '0')) / 10)
            ok = false;
        else
            v = v * 10 + (uint64_t)(*p - '0');
    }
    if (!ok || v < min || v > max)
        return sc_fail(c, n, "%s must be an integer %" PRIu64 "..%" PRIu64 ", got '%s'", what, min, max, s);
    *out = v;
    return 0;
}

int sc_size(sc_ctx *c, yaml_node_t *n, const char *what, uint64_t min, uint64_t max, uint64_t *out)
{
    if (need_scalar(c, n, what) < 0)
        return -1;
    const char *s = sc_text(n);
    uint64_t v = 0;
    const char *p = s;
    bool ok = isdigit((unsigned char)*p);
    for (; isdigit((unsigned char)*p) && ok; p++) {
        if (v > (UINT64_MAX - (uint64_t)(*p - '0')) / 10)
            ok = false;
        v = v * 10 + (uint64_t)(*p - '0');
    }
    unsigned shift = 0;
    if (*p == 'k' || *p == 'K')
        shift = 10;
    else if (*p == 'm' || *p == 'M')
        shift = 20;
    else if (*p == 'g' || *p == 'G')
        shift = 30;
    if (shift) {
        p++;
        if (*p == 'b' || *p == 'B')
            p++;
    }
    if (*p || !ok || (shift && v > (UINT64_MAX >> shift)))
        return sc_fail(c, n, "%s: expected a size (4096, 64K, 16M, 1G), got '%s'", what, s);
    v <<= shift;
    if (v < min || v > max)
        return sc_fail(c, n, "%s %s is out of range %" PRIu64 "..%" PRIu64 " bytes", what, s, min, max);
    *out = v;
    return 0;
}

int sc_word(sc_ctx *c, yaml_node_t *n, const char *what, const char *const *words, int *out)
{
    if (need_scalar(c, n, what) < 0)
        return -1;
    size_t nw = 0;
    char list[200];
    size_t off = 0;
    list[0] = '\0';
    for (; words[nw]; nw++) {
        if (strcasecmp(words[nw], sc_text(n)) == 0) {
            *out = (int)nw;
            return 0;
        }
        if (off + 2 < sizeof list)
            off += (size_t)snprintf(list + off, sizeof list - off, "%s%s", nw ? "|" : "", words[nw]);
    }
    return sc_fail(c, n, "%s must be one of %s, got '%s'", what, list, sc_text(n));
}

/* ---- server ------------------------------------------------------------------- */

static int parse_version(sc_ctx *c, yaml_node_t *n)
{
    const char *s;
    if (sc_str(c, n, "server.version", &s) < 0)
        return -1;
    unsigned maj, min, pat;
    int used = 0;
    if (sscanf(s, "%u.%u.%u%n", &maj, &min, &pat, &used) != 3 || (s[used] && s[used] != '-'))
        return sc_fail(c, n, "server.version '%s' is not a MySQL version like \"8.0.36\"", s);
    bool ok = (maj == 8 && min == 0 && pat >= 20) || (maj == 8 && min >= 1 && min <= 4) || maj == 9;
    if (!ok)
        return sc_fail(c, n,
                       "server.version %s is not supported: the harness models MySQL 8.0.20 .. 9.x (8.0.20 introduced "
                       "binlog transaction compression)",
                       s);
    c->s->server.version = s;
    c->version = maj * 10000 + min * 100 + (pat > 99 ? 99 : pat);
    return 0;
}

/* An integer 1..2^32-1 (an id of the server). */
static int get_u32(sc_ctx *c, yaml_node_t *v, const char *what, uint32_t *out)
{
    uint64_t u;
    if (sc_u64(c, v, what, 1, UINT32_MAX, &u) < 0)
        return -1;
    *out = (uint32_t)u;
    return 0;
}

static int load_server(sc_ctx *c, yaml_node_t *n)
{
    static const char *const keys[] = {"version",   "server_id",      "server_uuid", "gtid_mode",
                                       "thread_id", "first_table_id", "first_gno",   "mysql_native_password",
                                       NULL};
    cdch_sc_server *sv = &c->s->server;
    if (n && sc_check_map(c, n, "server", keys) < 0)
        return -1;
    yaml_node_t *v;
    if ((v = sc_get(c, n, "version")) && parse_version(c, v) < 0)
        return -1;
    if ((v = sc_get(c, n, "server_id")) && get_u32(c, v, "server.server_id", &sv->server_id) < 0)
        return -1;
    if ((v = sc_get(c, n, "server_uuid"))) {
        if (need_scalar(c, v, "server.server_uuid") < 0)
            return -1;
        if (cdch_uuid_parse(sc_text(v), sv->uuid) != 0)
            return sc_fail(c, v, "server.server_uuid '%s' is not a UUID (8-4-4-4-12 hex digits)", sc_text(v));
    }
    if ((v = sc_get(c, n, "gtid_mode")) && sc_bool(c, v, "server.gtid_mode", &sv->gtid_mode) < 0)
        return -1;
    if ((v = sc_get(c, n, "thread_id")) && get_u32(c, v, "server.thread_id", &sv->thread_id) < 0)
        return -1;
    if ((v = sc_get(c, n, "first_table_id")) &&
        sc_u64(c, v, "server.first_table_id", 1, (1ULL << 47), &sv->first_table_id) < 0)
        return -1;
    if ((v = sc_get(c, n, "first_gno")) && sc_u64(c, v, "server.first_gno", 1, (1ULL << 62), &sv->first_gno) < 0)
        return -1;
    /* mysql_native_password: loaded by default before 8.4.0; from 8.4.0 only with
     * --mysql-native-password=ON (MySQL 8.4 manual, "What Is New in MySQL 8.4 since 8.0": "no longer
     * enabled by default"); removed in 9.0.0 (MySQL 9.0 release notes: "The deprecated
     * mysql_native_password authentication plugin has been removed"). */
    sv->native_password = c->version < 80400;
    if ((v = sc_get(c, n, "mysql_native_password"))) {
        if (sc_bool(c, v, "server.mysql_native_password", &sv->native_password) < 0)
            return -1;
        if (sv->native_password && c->version >= 90000)
            return sc_fail(c, v,
                           "server.mysql_native_password: on needs a server before 9.0.0: MySQL 9.0 removed the "
                           "plugin (this is %s); use 8.4.x with mysql_native_password: on",
                           sv->version);
    }
    return 0;
}

/* ---- binlog ------------------------------------------------------------------- */

static int load_binlog(sc_ctx *c, yaml_node_t *n)
{
    static const char *const keys[] = {"checksum",       "row_image",        "row_metadata", "rows_query",
                                       "partial_json",   "max_binlog_size",  "basename",     "compression",
                                       "zstd_level",     "zstd_content_size", "row_event_max_size",
                                       "start_time",     "create_tables",    "end_with_stop", NULL};
    cdch_sc_binlog *b = &c->s->binlog;
    if (n && sc_check_map(c, n, "binlog", keys) < 0)
        return -1;
    yaml_node_t *v;
    int w;
    uint64_t u;
    if ((v = sc_get(c, n, "checksum"))) {
        static const char *const ws[] = {"CRC32", "NONE", NULL};
        if (sc_word(c, v, "binlog.checksum", ws, &w) < 0)
            return -1;
        b->checksum = w == 0;
    }
    if ((v = sc_get(c, n, "row_image"))) {
        static const char *const ws[] = {"FULL", "MINIMAL", "NOBLOB", NULL};
        if (sc_word(c, v, "binlog.row_image", ws, &w) < 0)
            return -1;
        b->row_image = (cdch_row_image)w;
    }
    if ((v = sc_get(c, n, "row_metadata"))) {
        static const char *const ws[] = {"MINIMAL", "FULL", NULL};
        if (sc_word(c, v, "binlog.row_metadata", ws, &w) < 0)
            return -1;
        b->row_metadata_full = w == 1;
    }
    if ((v = sc_get(c, n, "rows_query")) && sc_bool(c, v, "binlog.rows_query", &b->rows_query) < 0)
        return -1;
    if ((v = sc_get(c, n, "partial_json")) && sc_bool(c, v, "binlog.partial_json", &b->partial_json) < 0)
        return -1;
    if ((v = sc_get(c, n, "max_binlog_size")) &&
        sc_size(c, v, "binlog.max_binlog_size", 4096, 1ULL << 30, &b->max_size) < 0)
        return -1;
    if ((v = sc_get(c, n, "basename"))) {
        if (sc_str(c, v, "binlog.basename", &b->basename) < 0)
            return -1;
        for (const char *p = b->basename; *p; p++)
            if (!isalnum((unsigned char)*p) && *p != '_' && *p != '-' && *p != '.')
                return sc_fail(c, v, "binlog.basename '%s' may only hold letters, digits, '_', '-' and '.'",
                               b->basename);
    }
    if ((v = sc_get(c, n, "compression"))) {
        static const char *const ws[] = {"both", "on", "off", "flip", NULL};
        if (sc_word(c, v, "binlog.compression", ws, &w) < 0)
            return -1;
        b->compression = (cdch_compression_mode)w;
    }
    if ((v = sc_get(c, n, "zstd_level"))) {
        if (sc_u64(c, v, "binlog.zstd_level", 1, 22, &u) < 0)
            return -1;
        b->zstd_level = (int)u;
    }
    if ((v = sc_get(c, n, "zstd_content_size")) &&
        sc_bool(c, v, "binlog.zstd_content_size", &b->zstd_content_size) < 0)
        return -1;
    if ((v = sc_get(c, n, "row_event_max_size"))) {
        if (sc_size(c, v, "binlog.row_event_max_size", 256, 4294967040u, &u) < 0)
            return -1;
        if (u % 256)
            return sc_fail(c, v, "binlog.row_event_max_size must be a multiple of 256 (MySQL rounds it down)");
        b->row_event_max_size = (uint32_t)u;
    }
    if ((v = sc_get(c, n, "start_time"))) {
        if (need_scalar(c, v, "binlog.start_time") < 0)
            return -1;
        const char *s = sc_text(v);
        bool digits = *s != '\0';
        for (const char *p = s; *p; p++)
            digits = digits && isdigit((unsigned char)*p);
        if (digits) {
            if (sc_u64(c, v, "binlog.start_time", 1, UINT32_MAX, &b->start_time) < 0)
                return -1;
        } else {
            cdch_temporal t;
            cdch_err e;
            if (cdch_temporal_parse(s, CDCH_T_DATETIME2, &t, &e) < 0)
                return sc_fail_err(c, v, &e, "binlog.start_time: ");
            int64_t ep = t.month && t.day ? cdch_civil_to_epoch(&t) : -1;
            if (ep < 1 || ep > (int64_t)UINT32_MAX)
                return sc_fail(c, v, "binlog.start_time '%s' is outside 1970-01-01 .. 2106-02-07 (UTC)", s);
            b->start_time = (uint64_t)ep;
        }
    }
    if ((v = sc_get(c, n, "create_tables")) && sc_bool(c, v, "binlog.create_tables", &b->create_tables) < 0)
        return -1;
    if ((v = sc_get(c, n, "end_with_stop")) && sc_bool(c, v, "binlog.end_with_stop", &b->end_with_stop) < 0)
        return -1;
    return 0;
}

/* ---- databases and tables ---------------------------------------------------------- */

static int check_ident(sc_ctx *c, yaml_node_t *n, const char *what, const char *s, size_t len)
{
    if (len == 0 || len > 64)
        return sc_fail(c, n, "%s must be 1..64 characters, got '%s'", what, s);
    for (size_t i = 0; i < len; i++)
        if (s[i] == '`' || s[i] == '.' || s[i] == '/' || s[i] == '\\' || (unsigned char)s[i] < 0x20)
            return sc_fail(c, n, "%s '%s' holds a character MySQL does not allow in names ('%c')", what, s, s[i]);
    if (s[len - 1] == ' ')
        return sc_fail(c, n, "%s '%s' ends with a space", what, s);
    return 0;
}

cdch_sc_database *sc_find_db(cdch_sc_database *dbs, size_t n, const char *name)
{
    for (size_t i = 0; i < n; i++)
        if (strcmp(dbs[i].name, name) == 0)
            return &dbs[i];
    return NULL;
}

static cdch_sc_database *find_db(cdch_scenario *s, const char *name) { return sc_find_db(s->dbs, s->ndbs, name); }

/* charset/collation pair from a mapping's keys (either may be absent) */
static int charset_keys(sc_ctx *c, yaml_node_t *map, const char *what, const char **cs, const char **coll)
{
    yaml_node_t *v;
    *cs = *coll = NULL;
    if ((v = sc_get(c, map, "charset"))) {
        if (sc_str(c, v, "charset", cs) < 0)
            return -1;
        if (!sc_charset_canon(*cs))
            return sc_fail(c, v, "unknown character set '%s' for %s", *cs, what);
        *cs = sc_charset_canon(*cs);
    }
    if ((v = sc_get(c, map, "collation"))) {
        if (sc_str(c, v, "collation", coll) < 0)
            return -1;
        const char *canon = sc_collation_canon(*coll);
        if (!canon)
            return sc_fail(c, v, "unknown collation '%s' for %s", *coll, what);
        if (*cs && strcmp(sc_collation_charset(canon), *cs) != 0)
            return sc_fail(c, v, "collation '%s' is not valid for character set '%s'", *coll, *cs);
        *coll = canon;
        *cs = sc_collation_charset(canon);
    }
    if (*cs && !*coll)
        *coll = cdch_default_collation(*cs);
    return 0;
}

static int load_databases(sc_ctx *c, yaml_node_t *n, size_t cap)
{
    cdch_scenario *s = c->s;
    s->dbs = cdch_arena_alloc(c->a, cap * sizeof *s->dbs);
    if (!n)
        return 0;
    if (!sc_is_seq(n))
        return sc_fail(c, n, "databases must be a list, got %s", sc_kind_name(n));
    static const char *const keys[] = {"name", "charset", "collation", NULL};
    for (yaml_node_item_t *it = n->data.sequence.items.start; it < n->data.sequence.items.top; it++) {
        yaml_node_t *d = sc_node(c, *it);
        if (sc_check_map(c, d, "a database", keys) < 0)
            return -1;
        yaml_node_t *nn = sc_need(c, d, "name", "a database");
        const char *name, *cs, *coll;
        if (!nn || sc_str(c, nn, "database name", &name) < 0 || check_ident(c, nn, "database name", name, strlen(name)) < 0)
            return -1;
        if (find_db(s, name))
            return sc_fail(c, nn, "database '%s' is listed twice", name);
        if (charset_keys(c, d, "a database", &cs, &coll) < 0)
            return -1;
        cdch_sc_database *db = &s->dbs[s->ndbs++];
        db->name = name;
        db->charset = cs ? cs : "utf8mb4";
        db->collation = coll ? coll : "utf8mb4_0900_ai_ci";
    }
    return 0;
}

static int load_column(sc_ctx *c, yaml_node_t *cn, const char *tcs, const char *tcoll, cdch_sc_column *col)
{
    static const char *const keys[] = {"name",    "type",      "nullable", "primary_key", "auto_increment",
                                       "invisible", "charset", "collation", "default",     NULL};
    if (sc_check_map(c, cn, "a column", keys) < 0)
        return -1;
    yaml_node_t *nn = sc_need(c, cn, "name", "a column");
    if (!nn || sc_str(c, nn, "column name", &col->name) < 0 ||
        check_ident(c, nn, "column name", col->name, strlen(col->name)) < 0)
        return -1;
    yaml_node_t *tn = sc_need(c, cn, "type", "a column");
    if (!tn || need_scalar(c, tn, "column type") < 0)
        return -1;
    const char *ccs, *ccoll;
    if (charset_keys(c, cn, "a column", &ccs, &ccoll) < 0)
        return -1;
    bool explicit_cs = ccs || ccoll;
    cdch_err e;
    if (cdch_sc_parse_type(sc_text(tn), explicit_cs ? ccs : tcs, explicit_cs ? ccoll : tcoll, c->a, col, &e) < 0)
        return sc_fail_err(c, tn, &e, "column %s: ", col->name);
    col->def.name = col->name;
    col->mark = sc_mark(cn);
    yaml_node_t *v;
    if (explicit_cs) {
        v = sc_get(c, cn, ccoll && !sc_get(c, cn, "charset") ? "collation" : "charset");
        if (!col->charset)
            return sc_fail(c, v, "column %s: charset/collation do not apply to %s", col->name, col->sql_type);
        if (strcmp(col->charset, ccs) != 0 || (ccoll && strcmp(col->collation, ccoll) != 0))
            return sc_fail(c, v, "column %s: the type says %s %s but the column's keys say %s %s", col->name,
                           col->charset, col->collation, ccs, ccoll ? ccoll : "");
    }
    if (col->def.type == CDCH_T_VECTOR && c->version < 90000)
        return sc_fail(c, tn, "column %s: vector columns need server.version 9.0 or later (this is %s)", col->name,
                       c->s->server.version);
    bool b = false;
    col->def.nullable = true;
    if ((v = sc_get(c, cn, "primary_key"))) {
        if (sc_bool(c, v, "primary_key", &b) < 0)
            return -1;
        col->primary_key = b;
    }
    if ((v = sc_get(c, cn, "nullable"))) {
        if (sc_bool(c, v, "nullable", &b) < 0)
            return -1;
        if (b && col->primary_key)
            return sc_fail(c, v, "column %s is in the primary key, so it cannot be nullable", col->name);
        col->def.nullable = b;
    }
    if (col->primary_key) {
        col->def.nullable = false;
        if (sc_col_is_blobby(col))
            return sc_fail(c, tn, "column %s: a %s column cannot be in the primary key (MySQL needs a key prefix)",
                           col->name, col->sql_type);
    }
    if ((v = sc_get(c, cn, "auto_increment"))) {
        if (sc_bool(c, v, "auto_increment", &col->auto_increment) < 0)
            return -1;
        if (col->auto_increment && !sc_col_is_int(col))
            return sc_fail(c, v, "column %s: auto_increment needs an integer column, not %s", col->name,
                           col->sql_type);
        if (col->auto_increment && !col->primary_key)
            return sc_fail(c, v, "column %s: an auto_increment column must be (part of) the primary key", col->name);
    }
    if ((v = sc_get(c, cn, "invisible"))) {
        if (sc_bool(c, v, "invisible", &col->invisible) < 0)
            return -1;
        if (col->invisible && c->version < 80023)
            return sc_fail(c, v, "column %s: invisible columns need server.version 8.0.23 or later", col->name);
    }
    if ((v = sc_get(c, cn, "default"))) {
        if (sc_col_is_blobby(col))
            return sc_fail(c, v, "column %s: %s columns cannot have a literal DEFAULT", col->name, col->sql_type);
        if (col->auto_increment)
            return sc_fail(c, v, "column %s: an auto_increment column cannot have a DEFAULT", col->name);
        cdch_value dv;
        if (sc_node_value(c, col, v, &dv) < 0)
            return -1;
        col->default_sql = sc_sql_literal(col, &dv, c->a);
        cdch_value *keep = cdch_arena_alloc(c->a, sizeof *keep);
        *keep = dv;
        col->default_value = keep;
    }
    return 0;
}

static int load_table(sc_ctx *c, yaml_node_t *tn, cdch_sc_table *t)
{
    static const char *const keys[] = {"name", "db", "engine", "charset", "collation", "columns", NULL};
    if (sc_check_map(c, tn, "a table", keys) < 0)
        return -1;
    yaml_node_t *nn = sc_need(c, tn, "name", "a table");
    const char *full;
    if (!nn || sc_str(c, nn, "table name", &full) < 0)
        return -1;
    yaml_node_t *dn = sc_get(c, tn, "db");
    const char *dot = strchr(full, '.');
    if (dot && dn)
        return sc_fail(c, dn, "table %s already names its database; drop db:", full);
    if (dot) {
        t->db = cdch_arena_memdup(c->a, full, (size_t)(dot - full));
        t->name = dot + 1;
    } else if (dn) {
        if (sc_str(c, dn, "db", &t->db) < 0)
            return -1;
        t->name = full;
    } else {
        return sc_fail(c, nn, "table name '%s' must be db.table (or give db:)", full);
    }
    if (check_ident(c, dn ? dn : nn, "database name", t->db, strlen(t->db)) < 0 ||
        check_ident(c, nn, "table name", t->name, strlen(t->name)) < 0)
        return -1;
    for (cdch_sc_table *o = c->s->tables; o < t; o++)
        if (strcmp(o->db, t->db) == 0 && strcmp(o->name, t->name) == 0)
            return sc_fail(c, nn, "table %s.%s is defined twice (first at line %u)", t->db, t->name, o->mark.line);
    t->mark = sc_mark(tn);

    t->engine = "InnoDB";
    t->transactional = true;
    yaml_node_t *v;
    if ((v = sc_get(c, tn, "engine"))) {
        static const char *const ws[] = {"InnoDB", "MyISAM", "MEMORY", NULL};
        int w;
        if (sc_word(c, v, "engine", ws, &w) < 0)
            return -1;
        t->engine = ws[w];
        t->transactional = w == 0;
    }

    /* the database: listed, or created implicitly with the defaults */
    cdch_sc_database *db = find_db(c->s, t->db);
    if (!db) {
        db = &c->s->dbs[c->s->ndbs++];
        db->name = t->db;
        db->charset = "utf8mb4";
        db->collation = "utf8mb4_0900_ai_ci";
    }
    const char *tcs, *tcoll;
    if (charset_keys(c, tn, "a table", &tcs, &tcoll) < 0)
        return -1;
    if (!tcs) {
        tcs = db->charset;
        tcoll = db->collation;
    }

    yaml_node_t *cols = sc_need(c, tn, "columns", "a table");
    if (!cols)
        return -1;
    if (!sc_is_seq(cols))
        return sc_fail(c, cols, "columns must be a list, got %s", sc_kind_name(cols));
    size_t n = (size_t)(cols->data.sequence.items.top - cols->data.sequence.items.start);
    if (n == 0)
        return sc_fail(c, cols, "table %s.%s has no columns", t->db, t->name);
    if (n > 4096)
        return sc_fail(c, cols, "table %s.%s has %zu columns, more than MySQL's 4096", t->db, t->name, n);
    t->cols = cdch_arena_alloc(c->a, n * sizeof *t->cols);
    bool visible = false;
    size_t n_ai = 0;
    for (size_t i = 0; i < n; i++) {
        yaml_node_t *cn = sc_node(c, cols->data.sequence.items.start[i]);
        cdch_sc_column *col = &t->cols[i];
        if (load_column(c, cn, tcs, tcoll, col) < 0)
            return -1;
        for (size_t j = 0; j < i; j++)
            if (strcasecmp(t->cols[j].name, col->name) == 0)
                return sc_fail(c, sc_get(c, cn, "name"), "duplicate column name '%s' in %s.%s (first at line %u)",
                               col->name, t->db, t->name, t->cols[j].mark.line);
        visible = visible || !col->invisible;
        if (col->auto_increment && ++n_ai > 1)
            return sc_fail(c, sc_get(c, cn, "auto_increment"), "table %s.%s has a second auto_increment column",
                           t->db, t->name);
        t->ncols = i + 1;
    }
    if (!visible)
        return sc_fail(c, cols, "table %s.%s needs at least one visible column", t->db, t->name);
    return 0;
}

static int load_tables(sc_ctx *c, yaml_node_t *n)
{
    cdch_scenario *s = c->s;
    if (!n)
        return 0;
    if (!sc_is_seq(n))
        return sc_fail(c, n, "tables must be a list, got %s", sc_kind_name(n));
    size_t cnt = (size_t)(n->data.sequence.items.top - n->data.sequence.items.start);
    s->tables = cnt ? cdch_arena_alloc(c->a, cnt * sizeof *s->tables) : NULL;
    for (size_t i = 0; i < cnt; i++) {
        cdch_sc_table *t = &s->tables[i];
        if (load_table(c, sc_node(c, n->data.sequence.items.start[i]), t) < 0)
            return -1;
        t->table_id = s->server.first_table_id + i;
        s->ntables = i + 1;
    }
    return 0;
}

/* ---- the whole file ------------------------------------------------------------- */

static void set_defaults(cdch_scenario *s)
{
    static const uint8_t uuid[16] = {0x3e, 0x11, 0xfa, 0x47, 0x71, 0xca, 0x11, 0xe1,
                                     0x9e, 0x33, 0xc8, 0x0a, 0xa9, 0x42, 0x95, 0x62};
    s->description = "";
    s->server.version = CDCH_SC_DEFAULT_VERSION;
    s->server.server_id = 1;
    memcpy(s->server.uuid, uuid, 16);
    s->server.gtid_mode = true;
    s->server.thread_id = 8;
    s->server.first_table_id = 90;
    s->server.first_gno = 1;
    s->binlog.checksum = true;
    s->binlog.row_image = CDCH_ROW_IMAGE_FULL;
    s->binlog.max_size = 1ULL << 30;
    s->binlog.basename = "binlog";
    s->binlog.compression = CDCH_COMPRESSION_BOTH;
    s->binlog.zstd_level = 3;
    s->binlog.row_event_max_size = 8192;
    s->binlog.start_time = 1704067200; /* 2024-01-01 00:00:00 UTC */
    s->binlog.create_tables = true;
}

static const char *default_name(cdch_arena *a, const char *path)
{
    const char *base = strrchr(path, '/');
    base = base ? base + 1 : path;
    size_t n = strlen(base);
    if (n > 5 && strcmp(base + n - 5, ".yaml") == 0)
        n -= 5;
    else if (n > 4 && strcmp(base + n - 4, ".yml") == 0)
        n -= 4;
    return cdch_arena_memdup(a, base, n);
}

static int load_faults(sc_ctx *c, yaml_node_t *n)
{
    static const char *const keys[] = {"drop_after_events", "drop_after_bytes", "corrupt_checksum_at",
                                       "truncate_event_at", "unknown_event_at", "stall_at", "once", NULL};
    if (!n)
        return 0;
    if (sc_check_map(c, n, "faults", keys) < 0)
        return -1;
    cdch_sc_faults *f = &c->s->faults;
    uint64_t *dst[] = {&f->drop_after_events, &f->drop_after_bytes, &f->corrupt_checksum_at,
                       &f->truncate_event_at, &f->unknown_event_at, &f->stall_at};
    yaml_node_t *v;
    for (size_t i = 0; i < sizeof dst / sizeof dst[0]; i++) {
        char what[64];
        snprintf(what, sizeof what, "faults.%s", keys[i]);
        if ((v = sc_get(c, n, keys[i])) && sc_u64(c, v, what, 0, UINT64_MAX, dst[i]) < 0)
            return -1;
    }
    if ((v = sc_get(c, n, "once")) && sc_bool(c, v, "faults.once", &f->once) < 0)
        return -1;
    return 0;
}

/* start: attach (the schema pre-exists: consumers start after the stream's
 * leading DDL), or {skip_txns: N}, or {attach: BOOL} */
static int load_start(sc_ctx *c, yaml_node_t *n)
{
    static const char *const keys[] = {"skip_txns", "attach", NULL};
    if (!n)
        return 0;
    if (n->type == YAML_SCALAR_NODE) {
        static const char *const words[] = {"attach", NULL};
        int w;
        if (sc_word(c, n, "start", words, &w) < 0)
            return -1;
        c->s->start_attach = true;
        return 0;
    }
    if (sc_check_map(c, n, "start", keys) < 0)
        return -1;
    yaml_node_t *v = sc_get(c, n, "skip_txns");
    if (v && sc_u64(c, v, "start.skip_txns", 1, UINT64_MAX, &c->s->start_skip_txns) < 0)
        return -1;
    yaml_node_t *a = sc_get(c, n, "attach");
    if (a && sc_bool(c, a, "start.attach", &c->s->start_attach) < 0)
        return -1;
    if (a && v && c->s->start_attach)
        return sc_fail(c, a, "start.attach and start.skip_txns exclude each other (skip_txns already starts "
                             "after the schema: drop attach)");
    return 0;
}

/* A scenario that replays a capture (capture.c): its schema, server and
 * stream are the capture's; binlog: says only how it is served. */
static int load_capture_root(sc_ctx *c, yaml_node_t *root, yaml_node_t *cap)
{
    static const char *const own[] = {"server", "databases", "tables", "transactions", "start", NULL};
    for (size_t i = 0; own[i]; i++)
        if (sc_get(c, root, own[i]))
            return sc_fail(c, sc_get(c, root, own[i]),
                           "%s: does not go with capture: (the server, schema and transactions are the capture's: "
                           "its first binlog file and schema.sql)",
                           own[i]);
    static const char *const served[] = {"compression", "zstd_level", "zstd_content_size", NULL};
    yaml_node_t *b = sc_get(c, root, "binlog");
    if (b && sc_check_map(c, b, "binlog (with capture:, only how the stream is served)", served) < 0)
        return -1;
    if (load_binlog(c, b) < 0 || load_faults(c, sc_get(c, root, "faults")) < 0 || sc_load_capture(c, cap) < 0)
        return -1;
    c->s->server.native_password = c->version < 80400; /* the captured server's default (load_server) */
    return 0;
}

static int load_root(sc_ctx *c, yaml_node_t *root)
{
    static const char *const keys[] = {"name",   "description", "server", "binlog",       "faults",
                                       "start",  "databases",   "tables", "transactions", "capture", NULL};
    if (sc_check_map(c, root, "the scenario", keys) < 0)
        return -1;
    cdch_scenario *s = c->s;
    yaml_node_t *v;
    if ((v = sc_get(c, root, "name")) && sc_str(c, v, "name", &s->name) < 0)
        return -1;
    if ((v = sc_get(c, root, "description")) && sc_str(c, v, "description", &s->description) < 0)
        return -1;
    c->version = CDCH_SC_DEFAULT_VERSION_PRODUCT;
    if ((v = sc_get(c, root, "capture")))
        return load_capture_root(c, root, v);
    if (load_server(c, sc_get(c, root, "server")) < 0 || load_binlog(c, sc_get(c, root, "binlog")) < 0 ||
        load_faults(c, sc_get(c, root, "faults")) < 0 || load_start(c, sc_get(c, root, "start")) < 0)
        return -1;
    yaml_node_t *dbs = sc_get(c, root, "databases"), *tables = sc_get(c, root, "tables");
    size_t cap = 1;
    if (sc_is_seq(dbs))
        cap += (size_t)(dbs->data.sequence.items.top - dbs->data.sequence.items.start);
    if (sc_is_seq(tables))
        cap += (size_t)(tables->data.sequence.items.top - tables->data.sequence.items.start);
    if (load_databases(c, dbs, cap) < 0 || load_tables(c, tables) < 0)
        return -1;
    v = sc_get(c, root, "transactions");
    if (v && sc_load_items(c, v) < 0)
        return -1;
    return 0;
}

static int yaml_error(sc_ctx *c, yaml_parser_t *p)
{
    cdch_sc_mark m = {(uint32_t)p->problem_mark.line + 1, (uint32_t)p->problem_mark.column + 1};
    char msg[CDCH_ERR_MSG_MAX];
    if (p->context)
        snprintf(msg, sizeof msg, "YAML syntax error: %s %s (line %u)", p->problem ? p->problem : "?", p->context,
                 (unsigned)p->context_mark.line + 1);
    else
        snprintf(msg, sizeof msg, "YAML syntax error: %s", p->problem ? p->problem : "unknown problem");
    if (p->error == YAML_MEMORY_ERROR)
        snprintf(msg, sizeof msg, "out of memory reading YAML");
    return fail_at(c, m, msg);
}

cdch_scenario *cdch_scenario_load_mem(const char *yaml, size_t len, const char *name, cdch_err *err)
{
    cdch_scenario *s = calloc(1, sizeof *s);
    if (!s) {
        cdch_err_set(err, "out of memory");
        return NULL;
    }
    set_defaults(s);
    if (!name)
        name = "<scenario>";
    s->path = cdch_arena_strdup(&s->arena, name);
    s->name = default_name(&s->arena, name);

    sc_ctx c;
    memset(&c, 0, sizeof c);
    c.fname = s->path;
    c.s = s;
    c.a = &s->arena;
    c.err = err;

    yaml_parser_t parser;
    yaml_document_t doc, doc2;
    int rc = -1;
    bool have_doc = false;
    if (!yaml_parser_initialize(&parser)) {
        cdch_err_set(err, "%s: cannot initialise the YAML parser", name);
        cdch_scenario_free(s);
        return NULL;
    }
    yaml_parser_set_input_string(&parser, (const unsigned char *)yaml, len);
    if (!yaml_parser_load(&parser, &doc)) {
        yaml_error(&c, &parser);
        goto out;
    }
    have_doc = true;
    c.doc = &doc;
    yaml_node_t *root = yaml_document_get_root_node(&doc);
    if (!root) {
        fail_at(&c, (cdch_sc_mark){1, 1}, "the scenario file is empty");
        goto out;
    }
    /* exactly one document */
    if (!yaml_parser_load(&parser, &doc2)) {
        yaml_error(&c, &parser);
        goto out;
    }
    yaml_node_t *root2 = yaml_document_get_root_node(&doc2);
    if (root2) {
        sc_fail(&c, root2, "a scenario file holds one YAML document; this is a second one (remove the '---')");
        yaml_document_delete(&doc2);
        goto out;
    }
    yaml_document_delete(&doc2);
    rc = load_root(&c, root);
out:
    sc_state_free(&c);
    if (have_doc)
        yaml_document_delete(&doc);
    yaml_parser_delete(&parser);
    if (rc < 0) {
        cdch_scenario_free(s);
        return NULL;
    }
    return s;
}

cdch_scenario *cdch_scenario_load(const char *path, cdch_err *err)
{
    size_t len;
    char *text = cdch_read_file(path, 0, &len, err);
    if (!text)
        return NULL;
    cdch_scenario *s = cdch_scenario_load_mem(text, len, path, err);
    free(text);
    return s;
}

void cdch_scenario_free(cdch_scenario *s)
{
    if (!s)
        return;
    cdch_arena_free(&s->arena);
    free(s);
}

const cdch_sc_table *cdch_scenario_table(const cdch_scenario *s, const char *db, const char *name)
{
    if (!s || !name)
        return NULL;
    const char *dot = db ? NULL : strchr(name, '.');
    size_t dblen = dot ? (size_t)(dot - name) : 0;
    const char *tname = dot ? dot + 1 : name;
    const cdch_sc_table *found = NULL;
    for (size_t i = 0; i < s->ntables; i++) {
        const cdch_sc_table *t = &s->tables[i];
        if (strcmp(t->name, tname) != 0)
            continue;
        if (db && strcmp(t->db, db) != 0)
            continue;
        if (dot && (strlen(t->db) != dblen || strncmp(t->db, name, dblen) != 0))
            continue;
        if (!db && !dot && found)
            return NULL; /* ambiguous */
        found = t;
    }
    return found;
}
