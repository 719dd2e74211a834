/* sweep/charts.c: a sweep's charts (results/chart.c draws them): the
 * Pareto scatter of days against cost, a colour per GPU count, filled where
 * on the frontier; and a heat map of days to train over the first two varied
 * fields, for the first model and system, the other fields at their first
 * value, at the largest GPU count. */
#include "sweep/sweep.h"

#include <stdio.h>
#include <stdlib.h>

#include "common/alloc.h"
#include "results/chart.h"

/* Points of GPU count g: every item's (cost, days), the frontier's last so
 * that a tie does not hide them; no plan: a gap. */
static void count_points(const struct sweep_result *r, size_t g, const bool *front,
                         double *x, double *y, bool *mark)
{
    size_t k = 0;
    for (int pass = 0; pass < 2; pass++)
        for (uint64_t i = 0; i < r->n_items; i++) {
            const struct sweep_row *w = &r->rows[i * r->n_gpus + g];
            if (front[i * r->n_gpus + g] != (pass == 1))
                continue;
            x[k] = w->status == 1 ? w->cost_usd : 1;
            y[k] = w->status == 1 ? w->days : 0;
            mark[k++] = pass == 1;
        }
}

int sweep_chart_pareto(const char *path, int w, int h, const struct sweep *sw,
                       const struct sweep_result *r, struct tpl_err *err)
{
    size_t ns = r->n_gpus < 8 ? r->n_gpus : 8, n = r->n_items + 1;
    double *x = xcalloc(ns * n, sizeof *x), *y = xcalloc(ns * n, sizeof *y);
    bool *mark = xcalloc(ns * n, sizeof *mark);
    bool *front = xcalloc(r->n_items * r->n_gpus + 1, sizeof *front);
    struct chart_series se[8];
    char names[8][48];
    int rc;
    sweep_frontier(sw, r, front);
    for (size_t g = 0; g < ns; g++) {
        count_points(r, g, front, x + g * n, y + g * n, mark + g * n);
        snprintf(names[g], sizeof names[g], "%lld GPUs (filled: Pareto)",
                 (long long)r->rows[g].gpus);
        se[g] = (struct chart_series){ names[g], x + g * n, y + g * n,
                                       (int)r->n_items, mark + g * n };
    }
    {
        struct chart_panel panel = { "time to train (days)", true, se, (int)ns };
        struct chart_lines c = { "sweep: days to train against cost, every "
                                 "variant", "cost to train (USD, log scale)",
                                 true, &panel, 1, 0, NULL, NULL, true };
        rc = res_chart_scatter_write(path, w, h, &c, err);
    }
    free(x), free(y), free(mark), free(front);
    return rc;
}

/* The item of model 0, system 0, axes 0 and 1 at (i, j), others at 0. */
static uint64_t item_at(const struct sweep *sw, int i, int j)
{
    uint64_t item = 0;
    for (int a = 0; a < sw->n_axes; a++)
        item = item * (uint64_t)sw->axes[a].n + (uint64_t)(a == 0 ? i : a == 1 ? j : 0);
    return item;
}

int sweep_chart_heat(const char *path, int w, int h, const struct sweep *sw,
                     const struct sweep_result *r, struct tpl_err *err)
{
    int nx, ny, rc;
    double *v;
    const char **xs, **ys;
    char title[256];
    size_t g = r->n_gpus - 1;
    if (sw->n_axes < 2)
        return tpl_errorf(err, TPL_EUSAGE, "--heatmap needs two varied fields");
    nx = sw->axes[0].n, ny = sw->axes[1].n;
    v = xcalloc((size_t)(nx * ny), sizeof *v);
    xs = xcalloc((size_t)nx, sizeof *xs);
    ys = xcalloc((size_t)ny, sizeof *ys);
    for (int i = 0; i < nx; i++)
        xs[i] = sw->axes[0].v[i];
    for (int j = 0; j < ny; j++) {
        ys[j] = sw->axes[1].v[j];
        for (int i = 0; i < nx; i++) {
            const struct sweep_row *row = &r->rows[item_at(sw, i, j) * r->n_gpus + g];
            v[j * nx + i] = row->status == 1 ? row->days : 0;
        }
    }
    snprintf(title, sizeof title, "%.100s on %.100s, %lld GPUs: days to train",
             sw->models[0], sw->systems[0], (long long)r->rows[g].gpus);
    {
        struct chart_heat c = { title, sw->axes[0].field, sw->axes[1].field,
                                "days", xs, nx, ys, ny, v };
        rc = res_chart_heat_write(path, w, h, &c, err);
    }
    free(v), free(xs), free(ys);
    return rc;
}
