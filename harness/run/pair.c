/* pair.c — pair observed rows with the expected rows they stand for (see pair.h). */
#include "pair.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "xalloc.h"

#define xcalloc cdch_xcalloc
#define xrealloc cdch_xrealloc

#define NONE CDCH_PAIR_NONE

/* ---- key maps: hash -> chain of expected rows in order ---------------------------------- */

typedef struct kslot {
    uint64_t h;
    size_t first, head; /* chain; head = first unpaired candidate (lazily advanced) */
} kslot;

typedef struct kmap {
    kslot *s;
    size_t n;
    size_t *next; /* per expected row */
} kmap;

static void kmap_init(kmap *m, size_t nrows)
{
    m->n = 16;
    while (m->n < nrows + nrows / 2) /* at most 2/3 full */
        m->n *= 2;
    m->s = xcalloc(m->n, sizeof *m->s);
    for (size_t i = 0; i < m->n; i++)
        m->s[i].first = NONE;
    m->next = xcalloc(nrows ? nrows : 1, sizeof *m->next);
}

static void kmap_free(kmap *m)
{
    free(m->s);
    free(m->next);
}

static kslot *kmap_slot(const kmap *m, uint64_t h, bool create)
{
    size_t i = (size_t)h & (m->n - 1);
    while (m->s[i].first != NONE) {
        if (m->s[i].h == h)
            return &m->s[i];
        i = (i + 1) & (m->n - 1);
    }
    if (!create)
        return NULL;
    m->s[i].h = h;
    return &m->s[i];
}

/* Rows are added last to first: each goes to the front of its chain. */
static void kmap_add(kmap *m, uint64_t h, size_t row)
{
    kslot *s = kmap_slot(m, h, true);
    m->next[row] = s->first; /* NONE for a new slot */
    s->first = s->head = row;
}

#define SCAN_MAX 4096

/* First unpaired candidate at or after `from`, else the first unpaired
 * one; NONE when every candidate is paired (*slot_out set when the key exists). */
static size_t kmap_find(const kmap *m, uint64_t h, const unsigned char *paired, size_t from, kslot **slot_out)
{
    kslot *s = kmap_slot(m, h, false);
    *slot_out = s;
    if (!s)
        return NONE;
    while (s->head != NONE && paired[s->head])
        s->head = m->next[s->head];
    if (s->head == NONE || s->head >= from)
        return s->head;
    size_t steps = 0;
    for (size_t r = s->head; r != NONE && steps < SCAN_MAX; r = m->next[r], steps++)
        if (r >= from && !paired[r])
            return r;
    return s->head;
}

/* The paired candidate nearest before `before` (for naming a duplicate). */
static size_t dup_candidate(const kmap *m, const kslot *s, size_t before)
{
    size_t best = s->first, steps = 0;
    for (size_t r = s->first; r != NONE && steps < SCAN_MAX; r = m->next[r], steps++)
        if (r < before)
            best = r;
    return best;
}

struct cdch_pair_index {
    kmap keys, idents;
};

cdch_pair_index *cdch_pair_index_new(const cdch_pair_keys *ek, size_t n)
{
    cdch_pair_index *x = xcalloc(1, sizeof *x);
    kmap_init(&x->keys, n);
    kmap_init(&x->idents, n);
    for (size_t i = n; i-- > 0;) { /* each chain in row order */
        kmap_add(&x->keys, ek[i].key, i);
        kmap_add(&x->idents, ek[i].ident, i);
    }
    return x;
}

void cdch_pair_index_free(cdch_pair_index *x)
{
    if (!x)
        return;
    kmap_free(&x->keys);
    kmap_free(&x->idents);
    free(x);
}

size_t cdch_pair_index_first(const cdch_pair_index *x, uint64_t key)
{
    const kslot *s = kmap_slot(&x->keys, key, false);
    return s ? s->first : NONE;
}

/* ---- the walk ------------------------------------------------------------------------------ */

typedef struct walk {
    cdch_pair_index *x;
    const cdch_pair_in *in;
    cdch_pair *out;
    unsigned char *paired; /* per expected row */
    size_t cur;            /* first expected row not paired, of those not jumped over */
    size_t *run;           /* observed rows waiting to be paired where they stand */
    size_t nrun, caprun;
    size_t *reg;           /* scratch: the unpaired expected rows between two anchors */
    size_t capreg;
    unsigned char *choice; /* scratch: the alignment's decisions */
    size_t capchoice;
    int64_t *f;            /* scratch: two rows of scores */
    size_t capf;
} walk;

static size_t place_of(const walk *w, size_t o)
{
    return w->in->place ? w->in->place[o] : NONE;
}

static void pair_row(walk *w, size_t o, size_t e)
{
    w->out[o].kind = CDCH_PAIR_ROW;
    w->out[o].erow = e;
    w->paired[e] = 1;
}

/* Candidate j is not the row at the cursor, and the row's own checkpoint names a transaction not
 * behind the cursor and not j's: the row stands where it arrived, whatever its content matches
 * elsewhere. */
static bool stands_here(const walk *w, size_t o, size_t j)
{
    size_t p = place_of(w, o);
    if (p == NONE || w->cur >= w->in->E->n || j == w->cur)
        return false;
    return p >= w->in->txn_of[w->cur] && w->in->txn_of[j] != p;
}

/* How alike observed row o and expected row e are (0: nothing in common). */
static int64_t alike(const walk *w, size_t o, size_t e)
{
    const cdch_pair_keys *ok = &w->in->ok[o], *ek = &w->in->ek[e];
    const cdch_change *oc = &w->in->O->items[o], *ec = &w->in->E->items[e];
    int64_t s = 0;
    if (ok->key == ek->key)
        s += 64;
    if (ok->ident == ek->ident)
        s += 16;
    if (ok->loose == ek->loose)
        s += 8;
    if (place_of(w, o) != NONE && place_of(w, o) == w->in->txn_of[e])
        s += 4;
    if (oc->op == ec->op)
        s += 2;
    if (strcmp(oc->table, ec->table) == 0)
        s += 2;
    if (strcmp(oc->db, ec->db) == 0)
        s += 1;
    return s;
}

static uint64_t loose_of(const walk *w, size_t row, bool obs)
{
    return obs ? w->in->ok[row].loose : w->in->ek[row].loose;
}

/* align() for sides too far apart for the exact alignment, in order: each item of A with the first
 * item of B it may still take that has its first column (loose key), else with the next one. */
static void align_far(walk *w, const size_t *A, size_t na, const size_t *B, size_t nb, bool a_obs, size_t *bsel)
{
    size_t nslot = 16;
    while (nslot < 2 * nb)
        nslot *= 2;
    size_t *head = xcalloc(nslot, sizeof *head), *next = xcalloc(nb, sizeof *next);
    uint64_t *hk = xcalloc(nslot, sizeof *hk);
    unsigned char *used = xcalloc(nslot, 1);
    for (size_t q = nb; q-- > 0;) { /* each chain in order */
        uint64_t k = loose_of(w, B[q], !a_obs);
        size_t h = (size_t)k & (nslot - 1);
        while (used[h] && hk[h] != k)
            h = (h + 1) & (nslot - 1);
        next[q] = used[h] ? head[h] : NONE;
        used[h] = 1;
        hk[h] = k;
        head[h] = q;
    }
    size_t b = 0;
    for (size_t i = 0; i < na; i++) {
        size_t last = nb - (na - i); /* the latest B item A[i] may take */
        uint64_t k = loose_of(w, A[i], a_obs);
        size_t h = (size_t)k & (nslot - 1), q = NONE;
        while (used[h] && hk[h] != k)
            h = (h + 1) & (nslot - 1);
        if (used[h]) {
            while (head[h] != NONE && head[h] < b) /* chains are consumed in order */
                head[h] = next[head[h]];
            if (head[h] != NONE && head[h] <= last)
                q = head[h];
        }
        bsel[i] = q != NONE ? q : b;
        b = bsel[i] + 1;
    }
    free(head);
    free(next);
    free(hk);
    free(used);
}

/* Pair the na items of A with na of the nb >= na items of B, in order, most alike in total; ties to
 * the earliest items of B. a_obs: A holds observed rows (else expected ones). Sets bsel[i] = the B
 * index paired with A item i. */
static void align(walk *w, const size_t *A, size_t na, const size_t *B, size_t nb, bool a_obs, size_t *bsel)
{
    size_t wd = nb - na; /* items of B left out */
    if (na * (wd + 1) > CDCH_PAIR_DP_MAX) {
        align_far(w, A, na, B, nb, a_obs, bsel);
        return;
    }
    if (w->capchoice < na * (wd + 1)) {
        w->capchoice = na * (wd + 1);
        w->choice = xrealloc(w->choice, w->capchoice);
    }
    if (w->capf < 2 * (wd + 1)) {
        w->capf = 2 * (wd + 1);
        w->f = xrealloc(w->f, w->capf * sizeof *w->f);
    }
    /* f[i][s]: best total pairing the first i items of A among the first i + s items of B */
    int64_t *prev = w->f, *row = w->f + wd + 1;
    for (size_t s = 0; s <= wd; s++)
        prev[s] = 0;
    for (size_t i = 1; i <= na; i++) {
        unsigned char *ch = w->choice + (i - 1) * (wd + 1);
        for (size_t s = 0; s <= wd; s++) {
            size_t b = i - 1 + s;
            int64_t sc = a_obs ? alike(w, A[i - 1], B[b]) : alike(w, B[b], A[i - 1]);
            int64_t with = prev[s] + sc;
            if (s > 0 && row[s - 1] >= with) {
                row[s] = row[s - 1]; /* B[b] left out: A[i-1] pairs earlier */
                ch[s] = 0;
            } else {
                row[s] = with;
                ch[s] = 1;
            }
        }
        int64_t *t = prev;
        prev = row;
        row = t;
    }
    size_t i = na, s = wd;
    while (i > 0) {
        if (w->choice[(i - 1) * (wd + 1) + s]) {
            bsel[i - 1] = i - 1 + s;
            i--;
        } else {
            s--;
        }
    }
}

/* Pair the waiting rows with the unpaired expected rows in [lo, hi). */
static void resolve(walk *w, size_t lo, size_t hi)
{
    if (!w->nrun)
        return;
    size_t m = 0;
    for (size_t e = lo; e < hi; e++) {
        if (w->paired[e])
            continue;
        if (m == w->capreg) {
            w->capreg = w->capreg ? 2 * w->capreg : 64;
            w->reg = xrealloc(w->reg, w->capreg * sizeof *w->reg);
        }
        w->reg[m++] = e;
    }
    size_t k = w->nrun;
    if (m) {
        size_t n = k < m ? k : m;
        size_t *sel = xcalloc(n, sizeof *sel);
        if (k <= m) {
            align(w, w->run, k, w->reg, m, true, sel);
            for (size_t i = 0; i < k; i++)
                pair_row(w, w->run[i], w->reg[sel[i]]);
        } else {
            align(w, w->reg, m, w->run, k, false, sel);
            for (size_t i = 0; i < m; i++)
                pair_row(w, w->run[sel[i]], w->reg[i]);
        }
        free(sel);
    }
    /* the rest stands where nothing was expected: decided at the end (step 3) */
    w->nrun = 0;
}

static void wait_here(walk *w, size_t o)
{
    if (w->nrun == w->caprun) {
        w->caprun = w->caprun ? 2 * w->caprun : 64;
        w->run = xrealloc(w->run, w->caprun * sizeof *w->run);
    }
    w->run[w->nrun++] = o;
}

static bool same_event(const cdch_change *a, const cdch_change *b)
{
    return a->op == b->op && strcmp(a->db, b->db) == 0 && strcmp(a->table, b->table) == 0;
}

void cdch_pair_rows(cdch_pair_index *x, const cdch_pair_in *in, cdch_pair *out)
{
    const cdch_change_list *E = in->E, *O = in->O;
    walk w;
    memset(&w, 0, sizeof w);
    w.x = x;
    w.in = in;
    w.out = out;
    w.paired = xcalloc(E->n ? E->n : 1, 1);
    for (size_t o = 0; o < O->n; o++) {
        out[o].kind = 0; /* undecided */
        out[o].erow = NONE;
    }
    /* 1. anchors, and the rows between them (2.) */
    for (size_t o = 0; o < O->n; o++) {
        while (w.cur < E->n && w.paired[w.cur])
            w.cur++;
        kslot *s;
        size_t j = kmap_find(&x->keys, in->ok[o].key, w.paired, w.cur, &s);
        if (j != NONE) {
            if (stands_here(&w, o, j)) {
                wait_here(&w, o);
            } else if (j >= w.cur) {
                resolve(&w, w.cur, j);
                pair_row(&w, o, j);
                w.cur = j + 1;
            } else {
                pair_row(&w, o, j); /* late */
            }
            continue;
        }
        if (s) {
            size_t cand = dup_candidate(&x->keys, s, w.cur);
            if (stands_here(&w, o, cand)) {
                wait_here(&w, o);
            } else {
                out[o].kind = CDCH_PAIR_DUP;
                out[o].erow = cand;
            }
            continue;
        }
        wait_here(&w, o);
    }
    while (w.cur < E->n && w.paired[w.cur])
        w.cur++;
    resolve(&w, w.cur, E->n);
    /* 3. what stands where nothing was expected */
    for (size_t o = 0; o < O->n; o++) {
        if (out[o].kind)
            continue;
        kslot *s;
        size_t j = kmap_find(&x->keys, in->ok[o].key, w.paired, 0, &s);
        if (j == NONE) {
            kslot *is;
            size_t i = kmap_find(&x->idents, in->ok[o].ident, w.paired, 0, &is);
            size_t p = place_of(&w, o);
            if (i != NONE && same_event(&E->items[i], &O->items[o]) && (p == NONE || p == in->txn_of[i]))
                j = i;
        }
        if (j != NONE) {
            pair_row(&w, o, j);
        } else if (s) {
            out[o].kind = CDCH_PAIR_DUP;
            out[o].erow = dup_candidate(&x->keys, s, E->n);
        } else {
            out[o].kind = CDCH_PAIR_EXTRA;
        }
    }
    free(w.paired);
    free(w.run);
    free(w.reg);
    free(w.choice);
    free(w.f);
}
