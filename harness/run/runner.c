/* runner.c — a run: its consumers and scenarios, its plan, its streams, its
 * setups, and the scheduling of its cells over the workers (one cell's life
 * is cell.c). */
#include "runner.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>

#include "cell.h"
#include "admit.h"
#include "backlog.h"
#include "attach.h"
#include "command.h"
#include "oracle_cell.h"
#include "events.h"
#include "gtid.h"
#include "jsonstr.h"
#include "reader.h"
#include "proc.h"
#include "reportlock.h"
#include "run_state.h"
#include "rundir.h"
#include "session.h"
#include "setup.h"
#include "stream.h"
#include "streamidx.h"
#include "sys.h"
#include "value.h"
#include "watermark.h"
#include "xalloc.h"

#define xcalloc cdch_xcalloc
#define xrealloc cdch_xrealloc
#define xstrdup cdch_xstrdup

char *run_xprintf(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    char *s = xcalloc((size_t)n + 1, 1);
    va_start(ap, fmt);
    vsnprintf(s, (size_t)n + 1, fmt, ap);
    va_end(ap);
    return s;
}

/* ---- the run ---------------------------------------------------------------------- */


void cdch_run_opts_init(cdch_run_opts *o)
{
    memset(o, 0, sizeof *o);
    o->timeout_s = 60;
    o->grace_s = 2;
    o->idle_after_stream_s = 0; /* auto */
    o->resume_wait_s = 80;
    o->hold_quiet_s = 2;
    o->setup_timeout_s = 1800;
    o->jobs = 1;
    o->watermark = true;
}

cdch_run *cdch_run_new(const cdch_run_opts *o)
{
    cdch_run *r = xcalloc(1, sizeof *r);
    r->o = *o;
    r->dirs = xcalloc(o->nconsumer_dirs + 1, sizeof *r->dirs);
    for (size_t i = 0; i < o->nconsumer_dirs; i++)
        r->dirs[i] = xstrdup(o->consumer_dirs[i]);
    r->o.consumer_dirs = (const char *const *)r->dirs;
    r->report_dir = o->report_dir ? xstrdup(o->report_dir) : NULL;
    r->o.report_dir = r->report_dir;
    r->report_lock = -1;
    char exe[PATH_MAX];
    if (o->bin_path)
        r->bin = realpath(o->bin_path, exe) ? xstrdup(exe) : xstrdup(o->bin_path);
    else
        r->bin = realpath("/proc/self/exe", exe) ? xstrdup(exe) : xstrdup("cdcharness");
    r->o.bin_path = r->bin;
    r->cache_root = o->cache_root ? xstrdup(o->cache_root) : NULL;
    r->o.cache_root = r->cache_root;
    r->mode = xstrdup("both");
    if (r->o.jobs < 1)
        r->o.jobs = 1;
    pthread_mutex_init(&r->mu, NULL);
    cdch_admit_init(&r->admit, 0);
    pthread_cond_init(&r->changed, NULL);
    pthread_cond_init(&r->keys_made, NULL);
    return r;
}

void cdch_run_free(cdch_run *r)
{
    if (!r)
        return;
    for (size_t i = 0; i < r->ncells; i++) {
        cdch_cell *c = &r->cells[i];
        free(c->summary);
        free(c->detail);
        free(c->warnings);
        free(c->stderr_tail);
        free(c->cell_dir);
        free(c->config_line);
        free(c->predict_in_range);
        cdch_diff_free(c->diff);
        free(c->oracle_summary);
        free(c->oracle_side);
        cdch_oracle_lines_free(c->rows);
    }
    free(r->cells);
    free(r->taken);
    free(r->finished);
    free(r->started);
    free(r->untaken);
    if (r->sessions.live)
        cdch_session_pool_free(&r->sessions);
    /* every adapter and setup of the run has ended: a process still adopted by the harness
     * (proc.h) is a daemon one of them left, even one that scrubbed its environment */
    cdch_proc_reap_orphans(true);
    free(r->estimate);
    free(r->heavy);
    for (size_t i = 0; i < r->nstreams; i++) {
        stream *st = &r->streams[i];
        free(st->dir);
        free(st->error);
        free(st->files);
        free(st->start_file);
        free(st->gtid_set);
        free(st->expected_path);
        cdch_diff_expected_free(st->keys);
        cdch_changes_free(st->expected);
        cdch_stream_index_free(&st->idx);
    }
    free(r->streams);
    cdch_rundir_release(r->tmp, r->o.keep_streams);
    for (size_t i = 0; i < r->nscens; i++) {
        cdch_scenario_free(r->scens[i].s);
        cdch_scenario_free(r->scens[i].orig);
        free(r->scens[i].path);
        free(r->scens[i].run_path);
        free(r->scens[i].wm_db);
        free(r->scens[i].databases);
        cdch_diff_schema_free(r->scens[i].schema);
    }
    free(r->scens);
    for (size_t i = 0; i < r->nconsumers; i++) {
        free(r->consumers[i].setup_error);
        free(r->consumers[i].config);
        cdch_manifest_version_free(r->consumers[i].own);
    }
    free(r->consumers);
    cdch_backlog_free(&r->backlog);
    for (size_t i = 0; i < r->nmanifests; i++)
        cdch_manifest_free(r->manifests[i]);
    free(r->manifests);
    for (size_t i = 0; i < r->o.nconsumer_dirs; i++)
        free(r->dirs[i]);
    free(r->dirs);
    cdch_reportlock_release(r->report_lock);
    free(r->report_dir);
    free(r->bin);
    free(r->cache_root);
    free(r->mode);
    pthread_cond_destroy(&r->keys_made);
    pthread_cond_destroy(&r->changed);
    pthread_mutex_destroy(&r->mu);
    free(r);
}

static cdch_manifest *get_manifest(cdch_run *r, const char *family, cdch_err *err)
{
    for (size_t i = 0; i < r->nmanifests; i++)
        if (strcmp(r->manifests[i]->family, family) == 0)
            return r->manifests[i];
    cdch_manifest *m = cdch_manifest_find(r->o.consumer_dirs, r->o.nconsumer_dirs, family, err);
    if (!m)
        return NULL;
    r->manifests = xrealloc(r->manifests, (r->nmanifests + 1) * sizeof *r->manifests);
    r->manifests[r->nmanifests++] = m;
    return m;
}

static bool same_str(const char *a, const char *b) { return a == b || (a && b && strcmp(a, b) == 0); }

/* Add consumer m@v with a configuration (NULL: none); own: an unpinned
 * record, taken over (freed when the consumer is already there). */
static void add_consumer(cdch_run *r, cdch_manifest *m, const cdch_manifest_version *v,
                         cdch_manifest_version *own, const char *config)
{
    for (size_t i = 0; i < r->nconsumers; i++)
        if (r->consumers[i].m == m && strcmp(r->consumers[i].v->version, v->version) == 0 &&
            same_str(r->consumers[i].config, config)) {
            cdch_manifest_version_free(own);
            return;
        }
    r->consumers = xrealloc(r->consumers, (r->nconsumers + 1) * sizeof *r->consumers);
    consumer *c = &r->consumers[r->nconsumers++];
    memset(c, 0, sizeof *c);
    c->m = m;
    c->v = v;
    c->own = own;
    c->config = config ? xstrdup(config) : NULL;
}

int cdch_run_add_consumer(cdch_run *r, const char *spec, cdch_err *err)
{
    return cdch_run_add_consumer_config(r, spec, NULL, err);
}

int cdch_run_add_consumer_config(cdch_run *r, const char *spec, const char *config, cdch_err *err)
{
    char fam[256];
    const char *at = strchr(spec, '@');
    size_t fl = at ? (size_t)(at - spec) : strlen(spec);
    if (fl == 0 || fl >= sizeof fam)
        return cdch_err_set(err, "bad --consumer '%s' (FAMILY, FAMILY@VERSION or FAMILY@file:PATH)", spec);
    memcpy(fam, spec, fl);
    fam[fl] = '\0';
    char cfg[PATH_MAX];
    if (config) {
        struct stat st;
        if (!realpath(config, cfg) || stat(cfg, &st) != 0 || !S_ISREG(st.st_mode))
            return cdch_err_set(err, "%s: configuration file '%s': %s", spec, config,
                                errno ? strerror(errno) : "not a regular file");
        if (access(cfg, R_OK) != 0)
            return cdch_err_set(err, "%s: configuration file '%s': %s", spec, config, strerror(errno));
    }
    cdch_manifest *m = get_manifest(r, fam, err);
    if (!m)
        return -1;
    if (!at || !at[1]) {
        for (size_t i = 0; i < m->nversions; i++)
            if (!m->versions[i].named_only) /* run only when named FAMILY@VERSION (manifest.h) */
                add_consumer(r, m, &m->versions[i], NULL, config ? cfg : NULL);
        return 0;
    }
    cdch_err perr;
    const cdch_manifest_version *v = cdch_manifest_find_version(m, at + 1, &perr);
    if (v) {
        add_consumer(r, m, v, NULL, config ? cfg : NULL);
        return 0;
    }
    /* not pinned: a version the registry may serve, or the user's own build (installed by the same
     * setup; its expectation is predicted from known_issues, predict.h). A family that installs
     * nothing (no setup) has only its pinned versions. */
    if (m->nsetup == 0)
        return cdch_err_set(err, "%s; %s installs nothing (no 'setup' in its manifest), so only its pinned versions "
                                 "run", perr.msg, m->family);
    cdch_manifest_version *own = cdch_manifest_unpinned(m, at + 1, err);
    if (!own)
        return -1;
    add_consumer(r, m, own, own, config ? cfg : NULL);
    return 0;
}

int cdch_run_add_command(cdch_run *r, const char *name, const char *command, const char *cwd, bool files,
                         cdch_err *err)
{
    char defname[80];
    if (!name) {
        cdch_command_default_name(command ? command : "", defname, sizeof defname);
        name = defname;
    }
    for (size_t i = 0; i < r->nmanifests; i++)
        if (strcmp(r->manifests[i]->family, name) == 0)
            return cdch_err_set(err, "command consumer '%s': the name is taken by another consumer of this run; "
                                     "give it another (`name:` in a matrix file)", name);
    cdch_manifest *m = cdch_command_manifest(name, command, cwd, files, err);
    if (!m)
        return -1;
    r->manifests = xrealloc(r->manifests, (r->nmanifests + 1) * sizeof *r->manifests);
    r->manifests[r->nmanifests++] = m;
    add_consumer(r, m, &m->versions[0], NULL, NULL);
    consumer *c = &r->consumers[r->nconsumers - 1];
    c->command = true;
    c->setup = SETUP_DONE; /* nothing to install: the user's program runs as it is */
    snprintf(c->cache, sizeof c->cache, "%s", m->dir);
    return 0;
}

int cdch_run_add_scenario(cdch_run *r, const char *path, cdch_err *err)
{
    cdch_scenario *s = cdch_scenario_load(path, err);
    if (!s)
        return -1;
    r->scens = xrealloc(r->scens, (r->nscens + 1) * sizeof *r->scens);
    scen *sc = &r->scens[r->nscens++];
    memset(sc, 0, sizeof *sc);
    sc->s = s;
    char abs[PATH_MAX];
    sc->path = xstrdup(realpath(path, abs) ? abs : path);
    sc->run_path = xstrdup(sc->path);
    sc->schema = cdch_diff_schema_from_scenario(s);
    cdch_buf b = CDCH_BUF_INIT;
    for (size_t i = 0; i < s->ndbs; i++)
        cdch_buf_printf(&b, "%s%s", b.len ? "," : "", s->dbs[i].name);
    for (size_t i = 0; i < s->ntables; i++) {
        bool seen = false;
        for (size_t k = 0; k < s->ndbs && !seen; k++)
            seen = strcmp(s->dbs[k].name, s->tables[i].db) == 0;
        for (size_t k = 0; k < i && !seen; k++)
            seen = strcmp(s->tables[k].db, s->tables[i].db) == 0;
        if (!seen)
            cdch_buf_printf(&b, "%s%s", b.len ? "," : "", s->tables[i].db);
    }
    sc->databases = xstrdup(cdch_buf_cstr(&b));
    cdch_buf_free(&b);
    return 0;
}

int cdch_run_set_mode(cdch_run *r, const char *mode, cdch_err *err)
{
    if (strcmp(mode, "both") && strcmp(mode, "compressed") && strcmp(mode, "uncompressed") && strcmp(mode, "flip"))
        return cdch_err_set(err, "unknown mode '%s' (both, compressed, uncompressed or flip)", mode);
    free(r->mode);
    r->mode = xstrdup(mode);
    return 0;
}

double cdch_run_progress(const cdch_run *r, double *done)
{
    double all = 0, got = 0, now = run_now_s();
    for (size_t i = 0; r->estimate && i < r->ncells; i++) {
        all += r->estimate[i];
        if (r->finished[i])
            got += r->estimate[i];
        else if (r->started[i] > 0) /* running: the part its time so far covers, never more than all of it */
            got += now - r->started[i] < r->estimate[i] ? now - r->started[i] : r->estimate[i];
    }
    *done = got;
    return all;
}

size_t cdch_run_ncells(const cdch_run *r) { return r->ncells; }
cdch_cell *cdch_run_cell(cdch_run *r, size_t i) { return i < r->ncells ? &r->cells[i] : NULL; }

bool cdch_cell_match_consumer(const char *pat, const cdch_cell *c)
{
    if (strcmp(pat, "*") == 0)
        return true;
    const char *at = strchr(pat, '@');
    size_t fl = strlen(c->family);
    if (!at)
        return strcmp(pat, c->family) == 0;
    return (size_t)(at - pat) == fl && strncmp(pat, c->family, fl) == 0 && strcmp(at + 1, c->version) == 0;
}

bool cdch_cell_match_scenario(const char *pat, const cdch_cell *c)
{
    if (strcmp(pat, "*") == 0 || strcmp(pat, c->scenario) == 0)
        return true;
    const char *base = strrchr(c->scenario_path, '/');
    base = base ? base + 1 : c->scenario_path;
    size_t n = strlen(base);
    if (n > 5 && strcmp(base + n - 5, ".yaml") == 0)
        n -= 5;
    return strlen(pat) == n && strncmp(pat, base, n) == 0;
}

const char *cdch_run_cell_expected_path(cdch_run *r, const cdch_cell *c)
{
    for (size_t i = 0; i < r->nstreams; i++) {
        stream *st = &r->streams[i];
        if (st->scen == c->scenario_idx && strcmp(st->mode, c->mode) == 0 && st->attach == c->attach && st->dir &&
            !st->error) {
            if (!st->expected_path)
                st->expected_path = run_xprintf("%s/expected.jsonl", st->dir);
            return st->expected_path;
        }
    }
    return NULL;
}

const cdch_manifest *cdch_run_cell_manifest(const cdch_run *r, const cdch_cell *c)
{
    return c->consumer_idx < r->nconsumers ? r->consumers[c->consumer_idx].m : NULL;
}

const cdch_manifest_version *cdch_run_cell_version(const cdch_run *r, const cdch_cell *c)
{
    return c->consumer_idx < r->nconsumers ? r->consumers[c->consumer_idx].v : NULL;
}

/* ---- planning ---------------------------------------------------------------------- */

static size_t scenario_modes(const cdch_run *r, const cdch_scenario *s, const char *modes[3])
{
    if (strcmp(r->mode, "both") != 0) {
        modes[0] = strcmp(r->mode, "compressed") == 0 ? "compressed"
                   : strcmp(r->mode, "uncompressed") == 0 ? "uncompressed"
                                                          : "flip";
        return 1;
    }
    switch (s->binlog.compression) {
    case CDCH_COMPRESSION_ON: modes[0] = "compressed"; return 1;
    case CDCH_COMPRESSION_OFF: modes[0] = "uncompressed"; return 1;
    case CDCH_COMPRESSION_FLIP: modes[0] = "flip"; return 1;
    default:
        modes[0] = "uncompressed";
        modes[1] = "compressed";
        return 2;
    }
}

size_t run_stream_for(cdch_run *r, size_t sc, const char *mode, bool attach)
{
    for (size_t i = 0; i < r->nstreams; i++)
        if (r->streams[i].scen == sc && strcmp(r->streams[i].mode, mode) == 0 && r->streams[i].attach == attach)
            return i;
    r->streams = xrealloc(r->streams, (r->nstreams + 1) * sizeof *r->streams);
    stream *st = &r->streams[r->nstreams++];
    memset(st, 0, sizeof *st);
    st->scen = sc;
    st->mode = mode;
    st->attach = attach;
    return r->nstreams - 1;
}

int cdch_start_mode_parse(const char *s, cdch_start_mode *out)
{
    static const char *const names[] = {"auto", "attach", "empty"};
    for (int i = 0; i < 3; i++)
        if (strcmp(s, names[i]) == 0) {
            *out = (cdch_start_mode)i;
            return 0;
        }
    return -1;
}

/* Whether consumer c attaches on scenario s (cdch_start_mode): a scenario's
 * own skip_txns start wins; then --start; then the scenario's or the
 * manifest's `start: attach`. */
static bool cell_attaches(const cdch_run *r, const consumer *c, const cdch_scenario *s)
{
    if (s->start_skip_txns)
        return false;
    if (r->o.start != CDCH_START_AUTO)
        return r->o.start == CDCH_START_ATTACH;
    return s->start_attach || cdch_manifest_start_attach(c->m, c->v);
}

static void plan_all(cdch_run *r)
{
    for (size_t c = 0; c < r->nconsumers; c++) {
        for (size_t s = 0; s < r->nscens; s++) {
            const char *modes[3];
            size_t nm = scenario_modes(r, r->scens[s].s, modes);
            /* the differential oracle judges a compressed or flip cell against the consumer's own
             * uncompressed run of the scenario (oracle.h): that cell is planned too */
            if ((r->consumers[c].command || r->o.oracle != CDCH_ORACLE_CANONICAL) &&
                strcmp(modes[0], "uncompressed") != 0 && (nm < 2 || strcmp(modes[1], "uncompressed") != 0)) {
                for (size_t k = nm; k > 0; k--)
                    modes[k] = modes[k - 1];
                modes[0] = "uncompressed";
                nm++;
            }
            for (size_t m = 0; m < nm; m++) {
                r->cells = xrealloc(r->cells, (r->ncells + 1) * sizeof *r->cells);
                cdch_cell *cell = &r->cells[r->ncells];
                memset(cell, 0, sizeof *cell);
                cell->family = r->consumers[c].m->family;
                cell->version = r->consumers[c].v->version;
                cell->config = r->consumers[c].config;
                cell->unpinned = r->consumers[c].v->unpinned;
                cell->local_path = r->consumers[c].v->local_path;
                cell->local_version = r->consumers[c].local_version;
                cell->local_fp = r->consumers[c].local_fp;
                cell->scenario = r->scens[s].s->name;
                cell->scenario_path = r->scens[s].path;
                cell->mode = modes[m];
                cell->consumer_idx = c;
                cell->scenario_idx = s;
                cell->exit_status = -1;
                cell->cpu_seconds = -1;
                cell->attach = cell_attaches(r, &r->consumers[c], r->scens[s].s);
                cell->command = r->consumers[c].command;
                cell->oracle = cell->command ? CDCH_ORACLE_DIFFERENTIAL : r->o.oracle;
                cell->verdict = CDCH_VERDICT_HARNESS_ERROR;
                cell->expected = CDCH_VERDICT_PASS;
                if (r->o.keep && !r->o.keep(r->o.keep_ud, cell))
                    continue;
                cell->index = r->ncells++;
            }
        }
    }
}

void cdch_run_plan(cdch_run *r, size_t *total)
{
    if (!r->planned) {
        r->planned = true;
        plan_all(r);
        r->planned_total = r->ncells;
        if (r->o.shard_n > 0 && r->o.shard_k >= 1 && r->o.shard_k <= r->o.shard_n) {
            /* contiguous blocks: a shard sets up only its consumers and keeps session adapters warm */
            size_t n = r->ncells, lo = n * (r->o.shard_k - 1) / r->o.shard_n, hi = n * r->o.shard_k / r->o.shard_n;
            memmove(r->cells, r->cells + lo, (hi - lo) * sizeof *r->cells);
            r->ncells = hi - lo;
        }
        for (size_t i = 0; i < r->ncells; i++) {
            r->consumers[r->cells[i].consumer_idx].used = true;
            run_stream_for(r, r->cells[i].scenario_idx, r->cells[i].mode, r->cells[i].attach);
        }
    }
    if (total)
        *total = r->planned_total;
}

/* Replace each scenario that runs by its watermarked copy (watermark.h). A
 * scenario that cannot take one (no tables, no CREATE TABLE in its stream,
 * a table of that name) runs as it is, and its cells stop on idleness. */
/* start: {skip_txns: N}: consumers start right after the N-th transaction
 * that changes rows (by file:position, and by GTID set when the stream has
 * GTIDs); the changes up to there are dropped from what they must emit. */
static void start_after(stream *st, uint64_t t_end);

static int set_start(stream *st, const cdch_scenario *s)
{
    uint64_t n = 0, last = 0, t_end = 0;
    const char *gtid_at = NULL;
    for (size_t i = 0; i < st->expected->n && n <= s->start_skip_txns; i++) {
        const cdch_change *e = &st->expected->items[i];
        if (e->txn == last)
            continue;
        last = e->txn;
        if (++n == s->start_skip_txns) {
            t_end = e->txn;
            gtid_at = e->gtid;
        }
    }
    const cdch_txn_loc *loc = t_end ? cdch_stream_index_txn(&st->idx, t_end) : NULL;
    if (!loc) {
        st->error = run_xprintf("%s: start.skip_txns is %llu but the %s stream has %llu transaction(s) with row changes",
                            s->name, (unsigned long long)s->start_skip_txns, st->mode, (unsigned long long)n);
        return -1;
    }
    st->start_file = xstrdup(loc->file);
    st->start_pos = loc->end;
    if (s->server.gtid_mode) { /* every GTID before the start point, tagged ones (uuid:tag:N) included */
        cdch_err gerr;
        char *set = NULL;
        if (cdch_stream_gtids_before((const char *const *)st->idx.paths, st->idx.nfiles, loc->file, loc->end, &set,
                                     &gerr) != 0) {
            st->error = run_xprintf("%s: start.skip_txns: cannot read the GTID set before %s:%llu: %s", s->name,
                                loc->file, (unsigned long long)loc->end, gerr.msg);
            return -1;
        }
        if (!gtid_at || !*set) {
            st->error = run_xprintf("%s: start.skip_txns: transaction %llu has no GTID in a gtid_mode=on stream", s->name,
                                (unsigned long long)t_end);
            free(set);
            return -1;
        }
        st->gtid_set = set;
    }
    start_after(st, t_end);
    return 0;
}

/* The consumer starts at st->start_file:start_pos, after transaction t_end:
 * drop the changes up to it from what it must emit, and count what the
 * primary sends from there on (its fake ROTATE and the FORMAT_DESCRIPTION,
 * then every event after the start): "the whole stream was delivered" is
 * judged against this. */
static void start_after(stream *st, uint64_t t_end)
{
    size_t k = 0;
    for (size_t i = 0; i < st->expected->n; i++)
        if (st->expected->items[i].txn > t_end)
            st->expected->items[k++] = st->expected->items[i];
    st->expected->n = k;
    uint64_t events = 2;
    for (size_t f = 0; f < st->idx.nfiles; f++) {
        int c = strcmp(st->idx.files[f], st->start_file);
        if (c < 0)
            continue;
        cdch_err err;
        cdch_reader *rd = cdch_reader_open(st->idx.paths[f], 0, &err);
        cdch_raw_event ev;
        while (rd && cdch_reader_next(rd, &ev, &err) == 1)
            events += c > 0 || ev.offset >= st->start_pos;
        cdch_reader_free(rd);
    }
    st->events = events;
}

/* Attach (cdch_start_mode): the consumer starts after the stream's schema
 * prefix (stream attach.h), by file:position and, when the stream has GTIDs,
 * by the GTID set executed up to there; a stream without a prefix (no
 * CREATE statements, create_tables: false) starts as it would anyway. */
static int set_attach(stream *st)
{
    cdch_err err;
    cdch_stream_attach a;
    if (cdch_stream_attach_point((const char *const *)st->idx.paths, st->idx.nfiles, &a, &err) != 0) {
        st->error = run_xprintf("attaching to the %s stream: %s", st->mode, err.msg);
        return -1;
    }
    st->attach_txns = a.txns;
    if (a.txns > 0) {
        st->start_file = xstrdup(a.file);
        st->start_pos = a.pos;
        st->gtid_set = a.gtid_set ? xstrdup(a.gtid_set) : NULL;
        start_after(st, a.txns);
    }
    cdch_stream_attach_free(&a);
    return 0;
}

/* A stream of the same scenario and mode already generated (one that only
 * starts elsewhere reads the same files). */
static const stream *twin_of(const cdch_run *r, const stream *st)
{
    for (const stream *o = r->streams; o < st; o++)
        if (o->scen == st->scen && strcmp(o->mode, st->mode) == 0 && o->dir && !o->error)
            return o;
    return NULL;
}

static void watermark_scenarios(cdch_run *r)
{
    for (size_t i = 0; i < r->nscens; i++) {
        scen *sc = &r->scens[i];
        cdch_scenario *s = sc->s;
        bool used = false;
        for (size_t k = 0; k < r->nstreams && !used; k++)
            used = r->streams[k].scen == i;
        if (!used || !r->o.watermark || s->ntables == 0 || !s->binlog.create_tables)
            continue;
        const char *db = s->tables[0].db;
        if (cdch_scenario_table(s, db, CDCH_WATERMARK_TABLE))
            continue;
        const char *base = strrchr(sc->path, '/');
        base = base ? base + 1 : sc->path;
        char dir[PATH_MAX], file[PATH_MAX + 256];
        snprintf(dir, sizeof dir, "%s/scenarios/%zu", r->tmp, i);
        snprintf(file, sizeof file, "%s/%s", dir, base);
        cdch_err err;
        cdch_scenario *w = NULL;
        if (cdch_mkdirs(dir, &err) != 0 || cdch_watermark_write(sc->path, db, file, &err) != 0 ||
            !(w = cdch_scenario_load(file, &err))) {
            if (r->o.progress)
                fprintf(r->o.progress, "%s: no watermark (%s); its cells stop when the stream goes idle\n",
                        s->name, err.msg);
            continue;
        }
        sc->orig = s;
        sc->s = w;
        cdch_diff_schema_free(sc->schema);
        sc->schema = cdch_diff_schema_from_scenario(w);
        free(sc->run_path);
        sc->run_path = xstrdup(file);
        sc->wm_db = xstrdup(db);
    }
}

static void gen_streams(cdch_run *r)
{
    watermark_scenarios(r);
    for (size_t i = 0; i < r->nstreams; i++) {
        stream *st = &r->streams[i];
        const cdch_scenario *s = r->scens[st->scen].s;
        const stream *twin = twin_of(r, st);
        cdch_err err;
        cdch_stream_stats stats;
        if (twin) {
            st->dir = xstrdup(twin->dir);
            stats = twin->stats;
        } else {
            st->dir = run_xprintf("%s/streams/%zu-%s/%s", r->tmp, st->scen, s->name, st->mode);
            cdch_stream_mode m;
            cdch_stream_mode_parse(st->mode, &m);
            char parent[PATH_MAX];
            snprintf(parent, sizeof parent, "%s/streams/%zu-%s", r->tmp, st->scen, s->name);
            if (cdch_mkdirs(parent, &err) != 0 || cdch_stream_generate(s, m, st->dir, &stats, &err) != 0) {
                st->error = run_xprintf("generating the %s stream of %s failed: %s", st->mode, s->name, err.msg);
                continue;
            }
        }
        st->events = stats.events;
        st->stats = stats;
        char ep[PATH_MAX + 32];
        snprintf(ep, sizeof ep, "%s/expected.jsonl", st->dir);
        st->expected = cdch_changes_load(ep, &err);
        struct stat est;
        st->expected_bytes = stat(ep, &est) == 0 ? (uint64_t)est.st_size : 0;
        if (!st->expected) {
            st->error = run_xprintf("reading expected events: %s", err.msg);
            continue;
        }
        if (cdch_stream_index_load(st->dir, &st->idx, &err) != 0) {
            st->error = run_xprintf("indexing the %s stream of %s: %s", st->mode, s->name, err.msg);
            continue;
        }
        if (s->start_skip_txns && set_start(st, s) != 0)
            continue;
        if (st->attach && set_attach(st) != 0)
            continue;
        cdch_buf b = CDCH_BUF_INIT;
        for (size_t f = 0; f < st->idx.nfiles; f++)
            cdch_buf_printf(&b, "%s%s", f ? " " : "", st->idx.paths[f]);
        st->files = xstrdup(cdch_buf_cstr(&b));
        cdch_buf_free(&b);
    }
}

/* Install consumer versions (cached, setup.h): one, or with the family's
 * setup_batch every one in group[0..n) in one setup run; called without the
 * lock. */
static void setup_group(cdch_run *r, consumer **group, size_t n)
{
    cdch_setup_item *items = xcalloc(n, sizeof *items);
    for (size_t i = 0; i < n; i++)
        items[i].v = group[i]->v;
    char tmp_parent[sizeof r->tmp + 8];
    snprintf(tmp_parent, sizeof tmp_parent, "%s/tmp", r->tmp); /* made with the run directory (run_dir_make) */
    cdch_setup_ensure(group[0]->m, items, n, r->o.cache_root, r->tmp[0] ? tmp_parent : NULL, r->o.setup_timeout_s,
                      r->o.progress ? r->o.progress : r->o.setup_progress);
    for (size_t i = 0; i < n; i++) {
        snprintf(group[i]->cache, sizeof group[i]->cache, "%s", items[i].dir);
        snprintf(group[i]->local_fp, sizeof group[i]->local_fp, "%s", items[i].local_fp);
        snprintf(group[i]->local_version, sizeof group[i]->local_version, "%s", items[i].local_version);
        if (items[i].rc != 0)
            group[i]->setup_error = xstrdup(items[i].err.msg);
    }
    free(items);
}

static bool is_maven(const consumer *c) { return c->m->language && strcmp(c->m->language, "java") == 0; }

/* The two setup threads: installs the consumers the run needs, in plan order,
 * while the workers run the cells of those already installed (the first cells
 * start as soon as their consumer is ready). One thread takes the Maven setups
 * first, the other the rest first (pip, npm, go build); each takes the other
 * kind when its own is done. A family with setup_batch has every version it
 * still needs installed at once, by one setup run. Two Maven setups may run at once:
 * java-common/mvn.sh runs Maven 3.9 with per-artifact locks in the shared
 * local repository, and serializes the machine's own Maven when it falls back
 * to it (Maven 3.8's repository is not safe for two processes). */
typedef struct setup_arg {
    cdch_run *r;
    bool maven_first;
} setup_arg;

static void *setup_thread(void *arg)
{
    const setup_arg *sa = arg;
    cdch_run *r = sa->r;
    pthread_mutex_lock(&r->mu);
    for (;;) {
        consumer *next = NULL, *other = NULL;
        for (size_t i = 0; i < r->nconsumers && !next; i++) {
            consumer *c = &r->consumers[i];
            if (!c->used || c->setup != SETUP_PENDING)
                continue;
            if (is_maven(c) == sa->maven_first)
                next = c;
            else if (!other)
                other = c;
        }
        if (!next)
            next = other;
        if (!next)
            break;
        /* setup_batch: every version of the family this run still needs, in one setup run */
        size_t n = 0;
        consumer **group = xcalloc(r->nconsumers, sizeof *group);
        for (size_t i = 0; i < r->nconsumers; i++) {
            consumer *c = &r->consumers[i];
            if (c == next || (next->m->setup_batch && c->m == next->m && c->used && c->setup == SETUP_PENDING)) {
                c->setup = SETUP_RUNNING;
                group[n++] = c;
            }
        }
        cdch_admit_started(&r->admit, true); /* a cold setup is heavy work (admit.h); it never waits */
        pthread_mutex_unlock(&r->mu);
        setup_group(r, group, n);
        pthread_mutex_lock(&r->mu);
        cdch_admit_ended(&r->admit, true);
        for (size_t i = 0; i < n; i++)
            group[i]->setup = SETUP_DONE;
        free(group);
        pthread_cond_broadcast(&r->changed);
    }
    pthread_mutex_unlock(&r->mu);
    return NULL;
}

/* The two setup threads of a run. */
typedef struct setup_threads {
    pthread_t th[2];
    setup_arg args[2];
    size_t n;
} setup_threads;

/* Start the setup threads (or, when none can start, install everything now). */
static void setup_start(cdch_run *r, setup_threads *st)
{
    st->n = 0;
    for (size_t i = 0; i < 2; i++) {
        st->args[i] = (setup_arg){r, i == 0};
        if (pthread_create(&st->th[st->n], NULL, setup_thread, &st->args[i]) == 0)
            st->n++;
    }
    if (!st->n)
        setup_thread(&st->args[0]);
}

static void setup_join(setup_threads *st)
{
    for (size_t i = 0; i < st->n; i++)
        pthread_join(st->th[i], NULL);
}

/* The run directory (rundir.h) and its tmp/, where each adapter and each
 * setup run gets its private TMPDIR (proc.h private_tmp). */
static int run_dir_make(cdch_run *r, cdch_err *err)
{
    if (r->tmp[0])
        return 0;
    if (cdch_rundir_make(NULL, r->tmp, sizeof r->tmp, err) != 0)
        return -1;
    char children_tmp[sizeof r->tmp + 8];
    snprintf(children_tmp, sizeof children_tmp, "%s/tmp", r->tmp);
    if (mkdir(children_tmp, 0700) != 0)
        return cdch_err_set(err, "cannot create %s: %s", children_tmp, strerror(errno));
    return 0;
}

size_t cdch_run_install(cdch_run *r, void (*report)(void *ud, const char *family, const char *version,
                                                   const char *dir, const char *error),
                        void *ud)
{
    cdch_run_plan(r, NULL);
    cdch_err derr;
    FILE *say = r->o.progress ? r->o.progress : r->o.setup_progress;
    if (run_dir_make(r, &derr) != 0 && say) /* setups then inherit TMPDIR; they still run */
        fprintf(say, "warning: %s\n", derr.msg);
    setup_threads st;
    setup_start(r, &st);
    setup_join(&st);
    size_t failed = 0;
    for (size_t i = 0; i < r->nconsumers; i++) {
        const consumer *c = &r->consumers[i];
        if (!c->used)
            continue;
        failed += c->setup_error != NULL;
        if (report)
            report(ud, c->m->family, c->v->version, c->cache, c->setup_error);
    }
    return failed;
}

/* Expected seconds of each cell: its time in the previous report of the same
 * report directory when there is one (a matrix run again), else a guess from
 * the stream's size and whether the adapter starts per cell. The workers
 * take the longest first, so no long cell is left to the end alone. */
/* A family's CPU-seconds per byte of stream over the cells of an earlier
 * report (cells of at least 1 MB that measured their CPU); -1 when none. */
static double family_cpu_rate(const cdch_jv *cells, const char *family)
{
    double cpu = 0, bytes = 0;
    for (size_t k = 0; cells && cells->type == CDCH_JV_ARRAY && k < cells->u.arr.n; k++) {
        const cdch_jv *o = cells->u.arr.items[k];
        const cdch_jv *fa = cdch_jv_get(o, "family"), *cs = cdch_jv_get(o, "cpu_seconds"),
                      *sb = cdch_jv_get(o, "stream_bytes");
        if (!fa || !cs || !sb || fa->type != CDCH_JV_STRING || cs->type != CDCH_JV_NUMBER ||
            sb->type != CDCH_JV_NUMBER || strcmp(fa->u.str.ptr, family) != 0)
            continue;
        double c = atof(cs->raw), b = atof(sb->raw);
        if (c >= 0 && b >= 1e6) {
            cpu += c;
            bytes += b;
        }
    }
    return bytes > 0 ? cpu / bytes : -1;
}

static void estimate_cells(cdch_run *r)
{
    r->estimate = xcalloc(r->ncells ? r->ncells : 1, sizeof *r->estimate);
    r->heavy = xcalloc(r->ncells ? r->ncells : 1, sizeof *r->heavy);
    cdch_arena a = CDCH_ARENA_INIT;
    const cdch_jv *cells = NULL;
    char *text = NULL;
    if (r->report_dir) {
        char path[PATH_MAX + 16];
        snprintf(path, sizeof path, "%s/report.json", r->report_dir);
        size_t len;
        cdch_err err;
        cdch_jv *root;
        text = cdch_read_file(path, 0, &len, &err);
        if (text && cdch_jv_parse(text, len, &a, &root, &err) == 0)
            cells = cdch_jv_get(root, "cells");
    }
    for (size_t i = 0; i < r->ncells; i++) {
        const cdch_cell *c = &r->cells[i];
        const consumer *con = &r->consumers[c->consumer_idx];
        const stream *st = &r->streams[run_stream_for(r, c->scenario_idx, c->mode, c->attach)];
        double guess = (cdch_manifest_session(con->m, con->v) ? 0.5 : 1.5) + (double)st->stats.bytes / 8e6;
        /* a cell the manifest expects to hang ends at its timeout: started last, it would be the
         * run's tail alone (zongji 0.5.1 checksum-none: 90 s) */
        const char *ex = cdch_manifest_expect_for(con->m, con->v, c->scenario, c->mode);
        cdch_verdict ev, ev2;
        if (ex && cdch_verdict_parse_any(ex, &ev, &ev2) == 0 && (ev == CDCH_VERDICT_HANG || ev2 == CDCH_VERDICT_HANG))
            guess += r->o.timeout_s;
        r->estimate[i] = guess;
        double cpu = -1; /* its CPU-seconds, as far as an earlier report tells (admit.h) */
        for (size_t k = 0; cells && cells->type == CDCH_JV_ARRAY && k < cells->u.arr.n; k++) {
            const cdch_jv *o = cells->u.arr.items[k];
            const cdch_jv *fa = cdch_jv_get(o, "family"), *ve = cdch_jv_get(o, "version"),
                          *sc = cdch_jv_get(o, "scenario"), *mo = cdch_jv_get(o, "mode"), *se = cdch_jv_get(o, "seconds");
            if (fa && ve && sc && mo && se && fa->type == CDCH_JV_STRING && ve->type == CDCH_JV_STRING &&
                sc->type == CDCH_JV_STRING && mo->type == CDCH_JV_STRING && se->type == CDCH_JV_NUMBER &&
                strcmp(fa->u.str.ptr, c->family) == 0 && strcmp(ve->u.str.ptr, c->version) == 0 &&
                strcmp(sc->u.str.ptr, c->scenario) == 0 && strcmp(mo->u.str.ptr, c->mode) == 0) {
                r->estimate[i] = atof(se->raw);
                const cdch_jv *cs = cdch_jv_get(o, "cpu_seconds");
                if (cs && cs->type == CDCH_JV_NUMBER && atof(cs->raw) >= 0)
                    cpu = atof(cs->raw);
                break;
            }
        }
        if (cpu < 0 && st->stats.bytes >= ((uint64_t)1 << 20)) {
            double rate = family_cpu_rate(cells, c->family);
            if (rate >= 0)
                cpu = rate * (double)st->stats.bytes;
        }
        r->heavy[i] = cdch_admit_heavy(cpu, st->stats.bytes);
    }
    cdch_arena_free(&a);
    free(text);
}

/* The next cell for a worker (under r->mu): of the consumers installed so
 * far, the longest cell of a consumer with an idle session in the pool (it
 * is warm), else the longest of all; SIZE_MAX when every cell is taken.
 * A session-mode consumer's cell is taken with its session (session.h: lent
 * or a launch reserved). Waits while the only cells left wait for their
 * consumer's setup, for a core (admit.h) or for a session of their
 * consumer. */
static size_t take_cell(cdch_run *r, cdch_cell_hold *ws)
{
    for (;;) {
        size_t best = SIZE_MAX, best_own = SIZE_MAX;
        bool left = false;
        double backlog = cdch_backlog_total(&r->backlog);
        for (size_t i = 0; i < r->ncells; i++) {
            if (r->taken[i])
                continue;
            left = true;
            size_t ci = r->cells[i].consumer_idx;
            bool session = run_consumer_session(&r->consumers[ci]);
            if (r->consumers[ci].setup != SETUP_DONE || !cdch_admit_may_start(&r->admit, r->heavy[i]) ||
                !cdch_oracle_may_start(r->cells, r->ncells, r->finished, i) ||
                (session && !cdch_session_pool_may_run_for(
                                &r->sessions, ci,
                                cdch_backlog_sessions(&r->backlog, ci, backlog, r->sessions.total))))
                continue; /* not installed yet, heavy with every core taken by heavy work (admit.h), judged
                           * against its plain twin, which is not done, or its consumer has as many sessions
                           * as it may or as its cells left need, all busy (session.h, backlog.h) */
            if (best == SIZE_MAX || r->estimate[i] > r->estimate[best])
                best = i;
            if (session && cdch_session_pool_warm(&r->sessions, ci) &&
                (best_own == SIZE_MAX || r->estimate[i] > r->estimate[best_own]))
                best_own = i;
        }
        if (!left)
            return SIZE_MAX;
        size_t i = best_own != SIZE_MAX ? best_own : best;
        if (i != SIZE_MAX) {
            size_t ci = r->cells[i].consumer_idx;
            r->taken[i] = true;
            r->started[i] = run_now_s();
            r->untaken[ci]--;
            cdch_backlog_taken(&r->backlog, ci, r->estimate[i]);
            cdch_admit_started(&r->admit, r->heavy[i]);
            ws->in_session = ws->counted = run_consumer_session(&r->consumers[ci]);
            ws->consumer = ci;
            ws->s = ws->evict = NULL;
            if (ws->in_session)
                ws->s = cdch_session_pool_take(&r->sessions, ci, &ws->evict);
            return i;
        }
        pthread_cond_wait(&r->changed, &r->mu);
    }
}

static void *worker(void *arg)
{
    cdch_run *r = arg;
    cdch_cell_hold ws = {NULL, NULL, false, false, false, 0};
    for (;;) {
        pthread_mutex_lock(&r->mu);
        size_t i = take_cell(r, &ws);
        pthread_mutex_unlock(&r->mu);
        if (i == SIZE_MAX)
            break;
        for (cdch_session *s; ws.in_session;) { /* its consumer's last cell: its other idle sessions go */
            pthread_mutex_lock(&r->mu);
            s = r->untaken[ws.consumer] == 0 ? cdch_session_pool_pop(&r->sessions, ws.consumer) : NULL;
            pthread_mutex_unlock(&r->mu);
            if (!s)
                break;
            cdch_session_end(s);
        }
        cdch_cell_execute(r, i, &ws);
        pthread_mutex_lock(&r->mu);
        cdch_admit_ended(&r->admit, r->heavy[i]);
        r->finished[i] = true;
        if (!ws.in_session || !r->cells[i].launched) /* a launching cell's seconds are its launch's */
            cdch_backlog_seen(&r->backlog, r->cells[i].consumer_idx, r->estimate[i], r->cells[i].seconds);
        pthread_cond_broadcast(&r->changed); /* a heavy cell may start in its place, a differential cell
                                              * waiting for this plain one, or a consumer's cells left now
                                              * need another session (backlog.h) */
        r->done++;
        if (r->o.on_cell)
            r->o.on_cell(r->o.on_cell_ud, &r->cells[i], r->done, r->ncells);
        if (r->o.progress) {
            cdch_cell *c = &r->cells[i];
            fprintf(r->o.progress, "[%zu/%zu] %s@%s %s %s: %s (%.1f s)\n", r->done, r->ncells, c->family, c->version,
                    c->scenario, c->mode, cdch_verdict_name(c->verdict), c->seconds);
            fflush(r->o.progress);
        }
        pthread_mutex_unlock(&r->mu);
    }
    /* no cell left: end the idle sessions, each worker one at a time (they exit in parallel) */
    for (;;) {
        pthread_mutex_lock(&r->mu);
        cdch_session *s = cdch_session_pool_pop(&r->sessions, SIZE_MAX);
        pthread_mutex_unlock(&r->mu);
        if (!s)
            break;
        cdch_session_end(s);
    }
    return NULL;
}

/* compression-regression (verdict.h, cdch_verdict_regression): a compressed or
 * flip cell worse than the same consumer@version × scenario uncompressed. */
static void flag_regressions(cdch_run *r)
{
    for (size_t i = 0; i < r->ncells; i++) {
        cdch_cell *c = &r->cells[i];
        if (strcmp(c->mode, "uncompressed") == 0)
            continue;
        if (c->oracle_judged) { /* against its own plain run: a difference in both modes is not a regression */
            c->compression_regression =
                c->oracle_verdict != CDCH_VERDICT_PASS && c->oracle_verdict != CDCH_VERDICT_HARNESS_ERROR;
            continue;
        }
        for (size_t k = 0; k < r->ncells; k++) {
            cdch_cell *u = &r->cells[k];
            if (u->consumer_idx == c->consumer_idx && u->scenario_idx == c->scenario_idx &&
                strcmp(u->mode, "uncompressed") == 0 &&
                cdch_verdict_regression(c->verdict, c->classes, u->verdict, u->classes))
                c->compression_regression = true;
        }
    }
}

unsigned cdch_run_session_launches(const cdch_run *r) { return r->sessions.launches; }

int cdch_run_lock_report(cdch_run *r, cdch_err *err)
{
    if (!r->report_dir || r->report_lock != -1)
        return 0;
    int fd = cdch_reportlock_take(r->report_dir, err);
    if (fd == -1)
        return -1;
    r->report_lock = fd;
    return 0;
}

int cdch_run_execute(cdch_run *r, cdch_err *err)
{
    if (cdch_run_lock_report(r, err) != 0)
        return -1;
    if (run_dir_make(r, err) != 0)
        return -1;
    signal(SIGPIPE, SIG_IGN); /* a session adapter that died must not kill the harness through its stdin */
    cdch_run_plan(r, NULL);
    r->taken = xcalloc(r->ncells ? r->ncells : 1, sizeof *r->taken);
    r->finished = xcalloc(r->ncells ? r->ncells : 1, sizeof *r->finished);
    r->started = xcalloc(r->ncells ? r->ncells : 1, sizeof *r->started);
    for (size_t i = 0; i < r->ncells; i++)
        r->streams[run_stream_for(r, r->cells[i].scenario_idx, r->cells[i].mode, r->cells[i].attach)].cells_left++;
    /* consumers install (two at a time) while the streams are generated and the first cells run */
    setup_threads st;
    setup_start(r, &st);
    gen_streams(r);
    estimate_cells(r);
    size_t nthreads = (size_t)r->o.jobs;
    if (nthreads > r->ncells)
        nthreads = r->ncells ? r->ncells : 1;
    r->untaken = xcalloc(r->nconsumers ? r->nconsumers : 1, sizeof *r->untaken);
    cdch_backlog_init(&r->backlog, r->nconsumers);
    for (size_t i = 0; i < r->ncells; i++) {
        r->untaken[r->cells[i].consumer_idx]++;
        cdch_backlog_add(&r->backlog, r->cells[i].consumer_idx, r->estimate[i]);
    }
    cdch_session_pool_init(&r->sessions, r->nconsumers,
                           r->o.sessions ? r->o.sessions : cdch_session_default_per_consumer(0), r->o.sessions > 0,
                           (unsigned)nthreads);
    pthread_t *th = xcalloc(nthreads, sizeof *th);
    size_t started = 0;
    for (size_t i = 0; i < nthreads && nthreads > 1; i++)
        if (pthread_create(&th[i], NULL, worker, r) == 0)
            started++;
    if (!started)
        worker(r);
    for (size_t i = 0; i < started; i++)
        pthread_join(th[i], NULL);
    free(th);
    setup_join(&st);
    flag_regressions(r);
    if (r->o.keep_streams && r->o.progress)
        fprintf(r->o.progress, "streams kept in %s/streams\n", r->tmp);
    return 0;
}
