/* results/compare.h: the same job on several systems: at each GPU count the
 * best plan on each, its time and speed-up against the first system, cost
 * and energy to train, and the breakdown that explains the difference. */
#ifndef RES_COMPARE_H
#define RES_COMPARE_H

#include "results/tradeoff.h"

#define RES_COMPARE_MAX 16

struct compare_system {
    char label[64];             /* preset name, file, or variant name */
    struct pred_ctx ctx;
    struct tradeoff t;          /* one row per GPU count */
};

struct compare {
    struct compare_system sys[RES_COMPARE_MAX];
    int n;
};

/* One column of a comparison: a system, or a variant of one with its own
 * --set assignments. Borrowed by the builder. */
struct compare_entry {
    const char *label;          /* shown: the system's or the variant's name */
    const char *system;         /* preset name or file */
    const char *const *sets;    /* "section.field=value" applied to it */
    int n_sets;
};

struct compare_job {            /* what runs on every entry: borrowed */
    const struct model *model;
    const struct job *job;      /* with its stack's effects (spaces/stack.h) */
    const char *stack;          /* the stack's name */
    const struct plan_limits *stack_limits;     /* its stack-* limits; NULL:
                                                   any stack, no name */
    struct pred_band band;      /* its error band (with stack_limits) */
    const struct space *space;  /* allowed values, tp_cross_node */
    const int64_t *gpus;        /* sorted, unique */
    size_t n_gpus;
    double tokens;              /* to train, > 0 */
    const int64_t *gbs;         /* batches to choose over (per count, the
                                   plan that trains soonest); n_gbs 0: the
                                   job's */
    int n_gbs;
    struct pred_headroom headroom;      /* on each system's HBM */
    const volatile sig_atomic_t *stop;  /* set: the rest is partial */
    void (*progress)(void *arg, double fraction);   /* NULL: none */
    void *progress_arg;
};

/* Load each entry's system, search the job on it (best plan per GPU count)
 * and build its rows at the system's price: cmp->sys[0 .. n). TPL_EUSAGE
 * for more than RES_COMPARE_MAX entries; a load or search error stops at
 * that entry. Either way res_compare_release frees what was built. */
int res_compare_build(const struct compare_job *job,
                      const struct compare_entry *entries, int n,
                      struct compare *cmp, struct tpl_err *err);
void res_compare_release(struct compare *cmp);
/* Has any system a feasible plan at any GPU count? */
bool res_compare_feasible(const struct compare *cmp);

#endif /* RES_COMPARE_H */
