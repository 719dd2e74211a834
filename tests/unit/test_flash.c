/* tests/unit/test_flash.c: FlashAttention-2's time (predictor/flash.c),
 * checked against hand-computed values on a made-up GPU. */
#include "helpers.h"

/* 4 SMs, 1 TFLOP/s at efficiency 0.5, softmax 0.1 ns a score element,
 * uneven head dims +50 %, no head-dim slope, floor 1 us. */
static struct pred_kernels toy(void)
{
    struct pred_kernels k = { 0 };
    k.sms = 4;
    k.attn = (struct pred_kparams){ .peak_flops = 1e12, .eff_max = 0.5 };
    k.attn_bwd = k.attn;
    k.has_flash = true;
    k.flash = (struct hw_flash_fit){ .softmax_s = { 1e-10, 2e-10 },
                                     .uneven = { 0.5, 0.5 },
                                     .floor_s = { 1e-6, 1e-6 } };
    return k;
}

/* b 1, 2 heads, 256 x 256, head 100 (runs as 128, uneven): 2 blocks of 128
 * queries a head, 4 blocks on 4 SMs, one wave: 4 x 128 x 256 = 131,072
 * score elements, each 4 x 128 / (1e12 x 0.5) x 1.5 = 1.536 ns of matmul
 * and 0.1 ns of softmax: 1 us + 131072 x 1.636 ns = 215.433792 us. */
Test(flash, blocks_waves_and_templates)
{
    struct pred_kernels k = toy();
    struct pred_flash_shape sh = { .b = 1, .heads = 2, .lq = 256, .lk = 256, .d = 100 };
    assert_rel(pred_flash_s(&k, 0, &sh), 1e-6 + 131072 * 1.636e-9, 1e-12);
    /* head 128 is a template: no predication, 1.024 + 0.1 ns */
    sh.d = 128;
    assert_rel(pred_flash_s(&k, 0, &sh), 1e-6 + 131072 * 1.124e-9, 1e-12);
    /* 3 SMs: the 4 blocks take two waves, as if 6 ran */
    k.sms = 3;
    assert_rel(pred_flash_s(&k, 0, &sh), 1e-6 + 196608 * 1.124e-9, 1e-12);
}

/* Causal: of 2 x 2 blocks the 3 on and below the diagonal remain, 3/4 of
 * the work. Backward: 10 d FLOPs an element (2.5x), softmax 0.2 ns, and
 * the grid over blocks of keys (lk 128: one block a head, 2 blocks, one
 * wave of 4 SMs, 4 x 128 x 256 queries). */
Test(flash, causal_share_and_backward)
{
    struct pred_kernels k = toy();
    struct pred_flash_shape sh = { .b = 1, .heads = 2, .lq = 256, .lk = 256,
                                   .d = 128, .causal = true };
    assert_rel(pred_flash_s(&k, 0, &sh), 1e-6 + 0.75 * 131072 * 1.124e-9, 1e-12);
    sh.causal = false;
    sh.lk = 128;
    assert_rel(pred_flash_s(&k, 1, &sh), 1e-6 + 4 * 128 * 256 * 2.76e-9, 1e-12);
    /* the head-dim slope: at d 128, 1 + 0.5 ln(1/2) of the matmul time */
    k.flash.log_d[0] = 0.5;
    sh.lk = 256;
    assert_rel(pred_flash_s(&k, 0, &sh),
               1e-6 + 131072 * (1.024e-9 * (1 + 0.5 * log(0.5)) + 1e-10), 1e-12);
}

/* Without a fit: the roofline of pred_compute_s on the padded FLOPs. */
Test(flash, roofline_without_fit)
{
    struct pred_kernels k = toy();
    struct pred_flash_shape sh = { .b = 1, .heads = 2, .lq = 256, .lk = 256,
                                   .d = 100, .causal = true, .io_bytes = 1e6 };
    k.has_flash = false;
    k.mem_bytes_per_s = 1e12;
    assert_rel(pred_flash_s(&k, 0, &sh),
               pred_compute_s(&k, &k.attn, 2.0 * 2 * 256 * 256 * 128, 1e6), 1e-12);
}
