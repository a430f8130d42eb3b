/* diff.h — expected vs observed change events: alignment, value
 * comparison by column type, checkpoint checks.
 *
 * Owns: a cdch_diff_schema (column comparison kinds per table, built from a
 * scenario; the scenario is not kept), a cdch_diff (the findings, their
 * strings in its own arena) and a cdch_diff_expected (the expected rows'
 * alignment keys, per row). None keeps the change lists: findings copy
 * what they show.
 *
 * Memory: the lists hold no parsed images (events.h). The diff parses each
 * expected line once for its keys (below; or takes them from a
 * cdch_diff_expected made once for all the diffs against one list), each
 * observed line once for its keys, and the lines it compares again, into a
 * scratch arena reset for every observed row: besides the lists, it holds a
 * few words per row (keys, lookup tables, the pairing) and the rows being
 * compared. The expected list is only read, so one may be diffed by several
 * threads at once.
 *
 * Alignment: each row gets a key (op, db, table and the normalised values
 * of every exactly-compared column; FLOAT/DOUBLE/JSON/VECTOR only by
 * presence), an identity (op, db, table and the first column of each image,
 * usually the primary key) and a loose key (the first column of the image
 * naming the row). pair.h decides from them which expected row each
 * observed row stands for (rows are paired where they stand: within their
 * transaction, by ordinal, so a wrong op, db, table, key or value is a
 * mismatch of that row and nothing else), a duplicate, or an event nobody
 * expected; this file judges each pair in the order the rows arrived:
 * compared column by column (a wrong op/db/table is a mismatch naming the
 * field), its checkpoint checked, and a row paired with a transaction
 * before one an earlier row was paired with is a reorder (reorders are
 * between transactions, never inside one).
 * Results are lifted to transactions (expected.jsonl's "txn"): missing
 * transactions are holes (a later transaction arrived: the consumer went
 * on) or the tail (nothing after them arrived). A missing transaction
 * of a hole is `reported` when an error line was printed before the first
 * row that followed it; error lines are matched with missing transactions
 * in order, one each (a logger may overtake the rows it concerns, but one
 * start-up warning or connection error does not announce every later
 * loss). A hole left without one is `reported` by any error line printed
 * before the first row that followed it which names the hole's event
 * (announce.h: "type 40", TRANSACTION_PAYLOAD_EVENT, ...; "type 39",
 * PARTIAL_UPDATE_ROWS): a library that says once that it does not emit
 * compressed transactions has announced each of them. Reported holes are
 * `announced-skip`, the others `silent-skip` (verdict.h). The tail is
 * reported by any error line that announces no hole (a logger may report
 * the failure ahead of the rows emitted before it).
 *
 * Alignment does not group observed rows by GTID: a consumer whose GTIDs
 * are wrong would then be misaligned, and wrong GTIDs are exactly what the
 * checkpoint check must report. A row's own single GTID only keeps content
 * that equals another transaction's row from pulling it there (pair.h).
 * GTIDs and positions are checked per paired row.
 *
 * Value comparison by column type (section 4 of design.md):
 *   integer types, YEAR, BIT   exact, by decimal value (a JSON number or string
 *                              whose exact value is the integer: "1E+1", "10.0";
 *                              never through a double, never a fraction)
 *   DECIMAL(p,s)               exact after padding/trimming fraction zeros to s;
 *                              "1.25E+1" forms accepted
 *   FLOAT                      relative 1e-6 (float precision)
 *   DOUBLE                     relative 1e-15; a non-finite value (1e999,
 *                              "Infinity", "NaN") equals nothing, in columns and
 *                              inside JSON documents
 *   DATE/DATETIME/TIMESTAMP    strings, fraction trailing zeros ignored
 *   TIME                       same, and hour leading zeros ignored
 *   JSON                       structurally (object key order irrelevant)
 *   SET                        labels as a set
 *   GEOMETRY                   srid exact, wkb hex case-insensitive
 *   VECTOR                     element-wise at float precision
 *   BINARY(n)                  bytes exact, or right-padded with 0x00 to exactly n
 *                              bytes (the binlog strips the padding, MySQL and
 *                              several consumers restore it)
 *   everything else            exact (strings byte-exact, {"base64":...} exact)
 * Columns named "@1", "@2", ... are mapped to names by the schema.
 *
 * Checkpoints: a row's reported pos must name its transaction's file and
 * lie within [start of its transaction, end of its transaction] (start from
 * the stream index; without one, the end of the previous expected
 * transaction in that file, or 4); a reported GTID must be the
 * transaction's GTID, or a GTID set a restart can resume from without
 * replaying or skipping a transaction: exactly the set executed through the
 * transaction or through the one before it (the first file's PREVIOUS_GTIDS
 * and every GTID of the stream up to it, from the stream index; compared by
 * a hash per transaction, made once). Without the stream's GTIDs: the set
 * holds the transaction's server as one interval (no hole) ending at its GNO
 * or the one before.
 */
#ifndef CDCH_DIFF_H
#define CDCH_DIFF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "arena.h"
#include "events.h"
#include "scenario.h"
#include "streamidx.h"

/* ---- schema ------------------------------------------------------------------ */

typedef enum cdch_cmp_kind {
    CDCH_CMP_GENERIC = 0, /* unknown column: structural, numbers by value */
    CDCH_CMP_EXACT,       /* strings, binary, ENUM */
    CDCH_CMP_INT,
    CDCH_CMP_DECIMAL,
    CDCH_CMP_FLOAT,
    CDCH_CMP_DOUBLE,
    CDCH_CMP_TEMPORAL,
    CDCH_CMP_TIME,
    CDCH_CMP_JSON,
    CDCH_CMP_SET,
    CDCH_CMP_GEOMETRY,
    CDCH_CMP_VECTOR,
    CDCH_CMP_BINARY_FIXED, /* BINARY(n): scale = n */
} cdch_cmp_kind;

typedef struct cdch_diff_schema cdch_diff_schema;

cdch_diff_schema *cdch_diff_schema_new(void);
/* Add a table; columns in binlog order. */
void cdch_diff_schema_add_table(cdch_diff_schema *s, const char *db, const char *table, size_t ncols,
                                const char *const *names, const cdch_cmp_kind *kinds, const int *scales);
/* Every table of a scenario. */
cdch_diff_schema *cdch_diff_schema_from_scenario(const cdch_scenario *sc);
void cdch_diff_schema_free(cdch_diff_schema *s); /* accepts NULL */

/* Compare one value of a column of kind k (scale: DECIMAL's). True if
 * equal. Either may be NULL (absent). Exposed for tests. */
bool cdch_diff_value_equal(cdch_cmp_kind k, int scale, const cdch_jv *expected, const cdch_jv *observed);

/* ---- findings ------------------------------------------------------------------ */

typedef struct cdch_diff_txn {
    uint64_t txn;          /* expected.jsonl "txn" */
    const char *gtid;      /* NULL when none */
    const char *file;      /* its file */
    uint64_t start;        /* offset of its GTID event (0 when unknown) */
    uint64_t end;          /* end position (expected pos) */
    uint64_t body_pos;     /* first event after the GTID (0 when unknown) */
    uint8_t body_type;     /* its type (0 when unknown) */
    uint32_t partial_rows; /* PARTIAL_UPDATE_ROWS events in it (type 39) */
    bool compressed;
    size_t rows_total;
    size_t rows_missing;   /* for missing entries */
    uint64_t exp_line;     /* line of its first row in expected.jsonl */
    bool hole;             /* missing, and a later transaction arrived */
    const char *reported;  /* the consumer's error message around it (NULL: none) */
    size_t reported_ctl;   /* that line's index in the observed control lines (SIZE_MAX: none) */
} cdch_diff_txn;

typedef struct cdch_diff_mismatch {
    uint64_t txn;
    uint64_t exp_line, obs_line; /* 0 when there is no such line */
    const char *what;     /* "value differs", "column missing", "unexpected column", "image differs",
                           * "unexpected event" */
    const char *image;    /* "before" / "after" / NULL */
    const char *column;   /* NULL for whole-row findings */
    const char *expected; /* JSON text (NULL: absent) */
    const char *observed;
    bool compressed;
} cdch_diff_mismatch;

typedef struct cdch_diff_dup {
    uint64_t txn;
    uint64_t exp_line, obs_line, first_obs_line;
    bool compressed;
} cdch_diff_dup;

typedef struct cdch_diff_reorder {
    uint64_t txn;       /* the transaction that arrived late */
    uint64_t after_txn; /* the transaction it arrived after */
    uint64_t exp_line, obs_line;
    bool compressed;
} cdch_diff_reorder;

typedef struct cdch_diff_ckpt {
    uint64_t txn;
    uint64_t obs_line;
    bool compressed;
    const char *what;   /* e.g. "pos binlog.000001:0 is outside txn 5 (binlog.000001:1700..1926)" */
} cdch_diff_ckpt;

#define CDCH_DIFF_KEEP 1000 /* findings kept per kind (counts are exact) */

typedef struct cdch_diff {
    size_t expected_rows, observed_rows, matched_rows;
    size_t expected_txns, complete_txns;
    uint64_t last_txn_seen;          /* highest expected txn with a matched row (0: none) */
    size_t nmissing;                 /* transactions with missing rows (all kept) */
    cdch_diff_txn *missing;
    size_t holes, tail;              /* missing transactions that are holes / the tail */
    size_t missing_rows;
    size_t nmismatch, mismatch_total;
    cdch_diff_mismatch *mismatch;
    size_t ndup, dup_total;
    cdch_diff_dup *dup;
    size_t nreorder, reorder_total;
    cdch_diff_reorder *reorder;
    size_t nckpt, ckpt_total;
    cdch_diff_ckpt *ckpt;
    size_t ckpt_rows_checked;        /* rows that reported a pos or gtid */
    size_t merged_key_updates;       /* delete + insert pairs taken as one key-changing UPDATE */
    cdch_arena arena;
} cdch_diff;

/* Representations a consumer declares (manifest.h, CDCH_REPR_*): with
 * CDCH_REPR_KEY_UPDATE_AS_DELETE_INSERT an observed DELETE immediately
 * followed by an INSERT of the same table, in the same transaction as far as
 * the consumer reports one, no control line between them, whose images are
 * exactly the before and after images of an expected UPDATE that changes
 * the row's primary key, is taken as that UPDATE; nothing looser. */
#ifndef CDCH_REPR_KEY_UPDATE_AS_DELETE_INSERT
#define CDCH_REPR_KEY_UPDATE_AS_DELETE_INSERT 1u
#endif

/* Diff expected against observed. schema and idx may be NULL. Never fails
 * (returns a diff; allocation failure aborts). */
cdch_diff *cdch_diff_run(const cdch_change_list *expected, const cdch_change_list *observed,
                         const cdch_diff_schema *schema, const cdch_stream_index *idx, unsigned representations);

/* ---- the expected side, prepared once for many diffs -------------------------- */

/* The alignment keys of every expected row (key, identity and loose key: 24
 * bytes a row, no text, no parsed tree). They depend only on the expected
 * list and the schema, so the cells of one stream share them instead of each
 * parsing every expected line again. Owns its arrays, not the list or the
 * schema: both must outlive it unchanged (the runner frees it with its
 * stream's expected list). Read-only once made: diffs in several threads
 * may use one at once. */
typedef struct cdch_diff_expected cdch_diff_expected;

cdch_diff_expected *cdch_diff_expected_new(const cdch_change_list *expected, const cdch_diff_schema *schema);
void cdch_diff_expected_free(cdch_diff_expected *x); /* accepts NULL */

/* cdch_diff_run with the expected keys prepared (NULL: computed here, as
 * cdch_diff_run does). The same diff either way. prepared must have been made
 * from this expected list (unchanged since) and this schema: anything else is
 * a harness bug, and aborts with a message saying so. */
cdch_diff *cdch_diff_run_prepared(const cdch_change_list *expected, const cdch_diff_expected *prepared,
                                  const cdch_change_list *observed, const cdch_diff_schema *schema,
                                  const cdch_stream_index *idx, unsigned representations);
void cdch_diff_free(cdch_diff *d); /* accepts NULL */

/* Where a transaction is, into buf: "Transaction_payload at binlog.000001:1614,
 * txn 1535..1829" (its first event after the GTID, and the GTID..end span),
 * or "ending at binlog.000001:1829" without a stream index. */
void cdch_diff_txn_where(const cdch_diff_txn *t, char *buf, size_t bufsz);

#endif
