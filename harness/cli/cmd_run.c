/* cmd_run.c — `cdcharness run`: consumers × scenarios × modes -> verdicts,
 * reports, and an exit status that says whether every cell met its
 * expectation. */
#include <dirent.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli.h"
#include "expect.h"
#include "proc.h"
#include "report.h"
#include "runner.h"

#ifndef CDCH_SOURCE_DIR
#define CDCH_SOURCE_DIR "."
#endif

static void run_usage(FILE *f)
{
    fprintf(f,
            "usage: cdcharness run --consumer FAMILY[@VERSION] [--consumer ...] --scenario PATH [--scenario ...]\n"
            "                      [--mode both|compressed|uncompressed|flip]\n"
            "                      [--expect VERDICT|manifest | --expect-file FILE | --baseline REPORT.json]\n"
            "                      [--timeout S] [--report-dir DIR] [-j N] [--consumers-dir DIR]\n"
            "\n"
            "Run each consumer version (consumers/<family>/manifest.yaml) against the streams\n"
            "of each scenario, diff what it emits against the expected change events, and\n"
            "give every consumer@version x scenario x mode a verdict (design.md section 6):\n"
            "  %s\n"
            "A compressed cell that fails where the uncompressed one passes is flagged\n"
            "compression-regression.\n"
            "\n"
            "  --consumer C       FAMILY@VERSION, or FAMILY for every pinned version (repeatable)\n"
            "  --scenario P       a scenario file, or a directory of *.yaml (repeatable;\n"
            "                     further arguments without an option are scenarios too)\n"
            "  --mode M           both (default: each scenario's own modes), compressed,\n"
            "                     uncompressed or flip\n"
            "  --expect V         every cell must give verdict V (default: pass); 'manifest':\n"
            "                     the `expect` recorded per version in the manifests\n"
            "  --expect-file F    lines 'CONSUMER SCENARIO MODE VERDICT' (* = any; family\n"
            "                     alone = any version); cells not listed: --expect\n"
            "  --baseline R       a previous report.json: fail only on cells worse than recorded\n"
            "  --timeout S        per cell (default 60); --grace S idle time after the last\n"
            "                     expected event before stopping the adapter (default 2)\n"
            "  --idle-after-stream S  source: server: stop S seconds after the fake primary sent\n"
            "                     the whole stream and the adapter went quiet (default 10)\n"
            "  --setup-timeout S  per version setup (default 1800)\n"
            "  --report-dir D     report.json, junit.xml, summary.md and per-cell logs\n"
            "                     (default reports/latest)\n"
            "  -j N               run N cells in parallel (default 1)\n"
            "  --consumers-dir D  where consumer families live (repeatable; default:\n"
            "                     $CDCH_CONSUMERS (':'-separated), ./consumers, or the source tree's)\n"
            "  --keep-streams     keep the generated streams (their path is printed)\n"
            "  --no-watermark     do not end each stream with the watermark insert (a MyISAM\n"
            "                     row every consumer sees; harness/run/watermark.h): cells then\n"
            "                     stop only on idleness, and the stream is the scenario's alone\n"
            "  --quiet            no progress lines on stderr\n"
            "\n"
            "Setup of each version runs once into $CDCH_CACHE (default ~/.cache/cdcharness).\n"
            "Prints the verdict table on stdout.\n"
            "exit status: 0 every cell met its expectation, 1 some did not (or the run could\n"
            "not start), 2 usage error\n",
            cdch_verdict_names());
}

static void on_signal(int sig)
{
    (void)sig;
    cdch_proc_interrupt(); /* adapters are stopped and reaped; the report is still written */
}

static bool is_dir(const char *p)
{
    struct stat st;
    return stat(p, &st) == 0 && S_ISDIR(st.st_mode);
}

static int cmp_str(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

/* Add a scenario file, or every *.yaml of a directory (sorted). */
static int add_scenarios(cdch_run *r, const char *path)
{
    cdch_err err;
    if (!is_dir(path)) {
        if (cdch_run_add_scenario(r, path, &err) != 0) {
            fprintf(stderr, "cdcharness run: %s\n", err.msg);
            return -1;
        }
        return 0;
    }
    DIR *d = opendir(path);
    if (!d) {
        fprintf(stderr, "cdcharness run: cannot open %s\n", path);
        return -1;
    }
    char **names = NULL;
    size_t n = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        size_t l = strlen(e->d_name);
        if (l > 5 && strcmp(e->d_name + l - 5, ".yaml") == 0) {
            char **nn = realloc(names, (n + 1) * sizeof *names);
            if (!nn)
                break;
            names = nn;
            names[n++] = strdup(e->d_name);
        }
    }
    closedir(d);
    qsort(names, n, sizeof *names, cmp_str);
    int rc = 0;
    for (size_t i = 0; i < n; i++) {
        char p[4096];
        snprintf(p, sizeof p, "%s/%s", path, names[i]);
        if (rc == 0 && cdch_run_add_scenario(r, p, &err) != 0) {
            fprintf(stderr, "cdcharness run: %s\n", err.msg);
            rc = -1;
        }
        free(names[i]);
    }
    free(names);
    if (n == 0) {
        fprintf(stderr, "cdcharness run: no *.yaml scenarios in %s\n", path);
        return -1;
    }
    return rc;
}

static double parse_secs(const char *opt, const char *s, bool *bad)
{
    char *end;
    double v = strtod(s, &end);
    if (*end || v <= 0) {
        fprintf(stderr, "cdcharness run: %s wants a positive number of seconds, not '%s'\n", opt, s);
        *bad = true;
    }
    return v;
}

int cmd_run(int argc, char **argv)
{
    enum {
        O_EXPECT_FILE = 256, O_BASELINE, O_REPORT_DIR, O_CONSUMERS_DIR, O_KEEP, O_QUIET, O_GRACE, O_SETUP_TIMEOUT,
        O_IDLE, O_NO_WATERMARK
    };
    static const struct option opts[] = {
        {"consumer", required_argument, NULL, 'c'},
        {"scenario", required_argument, NULL, 's'},
        {"mode", required_argument, NULL, 'm'},
        {"expect", required_argument, NULL, 'e'},
        {"expect-file", required_argument, NULL, O_EXPECT_FILE},
        {"baseline", required_argument, NULL, O_BASELINE},
        {"timeout", required_argument, NULL, 't'},
        {"grace", required_argument, NULL, O_GRACE},
        {"setup-timeout", required_argument, NULL, O_SETUP_TIMEOUT},
        {"idle-after-stream", required_argument, NULL, O_IDLE},
        {"report-dir", required_argument, NULL, O_REPORT_DIR},
        {"consumers-dir", required_argument, NULL, O_CONSUMERS_DIR},
        {"keep-streams", no_argument, NULL, O_KEEP},
        {"no-watermark", no_argument, NULL, O_NO_WATERMARK},
        {"quiet", no_argument, NULL, O_QUIET},
        {"jobs", required_argument, NULL, 'j'},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    const char *consumers[256], *scenarios[1024], *dirs[32];
    size_t nc = 0, ns = 0, nd = 0;
    const char *mode = "both", *expect = NULL, *expect_file = NULL, *baseline = NULL;
    const char *report_dir = "reports/latest";
    cdch_run_opts ro;
    cdch_run_opts_init(&ro);
    ro.progress = stderr;
    bool bad = false;
    int c;
    optind = 1;
    while ((c = getopt_long(argc, argv, "c:s:m:e:t:j:h", opts, NULL)) != -1) {
        switch (c) {
        case 'c':
            if (nc < 256)
                consumers[nc++] = optarg;
            break;
        case 's':
            if (ns < 1024)
                scenarios[ns++] = optarg;
            break;
        case 'm': mode = optarg; break;
        case 'e': expect = optarg; break;
        case O_EXPECT_FILE: expect_file = optarg; break;
        case O_BASELINE: baseline = optarg; break;
        case 't': ro.timeout_s = parse_secs("--timeout", optarg, &bad); break;
        case O_GRACE: ro.grace_s = parse_secs("--grace", optarg, &bad); break;
        case O_SETUP_TIMEOUT: ro.setup_timeout_s = parse_secs("--setup-timeout", optarg, &bad); break;
        case O_IDLE: ro.idle_after_stream_s = parse_secs("--idle-after-stream", optarg, &bad); break;
        case O_REPORT_DIR: report_dir = optarg; break;
        case O_CONSUMERS_DIR:
            if (nd < 32)
                dirs[nd++] = optarg;
            break;
        case O_KEEP: ro.keep_streams = true; break;
        case O_NO_WATERMARK: ro.watermark = false; break;
        case O_QUIET: ro.progress = NULL; break;
        case 'j': {
            char *end;
            long j = strtol(optarg, &end, 10);
            if (*end || j < 1 || j > 256) {
                fprintf(stderr, "cdcharness run: -j wants 1..256, not '%s'\n", optarg);
                bad = true;
            }
            ro.jobs = (int)j;
            break;
        }
        case 'h': run_usage(stdout); return CDCH_EXIT_OK;
        default: run_usage(stderr); return CDCH_EXIT_USAGE;
        }
    }
    for (int i = optind; i < argc && ns < 1024; i++)
        scenarios[ns++] = argv[i];
    if (bad)
        return CDCH_EXIT_USAGE;
    if (!nc || !ns) {
        fprintf(stderr, "cdcharness run: %s\n\n", !nc ? "give at least one --consumer FAMILY[@VERSION]"
                                                      : "give at least one --scenario PATH");
        run_usage(stderr);
        return CDCH_EXIT_USAGE;
    }
    if ((expect_file != NULL) + (baseline != NULL) > 1) {
        fprintf(stderr, "cdcharness run: --expect-file and --baseline exclude each other\n");
        return CDCH_EXIT_USAGE;
    }
    cdch_expect *ex = cdch_expect_new();
    if (expect) {
        cdch_verdict v;
        if (strcmp(expect, "manifest") == 0) {
            cdch_expect_use_manifests(ex, true);
        } else if (cdch_verdict_parse(expect, &v) == 0) {
            cdch_expect_set_default(ex, v);
        } else {
            fprintf(stderr, "cdcharness run: unknown --expect '%s' (%s, or manifest)\n", expect, cdch_verdict_names());
            cdch_expect_free(ex);
            return CDCH_EXIT_USAGE;
        }
    }
    cdch_err err;
    if ((expect_file && cdch_expect_load_file(ex, expect_file, &err) != 0) ||
        (baseline && cdch_expect_load_baseline(ex, baseline, &err) != 0)) {
        fprintf(stderr, "cdcharness run: %s\n", err.msg);
        cdch_expect_free(ex);
        return CDCH_EXIT_USAGE;
    }
    /* consumer directories */
    char *envdirs = NULL;
    if (!nd) {
        const char *e = getenv("CDCH_CONSUMERS");
        if (e && *e) {
            envdirs = strdup(e);
            for (char *t = strtok(envdirs, ":"); t && nd < 32; t = strtok(NULL, ":"))
                dirs[nd++] = t;
        } else if (is_dir("consumers")) {
            dirs[nd++] = "consumers";
        } else {
            dirs[nd++] = CDCH_SOURCE_DIR "/consumers";
        }
    }
    ro.consumer_dirs = dirs;
    ro.nconsumer_dirs = nd;
    ro.report_dir = report_dir;
    cdch_run *r = cdch_run_new(&ro);
    int rc = CDCH_EXIT_OK;
    if (cdch_run_set_mode(r, mode, &err) != 0) {
        fprintf(stderr, "cdcharness run: %s\n", err.msg);
        rc = CDCH_EXIT_USAGE;
        goto out;
    }
    for (size_t i = 0; i < nc; i++) {
        if (cdch_run_add_consumer(r, consumers[i], &err) != 0) {
            fprintf(stderr, "cdcharness run: %s\n", err.msg);
            rc = CDCH_EXIT_USAGE;
            goto out;
        }
    }
    for (size_t i = 0; i < ns; i++) {
        if (add_scenarios(r, scenarios[i]) != 0) {
            rc = CDCH_EXIT_BAD_INPUT;
            goto out;
        }
    }
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    sigaction(SIGHUP, &sa, NULL);
    if (cdch_run_execute(r, &err) != 0) {
        fprintf(stderr, "cdcharness run: %s\n", err.msg);
        rc = CDCH_EXIT_BAD_INPUT;
        goto out;
    }
    size_t unmet = cdch_expect_apply(ex, r);
    cdch_report_table(r, stdout);
    fflush(stdout);
    if (cdch_report_write(r, report_dir, &err) != 0) {
        fprintf(stderr, "cdcharness run: report: %s\n", err.msg);
        rc = CDCH_EXIT_BAD_INPUT;
    } else if (ro.progress) {
        fprintf(stderr, "reports: %s/{report.html,report.json,junit.xml,summary.md}\n", report_dir);
    }
    if (unmet)
        rc = CDCH_EXIT_BAD_INPUT;
out:
    cdch_run_free(r);
    cdch_expect_free(ex);
    free(envdirs);
    return rc;
}
