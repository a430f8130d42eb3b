/* waits.c — see waits.h. */
#include "waits.h"

#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "activity.h"

void cdch_waits_init(cdch_waits *w, const cdch_waits_cfg *cfg, double t0)
{
    memset(w, 0, sizeof *w);
    w->cfg = *cfg;
    if (w->cfg.idle_after_s <= 0)
        w->cfg.idle_after_s = 2.0;
    w->t0 = t0;
    w->hold_own = -1;
    w->cut_idle_own = -1;
    w->wm_own = -1;
    w->cut_nctl = SIZE_MAX; /* no cut released here: every line counts */
    w->conns_err = UINT64_MAX;
}

double cdch_waits_own_seconds(const cdch_waits *w) { return w->own; }

/* The consumer's clocks, read every 0.5 s: its CPU-seconds and its own time
 * (the wall time since the last read, less what its threads waited for a
 * CPU in it); and both at its last line. */
static void read_clocks(cdch_waits *w, const cdch_waits_view *v, double t)
{
    if (w->clock_t == 0 || t - w->clock_t >= 0.5) {
        double cpu, waited;
        cdch_activity_clocks(cdch_proc_activity(v->p), &cpu, &waited); /* one look for both */
        if (w->clock_t == 0) {
            w->cpu0 = w->cpu_line = cpu >= 0 ? cpu : 0;
            w->cpu = w->cpu0;
            w->own0 = t - w->t0 > 0 ? t - w->t0 : 0; /* the launch itself: the consumer's */
            cdch_own_clock_start(&w->clock, waited, t);
        }
        w->own = w->own0 + cdch_own_clock_read(&w->clock, waited, t);
        if (cpu >= 0)
            w->cpu = cpu;
        w->clock_t = t;
    }
    if (v->last_line != w->line_seen) {
        w->line_seen = v->last_line;
        w->own_line = w->own;
        w->cpu_line = w->cpu;
    }
    if (v->rows != w->rows_seen) {
        w->rows_seen = v->rows;
        w->own_row = w->own;
        w->dumps_row = v->prim ? cdch_primary_dumps(v->prim) : 0;
        w->nctl_row = v->obs->nctl;
        w->conns_err = UINT64_MAX;
    }
}

/* Three dump connections since its last row (or the cell's start): the consumer reads the stream
 * again and again from the same place and gets no further (rules 6 and 7). */
static bool restarting(const cdch_waits *w, const cdch_waits_view *v)
{
    return v->prim && cdch_primary_dumps(v->prim) >= w->dumps_row + 3;
}

/* An error line printed since the last row. */
static bool error_since_row(const cdch_waits *w, const cdch_change_list *l)
{
    for (size_t i = w->nctl_row; i < l->nctl; i++)
        if (l->ctl[i].kind == CDCH_CTL_ERROR)
            return true;
    return false;
}

/* Three connections since the consumer printed an error after its last row (the first look that saw
 * the error counts them from there; rule 6), and no dump connection streaming now: it retries for
 * ever and fails the same way each time before it streams (Debezium's unlimited retries on a query
 * the server refuses, every half second). The primary answers every connection alike, so the next
 * attempt ends as the last three did. A consumer that still holds its dump connection (working
 * through what it read, opening others for metadata) is not retrying. */
static bool reconnecting(cdch_waits *w, const cdch_waits_view *v)
{
    if (!v->prim)
        return false;
    uint64_t conns = cdch_primary_connections(v->prim);
    if (w->conns_err == UINT64_MAX) {
        if (error_since_row(w, v->obs))
            w->conns_err = conns;
        return false;
    }
    return conns >= w->conns_err + 3 && cdch_primary_active_dumps(v->prim) == 0;
}

static bool got_error(const cdch_change_list *l)
{
    for (size_t i = 0; i < l->nctl; i++)
        if (l->ctl[i].kind == CDCH_CTL_ERROR)
            return true;
    return false;
}

/* How long the consumer has been quiet (waits.h), in wall seconds: a quiet
 * consumer is not waiting for a CPU, so its wall time is its own. */
static double quiet_for(cdch_waits *w, const cdch_waits_view *v, double t)
{
    if (t - w->sample_t >= 0.1) {
        w->sample_t = t;
        bool busy = cdch_proc_output_pending(v->p) || cdch_activity_busy(cdch_proc_activity(v->p));
        /* bytes in flight that the consumer is reading (the count moved since the last look) are
         * work ahead; bytes that stay put are a consumer that stopped reading (one that failed on
         * an event). Looked at only when nothing else says busy; asked of the kernel per
         * connection (sock_diag), /proc/net/tcp only when that fails: it walks the kernel's whole
         * socket table (milliseconds of system time per read: bench/README) */
        if (!busy && v->prim) {
            uint64_t pending = cdch_primary_bytes_in_flight(v->prim);
            busy = pending > 0 && pending != w->pending;
            w->pending = pending;
        }
        if (busy)
            w->quiet_t = 0;
        else if (w->quiet_t == 0)
            w->quiet_t = t;
    }
    if (w->quiet_t == 0)
        return 0;
    return t - (w->quiet_t > v->last_line ? w->quiet_t : v->last_line);
}

/* Expected rows of the transactions that end at or before file:pos (the
 * binlog file names sort in order). */
static size_t rows_before(const cdch_waits_view *v, const char *file, uint64_t pos)
{
    size_t n = 0;
    for (size_t i = 0; i < v->expected->n; i++) {
        const cdch_txn_loc *loc = cdch_stream_index_txn(v->idx, v->expected->items[i].txn);
        if (!loc)
            continue;
        int c = strcmp(loc->file, file);
        if (c < 0 || (c == 0 && loc->end <= pos))
            n++;
    }
    return n;
}

/* Rule 4: the primary holds a scenario fault's cut until the consumer had
 * its chance: what it emits before the cut does not depend on the load. */
static void release_held_cut(cdch_waits *w, const cdch_waits_view *v, double t)
{
    char hf[256];
    uint64_t hp = 0;
    if (!cdch_primary_cut_held(v->prim, hf, sizeof hf, &hp))
        return;
    if (w->hold_own < 0) {
        w->hold_own = w->own;
        w->hold_need = rows_before(v, hf, hp);
    }
    double quiet = quiet_for(w, v, t);
    bool emitted = v->rows >= w->hold_need && quiet >= 0.3;
    bool spoke = got_error(v->obs);
    double q = w->cfg.hold_quiet_s;
    /* a consumer never quiet (a JVM's own ticks) had its chance after five times that of its own time
     * without a line */
    double since = w->own_line > w->hold_own ? w->own_line : w->hold_own;
    if (emitted || spoke || (quiet >= q && w->own - w->hold_own >= q) || w->own - since >= 5 * q) {
        w->cut_after_error = spoke;
        w->cut_nctl = v->obs->nctl;
        cdch_primary_release_cut(v->prim);
        w->cut_released = true;
    }
}

/* hold_end_marker: the watermark transaction waits until the consumer acted
 * on everything before it: quiet 0.3 s, or hold_quiet_s once it reported an
 * error (a consumer whose task stops on its error a poll interval later,
 * Debezium's ChangeEventQueue, would otherwise emit the watermark or not
 * depending on the machine's load). */
static void release_held_mark(cdch_waits *w, const cdch_waits_view *v, double t)
{
    if (!cdch_primary_mark_held(v->prim))
        return;
    if (quiet_for(w, v, t) >= (got_error(v->obs) ? w->cfg.hold_quiet_s : 0.3)) {
        cdch_primary_release_mark(v->prim);
        w->mark_released = true;
        /* the stream's end goes out only now: rule 6's window starts again here (the look that released
         * it would otherwise stop the cell at once, before the consumer read the watermark) */
        w->delivered = false;
    }
}

/* Rule 5: after a cut, the consumer is expected to come back by itself
 * (BinaryLogClient's keep-alive thread looks every 60 s by default). */
static bool not_resumed(cdch_waits *w, const cdch_waits_view *v, double t)
{
    if (cdch_primary_active_dumps(v->prim) > 0) {
        w->cut_idle_own = -1;
        return false;
    }
    if (w->cut_idle_own < 0)
        w->cut_idle_own = w->own;
    double since = w->own_line > w->cut_idle_own ? w->own_line : w->cut_idle_own;
    if (w->own - since >= w->cfg.resume_wait_s && quiet_for(w, v, t) >= 1.0)
        return true;
    return w->cpu - w->cpu_line >= w->cfg.timeout_s && w->own - w->cut_idle_own >= w->cfg.resume_wait_s;
}

/* Rule 6: the consumer went idle after the primary sent the whole stream,
 * or reported an error and went quiet. */
static bool went_idle(cdch_waits *w, const cdch_waits_view *v, double t)
{
    double win = w->cfg.idle_after_s;
    uint64_t sent = cdch_primary_events_sent(v->prim);
    /* never while a dump waits before the end marker: the count spans every dump connection (one that
     * reconnected and was sent the stream again reaches the count with the end still held) */
    if (!w->delivered && sent >= v->stream_events && !cdch_primary_mark_held(v->prim)) {
        w->delivered = true;
        w->deliv_own = w->own;
    }
    double quiet = quiet_for(w, v, t);
    if (w->delivered && quiet >= win && w->own - w->deliv_own >= win)
        return true;
    if (sent != w->last_sent) {
        w->last_sent = sent;
        w->sent_own = w->own;
    }
    /* after a cut the library may report the drop and reconnect on its own schedule: the resume
     * wait decides then. One that retries for ever after its error (Debezium's unlimited retries
     * reconnect and query every half second) is never quiet: five times the window without a line
     * or a byte of the stream ends it. One that restarts for ever from the same offsets (a Flink job
     * restarting its failed source every second or two) reads the same stream again each time and
     * fails on the same event, printing its error each time or once: an error and three dump
     * connections since its last row, and it is looping */
    bool looping = restarting(w, v) && error_since_row(w, v->obs);
    /* one that retries for ever and fails before it streams (a query the server refuses) connects
     * again and again and reads nothing: an error and three connections since it, and it is looping
     * too, once the stream has been still for the window */
    bool retrying = reconnecting(w, v);
    double since = w->own_line > w->sent_own ? w->own_line : w->sent_own;
    return (quiet >= win || w->own - since >= 5 * win || looping || retrying) &&
           (w->own - w->sent_own >= win || looping) &&
           got_error(v->obs) && (w->cut_after_error || !cdch_primary_last_cut(v->prim, NULL, 0, NULL));
}

/* Rule 3: the watermark arrived. */
static bool watermark_done(cdch_waits *w, const cdch_waits_view *v, double t)
{
    if (w->wm_own < 0)
        w->wm_own = w->own;
    if (v->rows >= v->expected->n || w->cfg.in_order) {
        /* the row is the signal (of the end, or, from a consumer that delivers in stream order, of
         * everything before it: what is missing now is lost): the short grace only catches a stray
         * line right behind it. Output
         * still coming (bytes in our pipe, or read since the last look, a line or not) is not the
         * end: a consumer that floods after its rows is read until the flood limit says so */
        uint64_t ob = cdch_proc_stdout_bytes(v->p);
        if (ob != w->out_bytes) {
            w->out_bytes = ob;
            w->out_t = t;
        }
        double since = v->last_line > w->out_t ? v->last_line : w->out_t;
        double g = w->cfg.grace_s < 0.5 ? w->cfg.grace_s : 0.5;
        return t - since >= g && !cdch_proc_output_pending(v->p);
    }
    /* rows before it are missing: late, maybe (a sink flushed on a timer), not lost yet. Quiet for
     * the idle window, or no line for five of it (a consumer never quiet: a JVM's own ticks) */
    double win = w->cfg.idle_after_s;
    double since = w->own_line > w->wm_own ? w->own_line : w->wm_own;
    return (quiet_for(w, v, t) >= win && w->own - w->wm_own >= win) || w->own - since >= 5 * win;
}

cdch_stop_reason cdch_waits_check(cdch_waits *w, const cdch_waits_view *v, double t)
{
    read_clocks(w, v, t);
    /* 1: a consumer still starting (a JVM under load) is busy, not hung */
    if (!v->any_line &&
        ((w->own >= w->cfg.startup_s && quiet_for(w, v, t) >= 1.0) || w->cpu - w->cpu0 >= w->cfg.startup_s))
        return CDCH_STOP_STARTUP_TIMEOUT;
    if (v->rows >= v->expected->n && quiet_for(w, v, t) >= w->cfg.grace_s)
        return CDCH_STOP_DONE;
    if (v->watermark_at > 0 && watermark_done(w, v, t))
        return CDCH_STOP_DONE;
    if (v->prim && !w->cut_released)
        release_held_cut(w, v, t);
    if (v->prim && !w->mark_released)
        release_held_mark(w, v, t);
    if (v->prim && w->cut_released && !w->cut_after_error && cdch_primary_last_cut(v->prim, NULL, 0, NULL) &&
        not_resumed(w, v, t))
        return CDCH_STOP_NOT_RESUMED;
    if (v->prim && went_idle(w, v, t))
        return CDCH_STOP_IDLE_AFTER_STREAM;
    /* 7: hung, in the consumer's own time */
    if (w->own - w->own_line >= w->cfg.timeout_s && quiet_for(w, v, t) >= 2.0) {
        snprintf(w->hang_how, sizeof w->hang_how, "blocked: no output, no thread running, nothing in flight");
        return CDCH_STOP_TIMEOUT;
    }
    if (restarting(w, v) && w->own - w->own_row >= w->cfg.timeout_s && !error_since_row(w, v->obs)) {
        snprintf(w->hang_how, sizeof w->hang_how,
                 "restarting: %llu dump connections since its last row, no row for %.0f s of its own time",
                 (unsigned long long)(cdch_primary_dumps(v->prim) - w->dumps_row), w->own - w->own_row);
        return CDCH_STOP_TIMEOUT;
    }
    if (w->cpu - w->cpu_line >= w->cfg.timeout_s) {
        snprintf(w->hang_how, sizeof w->hang_how, "%.0f CPU-seconds of its own spent without output",
                 w->cpu - w->cpu_line);
        return CDCH_STOP_TIMEOUT;
    }
    return CDCH_STOP_NONE;
}
