/* query_internal.h — the fake primary's SQL responder, shared by its files
 * only (query.c, sql.c, vars.c, schema.c, stmt.c).
 *
 *   sql.c     lexer, comment stripping / statement splitting, expression
 *             parser and evaluator (literals, @@system and @user variables,
 *             the functions connectors call, comparisons, LIKE, IN, AND/OR,
 *             column references into a srv_rs row)
 *   vars.c    system variables (values derived from the scenario and the
 *             stream) and status variables
 *   schema.c  the scenario's catalogue as MySQL shows it: information_schema
 *             and performance_schema tables, SHOW COLUMNS / INDEX / CREATE
 *   query.c   the pattern table (regex -> handler) and the handlers
 */
#ifndef CDCH_QUERY_INTERNAL_H
#define CDCH_QUERY_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "arena.h"
#include "buf.h"
#include "scenario.h"
#include "server_internal.h"

/* ---- sql.c: text ------------------------------------------------------------------ */

/* Strip comments ("/ * ... * /", "-- ", "#"; the body of a version comment
 * "/ *!80000 ... * /" is kept) and split at ';' outside quotes. Each
 * statement is trimmed; empty ones are dropped. Strings are allocated in a.
 * A quote (', ", `) never closed: the text from it to the end is the last
 * statement's tail and *unclosed points at that quote in it (else NULL);
 * MySQL answers such a statement with a syntax error (sql_syntax_near). */
size_t sql_split(const char *sql, size_t len, cdch_arena *a, char ***out, const char **unclosed);
/* MySQL's ER_PARSE_ERROR text for an error at `near` inside `stmt`:
 * "You have an error in your SQL syntax; check the manual ... near '<at
 * most 80 bytes>' at line N" (N counted in stmt, 1-based). */
void sql_syntax_near(char *msg, size_t cap, const char *stmt, const char *near);

/* A user variable name MySQL accepts (at most SRV_NAME_CHARS characters);
 * others get ER_ILLEGAL_USER_VAR (3061, 42000) with this message. */
bool sql_uservar_name_ok(const char *name);
#define SQL_ER_ILLEGAL_USER_VAR "User variable name '%.100s' is illegal"

/* ---- sql.c: lexer ------------------------------------------------------------------- */
typedef enum sql_tk {
    TK_END = 0,
    TK_IDENT,   /* word (keywords too); text = as written */
    TK_QIDENT,  /* `quoted identifier`; text = unquoted */
    TK_STRING,  /* 'string' or "string"; text = unescaped */
    TK_NUMBER,  /* 12, 1.5, 1e3, 0x1F (text as written) */
    TK_SYSVAR,  /* @@[scope.]name; text = name, scope = 'g', 's' or 0 */
    TK_USERVAR, /* @name; text = name */
    TK_PARAM,   /* ? */
    TK_OP,      /* punctuation and operators; text = the operator */
} sql_tk;

typedef struct sql_tok {
    sql_tk kind;
    const char *src; /* where it starts in the statement */
    size_t srclen;
    char *text;
    size_t len;      /* length of text (strings may contain NUL) */
    char scope;
} sql_tok;

typedef struct sql_lex {
    sql_tok *t;
    size_t n, i;
    cdch_arena *a;
    const char *sql;
} sql_lex;

/* Tokenise sql (NUL-terminated). Returns 0, or -1 with a message in err. */
int sql_lex_init(sql_lex *lx, const char *sql, cdch_arena *a, char *err, size_t errcap);
const sql_tok *lx_peek(const sql_lex *lx, size_t ahead);
bool lx_at_end(const sql_lex *lx);
bool lx_is_kw(const sql_lex *lx, size_t ahead, const char *kw); /* IDENT equal to kw, case-insensitive */
bool lx_kw(sql_lex *lx, const char *kw);                        /* consume if lx_is_kw(0) */
bool lx_kws(sql_lex *lx, const char *kws);                      /* "WITH CONSISTENT SNAPSHOT": all or none */
bool lx_op(sql_lex *lx, const char *op);                        /* consume an operator */
/* An identifier or quoted identifier (or a string where MySQL allows one):
 * its text, consumed; NULL if the next token is not one. */
const char *lx_name(sql_lex *lx);
/* Source text from token i to token j (exclusive), trimmed. */
char *lx_source(const sql_lex *lx, size_t i, size_t j);

/* ---- sql.c: values and expressions ------------------------------------------------- */
typedef enum qv_kind { QV_NULL = 0, QV_INT, QV_DBL, QV_STR } qv_kind;
typedef struct qval {
    qv_kind k;
    int64_t i;
    bool is_unsigned;
    double d;
    const char *s; /* QV_STR (arena or static) */
    size_t n;
} qval;

typedef struct sql_expr sql_expr;

typedef struct sql_ctx {
    srv_conn *c;
    cdch_arena *a;
    const srv_rs *rs;      /* row context: column references resolve here */
    size_t row;
    uint64_t count;        /* COUNT(*) value when aggregating */
    bool ident_as_string;  /* SET x = ON: bare words are strings */
    int depth;             /* expression nesting (bounded: the parser recurses) */
    int nbinary;           /* binary operators parsed (bounded: the evaluator recurses) */
    uint16_t err_code;     /* set on error */
    char sqlstate[6];
    char err[400];
} sql_ctx;

/* Parse one expression at the lexer position (stops before a token that
 * cannot continue it). NULL with cx->err on a syntax error. */
sql_expr *sql_parse_expr(sql_lex *lx, sql_ctx *cx);
int sql_eval(const sql_expr *e, sql_ctx *cx, qval *out); /* 0, or -1 with cx->err */
/* Static result type (mysql_types.h code) of an expression over src (may be NULL). */
uint8_t sql_expr_type(const sql_expr *e, sql_ctx *cx, const srv_rs *src, int *src_col);
bool sql_expr_is_count(const sql_expr *e);    /* COUNT(...) at the top */
const char *sql_expr_colname(const sql_expr *e); /* column name if a plain column reference */
bool sql_expr_int_literal(const sql_expr *e, int64_t *v); /* an integer literal (ORDER BY 2) */
bool qv_true(const qval *v);
/* Text form (NULL for SQL NULL), allocated in a when needed. */
const char *qv_text(const qval *v, cdch_arena *a, size_t *n);
int qv_cmp(const qval *x, const qval *y); /* case-insensitive for strings; numbers numerically */
/* SQL LIKE, case-insensitive, escape character '\\'. */
bool sql_like(const char *s, size_t sn, const char *pat, size_t pn);
/* Case-insensitive substring test (strcasestr is a GNU extension). */
bool srv_ci_contains(const char *hay, const char *needle);
/* Error helper: fills cx and returns -1. */
int sql_fail(sql_ctx *cx, uint16_t code, const char *state, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 4, 5)))
#endif
    ;

/* GTID set text operations (GTID_SUBTRACT / GTID_SUBSET). */
int sql_gtid_subtract(const char *a, const char *b, cdch_arena *ar, cdch_buf *out, char *err, size_t errcap);

/* ---- vars.c ------------------------------------------------------------------------- */
/* Value of a system variable as SELECT @@name shows it (booleans 1/0) or,
 * with for_show, as SHOW VARIABLES does (ON/OFF). NULL if unknown
 * (*is_null distinguishes a known NULL value). type: CDCH_T_LONGLONG or
 * CDCH_T_VAR_STRING. global: ignore the session's own SETs. */
const char *srv_sysvar(srv_conn *c, const char *name, bool global, bool for_show, char *buf, size_t cap,
                       uint8_t *type, bool *is_null);
/* SET [GLOBAL|SESSION] name = value: session values are kept per
 * connection; global ones are accepted and ignored (the stream is fixed). */
int srv_sysvar_set(srv_conn *c, const char *name, const char *value, bool is_null, bool global, sql_ctx *cx);
void srv_sysvars_rs(srv_conn *c, bool global, srv_rs *rs); /* SHOW VARIABLES rows, sorted */
void srv_status_rs(srv_conn *c, bool global, srv_rs *rs);  /* SHOW STATUS rows, sorted */
const char *srv_binlog_compression_now(const struct cdch_server *srv); /* "ON"/"OFF" */

/* ---- schema.c ----------------------------------------------------------------------- */
/* Fill a virtual table db.name (information_schema.*, performance_schema.*,
 * a scenario table: no rows). *nvisible = columns SELECT * shows;
 * *upper = column references are labelled with the table's own (upper
 * case) names like information_schema in 8.0. Returns 0, or -1 with cx set
 * (1146 unknown table, 1049 unknown database). */
int srv_vtable(srv_conn *c, const char *db, const char *name, srv_rs *rs, size_t *nvisible, bool *upper,
               sql_ctx *cx);
size_t srv_schema_ndbs(const struct cdch_server *srv);            /* user databases + system schemas */
const char *srv_schema_db(const struct cdch_server *srv, size_t i); /* sorted by name */
bool srv_schema_is_system(const char *db);
const cdch_sc_database *srv_schema_sc_db(const struct cdch_server *srv, const char *db); /* NULL if not a scenario db */
const cdch_sc_table *srv_schema_table(const struct cdch_server *srv, const char *db, const char *name);
void srv_schema_columns_rs(const cdch_sc_table *t, bool full, srv_rs *rs);  /* SHOW [FULL] COLUMNS */
void srv_schema_index_rs(const cdch_sc_table *t, srv_rs *rs);              /* SHOW INDEX */
void srv_schema_table_status_rs(const struct cdch_server *srv, const char *db, srv_rs *rs); /* SHOW TABLE STATUS */
void srv_processlist_rs(struct cdch_server *srv, srv_rs *rs, bool upper); /* SHOW PROCESSLIST */
void srv_schema_coldef(const cdch_sc_table *t, const cdch_sc_column *col, srv_col *out); /* result metadata */

#endif
