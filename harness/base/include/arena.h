/* arena.h — region allocator for decoded events.
 *
 * Owns: every block it hands out. Everything a decoder builds for one event
 * (row values, JSON trees, strings) lives in one arena and is released with
 * a single cdch_arena_free (or reused after cdch_arena_reset). Allocation
 * failure aborts with a message.
 */
#ifndef CDCH_ARENA_H
#define CDCH_ARENA_H

#include <stddef.h>

typedef struct cdch_arena_block cdch_arena_block;

typedef struct cdch_arena {
    cdch_arena_block *head;
} cdch_arena;

#define CDCH_ARENA_INIT {NULL}

void *cdch_arena_alloc(cdch_arena *a, size_t n);  /* zeroed, 16-byte aligned */
void *cdch_arena_memdup(cdch_arena *a, const void *p, size_t n); /* n bytes + NUL */
char *cdch_arena_strdup(cdch_arena *a, const char *s);
void cdch_arena_reset(cdch_arena *a); /* keeps the first block, frees the rest */
void cdch_arena_free(cdch_arena *a);  /* accepts an empty arena */

#endif
