/* runner.c — cells: setup, streams, adapter runs, diffs, verdicts. */
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

#include "waits.h"
#include "admit.h"
#include "backlog.h"
#include "attach.h"
#include "command.h"
#include "oracle_cell.h"
#include "events.h"
#include "gtid.h"
#include "jsonstr.h"
#include "primary.h"
#include "reader.h"
#include "proc.h"
#include "jvmarchive.h"
#include "reportlock.h"
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

static char *xprintf(const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 1, 2)))
#endif
    ;
static char *xprintf(const char *fmt, ...)
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

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* ---- the run ---------------------------------------------------------------------- */

typedef struct consumer {
    cdch_manifest *m; /* shared by the versions of a family (owned by run->manifests) */
    const cdch_manifest_version *v;
    cdch_manifest_version *own; /* v when the manifest does not pin it (cdch_manifest_unpinned), owned */
    char *config;     /* the user's configuration file (absolute), NULL: the adapter's defaults */
    char local_version[64]; /* local build: the library version its setup found ("" unknown) */
    char local_fp[24];      /* local build: fingerprint of its content */
    char cache[PATH_MAX];
    char *setup_error;
    enum { SETUP_PENDING, SETUP_RUNNING, SETUP_DONE } setup; /* under run->mu */
    bool used;        /* a cell of this run (shard) needs it */
    bool command;     /* a program, not an adapter (command.h): m is its own, nothing to set up */
} consumer;

typedef struct scen {
    cdch_scenario *s;    /* what runs: the watermarked copy when there is one */
    cdch_scenario *orig; /* as loaded from path (cells point at its name); NULL when s is it */
    char *path;
    char *run_path;      /* the file adapters get as CDCH_SCENARIO (the watermarked copy, or path) */
    char *wm_db;         /* the watermark table's database, NULL: no watermark */
    char *databases; /* comma-separated */
    cdch_diff_schema *schema;
} scen;

typedef struct stream {
    size_t scen;
    const char *mode;
    bool attach;     /* consumers attach after the schema prefix (cdch_cell.attach) */
    char *dir;
    char *error;
    cdch_change_list *expected; /* freed when its last cell is done (cells_left, under run->mu) */
    cdch_diff_expected *keys;   /* the expected rows' alignment keys, made by the first cell judged
                                 * (stream_keys), freed with expected */
    bool keys_making;           /* a cell is making them (under run->mu) */
    size_t cells_left;       /* cells of this run (shard) that still need it */
    uint64_t expected_bytes; /* size of expected.jsonl */
    cdch_stream_index idx;
    uint64_t events; /* top-level events in the files */
    cdch_stream_stats stats;
    char *expected_path; /* cdch_run_cell_expected_path's answer, made on demand */
    char *files;     /* absolute paths, space-separated */
    char *start_file;  /* scenario start: where consumers start (NULL: the first file, position 4) */
    uint64_t start_pos;
    char *gtid_set;    /* scenario start with gtid_mode on: the GTID set executed before it */
    uint64_t attach_txns; /* attach: transactions of the schema prefix the consumer starts after */
} stream;

struct cdch_run {
    cdch_run_opts o;
    char **dirs;
    char *report_dir;
    int report_lock; /* cdch_run_lock_report's descriptor; -1 none yet, -2 unlocked (no flock) */
    char *bin;
    char *cache_root;
    char *mode;
    cdch_manifest **manifests;
    size_t nmanifests;
    consumer *consumers;
    size_t nconsumers;
    scen *scens;
    size_t nscens;
    stream *streams;
    size_t nstreams;
    cdch_cell *cells;
    size_t ncells;
    char tmp[PATH_MAX];
    pthread_mutex_t mu;
    pthread_cond_t changed; /* a setup finished (under mu) */
    pthread_cond_t keys_made; /* a stream's expected keys were made (under mu) */
    size_t done;
    bool *taken;            /* per cell: a worker has it (under mu) */
    bool *finished;         /* per cell: run and judged (under mu; differential cells wait for their plain twin) */
    double *estimate;       /* per cell: expected seconds (longest first) */
    bool *heavy;            /* per cell: CPU-heavy (admit.h) */
    cdch_admit admit;       /* heavy cells and setups running (under mu) */
    cdch_session_pool sessions; /* session-mode adapters, shared by the workers (under mu) */
    size_t *untaken;        /* per consumer: cells no worker has taken yet (under mu) */
    cdch_backlog backlog;   /* per consumer: seconds of cells left, so sessions launched by need (under mu) */
    bool planned;
    size_t planned_total; /* before sharding */
};

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
                st->expected_path = xprintf("%s/expected.jsonl", st->dir);
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

static size_t stream_for(cdch_run *r, size_t sc, const char *mode, bool attach)
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
            stream_for(r, r->cells[i].scenario_idx, r->cells[i].mode, r->cells[i].attach);
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
        st->error = xprintf("%s: start.skip_txns is %llu but the %s stream has %llu transaction(s) with row changes",
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
            st->error = xprintf("%s: start.skip_txns: cannot read the GTID set before %s:%llu: %s", s->name,
                                loc->file, (unsigned long long)loc->end, gerr.msg);
            return -1;
        }
        if (!gtid_at || !*set) {
            st->error = xprintf("%s: start.skip_txns: transaction %llu has no GTID in a gtid_mode=on stream", s->name,
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
        st->error = xprintf("attaching to the %s stream: %s", st->mode, err.msg);
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
            st->dir = xprintf("%s/streams/%zu-%s/%s", r->tmp, st->scen, s->name, st->mode);
            cdch_stream_mode m;
            cdch_stream_mode_parse(st->mode, &m);
            char parent[PATH_MAX];
            snprintf(parent, sizeof parent, "%s/streams/%zu-%s", r->tmp, st->scen, s->name);
            if (cdch_mkdirs(parent, &err) != 0 || cdch_stream_generate(s, m, st->dir, &stats, &err) != 0) {
                st->error = xprintf("generating the %s stream of %s failed: %s", st->mode, s->name, err.msg);
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
            st->error = xprintf("reading expected events: %s", err.msg);
            continue;
        }
        if (cdch_stream_index_load(st->dir, &st->idx, &err) != 0) {
            st->error = xprintf("indexing the %s stream of %s: %s", st->mode, s->name, err.msg);
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
        const stream *st = &r->streams[stream_for(r, c->scenario_idx, c->mode, c->attach)];
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

/* ---- one cell ----------------------------------------------------------------------- */

typedef struct cellio {
    cdch_change_list *obs; /* spools every line to the cell's observed.jsonl (prepare_cell) */
    double last_activity;
    bool any_line;
    double first_line; /* time of the first stdout line (0: none yet) */
    const char *wm_db;   /* the watermark's database (NULL: none) */
    double watermark_at; /* when its row arrived (0: not yet) */
    /* session mode: the adapter's end-of-cell lines */
    const char *cell_id; /* NULL: one-shot */
    bool stopped, ended;
    int ended_status;
    /* the differential oracle (oracle.h): the rows, NULL when the cell is judged canonically only */
    cdch_oracle_lines *rows;
    const cdch_oracle_filter *filter;
    bool command;        /* every stdout line is a row (command.h), none is parsed as an event */
} cellio;

/* A session adapter's {"kind":"stopped"|"ended","cell":ID[,"status":N]}:
 * true when the line is one (for this cell or a stale one), consumed. */
static bool session_line(cellio *io, const char *line, size_t len)
{
    if (!io->cell_id || !strstr(line, "\"kind\"") || (!strstr(line, "\"stopped\"") && !strstr(line, "\"ended\"")))
        return false;
    cdch_arena a = CDCH_ARENA_INIT;
    cdch_jv *v;
    cdch_err err;
    bool is = false;
    if (cdch_jv_parse(line, len, &a, &v, &err) == 0) {
        const cdch_jv *k = cdch_jv_get(v, "kind"), *c = cdch_jv_get(v, "cell"), *st = cdch_jv_get(v, "status");
        if (k && k->type == CDCH_JV_STRING &&
            (strcmp(k->u.str.ptr, "stopped") == 0 || strcmp(k->u.str.ptr, "ended") == 0)) {
            is = true;
            if (c && c->type == CDCH_JV_STRING && strcmp(c->u.str.ptr, io->cell_id) == 0) {
                if (k->u.str.ptr[0] == 's') {
                    io->stopped = true;
                } else {
                    io->ended = true;
                    io->ended_status = st && st->type == CDCH_JV_NUMBER ? atoi(st->raw) : 1;
                }
            }
        }
    }
    cdch_arena_free(&a);
    return is;
}

static void on_line(void *ud, const char *line, size_t len)
{
    cellio *io = ud;
    if (session_line(io, line, len))
        return;
    io->any_line = true;
    if (io->first_line == 0)
        io->first_line = now_s();
    io->last_activity = now_s();
    if (io->command) { /* not an adapter: its lines are rows, spooled to observed.jsonl as printed */
        cdch_changes_add_line(io->obs, line, len, false, NULL); /* kept in observed.jsonl, not judged */
        cdch_oracle_lines_add(io->rows, io->filter, line, len, false);
        if (io->wm_db && !io->watermark_at && cdch_oracle_line_is_watermark(line, len))
            io->watermark_at = io->last_activity;
        return;
    }
    size_t before = io->obs->n;
    cdch_changes_add_line(io->obs, line, len, false, NULL);
    if (io->rows && io->obs->n > before)
        cdch_oracle_lines_add(io->rows, io->filter, line, len, true);
    if (io->wm_db && io->obs->n > before && !io->watermark_at) {
        const cdch_change *c = &io->obs->items[io->obs->n - 1];
        if (c->table && c->db && strcmp(c->table, CDCH_WATERMARK_TABLE) == 0 && strcmp(c->db, io->wm_db) == 0)
            io->watermark_at = io->last_activity;
    }
}

static bool got_ready(const cdch_change_list *l)
{
    for (size_t i = 0; i < l->nctl; i++)
        if (l->ctl[i].kind == CDCH_CTL_READY)
            return true;
    return false;
}

static char *subst_cache(const char *word, const char *cache)
{
    const char *p = strstr(word, "{cache}");
    if (!p)
        return xstrdup(word);
    cdch_buf b = CDCH_BUF_INIT;
    const char *s = word;
    while ((p = strstr(s, "{cache}")) != NULL) {
        cdch_put_bytes(&b, s, (size_t)(p - s));
        cdch_put_str(&b, cache);
        s = p + 7;
    }
    cdch_put_str(&b, s);
    char *out = xstrdup(cdch_buf_cstr(&b));
    cdch_buf_free(&b);
    return out;
}

/* ---- session-mode adapters (session.h: a pool the workers share) ------------------- */

/* A worker's hold on a session for the cell it runs (NULL between cells). */
typedef struct wstate {
    cdch_session *s;      /* borrowed from r->sessions (NULL: launch one, the pool counted it) */
    cdch_session *evict;  /* an idle session to end to make room, outside the lock */
    bool in_session;      /* the cell taken is a session-mode consumer's */
    bool counted;         /* the pool counts a session for this worker (s, or a launch reserved) */
    bool launched;        /* the cell's session was launched for it */
    size_t consumer;      /* the cell's consumer */
} wstate;

/* A private temporary directory for one adapter process, under the run's
 * (proc.h private_tmp: removed with the process, and with the run's
 * directory at the latest). NULL and err when it cannot be made. */
static char *private_tmp(cdch_run *r, cdch_err *err)
{
    char *d = xprintf("%s/tmp/a-XXXXXX", r->tmp);
    if (!mkdtemp(d)) {
        int e = errno;
        cdch_err_set(err, "cannot create a temporary directory %s for the adapter: %s", d, strerror(e));
        free(d);
        return NULL;
    }
    return d;
}

/* For a JVM launched as `java ...` (argv[0]'s name): a copy of argv with
 * -Djava.io.tmpdir=<dir> after the launcher (a JVM does not read TMPDIR).
 * NULL for any other program. Free with java_tmp_argv_free. */
static char **java_tmp_argv(char *const *argv, const char *dir)
{
    if (!argv || !argv[0])
        return NULL; /* cdch_proc_spawn says "empty command" */
    const char *slash = strrchr(argv[0], '/');
    if (strcmp(slash ? slash + 1 : argv[0], "java") != 0)
        return NULL;
    size_t n = 0;
    while (argv[n])
        n++;
    char **out = xcalloc(n + 2, sizeof *out);
    out[0] = argv[0];
    out[1] = xprintf("-Djava.io.tmpdir=%s", dir);
    for (size_t i = 1; i <= n; i++)
        out[i + 1] = argv[i];
    return out;
}

static void java_tmp_argv_free(char **argv)
{
    if (argv)
        free(argv[1]);
    free(argv);
}

/* One adapter launch: its private temporary directory and the argv it runs
 * (-Djava.io.tmpdir for a java launch; the class-data archive's options
 * when the manifest asks, jvmarchive.h). Shared by session and one-shot
 * launches. */
typedef struct launch {
    char *tmp;         /* the private directory (proc.h private_tmp) */
    char **targv;      /* argv with -Djava.io.tmpdir, or NULL */
    char **jargv;      /* with the archive's options too, or NULL */
    char *const *argv; /* what to run: one of the above, or the caller's */
} launch;

/* -1 and err when the directory cannot be made; launch_done in every case. */
static int launch_prepare(cdch_run *r, const consumer *con, char *const *argv, bool may_write_archive,
                          cdch_jvm_archive *jsa, launch *l, cdch_err *err)
{
    memset(l, 0, sizeof *l);
    l->argv = argv;
    if (!(l->tmp = private_tmp(r, err)))
        return -1;
    if ((l->targv = java_tmp_argv(argv, l->tmp)))
        l->argv = l->targv;
    if (con->m->class_archive && (l->jargv = cdch_jvm_archive_argv(l->argv, con->cache, may_write_archive, jsa)))
        l->argv = l->jargv;
    return 0;
}

/* After the spawn: the argv copies go, and the directory when nothing was
 * spawned (a process removes its own when it is freed). */
static void launch_done(launch *l, bool spawned)
{
    cdch_jvm_archive_argv_free(l->jargv);
    java_tmp_argv_free(l->targv);
    if (l->tmp && !spawned)
        cdch_rm_tree(l->tmp);
    free(l->tmp);
}

static bool consumer_session(const consumer *con) { return cdch_manifest_session(con->m, con->v); }

/* Give the worker's session back to the pool, or end it when its process is
 * gone or its consumer has no cell left to take (the pool holds only warm
 * sessions that a cell may still use). */
static void session_release(cdch_run *r, wstate *ws)
{
    cdch_session *s = ws->s, *end = NULL;
    ws->s = NULL;
    if (!ws->counted)
        return;
    ws->counted = false;
    pthread_mutex_lock(&r->mu);
    if (!s) {
        cdch_session_pool_gone(&r->sessions, ws->consumer); /* the launch reserved was not made */
    } else if (cdch_proc_exited(s->p) || r->untaken[s->consumer] == 0) {
        cdch_session_pool_gone(&r->sessions, s->consumer);
        end = s;
    } else {
        cdch_session_pool_give(&r->sessions, s);
    }
    pthread_cond_broadcast(&r->changed); /* a worker may be waiting for a session of this consumer */
    pthread_mutex_unlock(&r->mu);
    cdch_session_end(end);
}

/* The worker's session for consumer ci (the pool lent it, or reserved a
 * launch): launch one when none was lent or the lent one died while idle,
 * and send it the cell's start line. NULL and err on failure (the
 * reservation is given back). */
static cdch_proc *session_begin(cdch_run *r, wstate *ws, size_t ci, char **argv, FILE *errlog, char *const *env,
                                size_t ne, const char *cell_id, cdch_err *err)
{
    consumer *con = &r->consumers[ci];
    cdch_session_end(ws->evict);
    ws->evict = NULL;
    if (ws->s && !cdch_proc_pump(ws->s->p, 0, NULL, NULL)) {
        cdch_session_end(ws->s); /* died while idle: its place in the pool goes to a fresh one */
        ws->s = NULL;
    }
    ws->launched = !ws->s;
    if (!ws->s) {
        char *senv[6] = {xprintf("CDCH_SESSION=1"), xprintf("CDCH_CACHE=%s", con->cache),
                         xprintf("CDCH_VERSION=%s", con->v->version), xprintf("CDCH_BIN=%s", r->bin),
                         con->config ? xprintf("CDCH_CONFIG=%s", con->config) : NULL, NULL};
        cdch_jvm_archive jsa = CDCH_JVM_ARCHIVE_INIT;
        launch l;
        if (launch_prepare(r, con, argv, true, &jsa, &l, err) == 0) {
            cdch_proc_opts po = {l.argv, con->m->dir, senv, NULL, true, l.tmp};
            ws->s = cdch_session_launch(&po, ci, &jsa, err);
        }
        launch_done(&l, ws->s != NULL);
        for (size_t i = 0; senv[i]; i++)
            free(senv[i]);
        if (ws->s) {
            pthread_mutex_lock(&r->mu);
            r->sessions.launches++;
            pthread_mutex_unlock(&r->mu);
        }
    }
    if (ws->s && cdch_session_start_cell(ws->s, cell_id, env, ne, errlog, err) == 0)
        return ws->s->p;
    cdch_session_end(ws->s);
    ws->s = NULL;
    session_release(r, ws); /* its place in the pool */
    return NULL;
}

static bool io_answered(void *ud)
{
    const cellio *io = ud;
    return io->stopped || io->ended;
}

static void set_error(cdch_cell *cell, const char *msg, double t0)
{
    cdch_outcome o;
    memset(&o, 0, sizeof o);
    o.harness_error = msg;
    o.exit_status = -1;
    cdch_judgement j;
    cdch_verdict_judge(NULL, NULL, &o, &j);
    cell->verdict = j.verdict;
    cell->classes = j.classes;
    cell->summary = xstrdup(j.summary);
    cell->detail = xstrdup(cdch_buf_cstr(&j.detail));
    cdch_judgement_free(&j);
    cell->seconds = now_s() - t0;
}

/* One cell's run, shared by run_cell's steps: prepare the directories, start
 * the primary, start the adapter, supervise it, end it, judge. */
typedef struct cellrun {
    cdch_run *r;
    size_t ci;
    cdch_cell *cell;
    consumer *con;
    scen *sc;
    stream *st;
    double t0;
    FILE *errlog;        /* the cell directory's stderr.log (NULL: none); observed.jsonl is obs's spool */
    char *state;         /* the adapter's CDCH_STATE_DIR */
    cdch_primary *prim;  /* NULL: the consumer reads the files */
    char *env[32];
    size_t ne;
    char **argv;
    char cell_id[32];
    bool in_session;
    cdch_change_list *obs;
    cellio io;
    cdch_proc *p;
    uint64_t err_mark;   /* session mode: where this cell's stderr starts */
    double cpu0;         /* the adapter's CPU seconds when the cell began (a warm session's so far) */
    cdch_outcome oc;
} cellrun;

static void close_logs(cellrun *c)
{
    if (c->obs)
        (void)cdch_changes_flush(c->obs); /* observed.jsonl complete (a failed write kept the lines in memory) */
    if (c->errlog)
        fclose(c->errlog);
    c->errlog = NULL;
}

/* Where the observed lines' text goes: the cell's observed.jsonl (fd, or -1
 * when there is none), else a temporary file of the run (unlinked: it goes
 * with the list), else memory. */
static void spool_observed(cellrun *c, int fd, const char *path)
{
    char tmp[PATH_MAX + 32];
    if (fd < 0) {
        snprintf(tmp, sizeof tmp, "%s/observed-%zu.jsonl", c->r->tmp, c->ci);
        fd = open(tmp, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
        if (fd >= 0)
            unlink(tmp);
        path = tmp;
    }
    if (fd >= 0)
        cdch_changes_spool(c->obs, fd, path);
}

/* The last part of a path. */
static const char *base_name(const char *path)
{
    const char *b = strrchr(path, '/');
    return b ? b + 1 : path;
}

/* The consumer's part of its cells' directories (report_dir/cells/<it>/<scenario>/<mode>): family@version,
 * and for a consumer run with a configuration file ",config=<the file's name>" (",config<its index>=<the
 * file's name>" when another configured consumer of the same family@version has a file of that name).
 * Two consumers of a run never share a directory: a cell writes its observed.jsonl there and reads its
 * events back from it (the same consumer with and without a configuration, side by side in one matrix,
 * did: each cell truncated the other's file, and one read back a line the other had overwritten). */
static char *consumer_dir(const cdch_run *r, const cdch_cell *cell)
{
    const consumer *con = &r->consumers[cell->consumer_idx];
    if (!con->config)
        return xprintf("%s@%s", cell->family, cell->version);
    bool shared = false;
    for (size_t i = 0; i < r->nconsumers && !shared; i++) {
        const consumer *o = &r->consumers[i];
        shared = i != cell->consumer_idx && o->m == con->m && o->config &&
                 strcmp(o->v->version, con->v->version) == 0 &&
                 strcmp(base_name(o->config), base_name(con->config)) == 0;
    }
    if (shared)
        return xprintf("%s@%s,config%zu=%s", cell->family, cell->version, cell->consumer_idx,
                       base_name(con->config));
    return xprintf("%s@%s,config=%s", cell->family, cell->version, base_name(con->config));
}

/* The cell directory (logs, when there is a report directory) and the
 * state directory; then the primary unless the consumer reads the files. */
static int prepare_cell(cellrun *c, cdch_err *err)
{
    cdch_run *r = c->r;
    cdch_cell *cell = c->cell;
    int ofd = -1;
    char op[PATH_MAX + 32];
    if (r->o.report_dir) {
        char *cdir = consumer_dir(r, cell);
        cell->cell_dir = xprintf("%s/cells/%s/%s/%s", r->o.report_dir, cdir, cell->scenario, cell->mode);
        free(cdir);
        if (cdch_mkdirs(cell->cell_dir, err) == 0) {
            char p[PATH_MAX + 32];
            snprintf(op, sizeof op, "%s/observed.jsonl", cell->cell_dir);
            /* close-on-exec: other cells' adapters must not hold it; read back by the diff */
            ofd = open(op, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
            snprintf(p, sizeof p, "%s/stderr.log", cell->cell_dir);
            c->errlog = fopen(p, "we");
        }
    }
    spool_observed(c, ofd, ofd >= 0 ? op : NULL);
    c->state = xprintf("%s/state/%zu", r->tmp, c->ci);
    if (cdch_mkdirs(c->state, err) != 0)
        return -1;
    if (!cdch_manifest_files_source(c->con->m, c->con->v)) {
        /* hold_end_marker: the watermark transaction (the stream's last) waits for the consumer */
        const cdch_txn_loc *mark = NULL;
        if (c->sc->wm_db && c->st->idx.ntxn > 0 && cdch_manifest_hold_end_marker(c->con->m, c->con->v))
            mark = &c->st->idx.txn[c->st->idx.ntxn - 1];
        c->prim = cdch_primary_start_marked(c->sc->s, c->st->dir, cdch_manifest_native_auth(c->con->m, c->con->v),
                                            mark ? mark->file : NULL, mark ? mark->start : 0, err);
        if (!c->prim)
            return -1;
    }
    return 0;
}

/* The adapter's environment (consumers/README.md) and its command line. */
static void adapter_command(cellrun *c)
{
    const stream *st = c->st;
    char **env = c->env;
    size_t ne = 0;
    if (c->prim) {
        env[ne++] = xprintf("CDCH_HOST=127.0.0.1");
        env[ne++] = xprintf("CDCH_PORT=%u", (unsigned)cdch_primary_port(c->prim));
        env[ne++] = xprintf("CDCH_USER=%s", CDCH_PRIMARY_USER);
        env[ne++] = xprintf("CDCH_PASSWORD=%s", CDCH_PRIMARY_PASSWORD);
    } else {
        env[ne++] = xprintf("CDCH_BINLOG_DIR=%s", st->dir);
        env[ne++] = xprintf("CDCH_BINLOG_FILES=%s", st->files);
    }
    env[ne++] = xprintf("CDCH_SERVER_ID=%zu", 1000 + c->ci);
    env[ne++] = xprintf("CDCH_START_FILE=%s", st->start_file ? st->start_file : st->idx.nfiles ? st->idx.files[0] : "");
    env[ne++] = xprintf("CDCH_START_POS=%llu", (unsigned long long)(st->start_file ? st->start_pos : 4));
    if (st->gtid_set)
        env[ne++] = xprintf("CDCH_GTID_SET=%s", st->gtid_set);
    env[ne++] = xprintf("CDCH_DATABASES=%s", c->sc->databases);
    env[ne++] = xprintf("CDCH_STATE_DIR=%s", c->state);
    env[ne++] = xprintf("CDCH_CACHE=%s", c->con->cache);
    env[ne++] = xprintf("CDCH_VERSION=%s", c->con->v->version);
    env[ne++] = xprintf("CDCH_BIN=%s", c->r->bin);
    env[ne++] = xprintf("CDCH_SCENARIO=%s", c->sc->run_path);
    env[ne++] = xprintf("CDCH_MODE=%s", c->cell->mode);
    if (c->con->config)
        env[ne++] = xprintf("CDCH_CONFIG=%s", c->con->config);
    env[ne] = NULL;
    c->ne = ne;
    c->argv = xcalloc(c->con->m->nrun + 1, sizeof *c->argv);
    for (size_t i = 0; i < c->con->m->nrun; i++)
        c->argv[i] = subst_cache(c->con->m->run[i], c->con->cache);
}

/* Launch the adapter, or hand the cell to the worker's session adapter. */
/* How much stdout a cell's adapter may write: four times the expected events
 * (other spellings, checkpoints, log lines) and 8 MiB more. Past it the
 * output is a flood and the adapter is stopped: the harness's memory stays
 * bounded by the stream, whatever an adapter writes. */
static uint64_t stdout_limit(const stream *st) { return ((uint64_t)8 << 20) + 4 * st->expected_bytes; }

static void start_adapter(cellrun *c, wstate *ws, cdch_err *err)
{
    snprintf(c->cell_id, sizeof c->cell_id, "%zu", c->ci);
    c->in_session = cdch_manifest_session(c->con->m, c->con->v);
    cellio io = {c->obs, c->t0, false, 0, c->sc->wm_db, 0, c->in_session ? c->cell_id : NULL, false, false, 0,
                 NULL, c->r->o.filter, c->con->command};
    c->io = io;
    if (c->cell->oracle != CDCH_ORACLE_CANONICAL)
        c->io.rows = c->cell->rows = cdch_oracle_lines_new(); /* the cell's: its other modes compare with them */
    if (c->in_session) {
        c->p = session_begin(c->r, ws, c->cell->consumer_idx, c->argv, c->errlog, c->env, c->ne, c->cell_id, err);
        if (c->p)
            c->err_mark = ws->s->err_mark;
        c->cell->launched = ws->launched;
    } else {
        c->cell->launched = true;
        cdch_jvm_archive jsa; /* one launch a cell, stopped when the cell ends: it uses an archive, never writes one */
        launch l;
        c->p = NULL;
        if (launch_prepare(c->r, c->con, c->argv, false, &jsa, &l, err) == 0) {
            cdch_proc_opts po = {l.argv, c->con->m->dir, c->env, c->errlog, false, l.tmp};
            c->p = cdch_proc_spawn(&po, err);
        }
        launch_done(&l, c->p != NULL);
    }
    if (c->p) {
        cdch_proc_set_stdout_limit(c->p, stdout_limit(c->st));
        c->cpu0 = c->cell->launched ? 0 : cdch_proc_cpu_seconds(c->p);
    }
}

/* Rows the consumer emitted so far: change events, or a command's row lines. */
static size_t rows_seen(const cellrun *c) { return c->io.command ? c->io.rows->n : c->obs->n; }

/* Pump the adapter's output until it exits, ends its cell (session mode),
 * a stop condition holds or the harness is interrupted. *running: the
 * adapter was still running at the end. */
static cdch_stop_reason supervise(cellrun *c, cdch_waits *w, bool *running)
{
    cdch_stop_reason why = CDCH_STOP_NONE;
    c->io.last_activity = now_s();
    cdch_waits_view v = {c->p, c->prim, c->obs, c->st->expected, &c->st->idx, c->st->events, 0, 0, 0, false};
    while ((*running = cdch_proc_pump(c->p, 100, on_line, &c->io)) && !c->io.ended) {
        /* a program that is not an adapter prints no ready line: it is ready when its dump connection
         * streams (source files: at once; command.h) */
        if (c->io.command && !c->io.any_line && (!c->prim || cdch_primary_events_sent(c->prim) > 0)) {
            c->io.any_line = true;
            c->io.first_line = c->io.last_activity = now_s();
        }
        v.rows = rows_seen(c);
        v.last_line = c->io.last_activity;
        v.watermark_at = c->io.watermark_at;
        v.any_line = c->io.any_line;
        why = cdch_proc_flooded(c->p) ? CDCH_STOP_FLOOD : cdch_waits_check(w, &v, now_s());
        if (why != CDCH_STOP_NONE || cdch_proc_interrupted())
            break;
    }
    if (cdch_proc_flooded(c->p))
        why = CDCH_STOP_FLOOD; /* it may have died of the closed pipe */
    return why;
}

/* The adapter's end: it exited (or ended its cell) by itself, or the
 * harness stops it; record how, its stderr, and let go of it. */
static void end_adapter(cellrun *c, wstate *ws, const cdch_waits *w, cdch_stop_reason why, bool running)
{
    cdch_cell *cell = c->cell;
    cdch_outcome *oc = &c->oc;
    if (why == CDCH_STOP_FLOOD) {
        /* the harness stopped reading it: stop it (a session process with it, its stdout is gone) */
        if (!cdch_proc_exited(c->p))
            cdch_proc_stop(c->p, 2000, on_line, &c->io);
        cdch_proc_status(c->p, &oc->exit_status, &oc->exit_signal);
    } else if (c->in_session && c->io.ended) {
        /* the consumer ended by itself; the session process lives on */
        why = CDCH_STOP_EXITED;
        oc->exit_status = c->io.ended_status;
        oc->exit_signal = 0;
    } else if (!running || cdch_proc_exited(c->p)) {
        why = CDCH_STOP_EXITED;
        cdch_proc_status(c->p, &oc->exit_status, &oc->exit_signal);
    } else {
        size_t nctl = c->obs->nctl; /* control lines printed while being stopped do not count */
        if (c->in_session) {
            cell->stop_forced =
                !cdch_session_stop_cell(ws->s, c->cell_id, on_line, &c->io, io_answered, &cell->stop_seconds);
        } else {
            cdch_proc_stop(c->p, 5000, on_line, &c->io);
            cell->stop_forced = cdch_proc_stop_forced(c->p, &cell->stop_seconds);
            cdch_proc_status(c->p, &oc->exit_status, &oc->exit_signal);
        }
        c->obs->nctl = nctl;
    }
    oc->reason = why;
    oc->hang_how = why == CDCH_STOP_TIMEOUT && w->hang_how[0] ? w->hang_how : NULL; /* w outlives the judgement */
    cell->exit_status = oc->exit_status;
    cell->exit_signal = oc->exit_signal;
    if (why != CDCH_STOP_EXITED) {
        /* stopped by the harness: how it died is ours, not the consumer's */
        oc->exit_status = -1;
        oc->exit_signal = 0;
    }
    cell->stderr_tail =
        xstrdup(c->in_session ? cdch_proc_stderr_since(c->p, c->err_mark) : cdch_proc_stderr_tail(c->p));
    oc->stderr_tail = cell->stderr_tail;
    oc->stream_delivered = w->delivered;
    oc->got_ready = got_ready(c->obs) || (c->io.command && c->io.any_line);
    cell->startup_seconds = c->io.first_line > 0 ? c->io.first_line - c->t0 : -1;
    /* stopped by the harness: how long it waited (and stopped it) after the adapter's last line */
    cell->wait_seconds = why == CDCH_STOP_EXITED ? 0 : now_s() - c->io.last_activity;
    double cpu = cdch_proc_cpu_seconds(c->p);
    cell->cpu_seconds = cpu >= 0 && c->cpu0 >= 0 ? cpu - c->cpu0 : -1;
    if (c->in_session && cell->launched) { /* its launch cost at most its whole CPU (session.h) */
        pthread_mutex_lock(&c->r->mu);
        cdch_session_pool_launch_cost(&c->r->sessions, cell->consumer_idx, cell->cpu_seconds);
        pthread_mutex_unlock(&c->r->mu);
    }
    if (c->in_session) {
        cdch_proc_set_stderr_copy(c->p, NULL);
        session_release(c->r, ws); /* back to the pool, or ended when its process is gone */
    } else {
        cdch_proc_free(c->p);
    }
    c->p = NULL;
}

/* The alignment keys of the stream's expected rows (diff.h): made once, by
 * the first of its cells to be judged (the others wait for them), and
 * shared by every cell of the stream; they live as long as its expected
 * list (run_cell). The caller's cell keeps that list alive. */
static const cdch_diff_expected *stream_keys(cdch_run *r, stream *st, const cdch_diff_schema *schema)
{
    pthread_mutex_lock(&r->mu);
    while (st->keys_making)
        pthread_cond_wait(&r->keys_made, &r->mu);
    cdch_diff_expected *k = st->keys;
    if (!k)
        st->keys_making = true;
    pthread_mutex_unlock(&r->mu);
    if (k)
        return k;
    k = cdch_diff_expected_new(st->expected, schema); /* without the lock: a parse of every expected line */
    pthread_mutex_lock(&r->mu);
    st->keys = k;
    st->keys_making = false;
    pthread_cond_broadcast(&r->keys_made);
    pthread_mutex_unlock(&r->mu);
    return k;
}

/* The diff of what arrived against what was expected, and the verdict. */
static void judge_cell(cellrun *c)
{
    cdch_cell *cell = c->cell;
    if (cell->oracle != CDCH_ORACLE_CANONICAL) { /* against its own plain run (oracle_cell.h) */
        c->io.rows = NULL; /* the cell's, freed there once judged */
        cdch_oracle_judge_cell(c->r->cells, c->r->ncells, c->ci, c->st->expected, &c->st->idx,
                               cell->command ? NULL : c->obs, &c->oc);
        if (cell->oracle == CDCH_ORACLE_DIFFERENTIAL) {
            cell->seconds = now_s() - c->t0;
            return;
        }
    }
    const cdch_diff_expected *keys = stream_keys(c->r, c->st, c->sc->schema);
    cell->diff = cdch_diff_run_prepared(c->st->expected, keys, c->obs, c->sc->schema, &c->st->idx,
                                        cdch_manifest_representations(c->con->m, c->con->v));
    cdch_judgement j;
    cdch_verdict_judge(cell->diff, c->obs, &c->oc, &j);
    cell->verdict = j.verdict;
    cell->classes = j.classes;
    cell->summary = xstrdup(j.summary);
    cell->detail = xstrdup(cdch_buf_cstr(&j.detail));
    cell->nwarnings = j.nwarnings;
    cell->warnings = j.nwarnings ? xstrdup(cdch_buf_cstr(&j.warnings)) : NULL;
    cdch_judgement_free(&j);
    cell->seconds = now_s() - c->t0;
}

static void cellrun_free(cellrun *c)
{
    close_logs(c);
    cdch_changes_free(c->obs);
    for (size_t i = 0; i < c->ne; i++)
        free(c->env[i]);
    if (c->argv)
        for (size_t i = 0; i < c->con->m->nrun; i++)
            free(c->argv[i]);
    free(c->argv);
    free(c->state);
}

static void run_cell_steps(cdch_run *r, size_t ci, wstate *ws)
{
    cellrun c;
    memset(&c, 0, sizeof c);
    c.r = r;
    c.ci = ci;
    c.cell = &r->cells[ci];
    c.con = &r->consumers[c.cell->consumer_idx];
    c.sc = &r->scens[c.cell->scenario_idx];
    c.st = &r->streams[stream_for(r, c.cell->scenario_idx, c.cell->mode, c.cell->attach)];
    c.t0 = now_s();
    cdch_cell *cell = c.cell;
    const stream *st = c.st;
    cell->stream_bytes = st->stats.bytes;
    cell->stream_events = st->stats.events;
    cell->stream_transactions = st->stats.transactions;
    cell->stream_compressed_transactions = st->stats.compressed_transactions;
    const char *not_run = cdch_proc_interrupted() ? "not run: the harness was interrupted"
                          : c.con->setup_error    ? c.con->setup_error
                                                  : st->error;
    if (not_run) {
        set_error(cell, not_run, c.t0);
        return;
    }
    cell->expected_rows = st->expected->n;
    cdch_err err;
    c.obs = cdch_changes_new();
    if (prepare_cell(&c, &err) != 0) {
        set_error(cell, err.msg, c.t0);
        cellrun_free(&c); /* the state directory stays for the run's cleanup */
        return;
    }
    adapter_command(&c);
    start_adapter(&c, ws, &err);
    memset(&c.oc, 0, sizeof c.oc);
    c.oc.exit_status = -1;
    c.oc.files_source = cdch_manifest_files_source(c.con->m, c.con->v);
    c.oc.timeout_s = r->o.timeout_s;
    cdch_waits_cfg wc = {r->o.timeout_s, r->o.grace_s, r->o.hold_quiet_s, r->o.resume_wait_s,
                         c.con->m->startup_timeout, r->o.idle_after_stream_s, c.con->m->in_order};
    cdch_waits w;
    cdch_waits_init(&w, &wc, c.t0);
    char *harness_msg = NULL;
    if (!c.p) {
        harness_msg = xprintf("adapter %s@%s: %s", cell->family, cell->version, err.msg);
    } else {
        bool running;
        cdch_stop_reason why = supervise(&c, &w, &running);
        end_adapter(&c, ws, &w, why, running);
    }
    if (c.prim) {
        c.oc.harness_cut = cdch_primary_last_cut(c.prim, c.oc.cut_file, sizeof c.oc.cut_file, &c.oc.cut_pos);
        c.oc.cut_after_error = w.cut_after_error;
        c.oc.cut_nctl = w.cut_nctl;
    }
    cdch_primary_stop(c.prim);
    close_logs(&c);
    cell->stop = c.oc.reason;
    cell->got_ready = c.oc.got_ready;
    cell->observed_rows = c.obs->n;
    cell->invalid_lines = c.obs->invalid;
    snprintf(cell->first_invalid, sizeof cell->first_invalid, "%s", c.obs->invalid ? c.obs->first_invalid : "");
    cell->watermark_seen = c.io.watermark_at > 0;
    for (size_t i = 0; i < c.obs->nctl; i++) {
        const cdch_ctl *ctl = &c.obs->ctl[i];
        if (ctl->kind == CDCH_CTL_CONFIG && !cell->config_line)
            cell->config_line = xstrdup(ctl->message);
        else if (ctl->kind == CDCH_CTL_CONFIG_ERROR && !harness_msg)
            harness_msg = xprintf("the %s adapter cannot honour the configuration%s%s: %s", cell->family,
                                  c.con->config ? " " : "", c.con->config ? c.con->config : "",
                                  ctl->message[0] ? ctl->message : "(no message)");
    }
    if (!harness_msg && cdch_proc_interrupted() && c.oc.reason != CDCH_STOP_EXITED)
        harness_msg = xprintf("interrupted: the harness was stopped while the adapter ran");
    if (harness_msg) {
        set_error(cell, harness_msg, c.t0);
        free(harness_msg);
    } else {
        judge_cell(&c);
    }
    cdch_rm_tree(c.state);
    cellrun_free(&c);
}

/* Run cell ci; then, when no other cell needs its stream's expected events,
 * free them (a matrix holds the expected lists of the streams still to be
 * run, not of all). */
static void run_cell(cdch_run *r, size_t ci, wstate *ws)
{
    run_cell_steps(r, ci, ws);
    cdch_session_end(ws->evict); /* the cell did not start its adapter: what it took goes back */
    ws->evict = NULL;
    session_release(r, ws);
    const cdch_cell *cell = &r->cells[ci];
    stream *st = &r->streams[stream_for(r, cell->scenario_idx, cell->mode, cell->attach)];
    pthread_mutex_lock(&r->mu);
    cdch_change_list *done = st->cells_left && --st->cells_left == 0 ? st->expected : NULL;
    cdch_diff_expected *done_keys = NULL;
    if (done) {
        done_keys = st->keys;
        st->expected = NULL;
        st->keys = NULL;
    }
    pthread_mutex_unlock(&r->mu);
    cdch_diff_expected_free(done_keys);
    cdch_changes_free(done);
}

/* The next cell for a worker (under r->mu): of the consumers installed so
 * far, the longest cell of a consumer with an idle session in the pool (it
 * is warm), else the longest of all; SIZE_MAX when every cell is taken.
 * A session-mode consumer's cell is taken with its session (session.h: lent
 * or a launch reserved). Waits while the only cells left wait for their
 * consumer's setup, for a core (admit.h) or for a session of their
 * consumer. */
static size_t take_cell(cdch_run *r, wstate *ws)
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
            bool session = consumer_session(&r->consumers[ci]);
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
            r->untaken[ci]--;
            cdch_backlog_taken(&r->backlog, ci, r->estimate[i]);
            cdch_admit_started(&r->admit, r->heavy[i]);
            ws->in_session = ws->counted = consumer_session(&r->consumers[ci]);
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
    wstate ws = {NULL, NULL, false, false, false, 0};
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
        run_cell(r, i, &ws);
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
    for (size_t i = 0; i < r->ncells; i++)
        r->streams[stream_for(r, r->cells[i].scenario_idx, r->cells[i].mode, r->cells[i].attach)].cells_left++;
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
