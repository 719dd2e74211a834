/* results/tradeoff.h: what scaling up buys. For each GPU count, the best
 * plan of a search and what training a number of tokens with it takes:
 * days, GPU-hours, cost, energy and average power per GPU, scaling
 * efficiency against the smallest count; the Pareto frontier of time to
 * train against GPU-hours, and its knee. */
#ifndef RES_TRADEOFF_H
#define RES_TRADEOFF_H

#include <stdbool.h>
#include <stdio.h>

#include "results/res.h"

struct tradeoff_row {
    int64_t gpus;
    bool feasible;              /* false: no plan fits at this count */
    struct plan plan;
    struct pred_result r;
    double days, gpu_hours, cost_usd, energy_kwh, power_w;
    double scaling;             /* tokens/s per GPU over the first feasible count's */
    bool frontier;              /* on the time-vs-GPU-hours Pareto frontier */
};

struct tradeoff {               /* caller-owned: res_tradeoff_release */
    struct tradeoff_row *rows;
    size_t n;
    double tokens, usd_per_gpu_hour, knee_fraction;
    long knee;                  /* index of the knee row, -1 if none */
    bool partial;               /* the search was interrupted */
};

/* GPU power over an iteration (GPU board only; hosts, network and cooling
 * are not included): TDP x (floor + (busy - floor) x compute share), the
 * share being the fraction of the iteration spent in compute and
 * recompute. Constants and sources in tradeoff.c. */
double res_gpu_power_w(const struct hw_system *hw, const struct pred_result *r);

/* Build from a search's top-1 per GPU count. 'knee_fraction' in (0, 1]:
 * the knee is the first frontier count past which doubling the GPUs saves
 * less than that fraction of what perfect scaling would save. */
void res_tradeoff_build(const struct pred_ctx *c, const struct search_result *s,
                        double tokens, double usd_per_gpu_hour,
                        double knee_fraction, struct tradeoff *out);
void res_tradeoff_release(struct tradeoff *t);
/* Mark the frontier and find the knee of rows whose days and GPU-hours are
 * set (res_tradeoff_build does it; exposed for tests). */
void res_tradeoff_mark(struct tradeoff *t);

#endif /* RES_TRADEOFF_H */
