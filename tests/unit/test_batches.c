/* tests/unit/test_batches.c: results/batches.c (nearby batch sizes, the
 * per-batch context, batch warnings) and the pick over batches in
 * results/tradeoff.c, against hand-derived values. */
#include "helpers.h"

#include "predictor/flops.h"
#include "results/batches.h"
#include "results/tradeoff.h"

/* 200 GPUs at gbs 512 (Llama-3-70B): 200 = 25 x 8, and dp must divide the
 * batch (rule gbs-dp), so a 5 must go into dp, which 512 = 2^9 cannot
 * hold (search: no valid plan). Candidates are multiples of 25 x 2^j with a
 * step of at least 512/16 = 32: 50 gives 500 and 550, 100 gives 500 and
 * 600, 200 gives 400 and 600, 400 gives 400 and 800; by distance to 512:
 * 500 (12), 550 (38), 600 (88). Each has dp = 5 with tp 8 x pp 5 (80
 * layers, 16 a stage): 100, 110 and 120 sequences per rank. */
Test(batches, nearby_sizes_by_hand)
{
    struct model m = load_model("llama3-70b");
    struct hw_system h = load_system("dgx-h100");
    struct job j = make_job(8192, 512);
    struct pred_ctx c;
    struct space s = { 0 };
    struct tpl_err err = { 0 };
    int64_t near[3] = { 0 };
    pred_ctx_init(&c, &m, &h, &j, false);
    cr_assert_eq(res_batches_nearby(&c, &s, 200, near, 3, &err), 3, "%s", err.msg);
    cr_assert_eq(near[0], 500);
    cr_assert_eq(near[1], 550);
    cr_assert_eq(near[2], 600);
}

/* Model FLOPs per iteration are linear in the batch (Narayanan Eq. 3: 72 B
 * s l h^2 ...): twice the batch, twice the FLOPs; the rest of the context
 * is the same. */
Test(batches, ctx_with_gbs)
{
    struct model m = load_model("llama3-8b");
    struct hw_system h = load_system("dgx-h100");
    struct job j = make_job(4096, 256);
    struct pred_ctx c, d;
    pred_ctx_init(&c, &m, &h, &j, false);
    res_ctx_with_gbs(&c, 512, &d);
    cr_assert_eq(d.job.gbs, 512);
    assert_rel(d.model_flops, 2 * c.model_flops, 1e-12);
    assert_rel(d.hw_flops[PLAN_RECOMPUTE_FULL], 2 * c.hw_flops[PLAN_RECOMPUTE_FULL],
               1e-12);
    cr_assert_eq(d.peak_flops, c.peak_flops);
}

/* pp 4 with 2 micro-batches: bubble (pp-1)/(m+pp-1) = 3/5 > 1/2, warned;
 * 4 micro-batches: 3/7, not. One micro-batch: dp x mbs = gbs as well. */
Test(batches, warnings)
{
    struct plan p = make_plan(8, 4, 16, 1);
    struct pred_result r = { .microbatches = 2 };
    cr_assert_eq(res_batch_warnings(&p, &r), RES_WARN_FEW_MICROBATCHES);
    r.microbatches = 4;
    cr_assert_eq(res_batch_warnings(&p, &r), 0);
    r.microbatches = 1;
    cr_assert_eq(res_batch_warnings(&p, &r),
                 RES_WARN_FEW_MICROBATCHES | RES_WARN_DP_AT_BATCH);
    p.pp = 1;
    cr_assert_eq(res_batch_warnings(&p, &r), RES_WARN_DP_AT_BATCH);
}

/* Per count, the batch that trains in fewer days: 64 GPUs 10 days at gbs
 * 512 against 8 at 1024 (1024 taken), 128 GPUs no plan at 512 against 5
 * days (taken), 256 GPUs 3 days at both (the first, 512, kept). */
Test(batches, pick_per_count)
{
    struct tradeoff_row a[3] = { { 0 } }, b[3] = { { 0 } };
    struct tradeoff t = { .rows = a, .n = 3, .gbs_min = 512, .gbs_max = 512,
                          .knee_fraction = 0.5 };
    struct tradeoff u = { .rows = b, .n = 3, .gbs_min = 1024, .gbs_max = 1024 };
    static const double da[3] = { 10, 0, 3 }, db[3] = { 8, 5, 3 };
    for (int i = 0; i < 3; i++) {
        a[i] = (struct tradeoff_row){ .gpus = 64 << i, .gbs = 512,
                                      .feasible = i != 1, .days = da[i] };
        b[i] = (struct tradeoff_row){ .gpus = 64 << i, .gbs = 1024,
                                      .feasible = true, .days = db[i] };
        a[i].r.tokens_per_s = b[i].r.tokens_per_s = 1;
        a[i].g.fraction = b[i].g.fraction = 1;
    }
    res_tradeoff_pick(&t, &u);
    cr_assert_eq(a[0].gbs, 1024);
    cr_assert_eq(a[1].gbs, 1024);
    cr_assert(a[1].feasible);
    cr_assert_eq(a[2].gbs, 512);
    cr_assert_eq(t.gbs_min, 512);
    cr_assert_eq(t.gbs_max, 1024);
    cr_assert_eq(t.reference, 0);
}

/* The search over a batch list keeps, per count, the batch whose best plan
 * has the most tokens/s: 64 GPUs 100 (gbs 512) against 150 (1024): 1024;
 * 128 GPUs no plan at 512 against 300: 1024; 256 GPUs 500 against 400:
 * 512 kept. Stats add up. */
Test(batches, search_pick_per_count)
{
    static const double ta[3] = { 100, 0, 500 }, tb[3] = { 150, 300, 400 };
    struct pred_result ra[3], rb[3];
    struct search_gpu ga[3], gb[3];
    struct search_result a = { .n = 3, .per_gpu = ga }, b = { .n = 3, .per_gpu = gb };
    int64_t gbs_of[3] = { 512, 512, 512 };
    memset(ra, 0, sizeof ra);
    memset(rb, 0, sizeof rb);
    for (int i = 0; i < 3; i++) {
        ra[i].tokens_per_s = ta[i];
        rb[i].tokens_per_s = tb[i];
        ga[i] = (struct search_gpu){ .gpus = 64 << i, .n_hits = i != 1,
                                     .results = &ra[i] };
        gb[i] = (struct search_gpu){ .gpus = 64 << i, .n_hits = 1,
                                     .results = &rb[i] };
    }
    a.stats.enumerated = 7;
    b.stats.enumerated = 5;
    res_search_pick(&a, gbs_of, &b, 1024);
    cr_assert_eq(gbs_of[0], 1024);
    cr_assert_eq(gbs_of[1], 1024);
    cr_assert_eq(gbs_of[2], 512);
    cr_assert_eq(ga[1].results, &rb[1]);
    cr_assert_eq(ga[2].results, &ra[2]);
    cr_assert_eq(a.stats.enumerated, 12);
}
