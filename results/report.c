/* results/report.c: the table of writers by report and format (report.h).
 * Adding a report or a format stops the build until every cell is filled. */
#include "results/report.h"

#include <assert.h>

static res_writer *const writers[RES_REPORT_COUNT][RES_FMT_COUNT] = {
    [RES_REPORT_PREDICT]  = { res_predict_table, res_predict_csv, res_predict_json },
    [RES_REPORT_SEARCH]   = { res_search_table, res_search_csv, res_search_json },
    [RES_REPORT_TRADEOFF] = { res_tradeoff_table, res_tradeoff_csv, res_tradeoff_json },
    [RES_REPORT_COMPARE]  = { res_compare_table, res_compare_csv, res_compare_json },
};
static_assert(RES_REPORT_COUNT == 5 && RES_FMT_COUNT == 3,
              "update the writers table");

int res_report_write(FILE *fp, const struct res_report *rep, struct tpl_err *err)
{
    int rc;
    if (rep->kind == RES_REPORT_EXPORT)
        rc = res_export_write(fp, rep->fw, rep->ctx, rep->u.plan.plan,
                              rep->u.plan.r, err);
    else if (rep->kind < RES_REPORT_COUNT && rep->fmt < RES_FMT_COUNT)
        rc = writers[rep->kind][rep->fmt](fp, rep, err);
    else
        TPL_BUG("bad report %d or format %d", (int)rep->kind, (int)rep->fmt);
    return rc ? rc : res_stream_done(fp, err);
}
