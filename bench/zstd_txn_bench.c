/* zstd_txn_bench.c — the baseline of bench/recompress_bench.sh: bare libzstd
 * compressing each transaction of binlog files one by one, with one reused
 * ZSTD_CCtx and the parameters MySQL uses (one frame, no checksum, no
 * content size), and nothing else: no checksum verification, no output file.
 *
 *   zstd_txn_bench LEVEL FILE...
 *
 * A transaction is the events after a GTID / ANONYMOUS_GTID event up to the
 * next GTID, ROTATE, STOP or the end of the file, each without its 4-byte
 * CRC32 (the FORMAT_DESCRIPTION says whether there is one), i.e. the bytes a
 * TRANSACTION_PAYLOAD holds. Prints "transactions N in BYTES out BYTES". */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zstd.h>

static uint32_t le32(const uint8_t *p) { return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24; }

typedef struct grow {
    uint8_t *p;
    size_t len, cap;
} grow;

static void need(grow *g, size_t n)
{
    if (g->len + n <= g->cap)
        return;
    g->cap = (g->len + n) * 2;
    g->p = realloc(g->p, g->cap);
    if (!g->p) {
        fprintf(stderr, "zstd_txn_bench: out of memory\n");
        exit(2);
    }
}

static ZSTD_CCtx *cctx;
static grow txn, out, ev;
static uint64_t n_txn, bytes_in, bytes_out;

static void flush_txn(int level)
{
    if (!txn.len)
        return;
    ZSTD_CCtx_reset(cctx, ZSTD_reset_session_and_parameters);
    ZSTD_CCtx_setParameter(cctx, ZSTD_c_compressionLevel, level);
    ZSTD_CCtx_setParameter(cctx, ZSTD_c_contentSizeFlag, 0);
    ZSTD_CCtx_setParameter(cctx, ZSTD_c_checksumFlag, 0);
    size_t bound = ZSTD_compressBound(txn.len);
    out.len = 0;
    need(&out, bound);
    size_t r = ZSTD_compress2(cctx, out.p, bound, txn.p, txn.len);
    if (ZSTD_isError(r)) {
        fprintf(stderr, "zstd_txn_bench: %s\n", ZSTD_getErrorName(r));
        exit(2);
    }
    n_txn++;
    bytes_in += txn.len;
    bytes_out += r;
    txn.len = 0;
}

int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: zstd_txn_bench LEVEL FILE...\n");
        return 2;
    }
    int level = atoi(argv[1]);
    cctx = ZSTD_createCCtx();
    for (int i = 2; i < argc; i++) {
        FILE *f = fopen(argv[i], "rb");
        uint8_t magic[4];
        if (!f || fread(magic, 1, 4, f) != 4) {
            fprintf(stderr, "zstd_txn_bench: cannot read %s\n", argv[i]);
            return 2;
        }
        int crc = 0, in_txn = 0;
        uint8_t hdr[19];
        while (fread(hdr, 1, 19, f) == 19) {
            uint32_t size = le32(hdr + 9);
            ev.len = 0;
            need(&ev, size);
            memcpy(ev.p, hdr, 19);
            if (size < 19 || fread(ev.p + 19, 1, size - 19, f) != size - 19) {
                fprintf(stderr, "zstd_txn_bench: truncated %s\n", argv[i]);
                return 2;
            }
            uint8_t type = hdr[4];
            if (type == 15) /* FORMAT_DESCRIPTION: checksum alg before its 4 trailing bytes */
                crc = ev.p[size - 5] == 1;
            if (type == 33 || type == 34 || type == 4 || type == 3) {
                flush_txn(level);
                in_txn = type == 33 || type == 34;
                continue;
            }
            if (!in_txn)
                continue;
            /* inner form, as in a payload: no CRC32, size without it, log_pos 0 */
            size_t n = size - (crc ? 4 : 0);
            need(&txn, n);
            memcpy(txn.p + txn.len, ev.p, n);
            for (int k = 0; k < 4; k++) {
                txn.p[txn.len + 9 + k] = (uint8_t)(n >> (8 * k));
                txn.p[txn.len + 13 + k] = 0;
            }
            txn.len += n;
        }
        flush_txn(level);
        fclose(f);
    }
    printf("transactions %llu in %llu out %llu\n", (unsigned long long)n_txn, (unsigned long long)bytes_in,
           (unsigned long long)bytes_out);
    ZSTD_freeCCtx(cctx);
    free(txn.p);
    free(out.p);
    free(ev.p);
    return 0;
}
