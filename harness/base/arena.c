#include "arena.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct cdch_arena_block {
    cdch_arena_block *next;
    size_t used, cap;
    _Alignas(16) unsigned char data[];
};

#define ARENA_MIN_BLOCK (64 * 1024)

static cdch_arena_block *new_block(size_t cap)
{
    cdch_arena_block *b = malloc(sizeof *b + cap);
    if (!b) {
        fprintf(stderr, "cdcharness: out of memory allocating %zu bytes\n", cap);
        abort();
    }
    b->next = NULL;
    b->used = 0;
    b->cap = cap;
    return b;
}

void *cdch_arena_alloc(cdch_arena *a, size_t n)
{
    size_t need = (n + 15) & ~(size_t)15;
    if (need < n)
        abort();
    cdch_arena_block *b = a->head;
    if (!b || b->cap - b->used < need) {
        size_t cap = need > ARENA_MIN_BLOCK ? need : ARENA_MIN_BLOCK;
        cdch_arena_block *nb = new_block(cap);
        if (b && need > ARENA_MIN_BLOCK / 4) {
            /* big allocation: put it behind the current block so the
             * current block's free space stays usable */
            nb->next = b->next;
            b->next = nb;
            nb->used = need;
            memset(nb->data, 0, need);
            return nb->data;
        }
        nb->next = b;
        a->head = nb;
        b = nb;
    }
    void *r = b->data + b->used;
    b->used += need;
    memset(r, 0, need);
    return r;
}

void *cdch_arena_memdup(cdch_arena *a, const void *p, size_t n)
{
    char *r = cdch_arena_alloc(a, n + 1);
    if (n)
        memcpy(r, p, n);
    r[n] = '\0';
    return r;
}

char *cdch_arena_strdup(cdch_arena *a, const char *s) { return cdch_arena_memdup(a, s, strlen(s)); }

void cdch_arena_reset(cdch_arena *a)
{
    if (!a->head)
        return;
    /* keep the most recent block (usually the standard size) */
    cdch_arena_block *keep = a->head, *b = keep->next;
    while (b) {
        cdch_arena_block *n = b->next;
        free(b);
        b = n;
    }
    keep->next = NULL;
    keep->used = 0;
}

void cdch_arena_free(cdch_arena *a)
{
    if (!a)
        return;
    cdch_arena_block *b = a->head;
    while (b) {
        cdch_arena_block *n = b->next;
        free(b);
        b = n;
    }
    a->head = NULL;
}
