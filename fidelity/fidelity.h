/* fidelity/fidelity.h: how far the predictor is from published runs. Every
 * row of a runs file (fidelity/runs.h) becomes a model, a job and a plan on
 * its own system preset, is predicted and compared with what was measured:
 * per-row error, per source / system / overall error statistics, ranking
 * agreement inside groups of comparable runs, memory and out-of-memory
 * agreement, and a check against a baseline. The writers of a report live
 * in results/validate.h. */
#ifndef FIDELITY_H
#define FIDELITY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "common/err.h"
#include "fidelity/runs.h"
#include "spaces/plan.h"

struct fid_row {
    const struct run_row *run;  /* borrowed from the runs */
    struct plan plan;           /* the run's plan */
    bool predicted;             /* false: 'reason' says why not */
    char reason[160];           /* why not predicted, or a note */
    double pred_s, err_pct;     /* err_pct: (pred - measured) / measured */
    bool timed;                 /* has a measured time to compare */
    double pred_mem_gib;        /* peak per GPU, reserve included */
    bool pred_fits;
};

struct fid_stats {              /* absolute percentage errors of a set */
    int n;
    double mape, median, p90, worst, bias;  /* bias: mean signed error */
    const char *worst_id;
};

struct fid_group {              /* same source, model, GPUs and batch */
    const char *source, *model;
    long long gpus, gbs;
    int n;
    double spearman;            /* predicted vs measured times */
    double regret_pct;          /* measured time of the predicted best over the best */
};

struct fid_memory {             /* predicted rows of a source */
    int n, agree;               /* agree: fits == ran without OOM */
    int n_mem;                  /* rows with a measured peak */
    double mem_ape;             /* its mean absolute percentage error */
};

struct fid_ranking {            /* the groups of a source, averaged */
    int groups;
    double spearman, regret_pct;
};

struct fid_report {             /* fid_report_new / fid_report_free; read-only */
    const struct runs *runs;
    struct fid_row *rows;       /* in file order */
    size_t n;
    struct fid_group *groups;   /* of 3 timed, predicted rows or more */
    size_t n_groups;
};

/* ---- the run -> model / job / plan mapping (fidelity/predict.c) ---- */

/* The plan a run row names. */
void fid_run_plan(const struct run_row *r, struct plan *p);

/* Predict every row (of 'source' only, when non-NULL). Rows that cannot be
 * predicted are kept with their reason. The runs must outlive the report. */
struct fid_report *fid_report_new(const struct runs *runs, const char *source);
void fid_report_free(struct fid_report *v);     /* NULL is fine */

/* ---- statistics (fidelity/stats.c) ---- */

/* Statistics of the timed, predicted rows of a source (NULL: all;
 * "vtrain:multi-node": only its rows spanning more than one node) and of a
 * system (NULL: all). */
struct fid_stats fid_stats_of(const struct fid_report *v, const char *source,
                              const char *system);
struct fid_memory fid_memory_of(const struct fid_report *v, const char *source);
struct fid_ranking fid_ranking_of(const struct fid_report *v, const char *source);
/* The distinct sources (or systems) of the rows, in file order, at most
 * 'cap' of them into 'out' (borrowed from the runs); returns how many. */
int fid_distinct(const struct fid_report *v, bool systems, const char **out,
                 int cap);
/* Spearman's rank correlation of a and b (n values; ties share their
 * average rank); 0 when either has no spread. */
double fid_spearman(const double *a, const double *b, int n);
/* The groups of comparable runs into v->groups (fid_report_new calls it). */
void fid_groups_build(struct fid_report *v);

/* ---- the baseline (fidelity/baseline.c) ---- */

/* Compare each source's MAPE with a baseline JSON file ({"mape_pct":
 * {"narayanan21": 7.9, ...}}) and write one line per source to 'msg'.
 * *worse is set when a source got worse by more than 'tolerance' points. */
int fid_baseline_check(const struct fid_report *v, const char *path,
                       double tolerance, FILE *msg, bool *worse,
                       struct tpl_err *err);

#endif /* FIDELITY_H */
