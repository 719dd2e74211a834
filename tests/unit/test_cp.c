/* tests/unit/test_cp.c: context parallelism (predictor/cp.c) and TP
 * communication overlap (predictor/tpo.c): the ring's steps and exposed KV
 * exchange, tokens and memory per cp rank, the gradient group, the rules,
 * auto values, the overlap arithmetic by hand, and the done-when plan
 * (Llama-3-8B at seq 131072 on 64 H100s plans with cp > 1).
 *
 * Model "small" as test_pred.c: h 1024, 8 heads of 128, 2 KV heads (kv dim
 * 256), SwiGLU f 4096; seq 1024, tp 2. */
#include "helpers.h"

#include "search/search.h"

static void setup(struct pred_ctx *c, int64_t seq)
{
    struct model m = small_model();
    struct hw_system h = load_system("dgx-h100");
    struct job j = make_job(seq, 8);
    pred_ctx_init(c, &m, &h, &j, false);
    c->k.has_flash = false;     /* the roofline attention (test_flash.c) */
}

/* cp 2, seq 1024: each ring step is 512 queries against 512 keys, causal
 * half-block: 2 x 512^2 x 4 heads x 128 = 268,435,456 FLOPs (together the
 * 2 steps do half of cp 1's 1,073,741,824: the causal work split evenly),
 * q, o 512 wide and k, v 128, 2 bytes: 2 x 512 x (1024 + 256) = 1,310,720 B.
 * KV block: 512 tokens x (k + v) 2 x 256 / tp 2 x 2 bytes = 262,144 B,
 * sent once forward (inside the NVLink domain: tp cp = 4 <= 8), KV and its
 * gradient backward. Step i's exchange overlaps step i's attention: cp - 1
 * = 1 exchange, the attention slowed by u = 0.15 (NVLink) while it runs,
 * and what outlasts it exposed: on a slow link (1e9 B/s between two GPUs,
 * 262 us a block) most of it. */
Test(cp, ring_steps_and_exposed_exchange)
{
    struct pred_ctx c;
    struct pred_layer o;
    double f, b, kv, extra_f, extra_b, exp_f, exp_b;
    setup(&c, 1024);
    c.k.pair_bytes_per_s = 1e9;
    f = pred_compute_s(&c.k, &c.k.attn, 268435456.0, 1310720.0);
    b = pred_compute_s(&c.k, &c.k.attn_bwd, 2.5 * 268435456.0, 2 * 1310720.0);
    kv = pred_p2p_s(&c.k, 262144.0, 0);
    extra_f = fmin(f, kv) * 0.15 / 0.85;
    extra_b = fmin(b, 2 * kv) * 0.15 / 0.85;
    exp_f = fmax(0, kv - f - extra_f);
    exp_b = fmax(0, 2 * kv - b - extra_b);
    cr_assert_gt(exp_f, 0.5 * kv);
    o = tp_layer(&c, 2, 2, false, false);
    assert_rel(o.fwd_s[PRED_OP_ATTN], 2 * f + extra_f, 1e-12);
    assert_rel(o.bwd_s[PRED_OP_ATTN], 2 * b + extra_b, 1e-12);
    assert_rel(o.fwd_s[PRED_OP_CP_COMM], exp_f, 1e-12);
    assert_rel(o.bwd_s[PRED_OP_CP_COMM], exp_b, 1e-12);
    /* full recompute repeats the exchange: recompute, not tp communication */
    {
        struct plan p = make_plan(2, 1, 1, 1);
        p.cp = 2;
        p.recompute = PLAN_RECOMPUTE_FULL;
        pred_layer_time(&c, &p, &o);
        assert_rel(o.recompute_comm_s, o.fwd_s[PRED_OP_TP_COMM], 1e-12);
        assert_rel(o.recompute_s, o.fwd_total_s, 1e-12);
    }
    /* at cp 1 nothing is exchanged */
    o = tp_layer(&c, 2, 1, false, false);
    cr_assert_eq(o.fwd_s[PRED_OP_CP_COMM], 0.0);
    cr_assert_eq(o.bwd_s[PRED_OP_CP_COMM], 0.0);
}

/* allgather (PyTorch's "allgather" rotation): the 2 x 262,144 B of KV
 * gathered over the 2 cp ranks, beside the first step only; backward the
 * gather again and a reduce-scatter of the KV gradients, exposed. a2a
 * (Ulysses): all-to-all of q, k, v (512 tokens x (1024 + 512) / tp 2 x 2
 * B = 786,432 B) and of the output (524,288 B), each way, none hidden. */
Test(cp, allgather_and_a2a_variants)
{
    struct pred_ctx c;
    struct pred_layer o;
    double f, b, ag, rs, x, e;
    setup(&c, 1024);
    f = pred_compute_s(&c.k, &c.k.attn, 268435456.0, 1310720.0);
    b = pred_compute_s(&c.k, &c.k.attn_bwd, 2.5 * 268435456.0, 2 * 1310720.0);
    c.job.cp_comm = JOB_CP_ALLGATHER;
    ag = pred_coll_s(&c.k, PRED_COLL_ALLGATHER, 524288.0, 2, 2);
    rs = pred_coll_s(&c.k, PRED_COLL_REDUCESCATTER, 524288.0, 2, 2);
    o = tp_layer(&c, 2, 2, false, false);
    pred_overlap(f, ag, 0.15, 1, &x, &e);
    assert_rel(o.fwd_s[PRED_OP_ATTN], 2 * f + x, 1e-12);
    cr_assert_eq(o.fwd_s[PRED_OP_CP_COMM], e);
    pred_overlap(b, ag, 0.15, 1, &x, &e);
    assert_rel(o.bwd_s[PRED_OP_CP_COMM], e + rs, 1e-12);
    c.job.cp_comm = JOB_CP_A2A;
    o = tp_layer(&c, 2, 2, false, false);
    assert_rel(o.fwd_s[PRED_OP_ATTN], 2 * f, 1e-12);
    assert_rel(o.fwd_s[PRED_OP_CP_COMM],
               pred_coll_s(&c.k, PRED_COLL_ALLGATHER, 786432.0, 2, 2) +
               pred_coll_s(&c.k, PRED_COLL_ALLGATHER, 524288.0, 2, 2), 1e-12);
    assert_rel(o.bwd_s[PRED_OP_CP_COMM], o.fwd_s[PRED_OP_CP_COMM], 1e-12);
}

/* PyTorch's ring attention (the job's cp_merge_eager) sends the running
 * fp32 KV gradients to the next rank after every step (_attention.py
 * _templated_ring_attention_backward, dkv_rotater ALL_TO_ALL): twice a
 * 262,144 B KV block, 524,288 B a send; cp - 1 = 1 beside a step's
 * backward (exposed past it), one after the last step, exposed whole; no
 * reduce-scatter. */
Test(cp, pytorch_ring_sends_fp32_kv_gradients)
{
    struct pred_ctx c;
    struct pred_layer o;
    double b, ag, send, x, e, xs, es;
    setup(&c, 1024);
    c.k.pair_bytes_per_s = 1e9;         /* a slow link: the sends show */
    b = pred_compute_s(&c.k, &c.k.attn_bwd, 2.5 * 268435456.0, 2 * 1310720.0);
    c.job.cp_comm = JOB_CP_ALLGATHER;
    c.job.cp_merge_eager = true;
    ag = pred_coll_s(&c.k, PRED_COLL_ALLGATHER, 524288.0, 2, 2);
    send = pred_p2p_s(&c.k, 524288.0, 0);
    o = tp_layer(&c, 2, 2, false, false);
    pred_overlap(b, ag, 0.15, 1, &x, &e);
    pred_overlap(b, send, 0.15, 1, &xs, &es);
    cr_assert_gt(es, 0.0);
    assert_rel(o.bwd_s[PRED_OP_CP_COMM], e + es + send, 1e-12);
}

/* torchtitan repeats K and V to every query head before the attention
 * (the job's repeat_kv: models/llama/model.py repeat_kv): the small
 * model's 8 query heads against its 2 KV heads, so the gathered KV is
 * 4 x 524,288 = 2,097,152 B (512 tokens x 2 x 1024 / tp 2 x 2 B a rank). */
Test(cp, repeated_kv_moves_at_the_query_width)
{
    struct pred_ctx c;
    struct pred_layer o;
    double f, x, e;
    setup(&c, 1024);
    f = pred_compute_s(&c.k, &c.k.attn, 268435456.0, 1310720.0);
    c.job.cp_comm = JOB_CP_ALLGATHER;
    c.job.repeat_kv = true;
    o = tp_layer(&c, 2, 2, false, false);
    pred_overlap(f, pred_coll_s(&c.k, PRED_COLL_ALLGATHER, 2097152.0, 2, 2),
                 0.15, 1, &x, &e);
    assert_rel(o.fwd_s[PRED_OP_ATTN], 2 * f + x, 1e-12);
    assert_rel(o.fwd_s[PRED_OP_CP_COMM], e, 1e-12);
    c.job.repeat_kv = false;
    o = tp_layer(&c, 2, 2, false, false);
    pred_overlap(f, pred_coll_s(&c.k, PRED_COLL_ALLGATHER, 524288.0, 2, 2),
                 0.15, 1, &x, &e);
    assert_rel(o.fwd_s[PRED_OP_CP_COMM], e, 1e-12);
}

/* Long blocks hide the exchange: seq 131072, cp 8 (16,384 tokens a step,
 * 4.3e12 causal FLOPs against a 4 MiB KV block) exposes nothing; across
 * nodes (tp 8, cp 2 > the 8-GPU domain) the ring pays the NIC. */
/* PyTorch ring attention's eager fp32 merges (cp.c merge_eager), by hand:
 * cp 2, tp 2, seq 1024: the rank's 512 tokens, output e = 512 x 1024 / 2 =
 * 262,144 elements, KV kv = 512 x 2 x 256 / 2 = 131,072. Forward
 * (cp - 1)(38 e + 4 kv) + 12 e = 9,961,472 + 524,288 + 3,145,728 =
 * 13,631,488 B; backward cp (10 e + 22 kv) + 6 (e + kv) = 2 x (2,621,440
 * + 2,883,584) + 2,359,296 = 13,369,344 B; at 1e12 B/s, no launch cost. */
Test(cp, eager_merges_by_hand)
{
    struct pred_ctx c;
    struct pred_layer with, without;
    cr_assert_float_eq(pred_cp_merge_bytes(262144, 131072, 2, 0), 13631488.0, 1e-3);
    cr_assert_float_eq(pred_cp_merge_bytes(262144, 131072, 2, 1), 13369344.0, 1e-3);
    setup(&c, 1024);
    round_rates(&c);
    c.job.cp_comm = JOB_CP_ALLGATHER;
    without = tp_layer(&c, 2, 2, false, false);
    c.job.cp_merge_eager = true;
    with = tp_layer(&c, 2, 2, false, false);
    cr_assert_float_eq(with.fwd_s[PRED_OP_ATTN] - without.fwd_s[PRED_OP_ATTN],
                       13631488e-12, 1e-12);
    /* and the fp32 KV-gradient sends (dkv_back) slow the one step they
     * run beside by the NVLink interference: 2 x 262,144 B */
    {
        double b = pred_compute_s(&c.k, &c.k.attn_bwd, 2.5 * 268435456.0,
                                  2 * 1310720.0), x, e;
        pred_overlap(b, pred_p2p_s(&c.k, 524288.0, 0), 0.15, 1, &x, &e);
        cr_assert_float_eq(with.bwd_s[PRED_OP_ATTN] - without.bwd_s[PRED_OP_ATTN],
                           13369344e-12 + x, 1e-12);
    }
    with = tp_layer(&c, 2, 1, false, false);       /* nothing to merge at cp 1 */
    c.job.cp_merge_eager = false;
    without = tp_layer(&c, 2, 1, false, false);
    cr_assert_eq(with.fwd_s[PRED_OP_ATTN], without.fwd_s[PRED_OP_ATTN]);
}

Test(cp, long_blocks_hide_the_exchange)
{
    struct pred_ctx c;
    struct pred_layer o;
    struct plan p = make_plan(8, 1, 1, 1);
    setup(&c, 131072);
    o = tp_layer(&c, 1, 8, false, false);
    cr_assert_eq(o.fwd_s[PRED_OP_CP_COMM], 0.0);
    cr_assert_eq(o.bwd_s[PRED_OP_CP_COMM], 0.0);
    cr_assert_not(pred_cp_inter(&c, &p));
    p.cp = 2;
    cr_assert(pred_cp_inter(&c, &p));
}

/* Every other operator works on T / cp tokens: the layer at cp 2 on seq
 * 2048 is the layer at cp 1 on seq 1024 for everything but the attention
 * core (whose keys still span the whole sequence). */
Test(cp, operators_on_seq_over_cp_tokens)
{
    struct pred_ctx a, b;
    struct pred_layer x, y;
    setup(&a, 2048);
    setup(&b, 1024);
    x = tp_layer(&a, 2, 2, true, false);
    y = tp_layer(&b, 2, 1, true, false);
    for (int i = 0; i < PRED_OP_COUNT; i++)
        if (i != PRED_OP_ATTN && i != PRED_OP_CP_COMM && i != PRED_OP_HOST)
            assert_rel(x.fwd_s[i] + 1e-30, y.fwd_s[i] + 1e-30, 1e-12);
    cr_assert_gt(x.fwd_s[PRED_OP_ATTN], y.fwd_s[PRED_OP_ATTN]);
}

/* Activations per GPU shrink by cp (flash attention keeps no s^2 term);
 * ZeRO-1 shards the optimizer over dp * cp (Megatron's data-parallel group
 * with context parallelism). */
Test(cp, memory_per_cp_rank)
{
    struct model m = small_model();
    struct job j2 = make_job(2048, 8), j1 = make_job(1024, 8);
    struct hw_system h = load_system("dgx-h100");
    struct plan p = make_plan(2, 1, 2, 1), q = p;
    struct pred_ctx c;
    struct pred_mem a, b;
    p.cp = 2;
    assert_rel(pred_act_layer_bytes(&m, &j2, &p), pred_act_layer_bytes(&m, &j1, &q),
               1e-12);
    p.zero = q.zero = 1;
    q.dp = 4;                   /* the same 4-rank optimizer shard */
    pred_ctx_init(&c, &m, &h, &j2, false);
    pred_memory(&c, &p, &a);
    pred_memory(&c, &q, &b);
    assert_rel(a.optimizer_bytes, b.optimizer_bytes, 1e-12);
    cr_assert_eq(pred_grad_ranks(&p), 4);
    cr_assert_eq(plan_gpus(&p), 8);
}

/* The rules: seq divisible by 2 cp; with sp, seq / cp by tp; tpo needs sp
 * and a stack that has it. */
Test(cp, rules)
{
    struct model m = small_model();
    struct job j = make_job(1004, 8);
    struct plan_limits lim = { .tp_domain = 8, PLAN_ANY_STACK };
    struct plan p = make_plan(2, 1, 1, 1);
    char buf[160];
    p.cp = 4;
    cr_assert_eq(plan_check(&p, &m, &j, &lim), PLAN_RULE_CP_SEQ);
    plan_rule_explain(PLAN_RULE_CP_SEQ, &p, &m, &j, &lim, buf, sizeof buf);
    cr_assert_str_eq(buf, "cp-seq: seq (1004) not divisible by 2*cp (8)");
    p.cp = 1;                   /* no cp, no split: an odd length is fine */
    j.seq = 2047;
    cr_assert_eq(plan_check(&p, &m, &j, &lim), PLAN_OK);
    p.cp = 4;
    j.seq = 1032;               /* 1032 / 4 = 258 tokens, 258 % 4 != 0 */
    m.kv_heads = 4;
    p.tp = 4;
    p.sp = 1;
    cr_assert_eq(plan_check(&p, &m, &j, &lim), PLAN_RULE_SEQ_SP);
    j.seq = 1024;
    p.sp = 0;
    p.tpo = 1;
    cr_assert_eq(plan_check(&p, &m, &j, &lim), PLAN_RULE_TPO_SP);
    p.sp = 1;
    cr_assert_eq(plan_check(&p, &m, &j, &lim), PLAN_OK);
    lim.stack_tpo = false;
    cr_assert_eq(plan_check(&p, &m, &j, &lim), PLAN_RULE_STACK_TPO);
    lim.stack_tpo = true;
    lim.stack_cp = false;       /* cp_comm none: no context parallelism */
    cr_assert_eq(plan_check(&p, &m, &j, &lim), PLAN_RULE_STACK_CP);
    lim.stack_cp = true;
    j.cp_comm = JOB_CP_A2A;     /* 8 / 4 = 2 heads per tp rank over cp 4 */
    cr_assert_eq(plan_check(&p, &m, &j, &lim), PLAN_RULE_CP_HEADS);
    p.overlap = plan_overlap_default(&p, &lim);   /* dp * cp 4: on */
    plan_key(&p, buf, sizeof buf);
    cr_assert_str_eq(buf, "tp4.cp4.pp1.dp1.mb1.sp.tpo");
}

/* auto: powers of two with two chunks dividing seq and >= 8192 tokens per
 * GPU (dims.h PLAN_CP_MIN_TOKENS), up to the GPUs. */
Test(cp, auto_values)
{
    struct pred_ctx c;
    int32_t v[16];
    setup(&c, 131072);
    cr_assert_eq(pred_cp_auto(&c, 1024, v, 16), 5);
    cr_assert_eq(v[0], 1);
    cr_assert_eq(v[4], 16);
    cr_assert_eq(pred_cp_auto(&c, 8, v, 16), 4);
    setup(&c, 16384);
    cr_assert_eq(pred_cp_auto(&c, 1024, v, 16), 2);
    setup(&c, 8192);
    cr_assert_eq(pred_cp_auto(&c, 1024, v, 16), 1);
    setup(&c, 131072);          /* a stack without cp: cp 1 only */
    c.limits.stack_cp = false;
    cr_assert_eq(pred_cp_auto(&c, 1024, v, 16), 1);
}

/* pred_overlap by hand, u = 0.15, compute C and communication M in tp = 2
 * or 4 chunks: C 10, M 4: the GEMM lasts 4 x 0.15 / 0.85 = 0.70588 longer,
 * the comm hides but one chunk, 4 / 2 = 2. C 2, M 4 (4 chunks): extra 2 x
 * 0.15 / 0.85 = 0.352941; exposed 4 - 2.352941 + 2.352941 / 4 = 2.235294. */
Test(tpo, overlap_by_hand)
{
    double extra, exposed;
    pred_overlap(10, 4, 0.15, 2, &extra, &exposed);
    assert_rel(extra, 0.6 / 0.85, 1e-12);
    assert_rel(exposed, 2.0, 1e-12);
    pred_overlap(2, 4, 0.15, 4, &extra, &exposed);
    assert_rel(extra, 0.3 / 0.85, 1e-12);
    assert_rel(exposed, 4 - 2 - 0.3 / 0.85 + (2 + 0.3 / 0.85) / 4, 1e-12);
    assert_rel(pred_interference(false), 0.15, 1e-12);
    assert_rel(pred_interference(true), 0.15, 1e-12);   /* NCCL CTAs on either tier */
}

/* Transformer Engine's userbuffers SMs (base.py initialize_ub defaults):
 * a ring-exchange all-gather takes 1 SM, a pipelined or bulk reduce-
 * scatter 16; on an H100's 132 SMs u = 1/132 = 0.0075758 and 16/132 =
 * 0.121212; on a B200's 148, 16/148 = 0.108108. */
Test(tpo, userbuffers_sm_share)
{
    struct pred_ctx c;
    struct model m = small_model();
    struct hw_system h = load_system("dgx-b200");
    struct job j = make_job(1024, 8);
    setup(&c, 1024);
    assert_rel(pred_tpo_interference(&c, false), 1.0 / 132.0, 1e-12);
    assert_rel(pred_tpo_interference(&c, true), 16.0 / 132.0, 1e-12);
    pred_ctx_init(&c, &m, &h, &j, false);
    assert_rel(pred_tpo_interference(&c, true), 16.0 / 148.0, 1e-12);
}

/* Done when (issue 10): Llama-3-8B at seq 131072 on 64 H100s plans with
 * cp > 1, and its MFU counts causal attention: per token and layer forward
 * 2h(h + 2kv) + 2h^2 + 3 x 2hf + 2sh (the dense count has 4sh), logits
 * 2hV, x 3 for the backward, over 64 x 131072 tokens. */
Test(cp, llama3_8b_131k_on_64_h100s_plans_with_cp)
{
    struct model m = load_model("llama3-8b");
    struct hw_system h = load_system("dgx-h100");
    struct job j = make_job(131072, 64);
    struct pred_ctx c;
    struct space s;
    struct search_result r;
    struct tpl_err err = { 0 };
    int64_t gpus = 64;
    struct search_cfg cfg = { .ctx = &c, .space = &s, .gpus = &gpus,
                              .n_gpus = 1, .top_k = 1 };
    double hd = 4096, kv = 1024, f = 14336, sq = 131072, V = 128256;
    double layer = 2 * hd * (hd + 2 * kv) + 2 * hd * hd + 6 * hd * f + 2 * sq * hd;
    pred_ctx_init(&c, &m, &h, &j, false);
    memset(&s, 0, sizeof s);
    cr_assert_eq(search_run(&cfg, &r, &err), 0, "%s", err.msg);
    cr_assert_eq(r.per_gpu[0].n_hits, 1);
    cr_assert_gt(r.per_gpu[0].hits[0].plan.cp, 1);
    assert_rel(c.model_flops, 3 * 64 * sq * (32 * layer + 2 * hd * V), 1e-12);
    search_result_release(&r);
}
