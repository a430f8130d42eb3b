/* cmd_gen.c — `cdcharness gen`: scenario -> binlog files + expected events. */
#include <getopt.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "cli.h"
#include "scenario.h"
#include "stream.h"

static void gen_usage(FILE *f)
{
    fprintf(f,
            "usage: cdcharness gen SCENARIO.yaml --out DIR [--mode compressed|uncompressed|both|flip] [--quiet]\n"
            "\n"
            "Generate the binlog files a MySQL server of the scenario's version would have\n"
            "written, and the change events a correct consumer must emit.\n"
            "\n"
            "  --out DIR    output directory (created; must not exist or be empty)\n"
            "  --mode M     compressed, uncompressed, both (default: the scenario's\n"
            "               binlog.compression; 'both' writes DIR/compressed and\n"
            "               DIR/uncompressed), or flip (one stream following the\n"
            "               scenario's mid-stream compression switches)\n"
            "  --quiet      no summary on stderr\n"
            "\n"
            "Each stream directory holds <basename>.000001..., <basename>.index,\n"
            "expected.jsonl and stream.json. Nothing is written when anything fails.\n"
            "exit status: 0 ok, 1 bad scenario or I/O error, 2 usage error\n");
}

static void summary(const cdch_scenario *s, cdch_stream_mode m, const char *dir, const cdch_stream_stats *st)
{
    fprintf(stderr,
            "%s [%s] -> %s: %llu file(s), %llu bytes, %llu events (%llu in payloads), %llu transactions "
            "(%llu compressed), %llu row changes\n",
            s->name, cdch_stream_mode_name(m), dir, (unsigned long long)st->files, (unsigned long long)st->bytes,
            (unsigned long long)st->events, (unsigned long long)st->inner_events,
            (unsigned long long)st->transactions, (unsigned long long)st->compressed_transactions,
            (unsigned long long)st->row_changes);
}

int cmd_gen(int argc, char **argv)
{
    static const struct option opts[] = {
        {"out", required_argument, NULL, 'o'}, {"mode", required_argument, NULL, 'm'},
        {"quiet", no_argument, NULL, 'q'},     {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    const char *out = NULL, *mode = NULL;
    bool quiet = false;
    int c;
    optind = 1;
    while ((c = getopt_long(argc, argv, "o:m:qh", opts, NULL)) != -1) {
        switch (c) {
        case 'o': out = optarg; break;
        case 'm': mode = optarg; break;
        case 'q': quiet = true; break;
        case 'h': gen_usage(stdout); return CDCH_EXIT_OK;
        default: gen_usage(stderr); return CDCH_EXIT_USAGE;
        }
    }
    if (optind != argc - 1 || !out) {
        fprintf(stderr, "cdcharness gen: %s\n\n", !out ? "--out DIR is required" : "give exactly one SCENARIO file");
        gen_usage(stderr);
        return CDCH_EXIT_USAGE;
    }
    if (mode && strcmp(mode, "both") && strcmp(mode, "compressed") && strcmp(mode, "uncompressed") &&
        strcmp(mode, "flip")) {
        fprintf(stderr, "cdcharness gen: unknown --mode '%s' (compressed, uncompressed, both or flip)\n", mode);
        return CDCH_EXIT_USAGE;
    }
    cdch_err err;
    cdch_scenario *s = cdch_scenario_load(argv[optind], &err);
    if (!s) {
        fprintf(stderr, "%s\n", err.msg);
        return CDCH_EXIT_BAD_INPUT;
    }
    if (!mode)
        mode = cli_scenario_mode(s, "both");
    cdch_stream_stats st;
    int rc = CDCH_EXIT_OK;
    if (strcmp(mode, "both") == 0) {
        char tmp[4096];
        if (cdch_stream_prepare_out(out, tmp, sizeof tmp, &err) != 0) {
            fprintf(stderr, "cdcharness gen: %s\n", err.msg);
            cdch_scenario_free(s);
            return CDCH_EXIT_BAD_INPUT;
        }
        static const cdch_stream_mode modes[2] = {CDCH_STREAM_COMPRESSED, CDCH_STREAM_UNCOMPRESSED};
        for (int i = 0; i < 2 && rc == CDCH_EXIT_OK; i++) {
            char dir[4200];
            snprintf(dir, sizeof dir, "%s/%s", tmp, cdch_stream_mode_name(modes[i]));
            if (cdch_stream_generate(s, modes[i], dir, &st, &err) != 0) {
                fprintf(stderr, "cdcharness gen: %s\n", err.msg);
                rc = CDCH_EXIT_BAD_INPUT;
            } else if (!quiet) {
                char shown[4200];
                snprintf(shown, sizeof shown, "%s/%s", out, cdch_stream_mode_name(modes[i]));
                summary(s, modes[i], shown, &st);
            }
        }
        if (rc == CDCH_EXIT_OK && cdch_stream_commit_out(tmp, out, &err) != 0) {
            fprintf(stderr, "cdcharness gen: %s\n", err.msg);
            rc = CDCH_EXIT_BAD_INPUT;
        }
        if (rc != CDCH_EXIT_OK)
            cdch_stream_rm_tree(tmp);
    } else {
        cdch_stream_mode m;
        cdch_stream_mode_parse(mode, &m);
        if (cdch_stream_generate(s, m, out, &st, &err) != 0) {
            fprintf(stderr, "cdcharness gen: %s\n", err.msg);
            rc = CDCH_EXIT_BAD_INPUT;
        } else if (!quiet) {
            summary(s, m, out, &st);
        }
    }
    cdch_scenario_free(s);
    return rc;
}
