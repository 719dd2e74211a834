/* results/charts.c: the charts of tradeoff, compare and search, built on
 * results/chart.c. */
#include "results/charts.h"

#include <stdio.h>
#include <stdlib.h>

#include "common/alloc.h"
#include "results/chart.h"

int res_tradeoff_chart(const char *path, int w, int h, const struct pred_ctx *c,
                       const struct tradeoff *t, struct tpl_err *err)
{
    double *x = xcalloc(t->n + 1, sizeof *x), *days = xcalloc(t->n + 1, sizeof *days);
    double *gh = xcalloc(t->n + 1, sizeof *gh);
    bool *front = xcalloc(t->n + 1, sizeof *front);
    char title[256], knee[64];
    int rc;
    for (size_t i = 0; i < t->n; i++) {
        x[i] = (double)t->rows[i].gpus;
        days[i] = t->rows[i].feasible ? t->rows[i].days : 0;
        gh[i] = t->rows[i].feasible ? t->rows[i].gpu_hours : 0;
        front[i] = t->rows[i].frontier;
    }
    {
        struct chart_series s1 = { "days (filled: frontier)", x, days,
                                   (int)t->n, front };
        struct chart_series s2 = { "GPU-hours (filled: frontier)", x, gh,
                                   (int)t->n, front };
        struct chart_panel panels[2] = {
            { "time to train (days)", true, &s1, 1 },
            { "GPU-hours", true, &s2, 1 },
        };
        struct chart_lines lines = { title, "GPUs (log scale)", true, panels, 2,
                                     t->knee >= 0 ? (double)t->rows[t->knee].gpus : 0,
                                     knee };
        snprintf(title, sizeof title, "%s on %s: %.3g tokens", c->model.name,
                 c->hw.name, t->tokens);
        snprintf(knee, sizeof knee, "knee: %lld GPUs", t->knee >= 0
                 ? (long long)t->rows[t->knee].gpus : 0LL);
        rc = res_chart_lines_write(path, w, h, &lines, err);
    }
    free(x);
    free(days);
    free(gh);
    free(front);
    return rc;
}

int res_compare_chart(const char *path, int w, int h, const struct compare *cmp,
                      struct tpl_err *err)
{
    static const char *const stacks[PRED_CLASS_COUNT] = {
        [PRED_CLASS_COMPUTE] = "compute + recompute",
        [PRED_CLASS_COMM] = "communication",
        [PRED_CLASS_BUBBLE] = "pipeline bubble" };
    size_t rows = cmp->sys[0].t.n, n = rows * (size_t)cmp->n, k = 0;
    double *v = xcalloc(n * PRED_CLASS_COUNT + 1, sizeof *v);
    char (*labels)[96] = xcalloc(n + 1, sizeof *labels);
    const char **names = xcalloc(n + 1, sizeof *names);
    char title[256];
    int rc;
    for (size_t i = 0; i < rows; i++)
        for (int s = 0; s < cmp->n; s++, k++) {
            const struct tradeoff_row *r = &cmp->sys[s].t.rows[i];
            snprintf(labels[k], sizeof labels[k], "%s @ %lld", cmp->sys[s].label,
                     (long long)r->gpus);
            names[k] = labels[k];
            if (!r->feasible)
                continue;
            pred_parts_fold(r->r.part_s, &v[PRED_CLASS_COUNT * k]);
        }
    snprintf(title, sizeof title, "%s: iteration time of the best plan per "
             "system and GPU count", cmp->sys[0].ctx.model.name);
    {
        struct chart_bars bars = { title, "seconds per iteration", names,
                                   (int)n, stacks, PRED_CLASS_COUNT, v };
        rc = res_chart_bars_write(path, w, h, &bars, err);
    }
    free(v);
    free(labels);
    free(names);
    return rc;
}

int res_search_chart(const char *path, int w, int h, const struct pred_ctx *c,
                     const struct search_result *s, struct tpl_err *err)
{
    const char *stacks[PRED_PART_COUNT];
    double *v = xcalloc(s->n * PRED_PART_COUNT + 1, sizeof *v);
    char (*labels)[128] = xcalloc(s->n + 1, sizeof *labels);
    const char **names = xcalloc(s->n + 1, sizeof *names);
    char title[256];
    int rc;
    for (int p = 0; p < PRED_PART_COUNT; p++)
        stacks[p] = pred_part_name((enum pred_part)p);
    for (size_t i = 0; i < s->n; i++) {
        const struct search_gpu *g = &s->per_gpu[i];
        char key[96] = "no feasible plan";
        if (g->n_hits) {
            plan_key(&g->hits[0].plan, key, sizeof key);
            for (int p = 0; p < PRED_PART_COUNT; p++)
                v[i * PRED_PART_COUNT + (size_t)p] = g->results[0].part_s[p];
        }
        snprintf(labels[i], sizeof labels[i], "%lld: %s", (long long)g->gpus, key);
        names[i] = labels[i];
    }
    snprintf(title, sizeof title, "%s on %s: the fastest plan per GPU count",
             c->model.name, c->hw.name);
    {
        struct chart_bars bars = { title, "seconds per iteration", names,
                                   (int)s->n, stacks, PRED_PART_COUNT, v };
        rc = res_chart_bars_write(path, w, h, &bars, err);
    }
    free(v);
    free(labels);
    free(names);
    return rc;
}
