/* run_internal.h — small helpers shared by the run module's sources (not
 * part of its public interface).
 *
 * Owns: nothing.
 */
#ifndef CDCH_RUN_INTERNAL_H
#define CDCH_RUN_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

/* 64-bit FNV-1a: start from RUN_FNV1A_INIT (or another basis), feed bytes.
 * The diff's row hashes and setup's adapter fingerprints (those are stored
 * in the cache's .ok stamps: changing them reinstalls every adapter). */
#define RUN_FNV1A_INIT 0xcbf29ce484222325ull

static inline uint64_t run_fnv1a(uint64_t h, const void *p, size_t n)
{
    const unsigned char *s = (const unsigned char *)p;
    for (size_t i = 0; i < n; i++) {
        h ^= s[i];
        h *= 0x100000001b3ull;
    }
    return h;
}

#endif
