/* results/report.h: every report trainplan writes as one tagged value, and
 * res_report_write, which picks its writer from one table by report and
 * format (export: by framework, export.h). A report only borrows: it points
 * at what the command built and is a plain value. */
#ifndef RES_REPORT_H
#define RES_REPORT_H

#include <stdbool.h>
#include <stdio.h>

#include "calibrate/calibrate.h"
#include "fidelity/fidelity.h"
#include "results/batches.h"
#include "results/compare.h"
#include "results/export.h"
#include "results/res.h"
#include "results/tradeoff.h"

enum res_report_kind {
    RES_REPORT_PREDICT,         /* u.plan: one plan and its prediction */
    RES_REPORT_SEARCH,          /* u.search */
    RES_REPORT_TRADEOFF,        /* u.tradeoff */
    RES_REPORT_COMPARE,         /* u.compare (ctx unused: one per system) */
    RES_REPORT_EXPORT,          /* u.plan, written for 'fw' */
    RES_REPORT_VALIDATE,        /* u.validate */
    RES_REPORT_BASELINE,        /* u.baseline: the fidelity gate's file (JSON) */
    RES_REPORT_CALIBRATION,     /* u.calib: what calibrate fitted (text) */
    RES_REPORT_SYSTEM_FILE,     /* u.calib: the fitted system file (libconfig) */
    RES_REPORT_CV,              /* u.cv: validate --cv source */
    RES_REPORT_COUNT
};

struct res_report {
    enum res_report_kind kind;
    enum res_format fmt;                /* every kind but export */
    enum res_framework fw;              /* export */
    const struct pred_ctx *ctx;         /* model, system, job */
    union {
        struct { const struct plan *plan; const struct pred_result *r; } plan;
        /* 'work': the figures that depend on the run and its thread count;
         * 'nearby': per GPU count, batch sizes that have a plan where the
         * count has none (NULL: not searched; batches.h); 'skipped': how
         * many counts were left unsearched (too many); 'gbs': the batch of
         * each count's plans; 'summary': one line per count */
        struct {
            const struct search_result *s;
            bool work;
            const struct res_nearby *nearby;
            size_t skipped;
            const int64_t *gbs;         /* per count (--gbs lists: batches.h);
                                           NULL: ctx's */
            bool summary;               /* --summary: the table has one line
                                           per count (the search kept 1) */
        } search;
        const struct tradeoff *tradeoff;
        const struct compare *compare;
        const struct fid_report *validate;
        const struct fid_gate *baseline;
        struct { const struct fid_cv_row *rows; int n; } cv;
        struct {
            const struct cal_report *rep;
            const char *system, *samples;   /* as given to calibrate */
            const struct hw_system *fitted;
        } calib;
    } u;
};

/* Write 'rep' to fp. TPL_EIO if the stream fails. */
int res_report_write(FILE *fp, const struct res_report *rep, struct tpl_err *err);

/* ---- the writers of the table: one per report and format ---- */
typedef int res_writer(FILE *fp, const struct res_report *rep, struct tpl_err *err);
res_writer res_predict_table, res_predict_csv, res_predict_json;
res_writer res_search_table, res_search_csv, res_search_json;
res_writer res_tradeoff_table, res_tradeoff_csv, res_tradeoff_json;
res_writer res_compare_table, res_compare_csv, res_compare_json;
res_writer res_validate_report;                 /* any format, by rep->fmt */
res_writer res_cv_table, res_cv_csv, res_cv_json;

#endif /* RES_REPORT_H */
