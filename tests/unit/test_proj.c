/* tests/unit/test_proj.c: predictor/proj.c, projections as separate GEMMs
 * (the stack's separate_proj, torchtitan's wq, wk, wv and w1, w3).
 *
 * Model "small" (h 1024, 8 heads of 128: q 1024, 2 kv heads: kv 256,
 * SwiGLU f 4096), seq 1024, mbs 1, tp 2: 1024 tokens. Fused (Megatron):
 * QKV one GEMM 1024 x (1024 + 512) / 2 = 768 columns x 1024, MLP-up one of
 * 2 x 4096 / 2 = 4096 columns. Separate: wq 512 columns, wk and wv 128
 * each; w1 and w3 2048 each. Each GEMM's time is the kernel model's
 * (pred_gemm_s), forward m n k, backward m k n + k n m. */
#include "helpers.h"

static void setup(struct pred_ctx *c, bool separate)
{
    struct model m = small_model();
    struct hw_system h = load_system("dgx-h100");
    struct job j = make_job(1024, 8);
    j.separate_proj = separate;
    pred_ctx_init(c, &m, &h, &j, false);
}

static double fb(const struct pred_ctx *c, double m, double n, double k, int bwd)
{
    const struct pred_kernels *kk = &c->k;
    return bwd ? pred_gemm_s(kk, &kk->gemm_bwd, m, k, n, 2) +
                 pred_gemm_s(kk, &kk->gemm_bwd, k, n, m, 2)
               : pred_gemm_s(kk, &kk->gemm, m, n, k, 2);
}

Test(proj, separate_gemms_by_hand)
{
    struct pred_ctx c;
    struct pred_layer o;
    struct plan p = make_plan(2, 1, 1, 1);
    setup(&c, true);
    pred_layer_time(&c, &p, &o);
    for (int bwd = 0; bwd < 2; bwd++) {
        double qkv = fb(&c, 1024, 512, 1024, bwd) + 2 * fb(&c, 1024, 128, 1024, bwd);
        double up = 2 * fb(&c, 1024, 2048, 1024, bwd);
        cr_assert_float_eq(bwd ? o.bwd_s[PRED_OP_QKV] : o.fwd_s[PRED_OP_QKV],
                           qkv, 1e-15);
        cr_assert_float_eq(bwd ? o.bwd_s[PRED_OP_FC1] : o.fwd_s[PRED_OP_FC1],
                           up, 1e-15);
    }
    /* the data gradients apart (TP overlap pairs with them, tpo.c):
     * dX of wq 1024 x 1024 over 512, of wk and wv over 128 each; of w1
     * and w3 over 2048 each */
    cr_assert_float_eq(o.dgrad_s[PRED_OP_QKV],
                       pred_gemm_s(&c.k, &c.k.gemm_bwd, 1024, 1024, 512, 2) +
                       2 * pred_gemm_s(&c.k, &c.k.gemm_bwd, 1024, 1024, 128, 2), 1e-15);
    cr_assert_float_eq(o.dgrad_s[PRED_OP_FC1],
                       2 * pred_gemm_s(&c.k, &c.k.gemm_bwd, 1024, 1024, 2048, 2), 1e-15);
}

/* The same FLOPs in narrower GEMMs: never faster than the fused ones; the
 * out-projection and MLP-down are single GEMMs either way. */
Test(proj, never_faster_than_fused)
{
    struct pred_ctx a, b;
    struct pred_layer sep, fused;
    struct plan p = make_plan(2, 1, 1, 1);
    setup(&a, true);
    setup(&b, false);
    pred_layer_time(&a, &p, &sep);
    pred_layer_time(&b, &p, &fused);
    cr_assert_gt(sep.fwd_s[PRED_OP_QKV], fused.fwd_s[PRED_OP_QKV]);
    cr_assert_geq(sep.fwd_s[PRED_OP_FC1], fused.fwd_s[PRED_OP_FC1]);
    cr_assert_gt(sep.bwd_s[PRED_OP_QKV], fused.bwd_s[PRED_OP_QKV]);
    cr_assert_eq(sep.fwd_s[PRED_OP_PROJ], fused.fwd_s[PRED_OP_PROJ]);
    cr_assert_eq(sep.fwd_s[PRED_OP_FC2], fused.fwd_s[PRED_OP_FC2]);
}
