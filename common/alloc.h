/* common/alloc.h: allocation that never returns NULL. Out of memory is not a
 * condition the planner can recover from, so these print and abort (Redis
 * zmalloc, htop xMalloc). Nothing in the search's hot loop calls them. */
#ifndef TPL_ALLOC_H
#define TPL_ALLOC_H

#include <stddef.h>

void *xmalloc(size_t n);
void *xcalloc(size_t count, size_t size);
void *xrealloc(void *p, size_t n);
char *xstrdup(const char *s);           /* xstrdup(NULL) returns NULL */

#endif /* TPL_ALLOC_H */
