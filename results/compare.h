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

int res_compare_write(FILE *fp, enum res_format fmt, const struct compare *cmp,
                      struct tpl_err *err);

#endif /* RES_COMPARE_H */
