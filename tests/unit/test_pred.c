/* tests/unit/test_pred.c: predictor/pred.c, one layer's operator times.
 * Every operator's FLOPs and bytes are counted here by hand and priced
 * with the kernel functions (whose own arithmetic test_kernel.c checks),
 * on round kernel numbers: HBM and norms 1e12 B/s, no launch cost, NVLink
 * 1e11 B/s with 1 us hops, no collective base cost.
 *
 * Model "small": h = 1024, 8 heads of 128, 2 KV heads (kv dim 256), SwiGLU
 * MLP of f = 4096, RMSNorm, rotary, no dropout, no bias. seq 1024, mbs 1,
 * tp 2: T = 1024 tokens, a/t = 4 heads, kv/t = 128, f/t = 2048. */
#include "helpers.h"

#include <math.h>
#include <string.h>

static struct model small(bool dropout, int64_t hidden)
{
    return (struct model){ .name = "small", .layers = 4, .hidden = hidden,
                           .heads = 8, .kv_heads = 2, .ffn_hidden = 4096,
                           .vocab = 32000, .glu = true, .tied_embeddings = false,
                           .bias = false, .dropout = dropout,
                           .norm = MODEL_NORM_RMSNORM, .position = MODEL_POS_ROPE };
}

static void setup(struct pred_ctx *c, const struct model *m, enum job_attention attn)
{
    struct hw_system h = load_system("dgx-h100");
    struct job j = make_job(1024, 8);
    j.attention = attn;
    pred_ctx_init(c, m, &h, &j, false);
    c->k.launch_s = 0;
    c->k.coll_base_s = 0;
    c->k.mem_bytes_per_s = 1e12;
    c->k.norm_bytes_per_s = 1e12;
    c->k.has_memops = false;            /* the generic memory-bound model */
    c->k.has_flash = false;             /* the roofline attention (test_flash.c) */
    c->k.has_bgemm = false;             /* unfused attention as plain GEMMs */
    c->k.intra_bytes_per_s = c->k.pair_bytes_per_s = 1e11;
    c->k.intra_lat_s = 1e-6;
}

static struct pred_layer layer(const struct pred_ctx *c, int tp, bool sp,
                               enum plan_recompute rc)
{
    struct plan p = make_plan(tp, 1, 1, 1);
    struct pred_layer o;
    p.sp = sp;
    p.recompute = rc;
    pred_layer_time(c, &p, &o);
    return o;
}

/* Flash attention (Dao 2023, FlashAttention-2): causal forward
 * 2 b s^2 (a/t) d = 2 x 1024^2 x 4 x 128 = 1,073,741,824 FLOPs; q and o of
 * (a/t) d = 512 wide, k and v of 128, 2 bytes each, read and written once:
 * 2 x 1024 x (2 x 512 + 2 x 128) = 2,621,440 B. Backward: five matmuls
 * against two, 2.5 x the FLOPs, and twice the bytes. */
Test(pred, flash_attention_counts)
{
    struct model m = small(false, 1024);
    struct pred_ctx c;
    struct pred_layer o;
    setup(&c, &m, JOB_ATTN_FLASH);
    o = layer(&c, 2, false, PLAN_RECOMPUTE_NONE);
    assert_rel(o.fwd_s[PRED_OP_ATTN],
               pred_compute_s(&c.k, &c.k.attn, 1073741824.0, 2621440.0), 1e-12);
    assert_rel(o.bwd_s[PRED_OP_ATTN],
               pred_compute_s(&c.k, &c.k.attn_bwd, 2.5 * 1073741824.0,
                              2 * 2621440.0), 1e-12);
}

/* A head of 80 (h 640, 8 heads) runs as 96: FlashAttention-2's kernels
 * come in head dims of 32 steps. Forward 2 x 1024^2 x 4 x 96 FLOPs; q, o
 * 4 x 96 = 384 wide, kv dim 2 x 80 = 160, over tp 80:
 * 2 x 1024 x (768 + 160) = 1,900,544 B. */
Test(pred, flash_head_dim_padding)
{
    struct model m = small(false, 640);
    struct pred_ctx c;
    struct pred_layer o;
    setup(&c, &m, JOB_ATTN_FLASH);
    o = layer(&c, 2, false, PLAN_RECOMPUTE_NONE);
    assert_rel(o.fwd_s[PRED_OP_ATTN],
               pred_compute_s(&c.k, &c.k.attn, 2.0 * 1024 * 1024 * 4 * 96,
                              1900544.0), 1e-12);
}

/* The small model's unfused attention at tensor parallelism tp (8 / tp
 * heads a GPU, 1024 tokens, head width 128): two batched matmuls forward,
 * four backward, each 2 (heads) s^2 d FLOPs over 2 B a score of traffic,
 * and the softmax path's fwd_b / bwd_b bytes a score at 1 TB/s. */
static void assert_unfused_attn(int tp, double fwd_b, double bwd_b)
{
    struct model m = small(true, 1024);
    struct pred_ctx c;
    struct pred_layer o;
    struct pred_kparams bmm;
    double heads = 8.0 / tp, scores = heads * 1024 * 1024;
    double flops = 2.0 * heads * 1024 * 1024 * 128;
    setup(&c, &m, JOB_ATTN_UNFUSED);
    bmm = c.k.gemm;
    bmm.peak_flops = c.k.attn.peak_flops;
    o = layer(&c, tp, false, PLAN_RECOMPUTE_NONE);
    assert_rel(o.fwd_s[PRED_OP_ATTN], 2 * pred_compute_s(&c.k, &bmm, flops, 2 * scores) +
               fwd_b * scores / 1e12, 1e-12);
    assert_rel(o.bwd_s[PRED_OP_ATTN], 4 * pred_compute_s(&c.k, &bmm, flops, 2 * scores) +
               bwd_b * scores / 1e12, 1e-12);
}

/* Unfused attention (Megatron-LM 2021: baddbmm, fused masked softmax with
 * dropout, bmm): QK^T and AV each 2 b (a/t) s^2 d_h = 2 x 4 x 1024^2 x 128
 * FLOPs reading 2 B x the b (a/t) s^2 = 4,194,304 scores; the softmax with
 * dropout reads the scores, writes the probabilities, the mask and the
 * dropped-out probabilities: 9 B a score forward, 11 backward, in 2
 * kernels. Backward runs four such matmuls. */
Test(pred, unfused_attention_counts)
{
    assert_unfused_attn(2, 9, 11);
}

/* Megatron's fused masked softmax runs where is_kernel_available allows
 * (ops.c pred_fused_softmax): keys 17 to the stack's limit, a multiple of
 * 4, and mbs x heads / tp a multiple of 4 (of 8 at 128 keys or fewer).
 * The small model's 8 heads: tp 2 (4 a GPU) fused at mbs 1; tp 4 (2) not
 * at mbs 1, fused at mbs 2; tp 8 (1) fused only from mbs 4; seq 2048 past
 * a 2048 limit fused, 4096 not; 128 keys need 8; 16 never. */
Test(pred, fused_softmax_rules)
{
    struct model m = small(true, 1024);
    struct job j = make_job(2048, 8);
    struct plan p = make_plan(2, 1, 1, 1);
    j.softmax_max_seq = 2048;
    cr_assert(pred_fused_softmax(&j, &m, &p));
    p.tp = 4;
    cr_assert_not(pred_fused_softmax(&j, &m, &p));
    p.mbs = 2;
    cr_assert(pred_fused_softmax(&j, &m, &p));
    p.tp = 8;
    cr_assert_not(pred_fused_softmax(&j, &m, &p));
    p.mbs = 4;
    cr_assert(pred_fused_softmax(&j, &m, &p));
    j.seq = 4096;
    cr_assert_not(pred_fused_softmax(&j, &m, &p));
    j.softmax_max_seq = 4096;
    cr_assert(pred_fused_softmax(&j, &m, &p));
    j.seq = 4098;                       /* not a multiple of 4 */
    cr_assert_not(pred_fused_softmax(&j, &m, &p));
    j.seq = 128;                        /* 4 batches, 8 wanted */
    cr_assert_not(pred_fused_softmax(&j, &m, &p));
    p.mbs = 8;
    cr_assert(pred_fused_softmax(&j, &m, &p));
    j.seq = 16;
    cr_assert_not(pred_fused_softmax(&j, &m, &p));
}

/* Its PyTorch fallback at tp 4, mbs 1 (2 heads a GPU): b (a/t) s^2 =
 * 2,097,152 scores; forward the casts, scale and mask, 29 B a score, and
 * torch softmax in fp32, 8, then dropout's 5: 42 B; backward 29 + 12 + 5
 * = 46 B; the GEMMs as above at 2 heads. */
Test(pred, torch_softmax_fallback_counts)
{
    assert_unfused_attn(4, 42, 46);
}

/* Memory-bound operators (2-byte activations, T = 1024 rows, h = 1024):
 * two norms read x and write y forward, 2 x 4 B x T h = 8,388,608 B =
 * 8.388608 us; backward each reads x and dy and writes dx, then reads x
 * and dy again for the weight gradient, 2 x 10 B x T h = 20.97152 us.
 * Two residual adds, read 2 write 1, both ways: 2 x 6 B x T h =
 * 12.582912 us. SwiGLU over f/t = 2048: forward reads gate and up and
 * writes the product, 6 B x T x 2048 = 12.582912 us; backward reads 3 and
 * writes 2, 10 B = 20.97152 us. Rotary on q and k (T x (1024 + 256) / 2 =
 * 655,360 elements): read and write, 4 B each = 2.62144 us, both ways.
 * With sp the norms and residuals run on T/2 rows; the rest does not
 * change. */
Test(pred, memory_bound_operators)
{
    struct model m = small(false, 1024);
    struct pred_ctx c;
    struct pred_layer o;
    setup(&c, &m, JOB_ATTN_FLASH);
    o = layer(&c, 2, false, PLAN_RECOMPUTE_NONE);
    assert_rel(o.fwd_s[PRED_OP_NORM], 8.388608e-6, 1e-12);
    assert_rel(o.bwd_s[PRED_OP_NORM], 20.97152e-6, 1e-12);
    assert_rel(o.fwd_s[PRED_OP_RESIDUAL], 12.582912e-6, 1e-12);
    assert_rel(o.bwd_s[PRED_OP_RESIDUAL], 12.582912e-6, 1e-12);
    assert_rel(o.fwd_s[PRED_OP_ACT], 12.582912e-6, 1e-12);
    assert_rel(o.bwd_s[PRED_OP_ACT], 20.97152e-6, 1e-12);
    assert_rel(o.fwd_s[PRED_OP_ROPE], 2.62144e-6, 1e-12);
    assert_rel(o.bwd_s[PRED_OP_ROPE], 2.62144e-6, 1e-12);
    o = layer(&c, 2, true, PLAN_RECOMPUTE_NONE);
    assert_rel(o.fwd_s[PRED_OP_NORM], 8.388608e-6 / 2, 1e-12);
    assert_rel(o.bwd_s[PRED_OP_RESIDUAL], 12.582912e-6 / 2, 1e-12);
    assert_rel(o.fwd_s[PRED_OP_ACT], 12.582912e-6, 1e-12);
}

/* With a system's per-operator fits (memory_ops): calls x floor + bytes /
 * (eff x peak). Norms at 0.5 of 1 TB/s with a 10 us floor: forward
 * 2 x 10 us + 8,388,608 B / 0.5e12 = 36.777216 us; residual adds at 0.8 with
 * no floor: 12,582,912 B / 0.8e12 = 15.72864 us; SwiGLU backward borrows the
 * gelu fit, 0.7 and 4 us: 4 us + 20,971,520 B / 0.7e12 = 33.959314 us. */
Test(pred, memory_bound_operators_with_fits)
{
    struct model m = small(false, 1024);
    struct pred_ctx c;
    struct pred_layer o;
    setup(&c, &m, JOB_ATTN_FLASH);
    c.k.has_memops = true;
    c.k.memop_bytes_per_s[HW_MEMOP_NORM][0] = 0.5e12;
    c.k.memop_floor_s[HW_MEMOP_NORM][0] = 10e-6;
    c.k.memop_log_row[HW_MEMOP_NORM][0] = 0;   /* the preset's: below */
    c.k.memop_log_size[HW_MEMOP_NORM][0] = c.k.memop_log_size[HW_MEMOP_NORM][1] = 0;
    c.k.memop_bytes_per_s[HW_MEMOP_RESADD][1] = 0.8e12;
    c.k.memop_floor_s[HW_MEMOP_RESADD][1] = 0;
    c.k.memop_bytes_per_s[HW_MEMOP_GELU][1] = 0.7e12;
    c.k.memop_floor_s[HW_MEMOP_GELU][1] = 4e-6;
    o = layer(&c, 2, false, PLAN_RECOMPUTE_NONE);
    assert_rel(o.fwd_s[PRED_OP_NORM], 36.777216e-6, 1e-12);
    assert_rel(o.bwd_s[PRED_OP_RESIDUAL], 15.72864e-6, 1e-12);
    assert_rel(o.bwd_s[PRED_OP_ACT], 33.959314286e-6, 1e-9);
    /* the norm backward's row correction: hidden 1024 with log_row 0.2
     * scales the bandwidth term by 1 + 0.2 ln(1024 / 4096) = 0.722741;
     * at 0.4 Tb/s, 5 us: 2 x 5 us + 0.722741 x 20,971,520 B / 0.4e12
     * = 47.892431 us */
    c.k.memop_bytes_per_s[HW_MEMOP_NORM][1] = 0.4e12;
    c.k.memop_floor_s[HW_MEMOP_NORM][1] = 5e-6;
    c.k.memop_log_row[HW_MEMOP_NORM][1] = 0.2;
    o = layer(&c, 2, false, PLAN_RECOMPUTE_NONE);
    assert_rel(o.bwd_s[PRED_OP_NORM],
               10e-6 + (1 + 0.2 * log(0.25)) * 20971520 / 0.4e12, 1e-12);
    assert_rel(o.bwd_s[PRED_OP_NORM], 47.8924e-6, 1e-5);
    /* the forward's, fitted since the H100 samples: log_row 0.157 at
     * hidden 1024 scales its bandwidth term by 1 + 0.157 ln(1/4) =
     * 0.782348: 2 x 10 us + 0.782348 x 8,388,608 B / 0.5e12 = 33.125674 us */
    c.k.memop_log_row[HW_MEMOP_NORM][0] = 0.157;
    o = layer(&c, 2, false, PLAN_RECOMPUTE_NONE);
    assert_rel(o.fwd_s[PRED_OP_NORM], 33.125674e-6, 1e-6);
}

/* Megatron's tensor-parallel layer (Shoeybi et al. 2019 sec. 3): two
 * all-reduces of the T x h activations (2 B: 2,097,152 B) each way; over
 * tp 2 a ring all-reduce moves 2 (1/2) S = 2,097,152 B, at this size with
 * NCCL's LL128 (predictor/coll.c): 0.92 of 1e11 B/s, 22.79513 us, plus 2
 * LL128 hops of 1.9 / 0.6 x 1 us, twice. With sp (Korthikanti et al. sec.
 * 4.2.2) each becomes an all-gather and a reduce-scatter of (1/2) S and 1
 * hop each: the same volume and hops, the same time. */
#define TP_AR_2MB (2097152 / 0.92e11 + 2 * NV_LL128)
Test(pred, tensor_parallel_collectives)
{
    struct model m = small(false, 1024);
    struct pred_ctx c;
    struct pred_layer o;
    setup(&c, &m, JOB_ATTN_FLASH);
    o = layer(&c, 2, false, PLAN_RECOMPUTE_NONE);
    assert_rel(o.fwd_s[PRED_OP_TP_COMM], 2 * TP_AR_2MB, 1e-12);
    assert_rel(o.bwd_s[PRED_OP_TP_COMM], 2 * TP_AR_2MB, 1e-12);
    o = layer(&c, 2, true, PLAN_RECOMPUTE_NONE);
    assert_rel(o.fwd_s[PRED_OP_TP_COMM], 2 * TP_AR_2MB, 1e-12);
    o = layer(&c, 1, false, PLAN_RECOMPUTE_NONE);
    cr_assert_eq(o.fwd_s[PRED_OP_TP_COMM], 0.0);
}

/* The four GEMMs (column-parallel QKV and MLP-up, row-parallel out-proj
 * and MLP-down), each backward a data- and a weight-gradient GEMM:
 * QKV T x (h + 2 kv)/t x h = 1024 x 768 x 1024; out-proj 1024 x 1024 x 512;
 * SwiGLU up 1024 x (2 f/t = 4096) x 1024; down 1024 x 1024 x 2048. */
Test(pred, gemm_shapes)
{
    struct model m = small(false, 1024);
    struct pred_ctx c;
    struct pred_layer o;
    const struct pred_kernels *k = &c.k;
    setup(&c, &m, JOB_ATTN_FLASH);
    o = layer(&c, 2, false, PLAN_RECOMPUTE_NONE);
    assert_rel(o.fwd_s[PRED_OP_QKV], pred_gemm_s(k, &k->gemm, 1024, 768, 1024, 2), 1e-12);
    assert_rel(o.bwd_s[PRED_OP_QKV], pred_gemm_s(k, &k->gemm_bwd, 1024, 1024, 768, 2) +
               pred_gemm_s(k, &k->gemm_bwd, 1024, 768, 1024, 2), 1e-12);
    assert_rel(o.fwd_s[PRED_OP_PROJ], pred_gemm_s(k, &k->gemm, 1024, 1024, 512, 2), 1e-12);
    assert_rel(o.fwd_s[PRED_OP_FC1], pred_gemm_s(k, &k->gemm, 1024, 4096, 1024, 2), 1e-12);
    assert_rel(o.fwd_s[PRED_OP_FC2], pred_gemm_s(k, &k->gemm, 1024, 1024, 2048, 2), 1e-12);
}

/* Recompute (Korthikanti et al. sec. 5): selective reruns the attention
 * core's forward in the backward pass, full reruns the whole forward with
 * its TP communication. Both cost time: never free. */
Test(pred, recompute_costs_by_mode)
{
    struct model m = small(false, 1024);
    struct pred_ctx c;
    struct pred_layer none, sel, full;
    setup(&c, &m, JOB_ATTN_FLASH);
    none = layer(&c, 2, false, PLAN_RECOMPUTE_NONE);
    sel = layer(&c, 2, false, PLAN_RECOMPUTE_SELECTIVE);
    full = layer(&c, 2, false, PLAN_RECOMPUTE_FULL);
    cr_assert_eq(none.recompute_s, 0.0);
    cr_assert_gt(sel.recompute_s, 0.0);
    assert_rel(sel.recompute_s, none.fwd_s[PRED_OP_ATTN], 1e-12);
    cr_assert_eq(sel.recompute_comm_s, 0.0);
    assert_rel(full.recompute_s, none.fwd_total_s, 1e-12);
    assert_rel(full.recompute_comm_s, 2 * TP_AR_2MB, 1e-12);
}

/* torchtitan's op-level selective checkpointing (job selective "op",
 * torchtitan parallelize_llama.py @ 9dec370): the block's mms in order
 * wq wk wv wo w1 w3 w2, every second rebuilt: wk, one kv column block of
 * the fused QKV's q + 2 kv = 1024 + 2 x 256 (256 / 1536 = 1/6 of it),
 * all of out-proj and w3, half of the SwiGLU up GEMM; no attention; the
 * norms, rotary, activation and residual adds again; with sp the two
 * all-gathers, half of the forward's tp communication (sp: 2 AG + 2 RS of
 * equal time), counted as tp communication. */
Test(pred, op_level_selective_recompute)
{
    struct model m = small(false, 1024);
    struct pred_ctx c;
    struct pred_layer none, op;
    setup(&c, &m, JOB_ATTN_FLASH);
    c.job.selective = JOB_SELECTIVE_OP;
    none = layer(&c, 2, true, PLAN_RECOMPUTE_NONE);
    op = layer(&c, 2, true, PLAN_RECOMPUTE_SELECTIVE);
    assert_rel(op.recompute_comm_s, none.fwd_s[PRED_OP_TP_COMM] / 2, 1e-12);
    assert_rel(op.recompute_s,
               none.fwd_s[PRED_OP_QKV] / 6 + none.fwd_s[PRED_OP_PROJ] +
               none.fwd_s[PRED_OP_FC1] / 2 + none.fwd_s[PRED_OP_NORM] +
               none.fwd_s[PRED_OP_ROPE] + none.fwd_s[PRED_OP_ACT] +
               none.fwd_s[PRED_OP_RESIDUAL] + none.fwd_s[PRED_OP_TP_COMM] / 2,
               1e-12);
    cr_assert_lt(op.recompute_s, none.fwd_total_s);
}

/* The validated region by hand: 8..1024 GPUs and 1..100 B parameters
 * reach a factor 2 either way (4..2048 GPUs, 0.5..200 B); no region is
 * always outside. Widening x1.5 about the centre: lo -0.2, hi 0.1 (centre
 * -0.05, half-widths 0.15) become -0.275 and 0.175; lo is kept at -0.9
 * (-0.8 and 0, centre -0.4, would give -1.0 and 0.2). */
Test(pred, band_region_by_hand)
{
    struct pred_band b = { -0.2, 0.1, { 8, 1024, 1, 100, 0, { "" } } }, w;
    char why[256];
    cr_assert(!pred_band_outside(&b, 2048, 200e9, "hopper", NULL, 0));
    cr_assert(!pred_band_outside(&b, 4, 0.5e9, "hopper", why, sizeof why));
    cr_assert_str_eq(why, "");
    cr_assert(pred_band_outside(&b, 2049, 1e9, "hopper", why, sizeof why));
    cr_assert(strstr(why, "outside the validated region (8-1024 GPUs"), "%s", why);
    cr_assert(pred_band_outside(&b, 3, 1e9, "hopper", NULL, 0));
    cr_assert(pred_band_outside(&b, 64, 201e9, "hopper", NULL, 0));
    cr_assert(pred_band_outside(&b, 64, 0.49e9, "hopper", NULL, 0));
    /* validated on ampere and blackwell: a hopper (or unnamed) GPU is
     * outside at any scale, and says which it was validated on */
    b.region.n_archs = 2;
    snprintf(b.region.archs[0], STACK_ARCH_LEN, "ampere");
    snprintf(b.region.archs[1], STACK_ARCH_LEN, "blackwell");
    cr_assert(pred_band_outside(&b, 64, 1e9, "hopper", why, sizeof why));
    cr_assert_str_eq(why, "outside the validated region: no row of this stack ran on "
                     "hopper GPUs (validated on ampere, blackwell); range widened x1.5");
    cr_assert(!pred_band_outside(&b, 64, 1e9, "blackwell", why, sizeof why));
    cr_assert(pred_band_outside(&b, 64, 1e9, "", why, sizeof why));
    cr_assert_str_eq(why, "outside the validated region: the system names no gpu.arch "
                     "and the stack was validated only on ampere, blackwell GPUs; range "
                     "widened x1.5");
    cr_assert(pred_band_outside(&b, 4096, 1e9, "hopper", why, sizeof why));
    cr_assert(strstr(why, "4096 GPUs, 1 B, on hopper GPUs (validated on ampere, "
                     "blackwell); range widened"), "%s", why);
    b.region = (struct stack_region){ 0, 0, 0, 0, 0, { "" } };
    cr_assert(pred_band_outside(&b, 64, 1e9, "hopper", why, sizeof why));
    cr_assert_str_eq(why, "the stack has no validated region");
    w = pred_band_widen(b);
    cr_assert(fabs(w.lo + 0.275) < 1e-12 && fabs(w.hi - 0.175) < 1e-12);
    w = pred_band_widen((struct pred_band){ -0.8, 0, { 0, 0, 0, 0, 0, { "" } } });
    cr_assert(w.lo == -0.9 && fabs(w.hi - 0.2) < 1e-12);
}

/* FP8 needs FP8 tensor cores: refused on the A100 (fp8_tflops 0), run on
 * the H100; 16-bit runs everywhere. */
Test(pred, precision_check)
{
    struct hw_system a100 = load_system("dgx-a100"), h100 = load_system("dgx-h100");
    struct job j = make_job(1024, 8);
    struct tpl_err err = { 0 };
    j.precision = JOB_PREC_FP8;
    cr_assert_eq(pred_precision_check(&a100, &j, &err), TPL_EUSAGE);
    cr_assert_str_eq(err.msg, "fp8: dgx-a100's A100-SXM4-80GB has no FP8 tensor "
                     "cores (gpu.fp8_tflops 0)");
    cr_assert_eq(pred_precision_check(&h100, &j, &err), 0);
    j.precision = JOB_PREC_BF16;
    cr_assert_eq(pred_precision_check(&a100, &j, &err), 0);
}

/* The LM head is Megatron's own ColumnParallelLinear (megatron/core/
 * models/gpt/gpt_model.py: LinearCrossEntropyModule, not a Transformer
 * Engine module, unless fp8_output_proj with MXFP8), torchtitan leaves
 * "output" out of its float8 conversion (torchtitan/float8.py
 * module_filter_fn) and DeepSeek-V3 keeps "the output head" in BF16
 * (arXiv:2412.19437 sec. 3.3.1): under FP8 its GEMMs run in 16 bits. So a
 * larger vocabulary adds the same time to an FP8 job as to a BF16 one (the
 * layers differ, the head does not). */
static double vocab_cost(enum job_precision prec)
{
    struct model m = load_model("llama3-8b");
    struct hw_system h = load_system("dgx-h100");
    struct job j = make_job(8192, 8);
    struct pred_ctx c;
    struct plan p = make_plan(1, 1, 1, 1);
    struct pred_result a, b;
    j.precision = prec;
    pred_ctx_init(&c, &m, &h, &j, false);
    pred_plan(&c, &p, &a);
    m.vocab *= 2;
    pred_ctx_init(&c, &m, &h, &j, false);
    pred_plan(&c, &p, &b);
    return b.iteration_s - a.iteration_s;
}

Test(pred, lm_head_runs_in_16_bits)
{
    double bf = vocab_cost(JOB_PREC_BF16), f8 = vocab_cost(JOB_PREC_FP8);
    cr_assert_gt(bf, 0);
    assert_rel(f8, bf, 1e-9);
}
