/* tests/unit/test_moe.c: mixture-of-experts plans (predictor/moe.c, the
 * MoE rules of spaces/plan.c): the all-to-all against hand-computed cases,
 * the folding rules, the imbalance law, the grouped GEMM's size
 * dependence, and a DeepSeek-V3 pipeline stage's memory counted by hand. */
#include "helpers.h"

#include <string.h>

static struct pred_ctx moe_ctx(const char *model, int64_t seq, int64_t gbs)
{
    struct model m = load_model(model);
    struct hw_system h = load_system("dgx-h100");
    struct job j = make_job(seq, gbs);
    struct pred_ctx c;
    pred_ctx_init(&c, &m, &h, &j, false);
    return c;
}

/* With round rates (NVLink 100 GB/s, NIC 10 GB/s, 1 us and 10 us hops, no
 * base): S bytes per GPU, S / n to each rank. Inside a node the 7/8 that
 * leave the GPU cross NVLink; across 2 nodes of 8 half of S crosses the
 * NIC; across 8 nodes 7/8 of it: the all-to-all is not a ring. */
Test(moe, all_to_all_hand_counts)
{
    struct pred_ctx c = moe_ctx("mixtral-8x7b", 4096, 256);
    round_rates(&c);
    assert_rel(pred_a2a_s(&c.k, 8e8, 8, 8), 1e-6 + 8e8 * 7 / 8 / 1e11, 1e-12);
    assert_rel(pred_a2a_s(&c.k, 1.6e9, 16, 8),
               1e-6 + 1e-5 + 1.6e9 * 8 / 16 / 1e10, 1e-12);
    assert_rel(pred_a2a_s(&c.k, 6.4e9, 64, 8),
               1e-6 + 1e-5 + 6.4e9 * 56 / 64 / 1e10, 1e-12);
    /* one rank per node (etp 8): every peer off-node */
    assert_rel(pred_a2a_s(&c.k, 8e8, 8, 1), 1e-5 + 8e8 * 7 / 8 / 1e10, 1e-12);
    cr_assert_eq(pred_a2a_s(&c.k, 8e8, 1, 1), 0);
}

/* prod_{i<k} (n - u - i) / (n - i), written out */
static double none_of(double n, double u, int k)
{
    double q = 1;
    for (int i = 0; i < k; i++)
        q *= (n - u - i) / (n - i);
    return q;
}

/* The GPUs and nodes a token's experts reach (moe.c header). Mixtral's
 * top 2 of 8 experts, one per GPU: 2 GPUs. DeepSeek-V3 (256 experts in 8
 * groups of 32, 4 groups per token, top 8): a node of 8 holding one group
 * is reached when its group is chosen (4 / 8) and one of the 8 picks among
 * the 128 experts of the chosen groups is its; a node of 4 holding two
 * groups by the hypergeometric count of its chosen groups (0, 1, 2 of 2
 * with C(6,4), 2 C(6,3), C(6,2) of C(8,4) = 70). */
Test(moe, routing_reach_by_hand)
{
    struct model mx = load_model("mixtral-8x7b"), ds = load_model("deepseek-v3");
    double four;
    assert_rel(8 * pred_moe_hit_share(&mx.moe, 8), 2.0, 1e-12);
    cr_assert_eq(pred_moe_hit_share(&mx.moe, 1), 1.0);
    cr_assert_eq(ds.moe.groups, 8);
    cr_assert_eq(ds.moe.group_topk, 4);
    assert_rel(pred_moe_hit_share(&ds.moe, 8),
               0.5 * (1 - none_of(128, 32, 8)), 1e-12);
    assert_rel(8 * pred_moe_hit_share(&ds.moe, 8), 3.6290109244257, 1e-9);
    assert_rel(pred_moe_hit_share(&ds.moe, 64),
               0.5 * (1 - none_of(128, 4, 8)), 1e-12);
    four = 1 - (15.0 / 70 * none_of(128, 0, 8) + 40.0 / 70 * none_of(128, 32, 8) +
                15.0 / 70 * none_of(128, 64, 8));
    assert_rel(pred_moe_hit_share(&ds.moe, 4), four, 1e-12);
    /* without the group limit: 1 - C(224, 8) / C(256, 8) per node */
    ds.moe.groups = ds.moe.group_topk = 1;
    assert_rel(pred_moe_hit_share(&ds.moe, 8), 1 - none_of(256, 32, 8), 1e-12);
}

/* The flex dispatcher against the all-to-all with round rates: DeepSeek-V3
 * on ep 64 (8 nodes) sends each token to 3.18 remote nodes over the NIC,
 * not 7 of its 8 copies; NVLink carries the forwards, 7/8 of the 7.36
 * GPUs reached. Mixtral on 8 GPUs, one expert each, is the same either
 * way. */
Test(moe, flex_dispatch_by_hand)
{
    struct pred_ctx c = moe_ctx("deepseek-v3", 4096, 1024), x;
    struct plan p = make_plan(1, 1, 64, 1);
    struct pred_layer l, a;
    double tok, nodes, gpus, imb;
    p.ep = 64;
    round_rates(&c);
    c.job.moe_dispatch = JOB_MOE_FLEX;
    pred_layer_time(&c, &p, &l);
    imb = pred_moe_imbalance(&c, &p, sqrt(2 * log(64.0)));
    tok = 2.0 * 4096 * 7168 * imb;
    nodes = 8 * pred_moe_hit_share(&c.model.moe, 8) * 7 / 8;
    gpus = 64 * pred_moe_hit_share(&c.model.moe, 64);
    cr_assert_gt(tok * nodes / 1e10, tok * gpus * 7 / 8 / 1e11);
    assert_rel(l.fwd_s[PRED_OP_DISPATCH], 1e-6 + 1e-5 + tok * nodes / 1e10, 1e-12);
    assert_rel(l.bwd_s[PRED_OP_COMBINE], l.fwd_s[PRED_OP_DISPATCH], 1e-12);
    c.job.moe_dispatch = JOB_MOE_ALLTOALL;
    pred_layer_time(&c, &p, &a);
    assert_rel(a.fwd_s[PRED_OP_DISPATCH], 1e-6 + 1e-5 + 8 * tok * 56 / 64 / 1e10,
               1e-12);
    x = moe_ctx("mixtral-8x7b", 4096, 256);
    round_rates(&x);
    p = make_plan(1, 1, 8, 1);
    p.ep = 8;
    pred_layer_time(&x, &p, &a);
    x.job.moe_dispatch = JOB_MOE_FLEX;
    pred_layer_time(&x, &p, &l);
    assert_rel(l.fwd_s[PRED_OP_DISPATCH], a.fwd_s[PRED_OP_DISPATCH], 1e-12);
}

/* ep's group: etp innermost, so etp 2 halves the ep ranks a node holds. */
Test(moe, ep_group_per_node)
{
    struct pred_ctx c = moe_ctx("deepseek-v3", 4096, 1024);
    struct plan p = make_plan(1, 1, 64, 1);
    p.ep = 64;
    cr_assert_eq(pred_ep_per_domain(&c, &p), 8);
    p.etp = 2;
    p.ep = 32;
    cr_assert_eq(pred_ep_per_domain(&c, &p), 4);
    p.ep = 2;
    cr_assert_eq(pred_ep_per_domain(&c, &p), 2);
}

/* Megatron's folding and its checks, each named. */
Test(moe, rules)
{
    struct model mx = load_model("mixtral-8x7b"), ll = load_model("llama3-8b");
    struct job j = make_job(4096, 256);
    struct plan_limits lim = { .tp_domain = 8, PLAN_ANY_STACK };
    struct plan p = make_plan(1, 1, 64, 1);
    char why[256];
    p.ep = 8;
    cr_assert_eq(plan_check(&p, &mx, &j, &lim), PLAN_OK);
    cr_assert_eq(plan_edp(&p), 8);
    cr_assert_eq(plan_check(&p, &ll, &j, &lim), PLAN_RULE_EP_DENSE);
    p.ep = 3;
    cr_assert_eq(plan_check(&p, &mx, &j, &lim), PLAN_RULE_EP_EXPERTS);
    p.ep = 8;
    p.etp = 3;
    cr_assert_eq(plan_check(&p, &mx, &j, &lim), PLAN_RULE_ETP_FFN);
    p.etp = 16;                 /* 8 x 16 = 128 does not divide 64 */
    cr_assert_eq(plan_check(&p, &mx, &j, &lim), PLAN_RULE_EP_FOLD);
    plan_rule_explain(PLAN_RULE_EP_FOLD, &p, &mx, &j, &lim, why, sizeof why);
    cr_assert(strstr(why, "ep*etp (128)") && strstr(why, "(64)"), "%s", why);
    p = make_plan(2, 1, 32, 1);
    p.ep = 8;
    cr_assert_eq(plan_check(&p, &mx, &j, &lim), PLAN_RULE_EP_SP);
    p.sp = true;
    cr_assert_eq(plan_check(&p, &mx, &j, &lim), PLAN_OK);
    cr_assert_eq(plan_edp(&p), 8);      /* 2 x 32 / 8 */
    lim.stack_ep = false;
    cr_assert_eq(plan_check(&p, &mx, &j, &lim), PLAN_RULE_STACK_EP);
    cr_assert_str_eq(plan_rule_name(PLAN_RULE_STACK_EP), "stack-ep");
}

/* torchtitan's expert mesh (ep_mesh fsdp): with tp 4 on a MoE model, ep 1
 * needs etp = tp (the experts split over the tp mesh), so plain tp4 is
 * refused although no MoE dimension is set; etp 2 is neither 1 nor tp;
 * ep 8 x etp 1 must divide dp_shard x cp x tp: under DDP 1 x 1 x 4 = 4
 * (refused), under FSDP over dp 16: 16 x 4 = 64 (runs), HSDP with 4
 * replicas: 4 x 4 = 16 (runs), with 8: 2 x 4 = 8 (runs), 16: 1 x 4 (no).
 * Megatron's folding takes tp cp dp = 64 for all of these. */
Test(moe, fsdp_expert_mesh_rules)
{
    struct model mx = load_model("qwen3-30b-a3b"), ll = load_model("llama3-8b");
    struct job j = make_job(4096, 256);
    struct plan_limits lim = { .tp_domain = 8, PLAN_ANY_STACK,
                               .ep_mesh = PLAN_EP_MESH_FSDP };
    struct plan p = make_plan(4, 1, 16, 1);
    char why[256];
    p.sp = true;
    cr_assert_eq(plan_check(&p, &ll, &j, &lim), PLAN_OK);   /* dense: no rule */
    cr_assert_eq(plan_check(&p, &mx, &j, &lim), PLAN_RULE_EP_MESH_ETP);
    p.etp = 4;
    cr_assert_eq(plan_check(&p, &mx, &j, &lim), PLAN_OK);
    p.ep = 8;
    p.etp = 2;
    cr_assert_eq(plan_check(&p, &mx, &j, &lim), PLAN_RULE_EP_MESH_ETP);
    p.etp = 1;
    cr_assert_eq(plan_check(&p, &mx, &j, &lim), PLAN_RULE_EP_MESH_FOLD);
    plan_rule_explain(PLAN_RULE_EP_MESH_FOLD, &p, &mx, &j, &lim, why, sizeof why);
    cr_assert(strstr(why, "ep*etp (8)") && strstr(why, "(1 x 1 x 4)"), "%s", why);
    p.zero = 3;
    cr_assert_eq(plan_check(&p, &mx, &j, &lim), PLAN_OK);
    for (int r = 4, want[] = { PLAN_OK, PLAN_OK, PLAN_RULE_EP_MESH_FOLD }, k = 0;
         r <= 16; r *= 2, k++) {
        p.replicas = r;
        cr_assert_eq(plan_check(&p, &mx, &j, &lim), want[k], "replicas %d", r);
    }
    p.replicas = 16;
    lim.ep_mesh = PLAN_EP_MESH_MEGATRON;        /* 4 x 16 = 64 ranks fold */
    cr_assert_eq(plan_check(&p, &mx, &j, &lim), PLAN_OK);
    cr_assert_str_eq(plan_rule_name(PLAN_RULE_EP_MESH_FOLD), "ep-mesh-fold");
}

/* Balanced routing: 1 + sqrt(2 ln ep) sqrt((1 - 1/ep) / T_e); none at ep 1;
 * capped by a capacity factor. */
Test(moe, imbalance_law)
{
    struct pred_ctx c = moe_ctx("mixtral-8x7b", 4096, 256);
    struct plan p = make_plan(1, 1, 64, 1);
    double te = 4096.0 * 2, z = sqrt(2 * log(8.0));
    cr_assert_eq(pred_moe_imbalance(&c, &p, z), 1.0);
    p.ep = 8;
    assert_rel(pred_moe_expert_tokens(&c, &p), te, 1e-12);
    assert_rel(pred_moe_imbalance(&c, &p, z),
               1 + z * sqrt((1 - 1 / 8.0) / te), 1e-12);
    c.model.moe.capacity_factor = 1.01;
    assert_rel(pred_moe_imbalance(&c, &p, 6.0), 1.01, 1e-12);
}

/* One group is one GEMM; splitting the same work over many groups of
 * few tokens leaves tiles empty and is never faster. */
Test(moe, grouped_gemm_size_dependence)
{
    struct pred_ctx c = moe_ctx("mixtral-8x7b", 4096, 256);
    const struct pred_kernels *k = &c.k;
    double one = pred_grouped_gemm_s(k, &k->gemm, 1, 8192, 4096, 4096, 2);
    cr_assert_eq(one, pred_gemm_s(k, &k->gemm, 8192, 4096, 4096, 2));
    cr_assert_geq(pred_grouped_gemm_s(k, &k->gemm, 64, 128, 4096, 4096, 2), one);
    cr_assert_gt(pred_grouped_gemm_s(k, &k->gemm, 256, 32, 4096, 4096, 2),
                 pred_grouped_gemm_s(k, &k->gemm, 64, 128, 4096, 4096, 2));
    cr_assert_eq(pred_grouped_gemm_s(k, &k->gemm, 8, 0, 4096, 4096, 2), 0);
}

/* An MoE layer: FLOPs of its expert GEMMs are the active experts' (the
 * slowest GPU's share), all-to-alls land in ep_comm, and a dense model's
 * layer has none of it. */
Test(moe, layer_parts)
{
    struct pred_ctx c = moe_ctx("mixtral-8x7b", 4096, 256);
    struct pred_ctx d = moe_ctx("llama3-8b", 4096, 256);
    struct plan p = make_plan(1, 1, 64, 1);
    struct pred_layer l, dl;
    p.ep = 8;
    pred_layer_time(&c, &p, &l);
    pred_layer_time(&d, &p, &dl);
    cr_assert_gt(l.fwd_s[PRED_OP_DISPATCH], 0);
    cr_assert_eq(l.fwd_s[PRED_OP_DISPATCH], l.fwd_s[PRED_OP_COMBINE]);
    cr_assert_gt(pred_layer_part_s(&l, PRED_PART_EP_COMM), 0);
    cr_assert_eq(l.fwd_s[PRED_OP_FC1], 0);      /* no shared experts */
    cr_assert_eq(pred_layer_part_s(&dl, PRED_PART_EP_COMM), 0);
    cr_assert_eq(dl.fwd_s[PRED_OP_EXPERT_UP], 0);
    /* ep 1: the same experts' work, no all-to-all */
    p.ep = 1;
    pred_layer_time(&c, &p, &l);
    cr_assert_eq(pred_layer_part_s(&l, PRED_PART_EP_COMM), 0);
}

/* DeepSeek-V3: 3 dense layers first, on pipeline rank 0. */
Test(moe, dense_first_layers_on_rank_0)
{
    struct model m = load_model("deepseek-v3");
    struct stage_layout s;
    cr_assert_eq(stage_layout(STAGE_SPLIT_MEGATRON, m.layers, 16, 1, 3, 2, &s), 0);
    cr_assert_eq(pred_stage_moe_layers(&m, &s, 0), 0);
    cr_assert_eq(pred_stage_moe_layers(&m, &s, 1), 4);
    cr_assert_eq(pred_stage_moe_layers(&m, &s, 15), 2);
    cr_assert_eq(stage_layout(STAGE_SPLIT_MEGATRON, m.layers, 1, 1, 0, 0, &s), 0);
    cr_assert_eq(pred_stage_moe_layers(&m, &s, 0), 58);
}

/* A DeepSeek-V3 stage by hand: tp 1, pp 16 (3 / 4 ... / 2 layers), dp 128,
 * ep 64, ZeRO-1, full recompute, seq 4096, mbs 1. Per MoE layer: MLA
 * 187,107,328, shared expert 3 x 7168 x 2048 = 44,040,192, router 7168 x
 * 256 + 256 (bias), two RMSNorms 2 x 7168: 232,997,120 kept over dp;
 * routed experts 256 / 64 = 4 of 44,040,192 kept over edp = 128 / 64 = 2.
 * Rank 1 holds 4 MoE layers. The last rank, the worst: 2 MoE layers, the
 * MTP block (2 norms, the 2h x h projection, one MoE layer: its experts
 * too) and the head (129,280 x 7,168 and the final norm). Weights 2,
 * gradients 4 per parameter; Adam's 12 over dp (dense) and over edp
 * (experts). */
Test(moe, deepseek_v3_stage_memory)
{
    struct pred_ctx c = moe_ctx("deepseek-v3", 4096, 15360);
    struct plan p = make_plan(1, 16, 128, 1);
    struct stage_layout s;
    double layer = 232997120.0, experts = 4.0 * 44040192.0;
    double mtp = 2.0 * 7168 + 2.0 * 7168 * 7168 + layer;
    double dense = 2.0 * layer + mtp + 129280.0 * 7168 + 7168;
    double sbh = 4096.0 * 7168.0;
    struct pred_mem mem;
    p.ep = 64;
    p.zero = 1;
    p.recompute = PLAN_RECOMPUTE_FULL;
    cr_assert_eq(plan_stage_layout(&p, &c.model, &c.limits, &s), 0);
    cr_assert_eq(stage_rank_layers(&s, 1), 4);
    assert_rel(pred_stage_params(&c.model, &p, &s, 1), 4.0 * layer, 1e-12);
    assert_rel(pred_stage_expert_params(&c.model, &p, &s, 1), 4.0 * experts,
               1e-12);
    assert_rel(pred_stage_params(&c.model, &p, &s, 15), dense, 1e-12);
    assert_rel(pred_stage_expert_params(&c.model, &p, &s, 15), 3.0 * experts,
               1e-12);
    pred_memory(&c, &p, &mem);
    cr_assert_eq(mem.worst_stage, 15);
    assert_rel(mem.weights_bytes, 2.0 * (dense + 3.0 * experts), 1e-12);
    assert_rel(mem.grads_bytes, 4.0 * (dense + 3.0 * experts), 1e-12);
    assert_rel(mem.optimizer_bytes,
               12.0 * dense / 128 + 12.0 * 3.0 * experts / 2, 1e-12);
    /* one micro-batch in flight on the last rank: 2 layers' 2 s b h, the
     * MTP head's fp32 logits 6 s b V, the layer rebuilt for the backward
     * and the MTP layer's input (below 4 GB) */
    cr_assert_geq(mem.activations_bytes, 2.0 * 2.0 * sbh + 6.0 * 4096 * 129280);
    cr_assert_lt(mem.activations_bytes,
                 2.0 * 2.0 * sbh + 6.0 * 4096 * 129280 + 4e9);
}

/* The all-to-all overlap: its rules, and beside a layer's computation
 * the exposed all-to-all shrinks, never below what outlasts the compute. */
Test(moe, a2a_overlap)
{
    struct pred_ctx c = moe_ctx("mixtral-8x7b", 4096, 256);
    struct plan p = make_plan(1, 1, 64, 1), q;
    struct pred_layer off, on;
    double comm_off, comm_on;
    p.ep = 8;
    q = p;
    q.epo = 1;
    cr_assert_eq(plan_check(&q, &c.model, &c.job, &c.limits), PLAN_OK);
    pred_layer_time(&c, &p, &off);
    pred_layer_time(&c, &q, &on);
    comm_off = pred_layer_part_s(&off, PRED_PART_EP_COMM);
    comm_on = pred_layer_part_s(&on, PRED_PART_EP_COMM);
    cr_assert_lt(comm_on, comm_off);
    cr_assert_geq(on.fwd_total_s + on.bwd_total_s,
                  off.fwd_total_s + off.bwd_total_s - comm_off);
    cr_assert_lt(on.fwd_total_s + on.bwd_total_s,
                 off.fwd_total_s + off.bwd_total_s);
    q.recompute = PLAN_RECOMPUTE_FULL;
    cr_assert_eq(plan_check(&q, &c.model, &c.job, &c.limits),
                 PLAN_RULE_EPO_RECOMPUTE);
    q = make_plan(1, 2, 32, 1);
    q.ep = 8;
    q.epo = 1;
    cr_assert_eq(plan_check(&q, &c.model, &c.job, &c.limits),
                 PLAN_RULE_EPO_SCHEDULE);
    q.ep = 1;
    cr_assert_eq(plan_check(&q, &c.model, &c.job, &c.limits), PLAN_RULE_EPO_EP);
    q = p;
    q.epo = 1;
    c.limits.stack_epo = false;
    cr_assert_eq(plan_check(&q, &c.model, &c.job, &c.limits),
                 PLAN_RULE_STACK_EPO);
}

/* The pieces by hand: tokens a GPU's experts receive (its sp share times
 * top-k, gathered over etp), the grouped GEMM of its E / ep experts, the
 * permutation's traffic (k copies), and ep_comm once per micro-batch per
 * MoE layer of the stage. */
Test(moe, layer_pieces_by_hand)
{
    struct pred_ctx c = moe_ctx("mixtral-8x7b", 4096, 256);
    struct plan p = make_plan(2, 1, 32, 1);
    struct pred_layer l;
    struct pred_result r;
    double h = 4096, f = 14336, tl, te, imb;
    p.ep = 8;
    p.sp = true;
    assert_rel(pred_moe_expert_tokens(&c, &p), 4096.0 / 2 * 2, 1e-12);
    p.etp = 2;                  /* ep 8 x etp 2 = 16 of tp 2 x dp 32 */
    assert_rel(pred_moe_expert_tokens(&c, &p), 4096.0 * 2, 1e-12);
    p = make_plan(1, 1, 64, 2);
    p.ep = 4;                   /* 2 local experts */
    pred_layer_time(&c, &p, &l);
    tl = 8192;
    te = tl * 2;
    imb = pred_moe_imbalance(&c, &p, sqrt(2 * log(4.0)));
    assert_rel(l.fwd_s[PRED_OP_EXPERT_UP],
               pred_grouped_gemm_s(&c.k, &c.k.gemm, 2, te * imb / 2, 2 * f, h, 2),
               1e-12);
    assert_rel(l.fwd_s[PRED_OP_PERMUTE],
               pred_mem_s(&c.k, 2 * (2 * tl * h + 2 * 2 * tl * h), 2), 1e-12);
    pred_plan(&c, &p, &r);          /* gbs 256 / (dp 64 x mbs 2): 2 */
    assert_rel(r.part_s[PRED_PART_EP_COMM],
               2.0 * 32 * pred_layer_part_s(&l, PRED_PART_EP_COMM), 1e-12);
}

/* Dense-first layers fill the first virtual stages: with 4 chunks of 8
 * layers per rank, 10 dense layers take rank 0's first chunk and 2 of
 * rank 1's. */
Test(moe, dense_first_layers_by_chunk)
{
    struct model m = load_model("deepseek-v3");
    struct stage_layout s;
    m.layers = 64;
    m.moe.dense_first = 10;
    cr_assert_eq(stage_layout(STAGE_SPLIT_EVEN, m.layers, 2, 4, 0, 0, &s), 0);
    cr_assert_eq(pred_stage_moe_layers(&m, &s, 0), 32 - 8);
    cr_assert_eq(pred_stage_moe_layers(&m, &s, 1), 32 - 2);
}

/* An MoE layer's parameters on a GPU without its routed experts (the
 * FSDP unit and the dense states): DeepSeek-V3 at tp 1, 232,997,120
 * (MLA, shared expert, router with its bias, two norms); its dense layer
 * holds the 18,432-wide MLP instead. */
Test(moe, layer_params_by_kind)
{
    struct model m = load_model("deepseek-v3");
    struct plan p = make_plan(1, 1, 64, 1);
    p.ep = 64;
    assert_rel(pred_layer_params_kind(&m, &p, true), 232997120.0, 1e-12);
    assert_rel(pred_layer_params_kind(&m, &p, false),
               187107328.0 + 3.0 * 7168 * 18432 + 2.0 * 7168, 1e-12);
    assert_rel(pred_layer_expert_params(&m, &p), 4.0 * 3 * 7168 * 2048, 1e-12);
}

/* Megatron's --recompute-modules (spaces/job.h): names in and out. */
Test(moe, recompute_module_names)
{
    unsigned set;
    char bad[40] = "", buf[128];
    cr_assert_eq(job_rc_modules_parse("core_attn, moe_act  layernorm", &set,
                                      bad, sizeof bad), 0);
    cr_assert_eq(set, JOB_RC_BIT(JOB_RC_CORE_ATTN) | JOB_RC_BIT(JOB_RC_MOE_ACT) |
                      JOB_RC_BIT(JOB_RC_LAYERNORM));
    job_rc_modules_format(set, buf, sizeof buf);
    cr_assert_str_eq(buf, "core_attn moe_act layernorm");
    cr_assert_eq(job_rc_modules_parse("mlp,attn", &set, bad, sizeof bad), -1);
    cr_assert_str_eq(bad, "attn");
}

/* What each module saves, counted by hand on Llama 3 8B (dense, seq 4096,
 * mbs 1, tp 2 with sp) and DeepSeek-V3 (MLA, the routed experts): layernorm
 * drops the QKV and MLP GEMM inputs (2 x 2 sbh / tp), mlp the MLP's input
 * and intermediates ((4 + 2) s f / tp + 2 sbh / tp), mla_up_proj the
 * decompressed Q, K (2 x 2 s n qk) and V (2 s n v) per tp rank, moe_act
 * the experts' down-GEMM input (2 T_e f), moe all the routed experts'. */
Test(moe, recompute_modules_memory_by_hand)
{
    struct pred_ctx d = moe_ctx("llama3-8b", 4096, 256);
    struct pred_ctx c = moe_ctx("deepseek-v3", 4096, 1024);
    struct plan p = make_plan(2, 1, 32, 1);
    double s = 4096, h = 4096, f = 14336, base, te, imb;
    p.sp = true;
    p.recompute = PLAN_RECOMPUTE_SELECTIVE;
    base = pred_act_layer_bytes(&d.model, &d.job, &p);
    d.job.recompute_modules |= JOB_RC_BIT(JOB_RC_LAYERNORM);
    assert_rel(base - pred_act_layer_bytes(&d.model, &d.job, &p),
               2 * 2 * s * h / 2, 1e-12);
    d.job.recompute_modules = JOB_RC_BIT(JOB_RC_CORE_ATTN) | JOB_RC_BIT(JOB_RC_MLP);
    assert_rel(base - pred_act_layer_bytes(&d.model, &d.job, &p),
               (4 + 2) * s * f / 2 + 2 * s * h / 2, 1e-12);
    /* moe_act and mla_up_proj on DeepSeek-V3 (128 heads over tp 2) */
    p = make_plan(2, 1, 512, 1);
    p.sp = true;
    p.ep = 64;
    p.recompute = PLAN_RECOMPUTE_SELECTIVE;
    base = pred_act_layer_bytes(&c.model, &c.job, &p);
    c.job.recompute_modules |= JOB_RC_BIT(JOB_RC_MLA_UP_PROJ);
    assert_rel(base - pred_act_layer_bytes(&c.model, &c.job, &p),
               (2.0 * 2 * s * 64 * (128 + 64) + 2.0 * s * 64 * 128) / 1.0, 1e-12);
    imb = pred_moe_imbalance(&c, &p, 6.0);
    te = pred_moe_expert_tokens(&c, &p) * imb;
    base = pred_moe_act_bytes(&c, &p);
    c.job.recompute_modules = JOB_RC_BIT(JOB_RC_MOE_ACT);
    assert_rel(base - pred_moe_act_bytes(&c, &p), 2.0 * te * 2048, 1e-12);
    c.job.recompute_modules = JOB_RC_BIT(JOB_RC_MOE);
    cr_assert_eq(pred_moe_act_bytes(&c, &p), 0);
    p.recompute = PLAN_RECOMPUTE_NONE;  /* modules only under selective */
    cr_assert_eq(pred_moe_act_bytes(&c, &p), base);
}

/* What each module costs: its forward again before its backward. */
Test(moe, recompute_modules_time)
{
    struct pred_ctx c = moe_ctx("deepseek-v3", 4096, 1024);
    struct plan p = make_plan(2, 1, 512, 1);
    struct pred_layer l;
    p.sp = true;
    p.ep = 64;
    p.recompute = PLAN_RECOMPUTE_SELECTIVE;
    c.job.recompute_modules = JOB_RC_BIT(JOB_RC_MOE_ACT) |
                              JOB_RC_BIT(JOB_RC_MLA_UP_PROJ);
    pred_layer_time_kind(&c, &p, true, &l);
    cr_assert_gt(l.mla_up_s, 0);
    cr_assert_lt(l.mla_up_s, l.fwd_s[PRED_OP_QKV]);
    assert_rel(l.recompute_s, l.fwd_s[PRED_OP_EXPERT_ACT] + l.mla_up_s +
               l.fwd_s[PRED_OP_ROPE], 1e-12);
    c.job.recompute_modules = JOB_RC_BIT(JOB_RC_MOE);
    pred_layer_time_kind(&c, &p, true, &l);
    assert_rel(l.recompute_s, l.fwd_s[PRED_OP_ROUTER] + l.fwd_s[PRED_OP_PERMUTE] +
               l.fwd_s[PRED_OP_DISPATCH] + l.fwd_s[PRED_OP_EXPERT_UP] +
               l.fwd_s[PRED_OP_EXPERT_ACT] + l.fwd_s[PRED_OP_EXPERT_DOWN] +
               l.fwd_s[PRED_OP_COMBINE] + l.fwd_s[PRED_OP_FC1] +
               l.fwd_s[PRED_OP_ACT] + l.fwd_s[PRED_OP_FC2], 1e-12);
    pred_layer_time_kind(&c, &p, false, &l);     /* a dense layer: nothing */
    cr_assert_eq(l.recompute_s, 0);
}
