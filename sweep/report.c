/* sweep/report.c: a sweep's rows (item, GPU count) in table, CSV or JSON,
 * picked from one table of writers by format (as results/report.c), and
 * the Pareto set of time to train against cost over every variant. Rows
 * come in item order, so the output is the same for any threads or ranks. */
#include "sweep/sweep.h"

#include <assert.h>
#include <stdlib.h>
#include <string.h>

#include "common/alloc.h"

/* ---- Pareto: no other row is both faster and cheaper ---- */

struct point { int group; double days, cost; size_t i; };

static int by_days(const void *a, const void *b)
{
    const struct point *p = a, *q = b;
    if (p->group != q->group)
        return p->group < q->group ? -1 : 1;
    if (p->days != q->days)
        return p->days < q->days ? -1 : 1;
    if (p->cost != q->cost)
        return p->cost < q->cost ? -1 : 1;
    return p->i < q->i ? -1 : p->i > q->i;
}

void sweep_pareto(const struct sweep_row *rows, const int *group, size_t n,
                  bool *frontier)
{
    struct point *pt = xmalloc((n + 1) * sizeof *pt);
    size_t k = 0;
    double best = 0;
    for (size_t i = 0; i < n; i++) {
        frontier[i] = false;
        if (rows[i].status == 1)
            pt[k++] = (struct point){ group ? group[i] : 0, rows[i].days,
                                      rows[i].cost_usd, i };
    }
    qsort(pt, k, sizeof *pt, by_days);
    for (size_t j = 0; j < k; j++)      /* faster first: keep each new low cost */
        if (j == 0 || pt[j].group != pt[j - 1].group || pt[j].cost < best) {
            best = pt[j].cost;
            frontier[pt[j].i] = true;
        }
    free(pt);
}

void sweep_frontier(const struct sweep *sw, const struct sweep_result *r,
                    bool *frontier)
{
    size_t n = r->n_items * r->n_gpus;
    int *model = xmalloc((n + 1) * sizeof *model);
    for (size_t i = 0; i < n; i++)      /* a frontier per model */
        model[i] = (int)(r->rows[i].item / (r->n_items / (uint64_t)sw->n_models));
    sweep_pareto(r->rows, model, n, frontier);
    free(model);
}

/* ---- what every writer needs ---- */

struct view {
    const struct sweep *sw;
    const struct sweep_result *r;
    bool *frontier;
    size_t n;                           /* rows */
};

/* The model, system and each varied and linked value of a row's item. */
static void item_values(const struct sweep *sw, uint64_t item,
                        const char **model, const char **system,
                        const char *vals[])
{
    int m, s, idx[SWEEP_MAX_AXES];
    sweep_decode(sw, item, &m, &s, idx);
    *model = sw->models[m];
    *system = sw->systems[s];
    for (int a = 0; a < sw->n_axes; a++)
        vals[a] = sw->axes[a].v[idx[a]];
    for (int l = 0; l < sw->n_links; l++)
        vals[sw->n_axes + l] = sw->links[l].v[idx[sw->links[l].axis]];
}

static const char *field_name(const struct sweep *sw, int k)
{
    return k < sw->n_axes ? sw->axes[k].field : sw->links[k - sw->n_axes].field;
}

/* ---- table ---- */

static void table_head(FILE *fp, const struct view *v)
{
    fprintf(fp, "%6s  %-12s %-12s", "item", "model", "system");
    for (int k = 0; k < v->sw->n_axes + v->sw->n_links; k++)
        fprintf(fp, " %12.12s", strchr(field_name(v->sw, k), '.') + 1);
    fprintf(fp, " %6s  %-28s %8s %8s %11s %12s %9s %6s %7s  %s\n", "GPUs",
            "plan", "iter s", "days", "GPU-hours", "cost USD", "MWh", "MFU",
            "margin", "pareto");
}

/* A row of a system whose efficiencies are modelling defaults says so. */
static const char *uncal_mark(const struct sweep_row *w)
{
    return w->calibrated ? "" : "  uncalibrated";
}

static void table_row(FILE *fp, const struct view *v, size_t i)
{
    const struct sweep_row *w = &v->r->rows[i];
    const char *model, *system, *vals[SWEEP_MAX_AXES + SWEEP_MAX_LINKS];
    item_values(v->sw, w->item, &model, &system, vals);
    fprintf(fp, "%6llu  %-12s %-12s", (unsigned long long)w->item, model, system);
    for (int k = 0; k < v->sw->n_axes + v->sw->n_links; k++)
        fprintf(fp, " %12s", vals[k]);
    if (w->status != 1) {
        fprintf(fp, " %6lld  %-28s %71s %7.2f%s\n", (long long)w->gpus,
                "(no feasible plan)", "", w->margin_gib, uncal_mark(w));
        return;
    }
    fprintf(fp, " %6lld  %-28s %8.3f %8.2f %11.0f %12.0f %9.1f %5.1f%% %7.2f  "
            "%3s%s\n", (long long)w->gpus, w->key, w->iteration_s, w->days,
            w->gpu_hours, w->cost_usd, w->energy_kwh / 1000, 100 * w->mfu,
            w->margin_gib, v->frontier[i] ? "yes" : "", uncal_mark(w));
}

static void table(FILE *fp, const struct view *v)
{
    size_t n_front = 0;
    fprintf(fp, "sweep: %llu items (%d models x %d systems", (unsigned long long)
            v->r->n_items, v->sw->n_models, v->sw->n_systems);
    for (int a = 0; a < v->sw->n_axes; a++)
        fprintf(fp, " x %d %s", v->sw->axes[a].n, v->sw->axes[a].field);
    fprintf(fp, ") x %zu GPU counts\n\n", v->r->n_gpus);
    table_head(fp, v);
    for (size_t i = 0; i < v->n; i++)
        table_row(fp, v, i);
    fputs("\npareto per model (days to train vs cost over every variant and GPU count):\n",
          fp);
    for (size_t i = 0; i < v->n; i++)
        if (v->frontier[i]) {
            table_row(fp, v, i);
            n_front++;
        }
    fprintf(fp, "%zu of %zu rows on the frontier; margin: spare HBM in GiB "
            "(negative: the nearest miss)\n", n_front, v->n);
    for (size_t i = 0; i < v->n; i++)
        if (!v->r->rows[i].calibrated && v->r->rows[i].status >= 0) {
            fputs("uncalibrated: rows so marked run on a system whose kernel "
                  "efficiencies are modelling defaults (efficiency.calibrated "
                  "= false); their times are estimates only\n", fp);
            break;
        }
}

/* ---- CSV ---- */

static void csv_head(FILE *fp, const struct sweep *sw)
{
    fputs("item,model,system", fp);
    for (int k = 0; k < sw->n_axes + sw->n_links; k++)
        fprintf(fp, ",%s", field_name(sw, k));
    fputs(",gpus,feasible,key,iteration_s,days,gpu_hours,cost_usd,energy_kwh,"
          "mfu,margin_gib,pareto,calibrated,schema_version\n", fp);
}

/* One row; 'pareto' is "true", "false", or "" where not yet known
 * (streamed). */
static void csv_row(FILE *fp, const struct sweep *sw, const struct sweep_row *w,
                    const char *pareto)
{
    const char *model, *system, *vals[SWEEP_MAX_AXES + SWEEP_MAX_LINKS];
    item_values(sw, w->item, &model, &system, vals);
    fprintf(fp, "%llu,%s,%s", (unsigned long long)w->item, model, system);
    for (int k = 0; k < sw->n_axes + sw->n_links; k++)
        fprintf(fp, ",%s", vals[k]);
    fprintf(fp, ",%lld", (long long)w->gpus);
    res_csv_bool(fp, w->status == 1);
    if (w->status != 1)
        fputs(",,,,,,,", fp);
    else {
        const double x[] = { w->iteration_s, w->days, w->gpu_hours, w->cost_usd,
                             w->energy_kwh, w->mfu };
        fprintf(fp, ",%s", w->key);
        for (size_t k = 0; k < sizeof x / sizeof *x; k++)
            res_csv_num(fp, x[k]);
    }
    res_csv_num(fp, w->margin_gib);
    fprintf(fp, ",%s", pareto);
    res_csv_bool(fp, w->calibrated);
    fprintf(fp, ",%d\n", RES_SCHEMA_VERSION);
}

static void csv(FILE *fp, const struct view *v)
{
    csv_head(fp, v->sw);
    for (size_t i = 0; i < v->n; i++)
        csv_row(fp, v->sw, &v->r->rows[i], v->frontier[i] ? "true" : "false");
}

void sweep_stream_head(FILE *fp, const struct sweep *sw)
{
    csv_head(fp, sw);
    fflush(fp);
}

void sweep_stream_rows(FILE *fp, const struct sweep *sw,
                       const struct sweep_row *rows, size_t n_gpus)
{
    for (size_t g = 0; g < n_gpus; g++)
        csv_row(fp, sw, &rows[g], "");
    fflush(fp);
}

/* ---- JSON ---- */

static json_t *row_json(const struct view *v, size_t i)
{
    const struct sweep_row *w = &v->r->rows[i];
    const char *model, *system, *vals[SWEEP_MAX_AXES + SWEEP_MAX_LINKS];
    json_t *values = json_object(), *o;
    item_values(v->sw, w->item, &model, &system, vals);
    for (int k = 0; k < v->sw->n_axes + v->sw->n_links; k++)
        json_object_set_new(values, field_name(v->sw, k), json_string(vals[k]));
    o = json_pack("{s:I, s:s, s:s, s:o, s:I, s:b, s:f, s:b}", "item",
                  (json_int_t)w->item, "model", model, "system", system,
                  "values", values, "gpus", (json_int_t)w->gpus,
                  "feasible", w->status == 1, "margin_gib", w->margin_gib,
                  "calibrated", w->calibrated);
    if (w->status == 1)
        json_object_update_new(o, json_pack("{s:s, s:f, s:f, s:f, s:f, s:f, "
            "s:f, s:b}", "plan", w->key, "iteration_s", w->iteration_s,
            "days", w->days, "gpu_hours", w->gpu_hours, "cost_usd", w->cost_usd,
            "energy_kwh", w->energy_kwh, "mfu", w->mfu, "pareto", v->frontier[i]));
    return o;
}

static json_t *json_of(const struct view *v)
{
    json_t *rows = json_array(), *pareto = json_array();
    for (size_t i = 0; i < v->n; i++) {
        json_array_append_new(rows, row_json(v, i));
        if (v->frontier[i])
            json_array_append_new(pareto, json_integer((json_int_t)i));
    }
    return json_pack("{s:I, s:I, s:o, s:o}", "items", (json_int_t)v->r->n_items,
                     "gpu_counts", (json_int_t)v->r->n_gpus, "rows", rows,
                     "pareto_rows", pareto);
}

/* ---- the writers, by format ---- */

static int write_table(FILE *fp, const struct view *v, struct tpl_err *err)
{
    (void)err;
    table(fp, v);
    return 0;
}

static int write_csv(FILE *fp, const struct view *v, struct tpl_err *err)
{
    (void)err;
    csv(fp, v);
    return 0;
}

static int write_json(FILE *fp, const struct view *v, struct tpl_err *err)
{
    return res_json_emit(fp, json_of(v), err);
}

typedef int writer(FILE *fp, const struct view *v, struct tpl_err *err);
static writer *const writers[RES_FMT_COUNT] = {
    [RES_FMT_TABLE] = write_table, [RES_FMT_CSV] = write_csv,
    [RES_FMT_JSON] = write_json,
};
static_assert(RES_FMT_COUNT == 3, "update the sweep writers");

int sweep_report_write(FILE *fp, enum res_format fmt, const struct sweep *sw,
                       const struct sweep_result *r, struct tpl_err *err)
{
    struct view v = { sw, r, NULL, r->n_items * r->n_gpus };
    int rc;
    if (fmt >= RES_FMT_COUNT)
        TPL_BUG("bad format %d", (int)fmt);
    v.frontier = xcalloc(v.n + 1, sizeof *v.frontier);
    sweep_frontier(sw, r, v.frontier);
    rc = writers[fmt](fp, &v, err);
    free(v.frontier);
    return rc ? rc : res_stream_done(fp, err);
}
