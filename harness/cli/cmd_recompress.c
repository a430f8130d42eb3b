/* cmd_recompress.c — `cdcharness recompress`: captured binlog files rewritten
 * as MySQL 8 writes them with binlog_transaction_compression ON (a zstd
 * level), OFF, or switched on at one transaction (recompress.h). */
#include <getopt.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "recompress.h"

static void recompress_usage(FILE *f)
{
    fprintf(f,
            "usage: cdcharness recompress IN... --out DIR [--level N] [--mode compressed|uncompressed]\n"
            "                             [--flip-at TXN] [--content-size] [--no-verify] [--quiet]\n"
            "\n"
            "Rewrite binlog files as MySQL 8 writes them with binlog_transaction_compression=ON:\n"
            "each row-based transactional transaction's events (after its GTID event, up to\n"
            "and including its XID) in one TRANSACTION_PAYLOAD, never DDL, non-transactional\n"
            "(no XID, e.g. MyISAM), empty, incident or statement-based transactions; GTID\n"
            "transaction_length, end_log_pos and CRC32 checksums recomputed; file names,\n"
            "rotation (ROTATE events), PREVIOUS_GTIDS and the checksum setting kept.\n"
            "Payloads already in the input are compressed again at the new level.\n"
            "\n"
            "  IN               binlog files in stream order, or one directory with an index\n"
            "                   file (a `cdcharness gen` stream, a copy of a server's binlog\n"
            "                   directory, `mysqlbinlog --raw` output with its index)\n"
            "  --out DIR        output directory (created; must not exist or be empty): the\n"
            "                   files under the same names and the index\n"
            "  --level N        zstd level 1..22 (binlog_transaction_compression_level_zstd,\n"
            "                   default 3)\n"
            "  --mode M         compressed (default) or uncompressed: every payload unpacked,\n"
            "                   as the server writes with compression OFF\n"
            "  --flip-at TXN    compression switched on at transaction TXN (1-based, counted\n"
            "                   by GTID events over all files: the \"txn\" of expected.jsonl);\n"
            "                   earlier transactions are written uncompressed\n"
            "  --content-size   zstd frames carry Frame_Content_Size (as 8.0.3x+ servers\n"
            "                   that pledge the source size; default off, as 8.0.2x writes)\n"
            "  --no-verify      do not verify the input's CRC32 checksums\n"
            "  --quiet          no summary on stderr\n"
            "\n"
            "The input is read one event at a time; memory is the largest transaction plus\n"
            "a constant. Nothing is written when anything fails.\n"
            "exit status: 0 ok, 1 bad input or I/O error, 2 usage error\n");
}

static void summary(const cdch_recompress_opts *o, const char *dir, const cdch_recompress_stats *st)
{
    fprintf(stderr,
            "recompress [%s", o->compress ? "compressed" : "uncompressed");
    if (o->compress)
        fprintf(stderr, ", zstd level %d%s", o->level, o->content_size ? ", content size" : "");
    if (o->compress && o->flip_at)
        fprintf(stderr, ", from txn %llu", (unsigned long long)o->flip_at);
    fprintf(stderr,
            "] -> %s: %llu file(s), %llu -> %llu bytes, %llu transactions: %llu compressed, %llu not compressible "
            "(DDL, non-transactional, empty, incident, statement-based); %llu payload(s) read",
            dir, (unsigned long long)st->files, (unsigned long long)st->bytes_in, (unsigned long long)st->bytes_out,
            (unsigned long long)st->transactions, (unsigned long long)st->compressed,
            (unsigned long long)st->not_compressible,
            (unsigned long long)st->payloads_in);
    if (st->compressed_in_bytes)
        fprintf(stderr, "; payloads %llu -> %llu bytes (ratio %.3f)", (unsigned long long)st->compressed_in_bytes,
                (unsigned long long)st->compressed_out_bytes,
                (double)st->compressed_out_bytes / (double)st->compressed_in_bytes);
    fputc('\n', stderr);
    if (st->old_server)
        fprintf(stderr,
                "recompress: %llu transaction(s) left uncompressed: written by a server before 8.0.20, which "
                "cannot compress (binlog_transaction_compression is 8.0.20+)\n",
                (unsigned long long)st->old_server);
}

static bool parse_u64(const char *s, unsigned long long lo, unsigned long long hi, unsigned long long *out)
{
    char *end;
    if (!*s || *s == '-')
        return false;
    *out = strtoull(s, &end, 10);
    return !*end && *out >= lo && *out <= hi;
}

int cmd_recompress(int argc, char **argv)
{
    enum { O_FLIP = 256, O_CSIZE, O_NOVERIFY };
    static const struct option opts[] = {
        {"out", required_argument, NULL, 'o'},       {"level", required_argument, NULL, 'l'},
        {"mode", required_argument, NULL, 'm'},      {"flip-at", required_argument, NULL, O_FLIP},
        {"content-size", no_argument, NULL, O_CSIZE}, {"no-verify", no_argument, NULL, O_NOVERIFY},
        {"quiet", no_argument, NULL, 'q'},           {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    cdch_recompress_opts o = {true, 3, false, 0, true};
    const char *out = NULL, *mode = NULL;
    bool quiet = false, level_given = false;
    unsigned long long v;
    int c;
    optind = 1;
    while ((c = getopt_long(argc, argv, "o:l:m:qh", opts, NULL)) != -1) {
        switch (c) {
        case 'o': out = optarg; break;
        case 'l':
            if (!parse_u64(optarg, 1, 22, &v)) {
                fprintf(stderr, "cdcharness recompress: --level wants a zstd level 1..22, not '%s'\n", optarg);
                return CDCH_EXIT_USAGE;
            }
            o.level = (int)v;
            level_given = true;
            break;
        case 'm': mode = optarg; break;
        case O_FLIP:
            if (!parse_u64(optarg, 1, UINT64_MAX, &v)) {
                fprintf(stderr, "cdcharness recompress: --flip-at wants a transaction number >= 1, not '%s'\n",
                        optarg);
                return CDCH_EXIT_USAGE;
            }
            o.flip_at = v;
            break;
        case O_CSIZE: o.content_size = true; break;
        case O_NOVERIFY: o.verify = false; break;
        case 'q': quiet = true; break;
        case 'h': recompress_usage(stdout); return CDCH_EXIT_OK;
        default: recompress_usage(stderr); return CDCH_EXIT_USAGE;
        }
    }
    const char *bad = NULL;
    if (optind >= argc)
        bad = "give the binlog files (or a directory with an index) to rewrite";
    else if (!out)
        bad = "--out DIR is required";
    else if (mode && strcmp(mode, "compressed") && strcmp(mode, "uncompressed"))
        bad = "--mode is compressed or uncompressed";
    else if (mode && !strcmp(mode, "uncompressed") && (o.flip_at || level_given || o.content_size))
        bad = "--mode uncompressed takes no --level, --flip-at or --content-size";
    if (bad) {
        fprintf(stderr, "cdcharness recompress: %s\n\n", bad);
        recompress_usage(stderr);
        return CDCH_EXIT_USAGE;
    }
    o.compress = !mode || strcmp(mode, "compressed") == 0;

    cdch_err err;
    cdch_recompress_input in;
    if (cdch_recompress_resolve(argc - optind, argv + optind, &in, &err) != 0) {
        fprintf(stderr, "cdcharness recompress: %s\n", err.msg);
        return CDCH_EXIT_BAD_INPUT;
    }
    cdch_recompress_stats st;
    int rc = CDCH_EXIT_OK;
    if (cdch_recompress(&in, out, &o, &st, &err) != 0) {
        fprintf(stderr, "cdcharness recompress: %s\n", err.msg);
        rc = CDCH_EXIT_BAD_INPUT;
    } else if (!quiet) {
        summary(&o, out, &st);
    }
    cdch_recompress_input_free(&in);
    return rc;
}
