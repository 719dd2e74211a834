/* predictor/compose.c: one iteration from one layer's times.
 *
 * Pipeline (Narayanan et al. SC21, sec. 2.2): with m micro-batches per
 * iteration and per-micro-batch stage times t_f, t_b of the slowest stage,
 * 1F1B takes (m + pp - 1)(t_f + t_b), a bubble fraction (pp - 1)/(m + pp - 1);
 * the interleaved schedule with vpp chunks per rank shrinks the bubble to
 * (pp - 1)/vpp (t_f + t_b) (sec. 2.2.2) at vpp times the point-to-point
 * sends. Each send moves one micro-batch's activations, mbs * seq * h in
 * 16-bit (divided by tp with sequence parallelism).
 * Data parallel: gradients (fp32 main_grad) all-reduced, or reduce-scattered
 * then parameters (16-bit) all-gathered with the distributed optimizer;
 * Megatron-LM overlaps the reduce with the backward pass bucket by bucket
 * (--overlap-grad-reduce; buckets of max(40M, 1M * dp) parameters,
 * megatron/core/distributed) and the gather with the next forward
 * (--overlap-param-gather), so the exposed time is what outlasts the last
 * micro-batch's backward (forward), and never less than one bucket.
 * With context parallelism (cp.c) every stage works on seq / cp tokens and
 * the gradient group is dp * cp.
 * ZeRO-2 and ZeRO-3 / FSDP gather and reduce per layer: predictor/shard.c.
 * Optimizer: Adam over the GPU's parameter shard is memory-bound: read fp32
 * master, m, v and grad, write master, m, v and the 16-bit weight (30 bytes
 * per parameter) plus 4 for the gradient-norm pass. */
#include "predictor/pred.h"

#include <math.h>
#include <string.h>

static double tp_coll(const struct pred_ctx *c, const struct plan *p,
                      enum pred_coll kind, double bytes)
{
    int64_t k = p->tp < c->k.domain ? p->tp : c->k.domain;
    return pred_coll_s(&c->k, kind, bytes, p->tp, k);
}

/* Embedding lookup on the first stage: gather rows, vocab-parallel
 * all-reduce (reduce-scatter with sp); backward scatter-adds into the fp32
 * gradient of the table. */
static void add_embedding(const struct pred_ctx *c, const struct plan *p,
                          struct pred_stage *s)
{
    double tok = pred_tokens(c, p), h = (double)c->model.hidden;
    double table = (double)c->model.vocab * h / p->tp, act = 2.0 * tok * h;
    double comm = p->tp == 1 ? 0 : p->sp
                ? tp_coll(c, p, PRED_COLL_REDUCESCATTER, act)
                : tp_coll(c, p, PRED_COLL_ALLREDUCE, act);
    double back = p->sp ? tp_coll(c, p, PRED_COLL_ALLGATHER, act) : 0;
    s->fwd_s += pred_mem_s(&c->k, 2.0 * act, 1) + comm;
    s->bwd_s += pred_mem_s(&c->k, 2.0 * act + 4.0 * table, 2) + back;
    s->comm_s += comm + back;
}

/* Final norm, LM head GEMM and vocab-parallel cross-entropy (Megatron
 * VocabParallelCrossEntropy: fp32 logits, three small all-reduces over tp
 * for max, sum and target logit) on the last stage. */
static void add_head(const struct pred_ctx *c, const struct plan *p,
                     struct pred_stage *s)
{
    const struct pred_kernels *k = &c->k;
    double tok = pred_tokens(c, p), h = (double)c->model.hidden;
    double vt = (double)c->model.vocab / p->tp, rows = p->sp ? tok / p->tp : tok;
    double act = 2.0 * tok * h, in = c->job.precision == JOB_PREC_FP8 ? 1.0 : 2.0;
    double small = p->tp > 1 ? 3.0 * tp_coll(c, p, PRED_COLL_ALLREDUCE, 4.0 * tok)
                             : 0;
    double gather = p->tp > 1 && p->sp ? tp_coll(c, p, PRED_COLL_ALLGATHER, act) : 0;
    double back = p->tp == 1 ? 0 : p->sp
                ? tp_coll(c, p, PRED_COLL_REDUCESCATTER, act)
                : tp_coll(c, p, PRED_COLL_ALLREDUCE, act);
    s->fwd_s += pred_norm_s(k, 4.0 * rows * h, 1) + gather +
              pred_gemm_s(k, &k->gemm, tok, vt, h, in) +
              pred_mem_s(k, 10.0 * tok * vt, 3) + small;
    s->bwd_s += pred_mem_s(k, 6.0 * tok * vt, 1) +
              pred_gemm_s(k, &k->gemm_bwd, tok, h, vt, in) +
              pred_gemm_s(k, &k->gemm_bwd, h, vt, tok, in) +
              pred_norm_s(k, 10.0 * rows * h, 2) + back;
    s->comm_s += small + gather + back;
}

static void add_stage(struct pred_stage *s, const struct pred_stage *e)
{
    s->fwd_s += e->fwd_s;
    s->bwd_s += e->bwd_s;
    s->comm_s += e->comm_s;
    s->cp_comm_s += e->cp_comm_s;
    s->recompute_s += e->recompute_s;
}

static void stage_time(const struct plan *p, const struct pred_memo *memo,
                       const struct stage_layout *lay, int64_t rank,
                       struct pred_stage *s)
{
    const struct pred_layer *l = &memo->layer;
    double n = stage_rank_layers(lay, rank);
    s->fwd_s = n * l->fwd_total_s;
    s->bwd_s = n * (l->bwd_total_s + l->recompute_s);
    s->comm_s = n * (pred_layer_part_s(l, PRED_PART_TP_COMM) +
                   l->recompute_comm_s);
    s->cp_comm_s = n * pred_layer_part_s(l, PRED_PART_CP_COMM);
    s->recompute_s = n * (l->recompute_s - l->recompute_comm_s);
    if (rank == 0)
        add_stage(s, &memo->embed);
    if (rank == p->pp - 1)
        add_stage(s, &memo->head);
}

void pred_memo_build(const struct pred_ctx *c, const struct plan *p,
                     struct pred_memo *out)
{
    memset(out, 0, sizeof *out);
    pred_layer_time(c, p, &out->layer);
    add_embedding(c, p, &out->embed);
    add_head(c, p, &out->head);
}

double pred_time_bound(const struct pred_ctx *c, const struct plan *p,
                       const struct pred_memo *memo)
{
    const struct pred_layer *l = &memo->layer;
    double m = (double)(c->job.gbs / ((int64_t)p->dp * p->mbs));
    struct stage_layout s;
    pred_layout(c, p, &s);
    return (fmax(m, 1.0) + (double)(p->pp - 1) / p->vpp) *
           stage_max_layers(&s) *
           (l->fwd_total_s + l->bwd_total_s + l->recompute_s);
}

/* ---- data parallel and optimizer ---- */


/* Gradient reduce (and, with the distributed optimizer, parameter gather)
 * over the dp group, less what overlaps the backward (forward). */
static double dp_sync_exposed(const struct pred_ctx *c, const struct plan *p,
                              const struct pred_stage *s, double params)
{
    double bucket = fmax(4e7, 1e6 * (double)pred_grad_ranks(p));
    double frac = fmin(1.0, bucket / params);
    double grad, gather = 0, exposed;
    if (pred_grad_ranks(p) <= 1 || p->zero >= 2)  /* ZeRO-2/3: shard.c */
        return 0;
    grad = pred_dp_reduce_s(c, p, 4.0 * params);
    if (p->zero)
        gather = pred_dp_gather_s(c, p, 2.0 * params);
    exposed = pred_overlap_grad(c, p)
            ? fmax(grad - s->bwd_s, grad * frac) : grad;
    exposed += pred_overlap_param(c, p)
             ? fmax(gather - s->fwd_s, gather * frac) : gather;
    return exposed;
}

/* Tied embeddings: first and last stage all-reduce the table's gradient. */
static double tied_embed_sync(const struct pred_ctx *c, const struct plan *p)
{
    int inside = plan_gpus(p) <= c->k.domain;
    if (!c->model.tied_embeddings || p->pp <= 1)
        return 0;
    return pred_coll_s(&c->k, PRED_COLL_ALLREDUCE,
                       4.0 * (double)c->model.vocab * c->model.hidden / p->tp,
                       2, inside ? 2 : 1);
}

/* The slowest stage's layers as ZeRO-2/3 sees them (predictor/shard.c). */
static void shard_layer(const struct pred_ctx *c, const struct plan *p,
                        const struct pred_memo *memo, double params,
                        struct pred_shard_layer *o)
{
    const struct pred_layer *l = &memo->layer;
    struct stage_layout lay;
    pred_layout(c, p, &lay);
    o->n = stage_max_layers(&lay);      /* the fullest stage's units */
    o->fwd_s = l->fwd_total_s;
    o->bwd_s = l->bwd_total_s + l->recompute_s;
    o->unit_params = pred_layer_params(&c->model, p);
    o->ends_params = fmax(0.0, params - o->n * o->unit_params);
}

static double dp_exposed(const struct pred_ctx *c, const struct plan *p,
                         const struct pred_memo *memo,
                         const struct pred_stage *s, double params, double m)
{
    struct pred_shard_layer sl;
    shard_layer(c, p, memo, params, &sl);
    return dp_sync_exposed(c, p, s, params) + tied_embed_sync(c, p) +
           pred_shard_exposed(c, p, &sl, m);
}

static double optimizer_time(const struct pred_ctx *c, const struct plan *p,
                             double params)
{
    double local = params / (p->zero ? (double)pred_shard_degree(p) : 1.0);
    return pred_mem_s(&c->k, 34.0 * local, 8);
}

/* ---- composition ---- */

/* The slowest stage paces 1F1B: of the end stages (embedding, head and
 * loss) and the heaviest middle one (stage_worst_ranks), the first of the
 * slowest; *params gets the most parameters any of them holds (the DP
 * reduction and the optimizer step of that stage). */
static void slowest_stage(const struct pred_ctx *c, const struct plan *p,
                          const struct pred_memo *memo, struct pred_stage *slow,
                          double *params)
{
    struct stage_layout lay;
    struct pred_stage s;
    int64_t ranks[3];
    int n;
    pred_layout(c, p, &lay);
    n = stage_worst_ranks(&lay, ranks);
    *params = 0;
    for (int i = 0; i < n; i++) {
        stage_time(p, memo, &lay, ranks[i], &s);
        if (i == 0 || s.fwd_s + s.bwd_s > slow->fwd_s + slow->bwd_s)
            *slow = s;
        *params = fmax(*params, pred_stage_params(&c->model, p, &lay, ranks[i]));
    }
}

/* Point-to-point sends of activations forward and gradients backward,
 * vpp times as many with the interleaved schedule (sec. 2.2.2). */
static double pp_p2p_time(const struct pred_ctx *c, const struct plan *p,
                          double m)
{
    double bytes = 2.0 * pred_tokens(c, p) *
                   (double)c->model.hidden / (p->sp ? p->tp : 1);
    int inter = plan_gpus(p) > c->k.domain;
    if (p->pp <= 1)
        return 0;
    return 2.0 * (m * p->vpp + (double)(p->pp - 1)) *
           pred_p2p_s(&c->k, bytes, inter);
}

/* The pipeline's parts: m micro-batches of the slowest stage split into
 * compute, recompute and tp communication, the bubble, the sends. */
static void pipeline_parts(const struct pred_ctx *c, const struct plan *p,
                           const struct pred_stage *slow, double m,
                           double *part_s)
{
    double bubble_slots = (double)(p->pp - 1) / p->vpp;
    part_s[PRED_PART_TP_COMM] = m * slow->comm_s;
    part_s[PRED_PART_CP_COMM] = m * slow->cp_comm_s;
    part_s[PRED_PART_RECOMPUTE] = m * slow->recompute_s;
    part_s[PRED_PART_COMPUTE] = m * (slow->fwd_s + slow->bwd_s - slow->comm_s -
                                     slow->cp_comm_s - slow->recompute_s);
    part_s[PRED_PART_PP_BUBBLE] = bubble_slots * (slow->fwd_s + slow->bwd_s);
    part_s[PRED_PART_PP_P2P] = pp_p2p_time(c, p, m);
}

/* Throughput and utilisations of a composed iteration. */
static void rates(const struct pred_ctx *c, const struct plan *p,
                  struct pred_result *o)
{
    double gpus = (double)plan_gpus(p);
    o->iteration_s = 0;
    for (int i = 0; i < PRED_PART_COUNT; i++)
        o->iteration_s += o->part_s[i];
    o->model_flops = c->model_flops;
    o->hw_flops = c->hw_flops[p->recompute];
    o->tokens_per_s = (double)c->job.gbs * (double)c->job.seq / o->iteration_s;
    o->mfu = o->model_flops / (o->iteration_s * gpus * c->peak_flops);
    o->hfu = o->hw_flops / (o->iteration_s * gpus * c->peak_flops);
    o->band_outside = pred_band_outside(&c->band, gpus, c->params, NULL, 0);
    pred_band_apply(o->band_outside && c->band.region.gpus_hi > 0
                        ? pred_band_widen(c->band) : c->band,
                    o->iteration_s, &o->iteration_s_low, &o->iteration_s_high);
}

void pred_compose(const struct pred_ctx *c, const struct plan *p,
                  const struct pred_memo *memo, struct pred_result *o)
{
    struct pred_stage slow_stage = { 0 };
    const struct pred_stage *slow = &slow_stage;
    int64_t mb = plan_microbatches(p, &c->job);
    double params;
    slowest_stage(c, p, memo, &slow_stage, &params);
    mb = mb < 1 ? 1 : mb;
    o->microbatches = mb;
    o->stage_fwd_s = slow->fwd_s;
    o->stage_bwd_s = slow->bwd_s;
    pipeline_parts(c, p, slow, (double)mb, o->part_s);
    o->part_s[PRED_PART_DP_EXPOSED] = dp_exposed(c, p, memo, slow, params,
                                                 (double)mb);
    o->part_s[PRED_PART_OPTIMIZER] = optimizer_time(c, p, params);
    rates(c, p, o);
}

void pred_plan(const struct pred_ctx *c, const struct plan *p,
               struct pred_result *out)
{
    struct pred_memo memo;
    memset(out, 0, sizeof *out);
    out->rule = plan_check(p, &c->model, &c->job, &c->limits);
    if (out->rule == PLAN_RULE_DEGREE)
        return;
    pred_memo_build(c, p, &memo);
    out->layer = memo.layer;
    pred_compose(c, p, &memo, out);
    pred_memory(c, p, &out->mem);
}
