/* tests/unit/test_kernel.c: kernel quantisation and collective models. */
#include "helpers.h"

static struct pred_kernels kernels(const char *system)
{
    struct hw_system h = load_system(system);
    struct pred_kernels k;
    pred_kernels_init(&k, &h, PRED_GEMM_16BIT);
    return k;
}

/* NVIDIA "Matrix Multiplication Background": an output of exactly one wave
 * of whole tiles wastes nothing; one row more needs a second row of tiles
 * and a second wave. */
Test(kernel, tile_and_wave_quantisation)
{
    struct pred_kernels k = kernels("dgx-h100");       /* 132 SMs, 128x128 */
    assert_rel(pred_quant_eff(&k, 128, 128 * 132), 1.0, 1e-15);
    assert_rel(pred_quant_eff(&k, 129, 128 * 132),
               129.0 * 128 * 132 / (2.0 * 132 * 128 * 128), 1e-12);
    assert_rel(pred_quant_eff(&k, 128, 128 * 133), 133.0 / 264, 1e-12);
    cr_assert_leq(pred_quant_eff(&k, 1000, 3000), 1.0);
}

Test(kernel, saturating_efficiency)
{
    struct pred_kernels k = kernels("dgx-h100");
    assert_rel(pred_sat_eff(&k.gemm, k.gemm.half_flop), k.gemm.eff_max / 2, 1e-12);
    cr_assert_lt(pred_sat_eff(&k.gemm, 1e9), pred_sat_eff(&k.gemm, 1e12));
    cr_assert_lt(pred_sat_eff(&k.gemm, 1e15), k.gemm.eff_max);
}

/* A large GEMM runs near eff_max x peak. */
Test(kernel, large_gemm_near_peak)
{
    struct pred_kernels k = kernels("dgx-h100");
    double n = 128 * 132 * 4, t = pred_gemm_s(&k, &k.gemm, 8192, n, 8192, 2);
    double ideal = 2.0 * 8192 * n * 8192 / (k.gemm.peak_flops * k.gemm.eff_max);
    assert_rel(t, ideal + k.launch_s, 0.01);
}

/* Ring factors (NCCL tests PERFORMANCE.md): all-reduce moves 2(n-1)/n of
 * the buffer, all-gather and reduce-scatter (n-1)/n; latency base plus one
 * hop per ring step. */
Test(kernel, ring_factors_inside_a_node)
{
    struct pred_kernels k = kernels("dgx-h100");
    double s = 1e9, bw = k.intra_bytes_per_s, lat = k.intra_lat_s;
    assert_rel(pred_coll_s(&k, PRED_COLL_ALLREDUCE, s, 8, 8),
               k.coll_base_s + 2.0 * 7 / 8 * s / bw + 14 * lat, 1e-12);
    assert_rel(pred_coll_s(&k, PRED_COLL_ALLGATHER, s, 8, 8),
               k.coll_base_s + 7.0 / 8 * s / bw + 7 * lat, 1e-12);
    assert_rel(pred_coll_s(&k, PRED_COLL_REDUCESCATTER, s, 4, 4),
               k.coll_base_s + 3.0 / 4 * s / bw + 3 * lat, 1e-12);
    cr_assert_eq(pred_coll_s(&k, PRED_COLL_ALLREDUCE, s, 1, 1), 0);
}

/* A group across nodes: the NVLink stage over the k local ranks, then the
 * network stage over n/k nodes on S/k per GPU (each GPU has its own NIC). */
Test(kernel, hierarchical_tiers_across_nodes)
{
    struct pred_kernels k = kernels("dgx-h100");
    double s = 1e9, bi = k.intra_bytes_per_s, bn = k.inter_bytes_per_s;
    double t = pred_coll_s(&k, PRED_COLL_ALLREDUCE, s, 64, 8);
    double expect = k.coll_base_s + 2.0 * 7 / 8 * s / bi + 14 * k.intra_lat_s +
                    2.0 * 7 / 8 * (s / 8) / bn + 6 * k.inter_lat_s;
    assert_rel(t, expect, 1e-12);
    /* one rank per node: all of it crosses the network */
    t = pred_coll_s(&k, PRED_COLL_ALLREDUCE, s, 8, 1);
    assert_rel(t, k.coll_base_s + 2.0 * 7 / 8 * s / bn + 6 * k.inter_lat_s, 1e-12);
    /* the network tier is the slow one */
    cr_assert_gt(pred_coll_s(&k, PRED_COLL_ALLREDUCE, s, 8, 1),
                 pred_coll_s(&k, PRED_COLL_ALLREDUCE, s, 8, 8));
}

Test(kernel, fp8_gemms_use_fp8_peak)
{
    struct hw_system h = load_system("dgx-h100"), a = load_system("dgx-a100");
    struct pred_kernels k;
    pred_kernels_init(&k, &h, PRED_GEMM_FP8);
    cr_assert_eq(k.gemm.peak_flops, h.fp8_flops);
    cr_assert_eq(k.attn.peak_flops, h.bf16_flops);
    pred_kernels_init(&k, &a, PRED_GEMM_FP8);           /* A100: no FP8 */
    cr_assert_eq(k.gemm.peak_flops, a.bf16_flops);
}

/* A bigger GEMM never takes less time than a smaller one, down to a single
 * row or column (the small-problem overhead is added to the padded work). */
Test(kernel, gemm_time_grows_with_every_dimension)
{
    struct pred_kernels k = kernels("dgx-a100");
    static const double sizes[] = { 1, 7, 64, 127, 128, 129, 1000, 4096, 8192, 65536 };
    int n = (int)(sizeof sizes / sizeof sizes[0]);
    for (int a = 0; a < n; a++)
        for (int b = 0; b < n; b++)
            for (int c = 0; c + 1 < n; c++) {
                double x = sizes[a], y = sizes[b], z = sizes[c], w = sizes[c + 1];
                cr_assert_leq(pred_gemm_s(&k, &k.gemm, z, x, y, 2), pred_gemm_s(&k, &k.gemm, w, x, y, 2));
                cr_assert_leq(pred_gemm_s(&k, &k.gemm, x, z, y, 2), pred_gemm_s(&k, &k.gemm, x, w, y, 2));
                cr_assert_leq(pred_gemm_s(&k, &k.gemm, x, y, z, 2), pred_gemm_s(&k, &k.gemm, x, y, w, 2));
            }
}
