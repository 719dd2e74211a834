/* results/batches.c: batch sizes near an impossible one, the per-batch
 * context, the batch warnings (batches.h). */
#include "results/batches.h"

#include <stdbool.h>
#include <stdlib.h>

#include "predictor/flops.h"

void res_ctx_with_gbs(const struct pred_ctx *c, int64_t gbs,
                      struct pred_ctx *out)
{
    *out = *c;
    out->job.gbs = gbs;
    out->model_flops = pred_model_flops(&out->model, &out->job);
    for (int r = 0; r < PLAN_RECOMPUTE_COUNT; r++)
        out->hw_flops[r] = pred_hw_flops(&out->model, &out->job,
                                         (enum plan_recompute)r);
}

/* ---- nearby batch sizes ---- */

#define MAX_CANDIDATES 8

/* Does x come before y: nearer to gbs, then smaller. */
static bool nearer(int64_t x, int64_t y, int64_t gbs)
{
    int64_t dx = llabs(x - gbs), dy = llabs(y - gbs);
    return dx != dy ? dx < dy : x < y;
}

/* Insertion sort by nearer(): a few values, and no global for qsort. */
static void sort_nearest(int64_t *v, int n, int64_t gbs)
{
    for (int i = 1; i < n; i++)
        for (int k = i; k > 0 && nearer(v[k], v[k - 1], gbs); k--) {
            int64_t t = v[k];
            v[k] = v[k - 1];
            v[k - 1] = t;
        }
}

static int add_unique(int64_t *v, int n, int64_t x, int64_t gbs)
{
    if (x < 1 || x > JOB_MAX_GBS || x == gbs)
        return n;
    for (int i = 0; i < n; i++)
        if (v[i] == x)
            return n;
    v[n] = x;
    return n + 1;
}

/* The nearest multiples of odd(gpus) x 2^j below and above gbs, for every
 * j from the first whose step is at least gbs / 16 (round sizes, not 513
 * for 512) up to the one past gbs; nearest first. Returns how many. */
static int candidates(int64_t gpus, int64_t gbs, int64_t *v, int n_max)
{
    int64_t odd = gpus, tmp[128], q;
    int n = 0;
    while (odd % 2 == 0)
        odd /= 2;
    for (q = odd; q * 16 < gbs; q *= 2)
        ;
    for (; q <= 2 * gbs && n + 2 <= 128; q *= 2) {
        n = add_unique(tmp, n, gbs / q * q, gbs);
        n = add_unique(tmp, n, (gbs / q + 1) * q, gbs);
    }
    sort_nearest(tmp, n, gbs);
    for (int i = 0; i < n && i < n_max; i++)
        v[i] = tmp[i];
    return n < n_max ? n : n_max;
}

/* Has 'gpus' a feasible plan at batch gbs? 1 yes, 0 no, or an error. */
static int feasible_at(const struct pred_ctx *c, const struct space *space,
                       int64_t gpus, int64_t gbs, struct tpl_err *err)
{
    static struct pred_ctx cb;          /* large: not on the stack */
    struct search_cfg cfg = { .ctx = &cb, .space = space, .gpus = &gpus,
                              .n_gpus = 1, .top_k = 1 };
    struct search_result res;
    int rc;
    res_ctx_with_gbs(c, gbs, &cb);
    if ((rc = search_run(&cfg, &res, err)))
        return rc;
    rc = res.per_gpu[0].n_hits > 0;
    search_result_release(&res);
    return rc;
}

int res_batches_nearby(const struct pred_ctx *c, const struct space *space,
                       int64_t gpus, int64_t *out, int n_max,
                       struct tpl_err *err)
{
    int64_t cand[MAX_CANDIDATES];
    int n = candidates(gpus, c->job.gbs, cand, MAX_CANDIDATES), found = 0;
    for (int i = 0; i < n && found < n_max; i++) {
        int rc = feasible_at(c, space, gpus, cand[i], err);
        if (rc < 0)
            return rc;
        if (rc)
            out[found++] = cand[i];
    }
    return found;
}

int res_search_nearby(const struct pred_ctx *c, const struct space *space,
                      const struct search_result *s, size_t max_counts,
                      struct res_nearby *out, size_t *skipped,
                      struct tpl_err *err)
{
    size_t none = 0;
    *skipped = 0;
    for (size_t i = 0; i < s->n; i++) {
        out[i].n = 0;
        none += s->per_gpu[i].n_hits == 0;
    }
    if (none > max_counts) {
        *skipped = none;
        return 0;
    }
    for (size_t i = 0; i < s->n; i++) {
        int n = s->per_gpu[i].n_hits ? 0 : res_batches_nearby(c, space,
                    s->per_gpu[i].gpus, out[i].v, 3, err);
        if (n < 0)
            return n;
        out[i].n = n;
    }
    return 0;
}

/* ---- search over a list of batches ---- */

static double best_rate(const struct search_gpu *g)
{
    return g->n_hits ? g->results[0].tokens_per_s : 0;
}

void res_search_pick(struct search_result *best, int64_t *gbs_of,
                     const struct search_result *other, int64_t gbs)
{
    struct search_stats *a = &best->stats;
    const struct search_stats *b = &other->stats;
    for (size_t i = 0; i < best->n && i < other->n; i++)
        if (best_rate(&other->per_gpu[i]) > best_rate(&best->per_gpu[i])) {
            best->per_gpu[i] = other->per_gpu[i];
            gbs_of[i] = gbs;
        }
    a->space_size += b->space_size;
    a->enumerated += b->enumerated;
    a->evaluated += b->evaluated;
    a->feasible += b->feasible;
    a->memory += b->memory;
    a->bound += b->bound;
    for (int r = 0; r < PLAN_RULE_COUNT; r++)
        a->rule[r] += b->rule[r];
    a->sampled = a->sampled || b->sampled;
    a->partial = a->partial || b->partial;
    a->seconds += b->seconds;
}

/* ---- warnings ----
 * The 1F1B pipeline bubble is (pp - 1) / (m + pp - 1) of the iteration
 * (Narayanan et al. SC21, sec. 2.2.1: bubble time fraction (p - 1) / m over
 * the ideal): with fewer micro-batches than stages it is over half. */
unsigned res_batch_warnings(const struct plan *p, const struct pred_result *r)
{
    unsigned w = 0;
    if (r->microbatches < p->pp)
        w |= RES_WARN_FEW_MICROBATCHES;
    if (r->microbatches == 1)
        w |= RES_WARN_DP_AT_BATCH;
    return w;
}
