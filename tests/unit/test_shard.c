/* tests/unit/test_shard.c: predictor/shard.c, ZeRO stages 0-3 and FSDP:
 * the model states a GPU keeps, and the all-gathers and reduce-scatters of
 * ZeRO-2/3 that compute does not hide.
 *
 * Memory follows Rajbhandari et al. SC20 Table 1's shape (stage 1 divides
 * the optimizer states by Nd, stage 2 the gradients too, stage 3 the
 * parameters too) with this program's bytes per parameter, 2 weights,
 * 4 gradients, 12 optimizer; FSDP adds the gathered units (2 x 2U) and one
 * unit's unsharded gradient (4U).
 *
 * Time: the links of test_compose.c (NVLink 1e11 B/s, 1 us a hop, 8 GPUs a
 * domain, no base or launch cost), so over dp = 8 inside one domain an
 * all-gather of S bytes takes 7/8 S / 1e11 and 7 hops, Simple's for large
 * buffers (NV_SIMPLE, helpers.h), and a reduce-scatter the same (NCCL
 * PERFORMANCE.md ring factors, predictor/coll.c). One layer of the tiny
 * model, U = 12,584,960 parameters (test_compose.c), gathers 2U =
 * 25,169,920 B: 220.2368 us + 7 hops; reduces 4U = 50,339,840 B:
 * 440.4736 us + 7 hops.
 * Interference (Calculon's processor_usage u = 0.15 on NVLink, shard.c):
 * compute that overlaps c seconds of communication lasts c u / (1 - u) =
 * c K longer, so a unit whose communication c outlasts its compute t
 * still costs c - t, and one hidden behind it costs c K. */
#include "helpers.h"

#include <string.h>

#define U      12584960.0       /* one layer of the tiny model */
#define AG_S   (220.2368e-6 + 7 * NV_SIMPLE)  /* all-gather of 2U over 8 */
#define RS_S   (440.4736e-6 + 7 * NV_SIMPLE)  /* reduce-scatter of 4U over 8 */
#define K      (0.15 / 0.85)    /* interference: u / (1 - u), NVLink */

static void setup(struct pred_ctx *c, enum job_reshard rs, bool overlap)
{
    struct model m = { .name = "tiny", .layers = 8, .hidden = 1024,
                       .heads = 8, .kv_heads = 8, .ffn_hidden = 4096,
                       .vocab = 32000, .norm = MODEL_NORM_RMSNORM,
                       .position = MODEL_POS_ROPE };
    struct hw_system h = load_system("dgx-a100");
    struct job j = make_job(1024, 8);
    j.overlap_grad_reduce = overlap;
    j.overlap_param_gather = overlap;
    j.fsdp_reshard = rs;
    pred_ctx_init(c, &m, &h, &j, false);
    round_rates(c);
}

static struct plan zplan(int pp, int dp, int zero)
{
    struct plan p = make_plan(1, pp, dp, 1);
    p.zero = zero;
    return p;
}

/* P = 1e9 parameters on the stage, U = 1e7 a unit, dp 8. */
Test(shard, memory_by_stage)
{
    struct pred_ctx c;
    struct pred_shard_mem s;
    struct plan p;
    setup(&c, JOB_RESHARD_ALWAYS, true);
    p = zplan(1, 8, 0);
    pred_shard_mem(&c, &p, 1e9, 1e7, &s);       /* 2, 4, 12 bytes each */
    assert_rel(s.weights_bytes, 2e9, 1e-12);
    assert_rel(s.grads_bytes, 4e9, 1e-12);
    assert_rel(s.optimizer_bytes, 12e9, 1e-12);
    p.zero = 1;                                 /* 12P / 8 */
    pred_shard_mem(&c, &p, 1e9, 1e7, &s);
    assert_rel(s.grads_bytes, 4e9, 1e-12);
    assert_rel(s.optimizer_bytes, 1.5e9, 1e-12);
    p.zero = 2;                                 /* + 4P / 8 */
    pred_shard_mem(&c, &p, 1e9, 1e7, &s);
    assert_rel(s.weights_bytes, 2e9, 1e-12);
    assert_rel(s.grads_bytes, 0.5e9, 1e-12);
    p.zero = 3;         /* 2P/8 + 2 x 2U gathered; 4P/8 + 4U in flight */
    pred_shard_mem(&c, &p, 1e9, 1e7, &s);
    assert_rel(s.weights_bytes, 0.25e9 + 4e7, 1e-12);
    assert_rel(s.grads_bytes, 0.5e9 + 4e7, 1e-12);
    assert_rel(s.optimizer_bytes, 1.5e9, 1e-12);
}

/* Kept gathered ("never", or torchtitan's "default" under a pipeline):
 * the whole stage's 2P; with the pipeline's no-sync FSDP2's unsharded
 * accumulator in its fp32 reduce dtype, 4P, stays too, beside the fp32
 * shard 4P/8. */
Test(shard, memory_kept_gathered)
{
    struct pred_ctx c;
    struct pred_shard_mem s;
    struct plan p = zplan(1, 8, 3);
    setup(&c, JOB_RESHARD_NEVER, true);
    pred_shard_mem(&c, &p, 1e9, 1e7, &s);
    assert_rel(s.weights_bytes, 2e9, 1e-12);
    assert_rel(s.grads_bytes, 0.5e9 + 4e7, 1e-12);
    setup(&c, JOB_RESHARD_DEFAULT, true);
    pred_shard_mem(&c, &p, 1e9, 1e7, &s);       /* no pipeline: resharded */
    assert_rel(s.weights_bytes, 0.25e9 + 4e7, 1e-12);
    p = zplan(2, 8, 3);
    pred_shard_mem(&c, &p, 1e9, 1e7, &s);
    cr_assert(pred_shard_keeps_params(&c, &p));
    assert_rel(s.weights_bytes, 2e9, 1e-12);
    assert_rel(s.grads_bytes, 0.5e9 + 4e9, 1e-12);
}

/* The stack's bytes per parameter (NeMo AutoModel: bf16 parameters, so a
 * bf16 gradient, 2, and Adam's m and v in bf16 without a master copy, 4):
 * P = 1e9 over dp 8 under ZeRO-3 resharded, 2P/8 + 2 x 2U, 2P/8 + 4U,
 * 4P/8. A group of one rank shards nothing and FSDP2 leaves it alone: 2P,
 * 2P, 4P, no unit buffers; the default 4 and 12 give 4P and 12P. */
Test(shard, memory_stack_bytes)
{
    struct pred_ctx c;
    struct pred_shard_mem s;
    struct plan p = zplan(1, 8, 3);
    setup(&c, JOB_RESHARD_ALWAYS, true);
    c.job.grad_bytes = 2;
    c.job.optim_bytes = 4;
    pred_shard_mem(&c, &p, 1e9, 1e7, &s);
    assert_rel(s.weights_bytes, 0.25e9 + 4e7, 1e-12);
    assert_rel(s.grads_bytes, 0.25e9 + 4e7, 1e-12);
    assert_rel(s.optimizer_bytes, 0.5e9, 1e-12);
    p = zplan(2, 1, 3);                 /* one rank, under a pipeline */
    pred_shard_mem(&c, &p, 1e9, 1e7, &s);
    assert_rel(s.weights_bytes, 2e9, 1e-12);
    assert_rel(s.grads_bytes, 2e9, 1e-12);
    assert_rel(s.optimizer_bytes, 4e9, 1e-12);
    setup(&c, JOB_RESHARD_ALWAYS, true);
    pred_shard_mem(&c, &p, 1e9, 1e7, &s);
    assert_rel(s.grads_bytes, 4e9, 1e-12);
    assert_rel(s.optimizer_bytes, 12e9, 1e-12);
    cr_assert_eq(s.restore_bytes, 0.0);
    p = zplan(1, 8, 1);                 /* ZeRO-1 over dp 8, offloaded: */
    p.offload = 1;                      /* in host memory through fwd / bwd */
    pred_shard_mem(&c, &p, 1e9, 1e7, &s);
    cr_assert_eq(s.optimizer_bytes, 0.0);
    assert_rel(s.weights_bytes, 2e9, 1e-12);
    assert_rel(s.restore_bytes, 4e9 / 8, 1e-12);    /* fp32 master shard */
}

/* DeepSpeed's fp16 gradients (the stack's grad_fp16_bytes, 2) replace
 * the 4 bytes for fp16 jobs only: ZeRO-1 over dp 8 keeps 2P, a bf16 job
 * 4P; without the field fp16 takes grad_bytes. */
Test(shard, memory_fp16_gradients)
{
    struct pred_ctx c;
    struct pred_shard_mem s;
    struct plan p = zplan(1, 8, 1);
    setup(&c, JOB_RESHARD_ALWAYS, true);
    c.job.grad_fp16_bytes = 2;
    c.job.precision = JOB_PREC_FP16;
    pred_shard_mem(&c, &p, 1e9, 1e7, &s);
    assert_rel(s.grads_bytes, 2e9, 1e-12);
    assert_rel(s.optimizer_bytes, 1.5e9, 1e-12);
    c.job.precision = JOB_PREC_BF16;
    pred_shard_mem(&c, &p, 1e9, 1e7, &s);
    assert_rel(s.grads_bytes, 4e9, 1e-12);
    c.job.precision = JOB_PREC_FP16;
    c.job.grad_fp16_bytes = -1;
    pred_shard_mem(&c, &p, 1e9, 1e7, &s);
    assert_rel(s.grads_bytes, 4e9, 1e-12);
}

/* 16-bit gradient reduction (Megatron's --grad-reduce-in-bf16: the DDP
 * buffer in the parameters' dtype, param_and_grad_buffer.py): P = 1e9
 * under DDP and the distributed optimizer over dp 8 keeps 2P of
 * gradients, not 4P; sharded gradients (zero 2 / 3) keep the stack's 4
 * bytes, 4P / 8 and 4P / 8 + 4U; a stack of 2 bytes stays at 2. The
 * reduction itself moves 2 bytes an element (pred_grad_reduce_bytes). */
Test(shard, memory_grad_reduce_16bit)
{
    struct pred_ctx c;
    struct pred_shard_mem s;
    struct plan p = zplan(1, 8, 1);
    setup(&c, JOB_RESHARD_ALWAYS, true);
    c.job.grad_reduce_16bit = true;
    pred_shard_mem(&c, &p, 1e9, 1e7, &s);
    assert_rel(s.grads_bytes, 2e9, 1e-12);
    assert_rel(s.optimizer_bytes, 1.5e9, 1e-12);
    cr_assert_eq(pred_grad_reduce_bytes(&c), 2.0);
    p = zplan(1, 8, 0);
    pred_shard_mem(&c, &p, 1e9, 1e7, &s);
    assert_rel(s.grads_bytes, 2e9, 1e-12);
    p = zplan(1, 8, 2);
    pred_shard_mem(&c, &p, 1e9, 1e7, &s);
    assert_rel(s.grads_bytes, 0.5e9, 1e-12);
    p = zplan(1, 8, 3);
    pred_shard_mem(&c, &p, 1e9, 1e7, &s);
    assert_rel(s.grads_bytes, 0.5e9 + 4e7, 1e-12);
    c.job.grad_reduce_16bit = false;
    p = zplan(1, 8, 1);
    pred_shard_mem(&c, &p, 1e9, 1e7, &s);
    assert_rel(s.grads_bytes, 4e9, 1e-12);
    cr_assert_eq(pred_grad_reduce_bytes(&c), 4.0);
}

/* DeepSpeed's ZeRO-3 (zero3_gather "parameter") holds up to
 * stage3_max_live_parameters (1e9) gathered elements, 2 bytes each, and a
 * reduce bucket of 5e8 16-bit gradients, or the largest tensor when it is
 * larger, never more than the stage's P. The tiny model's largest tensor
 * is its word embedding, 32000 x 1024 = 32.768e6: P = 1e9 over dp 8 gives
 * 2P/8 + 2e9 and 4P/8 + 1e9; P = 1e8 caps both at 2P = 2e8. A 2e6-token
 * vocabulary makes the embedding 2.048e9 elements: 4.096e9 both. */
Test(shard, memory_deepspeed_zero3_buffers)
{
    struct pred_ctx c;
    struct pred_shard_mem s;
    struct plan p = zplan(1, 8, 3);
    setup(&c, JOB_RESHARD_ALWAYS, true);
    c.job.zero3_gather = JOB_GATHER_PARAMETER;
    pred_shard_mem(&c, &p, 1e9, 1e7, &s);
    assert_rel(s.weights_bytes, 0.25e9 + 2e9, 1e-12);
    assert_rel(s.grads_bytes, 0.5e9 + 1e9, 1e-12);
    pred_shard_mem(&c, &p, 1e8, 1e7, &s);
    assert_rel(s.weights_bytes, 0.25e8 + 2e8, 1e-12);
    assert_rel(s.grads_bytes, 0.5e8 + 2e8, 1e-12);
    c.model.vocab = 2000000;
    pred_shard_mem(&c, &p, 1e10, 1e7, &s);
    assert_rel(s.weights_bytes, 0.25e10 + 4.096e9, 1e-12);
    assert_rel(s.grads_bytes, 0.5e10 + 4.096e9, 1e-12);
}

/* ZeRO-3 resharded, one micro-batch, 8 layers of 0.1 ms forward and
 * 0.2 ms backward: forward AG + 7 (AG - 0.1 ms); backward RS + 7 (AG +
 * RS - 0.2 ms): 15 AG + 8 RS - 2.1 ms in all (communication-bound:
 * the interference moves time from exposed to slowed compute, no more).
 * With 1 ms and 2 ms layers the first gather and the last reduce show,
 * and the other 7 layers' compute slows by K of what hides behind it:
 * AG + RS + 7 K (AG + AG + RS). Nothing overlapped: 8 AG + 8 (AG + RS),
 * no interference. */
Test(shard, zero3_exposed_per_layer)
{
    struct pred_ctx c;
    struct plan p = zplan(1, 8, 3);
    struct pred_shard_layer l = { .n = 8, .fwd_s = 1e-4, .bwd_s = 2e-4,
                                  .unit_params = U };
    setup(&c, JOB_RESHARD_ALWAYS, true);
    assert_rel(pred_shard_exposed(&c, &p, &l, 1), 15 * AG_S + 8 * RS_S - 2.1e-3, 1e-9);
    l.fwd_s = 1e-3;
    l.bwd_s = 2e-3;
    assert_rel(pred_shard_exposed(&c, &p, &l, 1),
               AG_S + RS_S + 7 * K * (2 * AG_S + RS_S), 1e-9);
    setup(&c, JOB_RESHARD_ALWAYS, false);
    assert_rel(pred_shard_exposed(&c, &p, &l, 1), 16 * AG_S + 8 * RS_S, 1e-9);
}

/* Per-micro-batch passes repeat m times (and the pipeline's bubble
 * slots); a step-long gather happens once. 4 micro-batches, long layers
 * (each pass: its first unit's communication, then 7 x K of the rest's):
 *   ZeRO-3 resharded, pp 1: 4 (AG + RS + 7 K (2 AG + RS));
 *   ZeRO-2: one gather, 4 reduces: AG + 7 K AG + 4 (RS + 7 K RS);
 *   ZeRO-3 kept under a pipeline (torchtitan's default, pp 2): one gather
 *   and one reduce (no-sync), AG + RS + 7 K (AG + RS);
 *   ZeRO-1 and dp 1: nothing here (compose.c's bucketed path). */
Test(shard, passes_per_step)
{
    struct pred_ctx c;
    struct plan p = zplan(1, 8, 3);
    struct pred_shard_layer l = { .n = 8, .fwd_s = 1e-3, .bwd_s = 2e-3,
                                  .unit_params = U };
    setup(&c, JOB_RESHARD_DEFAULT, true);
    assert_rel(pred_shard_exposed(&c, &p, &l, 4),
               4 * (AG_S + RS_S + 7 * K * (2 * AG_S + RS_S)), 1e-9);
    p.zero = 2;
    assert_rel(pred_shard_exposed(&c, &p, &l, 4),
               AG_S + 7 * K * AG_S + 4 * (RS_S + 7 * K * RS_S), 1e-9);
    p = zplan(2, 8, 3);
    assert_rel(pred_shard_exposed(&c, &p, &l, 4),
               AG_S + RS_S + 7 * K * (AG_S + RS_S), 1e-9);
    p = zplan(1, 8, 1);
    cr_assert_eq(pred_shard_exposed(&c, &p, &l, 4), 0.0);
    p = zplan(1, 1, 3);
    cr_assert_eq(pred_shard_exposed(&c, &p, &l, 4), 0.0);
}

/* Through pred_compose: tiny model, one stage, dp 8, one micro-batch, long
 * layers. The stage's ends are the two tables and the final norm,
 * 2 x 32,768,000 + 1,024 = 65,537,024 parameters, gathered before the
 * first layer and reduced after the last, exposed whole:
 * 7/8 x 131,074,048 / 1e11 = 1146.89792 us and 7/8 x 262,148,096 / 1e11
 * = 2293.79584 us, each with 7 Simple hops; with the first layer's
 * gather, the last's reduce and the other layers' interference
 * (zero3_exposed_per_layer). */
Test(shard, compose_zero3)
{
    struct pred_ctx c;
    struct plan p = zplan(1, 8, 3);
    struct pred_memo x;
    struct pred_result o;
    memset(&x, 0, sizeof x);
    x.layer.fwd_total_s = 1e-3;
    x.layer.bwd_total_s = 2e-3;
    setup(&c, JOB_RESHARD_ALWAYS, true);
    c.job.gbs = 8;
    memset(&o, 0, sizeof o);
    pred_compose(&c, &p, &x, &o);
    cr_assert_eq(o.microbatches, 1);
    assert_rel(o.part_s[PRED_PART_DP_EXPOSED],
               1146.89792e-6 + 2293.79584e-6 + 14 * NV_SIMPLE + AG_S + RS_S +
               7 * K * (2 * AG_S + RS_S), 1e-9);
}

/* The rule zero-pp: DeepSpeed's pipeline engine refuses ZeRO-2 and 3. */
Test(shard, zero_pp_rule)
{
    struct model m = load_model("llama3-8b");
    struct job j = make_job(4096, 64);
    struct plan_limits lim = { .tp_domain = 8, PLAN_ANY_STACK };
    struct plan p = make_plan(1, 2, 4, 1);
    char why[200];
    lim.stack_zero_pp = 1;
    p.zero = 1;
    cr_assert_eq(plan_check(&p, &m, &j, &lim), PLAN_OK);
    p.zero = 2;
    cr_assert_eq(plan_check(&p, &m, &j, &lim), PLAN_RULE_ZERO_PP);
    plan_rule_explain(PLAN_RULE_ZERO_PP, &p, &m, &j, &lim, why, sizeof why);
    cr_assert_str_eq(why, "zero-pp: the stack runs zero 2 only without "
                     "pipeline parallelism (pp 2; at most zero 1 with pp > 1)");
    p = make_plan(1, 1, 8, 1);
    p.zero = 3;
    cr_assert_eq(plan_check(&p, &m, &j, &lim), PLAN_OK);
}

/* The plan's overlap switch: off, nothing is prefetched or overlapped even
 * where the stack could (zero3_exposed_per_layer's sum without overlap:
 * 16 AG + 8 RS); on, what the stack overlaps: a stack that overlaps the
 * reduction but not the gather, with long layers, exposes the 8 forward
 * gathers, the 8 backward gathers and only the last reduction, and the
 * 7 hidden reductions slow the compute: 16 AG + RS + 7 K RS. Megatron's
 * gather overlap needs the reduction's. */
Test(shard, plan_overlap_switch)
{
    struct pred_ctx c;
    struct plan p = zplan(1, 8, 3);
    struct pred_shard_layer l = { .n = 8, .fwd_s = 1e-3, .bwd_s = 2e-3,
                                  .unit_params = U };
    setup(&c, JOB_RESHARD_ALWAYS, true);
    cr_assert(pred_overlap_grad(&c, &p) && pred_overlap_param(&c, &p));
    p.overlap = 0;
    cr_assert(!pred_overlap_grad(&c, &p) && !pred_overlap_param(&c, &p));
    assert_rel(pred_shard_exposed(&c, &p, &l, 1), 16 * AG_S + 8 * RS_S, 1e-9);
    p.overlap = 1;
    c.job.overlap_param_gather = false;
    cr_assert(pred_overlap_grad(&c, &p) && !pred_overlap_param(&c, &p));
    assert_rel(pred_shard_exposed(&c, &p, &l, 1),
               16 * AG_S + RS_S + 7 * K * RS_S, 1e-9);
    c.job.overlap_param_gather = true;      /* the gather needs the reduce */
    c.job.overlap_grad_reduce = false;
    cr_assert(!pred_overlap_param(&c, &p));
}

/* Hybrid sharding (HSDP), replicas 2 over dp 16 (tp 1, 8 GPUs a domain):
 * ZeRO shards over d = 8, so ZeRO-3 keeps 2P/8 + 4U of weights. The
 * shard group is 8 contiguous dp ranks, one domain: each layer's gather is
 * AG_S as over dp 8. The reduction adds, after RS_S, an all-reduce of the
 * 1/8 shard (4U/8 = 6,292,480 B) across the 2 replicas, 8 GPUs apart, so
 * on the network: ring factor 2 x (2-1)/2 x 6,292,480 / 1e10 = 629.248 us
 * plus 2 Simple network hops (NET_SIMPLE). With long
 * layers, one micro-batch, ZeRO-3 resharded: AG + RS + AR exposed, and
 * the NVLink interference of the shard group (inside one domain) on the
 * 7 other layers' gathers and reductions. */
#define HSDP_AR (629.248e-6 + 2 * NET_SIMPLE)
Test(shard, hybrid_sharding)
{
    struct pred_ctx c;
    struct pred_shard_mem s;
    struct plan p = zplan(1, 16, 3);
    struct pred_shard_layer l = { .n = 8, .fwd_s = 1e-3, .bwd_s = 2e-3,
                                  .unit_params = U };
    p.replicas = 2;
    setup(&c, JOB_RESHARD_ALWAYS, true);
    cr_assert_eq(pred_shard_degree(&p), 8);
    pred_shard_mem(&c, &p, 1e9, 1e7, &s);
    assert_rel(s.weights_bytes, 0.25e9 + 4e7, 1e-12);
    assert_rel(s.optimizer_bytes, 1.5e9, 1e-12);
    assert_rel(pred_dp_gather_s(&c, &p, 2 * U), AG_S, 1e-9);
    assert_rel(pred_dp_reduce_s(&c, &p, 4 * U), RS_S + HSDP_AR, 1e-9);
    assert_rel(pred_shard_exposed(&c, &p, &l, 1), AG_S + RS_S + HSDP_AR +
               7 * K * (2 * AG_S + RS_S + HSDP_AR), 1e-9);
}

/* The rule replicas-dp: replicas divide dp and need a ZeRO stage. */
Test(shard, replicas_rule)
{
    struct model m = load_model("llama3-8b");
    struct job j = make_job(4096, 64);
    struct plan_limits lim = { .tp_domain = 8, PLAN_ANY_STACK };
    struct plan p = make_plan(1, 1, 8, 1);
    char why[200];
    p.replicas = 2;
    cr_assert_eq(plan_check(&p, &m, &j, &lim), PLAN_RULE_REPLICAS);
    plan_rule_explain(PLAN_RULE_REPLICAS, &p, &m, &j, &lim, why, sizeof why);
    cr_assert_str_eq(why, "replicas-dp: replicas (2) > 1 shard nothing with "
                     "zero 0");
    p.zero = 3;
    cr_assert_eq(plan_check(&p, &m, &j, &lim), PLAN_OK);
    p.replicas = 3;
    cr_assert_eq(plan_check(&p, &m, &j, &lim), PLAN_RULE_REPLICAS);
    plan_rule_explain(PLAN_RULE_REPLICAS, &p, &m, &j, &lim, why, sizeof why);
    cr_assert_str_eq(why, "replicas-dp: dp (8) not divisible by replicas (3)");
}

/* FSDP2's copy-out (the stack's fsdp_copy_out): each gathered unit is
 * copied from the all-gather buffer on the compute stream, 4U bytes at
 * 1e12 B/s = 50.33984 us, 8 times in the forward and 8 in the backward
 * of a resharded step; Megatron-FSDP and DeepSpeed gather in place. Over
 * dp 16 with tp 1 the shard group spans two domains: the NICs' tier, whose
 * NCCL kernels hold as many SMs as NVLink's (tpo.c): 0.15. */
Test(shard, fsdp2_copy_out_and_nic_interference)
{
    struct pred_ctx c;
    struct plan p = zplan(1, 8, 3);
    struct pred_shard_layer l = { .n = 8, .fwd_s = 1e-3, .bwd_s = 2e-3,
                                  .unit_params = U };
    double base, ag, rs, k2 = 0.15 / 0.85;
    setup(&c, JOB_RESHARD_ALWAYS, true);
    base = pred_shard_exposed(&c, &p, &l, 1);
    c.job.fsdp_copy_out = true;
    assert_rel(pred_shard_exposed(&c, &p, &l, 1) - base, 16 * 50.33984e-6,
               1e-9);
    p.zero = 2;                     /* nothing gathered per unit: no copy */
    c.job.fsdp_copy_out = false;
    base = pred_shard_exposed(&c, &p, &l, 1);
    c.job.fsdp_copy_out = true;
    assert_rel(pred_shard_exposed(&c, &p, &l, 1), base, 1e-12);
    c.job.fsdp_copy_out = false;
    p = zplan(1, 16, 3);
    ag = pred_dp_gather_s(&c, &p, 2 * U);
    rs = pred_dp_reduce_s(&c, &p, 4 * U);
    cr_assert(ag < 1e-3 && 2 * ag + rs < 2e-3, "%g %g", ag, rs);  /* hidden */
    assert_rel(pred_shard_exposed(&c, &p, &l, 1),
               ag + rs + 7 * k2 * (2 * ag + rs), 1e-9);
}

/* DeepSpeed's ZeRO-3 (zero3_gather "parameter"): the tiny model's layer
 * has 6 tensors (4 GEMM weights, 2 RMSNorm weights, no biases), so a
 * gather is 6 all-gathers of 2U / 6 over dp 8, at that size LL128's (0.92
 * of the rate, 7 hops of NV_LL128): 6 x (7/8 x 4,194,986.67 / 0.92e11 +
 * 7 x 3.1667 us) = 372.388 us, each into a list of 8
 * per-rank views that PyTorch's process group copies out one by one:
 * 4U = 50,339,840 B read and written at 1e12 B/s = 50.33984 us and
 * 6 x 8 = 48 copy kernels (48 us at a 1 us launch). The gradients come
 * back the same way: 6 reduce-scatters of the 16-bit 2U / 6 (the same
 * time) after the same copy-in. Nothing overlapped, one
 * micro-batch: 8 gathers forward, 8 (gather + reduce) backward; with
 * full recompute the rebuilt forward gathers again: 8 more. */
Test(shard, deepspeed_gathers_each_tensor)
{
    struct pred_ctx c;
    struct plan p = zplan(1, 8, 3);
    struct pred_shard_layer l = { .n = 8, .fwd_s = 1e-3, .bwd_s = 2e-3,
                                  .unit_params = U };
    double ag = 6 * (7.0 / 8 * 2 * U / 6 / 0.92e11 + 7 * NV_LL128) + 50.33984e-6;
    setup(&c, JOB_RESHARD_ALWAYS, false);
    c.job.zero3_gather = JOB_GATHER_PARAMETER;
    assert_rel(pred_shard_exposed(&c, &p, &l, 1), 24 * ag, 1e-9);
    p.recompute = PLAN_RECOMPUTE_FULL;
    assert_rel(pred_shard_exposed(&c, &p, &l, 1), 32 * ag, 1e-9);
    c.k.launch_s = 1e-6;                /* + 48 copy kernels a collective */
    assert_rel(pred_shard_exposed(&c, &p, &l, 1), 32 * (ag + 48e-6), 1e-9);
    c.k.launch_s = 0;
    c.job.zero3_gather = JOB_GATHER_UNIT;        /* FSDP: one flat gather */
    assert_rel(pred_shard_exposed(&c, &p, &l, 1), 16 * AG_S + 8 * RS_S, 1e-9);
}
