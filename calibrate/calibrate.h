/* calibrate/calibrate.h: fit a system's kernel and collective parameters to
 * sampled timings (calibrate/samples.h) by nonlinear least squares on
 * relative errors (GSL). The fitted model is the predictor's own
 * (predictor/kernel.h), so the parameters slot into a system file unchanged.
 * One table, cal_fields[], names every field a calibration can fit: it
 * drives the fit, the report and the system-file writer. */
#ifndef CALIBRATE_H
#define CALIBRATE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "calibrate/samples.h"
#include "hardware/hw.h"

/* The fitted fields, in report order. */
enum cal_field { CAL_FIELD_LAUNCH, CAL_FIELD_HBM, CAL_FIELD_NORM, CAL_FIELD_GEMM,
                 CAL_FIELD_GEMM_HALF, CAL_FIELD_GEMM_BWD, CAL_FIELD_ATTN,
                 CAL_FIELD_ATTN_BWD, CAL_FIELD_COLLECTIVE_BASE, CAL_FIELD_NVLINK,
                 CAL_FIELD_NETWORK,
                 /* memory_ops: per operator and direction, efficiency then
                  * floor; CAL_FIELD_MEMOP + 4 op + 2 dir + (0 eff, 1 floor) */
                 CAL_FIELD_MEMOP,
                 /* their size correction (the norms' in row length):
                  * CAL_FIELD_LOG_ROW + 2 op + dir */
                 CAL_FIELD_LOG_ROW = CAL_FIELD_MEMOP + 4 * HW_MEMOP_COUNT,
                 /* the row softmaxes' time per padded row element and
                  * short-row share (kernel.h pred_memop_rows_s):
                  * CAL_FIELD_ROW + 2 op + dir, CAL_FIELD_SHORT + 2 op + dir */
                 CAL_FIELD_ROW = CAL_FIELD_LOG_ROW + 2 * HW_MEMOP_COUNT,
                 CAL_FIELD_SHORT = CAL_FIELD_ROW + 2 * HW_MEMOP_COUNT,
                 CAL_FIELD_ROW0 = CAL_FIELD_SHORT + 2 * HW_MEMOP_COUNT,  /* per row */
                 /* flash attention: per direction softmax, head-dim slope,
                  * uneven head dim, floor; CAL_FIELD_FLASH + 4 dir + i */
                 CAL_FIELD_FLASH = CAL_FIELD_ROW0 + 2 * HW_MEMOP_COUNT,
                 /* point-to-point sends: NVLink and network shares */
                 CAL_FIELD_P2P_NVLINK = CAL_FIELD_FLASH + 8, CAL_FIELD_P2P_NETWORK,
                 /* the batched GEMMs (kernel.h pred_bgemm_s): per kind
                  * efficiency, traffic share, overlap, size drift
                  * (CAL_FIELD_BGEMM + 4 kind + i), then the re-read share */
                 CAL_FIELD_BGEMM,
                 CAL_FIELD_BGEMM_REREAD = CAL_FIELD_BGEMM + 4 * HW_BGEMM_KINDS,
                 /* all-gather (and reduce-scatter): NVLink and network shares */
                 CAL_FIELD_AG_NVLINK, CAL_FIELD_AG_NETWORK,
                 /* a send's fixed cost (predictor/coll.c pred_p2p_s) */
                 CAL_FIELD_P2P_BASE,
                 /* the tiers' per-hop latencies and the NICs' exponent
                  * (predictor/coll.c) */
                 CAL_FIELD_NVLINK_LAT, CAL_FIELD_NET_LAT, CAL_FIELD_NIC_EXP,
                 /* a GEMM tile's fixed cost in K steps (kernel.h
                  * pred_gemm_s); the samples' host gap between a backward's
                  * kernels (calibrate only) */
                 CAL_FIELD_GEMM_FILL, CAL_FIELD_SAMPLE_GAP,
                 /* the gradient GEMMs' correction in log M, N, K
                  * (kernel.h pred_gemm_s) */
                 CAL_FIELD_GEMM_BWD_LOG,
                 /* the layer norm's correction in log traffic (kernel.h
                  * pred_memop_row_s), forward and backward */
                 CAL_FIELD_NORM_LOG_SIZE = CAL_FIELD_GEMM_BWD_LOG + 3,
                 /* PyTorch's softmax forward from 2.7 (kernel.h
                  * pred_memop_rows_s): the warp path's longest row (a
                  * dispatch the fit picks, not a GSL parameter), its time
                  * per padded element, the register kernel's per wide row */
                 CAL_FIELD_SOFTMAX_WARP_ROW = CAL_FIELD_NORM_LOG_SIZE + 2,
                 CAL_FIELD_SOFTMAX_WARP, CAL_FIELD_SOFTMAX_WIDE,
                 /* its block kernels' scalar epilogue, forward (the older
                  * dispatch) and backward (kernel.h pred_memop_rows_s) */
                 CAL_FIELD_SOFTMAX_SCALAR,
                 /* the eager rotary's host / GPU knee (kernel.h
                  * pred_memop_knee_s), forward and backward */
                 CAL_FIELD_ROPE_KNEE = CAL_FIELD_SOFTMAX_SCALAR + 2,
                 /* the embedding backward's feature kernel, per index and
                  * per index element (kernel.h pred_embed_s) */
                 CAL_FIELD_EMBED_FEW = CAL_FIELD_ROPE_KNEE + 2,
                 CAL_FIELD_COUNT = CAL_FIELD_EMBED_FEW + 2 };

enum cal_xform { CAL_X_EFF, CAL_X_POS, CAL_X_LIN };  /* fitted as (0, 1)
                                 * logistic, > 0 exponential, or as it is */

struct cal_field_def {
    const char *path;           /* in a system file: "kernel.collective_base_us" */
    size_t off;                 /* offsetof(struct hw_system, collective_base_s) */
    double scale;               /* struct value = file value * scale (1e-6:
                                 * microseconds in the file, seconds here) */
    enum cal_xform x;
    double lo, hi;              /* a plausible fit, file units; a collective
                                 * field fitted outside keeps the prior */
    const char *why;            /* what an implausible fit means */
    bool capped;                /* a compute efficiency: at most the GPU's
                                 * measured maximum (efficiency.gemm_max) */
};

extern const struct cal_field_def cal_fields[CAL_FIELD_COUNT];

/* The field's value in file units ("launch_us": microseconds), and back. */
double cal_field_get(const struct hw_system *hw, enum cal_field f);
void cal_field_set(struct hw_system *hw, enum cal_field f, double v);

#define CAL_MAX_ROWS 96

struct cal_row {                /* one operator and direction */
    char op[40], dir[8];
    int n;                      /* samples */
    double mape_random, p90_random; /* 20 % random hold-out */
    double mape_extrap;         /* fit on hidden <= 6144, test above; < 0: none */
    double mape_extrap_mp;      /* fit below the largest mp, test on it */
    double mape_extrap_seq;     /* fit below the longest sequence, test on it */
    double mape_roofline;       /* the ablation on the random split: a
                                 * roofline with one fitted efficiency */
    double mape_physical;       /* the physical forms without the
                                 * corrections in log space */
    double authors_pct;         /* the sample set's own tree-model error; < 0: none */
    const char *why;            /* static: why the samples are not usable; NULL */
    int n_failed;               /* collective samples left out as failed runs */
};

struct cal_param {              /* one field of cal_fields, file units */
    bool fitted;                /* false: no samples constrain it */
    double value, prior;        /* fitted (or kept) and the base system's */
    char note[120];             /* why it was kept, if it was */
};

#define CAL_MAX_UNUSED 48

struct cal_unused {             /* a sample file the calibration does not fit */
    char file[96];              /* as in the folder: "nccl/..._p2p_fp16_1_2.csv" */
    const char *why;            /* a static string */
};

#define CAL_CHART_PTS 160       /* points per operator on the chart */

struct cal_points {             /* one operator file, both directions */
    int n;
    double measured[CAL_CHART_PTS], predicted[CAL_CHART_PTS];  /* us */
};

struct cal_report {             /* a plain value (large: keep it static) */
    struct cal_param params[CAL_FIELD_COUNT];
    struct cal_points points[CAL_OP_COUNT];     /* the fitted system's
                                 * prediction of an even spread of samples */
    int n_rows;
    struct cal_row rows[CAL_MAX_ROWS];
    char gpu[64];               /* file prefix of the samples */
    double gemm_rate_max;       /* the highest GEMM rate of the linear
                                 * samples, a share of 16-bit peak: the
                                 * GPU's measured maximum (efficiency.gemm_max) */
    char gemm_rate_at[96];      /* its operator, direction and shape */
    int n_unused;
    struct cal_unused unused[CAL_MAX_UNUSED];  /* every file not fitted, why */
};

/* Fit from SAMPLES_DIR/operator and SAMPLES_DIR/nccl into 'fitted' (a copy
 * of 'base' with the fitted fields replaced). The random hold-out uses PCG
 * with 'seed'. TPL_EIO / TPL_ECONFIG on unreadable or malformed samples. */
int cal_run(const char *samples_dir, const struct hw_system *base,
            uint64_t seed, struct hw_system *fitted,
            struct cal_report *rep, struct tpl_err *err);

/* The sample files in SAMPLES_DIR/operator and SAMPLES_DIR/nccl named after
 * rep->gpu that no fit reads, sorted, each with its reason (cal_run calls
 * it). */
void cal_list_unused(const char *dir, struct cal_report *rep);

/* The report: every fitted field with its prior, then the errors per
 * operator, then the files not fitted. */
void cal_report_write(FILE *fp, const struct cal_report *rep);

/* Predicted against measured time per operator on log axes (calibrate
 * --chart; calibrate/chart.c): one panel per kernel family, the line
 * predicted = measured in each, so a model that bends away shows.
 * TPL_EUSAGE for a name that is no .svg / .png, TPL_EIO. */
int cal_chart_write(const char *path, const struct cal_report *rep,
                    struct tpl_err *err);

/* The system file of 'system' (a preset name or a file) with every fitted
 * field set to the report's value, under a comment naming the samples.
 * TPL_EIO when the write fails; the errors of conf_load_named. */
int cal_system_write(FILE *fp, const char *system, const char *samples_dir,
                     const struct hw_system *fitted,
                     const struct cal_report *rep, struct tpl_err *err);

#endif /* CALIBRATE_H */
