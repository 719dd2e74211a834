/* results/report.c: the table of writers by report and format (report.h).
 * Adding a report or a format stops the build until every cell is filled. */
#include "results/report.h"

#include <math.h>

#include <assert.h>

#include "results/writer.h"

/* The reports with one form of their own, whatever the format. */
static int baseline_file(FILE *fp, const struct res_report *rep, struct tpl_err *err)
{
    return fid_baseline_write(fp, rep->u.baseline, err);
}

static int calibration(FILE *fp, const struct res_report *rep, struct tpl_err *err)
{
    (void)err;
    cal_report_write(fp, rep->u.calib.rep);
    return 0;
}

/* A percentage, or null where there is none (< 0). */
static json_t *pct_json(double v)
{
    return v >= 0 ? json_real(v) : json_null();
}

static json_t *cal_row_json(const struct cal_row *r)
{
    return json_pack("{s:s, s:s, s:i, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:i, s:o}",
                     "operator", r->op, "dir", r->dir, "n", r->n, "mape_random_pct",
                     pct_json(r->mape_random), "p90_random_pct",
                     pct_json(r->p90_random), "mape_extrap_pct",
                     pct_json(r->mape_extrap), "mape_extrap_mp_pct",
                     pct_json(r->mape_extrap_mp), "mape_extrap_seq_pct",
                     pct_json(r->mape_extrap_seq), "authors_pct",
                     pct_json(r->authors_pct), "mape_roofline_pct",
                     pct_json(r->mape_roofline), "mape_physical_pct",
                     pct_json(r->mape_physical), "failed_runs", r->n_failed, "note",
                     r->why ? json_string(r->why) : json_null());
}

static json_t *cal_params_json(const struct cal_report *c)
{
    json_t *o = json_object();
    for (int f = 0; f < CAL_FIELD_COUNT; f++) {
        const struct cal_param *p = &c->params[f];
        if (p->fitted)
            json_object_set_new(o, cal_fields[f].path,
                                json_pack("{s:f, s:f, s:s}", "fitted", p->value,
                                          "was", p->prior, "note", p->note));
    }
    return o;
}

/* calibrate --report FILE --format json: the fitted fields and the error
 * rows (README "trainplan calibrate"). */
static int calibration_json(FILE *fp, const struct res_report *rep,
                            struct tpl_err *err)
{
    const struct cal_report *c = rep->u.calib.rep;
    json_t *rows = json_array();
    for (int i = 0; i < c->n_rows; i++)
        json_array_append_new(rows, cal_row_json(&c->rows[i]));
    json_t *unused = json_array();
    for (int i = 0; i < c->n_unused; i++)
        json_array_append_new(unused, json_pack("{s:s, s:s}", "file",
                                                c->unused[i].file, "why",
                                                c->unused[i].why));
    return res_json_emit(fp, json_pack("{s:s, s:o, s:o, s:o}", "gpu", c->gpu,
                                       "fields", cal_params_json(c),
                                       "operators", rows, "not_fitted", unused),
                         err);
}

/* A percentage cell of the CSV: empty where there is none. */
static void pct_csv(FILE *fp, double v)
{
    res_csv_num(fp, v >= 0 ? v : (double)NAN);
}

static int calibration_csv(FILE *fp, const struct res_report *rep,
                           struct tpl_err *err)
{
    const struct cal_report *c = rep->u.calib.rep;
    (void)err;
    fputs("operator,dir,n,mape_random_pct,p90_random_pct,mape_extrap_pct,"
          "mape_extrap_mp_pct,mape_extrap_seq_pct,authors_pct,mape_roofline_pct,"
          "mape_physical_pct,failed_runs,note,schema_version\n",
          fp);
    for (int i = 0; i < c->n_rows; i++) {
        const struct cal_row *r = &c->rows[i];
        fprintf(fp, "%s,%s,%d", r->op, r->dir, r->n);
        pct_csv(fp, r->mape_random);
        pct_csv(fp, r->p90_random);
        pct_csv(fp, r->mape_extrap);
        pct_csv(fp, r->mape_extrap_mp);
        pct_csv(fp, r->mape_extrap_seq);
        pct_csv(fp, r->authors_pct);
        pct_csv(fp, r->mape_roofline);
        pct_csv(fp, r->mape_physical);
        fprintf(fp, ",%d", r->n_failed);
        res_csv_text(fp, r->why);
        fprintf(fp, ",%d\n", RES_SCHEMA_VERSION);
    }
    return 0;
}

static int system_file(FILE *fp, const struct res_report *rep, struct tpl_err *err)
{
    return cal_system_write(fp, rep->u.calib.system, rep->u.calib.samples,
                            rep->u.calib.fitted, rep->u.calib.rep, err);
}

#define ONE_FORM(w) { w, w, w }

static res_writer *const writers[RES_REPORT_COUNT][RES_FMT_COUNT] = {
    [RES_REPORT_PREDICT]  = { res_predict_table, res_predict_csv, res_predict_json },
    [RES_REPORT_SEARCH]   = { res_search_table, res_search_csv, res_search_json },
    [RES_REPORT_TRADEOFF] = { res_tradeoff_table, res_tradeoff_csv, res_tradeoff_json },
    [RES_REPORT_COMPARE]  = { res_compare_table, res_compare_csv, res_compare_json },
    [RES_REPORT_VALIDATE] = ONE_FORM(res_validate_report),
    [RES_REPORT_BASELINE] = ONE_FORM(baseline_file),
    [RES_REPORT_CALIBRATION] = { calibration, calibration_csv, calibration_json },
    [RES_REPORT_SYSTEM_FILE] = ONE_FORM(system_file),
    [RES_REPORT_CV]       = { res_cv_table, res_cv_csv, res_cv_json },
};
static_assert(RES_REPORT_COUNT == 10 && RES_FMT_COUNT == 3,
              "update the writers table");

int res_report_write(FILE *fp, const struct res_report *rep, struct tpl_err *err)
{
    int rc;
    if (rep->kind == RES_REPORT_EXPORT)
        rc = res_export_write(fp, rep->fw, rep->ctx, rep->u.plan.plan,
                              rep->u.plan.r, err);
    else if (rep->kind < RES_REPORT_COUNT && rep->fmt < RES_FMT_COUNT &&
             writers[rep->kind][rep->fmt])
        rc = writers[rep->kind][rep->fmt](fp, rep, err);
    else
        TPL_BUG("bad report %d or format %d", (int)rep->kind, (int)rep->fmt);
    return rc ? rc : res_stream_done(fp, err);
}
