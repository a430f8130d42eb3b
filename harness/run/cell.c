/* cell.c — one cell's life; see cell.h. */
#include "cell.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "jsonstr.h"
#include "jvmarchive.h"
#include "oracle_cell.h"
#include "primary.h"
#include "proc.h"
#include "run_state.h"
#include "setup.h"
#include "waits.h"
#include "watermark.h"
#include "xalloc.h"

#define xcalloc cdch_xcalloc
#define xstrdup cdch_xstrdup

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
        io->first_line = run_now_s();
    io->last_activity = run_now_s();
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

/* A private temporary directory for one adapter process, under the run's
 * (proc.h private_tmp: removed with the process, and with the run's
 * directory at the latest). NULL and err when it cannot be made. */
static char *private_tmp(cdch_run *r, cdch_err *err)
{
    char *d = run_xprintf("%s/tmp/a-XXXXXX", r->tmp);
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
    out[1] = run_xprintf("-Djava.io.tmpdir=%s", dir);
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

/* Give the worker's session back to the pool, or end it when its process is
 * gone or its consumer has no cell left to take (the pool holds only warm
 * sessions that a cell may still use). */
static void session_release(cdch_run *r, cdch_cell_hold *ws)
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
static cdch_proc *session_begin(cdch_run *r, cdch_cell_hold *ws, size_t ci, char **argv, FILE *errlog, char *const *env,
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
        char *senv[6] = {run_xprintf("CDCH_SESSION=1"), run_xprintf("CDCH_CACHE=%s", con->cache),
                         run_xprintf("CDCH_VERSION=%s", con->v->version), run_xprintf("CDCH_BIN=%s", r->bin),
                         con->config ? run_xprintf("CDCH_CONFIG=%s", con->config) : NULL, NULL};
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
    cell->seconds = run_now_s() - t0;
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
        return run_xprintf("%s@%s", cell->family, cell->version);
    bool shared = false;
    for (size_t i = 0; i < r->nconsumers && !shared; i++) {
        const consumer *o = &r->consumers[i];
        shared = i != cell->consumer_idx && o->m == con->m && o->config &&
                 strcmp(o->v->version, con->v->version) == 0 &&
                 strcmp(base_name(o->config), base_name(con->config)) == 0;
    }
    if (shared)
        return run_xprintf("%s@%s,config%zu=%s", cell->family, cell->version, cell->consumer_idx,
                       base_name(con->config));
    return run_xprintf("%s@%s,config=%s", cell->family, cell->version, base_name(con->config));
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
        cell->cell_dir = run_xprintf("%s/cells/%s/%s/%s", r->o.report_dir, cdir, cell->scenario, cell->mode);
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
    c->state = run_xprintf("%s/state/%zu", r->tmp, c->ci);
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
        env[ne++] = run_xprintf("CDCH_HOST=127.0.0.1");
        env[ne++] = run_xprintf("CDCH_PORT=%u", (unsigned)cdch_primary_port(c->prim));
        env[ne++] = run_xprintf("CDCH_USER=%s", CDCH_PRIMARY_USER);
        env[ne++] = run_xprintf("CDCH_PASSWORD=%s", CDCH_PRIMARY_PASSWORD);
    } else {
        env[ne++] = run_xprintf("CDCH_BINLOG_DIR=%s", st->dir);
        env[ne++] = run_xprintf("CDCH_BINLOG_FILES=%s", st->files);
    }
    env[ne++] = run_xprintf("CDCH_SERVER_ID=%zu", 1000 + c->ci);
    env[ne++] = run_xprintf("CDCH_START_FILE=%s", st->start_file ? st->start_file : st->idx.nfiles ? st->idx.files[0] : "");
    env[ne++] = run_xprintf("CDCH_START_POS=%llu", (unsigned long long)(st->start_file ? st->start_pos : 4));
    if (st->gtid_set)
        env[ne++] = run_xprintf("CDCH_GTID_SET=%s", st->gtid_set);
    env[ne++] = run_xprintf("CDCH_DATABASES=%s", c->sc->databases);
    env[ne++] = run_xprintf("CDCH_STATE_DIR=%s", c->state);
    env[ne++] = run_xprintf("CDCH_CACHE=%s", c->con->cache);
    env[ne++] = run_xprintf("CDCH_VERSION=%s", c->con->v->version);
    env[ne++] = run_xprintf("CDCH_BIN=%s", c->r->bin);
    env[ne++] = run_xprintf("CDCH_SCENARIO=%s", c->sc->run_path);
    env[ne++] = run_xprintf("CDCH_MODE=%s", c->cell->mode);
    if (c->con->config)
        env[ne++] = run_xprintf("CDCH_CONFIG=%s", c->con->config);
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

static void start_adapter(cellrun *c, cdch_cell_hold *ws, cdch_err *err)
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
    c->io.last_activity = run_now_s();
    cdch_waits_view v = {c->p, c->prim, c->obs, c->st->expected, &c->st->idx, c->st->events, 0, 0, 0, false};
    while ((*running = cdch_proc_pump(c->p, 100, on_line, &c->io)) && !c->io.ended) {
        /* a program that is not an adapter prints no ready line: it is ready when its dump connection
         * streams (source files: at once; command.h) */
        if (c->io.command && !c->io.any_line && (!c->prim || cdch_primary_events_sent(c->prim) > 0)) {
            c->io.any_line = true;
            c->io.first_line = c->io.last_activity = run_now_s();
        }
        v.rows = rows_seen(c);
        v.last_line = c->io.last_activity;
        v.watermark_at = c->io.watermark_at;
        v.any_line = c->io.any_line;
        why = cdch_proc_flooded(c->p) ? CDCH_STOP_FLOOD : cdch_waits_check(w, &v, run_now_s());
        if (why != CDCH_STOP_NONE || cdch_proc_interrupted())
            break;
    }
    if (cdch_proc_flooded(c->p))
        why = CDCH_STOP_FLOOD; /* it may have died of the closed pipe */
    return why;
}

/* The adapter's end: it exited (or ended its cell) by itself, or the
 * harness stops it; record how, its stderr, and let go of it. */
static void end_adapter(cellrun *c, cdch_cell_hold *ws, const cdch_waits *w, cdch_stop_reason why, bool running)
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
    cell->wait_seconds = why == CDCH_STOP_EXITED ? 0 : run_now_s() - c->io.last_activity;
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
            cell->seconds = run_now_s() - c->t0;
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
    cell->seconds = run_now_s() - c->t0;
}

/* A cell judged pass against the expected events, with no warning: every row
 * it printed is an expected row, so its observed.jsonl (the spool of its
 * stdout) tells nothing expected.jsonl does not; over CDCH_OBSERVED_KEEP_BYTES
 * it goes (runner.h keep_observed keeps it). Every other cell keeps its file:
 * a verdict's evidence, the first difference's line (report_firstdiff.c). */
static void settle_observed(cellrun *c)
{
    cdch_cell *cell = c->cell;
    if (!cell->cell_dir)
        return;
    char path[PATH_MAX + 32];
    snprintf(path, sizeof path, "%s/observed.jsonl", cell->cell_dir);
    struct stat sb;
    if (stat(path, &sb) != 0)
        return;
    cell->observed_bytes = (uint64_t)sb.st_size;
    if (c->r->o.keep_observed || cell->oracle != CDCH_ORACLE_CANONICAL || cell->verdict != CDCH_VERDICT_PASS ||
        cell->nwarnings || cell->invalid_lines || cell->observed_bytes <= CDCH_OBSERVED_KEEP_BYTES)
        return;
    if (unlink(path) == 0) /* the spool's descriptor stays valid until cellrun_free closes it */
        cell->observed_dropped = true;
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

static void run_cell_steps(cdch_run *r, size_t ci, cdch_cell_hold *ws)
{
    cellrun c;
    memset(&c, 0, sizeof c);
    c.r = r;
    c.ci = ci;
    c.cell = &r->cells[ci];
    c.con = &r->consumers[c.cell->consumer_idx];
    c.sc = &r->scens[c.cell->scenario_idx];
    c.st = &r->streams[run_stream_for(r, c.cell->scenario_idx, c.cell->mode, c.cell->attach)];
    c.t0 = run_now_s();
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
        harness_msg = run_xprintf("adapter %s@%s: %s", cell->family, cell->version, err.msg);
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
            harness_msg = run_xprintf("the %s adapter cannot honour the configuration%s%s: %s", cell->family,
                                  c.con->config ? " " : "", c.con->config ? c.con->config : "",
                                  ctl->message[0] ? ctl->message : "(no message)");
    }
    if (!harness_msg && cdch_proc_interrupted() && c.oc.reason != CDCH_STOP_EXITED)
        harness_msg = run_xprintf("interrupted: the harness was stopped while the adapter ran");
    if (harness_msg) {
        set_error(cell, harness_msg, c.t0);
        free(harness_msg);
    } else {
        judge_cell(&c);
        settle_observed(&c);
    }
    cdch_rm_tree(c.state);
    cellrun_free(&c);
}

/* Run cell ci; then, when no other cell needs its stream's expected events,
 * free them (a matrix holds the expected lists of the streams still to be
 * run, not of all). */
void cdch_cell_execute(cdch_run *r, size_t ci, cdch_cell_hold *ws)
{
    run_cell_steps(r, ci, ws);
    cdch_session_end(ws->evict); /* the cell did not start its adapter: what it took goes back */
    ws->evict = NULL;
    session_release(r, ws);
    const cdch_cell *cell = &r->cells[ci];
    stream *st = &r->streams[run_stream_for(r, cell->scenario_idx, cell->mode, cell->attach)];
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
