/* events.h — canonical change events (design.md section 4) as the harness
 * reads them: from expected.jsonl (written by the stream writer) and from an
 * adapter's stdout (observed), one JSON line at a time.
 *
 * Owns: a cdch_change_list owns every line it was given (copied into its
 * arena), the parsed JSON trees, and its arrays; free it with
 * cdch_changes_free. Parsed values keep a pointer to their exact text in the
 * line (`raw`), so exact decimals and integers beyond 64 bits are compared
 * as the consumer printed them, never through a double.
 *
 * The JSON parser is strict RFC 8259 (UTF-8 checked, escapes decoded,
 * surrogate pairs joined, nesting limited to CDCH_JV_MAX_DEPTH), keeps
 * object members in the order written and numbers as text.
 */
#ifndef CDCH_EVENTS_H
#define CDCH_EVENTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "arena.h"
#include "err.h"

#define CDCH_JV_MAX_DEPTH 200

/* ---- JSON values ----------------------------------------------------------- */

typedef enum cdch_jv_type {
    CDCH_JV_NULL = 0,
    CDCH_JV_FALSE,
    CDCH_JV_TRUE,
    CDCH_JV_NUMBER, /* text in raw */
    CDCH_JV_STRING, /* decoded UTF-8 in u.str */
    CDCH_JV_ARRAY,
    CDCH_JV_OBJECT,
} cdch_jv_type;

typedef struct cdch_jv cdch_jv;

typedef struct cdch_jv_member {
    const char *key; /* decoded, NUL-terminated */
    size_t key_len;
    cdch_jv *value;
} cdch_jv_member;

struct cdch_jv {
    cdch_jv_type type;
    const char *raw; /* the value's JSON text (points into the owning line) */
    size_t raw_len;
    union {
        struct { const char *ptr; size_t len; } str; /* NUL-terminated */
        struct { size_t n; cdch_jv **items; } arr;
        struct { size_t n; cdch_jv_member *m; } obj; /* in written order */
    } u;
};

/* Parse exactly one JSON value (surrounding whitespace allowed) from
 * s[0..len). The tree lives in a and points into s (keep s alive). Errors:
 * "column N: expected ..." with err->offset = byte offset. */
int cdch_jv_parse(const char *s, size_t len, cdch_arena *a, cdch_jv **out, cdch_err *err);

/* Member `key` of an object (first match), NULL if absent or not an object. */
const cdch_jv *cdch_jv_get(const cdch_jv *obj, const char *key);

/* ---- change events and control lines ---------------------------------------- */

typedef enum cdch_op { CDCH_OP_INSERT = 1, CDCH_OP_UPDATE, CDCH_OP_DELETE } cdch_op;
const char *cdch_op_name(cdch_op op);

typedef struct cdch_change {
    cdch_op op;
    const char *db, *table;
    const cdch_jv *before, *after; /* objects, or NULL where the image is null/absent */
    const char *gtid;              /* NULL when absent, null or "" */
    const char *pos_file;          /* NULL when no position reported */
    int64_t pos;                   /* -1 when no position reported */
    uint64_t txn;                  /* expected.jsonl only: 1-based transaction number (0: none) */
    int compressed;                /* expected.jsonl only: 1/0, -1 unknown */
    uint64_t line;                 /* 1-based line number in its source */
    const char *text;              /* the whole line (NUL-terminated, no newline) */
    size_t text_len;
} cdch_change;

typedef enum cdch_ctl_kind {
    CDCH_CTL_READY = 1,
    CDCH_CTL_ERROR,
    CDCH_CTL_OTHER, /* a "kind" we do not know: kept, ignored */
} cdch_ctl_kind;

typedef struct cdch_ctl {
    cdch_ctl_kind kind;
    const char *message; /* error message ("" when none given) */
    size_t at;           /* number of change events before this line */
    uint64_t line;
} cdch_ctl;

typedef struct cdch_change_list {
    cdch_change *items;
    size_t n, cap;
    cdch_ctl *ctl;
    size_t nctl, ctlcap;
    uint64_t lines;        /* lines seen (blank lines included) */
    size_t invalid;        /* lines that were not a change event or control line */
    uint64_t first_invalid_line;
    char first_invalid[256]; /* "line N: why: <start of the line>" */
    cdch_arena arena;
} cdch_change_list;

cdch_change_list *cdch_changes_new(void);
void cdch_changes_free(cdch_change_list *l); /* accepts NULL */

/* Add one line (without its newline; a trailing '\r' is ignored; blank
 * lines are skipped). A line that is neither a change event nor a control
 * line: strict -> returns -1 with err "line N: ..."; not strict (adapter
 * output, where a logging library may write to stdout) -> counted in
 * `invalid` (the first one kept) and 0 is returned. */
int cdch_changes_add_line(cdch_change_list *l, const char *line, size_t len, bool strict, cdch_err *err);

/* Load a whole JSONL file strictly (expected.jsonl). NULL with
 * "PATH: line N: ..." on error. */
cdch_change_list *cdch_changes_load(const char *path, cdch_err *err);

/* The first error control line at or after change index `at` (NULL: none). */
const cdch_ctl *cdch_changes_error_after(const cdch_change_list *l, size_t at);

#endif
