/* common/alloc.c: checked allocation. */
#include "common/alloc.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static _Noreturn void oom(size_t n)
{
    fprintf(stderr, "trainplan: out of memory allocating %zu bytes\n", n);
    abort();
}

void *xmalloc(size_t n)
{
    void *p = malloc(n ? n : 1);
    if (!p)
        oom(n);
    return p;
}

void *xcalloc(size_t count, size_t size)
{
    void *p = calloc(count ? count : 1, size ? size : 1);
    if (!p)
        oom(count * size);
    return p;
}

void *xrealloc(void *p, size_t n)
{
    void *q = realloc(p, n ? n : 1);
    if (!q)
        oom(n);
    return q;
}

char *xstrdup(const char *s)
{
    size_t n;
    char *d;
    if (!s)
        return NULL;
    n = strlen(s) + 1;
    d = xmalloc(n);
    memcpy(d, s, n);
    return d;
}
