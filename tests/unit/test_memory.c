/* tests/unit/test_memory.c: the memory model against Korthikanti et al.
 * 2023 Table 2 and the pipeline in-flight rules. */
#include "helpers.h"

/* Table 2 of Korthikanti et al. assumes GPT layers with dropout and the
 * unfused softmax; these are their four evaluation shapes (Table 3). */
static const char *const shapes[] = { "gpt3-22b", "gpt3-175b", "gpt3-530b",
                                      "gpt3-1t" };

static double table2(const struct model *m, double s, double b, double t,
                     bool sp, enum plan_recompute recompute)
{
    double h = (double)m->hidden, a = (double)m->heads, sbh = s * b * h;
    switch (recompute) {
    case PLAN_RECOMPUTE_NONE:
        return sp ? sbh / t * (34 + 5 * a * s / h)
                  : sbh * (10 + 24 / t + 5 * a * s / (h * t));
    case PLAN_RECOMPUTE_SELECTIVE:
        return sp ? sbh * 34 / t : sbh * (10 + 24 / t);
    default:
        return sp ? 2 * sbh / t : 2 * sbh;
    }
}

typedef double expected_fn(const struct model *m, double s, double b, double t,
                          bool sp, enum plan_recompute recompute);

/* Every shape, tp 1..8, with and without sp, every recompute mode, at
 * s 2048, b 1, unfused softmax: the model against 'expect'. */
static void every_combination(enum job_precision prec, expected_fn *expect)
{
    struct job j = make_job(2048, 512);
    j.attention = JOB_ATTN_UNFUSED;
    j.precision = prec;
    for (size_t i = 0; i < sizeof shapes / sizeof shapes[0]; i++) {
        struct model m = load_model(shapes[i]);
        for (int t = 1; t <= 8; t *= 2)
            for (int sp = 0; sp <= (t > 1); sp++)
                for (int r = 0; r < PLAN_RECOMPUTE_COUNT; r++) {
                    struct plan p = make_plan(t, 1, 1, 1);
                    p.sp = sp;
                    p.recompute = (enum plan_recompute)r;
                    assert_rel(pred_act_layer_bytes(&m, &j, &p),
                               expect(&m, 2048, 1, t, sp, p.recompute), 1e-12);
                }
    }
}

/* Megatron's softmax fallback (ops.c pred_fused_softmax: here keys past
 * the stack's limit) keeps its fp32 output for its backward beside the
 * 16-bit one: 4 a s^2 b / t more than the 5as^2b / t of the fused kernel
 * (GPT-3 175B, 96 heads, s 2048, b 1, tp 8: 4 x 96 x 2048^2 / 8 =
 * 201,326,592 B); full recompute keeps only the layer input either way. */
Test(memory, softmax_fallback_keeps_fp32_scores)
{
    struct model m = load_model("gpt3-175b");
    struct job j = make_job(2048, 512);
    struct plan p = make_plan(8, 1, 1, 1);
    double fused;
    j.attention = JOB_ATTN_UNFUSED;
    fused = pred_act_layer_bytes(&m, &j, &p);
    j.softmax_max_seq = 1024;
    assert_rel(pred_act_layer_bytes(&m, &j, &p) - fused, 201326592.0, 1e-9);
    p.recompute = PLAN_RECOMPUTE_FULL;
    assert_rel(pred_act_layer_bytes(&m, &j, &p), 2.0 * 2048 * 12288, 1e-12);
}

/* Parameters of rank r under Megatron-Core's split (equal stages here). */
static double stage_params(const struct model *m, const struct plan *p,
                           int64_t r)
{
    struct stage_layout s;
    cr_assert_eq(stage_layout(STAGE_SPLIT_MEGATRON, m->layers, p->pp, p->vpp,
                              0, 0, &s), 0);
    return pred_stage_params(m, p, &s, r);
}

Test(memory, korthikanti_table2_every_combination)
{
    every_combination(JOB_PREC_BF16, table2);
}

/* No parallelism: sbh (34 + 5as/h), Korthikanti eq. 1. */
Test(memory, korthikanti_eq1_no_parallelism)
{
    struct model m = load_model("gpt3-22b");
    struct job j = make_job(2048, 512);
    struct plan p = make_plan(1, 1, 1, 4);
    double sbh = 2048.0 * 4 * 6144;
    j.attention = JOB_ATTN_UNFUSED;
    assert_rel(pred_act_layer_bytes(&m, &j, &p),
               sbh * (34 + 5.0 * 64 * 2048 / 6144), 1e-12);
}

/* Flash attention keeps the per-row log-sum-exp (4 bytes per head and
 * token) instead of the a s^2 scores; hand count for Llama 3 70B, tp 8,
 * sp, no recompute, s 8192, b 1: (8 sbh) / 8 + (4 sbh + 4 s b kv + 6 s b f
 * + 4 a s b) / 8 with no dropout. */
Test(memory, flash_gqa_glu_hand_count)
{
    struct model m = load_model("llama3-70b");
    struct job j = make_job(8192, 512);
    struct plan p = make_plan(8, 1, 1, 1);
    double s = 8192, h = 8192, sbh = s * h;
    double expect = 8 * sbh / 8 +
                    (4 * sbh + 4 * s * 1024 + 6 * s * 28672 + 4 * 64 * s) / 8;
    p.sp = true;
    assert_rel(pred_act_layer_bytes(&m, &j, &p), expect, 1e-12);
}

Test(memory, inflight_1f1b)
{
    struct plan p = make_plan(1, 8, 1, 1);
    cr_assert_eq(pred_inflight_chunks(&p, 64, 0), 8);      /* first stage: pp */
    cr_assert_eq(pred_inflight_chunks(&p, 64, 7), 1);      /* last stage: 1 */
    cr_assert_eq(pred_inflight_chunks(&p, 64, 3), 5);
    cr_assert_eq(pred_inflight_chunks(&p, 4, 0), 4);       /* m < pp */
    p.pp = 1;
    cr_assert_eq(pred_inflight_chunks(&p, 64, 0), 1);      /* no pipeline */
}

/* Korthikanti sec. 4.2.3: interleaving multiplies the first stage's
 * activation memory by 1 + (pp - 1)/(pp vpp). */
Test(memory, inflight_interleaved_factor)
{
    for (int pp = 2; pp <= 16; pp *= 2)
        for (int vpp = 2; vpp <= 6; vpp++) {
            struct plan p = make_plan(1, pp, 1, 1);
            double layers_per_chunk = 1.0 / (pp * vpp);      /* of l */
            p.vpp = vpp;
            assert_rel(pred_inflight_chunks(&p, 1024, 0) * layers_per_chunk,
                       1.0 + (pp - 1.0) / (pp * vpp), 1e-12);
        }
}

Test(memory, stage_params_sum_to_model)
{
    struct model m = load_model("llama3-70b");
    struct model g = load_model("gpt3-175b");
    struct plan p = make_plan(1, 1, 1, 1);
    double sum = 0;
    cr_assert_eq(stage_params(&m, &p, 0), (double)model_params(&m));
    cr_assert_eq(stage_params(&g, &p, 0), (double)model_params(&g));
    p.pp = 8;
    for (int r = 0; r < 8; r++)
        sum += stage_params(&m, &p, r);
    assert_rel(sum, (double)model_params(&m), 1e-12);
    sum = 0;                    /* tied: the last stage holds a second copy */
    for (int r = 0; r < 8; r++)
        sum += stage_params(&g, &p, r);
    assert_rel(sum, (double)model_params(&g) + (double)g.vocab * g.hidden, 1e-12);
}

/* Mixed-precision Adam: 2 + 4 + 12 bytes per parameter; ZeRO-1 divides the
 * 12 by dp (Rajbhandari et al. SC20 sec. 5.1). */
Test(memory, model_states_bytes_per_parameter)
{
    struct model m = load_model("llama3-8b");
    struct hw_system h = load_system("dgx-h100");
    struct job j = make_job(4096, 256);
    struct pred_ctx c;
    struct pred_mem a, b;
    struct plan p = make_plan(2, 1, 8, 1);
    double params;
    pred_ctx_init(&c, &m, &h, &j, false);
    params = stage_params(&m, &p, 0);
    pred_memory(&c, &p, &a);
    assert_rel(a.weights_bytes, 2 * params, 1e-12);
    assert_rel(a.grads_bytes, 4 * params, 1e-12);
    assert_rel(a.optimizer_bytes, 12 * params, 1e-12);
    p.zero = 1;
    pred_memory(&c, &p, &b);
    assert_rel(b.optimizer_bytes, 12 * params / 8, 1e-12);
    cr_assert_lt(b.total_bytes, a.total_bytes);
    assert_rel(b.margin_bytes, b.usable_bytes - b.total_bytes, 1e-12);
    cr_assert_eq(b.fits, b.margin_bytes >= 0);
}

/* DeepSpeed's BF16_Optimizer keeps the bf16 param.grad beside its fp32
 * copy of the gradients (the stack's grad_copy_bf16_bytes, 2): a bf16 job
 * holds 4 + 2 bytes of gradient per parameter, an fp16 job 4, ZeRO-2 the
 * sharded gradients of shard.c alone. */
Test(memory, bf16_gradient_copy_bytes_per_parameter)
{
    struct model m = load_model("llama3-8b");
    struct hw_system h = load_system("dgx-h100");
    struct job j = make_job(4096, 256);
    struct pred_ctx c;
    struct pred_mem a, b;
    struct plan p = make_plan(2, 1, 8, 1);
    double params;
    p.zero = 1;
    j.grad_copy_bf16_bytes = 2;
    pred_ctx_init(&c, &m, &h, &j, false);
    params = stage_params(&m, &p, 0);
    pred_memory(&c, &p, &a);
    assert_rel(a.grads_bytes, 6 * params, 1e-12);
    c.job.precision = JOB_PREC_FP16;
    pred_memory(&c, &p, &b);
    assert_rel(b.grads_bytes, 4 * params, 1e-12);
    c.job.precision = JOB_PREC_BF16;
    c.job.grad_copy_bf16_bytes = 0;
    pred_memory(&c, &p, &b);
    assert_rel(b.grads_bytes, 4 * params, 1e-12);
    c.job.grad_copy_bf16_bytes = 2;
    p.zero = 2;
    pred_memory(&c, &p, &b);
    assert_rel(b.grads_bytes, 4 * params / 8, 1e-12);
}

/* The stack's reserve (job.reserve_bytes) replaces the system's: usable
 * is HBM less it, the margin follows; a negative one means the system's. */
Test(memory, stack_reserve_replaces_the_system_one)
{
    struct model m = load_model("llama3-8b");
    struct hw_system h = load_system("dgx-h100");
    struct job j = make_job(4096, 256);
    struct pred_ctx c;
    struct pred_mem a, b;
    struct plan p = make_plan(2, 1, 8, 1);
    pred_ctx_init(&c, &m, &h, &j, false);
    pred_memory(&c, &p, &a);
    assert_rel(a.reserve_bytes, h.reserve_bytes, 1e-12);
    c.job.reserve_bytes = 6.0 * 1073741824.0;
    pred_memory(&c, &p, &b);
    assert_rel(b.reserve_bytes, 6.0 * 1073741824.0, 1e-12);
    assert_rel(b.usable_bytes, h.hbm_bytes - 6.0 * 1073741824.0, 1e-12);
    assert_rel(b.margin_bytes, a.margin_bytes - (6.0 * 1073741824.0 -
                                                 h.reserve_bytes), 1e-9);
}

/* Selective recompute rebuilds one layer's attention core during the
 * backward pass: that transient is charged once, like full recompute's
 * rebuilt layer. */
Test(memory, selective_charges_one_rebuilt_core)
{
    struct model m = load_model("llama3-8b");
    struct hw_system h = load_system("dgx-h100");
    struct job j = make_job(32768, 8);
    struct pred_ctx c;
    struct pred_mem none, sel;
    struct plan p = make_plan(8, 4, 1, 1), q;
    double a_none, a_sel, layers;
    j.attention = JOB_ATTN_UNFUSED;
    pred_ctx_init(&c, &m, &h, &j, false);
    p.sp = true;
    q = p;
    q.recompute = PLAN_RECOMPUTE_SELECTIVE;
    a_none = pred_act_layer_bytes(&m, &j, &p);
    a_sel = pred_act_layer_bytes(&m, &j, &q);
    layers = pred_inflight_chunks(&p, 8, 0) * 32 / 4;
    pred_memory(&c, &p, &none);
    pred_memory(&c, &q, &sel);
    assert_rel(none.activations_bytes, layers * a_none, 1e-12);
    assert_rel(sel.activations_bytes, layers * a_sel + (a_none - a_sel), 1e-12);
}

/* FP8 primary weights (mem.c header: NeMo's FP8 recipe and NVIDIA's MLPerf
 * runs set fp8_param_gather / FP8_PARAMS): each GEMM weight is 1 byte of FP8
 * data plus its 1-byte cached transpose, the other parameters stay 16-bit,
 * so 2 bytes per parameter as in 16-bit training (no longer the 2 + 1 of a
 * 16-bit weight with an FP8 copy). On top, TE's delayed-scaling state: per
 * FP8 GEMM 3 forward + 2 backward tensors, each an fp32 scale, scale_inv and
 * 1024-entry amax history, 4 GEMMs per layer:
 *   4 x 5 x (1024 + 2) x 4 bytes = 82,080 bytes per layer;
 * Llama 3 8B, pp 1: 32 layers = 2,626,560 bytes. Gradients and optimizer
 * states do not change. */
Test(memory, fp8_weights_two_bytes_per_parameter_and_scaling_state)
{
    struct model m = load_model("llama3-8b");
    struct hw_system h = load_system("dgx-h100");
    struct job j = make_job(4096, 256);
    struct pred_ctx c;
    struct pred_mem a;
    struct plan p = make_plan(2, 1, 8, 1);
    double params = stage_params(&m, &p, 0);
    cr_assert_eq(pred_fp8_scaling_bytes(&j, (double)(m.layers / p.pp)), 0);    /* bf16: none */
    j.precision = JOB_PREC_FP8;
    cr_assert_eq(pred_fp8_scaling_bytes(&j, (double)(m.layers / p.pp)), 2626560.0);
    pred_ctx_init(&c, &m, &h, &j, false);
    pred_memory(&c, &p, &a);
    assert_rel(a.weights_bytes, 2 * params + 2626560.0, 1e-12);
    assert_rel(a.grads_bytes, 4 * params, 1e-12);
    assert_rel(a.optimizer_bytes, 12 * params, 1e-12);
    p.pp = 4;                   /* the fullest stage's 8 layers */
    cr_assert_eq(pred_fp8_scaling_bytes(&j, (double)(m.layers / p.pp)), 8 * 82080.0);
}

/* Korthikanti's inventory under Transformer Engine FP8 (mem.c header), GPT
 * layer with dropout and unfused attention (kv = h, f = 4h):
 *   replicated: norm inputs 4sbh, QKV and fc1 inputs in FP8 sbh + sbh,
 *               2 dropout masks 2sbh                          =  8 sbh
 *   split:      Q 2sbh, K and V 4sbh, out-proj input in FP8 sbh, GeLU
 *               input 2sbf = 8sbh, fc2 input in FP8 sbf = 4sbh = 19 sbh
 *               softmax terms                                 5as^2b
 * so Table 2's 10 + 24/t becomes 8 + 19/t and, with sp, 34/t becomes 27/t;
 * full recompute keeps the 16-bit layer input (2sbh) as before. */
static double table2_fp8(const struct model *m, double s, double b, double t,
                         bool sp, enum plan_recompute recompute)
{
    double h = (double)m->hidden, a = (double)m->heads, sbh = s * b * h;
    switch (recompute) {
    case PLAN_RECOMPUTE_NONE:
        return sp ? sbh / t * (27 + 5 * a * s / h)
                  : sbh * (8 + 19 / t + 5 * a * s / (h * t));
    case PLAN_RECOMPUTE_SELECTIVE:
        return sp ? sbh * 27 / t : sbh * (8 + 19 / t);
    default:
        return sp ? 2 * sbh / t : 2 * sbh;
    }
}

Test(memory, fp8_korthikanti_inventory_every_combination)
{
    every_combination(JOB_PREC_FP8, table2_fp8);
}

/* FP8 with flash attention, Llama 3 70B, tp 8, sp, s 8192, b 1, no
 * dropout: the kernel keeps its 16-bit output O (2sbh) beside out-proj's
 * FP8 copy (sbh); SwiGLU keeps its 16-bit [gate, up] input (4sbf) and fc2
 * its FP8 input (sbf):
 *   (4sbh + sbh + sbh) / 8 + (2sbh + 4 s kv + 3sbh + 5 s f + 4 a s) / 8
 * against 16-bit's (8sbh) / 8 + (4sbh + 4 s kv + 6 s f + 4 a s) / 8. */
Test(memory, fp8_flash_gqa_glu_hand_count)
{
    struct model m = load_model("llama3-70b");
    struct job j = make_job(8192, 512);
    struct plan p = make_plan(8, 1, 1, 1);
    double s = 8192, h = 8192, sbh = s * h;
    double expect = 6 * sbh / 8 +
                    (5 * sbh + 4 * s * 1024 + 5 * s * 28672 + 4 * 64 * s) / 8;
    p.sp = true;
    j.precision = JOB_PREC_FP8;
    assert_rel(pred_act_layer_bytes(&m, &j, &p), expect, 1e-12);
}

/* The last stage keeps the final norm's and the LM head's 16-bit inputs
 * (2 x 2sbh) and the logits twice, 16-bit and the fp32 copy the loss reads
 * (2 + 4 = 6 bytes per vocabulary entry and token, over tp).
 * Llama 3 8B, s 4096, b 1, tp 1, pp 2, one micro-batch: both stages hold
 * one micro-batch of 16 layers and one table each; the last stage's extra
 * final norm and logits make it the worst:
 *   4 sbh = 4 * 4096 * 4096             =    67,108,864
 *   6 sbV = 6 * 4096 * 128256           = 3,152,019,456
 * No dropout: the first stage keeps no embedding mask. */
Test(memory, last_stage_logits_hand_count)
{
    struct model m = load_model("llama3-8b");
    struct hw_system h = load_system("dgx-h100");
    struct job j = make_job(4096, 1);
    struct pred_ctx c;
    struct pred_mem a;
    struct plan p = make_plan(1, 2, 1, 1);
    pred_ctx_init(&c, &m, &h, &j, false);
    pred_memory(&c, &p, &a);
    cr_assert_eq(a.worst_stage, 1);
    cr_assert_eq(a.embed_logits_bytes, 67108864.0 + 3152019456.0);
    p.tp = 2;                   /* logits split over tp, norm input not */
    p.dp = 1;
    pred_memory(&c, &p, &a);
    cr_assert_eq(a.worst_stage, 1);
    cr_assert_eq(a.embed_logits_bytes, 67108864.0 + 3152019456.0 / 2);
    /* torchtitan's unfused fp32 loss (the stack's loss_logit_bytes 12):
     * 12 sbV = 6,304,038,912 over tp 2 */
    c.job.loss_logit_bytes = 12;
    pred_memory(&c, &p, &a);
    cr_assert_eq(a.embed_logits_bytes, 67108864.0 + 6304038912.0 / 2);
}

/* With dropout (Megatron GPT runs), the first stage keeps the embedding
 * dropout mask, one byte per element, for every micro-batch in flight.
 * GPT-3 175B, s 2048, b 1, tp 8, pp 2, 4 micro-batches: 1F1B keeps pp = 2
 * in flight on the first stage, which is the worst (twice the last's
 * layer activations):  2 * s b h = 2 * 2048 * 12288 = 50,331,648 bytes. */
Test(memory, first_stage_embedding_dropout_mask)
{
    struct model m = load_model("gpt3-175b");
    struct hw_system h = load_system("dgx-a100");
    struct job j = make_job(2048, 4);
    struct pred_ctx c;
    struct pred_mem a;
    struct plan p = make_plan(8, 2, 1, 1);
    pred_ctx_init(&c, &m, &h, &j, false);
    pred_memory(&c, &p, &a);
    cr_assert_eq(a.worst_stage, 0);
    cr_assert_eq(a.embed_logits_bytes, 50331648.0);
    p.sp = true;                /* the mask is split over tp with sp */
    pred_memory(&c, &p, &a);
    cr_assert_eq(a.embed_logits_bytes, 50331648.0 / 8);
}

/* Megatron-LM's interleaved schedule (core/pipeline_parallel/schedules.py)
 * warms up (pp - r - 1) * 2 + (vpp - 1) * pp chunks on rank r and holds one
 * more in its steady state: pp 4, vpp 2 gives 11, 9, 7, 5 chunks on ranks
 * 0..3; with 2 micro-batches the whole iteration is 2 x vpp = 4 chunks. */
Test(memory, inflight_interleaved_per_rank)
{
    struct plan p = make_plan(1, 4, 1, 1);
    p.vpp = 2;
    cr_assert_eq(pred_inflight_chunks(&p, 1024, 0), 11);
    cr_assert_eq(pred_inflight_chunks(&p, 1024, 1), 9);
    cr_assert_eq(pred_inflight_chunks(&p, 1024, 2), 7);
    cr_assert_eq(pred_inflight_chunks(&p, 1024, 3), 5);
    cr_assert_eq(pred_inflight_chunks(&p, 2, 0), 4);
}

/* --headroom keeps memory free beyond the reserve: a plan fits only when
 * total <= usable - headroom. dgx-h100: HBM 79.6 GiB, reserve 3, so 20 % is
 * 15.92 GiB and usable less headroom is 76.6 - 15.92 = 60.68 GiB; 8 GiB is
 * 8 x 2^30 bytes, leaving 68.6. Llama 3 8B on pp 2, dp 4, mbs 2 with ZeRO-1
 * takes 67.69 GiB, between the two (checked), so it fits with 8 GiB and
 * not with 20 %. */
Test(memory, headroom_in_gib_and_percent_of_hbm)
{
    struct model m = load_model("llama3-8b");
    struct hw_system h = load_system("dgx-h100");
    struct job j = make_job(4096, 256);
    struct pred_ctx c;
    struct pred_mem none, gib, pct;
    struct plan p = make_plan(1, 2, 4, 2);
    p.zero = 1;
    pred_ctx_init(&c, &m, &h, &j, false);
    cr_assert_eq(c.headroom_bytes, 0);          /* default: none */
    pred_memory(&c, &p, &none);
    pred_ctx_headroom(&c, (struct pred_headroom){ 8, false });
    cr_assert_eq(c.headroom_bytes, 8.0 * 1073741824.0);
    pred_memory(&c, &p, &gib);
    pred_ctx_headroom(&c, (struct pred_headroom){ 20, true });
    assert_rel(c.headroom_bytes, 15.92 * 1073741824.0, 1e-12);
    pred_memory(&c, &p, &pct);
    cr_assert(none.total_bytes > 60.68 * 1073741824.0 &&
              none.total_bytes < 68.6 * 1073741824.0);
    assert_rel(gib.margin_bytes, none.margin_bytes - 8.0 * 1073741824.0, 1e-12);
    cr_assert(none.fits && gib.fits && !pct.fits);
    assert_rel(pct.margin_bytes, pct.usable_bytes - 15.92 * 1073741824.0 -
               pct.total_bytes, 1e-12);
    cr_assert_eq(pct.usable_bytes, none.usable_bytes);  /* reserve only */
    cr_assert_eq(pct.total_bytes, none.total_bytes);
}

/* torchtitan's op-level selective checkpointing keeps per token of a
 * layer the block input 2h, the outputs of wq (2q), wv (2kv) and w1 (2f),
 * the attention output (2q) and its fp32 log-sum-exp (4 a): Llama 3 8B,
 * tp 1: 2 x 4096 + 2 x (2 x 4096 + 1024 + 14336) + 4 x 32 = 55,424 B,
 * against 139,264 B for Megatron's selective (the attention core only).
 * With tp 8 and sp: the input and everything else over 8, plus the
 * reduce-scatter output after wo that the rebuilt residual add reads,
 * 2h / 8: (55,424 + 8,192) / 8 = 7,952 B. FP8 does not change it (mm
 * outputs are 16-bit). */
Test(memory, op_level_selective_hand_count)
{
    struct model m = load_model("llama3-8b");
    struct job j = make_job(8192, 16);
    struct plan p = make_plan(1, 1, 8, 1);
    p.recompute = PLAN_RECOMPUTE_SELECTIVE;
    assert_rel(pred_act_layer_bytes(&m, &j, &p), 8192.0 * 139264, 1e-12);
    j.selective = JOB_SELECTIVE_OP;
    assert_rel(pred_act_layer_bytes(&m, &j, &p), 8192.0 * 55424, 1e-12);
    p = make_plan(8, 1, 1, 1);
    p.sp = true;
    p.recompute = PLAN_RECOMPUTE_SELECTIVE;
    assert_rel(pred_act_layer_bytes(&m, &j, &p), 8192.0 * 7952, 1e-12);
    j.precision = JOB_PREC_FP8;
    assert_rel(pred_act_layer_bytes(&m, &j, &p), 8192.0 * 7952, 1e-12);
}
