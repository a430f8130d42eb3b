/* cmd_estimate.c — `cdcharness estimate`: what binlog_transaction_compression
 * would cost and buy on a captured stream, per zstd level (estimate.h), and
 * with --link, how long a consumer needs to catch up with the stream over a
 * slow link, compressed vs uncompressed (the fake primary's link emulation).
 *
 * Catch-up: each stream (uncompressed, then each level) is the capture
 * replayed (replay.h: the capture rewritten by the recompress library) and
 * served by the fake primary (server.h) with the link's rate and delay, on a
 * free loopback port. The default consumer is the harness's own replica (the
 * capture module's `record` client, MariaDB Connector/C, the network side of
 * the reference consumer): it connects, reads the schema, dumps from the
 * first file to the end of the log; catch-up is the time from its dump
 * request to the last event received, and every byte must arrive. --consumer
 * FAMILY@VERSION runs that consumer's adapter through the run machinery
 * (runner.h) instead, one cell per stream, over the same link; its catch-up
 * is from its first line (start-up done) to its last row.
 *
 * Owns: everything it allocates; the temporary directory it makes is removed.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "buf.h"
#include "cli.h"
#include "estimate.h"
#include "jsonstr.h"
#include "manifest.h"
#include "primary.h"
#include "record.h"
#include "replay.h"
#include "runner.h"
#include "scenario.h"
#include "server.h"
#include "stream.h"
#include "svgchart.h"
#include "xalloc.h"
#include "sys.h"

static void estimate_usage(FILE *f)
{
    fprintf(f,
            "usage: cdcharness estimate CAPTURE... [--levels L] [--link RATE[/DELAY]] [--consumer C]\n"
            "                           [--json FILE] [--html FILE] [-j N] [--timeout S] [--quiet]\n"
            "\n"
            "What turning binlog_transaction_compression on would cost and buy on your own\n"
            "stream, per zstd level: each level's stream is the capture rewritten exactly as\n"
            "`cdcharness recompress --level N` writes it (nothing is written to disk), and\n"
            "measured against the same stream with compression off:\n"
            "  bytes        the whole stream, and its row part (the transactions MySQL\n"
            "               compresses: their events vs the TRANSACTION_PAYLOAD events that\n"
            "               replace them) vs the scaffolding compression leaves as it is\n"
            "               (GTID events, FDE, ROTATE, DDL, non-transactional transactions)\n"
            "  ratio        compressed / uncompressed bytes (0.25 = a quarter of the bytes)\n"
            "  CPU          per GB of row data (the compressed transactions' events): the\n"
            "               whole rewrite, zstd compression alone, and zstd decompression of\n"
            "               every payload (what each consumer spends)\n"
            "  memory       peak resident set of the process compressing that level\n"
            "Each level runs in a process of its own, -j at a time, so its CPU and memory\n"
            "are its own.\n"
            "\n"
            "  CAPTURE          a capture directory (`cdcharness record`), or what\n"
            "                   `recompress` takes: a directory with one *.index file, or\n"
            "                   binlog files in stream order\n"
            "  --levels L       zstd levels 1..22: a range (1-7), a list (1,3,7,19) or both\n"
            "                   (1-3,7); default 1-7\n"
            "  --link R[/D]     also serve the uncompressed stream and each level's stream\n"
            "                   through the fake primary over a link of rate R and one-way\n"
            "                   delay D (`serve --link-rate/--link-delay` syntax: 256kbit/100ms,\n"
            "                   10mbit/20ms, 1gbit; D default 0) and time how long a consumer\n"
            "                   takes to receive the whole stream (catch-up). Needs a capture\n"
            "                   directory with its schema.sql (the fake primary's catalogue)\n"
            "  --consumer C     with --link: who catches up. Default: the harness's own\n"
            "                   replica (the `record` client; catch-up = its dump request to\n"
            "                   the last event). FAMILY@VERSION: that consumer's adapter\n"
            "                   through the run machinery, one cell per stream (catch-up = its\n"
            "                   first line, start-up done, to its last row; its verdict is shown)\n"
            "  --consumers-dir D  where consumer families live (default ./consumers or the\n"
            "                   source tree's)\n"
            "  --json FILE      the figures as JSON\n"
            "  --html FILE      a self-contained page: the table and a chart (level on the\n"
            "                   x axis: stream bytes, compression and decompression CPU)\n"
            "  -j N             levels measured at a time (default: the CPU count)\n"
            "  --timeout S      with --link: give up on one stream after S seconds\n"
            "                   (default 600)\n"
            "  --no-verify      do not verify the input's CRC32 checksums\n"
            "  --quiet          no progress on stderr\n"
            "\n"
            "exit status: 0 ok, 1 bad input (capture, I/O, a consumer that did not catch up),\n"
            "2 usage error\n");
}

/* ---- options --------------------------------------------------------------------------- */

typedef struct est_args {
    cdch_estimate_opts eo;
    bool link;
    uint64_t rate_bps;
    uint32_t delay_ms;
    const char *link_text;
    const char *consumer;      /* NULL: the harness's replica */
    const char *consumers_dir;
    const char *json, *html;
    const char *label;         /* the capture as the JSON names it (NULL: as given) */
    double timeout_s;
    bool quiet;
    int nin;
    char **in;
} est_args;

static int usage_error(const char *fmt, const char *arg)
{
    fprintf(stderr, "cdcharness estimate: ");
    fprintf(stderr, fmt, arg);
    fprintf(stderr, "\n(cdcharness estimate --help for the options)\n");
    return CDCH_EXIT_USAGE;
}

/* "RATE" or "RATE/DELAY" with serve's parsers. */
static bool parse_link(const char *s, est_args *a)
{
    char rate[64];
    const char *slash = strchr(s, '/');
    size_t rl = slash ? (size_t)(slash - s) : strlen(s);
    if (rl == 0 || rl >= sizeof rate)
        return false;
    memcpy(rate, s, rl);
    rate[rl] = 0;
    if (cli_parse_rate(rate, &a->rate_bps) != 0 || a->rate_bps == 0)
        return false;
    a->delay_ms = 0;
    if (slash && cli_parse_delay(slash + 1, &a->delay_ms) != 0)
        return false;
    a->link = true;
    a->link_text = s;
    return true;
}

/* -1: go on; else the exit status. */
static int estimate_parse(int argc, char **argv, est_args *a)
{
    enum { O_LEVELS = 256, O_LINK, O_CONSUMER, O_CDIR, O_JSON, O_HTML, O_TIMEOUT, O_NOVERIFY, O_QUIET };
    static const struct option opts[] = {
        {"levels", required_argument, NULL, O_LEVELS},   {"link", required_argument, NULL, O_LINK},
        {"consumer", required_argument, NULL, O_CONSUMER}, {"consumers-dir", required_argument, NULL, O_CDIR},
        {"json", required_argument, NULL, O_JSON},       {"html", required_argument, NULL, O_HTML},
        {"jobs", required_argument, NULL, 'j'},          {"timeout", required_argument, NULL, O_TIMEOUT},
        {"no-verify", no_argument, NULL, O_NOVERIFY},    {"quiet", no_argument, NULL, O_QUIET},
        {"help", no_argument, NULL, 'h'},                {NULL, 0, NULL, 0},
    };
    memset(a, 0, sizeof *a);
    a->eo.verify = true;
    a->timeout_s = 600;
    const char *levels = "1-7";
    cdch_err err;
    char *end;
    int c;
    optind = 1;
    while ((c = getopt_long(argc, argv, "j:h", opts, NULL)) != -1) {
        switch (c) {
        case O_LEVELS: levels = optarg; break;
        case O_LINK:
            if (!parse_link(optarg, a))
                return usage_error("--link '%s': give RATE or RATE/DELAY, e.g. 10mbit/20ms, 256kbit/100ms, 1gbit "
                                   "(rates: kbit, mbit, gbit, kbps = bytes; delays: ms, s)",
                                   optarg);
            break;
        case O_CONSUMER: a->consumer = optarg; break;
        case O_CDIR: a->consumers_dir = optarg; break;
        case O_JSON: a->json = optarg; break;
        case O_HTML: a->html = optarg; break;
        case 'j': {
            long j = strtol(optarg, &end, 10);
            if (*end || j < 1 || j > 16)
                return usage_error("-j wants 1..16 processes, not '%s'", optarg);
            a->eo.jobs = (int)j;
            break;
        }
        case O_TIMEOUT:
            a->timeout_s = strtod(optarg, &end);
            if (*end || !(a->timeout_s > 0))
                return usage_error("--timeout wants a positive number of seconds, not '%s'", optarg);
            break;
        case O_NOVERIFY: a->eo.verify = false; break;
        case O_QUIET: a->quiet = true; break;
        case 'h': estimate_usage(stdout); return CDCH_EXIT_OK;
        default: estimate_usage(stderr); return CDCH_EXIT_USAGE;
        }
    }
    if (cdch_estimate_parse_levels(levels, &a->eo, &err) != 0)
        return usage_error("%s", err.msg);
    if (optind >= argc)
        return usage_error("%s", "give the capture: a directory `cdcharness record` wrote (or binlog files)");
    if (a->consumer && !a->link)
        return usage_error("%s", "--consumer says who catches up over --link: give --link too");
    if (access(argv[optind], F_OK) != 0)
        return usage_error("%s does not exist: give a capture directory `cdcharness record` wrote (or binlog files)",
                           argv[optind]);
    if (a->link && (argc - optind != 1 || !cli_is_dir(argv[optind])))
        return usage_error("--link serves the capture through the fake primary: give one capture directory "
                           "(with its schema.sql), not %s",
                           argc - optind != 1 ? "several files" : "a binlog file");
    a->nin = argc - optind;
    a->in = argv + optind;
    return -1;
}

/* ---- catch-up over the link ---------------------------------------------------------------- */

/* One stream's catch-up. */
typedef struct est_link {
    bool measured;
    double catchup_s;   /* replica: dump request to the last event; consumer: first line to its last row */
    double connect_s;   /* replica: connect, handshake, schema queries; consumer: start-up to its first line */
    uint64_t bytes;     /* bytes the consumer received (replica) */
    char verdict[32];   /* consumer cells */
} est_link;

/* Polls the server until a dump starts (the replica's connect and schema
 * queries are over), for the catch-up's start. */
typedef struct dump_watch {
    cdch_server *srv;
    volatile int stop;
    uint64_t dump_ns; /* 0 until seen */
} dump_watch;

static void *watch_dump(void *p)
{
    dump_watch *w = p;
    struct timespec ms = {0, 1000000};
    while (!w->stop) {
        cdch_server_stats st;
        cdch_server_get_stats(w->srv, &st);
        if (st.dumps > 0) {
            w->dump_ns = cdch_now_ns();
            break;
        }
        nanosleep(&ms, NULL);
    }
    return NULL;
}

/* The harness's replica catches up with the stream in stream_dir (its first
 * binlog file first_file), served over the link. */
static int replica_catchup(const est_args *a, const cdch_scenario *s, const char *stream_dir, const char *first_file,
                           const char *rec_dir, uint64_t stream_bytes, est_link *out, cdch_err *err)
{
    cdch_server_opts so;
    memset(&so, 0, sizeof so);
    so.bind = "127.0.0.1";
    so.user = CDCH_PRIMARY_USER;
    so.password = CDCH_PRIMARY_PASSWORD;
    so.auth = CDCH_AUTH_NATIVE;
    so.link_rate_bps = a->rate_bps;
    so.link_delay_ms = a->delay_ms;
    cdch_server *srv = cdch_server_new(s, stream_dir, &so, err);
    if (!srv || cdch_server_start(srv, err) != 0) {
        cdch_server_free(srv);
        return cdch_err_wrap(err, "fake primary");
    }
    cdch_record_opts ro;
    memset(&ro, 0, sizeof ro);
    ro.host = "127.0.0.1";
    ro.port = cdch_server_port(srv);
    ro.user = CDCH_PRIMARY_USER;
    ro.password = CDCH_PRIMARY_PASSWORD;
    ro.ssl_mode = CDCH_SSL_DISABLED;
    ro.server_id = 65535;
    ro.start_file = first_file;
    ro.start_pos = 4;
    ro.until_end = true;
    ro.retries = 0;
    ro.net_timeout_s = a->timeout_s;
    ro.out_dir = rec_dir;
    ro.options_json = "[\"estimate\"]";
    dump_watch w = {srv, 0, 0};
    pthread_t th;
    bool watching = pthread_create(&th, NULL, watch_dump, &w) == 0;
    uint64_t t0 = cdch_now_ns();
    cdch_record_result res;
    int rc = cdch_record(&ro, &res, err);
    uint64_t t1 = cdch_now_ns();
    w.stop = 1;
    if (watching)
        pthread_join(th, NULL);
    cdch_server_free(srv);
    if (rc != 0)
        return cdch_err_wrap(err, "the replica did not catch up");
    uint64_t dump = w.dump_ns ? w.dump_ns : t0;
    out->measured = true;
    out->connect_s = (double)(dump - t0) / 1e9;
    out->catchup_s = (double)(t1 - dump) / 1e9;
    out->bytes = res.bytes + res.files * 4; /* + each file's magic: the file bytes */
    if (out->bytes != stream_bytes)
        return cdch_err_set(err, "the replica received %" PRIu64 " bytes of a %" PRIu64 "-byte stream", out->bytes,
                            stream_bytes);
    cdch_stream_rm_tree(rec_dir);
    return 0;
}

/* A scenario file serving the capture in one way: level 0 uncompressed. */
static int write_scenario(const char *path, const char *capture, int level, cdch_err *err)
{
    FILE *f = fopen(path, "w");
    if (!f)
        return cdch_err_set(err, "cannot create %s: %s", path, strerror(errno));
    cdch_buf b = CDCH_BUF_INIT;
    cdch_put_str(&b, "description: cdcharness estimate\ncapture: ");
    cdch_put_json_str(&b, capture, strlen(capture), 0); /* a JSON string is a YAML flow scalar */
    if (level)
        cdch_buf_printf(&b, "\nbinlog: {compression: on, zstd_level: %d}\n", level);
    else
        cdch_put_str(&b, "\nbinlog: {compression: off}\n");
    bool ok = fwrite(b.data, 1, b.len, f) == b.len;
    cdch_buf_free(&b);
    if (fclose(f) != 0 || !ok)
        return cdch_err_set(err, "cannot write %s: %s", path, strerror(errno));
    return 0;
}

/* --consumer: one cell per stream through the run machinery, over the link
 * (cdch_primary_set_link). scen[i] are the scenario files (0: uncompressed). */
static int consumer_catchup(const est_args *a, char *const *scen, size_t n, const char *report_dir, est_link *out,
                            cdch_err *err)
{
    const char *dirs[1] = {a->consumers_dir ? a->consumers_dir : cli_default_consumers_dir()};
    cdch_run_opts ro;
    cdch_run_opts_init(&ro);
    ro.consumer_dirs = dirs;
    ro.nconsumer_dirs = 1;
    ro.jobs = 1; /* one stream at a time: each has the link and the CPU to itself */
    ro.timeout_s = a->timeout_s;
    ro.report_dir = report_dir;
    ro.setup_progress = a->quiet ? NULL : stderr;
    cdch_primary_set_link(a->rate_bps, a->delay_ms);
    cdch_run *r = cdch_run_new(&ro);
    int rc = cdch_run_add_consumer(r, a->consumer, err);
    for (size_t i = 0; i < n && rc == 0; i++)
        rc = cdch_run_add_scenario(r, scen[i], err);
    if (rc == 0)
        rc = cdch_run_set_mode(r, "both", err); /* each scenario's own: off -> uncompressed, on -> compressed */
    if (rc == 0) {
        cdch_run_plan(r, NULL);
        cdch_cell *c = cdch_run_ncells(r) ? cdch_run_cell(r, 0) : NULL;
        if (c && cdch_manifest_files_source(cdch_run_cell_manifest(r, c), cdch_run_cell_version(r, c)))
            rc = cdch_err_set(err,
                              "--consumer %s reads the binlog files (source: files), not the fake primary: "
                              "there is no link to time; name a consumer that connects (source: server)",
                              a->consumer);
    }
    if (rc == 0)
        rc = cdch_run_execute(r, err);
    if (rc == 0 && cdch_run_ncells(r) != n)
        rc = cdch_err_set(err, "--consumer %s: %zu cells for %zu streams (name one version: FAMILY@VERSION)",
                          a->consumer, cdch_run_ncells(r), n);
    for (size_t i = 0; rc == 0 && i < n; i++) {
        cdch_cell *c = cdch_run_cell(r, i);
        size_t k = c->scenario_idx;
        if (k >= n)
            continue;
        out[k].measured = true;
        /* from its first line (its start-up is the same for every stream) to its last row */
        out[k].connect_s = c->startup_seconds > 0 ? c->startup_seconds : 0;
        out[k].catchup_s = c->seconds - c->wait_seconds - out[k].connect_s;
        out[k].bytes = c->stream_bytes;
        snprintf(out[k].verdict, sizeof out[k].verdict, "%s", cdch_verdict_name(c->verdict));
    }
    cdch_primary_set_link(0, 0);
    cdch_run_free(r);
    return rc;
}

/* The base name of path. */
static const char *est_base(const char *p)
{
    const char *s = strrchr(p, '/');
    return s ? s + 1 : p;
}

/* Every stream through the link: the capture replayed uncompressed and at
 * each level, served, caught up with. lv[0] is the uncompressed stream. */
static int measure_link(const est_args *a, const cdch_recompress_input *in, const cdch_estimate_level *lv,
                        est_link *out, cdch_err *err)
{
    char capture[PATH_MAX];
    if (!realpath(a->in[0], capture))
        return cdch_err_set(err, "%s: %s", a->in[0], strerror(errno));
    const char *base = getenv("TMPDIR");
    char tmp[PATH_MAX];
    snprintf(tmp, sizeof tmp, "%s/cdch-estimate.XXXXXX", base && *base ? base : "/tmp");
    if (!mkdtemp(tmp))
        return cdch_err_set(err, "cannot create a temporary directory %s: %s (set TMPDIR)", tmp, strerror(errno));
    size_t n = a->eo.nlevels + 1;
    char *scen[CDCH_ESTIMATE_MAX_LEVELS + 1];
    int rc = 0;
    for (size_t i = 0; i < n; i++) {
        scen[i] = malloc(PATH_MAX + 32);
        snprintf(scen[i], PATH_MAX + 32, "%s/%s%d.yaml", tmp, i ? "zstd" : "off", i ? lv[i].level : 0);
        if (rc == 0)
            rc = write_scenario(scen[i], capture, lv[i].level, err);
    }
    if (rc == 0 && a->consumer) {
        char rep[PATH_MAX + 16];
        snprintf(rep, sizeof rep, "%s/cells", tmp);
        rc = consumer_catchup(a, scen, n, rep, out, err);
    }
    for (size_t i = 0; rc == 0 && !a->consumer && i < n; i++) {
        cdch_scenario *s = cdch_scenario_load(scen[i], err);
        if (!s) {
            rc = cdch_err_wrap(err, "the capture as a scenario (capture: %s)", capture);
            break;
        }
        char dir[PATH_MAX + 32], rec[PATH_MAX + 32];
        snprintf(dir, sizeof dir, "%s/stream%zu", tmp, i);
        snprintf(rec, sizeof rec, "%s/received%zu", tmp, i);
        cdch_stream_stats st;
        rc = cdch_replay_generate(s, i ? CDCH_STREAM_COMPRESSED : CDCH_STREAM_UNCOMPRESSED, dir, &st, err);
        if (rc == 0 && st.bytes != lv[i].stream_bytes)
            rc = cdch_err_set(err, "the served stream (%" PRIu64 " bytes) is not the measured one (%" PRIu64 ")",
                              st.bytes, lv[i].stream_bytes);
        if (rc == 0)
            rc = replica_catchup(a, s, dir, est_base(in->paths[0]), rec, st.bytes, &out[i], err);
        if (rc == 0 && !a->quiet) {
            if (i)
                fprintf(stderr, "estimate: level %d over %s: caught up in %.2f s\n", lv[i].level, a->link_text,
                        out[i].catchup_s);
            else
                fprintf(stderr, "estimate: uncompressed over %s: caught up in %.2f s\n", a->link_text,
                        out[i].catchup_s);
        }
        cdch_stream_rm_tree(dir);
        cdch_scenario_free(s);
    }
    for (size_t i = 0; i < n; i++)
        free(scen[i]);
    cdch_stream_rm_tree(tmp);
    return rc;
}

/* ---- figures ------------------------------------------------------------------------------- */

/* What each row shows, derived from the measured passes. */
typedef struct est_fig {
    double ratio;        /* stream bytes / the uncompressed stream's */
    double row_ratio;    /* row part: payload events / the events they replace */
    uint64_t scaffold;   /* bytes outside the row part */
    double cpu_gb, zstd_gb, dec_gb; /* CPU seconds per GB of row data */
} est_fig;

static double per_gb(double s, uint64_t bytes) { return bytes ? s / ((double)bytes / 1e9) : 0; }

static est_fig figures(const cdch_estimate_level *lv, size_t i)
{
    est_fig f;
    memset(&f, 0, sizeof f);
    const cdch_estimate_level *l = &lv[i], *off = &lv[0];
    /* the row part is the same transactions at every level; the uncompressed
     * stream's is taken from the first level */
    uint64_t row_in = i ? l->row_wire_in : lv[1].row_wire_in;
    uint64_t row_out = i ? l->row_wire_out : row_in;
    uint64_t row_bytes = i ? l->row_bytes : lv[1].row_bytes;
    f.ratio = off->stream_bytes ? (double)l->stream_bytes / (double)off->stream_bytes : 0;
    f.row_ratio = row_in ? (double)row_out / (double)row_in : 0;
    f.scaffold = l->stream_bytes > row_out ? l->stream_bytes - row_out : 0;
    f.cpu_gb = per_gb(l->cpu_s, row_bytes);
    f.zstd_gb = per_gb(l->zstd_cpu_s, row_bytes);
    f.dec_gb = per_gb(l->decompress_cpu_s, row_bytes);
    return f;
}

static void level_name(const cdch_estimate_level *l, char *b, size_t cap)
{
    if (l->level)
        snprintf(b, cap, "%d", l->level);
    else
        snprintf(b, cap, "off");
}

static void print_table(FILE *f, const est_args *a, const cdch_estimate_level *lv, const est_link *ln)
{
    size_t n = a->eo.nlevels + 1;
    fprintf(f, "%-5s %14s %6s %14s %14s %6s %12s %8s %8s %8s %8s", "level", "stream_bytes", "ratio", "row_bytes_in",
            "row_bytes_out", "row_r", "scaffolding", "cpu_s/GB", "zstd/GB", "dec/GB", "peak_MB");
    if (a->link)
        fprintf(f, " %10s %7s%s", "catchup_s", "vs_off", a->consumer ? " verdict" : "");
    fputc('\n', f);
    for (size_t i = 0; i < n; i++) {
        const cdch_estimate_level *l = &lv[i];
        est_fig g = figures(lv, i);
        char name[8];
        level_name(l, name, sizeof name);
        uint64_t rin = i ? l->row_wire_in : lv[1].row_wire_in, rout = i ? l->row_wire_out : rin;
        fprintf(f, "%-5s %14" PRIu64 " %6.3f %14" PRIu64 " %14" PRIu64 " %6.3f %12" PRIu64 " %8.2f %8.2f %8.2f %8.1f",
                name, l->stream_bytes, g.ratio, rin, rout, g.row_ratio, g.scaffold, g.cpu_gb, g.zstd_gb, g.dec_gb,
                (double)l->peak_rss_bytes / 1048576.0);
        if (a->link && ln[i].measured)
            fprintf(f, " %10.2f %7.3f%s%s", ln[i].catchup_s,
                    ln[0].catchup_s > 0 ? ln[i].catchup_s / ln[0].catchup_s : 0, a->consumer ? " " : "",
                    a->consumer ? ln[i].verdict : "");
        fputc('\n', f);
    }
    const cdch_estimate_level *one = &lv[1];
    fprintf(f,
            "row data: %" PRIu64 " bytes in %" PRIu64 " of %" PRIu64 " transactions (the ones MySQL compresses); "
            "largest transaction %" PRIu64 " bytes\n",
            one->row_bytes, one->compressed, one->transactions, one->max_transaction_bytes);
    if (a->link)
        fprintf(f, "catch-up over %s (%s): %s\n", a->link_text, a->consumer ? a->consumer : "the harness's replica",
                a->consumer ? "the consumer's first line (start-up done) to its last row"
                            : "dump request to the last event received");
}

static void json_level(cdch_buf *b, const est_args *a, const cdch_estimate_level *lv, const est_link *ln, size_t i)
{
    const cdch_estimate_level *l = &lv[i];
    est_fig g = figures(lv, i);
    uint64_t rin = i ? l->row_wire_in : lv[1].row_wire_in, rout = i ? l->row_wire_out : rin;
    cdch_buf_printf(b,
                    "{\"level\":%d,\"compressed\":%s,\"stream_bytes\":%" PRIu64 ",\"ratio\":%.6f,"
                    "\"row_bytes_in\":%" PRIu64 ",\"row_bytes_out\":%" PRIu64 ",\"row_ratio\":%.6f,"
                    "\"scaffolding_bytes\":%" PRIu64 ",\"row_data_bytes\":%" PRIu64 ",\"zstd_bytes\":%" PRIu64 ","
                    "\"transactions\":%" PRIu64 ",\"compressed_transactions\":%" PRIu64 ","
                    "\"cpu_s\":%.6f,\"cpu_s_per_gb\":%.4f,\"zstd_cpu_s\":%.6f,\"zstd_cpu_s_per_gb\":%.4f,"
                    "\"decompress_cpu_s\":%.6f,\"decompress_cpu_s_per_gb\":%.4f,\"wall_s\":%.6f,"
                    "\"peak_rss_bytes\":%" PRIu64 ",\"rss_start_bytes\":%" PRIu64,
                    l->level, i ? "true" : "false", l->stream_bytes, g.ratio, rin, rout, g.row_ratio, g.scaffold,
                    i ? l->row_bytes : lv[1].row_bytes, l->zstd_bytes, l->transactions, l->compressed, l->cpu_s,
                    g.cpu_gb, l->zstd_cpu_s, g.zstd_gb, l->decompress_cpu_s, g.dec_gb, l->wall_s, l->peak_rss_bytes,
                    l->rss_start_bytes);
    if (a->link && ln[i].measured) {
        cdch_buf_printf(b, ",\"catchup_s\":%.4f,\"catchup_vs_uncompressed\":%.4f,\"connect_s\":%.4f,"
                        "\"bytes_received\":%" PRIu64,
                        ln[i].catchup_s, ln[0].catchup_s > 0 ? ln[i].catchup_s / ln[0].catchup_s : 0,
                        ln[i].connect_s, ln[i].bytes);
        if (a->consumer)
            cdch_buf_printf(b, ",\"verdict\":\"%s\"", ln[i].verdict);
    }
    cdch_put_str(b, "}");
}

static void json_doc(cdch_buf *b, const est_args *a, const cdch_recompress_input *in, const cdch_estimate_level *lv,
                     const est_link *ln)
{
    cdch_put_str(b, "{\"capture\":");
    const char *cap = a->label ? a->label : a->in[0];
    cdch_put_json_str(b, cap, strlen(cap), 0);
    cdch_put_str(b, ",\"files\":[");
    for (size_t i = 0; i < in->n; i++) {
        if (i)
            cdch_put_str(b, ",");
        cdch_put_json_str(b, in->paths[i], strlen(in->paths[i]), 0);
    }
    cdch_buf_printf(b, "],\"max_transaction_bytes\":%" PRIu64 ",\"link\":", lv[1].max_transaction_bytes);
    if (a->link) {
        cdch_buf_printf(b, "{\"text\":");
        cdch_put_json_str(b, a->link_text, strlen(a->link_text), 0);
        cdch_buf_printf(b, ",\"rate_bps\":%" PRIu64 ",\"delay_ms\":%u,\"consumer\":", a->rate_bps, a->delay_ms);
        const char *c = a->consumer ? a->consumer : "replica";
        cdch_put_json_str(b, c, strlen(c), 0);
        cdch_put_str(b, "}");
    } else {
        cdch_put_str(b, "null");
    }
    cdch_put_str(b, ",\"uncompressed\":");
    json_level(b, a, lv, ln, 0);
    cdch_put_str(b, ",\"levels\":[");
    for (size_t i = 1; i <= a->eo.nlevels; i++) {
        if (i > 1)
            cdch_put_str(b, ",");
        json_level(b, a, lv, ln, i);
    }
    cdch_put_str(b, "]}\n");
}

/* ---- the HTML page ------------------------------------------------------------------------ */

/* s as HTML text (the capture path, the link, the consumer). */
static void html_text(cdch_buf *b, const char *s)
{
    static const char *const ent[] = {['&'] = "&amp;", ['<'] = "&lt;", ['>'] = "&gt;", ['"'] = "&quot;"};
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c < sizeof ent / sizeof ent[0] && ent[c])
            cdch_put_str(b, ent[c]);
        else
            cdch_put_bytes(b, s, 1);
    }
}

static const char k_style[] =
    ":root{--bg:#f6f7f9;--panel:#fff;--ink:#1c2330;--muted:#5d6675;--line:#dde1e7;font-family:-apple-system,\"Segoe "
    "UI\",Roboto,\"Helvetica Neue\",Arial,\"DejaVu Sans\",sans-serif;font-size:14px;color:var(--ink);"
    "background:var(--bg)}\n"
    "body{margin:0}header.top{background:#18213a;color:#fff;padding:18px 28px 16px}"
    "header.top h1{margin:0 0 4px;font-size:20px;font-weight:600}header.top .sub{color:#b9c3d9;font-size:13px}\n"
    "main{padding:18px 28px 40px}section.card{background:var(--panel);border:1px solid var(--line);"
    "border-radius:8px;padding:16px 18px;margin-bottom:18px}section.card>h2{font-size:15px;margin:0 0 12px}\n"
    "table{border-collapse:collapse;font-variant-numeric:tabular-nums}th,td{padding:4px 10px;border-bottom:1px solid "
    "var(--line);text-align:right}th{color:var(--muted);font-weight:600}td:first-child,th:first-child{text-align:left}\n"
    "p.note{color:var(--muted)}\n";

static void html_table(cdch_buf *b, const est_args *a, const cdch_estimate_level *lv, const est_link *ln, size_t n)
{
    cdch_put_str(b, "<table><tr><th>level</th><th>stream bytes</th><th>ratio</th><th>row bytes in</th>"
                    "<th>row bytes out</th><th>row ratio</th><th>scaffolding</th><th>CPU s/GB</th>"
                    "<th>zstd s/GB</th><th>decompress s/GB</th><th>peak MB</th>");
    if (a->link)
        cdch_put_str(b, a->consumer ? "<th>catch-up s</th><th>vs off</th><th>verdict</th>"
                                    : "<th>catch-up s</th><th>vs off</th>");
    cdch_put_str(b, "</tr>\n");
    for (size_t i = 0; i < n; i++) {
        est_fig g = figures(lv, i);
        char name[8];
        level_name(&lv[i], name, sizeof name);
        uint64_t rin = i ? lv[i].row_wire_in : lv[1].row_wire_in, rout = i ? lv[i].row_wire_out : rin;
        cdch_buf_printf(b,
                        "<tr><td>%s</td><td>%" PRIu64 "</td><td>%.3f</td><td>%" PRIu64 "</td><td>%" PRIu64
                        "</td><td>%.3f</td><td>%" PRIu64 "</td><td>%.2f</td><td>%.2f</td><td>%.2f</td><td>%.1f</td>",
                        name, lv[i].stream_bytes, g.ratio, rin, rout, g.row_ratio, g.scaffold, g.cpu_gb, g.zstd_gb,
                        g.dec_gb, (double)lv[i].peak_rss_bytes / 1048576.0);
        if (a->link)
            cdch_buf_printf(b, "<td>%.2f</td><td>%.3f</td>", ln[i].catchup_s,
                            ln[0].catchup_s > 0 ? ln[i].catchup_s / ln[0].catchup_s : 0);
        if (a->link && a->consumer)
            cdch_buf_printf(b, "<td>%s</td>", ln[i].verdict);
        cdch_put_str(b, "</tr>\n");
    }
    cdch_put_str(b, "</table>\n");
}

static void html_doc(cdch_buf *b, const est_args *a, const cdch_estimate_level *lv, const est_link *ln)
{
    size_t n = a->eo.nlevels + 1;
    cdch_put_str(b, "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
                    "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src "
                    "'unsafe-inline'\">\n<title>cdcharness estimate</title>\n");
    cdch_put_str(b, "<style>\n");
    cdch_put_str(b, k_style);
    cdch_put_str(b, cdch_svgchart_css);
    cdch_put_str(b, "</style>\n");
    cdch_put_str(b, "</head>\n<body>\n<header class=\"top\"><h1>What compression buys on this stream</h1>"
                    "<div class=\"sub\">cdcharness estimate ");
    html_text(b, a->in[0]);
    if (a->link) {
        cdch_put_str(b, " &middot; link ");
        html_text(b, a->link_text);
    }
    cdch_put_str(b, "</div></header>\n<main>\n<section class=\"card\"><h2>Bytes and CPU per level</h2>\n");
    double vb[CDCH_ESTIMATE_MAX_LEVELS + 1], vz[CDCH_ESTIMATE_MAX_LEVELS + 1], vd[CDCH_ESTIMATE_MAX_LEVELS + 1],
        vc[CDCH_ESTIMATE_MAX_LEVELS + 1];
    char names[CDCH_ESTIMATE_MAX_LEVELS + 1][8];
    const char *labels[CDCH_ESTIMATE_MAX_LEVELS + 1];
    for (size_t i = 0; i < n; i++) {
        est_fig g = figures(lv, i);
        vb[i] = (double)lv[i].stream_bytes / 1e6;
        vz[i] = g.zstd_gb;
        vd[i] = g.dec_gb;
        vc[i] = a->link ? ln[i].catchup_s : 0;
        level_name(&lv[i], names[i], sizeof names[i]);
        labels[i] = names[i];
    }
    const cdch_chart_series s[4] = {
        {"stream MB", "#5b6f95", vb, true},
        {"compression CPU s/GB of row data", "#d9573a", vz, false},
        {"decompression CPU s/GB", "#1f9e8f", vd, false},
        {"catch-up s", "#8f63cf", vc, true},
    };
    cdch_svg_chart(b, labels, n, s, 3, "stream MB", "CPU s per GB of row data", "zstd level");
    cdch_put_str(b, "<p class=\"note\">Bars: the whole stream's bytes (off: compression OFF). Lines: zstd "
                    "compression and decompression CPU seconds per GB of row data (the events of the transactions "
                    "MySQL compresses).</p></section>\n");
    if (a->link) {
        cdch_put_str(b, "<section class=\"card\"><h2>Catch-up over the link</h2>\n");
        cdch_svg_chart(b, labels, n, &s[3], 1, "seconds", "", "zstd level");
        cdch_put_str(b, "<p class=\"note\">");
        html_text(b, a->consumer ? a->consumer : "the harness's replica");
        cdch_put_str(b, a->consumer ? ": from its first line (start-up done) to its last row.</p></section>\n"
                                    : ": from its dump request to the last event received.</p></section>\n");
    }
    cdch_put_str(b, "<section class=\"card\"><h2>Figures</h2>\n");
    html_table(b, a, lv, ln, n);
    cdch_put_str(b, "</section>\n</main>\n</body>\n</html>\n");
}

/* ---- the command ----------------------------------------------------------------------------- */

static void on_done(void *ud, const cdch_estimate_level *l, size_t done, size_t total)
{
    (void)ud;
    char name[8];
    level_name(l, name, sizeof name);
    fprintf(stderr, "estimate: [%zu/%zu] level %s: %" PRIu64 " bytes, %.3f s CPU, peak %.1f MB\n", done, total, name,
            l->stream_bytes, l->cpu_s, (double)l->peak_rss_bytes / 1048576.0);
}

static int write_out(const char *path, cdch_buf *b)
{
    FILE *f = fopen(path, "w");
    bool ok = f && fwrite(b->data, 1, b->len, f) == b->len;
    if (f && fclose(f) != 0)
        ok = false;
    if (!ok)
        fprintf(stderr, "cdcharness estimate: cannot write %s: %s\n", path, strerror(errno));
    return ok ? 0 : -1;
}

/* Resolve a's capture and measure it: every level, then with --link every stream's catch-up. in
 * is filled (the caller frees it, also on error). */
static int estimate_core(est_args *a, cdch_recompress_input *in, cdch_estimate_level *lv, est_link *ln,
                         cdch_err *err)
{
    memset(in, 0, sizeof *in);
    memset(ln, 0, sizeof *ln * (CDCH_ESTIMATE_MAX_LEVELS + 1));
    if (cdch_recompress_resolve(a->nin, a->in, in, err) != 0)
        return -1;
    char schema[PATH_MAX];
    snprintf(schema, sizeof schema, "%s/schema.sql", a->in[0]);
    if (a->link && access(schema, R_OK) != 0)
        return cdch_err_set(err,
                            "--link needs %s: the fake primary answers the consumer's catalogue queries from it "
                            "(`cdcharness record` writes it; write one by hand for binlog files from disk)",
                            schema);
    if (!a->quiet)
        a->eo.on_done = on_done;
    if (cdch_estimate(in, &a->eo, lv, err) != 0)
        return -1;
    if (lv[1].compressed == 0)
        return cdch_err_set(err,
                            "nothing to compress: none of the %" PRIu64 " transactions is one MySQL compresses "
                            "(row-based transactional DML of a server of 8.0.20 or later)",
                            lv[1].transactions);
    if (a->link && measure_link(a, in, lv, ln, err) != 0)
        return cdch_err_wrap(err, "--link %s", a->link_text);
    return 0;
}

bool cli_estimate_link_ok(const char *link)
{
    est_args a;
    memset(&a, 0, sizeof a);
    return parse_link(link, &a);
}

char *cli_estimate_capture(const char *capture, const char *label, const char *levels, const char *link,
                           const char *consumers_dir, bool quiet, FILE *out, cdch_err *err)
{
    est_args a;
    memset(&a, 0, sizeof a);
    a.label = label;
    a.eo.verify = true;
    a.timeout_s = 600;
    a.quiet = quiet;
    a.consumers_dir = consumers_dir;
    if (cdch_estimate_parse_levels(levels, &a.eo, err) != 0)
        return NULL;
    if (link && !parse_link(link, &a)) {
        cdch_err_set(err, "link '%s': give RATE or RATE/DELAY, e.g. 10mbit/20ms, 256kbit/100ms, 1gbit", link);
        return NULL;
    }
    char *in_paths[1] = {(char *)capture};
    a.nin = 1;
    a.in = in_paths;
    cdch_recompress_input in;
    cdch_estimate_level lv[CDCH_ESTIMATE_MAX_LEVELS + 1];
    est_link ln[CDCH_ESTIMATE_MAX_LEVELS + 1];
    char *res = NULL;
    if (estimate_core(&a, &in, lv, ln, err) == 0) {
        if (out)
            print_table(out, &a, lv, ln);
        cdch_buf b = CDCH_BUF_INIT;
        json_doc(&b, &a, &in, lv, ln);
        while (b.len && b.data[b.len - 1] == '\n')
            b.len--;
        res = cdch_xstrdup(cdch_buf_cstr(&b));
        cdch_buf_free(&b);
    }
    cdch_recompress_input_free(&in);
    return res;
}

int cmd_estimate(int argc, char **argv)
{
    est_args a;
    int rc = estimate_parse(argc, argv, &a);
    if (rc >= 0)
        return rc;
    cdch_err err;
    cdch_recompress_input in;
    cdch_estimate_level lv[CDCH_ESTIMATE_MAX_LEVELS + 1];
    est_link ln[CDCH_ESTIMATE_MAX_LEVELS + 1];
    rc = CDCH_EXIT_OK;
    if (estimate_core(&a, &in, lv, ln, &err) != 0) {
        fprintf(stderr, "cdcharness estimate: %s\n", err.msg);
        rc = CDCH_EXIT_BAD_INPUT;
    }
    if (rc == CDCH_EXIT_OK) {
        print_table(stdout, &a, lv, ln);
        cdch_buf b = CDCH_BUF_INIT;
        if (a.json) {
            json_doc(&b, &a, &in, lv, ln);
            if (write_out(a.json, &b) != 0)
                rc = CDCH_EXIT_BAD_INPUT;
        }
        if (a.html) {
            cdch_buf_reset(&b);
            html_doc(&b, &a, lv, ln);
            if (write_out(a.html, &b) != 0)
                rc = CDCH_EXIT_BAD_INPUT;
        }
        cdch_buf_free(&b);
    }
    cdch_recompress_input_free(&in);
    return rc;
}
