/* predictor/mem.c: memory per GPU for the worst pipeline stage.
 *
 * Model states (Rajbhandari et al. SC20, ZeRO, sec. 3.1: mixed-precision Adam
 * holds 2 + 2 + 12 bytes per parameter; Megatron-LM accumulates gradients in
 * an fp32 main_grad buffer, so gradients take 4): weights 2 (+1 for the FP8
 * weight copies Transformer Engine keeps), gradients 4, optimizer 12 (fp32
 * master weights, Adam m and v), divided over dp by ZeRO-1 / the distributed
 * optimizer.
 *
 * Activations: Korthikanti et al., "Reducing Activation Recomputation in Large
 * Transformer Models", MLSys 2023, sec. 4 and Table 2, per layer and
 * micro-batch (s sequence, b micro-batch, h hidden, a heads, t tp):
 *   no recompute, tp only:  sbh (10 + 24/t + 5as/(ht))
 *   with sp:                sbh/t (34 + 5as/h)
 *   selective recompute:    sbh (10 + 24/t),  with sp sbh 34/t
 *   full recompute:         2sbh,             with sp 2sbh/t
 * built from its sec. 4.1 inventory so that GQA (K and V of kv_dim), GLU
 * (three h x f matrices) and models without dropout follow, and flash
 * attention (Dao et al. 2022) replaces the 5as^2b softmax terms by the
 * per-row log-sum-exp (4 bytes per head and token).
 * In flight: 1F1B keeps pp - r micro-batches on pipeline rank r; the
 * interleaved schedule keeps 2(pp - r - 1) + (vpp - 1) pp + 1 model chunks of
 * l/(pp vpp) layers (Megatron-LM schedules.py warm-up counts), which for
 * rank 0 is Korthikanti's l(1 + (pp - 1)/(pp vpp)). */
#include "predictor/pred.h"

#include <math.h>

/* ---- activations of one layer ---- */

double pred_act_layer_bytes(const struct model *m, const struct job *j,
                            const struct plan *p)
{
    double s = (double)j->seq, b = (double)p->mbs, h = (double)m->hidden;
    double a = (double)m->heads, t = (double)p->tp, f = (double)m->ffn_hidden;
    double kv = (double)model_kv_dim(m), sbh = s * b * h;
    double sp_div = p->sp ? t : 1.0;
    double rep, split, core;

    if (p->recompute == PLAN_RECOMPUTE_FULL)
        return 2.0 * sbh / sp_div;              /* the layer input only */
    /* 2 norm inputs (4sbh), QKV and MLP inputs (2sbh each), 2 dropout masks */
    rep = 8.0 * sbh + (m->dropout ? 2.0 * sbh : 0.0);
    /* Q, K, V, out-proj input; MLP: GeLU in and out (4sbf) or the fused
     * SwiGLU's fc1 output [gate, up] and product (6sbf) */
    split = 4.0 * sbh + 4.0 * s * b * kv + (m->glu ? 6.0 : 4.0) * s * b * f;
    if (j->attention == JOB_ATTN_FLASH)
        core = 4.0 * a * s * b;                 /* fp32 log-sum-exp */
    else                                        /* softmax out (+ mask, dropout out) */
        core = (m->dropout ? 5.0 : 2.0) * a * s * s * b;
    if (p->recompute == PLAN_RECOMPUTE_SELECTIVE)
        core = 0;                               /* attention core recomputed */
    return rep / sp_div + (split + core) / t;
}

double pred_inflight_chunks(const struct plan *p, int64_t microbatches,
                            int64_t rank)
{
    double chunks, cap = (double)microbatches * (double)p->vpp;
    if (p->pp == 1)
        return 1.0;                     /* gradient accumulation: one at a time */
    if (p->vpp == 1)
        chunks = (double)(p->pp - rank);
    else
        chunks = 2.0 * (double)(p->pp - rank - 1) +
                 (double)(p->vpp - 1) * (double)p->pp + 1.0;
    return fmin(chunks, fmax(cap, 1.0));
}

/* ---- parameters per GPU ---- */

double pred_stage_layers(const struct model *m, const struct plan *p)
{
    return ceil((double)m->layers / (double)p->pp);
}

double pred_chunk_layers(const struct model *m, const struct plan *p)
{
    return ceil((double)m->layers / ((double)p->pp * (double)p->vpp));
}

double pred_stage_params(const struct model *m, const struct plan *p,
                         int64_t rank)
{
    double h = (double)m->hidden, t = (double)p->tp;
    double norm = m->norm == MODEL_NORM_LAYERNORM ? 2.0 * h : h;
    /* norms and the row-parallel biases are replicated over tp */
    double repl = 2.0 * norm + (m->bias ? 2.0 * h : 0.0);
    double layer = ((double)model_layer_params(m) - repl) / t + repl;
    double params = layer * pred_stage_layers(m, p);
    double table = (double)m->vocab * h / t;    /* vocab-parallel */
    if (rank == 0)
        params += table + (double)m->position_table * h;
    if (rank == p->pp - 1) {
        params += norm;
        if (!m->tied_embeddings || p->pp > 1)  /* tied: last stage keeps a copy */
            params += table;
    }
    return params;
}

/* ---- one stage ---- */

static double end_stage_act(const struct pred_ctx *c, const struct plan *p,
                             int64_t rank, double inflight_mb)
{
    const struct model *m = &c->model;
    double s = (double)c->job.seq, b = (double)p->mbs, h = (double)m->hidden;
    double t = (double)p->tp, sp_div = p->sp ? t : 1.0, bytes = 0;
    if (rank == 0 && m->dropout)            /* embedding dropout mask */
        bytes += inflight_mb * s * b * h / sp_div;
    if (rank == p->pp - 1)                  /* final norm and head inputs, */
        bytes += 4.0 * s * b * h / sp_div + /* bf16 logits + fp32 copy */
                 6.0 * s * b * (double)m->vocab / t;
    return bytes;
}

/* With recompute, one layer is rebuilt at a time: all of it (full), or its
 * attention core (selective), on top of what the stage keeps ('act' bytes
 * per layer). */
static double rebuilt_act(const struct pred_ctx *c, const struct plan *p,
                          double act)
{
    struct plan q = *p;
    if (p->recompute == PLAN_RECOMPUTE_NONE)
        return 0;
    q.recompute = PLAN_RECOMPUTE_NONE;
    return pred_act_layer_bytes(&c->model, &c->job, &q) -
           (p->recompute == PLAN_RECOMPUTE_SELECTIVE ? act : 0.0);
}

static void stage_mem(const struct pred_ctx *c, const struct plan *p,
                      int64_t rank, int64_t mb, struct pred_mem *out)
{
    double params = pred_stage_params(&c->model, p, rank);
    double chunks = pred_inflight_chunks(p, mb, rank);
    double chunk_layers = pred_chunk_layers(&c->model, p);
    double act = pred_act_layer_bytes(&c->model, &c->job, p);
    double w_bytes = c->job.precision == JOB_PREC_FP8 ? 3.0 : 2.0;
    out->weights_bytes = w_bytes * params;
    out->grads_bytes = 4.0 * params;
    out->optimizer_bytes = 12.0 * params / (p->zero ? (double)p->dp : 1.0);
    out->activations_bytes = chunks * chunk_layers * act + rebuilt_act(c, p, act);
    out->embed_logits_bytes = end_stage_act(c, p, rank,
                                      ceil(chunks / (double)p->vpp));
    out->total_bytes = out->weights_bytes + out->grads_bytes +
                       out->optimizer_bytes + out->activations_bytes +
                       out->embed_logits_bytes;
    out->worst_stage = (int)rank;
}

void pred_memory(const struct pred_ctx *c, const struct plan *p,
                 struct pred_mem *out)
{
    int64_t mb = plan_microbatches(p, &c->job);
    struct pred_mem last;
    stage_mem(c, p, 0, mb < 1 ? 1 : mb, out);
    if (p->pp > 1) {
        stage_mem(c, p, p->pp - 1, mb < 1 ? 1 : mb, &last);
        if (last.total_bytes > out->total_bytes)
            *out = last;
    }
    out->reserve_bytes = c->hw.reserve_bytes;
    out->usable_bytes = c->hw.hbm_bytes - c->hw.reserve_bytes;
    out->margin_bytes = out->usable_bytes - out->total_bytes;
    out->fits = out->margin_bytes >= 0;
}
