/* results/validate.h: how far the predictor is from published runs. Every
 * row of a runs file (fidelity/runs.h) is predicted on its own system preset
 * and compared with what was measured: per-row error, per source / system /
 * overall error statistics, ranking agreement inside groups of comparable
 * runs, and memory / out-of-memory agreement. */
#ifndef RES_VALIDATE_H
#define RES_VALIDATE_H

#include <stdbool.h>
#include <stdio.h>

#include "results/res.h"
#include "fidelity/runs.h"

struct val_row {
    const struct run_row *run;  /* borrowed from the runs */
    bool predicted;             /* false: 'reason' says why not */
    char reason[160];           /* why not predicted, or a note */
    double pred_s, err_pct;     /* err_pct: (pred - measured) / measured */
    bool timed;                 /* has a measured time to compare */
    double pred_mem_gib;        /* peak per GPU, reserve included */
    bool pred_fits;
};

struct val_stats {              /* absolute percentage errors of a set */
    int n;
    double mape, median, p90, worst, bias;  /* bias: mean signed error */
    const char *worst_id;
};

struct val_group {              /* same source, model, GPUs and batch */
    const char *source, *model;
    long long gpus, gbs;
    int n;
    double spearman;            /* predicted vs measured times */
    double regret_pct;          /* measured time of the predicted best over the best */
};

struct val_report;              /* opaque: res_validate_free */

/* Predict every row (of 'source' only, when non-NULL). Rows that cannot be
 * predicted are kept with their reason. The runs must outlive the report. */
struct val_report *res_validate_run(const struct runs *runs, const char *source);
void res_validate_free(struct val_report *v);

/* Statistics of the timed, predicted rows of a source (NULL: all;
 * "vtrain:multi-node": only its rows spanning more than one node). */
struct val_stats res_validate_source(const struct val_report *v, const char *source);

/* The report's rows (borrowed, n of them), in file order. */
const struct val_row *res_validate_rows(const struct val_report *v, size_t *n);
/* Spearman's rank correlation of a and b (n values; ties share their
 * average rank); 0 when either has no spread. */
double res_spearman(const double *a, const double *b, int n);

int res_validate_write(FILE *fp, enum res_format fmt, const struct val_report *v,
                       struct tpl_err *err);

/* Compare each source's MAPE with a baseline JSON file ({"mape_pct":
 * {"narayanan21": 7.9, ...}}) and write one line per source to 'msg'.
 * *worse is set when a source got worse by more than 'tolerance' points. */
int res_validate_baseline(const struct val_report *v, const char *path,
                          double tolerance, FILE *msg, bool *worse,
                          struct tpl_err *err);

#endif /* RES_VALIDATE_H */
