/* search/search.c: the search engine (see search.h).
 *
 * The space is the product of the GPU counts and the allowed values of tp,
 * pp, mbs, vpp, sp, recompute and zero; dp follows from GPUs / (tp pp). A
 * block is one (GPU count, tp, pp); threads take blocks with a dynamic
 * schedule and walk the block's inner combinations. Per plan, in order of
 * cost: the rules (integer arithmetic), the closed-form memory model, a
 * lower bound on time against this thread's K-th best for the GPU count
 * (pred_time_bound: it never exceeds the predicted time, and a plan is
 * dropped only when the bound is strictly above a time that the merged
 * top-K can only improve on, so pruning never changes the answer), then the
 * composition from layer times memoised per (tp, mbs, sp, recompute). */
#include "search/search.h"

#include <math.h>
#include <omp.h>
#include <stdlib.h>
#include <string.h>

#include "common/alloc.h"
#include "common/rng.h"

#define DIM_MAX 256

struct dims {                   /* the values each dimension takes */
    int32_t tp[DIM_MAX], pp[DIM_MAX], mbs[DIM_MAX], vpp[DIM_MAX];
    int32_t sp[2], rc[PLAN_RC_COUNT], zero[2];
    int n_tp, n_pp, n_mbs, n_vpp, n_sp, n_rc, n_zero;
    uint64_t inner;             /* combinations inside one block */
};

struct engine {                 /* shared, read-only during the loop */
    const struct search_cfg *cfg;
    const struct pred_ctx *ctx;
    struct dims d;
    struct pred_memo *memo;     /* [tp][mbs][sp][rc] */
    uint64_t n_blocks;
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
 * count its plans twice), at most 'cap' of them. */
static int take_list(const struct space_list *l, int32_t *out, int cap)
{
    int32_t v[SPACE_MAX_VALUES];
    int n = 0;
    memcpy(v, l->v, (size_t)l->n * sizeof *v);
    qsort(v, (size_t)l->n, sizeof *v, cmp_i32);
    for (int i = 0; i < l->n && n < cap; i++)
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

static void build_dims(const struct search_cfg *cfg, struct dims *d)
{
    const struct model *m = &cfg->ctx->model;
    const struct space *s = cfg->space;
    int64_t max_gpus = cfg->gpus[cfg->n_gpus - 1];
    int64_t tp_cap = s->tp_cross_node ? max_gpus : cfg->ctx->hw.nvlink_domain;
    d->n_tp = s->tp.n ? take_list(&s->tp, d->tp, DIM_MAX) : divisors(m->heads, tp_cap, d->tp);
    d->n_pp = s->pp.n ? take_list(&s->pp, d->pp, DIM_MAX) : divisors(m->layers, max_gpus, d->pp);
    d->n_mbs = s->mbs.n ? take_list(&s->mbs, d->mbs, DIM_MAX) : divisors(8 * 7 * 5 * 3, 8, d->mbs);
    d->n_vpp = s->vpp.n ? take_list(&s->vpp, d->vpp, DIM_MAX) : divisors(8 * 7 * 5 * 3, 8, d->vpp);
    d->n_sp = 0;
    if (s->sp != SPACE_SP_YES)
        d->sp[d->n_sp++] = 0;
    if (s->sp != SPACE_SP_NO)
        d->sp[d->n_sp++] = 1;
    d->n_rc = s->recompute.n ? take_list(&s->recompute, d->rc, PLAN_RC_COUNT) : 0;
    for (int r = 0; !s->recompute.n && r < PLAN_RC_COUNT; r++)
        d->rc[d->n_rc++] = r;
    d->n_zero = s->zero.n ? take_list(&s->zero, d->zero, 2) : 0;
    for (int z = 0; !s->zero.n && z < 2; z++)
        d->zero[d->n_zero++] = z;
    d->inner = (uint64_t)d->n_mbs * d->n_vpp * d->n_sp * d->n_rc * d->n_zero;
}

static size_t memo_at(const struct dims *d, int ti, int mi, int si, int ri)
{
    return (((size_t)ti * d->n_mbs + mi) * d->n_sp + si) * d->n_rc + ri;
}

static void build_memo(struct engine *e)
{
    const struct dims *d = &e->d;
    size_t n = (size_t)d->n_tp * d->n_mbs * d->n_sp * d->n_rc;
    e->memo = xcalloc(n, sizeof *e->memo);
    for (int ti = 0; ti < d->n_tp; ti++)
        for (int mi = 0; mi < d->n_mbs; mi++)
            for (int si = 0; si < d->n_sp; si++)
                for (int ri = 0; ri < d->n_rc; ri++) {
                    struct plan p = { .tp = d->tp[ti], .pp = 1, .dp = 1,
                                      .mbs = d->mbs[mi], .vpp = 1,
                                      .sp = d->sp[si],
                                      .recompute = (enum plan_recompute)d->rc[ri] };
                    pred_memo_build(e->ctx, &p, &e->memo[memo_at(d, ti, mi, si, ri)]);
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

static void eval_one(const struct engine *e, struct search_gpu *g,
                     const struct plan *p, const struct pred_memo *memo,
                     uint64_t idx)
{
    const struct pred_ctx *c = e->ctx;
    int k = e->cfg->top_k;
    struct pred_mem mem;
    struct pred_result r;
    struct search_hit h;
    enum plan_rule rule = plan_check(p, &c->model, &c->job, &c->limits);
    g->enumerated++;
    if (rule != PLAN_OK) {
        g->rule[rule]++;
        return;
    }
    g->valid++;
    pred_memory(c, p, &mem);
    if (!mem.fits) {
        g->memory++;
        if (-mem.margin < g->nearest_short_bytes ||
            (-mem.margin == g->nearest_short_bytes && idx < g->nearest_idx)) {
            g->nearest_short_bytes = -mem.margin;
            g->nearest = *p;
            g->nearest_idx = idx;
        }
        return;
    }
    g->feasible++;
    if (!e->cfg->exhaustive && g->n_hits == k &&
        pred_time_bound(c, p, memo) > g->hits[k - 1].iteration_s) {
        g->bound++;
        return;
    }
    g->evaluated++;
    pred_compose(c, p, memo, &r);
    h.plan = *p;
    h.iteration_s = r.iteration_s;
    h.idx = idx;
    offer(g, k, &h);
}

/* Inner index j of a block -> the plan's remaining fields and its memo. */
static const struct pred_memo *inner_plan(const struct engine *e, int ti,
                                          uint64_t j, struct plan *p)
{
    const struct dims *d = &e->d;
    int zi = (int)(j % d->n_zero), ri, si, vi, mi;
    j /= d->n_zero;
    ri = (int)(j % d->n_rc);
    j /= d->n_rc;
    si = (int)(j % d->n_sp);
    j /= d->n_sp;
    vi = (int)(j % d->n_vpp);
    mi = (int)(j / d->n_vpp);
    p->zero = d->zero[zi];
    p->recompute = (enum plan_recompute)d->rc[ri];
    p->sp = d->sp[si];
    p->vpp = d->vpp[vi];
    p->mbs = d->mbs[mi];
    return &e->memo[memo_at(d, ti, mi, si, ri)];
}

/* Block b -> GPU count index, tp index, pp index; false when GPUs is not a
 * multiple of tp * pp (no whole dp: not a plan). */
static bool block_plan(const struct engine *e, uint64_t b, size_t *gi, int *ti,
                       struct plan *p)
{
    const struct dims *d = &e->d;
    int pi = (int)(b % (uint64_t)d->n_pp);
    int64_t gpus, tp_pp;
    b /= (uint64_t)d->n_pp;
    *ti = (int)(b % (uint64_t)d->n_tp);
    *gi = (size_t)(b / (uint64_t)d->n_tp);
    gpus = e->cfg->gpus[*gi];
    p->tp = d->tp[*ti];
    p->pp = d->pp[pi];
    tp_pp = (int64_t)p->tp * p->pp;
    if (gpus % tp_pp)
        return false;
    p->dp = (int32_t)(gpus / tp_pp);
    return true;
}

static void run_block(const struct engine *e, struct local *L, uint64_t b)
{
    struct plan p = { 0 };
    size_t gi;
    int ti;
    if (!block_plan(e, b, &gi, &ti, &p))
        return;
    for (uint64_t j = 0; j < e->d.inner; j++) {
        const struct pred_memo *memo = inner_plan(e, ti, j, &p);
        eval_one(e, &L->g[gi], &p, memo, b * e->d.inner + j);
    }
}

static void run_sample(const struct engine *e, struct local *L, uint64_t s)
{
    struct tpl_rng rng;
    struct plan p = { 0 };
    uint64_t idx, b;
    size_t gi;
    int ti;
    tpl_rng_seed(&rng, e->cfg->seed, s);        /* one stream per sample */
    idx = tpl_rng_u64_below(&rng, e->n_blocks * e->d.inner);
    b = idx / e->d.inner;
    if (!block_plan(e, b, &gi, &ti, &p))
        return;
    eval_one(e, &L->g[gi], &p, inner_plan(e, ti, idx % e->d.inner, &p), idx);
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
    if (from->nearest_short_bytes < to->nearest_short_bytes ||
        (from->nearest_short_bytes == to->nearest_short_bytes &&
         from->nearest_idx < to->nearest_idx)) {
        to->nearest_short_bytes = from->nearest_short_bytes;
        to->nearest = from->nearest;
        to->nearest_idx = from->nearest_idx;
    }
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

/* ---- the run ---- */

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
            if (cfg->progress) {
                uint64_t now_done;
                #pragma omp atomic capture
                now_done = ++done;
                if (omp_get_thread_num() == 0) {
                    double now = omp_get_wtime();
                    if (now - t0 > 1.0 && now - last > 0.1) {
                        last = now;
                        cfg->progress(cfg->progress_arg, (double)now_done / n);
                    }
                }
            }
        }
    }
}

int search_run(const struct search_cfg *cfg, struct search_result *out,
               struct tpl_err *err)
{
    struct engine e = { .cfg = cfg, .ctx = cfg->ctx };
    struct local *locals;
    int nt = omp_get_max_threads();
    double t0 = omp_get_wtime();
    uint64_t space, n;
    bool sampled;
    memset(out, 0, sizeof *out);
    if (cfg->n_gpus == 0 || cfg->top_k < 1 || cfg->top_k > SEARCH_MAX_TOP)
        return tpl_errorf(err, TPL_EUSAGE, "nothing to search: no GPU counts "
                          "or a bad --top");
    build_dims(cfg, &e.d);
    if (e.d.n_tp == 0 || e.d.n_pp == 0 || e.d.inner == 0)
        return tpl_errorf(err, TPL_ECONFIG, "the search space is empty");
    e.n_blocks = (uint64_t)cfg->n_gpus * e.d.n_tp * e.d.n_pp;
    space = e.n_blocks * e.d.inner;
    sampled = cfg->budget && space > cfg->budget;
    n = sampled ? cfg->budget : e.n_blocks;
    build_memo(&e);
    locals = xcalloc((size_t)nt, sizeof *locals);
    for (int t = 0; t < nt; t++)
        local_init(&locals[t], cfg);
    loop(&e, locals, n, sampled);
    out->n = cfg->n_gpus;
    out->top_k = cfg->top_k;
    out->per_gpu = locals[0].g;                 /* thread 0's arrays become */
    for (int t = 1; t < nt; t++) {              /* the merged result */
        for (size_t i = 0; i < cfg->n_gpus; i++)
            merge_gpu(&out->per_gpu[i], &locals[t].g[i], cfg->top_k);
        free(locals[t].g);
        free(locals[t].store);
    }
    free(locals);
    free(e.memo);
    out->stats.space_size = space;
    out->stats.sampled = sampled;
    out->stats.partial = cfg->stop && *cfg->stop;
    totals(out);
    out->stats.seconds = omp_get_wtime() - t0;
    return 0;
}

void search_result_release(struct search_result *r)
{
    if (r->per_gpu)
        free(r->per_gpu[0].hits);               /* the store of thread 0 */
    free(r->per_gpu);
    memset(r, 0, sizeof *r);
}
