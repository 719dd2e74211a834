/* results/charts.c: the charts of tradeoff, compare and search, built on
 * results/chart.c. */
#include "results/charts.h"

#include <stdio.h>
#include <stdlib.h>

#include "common/alloc.h"
#include "results/chart.h"

/* The per-count values of a tradeoff a chart plots; gaps (0) where a
 * count has no plan. */
struct tradeoff_points {
    double *x, *days, *gh, *days_ideal, *gh_ideal;
    bool *front;
};

static void points_of(const struct tradeoff *t, struct tradeoff_points *p)
{
    size_t n = t->n + 1;
    p->x = xcalloc(n, sizeof *p->x);
    p->days = xcalloc(n, sizeof *p->days);
    p->gh = xcalloc(n, sizeof *p->gh);
    p->days_ideal = xcalloc(n, sizeof *p->days_ideal);
    p->gh_ideal = xcalloc(n, sizeof *p->gh_ideal);
    p->front = xcalloc(n, sizeof *p->front);
    for (size_t i = 0; i < t->n; i++) {
        const struct tradeoff_row *w = &t->rows[i];
        p->x[i] = (double)w->gpus;
        p->days[i] = w->feasible ? w->days : 0;
        p->gh[i] = w->feasible ? w->gpu_hours : 0;
        p->days_ideal[i] = w->feasible ? w->days_ideal : 0;
        p->gh_ideal[i] = w->feasible ? w->gpu_hours_ideal : 0;
        p->front[i] = w->frontier;
    }
}

static void points_free(struct tradeoff_points *p)
{
    free(p->x);
    free(p->days);
    free(p->gh);
    free(p->days_ideal);
    free(p->gh_ideal);
    free(p->front);
}

int res_tradeoff_chart(const char *path, int w, int h, const struct pred_ctx *c,
                       const struct tradeoff *t, struct tpl_err *err)
{
    struct tradeoff_points p;
    char title[256], knee[64];
    int rc, n = (int)t->n;
    points_of(t, &p);
    {
        struct chart_series s1[2] = {
            { "days (filled: frontier)", p.x, p.days, n, p.front },
            { "days, every hour training", p.x, p.days_ideal, n, NULL } };
        struct chart_series s2[2] = {
            { "GPU-hours (filled: frontier)", p.x, p.gh, n, p.front },
            { "GPU-hours, every hour training", p.x, p.gh_ideal, n, NULL } };
        struct chart_panel panels[2] = {
            { "time to train (days)", true, s1, 2 },
            { "GPU-hours", true, s2, 2 },
        };
        struct chart_lines lines = { title, "GPUs (log scale)", true, panels, 2,
                                     t->knee >= 0 ? (double)t->rows[t->knee].gpus : 0,
                                     knee };
        snprintf(title, sizeof title, "%s on %s: %.3g tokens, with interruptions",
                 c->model.name, c->hw.name, t->tokens);
        snprintf(knee, sizeof knee, "knee: %lld GPUs", t->knee >= 0
                 ? (long long)t->rows[t->knee].gpus : 0LL);
        rc = res_chart_lines_write(path, w, h, &lines, err);
    }
    points_free(&p);
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
