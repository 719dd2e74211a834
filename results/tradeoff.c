/* results/tradeoff.c: time to train, GPU-hours, cost and energy per GPU
 * count, the frontier and its knee (see tradeoff.h). */
#include "results/tradeoff.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "common/alloc.h"
#include "results/batches.h"
#include "results/report.h"

/* ---- power ----
 * A GPU draws gpu_busy_frac of its TDP while it computes and gpu_idle_frac
 * while it waits (communication, bubble), weighted by the compute share of
 * the iteration; the fractions and their sources are the system file's
 * power section (hardware/hw.c). A node adds what is not its GPUs: its
 * measured training draw (node_kw x node_train_frac, measured with the GPUs
 * computing) less its GPUs at the busy draw, a constant for hosts, NICs,
 * switches and fans. */
double res_gpu_power_w(const struct hw_system *hw, const struct pred_result *r)
{
    double cls[PRED_CLASS_COUNT], busy;
    pred_parts_fold(r->part_s, cls);
    busy = cls[PRED_CLASS_COMPUTE] / r->iteration_s;
    return hw->tdp_w * (hw->gpu_idle_frac +
                        (hw->gpu_busy_frac - hw->gpu_idle_frac) * busy);
}

double res_node_power_w_per_gpu(const struct hw_system *hw,
                                const struct pred_result *r)
{
    double rest;
    if (hw->node_w <= 0)
        return 0;
    rest = hw->node_w * hw->node_train_frac / (double)hw->gpus_per_node -
           hw->tdp_w * hw->gpu_busy_frac;
    return (rest > 0 ? rest : 0) + res_gpu_power_w(hw, r);
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

/* What training the row's tokens takes on its best plan: every hour
 * training, then with the expected interruptions (goodput.h). */
static void fill_row(const struct pred_ctx *c, const struct tradeoff *t,
                     struct tradeoff_row *row)
{
    double hours = t->tokens / row->r.tokens_per_s / 3600.0;
    row->days_ideal = hours / 24.0;
    row->gpu_hours_ideal = hours * (double)row->gpus;
    res_goodput_of(&c->hw, &c->model, row->gpus, &row->g);
    if (row->g.fraction < 1e-9) {       /* never finishes: no figures */
        row->feasible = false;
        row->stalled = true;
        return;
    }
    row->days = row->days_ideal / row->g.fraction;
    row->gpu_hours = row->gpu_hours_ideal / row->g.fraction;
    row->cost_usd = row->gpu_hours * t->usd_per_gpu_hour;
    row->power_w = res_gpu_power_w(&c->hw, &row->r);
    row->energy_kwh = row->power_w * row->gpu_hours / 1000.0;
    row->node_power_w = res_node_power_w_per_gpu(&c->hw, &row->r);
    row->node_energy_kwh = row->node_power_w * row->gpu_hours / 1000.0;
}

static void finish(struct tradeoff *t);

double res_tradeoff_vs_published(const struct tradeoff *t, size_t i)
{
    const struct tradeoff_row *w = &t->rows[i];
    if (t->published_gpu_hours <= 0 || !w->feasible)
        return NAN;
    return w->gpu_hours / t->published_gpu_hours - 1;
}

/* Trained tokens/s per GPU: what scaling compares. */
static double per_gpu(const struct tradeoff_row *w)
{
    return w->r.tokens_per_s * w->g.fraction / (double)w->gpus;
}

void res_tradeoff_build(const struct pred_ctx *c, const struct search_result *s,
                        double tokens, double usd_per_gpu_hour,
                        double knee_fraction, struct tradeoff *out)
{
    memset(out, 0, sizeof *out);
    out->rows = xcalloc(s->n ? s->n : 1, sizeof *out->rows);
    out->n = s->n;
    out->tokens = tokens;
    out->usd_per_gpu_hour = usd_per_gpu_hour;
    out->knee_fraction = knee_fraction;
    out->partial = s->stats.partial;
    out->gbs_min = out->gbs_max = c->job.gbs;
    for (size_t i = 0; i < s->n; i++) {
        struct tradeoff_row *row = &out->rows[i];
        row->gpus = s->per_gpu[i].gpus;
        row->gbs = c->job.gbs;
        row->feasible = s->per_gpu[i].n_hits > 0;
        if (!row->feasible)
            continue;
        row->plan = s->per_gpu[i].hits[0].plan;
        row->r = s->per_gpu[i].results[0];
        row->warn = res_batch_warnings(&row->plan, &row->r);
        fill_row(c, out, row);
    }
    finish(out);
}

void res_tradeoff_pick(struct tradeoff *t, const struct tradeoff *other)
{
    for (size_t i = 0; i < t->n && i < other->n; i++) {
        struct tradeoff_row *a = &t->rows[i];
        const struct tradeoff_row *b = &other->rows[i];
        if (b->feasible ? !a->feasible || b->days < a->days
                        : !a->feasible && !a->stalled && b->stalled)
            *a = *b;
    }
    t->gbs_min = t->gbs_min < other->gbs_min ? t->gbs_min : other->gbs_min;
    t->gbs_max = t->gbs_max > other->gbs_max ? t->gbs_max : other->gbs_max;
    t->partial = t->partial || other->partial;
    finish(t);
}

int res_tradeoff_suggest(struct tradeoff *t, const struct pred_ctx *c,
                         const struct space *space, struct tpl_err *err)
{
    static struct pred_ctx cb;          /* large: not on the stack */
    size_t none = 0;
    for (size_t i = 0; i < t->n; i++)
        none += !t->rows[i].feasible && !t->rows[i].stalled;
    if (none > RES_SUGGEST_MAX) {
        t->unsuggested = none;
        return 0;
    }
    for (size_t i = 0; i < t->n; i++) {
        struct tradeoff_row *w = &t->rows[i];
        int n;
        if (w->feasible || w->stalled)
            continue;
        res_ctx_with_gbs(c, w->gbs, &cb);
        if ((n = res_batches_nearby(&cb, space, w->gpus, w->nearby, 3, err)) < 0)
            return n;
        w->n_nearby = n;
    }
    return 0;
}

int res_tradeoff_reference(struct tradeoff *t, int64_t gpus)
{
    for (size_t i = 0; i < t->n; i++) {
        if (t->rows[i].gpus != gpus)
            continue;
        if (!t->rows[i].feasible)
            return -1;
        t->reference = (long)i;
        for (size_t k = 0; k < t->n; k++)
            if (t->rows[k].feasible)
                t->rows[k].scaling = per_gpu(&t->rows[k]) / per_gpu(&t->rows[i]);
        return 0;
    }
    return -1;
}

/* GPU-seconds per million trained tokens that part p of row w costs. */
static double part_cost(const struct tradeoff_row *w, int p)
{
    double tokens_per_iter = w->r.tokens_per_s * w->r.iteration_s;
    return 1e6 * w->r.part_s[p] * (double)w->gpus / tokens_per_iter;
}

enum pred_part res_tradeoff_relief(const struct tradeoff_row *a,
                                   const struct tradeoff_row *b,
                                   double *cost_a, double *cost_b)
{
    enum pred_part best = PRED_PART_COMPUTE;
    double drop = -HUGE_VAL;
    for (int p = 0; p < PRED_PART_COUNT; p++)
        if (part_cost(a, p) - part_cost(b, p) > drop) {
            drop = part_cost(a, p) - part_cost(b, p);
            best = (enum pred_part)p;
            *cost_a = part_cost(a, p);
            *cost_b = part_cost(b, p);
        }
    return best;
}

/* Reference (the smallest feasible count), frontier, knee. */
static void finish(struct tradeoff *t)
{
    t->reference = -1;
    for (size_t i = 0; i < t->n && t->reference < 0; i++)
        if (t->rows[i].feasible)
            res_tradeoff_reference(t, t->rows[i].gpus);
    res_tradeoff_mark(t);
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

static const char *frontier_mark(const struct tradeoff *t, size_t i)
{
    return (long)i == t->knee ? "yes, knee" : t->rows[i].frontier ? "yes" : "";
}

static void table_row(FILE *fp, const struct tradeoff *t, size_t i)
{
    const struct tradeoff_row *w = &t->rows[i];
    char key[96];
    if (w->stalled) {
        fprintf(fp, "%7lld  %-46s interrupted every %.0f s on average, restart "
                "%.0f s: no progress\n", (long long)w->gpus, "(never finishes)",
                w->g.mtbf_s, w->g.restart_s);
        return;
    }
    if (!w->feasible) {
        fprintf(fp, "%7lld  %-46s", (long long)w->gpus, "(no feasible plan)");
        for (int k = 0; k < w->n_nearby; k++)
            fprintf(fp, "%s%lld", k ? ", " : "  batch sizes with a plan: ",
                    (long long)w->nearby[k]);
        fputc('\n', fp);
        return;
    }
    plan_key(&w->plan, key, sizeof key);
    fprintf(fp, "%7lld  %-46s %6lld %8.3f %5.1f%% %6.1f%% %9.2f %9.2f %12.0f "
            "%14.0f %8.1f %6.0f ", (long long)w->gpus, key,
            (long long)w->gbs, w->r.iteration_s, 100 * w->r.mfu,
            100 * w->g.fraction, w->days_ideal, w->days, w->gpu_hours,
            w->cost_usd, w->energy_kwh / 1000.0, w->power_w);
    if (w->node_energy_kwh > 0)
        fprintf(fp, "%8.1f", w->node_energy_kwh / 1000.0);
    else
        fprintf(fp, "%8s", "-");
    fprintf(fp, " %6.1f%%  %s\n", 100 * w->scaling, frontier_mark(t, i));
}

/* Consecutive counts without a plan and without nearby batch sizes to
 * name fold into one line ("8..56"), as in search's table (nofeasible.h). */
static bool bare_none(const struct tradeoff_row *w)
{
    return !w->feasible && !w->stalled && w->n_nearby == 0;
}

static size_t none_run_end(const struct tradeoff *t, size_t i)
{
    size_t end = i;
    while (end < t->n && bare_none(&t->rows[end]))
        end++;
    return end;
}

static const char *none_span(const struct tradeoff *t, size_t i, size_t end)
{
    static char buf[48];
    snprintf(buf, sizeof buf, "%lld..%lld", (long long)t->rows[i].gpus,
             (long long)t->rows[end - 1].gpus);
    return buf;
}

/* What goodput assumed, once: the system's fields and the state written. */
/* What the energy columns count: the boards' (per-GPU sources) and the
 * whole nodes' where the system gives a node power. */
static void table_energy(FILE *fp, const struct pred_ctx *c)
{
    fprintf(fp, "energy: GPU MWh and W/GPU are the GPU boards' (%.0f-%.0f %% "
            "of TDP by compute share: power.gpu_idle_frac, gpu_busy_frac); ",
            100 * c->hw.gpu_idle_frac, 100 * c->hw.gpu_busy_frac);
    if (c->hw.node_w <= 0) {
        fputs("node MWh: no node power in the system file (power.node_kw), "
              "so hosts and network are not counted; cooling never is\n", fp);
        return;
    }
    fprintf(fp, "node MWh the whole nodes' (%.1f kW rated, %.0f %% of it "
            "training: power.node_kw, node_train_frac: GPUs, hosts, NICs, "
            "switches, fans; cooling not included)\n", c->hw.node_w / 1e3,
            100 * c->hw.node_train_frac);
}

/* Each count's GPU-hours against a published figure, and the nearest. */
static void table_published(FILE *fp, const struct tradeoff *t)
{
    long best = -1;
    fprintf(fp, "published: %.2f M GPU-hours (--published-gpu-hours); "
            "predicted against it:", t->published_gpu_hours / 1e6);
    for (size_t i = 0; i < t->n; i++) {
        double d = res_tradeoff_vs_published(t, i);
        if (isnan(d))
            continue;
        fprintf(fp, "%s %lld GPUs %+.1f %%", best < 0 ? "" : ",",
                (long long)t->rows[i].gpus, 100 * d);
        if (best < 0 || fabs(d) < fabs(res_tradeoff_vs_published(t, (size_t)best)))
            best = (long)i;
    }
    if (best >= 0)
        fprintf(fp, "; nearest at %lld GPUs (%.2f M)",
                (long long)t->rows[best].gpus, t->rows[best].gpu_hours / 1e6);
    fputc('\n', fp);
}

static void table_goodput(FILE *fp, const struct pred_ctx *c,
                          const struct tradeoff *t)
{
    const struct tradeoff_row *w = t->reference >= 0 ? &t->rows[t->reference]
                                                     : NULL;
    fprintf(fp, "goodput: an interruption every %.0f GPU-hours stops the job "
            "(reliability.gpu_mtbf_hours), restart %.1f min "
            "(reliability.restart_min); ", c->hw.gpu_mtbf_s / 3600,
            c->hw.restart_s / 60);
    if (w)
        fprintf(fp, "checkpoints of %.0f GB written at %.0f GB/s "
                "(reliability.storage_gbs) in %.2f s, every %.1f min at %lld "
                "GPUs (Daly 2006); ", w->g.state_bytes / 1e9,
                c->hw.storage_bytes_per_s / 1e9, w->g.write_s,
                w->g.interval_s / 60, (long long)w->gpus);
    fputs("days are wall-clock, with interruptions; ideal days assume every "
          "hour trains\n", fp);
}

/* The reference, and why a count scales above 100 %. */
static void table_scaling(FILE *fp, const struct tradeoff *t)
{
    const struct tradeoff_row *a;
    int shown = 0, more = 0;
    if (t->reference < 0)
        return;
    a = &t->rows[t->reference];
    fprintf(fp, "scaling: trained tokens/s per GPU against %lld GPUs\n",
            (long long)a->gpus);
    for (size_t i = 0; i < t->n; i++) {
        const struct tradeoff_row *b = &t->rows[i];
        double sa = 0, sb = 0;
        enum pred_part p;
        if (!b->feasible || b->scaling <= 1.0005 || (shown == 5 && ++more))
            continue;
        shown++;
        p = res_tradeoff_relief(a, b, &sa, &sb);
        fprintf(fp, "  above 100 %% at %lld GPUs (%.1f %%): its plan spends "
                "%.1f GPU-s per million tokens in %s against %.1f at %lld, the "
                "largest saving of its layout\n", (long long)b->gpus,
                100 * b->scaling, sb, pred_part_name(p), sa, (long long)a->gpus);
    }
    if (more)
        fprintf(fp, "  and %d more counts above 100 %%\n", more);
}

/* A plan's batch warnings, one line each (the first 8). */
static void table_warnings(FILE *fp, const struct tradeoff *t)
{
    int shown = 0, more = 0;
    for (size_t i = 0; i < t->n; i++) {
        const struct tradeoff_row *w = &t->rows[i];
        if (!w->feasible || !w->warn || (shown == 8 && ++more))
            continue;
        shown++;
        if (w->warn & RES_WARN_FEW_MICROBATCHES)
            fprintf(fp, "warning: %lld GPUs: %lld micro-batches for %d "
                    "pipeline stages: the bubble is at least half of the "
                    "pipeline's time; a larger batch would fill it\n",
                    (long long)w->gpus, (long long)w->r.microbatches,
                    (int)w->plan.pp);
        if (w->warn & RES_WARN_DP_AT_BATCH)
            fprintf(fp, "warning: %lld GPUs: data parallelism at the batch's "
                    "limit (dp %d x mbs %d = gbs %lld): more GPUs add no data "
                    "parallelism at this batch\n", (long long)w->gpus,
                    (int)w->plan.dp, (int)w->plan.mbs, (long long)w->gbs);
    }
    if (more)
        fprintf(fp, "warning: and %d more GPU counts (the JSON has each)\n", more);
}

static int frontier_count(const struct tradeoff *t)
{
    int n = 0;
    for (size_t i = 0; i < t->n; i++)
        n += t->rows[i].frontier;
    return n;
}

static int feasible_count(const struct tradeoff *t)
{
    int n = 0;
    for (size_t i = 0; i < t->n; i++)
        n += t->rows[i].feasible;
    return n;
}

static void table_knee(FILE *fp, const struct tradeoff *t)
{
    if (t->knee >= 0)
        fprintf(fp, "knee: %lld GPUs; past it, doubling the GPUs saves less "
                "than %.0f %% of what perfect scaling would\n",
                (long long)t->rows[t->knee].gpus, 100 * t->knee_fraction);
    else if (frontier_count(t) < 2)
        fputs(feasible_count(t) < 2
              ? "no knee: fewer than two GPU counts have a plan\n"
              : "no knee: one GPU count is on the frontier (no other finishes "
                "sooner or costs less)\n", fp);
    else
        fprintf(fp, "no knee in this range (%lld..%lld GPUs): every doubling on "
                "the frontier saves at least %.0f %% of what perfect scaling "
                "would\n", (long long)t->rows[0].gpus,
                (long long)t->rows[t->n - 1].gpus, 100 * t->knee_fraction);
}

static void table(FILE *fp, const struct pred_ctx *c, const struct tradeoff *t)
{
    char gbs[64], tok[32];
    res_gbs_label(t->gbs_min, t->gbs_max, gbs, sizeof gbs);
    fprintf(fp, "%s on %s (stack %s): %s tokens, seq %lld, %s, %s; "
            "$%.2f per GPU-hour\n\n", c->model.name, c->hw.name, c->stack,
            res_tokens_text(t->tokens, tok, sizeof tok), (long long)c->job.seq, gbs,
            job_precision_name(c->job.precision), t->usd_per_gpu_hour);
    fprintf(fp, "%7s  %-46s %6s %8s %6s %7s %9s %9s %12s %14s %8s %6s %8s %7s  "
            "%s\n", "GPUs", "plan", "gbs", "iter s", "MFU", "goodput", "ideal d",
            "days", "GPU-hours", "cost USD", "GPU MWh", "W/GPU", "node MWh",
            "scaling", "frontier");
    for (size_t i = 0, end; i < t->n; i = end)
        if ((end = none_run_end(t, i)) - i > 1)
            fprintf(fp, "%7s  (no feasible plan at these %zu counts)\n",
                    none_span(t, i, end), end - i);
        else
            table_row(fp, t, end++);
    fputc('\n', fp);
    table_warnings(fp, t);
    if (t->unsuggested)
        fprintf(fp, "%zu GPU counts have no plan: too many to search nearby "
                "batch sizes for (at most %d)\n", t->unsuggested, RES_SUGGEST_MAX);
    table_knee(fp, t);
    table_scaling(fp, t);
    table_goodput(fp, c, t);
    table_energy(fp, c);
    if (t->published_gpu_hours > 0)
        table_published(fp, t);
    res_uncalibrated_note(fp, &c->hw);
    if (t->partial)
        fputs("partial: interrupted; the plans are the best found before the "
              "stop\n", fp);
}

static const char csv_head[] =
    "gpus,nodes,gpus_per_node,key,iteration_s,tokens_per_s,mfu,days,gpu_hours,"
    "cost_usd,energy_kwh,power_w_per_gpu,node_energy_kwh,scaling,frontier,"
    "knee,goodput,days_ideal,gpu_hours_ideal,job_mtbf_s,checkpoint_write_s,"
    "checkpoint_interval_s,gbs,tokens_per_batch,node_power_w_per_gpu,"
    "gpu_hours_vs_published,calibrated,schema_version\n";

/* A feasible row's figures, from iteration_s to checkpoint_interval_s. */
static void csv_figures(FILE *fp, const struct tradeoff *t, size_t i)
{
    const struct tradeoff_row *w = &t->rows[i];
    const double a[] = { w->r.iteration_s, w->r.tokens_per_s, w->r.mfu,
                         w->days, w->gpu_hours, w->cost_usd, w->energy_kwh,
                         w->power_w };
    const double b[] = { w->g.fraction, w->days_ideal, w->gpu_hours_ideal,
                         w->g.mtbf_s, w->g.write_s, w->g.interval_s };
    for (size_t k = 0; k < sizeof a / sizeof *a; k++)
        res_csv_num(fp, a[k]);
    res_csv_num(fp, w->node_energy_kwh > 0 ? w->node_energy_kwh : (double)NAN);
    res_csv_num(fp, w->scaling);
    res_csv_bool(fp, w->frontier);
    res_csv_bool(fp, (long)i == t->knee);
    for (size_t k = 0; k < sizeof b / sizeof *b; k++)
        res_csv_num(fp, b[k]);
}

static void csv(FILE *fp, const struct pred_ctx *c, const struct tradeoff *t)
{
    fputs(csv_head, fp);
    for (size_t i = 0; i < t->n; i++) {
        const struct tradeoff_row *w = &t->rows[i];
        char key[96] = "";
        fprintf(fp, "%lld,%lld,%lld", (long long)w->gpus,
                (long long)res_nodes(&c->hw, w->gpus),
                (long long)c->hw.gpus_per_node);
        if (!w->feasible)
            fputs(",,,,,,,,,,,,false,false,,,,,,,,,,", fp);
        else {
            plan_key(&w->plan, key, sizeof key);
            fprintf(fp, ",%s", key);
            csv_figures(fp, t, i);
            fprintf(fp, ",%lld,%lld", (long long)w->gbs,
                    (long long)(w->gbs * c->job.seq));
            res_csv_num(fp, w->node_power_w > 0 ? w->node_power_w : (double)NAN);
            res_csv_num(fp, res_tradeoff_vs_published(t, i));
        }
        res_csv_bool(fp, c->hw.calibrated);
        fprintf(fp, ",%d\n", RES_SCHEMA_VERSION);
    }
}

static json_t *json_goodput(const struct goodput *g)
{
    return json_pack("{s:f, s:f, s:f, s:f, s:f, s:f}", "fraction", g->fraction,
                     "job_mtbf_s", g->mtbf_s, "restart_s", g->restart_s,
                     "checkpoint_bytes", g->state_bytes,
                     "checkpoint_write_s", g->write_s,
                     "checkpoint_interval_s", g->interval_s);
}

static json_t *json_row(const struct pred_ctx *c, const struct tradeoff *t,
                        size_t i)
{
    static struct pred_ctx cb;          /* the row's batch; large */
    const struct tradeoff_row *w = &t->rows[i];
    json_t *o = json_pack("{s:I, s:b, s:b, s:I}", "gpus", (json_int_t)w->gpus,
                          "feasible", w->feasible, "stalled", w->stalled,
                          "gbs", (json_int_t)w->gbs);
    if (w->feasible || w->stalled)
        json_object_set_new(o, "goodput", json_goodput(&w->g));
    if (!w->feasible) {
        res_json_nearby(o, w->nearby, w->n_nearby);
        return o;
    }
    res_ctx_with_gbs(c, w->gbs, &cb);
    /* "best", not "plan": its own "plan" object holds the key and degrees */
    json_object_set_new(o, "best", res_plan_json(&cb, &w->plan, &w->r));
    json_object_set_new(o, "warnings", json_pack("{s:b, s:b}",
        "few_microbatches", (w->warn & RES_WARN_FEW_MICROBATCHES) != 0,
        "dp_at_batch", (w->warn & RES_WARN_DP_AT_BATCH) != 0));
    json_object_update_new(o, json_pack("{s:f, s:f, s:f, s:f, s:f, s:f, s:f, "
        "s:f, s:b, s:b}", "days", w->days, "gpu_hours", w->gpu_hours,
        "days_ideal", w->days_ideal, "gpu_hours_ideal", w->gpu_hours_ideal,
        "cost_usd", w->cost_usd, "energy_kwh", w->energy_kwh,
        "power_w_per_gpu", w->power_w, "scaling", w->scaling,
        "frontier", w->frontier, "knee", (long)i == t->knee));
    json_object_set_new(o, "node_energy_kwh", w->node_energy_kwh > 0
                        ? json_real(w->node_energy_kwh) : json_null());
    json_object_set_new(o, "node_power_w_per_gpu", w->node_power_w > 0
                        ? json_real(w->node_power_w) : json_null());
    json_object_set_new(o, "gpu_hours_vs_published", t->published_gpu_hours > 0
                        ? json_real(res_tradeoff_vs_published(t, i)) : json_null());
    json_object_set_new(o, "calibrated", json_boolean(c->hw.calibrated));
    return o;
}

static json_t *row_gpus(const struct tradeoff *t, long i)
{
    return i >= 0 ? json_integer((json_int_t)t->rows[i].gpus) : json_null();
}

static json_t *json_of(const struct pred_ctx *c, const struct tradeoff *t)
{
    json_t *rows = json_array(), *o;
    for (size_t i = 0; i < t->n; i++)
        json_array_append_new(rows, json_row(c, t, i));
    o = json_pack("{s:s, s:s, s:s, s:b, s:f, s:f, s:f, s:o, s:o, "
                     "s:{s:f, s:f, s:f}, s:b, s:o}", "model",
                     c->model.name, "system", c->hw.name, "stack", c->stack,
                     "calibrated", c->hw.calibrated, "tokens", t->tokens,
                     "usd_per_gpu_hour", t->usd_per_gpu_hour,
                     "knee_fraction", t->knee_fraction,
                     "knee_gpus", row_gpus(t, t->knee),
                     "reference_gpus", row_gpus(t, t->reference),
                     "reliability", "gpu_mtbf_hours", c->hw.gpu_mtbf_s / 3600,
                     "storage_gbs", c->hw.storage_bytes_per_s / 1e9,
                     "restart_min", c->hw.restart_s / 60,
                     "partial", t->partial, "rows", rows);
    json_object_set_new(o, "published_gpu_hours", t->published_gpu_hours > 0
                        ? json_real(t->published_gpu_hours) : json_null());
    return o;
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
    csv(fp, rep->ctx, rep->u.tradeoff);
    return 0;
}

int res_tradeoff_json(FILE *fp, const struct res_report *rep, struct tpl_err *err)
{
    return res_json_emit(fp, json_of(rep->ctx, rep->u.tradeoff), err);
}
