#include "xalloc.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void *oom(void)
{
    fprintf(stderr, "cdcharness: out of memory\n");
    abort();
}

void *cdch_xcalloc(size_t n, size_t size)
{
    void *p = calloc(n ? n : 1, size ? size : 1);
    return p ? p : oom();
}

void *cdch_xrealloc(void *p, size_t size)
{
    void *q = realloc(p, size ? size : 1);
    return q ? q : oom();
}

char *cdch_xstrdup(const char *s)
{
    char *d = strdup(s ? s : "");
    return d ? d : oom();
}
