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
#include "predictor/pred.h"
#include "spaces/plan.h"

struct fid_row {
    const struct run_row *run;  /* borrowed from the runs */
    struct plan plan;           /* the run's plan */
    bool predicted;             /* false: 'reason' says why not */
    char reason[160];           /* why not predicted, or a note */
    double pred_s, err_pct;     /* err_pct: (pred - measured) / measured */
    bool timed;                 /* has a measured time to compare */
    double pred_mem_gib;        /* peak per GPU, reserve included */
    double pred_total_gib;      /* the same without the reserve */
    double hbm_gib;             /* the GPU's capacity */
    bool pred_fits;
    double params_b;            /* the run's model size, billions */
    bool host_bound;            /* its stack issues kernels from an eager host
                                   (stack host_us > 0), or its MoE layers do
                                   outside CUDA graphs (predict.c
                                   moe_host_row): what the fit moves */
    bool launch_blocking;       /* run with CUDA_LAUNCH_BLOCKING=1: left out
                                   of the host fit (fidelity/cv.c) */
    const char *stack;          /* the stack preset it is predicted with
                                   (static or borrowed from the runs) */
    enum plan_rule rule;        /* PLAN_OK, or the first rule the plan
                                   breaks under that stack */
    bool uncalibrated;          /* its system's efficiencies are modelling
                                   defaults: what the tune fit moves */
    char arch[STACK_ARCH_LEN];  /* its system's gpu.arch ("" none) */
    bool net_tuned;             /* its system's network share is fitted on
                                   runs (efficiency.network_from_runs): the
                                   tune fit moves that too */
    bool clock_tuned;           /* its system's clock is fitted on runs
                                   (efficiency.clock_from_runs): and that */
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
/* The model a run row names: its shape columns with RUNS.md's family
 * defaults (dense rows), or the preset of its mixture of experts. NULL, or
 * why the row has no model. */
const char *fid_run_model(const struct run_row *r, struct model *m);
/* What the row's published recipe sets that the runs schema has no
 * column for (fidelity/recipe.c: Megatron's recompute modules, optimizer
 * state bytes and offload), applied to the job made from the row and its
 * stack and to its plan; false, nothing changed, for a row of no listed
 * recipe. */
bool fid_recipe_apply(const struct run_row *r, struct job *j,
                      struct plan *p);
/* Whether the row's recipe overlaps the data-parallel gradient reduce and
 * parameter gather: -1 it sets neither flag (Megatron's defaults, off),
 * 0 the stack's default (also for a row of no listed recipe). */
int fid_recipe_dp_overlap(const struct run_row *r);

/* Predict every row (of 'source' only, when non-NULL). Rows that cannot be
 * predicted are kept with their reason. The runs must outlive the report. */
struct fid_report *fid_report_new(const struct runs *runs, const char *source);
/* The same with the host time per kernel of every eager stack (preset
 * host_us > 0) set to 'host_us' (< 0: each stack's own): what the run fit
 * and the cross-validation vary (fidelity/cv.c). */
struct fid_report *fid_report_new_host(const struct runs *runs, const char *source,
                                       double host_us);
/* The same with the FP8 factor of every uncalibrated system (efficiency.
 * calibrated = false), the network share of every network_from_runs
 * system and the clock of every clock_from_runs system set to those of
 * 't' (NULL, or a part at -1: the presets'), what
 * the tune fit varies (fidelity/tune.c). */
struct fid_tune;
struct fid_report *fid_report_new_tuned(const struct runs *runs, const char *source,
                                        double host_us, const struct fid_tune *t);
/* Only the rows of those systems predicted (with 't'; NULL: the presets'),
 * the others left unpredicted ("calibrated system: not tuned"): the tune
 * fit's objective reads no other row. */
struct fid_report *fid_report_new_uncal(const struct runs *runs, const char *source,
                                        const struct fid_tune *t);
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

/* The minimum of f over [a, b] by golden-section search (Kiefer 1953;
 * Press et al., Numerical Recipes, 3rd ed., sec. 10.2): the bracket
 * shrinks 'steps' times by 0.618 and its midpoint is returned. f is
 * evaluated at the two inner points first, then once a step. */
typedef double fid_objective(double x, void *arg);
double fid_golden(fid_objective *f, void *arg, double a, double b, int steps);

/* ---- the eager host time fitted on runs (fidelity/cv.c) ---- */

/* A constant fitted on published runs rather than on kernel samples: the
 * host time per modelled kernel of the eager stacks (megatron-lm-2021,
 * megatron-deepspeed) and of megatron-core's MoE layers outside CUDA
 * graphs (the same Python host issuing the same kernels one by one:
 * predictor/host.c), chosen to minimise the MAPE of the timed, predicted
 * rows they bind, leaving out the rows of 'exclude' (NULL: none).
 * Golden-section search over [0, FID_HOST_MAX_US] us. *n_rows gets how many
 * rows the fit saw (0: nothing to fit; the result is then -1). */
#define FID_HOST_MAX_US 200.0
double fid_fit_host_us(const struct runs *runs, const char *exclude, int *n_rows);

/* ---- the system shares no source gives, fitted on runs (fidelity/tune.c) ---- */

/* The kernel efficiency of the systems without kernel samples (dgx-b200,
 * gb200-nvl72: efficiency.calibrated = false) that no source gives: the
 * FP8 GEMM factor with current or MXFP8 scaling (gemm_fp8_cs: the share
 * relative to 16-bit reached by Transformer Engine's FP8 GEMMs with their
 * scaling passes), fitted on the timed rows of those systems. Their
 * attention share is a published figure (the presets' attn). And the
 * network share of the systems whose fabric no source measures
 * (efficiency.network_from_runs: jeanzay-a100's Omni-Path), fitted on
 * their timed rows. The two row sets are apart (the fabric's systems have
 * kernel samples), so each is fitted on its own. And the sustained clock
 * of a GPU run under a power limit no source measures the clock at
 * (efficiency.clock_from_runs: grandteton-h100, Meta's 500 W H100s),
 * fitted on its timed rows, apart from the other two (a calibrated GPU on
 * a measured fabric). */
#define FID_TUNE_FP8_LO 0.30
#define FID_TUNE_FP8_HI 1.00
#define FID_TUNE_NET_LO 0.05
#define FID_TUNE_NET_HI 1.00
#define FID_TUNE_CLOCK_LO 0.50
#define FID_TUNE_CLOCK_HI 1.00

struct fid_tune {
    double gemm_fp8_cs;         /* efficiency.gemm_fp8_cs (-1: none fitted,
                                   the presets') */
    double network;             /* efficiency.network of the network_from_runs
                                   systems (-1: none fitted, the presets') */
    double clock;               /* efficiency.clock of the clock_from_runs
                                   systems (-1: none fitted, the presets') */
    int fp8_rows, net_rows, clock_rows; /* the rows each part was fitted on */
};

/* Fit t on the tuned systems' timed, predicted rows other than those of
 * 'exclude' (NULL: none), minimising their MAPE, each part on its own
 * rows; *n_rows gets how many rows the parts saw (0: nothing to fit, every
 * part -1, -1 returned). A part without rows is -1. */
int fid_fit_tune(const struct runs *runs, const char *exclude,
                 struct fid_tune *t, int *n_rows);

struct fid_tune_cv {            /* one source with tuned rows left out */
    const char *source;         /* borrowed from the runs */
    struct fid_tune fit;        /* fitted without it */
    int n;                      /* its tuned timed, predicted rows */
    double mape_before, bias_before;    /* %, with the presets' values (in-sample
                                           once the presets carry the fit) */
    double mape_held, bias_held;        /* %, with 'fit' */
};
/* Leave-one-source-out over the sources with tuned timed rows (at most
 * 'cap'); returns how many. */
int fid_tune_cv(const struct runs *runs, struct fid_tune_cv *out, int cap);

/* ---- every constant fitted on runs, and cross-validation (fidelity/cv.c) ---- */

struct fid_fit {                /* the constants fitted on runs */
    double host_us;             /* eager host time (-1: nothing to fit) */
    int host_rows;              /* rows the host fit saw */
    struct fid_tune tune;       /* FP8 factor, fabric share (-1: none) */
    int tune_rows;              /* rows the efficiency fit saw */
};

/* Fit both on the rows other than those of 'exclude' (NULL: none). */
void fid_fit_runs(const struct runs *runs, const char *exclude,
                  struct fid_fit *f);
/* The rows of 'source' (NULL: all) predicted with the constants of f. */
struct fid_report *fid_report_fitted(const struct runs *runs, const char *source,
                                     const struct fid_fit *f);

/* Leave-one-source-out, one source at a time: set .runs, zero the rest,
 * and call fid_cv_next until it returns NULL (it frees what it holds then).
 * Each call refits what the next source fed without it (the full fit
 * where it fed nothing) and returns that source's rows predicted with
 * that fit (free it); .source, .fit and .all (every row with the presets'
 * constants: the in-sample report) describe it. */
#define FID_CV_SOURCES 64
struct fid_cv_iter {
    const struct runs *runs;
    struct fid_report *all;
    const char *sources[FID_CV_SOURCES], *source;
    int n_src, i;
    struct fid_fit full, fit;
};
struct fid_report *fid_cv_next(struct fid_cv_iter *it);

struct fid_cv_row {             /* one source left out */
    const char *source;         /* borrowed from the runs */
    struct fid_fit fit;         /* fitted without it */
    struct fid_stats in_sample; /* with the presets' constants */
    struct fid_stats held_out;  /* with the constants fitted without it */
};

/* For each source with timed, predicted rows (at most 'cap'), refit
 * without it and predict it. Returns how many. */
int fid_cv(const struct runs *runs, struct fid_cv_row *out, int cap);
/* All sources pooled into *all (source "all"; n, mape and bias only). */
void fid_cv_overall(const struct fid_cv_row *rows, int n, struct fid_cv_row *all);

/* ---- the error band of each stack (fidelity/band.c) ---- */

/* The q-quantile (0 <= q <= 1) of x[0..n-1], n >= 1, sorted in place:
 * linear interpolation between order statistics, x(h) with h = (n-1) q
 * (Hyndman & Fan 1996, definition 7; numpy's and GSL's default). */
double fid_quantile(double *x, int n, double q);

/* Leave-one-source-out signed errors (pred / measured - 1, in %): for each
 * source, its timed, predicted rows predicted with the constants fitted
 * without it (fid_cv_next), as fid_cv's held-out figures, with where
 * each row sits (its stack, GPU count and model size). At most 'cap' into
 * out[]; returns how many. */
struct fid_cv_err {
    double err_pct;
    const char *stack;          /* borrowed from the runs */
    double gpus, params_b;      /* parameters in billions */
    char arch[STACK_ARCH_LEN];  /* its system's gpu.arch ("" none) */
};
int fid_cv_errors(const struct runs *runs, struct fid_cv_err *out, int cap);

#define FID_BAND_LOW_Q 0.10     /* the band: 10th ... */
#define FID_BAND_HIGH_Q 0.90    /* ... to 90th percentile of signed error */
#define FID_BAND_MIN_ROWS 20    /* fewer rows of a stack: pooled */
#define FID_BAND_WIDEN PRED_BAND_WIDEN /* a pooled band's width is scaled by this
                                   about its centre */

struct fid_band {
    const char *stack;          /* a preset name (static) */
    int n;                      /* its held-out errors */
    bool pooled;                /* n < FID_BAND_MIN_ROWS: the quantiles of
                                   every stack's errors, widened */
    double low_pct, high_pct;
    struct stack_region region; /* GPU counts and sizes of the rows behind
                                   it (all rows when pooled) */
};

/* The band of each of the 'n_stacks' named stacks from n errors (as
 * fid_cv_errors gives them; left alone). Returns 0, or -1 when n is 0. */
int fid_bands_of(const struct fid_cv_err *e, int n, const char *const *stacks,
                 int n_stacks, struct fid_band *out);

/* ---- each stack's memory reserve (fidelity/reserve.c) ---- */

/* The reserve_gib of a stack (spaces/stacks/NAME.cfg): the HBM a plan
 * cannot use, fitted on the stack's predicted rows that carry a measured
 * peak, as the value in [0, FID_RESERVE_MAX_GIB] (steps of
 * FID_RESERVE_STEP_GIB) with the least peak-memory MAPE among those that
 * call no more of the stack's rows wrongly out of memory (or wrongly
 * fitting) than the reserves they were predicted with, and no more of the
 * rows that ran out of memory (a false "does not fit" hides a layout that
 * works); ties go to the smaller reserve. */
#define FID_RESERVE_MAX_GIB 16.0
#define FID_RESERVE_STEP_GIB 0.1

struct fid_reserve {
    const char *stack;          /* as given */
    int n_mem;                  /* rows with a measured peak; 0: no fit */
    int n;                      /* predicted rows (the OOM agreement's) */
    double gib;                 /* the fitted reserve */
    double mape_before, mape_after;     /* %, with the rows' own reserves
                                           and with 'gib' */
    int agree_before, agree_after;      /* rows whose fits == ran */
};

/* Fit the reserve of 'stack' on report v's rows (fid_report_new). */
struct fid_reserve fid_fit_reserve(const struct fid_report *v, const char *stack);

/* ---- the gate (fidelity/gate.c) ---- */

/* The figures `make validate` gates, per source and overall. Counts of rows
 * and groups are there so a figure cannot improve by losing rows. */
enum fid_fig {
    FIG_TIMED_ROWS,             /* timed, predicted rows */
    FIG_MAPE, FIG_BIAS,         /* of their iteration time, in % */
    FIG_PREDICTED_ROWS,         /* predicted rows, timed or not */
    FIG_OOM_AGREE,              /* of them, fits == ran without OOM */
    FIG_MEM_ROWS, FIG_MEM_MAPE, /* rows with a measured peak; its MAPE, % */
    FIG_GROUPS,                 /* ranking groups (fid_group) */
    FIG_SPEARMAN, FIG_REGRET,   /* their mean Spearman, top-1 regret % */
    FIG_CV_MAPE, FIG_CV_BIAS,   /* held out (fid_cv): MAPE and bias, % */
    FIG_COUNT
};

struct fid_figures {            /* a plain value */
    char name[48];              /* "overall", a source or "SOURCE:multi-node" */
    bool have[FIG_COUNT];       /* false: not measured (no rows, no groups) */
    double x[FIG_COUNT];
};

struct fid_gate {               /* fid_gate_free */
    char command[512];          /* the command that made it ("" if none) */
    struct fid_figures *sets;   /* [0]: overall; then sources, file order */
    int n;
};

/* How much worse each figure may get before the gate fails (DESIGN.md,
 * README "The fidelity gate"):
 *   rows and groups counts   0      none may be lost: a row that drops out
 *                                   of the comparison flatters the rest
 *   MAPE                     0.5    points of MAPE (iteration time)
 *   bias                     1.0    points of |mean signed error|: a move
 *                                   towards 0 is better, away worse
 *   OOM agreeing rows        0      rows; no prediction of fits/OOM may flip
 *   memory MAPE              0.5    points
 *   Spearman                 0.02   of the mean over a source's groups
 *   top-1 regret             0.5    points of the mean regret
 * Rows, OOM agreement and Spearman are better higher, the rest lower. */
struct fid_tolerance {
    double x[FIG_COUNT];
};
extern const struct fid_tolerance fid_tolerance_default;

/* The JSON key of a figure ("mape_pct"); the index of a key, or -1. */
const char *fid_fig_key(enum fid_fig f);
int fid_fig_find(const char *key);
bool fid_fig_is_count(enum fid_fig f);      /* rows or groups: an integer */

/* The figures of a report: overall, each source in file order (those with
 * nothing predicted too: their counts are 0) and, after a source with
 * multi-node rows among others, "SOURCE:multi-node" (time figures only).
 * g->command is left empty. */
void fid_gate_of(const struct fid_report *v, struct fid_gate *g);
/* The held-out figures of fid_cv's rows into g's sets of the same names
 * and, pooled, into "overall". */
void fid_gate_add_cv(struct fid_gate *g, const struct fid_cv_row *rows, int n);
void fid_gate_free(struct fid_gate *g);     /* its sets; g stays usable */

/* Compare 'now' with 'base' figure by figure, one line to 'msg' per set
 * ("ok") or per figure that is worse, better beyond its tolerance, new
 * (no baseline) or lost, and a closing count. A set of 'now' missing from
 * 'base' or of 'base' missing from 'now' fails, and so does a figure
 * measured on one side only. Returns the number of failures. */
int fid_gate_compare(const struct fid_gate *base, const struct fid_gate *now,
                     const struct fid_tolerance *tol, FILE *msg);

/* ---- the baseline file (fidelity/baseline.c) ---- */

/* A baseline file: {"command": "trainplan validate RUNS --write-baseline
 * FILE", "note": ..., "overall": {FIGURES}, "sources": {"NAME": {FIGURES},
 * ...}} where FIGURES maps fid_fig_key names to numbers; a figure not
 * measured is left out. No timestamps: the same program on the same data
 * writes the same bytes. */
int fid_baseline_write(FILE *fp, const struct fid_gate *g, struct tpl_err *err);
/* Read one; TPL_EIO unreadable, TPL_ECONFIG malformed (FILE: what). */
int fid_baseline_read(struct fid_gate *g, const char *path, struct tpl_err *err);

/* Read the baseline at 'path', compare the figures of 'now' (fid_gate_of,
 * and fid_gate_add_cv) with it (fid_gate_compare) and set *worse when
 * anything failed. */
int fid_baseline_check(const struct fid_gate *now, const char *path,
                       const struct fid_tolerance *tol, FILE *msg, bool *worse,
                       struct tpl_err *err);

#endif /* FIDELITY_H */
