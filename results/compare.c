/* results/compare.c: the comparison of systems (compare.h): its builder,
 * which searches the job on each system, and its writers. The breakdown is
 * folded into three shares people compare hardware by (pred_parts: compute
 * with recompute, communication with the optimizer step, pipeline bubble). */
#include "results/compare.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "results/batches.h"
#include "results/report.h"

struct shares { double compute, comm, bubble; };

static struct shares shares_of(const struct pred_result *r)
{
    double cls[PRED_CLASS_COUNT];
    pred_parts_fold(r->part_s, cls);
    return (struct shares){
        .compute = cls[PRED_CLASS_COMPUTE] / r->iteration_s,
        .comm = cls[PRED_CLASS_COMM] / r->iteration_s,
        .bubble = cls[PRED_CLASS_BUBBLE] / r->iteration_s,
    };
}

/* Speed-up of system s at row i against the first system: its days to
 * train over the first's (days, not iterations: the systems may differ in
 * reliability); NAN when either has no plan there (n/a, never 0). */
static double speedup(const struct compare *cmp, int s, size_t i)
{
    const struct tradeoff_row *a = &cmp->sys[0].t.rows[i];
    const struct tradeoff_row *b = &cmp->sys[s].t.rows[i];
    return a->feasible && b->feasible ? a->days / b->days : (double)NAN;
}

/* "1.23x", or "n/a" (table); "1.2300" or "" (CSV). Returns buf. */
static const char *speedup_text(double x, char *buf, size_t n)
{
    if (isnan(x))
        snprintf(buf, n, "n/a");
    else
        snprintf(buf, n, "%.2fx", x);
    return buf;
}

static bool partial(const struct compare *cmp)
{
    for (int s = 0; s < cmp->n; s++)
        if (cmp->sys[s].t.partial)
            return true;
    return false;
}

/* System s at GPU count i. */
static void table_row(FILE *fp, const struct compare *cmp, int s, size_t i)
{
    const struct tradeoff_row *w = &cmp->sys[s].t.rows[i];
    struct shares sh;
    char key[96], x[32];
    if (!w->feasible) {
        fprintf(fp, "  %-18s %-32s %6s %8s %8s", cmp->sys[s].label,
                w->stalled ? "(never finishes)" : "(no feasible plan)", "", "",
                "n/a");
        for (int k = 0; k < w->n_nearby; k++)
            fprintf(fp, "%s%lld", k ? ", " : "  batch sizes with a plan: ",
                    (long long)w->nearby[k]);
        fputc('\n', fp);
        return;
    }
    sh = shares_of(&w->r);
    plan_key(&w->plan, key, sizeof key);
    fprintf(fp, "  %-18s %-32s %6lld %8.3f %8s %9.2f %12.0f %9.1f %7.1f%% "
            "%5.1f%% %6.1f%%\n", cmp->sys[s].label, key, (long long)w->gbs,
            w->r.iteration_s,
            speedup_text(speedup(cmp, s, i), x, sizeof x), w->days,
            w->cost_usd, w->energy_kwh / 1000,
            100 * sh.compute, 100 * sh.comm, 100 * sh.bubble);
}

static void table(FILE *fp, const struct compare *cmp)
{
    const struct pred_ctx *c0 = &cmp->sys[0].ctx;
    const struct tradeoff *t0 = &cmp->sys[0].t;
    char gbs[64], tok[32];
    res_gbs_label(t0->gbs_min, t0->gbs_max, gbs, sizeof gbs);
    fprintf(fp, "%s (stack %s): seq %lld, %s, %s; %s tokens to train; "
            "speed-up against %s\n", c0->model.name, c0->stack,
            (long long)c0->job.seq, gbs, job_precision_name(c0->job.precision),
            res_tokens_text(cmp->sys[0].t.tokens, tok, sizeof tok),
            cmp->sys[0].label);
    for (size_t i = 0; i < cmp->sys[0].t.n; i++) {
        fprintf(fp, "\n%lld GPUs\n  %-18s %-32s %6s %8s %8s %9s %12s %9s %8s "
                "%6s %7s\n", (long long)cmp->sys[0].t.rows[i].gpus, "system",
                "plan", "gbs", "iter s", "speed-up", "days", "cost USD", "GPU MWh", "compute",
                "comm", "bubble");
        for (int s = 0; s < cmp->n; s++)
            table_row(fp, cmp, s, i);
    }
}

/* The flag of every system whose efficiencies are modelling defaults. */
static void table_notes(FILE *fp, const struct compare *cmp)
{
    bool first = true;
    for (int s = 0; s < cmp->n; s++) {
        if (cmp->sys[s].ctx.hw.calibrated)
            continue;
        fputs(first ? "\n" : "", fp);
        first = false;
        res_uncalibrated_note(fp, &cmp->sys[s].ctx.hw);
    }
    for (int s = 0; s < cmp->n; s++)
        if (cmp->sys[s].t.unsuggested)
            fprintf(fp, "%s: %zu GPU counts have no plan: too many to search "
                    "nearby batch sizes for (at most %d)\n", cmp->sys[s].label,
                    cmp->sys[s].t.unsuggested, RES_SUGGEST_MAX);
    fputs("\nspeed-up: days to train on the first system over days on this "
          "one (interruptions included); n/a where either has no plan\n", fp);
}

static void csv_row(FILE *fp, const struct compare *cmp, int s, size_t i)
{
    const struct compare_system *sys = &cmp->sys[s];
    const struct tradeoff_row *w = &sys->t.rows[i];
    struct shares sh;
    char key[96];
    fprintf(fp, "%lld,%lld,%lld,%s,%s", (long long)w->gpus,
            (long long)res_nodes(&sys->ctx.hw, w->gpus),
            (long long)sys->ctx.hw.gpus_per_node, sys->label, sys->ctx.stack);
    if (!w->feasible)
        fputs(",,,,,,,,,,,", fp);
    else {
        const double v[] = { w->days, w->gpu_hours, w->cost_usd, w->energy_kwh };
        sh = shares_of(&w->r);
        plan_key(&w->plan, key, sizeof key);
        fprintf(fp, ",%s", key);
        res_csv_num(fp, w->r.iteration_s);
        res_csv_num(fp, speedup(cmp, s, i));    /* NaN: an empty cell */
        for (size_t k = 0; k < sizeof v / sizeof *v; k++)
            res_csv_num(fp, v[k]);
        res_csv_num(fp, w->node_energy_kwh > 0 ? w->node_energy_kwh : (double)NAN);
        res_csv_num(fp, sh.compute);
        res_csv_num(fp, sh.comm);
        res_csv_num(fp, sh.bubble);
    }
    res_csv_bool(fp, sys->ctx.hw.calibrated);
    if (w->feasible)
        fprintf(fp, ",%lld", (long long)w->gbs);
    else
        fputc(',', fp);
    fprintf(fp, ",%d\n", RES_SCHEMA_VERSION);
}

static void csv(FILE *fp, const struct compare *cmp)
{
    fputs("gpus,nodes,gpus_per_node,system,stack,key,iteration_s,speedup,days,"
          "gpu_hours,cost_usd,energy_kwh,node_energy_kwh,compute_share,"
          "comm_share,bubble_share,calibrated,gbs,schema_version\n", fp);
    for (size_t i = 0; i < cmp->sys[0].t.n; i++)
        for (int s = 0; s < cmp->n; s++)
            csv_row(fp, cmp, s, i);
}

/* System s at GPU count i. */
static json_t *json_system(const struct compare *cmp, int s, size_t i)
{
    const struct tradeoff_row *w = &cmp->sys[s].t.rows[i];
    double x = speedup(cmp, s, i);
    json_t *o = json_pack("{s:s, s:b, s:b, s:o}", "system", cmp->sys[s].label,
                          "calibrated", cmp->sys[s].ctx.hw.calibrated,
                          "feasible", w->feasible,
                          "speedup", isnan(x) ? json_null() : json_real(x));
    static struct pred_ctx cb;          /* the row's batch; large */
    struct shares sh;
    if (!w->feasible) {
        res_json_nearby(o, w->nearby, w->n_nearby);
        return o;
    }
    sh = shares_of(&w->r);
    res_ctx_with_gbs(&cmp->sys[s].ctx, w->gbs, &cb);
    json_object_set_new(o, "best", res_plan_json(&cb, &w->plan, &w->r));
    json_object_update_new(o, json_pack("{s:f, s:f, s:f, s:f, s:f, "
        "s:{s:f, s:f, s:f}}", "goodput", w->g.fraction,
        "days", w->days, "gpu_hours", w->gpu_hours,
        "cost_usd", w->cost_usd, "energy_kwh", w->energy_kwh,
        "shares", "compute", sh.compute, "comm", sh.comm,
        "bubble", sh.bubble));
    json_object_set_new(o, "node_energy_kwh", w->node_energy_kwh > 0
                        ? json_real(w->node_energy_kwh) : json_null());
    return o;
}

static json_t *json_of(const struct compare *cmp)
{
    json_t *rows = json_array();
    for (size_t i = 0; i < cmp->sys[0].t.n; i++) {
        json_t *systems = json_array();
        for (int s = 0; s < cmp->n; s++)
            json_array_append_new(systems, json_system(cmp, s, i));
        json_array_append_new(rows, json_pack("{s:I, s:o}", "gpus",
            (json_int_t)cmp->sys[0].t.rows[i].gpus, "systems", systems));
    }
    return json_pack("{s:s, s:f, s:b, s:o}", "model", cmp->sys[0].ctx.model.name,
                     "tokens", cmp->sys[0].t.tokens, "partial", partial(cmp),
                     "rows", rows);
}

/* ---- the writers of the report table (report.c) ---- */

int res_compare_table(FILE *fp, const struct res_report *rep, struct tpl_err *err)
{
    (void)err;
    table(fp, rep->u.compare);
    table_notes(fp, rep->u.compare);
    if (partial(rep->u.compare))
        fputs("\npartial: interrupted; the plans are the best found before "
              "the stop\n", fp);
    return 0;
}

int res_compare_csv(FILE *fp, const struct res_report *rep, struct tpl_err *err)
{
    (void)err;
    csv(fp, rep->u.compare);
    return 0;
}

int res_compare_json(FILE *fp, const struct res_report *rep, struct tpl_err *err)
{
    return res_json_emit(fp, json_of(rep->u.compare), err);
}

/* ---- the builder ---- */

/* Search the job at batch gbs on the system set up in cs and build its
 * rows into t. */
static int search_batch(struct compare_system *cs, const struct hw_system *hw,
                        const struct compare_job *job, int64_t gbs,
                        struct tradeoff *t, struct tpl_err *err)
{
    struct job jb = *job->job;
    struct search_result res;
    struct search_cfg cfg;
    int rc;
    jb.gbs = gbs;
    pred_ctx_init(&cs->ctx, job->model, hw, &jb, job->space->tp_cross_node);
    pred_ctx_headroom(&cs->ctx, job->headroom);
    if (job->stack_limits)              /* else: any stack, unnamed */
        pred_ctx_set_stack(&cs->ctx, job->stack, job->stack_limits, job->band);
    cfg = (struct search_cfg){ .ctx = &cs->ctx, .space = job->space,
        .gpus = job->gpus, .n_gpus = job->n_gpus, .top_k = 1,
        .stop = job->stop, .progress = job->progress,
        .progress_arg = job->progress_arg };
    if ((rc = search_run(&cfg, &res, err)))
        return rc;
    res_tradeoff_build(&cs->ctx, &res, job->tokens, hw->usd_per_gpu_hour, 0.5, t);
    search_result_release(&res);
    return 0;
}

/* Load one system, search it at each batch and keep its best rows; where
 * a count has no plan, the batch sizes that would have one. */
static int compare_one(struct compare_system *cs, const struct compare_entry *e,
                       const struct compare_job *job, struct tpl_err *err)
{
    struct hw_system hw;
    int n = job->n_gbs > 0 ? job->n_gbs : 1;
    int rc = hw_system_load(&hw, e->system, e->sets, e->n_sets, err);
    if (rc && strcmp(e->label, e->system) && !strncmp(err->msg, "--set ", 6)) {
        char msg[sizeof err->msg];      /* a variant's own assignment */
        snprintf(msg, sizeof msg, "%s", err->msg + 6);
        tpl_errorf(err, rc, "--variant %s: %s", e->label, msg);
    }
    if (rc || (rc = pred_precision_check(&hw, job->job, err)))
        return rc;
    snprintf(cs->label, sizeof cs->label, "%s", e->label);
    rc = search_batch(cs, &hw, job, job->n_gbs ? job->gbs[0] : job->job->gbs,
                      &cs->t, err);
    for (int b = 1; rc == 0 && b < n && !(job->stop && *job->stop); b++) {
        struct tradeoff tb;
        if ((rc = search_batch(cs, &hw, job, job->gbs[b], &tb, err)) == 0) {
            res_tradeoff_pick(&cs->t, &tb);
            res_tradeoff_release(&tb);
        }
    }
    if (rc == 0 && !(job->stop && *job->stop))
        rc = res_tradeoff_suggest(&cs->t, &cs->ctx, job->space, err);
    return rc;
}

int res_compare_build(const struct compare_job *job,
                      const struct compare_entry *entries, int n,
                      struct compare *cmp, struct tpl_err *err)
{
    int rc = 0;
    memset(cmp, 0, sizeof *cmp);
    if (n > RES_COMPARE_MAX)
        return tpl_errorf(err, TPL_EUSAGE, "at most %d systems", RES_COMPARE_MAX);
    for (int i = 0; i < n && rc == 0; i++) {
        rc = compare_one(&cmp->sys[cmp->n], &entries[i], job, err);
        cmp->n += rc == 0;
    }
    return rc;
}

bool res_compare_feasible(const struct compare *cmp)
{
    for (int s = 0; s < cmp->n; s++)
        for (size_t i = 0; i < cmp->sys[s].t.n; i++)
            if (cmp->sys[s].t.rows[i].feasible)
                return true;
    return false;
}

void res_compare_release(struct compare *cmp)
{
    for (int s = 0; s < cmp->n; s++)
        res_tradeoff_release(&cmp->sys[s].t);
    cmp->n = 0;
}
