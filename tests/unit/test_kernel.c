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

/* A large GEMM runs near eff_max x peak, each tile's K steps and its
 * fixed fill (kernel.gemm_fill_k) at that rate. */
Test(kernel, large_gemm_near_peak)
{
    struct pred_kernels k = kernels("dgx-h100");
    double n = 128 * 132 * 4, t = pred_gemm_s(&k, &k.gemm, 8192, n, 8192, 2);
    double ideal = 2.0 * 8192 * n * (8192 + k.gemm_fill_k) /
                   (k.gemm.peak_flops * k.gemm.eff_max);
    assert_rel(t, ideal + k.launch_s, 0.01);
}

/* A tile's mainloop runs K in whole steps of kernel.tile_k (kernel.h
 * pred_k_steps): dgx-h100's 64 (cuBLAS's Hopper "tilesize128x128x64"),
 * dgx-a100's 32; a file without the field, 1, leaves K as it is. By hand:
 * K = 80 runs two steps of 64, 128; K = 64 one; K = 4112 (64 x 64 + 16)
 * 65, 4160. */
Test(kernel, k_runs_in_whole_tile_steps)
{
    struct pred_kernels k = kernels("dgx-h100"), a = kernels("dgx-a100");
    cr_assert_eq(k.tile_k, 64.0);
    cr_assert_eq(a.tile_k, 32.0);
    cr_assert_eq(pred_k_steps(&k, 80), 128.0);
    cr_assert_eq(pred_k_steps(&k, 64), 64.0);
    cr_assert_eq(pred_k_steps(&k, 1), 64.0);
    cr_assert_eq(pred_k_steps(&k, 4112), 4160.0);
    cr_assert_eq(pred_k_steps(&a, 80), 96.0);
    k.tile_k = 1;
    cr_assert_eq(pred_k_steps(&k, 80), 80.0);
}

/* A compute-bound GEMM (8192 x 8192 outputs, 4096 tiles of 128 x 128: 32
 * waves of 132, no split) with K = 4112 times the mainloop of 4160: the
 * padded work W = 2 (K' + fill) x 32 x 132 x 128^2 at the saturating
 * efficiency, W / (peak eff_max W / (W + half)) = (W + half) / (peak
 * eff_max), so (W(4160) + half) / (W(4112) + half) of the unrounded
 * GEMM's time, launch aside; K = 4160 itself costs the same mainloop
 * (only its traffic is larger, hidden). */
Test(kernel, gemm_k_tail_costs_a_whole_step)
{
    struct pred_kernels k = kernels("dgx-h100"), one = k;
    double t64, t1, full, cov = 2.0 * 32 * 132 * 128 * 128, h = k.gemm.half_flop;
    cr_assert_eq(k.sms, 132);
    one.tile_k = 1;
    t64 = pred_gemm_s(&k, &k.gemm, 8192, 8192, 4112, 2) - k.launch_s;
    t1 = pred_gemm_s(&one, &one.gemm, 8192, 8192, 4112, 2) - one.launch_s;
    full = pred_gemm_s(&k, &k.gemm, 8192, 8192, 4160, 2) - k.launch_s;
    assert_rel(t64 / t1, (cov * (4160 + k.gemm_fill_k) + h) / (cov * (4112 + k.gemm_fill_k) + h),
               1e-12);
    assert_rel(t64, full, 1e-12);
}

/* Split along K, each split's tiles run their own K / s in whole steps: an
 * output of 64 tiles (1024 x 1024, compute-bound) with K = 16416 on 132
 * SMs splits in 2 (one wave of 128 tiles); each split's 8208 runs 8256
 * (the whole K rounded first would be 16448 / 2 = 8224). The padded work
 * 2 (8256 + fill) x 132 x 128^2 at the saturating efficiency, against the
 * inputs, the output and the 2 fp32 partials written and read. */
Test(kernel, split_k_rounds_each_split)
{
    struct pred_kernels k = kernels("dgx-h100");
    double s = pred_gemm_splits(&k, &k.gemm, 1024, 1024, 16416, 2), w, bytes, t;
    cr_assert_eq(s, 2.0);
    cr_assert(k.gemm.log_mnk[0] == 0 && k.gemm.log_mnk[1] == 0 && k.gemm.log_mnk[2] == 0);
    w = 2.0 * (8256 + k.gemm_fill_k) * 132 * 128 * 128;
    bytes = 2.0 * (1024.0 * 16416 * 2) + 2.0 * 1024 * 1024 + 8.0 * 2 * 1024 * 1024;
    cr_assert_lt(bytes / k.mem_bytes_per_s, w / (k.gemm.peak_flops * pred_sat_eff(&k.gemm, w)));
    t = fmax(w / (k.gemm.peak_flops * pred_sat_eff(&k.gemm, w)), bytes / k.mem_bytes_per_s);
    assert_rel(pred_gemm_s(&k, &k.gemm, 1024, 1024, 16416, 2), t + k.launch_s, 1e-12);
}

/* The batched GEMM's mainloop and the grouped GEMMs' run the same whole
 * steps: QK^T over a head dimension of 80 (K) costs a 64-deep kernel the
 * math of 128; with its traffic free (io share huge, no overlap) the two
 * times are equal, and the unrounded kernel's K = 80 is faster. Expert
 * GEMMs of K = 4112 and 4160 (compute-bound) likewise. */
Test(kernel, batched_and_grouped_gemms_round_k)
{
    struct hw_system h = load_system("vista-gh200");
    struct pred_kernels k, one;
    pred_kernels_init(&k, &h, PRED_GEMM_16BIT);
    for (int i = 0; i < HW_BGEMM_KINDS; i++)
        k.bgemm.io_eff[i] = 1e9, k.bgemm.overlap[i] = 0;
    one = k;
    one.tile_k = 1;
    assert_rel(pred_bgemm_s(&k, &k.attn, 64, 2048, 2048, 80, 2),
               pred_bgemm_s(&k, &k.attn, 64, 2048, 2048, 128, 2), 1e-12);
    cr_assert_lt(pred_bgemm_s(&one, &one.attn, 64, 2048, 2048, 80, 2),
                 pred_bgemm_s(&k, &k.attn, 64, 2048, 2048, 80, 2));
    assert_rel(pred_grouped_gemm_s(&k, &k.gemm, 8, 8192, 4096, 4112, 2),
               pred_grouped_gemm_s(&k, &k.gemm, 8, 8192, 4096, 4160, 2), 1e-12);
    cr_assert_lt(pred_grouped_gemm_s(&one, &one.gemm, 8, 8192, 4096, 4112, 2),
                 pred_grouped_gemm_s(&k, &k.gemm, 8, 8192, 4096, 4112, 2));
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

/* Round, hand-set kernel numbers, so every expected time below is worked
 * out on paper: 1 TB/s memory, 1 us launch, 100 TFLOP/s at eff_max 0.5 with
 * a half point of 1 GFLOP, 128 x 128 tiles on 100 SMs, 100 GB/s pairs with
 * 2 us hops. */
static struct pred_kernels round_kernels(void)
{
    struct pred_kernels k = { 0 };
    k.gemm = (struct pred_kparams){ .peak_flops = 1e14, .eff_max = 0.5,
                                    .half_flop = 1e9 };
    k.mem_bytes_per_s = 1e12;
    k.norm_bytes_per_s = 5e11;
    k.launch_s = 1e-6;
    k.tile_m = k.tile_n = 128;
    k.sms = 100;
    k.pair_bytes_per_s = 1e11;
    k.intra_lat_s = 2e-6;
    k.inter_bytes_per_s = 5e10;
    k.inter_lat_s = 5e-6;
    k.p2p_intra_scale = k.p2p_inter_scale = 1;
    return k;
}

/* A thin GEMM is memory-bound: it reads A (M x K) and B (K x N) at
 * in_bytes each and writes C (M x N) in 16 bits. M = 1e6, N = K = 8, bf16:
 * 2 (8e6 + 64) + 2 * 8e6 = 32,000,128 bytes at 1 TB/s = 32.000128 us, plus
 * the 1 us launch. With 128 x 8 tiles its padded math is 7813 tiles in
 * 79 waves, 2 * 8 * 79 * 100 * 128 * 8 = 129,433,600 FLOPs at the
 * saturating efficiency 0.5 * 1.294e8 / (1.294e8 + 1e9) = 5.73 % of
 * 100 TFLOP/s: 22.6 us, below the memory time. */
Test(kernel, thin_gemm_reads_inputs_writes_output)
{
    struct pred_kernels k = round_kernels();
    double t;
    k.tile_n = 8;
    t = pred_gemm_s(&k, &k.gemm, 1e6, 8, 8, 2);
    assert_rel(t, 32.000128e-6 + 1e-6, 1e-12);
}

/* A small compute kernel pays its launch: 1 MFLOP at the saturating
 * efficiency 0.5 * 1e6 / (1e6 + 1e9) of 100 TFLOP/s is 1e6 / (1e14 *
 * 4.995e-4) = 20.02 us; its 1 KB moves in 1 ns; plus 1 us launch. */
Test(kernel, compute_kernel_pays_its_launch)
{
    struct pred_kernels k = round_kernels();
    double eff = 0.5 * 1e6 / (1e6 + 1e9);
    assert_rel(pred_compute_s(&k, &k.gemm, 1e6, 1e3),
               1e6 / (1e14 * eff) + 1e-6, 1e-12);
    assert_rel(pred_mem_s(&k, 1e6, 3), 1e-6 + 3e-6, 1e-12);
    assert_rel(pred_norm_s(&k, 1e6, 2), 2e-6 + 2e-6, 1e-12);
}

/* A point-to-point send is one hop of latency plus the bytes over the pair
 * (inside a domain) or the NIC (across): 1 MB takes 2 + 10 us inside and
 * 5 + 20 us across. */
Test(kernel, p2p_latency_and_bandwidth_by_tier)
{
    struct pred_kernels k = round_kernels();
    assert_rel(pred_p2p_s(&k, 1e6, 0), 2e-6 + 10e-6, 1e-12);
    assert_rel(pred_p2p_s(&k, 1e6, 1), 5e-6 + 20e-6, 1e-12);
    /* a send's own share (efficiency.p2p_*): 0.9 of the pair's 1e11 */
    k.p2p_intra_scale = 0.9;
    assert_rel(pred_p2p_s(&k, 1e6, 0), 2e-6 + 1e6 / 0.9e11, 1e-12);
}

/* FP8 GEMMs run at the FP8 peak times the 16-bit efficiencies scaled by
 * the measured FP8/BF16 ratio (efficiency.gemm_fp8), capped at 1; the
 * attention core stays 16-bit. */
Test(kernel, fp8_gemm_efficiency_ratio)
{
    struct hw_system h = load_system("dgx-h100");
    struct pred_kernels k;
    h.eff_gemm = 0.8;
    h.eff_gemm_bwd = 0.7;
    h.eff_gemm_fp8 = 0.5;
    h.eff_gemm_fp8_cs = 0.25;
    pred_kernels_init(&k, &h, PRED_GEMM_FP8_DELAYED);
    assert_rel(k.gemm.peak_flops, h.fp8_flops, 0);
    assert_rel(k.gemm.eff_max, 0.4, 1e-12);
    assert_rel(k.gemm_bwd.eff_max, 0.35, 1e-12);
    assert_rel(k.attn.peak_flops, h.bf16_flops, 0);
    /* the LM head's 16-bit GEMMs whatever the job's precision */
    assert_rel(k.gemm16.peak_flops, h.bf16_flops, 0);
    assert_rel(k.gemm16.eff_max, 0.8, 1e-12);
    assert_rel(k.gemm16_bwd.eff_max, 0.7, 1e-12);
    /* current / MXFP8 scaling: gemm_fp8_cs (fidelity/tune.c) */
    pred_kernels_init(&k, &h, PRED_GEMM_FP8);
    assert_rel(k.gemm.peak_flops, h.fp8_flops, 0);
    assert_rel(k.gemm.eff_max, 0.2, 1e-12);
    assert_rel(k.gemm_bwd.eff_max, 0.175, 1e-12);
    h.eff_gemm_fp8 = 2.0;
    pred_kernels_init(&k, &h, PRED_GEMM_FP8_DELAYED);
    assert_rel(k.gemm.eff_max, 1.0, 0);
}

/* A preset without gemm_fp8_cs runs current scaling at its gemm_fp8; the
 * Blackwell presets carry the fitted factor (fidelity/tune.c). */
Test(kernel, fp8_current_scaling_factor)
{
    struct hw_system h = load_system("dgx-h100"), b = load_system("dgx-b200");
    assert_rel(h.eff_gemm_fp8_cs, h.eff_gemm_fp8, 0);
    assert_rel(b.eff_gemm_fp8_cs, 0.585, 1e-12);
    assert_rel(b.eff_attn, 0.551, 1e-12);           /* FA4 abstract: cuDNN rate */
    assert_rel(b.eff_gemm_fp8, 0.984, 1e-12);
    assert_rel(b.eff_attn_bwd, 0.400, 1e-12);
}

/* A row softmax (kernel.h pred_memop_rows_s), by hand: 1000 rows of 1536
 * scores pad to 2048 slots each; floor 5 us, bytes at 0.5 x 2 TB/s,
 * 2 ns a row, 1 ps a slot times (2048 / 1024)^0.5; rows of <= 1024 at the
 * short-row share and no row term; no fit: one launch and the generic
 * bandwidth. */
Test(kernel, row_softmax_pads_rows_to_a_power_of_two)
{
    struct pred_kernels k = kernels("dgx-a100");
    enum hw_memop o = HW_MEMOP_SOFTMAX;
    double bytes = 4.0 * 1000 * 1536;
    k.memop_fitted[o] = true;
    k.memop_floor_s[o][0] = 5e-6;
    k.memop_bytes_per_s[o][0] = 1e12;
    k.memop_row0_s[o][0] = 2e-9;
    k.memop_row_s[o][0] = 1e-12;
    k.memop_log_row[o][0] = 0.5;
    k.memop_short_bytes_per_s[o][0] = 1.5e12;
    assert_rel(pred_memop_rows_s(&k, o, 0, bytes, 1000, 1536, 1),
               5e-6 + bytes / 1e12 + 1000 * (2e-9 + 2048 * 1e-12 * sqrt(2.0)), 1e-12);
    /* 4096 pads to 4096 slots; the occupancy factor held at 2048's */
    assert_rel(pred_memop_rows_s(&k, o, 0, 4.0 * 4096, 1, 4096, 1),
               5e-6 + 4.0 * 4096 / 1e12 + 2e-9 + 4096 * 1e-12 * sqrt(2.0), 1e-12);
    assert_rel(pred_memop_rows_s(&k, o, 0, 4.0 * 1024, 1, 1024, 1),
               5e-6 + 4.0 * 1024 / 1.5e12, 1e-12);
    k.memop_fitted[o] = false;
    assert_rel(pred_memop_rows_s(&k, o, 0, bytes, 1000, 1536, 2),
               pred_mem_s(&k, bytes, 2), 1e-12);
}

/* PyTorch's block softmax reads the rest of a row past its last whole
 * chunk of 8 x block one element a thread (kernel.h pred_memop_rows_s;
 * SoftMax.cu SoftMax_getBlockSize, ilpReduce): block the power of two >=
 * min(row / 8, 1024) / 2, at least 32. By hand, 3 ps an element of it:
 * 1536 -> block 128, chunk 1024, 512 left; 3072 -> 256, 2048, 1024;
 * 3584 -> 256, 2048, 1536; 4608 -> 512, 4096, 512; 10240 -> 512 (1024 / 2),
 * 4096, 2048; powers of two none; 2000 -> 250 / 2 = 125 -> 128, 1024, 976
 * (the integer divisions as there). Rows on the warp path and the masked softmax
 * (no epilogue fitted) pay nothing. */
Test(kernel, row_softmax_block_epilogue)
{
    static const struct { double row, left; } want[] = {
        { 1536, 512 }, { 2048, 0 }, { 3072, 1024 }, { 3584, 1536 }, { 4096, 0 },
        { 4608, 512 }, { 8192, 0 }, { 10240, 2048 }, { 2000, 976 },
    };
    struct pred_kernels k = kernels("dgx-a100");
    enum hw_memop o = HW_MEMOP_SOFTMAX;
    k.memop_fitted[o] = true;
    k.memop_floor_s[o][1] = 5e-6;
    k.memop_bytes_per_s[o][1] = 1e12;
    k.memop_row0_s[o][1] = 2e-9;
    k.memop_row_s[o][1] = 1e-12;
    k.memop_short_bytes_per_s[o][1] = 1.5e12;
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
        double r = want[i].row, base;
        k.memop_scalar_s[o][1] = 0;
        base = pred_memop_rows_s(&k, o, 1, 6.0 * 100 * r, 100, r, 1);
        k.memop_scalar_s[o][1] = 3e-12;
        double t = pred_memop_rows_s(&k, o, 1, 6.0 * 100 * r, 100, r, 1);
        cr_assert(fabs(t - base - 100 * want[i].left * 3e-12) < 1e-15, "row %g: %g left",
                  r, (t - base) / 300e-12);
    }
    assert_rel(pred_memop_rows_s(&k, o, 1, 6.0 * 1024, 1, 1024, 1),
               5e-6 + 6.0 * 1024 / 1.5e12, 1e-12);
}

/* An eager call timed on its own (kernel.h pred_memop_knee_s), by hand:
 * host 100 us against the GPU's 8 MB at 0.5 x 2.039 TB/s plus 10^6 table
 * elements at 10 ps (7.846 + 10 = 17.846 us): p 2 the root of the sum of
 * squares; p 1 the sum; p held to [0.5, 50] (a knee of 1000: 50, the
 * larger within 0.04 %); no knee: the size model of the bytes, one call. */
Test(kernel, eager_call_host_and_gpu_knee)
{
    struct pred_kernels k = kernels("dgx-a100");
    enum hw_memop o = HW_MEMOP_ROPE;
    double g = 8e6 / (0.5 * 2.039e12) + 1e6 * 10e-12;
    k.has_memops = true;
    k.memop_fitted[o] = true;
    k.memop_floor_s[o][0] = 100e-6;
    k.memop_bytes_per_s[o][0] = 0.5 * 2.039e12;
    k.memop_row_s[o][0] = 10e-12;
    k.memop_log_row[o][0] = 0;
    k.memop_knee[o][0] = 2;
    assert_rel(pred_memop_knee_s(&k, o, 0, 8e6, 1e6), sqrt(100e-6 * 100e-6 + g * g), 1e-12);
    k.memop_knee[o][0] = 1;
    assert_rel(pred_memop_knee_s(&k, o, 0, 8e6, 1e6), 100e-6 + g, 1e-12);
    k.memop_knee[o][0] = 1000;
    assert_rel(pred_memop_knee_s(&k, o, 0, 8e6, 1e6),
               100e-6 * pow(1 + pow(g / 100e-6, 50), 1.0 / 50), 1e-12);
    assert_rel(pred_memop_knee_s(&k, o, 0, 8e6, 1e6), 100e-6, 4e-4);
    k.memop_knee[o][0] = 0;
    assert_rel(pred_memop_knee_s(&k, o, 0, 8e6, 1e6),
               pred_memop_size_s(&k, o, 0, 8e6, 1, 1), 1e-12);
}

/* PyTorch 2.7's softmax forward dispatch (kernel.h pred_memop_rows_s), by
 * hand, warp_row 2048: 1000 rows of 1536 on the warp path, padded to 2048:
 * floor + bytes at the short share + 1000 x 2048 x 2 x 0.5 ps; 1000 rows
 * of 5000 on the register kernel, 5 passes of 1024 threads: 5120 slots x
 * (5120 / 1024)^0.5, no wide step under 7 values a thread; rows of 7000
 * (7168 slots) pay the 6 ns step, and the occupancy factor holds at 8192's
 * for longer rows. warp_row 1024 keeps the older dispatch: 1536 pads to
 * 2048 slots on the block kernel, no step. */
Test(kernel, row_softmax_pytorch27_dispatch)
{
    struct pred_kernels k = kernels("dgx-h100");
    enum hw_memop o = HW_MEMOP_SOFTMAX;
    double b1 = 4.0 * 1000 * 1536, b2 = 4.0 * 1000 * 5000, b3 = 4.0 * 1000 * 7000;
    k.memop_fitted[o] = true;
    k.memop_floor_s[o][0] = 5e-6;
    k.memop_bytes_per_s[o][0] = 1e12;
    k.memop_row0_s[o][0] = 2e-9;
    k.memop_row_s[o][0] = 0.1e-12;
    k.memop_log_row[o][0] = 0.5;
    k.memop_short_bytes_per_s[o][0] = 1.5e12;
    k.memop_warp_row[o][0] = 2048;
    k.memop_warp_s[o][0] = 0.5e-12;
    k.memop_wide_s[o][0] = 6e-9;
    assert_rel(pred_memop_rows_s(&k, o, 0, b1, 1000, 1536, 1),
               5e-6 + b1 / 1.5e12 + 1000 * 2048 * 2.0 * 0.5e-12, 1e-12);
    assert_rel(pred_memop_rows_s(&k, o, 0, b2, 1000, 5000, 1),
               5e-6 + b2 / 1e12 + 1000 * (2e-9 + 5120 * sqrt(5.0) * 0.1e-12), 1e-12);
    assert_rel(pred_memop_rows_s(&k, o, 0, b3, 1000, 7000, 1),
               5e-6 + b3 / 1e12 + 1000 * (2e-9 + 7168 * sqrt(7.0) * 0.1e-12 + 6e-9),
               1e-12);
    assert_rel(pred_memop_rows_s(&k, o, 0, 4.0 * 9000, 1, 9000, 1),
               5e-6 + 4.0 * 9000 / 1e12 + 2e-9 + 9216 * sqrt(8.0) * 0.1e-12 + 6e-9,
               1e-12);
    k.memop_warp_row[o][0] = 1024;
    assert_rel(pred_memop_rows_s(&k, o, 0, b1, 1000, 1536, 1),
               5e-6 + b1 / 1e12 + 1000 * (2e-9 + 2048 * sqrt(2.0) * 0.1e-12), 1e-12);
}

/* The layer norm's two corrections (kernel.h pred_memop_row_s), by hand:
 * 2 GB over rows of 8192 at 0.5 x 2 TB/s = 2 ms, floor 10 us; the
 * bandwidth term x (1 + 0.1 ln(8192 / 4096) - 0.05 ln(2e9 / 1e8)) =
 * 1 + 0.069315 - 0.149787 = 0.919528; held at 0.1 when the sum falls
 * below. */
Test(kernel, layer_norm_corrections_in_row_and_traffic)
{
    struct pred_kernels k = kernels("dgx-a100");
    enum hw_memop o = HW_MEMOP_NORM;
    k.memop_fitted[o] = true;
    k.memop_floor_s[o][1] = 10e-6;
    k.memop_bytes_per_s[o][1] = 1e12;
    k.memop_log_row[o][1] = 0.1;
    k.memop_log_size[o][1] = -0.05;
    assert_rel(pred_memop_row_s(&k, o, 1, 2e9, 1, 2, 8192),
               10e-6 + 2e-3 * (1 + 0.1 * log(2.0) - 0.05 * log(20.0)), 1e-12);
    k.memop_log_size[o][1] = -1;
    assert_rel(pred_memop_row_s(&k, o, 1, 2e9, 1, 2, 8192), 10e-6 + 2e-3 * 0.1, 1e-12);
}
