/* pair.h — which expected row each observed row stands for.
 *
 * Owns: the pairing of observed change events with expected ones, decided
 * from their alignment keys alone (key, identity, loose key: diff.h), the
 * expected rows' transactions and, for each observed row, the transaction its
 * own checkpoint names. It compares no values and records no findings: diff.c
 * judges each pair it decides (values, op/db/table, checkpoint), and finds
 * reorders between transactions from the pairs' order. A cdch_pair_index
 * owns its lookup tables (per expected row: a few words); the caller owns the
 * keys, the lists and the decision array.
 *
 * Rows are paired where they stand (issue 28):
 *  1. Anchors. The observed rows are walked in order against a cursor in
 *     the expected rows (the first one not paired yet). A row whose key (op,
 *     db, table and every exactly-compared value) equals an unpaired
 *     expected row's is that row: at or after the cursor the cursor moves
 *     past it (rows jumped over are pending: missing unless something
 *     stands for them), before it the row came late (a reorder, if a later
 *     transaction's row came first). A row whose key was expected but every
 *     such row is paired is a duplicate. Either is overruled when the row's
 *     own checkpoint names a transaction other than the candidate's, not
 *     behind the cursor: equal content elsewhere is then a coincidence (an
 *     ENUM label one too far makes an UPDATE equal to the next one), and the
 *     row waits with the others (2.).
 *  2. Rows where they stand. The rows with no anchor between two anchors
 *     are paired with the unpaired expected rows between the two anchors'
 *     rows, in order: as many pairs as both sides allow, chosen to be most
 *     alike (equal key, then identity, then first column, op, db, table, and
 *     the transaction the checkpoint names), ties to the earliest rows. With
 *     as many rows on both sides that is the row's ordinal among them: a
 *     wrong table, db, op, key or value is a mismatch of that row and
 *     nothing else, and a row is missing only when nothing arrived in its
 *     place.
 *  3. What is left. An observed row that stands where nothing was expected
 *     is the unpaired expected row of its key (it came late or early), else
 *     the unpaired row of its identity (op, db, table and first column: a
 *     displaced row with other values) when its checkpoint does not name
 *     another transaction, else a duplicate (its key was expected and is
 *     paired), else an event nobody expected.
 *
 * Linear in the number of rows, but for step 2 between anchors that are far
 * apart with unequal numbers of rows: min(k, m) * (|k - m| + 1) steps for k
 * observed and m expected rows there (beyond CDCH_PAIR_DP_MAX steps: in
 * order, each row with the next one of its first column it may take, else
 * with the next one).
 */
#ifndef CDCH_PAIR_H
#define CDCH_PAIR_H

#include <stddef.h>
#include <stdint.h>

#include "events.h"

#define CDCH_PAIR_NONE ((size_t)-1)
#define CDCH_PAIR_DP_MAX ((size_t)4 << 20)

/* A row's alignment keys (diff.c computes them). */
typedef struct cdch_pair_keys {
    uint64_t key;   /* op, db, table, every exactly-compared value */
    uint64_t ident; /* op, db, table, first column of each image */
    uint64_t loose; /* first column of the image naming the row */
} cdch_pair_keys;

typedef enum cdch_pair_kind {
    CDCH_PAIR_ROW = 1, /* stands for expected row erow */
    CDCH_PAIR_DUP,     /* repeats expected row erow, already paired */
    CDCH_PAIR_EXTRA,   /* nothing like it was expected (erow NONE) */
} cdch_pair_kind;

typedef struct cdch_pair {
    cdch_pair_kind kind;
    size_t erow;
} cdch_pair;

typedef struct cdch_pair_in {
    const cdch_change_list *E, *O;
    const cdch_pair_keys *ek; /* per expected row */
    const cdch_pair_keys *ok; /* per observed row */
    const size_t *txn_of;     /* expected row -> its transaction (index, in stream order) */
    const size_t *place;      /* observed row -> the transaction its own checkpoint names (a single GTID
                               * equal to that transaction's), CDCH_PAIR_NONE; NULL: none known */
} cdch_pair_in;

/* The expected rows by key and by identity. Pairing advances its lookups:
 * one index serves one cdch_pair_rows. */
typedef struct cdch_pair_index cdch_pair_index;

cdch_pair_index *cdch_pair_index_new(const cdch_pair_keys *ek, size_t n);
void cdch_pair_index_free(cdch_pair_index *x); /* accepts NULL */

/* The first expected row with this key (CDCH_PAIR_NONE: none). */
size_t cdch_pair_index_first(const cdch_pair_index *x, uint64_t key);

/* Decide every observed row: out[o] for o < in->O->n. */
void cdch_pair_rows(cdch_pair_index *x, const cdch_pair_in *in, cdch_pair *out);

#endif
