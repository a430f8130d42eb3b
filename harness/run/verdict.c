/* verdict.c — diff + process outcome -> verdict, summary and details. */
#include "verdict.h"

#include "announce.h"

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

static const char *const k_names[CDCH_VERDICT_COUNT] = {
    "pass",      "hang",      "no-resume", "parse-failure", "bad-checkpoint",
    "reorder",   "duplicate", "mismatch",  "announced-skip", "silent-skip", "harness-error",
};

const char *cdch_verdict_name(cdch_verdict v)
{
    return (unsigned)v < CDCH_VERDICT_COUNT ? k_names[v] : "?";
}

int cdch_verdict_parse(const char *s, cdch_verdict *out)
{
    for (int i = 0; i < CDCH_VERDICT_COUNT; i++)
        if (strcmp(s, k_names[i]) == 0) {
            *out = (cdch_verdict)i;
            return 0;
        }
    return -1;
}

int cdch_verdict_parse_any(const char *s, cdch_verdict *first, cdch_verdict *other)
{
    const char *bar = strchr(s, '|');
    cdch_verdict a, b;
    if (!bar) {
        if (cdch_verdict_parse(s, &a) != 0)
            return -1;
        b = a;
    } else {
        char w[64];
        size_t n = (size_t)(bar - s);
        if (n >= sizeof w)
            return -1;
        memcpy(w, s, n);
        w[n] = '\0';
        if (cdch_verdict_parse(w, &a) != 0 || cdch_verdict_parse(bar + 1, &b) != 0 || a == b)
            return -1;
    }
    *first = a;
    if (other)
        *other = b;
    return 0;
}

const char *cdch_verdict_names(void)
{
    return "pass, hang, no-resume, parse-failure, bad-checkpoint, reorder, duplicate, mismatch, announced-skip, "
           "silent-skip, harness-error";
}

bool cdch_verdict_worse(cdch_verdict now, cdch_verdict base)
{
    if (now == CDCH_VERDICT_HARNESS_ERROR)
        return base != CDCH_VERDICT_HARNESS_ERROR;
    if (base == CDCH_VERDICT_HARNESS_ERROR)
        return false;
    return now > base;
}

bool cdch_verdict_regression(cdch_verdict comp, unsigned comp_classes, cdch_verdict unc, unsigned unc_classes)
{
    if (comp == CDCH_VERDICT_HARNESS_ERROR || unc == CDCH_VERDICT_HARNESS_ERROR || comp == CDCH_VERDICT_PASS)
        return false;
    if (comp != unc)
        return comp > unc;
    return (comp_classes & ~unc_classes) != 0; /* as bad, and failing in one more way */
}

void cdch_verdict_classes_str(unsigned classes, char *buf, size_t bufsz)
{
    size_t o = 0;
    if (bufsz)
        buf[0] = '\0';
    for (int v = CDCH_VERDICT_COUNT - 1; v > 0; v--)
        if ((classes & CDCH_CLASS(v)) && o < bufsz)
            o += (size_t)snprintf(buf + o, bufsz - o, "%s%s", o ? ", " : "", k_names[v]);
}

const char *cdch_stop_reason_name(cdch_stop_reason r)
{
    switch (r) {
    case CDCH_STOP_NONE: return "none";
    case CDCH_STOP_EXITED: return "exited";
    case CDCH_STOP_DONE: return "done";
    case CDCH_STOP_IDLE_AFTER_STREAM: return "idle-after-stream";
    case CDCH_STOP_STARTUP_TIMEOUT: return "startup-timeout";
    case CDCH_STOP_TIMEOUT: return "timeout";
    case CDCH_STOP_NOT_RESUMED: return "not-resumed";
    case CDCH_STOP_FLOOD: return "output-flood";
    }
    return "?";
}

void cdch_judgement_free(cdch_judgement *j)
{
    if (j) {
        cdch_buf_free(&j->detail);
        cdch_buf_free(&j->warnings);
    }
}

/* Last non-empty line of the stderr tail, into buf. */
static const char *last_line(const char *s, char *buf, size_t bufsz)
{
    buf[0] = '\0';
    if (!s)
        return buf;
    size_t n = strlen(s);
    while (n && (s[n - 1] == '\n' || s[n - 1] == '\r' || s[n - 1] == ' '))
        n--;
    size_t b = n;
    while (b && s[b - 1] != '\n')
        b--;
    size_t len = n - b;
    if (len >= bufsz)
        len = bufsz - 1;
    memcpy(buf, s + b, len);
    buf[len] = '\0';
    return buf;
}

static void txn_line(const cdch_diff_txn *t, char *buf, size_t bufsz)
{
    char where[300];
    cdch_diff_txn_where(t, where, sizeof where);
    char rows[64] = "";
    if (t->rows_missing != t->rows_total)
        snprintf(rows, sizeof rows, ", %zu of %zu rows missing", t->rows_missing, t->rows_total);
    else
        snprintf(rows, sizeof rows, ", %zu row%s", t->rows_total, t->rows_total == 1 ? "" : "s");
    snprintf(buf, bufsz, "txn %llu (gtid %s, %s, %s%s)", (unsigned long long)t->txn, t->gtid ? t->gtid : "-",
             where, t->compressed ? "compressed" : "uncompressed", rows);
}

/* Whether a missing transaction was delivered whole before the harness cut
 * the connection (file names sort in binlog order). */
static bool before_cut(const cdch_diff_txn *t, const cdch_outcome *o)
{
    if (!o->harness_cut || !t->file || !o->cut_file[0])
        return false;
    int c = strcmp(t->file, o->cut_file);
    return c < 0 || (c == 0 && t->end <= o->cut_pos);
}

/* What the consumer said of missing transaction t, as the verdict counts it.
 * After a cut the harness caused (not after the consumer's own failure), a
 * line printed after the harness released the cut does not announce a
 * transaction delivered whole before it: that line is about the cut (the
 * lost connection, an event the cut truncated), and the consumer had already
 * let what it received whole go without a word. */
static const char *said(const cdch_diff_txn *t, const cdch_outcome *o)
{
    if (t->reported && o->harness_cut && !o->cut_after_error && o->cut_nctl != SIZE_MAX &&
        t->reported_ctl != SIZE_MAX && t->reported_ctl >= o->cut_nctl && before_cut(t, o))
        return NULL;
    return t->reported;
}

/* Which missing transactions name_missing names. */
typedef enum { NAME_HOLES_SILENT, NAME_HOLES_SAID, NAME_TAIL, NAME_TAIL_BEFORE_CUT, NAME_TAIL_AFTER_CUT } name_which;

/* "5*, 6* and 3 more (5 of 5 compressed, * = compressed)" of the chosen
 * missing transactions, into buf, with how many hold PARTIAL_UPDATE_ROWS
 * events; returns how many there are, *first (may be NULL) the first. */
static size_t name_missing(const cdch_diff *d, const cdch_outcome *o, name_which which, char *buf, size_t bufsz,
                           const cdch_diff_txn **first)
{
    size_t n = 0, comp = 0, shown = 0, partial = 0;
    size_t off = 0;
    buf[0] = '\0';
    if (first)
        *first = NULL;
    for (size_t i = 0; i < d->nmissing; i++) {
        const cdch_diff_txn *t = &d->missing[i];
        bool pick = which == NAME_HOLES_SILENT ? t->hole && !said(t, o)
                  : which == NAME_HOLES_SAID   ? t->hole && said(t, o)
                  : which == NAME_TAIL         ? !t->hole
                                        : !t->hole && before_cut(t, o) == (which == NAME_TAIL_BEFORE_CUT);
        if (!pick)
            continue;
        if (first && !*first)
            *first = t;
        n++;
        comp += t->compressed;
        partial += t->partial_rows > 0;
        if (shown < 3 && off < bufsz) {
            off += (size_t)snprintf(buf + off, bufsz - off, "%s%llu%s", shown ? ", " : "", (unsigned long long)t->txn,
                                    t->compressed ? "*" : "");
            shown++;
        }
    }
    if (!n)
        return 0;
    if (n > shown && off < bufsz)
        off += (size_t)snprintf(buf + off, bufsz - off, " and %zu more", n - shown);
    if (off < bufsz)
        off += (size_t)snprintf(buf + off, bufsz - off, " (%zu of %zu compressed%s)", comp, n,
                                comp ? ", * = compressed" : "");
    if (partial && off < bufsz)
        snprintf(buf + off, bufsz - off, " [%zu of them hold PARTIAL_UPDATE_ROWS events (type 39)]", partial);
    return n;
}

static void details(const cdch_diff *d, const cdch_change_list *obs, const cdch_outcome *o, cdch_buf *b)
{
    char line[1400];
    size_t shown = 0;
    for (size_t i = 0; i < d->nmissing && shown < 20; i++, shown++) {
        txn_line(&d->missing[i], line, sizeof line);
        cdch_buf_printf(b, "missing: %s%s%s%s\n", line, d->missing[i].hole ? " — later transactions arrived" : "",
                        d->missing[i].reported ? "; consumer said: " : "",
                        d->missing[i].reported ? d->missing[i].reported : "");
    }
    if (d->nmissing > shown)
        cdch_buf_printf(b, "missing: ... %zu more transactions\n", d->nmissing - shown);
    for (size_t i = 0; i < d->nmismatch && i < 20; i++) {
        const cdch_diff_mismatch *m = &d->mismatch[i];
        if (m->column)
            cdch_buf_printf(b, "mismatch: txn %llu%s, expected line %llu, observed line %llu: %s.%s %s: expected %s, observed %s\n",
                            (unsigned long long)m->txn, m->compressed ? " (compressed)" : "",
                            (unsigned long long)m->exp_line, (unsigned long long)m->obs_line, m->image ? m->image : "",
                            m->column, m->what, m->expected ? m->expected : "(absent)",
                            m->observed ? m->observed : "(absent)");
        else if (m->txn)
            cdch_buf_printf(b, "mismatch: txn %llu%s, expected line %llu, observed line %llu: %s%s%s: expected %s, observed %s\n",
                            (unsigned long long)m->txn, m->compressed ? " (compressed)" : "",
                            (unsigned long long)m->exp_line, (unsigned long long)m->obs_line, m->what,
                            m->image ? " " : "", m->image ? m->image : "", m->expected ? m->expected : "(absent)",
                            m->observed ? m->observed : "(absent)");
        else
            cdch_buf_printf(b, "mismatch: observed line %llu: %s: %s\n", (unsigned long long)m->obs_line, m->what,
                            m->observed ? m->observed : "");
    }
    if (d->mismatch_total > 20)
        cdch_buf_printf(b, "mismatch: ... %zu differences in all\n", d->mismatch_total);
    for (size_t i = 0; i < d->ndup && i < 20; i++)
        cdch_buf_printf(b, "duplicate: txn %llu%s (expected line %llu) again at observed line %llu (first at line %llu)\n",
                        (unsigned long long)d->dup[i].txn, d->dup[i].compressed ? " (compressed)" : "",
                        (unsigned long long)d->dup[i].exp_line, (unsigned long long)d->dup[i].obs_line,
                        (unsigned long long)d->dup[i].first_obs_line);
    if (d->dup_total > 20)
        cdch_buf_printf(b, "duplicate: ... %zu extra rows in all\n", d->dup_total);
    for (size_t i = 0; i < d->nreorder && i < 20; i++)
        cdch_buf_printf(b, "reorder: txn %llu%s (expected line %llu) arrived after txn %llu, at observed line %llu\n",
                        (unsigned long long)d->reorder[i].txn, d->reorder[i].compressed ? " (compressed)" : "",
                        (unsigned long long)d->reorder[i].exp_line, (unsigned long long)d->reorder[i].after_txn,
                        (unsigned long long)d->reorder[i].obs_line);
    if (d->reorder_total > 20)
        cdch_buf_printf(b, "reorder: ... %zu rows out of order in all\n", d->reorder_total);
    for (size_t i = 0; i < d->nckpt && i < 20; i++)
        cdch_buf_printf(b, "checkpoint: txn %llu%s, observed line %llu: %s\n", (unsigned long long)d->ckpt[i].txn,
                        d->ckpt[i].compressed ? " (compressed)" : "", (unsigned long long)d->ckpt[i].obs_line,
                        d->ckpt[i].what);
    if (d->ckpt_total > 20)
        cdch_buf_printf(b, "checkpoint: ... %zu bad rows in all\n", d->ckpt_total);
    for (size_t i = 0; obs && i < obs->nctl; i++)
        if (obs->ctl[i].kind == CDCH_CTL_ERROR)
            cdch_buf_printf(b, "consumer error (observed line %llu, after %zu rows): %s\n",
                            (unsigned long long)obs->ctl[i].line, obs->ctl[i].at, obs->ctl[i].message);
    if (obs && obs->invalid)
        cdch_buf_printf(b, "ignored %zu stdout line(s) that are not canonical events; first: %s\n", obs->invalid,
                        obs->first_invalid);
    cdch_buf_printf(b, "rows: %zu expected, %zu observed, %zu matched; transactions: %zu expected, %zu complete\n",
                    d->expected_rows, d->observed_rows, d->matched_rows, d->expected_txns, d->complete_txns);
    if (o->exit_signal)
        cdch_buf_printf(b, "adapter: stop %s, killed by signal %d\n", cdch_stop_reason_name(o->reason), o->exit_signal);
    else if (o->exit_status >= 0)
        cdch_buf_printf(b, "adapter: stop %s, exit status %d\n", cdch_stop_reason_name(o->reason), o->exit_status);
    else
        cdch_buf_printf(b, "adapter: stop %s\n", cdch_stop_reason_name(o->reason));
}

/* The judging of one cell: its diff and outcome, and per finding class the
 * first summary recorded (it is the class's summary). */
typedef struct judge_ctx {
    const cdch_diff *d;
    const cdch_outcome *o;
    bool exited;         /* the adapter exited by itself */
    bool failed_exit;    /* ... with a signal or a status other than 0 */
    char exitmsg[400];   /* "exited with status N (stderr: LAST LINE)" when it exited, else "" */
    unsigned classes;
    char sums[CDCH_VERDICT_COUNT][1024];
} judge_ctx;

static void found(judge_ctx *j, cdch_verdict v, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void found(judge_ctx *j, cdch_verdict v, const char *fmt, ...)
{
    if (j->classes & CDCH_CLASS(v))
        return;
    j->classes |= CDCH_CLASS(v);
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(j->sums[v], sizeof j->sums[v], fmt, ap);
    va_end(ap);
}

static void judge_exit(judge_ctx *j)
{
    const cdch_outcome *o = j->o;
    j->exited = o->reason == CDCH_STOP_EXITED;
    j->failed_exit = j->exited && (o->exit_signal || o->exit_status != 0);
    j->exitmsg[0] = '\0';
    if (!j->exited)
        return;
    char ll[300];
    size_t cap = sizeof j->exitmsg;
    if (o->exit_signal)
        snprintf(j->exitmsg, cap, "killed by signal %d", o->exit_signal);
    else
        snprintf(j->exitmsg, cap, "exited with status %d", o->exit_status);
    last_line(o->stderr_tail, ll, sizeof ll);
    if (ll[0] && strlen(j->exitmsg) < cap - 10)
        snprintf(j->exitmsg + strlen(j->exitmsg), cap - strlen(j->exitmsg), " (stderr: %s)", ll);
}

/* Holes: a later transaction arrived. Silent unless the consumer said so
 * around each one. */
static void judge_holes(judge_ctx *j)
{
    const cdch_diff *d = j->d;
    char names[300], where[1400];
    const cdch_diff_txn *first_silent = NULL, *first_said = NULL;
    size_t silent_holes = 0, said_holes = 0;
    for (size_t i = 0; i < d->nmissing; i++) {
        const cdch_diff_txn *t = &d->missing[i];
        if (!t->hole)
            continue;
        if (said(t, j->o)) {
            said_holes++;
            if (!first_said)
                first_said = t;
        } else {
            silent_holes++;
            if (!first_silent)
                first_silent = t;
        }
    }
    if (silent_holes) {
        name_missing(d, j->o, NAME_HOLES_SILENT, names, sizeof names, NULL);
        txn_line(first_silent, where, sizeof where);
        found(j, CDCH_VERDICT_SILENT_SKIP, "%zu transaction(s) missing while later ones arrived: txn %s; first: %s",
              silent_holes, names, where);
    }
    if (said_holes) {
        name_missing(d, j->o, NAME_HOLES_SAID, names, sizeof names, NULL);
        txn_line(first_said, where, sizeof where);
        found(j, CDCH_VERDICT_ANNOUNCED_SKIP,
              "%zu transaction(s) missing while later ones arrived, announced by the consumer: txn %s; first: %s; "
              "consumer said: %s",
              said_holes, names, where, said(first_said, j->o));
    }
}

/* The tail: nothing after it arrived. */
static void judge_tail(judge_ctx *j)
{
    const cdch_diff *d = j->d;
    const cdch_outcome *o = j->o;
    if (!d->tail)
        return;
    char names[300], where[1400];
    const cdch_diff_txn *first_cut = NULL, *first_tail = NULL;
    char cutnames[300];
    /* after a cut the harness caused (and held until the consumer had emitted what it received whole,
     * spoke, or stayed quiet): transactions it received whole and never emitted are silent losses,
     * whatever it said after the cut; the rest it would have had to come back for. A consumer that
     * had already failed (an error line before the cut) is judged as if there were no cut. */
    bool cut = o->harness_cut && !o->cut_after_error;
    if (cut && name_missing(d, o, NAME_TAIL_BEFORE_CUT, cutnames, sizeof cutnames, &first_cut)) {
        txn_line(first_cut, where, sizeof where);
        const char *cut_said = said(first_cut, o);
        if (cut_said && cdch_announce_names_event(cut_said, first_cut->compressed, first_cut->partial_rows > 0))
            found(j, CDCH_VERDICT_ANNOUNCED_SKIP,
                  "txn %s were delivered whole before the disconnection the harness caused (%s:%llu) and never "
                  "emitted; the consumer had said it skips that event; first: %s; consumer said: %s",
                  cutnames, o->cut_file, (unsigned long long)o->cut_pos, where, cut_said);
        else
            found(j, CDCH_VERDICT_SILENT_SKIP,
                  "txn %s were delivered whole before the disconnection the harness caused (%s:%llu) and never "
                  "emitted, without a word before the cut; first: %s",
                  cutnames, o->cut_file, (unsigned long long)o->cut_pos, where);
    }
    if (!name_missing(d, o, cut ? NAME_TAIL_AFTER_CUT : NAME_TAIL, names, sizeof names, &first_tail))
        return;
    txn_line(first_tail, where, sizeof where);
    const char *msg = first_tail->reported;
    if (cut) {
        found(j, CDCH_VERDICT_NO_RESUME,
              "the harness cut the connection at %s:%llu (scenario fault) and the consumer did not resume: "
              "nothing from %s on (stop: %s%s%s%s%.300s)",
              o->cut_file, (unsigned long long)o->cut_pos, where, cdch_stop_reason_name(o->reason),
              j->exited ? ", adapter " : "", j->exitmsg, msg ? "; consumer said: " : "", msg ? msg : "");
    } else if (msg && !j->exited && o->reason == CDCH_STOP_IDLE_AFTER_STREAM && o->stream_delivered &&
               cdch_announce_names_event(msg, first_tail->compressed, first_tail->partial_rows > 0)) {
        /* it said it skips that event, stayed up and received everything after: rows lost, announced */
        found(j, CDCH_VERDICT_ANNOUNCED_SKIP,
              "received the whole stream and went idle without txn %s, having said it skips that event; first: %s; "
              "consumer said: %s",
              names, where, msg);
    } else if (msg) {
        found(j, CDCH_VERDICT_PARSE_FAILURE, "stopped before %s: consumer error: %s", where, msg);
    } else if (j->exited && o->files_source && !j->failed_exit) {
        found(j, CDCH_VERDICT_SILENT_SKIP, "read every file and exited 0 without txn %s; first: %s", names, where);
    } else if (j->exited) {
        found(j, CDCH_VERDICT_PARSE_FAILURE, "stopped before %s: adapter %s", where, j->exitmsg);
    } else if (o->reason == CDCH_STOP_IDLE_AFTER_STREAM && o->stream_delivered) {
        found(j, CDCH_VERDICT_SILENT_SKIP, "received the whole stream and went idle without txn %s; first: %s", names,
              where);
    } else if (o->reason == CDCH_STOP_FLOOD) {
        found(j, CDCH_VERDICT_PARSE_FAILURE,
              "the adapter wrote more to stdout than %zu rows can take and was stopped (output flood); nothing "
              "from %s on",
              d->expected_rows, where);
    } else if (o->reason == CDCH_STOP_STARTUP_TIMEOUT) {
        found(j, CDCH_VERDICT_HANG,
              "no ready line or event within the startup timeout; nothing after %zu of %zu rows; next: %s",
              d->matched_rows, d->expected_rows, where);
    } else {
        if (o->hang_how)
            found(j, CDCH_VERDICT_HANG, "no progress and no exit before the %.0f s timeout (%s); stuck before %s",
                  o->timeout_s, o->hang_how, where);
        else
            found(j, CDCH_VERDICT_HANG, "no progress and no exit before the %.0f s timeout; stuck before %s",
                  o->timeout_s, where);
    }
}

/* Rows that arrived wrong: mismatches, duplicates, reorders, bad checkpoints. */
static void judge_rows(judge_ctx *j)
{
    const cdch_diff *d = j->d;
    if (d->mismatch_total) {
        const cdch_diff_mismatch *m = &d->mismatch[0];
        if (m->column)
            found(j, CDCH_VERDICT_MISMATCH, "%zu difference(s); first: txn %llu%s %s.%s: expected %.200s, observed %.200s",
                  d->mismatch_total, (unsigned long long)m->txn, m->compressed ? " (compressed)" : "",
                  m->image ? m->image : "", m->column, m->expected ? m->expected : "(absent)",
                  m->observed ? m->observed : "(absent)");
        else if (m->txn)
            found(j, CDCH_VERDICT_MISMATCH, "%zu difference(s); first: txn %llu%s %s: expected %.200s, observed %.200s",
                  d->mismatch_total, (unsigned long long)m->txn, m->compressed ? " (compressed)" : "", m->what,
                  m->expected ? m->expected : "(absent)", m->observed ? m->observed : "(absent)");
        else
            found(j, CDCH_VERDICT_MISMATCH, "%zu difference(s); first: %s at observed line %llu: %.300s",
                  d->mismatch_total, m->what, (unsigned long long)m->obs_line, m->observed ? m->observed : "");
    }
    if (d->dup_total)
        found(j, CDCH_VERDICT_DUPLICATE, "%zu duplicate row(s); first: txn %llu%s again at observed line %llu",
              d->dup_total, (unsigned long long)d->dup[0].txn, d->dup[0].compressed ? " (compressed)" : "",
              (unsigned long long)d->dup[0].obs_line);
    if (d->reorder_total)
        found(j, CDCH_VERDICT_REORDER, "%zu row(s) out of order; first: txn %llu arrived after txn %llu (observed line %llu)",
              d->reorder_total, (unsigned long long)d->reorder[0].txn, (unsigned long long)d->reorder[0].after_txn,
              (unsigned long long)d->reorder[0].obs_line);
    if (d->ckpt_total)
        found(j, CDCH_VERDICT_BAD_CHECKPOINT, "rows fine; %zu row(s) with a bad checkpoint; first: txn %llu%s: %s", d->ckpt_total,
              (unsigned long long)d->ckpt[0].txn, d->ckpt[0].compressed ? " (compressed)" : "", d->ckpt[0].what);
}

/* Consumer errors that explain no finding, and a failing exit after every
 * row, are warnings. */
static void judge_warnings(const judge_ctx *j, const cdch_change_list *obs, cdch_judgement *out)
{
    const cdch_diff *d = j->d;
    for (size_t i = 0; obs && i < obs->nctl; i++) {
        const cdch_ctl *c = &obs->ctl[i];
        if (c->kind != CDCH_CTL_ERROR)
            continue;
        bool explains = false;
        for (size_t k = 0; k < d->nmissing && !explains; k++)
            explains = d->missing[k].reported && c->message && strcmp(d->missing[k].reported, c->message) == 0;
        if (explains)
            continue;
        cdch_buf_printf(&out->warnings, "consumer error (observed line %llu, after %zu rows): %s\n",
                        (unsigned long long)c->line, c->at, c->message);
        out->nwarnings++;
    }
    if (j->failed_exit && !d->tail) {
        cdch_buf_printf(&out->warnings, "adapter %s after every expected row\n", j->exitmsg);
        out->nwarnings++;
    }
    if (j->o->reason == CDCH_STOP_FLOOD && !d->tail) {
        cdch_buf_printf(&out->warnings, "after every expected row the adapter flooded stdout and was stopped\n");
        out->nwarnings++;
    }
}

/* The verdict is the worst class found; its summary leads, the others are
 * named after it and in the detail. */
static void judge_summary(const judge_ctx *j, cdch_judgement *out)
{
    const cdch_diff *d = j->d;
    out->classes = j->classes;
    out->verdict = CDCH_VERDICT_PASS;
    for (int v = CDCH_VERDICT_SILENT_SKIP; v > 0; v--)
        if (j->classes & CDCH_CLASS(v)) {
            out->verdict = (cdch_verdict)v;
            break;
        }
    if (out->verdict == CDCH_VERDICT_PASS) {
        snprintf(out->summary, sizeof out->summary, "%zu rows in %zu transactions; checkpoints %s%s", d->expected_rows,
                 d->expected_txns, d->ckpt_rows_checked ? "valid" : "not reported",
                 !out->nwarnings                 ? ""
                 : j->o->reason == CDCH_STOP_FLOOD ? "; with warnings (every row delivered, then the adapter flooded stdout)"
                                                   : "; with warnings (the consumer reported errors but delivered every row)");
        return;
    }
    size_t l = (size_t)snprintf(out->summary, sizeof out->summary, "%s", j->sums[out->verdict]);
    unsigned others = j->classes & ~CDCH_CLASS(out->verdict);
    if (others && l < sizeof out->summary) {
        char also[200];
        cdch_verdict_classes_str(others, also, sizeof also);
        snprintf(out->summary + l, sizeof out->summary - l, " [also: %s]", also);
    }
    for (int v = CDCH_VERDICT_SILENT_SKIP; v > 0; v--)
        if (v != (int)out->verdict && (others & CDCH_CLASS(v)))
            cdch_buf_printf(&out->detail, "also %s: %s\n", k_names[v], j->sums[v]);
}

bool cdch_outcome_not_run(const cdch_outcome *o, bool printed, char *msg, size_t msgsz)
{
    if (printed || o->reason != CDCH_STOP_EXITED || o->exit_signal ||
        (o->exit_status != 126 && o->exit_status != 127))
        return false;
    char ll[300];
    last_line(o->stderr_tail, ll, sizeof ll);
    snprintf(msg, msgsz,
             "the adapter exited with status %d before printing a row or an error: the command it runs %s "
             "(stderr: %s); check the consumer's installation and the adapter's command",
             o->exit_status, o->exit_status == 126 ? "could not be executed" : "was not found",
             ll[0] ? ll : "empty");
    return true;
}

/* Whether the adapter printed a row or an error line (obs NULL: not known
 * here, as printed). */
static bool printed_any(const cdch_change_list *obs)
{
    if (!obs || obs->n)
        return true;
    for (size_t i = 0; i < obs->nctl; i++)
        if (obs->ctl[i].kind == CDCH_CTL_ERROR)
            return true;
    return false;
}

static void harness_error(cdch_judgement *out, const char *msg)
{
    out->verdict = CDCH_VERDICT_HARNESS_ERROR;
    out->classes = CDCH_CLASS(CDCH_VERDICT_HARNESS_ERROR);
    snprintf(out->summary, sizeof out->summary, "%s", msg);
    cdch_buf_printf(&out->detail, "harness error (not the consumer's fault): %s\n", msg);
    cdch_buf_cstr(&out->detail);
}

void cdch_verdict_judge(const cdch_diff *d, const cdch_change_list *obs, const cdch_outcome *o, cdch_judgement *out)
{
    memset(out, 0, sizeof *out);
    if (o->harness_error) {
        harness_error(out, o->harness_error);
        return;
    }
    char not_run[600];
    if (cdch_outcome_not_run(o, printed_any(obs), not_run, sizeof not_run)) {
        harness_error(out, not_run);
        return;
    }
    judge_ctx j;
    memset(&j, 0, sizeof j);
    j.d = d;
    j.o = o;
    judge_exit(&j);
    judge_holes(&j);
    judge_tail(&j);
    judge_rows(&j);
    judge_warnings(&j, obs, out);
    judge_summary(&j, out);
    details(d, obs, o, &out->detail);
    cdch_buf_cstr(&out->detail);
    cdch_buf_cstr(&out->warnings);
}
