/* xalloc.h — heap allocation that never returns NULL: on failure it prints
 * "cdcharness: out of memory" and aborts (the harness cannot do anything
 * useful without memory; buf.h and arena.h follow the same policy).
 *
 * Owns: nothing; callers own what they get and free it with free().
 */
#ifndef CDCH_XALLOC_H
#define CDCH_XALLOC_H

#include <stddef.h>

void *cdch_xcalloc(size_t n, size_t size);   /* zeroed; n == 0 gives a valid 1-byte block */
void *cdch_xrealloc(void *p, size_t size);   /* size == 0 keeps a valid 1-byte block */
char *cdch_xstrdup(const char *s);           /* NULL is copied as "" */

#endif
