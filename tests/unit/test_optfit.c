/* tests/unit/test_optfit.c: the optimizer step's model (predictor/kernel.c
 * pred_optim_s: floor + parameter tensors x host time per tensor +
 * parameters x time per parameter) by hand, calibrate recovering its three
 * numbers from synthetic per-stage samples (+-1 % PCG noise) with disturbed
 * runs (seconds where the rest take milliseconds) left out, and the
 * published samples' errors. */
#include "calfit.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/rng.h"
#include "calibrate/calibrate.h"

static struct tpl_rng rng;

/* A100 facts with a step fit of round numbers: 80 us floor, 40 us a
 * tensor, 20 ps a parameter. */
static struct hw_system optim_system(void)
{
    struct hw_system hw = load_system("dgx-a100");
    struct hw_memop_fit *o = &hw.memop[HW_MEMOP_OPTIM];
    hw.has_memops = true;
    o->fitted = true;
    for (int d = 0; d < 2; d++)
        o->floor_s[d] = 80e-6, o->row0_s[d] = 40e-6, o->row_s[d] = 20e-12,
        o->eff[d] = 0.5;
    return hw;
}

/* 24 layers of hidden 4096 at mp 2 (a middle stage): 12 tensors a layer,
 * 288 in all; 24 x (12 x 4096^2 / 2 + 7 x 4096 / 2 + 6 x 4096) =
 * 2,416,852,992 parameters. 80 + 288 x 40 + 2,416,852,992 x 20e-6 us =
 * 80 + 11520 + 48337.06 = 59937.06 us. */
Test(optfit, step_by_hand)
{
    struct hw_system hw = optim_system();
    struct pred_kernels k;
    double P = 24 * (12 * 4096.0 * 4096 / 2 + 7 * 4096.0 / 2 + 6 * 4096.0);
    pred_kernels_init(&k, &hw, PRED_GEMM_16BIT);
    cr_assert_float_eq(P, 2416852992.0, 0.5);
    cr_assert_float_eq(1e6 * pred_optim_s(&k, 14 * P, P, 288, 1), 59937.06, 0.01);
}

/* Without the per-tensor fit, the generic model of the bytes: a step
 * over the flat buffers of the predictor's plans. */
Test(optfit, step_without_fit_is_the_traffic)
{
    struct hw_system hw = load_system("dgx-a100");
    struct pred_kernels k;
    pred_kernels_init(&k, &hw, PRED_GEMM_16BIT);
    assert_rel(pred_optim_s(&k, 34e9, 1e9, 288, 8),
               pred_memop_size_s(&k, HW_MEMOP_OPTIM, 0, 34e9, 1, 8), 1e-12);
}

static FILE *open_at(const char *dir, const char *name, const char *header)
{
    char path[600];
    FILE *fp;
    snprintf(path, sizeof path, "%s/operator/SYNTH_%s.csv", dir, name);
    cr_assert_not_null((fp = fopen(path, "w")));
    fprintf(fp, "%s\n", header);
    return fp;
}

/* One stage file over the sample sets' grid (mp 1-16, hidden 2048-8192,
 * 4-12 layers) from the truth's model; the first 'bad' rows take 1000x
 * (the disturbed start of a sampling run). */
static void synth_stage(const char *dir, const struct pred_kernels *k,
                        const char *stage, int bad)
{
    char name[64];
    FILE *fp;
    int row = 0;
    snprintf(name, sizeof name, "%sStage_optimizer_fp16", stage);
    fp = open_at(dir, name, "mp,dim,encoders,dur(us)");
    for (double mp = 1; mp <= 16; mp *= 2)
        for (double d = 2048; d <= 8192; d += 1024)
            for (double e = 4; e <= 12; e += 2) {
                double v = ceil(50257.0 / (128 * mp)) * 128;
                double P = e * (12 * d * d / mp + 7 * d / mp + 6 * d);
                double n = 12 * e, t;
                if (!strcmp(stage, "first"))
                    P += v * d, n += 1;
                if (!strcmp(stage, "last"))
                    P += v * d + 2 * d, n += 3;
                t = pred_optim_s(k, 14 * P, P, n, 1);
                t *= 1.0 + 0.02 * (tpl_rng_unit(&rng) - 0.5);
                fprintf(fp, "%g,%g,%g,%.3f\n", mp, d, e,
                        1e6 * t * (row++ < bad ? 1000 : 1));
            }
    fclose(fp);
}

Test(optfit, calibrate_recovers_the_step)
{
    char dir[] = "/tmp/trainplan-optfit-XXXXXX";
    struct hw_system truth = optim_system(), base = load_system("dgx-a100"), fit;
    static struct cal_report rep;
    struct tpl_err err = { 0 };
    struct pred_kernels k;
    const struct hw_memop_fit *o;
    int seen = 0;
    pred_kernels_init(&k, &truth, PRED_GEMM_16BIT);
    tpl_rng_seed(&rng, 15, 3);
    cr_assert_not_null(mkdtemp(dir));
    synth_folder(dir, false);
    synth_stage(dir, &k, "first", 6);
    synth_stage(dir, &k, "middle", 0);
    synth_stage(dir, &k, "last", 0);
    cr_assert_eq(cal_run(dir, &base, 42, &fit, &rep, &err), 0, "%s", err.msg);
    o = &fit.memop[HW_MEMOP_OPTIM];
    assert_rel(o->row0_s[0], 40e-6, 0.03);
    assert_rel(o->row_s[0], 20e-12, 0.03);
    cr_assert_float_eq(o->floor_s[0], 80e-6, 40e-6);   /* a small share */
    cr_assert_float_eq(o->row_s[1], o->row_s[0], 0);   /* one step */
    for (int i = 0; i < rep.n_rows; i++) {
        const struct cal_row *r = &rep.rows[i];
        if (strncmp(r->op, "optimizer", 9))
            continue;
        seen++;
        cr_assert_null(r->why, "%s", r->op);
        cr_assert_lt(r->mape_random, 1.5, "%s: %.2f%%", r->op, r->mape_random);
        cr_assert_lt(r->mape_extrap, 1.5, "%s: %.2f%%", r->op, r->mape_extrap);
        cr_assert_eq(r->n_failed, strcmp(r->op, "optimizer (first)") ? 0 : 6);
    }
    cr_assert_eq(seen, 3);
    scratch_remove(dir);
}

/* On the published samples (skipped without ../shared): every stage file
 * fitted, the GH200 first stage included (its 48 disturbed rows left
 * out), within the README's figures (random split, seed 42). */
Test(optfit, published_samples_meet_the_readme)
{
    static const struct { const char *gpu, *op; double max; int failed; } want[] = {
        { "perlmutter-a100", "optimizer (first)", 3.5, 0 },
        { "perlmutter-a100", "optimizer (middle)", 3.0, 0 },
        { "perlmutter-a100", "optimizer (last)", 3.0, 0 },
        { "vista-gh200", "optimizer (first)", 9.0, 48 },
        { "vista-gh200", "optimizer (middle)", 9.0, 0 },
        { "vista-gh200", "optimizer (last)", 12.0, 0 },
    };
    for (size_t w = 0; w < sizeof want / sizeof want[0]; w++) {
        struct hw_system base;
        const struct cal_row *r = report_row(published_fit(want[w].gpu, &base),
                                             want[w].op, NULL);
        cr_assert_null(r->why, "%s %s", want[w].gpu, want[w].op);
        cr_assert_lt(r->mape_random, want[w].max, "%s %s: %.2f", want[w].gpu,
                     want[w].op, r->mape_random);
        cr_assert_eq(r->n_failed, want[w].failed);
    }
}
