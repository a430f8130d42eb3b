/* opts.c — what several subcommands share: the options of `run` and
 * `matrix` (timeout, jobs, baseline, report and consumer directories,
 * quiet), the consumer directory default, the interrupt handler, the
 * stream mode a scenario names, and the link rate/delay syntax (serve, estimate). */
#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"
#include "paths.h"
#include "proc.h"
#include "runner.h"


/* Cells mostly wait on their consumers (sockets, library timers, quiet windows), so ten cells a
 * core: measured 2026-12-02 on 2 cores, idle, the default matrix -j 10 474 / 482 s, -j 14 441 s,
 * -j 20 387 s (verdicts identical; 15.7 GB of 24 still available at -j 20); the quick subset
 * -j 10 31 s, -j 20 38 s (then more session JVMs: one per worker; since session.h, the workers
 * share them, three a core per consumer whose launch is dear), identical again in two runs beside stress-ng (bench/README.md
 * "The -j default"). `run` has the same default since 2026-12-05: a user checking one consumer
 * waits for its cells alone. */
long cli_default_jobs(void)
{
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    long jobs = 10 * (cores < 1 ? 1 : cores);
    return jobs > 64 ? 64 : jobs;
}

void cli_cell_opts_init(cli_cell_opts *o, const char *cmd, long default_jobs)
{
    memset(o, 0, sizeof *o);
    o->cmd = cmd;
    o->jobs = default_jobs;
    o->report_dir = "reports/latest";
}

bool cli_secs(cli_cell_opts *o, const char *opt, const char *s, double *out)
{
    char *end;
    *out = strtod(s, &end);
    if (!*end && *out > 0)
        return true;
    if (o->terse_timeout)
        fprintf(stderr, "cdcharness %s: %s wants a positive number of seconds\n", o->cmd, opt);
    else
        fprintf(stderr, "cdcharness %s: %s wants a positive number of seconds, not '%s'\n", o->cmd, opt, s);
    o->bad = true;
    return false;
}

/* A count of 1..256 (-j, --sessions). */
static bool count_1_256(cli_cell_opts *o, const char *opt, const char *arg, long *out)
{
    char *end;
    long n = strtol(arg, &end, 10);
    if (end == arg || *end || n < 1 || n > 256) {
        fprintf(stderr, "cdcharness %s: %s wants 1..256, not '%s'\n", o->cmd, opt, arg);
        o->bad = true;
        return false;
    }
    *out = n;
    return true;
}

int cli_cell_opt(cli_cell_opts *o, int c, const char *arg)
{
    bool ok = true;
    switch (c) {
    case 't': ok = cli_secs(o, "--timeout", arg, &o->timeout_s); break;
    case 'j': ok = count_1_256(o, "-j", arg, &o->jobs); break;
    case CLI_O_SESSIONS: ok = count_1_256(o, "--sessions", arg, &o->sessions); break;
    case CLI_O_BASELINE: o->baseline = arg; break;
    case CLI_O_REPORT_DIR: o->report_dir = arg; break;
    case CLI_O_CONSUMERS_DIR:
        if (o->ndirs < CLI_MAX_CONSUMER_DIRS)
            o->dirs[o->ndirs++] = arg;
        break;
    case CLI_O_QUIET: o->quiet = true; break;
    case CLI_O_KEEP_OBSERVED: o->keep_observed = true; break;
    case CLI_O_CONSUMER_CONFIG: {
        const char *eq = strchr(arg, '=');
        if (!eq || eq == arg || !eq[1]) {
            fprintf(stderr, "cdcharness %s: --consumer-config wants FAMILY=FILE or FAMILY@VERSION=FILE, not '%s'\n",
                    o->cmd, arg);
            o->bad = true;
            ok = false;
        } else if (o->nconfigs < sizeof o->configs / sizeof o->configs[0]) {
            o->configs[o->nconfigs++] = arg;
        }
        break;
    }
    case CLI_O_START: {
        cdch_start_mode m;
        if (cdch_start_mode_parse(arg, &m) != 0) {
            fprintf(stderr, "cdcharness %s: --start wants auto, attach or empty, not '%s'\n", o->cmd, arg);
            o->bad = true;
            ok = false;
        }
        o->start = ok ? (int)m : 0;
        break;
    }
    case CLI_O_CONSUMER_NAME: o->next_name = arg; break;
    case CLI_O_CONSUMER_CMD:
        if (o->ncmds < sizeof o->cmds / sizeof o->cmds[0]) {
            o->cmd_names[o->ncmds] = o->next_name;
            o->cmds[o->ncmds++] = arg;
        }
        o->next_name = NULL;
        break;
    case CLI_O_ORACLE: {
        cdch_oracle_kind k;
        if (cdch_oracle_kind_parse(arg, &k) != 0) {
            fprintf(stderr, "cdcharness %s: --oracle wants canonical, differential or both, not '%s'\n", o->cmd, arg);
            o->bad = true;
            ok = false;
        }
        o->oracle = ok ? (int)k : 0;
        break;
    }
    case CLI_O_IGNORE:
        if (o->nignore < sizeof o->ignore / sizeof o->ignore[0])
            o->ignore[o->nignore++] = arg;
        break;
    case CLI_O_NORMALIZE:
        if (o->nnormalize < sizeof o->normalize / sizeof o->normalize[0])
            o->normalize[o->nnormalize++] = arg;
        break;
    default: return -1;
    }
    return ok ? 1 : 0;
}

cdch_oracle_filter *cli_oracle_filter(const cli_cell_opts *o, bool *ok)
{
    *ok = true;
    if (!o->nignore && !o->nnormalize)
        return NULL;
    cdch_err err;
    cdch_oracle_filter *f = cdch_oracle_filter_new(o->ignore, o->nignore, o->normalize, o->nnormalize, &err);
    if (!f) {
        fprintf(stderr, "cdcharness %s: %s\n", o->cmd, err.msg);
        *ok = false;
    }
    return f;
}

bool cli_add_commands(const cli_cell_opts *o, cdch_run *r)
{
    if (o->next_name) {
        fprintf(stderr, "cdcharness %s: --consumer-name %s names no --consumer-cmd (give it before the command)\n",
                o->cmd, o->next_name);
        return false;
    }
    for (size_t i = 0; i < o->ncmds; i++) {
        cdch_err err;
        if (cdch_run_add_command(r, o->cmd_names[i], o->cmds[i], NULL, false, &err) != 0) {
            fprintf(stderr, "cdcharness %s: %s\n", o->cmd, err.msg);
            return false;
        }
    }
    return true;
}

/* Whether the SPEC of --consumer-config "SPEC=FILE" is spec, or spec's family. */
static bool config_matches(const char *cfg, const char *spec)
{
    size_t sl = (size_t)(strchr(cfg, '=') - cfg);
    if (strlen(spec) == sl && strncmp(cfg, spec, sl) == 0)
        return true;
    const char *at = strchr(spec, '@');
    size_t fl = at ? (size_t)(at - spec) : strlen(spec);
    return fl == sl && strncmp(cfg, spec, sl) == 0;
}

const char *cli_config_for(const cli_cell_opts *o, const char *spec)
{
    const char *found = NULL;
    for (size_t i = 0; i < o->nconfigs; i++)
        if (config_matches(o->configs[i], spec))
            found = strchr(o->configs[i], '=') + 1;
    return found;
}

bool cli_configs_used(const cli_cell_opts *o, const char *const *specs, size_t n)
{
    for (size_t i = 0; i < o->nconfigs; i++) {
        bool used = false;
        for (size_t k = 0; k < n && !used; k++)
            used = strcmp(specs[k], "*") == 0 || config_matches(o->configs[i], specs[k]);
        if (!used) {
            fprintf(stderr, "cdcharness %s: --consumer-config %s: no consumer of the run is '%.*s'\n", o->cmd,
                    o->configs[i], (int)(strchr(o->configs[i], '=') - o->configs[i]), o->configs[i]);
            return false;
        }
    }
    return true;
}

bool cli_is_dir(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

const char *cli_default_consumers_dir(void)
{
    static char dir[4096];
    if (cli_is_dir("consumers"))
        return "consumers";
    snprintf(dir, sizeof dir, "%s/consumers", cli_data_dir());
    return dir;
}

static void on_interrupt(int sig)
{
    (void)sig;
    cdch_proc_interrupt(); /* adapters are stopped and reaped; the report is still written */
}

void cli_trap_interrupts(void)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_interrupt;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    sigaction(SIGHUP, &sa, NULL);
}

const char *cli_scenario_mode(const cdch_scenario *s, const char *fallback)
{
    switch (s->binlog.compression) {
    case CDCH_COMPRESSION_ON: return "compressed";
    case CDCH_COMPRESSION_OFF: return "uncompressed";
    case CDCH_COMPRESSION_FLIP: return "flip";
    default: return fallback;
    }
}

/* "256kbit" -> bits per second. */
int cli_parse_rate(const char *s, uint64_t *out)
{
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    if (errno || end == s || v < 0)
        return -1;
    static const struct { const char *suffix; double mult; } units[] = {
        {"", 1},          {"bit", 1},        {"bps", 8},          {"k", 1e3},     {"kbit", 1e3},
        {"kbps", 8e3},    {"m", 1e6},        {"mbit", 1e6},       {"mbps", 8e6},  {"g", 1e9},
        {"gbit", 1e9},    {"gbps", 8e9},     {"kibit", 1024.0},   {"mibit", 1048576.0},
    };
    for (size_t i = 0; i < sizeof units / sizeof units[0]; i++)
        if (strcasecmp(end, units[i].suffix) == 0) {
            *out = (uint64_t)(v * units[i].mult);
            return 0;
        }
    return -1;
}

/* "100ms" -> milliseconds. */
int cli_parse_delay(const char *s, uint32_t *out)
{
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    if (errno || end == s || v < 0)
        return -1;
    double ms;
    if (!*end || !strcasecmp(end, "ms"))
        ms = v;
    else if (!strcasecmp(end, "s"))
        ms = v * 1000;
    else if (!strcasecmp(end, "us"))
        ms = v / 1000;
    else
        return -1;
    if (ms > 600000)
        return -1;
    *out = (uint32_t)(ms + 0.5);
    return 0;
}
