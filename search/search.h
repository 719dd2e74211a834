/* search/search.h: the fastest feasible plans per GPU count. Streams the
 * whole space (nothing holds every plan), prunes by rules, memory and a time
 * lower bound, predicts the rest with memoised layer times, and keeps a
 * top-K per GPU count per thread, merged deterministically (time, then plan
 * key): the answer is the same for any number of threads. */
#ifndef SEARCH_H
#define SEARCH_H

#include <signal.h>
#include <stdbool.h>
#include <stdint.h>

#include "predictor/pred.h"
#include "spaces/scenario.h"

#define SEARCH_MAX_TOP 1000

struct search_cfg {
    const struct pred_ctx *ctx;         /* model, system, job */
    const struct space *space;          /* allowed values; n == 0: auto */
    const int64_t *gpus;                /* sorted, unique */
    size_t n_gpus;
    int top_k;                          /* 1 .. SEARCH_MAX_TOP */
    bool exhaustive;                    /* no bound pruning (tests) */
    uint64_t budget;                    /* 0: enumerate all; else sample this many */
    uint64_t seed;
    /* Called by one thread, at most 10 times a second once a second has
     * passed, with the fraction done; NULL for none. */
    void (*progress)(void *arg, double fraction);
    void *progress_arg;
    /* When non-NULL and set (by a signal handler), the search stops early:
     * blocks not yet started are skipped and the result says it is partial. */
    const volatile sig_atomic_t *stop;
};

struct search_hit {                     /* one ranked plan */
    struct plan plan;
    double iteration_s;
    uint64_t idx;                       /* position in the space */
};

struct search_gpu {                     /* per GPU count */
    int64_t gpus;
    int n_hits;                         /* <= top_k */
    struct search_hit *hits;            /* fastest first */
    uint64_t enumerated, valid, feasible, evaluated;
    uint64_t rule[PLAN_RULE_COUNT];     /* rejected by each rule */
    uint64_t memory, bound;             /* rejected by memory, by the bound */
    double nearest_short_bytes;         /* smallest memory shortfall (valid plans) */
    struct plan nearest;                /* the plan that came nearest */
    uint64_t nearest_idx;
    /* Finished predictions (pred_plan) of hits[0 .. n_hits), and of the
     * nearest miss when there was one (else NULL): writers only format. */
    const struct pred_result *results;
    const struct pred_result *nearest_result;
    /* How often hit 0 stays the fastest when every hit's time is drawn
     * inside its error band (search_top_first): 1 when no hit is tied. */
    double top_first;
};

struct search_stats {
    uint64_t space_size;                /* every combination of the dimensions */
    uint64_t enumerated;                /* plans with a whole dp, visited */
    uint64_t evaluated, feasible;
    uint64_t rule[PLAN_RULE_COUNT], memory, bound;
    bool sampled;
    bool partial;                       /* stopped early: the best found so far */
    double seconds;
};

struct search_result {                  /* caller-owned: search_result_release */
    size_t n;
    struct search_gpu *per_gpu;
    struct search_stats stats;
    int top_k;
    struct pred_ctx ctx;                /* the model, system and job searched */
    struct pred_result *store;          /* what results point into */
};

/* Run the search. TPL_ECONFIG when a listed value is impossible (e.g. a tp
 * list that is empty after "auto"), else 0; per-plan failures are counted,
 * not returned. */
int search_run(const struct search_cfg *cfg, struct search_result *out,
               struct tpl_err *err);
void search_result_release(struct search_result *r);

/* Whether hit k of a finished GPU count is tied with its best (hit 0)
 * within the predictor's error: its band (iteration_s_low ..
 * iteration_s_high) overlaps the best plan's. The best itself: false. */
bool search_tied_with_best(const struct search_gpu *g, int k);

/* Draws behind search_gpu.top_first, and the PCG seed (one stream per GPU
 * count, so the figure does not depend on the thread count). */
#define SEARCH_STABILITY_DRAWS 1000
#define SEARCH_STABILITY_SEED  UINT64_C(0x7472616e706c616e)   /* "tranplan" */

/* The share of SEARCH_STABILITY_DRAWS draws in which hit 0 is the fastest
 * when each hit k's time is drawn uniformly in [iteration_s_low,
 * iteration_s_high] (its band: the 10th..90th percentile range of the
 * stack's cross-validated error), independently of the others. Independent
 * draws ignore that plans on one stack and system share part of their
 * error, so the figure is a floor on how decisive the ranking is. 1 when no
 * hit is tied with the best (then hit 0 can never lose a draw). */
double search_top_first(const struct search_gpu *g);

#endif /* SEARCH_H */
