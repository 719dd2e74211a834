/* tests/unit/test_search.c: the search against a brute-force reference, with
 * and without pruning, across thread counts, sampled; --gpus parsing. */
#include "helpers.h"

#include <omp.h>
#include <stdlib.h>
#include <string.h>

#include "common/rng.h"
#include "search/search.h"
#include "spaces/gpus.h"

struct ref_hit { struct plan p; double t; char key[96]; };

static int ref_cmp(const void *a, const void *b)
{
    const struct ref_hit *x = a, *y = b;
    if (x->t != y->t)
        return x->t < y->t ? -1 : 1;
    return strcmp(x->key, y->key);
}

/* The plan with the faster of overlap on and off (on first, kept on a
 * tie), as a search chooses it; 0 when neither is valid and fits. */
static int best_overlap(const struct pred_ctx *c, struct plan *p,
                        struct ref_hit *out)
{
    int found = 0;
    for (int ov = 1; ov >= 0; ov--) {
        struct pred_result r;
        p->overlap = ov;
        pred_plan(c, p, &r);
        if (r.rule != PLAN_OK || !r.mem.fits ||
            (found && r.iteration_s >= out->t))
            continue;
        out->p = *p;
        out->t = r.iteration_s;
        plan_key(p, out->key, sizeof out->key);
        found = 1;
    }
    return found;
}

/* The most layers one model chunk of any pipeline rank holds: a block
 * recompute of that many layers per chunk rebuilds every layer. */
static int32_t chunk_max(const struct pred_ctx *c, const struct plan *p)
{
    struct stage_layout s;
    int32_t top = 0;
    pred_layout(c, p, &s);
    for (int64_t r = 0; r < p->pp; r++)
        top = stage_rank_chunk(&s, r) > top ? stage_rank_chunk(&s, r) : top;
    return top;
}

/* recompute_layers as a search gives it (search.c fit_layers), found by
 * walking every N: with full recompute, the smallest N > 0 below the
 * chunk's layers whose memory fits, unless the plan fits without
 * recompute; else 0 (every layer). Then the faster overlap. */
static int best_layers(const struct pred_ctx *c, struct plan *p,
                       struct ref_hit *out)
{
    struct plan q = *p;
    struct pred_mem mem;
    p->rc_layers = 0;
    q.recompute = PLAN_RECOMPUTE_NONE;
    pred_memory(c, &q, &mem);
    if (p->recompute == PLAN_RECOMPUTE_FULL && !mem.fits)
        for (int32_t n = 1, top = chunk_max(c, p); n < top; n++) {
            p->rc_layers = n;
            pred_memory(c, p, &mem);
            if (mem.fits)
                return best_overlap(c, p, out);
        }
    p->rc_layers = 0;
    return best_overlap(c, p, out);
}

/* offload as a search gives it (search.c plan_memory, offload_twin): the
 * faster of the plan without it and with it, each with its own
 * recompute_layers (a tie keeps it off), where the plan breaks no rule and
 * may offload. */
static int best_offload(const struct pred_ctx *c, struct plan *p,
                        struct ref_hit *out)
{
    struct plan q = *p;
    struct ref_hit on;
    int off;
    p->offload = 0;
    off = best_layers(c, p, out);
    q.overlap = 0;                      /* no rule refuses overlap off */
    if (plan_check(&q, &c->model, &c->job, &c->limits) != PLAN_OK ||
        plan_check_offload(&q, &c->limits) != PLAN_OK)
        return off;
    q.offload = 1;
    if (!best_layers(c, &q, &on) || (off && out->t <= on.t))
        return off;
    *out = on;
    return 1;
}

/* Every inner combination of one (tp, cp, pp) block, predicted one by one
 * with the stack's stage layout; the feasible ones appended to out. */
static int brute_block(const struct pred_ctx *c, int64_t gpus, int tp, int cp,
                       int pp, struct ref_hit *out, int n, int cap)
{
    for (int mbs = 1; mbs <= 8; mbs++)
        for (int vpp = 1; vpp <= 8; vpp++)
            for (int sw = 0; sw < 4; sw++)          /* sp, tpo */
                for (int rz = 0; rz < 12; rz++) {   /* recompute, zero 0-3 */
                    struct plan p = make_plan(tp, pp,
                                              (int)(gpus / (tp * cp * pp)), mbs);
                    p.cp = cp;
                    p.vpp = vpp;
                    p.sp = sw & 1;
                    p.tpo = sw >> 1;
                    p.recompute = rz >> 2;
                    p.zero = rz & 3;
                    plan_stages_resolve(&p, &c->model, &c->limits);
                    cr_assert_lt(n, cap);
                    n += best_offload(c, &p, &out[n]);
                }
    return n;
}

/* Every plan of the auto space, predicted one by one: cp takes the powers
 * of two leaving >= PLAN_CP_MIN_TOKENS tokens per GPU (dims.h). */
static int brute_force(const struct pred_ctx *c, int64_t gpus,
                       struct ref_hit *out, int cap)
{
    int n = 0;
    for (int tp = 1; tp <= c->hw.nvlink_domain; tp++)
        for (int cp = 1; cp <= gpus; cp *= 2) {
            if (c->model.heads % tp ||
                (cp > 1 && c->job.seq / cp < PLAN_CP_MIN_TOKENS))
                continue;
            for (int pp = 1; pp <= c->model.layers; pp++)
                if (gpus % (tp * cp * pp) == 0)
                    n = brute_block(c, gpus, tp, cp, pp, out, n, cap);
        }
    qsort(out, (size_t)n, sizeof *out, ref_cmp);
    return n;
}

static void setup(struct pred_ctx *c, struct space *s, const char *model,
                  const char *system, int64_t seq, int64_t gbs)
{
    struct model m = load_model(model);
    struct hw_system h = load_system(system);
    struct job j = make_job(seq, gbs);
    pred_ctx_init(c, &m, &h, &j, false);
    memset(s, 0, sizeof *s);            /* every dimension auto, sp any */
}

static void run(const struct pred_ctx *c, const struct space *s,
                const int64_t *gpus, size_t n, int k, bool exhaustive,
                uint64_t budget, struct search_result *out)
{
    struct search_cfg cfg = { .ctx = c, .space = s, .gpus = gpus, .n_gpus = n,
                              .top_k = k, .exhaustive = exhaustive,
                              .budget = budget, .seed = 7 };
    struct tpl_err err = { 0 };
    cr_assert_eq(search_run(&cfg, out, &err), 0, "%s", err.msg);
}

/* Feasible plans of the last brute force that offload the optimizer. */
static int ref_offloaded;

/* The search against the brute force; returns how many of the feasible
 * plans recompute only some layers (recompute_layers > 0), and leaves how
 * many offload in ref_offloaded. */
static int agree_with_brute_force(int64_t seq, const int64_t *gpus, size_t ng)
{
    int partial = 0;
    static struct ref_hit ref[400000];
    ref_offloaded = 0;
    struct pred_ctx c;
    struct space s;
    struct search_result r;
    setup(&c, &s, "llama3-8b", "dgx-h100", seq, 64);
    run(&c, &s, gpus, ng, 5, false, 0, &r);
    for (size_t g = 0; g < ng; g++) {
        int n = brute_force(&c, gpus[g], ref, 400000);
        const struct search_gpu *sg = &r.per_gpu[g];
        cr_assert_eq((uint64_t)n, sg->feasible, "%lld GPUs", (long long)gpus[g]);
        cr_assert_eq(sg->n_hits, n < 5 ? n : 5);
        for (int i = 0; i < sg->n_hits; i++) {
            char key[96];
            plan_key(&sg->hits[i].plan, key, sizeof key);
            cr_assert_str_eq(key, ref[i].key, "%lld GPUs, rank %d",
                             (long long)gpus[g], i + 1);
            cr_assert_eq(sg->hits[i].iteration_s, ref[i].t);
        }
        for (int i = 0; i < n; i++) {
            partial += ref[i].p.rc_layers > 0;
            ref_offloaded += ref[i].p.offload;
        }
    }
    search_result_release(&r);
    return partial;
}

Test(search, first_plan_is_the_brute_force_best)
{
    static const int64_t gpus[] = { 8, 16, 32, 64 };
    cr_assert_gt(agree_with_brute_force(4096, gpus, 4), 0);
    cr_assert_gt(ref_offloaded, 0, "no plan offloaded: the test tests "
                 "nothing of offload");
}

/* seq 32768: cp 1 .. 4 in the space (the brute force walks them too), and
 * memory tight enough that some plans recompute only some layers */
Test(search, brute_force_agrees_with_context_parallelism)
{
    static const int64_t gpus[] = { 16, 64 };
    int partial = agree_with_brute_force(32768, gpus, 2);
    cr_assert_gt(partial, 0, "no plan recomputed some layers: the test tests "
                 "nothing of recompute_layers");
}

/* Uneven stages: 30 layers (no power of two above 2 divides them) under
 * each stack's split rule: the search walks every pp and keeps what the
 * brute force over every pp keeps, layouts in the keys included. */
Test(search, brute_force_agrees_on_uneven_stages_for_every_split_rule)
{
    static struct ref_hit ref[200000];
    static const int64_t gpus[] = { 16, 24 };
    static const enum stage_split rules[] = { STAGE_SPLIT_MEGATRON,
        STAGE_SPLIT_TORCHTITAN, STAGE_SPLIT_DEEPSPEED_ENDS };
    struct pred_ctx c;
    struct space s;
    struct search_result r;
    int uneven = 0;
    setup(&c, &s, "llama3-8b", "dgx-h100", 2048, 48);
    c.model.layers = 30;
    for (size_t k = 0; k < 3; k++) {
        c.limits.split = rules[k];
        run(&c, &s, gpus, 2, 5, false, 0, &r);
        for (size_t g = 0; g < 2; g++) {
            int n = brute_force(&c, gpus[g], ref, 200000);
            const struct search_gpu *sg = &r.per_gpu[g];
            cr_assert_eq((uint64_t)n, sg->feasible, "rule %zu, %lld GPUs: %d vs %llu",
                         k, (long long)gpus[g], n, (unsigned long long)sg->feasible);
            cr_assert_eq(sg->n_hits, n < 5 ? n : 5);
            for (int i = 0; i < sg->n_hits; i++) {
                char key[96];
                plan_key(&sg->hits[i].plan, key, sizeof key);
                cr_assert_str_eq(key, ref[i].key, "rule %zu, %lld GPUs, rank %d",
                                 k, (long long)gpus[g], i + 1);
                cr_assert_eq(sg->hits[i].iteration_s, ref[i].t);
            }
            for (int i = 0; i < n; i++)
                uneven += ref[i].p.pp_first != 0;
        }
        search_result_release(&r);
    }
    cr_assert_gt(uneven, 0, "no uneven layout was feasible: the test tests nothing");
}

/* ---- rule counts against plan_check, one combination at a time ---- */

static void list(struct space *s, enum plan_dim d, int n, const int32_t *v)
{
    s->dim[d].n = n;
    memcpy(s->dim[d].v, v, (size_t)n * sizeof *v);
}

/* The listed space's combinations on 'gpus' GPUs, each checked on its own
 * by plan_check with overlap off (what a search checks before choosing the
 * overlap), counted by the rule it breaks into rule[]; returns how many
 * have a whole dp. */
static uint64_t count_rules(const struct pred_ctx *c, const struct space *s,
                            int64_t gpus, uint64_t *rule)
{
    int x[PLAN_DIM_COUNT] = { 0 };
    uint64_t n = 0;
    for (;;) {
        struct plan p = { 0 };
        int64_t deg = 1;
        int d;
        for (d = 0; d < PLAN_DIM_COUNT; d++)
            if (s->dim[d].n && d != PLAN_DIM_OVERLAP)
                plan_dim_set(&p, (enum plan_dim)d, s->dim[d].v[x[d]]);
        deg = (int64_t)p.tp * p.cp * p.pp;
        if (gpus % deg == 0) {
            p.dp = (int32_t)(gpus / deg);
            rule[plan_check(&p, &c->model, &c->job, &c->limits)]++;
            n++;
        }
        for (d = 0; d < PLAN_DIM_COUNT; d++) {
            if (!s->dim[d].n || d == PLAN_DIM_OVERLAP)
                continue;
            if (++x[d] < s->dim[d].n)
                break;
            x[d] = 0;
        }
        if (d == PLAN_DIM_COUNT)
            return n;
    }
}

/* The search keeps the answers of rule groups per block and skips blocks
 * that break a block rule whole (search/search.c): every rule's count per
 * GPU count must still be the one plan_check gives plan by plan, for a
 * dense model and a MoE one (on either expert layout), under limits that
 * refuse some of everything. */
static void rules_agree(const char *model, int64_t seq, int32_t moe,
                        enum plan_ep_mesh mesh)
{
    static const int64_t gpus[] = { 16, 24, 64 };
    static const int32_t tp[] = { 1, 2, 3, 4, 8, 16 }, cp[] = { 1, 2, 4 },
        pp[] = { 1, 2, 3, 4, 5, 8 }, mbs[] = { 1, 2, 3, 4 },
        vpp[] = { 1, 2, 3 }, yn[] = { 0, 1 }, rc[] = { 0, 1, 2 },
        zero[] = { 0, 1, 2, 3 }, rep[] = { 1, 2 }, ep[] = { 1, 2, 4, 8 };
    struct pred_ctx c;
    struct space s;
    struct search_result r;
    setup(&c, &s, model, "dgx-h100", seq, 48);
    c.limits.stack_zero = 0xd;              /* no zero 1 */
    c.limits.stack_zero_pp = 2;
    c.limits.stack_interleaved = false;
    c.limits.stack_cp = seq > 4096;
    c.limits.ep_mesh = mesh;
    list(&s, PLAN_DIM_TP, 6, tp);
    list(&s, PLAN_DIM_CP, 3, cp);
    list(&s, PLAN_DIM_PP, 6, pp);
    list(&s, PLAN_DIM_MBS, 4, mbs);
    list(&s, PLAN_DIM_VPP, 3, vpp);
    list(&s, PLAN_DIM_SP, 2, yn);
    list(&s, PLAN_DIM_TPO, 2, yn);
    list(&s, PLAN_DIM_RECOMPUTE, 3, rc);
    list(&s, PLAN_DIM_ZERO, 4, zero);
    list(&s, PLAN_DIM_OVERLAP, 2, yn);
    list(&s, PLAN_DIM_REPLICAS, 2, rep);
    list(&s, PLAN_DIM_EP, moe ? 4 : 1, ep);
    list(&s, PLAN_DIM_ETP, moe ? 2 : 1, (const int32_t[]){ 1, 2 });
    list(&s, PLAN_DIM_EPO, moe ? 2 : 1, yn);
    run(&c, &s, gpus, 3, 3, false, 0, &r);
    for (size_t g = 0; g < 3; g++) {
        uint64_t want[PLAN_RULE_COUNT] = { 0 };
        uint64_t n = count_rules(&c, &s, gpus[g], want);
        const struct search_gpu *sg = &r.per_gpu[g];
        cr_assert_eq(sg->enumerated, n, "%s, %lld GPUs", model, (long long)gpus[g]);
        cr_assert_eq(sg->valid, want[PLAN_OK]);
        for (int k = 1; k < PLAN_RULE_COUNT; k++)
            cr_assert_eq(sg->rule[k], want[k], "%s, %lld GPUs, rule %s: %llu vs %llu",
                         model, (long long)gpus[g], plan_rule_name((enum plan_rule)k),
                         (unsigned long long)sg->rule[k], (unsigned long long)want[k]);
    }
    search_result_release(&r);
}

Test(search, rule_counts_agree_with_plan_check_dense)
{
    rules_agree("llama3-8b", 8192, 0, PLAN_EP_MESH_MEGATRON);
}

Test(search, rule_counts_agree_with_plan_check_moe)
{
    rules_agree("mixtral-8x7b", 4096, 1, PLAN_EP_MESH_MEGATRON);
}

/* torchtitan's expert mesh: its rules also refuse plans with no MoE
 * dimension set (tp > 1, ep 1, etp 1), which the block walk must count. */
Test(search, rule_counts_agree_with_plan_check_fsdp_mesh)
{
    rules_agree("mixtral-8x7b", 4096, 1, PLAN_EP_MESH_FSDP);
}

static void assert_same(const struct search_result *a, const struct search_result *b,
                        bool same_work)
{
    cr_assert_eq(a->n, b->n);
    cr_assert_eq(a->stats.enumerated, b->stats.enumerated);
    cr_assert_eq(a->stats.feasible, b->stats.feasible);
    cr_assert_eq(a->stats.memory, b->stats.memory);
    for (int r = 0; r < PLAN_RULE_COUNT; r++)
        cr_assert_eq(a->stats.rule[r], b->stats.rule[r]);
    if (same_work)
        cr_assert_eq(a->stats.evaluated, b->stats.evaluated);
    for (size_t g = 0; g < a->n; g++) {
        cr_assert_eq(a->per_gpu[g].n_hits, b->per_gpu[g].n_hits);
        cr_assert(!memcmp(&a->per_gpu[g].nearest, &b->per_gpu[g].nearest,
                          sizeof a->per_gpu[g].nearest));
        for (int i = 0; i < a->per_gpu[g].n_hits; i++) {
            cr_assert(!memcmp(&a->per_gpu[g].hits[i].plan,
                              &b->per_gpu[g].hits[i].plan, sizeof(struct plan)));
            cr_assert_eq(a->per_gpu[g].hits[i].iteration_s,
                         b->per_gpu[g].hits[i].iteration_s);
        }
    }
}

/* Pruning never changes the answer: random scenarios drawn with PCG. */
Test(search, pruning_changes_nothing)
{
    static const char *const models[] = { "llama3-8b", "gpt3-22b", "llama2-13b",
                                          "gpt3-7.5b" };
    static const char *const systems[] = { "dgx-h100", "dgx-a100", "mi300x",
                                           "gb200-nvl72" };
    struct tpl_rng rng;
    tpl_rng_seed(&rng, 99, 3);
    for (int i = 0; i < 6; i++) {
        int64_t gpus[3] = { 8 << tpl_rng_below(&rng, 3), 64, 96 };
        struct pred_ctx c;
        struct space s;
        struct search_result a, b;
        setup(&c, &s, models[tpl_rng_below(&rng, 4)],
              systems[tpl_rng_below(&rng, 4)], 2048 << tpl_rng_below(&rng, 2),
              128 << tpl_rng_below(&rng, 3));
        if (gpus[0] == 64)
            gpus[0] = 32;
        run(&c, &s, gpus, 3, 1 + (int)tpl_rng_below(&rng, 8), false, 0, &a);
        run(&c, &s, gpus, 3, a.top_k, true, 0, &b);
        assert_same(&a, &b, false);
        cr_assert_leq(a.stats.evaluated, b.stats.evaluated);
        search_result_release(&a);
        search_result_release(&b);
    }
}

Test(search, same_answer_for_any_thread_count)
{
    static const int64_t gpus[] = { 64, 128, 256, 512 };
    struct pred_ctx c;
    struct space s;
    struct search_result a, b;
    setup(&c, &s, "llama3-70b", "dgx-h100", 8192, 512);
    omp_set_num_threads(1);
    run(&c, &s, gpus, 4, 5, false, 0, &a);
    omp_set_num_threads(2);
    run(&c, &s, gpus, 4, 5, false, 0, &b);
    assert_same(&a, &b, false);
    search_result_release(&a);
    search_result_release(&b);
}

Test(search, sampling_is_reproducible_and_said)
{
    static const int64_t gpus[] = { 64, 128 };
    struct pred_ctx c;
    struct space s;
    struct search_result a, b;
    setup(&c, &s, "llama3-70b", "dgx-h100", 8192, 512);
    omp_set_num_threads(2);
    run(&c, &s, gpus, 2, 3, false, 2000, &a);
    omp_set_num_threads(1);
    run(&c, &s, gpus, 2, 3, false, 2000, &b);
    cr_assert(a.stats.sampled);
    cr_assert_gt(a.stats.space_size, 2000);
    cr_assert_leq(a.stats.enumerated, 2000);
    assert_same(&a, &b, false);
    search_result_release(&a);
    run(&c, &s, gpus, 2, 3, false, 1000000000, &a);   /* budget above the space */
    cr_assert(!a.stats.sampled);
    search_result_release(&a);
    search_result_release(&b);
}

Test(search, no_feasible_plan_names_the_nearest_miss)
{
    static const int64_t gpus[] = { 8 };
    struct pred_ctx c;
    struct space s;
    struct search_result r;
    setup(&c, &s, "llama3-405b", "dgx-h100", 8192, 64);
    run(&c, &s, gpus, 1, 5, false, 0, &r);
    cr_assert_eq(r.per_gpu[0].n_hits, 0);
    cr_assert_gt(r.per_gpu[0].valid, 0);
    cr_assert_gt(r.per_gpu[0].nearest_short_bytes, 0);
    cr_assert_lt(r.per_gpu[0].nearest_short_bytes, 1e300);
    search_result_release(&r);
}

/* The search hands back pred_plan's full prediction of every kept plan and
 * of the nearest miss, and the context it searched with: a report built
 * from it agrees with `predict` of the same plan. */
Test(search, kept_plans_come_predicted_in_full)
{
    static const int64_t gpus[] = { 64, 128 };
    struct pred_ctx c;
    struct space s;
    struct search_result r;
    setup(&c, &s, "llama3-70b", "dgx-h100", 8192, 512);
    run(&c, &s, gpus, 2, 3, false, 0, &r);
    cr_assert_str_eq(r.ctx.model.name, c.model.name);
    cr_assert_str_eq(r.ctx.hw.name, c.hw.name);
    cr_assert_eq(r.ctx.job.seq, 8192);
    cr_assert_eq(r.ctx.peak_flops, c.peak_flops);
    for (size_t g = 0; g < r.n; g++) {
        const struct search_gpu *sg = &r.per_gpu[g];
        cr_assert_gt(sg->n_hits, 0);
        for (int k = 0; k < sg->n_hits; k++) {
            struct pred_result want;
            pred_plan(&c, &sg->hits[k].plan, &want);
            const struct pred_result *got = &sg->results[k];
            cr_assert_eq(got->iteration_s, want.iteration_s);
            cr_assert_eq(got->mfu, want.mfu);
            cr_assert_eq(got->mem.total_bytes, want.mem.total_bytes);
            cr_assert_eq(got->mem.margin_bytes, want.mem.margin_bytes);
            cr_assert_eq(got->layer.fwd_total_s, want.layer.fwd_total_s);
            for (int i = 0; i < PRED_PART_COUNT; i++)
                cr_assert_eq(got->part_s[i], want.part_s[i]);
            cr_assert_eq(sg->results[k].iteration_s, sg->hits[k].iteration_s);
            cr_assert(sg->results[k].mem.fits);
            cr_assert_eq(sg->results[k].rule, PLAN_OK);
        }
    }
    search_result_release(&r);
    setup(&c, &s, "llama3-405b", "dgx-h100", 8192, 64);
    run(&c, &s, (const int64_t[]){ 8 }, 1, 5, false, 0, &r);
    cr_assert_not_null(r.per_gpu[0].nearest_result);
    cr_assert_not(r.per_gpu[0].nearest_result->mem.fits);
    cr_assert_eq(-r.per_gpu[0].nearest_result->mem.margin_bytes,
                 r.per_gpu[0].nearest_short_bytes);
    search_result_release(&r);
}

Test(gpus, lists_and_ranges)
{
    struct gpu_list l;
    struct tpl_err err = { 0 };
    cr_assert_eq(gpu_list_parse(&l, "64..1024", "--gpus", &err), 0);
    cr_assert_eq(l.n, 5);
    cr_assert_eq(l.v[4], 1024);
    gpu_list_release(&l);
    cr_assert_eq(gpu_list_parse(&l, "8..16384:8", "--gpus", &err), 0);
    cr_assert_eq(l.n, 2048);
    cr_assert_eq(l.v[2047], 16384);
    gpu_list_release(&l);
    cr_assert_eq(gpu_list_parse(&l, "256,64,128,64,3..12", "--gpus", &err), 0);
    cr_assert_eq(l.n, 6);                   /* 3 6 12 64 128 256 */
    cr_assert_eq(l.v[0], 3);
    cr_assert_eq(l.v[5], 256);
    gpu_list_release(&l);
}

Test(gpus, bad_forms_are_usage_errors)
{
    static const char *const bad[] = { "", "0", "64..", "..64", "a", "64..32",
                                       "1,,2", "2,", "2000000", "8..64:0",
                                       "8..64:", "64 128", "-8", "1..2..3",
                                       "1..1048576:1" };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        struct gpu_list l;
        struct tpl_err err = { 0 };
        cr_assert_eq(gpu_list_parse(&l, bad[i], "--gpus", &err), TPL_EUSAGE, "'%s'", bad[i]);
        cr_assert_null(l.v);
        cr_assert(strstr(err.msg, "--gpus"), "%s", err.msg);
    }
}

/* Ties with the best by hand: the best's band reaches up to 10 s; a plan
 * whose band starts at 9.9 s overlaps it (tied), one from 10.1 s does not,
 * one starting exactly at 10 s touches it (tied); the best is not "tied". */
Test(search, tied_with_best_by_hand)
{
    struct pred_result r[4] = {
        { .iteration_s = 8, .iteration_s_low = 7, .iteration_s_high = 10 },
        { .iteration_s = 11, .iteration_s_low = 9.9, .iteration_s_high = 13 },
        { .iteration_s = 12, .iteration_s_low = 10.1, .iteration_s_high = 14 },
        { .iteration_s = 12, .iteration_s_low = 10, .iteration_s_high = 14 },
    };
    struct search_gpu g = { .n_hits = 4, .results = r };
    cr_assert(!search_tied_with_best(&g, 0));
    cr_assert(search_tied_with_best(&g, 1));
    cr_assert(!search_tied_with_best(&g, 2));
    cr_assert(search_tied_with_best(&g, 3));
    cr_assert(!search_tied_with_best(&g, 4));   /* past the hits */
}

/* Top-plan stability by hand. Best ~ U[1, 3], runner-up ~ U[2, 4]: the
 * runner-up is faster when Y < X, which needs both in [2, 3] with y < x:
 * P = (1/2 * 1 * 1) / (2 * 2) = 0.125, so the best stays first with
 * P = 0.875 (binomial sd over 1000 draws 0.0105: 4 sd allowed). A runner-up
 * whose band starts above the best's never wins: exactly 1. The same GPU
 * count draws the same numbers (PCG stream per count); another count
 * other ones. */
Test(search, top_first_by_hand)
{
    struct pred_result r[3] = {
        { .iteration_s = 2, .iteration_s_low = 1, .iteration_s_high = 3 },
        { .iteration_s = 3, .iteration_s_low = 2, .iteration_s_high = 4 },
        { .iteration_s = 5, .iteration_s_low = 3.5, .iteration_s_high = 6 },
    };
    struct search_gpu g = { .gpus = 64, .n_hits = 2, .results = r };
    double p = search_top_first(&g), q;
    cr_assert(fabs(p - 0.875) < 4 * 0.0105, "top first %.3f, expected 0.875", p);
    cr_assert(search_top_first(&g) == p, "same draws for the same count");
    g.gpus = 128;
    q = search_top_first(&g);
    cr_assert(fabs(q - 0.875) < 4 * 0.0105 && q != p, "count 128: %.3f", q);
    g.results = r + 1;                  /* best U[2, 4], next from 3.5: tied */
    cr_assert(search_top_first(&g) < 1);
    r[2].iteration_s_low = 4.01;        /* no longer overlaps U[2, 4] */
    cr_assert(search_top_first(&g) == 1.0);
    g.n_hits = 1;
    cr_assert(search_top_first(&g) == 1.0, "one plan is always first");
}
