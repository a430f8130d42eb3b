/* crc32.c — zlib-compatible CRC-32 (reflected polynomial 0xEDB88320), the
 * binlog event checksum MySQL computes with zlib's crc32().
 *
 * Two implementations with identical results: carry-less multiplication
 * (PCLMULQDQ, x86-64 CPUs that have it; chosen at run time) folding 64
 * bytes per step, the method of Intel's "Fast CRC Computation for Generic
 * Polynomials Using PCLMULQDQ Instruction" (2009), with the bit-reflected
 * constants for this polynomial; and slicing-by-8 tables everywhere else
 * and for the head and tail bytes. tests/test_event.c compares the two on
 * every length up to 1 KiB and every alignment. */
#include <pthread.h>
#include <stddef.h>
#include <stdint.h>

#include "cursor.h"
#include "event.h"

static uint32_t crc_table[8][256];
static pthread_once_t crc_once = PTHREAD_ONCE_INIT;

static void crc_init(void)
{
    for (uint32_t i = 0; i < 256; i++) {
        uint32_t c = i;
        for (int k = 0; k < 8; k++)
            c = (c & 1) ? 0xEDB88320u ^ (c >> 1) : c >> 1;
        crc_table[0][i] = c;
    }
    for (uint32_t i = 0; i < 256; i++) {
        uint32_t c = crc_table[0][i];
        for (int t = 1; t < 8; t++) {
            c = crc_table[0][c & 0xFF] ^ (c >> 8);
            crc_table[t][i] = c;
        }
    }
}

/* The table method on an inverted crc (the caller inverts before and after). */
static uint32_t crc_slice8(uint32_t crc, const uint8_t *p, size_t len)
{
    while (len >= 8) {
        uint32_t lo = crc ^ cdch_le32(p);
        uint32_t hi = cdch_le32(p + 4);
        crc = crc_table[7][lo & 0xFF] ^ crc_table[6][(lo >> 8) & 0xFF] ^ crc_table[5][(lo >> 16) & 0xFF] ^
              crc_table[4][lo >> 24] ^ crc_table[3][hi & 0xFF] ^ crc_table[2][(hi >> 8) & 0xFF] ^
              crc_table[1][(hi >> 16) & 0xFF] ^ crc_table[0][hi >> 24];
        p += 8;
        len -= 8;
    }
    while (len--)
        crc = crc_table[0][(crc ^ *p++) & 0xFF] ^ (crc >> 8);
    return crc;
}

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>

#define CLMUL_TARGET __attribute__((target("pclmul,sse4.1")))

/* x^(k) mod P constants, bit-reflected and shifted left one (the paper's
 * k1..k5 and the Barrett pair mu, P'): k1 = x^(4*128+32), k2 = x^(4*128-32)
 * (fold by 64 bytes), k3 = x^(128+32), k4 = x^(128-32) (fold by 16), k5 =
 * x^64 (128 -> 64 bits). */
static const uint64_t k_fold64[2] = {0x0154442bd4ull, 0x01c6e41596ull};
static const uint64_t k_fold16[2] = {0x01751997d0ull, 0x00ccaa009eull};
static const uint64_t k_fold8[2] = {0x0163cd6124ull, 0};
static const uint64_t k_barrett[2] = {0x01db710641ull, 0x01f7011641ull};

/* a * k (low or high halves as sel says) xor b */
CLMUL_TARGET static inline __m128i fold(__m128i a, __m128i k, __m128i b)
{
    __m128i lo = _mm_clmulepi64_si128(a, k, 0x00);
    __m128i hi = _mm_clmulepi64_si128(a, k, 0x11);
    return _mm_xor_si128(_mm_xor_si128(lo, hi), b);
}

/* len >= 16, a multiple of 16; crc inverted in and out. Four lanes of 16
 * bytes while 64 remain (len >= 64), then one lane 16 bytes at a time (the
 * only lane for the 16-63-byte events: GTID, XID, TABLE_MAP, a short row). */
CLMUL_TARGET static uint32_t crc_clmul(uint32_t crc, const uint8_t *p, size_t len)
{
    __m128i x1 = _mm_xor_si128(_mm_loadu_si128((const __m128i *)p), _mm_cvtsi32_si128((int)crc));
    __m128i k;
    if (len >= 64) {
        __m128i x2 = _mm_loadu_si128((const __m128i *)(p + 16));
        __m128i x3 = _mm_loadu_si128((const __m128i *)(p + 32));
        __m128i x4 = _mm_loadu_si128((const __m128i *)(p + 48));
        k = _mm_loadu_si128((const __m128i *)k_fold64);
        for (p += 64, len -= 64; len >= 64; p += 64, len -= 64) {
            x1 = fold(x1, k, _mm_loadu_si128((const __m128i *)(p + 0)));
            x2 = fold(x2, k, _mm_loadu_si128((const __m128i *)(p + 16)));
            x3 = fold(x3, k, _mm_loadu_si128((const __m128i *)(p + 32)));
            x4 = fold(x4, k, _mm_loadu_si128((const __m128i *)(p + 48)));
        }
        /* four lanes into one */
        k = _mm_loadu_si128((const __m128i *)k_fold16);
        x1 = fold(x1, k, x2);
        x1 = fold(x1, k, x3);
        x1 = fold(x1, k, x4);
    } else {
        k = _mm_loadu_si128((const __m128i *)k_fold16);
        p += 16;
        len -= 16;
    }
    for (; len >= 16; p += 16, len -= 16)
        x1 = fold(x1, k, _mm_loadu_si128((const __m128i *)p));
    /* 128 -> 64 bits */
    __m128i mask32 = _mm_setr_epi32(~0, 0, ~0, 0);
    __m128i x2b = _mm_clmulepi64_si128(x1, k, 0x10);
    x1 = _mm_xor_si128(_mm_srli_si128(x1, 8), x2b);
    k = _mm_loadl_epi64((const __m128i *)k_fold8);
    x2b = _mm_srli_si128(x1, 4);
    x1 = _mm_clmulepi64_si128(_mm_and_si128(x1, mask32), k, 0x00);
    x1 = _mm_xor_si128(x1, x2b);
    /* Barrett reduction to 32 bits */
    k = _mm_loadu_si128((const __m128i *)k_barrett);
    x2b = _mm_and_si128(x1, mask32);
    x2b = _mm_clmulepi64_si128(x2b, k, 0x10);
    x2b = _mm_and_si128(x2b, mask32);
    x2b = _mm_clmulepi64_si128(x2b, k, 0x00);
    x1 = _mm_xor_si128(x1, x2b);
    return (uint32_t)_mm_extract_epi32(x1, 1);
}

static int g_clmul; /* 1: the CPU has PCLMULQDQ and SSE4.1 (set once, under crc_once) */

static void crc_setup(void)
{
    crc_init();
    __builtin_cpu_init();
    g_clmul = __builtin_cpu_supports("pclmul") && __builtin_cpu_supports("sse4.1");
}
#else
static const int g_clmul = 0;
static void crc_setup(void) { crc_init(); }
#endif

uint32_t cdch_crc32_tables(uint32_t crc, const void *data, size_t len)
{
    pthread_once(&crc_once, crc_setup);
    return ~crc_slice8(~crc, data, len);
}

uint32_t cdch_crc32(uint32_t crc, const void *data, size_t len)
{
    pthread_once(&crc_once, crc_setup);
    const uint8_t *p = data;
    crc = ~crc;
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
    if (g_clmul && len >= 16) {
        size_t n = len & ~(size_t)15;
        crc = crc_clmul(crc, p, n);
        p += n;
        len -= n;
    }
#endif
    return ~crc_slice8(crc, p, len);
}
