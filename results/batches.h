/* results/batches.h: the global batch as a choice. A capacity plan may let
 * the batch grow with the GPU count (--gbs 512..4096 on tradeoff and
 * compare: the best plan per count over the allowed batches); where no plan
 * is valid at a count, the batch sizes near the asked one that have one;
 * and the warnings a batch gives a plan (too few micro-batches for its
 * pipeline, data parallelism at the batch's limit). */
#ifndef RES_BATCHES_H
#define RES_BATCHES_H

#include <stdint.h>

#include "results/res.h"

/* c with the job's global batch set to gbs, and the FLOPs per iteration
 * that depend on it (predictor/flops.h) recomputed, into out. */
void res_ctx_with_gbs(const struct pred_ctx *c, int64_t gbs,
                      struct pred_ctx *out);

/* Batch sizes near c's that have a feasible plan on 'gpus' GPUs in the
 * space: candidates are the nearest multiples, below and above, of the
 * count's odd part times each power of two (data parallelism must divide
 * the batch: spaces/plan.c's gbs-dp rule), each searched at that count;
 * up to n_max of those with a plan, nearest first, into out. Returns how
 * many (0 for none), or a negative TPL_E* from the search. */
int res_batches_nearby(const struct pred_ctx *c, const struct space *space,
                       int64_t gpus, int64_t *out, int n_max,
                       struct tpl_err *err);

/* The batch sizes found for one GPU count without a plan. */
struct res_nearby {
    int64_t v[3];
    int n;
};
/* For every count of a search without a plan, its res_batches_nearby into
 * out[0 .. s->n) (caller-sized), when at most 'max_counts' have none; else
 * nothing is searched and *skipped says how many have none. 0 or an error
 * of the searches. */
int res_search_nearby(const struct pred_ctx *c, const struct space *space,
                      const struct search_result *s, size_t max_counts,
                      struct res_nearby *out, size_t *skipped,
                      struct tpl_err *err);

/* Fold another batch's search over the same GPU counts into 'best': per
 * count, the batch whose best plan trains the most tokens/s (the earlier
 * batch on a tie); gbs_of[i] is the batch of count i. best->per_gpu must
 * be best's own array; its entries then point into 'other', which must
 * outlive it. Stats add up; partial if either is. */
void res_search_pick(struct search_result *best, int64_t *gbs_of,
                     const struct search_result *other, int64_t gbs);

/* Warning bits for a plan at its batch. */
enum res_batch_warn {
    RES_WARN_FEW_MICROBATCHES = 1,      /* micro-batches < pipeline stages */
    RES_WARN_DP_AT_BATCH = 2,           /* dp x mbs = gbs: one micro-batch per
                                           rank, no more dp at this batch */
};
unsigned res_batch_warnings(const struct plan *p, const struct pred_result *r);

#endif /* RES_BATCHES_H */
