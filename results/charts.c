/* results/charts.c: the charts of tradeoff, compare and search, built on
 * results/chart.c. */
#include "results/charts.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/alloc.h"
#include "results/chart.h"

/* The per-count values of a tradeoff a chart plots; gaps (0) where a
 * count has no plan. */
struct tradeoff_points {
    double *x, *days, *gh, *days_ideal, *gh_ideal, *cost;
    double *pub;                /* --published-gpu-hours, every count */
    bool *front;
};

static void points_of(const struct tradeoff *t, struct tradeoff_points *p)
{
    size_t n = t->n + 1;
    double **cols[] = { &p->x, &p->days, &p->gh, &p->days_ideal, &p->gh_ideal,
                        &p->cost, &p->pub };
    for (size_t k = 0; k < sizeof cols / sizeof *cols; k++)
        *cols[k] = xcalloc(n, sizeof **cols[k]);
    p->front = xcalloc(n, sizeof *p->front);
    for (size_t i = 0; i < t->n; i++) {
        const struct tradeoff_row *w = &t->rows[i];
        p->x[i] = (double)w->gpus;
        p->days[i] = w->feasible ? w->days : 0;
        p->gh[i] = w->feasible ? w->gpu_hours : 0;
        p->days_ideal[i] = w->feasible ? w->days_ideal : 0;
        p->gh_ideal[i] = w->feasible ? w->gpu_hours_ideal : 0;
        p->cost[i] = w->feasible ? w->cost_usd : 0;
        p->front[i] = w->frontier;
        p->pub[i] = t->published_gpu_hours;
    }
}

static void points_free(struct tradeoff_points *p)
{
    free(p->x);
    free(p->days);
    free(p->gh);
    free(p->days_ideal);
    free(p->gh_ideal);
    free(p->cost);
    free(p->pub);
    free(p->front);
}

/* Days, GPU-hours and cost against GPUs; a filled marker is a count on the
 * frontier of time against GPU-hours (no other count is both faster and
 * cheaper), an open one a dominated count. */
int res_tradeoff_chart(const char *path, int w, int h, const struct pred_ctx *c,
                       const struct tradeoff *t, struct tpl_err *err)
{
    struct tradeoff_points p;
    char title[256], knee[64], tok[32], price[64];
    int rc, n = (int)t->n;
    points_of(t, &p);
    snprintf(price, sizeof price, "cost at $%.2f/GPU-hour", t->usd_per_gpu_hour);
    {
        struct chart_series s1[2] = {
            { "days, with interruptions", p.x, p.days, n, p.front },
            { "days if every hour trained", p.x, p.days_ideal, n, NULL } };
        struct chart_series s2[3] = {
            { "GPU-hours, with interruptions", p.x, p.gh, n, p.front },
            { "GPU-hours if every hour trained", p.x, p.gh_ideal, n, NULL },
            { "published (--published-gpu-hours)", p.x, p.pub, n, NULL } };
        struct chart_series s3[1] = { { price, p.x, p.cost, n, p.front } };
        struct chart_panel panels[3] = {
            { "time to train (days)", true, s1, 2 },
            { "GPU-hours", true, s2, t->published_gpu_hours > 0 ? 3 : 2 },
            { "cost (USD)", true, s3, 1 },
        };
        struct chart_lines lines = { title, "GPUs (log scale)", true, panels, 3,
            t->knee >= 0 ? (double)t->rows[t->knee].gpus : 0, knee,
            "filled marker: no other GPU count trains both sooner and in fewer "
            "GPU-hours (the frontier); open: one does", false };
        snprintf(title, sizeof title, "%s on %s: %s tokens, with interruptions",
                 c->model.name, c->hw.name, res_tokens_text(t->tokens, tok,
                                                            sizeof tok));
        snprintf(knee, sizeof knee, "knee: %lld GPUs", t->knee >= 0
                 ? (long long)t->rows[t->knee].gpus : 0LL);
        rc = res_chart_lines_write(path, w, h, &lines, err);
    }
    points_free(&p);
    return rc;
}

/* ---- compare: per GPU count, each system's time against the first's ----
 * Bars in groups by GPU count, each system's iteration time over the first
 * system's at that count (so a 1 s count reads as well as an 18 s one),
 * stacked by compute, communication and bubble; above each bar the
 * buyer's figures: speed-up and cost to train. */
struct cmp_labels {
    char (*bars)[96], (*tops)[48], (*groups)[48];
    const char **bar_p, **top_p, **group_p;
};

static void cmp_labels_new(struct cmp_labels *l, size_t n, size_t groups)
{
    l->bars = xcalloc(n + 1, sizeof *l->bars);
    l->tops = xcalloc(n + 1, sizeof *l->tops);
    l->groups = xcalloc(groups + 1, sizeof *l->groups);
    l->bar_p = xcalloc(n + 1, sizeof *l->bar_p);
    l->top_p = xcalloc(n + 1, sizeof *l->top_p);
    l->group_p = xcalloc(groups + 1, sizeof *l->group_p);
}

static void cmp_labels_free(struct cmp_labels *l)
{
    free(l->bars);
    free(l->tops);
    free(l->groups);
    free(l->bar_p);
    free(l->top_p);
    free(l->group_p);
}

/* "$9.9M": a cost short enough to sit above a bar. */
static void usd_text(char *buf, size_t n, double usd)
{
    if (usd >= 1e6)
        snprintf(buf, n, "$%.3gM", usd / 1e6);
    else if (usd >= 1e3)
        snprintf(buf, n, "$%.3gk", usd / 1e3);
    else
        snprintf(buf, n, "$%.0f", usd);
}

/* Bar k = system s at count i: its stacks as shares of the first system's
 * iteration, its labels. */
static void cmp_bar(const struct compare *cmp, int s, size_t i, size_t k,
                    double *v, struct cmp_labels *l)
{
    const struct tradeoff_row *r = &cmp->sys[s].t.rows[i];
    const struct tradeoff_row *r0 = &cmp->sys[0].t.rows[i];
    char cost[32];
    snprintf(l->bars[k], sizeof l->bars[k], "%s", cmp->sys[s].label);
    l->bar_p[k] = l->bars[k];
    l->top_p[k] = l->tops[k];
    if (!r->feasible) {
        snprintf(l->tops[k], sizeof l->tops[k], "n/a");
        return;
    }
    pred_parts_fold(r->r.part_s, &v[PRED_CLASS_COUNT * k]);
    usd_text(cost, sizeof cost, r->cost_usd);
    if (r0->feasible) {
        for (int c = 0; c < PRED_CLASS_COUNT; c++)
            v[PRED_CLASS_COUNT * k + (size_t)c] /= r0->r.iteration_s;
        snprintf(l->tops[k], sizeof l->tops[k], "%.2fx %s",
                 r0->days / r->days, cost);
    } else {                    /* no reference: its own time, unscaled */
        memset(&v[PRED_CLASS_COUNT * k], 0, PRED_CLASS_COUNT * sizeof *v);
        snprintf(l->tops[k], sizeof l->tops[k], "%s (no ref.)", cost);
    }
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
    struct cmp_labels l;
    char title[256], ylabel[160];
    int rc;
    cmp_labels_new(&l, n, rows);
    for (size_t i = 0; i < rows; i++) {
        snprintf(l.groups[i], sizeof l.groups[i], "%lld GPUs",
                 (long long)cmp->sys[0].t.rows[i].gpus);
        l.group_p[i] = l.groups[i];
        for (int s = 0; s < cmp->n; s++, k++)
            cmp_bar(cmp, s, i, k, v, &l);
    }
    snprintf(title, sizeof title, "%s: each system against %s at each GPU "
             "count (speed-up and cost to train above the bars)",
             cmp->sys[0].ctx.model.name, cmp->sys[0].label);
    snprintf(ylabel, sizeof ylabel, "iteration time / %s's", cmp->sys[0].label);
    {
        struct chart_bars bars = { title, ylabel, l.bar_p, (int)n, stacks,
                                   PRED_CLASS_COUNT, v, l.top_p, cmp->n,
                                   l.group_p };
        rc = res_chart_bars_write(path, w, h, &bars, err);
    }
    free(v);
    cmp_labels_free(&l);
    return rc;
}

/* ---- search: the breakdown of each count's fastest plan ---- */

/* A breakdown part's legend name: the known ones in words, a new one
 * ("ep_comm") with its underscores as spaces. */
static const char *part_label(enum pred_part p, char *buf, size_t n)
{
    static const struct { const char *name, *label; } known[] = {
        { "tp_comm", "TP communication" },
        { "cp_comm", "CP communication" },
        { "ep_comm", "EP communication" },
        { "pp_bubble", "pipeline bubble" },
        { "pp_p2p", "pipeline sends" },
        { "dp_exposed", "DP communication (exposed)" },
        { "optimizer", "optimizer step" },
    };
    const char *name = pred_part_name(p);
    for (size_t i = 0; i < sizeof known / sizeof *known; i++)
        if (!strcmp(name, known[i].name))
            return known[i].label;
    snprintf(buf, n, "%s", name);
    for (char *q = buf; *q; q++)
        if (*q == '_')
            *q = ' ';
    return buf;
}

/* The parts with time at some count, in enum order: their indices into
 * used[], their names into names[]; returns how many. */
static int parts_used(const struct search_result *s, int used[PRED_PART_COUNT],
                      const char *names[PRED_PART_COUNT],
                      char bufs[PRED_PART_COUNT][40])
{
    int n = 0;
    for (int p = 0; p < PRED_PART_COUNT; p++) {
        bool any = false;
        for (size_t i = 0; i < s->n && !any; i++)
            any = s->per_gpu[i].n_hits && s->per_gpu[i].results[0].part_s[p] > 0;
        if (any) {
            used[n] = p;
            names[n++] = part_label((enum pred_part)p, bufs[p], sizeof bufs[p]);
        }
    }
    return n;
}

int res_search_chart(const char *path, int w, int h, const struct pred_ctx *c,
                     const struct search_result *s, struct tpl_err *err)
{
    const char *stacks[PRED_PART_COUNT];
    char bufs[PRED_PART_COUNT][40];
    int used[PRED_PART_COUNT], n_used = parts_used(s, used, stacks, bufs);
    double *v = xcalloc(s->n * PRED_PART_COUNT + 1, sizeof *v);
    char (*labels)[128] = xcalloc(s->n + 1, sizeof *labels);
    const char **names = xcalloc(s->n + 1, sizeof *names);
    char title[256];
    int rc;
    for (size_t i = 0; i < s->n; i++) {
        const struct search_gpu *g = &s->per_gpu[i];
        char key[96] = "no feasible plan";
        if (g->n_hits) {
            plan_key(&g->hits[0].plan, key, sizeof key);
            for (int u = 0; u < n_used; u++)
                v[i * (size_t)n_used + (size_t)u] = g->results[0].part_s[used[u]];
        }
        if (s->n > 24)          /* many counts: the count alone */
            snprintf(labels[i], sizeof labels[i], "%lld", (long long)g->gpus);
        else
            snprintf(labels[i], sizeof labels[i], "%lld: %s",
                     (long long)g->gpus, key);
        names[i] = labels[i];
    }
    snprintf(title, sizeof title, "%s on %s: the fastest plan per GPU count",
             c->model.name, c->hw.name);
    {
        struct chart_bars bars = { title, "seconds per iteration", names,
                                   (int)s->n, stacks, n_used, v, NULL, 0, NULL };
        rc = res_chart_bars_write(path, w, h, &bars, err);
    }
    free(v);
    free(labels);
    free(names);
    return rc;
}
