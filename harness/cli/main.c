/* main.c — cdcharness: subcommand dispatch, --help, --version. */
#include <stdio.h>
#include <string.h>

#include "cli.h"

typedef struct subcommand {
    const char *name;
    int (*run)(int argc, char **argv);
    const char *summary;
} subcommand;

static const subcommand k_commands[] = {
    {"decode", cmd_decode, "decode binlog files to mysqlbinlog-style text or JSON Lines"},
    {"gen", cmd_gen, "generate binlog files and expected change events from a scenario"},
    {"recompress", cmd_recompress, "rewrite binlog files as MySQL writes them with compression on (a zstd level) or off"},
    {"estimate", cmd_estimate, "bytes, CPU, memory and consumer catch-up per zstd level on a captured stream"},
    {"serve", cmd_serve, "serve a scenario's stream as a fake MySQL primary (replication protocol)"},
    {"run", cmd_run, "run consumer adapters against scenarios: diffs, verdicts, reports"},
    {"check-adapter", cmd_check_adapter, "check a consumer family's adapter against the adapter contract (consumers/README.md)"},
    {"report", cmd_report, "merge shard reports, render report.json as junit, summary, HTML"},
    {"matrix", cmd_matrix, "run a compatibility matrix file (ci/matrix.yaml): shards, gates, HTML report"},
    {"record", cmd_record, "capture a binlog stream from a MySQL primary (or binlog files) into a capture directory"},
};

#define N_COMMANDS (sizeof k_commands / sizeof k_commands[0])

static void usage(FILE *f)
{
    fprintf(f,
            "usage: cdcharness <command> [options] [args]\n"
            "       cdcharness <command> --help\n"
            "       cdcharness --help | --version\n"
            "\n"
            "MySQL binlog compatibility harness for CDC consumers.\n"
            "\n"
            "commands:\n");
    for (size_t i = 0; i < N_COMMANDS; i++)
        fprintf(f, "  %-10s %s\n", k_commands[i].name, k_commands[i].summary);
    fprintf(f,
            "\n"
            "exit status: 0 ok, 1 bad input or failed check, 2 usage error\n");
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        usage(stderr);
        return CDCH_EXIT_USAGE;
    }
    const char *cmd = argv[1];
    if (strcmp(cmd, "--help") == 0 || strcmp(cmd, "-h") == 0 || strcmp(cmd, "help") == 0) {
        if (strcmp(cmd, "help") == 0 && argc > 2) {
            for (size_t i = 0; i < N_COMMANDS; i++) {
                if (strcmp(argv[2], k_commands[i].name) == 0) {
                    char *hargv[] = {argv[2], "--help", NULL};
                    return k_commands[i].run(2, hargv);
                }
            }
            fprintf(stderr, "cdcharness: unknown command '%s'\n\n", argv[2]);
            usage(stderr);
            return CDCH_EXIT_USAGE;
        }
        usage(stdout);
        return CDCH_EXIT_OK;
    }
    if (strcmp(cmd, "--version") == 0 || strcmp(cmd, "-V") == 0) {
        printf("cdcharness %s\n", CDCH_VERSION);
        return CDCH_EXIT_OK;
    }
    for (size_t i = 0; i < N_COMMANDS; i++) {
        if (strcmp(cmd, k_commands[i].name) == 0)
            return k_commands[i].run(argc - 1, argv + 1);
    }
    if (cmd[0] == '-')
        fprintf(stderr, "cdcharness: unknown option '%s'\n\n", cmd);
    else
        fprintf(stderr, "cdcharness: unknown command '%s'\n\n", cmd);
    usage(stderr);
    return CDCH_EXIT_USAGE;
}
