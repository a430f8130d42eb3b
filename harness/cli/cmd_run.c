/* cmd_run.c — `cdcharness run`: consumers × scenarios × modes -> verdicts,
 * reports, and an exit status that says whether every cell met its
 * expectation. */
#include <dirent.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "expect.h"
#include "report.h"
#include "runner.h"
#include "sys.h"
#include "xalloc.h"

static void run_usage(FILE *f)
{
    fprintf(f,
            "usage: cdcharness run --consumer FAMILY[@VERSION|@file:PATH] [--consumer ...] --scenario PATH [...]\n"
            "                      [--consumer-config FAMILY[@VERSION]=FILE]\n"
            "                      [--mode both|compressed|uncompressed|flip]\n"
            "                      [--expect VERDICT|manifest | --expect-file FILE | --baseline REPORT.json]\n"
            "                      [--timeout S] [--report-dir DIR] [--keep-observed] [-j N] [--sessions N]\n"
            "                      [--consumers-dir DIR]\n"
            "                      [--start auto|attach|empty]\n"
            "                      [--consumer-cmd 'COMMAND ...' [--consumer-name N]] [--oracle O]\n"
            "                      [--ignore REGEX] [--normalize REGEX]\n"
            "\n"
            "Run each consumer version (consumers/<family>/manifest.yaml) against the streams\n"
            "of each scenario, diff what it emits against the expected change events, and\n"
            "give every consumer@version x scenario x mode a verdict (design.md section 6):\n"
            "  %s\n"
            "A compressed cell that fails where the uncompressed one passes is flagged\n"
            "compression-regression.\n"
            "\n"
            "  --consumer C       FAMILY for every pinned version, FAMILY@VERSION[+variant] for one\n"
            "                     (pinned, or any version the family's registry serves: installed\n"
            "                     the same way, its expectation predicted from the manifest's\n"
            "                     known_issues ranges, shown as '~' in the table), or\n"
            "                     FAMILY@file:PATH[+variant] for your own build (a plugin dir or\n"
            "                     jar, a Go module, a Python tree or wheel, an npm package dir or\n"
            "                     tarball; re-installed when its content changes) (repeatable)\n"
            CLI_CONFIG_HELP
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
            CLI_KEEP_OBSERVED_HELP
            CLI_JOBS_HELP
            "  --consumers-dir D  where consumer families live (repeatable; default:\n"
            "                     $CDCH_CONSUMERS (':'-separated), ./consumers, or the source tree's)\n"
            "  --keep-streams     keep the run's directory with the generated streams (its path\n"
            "                     is printed; no later run removes it)\n"
            "  --no-watermark     do not end each stream with the watermark insert (a MyISAM\n"
            "                     row every consumer sees; harness/run/watermark.h): cells then\n"
            "                     stop only on idleness, and the stream is the scenario's alone\n"
            CLI_START_HELP
            CLI_ORACLE_HELP
            "  --quiet            no progress lines on stderr\n"
            "\n"
            "Setup of each version runs once into $CDCH_CACHE (default ~/.cache/cdcharness).\n"
            "Prints the verdict table on stdout.\n"
            "exit status: 0 every cell met its expectation, 1 some did not (or the run could\n"
            "not start), 2 usage error\n",
            cdch_verdict_names());
}

/* Add a scenario file, or every *.yaml of a directory (sorted). */
static int add_scenarios(cdch_run *r, const char *path)
{
    cdch_err err;
    if (!cli_is_dir(path)) {
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
            names = cdch_xrealloc(names, (n + 1) * sizeof *names);
            names[n++] = cdch_xstrdup(e->d_name);
        }
    }
    closedir(d);
    qsort(names, n, sizeof *names, cdch_cmp_strp);
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

/* The command line of `run`, parsed. */
typedef struct run_args {
    cli_cell_opts co; /* --timeout, -j, --baseline, --report-dir, --consumers-dir, --quiet */
    const char *consumers[256], *scenarios[1024];
    size_t nc, ns;
    const char *mode, *expect, *expect_file;
    cdch_run_opts ro; /* --grace, --setup-timeout, --idle-after-stream, --keep-streams, --no-watermark */
} run_args;

/* Parse argv into a; returns -1 to go on, else the exit status (--help,
 * usage errors). Every bad value is reported before giving up. */
static int run_parse(int argc, char **argv, run_args *a)
{
    enum { O_EXPECT_FILE = CLI_O_EXTRA, O_GRACE, O_SETUP_TIMEOUT, O_IDLE, O_KEEP, O_NO_WATERMARK };
    static const struct option opts[] = {
        {"consumer", required_argument, NULL, 'c'},
        {"scenario", required_argument, NULL, 's'},
        {"mode", required_argument, NULL, 'm'},
        {"expect", required_argument, NULL, 'e'},
        {"expect-file", required_argument, NULL, O_EXPECT_FILE},
        {"grace", required_argument, NULL, O_GRACE},
        {"setup-timeout", required_argument, NULL, O_SETUP_TIMEOUT},
        {"idle-after-stream", required_argument, NULL, O_IDLE},
        {"keep-streams", no_argument, NULL, O_KEEP},
        {"no-watermark", no_argument, NULL, O_NO_WATERMARK},
        CLI_CELL_LONGOPTS,
        {NULL, 0, NULL, 0},
    };
    memset(a, 0, sizeof *a);
    cli_cell_opts_init(&a->co, "run", cli_default_jobs());
    cdch_run_opts_init(&a->ro);
    a->mode = "both";
    int c;
    optind = 1;
    while ((c = getopt_long(argc, argv, "c:s:m:e:t:j:h", opts, NULL)) != -1) {
        switch (c) {
        case 'c':
            if (a->nc < 256)
                a->consumers[a->nc++] = optarg;
            break;
        case 's':
            if (a->ns < 1024)
                a->scenarios[a->ns++] = optarg;
            break;
        case 'm': a->mode = optarg; break;
        case 'e': a->expect = optarg; break;
        case O_EXPECT_FILE: a->expect_file = optarg; break;
        case O_GRACE: cli_secs(&a->co, "--grace", optarg, &a->ro.grace_s); break;
        case O_SETUP_TIMEOUT: cli_secs(&a->co, "--setup-timeout", optarg, &a->ro.setup_timeout_s); break;
        case O_IDLE: cli_secs(&a->co, "--idle-after-stream", optarg, &a->ro.idle_after_stream_s); break;
        case O_KEEP: a->ro.keep_streams = true; break;
        case O_NO_WATERMARK: a->ro.watermark = false; break;
        case 'h': run_usage(stdout); return CDCH_EXIT_OK;
        default:
            if (cli_cell_opt(&a->co, c, optarg) < 0) {
                run_usage(stderr);
                return CDCH_EXIT_USAGE;
            }
            break;
        }
    }
    for (int i = optind; i < argc && a->ns < 1024; i++)
        a->scenarios[a->ns++] = argv[i];
    if (a->co.bad)
        return CDCH_EXIT_USAGE;
    if ((!a->nc && !a->co.ncmds) || !a->ns) {
        fprintf(stderr, "cdcharness run: %s\n\n", !a->nc && !a->co.ncmds
                                                         ? "give at least one --consumer FAMILY[@VERSION] "
                                                           "or --consumer-cmd 'COMMAND ...'"
                                                         : "give at least one --scenario PATH");
        run_usage(stderr);
        return CDCH_EXIT_USAGE;
    }
    if ((a->expect_file != NULL) + (a->co.baseline != NULL) > 1) {
        fprintf(stderr, "cdcharness run: --expect-file and --baseline exclude each other\n");
        return CDCH_EXIT_USAGE;
    }
    if (a->co.timeout_s > 0)
        a->ro.timeout_s = a->co.timeout_s;
    a->ro.jobs = (int)a->co.jobs;
    a->ro.sessions = (unsigned)a->co.sessions;
    a->ro.progress = a->co.quiet ? NULL : stderr;
    a->ro.report_dir = a->co.report_dir;
    a->ro.keep_observed = a->co.keep_observed;
    a->ro.start = (cdch_start_mode)a->co.start;
    a->ro.oracle = (cdch_oracle_kind)a->co.oracle;
    return -1;
}

/* The expectations --expect, --expect-file or --baseline give; NULL (message
 * printed) when one is bad. */
static cdch_expect *run_expect(const run_args *a)
{
    cdch_expect *ex = cdch_expect_new();
    if (a->expect) {
        cdch_verdict v;
        if (strcmp(a->expect, "manifest") == 0) {
            cdch_expect_use_manifests(ex, true);
        } else if (cdch_verdict_parse(a->expect, &v) == 0) {
            cdch_expect_set_default(ex, v);
        } else {
            fprintf(stderr, "cdcharness run: unknown --expect '%s' (%s, or manifest)\n", a->expect,
                    cdch_verdict_names());
            cdch_expect_free(ex);
            return NULL;
        }
    }
    cdch_err err;
    if ((a->expect_file && cdch_expect_load_file(ex, a->expect_file, &err) != 0) ||
        (a->co.baseline && cdch_expect_load_baseline(ex, a->co.baseline, &err) != 0)) {
        fprintf(stderr, "cdcharness run: %s\n", err.msg);
        cdch_expect_free(ex);
        return NULL;
    }
    return ex;
}

/* Without --consumers-dir: $CDCH_CONSUMERS (':'-separated; *envdirs is the
 * malloc'd copy the entries point into), else the default directory. */
static void run_consumer_dirs(run_args *a, char **envdirs)
{
    *envdirs = NULL;
    if (a->co.ndirs)
        return;
    const char *e = getenv("CDCH_CONSUMERS");
    if (e && *e) {
        *envdirs = cdch_xstrdup(e);
        for (char *t = strtok(*envdirs, ":"); t && a->co.ndirs < CLI_MAX_CONSUMER_DIRS; t = strtok(NULL, ":"))
            a->co.dirs[a->co.ndirs++] = t;
    } else {
        a->co.dirs[a->co.ndirs++] = cli_default_consumers_dir();
    }
}

/* Plan, run, judge and report the cells a describes. */
static int run_execute(run_args *a, cdch_expect *ex)
{
    cdch_err err;
    bool fok;
    cdch_oracle_filter *filter = cli_oracle_filter(&a->co, &fok);
    if (!fok)
        return CDCH_EXIT_USAGE;
    a->ro.filter = filter;
    cdch_run *r = cdch_run_new(&a->ro);
    int rc = CDCH_EXIT_OK;
    if (cdch_run_set_mode(r, a->mode, &err) != 0) {
        fprintf(stderr, "cdcharness run: %s\n", err.msg);
        rc = CDCH_EXIT_USAGE;
        goto out;
    }
    if (!cli_configs_used(&a->co, a->consumers, a->nc)) {
        rc = CDCH_EXIT_USAGE;
        goto out;
    }
    for (size_t i = 0; i < a->nc; i++) {
        if (cdch_run_add_consumer_config(r, a->consumers[i], cli_config_for(&a->co, a->consumers[i]), &err) != 0) {
            fprintf(stderr, "cdcharness run: %s\n", err.msg);
            rc = CDCH_EXIT_USAGE;
            goto out;
        }
    }
    if (!cli_add_commands(&a->co, r)) {
        rc = CDCH_EXIT_USAGE;
        goto out;
    }
    for (size_t i = 0; i < a->ns; i++) {
        if (add_scenarios(r, a->scenarios[i]) != 0) {
            rc = CDCH_EXIT_BAD_INPUT;
            goto out;
        }
    }
    cli_trap_interrupts();
    if (cdch_run_execute(r, &err) != 0) {
        fprintf(stderr, "cdcharness run: %s\n", err.msg);
        rc = CDCH_EXIT_BAD_INPUT;
        goto out;
    }
    size_t unmet = cdch_expect_apply(ex, r);
    cdch_report_table(r, stdout);
    fflush(stdout);
    if (cdch_report_write(r, a->ro.report_dir, &err) != 0) {
        fprintf(stderr, "cdcharness run: report: %s\n", err.msg);
        rc = CDCH_EXIT_BAD_INPUT;
    } else if (a->ro.progress) {
        fprintf(stderr, "reports: %s/{report.html,report.json,junit.xml,summary.md}\n", a->ro.report_dir);
    }
    if (unmet)
        rc = CDCH_EXIT_BAD_INPUT;
out:
    cdch_run_free(r);
    cdch_oracle_filter_free(filter);
    return rc;
}

int cmd_run(int argc, char **argv)
{
    run_args *a = cdch_xcalloc(1, sizeof *a);
    int rc = run_parse(argc, argv, a);
    if (rc >= 0)
        goto out;
    cdch_expect *ex = run_expect(a);
    if (!ex) {
        rc = CDCH_EXIT_USAGE;
        goto out;
    }
    char *envdirs;
    run_consumer_dirs(a, &envdirs);
    a->ro.consumer_dirs = a->co.dirs;
    a->ro.nconsumer_dirs = a->co.ndirs;
    rc = run_execute(a, ex);
    cdch_expect_free(ex);
    free(envdirs);
out:
    free(a);
    return rc;
}
