/* calibrate/calibrate.h: fit a system's kernel and collective parameters to
 * sampled timings (the format of ../shared/data/kernel-samples, README
 * there) by nonlinear least squares on relative errors (GSL). The fitted
 * model is the predictor's own (kernel.h), so the parameters slot into a
 * system file unchanged. */
#ifndef CALIBRATE_H
#define CALIBRATE_H

#include <stdint.h>
#include <stdio.h>

#include "hardware/hw.h"

#define CALIB_MAX_ROWS 64

struct calib_row {              /* one operator and direction */
    char op[40], dir[8];
    int n;                      /* samples */
    double mape_random, p90_random; /* 20 % random hold-out */
    double mape_extrap;         /* fit on hidden <= 6144, test above; < 0: none */
    double authors_pct;         /* the sample set's own tree-model error; < 0: none */
};

struct calib_param {            /* one fitted system field */
    char field[40];             /* "efficiency.gemm" */
    double value, prior;        /* fitted (or kept) and the base system's */
    char note[120];             /* why it was kept, if it was */
};

struct calib_report {
    int n_rows, n_params;
    struct calib_row rows[CALIB_MAX_ROWS];
    struct calib_param params[24];
    char gpu[64];               /* file prefix of the samples */
};

/* Fit from SAMPLES_DIR/operator and SAMPLES_DIR/nccl into 'fitted' (a copy
 * of 'base' with the fitted fields replaced). The random hold-out uses PCG
 * with 'seed'. TPL_EIO / TPL_ECONFIG on unreadable or malformed samples. */
int cal_run(const char *samples_dir, const struct hw_system *base,
             uint64_t seed, struct hw_system *fitted,
             struct calib_report *rep, struct tpl_err *err);

/* The report: every fitted field with its prior, then the errors per
 * operator. */
void cal_report_write(FILE *fp, const struct calib_report *rep);

/* The system file of 'system' (a preset name or a file) with the fitted
 * fields of 'fitted' replaced, under a comment naming the samples. TPL_EIO
 * when the write fails; the errors of conf_load_named. */
int cal_system_write(FILE *fp, const char *system, const char *samples_dir,
                     const struct hw_system *fitted,
                     const struct calib_report *rep, struct tpl_err *err);

#endif /* CALIBRATE_H */
