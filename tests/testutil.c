#include "testutil.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "scenario.h"
#include "stream.h"

uint8_t *tu_read_file(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    ck_assert_msg(f != NULL, "cannot open %s", path);
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    uint8_t *d = malloc((size_t)n + 1);
    ck_assert(d != NULL);
    ck_assert_uint_eq(fread(d, 1, (size_t)n, f), (size_t)n);
    fclose(f);
    d[n] = 0; /* callers may treat a text file as a string */
    *len = (size_t)n;
    return d;
}

const char *tu_fixture(const char *name)
{
    static char path[4096];
    const char *dir = getenv("CDCH_FIXTURES");
    snprintf(path, sizeof path, "%s/%s", dir ? dir : CDCH_FIXTURES_DIR, name);
    return path;
}

static int hexval(char c)
{
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

uint8_t *tu_unhex(const char *hex, size_t *len)
{
    size_t n = strlen(hex);
    uint8_t *d = malloc(n / 2 + 1);
    size_t o = 0;
    int hi = -1;
    for (size_t i = 0; i < n; i++) {
        int v = hexval(hex[i]);
        if (v < 0)
            continue;
        if (hi < 0) {
            hi = v;
        } else {
            d[o++] = (uint8_t)(hi << 4 | v);
            hi = -1;
        }
    }
    ck_assert_msg(hi < 0, "odd number of hex digits in %s", hex);
    *len = o;
    return d;
}

static void hexdump(char *dst, size_t cap, const uint8_t *p, size_t n)
{
    size_t o = 0;
    for (size_t i = 0; i < n && o + 4 < cap; i++)
        o += (size_t)snprintf(dst + o, cap - o, "%02x", p[i]);
    if (o + 4 >= cap && cap > 4)
        strcpy(dst + cap - 4, "...");
}

void tu_assert_bytes_at(const char *file, int line, const uint8_t *got, size_t glen, const uint8_t *want, size_t wlen)
{
    if (glen == wlen && (glen == 0 || memcmp(got, want, glen) == 0))
        return;
    size_t first = 0;
    while (first < glen && first < wlen && got[first] == want[first])
        first++;
    static char g[2048], w[2048];
    hexdump(g, sizeof g, got, glen);
    hexdump(w, sizeof w, want, wlen);
    ck_abort_msg("%s:%d: bytes differ at offset %zu (got %zu bytes, want %zu)\n got:  %s\n want: %s", file, line,
                 first, glen, wlen, g, w);
}

void tu_assert_hex_at(const char *file, int line, const uint8_t *got, size_t glen, const char *hex)
{
    size_t wlen;
    uint8_t *want = tu_unhex(hex, &wlen);
    tu_assert_bytes_at(file, line, got, glen, want, wlen);
    free(want);
}

int tu_run(Suite *s)
{
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed == 0 ? 0 : 1;
}

void tu_stream_make(tu_stream *t, const char *scenario_path)
{
    cdch_err err;
    memset(t, 0, sizeof *t);
    t->s = cdch_scenario_load(scenario_path, &err);
    ck_assert_msg(t->s != NULL, "%s", err.msg);
    snprintf(t->dir, sizeof t->dir, "/tmp/cdch-test-XXXXXX");
    ck_assert_ptr_nonnull(mkdtemp(t->dir));
    snprintf(t->sdir, sizeof t->sdir, "%s/stream", t->dir);
    ck_assert_msg(cdch_stream_generate(t->s, CDCH_STREAM_UNCOMPRESSED, t->sdir, NULL, &err) == 0, "%s", err.msg);
}

void tu_stream_free(tu_stream *t)
{
    cdch_stream_rm_tree(t->dir);
    cdch_scenario_free(t->s);
    t->s = NULL;
}
