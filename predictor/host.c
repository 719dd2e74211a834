/* predictor/host.c: the host's share of an MoE layer's time under
 * Megatron-Core when CUDA graphs do not capture it all.
 *
 * The host issues a layer's kernels one by one (job.moe_host_s each, the
 * eager host time per kernel); the GPU runs them from a queue, so the host
 * stays ahead as long as it issues faster than the GPU runs. An MoE layer
 * breaks that once per forward: a dropless dispatcher needs each expert's
 * token count on the host to size the dispatch's output and the grouped
 * GEMMs' splits (megatron/core/transformer/moe/ @ dev d48bd6b:
 * fused_a2a.py HybridEPDispatch.forward "If we provide the
 * num_permuted_tokens, we do not need to use sync", token_dispatcher.py
 * _HybridEPManager.setup_metadata "None means no up-bound, will cause a
 * CPU sync"; DeepEP FusedDispatch.forward "the CPU will wait for GPU's
 * signal to arrive"; MoEAlltoAllTokenDispatcher cuda_sync_point; and
 * experts.py TEGroupedMLP.forward tokens_per_expert.tolist()). The host
 * waits there until the GPU has run everything queued, then issues the
 * dispatch, the experts and the combine (pred_ops seg PRED_SEG_AFTER) to
 * an idle GPU, then the rest of the layer and the next layer's attention,
 * router and preprocessing (PRED_SEG_BEFORE) up to the next sync. With
 * H_a, G_a the host's and the GPU's time of the part after the sync and
 * H_b, G_b of the part before the next, h one kernel's host time, the GPU
 * ends the first part at F_a = max(H_a, G_a + h) (the host issues the
 * first kernel before the GPU can start, or the last one after the GPU
 * has run the others) and the segment at F = max(F_a + G_b, H_a + H_b);
 * the host's wait is F - G_a - G_b, at least h per forward.
 *
 * The backward has no sync: the cached handle carries the counts
 * (HybridEPCombine.backward passes num_permuted_tokens; DeepEP's cached
 * dispatch), so the host runs ahead and only what it issues beyond the
 * GPU's time is exposed, max(0, H - G), as for a layer without a sync
 * (moe_host_sync false: --moe-expert-rank-capacity-factor or drop-and-pad
 * give a static budget, fused_a2a.py non_blocking). With the all-to-all
 * overlap (epo: combined_1f1b.py) a micro-batch's forward runs beside
 * another's backward, whose kernels are queued across the sync: the
 * layer's forward and backward form one segment, max(h, H - G).
 *
 * CUDA graphs (job.cuda_graphs, --cuda-graph-scope): a captured scope's
 * kernels replay as one graph launch (one host kernel each way); a
 * full-iteration graph issues nothing and, as it needs the static budget
 * (moe_expert_rank_capacity_factor, the recipes' paged stash), has no
 * sync either. */
#include "predictor/pred.h"

#include <math.h>

/* Host and GPU time of the layer's operators, by segment, one pass. */
struct host_pass {
    double h_s[PRED_SEG_COUNT], g_s[PRED_SEG_COUNT];
};

static const enum job_graph graph_of[PRED_GRAPH_COUNT] = {
    [PRED_GRAPH_NONE] = JOB_GRAPH_COUNT, [PRED_GRAPH_ATTN] = JOB_GRAPH_ATTN,
    [PRED_GRAPH_ROUTER] = JOB_GRAPH_MOE_ROUTER,
    [PRED_GRAPH_PREPROCESS] = JOB_GRAPH_MOE_PREPROCESS,
};

/* The share of op's kernels a captured scope replays. */
static double captured(const struct pred_ctx *c, const struct pred_op_info *o)
{
    enum job_graph g = graph_of[o->graph];
    return g < JOB_GRAPH_COUNT && (c->job.cuda_graphs & JOB_GRAPH_BIT(g))
           ? o->graphed : 0.0;
}

/* One graph launch per captured scope the layer has: the attention's,
 * and the router's and preprocessing's together (moe_layer.py: one
 * partial capture that returns after preprocess). */
static double graph_launches(const struct pred_ctx *c)
{
    unsigned g = c->job.cuda_graphs;
    return (g & JOB_GRAPH_BIT(JOB_GRAPH_ATTN) ? 1.0 : 0.0) +
           (g & (JOB_GRAPH_BIT(JOB_GRAPH_MOE_ROUTER) |
                 JOB_GRAPH_BIT(JOB_GRAPH_MOE_PREPROCESS)) ? 1.0 : 0.0);
}

double pred_host_kernels(const struct pred_ctx *c, const struct plan *p,
                         bool bwd, enum pred_sync_seg seg)
{
    double n = seg == PRED_SEG_BEFORE ? graph_launches(c) : 0.0;
    for (int i = 0; i < PRED_OP_COUNT; i++) {
        const struct pred_op_info *o = &pred_ops[i];
        double f, b;
        if (o->kind == PRED_KIND_HOST || o->seg != seg)
            continue;
        pred_op_launches(c, p, (enum pred_op)i, &f, &b);
        n += (bwd ? b : f) * (1.0 - captured(c, o));
    }
    return n;
}

static void pass_sums(const struct pred_ctx *c, const struct plan *p,
                      const struct pred_layer *l, bool bwd,
                      struct host_pass *s)
{
    const double *t = bwd ? l->bwd_s : l->fwd_s;
    for (int seg = 0; seg < PRED_SEG_COUNT; seg++) {
        s->h_s[seg] = c->job.moe_host_s *
                      pred_host_kernels(c, p, bwd, (enum pred_sync_seg)seg);
        s->g_s[seg] = 0;
    }
    for (int i = 0; i < PRED_OP_COUNT; i++)
        if (pred_ops[i].kind != PRED_KIND_HOST)
            s->g_s[pred_ops[i].seg] += t[i];
}

double pred_host_sync_wait(double h_after, double g_after, double h_before,
                           double g_before, double h)
{
    double f_after = fmax(h_after, g_after + h);
    double f = fmax(f_after + g_before, h_after + h_before);
    return f - g_after - g_before;
}

static double pass_h(const struct host_pass *s)
{
    return s->h_s[PRED_SEG_BEFORE] + s->h_s[PRED_SEG_AFTER];
}

static double pass_g(const struct host_pass *s)
{
    return s->g_s[PRED_SEG_BEFORE] + s->g_s[PRED_SEG_AFTER];
}

bool pred_moe_host_applies(const struct pred_ctx *c)
{
    return c->job.moe_host_s > 0 && c->job.host_s <= 0 &&
           !(c->job.cuda_graphs & JOB_GRAPH_BIT(JOB_GRAPH_FULL));
}

void pred_moe_host_wait(const struct pred_ctx *c, const struct plan *p,
                        struct pred_layer *o)
{
    struct host_pass f, b;
    double h = c->job.moe_host_s;
    pass_sums(c, p, o, false, &f);
    pass_sums(c, p, o, true, &b);
    if (c->job.moe_host_sync && p->epo) {   /* one segment, both passes */
        o->fwd_s[PRED_OP_HOST] = fmax(h, pass_h(&f) + pass_h(&b) -
                                         pass_g(&f) - pass_g(&b));
        o->bwd_s[PRED_OP_HOST] = 0;
    } else {
        o->fwd_s[PRED_OP_HOST] = c->job.moe_host_sync
            ? pred_host_sync_wait(f.h_s[PRED_SEG_AFTER], f.g_s[PRED_SEG_AFTER],
                                  f.h_s[PRED_SEG_BEFORE],
                                  f.g_s[PRED_SEG_BEFORE], h)
            : fmax(0.0, pass_h(&f) - pass_g(&f));
        o->bwd_s[PRED_OP_HOST] = fmax(0.0, pass_h(&b) - pass_g(&b));
    }
    o->fwd_total_s += o->fwd_s[PRED_OP_HOST];
    o->bwd_total_s += o->bwd_s[PRED_OP_HOST];
}
