/* cmd_decode.c — `cdcharness decode`: decode every event of binlog files
 * (TRANSACTION_PAYLOAD inner events included), verify checksums, print
 * them as mysqlbinlog-style text or JSON Lines (print.h). */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arena.h"
#include "buf.h"
#include "cli.h"
#include "err.h"
#include "event.h"
#include "mysql_types.h"
#include "print.h"
#include "reader.h"
#include "canon.h"
#include "scenario.h"

static void decode_usage(FILE *f)
{
    fprintf(f,
            "usage: cdcharness decode [--json | --canonical [--scenario S] [--start FILE:POS]] [--no-verify] [--hexdump] FILE...\n"
            "\n"
            "Decode every event of each binlog FILE ('-' = standard input), including the\n"
            "events inside TRANSACTION_PAYLOAD (compressed) events, and print them.\n"
            "\n"
            "options:\n"
            "  --json       JSON Lines, one object per event (shape documented in\n"
            "               harness/codec/print.h); the per-file summary goes to stderr\n"
            "  --canonical  print the change events a correct CDC consumer emits (one\n"
            "               JSON line per row, the form of expected.jsonl; see\n"
            "               harness/stream/canon.h); give a stream's files in order\n"
            "  --scenario S take column names, ENUM/SET labels from scenario S when the\n"
            "               TABLE_MAPs carry no FULL metadata (with --canonical)\n"
            "  --start FILE:POS  with --canonical: start as a replica that asked for\n"
            "               FILE:POS would: the changes of transactions that end at or\n"
            "               before it (or in earlier files) are decoded but not printed\n"
            "  --no-verify  do not verify CRC32 checksums\n"
            "  --hexdump    text: mysqlbinlog -H style hex dump of each event;\n"
            "               JSON: add \"raw_hex\" with the event's bytes\n"
            "  -h, --help   show this help\n"
            "\n"
            "Text output is modelled on `mysqlbinlog --base64-output=decode-rows -vv`\n"
            "(times in UTC) and ends each file with\n"
            "  # N events (M inside payloads), K payloads\n"
            "\n"
            "On malformed or truncated input the problem is reported on stderr as\n"
            "  FILE: offset N: <what was wrong>\n"
            "and decoding of that file stops (events before it are printed).\n"
            "\n"
            "exit status: 0 all files decoded, 1 bad input, 2 usage error\n");
}

typedef struct decode_opts {
    bool json;
    const char *start_file; /* --start: NULL when not given */
    uint64_t start_pos;
    cdch_canon *canon; /* --canonical: the reference consumer, kept across files */
    bool verify;
    bool hexdump;
} decode_opts;

typedef struct decode_stats {
    uint64_t top;      /* top-level events */
    uint64_t inner;    /* events inside payloads */
    uint64_t payloads; /* TRANSACTION_PAYLOAD events */
} decode_stats;

/* Write and empty buf; false on a stdout error. */
static bool flush_out(cdch_buf *buf)
{
    if (buf->len && fwrite(buf->data, 1, buf->len, stdout) != buf->len)
        return false;
    cdch_buf_reset(buf);
    return true;
}

/* Returns CDCH_EXIT_OK or CDCH_EXIT_BAD_INPUT. */
static int decode_file(const char *path, const decode_opts *o, cdch_printer *pr, cdch_buf *out)
{
    cdch_err err;
    cdch_err_clear(&err);
    cdch_reader *r = cdch_reader_open(path, 0, &err);
    if (!r) {
        fprintf(stderr, "%s\n", err.msg);
        return CDCH_EXIT_BAD_INPUT;
    }
    const char *name = cdch_reader_name(r);
    cdch_decoder *d = cdch_decoder_new();
    cdch_decoder_verify_checksums(d, o->verify);
    cdch_printer_reset(pr);
    cdch_arena arena = CDCH_ARENA_INIT;
    decode_stats st = {0, 0, 0};
    int status = CDCH_EXIT_OK;
    bool out_ok = true;

    cdch_raw_event raw;
    int rc;
    while ((rc = cdch_reader_next(r, &raw, &err)) == 1) {
        cdch_event ev;
        memset(&ev, 0, sizeof ev);
        cdch_err_clear(&err);
        if (cdch_decode_event(d, raw.data, raw.len, &arena, &ev, &err) != 0) {
            out_ok = flush_out(out) && out_ok;
            fprintf(stderr, "%s: offset %" PRIu64 ": %s", name, raw.offset, err.msg[0] ? err.msg : "cannot decode");
            if (err.offset >= 0)
                fprintf(stderr, " (at byte %" PRId64 " of the %u-byte %s event)", err.offset, (unsigned)raw.len,
                        cdch_event_type_name(raw.type));
            fputc('\n', stderr);
            status = CDCH_EXIT_BAD_INPUT;
            break;
        }
        st.top++;
        if (ev.h.type == CDCH_EV_TRANSACTION_PAYLOAD) {
            st.payloads++;
            st.inner += ev.u.payload.n_inner;
        }
        if (o->canon) {
            const char *base = strrchr(name, '/');
            base = base ? base + 1 : name;
            size_t mark = out->len;
            if (cdch_canon_event(o->canon, base, &ev, out, &err) != 0) {
                out_ok = flush_out(out) && out_ok;
                fprintf(stderr, "%s: offset %" PRIu64 ": %s\n", name, raw.offset, err.msg);
                status = CDCH_EXIT_BAD_INPUT;
                break;
            }
            if (o->start_file) { /* before the start: decoded (state kept), not printed */
                int c = strcmp(base, o->start_file);
                if (c < 0 || (c == 0 && raw.offset + raw.len <= o->start_pos))
                    out->len = mark;
            }
        } else {
            cdch_printer_event(pr, &ev, raw.offset, out);
        }
        if (out->len >= 64 * 1024)
            out_ok = flush_out(out) && out_ok;
        cdch_arena_reset(&arena);
        if (!out_ok)
            break;
    }
    if (rc < 0) {
        out_ok = flush_out(out) && out_ok;
        fprintf(stderr, "%s: %s\n", name, err.msg);
        status = CDCH_EXIT_BAD_INPUT;
    }
    if (status == CDCH_EXIT_OK && out_ok) {
        uint64_t total = st.top + st.inner;
        if (o->json || o->canon) {
            fprintf(stderr, "%s: %" PRIu64 " events (%" PRIu64 " inside payloads), %" PRIu64 " payloads\n", name,
                    total, st.inner, st.payloads);
        } else {
            cdch_buf_printf(out, "# End of log file\n# %" PRIu64 " events (%" PRIu64 " inside payloads), %" PRIu64
                                 " payloads\n",
                            total, st.inner, st.payloads);
        }
    }
    out_ok = flush_out(out) && out_ok;
    if (fflush(stdout) != 0)
        out_ok = false;
    if (!out_ok) {
        fprintf(stderr, "cdcharness decode: error writing output: %s\n", strerror(errno));
        status = CDCH_EXIT_BAD_INPUT;
    }
    cdch_arena_free(&arena);
    cdch_decoder_free(d);
    cdch_reader_free(r);
    return status;
}

int cmd_decode(int argc, char **argv)
{
    decode_opts o = {false, NULL, 0, NULL, true, false};
    char *start_buf = NULL;
    bool canonical = false;
    const char *scenario_path = NULL;
    /* Options and files may be mixed; "--" ends options, "-" is stdin. The
     * file names are compacted in place at the front of argv. */
    int nfiles = 0;
    bool opts_done = false;
    for (int i = 1; i < argc; i++) {
        char *a = argv[i];
        if (opts_done || a[0] != '-' || strcmp(a, "-") == 0) {
            argv[nfiles++] = a;
        } else if (strcmp(a, "--") == 0) {
            opts_done = true;
        } else if (strcmp(a, "--json") == 0) {
            o.json = true;
        } else if (strcmp(a, "--canonical") == 0) {
            canonical = true;
        } else if (strcmp(a, "--scenario") == 0 && i + 1 < argc) {
            scenario_path = argv[++i];
        } else if (strcmp(a, "--start") == 0 && i + 1 < argc) {
            free(start_buf);
            start_buf = strdup(argv[++i]);
            char *colon = start_buf ? strrchr(start_buf, ':') : NULL;
            char *end = NULL;
            unsigned long long pos = colon ? strtoull(colon + 1, &end, 10) : 0;
            if (!colon || colon == start_buf || !end || *end || end == colon + 1) {
                fprintf(stderr, "cdcharness decode: --start wants FILE:POS (e.g. binlog.000001:1234), not '%s'\n\n",
                        argv[i]);
                free(start_buf);
                decode_usage(stderr);
                return CDCH_EXIT_USAGE;
            }
            *colon = '\0';
            o.start_file = start_buf;
            o.start_pos = pos;
        } else if (strcmp(a, "--no-verify") == 0) {
            o.verify = false;
        } else if (strcmp(a, "--hexdump") == 0 || strcmp(a, "-H") == 0) {
            o.hexdump = true;
        } else if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
            decode_usage(stdout);
            return CDCH_EXIT_OK;
        } else {
            fprintf(stderr, "cdcharness decode: unknown option '%s'\n\n", a);
            decode_usage(stderr);
            return CDCH_EXIT_USAGE;
        }
    }
    if (nfiles == 0) {
        fprintf(stderr, "cdcharness decode: no input file given\n\n");
        free(start_buf);
        decode_usage(stderr);
        return CDCH_EXIT_USAGE;
    }

    if ((canonical && o.json) || ((scenario_path || o.start_file) && !canonical)) {
        fprintf(stderr, "cdcharness decode: %s\n\n",
                o.json ? "--json and --canonical exclude each other"
                       : scenario_path ? "--scenario needs --canonical" : "--start needs --canonical");
        free(start_buf);
        decode_usage(stderr);
        return CDCH_EXIT_USAGE;
    }
    cdch_scenario *schema = NULL;
    if (scenario_path) {
        cdch_err err;
        if (!(schema = cdch_scenario_load(scenario_path, &err))) {
            fprintf(stderr, "%s\n", err.msg);
            free(start_buf);
            return CDCH_EXIT_BAD_INPUT;
        }
    }
    if (canonical)
        o.canon = cdch_canon_new(schema);

    int status = CDCH_EXIT_OK;
    cdch_buf out = CDCH_BUF_INIT;
    for (int i = 0; i < nfiles; i++) {
        cdch_print_opts po = {o.json, o.hexdump, strcmp(argv[i], "-") == 0 ? "<stdin>" : argv[i]};
        cdch_printer *pr = cdch_printer_new(&po);
        if (decode_file(argv[i], &o, pr, &out) != CDCH_EXIT_OK)
            status = CDCH_EXIT_BAD_INPUT;
        cdch_printer_free(pr);
    }
    cdch_buf_free(&out);
    cdch_canon_free(o.canon);
    cdch_scenario_free(schema);
    free(start_buf);
    return status;
}
