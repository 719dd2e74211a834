/* results/tradeoff.c: time to train, GPU-hours, cost and energy per GPU
 * count, the frontier and its knee (see tradeoff.h). */
#include "results/tradeoff.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "common/alloc.h"
#include "results/report.h"

/* ---- power ----
 * A GPU busy with training GEMMs draws about 0.82 of its rated power:
 * Latif et al., "Single-Node Power Demand During AI Training: Measurements
 * on an 8-GPU NVIDIA H100 System", IEEE Access 13 (2025), arXiv:2412.08602:
 * 8.4 kW at most against the node's 10.2 kW rating, with the GPUs near full
 * utilisation (Newkirk et al., arXiv:2506.14551, report 76 % for compute-
 * intensive training on the same systems). While it waits on communication
 * or the pipeline (Go et al., arXiv:2509.10371, sec. on power: draw falls in
 * communication-bound phases) it keeps its memory and clocks up: 0.43 of
 * TDP, the ML.ENERGY Benchmark's low-activity H100 figure (300 W of 700). */
#define POWER_BUSY  0.82
#define POWER_FLOOR 0.43

double res_gpu_power_w(const struct hw_system *hw, const struct pred_result *r)
{
    double cls[PRED_CLASS_COUNT], busy;
    pred_parts_fold(r->part_s, cls);
    busy = cls[PRED_CLASS_COMPUTE] / r->iteration_s;
    return hw->tdp_w * (POWER_FLOOR + (POWER_BUSY - POWER_FLOOR) * busy);
}

/* ---- frontier and knee ---- */

static void mark_frontier(struct tradeoff *t)
{
    for (size_t i = 0; i < t->n; i++) {
        struct tradeoff_row *a = &t->rows[i];
        a->frontier = a->feasible;
        for (size_t k = 0; k < t->n && a->frontier; k++) {
            const struct tradeoff_row *b = &t->rows[k];
            if (k != i && b->feasible && b->days <= a->days &&
                b->gpu_hours <= a->gpu_hours &&
                (b->days < a->days || b->gpu_hours < a->gpu_hours))
                a->frontier = false;
        }
    }
}

/* Per doubling of GPUs, perfect scaling halves the time; the efficiency of a
 * step from a to b is the time saved per doubling over that ideal half. */
static void find_knee(struct tradeoff *t)
{
    long prev = -1;
    t->knee = -1;
    for (size_t i = 0; i < t->n; i++) {
        const struct tradeoff_row *b = &t->rows[i];
        if (!b->frontier)
            continue;
        if (prev >= 0) {
            const struct tradeoff_row *a = &t->rows[prev];
            double doublings = log2((double)b->gpus / (double)a->gpus);
            double ratio = pow(b->days / a->days, 1.0 / doublings);
            if ((1.0 - ratio) / 0.5 < t->knee_fraction) {
                t->knee = prev;
                return;
            }
        }
        prev = (long)i;
    }
}

void res_tradeoff_build(const struct pred_ctx *c, const struct search_result *s,
                        double tokens, double usd_per_gpu_hour,
                        double knee_fraction, struct tradeoff *out)
{
    double base = 0;
    memset(out, 0, sizeof *out);
    out->rows = xcalloc(s->n ? s->n : 1, sizeof *out->rows);
    out->n = s->n;
    out->tokens = tokens;
    out->usd_per_gpu_hour = usd_per_gpu_hour;
    out->knee_fraction = knee_fraction;
    out->partial = s->stats.partial;
    for (size_t i = 0; i < s->n; i++) {
        struct tradeoff_row *row = &out->rows[i];
        double hours;
        row->gpus = s->per_gpu[i].gpus;
        row->feasible = s->per_gpu[i].n_hits > 0;
        if (!row->feasible)
            continue;
        row->plan = s->per_gpu[i].hits[0].plan;
        row->r = s->per_gpu[i].results[0];
        hours = tokens / row->r.tokens_per_s / 3600.0;
        row->days = hours / 24.0;
        row->gpu_hours = hours * (double)row->gpus;
        row->cost_usd = row->gpu_hours * usd_per_gpu_hour;
        row->power_w = res_gpu_power_w(&c->hw, &row->r);
        row->energy_kwh = row->power_w * row->gpu_hours / 1000.0;
        if (base == 0)
            base = row->r.tokens_per_s / (double)row->gpus;
        row->scaling = row->r.tokens_per_s / (double)row->gpus / base;
    }
    res_tradeoff_mark(out);
}

void res_tradeoff_mark(struct tradeoff *t)
{
    mark_frontier(t);
    find_knee(t);
}

void res_tradeoff_release(struct tradeoff *t)
{
    free(t->rows);
    memset(t, 0, sizeof *t);
}

/* ---- writers ---- */

static void table_row(FILE *fp, const struct tradeoff *t, size_t i)
{
    const struct tradeoff_row *w = &t->rows[i];
    char key[96];
    if (!w->feasible) {
        fprintf(fp, "%7lld  %-32s\n", (long long)w->gpus, "(no feasible plan)");
        return;
    }
    plan_key(&w->plan, key, sizeof key);
    fprintf(fp, "%7lld  %-32s %8.3f %5.1f%% %9.2f %12.0f %14.0f %10.1f %6.0f "
            "%6.1f%%  %s\n", (long long)w->gpus, key, w->r.iteration_s,
            100 * w->r.mfu, w->days, w->gpu_hours, w->cost_usd,
            w->energy_kwh / 1000.0, w->power_w, 100 * w->scaling,
            (long)i == t->knee ? "yes, knee" : w->frontier ? "yes" : "");
}

static void table(FILE *fp, const struct pred_ctx *c, const struct tradeoff *t)
{
    fprintf(fp, "%s on %s (stack %s): %.4g tokens, seq %lld, gbs %lld, %s; "
            "$%.2f per GPU-hour\n\n", c->model.name, c->hw.name, c->stack,
            t->tokens,
            (long long)c->job.seq, (long long)c->job.gbs,
            job_precision_name(c->job.precision), t->usd_per_gpu_hour);
    fprintf(fp, "%7s  %-32s %8s %6s %9s %12s %14s %10s %6s %7s  %s\n", "GPUs",
            "plan", "iter s", "MFU", "days", "GPU-hours", "cost USD",
            "MWh", "W/GPU", "scaling", "frontier");
    for (size_t i = 0; i < t->n; i++)
        table_row(fp, t, i);
    if (t->knee >= 0)
        fprintf(fp, "\nknee: %lld GPUs; past it, doubling the GPUs saves less "
                "than %.0f %% of what perfect scaling would\n",
                (long long)t->rows[t->knee].gpus, 100 * t->knee_fraction);
    else
        fprintf(fp, "\nno knee: every doubling on the frontier saves at least "
                "%.0f %% of what perfect scaling would\n", 100 * t->knee_fraction);
    fputs("energy: GPU boards only (hosts, network and cooling not included)\n", fp);
    if (t->partial)
        fputs("partial: interrupted; the plans are the best found before the "
              "stop\n", fp);
}

static void csv(FILE *fp, const struct tradeoff *t)
{
    fputs("gpus,key,iteration_s,tokens_per_s,mfu,days,gpu_hours,cost_usd,"
          "energy_kwh,power_w_per_gpu,scaling,frontier,knee\n", fp);
    for (size_t i = 0; i < t->n; i++) {
        const struct tradeoff_row *w = &t->rows[i];
        char key[96] = "";
        if (!w->feasible) {
            fprintf(fp, "%lld,,,,,,,,,,,n,n\n", (long long)w->gpus);
            continue;
        }
        plan_key(&w->plan, key, sizeof key);
        fprintf(fp, "%lld,%s,%.6g,%.6g,%.4f,%.6g,%.6g,%.6g,%.6g,%.4g,%.4f,%s,%s\n",
                (long long)w->gpus, key, w->r.iteration_s, w->r.tokens_per_s,
                w->r.mfu, w->days, w->gpu_hours, w->cost_usd, w->energy_kwh,
                w->power_w, w->scaling, w->frontier ? "y" : "n",
                (long)i == t->knee ? "y" : "n");
    }
}

static json_t *json_of(const struct pred_ctx *c, const struct tradeoff *t)
{
    json_t *rows = json_array();
    for (size_t i = 0; i < t->n; i++) {
        const struct tradeoff_row *w = &t->rows[i];
        json_t *o = json_pack("{s:I, s:b}", "gpus", (json_int_t)w->gpus,
                              "feasible", w->feasible);
        if (w->feasible) {
            json_object_set_new(o, "plan", res_plan_json(c, &w->plan, &w->r));
            json_object_update_new(o, json_pack("{s:f, s:f, s:f, s:f, s:f, s:f, "
                "s:b, s:b}", "days", w->days, "gpu_hours", w->gpu_hours,
                "cost_usd", w->cost_usd, "energy_kwh", w->energy_kwh,
                "power_w_per_gpu", w->power_w, "scaling", w->scaling,
                "frontier", w->frontier, "knee", (long)i == t->knee));
        }
        json_array_append_new(rows, o);
    }
    return json_pack("{s:s, s:s, s:s, s:f, s:f, s:f, s:o, s:b, s:o}", "model",
                     c->model.name, "system", c->hw.name, "stack", c->stack,
                     "tokens", t->tokens,
                     "usd_per_gpu_hour", t->usd_per_gpu_hour,
                     "knee_fraction", t->knee_fraction,
                     "knee_gpus", t->knee >= 0
                     ? json_integer((json_int_t)t->rows[t->knee].gpus) : json_null(),
                     "partial", t->partial, "rows", rows);
}

/* ---- the writers of the report table (report.c) ---- */

int res_tradeoff_table(FILE *fp, const struct res_report *rep, struct tpl_err *err)
{
    (void)err;
    table(fp, rep->ctx, rep->u.tradeoff);
    return 0;
}

int res_tradeoff_csv(FILE *fp, const struct res_report *rep, struct tpl_err *err)
{
    (void)err;
    csv(fp, rep->u.tradeoff);
    return 0;
}

int res_tradeoff_json(FILE *fp, const struct res_report *rep, struct tpl_err *err)
{
    return res_json_emit(fp, json_of(rep->ctx, rep->u.tradeoff), err);
}
