/* search/search.c: the search engine (see search.h).
 *
 * The space is the product of the GPU counts and the allowed values of the
 * plan dimensions (spaces/dims.h); dp follows from GPUs / (tp cp pp). A
 * block is one GPU count and one value of each block dimension (tp, cp,
 * pp, zero); a block whose zero the stack refuses is counted whole,
 * unwalked (skip_block); threads take blocks with a dynamic schedule and
 * walk the block's inner combinations (mbs, vpp, stage ends, sp, tpo,
 * recompute, replicas, ep, etp, epo), the table's last row turning
 * fastest; a choice dimension (overlap) is not walked: each plan takes the
 * fastest of its listed values that the rules allow; nor are the fit
 * dimensions: recompute_layers takes the fewest layers that fit (fit_
 * layers), offload is on where the plan fits in no other way (plan_memory)
 * and, for a plan with full recompute, where its offloaded twin fits
 * rebuilding fewer layers and is faster (offload_twin: both composed, one
 * plan counted as evaluated; cut by the time bound only where both are).
 * Per plan, in order of
 * cost: the rules (integer arithmetic), the closed-form memory model, a
 * lower bound on time against this thread's K-th best for the GPU count
 * (pred_time_bound: it never exceeds the predicted time, and a plan is
 * dropped only when the bound is strictly above a time that the merged
 * top-K can only improve on, so pruning never changes the answer), then the
 * composition from layer times memoised per value of the dimensions the
 * table marks per_layer (tp, mbs, sp, recompute). */
#include "search/search.h"

#include <math.h>
#include <omp.h>
#include <stdlib.h>
#include <string.h>

#include "common/alloc.h"
#include "common/rng.h"

#define DIM_MAX 256

struct dims {                   /* the values each dimension takes */
    int32_t v[PLAN_DIM_COUNT][DIM_MAX];
    int n[PLAN_DIM_COUNT];      /* 1 for a derived dimension */
    int block[PLAN_DIM_COUNT], n_block;     /* block dimensions, fastest first */
    int inner[PLAN_DIM_COUNT], n_inner;     /* inner dimensions, fastest first */
    int walk[PLAN_DIM_COUNT], n_walk;       /* those of them with more than
                                               one value: what the odometer
                                               turns */
    size_t memo_stride[PLAN_DIM_COUNT];     /* 0: not in the memo key */
    size_t memo_n;
    uint64_t n_inner_plans;     /* combinations inside one block */
};

struct engine {                 /* shared, read-only during the loop */
    const struct search_cfg *cfg;
    const struct pred_ctx *ctx;
    struct dims d;
    struct pred_memo *memo;     /* by the per-layer dimensions' indices */
    bool in_range;              /* every listed value within its row's range */
    bool fit_layers;            /* recompute_layers has a choice: a value
                                   other than 0 listed or auto */
    int32_t offload_first;      /* the offload every plan starts with: the
                                   smallest listed */
    int32_t rc_fewest;          /* the smallest listed recompute_layers
                                   above 0 (0: none listed) */
    bool fit_offload;           /* offload 0 and 1 listed: on where the plan
                                   fits in no other way, or its twin
                                   rebuilds fewer layers (offload_twin) */
    uint64_t n_blocks;
};

/* What a block keeps of the rule groups (spaces/plan.h): the answers of
 * the groups that read only the block's fields and a few inner ones. */
struct block_rules {
    uint8_t seq[2][2];          /* plan_check_seq by sp, tpo; RULE_UNSET */
    int32_t mbs, vpp;           /* what 'batch' was checked for */
    enum plan_rule batch;       /* plan_check_batch */
    struct plan none;           /* the last plan without recompute whose */
    int none_fits;              /* memory was computed, and whether it fit
                                   (-1: none yet): recompute turns fast, so
                                   a full plan's sibling is usually it */
};
#define RULE_UNSET PLAN_RULE_COUNT

struct choice {                 /* the overlaps a plan may take */
    const int32_t *ok;
    int n;
};

struct local {                  /* one per thread */
    struct search_gpu *g;
    struct search_hit *store;
};

/* ---- dimensions ---- */


static int cmp_i32(const void *a, const void *b)
{
    int32_t x = *(const int32_t *)a, y = *(const int32_t *)b;
    return (x > y) - (x < y);
}

/* The list's values sorted and without repeats (a value listed twice would
 * count its plans twice). */
static int take_list(const struct space_list *l, int32_t *out)
{
    int32_t v[SPACE_MAX_VALUES];
    int n = 0;
    memcpy(v, l->v, (size_t)l->n * sizeof *v);
    qsort(v, (size_t)l->n, sizeof *v, cmp_i32);
    for (int i = 0; i < l->n && n < DIM_MAX; i++)
        if (i == 0 || v[i] != v[i - 1])
            out[n++] = v[i];
    return n;
}

static int divisors(int64_t n, int64_t cap, int32_t *out)
{
    int k = 0;
    for (int64_t d = 1; d <= n && d <= cap && k < DIM_MAX; d++)
        if (n % d == 0)
            out[k++] = (int32_t)d;
    return k;
}

/* lo, lo + 1, .. hi (at most DIM_MAX values). */
static int range_values(int32_t lo, int64_t hi, int32_t *out)
{
    int n = 0;
    for (int64_t v = lo; v <= hi && n < DIM_MAX; v++)
        out[n++] = (int32_t)v;
    return n;
}

/* A switch the stack may have: off, and on where it does. */
static int switch_values(bool on, int32_t *out)
{
    out[0] = 0;
    out[1] = 1;
    return on ? 2 : 1;
}

/* What "auto" means for dimension d (spaces/dims.h, enum plan_dim_auto). */
static int auto_values(const struct search_cfg *cfg, int d, int32_t *out)
{
    const struct model *m = &cfg->ctx->model;
    int64_t max_gpus = cfg->gpus[cfg->n_gpus - 1];
    int n = 0;
    switch (plan_dims[d].autorule) {
    case PLAN_AUTO_HEADS:
        return divisors(m->heads, cfg->space->tp_cross_node ? max_gpus
                        : cfg->ctx->hw.nvlink_domain, out);
    case PLAN_AUTO_LAYERS:          /* every depth the split rules may take */
        return range_values(1, m->layers < max_gpus ? m->layers : max_gpus, out);
    case PLAN_AUTO_SMALL:
        return divisors(8 * 7 * 5 * 3, 8, out);
    case PLAN_AUTO_CP:
        return pred_cp_auto(cfg->ctx, max_gpus, out, DIM_MAX);
    case PLAN_AUTO_STACK_TPO:
        return switch_values(cfg->ctx->limits.stack_tpo, out);
    case PLAN_AUTO_STACK_EPO:
        return switch_values(cfg->ctx->limits.stack_epo && model_is_moe(m), out);
    case PLAN_AUTO_STACK_OFFLOAD:
        return switch_values(cfg->ctx->limits.stack_offload &&
                             cfg->ctx->limits.host_link, out);
    case PLAN_AUTO_STACK_RC_BLOCK:  /* 0, and 1 .. the layers */
        return range_values(0, cfg->ctx->limits.stack_rc_block ? m->layers : 0,
                            out);
    case PLAN_AUTO_EXPERTS:     /* up to the GPUs of a stage */
        if (m->moe.experts > 0)
            return divisors(m->moe.experts, max_gpus, out);
        break;
    case PLAN_AUTO_ALL:
        for (int32_t v = plan_dims[d].lo; v <= plan_dims[d].hi && n < DIM_MAX; v++)
            out[n++] = v;
        return n;
    case PLAN_AUTO_DERIVED:
    case PLAN_AUTO_DEFAULT:
    case PLAN_AUTO_COUNT:
        break;
    }
    out[0] = plan_dims[d].dflt;
    return 1;
}

/* Block and inner dimensions fastest first (the last row of the table
 * turns fastest), and the memo's strides in the same order. */
static void order_dims(struct dims *d)
{
    size_t stride = 1;
    d->n_block = d->n_inner = d->n_walk = 0;
    d->n_inner_plans = 1;
    for (int k = PLAN_DIM_COUNT - 1; k >= 0; k--) {
        if (plan_dims[k].role == PLAN_ROLE_BLOCK)
            d->block[d->n_block++] = k;
        if (plan_dims[k].role == PLAN_ROLE_INNER) {
            d->inner[d->n_inner++] = k;
            d->n_inner_plans *= (uint64_t)d->n[k];
            if (d->n[k] > 1)
                d->walk[d->n_walk++] = k;
        }
        d->memo_stride[k] = plan_dims[k].per_layer ? stride : 0;
        if (plan_dims[k].per_layer)
            stride *= (size_t)d->n[k];
    }
    d->memo_n = stride;
}

/* Whether every value of every searched dimension is within its range, so
 * that only the derived dp needs the degree rule per plan. */
static bool dims_in_range(const struct dims *d)
{
    for (int k = 0; k < PLAN_DIM_COUNT; k++)
        for (int i = 0; i < d->n[k] && plan_dims[k].role != PLAN_ROLE_DERIVED; i++)
            if (d->v[k][i] < plan_dims[k].lo || d->v[k][i] > plan_dims[k].hi)
                return false;
    return true;
}

static void build_dims(const struct search_cfg *cfg, struct dims *d)
{
    for (int k = 0; k < PLAN_DIM_COUNT; k++) {
        const struct space_list *l = &cfg->space->dim[k];
        bool listed = l->n && plan_dims[k].role != PLAN_ROLE_DERIVED;
        d->n[k] = listed ? take_list(l, d->v[k]) : auto_values(cfg, k, d->v[k]);
    }
    order_dims(d);
}

/* The rules after the block's own (degree, zero, tp: skip_block), in
 * plan_check_shape's order, with the answers of the groups that read only
 * the block's fields and sp, tpo (seq) or mbs, vpp (batch) kept in *br:
 * the odometer turns mbs and vpp slowest, so 'batch' is checked once per
 * run of their values, and a block has at most four (sp, tpo). */
static enum plan_rule check_block(const struct engine *e, struct block_rules *br,
                                  const struct plan *p)
{
    const struct pred_ctx *c = e->ctx;
    enum plan_rule r = (enum plan_rule)br->seq[p->sp][p->tpo];
    if (r == RULE_UNSET)
        br->seq[p->sp][p->tpo] = (uint8_t)(r = plan_check_seq(p, &c->model, &c->job));
    if (r != PLAN_OK)
        return r;
    if (plan_moe_checked(p, &c->model, &c->limits) &&
        (r = plan_check_moe(p, &c->model, &c->limits)) != PLAN_OK)
        return r;
    if (p->mbs != br->mbs || p->vpp != br->vpp) {
        br->mbs = p->mbs;
        br->vpp = p->vpp;
        br->batch = plan_check_batch(p, &c->model, &c->job, &c->limits);
    }
    return br->batch != PLAN_OK ? br->batch : plan_check_stack(p, &c->limits);
}

/* The rules: with br (a walked block whose lists are in range, its own
 * rules passed) from the block's kept answers, else all of them, with the
 * degree rule cut to dp when the lists are in range. */
static enum plan_rule check(const struct engine *e, struct block_rules *br,
                            const struct plan *p)
{
    const struct pred_ctx *c = e->ctx;
    if (br)
        return check_block(e, br, p);
    if (!e->in_range)
        return plan_check(p, &c->model, &c->job, &c->limits);
    if (p->dp > plan_dims[PLAN_DIM_DP].hi)
        return PLAN_RULE_DEGREE;
    return plan_check_shape(p, &c->model, &c->job, &c->limits);
}

static void build_memo(struct engine *e)
{
    const struct dims *d = &e->d;
    e->memo = xcalloc(d->memo_n, sizeof *e->memo);
    for (size_t i = 0; i < d->memo_n; i++) {
        struct plan p = { 0 };
        size_t rest = i;
        for (int k = PLAN_DIM_COUNT - 1; k >= 0; k--) {
            int32_t v = plan_dims[k].dflt;
            if (d->memo_stride[k]) {
                v = d->v[k][rest % (size_t)d->n[k]];
                rest /= (size_t)d->n[k];
            }
            plan_dim_set(&p, (enum plan_dim)k, v);
        }
        pred_memo_build(e->ctx, &p, &e->memo[i]);
    }
}

/* ---- top-K ---- */

static bool hit_before(const struct search_hit *a, const struct search_hit *b)
{
    char ka[96], kb[96];
    if (a->iteration_s != b->iteration_s)
        return a->iteration_s < b->iteration_s;
    plan_key(&a->plan, ka, sizeof ka);
    plan_key(&b->plan, kb, sizeof kb);
    return strcmp(ka, kb) < 0;
}

static void offer(struct search_gpu *g, int k, const struct search_hit *h)
{
    int i;
    if (g->n_hits == k && !hit_before(h, &g->hits[k - 1]))
        return;
    for (i = 0; i < g->n_hits; i++)         /* a sampled plan comes twice */
        if (g->hits[i].idx == h->idx)
            return;
    i = g->n_hits < k ? g->n_hits++ : k - 1;
    for (; i > 0 && hit_before(h, &g->hits[i - 1]); i--)
        g->hits[i] = g->hits[i - 1];
    g->hits[i] = *h;
}

/* ---- one plan ---- */

/* A plan that breaks no rule but does not fit: the nearest such miss
 * (smallest shortfall, then lowest index) explains an empty GPU count. */
static void near_miss(struct search_gpu *g, const struct plan *p,
                      double short_bytes, uint64_t idx)
{
    if (short_bytes < g->nearest_short_bytes ||
        (short_bytes == g->nearest_short_bytes && idx < g->nearest_idx)) {
        g->nearest_short_bytes = short_bytes;
        g->nearest = *p;
        g->nearest_idx = idx;
    }
}

/* The choice dimension (overlap): its listed values, most preferred (the
 * last) first, that the rules allow; the rules that do not read the
 * overlap are checked once, with overlap off, which no rule refuses.
 * 0 on return: the plan breaks *rule. */
static int choices(const struct engine *e, struct block_rules *br,
                   struct plan *p, int32_t *ok, enum plan_rule *rule)
{
    const struct dims *d = &e->d;
    int n = 0;
    p->overlap = 0;
    if ((*rule = check(e, br, p)) != PLAN_OK)
        return 0;
    for (int i = d->n[PLAN_DIM_OVERLAP] - 1; i >= 0; i--) {
        p->overlap = d->v[PLAN_DIM_OVERLAP][i];
        *rule = plan_check_overlap(p, &e->ctx->limits);
        if (*rule == PLAN_OK)
            ok[n++] = p->overlap;
    }
    return n;
}

/* The plan with the fastest allowed choice; a tie keeps the earlier
 * (preferred) one. */
static void compose_best(const struct engine *e, struct plan *p,
                         const struct pred_memo *memo, const int32_t *ok,
                         int n, struct pred_result *best)
{
    struct pred_result r;
    int32_t pick = ok[0];
    for (int i = 0; i < n; i++) {
        p->overlap = ok[i];
        pred_compose(e->ctx, p, memo, i ? &r : best);
        if (i && r.iteration_s < best->iteration_s) {
            *best = r;
            pick = ok[i];
        }
    }
    p->overlap = pick;
}

/* The first index of the sorted values v[0 .. n) that is >= x (n: none). */
static int lower_bound(const int32_t *v, int n, int32_t x)
{
    int lo = 0, hi = n;
    while (lo < hi) {
        int mid = (lo + hi) / 2;
        if (v[mid] < x)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* Whether plan p (full recompute) would fit without recompute, from the
 * block's last plan without recompute when it is p's sibling (the same
 * in every field but recompute, rc_layers and the overlap, which memory
 * does not read): 1, 0, or -1 unknown. */
static int sibling_fits(const struct block_rules *br, const struct plan *p)
{
    struct plan q = *p;
    if (!br || br->none_fits < 0)
        return -1;
    q.recompute = PLAN_RECOMPUTE_NONE;
    q.rc_layers = 0;
    q.overlap = br->none.overlap;
    return memcmp(&q, &br->none, sizeof q) ? -1 : br->none_fits;
}

/* The smallest listed N >= need (need from pred_rc_layers_fit, never
 * above the answer) under which p fits, checked by pred_memory, below
 * 'top' when 0 (every layer) is listed; 0 when there is none (also as
 * soon as an offloaded step's peak is the one that misses: it does not
 * fall with N, mem.c offload_step_bytes). */
static int32_t fit_from(const struct engine *e, struct plan *p, int32_t need,
                        int32_t top, struct pred_mem *mem)
{
    const int32_t *v = e->d.v[PLAN_DIM_RC_LAYERS];
    int n = e->d.n[PLAN_DIM_RC_LAYERS];
    bool all = v[0] == 0;       /* 0 listed: sorted first */
    for (int i = lower_bound(v, n, need > 1 ? need : 1);
         i < n && !(all && v[i] >= top); i++) {
        p->rc_layers = v[i];
        pred_memory(e->ctx, p, mem);
        if (mem->fits)
            return v[i];
        if (p->offload && mem->optimizer_bytes > 0)
            break;
    }
    return 0;
}

/* Whether some N < the chunk's layers might fit where recompute of every
 * layer (*full) does not: only where the stage that misses holds one
 * chunk in flight. With k >= 2 chunks, N layers checkpointed of cl cost
 * k (N a_full + (cl - N) a_none) >= k (cl - 1) a_full + k a_none, at
 * least the k cl a_full + a_none of every layer as a_none >= 2 a_full
 * (mem.c: the two norm inputs alone are 2 a_full). */
static bool block_may_fit(const struct pred_ctx *c, const struct plan *p,
                          const struct pred_mem *full)
{
    int64_t mb = plan_microbatches(p, &c->job);
    return full->fits ||
           pred_inflight_chunks(p, mb < 1 ? 1 : mb, full->worst_stage) < 2.0;
}

/* The fit dimension (recompute_layers) of a plan with full recompute, when
 * the space lists more than 0 and the stack has block recompute: the
 * smallest listed N > 0 under which it fits (fit_from), from the need
 * computed beside the memory of every layer recomputed, so no N is
 * walked; 0 (every layer) when it is listed and the plan fits without
 * recompute (the plan without recompute, faster, is in the space anyway:
 * known from the sibling without recompute the odometer just passed, or
 * from the need), when no smaller N fits, or when N would rebuild every
 * layer of every chunk anyway; without 0 listed, the largest listed where
 * none fits. *mem gets the chosen plan's memory. */
static __attribute__((noinline)) void fit_layers(const struct engine *e,
                                                 struct block_rules *br,
                                                 struct plan *p,
                                                 struct pred_mem *mem)
{
    const int32_t *v = e->d.v[PLAN_DIM_RC_LAYERS];
    int n = e->d.n[PLAN_DIM_RC_LAYERS];
    bool all = v[0] == 0;       /* 0 listed: sorted first */
    int32_t top, need;
    struct pred_mem full;
    if (all && sibling_fits(br, p) == 1) {
        pred_memory(e->ctx, p, mem);    /* every layer */
        return;
    }
    need = pred_rc_layers_fit(e->ctx, p, &top, mem);
    if (all && (need == 0 || !block_may_fit(e->ctx, p, mem)))
        return;
    full = *mem;
    if ((need > 0 || !all) && fit_from(e, p, need, top, mem))
        return;
    p->rc_layers = all ? 0 : v[n - 1];
    *mem = full;
    if (!all)
        pred_memory(e->ctx, p, mem);
}

/* The plan's memory (with the fit dimensions chosen); the rule a stack
 * without block recompute breaks when the space lists no 0. */
static __attribute__((noinline)) enum plan_rule memory_fit(const struct engine *e, struct block_rules *br,
                                  struct plan *p, struct pred_mem *mem)
{
    if (p->recompute == PLAN_RECOMPUTE_FULL && e->fit_layers) {
        if (!e->ctx->limits.stack_rc_block)
            return PLAN_RULE_STACK_RC_BLOCK;
        fit_layers(e, br, p, mem);
        return PLAN_OK;
    }
    pred_memory(e->ctx, p, mem);
    if (br && p->recompute == PLAN_RECOMPUTE_NONE) {
        br->none = *p;
        br->none_fits = mem->fits;
    }
    return PLAN_OK;
}

/* Plan p with the optimizer offloaded, its recompute_layers fitted again,
 * in *q with its memory in *m, where the search may offload it (both
 * offload values listed, p not offloaded, plan_check_offload); false
 * where it may not, or the fit breaks a rule. It keeps no sibling (br):
 * that describes the plans without offload. */
static bool offloaded(const struct engine *e, const struct plan *p,
                      struct plan *q, struct pred_mem *m)
{
    if (!e->fit_offload || p->offload ||
        plan_check_offload(p, &e->ctx->limits) != PLAN_OK)
        return false;
    *q = *p;
    q->offload = 1;
    q->rc_layers = 0;
    return memory_fit(e, NULL, q, m) == PLAN_OK;
}

/* memory_fit, then the second fit dimension (offload): a plan that does
 * not fit without it, and may offload (plan_check_offload), takes it, its
 * recompute_layers fitted again, if it then fits (offloading never makes
 * a plan faster, so a plan that fits without it keeps it off; a miss is
 * reported as the plan without it). *mem is the least memory over the
 * listed recompute_layers, and offloading frees at most the worst stage's
 * optimizer states from its total (mem.c: the step's window only adds), so
 * a plan short by more than those cannot fit offloaded: not tried. The
 * retry keeps no sibling (br): it describes the plans without offload. */
static enum plan_rule plan_memory(const struct engine *e, struct block_rules *br,
                                  struct plan *p, struct pred_mem *mem)
{
    struct plan q;
    struct pred_mem off;
    enum plan_rule r = memory_fit(e, br, p, mem);
    if (r != PLAN_OK || mem->fits ||
        mem->margin_bytes + mem->optimizer_bytes < 0 ||
        !offloaded(e, p, &q, &off) || !off.fits)
        return r;
    *p = q;
    *mem = off;
    return PLAN_OK;
}

/* A miss that may offload (plan_memory found it short offloaded too, or
 * too short to try): the offloaded plan as a near miss as well, where it
 * could be the nearest (offloading frees at most the worst stage's
 * optimizer states), so that the nearest miss is the nearest either way. */
static void offload_miss(const struct engine *e, struct search_gpu *g,
                         const struct plan *p, const struct pred_mem *mem,
                         uint64_t idx)
{
    struct plan q;
    struct pred_mem off;
    if (-(mem->margin_bytes + mem->optimizer_bytes) <= g->nearest_short_bytes &&
        offloaded(e, p, &q, &off))
        near_miss(g, &q, -off.margin_bytes, idx);
}

/* Block recompute's rank of N layers a chunk: 0 rebuilds every layer. */
static int32_t rebuilt_rank(int32_t n)
{
    return n > 0 ? n : INT32_MAX;
}

/* The offloaded twin of a plan that fits by recomputing N0 layers a chunk
 * (full recompute, recompute_layers fitted): with the optimizer states in
 * host memory fewer layers may need rebuilding, which can more than pay
 * for the host copies, so *alt (offload on, recompute_layers fitted
 * again) is a second candidate where it fits with fewer. Not tried where
 * N0 is already the fewest listed. */
static bool offload_twin(const struct engine *e, const struct plan *p,
                         struct plan *alt)
{
    struct pred_mem m;
    return e->fit_layers && p->recompute == PLAN_RECOMPUTE_FULL &&
           p->rc_layers != e->rc_fewest && offloaded(e, p, alt, &m) &&
           m.fits && rebuilt_rank(alt->rc_layers) < rebuilt_rank(p->rc_layers);
}

/* Whether the time bound of plan p cannot make the top k. */
static bool bound_cuts(const struct engine *e, const struct search_gpu *g,
                       const struct plan *p, const struct pred_memo *memo)
{
    int k = e->cfg->top_k;
    return !e->cfg->exhaustive && g->n_hits == k &&
           pred_time_bound(e->ctx, p, memo) > g->hits[k - 1].iteration_s;
}

/* A plan that fits: composed with its best overlap, and its offloaded
 * twin beside it where there is one (the faster offered; a tie keeps the
 * plan without offload), unless the time bound cuts both. */
static void eval_fits(const struct engine *e, struct search_gpu *g,
                      struct plan *p, const struct pred_memo *memo,
                      struct choice ch, uint64_t idx)
{
    struct plan alt, *best = p;
    struct pred_result r, ra;
    bool twin = offload_twin(e, p, &alt), cut = bound_cuts(e, g, p, memo);
    if (twin && bound_cuts(e, g, &alt, memo))
        twin = false;
    if (cut && !twin) {
        g->bound++;
        return;
    }
    g->evaluated++;
    if (!cut)
        compose_best(e, p, memo, ch.ok, ch.n, &r);
    if (twin) {
        compose_best(e, &alt, memo, ch.ok, ch.n, &ra);
        if (cut || ra.iteration_s < r.iteration_s) {
            best = &alt;
            r = ra;
        }
    }
    alt = *best;                        /* the key shows the split chosen */
    plan_stages_resolve(&alt, &e->ctx->model, &e->ctx->limits);
    offer(g, e->cfg->top_k, &(struct search_hit){ .plan = alt,
                                  .iteration_s = r.iteration_s, .idx = idx });
}

static void eval_one(const struct engine *e, struct block_rules *br,
                     struct search_gpu *g, struct plan *p,
                     const struct pred_memo *memo, uint64_t idx)
{
    const struct pred_ctx *c = e->ctx;
    int n;
    struct pred_mem mem;
    struct plan q;
    int32_t ok[SPACE_MAX_VALUES];
    enum plan_rule rule = PLAN_OK;
    g->enumerated++;
    p->rc_layers = 0;                   /* the last plan's fits */
    p->offload = e->offload_first;
    if (!(n = choices(e, br, p, ok, &rule))) {
        g->rule[rule]++;
        return;
    }
    p->overlap = ok[0];
    if ((rule = plan_memory(e, br, p, &mem)) != PLAN_OK) {
        g->rule[rule]++;
        return;
    }
    g->valid++;
    if (!mem.fits) {
        q = *p;                         /* the key shows the split chosen */
        plan_stages_resolve(&q, &c->model, &c->limits);
        g->memory++;
        near_miss(g, &q, -mem.margin_bytes, idx);
        offload_miss(e, g, &q, &mem, idx);
        return;
    }
    g->feasible++;
    eval_fits(e, g, p, memo, (struct choice){ ok, n }, idx);
}

/* Inner index j of a block -> the plan's inner fields; returns the memo
 * index of the inner dimensions (added to the block's). */
static size_t inner_plan(const struct dims *d, uint64_t j, struct plan *p)
{
    size_t memo = 0;
    for (int i = 0; i < d->n_inner; i++) {
        int k = d->inner[i];
        uint64_t x = j % (uint64_t)d->n[k];
        j /= (uint64_t)d->n[k];
        plan_dim_set(p, (enum plan_dim)k, d->v[k][x]);
        memo += (size_t)x * d->memo_stride[k];
    }
    return memo;
}

/* Block b -> GPU count index, the block's dimensions and the derived dp;
 * false when the GPU count is not a multiple of the block's degrees (no
 * whole dp: not a plan). *memo gets the block's part of the memo index. */
static bool block_plan(const struct engine *e, uint64_t b, size_t *gi,
                       size_t *memo, struct plan *p)
{
    const struct dims *d = &e->d;
    int64_t gpus, degrees = 1;
    *memo = 0;
    for (int i = 0; i < d->n_block; i++) {
        int k = d->block[i];
        uint64_t x = b % (uint64_t)d->n[k];
        b /= (uint64_t)d->n[k];
        plan_dim_set(p, (enum plan_dim)k, d->v[k][x]);
        if (k != PLAN_DIM_ZERO)     /* the block dimension that is no degree */
            degrees *= d->v[k][x];
        *memo += (size_t)x * d->memo_stride[k];
    }
    *gi = (size_t)b;
    gpus = e->cfg->gpus[*gi];
    if (gpus % degrees)
        return false;
    p->dp = (int32_t)(gpus / degrees);
    return true;
}

static inline void set_field(struct plan *p, int k, int32_t v)
{
    memcpy((char *)p + plan_dims[k].offset, &v, sizeof v);
}

/* The next inner combination of a block, as an odometer turning the
 * fastest dimension first (the order inner_plan decodes; a dimension with
 * one value keeps the value inner_plan wrote); the memo index follows.
 * Amortised one field written per plan. */
static void inner_next(const struct dims *d, int *x, size_t *memo, struct plan *p)
{
    for (int i = 0; i < d->n_walk; i++) {
        int k = d->walk[i];
        *memo -= (size_t)x[i] * d->memo_stride[k];
        x[i] = x[i] + 1 < d->n[k] ? x[i] + 1 : 0;
        *memo += (size_t)x[i] * d->memo_stride[k];
        set_field(p, k, d->v[k][x[i]]);
        if (x[i])
            return;
    }
}

/* A block that breaks a rule reading only its own fields (dp's degree,
 * then the first groups of plan_check_shape: zero, tp): every plan in it
 * breaks the same rule, so it is counted whole without walking it. */
static bool skip_block(const struct engine *e, struct search_gpu *g,
                       const struct plan *p)
{
    const struct pred_ctx *c = e->ctx;
    enum plan_rule r = PLAN_RULE_DEGREE;
    if (!e->in_range)
        return false;
    if (p->dp <= plan_dims[PLAN_DIM_DP].hi &&
        (r = plan_check_zero(p, &c->limits)) == PLAN_OK &&
        (r = plan_check_tp(p, &c->model, &c->limits)) == PLAN_OK)
        return false;
    g->enumerated += e->d.n_inner_plans;
    g->rule[r] += e->d.n_inner_plans;
    return true;
}

static void run_block(const struct engine *e, struct local *L, uint64_t b)
{
    struct plan p = { 0 };
    struct block_rules br;              /* .none is read after none_fits */
    int x[PLAN_DIM_COUNT] = { 0 };
    size_t gi, m;
    uint64_t first = b * e->d.n_inner_plans;
    if (!block_plan(e, b, &gi, &m, &p) || skip_block(e, &L->g[gi], &p))
        return;
    memset(br.seq, RULE_UNSET, sizeof br.seq);
    br.mbs = -1;
    br.vpp = 0;
    br.batch = PLAN_OK;
    br.none_fits = -1;
    m += inner_plan(&e->d, 0, &p);
    for (uint64_t j = 0; j < e->d.n_inner_plans; j++) {
        eval_one(e, e->in_range ? &br : NULL, &L->g[gi], &p, &e->memo[m],
                 first + j);
        inner_next(&e->d, x, &m, &p);
    }
}

static void run_sample(const struct engine *e, struct local *L, uint64_t s)
{
    struct tpl_rng rng;
    struct plan p = { 0 };
    uint64_t idx, b, inner = e->d.n_inner_plans;
    size_t gi, base;
    tpl_rng_seed(&rng, e->cfg->seed, s);        /* one stream per sample */
    idx = tpl_rng_u64_below(&rng, e->n_blocks * inner);
    b = idx / inner;
    if (!block_plan(e, b, &gi, &base, &p))
        return;
    base += inner_plan(&e->d, idx % inner, &p);
    eval_one(e, NULL, &L->g[gi], &p, &e->memo[base], idx);
}

/* ---- locals and merge ---- */

static void local_init(struct local *L, const struct search_cfg *cfg)
{
    L->g = xcalloc(cfg->n_gpus, sizeof *L->g);
    L->store = xcalloc(cfg->n_gpus * (size_t)cfg->top_k, sizeof *L->store);
    for (size_t i = 0; i < cfg->n_gpus; i++) {
        L->g[i].gpus = cfg->gpus[i];
        L->g[i].hits = L->store + i * (size_t)cfg->top_k;
        L->g[i].nearest_short_bytes = INFINITY;
        L->g[i].nearest_idx = UINT64_MAX;
    }
}

static void merge_gpu(struct search_gpu *to, const struct search_gpu *from, int k)
{
    to->enumerated += from->enumerated;
    to->valid += from->valid;
    to->feasible += from->feasible;
    to->evaluated += from->evaluated;
    to->memory += from->memory;
    to->bound += from->bound;
    for (int r = 0; r < PLAN_RULE_COUNT; r++)
        to->rule[r] += from->rule[r];
    near_miss(to, &from->nearest, from->nearest_short_bytes, from->nearest_idx);
    for (int i = 0; i < from->n_hits; i++)
        offer(to, k, &from->hits[i]);
}

static void totals(struct search_result *out)
{
    struct search_stats *s = &out->stats;
    for (size_t i = 0; i < out->n; i++) {
        const struct search_gpu *g = &out->per_gpu[i];
        s->enumerated += g->enumerated;
        s->evaluated += g->evaluated;
        s->feasible += g->feasible;
        s->memory += g->memory;
        s->bound += g->bound;
        for (int r = 0; r < PLAN_RULE_COUNT; r++)
            s->rule[r] += g->rule[r];
    }
}

/* ---- finished predictions of what is kept ---- */

/* Each GPU count's kept plans and nearest miss, predicted in full once
 * (memory, layer table and all), so that reports only format. */
static void finish(const struct search_cfg *cfg, struct search_result *out)
{
    size_t per = (size_t)cfg->top_k + 1;
    out->ctx = *cfg->ctx;
    out->store = xcalloc(out->n * per, sizeof *out->store);
    #pragma omp parallel for schedule(dynamic, 4)
    for (size_t i = 0; i < out->n; i++) {
        struct search_gpu *g = &out->per_gpu[i];
        struct pred_result *r = out->store + i * per;
        for (int k = 0; k < g->n_hits; k++)
            pred_plan(cfg->ctx, &g->hits[k].plan, &r[k]);
        g->results = r;
        if (g->nearest_idx != UINT64_MAX) {
            pred_plan(cfg->ctx, &g->nearest, &r[cfg->top_k]);
            g->nearest_result = &r[cfg->top_k];
        }
        g->top_first = search_top_first(g);
    }
}

/* ---- the run ---- */

/* Progress from one thread, at most 10 times a second after the first. */
static void progress(const struct search_cfg *cfg, uint64_t *done, uint64_t n,
                     double t0, double *last)
{
    uint64_t now_done;
    #pragma omp atomic capture
    now_done = ++*done;
    if (omp_get_thread_num() == 0) {
        double now = omp_get_wtime();
        if (now - t0 > 1.0 && now - *last > 0.1) {
            *last = now;
            cfg->progress(cfg->progress_arg, (double)now_done / (double)n);
        }
    }
}

static void loop(const struct engine *e, struct local *locals, uint64_t n,
                 bool sampled)
{
    const struct search_cfg *cfg = e->cfg;
    uint64_t done = 0;
    double t0 = omp_get_wtime(), last = t0;
    #pragma omp parallel
    {
        struct local *L = &locals[omp_get_thread_num()];
        #pragma omp for schedule(dynamic, 8)
        for (uint64_t i = 0; i < n; i++) {
            if (cfg->stop && *cfg->stop)
                continue;               /* an OpenMP loop cannot break */
            if (sampled)
                run_sample(e, L, i);
            else
                run_block(e, L, i);
            if (cfg->progress)
                progress(cfg, &done, n, t0, &last);
        }
    }
}

/* Thread 0's arrays become the merged result; the others are folded in. */
static void merge(const struct search_cfg *cfg, struct local *locals, int nt,
                  struct search_result *out)
{
    out->n = cfg->n_gpus;
    out->top_k = cfg->top_k;
    out->per_gpu = locals[0].g;
    for (int t = 1; t < nt; t++) {
        for (size_t i = 0; i < cfg->n_gpus; i++)
            merge_gpu(&out->per_gpu[i], &locals[t].g[i], cfg->top_k);
        free(locals[t].g);
        free(locals[t].store);
    }
}

static int prepare(const struct search_cfg *cfg, struct engine *e,
                   struct tpl_err *err)
{
    if (cfg->n_gpus == 0 || cfg->top_k < 1 || cfg->top_k > SEARCH_MAX_TOP)
        return tpl_errorf(err, TPL_EUSAGE, "nothing to search: no GPU counts "
                          "or a bad --top");
    build_dims(cfg, &e->d);
    e->in_range = dims_in_range(&e->d);
    e->fit_layers = e->d.n[PLAN_DIM_RC_LAYERS] > 1 ||
                    e->d.v[PLAN_DIM_RC_LAYERS][0] != 0;
    e->offload_first = e->d.v[PLAN_DIM_OFFLOAD][0];     /* sorted */
    e->rc_fewest = e->d.v[PLAN_DIM_RC_LAYERS][0] > 0 ? e->d.v[PLAN_DIM_RC_LAYERS][0]
                 : e->d.n[PLAN_DIM_RC_LAYERS] > 1 ? e->d.v[PLAN_DIM_RC_LAYERS][1] : 0;
    e->fit_offload = e->d.n[PLAN_DIM_OFFLOAD] > 1;
    e->n_blocks = cfg->n_gpus;
    for (int i = 0; i < e->d.n_block; i++)
        e->n_blocks *= (uint64_t)e->d.n[e->d.block[i]];
    if (e->n_blocks * e->d.n_inner_plans == 0)
        return tpl_errorf(err, TPL_ECONFIG, "the search space is empty");
    return 0;
}

int search_run(const struct search_cfg *cfg, struct search_result *out,
               struct tpl_err *err)
{
    struct engine e = { .cfg = cfg, .ctx = cfg->ctx };
    struct local *locals;
    int nt = omp_get_max_threads();
    double t0 = omp_get_wtime();
    uint64_t space;
    int rc;
    memset(out, 0, sizeof *out);
    if ((rc = prepare(cfg, &e, err)) != 0)
        return rc;
    space = e.n_blocks * e.d.n_inner_plans;
    out->stats.space_size = space;
    out->stats.sampled = cfg->budget && space > cfg->budget;
    build_memo(&e);
    locals = xcalloc((size_t)nt, sizeof *locals);
    for (int t = 0; t < nt; t++)
        local_init(&locals[t], cfg);
    loop(&e, locals, out->stats.sampled ? cfg->budget : e.n_blocks,
         out->stats.sampled);
    merge(cfg, locals, nt, out);
    free(locals);
    free(e.memo);
    out->stats.partial = cfg->stop && *cfg->stop;
    totals(out);
    finish(cfg, out);
    out->stats.seconds = omp_get_wtime() - t0;
    return 0;
}

bool search_tied_with_best(const struct search_gpu *g, int k)
{
    return k > 0 && k < g->n_hits &&
           g->results[k].iteration_s_low <= g->results[0].iteration_s_high;
}

static double draw_in_band(struct tpl_rng *rng, const struct pred_result *r)
{
    return r->iteration_s_low +
           tpl_rng_unit(rng) * (r->iteration_s_high - r->iteration_s_low);
}

double search_top_first(const struct search_gpu *g)
{
    struct tpl_rng rng;
    int tied = 0, first = 0;
    for (int k = 1; k < g->n_hits; k++)
        tied += search_tied_with_best(g, k);
    if (!tied)
        return 1.0;
    tpl_rng_seed(&rng, SEARCH_STABILITY_SEED, (uint64_t)g->gpus);
    for (int d = 0; d < SEARCH_STABILITY_DRAWS; d++) {
        double best = draw_in_band(&rng, &g->results[0]);
        int wins = 1;
        for (int k = 1; k < g->n_hits; k++)
            wins &= draw_in_band(&rng, &g->results[k]) >= best;
        first += wins;
    }
    return (double)first / SEARCH_STABILITY_DRAWS;
}

void search_result_release(struct search_result *r)
{
    if (r->per_gpu)
        free(r->per_gpu[0].hits);               /* the store of thread 0 */
    free(r->per_gpu);
    free(r->store);
    memset(r, 0, sizeof *r);
}
