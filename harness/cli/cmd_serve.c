/* cmd_serve.c — `cdcharness serve`: generate a scenario's stream and serve
 * it as a fake MySQL primary until SIGINT/SIGTERM. */
#include <errno.h>
#include <getopt.h>
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
            "  --version-string S   version in the handshake and @@version (default: the\n"
            "                       scenario's server.version)\n"
            "  --tls-cert F --tls-key F  PEM certificate and key (default: self-signed,\n"
            "                       generated at start)\n"
            "  --log-queries        print every statement clients send on stderr\n"
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

/* "256kbit" -> bits per second. */
static int parse_rate(const char *s, uint64_t *out)
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
static int parse_delay(const char *s, uint32_t *out)
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
    OPT_ONCE, OPT_QUIET, OPT_STREAM_DIR,
};

int cmd_serve(int argc, char **argv)
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
    cdch_server_opts so;
    memset(&so, 0, sizeof so);
    const char *mode = NULL, *stream_dir = NULL;
    bool quiet = false;
    int c;
    optind = 1;
    while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
        uint64_t v;
        switch (c) {
        case OPT_MODE: mode = optarg; break;
        case OPT_PORT:
            if (parse_count("--port", optarg, &v) != 0 || v > 65535) {
                fprintf(stderr, "cdcharness serve: --port must be 0..65535\n");
                return CDCH_EXIT_USAGE;
            }
            so.port = (uint16_t)v;
            break;
        case OPT_BIND: so.bind = optarg; break;
        case OPT_USER: so.user = optarg; break;
        case OPT_PASSWORD: so.password = optarg; break;
        case OPT_AUTH:
            if (!strcmp(optarg, "caching_sha2_password"))
                so.auth = CDCH_AUTH_CACHING_SHA2;
            else if (!strcmp(optarg, "mysql_native_password"))
                so.auth = CDCH_AUTH_NATIVE;
            else {
                fprintf(stderr, "cdcharness serve: --auth is caching_sha2_password or mysql_native_password, not '%s'\n",
                        optarg);
                return CDCH_EXIT_USAGE;
            }
            break;
        case OPT_VERSION: so.version_string = optarg; break;
        case OPT_CERT: so.tls_cert = optarg; break;
        case OPT_KEY: so.tls_key = optarg; break;
        case OPT_LOG: so.log_queries = true; break;
        case OPT_RATE:
            if (parse_rate(optarg, &so.link_rate_bps) != 0) {
                fprintf(stderr, "cdcharness serve: --link-rate '%s': use e.g. 256kbit, 10mbit, 64kbps or bits/s\n",
                        optarg);
                return CDCH_EXIT_USAGE;
            }
            break;
        case OPT_DELAY:
            if (parse_delay(optarg, &so.link_delay_ms) != 0) {
                fprintf(stderr, "cdcharness serve: --link-delay '%s': use e.g. 100ms or 1s (at most 600s)\n", optarg);
                return CDCH_EXIT_USAGE;
            }
            break;
        case OPT_DROP_EVENTS:
            if (parse_count("--drop-after-events", optarg, &so.faults.drop_after_events) != 0)
                return CDCH_EXIT_USAGE;
            break;
        case OPT_DROP_BYTES:
            if (parse_count("--drop-after-bytes", optarg, &so.faults.drop_after_bytes) != 0)
                return CDCH_EXIT_USAGE;
            break;
        case OPT_CORRUPT:
            if (parse_count("--corrupt-checksum-at", optarg, &so.faults.corrupt_checksum_at) != 0)
                return CDCH_EXIT_USAGE;
            break;
        case OPT_TRUNCATE:
            if (parse_count("--truncate-event-at", optarg, &so.faults.truncate_event_at) != 0)
                return CDCH_EXIT_USAGE;
            break;
        case OPT_UNKNOWN:
            if (parse_count("--unknown-event-at", optarg, &so.faults.unknown_event_at) != 0)
                return CDCH_EXIT_USAGE;
            break;
        case OPT_STALL:
            if (parse_count("--stall-at", optarg, &so.faults.stall_at) != 0)
                return CDCH_EXIT_USAGE;
            break;
        case OPT_ONCE: so.faults.once = true; break;
        case OPT_STREAM_DIR: stream_dir = optarg; break;
        case OPT_QUIET: quiet = true; break;
        case 'h': serve_usage(stdout); return CDCH_EXIT_OK;
        default: serve_usage(stderr); return CDCH_EXIT_USAGE;
        }
    }
    if (optind != argc - 1) {
        fprintf(stderr, "cdcharness serve: give exactly one SCENARIO file\n\n");
        serve_usage(stderr);
        return CDCH_EXIT_USAGE;
    }
    if ((so.tls_cert != NULL) != (so.tls_key != NULL)) {
        fprintf(stderr, "cdcharness serve: --tls-cert and --tls-key go together\n");
        return CDCH_EXIT_USAGE;
    }
    cdch_err err;
    cdch_scenario *s = cdch_scenario_load(argv[optind], &err);
    if (!s) {
        fprintf(stderr, "%s\n", err.msg);
        return CDCH_EXIT_BAD_INPUT;
    }
    cdch_stream_mode m = CDCH_STREAM_UNCOMPRESSED;
    if (!mode) {
        switch (s->binlog.compression) {
        case CDCH_COMPRESSION_ON: mode = "compressed"; break;
        case CDCH_COMPRESSION_OFF: mode = "uncompressed"; break;
        case CDCH_COMPRESSION_FLIP: mode = "flip"; break;
        default: break;
        }
    }
    if (!stream_dir && (!mode || cdch_stream_mode_parse(mode, &m) != 0)) {
        fprintf(stderr,
                mode ? "cdcharness serve: unknown --mode '%s' (compressed, uncompressed or flip)\n"
                     : "cdcharness serve: %s has binlog.compression both: choose --mode compressed or uncompressed\n",
                mode ? mode : s->name);
        cdch_scenario_free(s);
        return CDCH_EXIT_USAGE;
    }

    int rc = CDCH_EXIT_BAD_INPUT;
    char tmp[4096] = "", dir[4096];
    cdch_server *srv = NULL;
    if (!stream_dir) {
        const char *base = getenv("TMPDIR");
        snprintf(tmp, sizeof tmp, "%s/cdch-serve.XXXXXX", base && *base ? base : "/tmp");
        if (!mkdtemp(tmp)) {
            fprintf(stderr, "cdcharness serve: cannot create a temporary directory %s: %s (set TMPDIR)\n", tmp,
                    strerror(errno));
            tmp[0] = 0;
            goto out;
        }
        snprintf(dir, sizeof dir, "%s/stream", tmp);
        cdch_stream_stats st;
        if (cdch_stream_generate(s, m, dir, &st, &err) != 0) {
            fprintf(stderr, "cdcharness serve: generating %s: %s\n", s->name, err.msg);
            goto out;
        }
        if (!quiet)
            fprintf(stderr,
                    "cdcharness serve: %s [%s]: %llu file(s), %llu bytes, %llu transactions (%llu compressed), %llu "
                    "row changes\n",
                    s->name, cdch_stream_mode_name(m), (unsigned long long)st.files, (unsigned long long)st.bytes,
                    (unsigned long long)st.transactions, (unsigned long long)st.compressed_transactions,
                    (unsigned long long)st.row_changes);
        stream_dir = dir;
    }

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

    if (!(srv = cdch_server_new(s, stream_dir, &so, &err)) || cdch_server_start(srv, &err) != 0) {
        fprintf(stderr, "cdcharness serve: %s\n", err.msg);
        goto out;
    }
    printf("listening on %s:%u\n", so.bind ? so.bind : "127.0.0.1", cdch_server_port(srv));
    fflush(stdout);

    cdch_server_stats prev;
    cdch_server_get_stats(srv, &prev);
    struct timespec one = {1, 0};
    for (;;) {
        siginfo_t si;
        int sig = sigtimedwait(&set, &si, &one);
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
    rc = CDCH_EXIT_OK;
out:
    cdch_server_free(srv);
    if (tmp[0])
        cdch_stream_rm_tree(tmp);
    cdch_scenario_free(s);
    return rc;
}
