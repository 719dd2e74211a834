/* tests/unit/test_stages.c: the stacks' layer-split rules (spaces/stages.c)
 * against the layouts the frameworks and published runs state, and the
 * predictor's slowest and worst stage under them. */
#include "helpers.h"

#include <string.h>

static struct stage_layout lay(enum stage_split r, int64_t layers, int pp,
                               int vpp, int first, int last)
{
    struct stage_layout s;
    cr_assert_eq(stage_layout(r, layers, pp, vpp, first, last, &s), 0,
                 "%s %lld / %d x %d", stage_split_name(r), (long long)layers,
                 pp, vpp);
    return s;
}

static void assert_ranks(const struct stage_layout *s, int first, int mid,
                         int last)
{
    cr_assert_eq(stage_rank_layers(s, 0), first);
    cr_assert_eq(stage_rank_layers(s, 1), mid);
    cr_assert_eq(stage_rank_layers(s, s->pp - 1), last);
}

/* Meta, Llama 3 (arXiv:2407.21783 sec. 3.3.2): 126 layers on PP16, one
 * layer fewer on the first and the last stage: 7 + 14 x 8 + 7. Megatron
 * chooses the embedding and the loss as slots (128 / 16); the same counts
 * asked explicitly are --decoder-first/last-pipeline-num-layers 7. */
Test(stages, megatron_llama3_405b_pp16)
{
    struct stage_layout s = lay(STAGE_SPLIT_MEGATRON, 126, 16, 1, 0, 0);
    assert_ranks(&s, 7, 8, 7);
    cr_assert(s.embed_slot && s.loss_slot && !s.even);
    s = lay(STAGE_SPLIT_MEGATRON, 126, 16, 1, 7, 7);
    assert_ranks(&s, 7, 8, 7);
    cr_assert_eq(stage_layout(STAGE_SPLIT_MEGATRON, 126, 16, 1, 6, 6, &s), -1,
                 "114 layers do not divide over 14 middle stages");
    cr_assert_eq(stage_layout(STAGE_SPLIT_EVEN, 126, 16, 1, 0, 0, &s), -1);
}

/* NeMo's llama31_405b recipe: PP8 VP8 with both account_for_* flags: 128
 * slots, 16 per rank, chunks of 2, the first and last chunk one layer. */
Test(stages, megatron_nemo_405b_pp8_vp8)
{
    struct stage_layout s = lay(STAGE_SPLIT_MEGATRON, 126, 8, 8, 0, 0);
    assert_ranks(&s, 15, 16, 15);
    cr_assert_eq(stage_rank_chunk(&s, 0), 2);
    cr_assert_eq(stage_rank_chunk(&s, 3), 2);
    cr_assert(s.embed_slot && s.loss_slot);
}

/* A model chunk of one slot: Megatron-Core builds no transformer layer in
 * the first chunk beside the embedding nor in the last beside the loss
 * (transformer_block.py get_num_layers_to_build: "num_layers_to_build >=
 * 0"). 126 + 2 slots over pp 16 x vpp 8: 8 a rank, one a chunk, so rank
 * 0's chunk 0 is the embedding alone and rank 15's chunk 7 the loss. */
Test(stages, megatron_slot_chunks_may_hold_no_layer)
{
    struct stage_layout s = lay(STAGE_SPLIT_MEGATRON, 126, 16, 8, 0, 0);
    assert_ranks(&s, 7, 8, 7);
    cr_assert(s.embed_slot && s.loss_slot && !s.layout);
    cr_assert_eq(stage_chunk_layers(&s, 0, 0), 0);
    cr_assert_eq(stage_chunk_layers(&s, 0, 1), 1);
    cr_assert_eq(stage_chunk_layers(&s, 15, 7), 0);
    cr_assert_eq(stage_chunk_layers(&s, 15, 6), 1);
    cr_assert_eq(stage_rank_chunk(&s, 0), 1);
    /* PP8 VP8 (NeMo): the end chunks hold one layer, the others two */
    s = lay(STAGE_SPLIT_MEGATRON, 126, 8, 8, 0, 0);
    cr_assert_eq(stage_chunk_layers(&s, 0, 0), 1);
    cr_assert_eq(stage_chunk_layers(&s, 0, 7), 2);
    cr_assert_eq(stage_chunk_layers(&s, 7, 7), 1);
    cr_assert_eq(stage_chunk_layers(&s, 7, 0), 2);
    /* the layout string names the same chunks: 'E' alone, then 't' */
    char buf[512];
    s = lay(STAGE_SPLIT_MEGATRON, 126, 16, 8, 0, 0);
    stage_layout_string(&s, 0, buf, sizeof buf);
    cr_assert(!strncmp(buf, "E|t|t|", 6), "%s", buf);
    cr_assert(strstr(buf, "|t|L") && !strstr(buf, "||"), "%s", buf);
}

/* No slot form fits 126 over 10: explicit ends, ceil(126 / 10) = 13 on
 * the 8 middle ranks, 22 halved over the ends; 126 over 100 stages has
 * no Megatron layout (middle ranks must be equal). */
Test(stages, megatron_explicit_ends_and_refusals)
{
    struct stage_layout s = lay(STAGE_SPLIT_MEGATRON, 126, 10, 1, 0, 0);
    assert_ranks(&s, 11, 13, 11);
    cr_assert(!s.embed_slot && !s.loss_slot && !s.even);
    cr_assert_eq(stage_layout(STAGE_SPLIT_MEGATRON, 126, 100, 1, 0, 0, &s), -1);
    cr_assert_eq(stage_layout(STAGE_SPLIT_MEGATRON, 80, 81, 1, 0, 0, &s), -1);
    s = lay(STAGE_SPLIT_MEGATRON, 80, 4, 1, 0, 0);
    assert_ranks(&s, 20, 20, 20);
    cr_assert(s.even);
}

/* Megatron-LM's DeepSeek-V3 recipes (examples/moe_recipes/deepseek_v3/
 * b200, gb200: --pipeline-model-parallel-layout "Et*4|(tttt|)*14tmL"): 61
 * layers over pp 8 x vpp 2 divide by neither, so a layout: 8 on the
 * middle ranks, the 13 left halved over the ends (7, 6), each rank's
 * chunks one layer apart; the string names every virtual stage in order
 * (stage v on rank v % pp), the embedding first, MTP and loss last. */
Test(stages, megatron_layout_deepseek_v3)
{
    struct stage_layout s = lay(STAGE_SPLIT_MEGATRON, 61, 8, 2, 0, 0);
    char buf[256];
    assert_ranks(&s, 7, 8, 6);
    cr_assert(s.layout && !s.even && !s.embed_slot && !s.loss_slot);
    cr_assert_eq(stage_chunk_layers(&s, 0, 0), 4);
    cr_assert_eq(stage_chunk_layers(&s, 0, 1), 3);
    cr_assert_eq(stage_rank_chunk(&s, 7), 3);
    cr_assert_eq(stage_layout_string(&s, 1, buf, sizeof buf), (int)strlen(buf));
    cr_assert_str_eq(buf, "Et*4|t*4|t*4|t*4|t*4|t*4|t*4|t*3|"
                          "t*3|t*4|t*4|t*4|t*4|t*4|t*4|t*3mL");
    /* pp 4 x vpp 4: 16 a middle rank, 29 over the ends (15, 14) */
    s = lay(STAGE_SPLIT_MEGATRON, 61, 4, 4, 0, 0);
    assert_ranks(&s, 15, 16, 14);
    cr_assert(s.layout);
    /* asked-for counts vpp does not divide are a layout too; counts that
     * leave a chunk empty are not */
    s = lay(STAGE_SPLIT_MEGATRON, 61, 8, 2, 5, 8);
    assert_ranks(&s, 5, 8, 8);
    cr_assert(s.layout);
    cr_assert_eq(stage_layout(STAGE_SPLIT_MEGATRON, 61, 8, 2, 1, 4, &s), -1);
    /* divisible counts stay the flags they were */
    s = lay(STAGE_SPLIT_MEGATRON, 126, 16, 1, 7, 7);
    cr_assert(!s.layout);
}

/* RUNS.md torchtitan_2412 (generate_split_points, 126 layers): 1F1B on 8
 * stages [15, 16 x 6, 15]; interleaved, 16 stages [7, 8 x 14, 7], so rank
 * 0 holds stages 0 and 8: 7 + 8. */
Test(stages, torchtitan_405b)
{
    struct stage_layout s = lay(STAGE_SPLIT_TORCHTITAN, 126, 8, 1, 0, 0);
    assert_ranks(&s, 15, 16, 15);
    for (int r = 1; r < 7; r++)
        cr_assert_eq(stage_rank_layers(&s, r), 16);
    s = lay(STAGE_SPLIT_TORCHTITAN, 126, 8, 2, 0, 0);
    assert_ranks(&s, 15, 16, 15);
    cr_assert_eq(stage_rank_chunk(&s, 1), 8);
    /* 32 layers, 4 stages: 34 slots, 9 9 8 8: [8, 9, 8, 7] */
    s = lay(STAGE_SPLIT_TORCHTITAN, 32, 4, 1, 0, 0);
    assert_ranks(&s, 8, 9, 7);
    cr_assert_eq(stage_rank_layers(&s, 2), 8);
    cr_assert_eq(stage_layout(STAGE_SPLIT_TORCHTITAN, 32, 4, 1, 9, 0, &s), -1,
                 "torchtitan takes only its own split");
}

/* BLOOM (bigscience tr11-176B-ml): 70 layers + 2 embeddings = 12 x 6, so
 * 5 layers on the end stages; the prequel's 78 layers: 80 slots, bottleneck
 * 7 filled from the front: 11 stages of 7 slots, the last 3 (2 layers and
 * the tied head); 100 over 6: 102 slots, 17 each. */
Test(stages, deepspeed_bloom)
{
    struct stage_layout s = lay(STAGE_SPLIT_DEEPSPEED_ENDS, 70, 12, 1, 0, 0);
    assert_ranks(&s, 5, 6, 5);
    s = lay(STAGE_SPLIT_DEEPSPEED_ENDS, 78, 12, 1, 0, 0);
    assert_ranks(&s, 6, 7, 2);
    s = lay(STAGE_SPLIT_DEEPSPEED_ENDS, 100, 6, 1, 0, 0);
    assert_ranks(&s, 16, 17, 16);
    /* type:transformer alone: 78 over 12 is 7 x 11 + 1 */
    s = lay(STAGE_SPLIT_DEEPSPEED, 78, 12, 1, 0, 0);
    assert_ranks(&s, 7, 7, 1);
    s = lay(STAGE_SPLIT_DEEPSPEED, 96, 12, 1, 0, 0);
    cr_assert(s.even);
}

/* Every layout a rule accepts places every layer once, and none on a
 * negative count; the worst ranks hold the most layers. */
Test(stages, every_layout_holds_every_layer_once)
{
    int n = 0;
    for (int rule = 0; rule < STAGE_SPLIT_COUNT; rule++)
        for (int64_t L = 1; L <= 130; L += 3)
            for (int pp = 1; pp <= L; pp++)
                for (int vpp = 1; vpp <= 4; vpp++) {
                    struct stage_layout s;
                    int64_t sum = 0;
                    int32_t most = 0;
                    if (stage_layout((enum stage_split)rule, L, pp, vpp, 0, 0, &s))
                        continue;
                    for (int r = 0; r < pp; r++) {
                        int32_t k = stage_rank_layers(&s, r), in_chunks = 0;
                        cr_assert_geq(k, 0);
                        sum += k;
                        most = k > most ? k : most;
                        for (int c = 0; c < vpp && s.layout; c++) {
                            cr_assert_geq(stage_chunk_layers(&s, r, c), 1);
                            in_chunks += stage_chunk_layers(&s, r, c);
                        }
                        cr_assert(!s.layout || in_chunks == k);
                    }
                    cr_assert_eq(sum, L, "%s %lld / %d x %d", stage_split_name(
                                 (enum stage_split)rule), (long long)L, pp, vpp);
                    cr_assert_eq(stage_max_layers(&s), most);
                    n++;
                }
    cr_assert_gt(n, 1000);
}

/* The slowest stage paces 1F1B: torchtitan's 126 layers on PP8 put 16 on
 * the middle ranks and 15 beside the embedding and the head, so a middle
 * rank is slowest; memory is worst on rank 1 too (16 layers, pp - 1 in
 * flight) rather than on the first stage. */
Test(stages, slowest_and_worst_stage_follow_the_layout)
{
    struct model m = load_model("llama3-405b");
    struct hw_system h = load_system("dgx-h100");
    struct job j = make_job(8192, 512);
    struct plan p = make_plan(8, 8, 8, 1);
    struct pred_ctx c;
    struct pred_result r;
    p.sp = 1;
    p.recompute = PLAN_RECOMPUTE_FULL;
    pred_ctx_init(&c, &m, &h, &j, false);
    c.limits.split = STAGE_SPLIT_TORCHTITAN;
    pred_plan(&c, &p, &r);
    cr_assert_eq(r.rule, PLAN_OK);
    assert_rel(r.stage_fwd_s, 16 * r.layer.fwd_total_s, 1e-12);
    cr_assert_eq(r.mem.worst_stage, 1);
    c.limits.split = STAGE_SPLIT_MEGATRON;          /* 128 / 8: 15, 16, 15 too */
    pred_plan(&c, &p, &r);
    assert_rel(r.stage_fwd_s, 16 * r.layer.fwd_total_s, 1e-12);
}

/* The key shows the layout the rule chose, and only an uneven one. */
Test(stages, key_shows_the_chosen_layout)
{
    struct model m = load_model("llama3-405b");
    struct plan p = make_plan(8, 16, 128, 1);
    struct plan_limits lim = { .tp_domain = 8, PLAN_ANY_STACK };
    char key[96];
    p.sp = 1;
    plan_stages_resolve(&p, &m, &lim);
    plan_key(&p, key, sizeof key);
    cr_assert_str_eq(key, "tp8.pp16.dp128.mb1.pf7.pl7.sp");
    p = make_plan(8, 2, 128, 1);                    /* 126 = 2 x 63 */
    plan_stages_resolve(&p, &m, &lim);
    plan_key(&p, key, sizeof key);
    cr_assert_str_eq(key, "tp8.pp2.dp128.mb1");
    p.pp_first = p.pp_last = 63;                    /* asked, but equal */
    plan_stages_resolve(&p, &m, &lim);
    plan_key(&p, key, sizeof key);
    cr_assert_str_eq(key, "tp8.pp2.dp128.mb1");
    lim.split = STAGE_SPLIT_EVEN;                   /* refused: left alone */
    p = make_plan(8, 16, 128, 1);
    plan_stages_resolve(&p, &m, &lim);
    cr_assert_eq(p.pp_first, 0);
    cr_assert_eq(plan_check(&p, &m, &(struct job){ .seq = 8192, .gbs = 2048 },
                            &lim), PLAN_RULE_LAYERS_PP);
}
