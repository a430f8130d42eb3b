/* testutil.h — helpers shared by the Check unit tests. */
#ifndef CDCH_TESTUTIL_H
#define CDCH_TESTUTIL_H

#include <check.h>
#include <stddef.h>
#include <stdint.h>

/* Read a whole file (abort the test on failure); caller frees. */
/* The whole file, malloc()ed, with a NUL after its *len bytes (a text file is a string). */
uint8_t *tu_read_file(const char *path, size_t *len);
/* Path of a fixture under CDCH_FIXTURES_DIR (static buffer). */
const char *tu_fixture(const char *name);
/* Parse "de ad be ef" / "deadbeef" hex into a malloc'd buffer. */
uint8_t *tu_unhex(const char *hex, size_t *len);
/* Assert that got[0..glen) equals want[0..wlen), printing both in hex. */
#define tu_assert_bytes(got, glen, want, wlen) tu_assert_bytes_at(__FILE__, __LINE__, got, glen, want, wlen)
void tu_assert_bytes_at(const char *file, int line, const uint8_t *got, size_t glen, const uint8_t *want, size_t wlen);
/* Same, want given as a hex string. */
#define tu_assert_hex(got, glen, hex) tu_assert_hex_at(__FILE__, __LINE__, got, glen, hex)
void tu_assert_hex_at(const char *file, int line, const uint8_t *got, size_t glen, const char *hex);
/* Run a suite; returns process exit status. */
int tu_run(Suite *s);

/* A scenario and its uncompressed stream, generated under a fresh temporary
 * directory (for tests that start an in-process fake primary on it). */
struct cdch_scenario;
typedef struct tu_stream {
    struct cdch_scenario *s;
    char dir[64];   /* the temporary directory (removed by tu_stream_free) */
    char sdir[96];  /* the stream in it */
} tu_stream;
void tu_stream_make(tu_stream *t, const char *scenario_path); /* aborts the test on failure */
void tu_stream_free(tu_stream *t);

#endif
