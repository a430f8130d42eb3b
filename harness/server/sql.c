/* sql.c — just enough SQL for the fake primary: comment stripping and
 * statement splitting, a lexer, and an expression parser/evaluator for
 * select lists, WHERE clauses and SET values.
 *
 * Owns: nothing beyond what it allocates in the caller's arena.
 *
 * Expressions: literals (numbers, 'strings', "strings", NULL, TRUE/FALSE,
 * _charset'introducers'), @@[global.|session.]system_variables, @user_vars,
 * column references (qualified names are accepted, the qualifier is not
 * checked), unary - + NOT !, * / DIV % MOD + -, comparisons (= <=> <> != <
 * > <= >=), [NOT] LIKE, [NOT] IN (...), IS [NOT] NULL, [NOT] BETWEEN, AND
 * OR XOR, and the functions listed in k_funcs. Strings compare
 * case-insensitively (utf8mb4_0900_ai_ci-like); a string compared with a
 * number is converted to a number, as MySQL does.
 */
#include <ctype.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include <openssl/rand.h>

#include "gtid.h"
#include "mysql_types.h"
#include "query_internal.h"

int sql_fail(sql_ctx *cx, uint16_t code, const char *state, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(cx->err, sizeof cx->err, fmt, ap);
    va_end(ap);
    cx->err_code = code;
    snprintf(cx->sqlstate, sizeof cx->sqlstate, "%s", state ? state : "HY000");
    return -1;
}

bool srv_ci_contains(const char *hay, const char *needle)
{
    size_t n = strlen(needle);
    for (; *hay; hay++)
        if (strncasecmp(hay, needle, n) == 0)
            return true;
    return n == 0;
}

/* ---- comments and statements ------------------------------------------------------- */

/* The statement text without comments ("/ * ... * /", "-- ", "#"; the
 * body of a version comment is kept), quoted text copied as it is;
 * NUL-terminated, *n = its length. Allocated in a. */
static char *strip_comments(const char *sql, size_t len, cdch_arena *a, size_t *n_out)
{
    char *clean = cdch_arena_alloc(a, len + 1);
    size_t n = 0;
    bool in_version = false;
    for (size_t i = 0; i < len;) {
        char ch = sql[i];
        if (ch == '\'' || ch == '"' || ch == '`') {
            char q = ch;
            clean[n++] = sql[i++];
            while (i < len) {
                if (sql[i] == '\\' && q != '`' && i + 1 < len) {
                    clean[n++] = sql[i++];
                    clean[n++] = sql[i++];
                    continue;
                }
                if (sql[i] == q) {
                    if (i + 1 < len && sql[i + 1] == q) {
                        clean[n++] = sql[i++];
                        clean[n++] = sql[i++];
                        continue;
                    }
                    clean[n++] = sql[i++];
                    break;
                }
                clean[n++] = sql[i++];
            }
            continue;
        }
        if (ch == '/' && i + 1 < len && sql[i + 1] == '*') {
            if (i + 2 < len && sql[i + 2] == '!') { /* version comment: keep the body */
                i += 3;
                while (i < len && isdigit((unsigned char)sql[i]))
                    i++;
                in_version = true;
                clean[n++] = ' ';
                continue;
            }
            const char *e = NULL;
            for (size_t k = i + 2; k + 1 < len; k++)
                if (sql[k] == '*' && sql[k + 1] == '/') {
                    e = sql + k;
                    break;
                }
            i = e ? (size_t)(e - sql) + 2 : len;
            clean[n++] = ' ';
            continue;
        }
        if (in_version && ch == '*' && i + 1 < len && sql[i + 1] == '/') {
            in_version = false;
            i += 2;
            clean[n++] = ' ';
            continue;
        }
        if (ch == '#' || (ch == '-' && i + 2 <= len && sql[i + 1] == '-' &&
                          (i + 2 == len || isspace((unsigned char)sql[i + 2])))) {
            while (i < len && sql[i] != '\n')
                i++;
            clean[n++] = ' ';
            continue;
        }
        clean[n++] = sql[i++];
    }
    clean[n] = 0;
    *n_out = n;
    return clean;
}

/* Cut clean[0..n] at ';' outside quotes: trimmed statements, empty ones
 * dropped. A quote that is never closed runs to the end of the text: the
 * last statement keeps it and *unclosed points at it there (NULL when every
 * quote is closed). */
static size_t split_statements(const char *clean, size_t n, cdch_arena *a, char ***out, const char **unclosed)
{
    size_t cap = 4, cnt = 0;
    char **stmts = cdch_arena_alloc(a, cap * sizeof *stmts);
    size_t start = 0, open_at = SIZE_MAX;
    *unclosed = NULL;
    for (size_t i = 0; i <= n; i++) {
        char ch = clean[i];
        if (ch == '\'' || ch == '"' || ch == '`') {
            char q = ch;
            size_t at = i;
            for (i++; i < n; i++) {
                if (clean[i] == '\\' && q != '`') {
                    i++;
                    continue;
                }
                if (clean[i] == q) {
                    if (clean[i + 1] == q) {
                        i++;
                        continue;
                    }
                    break;
                }
            }
            if (i < n)
                continue;
            open_at = at; /* never closed: the statement ends with the text */
            i = n;
            ch = 0;
        }
        if (ch != ';' && ch != 0)
            continue;
        size_t s = start, e = i;
        while (s < e && isspace((unsigned char)clean[s]))
            s++;
        while (e > s && isspace((unsigned char)clean[e - 1]))
            e--;
        if (e > s) {
            if (cnt == cap) {
                char **bigger = cdch_arena_alloc(a, cap * 2 * sizeof *stmts);
                memcpy(bigger, stmts, cap * sizeof *stmts);
                stmts = bigger;
                cap *= 2;
            }
            stmts[cnt] = cdch_arena_memdup(a, clean + s, e - s);
            if (open_at >= s && open_at < e)
                *unclosed = stmts[cnt] + (open_at - s);
            cnt++;
        }
        start = i + 1;
        if (ch == 0)
            break;
    }
    *out = stmts;
    return cnt;
}

void sql_syntax_near(char *msg, size_t cap, const char *stmt, const char *near)
{
    unsigned line = 1;
    for (const char *p = stmt; near && p < near && *p; p++)
        line += *p == '\n';
    snprintf(msg, cap,
             "You have an error in your SQL syntax; check the manual that corresponds to your MySQL server version "
             "for the right syntax to use near '%.80s' at line %u",
             near ? near : "", line);
}

size_t sql_split(const char *sql, size_t len, cdch_arena *a, char ***out, const char **unclosed)
{
    size_t n;
    const char *clean = strip_comments(sql, len, a, &n);
    return split_statements(clean, n, a, out, unclosed);
}

/* ---- lexer ------------------------------------------------------------------------- */

static bool ident_char(unsigned char ch) { return isalnum(ch) || ch == '_' || ch == '$' || ch >= 0x80; }

static void push(sql_lex *lx, size_t *cap, sql_tok t)
{
    if (lx->n + 1 >= *cap) {
        size_t nc = *cap ? *cap * 2 : 32;
        sql_tok *nt = cdch_arena_alloc(lx->a, nc * sizeof *nt);
        if (lx->n)
            memcpy(nt, lx->t, lx->n * sizeof *nt);
        lx->t = nt;
        *cap = nc;
    }
    lx->t[lx->n++] = t;
}

/* Unescape a quoted string starting at p (the quote). Returns the position after it, or NULL. */
static const char *lex_string(const char *p, cdch_arena *a, char **text, size_t *len)
{
    char q = *p++;
    size_t cap = 1; /* the unescaped text is never longer than the quoted one */
    for (const char *e = p; *e; e++, cap++) {
        if (*e == '\\' && q != '`' && e[1]) {
            e++;
            cap++;
        } else if (*e == q) {
            if (e[1] != q)
                break;
            e++;
            cap++;
        }
    }
    char *o = cdch_arena_alloc(a, cap + 2);
    size_t n = 0;
    for (;;) {
        char ch = *p;
        if (!ch)
            return NULL;
        if (ch == '\\' && q != '`' && p[1]) {
            char e = p[1];
            switch (e) {
            case 'n': o[n++] = '\n'; break;
            case 't': o[n++] = '\t'; break;
            case 'r': o[n++] = '\r'; break;
            case 'b': o[n++] = '\b'; break;
            case '0': o[n++] = '\0'; break;
            case 'Z': o[n++] = 26; break;
            case '%':
            case '_': o[n++] = '\\'; o[n++] = e; break;
            default: o[n++] = e; break;
            }
            p += 2;
            continue;
        }
        if (ch == q) {
            if (p[1] == q) {
                o[n++] = q;
                p += 2;
                continue;
            }
            p++;
            break;
        }
        o[n++] = ch;
        p++;
    }
    o[n] = 0;
    *text = o;
    *len = n;
    return p;
}

/* The token readers below start at the token's first character, fill t
 * (kind, text, len) and return the position after it, or NULL with a
 * message in err. */

/* 'string', "string" or `identifier` */
static const char *lex_quoted(const char *p, sql_tok *t, cdch_arena *a, char *err, size_t errcap)
{
    char ch = *p;
    const char *e = lex_string(p, a, &t->text, &t->len);
    if (!e) {
        snprintf(err, errcap, "unterminated %s starting at '%.40s'", ch == '`' ? "identifier" : "string", p);
        return NULL;
    }
    t->kind = ch == '`' ? TK_QIDENT : TK_STRING;
    return e;
}

/* @@[global.|session.|local.|persist.|persist_only.]name or @@`name` */
static const char *lex_sysvar(const char *p, sql_tok *t, cdch_arena *a, char *err, size_t errcap)
{
    p += 2;
    const char *s = p;
    t->kind = TK_SYSVAR;
    for (;;) {
        const char *w = p;
        if (*p == '`') {
            char *txt;
            size_t l;
            const char *e = lex_string(p, a, &txt, &l);
            if (!e) {
                snprintf(err, errcap, "unterminated identifier after @@");
                return NULL;
            }
            p = e;
        } else {
            while (ident_char((unsigned char)*p))
                p++;
        }
        size_t wl = (size_t)(p - w);
        if (*p == '.' && !t->scope &&
            ((wl == 6 && strncasecmp(w, "global", 6) == 0) || (wl == 7 && strncasecmp(w, "session", 7) == 0) ||
             (wl == 5 && strncasecmp(w, "local", 5) == 0) || (wl == 7 && strncasecmp(w, "persist", 7) == 0) ||
             (wl == 12 && strncasecmp(w, "persist_only", 12) == 0))) {
            t->scope = (char)((w[0] | 0x20) == 'g' || (w[0] | 0x20) == 'p' ? 'g' : 's');
            p++;
            s = p;
            continue;
        }
        break;
    }
    size_t l = (size_t)(p - s);
    if (l && *s == '`') {
        lex_string(s, a, &t->text, &t->len);
    } else {
        t->text = cdch_arena_memdup(a, s, l);
        t->len = l;
    }
    if (!t->len) {
        snprintf(err, errcap, "missing variable name after @@");
        return NULL;
    }
    return p;
}

bool sql_uservar_name_ok(const char *name) { return srv_utf8_chars(name, strlen(name)) <= SRV_NAME_CHARS; }

/* @name, @'name', @"name", @`name` */
static const char *lex_uservar(const char *p, sql_tok *t, cdch_arena *a, char *err, size_t errcap)
{
    p++;
    t->kind = TK_USERVAR;
    if (*p == '\'' || *p == '"' || *p == '`') {
        const char *e = lex_string(p, a, &t->text, &t->len);
        if (!e)
            snprintf(err, errcap, "unterminated user variable name");
        return e;
    }
    const char *s = p;
    while (ident_char((unsigned char)*p) || *p == '.')
        p++;
    t->text = cdch_arena_memdup(a, s, (size_t)(p - s));
    t->len = (size_t)(p - s);
    return p;
}

/* 12, 1.5, .5, 1e3, 0x1F; 1abc is an identifier */
static const char *lex_number(const char *p, sql_tok *t, cdch_arena *a)
{
    const char *s = p;
    if (p[0] == '0' && (p[1] == 'x' || p[1] == 'X')) {
        p += 2;
        while (isxdigit((unsigned char)*p))
            p++;
    } else {
        while (isdigit((unsigned char)*p))
            p++;
        if (*p == '.') {
            p++;
            while (isdigit((unsigned char)*p))
                p++;
        }
        if ((*p == 'e' || *p == 'E') &&
            (isdigit((unsigned char)p[1]) || ((p[1] == '-' || p[1] == '+') && isdigit((unsigned char)p[2])))) {
            p += 2;
            while (isdigit((unsigned char)*p))
                p++;
        }
    }
    if (ident_char((unsigned char)*p)) {
        while (ident_char((unsigned char)*p))
            p++;
        t->kind = TK_IDENT;
    } else {
        t->kind = TK_NUMBER;
    }
    t->text = cdch_arena_memdup(a, s, (size_t)(p - s));
    t->len = (size_t)(p - s);
    return p;
}

/* A word (keywords too), or a string with an introducer: _utf8mb4'x', N'x', X'hex' */
static const char *lex_word(const char *p, sql_tok *t, cdch_arena *a, char *err, size_t errcap)
{
    const char *s = p;
    while (ident_char((unsigned char)*p))
        p++;
    t->kind = TK_IDENT;
    t->text = cdch_arena_memdup(a, s, (size_t)(p - s));
    t->len = (size_t)(p - s);
    if ((*p == '\'') && (s[0] == '_' || ((p - s) == 1 && (s[0] == 'N' || s[0] == 'n')))) {
        const char *e = lex_string(p, a, &t->text, &t->len);
        if (!e) {
            snprintf(err, errcap, "unterminated string");
            return NULL;
        }
        t->kind = TK_STRING;
        return e;
    }
    if (*p == '\'' && (p - s) == 1 && (s[0] == 'X' || s[0] == 'x')) {
        char *hex;
        size_t hl;
        const char *e = lex_string(p, a, &hex, &hl);
        if (!e || hl % 2) {
            snprintf(err, errcap, "bad hexadecimal literal");
            return NULL;
        }
        char *o = cdch_arena_alloc(a, hl / 2 + 1);
        for (size_t k = 0; k < hl / 2; k++) {
            unsigned v;
            sscanf(hex + 2 * k, "%2x", &v);
            o[k] = (char)v;
        }
        t->kind = TK_STRING;
        t->text = o;
        t->len = hl / 2;
        return e;
    }
    return p;
}

/* An operator or punctuation: the longest of the multi-character ones, else one character. */
static const char *lex_op(const char *p, sql_tok *t, cdch_arena *a, char *err, size_t errcap)
{
    static const char *const ops[] = {"<=>", "<=", ">=", "<>", "!=", ":=", "||", "&&", "->>", "->"};
    t->kind = TK_OP;
    size_t l = 0;
    for (size_t k = 0; k < sizeof ops / sizeof ops[0]; k++)
        if (strncmp(p, ops[k], strlen(ops[k])) == 0) {
            l = strlen(ops[k]);
            break;
        }
    if (!l) {
        if (!strchr("=<>(),.*+-/%;!~&|^{}:", *p)) {
            snprintf(err, errcap, "unexpected character '%c' at '%.40s'", *p, p);
            return NULL;
        }
        l = 1;
    }
    t->text = cdch_arena_memdup(a, p, l);
    t->len = l;
    return p + l;
}

int sql_lex_init(sql_lex *lx, const char *sql, cdch_arena *a, char *err, size_t errcap)
{
    memset(lx, 0, sizeof *lx);
    lx->a = a;
    lx->sql = sql;
    size_t cap = 0;
    const char *p = sql;
    for (;;) {
        while (isspace((unsigned char)*p))
            p++;
        sql_tok t = {0};
        t.src = p;
        if (!*p) {
            t.kind = TK_END;
            t.text = "";
            push(lx, &cap, t);
            return 0;
        }
        unsigned char ch = (unsigned char)*p;
        if (ch == '\'' || ch == '"' || ch == '`') {
            p = lex_quoted(p, &t, a, err, errcap);
        } else if (ch == '@' && p[1] == '@') {
            p = lex_sysvar(p, &t, a, err, errcap);
        } else if (ch == '@') {
            p = lex_uservar(p, &t, a, err, errcap);
        } else if (isdigit(ch) || (ch == '.' && isdigit((unsigned char)p[1]))) {
            p = lex_number(p, &t, a);
        } else if (ident_char(ch)) {
            p = lex_word(p, &t, a, err, errcap);
        } else if (ch == '?') {
            t.kind = TK_PARAM;
            t.text = "?";
            t.len = 1;
            p++;
        } else {
            p = lex_op(p, &t, a, err, errcap);
        }
        if (!p)
            return -1;
        t.srclen = (size_t)(p - t.src);
        push(lx, &cap, t);
    }
}

const sql_tok *lx_peek(const sql_lex *lx, size_t ahead)
{
    size_t i = lx->i + ahead;
    return i < lx->n ? &lx->t[i] : &lx->t[lx->n - 1];
}

bool lx_at_end(const sql_lex *lx) { return lx_peek(lx, 0)->kind == TK_END; }

bool lx_is_kw(const sql_lex *lx, size_t ahead, const char *kw)
{
    const sql_tok *t = lx_peek(lx, ahead);
    return t->kind == TK_IDENT && strcasecmp(t->text, kw) == 0;
}

bool lx_kw(sql_lex *lx, const char *kw)
{
    if (!lx_is_kw(lx, 0, kw))
        return false;
    lx->i++;
    return true;
}

bool lx_kws(sql_lex *lx, const char *kws)
{
    char buf[128];
    snprintf(buf, sizeof buf, "%s", kws);
    size_t k = 0;
    for (char *save = NULL, *w = strtok_r(buf, " ", &save); w; w = strtok_r(NULL, " ", &save), k++)
        if (!lx_is_kw(lx, k, w))
            return false;
    lx->i += k;
    return true;
}

bool lx_op(sql_lex *lx, const char *op)
{
    const sql_tok *t = lx_peek(lx, 0);
    if (t->kind != TK_OP || strcmp(t->text, op) != 0)
        return false;
    lx->i++;
    return true;
}

const char *lx_name(sql_lex *lx)
{
    const sql_tok *t = lx_peek(lx, 0);
    if (t->kind != TK_IDENT && t->kind != TK_QIDENT && t->kind != TK_STRING)
        return NULL;
    lx->i++;
    return t->text;
}

char *lx_source(const sql_lex *lx, size_t i, size_t j)
{
    if (j <= i || i >= lx->n)
        return cdch_arena_strdup(lx->a, "");
    const char *s = lx->t[i].src;
    const sql_tok *last = &lx->t[(j > lx->n ? lx->n : j) - 1];
    const char *e = last->src + last->srclen;
    return cdch_arena_memdup(lx->a, s, (size_t)(e - s));
}

/* ---- values ------------------------------------------------------------------------ */

bool qv_true(const qval *v)
{
    switch (v->k) {
    case QV_NULL: return false;
    case QV_INT: return v->i != 0;
    case QV_DBL: return v->d != 0;
    case QV_STR: return strtod(v->s, NULL) != 0;
    }
    return false;
}

const char *qv_text(const qval *v, cdch_arena *a, size_t *n)
{
    char b[64];
    int k;
    switch (v->k) {
    case QV_NULL:
        if (n)
            *n = 0;
        return NULL;
    case QV_STR:
        if (n)
            *n = v->n;
        return v->s;
    case QV_INT:
        k = v->is_unsigned ? snprintf(b, sizeof b, "%llu", (unsigned long long)v->i)
                           : snprintf(b, sizeof b, "%lld", (long long)v->i);
        break;
    case QV_DBL:
    default: k = snprintf(b, sizeof b, "%.15g", v->d); break;
    }
    if (n)
        *n = (size_t)k;
    return cdch_arena_memdup(a, b, (size_t)k);
}

static double qv_num(const qval *v)
{
    switch (v->k) {
    case QV_INT: return v->is_unsigned ? (double)(uint64_t)v->i : (double)v->i;
    case QV_DBL: return v->d;
    case QV_STR: return strtod(v->s, NULL);
    default: return 0;
    }
}

static int ci_cmp(const char *a, size_t an, const char *b, size_t bn)
{
    size_t n = an < bn ? an : bn;
    for (size_t i = 0; i < n; i++) {
        int x = tolower((unsigned char)a[i]), y = tolower((unsigned char)b[i]);
        if (x != y)
            return x < y ? -1 : 1;
    }
    /* trailing spaces do not count (PAD SPACE collations) */
    while (an > n && a[an - 1] == ' ')
        an--;
    while (bn > n && b[bn - 1] == ' ')
        bn--;
    return an == bn ? 0 : an < bn ? -1 : 1;
}

int qv_cmp(const qval *x, const qval *y)
{
    if (x->k == QV_STR && y->k == QV_STR)
        return ci_cmp(x->s, x->n, y->s, y->n);
    if (x->k == QV_INT && y->k == QV_INT && !x->is_unsigned && !y->is_unsigned)
        return x->i < y->i ? -1 : x->i > y->i;
    double a = qv_num(x), b = qv_num(y);
    return a < b ? -1 : a > b;
}

static qval qv_int(int64_t i)
{
    qval v = {0};
    v.k = QV_INT;
    v.i = i;
    return v;
}

static qval qv_str(const char *s, size_t n)
{
    qval v = {0};
    v.k = QV_STR;
    v.s = s;
    v.n = n;
    return v;
}

static qval qv_cstr(cdch_arena *a, const char *s) { return qv_str(cdch_arena_strdup(a, s), strlen(s)); }

bool sql_like(const char *s, size_t sn, const char *p, size_t pn)
{
    size_t si = 0, pi = 0, star_p = (size_t)-1, star_s = 0;
    while (si < sn) {
        if (pi < pn && p[pi] == '\\' && pi + 1 < pn) {
            if (tolower((unsigned char)p[pi + 1]) == tolower((unsigned char)s[si])) {
                pi += 2;
                si++;
                continue;
            }
        } else if (pi < pn && p[pi] == '%') {
            star_p = ++pi;
            star_s = si;
            continue;
        } else if (pi < pn && (p[pi] == '_' || tolower((unsigned char)p[pi]) == tolower((unsigned char)s[si]))) {
            pi++;
            si++;
            continue;
        }
        if (star_p != (size_t)-1) {
            pi = star_p;
            si = ++star_s;
            continue;
        }
        return false;
    }
    while (pi < pn && p[pi] == '%')
        pi++;
    return pi == pn;
}

/* ---- AST --------------------------------------------------------------------------- */

typedef enum ek {
    E_LIT = 1, E_SYSVAR, E_USERVAR, E_COL, E_FUNC, E_NEG, E_NOT, E_BIN, E_IN, E_LIKE, E_ISNULL, E_BETWEEN, E_STAR,
} ek;

struct sql_expr {
    ek kind;
    qval lit;
    const char *name;   /* var, column, function (lower case for functions), operator */
    char scope;         /* sysvar scope */
    bool neg;           /* NOT IN / NOT LIKE / IS NOT NULL / NOT BETWEEN */
    sql_expr **args;
    size_t nargs;
    bool count_star;
};

static sql_expr *node(sql_ctx *cx, ek kind)
{
    sql_expr *e = cdch_arena_alloc(cx->a, sizeof *e);
    e->kind = kind;
    return e;
}

static sql_expr *node2(sql_ctx *cx, ek kind, const char *op, sql_expr *l, sql_expr *r)
{
    if (++cx->nbinary > 2000) { /* operator chains are left-deep trees: bound the evaluator's recursion */
        sql_fail(cx, 1436, "HY000", "Thread stack overrun: more than 2000 operators in one expression");
        return NULL;
    }
    sql_expr *e = node(cx, kind);
    e->name = op;
    e->args = cdch_arena_alloc(cx->a, 2 * sizeof *e->args);
    e->args[0] = l;
    e->args[1] = r;
    e->nargs = 2;
    return e;
}

static sql_expr *parse_or(sql_lex *lx, sql_ctx *cx);

static sql_expr *syntax(sql_lex *lx, sql_ctx *cx)
{
    const sql_tok *t = lx_peek(lx, 0);
    if (t->kind == TK_END)
        sql_fail(cx, 1064, "42000", "You have an error in your SQL syntax: unexpected end of statement");
    else
        sql_fail(cx, 1064, "42000", "You have an error in your SQL syntax near '%.60s'", t->src);
    return NULL;
}

static const char *const k_noparen_funcs[] = {"current_user", "current_timestamp", "current_date", "current_time",
                                              "localtime",    "localtimestamp",    "utc_timestamp", "utc_date",
                                              "utc_time"};

/* Append x to e's arguments (capacity *cap, doubled in the arena when full). */
static void push_arg(sql_ctx *cx, sql_expr *e, size_t *cap, sql_expr *x)
{
    if (e->nargs == *cap) {
        sql_expr **na = cdch_arena_alloc(cx->a, *cap * 2 * sizeof *na);
        memcpy(na, e->args, *cap * sizeof *na);
        e->args = na;
        *cap *= 2;
    }
    e->args[e->nargs++] = x;
}

static sql_expr *parse_primary(sql_lex *lx, sql_ctx *cx);

/* 12, 1.5e3, 0x1F: integers above INT64_MAX are unsigned */
static sql_expr *parse_number(sql_lex *lx, sql_ctx *cx, const sql_tok *t)
{
    lx->i++;
    sql_expr *e = node(cx, E_LIT);
    if (t->text[0] == '0' && (t->text[1] == 'x' || t->text[1] == 'X')) {
        e->lit = qv_int((int64_t)strtoull(t->text + 2, NULL, 16));
    } else if (strpbrk(t->text, ".eE")) {
        e->lit.k = QV_DBL;
        e->lit.d = strtod(t->text, NULL);
    } else {
        unsigned long long u = strtoull(t->text, NULL, 10);
        e->lit = qv_int((int64_t)u);
        e->lit.is_unsigned = u > (unsigned long long)INT64_MAX;
    }
    return e;
}

/* 'a' 'b' concatenates */
static sql_expr *parse_string(sql_lex *lx, sql_ctx *cx, const sql_tok *t)
{
    lx->i++;
    sql_expr *e = node(cx, E_LIT);
    e->lit = qv_str(t->text, t->len);
    while (lx_peek(lx, 0)->kind == TK_STRING) {
        const sql_tok *u = lx_peek(lx, 0);
        char *s = cdch_arena_alloc(cx->a, e->lit.n + u->len + 1);
        memcpy(s, e->lit.s, e->lit.n);
        memcpy(s + e->lit.n, u->text, u->len);
        e->lit = qv_str(s, e->lit.n + u->len);
        lx->i++;
    }
    return e;
}

/* ( expr ) or * */
static sql_expr *parse_paren(sql_lex *lx, sql_ctx *cx, const sql_tok *t)
{
    if (strcmp(t->text, "*") == 0) {
        lx->i++;
        return node(cx, E_STAR);
    }
    if (strcmp(t->text, "(") != 0)
        return syntax(lx, cx);
    lx->i++;
    if (lx_is_kw(lx, 0, "SELECT")) {
        sql_fail(cx, 1235, "42000", "This version of the fake primary doesn't yet support 'subqueries'");
        return NULL;
    }
    sql_expr *e = parse_or(lx, cx);
    if (!e)
        return NULL;
    if (!lx_op(lx, ")"))
        return syntax(lx, cx);
    return e;
}

/* CAST(x AS type) / CONVERT(x, type) / CONVERT(x USING cs): skip the target
 * type's words and parenthesised length, up to the closing ')'. */
static void skip_cast_target(sql_lex *lx)
{
    int depth = 0;
    while (!lx_at_end(lx)) {
        const sql_tok *u = lx_peek(lx, 0);
        if (u->kind == TK_OP && strcmp(u->text, "(") == 0) {
            depth++;
        } else if (u->kind == TK_OP && strcmp(u->text, ")") == 0) {
            if (depth == 0)
                break;
            depth--;
        }
        lx->i++;
    }
}

/* name( [DISTINCT] args ) -- the name is lower-cased */
static sql_expr *parse_call(sql_lex *lx, sql_ctx *cx, const sql_tok *t)
{
    lx->i += 2;
    sql_expr *e = node(cx, E_FUNC);
    char *fn = cdch_arena_strdup(cx->a, t->text);
    for (char *q = fn; *q; q++)
        *q = (char)tolower((unsigned char)*q);
    e->name = fn;
    size_t cap = 4;
    e->args = cdch_arena_alloc(cx->a, cap * sizeof *e->args);
    bool is_cast = strcmp(fn, "cast") == 0 || strcmp(fn, "convert") == 0;
    if (strcmp(fn, "count") == 0)
        lx_kw(lx, "DISTINCT");
    if (!lx_op(lx, ")")) {
        for (;;) {
            if (is_cast && e->nargs == 1 && (lx_kw(lx, "AS") || lx_kw(lx, "USING") || lx_op(lx, ","))) {
                skip_cast_target(lx);
                break;
            }
            sql_expr *arg = parse_or(lx, cx);
            if (!arg)
                return NULL;
            push_arg(cx, e, &cap, arg);
            if (!lx_op(lx, ","))
                break;
        }
        if (!lx_op(lx, ")"))
            return syntax(lx, cx);
    }
    if (strcmp(fn, "count") == 0)
        e->count_star = true;
    return e;
}

/* NULL, TRUE, FALSE, BINARY x and the words this parser refuses; NULL
 * with *done false when the word is none of these. */
static sql_expr *parse_keyword(sql_lex *lx, sql_ctx *cx, const sql_tok *t, bool *done)
{
    *done = true;
    if (strcasecmp(t->text, "NULL") == 0) {
        lx->i++;
        return node(cx, E_LIT);
    }
    if (strcasecmp(t->text, "TRUE") == 0 || strcasecmp(t->text, "FALSE") == 0) {
        lx->i++;
        sql_expr *e = node(cx, E_LIT);
        e->lit = qv_int(strcasecmp(t->text, "TRUE") == 0);
        return e;
    }
    if (strcasecmp(t->text, "BINARY") == 0 && lx_peek(lx, 1)->kind != TK_OP) {
        lx->i++;
        return parse_primary(lx, cx);
    }
    if (strcasecmp(t->text, "INTERVAL") == 0 || strcasecmp(t->text, "CASE") == 0 ||
        strcasecmp(t->text, "EXISTS") == 0) {
        sql_fail(cx, 1235, "42000", "This version of the fake primary doesn't yet support '%s'", t->text);
        return NULL;
    }
    *done = false;
    return NULL;
}

/* A word: keyword literal, function call, CURRENT_USER-like function
 * without parentheses, bare word as a string (SET x = ON), or a column
 * reference (a.b.c -> c; a.* -> *). */
static sql_expr *parse_word(sql_lex *lx, sql_ctx *cx, const sql_tok *t)
{
    sql_expr *e;
    if (t->kind == TK_IDENT) {
        bool done;
        e = parse_keyword(lx, cx, t, &done);
        if (done)
            return e;
    }
    const sql_tok *nx = lx_peek(lx, 1);
    if (t->kind == TK_IDENT && nx->kind == TK_OP && strcmp(nx->text, "(") == 0)
        return parse_call(lx, cx, t);
    if (t->kind == TK_IDENT) {
        for (size_t k = 0; k < sizeof k_noparen_funcs / sizeof k_noparen_funcs[0]; k++)
            if (strcasecmp(t->text, k_noparen_funcs[k]) == 0) {
                lx->i++;
                e = node(cx, E_FUNC);
                e->name = k_noparen_funcs[k];
                return e;
            }
        if (cx->ident_as_string) {
            lx->i++;
            e = node(cx, E_LIT);
            e->lit = qv_str(t->text, t->len);
            return e;
        }
    }
    lx->i++;
    const char *name = t->text;
    while (lx_peek(lx, 0)->kind == TK_OP && strcmp(lx_peek(lx, 0)->text, ".") == 0) {
        const sql_tok *u = lx_peek(lx, 1);
        if (u->kind == TK_IDENT || u->kind == TK_QIDENT) {
            name = u->text;
            lx->i += 2;
        } else if (u->kind == TK_OP && strcmp(u->text, "*") == 0) {
            lx->i += 2;
            return node(cx, E_STAR);
        } else {
            return syntax(lx, cx);
        }
    }
    e = node(cx, E_COL);
    e->name = name;
    return e;
}

static sql_expr *parse_primary(sql_lex *lx, sql_ctx *cx)
{
    const sql_tok *t = lx_peek(lx, 0);
    sql_expr *e;
    switch (t->kind) {
    case TK_NUMBER: return parse_number(lx, cx, t);
    case TK_STRING: return parse_string(lx, cx, t);
    case TK_SYSVAR:
        lx->i++;
        e = node(cx, E_SYSVAR);
        e->name = t->text;
        e->scope = t->scope;
        return e;
    case TK_USERVAR:
        if (!sql_uservar_name_ok(t->text))
            return sql_fail(cx, 3061, "42000", SQL_ER_ILLEGAL_USER_VAR, t->text), NULL;
        lx->i++;
        e = node(cx, E_USERVAR);
        e->name = t->text;
        return e;
    case TK_PARAM:
        lx->i++;
        return node(cx, E_LIT); /* placeholders describe as NULL */
    case TK_OP: return parse_paren(lx, cx, t);
    case TK_IDENT:
    case TK_QIDENT: return parse_word(lx, cx, t);
    default: return syntax(lx, cx);
    }
}

static sql_expr *parse_unary(sql_lex *lx, sql_ctx *cx)
{
    if (cx->depth > 200) {
        sql_fail(cx, 1436, "HY000", "Thread stack overrun: expression nested more than 200 levels deep");
        return NULL;
    }
    if (lx_op(lx, "-")) {
        cx->depth++;
        sql_expr *x = parse_unary(lx, cx);
        cx->depth--;
        if (!x)
            return NULL;
        if (x->kind == E_LIT && x->lit.k == QV_INT) {
            x->lit.i = (int64_t)(0 - (uint64_t)x->lit.i); /* integers wrap (INT64_MIN stays), as in eval_arith */
            x->lit.is_unsigned = false;                   /* -9223372036854775808 is BIGINT's minimum */
            return x;
        }
        sql_expr *e = node(cx, E_NEG);
        e->args = cdch_arena_alloc(cx->a, sizeof *e->args);
        e->args[0] = x;
        e->nargs = 1;
        return e;
    }
    if (lx_op(lx, "+") || lx_op(lx, "!") || lx_op(lx, "~")) {
        bool bang = lx->t[lx->i - 1].text[0] == '!';
        cx->depth++;
        sql_expr *x = parse_unary(lx, cx);
        cx->depth--;
        if (!x || !bang)
            return x;
        sql_expr *e = node(cx, E_NOT);
        e->args = cdch_arena_alloc(cx->a, sizeof *e->args);
        e->args[0] = x;
        e->nargs = 1;
        return e;
    }
    return parse_primary(lx, cx);
}

/* A binary operator of one precedence level: a token (an operator or,
 * with kw, a keyword) and the operator name the node gets. */
typedef struct bin_op {
    const char *tok;
    bool kw;
    const char *op;
} bin_op;

/* Left-associative chain of `next` operands joined by the operators in ops. */
static sql_expr *parse_chain(sql_lex *lx, sql_ctx *cx, sql_expr *(*next)(sql_lex *, sql_ctx *), const bin_op *ops,
                             size_t nops)
{
    sql_expr *l = next(lx, cx);
    while (l) {
        const char *op = NULL;
        for (size_t k = 0; k < nops && !op; k++)
            if (ops[k].kw ? lx_kw(lx, ops[k].tok) : lx_op(lx, ops[k].tok))
                op = ops[k].op;
        if (!op)
            break;
        sql_expr *r = next(lx, cx);
        if (!r)
            return NULL;
        l = node2(cx, E_BIN, op, l, r);
    }
    return l;
}

static sql_expr *parse_mul(sql_lex *lx, sql_ctx *cx)
{
    static const bin_op ops[] = {{"*", false, "*"}, {"/", false, "/"}, {"%", false, "%"}, {"MOD", true, "%"},
                                 {"DIV", true, "div"}};
    return parse_chain(lx, cx, parse_unary, ops, sizeof ops / sizeof ops[0]);
}

static sql_expr *parse_add(sql_lex *lx, sql_ctx *cx)
{
    static const bin_op ops[] = {{"+", false, "+"}, {"-", false, "-"}};
    return parse_chain(lx, cx, parse_mul, ops, sizeof ops / sizeof ops[0]);
}

/* A node of `kind` over args[0..n). */
static sql_expr *node_args(sql_ctx *cx, ek kind, bool neg, sql_expr *const *args, size_t n)
{
    sql_expr *e = node(cx, kind);
    e->neg = neg;
    e->args = cdch_arena_alloc(cx->a, n * sizeof *e->args);
    memcpy(e->args, args, n * sizeof *e->args);
    e->nargs = n;
    return e;
}

/* l IS [NOT] NULL | TRUE | FALSE (after IS) */
static sql_expr *parse_is(sql_lex *lx, sql_ctx *cx, sql_expr *l)
{
    bool neg = lx_kw(lx, "NOT");
    if (lx_kw(lx, "NULL"))
        return node_args(cx, E_ISNULL, neg, &l, 1);
    if (lx_kw(lx, "TRUE") || lx_kw(lx, "FALSE")) {
        bool want = strcasecmp(lx->t[lx->i - 1].text, "TRUE") == 0;
        sql_expr *lit = node(cx, E_LIT);
        lit->lit = qv_int(want != neg);
        return node2(cx, E_BIN, "is", l, lit);
    }
    return syntax(lx, cx);
}

/* l [NOT] IN (x, ...) (after IN) */
static sql_expr *parse_in(sql_lex *lx, sql_ctx *cx, sql_expr *l, bool neg)
{
    if (!lx_op(lx, "("))
        return syntax(lx, cx);
    if (lx_is_kw(lx, 0, "SELECT")) {
        sql_fail(cx, 1235, "42000", "This version of the fake primary doesn't yet support 'subqueries'");
        return NULL;
    }
    sql_expr *e = node(cx, E_IN);
    e->neg = neg;
    size_t cap = 8;
    e->args = cdch_arena_alloc(cx->a, cap * sizeof *e->args);
    e->args[e->nargs++] = l;
    for (;;) {
        sql_expr *x = parse_or(lx, cx);
        if (!x)
            return NULL;
        push_arg(cx, e, &cap, x);
        if (!lx_op(lx, ","))
            break;
    }
    if (!lx_op(lx, ")"))
        return syntax(lx, cx);
    return e;
}

/* l [NOT] BETWEEN lo AND hi (after BETWEEN) */
static sql_expr *parse_between(sql_lex *lx, sql_ctx *cx, sql_expr *l, bool neg)
{
    sql_expr *lo = parse_add(lx, cx);
    if (!lo || !lx_kw(lx, "AND"))
        return lo ? syntax(lx, cx) : NULL;
    sql_expr *hi = parse_add(lx, cx);
    if (!hi)
        return NULL;
    sql_expr *args[3] = {l, lo, hi};
    return node_args(cx, E_BETWEEN, neg, args, 3);
}

/* l [NOT] LIKE pattern [ESCAPE c] (after LIKE) */
static sql_expr *parse_like(sql_lex *lx, sql_ctx *cx, sql_expr *l, bool neg)
{
    sql_expr *r = parse_add(lx, cx);
    if (!r)
        return NULL;
    if (lx_kw(lx, "ESCAPE") && !parse_primary(lx, cx))
        return NULL;
    sql_expr *e = node2(cx, E_LIKE, "like", l, r);
    if (e)
        e->neg = neg;
    return e;
}

/* Comparisons, IS, [NOT] LIKE / IN / BETWEEN; each step returns the new
 * left operand, NULL on an error (which ends the chain). */
static sql_expr *parse_cmp(sql_lex *lx, sql_ctx *cx)
{
    sql_expr *l = parse_add(lx, cx);
    while (l) {
        static const char *const ops[] = {"<=>", "=", "<>", "!=", "<=", ">=", "<", ">"};
        const char *op = NULL;
        for (size_t k = 0; k < sizeof ops / sizeof ops[0] && !op; k++)
            if (lx_op(lx, ops[k]))
                op = ops[k];
        if (op) {
            sql_expr *r = parse_add(lx, cx);
            l = r ? node2(cx, E_BIN, op, l, r) : NULL;
            continue;
        }
        size_t save = lx->i;
        if (lx_kw(lx, "IS")) {
            l = parse_is(lx, cx, l);
            continue;
        }
        bool neg = lx_kw(lx, "NOT");
        if (lx_kw(lx, "LIKE")) {
            l = parse_like(lx, cx, l, neg);
        } else if (lx_kw(lx, "REGEXP") || lx_kw(lx, "RLIKE")) {
            sql_fail(cx, 1235, "42000", "This version of the fake primary doesn't yet support 'REGEXP'");
            l = NULL;
        } else if (lx_kw(lx, "IN")) {
            l = parse_in(lx, cx, l, neg);
        } else if (lx_kw(lx, "BETWEEN")) {
            l = parse_between(lx, cx, l, neg);
        } else {
            lx->i = save;
            break;
        }
    }
    return l;
}

static sql_expr *parse_not(sql_lex *lx, sql_ctx *cx)
{
    if (lx_kw(lx, "NOT")) {
        if (cx->depth > 200) {
            sql_fail(cx, 1436, "HY000", "Thread stack overrun: expression nested more than 200 levels deep");
            return NULL;
        }
        cx->depth++;
        sql_expr *x = parse_not(lx, cx);
        cx->depth--;
        if (!x)
            return NULL;
        sql_expr *e = node(cx, E_NOT);
        e->args = cdch_arena_alloc(cx->a, sizeof *e->args);
        e->args[0] = x;
        e->nargs = 1;
        return e;
    }
    return parse_cmp(lx, cx);
}

static sql_expr *parse_and(sql_lex *lx, sql_ctx *cx)
{
    sql_expr *l = parse_not(lx, cx);
    while (l && (lx_kw(lx, "AND") || lx_op(lx, "&&"))) {
        sql_expr *r = parse_not(lx, cx);
        if (!r)
            return NULL;
        l = node2(cx, E_BIN, "and", l, r);
    }
    return l;
}

static sql_expr *parse_or(sql_lex *lx, sql_ctx *cx)
{
    if (++cx->depth > 200) {
        sql_fail(cx, 1436, "HY000", "Thread stack overrun: expression nested more than 200 levels deep");
        return NULL;
    }
    sql_expr *l = parse_and(lx, cx);
    cx->depth--;
    while (l) {
        const char *op = NULL;
        if (lx_kw(lx, "OR") || lx_op(lx, "||"))
            op = "or";
        else if (lx_kw(lx, "XOR"))
            op = "xor";
        else
            break;
        sql_expr *r = parse_and(lx, cx);
        if (!r)
            return NULL;
        l = node2(cx, E_BIN, op, l, r);
    }
    return l;
}

sql_expr *sql_parse_expr(sql_lex *lx, sql_ctx *cx) { return parse_or(lx, cx); }

bool sql_expr_is_count(const sql_expr *e) { return e && e->kind == E_FUNC && e->count_star; }

const char *sql_expr_colname(const sql_expr *e) { return e && e->kind == E_COL ? e->name : NULL; }

bool sql_expr_int_literal(const sql_expr *e, int64_t *v)
{
    if (!e || e->kind != E_LIT || e->lit.k != QV_INT)
        return false;
    *v = e->lit.i;
    return true;
}

/* ---- evaluation -------------------------------------------------------------------- */

static void now_text(char *b, size_t cap, const char *fmt)
{
    time_t t = time(NULL);
    struct tm tm;
    gmtime_r(&t, &tm);
    strftime(b, cap, fmt, &tm);
}

static qval uuid_value(cdch_arena *a)
{
    uint8_t u[16];
    RAND_bytes(u, sizeof u);
    u[6] = (uint8_t)((u[6] & 0x0f) | 0x10); /* version 1, like MySQL's UUID() */
    u[8] = (uint8_t)((u[8] & 0x3f) | 0x80);
    char t[37];
    cdch_uuid_format(u, t);
    return qv_cstr(a, t);
}

/* ---- functions: one small evaluator a family, found by name in k_funcs ---- */

typedef int (*func_fn)(const sql_expr *e, sql_ctx *cx, qval *args, qval *out);

static int fn_now(const sql_expr *e, sql_ctx *cx, qval *args, qval *out)
{
    (void)e, (void)args;
    char b[64];
    now_text(b, sizeof b, "%Y-%m-%d %H:%M:%S");
    *out = qv_cstr(cx->a, b);
    return 0;
}

static int fn_curdate(const sql_expr *e, sql_ctx *cx, qval *args, qval *out)
{
    (void)e, (void)args;
    char b[64];
    now_text(b, sizeof b, "%Y-%m-%d");
    *out = qv_cstr(cx->a, b);
    return 0;
}

static int fn_curtime(const sql_expr *e, sql_ctx *cx, qval *args, qval *out)
{
    (void)e, (void)args;
    char b[64];
    now_text(b, sizeof b, "%H:%M:%S");
    *out = qv_cstr(cx->a, b);
    return 0;
}

static int fn_unix_timestamp(const sql_expr *e, sql_ctx *cx, qval *args, qval *out)
{
    (void)e, (void)cx, (void)args;
    *out = qv_int((int64_t)time(NULL));
    return 0;
}

/* CONNECTION_ID(), DATABASE(), USER(), CURRENT_USER, VERSION() */
static int fn_session(const sql_expr *e, sql_ctx *cx, qval *args, qval *out)
{
    (void)args;
    const char *f = e->name;
    srv_conn *c = cx->c;
    char b[256];
    if (!strcmp(f, "connection_id")) {
        *out = qv_int(c->id);
    } else if (!strcmp(f, "database") || !strcmp(f, "schema")) {
        *out = c->db[0] ? qv_cstr(cx->a, c->db) : (qval){0};
    } else if (!strcmp(f, "current_user")) {
        snprintf(b, sizeof b, "%s@%%", c->user);
        *out = qv_cstr(cx->a, b);
    } else if (!strcmp(f, "version")) {
        *out = qv_cstr(cx->a, c->srv->version);
    } else { /* user, session_user, system_user */
        snprintf(b, sizeof b, "%s@%s", c->user, c->peer);
        *out = qv_cstr(cx->a, b);
    }
    return 0;
}

static int fn_uuid(const sql_expr *e, sql_ctx *cx, qval *args, qval *out)
{
    (void)e, (void)args;
    *out = uuid_value(cx->a);
    return 0;
}

/* LAST_INSERT_ID(), ROW_COUNT(), FOUND_ROWS(), SLEEP(n): 0 */
static int fn_zero(const sql_expr *e, sql_ctx *cx, qval *args, qval *out)
{
    (void)e, (void)cx, (void)args;
    *out = qv_int(0);
    return 0;
}

static int fn_count(const sql_expr *e, sql_ctx *cx, qval *args, qval *out)
{
    (void)e, (void)args;
    *out = qv_int((int64_t)cx->count);
    return 0;
}

/* LOWER / LCASE / UPPER / UCASE */
static int fn_case(const sql_expr *e, sql_ctx *cx, qval *args, qval *out)
{
    if (args[0].k == QV_NULL) {
        *out = args[0];
        return 0;
    }
    size_t len;
    const char *s = qv_text(&args[0], cx->a, &len);
    char *o = cdch_arena_memdup(cx->a, s, len);
    bool up = e->name[0] == 'u';
    for (size_t i = 0; i < len; i++)
        o[i] = (char)(up ? toupper((unsigned char)o[i]) : tolower((unsigned char)o[i]));
    *out = qv_str(o, len);
    return 0;
}

/* CONCAT (NULL if any argument is) and CONCAT_WS (NULLs skipped) */
static int fn_concat(const sql_expr *e, sql_ctx *cx, qval *args, qval *out)
{
    size_t n = e->nargs, sl = 0, first = 0;
    const char *sep = NULL;
    *out = (qval){0};
    if (e->name[6] == '_') {
        if (n == 0 || args[0].k == QV_NULL)
            return 0;
        sep = qv_text(&args[0], cx->a, &sl);
        first = 1;
    }
    cdch_buf cb = CDCH_BUF_INIT;
    bool any = false;
    for (size_t i = first; i < n; i++) {
        if (args[i].k == QV_NULL) {
            if (!sep) {
                cdch_buf_free(&cb);
                return 0;
            }
            continue;
        }
        size_t len;
        const char *s = qv_text(&args[i], cx->a, &len);
        if (sep && any)
            cdch_put_bytes(&cb, sep, sl);
        cdch_put_bytes(&cb, s, len);
        any = true;
    }
    *out = qv_str(cdch_arena_memdup(cx->a, cb.data ? (const char *)cb.data : "", cb.len), cb.len);
    cdch_buf_free(&cb);
    return 0;
}

/* Seconds of a DATETIME text 'YYYY-MM-DD HH:MM:SS[.f]' (days from 0000-03-01, proleptic
 * Gregorian) or of a TIME text '[-]H..H:MM:SS[.f]' (no date part); false when it is neither. */
static bool temporal_seconds(const char *s, int64_t *secs)
{
    int y, mo, d, h, mi, se;
    char c;
    if (sscanf(s, "%d-%d-%d %d:%d:%d", &y, &mo, &d, &h, &mi, &se) == 6) {
        int64_t yy = y - (mo <= 2), m = (mo + 9) % 12; /* days since 0000-03-01 */
        int64_t days = 365 * yy + yy / 4 - yy / 100 + yy / 400 + (153 * m + 2) / 5 + d - 1;
        *secs = days * 86400 + h * 3600 + mi * 60 + se;
        return true;
    }
    bool neg = *s == '-';
    if (sscanf(s + neg, "%d:%d:%d%c", &h, &mi, &se, &c) >= 3) {
        *secs = (int64_t)h * 3600 + mi * 60 + se;
        if (neg)
            *secs = -*secs;
        return true;
    }
    return false;
}

/* TIMEDIFF(a, b): a - b as a TIME text, whole seconds (Flink CDC's time-zone check,
 * SELECT TIME_TO_SEC(TIMEDIFF(NOW(), UTC_TIMESTAMP()))); NULL for what is no temporal */
static int fn_timediff(const sql_expr *e, sql_ctx *cx, qval *args, qval *out)
{
    (void)e;
    int64_t a, b;
    if (args[0].k == QV_NULL || args[1].k == QV_NULL || !temporal_seconds(qv_text(&args[0], cx->a, NULL), &a) ||
        !temporal_seconds(qv_text(&args[1], cx->a, NULL), &b)) {
        *out = (qval){0};
        return 0;
    }
    int64_t d = a - b, m = d < 0 ? -d : d;
    char t[48];
    snprintf(t, sizeof t, "%s%02lld:%02lld:%02lld", d < 0 ? "-" : "", (long long)(m / 3600), (long long)(m / 60 % 60),
             (long long)(m % 60));
    *out = qv_cstr(cx->a, t);
    return 0;
}

/* TIME_TO_SEC(t): the TIME's seconds (a DATETIME's time of day), NULL for what is no temporal */
static int fn_time_to_sec(const sql_expr *e, sql_ctx *cx, qval *args, qval *out)
{
    (void)e;
    int64_t s;
    const char *t = args[0].k == QV_NULL ? NULL : qv_text(&args[0], cx->a, NULL);
    if (!t || !temporal_seconds(t, &s)) {
        *out = (qval){0};
        return 0;
    }
    if (strchr(t, ' ')) /* a DATETIME: its time of day */
        s = ((s % 86400) + 86400) % 86400;
    *out = qv_int(s);
    return 0;
}

/* IFNULL / COALESCE / NVL: the first argument that is not NULL */
static int fn_coalesce(const sql_expr *e, sql_ctx *cx, qval *args, qval *out)
{
    (void)cx;
    *out = (qval){0};
    for (size_t i = 0; i < e->nargs; i++)
        if (args[i].k != QV_NULL) {
            *out = args[i];
            break;
        }
    return 0;
}

static int fn_if(const sql_expr *e, sql_ctx *cx, qval *args, qval *out)
{
    (void)e, (void)cx;
    *out = qv_true(&args[0]) ? args[1] : args[2];
    return 0;
}

/* LENGTH / CHAR_LENGTH / OCTET_LENGTH: bytes */
static int fn_length(const sql_expr *e, sql_ctx *cx, qval *args, qval *out)
{
    (void)e;
    size_t len;
    if (!qv_text(&args[0], cx->a, &len))
        *out = (qval){0};
    else
        *out = qv_int((int64_t)len);
    return 0;
}

/* CAST / CONVERT / BINARY: the value as it is */
static int fn_cast(const sql_expr *e, sql_ctx *cx, qval *args, qval *out)
{
    (void)e, (void)cx;
    *out = args[0];
    return 0;
}

static int fn_charset(const sql_expr *e, sql_ctx *cx, qval *args, qval *out)
{
    (void)e, (void)args;
    *out = qv_cstr(cx->a, "utf8mb4");
    return 0;
}

static int fn_collation(const sql_expr *e, sql_ctx *cx, qval *args, qval *out)
{
    (void)e, (void)args;
    *out = qv_cstr(cx->a, "utf8mb4_0900_ai_ci");
    return 0;
}

/* GTID_SUBTRACT(a, b) / GTID_SUBSET(a, b) */
static int fn_gtid(const sql_expr *e, sql_ctx *cx, qval *args, qval *out)
{
    const char *f = e->name;
    if (args[0].k == QV_NULL || args[1].k == QV_NULL) {
        *out = (qval){0};
        return 0;
    }
    const char *x = qv_text(&args[0], cx->a, NULL), *y = qv_text(&args[1], cx->a, NULL);
    cdch_buf gb = CDCH_BUF_INIT;
    char err[256];
    if (sql_gtid_subtract(x, y, cx->a, &gb, err, sizeof err) != 0) {
        cdch_buf_free(&gb);
        return sql_fail(cx, 1772, "HY000", "Malformed GTID set specification: %s", err);
    }
    if (f[5] == 's' && f[6] == 'u' && f[7] == 'b' && f[8] == 't')
        *out = qv_str(cdch_arena_memdup(cx->a, gb.data ? (const char *)gb.data : "", gb.len), gb.len);
    else
        *out = qv_int(gb.len == 0);
    cdch_buf_free(&gb);
    return 0;
}

/* The functions the fake primary knows (add a line to teach it one):
 * names (space-separated), the argument counts it accepts (max -1: any),
 * the evaluator. A call with another count is an unknown function. */
static const struct func_def {
    const char *names;
    int min_args, max_args;
    func_fn fn;
} k_funcs[] = {
    {"now current_timestamp sysdate localtime localtimestamp utc_timestamp", 0, -1, fn_now},
    {"curdate current_date utc_date", 0, -1, fn_curdate},
    {"curtime current_time utc_time", 0, -1, fn_curtime},
    {"unix_timestamp", 0, 0, fn_unix_timestamp},
    {"timediff", 2, 2, fn_timediff},
    {"time_to_sec", 1, 1, fn_time_to_sec},
    {"connection_id database schema user session_user system_user current_user version", 0, -1, fn_session},
    {"uuid", 0, -1, fn_uuid},
    {"last_insert_id row_count found_rows sleep", 0, -1, fn_zero},
    {"count", 0, -1, fn_count},
    {"lower lcase upper ucase", 1, 1, fn_case},
    {"concat concat_ws", 0, -1, fn_concat},
    {"ifnull coalesce nvl", 1, -1, fn_coalesce},
    {"if", 3, 3, fn_if},
    {"length char_length octet_length", 1, 1, fn_length},
    {"cast convert binary", 1, -1, fn_cast},
    {"charset", 0, -1, fn_charset},
    {"collation", 0, -1, fn_collation},
    {"gtid_subtract gtid_subset", 2, 2, fn_gtid},
};

static bool name_in(const char *names, const char *f)
{
    size_t fl = strlen(f);
    for (const char *p = names; *p;) {
        size_t wl = strcspn(p, " ");
        if (wl == fl && strncmp(p, f, fl) == 0)
            return true;
        p += wl;
        p += *p == ' ';
    }
    return false;
}

/* A function call: the k_funcs entry that knows the name and the argument count. */
static int call_func(const sql_expr *e, sql_ctx *cx, qval *args, qval *out)
{
    int n = (int)e->nargs;
    for (size_t i = 0; i < sizeof k_funcs / sizeof k_funcs[0]; i++) {
        const struct func_def *d = &k_funcs[i];
        if (name_in(d->names, e->name) && n >= d->min_args && (d->max_args < 0 || n <= d->max_args))
            return d->fn(e, cx, args, out);
    }
    return sql_fail(cx, 1305, "42000", "FUNCTION %s does not exist (the fake primary knows a fixed set of "
                                       "functions: extend call_func in harness/server/sql.c)", e->name);
}

static int eval_col(const sql_expr *e, sql_ctx *cx, qval *out)
{
    if (!cx->rs)
        return sql_fail(cx, 1054, "42S22", "Unknown column '%s' in 'field list'", e->name);
    int col = srv_rs_find_col(cx->rs, e->name);
    if (col < 0)
        return sql_fail(cx, 1054, "42S22", "Unknown column '%s' in 'where clause'", e->name);
    size_t n;
    const char *s = srv_rs_get(cx->rs, cx->row, (size_t)col, &n);
    if (!s) {
        *out = (qval){0};
        return 0;
    }
    uint8_t t = cx->rs->cols[col].type;
    if ((t == CDCH_T_LONGLONG || t == CDCH_T_LONG || t == CDCH_T_TINY || t == CDCH_T_SHORT) && n > 0 && n < 24) {
        char tmp[32];
        memcpy(tmp, s, n);
        tmp[n] = 0;
        *out = qv_int(strtoll(tmp, NULL, 10));
        return 0;
    }
    *out = qv_str(s, n);
    return 0;
}

static int eval_sysvar(const sql_expr *e, sql_ctx *cx, qval *out)
{
    char buf[4096];
    uint8_t type;
    bool is_null = false;
    const char *v = srv_sysvar(cx->c, e->name, e->scope == 'g', false, buf, sizeof buf, &type, &is_null);
    if (!v && !is_null) {
        fprintf(stderr, "cdcharness serve: connection %u: unknown system variable @@%s (add it to "
                        "harness/server/vars.c if a consumer needs it)\n",
                cx->c->id, e->name);
        return sql_fail(cx, 1193, "HY000", "Unknown system variable '%s'", e->name);
    }
    if (is_null) {
        *out = (qval){0};
    } else if (type == CDCH_T_LONGLONG) {
        *out = qv_int((int64_t)strtoull(v, NULL, 10));
        out->is_unsigned = v[0] != '-';
    } else {
        *out = qv_cstr(cx->a, v);
    }
    return 0;
}

static int eval_func(const sql_expr *e, sql_ctx *cx, qval *out)
{
    qval *args = e->nargs ? cdch_arena_alloc(cx->a, e->nargs * sizeof *args) : NULL;
    if (!e->count_star)
        for (size_t i = 0; i < e->nargs; i++)
            if (sql_eval(e->args[i], cx, &args[i]) != 0)
                return -1;
    return call_func(e, cx, args, out);
}

static int eval_like(const sql_expr *e, sql_ctx *cx, qval *out)
{
    qval a, b;
    if (sql_eval(e->args[0], cx, &a) != 0 || sql_eval(e->args[1], cx, &b) != 0)
        return -1;
    if (a.k == QV_NULL || b.k == QV_NULL) {
        *out = (qval){0};
        return 0;
    }
    size_t an, bn;
    const char *as = qv_text(&a, cx->a, &an), *bs = qv_text(&b, cx->a, &bn);
    *out = qv_int(sql_like(as, an, bs, bn) != e->neg);
    return 0;
}

static int eval_in(const sql_expr *e, sql_ctx *cx, qval *out)
{
    qval a, b;
    if (sql_eval(e->args[0], cx, &a) != 0)
        return -1;
    if (a.k == QV_NULL) {
        *out = a;
        return 0;
    }
    bool found = false;
    for (size_t i = 1; i < e->nargs && !found; i++) {
        if (sql_eval(e->args[i], cx, &b) != 0)
            return -1;
        found = b.k != QV_NULL && qv_cmp(&a, &b) == 0;
    }
    *out = qv_int(found != e->neg);
    return 0;
}

static int eval_between(const sql_expr *e, sql_ctx *cx, qval *out)
{
    qval a, lo, hi;
    if (sql_eval(e->args[0], cx, &a) != 0 || sql_eval(e->args[1], cx, &lo) != 0 ||
        sql_eval(e->args[2], cx, &hi) != 0)
        return -1;
    if (a.k == QV_NULL || lo.k == QV_NULL || hi.k == QV_NULL) {
        *out = (qval){0};
        return 0;
    }
    *out = qv_int((qv_cmp(&a, &lo) >= 0 && qv_cmp(&a, &hi) <= 0) != e->neg);
    return 0;
}

/* AND / OR / XOR with SQL's NULL rules (both operands evaluated already). */
static void eval_logic(const char *op, const qval *a, const qval *b, qval *out)
{
    if (a->k == QV_NULL || b->k == QV_NULL) {
        bool other_decides = !strcmp(op, "and") ? (a->k != QV_NULL ? !qv_true(a) : b->k != QV_NULL && !qv_true(b))
                           : !strcmp(op, "or")  ? (a->k != QV_NULL ? qv_true(a) : b->k != QV_NULL && qv_true(b))
                                                : false;
        *out = other_decides ? qv_int(!strcmp(op, "or")) : (qval){0};
        return;
    }
    bool x = qv_true(a), y = qv_true(b);
    *out = qv_int(!strcmp(op, "and") ? x && y : !strcmp(op, "or") ? x || y : x != y);
}

/* + - * / DIV % over two non-NULL values: integers stay integers (wrapping),
 * except '/'; division by zero is NULL. */
static void eval_arith(const char *op, const qval *a, const qval *b, qval *out)
{
    if (a->k == QV_INT && b->k == QV_INT && strcmp(op, "/") != 0) {
        int64_t x = a->i, y = b->i;
        if ((!strcmp(op, "div") || !strcmp(op, "%")) && y == 0) {
            *out = (qval){0};
            return;
        }
        *out = qv_int(!strcmp(op, "+")   ? (int64_t)((uint64_t)x + (uint64_t)y)
                      : !strcmp(op, "-") ? (int64_t)((uint64_t)x - (uint64_t)y)
                      : !strcmp(op, "*") ? (int64_t)((uint64_t)x * (uint64_t)y)
                      : !strcmp(op, "%") ? (y == -1 ? 0 : x % y)                   /* INT64_MIN % -1 traps */
                      : y == -1          ? (int64_t)(0 - (uint64_t)x)              /* and INT64_MIN / -1 */
                                         : x / y);
        return;
    }
    double x = qv_num(a), y = qv_num(b);
    if ((!strcmp(op, "/") || !strcmp(op, "div") || !strcmp(op, "%")) && y == 0) {
        *out = (qval){0};
        return;
    }
    out->k = QV_DBL;
    out->d = !strcmp(op, "+") ? x + y : !strcmp(op, "-") ? x - y : !strcmp(op, "*") ? x * y : x / y;
    if (!strcmp(op, "div")) /* a quotient beyond BIGINT (MySQL's 1690) is NULL here, never an undefined cast */
        *out = x / y >= -9223372036854775808.0 && x / y < 9223372036854775808.0 ? qv_int((int64_t)(x / y)) : (qval){0};
}

/* Binary operators: AND/OR short-circuit on the left operand, then
 * logic, <=>, IS, comparisons (NULL if either side is) and arithmetic. */
static int eval_bin(const sql_expr *e, sql_ctx *cx, qval *out)
{
    const char *op = e->name;
    qval a, b;
    if (sql_eval(e->args[0], cx, &a) != 0)
        return -1;
    if (!strcmp(op, "and") && a.k != QV_NULL && !qv_true(&a)) {
        *out = qv_int(0);
        return 0;
    }
    if (!strcmp(op, "or") && a.k != QV_NULL && qv_true(&a)) {
        *out = qv_int(1);
        return 0;
    }
    if (sql_eval(e->args[1], cx, &b) != 0)
        return -1;
    if (!strcmp(op, "and") || !strcmp(op, "or") || !strcmp(op, "xor")) {
        eval_logic(op, &a, &b, out);
        return 0;
    }
    if (!strcmp(op, "<=>")) {
        *out = qv_int((a.k == QV_NULL && b.k == QV_NULL) || (a.k != QV_NULL && b.k != QV_NULL && qv_cmp(&a, &b) == 0));
        return 0;
    }
    if (!strcmp(op, "is")) {
        *out = qv_int(a.k != QV_NULL && qv_true(&a) == qv_true(&b));
        return 0;
    }
    if (a.k == QV_NULL || b.k == QV_NULL) {
        *out = (qval){0};
        return 0;
    }
    if (op[0] == '=' || op[0] == '<' || op[0] == '>' || op[0] == '!') {
        int r = qv_cmp(&a, &b);
        bool v = !strcmp(op, "=")    ? r == 0
                 : !strcmp(op, "<>") ? r != 0
                 : !strcmp(op, "!=") ? r != 0
                 : !strcmp(op, "<")  ? r < 0
                 : !strcmp(op, ">")  ? r > 0
                 : !strcmp(op, "<=") ? r <= 0
                                     : r >= 0;
        *out = qv_int(v);
        return 0;
    }
    eval_arith(op, &a, &b, out);
    return 0;
}

int sql_eval(const sql_expr *e, sql_ctx *cx, qval *out)
{
    qval a;
    switch (e->kind) {
    case E_LIT: *out = e->lit; return 0;
    case E_STAR: return sql_fail(cx, 1064, "42000", "You have an error in your SQL syntax near '*'");
    case E_SYSVAR: return eval_sysvar(e, cx, out);
    case E_USERVAR: {
        const char *v = conn_uservar(cx->c, e->name);
        *out = v ? qv_cstr(cx->a, v) : (qval){0};
        return 0;
    }
    case E_COL: return eval_col(e, cx, out);
    case E_FUNC: return eval_func(e, cx, out);
    case E_NEG:
        if (sql_eval(e->args[0], cx, &a) != 0)
            return -1;
        if (a.k == QV_NULL)
            *out = a;
        else if (a.k == QV_INT)
            *out = qv_int((int64_t)(0 - (uint64_t)a.i)); /* no signed overflow on INT64_MIN */
        else {
            out->k = QV_DBL;
            out->d = -qv_num(&a);
        }
        return 0;
    case E_NOT:
        if (sql_eval(e->args[0], cx, &a) != 0)
            return -1;
        *out = a.k == QV_NULL ? a : qv_int(!qv_true(&a));
        return 0;
    case E_ISNULL:
        if (sql_eval(e->args[0], cx, &a) != 0)
            return -1;
        *out = qv_int((a.k == QV_NULL) != e->neg);
        return 0;
    case E_LIKE: return eval_like(e, cx, out);
    case E_IN: return eval_in(e, cx, out);
    case E_BETWEEN: return eval_between(e, cx, out);
    case E_BIN: return eval_bin(e, cx, out);
    }
    return sql_fail(cx, 1064, "42000", "cannot evaluate expression");
}

uint8_t sql_expr_type(const sql_expr *e, sql_ctx *cx, const srv_rs *src, int *src_col)
{
    if (src_col)
        *src_col = -1;
    switch (e->kind) {
    case E_LIT:
        return e->lit.k == QV_NULL ? CDCH_T_NULL
               : e->lit.k == QV_INT ? CDCH_T_LONGLONG
               : e->lit.k == QV_DBL ? CDCH_T_NEWDECIMAL
                                    : CDCH_T_VAR_STRING;
    case E_SYSVAR: {
        char buf[4096];
        uint8_t type = CDCH_T_VAR_STRING;
        bool is_null = false;
        if (!srv_sysvar(cx->c, e->name, e->scope == 'g', false, buf, sizeof buf, &type, &is_null) && !is_null)
            return CDCH_T_VAR_STRING;
        return type;
    }
    case E_USERVAR: return CDCH_T_LONG_BLOB;
    case E_COL:
        if (src) {
            int col = srv_rs_find_col(src, e->name);
            if (col >= 0) {
                if (src_col)
                    *src_col = col;
                return src->cols[col].type;
            }
        }
        return CDCH_T_VAR_STRING;
    case E_FUNC: {
        const char *f = e->name;
        if (!strcmp(f, "unix_timestamp") || !strcmp(f, "connection_id") || !strcmp(f, "count") ||
            !strcmp(f, "last_insert_id") || !strcmp(f, "row_count") || !strcmp(f, "found_rows") ||
            !strcmp(f, "length") || !strcmp(f, "char_length") || !strcmp(f, "octet_length") ||
            !strcmp(f, "gtid_subset") || !strcmp(f, "sleep"))
            return CDCH_T_LONGLONG;
        if (!strcmp(f, "now") || !strcmp(f, "current_timestamp") || !strcmp(f, "sysdate") ||
            !strcmp(f, "localtime") || !strcmp(f, "localtimestamp") || !strcmp(f, "utc_timestamp"))
            return CDCH_T_DATETIME;
        if ((!strcmp(f, "ifnull") || !strcmp(f, "coalesce") || !strcmp(f, "cast") || !strcmp(f, "convert")) &&
            e->nargs)
            return sql_expr_type(e->args[0], cx, src, src_col);
        return CDCH_T_VAR_STRING;
    }
    case E_BIN: {
        const char *op = e->name;
        if (!strcmp(op, "+") || !strcmp(op, "-") || !strcmp(op, "*") || !strcmp(op, "%")) {
            uint8_t x = sql_expr_type(e->args[0], cx, src, NULL), y = sql_expr_type(e->args[1], cx, src, NULL);
            return x == CDCH_T_LONGLONG && y == CDCH_T_LONGLONG ? CDCH_T_LONGLONG : CDCH_T_NEWDECIMAL;
        }
        if (!strcmp(op, "/"))
            return CDCH_T_NEWDECIMAL;
        return CDCH_T_LONGLONG;
    }
    case E_NEG: return sql_expr_type(e->args[0], cx, src, NULL);
    default: return CDCH_T_LONGLONG;
    }
}

/* ---- GTID set subtraction ------------------------------------------------------------ */

int sql_gtid_subtract(const char *a, const char *b, cdch_arena *ar, cdch_buf *out, char *err, size_t errcap)
{
    cdch_gtid_set x, y, r;
    cdch_err e;
    if (cdch_gtid_set_parse(a, ar, &x, &e) != 0 || cdch_gtid_set_parse(b, ar, &y, &e) != 0) {
        snprintf(err, errcap, "%s", e.msg);
        return -1;
    }
    srv_gtid_subtract(&x, &y, ar, &r);
    srv_gtid_text(&r, out);
    return 0;
}
