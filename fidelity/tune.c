/* fidelity/tune.c: the FP8 factor of the systems without kernel samples,
 * the share of a fabric no source measures and the clock of a power limit
 * no source measures, fitted on published runs,
 * and their cross-validation by source (see fidelity.h).
 *
 * dgx-b200 and gb200-nvl72 have no kernel samples (shared/data/kernel-
 * samples has none for Blackwell), so calibrate cannot fit them as it fits
 * the H100's. Their GEMM share of peak is the measured MAMF (hardware-
 * facts.md sec. 6.1); their memory-bound shares, launch gap and GEMM size
 * at half efficiency are carried over from the H100 fit; their attention
 * share is cuDNN's published rate (the preset files say how). One number
 * remains that no source gives:
 *  - gemm_fp8_cs: the FP8 GEMM's share relative to BF16 with current or
 *    MXFP8 scaling, what the NeMo 25.x tables and Megatron's MoE recipes
 *    run on Blackwell (fidelity/predict.c row_fp8). The MAMF ratio
 *    (0.984 / 0.992) is a bare cuBLAS GEMM; Transformer Engine's FP8 Linear
 *    (transformer_engine/pytorch/module/linear.py, _Linear.forward and
 *    backward) also quantizes its input and output gradient per GEMM
 *    (cast-transpose kernels, common/transpose/cast_transpose.cu; with
 *    current or MXFP8 block scaling an amax or block-scale pass over each,
 *    common/recipe/current_scaling.cu, common/util/cast_kernels.cuh) and
 *    the FP8 tables' sustained clock under the 1000 / 1200 W limit is not
 *    the MAMF benchmark's. The stack's fp8_cast = "fused" counts none of
 *    this, so the factor carries it. Delayed scaling (MLPerf's) keeps
 *    gemm_fp8, the MAMF ratio: its scales come from the amax history, no
 *    pass before the cast.
 * The objective is the MAPE of the uncalibrated systems' timed, predicted
 * rows; a golden-section search (Press et al., Numerical Recipes, 3rd ed.,
 * sec. 10.2) over [FID_TUNE_FP8_LO, FID_TUNE_FP8_HI].
 *
 * The second part is a fabric's share that no source measures
 * (efficiency.network_from_runs): jeanzay-a100's Omni-Path, 4 x 100 Gb/s a
 * node, on which BLOOM and its prequel ran (RUNS.md). hardware-facts.md
 * has no Omni-Path figure (sec. 8), and the one measurement of that fabric
 * found, BigScience's own all-reduce benchmark on 4 of its A100 nodes
 * (bigscience-workshop/bigscience experiments/bandwidth/
 * all_reduce_bench-a100-n4.txt, January 2022: busbw 40.5 Gb/s a rank, 32
 * ranks), is about a tenth of the 400 Gb/s a node the links carry: taken
 * alone it would slow the BLOOM rows far past their measured times (a share
 * of 0.3 predicts them 21 % slow), so it bounds the share from below and
 * the rows place it: the objective is the MAPE of the timed, predicted rows
 * of those systems, a golden-section search over [FID_TUNE_NET_LO,
 * FID_TUNE_NET_HI]. The share moves every inter-node collective and send
 * of the system alike (hw.c read_net_from_runs).
 *
 * The third is the sustained clock of a GPU run under a power limit at
 * which no source measures it (efficiency.clock_from_runs): Meta's Grand
 * Teton H100s at their default 500 W, on which torchtitan's benchmarks
 * ran (RUNS.md; pytorch/torchtitan benchmarks/llama3_h100_202412_
 * torchtitan.md: "the actual peak TFLOPs number is between SXM and NVL,
 * and we don't know its exact value"). The preset's prior is the cube law
 * of dynamic power, (500 / 700)^(1/3) = 0.894 of the 700 W fits' clock
 * (hardware/systems/grandteton-h100.cfg); static, memory and I/O power do
 * not fall with the clock, so the SMs' share of a 500 W budget falls
 * further than the cube law says, and the rows place it: the objective is
 * the MAPE of those systems' timed, predicted rows, a golden-section search
 * over [FID_TUNE_CLOCK_LO, FID_TUNE_CLOCK_HI]. The clock moves every
 * compute-bound kernel of the system alike (predictor/kernel.c
 * compute_params); memory-bound ones keep their HBM rate. Two sources ran
 * there (torchtitan's December 2024 and June 2025 benchmarks), so each is
 * predicted held out with the clock the other's rows give. */
#include "fidelity/fidelity.h"

#include <math.h>
#include <string.h>

#define FID_TUNE_STEPS 30       /* each bracket shrinks to 0.618^30 */

/* The three parts, each with its rows and its bracket (hw.c keeps a
 * system in one: no row feeds two). */
enum tune_part { PART_FP8, PART_NET, PART_CLOCK, PART_ALL };

static bool in_part(const struct fid_row *r, enum tune_part part)
{
    return part == PART_FP8 ? r->uncalibrated
         : part == PART_NET ? r->net_tuned
         : part == PART_CLOCK ? r->clock_tuned
         : r->uncalibrated || r->net_tuned || r->clock_tuned;
}

/* The value a part fits, in t. */
static double *part_value(struct fid_tune *t, enum tune_part part)
{
    return part == PART_FP8 ? &t->gemm_fp8_cs
         : part == PART_NET ? &t->network : &t->clock;
}

/* MAPE and bias of the part's timed, predicted rows of 'source' (NULL:
 * all) other than 'exclude'; returns how many. */
static int tune_err(const struct runs *runs, const char *source,
                    const char *exclude, const struct fid_tune *t,
                    enum tune_part part, double *mape, double *bias)
{
    struct fid_report *v = fid_report_new_uncal(runs, source, t);
    double sum = 0, sgn = 0;
    int n = 0;
    for (size_t i = 0; i < v->n; i++) {
        const struct fid_row *r = &v->rows[i];
        if (!r->predicted || !r->timed || !in_part(r, part) ||
            (exclude && !strcmp(r->run->source, exclude)))
            continue;
        sum += fabs(r->err_pct), sgn += r->err_pct, n++;
    }
    fid_report_free(v);
    *mape = n ? sum / n : 0;
    *bias = n ? sgn / n : 0;
    return n;
}

struct tune_fit { const struct runs *runs; const char *exclude; enum tune_part part; };

static double objective(double x, void *arg)
{
    const struct tune_fit *f = arg;
    struct fid_tune t = { .gemm_fp8_cs = -1, .network = -1, .clock = -1 };
    double mape, bias;
    *part_value(&t, f->part) = x;
    tune_err(f->runs, NULL, f->exclude, &t, f->part, &mape, &bias);
    return mape;
}

/* One part fitted on its rows, or -1 where it has none; how many rows. */
static int fit_part(const struct runs *runs, const char *exclude,
                    enum tune_part part, double lo, double hi, double *out)
{
    struct tune_fit f = { runs, exclude, part };
    double mape, bias;
    int n = tune_err(runs, NULL, exclude, NULL, part, &mape, &bias);
    *out = n ? fid_golden(objective, &f, lo, hi, FID_TUNE_STEPS) : -1;
    return n;
}

int fid_fit_tune(const struct runs *runs, const char *exclude,
                 struct fid_tune *t, int *n_rows)
{
    t->fp8_rows = fit_part(runs, exclude, PART_FP8, FID_TUNE_FP8_LO,
                           FID_TUNE_FP8_HI, &t->gemm_fp8_cs);
    t->net_rows = fit_part(runs, exclude, PART_NET, FID_TUNE_NET_LO,
                           FID_TUNE_NET_HI, &t->network);
    t->clock_rows = fit_part(runs, exclude, PART_CLOCK, FID_TUNE_CLOCK_LO,
                             FID_TUNE_CLOCK_HI, &t->clock);
    *n_rows = t->fp8_rows + t->net_rows + t->clock_rows;
    return *n_rows ? 0 : -1;
}

int fid_tune_cv(const struct runs *runs, struct fid_tune_cv *out, int cap)
{
    const char *sources[64];
    struct fid_report *all = fid_report_new(runs, NULL);
    int n_src = fid_distinct(all, false, sources, 64), n = 0, seen;
    fid_report_free(all);
    for (int i = 0; i < n_src && n < cap; i++) {
        struct fid_tune_cv *c = &out[n];
        c->source = sources[i];
        c->n = tune_err(runs, sources[i], NULL, NULL, PART_ALL, &c->mape_before,
                        &c->bias_before);
        if (c->n == 0 || fid_fit_tune(runs, sources[i], &c->fit, &seen))
            continue;
        tune_err(runs, sources[i], NULL, &c->fit, PART_ALL, &c->mape_held,
                 &c->bias_held);
        n++;
    }
    return n;
}
