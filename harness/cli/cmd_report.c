/* cmd_report.c — `cdcharness report`: join the reports of matrix shards
 * (merge) and render a report directory's pages from its report.json
 * (render). */
#include <getopt.h>
#include <sys/stat.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "report.h"
#include "reportlock.h"

static void report_usage(FILE *f)
{
    fprintf(f,
            "usage: cdcharness report merge --out DIR IN [IN ...]\n"
            "       cdcharness report render DIR\n"
            "       cdcharness report digest --out DIR REPORT\n"
            "\n"
            "report.json is the single source of a report: junit.xml, summary.md and\n"
            "report.html are rendered from it.\n"
            "\n"
            "  merge    join the reports of the shards of one matrix (run with --shard K/N)\n"
            "           into DIR: IN is a report directory or a report.json. Cells are\n"
            "           sorted by their matrix index (else by consumer, version, scenario,\n"
            "           mode), totals recomputed, each cell's logs (cells/...) copied, then\n"
            "           report.json, junit.xml, summary.md and report.html written. A cell\n"
            "           in two inputs (overlapping shards) or inputs of different matrices\n"
            "           are errors. The merge of all shards equals the report of one run.\n"
            "  render   write DIR/junit.xml, DIR/summary.md and DIR/report.html again from\n"
            "           DIR/report.json\n"
            "  digest   the small form of REPORT (a report directory or a report.json) for\n"
            "           committing: DIR/summary.md (per consumer family: verdict counts per\n"
            "           version, the causes cited, the verdict grid) and DIR/verdicts.json\n"
            "           (a line per cell; usable as `matrix --baseline`)\n"
            "\n"
            "  --out DIR  (merge, digest) the directory to write (created)\n"
            "\n"
            "The directory written (DIR) is locked like a run's report directory: one that\n"
            "a run, a matrix or another report command is writing is refused (exit 1).\n"
            "\n"
            "report.html is one self-contained page (no network): the verdict grid\n"
            "(consumer@version x scenario x mode), compression regressions outlined, each\n"
            "cell opening to its first differing events and stderr tail, and the bytes on\n"
            "the wire per scenario, compressed vs uncompressed.\n"
            "\n"
            "exit status: 0 written, 1 bad input (unreadable or inconsistent reports),\n"
            "2 usage error\n");
}

/* Options of merge and digest: --out DIR and at least one input; returns -1
 * to go on, else the exit status. */
static int parse_out(int argc, char **argv, const char *sub, const char *what, const char **out)
{
    static const struct option opts[] = {
        {"out", required_argument, NULL, 'o'},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    int c;
    optind = 1;
    while ((c = getopt_long(argc, argv, "o:h", opts, NULL)) != -1) {
        switch (c) {
        case 'o': *out = optarg; break;
        case 'h': report_usage(stdout); return CDCH_EXIT_OK;
        default: report_usage(stderr); return CDCH_EXIT_USAGE;
        }
    }
    if (!*out || optind >= argc) {
        fprintf(stderr, "cdcharness report %s: %s\n\n", sub, !*out ? "give --out DIR" : what);
        report_usage(stderr);
        return CDCH_EXIT_USAGE;
    }
    return -1;
}

/* Lock the directory a subcommand writes (reportlock.h), so that it never
 * writes into one a run or matrix is writing: *fd is the lock (release it
 * when done); -1 to go on, else the exit status (refused: the holder's pid
 * in the message). */
static int lock_out(const char *sub, const char *dir, int *fd)
{
    cdch_err err;
    *fd = cdch_reportlock_take(dir, &err);
    if (*fd == -1) {
        fprintf(stderr, "cdcharness report %s: %s\n", sub, err.msg);
        return CDCH_EXIT_BAD_INPUT;
    }
    return -1;
}

static int do_merge(int argc, char **argv)
{
    const char *out = NULL;
    int rc = parse_out(argc, argv, "merge", "give at least one report to merge", &out);
    if (rc >= 0)
        return rc;
    int lock;
    if ((rc = lock_out("merge", out, &lock)) >= 0)
        return rc;
    cdch_err err;
    rc = cdch_report_merge(out, (const char *const *)argv + optind, (size_t)(argc - optind), &err);
    cdch_reportlock_release(lock);
    if (rc != 0) {
        fprintf(stderr, "cdcharness report merge: %s\n", err.msg);
        return CDCH_EXIT_BAD_INPUT;
    }
    fprintf(stderr, "merged %d report(s): %s/{report.json,junit.xml,summary.md,report.html}\n", argc - optind, out);
    return CDCH_EXIT_OK;
}

static int do_digest(int argc, char **argv)
{
    const char *out = NULL;
    int rc = parse_out(argc, argv, "digest", "give one report (a directory or a report.json)", &out);
    if (rc >= 0)
        return rc;
    if (argc - optind != 1) {
        fprintf(stderr, "cdcharness report digest: give one report (a directory or a report.json)\n\n");
        report_usage(stderr);
        return CDCH_EXIT_USAGE;
    }
    int lock;
    if ((rc = lock_out("digest", out, &lock)) >= 0) /* creates out */
        return rc;
    cdch_err err;
    rc = cdch_report_digest(argv[optind], out, &err);
    cdch_reportlock_release(lock);
    if (rc != 0) {
        fprintf(stderr, "cdcharness report digest: %s\n", err.msg);
        return CDCH_EXIT_BAD_INPUT;
    }
    fprintf(stderr, "digest of %s: %s/{summary.md,verdicts.json}\n", argv[optind], out);
    return CDCH_EXIT_OK;
}

static int do_render(int argc, char **argv)
{
    static const struct option opts[] = {
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    int c;
    optind = 1;
    while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
        switch (c) {
        case 'h': report_usage(stdout); return CDCH_EXIT_OK;
        default: report_usage(stderr); return CDCH_EXIT_USAGE;
        }
    }
    if (argc - optind != 1) {
        fprintf(stderr, "cdcharness report render: give one report directory\n\n");
        report_usage(stderr);
        return CDCH_EXIT_USAGE;
    }
    /* a directory that is not there is render's error to tell, not one to create */
    struct stat sb;
    int lock = -1, rc;
    if (stat(argv[optind], &sb) == 0 && S_ISDIR(sb.st_mode) && (rc = lock_out("render", argv[optind], &lock)) >= 0)
        return rc;
    cdch_err err;
    rc = cdch_report_render(argv[optind], &err);
    cdch_reportlock_release(lock);
    if (rc != 0) {
        fprintf(stderr, "cdcharness report render: %s\n", err.msg);
        return CDCH_EXIT_BAD_INPUT;
    }
    return CDCH_EXIT_OK;
}

int cmd_report(int argc, char **argv)
{
    if (argc < 2) {
        report_usage(stderr);
        return CDCH_EXIT_USAGE;
    }
    const char *sub = argv[1];
    if (strcmp(sub, "--help") == 0 || strcmp(sub, "-h") == 0 || strcmp(sub, "help") == 0) {
        report_usage(stdout);
        return CDCH_EXIT_OK;
    }
    if (strcmp(sub, "merge") == 0)
        return do_merge(argc - 1, argv + 1);
    if (strcmp(sub, "render") == 0)
        return do_render(argc - 1, argv + 1);
    if (strcmp(sub, "digest") == 0)
        return do_digest(argc - 1, argv + 1);
    fprintf(stderr, "cdcharness report: unknown subcommand '%s' (merge, render or digest)\n\n", sub);
    report_usage(stderr);
    return CDCH_EXIT_USAGE;
}
