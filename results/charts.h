/* results/charts.h: the charts of the reports: time to train and GPU-hours
 * against GPU count with the frontier and knee (tradeoff), stacked
 * breakdown bars per system (compare) and per GPU count's best plan
 * (search). SVG or PNG by the file name; width x height pixels. */
#ifndef RES_CHARTS_H
#define RES_CHARTS_H

#include "results/compare.h"
#include "results/tradeoff.h"
#include "search/search.h"

int res_tradeoff_chart(const char *path, int w, int h, const struct pred_ctx *c,
                       const struct tradeoff *t, struct tpl_err *err);
int res_compare_chart(const char *path, int w, int h, const struct compare *cmp,
                      struct tpl_err *err);
int res_search_chart(const char *path, int w, int h, const struct pred_ctx *c,
                     const struct search_result *s, struct tpl_err *err);

#endif /* RES_CHARTS_H */
