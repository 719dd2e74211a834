/* results/report.c: the table of writers by report and format (report.h).
 * Adding a report or a format stops the build until every cell is filled. */
#include "results/report.h"

#include <assert.h>

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
    [RES_REPORT_CALIBRATION] = ONE_FORM(calibration),
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
