/* results/nofeasible.h: the GPU counts of a search that have no feasible
 * plan, folded into runs of consecutive counts (in the searched list's
 * order) that fail for the same reason, and that reason in words: the
 * search table and its --summary print one block or line per run instead
 * of one per count, so a sweep of thousands of counts stays readable. */
#ifndef RES_NOFEASIBLE_H
#define RES_NOFEASIBLE_H

#include <stddef.h>

#include "results/res.h"

/* Why a count has no plan, as a class that neighbours can share: every
 * valid plan misses memory, no layout at all, or rules reject every plan
 * (the run names the rule that rejected the most over its counts). */
enum { RES_NONE_MEMORY, RES_NONE_LAYOUT, RES_NONE_RULES };
int res_none_class(const struct search_gpu *g);

/* One past the last count of the run that starts at 'first': the counts
 * from 'first' on with no plan and count first's class. 'first' itself
 * when that count has a plan. */
size_t res_none_run_end(const struct search_result *s, size_t first);

/* The reason of the run g[0 .. k) (k >= 1, one class) into buf: for one
 * count "nothing fits in memory; nearest: KEY needs ...", "no valid plan;
 * most rejected by rule R (N of M)" or "no layout: ..."; for a run the
 * same with the counts summed (the rule that rejected most of the sum),
 * and the nearest miss of the whole run
 * (the smallest shortfall) with its GPU count. */
void res_none_why(const struct search_gpu *g, size_t k, char *buf, size_t n);

/* "8 GPUs", or "8..56 GPUs (7 counts)" for the run g[0 .. k). */
void res_none_span(const struct search_gpu *g, size_t k, char *buf, size_t n);

/* The counters of g[0 .. k) (enumerated, valid, feasible, rule, memory)
 * summed into out, the rest of out zeroed. */
void res_none_sum(const struct search_gpu *g, size_t k, struct search_gpu *out);

#endif /* RES_NOFEASIBLE_H */
