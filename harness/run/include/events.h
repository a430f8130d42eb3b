/* events.h — canonical change events (design.md section 4) as the harness
 * reads them: from expected.jsonl (written by the stream writer) and from an
 * adapter's stdout (observed), one JSON line at a time.
 *
 * Owns: a cdch_change_list owns a compact record per change event (scalars
 * only: op, db/table, gtid, position, txn, line number and where the line's
 * text is), its control lines and its arrays; free it with
 * cdch_changes_free. The line text is not held in memory when it is in a
 * file: a list loaded from expected.jsonl reads it back from that file (kept
 * open), a list that spools (cdch_changes_spool: an adapter's stdout, written
 * to the cell's observed.jsonl) from the file it writes; other lists keep the
 * text of their change lines in memory. The before/after images are parsed
 * on demand (cdch_change_images_get) into an arena the caller gives and resets,
 * so memory is proportional to the number of rows, not to their bytes.
 * Parsed values keep a pointer to their exact text in the line (`raw`), so
 * exact decimals and integers beyond 64 bits are compared as the consumer
 * printed them, never through a double.
 *
 * The JSON parser is strict RFC 8259 (UTF-8 checked, escapes decoded,
 * surrogate pairs joined, nesting limited to CDCH_JV_MAX_DEPTH), keeps
 * object members in the order written and numbers as text. A line is parsed
 * whole when it is added (so a line that is accepted parses again), and again
 * each time its images are asked for.
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

/* A change event: its scalars, and where its line's text is. 72 bytes
 * whatever the size of the line. */
typedef struct cdch_change {
    uint64_t line;         /* 1-based line number in its source */
    uint64_t txn;          /* expected.jsonl only: 1-based transaction number (0: none) */
    int64_t pos;           /* -1 when no position reported */
    const char *db, *table; /* interned in the list */
    const char *gtid;      /* NULL when absent, null or "" (shared by consecutive rows that report the same) */
    const char *pos_file;  /* NULL when no position reported; interned */
    union {
        uint64_t off;      /* offset of the line in the list's file */
        const char *mem;   /* CDCH_CHANGE_IN_MEMORY: the line (NUL-terminated) */
    } where;               /* read it with cdch_change_text */
    uint32_t text_len;     /* the line's length (no newline, no trailing '\r') */
    uint8_t op;            /* cdch_op */
    int8_t compressed;     /* expected.jsonl only: 1/0, -1 unknown */
    uint8_t flags;         /* CDCH_CHANGE_* */
} cdch_change;

#define CDCH_CHANGE_BEFORE 0x01u    /* "before" is an object (not null or absent) */
#define CDCH_CHANGE_AFTER 0x02u     /* "after" is an object */
#define CDCH_CHANGE_IN_MEMORY 0x04u /* the text is in memory (where.mem), not in the list's file */

static inline bool cdch_change_has_before(const cdch_change *c) { return (c->flags & CDCH_CHANGE_BEFORE) != 0; }
static inline bool cdch_change_has_after(const cdch_change *c) { return (c->flags & CDCH_CHANGE_AFTER) != 0; }

typedef enum cdch_ctl_kind {
    CDCH_CTL_READY = 1,
    CDCH_CTL_ERROR,
    CDCH_CTL_OTHER, /* a "kind" we do not know: kept, ignored */
    CDCH_CTL_CONFIG,       /* {"kind":"config","effective":{...},"kept":{...}}: the settings the library was given */
    CDCH_CTL_CONFIG_ERROR, /* {"kind":"config-error","message":...}: a setting the adapter cannot honour */
} cdch_ctl_kind;

typedef struct cdch_ctl {
    cdch_ctl_kind kind;
    const char *message; /* error message ("" when none given); for CONFIG the whole line */
    size_t at;           /* number of change events before this line */
    uint64_t line;
} cdch_ctl;

typedef struct cdch_change_src cdch_change_src; /* where the text is (events.c) */

typedef struct cdch_change_list {
    cdch_change *items;
    size_t n, cap;
    cdch_ctl *ctl;
    size_t nctl, ctlcap;
    uint64_t lines;        /* lines seen (blank lines included) */
    size_t invalid;        /* lines that were not a change event or control line */
    uint64_t first_invalid_line;
    char first_invalid[256]; /* "line N: why: <start of the line>" */
    cdch_change_src *src;  /* private */
} cdch_change_list;

cdch_change_list *cdch_changes_new(void);
void cdch_changes_free(cdch_change_list *l); /* accepts NULL */

/* Add one line (without its newline; a trailing '\r' is ignored; blank
 * lines are skipped). A line that is neither a change event nor a control
 * line: strict -> returns -1 with err "line N: ..."; not strict (adapter
 * output, where a logging library may write to stdout) -> counted in
 * `invalid` (the first one kept) and 0 is returned. A spooling list
 * (cdch_changes_spool) first appends the line as given, blank and invalid
 * ones too, and '\n' to its file. */
int cdch_changes_add_line(cdch_change_list *l, const char *line, size_t len, bool strict, cdch_err *err);

/* Load a whole JSONL file strictly (expected.jsonl). NULL with
 * "PATH: line N: ..." on error. The list keeps the file open and reads its
 * lines' text from it (it must not change while the list lives). */
cdch_change_list *cdch_changes_load(const char *path, cdch_err *err);

/* From now on append every line given to cdch_changes_add_line to fd (the
 * line as given, then '\n'; buffered), and read the text of the change lines
 * back from fd (opened for reading and writing, at its end; the list owns it
 * and closes it) instead of holding it in memory. When a write fails, that
 * line and every later one are kept in memory (the file ends before them).
 * path names fd in messages. */
void cdch_changes_spool(cdch_change_list *l, int fd, const char *path);

/* Write out what the spool buffers: fd then holds every line given. 0, or -1
 * when a write failed (the file is incomplete; the lines are not lost). A
 * list that does not spool: 0. */
int cdch_changes_flush(cdch_change_list *l);

/* The first error control line at or after change index `at` (NULL: none). */
const cdch_ctl *cdch_changes_error_after(const cdch_change_list *l, size_t at);

/* ---- a change's text and images, on demand ---------------------------------- */

/* A read-ahead window onto one list's file, for reading its lines in (mostly)
 * ascending order with few system calls. One per thread and list; a list
 * shared between threads (the expected events of a stream) is only read. */
typedef struct cdch_change_window {
    const cdch_change_src *src; /* the list it holds bytes of */
    char *buf;
    size_t cap, len;
    uint64_t off;               /* file offset of buf[0] */
} cdch_change_window;

#define CDCH_CHANGE_WINDOW_INIT {NULL, NULL, 0, 0, 0}
void cdch_change_window_free(cdch_change_window *w);

/* The text of c's line (NUL-terminated, *len bytes): in the list's memory,
 * or read from its file into a (through w when not NULL). c is an item of l,
 * or a copy of one. A line that cannot be read back (its file was truncated
 * or failed under the list) aborts with a message naming it: the list's files
 * are the harness's own. */
const char *cdch_change_text(const cdch_change_list *l, const cdch_change *c, cdch_change_window *w, cdch_arena *a,
                             size_t *len);

typedef struct cdch_change_images {
    const cdch_jv *before, *after; /* objects, or NULL where the image is null/absent */
    const char *text;              /* the line they point into */
    size_t text_len;
} cdch_change_images;

/* c's line parsed into a (the text too when it is read from a file): its
 * images, as cdch_jv_parse of the whole line gives them. Valid until a is
 * reset or freed. Aborts as cdch_change_text does, and when the line read
 * back no longer parses as it did when added. */
void cdch_change_images_get(const cdch_change_list *l, const cdch_change *c, cdch_change_window *w, cdch_arena *a,
                            cdch_change_images *out);

#endif
