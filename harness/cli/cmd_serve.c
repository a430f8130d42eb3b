/* cmd_serve.c — `cdcharness serve`: generate a scenario's stream and serve
 * it as a fake MySQL primary until SIGINT/SIGTERM. */
#include <errno.h>
#include <getopt.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "cli.h"
#include "scenario.h"
#include "server.h"
#include "stream.h"

static void serve_usage(FILE *f)
{
    fprintf(f,
            "usage: cdcharness serve SCENARIO.yaml [--mode compressed|uncompressed|flip] [options]\n"
            "\n"
            "Generate the scenario's binlog stream (into a temporary directory, removed at\n"
            "exit) and serve it as a MySQL %s primary: handshake and authentication,\n"
            "the queries connectors send, COM_BINLOG_DUMP[_GTID]. Prints\n"
            "'listening on ADDR:PORT' on stdout once ready; with dumps running, prints\n"
            "the bytes sent each second on stderr. Stops on SIGINT or SIGTERM.\n"
            "\n"
            "  --mode M             compressed, uncompressed or flip (default: the\n"
            "                       scenario's binlog.compression when it names one)\n"
            "  --stream-dir DIR     serve an already generated stream instead\n"
            "  --port N             TCP port (default 0: a free port)\n"
            "  --bind ADDR          address to listen on (default 127.0.0.1)\n"
            "  --user U, --password P   the account (default cdch / cdch)\n"
            "  --auth PLUGIN        caching_sha2_password (default) or mysql_native_password\n"
            "                       (an 8.4 scenario loads mysql_native_password only with\n"
            "                       server.mysql_native_password: on, 9.x never: there the\n"
            "                       account stays caching_sha2_password, as on MySQL)\n"
            "  --version-string S   version in the handshake and @@version (default: the\n"
            "                       scenario's server.version)\n"
            "  --tls-cert F --tls-key F  PEM certificate and key (default: self-signed,\n"
            "                       generated at start)\n"
            "  --log-queries        print every statement clients send on stderr\n"
            "  --connect-timeout S  seconds to wait for each handshake packet before\n"
            "                       answering ERR 1043 and closing, and for the whole TLS\n"
            "                       handshake (MySQL's connect_timeout; default 10)\n"
            "  --link-rate R        shape what the server sends: 256kbit, 10mbit, 1gbit,\n"
            "                       64kbps (bytes), a plain number = bit/s\n"
            "  --link-delay D       add one-way delay: 100ms, 1s (plain number = ms)\n"
            "faults injected into binlog dumps (events numbered from 1 per dump):\n"
            "  --drop-after-events N      close the connection after N events\n"
            "  --drop-after-bytes N       ... after N bytes of events (mid-event if it falls there)\n"
            "  --corrupt-checksum-at N    flip a CRC bit in the Nth event\n"
            "  --truncate-event-at N      send half of the Nth event, then close\n"
            "  --unknown-event-at N       send an event of unknown type 199 before the Nth\n"
            "  --stall-at N               stop sending (connection kept open) before the Nth\n"
            "  --faults-once              apply the faults to the first dump only\n"
            "  --quiet                    no generation summary and no per-second report\n"
            "\n"
            "exit status: 0 stopped by a signal, 1 bad scenario or server error, 2 usage error\n",
            "8.x");
}

static volatile sig_atomic_t g_stop;
static void on_signal(int sig) { g_stop = sig; }

static int parse_count(const char *opt, const char *s, uint64_t *out)
{
    char *end;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 10);
    if (errno || end == s || *end || s[0] == '-') {
        fprintf(stderr, "cdcharness serve: %s wants a non-negative integer, not '%s'\n", opt, s);
        return -1;
    }
    *out = v;
    return 0;
}

static void human_rate(double bytes_per_s, char *b, size_t cap)
{
    double bits = bytes_per_s * 8;
    if (bits >= 1e9)
        snprintf(b, cap, "%.2f Gbit/s", bits / 1e9);
    else if (bits >= 1e6)
        snprintf(b, cap, "%.2f Mbit/s", bits / 1e6);
    else
        snprintf(b, cap, "%.1f kbit/s", bits / 1e3);
}

enum {
    OPT_MODE = 256, OPT_PORT, OPT_BIND, OPT_USER, OPT_PASSWORD, OPT_AUTH, OPT_VERSION, OPT_CERT, OPT_KEY, OPT_LOG,
    OPT_RATE, OPT_DELAY, OPT_DROP_EVENTS, OPT_DROP_BYTES, OPT_CORRUPT, OPT_TRUNCATE, OPT_UNKNOWN, OPT_STALL,
    OPT_ONCE, OPT_QUIET, OPT_STREAM_DIR, OPT_CONNECT_TIMEOUT,
};

/* The command line of `serve`, parsed. */
typedef struct serve_args {
    cdch_server_opts so;
    const char *mode;       /* NULL: the scenario's */
    const char *stream_dir; /* NULL: generate the stream */
    const char *scenario;
    bool quiet;
} serve_args;

/* The fault counter a fault option sets, or NULL. */
static uint64_t *fault_counter(cdch_server_faults *f, int c)
{
    switch (c) {
    case OPT_DROP_EVENTS: return &f->drop_after_events;
    case OPT_DROP_BYTES: return &f->drop_after_bytes;
    case OPT_CORRUPT: return &f->corrupt_checksum_at;
    case OPT_TRUNCATE: return &f->truncate_event_at;
    case OPT_UNKNOWN: return &f->unknown_event_at;
    case OPT_STALL: return &f->stall_at;
    default: return NULL;
    }
}

/* Take option c (long option `name`) with value arg into a; false (message
 * printed) on a bad value. */
static bool serve_opt(serve_args *a, int c, const char *name, const char *arg)
{
    cdch_server_opts *so = &a->so;
    uint64_t v, *counter = fault_counter(&so->faults, c);
    char opt[64];
    snprintf(opt, sizeof opt, "--%s", name);
    if (counter)
        return parse_count(opt, arg, counter) == 0;
    switch (c) {
    case OPT_MODE: a->mode = arg; break;
    case OPT_PORT:
        if (parse_count(opt, arg, &v) != 0 || v > 65535) {
            fprintf(stderr, "cdcharness serve: --port must be 0..65535\n");
            return false;
        }
        so->port = (uint16_t)v;
        break;
    case OPT_BIND: so->bind = arg; break;
    case OPT_USER: so->user = arg; break;
    case OPT_PASSWORD: so->password = arg; break;
    case OPT_AUTH:
        if (!strcmp(arg, "caching_sha2_password"))
            so->auth = CDCH_AUTH_CACHING_SHA2;
        else if (!strcmp(arg, "mysql_native_password"))
            so->auth = CDCH_AUTH_NATIVE;
        else {
            fprintf(stderr, "cdcharness serve: --auth is caching_sha2_password or mysql_native_password, not '%s'\n",
                    arg);
            return false;
        }
        break;
    case OPT_VERSION: so->version_string = arg; break;
    case OPT_CERT: so->tls_cert = arg; break;
    case OPT_KEY: so->tls_key = arg; break;
    case OPT_LOG: so->log_queries = true; break;
    case OPT_CONNECT_TIMEOUT:
        if (parse_count(opt, arg, &v) != 0 || v < 1 || v > 31536000) {
            fprintf(stderr, "cdcharness serve: --connect-timeout is a number of seconds, 1..31536000\n");
            return false;
        }
        so->connect_timeout_s = (uint32_t)v;
        break;
    case OPT_RATE:
        if (cli_parse_rate(arg, &so->link_rate_bps) != 0) {
            fprintf(stderr, "cdcharness serve: --link-rate '%s': use e.g. 256kbit, 10mbit, 64kbps or bits/s\n", arg);
            return false;
        }
        break;
    case OPT_DELAY:
        if (cli_parse_delay(arg, &so->link_delay_ms) != 0) {
            fprintf(stderr, "cdcharness serve: --link-delay '%s': use e.g. 100ms or 1s (at most 600s)\n", arg);
            return false;
        }
        break;
    case OPT_ONCE: so->faults.once = true; break;
    case OPT_STREAM_DIR: a->stream_dir = arg; break;
    case OPT_QUIET: a->quiet = true; break;
    default: break;
    }
    return true;
}

/* Parse argv into a; returns -1 to go on, else the exit status (--help, or
 * the first usage error). */
static int serve_parse(int argc, char **argv, serve_args *a)
{
    static const struct option opts[] = {
        {"mode", required_argument, NULL, OPT_MODE},
        {"port", required_argument, NULL, OPT_PORT},
        {"bind", required_argument, NULL, OPT_BIND},
        {"user", required_argument, NULL, OPT_USER},
        {"password", required_argument, NULL, OPT_PASSWORD},
        {"auth", required_argument, NULL, OPT_AUTH},
        {"version-string", required_argument, NULL, OPT_VERSION},
        {"tls-cert", required_argument, NULL, OPT_CERT},
        {"tls-key", required_argument, NULL, OPT_KEY},
        {"log-queries", no_argument, NULL, OPT_LOG},
        {"connect-timeout", required_argument, NULL, OPT_CONNECT_TIMEOUT},
        {"link-rate", required_argument, NULL, OPT_RATE},
        {"link-delay", required_argument, NULL, OPT_DELAY},
        {"drop-after-events", required_argument, NULL, OPT_DROP_EVENTS},
        {"drop-after-bytes", required_argument, NULL, OPT_DROP_BYTES},
        {"corrupt-checksum-at", required_argument, NULL, OPT_CORRUPT},
        {"truncate-event-at", required_argument, NULL, OPT_TRUNCATE},
        {"unknown-event-at", required_argument, NULL, OPT_UNKNOWN},
        {"stall-at", required_argument, NULL, OPT_STALL},
        {"faults-once", no_argument, NULL, OPT_ONCE},
        {"stream-dir", required_argument, NULL, OPT_STREAM_DIR},
        {"quiet", no_argument, NULL, OPT_QUIET},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    memset(a, 0, sizeof *a);
    int c, li = 0;
    optind = 1;
    while ((c = getopt_long(argc, argv, "h", opts, &li)) != -1) {
        if (c == 'h') {
            serve_usage(stdout);
            return CDCH_EXIT_OK;
        }
        if (c == '?') {
            serve_usage(stderr);
            return CDCH_EXIT_USAGE;
        }
        if (!serve_opt(a, c, opts[li].name, optarg))
            return CDCH_EXIT_USAGE;
    }
    if (optind != argc - 1) {
        fprintf(stderr, "cdcharness serve: give exactly one SCENARIO file\n\n");
        serve_usage(stderr);
        return CDCH_EXIT_USAGE;
    }
    if ((a->so.tls_cert != NULL) != (a->so.tls_key != NULL)) {
        fprintf(stderr, "cdcharness serve: --tls-cert and --tls-key go together\n");
        return CDCH_EXIT_USAGE;
    }
    a->scenario = argv[optind];
    return -1;
}

/* Generate s's stream in mode m into a new temporary directory: *tmp (to
 * remove; "" when none was made) and dir (its stream). */
static int serve_generate(const cdch_scenario *s, cdch_stream_mode m, bool quiet, char *tmp, size_t tmpcap,
                          char *dir, size_t dircap)
{
    const char *base = getenv("TMPDIR");
    snprintf(tmp, tmpcap, "%s/cdch-serve.XXXXXX", base && *base ? base : "/tmp");
    if (!mkdtemp(tmp)) {
        fprintf(stderr, "cdcharness serve: cannot create a temporary directory %s: %s (set TMPDIR)\n", tmp,
                strerror(errno));
        tmp[0] = 0;
        return -1;
    }
    snprintf(dir, dircap, "%s/stream", tmp);
    cdch_stream_stats st;
    cdch_err err;
    if (cdch_stream_generate(s, m, dir, &st, &err) != 0) {
        fprintf(stderr, "cdcharness serve: generating %s: %s\n", s->name, err.msg);
        return -1;
    }
    if (!quiet)
        fprintf(stderr,
                "cdcharness serve: %s [%s]: %llu file(s), %llu bytes, %llu transactions (%llu compressed), %llu "
                "row changes\n",
                s->name, cdch_stream_mode_name(m), (unsigned long long)st.files, (unsigned long long)st.bytes,
                (unsigned long long)st.transactions, (unsigned long long)st.compressed_transactions,
                (unsigned long long)st.row_changes);
    return 0;
}

/* Until SIGINT or SIGTERM (blocked in set): the bytes sent each second, then
 * the totals. */
static void serve_until_stopped(cdch_server *srv, const sigset_t *set, bool quiet)
{
    cdch_server_stats prev;
    cdch_server_get_stats(srv, &prev);
    struct timespec one = {1, 0};
    for (;;) {
        siginfo_t si;
        int sig = sigtimedwait(set, &si, &one);
        if (sig == SIGINT || sig == SIGTERM || g_stop)
            break;
        cdch_server_stats now;
        cdch_server_get_stats(srv, &now);
        if (!quiet && now.bytes_sent != prev.bytes_sent) {
            char r[64];
            human_rate((double)(now.bytes_sent - prev.bytes_sent), r, sizeof r);
            fprintf(stderr,
                    "cdcharness serve: sent %llu B/s (%s), total %llu bytes, %llu events, %llu dump(s) so far\n",
                    (unsigned long long)(now.bytes_sent - prev.bytes_sent), r, (unsigned long long)now.bytes_sent,
                    (unsigned long long)now.events_sent, (unsigned long long)now.dumps);
        }
        prev = now;
    }
    cdch_server_stats fin;
    cdch_server_get_stats(srv, &fin);
    if (!quiet)
        fprintf(stderr,
                "cdcharness serve: stopping: %llu connections, %llu queries (%llu unsupported), %llu dumps, %llu "
                "events, %llu bytes sent\n",
                (unsigned long long)fin.connections, (unsigned long long)fin.queries,
                (unsigned long long)fin.unknown_queries, (unsigned long long)fin.dumps,
                (unsigned long long)fin.events_sent, (unsigned long long)fin.bytes_sent);
}

int cmd_serve(int argc, char **argv)
{
    serve_args a;
    int rc = serve_parse(argc, argv, &a);
    if (rc >= 0)
        return rc;
    cdch_err err;
    cdch_scenario *s = cdch_scenario_load(a.scenario, &err);
    if (!s) {
        fprintf(stderr, "%s\n", err.msg);
        return CDCH_EXIT_BAD_INPUT;
    }
    cdch_stream_mode m = CDCH_STREAM_UNCOMPRESSED;
    const char *mode = a.mode ? a.mode : cli_scenario_mode(s, NULL);
    if (!a.stream_dir && (!mode || cdch_stream_mode_parse(mode, &m) != 0)) {
        fprintf(stderr,
                mode ? "cdcharness serve: unknown --mode '%s' (compressed, uncompressed or flip)\n"
                     : "cdcharness serve: %s has binlog.compression both: choose --mode compressed or uncompressed\n",
                mode ? mode : s->name);
        cdch_scenario_free(s);
        return CDCH_EXIT_USAGE;
    }

    rc = CDCH_EXIT_BAD_INPUT;
    char tmp[4096] = "", dir[4096];
    const char *stream_dir = a.stream_dir;
    cdch_server *srv = NULL;
    if (!stream_dir) {
        if (serve_generate(s, m, a.quiet, tmp, sizeof tmp, dir, sizeof dir) != 0)
            goto out;
        stream_dir = dir;
    }

#ifdef __GLIBC__
    /* A long-running primary: a fixed mmap threshold, so a connection's large buffers (a 4 MiB
     * query, a big prepared-statement parameter) go back to the system when freed. With glibc's
     * dynamic threshold they were kept in each connection thread's arena instead: 8 clients
     * sending 4 MiB queries at once left the server's RSS ~65 MiB higher for good, and a 64-replica
     * soak's RSS drifted from 146 to 183 MiB (scripts/soak-server.sh, bench/README.md). */
    mallopt(M_MMAP_THRESHOLD, 256 * 1024);
#endif

    /* Block the stop signals in every thread; the main thread waits for them. */
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, SIGINT);
    sigaddset(&set, SIGTERM);
    pthread_sigmask(SIG_BLOCK, &set, NULL);
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);

    if (!(srv = cdch_server_new(s, stream_dir, &a.so, &err)) || cdch_server_start(srv, &err) != 0) {
        fprintf(stderr, "cdcharness serve: %s\n", err.msg);
        goto out;
    }
    printf("listening on %s:%u\n", a.so.bind ? a.so.bind : "127.0.0.1", cdch_server_port(srv));
    fflush(stdout);
    serve_until_stopped(srv, &set, a.quiet);
    rc = CDCH_EXIT_OK;
out:
    cdch_server_free(srv);
    if (tmp[0])
        cdch_stream_rm_tree(tmp);
    cdch_scenario_free(s);
    return rc;
}
