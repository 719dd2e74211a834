/* tests/unit/test_predict.c: properties of composed predictions on random
 * plans drawn with PCG (fixed seed), and the pipeline bubble. */
#include "helpers.h"

#include "common/rng.h"

static const char *const models[] = { "gpt3-175b", "llama3-70b", "llama3-8b",
                                      "gpt3-22b", "bloom-176b", "llama2-13b" };
static const char *const systems[] = { "dgx-h100", "dgx-a100", "vtrain-a100",
                                       "dgx-b200", "gb200-nvl72", "mi300x" };

static int pick(struct tpl_rng *r, const int *v, int n)
{
    return v[tpl_rng_below(r, (uint32_t)n)];
}

/* A random plan of a random job; not necessarily valid or fitting. */
static void draw(struct tpl_rng *r, struct pred_ctx *c, struct plan *p)
{
    static const int deg[] = { 1, 2, 4, 8 }, pps[] = { 1, 2, 4, 8, 16 };
    static const int seqs[] = { 2048, 4096, 8192 };
    struct model m = load_model(models[tpl_rng_below(r, 6)]);
    struct hw_system h = load_system(systems[tpl_rng_below(r, 6)]);
    struct job j = make_job(pick(r, seqs, 3), 256 << tpl_rng_below(r, 3));
    j.attention = tpl_rng_below(r, 2) ? JOB_ATTN_FLASH : JOB_ATTN_UNFUSED;
    j.precision = (enum job_precision)tpl_rng_below(r, 3);
    pred_ctx_init(c, &m, &h, &j, false);
    *p = make_plan(pick(r, deg, 4), pick(r, pps, 5), pick(r, deg, 4) * 4,
                   pick(r, deg, 4));
    p->vpp = p->pp > 1 && tpl_rng_below(r, 2) ? 2 : 1;
    p->sp = p->tp > 1 && tpl_rng_below(r, 2);
    p->recompute = (enum plan_recompute)tpl_rng_below(r, 3);
    p->zero = (int)tpl_rng_below(r, 2);
}

Test(predict, random_plans_finite_and_consistent)
{
    struct tpl_rng r;
    tpl_rng_seed(&r, 2026, 1);
    for (int i = 0; i < 300; i++) {
        struct pred_ctx c;
        struct plan p;
        struct pred_result o;
        struct pred_memo memo;
        draw(&r, &c, &p);
        pred_plan(&c, &p, &o);
        cr_assert(isfinite(o.iteration_s) && o.iteration_s > 0, "plan %d", i);
        cr_assert(isfinite(o.mfu) && o.mfu > 0 && o.mfu < 1, "mfu %g", o.mfu);
        cr_assert(o.hfu >= o.mfu);
        cr_assert(isfinite(o.mem.total_bytes) && o.mem.total_bytes > 0);
        for (int k = 0; k < PRED_PART_COUNT; k++) {
            cr_assert(isfinite(o.part_s[k]) && o.part_s[k] >= 0);
        }
        /* the search prunes on this bound: it must never exceed the time
         * (else pruning would drop the best plan), and the pipeline alone
         * runs m micro-batches through the slowest stage */
        pred_memo_build(&c, &p, &memo);
        cr_assert_leq(pred_time_bound(&c, &p, &memo), o.iteration_s * (1 + 1e-12));
        cr_assert_geq(o.iteration_s * (1 + 1e-12),
                      (double)o.microbatches * (o.stage_fwd_s + o.stage_bwd_s));
        for (int k = 0; k < PRED_OP_COUNT; k++)
            cr_assert(o.layer.fwd_s[k] >= 0 && o.layer.bwd_s[k] >= 0);
    }
}

/* More recompute never lowers time and never raises memory; sequence
 * parallelism never raises activation memory; more tp never adds weight
 * memory per GPU. */
Test(predict, recompute_sp_and_tp_monotone)
{
    struct tpl_rng r;
    tpl_rng_seed(&r, 7, 2);
    for (int i = 0; i < 300; i++) {
        struct pred_ctx c;
        struct plan p, q;
        struct pred_result a, b;
        draw(&r, &c, &p);
        for (int recompute = 0; recompute + 1 < PLAN_RECOMPUTE_COUNT; recompute++) {
            p.recompute = (enum plan_recompute)recompute;
            q = p;
            q.recompute = (enum plan_recompute)(recompute + 1);
            pred_plan(&c, &p, &a);
            pred_plan(&c, &q, &b);
            /* strictly: a recomputed pass is never free */
            cr_assert_gt(b.iteration_s, a.iteration_s, "recompute %d", recompute + 1);
            cr_assert_gt(b.part_s[PRED_PART_RECOMPUTE], a.part_s[PRED_PART_RECOMPUTE]);
            cr_assert_leq(b.mem.total_bytes, a.mem.total_bytes);
            cr_assert_leq(b.mem.activations_bytes, a.mem.activations_bytes);
        }
        if (p.tp > 1) {
            q = p;
            p.sp = false;
            q.sp = true;
            cr_assert_leq(pred_act_layer_bytes(&c.model, &c.job, &q),
                          pred_act_layer_bytes(&c.model, &c.job, &p));
            pred_memory(&c, &p, &a.mem);
            pred_memory(&c, &q, &b.mem);
            cr_assert_leq(b.mem.activations_bytes, a.mem.activations_bytes);
        }
        q = p;
        q.tp = p.tp * 2;
        pred_memory(&c, &p, &a.mem);
        pred_memory(&c, &q, &b.mem);
        cr_assert_leq(b.mem.weights_bytes, a.mem.weights_bytes);
    }
}

/* 1F1B: over equal stages the bubble is (pp - 1)/(m + pp - 1) of the
 * pipeline's time (Narayanan et al. SC21 sec. 2.2.1); GPT-3 175B on pp 8
 * has 12 layers a stage, the LM head and loss on the last, which paces:
 * the bubble is the other seven stages' time (pred_pipeline_span), more
 * than seven middle stages' (12 layers each) and less than seven of the
 * last's; interleaving divides it by vpp. */
Test(predict, bubble_fraction)
{
    struct model m = load_model("gpt3-175b");
    struct hw_system h = load_system("selene-a100");
    struct job j = make_job(2048, 1536);
    struct pred_ctx c;
    struct pred_result o, v;
    struct plan p = make_plan(8, 8, 12, 1);
    double pipe, mid, mb = 1536 / 12;
    pred_ctx_init(&c, &m, &h, &j, false);
    pred_plan(&c, &p, &o);
    pipe = o.part_s[PRED_PART_COMPUTE] + o.part_s[PRED_PART_RECOMPUTE] +
           o.part_s[PRED_PART_TP_COMM] + o.part_s[PRED_PART_PP_BUBBLE];
    mid = 12 * (o.layer.fwd_total_s + o.layer.bwd_total_s + o.layer.recompute_s);
    cr_assert_gt(o.part_s[PRED_PART_PP_BUBBLE], 7 * mid);
    cr_assert_lt(o.part_s[PRED_PART_PP_BUBBLE], 7 * (o.stage_fwd_s + o.stage_bwd_s));
    cr_assert_lt(o.part_s[PRED_PART_PP_BUBBLE] / pipe, 7.0 / (mb + 7));
    assert_rel(pipe - o.part_s[PRED_PART_PP_BUBBLE],
               mb * (o.stage_fwd_s + o.stage_bwd_s), 1e-12);
    p.vpp = 2;
    pred_plan(&c, &p, &v);
    cr_assert_eq(v.rule, PLAN_OK);
    cr_assert_lt(v.part_s[PRED_PART_PP_BUBBLE], o.part_s[PRED_PART_PP_BUBBLE]);
    cr_assert_gt(v.part_s[PRED_PART_PP_P2P], o.part_s[PRED_PART_PP_P2P]);
}

/* Without tensor, pipeline and data parallelism there is no communication. */
Test(predict, single_gpu_has_no_communication)
{
    struct model m = load_model("llama3-8b");
    struct hw_system h = load_system("dgx-h200");
    struct job j = make_job(4096, 8);
    struct pred_ctx c;
    struct pred_result o;
    struct plan p = make_plan(1, 1, 1, 1);
    pred_ctx_init(&c, &m, &h, &j, false);
    pred_plan(&c, &p, &o);
    cr_assert_eq(o.part_s[PRED_PART_TP_COMM], 0);
    cr_assert_eq(o.part_s[PRED_PART_PP_BUBBLE], 0);
    cr_assert_eq(o.part_s[PRED_PART_PP_P2P], 0);
    cr_assert_eq(o.part_s[PRED_PART_DP_EXPOSED], 0);
    cr_assert_eq(o.layer.fwd_s[PRED_OP_TP_COMM], 0);
    cr_assert_eq(o.microbatches, 8);
}

/* An infeasible plan still gets numbers, and says why. */
Test(predict, infeasible_plans_keep_numbers)
{
    struct model m = load_model("llama3-405b");
    struct hw_system h = load_system("dgx-h100");
    struct job j = make_job(8192, 512);
    struct pred_ctx c;
    struct pred_result o;
    struct plan p = make_plan(8, 1, 1, 1);
    pred_ctx_init(&c, &m, &h, &j, false);
    pred_plan(&c, &p, &o);
    cr_assert_eq(o.rule, PLAN_OK);
    cr_assert(!o.mem.fits);
    cr_assert_gt(o.iteration_s, 0);
    p.tp = 3;
    pred_plan(&c, &p, &o);
    cr_assert_eq(o.rule, PLAN_RULE_HEADS_TP);
    cr_assert_gt(o.iteration_s, 0);
}

/* Legal but absurd inputs (the loaders' limits: layers 2^14, hidden 2^17,
 * vocab 2^22, ffn 2^20, seq 2^20, gbs 2^24, GPUs 2^20) give finite,
 * positive numbers: no overflow, NaN or infinity reaches a report. */
Test(predict, extreme_scenarios_stay_finite)
{
    struct tpl_rng r;
    struct hw_system h = load_system("gb200-nvl72");
    tpl_rng_seed(&r, 20, 6);
    for (int i = 0; i < 2000; i++) {
        struct model m = load_model("gpt3-175b");
        struct job j = make_job(1LL << tpl_rng_below(&r, 21),
                                1LL << tpl_rng_below(&r, 25));
        struct pred_ctx c;
        struct pred_result o;
        struct plan p;
        int64_t heads = 1LL << tpl_rng_below(&r, 8);
        m.heads = heads;
        m.kv_heads = heads >> tpl_rng_below(&r, (uint32_t)(1 + tpl_rng_below(&r, 8)));
        if (m.kv_heads < 1)
            m.kv_heads = 1;
        m.hidden = heads << tpl_rng_below(&r, 10);
        m.layers = 1 + tpl_rng_below(&r, MODEL_MAX_LAYERS);
        m.vocab = 1 + tpl_rng_below(&r, MODEL_MAX_VOCAB);
        m.ffn_hidden = 1 + tpl_rng_below(&r, MODEL_MAX_FFN);
        m.glu = tpl_rng_below(&r, 2);
        m.dropout = tpl_rng_below(&r, 2);
        j.attention = (enum job_attention)tpl_rng_below(&r, 2);
        j.precision = (enum job_precision)tpl_rng_below(&r, 3);
        pred_ctx_init(&c, &m, &h, &j, tpl_rng_below(&r, 2));
        p = make_plan(1 << tpl_rng_below(&r, 8), 1 << tpl_rng_below(&r, 8),
                      1 << tpl_rng_below(&r, 5), 1 << tpl_rng_below(&r, 4));
        p.vpp = 1 + (int)tpl_rng_below(&r, 4);
        p.sp = tpl_rng_below(&r, 2);
        p.recompute = (enum plan_recompute)tpl_rng_below(&r, 3);
        p.zero = (int)tpl_rng_below(&r, 2);
        pred_plan(&c, &p, &o);
        cr_assert(isfinite(o.iteration_s) && o.iteration_s > 0, "case %d", i);
        cr_assert(isfinite(o.tokens_per_s) && isfinite(o.mfu) && isfinite(o.hfu));
        cr_assert(isfinite(o.mem.total_bytes) && o.mem.total_bytes > 0 &&
                  isfinite(o.mem.margin_bytes));
        for (int k = 0; k < PRED_PART_COUNT; k++)
            cr_assert(isfinite(o.part_s[k]) && o.part_s[k] >= 0);
        for (int k = 0; k < PRED_OP_COUNT; k++)
            cr_assert(isfinite(o.layer.fwd_s[k]) && isfinite(o.layer.bwd_s[k]));
    }
}
