/* results/tradeoff.h: what scaling up buys. For each GPU count, the best
 * plan of a search and what training a number of tokens with it takes:
 * days, GPU-hours, cost, energy and average power per GPU, scaling
 * efficiency against the smallest count; the Pareto frontier of time to
 * train against GPU-hours, and its knee. */
#ifndef RES_TRADEOFF_H
#define RES_TRADEOFF_H

#include <stdbool.h>
#include <stdio.h>

#include "results/goodput.h"
#include "results/res.h"

struct tradeoff_row {
    int64_t gpus;
    bool feasible;              /* false: no plan fits, or it never finishes */
    bool stalled;               /* a plan fits but interruptions come faster
                                   than it restarts: goodput ~0 */
    int64_t gbs;                /* the global batch of its plan (sequences) */
    unsigned warn;              /* res_batch_warn bits (batches.h) */
    int64_t nearby[3];          /* no plan: batch sizes that have one */
    int n_nearby;               /*   (res_tradeoff_suggest) */
    struct plan plan;
    struct pred_result r;
    struct goodput g;           /* interruptions, checkpoints (goodput.h) */
    double days_ideal, gpu_hours_ideal;         /* every hour trains */
    /* with interruptions (days_ideal / goodput), and what they cost */
    double days, gpu_hours, cost_usd, energy_kwh, power_w;
    double node_energy_kwh;     /* whole nodes (hosts, NICs, fans); 0: the
                                   system gives no node power */
    double node_power_w;        /* the same per GPU slot, over an iteration */
    double scaling;             /* trained tokens/s per GPU (with goodput) over
                                   the reference count's */
    bool frontier;              /* on the time-vs-GPU-hours Pareto frontier */
};

struct tradeoff {               /* caller-owned: res_tradeoff_release */
    struct tradeoff_row *rows;
    size_t n;
    int64_t gbs_min, gbs_max;   /* the batches chosen over (equal: one) */
    double tokens, usd_per_gpu_hour, knee_fraction;
    long knee;                  /* index of the knee row, -1 if none */
    long reference;             /* row scaling is against, -1 if none */
    size_t unsuggested;         /* counts without a plan left without batch
                                   suggestions (more than RES_SUGGEST_MAX) */
    bool partial;               /* the search was interrupted */
    double published_gpu_hours; /* a published figure to set each count's
                                   GPU-hours against; 0: none */
};

/* GPU power over an iteration (GPU board only; hosts, network and cooling
 * are not included): TDP x (idle + (busy - idle) x compute share), the
 * share being the fraction of the iteration spent in compute and
 * recompute; idle and busy are the system's power.gpu_idle_frac and
 * gpu_busy_frac (sources in hardware/hw.c). */
double res_gpu_power_w(const struct hw_system *hw, const struct pred_result *r);
/* A node's draw per GPU over an iteration (its GPUs and the rest of the
 * node, hosts, NICs, switches and fans; cooling not included); 0 when the
 * system file gives no power.node_kw. */
double res_node_power_w_per_gpu(const struct hw_system *hw,
                                const struct pred_result *r);

/* Build from a search's top-1 per GPU count. Days, GPU-hours, cost and
 * energy include the expected interruptions (goodput.h); the frontier and
 * the knee are of those. 'knee_fraction' in (0, 1]: the knee is the first
 * frontier count past which doubling the GPUs saves less than that fraction
 * of what perfect scaling would save. Scaling is against the smallest
 * feasible count (res_tradeoff_reference changes it). */
void res_tradeoff_build(const struct pred_ctx *c, const struct search_result *s,
                        double tokens, double usd_per_gpu_hour,
                        double knee_fraction, struct tradeoff *out);
void res_tradeoff_release(struct tradeoff *t);
/* Row i's GPU-hours against t->published_gpu_hours, as a fraction
 * (-0.3: 30 % below); NaN without a published figure or a plan. */
double res_tradeoff_vs_published(const struct tradeoff *t, size_t i);
/* Fold in another batch's tradeoff over the same GPU counts: per count the
 * plan that trains the tokens in fewer days (the smaller batch on a tie,
 * when 'other' is the larger); then the frontier, knee and reference
 * (the smallest feasible count) again. */
void res_tradeoff_pick(struct tradeoff *t, const struct tradeoff *other);
/* For each count without a plan, up to 3 nearby batch sizes that have one
 * (res_batches_nearby at the row's batch: up to 8 searches of that count),
 * when at most RES_SUGGEST_MAX counts have none; else none, and
 * t->unsuggested says how many. 0 or an error of the search. */
#define RES_SUGGEST_MAX 16
int res_tradeoff_suggest(struct tradeoff *t, const struct pred_ctx *c,
                         const struct space *space, struct tpl_err *err);
/* Scale against the row of 'gpus' instead: 0, or -1 when no row has that
 * count or it has no feasible plan (nothing changes). */
int res_tradeoff_reference(struct tradeoff *t, int64_t gpus);
/* Of feasible rows a (reference) and b: the part of the breakdown whose
 * GPU-seconds per million trained tokens fell the most from a to b, and
 * the two costs; what explains a scaling above 100 % (a layout that the
 * larger count's memory or divisibility allows: less recompute, a smaller
 * bubble, a better-balanced last stage). */
enum pred_part res_tradeoff_relief(const struct tradeoff_row *a,
                                   const struct tradeoff_row *b,
                                   double *cost_a, double *cost_b);
/* Mark the frontier and find the knee of rows whose days and GPU-hours are
 * set (res_tradeoff_build does it; exposed for tests). */
void res_tradeoff_mark(struct tradeoff *t);

#endif /* RES_TRADEOFF_H */
