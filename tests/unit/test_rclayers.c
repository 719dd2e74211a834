/* tests/unit/test_rclayers.c: Megatron's block recompute, the plan's
 * recompute_layers (--recompute-method block --recompute-num-layers N):
 * the layers a rank rebuilds, its activation memory and recompute time
 * against hand counts, the closed-form fit and the search's choice, the
 * key, the rules and the launch settings. Hand counts use Llama 3 8B
 * (h 4096, 32 heads, 8 kv heads of 128: kv 1024, SwiGLU f 14336, RMSNorm,
 * no dropout, flash attention) at seq 4096, micro-batch 1, tp 1, bf16:
 * a layer without recompute keeps (predictor/mem.c inventory, as in
 * test_memory.c flash_gqa_glu_hand_count) 8 sbh (two norm inputs, the QKV
 * and MLP GEMM inputs) + 4 sbh + 4 s b kv (Q, out, K, V) + 6 s b f (the
 * SwiGLU input and fc2's input) + 4 a s b (log-sum-exp); with full
 * recompute its input, 2 sbh. */
#include "helpers.h"

#include <stdio.h>

#include "exporttext.h"
#include "search/search.h"

#define S 4096.0
#define H 4096.0

static double a_none(void)
{
    return 12.0 * S * H + 4.0 * S * 1024 + 6.0 * S * 14336 + 4.0 * 32 * S;
}

static double a_full(void)
{
    return 2.0 * S * H;
}

/* llama3-8b on DGX H100, seq 4096, gbs 64: with tp 1, pp 4, dp 1 there
 * are 64 micro-batches of one sequence, 8 layers a stage. */
static struct pred_ctx ctx8b(void)
{
    return preset_ctx("llama3-8b", "dgx-h100", 4096, 64);
}

static struct plan block_plan(int vpp, int32_t n)
{
    struct plan p = make_plan(1, 4, 1, 1);
    p.vpp = vpp;
    p.recompute = PLAN_RECOMPUTE_FULL;
    p.rc_layers = n;
    return p;
}

/* ---- layers rebuilt ---- */

/* min(N, chunk) summed over a rank's chunks: 32 layers over pp 4, vpp 2
 * gives chunks of 4; 30 layers with 6 on each end stage under Megatron's
 * explicit counts give the two middle ranks 9, chunks of 5 and 4. */
Test(rclayers, first_layers_per_rank)
{
    struct stage_layout s;
    cr_assert_eq(stage_layout(STAGE_SPLIT_MEGATRON, 32, 4, 2, 0, 0, &s), 0);
    cr_assert_eq(stage_rank_first_layers(&s, 0, 3), 6);    /* 3 + 3 */
    cr_assert_eq(stage_rank_first_layers(&s, 0, 4), 8);    /* all */
    cr_assert_eq(stage_rank_first_layers(&s, 0, 9), 8);
    cr_assert_eq(stage_first_layers(&s, 1), 8);            /* 4 ranks x 2 */
    cr_assert_eq(stage_layout(STAGE_SPLIT_MEGATRON, 30, 4, 1, 6, 6, &s), 0);
    cr_assert_eq(stage_rank_layers(&s, 1), 9);
    s.vpp = 2;                          /* the same counts in two chunks */
    cr_assert_eq(stage_rank_first_layers(&s, 1, 4), 8);    /* 4 + 4 */
    cr_assert_eq(stage_rank_first_layers(&s, 1, 5), 9);    /* 5 + 4 */
    cr_assert_eq(stage_rank_first_layers(&s, 0, 2), 4);    /* 3 + 3 */
}

/* ---- memory ---- */

/* 1F1B, rank 0 of 4 holds 4 micro-batches of its 8 layers: with N = 3,
 * 4 (3 a_full + 5 a_none) and no rebuilt layer on top (the backward frees
 * a plain layer before it rebuilds a checkpointed one). Every layer (N 0,
 * or N >= 8): the worst stage is then the last (its fp32 logits), one
 * micro-batch of 8 layers, 8 a_full + one layer rebuilt, a_none. */
Test(rclayers, stage_memory_by_hand)
{
    struct pred_ctx c = ctx8b();
    struct plan p = block_plan(1, 3);
    struct pred_mem m, all;
    pred_memory(&c, &p, &m);
    cr_assert_eq(m.worst_stage, 0);
    assert_rel(m.activations_bytes, 4.0 * (3.0 * a_full() + 5.0 * a_none()),
               1e-12);
    p.rc_layers = 0;
    pred_memory(&c, &p, &all);
    cr_assert_eq(all.worst_stage, 3);
    assert_rel(all.activations_bytes, 8.0 * a_full() + a_none(), 1e-12);
    p.rc_layers = 8;
    pred_memory(&c, &p, &m);
    cr_assert_eq(m.total_bytes, all.total_bytes);
}

/* Interleaved, vpp 2: chunks of 4 layers, rank 0 holds 2(pp - 1) + (vpp -
 * 1) pp + 1 = 11 chunks (Megatron's warm-up), each with N = 3 of its 4
 * layers checkpointed: 11 (3 a_full + a_none). */
Test(rclayers, interleaved_memory_per_chunk)
{
    struct pred_ctx c = ctx8b();
    struct plan p = block_plan(2, 3);
    struct pred_mem m;
    pred_memory(&c, &p, &m);
    cr_assert_eq(m.worst_stage, 0);
    assert_rel(m.activations_bytes, 11.0 * (3.0 * a_full() + a_none()), 1e-12);
}

/* ---- time ---- */

/* tp 1: a layer's recompute is its whole forward (no tp collectives).
 * Every stage rebuilds N = 3 of its 8 layers for each of the 64
 * micro-batches: 64 x 3 forwards of recompute, where the uniform method
 * (every layer) pays 64 x 8; the block method saves 64 x 5. HFU counts
 * the 3/8 of the layers rebuilt. */
Test(rclayers, recompute_time_by_hand)
{
    struct pred_ctx c = ctx8b();
    struct plan p = block_plan(1, 3);
    struct pred_layer l;
    struct pred_result r, all;
    pred_layer_time(&c, &p, &l);
    pred_plan(&c, &p, &r);
    assert_rel(r.part_s[PRED_PART_RECOMPUTE], 64.0 * 3.0 * l.fwd_total_s, 1e-12);
    p.rc_layers = 0;
    pred_plan(&c, &p, &all);
    assert_rel(all.part_s[PRED_PART_RECOMPUTE], 64.0 * 8.0 * l.fwd_total_s, 1e-12);
    assert_rel(all.part_s[PRED_PART_RECOMPUTE] - r.part_s[PRED_PART_RECOMPUTE],
               64.0 * 5.0 * l.fwd_total_s, 1e-9);
    assert_rel(r.hw_flops - c.hw_flops[PLAN_RECOMPUTE_NONE],
               3.0 / 8.0 * (c.hw_flops[PLAN_RECOMPUTE_FULL] -
                            c.hw_flops[PLAN_RECOMPUTE_NONE]), 1e-12);
    cr_assert_lt(r.iteration_s, all.iteration_s);
    cr_assert_eq(pred_rc_share(&c, &p), 1.0);
    p.rc_layers = 3;
    assert_rel(pred_rc_share(&c, &p), 12.0 / 32.0, 1e-15);
}

/* The search's bound stays below the composed time with N > 0. */
Test(rclayers, time_bound_is_a_lower_bound)
{
    struct pred_ctx c = ctx8b();
    for (int vpp = 1; vpp <= 2; vpp++)
        for (int32_t n = 1; n <= 8; n++) {
            struct plan p = block_plan(vpp, n);
            struct pred_memo memo;
            struct pred_result r;
            pred_memo_build(&c, &p, &memo);
            pred_compose(&c, &p, &memo, &r);
            cr_assert_leq(pred_time_bound(&c, &p, &memo), r.iteration_s,
                          "vpp %d, N %d", vpp, (int)n);
        }
}

/* ---- the fit ---- */

/* Rank 0 (1F1B) saves 4 (a_none - a_full) per layer of N; with the budget
 * set 2.5 of those below its memory without recompute, the fewest that
 * fit is 3: the closed form says 3, N = 2 misses, N = 3 fits. Budget above
 * that memory: 0. */
Test(rclayers, fit_is_the_smallest_n)
{
    struct pred_ctx c = ctx8b();
    struct plan p = block_plan(1, 0), q = p;
    struct pred_mem none, m;
    double save = 4.0 * (a_none() - a_full());
    int32_t top;
    q.recompute = PLAN_RECOMPUTE_NONE;
    pred_memory(&c, &q, &none);
    c.headroom_bytes = none.margin_bytes + 2.5 * save;
    cr_assert_eq(pred_rc_layers_fit(&c, &p, &top, NULL), 3);
    cr_assert_eq(top, 8);
    p.rc_layers = 2;
    pred_memory(&c, &p, &m);
    cr_assert_not(m.fits);
    p.rc_layers = 3;
    pred_memory(&c, &p, &m);
    cr_assert(m.fits);
    c.headroom_bytes = none.margin_bytes;       /* exactly fits without */
    cr_assert_eq(pred_rc_layers_fit(&c, &p, &top, NULL), 0);
}

static void search_one(const struct pred_ctx *c, const struct space *s,
                       int64_t gpus, struct search_result *r)
{
    struct search_cfg cfg = { .ctx = c, .space = s, .gpus = &gpus,
                              .n_gpus = 1, .top_k = 1 };
    struct tpl_err err = { 0 };
    cr_assert_eq(search_run(&cfg, r, &err), 0, "%s", err.msg);
}

static void fix(struct space *s, enum plan_dim d, int32_t v)
{
    s->dim[d].n = 1;
    s->dim[d].v[0] = v;
}

/* The search gives the plan of the test above N = 3 (the smallest that
 * fits; more only costs recompute), key rc-full3; listed 2,5 it takes 5;
 * listed 0 only, or on a stack without block recompute, every layer. */
Test(rclayers, search_picks_the_smallest_fitting_n)
{
    static struct space s;
    struct pred_ctx c = ctx8b();
    struct plan q = block_plan(1, 0);
    struct search_result r;
    struct pred_mem none;
    char key[96];
    q.recompute = PLAN_RECOMPUTE_NONE;
    pred_memory(&c, &q, &none);
    c.headroom_bytes = none.margin_bytes + 2.5 * 4.0 * (a_none() - a_full());
    memset(&s, 0, sizeof s);
    fix(&s, PLAN_DIM_TP, 1);
    fix(&s, PLAN_DIM_PP, 4);
    fix(&s, PLAN_DIM_MBS, 1);
    fix(&s, PLAN_DIM_VPP, 1);
    fix(&s, PLAN_DIM_SP, 0);
    fix(&s, PLAN_DIM_TPO, 0);
    fix(&s, PLAN_DIM_ZERO, 0);
    fix(&s, PLAN_DIM_RECOMPUTE, PLAN_RECOMPUTE_FULL);
    search_one(&c, &s, 4, &r);
    cr_assert_eq(r.per_gpu[0].n_hits, 1);
    plan_key(&r.per_gpu[0].hits[0].plan, key, sizeof key);
    cr_assert_str_eq(key, "tp1.pp4.dp1.mb1.rc-full3.no-ov");
    search_result_release(&r);
    s.dim[PLAN_DIM_RC_LAYERS] = (struct space_list){ .n = 2, .v = { 2, 5 } };
    search_one(&c, &s, 4, &r);
    cr_assert_eq(r.per_gpu[0].hits[0].plan.rc_layers, 5);
    search_result_release(&r);
    fix(&s, PLAN_DIM_RC_LAYERS, 0);
    search_one(&c, &s, 4, &r);
    cr_assert_eq(r.per_gpu[0].hits[0].plan.rc_layers, 0);
    search_result_release(&r);
    s.dim[PLAN_DIM_RC_LAYERS].n = 0;            /* auto, no block: 0 */
    c.limits.stack_rc_block = false;
    search_one(&c, &s, 4, &r);
    cr_assert_eq(r.per_gpu[0].hits[0].plan.rc_layers, 0);
    search_result_release(&r);
}

/* ---- key, rules, export ---- */

Test(rclayers, key_joins_the_recompute_token)
{
    struct plan p = block_plan(1, 4);
    char key[96];
    plan_key(&p, key, sizeof key);
    cr_assert_str_eq(key, "tp1.pp4.dp1.mb1.rc-full4.no-ov");
    p.rc_layers = 0;
    plan_key(&p, key, sizeof key);
    cr_assert_str_eq(key, "tp1.pp4.dp1.mb1.rc-full.no-ov");
    p.rc_layers = 2;                    /* no recompute token to join */
    p.recompute = PLAN_RECOMPUTE_NONE;
    plan_key(&p, key, sizeof key);
    cr_assert_str_eq(key, "tp1.pp4.dp1.mb1.rc2.no-ov");
}

Test(rclayers, rules)
{
    struct pred_ctx c = ctx8b();
    struct plan p = block_plan(1, 4);
    char why[256];
    p.dp = 1;
    cr_assert_eq(plan_check(&p, &c.model, &c.job, &c.limits), PLAN_OK);
    p.recompute = PLAN_RECOMPUTE_SELECTIVE;
    cr_assert_eq(plan_check(&p, &c.model, &c.job, &c.limits),
                 PLAN_RULE_RC_LAYERS);
    p.recompute = PLAN_RECOMPUTE_FULL;
    c.limits.stack_rc_block = false;
    cr_assert_eq(plan_check(&p, &c.model, &c.job, &c.limits),
                 PLAN_RULE_STACK_RC_BLOCK);
    plan_rule_explain(PLAN_RULE_STACK_RC_BLOCK, &p, &c.model, &c.job,
                      &c.limits, why, sizeof why);
    cr_assert_str_eq(why, "stack-rc-block: the stack cannot recompute only "
                     "some layers of a stage (recompute_block false), "
                     "recompute_layers 4");
}

/* Megatron-LM: --recompute-method block --recompute-num-layers N; every
 * layer stays uniform with one layer a group (each layer's input kept,
 * one rebuilt at a time). NeMo / Megatron-Bridge: the same TransformerConfig
 * keys. torchtitan cannot say it. */
Test(rclayers, export_spellings)
{
    struct pred_ctx c = ctx8b();
    struct plan p = block_plan(1, 2);
    assert_has(export_text(RES_FW_MEGATRON, &c, &p),
               "--recompute-granularity full \\\n--recompute-method block \\\n"
               "--recompute-num-layers 2 \\\n");
    assert_has(export_text(RES_FW_NEMO, &c, &p),
               "  recompute_granularity: full\n  recompute_method: block\n"
               "  recompute_num_layers: 2\n");
    assert_has(refused(RES_FW_TORCHTITAN, &c, &p), "torchtitan cannot recompute only the first layers");
    p.rc_layers = 0;
    assert_has(export_text(RES_FW_MEGATRON, &c, &p),
               "--recompute-granularity full \\\n--recompute-method uniform \\\n"
               "--recompute-num-layers 1 \\\n");
    assert_has(export_text(RES_FW_NEMO, &c, &p),
               "  recompute_method: uniform\n  recompute_num_layers: 1\n");
}

/* Which presets have block recompute (each cites its source): Megatron's
 * three stacks, not torchtitan's every-k-th-block option nor AutoModel. */
Test(rclayers, stack_presets)
{
    static const struct { const char *name; bool block; } want[] = {
        { "megatron-core", true }, { "megatron-lm-2021", true },
        { "megatron-deepspeed", true }, { "torchtitan", false },
        { "nemo-automodel", false },
    };
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
        struct stack s;
        struct plan_limits lim = { 0 };
        struct tpl_err err = { 0 };
        cr_assert_eq(stack_load(&s, want[i].name, NULL, 0, &err), 0, "%s", err.msg);
        stack_limits(&s, &lim);
        cr_assert_eq(lim.stack_rc_block, want[i].block, "%s", want[i].name);
    }
}
