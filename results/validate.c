/* results/validate.c: the writers of a fidelity report (fidelity/fidelity.h):
 * per-row table with a summary of error, ranking and memory statistics,
 * CSV rows, and JSON rows with the summary. They only format: the numbers
 * come from fidelity/. */
#include "results/validate.h"

#include "results/report.h"

#include <math.h>
#include <string.h>

/* ---- reports ---- */

static void table_rows(FILE *fp, const struct fid_report *v)
{
    fprintf(fp, "%-18s %-13s %-14s %6s %-28s %10s %10s %8s %8s %4s %8s %3s  %s\n",
            "id", "source", "system", "gpus", "plan", "measured s", "predict s",
            "error %", "pred GiB", "fits", "meas GiB", "oom", "note");
    for (size_t i = 0; i < v->n; i++) {
        const struct fid_row *o = &v->rows[i];
        const struct run_row *r = o->run;
        char plan[64], meas[16] = "-", pred[16] = "-", err[16] = "-";
        char pmem[16] = "-", mmem[16] = "-";
        plan_key(&o->plan, plan, sizeof plan);
        if (o->timed)
            snprintf(meas, sizeof meas, "%.3f", r->measured_iter_s);
        if (o->predicted) {
            snprintf(pred, sizeof pred, "%.3f", o->pred_s);
            snprintf(pmem, sizeof pmem, "%.1f", o->pred_mem_gib);
        }
        if (o->predicted && o->timed)
            snprintf(err, sizeof err, "%+.1f", o->err_pct);
        if (r->measured_mem_gib > 0)
            snprintf(mmem, sizeof mmem, "%.1f", r->measured_mem_gib);
        fprintf(fp, "%-18s %-13s %-14s %6lld %-28s %10s %10s %8s %8s %4s %8s %3s  %s\n",
                r->id, r->source, r->system, (long long)r->num_gpus, plan, meas,
                pred, err, pmem, o->predicted ? (o->pred_fits ? "y" : "n") : "-",
                mmem, r->oom ? "y" : "n", o->reason);
    }
}

static void stats_line(FILE *fp, const char *name, struct fid_stats s)
{
    if (!s.n) {
        fprintf(fp, "  %-16s %6d %8s\n", name, 0, "-");
        return;
    }
    fprintf(fp, "  %-16s %6d %7.2f%% %7.2f%% %7.2f%% %+7.2f%% %7.2f%%  %s\n", name,
            s.n, s.mape, s.median, s.p90, s.bias, s.worst, s.worst_id);
}

static void summary_time(FILE *fp, const struct fid_report *v)
{
    const char *names[64];
    int n = fid_distinct(v, false, names, 64);
    fprintf(fp, "\niteration time (timed rows)\n  %-16s %6s %8s %8s %8s %8s %8s  %s\n",
            "source", "rows", "MAPE", "median", "p90", "bias", "worst", "worst row");
    for (int i = 0; i < n; i++) {
        char multi[64];
        struct fid_stats all = fid_stats_of(v, names[i], NULL), part;
        stats_line(fp, names[i], all);
        snprintf(multi, sizeof multi, "%s:multi-node", names[i]);
        part = fid_stats_of(v, multi, NULL);
        if (part.n && part.n < all.n)
            stats_line(fp, "  multi-node", part);
    }
    stats_line(fp, "all", fid_stats_of(v, NULL, NULL));
    fprintf(fp, "\n  %-16s\n", "system");
    n = fid_distinct(v, true, names, 64);
    for (int i = 0; i < n; i++)
        stats_line(fp, names[i], fid_stats_of(v, NULL, names[i]));
}

static void summary_ranking(FILE *fp, const struct fid_report *v)
{
    const char *names[64];
    int n = fid_distinct(v, false, names, 64);
    fprintf(fp, "\nranking (groups: same source, model, GPUs, batch; >= 3 timed rows)\n"
            "  %-16s %6s %10s %12s\n", "source", "groups", "spearman", "top-1 regret");
    for (int i = 0; i < n; i++) {
        struct fid_ranking k = fid_ranking_of(v, names[i]);
        if (k.groups)
            fprintf(fp, "  %-16s %6d %10.3f %11.2f%%\n", names[i], k.groups,
                    k.spearman, k.regret_pct);
    }
}

static void summary_memory(FILE *fp, const struct fid_report *v)
{
    const char *names[64];
    int n = fid_distinct(v, false, names, 64);
    fprintf(fp, "\nmemory (predicted fits vs ran / out of memory; peak vs measured)\n"
            "  %-16s %6s %10s %10s %10s\n", "source", "rows", "agreement",
            "mem rows", "mem MAPE");
    for (int i = 0; i < n; i++) {
        struct fid_memory m = fid_memory_of(v, names[i]);
        if (!m.n) {
            fprintf(fp, "  %-16s %6d %10s\n", names[i], 0, "-");
            continue;
        }
        fprintf(fp, "  %-16s %6d %9.1f%% %10d", names[i], m.n,
                100.0 * m.agree / m.n, m.n_mem);
        if (m.n_mem)
            fprintf(fp, " %9.2f%%", m.mem_ape);
        fputc('\n', fp);
    }
}

static void table_summary(FILE *fp, const struct fid_report *v)
{
    int predicted = 0;
    for (size_t i = 0; i < v->n; i++)
        predicted += v->rows[i].predicted;
    fprintf(fp, "\n%zu rows, %d predicted, %zu not (see the note column)\n",
            v->n, predicted, v->n - (size_t)predicted);
    summary_time(fp, v);
    summary_ranking(fp, v);
    summary_memory(fp, v);
}

/* ---- JSON ---- */

static json_t *num_or_null(bool have, double x)
{
    return have && isfinite(x) ? json_real(x) : json_null();
}

static json_t *stats_json(struct fid_stats s)
{
    return json_pack("{s:i, s:o, s:o, s:o, s:o, s:o, s:s?}", "rows", s.n,
                     "mape_pct", num_or_null(s.n, s.mape),
                     "median_pct", num_or_null(s.n, s.median),
                     "p90_pct", num_or_null(s.n, s.p90),
                     "bias_pct", num_or_null(s.n, s.bias),
                     "worst_pct", num_or_null(s.n, s.worst), "worst_id", s.worst_id);
}

static json_t *row_json(const struct fid_row *o)
{
    const struct run_row *r = o->run;
    char plan[64];
    plan_key(&o->plan, plan, sizeof plan);
    return json_pack("{s:s, s:s, s:s, s:I, s:s, s:o, s:o, s:o, s:o, s:o, s:o, s:b, s:s}",
                     "id", r->id, "source", r->source, "system", r->system,
                     "gpus", (json_int_t)r->num_gpus, "plan", plan,
                     "measured_iter_s", num_or_null(o->timed, r->measured_iter_s),
                     "predicted_iter_s", num_or_null(o->predicted, o->pred_s),
                     "error_pct", num_or_null(o->predicted && o->timed, o->err_pct),
                     "predicted_mem_gib", num_or_null(o->predicted, o->pred_mem_gib),
                     "predicted_fits", o->predicted ? json_boolean(o->pred_fits)
                                                    : json_null(),
                     "measured_mem_gib", num_or_null(r->measured_mem_gib > 0,
                                                     r->measured_mem_gib),
                     "oom", r->oom, "reason", o->reason);
}

/* One source's entries in the sources, ranking and memory objects. */
static void source_json(const struct fid_report *v, const char *name, json_t *src,
                        json_t *rank, json_t *mem)
{
    struct fid_ranking k = fid_ranking_of(v, name);
    struct fid_memory m = fid_memory_of(v, name);
    struct fid_stats part;
    char multi[64];
    json_object_set_new(src, name, stats_json(fid_stats_of(v, name, NULL)));
    snprintf(multi, sizeof multi, "%s:multi-node", name);
    part = fid_stats_of(v, multi, NULL);
    if (part.n)
        json_object_set_new(src, multi, stats_json(part));
    json_object_set_new(rank, name, json_pack("{s:i, s:o, s:o}", "groups", k.groups,
                        "mean_spearman", num_or_null(k.groups, k.spearman),
                        "mean_regret_pct", num_or_null(k.groups, k.regret_pct)));
    json_object_set_new(mem, name, json_pack("{s:i, s:o, s:i, s:o}",
                        "rows", m.n, "oom_agreement_pct",
                        num_or_null(m.n, m.n ? 100.0 * m.agree / m.n : 0),
                        "mem_rows", m.n_mem,
                        "mem_mape_pct", num_or_null(m.n_mem, m.mem_ape)));
}

static json_t *summary_json(const struct fid_report *v)
{
    const char *names[64];
    json_t *src = json_object(), *sys = json_object(), *rank = json_object();
    json_t *mem = json_object(), *groups = json_array();
    int n = fid_distinct(v, false, names, 64);
    for (int i = 0; i < n; i++)
        source_json(v, names[i], src, rank, mem);
    n = fid_distinct(v, true, names, 64);
    for (int i = 0; i < n; i++)
        json_object_set_new(sys, names[i], stats_json(fid_stats_of(v, NULL, names[i])));
    for (size_t g = 0; g < v->n_groups; g++) {
        const struct fid_group *x = &v->groups[g];
        json_array_append_new(groups, json_pack("{s:s, s:s, s:I, s:I, s:i, s:f, s:f}",
            "source", x->source, "model", x->model, "gpus", (json_int_t)x->gpus,
            "gbs", (json_int_t)x->gbs, "rows", x->n, "spearman", x->spearman,
            "regret_pct", x->regret_pct));
    }
    return json_pack("{s:o, s:o, s:o, s:{s:o, s:o}, s:o}",
                     "overall", stats_json(fid_stats_of(v, NULL, NULL)),
                     "sources", src, "systems", sys,
                     "ranking", "sources", rank, "groups", groups, "memory", mem);
}

/* One row's numbers: measured and predicted time, error, predicted memory
 * and fit, measured memory (empty cells where there is none). */
static void csv_figures(FILE *fp, const struct fid_row *o)
{
    const struct run_row *r = o->run;
    res_csv_num(fp, o->timed ? r->measured_iter_s : (double)NAN);
    res_csv_num(fp, o->predicted ? o->pred_s : (double)NAN);
    res_csv_num(fp, o->predicted && o->timed ? o->err_pct : (double)NAN);
    res_csv_num(fp, o->predicted ? o->pred_mem_gib : (double)NAN);
    if (o->predicted)
        res_csv_bool(fp, o->pred_fits);
    else
        fputc(',', fp);
    res_csv_num(fp, r->measured_mem_gib > 0 ? r->measured_mem_gib : (double)NAN);
    res_csv_bool(fp, r->oom);
}

static void csv_rows(FILE *fp, const struct fid_report *v)
{
    fputs("id,source,system,gpus,plan,measured_iter_s,predicted_iter_s,error_pct,"
          "predicted_mem_gib,predicted_fits,measured_mem_gib,oom,reason,"
          "schema_version\n", fp);
    for (size_t i = 0; i < v->n; i++) {
        const struct fid_row *o = &v->rows[i];
        const struct run_row *r = o->run;
        char plan[64], reason[160];
        plan_key(&o->plan, plan, sizeof plan);
        snprintf(reason, sizeof reason, "%s", o->reason);
        for (char *q = reason; *q; q++)
            if (*q == ',')
                *q = ';';
        fprintf(fp, "%s,%s,%s,%lld,%s", r->id, r->source, r->system,
                (long long)r->num_gpus, plan);
        csv_figures(fp, o);
        fprintf(fp, ",%s,%d\n", reason, RES_SCHEMA_VERSION);
    }
}

int res_validate_write(FILE *fp, enum res_format fmt, const struct fid_report *v,
                       struct tpl_err *err)
{
    json_t *rows;
    switch (fmt) {
    case RES_FMT_TABLE:
        table_rows(fp, v);
        table_summary(fp, v);
        break;
    case RES_FMT_CSV:
        csv_rows(fp, v);
        break;
    case RES_FMT_JSON:
        rows = json_array();
        for (size_t i = 0; i < v->n; i++)
            json_array_append_new(rows, row_json(&v->rows[i]));
        return res_json_emit(fp, json_pack("{s:o, s:o}", "rows", rows,
                                           "summary", summary_json(v)), err);
    case RES_FMT_COUNT:
        TPL_BUG("bad format %d", (int)fmt);
    }
    return res_stream_done(fp, err);
}

int res_validate_report(FILE *fp, const struct res_report *rep, struct tpl_err *err)
{
    return res_validate_write(fp, rep->fmt, rep->u.validate, err);
}

/* ---- cross-validation by source (validate --cv source) ---- */

static const char cv_title[] =
    "cross-validation: each source left out, every constant fitted on runs\n"
    "(trainplan calibrate --runs: the eager stacks' host_us, the uncalibrated\n"
    "systems' gemm_fp8_cs, the network share of a fabric no source measures,\n"
    "the clock of a power limit no source measures)\n"
    "refitted on the others, the source\n"
    "predicted with them (a source that fed no fit keeps the full fit, what\n"
    "the presets carry, rounded; '-': nothing to fit); all: every row pooled\n";

/* A fitted value with 'prec' decimals, or '-' where nothing was fitted. */
static void cv_num(FILE *fp, double x, int width, int prec)
{
    if (x < 0)
        fprintf(fp, " %*s", width, "-");
    else
        fprintf(fp, " %*.*f", width, prec, x);
}

static void cv_line(FILE *fp, const struct fid_cv_row *c)
{
    fprintf(fp, "  %-24s %5d", c->source, c->held_out.n);
    cv_num(fp, c->fit.host_us, 7, 1);
    cv_num(fp, c->fit.tune.gemm_fp8_cs, 6, 3);
    cv_num(fp, c->fit.tune.network, 5, 3);
    cv_num(fp, c->fit.tune.clock, 5, 3);
    fprintf(fp, " %8.2f%% %7.2f%% %8.2f%% %7.2f%%\n", c->in_sample.mape,
            c->in_sample.bias, c->held_out.mape, c->held_out.bias);
}

int res_cv_table(FILE *fp, const struct res_report *rep, struct tpl_err *err)
{
    struct fid_cv_row all;
    (void)err;
    fid_cv_overall(rep->u.cv.rows, rep->u.cv.n, &all);
    fputs(cv_title, fp);
    fprintf(fp, "  %-24s %5s %7s %6s %5s %5s %9s %8s %9s %8s\n", "source", "rows",
            "host_us", "fp8_cs", "net", "clock", "in MAPE", "in bias", "out MAPE", "out bias");
    for (int i = 0; i < rep->u.cv.n; i++)
        cv_line(fp, &rep->u.cv.rows[i]);
    cv_line(fp, &all);
    return 0;
}

int res_cv_csv(FILE *fp, const struct res_report *rep, struct tpl_err *err)
{
    struct fid_cv_row all;
    (void)err;
    fid_cv_overall(rep->u.cv.rows, rep->u.cv.n, &all);
    fputs("source,rows,host_us,gemm_fp8_cs,network,clock,in_sample_mape_pct,"
          "in_sample_bias_pct,held_out_mape_pct,held_out_bias_pct,"
          "schema_version\n", fp);
    for (int i = 0; i <= rep->u.cv.n; i++) {
        const struct fid_cv_row *c = i < rep->u.cv.n ? &rep->u.cv.rows[i] : &all;
        const double v[] = { c->fit.host_us, c->fit.tune.gemm_fp8_cs,
                             c->fit.tune.network, c->fit.tune.clock,
                             c->in_sample.mape,
                             c->in_sample.bias, c->held_out.mape,
                             c->held_out.bias };
        fprintf(fp, "%s,%d", c->source, c->held_out.n);
        for (size_t k = 0; k < sizeof v / sizeof *v; k++)
            if (k < 4 && v[k] < 0)
                fputc(',', fp);
            else
                res_csv_num(fp, v[k]);
        fprintf(fp, ",%d\n", RES_SCHEMA_VERSION);
    }
    return 0;
}

static json_t *fit_json(double x)
{
    return x < 0 ? json_null() : json_real(x);
}

/* Pooled figures: rows, MAPE and bias only. */
static json_t *pooled_json(struct fid_stats s)
{
    return json_pack("{s:i, s:o, s:o}", "rows", s.n,
                     "mape_pct", num_or_null(s.n, s.mape),
                     "bias_pct", num_or_null(s.n, s.bias));
}

int res_cv_json(FILE *fp, const struct res_report *rep, struct tpl_err *err)
{
    json_t *a = json_array();
    struct fid_cv_row all;
    fid_cv_overall(rep->u.cv.rows, rep->u.cv.n, &all);
    for (int i = 0; i < rep->u.cv.n; i++) {
        const struct fid_cv_row *c = &rep->u.cv.rows[i];
        json_array_append_new(a, json_pack("{s:s, s:i, s:o, s:o, s:o, s:o, s:o, s:o}",
            "source", c->source, "rows", c->held_out.n,
            "host_us", fit_json(c->fit.host_us),
            "gemm_fp8_cs", fit_json(c->fit.tune.gemm_fp8_cs),
            "network", fit_json(c->fit.tune.network),
            "clock", fit_json(c->fit.tune.clock),
            "in_sample", stats_json(c->in_sample),
            "held_out", stats_json(c->held_out)));
    }
    return res_json_emit(fp, json_pack("{s:o, s:{s:o, s:o}}", "cv", a, "overall",
                                       "in_sample", pooled_json(all.in_sample),
                                       "held_out", pooled_json(all.held_out)), err);
}

