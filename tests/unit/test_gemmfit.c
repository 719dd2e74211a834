/* tests/unit/test_gemmfit.c: a GEMM tile's fixed cost in K steps and the
 * split-K of an output of few tiles (predictor/kernel.c pred_gemm_s) by
 * hand on round kernel numbers, and the published samples' linear-layer
 * errors with the GPU's own measured maximum as the cap. */
#include "calfit.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "calibrate/calibrate.h"

/* 100 TFLOP/s at 0.5 with no size curve, 1 TB/s, no launch, 128 x 128
 * tiles on 100 SMs. */
static struct pred_kernels round_kernels(void)
{
    struct pred_kernels k = { 0 };
    k.gemm = (struct pred_kparams){ .peak_flops = 1e14, .eff_max = 0.5,
                                    .half_flop = 0 };
    k.mem_bytes_per_s = 1e12;
    k.tile_m = k.tile_n = 128;
    k.sms = 100;
    return k;
}

/* M = N = 1280, K = 256: 100 tiles, one wave (no split: as many tiles as
 * SMs). Without fill: 2 x 256 x 100 x 128^2 = 838.86 MFLOP at 50 TFLOP/s =
 * 16.777 us; its traffic 2 (1280 x 256 x 2) + 2 x 1280^2 = 4.59 MB, 4.59
 * us. A fill of 128 K steps: 2 x 384 x 100 x 128^2 FLOPs, 25.166 us. */
Test(gemmfit, tile_fill_by_hand)
{
    struct pred_kernels k = round_kernels();
    assert_rel(pred_gemm_s(&k, &k.gemm, 1280, 1280, 256, 2), 16.777216e-6, 1e-9);
    k.gemm_fill_k = 128;
    assert_rel(pred_gemm_s(&k, &k.gemm, 1280, 1280, 256, 2), 25.165824e-6, 1e-9);
    cr_assert_eq(pred_gemm_splits(&k, &k.gemm, 1280, 1280, 256, 2), 1);
}

/* A weight gradient of 128 x 1280 outputs (10 tiles) over K = 65536
 * tokens: unsplit, one wave of 2 x 65536 x 100 x 128^2 = 214.7 GFLOP of
 * covered work at 50 TFLOP/s, 4294.97 us. Split 8 ways (80 tiles, one
 * wave; 16 would need 160 slots): 2 x 8192 x 100 x 128^2 = 26.84 GFLOP,
 * 536.87 us; its traffic 2 (128 x 65536 + 65536 x 1280) + 2 x 128 x 1280
 * + 8 x 8 x 128 x 1280 = 195.36 MB at 1 TB/s, 195.36 us: the math sets
 * the time. The fastest split is 8, the most that fits a wave. */
Test(gemmfit, split_k_by_hand)
{
    struct pred_kernels k = round_kernels();
    double t8 = 2.0 * 8192 * 100 * 128 * 128 / 5e13;
    cr_assert_float_eq(t8 * 1e6, 536.870912, 1e-6);
    cr_assert_eq(pred_gemm_splits(&k, &k.gemm, 128, 1280, 65536, 2), 8);
    assert_rel(pred_gemm_s(&k, &k.gemm, 128, 1280, 65536, 2), t8, 1e-9);
    k.sms = 10;                         /* as many tiles as SMs: no split */
    cr_assert_eq(pred_gemm_splits(&k, &k.gemm, 128, 1280, 65536, 2), 1);
}

/* The split partials' traffic stops the splitting where the kernel turns
 * memory-bound: one 128 x 128 tile over K = 4096, 2-byte inputs; the
 * partials (8 s x 128^2 bytes) grow with the splits while the math
 * shrinks, so the fastest split is below the 64 that fit a wave. */
Test(gemmfit, split_k_stops_at_the_traffic)
{
    struct pred_kernels k = round_kernels();
    double s = pred_gemm_splits(&k, &k.gemm, 128, 128, 4096, 2);
    cr_assert(s > 1 && s < 64, "%g", s);
    cr_assert_lt(pred_gemm_s(&k, &k.gemm, 128, 128, 4096, 2),
                 2.0 * 4096 * 100 * 128 * 128 / 5e13);
}

/* The gradient GEMMs' correction in log M, N, K (kernel.h pred_gemm_s):
 * the time x (M/4096)^a (N/4096)^b (K/4096)^c, each side held inside
 * [2^7, 2^16], never under the class's asymptotic rate. Round kernels:
 * M = N = 1280, K = 256 takes 16.777 us (tile_fill_by_hand), exactly that
 * rate (no tile wasted). a = -0.1: x (1280/4096)^-0.1 = 1.1233. K = 64
 * takes a quarter, 4.194 us; c = -0.2 with K held at 2^7: x (128/4096)^-0.2
 * = 2. c = 0.5 would give 16.777 x (256/4096)^0.5 = 4.19 us, under the
 * rate: 16.777 us. */
Test(gemmfit, bwd_log_correction_by_hand)
{
    struct pred_kernels k = round_kernels();
    double t = 16.777216e-6;
    k.gemm.log_mnk[0] = -0.1;
    assert_rel(pred_gemm_s(&k, &k.gemm, 1280, 1280, 256, 2), t * pow(1280.0 / 4096, -0.1),
               1e-9);
    k.gemm.log_mnk[0] = 0;
    k.gemm.log_mnk[2] = -0.2;           /* K = 64: held at 128 */
    assert_rel(pred_gemm_s(&k, &k.gemm, 1280, 1280, 64, 2), t / 4 * 2.0, 1e-9);
    k.gemm.log_mnk[2] = 0.5;
    assert_rel(pred_gemm_s(&k, &k.gemm, 1280, 1280, 256, 2),
               2.0 * 1280 * 1280 * 256 / 5e13, 1e-9);
}

/* On the published samples (skipped without ../shared): with the GPU's
 * own measured maximum as the cap (the report's highest sampled GEMM
 * rate), the tile fill, split-K and the samples' host gap, the linear
 * layers within the README's figures (random split, seed 42). */
Test(gemmfit, published_samples_meet_the_readme)
{
    static const struct { const char *gpu, *op, *dir; double max; } want[] = {
        { "perlmutter-a100", "linear1", "bwd", 5.0 },
        { "perlmutter-a100", "linear2", "bwd", 2.6 }, { "perlmutter-a100", "linear3", "bwd", 4.0 },
        { "perlmutter-a100", "linear4", "bwd", 4.6 }, { "perlmutter-a100", "linear_final", "bwd", 4.6 },
        { "vista-gh200", "linear1", "bwd", 6.2 }, { "vista-gh200", "linear2", "bwd", 6.2 },
        { "vista-gh200", "linear2", "fwd", 6 }, { "vista-gh200", "linear3", "bwd", 5.2 },
        { "vista-gh200", "linear4", "bwd", 4.2 }, { "vista-gh200", "linear_final", "bwd", 5 },
    };
    for (size_t w = 0; w < sizeof want / sizeof want[0]; w++) {
        struct hw_system base;
        const struct cal_report *rep = published_fit(want[w].gpu, &base);
        const struct cal_row *r = report_row(rep, want[w].op, want[w].dir);
        assert_rel(rep->gemm_rate_max, base.eff_max, 0.002);     /* the cap */
        cr_assert_lt(r->mape_random, want[w].max, "%s %s %s: %.2f", want[w].gpu,
                     want[w].op, want[w].dir, r->mape_random);
    }
}
