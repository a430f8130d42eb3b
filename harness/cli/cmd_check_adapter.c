/* cmd_check_adapter.c — `cdcharness check-adapter DIR`: run a consumer
 * family's adapter on a few scenarios and say which part of the adapter
 * contract (consumers/README.md "What every adapter must do") it breaks,
 * before the family enters a matrix. */
#include <getopt.h>
#include <libgen.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "manifest.h"
#include "paths.h"
#include "runner.h"
#include "setup.h"

static void check_usage(FILE *f)
{
    fprintf(f,
            "usage: cdcharness check-adapter DIR [--version V] [--scenario PATH]... [--consumer-config FILE]\n"
            "                                [--timeout S] [--report-dir D]\n"
            "\n"
            "Check a consumer family's adapter (DIR: its folder, holding manifest.yaml) against the\n"
            "adapter contract of consumers/README.md (\"What every adapter must do\"): the manifest\n"
            "loads (causes, version ranges), setup installs the version, and on each scenario, in\n"
            "both modes, the adapter says ready, prints only change events and control lines,\n"
            "emits the watermark row, maps crud-basic uncompressed exactly (pass), stops when told,\n"
            "serves several cells per launch when its manifest says session: true, and prints its\n"
            "effective configuration (the config line). The compressed cells' verdicts are the\n"
            "consumer's, shown, never a contract failure.\n"
            "\n"
            "  --version V        the version to install and run (default: the first pinned one;\n"
            "                     any version the family's registry serves, or file:PATH)\n"
            "  --scenario P       a scenario (repeatable; default: crud-basic and all-types of the\n"
            "                     scenario library)\n"
            "  --consumer-config F  run it with this configuration file (CDCH_CONFIG)\n"
            "  --timeout S        per cell (default 60)\n"
            "  --report-dir D     the run's reports (default: a temporary directory, removed)\n"
            "\n"
            "Prints one line per check: ok, FAIL (the contract is broken; what to fix) or note.\n"
            "exit status: 0 no check failed, 1 some did, 2 usage error or DIR is not a family\n");
}

typedef struct checks {
    int failed, noted;
} checks;

static void say(checks *k, const char *what, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void say(checks *k, const char *what, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    printf("%-5s ", what);
    vprintf(fmt, ap);
    printf("\n");
    va_end(ap);
    if (strcmp(what, "FAIL") == 0)
        k->failed++;
    else if (strcmp(what, "note") == 0)
        k->noted++;
}

/* The checks on the cells of one run. */
static void check_cells(checks *k, cdch_run *r, const cdch_manifest *m)
{
    size_t n = cdch_run_ncells(r), launched = 0;
    bool any_config = false, setup_ok = true;
    for (size_t i = 0; i < n; i++) {
        cdch_cell *c = cdch_run_cell(r, i);
        if (c->verdict == CDCH_VERDICT_HARNESS_ERROR && !c->diff) {
            if (setup_ok || i == 0)
                say(k, "FAIL", "%s %s: the cell could not run: %s", c->scenario, c->mode,
                    c->summary ? c->summary : "");
            setup_ok = false;
            continue;
        }
        const char *where = c->scenario;
        launched += c->launched;
        any_config = any_config || c->config_line != NULL;
        if (!c->got_ready && c->observed_rows == 0)
            say(k, "FAIL", "%s %s: no {\"kind\":\"ready\"} line and no event within the startup timeout (item 1)",
                where, c->mode);
        else if (!c->got_ready)
            say(k, "note", "%s %s: events but no {\"kind\":\"ready\"} line (item 1)", where, c->mode);
        if (c->invalid_lines)
            say(k, "FAIL", "%s %s: %zu stdout line(s) are neither change events nor control lines (item 2: logs go "
                           "to stderr); first: %s",
                where, c->mode, c->invalid_lines, c->first_invalid);
        /* every row but the watermark's arrived: the adapter filters it (a consumer that lost more is
         * judged by its verdict) */
        if (!c->watermark_seen && c->expected_rows > 0 && c->observed_rows + 1 >= c->expected_rows)
            say(k, "FAIL", "%s %s: the watermark row (cdch_watermark, the stream's last transaction) never arrived: "
                           "an adapter must emit it like any row (item 2)",
                where, c->mode);
        if (c->stop == CDCH_STOP_FLOOD)
            say(k, "FAIL", "%s %s: stdout flood: more than 8 MiB + 4 x expected.jsonl (item 4)", where, c->mode);
        /* the stop's grace counts the adapter's own time (activity.h), so load does not fail it */
        if (c->stop != CDCH_STOP_EXITED && c->stop_forced)
            say(k, "FAIL", "%s %s: the adapter did not stop within its grace and was killed after %.1f s of its own time "
                           "(item 6: stop within 5 s of SIGTERM, or 10 s of the session's stop line)",
                where, c->mode, c->stop_seconds);
        bool basic = strcmp(c->scenario, "crud-basic") == 0 && strcmp(c->mode, "uncompressed") == 0;
        if (basic && c->verdict != CDCH_VERDICT_PASS)
            say(k, "FAIL", "crud-basic uncompressed: %s, not pass: inserts, updates and deletes of plain columns must "
                           "map exactly (consumers/README.md \"Output\"): %s",
                cdch_verdict_name(c->verdict), c->summary ? c->summary : "");
        else if (c->verdict == CDCH_VERDICT_PASS)
            say(k, "ok", "%s %s: pass (%zu rows)", where, c->mode, c->observed_rows);
        else
            say(k, "note", "%s %s: %s (the consumer's verdict, not a contract failure): %.200s", where, c->mode,
                cdch_verdict_name(c->verdict), c->summary ? c->summary : "");
    }
    if (!setup_ok)
        return;
    const cdch_manifest_version *v = n ? cdch_run_cell_version(r, cdch_run_cell(r, 0)) : NULL;
    bool session = v && cdch_manifest_session(m, v);
    if (session && n > 1 && launched == n)
        say(k, "FAIL", "session: true, but every cell launched the adapter again: it must serve cells one after "
                       "another in one launch and answer each stop with stopped (consumers/README.md \"Session mode\")");
    else if (session && n > 1)
        say(k, "ok", "session mode: %zu cell(s) in %zu launch(es)", n, launched);
    say(k, any_config ? "ok" : "note",
        any_config ? "prints its effective configuration (the config line, item 7)"
                   : "prints no {\"kind\":\"config\"} line: it takes no user configuration (item 7)");
}

int cmd_check_adapter(int argc, char **argv)
{
    enum { O_VERSION = CLI_O_EXTRA, O_CONFIG };
    static const struct option opts[] = {
        {"version", required_argument, NULL, O_VERSION},
        {"scenario", required_argument, NULL, 's'},
        {"consumer-config", required_argument, NULL, O_CONFIG},
        {"timeout", required_argument, NULL, 't'},
        {"report-dir", required_argument, NULL, 'r'},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    const char *version = NULL, *config = NULL, *report_dir = NULL, *scen[64];
    size_t ns = 0;
    double timeout = 60;
    int c;
    optind = 1;
    while ((c = getopt_long(argc, argv, "s:t:r:h", opts, NULL)) != -1) {
        switch (c) {
        case O_VERSION: version = optarg; break;
        case O_CONFIG: config = optarg; break;
        case 's':
            if (ns < 64)
                scen[ns++] = optarg;
            break;
        case 't': {
            char *end;
            timeout = strtod(optarg, &end);
            if (*end || timeout <= 0) {
                fprintf(stderr, "cdcharness check-adapter: --timeout wants a positive number of seconds\n");
                return CDCH_EXIT_USAGE;
            }
            break;
        }
        case 'r': report_dir = optarg; break;
        case 'h': check_usage(stdout); return CDCH_EXIT_OK;
        default: check_usage(stderr); return CDCH_EXIT_USAGE;
        }
    }
    if (optind != argc - 1) {
        check_usage(stderr);
        return CDCH_EXIT_USAGE;
    }
    char dir[PATH_MAX], parent[PATH_MAX], fam[PATH_MAX], mpath[PATH_MAX + 16];
    if (!realpath(argv[optind], dir) || !cli_is_dir(dir)) {
        fprintf(stderr, "cdcharness check-adapter: %s is not a folder\n", argv[optind]);
        return CDCH_EXIT_USAGE;
    }
    char work[PATH_MAX];
    snprintf(work, sizeof work, "%s", dir);
    snprintf(parent, sizeof parent, "%s", dirname(work));
    snprintf(work, sizeof work, "%s", dir);
    snprintf(fam, sizeof fam, "%s", basename(work));
    snprintf(mpath, sizeof mpath, "%s/manifest.yaml", dir);
    checks k = {0, 0};
    cdch_err err;
    cdch_manifest *m = cdch_manifest_load(mpath, &err);
    if (!m) {
        say(&k, "FAIL", "manifest: %s", err.msg);
        return CDCH_EXIT_BAD_INPUT;
    }
    if (strcmp(m->family, fam) != 0) {
        say(&k, "FAIL", "manifest: 'family: %s' does not match its folder name '%s'", m->family, fam);
        cdch_manifest_free(m);
        return CDCH_EXIT_BAD_INPUT;
    }
    say(&k, "ok", "manifest: %s loads (%zu pinned version(s), %zu known issue(s) with valid ranges)", m->family,
        m->nversions, m->nissues);
    if (!m->nsetup)
        say(&k, "note", "manifest: no 'setup': only the pinned versions can run, nothing is installed");
    char spec[PATH_MAX + 300];
    snprintf(spec, sizeof spec, "%s@%s", m->family, version ? version : m->versions[0].version);
    printf("      running %s (--version to pick another)\n", spec);
    fflush(stdout);

    char tmpl[] = "/tmp/cdch-check-adapter-XXXXXX";
    char *tmp = report_dir ? NULL : mkdtemp(tmpl);
    const char *dirs[] = {parent};
    cdch_run_opts ro;
    cdch_run_opts_init(&ro);
    ro.consumer_dirs = dirs;
    ro.nconsumer_dirs = 1;
    ro.timeout_s = timeout;
    ro.grace_s = 1;
    ro.report_dir = report_dir ? report_dir : tmp;
    ro.setup_progress = stderr;
    cdch_run *r = cdch_run_new(&ro);
    int rc = CDCH_EXIT_OK;
    if (cdch_run_add_consumer_config(r, spec, config, &err) != 0) {
        say(&k, "FAIL", "%s", err.msg);
        rc = CDCH_EXIT_USAGE;
        goto out;
    }
    if (!ns) {
        static char a[PATH_MAX + 64], b[PATH_MAX + 64];
        snprintf(a, sizeof a, "%s/scenarios/crud-basic.yaml", cli_data_dir());
        snprintf(b, sizeof b, "%s/scenarios/all-types.yaml", cli_data_dir());
        scen[ns++] = a;
        scen[ns++] = b;
    }
    for (size_t i = 0; i < ns; i++)
        if (cdch_run_add_scenario(r, scen[i], &err) != 0) {
            fprintf(stderr, "cdcharness check-adapter: %s\n", err.msg);
            rc = CDCH_EXIT_USAGE;
            goto out;
        }
    if (cdch_run_set_mode(r, "both", &err) != 0 || cdch_run_execute(r, &err) != 0) {
        say(&k, "FAIL", "%s", err.msg);
        rc = CDCH_EXIT_BAD_INPUT;
        goto out;
    }
    check_cells(&k, r, m);
    printf("%d check(s) failed, %d note(s)%s\n", k.failed, k.noted,
           k.failed ? ": fix the FAIL lines (consumers/README.md \"What every adapter must do\")" : "");
    rc = k.failed ? CDCH_EXIT_BAD_INPUT : CDCH_EXIT_OK;
out:
    cdch_run_free(r);
    cdch_manifest_free(m);
    if (tmp)
        cdch_rm_tree(tmp);
    return rc;
}
