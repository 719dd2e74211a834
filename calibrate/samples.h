/* calibrate/samples.h: sampled kernel and NCCL timings in the format of
 * ../shared/data/kernel-samples (README there): a folder with operator/ and
 * nccl/ CSV files named after the GPU. Read as strictly as a runs file:
 * every row has as many fields as the header, every value the fit reads is
 * a plain decimal number in its range, and errors name file, line and
 * column ("x_gelu_fp16.csv:7: column 'dim': must be a number > 0, not 'x'").
 * No line or column limit. Columns the fit does not read are ignored. */
#ifndef CAL_SAMPLES_H
#define CAL_SAMPLES_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "common/err.h"

/* The sampled operators the calibration fits, in report order. */
enum cal_op { CAL_OP_GELU, CAL_OP_RESADD, CAL_OP_NORM, CAL_OP_L1, CAL_OP_L2,
              CAL_OP_L3, CAL_OP_L4, CAL_OP_FLASH,
              /* the rest of the operator files (issue 15) */
              CAL_OP_RMSNORM, CAL_OP_ROPE, CAL_OP_SOFTMAX, CAL_OP_SUTMS,
              CAL_OP_FILLMASK, CAL_OP_BADDBMM, CAL_OP_BMM, CAL_OP_EMBED,
              CAL_OP_XENT, CAL_OP_LFINAL, CAL_OP_OPT_FIRST, CAL_OP_OPT_MIDDLE,
              CAL_OP_OPT_LAST,
              CAL_OP_AR_INTRA, CAL_OP_AR_INTER, CAL_OP_P2P_INTRA,
              CAL_OP_P2P_INTER, CAL_OP_AG_INTRA, CAL_OP_AG_INTER, CAL_OP_COUNT };

const char *cal_op_name(enum cal_op op);    /* "gelu", "allreduce (node)" */
bool cal_op_is_step(enum cal_op op);        /* one time per sample (dur(us)) */
bool cal_op_is_link(enum cal_op op);        /* a collective (nccl/ file) */

struct cal_sample {             /* a plain value */
    double mp, b, h, l, dim;    /* operator shape (1 where the file has none) */
    double enc;                 /* layers of an optimizer-step stage */
    double shape, nodes, gpn;   /* collective: fp16 elements per rank, nodes,
                                 * GPUs per node */
    double t[2];                /* seconds, forward and backward (or the one);
                                 * 0: not sampled */
    bool test;                  /* in the random hold-out */
    bool failed;                /* a collective faster than its links'
                                 * peak allows, or of a file the authors'
                                 * own model misses by over 50 %: not fitted */
};

struct cal_set {                /* caller-owned: free(s) */
    struct cal_sample *s;
    int n;
};

enum cal_csv { CAL_CSV_OPERATOR, CAL_CSV_NCCL };

/* Read one samples CSV from 'fp' ('name' stands for the file in messages).
 * An operator file's shape columns (mp, b, h, l, dim) default to 1 and its
 * times (F_dur(us), B_dur(us)) to 0 when absent; an NCCL file must have
 * shape, nodes, GPUsPerNode and dur(us). TPL_ECONFIG with *out empty on a
 * malformed file, TPL_EIO on a read error. */
int cal_csv_read(FILE *fp, const char *name, enum cal_csv kind,
                 struct cal_set *out, struct tpl_err *err);

struct cal_samples {            /* caller-owned: cal_samples_release */
    struct cal_set op[CAL_OP_COUNT];
    double authors_pct[CAL_OP_COUNT][2];   /* the sample set's own error, %;
                                            * -1: none (a collective tier: the
                                            * sample-weighted mean of its files') */
    int authors_n[CAL_OP_COUNT];    /* samples behind a tier's authors_pct */
    bool unusable[CAL_OP_COUNT];    /* the authors' own error above 100 %:
                                     * the samples are read, not fitted */
    char prefix[64];            /* the GPU's file prefix: "NVIDIAA100-SXM4-80GB" */
    bool split_mean[CAL_OP_COUNT];  /* the forward times are the mean of the
                                 * kernels a tensor over 2^31 bytes is split
                                 * into (calibrate/fit.c, set by cal_run) */
    int n_failed[CAL_OP_COUNT];     /* samples marked failed (calibrate/fit.c) */
    int n_nccl_authors;         /* the authors' error per collective file */
    struct cal_nccl_authors { int kind, nodes, gpn; double pct; } nccl_authors[32];
    bool fwd_as_bwd[CAL_OP_COUNT];  /* the forward times of the many-index
                                 * rows are the backward's (calibrate/fit.c,
                                 * set by cal_run) */
    double max_mp[CAL_OP_COUNT], max_l[CAL_OP_COUNT];   /* the largest mp
                                 * and sequence of each operator's samples
                                 * (a collective's: the largest group, in
                                 * ranks, and message, in elements), 0 when
                                 * they have one value only (no hold-out) */
};

/* Every sample of 'dir' (operator/<GPU>.csv names the GPU; nccl/ is
 * optional), 20 % of each operator's samples drawn into the random hold-out
 * with PCG from 'seed'. TPL_EIO when a file cannot be read, TPL_ECONFIG when
 * one is malformed; the samples are released then. */
int cal_samples_load(struct cal_samples *s, const char *dir, uint64_t seed,
                     struct tpl_err *err);
void cal_samples_release(struct cal_samples *s);

#endif /* CAL_SAMPLES_H */
