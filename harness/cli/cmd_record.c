/* cmd_record.c — `cdcharness record`: capture a binlog stream from a MySQL
 * primary (as a replica), or from binlog files on disk, into a capture
 * directory (record.h). */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "buf.h"
#include "cli.h"
#include "jsonstr.h"
#include "record.h"

static void record_usage(FILE *f)
{
    fprintf(f,
            "usage: cdcharness record --user U [--host H] [--port N] [--ssl-mode M [--ssl-ca F]]\n"
            "                         [--server-id N] (--start FILE:POS | --gtid-set SET)\n"
            "                         (--stop FILE:POS | --max-bytes N | --duration S | --until-end)\n"
            "                         [--retries N] [--tables all|touched] --out DIR\n"
            "       cdcharness record --from-files FILE... [--schema FILE] [--tables T] --out DIR\n"
            "\n"
            "Capture a binlog stream from a MySQL 8.0.20+ / 8.4 / 9.x primary, registering as a\n"
            "replica (COM_REGISTER_SLAVE, COM_BINLOG_DUMP or, with --gtid-set, COM_BINLOG_DUMP_GTID),\n"
            "into DIR: the binlog files as received (names from the ROTATE events, each starting\n"
            "with the magic and the FDE, rotations and checksums as sent; fake ROTATEs and\n"
            "heartbeats are not written, as in a relay log or `mysqlbinlog --raw`), the index,\n"
            "capture.json (server, start, end reached, bytes, events, files, tables, these\n"
            "options without the password) and schema.sql.\n"
            "\n"
            "connection:\n"
            "  --host H           default 127.0.0.1 (localhost = the Unix socket)\n"
            "  --port N           default 3306\n"
            "  --user U           needs REPLICATION SLAVE, REPLICATION CLIENT (--until-end) and\n"
            "                     SELECT on the tables (schema.sql)\n"
            "  --password P       or $CDCH_PASSWORD / $MYSQL_PWD (preferred: not in `ps`); never\n"
            "                     printed nor written\n"
            "  --ssl-mode M       DISABLED, PREFERRED (default: TLS when the server offers it),\n"
            "                     REQUIRED, VERIFY_CA, VERIFY_IDENTITY (host name too)\n"
            "  --ssl-ca F         CA certificate (PEM) for VERIFY_CA / VERIFY_IDENTITY\n"
            "  --server-id N      the replica server id to register (default 65535, as\n"
            "                     mysqlbinlog); must differ from every replica of the primary\n"
            "start (one):\n"
            "  --start FILE:POS   a binlog file and position (4 = its beginning)\n"
            "  --gtid-set SET     every transaction not in SET ('' = all the server has)\n"
            "bound (one or more; the first reached ends the capture):\n"
            "  --stop FILE:POS    the end of an event (e.g. a SHOW BINARY LOG STATUS position)\n"
            "  --max-bytes N      N bytes of events (K, M, G suffixes: 1024-based), then to the\n"
            "                     end of the transaction in progress\n"
            "  --duration S       S seconds, then to the end of the transaction in progress\n"
            "  --until-end        the end of the log when the capture starts (SHOW BINARY LOG\n"
            "                     STATUS / SHOW MASTER STATUS), as a non-blocking dump\n"
            "robustness:\n"
            "  --retries N        reconnects after a dropped connection, each resuming at the\n"
            "                     last complete event (default 3); then the capture fails\n"
            "  --net-timeout S    no packet for S seconds = a dropped connection (default 30;\n"
            "                     the server sends a heartbeat every second)\n"
            "output:\n"
            "  --out DIR          created atomically (must not exist or be empty)\n"
            "  --quiet            no summary line (progress is shown on a terminal only)\n"
            "  --tables all|touched  schema.sql: every table (all, the default: the catalogue\n"
            "                     the primary had, and no payload is decompressed while recording)\n"
            "                     or the tables the range maps (touched: every TABLE_MAP is read,\n"
            "                     inside compressed payloads too, which costs a decompression of\n"
            "                     each; capture.json then lists them)\n"
            "from files:\n"
            "  --from-files       the arguments are binlog files (a copy of the primary's binlog\n"
            "                     directory, or `mysqlbinlog --raw` output), in order; checked\n"
            "                     (magic, framing, FDE first, CRC32) and copied into DIR\n"
            "  --schema FILE      copied as schema.sql; without it there is no schema.sql\n"
            "\n"
            "Schema and DDL: schema.sql holds SHOW CREATE DATABASE / SHOW CREATE TABLE of every\n"
            "base table outside the system schemas (with --tables touched: of the tables the range\n"
            "maps), read through the same account just before the dump starts: the schema AS OF\n"
            "THE START.\n"
            "DDL inside the range is in the stream, and a replay's expected events follow it as\n"
            "consumers that track DDL from the stream do (most do): CREATE TABLE (column list or\n"
            "LIKE), ALTER TABLE (ADD/DROP/MODIFY/CHANGE/RENAME COLUMN, SET/DROP DEFAULT, keys,\n"
            "table options, partitioning, RENAME TO), RENAME TABLE, DROP TABLE and CREATE/ALTER/\n"
            "DROP DATABASE. A table changed any other way (CONVERT TO CHARACTER SET, CREATE TABLE\n"
            "... SELECT, what does not parse) is not guessed: its rows are named as without the\n"
            "DDL (schema.sql's columns when as many, else @1, @2 ...) until a CREATE TABLE.\n"
            "Consumers that read the catalogue instead (the fake primary answers from schema.sql)\n"
            "see the start-of-range schema for the whole range, as they would have seen it from\n"
            "the real server at that moment: rows after an ALTER then differ from that catalogue.\n"
            "With --tables touched, tables the range maps that did not exist at the start are\n"
            "listed in schema.sql as a comment (their CREATE is in the stream).\n"
            "\n"
            "A dropped connection resumes; a capture that cannot reach its bound is put in place\n"
            "with \"complete\": false and the error in capture.json, and the exit status is 1.\n"
            "exit status: 0 the bound was reached, 1 connection, server or input error (or bound\n"
            "not reached), 2 usage error\n");
}

enum {
    O_HOST = 256, O_PORT, O_USER, O_PASSWORD, O_SSL_MODE, O_SSL_CA, O_SERVER_ID, O_START, O_GTID_SET, O_STOP,
    O_MAX_BYTES, O_DURATION, O_UNTIL_END, O_RETRIES, O_NET_TIMEOUT, O_OUT, O_QUIET, O_FROM_FILES, O_SCHEMA,
    O_TABLES,
};

static void on_signal(int sig)
{
    (void)sig;
    cdch_record_interrupt();
}

/* FILE:POS (the last ':' splits). */
static bool parse_file_pos(const char *s, char *file, size_t n, uint64_t *pos)
{
    const char *c = strrchr(s, ':');
    if (!c || c == s || !c[1] || (size_t)(c - s) >= n)
        return false;
    char *end;
    errno = 0;
    unsigned long long v = strtoull(c + 1, &end, 10);
    if (errno || *end || v < 4 || c[1] == '-')
        return false;
    memcpy(file, s, (size_t)(c - s));
    file[c - s] = '\0';
    *pos = v;
    return true;
}

static bool parse_size(const char *s, uint64_t *out)
{
    char *end;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 10);
    if (errno || end == s || s[0] == '-')
        return false;
    unsigned shift = 0;
    if (*end == 'K' || *end == 'k')
        shift = 10, end++;
    else if (*end == 'M' || *end == 'm')
        shift = 20, end++;
    else if (*end == 'G' || *end == 'g')
        shift = 30, end++;
    if (*end || v == 0 || v > (UINT64_MAX >> shift))
        return false;
    *out = (uint64_t)v << shift;
    return true;
}

/* A decimal integer in [lo, hi]. */
static bool parse_uint(const char *s, uint64_t lo, uint64_t hi, uint64_t *out)
{
    char *end;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 10);
    if (errno || end == s || *end || s[0] == '-' || v < lo || v > hi)
        return false;
    *out = v;
    return true;
}

static bool parse_secs(const char *s, double *out)
{
    char *end;
    double v = strtod(s, &end);
    if (end == s || *end || !(v > 0) || v > 1e9)
        return false;
    *out = v;
    return true;
}

/* The command line as a JSON array, without the password: "--password P"
 * (both elements) and "--password=P" are left out, found by the argument
 * pointer getopt gave (argv is permuted by then, but an option and its
 * value stay adjacent). */
static char *options_json(int argc, char **argv, const char *pw)
{
    cdch_buf b = CDCH_BUF_INIT;
    cdch_put_u8(&b, '[');
    bool first = true;
    for (int i = 1; i < argc; i++) {
        if (pw && argv[i] == pw)
            continue;
        if (pw && i + 1 < argc && argv[i + 1] == pw)
            continue;
        if (pw && pw > argv[i] && pw <= argv[i] + strlen(argv[i]))
            continue;
        if (!first)
            cdch_put_u8(&b, ',');
        first = false;
        cdch_put_json_str(&b, argv[i], strlen(argv[i]), 0);
    }
    cdch_put_u8(&b, ']');
    char *s = strdup(cdch_buf_cstr(&b));
    cdch_buf_free(&b);
    return s;
}

typedef struct rec_cli {
    cdch_record_opts o;
    char start_file[512], stop_file[512];
    bool from_files, quiet, have_start;
    const char *schema;
    const char *pw_arg; /* --password's argv pointer (scrubbed after use) */
} rec_cli;

/* One option into c; false (message printed) when its value is bad. */
static bool take_opt(rec_cli *c, int code, const char *arg)
{
    cdch_record_opts *o = &c->o;
    uint64_t v;
    switch (code) {
    case O_HOST: o->host = arg; return true;
    case O_PORT: if (parse_uint(arg, 1, 65535, &v)) return o->port = (unsigned)v, true; break;
    case O_USER: o->user = arg; return true;
    case O_PASSWORD: o->password = arg, c->pw_arg = arg; return true;
    case O_SSL_MODE: {
        int m = cdch_ssl_mode_parse(arg);
        if (m < 0)
            break;
        o->ssl_mode = (cdch_ssl_mode)m;
        return true;
    }
    case O_SSL_CA: o->ssl_ca = arg; return true;
    case O_SERVER_ID: if (parse_uint(arg, 1, UINT32_MAX, &v)) return o->server_id = (uint32_t)v, true; break;
    case O_START:
        c->have_start = parse_file_pos(arg, c->start_file, sizeof c->start_file, &o->start_pos);
        o->start_file = c->start_file;
        return c->have_start ? true : (fprintf(stderr, "cdcharness record: --start wants FILE:POS (POS >= 4), "
                                                       "not '%s'\n", arg), false);
    case O_GTID_SET: o->gtid_set = arg; return true;
    case O_STOP:
        o->stop_file = c->stop_file;
        if (parse_file_pos(arg, c->stop_file, sizeof c->stop_file, &o->stop_pos))
            return true;
        fprintf(stderr, "cdcharness record: --stop wants FILE:POS (POS >= 4), not '%s'\n", arg);
        return false;
    case O_MAX_BYTES: if (parse_size(arg, &o->max_bytes)) return true; break;
    case O_DURATION: if (parse_secs(arg, &o->duration_s)) return true; break;
    case O_UNTIL_END: o->until_end = true; return true;
    case O_RETRIES: if (parse_uint(arg, 0, 1000, &v)) return o->retries = (int)v, true; break;
    case O_NET_TIMEOUT: if (parse_secs(arg, &o->net_timeout_s)) return true; break;
    case O_OUT: o->out_dir = arg; return true;
    case O_QUIET: c->quiet = true; return true;
    case O_FROM_FILES: c->from_files = true; return true;
    case O_SCHEMA: c->schema = arg; return true;
    case O_TABLES:
        if (strcmp(arg, "all") == 0 || strcmp(arg, "touched") == 0)
            return o->tables_touched = arg[0] == 't', true;
        fprintf(stderr, "cdcharness record: --tables wants all or touched, not '%s'\n", arg);
        return false;
    default: return false;
    }
    fprintf(stderr, "cdcharness record: bad value '%s' for %s\n", arg, code == O_PORT ? "--port" :
            code == O_SSL_MODE ? "--ssl-mode (DISABLED, PREFERRED, REQUIRED, VERIFY_CA, VERIFY_IDENTITY)" :
            code == O_SERVER_ID ? "--server-id (1..4294967295)" : code == O_MAX_BYTES ? "--max-bytes" :
            code == O_DURATION ? "--duration (seconds > 0)" : code == O_RETRIES ? "--retries (0..1000)" :
            "--net-timeout (seconds > 0)");
    return false;
}

/* The combinations the two forms allow; a message and false when not. */
static bool check_opts(rec_cli *c, int nargs)
{
    const cdch_record_opts *o = &c->o;
    const char *bad = NULL;
    if (!o->out_dir)
        bad = "--out DIR is required";
    else if (c->from_files && nargs == 0)
        bad = "--from-files needs the binlog files as arguments";
    else if (c->from_files && (o->user || c->have_start || o->gtid_set || o->stop_file || o->until_end))
        bad = "--from-files takes files, --schema, --tables and --out only (no server, start or bound options)";
    else if (c->from_files)
        return true;
    else if (nargs > 0)
        bad = "arguments are binlog files only with --from-files";
    else if (c->schema)
        bad = "--schema is for --from-files (from a server, schema.sql is read from it)";
    else if (!o->user)
        bad = "--user is required";
    else if (c->have_start == (o->gtid_set != NULL))
        bad = "give one start: --start FILE:POS or --gtid-set SET";
    else if (!o->stop_file && !o->max_bytes && o->duration_s <= 0 && !o->until_end)
        bad = "give a bound: --stop FILE:POS, --max-bytes N, --duration S or --until-end";
    else if (o->until_end && o->stop_file)
        bad = "--until-end and --stop both name an end position: give one";
    else if ((o->ssl_mode == CDCH_SSL_VERIFY_CA || o->ssl_mode == CDCH_SSL_VERIFY_IDENTITY) && !o->ssl_ca)
        bad = "--ssl-mode VERIFY_CA / VERIFY_IDENTITY need --ssl-ca FILE";
    else if (c->have_start && o->stop_file && strcmp(o->stop_file, o->start_file) == 0 &&
             o->stop_pos <= o->start_pos)
        bad = "--stop is not after --start";
    if (bad) {
        fprintf(stderr, "cdcharness record: %s\n\n", bad);
        record_usage(stderr);
        return false;
    }
    return true;
}

static void summary(const rec_cli *c, const cdch_record_result *r)
{
    if (c->quiet)
        return;
    fprintf(stderr,
            "record: %" PRIu64 " file(s), %" PRIu64 " bytes, %" PRIu64 " events in %.2f s (%.1f MB/s), end %s:%" PRIu64
            ", %u reconnect(s) -> %s\n",
            r->files, r->bytes, r->events, r->seconds, r->seconds > 0 ? (double)r->bytes / 1e6 / r->seconds : 0.0,
            r->end_file, r->end_pos, r->reconnects, c->o.out_dir);
}

int cmd_record(int argc, char **argv)
{
    static const struct option opts[] = {
        {"host", required_argument, NULL, O_HOST},         {"port", required_argument, NULL, O_PORT},
        {"user", required_argument, NULL, O_USER},         {"password", required_argument, NULL, O_PASSWORD},
        {"ssl-mode", required_argument, NULL, O_SSL_MODE}, {"ssl-ca", required_argument, NULL, O_SSL_CA},
        {"server-id", required_argument, NULL, O_SERVER_ID}, {"start", required_argument, NULL, O_START},
        {"gtid-set", required_argument, NULL, O_GTID_SET}, {"stop", required_argument, NULL, O_STOP},
        {"max-bytes", required_argument, NULL, O_MAX_BYTES}, {"duration", required_argument, NULL, O_DURATION},
        {"until-end", no_argument, NULL, O_UNTIL_END},     {"retries", required_argument, NULL, O_RETRIES},
        {"net-timeout", required_argument, NULL, O_NET_TIMEOUT}, {"out", required_argument, NULL, O_OUT},
        {"quiet", no_argument, NULL, O_QUIET},             {"from-files", no_argument, NULL, O_FROM_FILES},
        {"schema", required_argument, NULL, O_SCHEMA},     {"tables", required_argument, NULL, O_TABLES},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    rec_cli c;
    memset(&c, 0, sizeof c);
    c.o.host = "127.0.0.1";
    c.o.port = 3306;
    c.o.server_id = 65535;
    c.o.retries = 3;
    c.o.net_timeout_s = 30;
    int code;
    optind = 1;
    while ((code = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
        if (code == 'h') {
            record_usage(stdout);
            return CDCH_EXIT_OK;
        }
        if (code == '?' || !take_opt(&c, code, optarg)) {
            if (code == '?')
                record_usage(stderr);
            return CDCH_EXIT_USAGE;
        }
    }
    if (!check_opts(&c, argc - optind))
        return CDCH_EXIT_USAGE;
    char *oj = options_json(argc, argv, c.pw_arg);
    cdch_record_result res;
    cdch_err err;
    int rc;
    if (c.from_files) {
        rc = cdch_record_files((const char *const *)argv + optind, (size_t)(argc - optind), c.schema, c.o.tables_touched,
                               c.o.out_dir, oj,
                               &res, &err);
    } else {
        char *pw = NULL;
        if (!c.o.password) {
            const char *env = getenv("CDCH_PASSWORD");
            c.o.password = env ? env : getenv("MYSQL_PWD") ? getenv("MYSQL_PWD") : "";
        } else {
            pw = strdup(c.o.password); /* the copy is used; argv's is blanked for `ps` */
            memset((char *)c.pw_arg, 'x', strlen(c.pw_arg));
            c.o.password = pw;
        }
        c.o.options_json = oj;
        c.o.progress = !c.quiet && isatty(2);
        signal(SIGINT, on_signal); /* seen at the next packet: a heartbeat comes every second */
        signal(SIGTERM, on_signal);
        rc = cdch_record(&c.o, &res, &err);
        if (pw) {
            memset(pw, 0, strlen(pw));
            free(pw);
        }
    }
    free(oj);
    if (rc != 0) {
        fprintf(stderr, "cdcharness record: %s\n", err.msg);
        if (res.written)
            fprintf(stderr, "cdcharness record: the incomplete capture (%" PRIu64 " events, to %s:%" PRIu64
                            ") is in %s: capture.json says \"complete\": false\n",
                    res.events, res.end_file, res.end_pos, c.o.out_dir);
        return CDCH_EXIT_BAD_INPUT;
    }
    summary(&c, &res);
    return CDCH_EXIT_OK;
}
