/* cmd_matrix.c — `cdcharness matrix FILE`: the compatibility matrix of a
 * matrix file (harness/run/matrix.h), in parallel, sharded, gated on the
 * manifests' expectations, a baseline report, or the pre-flip question. */
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "buf.h"
#include "cli.h"
#include "expect.h"
#include "jsonstr.h"
#include "matrix.h"
#include "paths.h"
#include "proc.h"
#include "report.h"
#include "runner.h"
#include "setup.h"
#include "sys.h"
#include "xalloc.h"

enum { MATRIX_EXIT_REGRESSION = 1, MATRIX_EXIT_HARNESS = 2 };

static void matrix_usage(FILE *f)
{
    fprintf(f,
            "usage: cdcharness matrix [MATRIX.yaml] [--quick] [-j N] [--sessions N] [--shard K/N]\n"
            "                         [--baseline REPORT.json | --pre-flip] [--report-dir DIR] [--keep-observed]\n"
            "                         [--list | --setup-only] [--timeout S] [--consumers-dir DIR]\n"
            "                         [--quiet] [--start auto|attach|empty]\n"
            "                         [--consumer-cmd 'COMMAND ...' [--consumer-name N]] [--oracle O]\n"
            "                         [--ignore REGEX] [--normalize REGEX]\n"
            "\n"
            "Run a compatibility matrix: every consumer@version x scenario x mode the matrix\n"
            "file names (format in harness/run/matrix.h; without one, the bundled default\n"
            "matrix: ci/matrix.yaml of the source tree or of <prefix>/share/cdcharness), in\n"
            "parallel, each cell with its own fake primary on a free loopback port and its own\n"
            "state directory. Writes report.json, junit.xml, summary.md and report.html.\n"
            "\n"
            "  --quick            only the matrix's `quick` subset (for pull requests)\n"
            CLI_JOBS_HELP
            "  --shard K/N        run the K-th of N equal slices of the planned cells (CI\n"
            "                     machines; join with `cdcharness report merge`)\n"
            "  --baseline R       gate: fail only on cells worse than in report R (a previous\n"
            "                     matrix report); a consumer version R does not hold is held\n"
            "                     to the best row of another version of the same family\n"
            "                     (the connector-upgrade question)\n"
            "  --pre-flip         gate: for each consumer@version, is it safe to turn\n"
            "                     binlog_transaction_compression on? Safe when no compressed\n"
            "                     (or flip) cell is worse than the same scenario uncompressed;\n"
            "                     the evidence goes to preflip.md / preflip.json\n"
            "  (neither)          gate on the matrix's `expect` (default: the manifests')\n"
            "  --report-dir D     where the reports go (default reports/latest)\n"
            CLI_KEEP_OBSERVED_HELP
            "  --list             print the planned cells (after --quick/--shard) and exit\n"
            "  --setup-only       install every consumer version the planned cells need\n"
            "                     (into $CDCH_CACHE, default ~/.cache/cdcharness), run no\n"
            "                     cell and exit: 0 when all are installed, 2 when one is not\n"
            "                     (a CI step that warms the cache before the matrix runs)\n"
            "  --timeout S        per cell (default: the matrix's, else 60)\n"
            "  --consumers-dir D  where consumer families live (default: the matrix's\n"
            "                     consumers_dirs, else ./consumers or the source tree's)\n"
            CLI_START_HELP
            CLI_ORACLE_HELP
            CLI_CONFIG_HELP
            "  --quiet            no progress display\n"
            "\n"
            "Progress: a live status line on a terminal (done/total, failures so far, time\n"
            "left), one line per cell otherwise.\n"
            "exit status: 0 every cell met its gate, 1 a regression (a cell worse than its\n"
            "expectation or baseline, or a consumer not safe to flip), 2 a harness or setup\n"
            "error (bad matrix file, a consumer that could not be installed, a cell the\n"
            "harness could not run) or a usage error\n");
}

typedef struct mstate {
    const cdch_matrix *m;
    bool quick;
    size_t excluded;
    const cdch_expect *ex;
    cdch_run *run;
    bool tty, quiet;
    double t0;
    size_t failing;
    size_t total;
} mstate;

static double now_s(void) { return (double)cdch_now_ns() / 1e9; }

static bool keep_cell(void *ud, const cdch_cell *c)
{
    mstate *s = ud;
    if (s->quick && !cdch_matrix_quick(s->m, c))
        return false;
    if (cdch_matrix_excluded(s->m, c, NULL)) {
        s->excluded++;
        return false;
    }
    return true;
}

static void fmt_dur(double s, char *out, size_t n)
{
    long t = (long)(s + 0.5);
    if (t >= 3600)
        snprintf(out, n, "%ld:%02ld:%02ld", t / 3600, t / 60 % 60, t % 60);
    else
        snprintf(out, n, "%ld:%02ld", t / 60, t % 60);
}

static void on_cell(void *ud, cdch_cell *c, size_t done, size_t total)
{
    mstate *s = ud;
    bool meets = cdch_expect_cell(s->ex, s->run, c);
    if (!meets)
        s->failing++;
    if (s->quiet)
        return;
    double el = now_s() - s->t0;
    char els[32], left[32];
    fmt_dur(el, els, sizeof els);
    /* what is left, at the pace of the estimated work done so far (the longest cells run first: a
     * count of cells done said hours at the start of a run of minutes) */
    double work_done, work_all = cdch_run_progress(s->run, &work_done);
    double eta = work_done > 0 ? el * (work_all - work_done) / work_done
                 : done ? el / (double)done * (double)(total - done) : 0;
    fmt_dur(eta > 0 ? eta : 0, left, sizeof left);
    if (s->tty) {
        if (!meets)
            fprintf(stderr, "\r\033[KFAIL %s@%s %s %s: %s (expected %s) %s\n", c->family, c->version, c->scenario,
                    c->mode, cdch_verdict_name(c->verdict), cdch_verdict_name(c->expected),
                    c->summary ? c->summary : "");
        fprintf(stderr, "\r\033[K[%zu/%zu] %zu failing · %s elapsed · ~%s left · %s@%s %s %s: %s", done, total,
                s->failing, els, left, c->family, c->version, c->scenario, c->mode, cdch_verdict_name(c->verdict));
        if (done == total)
            fputc('\n', stderr);
    } else {
        fprintf(stderr, "[%zu/%zu] %s@%s %s %s: %s (%s, expected %s%s%s) %.1f s · %zu failing · ~%s left\n", done, total,
                c->family, c->version, c->scenario, c->mode, cdch_verdict_name(c->verdict), meets ? "ok" : "FAIL",
                cdch_verdict_name(c->expected), c->expected_racy ? "|" : "",
                c->expected_racy ? cdch_verdict_name(c->expected_other) : "", c->seconds, s->failing, left);
    }
    fflush(stderr);
}

static bool parse_shard(const char *s, unsigned *k, unsigned *n)
{
    char *end;
    long a = strtol(s, &end, 10);
    if (*end != '/')
        return false;
    long b = strtol(end + 1, &end, 10);
    if (*end || b < 1 || b > 10000 || a < 1 || a > b)
        return false;
    *k = (unsigned)a;
    *n = (unsigned)b;
    return true;
}

static void json_str(cdch_buf *b, const char *s) { cdch_put_json_str(b, s, strlen(s), 0); }

/* The report's top-level "matrix" object: equal across shards but for "shard". */
static char *matrix_json(const cdch_matrix *m, bool quick, unsigned k, unsigned n, size_t total, size_t excluded,
                         const char *gate)
{
    cdch_buf b = CDCH_BUF_INIT;
    cdch_put_str(&b, "{\"name\":");
    json_str(&b, m->name);
    cdch_put_str(&b, ",\"file\":");
    const char *base = strrchr(m->path, '/');
    json_str(&b, base ? base + 1 : m->path);
    if (m->description) {
        cdch_put_str(&b, ",\"description\":");
        json_str(&b, m->description);
    }
    cdch_buf_printf(&b, ",\"quick\":%s,\"gate\":", quick ? "true" : "false");
    json_str(&b, gate);
    cdch_buf_printf(&b, ",\"cells_total\":%zu,\"excluded_cells\":%zu,\"exclude\":[", total, excluded);
    for (size_t i = 0; i < m->nexclude; i++) {
        const cdch_matrix_exclude *x = &m->exclude[i];
        cdch_put_str(&b, i ? ",{\"consumer\":" : "{\"consumer\":");
        json_str(&b, x->consumer);
        cdch_put_str(&b, ",\"scenario\":");
        json_str(&b, x->scenario);
        cdch_put_str(&b, ",\"mode\":");
        json_str(&b, x->mode);
        cdch_put_str(&b, ",\"reason\":");
        json_str(&b, x->reason);
        cdch_put_str(&b, "}");
    }
    cdch_put_str(&b, "]");
    if (n)
        cdch_buf_printf(&b, ",\"shard\":\"%u/%u\"", k, n);
    cdch_put_str(&b, "}");
    char *out = cdch_xstrdup(cdch_buf_cstr(&b));
    cdch_buf_free(&b);
    return out;
}

/* ---- pre-flip: is it safe to turn binlog_transaction_compression on? --------------- */

typedef struct flipcon {
    const char *family, *version;
    size_t consumer_idx;
    int state; /* 0 safe, 1 unsafe, 2 unknown (harness errors) */
    size_t scenarios, worse, preexisting;
    cdch_buf evidence;
} flipcon;

static const cdch_cell *find_cell(cdch_run *r, size_t con, size_t sc, const char *mode)
{
    for (size_t i = 0; i < cdch_run_ncells(r); i++) {
        const cdch_cell *c = cdch_run_cell(r, i);
        if (c->consumer_idx == con && c->scenario_idx == sc && strcmp(c->mode, mode) == 0)
            return c;
    }
    return NULL;
}

/* One entry per consumer@version, in the order of their first cell. */
static flipcon *flip_consumers(cdch_run *r, size_t *count)
{
    flipcon *fc = NULL;
    size_t nfc = 0;
    for (size_t i = 0; i < cdch_run_ncells(r); i++) {
        const cdch_cell *c = cdch_run_cell(r, i);
        size_t k = 0;
        while (k < nfc && fc[k].consumer_idx != c->consumer_idx)
            k++;
        if (k == nfc) {
            fc = cdch_xrealloc(fc, (nfc + 1) * sizeof *fc);
            memset(&fc[nfc], 0, sizeof *fc);
            fc[nfc].family = c->family;
            fc[nfc].version = c->version;
            fc[nfc].consumer_idx = c->consumer_idx;
            nfc++;
        }
    }
    *count = nfc;
    return fc;
}

/* Each compressed or flip cell of f against the same scenario uncompressed:
 * f's state, counts and evidence. */
static void flip_judge(cdch_run *r, flipcon *f)
{
    for (size_t i = 0; i < cdch_run_ncells(r); i++) {
        const cdch_cell *c = cdch_run_cell(r, i);
        if (c->consumer_idx != f->consumer_idx || strcmp(c->mode, "uncompressed") == 0)
            continue;
        const cdch_cell *u = find_cell(r, c->consumer_idx, c->scenario_idx, "uncompressed");
        f->scenarios++;
        if (c->verdict == CDCH_VERDICT_HARNESS_ERROR || (u && u->verdict == CDCH_VERDICT_HARNESS_ERROR)) {
            if (f->state == 0)
                f->state = 2;
            cdch_buf_printf(&f->evidence, "  - %s %s: not known (harness error: %s)\n", c->scenario, c->mode,
                            c->summary ? c->summary : "");
            continue;
        }
        cdch_verdict base = u ? u->verdict : CDCH_VERDICT_PASS;
        /* judged by the differential oracle (harness/run/oracle.h): against its own uncompressed rows already */
        bool worse = c->oracle_judged ? c->compression_regression : cdch_verdict_worse(c->verdict, base);
        if (worse) {
            f->state = 1;
            f->worse++;
            cdch_buf_printf(&f->evidence, "  - %s: %s %s, uncompressed %s — %s\n", c->scenario, c->mode,
                            cdch_verdict_name(c->verdict), u ? cdch_verdict_name(base) : "not run",
                            c->summary ? c->summary : "");
        } else if (c->verdict != CDCH_VERDICT_PASS) {
            f->preexisting++;
            cdch_buf_printf(&f->evidence, "  - %s: %s %s, as uncompressed (%s) — not caused by compression\n",
                            c->scenario, c->mode, cdch_verdict_name(c->verdict), cdch_verdict_name(base));
        }
    }
}

/* f's answer: its lines on out, its row of preflip.md, its object of preflip.json. */
static void flip_render(flipcon *f, bool first, FILE *out, cdch_buf *md, cdch_buf *js)
{
    const char *ans = f->state == 1 ? "NOT SAFE" : f->state == 2 ? "UNKNOWN" : "SAFE";
    fprintf(out, "  %-8s %s@%s (%zu compressed/flip cells, %zu worse than uncompressed)\n", ans, f->family,
            f->version, f->scenarios, f->worse);
    if (f->evidence.len)
        fputs(cdch_buf_cstr(&f->evidence), out);
    cdch_buf_printf(md, "| %s@%s | **%s** | %zu | %zu | %zu |\n", f->family, f->version, ans, f->scenarios,
                    f->worse, f->preexisting);
    cdch_put_str(js, first ? "{\"consumer\":" : ",{\"consumer\":");
    cdch_buf b2 = CDCH_BUF_INIT;
    cdch_buf_printf(&b2, "%s@%s", f->family, f->version);
    json_str(js, cdch_buf_cstr(&b2));
    cdch_buf_free(&b2);
    cdch_put_str(js, ",\"answer\":");
    json_str(js, f->state == 1 ? "not-safe" : f->state == 2 ? "unknown" : "safe");
    cdch_buf_printf(js, ",\"cells\":%zu,\"worse_when_compressed\":%zu,\"preexisting\":%zu,\"evidence\":",
                    f->scenarios, f->worse, f->preexisting);
    json_str(js, cdch_buf_cstr(&f->evidence));
    cdch_put_str(js, "}");
}

/* dir/name := b (best effort, like the other report files of a finished run). */
static void write_text(const char *dir, const char *name, cdch_buf *b)
{
    char p[4096];
    snprintf(p, sizeof p, "%s/%s", dir, name);
    FILE *f = fopen(p, "w");
    if (f) {
        fputs(cdch_buf_cstr(b), f);
        fclose(f);
    }
}

/* The pre-flip answer per consumer@version on out and in dir/preflip.md and
 * dir/preflip.json; *json (when not NULL): preflip.json's object (the caller
 * frees it). Returns the exit status contribution: 0 all safe, 1 some
 * unsafe, 2 some unknown (none unsafe). */
static int preflip(cdch_run *r, const char *dir, FILE *out, char **json)
{
    size_t nfc;
    flipcon *fc = flip_consumers(r, &nfc);
    for (size_t k = 0; k < nfc; k++)
        flip_judge(r, &fc[k]);
    int rc = 0;
    cdch_buf md = CDCH_BUF_INIT, js = CDCH_BUF_INIT;
    cdch_put_str(&md, "# Pre-flip check: may binlog_transaction_compression be turned on?\n\n"
                      "A consumer is safe when none of its compressed (or flip) cells is worse than the same\n"
                      "scenario uncompressed. Findings that also happen uncompressed are listed but do not\n"
                      "block the flip.\n\n| consumer | answer | scenarios | worse when compressed | pre-existing |\n"
                      "|---|---|---|---|---|\n");
    cdch_put_str(&js, "{\"format\":\"cdcharness-preflip\",\"version\":1,\"consumers\":[");
    fprintf(out, "\nPre-flip: may binlog_transaction_compression be turned on?\n");
    for (size_t k = 0; k < nfc; k++) {
        if (fc[k].state == 1)
            rc = 1;
        else if (fc[k].state == 2 && rc == 0)
            rc = 2;
        flip_render(&fc[k], k == 0, out, &md, &js);
    }
    cdch_put_str(&js, "]}\n");
    cdch_put_str(&md, "\n");
    for (size_t k = 0; k < nfc; k++)
        if (fc[k].evidence.len)
            cdch_buf_printf(&md, "## %s@%s\n\n%s\n", fc[k].family, fc[k].version, cdch_buf_cstr(&fc[k].evidence));
    write_text(dir, "preflip.md", &md);
    write_text(dir, "preflip.json", &js);
    if (json) {
        while (js.len && js.data[js.len - 1] == '\n')
            js.len--;
        *json = cdch_xstrdup(cdch_buf_cstr(&js));
    }
    for (size_t k = 0; k < nfc; k++)
        cdch_buf_free(&fc[k].evidence);
    free(fc);
    cdch_buf_free(&md);
    cdch_buf_free(&js);
    return rc;
}

/* ---- the command ---------------------------------------------------------------- */

/* The command line of `matrix`, parsed. */
typedef struct matrix_args {
    cli_cell_opts co; /* --timeout, -j, --baseline, --report-dir, --consumers-dir, --quiet */
    bool quick, pre_flip, list, setup_only;
    unsigned shard_k, shard_n; /* 0/0: no --shard */
    const char *path;          /* the matrix file */
    char default_path[4096];   /* the bundled default matrix, when none is given */
    cdch_oracle_filter *filter; /* --ignore / --normalize, compiled (freed after the run) */
} matrix_args;

/* Parse argv into a; returns -1 to go on, else the exit status (--help, or
 * the first usage error). */
static int matrix_parse(int argc, char **argv, matrix_args *a)
{
    enum { O_QUICK = CLI_O_EXTRA, O_SHARD, O_PREFLIP, O_LIST, O_SETUP_ONLY };
    static const struct option opts[] = {
        {"quick", no_argument, NULL, O_QUICK},
        {"shard", required_argument, NULL, O_SHARD},
        {"pre-flip", no_argument, NULL, O_PREFLIP},
        {"list", no_argument, NULL, O_LIST},
        {"setup-only", no_argument, NULL, O_SETUP_ONLY},
        CLI_CELL_LONGOPTS,
        {NULL, 0, NULL, 0},
    };
    memset(a, 0, sizeof *a);
    cli_cell_opts_init(&a->co, "matrix", cli_default_jobs());
    a->co.terse_timeout = true;
    int c;
    optind = 1;
    while ((c = getopt_long(argc, argv, "j:t:h", opts, NULL)) != -1) {
        switch (c) {
        case O_QUICK: a->quick = true; break;
        case O_SHARD:
            if (!parse_shard(optarg, &a->shard_k, &a->shard_n)) {
                fprintf(stderr, "cdcharness matrix: --shard wants K/N with 1 <= K <= N, not '%s'\n", optarg);
                return MATRIX_EXIT_HARNESS;
            }
            break;
        case O_PREFLIP: a->pre_flip = true; break;
        case O_LIST: a->list = true; break;
        case O_SETUP_ONLY: a->setup_only = true; break;
        case 'h': matrix_usage(stdout); return CDCH_EXIT_OK;
        default:
            switch (cli_cell_opt(&a->co, c, optarg)) {
            case 1: break;
            case 0: return MATRIX_EXIT_HARNESS;
            default: matrix_usage(stderr); return MATRIX_EXIT_HARNESS;
            }
            break;
        }
    }
    if (optind < argc - 1) {
        fprintf(stderr, "cdcharness matrix: give one matrix file at most (e.g. ci/matrix.yaml)\n\n");
        matrix_usage(stderr);
        return MATRIX_EXIT_HARNESS;
    }
    if (a->list && a->setup_only) {
        fprintf(stderr, "cdcharness matrix: --list prints the plan, --setup-only installs it; give one\n");
        return MATRIX_EXIT_HARNESS;
    }
    if (a->co.baseline && a->pre_flip) {
        fprintf(stderr, "cdcharness matrix: --baseline and --pre-flip are different gates; give one\n");
        return MATRIX_EXIT_HARNESS;
    }
    if (optind < argc) {
        a->path = argv[optind];
    } else {
        snprintf(a->default_path, sizeof a->default_path, "%s/ci/matrix.yaml", cli_data_dir());
        a->path = a->default_path;
    }
    return -1;
}

/* The gate's expectations (*gate: its name for the report); NULL (message
 * printed) when the baseline cannot be read. */
static cdch_expect *matrix_expect(const matrix_args *a, const cdch_matrix *m, const char **gate)
{
    cdch_expect *ex = cdch_expect_new();
    *gate = "expect";
    if (a->co.baseline) {
        *gate = "baseline";
        cdch_err err;
        if (cdch_expect_load_baseline(ex, a->co.baseline, &err) != 0) {
            fprintf(stderr, "cdcharness matrix: %s\n", err.msg);
            cdch_expect_free(ex);
            return NULL;
        }
    } else if (a->pre_flip) {
        *gate = "pre-flip"; /* cells are judged against their uncompressed twin, in preflip() */
        cdch_expect_use_manifests(ex, true);
    } else if (strcmp(m->expect, "manifest") == 0) {
        cdch_expect_use_manifests(ex, true);
    } else {
        cdch_verdict v;
        cdch_verdict_parse(m->expect, &v);
        cdch_expect_set_default(ex, v);
    }
    return ex;
}

/* The capture's path as reports name it: relative to the matrix file's folder when under it. */
static const char *capture_label(const cdch_matrix *m, size_t i)
{
    const char *d = m->capture_dirs[i];
    size_t l = strlen(m->dir);
    return strncmp(d, m->dir, l) == 0 && d[l] == '/' ? d + l + 1 : d;
}

/* The last component of a path. */
static const char *last_component(const char *p)
{
    const char *b = strrchr(p, '/');
    return b ? b + 1 : p;
}

/* The scenario file of the matrix's i-th capture: the one it names, or for a
 * bare capture directory one written under the report directory
 * (captures/NAME.yaml: served compressed at zstd level 3, MySQL's default
 * binlog_transaction_compression_level_zstd, and uncompressed). */
static int capture_scenario(const matrix_args *a, const cdch_matrix *m, size_t i, char *out, size_t outsz,
                            cdch_err *err)
{
    if (m->capture_scenarios[i]) {
        snprintf(out, outsz, "%s", m->capture_scenarios[i]);
        return 0;
    }
    char dir[4096];
    snprintf(dir, sizeof dir, "%s/captures", a->co.report_dir);
    if (cdch_mkdirs(dir, err) != 0)
        return -1;
    const char *base = last_component(m->capture_dirs[i]);
    snprintf(out, outsz, "%s/%s.yaml", dir, base);
    for (size_t k = 0; k < i; k++) /* two captures of one name: the later one numbered */
        if (!m->capture_scenarios[k] && strcmp(last_component(m->capture_dirs[k]), base) == 0) {
            snprintf(out, outsz, "%s/%s-%zu.yaml", dir, base, i + 1);
            break;
        }
    cdch_buf b = CDCH_BUF_INIT;
    cdch_put_str(&b, "# written by cdcharness matrix for the capture of ");
    cdch_put_str(&b, m->path);
    cdch_put_str(&b, "\ndescription: ");
    cdch_buf b2 = CDCH_BUF_INIT;
    cdch_buf_printf(&b2, "capture %s (deployment file %s)", capture_label(m, i), m->name);
    json_str(&b, cdch_buf_cstr(&b2)); /* a JSON string is a YAML flow scalar */
    cdch_buf_free(&b2);
    cdch_put_str(&b, "\ncapture: ");
    json_str(&b, m->capture_dirs[i]);
    cdch_put_str(&b, "\nbinlog: {compression: both, zstd_level: 3}\n");
    FILE *f = fopen(out, "w");
    bool ok = f && fwrite(b.data, 1, b.len, f) == b.len;
    if (f && fclose(f) != 0)
        ok = false;
    cdch_buf_free(&b);
    if (!ok)
        return cdch_err_set(err, "cannot write %s (the capture's scenario file): check --report-dir", out);
    return 0;
}

/* *out := the run of matrix m (options, consumers, scenarios); the caller
 * frees it. -1 (message printed) when the matrix names a mode, consumer or
 * scenario it cannot use. */
static int matrix_setup(matrix_args *a, const cdch_matrix *m, mstate *st, cdch_run **out)
{
    if (!a->co.ndirs) {
        for (size_t i = 0; i < m->nconsumers_dirs && a->co.ndirs < CLI_MAX_CONSUMER_DIRS; i++)
            a->co.dirs[a->co.ndirs++] = m->consumers_dirs[i];
        if (!a->co.ndirs)
            a->co.dirs[a->co.ndirs++] = cli_default_consumers_dir();
    }
    cdch_run_opts ro;
    cdch_run_opts_init(&ro);
    ro.consumer_dirs = a->co.dirs;
    ro.nconsumer_dirs = a->co.ndirs;
    ro.jobs = (int)a->co.jobs;
    ro.sessions = (unsigned)a->co.sessions;
    ro.report_dir = a->co.report_dir;
    ro.keep_observed = a->co.keep_observed;
    ro.progress = NULL;
    ro.setup_progress = a->co.quiet ? NULL : stderr;
    ro.on_cell = on_cell;
    ro.on_cell_ud = st;
    ro.keep = keep_cell;
    ro.keep_ud = st;
    ro.shard_k = a->shard_k;
    ro.shard_n = a->shard_n;
    ro.start = (cdch_start_mode)a->co.start;
    if (m->timeout > 0)
        ro.timeout_s = m->timeout;
    if (a->co.timeout_s > 0)
        ro.timeout_s = a->co.timeout_s;
    if (m->grace > 0)
        ro.grace_s = m->grace;
    ro.idle_after_stream_s = m->idle_after_stream; /* 0 = auto */
    ro.oracle = (cdch_oracle_kind)a->co.oracle;
    bool fok;
    a->filter = cli_oracle_filter(&a->co, &fok);
    if (!fok)
        return -1;
    ro.filter = a->filter;
    cdch_run *r = *out = cdch_run_new(&ro);
    st->run = r;
    cdch_err err;
    if (!cli_add_commands(&a->co, r))
        return -1;
    for (size_t i = 0; i < m->ncommands; i++)
        if (cdch_run_add_command(r, m->command_names[i], m->commands[i], m->dir, m->command_files[i], &err) != 0) {
            fprintf(stderr, "cdcharness matrix: %s: %s\n", m->path, err.msg);
            return -1;
        }
    if (cdch_run_set_mode(r, a->pre_flip ? "both" : m->modes, &err) != 0) {
        fprintf(stderr, "cdcharness matrix: %s\n", err.msg);
        return -1;
    }
    if (!cli_configs_used(&a->co, (const char *const *)m->consumers, m->nconsumers))
        return -1;
    for (size_t i = 0; i < m->nconsumers; i++) {
        if (strcmp(m->consumers[i], "*") == 0) { /* every family of the consumer folders, every pinned version */
            char **fams;
            size_t nf = cdch_manifest_families(ro.consumer_dirs, ro.nconsumer_dirs, &fams);
            int frc = 0;
            for (size_t k = 0; k < nf; k++) {
                if (!frc && cdch_run_add_consumer_config(r, fams[k], cli_config_for(&a->co, fams[k]), &err) != 0) {
                    fprintf(stderr, "cdcharness matrix: %s: %s\n", m->path, err.msg);
                    frc = -1;
                }
                free(fams[k]);
            }
            free(fams);
            if (frc)
                return -1;
            if (!nf) {
                fprintf(stderr, "cdcharness matrix: %s: consumers: ['*'] found no family in the consumer folders\n",
                        m->path);
                return -1;
            }
            continue;
        }
        /* the command line's --consumer-config wins over the matrix file's `config` */
        const char *cfg = cli_config_for(&a->co, m->consumers[i]);
        if (cdch_run_add_consumer_config(r, m->consumers[i], cfg ? cfg : m->consumer_configs[i], &err) != 0) {
            fprintf(stderr, "cdcharness matrix: %s: %s\n", m->path, err.msg);
            return -1;
        }
    }
    for (size_t i = 0; i < m->nscenarios; i++)
        if (cdch_run_add_scenario(r, m->scenarios[i], &err) != 0) {
            fprintf(stderr, "cdcharness matrix: %s\n", err.msg);
            return -1;
        }
    for (size_t i = 0; i < m->ncaptures; i++) {
        char scen[4096];
        if ((!m->capture_scenarios[i] && cdch_run_lock_report(r, &err) != 0) || /* it writes into the report dir */
            capture_scenario(a, m, i, scen, sizeof scen, &err) != 0 || cdch_run_add_scenario(r, scen, &err) != 0) {
            fprintf(stderr, "cdcharness matrix: %s: capture: %s\n", m->path, err.msg);
            return -1;
        }
    }
    return 0;
}

/* --list: the planned cells on stdout, the count on stderr. */
static void matrix_list(cdch_run *r, const matrix_args *a, size_t total, size_t excluded)
{
    for (size_t i = 0; i < cdch_run_ncells(r); i++) {
        const cdch_cell *cl = cdch_run_cell(r, i);
        printf("%zu\t%s@%s\t%s\t%s\n", cl->index, cl->family, cl->version, cl->scenario, cl->mode);
    }
    fprintf(stderr, "%zu of %zu planned cells%s; %zu excluded by the matrix\n", cdch_run_ncells(r), total,
            a->shard_n ? " in this shard" : "", excluded);
}

/* --setup-only: each version's install on stdout, failures on stderr. */
static void matrix_installed(void *ud, const char *family, const char *version, const char *dir, const char *error)
{
    (void)ud;
    if (error)
        fprintf(stderr, "not installed: %s@%s: %s\n", family, version, error);
    else
        printf("%s@%s\t%s\n", family, version, dir);
}

/* --setup-only: install what the planned cells need; returns the exit status. */
static int matrix_setup_only(cdch_run *r, const matrix_args *a)
{
    cli_trap_interrupts();
    double t0 = now_s();
    size_t failed = cdch_run_install(r, matrix_installed, NULL);
    if (!a->co.quiet)
        fprintf(stderr, "setup: %s in %.1f s\n", failed ? "some versions could not be installed (above)"
                                                          : "every consumer version the plan needs is installed",
                now_s() - t0);
    return failed || cdch_proc_interrupted() ? MATRIX_EXIT_HARNESS : CDCH_EXIT_OK;
}

/* The reports of a finished run; returns CDCH_EXIT_OK or MATRIX_EXIT_HARNESS. */
static int matrix_report(cdch_run *r, const matrix_args *a, const cdch_matrix *m, size_t total, size_t excluded,
                         const char *gate, const char *deployment)
{
    int rc = CDCH_EXIT_OK;
    char *mj = matrix_json(m, a->quick, a->shard_k, a->shard_n, total, excluded, gate);
    size_t *idx = cdch_xcalloc(cdch_run_ncells(r) + 1, sizeof *idx);
    for (size_t i = 0; i < cdch_run_ncells(r); i++)
        idx[i] = cdch_run_cell(r, i)->index;
    cdch_report_meta meta = {mj, idx, deployment};
    cdch_report_table(r, stdout);
    cdch_err err;
    if (cdch_report_write_meta(r, a->co.report_dir, &meta, &err) != 0) {
        fprintf(stderr, "cdcharness matrix: report: %s\n", err.msg);
        rc = MATRIX_EXIT_HARNESS;
    } else if (!a->co.quiet) {
        fprintf(stderr, "reports: %s/{report.html,report.json,junit.xml,summary.md}\n", a->co.report_dir);
    }
    free(mj);
    free(idx);
    return rc;
}

/* The gate's answer after the reports (rc: their status so far); returns the
 * exit status. */
static int matrix_gate(cdch_run *r, const matrix_args *a, size_t unmet, const char *gate, int pf, int rc)
{
    size_t harness_errors = 0;
    for (size_t i = 0; i < cdch_run_ncells(r); i++)
        if (cdch_run_cell(r, i)->verdict == CDCH_VERDICT_HARNESS_ERROR)
            harness_errors++;
    if (a->pre_flip) {
        if (rc == CDCH_EXIT_OK)
            rc = pf == 1 ? MATRIX_EXIT_REGRESSION : pf == 2 ? MATRIX_EXIT_HARNESS : CDCH_EXIT_OK;
    } else if (rc == CDCH_EXIT_OK && unmet) {
        rc = MATRIX_EXIT_REGRESSION;
        printf("\n%zu cell(s) did not meet the %s gate:\n", unmet, gate);
        for (size_t i = 0; i < cdch_run_ncells(r); i++) {
            const cdch_cell *cl = cdch_run_cell(r, i);
            if (!cl->meets)
                printf("  %s@%s %s %s: %s, expected %s (%s)\n", cl->family, cl->version, cl->scenario, cl->mode,
                       cdch_verdict_name(cl->verdict), cdch_verdict_name(cl->expected), cl->expect_source);
        }
    }
    if (harness_errors) {
        printf("%zu cell(s) could not be run by the harness (harness-error): see the report\n", harness_errors);
        rc = MATRIX_EXIT_HARNESS; /* the answer is incomplete; regressions found are in the report too */
    }
    if (cdch_proc_interrupted() && rc == CDCH_EXIT_OK)
        rc = MATRIX_EXIT_HARNESS;
    return rc;
}

/* --pre-flip: the answer per consumer (preflip.md / preflip.json) and, for a
 * deployment file's captures, estimate's figures of each (cli_estimate_capture,
 * the same as `cdcharness estimate CAPTURE --levels L [--link LINK]`), after
 * the cells so each level's CPU is measured on a quiet machine.
 * *text: what to print after the verdict table; *json: the report's
 * "deployment" object (both the caller's to free). *erc: 2 when an estimate
 * failed (its message printed). Returns preflip()'s answer. */
static int deployment(cdch_run *r, const matrix_args *a, const cdch_matrix *m, char **text, char **json, int *erc)
{
    cdch_err err;
    if (cdch_mkdirs(a->co.report_dir, &err) != 0)
        fprintf(stderr, "cdcharness matrix: %s\n", err.msg);
    size_t tlen = 0;
    FILE *out = open_memstream(text, &tlen);
    if (!out) {
        *text = NULL;
        out = stdout;
    }
    char *pj = NULL;
    int pf = preflip(r, a->co.report_dir, out, &pj);
    cdch_buf b = CDCH_BUF_INIT;
    cdch_put_str(&b, "{\"preflip\":");
    cdch_put_str(&b, pj ? pj : "null");
    free(pj);
    cdch_put_str(&b, ",\"estimates\":[");
    size_t nest = 0;
    for (size_t i = 0; i < m->ncaptures; i++) {
        const char *label = capture_label(m, i);
        if (!a->co.quiet)
            fprintf(stderr, "estimate: capture %s, levels %s%s%s\n", label, m->estimate_levels,
                    m->estimate_link ? ", link " : "", m->estimate_link ? m->estimate_link : "");
        fprintf(out, "\nEstimate: capture %s (cdcharness estimate %s --levels %s%s%s)\n", label, label,
                m->estimate_levels, m->estimate_link ? " --link " : "", m->estimate_link ? m->estimate_link : "");
        char *ej = cli_estimate_capture(m->capture_dirs[i], label, m->estimate_levels, m->estimate_link,
                                        a->co.ndirs ? a->co.dirs[0] : NULL, a->co.quiet, out, &err);
        if (!ej) {
            fprintf(stderr, "cdcharness matrix: %s: estimate of capture %s: %s\n", m->path, label, err.msg);
            fprintf(out, "  not measured: %s\n", err.msg);
            *erc = MATRIX_EXIT_HARNESS;
            continue;
        }
        cdch_put_str(&b, nest++ ? "," : "");
        cdch_put_str(&b, ej);
        free(ej);
    }
    cdch_put_str(&b, "]}");
    *json = cdch_xstrdup(cdch_buf_cstr(&b));
    cdch_buf_free(&b);
    if (out != stdout)
        fclose(out);
    return pf;
}

/* Plan, run, report and gate matrix m. */
static int matrix_execute(matrix_args *a, const cdch_matrix *m, const cdch_expect *ex, const char *gate)
{
    mstate st;
    memset(&st, 0, sizeof st);
    st.m = m;
    st.quick = a->quick;
    st.ex = ex;
    st.tty = isatty(2);
    st.quiet = a->co.quiet;
    cdch_run *r = NULL;
    int rc = MATRIX_EXIT_HARNESS;
    if (matrix_setup(a, m, &st, &r) != 0)
        goto out;
    size_t total = 0;
    cdch_run_plan(r, &total);
    st.total = cdch_run_ncells(r);
    if (a->list) {
        matrix_list(r, a, total, st.excluded);
        rc = CDCH_EXIT_OK;
        goto out;
    }
    if (a->setup_only) {
        rc = matrix_setup_only(r, a);
        goto out;
    }
    if (!a->co.quiet)
        fprintf(stderr, "matrix %s%s: %zu cells%s (%zu planned, %zu excluded), -j %ld, reports in %s\n", m->name,
                a->quick ? " (quick)" : "", cdch_run_ncells(r), a->shard_n ? " in this shard" : "", total,
                st.excluded, a->co.jobs, a->co.report_dir);
    cli_trap_interrupts();
    st.t0 = now_s();
    cdch_err err;
    if (cdch_run_execute(r, &err) != 0) {
        fprintf(stderr, "cdcharness matrix: %s\n", err.msg);
        goto out;
    }
    size_t unmet = cdch_expect_apply(ex, r);
    char *ptext = NULL, *dep = NULL;
    int pf = 0, erc = CDCH_EXIT_OK;
    if (a->pre_flip)
        pf = deployment(r, a, m, &ptext, &dep, &erc);
    rc = matrix_report(r, a, m, total, st.excluded, gate, dep);
    if (ptext)
        fputs(ptext, stdout);
    rc = matrix_gate(r, a, unmet, gate, pf, rc);
    if (erc != CDCH_EXIT_OK)
        rc = erc; /* an estimate that could not be made: the report is incomplete */
    free(ptext);
    free(dep);
out:
    cdch_run_free(r);
    cdch_oracle_filter_free(a->filter);
    a->filter = NULL;
    return rc;
}

int cmd_matrix(int argc, char **argv)
{
    matrix_args a;
    int rc = matrix_parse(argc, argv, &a);
    if (rc >= 0)
        return rc;
    cdch_err err;
    cdch_matrix *m = cdch_matrix_load(a.path, &err);
    if (!m) {
        fprintf(stderr, "cdcharness matrix: %s\n", err.msg);
        return MATRIX_EXIT_HARNESS;
    }
    if (m->estimate_link && !cli_estimate_link_ok(m->estimate_link)) {
        fprintf(stderr,
                "cdcharness matrix: %s:%zu:%zu: estimate.link '%s': give RATE or RATE/DELAY as `estimate --link` "
                "takes it, e.g. 10mbit/20ms, 256kbit/100ms, 1gbit (rates: kbit, mbit, gbit, kbps = bytes; "
                "delays: ms, s)\n",
                a.path, m->estimate_link_line, m->estimate_link_col, m->estimate_link);
        cdch_matrix_free(m);
        return MATRIX_EXIT_HARNESS;
    }
    if (a.quick && !m->nquick_scenarios && !m->nquick_consumers) {
        fprintf(stderr, "cdcharness matrix: %s has no 'quick' subset\n", m->path);
        cdch_matrix_free(m);
        return MATRIX_EXIT_HARNESS;
    }
    const char *gate;
    cdch_expect *ex = matrix_expect(&a, m, &gate);
    rc = ex ? matrix_execute(&a, m, ex, gate) : MATRIX_EXIT_HARNESS;
    cdch_expect_free(ex);
    cdch_matrix_free(m);
    return rc;
}
