/* cli.h — the cdcharness command line: subcommand entry points and the
 * conventions they share.
 *
 * Owns: nothing. Each subcommand lives in its own cmd_<name>.c with one
 * entry point `int cmd_<name>(int argc, char **argv)` (argv[0] is the
 * subcommand name) returning the process exit status, and is listed in
 * main.c's table. opts.c holds what several subcommands share: the options
 * of `run` and `matrix`, the consumer directory default, the interrupt
 * handler, the scenario's own stream mode.
 */
#ifndef CDCH_CLI_H
#define CDCH_CLI_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "err.h"
#include "scenario.h"

#ifndef CDCH_VERSION /* from CMake project(VERSION) */
#define CDCH_VERSION "unknown"
#endif

/* Exit statuses shared by all subcommands. */
enum {
    CDCH_EXIT_OK = 0,
    CDCH_EXIT_BAD_INPUT = 1, /* malformed input, failed check, I/O error */
    CDCH_EXIT_USAGE = 2,     /* bad command line */
};

int cmd_decode(int argc, char **argv);
int cmd_gen(int argc, char **argv);
int cmd_recompress(int argc, char **argv);
int cmd_estimate(int argc, char **argv);
int cmd_serve(int argc, char **argv);
int cmd_run(int argc, char **argv);
int cmd_report(int argc, char **argv);
int cmd_matrix(int argc, char **argv);
int cmd_record(int argc, char **argv);
int cmd_check_adapter(int argc, char **argv);

/* ---- shared by the subcommands (opts.c) ------------------------------------------ */

/* The options `run` and `matrix` share. Each command lists its own long
 * options first and then CLI_CELL_LONGOPTS (glibc names the candidates of an
 * ambiguous abbreviation in table order), and hands every getopt code its own
 * switch does not handle to cli_cell_opt. Its own long-only codes start at
 * CLI_O_EXTRA. */
enum {
    CLI_O_BASELINE = 256,
    CLI_O_REPORT_DIR,
    CLI_O_CONSUMERS_DIR,
    CLI_O_QUIET,
    CLI_O_START,
    CLI_O_CONSUMER_CONFIG,
    CLI_O_CONSUMER_CMD,
    CLI_O_CONSUMER_NAME,
    CLI_O_ORACLE,
    CLI_O_IGNORE,
    CLI_O_NORMALIZE,
    CLI_O_SESSIONS,
    CLI_O_KEEP_OBSERVED,
    CLI_O_EXTRA
};

#define CLI_CELL_LONGOPTS                                                                                            \
    {"baseline", required_argument, NULL, CLI_O_BASELINE}, {"timeout", required_argument, NULL, 't'},               \
        {"report-dir", required_argument, NULL, CLI_O_REPORT_DIR},                                                  \
        {"consumers-dir", required_argument, NULL, CLI_O_CONSUMERS_DIR}, {"quiet", no_argument, NULL, CLI_O_QUIET}, \
        {"jobs", required_argument, NULL, 'j'}, {"start", required_argument, NULL, CLI_O_START},                   \
        {"consumer-config", required_argument, NULL, CLI_O_CONSUMER_CONFIG},                                      \
        {"consumer-cmd", required_argument, NULL, CLI_O_CONSUMER_CMD},                                            \
        {"consumer-name", required_argument, NULL, CLI_O_CONSUMER_NAME},                                          \
        {"oracle", required_argument, NULL, CLI_O_ORACLE}, {"ignore", required_argument, NULL, CLI_O_IGNORE},     \
        {"normalize", required_argument, NULL, CLI_O_NORMALIZE},                                                  \
        {"sessions", required_argument, NULL, CLI_O_SESSIONS},                                                    \
        {"keep-observed", no_argument, NULL, CLI_O_KEEP_OBSERVED}, {"help", no_argument, NULL, 'h'}

#define CLI_MAX_CONSUMER_DIRS 32

/* Parsed shared options; the strings point into argv. */
typedef struct cli_cell_opts {
    const char *cmd;          /* "run" or "matrix": names the command in messages */
    bool terse_timeout;       /* matrix's message for a bad --timeout has never quoted
                               * the value; kept so its messages stay as they were */
    bool bad;                 /* a value was rejected (the message is printed) */
    double timeout_s;         /* --timeout; 0: not given */
    long jobs;                /* -j; the command's default until given */
    long sessions;            /* --sessions; 0: the runner's default (three per core) */
    const char *baseline;     /* --baseline REPORT.json or NULL */
    const char *report_dir;   /* --report-dir (default reports/latest) */
    const char *dirs[CLI_MAX_CONSUMER_DIRS]; /* --consumers-dir, in order (more are ignored) */
    size_t ndirs;
    bool quiet;
    bool keep_observed;       /* --keep-observed: every cell's observed.jsonl stays (runner.h) */
    int start;                /* --start: a cdch_start_mode (runner.h); 0 = auto */
    const char *configs[64];  /* --consumer-config SPEC=FILE, in order */
    size_t nconfigs;
    const char *cmds[64];     /* --consumer-cmd COMMAND, in order */
    const char *cmd_names[64];/* the --consumer-name given before each (NULL: derived, command.h) */
    size_t ncmds;
    const char *next_name;    /* a --consumer-name waiting for its --consumer-cmd */
    int oracle;               /* --oracle: a cdch_oracle_kind (oracle.h); 0 = canonical */
    const char *ignore[32], *normalize[32]; /* --ignore / --normalize REGEX */
    size_t nignore, nnormalize;
} cli_cell_opts;

/* The default -j of `run` and `matrix`: ten cells a core, at most 64 (opts.c says why). */
long cli_default_jobs(void);

/* The --help lines of -j and --sessions, the same for `run` and `matrix`. */
#define CLI_JOBS_HELP                                                                                    \
    "  -j N               cells in parallel (default: 10 a core, at most 64: cells mostly wait)\n"     \
    "  --sessions N       session-mode consumers (a JVM, a Go, Python or Node process that runs\n"    \
    "                     cell after cell): processes of one consumer at once, shared by the\n"      \
    "                     workers (default: three a core, and as many as -j for a consumer\n" \
    "                     whose launch costs under 0.5 CPU-s; each more is another warm-up,\n"     \
    "                     so a dear one is launched only when the cells its consumer has left\n" \
    "                     need it to keep pace with the run)\n"

/* The --keep-observed lines of `run` and `matrix` --help. */
#define CLI_KEEP_OBSERVED_HELP                                                                           \
    "  --keep-observed    keep every cell's observed.jsonl (its adapter's stdout); without\n"          \
    "                     it, a cell that passed with no warning drops one over 1 MiB once\n"     \
    "                     judged (its rows are the expected rows; report.json observed_kept)\n"

/* The lines of `run` and `matrix` --help for programs and the differential oracle. */
#define CLI_ORACLE_HELP                                                                                  \
    "  --consumer-cmd 'COMMAND ...'  run any program as a consumer (no adapter): /bin/sh -c\n"          \
    "                     COMMAND in this directory, with an adapter's environment (CDCH_HOST,\n"     \
    "                     CDCH_PORT, CDCH_USER, CDCH_PASSWORD, CDCH_SERVER_ID, CDCH_START_FILE,\n"    \
    "                     CDCH_START_POS, CDCH_GTID_SET, CDCH_DATABASES: consumers/README.md);\n"    \
    "                     each stdout line is a row, stderr its log. Judged against itself:\n"      \
    "                     its rows on the compressed and flip streams must equal its rows on\n"     \
    "                     the uncompressed stream; the uncompressed cell passes with as many\n"     \
    "                     rows as the scenario's expected rows (repeatable)\n"                      \
    "  --consumer-name N  the name of the next --consumer-cmd in reports (default: its\n"            \
    "                     program's file name without extension)\n"                                  \
    "  --oracle O         how adapters are judged: canonical (default: expected.jsonl by\n"          \
    "                     column type), differential (against the consumer's own rows on the\n"    \
    "                     uncompressed stream, \"pos\" ignored) or both (canonical verdict,\n"       \
    "                     differential beside it, which decides compression-regression)\n"         \
    "  --ignore REGEX     stdout lines matching REGEX (POSIX extended) are not rows\n"             \
    "                     (repeatable)\n"                                                             \
    "  --normalize REGEX  remove every match of REGEX from each row before comparing\n"              \
    "                     (positions, timestamps; repeatable, applied in order)\n"

/* The --consumer-config lines of `run` and `matrix` --help. */
#define CLI_CONFIG_HELP                                                                                  \
    "  --consumer-config C=F  run consumer C (FAMILY, or FAMILY@VERSION as given to --consumer)\n"     \
    "                     with configuration file F, in the family's own format (a Debezium\n"       \
    "                     .properties or JSON, BinLogStreamReader keyword arguments as JSON,\n"       \
    "                     ...: consumers/README.md \"Your configuration\"); repeatable, the last\n"  \
    "                     match wins. The adapter reports the settings it gave the library\n"        \
    "                     (report.json config_effective); those the harness owns (host, port,\n"     \
    "                     credentials, server id, offsets) are kept and listed as kept\n"

/* The file --consumer-config gives consumer spec ("FAMILY[@VERSION]"), NULL
 * when none: the last SPEC=FILE whose SPEC is spec itself or its family. */
const char *cli_config_for(const cli_cell_opts *o, const char *spec);

/* Every --consumer-config SPEC must name a family of specs[0..n) (or one of
 * them): false with a message printed otherwise. */
bool cli_configs_used(const cli_cell_opts *o, const char *const *specs, size_t n);

struct cdch_run;
struct cdch_oracle_filter;
/* The compiled --ignore / --normalize (NULL, message printed, when a regex is
 * bad; *ok false then). None given: NULL with *ok true. */
struct cdch_oracle_filter *cli_oracle_filter(const cli_cell_opts *o, bool *ok);
/* Add every --consumer-cmd to run r; false (message printed) on an error. */
bool cli_add_commands(const cli_cell_opts *o, struct cdch_run *r);

/* The --start lines of `run` and `matrix` --help. */
#define CLI_START_HELP                                                                                   \
    "  --start M          where consumers start: auto (default: attach where the scenario\n"           \
    "                     or the consumer's manifest says `start: attach`), attach (every\n"            \
    "                     cell: the schema pre-exists on the fake primary, whose catalogue\n"          \
    "                     already holds the tables, and the consumer starts after the\n"               \
    "                     stream's leading CREATE DATABASE/TABLE, by file:position and by\n"           \
    "                     GTID set; those events are not expected) or empty (no cell: every\n"       \
    "                     consumer starts at the first event, before the schema's DDL).\n"           \
    "                     A scenario's start: {skip_txns: N} wins over all three\n"

void cli_cell_opts_init(cli_cell_opts *o, const char *cmd, long default_jobs);

/* Take getopt code c (with optarg arg) if it is a shared option: returns 1
 * when taken, 0 when taken but its value was bad (message printed, o->bad
 * set), -1 when c is not a shared option ('?' included). 'h' is left to the
 * command (its usage text). */
int cli_cell_opt(cli_cell_opts *o, int c, const char *arg);

/* *out = the positive number of seconds s gives option opt; false (message
 * printed, o->bad set) when s is not one. */
bool cli_secs(cli_cell_opts *o, const char *opt, const char *s, double *out);

bool cli_is_dir(const char *path);

/* Where consumer families live when nothing says: ./consumers, else the
 * source tree's. */
const char *cli_default_consumers_dir(void);

/* SIGINT, SIGTERM and SIGHUP stop the running adapters (cdch_proc_interrupt);
 * the command still writes its report. */
void cli_trap_interrupts(void);

/* The stream mode a scenario's binlog.compression names ("compressed",
 * "uncompressed", "flip"), or fallback when it says both. */
const char *cli_scenario_mode(const cdch_scenario *s, const char *fallback);

/* Link emulation values (`serve --link-rate/--link-delay`, `estimate --link`):
 * a rate "256kbit", "10mbit", "1gbit", "64kbps" (bytes), a plain number =
 * bit/s, into bits per second; a delay "100ms", "1s", "500us" (plain number =
 * ms, at most 600 s) into milliseconds. 0 on success, -1 when s is not one. */
int cli_parse_rate(const char *s, uint64_t *bps);
int cli_parse_delay(const char *s, uint32_t *ms);

/* `cdcharness estimate` as a library call (cmd_estimate.c), for a deployment
 * file's `estimate:` (cmd_matrix --pre-flip): the capture directory measured
 * at levels (`--levels` syntax), with link (`--link` syntax; NULL: none) the
 * catch-up of the harness's replica; estimate's table printed on out (NULL:
 * none); label: the capture as the figures name it (NULL: the path). Returns the figures exactly as `estimate --json` writes them (one
 * JSON object, no newline; the caller frees it), or NULL with err set. */
char *cli_estimate_capture(const char *capture, const char *label, const char *levels, const char *link,
                           const char *consumers_dir, bool quiet, FILE *out, cdch_err *err);
/* Whether link is `estimate --link` syntax (RATE or RATE/DELAY). */
bool cli_estimate_link_ok(const char *link);

#endif
